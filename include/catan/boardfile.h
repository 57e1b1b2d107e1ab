/*
 * catan/boardfile.h - boards as text files (spec/board.md), and the small
 * words board options are made of: terrain names and tile pins.
 *
 * Pure core: the parser reads a NUL-terminated buffer and never past it,
 * the formatter writes into a caller buffer snprintf-style.
 */
#ifndef CATAN_BOARDFILE_H
#define CATAN_BOARDFILE_H

#include "catan/board.h"
#include "catan/boardgen.h"

/* Where and why a board file was rejected. */
typedef struct catan_boardfile_error {
	int code; /* CATAN_E_PARSE, CATAN_E_BAD_TILE, CATAN_E_BAD_EDGE, ... */
	int line; /* 1-based; 0 when the file as a whole is wrong */
	char msg[120];
} catan_boardfile_error;

/*
 * Parses a board file into `out`: the shape from its tile lines, terrain,
 * tokens, harbours, robber. Checks everything spec/board.md requires (a
 * token 2-12 but 7 on every land tile and none on deserts, harbours on
 * coastal sides, the radius line matching the tiles, capacity). On failure
 * returns the error code, fills `err` if not NULL, and leaves `out`
 * untouched.
 */
int catan_boardfile_parse(catan_board *out, const char *text,
			  catan_boardfile_error *err);

/*
 * Writes board `b` as a board file into buf (NUL-terminated when size >
 * 0). Returns the length the whole text needs, like snprintf; parse gives
 * back an equal board.
 */
int catan_boardfile_format(char *buf, size_t size, const catan_board *b);

/*
 * Terrain from its name, `n` bytes of `word`: lumber, brick, wool, grain,
 * ore, desert, or the tile names forest, hills, pasture, fields, mountains
 * (any letter case). Returns the catan_res / CATAN_DESERT, or -1.
 */
int catan_terrain_parse(const char *word, size_t n);

/*
 * Parses a pin "Q,R=TERRAIN", "Q,R=TERRAIN:TOKEN" or "Q,R=TOKEN" (e.g.
 * "0,-1=forest:8", "1,1=desert", "2,0=6"). Returns CATAN_OK or
 * CATAN_E_PARSE (out untouched). Whether the hex is on the board is
 * checked by catan_board_generate.
 */
int catan_pin_parse(catan_pin *out, const char *text);

#endif
