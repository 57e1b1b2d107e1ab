/*
 * proto.c - the agent protocol's codec (spec/agents.md): catan_msg values
 * to bytes and back. Pure: no I/O, no allocation. The decoder is the one
 * reader of an agent's bytes and treats them as hostile: every length is
 * checked before a byte is read, every enumeration against its range.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "catan/agent.h"

/* ---- names and numbering ---- */

const char *catan_msg_name(int type)
{
	static const char *const names[CATAN_MSG_TYPE_END] = {
	    [CATAN_MSG_BEGIN] = "BEGIN",
	    [CATAN_MSG_SETUP] = "SETUP",
	    [CATAN_MSG_KICK] = "KICK",
	    [CATAN_MSG_END] = "END",
	    [CATAN_MSG_HELLO] = "HELLO",
	    [CATAN_MSG_VIEW] = "VIEW",
	    [CATAN_MSG_TURN] = "TURN",
	    [CATAN_MSG_ROLL] = "ROLL",
	    [CATAN_MSG_ROLL_RESULT] = "ROLL_RESULT",
	    [CATAN_MSG_PLAY] = "PLAY",
	    [CATAN_MSG_BUILD] = "BUILD",
	    [CATAN_MSG_BUILD_RESULT] = "BUILD_RESULT",
	    [CATAN_MSG_TRADE] = "TRADE",
	    [CATAN_MSG_TRADE_ACCEPT] = "TRADE_ACCEPT",
	    [CATAN_MSG_TRADE_REJECT] = "TRADE_REJECT",
	    [CATAN_MSG_PASS] = "PASS",
	    [CATAN_MSG_ROB] = "ROB",
	    [CATAN_MSG_ROB_RESULT] = "ROB_RESULT",
	    [CATAN_MSG_PLACE] = "PLACE",
	    [CATAN_MSG_DISCARD] = "DISCARD",
	};
	return type >= 0 && type < CATAN_MSG_TYPE_END && names[type]
		   ? names[type]
		   : "?";
}

/* catan_res (lumber, brick, wool, grain, ore) -> wire (alphabetical). */
static const uint8_t to_wire[CATAN_RES_COUNT] = {
    CATAN_WIRE_LUMBER, CATAN_WIRE_BRICK, CATAN_WIRE_WOOL, CATAN_WIRE_GRAIN,
    CATAN_WIRE_ORE};

int catan_wire_res(int res)
{
	return res >= 0 && res < CATAN_RES_COUNT ? to_wire[res]
						 : CATAN_WIRE_ANY;
}

int catan_res_from_wire(int wire)
{
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		if (to_wire[r] == wire)
			return r;
	return CATAN_NONE;
}

/* ---- encoding ---- */

typedef struct wbuf {
	uint8_t *p;
	size_t cap, n;
	bool over;
} wbuf;

static void put8(wbuf *w, unsigned v)
{
	if (w->n < w->cap)
		w->p[w->n] = (uint8_t)v;
	else
		w->over = true;
	w->n++;
}

static void put16(wbuf *w, unsigned v)
{
	put8(w, v & 0xff);
	put8(w, (v >> 8) & 0xff);
}

static void put32(wbuf *w, uint32_t v)
{
	for (int k = 0; k < 4; k++)
		put8(w, (v >> (8 * k)) & 0xff);
}

static void put_tile(wbuf *w, catan_wpos p)
{
	put8(w, (uint8_t)p.q);
	put8(w, (uint8_t)p.r);
}

static void put_pos(wbuf *w, catan_wpos p)
{
	put_tile(w, p);
	put8(w, p.d);
}

static void put5(wbuf *w, const uint8_t *c)
{
	for (int k = 0; k < 5; k++)
		put8(w, c[k]);
}

static bool play_args(wbuf *w, const catan_msg *m)
{
	switch (m->u.play.card) {
	case CATAN_DEV_KNIGHT:
		put_tile(w, m->u.play.tile);
		put8(w, m->u.play.target);
		return true;
	case CATAN_DEV_ROAD_BUILDING:
		put_pos(w, m->u.play.road1);
		put_pos(w, m->u.play.road2);
		return true;
	case CATAN_DEV_YEAR_OF_PLENTY:
		put8(w, m->u.play.res1);
		put8(w, m->u.play.res2);
		return true;
	case CATAN_DEV_MONOPOLY:
		put8(w, m->u.play.res1);
		return true;
	case CATAN_DEV_VICTORY_POINT:
		return true;
	}
	return false;
}

static bool encode_view(wbuf *w, const catan_msg_view *v)
{
	if (v->nplayers > CATAN_MAX_PLAYERS ||
	    v->nbuildings > CATAN_WIRE_MAX_BUILDINGS ||
	    v->nroads > CATAN_WIRE_MAX_ROADS)
		return false;
	put8(w, v->phase);
	put8(w, v->active);
	put8(w, v->you);
	put16(w, v->turn);
	put8(w, v->dice[0]);
	put8(w, v->dice[1]);
	put_tile(w, v->robber);
	put8(w, v->vp_target);
	put8(w, v->dev_played);
	put8(w, v->longest_road);
	put8(w, v->largest_army);
	put5(w, v->bank);
	put8(w, v->deck);
	put8(w, v->offer_from);
	put8(w, v->offer_to);
	put5(w, v->offer_give);
	put5(w, v->offer_get);
	put5(w, v->hand);
	put5(w, v->devs);
	put5(w, v->bought);
	put8(w, v->nplayers);
	for (int p = 0; p < v->nplayers; p++) {
		put8(w, v->players[p].cards);
		put8(w, v->players[p].devcards);
		put8(w, v->players[p].knights);
		put8(w, v->players[p].public_vp);
		put8(w, v->players[p].road_length);
		put8(w, v->players[p].discard);
		put8(w, v->players[p].roads_left);
		put8(w, v->players[p].settlements_left);
		put8(w, v->players[p].cities_left);
		put8(w, v->players[p].harbours);
	}
	put8(w, v->nbuildings);
	for (int i = 0; i < v->nbuildings; i++) {
		put_pos(w, v->buildings[i].pos);
		put8(w, v->buildings[i].owner);
		put8(w, v->buildings[i].kind);
	}
	put8(w, v->nroads);
	for (int i = 0; i < v->nroads; i++) {
		put_pos(w, v->roads[i].pos);
		put8(w, v->roads[i].owner);
	}
	return true;
}

int catan_msg_encode(uint8_t *buf, size_t cap, const catan_msg *m,
		     const catan_msg_begin *begin)
{
	wbuf w = {buf, cap, 0, false};
	put8(&w, m->type);
	switch (m->type) {
	case CATAN_MSG_BEGIN:
		put32(&w, m->u.begin.timeout_secs);
		put32(&w, m->u.begin.thread_limit);
		put32(&w, m->u.begin.memory_limit);
		put8(&w, m->u.begin.board_radius);
		put8(&w, m->u.begin.player_id);
		put32(&w, m->u.begin.cell_count);
		put32(&w, m->u.begin.harbour_count);
		put32(&w, m->u.begin.player_count);
		break;
	case CATAN_MSG_SETUP:
		if (!begin || begin->cell_count > CATAN_WIRE_MAX_CELLS ||
		    begin->harbour_count > CATAN_WIRE_MAX_HARBOURS ||
		    begin->player_count > CATAN_MAX_PLAYERS)
			return CATAN_MSG_BAD;
		for (uint32_t i = 0; i < begin->cell_count; i++) {
			put_tile(&w, m->u.setup.cells[i].pos);
			put8(&w, m->u.setup.cells[i].type);
			put8(&w, m->u.setup.cells[i].counter);
		}
		for (uint32_t i = 0; i < begin->harbour_count; i++) {
			put_pos(&w, m->u.setup.harbours[i].vert1);
			put_pos(&w, m->u.setup.harbours[i].vert2);
			put8(&w, m->u.setup.harbours[i].resource);
			put8(&w, m->u.setup.harbours[i].cost);
		}
		for (uint32_t i = 0; i < begin->player_count; i++) {
			put8(&w, m->u.setup.players[i].id);
			put_pos(&w, m->u.setup.players[i].house1);
			put_pos(&w, m->u.setup.players[i].road1);
			put_pos(&w, m->u.setup.players[i].house2);
			put_pos(&w, m->u.setup.players[i].road2);
			for (int k = 0; k < 3; k++)
				put8(&w,
				     m->u.setup.players[i].starting_hand[k]);
		}
		break;
	case CATAN_MSG_KICK:
		put8(&w, m->u.kick.kick_id);
		break;
	case CATAN_MSG_END:
		put8(&w, m->u.end.winner_id);
		break;
	case CATAN_MSG_HELLO:
		put8(&w, 'C');
		put8(&w, 'A');
		put8(&w, 'T');
		put8(&w, 'N');
		put16(&w, m->u.hello.version);
		break;
	case CATAN_MSG_VIEW:
		if (!encode_view(&w, &m->u.view))
			return CATAN_MSG_BAD;
		break;
	case CATAN_MSG_TURN:
		put8(&w, m->u.turn.player_id);
		break;
	case CATAN_MSG_ROLL:
	case CATAN_MSG_PASS:
		break;
	case CATAN_MSG_ROLL_RESULT:
		put8(&w, m->u.roll_result.roll);
		break;
	case CATAN_MSG_PLAY:
		put8(&w, m->u.play.player_id);
		put8(&w, m->u.play.card);
		if (!play_args(&w, m))
			return CATAN_MSG_BAD;
		break;
	case CATAN_MSG_BUILD:
		put8(&w, m->u.build.player_id);
		put8(&w, m->u.build.type);
		if (m->u.build.type > CATAN_WIRE_DEVCARD)
			return CATAN_MSG_BAD;
		if (m->u.build.type != CATAN_WIRE_DEVCARD)
			put_pos(&w, m->u.build.pos);
		break;
	case CATAN_MSG_BUILD_RESULT:
		put8(&w, m->u.build_result.type);
		if (m->u.build_result.type == CATAN_WIRE_DEVCARD)
			put8(&w, m->u.build_result.card);
		break;
	case CATAN_MSG_TRADE:
		put8(&w, m->u.trade.player_id);
		put8(&w, m->u.trade.target_id);
		put8(&w, m->u.trade.offer_res);
		put8(&w, m->u.trade.offer_count);
		put8(&w, m->u.trade.ask_res);
		put8(&w, m->u.trade.ask_count);
		break;
	case CATAN_MSG_TRADE_ACCEPT:
	case CATAN_MSG_TRADE_REJECT:
		put8(&w, m->u.answer.player_id);
		put8(&w, m->u.answer.target_id);
		break;
	case CATAN_MSG_ROB:
		put_tile(&w, m->u.rob.tile);
		put8(&w, m->u.rob.target_id);
		break;
	case CATAN_MSG_ROB_RESULT:
		put8(&w, m->u.rob_result.player_id);
		put8(&w, m->u.rob_result.target_id);
		put8(&w, m->u.rob_result.card);
		break;
	case CATAN_MSG_PLACE:
		put_pos(&w, m->u.place.house);
		put_pos(&w, m->u.place.road);
		break;
	case CATAN_MSG_DISCARD:
		put5(&w, m->u.discard.cards);
		break;
	default:
		return CATAN_MSG_BAD;
	}
	return w.over || w.n > (size_t)CATAN_MSG_MAX ? CATAN_MSG_BAD : (int)w.n;
}

/* ---- decoding ---- */

typedef struct rbuf {
	const uint8_t *p;
	size_t len, n;
	bool short_; /* ran out of bytes */
	bool bad;    /* a field out of range */
	char *why;
	size_t whysize;
} rbuf;

static void bad(rbuf *r, const char *fmt, ...)
{
	if (r->bad || r->short_)
		return;
	r->bad = true;
	if (r->why && r->whysize) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->why, r->whysize, fmt, ap);
		va_end(ap);
	}
}

static unsigned get8(rbuf *r)
{
	if (r->n >= r->len) {
		r->short_ = true;
		r->n++;
		return 0;
	}
	return r->p[r->n++];
}

static unsigned get16(rbuf *r)
{
	unsigned lo = get8(r);
	return lo | get8(r) << 8;
}

static uint32_t get32(rbuf *r)
{
	uint32_t v = 0;
	for (int k = 0; k < 4; k++)
		v |= (uint32_t)get8(r) << (8 * k);
	return v;
}

static catan_wpos get_tile(rbuf *r)
{
	catan_wpos p;
	p.q = (int8_t)get8(r);
	p.r = (int8_t)get8(r);
	p.d = 0;
	return p;
}

/* A vertex (max_d 1) or edge (max_d 2), or the "none" position. */
static catan_wpos get_pos(rbuf *r, unsigned max_d, const char *what)
{
	size_t at = r->n;
	catan_wpos p = get_tile(r);
	p.d = (uint8_t)get8(r);
	if (p.q == CATAN_WIRE_NOPOS || p.r == CATAN_WIRE_NOPOS) {
		if (p.q != p.r || p.d != 0)
			bad(r,
			    "byte %zu: %s (%d,%d,%u): a position with -128 "
			    "must be exactly -128,-128,0 (none)",
			    at, what, p.q, p.r, p.d);
	} else if (p.d > max_d) {
		bad(r, "byte %zu: %s direction %u (want 0..%u)", at + 2, what,
		    p.d, max_d);
	}
	return p;
}

static uint8_t get_enum(rbuf *r, unsigned lo, unsigned hi, const char *what)
{
	size_t at = r->n;
	unsigned v = get8(r);
	if (v < lo || v > hi)
		bad(r, "byte %zu: %s %u (want %u..%u)", at, what, v, lo, hi);
	return (uint8_t)v;
}

static void get5(rbuf *r, uint8_t *c, unsigned max, const char *what)
{
	for (int k = 0; k < 5; k++) {
		size_t at = r->n;
		c[k] = (uint8_t)get8(r);
		if (c[k] > max)
			bad(r, "byte %zu: %s count %u (at most %u)", at, what,
			    c[k], max);
	}
}

static void decode_view(rbuf *r, catan_msg_view *v)
{
	v->phase = get_enum(r, 0, CATAN_PHASE_COUNT - 1, "phase");
	v->active = (uint8_t)get8(r);
	v->you = (uint8_t)get8(r);
	v->turn = (uint16_t)get16(r);
	v->dice[0] = get_enum(r, 0, 6, "die");
	v->dice[1] = get_enum(r, 0, 6, "die");
	v->robber = get_tile(r);
	v->vp_target = (uint8_t)get8(r);
	v->dev_played = get_enum(r, 0, 1, "dev_played");
	v->longest_road = (uint8_t)get8(r);
	v->largest_army = (uint8_t)get8(r);
	get5(r, v->bank, 255, "bank");
	v->deck = (uint8_t)get8(r);
	v->offer_from = (uint8_t)get8(r);
	v->offer_to = (uint8_t)get8(r);
	get5(r, v->offer_give, 255, "offer");
	get5(r, v->offer_get, 255, "offer");
	get5(r, v->hand, 255, "hand");
	get5(r, v->devs, 255, "devcards");
	get5(r, v->bought, 255, "bought");
	size_t at = r->n;
	v->nplayers = (uint8_t)get8(r);
	if (v->nplayers > CATAN_MAX_PLAYERS)
		bad(r, "byte %zu: %u players (at most %d)", at, v->nplayers,
		    CATAN_MAX_PLAYERS);
	for (int p = 0; p < v->nplayers && !r->bad && !r->short_; p++) {
		v->players[p].cards = (uint8_t)get8(r);
		v->players[p].devcards = (uint8_t)get8(r);
		v->players[p].knights = (uint8_t)get8(r);
		v->players[p].public_vp = (uint8_t)get8(r);
		v->players[p].road_length = (uint8_t)get8(r);
		v->players[p].discard = (uint8_t)get8(r);
		v->players[p].roads_left = (uint8_t)get8(r);
		v->players[p].settlements_left = (uint8_t)get8(r);
		v->players[p].cities_left = (uint8_t)get8(r);
		v->players[p].harbours = (uint8_t)get8(r);
	}
	at = r->n;
	v->nbuildings = (uint8_t)get8(r);
	if (v->nbuildings > CATAN_WIRE_MAX_BUILDINGS)
		bad(r, "byte %zu: %u buildings (at most %d)", at, v->nbuildings,
		    CATAN_WIRE_MAX_BUILDINGS);
	for (int i = 0; i < v->nbuildings && !r->bad && !r->short_; i++) {
		v->buildings[i].pos = get_pos(r, 1, "building vertex");
		v->buildings[i].owner = (uint8_t)get8(r);
		v->buildings[i].kind = get_enum(r, CATAN_WIRE_SETTLEMENT,
						CATAN_WIRE_CITY, "building");
	}
	at = r->n;
	v->nroads = (uint8_t)get8(r);
	if (v->nroads > CATAN_WIRE_MAX_ROADS)
		bad(r, "byte %zu: %u roads (at most %d)", at, v->nroads,
		    CATAN_WIRE_MAX_ROADS);
	for (int i = 0; i < v->nroads && !r->bad && !r->short_; i++) {
		v->roads[i].pos = get_pos(r, 2, "road edge");
		v->roads[i].owner = (uint8_t)get8(r);
	}
}

static void decode_setup(rbuf *r, catan_msg_setup *s, const catan_msg_begin *b)
{
	for (uint32_t i = 0; i < b->cell_count && !r->bad && !r->short_; i++) {
		s->cells[i].pos = get_tile(r);
		s->cells[i].type =
		    get_enum(r, 0, CATAN_WIRE_DESERT, "tile type");
		s->cells[i].counter = get_enum(r, 0, 12, "counter");
	}
	for (uint32_t i = 0; i < b->harbour_count && !r->bad && !r->short_;
	     i++) {
		s->harbours[i].vert1 = get_pos(r, 1, "harbour vertex");
		s->harbours[i].vert2 = get_pos(r, 1, "harbour vertex");
		s->harbours[i].resource =
		    get_enum(r, 0, CATAN_WIRE_WOOL, "harbour resource");
		s->harbours[i].cost = get_enum(r, 2, 4, "harbour cost");
	}
	for (uint32_t i = 0; i < b->player_count && !r->bad && !r->short_;
	     i++) {
		s->players[i].id = (uint8_t)get8(r);
		s->players[i].house1 = get_pos(r, 1, "house");
		s->players[i].road1 = get_pos(r, 2, "road");
		s->players[i].house2 = get_pos(r, 1, "house");
		s->players[i].road2 = get_pos(r, 2, "road");
		for (int k = 0; k < 3; k++)
			s->players[i].starting_hand[k] = get_enum(
			    r, 0, CATAN_WIRE_WOOL, "starting hand card");
	}
}

int catan_msg_decode(catan_msg *out, const uint8_t *buf, size_t len,
		     const catan_msg_begin *begin, char *why, size_t whysize)
{
	rbuf r = {buf, len, 0, false, false, why, whysize};
	catan_msg m;
	if (why && whysize)
		why[0] = 0;
	if (len == 0)
		return CATAN_MSG_SHORT;
	m.type = (uint8_t)get8(&r);
	switch (m.type) {
	case CATAN_MSG_BEGIN:
		m.u.begin.timeout_secs = get32(&r);
		m.u.begin.thread_limit = get32(&r);
		m.u.begin.memory_limit = get32(&r);
		m.u.begin.board_radius = (uint8_t)get8(&r);
		m.u.begin.player_id = (uint8_t)get8(&r);
		m.u.begin.cell_count = get32(&r);
		m.u.begin.harbour_count = get32(&r);
		m.u.begin.player_count = get32(&r);
		if (m.u.begin.cell_count > CATAN_WIRE_MAX_CELLS)
			bad(&r, "BEGIN: cell_count %u (at most %d)",
			    m.u.begin.cell_count, CATAN_WIRE_MAX_CELLS);
		if (m.u.begin.harbour_count > CATAN_WIRE_MAX_HARBOURS)
			bad(&r, "BEGIN: harbour_count %u (at most %d)",
			    m.u.begin.harbour_count, CATAN_WIRE_MAX_HARBOURS);
		if (m.u.begin.player_count < CATAN_MIN_PLAYERS ||
		    m.u.begin.player_count > CATAN_MAX_PLAYERS)
			bad(&r, "BEGIN: player_count %u (want %d..%d)",
			    m.u.begin.player_count, CATAN_MIN_PLAYERS,
			    CATAN_MAX_PLAYERS);
		break;
	case CATAN_MSG_SETUP:
		if (!begin) {
			bad(&r, "byte 0: SETUP before BEGIN");
			break;
		}
		if (begin->cell_count > CATAN_WIRE_MAX_CELLS ||
		    begin->harbour_count > CATAN_WIRE_MAX_HARBOURS ||
		    begin->player_count > CATAN_MAX_PLAYERS) {
			bad(&r, "byte 0: SETUP after a BEGIN with counts "
				"beyond capacity");
			break;
		}
		decode_setup(&r, &m.u.setup, begin);
		break;
	case CATAN_MSG_KICK:
		m.u.kick.kick_id = (uint8_t)get8(&r);
		break;
	case CATAN_MSG_END:
		m.u.end.winner_id = (uint8_t)get8(&r);
		break;
	case CATAN_MSG_HELLO: {
		static const char magic[4] = {'C', 'A', 'T', 'N'};
		for (int k = 0; k < 4; k++)
			if (get8(&r) != (unsigned)magic[k])
				bad(&r,
				    "byte %d: HELLO without the magic "
				    "\"CATN\"",
				    k + 1);
		m.u.hello.version = (uint16_t)get16(&r);
		break;
	}
	case CATAN_MSG_VIEW:
		decode_view(&r, &m.u.view);
		break;
	case CATAN_MSG_TURN:
		m.u.turn.player_id = (uint8_t)get8(&r);
		break;
	case CATAN_MSG_ROLL:
	case CATAN_MSG_PASS:
		break;
	case CATAN_MSG_ROLL_RESULT:
		m.u.roll_result.roll = get_enum(&r, 2, 12, "roll");
		break;
	case CATAN_MSG_PLAY:
		m.u.play.player_id = (uint8_t)get8(&r);
		m.u.play.card =
		    get_enum(&r, 0, CATAN_DEV_COUNT - 1, "development card");
		m.u.play.tile = (catan_wpos){0, 0, 0};
		m.u.play.target = CATAN_WIRE_NOBODY;
		m.u.play.road1 = m.u.play.road2 =
		    (catan_wpos){CATAN_WIRE_NOPOS, CATAN_WIRE_NOPOS, 0};
		m.u.play.res1 = m.u.play.res2 = CATAN_WIRE_ANY;
		if (r.bad || r.short_)
			break;
		switch (m.u.play.card) {
		case CATAN_DEV_KNIGHT:
			m.u.play.tile = get_tile(&r);
			m.u.play.target = (uint8_t)get8(&r);
			break;
		case CATAN_DEV_ROAD_BUILDING:
			m.u.play.road1 = get_pos(&r, 2, "road");
			m.u.play.road2 = get_pos(&r, 2, "road");
			break;
		case CATAN_DEV_YEAR_OF_PLENTY:
			m.u.play.res1 =
			    get_enum(&r, 0, CATAN_WIRE_WOOL, "resource");
			m.u.play.res2 =
			    get_enum(&r, 0, CATAN_WIRE_WOOL, "resource");
			break;
		case CATAN_DEV_MONOPOLY:
			m.u.play.res1 =
			    get_enum(&r, 0, CATAN_WIRE_WOOL, "resource");
			break;
		}
		break;
	case CATAN_MSG_BUILD:
		m.u.build.player_id = (uint8_t)get8(&r);
		m.u.build.type =
		    get_enum(&r, 0, CATAN_WIRE_DEVCARD, "buildable");
		m.u.build.pos = (catan_wpos){0, 0, 0};
		if (r.bad || r.short_)
			break;
		if (m.u.build.type == CATAN_WIRE_ROAD)
			m.u.build.pos = get_pos(&r, 2, "road");
		else if (m.u.build.type != CATAN_WIRE_DEVCARD)
			m.u.build.pos = get_pos(&r, 1, "vertex");
		break;
	case CATAN_MSG_BUILD_RESULT:
		m.u.build_result.type =
		    get_enum(&r, 0, CATAN_WIRE_DEVCARD, "buildable");
		m.u.build_result.card = CATAN_NONE;
		if (!r.bad && !r.short_ &&
		    m.u.build_result.type == CATAN_WIRE_DEVCARD)
			m.u.build_result.card = get_enum(
			    &r, 0, CATAN_DEV_COUNT - 1, "development card");
		break;
	case CATAN_MSG_TRADE:
		m.u.trade.player_id = (uint8_t)get8(&r);
		m.u.trade.target_id = (uint8_t)get8(&r);
		m.u.trade.offer_res =
		    get_enum(&r, 0, CATAN_WIRE_WOOL, "resource");
		m.u.trade.offer_count = (uint8_t)get8(&r);
		m.u.trade.ask_res =
		    get_enum(&r, 0, CATAN_WIRE_WOOL, "resource");
		m.u.trade.ask_count = (uint8_t)get8(&r);
		break;
	case CATAN_MSG_TRADE_ACCEPT:
	case CATAN_MSG_TRADE_REJECT:
		m.u.answer.player_id = (uint8_t)get8(&r);
		m.u.answer.target_id = (uint8_t)get8(&r);
		break;
	case CATAN_MSG_ROB:
		m.u.rob.tile = get_tile(&r);
		m.u.rob.target_id = (uint8_t)get8(&r);
		break;
	case CATAN_MSG_ROB_RESULT:
		m.u.rob_result.player_id = (uint8_t)get8(&r);
		m.u.rob_result.target_id = (uint8_t)get8(&r);
		m.u.rob_result.card =
		    get_enum(&r, 0, CATAN_WIRE_WOOL, "resource");
		break;
	case CATAN_MSG_PLACE:
		m.u.place.house = get_pos(&r, 1, "vertex");
		m.u.place.road = get_pos(&r, 2, "edge");
		break;
	case CATAN_MSG_DISCARD:
		get5(&r, m.u.discard.cards, 99, "discard");
		break;
	default:
		bad(&r, "byte 0: unknown message type %u", m.type);
		break;
	}
	if (r.bad)
		return CATAN_MSG_BAD;
	if (r.short_)
		return CATAN_MSG_SHORT;
	if (r.n > (size_t)CATAN_MSG_MAX) {
		bad(&r, "%s of %zu bytes (at most %d)", catan_msg_name(m.type),
		    r.n, CATAN_MSG_MAX);
		return CATAN_MSG_BAD;
	}
	memcpy(out, &m, sizeof m);
	return (int)r.n;
}
