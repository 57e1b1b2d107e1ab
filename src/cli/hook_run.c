/*
 * hook_run.c - what the pre-receive hook of `catan host-hook install`
 * runs, in its own small program (catan-hook, hook_main.c) and as `catan
 * host-hook run`: git's updates ("OLD NEW REF" lines) on standard input,
 * checked by catan_store_check_push in the repository git names; the
 * reason on standard error and exit status 1 when the push is refused.
 * Uses only the store's public API, so catan-hook links the store and
 * not the window's libraries (a process start is most of a hook's cost).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>

#include "catan/store.h"
#include "hook_run.h"

/* At most this many refs in one push: a game has at most 6 branches. */
#define HOOK_MAX_REFS 64

int cli_hook_run(void)
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
