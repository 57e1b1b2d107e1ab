/*
 * tournament.c - catan tournament: many games between bots, seats rotated
 * so that every bot plays every seat equally, and a win-rate table.
 *
 *   catan tournament --bots a,b,c,d [--games N] [--players N] [--jobs J]
 *                    [--seed S] [--board random|beginner] [--json|--csv]
 *
 * Games come in deals of P (the number of players): the P games of deal d
 * are played on the same board with the same dice seed, the bots rotated
 * one seat each game (game g = d*P + k seats bot i in seat (i + k) mod P).
 * Each game depends only on the seed and its number, and the table is
 * summed in game order, so the same seed gives the same table whatever
 * --jobs is (except with time-budgeted bots, mcts:Nms, which depend on the
 * machine's speed). Workers are forked processes that send one record a
 * game down a pipe.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "botplay.h"
#include "catan/agent.h"
#include "catan/boardgen.h"
#include "cli.h"
#include "research.h"

#define MAX_ACTIONS 30000 /* a game still going after this is a draw */

typedef struct tour_opts {
	bp_entrant bots[CATAN_MAX_PLAYERS];
	int nbots, players, jobs;
	long games;
	uint64_t seed;
	bool beginner, json, csv, quiet;
} tour_opts;

/* One game's result, by entrant (not by seat). */
typedef struct tour_record {
	int32_t game;
	int8_t winner; /* entrant, or -1 for no winner */
	uint8_t vp[CATAN_MAX_PLAYERS];
	uint8_t fouls[CATAN_MAX_PLAYERS];
	uint8_t seat[CATAN_MAX_PLAYERS]; /* the seat each entrant played */
	uint16_t turns;
	uint32_t actions;
} tour_record;

static uint64_t mix(uint64_t a, uint64_t b)
{
	catan_rng r;
	catan_rng_seed(&r, a * 0x9e3779b97f4a7c15ull ^ b);
	return catan_rng_next(&r);
}

/* The entrant in `seat` of game g. */
static int entrant_of(const tour_opts *o, long g, int seat)
{
	int k = (int)(g % o->players);
	return (seat - k + o->players) % o->players;
}

/* bp_entrant's chooser for an agent process (ctx: the catan_agent). */
static int agent_choose(void *ctx, catan_action *out, const catan_board *b,
			const catan_state *s, int actor, unsigned flags)
{
	return catan_agent_choose(ctx, out, b, s, actor, flags);
}

static int play_game(const tour_opts *o, long g, tour_record *rec)
{
	long deal = g / o->players;
	catan_board board;
	catan_options opt;
	catan_options_default(&opt);
	opt.nplayers = (uint8_t)o->players;
	opt.seed = mix(o->seed, (uint64_t)deal);
	if (o->players > CATAN_MAX_PLAYERS_BASE) {
		opt.special_build = 1;
		if (catan_board_random_ext56(&board, opt.seed))
			return -1;
	} else if (o->beginner) {
		catan_board_beginner(&board);
	} else {
		catan_board_random(&board, opt.seed);
	}
	catan_state s;
	if (catan_state_init(&s, &board, &opt))
		return -1;
	catan_rng rng[CATAN_MAX_PLAYERS];
	bp_entrant bots[CATAN_MAX_PLAYERS];
	catan_agent *ag[CATAN_MAX_PLAYERS] = {NULL};
	int rc = -1;
	for (int p = 0; p < o->players; p++) {
		catan_rng_seed(&rng[p],
			       mix(o->seed ^ 0xb075, (uint64_t)g * 8 + p));
		bots[p] = o->bots[entrant_of(o, g, p)];
		/* An agent: a process of its own for each game and seat. */
		char why[256];
		catan_agent_limits lim;
		catan_agent_limits_default(&lim);
		if (bots[p].agent &&
		    catan_agent_start(&ag[p], bots[p].name + 6, &lim, &board,
				      &s, p, why, sizeof why)) {
			fprintf(stderr, "catan tournament: game %ld: %s: %s\n",
				g, bots[p].name, why);
			goto done;
		}
		if (ag[p]) {
			bots[p].choose = agent_choose;
			bots[p].ctx = ag[p];
		}
	}
	memset(rec, 0, sizeof *rec);
	for (int p = 0; p < o->players; p++)
		rec->seat[entrant_of(o, g, p)] = (uint8_t)p;
	rec->game = (int32_t)g;
	rec->winner = -1;
	uint32_t n = 0;
	while (s.phase != CATAN_PHASE_OVER && n < MAX_ACTIONS) {
		int who = catan_state_next_actor(&s);
		catan_action a;
		bool fouled;
		catan_outcome oc;
		if (bp_choose(&a, &bots[who], &board, &s, who, &rng[who],
			      &fouled) ||
		    catan_state_apply(&s, &board, &s, who, &a, &oc)) {
			fprintf(stderr,
				"catan tournament: game %ld: nobody "
				"can move\n",
				g);
			goto done;
		}
		if (ag[who])
			catan_agent_result(ag[who], &s, &a, &oc);
		if (fouled)
			rec->fouls[entrant_of(o, g, who)]++;
		n++;
	}
	for (int p = 0; p < o->players; p++)
		rec->vp[entrant_of(o, g, p)] = (uint8_t)catan_state_vp(&s, p);
	if (s.phase == CATAN_PHASE_OVER)
		rec->winner = (int8_t)entrant_of(o, g, s.winner);
	rec->turns = s.turn;
	rec->actions = n;
	rc = 0;
done:
	for (int p = 0; p < o->players; p++) {
		if (ag[p] && rc == 0)
			catan_agent_end(
			    ag[p], s.phase == CATAN_PHASE_OVER ? s.winner : -1);
		catan_agent_free(ag[p]);
	}
	return rc;
}

static int write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k, n -= (size_t)k;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: catan tournament --bots a,b,... [--games N] "
		"[--players N] [--jobs J]\n"
		"                        [--seed S] [--board random|beginner] "
		"[--json|--csv] [--quiet]\n"
		"  One bot per seat: random, greedy, value, mcts, mcts:N (N "
		"playouts a\n"
		"  decision, default 400) or mcts:Nms (N ms a decision). "
		"Games (default 100)\n"
		"  are rounded up to a multiple of the players so that every "
		"bot plays\n"
		"  every seat equally. Prints wins, win rate with its 95%% "
		"confidence\n"
		"  interval (Wilson), mean victory points and fouls (moves "
		"replaced by the\n"
		"  minimum viable move) per bot, and wins by seat.\n");
}

static int parse(tour_opts *o, int argc, char **argv)
{
	const char *bots = NULL;
	uint64_t v;
	memset(o, 0, sizeof *o);
	o->games = 100, o->jobs = 1, o->seed = 1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i],
			   *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;
		if (!strcmp(a, "--bots")) {
			bots = val;
		} else if (!strcmp(a, "--games")) {
			if (cli_parse_u64(a, val, 1, 10000000, &v))
				return -1;
			o->games = (long)v;
		} else if (!strcmp(a, "--players")) {
			if (cli_parse_u64(a, val, CATAN_MIN_PLAYERS,
					  CATAN_MAX_PLAYERS, &v))
				return -1;
			o->players = (int)v;
		} else if (!strcmp(a, "--jobs")) {
			if (cli_parse_u64(a, val, 1, 64, &v))
				return -1;
			o->jobs = (int)v;
		} else if (!strcmp(a, "--seed")) {
			if (cli_parse_u64(a, val, 0, UINT64_MAX, &o->seed))
				return -1;
		} else if (!strcmp(a, "--board")) {
			if (val && !strcmp(val, "beginner"))
				o->beginner = true;
			else if (!val || strcmp(val, "random")) {
				fprintf(stderr,
					"catan tournament: --board is "
					"random or beginner, got \"%s\"\n",
					val ? val : "");
				return -1;
			}
		} else if (!strcmp(a, "--json") || !strcmp(a, "--csv") ||
			   !strcmp(a, "--quiet")) {
			o->json |= a[2] == 'j';
			o->csv |= a[2] == 'c';
			o->quiet |= a[2] == 'q';
			takes = false;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else {
			fprintf(stderr,
				"catan tournament: unknown option "
				"\"%s\"\n",
				a);
			usage(stderr);
			return -1;
		}
		i += takes;
	}
	if (!bots) {
		fprintf(stderr, "catan tournament: --bots is required\n");
		return -1;
	}
	for (const char *p = bots; *p;) {
		size_t n = strcspn(p, ",");
		char why[160];
		if (o->nbots == CATAN_MAX_PLAYERS) {
			fprintf(stderr, "catan tournament: at most %d bots\n",
				CATAN_MAX_PLAYERS);
			return -1;
		}
		if (bp_entrant_parse(&o->bots[o->nbots], p, n, why,
				     sizeof why)) {
			fprintf(stderr, "catan tournament: %s\n", why);
			return -1;
		}
		o->nbots++;
		p += n + (p[n] == ',');
	}
	if (!o->players)
		o->players = o->nbots;
	if (o->nbots != o->players || o->nbots < CATAN_MIN_PLAYERS) {
		fprintf(stderr,
			"catan tournament: one bot per seat: %d bots for %d "
			"players\n",
			o->nbots, o->players);
		return -1;
	}
	if (o->json && o->csv) {
		fprintf(stderr,
			"catan tournament: --json or --csv, not both\n");
		return -1;
	}
	long round = o->games % o->players;
	if (round) {
		o->games += o->players - round;
		fprintf(stderr,
			"catan tournament: %ld games, a multiple of %d so that "
			"every bot plays every seat equally\n",
			o->games, o->players);
	}
	return 0;
}

/* Wilson score interval of k successes in n at 95%. */
static void wilson(long k, long n, double *lo, double *hi)
{
	const double z = 1.959963984540054;
	if (n == 0) {
		*lo = 0, *hi = 1;
		return;
	}
	double p = (double)k / n, z2 = z * z / n;
	double c = (p + z2 / 2) / (1 + z2);
	double h = z * sqrt(p * (1 - p) / n + z2 / (4.0 * n)) / (1 + z2);
	*lo = c - h < 0 ? 0 : c - h;
	*hi = c + h > 1 ? 1 : c + h;
}

static void report(const tour_opts *o, const tour_record *recs)
{
	long wins[CATAN_MAX_PLAYERS] = {0}, fouls[CATAN_MAX_PLAYERS] = {0};
	long seat_wins[CATAN_MAX_PLAYERS] = {0}, draws = 0;
	long seats[CATAN_MAX_PLAYERS][CATAN_MAX_PLAYERS] = {{0}};
	double vp[CATAN_MAX_PLAYERS] = {0}, turns = 0;
	for (long g = 0; g < o->games; g++) {
		const tour_record *r = &recs[g];
		if (r->winner >= 0) {
			wins[r->winner]++;
			for (int p = 0; p < o->players; p++)
				if (entrant_of(o, g, p) == r->winner)
					seat_wins[p]++;
		} else {
			draws++;
		}
		for (int e = 0; e < o->players; e++) {
			seats[e][r->seat[e]]++;
			vp[e] += r->vp[e];
			fouls[e] += r->fouls[e];
		}
		turns += r->turns;
	}
	long n = o->games; /* every bot plays every game */
	if (o->json) {
		printf("{\"players\": %d, \"games\": %ld, \"seed\": %" PRIu64
		       ", \"board\": \"%s\", \"no_winner\": %ld, "
		       "\"mean_turns\": %.2f,\n \"bots\": [",
		       o->players, n, o->seed,
		       o->beginner ? "beginner" : "random", draws, turns / n);
		for (int e = 0; e < o->players; e++) {
			double lo, hi;
			wilson(wins[e], n, &lo, &hi);
			printf("%s\n  {\"bot\": ", e ? "," : "");
			cli_json_str(stdout, o->bots[e].name);
			printf(", \"games\": %ld, \"wins\": %ld, \"win_rate\": "
			       "%.4f, \"ci95\": [%.4f, %.4f], \"mean_vp\": "
			       "%.3f, \"fouls\": %ld, \"games_by_seat\": [",
			       n, wins[e], (double)wins[e] / n, lo, hi,
			       vp[e] / n, fouls[e]);
			for (int p = 0; p < o->players; p++)
				printf("%s%ld", p ? ", " : "", seats[e][p]);
			printf("]}");
		}
		printf("],\n \"wins_by_seat\": [");
		for (int p = 0; p < o->players; p++)
			printf("%s%ld", p ? ", " : "", seat_wins[p]);
		printf("]}\n");
		return;
	}
	if (o->csv) {
		printf("bot,games,wins,win_rate,ci95_lo,ci95_hi,mean_vp,"
		       "fouls\n");
		for (int e = 0; e < o->players; e++) {
			double lo, hi;
			wilson(wins[e], n, &lo, &hi);
			printf("%s,%ld,%ld,%.4f,%.4f,%.4f,%.3f,%ld\n",
			       o->bots[e].name, n, wins[e], (double)wins[e] / n,
			       lo, hi, vp[e] / n, fouls[e]);
		}
		return;
	}
	printf("%d players, %ld games (%ld deals, seats rotated), seed %" PRIu64
	       ", %s boards; %.1f turns a game, %ld without a winner\n",
	       o->players, n, n / o->players, o->seed,
	       o->beginner ? "beginner" : "random", turns / n, draws);
	printf("  %-3s %-16s %6s %6s %7s %17s %8s %6s\n", "", "bot", "games",
	       "wins", "win%", "95% CI", "mean VP", "fouls");
	for (int e = 0; e < o->players; e++) {
		double lo, hi;
		wilson(wins[e], n, &lo, &hi);
		printf("  %-3d %-16s %6ld %6ld %6.1f%% %7.1f%% - %5.1f%% %8.2f "
		       "%6ld\n",
		       e + 1, o->bots[e].name, n, wins[e], 100.0 * wins[e] / n,
		       100 * lo, 100 * hi, vp[e] / n, fouls[e]);
	}
	printf("  wins by seat:");
	for (int p = 0; p < o->players; p++)
		printf(" %ld", seat_wins[p]);
	printf("\n");
}

int cli_tournament(int argc, char **argv)
{
	tour_opts o;
	if (parse(&o, argc, argv))
		return 2;
	tour_record *recs = calloc((size_t)o.games, sizeof *recs);
	bool *have = calloc((size_t)o.games, 1);
	int jobs = o.jobs > o.games ? (int)o.games : o.jobs;
	pid_t pids[64];
	int fds[64];
	int rc = 0;
	if (!recs || !have) {
		fprintf(stderr, "catan tournament: out of memory\n");
		free(recs);
		free(have);
		return 1;
	}
	fflush(stdout);
	for (int k = 0; k < jobs; k++) {
		int pfd[2];
		if (pipe(pfd)) {
			perror("catan tournament: pipe");
			return 1;
		}
		pids[k] = fork();
		if (pids[k] < 0) {
			perror("catan tournament: fork");
			return 1;
		}
		if (pids[k] == 0) {
			close(pfd[0]);
			for (int j = 0; j < k; j++)
				close(fds[j]);
			for (long g = k; g < o.games; g += jobs) {
				tour_record r;
				if (play_game(&o, g, &r) ||
				    write_all(pfd[1], &r, sizeof r))
					_exit(1);
			}
			_exit(0);
		}
		close(pfd[1]);
		fds[k] = pfd[0];
	}
	cli_progress prog;
	cli_progress_start(&prog, "catan tournament", o.games, o.quiet);
	long done = 0;
	struct pollfd pf[64];
	int open = jobs;
	for (int k = 0; k < jobs; k++)
		pf[k] = (struct pollfd){.fd = fds[k], .events = POLLIN};
	size_t got[64] = {0};
	tour_record part[64];
	while (open > 0) {
		if (poll(pf, (nfds_t)jobs, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("catan tournament: poll");
			rc = 1;
			break;
		}
		for (int k = 0; k < jobs; k++) {
			if (pf[k].fd < 0 || !pf[k].revents)
				continue;
			ssize_t n = read(pf[k].fd, (char *)&part[k] + got[k],
					 sizeof part[k] - got[k]);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(pf[k].fd);
				pf[k].fd = -1;
				open--;
				continue;
			}
			got[k] += (size_t)n;
			if (got[k] < sizeof part[k])
				continue;
			got[k] = 0;
			long g = part[k].game;
			if (g < 0 || g >= o.games || have[g]) {
				rc = 1;
				continue;
			}
			recs[g] = part[k];
			have[g] = true;
			cli_progress_step(&prog, ++done);
		}
	}
	for (int k = 0; k < jobs; k++) {
		int st;
		if (waitpid(pids[k], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			rc = 1;
	}
	cli_progress_end(&prog);
	if (rc || done != o.games) {
		fprintf(stderr,
			"catan tournament: a worker failed (%ld of %ld "
			"games played)\n",
			done, o.games);
		rc = 1;
	} else {
		report(&o, recs);
	}
	free(recs);
	free(have);
	return rc;
}
