/*
 * test_view.c - the click/key -> action mapping of the window, tested
 * without a window (src/ui/view.c): every kind of spot at several window
 * sizes, and, over random games, that a click on the spot of every legal
 * build gives exactly that action while clicks elsewhere give none.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../src/ui/story.h"
#include "catan/view.h"
#include "helpers.h"

static const int sizes[][2] = {{1280, 800}, {800, 600}, {1920, 1080},
			       {640, 400},  {1000, 1000}, {2560, 1440}};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])

static int vx(const catan_view *v, const catan_board *b, int vtx, int *y)
{
	float fx, fy;
	catan_view_vertex_xy(v, b, vtx, &fx, &fy);
	*y = (int)lroundf(fy);
	return (int)lroundf(fx);
}

static int ex(const catan_view *v, const catan_board *b, int e, int *y)
{
	float fx, fy;
	catan_view_edge_xy(v, b, e, &fx, &fy);
	*y = (int)lroundf(fy);
	return (int)lroundf(fx);
}

static int tx(const catan_view *v, const catan_board *b, int t, int *y)
{
	float fx, fy;
	catan_view_hex_xy(v, b->tile_hex[t].q, b->tile_hex[t].r, &fx, &fy);
	*y = (int)lroundf(fy);
	return (int)lroundf(fx);
}

static void click_center(const catan_rect *r, int *x, int *y)
{
	*x = r->x + r->w / 2;
	*y = r->y + r->h / 2;
}

/* Every vertex, edge and tile is hit at its own position, at every size. */
static void test_view__hit_every_spot_at_every_size(void **state)
{
	(void)state;
	catan_board boards[3];
	catan_board_beginner(&boards[0]);
	catan_board_random(&boards[1], 9);
	assert_int_equal(catan_board_init_hexagon(&boards[2], 3), CATAN_OK);
	for (int bi = 0; bi < 3; bi++) {
		const catan_board *b = &boards[bi];
		for (int k = 0; k < NSIZES; k++) {
			catan_view v;
			catan_view_init(&v, b, 0, sizes[k][0], sizes[k][1]);
			int x, y, id;
			for (int i = 0; i < b->nvertices; i++) {
				x = vx(&v, b, i, &y);
				assert_int_equal(catan_view_hit(&v, b, x, y, &id),
						 CATAN_HIT_VERTEX);
				assert_int_equal(id, i);
			}
			for (int e = 0; e < b->nedges; e++) {
				x = ex(&v, b, e, &y);
				assert_int_equal(catan_view_hit(&v, b, x, y, &id),
						 CATAN_HIT_EDGE);
				assert_int_equal(id, e);
			}
			for (int t = 0; t < b->ntiles; t++) {
				x = tx(&v, b, t, &y);
				assert_int_equal(catan_view_hit(&v, b, x, y, &id),
						 CATAN_HIT_TILE);
				assert_int_equal(id, t);
			}
			for (int i = 0; i < CATAN_BTN_COUNT; i++) {
				click_center(&v.button[i], &x, &y);
				assert_int_equal(catan_view_hit(&v, b, x, y, &id),
						 CATAN_HIT_BUTTON);
				assert_int_equal(id, i);
			}
			/* The board fits its area; nothing overlaps the panel. */
			for (int i = 0; i < b->nvertices; i++) {
				x = vx(&v, b, i, &y);
				assert_true(catan_rect_has(&v.board_area, x, y));
			}
			/* The panel and the sea are not spots. */
			assert_int_equal(catan_view_hit(&v, b, v.panel.x + 5, 5, &id),
					 CATAN_HIT_NONE);
			assert_int_equal(catan_view_hit(&v, b, 1, 1, &id),
					 CATAN_HIT_NONE);
		}
	}
}

/* Set-up: a corner, then a side next to it, is one setup action. */
static void test_view__setup_takes_corner_then_side(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 4);
	for (int k = 0; k < NSIZES; k++) {
		catan_view v;
		catan_view_init(&v, &b, RED, sizes[k][0], sizes[k][1]);
		catan_action a, want = th_action(&b, "setup 0,-1,n 0,-1,nw");
		char why[128];
		int x, y;
		/* A side first: not yet. */
		x = ex(&v, &b, want.edge, &y);
		assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why,
						  sizeof why),
				 CATAN_VIEW_NOTHING);
		assert_true(strstr(why, "corner") != NULL);
		x = vx(&v, &b, want.vertex, &y);
		assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why,
						  sizeof why),
				 CATAN_VIEW_CHANGED);
		assert_int_equal(v.pick_vertex, want.vertex);
		/* A side not touching the settlement is refused with the reason. */
		int far = th_edge(&b, 1, 1, "ne");
		x = ex(&v, &b, far, &y);
		assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why,
						  sizeof why),
				 CATAN_VIEW_NOTHING);
		assert_true(why[0] != '\0');
		x = ex(&v, &b, want.edge, &y);
		assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why,
						  sizeof why),
				 CATAN_VIEW_ACT);
		assert_memory_equal(&a, &want, sizeof a);
		assert_int_equal(v.pick_vertex, CATAN_NONE);
	}
}

/* A corner the distance rule forbids is explained, never selected. */
static void test_view__setup_distance_rule_explained(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 4);
	th_do(&b, &s, RED, "setup 0,-1,n 0,-1,nw");
	catan_view v;
	catan_view_init(&v, &b, BLUE, 1280, 800);
	catan_action a;
	memset(&a, 0x5a, sizeof a);
	catan_action before = a;
	char why[128];
	int x, y;
	x = vx(&v, &b, th_vertex(&b, 0, -1, "ne"), &y);
	assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
			 CATAN_VIEW_NOTHING);
	assert_string_equal(why, catan_error_str(CATAN_E_DISTANCE_RULE));
	assert_memory_equal(&a, &before, sizeof a);
	/* The wrong player's click does nothing. */
	catan_view_init(&v, &b, WHITE, 1280, 800);
	x = vx(&v, &b, th_vertex(&b, 1, 1, "s"), &y);
	assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
			 CATAN_VIEW_NOTHING);
	assert_string_equal(why, "it is not your turn");
}

/* Collects the legal actions of `actor` of one kind. */
static int legal_of(catan_action *out, int cap, const catan_board *b,
		    const catan_state *s, int actor, int kind)
{
	static catan_action buf[8192];
	int n = catan_legal_actions(buf, 8192, b, s, actor, CATAN_LEGAL_NO_OFFERS);
	assert_true(n <= 8192);
	int m = 0;
	for (int i = 0; i < n && m < cap; i++)
		if (buf[i].kind == kind)
			out[m++] = buf[i];
	return m;
}

/*
 * Over random games: in every state of the main phase, clicking the spot of
 * each legal road, settlement and city gives exactly that action, and
 * clicking any other corner or side gives nothing; the highlighted targets
 * are exactly the legal spots.
 */
static void test_view__builds_match_legal_actions(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	catan_rng rng;
	catan_rng_seed(&rng, 77);
	int checked = 0;
	for (int game = 0; game < 6; game++) {
		th_new_game(&b, &s, 2 + game % 3);
		catan_view v;
		catan_view_init(&v, &b, 0, sizes[game % NSIZES][0],
				sizes[game % NSIZES][1]);
		for (int step = 0; step < 4000 && s.phase != CATAN_PHASE_OVER;
		     step++) {
			int actor = catan_state_next_actor(&s);
			if (s.phase == CATAN_PHASE_MAIN && step % 7 == 0) {
				v.actor = actor;
				catan_action roads[128], setts[64], cities[64];
				int nr = legal_of(roads, 128, &b, &s, actor,
						  CATAN_ACT_BUILD_ROAD);
				int ns = legal_of(setts, 64, &b, &s, actor,
						  CATAN_ACT_BUILD_SETTLEMENT);
				int nc = legal_of(cities, 64, &b, &s, actor,
						  CATAN_ACT_BUILD_CITY);
				catan_vset tv;
				catan_eset te;
				bool tt[CATAN_MAX_TILES];
				catan_view_targets(&v, &b, &s, &tv, &te, tt);
				assert_int_equal(catan_eset_count(&te), nr);
				assert_int_equal(catan_vset_count(&tv), ns + nc);
				bool legal_e[CATAN_MAX_EDGES] = {0};
				bool legal_v[CATAN_MAX_VERTICES] = {0};
				for (int i = 0; i < nr; i++)
					legal_e[roads[i].edge] = true;
				for (int i = 0; i < ns; i++)
					legal_v[setts[i].vertex] = true;
				for (int i = 0; i < nc; i++)
					legal_v[cities[i].vertex] = true;
				for (int e = 0; e < b.nedges; e++) {
					catan_action a;
					int x, y;
					x = ex(&v, &b, e, &y);
					int r = catan_view_click(&a, &v, &b, &s, x,
								 y, NULL, 0);
					assert_int_equal(r, legal_e[e]
								    ? CATAN_VIEW_ACT
								    : CATAN_VIEW_NOTHING);
					if (legal_e[e]) {
						assert_int_equal(a.kind, CATAN_ACT_BUILD_ROAD);
						assert_int_equal(a.edge, e);
						checked++;
					}
				}
				for (int i = 0; i < b.nvertices; i++) {
					catan_action a;
					int x, y;
					x = vx(&v, &b, i, &y);
					int r = catan_view_click(&a, &v, &b, &s, x,
								 y, NULL, 0);
					assert_int_equal(r, legal_v[i]
								    ? CATAN_VIEW_ACT
								    : CATAN_VIEW_NOTHING);
					if (legal_v[i]) {
						assert_int_equal(a.vertex, i);
						assert_true(a.kind == CATAN_ACT_BUILD_SETTLEMENT ||
							    a.kind == CATAN_ACT_BUILD_CITY);
						checked++;
					}
				}
			}
			catan_action a;
			assert_int_equal(catan_bot_choose(&a, CATAN_BOT_GREEDY, &b, &s,
							  actor, &rng,
							  CATAN_LEGAL_NO_OFFERS),
					 CATAN_OK);
			assert_int_equal(catan_state_apply(&s, &b, &s, actor, &a, NULL),
					 CATAN_OK);
		}
	}
	assert_true(checked > 50);
}

/*
 * The robber: a click on a tile with one possible victim is the whole
 * action; with several, a dialog asks whom; the result is always legal.
 */
static void test_view__robber_tile_then_victim(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 4);
	th_play_setup(&b, &s);
	for (int p = 0; p < 4; p++)
		th_give(&s, p, 1, 1, 0, 0, 0);
	th_roll(&b, &s, 3, 4);
	assert_int_equal(s.phase, CATAN_PHASE_ROBBER);
	int actor = s.active;
	catan_view v;
	catan_view_init(&v, &b, actor, 1280, 800);
	int singles = 0, multis = 0;
	for (int t = 0; t < b.ntiles; t++) {
		catan_action a;
		char why[128];
		int x, y;
		x = tx(&v, &b, t, &y);
		int r = catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why);
		if (t == s.robber) {
			assert_int_equal(r, CATAN_VIEW_NOTHING);
			assert_string_equal(why,
					    catan_error_str(CATAN_E_ROBBER_SAME_TILE));
			continue;
		}
		catan_state out;
		if (r == CATAN_VIEW_ACT) {
			singles++;
			assert_int_equal(a.tile, t);
			assert_int_equal(catan_state_apply(&out, &b, &s, actor, &a, NULL),
					 CATAN_OK);
			continue;
		}
		assert_int_equal(r, CATAN_VIEW_CHANGED);
		assert_int_equal(v.dialog, CATAN_DLG_VICTIM);
		multis++;
		/* OK without a choice explains; then every offered victim works. */
		int cx, cy;
		click_center(&v.control[CATAN_DLG_OK], &cx, &cy);
		assert_int_equal(catan_view_click(&a, &v, &b, &s, cx, cy, why, sizeof why),
				 CATAN_VIEW_NOTHING);
		assert_true(why[0] != '\0');
		int chosen = -1;
		for (int p = 0; p < 4 && chosen < 0; p++) {
			if (p == actor)
				continue;
			catan_view w = v;
			click_center(&w.control[CATAN_DLG_PLAYER + p], &cx, &cy);
			catan_view_click(&a, &w, &b, &s, cx, cy, why, sizeof why);
			click_center(&w.control[CATAN_DLG_OK], &cx, &cy);
			if (catan_view_click(&a, &w, &b, &s, cx, cy, why, sizeof why) ==
			    CATAN_VIEW_ACT) {
				chosen = p;
				assert_int_equal(a.player, p);
				assert_int_equal(a.tile, t);
				assert_int_equal(w.dialog, CATAN_DLG_NONE);
			}
		}
		assert_true(chosen >= 0);
		/* Esc closes the dialog. */
		assert_int_equal(catan_view_key(&a, &v, &b, &s, 27, NULL, 0),
				 CATAN_VIEW_CHANGED);
		assert_int_equal(v.dialog, CATAN_DLG_NONE);
	}
	assert_true(singles > 0);
	assert_true(multis > 0);
}

/* Buttons and keys: roll, end, buy; disabled buttons explain. */
static void test_view__buttons_and_keys(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 3);
	th_play_setup(&b, &s);
	catan_view v;
	catan_view_init(&v, &b, s.active, 1024, 700);
	unsigned on = catan_view_buttons(&v, &b, &s);
	assert_int_equal(on, 1u << CATAN_BTN_ROLL);
	catan_action a;
	char why[128];
	int x, y;
	click_center(&v.button[CATAN_BTN_END], &x, &y);
	assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
			 CATAN_VIEW_NOTHING);
	assert_string_equal(why, "that is not possible now");
	click_center(&v.button[CATAN_BTN_ROLL], &x, &y);
	assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
			 CATAN_VIEW_ACT);
	assert_int_equal(a.kind, CATAN_ACT_ROLL);
	assert_int_equal(catan_view_key(&a, &v, &b, &s, 'r', why, sizeof why),
			 CATAN_VIEW_ACT);
	assert_int_equal(a.kind, CATAN_ACT_ROLL);
	/* After a roll that is not a 7: end turn and buying. */
	th_roll(&b, &s, 2, 3);
	th_give(&s, s.active, 0, 0, 1, 1, 1);
	on = catan_view_buttons(&v, &b, &s);
	assert_true(on >> CATAN_BTN_END & 1u);
	assert_true(on >> CATAN_BTN_BUY & 1u);
	assert_false(on >> CATAN_BTN_ROLL & 1u);
	assert_int_equal(catan_view_key(&a, &v, &b, &s, 'b', why, sizeof why),
			 CATAN_VIEW_ACT);
	assert_int_equal(a.kind, CATAN_ACT_BUY_DEV);
	assert_int_equal(catan_view_key(&a, &v, &b, &s, 'e', why, sizeof why),
			 CATAN_VIEW_ACT);
	assert_int_equal(a.kind, CATAN_ACT_END);
	/* Another player's window: nothing is enabled. */
	catan_view other = v;
	other.actor = (s.active + 1) % 3;
	assert_int_equal(catan_view_buttons(&other, &b, &s), 0);
	assert_int_equal(catan_view_key(&a, &other, &b, &s, 'e', why, sizeof why),
			 CATAN_VIEW_NOTHING);
	assert_string_equal(why, "it is not your turn");
	/* A watching window (no player) never acts. */
	other.actor = CATAN_NONE;
	assert_int_equal(catan_view_key(&a, &other, &b, &s, 'e', why, sizeof why),
			 CATAN_VIEW_NOTHING);
	/* 'c' toggles coordinates. */
	assert_int_equal(catan_view_key(&a, &v, &b, &s, 'c', NULL, 0),
			 CATAN_VIEW_CHANGED);
	assert_true(v.coords);
}

/* Dialogs: discard exactly the owed count; a bank trade; an offer. */
static void test_view__dialogs_build_legal_actions(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 2);
	th_play_setup(&b, &s);
	int p = s.active, o = 1 - p;
	th_clear_hand(&s, o);
	th_give(&s, o, 3, 3, 2, 0, 0); /* 8 cards: owes 4 */
	th_roll(&b, &s, 3, 4);
	assert_int_equal(s.phase, CATAN_PHASE_DISCARD);
	assert_int_equal(s.discard[o], 4);
	catan_view v;
	catan_view_init(&v, &b, o, 1280, 800);
	catan_action a;
	char why[128];
	int x, y;
	assert_int_equal(catan_view_key(&a, &v, &b, &s, 'd', why, sizeof why),
			 CATAN_VIEW_CHANGED);
	assert_int_equal(v.dialog, CATAN_DLG_DISCARD);
	/* Three lumber: too few, OK refuses with the rules' reason. */
	for (int i = 0; i < 3; i++) {
		click_center(&v.control[CATAN_DLG_GIVE_PLUS + CATAN_LUMBER], &x, &y);
		assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
				 CATAN_VIEW_CHANGED);
	}
	/* A fourth lumber is more than the hand holds. */
	click_center(&v.control[CATAN_DLG_GIVE_PLUS + CATAN_LUMBER], &x, &y);
	assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
			 CATAN_VIEW_NOTHING);
	assert_int_equal(catan_view_key(&a, &v, &b, &s, '\r', why, sizeof why),
			 CATAN_VIEW_NOTHING);
	assert_string_equal(why, catan_error_str(CATAN_E_DISCARD_COUNT));
	click_center(&v.control[CATAN_DLG_GIVE_PLUS + CATAN_WOOL], &x, &y);
	catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why);
	click_center(&v.control[CATAN_DLG_OK], &x, &y);
	assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
			 CATAN_VIEW_ACT);
	catan_action want = th_action(&b, "discard lumber:3 wool:1");
	assert_memory_equal(&a, &want, sizeof a);
	assert_int_equal(v.dialog, CATAN_DLG_NONE);

	/* Bank trade at 4:1 in the main phase. */
	th_new_game(&b, &s, 2);
	th_play_setup(&b, &s);
	th_roll(&b, &s, 2, 3);
	p = s.active;
	th_clear_hand(&s, p);
	th_give(&s, p, 0, 0, 0, 4, 0);
	catan_view_init(&v, &b, p, 1280, 800);
	assert_int_equal(catan_view_key(&a, &v, &b, &s, 't', why, sizeof why),
			 CATAN_VIEW_CHANGED);
	for (int i = 0; i < 4; i++) {
		click_center(&v.control[CATAN_DLG_GIVE_PLUS + CATAN_GRAIN], &x, &y);
		catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why);
	}
	click_center(&v.control[CATAN_DLG_GET_PLUS + CATAN_ORE], &x, &y);
	catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why);
	/* Choosing another resource to get replaces the first choice. */
	click_center(&v.control[CATAN_DLG_GET_PLUS + CATAN_BRICK], &x, &y);
	catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why);
	assert_int_equal(catan_view_key(&a, &v, &b, &s, '\r', why, sizeof why),
			 CATAN_VIEW_ACT);
	want = th_action(&b, "trade bank grain:4 brick");
	assert_memory_equal(&a, &want, sizeof a);

	/* A domestic offer to the other player. */
	th_give(&s, p, 0, 0, 1, 0, 0);
	th_give(&s, 1 - p, 0, 1, 0, 0, 0);
	assert_int_equal(catan_view_key(&a, &v, &b, &s, 'f', why, sizeof why),
			 CATAN_VIEW_CHANGED);
	click_center(&v.control[CATAN_DLG_GIVE_PLUS + CATAN_WOOL], &x, &y);
	catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why);
	click_center(&v.control[CATAN_DLG_GET_PLUS + CATAN_BRICK], &x, &y);
	catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why);
	click_center(&v.control[CATAN_DLG_PLAYER + (1 - p)], &x, &y);
	catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why);
	click_center(&v.control[CATAN_DLG_OK], &x, &y);
	assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
			 CATAN_VIEW_ACT);
	assert_int_equal(a.kind, CATAN_ACT_TRADE_OFFER);
	assert_int_equal(a.player, 1 - p);
	assert_int_equal(a.give[CATAN_WOOL], 1);
	assert_int_equal(a.get[CATAN_BRICK], 1);
	/* The target answers with the Accept button. */
	assert_int_equal(catan_state_apply(&s, &b, &s, p, &a, NULL), CATAN_OK);
	catan_view t;
	catan_view_init(&t, &b, 1 - p, 1280, 800);
	assert_true(catan_view_buttons(&t, &b, &s) >> CATAN_BTN_ACCEPT & 1u);
	click_center(&t.button[CATAN_BTN_ACCEPT], &x, &y);
	assert_int_equal(catan_view_click(&a, &t, &b, &s, x, y, why, sizeof why),
			 CATAN_VIEW_ACT);
	assert_int_equal(a.kind, CATAN_ACT_TRADE_ACCEPT);
}

/* Year of plenty: the button is on while the bank holds two cards (the
 * two-card form is the only legal one then), and the dialog takes two. */
static void test_view__year_of_plenty_two_cards(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 2);
	th_play_setup(&b, &s);
	th_roll(&b, &s, 2, 3);
	int p = s.active;
	th_give_dev(&s, p, CATAN_DEV_YEAR_OF_PLENTY);
	catan_view v;
	catan_view_init(&v, &b, p, 1024, 640);
	catan_action a;
	char why[128];
	int x, y;
	assert_true(catan_view_buttons(&v, &b, &s) >> CATAN_BTN_PLENTY & 1u);
	click_center(&v.button[CATAN_BTN_PLENTY], &x, &y);
	assert_int_equal(
	    catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
	    CATAN_VIEW_CHANGED);
	assert_int_equal(v.dialog, CATAN_DLG_PLENTY);
	click_center(&v.control[CATAN_DLG_GET_PLUS + CATAN_GRAIN], &x, &y);
	catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why);
	/* One card while the bank holds more is refused, with the reason. */
	assert_int_equal(catan_view_key(&a, &v, &b, &s, '\r', why, sizeof why),
			 CATAN_VIEW_NOTHING);
	assert_string_equal(why, catan_error_str(CATAN_E_TOO_FEW));
	click_center(&v.control[CATAN_DLG_GET_PLUS + CATAN_ORE], &x, &y);
	catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why);
	click_center(&v.control[CATAN_DLG_OK], &x, &y);
	assert_int_equal(
	    catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
	    CATAN_VIEW_ACT);
	catan_action want = th_action(&b, "play year-of-plenty grain ore");
	assert_memory_equal(&a, &want, sizeof a);
}

/* The log in plain words: a bot's 7 and the card it stole, told to the
 * victim with the card, to a third player without it. */
static void test_view__story_of_a_seven(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 3);
	th_play_setup(&b, &s);
	for (int p = 0; p < 3; p++) {
		th_clear_hand(&s, p);
		th_give(&s, p, 1, 0, 0, 0, 0);
	}
	int bot = s.active, me = (bot + 1) % 3, third = (bot + 2) % 3;
	catan_names names;
	catan_names_default(&names, 3);
	ui_event e;
	memset(&e, 0, sizeof e);
	e.actor = bot;
	e.has_action = e.has_outcome = true;
	catan_action_init(&e.action, CATAN_ACT_ROLL);
	e.action.dice[0] = 3;
	e.action.dice[1] = 4;
	catan_state before = s;
	th_roll(&b, &s, 3, 4);
	e.after = s;
	char out[UI_STORY_MAX][UI_STORY_LINE], want[UI_STORY_LINE];
	int n = ui_story(out, &b, &names, &before, &e, me, false);
	assert_true(n >= 1);
	snprintf(want, sizeof want, "%c%s rolled 3+4 = 7",
		 names.name[bot][0] - 32, names.name[bot] + 1);
	assert_string_equal(out[0], want);
	/* The robber onto a tile of mine, robbing me. */
	int mv = 0;
	while (!catan_vset_has(&s.players[me].settlements, mv))
		mv++;
	int t = b.vertex_tiles[mv][0];
	for (int k = 0; k < 3 && (t == CATAN_NONE || t == s.robber); k++)
		t = b.vertex_tiles[mv][k];
	catan_action_init(&e.action, CATAN_ACT_ROBBER);
	e.action.tile = (uint8_t)t;
	e.action.player = (uint8_t)me;
	before = s;
	assert_int_equal(catan_state_apply(&e.after, &b, &before, bot,
					   &e.action, &e.outcome),
			 CATAN_OK);
	n = ui_story(out, &b, &names, &before, &e, me, false);
	assert_int_equal(n, 2);
	snprintf(want, sizeof want, "%c%s stole a card from you: lumber",
		 names.name[bot][0] - 32, names.name[bot] + 1);
	assert_string_equal(out[1], want);
	n = ui_story(out, &b, &names, &before, &e, third, false);
	snprintf(want, sizeof want, "%c%s stole a card from %s",
		 names.name[bot][0] - 32, names.name[bot] + 1, names.name[me]);
	assert_string_equal(out[1], want);
	n = ui_story(out, &b, &names, &before, &e, bot, false);
	snprintf(want, sizeof want, "You stole lumber from %s", names.name[me]);
	assert_string_equal(out[1], want);
}

/* Discards and monopolies: the cards of a discard only to its owner; what
 * a monopoly took from you, to you. */
static void test_view__story_private_details(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 3);
	th_play_setup(&b, &s);
	int p = s.active, me = (p + 1) % 3, third = (p + 2) % 3;
	catan_names names;
	catan_names_default(&names, 3);
	char out[UI_STORY_MAX][UI_STORY_LINE], want[UI_STORY_LINE];
	ui_event e;
	memset(&e, 0, sizeof e);
	/* me owes a discard of 4 (a hand of 8, then a 7). */
	th_clear_hand(&s, me);
	th_give(&s, me, 4, 4, 0, 0, 0);
	th_roll(&b, &s, 3, 4);
	catan_state before = s;
	e.actor = me;
	e.has_action = true;
	e.action = th_action(&b, "discard lumber:2 brick:2");
	assert_int_equal(
	    catan_state_apply(&e.after, &b, &before, me, &e.action, &e.outcome),
	    CATAN_OK);
	ui_story(out, &b, &names, &before, &e, me, false);
	assert_string_equal(out[0], "You discarded 2 lumber, 2 brick");
	ui_story(out, &b, &names, &before, &e, third, false);
	snprintf(want, sizeof want, "%c%s discarded 4 cards",
		 names.name[me][0] - 32, names.name[me] + 1);
	assert_string_equal(out[0], want);
	/* A monopoly on wool by p, 3 of them mine. */
	th_new_game(&b, &s, 3);
	th_play_setup(&b, &s);
	th_roll(&b, &s, 2, 3);
	p = s.active;
	me = (p + 1) % 3;
	third = (p + 2) % 3;
	th_give_dev(&s, p, CATAN_DEV_MONOPOLY);
	th_clear_hand(&s, me);
	th_clear_hand(&s, third);
	th_give(&s, me, 0, 0, 3, 0, 0);
	th_give(&s, third, 0, 0, 1, 0, 0);
	before = s;
	e.actor = p;
	e.action = th_action(&b, "play monopoly wool");
	assert_int_equal(
	    catan_state_apply(&e.after, &b, &before, p, &e.action, &e.outcome),
	    CATAN_OK);
	ui_story(out, &b, &names, &before, &e, me, false);
	snprintf(want, sizeof want,
		 "%c%s played Monopoly on wool: took 4 (3 of them from you)",
		 names.name[p][0] - 32, names.name[p] + 1);
	assert_string_equal(out[0], want);
}

/* Road building: two sides, each legal, make one card play. */
static void test_view__road_building_two_clicks(void **state)
{
	(void)state;
	catan_board b;
	catan_state s;
	th_new_game(&b, &s, 2);
	th_play_setup(&b, &s);
	th_roll(&b, &s, 2, 3);
	int p = s.active;
	th_give_dev(&s, p, CATAN_DEV_ROAD_BUILDING);
	catan_view v;
	catan_view_init(&v, &b, p, 1280, 800);
	catan_action a;
	char why[128];
	assert_int_equal(catan_view_key(&a, &v, &b, &s, 'o', why, sizeof why),
			 CATAN_VIEW_CHANGED);
	assert_int_equal(v.mode, CATAN_MODE_ROADS);
	catan_vset tv;
	catan_eset te;
	bool tt[CATAN_MAX_TILES];
	catan_view_targets(&v, &b, &s, &tv, &te, tt);
	assert_true(catan_eset_count(&te) > 0);
	int first = -1;
	CATAN_FOR_BITS(e, te.w, CATAN_EWORDS)
	{
		if (first < 0)
			first = e;
	}
	int x, y;
	x = ex(&v, &b, first, &y);
	assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
			 CATAN_VIEW_CHANGED);
	catan_view_targets(&v, &b, &s, &tv, &te, tt);
	int second = -1;
	CATAN_FOR_BITS(e, te.w, CATAN_EWORDS)
	{
		if (second < 0)
			second = e;
	}
	assert_true(second >= 0);
	x = ex(&v, &b, second, &y);
	assert_int_equal(catan_view_click(&a, &v, &b, &s, x, y, why, sizeof why),
			 CATAN_VIEW_ACT);
	assert_int_equal(a.kind, CATAN_ACT_PLAY_ROAD_BUILDING);
	catan_state out;
	assert_int_equal(catan_state_apply(&out, &b, &s, p, &a, NULL), CATAN_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_view__hit_every_spot_at_every_size),
	    cmocka_unit_test(test_view__setup_takes_corner_then_side),
	    cmocka_unit_test(test_view__setup_distance_rule_explained),
	    cmocka_unit_test(test_view__builds_match_legal_actions),
	    cmocka_unit_test(test_view__robber_tile_then_victim),
	    cmocka_unit_test(test_view__buttons_and_keys),
	    cmocka_unit_test(test_view__dialogs_build_legal_actions),
	    cmocka_unit_test(test_view__road_building_two_clicks),
	    cmocka_unit_test(test_view__year_of_plenty_two_cards),
	    cmocka_unit_test(test_view__story_of_a_seven),
	    cmocka_unit_test(test_view__story_private_details),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
