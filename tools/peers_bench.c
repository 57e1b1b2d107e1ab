/*
 * peers_bench.c - a game between bots on separate peers, each with its own
 * repository, syncing through path remotes (full mesh), in one process:
 * the compute / commit / sync split per commit, as in the thesis's chapter
 * 5 (there: 4 players 100 ms compute + 249 ms sync per commit; 2 players
 * 64 + 64 ms).
 *
 *   catan-peers-bench [--players N] [--seed S] [--dir DIR] [--keep]
 *                     [--signed | --fair] [--relay URL] [--vp N]
 *
 * With --relay the peers do not know each other: each pushes its own
 * branch to one shared repository (URL: an empty bare repository, over
 * any transport, e.g. https:// on a Git host) and fetches the others'
 * from it, as players behind home routers would; a peer syncs again
 * right after acting (catan peer does), so that its move reaches the
 * relay at once. Also prints the median time of a sync that brought
 * exactly one new commit (fetched, verified, adopted). 5 and 6 players
 * play on a random 5-6 board with the special building phase.
 *
 * With --signed the game is signed (a key per seat, made from the seed):
 * every commit is signed by its peer and every received commit's signature
 * checked. --fair: signed, with fair dice (every outcome a request, a
 * reveal from each other peer and a completion).
 *
 * The peers' repositories go into a fresh folder (mkdtemp) under DIR, or
 * under $TMPDIR (else /tmp); it is removed at the end unless --keep.
 */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchdir.h"
#include "catan/boardgen.h"
#include "catan/bot.h"
#include "catan/sign.h"
#include "catan/store.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The process's CPU time (user + system), in ms: what a sync or a commit
 * costs apart from waiting (for the disk, or for a CPU on a loaded
 * machine). */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: catan-peers-bench [--players 2..6] [--seed S] [--dir DIR] "
	    "[--keep] [--signed | --fair]\n"
	    "                         [--relay URL] [--vp 3..20]\n"
	    "  one game between greedy bots on separate peers (one repository\n"
	    "  each, path remotes, full mesh; or with --relay, all through\n"
	    "  the one empty bare repository at URL); prints compute, commit\n"
	    "  and sync time per commit. Repositories go into a new folder\n"
	    "  under DIR (default $TMPDIR or /tmp), removed at the end unless\n"
	    "  --keep. --vp: the points that win (default 10).\n");
}

int main(int argc, char **argv)
{
	int n = 4, vp = 10;
	unsigned long long seed = 5;
	const char *parent = NULL, *relay = NULL;
	bool keep = false, signed_game = false, fair = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--keep")) {
			keep = true;
			continue;
		} else if (!strcmp(a, "--signed")) {
			signed_game = true;
			continue;
		} else if (!strcmp(a, "--fair")) {
			signed_game = fair = true;
			continue;
		} else if (!v) {
			n = 0; /* an option without its value */
		} else if (!strcmp(a, "--players"))
			n = atoi(v);
		else if (!strcmp(a, "--seed"))
			seed = strtoull(v, NULL, 10);
		else if (!strcmp(a, "--dir"))
			parent = v;
		else if (!strcmp(a, "--relay"))
			relay = v;
		else if (!strcmp(a, "--vp")) {
			char *end;
			long x = strtol(v, &end, 10);
			if (*end || x < 3 || x > 20)
				n = 0;
			vp = (int)x;
		} else
			n = 0;
		if (n == 0)
			break;
		i++;
	}
	if (n < 2 || n > 6) {
		usage(stderr);
		return 2;
	}
	char dir[4096], path[CATAN_MAX_PLAYERS][4200];
	double *ones = NULL;
	if (bench_dir(dir, sizeof dir, parent, "catan-peers-bench"))
		return 1;
	catan_game g;
	memset(&g, 0, sizeof g);
	catan_options_default(&g.opt);
	g.opt.nplayers = (uint8_t)n;
	g.opt.seed = seed;
	g.opt.vp_target = (uint8_t)vp;
	if (fair)
		g.opt.dice = CATAN_DICE_FAIR;
	catan_names_default(&g.names, n);
	if (n > CATAN_MAX_PLAYERS_BASE) {
		g.opt.special_build = 1;
		if (catan_board_random_ext56(&g.board, seed)) {
			fprintf(stderr, "catan-peers-bench: no 5-6 board\n");
			return 1;
		}
	} else {
		catan_board_beginner(&g.board);
	}
	catan_store *s[CATAN_MAX_PLAYERS] = {NULL};
	catan_err err;
	catan_sync_report rep;
	for (int p = 0; p < n; p++)
		snprintf(path[p], sizeof path[p], "%s/%s", dir,
			 g.names.name[p]);
	catan_key keys[CATAN_MAX_PLAYERS];
	for (int p = 0; signed_game && p < n; p++) {
		/* Keys made from the seed: the fair dice's values come from
		 * them, so the same seed plays the same game (two builds
		 * compared commit for commit). */
		unsigned char ks[32] = "catan-peers-bench key";
		ks[24] = (unsigned char)p;
		for (int i = 0; i < 8; i++)
			ks[25 + i % 7] ^= (unsigned char)(seed >> (8 * i));
		catan_key_from_seed(&keys[p], ks);
		memcpy(g.keys[p], keys[p].pk, sizeof keys[p].pk);
		g.signed_game = true;
	}
	if (catan_store_create_keyed(&s[0], path[0], &g,
				     CATAN_TIME_DETERMINISTIC, false,
				     signed_game ? &keys[0] : NULL, &err) ||
	    catan_store_set_me(s[0], 0, &err))
		goto fail;
	/* With a relay, the first peer puts the game there: the others
	 * join from it. */
	if (relay && (catan_store_remote_add(s[0], "origin", relay, &err) ||
		      catan_store_remote_push(s[0], "origin", true, &err) ||
		      catan_store_sync(s[0], NULL, 0, &rep, &err)))
		goto fail;
	if (relay && rep.pushed != 1) {
		snprintf(err.msg, sizeof err.msg,
			 "cannot push to %.200s: %.250s", relay, rep.log);
		goto fail;
	}
	for (int p = 1; p < n; p++)
		if (catan_store_join(&s[p], relay ? relay : path[0], path[p],
				     g.names.name[p], &rep, &err) ||
		    (relay &&
		     catan_store_remote_push(s[p], "origin", true, &err)) ||
		    (signed_game &&
		     catan_store_set_key(s[p], p, &keys[p], &err)))
			goto fail;
	for (int p = 0; !relay && p < n; p++)
		for (int q = 0; q < n; q++)
			if (p != q && !(p > 0 && q == 0) &&
			    catan_store_remote_add(s[p], g.names.name[q],
						   path[q], &err))
				goto fail;

	double compute = 0, commit = 0, sync = 0, t0 = now_ms();
	double commit_cpu = 0, sync_cpu = 0; /* CPU time in them */
	long commits = 0, syncs = 0, idle = 0;
	double idle_ms = 0; /* the syncs that adopted nothing */
	/* The commits each peer has seen, and the times of the syncs that
	 * brought exactly one new commit. */
	long known[CATAN_MAX_PLAYERS] = {0}, nones = 0, cap = 0;
	bool over = false;
	while (!over && commits < 100000) {
		for (int p = 0; p < n && !over; p++) {
			double a = now_ms(), ca = cpu_ms();
			long before = commits;
			if (catan_store_sync(s[p], NULL, 0, &rep, &err))
				goto fail;
			double took = now_ms() - a;
			sync += took;
			sync_cpu += cpu_ms() - ca;
			syncs++;
			if (rep.adopted == 0) {
				idle++;
				idle_ms += took;
			}
			if (before - known[p] == 1 && rep.adopted > 0) {
				if (nones == cap) {
					cap = cap ? 2 * cap : 256;
					double *m = realloc(
					    ones, (size_t)cap * sizeof *m);
					if (!m)
						goto fail;
					ones = m;
				}
				ones[nones++] = took;
			}
			known[p] = before;
			bool acted = false;
			for (;;) {
				catan_state st;
				catan_action act;
				catan_rng rng;
				if (catan_store_current(&st, NULL, s[p], &err))
					goto fail;
				if (st.phase == CATAN_PHASE_OVER) {
					over = true;
					break;
				}
				if (!catan_state_may_act(&st, p))
					break;
				double b = now_ms();
				catan_rng_seed(&rng, catan_state_hash(&st) ^
							 (uint64_t)p);
				catan_state next;
				/* (A fair completion's outcome is the
				 * store's to fill in.) */
				if (catan_bot_choose(&act, CATAN_BOT_GREEDY,
						     &g.board, &st, p, &rng,
						     CATAN_LEGAL_NO_OFFERS) ||
				    (st.phase != CATAN_PHASE_REVEAL &&
				     catan_state_apply(&next, &g.board, &st, p,
						       &act, NULL)))
					goto fail;
				double c = now_ms(), cc = cpu_ms();
				if (catan_store_act(s[p], p, &act, NULL, NULL,
						    &err))
					goto fail;
				double d = now_ms();
				commit_cpu += cpu_ms() - cc;
				compute += c - b;
				commit += d - c;
				commits++;
				known[p] = commits;
				acted = true;
			}
			/* With a relay, the move goes there at once. */
			if (relay && acted) {
				double e = now_ms(), ce = cpu_ms();
				if (catan_store_sync(s[p], NULL, 0, &rep, &err))
					goto fail;
				sync += now_ms() - e;
				sync_cpu += cpu_ms() - ce;
				syncs++;
			}
		}
	}
	double total = now_ms() - t0;
	const char *kind = fair		 ? ", signed, fair dice"
			   : signed_game ? ", signed"
					 : "";
	if (relay)
		printf("%d peers, separate repositories, one relay (%s), "
		       "greedy bots%s: %ld commits, %ld syncs, %.2f s\n",
		       n, relay, kind, commits, syncs, total / 1e3);
	else
		printf("%d peers, separate repositories, path remotes (full "
		       "mesh), greedy bots%s: %ld commits, %ld syncs, %.2f s\n",
		       n, kind, commits, syncs, total / 1e3);
	printf("  per commit: compute %.4f ms, commit %.3f ms, sync %.3f ms "
	       "(%.3f ms per sync call)\n",
	       compute / (double)commits, commit / (double)commits,
	       sync / (double)commits, sync / (double)syncs);
	printf("  CPU time per commit (user + system, no waits): commit "
	       "%.3f ms, sync %.3f ms\n",
	       commit_cpu / (double)commits, sync_cpu / (double)commits);
	printf("  syncs that adopted nothing: %ld, %.3f ms each, %.3f ms per "
	       "commit\n",
	       idle, idle ? idle_ms / (double)idle : 0.0,
	       idle_ms / (double)commits);
	if (nones) {
		qsort(ones, (size_t)nones, sizeof *ones, cmp_double);
		printf("  a sync that brought exactly one new commit: median "
		       "%.2f ms, 90th percentile %.2f ms (%ld such syncs)\n",
		       ones[nones / 2], ones[nones * 9 / 10], nones);
	}
	free(ones);
	if (fair)
		printf("  a fair outcome waits one sync round more: %d sync "
		       "calls, about %.1f ms\n",
		       n, n * sync / (double)syncs);
	for (int p = 0; p < n; p++)
		catan_store_free(s[p]);
	if (keep)
		printf("  repositories kept in %s\n", dir);
	else if (bench_rmtree(dir))
		fprintf(stderr, "catan-peers-bench: cannot remove %s\n", dir);
	return 0;
fail:
	fprintf(stderr, "catan-peers-bench: %s (repositories left in %s)\n",
		err.msg, dir);
	free(ones);
	return 1;
}
