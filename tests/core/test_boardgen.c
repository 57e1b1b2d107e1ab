/*
 * test_boardgen.c - shapes and their pieces, balanced generation under
 * every combination of rules, pins, determinism, infeasibility reports,
 * and the balance score.
 *
 * The rules are checked by an independent checker written here: tiles are
 * found by their axial neighbours and intersections by the corner points
 * of the plane model of test_board.c, never by the tables of board.c or
 * the propagation of boardgen.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "helpers.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "catan/boardgen.h"

/* catan_board_generate, seed 7, standard options: fixed everywhere. */
#define GOLDEN_SEED7_HASH 0x94fd49bb09749505ull

/* ---- the independent checker ---- */

static const int NQ[6] = {1, 1, 0, -1, -1, 0}, NR[6] = {-1, 0, 1, 1, 0, -1};

static int find_tile(const catan_board *b, int q, int r)
{
	for (int t = 0; t < b->ntiles; t++)
		if (b->tile_hex[t].q == q && b->tile_hex[t].r == r)
			return t;
	return -1;
}

static int pips(int k)
{
	static const int p[13] = {0, 0, 1, 2, 3, 4, 5, 0, 5, 4, 3, 2, 1};
	return k >= 0 && k <= 12 ? p[k] : 0;
}

/* Corner points: hex (q,r) has centre (2q+r, 3r) and corners at these. */
static const int CX[6] = {0, 1, 1, 0, -1, -1}, CY[6] = {-2, -1, 1, 2, 1, -1};

/* Bit set of the rules board b satisfies (pip limit n). */
static unsigned check_rules(const catan_board *b, int n)
{
	unsigned ok = CATAN_RULES_ALL;
	int count[CATAN_RES_COUNT] = {0}, low[CATAN_RES_COUNT] = {0};
	for (int t = 0; t < b->ntiles; t++) {
		int x = b->tile_terrain[t], k = b->tile_token[t];
		if (x != CATAN_DESERT) {
			count[x]++;
			low[x] += pips(k) <= 2;
		}
		for (int d = 0; d < 6; d++) {
			int u = find_tile(b, b->tile_hex[t].q + NQ[d],
					  b->tile_hex[t].r + NR[d]);
			if (u < 0)
				continue;
			if (x != CATAN_DESERT && b->tile_terrain[u] == x)
				ok &= ~(1u << CATAN_RULE_SAME_RESOURCE);
			if (k && b->tile_token[u] == k)
				ok &= ~(1u << CATAN_RULE_SAME_TOKEN);
			if ((k == 6 || k == 8) &&
			    (b->tile_token[u] == 6 || b->tile_token[u] == 8))
				ok &= ~(1u << CATAN_RULE_RED_APART);
		}
		/* Every corner: sum over the land tiles sharing the point. */
		for (int c = 0; c < 6; c++) {
			int px =
			    2 * b->tile_hex[t].q + b->tile_hex[t].r + CX[c];
			int py = 3 * b->tile_hex[t].r + CY[c], sum = 0;
			for (int u = 0; u < b->ntiles; u++)
				for (int e = 0; e < 6; e++)
					if (2 * b->tile_hex[u].q +
						    b->tile_hex[u].r + CX[e] ==
						px &&
					    3 * b->tile_hex[u].r + CY[e] == py)
						sum += pips(b->tile_token[u]);
			if (sum > n)
				ok &= ~(1u << CATAN_RULE_MAX_PIPS);
		}
	}
	for (int x = 0; x < CATAN_RES_COUNT; x++)
		if (low[x] > count[x] / 2)
			ok &= ~(1u << CATAN_RULE_LOW_SPREAD);
	return ok;
}

/* The board holds exactly the shape's pieces, deserts without tokens. */
static void check_pieces(const catan_board *b, const catan_components *c)
{
	int terr[CATAN_RES_COUNT + 1] = {0}, tok[13] = {0},
				   harb[CATAN_HARBOUR_KINDS] = {0};
	for (int t = 0; t < b->ntiles; t++) {
		terr[b->tile_terrain[t]]++;
		tok[b->tile_token[t]]++;
		assert_true((b->tile_terrain[t] == CATAN_DESERT) ==
			    (b->tile_token[t] == 0));
	}
	for (int x = 0; x <= CATAN_DESERT; x++)
		assert_int_equal(terr[x], c->terrain[x]);
	for (int k = 2; k <= 12; k++)
		assert_int_equal(tok[k], c->token[k]);
	assert_int_equal(b->nharbours, c->nharbours);
	for (int h = 0; h < b->nharbours; h++)
		harb[b->harbour_kind[h]]++;
	for (int k = 0; k < CATAN_HARBOUR_KINDS; k++)
		assert_int_equal(harb[k], c->harbour[k]);
	assert_int_equal(b->tile_terrain[b->robber_start], CATAN_DESERT);
}

static catan_board gen_ok(catan_genopts *o)
{
	catan_board b;
	catan_genreport rep;
	int rc = catan_board_generate(&b, o, &rep);
	if (rc)
		fail_msg("generate failed (%d): %s", rc, rep.why);
	assert_int_equal(rep.status, CATAN_GEN_FOUND);
	return b;
}

/* ---- shapes ---- */

static void test_boardgen__standard_pieces_are_official(void **state)
{
	(void)state;
	catan_board b;
	catan_components c;
	assert_int_equal(catan_board_shape(&b, &c, CATAN_SHAPE_HEXAGON, 2),
			 CATAN_OK);
	const int terr[6] = {4, 3, 4, 4, 3, 1};
	const int tok[13] = {0, 0, 1, 2, 2, 2, 2, 0, 2, 2, 2, 2, 1};
	for (int x = 0; x < 6; x++)
		assert_int_equal(c.terrain[x], terr[x]);
	for (int k = 0; k < 13; k++)
		assert_int_equal(c.token[k], tok[k]);
	assert_int_equal(c.nharbours, 9);
	assert_int_equal(c.harbour[CATAN_HARBOUR_GENERIC], 4);
	for (int x = 0; x < CATAN_RES_COUNT; x++)
		assert_int_equal(c.harbour[x], 1);
	/* Harbour sides are the beginner board's. */
	catan_board beg;
	catan_board_beginner(&beg);
	assert_int_equal(b.nharbours, 9);
	for (int h = 0; h < 9; h++)
		assert_int_equal(b.harbour_edge[h], beg.harbour_edge[h]);
}

static void test_boardgen__five_six_board_is_official(void **state)
{
	(void)state;
	catan_board b;
	catan_components c;
	assert_int_equal(catan_board_shape(&b, &c, CATAN_SHAPE_EXT56, 0),
			 CATAN_OK);
	assert_int_equal(b.ntiles, 30);
	/* Rows of 3, 4, 5, 6, 5, 4, 3. */
	const int rows[7] = {3, 4, 5, 6, 5, 4, 3};
	for (int r = -3; r <= 3; r++) {
		int n = 0;
		for (int t = 0; t < b.ntiles; t++)
			n += b.tile_hex[t].r == r;
		assert_int_equal(n, rows[r + 3]);
	}
	const int terr[6] = {6, 5, 6, 6, 5, 2};
	const int tok[13] = {0, 0, 2, 3, 3, 3, 3, 0, 3, 3, 3, 3, 2};
	for (int x = 0; x < 6; x++)
		assert_int_equal(c.terrain[x], terr[x]);
	for (int k = 0; k < 13; k++)
		assert_int_equal(c.token[k], tok[k]);
	assert_int_equal(c.nharbours, 11);
	assert_int_equal(c.harbour[CATAN_HARBOUR_GENERIC], 5);
	assert_int_equal(c.harbour[CATAN_WOOL], 2);
	assert_int_equal(c.harbour[CATAN_ORE], 1);
}

/* Harbours: on coastal sides, no two sharing a corner. */
static void check_harbours(const catan_board *b)
{
	for (int h = 0; h < b->nharbours; h++) {
		int e = b->harbour_edge[h], land = 0;
		for (int t = 0; t < b->ntiles; t++)
			for (int s = 0; s < 6; s++)
				land += b->tile_edges[t][s] == e;
		assert_int_equal(land, 1);
		for (int g = 0; g < h; g++) {
			int f = b->harbour_edge[g];
			for (int i = 0; i < 2; i++)
				for (int j = 0; j < 2; j++)
					assert_int_not_equal(
					    b->edge_vertices[e][i],
					    b->edge_vertices[f][j]);
		}
	}
}

static void test_boardgen__any_radius(void **state)
{
	(void)state;
	for (int radius = 1; radius <= CATAN_MAX_RADIUS; radius++) {
		catan_board b;
		catan_components c;
		assert_int_equal(
		    catan_board_shape(&b, &c, CATAN_SHAPE_HEXAGON, radius),
		    CATAN_OK);
		int n = 3 * radius * (radius + 1) + 1, sum = 0, toks = 0;
		assert_int_equal(b.ntiles, n);
		for (int x = 0; x <= CATAN_DESERT; x++)
			sum += c.terrain[x];
		for (int k = 2; k <= 12; k++)
			toks += c.token[k];
		assert_int_equal(sum, n);
		assert_int_equal(toks, n - c.terrain[CATAN_DESERT]);
		/* Resources within one of each other. */
		for (int x = 0; x < CATAN_RES_COUNT; x++)
			assert_true(c.terrain[x] >= c.terrain[CATAN_ORE] &&
				    c.terrain[x] <= c.terrain[CATAN_ORE] + 1);
		check_harbours(&b);
		for (int seed = 1; seed <= 20; seed++) {
			catan_genopts o;
			catan_genopts_default(&o);
			o.radius = (uint8_t)radius;
			o.seed = (uint64_t)seed;
			catan_board g = gen_ok(&o);
			check_pieces(&g, &c);
			check_harbours(&g);
			assert_int_equal(check_rules(&g, 11), CATAN_RULES_ALL);
		}
	}
	catan_board b;
	catan_components c;
	assert_int_equal(catan_board_shape(&b, &c, CATAN_SHAPE_HEXAGON, 3),
			 CATAN_OK);
	assert_int_equal(c.terrain[CATAN_DESERT], 2);
	assert_int_equal(catan_board_shape(&b, &c, CATAN_SHAPE_HEXAGON, 1),
			 CATAN_OK);
	assert_int_equal(c.terrain[CATAN_DESERT], 1);
	assert_int_equal(catan_board_shape(&b, &c, CATAN_SHAPE_HEXAGON, 0),
			 CATAN_E_BAD_OPTION);
	assert_int_equal(catan_board_shape(&b, &c, CATAN_SHAPE_HEXAGON,
					   CATAN_MAX_RADIUS + 1),
			 CATAN_E_CAPACITY);
	assert_int_equal(catan_board_shape(&b, &c, 99, 2), CATAN_E_BAD_OPTION);
}

static void test_boardgen__five_six_generates(void **state)
{
	(void)state;
	catan_board s;
	catan_components c;
	catan_board_shape(&s, &c, CATAN_SHAPE_EXT56, 0);
	check_harbours(&s);
	for (int seed = 1; seed <= 30; seed++) {
		catan_genopts o;
		catan_genopts_default(&o);
		o.shape = CATAN_SHAPE_EXT56;
		o.seed = (uint64_t)seed;
		catan_board b = gen_ok(&o);
		check_pieces(&b, &c);
		assert_int_equal(check_rules(&b, 11), CATAN_RULES_ALL);
	}
}

/* The 5-6 board's harbours sit on the fixed sides of spec/board.md. */
static void test_boardgen__five_six_harbour_sides_are_fixed(void **state)
{
	(void)state;
	static const struct {
		int q, r;
		const char *dir;
	} sides[11] = {
	    {0, -3, "nw"}, {1, -3, "ne"}, {2, -2, "ne"}, {2, -1, "e"},
	    {1, 1, "e"},   {0, 2, "se"},  {-2, 3, "se"}, {-3, 3, "sw"},
	    {-3, 2, "w"},  {-3, 0, "w"},  {-1, -2, "w"},
	};
	catan_board s;
	catan_components c;
	assert_int_equal(catan_board_shape(&s, &c, CATAN_SHAPE_EXT56, 0),
			 CATAN_OK);
	assert_int_equal(s.nharbours, 11);
	for (int h = 0; h < 11; h++)
		assert_int_equal(s.harbour_edge[h],
				 th_edge(&s, sides[h].q, sides[h].r,
					 sides[h].dir));
	check_harbours(&s);
	/* Generated boards keep the sides and shuffle the kinds over them. */
	bool moved = false;
	catan_board first;
	for (int seed = 1; seed <= 8; seed++) {
		catan_board b;
		assert_int_equal(catan_board_random_ext56(&b, (uint64_t)seed),
				 CATAN_OK);
		assert_memory_equal(b.harbour_edge, s.harbour_edge, 11);
		check_pieces(&b, &c);
		if (seed == 1)
			first = b;
		else
			moved |= memcmp(first.harbour_kind, b.harbour_kind,
					11) != 0;
	}
	assert_true(moved);
}

/*
 * The random 5-6 board: official pieces, the official red-number rule,
 * the same board for the same seed, different boards for different seeds.
 */
static void test_boardgen__random_five_six_board(void **state)
{
	(void)state;
	catan_board a, b, c;
	catan_components parts;
	catan_board_shape(&c, &parts, CATAN_SHAPE_EXT56, 0);
	for (int seed = 1; seed <= 20; seed++) {
		assert_int_equal(catan_board_random_ext56(&a, (uint64_t)seed),
				 CATAN_OK);
		assert_int_equal(catan_board_random_ext56(&b, (uint64_t)seed),
				 CATAN_OK);
		assert_memory_equal(&a, &b, sizeof a);
		check_pieces(&a, &parts);
		assert_true(catan_board_rules_met(&a, 11) &
			    (1u << CATAN_RULE_RED_APART));
	}
	catan_board_random_ext56(&b, 21);
	assert_memory_not_equal(a.tile_terrain, b.tile_terrain, a.ntiles);
}

/* ---- rules ---- */

/*
 * Every one of the 32 combinations: the rules switched on always hold;
 * each rule switched off is broken by some board (it is really off).
 */
static void test_boardgen__every_rule_combination(void **state)
{
	(void)state;
	catan_components c;
	catan_board s;
	catan_board_shape(&s, &c, CATAN_SHAPE_HEXAGON, 2);
	for (unsigned rules = 0; rules <= CATAN_RULES_ALL; rules++) {
		unsigned broken = 0;
		for (int seed = 1; seed <= 120; seed++) {
			catan_genopts o;
			catan_genopts_default(&o);
			o.rules = (uint8_t)rules;
			o.seed = (uint64_t)seed * 7919u + rules;
			catan_board b = gen_ok(&o);
			check_pieces(&b, &c);
			unsigned met = check_rules(&b, 11);
			if ((met & rules) != rules)
				fail_msg("rules 0x%02x seed %d: met 0x%02x",
					 rules, seed, met);
			assert_int_equal(catan_board_rules_met(&b, 11), met);
			broken |= ~met & CATAN_RULES_ALL;
		}
		if ((broken | rules) != CATAN_RULES_ALL)
			fail_msg("rules 0x%02x: off rules never broken "
				 "(broken 0x%02x)",
				 rules, broken);
	}
}

static void test_boardgen__pip_limit_is_a_parameter(void **state)
{
	(void)state;
	for (int n = 10; n <= 13; n++)
		for (int seed = 1; seed <= 20; seed++) {
			catan_genopts o;
			catan_genopts_default(&o);
			o.rules = 1u << CATAN_RULE_MAX_PIPS;
			o.max_pips = (uint8_t)n;
			o.seed = (uint64_t)seed;
			catan_board b = gen_ok(&o);
			assert_true(check_rules(&b, n) &
				    (1u << CATAN_RULE_MAX_PIPS));
		}
}

static void test_boardgen__exact_and_search_methods(void **state)
{
	(void)state;
	for (int m = CATAN_GEN_AUTO; m < CATAN_GEN_METHOD_COUNT; m++)
		for (int seed = 1; seed <= 20; seed++) {
			catan_genopts o;
			catan_genopts_default(&o);
			o.method = (uint8_t)m;
			/* Exact sampling is for loose rules. */
			if (m == CATAN_GEN_EXACT)
				o.rules = (1u << CATAN_RULE_RED_APART) |
					  (1u << CATAN_RULE_MAX_PIPS);
			o.seed = (uint64_t)seed;
			catan_genreport rep;
			catan_board b;
			assert_int_equal(catan_board_generate(&b, &o, &rep),
					 CATAN_OK);
			assert_int_equal(rep.exact, m == CATAN_GEN_EXACT);
			assert_int_equal(check_rules(&b, 11) & o.rules,
					 o.rules);
		}
}

/* ---- pins, determinism ---- */

static void test_boardgen__pins_are_respected(void **state)
{
	(void)state;
	catan_rng rng;
	catan_rng_seed(&rng, 99);
	for (int round = 0; round < 300; round++) {
		catan_genopts o;
		catan_genopts_default(&o);
		o.radius = (uint8_t)(1 + round % CATAN_MAX_RADIUS);
		o.rules = (uint8_t)catan_rng_below(&rng, 32);
		o.seed = (uint64_t)round;
		catan_board src = gen_ok(&o);
		/* Pins taken from a valid board: always satisfiable. */
		o.npins = 0;
		for (int t = 0; t < src.ntiles; t++) {
			if (catan_rng_below(&rng, 4))
				continue;
			catan_pin *p = &o.pins[o.npins++];
			p->hex = src.tile_hex[t];
			int how = (int)catan_rng_below(&rng, 3);
			p->terrain =
			    how == 1 ? CATAN_NONE : src.tile_terrain[t];
			p->token = how == 0 ? 0 : src.tile_token[t];
			if (p->terrain == CATAN_NONE && !p->token)
				p->terrain = src.tile_terrain[t];
		}
		o.seed = (uint64_t)round + 1000;
		catan_board b = gen_ok(&o);
		for (int i = 0; i < o.npins; i++) {
			int t = find_tile(&b, o.pins[i].hex.q, o.pins[i].hex.r);
			assert_true(t >= 0);
			if (o.pins[i].terrain != CATAN_NONE)
				assert_int_equal(b.tile_terrain[t],
						 o.pins[i].terrain);
			if (o.pins[i].token)
				assert_int_equal(b.tile_token[t],
						 o.pins[i].token);
		}
		assert_int_equal(check_rules(&b, 11) & o.rules, o.rules);
	}
}

static void test_boardgen__same_seed_same_board(void **state)
{
	(void)state;
	for (int radius = 1; radius <= CATAN_MAX_RADIUS; radius++) {
		catan_genopts o;
		catan_genopts_default(&o);
		o.radius = (uint8_t)radius;
		o.seed = 42;
		o.npins = 1;
		o.pins[0] = (catan_pin){{0, 0}, CATAN_DESERT, 0};
		catan_board a = gen_ok(&o), b = gen_ok(&o);
		assert_memory_equal(&a, &b, sizeof a);
		o.seed = 43;
		b = gen_ok(&o);
		assert_true(
		    memcmp(a.tile_terrain, b.tile_terrain,
			   sizeof a.tile_terrain) ||
		    memcmp(a.tile_token, b.tile_token, sizeof a.tile_token));
	}
	/* A fixed board for a fixed seed, on every machine. */
	catan_genopts o;
	catan_genopts_default(&o);
	o.seed = 7;
	catan_board b = gen_ok(&o);
	uint64_t h = 1469598103934665603ull;
	for (int t = 0; t < b.ntiles; t++)
		h = ((h ^ b.tile_terrain[t]) * 1099511628211ull ^
		     b.tile_token[t]) *
		    1099511628211ull;
	for (int i = 0; i < b.nharbours; i++)
		h = (h ^ b.harbour_kind[i]) * 1099511628211ull;
	printf("# seed 7 board hash %016llx\n", (unsigned long long)h);
	assert_true(h == GOLDEN_SEED7_HASH);
}

/* ---- infeasibility ---- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Generation must fail, leave the board untouched, and explain why; pin
 * conflicts within the 1 s (not checked under the sanitizers'
 * slowdown for the budget case, which is timed by the benchmark).
 */
static catan_genreport gen_fails_t(catan_genopts *o, bool timed)
{
	catan_board b, before;
	catan_genreport rep;
	memset(&b, 0x5a, sizeof b);
	before = b;
	double t0 = now();
	assert_int_equal(catan_board_generate(&b, o, &rep), CATAN_E_BAD_OPTION);
	if (timed)
		assert_true(now() - t0 < 1.0);
	assert_memory_equal(&b, &before, sizeof b); /* untouched */
	assert_true(rep.why[0] != '\0');
	return rep;
}

static catan_genreport gen_fails(catan_genopts *o)
{
	return gen_fails_t(o, true);
}

static void test_boardgen__conflicting_pins_are_named(void **state)
{
	(void)state;
	catan_genopts o;
	catan_genreport rep;

	/* Two touching forests, among other harmless pins. */
	catan_genopts_default(&o);
	o.npins = 4;
	o.pins[0] = (catan_pin){{-2, 2}, CATAN_ORE, 0};
	o.pins[1] = (catan_pin){{0, -1}, CATAN_LUMBER, 8};
	o.pins[2] = (catan_pin){{2, -2}, CATAN_NONE, 4};
	o.pins[3] = (catan_pin){{1, -1}, CATAN_LUMBER, 0};
	rep = gen_fails(&o);
	assert_int_equal(rep.status, CATAN_GEN_INFEASIBLE);
	assert_int_equal(rep.conflict_rules, 1u << CATAN_RULE_SAME_RESOURCE);
	assert_int_equal(rep.nconflict_pins, 2);
	assert_int_equal(rep.conflict_pins[0], 1);
	assert_int_equal(rep.conflict_pins[1], 3);
	assert_true(rep.minimal);
	assert_non_null(strstr(rep.why, "same-resource"));

	/* Same with the rule off: a board exists. */
	o.rules &= ~(1u << CATAN_RULE_SAME_RESOURCE);
	gen_ok(&o);

	/* 6 next to 8. */
	catan_genopts_default(&o);
	o.rules = 1u << CATAN_RULE_RED_APART;
	o.npins = 2;
	o.pins[0] = (catan_pin){{0, 0}, CATAN_NONE, 6};
	o.pins[1] = (catan_pin){{0, 1}, CATAN_NONE, 8};
	rep = gen_fails(&o);
	assert_int_equal(rep.conflict_rules, 1u << CATAN_RULE_RED_APART);
	assert_int_equal(rep.nconflict_pins, 2);

	/* Five forests: the pins alone, no rule. */
	catan_genopts_default(&o);
	o.npins = 5;
	for (int i = 0; i < 5; i++)
		o.pins[i] = (catan_pin){{(int8_t)(i - 2), 0}, CATAN_LUMBER, 0};
	o.rules = 0;
	rep = gen_fails(&o);
	assert_int_equal(rep.conflict_rules, 0);
	assert_int_equal(rep.nconflict_pins, 5);

	/* Three low lumbers: rule 4 and those three pins. */
	catan_genopts_default(&o);
	o.npins = 4;
	o.pins[0] = (catan_pin){{-2, 0}, CATAN_LUMBER, 2};
	o.pins[1] = (catan_pin){{0, -2}, CATAN_LUMBER, 3};
	o.pins[2] = (catan_pin){{0, 0}, CATAN_DESERT, 0};
	o.pins[3] = (catan_pin){{2, 0}, CATAN_LUMBER, 12};
	rep = gen_fails(&o);
	assert_int_equal(rep.conflict_rules, 1u << CATAN_RULE_LOW_SPREAD);
	assert_int_equal(rep.nconflict_pins, 3);
	assert_int_equal(rep.conflict_pins[2], 3);
	assert_true(rep.minimal);

	/* Pip limit: 6, 8 and a 5 around one corner. */
	catan_genopts_default(&o);
	o.rules = 1u << CATAN_RULE_MAX_PIPS;
	o.npins = 3;
	o.pins[0] = (catan_pin){{0, 0}, CATAN_NONE, 6};
	o.pins[1] = (catan_pin){{1, 0}, CATAN_NONE, 8};
	o.pins[2] = (catan_pin){{0, 1}, CATAN_NONE, 5};
	rep = gen_fails(&o);
	assert_int_equal(rep.conflict_rules, 1u << CATAN_RULE_MAX_PIPS);
	assert_int_equal(rep.nconflict_pins, 3);

	/* A desert with a token conflicts on its own. */
	catan_genopts_default(&o);
	o.npins = 1;
	o.pins[0] = (catan_pin){{0, 0}, CATAN_DESERT, 6};
	rep = gen_fails(&o);
	assert_int_equal(rep.nconflict_pins, 1);
	assert_int_equal(rep.conflict_rules, 0);
}

static void test_boardgen__too_tight_ends_within_budget(void **state)
{
	(void)state;
	catan_genopts o;
	catan_genopts_default(&o);
	o.max_pips = 7;
	catan_genreport rep = gen_fails_t(&o, false);
	assert_true(rep.status == CATAN_GEN_BUDGET ||
		    rep.status == CATAN_GEN_INFEASIBLE);
	/* A tiny budget too. */
	catan_genopts_default(&o);
	o.budget = 10;
	o.radius = 3;
	rep = gen_fails_t(&o, false);
	assert_int_equal(rep.status, CATAN_GEN_BUDGET);
}

static void test_boardgen__bad_input(void **state)
{
	(void)state;
	catan_genopts o;
	catan_board b;
	catan_genreport rep;
	catan_genopts_default(&o);
	o.npins = 1;
	o.pins[0] = (catan_pin){{3, 0}, CATAN_ORE, 0};
	assert_int_equal(catan_board_generate(&b, &o, &rep), CATAN_E_BAD_TILE);
	assert_int_equal(rep.status, CATAN_GEN_BAD_INPUT);
	o.npins = 2;
	o.pins[0] = (catan_pin){{1, 0}, CATAN_ORE, 0};
	o.pins[1] = (catan_pin){{1, 0}, CATAN_NONE, 5};
	assert_int_equal(catan_board_generate(&b, &o, &rep), CATAN_E_BAD_TILE);
	o.npins = 1;
	o.pins[0] = (catan_pin){{1, 0}, CATAN_NONE, 7};
	assert_int_equal(catan_board_generate(&b, &o, &rep),
			 CATAN_E_BAD_OPTION);
	o.pins[0] = (catan_pin){{1, 0}, CATAN_NONE, 0};
	assert_int_equal(catan_board_generate(&b, &o, &rep),
			 CATAN_E_BAD_OPTION);
	catan_genopts_default(&o);
	o.radius = CATAN_MAX_RADIUS + 1;
	assert_int_equal(catan_board_generate(&b, &o, NULL), CATAN_E_CAPACITY);
	o.radius = 0;
	assert_int_equal(catan_board_generate(&b, &o, NULL),
			 CATAN_E_BAD_OPTION);
	catan_genopts_default(&o);
	o.rules = 0x20;
	assert_int_equal(catan_board_generate(&b, &o, NULL),
			 CATAN_E_BAD_OPTION);
}

/* ---- balance ---- */

static void test_boardgen__balance_of_the_beginner_board(void **state)
{
	(void)state;
	catan_board b;
	catan_balance bal;
	catan_board_beginner(&b);
	catan_board_balance(&bal, &b, 8);
	/* Hand-counted from DESIGN.md's board. */
	const int tiles[5] = {4, 3, 4, 4, 3}, pp[5] = {13, 12, 10, 13, 10};
	for (int x = 0; x < CATAN_RES_COUNT; x++) {
		assert_int_equal(bal.res_tiles[x], tiles[x]);
		assert_int_equal(bal.res_pips[x], pp[x]);
	}
	/* Lumber (-1,0)-(-2,1) touch, (1,0) alone, (2,-2) alone. */
	assert_int_equal(bal.res_pairs[CATAN_LUMBER], 1);
	assert_int_equal(bal.res_cluster[CATAN_LUMBER], 2);
	assert_int_equal(bal.nspots, 8);
	for (int i = 1; i < bal.nspots; i++)
		assert_true(bal.spot_pips[i] <= bal.spot_pips[i - 1]);
	assert_int_equal(bal.spot_pips[0], bal.max_pips);
	/* The picks respect the distance rule. */
	for (int i = 0; i < bal.nspots; i++)
		for (int j = 0; j < i; j++)
			assert_false(catan_vset_has(&b.vertex_nbrs[bal.spot[i]],
						    bal.spot[j]));
	assert_int_equal(bal.rules_met, check_rules(&b, 11));
}

static void test_boardgen__rules_met_matches_checker(void **state)
{
	(void)state;
	for (int seed = 0; seed < 2000; seed++) {
		catan_board b;
		catan_board_random(&b, (uint64_t)seed);
		for (int n = 10; n <= 12; n++)
			assert_int_equal(catan_board_rules_met(&b, n),
					 check_rules(&b, n));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_boardgen__standard_pieces_are_official),
	    cmocka_unit_test(test_boardgen__five_six_board_is_official),
	    cmocka_unit_test(test_boardgen__any_radius),
	    cmocka_unit_test(test_boardgen__five_six_generates),
	    cmocka_unit_test(test_boardgen__five_six_harbour_sides_are_fixed),
	    cmocka_unit_test(test_boardgen__random_five_six_board),
	    cmocka_unit_test(test_boardgen__every_rule_combination),
	    cmocka_unit_test(test_boardgen__pip_limit_is_a_parameter),
	    cmocka_unit_test(test_boardgen__exact_and_search_methods),
	    cmocka_unit_test(test_boardgen__pins_are_respected),
	    cmocka_unit_test(test_boardgen__same_seed_same_board),
	    cmocka_unit_test(test_boardgen__conflicting_pins_are_named),
	    cmocka_unit_test(test_boardgen__too_tight_ends_within_budget),
	    cmocka_unit_test(test_boardgen__bad_input),
	    cmocka_unit_test(test_boardgen__balance_of_the_beginner_board),
	    cmocka_unit_test(test_boardgen__rules_met_matches_checker),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
