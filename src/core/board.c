/*
 * board.c - board topology (any shape of land tiles), the beginner board and
 * the official variable set-up.
 *
 * Topology is built once: every corner and side of every land tile is
 * reduced to its canonical name (N/S corner, W/NW/NE side of some hex), the
 * names are sorted by (r, q, dir) and numbered, and every adjacency table and
 * bit mask is derived from those numbers. Nothing here is on a hot path.
 */
#include "catan/board.h"

#include "catan/rng.h"
#include "board_internal.h"

#include <string.h>

/* Canonical key of a corner or side: hex + canonical direction. */
typedef struct key {
	int q, r, d;
} key;

static key vertex_key(int q, int r, int dir)
{
	switch (dir) {
	case CATAN_VDIR_N:
		return (key){q, r, CATAN_VDIR_N};
	case CATAN_VDIR_S:
		return (key){q, r, CATAN_VDIR_S};
	case CATAN_VDIR_NE:
		return (key){q + 1, r - 1, CATAN_VDIR_S};
	case CATAN_VDIR_SE:
		return (key){q, r + 1, CATAN_VDIR_N};
	case CATAN_VDIR_SW:
		return (key){q - 1, r + 1, CATAN_VDIR_N};
	default: /* NW */
		return (key){q, r - 1, CATAN_VDIR_S};
	}
}

static key edge_key(int q, int r, int dir)
{
	switch (dir) {
	case CATAN_EDIR_W:
		return (key){q, r, CATAN_EDIR_W};
	case CATAN_EDIR_NW:
		return (key){q, r, CATAN_EDIR_NW};
	case CATAN_EDIR_NE:
		return (key){q, r, CATAN_EDIR_NE};
	case CATAN_EDIR_E:
		return (key){q + 1, r, CATAN_EDIR_W};
	case CATAN_EDIR_SE:
		return (key){q, r + 1, CATAN_EDIR_NW};
	default: /* SW */
		return (key){q - 1, r + 1, CATAN_EDIR_NE};
	}
}

static bool in_grid(int q, int r)
{
	return q >= -CATAN_GRID_OFF && q <= CATAN_GRID_OFF &&
	       r >= -CATAN_GRID_OFF && r <= CATAN_GRID_OFF;
}

int catan_board_tile(const catan_board *b, int q, int r)
{
	if (!in_grid(q, r)) /* compares only: no overflow */
		return -1;
	int t = b->tile_at[q + CATAN_GRID_OFF][r + CATAN_GRID_OFF];
	return t == CATAN_NONE ? -1 : t;
}

/* Keys reach one hex beyond (q,r): stay far from int overflow. */
static bool near_grid(int q, int r)
{
	return q >= -CATAN_GRID_OFF - 1 && q <= CATAN_GRID_OFF + 1 &&
	       r >= -CATAN_GRID_OFF - 1 && r <= CATAN_GRID_OFF + 1;
}

int catan_board_vertex(const catan_board *b, int q, int r, int dir)
{
	if (dir < 0 || dir >= CATAN_VDIR_COUNT || !near_grid(q, r))
		return -1;
	key k = vertex_key(q, r, dir);
	if (!in_grid(k.q, k.r))
		return -1;
	int v = b->vertex_at[k.q + CATAN_GRID_OFF][k.r + CATAN_GRID_OFF][k.d];
	return v == CATAN_NONE ? -1 : v;
}

int catan_board_edge(const catan_board *b, int q, int r, int dir)
{
	if (dir < 0 || dir >= CATAN_EDIR_COUNT || !near_grid(q, r))
		return -1;
	key k = edge_key(q, r, dir);
	if (!in_grid(k.q, k.r))
		return -1;
	int e = b->edge_at[k.q + CATAN_GRID_OFF][k.r + CATAN_GRID_OFF][k.d];
	return e == CATAN_NONE ? -1 : e;
}

int catan_board_edge_between(const catan_board *b, int a, int v)
{
	if (a < 0 || v < 0 || a >= b->nvertices || v >= b->nvertices || a == v)
		return -1;
	for (int i = 0; i < 3; i++) {
		int e = b->vertex_edges[a][i];
		if (e == CATAN_NONE)
			continue;
		if (b->edge_vertices[e][0] == v || b->edge_vertices[e][1] == v)
			return e;
	}
	return -1;
}

int catan_board_check_harbours(const catan_board *b, int *which,
			       const char **why)
{
	for (int h = 0; h < b->nharbours; h++) {
		int e = b->harbour_edge[h], land = 0;
		*which = h;
		if (e >= b->nedges || b->harbour_kind[h] >= CATAN_HARBOUR_KINDS) {
			*why = "no such harbour side or kind";
			return CATAN_E_BAD_EDGE;
		}
		for (int t = 0; t < b->ntiles; t++)
			for (int s = 0; s < 6; s++)
				land += b->tile_edges[t][s] == e;
		if (land != 1) {
			*why = "a harbour must be on a side facing the sea";
			return CATAN_E_BAD_EDGE;
		}
		for (int g = 0; g < h; g++) {
			int f = b->harbour_edge[g];
			if (f == e) {
				*why = "two harbours on one side";
				return CATAN_E_BAD_EDGE;
			}
			for (int i = 0; i < 4; i++)
				if (b->edge_vertices[e][i / 2] ==
				    b->edge_vertices[f][i % 2]) {
					*why = "two harbours share a corner";
					return CATAN_E_BAD_EDGE;
				}
		}
	}
	return CATAN_OK;
}

unsigned catan_board_harbour_access(const catan_board *b,
				    const catan_vset *owned)
{
	unsigned m = 0;
	for (int h = 0; h < CATAN_HARBOUR_KINDS; h++)
		if (catan_vset_intersects(owned, &b->harbour_vmask[h]))
			m |= 1u << h;
	return m;
}

int catan_board_rate(const catan_board *b, const catan_vset *owned, int res)
{
	unsigned m = catan_board_harbour_access(b, owned);
	if (m & (1u << res))
		return 2;
	if (m & (1u << CATAN_HARBOUR_GENERIC))
		return 3;
	return 4;
}

/*
 * Marks of the keys present, by grid cell (q, then r) and direction, as
 * tile_at, vertex_at and edge_at index them: an id is given to
 * each in (r, q, d) order by one scan of the grid (a random board is built
 * for every benchmark game, so no sorting).
 */
typedef struct key_marks {
	uint8_t tile[CATAN_GRID * CATAN_GRID];
	uint8_t vertex[CATAN_GRID * CATAN_GRID * 2];
	uint8_t edge[CATAN_GRID * CATAN_GRID * 3];
} key_marks;

/* The key `k` of hex (0,0) (a corner or side) moved to hex (q, r). */
static key key_near(const key *k, int q, int r)
{
	return (key){q + k->q, r + k->r, k->d};
}

/* Marks k in `cells` (a key_marks table); true if it was not marked yet. */
static bool key_mark(uint8_t *cells, int ndirs, key k)
{
	int cell = (k.q + CATAN_GRID_OFF) * CATAN_GRID + k.r + CATAN_GRID_OFF;
	uint8_t *m = &cells[cell * ndirs + k.d];
	if (*m)
		return false;
	*m = 1;
	return true;
}

/*
 * The marked keys of `cells` in (r, q, d) order into keys[]; their count.
 * Only the cells from `lo` to `hi` (grid indices, d unused) hold marks.
 */
static int key_list(key *keys, const uint8_t *cells, int ndirs, key lo, key hi)
{
	int n = 0;
	for (int r = lo.r; r <= hi.r; r++)
		for (int q = lo.q; q <= hi.q; q++)
			for (int d = 0; d < ndirs; d++)
				if (cells[(q * CATAN_GRID + r) * ndirs + d])
					keys[n++] =
					    (key){q - CATAN_GRID_OFF,
						  r - CATAN_GRID_OFF, d};
	return n;
}

int catan_board_init_shape(catan_board *out, const catan_hex *hexes, int n)
{
	/* The canonical keys (vertex_key(), edge_key()) of the corners N,
	 * NE, SE, S, SW, NW and the sides NE, E, SE, SW, W, NW of (q, r):
	 * (q + dq, r + dr, d). */
	static const key corner_keys[6] = {
	    {0, 0, CATAN_VDIR_N}, {1, -1, CATAN_VDIR_S}, {0, 1, CATAN_VDIR_N},
	    {0, 0, CATAN_VDIR_S}, {-1, 1, CATAN_VDIR_N}, {0, -1, CATAN_VDIR_S},
	};
	static const key side_keys[6] = {
	    {0, 0, CATAN_EDIR_NE},  {1, 0, CATAN_EDIR_W}, {0, 1, CATAN_EDIR_NW},
	    {-1, 1, CATAN_EDIR_NE}, {0, 0, CATAN_EDIR_W}, {0, 0, CATAN_EDIR_NW},
	};
	/* Corner index pairs (into corner_keys) bounding each side. */
	static const int side_corners[6][2] = {{0, 1}, {1, 2}, {2, 3},
					       {3, 4}, {4, 5}, {5, 0}};
	key tiles[CATAN_MAX_TILES], verts[CATAN_MAX_VERTICES],
	    edges[CATAN_MAX_EDGES];
	key_marks marks;
	int nt, nv = 0, ne = 0;
	/* The grid cells the keys are in: the tiles' and one hex around. */
	key lo = {CATAN_GRID, CATAN_GRID, 0}, hi = {0, 0, 0};

	if (n < 1 || n > CATAN_MAX_TILES)
		return CATAN_E_CAPACITY;
	memset(&marks, 0, sizeof marks);
	for (int i = 0; i < n; i++) {
		int q = hexes[i].q, r = hexes[i].r;
		/* Corners and sides reach one hex out: keep them in the grid. */
		if (q <= -CATAN_GRID_OFF || q >= CATAN_GRID_OFF ||
		    r <= -CATAN_GRID_OFF || r >= CATAN_GRID_OFF)
			return CATAN_E_CAPACITY;
		if (!key_mark(marks.tile, 1, (key){q, r, 0}))
			return CATAN_E_BAD_TILE;
		int gq = q + CATAN_GRID_OFF, gr = r + CATAN_GRID_OFF;
		lo.q = gq - 1 < lo.q ? gq - 1 : lo.q;
		lo.r = gr - 1 < lo.r ? gr - 1 : lo.r;
		hi.q = gq + 1 > hi.q ? gq + 1 : hi.q;
		hi.r = gr + 1 > hi.r ? gr + 1 : hi.r;
		for (int c = 0; c < 6; c++) {
			nv += key_mark(marks.vertex, 2,
				       key_near(&corner_keys[c], q, r));
			if (nv > CATAN_MAX_VERTICES)
				return CATAN_E_CAPACITY;
		}
		for (int s = 0; s < 6; s++) {
			ne += key_mark(marks.edge, 3,
				       key_near(&side_keys[s], q, r));
			if (ne > CATAN_MAX_EDGES)
				return CATAN_E_CAPACITY;
		}
	}
	nt = key_list(tiles, marks.tile, 1, lo, hi);
	key_list(verts, marks.vertex, 2, lo, hi);
	key_list(edges, marks.edge, 3, lo, hi);

	catan_board *b = out;
	memset(b, 0, sizeof *b);
	memset(b->tile_at, CATAN_NONE, sizeof b->tile_at);
	memset(b->vertex_at, CATAN_NONE, sizeof b->vertex_at);
	memset(b->edge_at, CATAN_NONE, sizeof b->edge_at);
	memset(b->tile_vertices, CATAN_NONE, sizeof b->tile_vertices);
	memset(b->tile_edges, CATAN_NONE, sizeof b->tile_edges);
	memset(b->vertex_tiles, CATAN_NONE, sizeof b->vertex_tiles);
	memset(b->vertex_edges, CATAN_NONE, sizeof b->vertex_edges);
	memset(b->vertex_vertices, CATAN_NONE, sizeof b->vertex_vertices);
	memset(b->vertex_harbour, CATAN_NONE, sizeof b->vertex_harbour);
	b->ntiles = (uint8_t)nt;
	b->nvertices = (uint8_t)nv;
	b->nedges = (uint8_t)ne;
	b->robber_start = CATAN_NONE;

	int radius = 0;
	for (int t = 0; t < nt; t++) {
		int q = tiles[t].q, r = tiles[t].r, s = -q - r;
		int m = q < 0 ? -q : q;
		m = m > (r < 0 ? -r : r) ? m : (r < 0 ? -r : r);
		m = m > (s < 0 ? -s : s) ? m : (s < 0 ? -s : s);
		radius = m > radius ? m : radius;
		b->tile_hex[t] = (catan_hex){(int8_t)q, (int8_t)r};
		b->tile_terrain[t] = CATAN_DESERT;
		b->tile_at[q + CATAN_GRID_OFF][r + CATAN_GRID_OFF] = (uint8_t)t;
	}
	b->radius = (uint8_t)radius;
	for (int v = 0; v < nv; v++) {
		b->vertex_hex[v] = (catan_hex){(int8_t)verts[v].q,
					       (int8_t)verts[v].r};
		b->vertex_dir[v] = (uint8_t)verts[v].d;
		b->vertex_at[verts[v].q + CATAN_GRID_OFF]
			    [verts[v].r + CATAN_GRID_OFF][verts[v].d] =
			(uint8_t)v;
	}
	for (int e = 0; e < ne; e++) {
		b->edge_hex[e] = (catan_hex){(int8_t)edges[e].q,
					     (int8_t)edges[e].r};
		b->edge_dir[e] = (uint8_t)edges[e].d;
		b->edge_at[edges[e].q + CATAN_GRID_OFF]
			  [edges[e].r + CATAN_GRID_OFF][edges[e].d] = (uint8_t)e;
	}

	/*
	 * Tile corners and sides; vertex tiles; edge endpoints. A tile's
	 * corners are distinct, and so are the two ends of an edge and the
	 * edges themselves: each list below gets an id once (no test for
	 * duplicates), in increasing order of what it is listed from.
	 */
	uint8_t ntv[CATAN_MAX_VERTICES] = {0}, deg[CATAN_MAX_VERTICES] = {0};
	for (int t = 0; t < nt; t++) {
		int q = tiles[t].q + CATAN_GRID_OFF,
		    r = tiles[t].r + CATAN_GRID_OFF;
		for (int c = 0; c < 6; c++) {
			const key *k = &corner_keys[c];
			int v = b->vertex_at[q + k->q][r + k->r][k->d];
			b->tile_vertices[t][c] = (uint8_t)v;
			b->vertex_tiles[v][ntv[v]++] = (uint8_t)t;
			b->vertex_tmask[v] |= 1ull << t;
			catan_vset_add(&b->tile_vmask[t], v);
		}
		for (int s = 0; s < 6; s++) {
			const key *k = &side_keys[s];
			int e = b->edge_at[q + k->q][r + k->r][k->d];
			int v0 = b->tile_vertices[t][side_corners[s][0]];
			int v1 = b->tile_vertices[t][side_corners[s][1]];
			b->tile_edges[t][s] = (uint8_t)e;
			/* Store endpoints in id order for a stable layout. */
			b->edge_vertices[e][0] = (uint8_t)(v0 < v1 ? v0 : v1);
			b->edge_vertices[e][1] = (uint8_t)(v0 < v1 ? v1 : v0);
		}
	}
	for (int e = 0; e < ne; e++) {
		int v0 = b->edge_vertices[e][0], v1 = b->edge_vertices[e][1];
		b->vertex_edges[v0][deg[v0]] = (uint8_t)e;
		b->vertex_vertices[v0][deg[v0]++] = (uint8_t)v1;
		b->vertex_edges[v1][deg[v1]] = (uint8_t)e;
		b->vertex_vertices[v1][deg[v1]++] = (uint8_t)v0;
		catan_vset_add(&b->vertex_nbrs[v0], v1);
		catan_vset_add(&b->vertex_nbrs[v1], v0);
		catan_eset_add(&b->vertex_emask[v0], e);
		catan_eset_add(&b->vertex_emask[v1], e);
	}
	for (int v = 0; v < nv; v++)
		for (int j = 0; j < 2; j++)
			if (deg[v] >> j & 1)
				catan_vset_add(&b->vertex_deg[j], v);
	catan_board_finish(b);
	return CATAN_OK;
}

int catan_board_init_hexagon(catan_board *out, int radius)
{
	catan_hex hexes[CATAN_MAX_TILES];
	int n = 0;
	if (radius < 1 || radius > CATAN_MAX_RADIUS)
		return CATAN_E_CAPACITY;
	for (int r = -radius; r <= radius; r++)
		for (int q = -radius; q <= radius; q++)
			if (-q - r >= -radius && -q - r <= radius)
				hexes[n++] = (catan_hex){(int8_t)q, (int8_t)r};
	return catan_board_init_shape(out, hexes, n);
}

void catan_board_finish(catan_board *b)
{
	memset(b->token_ntiles, 0, sizeof b->token_ntiles);
	memset(b->token_tiles, CATAN_NONE, sizeof b->token_tiles);
	memset(b->harbour_vmask, 0, sizeof b->harbour_vmask);
	memset(b->vertex_harbour, CATAN_NONE, sizeof b->vertex_harbour);
	b->robber_start = CATAN_NONE;
	for (int t = 0; t < b->ntiles; t++) {
		int tok = b->tile_token[t];
		if (b->tile_terrain[t] == CATAN_DESERT) {
			if (b->robber_start == CATAN_NONE)
				b->robber_start = (uint8_t)t;
			continue;
		}
		if (tok >= 2 && tok <= 12 && b->token_ntiles[tok] < 8)
			b->token_tiles[tok][b->token_ntiles[tok]++] = (uint8_t)t;
	}
	for (int h = 0; h < b->nharbours; h++) {
		int e = b->harbour_edge[h], k = b->harbour_kind[h];
		for (int i = 0; i < 2; i++) {
			int v = b->edge_vertices[e][i];
			catan_vset_add(&b->harbour_vmask[k], v);
			b->vertex_harbour[v] = (uint8_t)k;
		}
	}
}

/* The standard board's harbour edges, in the beginner board's order. */
const catan_side catan_std_harbours[9] = {
	{0, -2, CATAN_EDIR_NW}, {1, -2, CATAN_EDIR_NE}, {2, -1, CATAN_EDIR_NE},
	{2, 0, CATAN_EDIR_E},	{1, 1, CATAN_EDIR_SE},	{-1, 2, CATAN_EDIR_SE},
	{-2, 2, CATAN_EDIR_SW}, {-2, 1, CATAN_EDIR_W},	{-1, -1, CATAN_EDIR_W},
};

void catan_board_beginner(catan_board *out)
{
	static const struct {
		int q, r, terrain, token;
	} tiles[19] = {
		{0, -2, CATAN_ORE, 10},	   {1, -2, CATAN_WOOL, 2},
		{2, -2, CATAN_LUMBER, 9},  {-1, -1, CATAN_GRAIN, 12},
		{0, -1, CATAN_BRICK, 6},   {1, -1, CATAN_WOOL, 4},
		{2, -1, CATAN_BRICK, 10},  {-2, 0, CATAN_GRAIN, 9},
		{-1, 0, CATAN_LUMBER, 11}, {0, 0, CATAN_DESERT, 0},
		{1, 0, CATAN_LUMBER, 3},   {2, 0, CATAN_ORE, 8},
		{-2, 1, CATAN_LUMBER, 8},  {-1, 1, CATAN_ORE, 3},
		{0, 1, CATAN_GRAIN, 4},	   {1, 1, CATAN_WOOL, 5},
		{-2, 2, CATAN_BRICK, 5},   {-1, 2, CATAN_GRAIN, 6},
		{0, 2, CATAN_WOOL, 11},
	};
	static const int kinds[9] = {
		CATAN_HARBOUR_GENERIC, CATAN_GRAIN, CATAN_ORE,
		CATAN_HARBOUR_GENERIC, CATAN_WOOL,  CATAN_HARBOUR_GENERIC,
		CATAN_HARBOUR_GENERIC, CATAN_BRICK, CATAN_LUMBER,
	};
	catan_board_init_hexagon(out, 2);
	for (int i = 0; i < 19; i++) {
		int t = catan_board_tile(out, tiles[i].q, tiles[i].r);
		if (t < 0)
			continue; /* not reached: the radius-2 hexagon has it */
		out->tile_terrain[t] = (uint8_t)tiles[i].terrain;
		out->tile_token[t] = (uint8_t)tiles[i].token;
	}
	out->nharbours = 9;
	for (int h = 0; h < 9; h++) {
		out->harbour_edge[h] = (uint8_t)catan_board_edge(
			out, catan_std_harbours[h].q, catan_std_harbours[h].r,
			catan_std_harbours[h].dir);
		out->harbour_kind[h] = (uint8_t)kinds[h];
	}
	catan_board_finish(out);
}

static void shuffle(uint8_t *a, int n, catan_rng *rng)
{
	for (int i = n - 1; i > 0; i--) {
		int j = (int)catan_rng_below(rng, (uint32_t)i + 1);
		uint8_t t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

/* True if no two tiles adjacent to each other both carry a 6 or an 8. */
static bool red_numbers_apart(const catan_board *b)
{
	static const int dq[3] = {1, 0, 1}, dr[3] = {0, 1, -1};
	for (int t = 0; t < b->ntiles; t++) {
		int a = b->tile_token[t];
		if (a != 6 && a != 8)
			continue;
		for (int k = 0; k < 3; k++) {
			int u = catan_board_tile(b, b->tile_hex[t].q + dq[k],
						 b->tile_hex[t].r + dr[k]);
			if (u >= 0 &&
			    (b->tile_token[u] == 6 || b->tile_token[u] == 8))
				return false;
		}
	}
	return true;
}

void catan_board_standard_topology(catan_board *out)
{
	catan_board_init_hexagon(out, 2);
	out->nharbours = 9;
	for (int h = 0; h < 9; h++)
		out->harbour_edge[h] = (uint8_t)catan_board_edge(
		    out, catan_std_harbours[h].q, catan_std_harbours[h].r,
		    catan_std_harbours[h].dir);
}

void catan_board_random(catan_board *out, uint64_t seed)
{
	catan_board_standard_topology(out);
	catan_board_random_on(out, out, seed);
}

void catan_board_random_on(catan_board *out, const catan_board *topology,
			   uint64_t seed)
{
	uint8_t terrain[19] = {
		CATAN_LUMBER, CATAN_LUMBER, CATAN_LUMBER, CATAN_LUMBER,
		CATAN_BRICK,  CATAN_BRICK,  CATAN_BRICK,  CATAN_WOOL,
		CATAN_WOOL,   CATAN_WOOL,   CATAN_WOOL,	  CATAN_GRAIN,
		CATAN_GRAIN,  CATAN_GRAIN,  CATAN_GRAIN,  CATAN_ORE,
		CATAN_ORE,    CATAN_ORE,    CATAN_DESERT,
	};
	uint8_t tokens[18] = {2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10, 10, 11, 11, 12};
	uint8_t kinds[9] = {
		CATAN_HARBOUR_GENERIC, CATAN_HARBOUR_GENERIC,
		CATAN_HARBOUR_GENERIC, CATAN_HARBOUR_GENERIC,
		CATAN_LUMBER,	       CATAN_BRICK,
		CATAN_WOOL,	       CATAN_GRAIN,
		CATAN_ORE,
	};
	catan_rng rng;
	catan_rng_seed(&rng, seed);
	if (out != topology)
		*out = *topology;
	shuffle(terrain, 19, &rng);
	for (int t = 0; t < 19; t++)
		out->tile_terrain[t] = terrain[t];
	/*
	 * Rejection sampling keeps every valid token layout equally likely;
	 * about one shuffle in five is valid, so this ends quickly.
	 */
	do {
		shuffle(tokens, 18, &rng);
		for (int t = 0, i = 0; t < 19; t++)
			out->tile_token[t] = out->tile_terrain[t] == CATAN_DESERT
						     ? 0
						     : tokens[i++];
	} while (!red_numbers_apart(out));
	shuffle(kinds, 9, &rng);
	for (int h = 0; h < 9; h++)
		out->harbour_kind[h] = kinds[h];
	catan_board_finish(out);
}
