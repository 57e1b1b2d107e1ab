/*
 * bench.c - speed of the rules core under uniformly random bots.
 *
 * What catanatron's RandomPlayer does: every action is drawn uniformly from
 * the legal actions (domestic offers left out), 4 players, until somebody
 * wins. Legal-move generation, the bot's draw and apply are all timed;
 * invariant checks are not (the tests run those). One core.
 *
 *   catan-bench [--games N] [--players P] [--board beginner|random|both]
 *               [--seed S] [--check]
 *   catan-bench --mcts N [--seed S]
 *
 * --mcts N plays N 4-player games of the search bot (400 playouts a
 * decision) against three greedy bots on random boards and reports its
 * playouts per second: playouts made over the time of its decisions (the
 * value bot's ranking, the determinizations, the playouts; one core).
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catan/bot.h"
#include "catan/state.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct result {
	uint64_t games, actions, capped;
	double seconds;
	uint64_t checksum;
} result;

#define MAX_ACTIONS 100000 /* guard only; no game has come near it */

static int run(result *res, bool random_board, int players, uint64_t seed,
	       uint64_t games, bool check)
{
	catan_board board, topology;
	catan_options opt;
	catan_options_default(&opt);
	opt.nplayers = (uint8_t)players;
	memset(res, 0, sizeof *res);
	catan_board_beginner(&board);
	catan_board_standard_topology(&topology);
	double t0 = now();
	for (uint64_t g = 0; g < games; g++) {
		catan_state s;
		catan_rng bot;
		if (random_board)
			catan_board_random_on(&board, &topology, seed + g);
		opt.seed = seed + g;
		catan_state_init(&s, &board, &opt);
		catan_rng_seed(&bot, ~(seed + g));
		uint64_t n = 0;
		while (s.phase != CATAN_PHASE_OVER && n < MAX_ACTIONS) {
			catan_action a;
			int who = catan_state_next_actor(&s);
			if (catan_bot_choose(&a, CATAN_BOT_RANDOM, &board, &s,
					     who, &bot,
					     CATAN_LEGAL_NO_OFFERS) ||
			    catan_state_apply_legal(&s, &board, &s, who, &a,
						    NULL)) {
				fprintf(stderr, "game %" PRIu64 ": rejected\n",
					g);
				return 1;
			}
			if (check) {
				char why[200];
				if (catan_state_check(&board, &s, why,
						      sizeof why)) {
					fprintf(stderr, "game %" PRIu64 ": %s\n",
						g, why);
					return 1;
				}
			}
			n++;
		}
		res->capped += s.phase != CATAN_PHASE_OVER;
		res->actions += n;
		res->checksum = res->checksum * 31 + catan_state_hash(&s);
	}
	res->seconds = now() - t0;
	res->games = games;
	return 0;
}

static double g_clock(void *ctx)
{
	(void)ctx;
	return now();
}

/* --mcts: the search bot's playouts per second of its own decisions. */
static int run_mcts(uint64_t games, uint64_t seed)
{
	catan_board board;
	catan_options opt;
	uint64_t done = 0, decisions = 0;
	double spent = 0;
	catan_options_default(&opt);
	for (uint64_t g = 0; g < games; g++) {
		catan_state s;
		catan_rng bot;
		int seat = (int)(g % 4);
		catan_board_random(&board, seed + g);
		opt.seed = seed + g;
		catan_state_init(&s, &board, &opt);
		catan_rng_seed(&bot, ~(seed + g));
		for (int n = 0; s.phase != CATAN_PHASE_OVER && n < MAX_ACTIONS;
		     n++) {
			catan_action a;
			int who = catan_state_next_actor(&s);
			int rc;
			if (who == seat) {
				catan_bot_config cfg;
				catan_seat_view v;
				catan_bot_config_default(&cfg, CATAN_BOT_MCTS);
				cfg.playouts_done = &done;
				catan_seat_view_make(&v, &s, who);
				double t0 = g_clock(NULL);
				rc = catan_bot_choose_view(&a, &cfg, &board, &v,
							   &bot, 0);
				spent += g_clock(NULL) - t0;
				decisions++;
			} else {
				rc = catan_bot_choose(&a, CATAN_BOT_GREEDY,
						      &board, &s, who, &bot, 0);
			}
			if (rc ||
			    catan_state_apply(&s, &board, &s, who, &a, NULL)) {
				fprintf(stderr, "game %" PRIu64 ": rejected\n",
					g);
				return 1;
			}
		}
	}
	printf("mcts: %" PRIu64 " games, %" PRIu64 " decisions, %" PRIu64
	       " playouts in %.2f s of its decisions: %.0f playouts/s\n",
	       games, decisions, done, spent, (double)done / spent);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t mcts_games = 0;
	uint64_t games = 20000, seed = 1;
	int players = 4;
	const char *which = "both";
	bool check = false;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: catan-bench [--games N] [--players P] "
			       "[--board beginner|random|both] [--seed S] "
			       "[--check]\n"
			       "  N complete games (default 20000) between "
			       "uniformly random bots on one\n"
			       "  core, 2-4 players (default 4); games/s and "
			       "ns per action; --check also\n"
			       "  checks the invariants after every action "
			       "(untimed).\n");
			return 0;
		} else if (!strcmp(argv[i], "--games") && v) {
			games = strtoull(v, NULL, 10);
			i++;
		} else if (!strcmp(argv[i], "--players") && v) {
			players = atoi(v);
			i++;
		} else if (!strcmp(argv[i], "--seed") && v) {
			seed = strtoull(v, NULL, 10);
			i++;
		} else if (!strcmp(argv[i], "--board") && v) {
			which = v;
			i++;
		} else if (!strcmp(argv[i], "--mcts") && v) {
			mcts_games = strtoull(v, NULL, 10);
			i++;
		} else if (!strcmp(argv[i], "--check")) {
			check = true;
		} else {
			fprintf(stderr,
				"usage: catan-bench [--games N] [--players P] "
				"[--board beginner|random|both] [--seed S] "
				"[--check]\n");
			return 2;
		}
	}
	if (mcts_games)
		return run_mcts(mcts_games, seed);
	if (games == 0 || players < 2 || players > CATAN_MAX_PLAYERS_BASE) {
		fprintf(stderr, "catan-bench: bad --games or --players\n");
		return 2;
	}
	printf("sizeof(catan_state) = %zu bytes, sizeof(catan_action) = %zu, "
	       "sizeof(catan_board) = %zu\n",
	       sizeof(catan_state), sizeof(catan_action), sizeof(catan_board));
	printf("%-9s %8s %7s %10s %12s %10s %7s\n", "board", "games", "players",
	       "games/s", "actions/game", "ns/action", "capped");
	for (int k = 0; k < 2; k++) {
		bool rnd = k == 1;
		if ((rnd && !strcmp(which, "beginner")) ||
		    (!rnd && !strcmp(which, "random")))
			continue;
		result r;
		if (run(&r, rnd, players, seed, games, check))
			return 1;
		printf("%-9s %8" PRIu64 " %7d %10.0f %12.1f %10.1f %7" PRIu64
		       "   (checksum %016" PRIx64 ")\n",
		       rnd ? "random" : "beginner", r.games, players,
		       (double)r.games / r.seconds,
		       (double)r.actions / (double)r.games,
		       r.seconds * 1e9 / (double)r.actions, r.capped,
		       r.checksum);
	}
	return 0;
}
