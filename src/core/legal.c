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

#include "rules_internal.h"

typedef struct out_buf {
	catan_action *buf;
	int cap;
	int n;
	catan_action sink; /* takes the writes past the end of buf */
} out_buf;

static inline __attribute__((always_inline)) catan_action *push(out_buf *o,
								int kind)
{
	static const catan_action blank = {
		.vertex = CATAN_NONE,
		.edge = CATAN_NONE,
		.edge2 = CATAN_NONE,
		.tile = CATAN_NONE,
		.player = CATAN_NONE,
		.res = CATAN_NONE,
		.res2 = CATAN_NONE,
		.dev = CATAN_NONE,
	}; /* catan_action_init(), inlined for the hot path */
	catan_action *a = o->n < o->cap ? &o->buf[o->n] : &o->sink;
	o->n++;
	*a = blank;
	a->kind = (uint8_t)kind;
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

/* Most of the time there is no playable card at all. */
static inline bool card_playable(const catan_state *s, const catan_player *pl)
{
	return !s->dev_played &&
	       (pl->devs[0] | pl->devs[1] | pl->devs[2] | pl->devs[3]);
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
		if (q == p || (to != CATAN_NONE && q != to))
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

static void trade_moves(out_buf *o, const catan_state *s, int p,
			unsigned flags)
{
	const catan_player *pl = &s->players[p];
	/* Every rate the player may use, the best first. */
	bool generic = pl->harbours & (1u << CATAN_HARBOUR_GENERIC);
	for (int g = 0; g < CATAN_RES_COUNT; g++) {
		/* The best rate first: 2 with g's harbour, 3 with a generic. */
		int low = pl->harbours & (1u << g) ? 2 : generic ? 3 : 4;
		for (int rate = low; rate <= 4 && pl->hand[g] >= rate; rate++) {
			if (!bank_rate_ok(pl, g, rate))
				continue;
			for (int w = 0; w < CATAN_RES_COUNT; w++) {
				if (w == g || !s->bank[w])
					continue;
				catan_action *a = push(o, CATAN_ACT_TRADE_BANK);
				a->res = (uint8_t)g;
				a->count = (uint8_t)rate;
				a->res2 = (uint8_t)w;
			}
		}
	}
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
