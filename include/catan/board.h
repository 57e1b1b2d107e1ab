/*
 * catan/board.h - board topology and layout.
 *
 * Coordinates (see spec/actions.md for the picture): pointy-top hexes in
 * axial (q, r). Neighbours: E (q+1,r), W (q-1,r), NE (q+1,r-1), NW (q,r-1),
 * SE (q,r+1), SW (q-1,r+1). A vertex is canonically the N or S corner of a
 * tile; an edge is canonically the W, NW or NE side of a tile. The other
 * names are aliases: NE corner of (q,r) = S of (q+1,r-1), SE = N of (q,r+1),
 * SW = N of (q-1,r+1), NW = S of (q,r-1); E side = W of (q+1,r), SE side =
 * NW of (q,r+1), SW side = NE of (q-1,r+1).
 *
 * A board is a set of land tiles. Its vertices and edges are every corner and
 * side touching a land tile, numbered 0..n-1 in a stable order (by canonical
 * hex (r, then q), then direction), and its adjacency is computed once into
 * the tables below. A catan_board is a plain value (no pointers): copy it
 * with =, share it read-only between states of one game.
 */
#ifndef CATAN_BOARD_H
#define CATAN_BOARD_H

#include "catan/types.h"

/* Bit sets over vertex ids and edge ids. */
typedef struct catan_vset {
	uint64_t w[CATAN_VWORDS];
} catan_vset;
typedef struct catan_eset {
	uint64_t w[CATAN_EWORDS];
} catan_eset;

/* Side of the coordinate lookup grid: q and r in -CATAN_GRID_OFF..+OFF. */
#define CATAN_GRID_OFF (CATAN_MAX_RADIUS + 2)
#define CATAN_GRID (2 * CATAN_GRID_OFF + 1)

typedef struct catan_board {
	uint8_t ntiles, nvertices, nedges, nharbours;
	uint8_t robber_start; /* tile id of the desert (or 0) */
	uint8_t radius;	      /* max |coordinate| of any land tile */

	/* Layout. */
	catan_hex tile_hex[CATAN_MAX_TILES];
	uint8_t tile_terrain[CATAN_MAX_TILES]; /* catan_res or CATAN_DESERT */
	uint8_t tile_token[CATAN_MAX_TILES];   /* 2..12, 0 on the desert */
	uint8_t harbour_edge[CATAN_MAX_HARBOURS];
	uint8_t harbour_kind[CATAN_MAX_HARBOURS]; /* res or GENERIC */

	/* Canonical names. */
	catan_hex vertex_hex[CATAN_MAX_VERTICES];
	uint8_t vertex_dir[CATAN_MAX_VERTICES]; /* CATAN_VDIR_N or _S */
	catan_hex edge_hex[CATAN_MAX_EDGES];
	uint8_t edge_dir[CATAN_MAX_EDGES]; /* CATAN_EDIR_W, _NW or _NE */

	/* Adjacency (CATAN_NONE pads the short lists). */
	uint8_t tile_vertices[CATAN_MAX_TILES][6]; /* N, NE, SE, S, SW, NW */
	uint8_t tile_edges[CATAN_MAX_TILES][6];	   /* NE, E, SE, SW, W, NW */
	uint8_t vertex_tiles[CATAN_MAX_VERTICES][3];
	uint8_t vertex_edges[CATAN_MAX_VERTICES][3];
	/* vertex_vertices[v][i]: the vertex across vertex_edges[v][i]. */
	uint8_t vertex_vertices[CATAN_MAX_VERTICES][3];
	uint8_t edge_vertices[CATAN_MAX_EDGES][2];
	uint8_t vertex_harbour[CATAN_MAX_VERTICES]; /* kind or CATAN_NONE */

	/* The same adjacency as bit sets, for the fast paths. */
	catan_vset tile_vmask[CATAN_MAX_TILES];
	catan_vset vertex_nbrs[CATAN_MAX_VERTICES]; /* adjacent vertices */
	catan_eset vertex_emask[CATAN_MAX_VERTICES];
	catan_vset harbour_vmask[CATAN_HARBOUR_KINDS];
	uint64_t vertex_tmask[CATAN_MAX_VERTICES]; /* bit t: tile t has v */
	catan_vset vertex_deg[2]; /* each vertex's edge count, bit-sliced */

	/* Tiles by token number, for production. */
	uint8_t token_ntiles[13];
	uint8_t token_tiles[13][8];

	/* Coordinate lookups: (q, r, dir) -> id or CATAN_NONE. */
	uint8_t tile_at[CATAN_GRID][CATAN_GRID];
	uint8_t vertex_at[CATAN_GRID][CATAN_GRID][2];
	uint8_t edge_at[CATAN_GRID][CATAN_GRID][3];
} catan_board;

/* Tile bit masks (vertex_tmask, the robber's placements) fit one word. */
_Static_assert(CATAN_MAX_TILES <= 64, "tile masks are 64-bit");

/* ---- bit set helpers (inline: they are the hot path) ---- */

/*
 * Population count. Uses the instruction where the target has it, else a
 * branch-free SWAR sum (libgcc's table version is several times slower).
 */
static inline int catan_popcount64(uint64_t x)
{
#if defined(__POPCNT__) || !defined(__x86_64__)
	return __builtin_popcountll(x);
#else
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (int)((x * 0x0101010101010101ull) >> 56);
#endif
}

static inline bool catan_vset_has(const catan_vset *s, int i)
{
	return (s->w[i >> 6] >> (i & 63)) & 1u;
}
static inline void catan_vset_add(catan_vset *s, int i)
{
	s->w[i >> 6] |= (uint64_t)1 << (i & 63);
}
static inline void catan_vset_del(catan_vset *s, int i)
{
	s->w[i >> 6] &= ~((uint64_t)1 << (i & 63));
}
static inline bool catan_eset_has(const catan_eset *s, int i)
{
	return (s->w[i >> 6] >> (i & 63)) & 1u;
}
static inline void catan_eset_add(catan_eset *s, int i)
{
	s->w[i >> 6] |= (uint64_t)1 << (i & 63);
}
static inline int catan_vset_count(const catan_vset *s)
{
	int n = 0;
	for (int k = 0; k < CATAN_VWORDS; k++)
		n += catan_popcount64(s->w[k]);
	return n;
}
static inline int catan_eset_count(const catan_eset *s)
{
	int n = 0;
	for (int k = 0; k < CATAN_EWORDS; k++)
		n += catan_popcount64(s->w[k]);
	return n;
}
static inline bool catan_vset_intersects(const catan_vset *a,
					 const catan_vset *b)
{
	uint64_t x = 0;
	for (int k = 0; k < CATAN_VWORDS; k++)
		x |= a->w[k] & b->w[k];
	return x != 0;
}
static inline int catan_vset_count_and(const catan_vset *a, const catan_vset *b)
{
	int n = 0;
	for (int k = 0; k < CATAN_VWORDS; k++)
		n += catan_popcount64(a->w[k] & b->w[k]);
	return n;
}

/*
 * Runs the statement after it once per set bit of words[0..nwords-1], with
 * `var` the bit index: CATAN_FOR_BITS(v, set.w, CATAN_VWORDS) { ... }.
 * (break leaves only the innermost loop; use a flag or return.)
 */
#define CATAN_FOR_BITS(var, words, nwords)                                     \
	for (int var##_k = 0; var##_k < (nwords); var##_k++)                   \
		for (uint64_t var##_m = (words)[var##_k]; var##_m;             \
		     var##_m &= var##_m - 1)                                   \
			for (int var = var##_k * 64 + __builtin_ctzll(var##_m), \
				 var##_once = 1;                               \
			     var##_once; var##_once = 0)

/* ---- construction ---- */

/*
 * Builds the topology of the land tiles `hexes[0..n-1]` (any shape) into
 * `out`: ids, canonical names, adjacency, masks. Terrain is desert, tokens 0,
 * no harbours. Returns CATAN_OK, or CATAN_E_CAPACITY if the shape does not fit
 * the compiled capacity, or CATAN_E_BAD_TILE for a duplicate tile.
 */
int catan_board_init_shape(catan_board *out, const catan_hex *hexes, int n);

/* The topology of the hexagon of radius `radius` (>= 1) around (0,0). */
int catan_board_init_hexagon(catan_board *out, int radius);

/* The official 5th edition beginner board (DESIGN.md). Cannot fail. */
void catan_board_beginner(catan_board *out);

/*
 * The official "variable set-up" board from `seed`: shuffled terrain,
 * shuffled tokens with no 6 or 8 next to a 6 or 8, harbour kinds shuffled
 * over the standard harbour edges, robber on the desert. The same seed gives
 * the same board on every machine. Cannot fail.
 */
void catan_board_random(catan_board *out, uint64_t seed);

/*
 * What catan_board_random() lays a board out on: the radius-2 hexagon's
 * topology with the standard harbour sides (kinds unset, no terrain).
 * Cannot fail.
 */
void catan_board_standard_topology(catan_board *out);

/*
 * catan_board_random() on a topology built beforehand by
 * catan_board_standard_topology(), which a caller laying out many boards
 * builds once (building it costs about a tenth of a random game's
 * instructions). `topology` may be `out`. Same board as
 * catan_board_random(out, seed), byte for byte. Cannot fail.
 */
void catan_board_random_on(catan_board *out, const catan_board *topology,
			   uint64_t seed);

/*
 * Recomputes the derived tables (token lists, harbour masks, robber start)
 * after the caller changed tile_terrain, tile_token or the harbour lists.
 */
void catan_board_finish(catan_board *b);

/* ---- lookups ---- */

/* Tile id of hex (q,r), or -1 if it is not a land tile. */
int catan_board_tile(const catan_board *b, int q, int r);

/*
 * Vertex id of corner `dir` (any catan_vdir, aliases included) of hex (q,r),
 * or -1 if that corner touches no land tile. (q,r) may be a sea hex.
 */
int catan_board_vertex(const catan_board *b, int q, int r, int dir);

/* Edge id of side `dir` (any catan_edir) of hex (q,r), or -1. */
int catan_board_edge(const catan_board *b, int q, int r, int dir);

/* The edge joining vertices a and b, or -1. */
int catan_board_edge_between(const catan_board *b, int a, int v);

/*
 * The harbours a player owning buildings `owned` may trade at: bit k set for
 * each harbour kind k (a resource, or CATAN_HARBOUR_GENERIC) with a vertex
 * in `owned`. The one definition of harbour access: the rules (as a
 * settlement is placed) and catan_state_derive (as a state is read back)
 * both call it. Cannot fail.
 */
unsigned catan_board_harbour_access(const catan_board *b,
				    const catan_vset *owned);

/*
 * Checks the structural rules of b's harbour list (b->harbour_edge,
 * ->harbour_kind, ->nharbours), before catan_board_finish: every harbour on
 * a side with land on exactly one side (the coast), no two on one side, no
 * two sharing a corner (a corner gives one trade rate). Returns CATAN_OK,
 * or CATAN_E_BAD_EDGE with *which the offending harbour (the later one of
 * a pair) and *why a sentence. The board file parser and the genesis
 * decoder both call it.
 */
int catan_board_check_harbours(const catan_board *b, int *which,
			       const char **why);

/* The best bank trade rate for a player owning `owned`: 2, 3 or 4. */
int catan_board_rate(const catan_board *b, const catan_vset *owned, int res);

/* Probability weight of a token: number of dice combinations (0..6). */
static inline int catan_token_pips(int token)
{
	return (token >= 2 && token <= 12 && token != 7)
		       ? 6 - (token > 7 ? token - 7 : 7 - token)
		       : 0;
}

#endif
