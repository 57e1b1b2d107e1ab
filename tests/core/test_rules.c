/*
 * test_rules.c - one test per rule of the game, on the beginner board.
 *
 * Every state is built through real actions (the helpers' set-up, rolls in
 * manual dice semantics, builds, trades); cards are moved between the bank
 * and hands with th_give when a test needs a hand, and a field is poked only
 * where no action reaches the situation quickly (followed by th_check).
 * Every rejection is checked for its exact code and for leaving the state
 * byte-for-byte unchanged (th_reject / reject_act).
 *
 * Geometry used below (DESIGN.md "Coordinates"): N of (q,r) touches (q,r),
 * (q,r-1) and (q+1,r-1); S of (q,r) touches (q,r), (q-1,r+1) and (q,r+1).
 */
#include "helpers.h"

#include "catan/boardgen.h"

#include <stdio.h>
#include <string.h>

/* ---- fixtures ---- */

static catan_options opts(int n)
{
	catan_options o;

	catan_options_default(&o);
	o.nplayers = (uint8_t)n;
	o.seed = 42;
	return o;
}

static void start(catan_board *b, catan_state *s, const catan_options *o)
{
	catan_board_beginner(b);
	assert_int_equal(catan_state_init(s, b, o), CATAN_OK);
}

static void clear_all(catan_state *s)
{
	for (int p = 0; p < s->opt.nplayers; p++)
		th_clear_hand(s, p);
}

static void end_turn(const catan_board *b, catan_state *s)
{
	th_do(b, s, s->active, "end");
}

/* The active player rolls d1+d2, then ends the turn. */
static void pass(const catan_board *b, catan_state *s, int d1, int d2)
{
	th_roll(b, s, d1, d2);
	end_turn(b, s);
}

/*
 * The helpers' set-up for n players, red rolls 12 (no building of that
 * set-up touches the grain 12 at -1,-1), every hand emptied: red is in the
 * combined trade/build phase of turn 1 with a full bank.
 */
static void main_phase(catan_board *b, catan_state *s, int n)
{
	th_new_game(b, s, n);
	th_play_setup(b, s);
	th_roll(b, s, 6, 6);
	clear_all(s);
	th_check(b, s);
	assert_int_equal(s->phase, CATAN_PHASE_MAIN);
	assert_int_equal(s->active, RED);
}

static void assert_hand(const catan_state *s, int p, int l, int br, int w,
			int g, int o)
{
	const catan_player *pl = &s->players[p];

	assert_int_equal(pl->hand[CATAN_LUMBER], l);
	assert_int_equal(pl->hand[CATAN_BRICK], br);
	assert_int_equal(pl->hand[CATAN_WOOL], w);
	assert_int_equal(pl->hand[CATAN_GRAIN], g);
	assert_int_equal(pl->hand[CATAN_ORE], o);
	assert_int_equal(pl->ncards, l + br + w + g + o);
}

static void assert_bank(const catan_state *s, int l, int br, int w, int g,
			int o)
{
	assert_int_equal(s->bank[CATAN_LUMBER], l);
	assert_int_equal(s->bank[CATAN_BRICK], br);
	assert_int_equal(s->bank[CATAN_WOOL], w);
	assert_int_equal(s->bank[CATAN_GRAIN], g);
	assert_int_equal(s->bank[CATAN_ORE], o);
}

static int deck_left(const catan_state *s)
{
	int n = 0;

	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		n += s->deck[d];
	return n;
}

static int devs_held(const catan_state *s, int p)
{
	int n = 0;

	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		n += s->players[p].devs[d];
	return n;
}

/* Applies a hand-built action in place; it must succeed. */
static void do_act(const catan_board *b, catan_state *s, int actor,
		   const catan_action *a)
{
	int rc = catan_state_apply(s, b, s, actor, a, NULL);

	if (rc != CATAN_OK)
		fail_msg("action kind %d by player %d rejected: %s", a->kind,
			 actor, catan_error_str(rc));
	th_check(b, s);
}

/* Like th_reject for a hand-built action (one the parser refuses). */
static void reject_act(const catan_board *b, catan_state *s, int actor,
		       const catan_action *a, int code)
{
	catan_state before = *s;
	int rc = catan_state_apply(s, b, s, actor, a, NULL);

	if (rc != code)
		fail_msg("action kind %d by player %d: expected \"%s\", got "
			 "\"%s\"",
			 a->kind, actor, catan_error_str(code),
			 catan_error_str(rc));
	assert_memory_equal(&before, s, sizeof before);
}

/* What `a` would return on a copy of s (s is not changed). */
static int try_act(const catan_board *b, const catan_state *s, int actor,
		   const catan_action *a)
{
	catan_state t = *s;

	return catan_state_apply(&t, b, &t, actor, a, NULL);
}

static int try_text(const catan_board *b, const catan_state *s, int actor,
		    const char *text)
{
	catan_action a = th_action(b, text);

	return try_act(b, s, actor, &a);
}

/* Pays p a road and builds it on the lowest edge id where it is legal. */
static int build_any_road(const catan_board *b, catan_state *s, int p)
{
	catan_action a;

	th_give(s, p, 1, 1, 0, 0, 0);
	catan_action_init(&a, CATAN_ACT_BUILD_ROAD);
	for (int e = 0; e < b->nedges; e++) {
		a.edge = (uint8_t)e;
		if (try_act(b, s, p, &a) == CATAN_OK) {
			do_act(b, s, p, &a);
			return e;
		}
	}
	fail_msg("no road spot for player %d", p);
	return -1;
}

/*
 * Builds a settlement for p (paid from the bank) on the lowest vertex id
 * where it is legal; returns the vertex, or -1 with s unchanged.
 */
static int build_any_settlement(const catan_board *b, catan_state *s, int p)
{
	catan_state t = *s;
	catan_action a;

	th_give(&t, p, 1, 1, 1, 1, 0);
	catan_action_init(&a, CATAN_ACT_BUILD_SETTLEMENT);
	for (int v = 0; v < b->nvertices; v++) {
		a.vertex = (uint8_t)v;
		if (try_act(b, &t, p, &a) == CATAN_OK) {
			do_act(b, &t, p, &a);
			*s = t;
			return v;
		}
	}
	return -1;
}

/* Builds settlements (and roads to reach spots) until p has none left. */
static void build_all_settlements(const catan_board *b, catan_state *s, int p)
{
	for (int guard = 0; s->players[p].settlements_left > 0; guard++) {
		if (guard > 40)
			fail_msg("could not place every settlement");
		if (build_any_settlement(b, s, p) < 0)
			build_any_road(b, s, p);
	}
}

/* Puts a road of p on edge e without any action (see the caller). */
static void poke_road(const catan_board *b, catan_state *s, int p, int e)
{
	catan_player *pl = &s->players[p];

	catan_eset_add(&pl->roads, e);
	catan_eset_add(&s->roads, e);
	catan_vset_add(&pl->reach, b->edge_vertices[e][0]);
	catan_vset_add(&pl->reach, b->edge_vertices[e][1]);
	pl->roads_left--;
	pl->road_length = (uint8_t)catan_state_road_length(b, s, p);
	th_check(b, s);
}

/* The helpers' set-up placements (tests/core/helpers.c), by player. */
static const char *const setup_first[4] = {
    "setup 0,-1,n 0,-1,nw",
    "setup 1,0,n 1,0,nw",
    "setup -1,1,n -1,1,nw",
    "setup 0,1,s 0,1,sw",
};
static const char *const setup_second[4] = {
    "setup -2,1,s -2,2,nw",
    "setup -2,1,n -2,1,ne",
    "setup 1,1,n 2,0,w",
    "setup -1,1,s -2,2,ne",
};

/* ---- set-up ---- */

static void snake(int n, const int *order)
{
	catan_board b;
	catan_state s;

	th_new_game(&b, &s, n);
	for (int step = 0; step < 2 * n; step++) {
		int want = order[step];
		const char *text =
		    step < n ? setup_first[want] : setup_second[want];

		assert_int_equal(s.phase, CATAN_PHASE_SETUP);
		assert_int_equal(s.setup_step, step);
		assert_int_equal(s.active, want);
		assert_int_equal(catan_state_next_actor(&s), want);
		for (int p = 0; p < n; p++) {
			assert_int_equal(catan_state_may_act(&s, p), p == want);
			if (p != want)
				th_reject(&b, &s, p, text,
					  CATAN_E_NOT_YOUR_TURN);
		}
		th_do(&b, &s, want, text);
	}
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, 0);
	assert_int_equal(s.turn, 1);
	for (int p = 0; p < n; p++) {
		assert_int_equal(catan_vset_count(&s.players[p].settlements),
				 2);
		assert_int_equal(catan_eset_count(&s.players[p].roads), 2);
	}
}

static void test_rules__setup_snake_order_2(void **state)
{
	static const int order[] = {0, 1, 1, 0};

	(void)state;
	snake(2, order);
}

static void test_rules__setup_snake_order_3(void **state)
{
	static const int order[] = {0, 1, 2, 2, 1, 0};

	(void)state;
	snake(3, order);
}

static void test_rules__setup_snake_order_4(void **state)
{
	static const int order[] = {0, 1, 2, 3, 3, 2, 1, 0};

	(void)state;
	snake(4, order);
}

static void test_rules__setup_distance_rule(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_do(&b, &s, RED, "setup 0,-1,n 0,-1,nw");
	/* The same corner, then each of its three neighbours. */
	th_reject(&b, &s, BLUE, "setup 0,-1,n 0,-1,ne", CATAN_E_OCCUPIED);
	th_reject(&b, &s, BLUE, "setup 0,-1,nw 0,-1,w", CATAN_E_DISTANCE_RULE);
	th_reject(&b, &s, BLUE, "setup 0,-1,ne 0,-1,e", CATAN_E_DISTANCE_RULE);
	th_reject(&b, &s, BLUE, "setup 1,-2,nw 1,-2,nw", CATAN_E_DISTANCE_RULE);
	/* Two steps away is fine. */
	th_do(&b, &s, BLUE, "setup 0,-1,sw 0,-1,w");
	assert_true(catan_vset_has(&s.players[BLUE].settlements,
				   th_vertex(&b, -1, 0, "n")));
}

static void test_rules__setup_road_must_touch_settlement(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	/* W side of 0,-1 joins its SW and NW corners, not N. */
	th_reject(&b, &s, RED, "setup 0,-1,n 0,-1,w", CATAN_E_NOT_ADJACENT);
	th_reject(&b, &s, RED, "setup 0,-1,n 1,0,nw", CATAN_E_NOT_ADJACENT);
	th_do(&b, &s, RED, "setup 0,-1,n 0,-1,ne");
	assert_true(
	    catan_eset_has(&s.players[RED].roads, th_edge(&b, 0, -1, "ne")));
}

static void test_rules__setup_road_on_occupied_edge(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_do(&b, &s, RED, "setup 0,-1,n 0,-1,nw");
	/*
	 * No set-up action puts a road on an edge whose end is still free
	 * for a settlement, so red's road is extended by hand from the NW
	 * to the SW corner of 0,-1 (two steps from red's settlement).
	 */
	poke_road(&b, &s, RED, th_edge(&b, 0, -1, "w"));
	th_reject(&b, &s, BLUE, "setup 0,-1,sw 0,-1,w", CATAN_E_OCCUPIED);
	th_do(&b, &s, BLUE, "setup 0,-1,sw 0,-1,sw");
}

static void test_rules__setup_second_settlement_pays(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	for (int p = 0; p < 4; p++)
		th_do(&b, &s, p, setup_first[p]);
	/* The first settlements paid nothing. */
	for (int p = 0; p < 4; p++)
		assert_hand(&s, p, 0, 0, 0, 0, 0);
	assert_bank(&s, 19, 19, 19, 19, 19);
	/* orange: ore 3 / grain 6 / brick 5 */
	th_do(&b, &s, ORANGE, setup_second[ORANGE]);
	assert_hand(&s, ORANGE, 0, 1, 0, 1, 1);
	/* white: wool 5 / lumber 3 / ore 8 */
	th_do(&b, &s, WHITE, setup_second[WHITE]);
	assert_hand(&s, WHITE, 1, 0, 1, 0, 1);
	/* blue: lumber 8 / grain 9 / lumber 11 */
	th_do(&b, &s, BLUE, setup_second[BLUE]);
	assert_hand(&s, BLUE, 2, 0, 0, 1, 0);
	/* red: lumber 8 / brick 5 (a coastal corner: two tiles) */
	th_do(&b, &s, RED, setup_second[RED]);
	assert_hand(&s, RED, 1, 1, 0, 0, 0);
	assert_bank(&s, 15, 17, 18, 17, 17);
}

static void test_rules__setup_desert_pays_nothing(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 2);
	th_do(&b, &s, RED, "setup 0,-1,n 0,-1,nw");
	th_do(&b, &s, BLUE, "setup 1,0,n 1,0,nw");
	/* N of 0,0: the desert, brick 6 at 0,-1, wool 4 at 1,-1. */
	th_do(&b, &s, BLUE, "setup 0,0,n 0,0,nw");
	assert_hand(&s, BLUE, 0, 1, 1, 0, 0);
	th_do(&b, &s, RED, "setup -2,1,s -2,2,nw");
	assert_hand(&s, RED, 1, 1, 0, 0, 0);
	assert_bank(&s, 18, 17, 18, 19, 19);
}

static void test_rules__setup_then_red_rolls_turn_1(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, RED);
	assert_int_equal(s.turn, 1);
	assert_int_equal(catan_state_next_actor(&s), RED);
	for (int p = BLUE; p <= ORANGE; p++)
		th_reject(&b, &s, p, "roll", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, RED, "setup 2,-2,n 2,-2,nw", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "end", CATAN_E_WRONG_PHASE);
	th_do(&b, &s, RED, "roll");
	assert_int_equal(s.turn, 1);
	assert_int_not_equal(s.phase, CATAN_PHASE_ROLL);
	th_reject(&b, &s, RED, "roll", CATAN_E_WRONG_PHASE);
}

/* ---- dice ---- */

static void test_rules__dice_seeded_rejects_stated_dice(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	th_reject(&b, &s, RED, "roll 3 4", CATAN_E_DICE_NOT_ALLOWED);
	th_do(&b, &s, RED, "roll");
	assert_in_range(s.dice[0], 1, 6);
	assert_in_range(s.dice[1], 1, 6);
}

static void test_rules__dice_manual_requires_dice(void **state)
{
	catan_board b;
	catan_state s;
	catan_options o = opts(4);

	(void)state;
	o.dice = CATAN_DICE_MANUAL;
	start(&b, &s, &o);
	th_play_setup(&b, &s);
	th_reject(&b, &s, RED, "roll", CATAN_E_DICE_REQUIRED);
	th_do(&b, &s, RED, "roll 2 3");
	assert_int_equal(s.dice[0], 2);
	assert_int_equal(s.dice[1], 3);
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
}

static void test_rules__dice_sum_is_triangular(void **state)
{
	enum { N = 36000 };
	catan_board b;
	catan_action setup[8], roll;
	long count[13] = {0}, face[7] = {0};
	int order[8] = {0, 1, 2, 3, 3, 2, 1, 0};

	(void)state;
	catan_board_beginner(&b);
	for (int i = 0; i < 8; i++)
		setup[i] = th_action(&b, i < 4 ? setup_first[order[i]]
					       : setup_second[order[i]]);
	roll = th_action(&b, "roll");
	for (int i = 0; i < N; i++) {
		catan_options o = opts(4);
		catan_state s;
		catan_outcome oc;

		o.seed = 1000 + (uint64_t)i * 7919;
		assert_int_equal(catan_state_init(&s, &b, &o), CATAN_OK);
		for (int k = 0; k < 8; k++)
			assert_int_equal(catan_state_apply(&s, &b, &s, order[k],
							   &setup[k], NULL),
					 CATAN_OK);
		assert_int_equal(catan_state_apply(&s, &b, &s, RED, &roll, &oc),
				 CATAN_OK);
		assert_in_range(oc.dice[0], 1, 6);
		assert_in_range(oc.dice[1], 1, 6);
		count[oc.dice[0] + oc.dice[1]]++;
		face[oc.dice[0]]++;
		face[oc.dice[1]]++;
	}
	/* Ways to roll each sum with two dice: 1 2 3 4 5 6 5 4 3 2 1. */
	double chi_tri = 0, chi_flat = 0;
	for (int k = 2; k <= 12; k++) {
		int ways = 6 - (k > 7 ? k - 7 : 7 - k);
		double e = (double)N * ways / 36, f = (double)N / 11;

		chi_tri += (count[k] - e) * (count[k] - e) / e;
		chi_flat += (count[k] - f) * (count[k] - f) / f;
		/* Each sum within 15% (+-30 for the rare ones) of its share. */
		assert_true(count[k] > e * 0.85 - 30 &&
			    count[k] < e * 1.15 + 30);
	}
	/* 10 degrees of freedom: 40 is far out in the tail (p < 1e-5). */
	assert_true(chi_tri < 40.0);
	assert_true(chi_flat > 1000.0);
	assert_true(count[7] > 5 * count[2]);
	assert_true(count[7] > 5 * count[12]);
	for (int f = 1; f <= 6; f++)
		assert_true(face[f] > 2 * N / 6 - 600 &&
			    face[f] < 2 * N / 6 + 600);
}

/* ---- production ---- */

static void test_rules__production_settlement_one_city_two(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 0, 0, 0, 2, 3);
	th_do(&b, &s, RED, "build city 0,-1,n");
	end_turn(&b, &s);
	/*
	 * 6: brick at 0,-1 (red's city on its N corner) and grain at -1,2
	 * (orange's settlements S of 0,1 and S of -1,1).
	 */
	th_roll(&b, &s, 3, 3);
	assert_hand(&s, RED, 0, 2, 0, 0, 0);
	assert_hand(&s, ORANGE, 0, 0, 0, 2, 0);
	assert_hand(&s, BLUE, 0, 0, 0, 0, 0);
	assert_hand(&s, WHITE, 0, 0, 0, 0, 0);
	assert_bank(&s, 19, 17, 19, 17, 19);
}

static void test_rules__production_robber_tile_produces_nothing(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	clear_all(&s);
	th_roll(&b, &s, 3, 4);
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
	/* Only red itself has a building on 0,-1: no victim. */
	th_do(&b, &s, RED, "robber 0,-1");
	assert_int_equal(s.robber, th_tile(&b, 0, -1));
	end_turn(&b, &s);
	th_roll(&b, &s, 3, 3);
	assert_hand(&s, RED, 0, 0, 0, 0, 0);
	assert_hand(&s, ORANGE, 0, 0, 0, 2, 0);
	assert_bank(&s, 19, 19, 19, 17, 19);
}

static void test_rules__production_shortage_two_owed_nobody_paid(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	clear_all(&s);
	th_give(&s, RED, 18, 0, 0, 0, 0);
	/*
	 * 3: lumber at 1,0 is owed to blue (N of 1,0) and white (N of 1,1),
	 * 2 cards with 1 in the bank; ore at -1,1 to white and orange.
	 */
	th_roll(&b, &s, 1, 2);
	assert_int_equal(s.bank[CATAN_LUMBER], 1);
	assert_hand(&s, BLUE, 0, 0, 0, 0, 0);
	/* The shortage of lumber does not touch ore. */
	assert_hand(&s, WHITE, 0, 0, 0, 0, 1);
	assert_hand(&s, ORANGE, 0, 0, 0, 0, 1);
	assert_hand(&s, RED, 18, 0, 0, 0, 0);
	assert_bank(&s, 1, 19, 19, 19, 17);
}

static void test_rules__production_shortage_single_owed_gets_rest(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	clear_all(&s);
	th_give(&s, RED, 0, 0, 0, 18, 0);
	/* 6: orange is owed 2 grain, the bank holds 1; red's brick is paid. */
	th_roll(&b, &s, 2, 4);
	assert_hand(&s, ORANGE, 0, 0, 0, 1, 0);
	assert_hand(&s, RED, 0, 1, 0, 18, 0);
	assert_bank(&s, 19, 18, 19, 0, 19);
}

/* ---- a rolled 7 ---- */

/*
 * Red 9 cards, blue 7, white 8, orange 11; red rolls 7. Hands and bank as
 * given; returns with the state in DISCARD.
 */
static void seven_with_hands(catan_board *b, catan_state *s)
{
	th_new_game(b, s, 4);
	th_play_setup(b, s);
	clear_all(s);
	th_give(s, RED, 5, 4, 0, 0, 0);
	th_give(s, BLUE, 0, 0, 7, 0, 0);
	th_give(s, WHITE, 0, 0, 0, 4, 4);
	th_give(s, ORANGE, 3, 3, 3, 2, 0);
	th_roll(b, s, 3, 4);
}

static void test_rules__seven_discard_half_of_more_than_seven(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	seven_with_hands(&b, &s);
	assert_int_equal(s.phase, CATAN_PHASE_DISCARD);
	assert_int_equal(s.discard[RED], 4);	/* 9 -> 4 */
	assert_int_equal(s.discard[BLUE], 0);	/* 7 -> none */
	assert_int_equal(s.discard[WHITE], 4);	/* 8 -> 4 */
	assert_int_equal(s.discard[ORANGE], 5); /* 11 -> 5 */
	/* Nothing is produced on a 7. */
	assert_hand(&s, RED, 5, 4, 0, 0, 0);
	assert_hand(&s, BLUE, 0, 0, 7, 0, 0);
	assert_hand(&s, WHITE, 0, 0, 0, 4, 4);
	assert_hand(&s, ORANGE, 3, 3, 3, 2, 0);
	assert_bank(&s, 11, 12, 9, 13, 15);
}

static void test_rules__seven_discards_any_order_by_owers(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	seven_with_hands(&b, &s);
	for (int p = RED; p <= ORANGE; p++)
		assert_int_equal(catan_state_may_act(&s, p), p != BLUE);
	th_reject(&b, &s, BLUE, "discard wool:1", CATAN_E_NOT_YOUR_TURN);
	/* Orange first, then white, then red (the roller) last. */
	th_do(&b, &s, ORANGE, "discard lumber:3 wool:2");
	assert_hand(&s, ORANGE, 0, 3, 1, 2, 0);
	assert_int_equal(s.discard[ORANGE], 0);
	assert_int_equal(s.phase, CATAN_PHASE_DISCARD);
	th_reject(&b, &s, ORANGE, "discard brick:3 wool:1 grain:1",
		  CATAN_E_NOT_YOUR_TURN);
	th_do(&b, &s, WHITE, "discard grain:2 ore:2");
	assert_hand(&s, WHITE, 0, 0, 0, 2, 2);
	assert_int_equal(s.phase, CATAN_PHASE_DISCARD);
	th_do(&b, &s, RED, "discard lumber:4");
	assert_hand(&s, RED, 1, 4, 0, 0, 0);
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
	assert_int_equal(catan_state_next_actor(&s), RED);
	assert_bank(&s, 18, 12, 11, 15, 17);
}

static void test_rules__seven_discard_wrong_count(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	seven_with_hands(&b, &s);
	th_reject(&b, &s, RED, "discard lumber:3", CATAN_E_DISCARD_COUNT);
	th_reject(&b, &s, RED, "discard lumber:5", CATAN_E_DISCARD_COUNT);
	th_reject(&b, &s, ORANGE, "discard lumber:1 brick:1 wool:1 grain:1",
		  CATAN_E_DISCARD_COUNT);
}

static void test_rules__seven_discard_cards_not_held(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	seven_with_hands(&b, &s);
	th_reject(&b, &s, RED, "discard brick:2 ore:2", CATAN_E_CANNOT_AFFORD);
	th_reject(&b, &s, WHITE, "discard lumber:4", CATAN_E_CANNOT_AFFORD);
	th_reject(&b, &s, WHITE, "discard grain:5", CATAN_E_CANNOT_AFFORD);
}

static void test_rules__seven_robber_only_after_all_discards(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	seven_with_hands(&b, &s);
	th_reject(&b, &s, RED, "robber 2,-2", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "end", CATAN_E_WRONG_PHASE);
	th_do(&b, &s, RED, "discard lumber:2 brick:2");
	/* Red has discarded; the others still owe, so red may not act. */
	th_reject(&b, &s, RED, "robber 2,-2", CATAN_E_NOT_YOUR_TURN);
	th_do(&b, &s, WHITE, "discard ore:4");
	th_reject(&b, &s, RED, "robber 2,-2", CATAN_E_NOT_YOUR_TURN);
	th_do(&b, &s, ORANGE, "discard lumber:1 brick:1 wool:1 grain:2");
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
	th_do(&b, &s, RED, "robber 2,-2");
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
}

static void test_rules__seven_no_discard_goes_to_robber(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	clear_all(&s);
	th_give(&s, RED, 7, 0, 0, 0, 0);
	th_give(&s, BLUE, 0, 0, 0, 0, 7);
	th_roll(&b, &s, 1, 6);
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
	for (int p = RED; p <= ORANGE; p++)
		assert_int_equal(s.discard[p], 0);
	assert_hand(&s, RED, 7, 0, 0, 0, 0);
	assert_hand(&s, BLUE, 0, 0, 0, 0, 7);
	assert_bank(&s, 12, 19, 19, 19, 12);
	th_reject(&b, &s, BLUE, "discard ore:3", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, RED, "discard lumber:3", CATAN_E_WRONG_PHASE);
}

/* Red has rolled a 7 (nobody discards): blue holds 2 wool, others none. */
static void robber_phase(catan_board *b, catan_state *s)
{
	th_new_game(b, s, 4);
	th_play_setup(b, s);
	clear_all(s);
	th_give(s, BLUE, 0, 0, 2, 0, 0);
	th_roll(b, s, 4, 3);
	assert_int_equal(s->phase, CATAN_PHASE_ROBBER);
}

static void test_rules__robber_must_move(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	robber_phase(&b, &s);
	assert_int_equal(s.robber, th_tile(&b, 0, 0));
	th_reject(&b, &s, RED, "robber 0,0", CATAN_E_ROBBER_SAME_TILE);
	th_do(&b, &s, RED, "robber 2,-2");
	assert_int_equal(s.robber, th_tile(&b, 2, -2));
}

static void test_rules__robber_victim_required(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	robber_phase(&b, &s);
	/* Blue (N of 1,0) has cards; white (N of 1,1) touches 1,0 too. */
	th_reject(&b, &s, RED, "robber 1,0", CATAN_E_VICTIM_REQUIRED);
}

static void test_rules__robber_bad_victim(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	robber_phase(&b, &s);
	th_reject(&b, &s, RED, "robber 1,0 orange", CATAN_E_BAD_VICTIM);
	th_reject(&b, &s, RED, "robber 1,0 red", CATAN_E_BAD_VICTIM);
	th_reject(&b, &s, RED, "robber 2,-2 blue", CATAN_E_BAD_VICTIM);
}

/*
 * The almanac: the robber's mover picks any opponent with a building on the
 * tile, one with no cards too, and then steals nothing.
 */
static void test_rules__robber_victim_without_cards(void **state)
{
	catan_board b;
	catan_state s, before;

	(void)state;
	robber_phase(&b, &s);
	/* White has a building on 1,0 but no cards; blue has cards. */
	assert_int_equal(s.players[WHITE].ncards, 0);
	assert_true(s.players[BLUE].ncards > 0);
	th_reject(&b, &s, RED, "robber 1,0", CATAN_E_VICTIM_REQUIRED);
	before = s;
	th_do(&b, &s, RED, "robber 1,0 white");
	assert_int_equal(s.robber, th_tile(&b, 1, 0));
	for (int p = 0; p < 4; p++)
		assert_memory_equal(s.players[p].hand, before.players[p].hand,
				    sizeof s.players[p].hand);
	/* The choice is in the legal list. */
	catan_action a = th_action(&b, "robber 1,0 white"), buf[256];
	int n = catan_legal_actions(buf, 256, &b, &before, RED, 0), found = 0;
	assert_true(n <= 256);
	for (int i = 0; i < n; i++)
		found += !memcmp(&buf[i], &a, sizeof a);
	assert_int_equal(found, 1);
}

static void test_rules__robber_steals_one_card(void **state)
{
	catan_board b;
	catan_state s;
	catan_action a;
	catan_outcome oc;

	(void)state;
	robber_phase(&b, &s);
	a = th_action(&b, "robber 1,0 blue");
	assert_int_equal(catan_state_apply(&s, &b, &s, RED, &a, &oc), CATAN_OK);
	th_check(&b, &s);
	assert_int_equal(oc.stolen, CATAN_WOOL);
	assert_hand(&s, RED, 0, 0, 1, 0, 0);
	assert_hand(&s, BLUE, 0, 0, 1, 0, 0);
	assert_hand(&s, WHITE, 0, 0, 0, 0, 0);
	assert_bank(&s, 19, 19, 17, 19, 19);
	assert_int_equal(s.robber, th_tile(&b, 1, 0));
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
}

static void test_rules__robber_no_victim_when_none_qualifies(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	robber_phase(&b, &s);
	/* -1,1: white and orange have buildings there but no cards. */
	th_do(&b, &s, RED, "robber -1,1");
	assert_int_equal(s.robber, th_tile(&b, -1, 1));
	assert_hand(&s, RED, 0, 0, 0, 0, 0);
	assert_hand(&s, BLUE, 0, 0, 2, 0, 0);
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
}

static void test_rules__robber_may_return_to_desert(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	robber_phase(&b, &s);
	th_do(&b, &s, RED, "robber 2,-2");
	end_turn(&b, &s);
	th_roll(&b, &s, 5, 2);
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
	th_reject(&b, &s, BLUE, "robber 2,-2", CATAN_E_ROBBER_SAME_TILE);
	th_do(&b, &s, BLUE, "robber 0,0");
	assert_int_equal(s.robber, th_tile(&b, 0, 0));
}

/* ---- maritime trade ---- */

/*
 * Two players; red places red1 and red2, blue the helpers' spots; red then
 * rolls 12 (nothing) and every hand is emptied.
 */
static void harbour_game(catan_board *b, catan_state *s, const char *red1,
			 const char *red2)
{
	th_new_game(b, s, 2);
	th_do(b, s, RED, red1);
	th_do(b, s, BLUE, "setup 1,0,n 1,0,nw");
	th_do(b, s, BLUE, "setup -2,1,n -2,1,ne");
	th_do(b, s, RED, red2);
	th_roll(b, s, 6, 6);
	clear_all(s);
	th_check(b, s);
}

static void test_rules__bank_trade_four_to_one(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	assert_int_equal(s.players[RED].harbours, 0);
	th_give(&s, RED, 4, 0, 0, 0, 0);
	th_reject(&b, &s, RED, "trade bank lumber:3 ore", CATAN_E_BAD_RATE);
	th_reject(&b, &s, RED, "trade bank lumber:2 ore", CATAN_E_BAD_RATE);
	th_do(&b, &s, RED, "trade bank lumber:4 ore");
	assert_hand(&s, RED, 0, 0, 0, 0, 1);
	assert_bank(&s, 19, 19, 19, 19, 18);
	th_give(&s, RED, 3, 0, 0, 0, 0);
	th_reject(&b, &s, RED, "trade bank lumber:4 ore",
		  CATAN_E_CANNOT_AFFORD);
	th_give(&s, BLUE, 4, 0, 0, 0, 0);
	th_reject(&b, &s, BLUE, "trade bank lumber:4 ore",
		  CATAN_E_NOT_YOUR_TURN);
}

static void test_rules__bank_trade_generic_harbour_three(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	/* N of 0,-2 is on the 3:1 harbour on the NW side of 0,-2. */
	harbour_game(&b, &s, "setup 0,-2,n 0,-2,ne", "setup -2,1,s -2,2,nw");
	assert_int_equal(s.players[RED].harbours, 1u << CATAN_HARBOUR_GENERIC);
	th_give(&s, RED, 3, 0, 8, 0, 0);
	th_reject(&b, &s, RED, "trade bank wool:2 grain", CATAN_E_BAD_RATE);
	th_do(&b, &s, RED, "trade bank lumber:3 grain");
	th_do(&b, &s, RED, "trade bank wool:3 grain");
	/* A harbour adds a rate; 4:1 stays open to everyone. */
	th_do(&b, &s, RED, "trade bank wool:4 grain");
	assert_hand(&s, RED, 0, 0, 1, 3, 0);
	assert_bank(&s, 19, 19, 18, 16, 19);
}

static void test_rules__bank_trade_specific_harbour_two(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	/* N of 2,-1 is on the ore 2:1 harbour on the NE side of 2,-1. */
	harbour_game(&b, &s, "setup 2,-1,n 2,-1,nw", "setup -2,1,s -2,2,nw");
	assert_int_equal(s.players[RED].harbours, 1u << CATAN_ORE);
	th_give(&s, RED, 4, 0, 0, 0, 6);
	/* The ore harbour gives no 3:1, on ore or anything else. */
	th_reject(&b, &s, RED, "trade bank ore:3 wool", CATAN_E_BAD_RATE);
	th_reject(&b, &s, RED, "trade bank lumber:3 wool", CATAN_E_BAD_RATE);
	th_reject(&b, &s, RED, "trade bank lumber:2 wool", CATAN_E_BAD_RATE);
	th_do(&b, &s, RED, "trade bank ore:2 wool");
	th_do(&b, &s, RED, "trade bank lumber:4 wool");
	th_do(&b, &s, RED, "trade bank ore:4 wool");
	assert_hand(&s, RED, 0, 0, 3, 0, 0);
	assert_bank(&s, 19, 19, 16, 19, 19);
}

static void test_rules__bank_trade_both_harbours(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	harbour_game(&b, &s, "setup 0,-2,n 0,-2,ne", "setup 2,-1,n 2,-1,nw");
	assert_int_equal(s.players[RED].harbours,
			 (1u << CATAN_HARBOUR_GENERIC) | (1u << CATAN_ORE));
	th_give(&s, RED, 7, 0, 0, 0, 9);
	th_reject(&b, &s, RED, "trade bank lumber:2 grain", CATAN_E_BAD_RATE);
	/* Every rate the player has: 2:1 ore, 3:1 anything, 4:1. */
	th_do(&b, &s, RED, "trade bank ore:2 grain");
	th_do(&b, &s, RED, "trade bank ore:3 grain");
	th_do(&b, &s, RED, "trade bank ore:4 grain");
	th_do(&b, &s, RED, "trade bank lumber:3 grain");
	th_do(&b, &s, RED, "trade bank lumber:4 grain");
	assert_hand(&s, RED, 0, 0, 0, 5, 0);
}

static void test_rules__harbour_usable_on_turn_built(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 3, 3, 1, 1, 0);
	/* From S of 0,-2 (red's road end) round to the NW corner of 0,-2. */
	th_do(&b, &s, RED, "build road 0,-2,sw");
	th_do(&b, &s, RED, "build road 0,-2,w");
	th_do(&b, &s, RED, "build settlement 0,-2,nw");
	assert_int_equal(s.players[RED].harbours, 1u << CATAN_HARBOUR_GENERIC);
	th_give(&s, RED, 0, 0, 0, 3, 0);
	th_do(&b, &s, RED, "trade bank grain:3 ore");
	assert_hand(&s, RED, 0, 0, 0, 0, 1);
}

static void test_rules__bank_trade_bank_empty(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 4, 0, 0, 0, 0);
	th_give(&s, BLUE, 0, 0, 0, 0, 19);
	th_reject(&b, &s, RED, "trade bank lumber:4 ore", CATAN_E_BANK_EMPTY);
	th_do(&b, &s, RED, "trade bank lumber:4 grain");
}

static void test_rules__bank_trade_same_resource(void **state)
{
	catan_board b;
	catan_state s;
	catan_action a;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 4, 0, 0, 0, 0);
	catan_action_init(&a, CATAN_ACT_TRADE_BANK);
	a.res = CATAN_LUMBER;
	a.count = 4;
	a.res2 = CATAN_LUMBER;
	reject_act(&b, &s, RED, &a, CATAN_E_BAD_TRADE);
}

static void test_rules__bank_trade_not_before_roll(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	th_give(&s, RED, 4, 0, 0, 0, 0);
	th_reject(&b, &s, RED, "trade bank lumber:4 ore", CATAN_E_WRONG_PHASE);
}

/* ---- domestic trade ---- */

/* Red in its main phase with lumber 2 brick 1; blue ore 2 wool 1. */
static void trade_game(catan_board *b, catan_state *s)
{
	main_phase(b, s, 4);
	th_give(s, RED, 2, 1, 0, 0, 0);
	th_give(s, BLUE, 0, 0, 1, 0, 2);
}

static void test_rules__offer_accept_swaps(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	trade_game(&b, &s);
	th_do(&b, &s, RED, "trade offer blue give lumber:2 get ore:1");
	assert_int_equal(s.phase, CATAN_PHASE_OFFER);
	assert_int_equal(s.offer_from, RED);
	assert_int_equal(s.offer_to, BLUE);
	assert_int_equal(catan_state_next_actor(&s), BLUE);
	/* Nothing moves until the answer. */
	assert_hand(&s, RED, 2, 1, 0, 0, 0);
	th_do(&b, &s, BLUE, "trade accept");
	assert_hand(&s, RED, 0, 1, 0, 0, 1);
	assert_hand(&s, BLUE, 2, 0, 1, 0, 1);
	assert_bank(&s, 17, 18, 18, 19, 17);
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	assert_int_equal(s.offer_from, CATAN_NONE);
	assert_int_equal(s.offer_to, CATAN_NONE);
}

static void test_rules__offer_reject_leaves_hands(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	trade_game(&b, &s);
	th_do(&b, &s, RED, "trade offer blue give lumber:1 get ore:2");
	th_do(&b, &s, BLUE, "trade reject");
	assert_hand(&s, RED, 2, 1, 0, 0, 0);
	assert_hand(&s, BLUE, 0, 0, 1, 0, 2);
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	assert_int_equal(s.offer_to, CATAN_NONE);
	th_reject(&b, &s, BLUE, "trade accept", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, RED, "trade accept", CATAN_E_NO_OFFER);
}

static void test_rules__offer_target_must_hold_asked_cards(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	trade_game(&b, &s);
	th_do(&b, &s, RED, "trade offer blue give lumber:1 get ore:3");
	th_reject(&b, &s, BLUE, "trade accept", CATAN_E_CANNOT_AFFORD);
	th_do(&b, &s, BLUE, "trade reject");
	th_do(&b, &s, RED, "trade offer blue give lumber:1 get grain:1");
	th_reject(&b, &s, BLUE, "trade accept", CATAN_E_CANNOT_AFFORD);
}

static void test_rules__offer_offerer_must_hold_given_cards(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	trade_game(&b, &s);
	th_reject(&b, &s, RED, "trade offer blue give lumber:3 get ore:1",
		  CATAN_E_CANNOT_AFFORD);
	th_reject(&b, &s, RED, "trade offer blue give grain:1 get ore:1",
		  CATAN_E_CANNOT_AFFORD);
}

static void test_rules__offer_needs_two_different_sides(void **state)
{
	catan_board b;
	catan_state s;
	catan_action a;

	(void)state;
	trade_game(&b, &s);
	/* A gift: nothing asked. */
	catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
	a.player = BLUE;
	a.give[CATAN_LUMBER] = 1;
	reject_act(&b, &s, RED, &a, CATAN_E_BAD_TRADE);
	/* Nothing given. */
	catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
	a.player = BLUE;
	a.get[CATAN_ORE] = 1;
	reject_act(&b, &s, RED, &a, CATAN_E_BAD_TRADE);
	/* Lumber on both sides. */
	catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
	a.player = BLUE;
	a.give[CATAN_LUMBER] = 2;
	a.get[CATAN_LUMBER] = 1;
	a.get[CATAN_ORE] = 1;
	reject_act(&b, &s, RED, &a, CATAN_E_BAD_TRADE);
}

static void test_rules__offer_only_target_answers(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	trade_game(&b, &s);
	th_give(&s, WHITE, 0, 0, 0, 0, 1);
	th_do(&b, &s, RED, "trade offer blue give lumber:1 get ore:1");
	th_reject(&b, &s, WHITE, "trade accept", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, RED, "trade accept", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, RED, "trade reject", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, RED, "end", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, BLUE, "end", CATAN_E_WRONG_PHASE);
	th_do(&b, &s, BLUE, "trade accept");
	assert_hand(&s, RED, 1, 1, 0, 0, 1);
	assert_hand(&s, WHITE, 0, 0, 0, 0, 1);
}

static void test_rules__offer_counter_offer(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	trade_game(&b, &s);
	th_do(&b, &s, RED, "trade offer blue give lumber:1 get ore:1");
	/* Blue answers with a counter-offer; only back to red. */
	th_reject(&b, &s, BLUE, "trade offer white give ore:1 get lumber:1",
		  CATAN_E_BAD_PLAYER);
	th_do(&b, &s, BLUE, "trade offer red give ore:2 get lumber:2");
	assert_int_equal(s.phase, CATAN_PHASE_OFFER);
	assert_int_equal(s.offer_from, BLUE);
	assert_int_equal(s.offer_to, RED);
	th_reject(&b, &s, BLUE, "trade accept", CATAN_E_NOT_YOUR_TURN);
	th_do(&b, &s, RED, "trade accept");
	assert_hand(&s, RED, 0, 1, 0, 0, 2);
	assert_hand(&s, BLUE, 2, 0, 1, 0, 0);
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	assert_int_equal(s.active, RED);
}

static void test_rules__offer_to_self_rejected(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	trade_game(&b, &s);
	th_reject(&b, &s, RED, "trade offer red give lumber:1 get ore:1",
		  CATAN_E_BAD_PLAYER);
}

static void test_rules__offer_only_by_active_after_roll(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	clear_all(&s);
	th_give(&s, RED, 1, 0, 0, 0, 0);
	th_give(&s, BLUE, 0, 0, 0, 0, 1);
	th_reject(&b, &s, RED, "trade offer blue give lumber:1 get ore:1",
		  CATAN_E_WRONG_PHASE);
	th_roll(&b, &s, 6, 6);
	th_reject(&b, &s, BLUE, "trade offer red give ore:1 get lumber:1",
		  CATAN_E_NOT_YOUR_TURN);
	th_do(&b, &s, RED, "trade offer blue give lumber:1 get ore:1");
}

static void test_rules__offer_limit(void **state)
{
	catan_board b;
	catan_state s;
	catan_options o = opts(4);

	(void)state;
	o.offer_limit = 2;
	start(&b, &s, &o);
	th_play_setup(&b, &s);
	th_roll(&b, &s, 6, 6);
	clear_all(&s);
	th_give(&s, RED, 2, 0, 0, 0, 0);
	th_give(&s, BLUE, 0, 0, 0, 0, 2);
	th_do(&b, &s, RED, "trade offer blue give lumber:1 get ore:1");
	th_do(&b, &s, BLUE, "trade reject");
	th_do(&b, &s, RED, "trade offer white give lumber:1 get ore:1");
	th_do(&b, &s, WHITE, "trade reject");
	assert_int_equal(s.offers, 2);
	th_reject(&b, &s, RED, "trade offer blue give lumber:1 get ore:1",
		  CATAN_E_OFFER_LIMIT);
	end_turn(&b, &s);
	/* The count starts again on blue's turn. */
	th_roll(&b, &s, 6, 6);
	assert_int_equal(s.offers, 0);
	th_do(&b, &s, BLUE, "trade offer red give ore:1 get lumber:1");
	th_do(&b, &s, RED, "trade accept");
	th_do(&b, &s, BLUE, "trade offer red give ore:1 get lumber:1");
	th_do(&b, &s, RED, "trade accept");
	th_reject(&b, &s, BLUE, "trade offer red give lumber:1 get ore:1",
		  CATAN_E_OFFER_LIMIT);
	assert_hand(&s, RED, 0, 0, 0, 0, 2);
	assert_hand(&s, BLUE, 2, 0, 0, 0, 0);
}

static void test_rules__offer_limit_counts_counter_offers(void **state)
{
	catan_board b;
	catan_state s;
	catan_options o = opts(4);

	(void)state;
	o.offer_limit = 1;
	start(&b, &s, &o);
	th_play_setup(&b, &s);
	th_roll(&b, &s, 6, 6);
	clear_all(&s);
	th_give(&s, RED, 2, 0, 0, 0, 0);
	th_give(&s, BLUE, 0, 0, 0, 0, 2);
	th_do(&b, &s, RED, "trade offer blue give lumber:1 get ore:1");
	/* spec/rules.md: the limit counts counter-offers too. */
	th_reject(&b, &s, BLUE, "trade offer red give ore:1 get lumber:2",
		  CATAN_E_OFFER_LIMIT);
	th_do(&b, &s, BLUE, "trade accept");
	assert_hand(&s, RED, 1, 0, 0, 0, 1);
}

/* ---- phases ---- */

static void test_rules__classic_phases(void **state)
{
	catan_board b;
	catan_state s;
	catan_options o = opts(4);

	(void)state;
	o.phases = CATAN_PHASES_CLASSIC;
	start(&b, &s, &o);
	th_play_setup(&b, &s);
	th_roll(&b, &s, 6, 6);
	assert_int_equal(s.phase, CATAN_PHASE_TRADE);
	clear_all(&s);
	th_give(&s, RED, 6, 2, 1, 1, 1);
	th_give(&s, BLUE, 0, 0, 0, 0, 1);
	/* Trade phase: trades yes, builds no. */
	th_reject(&b, &s, RED, "build road 0,-1,w", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "buy devcard", CATAN_E_WRONG_PHASE);
	th_do(&b, &s, RED, "trade bank lumber:4 grain");
	th_do(&b, &s, RED, "trade offer blue give grain:1 get ore:1");
	th_do(&b, &s, BLUE, "trade accept");
	assert_int_equal(s.phase, CATAN_PHASE_TRADE);
	assert_hand(&s, RED, 2, 2, 1, 1, 2);
	/* spec/rules.md: the turn ends from BUILD only. */
	th_reject(&b, &s, RED, "end", CATAN_E_WRONG_PHASE);
	th_do(&b, &s, RED, "end trade");
	assert_int_equal(s.phase, CATAN_PHASE_BUILD);
	/* Build phase: builds yes, trades no. */
	th_reject(&b, &s, RED, "trade bank lumber:4 grain",
		  CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "trade offer blue give ore:1 get grain:1",
		  CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "end trade", CATAN_E_WRONG_PHASE);
	th_do(&b, &s, RED, "build road 0,-1,w");
	th_do(&b, &s, RED, "buy devcard");
	assert_int_equal(s.phase, CATAN_PHASE_BUILD);
	th_do(&b, &s, RED, "end");
	assert_int_equal(s.active, BLUE);
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.turn, 2);
}

static void test_rules__combined_phase_trades_and_builds(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 6, 1, 0, 0, 0);
	th_give(&s, BLUE, 0, 1, 0, 0, 0);
	th_do(&b, &s, RED, "build road 0,-1,w");
	th_do(&b, &s, RED, "trade bank lumber:4 ore");
	th_do(&b, &s, RED, "trade offer blue give ore:1 get brick:1");
	th_do(&b, &s, BLUE, "trade accept");
	th_do(&b, &s, RED, "build road 0,-1,sw");
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	assert_hand(&s, RED, 0, 0, 0, 0, 0);
	th_reject(&b, &s, RED, "end trade", CATAN_E_WRONG_PHASE);
	end_turn(&b, &s);
	assert_int_equal(s.active, BLUE);
}

/* ---- building ---- */

static void test_rules__road_costs_lumber_and_brick(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 1, 1, 1, 0, 0);
	th_do(&b, &s, RED, "build road 0,-1,w");
	assert_hand(&s, RED, 0, 0, 1, 0, 0);
	assert_bank(&s, 19, 19, 18, 19, 19);
	assert_int_equal(s.players[RED].roads_left, 12);
	assert_true(
	    catan_eset_has(&s.players[RED].roads, th_edge(&b, 0, -1, "w")));
	th_give(&s, RED, 1, 0, 0, 0, 0);
	th_reject(&b, &s, RED, "build road 0,-1,sw", CATAN_E_CANNOT_AFFORD);
}

static void test_rules__road_must_connect(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 1, 1, 0, 0, 0);
	th_reject(&b, &s, RED, "build road 2,-2,nw", CATAN_E_NOT_CONNECTED);
	/* Touching only blue's road (NW corner of 1,0) is not enough. */
	th_reject(&b, &s, RED, "build road 1,0,w", CATAN_E_NOT_CONNECTED);
	/* From a settlement with no road of its own side is fine. */
	th_do(&b, &s, RED, "build road 0,-1,ne");
}

static void test_rules__road_on_occupied_edge(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 1, 1, 0, 0, 0);
	th_reject(&b, &s, RED, "build road 0,-1,nw", CATAN_E_OCCUPIED);
	th_do(&b, &s, RED, "build road 0,-1,ne");
	th_give(&s, RED, 1, 1, 0, 0, 0);
	th_reject(&b, &s, RED, "build road 0,-1,ne", CATAN_E_OCCUPIED);
}

static void test_rules__road_not_through_opponent_settlement(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 2);
	th_give(&s, RED, 1, 1, 0, 0, 0);
	th_do(&b, &s, RED, "build road 0,-1,w");
	/* Before blue builds, red could go on from N of -1,0. */
	th_give(&s, RED, 1, 1, 0, 0, 0);
	assert_int_equal(try_text(&b, &s, RED, "build road 0,-1,sw"), CATAN_OK);
	end_turn(&b, &s);
	th_roll(&b, &s, 6, 6);
	th_give(&s, BLUE, 3, 3, 1, 1, 0);
	th_do(&b, &s, BLUE, "build road -1,0,w");
	th_do(&b, &s, BLUE, "build road -1,0,nw");
	th_do(&b, &s, BLUE, "build settlement -1,0,n");
	end_turn(&b, &s);
	th_roll(&b, &s, 6, 6);
	th_reject(&b, &s, RED, "build road 0,-1,sw", CATAN_E_NOT_CONNECTED);
	th_reject(&b, &s, RED, "build road -1,0,nw", CATAN_E_OCCUPIED);
}

static void test_rules__settlement_costs_four_cards(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 1, 1, 0, 0, 0);
	th_do(&b, &s, RED, "build road 0,-1,w");
	th_give(&s, RED, 1, 1, 1, 1, 1);
	th_do(&b, &s, RED, "build settlement 0,-1,sw");
	assert_hand(&s, RED, 0, 0, 0, 0, 1);
	assert_bank(&s, 19, 19, 19, 19, 18);
	assert_int_equal(s.players[RED].settlements_left, 2);
	assert_int_equal(s.players[RED].public_vp, 3);
	assert_int_equal(catan_state_vp(&s, RED), 3);
	assert_true(catan_vset_has(&s.players[RED].settlements,
				   th_vertex(&b, -1, 0, "n")));
}

static void test_rules__settlement_cannot_afford(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 1, 1, 0, 0, 0);
	th_do(&b, &s, RED, "build road 0,-1,w");
	th_give(&s, RED, 1, 1, 1, 0, 3);
	th_reject(&b, &s, RED, "build settlement 0,-1,sw",
		  CATAN_E_CANNOT_AFFORD);
}

static void test_rules__settlement_needs_own_road(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 1, 1, 1, 1, 0);
	th_reject(&b, &s, RED, "build settlement 2,-2,n",
		  CATAN_E_NOT_CONNECTED);
	/* Two steps from red's settlement but no red road reaches it. */
	th_reject(&b, &s, RED, "build settlement 0,-1,sw",
		  CATAN_E_NOT_CONNECTED);
}

static void test_rules__settlement_distance_rule(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 1, 1, 1, 1, 0);
	/* Red's road reaches the NW corner, next to red's own settlement. */
	th_reject(&b, &s, RED, "build settlement 0,-1,nw",
		  CATAN_E_DISTANCE_RULE);
	th_reject(&b, &s, RED, "build settlement 0,-1,n", CATAN_E_OCCUPIED);
	th_reject(&b, &s, RED, "build settlement 1,0,n", CATAN_E_OCCUPIED);
}

static void test_rules__city_costs_and_returns_settlement(void **state)
{
	catan_board b;
	catan_state s;
	int v;

	(void)state;
	main_phase(&b, &s, 4);
	v = th_vertex(&b, 0, -1, "n");
	th_give(&s, RED, 0, 0, 1, 2, 3);
	th_do(&b, &s, RED, "build city 0,-1,n");
	assert_hand(&s, RED, 0, 0, 1, 0, 0);
	assert_bank(&s, 19, 19, 18, 19, 19);
	assert_true(catan_vset_has(&s.players[RED].cities, v));
	assert_false(catan_vset_has(&s.players[RED].settlements, v));
	assert_int_equal(s.players[RED].settlements_left, 4);
	assert_int_equal(s.players[RED].cities_left, 3);
	assert_int_equal(s.players[RED].public_vp, 3);
	th_give(&s, RED, 0, 0, 0, 2, 2);
	th_reject(&b, &s, RED, "build city -2,1,s", CATAN_E_CANNOT_AFFORD);
}

static void test_rules__city_needs_own_settlement(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 0, 0, 0, 4, 6);
	th_reject(&b, &s, RED, "build city 1,0,n", CATAN_E_NOT_YOUR_SETTLEMENT);
	th_reject(&b, &s, RED, "build city 2,-2,n",
		  CATAN_E_NOT_YOUR_SETTLEMENT);
	th_do(&b, &s, RED, "build city 0,-1,n");
	th_reject(&b, &s, RED, "build city 0,-1,n",
		  CATAN_E_NOT_YOUR_SETTLEMENT);
}

static void test_rules__road_piece_limit(void **state)
{
	catan_board b;
	catan_state s;
	catan_action a;
	int spot = -1;

	(void)state;
	main_phase(&b, &s, 4);
	for (int i = 0; i < 13; i++)
		build_any_road(&b, &s, RED);
	assert_int_equal(s.players[RED].roads_left, 0);
	assert_int_equal(catan_eset_count(&s.players[RED].roads), 15);
	th_give(&s, RED, 1, 1, 0, 0, 0);
	/* An edge that would be legal with a road in supply. */
	catan_action_init(&a, CATAN_ACT_BUILD_ROAD);
	for (int e = 0; e < b.nedges && spot < 0; e++) {
		catan_state t = s;

		t.players[RED].roads_left = 1;
		a.edge = (uint8_t)e;
		if (catan_state_apply(&t, &b, &t, RED, &a, NULL) == CATAN_OK)
			spot = e;
	}
	assert_true(spot >= 0);
	a.edge = (uint8_t)spot;
	reject_act(&b, &s, RED, &a, CATAN_E_NO_PIECES);
}

static void test_rules__settlement_piece_limit(void **state)
{
	catan_board b;
	catan_state s;
	catan_options o = opts(4);
	catan_action a;
	int spot = -1;

	(void)state;
	o.vp_target = 20;
	start(&b, &s, &o);
	th_play_setup(&b, &s);
	th_roll(&b, &s, 6, 6);
	clear_all(&s);
	build_all_settlements(&b, &s, RED);
	assert_int_equal(catan_vset_count(&s.players[RED].settlements), 5);
	/* Find a spot that would take a sixth settlement. */
	catan_action_init(&a, CATAN_ACT_BUILD_SETTLEMENT);
	for (int guard = 0; spot < 0; guard++) {
		catan_state t = s;

		if (guard > 10)
			fail_msg("no spot for a sixth settlement");
		th_give(&t, RED, 1, 1, 1, 1, 0);
		t.players[RED].settlements_left = 1;
		for (int v = 0; v < b.nvertices && spot < 0; v++) {
			catan_state u = t;

			a.vertex = (uint8_t)v;
			if (catan_state_apply(&u, &b, &u, RED, &a, NULL) ==
			    CATAN_OK)
				spot = v;
		}
		if (spot < 0)
			build_any_road(&b, &s, RED);
	}
	clear_all(&s);
	th_give(&s, RED, 1, 1, 1, 1, 0);
	a.vertex = (uint8_t)spot;
	reject_act(&b, &s, RED, &a, CATAN_E_NO_PIECES);
	/* A city puts a settlement back in supply (rulebook, Settlements). */
	th_give(&s, RED, 0, 0, 0, 2, 3);
	th_do(&b, &s, RED, "build city 0,-1,n");
	assert_int_equal(s.players[RED].settlements_left, 1);
	do_act(&b, &s, RED, &a);
	assert_int_equal(s.players[RED].settlements_left, 0);
}

static void test_rules__city_piece_limit(void **state)
{
	catan_board b;
	catan_state s;
	catan_options o = opts(4);
	catan_action a;
	int n = 0, last = -1;

	(void)state;
	o.vp_target = 20;
	start(&b, &s, &o);
	th_play_setup(&b, &s);
	th_roll(&b, &s, 6, 6);
	clear_all(&s);
	build_all_settlements(&b, &s, RED);
	catan_action_init(&a, CATAN_ACT_BUILD_CITY);
	for (int v = 0; v < b.nvertices; v++) {
		if (!catan_vset_has(&s.players[RED].settlements, v))
			continue;
		a.vertex = (uint8_t)v;
		if (n == 4) {
			last = v;
			break;
		}
		th_give(&s, RED, 0, 0, 0, 2, 3);
		do_act(&b, &s, RED, &a);
		n++;
	}
	assert_int_equal(s.players[RED].cities_left, 0);
	assert_int_equal(catan_vset_count(&s.players[RED].cities), 4);
	assert_true(last >= 0);
	th_give(&s, RED, 0, 0, 0, 2, 3);
	a.vertex = (uint8_t)last;
	reject_act(&b, &s, RED, &a, CATAN_E_NO_PIECES);
}

static void test_rules__no_building_before_roll(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	th_give(&s, RED, 2, 2, 2, 3, 3);
	th_reject(&b, &s, RED, "build road 0,-1,w", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "build settlement 0,-1,sw", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "build city 0,-1,n", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "buy devcard", CATAN_E_WRONG_PHASE);
}

/* ---- development cards ---- */

static void test_rules__devcard_costs_ore_wool_grain(void **state)
{
	catan_board b;
	catan_state s;
	catan_action a;
	catan_outcome oc;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 1, 0, 1, 1, 1);
	a = th_action(&b, "buy devcard");
	assert_int_equal(catan_state_apply(&s, &b, &s, RED, &a, &oc), CATAN_OK);
	th_check(&b, &s);
	assert_hand(&s, RED, 1, 0, 0, 0, 0);
	assert_bank(&s, 18, 19, 19, 19, 19);
	assert_int_equal(deck_left(&s), 24);
	assert_int_equal(devs_held(&s, RED), 1);
	assert_in_range(oc.drawn, 0, CATAN_DEV_COUNT - 1);
	assert_int_equal(s.players[RED].devs[oc.drawn], 1);
	assert_int_equal(s.bought[oc.drawn], 1);
	th_reject(&b, &s, RED, "buy devcard", CATAN_E_CANNOT_AFFORD);
}

static void test_rules__devcard_deck_empty(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		while (s.deck[d])
			th_give_dev(&s, BLUE, d);
	th_check(&b, &s);
	th_give(&s, RED, 0, 0, 1, 1, 1);
	th_reject(&b, &s, RED, "buy devcard", CATAN_E_DECK_EMPTY);
}

/* Two players, manual dice: red in its main phase, empty hands. */
static void manual_game(catan_board *b, catan_state *s, int vp_target)
{
	catan_options o = opts(2);

	o.dice = CATAN_DICE_MANUAL;
	o.vp_target = (uint8_t)vp_target;
	start(b, s, &o);
	th_play_setup(b, s);
	th_do(b, s, RED, "roll 6 6");
	clear_all(s);
	th_check(b, s);
}

static void test_rules__devcard_not_playable_on_turn_bought(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	manual_game(&b, &s, 10);
	th_give(&s, RED, 0, 0, 1, 1, 1);
	th_do(&b, &s, RED, "buy devcard knight");
	assert_int_equal(s.players[RED].devs[CATAN_DEV_KNIGHT], 1);
	assert_int_equal(s.deck[CATAN_DEV_KNIGHT], 13);
	th_reject(&b, &s, RED, "play knight 2,-2",
		  CATAN_E_CARD_BOUGHT_THIS_TURN);
	end_turn(&b, &s);
	th_do(&b, &s, BLUE, "roll 6 6");
	end_turn(&b, &s);
	th_do(&b, &s, RED, "play knight 2,-2");
	assert_int_equal(s.players[RED].knights, 1);
	assert_int_equal(s.players[RED].devs[CATAN_DEV_KNIGHT], 0);
}

static void test_rules__devcard_older_copy_playable(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	manual_game(&b, &s, 10);
	th_give_dev(&s, RED, CATAN_DEV_MONOPOLY);
	th_give(&s, RED, 0, 0, 1, 1, 1);
	th_do(&b, &s, RED, "buy devcard monopoly");
	assert_int_equal(s.players[RED].devs[CATAN_DEV_MONOPOLY], 2);
	/* The card held before this turn may be played. */
	th_do(&b, &s, RED, "play monopoly ore");
	assert_int_equal(s.players[RED].devs[CATAN_DEV_MONOPOLY], 1);
	assert_int_equal(s.played[CATAN_DEV_MONOPOLY], 1);
}

static void test_rules__devcard_one_per_turn(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 2);
	th_play_setup(&b, &s);
	clear_all(&s);
	th_give_dev(&s, RED, CATAN_DEV_KNIGHT);
	th_give_dev(&s, RED, CATAN_DEV_KNIGHT);
	th_give_dev(&s, RED, CATAN_DEV_MONOPOLY);
	th_do(&b, &s, RED, "play knight 2,-2");
	th_reject(&b, &s, RED, "play monopoly wool",
		  CATAN_E_CARD_ALREADY_PLAYED);
	th_roll(&b, &s, 6, 6);
	th_reject(&b, &s, RED, "play knight 1,-2", CATAN_E_CARD_ALREADY_PLAYED);
	th_reject(&b, &s, RED, "play monopoly wool",
		  CATAN_E_CARD_ALREADY_PLAYED);
	end_turn(&b, &s);
	pass(&b, &s, 6, 6);
	th_do(&b, &s, RED, "play monopoly wool");
	assert_int_equal(s.players[RED].devs[CATAN_DEV_KNIGHT], 1);
}

static void test_rules__devcard_not_during_discard_robber_offer(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	clear_all(&s);
	th_give(&s, RED, 8, 0, 0, 0, 0);
	th_give(&s, WHITE, 0, 0, 8, 0, 0);
	th_give(&s, BLUE, 0, 0, 0, 0, 1);
	th_give_dev(&s, RED, CATAN_DEV_KNIGHT);
	th_give_dev(&s, BLUE, CATAN_DEV_KNIGHT);
	th_roll(&b, &s, 3, 4);
	assert_int_equal(s.phase, CATAN_PHASE_DISCARD);
	th_reject(&b, &s, RED, "play knight 2,-2", CATAN_E_WRONG_PHASE);
	th_do(&b, &s, RED, "discard lumber:4");
	th_do(&b, &s, WHITE, "discard wool:4");
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
	th_reject(&b, &s, RED, "play knight 2,-2", CATAN_E_WRONG_PHASE);
	th_do(&b, &s, RED, "robber 2,-2");
	th_do(&b, &s, RED, "trade offer blue give lumber:1 get ore:1");
	th_reject(&b, &s, RED, "play knight 1,-2", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, BLUE, "play knight 1,-2", CATAN_E_WRONG_PHASE);
	th_do(&b, &s, BLUE, "trade reject");
	th_do(&b, &s, RED, "play knight 1,-2");
	assert_int_equal(s.players[RED].knights, 1);
}

static void test_rules__knight_before_roll_no_discard(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	clear_all(&s);
	th_give(&s, BLUE, 0, 0, 10, 0, 0);
	th_give(&s, RED, 5, 5, 0, 0, 0);
	th_give_dev(&s, RED, CATAN_DEV_KNIGHT);
	th_do(&b, &s, RED, "play knight 1,0 blue");
	assert_int_equal(s.robber, th_tile(&b, 1, 0));
	assert_hand(&s, RED, 5, 5, 1, 0, 0);
	assert_hand(&s, BLUE, 0, 0, 9, 0, 0);
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	for (int p = RED; p <= ORANGE; p++)
		assert_int_equal(s.discard[p], 0);
	assert_int_equal(s.players[RED].knights, 1);
	assert_int_equal(s.played[CATAN_DEV_KNIGHT], 1);
	assert_int_equal(s.players[RED].devs[CATAN_DEV_KNIGHT], 0);
	th_do(&b, &s, RED, "roll");
}

static void test_rules__knight_moves_robber_like_a_seven(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	clear_all(&s);
	th_give(&s, BLUE, 0, 0, 1, 0, 0);
	th_give_dev(&s, RED, CATAN_DEV_KNIGHT);
	th_reject(&b, &s, RED, "play knight 0,0", CATAN_E_ROBBER_SAME_TILE);
	th_reject(&b, &s, RED, "play knight 1,0", CATAN_E_VICTIM_REQUIRED);
	th_reject(&b, &s, RED, "play knight 1,0 orange", CATAN_E_BAD_VICTIM);
	th_do(&b, &s, RED, "play knight 2,-2");
	assert_hand(&s, BLUE, 0, 0, 1, 0, 0);
}

static void test_rules__road_building_two_free_roads(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give_dev(&s, RED, CATAN_DEV_ROAD_BUILDING);
	th_reject(&b, &s, RED, "play road-building 0,-1,w", CATAN_E_TOO_FEW);
	/* The second road may hang off the first. */
	th_do(&b, &s, RED, "play road-building 0,-1,w 0,-1,sw");
	assert_hand(&s, RED, 0, 0, 0, 0, 0);
	assert_bank(&s, 19, 19, 19, 19, 19);
	assert_int_equal(s.players[RED].roads_left, 11);
	assert_true(
	    catan_eset_has(&s.players[RED].roads, th_edge(&b, 0, -1, "w")));
	assert_true(
	    catan_eset_has(&s.players[RED].roads, th_edge(&b, 0, -1, "sw")));
	assert_int_equal(s.players[RED].road_length, 3);
}

static void test_rules__road_building_one_when_second_impossible(void **state)
{
	catan_board b;
	catan_state s;
	catan_action a;
	int spot = -1;

	(void)state;
	main_phase(&b, &s, 4);
	for (int i = 0; i < 12; i++)
		build_any_road(&b, &s, RED);
	clear_all(&s);
	assert_int_equal(s.players[RED].roads_left, 1);
	th_give_dev(&s, RED, CATAN_DEV_ROAD_BUILDING);
	catan_action_init(&a, CATAN_ACT_PLAY_ROAD_BUILDING);
	for (int e = 0; e < b.nedges && spot < 0; e++) {
		a.edge = (uint8_t)e;
		if (try_act(&b, &s, RED, &a) == CATAN_OK)
			spot = e;
	}
	assert_true(spot >= 0);
	a.edge = (uint8_t)spot;
	a.edge2 = (uint8_t)(spot == 0 ? 1 : 0);
	reject_act(&b, &s, RED, &a, CATAN_E_NO_PIECES);
	a.edge2 = CATAN_NONE;
	do_act(&b, &s, RED, &a);
	assert_int_equal(s.players[RED].roads_left, 0);
	assert_hand(&s, RED, 0, 0, 0, 0, 0);
}

static void test_rules__road_building_one_when_no_second_spot(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	/*
	 * Red on two coastal corners (NE of 2,-2 and SW of -2,2), blue on
	 * the corners two steps along the coast; blue's roads then run
	 * round both tiles up to red's settlements. Red is left with one
	 * free edge per pocket, each ending at a blue settlement.
	 */
	th_new_game(&b, &s, 2);
	th_do(&b, &s, RED, "setup 2,-2,ne 2,-2,ne");
	th_do(&b, &s, BLUE, "setup 2,-2,nw 2,-2,w");
	th_do(&b, &s, BLUE, "setup -2,2,se -2,2,e");
	th_do(&b, &s, RED, "setup -2,2,sw -2,2,sw");
	pass(&b, &s, 6, 6);
	th_roll(&b, &s, 6, 6);
	clear_all(&s);
	th_give(&s, BLUE, 6, 6, 0, 0, 0);
	th_do(&b, &s, BLUE, "build road 2,-2,sw");
	th_do(&b, &s, BLUE, "build road 2,-2,se");
	th_do(&b, &s, BLUE, "build road 2,-2,e");
	th_do(&b, &s, BLUE, "build road -2,2,ne");
	th_do(&b, &s, BLUE, "build road -2,2,nw");
	th_do(&b, &s, BLUE, "build road -2,2,w");
	end_turn(&b, &s);
	th_roll(&b, &s, 6, 6);
	clear_all(&s);
	th_give_dev(&s, RED, CATAN_DEV_ROAD_BUILDING);
	/* Two free edges: one road alone is not enough. */
	th_reject(&b, &s, RED, "play road-building 2,-2,nw", CATAN_E_TOO_FEW);
	th_give(&s, RED, 1, 1, 0, 0, 0);
	th_do(&b, &s, RED, "build road -2,2,se");
	/* Now the road on 2,-2,nw leaves no spot for a second. */
	th_reject(&b, &s, RED, "play road-building 2,-2,nw 2,-2,e",
		  CATAN_E_OCCUPIED);
	th_do(&b, &s, RED, "play road-building 2,-2,nw");
	assert_int_equal(s.players[RED].roads_left, 11);
	assert_true(
	    catan_eset_has(&s.players[RED].roads, th_edge(&b, 2, -2, "nw")));
	assert_int_equal(s.players[RED].devs[CATAN_DEV_ROAD_BUILDING], 0);
}

static void test_rules__year_of_plenty_two_cards(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give_dev(&s, RED, CATAN_DEV_YEAR_OF_PLENTY);
	th_reject(&b, &s, RED, "play year-of-plenty ore", CATAN_E_TOO_FEW);
	th_do(&b, &s, RED, "play year-of-plenty ore grain");
	assert_hand(&s, RED, 0, 0, 0, 1, 1);
	assert_bank(&s, 19, 19, 19, 18, 18);
	assert_int_equal(s.players[RED].devs[CATAN_DEV_YEAR_OF_PLENTY], 0);
}

static void test_rules__year_of_plenty_same_resource_twice(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give_dev(&s, RED, CATAN_DEV_YEAR_OF_PLENTY);
	th_do(&b, &s, RED, "play year-of-plenty brick brick");
	assert_hand(&s, RED, 0, 2, 0, 0, 0);
	assert_bank(&s, 19, 17, 19, 19, 19);
}

static void test_rules__year_of_plenty_one_when_bank_has_one(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	clear_all(&s);
	th_give(&s, RED, 19, 19, 0, 0, 0);
	th_give(&s, BLUE, 0, 0, 19, 19, 0);
	th_give(&s, WHITE, 0, 0, 0, 0, 18);
	th_give_dev(&s, RED, CATAN_DEV_YEAR_OF_PLENTY);
	th_check(&b, &s);
	/* Played before the roll: the bank holds a single ore. */
	th_reject(&b, &s, RED, "play year-of-plenty ore grain",
		  CATAN_E_BANK_EMPTY);
	th_reject(&b, &s, RED, "play year-of-plenty ore ore",
		  CATAN_E_BANK_EMPTY);
	th_reject(&b, &s, RED, "play year-of-plenty grain", CATAN_E_BANK_EMPTY);
	th_do(&b, &s, RED, "play year-of-plenty ore");
	assert_hand(&s, RED, 19, 19, 0, 0, 1);
	assert_bank(&s, 0, 0, 0, 0, 0);
}

static void test_rules__monopoly_takes_every_card(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 1, 0, 1, 0, 0);
	th_give(&s, BLUE, 0, 0, 3, 0, 2);
	th_give(&s, WHITE, 0, 0, 2, 0, 0);
	th_give(&s, ORANGE, 0, 0, 0, 0, 1);
	th_give_dev(&s, RED, CATAN_DEV_MONOPOLY);
	th_do(&b, &s, RED, "play monopoly wool");
	assert_hand(&s, RED, 1, 0, 6, 0, 0);
	assert_hand(&s, BLUE, 0, 0, 0, 0, 2);
	assert_hand(&s, WHITE, 0, 0, 0, 0, 0);
	assert_hand(&s, ORANGE, 0, 0, 0, 0, 1);
	assert_bank(&s, 18, 19, 13, 19, 16);
}

static void test_rules__victory_point_card_counts_at_once(void **state)
{
	catan_board b;
	catan_state s;
	catan_action a;
	catan_parse_error err;

	(void)state;
	manual_game(&b, &s, 10);
	assert_int_equal(catan_state_vp(&s, RED), 2);
	th_give(&s, RED, 0, 0, 1, 1, 1);
	th_do(&b, &s, RED, "buy devcard victory-point");
	assert_int_equal(catan_state_vp(&s, RED), 3);
	assert_int_equal(s.players[RED].public_vp, 2);
	/* There is no action that plays one (spec/actions.md: a parse error).
	 */
	assert_int_equal(
	    catan_action_parse(&a, &b, NULL, "play victory-point", &err),
	    CATAN_E_PARSE);
	end_turn(&b, &s);
	th_do(&b, &s, BLUE, "roll 6 6");
	end_turn(&b, &s);
	assert_int_equal(catan_action_parse(&a, &b, NULL, "play vp", &err),
			 CATAN_E_PARSE);
	assert_int_equal(catan_state_vp(&s, RED), 3);
}

/* ---- longest road ---- */

static void test_rules__longest_road_needs_five(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 5, 5, 0, 0, 0);
	/* Around 0,-1 from red's settlement on its N corner. */
	th_do(&b, &s, RED, "build road 0,-1,w");
	th_do(&b, &s, RED, "build road 0,-1,sw");
	th_do(&b, &s, RED, "build road 0,-1,se");
	assert_int_equal(s.players[RED].road_length, 4);
	assert_int_equal(s.longest_road, CATAN_NONE);
	assert_int_equal(s.players[RED].public_vp, 2);
	th_do(&b, &s, RED, "build road 0,-1,e");
	assert_int_equal(s.players[RED].road_length, 5);
	assert_int_equal(s.longest_road, RED);
	assert_int_equal(s.players[RED].public_vp, 4);
	assert_int_equal(catan_state_vp(&s, RED), 4);
}

static void test_rules__longest_road_loop_and_revisit(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 6, 6, 0, 0, 0);
	th_do(&b, &s, RED, "build road 0,-1,w");
	th_do(&b, &s, RED, "build road 0,-1,sw");
	th_do(&b, &s, RED, "build road 0,-1,se");
	th_do(&b, &s, RED, "build road 0,-1,e");
	th_do(&b, &s, RED, "build road 0,-1,ne");
	/* Six roads closing a ring around 0,-1. */
	assert_int_equal(catan_state_road_length(&b, &s, RED), 6);
	assert_int_equal(s.players[RED].road_length, 6);
	/*
	 * A tail off the ring at N of -1,0: the trail runs the tail, the
	 * whole ring, and ends where it joined (a vertex seen twice).
	 */
	th_do(&b, &s, RED, "build road -1,0,nw");
	assert_int_equal(catan_state_road_length(&b, &s, RED), 7);
	assert_int_equal(s.players[RED].road_length, 7);
}

static void test_rules__longest_road_fork_counts_one_branch(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 4);
	th_give(&s, RED, 5, 5, 0, 0, 0);
	th_do(&b, &s, RED, "build road 0,-1,w");
	th_do(&b, &s, RED, "build road 0,-1,sw");
	th_do(&b, &s, RED, "build road -1,0,nw");
	th_do(&b, &s, RED, "build road 0,-1,se");
	/* Five roads: N-NW-SW-S-SE of 0,-1 (4) plus a branch at SW. */
	assert_int_equal(catan_eset_count(&s.players[RED].roads), 6);
	assert_int_equal(catan_state_road_length(&b, &s, RED), 4);
	assert_int_equal(s.players[RED].road_length, 4);
	assert_int_equal(s.longest_road, CATAN_NONE);
	th_do(&b, &s, RED, "build road 0,-1,e");
	assert_int_equal(s.players[RED].road_length, 5);
	assert_int_equal(s.longest_road, RED);
}

/*
 * Reference longest trail: every trail walked from every vertex, each road
 * at most once, never through a vertex with an opponent's building.
 */
static int brute_trail(const catan_board *b, const catan_state *s, int p, int v,
		       catan_eset *used, int len)
{
	const catan_player *pl = &s->players[p];
	int best = len;

	if (len > 0 && catan_vset_has(&s->occupied, v) &&
	    !catan_vset_has(&pl->settlements, v) &&
	    !catan_vset_has(&pl->cities, v))
		return len;
	for (int i = 0; i < 3; i++) {
		int e = b->vertex_edges[v][i], u, got;

		if (e == CATAN_NONE || !catan_eset_has(&pl->roads, e) ||
		    catan_eset_has(used, e))
			continue;
		u = b->edge_vertices[e][0] == v ? b->edge_vertices[e][1]
						: b->edge_vertices[e][0];
		catan_eset_add(used, e);
		got = brute_trail(b, s, p, u, used, len + 1);
		used->w[e >> 6] &= ~((uint64_t)1 << (e & 63));
		if (got > best)
			best = got;
	}
	return best;
}

static int brute_length(const catan_board *b, const catan_state *s, int p)
{
	int best = 0;

	for (int v = 0; v < b->nvertices; v++) {
		catan_eset used;
		int got;

		memset(&used, 0, sizeof used);
		got = brute_trail(b, s, p, v, &used, 0);
		if (got > best)
			best = got;
	}
	return best;
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Roads of players other than p at vertex v. */
static int opponent_roads_at(const catan_board *b, const catan_state *s, int p,
			     int v)
{
	int n = 0;

	for (int i = 0; i < 3; i++) {
		int e = b->vertex_edges[v][i];

		if (e != CATAN_NONE && catan_eset_has(&s->roads, e) &&
		    !catan_eset_has(&s->players[p].roads, e))
			n++;
	}
	return n;
}

/*
 * Applies a randomly chosen legal build of `kind`: a settlement on a vertex
 * that cuts an opponent's road whenever there is one (else a random one a
 * quarter of the time), a road next to two opponent roads half the time
 * there is one. Returns the vertex or edge built, or -1 if none was built.
 */
static int build_random(const catan_board *b, catan_state *s, int kind,
			uint64_t *rng)
{
	catan_action a, ok[CATAN_MAX_EDGES];
	int n = 0, ncut = 0,
	    ids = kind == CATAN_ACT_BUILD_ROAD ? b->nedges : b->nvertices;

	catan_action_init(&a, kind);
	for (int i = 0; i < ids; i++) {
		if (kind == CATAN_ACT_BUILD_ROAD)
			a.edge = (uint8_t)i;
		else
			a.vertex = (uint8_t)i;
		if (try_act(b, s, s->active, &a) != CATAN_OK)
			continue;
		if (kind == CATAN_ACT_BUILD_SETTLEMENT
			? opponent_roads_at(b, s, s->active, i) >= 2
			: opponent_roads_at(b, s, s->active,
					    b->edge_vertices[i][0]) +
				  opponent_roads_at(b, s, s->active,
						    b->edge_vertices[i][1]) >=
			      2) {
			/* Cutting spots (and roads toward them) first. */
			ok[n++] = ok[ncut];
			ok[ncut++] = a;
		} else {
			ok[n++] = a;
		}
	}
	if (n == 0)
		return -1;
	if (kind == CATAN_ACT_BUILD_SETTLEMENT && !ncut && xorshift(rng) % 4)
		return -1; /* keep most settlements for cutting */
	if (ncut && (kind == CATAN_ACT_BUILD_SETTLEMENT || xorshift(rng) & 1))
		n = ncut;
	a = ok[xorshift(rng) % (uint64_t)n];
	do_act(b, s, s->active, &a);
	return kind == CATAN_ACT_BUILD_ROAD ? a.edge : a.vertex;
}

static void test_rules__road_length_is_longest_trail(void **state)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	int checked = 0, cut = 0, long_ones = 0;

	(void)state;
	for (int game = 0; game < 120; game++) {
		catan_board b;
		catan_state s;
		catan_options o = opts(2 + game % 3);
		int n = o.nplayers;

		o.vp_target = 20;
		start(&b, &s, &o);
		th_play_setup(&b, &s);
		for (int turn = 0; turn < 6 * n; turn++) {
			th_roll(&b, &s, 6, 6);
			clear_all(&s);
			th_give(&s, s.active, 4, 4, 1, 1, 0);
			for (int k = 0; k < 4; k++) {
				int kind = k == 3 ? CATAN_ACT_BUILD_SETTLEMENT
						  : CATAN_ACT_BUILD_ROAD;
				int id = build_random(&b, &s, kind, &rng);

				if (id < 0)
					continue;
				cut += kind == CATAN_ACT_BUILD_SETTLEMENT &&
				       opponent_roads_at(&b, &s, s.active,
							 id) >= 2;
				for (int p = 0; p < n; p++) {
					int want = brute_length(&b, &s, p);

					assert_int_equal(
					    catan_state_road_length(&b, &s, p),
					    want);
					assert_int_equal(
					    s.players[p].road_length, want);
					long_ones += want >= 7;
					checked++;
				}
			}
			clear_all(&s);
			end_turn(&b, &s);
		}
	}
	/* The random networks did get long and did get cut into. */
	assert_true(checked > 5000);
	assert_true(long_ones > 500);
	assert_true(cut > 20);
}

static void test_rules__longest_road_tie_keeps_holder(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	main_phase(&b, &s, 2);
	th_give(&s, RED, 4, 4, 0, 0, 0);
	th_do(&b, &s, RED, "build road 0,-1,w");
	th_do(&b, &s, RED, "build road 0,-1,sw");
	th_do(&b, &s, RED, "build road 0,-1,se");
	th_do(&b, &s, RED, "build road 0,-1,e");
	assert_int_equal(s.longest_road, RED);
	end_turn(&b, &s);
	th_roll(&b, &s, 6, 6);
	th_give(&s, BLUE, 5, 5, 0, 0, 0);
	/* Around 1,0 from blue's settlement on its N corner. */
	th_do(&b, &s, BLUE, "build road 1,0,w");
	th_do(&b, &s, BLUE, "build road 1,0,sw");
	th_do(&b, &s, BLUE, "build road 1,0,se");
	th_do(&b, &s, BLUE, "build road 1,0,e");
	assert_int_equal(s.players[BLUE].road_length, 5);
	assert_int_equal(s.longest_road, RED);
	assert_int_equal(s.players[RED].public_vp, 4);
	assert_int_equal(s.players[BLUE].public_vp, 2);
	th_do(&b, &s, BLUE, "build road 1,0,ne");
	assert_int_equal(s.players[BLUE].road_length, 6);
	assert_int_equal(s.longest_road, BLUE);
	assert_int_equal(s.players[RED].public_vp, 2);
	assert_int_equal(s.players[BLUE].public_vp, 4);
}

/*
 * Three players for the road-cutting rules. Red starts on S of -1,-1 and
 * will run a 7-road zigzag v0..v7 between rows -1 and 0:
 *   v0 S(-1,-1), v1 N(-1,0), v2 S(0,-1), v3 N(0,0), v4 S(1,-1),
 *   v5 N(1,0), v6 S(2,-1), v7 N(2,0).
 * White starts on NE of 2,-2 and can come down to v5 in five roads; blue
 * starts on `blue1` (SE of 2,0 comes up to v4 in five roads).
 */
static void cut_game(catan_board *b, catan_state *s, const char *blue1,
		     int vp_target)
{
	catan_options o = opts(3);

	o.vp_target = (uint8_t)vp_target;
	start(b, s, &o);
	th_do(b, s, RED, "setup -1,-1,s -1,0,nw");
	th_do(b, s, BLUE, blue1);
	th_do(b, s, WHITE, "setup 2,-2,ne 2,-2,ne");
	th_do(b, s, WHITE, "setup -1,2,s -1,2,sw");
	th_do(b, s, BLUE, "setup -2,1,sw -2,1,w");
	th_do(b, s, RED, "setup 0,2,s 0,2,sw");
	assert_int_equal(s->phase, CATAN_PHASE_ROLL);
	clear_all(s);
	/* 2 (wool at 1,-2) produces nothing in these games. */
	th_roll(b, s, 1, 1);
	assert_int_equal(s->players[RED].ncards, 0);
	th_give(s, RED, 6, 6, 0, 0, 0);
	th_do(b, s, RED, "build road -1,0,ne");
	th_do(b, s, RED, "build road 0,0,nw");
	th_do(b, s, RED, "build road 0,0,ne");
	th_do(b, s, RED, "build road 1,0,nw");
	th_do(b, s, RED, "build road 1,0,ne");
	th_do(b, s, RED, "build road 2,0,nw");
	assert_int_equal(s->players[RED].road_length, 7);
	assert_int_equal(s->longest_road, RED);
	assert_int_equal(s->players[RED].public_vp, 4);
	end_turn(b, s);
}

/* Blue's five roads from SE of 2,0 up to v4 (S of 1,-1). */
static void blue_up_to_v4(const catan_board *b, catan_state *s)
{
	th_give(s, BLUE, 4, 4, 0, 0, 0);
	th_do(b, s, BLUE, "build road 1,1,ne");
	th_do(b, s, BLUE, "build road 1,0,se");
	th_do(b, s, BLUE, "build road 1,0,sw");
	th_do(b, s, BLUE, "build road 1,0,w");
	assert_int_equal(s->players[BLUE].road_length, 5);
}

/* White's five roads from NE of 2,-2 down to v5 (N of 1,0). */
static void white_down_to_v5(const catan_board *b, catan_state *s)
{
	th_give(s, WHITE, 4, 4, 0, 0, 0);
	th_do(b, s, WHITE, "build road 2,-2,nw");
	th_do(b, s, WHITE, "build road 1,-2,e");
	th_do(b, s, WHITE, "build road 1,-1,ne");
	th_do(b, s, WHITE, "build road 1,-1,e");
	assert_int_equal(s->players[WHITE].road_length, 5);
}

static void test_rules__longest_road_cut_holder_keeps_when_tied(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	cut_game(&b, &s, "setup 2,0,se 2,0,se", 10);
	pass(&b, &s, 1, 1); /* blue */
	th_roll(&b, &s, 1, 1);
	white_down_to_v5(&b, &s);
	assert_int_equal(s.longest_road, RED);
	th_give(&s, WHITE, 1, 1, 1, 1, 0);
	th_do(&b, &s, WHITE, "build settlement 1,0,n");
	/* Red: v0..v5 = 5 and v5..v7 = 2; tied with white at 5. */
	assert_int_equal(s.players[RED].road_length, 5);
	assert_int_equal(catan_state_road_length(&b, &s, RED), 5);
	assert_int_equal(s.longest_road, RED);
	assert_int_equal(s.players[RED].public_vp, 4);
	assert_int_equal(s.players[WHITE].public_vp, 3);
}

static void test_rules__longest_road_cut_goes_to_unique_longest(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	cut_game(&b, &s, "setup 2,0,se 2,0,se", 10);
	th_roll(&b, &s, 1, 1);
	blue_up_to_v4(&b, &s);
	assert_int_equal(s.longest_road, RED);
	th_give(&s, BLUE, 1, 1, 1, 1, 0);
	th_do(&b, &s, BLUE, "build settlement 1,-1,s");
	/* Red: v0..v4 = 4 and v4..v7 = 3; blue alone has 5. */
	assert_int_equal(s.players[RED].road_length, 4);
	assert_int_equal(s.longest_road, BLUE);
	assert_int_equal(s.players[RED].public_vp, 2);
	assert_int_equal(s.players[BLUE].public_vp, 5);
}

static void test_rules__longest_road_cut_set_aside_when_tied(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	cut_game(&b, &s, "setup 2,0,se 2,0,se", 10);
	th_roll(&b, &s, 1, 1);
	blue_up_to_v4(&b, &s);
	end_turn(&b, &s);
	th_roll(&b, &s, 1, 1);
	white_down_to_v5(&b, &s);
	end_turn(&b, &s);
	pass(&b, &s, 1, 1); /* red */
	th_roll(&b, &s, 1, 1);
	assert_int_equal(s.longest_road, RED);
	th_give(&s, BLUE, 1, 1, 1, 1, 0);
	th_do(&b, &s, BLUE, "build settlement 1,-1,s");
	/* Red 4, blue 5, white 5: the card is set aside. */
	assert_int_equal(s.players[RED].road_length, 4);
	assert_int_equal(s.longest_road, CATAN_NONE);
	assert_int_equal(s.players[RED].public_vp, 2);
	assert_int_equal(s.players[BLUE].public_vp, 3);
	assert_int_equal(s.players[WHITE].public_vp, 2);
}

static void test_rules__longest_road_cut_below_five_set_aside(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	/* Blue on S of 1,0 reaches v4 in two roads. */
	cut_game(&b, &s, "setup 1,0,s 1,0,sw", 10);
	th_roll(&b, &s, 1, 1);
	th_give(&s, BLUE, 2, 2, 1, 1, 0);
	th_do(&b, &s, BLUE, "build road 1,0,w");
	th_do(&b, &s, BLUE, "build settlement 1,-1,s");
	assert_int_equal(s.players[RED].road_length, 4);
	assert_int_equal(s.players[BLUE].road_length, 2);
	assert_int_equal(s.longest_road, CATAN_NONE);
	assert_int_equal(s.players[RED].public_vp, 2);
	assert_int_equal(s.players[BLUE].public_vp, 3);
}

/* ---- largest army ---- */

static void knight_turn(const catan_board *b, catan_state *s, const char *k)
{
	if (k)
		th_do(b, s, s->active, k);
	pass(b, s, 6, 6);
}

static void test_rules__largest_army(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 2);
	th_play_setup(&b, &s);
	clear_all(&s);
	for (int i = 0; i < 3; i++)
		th_give_dev(&s, RED, CATAN_DEV_KNIGHT);
	for (int i = 0; i < 4; i++)
		th_give_dev(&s, BLUE, CATAN_DEV_KNIGHT);
	knight_turn(&b, &s, "play knight 2,-2"); /* red 1 */
	knight_turn(&b, &s, "play knight 1,-2"); /* blue 1 */
	knight_turn(&b, &s, "play knight 2,-2"); /* red 2 */
	knight_turn(&b, &s, "play knight 1,-2"); /* blue 2 */
	assert_int_equal(s.largest_army, CATAN_NONE);
	th_do(&b, &s, RED, "play knight 2,-2"); /* red 3 */
	assert_int_equal(s.players[RED].knights, 3);
	assert_int_equal(s.largest_army, RED);
	assert_int_equal(s.players[RED].public_vp, 4);
	assert_int_equal(catan_state_vp(&s, RED), 4);
	pass(&b, &s, 6, 6);
	knight_turn(&b, &s, "play knight 1,-2"); /* blue 3: a tie */
	assert_int_equal(s.players[BLUE].knights, 3);
	assert_int_equal(s.largest_army, RED);
	assert_int_equal(s.players[BLUE].public_vp, 2);
	knight_turn(&b, &s, NULL);		 /* red */
	th_do(&b, &s, BLUE, "play knight 2,-2"); /* blue 4 */
	assert_int_equal(s.largest_army, BLUE);
	assert_int_equal(s.players[BLUE].public_vp, 4);
	assert_int_equal(s.players[RED].public_vp, 2);
}

/* ---- victory ---- */

static void test_rules__victory_on_own_turn_by_building(void **state)
{
	catan_board b;
	catan_state s;
	catan_options o = opts(4);

	(void)state;
	o.vp_target = 3;
	start(&b, &s, &o);
	th_play_setup(&b, &s);
	th_roll(&b, &s, 6, 6);
	clear_all(&s);
	th_give(&s, RED, 2, 2, 1, 1, 0);
	th_do(&b, &s, RED, "build road 0,-1,w");
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	th_do(&b, &s, RED, "build settlement 0,-1,sw");
	assert_int_equal(s.phase, CATAN_PHASE_OVER);
	assert_int_equal(s.winner, RED);
	assert_int_equal(catan_state_next_actor(&s), CATAN_NONE);
	for (int p = RED; p <= ORANGE; p++)
		assert_false(catan_state_may_act(&s, p));
}

static void test_rules__victory_by_knight_before_roll(void **state)
{
	catan_board b;
	catan_state s;
	catan_options o = opts(2);

	(void)state;
	o.vp_target = 4;
	start(&b, &s, &o);
	th_play_setup(&b, &s);
	clear_all(&s);
	for (int i = 0; i < 3; i++)
		th_give_dev(&s, RED, CATAN_DEV_KNIGHT);
	knight_turn(&b, &s, "play knight 2,-2");
	pass(&b, &s, 6, 6);
	knight_turn(&b, &s, "play knight 1,-2");
	pass(&b, &s, 6, 6);
	th_do(&b, &s, RED, "play knight 2,-2");
	assert_int_equal(s.largest_army, RED);
	assert_int_equal(s.phase, CATAN_PHASE_OVER);
	assert_int_equal(s.winner, RED);
	th_reject(&b, &s, RED, "roll", CATAN_E_GAME_OVER);
}

static void test_rules__victory_by_bought_vp_card(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	manual_game(&b, &s, 3);
	th_give(&s, RED, 0, 0, 1, 1, 1);
	th_do(&b, &s, RED, "buy devcard victory-point");
	assert_int_equal(s.phase, CATAN_PHASE_OVER);
	assert_int_equal(s.winner, RED);
}

static void test_rules__victory_waits_for_own_turn(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	/* Blue on S of 1,0 reaches v4 in two roads; target 5. */
	cut_game(&b, &s, "setup 1,0,s 1,0,sw", 5);
	th_roll(&b, &s, 1, 1);
	th_give(&s, BLUE, 1, 1, 0, 0, 0);
	th_do(&b, &s, BLUE, "build road 1,0,w");
	end_turn(&b, &s);
	th_roll(&b, &s, 1, 1);
	white_down_to_v5(&b, &s);
	th_give(&s, WHITE, 0, 0, 0, 2, 3);
	th_do(&b, &s, WHITE, "build city 2,-2,ne");
	assert_int_equal(catan_state_vp(&s, WHITE), 3);
	end_turn(&b, &s);
	pass(&b, &s, 1, 1); /* red */
	th_roll(&b, &s, 1, 1);
	th_give(&s, BLUE, 1, 1, 1, 1, 0);
	th_do(&b, &s, BLUE, "build settlement 1,-1,s");
	/* Red is cut to 4: white alone has 5 and takes the card... */
	assert_int_equal(s.longest_road, WHITE);
	assert_int_equal(catan_state_vp(&s, WHITE), 5);
	/* ...but it is blue's turn: nobody has won yet. */
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	assert_int_equal(s.winner, CATAN_NONE);
	th_reject(&b, &s, WHITE, "end", CATAN_E_NOT_YOUR_TURN);
	th_give(&s, BLUE, 4, 0, 0, 0, 0);
	th_do(&b, &s, BLUE, "trade bank lumber:4 ore");
	end_turn(&b, &s);
	/* White wins as its turn begins. */
	assert_int_equal(s.active, WHITE);
	assert_int_equal(s.phase, CATAN_PHASE_OVER);
	assert_int_equal(s.winner, WHITE);
}

static void test_rules__no_action_after_game_over(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	manual_game(&b, &s, 3);
	th_give(&s, RED, 1, 1, 2, 2, 1);
	th_give(&s, BLUE, 1, 1, 0, 0, 0);
	th_do(&b, &s, RED, "buy devcard victory-point");
	assert_int_equal(s.phase, CATAN_PHASE_OVER);
	th_reject(&b, &s, RED, "end", CATAN_E_GAME_OVER);
	th_reject(&b, &s, RED, "build road 0,-1,w", CATAN_E_GAME_OVER);
	th_reject(&b, &s, RED, "buy devcard knight", CATAN_E_GAME_OVER);
	th_reject(&b, &s, BLUE, "roll 3 3", CATAN_E_GAME_OVER);
	th_reject(&b, &s, BLUE, "build road 1,0,w", CATAN_E_GAME_OVER);
}

/* ---- apply is pure ---- */

static void check_pure(const catan_board *b, const catan_state *in, int actor,
		       const char *text, int code)
{
	catan_action a = th_action(b, text);
	catan_state copy = *in, out;
	int rc;

	memset(&out, 0x5a, sizeof out);
	rc = catan_state_apply(&out, b, in, actor, &a, NULL);
	if (rc != code)
		fail_msg("\"%s\": expected \"%s\", got \"%s\"", text,
			 catan_error_str(code), catan_error_str(rc));
	assert_memory_equal(&copy, in, sizeof copy);
	if (code == CATAN_OK) {
		th_check(b, &out);
		assert_memory_not_equal(&out, in, sizeof out);
	} else {
		catan_state pattern;

		memset(&pattern, 0x5a, sizeof pattern);
		assert_memory_equal(&out, &pattern, sizeof out);
	}
}

static void test_rules__apply_out_differs_from_in(void **state)
{
	catan_board b;
	catan_state s;

	(void)state;
	th_new_game(&b, &s, 4);
	check_pure(&b, &s, RED, "setup 0,-1,n 0,-1,nw", CATAN_OK);
	check_pure(&b, &s, RED, "setup 0,-1,n 0,-1,w", CATAN_E_NOT_ADJACENT);
	check_pure(&b, &s, BLUE, "setup 1,0,n 1,0,nw", CATAN_E_NOT_YOUR_TURN);
	th_play_setup(&b, &s);
	check_pure(&b, &s, RED, "roll", CATAN_OK);
	check_pure(&b, &s, RED, "roll 3 4", CATAN_E_DICE_NOT_ALLOWED);
	th_roll(&b, &s, 6, 6);
	clear_all(&s);
	th_give(&s, RED, 2, 1, 0, 0, 0);
	th_give(&s, BLUE, 0, 0, 0, 0, 1);
	check_pure(&b, &s, RED, "build road 0,-1,w", CATAN_OK);
	check_pure(&b, &s, RED, "build road 2,-2,nw", CATAN_E_NOT_CONNECTED);
	check_pure(&b, &s, RED, "trade offer blue give lumber:1 get ore:1",
		   CATAN_OK);
	check_pure(&b, &s, RED, "trade bank lumber:4 ore",
		   CATAN_E_CANNOT_AFFORD);
	check_pure(&b, &s, RED, "end", CATAN_OK);
	end_turn(&b, &s);
	clear_all(&s);
	th_give(&s, WHITE, 8, 0, 0, 0, 0);
	th_roll(&b, &s, 3, 4);
	check_pure(&b, &s, WHITE, "discard lumber:4", CATAN_OK);
	check_pure(&b, &s, WHITE, "discard lumber:3", CATAN_E_DISCARD_COUNT);
	check_pure(&b, &s, BLUE, "discard lumber:4", CATAN_E_NOT_YOUR_TURN);
}

/* ---- the 5-6 player extension ---- */

/*
 * n players on a random 5-6 board (seed 5), special building as given,
 * set-up played with the first legal placement each time, every hand
 * emptied: player 0 must roll on turn 1.
 */
static void ext_game(catan_board *b, catan_state *s, int n, int special)
{
	catan_options o = opts(n);
	o.special_build = (uint8_t)special;
	assert_int_equal(catan_board_random_ext56(b, 5), CATAN_OK);
	assert_int_equal(catan_state_init(s, b, &o), CATAN_OK);
	while (s->phase == CATAN_PHASE_SETUP) {
		catan_action a[512];
		int who = catan_state_next_actor(s);
		assert_true(catan_legal_actions(a, 512, b, s, who, 0) > 0);
		assert_int_equal(catan_state_apply(s, b, s, who, &a[0], NULL),
				 CATAN_OK);
		th_check(b, s);
	}
	clear_all(s);
	th_check(b, s);
	assert_int_equal(s->phase, CATAN_PHASE_ROLL);
	assert_int_equal(s->active, 0);
}

static void test_rules__five_players_bank_has_24(void **state)
{
	(void)state;
	static const int base[CATAN_DEV_COUNT] = {14, 2, 2, 2, 5},
			 ext[CATAN_DEV_COUNT] = {20, 3, 3, 3, 5};
	catan_board b;
	catan_state s;
	assert_int_equal(catan_board_random_ext56(&b, 1), CATAN_OK);
	for (int n = 2; n <= CATAN_MAX_PLAYERS; n++) {
		catan_options o = opts(n);
		assert_int_equal(catan_state_init(&s, &b, &o), CATAN_OK);
		int total = 0;
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			assert_int_equal(s.bank[r], n >= 5 ? 24 : 19);
		for (int d = 0; d < CATAN_DEV_COUNT; d++) {
			assert_int_equal(s.deck[d], n >= 5 ? ext[d] : base[d]);
			assert_int_equal(catan_dev_start(n, d), s.deck[d]);
			total += s.deck[d];
		}
		assert_int_equal(total, n >= 5 ? 34 : 25);
		assert_int_equal(catan_res_total(n), n >= 5 ? 24 : 19);
		/* Pieces per player do not change. */
		for (int p = 0; p < n; p++) {
			assert_int_equal(s.players[p].roads_left, 15);
			assert_int_equal(s.players[p].settlements_left, 5);
			assert_int_equal(s.players[p].cities_left, 4);
		}
		th_check(&b, &s);
	}
	/* The invariant counts 24 with 5-6 players, and only then. */
	catan_options o = opts(6);
	assert_int_equal(catan_state_init(&s, &b, &o), CATAN_OK);
	s.bank[CATAN_ORE] = 19;
	assert_int_equal(catan_state_check(&b, &s, NULL, 0), CATAN_E_INVARIANT);
	s.bank[CATAN_ORE] = 24;
	s.deck[CATAN_DEV_KNIGHT] = 14;
	assert_int_equal(catan_state_check(&b, &s, NULL, 0), CATAN_E_INVARIANT);
}

static void test_rules__player_count_and_special_build_options(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	catan_board_beginner(&b);
	catan_options o = opts(7);
	assert_int_equal(catan_state_init(&s, &b, &o), CATAN_E_BAD_OPTION);
	o = opts(1);
	assert_int_equal(catan_state_init(&s, &b, &o), CATAN_E_BAD_OPTION);
	for (int n = 2; n <= 4; n++) { /* always off for 2-4 players */
		o = opts(n);
		o.special_build = 1;
		assert_int_equal(catan_state_init(&s, &b, &o),
				 CATAN_E_BAD_OPTION);
	}
	o = opts(5);
	o.special_build = 2;
	assert_int_equal(catan_state_init(&s, &b, &o), CATAN_E_BAD_OPTION);
	for (int n = 5; n <= 6; n++)
		for (int sb = 0; sb <= 1; sb++) {
			o = opts(n);
			o.special_build = (uint8_t)sb;
			assert_int_equal(catan_state_init(&s, &b, &o), CATAN_OK);
			assert_int_equal(s.builder, CATAN_NONE);
		}
}

/*
 * After the active player ends the turn, every other player in turn order
 * gets a special building phase; the last pass starts the next turn.
 */
static void test_rules__special_build_goes_round_then_next_turn(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	ext_game(&b, &s, 6, 1);
	th_roll(&b, &s, 6, 6);
	th_do(&b, &s, 0, "end");
	for (int builder = 1; builder < 6; builder++) {
		assert_int_equal(s.phase, CATAN_PHASE_SPECIAL);
		assert_int_equal(s.active, 0);
		assert_int_equal(s.turn, 1);
		assert_int_equal(s.builder, builder);
		assert_int_equal(catan_state_next_actor(&s), builder);
		for (int p = 0; p < 6; p++)
			assert_int_equal(catan_state_may_act(&s, p),
					 p == builder);
		th_reject(&b, &s, 0, "end", CATAN_E_NOT_YOUR_TURN);
		th_reject(&b, &s, (builder + 1) % 6, "end",
			  CATAN_E_NOT_YOUR_TURN);
		/* With no cards, passing is all a builder can do. */
		catan_action a[16];
		assert_int_equal(catan_legal_actions(a, 16, &b, &s, builder, 0),
				 1);
		assert_int_equal(a[0].kind, CATAN_ACT_END);
		th_do(&b, &s, builder, "end");
	}
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, 1);
	assert_int_equal(s.turn, 2);
	assert_int_equal(s.builder, CATAN_NONE);
	assert_int_equal(catan_state_next_actor(&s), 1);
	/* Player 5's turn ends into player 0's special building phase. */
	for (int p = 1; p < 6; p++) {
		th_roll(&b, &s, 6, 6);
		th_do(&b, &s, p, "end");
		for (int k = 1; k < 6; k++) {
			assert_int_equal(s.builder, (p + k) % 6);
			th_do(&b, &s, s.builder, "end");
		}
	}
	assert_int_equal(s.active, 0);
	assert_int_equal(s.turn, 7);
	/* Classic phases: the build phase's end leads there too. */
	ext_game(&b, &s, 5, 1);
	s.opt.phases = CATAN_PHASES_CLASSIC;
	th_roll(&b, &s, 6, 6);
	th_do(&b, &s, 0, "end trade");
	th_do(&b, &s, 0, "end");
	assert_int_equal(s.phase, CATAN_PHASE_SPECIAL);
	assert_int_equal(s.builder, 1);
}

/* Building and buying only: no trade, no card, no roll. */
static void test_rules__special_build_allows_only_building(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	ext_game(&b, &s, 5, 1);
	th_roll(&b, &s, 6, 6);
	th_do(&b, &s, 0, "end");
	int p = s.builder;
	assert_int_equal(p, 1);
	th_give(&s, p, 5, 5, 5, 5, 5);
	th_give(&s, 2, 1, 1, 1, 1, 1);
	th_give_dev(&s, p, CATAN_DEV_MONOPOLY);
	th_give_dev(&s, p, CATAN_DEV_YEAR_OF_PLENTY);
	th_check(&b, &s);
	th_reject(&b, &s, p, "trade bank lumber:4 ore", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, p, "trade offer white give lumber:1 get ore:1",
		  CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, p, "play monopoly ore", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, p, "play year-of-plenty ore ore",
		  CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, p, "roll", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, p, "end trade", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, p, "discard lumber:1", CATAN_E_WRONG_PHASE);

	/* What is listed is exactly building, buying and passing. */
	catan_action a[256];
	int n = catan_legal_actions(a, 256, &b, &s, p, 0);
	bool road = false, city = false, buy = false, end = false;
	for (int i = 0; i < n; i++) {
		switch (a[i].kind) {
		case CATAN_ACT_BUILD_ROAD:
			road = true;
			break;
		case CATAN_ACT_BUILD_CITY:
			city = true;
			break;
		case CATAN_ACT_BUY_DEV:
			buy = true;
			break;
		case CATAN_ACT_END:
			end = true;
			break;
		case CATAN_ACT_BUILD_SETTLEMENT:
			break;
		default:
			fail_msg("action kind %d listed in special building",
				 a[i].kind);
		}
		catan_state t;
		assert_int_equal(catan_state_apply(&t, &b, &s, p, &a[i], NULL),
				 CATAN_OK);
	}
	assert_true(road && city && buy && end);

	/* The builder pays; a bought card is not "bought this turn". */
	catan_state before = s;
	catan_action road_a = a[0];
	assert_int_equal(road_a.kind, CATAN_ACT_BUILD_ROAD);
	assert_int_equal(catan_state_apply(&s, &b, &s, p, &road_a, NULL),
			 CATAN_OK);
	assert_int_equal(s.players[p].hand[CATAN_LUMBER],
			 before.players[p].hand[CATAN_LUMBER] - 1);
	assert_int_equal(s.players[p].roads_left,
			 before.players[p].roads_left - 1);
	s.opt.dice = CATAN_DICE_MANUAL;
	th_do(&b, &s, p, "buy devcard knight");
	s.opt.dice = CATAN_DICE_SEEDED;
	assert_int_equal(s.players[p].devs[CATAN_DEV_KNIGHT], 1);
	assert_int_equal(s.bought[CATAN_DEV_KNIGHT], 0);
	th_check(&b, &s);
	/* The other builders may not act meanwhile; then the turn goes on. */
	th_reject(&b, &s, 2, "buy devcard", CATAN_E_NOT_YOUR_TURN);
	for (int k = 1; k < 5; k++)
		th_do(&b, &s, s.builder, "end");
	/* In the builder's own turn the knight bought earlier is playable. */
	assert_int_equal(s.active, p);
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	catan_action k[512];
	n = catan_legal_actions(k, 512, &b, &s, p, 0);
	bool knight = false;
	for (int i = 0; i < n; i++)
		knight |= k[i].kind == CATAN_ACT_PLAY_KNIGHT;
	assert_true(knight);
}

/* Without the option the turn passes straight on, as in 2-4 games. */
static void test_rules__special_build_off_passes_the_turn(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	ext_game(&b, &s, 5, 0);
	th_roll(&b, &s, 6, 6);
	th_do(&b, &s, 0, "end");
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, 1);
	assert_int_equal(s.builder, CATAN_NONE);
}

/*
 * Reaching the target while special building is not a win yet: the
 * builder wins when their own turn begins.
 */
static void test_rules__special_build_victory_waits_for_own_turn(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	ext_game(&b, &s, 5, 1);
	s.opt.vp_target = 3;
	th_roll(&b, &s, 6, 6);
	th_do(&b, &s, 0, "end");
	th_do(&b, &s, 1, "end"); /* player 1 passes */
	assert_int_equal(s.builder, 2);
	th_give(&s, 2, 0, 0, 0, 2, 3);
	catan_action a[64];
	int n = catan_legal_actions(a, 64, &b, &s, 2, 0), i = 0;
	while (i < n && a[i].kind != CATAN_ACT_BUILD_CITY)
		i++;
	assert_true(i < n);
	assert_int_equal(catan_state_apply(&s, &b, &s, 2, &a[i], NULL),
			 CATAN_OK);
	th_check(&b, &s);
	assert_int_equal(catan_state_vp(&s, 2), 3);
	assert_int_equal(s.phase, CATAN_PHASE_SPECIAL);
	assert_int_equal(s.winner, CATAN_NONE);
	th_do(&b, &s, 2, "end");
	th_do(&b, &s, 3, "end");
	th_do(&b, &s, 4, "end"); /* player 1's turn: still not 2's */
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, 1);
	th_roll(&b, &s, 6, 6);
	th_do(&b, &s, 1, "end");
	assert_int_equal(s.phase, CATAN_PHASE_SPECIAL);
	for (int k = 0; k < 4; k++) /* 2, 3, 4, 0 pass */
		th_do(&b, &s, s.builder, "end");
	assert_int_equal(s.phase, CATAN_PHASE_OVER);
	assert_int_equal(s.winner, 2);
}

/* With special building, the builder is part of the hash. */
static void test_rules__special_build_in_the_hash(void **state)
{
	(void)state;
	catan_board b;
	catan_state s, t;
	ext_game(&b, &s, 5, 1);
	th_roll(&b, &s, 6, 6);
	th_do(&b, &s, 0, "end");
	t = s;
	th_do(&b, &t, 1, "end");
	assert_int_not_equal(catan_state_hash(&s), catan_state_hash(&t));
	t = s;
	t.builder = 3;
	assert_int_not_equal(catan_state_hash(&s), catan_state_hash(&t));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rules__setup_snake_order_2),
	    cmocka_unit_test(test_rules__setup_snake_order_3),
	    cmocka_unit_test(test_rules__setup_snake_order_4),
	    cmocka_unit_test(test_rules__setup_distance_rule),
	    cmocka_unit_test(test_rules__setup_road_must_touch_settlement),
	    cmocka_unit_test(test_rules__setup_road_on_occupied_edge),
	    cmocka_unit_test(test_rules__setup_second_settlement_pays),
	    cmocka_unit_test(test_rules__setup_desert_pays_nothing),
	    cmocka_unit_test(test_rules__setup_then_red_rolls_turn_1),
	    cmocka_unit_test(test_rules__dice_seeded_rejects_stated_dice),
	    cmocka_unit_test(test_rules__dice_manual_requires_dice),
	    cmocka_unit_test(test_rules__dice_sum_is_triangular),
	    cmocka_unit_test(test_rules__production_settlement_one_city_two),
	    cmocka_unit_test(
		test_rules__production_robber_tile_produces_nothing),
	    cmocka_unit_test(
		test_rules__production_shortage_two_owed_nobody_paid),
	    cmocka_unit_test(
		test_rules__production_shortage_single_owed_gets_rest),
	    cmocka_unit_test(test_rules__seven_discard_half_of_more_than_seven),
	    cmocka_unit_test(test_rules__seven_discards_any_order_by_owers),
	    cmocka_unit_test(test_rules__seven_discard_wrong_count),
	    cmocka_unit_test(test_rules__seven_discard_cards_not_held),
	    cmocka_unit_test(test_rules__seven_robber_only_after_all_discards),
	    cmocka_unit_test(test_rules__seven_no_discard_goes_to_robber),
	    cmocka_unit_test(test_rules__robber_must_move),
	    cmocka_unit_test(test_rules__robber_victim_required),
	    cmocka_unit_test(test_rules__robber_bad_victim),
	    cmocka_unit_test(test_rules__robber_victim_without_cards),
	    cmocka_unit_test(test_rules__robber_steals_one_card),
	    cmocka_unit_test(test_rules__robber_no_victim_when_none_qualifies),
	    cmocka_unit_test(test_rules__robber_may_return_to_desert),
	    cmocka_unit_test(test_rules__bank_trade_four_to_one),
	    cmocka_unit_test(test_rules__bank_trade_generic_harbour_three),
	    cmocka_unit_test(test_rules__bank_trade_specific_harbour_two),
	    cmocka_unit_test(test_rules__bank_trade_both_harbours),
	    cmocka_unit_test(test_rules__harbour_usable_on_turn_built),
	    cmocka_unit_test(test_rules__bank_trade_bank_empty),
	    cmocka_unit_test(test_rules__bank_trade_same_resource),
	    cmocka_unit_test(test_rules__bank_trade_not_before_roll),
	    cmocka_unit_test(test_rules__offer_accept_swaps),
	    cmocka_unit_test(test_rules__offer_reject_leaves_hands),
	    cmocka_unit_test(test_rules__offer_target_must_hold_asked_cards),
	    cmocka_unit_test(test_rules__offer_offerer_must_hold_given_cards),
	    cmocka_unit_test(test_rules__offer_needs_two_different_sides),
	    cmocka_unit_test(test_rules__offer_only_target_answers),
	    cmocka_unit_test(test_rules__offer_counter_offer),
	    cmocka_unit_test(test_rules__offer_to_self_rejected),
	    cmocka_unit_test(test_rules__offer_only_by_active_after_roll),
	    cmocka_unit_test(test_rules__offer_limit),
	    cmocka_unit_test(test_rules__offer_limit_counts_counter_offers),
	    cmocka_unit_test(test_rules__classic_phases),
	    cmocka_unit_test(test_rules__combined_phase_trades_and_builds),
	    cmocka_unit_test(test_rules__road_costs_lumber_and_brick),
	    cmocka_unit_test(test_rules__road_must_connect),
	    cmocka_unit_test(test_rules__road_on_occupied_edge),
	    cmocka_unit_test(test_rules__road_not_through_opponent_settlement),
	    cmocka_unit_test(test_rules__settlement_costs_four_cards),
	    cmocka_unit_test(test_rules__settlement_cannot_afford),
	    cmocka_unit_test(test_rules__settlement_needs_own_road),
	    cmocka_unit_test(test_rules__settlement_distance_rule),
	    cmocka_unit_test(test_rules__city_costs_and_returns_settlement),
	    cmocka_unit_test(test_rules__city_needs_own_settlement),
	    cmocka_unit_test(test_rules__road_piece_limit),
	    cmocka_unit_test(test_rules__settlement_piece_limit),
	    cmocka_unit_test(test_rules__city_piece_limit),
	    cmocka_unit_test(test_rules__no_building_before_roll),
	    cmocka_unit_test(test_rules__devcard_costs_ore_wool_grain),
	    cmocka_unit_test(test_rules__devcard_deck_empty),
	    cmocka_unit_test(test_rules__devcard_not_playable_on_turn_bought),
	    cmocka_unit_test(test_rules__devcard_older_copy_playable),
	    cmocka_unit_test(test_rules__devcard_one_per_turn),
	    cmocka_unit_test(
		test_rules__devcard_not_during_discard_robber_offer),
	    cmocka_unit_test(test_rules__knight_before_roll_no_discard),
	    cmocka_unit_test(test_rules__knight_moves_robber_like_a_seven),
	    cmocka_unit_test(test_rules__road_building_two_free_roads),
	    cmocka_unit_test(
		test_rules__road_building_one_when_second_impossible),
	    cmocka_unit_test(test_rules__road_building_one_when_no_second_spot),
	    cmocka_unit_test(test_rules__year_of_plenty_two_cards),
	    cmocka_unit_test(test_rules__year_of_plenty_same_resource_twice),
	    cmocka_unit_test(test_rules__year_of_plenty_one_when_bank_has_one),
	    cmocka_unit_test(test_rules__monopoly_takes_every_card),
	    cmocka_unit_test(test_rules__victory_point_card_counts_at_once),
	    cmocka_unit_test(test_rules__longest_road_needs_five),
	    cmocka_unit_test(test_rules__longest_road_loop_and_revisit),
	    cmocka_unit_test(test_rules__longest_road_fork_counts_one_branch),
	    cmocka_unit_test(test_rules__road_length_is_longest_trail),
	    cmocka_unit_test(test_rules__longest_road_tie_keeps_holder),
	    cmocka_unit_test(
		test_rules__longest_road_cut_holder_keeps_when_tied),
	    cmocka_unit_test(
		test_rules__longest_road_cut_goes_to_unique_longest),
	    cmocka_unit_test(test_rules__longest_road_cut_set_aside_when_tied),
	    cmocka_unit_test(test_rules__longest_road_cut_below_five_set_aside),
	    cmocka_unit_test(test_rules__largest_army),
	    cmocka_unit_test(test_rules__victory_on_own_turn_by_building),
	    cmocka_unit_test(test_rules__victory_by_knight_before_roll),
	    cmocka_unit_test(test_rules__victory_by_bought_vp_card),
	    cmocka_unit_test(test_rules__victory_waits_for_own_turn),
	    cmocka_unit_test(test_rules__no_action_after_game_over),
	    cmocka_unit_test(test_rules__apply_out_differs_from_in),
	    cmocka_unit_test(test_rules__five_players_bank_has_24),
	    cmocka_unit_test(test_rules__player_count_and_special_build_options),
	    cmocka_unit_test(test_rules__special_build_goes_round_then_next_turn),
	    cmocka_unit_test(test_rules__special_build_allows_only_building),
	    cmocka_unit_test(test_rules__special_build_off_passes_the_turn),
	    cmocka_unit_test(test_rules__special_build_victory_waits_for_own_turn),
	    cmocka_unit_test(test_rules__special_build_in_the_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
