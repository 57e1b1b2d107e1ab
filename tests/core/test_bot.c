/*
 * test_bot.c - the random and greedy bots: they only ever choose legal
 * actions, they are reproducible from their seed, they finish games, and
 * the random bot's discard fallback works when the choices overflow its
 * buffer.
 */
#include "helpers.h"

#include <stdio.h>
#include <string.h>

/* Boards are big: one static board for every test. */
static catan_board g_board;

static catan_action g_legal[CATAN_BOT_BUF * 64];

typedef struct game_result {
	int actions;
	int winner;
	uint64_t hash;
} game_result;

/*
 * Plays one game: bot kinds per seat from `kinds`, bots seeded with
 * `bot_seed`, the game with `game_seed`; stops after `max` actions. With
 * `verify`, every choice must be in the legal list and every state valid.
 */
static game_result play(const catan_board *b, const catan_options *opt_in,
			const int *kinds, uint64_t bot_seed, unsigned flags,
			int max, bool verify)
{
	catan_options opt = *opt_in;
	catan_state s;
	catan_rng rng;
	game_result res = {0, CATAN_NONE, 0};

	assert_int_equal(catan_state_init(&s, b, &opt), CATAN_OK);
	catan_rng_seed(&rng, bot_seed);
	while (res.actions < max) {
		int actor = catan_state_next_actor(&s);
		if (actor == CATAN_NONE)
			break;
		catan_action a;
		int kind = kinds[actor];
		int rc = catan_bot_choose(&a, kind, b, &s, actor, &rng, flags);
		assert_int_equal(rc, CATAN_OK);
		if (verify) {
			unsigned f = kind == CATAN_BOT_GREEDY
					 ? flags | CATAN_LEGAL_NO_OFFERS
					 : flags;
			int n = catan_legal_actions(
			    g_legal, (int)(sizeof g_legal / sizeof g_legal[0]),
			    b, &s, actor, f);
			bool found = false;
			assert_true(n <=
				    (int)(sizeof g_legal / sizeof g_legal[0]));
			for (int i = 0; i < n && !found; i++)
				found = !memcmp(&g_legal[i], &a, sizeof a);
			if (!found) {
				char t[128];
				catan_action_format(t, sizeof t, b, NULL, &a);
				fail_msg(
				    "bot %d chose \"%s\", not in the legal "
				    "list",
				    kind, t);
			}
		}
		rc = catan_state_apply(&s, b, &s, actor, &a, NULL);
		if (rc != CATAN_OK) {
			char t[128];
			catan_action_format(t, sizeof t, b, NULL, &a);
			fail_msg("bot %d chose \"%s\": %s", kind, t,
				 catan_error_str(rc));
		}
		if (verify)
			th_check(b, &s);
		res.actions++;
	}
	res.winner = s.winner;
	res.hash = catan_state_hash(&s);
	if (res.winner != CATAN_NONE)
		assert_true(catan_state_vp(&s, res.winner) >= opt.vp_target);
	return res;
}

/* Applies `a` in place; it must succeed and leave a valid state. */
static void do_action(const catan_board *b, catan_state *s, int actor,
		      const catan_action *a)
{
	int rc = catan_state_apply(s, b, s, actor, a, NULL);

	if (rc != CATAN_OK)
		fail_msg("action of player %d rejected: %s", actor,
			 catan_error_str(rc));
	th_check(b, s);
}

static void options(catan_options *opt, int np, int phases, int dice,
		    uint64_t seed)
{
	catan_options_default(opt);
	opt->nplayers = (uint8_t)np;
	opt->phases = (uint8_t)phases;
	opt->dice = (uint8_t)dice;
	opt->seed = seed;
}

static void test_bot__choices_are_legal(void **state)
{
	catan_board *b = &g_board;
	catan_options opt;
	static const int all_random[4] = {0, 0, 0, 0};
	static const int all_greedy[4] = {1, 1, 1, 1};
	static const int mixed[4] = {1, 0, 1, 0};
	const int *const seats[3] = {all_random, all_greedy, mixed};
	uint64_t seed = 1;
	int won = 0, games = 0;

	(void)state;
	for (int np = 2; np <= 4; np++)
		for (int ph = 0; ph < 2; ph++)
			for (int dice = 0; dice < 2; dice++)
				for (int k = 0; k < 3; k++) {
					catan_board_random(b, seed);
					options(&opt, np, ph, dice, seed);
					opt.offer_limit = (uint8_t)(seed % 3);
					unsigned flags =
					    seed % 2 ? 0
						     : CATAN_LEGAL_NO_OFFERS;
					game_result r =
					    play(b, &opt, seats[k], seed * 31,
						 flags, 3000, true);
					won += r.winner != CATAN_NONE;
					games++;
					seed++;
				}
	print_message("%d of %d games won within 3000 actions\n", won, games);
	assert_true(won >= games / 2);
}

static void test_bot__same_seed_same_game(void **state)
{
	catan_board *b = &g_board;
	catan_options opt;
	static const int greedy[4] = {1, 1, 1, 1};
	static const int random[4] = {0, 0, 0, 0};
	int differ = 0;

	(void)state;
	catan_board_beginner(b);
	for (uint64_t seed = 0; seed < 10; seed++) {
		const int *kinds = seed % 2 ? greedy : random;
		options(&opt, 4, (int)(seed / 2 % 2), (int)(seed / 4 % 2),
			seed);
		game_result a =
		    play(b, &opt, kinds, 100 + seed, 0, 20000, false);
		game_result c =
		    play(b, &opt, kinds, 100 + seed, 0, 20000, false);
		assert_int_equal(a.actions, c.actions);
		assert_int_equal(a.winner, c.winner);
		assert_true(a.hash == c.hash);
		/* Another bot seed, same game seed: another game. */
		game_result d =
		    play(b, &opt, kinds, 200 + seed, 0, 20000, false);
		differ += d.hash != a.hash;
	}
	assert_true(differ >= 9);
}

static void test_bot__greedy_finishes_quickly(void **state)
{
	catan_board *b = &g_board;
	catan_options opt;
	static const int greedy[4] = {1, 1, 1, 1};
	long total = 0;
	int longest = 0;

	(void)state;
	for (uint64_t seed = 0; seed < 50; seed++) {
		catan_board_random(b, seed);
		options(&opt, 4, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED,
			seed);
		game_result r = play(b, &opt, greedy, seed, 0, 20000, false);
		if (r.winner == CATAN_NONE)
			fail_msg("greedy game %d: no winner in %d actions",
				 (int)seed, r.actions);
		total += r.actions;
		longest = r.actions > longest ? r.actions : longest;
	}
	print_message("greedy: %ld actions per game on average, longest %d\n",
		      total / 50, longest);
	assert_true(longest < 2000);
	assert_true(total / 50 < 2000);
}

static void test_bot__random_always_finishes(void **state)
{
	catan_board *b = &g_board;
	catan_options opt;
	static const int random[4] = {0, 0, 0, 0};
	long total = 0;
	int longest = 0;

	(void)state;
	for (uint64_t seed = 0; seed < 100; seed++) {
		catan_board_random(b, seed);
		options(&opt, 4, (int)(seed % 2), CATAN_DICE_SEEDED, seed);
		opt.offer_limit = (uint8_t)(seed % 3);
		game_result r = play(b, &opt, random, seed, 0, 1000000, false);
		if (r.winner == CATAN_NONE)
			fail_msg("random game %d: no winner in %d actions",
				 (int)seed, r.actions);
		total += r.actions;
		longest = r.actions > longest ? r.actions : longest;
	}
	print_message("random: %ld actions per game on average, longest %d\n",
		      total / 100, longest);
}

/* Nobody who may not act gets an action. */
static void test_bot__idle_player_gets_nothing(void **state)
{
	catan_board *b = &g_board;
	catan_state s;
	catan_rng rng;
	catan_action a;

	(void)state;
	th_new_game(b, &s, 4);
	catan_rng_seed(&rng, 1);
	for (int k = 0; k < CATAN_BOT_COUNT; k++) {
		for (int p = BLUE; p <= ORANGE; p++)
			assert_int_equal(
			    catan_bot_choose(&a, k, b, &s, p, &rng, 0),
			    CATAN_E_NOT_YOUR_TURN);
		assert_int_equal(catan_bot_choose(&a, k, b, &s, -1, &rng, 0),
				 CATAN_E_NOT_YOUR_TURN);
		assert_int_equal(catan_bot_choose(&a, k, b, &s, 4, &rng, 0),
				 CATAN_E_NOT_YOUR_TURN);
		assert_int_equal(catan_bot_choose(&a, k, b, &s, RED, &rng, 0),
				 CATAN_OK);
	}
}

/*
 * A discard with more choices than CATAN_BOT_BUF: red holds 50 cards
 * (10 of each) and owes 25, blue holds 9 and owes 4. The fallback must
 * give a legal discard, for either bot, for many bot seeds.
 */
static void huge_discard(catan_board *b, catan_state *s)
{
	th_new_game(b, s, 4);
	th_play_setup(b, s);
	for (int p = 0; p < 4; p++)
		th_clear_hand(s, p);
	th_give(s, RED, 10, 10, 10, 10, 10);
	th_give(s, BLUE, 2, 2, 2, 2, 1);
	th_roll(b, s, 3, 4);
	assert_int_equal(s->phase, CATAN_PHASE_DISCARD);
	assert_int_equal(s->discard[RED], 25);
	assert_int_equal(s->discard[BLUE], 4);
	th_check(b, s);
}

static void test_bot__discard_beyond_buffer(void **state)
{
	catan_board *b = &g_board;
	catan_state s;
	catan_rng rng;
	catan_action a;
	long given[CATAN_RES_COUNT] = {0};

	(void)state;
	huge_discard(b, &s);
	int n = catan_legal_actions(NULL, 0, b, &s, RED, 0);
	print_message("%d ways to discard 25 of 50\n", n);
	assert_true(n > CATAN_BOT_BUF);
	/* The random fallback of the random and the greedy bot. */
	for (int k = CATAN_BOT_RANDOM; k <= CATAN_BOT_GREEDY; k++)
		for (uint64_t seed = 0; seed < 200; seed++) {
			catan_rng_seed(&rng, seed);
			assert_int_equal(
			    catan_bot_choose(&a, k, b, &s, RED, &rng, 0),
			    CATAN_OK);
			assert_int_equal(a.kind, CATAN_ACT_DISCARD);
			int sum = 0;
			for (int r = 0; r < CATAN_RES_COUNT; r++) {
				assert_true(a.give[r] <= 10);
				sum += a.give[r];
				given[r] += a.give[r];
			}
			assert_int_equal(sum, 25);
			/* It is the canonical action: like a listed one. */
			catan_action c;
			catan_action_init(&c, CATAN_ACT_DISCARD);
			memcpy(c.give, a.give, sizeof c.give);
			assert_memory_equal(&a, &c, sizeof a);
			catan_state t = s;
			do_action(b, &t, RED, &a);
			assert_int_equal(t.players[RED].ncards, 25);
			assert_int_equal(t.discard[RED], 0);
			assert_int_equal(t.phase, CATAN_PHASE_DISCARD);
		}
	/* Roughly uniform over the cards: each resource about 1/5. */
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		assert_true(given[r] > 2 * 200 * 25 / 5 * 8 / 10 &&
			    given[r] < 2 * 200 * 25 / 5 * 12 / 10);
	/* Blue's small discard still comes from the list. */
	catan_rng_seed(&rng, 5);
	assert_int_equal(
	    catan_bot_choose(&a, CATAN_BOT_RANDOM, b, &s, BLUE, &rng, 0),
	    CATAN_OK);
	do_action(b, &s, BLUE, &a);
	/* Then red's, and the robber comes next. */
	assert_int_equal(
	    catan_bot_choose(&a, CATAN_BOT_RANDOM, b, &s, RED, &rng, 0),
	    CATAN_OK);
	do_action(b, &s, RED, &a);
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
}

/*
 * The value and search bots (mixed with the others, every phase style
 * and dice mode) only choose actions that apply, never break an
 * invariant, finish their games, and trade: their offers apply, and some
 * are accepted and some countered.
 */
static void test_bot__value_and_mcts_legal_and_trading(void **state)
{
	catan_board *b = &g_board;
	long offers = 0, accepted = 0, countered = 0, games = 0;

	(void)state;
	for (uint64_t seed = 0; seed < 12; seed++) {
		catan_options opt;
		catan_state s;
		catan_rng rng;
		int kinds[4] = {CATAN_BOT_VALUE, CATAN_BOT_MCTS,
				CATAN_BOT_VALUE, (int)(seed % 2)};
		catan_board_random(b, seed);
		options(&opt, 3 + (int)(seed % 2), (int)(seed / 2 % 2),
			seed % 3 == 2 ? CATAN_DICE_MANUAL : CATAN_DICE_SEEDED,
			seed);
		assert_int_equal(catan_state_init(&s, b, &opt), CATAN_OK);
		catan_rng_seed(&rng, seed);
		for (int k = 0; k < 20000 && s.phase != CATAN_PHASE_OVER; k++) {
			int who = catan_state_next_actor(&s);
			catan_action a;
			assert_int_equal(catan_bot_choose(&a, kinds[who], b, &s,
							  who, &rng, 0),
					 CATAN_OK);
			int rc = catan_state_apply(&s, b, &s, who, &a, NULL);
			if (rc != CATAN_OK) {
				char t[128];
				catan_action_format(t, sizeof t, b, NULL, &a);
				fail_msg("%s bot chose \"%s\": %s",
					 catan_bot_kind_name(kinds[who]), t,
					 catan_error_str(rc));
			}
			th_check(b, &s);
			if (a.kind == CATAN_ACT_TRADE_OFFER) {
				offers++;
				countered +=
				    s.offers > 1 && s.offer_to == s.active;
			}
			accepted += a.kind == CATAN_ACT_TRADE_ACCEPT;
		}
		assert_int_equal(s.phase, CATAN_PHASE_OVER);
		games++;
	}
	print_message(
	    "%ld games: %ld offers, %ld accepted, %ld counter-offers\n", games,
	    offers, accepted, countered);
	assert_true(offers > 0);
	assert_true(accepted > 0);
	assert_true(countered > 0);
}

/*
 * catan_bot_trade_value and the answers: blue holds grain 1, ore 4 and a
 * settlement; one grain for one ore makes a city, so it gains, and the
 * value bot accepts that offer; losing its only grain for lumber does not
 * gain, and it does not accept.
 */
static void test_bot__trade_value_and_answers(void **state)
{
	catan_board *b = &g_board;
	catan_state s;
	catan_rng rng;
	catan_action a;
	uint8_t grain[CATAN_RES_COUNT] = {0, 0, 0, 1, 0};
	uint8_t ore[CATAN_RES_COUNT] = {0, 0, 0, 0, 1};
	uint8_t lumber[CATAN_RES_COUNT] = {1, 0, 0, 0, 0};

	(void)state;
	th_new_game(b, &s, 4);
	th_play_setup(b, &s);
	th_roll(b, &s, 2, 3);
	for (int p = RED; p <= ORANGE; p++)
		th_clear_hand(&s, p);
	th_give(&s, BLUE, 0, 0, 0, 1, 4);
	th_give(&s, RED, 2, 0, 0, 2, 0);
	/* Blue gives ore, gets grain: a city. */
	assert_true(catan_bot_trade_value(b, &s, BLUE, BLUE, ore, grain) > 0);
	/* Blue gives its grain for lumber: further from anything. */
	assert_true(catan_bot_trade_value(b, &s, BLUE, BLUE, grain, lumber) <
		    0);
	/* Seen from red, blue's side is an estimate, but a number. */
	(void)catan_bot_trade_value(b, &s, RED, BLUE, ore, grain);

	catan_state t = s;
	th_do(b, &t, RED, "trade offer blue give grain:1 get ore:1");
	catan_rng_seed(&rng, 3);
	assert_int_equal(
	    catan_bot_choose(&a, CATAN_BOT_VALUE, b, &t, BLUE, &rng, 0),
	    CATAN_OK);
	assert_int_equal(a.kind, CATAN_ACT_TRADE_ACCEPT);

	t = s;
	th_do(b, &t, RED, "trade offer blue give lumber:1 get grain:1");
	assert_int_equal(
	    catan_bot_choose(&a, CATAN_BOT_VALUE, b, &t, BLUE, &rng, 0),
	    CATAN_OK);
	assert_true(a.kind != CATAN_ACT_TRADE_ACCEPT);
	assert_int_equal(catan_state_apply(&t, b, &t, BLUE, &a, NULL),
			 CATAN_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bot__idle_player_gets_nothing),
	    cmocka_unit_test(test_bot__choices_are_legal),
	    cmocka_unit_test(test_bot__same_seed_same_game),
	    cmocka_unit_test(test_bot__greedy_finishes_quickly),
	    cmocka_unit_test(test_bot__value_and_mcts_legal_and_trading),
	    cmocka_unit_test(test_bot__trade_value_and_answers),
	    cmocka_unit_test(test_bot__random_always_finishes),
	    cmocka_unit_test(test_bot__discard_beyond_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
