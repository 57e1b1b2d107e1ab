/*
 * translate.c - between the protocol and the rules: a seat's VIEW of a
 * state (hidden cards as counts), a move message as a catan_action, and
 * the seed's "minimum viable move". Pure: no I/O, no allocation.
 */
#include <stdio.h>
#include <string.h>

#include "catan/agent.h"

/* Index of catan_res r in a wire-ordered array of five. */
static int wi(int r)
{
	return catan_wire_res(r) - 1;
}

static catan_wpos tile_pos(const catan_board *b, int t)
{
	catan_wpos p = {b->tile_hex[t].q, b->tile_hex[t].r, 0};
	return p;
}

static catan_wpos vertex_pos(const catan_board *b, int v)
{
	catan_wpos p = {b->vertex_hex[v].q, b->vertex_hex[v].r,
			b->vertex_dir[v]};
	return p;
}

static catan_wpos edge_pos(const catan_board *b, int e)
{
	catan_wpos p = {b->edge_hex[e].q, b->edge_hex[e].r, b->edge_dir[e]};
	return p;
}

void catan_agent_view(catan_msg *out, const catan_board *b,
		      const catan_state *s, int you)
{
	catan_msg_view *v = &out->u.view;
	memset(out, 0, sizeof *out);
	out->type = CATAN_MSG_VIEW;
	v->phase = s->phase;
	v->active = s->phase == CATAN_PHASE_SPECIAL ? s->builder : s->active;
	v->you = (uint8_t)you;
	v->turn = s->turn;
	v->dice[0] = s->dice[0];
	v->dice[1] = s->dice[1];
	v->robber = tile_pos(b, s->robber);
	v->vp_target = s->opt.vp_target;
	v->dev_played = s->dev_played ? 1 : 0;
	v->longest_road = s->longest_road;
	v->largest_army = s->largest_army;
	int deck = 0;
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		deck += s->deck[d];
	v->deck = (uint8_t)deck;
	v->offer_from = v->offer_to = CATAN_WIRE_NOBODY;
	if (s->phase == CATAN_PHASE_OFFER) {
		v->offer_from = s->offer_from;
		v->offer_to = s->offer_to;
	}
	const catan_player *me = &s->players[you];
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		v->bank[wi(r)] = s->bank[r];
		v->hand[wi(r)] = me->hand[r];
		if (s->phase == CATAN_PHASE_OFFER) {
			v->offer_give[wi(r)] = s->offer_give[r];
			v->offer_get[wi(r)] = s->offer_get[r];
		}
	}
	for (int d = 0; d < CATAN_DEV_COUNT; d++) {
		v->devs[d] = me->devs[d];
		v->bought[d] = s->active == you ? s->bought[d] : 0;
	}
	v->nplayers = s->opt.nplayers;
	for (int p = 0; p < s->opt.nplayers; p++) {
		const catan_player *pl = &s->players[p];
		int devs = 0;
		for (int d = 0; d < CATAN_DEV_COUNT; d++)
			devs += pl->devs[d];
		v->players[p].cards = pl->ncards;
		v->players[p].devcards = (uint8_t)devs;
		v->players[p].knights = pl->knights;
		v->players[p].public_vp = pl->public_vp;
		v->players[p].road_length = pl->road_length;
		v->players[p].discard = s->discard[p];
		v->players[p].roads_left = pl->roads_left;
		v->players[p].settlements_left = pl->settlements_left;
		v->players[p].cities_left = pl->cities_left;
		unsigned h = 0;
		for (int k = 0; k < CATAN_HARBOUR_KINDS; k++)
			if (pl->harbours >> k & 1)
				h |= 1u << (k == CATAN_HARBOUR_GENERIC
						? CATAN_WIRE_ANY
						: catan_wire_res(k));
		v->players[p].harbours = (uint8_t)h;
		CATAN_FOR_BITS(e, pl->roads.w, CATAN_EWORDS)
		{
			if (v->nroads < CATAN_WIRE_MAX_ROADS) {
				v->roads[v->nroads].pos = edge_pos(b, e);
				v->roads[v->nroads].owner = (uint8_t)p;
				v->nroads++;
			}
		}
	}
	for (int x = 0; x < b->nvertices; x++) {
		int o = s->building[x];
		if (!o || v->nbuildings >= CATAN_WIRE_MAX_BUILDINGS)
			continue;
		v->buildings[v->nbuildings].pos = vertex_pos(b, x);
		v->buildings[v->nbuildings].owner =
		    (uint8_t)((o & ~CATAN_CITY_BIT) - 1);
		v->buildings[v->nbuildings].kind = o & CATAN_CITY_BIT
						       ? CATAN_WIRE_CITY
						       : CATAN_WIRE_SETTLEMENT;
		v->nbuildings++;
	}
}

/* ---- a move message as an action ---- */

#define FAIL(...)                                                              \
	do {                                                                   \
		if (why && whysize)                                            \
			snprintf(why, whysize, __VA_ARGS__);                   \
		return CATAN_E_BAD_ACTION;                                     \
	} while (0)

static bool is_none(catan_wpos p)
{
	return p.q == CATAN_WIRE_NOPOS;
}

int catan_agent_msg_action(catan_action *out, const catan_board *b,
			   const catan_state *s, int actor, const catan_msg *m,
			   char *why, size_t whysize)
{
	catan_action a;
	int n = s->opt.nplayers;
	switch (m->type) {
	case CATAN_MSG_PLACE: {
		catan_wpos h = m->u.place.house, r = m->u.place.road;
		catan_action_init(&a, CATAN_ACT_SETUP);
		int v = is_none(h) ? -1 : catan_board_vertex(b, h.q, h.r, h.d);
		int e = is_none(r) ? -1 : catan_board_edge(b, r.q, r.r, r.d);
		if (v < 0)
			FAIL("PLACE: no vertex %d,%d,%u on this board", h.q,
			     h.r, h.d);
		if (e < 0)
			FAIL("PLACE: no edge %d,%d,%u on this board", r.q, r.r,
			     r.d);
		a.vertex = (uint8_t)v;
		a.edge = (uint8_t)e;
		break;
	}
	case CATAN_MSG_ROLL:
		catan_action_init(&a, CATAN_ACT_ROLL);
		break;
	case CATAN_MSG_DISCARD:
		catan_action_init(&a, CATAN_ACT_DISCARD);
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			a.give[r] = m->u.discard.cards[wi(r)];
		break;
	case CATAN_MSG_ROB:
	case CATAN_MSG_PLAY: {
		bool knight = m->type == CATAN_MSG_PLAY;
		if (knight && m->u.play.player_id != actor)
			FAIL("PLAY: player_id %u is not you (%d)",
			     m->u.play.player_id, actor);
		if (knight && m->u.play.card != CATAN_DEV_KNIGHT)
			goto play;
		catan_wpos t = knight ? m->u.play.tile : m->u.rob.tile;
		int victim = knight ? m->u.play.target : m->u.rob.target_id;
		int tile = catan_board_tile(b, t.q, t.r);
		catan_action_init(&a, knight ? CATAN_ACT_PLAY_KNIGHT
					     : CATAN_ACT_ROBBER);
		if (tile < 0)
			FAIL("%s: no tile %d,%d on this board",
			     catan_msg_name(m->type), t.q, t.r);
		if (victim != CATAN_WIRE_NOBODY && victim >= n)
			FAIL("%s: no player %d", catan_msg_name(m->type),
			     victim);
		a.tile = (uint8_t)tile;
		a.player = (uint8_t)(victim == CATAN_WIRE_NOBODY ? CATAN_NONE
								 : victim);
		break;
	}
	case CATAN_MSG_BUILD: {
		catan_wpos p = m->u.build.pos;
		if (m->u.build.player_id != actor)
			FAIL("BUILD: player_id %u is not you (%d)",
			     m->u.build.player_id, actor);
		if (m->u.build.type == CATAN_WIRE_DEVCARD) {
			catan_action_init(&a, CATAN_ACT_BUY_DEV);
		} else if (m->u.build.type == CATAN_WIRE_ROAD) {
			int e = is_none(p) ? -1
					   : catan_board_edge(b, p.q, p.r, p.d);
			if (e < 0)
				FAIL("BUILD: no edge %d,%d,%u on this board",
				     p.q, p.r, p.d);
			catan_action_init(&a, CATAN_ACT_BUILD_ROAD);
			a.edge = (uint8_t)e;
		} else {
			int v = is_none(p)
				    ? -1
				    : catan_board_vertex(b, p.q, p.r, p.d);
			if (v < 0)
				FAIL("BUILD: no vertex %d,%d,%u on this board",
				     p.q, p.r, p.d);
			catan_action_init(&a, m->u.build.type == CATAN_WIRE_CITY
						  ? CATAN_ACT_BUILD_CITY
						  : CATAN_ACT_BUILD_SETTLEMENT);
			a.vertex = (uint8_t)v;
		}
		break;
	}
	case CATAN_MSG_TRADE: {
		int give = catan_res_from_wire(m->u.trade.offer_res);
		int get = catan_res_from_wire(m->u.trade.ask_res);
		int gc = m->u.trade.offer_count, ac = m->u.trade.ask_count;
		if (m->u.trade.player_id != actor)
			FAIL("TRADE: player_id %u is not you (%d)",
			     m->u.trade.player_id, actor);
		if (give == CATAN_NONE || get == CATAN_NONE || give == get)
			FAIL("TRADE: want two different resources, not ANY");
		if (gc < 1 || gc > 99 || ac < 1 || ac > 99)
			FAIL("TRADE: counts %d and %d (want 1..99)", gc, ac);
		/* A counter-offer from the target of a pending offer: it
		 * declines the offer; the runtime passes the counter on. */
		if (s->phase == CATAN_PHASE_OFFER && s->offer_to == actor) {
			if (m->u.trade.target_id != s->offer_from)
				FAIL("TRADE: a counter-offer goes to the "
				     "offerer (%d), not %u",
				     s->offer_from, m->u.trade.target_id);
			catan_action_init(&a, CATAN_ACT_TRADE_REJECT);
			break;
		}
		if (m->u.trade.target_id == CATAN_WIRE_BANK) {
			if (ac != 1)
				FAIL("TRADE with the bank: ask for one card, "
				     "not %d",
				     ac);
			catan_action_init(&a, CATAN_ACT_TRADE_BANK);
			a.res = (uint8_t)give;
			a.count = (uint8_t)gc;
			a.res2 = (uint8_t)get;
			break;
		}
		if (m->u.trade.target_id >= n)
			FAIL("TRADE: no player %u", m->u.trade.target_id);
		catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
		a.player = m->u.trade.target_id;
		a.give[give] = (uint8_t)gc;
		a.get[get] = (uint8_t)ac;
		break;
	}
	case CATAN_MSG_TRADE_ACCEPT:
	case CATAN_MSG_TRADE_REJECT:
		if (s->phase != CATAN_PHASE_OFFER ||
		    m->u.answer.player_id != s->offer_from ||
		    m->u.answer.target_id != actor)
			FAIL("%s (%u, %u) answers no pending offer to you",
			     catan_msg_name(m->type), m->u.answer.player_id,
			     m->u.answer.target_id);
		catan_action_init(&a, m->type == CATAN_MSG_TRADE_ACCEPT
					  ? CATAN_ACT_TRADE_ACCEPT
					  : CATAN_ACT_TRADE_REJECT);
		break;
	case CATAN_MSG_PASS:
		catan_action_init(&a, s->phase == CATAN_PHASE_TRADE
					  ? CATAN_ACT_END_TRADE
					  : CATAN_ACT_END);
		break;
	default:
		FAIL("%s is not a move", catan_msg_name(m->type));
	}
	*out = a;
	return CATAN_OK;

play:
	switch (m->u.play.card) {
	case CATAN_DEV_ROAD_BUILDING: {
		catan_wpos p = m->u.play.road1, q = m->u.play.road2;
		int e1 = is_none(p) ? -1 : catan_board_edge(b, p.q, p.r, p.d);
		int e2 = is_none(q) ? CATAN_NONE
				    : catan_board_edge(b, q.q, q.r, q.d);
		if (e1 < 0 || e2 < 0)
			FAIL("PLAY road building: a road not on this board");
		catan_action_init(&a, CATAN_ACT_PLAY_ROAD_BUILDING);
		a.edge = (uint8_t)e1;
		a.edge2 = (uint8_t)e2;
		break;
	}
	case CATAN_DEV_YEAR_OF_PLENTY: {
		int r1 = catan_res_from_wire(m->u.play.res1);
		if (r1 == CATAN_NONE)
			FAIL("PLAY year of plenty: the first resource is ANY");
		catan_action_init(&a, CATAN_ACT_PLAY_YEAR_OF_PLENTY);
		a.res = (uint8_t)r1;
		a.res2 = (uint8_t)catan_res_from_wire(m->u.play.res2);
		break;
	}
	case CATAN_DEV_MONOPOLY: {
		int r1 = catan_res_from_wire(m->u.play.res1);
		if (r1 == CATAN_NONE)
			FAIL("PLAY monopoly: the resource is ANY");
		catan_action_init(&a, CATAN_ACT_PLAY_MONOPOLY);
		a.res = (uint8_t)r1;
		break;
	}
	default:
		FAIL("PLAY: a victory point card is never played");
	}
	*out = a;
	return CATAN_OK;
}

int catan_agent_mvm(catan_action *out, const catan_board *b,
		    const catan_state *s, int actor)
{
	catan_action buf[512];
	int n =
	    catan_legal_actions(buf, 512, b, s, actor, CATAN_LEGAL_NO_OFFERS);
	if (n <= 0)
		return CATAN_E_NOT_YOUR_TURN;
	if (n > 512)
		n = 512;
	static const uint8_t simplest[] = {CATAN_ACT_END, CATAN_ACT_ROLL,
					   CATAN_ACT_TRADE_REJECT,
					   CATAN_ACT_END_TRADE};
	for (size_t k = 0; k < sizeof simplest; k++)
		for (int i = 0; i < n; i++)
			if (buf[i].kind == simplest[k]) {
				*out = buf[i];
				return CATAN_OK;
			}
	*out = buf[0];
	return CATAN_OK;
}
