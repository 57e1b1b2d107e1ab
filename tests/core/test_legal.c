/*
 * test_legal.c - catan_legal_actions() against catan_state_apply().
 *
 * From many states reached by random play (every player count, both phase
 * styles, both dice modes, with and without domestic offers and offer
 * limits) the enumeration must be sound (everything listed applies and
 * leaves a valid state), complete (every action that applies is listed,
 * except domestic offers that are not 1:1) and well behaved as an output
 * buffer (snprintf-style count, nothing written past cap, no duplicates).
 * Perft-style counts from fixed positions pin the numbers down.
 */
#include "helpers.h"

#include "catan/boardgen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Entries of guard region past the end of every buffer. */
#define GUARD	   16
#define GUARD_BYTE 0xa5

/* ---- small tools ---- */

static int cmp_action(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(catan_action));
}

static bool is_guard(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != GUARD_BYTE)
			return false;
	return true;
}

static const char *kind_name(int k)
{
	static const char *const names[] = {
	    "setup",	  "roll",	   "discard",	     "robber",
	    "road",	  "settlement",	   "city",	     "buy",
	    "knight",	  "road-building", "year-of-plenty", "monopoly",
	    "trade-bank", "offer",	   "accept",	     "reject",
	    "end-trade",  "end",	   "reveal",	     "expel"};
	return k >= 0 && k < CATAN_ACT_COUNT ? names[k] : "?";
}

static void describe(char *buf, size_t size, const catan_board *b,
		     const catan_action *a)
{
	int n = 0;

	if (a->kind < CATAN_ACT_COUNT)
		n = catan_action_format(buf, size, b, NULL, a);
	if (n <= 0 || (size_t)n >= size || a->kind >= CATAN_ACT_COUNT)
		snprintf(buf, size,
			 "kind %d v %d e %d e2 %d t %d p %d r %d r2 %d c %d "
			 "d %d dice %d,%d give %d%d%d%d%d get %d%d%d%d%d",
			 a->kind, a->vertex, a->edge, a->edge2, a->tile,
			 a->player, a->res, a->res2, a->count, a->dev,
			 a->dice[0], a->dice[1], a->give[0], a->give[1],
			 a->give[2], a->give[3], a->give[4], a->get[0],
			 a->get[1], a->get[2], a->get[3], a->get[4]);
}

static const char *phase_name(int ph)
{
	static const char *const names[] = {
	    "setup", "roll",  "discard", "robber",  "main",  "trade",
	    "build", "offer", "over",	 "special", "reveal"};
	return ph >= 0 && ph < CATAN_PHASE_COUNT ? names[ph] : "?";
}

/*
 * Statistics over the whole run, to show the random play reached what it
 * was meant to reach (printed by the main test, and asserted on).
 */
typedef struct stats {
	long states, heavy, probes, probes_ok, listed;
	long phase[CATAN_PHASE_COUNT];
	long kind_ok[CATAN_ACT_COUNT];
	long winners;
	/* Actions that apply but are not listed, per kind: count, example. */
	long missing[CATAN_ACT_COUNT];
	char missing_example[CATAN_ACT_COUNT][200];
} stats;

static stats g_stats;

/* ---- the checks on one state ---- */

/*
 * The legal list of `actor`, and a sorted copy for lookups. Two static
 * slots (no allocation, so a failing test leaks nothing).
 */
#define MAX_LEGAL 200000
typedef struct legal_list {
	catan_action *a;
	catan_action *sorted;
	int n;
} legal_list;

static catan_action g_pool[2][2][MAX_LEGAL + GUARD];

/*
 * Fills l with the legal actions, checking the buffer contract: the count
 * does not depend on cap, exactly min(n, cap) entries are written (the
 * same prefix every time) and nothing after them.
 */
static void get_legal(legal_list *l, int slot, const catan_board *b,
		      const catan_state *s, int actor, unsigned flags)
{
	int n = catan_legal_actions(NULL, 0, b, s, actor, flags);
	assert_true(n >= 0 && n <= MAX_LEGAL);
	size_t bytes = (size_t)(n + GUARD) * sizeof(catan_action);
	l->a = g_pool[slot][0];
	l->sorted = g_pool[slot][1];
	l->n = n;
	memset(l->a, GUARD_BYTE, bytes);
	assert_int_equal(catan_legal_actions(l->a, n, b, s, actor, flags), n);
	assert_true(is_guard(l->a + n, GUARD * sizeof(catan_action)));

	int caps[5] = {0, 1, n / 2, n - 1, n + GUARD / 2};
	for (int i = 0; i < 5; i++) {
		int cap = caps[i];
		if (cap < 0)
			continue;
		memset(l->sorted, GUARD_BYTE, bytes);
		assert_int_equal(
		    catan_legal_actions(l->sorted, cap, b, s, actor, flags), n);
		int w = cap < n ? cap : n;
		assert_memory_equal(l->sorted, l->a,
				    (size_t)w * sizeof(catan_action));
		assert_true(is_guard(l->sorted + w, (size_t)(n + GUARD - w) *
							sizeof(catan_action)));
	}
	/* A negative cap writes nothing either. */
	memset(l->sorted, GUARD_BYTE, bytes);
	assert_int_equal(catan_legal_actions(l->sorted, -5, b, s, actor, flags),
			 n);
	assert_true(is_guard(l->sorted, bytes));

	/* Sorted copy; no two entries equal. */
	memcpy(l->sorted, l->a, (size_t)n * sizeof(catan_action));
	qsort(l->sorted, (size_t)n, sizeof(catan_action), cmp_action);
	for (int i = 1; i < n; i++)
		if (!memcmp(&l->sorted[i - 1], &l->sorted[i],
			    sizeof(catan_action))) {
			char t[160];
			describe(t, sizeof t, b, &l->sorted[i]);
			fail_msg("duplicate legal action \"%s\"", t);
		}
}

static bool listed(const legal_list *l, const catan_action *a)
{
	return bsearch(a, l->sorted, (size_t)l->n, sizeof(catan_action),
		       cmp_action) != NULL;
}

/*
 * Every listed action applies, in place or not, to a valid state, and
 * catan_state_apply_legal() gives the same state and outcome.
 */
static void check_sound(const catan_board *b, const catan_state *s, int actor,
			const legal_list *l, catan_rng *rng, int limit)
{
	int n = l->n, step = 1;

	if (n > limit)
		step = n / limit + 1;
	for (int i = (int)catan_rng_below(rng, (uint32_t)step); i < n;
	     i += step) {
		const catan_action *a = &l->a[i];
		catan_state out, inplace = *s;
		char why[256], t[160];
		int rc = catan_state_apply(&out, b, s, actor, a, NULL);
		if (rc != CATAN_OK) {
			describe(t, sizeof t, b, a);
			fail_msg("listed \"%s\" by %d in %s rejected: %s", t,
				 actor, phase_name(s->phase),
				 catan_error_str(rc));
		}
		if (catan_state_check(b, &out, why, sizeof why) != CATAN_OK) {
			describe(t, sizeof t, b, a);
			fail_msg("\"%s\" by %d in %s breaks: %s", t, actor,
				 phase_name(s->phase), why);
		}
		assert_int_equal(
		    catan_state_apply(&inplace, b, &inplace, actor, a, NULL),
		    CATAN_OK);
		assert_memory_equal(&inplace, &out, sizeof out);
		/* Applied as known legal: the same state and outcome. */
		catan_state fast, with_oc;
		catan_outcome want_oc, got_oc;
		assert_int_equal(
		    catan_state_apply(&with_oc, b, s, actor, a, &want_oc),
		    CATAN_OK);
		assert_int_equal(
		    catan_state_apply_legal(&fast, b, s, actor, a, &got_oc),
		    CATAN_OK);
		assert_memory_equal(&fast, &out, sizeof out);
		assert_memory_equal(&got_oc, &want_oc, sizeof got_oc);
		fast = *s;
		assert_int_equal(
		    catan_state_apply_legal(&fast, b, &fast, actor, a, NULL),
		    CATAN_OK);
		assert_memory_equal(&fast, &out, sizeof out);
		g_stats.kind_ok[a->kind]++;
	}
}

/*
 * Applies probe `a`: if it applies it must be listed (unless it is a
 * domestic offer that is not 1:1); if not, neither `out` nor the state
 * applied in place may change.
 */
static void probe(const catan_board *b, const catan_state *s, int actor,
		  const legal_list *l, const catan_action *a)
{
	catan_state out, inplace = *s;
	char t[160];

	memset(&out, GUARD_BYTE, sizeof out);
	int rc = catan_state_apply(&out, b, s, actor, a, NULL);
	int rc2 = catan_state_apply(&inplace, b, &inplace, actor, a, NULL);
	g_stats.probes++;
	if (rc != rc2) {
		describe(t, sizeof t, b, a);
		fail_msg("\"%s\": %d out of place, %d in place", t, rc, rc2);
	}
	if (rc == CATAN_OK) {
		g_stats.probes_ok++;
		assert_memory_equal(&inplace, &out, sizeof out);
		if (a->kind == CATAN_ACT_TRADE_OFFER &&
		    (a->give[0] + a->give[1] + a->give[2] + a->give[3] +
			     a->give[4] !=
			 1 ||
		     a->get[0] + a->get[1] + a->get[2] + a->get[3] +
			     a->get[4] !=
			 1))
			return;
		if (!listed(l, a)) {
			/* Collected: one example per kind fails the test at
			 * the end, after every other check has had its say. */
			if (!g_stats.missing[a->kind]++) {
				describe(t, sizeof t, b, a);
				snprintf(g_stats.missing_example[a->kind],
					 sizeof g_stats.missing_example[0],
					 "\"%s\" by %d in %s", t, actor,
					 phase_name(s->phase));
			}
		}
		return;
	}
	if (!is_guard(&out, sizeof out)) {
		describe(t, sizeof t, b, a);
		fail_msg("rejected \"%s\" (%s) wrote its output", t,
			 catan_error_str(rc));
	}
	if (memcmp(&inplace, s, sizeof *s)) {
		describe(t, sizeof t, b, a);
		fail_msg("rejected \"%s\" (%s) changed the state in place", t,
			 catan_error_str(rc));
	}
}

/* A random id: usually valid, sometimes just past the end, or NONE. */
static uint8_t rand_id(catan_rng *rng, int n)
{
	uint32_t k = catan_rng_below(rng, 16);

	if (k == 0)
		return CATAN_NONE;
	if (k == 1)
		return (uint8_t)(n + (int)catan_rng_below(rng, 3));
	return (uint8_t)catan_rng_below(rng, (uint32_t)n);
}

/* A random action of a random kind, fields set only where the kind uses
 * them (as catan_action_init leaves the rest, so memcmp is meaningful). */
static void random_action(catan_action *a, const catan_board *b,
			  const catan_state *s, catan_rng *rng)
{
	int np = s->opt.nplayers;
	int kind = (int)catan_rng_below(rng, CATAN_ACT_COUNT + 2);

	catan_action_init(a, kind);
	switch (kind) {
	case CATAN_ACT_SETUP:
		a->vertex = rand_id(rng, b->nvertices);
		a->edge = rand_id(rng, b->nedges);
		break;
	case CATAN_ACT_ROLL:
		a->dice[0] = (uint8_t)catan_rng_below(rng, 8);
		a->dice[1] = (uint8_t)catan_rng_below(rng, 8);
		break;
	case CATAN_ACT_DISCARD:
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			a->give[r] = (uint8_t)catan_rng_below(rng, 5);
		break;
	case CATAN_ACT_ROBBER:
	case CATAN_ACT_PLAY_KNIGHT:
		a->tile = rand_id(rng, b->ntiles);
		a->player = rand_id(rng, np);
		a->res = rand_id(rng, CATAN_RES_COUNT);
		break;
	case CATAN_ACT_BUILD_ROAD:
		a->edge = rand_id(rng, b->nedges);
		break;
	case CATAN_ACT_BUILD_SETTLEMENT:
	case CATAN_ACT_BUILD_CITY:
		a->vertex = rand_id(rng, b->nvertices);
		break;
	case CATAN_ACT_BUY_DEV:
		a->dev = rand_id(rng, CATAN_DEV_COUNT);
		break;
	case CATAN_ACT_PLAY_ROAD_BUILDING:
		a->edge = rand_id(rng, b->nedges);
		a->edge2 = rand_id(rng, b->nedges);
		break;
	case CATAN_ACT_PLAY_YEAR_OF_PLENTY:
		a->res = rand_id(rng, CATAN_RES_COUNT);
		a->res2 = rand_id(rng, CATAN_RES_COUNT);
		break;
	case CATAN_ACT_PLAY_MONOPOLY:
		a->res = rand_id(rng, CATAN_RES_COUNT);
		break;
	case CATAN_ACT_TRADE_BANK:
		a->res = rand_id(rng, CATAN_RES_COUNT);
		a->res2 = rand_id(rng, CATAN_RES_COUNT);
		a->count = (uint8_t)catan_rng_below(rng, 7);
		break;
	case CATAN_ACT_TRADE_OFFER:
		a->player = rand_id(rng, np);
		for (int r = 0; r < CATAN_RES_COUNT; r++) {
			if (catan_rng_below(rng, 3) == 0)
				a->give[r] = (uint8_t)catan_rng_below(rng, 3);
			else if (catan_rng_below(rng, 3) == 0)
				a->get[r] = (uint8_t)catan_rng_below(rng, 3);
		}
		break;
	default: /* no fields, or a kind out of range */
		if (kind >= CATAN_ACT_COUNT) {
			a->vertex = rand_id(rng, b->nvertices);
			a->edge = rand_id(rng, b->nedges);
			a->tile = rand_id(rng, b->ntiles);
		}
		break;
	}
}

/* Ids 0..n+1 and NONE: every id on the board and a bit beyond. */
static int id_range(int *out, int n)
{
	int k = 0;

	for (int i = 0; i <= n + 1; i++)
		out[k++] = i;
	out[k++] = CATAN_NONE;
	return k;
}

static void probe_all(const catan_board *b, const catan_state *s, int actor,
		      const legal_list *l, catan_rng *rng, int nrandom)
{
	int np = s->opt.nplayers;
	const catan_player *pl =
	    &s->players[actor < 0 || actor >= np ? 0 : actor];
	catan_action a;
	int vs[CATAN_MAX_VERTICES + 3], es[CATAN_MAX_EDGES + 3],
	    ts[CATAN_MAX_TILES + 3], ps[CATAN_MAX_PLAYERS + 3],
	    rs[CATAN_RES_COUNT + 3], ds[CATAN_DEV_COUNT + 3];
	int nvs = id_range(vs, b->nvertices), nes = id_range(es, b->nedges),
	    nts = id_range(ts, b->ntiles), nps = id_range(ps, np),
	    nrs = id_range(rs, CATAN_RES_COUNT),
	    nds = id_range(ds, CATAN_DEV_COUNT);

	/* Build kinds, every vertex and edge. */
	for (int i = 0; i < nvs; i++) {
		int v = vs[i];
		catan_action_init(&a, CATAN_ACT_BUILD_SETTLEMENT);
		a.vertex = (uint8_t)v;
		probe(b, s, actor, l, &a);
		a.kind = CATAN_ACT_BUILD_CITY;
		probe(b, s, actor, l, &a);
		if (s->phase != CATAN_PHASE_SETUP &&
		    catan_rng_below(rng, 8) != 0)
			continue;
		for (int j = 0; j < nes; j++) {
			int e = es[j];
			catan_action_init(&a, CATAN_ACT_SETUP);
			a.vertex = (uint8_t)v;
			a.edge = (uint8_t)e;
			probe(b, s, actor, l, &a);
		}
	}
	bool rb = pl->devs[CATAN_DEV_ROAD_BUILDING] > 0;
	for (int i = 0; i < nes; i++) {
		int e = es[i];
		catan_action_init(&a, CATAN_ACT_BUILD_ROAD);
		a.edge = (uint8_t)e;
		probe(b, s, actor, l, &a);
		catan_action_init(&a, CATAN_ACT_PLAY_ROAD_BUILDING);
		a.edge = (uint8_t)e;
		if (!rb) {
			probe(b, s, actor, l, &a);
			a.edge2 = rand_id(rng, b->nedges);
			probe(b, s, actor, l, &a);
			continue;
		}
		for (int j = 0; j < nes; j++) {
			a.edge2 = (uint8_t)es[j];
			probe(b, s, actor, l, &a);
		}
	}
	/* Robber and knight: every tile, victim, resource. */
	for (int kind = CATAN_ACT_ROBBER; kind <= CATAN_ACT_PLAY_KNIGHT;
	     kind += CATAN_ACT_PLAY_KNIGHT - CATAN_ACT_ROBBER)
		for (int i = 0; i < nts; i++)
			for (int j = 0; j < nps; j++)
				for (int k = 0; k < nrs; k++) {
					catan_action_init(&a, kind);
					a.tile = (uint8_t)ts[i];
					a.player = (uint8_t)ps[j];
					a.res = (uint8_t)rs[k];
					probe(b, s, actor, l, &a);
				}
	/* Dice. */
	for (int d0 = 0; d0 < 8; d0++)
		for (int d1 = 0; d1 < 8; d1++) {
			catan_action_init(&a, CATAN_ACT_ROLL);
			a.dice[0] = (uint8_t)d0;
			a.dice[1] = (uint8_t)d1;
			probe(b, s, actor, l, &a);
		}
	/* Cards, bank trades, the field-less kinds. */
	for (int i = 0; i < nds; i++) {
		catan_action_init(&a, CATAN_ACT_BUY_DEV);
		a.dev = (uint8_t)ds[i];
		probe(b, s, actor, l, &a);
	}
	for (int i = 0; i < nrs; i++) {
		int r = rs[i];
		catan_action_init(&a, CATAN_ACT_PLAY_MONOPOLY);
		a.res = (uint8_t)r;
		probe(b, s, actor, l, &a);
		for (int j = 0; j < nrs; j++) {
			int r2 = rs[j];
			catan_action_init(&a, CATAN_ACT_PLAY_YEAR_OF_PLENTY);
			a.res = (uint8_t)r;
			a.res2 = (uint8_t)r2;
			probe(b, s, actor, l, &a);
			for (int c = 0; c < 7; c++) {
				catan_action_init(&a, CATAN_ACT_TRADE_BANK);
				a.res = (uint8_t)r;
				a.res2 = (uint8_t)r2;
				a.count = (uint8_t)c;
				probe(b, s, actor, l, &a);
			}
		}
	}
	static const int bare[] = {CATAN_ACT_TRADE_ACCEPT,
				   CATAN_ACT_TRADE_REJECT,
				   CATAN_ACT_END_TRADE,
				   CATAN_ACT_END,
				   CATAN_ACT_COUNT,
				   CATAN_ACT_COUNT + 1,
				   255};
	for (int i = 0; i < 7; i++) {
		catan_action_init(&a, bare[i]);
		probe(b, s, actor, l, &a);
	}
	/* Offers: every 1:1 shape to everybody, some bigger ones. */
	for (int i = 0; i < nps; i++)
		for (int g = 0; g <= CATAN_RES_COUNT; g++)
			for (int w = 0; w <= CATAN_RES_COUNT; w++) {
				catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
				a.player = (uint8_t)ps[i];
				if (g < CATAN_RES_COUNT)
					a.give[g] = 1;
				if (w < CATAN_RES_COUNT)
					a.get[w] = (uint8_t)(1 + (g == w));
				probe(b, s, actor, l, &a);
			}
	/* Discards: every vector near the hand when that is not too many. */
	long combos = 1;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		combos *= pl->hand[r] + 2;
	if (s->phase == CATAN_PHASE_DISCARD && combos <= 20000) {
		int g[CATAN_RES_COUNT];
		for (g[0] = 0; g[0] <= pl->hand[0] + 1; g[0]++)
			for (g[1] = 0; g[1] <= pl->hand[1] + 1; g[1]++)
				for (g[2] = 0; g[2] <= pl->hand[2] + 1; g[2]++)
					for (g[3] = 0; g[3] <= pl->hand[3] + 1;
					     g[3]++)
						for (g[4] = 0;
						     g[4] <= pl->hand[4] + 1;
						     g[4]++) {
							catan_action_init(
							    &a,
							    CATAN_ACT_DISCARD);
							for (int r = 0;
							     r <
							     CATAN_RES_COUNT;
							     r++)
								a.give[r] =
								    (uint8_t)
									g[r];
							probe(b, s, actor, l,
							      &a);
						}
	} else {
		for (int i = 0; i < 200; i++) {
			catan_action_init(&a, CATAN_ACT_DISCARD);
			for (int r = 0; r < CATAN_RES_COUNT; r++)
				a.give[r] = (uint8_t)catan_rng_below(
				    rng, (uint32_t)pl->hand[r] + 2);
			probe(b, s, actor, l, &a);
		}
	}
	/* And random actions of every kind. */
	for (int i = 0; i < nrandom; i++) {
		random_action(&a, b, s, rng);
		probe(b, s, actor, l, &a);
	}
}

/*
 * The random bot draws the listed action at index catan_rng_below(n) of
 * the n listed, with exactly that draw (it does not list them: it counts,
 * draws and writes the one drawn). Discards are drawn card by card, and
 * fair dice's reveals are no choice: those phases are not compared.
 */
static void check_random_draw(const catan_board *b, const catan_state *s,
			      int actor, const legal_list *l, unsigned flags,
			      catan_rng *rng)
{
	if (s->phase == CATAN_PHASE_DISCARD || s->phase == CATAN_PHASE_REVEAL)
		return;
	for (int i = 0; i < 3; i++) {
		catan_rng got_rng, want_rng;
		catan_rng_seed(&got_rng, catan_rng_next(rng));
		want_rng = got_rng;
		catan_action got;
		assert_int_equal(catan_bot_choose(&got, CATAN_BOT_RANDOM, b, s,
						  actor, &got_rng, flags),
				 CATAN_OK);
		int n = l->n < CATAN_BOT_BUF ? l->n : CATAN_BOT_BUF;
		uint32_t k = catan_rng_below(&want_rng, (uint32_t)n);
		if (memcmp(&got, &l->a[k], sizeof got)) {
			char t[160], w[160];
			describe(t, sizeof t, b, &got);
			describe(w, sizeof w, b, &l->a[k]);
			fail_msg("%s: the random bot drew \"%s\", not action "
				 "%u of %d \"%s\"",
				 phase_name(s->phase), t, k, n, w);
		}
		assert_memory_equal(&got_rng, &want_rng, sizeof got_rng);
	}
}

/*
 * All checks on one state for every seat (and some that are not seats).
 * `heavy` adds the exhaustive probes and applies every listed action.
 */
static void check_state(const catan_board *b, const catan_state *s,
			catan_rng *rng, bool heavy)
{
	int np = s->opt.nplayers;

	g_stats.states++;
	g_stats.phase[s->phase]++;
	if (heavy)
		g_stats.heavy++;
	th_check(b, s);
	for (int actor = -2; actor <= CATAN_MAX_PLAYERS; actor++) {
		legal_list l, lno;
		get_legal(&l, 0, b, s, actor, 0);
		if (!catan_state_may_act(s, actor)) {
			assert_int_equal(l.n, 0);
			if (heavy && actor >= 0 && actor < np) {
				for (int i = 0; i < 50; i++) {
					catan_action a;
					random_action(&a, b, s, rng);
					probe(b, s, actor, &l, &a);
				}
				assert_int_equal(
				    catan_bot_choose(&(catan_action){0},
						     CATAN_BOT_RANDOM, b, s,
						     actor, rng, 0),
				    CATAN_E_NOT_YOUR_TURN);
			}
			continue;
		}
		assert_true(actor >= 0 && actor < np);
		if (l.n == 0)
			fail_msg("player %d may act in %s but has no legal "
				 "action",
				 actor, phase_name(s->phase));
		g_stats.listed += l.n;
		/* Without offers: the same list minus the offers, in order. */
		get_legal(&lno, 1, b, s, actor, CATAN_LEGAL_NO_OFFERS);
		int j = 0;
		for (int i = 0; i < l.n; i++) {
			if (l.a[i].kind == CATAN_ACT_TRADE_OFFER)
				continue;
			assert_true(j < lno.n);
			assert_memory_equal(&l.a[i], &lno.a[j++],
					    sizeof(catan_action));
		}
		assert_int_equal(j, lno.n);
		check_random_draw(b, s, actor, &l, 0, rng);
		check_random_draw(b, s, actor, &lno, CATAN_LEGAL_NO_OFFERS,
				  rng);
		/* Every domestic offer listed is 1:1. */
		for (int i = 0; i < l.n; i++)
			if (l.a[i].kind == CATAN_ACT_TRADE_OFFER) {
				int g = 0, w = 0;
				for (int r = 0; r < CATAN_RES_COUNT; r++) {
					g += l.a[i].give[r];
					w += l.a[i].get[r];
				}
				assert_int_equal(g, 1);
				assert_int_equal(w, 1);
			}
		if (heavy) {
			check_sound(b, s, actor, &l, rng, 400);
			probe_all(b, s, actor, &l, rng, 300);
		} else {
			check_sound(b, s, actor, &l, rng, 3);
		}
	}
}

/* ---- random play ---- */

typedef struct config {
	int nplayers, phases, dice, offer_limit;
	unsigned flags; /* for the bots */
	bool random_board;
	bool special_build; /* 5-6 players (who play on the 5-6 board) */
} config;

/*
 * Plays one game of random bots from `seed`, checking every state
 * (heavily every `heavy_every` states), up to `max_actions` actions.
 */
static void play_checked(const config *c, uint64_t seed, int max_actions,
			 int heavy_every)
{
	static catan_board board;
	catan_board *b = &board;
	catan_state s;
	catan_options opt;
	catan_rng rng;

	if (c->nplayers > CATAN_MAX_PLAYERS_BASE)
		assert_int_equal(catan_board_random_ext56(b, seed), CATAN_OK);
	else if (c->random_board)
		catan_board_random(b, seed);
	else
		catan_board_beginner(b);
	catan_options_default(&opt);
	opt.nplayers = (uint8_t)c->nplayers;
	opt.special_build = c->special_build;
	opt.phases = (uint8_t)c->phases;
	opt.dice = (uint8_t)c->dice;
	opt.offer_limit = (uint8_t)c->offer_limit;
	opt.seed = seed * 0x9e3779b97f4a7c15ull + 11;
	assert_int_equal(catan_state_init(&s, b, &opt), CATAN_OK);
	catan_rng_seed(&rng, seed + 1000);
	for (int step = 0; step < max_actions; step++) {
		bool heavy =
		    heavy_every > 0 &&
		    (step % heavy_every) == (int)(seed % (uint64_t)heavy_every);
		check_state(b, &s, &rng, heavy);
		if (s.phase == CATAN_PHASE_OVER) {
			g_stats.winners++;
			break;
		}
		int actor = catan_state_next_actor(&s);
		assert_int_not_equal(actor, CATAN_NONE);
		if (s.phase == CATAN_PHASE_DISCARD) {
			/* Any owing player may go first. */
			int owing[CATAN_MAX_PLAYERS], k = 0;
			for (int p = 0; p < s.opt.nplayers; p++)
				if (s.discard[p])
					owing[k++] = p;
			actor = owing[catan_rng_below(&rng, (uint32_t)k)];
		}
		catan_action a;
		if (s.phase == CATAN_PHASE_REVEAL && !s.reveal_wait) {
			/* Fair dice: the requester states what the reveals
			 * give (here: random bytes). */
			uint8_t r[32];
			for (int i = 0; i < 32; i++)
				r[i] = (uint8_t)catan_rng_below(&rng, 256);
			catan_fair_outcome(&a, &s, r);
		} else {
			assert_int_equal(catan_bot_choose(&a, CATAN_BOT_RANDOM,
							  b, &s, actor, &rng,
							  c->flags),
					 CATAN_OK);
		}
		int rc = catan_state_apply(&s, b, &s, actor, &a, NULL);
		if (rc != CATAN_OK) {
			char t[160];
			describe(t, sizeof t, b, &a);
			fail_msg("bot action \"%s\" rejected: %s", t,
				 catan_error_str(rc));
		}
	}
}

/* Games a configuration (half that with 5 and 6 players): 6, and 3 in
 * the sanitizer build, where each takes three times as long (CMakeLists). */
#ifndef LEGAL_GAMES
#define LEGAL_GAMES 6
#endif

static void run_configs(int games_per_config, int max_actions, int heavy_every,
			int nplayers_only)
{
	static const struct {
		int offer_limit;
		unsigned flags;
	} offers[3] = {
	    {0, CATAN_LEGAL_NO_OFFERS}, /* bots never offer */
	    {0, 0},			/* unlimited offers */
	    {2, 0},			/* at most 2 per turn */
	};
	uint64_t seed = 1;

	for (int np = 2; np <= CATAN_MAX_PLAYERS; np++) {
		if (nplayers_only && np != nplayers_only)
			continue;
		for (int ph = 0; ph < 2; ph++)
			for (int dice = 0; dice < 2; dice++)
				for (int o = 0; o < 3; o++)
					for (int g = 0; g < games_per_config;
					     g++) {
						/* 5-6: special building in
						 * two games of three. */
						config c = {
						    np,
						    ph,
						    dice && (g & 1)
							? CATAN_DICE_FAIR
							: dice,
						    offers[o].offer_limit,
						    offers[o].flags,
						    (seed & 1) != 0,
						    np > CATAN_MAX_PLAYERS_BASE &&
							seed % 3 != 0};
						play_checked(&c, seed++,
							     max_actions,
							     heavy_every);
					}
	}
}

/* Prints what the run covered; fails if anything applied unlisted. */
static void finish_stats(const char *what)
{
	int bad = 0;

	print_message("%s: %ld states (%ld heavy), %ld probes (%ld applied), "
		      "%ld listed, %ld games won\n",
		      what, g_stats.states, g_stats.heavy, g_stats.probes,
		      g_stats.probes_ok, g_stats.listed, g_stats.winners);
	for (int k = 0; k < CATAN_ACT_COUNT; k++) {
		if (!g_stats.missing[k])
			continue;
		bad++;
		print_error("applies but not listed: %ld %s actions, e.g. %s\n",
			    g_stats.missing[k], kind_name(k),
			    g_stats.missing_example[k]);
	}
	if (bad)
		fail_msg("%d kinds of action apply without being listed", bad);
}

static void test_legal__random_play_2_players(void **state)
{
	(void)state;
	memset(&g_stats, 0, sizeof g_stats);
	run_configs(LEGAL_GAMES, 1500, 60, 2);
	assert_true(g_stats.winners > 0);
	finish_stats("2 players");
}

static void test_legal__random_play_3_players(void **state)
{
	(void)state;
	memset(&g_stats, 0, sizeof g_stats);
	run_configs(LEGAL_GAMES, 1500, 60, 3);
	finish_stats("3 players");
}

static void test_legal__random_play_4_players(void **state)
{
	(void)state;
	memset(&g_stats, 0, sizeof g_stats);
	run_configs(LEGAL_GAMES, 1500, 60, 4);
	/* The play reached every phase and applied every kind. */
	for (int ph = 0; ph < CATAN_PHASE_COUNT; ph++)
		if (ph != CATAN_PHASE_OVER && ph != CATAN_PHASE_SPECIAL &&
		    !g_stats.phase[ph])
			fail_msg("never reached phase %s", phase_name(ph));
	for (int k = 0; k < CATAN_ACT_COUNT; k++)
		if (!g_stats.kind_ok[k] && k != CATAN_ACT_EXPEL)
			fail_msg("never applied a listed %s", kind_name(k));
	/* (An expulsion is never listed: the store decides on a proof.) */
	assert_int_equal(g_stats.kind_ok[CATAN_ACT_EXPEL], 0);
	assert_int_equal(g_stats.phase[CATAN_PHASE_SPECIAL], 0);
	finish_stats("4 players");
}

/* 5 and 6 players on 5-6 boards, with and without special building. */
static void test_legal__random_play_5_and_6_players(void **state)
{
	(void)state;
	memset(&g_stats, 0, sizeof g_stats);
	run_configs((LEGAL_GAMES + 1) / 2, 1500, 60, 5);
	run_configs((LEGAL_GAMES + 1) / 2, 1500, 60, 6);
	for (int ph = 0; ph < CATAN_PHASE_COUNT; ph++)
		if (ph != CATAN_PHASE_OVER && !g_stats.phase[ph])
			fail_msg("never reached phase %s", phase_name(ph));
	finish_stats("5 and 6 players");
}

/* ---- perft-style counts from fixed positions ---- */

/* Boards are big: one static board for the tests below. */
static catan_board g_board;

static int count_legal(const catan_board *b, const catan_state *s, int actor,
		       unsigned flags)
{
	return catan_legal_actions(NULL, 0, b, s, actor, flags);
}

static int count_kind(const catan_board *b, const catan_state *s, int actor,
		      int kind)
{
	catan_action *buf = g_pool[0][0];
	int n = catan_legal_actions(buf, MAX_LEGAL, b, s, actor, 0), k = 0;

	for (int i = 0; i < n; i++)
		k += buf[i].kind == kind;
	return k;
}

static void test_legal__perft_setup_initial(void **state)
{
	catan_board *b = &g_board;
	catan_state s;
	catan_options opt;

	(void)state;
	/*
	 * On an empty board every (vertex, incident edge) pair is a set-up
	 * move, and every edge has two endpoints: 2E moves, with E from the
	 * closed form 9R^2 + 15R + 6 (72 for R = 2).
	 */
	for (int np = 2; np <= 4; np++) {
		th_new_game(b, &s, np);
		assert_int_equal(count_legal(b, &s, 0, 0), 2 * 72);
		assert_int_equal(count_legal(b, &s, 0, CATAN_LEGAL_NO_OFFERS),
				 144);
		for (int p = 1; p < np; p++)
			assert_int_equal(count_legal(b, &s, p, 0), 0);
	}
	/* The radius-3 hexagon: E = 81 + 45 + 6 = 132. */
	assert_int_equal(catan_board_init_hexagon(b, 3), CATAN_OK);
	catan_options_default(&opt);
	assert_int_equal(catan_state_init(&s, b, &opt), CATAN_OK);
	assert_int_equal(count_legal(b, &s, 0, 0), 2 * 132);
}

/*
 * Set-up moves from the pieces: (vertex, edge) pairs with the vertex
 * neither built on nor next to a building, and the edge free.
 */
static int setup_moves_by_hand(const catan_board *b, const catan_state *s)
{
	int n = 0;

	for (int v = 0; v < b->nvertices; v++) {
		bool blocked = false;
		for (int p = 0; p < s->opt.nplayers; p++) {
			const catan_vset *st = &s->players[p].settlements;
			blocked |= catan_vset_has(st, v);
			for (int i = 0; i < 3; i++) {
				int u = b->vertex_vertices[v][i];
				blocked |=
				    u != CATAN_NONE && catan_vset_has(st, u);
			}
		}
		if (blocked)
			continue;
		for (int i = 0; i < 3; i++) {
			int e = b->vertex_edges[v][i];
			bool taken = false;
			for (int p = 0; p < s->opt.nplayers; p++)
				taken |=
				    e != CATAN_NONE &&
				    catan_eset_has(&s->players[p].roads, e);
			n += e != CATAN_NONE && !taken;
		}
	}
	return n;
}

static void test_legal__perft_setup_second(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	th_new_game(b, &s, 4);
	th_do(b, &s, RED, "setup 0,-1,n 0,-1,nw");
	/*
	 * 0,-1,n and its three neighbours are blocked, all inland with
	 * three edges each; the road joins two of them. 144 - 4 * 3.
	 */
	assert_int_equal(count_legal(b, &s, BLUE, 0), 132);
	assert_int_equal(count_legal(b, &s, RED, 0), 0);
	assert_int_equal(setup_moves_by_hand(b, &s), 132);
	/*
	 * A coast vertex next: 0,-2,n (two edges) and its neighbour
	 * 0,-2,nw (two edges) get blocked; its other neighbour 0,-2,ne was
	 * already blocked by red, and both new road ends are blocked.
	 */
	th_do(b, &s, BLUE, "setup 0,-2,n 0,-2,ne");
	assert_int_equal(setup_moves_by_hand(b, &s), 128);
	assert_int_equal(count_legal(b, &s, WHITE, 0), 128);
	/* And after a few more, the tables still agree. */
	th_do(b, &s, WHITE, "setup -1,1,n -1,1,nw");
	th_do(b, &s, ORANGE, "setup 2,0,s 2,0,sw");
	th_do(b, &s, ORANGE, "setup -2,2,s -2,2,sw");
	assert_int_equal(count_legal(b, &s, WHITE, 0),
			 setup_moves_by_hand(b, &s));
}

static void test_legal__perft_roll(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	th_new_game(b, &s, 4);
	th_play_setup(b, &s);
	assert_int_equal(count_legal(b, &s, RED, 0), 1);
	for (int p = BLUE; p <= ORANGE; p++)
		assert_int_equal(count_legal(b, &s, p, 0), 0);
	catan_state m = s;
	m.opt.dice = CATAN_DICE_MANUAL;
	assert_int_equal(count_legal(b, &m, RED, 0), 36);

	/*
	 * A knight in hand: roll, plus every robber move. In seeded mode one
	 * move per (tile, victim), at least one per tile; computed here
	 * from the pieces, not by the rules' helper.
	 */
	th_give_dev(&s, RED, CATAN_DEV_KNIGHT);
	int want = 0, want_manual = 0;
	for (int t = 0; t < b->ntiles; t++) {
		if (t == s.robber)
			continue;
		int victims = 0, cards = 0;
		for (int o = 0; o < 4; o++) {
			bool on = false;
			for (int c = 0; c < 6; c++) {
				int v = b->tile_vertices[t][c];
				on |= catan_vset_has(&s.players[o].settlements,
						     v) ||
				      catan_vset_has(&s.players[o].cities, v);
			}
			if (o == RED || !on || s.players[o].ncards == 0)
				continue;
			victims++;
			for (int r = 0; r < CATAN_RES_COUNT; r++)
				cards += s.players[o].hand[r] > 0;
		}
		want += victims ? victims : 1;
		want_manual += victims ? cards : 1;
	}
	assert_true(want > 18);
	assert_int_equal(count_legal(b, &s, RED, 0), 1 + want);
	m = s;
	m.opt.dice = CATAN_DICE_MANUAL;
	assert_int_equal(count_legal(b, &m, RED, 0), 36 + want_manual);
}

static void test_legal__perft_discard(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	th_new_game(b, &s, 4);
	th_play_setup(b, &s);
	for (int p = 0; p < 4; p++)
		th_clear_hand(&s, p);
	th_give(&s, RED, 3, 2, 4, 0, 1);
	th_roll(b, &s, 3, 4);
	assert_int_equal(s.phase, CATAN_PHASE_DISCARD);
	assert_int_equal(s.discard[RED], 5);
	/* Ways to give 5 of (3,2,4,0,1), counted by hand: 11 + 11. */
	assert_int_equal(count_legal(b, &s, RED, 0), 22);
	for (int p = BLUE; p <= ORANGE; p++)
		assert_int_equal(count_legal(b, &s, p, 0), 0);
	/* And by brute force, for a bigger hand. */
	th_clear_hand(&s, RED);
	th_give(&s, RED, 7, 0, 5, 9, 3);
	s.discard[RED] = 12;
	int want = 0;
	for (int a = 0; a <= 7; a++)
		for (int c = 0; c <= 5; c++)
			for (int d = 0; d <= 9; d++)
				for (int e = 0; e <= 3; e++)
					want += a + c + d + e == 12;
	assert_int_equal(count_legal(b, &s, RED, 0), want);
}

/* Red after set-up, holding exactly `hand`, in its build phase. */
static void red_to_build(catan_board *b, catan_state *s, int phases, int lumber,
			 int brick, int wool, int grain, int ore)
{
	catan_options opt;

	catan_board_beginner(b);
	catan_options_default(&opt);
	opt.phases = (uint8_t)phases;
	opt.seed = 42;
	assert_int_equal(catan_state_init(s, b, &opt), CATAN_OK);
	th_play_setup(b, s);
	th_roll(b, s, 1, 2);
	th_clear_hand(s, RED);
	th_give(s, RED, lumber, brick, wool, grain, ore);
}

static void test_legal__perft_main(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	/*
	 * Red has settlements on 0,-1,n (road 0,-1,nw) and -2,1,s (road
	 * -2,2,nw). Road spots by hand: two free sides at each settlement,
	 * two at the far end of the first road, one at the far end of the
	 * second (orange's road -2,2,ne takes the other): 7, and "end".
	 */
	red_to_build(b, &s, CATAN_PHASES_COMBINED, 1, 1, 0, 0, 0);
	assert_int_equal(count_legal(b, &s, RED, CATAN_LEGAL_NO_OFFERS), 8);
	assert_int_equal(count_kind(b, &s, RED, CATAN_ACT_BUILD_ROAD), 7);
	/* Offers: 3 partners x 2 held resources x 4 others. */
	assert_int_equal(count_legal(b, &s, RED, 0), 8 + 24);
	/* Nothing in hand: only "end". */
	th_clear_hand(&s, RED);
	assert_int_equal(count_legal(b, &s, RED, 0), 1);
	/* Year of plenty with a full bank: 5 doubles + 20 ordered pairs
	 * (both orders of a pair are legal texts). */
	th_give_dev(&s, RED, CATAN_DEV_YEAR_OF_PLENTY);
	assert_int_equal(count_legal(b, &s, RED, 0), 1 + 25);
	th_give_dev(&s, RED, CATAN_DEV_MONOPOLY);
	assert_int_equal(count_legal(b, &s, RED, 0), 1 + 25 + 5);
	/* A bought card is not playable this turn. */
	s.bought[CATAN_DEV_MONOPOLY] = 1;
	assert_int_equal(count_legal(b, &s, RED, 0), 1 + 25);

	/* Classic phases: trade first (only "end-trade"), then build. */
	red_to_build(b, &s, CATAN_PHASES_CLASSIC, 1, 1, 0, 0, 0);
	assert_int_equal(s.phase, CATAN_PHASE_TRADE);
	assert_int_equal(count_legal(b, &s, RED, CATAN_LEGAL_NO_OFFERS), 1);
	assert_int_equal(count_legal(b, &s, RED, 0), 1 + 24);
	th_do(b, &s, RED, "end trade");
	assert_int_equal(count_legal(b, &s, RED, 0), 8);

	/* Bank trades 4:1: four lumber buys any of 4 others. */
	red_to_build(b, &s, CATAN_PHASES_COMBINED, 4, 0, 0, 0, 0);
	assert_int_equal(count_kind(b, &s, RED, CATAN_ACT_TRADE_BANK), 4);
}

/*
 * The unordered pairs of the year of plenty and road building: both
 * orders apply, so both must be listed (or one of them rejected).
 */
static void test_legal__year_of_plenty_either_order(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	red_to_build(b, &s, CATAN_PHASES_COMBINED, 0, 0, 0, 0, 0);
	th_give_dev(&s, RED, CATAN_DEV_YEAR_OF_PLENTY);
	legal_list l;
	get_legal(&l, 0, b, &s, RED, 0);
	static const char *const texts[] = {"play year-of-plenty lumber brick",
					    "play year-of-plenty brick lumber",
					    "play year-of-plenty ore ore"};
	for (int i = 0; i < 3; i++) {
		catan_action a = th_action(b, texts[i]);
		catan_state t = s;
		th_do(b, &t, RED, texts[i]);
		if (!listed(&l, &a))
			fail_msg("\"%s\" applies but is not listed", texts[i]);
	}
}

static void test_legal__road_building_either_order(void **state)
{
	catan_board *b = &g_board;
	catan_state s;

	(void)state;
	red_to_build(b, &s, CATAN_PHASES_COMBINED, 0, 0, 0, 0, 0);
	th_give_dev(&s, RED, CATAN_DEV_ROAD_BUILDING);
	legal_list l;
	get_legal(&l, 0, b, &s, RED, 0);
	static const char *const texts[] = {
	    "play road-building 0,-1,ne 0,-1,w",
	    "play road-building 0,-1,w 0,-1,ne"};
	for (int i = 0; i < 2; i++) {
		catan_action a = th_action(b, texts[i]);
		catan_state t = s;
		th_do(b, &t, RED, texts[i]);
		if (!listed(&l, &a))
			fail_msg("\"%s\" applies but is not listed", texts[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_legal__random_play_2_players),
	    cmocka_unit_test(test_legal__random_play_3_players),
	    cmocka_unit_test(test_legal__random_play_4_players),
	    cmocka_unit_test(test_legal__random_play_5_and_6_players),
	    cmocka_unit_test(test_legal__perft_setup_initial),
	    cmocka_unit_test(test_legal__perft_setup_second),
	    cmocka_unit_test(test_legal__perft_roll),
	    cmocka_unit_test(test_legal__perft_discard),
	    cmocka_unit_test(test_legal__perft_main),
	    cmocka_unit_test(test_legal__year_of_plenty_either_order),
	    cmocka_unit_test(test_legal__road_building_either_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
