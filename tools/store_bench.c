/*
 * store_bench.c - does the cost of a commit grow with the history?
 *
 * Plays one long game between random bots (victory target 20, which random
 * bots never reach, so the game runs as long as asked) through
 * catan_store_act, and prints the median time of compute + commit per
 * action in windows of the history, in both storage modes:
 *
 *   loose   objects written one file each, refs moved on disk (hot-seat)
 *   batch   objects in memory, one pack at the end (simulate)
 *
 *   catan-store-bench [--commits N] [--window W] [--dir DIR] [--signed]
 *
 * The repositories go into a fresh folder (mkdtemp) under DIR, or under
 * $TMPDIR (else /tmp), removed at the end.
 */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchdir.h"
#include "catan/bot.h"
#include "catan/sign.h"
#include "catan/store.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static bool sign_commits;

/* Every seat's key, made now, bound in the game and given to the store. */
static int sign_game(catan_game *g, catan_key *keys)
{
	catan_sign_why why;
	for (int p = 0; p < g->opt.nplayers; p++) {
		if (catan_key_generate(&keys[p], &why))
			return -1;
		memcpy(g->keys[p], keys[p].pk, sizeof keys[p].pk);
	}
	g->signed_game = true;
	return 0;
}

static int run(const char *dir, bool batch, long commits, long window)
{
	catan_key keys[CATAN_MAX_PLAYERS];
	catan_game g;
	catan_store *s = NULL;
	catan_err err;
	memset(&g, 0, sizeof g);
	catan_options_default(&g.opt);
	g.opt.vp_target = 20;
	g.opt.seed = 7;
	catan_names_default(&g.names, 4);
	catan_board_beginner(&g.board);
	if (sign_commits && sign_game(&g, keys))
		return 1;
	if (catan_store_create_keyed(&s, dir, &g, CATAN_TIME_DETERMINISTIC,
				     batch, sign_commits ? &keys[0] : NULL,
				     &err)) {
		fprintf(stderr, "catan-store-bench: %s\n", err.msg);
		return 1;
	}
	for (int p = 1; sign_commits && p < g.opt.nplayers; p++)
		if (catan_store_set_key(s, p, &keys[p], &err)) {
			fprintf(stderr, "catan-store-bench: %s\n", err.msg);
			return 1;
		}
	catan_state st;
	catan_state_init(&st, &g.board, &g.opt);
	catan_rng rng;
	catan_rng_seed(&rng, 99);
	double *t = malloc(sizeof(double) * (size_t)commits);
	if (!t)
		return 1;
	long n = 0;
	while (n < commits && st.phase != CATAN_PHASE_OVER) {
		catan_action a;
		int who = catan_state_next_actor(&st);
		double t0 = now_us();
		if (catan_bot_choose(&a, CATAN_BOT_RANDOM, &g.board, &st, who,
				     &rng, CATAN_LEGAL_NO_OFFERS) ||
		    catan_state_apply(&st, &g.board, &st, who, &a, NULL) ||
		    catan_store_act(s, who, &a, NULL, NULL, &err)) {
			fprintf(stderr, "catan-store-bench: %s\n", err.msg);
			free(t);
			catan_store_free(s);
			return 1;
		}
		t[n++] = now_us() - t0;
	}
	double f0 = now_us();
	if (catan_store_flush(s, &err)) {
		fprintf(stderr, "catan-store-bench: %s\n", err.msg);
		return 1;
	}
	double flush = now_us() - f0;
	catan_store_free(s);
	printf("%s mode%s, %ld commits (flush at the end: %.1f ms)\n",
	       batch ? "batch" : "loose", sign_commits ? ", signed" : "", n,
	       flush / 1e3);
	printf("  %-18s %12s %12s\n", "commits", "median us", "p90 us");
	for (long w0 = 0; w0 < n; w0 += window) {
		long w1 = w0 + window < n ? w0 + window : n;
		long k = w1 - w0;
		double *win = malloc(sizeof(double) * (size_t)k);
		memcpy(win, t + w0, sizeof(double) * (size_t)k);
		qsort(win, (size_t)k, sizeof *win, cmp);
		printf("  %6ld .. %-8ld %12.1f %12.1f\n", w0 + 1, w1,
		       win[k / 2], win[(k * 9) / 10]);
		free(win);
	}
	free(t);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: catan-store-bench [--commits N] [--window W] "
		   "[--dir DIR] [--signed]\n"
		   "  (--signed: a signed game, every commit signed with its "
		   "seat's key)\n"
		   "  one long game between random bots, committed in batch "
		   "mode (simulate's)\n"
		   "  and in loose mode (hot-seat); median and p90 time per "
		   "commit in windows\n"
		   "  of W commits. Repositories go into a new folder under "
		   "DIR (default\n"
		   "  $TMPDIR or /tmp), removed at the end.\n");
}

int main(int argc, char **argv)
{
	long commits = 5000, window = 1000;
	const char *parent = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--signed")) {
			sign_commits = true;
			continue;
		}
		if (v && !strcmp(a, "--commits"))
			commits = atol(v);
		else if (v && !strcmp(a, "--window"))
			window = atol(v);
		else if (v && !strcmp(a, "--dir"))
			parent = v;
		else
			commits = 0;
		if (commits < 1)
			break;
		i++;
	}
	if (commits < 1 || window < 1) {
		usage(stderr);
		return 2;
	}
	char root[4096], batch[4200], loose[4200];
	if (bench_dir(root, sizeof root, parent, "catan-store-bench"))
		return 1;
	snprintf(batch, sizeof batch, "%s/batch", root);
	snprintf(loose, sizeof loose, "%s/loose", root);
	int rc = run(batch, true, commits, window) ||
		 run(loose, false, commits, window);
	if (bench_rmtree(root))
		fprintf(stderr, "catan-store-bench: cannot remove %s\n", root);
	return rc;
}
