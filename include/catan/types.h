/*
 * catan/types.h - the small vocabulary every module shares: resources,
 * development cards, harbour kinds, limits, and error codes.
 *
 * Everything here is a plain value. Nothing allocates, nothing does I/O.
 */
#ifndef CATAN_TYPES_H
#define CATAN_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Board capacity. The topology code handles any radius; the fixed-size state
 * stores boards up to CATAN_MAX_RADIUS (3 by default: the 37-tile hexagon,
 * which also holds the official 5-6 player board). Build with
 * -DCATAN_MAX_RADIUS=N for bigger boards (ids stay 8-bit up to radius 4).
 */
#ifndef CATAN_MAX_RADIUS
#define CATAN_MAX_RADIUS 3
#endif
#define CATAN_MAX_TILES (3 * CATAN_MAX_RADIUS * (CATAN_MAX_RADIUS + 1) + 1)
#define CATAN_MAX_VERTICES (6 * (CATAN_MAX_RADIUS + 1) * (CATAN_MAX_RADIUS + 1))
#define CATAN_MAX_EDGES                                                        \
	(9 * CATAN_MAX_RADIUS * CATAN_MAX_RADIUS + 15 * CATAN_MAX_RADIUS + 6)
#define CATAN_MAX_HARBOURS 24
#define CATAN_MAX_PLAYERS 6
#define CATAN_MIN_PLAYERS 2
/* Up to 4 players: the base game; 5 and 6: the 5-6 player extension. */
#define CATAN_MAX_PLAYERS_BASE 4

#define CATAN_VWORDS ((CATAN_MAX_VERTICES + 63) / 64)
#define CATAN_EWORDS ((CATAN_MAX_EDGES + 63) / 64)

/* "No one" / "nothing" for any 8-bit id field. */
#define CATAN_NONE 0xff

/* Pieces per player: the same in the base game and the extension. */
#define CATAN_ROADS 15
#define CATAN_SETTLEMENTS 5
#define CATAN_CITIES 4
/* Cards of each resource: 19 in the base game, 24 with 5-6 players. */
#define CATAN_RES_TOTAL_BASE 19
#define CATAN_RES_TOTAL_EXT 24

typedef enum {
	CATAN_LUMBER,
	CATAN_BRICK,
	CATAN_WOOL,
	CATAN_GRAIN,
	CATAN_ORE,
	CATAN_RES_COUNT
} catan_res;

/* Terrain of a land tile: a resource id, or CATAN_DESERT. */
#define CATAN_DESERT CATAN_RES_COUNT

typedef enum {
	CATAN_DEV_KNIGHT,
	CATAN_DEV_ROAD_BUILDING,
	CATAN_DEV_YEAR_OF_PLENTY,
	CATAN_DEV_MONOPOLY,
	CATAN_DEV_VICTORY_POINT,
	CATAN_DEV_COUNT
} catan_dev;

/* Harbour kinds: 2:1 of one resource (the resource id), or generic 3:1. */
#define CATAN_HARBOUR_GENERIC CATAN_RES_COUNT
#define CATAN_HARBOUR_KINDS (CATAN_RES_COUNT + 1)

/* Vertex and edge directions. Canonical ones first; the rest are aliases. */
typedef enum {
	CATAN_VDIR_N,
	CATAN_VDIR_S,
	CATAN_VDIR_NE,
	CATAN_VDIR_SE,
	CATAN_VDIR_SW,
	CATAN_VDIR_NW,
	CATAN_VDIR_COUNT
} catan_vdir;

typedef enum {
	CATAN_EDIR_W,
	CATAN_EDIR_NW,
	CATAN_EDIR_NE,
	CATAN_EDIR_E,
	CATAN_EDIR_SE,
	CATAN_EDIR_SW,
	CATAN_EDIR_COUNT
} catan_edir;

/* Axial hex coordinate (pointy-top); see spec/actions.md for the drawing. */
typedef struct catan_hex {
	int8_t q, r;
} catan_hex;

/*
 * Error codes. 0 is success; every rejection is one of these, and
 * catan_error_str() gives a sentence a player can read.
 */
typedef enum {
	CATAN_OK = 0,
	CATAN_E_NOT_YOUR_TURN,
	CATAN_E_WRONG_PHASE,
	CATAN_E_GAME_OVER,
	CATAN_E_BAD_ACTION,
	CATAN_E_BAD_VERTEX,
	CATAN_E_BAD_EDGE,
	CATAN_E_BAD_TILE,
	CATAN_E_BAD_PLAYER,
	CATAN_E_OCCUPIED,
	CATAN_E_DISTANCE_RULE,
	CATAN_E_NOT_CONNECTED,
	CATAN_E_NOT_ADJACENT,
	CATAN_E_NOT_YOUR_SETTLEMENT,
	CATAN_E_NO_PIECES,
	CATAN_E_CANNOT_AFFORD,
	CATAN_E_BANK_EMPTY,
	CATAN_E_DECK_EMPTY,
	CATAN_E_NO_CARD,
	CATAN_E_CARD_BOUGHT_THIS_TURN,
	CATAN_E_CARD_ALREADY_PLAYED,
	CATAN_E_ROBBER_SAME_TILE,
	CATAN_E_BAD_VICTIM,
	CATAN_E_VICTIM_REQUIRED,
	CATAN_E_DISCARD_COUNT,
	CATAN_E_NO_DISCARD_OWED,
	CATAN_E_BAD_RATE,
	CATAN_E_BAD_TRADE,
	CATAN_E_OFFER_LIMIT,
	CATAN_E_NO_OFFER,
	CATAN_E_DICE_REQUIRED,
	CATAN_E_DICE_NOT_ALLOWED,
	CATAN_E_DRAW_REQUIRED,
	CATAN_E_DRAW_NOT_ALLOWED,
	CATAN_E_TOO_FEW,
	CATAN_E_PARSE,
	CATAN_E_INVARIANT,
	CATAN_E_BAD_OPTION,
	CATAN_E_CAPACITY,
	CATAN_ERROR_COUNT
} catan_error;

/* A readable sentence for an error code. Never NULL, never allocated. */
const char *catan_error_str(int code);

/* Cards of each resource in a game of `nplayers`: 19, or 24 with 5-6. */
static inline int catan_res_total(int nplayers)
{
	return nplayers > CATAN_MAX_PLAYERS_BASE ? CATAN_RES_TOTAL_EXT
						 : CATAN_RES_TOTAL_BASE;
}

/*
 * Development cards of kind `d` (catan_dev) at the start of a game of
 * `nplayers`: 14 knights, 2 road building, 2 year of plenty, 2 monopoly,
 * 5 victory points (25); with 5-6 players 20/3/3/3/5 (34).
 */
static inline int catan_dev_start(int nplayers, int d)
{
	static const uint8_t base[] = {14, 2, 2, 2, 5}, ext[] = {20, 3, 3, 3, 5};
	if (d < 0 || d >= CATAN_DEV_COUNT)
		return 0;
	return nplayers > CATAN_MAX_PLAYERS_BASE ? ext[d] : base[d];
}

static inline const char *catan_res_name(int r)
{
	static const char *const names[] = {"lumber", "brick", "wool", "grain",
					    "ore", "desert"};
	return (r >= 0 && r <= CATAN_RES_COUNT) ? names[r] : "?";
}

static inline const char *catan_dev_name(int d)
{
	static const char *const names[] = {"knight", "road-building",
					    "year-of-plenty", "monopoly",
					    "victory-point"};
	return (d >= 0 && d < CATAN_DEV_COUNT) ? names[d] : "?";
}

#endif
