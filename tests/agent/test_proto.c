/*
 * test_proto.c - the agent protocol's codec against byte vectors written
 * by hand from the layouts of spec/agents.md (the seed's structs, packed,
 * little-endian), the decoder's refusals, and the translation between
 * messages, actions and a seat's view.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "catan/agent.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const catan_msg_begin begin_small = {5, 4, 1024, 2, 1, 2, 1, 2};

/* encode(m) == bytes, decode(bytes) re-encodes to bytes, and every proper
 * prefix of bytes is SHORT. */
static void round_trip(const catan_msg *m, const uint8_t *bytes, size_t n,
		       const catan_msg_begin *bg)
{
	uint8_t buf[CATAN_MSG_MAX];
	int len = catan_msg_encode(buf, sizeof buf, m, bg);
	assert_int_equal(len, (int)n);
	assert_memory_equal(buf, bytes, n);
	catan_msg d;
	char why[128];
	assert_int_equal(catan_msg_decode(&d, bytes, n, bg, why, sizeof why),
			 (int)n);
	assert_int_equal(d.type, m->type);
	assert_int_equal(catan_msg_encode(buf, sizeof buf, &d, bg), (int)n);
	assert_memory_equal(buf, bytes, n);
	for (size_t k = 0; k < n; k++)
		assert_int_equal(
		    catan_msg_decode(&d, bytes, k, bg, why, sizeof why),
		    CATAN_MSG_SHORT);
	/* Bytes after the message are not read. */
	uint8_t more[CATAN_MSG_MAX + 8];
	memcpy(more, bytes, n);
	more[n] = 0xee;
	assert_int_equal(catan_msg_decode(&d, more, n + 1, bg, why, sizeof why),
			 (int)n);
}

static void test_proto__seed_messages(void **st)
{
	(void)st;
	catan_msg m;
	memset(&m, 0, sizeof m);

	m.type = CATAN_MSG_BEGIN;
	m.u.begin = (catan_msg_begin){5, 4, 1024, 2, 1, 19, 9, 4};
	static const uint8_t begin[] = {0, 5, 0, 0, 0, 4, 0,  0, 0,
					0, 4, 0, 0, 2, 1, 19, 0, 0,
					0, 9, 0, 0, 0, 4, 0,  0, 0};
	round_trip(&m, begin, N(begin), NULL);

	m.type = CATAN_MSG_KICK;
	m.u.kick.kick_id = 3;
	round_trip(&m, (const uint8_t[]){2, 3}, 2, NULL);
	m.type = CATAN_MSG_END;
	m.u.end.winner_id = 2;
	round_trip(&m, (const uint8_t[]){3, 2}, 2, NULL);
	m.type = CATAN_MSG_TURN;
	m.u.turn.player_id = 1;
	round_trip(&m, (const uint8_t[]){10, 1}, 2, NULL);
	m.type = CATAN_MSG_ROLL;
	round_trip(&m, (const uint8_t[]){11}, 1, NULL);
	m.type = CATAN_MSG_ROLL_RESULT;
	m.u.roll_result.roll = 7;
	round_trip(&m, (const uint8_t[]){12, 7}, 2, NULL);
	m.type = CATAN_MSG_PASS;
	round_trip(&m, (const uint8_t[]){19}, 1, NULL);

	/* BUILD road at (-1,2,NE), settlement at (0,-2,S), a card. */
	m.type = CATAN_MSG_BUILD;
	m.u.build.player_id = 2;
	m.u.build.type = CATAN_WIRE_ROAD;
	m.u.build.pos = (catan_wpos){-1, 2, 2};
	round_trip(&m, (const uint8_t[]){14, 2, 0, 0xff, 2, 2}, 6, NULL);
	m.u.build.type = CATAN_WIRE_SETTLEMENT;
	m.u.build.pos = (catan_wpos){0, -2, 1};
	round_trip(&m, (const uint8_t[]){14, 2, 1, 0, 0xfe, 1}, 6, NULL);
	m.u.build.type = CATAN_WIRE_DEVCARD;
	round_trip(&m, (const uint8_t[]){14, 2, 3}, 3, NULL);

	m.type = CATAN_MSG_BUILD_RESULT;
	m.u.build_result.type = CATAN_WIRE_DEVCARD;
	m.u.build_result.card = CATAN_DEV_MONOPOLY;
	round_trip(&m, (const uint8_t[]){15, 3, 3}, 3, NULL);
	m.u.build_result.type = CATAN_WIRE_CITY;
	round_trip(&m, (const uint8_t[]){15, 2}, 2, NULL);

	/* TRADE: player 0 offers 2 wool to player 3 for 1 ore. */
	m.type = CATAN_MSG_TRADE;
	m.u.trade.player_id = 0;
	m.u.trade.target_id = 3;
	m.u.trade.offer_res = CATAN_WIRE_WOOL;
	m.u.trade.offer_count = 2;
	m.u.trade.ask_res = CATAN_WIRE_ORE;
	m.u.trade.ask_count = 1;
	round_trip(&m, (const uint8_t[]){16, 0, 3, 5, 2, 4, 1}, 7, NULL);

	m.type = CATAN_MSG_TRADE_ACCEPT;
	m.u.answer.player_id = 0;
	m.u.answer.target_id = 3;
	round_trip(&m, (const uint8_t[]){17, 0, 3}, 3, NULL);
	m.type = CATAN_MSG_TRADE_REJECT;
	round_trip(&m, (const uint8_t[]){18, 0, 3}, 3, NULL);

	m.type = CATAN_MSG_ROB;
	m.u.rob.tile = (catan_wpos){1, -1, 0};
	m.u.rob.target_id = 2;
	round_trip(&m, (const uint8_t[]){20, 1, 0xff, 2}, 4, NULL);
	m.type = CATAN_MSG_ROB_RESULT;
	m.u.rob_result.player_id = 0;
	m.u.rob_result.target_id = 2;
	m.u.rob_result.card = CATAN_WIRE_GRAIN;
	round_trip(&m, (const uint8_t[]){21, 0, 2, 2}, 4, NULL);
}

static void test_proto__setup(void **st)
{
	(void)st;
	static catan_msg m;
	memset(&m, 0, sizeof m);
	m.type = CATAN_MSG_SETUP;
	m.u.setup.cells[0].pos = (catan_wpos){0, 0, 0};
	m.u.setup.cells[0].type = CATAN_WIRE_BRICK;
	m.u.setup.cells[0].counter = 6;
	m.u.setup.cells[1].pos = (catan_wpos){-1, 1, 0};
	m.u.setup.cells[1].type = CATAN_WIRE_DESERT;
	m.u.setup.harbours[0].vert1 = (catan_wpos){0, -1, 1};
	m.u.setup.harbours[0].vert2 = (catan_wpos){1, -1, 1};
	m.u.setup.harbours[0].resource = CATAN_WIRE_ANY;
	m.u.setup.harbours[0].cost = 3;
	m.u.setup.players[0].id = 0;
	m.u.setup.players[0].house1 = (catan_wpos){0, 0, 0};
	m.u.setup.players[0].road1 = (catan_wpos){0, 0, 1};
	m.u.setup.players[0].house2 = (catan_wpos){-1, 1, 1};
	m.u.setup.players[0].road2 = (catan_wpos){-1, 1, 0};
	memcpy(m.u.setup.players[0].starting_hand,
	       (uint8_t[]){CATAN_WIRE_BRICK, CATAN_WIRE_GRAIN, CATAN_WIRE_WOOL},
	       3);
	catan_wpos none = {CATAN_WIRE_NOPOS, CATAN_WIRE_NOPOS, 0};
	m.u.setup.players[1].id = 1;
	m.u.setup.players[1].house1 = m.u.setup.players[1].house2 = none;
	m.u.setup.players[1].road1 = m.u.setup.players[1].road2 = none;
	static const uint8_t bytes[] = {
	    1,
	    /* cells */
	    0, 0, 1, 6, 0xff, 1, 6, 0,
	    /* harbour */
	    0, 0xff, 1, 1, 0xff, 1, 0, 3,
	    /* players */
	    0, 0, 0, 0, 0, 0, 1, 0xff, 1, 1, 0xff, 1, 0, 1, 2, 5, 1, 0x80, 0x80,
	    0, 0x80, 0x80, 0, 0x80, 0x80, 0, 0x80, 0x80, 0, 0, 0, 0};
	round_trip(&m, bytes, N(bytes), &begin_small);
	catan_msg d;
	char why[128];
	assert_int_equal(
	    catan_msg_decode(&d, bytes, N(bytes), NULL, why, sizeof why),
	    CATAN_MSG_BAD);
	assert_non_null(strstr(why, "SETUP before BEGIN"));
}

static void test_proto__v1_messages(void **st)
{
	(void)st;
	static catan_msg m;
	memset(&m, 0, sizeof m);
	m.type = CATAN_MSG_HELLO;
	m.u.hello.version = 1;
	round_trip(&m, (const uint8_t[]){4, 'C', 'A', 'T', 'N', 1, 0}, 7, NULL);
	m.type = CATAN_MSG_PLACE;
	m.u.place.house = (catan_wpos){0, 0, 0};
	m.u.place.road = (catan_wpos){0, 0, 1};
	round_trip(&m, (const uint8_t[]){22, 0, 0, 0, 0, 0, 1}, 7, NULL);
	m.type = CATAN_MSG_DISCARD;
	memcpy(m.u.discard.cards, (uint8_t[]){1, 0, 2, 0, 1}, 5);
	round_trip(&m, (const uint8_t[]){23, 1, 0, 2, 0, 1}, 6, NULL);

	m.type = CATAN_MSG_PLAY;
	m.u.play.player_id = 1;
	m.u.play.card = CATAN_DEV_KNIGHT;
	m.u.play.tile = (catan_wpos){0, 1, 0};
	m.u.play.target = 2;
	round_trip(&m, (const uint8_t[]){13, 1, 0, 0, 1, 2}, 6, NULL);
	m.u.play.card = CATAN_DEV_ROAD_BUILDING;
	m.u.play.road1 = (catan_wpos){0, 0, 0};
	m.u.play.road2 = (catan_wpos){CATAN_WIRE_NOPOS, CATAN_WIRE_NOPOS, 0};
	round_trip(&m, (const uint8_t[]){13, 1, 1, 0, 0, 0, 0x80, 0x80, 0}, 9,
		   NULL);
	m.u.play.card = CATAN_DEV_YEAR_OF_PLENTY;
	m.u.play.res1 = CATAN_WIRE_ORE;
	m.u.play.res2 = CATAN_WIRE_BRICK;
	round_trip(&m, (const uint8_t[]){13, 1, 2, 4, 1}, 5, NULL);
	m.u.play.card = CATAN_DEV_MONOPOLY;
	m.u.play.res1 = CATAN_WIRE_WOOL;
	round_trip(&m, (const uint8_t[]){13, 1, 3, 5}, 4, NULL);

	/* A VIEW: 2 players, one settlement, one road. */
	memset(&m, 0, sizeof m);
	m.type = CATAN_MSG_VIEW;
	catan_msg_view *v = &m.u.view;
	v->phase = CATAN_PHASE_MAIN;
	v->active = 1;
	v->you = 1;
	v->turn = 300;
	v->dice[0] = 3;
	v->dice[1] = 4;
	v->robber = (catan_wpos){-2, 1, 0};
	v->vp_target = 10;
	v->longest_road = CATAN_WIRE_NOBODY;
	v->largest_army = 0;
	memcpy(v->bank, (uint8_t[]){19, 18, 17, 16, 15}, 5);
	v->deck = 25;
	v->offer_from = v->offer_to = CATAN_WIRE_NOBODY;
	memcpy(v->hand, (uint8_t[]){1, 2, 0, 0, 1}, 5);
	v->devs[CATAN_DEV_KNIGHT] = 1;
	v->nplayers = 2;
	v->players[0] =
	    (__typeof__(v->players[0])){3, 1, 2, 4, 5, 0, 11, 2, 3, 1};
	v->players[1] =
	    (__typeof__(v->players[1])){4, 1, 0, 2, 1, 0, 13, 3, 4, 0};
	v->nbuildings = 1;
	v->buildings[0].pos = (catan_wpos){0, 0, 1};
	v->buildings[0].owner = 1;
	v->buildings[0].kind = CATAN_WIRE_CITY;
	v->nroads = 1;
	v->roads[0].pos = (catan_wpos){0, 1, 2};
	v->roads[0].owner = 1;
	static const uint8_t view[] = {
	    5,	4,  1,	1,  44,	  1,	3,  4, 0xfe, 1, 10, 0, 0xff, 0, 19, 18,
	    17, 16, 15, 25, 0xff, 0xff, 0,  0, 0,    0, 0,  0, 0,    0, 0,  0,
	    1,	2,  0,	0,  1,	  1,	0,  0, 0,    0, 0,  0, 0,    0, 0,  2,
	    3,	1,  2,	4,  5,	  0,	11, 2, 3,    1, 4,  1, 0,    2, 1,  0,
	    13, 3,  4,	0,  1,	  0,	0,  1, 1,    2, 1,  0, 1,    2, 1};
	round_trip(&m, view, N(view), NULL);
}

/* Every refusal says which byte and what. */
static void refused(const uint8_t *b, size_t n, const char *want)
{
	catan_msg d;
	char why[160];
	memset(&d, 0x5a, sizeof d);
	catan_msg before = d;
	assert_int_equal(
	    catan_msg_decode(&d, b, n, &begin_small, why, sizeof why),
	    CATAN_MSG_BAD);
	assert_memory_equal(&d, &before, sizeof d);
	if (!strstr(why, want))
		fail_msg("\"%s\" does not say \"%s\"", why, want);
}

static void test_proto__refusals(void **st)
{
	(void)st;
	refused((const uint8_t[]){99}, 1, "unknown message type 99");
	refused((const uint8_t[]){6}, 1, "unknown message type 6");
	refused((const uint8_t[]){14, 0, 4}, 3, "byte 2: buildable 4");
	refused((const uint8_t[]){14, 0, 0, 0, 0, 3}, 6,
		"byte 5: road direction 3");
	refused((const uint8_t[]){22, 0, 0, 2, 0, 0, 0}, 7,
		"vertex direction 2");
	refused((const uint8_t[]){22, 0x80, 0, 0, 0, 0, 0}, 7, "none");
	refused((const uint8_t[]){4, 'G', 'I', 'T', ' ', 1, 0}, 7, "magic");
	refused((const uint8_t[]){16, 0, 1, 6, 1, 1, 1}, 7, "resource 6");
	refused((const uint8_t[]){13, 0, 5}, 3, "development card 5");
	refused((const uint8_t[]){12, 13}, 2, "roll 13");
	refused((const uint8_t[]){23, 100, 0, 0, 0, 0}, 6, "at most 99");
	refused((const uint8_t[]){0, 5,	 0, 0, 0, 4, 0, 0, 0, 0, 4, 0, 0, 2,
				  1, 19, 0, 0, 0, 9, 0, 0, 0, 7, 0, 0, 0},
		27, "player_count 7");
	refused((const uint8_t[]){0,	5, 0, 0, 0, 4, 0,    0,	   0,
				  0,	4, 0, 0, 2, 1, 0xff, 0xff, 0xff,
				  0xff, 9, 0, 0, 0, 4, 0,    0,	   0},
		27, "cell_count 4294967295");
	/* A bad byte inside a prefix is found before the end arrives. */
	refused((const uint8_t[]){14, 0, 9}, 3, "buildable 9");
}

static void test_proto__resources(void **st)
{
	(void)st;
	assert_int_equal(catan_wire_res(CATAN_LUMBER), CATAN_WIRE_LUMBER);
	assert_int_equal(catan_wire_res(CATAN_BRICK), CATAN_WIRE_BRICK);
	assert_int_equal(catan_wire_res(CATAN_WOOL), CATAN_WIRE_WOOL);
	assert_int_equal(catan_wire_res(CATAN_GRAIN), CATAN_WIRE_GRAIN);
	assert_int_equal(catan_wire_res(CATAN_ORE), CATAN_WIRE_ORE);
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		assert_int_equal(catan_res_from_wire(catan_wire_res(r)), r);
	assert_int_equal(catan_res_from_wire(CATAN_WIRE_ANY), CATAN_NONE);
}

/* Messages as actions on the beginner board, text by catan_action_format. */
static void as_text(const catan_board *b, const catan_state *s, int actor,
		    const catan_msg *m, const char *want)
{
	catan_action a;
	char why[160], text[160];
	int rc = catan_agent_msg_action(&a, b, s, actor, m, why, sizeof why);
	if (!want) {
		assert_int_equal(rc, CATAN_E_BAD_ACTION);
		return;
	}
	if (rc)
		fail_msg("%s", why);
	catan_action_format(text, sizeof text, b, NULL, &a);
	assert_string_equal(text, want);
}

static void test_proto__actions(void **st)
{
	(void)st;
	static catan_board b;
	static catan_state s;
	catan_options o;
	catan_board_beginner(&b);
	catan_options_default(&o);
	assert_int_equal(catan_state_init(&s, &b, &o), CATAN_OK);
	catan_msg m;
	memset(&m, 0, sizeof m);
	m.type = CATAN_MSG_PLACE;
	m.u.place.house = (catan_wpos){0, 0, 0};
	m.u.place.road = (catan_wpos){0, 0, 1};
	as_text(&b, &s, 0, &m, "setup 0,0,n 0,0,nw");
	m.u.place.house = (catan_wpos){9, 9, 0};
	as_text(&b, &s, 0, &m, NULL);
	m.type = CATAN_MSG_ROLL;
	as_text(&b, &s, 0, &m, "roll");
	m.type = CATAN_MSG_PASS;
	as_text(&b, &s, 0, &m, "end");
	m.type = CATAN_MSG_DISCARD;
	memcpy(m.u.discard.cards, (uint8_t[]){1, 0, 2, 0, 1}, 5);
	as_text(&b, &s, 0, &m, "discard lumber:2 brick:1 wool:1");
	m.type = CATAN_MSG_ROB;
	m.u.rob.tile = (catan_wpos){1, -1, 0};
	m.u.rob.target_id = 2;
	as_text(&b, &s, 0, &m, "robber 1,-1 white");
	m.u.rob.target_id = CATAN_WIRE_NOBODY;
	as_text(&b, &s, 0, &m, "robber 1,-1");
	m.u.rob.target_id = 4;
	as_text(&b, &s, 0, &m, NULL);
	m.type = CATAN_MSG_BUILD;
	m.u.build.player_id = 0;
	m.u.build.type = CATAN_WIRE_ROAD;
	m.u.build.pos = (catan_wpos){0, 0, 2};
	as_text(&b, &s, 0, &m, "build road 0,0,ne");
	m.u.build.type = CATAN_WIRE_CITY;
	m.u.build.pos = (catan_wpos){2, 0, 1};
	as_text(&b, &s, 0, &m, "build city 2,0,s");
	m.u.build.type = CATAN_WIRE_DEVCARD;
	as_text(&b, &s, 0, &m, "buy devcard");
	m.u.build.player_id = 1; /* not the actor */
	as_text(&b, &s, 0, &m, NULL);
	m.type = CATAN_MSG_TRADE;
	m.u.trade = (__typeof__(m.u.trade)){0, CATAN_WIRE_BANK, CATAN_WIRE_WOOL,
					    4, CATAN_WIRE_ORE,	1};
	as_text(&b, &s, 0, &m, "trade bank wool:4 ore");
	m.u.trade.target_id = 3;
	m.u.trade.ask_count = 2;
	as_text(&b, &s, 0, &m, "trade offer orange give wool:4 get ore:2");
	m.u.trade.ask_res = CATAN_WIRE_WOOL;
	as_text(&b, &s, 0, &m, NULL);
	m.type = CATAN_MSG_PLAY;
	m.u.play.player_id = 0;
	m.u.play.card = CATAN_DEV_KNIGHT;
	m.u.play.tile = (catan_wpos){0, 1, 0};
	m.u.play.target = 1;
	as_text(&b, &s, 0, &m, "play knight 0,1 blue");
	m.u.play.card = CATAN_DEV_ROAD_BUILDING;
	m.u.play.road1 = (catan_wpos){0, 0, 0};
	m.u.play.road2 = (catan_wpos){0, 0, 1};
	as_text(&b, &s, 0, &m, "play road-building 0,0,w 0,0,nw");
	m.u.play.road2 = (catan_wpos){CATAN_WIRE_NOPOS, CATAN_WIRE_NOPOS, 0};
	as_text(&b, &s, 0, &m, "play road-building 0,0,w");
	m.u.play.card = CATAN_DEV_YEAR_OF_PLENTY;
	m.u.play.res1 = CATAN_WIRE_GRAIN;
	m.u.play.res2 = CATAN_WIRE_ANY;
	as_text(&b, &s, 0, &m, "play year-of-plenty grain");
	m.u.play.card = CATAN_DEV_MONOPOLY;
	as_text(&b, &s, 0, &m, "play monopoly grain");
	m.u.play.card = CATAN_DEV_VICTORY_POINT;
	as_text(&b, &s, 0, &m, NULL);

	/* An offer pending from red to blue: accept, reject, counter. */
	s.phase = CATAN_PHASE_OFFER;
	s.offer_from = 0;
	s.offer_to = 1;
	m.type = CATAN_MSG_TRADE_ACCEPT;
	m.u.answer.player_id = 0;
	m.u.answer.target_id = 1;
	as_text(&b, &s, 1, &m, "trade accept");
	m.type = CATAN_MSG_TRADE_REJECT;
	as_text(&b, &s, 1, &m, "trade reject");
	m.u.answer.player_id = 2;
	as_text(&b, &s, 1, &m, NULL);
	m.type = CATAN_MSG_TRADE;
	m.u.trade = (__typeof__(m.u.trade)){
	    1, 0, CATAN_WIRE_ORE, 1, CATAN_WIRE_WOOL, 2};
	as_text(&b, &s, 1, &m, "trade reject");
	s.phase = CATAN_PHASE_TRADE;
	m.type = CATAN_MSG_PASS;
	as_text(&b, &s, 0, &m, "end trade");
}

/* The view of a seat does not change when hidden cards change. */
static void test_proto__view_hides_others(void **st)
{
	(void)st;
	static catan_board b;
	static catan_state s, t;
	static catan_msg v1, v2, v3;
	catan_options o;
	catan_board_beginner(&b);
	catan_options_default(&o);
	assert_int_equal(catan_state_init(&s, &b, &o), CATAN_OK);
	s.players[1].hand[CATAN_ORE] = 3;
	s.players[1].ncards = 3;
	s.players[1].devs[CATAN_DEV_MONOPOLY] = 1;
	t = s;
	t.players[1].hand[CATAN_ORE] = 0;
	t.players[1].hand[CATAN_WOOL] = 3;
	t.players[1].devs[CATAN_DEV_MONOPOLY] = 0;
	t.players[1].devs[CATAN_DEV_VICTORY_POINT] = 1;
	catan_agent_view(&v1, &b, &s, 0);
	catan_agent_view(&v2, &b, &t, 0);
	uint8_t e1[CATAN_MSG_MAX], e2[CATAN_MSG_MAX], e3[CATAN_MSG_MAX];
	int n1 = catan_msg_encode(e1, sizeof e1, &v1, NULL);
	int n2 = catan_msg_encode(e2, sizeof e2, &v2, NULL);
	assert_true(n1 > 0);
	assert_int_equal(n1, n2);
	assert_memory_equal(e1, e2, (size_t)n1);
	assert_int_equal(v1.u.view.players[1].cards, 3);
	assert_int_equal(v1.u.view.players[1].devcards, 1);
	/* ...and seat 1's own view does see the difference. */
	catan_agent_view(&v3, &b, &s, 1);
	int n3 = catan_msg_encode(e3, sizeof e3, &v3, NULL);
	catan_agent_view(&v2, &b, &t, 1);
	n2 = catan_msg_encode(e2, sizeof e2, &v2, NULL);
	assert_true(n3 == n2 && memcmp(e3, e2, (size_t)n2) != 0);
	assert_int_equal(v3.u.view.hand[CATAN_WIRE_ORE - 1], 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_proto__seed_messages),
	    cmocka_unit_test(test_proto__setup),
	    cmocka_unit_test(test_proto__v1_messages),
	    cmocka_unit_test(test_proto__refusals),
	    cmocka_unit_test(test_proto__resources),
	    cmocka_unit_test(test_proto__actions),
	    cmocka_unit_test(test_proto__view_hides_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
