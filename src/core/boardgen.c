/*
 * boardgen.c - board shapes of any size, their pieces, balanced layouts
 * under switchable rules with pins, and the balance score.
 *
 * The layout problem: every tile gets a terrain and every land tile a token,
 * using exactly the shape's pieces, respecting the pins and the rules
 * switched on. It is solved over 2n variables (a terrain and a token per
 * tile) whose domains are bit masks, with forward checking: assigning a
 * value removes what it rules out from the neighbours' domains (touching
 * resource, token, red number, the pips left at each corner, the low tokens
 * left for each resource, pieces used up). Two ways to use it:
 *
 *  - exact sampling: walk the tiles in a fixed order, draw each terrain and
 *    token uniformly from the pieces left (a uniformly random permutation
 *    drawn lazily), and start again from scratch at the first draw the
 *    domains forbid. Propagation only removes values no valid completion
 *    uses, so this is plain rejection sampling that gives up early: every
 *    valid board is equally likely.
 *  - search: depth-first backtracking, smallest domain first (random ties),
 *    values in random order weighted by the pieces left. Complete, so it
 *    also proves infeasibility, but not exactly uniform.
 *
 * Both count steps (a draw, or a search node) against a budget, so nothing
 * loops without bound. An infeasible request is explained by deletion:
 * drop each rule, then each pin, and keep it dropped while the rest is
 * still proved infeasible; what remains is an irreducible conflict.
 *
 * Pure core: no I/O, no allocation, no mutable globals.
 */
#include "catan/boardgen.h"

#include "board_internal.h"

#include "catan/rng.h"

#include <string.h>

#define MAXT	     CATAN_MAX_TILES
#define MAXV	     CATAN_MAX_VERTICES
#define NOVAL	     0xff
#define DESERT_BIT   (1u << CATAN_DESERT)
#define TERR_ALL     ((1u << (CATAN_RES_COUNT + 1)) - 1)
#define TOK_NONE_BIT 1u	     /* token bit 0: no token, the desert's */
#define TOK_ALL	     0x1f7cu /* bits 2..12 without 7 */
#define TOK_LOW	     ((1u << 2) | (1u << 3) | (1u << 11) | (1u << 12))
#define TOK_RED	     ((1u << 6) | (1u << 8))

/* Default step budget and the conflict analysis' budget per check. */
#define DEFAULT_BUDGET 1000000u
#define EXPLAIN_BUDGET 200000u
#define DEFAULT_MIX    2000u

static bool rule_on(unsigned rules, int r)
{
	return (rules >> r) & 1u;
}

const char *catan_rule_name(int rule)
{
	static const char *const n[] = {"same-resource", "same-token",
					"red-apart", "low-spread", "max-pips"};
	return rule >= 0 && rule < CATAN_RULE_COUNT ? n[rule] : "?";
}

const char *catan_rule_sentence(int rule)
{
	static const char *const s[] = {
	    "no two touching tiles of the same resource",
	    "no two touching tiles with the same token",
	    "no 6 or 8 touching a 6 or 8",
	    "at most half of each resource's tiles with a 2, 3, 11 or 12",
	    "no intersection above the pip limit"};
	return rule >= 0 && rule < CATAN_RULE_COUNT ? s[rule] : "?";
}

static int popcount(unsigned x)
{
	return catan_popcount64(x);
}

/* ---- shapes and their pieces ---- */


/* Hex centre in a skewed plane (X = 2q + r, Y = r): a linear image of the
 * real one with positive determinant, so angular order is preserved. */
typedef struct ipt {
	long x, y;
} ipt;

static int half_plane(ipt p)
{
	return (p.y < 0 || (p.y == 0 && p.x < 0)) ? 1 : 0;
}

/* Angular order around the origin, starting at +X. */
static bool angle_less(ipt a, ipt b)
{
	int ha = half_plane(a), hb = half_plane(b);
	if (ha != hb)
		return ha < hb;
	return a.x * b.y - a.y * b.x > 0;
}

/*
 * Places `h` harbour edges evenly along the coast: the coastal sides
 * sorted by angle around the centre of the land, every (E/h)-th taken.
 * With h <= 0.3 E the gaps are at least 3 sides, so no two harbours share
 * a corner.
 */
static void spaced_harbours(catan_board *b, int h)
{
	uint8_t count[CATAN_MAX_EDGES], coast[CATAN_MAX_EDGES];
	ipt key[CATAN_MAX_EDGES];
	static const int dq[6] = {1, 1, 0, -1, -1, 0},
			 dr[6] = {-1, 0, 1, 1, 0, -1};
	long sx = 0, sy = 0;
	int ne = 0;

	memset(count, 0, sizeof count);
	for (int t = 0; t < b->ntiles; t++) {
		sx += 2 * b->tile_hex[t].q + b->tile_hex[t].r;
		sy += b->tile_hex[t].r;
		for (int s = 0; s < 6; s++) {
			int e = b->tile_edges[t][s];
			count[e]++;
		}
	}
	for (int t = 0; t < b->ntiles; t++)
		for (int s = 0; s < 6; s++) {
			int e = b->tile_edges[t][s];
			if (count[e] != 1)
				continue;
			/* tile_edges order NE, E, SE, SW, W, NW: the sea hex.
			 */
			int q = b->tile_hex[t].q, r = b->tile_hex[t].r;
			int q2 = q + dq[s], r2 = r + dr[s];
			ipt p = {(long)b->ntiles * (2 * q + r + 2 * q2 + r2) -
				     2 * sx,
				 (long)b->ntiles * (r + r2) - 2 * sy};
			int i = ne++;
			while (i > 0 && angle_less(p, key[i - 1])) {
				key[i] = key[i - 1];
				coast[i] = coast[i - 1];
				i--;
			}
			key[i] = p;
			coast[i] = (uint8_t)e;
		}
	b->nharbours = (uint8_t)h;
	for (int k = 0; k < h; k++)
		b->harbour_edge[k] = coast[(k * ne) / h];
}

/*
 * The 5-6 board's eleven harbour sides, clockwise from the north-west. The
 * 5-6 board is the standard one with its middle row widened to six tiles
 * and the rows above and below moved apart: the standard frame's nine
 * harbours stay on the tiles they border (rows above the middle move to
 * (q, r-1), rows below to (q-1, r+1)), the standard middle row's east
 * harbour stays on both copies of that row, and the widened middle row
 * gets one on its west end. Gaps along the 38 coastal sides: 3 or 4.
 */
static const catan_side ext56_harbours[11] = {
	{0, -3, CATAN_EDIR_NW}, {1, -3, CATAN_EDIR_NE}, {2, -2, CATAN_EDIR_NE},
	{2, -1, CATAN_EDIR_E},	{1, 1, CATAN_EDIR_E},	{0, 2, CATAN_EDIR_SE},
	{-2, 3, CATAN_EDIR_SE}, {-3, 3, CATAN_EDIR_SW}, {-3, 2, CATAN_EDIR_W},
	{-3, 0, CATAN_EDIR_W},	{-1, -2, CATAN_EDIR_W},
};

static void shape_components(catan_components *c, const catan_board *b,
			     int ncoast)
{
	static const int tie[10] = {6, 8, 5, 9, 4, 10, 3, 11, 2, 12};
	static const int extra_res[5] = {CATAN_LUMBER, CATAN_WOOL, CATAN_GRAIN,
					 CATAN_BRICK, CATAN_ORE};
	static const int extra_harb[5] = {CATAN_WOOL, CATAN_LUMBER, CATAN_GRAIN,
					  CATAN_BRICK, CATAN_ORE};
	int n = b->ntiles;
	int deserts = (2 * n + 19) / 38;
	memset(c, 0, sizeof *c);
	if (deserts < 1)
		deserts = 1;
	int land = n - deserts;
	c->terrain[CATAN_DESERT] = (uint8_t)deserts;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		c->terrain[r] = (uint8_t)(land / 5);
	for (int i = 0; i < land % 5; i++)
		c->terrain[extra_res[i]]++;

	/* Tokens: weight 1 for 2 and 12, 2 for the rest, largest remainder. */
	int given = 0, rem[13] = {0};
	for (int i = 0; i < 10; i++) {
		int k = tie[i], w = (k == 2 || k == 12) ? 1 : 2;
		c->token[k] = (uint8_t)(land * w / 18);
		rem[k] = land * w % 18;
		given += c->token[k];
	}
	while (given < land) {
		int best = -1;
		for (int i = 0; i < 10; i++)
			if (best < 0 || rem[tie[i]] > rem[best])
				best = tie[i];
		c->token[best]++;
		rem[best] = -1;
		given++;
	}

	int h = (3 * ncoast + 5) / 10;
	if (h > CATAN_MAX_HARBOURS)
		h = CATAN_MAX_HARBOURS;
	int generic = (4 * h + 4) / 9, specific = h - generic;
	c->nharbours = (uint8_t)h;
	c->harbour[CATAN_HARBOUR_GENERIC] = (uint8_t)generic;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		c->harbour[r] = (uint8_t)(specific / 5);
	for (int i = 0; i < specific % 5; i++)
		c->harbour[extra_harb[i]]++;
}

int catan_board_shape(catan_board *out, catan_components *parts, int shape,
		      int radius)
{
	catan_hex hexes[MAXT];
	int n = 0, rc;

	if (shape == CATAN_SHAPE_HEXAGON) {
		if (radius < 1)
			return CATAN_E_BAD_OPTION;
		if (radius > CATAN_MAX_RADIUS)
			return CATAN_E_CAPACITY;
		rc = catan_board_init_hexagon(out, radius);
	} else if (shape == CATAN_SHAPE_EXT56) {
		/* Rows of 3, 4, 5, 6, 5, 4, 3: the radius-3 hexagon without
		 * its north-east and south-east sides. */
		if (CATAN_MAX_RADIUS < 3)
			return CATAN_E_CAPACITY;
		for (int r = -3; r <= 3; r++)
			for (int q = -3; q <= 3; q++) {
				int s = -q - r;
				if (s < -3 || s > 3 || q == 3 || s == -3)
					continue;
				hexes[n++] = (catan_hex){(int8_t)q, (int8_t)r};
			}
		rc = catan_board_init_shape(out, hexes, n);
	} else {
		return CATAN_E_BAD_OPTION;
	}
	if (rc)
		return rc;

	int ncoast = 0;
	{
		uint8_t count[CATAN_MAX_EDGES];
		memset(count, 0, sizeof count);
		for (int t = 0; t < out->ntiles; t++)
			for (int s = 0; s < 6; s++)
				count[out->tile_edges[t][s]]++;
		for (int e = 0; e < out->nedges; e++)
			ncoast += count[e] == 1;
	}
	catan_components c;
	shape_components(&c, out, ncoast);
	if (shape == CATAN_SHAPE_HEXAGON && radius == 2) {
		out->nharbours = 9;
		for (int h = 0; h < 9; h++)
			out->harbour_edge[h] = (uint8_t)catan_board_edge(
			    out, catan_std_harbours[h].q, catan_std_harbours[h].r,
			    catan_std_harbours[h].dir);
	} else if (shape == CATAN_SHAPE_EXT56) {
		out->nharbours = 11; /* = c.nharbours (round(0.3 x 38)) */
		for (int h = 0; h < 11; h++)
			out->harbour_edge[h] = (uint8_t)catan_board_edge(
			    out, ext56_harbours[h].q, ext56_harbours[h].r,
			    ext56_harbours[h].dir);
	} else {
		spaced_harbours(out, c.nharbours);
	}
	for (int h = 0; h < out->nharbours; h++)
		out->harbour_kind[h] = CATAN_HARBOUR_GENERIC;
	catan_board_finish(out);
	if (parts)
		*parts = c;
	return CATAN_OK;
}

/* ---- the layout problem ---- */

typedef struct gen_ctx {
	int n, nv;
	unsigned rules;
	int max_pips;
	uint8_t nnb[MAXT], nb[MAXT][6];
	uint8_t ntv[MAXT], tv[MAXT][6];
	uint8_t nvt[MAXV], vt[MAXV][3];
	uint8_t limit[CATAN_RES_COUNT];
	uint16_t pipmask[6]; /* tokens with at most i pips, and "none" */
	uint8_t order[MAXT];
	catan_rng rng;
	uint32_t steps, budget;
} gen_ctx;

typedef struct node {
	uint8_t tdom[MAXT];
	uint16_t kdom[MAXT];
	uint8_t terr[MAXT], tok[MAXT]; /* NOVAL until assigned */
	uint8_t tleft[CATAN_RES_COUNT + 1];
	uint8_t kleft[13];
	uint8_t low[CATAN_RES_COUNT];
	uint8_t vsum[MAXV];
} node;

enum { R_FOUND, R_FAIL, R_BUDGET };

static bool restrict_t(node *s, int t, unsigned mask)
{
	s->tdom[t] &= (uint8_t)mask;
	return s->tdom[t] != 0;
}

static bool restrict_k(node *s, int t, unsigned mask)
{
	s->kdom[t] &= (uint16_t)mask;
	return s->kdom[t] != 0;
}

static bool is_low(int k)
{
	return k >= 2 && k <= 12 && ((TOK_LOW >> k) & 1u);
}

/* Resource x has reached its quota of low tokens: close the rest. */
static bool low_quota_full(const gen_ctx *c, node *s, int x)
{
	for (int u = 0; u < c->n; u++) {
		if (s->terr[u] == x && s->tok[u] == NOVAL &&
		    !restrict_k(s, u, ~TOK_LOW))
			return false;
		if (s->terr[u] == NOVAL && is_low(s->tok[u]) &&
		    !restrict_t(s, u, ~(1u << x)))
			return false;
	}
	return true;
}

/* One more tile of resource x with a low token. */
static bool count_low(const gen_ctx *c, node *s, int x)
{
	if (++s->low[x] > c->limit[x])
		return false;
	return s->low[x] < c->limit[x] || low_quota_full(c, s, x);
}

static bool assign_terrain(const gen_ctx *c, node *s, int t, int x)
{
	if (x < 0 || !((s->tdom[t] >> x) & 1u) || s->tleft[x] == 0)
		return false;
	s->terr[t] = (uint8_t)x;
	s->tdom[t] = (uint8_t)(1u << x);
	if (--s->tleft[x] == 0)
		for (int u = 0; u < c->n; u++)
			if (s->terr[u] == NOVAL &&
			    !restrict_t(s, u, ~(1u << x)))
				return false;
	if (x == CATAN_DESERT) {
		if (!restrict_k(s, t, TOK_NONE_BIT))
			return false;
		s->tok[t] = 0;
		return true;
	}
	if (!restrict_k(s, t, ~TOK_NONE_BIT))
		return false;
	if (rule_on(c->rules, CATAN_RULE_SAME_RESOURCE))
		for (int i = 0; i < c->nnb[t]; i++)
			if (!restrict_t(s, c->nb[t][i], ~(1u << x)))
				return false;
	if (rule_on(c->rules, CATAN_RULE_LOW_SPREAD)) {
		if (s->tok[t] != NOVAL) {
			if (is_low(s->tok[t]) && !count_low(c, s, x))
				return false;
		} else if (s->low[x] >= c->limit[x] &&
			   !restrict_k(s, t, ~TOK_LOW)) {
			return false;
		}
	}
	return true;
}

/* Token k (2..12), or 0 for "no token" (the tile is then a desert). */
static bool assign_token(const gen_ctx *c, node *s, int t, int k)
{
	if (k < 0 || !((s->kdom[t] >> k) & 1u))
		return false;
	if (k == 0) {
		s->tok[t] = 0;
		s->kdom[t] = TOK_NONE_BIT;
		return restrict_t(s, t, DESERT_BIT);
	}
	if (s->kleft[k] == 0)
		return false;
	s->tok[t] = (uint8_t)k;
	s->kdom[t] = (uint16_t)(1u << k);
	if (!restrict_t(s, t, ~DESERT_BIT))
		return false;
	if (--s->kleft[k] == 0)
		for (int u = 0; u < c->n; u++)
			if (s->tok[u] == NOVAL && !restrict_k(s, u, ~(1u << k)))
				return false;
	if (rule_on(c->rules, CATAN_RULE_SAME_TOKEN))
		for (int i = 0; i < c->nnb[t]; i++)
			if (!restrict_k(s, c->nb[t][i], ~(1u << k)))
				return false;
	if ((k == 6 || k == 8) && rule_on(c->rules, CATAN_RULE_RED_APART))
		for (int i = 0; i < c->nnb[t]; i++)
			if (!restrict_k(s, c->nb[t][i], ~TOK_RED))
				return false;
	if (rule_on(c->rules, CATAN_RULE_MAX_PIPS)) {
		int p = catan_token_pips(k);
		for (int i = 0; i < c->ntv[t]; i++) {
			int v = c->tv[t][i];
			s->vsum[v] = (uint8_t)(s->vsum[v] + p);
			if (s->vsum[v] > c->max_pips)
				return false;
			/* Each open tile at v takes at least 1 pip unless it
			 * may still be a desert: the rest bounds the others. */
			int left = c->max_pips - s->vsum[v], need = 0;
			for (int j = 0; j < c->nvt[v]; j++) {
				int u = c->vt[v][j];
				need += s->tok[u] == NOVAL &&
					!(s->kdom[u] & TOK_NONE_BIT);
			}
			if (need > left)
				return false;
			for (int j = 0; j < c->nvt[v]; j++) {
				int u = c->vt[v][j];
				if (s->tok[u] != NOVAL)
					continue;
				int own = !(s->kdom[u] & TOK_NONE_BIT);
				int room = left - (need - own);
				if (room < 5 &&
				    !restrict_k(s, u, c->pipmask[room]))
					return false;
			}
		}
	}
	if (rule_on(c->rules, CATAN_RULE_LOW_SPREAD) && is_low(k)) {
		if (s->terr[t] != NOVAL)
			return count_low(c, s, s->terr[t]);
		for (int x = 0; x < CATAN_RES_COUNT; x++)
			if (s->low[x] >= c->limit[x] &&
			    !restrict_t(s, t, ~(1u << x)))
				return false;
	}
	return true;
}

/* Every piece left still has enough tiles that could take it. */
static bool counts_fit(const gen_ctx *c, const node *s)
{
	uint8_t room_t[CATAN_RES_COUNT + 1] = {0}, room_k[13] = {0};
	for (int t = 0; t < c->n; t++) {
		if (s->terr[t] == NOVAL)
			for (int x = 0; x <= CATAN_DESERT; x++)
				room_t[x] += (s->tdom[t] >> x) & 1u;
		if (s->tok[t] == NOVAL)
			for (int k = 2; k <= 12; k++)
				room_k[k] += (s->kdom[t] >> k) & 1u;
	}
	for (int x = 0; x <= CATAN_DESERT; x++)
		if (s->tleft[x] > room_t[x])
			return false;
	for (int k = 2; k <= 12; k++)
		if (s->kleft[k] > room_k[k])
			return false;
	return true;
}

/* Index of a value drawn with probability weight[i] / sum over `mask`. */
static int draw_weighted(catan_rng *rng, const uint8_t *weight, int lo, int hi,
			 unsigned mask)
{
	uint32_t total = 0;
	for (int i = lo; i <= hi; i++)
		if ((mask >> i) & 1u)
			total += weight[i];
	if (total == 0)
		return -1;
	uint32_t x = catan_rng_below(rng, total);
	for (int i = lo; i <= hi; i++)
		if ((mask >> i) & 1u) {
			if (x < weight[i])
				return i;
			x -= weight[i];
		}
	return -1;
}

/*
 * Exact sampler (see the top of the file). Draws from all pieces left,
 * not from the domain, so a forbidden draw rejects the whole attempt.
 */
static int sample_exact(gen_ctx *c, const node *root, node *s, uint32_t budget,
			uint32_t *tries)
{
	for (;;) {
		*s = *root;
		++*tries;
		int i;
		for (i = 0; i < c->n; i++) {
			int t = c->order[i];
			if (s->terr[t] == NOVAL) {
				c->steps++;
				int x = draw_weighted(&c->rng, s->tleft, 0,
						      CATAN_DESERT, TERR_ALL);
				if (!assign_terrain(c, s, t, x))
					break;
			}
			if (s->tok[t] == NOVAL) {
				c->steps++;
				int k = draw_weighted(&c->rng, s->kleft, 2, 12,
						      TOK_ALL);
				if (!assign_token(c, s, t, k))
					break;
			}
		}
		if (i == c->n)
			return R_FOUND;
		if (c->steps >= budget)
			return R_BUDGET;
	}
}

/* Depth-first search; on R_FOUND the solution is in *out. */
static int search(gen_ctx *c, const node *s, node *out)
{
	if (++c->steps > c->budget)
		return R_BUDGET;
	if (!counts_fit(c, s))
		return R_FAIL;
	int best_t = -1, best_kind = 0, best_size = 99, ties = 0;
	for (int t = 0; t < c->n; t++)
		for (int kind = 0; kind < 2; kind++) {
			int size;
			if (kind == 0 && s->terr[t] == NOVAL)
				size = popcount(s->tdom[t]);
			else if (kind == 1 && s->tok[t] == NOVAL)
				size = popcount(s->kdom[t]);
			else
				continue;
			if (size < best_size) {
				best_size = size;
				best_t = t;
				best_kind = kind;
				ties = 1;
			} else if (size == best_size &&
				   catan_rng_below(&c->rng, (uint32_t)++ties) ==
				       0) {
				best_t = t;
				best_kind = kind;
			}
		}
	if (best_t < 0) {
		*out = *s;
		return R_FOUND;
	}
	int t = best_t;
	if (best_kind == 0) {
		unsigned mask = s->tdom[t];
		for (;;) {
			int x = draw_weighted(&c->rng, s->tleft, 0,
					      CATAN_DESERT, mask);
			if (x < 0)
				return R_FAIL;
			mask &= ~(1u << x);
			node child = *s;
			if (!assign_terrain(c, &child, t, x))
				continue;
			int r = search(c, &child, out);
			if (r != R_FAIL)
				return r;
		}
	}
	uint8_t w[13];
	memcpy(w, s->kleft, sizeof w);
	w[0] = s->tleft[CATAN_DESERT];
	unsigned mask = s->kdom[t];
	for (;;) {
		int k = draw_weighted(&c->rng, w, 0, 12, mask);
		if (k < 0)
			return R_FAIL;
		mask &= ~(1u << k);
		node child = *s;
		if (!assign_token(c, &child, t, k))
			continue;
		int r = search(c, &child, out);
		if (r != R_FAIL)
			return r;
	}
}

/*
 * Search with restarts: a run that exhausts its node cap starts again
 * (with new random choices) under a cap twice as large, which cuts the
 * long tail of unlucky early choices. A run that ends without reaching its
 * cap is complete, so R_FAIL is a proof.
 */
static int search_restarts(gen_ctx *c, const node *root, node *out,
			   uint32_t budget, uint32_t *tries)
{
	uint32_t cap = 256;
	for (;;) {
		uint32_t left = budget - c->steps;
		c->budget = c->steps + (cap < left ? cap : left);
		++*tries;
		int r = search(c, root, out);
		if (r != R_BUDGET || c->budget >= budget)
			return r;
		c->steps = c->budget;
		cap = cap < 0x40000000u ? cap * 2 : cap;
	}
}

/* Pins resolved to tile ids. */
typedef struct pinned {
	int n;
	uint8_t tile[MAXT], terrain[MAXT], token[MAXT];
} pinned;

/* Low-token contribution of tile t to its resource. */
static void low_add(const gen_ctx *c, uint8_t *low, const node *s, int t, int d)
{
	(void)c;
	if (s->terr[t] < CATAN_RES_COUNT && is_low(s->tok[t]))
		low[s->terr[t]] = (uint8_t)(low[s->terr[t]] + d);
}

/* Do the rules hold around tiles a and b (after a swap)? */
static bool swap_ok(const gen_ctx *c, const node *s, const uint8_t *low, int a,
		    int b)
{
	const int tiles[2] = {a, b};
	for (int i = 0; i < 2; i++) {
		int t = tiles[i], x = s->terr[t], k = s->tok[t];
		for (int j = 0; j < c->nnb[t]; j++) {
			int u = c->nb[t][j];
			if (rule_on(c->rules, CATAN_RULE_SAME_RESOURCE) &&
			    x != CATAN_DESERT && s->terr[u] == x)
				return false;
			if (rule_on(c->rules, CATAN_RULE_SAME_TOKEN) && k &&
			    s->tok[u] == k)
				return false;
			if (rule_on(c->rules, CATAN_RULE_RED_APART) &&
			    ((TOK_RED >> k) & 1u) &&
			    ((TOK_RED >> s->tok[u]) & 1u))
				return false;
		}
		if (rule_on(c->rules, CATAN_RULE_MAX_PIPS))
			for (int j = 0; j < c->ntv[t]; j++) {
				int v = c->tv[t][j], sum = 0;
				for (int m = 0; m < c->nvt[v]; m++)
					sum += catan_token_pips(
					    s->tok[c->vt[v][m]]);
				if (sum > c->max_pips)
					return false;
			}
	}
	if (rule_on(c->rules, CATAN_RULE_LOW_SPREAD))
		for (int x = 0; x < CATAN_RES_COUNT; x++)
			if (low[x] > c->limit[x])
				return false;
	return true;
}

/*
 * Random walk over valid boards: propose swapping the tokens, the
 * terrains, or the whole tiles of two random tiles (never a pinned
 * terrain or token, never giving a desert a token), keep the swap if every
 * rule still holds. Proposals are symmetric and invalid boards are never
 * entered, so the walk's stationary distribution is uniform over the valid
 * boards it can reach; `steps` proposals wash out the search's bias.
 */
static void mix(gen_ctx *c, node *s, const pinned *p, uint32_t steps)
{
	uint8_t fixed_t[MAXT] = {0}, fixed_k[MAXT] = {0}, low[CATAN_RES_COUNT];
	for (int i = 0; i < p->n; i++) {
		fixed_t[p->tile[i]] = p->terrain[i] != CATAN_NONE;
		fixed_k[p->tile[i]] = p->token[i] != 0;
	}
	memset(low, 0, sizeof low);
	for (int t = 0; t < c->n; t++)
		low_add(c, low, s, t, 1);
	for (uint32_t i = 0; i < steps; i++) {
		uint32_t pick =
		    catan_rng_below(&c->rng, (uint32_t)(3 * c->n * c->n));
		int kind = (int)(pick % 3),
		    a = (int)(pick / 3 % (uint32_t)c->n),
		    b = (int)(pick / 3 / (uint32_t)c->n);
		if (a == b)
			continue;
		bool land = s->tok[a] && s->tok[b];
		if (kind == 0 && (!land || fixed_k[a] || fixed_k[b] ||
				  s->tok[a] == s->tok[b]))
			continue;
		if (kind == 1 && (!land || fixed_t[a] || fixed_t[b] ||
				  s->terr[a] == s->terr[b]))
			continue;
		if (kind == 2 && (fixed_t[a] || fixed_t[b] || fixed_k[a] ||
				  fixed_k[b] || s->terr[a] == s->terr[b]))
			continue;
		low_add(c, low, s, a, -1);
		low_add(c, low, s, b, -1);
		uint8_t x;
		if (kind != 1) {
			x = s->tok[a], s->tok[a] = s->tok[b], s->tok[b] = x;
		}
		if (kind != 0) {
			x = s->terr[a], s->terr[a] = s->terr[b], s->terr[b] = x;
		}
		low_add(c, low, s, a, 1);
		low_add(c, low, s, b, 1);
		if (swap_ok(c, s, low, a, b))
			continue;
		low_add(c, low, s, a, -1);
		low_add(c, low, s, b, -1);
		if (kind != 1) {
			x = s->tok[a], s->tok[a] = s->tok[b], s->tok[b] = x;
		}
		if (kind != 0) {
			x = s->terr[a], s->terr[a] = s->terr[b], s->terr[b] = x;
		}
		low_add(c, low, s, a, 1);
		low_add(c, low, s, b, 1);
	}
}

/* The context of a shape board: adjacency, rule parameters, tile order. */
static void ctx_init(gen_ctx *c, const catan_board *b,
		     const catan_components *parts, unsigned rules,
		     int max_pips)
{
	static const int dq[6] = {1, 1, 0, -1, -1, 0},
			 dr[6] = {-1, 0, 1, 1, 0, -1};
	memset(c, 0, sizeof *c);
	c->n = b->ntiles;
	c->nv = b->nvertices;
	c->rules = rules;
	c->max_pips = max_pips;
	for (int t = 0; t < c->n; t++) {
		for (int d = 0; d < 6; d++) {
			int u = catan_board_tile(b, b->tile_hex[t].q + dq[d],
						 b->tile_hex[t].r + dr[d]);
			if (u >= 0)
				c->nb[t][c->nnb[t]++] = (uint8_t)u;
		}
		for (int i = 0; i < 6; i++) {
			int v = b->tile_vertices[t][i];
			c->tv[t][c->ntv[t]++] = (uint8_t)v;
			c->vt[v][c->nvt[v]++] = (uint8_t)t;
		}
	}
	for (int x = 0; x < CATAN_RES_COUNT; x++)
		c->limit[x] = parts->terrain[x] / 2;
	for (int p = 0; p < 6; p++) {
		c->pipmask[p] = TOK_NONE_BIT;
		for (int k = 2; k <= 12; k++)
			if (k != 7 && catan_token_pips(k) <= p)
				c->pipmask[p] |= (uint16_t)(1u << k);
	}
	/* Order for the exact sampler: outward rings from the middle, so
	 * each tile meets its constraints as early as possible. */
	int cq = 0, cr = 0;
	for (int t = 0; t < c->n; t++) {
		cq += b->tile_hex[t].q;
		cr += b->tile_hex[t].r;
	}
	uint8_t dist[MAXT];
	for (int t = 0; t < c->n; t++) {
		int q = b->tile_hex[t].q * c->n - cq,
		    r = b->tile_hex[t].r * c->n - cr, s = -q - r;
		int m = q < 0 ? -q : q;
		m = m > (r < 0 ? -r : r) ? m : (r < 0 ? -r : r);
		m = m > (s < 0 ? -s : s) ? m : (s < 0 ? -s : s);
		dist[t] = (uint8_t)((m + c->n / 2) / c->n);
		int i = t;
		while (i > 0 && dist[c->order[i - 1]] > dist[t]) {
			c->order[i] = c->order[i - 1];
			i--;
		}
		c->order[i] = (uint8_t)t;
	}
}

static void node_root(node *s, const gen_ctx *c, const catan_components *p)
{
	memset(s, 0, sizeof *s);
	memset(s->terr, NOVAL, sizeof s->terr);
	memset(s->tok, NOVAL, sizeof s->tok);
	for (int t = 0; t < c->n; t++) {
		s->tdom[t] = TERR_ALL;
		s->kdom[t] = TOK_ALL | TOK_NONE_BIT;
	}
	memcpy(s->tleft, p->terrain, sizeof s->tleft);
	memcpy(s->kleft, p->token, sizeof s->kleft);
	for (int x = 0; x <= CATAN_DESERT; x++)
		if (!s->tleft[x])
			for (int t = 0; t < c->n; t++)
				s->tdom[t] &= (uint8_t) ~(1u << x);
	for (int k = 2; k <= 12; k++)
		if (!s->kleft[k])
			for (int t = 0; t < c->n; t++)
				s->kdom[t] &= (uint16_t) ~(1u << k);
}

/* Applies the pins in `set` (bit i = pin i) to a fresh root. */
static bool apply_pins(const gen_ctx *c, node *s, const pinned *p, uint64_t set)
{
	for (int i = 0; i < p->n; i++) {
		if (!((set >> i) & 1u))
			continue;
		int t = p->tile[i];
		if (p->terrain[i] != CATAN_NONE && s->terr[t] == NOVAL &&
		    !assign_terrain(c, s, t, p->terrain[i]))
			return false;
		if (p->token[i] && s->tok[t] == NOVAL &&
		    !assign_token(c, s, t, p->token[i]))
			return false;
		if (p->token[i] && s->tok[t] != p->token[i])
			return false;
	}
	return true;
}

/* Is there a layout with these rules and pins? R_FOUND/R_FAIL/R_BUDGET. */
static int decide(const catan_board *shape, const catan_components *parts,
		  const pinned *p, unsigned rules, int max_pips, uint64_t set,
		  uint32_t budget)
{
	gen_ctx c;
	node root, out;
	ctx_init(&c, shape, parts, rules, max_pips);
	catan_rng_seed(&c.rng, 1);
	c.budget = budget;
	node_root(&root, &c, parts);
	if (!apply_pins(&c, &root, p, set))
		return R_FAIL;
	return search(&c, &root, &out);
}

/* ---- small text helpers (no libc) ---- */

typedef struct tbuf {
	char *p;
	size_t size, len;
} tbuf;

static void tb_puts(tbuf *b, const char *s)
{
	while (*s) {
		if (b->len + 1 < b->size)
			b->p[b->len] = *s;
		b->len++;
		s++;
	}
	if (b->size)
		b->p[b->len < b->size ? b->len : b->size - 1] = '\0';
}

static void tb_int(tbuf *b, long v)
{
	char tmp[24];
	int n = 0;
	bool neg = v < 0;
	unsigned long u = neg ? 0ul - (unsigned long)v : (unsigned long)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg)
		tmp[n++] = '-';
	char out[24];
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
	tb_puts(b, out);
}

static void explain_text(char *why, size_t size, const catan_genopts *o,
			 unsigned rules, uint64_t pins)
{
	tbuf b = {why, size, 0};
	bool first = true;
	tb_puts(&b, "no board has these pieces with ");
	for (int r = 0; r < CATAN_RULE_COUNT; r++) {
		if (!rule_on(rules, r))
			continue;
		tb_puts(&b, first ? "rule " : ", rule ");
		tb_puts(&b, catan_rule_name(r));
		if (r == CATAN_RULE_MAX_PIPS) {
			tb_puts(&b, " ");
			tb_int(&b, o->max_pips);
		}
		first = false;
	}
	if (first)
		tb_puts(&b, "no rule");
	tb_puts(&b, " and ");
	first = true;
	for (int i = 0; i < o->npins; i++) {
		if (!((pins >> i) & 1u))
			continue;
		tb_puts(&b, first ? "pin " : ", pin ");
		tb_int(&b, o->pins[i].hex.q);
		tb_puts(&b, ",");
		tb_int(&b, o->pins[i].hex.r);
		tb_puts(&b, "=");
		if (o->pins[i].terrain != CATAN_NONE)
			tb_puts(&b, catan_res_name(o->pins[i].terrain));
		if (o->pins[i].token) {
			tb_puts(&b, ":");
			tb_int(&b, o->pins[i].token);
		}
		first = false;
	}
	if (first)
		tb_puts(&b, "no pin");
}

/* ---- generation ---- */

void catan_genopts_default(catan_genopts *o)
{
	memset(o, 0, sizeof *o);
	o->shape = CATAN_SHAPE_HEXAGON;
	o->radius = 2;
	o->rules = CATAN_RULES_ALL;
	o->max_pips = CATAN_DEFAULT_MAX_PIPS;
	o->method = CATAN_GEN_AUTO;
}

static int fail(catan_genreport *rep, int status, const char *why, int rc)
{
	tbuf b = {rep->why, sizeof rep->why, 0};
	rep->status = (uint8_t)status;
	tb_puts(&b, why);
	return rc;
}

/* Deletion filter over rules, then pins: an irreducible conflict. */
static void explain(catan_genreport *rep, const catan_genopts *o,
		    const catan_board *shape, const catan_components *parts,
		    const pinned *p)
{
	unsigned rules = o->rules & CATAN_RULES_ALL;
	uint64_t pins = p->n >= 64 ? ~0ull : ((1ull << p->n) - 1);
	bool minimal = true;
	for (int r = 0; r < CATAN_RULE_COUNT; r++) {
		if (!rule_on(rules, r))
			continue;
		int d = decide(shape, parts, p, rules & ~(1u << r), o->max_pips,
			       pins, EXPLAIN_BUDGET);
		if (d == R_FAIL)
			rules &= ~(1u << r);
		else if (d == R_BUDGET)
			minimal = false;
	}
	for (int i = 0; i < p->n; i++) {
		int d = decide(shape, parts, p, rules, o->max_pips,
			       pins & ~(1ull << i), EXPLAIN_BUDGET);
		if (d == R_FAIL)
			pins &= ~(1ull << i);
		else if (d == R_BUDGET)
			minimal = false;
	}
	rep->status = CATAN_GEN_INFEASIBLE;
	rep->conflict_rules = (uint8_t)rules;
	rep->minimal = minimal;
	rep->nconflict_pins = 0;
	for (int i = 0; i < p->n; i++)
		if ((pins >> i) & 1u)
			rep->conflict_pins[rep->nconflict_pins++] = (uint8_t)i;
	explain_text(rep->why, sizeof rep->why, o, rules, pins);
}

int catan_board_generate(catan_board *out, const catan_genopts *opts,
			 catan_genreport *report)
{
	catan_genreport dummy;
	catan_genreport *rep = report ? report : &dummy;
	catan_components parts;
	catan_board shape;
	pinned p;

	memset(rep, 0, sizeof *rep);
	rep->status = CATAN_GEN_BAD_INPUT;
	if (opts->method >= CATAN_GEN_METHOD_COUNT ||
	    (opts->rules & ~CATAN_RULES_ALL))
		return fail(rep, CATAN_GEN_BAD_INPUT,
			    "unknown generation method or rule",
			    CATAN_E_BAD_OPTION);
	int rc = catan_board_shape(&shape, &parts, opts->shape, opts->radius);
	if (rc == CATAN_E_CAPACITY)
		return fail(rep, CATAN_GEN_BAD_INPUT,
			    "the board is larger than this build holds "
			    "(rebuild with -DCATAN_MAX_RADIUS=N)",
			    rc);
	if (rc)
		return fail(rep, CATAN_GEN_BAD_INPUT,
			    "unknown board shape or radius below 1", rc);
	if (opts->npins > shape.ntiles)
		return fail(rep, CATAN_GEN_BAD_INPUT, "more pins than tiles",
			    CATAN_E_BAD_TILE);
	p.n = opts->npins;
	for (int i = 0; i < p.n; i++) {
		const catan_pin *pin = &opts->pins[i];
		int t = catan_board_tile(&shape, pin->hex.q, pin->hex.r);
		if (t < 0)
			return fail(rep, CATAN_GEN_BAD_INPUT,
				    "a pin names a hex that is not a land tile "
				    "of this board",
				    CATAN_E_BAD_TILE);
		for (int j = 0; j < i; j++)
			if (p.tile[j] == t)
				return fail(rep, CATAN_GEN_BAD_INPUT,
					    "two pins name the same tile",
					    CATAN_E_BAD_TILE);
		bool terr_ok =
		    pin->terrain == CATAN_NONE || pin->terrain <= CATAN_DESERT;
		bool tok_ok =
		    pin->token == 0 ||
		    (pin->token >= 2 && pin->token <= 12 && pin->token != 7);
		if (!terr_ok || !tok_ok ||
		    (pin->terrain == CATAN_NONE && !pin->token))
			return fail(rep, CATAN_GEN_BAD_INPUT,
				    "a pin needs a terrain, a token (2-12 but "
				    "7) or both",
				    CATAN_E_BAD_OPTION);
		p.tile[i] = (uint8_t)t;
		p.terrain[i] = pin->terrain;
		p.token[i] = pin->token;
	}
	if (opts->max_pips < 1 || opts->max_pips > 15)
		return fail(rep, CATAN_GEN_BAD_INPUT,
			    "the pip limit must be from 1 to 15",
			    CATAN_E_BAD_OPTION);

	unsigned rules = opts->rules;
	gen_ctx c;
	node root, sol;
	uint64_t all = p.n >= 64 ? ~0ull : ((1ull << p.n) - 1);
	ctx_init(&c, &shape, &parts, rules, opts->max_pips);
	catan_rng_seed(&c.rng, opts->seed);
	uint32_t budget = opts->budget ? opts->budget : DEFAULT_BUDGET;
	node_root(&root, &c, &parts);
	if (!apply_pins(&c, &root, &p, all) || !counts_fit(&c, &root)) {
		explain(rep, opts, &shape, &parts, &p);
		return CATAN_E_BAD_OPTION;
	}

	int r;
	if (opts->method == CATAN_GEN_EXACT) {
		r = sample_exact(&c, &root, &sol, budget, &rep->tries);
		rep->exact = r == R_FOUND;
	} else {
		r = search_restarts(&c, &root, &sol, budget, &rep->tries);
	}
	rep->steps = c.steps;
	if (r == R_FAIL) {
		explain(rep, opts, &shape, &parts, &p);
		return CATAN_E_BAD_OPTION;
	}
	if (r == R_BUDGET)
		return fail(rep, CATAN_GEN_BUDGET,
			    "no board found within the step budget; the "
			    "rules and pins may be too tight",
			    CATAN_E_BAD_OPTION);
	if (opts->method == CATAN_GEN_AUTO)
		mix(&c, &sol, &p, opts->mix ? opts->mix : DEFAULT_MIX);

	for (int t = 0; t < shape.ntiles; t++) {
		shape.tile_terrain[t] = sol.terr[t];
		shape.tile_token[t] = sol.tok[t];
	}
	uint8_t kinds[CATAN_MAX_HARBOURS];
	int nk = 0;
	for (int k = 0; k < CATAN_HARBOUR_KINDS; k++)
		for (int i = 0; i < parts.harbour[k]; i++)
			kinds[nk++] = (uint8_t)k;
	for (int i = nk - 1; i > 0; i--) {
		int j = (int)catan_rng_below(&c.rng, (uint32_t)i + 1);
		uint8_t tmp = kinds[i];
		kinds[i] = kinds[j];
		kinds[j] = tmp;
	}
	for (int h = 0; h < shape.nharbours && h < nk; h++)
		shape.harbour_kind[h] = kinds[h];
	catan_board_finish(&shape);
	*out = shape;
	rep->status = CATAN_GEN_FOUND;
	return CATAN_OK;
}

/* ---- checking and measuring any board ---- */

unsigned catan_board_rules_met(const catan_board *b, int max_pips)
{
	static const int dq[3] = {1, 0, 1}, dr[3] = {0, 1, -1};
	unsigned ok = CATAN_RULES_ALL;
	int tiles[CATAN_RES_COUNT] = {0}, low[CATAN_RES_COUNT] = {0};

	for (int t = 0; t < b->ntiles; t++) {
		int x = b->tile_terrain[t], k = b->tile_token[t];
		if (x < CATAN_RES_COUNT) {
			tiles[x]++;
			low[x] += catan_token_pips(k) <= 2;
		}
		for (int d = 0; d < 3; d++) {
			int u = catan_board_tile(b, b->tile_hex[t].q + dq[d],
						 b->tile_hex[t].r + dr[d]);
			if (u < 0)
				continue;
			int y = b->tile_terrain[u], m = b->tile_token[u];
			if (x < CATAN_RES_COUNT && x == y)
				ok &= ~(1u << CATAN_RULE_SAME_RESOURCE);
			if (k && k == m)
				ok &= ~(1u << CATAN_RULE_SAME_TOKEN);
			if ((k == 6 || k == 8) && (m == 6 || m == 8))
				ok &= ~(1u << CATAN_RULE_RED_APART);
		}
	}
	for (int x = 0; x < CATAN_RES_COUNT; x++)
		if (low[x] > tiles[x] / 2)
			ok &= ~(1u << CATAN_RULE_LOW_SPREAD);
	for (int v = 0; v < b->nvertices; v++) {
		int sum = 0;
		for (int i = 0; i < 3; i++)
			if (b->vertex_tiles[v][i] != CATAN_NONE)
				sum += catan_token_pips(
				    b->tile_token[b->vertex_tiles[v][i]]);
		if (sum > max_pips)
			ok &= ~(1u << CATAN_RULE_MAX_PIPS);
	}
	return ok;
}

static int vertex_pips(const catan_board *b, int v, int *kinds)
{
	int sum = 0;
	unsigned seen = 0;
	for (int i = 0; i < 3; i++) {
		int t = b->vertex_tiles[v][i];
		if (t == CATAN_NONE)
			continue;
		sum += catan_token_pips(b->tile_token[t]);
		if (b->tile_terrain[t] < CATAN_RES_COUNT)
			seen |= 1u << b->tile_terrain[t];
	}
	*kinds = popcount(seen);
	return sum;
}

void catan_board_balance(catan_balance *out, const catan_board *b, int spots)
{
	static const int dq[6] = {1, 1, 0, -1, -1, 0},
			 dr[6] = {-1, 0, 1, 1, 0, -1};
	memset(out, 0, sizeof *out);
	for (int t = 0; t < b->ntiles; t++) {
		int x = b->tile_terrain[t], k = b->tile_token[t];
		if (x >= CATAN_RES_COUNT)
			continue;
		out->res_tiles[x]++;
		out->res_pips[x] =
		    (uint16_t)(out->res_pips[x] + catan_token_pips(k));
		out->res_low[x] += catan_token_pips(k) <= 2;
		for (int d = 0; d < 3; d++) {
			int u = catan_board_tile(b, b->tile_hex[t].q + dq[d],
						 b->tile_hex[t].r + dr[d]);
			if (u >= 0 && b->tile_terrain[u] == x)
				out->res_pairs[x]++;
		}
	}
	/* Largest touching group per resource: flood fill. */
	uint8_t seen[MAXT] = {0}, stack[MAXT];
	for (int t = 0; t < b->ntiles; t++) {
		int x = b->tile_terrain[t];
		if (x >= CATAN_RES_COUNT || seen[t])
			continue;
		int top = 0, size = 0;
		stack[top++] = (uint8_t)t;
		seen[t] = 1;
		while (top) {
			int u = stack[--top];
			size++;
			for (int d = 0; d < 6; d++) {
				int w = catan_board_tile(
				    b, b->tile_hex[u].q + dq[d],
				    b->tile_hex[u].r + dr[d]);
				if (w >= 0 && !seen[w] &&
				    b->tile_terrain[w] == x) {
					seen[w] = 1;
					stack[top++] = (uint8_t)w;
				}
			}
		}
		if (size > out->res_cluster[x])
			out->res_cluster[x] = (uint8_t)size;
	}
	int kinds;
	for (int v = 0; v < b->nvertices; v++) {
		int p = vertex_pips(b, v, &kinds);
		if (p > out->max_pips) {
			out->max_pips = (uint8_t)p;
			out->max_pips_vertex = (uint8_t)v;
		}
	}
	if (spots < 1)
		spots = 1;
	if (spots > CATAN_BALANCE_SPOTS)
		spots = CATAN_BALANCE_SPOTS;
	catan_vset closed;
	memset(&closed, 0, sizeof closed);
	for (int i = 0; i < spots; i++) {
		int best = -1, bp = -1, bk = -1;
		for (int v = 0; v < b->nvertices; v++) {
			if (catan_vset_has(&closed, v))
				continue;
			int p = vertex_pips(b, v, &kinds);
			if (p > bp || (p == bp && kinds > bk)) {
				best = v;
				bp = p;
				bk = kinds;
			}
		}
		if (best < 0)
			break;
		out->spot[i] = (uint8_t)best;
		out->spot_pips[i] = (uint8_t)bp;
		out->spot_kinds[i] = (uint8_t)bk;
		out->nspots++;
		catan_vset_add(&closed, best);
		for (int k = 0; k < CATAN_VWORDS; k++)
			closed.w[k] |= b->vertex_nbrs[best].w[k];
	}
	out->rules_met = (uint8_t)catan_board_rules_met(b, 11);
}

int catan_board_random_ext56(catan_board *out, uint64_t seed)
{
	catan_genopts o;
	catan_genopts_default(&o);
	o.shape = CATAN_SHAPE_EXT56;
	o.rules = 1u << CATAN_RULE_RED_APART;
	o.method = CATAN_GEN_EXACT;
	o.seed = seed;
	/* One attempt in a few dozen succeeds: the budget is never near. */
	return catan_board_generate(out, &o, NULL);
}
