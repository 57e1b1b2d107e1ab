/*
 * board_internal.h - board facts shared inside src/core.
 */
#ifndef CATAN_BOARD_INTERNAL_H
#define CATAN_BOARD_INTERNAL_H

#include "catan/board.h"

/* A side of a hex: (q, r) and a catan_edir. */
typedef struct catan_side {
	int q, r, dir;
} catan_side;

/* The 9 harbour sides of the standard board, in the beginner board's
 * order (board.c; boardgen.c places harbours on them too). */
extern const catan_side catan_std_harbours[9];

#endif
