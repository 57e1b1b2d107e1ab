/*
 * test_longest_road.c - catan_state_road_length() against a slow reference.
 *
 * The rules compute the longest trail with a tree diameter where they can
 * and a pruned search elsewhere; the invariant check calls the same code,
 * so it cannot catch a wrong algorithm. This file carries an independent,
 * obviously-correct search (every start vertex, every trail, straight from
 * the board tables) and compares the two on every state of many random
 * games and on hand-built shapes.
 */
#include <string.h>

#include "helpers.h"

/* Every trail from v not using `used` edges; opponents' buildings stop it. */
static int reference_from(const catan_board *b, const catan_state *s, int p,
			  int v, catan_eset *used, int len)
{
	int best = len;
	if (len > 0 && catan_vset_has(&s->occupied, v) &&
	    !catan_vset_has(&s->players[p].settlements, v) &&
	    !catan_vset_has(&s->players[p].cities, v))
		return len;
	for (int i = 0; i < 3; i++) {
		int e = b->vertex_edges[v][i];
		if (e == CATAN_NONE || !catan_eset_has(&s->players[p].roads, e) ||
		    catan_eset_has(used, e))
			continue;
		int u = b->edge_vertices[e][0] == v ? b->edge_vertices[e][1]
						     : b->edge_vertices[e][0];
		catan_eset_add(used, e);
		int got = reference_from(b, s, p, u, used, len + 1);
		used->w[e >> 6] &= ~((uint64_t)1 << (e & 63));
		if (got > best)
			best = got;
	}
	return best;
}

static int reference_length(const catan_board *b, const catan_state *s, int p)
{
	int best = 0;
	for (int v = 0; v < b->nvertices; v++) {
		catan_eset used;
		memset(&used, 0, sizeof used);
		int got = reference_from(b, s, p, v, &used, 0);
		if (got > best)
			best = got;
	}
	return best;
}

static void compare_all(const catan_board *b, const catan_state *s)
{
	for (int p = 0; p < s->opt.nplayers; p++) {
		int fast = catan_state_road_length(b, s, p);
		int slow = reference_length(b, s, p);
		if (fast != slow)
			fail_msg("player %d: road length %d, reference %d", p,
				 fast, slow);
	}
}

static void test_longest_road__matches_reference_in_random_games(void **st)
{
	(void)st;
	catan_board b;
	catan_options o;
	long compared = 0;
	catan_options_default(&o);
	for (int g = 0; g < 400; g++) {
		catan_state s;
		catan_rng rng;
		catan_board_random(&b, (uint64_t)g);
		o.nplayers = (uint8_t)(2 + g % 3);
		o.seed = (uint64_t)g;
		assert_int_equal(catan_state_init(&s, &b, &o), CATAN_OK);
		catan_rng_seed(&rng, (uint64_t)g * 31 + 7);
		while (s.phase != CATAN_PHASE_OVER) {
			catan_action a;
			int who = catan_state_next_actor(&s);
			assert_int_equal(catan_bot_choose(&a, CATAN_BOT_RANDOM,
							  &b, &s, who, &rng,
							  CATAN_LEGAL_NO_OFFERS),
					 CATAN_OK);
			assert_int_equal(
				catan_state_apply(&s, &b, &s, who, &a, NULL),
				CATAN_OK);
			if (a.kind == CATAN_ACT_BUILD_ROAD ||
			    a.kind == CATAN_ACT_PLAY_ROAD_BUILDING ||
			    a.kind == CATAN_ACT_BUILD_SETTLEMENT ||
			    a.kind == CATAN_ACT_SETUP) {
				compare_all(&b, &s);
				compared++;
			}
		}
		compare_all(&b, &s);
	}
	assert_true(compared > 10000);
}

/* Gives p roads on the listed edges directly (pieces kept consistent). */
static void lay_roads(const catan_board *b, catan_state *s, int p,
		      const int *edges, int n)
{
	for (int i = 0; i < n; i++) {
		catan_eset_add(&s->players[p].roads, edges[i]);
		catan_eset_add(&s->roads, edges[i]);
		catan_vset_add(&s->players[p].reach, b->edge_vertices[edges[i]][0]);
		catan_vset_add(&s->players[p].reach, b->edge_vertices[edges[i]][1]);
		s->players[p].roads_left--;
	}
}

static void test_longest_road__ring_around_a_tile_is_six(void **st)
{
	(void)st;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 2);
	int ring[6];
	for (int i = 0; i < 6; i++)
		ring[i] = b.tile_edges[th_tile(&b, 0, 0)][i];
	lay_roads(&b, &s, RED, ring, 6);
	assert_int_equal(catan_state_road_length(&b, &s, RED), 6);
	compare_all(&b, &s);
}

static void test_longest_road__ring_with_tail_covers_everything(void **st)
{
	(void)st;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 2);
	int t = th_tile(&b, 0, 0);
	int roads[8];
	for (int i = 0; i < 6; i++)
		roads[i] = b.tile_edges[t][i];
	/* A tail of two roads going north from the N corner of 0,0: the
	 * E side of 0,-1, then its NE side. */
	roads[6] = th_edge(&b, 0, -1, "e");
	roads[7] = th_edge(&b, 0, -1, "ne");
	lay_roads(&b, &s, RED, roads, 8);
	compare_all(&b, &s);
	assert_int_equal(catan_state_road_length(&b, &s, RED), 8);
}

static void test_longest_road__two_rings_sharing_a_side(void **st)
{
	(void)st;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 2);
	int roads[11], n = 0;
	int t1 = th_tile(&b, 0, 0), t2 = th_tile(&b, 1, 0);
	for (int i = 0; i < 6; i++)
		roads[n++] = b.tile_edges[t1][i];
	for (int i = 0; i < 6; i++)
		if (b.tile_edges[t2][i] != roads[1]) /* shared: E of 0,0 */
			roads[n++] = b.tile_edges[t2][i];
	assert_int_equal(n, 11);
	lay_roads(&b, &s, RED, roads, n);
	/* Two rings sharing one side: the two shared corners have degree 3
	 * and every other corner 2, so an Euler trail from one shared corner
	 * to the other uses all 11 roads. */
	compare_all(&b, &s);
	assert_int_equal(catan_state_road_length(&b, &s, RED), 11);
}

static void test_longest_road__opponent_building_cuts_the_trail(void **st)
{
	(void)st;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 2);
	int t = th_tile(&b, 0, 0);
	int ring[6];
	for (int i = 0; i < 6; i++)
		ring[i] = b.tile_edges[t][i];
	lay_roads(&b, &s, RED, ring, 6);
	/* Blue settles on the S corner of 0,0: the ring becomes a path. */
	int v = b.tile_vertices[t][3];
	catan_vset_add(&s.players[BLUE].settlements, v);
	catan_vset_add(&s.occupied, v);
	assert_int_equal(catan_state_road_length(&b, &s, RED), 6);
	/* And on the N corner too: two paths of three. */
	int w = b.tile_vertices[t][0];
	catan_vset_add(&s.players[BLUE].settlements, w);
	catan_vset_add(&s.occupied, w);
	assert_int_equal(catan_state_road_length(&b, &s, RED), 3);
	compare_all(&b, &s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_longest_road__matches_reference_in_random_games),
		cmocka_unit_test(test_longest_road__ring_around_a_tile_is_six),
		cmocka_unit_test(
			test_longest_road__ring_with_tail_covers_everything),
		cmocka_unit_test(test_longest_road__two_rings_sharing_a_side),
		cmocka_unit_test(
			test_longest_road__opponent_building_cuts_the_trail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
