/*
 * catan/bot.h - bots that choose an action for a player. Pure: they read
 * the state, use their own RNG (never the game's), and return an action.
 */
#ifndef CATAN_BOT_H
#define CATAN_BOT_H

#include "catan/state.h"

/* Room for every legal action outside extreme discards. */
#define CATAN_BOT_BUF 2048

typedef enum {
	CATAN_BOT_RANDOM, /* uniform over the legal actions */
	CATAN_BOT_GREEDY, /* builds what scores most, trades toward it */
	CATAN_BOT_COUNT
} catan_bot_kind;

/*
 * Picks an action for `actor` (who must be allowed to act) into `out`.
 * CATAN_BOT_RANDOM draws uniformly among catan_legal_actions() with
 * `flags`, except that it discards uniformly random cards one at a time
 * (as catanatron's RandomPlayer does). CATAN_BOT_GREEDY does the same when
 * a discard has more choices than CATAN_BOT_BUF. Returns CATAN_OK, or
 * CATAN_E_NOT_YOUR_TURN when the actor has nothing legal to do.
 */
int catan_bot_choose(catan_action *out, int kind, const catan_board *board,
		     const catan_state *s, int actor, catan_rng *rng,
		     unsigned flags);

#endif
