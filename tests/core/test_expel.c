/*
 * test_expel.c - expelling a seat that equivocated (CATAN_ACT_EXPEL,
 * spec/rules.md "Expelled seats"): when `expel E` is legal, what it does
 * in each phase, how an expelled seat is skipped from then on, and the
 * invariants catan_state_check() keeps about it.
 */
#include "helpers.h"

#include "catan/boardgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No seat is ever offered `expel`, and an expelled seat nothing at all. */
static void no_expel_listed(const catan_board *b, const catan_state *s)
{
	catan_action a[1024];
	for (int p = 0; p < s->opt.nplayers; p++) {
		int k = catan_legal_actions(a, 1024, b, s, p, 0);
		assert_true(k <= 1024);
		for (int i = 0; i < k; i++)
			assert_int_not_equal(a[i].kind, CATAN_ACT_EXPEL);
		if (catan_state_out(s, p)) {
			assert_int_equal(k, 0);
			assert_false(catan_state_may_act(s, p));
		}
	}
	if (s->phase != CATAN_PHASE_OVER)
		assert_false(catan_state_out(s, catan_state_next_actor(s)));
}

/* th_do() of "expel <seat>" by actor, then the checks above. */
static void expel(const catan_board *b, catan_state *s, int actor,
		  const char *seat)
{
	char text[32];
	snprintf(text, sizeof text, "expel %s", seat);
	th_do(b, s, actor, text);
	no_expel_listed(b, s);
}

/* Beginner board, n players, set-up played: red to roll on turn 1. */
static void game(catan_board *b, catan_state *s, int n)
{
	th_new_game(b, s, n);
	th_play_setup(b, s);
}

/* The check fails, and its message contains `part`. */
static int check_says(const catan_board *b, const catan_state *s,
		      const char *part)
{
	char why[200];
	int rc = catan_state_check(b, s, why, sizeof why);
	if (rc == CATAN_OK)
		return 0;
	const char *at = strstr(why, part);
	if (!at)
		fail_msg("check said \"%s\", not \"%s\"", why, part);
	return 1;
}

/*
 * As check_says, `name` being the whole text of the invariant reported
 * (spec/model.md's table): followed by ": is " or " (player ", as
 * test_check.c's expect_broken asserts.
 */
static int check_names(const catan_board *b, const catan_state *s,
		       const char *name)
{
	char why[200];
	if (!check_says(b, s, name))
		return 0;
	catan_state_check(b, s, why, sizeof why);
	const char *at = strstr(why, name) + strlen(name);
	if (strncmp(at, ": is ", 5) && strncmp(at, " (player ", 9))
		fail_msg("check said \"%s\", not the whole \"%s\"", why, name);
	return 1;
}

/* ---- the action's text ---- */

static void test_expel__parse_and_format(void **state)
{
	(void)state;
	catan_board b;
	catan_board_beginner(&b);
	catan_action a = th_action(&b, "expel white"), c;
	assert_int_equal(a.kind, CATAN_ACT_EXPEL);
	assert_int_equal(a.player, WHITE);
	c = th_action(&b, "  EXPEL White ");
	assert_memory_equal(&a, &c, sizeof a);
	char buf[64];
	assert_int_equal(catan_action_format(buf, sizeof buf, &b, NULL, &a),
			 (int)strlen("expel white"));
	assert_string_equal(buf, "expel white");
	catan_parse_error err;
	assert_int_equal(catan_action_parse(&c, &b, NULL, "expel", &err),
			 CATAN_E_PARSE);
	assert_int_equal(catan_action_parse(&c, &b, NULL, "expel purple", &err),
			 CATAN_E_BAD_PLAYER);
	assert_int_equal(
	    catan_action_parse(&c, &b, NULL, "expel white blue", &err),
	    CATAN_E_PARSE);
}

/* ---- when it is legal ---- */

static void test_expel__refusals(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 4);
	/* Red must roll: only blue, who plays next, expels red. */
	th_reject(&b, &s, WHITE, "expel red", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, ORANGE, "expel red", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, RED, "expel red", CATAN_E_BAD_PLAYER);
	/* Blue is not the one to act: no expelling it. */
	th_reject(&b, &s, WHITE, "expel blue", CATAN_E_WRONG_PHASE);
	th_reject(&b, &s, RED, "expel blue", CATAN_E_WRONG_PHASE);
	/* A seat of no player. */
	catan_action a = th_action(&b, "expel red");
	a.player = 4;
	catan_state before = s;
	assert_int_equal(catan_state_apply(&s, &b, &s, BLUE, &a, NULL),
			 CATAN_E_BAD_PLAYER);
	a.player = CATAN_NONE;
	assert_int_equal(catan_state_apply(&s, &b, &s, BLUE, &a, NULL),
			 CATAN_E_BAD_PLAYER);
	assert_memory_equal(&s, &before, sizeof s);
	expel(&b, &s, BLUE, "red");
	/* Red is out: not again, and red expels nobody. */
	th_reject(&b, &s, WHITE, "expel red", CATAN_E_BAD_PLAYER);
	th_reject(&b, &s, RED, "expel blue", CATAN_E_BAD_PLAYER);
	/* Apply-legal sends it through the full rules as well. */
	a = th_action(&b, "expel blue");
	assert_int_equal(catan_state_apply_legal(&s, &b, &s, WHITE, &a, NULL),
			 CATAN_OK);
	assert_int_equal(s.out, (1 << RED) | (1 << BLUE));
	/* Two seats left: expelling white ends the game, orange wins. */
	th_reject(&b, &s, RED, "expel white", CATAN_E_BAD_PLAYER);
	expel(&b, &s, ORANGE, "white");
	assert_int_equal(s.phase, CATAN_PHASE_OVER);
	assert_int_equal(s.winner, ORANGE);
	th_reject(&b, &s, ORANGE, "expel white", CATAN_E_GAME_OVER);
	th_reject(&b, &s, ORANGE, "expel orange", CATAN_E_GAME_OVER);
}

static void test_expel__last_seat_left_wins(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 2);
	th_reject(&b, &s, RED, "expel red", CATAN_E_BAD_PLAYER);
	expel(&b, &s, BLUE, "red");
	assert_int_equal(s.phase, CATAN_PHASE_OVER);
	assert_int_equal(s.winner, BLUE);
	assert_true(catan_state_vp(&s, BLUE) < s.opt.vp_target);
	/* The relaxed points check holds only for the last seat left. */
	s.out = 0;
	assert_true(check_names(&b, &s, "winner's victory points"));
}

/* ---- what it does, phase by phase ---- */

static void test_expel__setup(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 4);
	th_reject(&b, &s, WHITE, "expel red", CATAN_E_NOT_YOUR_TURN);
	expel(&b, &s, BLUE, "red");
	assert_int_equal(s.phase, CATAN_PHASE_SETUP);
	assert_int_equal(s.setup_step, 1);
	assert_int_equal(s.active, BLUE);
	/* The others place, red's second step is skipped too. */
	while (s.phase == CATAN_PHASE_SETUP) {
		catan_action a[512];
		int who = catan_state_next_actor(&s);
		assert_int_not_equal(who, RED);
		assert_true(catan_legal_actions(a, 512, &b, &s, who, 0) > 0);
		assert_int_equal(
		    catan_state_apply(&s, &b, &s, who, &a[0], NULL), CATAN_OK);
		th_check(&b, &s);
		no_expel_listed(&b, &s);
	}
	/* The first turn is the first seat still in. */
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, BLUE);
	assert_int_equal(s.turn, 1);
	assert_int_equal(catan_vset_count(&s.players[RED].settlements), 0);
}

static void test_expel__setup_last_step(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 3);
	while (s.setup_step < 5) {
		catan_action a[512];
		int who = catan_state_next_actor(&s);
		assert_true(catan_legal_actions(a, 512, &b, &s, who, 0) > 0);
		assert_int_equal(
		    catan_state_apply(&s, &b, &s, who, &a[0], NULL), CATAN_OK);
	}
	/* Red's last placement: the first turn, blue's, follows. */
	assert_int_equal(s.active, RED);
	th_reject(&b, &s, WHITE, "expel red", CATAN_E_NOT_YOUR_TURN);
	expel(&b, &s, BLUE, "red");
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, BLUE);
	assert_int_equal(s.turn, 1);
}

static void test_expel__roll(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 4);
	expel(&b, &s, BLUE, "red");
	assert_int_equal(s.out, 1 << RED);
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, BLUE);
	assert_int_equal(s.turn, 2);
	assert_int_equal(s.players[RED].ncards, 0);
	/* Red's pieces stay and count. */
	assert_int_equal(s.players[RED].public_vp, 2);
	assert_int_equal(catan_vset_count(&s.players[RED].settlements), 2);
}

static void test_expel__main_returns_cards(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 4);
	th_roll(&b, &s, 1, 1);
	th_clear_hand(&s, RED);
	th_give(&s, RED, 1, 0, 3, 2, 2);
	th_do(&b, &s, RED, "buy devcard"); /* bought this turn */
	th_give_dev(&s, RED, CATAN_DEV_KNIGHT);
	th_give_dev(&s, RED, CATAN_DEV_VICTORY_POINT);
	uint8_t bank[CATAN_RES_COUNT], deck[CATAN_DEV_COUNT];
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		bank[r] = (uint8_t)(s.bank[r] + s.players[RED].hand[r]);
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		deck[d] = (uint8_t)(s.deck[d] + s.players[RED].devs[d]);
	expel(&b, &s, BLUE, "red");
	assert_memory_equal(s.bank, bank, sizeof bank);
	assert_memory_equal(s.deck, deck, sizeof deck);
	assert_int_equal(s.players[RED].ncards, 0);
	for (int d = 0; d < CATAN_DEV_COUNT; d++) {
		assert_int_equal(s.players[RED].devs[d], 0);
		assert_int_equal(s.bought[d], 0);
	}
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, BLUE);
}

static void test_expel__robber(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 4);
	th_roll(&b, &s, 3, 4);
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
	th_reject(&b, &s, WHITE, "expel red", CATAN_E_NOT_YOUR_TURN);
	expel(&b, &s, BLUE, "red");
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, BLUE);
	assert_int_equal(s.resume, CATAN_PHASE_SETUP);
}

static void test_expel__offer_target(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 4);
	th_roll(&b, &s, 1, 1);
	th_give(&s, RED, 1, 0, 0, 0, 0);
	th_do(&b, &s, RED, "trade offer blue give lumber:1 get ore:1");
	/* Blue must answer; red, who offered, goes on without blue. */
	th_reject(&b, &s, WHITE, "expel blue", CATAN_E_NOT_YOUR_TURN);
	th_reject(&b, &s, WHITE, "expel red", CATAN_E_WRONG_PHASE);
	expel(&b, &s, RED, "blue");
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	assert_int_equal(s.active, RED);
	assert_int_equal(s.offer_to, CATAN_NONE);
	assert_int_equal(s.offers, 1);
	/* No new offer to blue. */
	th_reject(&b, &s, RED, "trade offer blue give lumber:1 get ore:1",
		  CATAN_E_BAD_PLAYER);
	th_do(&b, &s, RED, "trade offer white give lumber:1 get ore:1");
	th_do(&b, &s, WHITE, "trade reject");
	/* Red's turn ends: white, then orange, then red, never blue. */
	th_do(&b, &s, RED, "end");
	assert_int_equal(s.active, WHITE);
	th_roll(&b, &s, 1, 1);
	th_do(&b, &s, WHITE, "end");
	assert_int_equal(s.active, ORANGE);
	th_roll(&b, &s, 1, 1);
	th_do(&b, &s, ORANGE, "end");
	assert_int_equal(s.active, RED);
	th_roll(&b, &s, 1, 1);
	th_do(&b, &s, RED, "end");
	assert_int_equal(s.active, WHITE);
	no_expel_listed(&b, &s);
}

static void test_expel__offer_legal_lists_skip_out_seat(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 3);
	expel(&b, &s, BLUE, "red");
	th_roll(&b, &s, 1, 1);
	th_give(&s, BLUE, 1, 1, 1, 1, 1);
	catan_action a[1024];
	int k = catan_legal_actions(a, 1024, &b, &s, BLUE, 0), offers = 0;
	for (int i = 0; i < k; i++) {
		if (a[i].kind != CATAN_ACT_TRADE_OFFER)
			continue;
		assert_int_equal(a[i].player, WHITE);
		offers++;
	}
	assert_int_equal(offers, 5 * 4);
	/* The random draw counts and picks the same way. */
	catan_rng rng;
	catan_rng_seed(&rng, 3);
	for (int i = 0; i < 300; i++) {
		catan_action c;
		assert_int_equal(catan_bot_choose(&c, CATAN_BOT_RANDOM, &b, &s,
						  BLUE, &rng, 0),
				 CATAN_OK);
		if (c.kind == CATAN_ACT_TRADE_OFFER)
			assert_int_equal(c.player, WHITE);
	}
}

/* p discards the first discard listed. */
static void discard_any(const catan_board *b, catan_state *s, int p)
{
	catan_action a[1];
	assert_true(catan_legal_actions(a, 1, b, s, p, 0) > 0);
	assert_int_equal(a[0].kind, CATAN_ACT_DISCARD);
	assert_int_equal(catan_state_apply(s, b, s, p, &a[0], NULL), CATAN_OK);
	th_check(b, s);
}

static void test_expel__discard_last_owing(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 4);
	th_give(&s, WHITE, 2, 2, 2, 2, 0);
	th_give(&s, BLUE, 2, 2, 2, 2, 0);
	th_roll(&b, &s, 3, 4);
	assert_int_equal(s.phase, CATAN_PHASE_DISCARD);
	/* Blue owes too: white is not the only one to act. */
	th_reject(&b, &s, RED, "expel white", CATAN_E_WRONG_PHASE);
	discard_any(&b, &s, BLUE);
	th_reject(&b, &s, BLUE, "expel white", CATAN_E_NOT_YOUR_TURN);
	expel(&b, &s, RED, "white");
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
	assert_int_equal(s.active, RED);
	assert_int_equal(s.discard[WHITE], 0);
	assert_int_equal(s.players[WHITE].ncards, 0);
}

static void test_expel__discard_by_active(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 4);
	th_give(&s, RED, 2, 2, 2, 2, 0);
	th_roll(&b, &s, 3, 4);
	assert_int_equal(s.phase, CATAN_PHASE_DISCARD);
	expel(&b, &s, BLUE, "red");
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, BLUE);
	assert_int_equal(s.discard[RED], 0);
	assert_int_equal(s.resume, CATAN_PHASE_SETUP);
}

/* ---- special building (5-6 players) ---- */

static void special_game(catan_board *b, catan_state *s, int n)
{
	catan_options o;
	catan_options_default(&o);
	o.nplayers = (uint8_t)n;
	o.special_build = 1;
	assert_int_equal(catan_board_random_ext56(b, 5), CATAN_OK);
	assert_int_equal(catan_state_init(s, b, &o), CATAN_OK);
	while (s->phase == CATAN_PHASE_SETUP) {
		catan_action a[512];
		int who = catan_state_next_actor(s);
		assert_true(catan_legal_actions(a, 512, b, s, who, 0) > 0);
		assert_int_equal(catan_state_apply(s, b, s, who, &a[0], NULL),
				 CATAN_OK);
	}
	for (int p = 0; p < n; p++)
		th_clear_hand(s, p);
	th_check(b, s);
}

static void test_expel__special_builder(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	special_game(&b, &s, 5);
	th_roll(&b, &s, 6, 6);
	th_do(&b, &s, 0, "end");
	assert_int_equal(s.builder, 1);
	th_reject(&b, &s, 0, "expel blue", CATAN_E_NOT_YOUR_TURN);
	expel(&b, &s, WHITE, "blue");
	assert_int_equal(s.phase, CATAN_PHASE_SPECIAL);
	assert_int_equal(s.builder, WHITE);
	th_do(&b, &s, WHITE, "end");
	th_do(&b, &s, ORANGE, "end");
	/* The last builder expelled: the next turn begins, skipping blue. */
	assert_int_equal(s.builder, 4);
	expel(&b, &s, WHITE, "green");
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, WHITE);
	assert_int_equal(s.builder, CATAN_NONE);
	/* White's turn ends; its builders are orange and red. */
	th_roll(&b, &s, 6, 6);
	th_do(&b, &s, WHITE, "end");
	assert_int_equal(s.builder, ORANGE);
	th_do(&b, &s, ORANGE, "end");
	assert_int_equal(s.builder, RED);
	th_do(&b, &s, RED, "end");
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, ORANGE);
}

static void test_expel__active_then_special_phase(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	special_game(&b, &s, 5);
	th_roll(&b, &s, 6, 6);
	/* Red expelled in its main phase: the others build, then blue. */
	expel(&b, &s, BLUE, "red");
	assert_int_equal(s.phase, CATAN_PHASE_SPECIAL);
	assert_int_equal(s.builder, BLUE);
	for (int p = BLUE; p < 5; p++) {
		assert_int_equal(s.builder, p);
		th_do(&b, &s, p, "end");
		no_expel_listed(&b, &s);
	}
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, BLUE);
}

/* ---- fair dice ---- */

static void fair_game(catan_board *b, catan_state *s, int n)
{
	game(b, s, n);
	s->opt.dice = CATAN_DICE_FAIR;
	th_check(b, s);
}

static void test_expel__reveal_last_owing(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	fair_game(&b, &s, 3);
	th_do(&b, &s, RED, "roll");
	th_reject(&b, &s, RED, "expel white", CATAN_E_WRONG_PHASE);
	th_do(&b, &s, BLUE, "reveal");
	th_reject(&b, &s, BLUE, "expel white", CATAN_E_NOT_YOUR_TURN);
	expel(&b, &s, RED, "white");
	assert_int_equal(s.phase, CATAN_PHASE_REVEAL);
	assert_int_equal(s.reveal_wait, 0);
	th_do(&b, &s, RED, "roll 2 3");
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
}

static void test_expel__reveal_requester(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	fair_game(&b, &s, 3);
	th_do(&b, &s, RED, "roll");
	th_do(&b, &s, BLUE, "reveal");
	th_do(&b, &s, WHITE, "reveal");
	th_reject(&b, &s, WHITE, "expel red", CATAN_E_NOT_YOUR_TURN);
	expel(&b, &s, BLUE, "red");
	assert_int_equal(s.phase, CATAN_PHASE_ROLL);
	assert_int_equal(s.active, BLUE);
	assert_int_equal(s.requester, CATAN_NONE);
	assert_int_equal(s.req_kind, 0);
	/* Blue's request waits for white's reveal only. */
	th_do(&b, &s, BLUE, "roll");
	assert_int_equal(s.reveal_wait, 1 << WHITE);
}

/* ---- skipped for good ---- */

static void test_expel__production(void **state)
{
	(void)state;
	catan_board b;
	catan_state s, kept;
	game(&b, &s, 4);
	kept = s;
	expel(&b, &s, BLUE, "red");
	/* An 8: red and blue are owed a lumber each, one left in the bank. */
	th_give(&s, WHITE, s.bank[CATAN_LUMBER] - 1, 0, 0, 0, 0);
	th_give(&kept, WHITE, kept.bank[CATAN_LUMBER] - 1, 0, 0, 0, 0);
	catan_state both = kept;
	both.active = BLUE; /* the same roll, red still in: a shortage */
	int had = s.players[BLUE].hand[CATAN_LUMBER];
	th_roll(&b, &both, 4, 4);
	assert_int_equal(both.players[BLUE].hand[CATAN_LUMBER], had);
	assert_int_equal(both.bank[CATAN_LUMBER], 1);
	th_roll(&b, &s, 4, 4);
	assert_int_equal(s.players[RED].ncards, 0);
	assert_int_equal(s.players[BLUE].hand[CATAN_LUMBER], had + 1);
	assert_int_equal(s.bank[CATAN_LUMBER], 0);
	/* Every other roll pays red nothing either. */
	for (int d = 2; d <= 12; d++) {
		catan_state t = s;
		if (d == 7)
			continue;
		th_do(&b, &t, BLUE, "end");
		th_roll(&b, &t, d > 6 ? 6 : d - 1, d > 6 ? d - 6 : 1);
		assert_int_equal(t.players[RED].ncards, 0);
	}
}

static void test_expel__reveal_wait_skips_out_seat(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	fair_game(&b, &s, 4);
	expel(&b, &s, BLUE, "red");
	th_do(&b, &s, BLUE, "roll");
	assert_int_equal(s.reveal_wait, (1 << WHITE) | (1 << ORANGE));
	no_expel_listed(&b, &s);
}

/* ---- trophies ---- */

static void test_expel__longest_road_moves_on(void **state)
{
	(void)state;
	catan_board b;
	catan_state s, t;
	catan_action a = {0};
	game(&b, &s, 4);
	/* (Road lengths set by hand: the invariants are not checked.) */
	s.players[RED].road_length = 8;
	s.longest_road = RED;
	s.players[RED].public_vp += 2;
	s.players[BLUE].road_length = 6;
	s.players[WHITE].road_length = 5;
	a = th_action(&b, "expel red");
	assert_int_equal(catan_state_apply(&t, &b, &s, BLUE, &a, NULL),
			 CATAN_OK);
	assert_int_equal(t.longest_road, BLUE);
	assert_int_equal(t.players[BLUE].public_vp,
			 s.players[BLUE].public_vp + 2);
	assert_int_equal(t.players[RED].public_vp,
			 s.players[RED].public_vp - 2);
	/* A tie at the top: nobody. */
	s.players[WHITE].road_length = 6;
	assert_int_equal(catan_state_apply(&t, &b, &s, BLUE, &a, NULL),
			 CATAN_OK);
	assert_int_equal(t.longest_road, CATAN_NONE);
	/* Shorter than 5: nobody. */
	s.players[BLUE].road_length = s.players[WHITE].road_length = 4;
	assert_int_equal(catan_state_apply(&t, &b, &s, BLUE, &a, NULL),
			 CATAN_OK);
	assert_int_equal(t.longest_road, CATAN_NONE);
	assert_int_equal(t.players[RED].public_vp,
			 s.players[RED].public_vp - 2);
}

static void test_expel__largest_army_moves_on(void **state)
{
	(void)state;
	catan_board b;
	catan_state s, t;
	game(&b, &s, 4);
	s.players[RED].knights = 5;
	s.largest_army = RED;
	s.players[RED].public_vp += 2;
	s.players[BLUE].knights = 4;
	s.players[WHITE].knights = 3;
	catan_action a = th_action(&b, "expel red");
	assert_int_equal(catan_state_apply(&t, &b, &s, BLUE, &a, NULL),
			 CATAN_OK);
	assert_int_equal(t.largest_army, BLUE);
	assert_int_equal(t.players[BLUE].public_vp,
			 s.players[BLUE].public_vp + 2);
	s.players[WHITE].knights = 4;
	assert_int_equal(catan_state_apply(&t, &b, &s, BLUE, &a, NULL),
			 CATAN_OK);
	assert_int_equal(t.largest_army, CATAN_NONE);
	/* Fewer than 3: nobody. */
	s.players[BLUE].knights = 2;
	s.players[WHITE].knights = 1;
	assert_int_equal(catan_state_apply(&t, &b, &s, BLUE, &a, NULL),
			 CATAN_OK);
	assert_int_equal(t.largest_army, CATAN_NONE);
}

/* Plays the first knight action listed for the active player. */
static void play_knight(const catan_board *b, catan_state *s)
{
	catan_action a[512];
	int k = catan_legal_actions(a, 512, b, s, s->active, 0);
	for (int i = 0; i < k && i < 512; i++)
		if (a[i].kind == CATAN_ACT_PLAY_KNIGHT) {
			assert_int_equal(
			    catan_state_apply(s, b, s, s->active, &a[i], NULL),
			    CATAN_OK);
			th_check(b, s);
			return;
		}
	fail_msg("no knight to play");
}

static void test_expel__knight_after_tie(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 4);
	/* Knights as if played before: red 4 (army), blue 2, white and
	 * orange 3. */
	static const int knights[4] = {4, 2, 3, 3};
	for (int p = 0; p < 4; p++)
		s.players[p].knights = (uint8_t)knights[p];
	s.played[CATAN_DEV_KNIGHT] = 12;
	s.deck[CATAN_DEV_KNIGHT] = (uint8_t)(s.deck[CATAN_DEV_KNIGHT] - 12);
	s.largest_army = RED;
	s.players[RED].public_vp += 2;
	th_check(&b, &s);
	expel(&b, &s, BLUE, "red");
	assert_int_equal(s.largest_army, CATAN_NONE); /* white, orange tie */
	/* Blue's third knight ties them: nobody takes the army. */
	th_give_dev(&s, BLUE, CATAN_DEV_KNIGHT);
	play_knight(&b, &s);
	assert_int_equal(s.players[BLUE].knights, 3);
	assert_int_equal(s.largest_army, CATAN_NONE);
	if (s.phase == CATAN_PHASE_ROBBER || s.phase == CATAN_PHASE_REVEAL)
		fail_msg("phase %d after the knight", s.phase);
	/* Its fourth, a turn later, leads alone and takes it. */
	th_roll(&b, &s, 1, 1);
	th_do(&b, &s, BLUE, "end");
	for (int p = WHITE; p <= ORANGE; p++) {
		th_roll(&b, &s, 1, 1);
		th_do(&b, &s, p, "end");
	}
	assert_int_equal(s.active, BLUE);
	th_give_dev(&s, BLUE, CATAN_DEV_KNIGHT);
	play_knight(&b, &s);
	assert_int_equal(s.largest_army, BLUE);
}

/* ---- invariants ---- */

static void test_expel__check_invariants(void **state)
{
	(void)state;
	catan_board b;
	catan_state s, t;
	game(&b, &s, 4);
	expel(&b, &s, BLUE, "red");
	th_check(&b, &s);

	t = s;
	t.out |= 1 << 4;
	assert_true(check_names(&b, &t, "expelled seats that nobody plays"));
	t = s;
	t.out = 0xf;
	assert_true(check_names(&b, &t, "every seat expelled"));
	t = s;
	th_give(&t, RED, 0, 0, 1, 0, 0);
	assert_true(check_names(&b, &t, "resource cards of an expelled seat"));
	t = s;
	th_give_dev(&t, RED, CATAN_DEV_MONOPOLY);
	assert_true(
	    check_names(&b, &t, "development cards of an expelled seat"));
	t = s;
	t.active = RED;
	assert_true(check_names(&b, &t, "expelled seat still to act"));
	t = s;
	t.discard[RED] = 1;
	assert_true(check_names(&b, &t, "discard owed by an expelled seat"));
	t = s;
	t.reveal_wait = 1 << RED;
	assert_true(check_names(&b, &t, "reveal owed by an expelled seat"));
	t = s;
	t.longest_road = RED;
	assert_true(check_names(&b, &t, "trophy held by an expelled seat"));
	t = s;
	t.largest_army = RED;
	assert_true(check_names(&b, &t, "trophy held by an expelled seat"));
	t = s;
	t.phase = CATAN_PHASE_OVER;
	t.winner = RED;
	assert_true(check_names(&b, &t, "expelled seat as winner"));
	/* An offer to red, a builder red, a request of red's. */
	t = s;
	t.phase = CATAN_PHASE_OFFER;
	t.offer_from = BLUE;
	t.offer_to = RED;
	assert_true(check_names(&b, &t, "expelled seat still to act"));
	t = s;
	t.builder = RED;
	assert_true(check_names(&b, &t, "expelled seat still to act"));
	t = s;
	t.requester = RED;
	assert_true(check_names(&b, &t, "expelled seat still to act"));
	/* Cards vanishing instead of going back to the bank. */
	t = s;
	t.bank[CATAN_ORE]--;
	assert_true(check_says(&b, &t, "cards in play"));
}

static void test_expel__hash(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	game(&b, &s, 4);
	uint64_t h = catan_state_hash(&s);
	/* out == 0 mixes nothing: the hash of a state from before. */
	s.out = 1 << RED;
	assert_true(catan_state_hash(&s) != h);
	s.out = 1 << BLUE;
	uint64_t hb = catan_state_hash(&s);
	assert_true(hb != h);
	s.out = 0;
	assert_true(catan_state_hash(&s) == h);
	/* catan_state_derive keeps it (a primary fact). */
	s.out = 1 << BLUE;
	catan_state_derive(&s, &b);
	assert_int_equal(s.out, 1 << BLUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_expel__parse_and_format),
	    cmocka_unit_test(test_expel__refusals),
	    cmocka_unit_test(test_expel__last_seat_left_wins),
	    cmocka_unit_test(test_expel__setup),
	    cmocka_unit_test(test_expel__setup_last_step),
	    cmocka_unit_test(test_expel__roll),
	    cmocka_unit_test(test_expel__main_returns_cards),
	    cmocka_unit_test(test_expel__robber),
	    cmocka_unit_test(test_expel__offer_target),
	    cmocka_unit_test(test_expel__offer_legal_lists_skip_out_seat),
	    cmocka_unit_test(test_expel__discard_last_owing),
	    cmocka_unit_test(test_expel__discard_by_active),
	    cmocka_unit_test(test_expel__special_builder),
	    cmocka_unit_test(test_expel__active_then_special_phase),
	    cmocka_unit_test(test_expel__reveal_last_owing),
	    cmocka_unit_test(test_expel__reveal_requester),
	    cmocka_unit_test(test_expel__production),
	    cmocka_unit_test(test_expel__reveal_wait_skips_out_seat),
	    cmocka_unit_test(test_expel__longest_road_moves_on),
	    cmocka_unit_test(test_expel__largest_army_moves_on),
	    cmocka_unit_test(test_expel__knight_after_tie),
	    cmocka_unit_test(test_expel__check_invariants),
	    cmocka_unit_test(test_expel__hash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
