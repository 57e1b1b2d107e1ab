/*
 * legal.c - enumeration of every legal action of one player.
 *
 * Mirrors the checks of rules.c phase by phase, writing into a caller's
 * buffer and counting past its end (snprintf-style). The tests apply every
 * action this returns and check that random actions it does not return are
 * rejected, so the two files cannot drift apart unnoticed.
 */
#include "catan/state.h"

#include <string.h>

#include "catan/bot.h"

#include "rules_internal.h"

typedef struct out_buf {
	catan_action *buf;
	int cap;
	int n;
	catan_action sink; /* takes the writes past the end of buf */
} out_buf;

/* A blank action of `kind`: catan_action_init(), inlined. */
static inline __attribute__((always_inline)) void blank(catan_action *out,
							int kind)
{
	static const catan_action none = {
	    .vertex = CATAN_NONE,
	    .edge = CATAN_NONE,
	    .edge2 = CATAN_NONE,
	    .tile = CATAN_NONE,
	    .player = CATAN_NONE,
	    .res = CATAN_NONE,
	    .res2 = CATAN_NONE,
	    .dev = CATAN_NONE,
	};
	*out = none;
	out->kind = (uint8_t)kind;
}

static inline __attribute__((always_inline)) catan_action *push(out_buf *o,
								int kind)
{
	catan_action *a = o->n < o->cap ? &o->buf[o->n] : &o->sink;
	o->n++;
	blank(a, kind);
	return a;
}

/* Robber placements (7 or knight): every other tile, every victim. */
static void robber_moves(out_buf *o, const catan_board *b,
			 const catan_state *s, int p, int kind)
{
	uint8_t all[CATAN_MAX_TILES];
	catan_robber_victims_all(all, b, s, p);
	unsigned holders = 0; /* players with a card to lose */
	for (int q = 0; q < s->opt.nplayers; q++)
		holders |= (unsigned)(s->players[q].ncards > 0) << q;
	bool manual = s->opt.dice == CATAN_DICE_MANUAL;
	for (int t = 0; t < b->ntiles; t++) {
		if (t == s->robber)
			continue;
		unsigned victims = all[t];
		if (!(victims & holders))
			push(o, kind)->tile = (uint8_t)t;
		for (; victims; victims &= victims - 1) {
			int v = __builtin_ctz(victims);
			if (!manual || !(holders & (1u << v))) {
				catan_action *a = push(o, kind);
				a->tile = (uint8_t)t;
				a->player = (uint8_t)v;
				continue;
			}
			for (int r = 0; r < CATAN_RES_COUNT; r++) {
				if (!s->players[v].hand[r])
					continue;
				catan_action *a = push(o, kind);
				a->tile = (uint8_t)t;
				a->player = (uint8_t)v;
				a->res = (uint8_t)r;
			}
		}
	}
}

static void road_building_moves(out_buf *o, const catan_board *b,
				const catan_state *s, int p)
{
	const catan_player *pl = &s->players[p];
	if (pl->roads_left == 0)
		return;
	catan_eset first;
	catan_road_spots(&first, b, s, p, &pl->reach, &s->roads);
	CATAN_FOR_BITS(e1, first.w, CATAN_EWORDS)
	{
		catan_eset all = s->roads, second;
		catan_vset reach = pl->reach;
		catan_eset_add(&all, e1);
		catan_vset_add(&reach, b->edge_vertices[e1][0]);
		catan_vset_add(&reach, b->edge_vertices[e1][1]);
		catan_road_spots(&second, b, s, p, &reach, &all);
		if (pl->roads_left < 2 || catan_eset_count(&second) == 0) {
			catan_action *a = push(o, CATAN_ACT_PLAY_ROAD_BUILDING);
			a->edge = (uint8_t)e1;
			continue;
		}
		/* Both orders of a pair are distinct actions (the text keeps
		 * the order typed), and both apply when either road could go
		 * first, so both are listed. */
		CATAN_FOR_BITS(e2, second.w, CATAN_EWORDS)
		{
			catan_action *a = push(o, CATAN_ACT_PLAY_ROAD_BUILDING);
			a->edge = (uint8_t)e1;
			a->edge2 = (uint8_t)e2;
		}
	}
}

/*
 * Most of the time there is no playable card at all. The four playable
 * kinds (all but victory points) are the first four counts, read in one
 * load (GCC does not merge the four byte loads).
 */
_Static_assert(CATAN_DEV_VICTORY_POINT == 4, "playable cards first");
static inline bool card_playable(const catan_state *s, const catan_player *pl)
{
	uint32_t four;
	memcpy(&four, pl->devs, sizeof four);
	return !s->dev_played && four;
}

/* Cards to play, when card_playable(). */
static void card_moves(out_buf *o, const catan_board *b, const catan_state *s,
		       int p)
{
	const catan_player *pl = &s->players[p];
	if (pl->devs[CATAN_DEV_KNIGHT] > s->bought[CATAN_DEV_KNIGHT])
		robber_moves(o, b, s, p, CATAN_ACT_PLAY_KNIGHT);
	if (pl->devs[CATAN_DEV_ROAD_BUILDING] >
	    s->bought[CATAN_DEV_ROAD_BUILDING])
		road_building_moves(o, b, s, p);
	if (pl->devs[CATAN_DEV_YEAR_OF_PLENTY] >
	    s->bought[CATAN_DEV_YEAR_OF_PLENTY]) {
		int total = 0;
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			total += s->bank[r];
		for (int r = 0; r < CATAN_RES_COUNT; r++) {
			if (!s->bank[r])
				continue;
			if (total == 1) {
				push(o, CATAN_ACT_PLAY_YEAR_OF_PLENTY)->res =
					(uint8_t)r;
				continue;
			}
			/* Both orders: `play year-of-plenty ore wool` and
			 * `... wool ore` are two texts, both legal. */
			for (int r2 = 0; r2 < CATAN_RES_COUNT; r2++) {
				if (!s->bank[r2] || (r2 == r && s->bank[r] < 2))
					continue;
				catan_action *a =
					push(o, CATAN_ACT_PLAY_YEAR_OF_PLENTY);
				a->res = (uint8_t)r;
				a->res2 = (uint8_t)r2;
			}
		}
	}
	if (pl->devs[CATAN_DEV_MONOPOLY] > s->bought[CATAN_DEV_MONOPOLY])
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			push(o, CATAN_ACT_PLAY_MONOPOLY)->res = (uint8_t)r;
}

/* 1:1 domestic offers from p to `to` (all others when to == NONE). */
static void offer_moves(out_buf *o, const catan_state *s, int p, int to)
{
	const catan_player *pl = &s->players[p];
	if (s->opt.offer_limit && s->offers >= s->opt.offer_limit)
		return;
	for (int q = 0; q < s->opt.nplayers; q++) {
		if (q == p || (to != CATAN_NONE && q != to) ||
		    catan_state_out(s, q))
			continue;
		for (int g = 0; g < CATAN_RES_COUNT; g++) {
			if (!pl->hand[g])
				continue;
			for (int w = 0; w < CATAN_RES_COUNT; w++) {
				if (w == g)
					continue;
				catan_action *a = push(o, CATAN_ACT_TRADE_OFFER);
				a->player = (uint8_t)q;
				a->give[g] = 1;
				a->get[w] = 1;
			}
		}
	}
}

/*
 * Bank trades in the list's order: resource g given at each rate the
 * player may use (the best first: 2 with g's harbour, 3 with a generic
 * one, 4), for every other resource the bank still has. With `o`, every
 * one is pushed (trade_moves()); without, only the k-th is written to
 * `out` (the random bot's draw). Inlined into both, so the list pays no
 * test per trade.
 */
static inline __attribute__((always_inline)) void
bank_trades(out_buf *o, catan_action *out, const catan_state *s,
	    const catan_player *pl, int k)
{
	bool generic = pl->harbours & (1u << CATAN_HARBOUR_GENERIC);
	for (int g = 0; g < CATAN_RES_COUNT; g++) {
		int low = pl->harbours & (1u << g) ? 2 : generic ? 3 : 4;
		for (int rate = low; rate <= 4 && pl->hand[g] >= rate; rate++) {
			if (!bank_rate_ok(pl, g, rate))
				continue;
			for (int w = 0; w < CATAN_RES_COUNT; w++) {
				if (w == g || !s->bank[w])
					continue;
				catan_action *a;
				if (o) {
					a = push(o, CATAN_ACT_TRADE_BANK);
				} else if (k-- != 0) {
					continue;
				} else {
					a = out;
					blank(a, CATAN_ACT_TRADE_BANK);
				}
				a->res = (uint8_t)g;
				a->count = (uint8_t)rate;
				a->res2 = (uint8_t)w;
				if (!o)
					return;
			}
		}
	}
}

static void trade_moves(out_buf *o, const catan_state *s, int p, unsigned flags)
{
	bank_trades(o, NULL, s, &s->players[p], 0);
	if (!(flags & CATAN_LEGAL_NO_OFFERS))
		offer_moves(o, s, p, CATAN_NONE);
}

static void build_moves(out_buf *o, const catan_board *b, const catan_state *s,
			int p)
{
	const catan_player *pl = &s->players[p];
	uint64_t hand5 = pack5(pl->hand) | CATAN_TOP5;
	if (pl->roads_left && covers5(hand5, CATAN_COST5_ROAD)) {
		catan_eset spots;
		catan_road_spots(&spots, b, s, p, &pl->reach, &s->roads);
		CATAN_FOR_BITS(e, spots.w, CATAN_EWORDS)
		{
			push(o, CATAN_ACT_BUILD_ROAD)->edge = (uint8_t)e;
		}
	}
	if (pl->settlements_left &&
	    covers5(hand5, CATAN_COST5_SETTLEMENT)) {
		uint64_t spots[CATAN_VWORDS];
		for (int k = 0; k < CATAN_VWORDS; k++)
			spots[k] = pl->reach.w[k] & ~s->blocked.w[k];
		CATAN_FOR_BITS(v, spots, CATAN_VWORDS)
		{
			push(o, CATAN_ACT_BUILD_SETTLEMENT)->vertex =
				(uint8_t)v;
		}
	}
	if (pl->cities_left && covers5(hand5, CATAN_COST5_CITY)) {
		CATAN_FOR_BITS(v, pl->settlements.w, CATAN_VWORDS)
		{
			push(o, CATAN_ACT_BUILD_CITY)->vertex = (uint8_t)v;
		}
	}
	if (covers5(hand5, CATAN_COST5_DEV) && sum5(s->deck) > 0) {
		if (s->opt.dice != CATAN_DICE_MANUAL) {
			push(o, CATAN_ACT_BUY_DEV);
		} else {
			for (int d = 0; d < CATAN_DEV_COUNT; d++)
				if (s->deck[d])
					push(o, CATAN_ACT_BUY_DEV)->dev =
						(uint8_t)d;
		}
	}
}

/* Every way to give exactly `left` cards from hand[r..4]. */
static void discard_moves(out_buf *o, const uint8_t *hand, uint8_t *give,
			  int r, int left)
{
	if (r == CATAN_RES_COUNT - 1) {
		if (left > hand[r])
			return;
		give[r] = (uint8_t)left;
		catan_action *a = push(o, CATAN_ACT_DISCARD);
		memcpy(a->give, give, CATAN_RES_COUNT);
		give[r] = 0;
		return;
	}
	int rest = 0;
	for (int k = r + 1; k < CATAN_RES_COUNT; k++)
		rest += hand[k];
	for (int n = 0; n <= hand[r] && n <= left; n++) {
		if (left - n > rest)
			continue;
		give[r] = (uint8_t)n;
		discard_moves(o, hand, give, r + 1, left - n);
	}
	give[r] = 0;
}

int catan_legal_actions(catan_action *buf, int cap, const catan_board *board,
			const catan_state *s, int actor, unsigned flags)
{
	out_buf o = {buf, cap < 0 ? 0 : cap, 0, {0}};
	if (actor < 0 || actor >= s->opt.nplayers || !may_act(s, actor))
		return 0;
	const catan_player *pl = &s->players[actor];

	switch (s->phase) {
	case CATAN_PHASE_SETUP:
		for (int v = 0; v < board->nvertices; v++) {
			if (catan_vset_has(&s->blocked, v))
				continue;
			for (int i = 0; i < 3; i++) {
				int e = board->vertex_edges[v][i];
				if (e == CATAN_NONE ||
				    catan_eset_has(&s->roads, e))
					continue;
				catan_action *a = push(&o, CATAN_ACT_SETUP);
				a->vertex = (uint8_t)v;
				a->edge = (uint8_t)e;
			}
		}
		break;
	case CATAN_PHASE_ROLL:
		if (s->opt.dice == CATAN_DICE_MANUAL) {
			for (int d1 = 1; d1 <= 6; d1++)
				for (int d2 = 1; d2 <= 6; d2++) {
					catan_action *a =
						push(&o, CATAN_ACT_ROLL);
					a->dice[0] = (uint8_t)d1;
					a->dice[1] = (uint8_t)d2;
				}
		} else {
			push(&o, CATAN_ACT_ROLL);
		}
		if (card_playable(s, pl))
			card_moves(&o, board, s, actor);
		break;
	case CATAN_PHASE_DISCARD: {
		uint8_t give[CATAN_RES_COUNT] = {0};
		discard_moves(&o, pl->hand, give, 0, s->discard[actor]);
		break;
	}
	case CATAN_PHASE_ROBBER:
		robber_moves(&o, board, s, actor, CATAN_ACT_ROBBER);
		break;
	case CATAN_PHASE_MAIN:
	case CATAN_PHASE_TRADE:
	case CATAN_PHASE_BUILD:
		if (phase_allows_trade(s->phase))
			trade_moves(&o, s, actor, flags);
		if (phase_allows_build(s->phase))
			build_moves(&o, board, s, actor);
		if (card_playable(s, pl))
			card_moves(&o, board, s, actor);
		push(&o, s->phase == CATAN_PHASE_TRADE ? CATAN_ACT_END_TRADE
						       : CATAN_ACT_END);
		break;
	case CATAN_PHASE_REVEAL:
		/*
		 * A seat that owes a reveal reveals. Then the requester states
		 * the outcome: every possible one is listed, as in manual
		 * mode; which one the reveals give is the store's to check
		 * (spec/replication.md, "Fair dice").
		 */
		if (s->reveal_wait) {
			push(&o, CATAN_ACT_REVEAL);
		} else if (s->req_kind == CATAN_ACT_ROLL) {
			for (int d1 = 1; d1 <= 6; d1++)
				for (int d2 = 1; d2 <= 6; d2++) {
					catan_action *a =
					    push(&o, CATAN_ACT_ROLL);
					a->dice[0] = (uint8_t)d1;
					a->dice[1] = (uint8_t)d2;
				}
		} else if (s->req_kind == CATAN_ACT_BUY_DEV) {
			for (int d = 0; d < CATAN_DEV_COUNT; d++)
				if (s->deck[d])
					push(&o, CATAN_ACT_BUY_DEV)->dev =
					    (uint8_t)d;
		} else {
			for (int r = 0; r < CATAN_RES_COUNT; r++) {
				if (!s->players[s->req_player].hand[r])
					continue;
				catan_action *a = push(&o, s->req_kind);
				a->tile = s->req_tile;
				a->player = s->req_player;
				a->res = (uint8_t)r;
			}
		}
		break;
	case CATAN_PHASE_SPECIAL:
		/* Build and buy only; `end` passes to the next builder. */
		build_moves(&o, board, s, actor);
		push(&o, CATAN_ACT_END);
		break;
	case CATAN_PHASE_OFFER: {
		bool can = true;
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			if (s->offer_get[r] > pl->hand[r])
				can = false;
		if (can)
			push(&o, CATAN_ACT_TRADE_ACCEPT);
		push(&o, CATAN_ACT_TRADE_REJECT);
		if (!(flags & CATAN_LEGAL_NO_OFFERS))
			offer_moves(&o, s, actor, s->offer_from);
		break;
	}
	default:
		break;
	}
	return o.n;
}

/*
 * ---- One uniformly random legal action (the random bot) ----
 *
 * catan_legal_random() draws the same action as
 * buf[catan_rng_below(rng, n)] over the n actions catan_legal_actions()
 * lists, with the same draws, without writing the list: it counts each
 * section of the list (bank trades, offers, roads, settlements, cities,
 * the card bought, each card played, the end), draws the index, and
 * writes only the action at that index, walking the sections in the
 * list's order. test_legal checks it against the list.
 */

/*
 * Robber placements (seeded or fair dice), as robber_moves() lists them:
 * per tile but the robber's, the placement robbing nobody when no victim
 * there holds a card, then one per victim. Counted from tile bit masks
 * (a board has at most 64 tiles): the tiles each opponent has a building
 * on (the union of the board's tile masks of its buildings' corners), and
 * the tiles where one who holds cards has; drawn by walking the tiles,
 * each opponent's mask telling whether it is on the tile.
 */
typedef struct robber_plan {
	uint64_t live;			/* every tile but the robber's */
	uint64_t on[CATAN_MAX_PLAYERS]; /* each opponent's tiles (live) */
	uint64_t c[3]; /* per tile, bit-sliced: its number of placements */
	int n;	       /* players */
} robber_plan;

static int robber_count(robber_plan *rp, const catan_board *b,
			const catan_state *s, int p)
{
	uint64_t held = 0;
	rp->live = (b->ntiles >= 64 ? ~0ull : (1ull << b->ntiles) - 1) &
		   ~(s->robber < 64 ? 1ull << s->robber : 0);
	rp->n = s->opt.nplayers;
	for (int o = 0; o < s->opt.nplayers; o++) {
		const catan_player *pl = &s->players[o];
		uint64_t on = 0, own[CATAN_VWORDS];
		rp->on[o] = 0;
		if (o == p)
			continue;
		for (int k = 0; k < CATAN_VWORDS; k++)
			own[k] = pl->settlements.w[k] | pl->cities.w[k];
		CATAN_FOR_BITS(v, own, CATAN_VWORDS)
		{
			on |= b->vertex_tmask[v];
		}
		on &= rp->live;
		if (pl->ncards)
			held |= on;
		rp->on[o] = on;
	}
	/* Per tile: the placement robbing nobody (no victim there holds a
	 * card), plus one per opponent there; at most 6, added up in three
	 * bit planes (a carry-save sum of the masks). */
	uint64_t c0 = rp->live & ~held, c1 = 0, c2 = 0;
	for (int o = 0; o < s->opt.nplayers; o++) {
		uint64_t x = rp->on[o], k0 = c0 & x, k1;
		c0 ^= x;
		k1 = c1 & k0;
		c1 ^= k0;
		c2 |= k1;
	}
	rp->c[0] = c0;
	rp->c[1] = c1;
	rp->c[2] = c2;
	return catan_popcount64(c0) + 2 * catan_popcount64(c1) +
	       4 * catan_popcount64(c2);
}

/* The number of bits set in each byte value. */
static const uint8_t ones8[256] = {
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
    B6(0), B6(1), B6(1), B6(2)
#undef B6
#undef B4
#undef B2
};

static void robber_nth(catan_action *out, const robber_plan *rp, int kind,
		       int k)
{
	/* Whole groups of 8 tiles first: their placements by byte counts. */
	int from = 0;
	for (;; from += 8) {
		int c = ones8[(rp->c[0] >> from) & 0xff] +
			2 * ones8[(rp->c[1] >> from) & 0xff] +
			4 * ones8[(rp->c[2] >> from) & 0xff];
		if (k < c)
			break;
		k -= c;
	}
	uint64_t below = from ? ~0ull >> (64 - from) : 0;
	for (uint64_t m = (rp->c[0] | rp->c[1] | rp->c[2]) & ~below;;
	     m &= m - 1) {
		int t = __builtin_ctzll(m);
		int c = (int)((rp->c[0] >> t) & 1) +
			(int)((rp->c[1] >> t) & 1) * 2 +
			(int)((rp->c[2] >> t) & 1) * 4;
		if (k >= c) {
			k -= c;
			continue;
		}
		blank(out, kind);
		out->tile = (uint8_t)t;
		/* The placement robbing nobody first, when there is one. */
		uint64_t bit = 1ull << t;
		int victims = 0;
		for (int o = 0; o < rp->n; o++)
			victims += (rp->on[o] & bit) != 0;
		k -= c - victims;
		for (int o = 0; o < rp->n && k >= 0; o++)
			if ((rp->on[o] & bit) && k-- == 0)
				out->player = (uint8_t)o;
		return;
	}
}

/* The index of the k-th set bit of words[0..nwords-1]. */
static int nth_bit(const uint64_t *words, int nwords, int k)
{
	for (int i = 0; i < nwords; i++) {
		uint64_t m = words[i];
		int c = catan_popcount64(m);
		if (k >= c) {
			k -= c;
			continue;
		}
		while (k--)
			m &= m - 1;
		return 64 * i + __builtin_ctzll(m);
	}
	return CATAN_NONE; /* not reached: k < the count */
}

enum {
	SEC_ROLL,
	SEC_ROBBER,
	SEC_BANK,
	SEC_OFFER,
	SEC_ROAD,
	SEC_SETTLEMENT,
	SEC_CITY,
	SEC_DEV,
	SEC_KNIGHT,
	SEC_ROAD_BUILDING,
	SEC_PLENTY,
	SEC_MONOPOLY,
	SEC_END,
	SEC_COUNT
};

typedef struct plan {
	int n[SEC_COUNT]; /* the non-empty sections' sizes, in order */
	uint8_t sec[SEC_COUNT];
	int m, total;	    /* sections, and the sum of their sizes */
	robber_plan robber; /* SEC_ROBBER or SEC_KNIGHT */
	catan_eset roads;   /* SEC_ROAD */
	catan_eset first;   /* SEC_ROAD_BUILDING: the first road's spots */
	uint64_t settlements[CATAN_VWORDS];
} plan;

static inline void add(plan *pn, int sec, int n)
{
	if (n > 0) {
		pn->sec[pn->m] = (uint8_t)sec;
		pn->n[pn->m++] = n;
		pn->total += n;
	}
}

/* The sum of the five low bytes of x (a sum below 256). */
static inline int bytes5(uint64_t x)
{
	return (int)(((x * 0x0101010101ull) >> 32) & 0xff);
}

/* Flags (CATAN_TOP5's bits) of the counts of packed `c5` that are >= x. */
static inline uint64_t at_least5(uint64_t c5, unsigned x)
{
	return ((c5 | CATAN_TOP5) - x * 0x0101010101ull) & CATAN_TOP5;
}

/*
 * trade_moves()'s bank trades, counted: resource g is given at rate 2
 * with its harbour, 3 with a generic one, 4 always, when the hand has
 * that many, each rate for every other resource the bank still has.
 */
static inline __attribute__((always_inline)) int
bank_count(const catan_state *s, const catan_player *pl, uint64_t hand5)
{
	uint64_t ge2 = at_least5(hand5, 2);
	if (!ge2)
		return 0;
	/* Harbour bit g to bit 8g + 7: one product, as the partial products
	 * (bit g' of the harbours at 7g + 7) never meet a flag or carry. */
	uint64_t own =
	    ((pl->harbours & 0x1fu) *
	     (1ull << 7 | 1ull << 14 | 1ull << 21 | 1ull << 28 | 1ull << 35)) &
	    CATAN_TOP5;
	uint64_t r2 = ge2 & own, r4 = at_least5(hand5, 4),
		 r3 = pl->harbours & (1u << CATAN_HARBOUR_GENERIC)
			  ? at_least5(hand5, 3)
			  : 0,
		 stocked = at_least5(pack5(s->bank), 1) >> 7;
	/* Each rate of g (the three flags of a resource add up within its
	 * byte) for every stocked resource but g itself: the bytes of the
	 * stocked resources are masked by stocked * 0xff (one 0xff a byte). */
	uint64_t rates = (r2 >> 7) + (r3 >> 7) + (r4 >> 7),
		 spared = rates & (stocked * 0xff);
	return bytes5(stocked) * bytes5(rates) - bytes5(spared);
}

static void bank_nth(catan_action *out, const catan_state *s,
		     const catan_player *pl, int k)
{
	bank_trades(NULL, out, s, pl, k);
}

/* offer_moves() to every other player. */
static int offer_count(const catan_state *s, const catan_player *pl)
{
	if (s->opt.offer_limit && s->offers >= s->opt.offer_limit)
		return 0;
	int held = 0;
	for (int g = 0; g < CATAN_RES_COUNT; g++)
		held += pl->hand[g] > 0;
	int to = s->opt.nplayers - 1;
	for (unsigned m = s->out; m; m &= m - 1)
		to--; /* an expelled seat takes no offer */
	return to * held * (CATAN_RES_COUNT - 1);
}

static void offer_nth(catan_action *out, const catan_state *s, int p, int k)
{
	const catan_player *pl = &s->players[p];
	for (int q = 0; q < s->opt.nplayers; q++) {
		if (q == p || catan_state_out(s, q))
			continue;
		for (int g = 0; g < CATAN_RES_COUNT; g++) {
			if (!pl->hand[g])
				continue;
			for (int w = 0; w < CATAN_RES_COUNT; w++) {
				if (w == g || k-- != 0)
					continue;
				blank(out, CATAN_ACT_TRADE_OFFER);
				out->player = (uint8_t)q;
				out->give[g] = 1;
				out->get[w] = 1;
				return;
			}
		}
	}
}

static inline __attribute__((always_inline)) void
build_count(plan *pn, const catan_board *b, const catan_state *s, int p)
{
	const catan_player *pl = &s->players[p];
	uint64_t hand5 = pack5(pl->hand) | CATAN_TOP5;
	if (pl->roads_left && covers5(hand5, CATAN_COST5_ROAD)) {
		catan_road_spots(&pn->roads, b, s, p, &pl->reach, &s->roads);
		add(pn, SEC_ROAD, catan_eset_count(&pn->roads));
	}
	if (pl->settlements_left && covers5(hand5, CATAN_COST5_SETTLEMENT)) {
		int n = 0;
		for (int k = 0; k < CATAN_VWORDS; k++) {
			pn->settlements[k] = pl->reach.w[k] & ~s->blocked.w[k];
			n += catan_popcount64(pn->settlements[k]);
		}
		add(pn, SEC_SETTLEMENT, n);
	}
	if (pl->cities_left && covers5(hand5, CATAN_COST5_CITY))
		add(pn, SEC_CITY, catan_vset_count(&pl->settlements));
	add(pn, SEC_DEV, covers5(hand5, CATAN_COST5_DEV) && sum5(s->deck) > 0);
}

/* Year of plenty's pairs, as card_moves() lists them. */
static int plenty_walk(catan_action *out, const catan_state *s, int k)
{
	int total = 0, n = 0;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		total += s->bank[r];
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		if (!s->bank[r])
			continue;
		if (total == 1) {
			if (n++ == k) {
				blank(out, CATAN_ACT_PLAY_YEAR_OF_PLENTY);
				out->res = (uint8_t)r;
				return n;
			}
			continue;
		}
		for (int r2 = 0; r2 < CATAN_RES_COUNT; r2++) {
			if (!s->bank[r2] || (r2 == r && s->bank[r] < 2))
				continue;
			if (n++ == k) {
				blank(out, CATAN_ACT_PLAY_YEAR_OF_PLENTY);
				out->res = (uint8_t)r;
				out->res2 = (uint8_t)r2;
				return n;
			}
		}
	}
	return n;
}

/*
 * Road building's roads, as road_building_moves() lists them: each first
 * road e1 alone when no second can follow it (or p has one road left),
 * else with each second road. The second road's spots are those of the
 * first (`first`, all but e1) and the free sides at e1's ends that no
 * building occupies (catan_road_spots() with e1 built, without the walk
 * over all sources). Returns how many; with `out`, also writes the k-th.
 */
static int road_building_walk(catan_action *out, const catan_board *b,
			      const catan_state *s, int p,
			      const catan_eset *first, int k)
{
	int n = 0;
	bool two = s->players[p].roads_left >= 2;
	CATAN_FOR_BITS(e1, first->w, CATAN_EWORDS)
	{
		catan_eset second = *first;
		for (int i = 0; i < 2; i++) {
			int v = b->edge_vertices[e1][i];
			if (catan_vset_has(&s->occupied, v))
				continue;
			for (int w = 0; w < CATAN_EWORDS; w++)
				second.w[w] |= b->vertex_emask[v].w[w];
		}
		for (int w = 0; w < CATAN_EWORDS; w++)
			second.w[w] &= ~s->roads.w[w];
		second.w[e1 >> 6] &= ~(1ull << (e1 & 63));
		int c = two ? catan_eset_count(&second) : 0;
		if (out && k < (c ? c : 1)) {
			blank(out, CATAN_ACT_PLAY_ROAD_BUILDING);
			out->edge = (uint8_t)e1;
			if (c)
				out->edge2 =
				    (uint8_t)nth_bit(second.w, CATAN_EWORDS, k);
			return n + k + 1;
		}
		n += c ? c : 1; /* the pairs with e1 first, or e1 alone */
		k -= c ? c : 1;
	}
	return n;
}

/* Counts the cards' sections. */
static void card_count(plan *pn, const catan_board *b, const catan_state *s,
		       int p)
{
	const catan_player *pl = &s->players[p];
	if (pl->devs[CATAN_DEV_KNIGHT] > s->bought[CATAN_DEV_KNIGHT])
		add(pn, SEC_KNIGHT, robber_count(&pn->robber, b, s, p));
	if (pl->devs[CATAN_DEV_ROAD_BUILDING] >
		s->bought[CATAN_DEV_ROAD_BUILDING] &&
	    pl->roads_left) {
		catan_road_spots(&pn->first, b, s, p, &pl->reach, &s->roads);
		add(pn, SEC_ROAD_BUILDING,
		    road_building_walk(NULL, b, s, p, &pn->first, 0));
	}
	if (pl->devs[CATAN_DEV_YEAR_OF_PLENTY] >
	    s->bought[CATAN_DEV_YEAR_OF_PLENTY])
		add(pn, SEC_PLENTY, plenty_walk(NULL, s, -1));
	if (pl->devs[CATAN_DEV_MONOPOLY] > s->bought[CATAN_DEV_MONOPOLY])
		add(pn, SEC_MONOPOLY, CATAN_RES_COUNT);
}

/*
 * Set-up: every free vertex with every free edge around it, in vertex
 * order. A vertex no road touches has all its edges free (nearly every
 * one: set-up roads touch only blocked vertices), so those are counted a
 * word at a time from the board's bit-sliced edge counts, and only the
 * others edge by edge.
 */
typedef struct setup_plan {
	uint64_t free[CATAN_VWORDS];	/* unblocked vertices */
	uint64_t touched[CATAN_VWORDS]; /* free vertices a road touches */
} setup_plan;

static inline int setup_edges(const catan_board *board, const catan_state *s,
			      const setup_plan *sp, int v)
{
	const uint8_t *ve = board->vertex_edges[v];
	if (!((sp->touched[v >> 6] >> (v & 63)) & 1))
		return (ve[0] != CATAN_NONE) + (ve[1] != CATAN_NONE) +
		       (ve[2] != CATAN_NONE);
	int n = 0;
	for (int i = 0; i < 3; i++)
		n += ve[i] != CATAN_NONE && !catan_eset_has(&s->roads, ve[i]);
	return n;
}

/* The edges of the untouched free vertices of word w. */
static inline int setup_plain(const catan_board *board, const setup_plan *sp,
			      int w)
{
	uint64_t plain = sp->free[w] & ~sp->touched[w];
	return catan_popcount64(plain & board->vertex_deg[0].w[w]) +
	       2 * catan_popcount64(plain & board->vertex_deg[1].w[w]);
}

static int setup_count(setup_plan *sp, const catan_board *board,
		       const catan_state *s)
{
	int n = 0;
	for (int w = 0; w < CATAN_VWORDS; w++) {
		int hi = board->nvertices - 64 * w;
		uint64_t valid = hi >= 64 ? ~0ull
				 : hi > 0 ? (1ull << hi) - 1
					  : 0;
		sp->free[w] = valid & ~s->blocked.w[w];
		sp->touched[w] = 0;
	}
	CATAN_FOR_BITS(e, s->roads.w, CATAN_EWORDS)
	{
		for (int i = 0; i < 2; i++) {
			int v = board->edge_vertices[e][i];
			sp->touched[v >> 6] |= 1ull << (v & 63);
		}
	}
	for (int w = 0; w < CATAN_VWORDS; w++) {
		sp->touched[w] &= sp->free[w];
		n += setup_plain(board, sp, w);
	}
	CATAN_FOR_BITS(v, sp->touched, CATAN_VWORDS)
	{
		n += setup_edges(board, s, sp, v);
	}
	return n;
}

static void setup_nth(catan_action *out, const setup_plan *sp,
		      const catan_board *board, const catan_state *s, int k)
{
	for (int w = 0; w < CATAN_VWORDS; w++) {
		if (!sp->touched[w]) { /* a whole word skipped at once */
			int c = setup_plain(board, sp, w);
			if (k >= c) {
				k -= c;
				continue;
			}
		}
		/* Whole groups of 8 untouched vertices by byte counts. */
		uint64_t m = sp->free[w];
		for (int from = 0; from < 64; from += 8) {
			uint64_t bits = 0xffull << from;
			if (!(m & bits))
				continue;
			if (sp->touched[w] & bits)
				break;
			uint64_t plain = m & bits;
			int c =
			    ones8[(plain & board->vertex_deg[0].w[w]) >> from] +
			    2 * ones8[(plain & board->vertex_deg[1].w[w]) >>
				      from];
			if (k < c)
				break;
			k -= c;
			m &= ~bits;
		}
		for (; m; m &= m - 1) {
			int v = 64 * w + __builtin_ctzll(m);
			int c = setup_edges(board, s, sp, v);
			if (k >= c) {
				k -= c;
				continue;
			}
			for (int i = 0; i < 3; i++) {
				int e = board->vertex_edges[v][i];
				if (e == CATAN_NONE ||
				    catan_eset_has(&s->roads, e) || k-- != 0)
					continue;
				blank(out, CATAN_ACT_SETUP);
				out->vertex = (uint8_t)v;
				out->edge = (uint8_t)e;
				return;
			}
		}
	}
}

static inline __attribute__((always_inline)) int
legal_random(catan_action *out, const catan_board *b, const catan_state *s,
	     int actor, unsigned flags, catan_rng *rng, int cap)
{
	if (actor < 0 || actor >= s->opt.nplayers || !may_act(s, actor))
		return 0;
	if (s->opt.dice == CATAN_DICE_MANUAL)
		return -1; /* dice, cards and steals stated: the full list */
	const catan_player *pl = &s->players[actor];
	plan pn;
	pn.m = pn.total = 0;
	switch (s->phase) {
	case CATAN_PHASE_SETUP: {
		setup_plan sp;
		int n = setup_count(&sp, b, s);
		if (n == 0 || n > cap)
			return n ? -1 : 0;
		setup_nth(out, &sp, b, s,
			  (int)catan_rng_below(rng, (uint32_t)n));
		return n;
	}
	case CATAN_PHASE_ROLL:
		if (!card_playable(s, pl)) { /* the usual case: roll */
			catan_rng_below(rng, 1);
			blank(out, CATAN_ACT_ROLL);
			return 1;
		}
		add(&pn, SEC_ROLL, 1);
		card_count(&pn, b, s, actor);
		break;
	case CATAN_PHASE_ROBBER:
		add(&pn, SEC_ROBBER, robber_count(&pn.robber, b, s, actor));
		break;
	case CATAN_PHASE_MAIN:
	case CATAN_PHASE_TRADE:
	case CATAN_PHASE_BUILD: {
		/*
		 * Half the time only the end is legal: no count of 2 (no
		 * bank trade, no city), no road (so no settlement), no card
		 * bought or played, no offer.
		 */
		uint64_t hand5 = pack5(pl->hand);
		if (!at_least5(hand5, 2) &&
		    !covers5(hand5 | CATAN_TOP5, CATAN_COST5_ROAD) &&
		    !covers5(hand5 | CATAN_TOP5, CATAN_COST5_DEV) &&
		    !card_playable(s, pl) &&
		    ((flags & CATAN_LEGAL_NO_OFFERS) || !pl->ncards) &&
		    cap >= 1) {
			catan_rng_below(rng, 1);
			blank(out, s->phase == CATAN_PHASE_TRADE
				       ? CATAN_ACT_END_TRADE
				       : CATAN_ACT_END);
			return 1;
		}
		if (phase_allows_trade(s->phase)) {
			add(&pn, SEC_BANK, bank_count(s, pl, hand5));
			if (!(flags & CATAN_LEGAL_NO_OFFERS))
				add(&pn, SEC_OFFER, offer_count(s, pl));
		}
		if (phase_allows_build(s->phase))
			build_count(&pn, b, s, actor);
		if (card_playable(s, pl))
			card_count(&pn, b, s, actor);
		add(&pn, SEC_END, 1);
		break;
	}
	case CATAN_PHASE_SPECIAL:
		build_count(&pn, b, s, actor);
		add(&pn, SEC_END, 1);
		break;
	default:
		return -1;
	}
	int n = pn.total, i = 0;
	if (n == 0 || n > cap)
		return n ? -1 : 0;
	int k = (int)catan_rng_below(rng, (uint32_t)n);
	while (k >= pn.n[i])
		k -= pn.n[i++];
	switch (pn.sec[i]) {
	case SEC_ROLL:
		blank(out, CATAN_ACT_ROLL);
		break;
	case SEC_ROBBER:
		robber_nth(out, &pn.robber, CATAN_ACT_ROBBER, k);
		break;
	case SEC_BANK:
		bank_nth(out, s, pl, k);
		break;
	case SEC_OFFER:
		offer_nth(out, s, actor, k);
		break;
	case SEC_ROAD:
		blank(out, CATAN_ACT_BUILD_ROAD);
		out->edge = (uint8_t)nth_bit(pn.roads.w, CATAN_EWORDS, k);
		break;
	case SEC_SETTLEMENT:
		blank(out, CATAN_ACT_BUILD_SETTLEMENT);
		out->vertex = (uint8_t)nth_bit(pn.settlements, CATAN_VWORDS, k);
		break;
	case SEC_CITY:
		blank(out, CATAN_ACT_BUILD_CITY);
		out->vertex =
		    (uint8_t)nth_bit(pl->settlements.w, CATAN_VWORDS, k);
		break;
	case SEC_DEV:
		blank(out, CATAN_ACT_BUY_DEV);
		break;
	case SEC_KNIGHT:
		robber_nth(out, &pn.robber, CATAN_ACT_PLAY_KNIGHT, k);
		break;
	case SEC_ROAD_BUILDING:
		road_building_walk(out, b, s, actor, &pn.first, k);
		break;
	case SEC_PLENTY:
		plenty_walk(out, s, k);
		break;
	case SEC_MONOPOLY:
		blank(out, CATAN_ACT_PLAY_MONOPOLY);
		out->res = (uint8_t)k;
		break;
	default:
		blank(out, s->phase == CATAN_PHASE_TRADE ? CATAN_ACT_END_TRADE
							 : CATAN_ACT_END);
		break;
	}
	return n;
}

int catan_legal_random(catan_action *out, const catan_board *b,
		       const catan_state *s, int actor, unsigned flags,
		       catan_rng *rng, int cap)
{
	return legal_random(out, b, s, actor, flags, rng, cap);
}

/* The draw from the full list, where legal_random() leaves it. */
static __attribute__((noinline)) int
draw_from_list(catan_action *out, const catan_board *b, const catan_state *s,
	       int actor, unsigned flags, catan_rng *rng)
{
	catan_action buf[CATAN_BOT_BUF];
	int n = catan_legal_actions(buf, CATAN_BOT_BUF, b, s, actor, flags);
	if (n == 0)
		return CATAN_E_NOT_YOUR_TURN;
	if (n > CATAN_BOT_BUF)
		n = CATAN_BOT_BUF; /* cannot happen outside discards */
	*out = buf[catan_rng_below(rng, (uint32_t)n)];
	return CATAN_OK;
}

/*
 * The random bot's draw as one call (legal_random() inlined, the list
 * only where it gives up): the benchmark's and the playouts' hot path, so
 * the bot's call is a jump here rather than a frame of its own.
 */
static __attribute__((noinline)) int
draw_counted(catan_action *out, const catan_board *b, const catan_state *s,
	     int actor, unsigned flags, catan_rng *rng)
{
	int n = legal_random(out, b, s, actor, flags, rng, CATAN_BOT_BUF);
	if (n >= 0)
		return n ? CATAN_OK : CATAN_E_NOT_YOUR_TURN;
	return draw_from_list(out, b, s, actor, flags, rng);
}

int catan_legal_draw(catan_action *out, const catan_board *b,
		     const catan_state *s, int actor, unsigned flags,
		     catan_rng *rng)
{
	/*
	 * A third of the draws are a roll with no card to play (a list of
	 * one, as legal_random() draws it), taken here without the frame
	 * of the count, which the others get in a call of their own.
	 */
	if (s->phase == CATAN_PHASE_ROLL && actor == s->active &&
	    actor < s->opt.nplayers && s->opt.dice != CATAN_DICE_MANUAL &&
	    !card_playable(s, &s->players[actor])) {
		catan_rng_below(rng, 1);
		blank(out, CATAN_ACT_ROLL);
		return CATAN_OK;
	}
	return draw_counted(out, b, s, actor, flags, rng);
}
