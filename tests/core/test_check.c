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

/*
 * The check fails with CATAN_E_INVARIANT and a sentence that names the
 * invariant `name` (the text spec/model.md's table gives): "name: is ..."
 * or "name (player p): is ...", `name` possibly after a card's name.
 */
static void expect_broken(const catan_board *b, const catan_state *s,
			  const char *name)
{
	char why[256];

	memset(why, 0, sizeof why);
	assert_int_equal(catan_state_check(b, s, why, sizeof why),
			 CATAN_E_INVARIANT);
	print_message("detected: %s\n", why);
	const char *at = strstr(why, name);
	assert_non_null(at);
	at += strlen(name);
	assert_true(strncmp(at, ": is ", 5) == 0 ||
		    strncmp(at, " (player ", 9) == 0);
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
	expect_broken(b, &s, "cards in play");
}

static void test_check__card_missing_from_bank(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.bank[CATAN_GRAIN]--;
	expect_broken(b, &s, "cards in play");
}

static void test_check__ncards_mismatch(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.players[RED].ncards--;
	expect_broken(b, &s, "card count");
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
	expect_broken(b, &s, "cards");
	/* A duplicated card in the played pile, too. */
	played(b, &s);
	s.played[CATAN_DEV_ROAD_BUILDING]++;
	expect_broken(b, &s, "cards");
}

static void test_check__roads_left_mismatch(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.players[ORANGE].roads_left--;
	expect_broken(b, &s, "roads on board + in supply");
	played(b, &s);
	s.players[RED].settlements_left++;
	expect_broken(b, &s, "settlements on board + in supply");
	played(b, &s);
	s.players[WHITE].cities_left--;
	expect_broken(b, &s, "cities on board + in supply");
}

/* Adds a settlement of p at v with every cache updated as the rules do. */
static void add_settlement(const catan_board *b, catan_state *s, int p, int v)
{
	catan_player *pl = &s->players[p];

	catan_vset_add(&pl->settlements, v);
	s->building[v] = (uint8_t)(p + 1);
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
	expect_broken(b, &s, "vertices holding two buildings");
	/* A settlement and a city of one player on one vertex. */
	played(b, &s);
	int v = th_vertex(b, 0, -1, "n");
	catan_vset_add(&s.players[RED].cities, v);
	s.players[RED].cities_left--;
	s.players[RED].public_vp += 2;
	expect_broken(b, &s, "vertices holding two buildings");
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
	expect_broken(b, &s, "distance rule broken at vertex");
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
	expect_broken(b, &s, "roads not connected to own buildings");
}

static void test_check__road_length_cache(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	assert_int_equal(s.players[RED].road_length, 2);
	s.players[RED].road_length = 3;
	expect_broken(b, &s, "cached longest road");
}

static void test_check__public_vp(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.players[BLUE].public_vp++;
	expect_broken(b, &s, "public victory points");
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
	expect_broken(b, &s, "longest road holder's length");
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
	expect_broken(b, &s, "largest army holder's knights");
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
	expect_broken(b, &s, "cached blocked vertices");
	/* Extra, not missing. */
	played(b, &s);
	v = 0;
	while (catan_vset_has(&s.blocked, v))
		v++;
	assert_true(v < b->nvertices);
	catan_vset_add(&s.blocked, v);
	expect_broken(b, &s, "cached blocked vertices");
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
	expect_broken(b, &s, "cached occupied vertices");
	played(b, &s);
	v = th_vertex(b, 0, 0, "s");
	catan_vset_add(&s.occupied, v);
	expect_broken(b, &s, "cached occupied vertices");
}

static void test_check__winner_without_game_over(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.winner = RED;
	expect_broken(b, &s, "winner set iff game over");
	/* And game over without a winner. */
	played(b, &s);
	s.phase = CATAN_PHASE_OVER;
	expect_broken(b, &s, "winner set iff game over");
}

static void test_check__discard_outside_discard_phase(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	assert_int_equal(s.phase, CATAN_PHASE_MAIN);
	s.discard[BLUE] = 1;
	expect_broken(b, &s, "players owing discards outside discard phase");
}

/* Adds a road of p on edge e with every cache updated as the rules do. */
static void add_road(const catan_board *b, catan_state *s, int p, int e)
{
	catan_player *pl = &s->players[p];

	catan_eset_add(&pl->roads, e);
	catan_eset_add(&s->roads, e);
	catan_vset_add(&pl->reach, b->edge_vertices[e][0]);
	catan_vset_add(&pl->reach, b->edge_vertices[e][1]);
	pl->roads_left--;
	pl->road_length = (uint8_t)catan_state_road_length(b, s, p);
}

/* Moves n knights from the deck to p's played knights. */
static void play_knights(catan_state *s, int p, int n)
{
	s->deck[CATAN_DEV_KNIGHT] = (uint8_t)(s->deck[CATAN_DEV_KNIGHT] - n);
	s->played[CATAN_DEV_KNIGHT] =
	    (uint8_t)(s->played[CATAN_DEV_KNIGHT] + n);
	s->players[p].knights = (uint8_t)(s->players[p].knights + n);
}

static void test_check__player_count(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.opt.nplayers = CATAN_MAX_PLAYERS + 1;
	expect_broken(b, &s, "player count");
	played(b, &s);
	s.opt.nplayers = 1;
	expect_broken(b, &s, "player count");
}

static void test_check__knights_played(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* A knight on the played pile that nobody's army counts. */
	s.deck[CATAN_DEV_KNIGHT]--;
	s.played[CATAN_DEV_KNIGHT]++;
	expect_broken(b, &s, "knights played");
}

static void test_check__victory_point_card_played(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* Victory point cards stay in hand: none is ever played. */
	s.deck[CATAN_DEV_VICTORY_POINT]--;
	s.played[CATAN_DEV_VICTORY_POINT]++;
	expect_broken(b, &s, "victory point cards played");
}

static void test_check__cards_bought_this_turn(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* Red bought more monopolies this turn than it holds. */
	s.bought[CATAN_DEV_MONOPOLY] =
	    (uint8_t)(s.players[RED].devs[CATAN_DEV_MONOPOLY] + 1);
	expect_broken(b, &s, "cards bought this turn");
}

static void test_check__edges_holding_two_roads(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* White also "has" red's road 0,-1,ne (its supply counted). */
	int e = th_edge(b, 0, -1, "ne");
	assert_true(catan_eset_has(&s.players[RED].roads, e));
	catan_eset_add(&s.players[WHITE].roads, e);
	s.players[WHITE].roads_left--;
	expect_broken(b, &s, "edges holding two roads");
}

static void test_check__road_off_the_board(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	assert_true(b->nedges < CATAN_MAX_EDGES);
	catan_eset_add(&s.players[RED].roads, b->nedges);
	catan_eset_add(&s.roads, b->nedges);
	s.players[RED].roads_left--;
	expect_broken(b, &s, "road off the board");
}

static void test_check__road_reach(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	int v = th_vertex(b, 2, -2, "n");
	assert_false(catan_vset_has(&s.players[RED].reach, v));
	catan_vset_add(&s.players[RED].reach, v);
	expect_broken(b, &s, "cached road reach");
}

static void test_check__harbour_bits(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* A harbour red's buildings do not reach. */
	int k = 0;
	while (k < CATAN_HARBOUR_KINDS && (s.players[RED].harbours >> k & 1))
		k++;
	assert_true(k < CATAN_HARBOUR_KINDS);
	s.players[RED].harbours |= (uint8_t)(1u << k);
	expect_broken(b, &s, "harbour access bits");
}

static void test_check__active_player_at_target(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* Red has the points to win, and the game goes on. */
	s.opt.vp_target = (uint8_t)catan_state_vp(&s, RED);
	expect_broken(b, &s, "active player at target but not won");
}

static void test_check__pieces_of_an_empty_seat(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* Seat 5 of a 4-player game holds a road... */
	catan_eset_add(&s.players[4].roads, th_edge(b, 2, -2, "ne"));
	expect_broken(b, &s, "pieces of a seat nobody plays");
	/* ...or a card. */
	played(b, &s);
	s.players[5].ncards = 1;
	expect_broken(b, &s, "pieces of a seat nobody plays");
}

static void test_check__building_cache(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* Red's settlement 0,-1,n cached as a city. */
	int v = th_vertex(b, 0, -1, "n");
	assert_int_equal(s.building[v], RED + 1);
	s.building[v] |= CATAN_CITY_BIT;
	expect_broken(b, &s, "cached building at vertex");
}

static void test_check__road_set_cache(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	int e = th_edge(b, 2, -2, "ne");
	assert_false(catan_eset_has(&s.roads, e));
	catan_eset_add(&s.roads, e);
	expect_broken(b, &s, "cached road set");
}

static void test_check__building_off_the_board(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* A settlement of red on a vertex the board does not have. */
	int v = b->nvertices;
	assert_true(v < CATAN_MAX_VERTICES);
	add_settlement(b, &s, RED, v);
	expect_broken(b, &s, "building off the board");
}

static void test_check__longest_road_unawarded(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* Red extends its road, one edge that lengthens it at a time, to 5. */
	while (s.players[RED].road_length < 5) {
		int before = s.players[RED].road_length, grew = 0;
		for (int e = 0; e < b->nedges && !grew; e++) {
			const uint8_t *ev = b->edge_vertices[e];
			if (catan_eset_has(&s.roads, e) ||
			    (!catan_vset_has(&s.players[RED].reach, ev[0]) &&
			     !catan_vset_has(&s.players[RED].reach, ev[1])))
				continue;
			catan_state keep = s;
			add_road(b, &s, RED, e);
			grew = s.players[RED].road_length > before;
			if (!grew)
				s = keep;
		}
		assert_true(grew);
	}
	assert_int_equal(s.longest_road, CATAN_NONE);
	/* The rules would have awarded it (and its 2 points) by now. */
	expect_broken(b, &s, "longest road unawarded with a unique leader");
	s.longest_road = RED;
	s.players[RED].public_vp += 2;
	th_check(b, &s);
}

static void test_check__largest_army_unawarded(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	play_knights(&s, WHITE, 3);
	expect_broken(b, &s, "largest army unawarded");
	s.largest_army = WHITE;
	s.players[WHITE].public_vp += 2;
	th_check(b, &s);
}

static void test_check__largest_army_outnumbered(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	play_knights(&s, WHITE, 3);
	s.largest_army = WHITE;
	s.players[WHITE].public_vp += 2;
	th_check(b, &s);
	/* Blue played 4 knights and white kept the army. */
	play_knights(&s, BLUE, 4);
	expect_broken(b, &s, "largest army holder outnumbered");
}

static void test_check__phase_range(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.phase = CATAN_PHASE_COUNT;
	expect_broken(b, &s, "phase");
}

static void test_check__active_player_range(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.active = 4; /* of 4 players: 0..3 */
	expect_broken(b, &s, "active player");
}

static void test_check__robber_range(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	s.robber = b->ntiles;
	expect_broken(b, &s, "robber tile");
}

static void test_check__stale_resume(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* A phase to resume while nothing interrupts the turn. */
	assert_int_equal(s.resume, CATAN_PHASE_SETUP);
	s.resume = CATAN_PHASE_MAIN;
	expect_broken(b, &s, "stale resume phase");
}

static void test_check__offer_parties(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* An offer red makes to itself... */
	s.phase = CATAN_PHASE_OFFER;
	s.resume = CATAN_PHASE_MAIN;
	s.offer_from = RED;
	s.offer_to = RED;
	expect_broken(b, &s, "pending offer parties");
	/* ...between two players neither of whom is active... */
	s.offer_from = BLUE;
	s.offer_to = WHITE;
	expect_broken(b, &s, "pending offer parties");
	/* ...to a seat nobody plays. */
	s.offer_from = RED;
	s.offer_to = 4;
	expect_broken(b, &s, "pending offer parties");
	s.offer_to = BLUE;
	th_check(b, &s);
	/* Offer parties left over in the main phase. */
	played(b, &s);
	s.offer_from = RED;
	expect_broken(b, &s, "offer parties outside an offer");
	played(b, &s);
	s.offer_to = BLUE;
	expect_broken(b, &s, "offer parties outside an offer");
}

static void test_check__special_building(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	played(b, &s);
	/* The option needs 5 or 6 players. */
	s.opt.special_build = 1;
	expect_broken(b, &s, "special building option with players");
	/* A special building phase without the option, or its builder. */
	played(b, &s);
	s.phase = CATAN_PHASE_SPECIAL;
	s.builder = BLUE;
	expect_broken(b, &s, "special building phase's builder");
	/* A builder outside it. */
	played(b, &s);
	s.builder = BLUE;
	expect_broken(b, &s, "builder outside a special building phase");
}

static void test_check__setup_settlements(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	th_new_game(b, &s, 4);
	assert_int_equal(s.phase, CATAN_PHASE_SETUP);
	assert_int_equal(s.setup_step, 0);
	/* Red has a settlement before its first placement. */
	add_settlement(b, &s, RED, th_vertex(b, 0, 0, "n"));
	expect_broken(b, &s, "set-up settlements");
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
	    cmocka_unit_test(test_check__player_count),
	    cmocka_unit_test(test_check__knights_played),
	    cmocka_unit_test(test_check__victory_point_card_played),
	    cmocka_unit_test(test_check__cards_bought_this_turn),
	    cmocka_unit_test(test_check__edges_holding_two_roads),
	    cmocka_unit_test(test_check__road_off_the_board),
	    cmocka_unit_test(test_check__road_reach),
	    cmocka_unit_test(test_check__harbour_bits),
	    cmocka_unit_test(test_check__active_player_at_target),
	    cmocka_unit_test(test_check__pieces_of_an_empty_seat),
	    cmocka_unit_test(test_check__building_cache),
	    cmocka_unit_test(test_check__road_set_cache),
	    cmocka_unit_test(test_check__building_off_the_board),
	    cmocka_unit_test(test_check__longest_road_unawarded),
	    cmocka_unit_test(test_check__largest_army_unawarded),
	    cmocka_unit_test(test_check__largest_army_outnumbered),
	    cmocka_unit_test(test_check__phase_range),
	    cmocka_unit_test(test_check__active_player_range),
	    cmocka_unit_test(test_check__robber_range),
	    cmocka_unit_test(test_check__stale_resume),
	    cmocka_unit_test(test_check__offer_parties),
	    cmocka_unit_test(test_check__special_building),
	    cmocka_unit_test(test_check__setup_settlements),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
