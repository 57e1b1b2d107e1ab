/*
 * catan/state.h - the game state and the rules: a pure state machine.
 *
 * A catan_state is a fixed-size, pointer-free value (copy it with =). The
 * board it is played on is a separate, immutable catan_board passed to every
 * call. catan_state_apply() is the only way a state changes; it validates
 * everything before it writes anything, never allocates, and uses only the
 * deterministic RNG inside the state. The same inputs give the same outputs
 * on every machine.
 */
#ifndef CATAN_STATE_H
#define CATAN_STATE_H

#include "catan/action.h"
#include "catan/board.h"
#include "catan/rng.h"
#include "catan/types.h"

typedef enum {
	CATAN_PHASE_SETUP,   /* snake-order placement of settlement + road */
	CATAN_PHASE_ROLL,    /* active player rolls (or plays a card first) */
	CATAN_PHASE_DISCARD, /* after a 7: owing players discard, any order */
	CATAN_PHASE_ROBBER,  /* active player moves the robber (7 or knight) */
	CATAN_PHASE_MAIN,    /* combined trade/build phase */
	CATAN_PHASE_TRADE,   /* classic: trade phase */
	CATAN_PHASE_BUILD,   /* classic: build phase */
	CATAN_PHASE_OFFER,   /* a domestic offer awaits its target's answer */
	CATAN_PHASE_OVER,    /* somebody won */
	/*
	 * 5-6 players: after the active player's turn, each other player in
	 * turn order builds and buys only (catan_state.builder). After OVER
	 * so that the older phases keep their numbers (and 2-4 player state
	 * hashes stay as recorded).
	 */
	CATAN_PHASE_SPECIAL,
	/*
	 * Fair dice: a chance action (roll, development card, robbery) was
	 * asked for; every other seat reveals its next secret (reveal_wait),
	 * then the requester states the outcome they give
	 * (spec/replication.md, "Fair dice").
	 */
	CATAN_PHASE_REVEAL,
	CATAN_PHASE_COUNT
} catan_phase;

typedef enum {
	CATAN_PHASES_COMBINED, /* rulebook's combined trade/build (default) */
	CATAN_PHASES_CLASSIC,  /* thesis/TLA+: roll, trade, build */
} catan_phase_style;

typedef enum {
	CATAN_DICE_SEEDED, /* dice, draws and steals from the state's RNG */
	CATAN_DICE_MANUAL, /* the actor states dice, drawn card, stolen card */
	/*
	 * The actor asks for a chance outcome; all seats' revealed secrets
	 * fix it; the actor then states it (checked by the store).
	 */
	CATAN_DICE_FAIR,
} catan_dice_mode;

typedef struct catan_options {
	uint8_t nplayers;     /* 2..6 (5-6: the 5-6 player extension) */
	uint8_t vp_target;    /* default 10 */
	uint8_t phases;	      /* catan_phase_style */
	uint8_t dice;	      /* catan_dice_mode */
	uint8_t offer_limit;  /* domestic offers per turn, 0 = unlimited */
	uint8_t special_build; /* 5-6 players only: special building phase */
	uint64_t seed;	      /* RNG seed (seeded dice mode) */
} catan_options;

/*
 * nplayers 4, 10 VP, combined phases, seeded dice, no offer limit, no
 * special building phase, seed 0. (The official 5-6 player rules have the
 * special building phase: callers setting nplayers to 5 or 6 usually set
 * special_build too; the catan command does by default.)
 */
void catan_options_default(catan_options *out);

typedef struct catan_player {
	catan_vset settlements;
	catan_vset cities;
	catan_eset roads;
	catan_vset reach; /* vertices touched by own roads */
	uint8_t hand[CATAN_RES_COUNT];
	uint8_t devs[CATAN_DEV_COUNT]; /* unplayed, victory points included */
	uint8_t ncards;		       /* sum of hand */
	uint8_t knights;	       /* knights played */
	uint8_t roads_left, settlements_left, cities_left;
	uint8_t road_length; /* longest trail, kept current */
	uint8_t harbours;    /* bit k: harbour kind k reachable */
	uint8_t public_vp;   /* buildings + trophies */
} catan_player;

/* catan_state.building[v]: 0, or owner + 1, plus CATAN_CITY_BIT for a city. */
#define CATAN_CITY_BIT 0x10

typedef struct catan_state {
	catan_player players[CATAN_MAX_PLAYERS];
	uint8_t building[CATAN_MAX_VERTICES]; /* who built what where */
	catan_vset occupied; /* any building */
	catan_vset blocked;  /* occupied or next to a building */
	catan_eset roads;    /* any road */
	catan_rng rng;
	catan_options opt;
	uint8_t bank[CATAN_RES_COUNT];
	uint8_t deck[CATAN_DEV_COUNT]; /* development cards left to draw */
	uint8_t played[CATAN_DEV_COUNT]; /* cards played so far, by kind */
	uint8_t phase;		       /* catan_phase */
	uint8_t resume;		       /* phase after ROBBER / OFFER, else SETUP */
	uint8_t active;		       /* whose turn */
	uint8_t setup_step;	       /* 0 .. 2n-1 during SETUP */
	uint8_t robber;		       /* tile id */
	uint8_t longest_road;	       /* holder or CATAN_NONE */
	uint8_t largest_army;	       /* holder or CATAN_NONE */
	uint8_t winner;		       /* CATAN_NONE until OVER */
	uint8_t dice[2];	       /* last roll, 0,0 before the first */
	uint8_t discard[CATAN_MAX_PLAYERS]; /* cards each still owes */
	uint8_t dev_played;		    /* a card was played this turn */
	uint8_t bought[CATAN_DEV_COUNT];    /* bought this turn, by kind */
	uint8_t offers;			    /* offers made this turn */
	uint8_t offer_from, offer_to;	    /* pending offer (OFFER phase) */
	uint8_t offer_give[CATAN_RES_COUNT];
	uint8_t offer_get[CATAN_RES_COUNT];
	uint16_t turn; /* 0 during set-up, then 1, 2, ... */
	uint8_t builder; /* SPECIAL: the player building, else CATAN_NONE */
	/* Fair dice (REVEAL): the request waiting for its outcome. */
	uint8_t requester;   /* who asked, else CATAN_NONE */
	uint8_t reveal_wait; /* bit p: seat p still owes its reveal */
	uint8_t fair_phase;  /* phase the request was made in */
	uint8_t req_kind, req_tile, req_player; /* the asked action */
	uint16_t fair_events;			/* chance outcomes so far */
	uint8_t out; /* bit p: seat p was expelled (equivocation) */
} catan_state;

/*
 * Was seat p expelled? An expelled seat never acts again: the others play
 * on without it (spec/rules.md, "Expelled seats").
 */
static inline bool catan_state_out(const catan_state *s, int p)
{
	return (s->out >> p) & 1;
}

/*
 * What an applied action did that the action text does not say: dice, the
 * card stolen, the card drawn, cards produced. For logs and interfaces.
 */
typedef struct catan_outcome {
	uint8_t dice[2];
	uint8_t stolen;	  /* resource or CATAN_NONE */
	uint8_t drawn;	  /* dev card or CATAN_NONE */
	uint8_t produced[CATAN_MAX_PLAYERS][CATAN_RES_COUNT];
} catan_outcome;

/*
 * Starts a game on `board`: empty board, full bank and deck (19 cards of
 * each resource and 25 development cards, or 24 and 34 with 5-6 players),
 * robber on board->robber_start (the first desert unless a board file
 * says otherwise), set-up phase, first player to place. Returns
 * CATAN_E_BAD_OPTION (out untouched) for options outside the supported
 * ranges (special_build with fewer than 5 players among them).
 */
int catan_state_init(catan_state *out, const catan_board *board,
		     const catan_options *opt);

/*
 * Applies `a` by player `actor` to `in`, writing the result to `out` (which
 * may be `in`). Checks everything first: on rejection returns the reason
 * (a catan_error) and leaves `out` untouched. `outcome` may be NULL.
 * Never allocates, never fails for any other reason.
 */
int catan_state_apply(catan_state *out, const catan_board *board,
		      const catan_state *in, int actor, const catan_action *a,
		      catan_outcome *outcome);

/*
 * catan_state_apply() for an action known to be legal: one that
 * catan_legal_actions() lists for `actor` in `in` (as every bot's choice
 * is), applied without the checks, with the same result. For the loops
 * that play many games (benchmarks, the search bot's playouts); anything
 * read from outside (a commit, a typed action, an agent) goes through
 * catan_state_apply(). Debug builds (NDEBUG not defined) apply it both
 * ways and trap when the rules reject it or the results differ.
 */
int catan_state_apply_legal(catan_state *out, const catan_board *board,
			    const catan_state *in, int actor,
			    const catan_action *a, catan_outcome *outcome);

/*
 * Is `actor` allowed to act at all in this state? (The active player, the
 * target of a pending offer, a player owing a discard, or in the special
 * building phase the builder; never an expelled seat. `expel` is the one
 * action by a seat that may not act: see spec/rules.md, "Expelled seats".)
 */
bool catan_state_may_act(const catan_state *s, int actor);

/*
 * The player who acts next: the active player, the target of a pending
 * offer, the first player owing a discard, or the builder of a special
 * building phase. CATAN_NONE when the game is over. (During DISCARD every owing player may act; this names one.)
 */
int catan_state_next_actor(const catan_state *s);

/*
 * Fair dice: the completion of the request pending in `s` (REVEAL phase)
 * with the outcome that the 32 random bytes r give: both dice, the card
 * drawn from the deck, or the card taken from the victim's hand, each
 * chosen uniformly (up to a bias below 2^-58) from a 64-bit word of r.
 * spec/replication.md, "Fair dice", says where r comes from.
 */
void catan_fair_outcome(catan_action *out, const catan_state *s,
			const uint8_t r[32]);

/*
 * Whether `a` leaves an outcome to chance in `s` (fair dice: a roll, a
 * development card bought, a robbery of a victim holding cards), and in
 * *stated whether the action states that outcome already (the dice, the
 * card drawn, the card stolen).
 */
bool catan_action_chance(const catan_state *s, const catan_action *a,
			 bool *stated);

/* Victory points of player p, hidden victory-point cards included. */
int catan_state_vp(const catan_state *s, int p);

/* Flags for catan_legal_actions(). */
#define CATAN_LEGAL_NO_OFFERS 1u /* leave out domestic offers */

/*
 * Writes the legal actions of `actor` into buf[0..cap-1] and returns how
 * many there are in all (which may exceed cap; then only cap are written),
 * like snprintf. Every action returned applies; every action it omits is
 * rejected, except that domestic offers are enumerated only as 1:1 offers of
 * one held resource for one other (see spec/actions.md). Cannot fail.
 */
int catan_legal_actions(catan_action *buf, int cap, const catan_board *board,
			const catan_state *s, int actor, unsigned flags);

/*
 * Checks every invariant of the rules on `s` (cards and pieces conserved,
 * one building per vertex, distance rule, roads connected, victory points
 * and trophies recomputed from scratch, ...). Returns CATAN_OK or
 * CATAN_E_INVARIANT with a sentence in `why` (may be NULL).
 */
int catan_state_check(const catan_board *board, const catan_state *s,
		      char *why, size_t whysize);

/*
 * Recomputes every cached field of `s` (buildings by vertex, occupied and
 * blocked vertices, all roads, road reach, card counts, pieces left,
 * harbour access, public victory points, road lengths) from its primary
 * facts (pieces on the board, hands, cards, trophy holders, options).
 * Call catan_state_check() afterwards to validate the result. Cannot fail.
 */
void catan_state_derive(catan_state *s, const catan_board *board);

/* Longest trail of player p's roads, computed from scratch. */
int catan_state_road_length(const catan_board *board, const catan_state *s,
			    int p);

/*
 * A 64-bit hash of the whole state, computed field by field (so the same on
 * every machine and compiler). Cannot fail.
 */
uint64_t catan_state_hash(const catan_state *s);

#endif
