/*
 * ascii.c - the board and the scores as terminal text.
 */
#include <string.h>

#include "cli.h"

static const char *terrain_code(int t)
{
	static const char *const codes[] = {"LUM", "BRI", "WOO", "GRA", "ORE",
					    "DES"};
	return (t >= 0 && t <= CATAN_DESERT) ? codes[t] : "???";
}

void cli_print_board(FILE *f, const catan_board *b, const catan_state *s)
{
	/* Without a state the robber is where the board starts it. */
	int robber = s ? s->robber : b->robber_start;
	int rmin = 127, rmax = -128, qmin = 127;
	for (int t = 0; t < b->ntiles; t++) {
		int r = b->tile_hex[t].r, q = b->tile_hex[t].q;
		rmin = r < rmin ? r : rmin;
		rmax = r > rmax ? r : rmax;
		/* Column of a tile: 2q + r (pointy-top rows shift by half). */
		qmin = 2 * q + r < qmin ? 2 * q + r : qmin;
	}
	for (int r = rmin; r <= rmax; r++) {
		char line[512];
		int len = 0;
		memset(line, ' ', sizeof line);
		for (int t = 0; t < b->ntiles; t++) {
			if (b->tile_hex[t].r != r)
				continue;
			int col = (2 * b->tile_hex[t].q + r - qmin) * 5;
			char cell[16];
			int tok = b->tile_token[t];
			snprintf(cell, sizeof cell, "%s%c%-2d",
				 terrain_code(b->tile_terrain[t]),
				 robber == t ? '*' : ' ', tok);
			if (!tok)
				snprintf(cell, sizeof cell, "%s%c  ",
					 terrain_code(b->tile_terrain[t]),
					 robber == t ? '*' : ' ');
			size_t cl = strlen(cell);
			if (col + (int)cl + 2 < (int)sizeof line) {
				line[col] = '[';
				memcpy(line + col + 1, cell, cl);
				line[col + 1 + cl] = ']';
				if (col + (int)cl + 2 > len)
					len = col + (int)cl + 2;
			}
		}
		fprintf(f, "  r=%-2d %.*s\n", r, len, line);
	}
	fprintf(f, "  (* robber; LUM lumber, BRI brick, WOO wool, GRA grain, "
		   "ORE ore, DES desert)\n");
}

void cli_print_scores(FILE *f, const catan_board *b, const catan_state *s,
		      const catan_names *names)
{
	(void)b;
	fprintf(f, "  %-8s %3s %5s %5s %5s %6s %5s %7s  %s\n", "player", "VP",
		"cards", "devs", "roads", "settl.", "city", "knights",
		"trophies");
	for (int p = 0; p < s->opt.nplayers; p++) {
		const catan_player *pl = &s->players[p];
		int devs = 0;
		for (int d = 0; d < CATAN_DEV_COUNT; d++)
			devs += pl->devs[d];
		fprintf(f, "  %-8s %3d %5d %5d %5d %6d %5d %7d  %s%s%s\n",
			names->name[p], catan_state_vp(s, p), pl->ncards, devs,
			CATAN_ROADS - pl->roads_left,
			CATAN_SETTLEMENTS - pl->settlements_left,
			CATAN_CITIES - pl->cities_left, pl->knights,
			s->longest_road == p ? "longest-road " : "",
			s->largest_army == p ? "largest-army " : "",
			s->winner == p ? "WINNER" : "");
	}
}
