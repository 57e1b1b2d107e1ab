/*
 * recorded.h - the header of a recorded game (tests/data/games/NAME.txt), in
 * one place for its writer (tools/golden.c) and its readers (tools/trace.c,
 * tests/core/test_golden.c).
 *
 * A recorded game is text, one item a line; lines starting with '#' and
 * blank lines are comments. The header comes first, in this order:
 *
 *   board beginner | board random SEED
 *   players N
 *   seed S
 *   phases combined|classic
 *   dice seeded|manual
 *   offer-limit K
 *
 * then one line per action, "<player> <action text>" (spec/actions.md),
 * and at the end "final <state hash, 16 hex digits>" and "winner <player>".
 */
#ifndef CATAN_TOOLS_RECORDED_H
#define CATAN_TOOLS_RECORDED_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catan/board.h"
#include "catan/state.h"

/* The header of a game played on `random_board` (0: the beginner board). */
static inline void recorded_header_write(FILE *f, int random_board,
					 const catan_options *o)
{
	if (random_board)
		fprintf(f, "board random %d\n", random_board);
	else
		fprintf(f, "board beginner\n");
	fprintf(f, "players %d\nseed %" PRIu64 "\nphases %s\ndice %s\n",
		o->nplayers, o->seed,
		o->phases == CATAN_PHASES_CLASSIC ? "classic" : "combined",
		o->dice == CATAN_DICE_MANUAL ? "manual" : "seeded");
	fprintf(f, "offer-limit %d\n", o->offer_limit);
}

/*
 * Reads one header line (no newline) into *b and *o, which the caller set
 * to the beginner board and catan_options_default first: 1 when it was
 * the last line of the header (offer-limit), 0 for another header line,
 * -1 for a line that is not one (an unknown key or a bad value).
 */
static inline int recorded_header_line(const char *line, catan_board *b,
				       catan_options *o)
{
	char key[32] = "", val[64] = "", end;
	long n = 0;
	if (sscanf(line, "%31s %63s %c", key, val, &end) != 2 &&
	    strcmp(key, "board"))
		return -1;
	if (!strcmp(key, "board")) {
		if (!strcmp(val, "beginner") &&
		    sscanf(line, "%*s %*s %c", &end) != 1)
			catan_board_beginner(b);
		else if (!strcmp(val, "random") &&
			 sscanf(line, "board random %ld %c", &n, &end) == 1 &&
			 n > 0 && n <= INT32_MAX)
			catan_board_random(b, (uint64_t)n);
		else
			return -1;
		return 0;
	}
	char *rest;
	n = strtol(val, &rest, 10);
	bool num = rest != val && !*rest && n >= 0;
	if (!strcmp(key, "players") && num && n >= CATAN_MIN_PLAYERS &&
	    n <= CATAN_MAX_PLAYERS)
		o->nplayers = (uint8_t)n;
	else if (!strcmp(key, "seed") && num)
		o->seed = strtoull(val, NULL, 10);
	else if (!strcmp(key, "phases") &&
		 (!strcmp(val, "classic") || !strcmp(val, "combined")))
		o->phases = !strcmp(val, "classic") ? CATAN_PHASES_CLASSIC
						    : CATAN_PHASES_COMBINED;
	else if (!strcmp(key, "dice") &&
		 (!strcmp(val, "manual") || !strcmp(val, "seeded")))
		o->dice = !strcmp(val, "manual") ? CATAN_DICE_MANUAL
						 : CATAN_DICE_SEEDED;
	else if (!strcmp(key, "offer-limit") && num && n <= 255) {
		o->offer_limit = (uint8_t)n;
		return 1;
	} else
		return -1;
	return 0;
}

#endif
