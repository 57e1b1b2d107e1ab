/*
 * hook.c - `catan host-hook`: a repository on a server that players push
 * to refuses any push that would make its game invalid (spec/replication.md,
 * "A host that refuses bad pushes").
 *
 *   catan host-hook install BARE   writes BARE/hooks/pre-receive
 *   catan host-hook run            what that hook runs (git gives it the
 *                                  updates on stdin: "OLD NEW REF" lines)
 */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catan/store.h"

/* At most this many refs in one push: a game has at most 6 branches. */
#define HOOK_MAX_REFS 64

static void usage(FILE *f)
{
	fprintf(f, "usage: catan host-hook install BARE_REPO   refuse pushes "
		   "that break the game held there\n"
		   "       catan host-hook run                (run by the "
		   "pre-receive hook; git's updates on stdin)\n");
}

static int install(const char *bare)
{
	catan_store *s = NULL;
	catan_err err;
	catan_verify_report rep;
	char exe[PATH_MAX], hook[PATH_MAX + 64], tmp[PATH_MAX + 80];
	if (catan_store_open_ext(&s, bare, false, &err) ||
	    catan_store_fill_branches(s, &err)) {
		fprintf(stderr,
			"catan host-hook: %s (push the game's genesis there "
			"first: catan -C DIR remote add hub URL --push, then "
			"catan -C DIR sync)\n",
			err.msg);
		return 1;
	}
	int bad = catan_store_verify(s, &rep, &err) || !rep.ok;
	catan_store_free(s);
	if (bad) {
		fprintf(stderr, "catan host-hook: %s does not verify: %s\n",
			bare, rep.ok ? err.msg : rep.why);
		return 1;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0 || strchr(exe, '\'')) {
		fprintf(stderr,
			"catan host-hook: cannot tell where catan is\n");
		return 1;
	}
	exe[n] = '\0';
	snprintf(hook, sizeof hook, "%s/hooks", bare);
	if (mkdir(hook, 0755) && errno != EEXIST) {
		fprintf(stderr, "catan host-hook: %s: %s\n", hook,
			strerror(errno));
		return 1;
	}
	snprintf(hook, sizeof hook, "%s/hooks/pre-receive", bare);
	snprintf(tmp, sizeof tmp, "%s.catan-new", hook);
	FILE *f = fopen(tmp, "w");
	if (!f ||
	    fprintf(f,
		    "#!/bin/sh\n"
		    "# Written by catan host-hook install: every push is "
		    "verified as catan sync\n"
		    "# verifies what it fetches; a push that would break "
		    "the game is refused.\n"
		    "exec '%s' host-hook run\n",
		    exe) < 0 ||
	    fflush(f) || fsync(fileno(f)) || fclose(f) || chmod(tmp, 0755) ||
	    rename(tmp, hook)) {
		fprintf(stderr, "catan host-hook: cannot write %s: %s\n", hook,
			strerror(errno));
		if (f)
			unlink(tmp);
		return 1;
	}
	printf("installed %s: pushes to %s are verified\n", hook, bare);
	return 0;
}

static int run(void)
{
	static char olds[HOOK_MAX_REFS][48], news[HOOK_MAX_REFS][48],
	    refs[HOOK_MAX_REFS][256];
	const char *o[HOOK_MAX_REFS], *nw[HOOK_MAX_REFS], *r[HOOK_MAX_REFS];
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, stdin)) {
		if (n == HOOK_MAX_REFS) {
			fprintf(stderr,
				"catan: refused: more than %d refs in "
				"one push\n",
				HOOK_MAX_REFS);
			return 1;
		}
		if (sscanf(line, "%47s %47s %255s", olds[n], news[n],
			   refs[n]) != 3) {
			fprintf(stderr, "catan: refused: cannot read the "
					"update line from git\n");
			return 1;
		}
		o[n] = olds[n];
		nw[n] = news[n];
		r[n] = refs[n];
		n++;
	}
	catan_store *s = NULL;
	catan_err err;
	catan_verify_report rep;
	if (catan_store_open_ext(&s, NULL, true, &err) ||
	    catan_store_check_push(s, r, o, nw, n, &rep, &err)) {
		fprintf(stderr, "catan: refused: %s\n", err.msg);
		catan_store_free(s);
		return 1;
	}
	catan_store_free(s);
	if (!rep.ok) {
		fprintf(stderr, "catan: refused: commit %.10s: %s\n",
			rep.bad.hex, rep.why);
		return 1;
	}
	return 0;
}

int cli_host_hook(int argc, char **argv)
{
	if (argc == 1 &&
	    (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[0], "install"))
		return install(argv[1]);
	if (argc == 1 && !strcmp(argv[0], "run"))
		return run();
	usage(stderr);
	return 2;
}
