/*
 * sync_bench.c - how long a peer takes to fetch and verify one new commit.
 *
 * A host repository plays a game between random bots (all players, one
 * commit per action); after every commit a second repository, joined to the
 * host, runs catan_store_sync, which fetches the new commit, verifies it and
 * adopts it. Timed per sync, in windows of the history; then the game is
 * played on (the peer syncing every 100 commits, untimed) to turn T, and
 * the syncs of the commits from turn T on are timed again, to compare
 * with those of turns 5-14: sync cost must not grow with the game's
 * length. Over:
 *
 *   path      the host's directory as the remote
 *   git       git:// on 127.0.0.1 through `catan serve` (TCP_NODELAY)
 *   git-nagle git:// through a plain `git daemon` (Nagle's algorithm on)
 *
 *   catan-sync-bench CATAN_BINARY [--commits N] [--window W] [--turn T]
 *                    [--port P] [--only path|git|git-nagle] [--dir DIR]
 *
 * The host and peer repositories go into a fresh folder (mkdtemp) under
 * DIR, or under $TMPDIR (else /tmp), removed at the end.
 */
#define _XOPEN_SOURCE 700

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchdir.h"
#include "catan/bot.h"
#include "catan/store.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static pid_t spawn(char *const argv[])
{
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(127);
	}
	struct timespec wait = {0, 300000000}; /* let it listen */
	nanosleep(&wait, NULL);
	return pid;
}

static double median(const double *x, long n)
{
	if (n == 0)
		return 0;
	double *y = malloc(sizeof(double) * (size_t)n);
	memcpy(y, x, sizeof(double) * (size_t)n);
	qsort(y, (size_t)n, sizeof *y, cmp);
	double m = y[n / 2];
	free(y);
	return m;
}

static int run(const char *root, const char *mode, const char *catan,
	       long commits, long window, int turn, int port)
{
	char host[4200], peer[4200], url[4300];
	catan_game g;
	catan_store *h = NULL, *p = NULL;
	catan_sync_report rep;
	catan_err err;
	pid_t server = -1;

	snprintf(host, sizeof host, "%s/%s-host", root, mode);
	snprintf(peer, sizeof peer, "%s/%s-peer", root, mode);
	memset(&g, 0, sizeof g);
	catan_options_default(&g.opt);
	g.opt.vp_target = 20; /* a long game: random bots never get there */
	g.opt.seed = 3;
	catan_names_default(&g.names, 4);
	catan_board_beginner(&g.board);
	/*
	 * Dated a minute a turn, as a real game's commits grow older: git's
	 * upload-pack stops its walks at commits older than what it looks
	 * for, and commits all of one date (simulate's before issue 17)
	 * would make it walk the whole history on every fetch.
	 */
	if (catan_store_create(&h, host, &g, CATAN_TIME_TURNS, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	if (!strcmp(mode, "path")) {
		snprintf(url, sizeof url, "%s", host);
	} else {
		char portarg[16], base[4300];
		snprintf(portarg, sizeof portarg, "%d", port);
		snprintf(url, sizeof url, "git://127.0.0.1:%d/", port);
		if (!strcmp(mode, "git")) {
			char *argv[] = {(char *)catan, "-C",	host, "serve",
					"--port",      portarg, NULL};
			server = spawn(argv);
		} else {
			char listen[32], portopt[32];
			snprintf(base, sizeof base, "--base-path=%s", host);
			snprintf(listen, sizeof listen, "--listen=127.0.0.1");
			snprintf(portopt, sizeof portopt, "--port=%d", port);
			char *argv[] = {"git",	       "daemon", "--export-all",
					"--reuseaddr", listen,	 portopt,
					base,	       NULL};
			server = spawn(argv);
		}
	}
	if (catan_store_join(&p, url, peer, "blue", &rep, &err)) {
		fprintf(stderr, "join %s: %s\n", url, err.msg);
		if (server > 0)
			kill(server, SIGTERM);
		return 1;
	}
	catan_state st;
	catan_state_init(&st, &g.board, &g.opt);
	catan_rng rng;
	catan_rng_seed(&rng, 5);
	double *t = malloc(sizeof(double) * (size_t)commits);
	double early[64], late[64];
	long n = 0, ne = 0, nl = 0, played = 0;
	int late_turn = -1;
	while (st.phase != CATAN_PHASE_OVER) {
		/* Timed: the first `commits`, and 40 from turn `turn` on. */
		bool late_part = turn > 0 && st.turn >= turn;
		bool timed = n < commits || late_part;
		if ((!timed && turn <= 0) || nl == 40)
			break;
		catan_action a;
		int who = catan_state_next_actor(&st);
		int at = st.turn;
		if (catan_bot_choose(&a, CATAN_BOT_RANDOM, &g.board, &st, who,
				     &rng, CATAN_LEGAL_NO_OFFERS) ||
		    catan_state_apply(&st, &g.board, &st, who, &a, NULL) ||
		    catan_store_act(h, who, &a, NULL, NULL, &err)) {
			fprintf(stderr, "act: %s\n", err.msg);
			break;
		}
		played++;
		/* Untimed stretch: the peer catches up every 100 commits. */
		if (!timed && played % 100 && !(turn > 0 && st.turn >= turn))
			continue;
		double t0 = now_ms();
		if (catan_store_sync(p, NULL, 0, &rep, &err) ||
		    (timed && rep.adopted != 1)) {
			fprintf(stderr, "sync: %s %s\n", err.msg, rep.log);
			break;
		}
		double ms = now_ms() - t0;
		if (!timed)
			continue;
		if (n < commits)
			t[n++] = ms;
		if (at >= 5 && at < 15 && ne < 64)
			early[ne++] = ms;
		if (late_part) {
			late[nl++] = ms;
			late_turn = at;
		}
	}
	printf("%s: %ld syncs of one new commit each (fetch + verify + "
	       "adopt)\n",
	       mode, n);
	printf("  %-16s %10s %10s\n", "commits", "median ms", "p90 ms");
	for (long w0 = 0; w0 < n; w0 += window) {
		long w1 = w0 + window < n ? w0 + window : n, k = w1 - w0;
		double *win = malloc(sizeof(double) * (size_t)k);
		memcpy(win, t + w0, sizeof(double) * (size_t)k);
		qsort(win, (size_t)k, sizeof *win, cmp);
		printf("  %5ld .. %-7ld %10.2f %10.2f\n", w0 + 1, w1,
		       win[k / 2], win[(k * 9) / 10]);
		free(win);
	}
	if (turn > 0 && nl > 0)
		printf("  turns 5-14: median %.2f ms (%ld syncs); turns %d-%d "
		       "(commits %ld-%ld): median %.2f ms (%ld syncs)\n",
		       median(early, ne), ne, turn, late_turn, played - nl + 1,
		       played, median(late, nl), nl);
	else if (turn > 0)
		printf("  the game ended before turn %d\n", turn);
	free(t);
	catan_store_free(p);
	catan_store_free(h);
	if (server > 0) {
		kill(server, SIGTERM);
		waitpid(server, NULL, 0);
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: catan-sync-bench CATAN_BINARY [--commits N] "
		   "[--window W] [--turn T]\n"
		   "                        [--port P] [--only "
		   "path|git|git-nagle] [--dir DIR]\n"
		   "  a peer fetches and verifies one new commit of a host at "
		   "a time, over a\n"
		   "  path, git:// through catan serve, and a plain git daemon; "
		   "median and p90\n"
		   "  per window, then the syncs from turn T against turns "
		   "5-14. Repositories\n"
		   "  go into a new folder under DIR (default $TMPDIR or /tmp), "
		   "removed at the end.\n");
}

int main(int argc, char **argv)
{
	long commits = 300, window = 100;
	int port = 19419, turn = 1000;
	const char *only = NULL, *parent = NULL;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
	if (argc < 2 || argv[1][0] == '-') {
		usage(stderr);
		return 2;
	}
	for (int i = 2; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (v && !strcmp(a, "--commits"))
			commits = atol(v);
		else if (v && !strcmp(a, "--window"))
			window = atol(v);
		else if (v && !strcmp(a, "--port"))
			port = atoi(v);
		else if (v && !strcmp(a, "--turn"))
			turn = atoi(v);
		else if (v && !strcmp(a, "--only"))
			only = v;
		else if (v && !strcmp(a, "--dir"))
			parent = v;
		else {
			usage(stderr);
			return 2;
		}
	}
	char root[4096];
	if (bench_dir(root, sizeof root, parent, "catan-sync-bench"))
		return 1;
	int rc = 0;
	if (!only || !strcmp(only, "path"))
		rc |= run(root, "path", argv[1], commits, window, turn, port);
	if (!only || !strcmp(only, "git"))
		rc |= run(root, "git", argv[1], commits, window, turn, port);
	if (!only || !strcmp(only, "git-nagle"))
		rc |= run(root, "git-nagle", argv[1], commits / 3, window / 3,
			  0, port + 1);
	if (bench_rmtree(root))
		fprintf(stderr, "catan-sync-bench: cannot remove %s\n", root);
	return rc;
}
