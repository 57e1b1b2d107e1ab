/*
 * report.c - catan report: the thesis's figures 5.2-5.5 from game folders.
 */
#include <stdio.h>
#include <string.h>

#include "research.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: catan report DIR... --out OUT [--by "
		   "players|board|bots|folder]\n");
}

int cli_report(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	usage(stderr);
	return 2;
}
