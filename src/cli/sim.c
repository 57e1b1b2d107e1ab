/*
 * sim.c - catan simulate: many complete games between random bots, each
 * written as a game repository with one commit per action, for research.
 *
 *   catan simulate --games N --players P [--seed S] [--board beginner|random]
 *                  [--phases combined|classic] [--no-special-build]
 *                  --out DIR [--jobs J]
 *
 * With 5 or 6 players every game is on a random 5-6 board
 * (catan_board_random_ext56) with the special building phase unless
 * --no-special-build says otherwise.
 *
 * Bots draw uniformly among the legal actions without domestic offers (as
 * the thesis's did). Commit times come from the seed, so a fixed seed gives
 * byte-identical repositories. Per game, a line of OUT/games.csv holds the
 * timings: compute (bot choice and rules), commit (encode, hash, write to the
 * in-memory object store, commit, move the branch) and flush (one pack).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catan/boardgen.h"

#include "catan/bot.h"
#include "catan/store.h"
#include "cli.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

typedef struct sim_opts {
	long games;
	int players, phases;
	bool random_board; /* 5-6 players: always a random 5-6 board */
	int special_build; /* -1: the default (on with 5-6 players) */
	uint64_t seed;
	const char *out;
	int jobs;
} sim_opts;

#define MAX_ACTIONS 200000

/* Plays game g into OUT/game-NNNNN; appends its CSV line to f. */
static int sim_game(const sim_opts *o, long g, FILE *f, double *act_ns,
		    long *nact)
{
	catan_game game;
	char dir[4096];
	catan_err err;
	catan_store *s = NULL;
	uint64_t seed = o->seed + (uint64_t)g;

	memset(&game, 0, sizeof game);
	catan_options_default(&game.opt);
	game.opt.nplayers = (uint8_t)o->players;
	game.opt.phases = (uint8_t)o->phases;
	game.opt.seed = seed;
	game.opt.special_build =
		o->players > CATAN_MAX_PLAYERS_BASE && o->special_build != 0;
	catan_names_default(&game.names, o->players);
	if (o->players > CATAN_MAX_PLAYERS_BASE) {
		if (catan_board_random_ext56(&game.board, seed)) {
			fprintf(stderr, "catan simulate: no 5-6 board in this "
					"build\n");
			return -1;
		}
	} else if (o->random_board)
		catan_board_random(&game.board, seed);
	else
		catan_board_beginner(&game.board);
	snprintf(dir, sizeof dir, "%s/game-%05ld", o->out, g);

	double t0 = now_ns();
	if (catan_store_create_ext(&s, dir, &game, CATAN_TIME_DETERMINISTIC,
				   true, &err)) {
		fprintf(stderr, "catan simulate: %s: %s\n", dir, err.msg);
		catan_store_free(s);
		return -1;
	}
	double t_create = now_ns() - t0;
	catan_state st;
	catan_state_init(&st, &game.board, &game.opt);
	catan_rng bot;
	catan_rng_seed(&bot, seed * 2654435761u + 17);
	double compute = 0, commit = 0;
	long n = 0;
	while (st.phase != CATAN_PHASE_OVER && n < MAX_ACTIONS) {
		catan_action a;
		double t1 = now_ns();
		int who = catan_state_next_actor(&st);
		if (catan_bot_choose(&a, CATAN_BOT_RANDOM, &game.board, &st, who,
				     &bot, CATAN_LEGAL_NO_OFFERS) ||
		    catan_state_apply(&st, &game.board, &st, who, &a, NULL)) {
			fprintf(stderr, "catan simulate: bot stuck in %s\n", dir);
			catan_store_free(s);
			return -1;
		}
		double t2 = now_ns();
		if (catan_store_act(s, who, &a, NULL, NULL, &err)) {
			fprintf(stderr, "catan simulate: %s: %s\n", dir, err.msg);
			catan_store_free(s);
			return -1;
		}
		double t3 = now_ns();
		compute += t2 - t1;
		commit += t3 - t2;
		act_ns[n] = t3 - t1;
		n++;
	}
	double t4 = now_ns();
	if (catan_store_flush(s, &err)) {
		fprintf(stderr, "catan simulate: %s: %s\n", dir, err.msg);
		catan_store_free(s);
		return -1;
	}
	double flush = now_ns() - t4;
	catan_store_free(s);
	double total = now_ns() - t0;
	qsort(act_ns, (size_t)n, sizeof *act_ns, cmp_double);
	fprintf(f,
		"game-%05ld,%d,%" PRIu64 ",%ld,%s,%d,%.3f,%.3f,%.3f,%.3f,%.4f,%.3f\n",
		g, o->players, seed, n,
		st.phase == CATAN_PHASE_OVER ? game.names.name[st.winner] : "-",
		st.turn, t_create / 1e6, compute / 1e6, commit / 1e6,
		flush / 1e6, n ? act_ns[n / 2] / 1e6 : 0.0, total / 1e6);
	fflush(f);
	*nact = n;
	return 0;
}

static int sim_worker(const sim_opts *o, int k, const char *csv)
{
	FILE *f = fopen(csv, "w");
	double *act = malloc(sizeof(double) * MAX_ACTIONS);
	int rc = 0;
	if (!f || !act) {
		fprintf(stderr, "catan simulate: cannot write %s\n", csv);
		free(act);
		if (f)
			fclose(f);
		return 1;
	}
	bool tty = isatty(2) && k == 0;
	for (long g = k; g < o->games && rc == 0; g += o->jobs) {
		long n = 0;
		rc = sim_game(o, g, f, act, &n);
		if (tty)
			fprintf(stderr, "\rcatan simulate: game %ld/%ld (%ld "
					"actions)   ",
				g + 1, o->games, n);
	}
	if (tty)
		fprintf(stderr, "\n");
	fclose(f);
	free(act);
	return rc ? 1 : 0;
}

int cli_simulate(int argc, char **argv)
{
	sim_opts o = {1, 4, 0, false, -1, 1, NULL, 1};
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--special-build") ||
		    !strcmp(a, "--no-special-build")) {
			o.special_build = a[2] == 's';
			continue;
		}
		if (!v) {
			fprintf(stderr, "catan simulate: %s needs a value\n", a);
			return 2;
		}
		errno = 0;
		if (!strcmp(a, "--games")) {
			o.games = strtol(v, &end, 10);
			if (errno || *end || o.games < 1 || o.games > 10000000)
				goto bad;
		} else if (!strcmp(a, "--players")) {
			o.players = (int)strtol(v, &end, 10);
			if (*end || o.players < CATAN_MIN_PLAYERS ||
			    o.players > CATAN_MAX_PLAYERS)
				goto bad;
		} else if (!strcmp(a, "--seed")) {
			if (*v == '-')
				goto bad;
			o.seed = strtoull(v, &end, 10);
			if (errno || *end)
				goto bad;
		} else if (!strcmp(a, "--jobs")) {
			o.jobs = (int)strtol(v, &end, 10);
			if (*end || o.jobs < 1 || o.jobs > 256)
				goto bad;
		} else if (!strcmp(a, "--board")) {
			if (!strcmp(v, "random"))
				o.random_board = true;
			else if (strcmp(v, "beginner"))
				goto bad;
		} else if (!strcmp(a, "--phases")) {
			if (!strcmp(v, "classic"))
				o.phases = CATAN_PHASES_CLASSIC;
			else if (strcmp(v, "combined"))
				goto bad;
		} else if (!strcmp(a, "--out")) {
			o.out = v;
		} else {
			fprintf(stderr, "catan simulate: unknown option \"%s\"\n",
				a);
			return 2;
		}
		i++;
		continue;
bad:
		fprintf(stderr, "catan simulate: bad value \"%s\" for %s\n", v,
			a);
		return 2;
	}
	if (!o.out) {
		fprintf(stderr,
			"usage: catan simulate --games N --players P [--seed S] "
			"[--board beginner|random] [--phases combined|classic] "
			"[--no-special-build] --out DIR [--jobs J]\n");
		return 2;
	}
	if (o.special_build == 1 && o.players <= CATAN_MAX_PLAYERS_BASE) {
		fprintf(stderr, "catan simulate: --special-build is for 5 or 6 "
				"players\n");
		return 2;
	}
	if (mkdir(o.out, 0777) && errno != EEXIST) {
		fprintf(stderr, "catan simulate: cannot create %s: %s\n", o.out,
			strerror(errno));
		return 1;
	}
	char csv[4096];
	int failed = 0;
	if (o.jobs == 1) {
		snprintf(csv, sizeof csv, "%s/games.csv.0", o.out);
		failed = sim_worker(&o, 0, csv);
	} else {
		for (int k = 0; k < o.jobs; k++) {
			pid_t pid = fork();
			if (pid < 0) {
				fprintf(stderr, "catan simulate: fork: %s\n",
					strerror(errno));
				return 1;
			}
			if (pid == 0) {
				snprintf(csv, sizeof csv, "%s/games.csv.%d",
					 o.out, k);
				_exit(sim_worker(&o, k, csv));
			}
		}
		for (int k = 0; k < o.jobs; k++) {
			int status = 0;
			wait(&status);
			failed |= !WIFEXITED(status) || WEXITSTATUS(status);
		}
	}
	/* One CSV in game order (each worker wrote its share in order). */
	snprintf(csv, sizeof csv, "%s/games.csv", o.out);
	FILE *out = fopen(csv, "w");
	FILE *in[256] = {NULL};
	char line[512];
	if (!out) {
		fprintf(stderr, "catan simulate: cannot write %s\n", csv);
		return 1;
	}
	fprintf(out, "game,players,seed,actions,winner,turns,create_ms,"
		     "compute_ms,commit_ms,flush_ms,median_action_ms,total_ms\n");
	for (int k = 0; k < o.jobs; k++) {
		snprintf(csv, sizeof csv, "%s/games.csv.%d", o.out, k);
		in[k] = fopen(csv, "r");
	}
	for (long g = 0; g < o.games; g++) {
		FILE *src = in[g % o.jobs];
		if (src && fgets(line, sizeof line, src))
			fputs(line, out);
	}
	for (int k = 0; k < o.jobs; k++) {
		if (in[k])
			fclose(in[k]);
		snprintf(csv, sizeof csv, "%s/games.csv.%d", o.out, k);
		unlink(csv);
	}
	fclose(out);
	if (!failed)
		fprintf(stderr, "catan simulate: %ld games in %s (timings in "
				"%s/games.csv)\n",
			o.games, o.out, o.out);
	return failed ? 1 : 0;
}
