/*
 * catan_client.h - a small C client for the catan-git agent protocol
 * (spec/agents.md), on top of the project's codec (catan/agent.h,
 * library catan_agent: pure, no I/O). It adds the I/O (stdin/stdout are
 * the connection) and the board geometry an agent needs to find legal
 * moves from a VIEW.
 *
 *     static int move(void *ctx, const catan_client *c,
 *                     const catan_msg_view *v, catan_msg *out) { ... }
 *     int main(void) { return catan_client_run(move, NULL); }
 */
#ifndef CATAN_CLIENT_H
#define CATAN_CLIENT_H

#include "catan/agent.h"

#define CC_MAX_VERTICES 128
#define CC_MAX_EDGES	192

typedef struct catan_client {
	catan_msg_begin begin;
	int me;
	/* The board of SETUP. */
	int ntiles;
	catan_wpos tile[CATAN_WIRE_MAX_CELLS];
	uint8_t tile_type[CATAN_WIRE_MAX_CELLS],
	    tile_counter[CATAN_WIRE_MAX_CELLS];
	int nvertices, nedges;
	catan_wpos vertex[CC_MAX_VERTICES];
	catan_wpos edge[CC_MAX_EDGES];
	int edge_end[CC_MAX_EDGES][2]; /* vertex indices */
	int pips[CC_MAX_VERTICES];
} catan_client;

/* Fills `out` with one move for the VIEW `v`; returns 0 (or -1 to quit). */
typedef int (*catan_client_move)(void *ctx, const catan_client *c,
				 const catan_msg_view *v, catan_msg *out);

/* Speaks the protocol on fds 0/1 until END, KICK or EOF: 0, or 1 on an
 * error (printed to stderr). */
int catan_client_run(catan_client_move move, void *ctx);

/* Geometry: index of a vertex / edge position, or -1. */
int cc_vertex(const catan_client *c, catan_wpos p);
int cc_edge(const catan_client *c, catan_wpos p);
/* The six corners of tile (q, r), canonical (N, NE, SE, S, SW, NW). */
void cc_tile_corners(int q, int r, catan_wpos out[6]);

#endif
