/*
 * rules_internal.h - pieces of the rules shared by rules.c (apply),
 * legal.c (enumeration) and check.c (invariants). Private to src/core.
 */
#ifndef CATAN_RULES_INTERNAL_H
#define CATAN_RULES_INTERNAL_H

#include "catan/state.h"

#include <string.h>

extern const uint8_t catan_cost_road[CATAN_RES_COUNT];
extern const uint8_t catan_cost_settlement[CATAN_RES_COUNT];
extern const uint8_t catan_cost_city[CATAN_RES_COUNT];
extern const uint8_t catan_cost_dev[CATAN_RES_COUNT];

/*
 * Five byte counts as one word, each byte with its top bit set: subtracting
 * a packed cost borrows out of a byte's top bit exactly when that count is
 * short. Hands never exceed 24 * 5 = 120 < 128 cards (5-6 players' bank),
 * so the bit is free.
 */
static inline uint64_t pack5(const uint8_t *a)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* The same bytes in two loads (GCC does not merge the five). */
	uint32_t lo;
	memcpy(&lo, a, sizeof lo);
	return (uint64_t)lo | (uint64_t)a[4] << 32;
#else
	return (uint64_t)a[0] | (uint64_t)a[1] << 8 | (uint64_t)a[2] << 16 |
	       (uint64_t)a[3] << 24 | (uint64_t)a[4] << 32;
#endif
}

#define CATAN_TOP5 0x8080808080ull

static inline bool can_afford(const catan_player *pl, const uint8_t *cost)
{
	return (((pack5(pl->hand) | CATAN_TOP5) - pack5(cost)) & CATAN_TOP5) ==
	       CATAN_TOP5;
}

/*
 * The costs packed as pack5() packs them, as constants (the cost arrays
 * live in rules.c, so the compiler cannot fold pack5() of them).
 */
#define CATAN_PACK5(a, b, c, d, e)                                             \
	((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)(c) << 16 |            \
	 (uint64_t)(d) << 24 | (uint64_t)(e) << 32)
#define CATAN_COST5_ROAD CATAN_PACK5(1, 1, 0, 0, 0)
#define CATAN_COST5_SETTLEMENT CATAN_PACK5(1, 1, 1, 1, 0)
#define CATAN_COST5_CITY CATAN_PACK5(0, 0, 0, 2, 3)
#define CATAN_COST5_DEV CATAN_PACK5(0, 0, 1, 1, 1)

/* can_afford() for a hand already packed as pack5(hand) | CATAN_TOP5. */
static inline bool covers5(uint64_t hand5, uint64_t cost5)
{
	return ((hand5 - cost5) & CATAN_TOP5) == CATAN_TOP5;
}

static inline int sum5(const uint8_t *a)
{
	return a[0] + a[1] + a[2] + a[3] + a[4];
}

static inline bool has_building(const catan_player *pl, int v)
{
	return catan_vset_has(&pl->settlements, v) ||
	       catan_vset_has(&pl->cities, v);
}

/* catan_state_may_act(), inline for the hot paths (actor in range). */
static inline bool may_act(const catan_state *s, int actor)
{
	/* The phases of the active player, tested first without the jump
	 * table: nearly every call is one of them. (An unknown phase, 32 or
	 * more, is the active player's either way: the switch's default.) */
	if ((1u << (s->phase & 31)) &
	    (1u << CATAN_PHASE_SETUP | 1u << CATAN_PHASE_ROLL |
	     1u << CATAN_PHASE_ROBBER | 1u << CATAN_PHASE_MAIN |
	     1u << CATAN_PHASE_TRADE | 1u << CATAN_PHASE_BUILD))
		return actor == s->active;
	switch (s->phase) {
	case CATAN_PHASE_OVER:
		return false;
	case CATAN_PHASE_DISCARD:
		return s->discard[actor] > 0;
	case CATAN_PHASE_OFFER:
		return actor == s->offer_to;
	case CATAN_PHASE_SPECIAL:
		return actor == s->builder;
	case CATAN_PHASE_REVEAL:
		return s->reveal_wait ? (s->reveal_wait >> actor) & 1
				      : actor == s->requester;
	default:
		return actor == s->active;
	}
}

/* Phase in which the active player trades and builds after rolling. */
static inline int main_phase(const catan_state *s)
{
	return s->opt.phases == CATAN_PHASES_CLASSIC ? CATAN_PHASE_TRADE
						     : CATAN_PHASE_MAIN;
}

static inline bool phase_allows_trade(int phase)
{
	return phase == CATAN_PHASE_MAIN || phase == CATAN_PHASE_TRADE;
}

/* Building and buying: also by the builder of a special building phase. */
static inline bool phase_allows_build(int phase)
{
	return phase == CATAN_PHASE_MAIN || phase == CATAN_PHASE_BUILD ||
	       phase == CATAN_PHASE_SPECIAL;
}

/* A development card may be played: own turn, not over, not set-up. */
static inline bool phase_allows_card(int phase)
{
	return phase == CATAN_PHASE_ROLL || phase == CATAN_PHASE_MAIN ||
	       phase == CATAN_PHASE_TRADE || phase == CATAN_PHASE_BUILD;
}

/*
 * Edges where player p may place a road given its roads `roads`, the
 * vertices they touch `reach`, and all roads on the board `all`: free edges
 * with an endpoint that holds p's building, or that p's road reaches and no
 * building of anybody occupies (an opponent's building cuts the network).
 */
void catan_road_spots(catan_eset *out, const catan_board *b,
		      const catan_state *s, int p, const catan_vset *reach,
		      const catan_eset *all);

/* Bit mask of opponents of p with a building on tile t who hold cards. */
unsigned catan_robber_victims(const catan_board *b, const catan_state *s,
			      int p, int t);

/* The same for every tile at once: out[t] for t < b->ntiles. */
void catan_robber_victims_all(uint8_t *out, const catan_board *b,
			      const catan_state *s, int p);

/*
 * Whether player pl may give `count` of resource r for one card from the
 * bank: 4:1 always, 3:1 with a generic harbour, 2:1 with r's own harbour
 * (a harbour adds a rate; it never takes 4:1 away).
 */
static inline bool bank_rate_ok(const catan_player *pl, int r, int count)
{
	return count == 4 ||
	       (count == 3 && (pl->harbours & (1u << CATAN_HARBOUR_GENERIC))) ||
	       (count == 2 && (pl->harbours & (1u << r)));
}

/*
 * The random bot's draw: writes to `out` the action
 * catan_legal_actions(buf, cap, ...) would list at index
 * catan_rng_below(rng, n) of its n actions, drawing from rng exactly as
 * that would, without listing them. Returns n (0: no action and no draw),
 * or -1 (no draw made) when n > cap or the case is left to the full list
 * (manual dice, discards, offers pending).
 */
int catan_legal_random(catan_action *out, const catan_board *b,
		       const catan_state *s, int actor, unsigned flags,
		       catan_rng *rng, int cap);

/*
 * The random bot's action: catan_legal_random(), or where that leaves it
 * to the full list, buf[catan_rng_below(rng, n)] of its n <= CATAN_BOT_BUF
 * actions. CATAN_OK, or CATAN_E_NOT_YOUR_TURN when nothing is legal.
 */
int catan_legal_draw(catan_action *out, const catan_board *b,
		     const catan_state *s, int actor, unsigned flags,
		     catan_rng *rng);

#endif
