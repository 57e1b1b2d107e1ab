/*
 * catan/boardgen.h - board generation: shapes of any radius, the pieces a
 * board of that size gets, balanced layouts under switchable rules with
 * hand-pinned tiles, and a balance score for any board.
 *
 * Everything here is part of the pure core: deterministic (the same options
 * and seed give the same board on every machine), no I/O, no allocation.
 * The rules, the extrapolation of piece counts and the search are written
 * down in spec/board.md.
 */
#ifndef CATAN_BOARDGEN_H
#define CATAN_BOARDGEN_H

#include "catan/board.h"
#include "catan/types.h"

/* The balancing rules. Each is one bit of catan_genopts.rules. */
typedef enum {
	CATAN_RULE_SAME_RESOURCE, /* (1) no touching tiles of one resource */
	CATAN_RULE_SAME_TOKEN,	  /* (2) no touching tiles with one token */
	CATAN_RULE_RED_APART,	  /* (3) no 6 or 8 touching a 6 or 8 */
	CATAN_RULE_LOW_SPREAD,	  /* (4) <= half a resource's tiles low */
	CATAN_RULE_MAX_PIPS,	  /* (5) no intersection above max_pips */
	CATAN_RULE_COUNT
} catan_rule;

#define CATAN_RULES_ALL	       ((1u << CATAN_RULE_COUNT) - 1)
#define CATAN_DEFAULT_MAX_PIPS 11

/* Short names ("same-resource", ...) and sentences for the rules. */
const char *catan_rule_name(int rule);
const char *catan_rule_sentence(int rule);

/* Board shapes. */
typedef enum {
	CATAN_SHAPE_HEXAGON, /* every hex within `radius` of (0,0) */
	CATAN_SHAPE_EXT56,   /* the official 5-6 player board: 30 tiles */
	CATAN_SHAPE_COUNT
} catan_shape;

/* What a board holds: tiles of each terrain, tokens, harbours. */
typedef struct catan_components {
	uint8_t terrain[CATAN_RES_COUNT + 1]; /* by catan_res, desert last */
	uint8_t token[13];		      /* by number, [0], [1], [7] = 0 */
	uint8_t harbour[CATAN_HARBOUR_KINDS]; /* by res, generic last */
	uint8_t nharbours;
} catan_components;

/*
 * Builds the empty shape (topology, harbour edges placed, every tile desert,
 * harbour kinds unset) and the pieces that go on it. `radius` is used by
 * CATAN_SHAPE_HEXAGON only. Piece counts are the official ones for the
 * standard and 5-6 boards and extrapolated for other sizes (spec/board.md):
 * deserts round(n/19) (at least 1), land shared evenly between the five
 * resources (extras to lumber, wool, grain, brick), tokens in the official
 * proportions, harbours 0.3 per coastal side, 4 in 9 of them generic.
 * Returns CATAN_OK, CATAN_E_BAD_OPTION for a bad shape or radius < 1, or
 * CATAN_E_CAPACITY if the board does not fit CATAN_MAX_RADIUS.
 */
int catan_board_shape(catan_board *out, catan_components *parts, int shape,
		      int radius);

/* A tile fixed by hand: terrain and/or token at a hex. */
typedef struct catan_pin {
	catan_hex hex;
	uint8_t terrain; /* catan_res, CATAN_DESERT, or CATAN_NONE (free) */
	uint8_t token;	 /* 2..12 but 7, or 0 (free) */
} catan_pin;

/* How the generator searches (catan_genopts.method). */
typedef enum {
	/*
	 * Randomized backtracking search with restarts, then `mix` random
	 * swaps that keep every rule (a random walk whose stationary
	 * distribution is uniform over the valid boards): fast, and close
	 * to uniform. The default.
	 */
	CATAN_GEN_AUTO,
	/*
	 * Rejection sampling: every valid board exactly equally likely, but
	 * only practical with few rules on (with all five, about one
	 * attempt in ten million succeeds on the standard board).
	 */
	CATAN_GEN_EXACT,
	CATAN_GEN_SEARCH, /* the search alone: fastest, visibly biased */
	CATAN_GEN_METHOD_COUNT
} catan_gen_method;

typedef struct catan_genopts {
	uint8_t shape;	  /* catan_shape */
	uint8_t radius;	  /* for CATAN_SHAPE_HEXAGON */
	uint8_t rules;	  /* bit set of catan_rule */
	uint8_t max_pips; /* rule (5)'s limit */
	uint8_t method;	  /* catan_gen_method */
	uint8_t npins;
	catan_pin pins[CATAN_MAX_TILES];
	uint64_t seed;
	uint32_t budget; /* search steps in all; 0 = the default, 1e6 */
	uint32_t mix;	 /* AUTO's swap proposals; 0 = the default, 2000 */
} catan_genopts;

/* Standard board, every rule on, max_pips 11, AUTO, no pins, seed 0. */
void catan_genopts_default(catan_genopts *o);

/* Outcome of a generation, beyond the return code. */
typedef enum {
	CATAN_GEN_FOUND,      /* a board was written */
	CATAN_GEN_INFEASIBLE, /* proved: no board satisfies rules and pins */
	CATAN_GEN_BUDGET,     /* the step budget ran out undecided */
	CATAN_GEN_BAD_INPUT,  /* options or pins are malformed */
} catan_gen_status;

typedef struct catan_genreport {
	uint8_t status; /* catan_gen_status */
	uint8_t exact;	/* found by the exact sampler */
	uint32_t steps; /* search steps (draws, or nodes) used */
	uint32_t tries; /* sampling attempts or search restarts */
	/*
	 * On CATAN_GEN_INFEASIBLE: a conflicting set of rules and pins (no
	 * board has the shape's pieces, those rules and those pins). It is
	 * irreducible (dropping any one member makes a board possible)
	 * when `minimal` is set; otherwise some check ran out of budget.
	 */
	uint8_t conflict_rules;
	uint8_t minimal;
	uint8_t nconflict_pins;
	uint8_t conflict_pins[CATAN_MAX_TILES]; /* indices into opts.pins */
	char why[200]; /* a sentence for any status but FOUND */
} catan_genreport;

/*
 * Generates a board from `opts` into `out`: the shape, its pieces laid out
 * so that every rule switched on holds and every pin is respected, harbour
 * kinds shuffled over the harbour edges, the robber on the first desert.
 * Deterministic in opts (seed included). Never loops without bound: the
 * work is capped by opts->budget steps (and the conflict analysis by a
 * budget of its own).
 *
 * Returns CATAN_OK with a board, or: CATAN_E_BAD_OPTION (bad options,
 * infeasible, or budget exhausted: see report->status and report->why),
 * CATAN_E_BAD_TILE (a pin names no tile of the shape, or one tile twice),
 * CATAN_E_CAPACITY. `out` is written only on success; `report` may be NULL.
 */
int catan_board_generate(catan_board *out, const catan_genopts *opts,
			 catan_genreport *report);

/*
 * The 5-6 player counterpart of catan_board_random(): the official 5-6
 * board's pieces and harbour sides, terrain and tokens drawn uniformly
 * under the official rule only (no 6 or 8 touching a 6 or 8; the exact
 * sampler), harbour kinds shuffled, robber on the first desert. The same
 * seed gives the same board on every machine. Returns CATAN_OK, or
 * CATAN_E_CAPACITY when built with CATAN_MAX_RADIUS below 3.
 */
int catan_board_random_ext56(catan_board *out, uint64_t seed);

/*
 * The rules (bit set of catan_rule) board `b` satisfies, with `max_pips`
 * for rule (5). Rule (4) counts each resource's tiles on this board.
 */
unsigned catan_board_rules_met(const catan_board *b, int max_pips);

#define CATAN_BALANCE_SPOTS 12

/* The balance of a board (catan_board_balance). */
typedef struct catan_balance {
	uint8_t res_tiles[CATAN_RES_COUNT];
	uint16_t res_pips[CATAN_RES_COUNT];   /* pips summed over the tiles */
	uint8_t res_pairs[CATAN_RES_COUNT];   /* touching pairs of tiles */
	uint8_t res_cluster[CATAN_RES_COUNT]; /* largest touching group */
	uint8_t res_low[CATAN_RES_COUNT];     /* tiles with <= 2 pips */
	uint8_t max_pips;		      /* the richest intersection */
	uint8_t max_pips_vertex;
	/*
	 * Starting spots as a greedy draft takes them: the richest free
	 * intersection (most pips, then most distinct resources, then lowest
	 * id), then its neighbours are closed (distance rule), nspots times.
	 * spot[0] is the best start, spot[nspots-1] the worst one a player
	 * is left with.
	 */
	uint8_t nspots;
	uint8_t spot[CATAN_BALANCE_SPOTS];
	uint8_t spot_pips[CATAN_BALANCE_SPOTS];
	uint8_t spot_kinds[CATAN_BALANCE_SPOTS]; /* distinct resources */
	uint8_t rules_met; /* catan_board_rules_met(b, 11) */
} catan_balance;

/*
 * Measures board `b`: pips, low tokens and clustering per resource, the
 * richest intersection, and `spots` (1..CATAN_BALANCE_SPOTS; 2 per player)
 * starting spots of a greedy draft. Cannot fail (spots is clamped).
 */
void catan_board_balance(catan_balance *out, const catan_board *b, int spots);

#endif
