/*
 * test_fair.c - the rules of fair dice (catan_dice_mode CATAN_DICE_FAIR):
 * a chance action without its outcome is a request, every other seat
 * reveals, then only the requester completes it with an outcome stated;
 * catan_fair_outcome maps random bytes to outcomes uniformly.
 */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Beginner board, n players, fair dice, set-up played: red to roll. */
static void fair_game(catan_board *b, catan_state *s, int n)
{
	th_new_game(b, s, n);
	th_play_setup(b, s);
	s->opt.dice = CATAN_DICE_FAIR;
	th_check(b, s);
}

static void test_fair__roll_request_reveals_completion(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	fair_game(&b, &s, 3);
	/* A stated roll is not red's to choose. */
	th_reject(&b, &s, RED, "roll 3 4", CATAN_E_DICE_NOT_ALLOWED);
	th_reject(&b, &s, BLUE, "roll", CATAN_E_NOT_YOUR_TURN);
	th_do(&b, &s, RED, "roll");
	assert_int_equal(s.phase, CATAN_PHASE_REVEAL);
	assert_int_equal(s.requester, RED);
	assert_int_equal(s.fair_phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.reveal_wait, (1 << BLUE) | (1 << WHITE));
	/* Nobody completes while reveals are owed, red least of all. */
	th_reject(&b, &s, RED, "roll 3 4", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, BLUE, "roll 3 4", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "reveal", CATAN_E_NOT_YOUR_TURN);
	th_do(&b, &s, BLUE, "reveal");
	th_reject(&b, &s, BLUE, "reveal", CATAN_E_NOT_YOUR_TURN);
	assert_int_equal(catan_state_next_actor(&s), WHITE);
	th_do(&b, &s, WHITE, "reveal");
	assert_int_equal(catan_state_next_actor(&s), RED);
	/* The completion repeats the request with its outcome. */
	th_reject(&b, &s, RED, "roll", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "buy devcard knight", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, WHITE, "roll 3 4", CATAN_E_NOT_YOUR_TURN);
	th_do(&b, &s, RED, "roll 2 3");
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	assert_int_equal(s.dice[0], 2);
	assert_int_equal(s.dice[1], 3);
	assert_int_equal(s.opt.dice, CATAN_DICE_FAIR);
	assert_int_equal(s.fair_events, 1);
	assert_int_equal(s.requester, CATAN_NONE);
}

static void test_fair__card_and_robbery_are_requests(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	fair_game(&b, &s, 2);
	th_do(&b, &s, RED, "roll");
	th_do(&b, &s, BLUE, "reveal");
	th_do(&b, &s, RED, "roll 3 4"); /* a 7: nobody holds more than 7 */
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
	th_clear_hand(&s, BLUE);
	th_give(&s, BLUE, 0, 0, 2, 0, 1);
	catan_action list[512];
	int k = catan_legal_actions(list, 512, &b, &s, RED, 0);
	int asked = -1;
	for (int i = 0; i < k && asked < 0; i++)
		if (list[i].player == BLUE)
			asked = i;
	assert_true(asked >= 0);
	assert_int_equal(list[asked].res, CATAN_NONE);
	catan_state before = s;
	assert_int_equal(catan_state_apply(&s, &b, &s, RED, &list[asked], NULL),
			 CATAN_OK);
	assert_int_equal(s.phase, CATAN_PHASE_REVEAL);
	assert_int_equal(s.fair_phase, CATAN_PHASE_ROBBER);
	assert_int_equal(s.resume, before.resume);
	th_check(&b, &s);
	th_do(&b, &s, BLUE, "reveal");
	/* Only the asked tile and victim, and a card the victim holds. */
	catan_action done = list[asked];
	done.res = CATAN_LUMBER;
	catan_state keep = s;
	assert_int_equal(catan_state_apply(&s, &b, &s, RED, &done, NULL),
			 CATAN_E_NO_CARD);
	assert_memory_equal(&s, &keep, sizeof s);
	uint8_t r[32] = {0};
	catan_fair_outcome(&done, &s, r);
	assert_int_equal(done.res, CATAN_WOOL); /* card 0 of 3 */
	r[0] = 2;
	catan_fair_outcome(&done, &s, r);
	assert_int_equal(done.res, CATAN_ORE); /* card 2 of 3 */
	assert_int_equal(catan_state_apply(&s, &b, &s, RED, &done, NULL),
			 CATAN_OK);
	assert_int_equal(s.players[RED].hand[CATAN_ORE],
			 before.players[RED].hand[CATAN_ORE] + 1);
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	th_check(&b, &s);
	/* A development card: the request is checked as its completion. */
	th_clear_hand(&s, RED);
	th_reject(&b, &s, RED, "buy devcard", CATAN_E_CANNOT_AFFORD);
	th_give(&s, RED, 0, 0, 1, 1, 1);
	th_reject(&b, &s, RED, "buy devcard knight", CATAN_E_DRAW_NOT_ALLOWED);
	th_do(&b, &s, RED, "buy devcard");
	th_do(&b, &s, BLUE, "reveal");
	memset(r, 0, sizeof r);
	catan_fair_outcome(&done, &s, r);
	assert_int_equal(done.kind, CATAN_ACT_BUY_DEV);
	assert_int_equal(done.dev, CATAN_DEV_KNIGHT);
	assert_int_equal(catan_state_apply(&s, &b, &s, RED, &done, NULL),
			 CATAN_OK);
	assert_int_equal(s.players[RED].devs[CATAN_DEV_KNIGHT], 1);
	assert_int_equal(s.fair_events, 3);
}

/* Pearson's chi-square of counts against expected frequencies. */
static double chi2(const long *got, const double *p, int n, long total)
{
	double x = 0;
	for (int i = 0; i < n; i++) {
		double e = p[i] * (double)total;
		x += ((double)got[i] - e) * ((double)got[i] - e) / e;
	}
	return x;
}

/*
 * 60,000 outcomes from random bytes fit two fair dice and the deck (the
 * 0.999 quantiles: 29.6 for 10 degrees of freedom, 18.5 for 4); a biased
 * mapping (one die's word reused for the other) fails.
 */
static void test_fair__outcomes_are_uniform(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	catan_rng rng;
	catan_rng_seed(&rng, 7);
	fair_game(&b, &s, 2);
	th_do(&b, &s, RED, "roll");
	th_do(&b, &s, BLUE, "reveal");
	long sums[13] = {0}, same = 0, cards[CATAN_DEV_COUNT] = {0};
	double p[11], q[CATAN_DEV_COUNT];
	const long N = 60000;
	for (int k = 2; k <= 12; k++)
		p[k - 2] = (6 - abs(k - 7)) / 36.0;
	for (long i = 0; i < N; i++) {
		uint8_t r[32];
		catan_action a;
		for (int j = 0; j < 32; j++)
			r[j] = (uint8_t)catan_rng_below(&rng, 256);
		catan_fair_outcome(&a, &s, r);
		sums[a.dice[0] + a.dice[1]]++;
		same += a.dice[0] == a.dice[1];
	}
	double x = chi2(sums + 2, p, 11, N);
	print_message("dice: chi-square %.1f (10 df), doubles %ld of %ld\n", x,
		      same, N);
	assert_true(x < 29.6);
	/* Doubles 1/6: within 5 standard deviations (squared: no libm). */
	double dev = (double)same - N / 6.0;
	assert_true(dev * dev < 25.0 * N * 5 / 36.0);
	/* A deck of 14 knights, 2+2+2 progress, 5 points. */
	s.req_kind = CATAN_ACT_BUY_DEV;
	int total = 0;
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		total += s.deck[d];
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		q[d] = (double)s.deck[d] / total;
	for (long i = 0; i < N; i++) {
		uint8_t r[32];
		catan_action a;
		for (int j = 0; j < 32; j++)
			r[j] = (uint8_t)catan_rng_below(&rng, 256);
		catan_fair_outcome(&a, &s, r);
		cards[a.dev]++;
	}
	x = chi2(cards, q, CATAN_DEV_COUNT, N);
	print_message("cards: chi-square %.1f (4 df)\n", x);
	assert_true(x < 18.5);
}

/* The invariants of a request, each broken in turn. */
static void test_fair__check_catches_broken_requests(void **state)
{
	(void)state;
	catan_board b;
	catan_state s, bad;
	char why[200];
	fair_game(&b, &s, 3);
	th_do(&b, &s, RED, "roll");
	const struct {
		const char *what;
		int field, value;
	} cases[] = {
	    {"requester", 0, 7},
	    {"reveals owed by requester or nobody", 1, 1 << RED},
	    {"reveals owed by requester or nobody", 1, 1 << 5},
	    {"requested action", 2, CATAN_ACT_END},
	    {"phase of the request", 3, CATAN_PHASE_OVER},
	    {"reveal phase outside fair dice", 4, CATAN_DICE_SEEDED},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bad = s;
		switch (cases[i].field) {
		case 0:
			bad.requester = (uint8_t)cases[i].value;
			break;
		case 1:
			bad.reveal_wait |= (uint8_t)cases[i].value;
			break;
		case 2:
			bad.req_kind = (uint8_t)cases[i].value;
			break;
		case 3:
			bad.fair_phase = (uint8_t)cases[i].value;
			break;
		default:
			bad.opt.dice = (uint8_t)cases[i].value;
		}
		assert_int_equal(catan_state_check(&b, &bad, why, sizeof why),
				 CATAN_E_INVARIANT);
		if (!strstr(why, cases[i].what))
			fail_msg("case %zu: \"%s\" does not name \"%s\"", i,
				 why, cases[i].what);
	}
	th_do(&b, &s, BLUE, "reveal");
	th_do(&b, &s, WHITE, "reveal");
	th_do(&b, &s, RED, "roll 1 2");
	bad = s;
	bad.requester = BLUE;
	assert_int_equal(catan_state_check(&b, &bad, why, sizeof why),
			 CATAN_E_INVARIANT);
	assert_non_null(strstr(why, "request outside the reveal phase"));
	bad = s;
	bad.opt.dice = CATAN_DICE_MANUAL;
	assert_int_equal(catan_state_check(&b, &bad, why, sizeof why),
			 CATAN_E_INVARIANT);
	assert_non_null(strstr(why, "chance outcomes counted"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fair__roll_request_reveals_completion),
	    cmocka_unit_test(test_fair__card_and_robbery_are_requests),
	    cmocka_unit_test(test_fair__outcomes_are_uniform),
	    cmocka_unit_test(test_fair__check_catches_broken_requests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
