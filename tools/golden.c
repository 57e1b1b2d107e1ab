/*
 * golden.c - regenerates the golden data under tests/data/ that the tests
 * replay (tests/core/test_golden.c):
 *
 *   games/NAME.txt     complete recorded games in the action language, one
 *                      "player action" per line, with the final state hash
 *   legal_counts.txt   perft-style counts: number of legal actions of the
 *                      next actor at fixed points of fixed games
 *
 *   catan-golden DIR   (DIR is tests/data; files are overwritten)
 *
 * Run it only when a rules change is meant to change these results, and
 * say so in the commit.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catan/bot.h"
#include "catan/state.h"
#include "recorded.h"

typedef struct recipe {
	const char *name;
	int players;
	int random_board; /* 0 beginner, else seed of the random board */
	uint64_t seed;
	int phases, dice, offer_limit, bot;
	unsigned flags;
} recipe;

static const recipe games[] = {
	{"greedy-4p-beginner", 4, 0, 1, CATAN_PHASES_COMBINED,
	 CATAN_DICE_SEEDED, 0, CATAN_BOT_GREEDY, 0},
	{"greedy-3p-random", 3, 11, 2, CATAN_PHASES_COMBINED,
	 CATAN_DICE_SEEDED, 0, CATAN_BOT_GREEDY, 0},
	{"random-4p-beginner", 4, 0, 3, CATAN_PHASES_COMBINED,
	 CATAN_DICE_SEEDED, 0, CATAN_BOT_RANDOM, CATAN_LEGAL_NO_OFFERS},
	{"random-2p-random", 2, 12, 4, CATAN_PHASES_COMBINED,
	 CATAN_DICE_SEEDED, 0, CATAN_BOT_RANDOM, CATAN_LEGAL_NO_OFFERS},
	{"random-4p-classic-offers", 4, 13, 5, CATAN_PHASES_CLASSIC,
	 CATAN_DICE_SEEDED, 2, CATAN_BOT_RANDOM, 0},
	{"random-3p-manual-dice", 3, 14, 6, CATAN_PHASES_COMBINED,
	 CATAN_DICE_MANUAL, 1, CATAN_BOT_RANDOM, 0},
};

static void setup(const recipe *r, catan_board *b, catan_state *s,
		  catan_options *o)
{
	if (r->random_board)
		catan_board_random(b, (uint64_t)r->random_board);
	else
		catan_board_beginner(b);
	catan_options_default(o);
	o->nplayers = (uint8_t)r->players;
	o->seed = r->seed;
	o->phases = (uint8_t)r->phases;
	o->dice = (uint8_t)r->dice;
	o->offer_limit = (uint8_t)r->offer_limit;
	catan_state_init(s, b, o);
}

static int write_game(const char *dir, const recipe *r, FILE *counts)
{
	catan_board b;
	catan_state s;
	catan_options o;
	catan_names names;
	catan_rng rng;
	char path[1024];
	setup(r, &b, &s, &o);
	catan_names_default(&names, r->players);
	catan_rng_seed(&rng, r->seed * 1000003u);
	snprintf(path, sizeof path, "%s/games/%s.txt", dir, r->name);
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f,
		"# A recorded game, replayed by tests/core/test_golden.c.\n"
		"# Regenerate with: catan-golden tests/data\n");
	recorded_header_write(f, r->random_board, &o);
	long n = 0;
	while (s.phase != CATAN_PHASE_OVER) {
		catan_action buf[2048];
		catan_action a;
		char text[200];
		int who = catan_state_next_actor(&s);
		/* Every 37th action: record the legal count (perft style). */
		if (n % 37 == 0)
			fprintf(counts, "%s %ld %s %d\n", r->name, n,
				names.name[who],
				catan_legal_actions(buf, 2048, &b, &s, who, 0));
		if (catan_bot_choose(&a, r->bot, &b, &s, who, &rng, r->flags) ||
		    catan_state_apply(&s, &b, &s, who, &a, NULL)) {
			fprintf(stderr, "%s: bot move rejected\n", r->name);
			fclose(f);
			return 1;
		}
		catan_action_format(text, sizeof text, &b, &names, &a);
		fprintf(f, "%s %s\n", names.name[who], text);
		n++;
	}
	fprintf(f, "winner %s\nfinal %016" PRIx64 "\n", names.name[s.winner],
		catan_state_hash(&s));
	fclose(f);
	printf("%-28s %5ld actions, winner %s\n", r->name, n,
	       names.name[s.winner]);
	return 0;
}

int main(int argc, char **argv)
{
	char path[1024];
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: catan-golden DIR   (DIR: tests/data)\n"
		       "  rewrites DIR/games/*.txt (recorded games with their "
		       "final state hash)\n"
		       "  and DIR/legal_counts.txt (legal-move counts at fixed "
		       "points); run it\n"
		       "  only when a rules change is meant to change them.\n");
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: catan-golden DIR   (DIR: tests/data)\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/games", argv[1]);
	mkdir(argv[1], 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/legal_counts.txt", argv[1]);
	FILE *counts = fopen(path, "w");
	if (!counts) {
		perror(path);
		return 1;
	}
	fprintf(counts, "# game action-index next-actor legal-actions "
			"(offers included)\n");
	for (size_t i = 0; i < sizeof games / sizeof games[0]; i++)
		if (write_game(argv[1], &games[i], counts)) {
			fclose(counts);
			return 1;
		}
	fclose(counts);
	return 0;
}
