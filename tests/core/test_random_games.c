/*
 * test_random_games.c - complete games between uniformly random bots from
 * fixed seeds, with every invariant checked after every action and every
 * game required to end with a winner. CATAN_RANDOM_GAMES (10,000 in the
 * normal build, fewer under the sanitizers) games per player count.
 */
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#include "catan/boardgen.h"

#ifndef CATAN_RANDOM_GAMES
#define CATAN_RANDOM_GAMES 10000
#endif

/* Far above any game seen (random 4-player games take ~900 actions). */
#define ACTION_GUARD 200000

typedef struct variant {
	int players;
	int phases;
	int dice;
	int offer_limit;
	unsigned flags;
	bool random_board; /* 5-6 players always play random 5-6 boards */
	bool special_build;
} variant;

typedef struct tally {
	long games, actions, won[CATAN_MAX_PLAYERS];
	long sevens, rolls;
} tally;

static void play_games(const variant *v, long games, uint64_t seed0,
		       tally *t)
{
	catan_board b;
	catan_options opt;
	catan_options_default(&opt);
	opt.nplayers = (uint8_t)v->players;
	opt.phases = (uint8_t)v->phases;
	opt.dice = (uint8_t)v->dice;
	opt.offer_limit = (uint8_t)v->offer_limit;
	opt.special_build = v->special_build;
	memset(t, 0, sizeof *t);
	catan_board_beginner(&b);
	for (long g = 0; g < games; g++) {
		uint64_t seed = seed0 + (uint64_t)g;
		catan_state s;
		catan_rng bot;
		if (v->players > CATAN_MAX_PLAYERS_BASE)
			assert_int_equal(catan_board_random_ext56(&b, seed),
					 CATAN_OK);
		else if (v->random_board)
			catan_board_random(&b, seed);
		opt.seed = seed;
		assert_int_equal(catan_state_init(&s, &b, &opt), CATAN_OK);
		th_check(&b, &s);
		catan_rng_seed(&bot, seed * 7919u + 1);
		long n = 0;
		while (s.phase != CATAN_PHASE_OVER) {
			catan_action a;
			catan_outcome oc;
			int who = catan_state_next_actor(&s);
			assert_int_equal(catan_bot_choose(&a, CATAN_BOT_RANDOM,
							  &b, &s, who, &bot,
							  v->flags),
					 CATAN_OK);
			int rc = catan_state_apply(&s, &b, &s, who, &a, &oc);
			if (rc != CATAN_OK)
				fail_msg("game %ld action %ld rejected: %s", g,
					 n, catan_error_str(rc));
			char why[256];
			if (catan_state_check(&b, &s, why, sizeof why))
				fail_msg("game %ld (seed %llu) action %ld: %s",
					 g, (unsigned long long)seed, n, why);
			if (a.kind == CATAN_ACT_ROLL) {
				t->rolls++;
				t->sevens += oc.dice[0] + oc.dice[1] == 7;
			}
			if (++n > ACTION_GUARD)
				fail_msg("game %ld (seed %llu) has no winner "
					 "after %d actions",
					 g, (unsigned long long)seed,
					 ACTION_GUARD);
		}
		assert_true(s.winner < v->players);
		assert_true(catan_state_vp(&s, s.winner) >= opt.vp_target);
		t->won[s.winner]++;
		t->actions += n;
		t->games++;
	}
}

static void report(const char *name, const variant *v, const tally *t)
{
	printf("  %-34s %6ld games, %7.1f actions/game, 7s %.3f, wins:", name,
	       t->games, (double)t->actions / (double)t->games,
	       (double)t->sevens / (double)t->rolls);
	for (int p = 0; p < v->players; p++)
		printf(" %ld", t->won[p]);
	printf("\n");
	/* Every seat can win; sevens near 1/6, never 1/11 (uniform sums). */
	if (t->games >= 200)
		for (int p = 0; p < v->players; p++)
			assert_true(t->won[p] > 0);
	if (t->rolls > 20000) {
		double f = (double)t->sevens / (double)t->rolls;
		assert_true(f > 0.155 && f < 0.178);
	}
}

static void run(const char *name, const variant *v, long games,
		uint64_t seed)
{
	tally t;
	play_games(v, games, seed, &t);
	report(name, v, &t);
}

static void test_random_games__four_players_beginner(void **state)
{
	(void)state;
	variant v = {4, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, 0,
		     CATAN_LEGAL_NO_OFFERS, false, false};
	run("4 players, beginner board", &v, CATAN_RANDOM_GAMES / 2, 1000);
}

static void test_random_games__four_players_random_boards(void **state)
{
	(void)state;
	variant v = {4, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, 0,
		     CATAN_LEGAL_NO_OFFERS, true, false};
	run("4 players, random boards", &v,
	    CATAN_RANDOM_GAMES - CATAN_RANDOM_GAMES / 2, 50000);
}

static void test_random_games__two_players_beginner(void **state)
{
	(void)state;
	variant v = {2, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, 0,
		     CATAN_LEGAL_NO_OFFERS, false, false};
	run("2 players, beginner board", &v, CATAN_RANDOM_GAMES / 2, 2000);
}

static void test_random_games__two_players_random_boards(void **state)
{
	(void)state;
	variant v = {2, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, 0,
		     CATAN_LEGAL_NO_OFFERS, true, false};
	run("2 players, random boards", &v,
	    CATAN_RANDOM_GAMES - CATAN_RANDOM_GAMES / 2, 60000);
}

static void test_random_games__three_players(void **state)
{
	(void)state;
	variant v = {3, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, 0,
		     CATAN_LEGAL_NO_OFFERS, true, false};
	run("3 players, random boards", &v, CATAN_RANDOM_GAMES / 10, 3000);
}

static void test_random_games__classic_phases(void **state)
{
	(void)state;
	variant v = {4, CATAN_PHASES_CLASSIC, CATAN_DICE_SEEDED, 0,
		     CATAN_LEGAL_NO_OFFERS, true, false};
	run("4 players, classic phases", &v, CATAN_RANDOM_GAMES / 10, 4000);
}

static void test_random_games__manual_dice(void **state)
{
	(void)state;
	variant v = {4, CATAN_PHASES_COMBINED, CATAN_DICE_MANUAL, 0,
		     CATAN_LEGAL_NO_OFFERS, true, false};
	run("4 players, manual dice and draws", &v, CATAN_RANDOM_GAMES / 10,
	    5000);
}

static void test_random_games__domestic_offers(void **state)
{
	(void)state;
	/* With offers on, a limit keeps offer/counter chains finite. */
	variant v = {4, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, 3, 0, true,
		     false};
	run("4 players, domestic offers (limit 3)", &v,
	    CATAN_RANDOM_GAMES / 10, 6000);
	variant w = {3, CATAN_PHASES_CLASSIC, CATAN_DICE_SEEDED, 2, 0, false,
		     false};
	run("3 players, classic, offers (limit 2)", &w,
	    CATAN_RANDOM_GAMES / 20, 7000);
}

/*
 * The 5-6 player extension: 24 cards of each resource, 34 development
 * cards, random 5-6 boards, with and without the special building phase.
 */
static void test_random_games__five_players(void **state)
{
	(void)state;
	variant v = {5, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, 0,
		     CATAN_LEGAL_NO_OFFERS, true, true};
	run("5 players, special building", &v, 300, 8000);
	variant w = {5, CATAN_PHASES_CLASSIC, CATAN_DICE_MANUAL, 0,
		     CATAN_LEGAL_NO_OFFERS, true, false};
	run("5 players, classic, manual, no special", &w, 100, 9000);
}

static void test_random_games__six_players(void **state)
{
	(void)state;
	variant v = {6, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, 0,
		     CATAN_LEGAL_NO_OFFERS, true, true};
	run("6 players, special building", &v, 300, 10000);
	variant w = {6, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, 0,
		     CATAN_LEGAL_NO_OFFERS, true, false};
	run("6 players, no special building", &w, 200, 11000);
	variant x = {6, CATAN_PHASES_CLASSIC, CATAN_DICE_SEEDED, 3, 0, true,
		     true};
	run("6 players, classic, offers (limit 3)", &x, 100, 12000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_games__four_players_beginner),
		cmocka_unit_test(test_random_games__four_players_random_boards),
		cmocka_unit_test(test_random_games__two_players_beginner),
		cmocka_unit_test(test_random_games__two_players_random_boards),
		cmocka_unit_test(test_random_games__three_players),
		cmocka_unit_test(test_random_games__classic_phases),
		cmocka_unit_test(test_random_games__manual_dice),
		cmocka_unit_test(test_random_games__domestic_offers),
		cmocka_unit_test(test_random_games__five_players),
		cmocka_unit_test(test_random_games__six_players),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
