/*
 * helpers.c - shared fixtures for the core tests.
 */
#include "helpers.h"

#include <stdio.h>
#include <string.h>

void th_new_game(catan_board *b, catan_state *s, int nplayers)
{
	catan_options opt;
	catan_board_beginner(b);
	catan_options_default(&opt);
	opt.nplayers = (uint8_t)nplayers;
	opt.seed = 42;
	assert_int_equal(catan_state_init(s, b, &opt), CATAN_OK);
}

/*
 * Set-up placements in snake order for up to 4 players: first round
 * red, blue, white, orange; second round orange, white, blue, red.
 */
static const char *const setup_first[4] = {
	"setup 0,-1,n 0,-1,nw",	 /* red: brick 6 / ore 10 / wool 2 */
	"setup 1,0,n 1,0,nw",	 /* blue: wool 4 / lumber 3 / brick 10 */
	"setup -1,1,n -1,1,nw",	 /* white: ore 3 / lumber 11 / desert */
	"setup 0,1,s 0,1,sw",	 /* orange: grain 4 / grain 6 / wool 11 */
};
static const char *const setup_second[4] = {
	"setup -2,1,s -2,2,nw",	 /* red: lumber 8 / brick 5 */
	"setup -2,1,n -2,1,ne",	 /* blue: lumber 8 / grain 9 / lumber 11 */
	"setup 1,1,n 2,0,w",	 /* white: wool 5 / lumber 3 / ore 8 */
	"setup -1,1,s -2,2,ne",	 /* orange: ore 3 / brick 5 / grain 6 */
};

void th_play_setup(const catan_board *b, catan_state *s)
{
	int n = s->opt.nplayers;
	for (int p = 0; p < n; p++)
		th_do(b, s, p, setup_first[p]);
	for (int p = n - 1; p >= 0; p--)
		th_do(b, s, p, setup_second[p]);
	assert_int_equal(s->phase, CATAN_PHASE_ROLL);
	assert_int_equal(s->active, 0);
	assert_int_equal(s->turn, 1);
}

static int dir_of(const char *d, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(d, names[i]))
			return i;
	fail_msg("bad direction %s", d);
	return -1;
}

int th_vertex(const catan_board *b, int q, int r, const char *dir)
{
	static const char *const names[] = {"n", "s", "ne", "se", "sw", "nw"};
	int v = catan_board_vertex(b, q, r, dir_of(dir, names, 6));
	if (v < 0)
		fail_msg("no vertex %d,%d,%s", q, r, dir);
	return v;
}

int th_edge(const catan_board *b, int q, int r, const char *dir)
{
	static const char *const names[] = {"w", "nw", "ne", "e", "se", "sw"};
	int e = catan_board_edge(b, q, r, dir_of(dir, names, 6));
	if (e < 0)
		fail_msg("no edge %d,%d,%s", q, r, dir);
	return e;
}

int th_tile(const catan_board *b, int q, int r)
{
	int t = catan_board_tile(b, q, r);
	if (t < 0)
		fail_msg("no tile %d,%d", q, r);
	return t;
}

catan_action th_action(const catan_board *b, const char *text)
{
	catan_action a;
	catan_parse_error err;
	memset(&err, 0, sizeof err);
	if (catan_action_parse(&a, b, NULL, text, &err) != CATAN_OK)
		fail_msg("cannot parse \"%s\": %s (at %d)", text, err.msg,
			 err.pos);
	return a;
}

void th_check(const catan_board *b, const catan_state *s)
{
	char why[256];
	if (catan_state_check(b, s, why, sizeof why) != CATAN_OK)
		fail_msg("invariant broken: %s", why);
}

void th_do(const catan_board *b, catan_state *s, int actor, const char *text)
{
	catan_action a = th_action(b, text);
	int rc = catan_state_apply(s, b, s, actor, &a, NULL);
	if (rc != CATAN_OK)
		fail_msg("\"%s\" by player %d rejected: %s", text, actor,
			 catan_error_str(rc));
	th_check(b, s);
}

void th_reject(const catan_board *b, catan_state *s, int actor,
	       const char *text, int code)
{
	catan_action a = th_action(b, text);
	catan_state before = *s;
	int rc = catan_state_apply(s, b, s, actor, &a, NULL);
	if (rc != code)
		fail_msg("\"%s\" by player %d: expected \"%s\", got \"%s\"",
			 text, actor, catan_error_str(code),
			 catan_error_str(rc));
	assert_memory_equal(&before, s, sizeof before);
}

void th_give(catan_state *s, int p, int lumber, int brick, int wool,
	     int grain, int ore)
{
	int n[CATAN_RES_COUNT] = {lumber, brick, wool, grain, ore};
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		assert_true(s->bank[r] >= n[r]);
		s->bank[r] -= (uint8_t)n[r];
		s->players[p].hand[r] += (uint8_t)n[r];
		s->players[p].ncards += (uint8_t)n[r];
	}
}

void th_clear_hand(catan_state *s, int p)
{
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		s->bank[r] += s->players[p].hand[r];
		s->players[p].hand[r] = 0;
	}
	s->players[p].ncards = 0;
}

void th_give_dev(catan_state *s, int p, int d)
{
	assert_true(s->deck[d] > 0);
	s->deck[d]--;
	s->players[p].devs[d]++;
}

void th_roll(const catan_board *b, catan_state *s, int d1, int d2)
{
	uint8_t mode = s->opt.dice;
	char text[32];
	s->opt.dice = CATAN_DICE_MANUAL;
	snprintf(text, sizeof text, "roll %d %d", d1, d2);
	th_do(b, s, s->active, text);
	s->opt.dice = mode;
}
