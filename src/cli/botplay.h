/*
 * botplay.h - seats played by choosers: built-in bots today, and anything
 * else that can pick an action (an agent process, later) through the same
 * two functions. Shared by catan bots and catan tournament.
 */
#ifndef CATAN_BOTPLAY_H
#define CATAN_BOTPLAY_H

#include "catan/bot.h"

/*
 * A seat's player. A built-in bot has a kind and a config; an external
 * chooser sets `choose` (and `ctx`), which then decides instead: an agent
 * ("agent:CMD", `agent` set) is started for each game by its player
 * (tournament.c) and chooses through catan_agent_choose.
 */
typedef struct bp_entrant {
	char name[200];	      /* as given on the command line */
	bool agent;	      /* agent:CMD: an agent process (name + 6) */
	catan_bot_config cfg; /* built-in bots */
	int (*choose)(void *ctx, catan_action *out, const catan_board *b,
		      const catan_state *s, int actor, unsigned flags);
	void *ctx;
} bp_entrant;

/*
 * Parses one entrant: random, greedy, value, mcts, mcts:N (N playouts a
 * decision), mcts:Nms (N milliseconds a decision), or illegal (always
 * "end", legal or not: the minimum viable move at work). Returns 0, or -1
 * with a sentence in why.
 */
int bp_entrant_parse(bp_entrant *out, const char *spec, size_t n, char *why,
		     size_t whysize);

/*
 * The action of `actor`: the entrant's choice if it applies, else the
 * minimum viable move (seed 003): end the turn if that is legal, else the
 * first legal action (a discard: the most plentiful cards). Sets *fouled
 * when the choice was replaced. Returns CATAN_OK, or an error when the
 * actor has nothing legal to do at all.
 */
int bp_choose(catan_action *out, bp_entrant *e, const catan_board *b,
	      const catan_state *s, int actor, catan_rng *rng, bool *fouled);

/* The minimum viable move alone (see bp_choose). */
int bp_minimum_move(catan_action *out, const catan_board *b,
		    const catan_state *s, int actor);

#endif
