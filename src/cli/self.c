/*
 * self.c - where this program is, to run another one installed beside it
 * (catan-window from catan, catan from catan-window).
 */
#define _GNU_SOURCE /* readlink */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_self(char *out, size_t n)
{
	if (n < 2)
		return -1;
	ssize_t len = readlink("/proc/self/exe", out, n - 1);
	if (len <= 0 || (size_t)len >= n - 1)
		return -1; /* (a path that filled out may have been cut) */
	out[len] = '\0';
	return 0;
}

int cli_beside_self(const char *name, char *out, size_t n)
{
	char exe[PATH_MAX];
	if (cli_self(exe, sizeof exe))
		return -1;
	const char *slash = strrchr(exe, '/');
	int dirlen = slash ? (int)(slash + 1 - exe) : 0;
	int w = snprintf(out, n, "%.*s%s", dirlen, exe, name);
	return w < 0 || (size_t)w >= n ? -1 : 0;
}
