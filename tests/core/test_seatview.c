/*
 * test_seatview.c - the view of a seat hides exactly what the seat may not
 * see, and no bot's decision depends on a hidden card: every bot chooses
 * the same action on a view and on the same view with every hidden card
 * dealt again at random ("poisoned": other values, the same counts).
 */
#include "helpers.h"

#include <stdio.h>
#include <string.h>

#include "catan/seatview.h"

static catan_board g_board;

/* Hidden-card-free facts two views of the same game must share. */
static void assert_counts_kept(const catan_state *a, const catan_state *b)
{
	int da = 0, db = 0;
	for (int p = 0; p < a->opt.nplayers; p++) {
		assert_int_equal(a->players[p].ncards, b->players[p].ncards);
		int na = 0, nb = 0;
		for (int d = 0; d < CATAN_DEV_COUNT; d++) {
			na += a->players[p].devs[d];
			nb += b->players[p].devs[d];
		}
		assert_int_equal(na, nb);
	}
	for (int d = 0; d < CATAN_DEV_COUNT; d++) {
		da += a->deck[d];
		db += b->deck[d];
	}
	assert_int_equal(da, db);
}

typedef void (*sample_fn)(const catan_board *b, const catan_state *s,
			  uint64_t salt, long *checked);

/*
 * Plays games (value bots, which trade, and greedy bots; seeded and
 * manual dice) and calls `fn` on every 5th state.
 */
static long over_states(sample_fn fn, int games)
{
	long checked = 0;
	for (int g = 0; g < games; g++) {
		catan_options opt;
		catan_state s;
		catan_rng rng;
		catan_options_default(&opt);
		opt.nplayers = (uint8_t)(3 + g % 2);
		opt.seed = 100 + (uint64_t)g;
		opt.dice = g % 3 == 2 ? CATAN_DICE_MANUAL : CATAN_DICE_SEEDED;
		catan_board_random(&g_board, opt.seed);
		assert_int_equal(catan_state_init(&s, &g_board, &opt),
				 CATAN_OK);
		catan_rng_seed(&rng, (uint64_t)g);
		for (int k = 0; k < 3000 && s.phase != CATAN_PHASE_OVER; k++) {
			int who = catan_state_next_actor(&s);
			if (k % 5 == 0)
				fn(&g_board, &s, (uint64_t)g * 10000 + k,
				   &checked);
			catan_action a;
			int kind = who % 2 ? CATAN_BOT_VALUE : CATAN_BOT_GREEDY;
			assert_int_equal(catan_bot_choose(&a, kind, &g_board,
							  &s, who, &rng, 0),
					 CATAN_OK);
			assert_int_equal(
			    catan_state_apply(&s, &g_board, &s, who, &a, NULL),
			    CATAN_OK);
		}
	}
	return checked;
}

/* Views hide: a game that differs only in hidden cards looks the same. */
static void check_view(const catan_board *b, const catan_state *s,
		       uint64_t salt, long *checked)
{
	for (int seat = 0; seat < s->opt.nplayers; seat++) {
		catan_seat_view v, again, poisoned;
		catan_rng rng;
		catan_rng_seed(&rng, salt * 7 + (uint64_t)seat);
		catan_seat_view_make(&v, s, seat);
		th_check(b, &v.s);
		assert_counts_kept(&v.s, s);
		/* The seat's own cards are exact. */
		assert_memory_equal(v.s.players[seat].hand,
				    s->players[seat].hand, CATAN_RES_COUNT);
		assert_memory_equal(v.s.players[seat].devs,
				    s->players[seat].devs, CATAN_DEV_COUNT);
		/* Another game, the same but for what the seat cannot see. */
		poisoned = v;
		catan_seat_view_deal(&poisoned, &rng);
		th_check(b, &poisoned.s);
		assert_counts_kept(&poisoned.s, s);
		catan_seat_view_make(&again, &poisoned.s, seat);
		assert_memory_equal(&again, &v, sizeof v);
		(*checked)++;
	}
}

static void test_seatview__hides_hidden_cards(void **state)
{
	(void)state;
	long n = over_states(check_view, 12);
	print_message("%ld views checked\n", n);
	assert_true(n > 1000);
}

/* Every bot decides alike on a view and on a poisoned copy of it. */
static void check_bots(const catan_board *b, const catan_state *s,
		       uint64_t salt, long *checked)
{
	for (int seat = 0; seat < s->opt.nplayers; seat++) {
		if (!catan_state_may_act(s, seat))
			continue;
		catan_seat_view v, poisoned;
		catan_rng deal;
		catan_seat_view_make(&v, s, seat);
		catan_rng_seed(&deal, ~salt);
		for (int kind = 0; kind < CATAN_BOT_COUNT; kind++) {
			catan_bot_config cfg;
			catan_bot_config_default(&cfg, kind);
			cfg.playouts = 24;
			for (int trial = 0; trial < 2; trial++) {
				catan_action a, p;
				catan_rng r1, r2;
				poisoned = v;
				catan_seat_view_deal(&poisoned, &deal);
				catan_rng_seed(&r1, salt + (uint64_t)kind);
				r2 = r1;
				assert_int_equal(catan_bot_choose_view(
						     &a, &cfg, b, &v, &r1, 0),
						 CATAN_OK);
				assert_int_equal(
				    catan_bot_choose_view(&p, &cfg, b,
							  &poisoned, &r2, 0),
				    CATAN_OK);
				if (memcmp(&a, &p, sizeof a)) {
					char t1[128], t2[128];
					catan_action_format(t1, sizeof t1, b,
							    NULL, &a);
					catan_action_format(t2, sizeof t2, b,
							    NULL, &p);
					fail_msg("%s bot: \"%s\" on the view, "
						 "\"%s\" with hidden cards "
						 "poisoned",
						 catan_bot_kind_name(kind), t1,
						 t2);
				}
				(*checked)++;
			}
		}
		/*
		 * The random bot runs on the full state (catan_bot_choose):
		 * it must choose as it does on the view.
		 */
		catan_rng r1, r2;
		catan_action a, p;
		catan_bot_config cfg;
		catan_bot_config_default(&cfg, CATAN_BOT_RANDOM);
		catan_rng_seed(&r1, salt);
		r2 = r1;
		assert_int_equal(
		    catan_bot_choose(&a, CATAN_BOT_RANDOM, b, s, seat, &r1, 0),
		    CATAN_OK);
		assert_int_equal(catan_bot_choose_view(&p, &cfg, b, &v, &r2, 0),
				 CATAN_OK);
		if (s->opt.dice != CATAN_DICE_MANUAL)
			assert_memory_equal(&a, &p, sizeof a);
	}
}

static void test_seatview__bots_ignore_hidden_cards(void **state)
{
	(void)state;
	long n = over_states(check_bots, 10);
	print_message("%ld decisions compared\n", n);
	assert_true(n > 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_seatview__hides_hidden_cards),
	    cmocka_unit_test(test_seatview__bots_ignore_hidden_cards),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
