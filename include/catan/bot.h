/*
 * catan/bot.h - bots that choose an action for a player. Pure: they read
 * only the view of their own seat (catan/seatview.h), use their own RNG
 * (never the game's), and return an action. What each bot does is in
 * spec/bots.md.
 */
#ifndef CATAN_BOT_H
#define CATAN_BOT_H

#include "catan/seatview.h"
#include "catan/state.h"

/* Room for every legal action outside extreme discards. */
#define CATAN_BOT_BUF 2048

typedef enum {
	CATAN_BOT_RANDOM, /* uniform over the legal actions */
	CATAN_BOT_GREEDY, /* builds what scores most, trades toward it */
	CATAN_BOT_VALUE,  /* one ply over a hand-tuned value function */
	CATAN_BOT_MCTS,	  /* determinized Monte Carlo search */
	CATAN_BOT_COUNT
} catan_bot_kind;

/* "random", "greedy", "value", "mcts"; "?" out of range. */
const char *catan_bot_kind_name(int kind);

/* The kind named `name` (length n), or -1. */
int catan_bot_kind_parse(const char *name, size_t n);

/*
 * How a bot plays beyond its kind. The search bot stops after `playouts`
 * playouts per decision, or, when `clock` is set and `time_ms` > 0, when
 * time_ms milliseconds have passed (a clock the caller provides: the core
 * reads no clock of its own). With playouts alone it is deterministic for
 * its RNG's seed.
 */
typedef struct catan_bot_config {
	int kind;		    /* catan_bot_kind */
	uint32_t playouts;	    /* MCTS: playouts per decision (0: 400) */
	uint32_t time_ms;	    /* MCTS: time per decision (needs clock) */
	double (*clock)(void *ctx); /* seconds, monotonic; may be NULL */
	void *clock_ctx;
	bool trade;		 /* value and MCTS bots offer domestic trades */
	uint64_t *playouts_done; /* MCTS adds its playouts here (or NULL) */
} catan_bot_config;

/* Kind `kind`, 400 playouts, no clock, trading on. */
void catan_bot_config_default(catan_bot_config *out, int kind);

/*
 * Picks an action for the seat of view `v` into `out`, looking at nothing
 * but the view. CATAN_BOT_RANDOM draws uniformly among
 * catan_legal_actions() with `flags`, except that it discards uniformly
 * random cards one at a time (as catanatron's RandomPlayer does).
 * CATAN_BOT_GREEDY does the same when a discard has more choices than
 * CATAN_BOT_BUF. Returns CATAN_OK, or CATAN_E_NOT_YOUR_TURN when the seat
 * has nothing legal to do. The action is legal in the real game whenever
 * `v` is a view of it (legality never depends on hidden cards), once
 * catan_bot_resolve_manual() has stated its outcome in manual dice mode.
 */
int catan_bot_choose_view(catan_action *out, const catan_bot_config *cfg,
			  const catan_board *board, const catan_seat_view *v,
			  catan_rng *rng, unsigned flags);

/*
 * In manual dice mode an action states its chance outcome (the dice, the
 * card drawn, the card stolen), which a view cannot know: bots choose as
 * in seeded mode and leave it unstated. This states it in `a`, drawn with
 * `rng` from the real state `s` (as dice, the deck or the victim's hand
 * would give it at a table). Does nothing in seeded mode, to other
 * actions, or to an outcome already stated. Cannot fail.
 */
void catan_bot_resolve_manual(catan_action *a, const catan_state *s,
			      catan_rng *rng);

/*
 * catan_bot_choose_view() of a bot of `kind` with the default config on
 * the view of `actor` of `s` (the bot never sees more than that view),
 * then catan_bot_resolve_manual().
 */
int catan_bot_choose(catan_action *out, int kind, const catan_board *board,
		     const catan_state *s, int actor, catan_rng *rng,
		     unsigned flags);

/*
 * The value function of the value and search bots (spec/bots.md): how
 * good `s` is for player p, in thousandths of a victory point, read from
 * the view of `seat`. For p == seat it uses p's exact hand and cards; for
 * anyone else only what the seat sees (card counts, pieces, trophies,
 * played knights). Cannot fail.
 */
int catan_bot_value(const catan_board *board, const catan_state *s, int seat,
		    int p);

/*
 * What the domestic trade "p gives `give`, gets `get`" is worth to p, in
 * the units of catan_bot_value(), seen from `seat`: for p == seat from its
 * exact hand (the change of the value function), for another player an
 * estimate from what that player produces (its hand is hidden). Positive:
 * p gains. The value and search bots offer and answer trades with it; the
 * window and agents may share it. Cannot fail.
 */
int catan_bot_trade_value(const catan_board *board, const catan_state *s,
			  int seat, int p, const uint8_t give[CATAN_RES_COUNT],
			  const uint8_t get[CATAN_RES_COUNT]);

#endif
