/*
 * test_check.c - catan_state_check(): it passes on every state the rules
 * produce, and it catches each kind of corruption on its own. Every
 * corruption below keeps all the other invariants intact (caches updated
 * consistently), so only the one being tested can trip.
 */
#include "helpers.h"

#include <stdio.h>
#include <string.h>

/* Boards are big: one static board for every test. */
static catan_board g_board;

/* The check fails with CATAN_E_INVARIANT and a sentence. */
static void expect_broken(const catan_board *b, const catan_state *s)
{
	char why[256];

	memset(why, 0, sizeof why);
	assert_int_equal(catan_state_check(b, s, why, sizeof why),
			 CATAN_E_INVARIANT);
	assert_true(strlen(why) > 0);
	print_message("detected: %s\n", why);
	/* The same without a message buffer. */
	assert_int_equal(catan_state_check(b, s, NULL, 0), CATAN_E_INVARIANT);
}

/*
 * A played position: set-up done (4 players), a few turns with builds,
 * a card bought and played. Red holds cards; invariants hold.
 */
static void played(catan_board *b, catan_state *s)
{
	th_new_game(b, s, 4);
	th_play_setup(b, s);
	th_roll(b, s, 4, 4);
	th_clear_hand(s, RED);
	th_give(s, RED, 2, 2, 1, 1, 0);
	th_do(b, s, RED, "build road 0,-1,ne");
	th_do(b, s, RED, "end");
	th_roll(b, s, 2, 3);
	th_do(b, s, BLUE, "end");
	th_roll(b, s, 5, 5);
	th_do(b, s, WHITE, "end");
	th_roll(b, s, 6, 2);
	th_do(b, s, ORANGE, "end");
	th_roll(b, s, 1, 5);
	th_give(s, RED, 0, 0, 1, 2, 1);
	th_check(b, s);
	assert_int_equal(s->phase, CATAN_PHASE_MAIN);
	assert_int_equal(s->active, RED);
	assert_true(s->players[RED].ncards > 0);
}

/* ---- it passes ---- */

static void test_check__fresh_states(void **state)
{
	catan_board *b = &g_board;
	catan_state s;
	catan_options opt;

	(void)state;
	for (int np = 2; np <= 4; np++) {
		th_new_game(b, &s, np);
		th_check(b, &s);
		th_play_setup(b, &s);
		th_check(b, &s);
	}
	for (int R = 1; R <= CATAN_MAX_RADIUS; R++) {
		assert_int_equal(catan_board_init_hexagon(b, R), CATAN_OK);
		catan_options_default(&opt);
		assert_int_equal(catan_state_init(&s, b, &opt), CATAN_OK);
		th_check(b, &s);
	}
	for (uint64_t seed = 0; seed < 20; seed++) {
		catan_board_random(b, seed);
		catan_options_default(&opt);
		opt.seed = seed;
		assert_int_equal(catan_state_init(&s, b, &opt), CATAN_OK);
		th_check(b, &s);
	}
	/* A message buffer is cleared on success, and NULL is fine. */
	char why[32] = "stale";
	assert_int_equal(catan_state_check(b, &s, why, sizeof why), CATAN_OK);
	assert_string_equal(why, "");
	assert_int_equal(catan_state_check(b, &s, NULL, 0), CATAN_OK);
}

static void test_check__played_states(void **state)
{
	catan_board *b = &g_board;
	catan_state s;
	catan_options opt;
	catan_rng rng;
	int games = 0, won = 0;

	(void)state;
	played(b, &s);
	th_check(b, &s);
	/* Whole bot games, every state checked. */
	for (uint64_t seed = 0; seed < 24; seed++) {
		catan_board_random(b, seed);
		catan_options_default(&opt);
		opt.nplayers = (uint8_t)(2 + seed % 3);
		opt.phases = (uint8_t)(seed / 3 % 2);
		opt.dice = (uint8_t)(seed / 6 % 2);
		opt.seed = seed;
		assert_int_equal(catan_state_init(&s, b, &opt), CATAN_OK);
		catan_rng_seed(&rng, seed);
		int kind = seed % 4 ? CATAN_BOT_GREEDY : CATAN_BOT_RANDOM;
		for (int step = 0; step < 5000; step++) {
			th_check(b, &s);
			int actor = catan_state_next_actor(&s);
			if (actor == CATAN_NONE)
				break;
			catan_action a;
			assert_int_equal(
			    catan_bot_choose(&a, kind, b, &s, actor, &rng,
					     CATAN_LEGAL_NO_OFFERS),
			    CATAN_OK);
			assert_int_equal(
			    catan_state_apply(&s, b, &s, actor, &a, NULL),
			    CATAN_OK);
		}
		games++;
		won += s.phase == CATAN_PHASE_OVER;
	}
	assert_true(won >= games / 2);
}

/* A short buffer gets a cut, terminated sentence. */
static void test_check__message_truncated(void **state)
{
	catan_board *b = &g_board;
	catan_state s;
	char why[8];

	(void)state;
	played(b, &s);
	s.bank[CATAN_ORE]--;
	memset(why, 'x', sizeof why);
	assert_int_equal(catan_state_check(b, &s, why, sizeof why),
			 CATAN_E_INVARIANT);
	assert_int_equal(strlen(why), sizeof why - 1);
	memset(why, 'x', sizeof why);
	assert_int_equal(catan_state_check(b, &s, why, 1), CATAN_E_INVARIANT);
	assert_int_equal(why[0], '\0');
	assert_int_equal(why[1], 'x');
}

/* ---- each corruption, alone ---- */

static void test_check__extra_card_in_hand(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.players[BLUE].hand[CATAN_WOOL]++;
	s.players[BLUE].ncards++;
	expect_broken(b, &s);
}

static void test_check__card_missing_from_bank(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.bank[CATAN_GRAIN]--;
	expect_broken(b, &s);
}

static void test_check__ncards_mismatch(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.players[RED].ncards--;
	expect_broken(b, &s);
}

static void test_check__dev_card_duplicated(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	th_give_dev(&s, WHITE, CATAN_DEV_MONOPOLY);
	th_check(b, &s);
	s.players[WHITE].devs[CATAN_DEV_MONOPOLY]++;
	expect_broken(b, &s);
	/* A duplicated card in the played pile, too. */
	played(b, &s);
	s.played[CATAN_DEV_ROAD_BUILDING]++;
	expect_broken(b, &s);
}

static void test_check__roads_left_mismatch(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.players[ORANGE].roads_left--;
	expect_broken(b, &s);
	played(b, &s);
	s.players[RED].settlements_left++;
	expect_broken(b, &s);
	played(b, &s);
	s.players[WHITE].cities_left--;
	expect_broken(b, &s);
}

/* Adds a settlement of p at v with every cache updated as the rules do. */
static void add_settlement(const catan_board *b, catan_state *s, int p, int v)
{
	catan_player *pl = &s->players[p];

	catan_vset_add(&pl->settlements, v);
	pl->settlements_left--;
	pl->public_vp++;
	if (b->vertex_harbour[v] != CATAN_NONE)
		pl->harbours |= (uint8_t)(1u << b->vertex_harbour[v]);
	catan_vset_add(&s->occupied, v);
	catan_vset_add(&s->blocked, v);
	for (int k = 0; k < CATAN_VWORDS; k++)
		s->blocked.w[k] |= b->vertex_nbrs[v].w[k];
}

static void test_check__two_buildings_on_one_vertex(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* White also "has" red's inland settlement 0,-1,n. */
	add_settlement(b, &s, WHITE, th_vertex(b, 0, -1, "n"));
	expect_broken(b, &s);
	/* A settlement and a city of one player on one vertex. */
	played(b, &s);
	int v = th_vertex(b, 0, -1, "n");
	catan_vset_add(&s.players[RED].cities, v);
	s.players[RED].cities_left--;
	s.players[RED].public_vp += 2;
	expect_broken(b, &s);
}

static void test_check__distance_rule(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/*
	 * 0,-1,ne is next to red's 0,-1,n; red's new road 0,-1,ne reaches
	 * it, and no opponent's road passes there, so nothing but the
	 * distance rule is off.
	 */
	int v = th_vertex(b, 0, -1, "ne");
	assert_true(catan_vset_has(&s.blocked, v));
	assert_false(catan_vset_has(&s.occupied, v));
	add_settlement(b, &s, RED, v);
	expect_broken(b, &s);
}

static void test_check__road_disconnected(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* A lone red road far from red's pieces: 2,-2,ne. */
	int e = th_edge(b, 2, -2, "ne");
	assert_false(catan_eset_has(&s.roads, e));
	catan_player *pl = &s.players[RED];
	catan_eset_add(&pl->roads, e);
	catan_eset_add(&s.roads, e);
	catan_vset_add(&pl->reach, b->edge_vertices[e][0]);
	catan_vset_add(&pl->reach, b->edge_vertices[e][1]);
	pl->roads_left--;
	pl->road_length = (uint8_t)catan_state_road_length(b, &s, RED);
	expect_broken(b, &s);
}

static void test_check__road_length_cache(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	assert_int_equal(s.players[RED].road_length, 2);
	s.players[RED].road_length = 3;
	expect_broken(b, &s);
}

static void test_check__public_vp(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.players[BLUE].public_vp++;
	expect_broken(b, &s);
}

static void test_check__longest_road_too_short(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	assert_int_equal(s.longest_road, CATAN_NONE);
	assert_true(s.players[RED].road_length < 5);
	s.longest_road = RED;
	s.players[RED].public_vp += 2;
	expect_broken(b, &s);
}

static void test_check__largest_army_too_small(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* Two knights played, moved from the deck consistently. */
	s.deck[CATAN_DEV_KNIGHT] -= 2;
	s.played[CATAN_DEV_KNIGHT] += 2;
	s.players[WHITE].knights = 2;
	th_check(b, &s);
	s.largest_army = WHITE;
	s.players[WHITE].public_vp += 2;
	expect_broken(b, &s);
}

static void test_check__stale_blocked(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	int v = th_vertex(b, 0, -1, "ne"); /* next to red's 0,-1,n */
	assert_true(catan_vset_has(&s.blocked, v));
	catan_vset_del(&s.blocked, v);
	expect_broken(b, &s);
	/* Extra, not missing. */
	played(b, &s);
	v = 0;
	while (catan_vset_has(&s.blocked, v))
		v++;
	assert_true(v < b->nvertices);
	catan_vset_add(&s.blocked, v);
	expect_broken(b, &s);
}

static void test_check__stale_occupied(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	int v = th_vertex(b, 0, -1, "n");
	assert_true(catan_vset_has(&s.occupied, v));
	catan_vset_del(&s.occupied, v);
	expect_broken(b, &s);
	played(b, &s);
	v = th_vertex(b, 0, 0, "s");
	catan_vset_add(&s.occupied, v);
	expect_broken(b, &s);
}

static void test_check__winner_without_game_over(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.winner = RED;
	expect_broken(b, &s);
	/* And game over without a winner. */
	played(b, &s);
	s.phase = CATAN_PHASE_OVER;
	expect_broken(b, &s);
}

static void test_check__discard_outside_discard_phase(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	s.discard[BLUE] = 1;
	expect_broken(b, &s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_check__fresh_states),
	    cmocka_unit_test(test_check__played_states),
	    cmocka_unit_test(test_check__message_truncated),
	    cmocka_unit_test(test_check__extra_card_in_hand),
	    cmocka_unit_test(test_check__card_missing_from_bank),
	    cmocka_unit_test(test_check__ncards_mismatch),
	    cmocka_unit_test(test_check__dev_card_duplicated),
	    cmocka_unit_test(test_check__roads_left_mismatch),
	    cmocka_unit_test(test_check__two_buildings_on_one_vertex),
	    cmocka_unit_test(test_check__distance_rule),
	    cmocka_unit_test(test_check__road_disconnected),
	    cmocka_unit_test(test_check__road_length_cache),
	    cmocka_unit_test(test_check__public_vp),
	    cmocka_unit_test(test_check__longest_road_too_short),
	    cmocka_unit_test(test_check__largest_army_too_small),
	    cmocka_unit_test(test_check__stale_blocked),
	    cmocka_unit_test(test_check__stale_occupied),
	    cmocka_unit_test(test_check__winner_without_game_over),
	    cmocka_unit_test(test_check__discard_outside_discard_phase),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
