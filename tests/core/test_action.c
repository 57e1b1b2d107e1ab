/*
 * test_action.c - actions as text: names, coordinates, every action kind,
 * every alias, every error, and a deterministic fuzz of the parser.
 */
#include "helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixtures ---- */

struct boards {
	catan_board beginner;
	catan_board hex3;
	int hex3_rc; /* what catan_board_init_hexagon(&hex3, 3) returned */
};

static int group_setup(void **state)
{
	struct boards *bs = malloc(sizeof *bs);

	if (!bs)
		return -1;
	catan_board_beginner(&bs->beginner);
	bs->hex3_rc = catan_board_init_hexagon(&bs->hex3, 3);
	*state = bs;
	return 0;
}

static int group_teardown(void **state)
{
	free(*state);
	return 0;
}

static const catan_board *beginner(void **state)
{
	return &((struct boards *)*state)->beginner;
}

/* The radius-3 hexagon; fails the calling test if it could not be built. */
static const catan_board *hex3(void **state)
{
	struct boards *bs = *state;

	assert_int_equal(bs->hex3_rc, CATAN_OK);
	return &bs->hex3;
}

/* A tiny deterministic generator for the fuzz loops. */
static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static int below(uint64_t *s, int n)
{
	return (int)(xorshift(s) % (uint64_t)n);
}

/*
 * Canonical text is lowercase [a-z0-9,:_-] words separated by single
 * spaces, with no "?" (the formatter's mark for an unnameable field).
 */
static void check_canonical_text(const char *t)
{
	size_t n = strlen(t);

	if (n == 0 || t[0] == ' ' || t[n - 1] == ' ')
		fail_msg("bad canonical text \"%s\"", t);
	for (size_t i = 0; i < n; i++) {
		char c = t[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			  c == ',' || c == ':' || c == '_' || c == '-' ||
			  (c == ' ' && t[i + 1] != ' ');
		if (!ok)
			fail_msg("bad byte %d in canonical text \"%s\"", c, t);
	}
}

/* format(a) is canonical, parses back to a, and formats the same again. */
static void expect_round_trip(const catan_board *b, const catan_names *names,
			      const catan_action *a)
{
	char text[256], again[256];
	catan_action back;
	catan_parse_error err;
	int n, rc;

	n = catan_action_format(text, sizeof text, b, names, a);
	assert_int_equal(n, (int)strlen(text));
	check_canonical_text(text);
	memset(&back, 0x5a, sizeof back);
	rc = catan_action_parse(&back, b, names, text, &err);
	if (rc != CATAN_OK)
		fail_msg("parse(\"%s\") failed: %s", text, err.msg);
	if (memcmp(&back, a, sizeof back) != 0)
		fail_msg("round trip of \"%s\" changed the action", text);
	assert_int_equal(err.code, CATAN_OK);
	catan_action_format(again, sizeof again, b, names, &back);
	assert_string_equal(text, again);
}

/* parse(in) succeeds and formats to `canon`. */
static void expect_canonical(const catan_board *b, const catan_names *names,
			     const char *in, const char *canon)
{
	char text[256];
	catan_action a, c;
	catan_parse_error err;
	int rc;

	rc = catan_action_parse(&a, b, names, in, &err);
	if (rc != CATAN_OK)
		fail_msg("parse(\"%s\") failed: %s", in, err.msg);
	catan_action_format(text, sizeof text, b, names, &a);
	if (strcmp(text, canon) != 0)
		fail_msg("\"%s\" formats as \"%s\", want \"%s\"", in, text,
			 canon);
	/* The canonical text itself gives the very same action. */
	assert_int_equal(catan_action_parse(&c, b, names, canon, &err),
			 CATAN_OK);
	assert_memory_equal(&a, &c, sizeof a);
}

/* parse(in) fails with `code` at `pos`, and the sentence contains `msg`. */
static void expect_error(const catan_board *b, const catan_names *names,
			 const char *in, int code, int pos, const char *msg)
{
	catan_action a, before;
	catan_parse_error err;
	int rc;

	memset(&a, 0xa5, sizeof a);
	before = a;
	memset(&err, 0, sizeof err);
	rc = catan_action_parse(&a, b, names, in, &err);
	if (rc != code || err.code != code || err.pos != pos ||
	    !strstr(err.msg, msg))
		fail_msg("parse(\"%s\"): rc %d code %d pos %d msg \"%s\"; want "
			 "code %d pos %d msg containing \"%s\"",
			 in, rc, err.code, err.pos, err.msg, code, pos, msg);
	assert_memory_equal(&a, &before, sizeof a);
}

/* ---- error sentences ---- */

static void test_action__error_str(void **state)
{
	(void)state;
	for (int i = 0; i < CATAN_ERROR_COUNT; i++) {
		const char *s = catan_error_str(i);
		assert_non_null(s);
		assert_true(strlen(s) > 3);
		assert_string_not_equal(s, "unknown error");
		for (int j = 0; j < i; j++)
			assert_string_not_equal(s, catan_error_str(j));
	}
	assert_string_equal(catan_error_str(-1), "unknown error");
	assert_string_equal(catan_error_str(CATAN_ERROR_COUNT),
			    "unknown error");
	assert_string_equal(catan_error_str(1 << 30), "unknown error");
}

/* ---- names ---- */

static void test_action__names_default(void **state)
{
	catan_names n;

	(void)state;
	catan_names_default(&n, 4);
	assert_int_equal(n.n, 4);
	assert_string_equal(n.name[0], "red");
	assert_string_equal(n.name[1], "blue");
	assert_string_equal(n.name[2], "white");
	assert_string_equal(n.name[3], "orange");
	assert_string_equal(n.name[4], "");
	catan_names_default(&n, CATAN_MAX_PLAYERS);
	assert_int_equal(n.n, CATAN_MAX_PLAYERS);
	assert_string_equal(n.name[4], "green");
	assert_string_equal(n.name[5], "brown");
	catan_names_default(&n, 99);
	assert_int_equal(n.n, CATAN_MAX_PLAYERS);
	catan_names_default(&n, -3);
	assert_int_equal(n.n, 0);
}

static void test_action__names_parse(void **state)
{
	catan_names n;

	(void)state;
	assert_int_equal(catan_names_parse(&n, "red,blue"), CATAN_OK);
	assert_int_equal(n.n, 2);
	assert_string_equal(n.name[1], "blue");
	assert_int_equal(catan_names_parse(&n, " Alice ,\tbob_2 ,c-3,42"),
			 CATAN_OK);
	assert_int_equal(n.n, 4);
	assert_string_equal(n.name[0], "alice");
	assert_string_equal(n.name[1], "bob_2");
	assert_string_equal(n.name[2], "c-3");
	assert_string_equal(n.name[3], "42");
	assert_int_equal(catan_names_parse(&n, "a,b,c,d,e,f"), CATAN_OK);
	assert_int_equal(n.n, 6);
	assert_int_equal(catan_names_parse(&n, "abcdefghijklmno,x"), CATAN_OK);
	assert_string_equal(n.name[0], "abcdefghijklmno");
}

static void test_action__names_parse_errors(void **state)
{
	static const char *const bad[] = {
	    "",
	    "red",
	    " red ",
	    "a,b,c,d,e,f,g",
	    "red,red",
	    "red,RED",
	    "red,,blue",
	    "red,blue,",
	    ",red,blue",
	    "red,bl ue",
	    "red,bl!ue",
	    "red,blüe",
	    "red,give",
	    "red,get",
	    "red,none",
	    "red,wood",
	    "red,ore",
	    "red,Sheep",
	    "red,abcdefghijklmnop",
	    "red,a.b",
	    "red;blue",
	};
	catan_names n, before;

	(void)state;
	catan_names_default(&n, 3);
	before = n;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (catan_names_parse(&n, bad[i]) != CATAN_E_BAD_PLAYER)
			fail_msg("names \"%s\" accepted", bad[i]);
		assert_memory_equal(&n, &before, sizeof n);
	}
	assert_int_equal(catan_names_parse(&n, NULL), CATAN_E_BAD_PLAYER);
	assert_int_equal(catan_names_parse(NULL, "a,b"), CATAN_E_BAD_PLAYER);
}

static void test_action__names_find(void **state)
{
	catan_names n;

	(void)state;
	assert_int_equal(catan_names_parse(&n, "ann,anna,bo"), CATAN_OK);
	assert_int_equal(catan_names_find(&n, "ann", 3), 0);
	assert_int_equal(catan_names_find(&n, "anna", 4), 1);
	assert_int_equal(catan_names_find(&n, "annabel", 4), 1);
	assert_int_equal(catan_names_find(&n, "an", 2), -1);
	assert_int_equal(catan_names_find(&n, "bo", 2), 2);
	assert_int_equal(catan_names_find(&n, "Bo", 2), -1);
	assert_int_equal(catan_names_find(&n, "", 0), -1);
	assert_int_equal(catan_names_find(&n, NULL, 3), -1);
	assert_int_equal(catan_names_find(&n, "red", 3), -1);
	assert_int_equal(catan_names_find(NULL, "red", 3), 0);
	assert_int_equal(catan_names_find(NULL, "brown", 5), 5);
	catan_names_default(&n, 2);
	assert_int_equal(catan_names_find(&n, "white", 5), -1);
}

/* ---- actions as values ---- */

static void test_action__init(void **state)
{
	catan_action a;

	(void)state;
	memset(&a, 0x77, sizeof a);
	catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
	assert_int_equal(a.kind, CATAN_ACT_TRADE_OFFER);
	assert_int_equal(a.vertex, CATAN_NONE);
	assert_int_equal(a.edge, CATAN_NONE);
	assert_int_equal(a.edge2, CATAN_NONE);
	assert_int_equal(a.tile, CATAN_NONE);
	assert_int_equal(a.player, CATAN_NONE);
	assert_int_equal(a.res, CATAN_NONE);
	assert_int_equal(a.res2, CATAN_NONE);
	assert_int_equal(a.dev, CATAN_NONE);
	assert_int_equal(a.count, 0);
	assert_int_equal(a.dice[0], 0);
	assert_int_equal(a.dice[1], 0);
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		assert_int_equal(a.give[r], 0);
		assert_int_equal(a.get[r], 0);
	}
}

/* ---- coordinates ---- */

static void test_action__coord_format(void **state)
{
	const catan_board *b = beginner(state);
	char buf[32];

	assert_int_equal(
	    catan_vertex_format(buf, sizeof buf, b,
				catan_board_vertex(b, 0, -2, CATAN_VDIR_N)),
	    6);
	assert_string_equal(buf, "0,-2,n");
	catan_vertex_format(buf, sizeof buf, b,
			    catan_board_vertex(b, 0, 0, CATAN_VDIR_NE));
	assert_string_equal(buf, "1,-1,s");
	catan_vertex_format(buf, sizeof buf, b,
			    catan_board_vertex(b, 0, 0, CATAN_VDIR_SW));
	assert_string_equal(buf, "-1,1,n");
	catan_edge_format(buf, sizeof buf, b,
			  catan_board_edge(b, 2, 0, CATAN_EDIR_E));
	assert_string_equal(buf, "3,0,w");
	catan_edge_format(buf, sizeof buf, b,
			  catan_board_edge(b, 0, 0, CATAN_EDIR_SE));
	assert_string_equal(buf, "0,1,nw");
	catan_edge_format(buf, sizeof buf, b,
			  catan_board_edge(b, 0, 0, CATAN_EDIR_SW));
	assert_string_equal(buf, "-1,1,ne");
	assert_int_equal(
	    catan_tile_format(buf, sizeof buf, b, catan_board_tile(b, -2, 1)),
	    4);
	assert_string_equal(buf, "-2,1");

	/* Ids the board does not have print as "?". */
	assert_int_equal(catan_vertex_format(buf, sizeof buf, b, -1), 1);
	assert_string_equal(buf, "?");
	catan_vertex_format(buf, sizeof buf, b, b->nvertices);
	assert_string_equal(buf, "?");
	catan_edge_format(buf, sizeof buf, b, b->nedges);
	assert_string_equal(buf, "?");
	catan_tile_format(buf, sizeof buf, b, b->ntiles);
	assert_string_equal(buf, "?");
	catan_tile_format(buf, sizeof buf, NULL, 0);
	assert_string_equal(buf, "?");

	/* snprintf-like: cut, NUL-terminated, full length returned. */
	memset(buf, 'x', sizeof buf);
	assert_int_equal(
	    catan_vertex_format(buf, 4, b,
				catan_board_vertex(b, 0, -2, CATAN_VDIR_N)),
	    6);
	assert_string_equal(buf, "0,-");
	assert_int_equal(buf[4], 'x');
	assert_int_equal(catan_tile_format(NULL, 0, b, 0), 4);
}

/*
 * Every vertex, edge and tile id of `b` round-trips through its canonical
 * name, and every (hex, direction) name in a window wider than the board
 * resolves exactly as the board's lookup says (or fails with the right
 * code and position when the lookup says -1).
 */
static void check_coords(const catan_board *b)
{
	static const char *const vdirs[] = {"n", "s", "ne", "se", "sw", "nw"};
	static const char *const edirs[] = {"w", "nw", "ne", "e", "se", "sw"};
	char text[96], name[48];
	catan_action a, got;
	catan_parse_error err;
	int lim = b->radius + 3;

	for (int v = 0; v < b->nvertices; v++) {
		catan_action_init(&a, CATAN_ACT_BUILD_SETTLEMENT);
		a.vertex = (uint8_t)v;
		expect_round_trip(b, NULL, &a);
		a.kind = CATAN_ACT_BUILD_CITY;
		expect_round_trip(b, NULL, &a);
		for (int k = 0; k < 3; k++) {
			if (b->vertex_edges[v][k] == CATAN_NONE)
				continue;
			catan_action_init(&a, CATAN_ACT_SETUP);
			a.vertex = (uint8_t)v;
			a.edge = b->vertex_edges[v][k];
			expect_round_trip(b, NULL, &a);
		}
	}
	for (int e = 0; e < b->nedges; e++) {
		catan_action_init(&a, CATAN_ACT_BUILD_ROAD);
		a.edge = (uint8_t)e;
		expect_round_trip(b, NULL, &a);
	}
	for (int t = 0; t < b->ntiles; t++) {
		catan_action_init(&a, CATAN_ACT_ROBBER);
		a.tile = (uint8_t)t;
		expect_round_trip(b, NULL, &a);
	}

	for (int q = -lim; q <= lim; q++) {
		for (int r = -lim; r <= lim; r++) {
			int t = catan_board_tile(b, q, r);
			snprintf(text, sizeof text, "robber %d,%d", q, r);
			if (t < 0) {
				snprintf(name, sizeof name, "no tile \"%d,%d\"",
					 q, r);
				expect_error(b, NULL, text, CATAN_E_BAD_TILE, 7,
					     name);
			} else {
				assert_int_equal(catan_action_parse(
						     &got, b, NULL, text, &err),
						 CATAN_OK);
				assert_int_equal(got.tile, t);
			}
			for (int d = 0; d < CATAN_VDIR_COUNT; d++) {
				int v = catan_board_vertex(b, q, r, d);
				snprintf(text, sizeof text,
					 "build settlement %d,%d,%s", q, r,
					 vdirs[d]);
				if (v < 0) {
					expect_error(b, NULL, text,
						     CATAN_E_BAD_VERTEX, 17,
						     "no vertex");
					continue;
				}
				assert_int_equal(catan_action_parse(
						     &got, b, NULL, text, &err),
						 CATAN_OK);
				assert_int_equal(got.vertex, v);
				/* The printed name is the canonical one. */
				assert_true(b->vertex_dir[v] == CATAN_VDIR_N ||
					    b->vertex_dir[v] == CATAN_VDIR_S);
				assert_int_equal(
				    catan_board_vertex(b, b->vertex_hex[v].q,
						       b->vertex_hex[v].r,
						       b->vertex_dir[v]),
				    v);
			}
			for (int d = 0; d < CATAN_EDIR_COUNT; d++) {
				int e = catan_board_edge(b, q, r, d);
				snprintf(text, sizeof text,
					 "build road %d,%d,%s", q, r, edirs[d]);
				if (e < 0) {
					expect_error(b, NULL, text,
						     CATAN_E_BAD_EDGE, 11,
						     "no edge");
					continue;
				}
				assert_int_equal(catan_action_parse(
						     &got, b, NULL, text, &err),
						 CATAN_OK);
				assert_int_equal(got.edge, e);
				assert_true(b->edge_dir[e] <= CATAN_EDIR_NE);
			}
		}
	}
}

static void test_action__coords_beginner(void **state)
{
	check_coords(beginner(state));
}

static void test_action__coords_hexagon3(void **state)
{
	check_coords(hex3(state));
}

/* ---- every kind round-trips ---- */

/* Runs the round trip over a generous sample of every kind on board b. */
static void check_every_kind(const catan_board *b, const catan_names *names,
			     int nplayers)
{
	static const uint8_t counts[] = {0, 1, 2, 7};
	catan_action a;

	for (int d0 = 0; d0 <= 6; d0++) {
		for (int d1 = 0; d1 <= 6; d1++) {
			if ((d0 == 0) != (d1 == 0))
				continue;
			catan_action_init(&a, CATAN_ACT_ROLL);
			a.dice[0] = (uint8_t)d0;
			a.dice[1] = (uint8_t)d1;
			expect_round_trip(b, names, &a);
		}
	}
	for (int m = 1; m < 4 * 4 * 4 * 4 * 4; m++) {
		catan_action_init(&a, CATAN_ACT_DISCARD);
		for (int r = 0, x = m; r < CATAN_RES_COUNT; r++, x /= 4)
			a.give[r] = counts[x % 4];
		expect_round_trip(b, names, &a);
	}
	catan_action_init(&a, CATAN_ACT_DISCARD);
	a.give[CATAN_ORE] = 99;
	expect_round_trip(b, names, &a);
	for (int kind = CATAN_ACT_ROBBER; kind <= CATAN_ACT_PLAY_KNIGHT;
	     kind += CATAN_ACT_PLAY_KNIGHT - CATAN_ACT_ROBBER) {
		for (int t = 0; t < b->ntiles; t++) {
			for (int p = -1; p < nplayers; p++) {
				for (int r = -1; r < CATAN_RES_COUNT; r++) {
					if (p < 0 && r >= 0)
						continue;
					catan_action_init(&a, kind);
					a.tile = (uint8_t)t;
					a.player =
					    p < 0 ? CATAN_NONE : (uint8_t)p;
					a.res = r < 0 ? CATAN_NONE : (uint8_t)r;
					expect_round_trip(b, names, &a);
				}
			}
		}
	}
	for (int d = -1; d < CATAN_DEV_COUNT; d++) {
		catan_action_init(&a, CATAN_ACT_BUY_DEV);
		a.dev = d < 0 ? CATAN_NONE : (uint8_t)d;
		expect_round_trip(b, names, &a);
	}
	for (int e = 0; e < b->nedges; e++) {
		for (int e2 = -1; e2 < b->nedges; e2++) {
			if (e2 == e)
				continue;
			catan_action_init(&a, CATAN_ACT_PLAY_ROAD_BUILDING);
			a.edge = (uint8_t)e;
			a.edge2 = e2 < 0 ? CATAN_NONE : (uint8_t)e2;
			expect_round_trip(b, names, &a);
		}
	}
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		catan_action_init(&a, CATAN_ACT_PLAY_MONOPOLY);
		a.res = (uint8_t)r;
		expect_round_trip(b, names, &a);
		for (int r2 = -1; r2 < CATAN_RES_COUNT; r2++) {
			catan_action_init(&a, CATAN_ACT_PLAY_YEAR_OF_PLENTY);
			a.res = (uint8_t)r;
			a.res2 = r2 < 0 ? CATAN_NONE : (uint8_t)r2;
			expect_round_trip(b, names, &a);
			if (r2 < 0 || r2 == r)
				continue;
			for (int n = 2; n <= 4; n++) {
				catan_action_init(&a, CATAN_ACT_TRADE_BANK);
				a.res = (uint8_t)r;
				a.count = (uint8_t)n;
				a.res2 = (uint8_t)r2;
				expect_round_trip(b, names, &a);
			}
		}
	}
	/* Offers: every split of the resources into give / get / neither. */
	for (int p = 0; p < nplayers; p++) {
		for (int m = 0; m < 3 * 3 * 3 * 3 * 3; m++) {
			bool give = false, get = false;
			catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
			a.player = (uint8_t)p;
			for (int r = 0, x = m; r < CATAN_RES_COUNT;
			     r++, x /= 3) {
				if (x % 3 == 1) {
					a.give[r] = (uint8_t)(1 + (m + r) % 3);
					give = true;
				} else if (x % 3 == 2) {
					a.get[r] = (uint8_t)(1 + (m * r) % 5);
					get = true;
				}
			}
			if (give && get)
				expect_round_trip(b, names, &a);
		}
	}
	for (int kind = CATAN_ACT_TRADE_ACCEPT; kind <= CATAN_ACT_END; kind++) {
		catan_action_init(&a, kind);
		expect_round_trip(b, names, &a);
	}
}

static void test_action__round_trip_every_kind(void **state)
{
	catan_names names;

	check_every_kind(beginner(state), NULL, CATAN_MAX_PLAYERS);
	assert_int_equal(catan_names_parse(&names, "Alice,bob,c_3,d-4"),
			 CATAN_OK);
	check_every_kind(beginner(state), &names, 4);
}

static void test_action__round_trip_every_kind_hexagon3(void **state)
{
	check_every_kind(hex3(state), NULL, CATAN_MAX_PLAYERS);
}

/* ---- canonical forms ---- */

static void test_action__canonical_text(void **state)
{
	const catan_board *b = beginner(state);
	catan_action a;
	char buf[128];

	catan_action_init(&a, CATAN_ACT_DISCARD);
	a.give[CATAN_ORE] = 2;
	a.give[CATAN_LUMBER] = 1;
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "discard lumber:1 ore:2");

	catan_action_init(&a, CATAN_ACT_TRADE_BANK);
	a.res = CATAN_WOOL;
	a.count = 4;
	a.res2 = CATAN_ORE;
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "trade bank wool:4 ore");

	catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
	a.player = 1;
	a.give[CATAN_WOOL] = 1;
	a.get[CATAN_ORE] = 2;
	a.get[CATAN_BRICK] = 1;
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "trade offer blue give wool:1 get brick:1 "
				 "ore:2");

	catan_action_init(&a, CATAN_ACT_ROBBER);
	a.tile = (uint8_t)catan_board_tile(b, 1, -1);
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "robber 1,-1");
	a.player = 2;
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "robber 1,-1 white");
	a.res = CATAN_GRAIN;
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "robber 1,-1 white grain");
	a.kind = CATAN_ACT_PLAY_KNIGHT;
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "play knight 1,-1 white grain");

	catan_action_init(&a, CATAN_ACT_ROLL);
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "roll");
	a.dice[0] = 3;
	a.dice[1] = 4;
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "roll 3 4");

	catan_action_init(&a, CATAN_ACT_BUY_DEV);
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "buy devcard");
	a.dev = CATAN_DEV_VICTORY_POINT;
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "buy devcard victory-point");

	catan_action_init(&a, CATAN_ACT_SETUP);
	a.vertex = (uint8_t)catan_board_vertex(b, 0, 0, CATAN_VDIR_N);
	a.edge = (uint8_t)catan_board_edge(b, 0, 0, CATAN_EDIR_NW);
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "setup 0,0,n 0,0,nw");

	catan_action_init(&a, CATAN_ACT_PLAY_YEAR_OF_PLENTY);
	a.res = CATAN_BRICK;
	a.res2 = CATAN_BRICK;
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "play year-of-plenty brick brick");

	catan_action_init(&a, CATAN_ACT_END_TRADE);
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "end trade");
	catan_action_init(&a, CATAN_ACT_END);
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "end");
}

/* Fields the board or the names cannot name print as "?" (never parse). */
static void test_action__format_invalid(void **state)
{
	const catan_board *b = beginner(state);
	catan_names two;
	catan_action a;
	char buf[128];

	catan_action_init(&a, CATAN_ACT_COUNT);
	assert_int_equal(catan_action_format(buf, sizeof buf, b, NULL, &a), 1);
	assert_string_equal(buf, "?");
	catan_action_init(&a, CATAN_ACT_BUILD_ROAD);
	catan_action_format(buf, sizeof buf, b, NULL, &a);
	assert_string_equal(buf, "build road ?");
	catan_action_format(buf, sizeof buf, NULL, NULL, &a);
	assert_string_equal(buf, "build road ?");
	catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
	catan_names_default(&two, 2);
	a.player = 3;
	a.give[0] = 1;
	a.get[1] = 1;
	catan_action_format(buf, sizeof buf, b, &two, &a);
	assert_string_equal(buf, "trade offer ? give lumber:1 get brick:1");
	assert_int_not_equal(catan_action_parse(&a, b, &two, buf, NULL),
			     CATAN_OK);
	assert_int_equal(catan_action_format(buf, sizeof buf, b, NULL, NULL),
			 1);
	assert_string_equal(buf, "?");
}

/* snprintf contract: return the full length, cut, NUL-terminate. */
static void test_action__format_truncation(void **state)
{
	const catan_board *b = beginner(state);
	catan_action a;
	char full[128], buf[128];
	int n;

	catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
	a.player = 3;
	a.give[CATAN_WOOL] = 2;
	a.get[CATAN_ORE] = 1;
	n = catan_action_format(full, sizeof full, b, NULL, &a);
	assert_int_equal(n, (int)strlen(full));
	assert_int_equal(catan_action_format(NULL, 0, b, NULL, &a), n);
	for (int size = 0; size <= n + 2; size++) {
		memset(buf, '#', sizeof buf);
		assert_int_equal(
		    catan_action_format(buf, (size_t)size, b, NULL, &a), n);
		for (int i = size; i < (int)sizeof buf; i++)
			assert_int_equal(buf[i], '#');
		if (size == 0)
			continue;
		int kept = size - 1 < n ? size - 1 : n;
		assert_int_equal(buf[kept], '\0');
		assert_memory_equal(buf, full, (size_t)kept);
	}
}

/* ---- aliases ---- */

static void test_action__aliases(void **state)
{
	static const struct {
		const char *in, *canon;
	} cases[] = {
	    {"ROLL", "roll"},
	    {"  Roll\t 3   4  ", "roll 3 4"},
	    {"\n roll 06 1\r\n", "roll 6 1"},
	    {"end", "end"},
	    {"end turn", "end"},
	    {"END TURN", "end"},
	    {"pass", "end"},
	    {"End\tTrade", "end trade"},
	    {"build village 0,0,n", "build settlement 0,0,n"},
	    {"Build Settlement 0,-1,SE", "build settlement 0,0,n"},
	    {"build settlement 1,-1,sw", "build settlement 0,0,n"},
	    {"build city -1,0,ne", "build city 0,-1,s"},
	    {"build city 0,0,nw", "build city 0,-1,s"},
	    {"build city +0,-0,n", "build city 0,0,n"},
	    {"build road 0,0,e", "build road 1,0,w"},
	    {"build road 0,0,SE", "build road 0,1,nw"},
	    {"build road 0,0,sw", "build road -1,1,ne"},
	    {"build road 2,0,e", "build road 3,0,w"},
	    {"setup 0,-1,se 0,0,nw", "setup 0,0,n 0,0,nw"},
	    {"robber 00,-01", "robber 0,-1"},
	    {"robber 1,1 BLUE", "robber 1,1 blue"},
	    {"robber 1,1 blue Clay", "robber 1,1 blue brick"},
	    {"discard wood clay sheep wheat stone",
	     "discard lumber:1 brick:1 wool:1 grain:1 ore:1"},
	    {"discard ORE:2 Wool", "discard wool:1 ore:2"},
	    {"discard lumber:01", "discard lumber:1"},
	    {"buy dev", "buy devcard"},
	    {"buy dev-card", "buy devcard"},
	    {"buy dev_card knight", "buy devcard knight"},
	    {"buy development-card vp", "buy devcard victory-point"},
	    {"buy development_card victory", "buy devcard victory-point"},
	    {"buy DevCard YOP", "buy devcard year-of-plenty"},
	    {"buy devcard year_of_plenty", "buy devcard year-of-plenty"},
	    {"buy devcard yearofplenty", "buy devcard year-of-plenty"},
	    {"buy devcard roadbuilding", "buy devcard road-building"},
	    {"buy devcard road_building", "buy devcard road-building"},
	    {"buy devcard victory_point", "buy devcard victory-point"},
	    {"buy devcard victorypoint", "buy devcard victory-point"},
	    {"buy devcard MONOPOLY", "buy devcard monopoly"},
	    {"play yop wheat wood", "play year-of-plenty grain lumber"},
	    {"play year_of_plenty ore", "play year-of-plenty ore"},
	    {"play road_building 0,0,w", "play road-building 0,0,w"},
	    {"play roadbuilding 0,0,e 0,0,w", "play road-building 1,0,w 0,0,w"},
	    {"play Monopoly Sheep", "play monopoly wool"},
	    {"play knight 1,1 BLUE clay", "play knight 1,1 blue brick"},
	    {"trade maritime sheep:4 wheat", "trade bank wool:4 grain"},
	    {"trade bank wool:3 ore:1", "trade bank wool:3 ore"},
	    {"trade bank brick:2 lumber", "trade bank brick:2 lumber"},
	    {"trade offer Blue give sheep wood:2 get ore:3",
	     "trade offer blue give lumber:2 wool:1 get ore:3"},
	    {"trade offer white give ore:1 get wool:1 grain",
	     "trade offer white give ore:1 get wool:1 grain:1"},
	    {"TRADE ACCEPT", "trade accept"},
	    {"trade Reject", "trade reject"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_canonical(beginner(state), NULL, cases[i].in,
				 cases[i].canon);
}

/* Player names of a custom list, any letter case on input. */
static void test_action__custom_names(void **state)
{
	const catan_board *b = beginner(state);
	catan_names names;
	catan_action a;

	assert_int_equal(catan_names_parse(&names, "alice,bob,carol"),
			 CATAN_OK);
	assert_int_equal(catan_action_parse(&a, b, &names,
					    "trade offer BOB give ore get wool",
					    NULL),
			 CATAN_OK);
	assert_int_equal(a.player, 1);
	expect_canonical(b, &names, "robber 0,1 Carol ore",
			 "robber 0,1 carol ore");
	expect_error(b, &names, "robber 0,1 red", CATAN_E_BAD_PLAYER, 11,
		     "unknown player \"red\"");
	expect_error(b, &names, "robber 0,1 abcdefghijklmnopq",
		     CATAN_E_BAD_PLAYER, 11, "unknown player");
	catan_names_default(&names, 2);
	expect_error(b, &names, "robber 0,1 white", CATAN_E_BAD_PLAYER, 11,
		     "\"white\"");
	expect_canonical(b, NULL, "robber 0,1 brown", "robber 0,1 brown");
}

/* ---- errors ---- */

static void test_action__errors(void **state)
{
	static const struct {
		const char *in;
		int code, pos;
		const char *msg;
	} cases[] = {
	    {"", CATAN_E_PARSE, 0, "empty action"},
	    {"   \t ", CATAN_E_PARSE, 5, "empty action"},
	    {"jump", CATAN_E_PARSE, 0, "unknown action \"jump\""},
	    {"roll\x01", CATAN_E_PARSE, 0, "unknown action \"roll?\""},
	    {"  roll 3", CATAN_E_PARSE, 8, "second die"},
	    {"roll 7 0", CATAN_E_PARSE, 5, "not \"7\""},
	    {"roll 3 0", CATAN_E_PARSE, 7, "not \"0\""},
	    {"roll x 4", CATAN_E_PARSE, 5, "not \"x\""},
	    {"roll -3 4", CATAN_E_PARSE, 5, "not \"-3\""},
	    {"roll 3 4 5", CATAN_E_PARSE, 9, "unexpected \"5\""},
	    {"roll 99999999999999999999999 4", CATAN_E_PARSE, 5,
	     "a die shows 1 to 6"},
	    {"setup", CATAN_E_PARSE, 5, "expected a vertex"},
	    {"setup 9,9,n 0,0,w", CATAN_E_BAD_VERTEX, 6,
	     "no vertex \"9,9,n\" on this board"},
	    {"setup 0,0,x 0,0,w", CATAN_E_BAD_VERTEX, 6,
	     "bad vertex \"0,0,x\""},
	    {"setup 0,0,n", CATAN_E_PARSE, 11, "expected an edge"},
	    {"setup 0,0,n 0,0,n", CATAN_E_BAD_EDGE, 12, "bad edge \"0,0,n\""},
	    {"setup 0,0,n 9,0,w", CATAN_E_BAD_EDGE, 12,
	     "no edge \"9,0,w\" on this board"},
	    {"build", CATAN_E_PARSE, 5, "road, settlement or city"},
	    {"build house 0,0,n", CATAN_E_PARSE, 6, "cannot build \"house\""},
	    {"build road", CATAN_E_PARSE, 10, "expected an edge"},
	    {"build road 0,0", CATAN_E_BAD_EDGE, 11, "bad edge \"0,0\""},
	    {"build road 0,0,w,1", CATAN_E_BAD_EDGE, 11, "bad edge"},
	    {"build road 0,0,", CATAN_E_BAD_EDGE, 11, "bad edge"},
	    {"build road ,0,w", CATAN_E_BAD_EDGE, 11, "bad edge"},
	    {"build road 0, 0,w", CATAN_E_BAD_EDGE, 11, "bad edge \"0,\""},
	    {"build settlement 0,0,n extra", CATAN_E_PARSE, 23,
	     "unexpected \"extra\""},
	    {"build city 0,,n", CATAN_E_BAD_VERTEX, 11, "bad vertex"},
	    {"build city a,0,n", CATAN_E_BAD_VERTEX, 11, "bad vertex"},
	    {"build city --1,0,n", CATAN_E_BAD_VERTEX, 11, "bad vertex"},
	    {"build city 1-,0,n", CATAN_E_BAD_VERTEX, 11, "bad vertex"},
	    {"build city 99999999999999999999,0,n", CATAN_E_BAD_VERTEX, 11,
	     "no vertex"},
	    {"build city -99999999999999999999,0,n", CATAN_E_BAD_VERTEX, 11,
	     "no vertex"},
	    {"build city 0,0,north", CATAN_E_BAD_VERTEX, 11, "bad vertex"},
	    {"robber", CATAN_E_PARSE, 6, "expected a tile"},
	    {"robber 5,5", CATAN_E_BAD_TILE, 7, "no tile \"5,5\""},
	    {"robber 0,0,n", CATAN_E_BAD_TILE, 7, "bad tile \"0,0,n\""},
	    {"robber 0,0 purple", CATAN_E_BAD_PLAYER, 11,
	     "unknown player \"purple\""},
	    {"robber 0,0 red wod", CATAN_E_PARSE, 15,
	     "unknown resource \"wod\""},
	    {"robber 0,0 red ore:1", CATAN_E_PARSE, 15,
	     "unknown resource \"ore:1\""},
	    {"robber 0,0 red ore ore", CATAN_E_PARSE, 19, "unexpected"},
	    {"discard", CATAN_E_PARSE, 7, "cards to discard"},
	    {"discard  ", CATAN_E_PARSE, 9, "cards to discard"},
	    {"discard wod:1", CATAN_E_PARSE, 8, "unknown resource \"wod:1\""},
	    {"discard :1", CATAN_E_PARSE, 8, "unknown resource"},
	    {"discard wool:0", CATAN_E_PARSE, 8, "out of 1..99"},
	    {"discard wool:100", CATAN_E_PARSE, 8, "out of 1..99"},
	    {"discard wool:x", CATAN_E_PARSE, 8, "bad card count"},
	    {"discard wool:", CATAN_E_PARSE, 8, "bad card count"},
	    {"discard wool:-1", CATAN_E_PARSE, 8, "bad card count"},
	    {"discard wool:1:2", CATAN_E_PARSE, 8, "bad card count"},
	    {"discard wool ore wool:2", CATAN_E_PARSE, 17, "repeats"},
	    {"discard wool sheep", CATAN_E_PARSE, 13, "repeats"},
	    {"buy", CATAN_E_PARSE, 3, "devcard"},
	    {"buy road", CATAN_E_PARSE, 4, "cannot buy \"road\""},
	    {"buy devcard joker", CATAN_E_PARSE, 12,
	     "unknown development card \"joker\""},
	    {"buy devcard knight knight", CATAN_E_PARSE, 19, "unexpected"},
	    {"play", CATAN_E_PARSE, 4, "development card"},
	    {"play joker", CATAN_E_PARSE, 5, "unknown development card"},
	    {"play victory-point", CATAN_E_PARSE, 5, "never played"},
	    {"play vp", CATAN_E_PARSE, 5, "never played"},
	    {"play knight", CATAN_E_PARSE, 11, "expected a tile"},
	    {"play knight 0,0 red ore x", CATAN_E_PARSE, 24, "unexpected"},
	    {"play road-building", CATAN_E_PARSE, 18, "expected an edge"},
	    {"play road-building 0,0,w 0,0,w", CATAN_E_PARSE, 25,
	     "same road twice"},
	    {"play road-building 0,0,w -1,0,e", CATAN_E_PARSE, 25,
	     "same road twice"},
	    {"play road-building 0,0,w 0,0,w 1,0,w", CATAN_E_PARSE, 25,
	     "same road"},
	    {"play road-building 0,0,w 0,0,nw 1,0,w", CATAN_E_PARSE, 32,
	     "unexpected"},
	    {"play year-of-plenty", CATAN_E_PARSE, 19, "resource"},
	    {"play year-of-plenty ore gold", CATAN_E_PARSE, 24,
	     "unknown resource \"gold\""},
	    {"play year-of-plenty ore:2", CATAN_E_PARSE, 20,
	     "unknown resource"},
	    {"play monopoly", CATAN_E_PARSE, 13, "resource"},
	    {"play monopoly ore ore", CATAN_E_PARSE, 18, "unexpected"},
	    {"trade", CATAN_E_PARSE, 5, "bank, offer, accept or reject"},
	    {"trade barter", CATAN_E_PARSE, 6, "unknown trade \"barter\""},
	    {"trade bank", CATAN_E_PARSE, 10, "cards to give"},
	    {"trade bank wool ore", CATAN_E_PARSE, 11, "needs a count"},
	    {"trade bank wool:5 ore", CATAN_E_PARSE, 11, "2, 3 or 4"},
	    {"trade bank wool:1 ore", CATAN_E_PARSE, 11, "2, 3 or 4"},
	    {"trade bank wool:4", CATAN_E_PARSE, 17, "resource to get"},
	    {"trade bank wool:4 ore:2", CATAN_E_PARSE, 18, "one card"},
	    {"trade bank wool:4 sheep", CATAN_E_PARSE, 18, "given and got"},
	    {"trade bank wool:4 ore grain", CATAN_E_PARSE, 22, "unexpected"},
	    {"trade offer", CATAN_E_PARSE, 11, "player"},
	    {"trade offer pink give ore get wool", CATAN_E_BAD_PLAYER, 12,
	     "unknown player \"pink\""},
	    {"trade offer blue", CATAN_E_PARSE, 16, "\"give\""},
	    {"trade offer blue ore", CATAN_E_PARSE, 17,
	     "expected \"give\", not \"ore\""},
	    {"trade offer blue give", CATAN_E_PARSE, 21, "cards to give"},
	    {"trade offer blue give ore", CATAN_E_PARSE, 25, "\"get\""},
	    {"trade offer blue give get wool", CATAN_E_PARSE, 22,
	     "expected cards before \"get\""},
	    {"trade offer blue give ore get", CATAN_E_PARSE, 29,
	     "cards to get"},
	    {"trade offer blue give ore get ore", CATAN_E_PARSE, 30,
	     "both sides"},
	    {"trade offer blue give ore get stone", CATAN_E_PARSE, 30,
	     "both sides"},
	    {"trade offer blue give ore get wool give", CATAN_E_PARSE, 35,
	     "unknown resource \"give\""},
	    {"trade offer blue give ore ore get wool", CATAN_E_PARSE, 26,
	     "repeats"},
	    {"trade accept now", CATAN_E_PARSE, 13, "unexpected \"now\""},
	    {"trade reject x", CATAN_E_PARSE, 13, "unexpected"},
	    {"end game", CATAN_E_PARSE, 4, "unexpected \"game\""},
	    {"end turn trade", CATAN_E_PARSE, 9, "unexpected"},
	    {"pass turn", CATAN_E_PARSE, 5, "unexpected"},
	    {"end trade now", CATAN_E_PARSE, 10, "unexpected"},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_error(beginner(state), NULL, cases[i].in, cases[i].code,
			     cases[i].pos, cases[i].msg);
}

/* No board, no text, no err, no out: clean errors, never a crash. */
static void test_action__null_arguments(void **state)
{
	const catan_board *b = beginner(state);
	catan_action a;
	catan_parse_error err;

	expect_error(NULL, NULL, "build road 0,0,w", CATAN_E_BAD_EDGE, 11,
		     "no edge");
	expect_error(NULL, NULL, "robber 0,0", CATAN_E_BAD_TILE, 7, "no tile");
	assert_int_equal(catan_action_parse(&a, NULL, NULL, "roll 1 2", &err),
			 CATAN_OK);
	assert_int_equal(a.dice[1], 2);
	expect_error(b, NULL, NULL, CATAN_E_PARSE, 0, "empty action");
	assert_int_equal(catan_action_parse(NULL, b, NULL, "end", NULL),
			 CATAN_OK);
	assert_int_equal(catan_action_parse(NULL, b, NULL, "end x", NULL),
			 CATAN_E_PARSE);
	assert_int_equal(catan_action_parse(&a, b, NULL, "jump", NULL),
			 CATAN_E_PARSE);
}

/* Very long input: the position is right and the sentence is cut. */
static void test_action__long_input(void **state)
{
	const catan_board *b = beginner(state);
	enum { N = 1 << 20 };
	char *text = malloc(N + 64);
	catan_parse_error err;
	catan_action a;

	assert_non_null(text);
	memset(text, ' ', N);
	strcpy(text + N, "end");
	assert_int_equal(catan_action_parse(&a, b, NULL, text, &err), CATAN_OK);
	assert_int_equal(a.kind, CATAN_ACT_END);
	strcpy(text + N, "end trade  x");
	assert_int_equal(catan_action_parse(&a, b, NULL, text, &err),
			 CATAN_E_PARSE);
	assert_int_equal(err.pos, N + 11);

	memset(text, 'a', N);
	text[N] = '\0';
	assert_int_equal(catan_action_parse(&a, b, NULL, text, &err),
			 CATAN_E_PARSE);
	assert_int_equal(err.pos, 0);
	assert_true(strlen(err.msg) < sizeof err.msg);
	assert_non_null(strstr(err.msg, "unknown action \"aaaa"));
	assert_non_null(strstr(err.msg, "...\""));

	memcpy(text, "discard wool:", 13);
	memset(text + 13, '9', N - 13);
	assert_int_equal(catan_action_parse(&a, b, NULL, text, &err),
			 CATAN_E_PARSE);
	assert_int_equal(err.pos, 8);
	assert_non_null(strstr(err.msg, "out of 1..99"));
	free(text);
}

/* ---- fuzz ---- */

static const char *const vocabulary[] = {
    "roll",
    "setup",
    "discard",
    "robber",
    "build",
    "road",
    "settlement",
    "city",
    "buy",
    "devcard",
    "play",
    "knight",
    "road-building",
    "year-of-plenty",
    "monopoly",
    "trade",
    "bank",
    "offer",
    "give",
    "get",
    "accept",
    "reject",
    "end",
    "turn",
    "wool",
    "ore:2",
    "wood:4",
    "grain",
    "0,0",
    "1,-1",
    "0,0,n",
    "-1,1,ne",
    "0,0,w",
    "2,0,e",
    "red",
    "blue",
    "3",
    "6",
    "-1",
    ":",
    ",",
    "vp",
    "pass",
    "99",
};

/*
 * Parses `text`; on success the canonical text must re-parse to the same
 * action; on failure the error must be well-formed and `out` untouched.
 * Returns whether the parse succeeded.
 */
static bool fuzz_one(const catan_board *b, const char *text)
{
	catan_action a, back, before;
	catan_parse_error err;
	char canon[256];
	int rc, n;

	memset(&a, 0xee, sizeof a);
	before = a;
	memset(&err, 0xcc, sizeof err);
	rc = catan_action_parse(&a, b, NULL, text, &err);
	if (rc != CATAN_OK) {
		assert_int_equal(err.code, rc);
		assert_true(err.pos >= 0 && (size_t)err.pos <= strlen(text));
		assert_non_null(memchr(err.msg, '\0', sizeof err.msg));
		assert_true(strlen(err.msg) > 0);
		assert_memory_equal(&a, &before, sizeof a);
		return false;
	}
	n = catan_action_format(canon, sizeof canon, b, NULL, &a);
	assert_true(n > 0 && n < (int)sizeof canon);
	check_canonical_text(canon);
	if (catan_action_parse(&back, b, NULL, canon, &err) != CATAN_OK)
		fail_msg("\"%s\" parsed, but its canonical \"%s\" did not: %s",
			 text, canon, err.msg);
	if (memcmp(&a, &back, sizeof a) != 0)
		fail_msg("\"%s\" and its canonical \"%s\" differ", text, canon);
	return true;
}

static void test_action__fuzz_random_bytes(void **state)
{
	const catan_board *b = beginner(state);
	uint64_t s = 0x9e3779b97f4a7c15ull;
	char text[96];

	for (int i = 0; i < 30000; i++) {
		int len = below(&s, (int)sizeof text);
		for (int k = 0; k < len; k++) {
			/* Mostly the grammar's own bytes, some of anything. */
			static const char bytes[] =
			    "abcdefgilmnoprstuvwy0123456"
			    "789,:- \t-+";
			int c = below(&s, 4)
				    ? bytes[below(&s, sizeof bytes - 1)]
				    : 1 + below(&s, 255);
			text[k] = (char)c;
		}
		text[len] = '\0';
		fuzz_one(b, text);
	}
}

static void test_action__fuzz_word_salad(void **state)
{
	const catan_board *b = beginner(state);
	uint64_t s = 12345;
	char text[256];
	int ok = 0;

	for (int i = 0; i < 30000; i++) {
		size_t len = 0;
		int words = 1 + below(&s, 7);
		text[0] = '\0';
		for (int w = 0; w < words; w++) {
			const char *v =
			    vocabulary[below(&s, (int)(sizeof vocabulary /
						       sizeof vocabulary[0]))];
			size_t vl = strlen(v);
			if (len + vl + 2 >= sizeof text)
				break;
			if (w)
				text[len++] = below(&s, 5) ? ' ' : '\t';
			memcpy(text + len, v, vl + 1);
			len += vl;
		}
		ok += fuzz_one(b, text);
	}
	assert_true(ok > 100);
}

static void test_action__fuzz_mutations(void **state)
{
	const catan_board *b = beginner(state);
	uint64_t s = 0xdeadbeefcafef00dull;
	static const char *const seeds[] = {
	    "setup 0,0,n 0,0,nw",
	    "roll 3 4",
	    "roll",
	    "discard lumber:1 wool:2 ore:3",
	    "robber 1,-1 white grain",
	    "build road -1,1,ne",
	    "build settlement 0,-2,n",
	    "build city 2,0,s",
	    "buy devcard year-of-plenty",
	    "play knight 0,1 blue",
	    "play road-building 0,0,w 0,0,nw",
	    "play year-of-plenty ore brick",
	    "play monopoly wool",
	    "trade bank wool:4 ore",
	    "trade offer orange give grain:2 wool:1 get ore:1",
	    "trade accept",
	    "trade reject",
	    "end trade",
	    "end",
	};
	char text[160];
	int ok = 0;

	for (int i = 0; i < 40000; i++) {
		const char *seed =
		    seeds[below(&s, (int)(sizeof seeds / sizeof seeds[0]))];
		size_t len = strlen(seed);
		int muts = 1 + below(&s, 4);

		memcpy(text, seed, len + 1);
		for (int m = 0; m < muts; m++) {
			size_t at = len ? (size_t)below(&s, (int)len + 1) : 0;
			switch (below(&s, 6)) {
			case 0: /* change a byte */
				if (at < len)
					text[at] = (char)(1 + below(&s, 255));
				break;
			case 1: /* delete a byte */
				if (at < len) {
					memmove(text + at, text + at + 1,
						len - at);
					len--;
				}
				break;
			case 2: /* insert a byte */
				if (len + 2 < sizeof text) {
					memmove(text + at + 1, text + at,
						len - at + 1);
					text[at] = "0123456789-,: aeiou"[below(
					    &s, 19)];
					len++;
				}
				break;
			case 3: /* cut */
				text[at] = '\0';
				len = at;
				break;
			case 4: /* swap case */
				if (at < len && text[at] >= 'a' &&
				    text[at] <= 'z')
					text[at] = (char)(text[at] - 32);
				break;
			default: { /* insert a vocabulary word */
				const char *v = vocabulary[below(
				    &s, (int)(sizeof vocabulary /
					      sizeof vocabulary[0]))];
				size_t vl = strlen(v);
				if (len + vl + 2 >= sizeof text)
					break;
				memmove(text + at + vl + 1, text + at,
					len - at + 1);
				memcpy(text + at, v, vl);
				text[at + vl] = ' ';
				len += vl + 1;
				break;
			}
			}
		}
		ok += fuzz_one(b, text);
	}
	assert_true(ok > 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_action__error_str),
	    cmocka_unit_test(test_action__names_default),
	    cmocka_unit_test(test_action__names_parse),
	    cmocka_unit_test(test_action__names_parse_errors),
	    cmocka_unit_test(test_action__names_find),
	    cmocka_unit_test(test_action__init),
	    cmocka_unit_test(test_action__coord_format),
	    cmocka_unit_test(test_action__coords_beginner),
	    cmocka_unit_test(test_action__coords_hexagon3),
	    cmocka_unit_test(test_action__round_trip_every_kind),
	    cmocka_unit_test(test_action__round_trip_every_kind_hexagon3),
	    cmocka_unit_test(test_action__canonical_text),
	    cmocka_unit_test(test_action__format_invalid),
	    cmocka_unit_test(test_action__format_truncation),
	    cmocka_unit_test(test_action__aliases),
	    cmocka_unit_test(test_action__custom_names),
	    cmocka_unit_test(test_action__errors),
	    cmocka_unit_test(test_action__null_arguments),
	    cmocka_unit_test(test_action__long_input),
	    cmocka_unit_test(test_action__fuzz_random_bytes),
	    cmocka_unit_test(test_action__fuzz_word_salad),
	    cmocka_unit_test(test_action__fuzz_mutations),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
