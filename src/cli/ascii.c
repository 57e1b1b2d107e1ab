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
		fprintf(f, "  %-8s %3d %5d %5d %5d %6d %5d %7d  %s%s%s%s\n",
			names->name[p], catan_state_vp(s, p), pl->ncards, devs,
			CATAN_ROADS - pl->roads_left,
			CATAN_SETTLEMENTS - pl->settlements_left,
			CATAN_CITIES - pl->cities_left, pl->knights,
			s->longest_road == p ? "longest-road " : "",
			s->largest_army == p ? "largest-army " : "",
			s->winner == p ? "WINNER" : "",
			catan_state_out(s, p) ? "expelled" : "");
	}
}

/*
 * The board drawn as hexagons (pointy-top), with pieces. A tile at axial
 * (q, r) has its centre at column 10q + 5r, row 6r of a character grid;
 * its corners sit 5 columns and 2 rows (sides) or 4 rows (top, bottom)
 * away, so neighbours share corners and sides exactly:
 *
 *          .            a corner: '.' free, a settlement is the owner's
 *       /     \         letter in lower case, a city in upper case; a
 *     .         .       side: / \ | free, a road is its owner's letter
 *     |   ORE   |       twice (or three times); inside, the terrain, the
 *     |   10    |       number and the robber (ROB). Harbours stand
 *     .  ROB    .       beside their side: 3:1, or 2 and the resource
 *       \     /         (2L lumber, 2B brick, 2W wool, 2G grain, 2O ore).
 *          .
 */
enum { GRID_W = 128, GRID_H = 64 };

typedef struct grid {
	char c[GRID_H][GRID_W];
	int x0, y0; /* where (0, 0) is */
} grid;

static void put(grid *g, int x, int y, char ch)
{
	x += g->x0, y += g->y0;
	if (x >= 0 && x < GRID_W && y >= 0 && y < GRID_H)
		g->c[y][x] = ch;
}

static void puts_at(grid *g, int x, int y, const char *s)
{
	for (; *s; s++, x++)
		put(g, x, y, *s);
}

/* Corner k (N, NE, SE, S, SW, NW) of a tile centred at (x, y). */
static void corner(int x, int y, int k, int *cx, int *cy)
{
	static const int dx[6] = {0, 5, 5, 0, -5, -5};
	static const int dy[6] = {-4, -2, 2, 4, 2, -2};
	*cx = x + dx[k];
	*cy = y + dy[k];
}

static char owner_letter(int p, bool city)
{
	static const char letters[] = "rbwogn"; /* red blue white orange
						   green browN */
	char c = p >= 0 && p < 6 ? letters[p] : '?';
	return city ? (char)(c - 'a' + 'A') : c;
}

void cli_draw_board(FILE *f, const catan_board *b, const catan_state *s)
{
	static grid g;
	int xmin = 1000, xmax = -1000, ymin = 1000, ymax = -1000;
	memset(g.c, ' ', sizeof g.c);
	for (int t = 0; t < b->ntiles; t++) {
		int x = 10 * b->tile_hex[t].q + 5 * b->tile_hex[t].r;
		int y = 6 * b->tile_hex[t].r;
		xmin = x < xmin ? x : xmin, xmax = x > xmax ? x : xmax;
		ymin = y < ymin ? y : ymin, ymax = y > ymax ? y : ymax;
	}
	g.x0 = -xmin + 9;
	g.y0 = -ymin + 6;
	int robber = s ? s->robber : b->robber_start;
	for (int t = 0; t < b->ntiles; t++) {
		int x = 10 * b->tile_hex[t].q + 5 * b->tile_hex[t].r;
		int y = 6 * b->tile_hex[t].r;
		/* Sides: NE, E, SE, SW, W, NW; corners k and k + 1. */
		for (int k = 0; k < 6; k++) {
			int e = b->tile_edges[t][k], x1, y1, x2, y2;
			corner(x, y, k, &x1, &y1);
			corner(x, y, (k + 1) % 6, &x2, &y2);
			int owner = -1;
			if (s)
				for (int p = 0; p < s->opt.nplayers; p++)
					if (catan_eset_has(&s->players[p].roads,
							   e))
						owner = p;
			if (x1 == x2) { /* vertical side */
				for (int yy = y1 + 1; yy < y2; yy++)
					put(&g, x1, yy,
					    owner >= 0
						? owner_letter(owner, false)
						: '|');
				continue;
			}
			/* A slanted side: two characters on the row between. */
			int my = (y1 + y2) / 2, lx = x1 < x2 ? x1 : x2;
			bool down = (y2 > y1) == (x2 > x1);
			if (owner >= 0) {
				put(&g, lx + 2, my, owner_letter(owner, false));
				put(&g, lx + 3, my, owner_letter(owner, false));
			} else {
				put(&g, down ? lx + 3 : lx + 2, my,
				    down ? '\\' : '/');
			}
		}
		for (int k = 0; k < 6; k++) {
			int v = b->tile_vertices[t][k], cx, cy;
			corner(x, y, k, &cx, &cy);
			char ch = '.';
			if (s && s->building[v]) {
				int p = (s->building[v] & 0x0f) - 1;
				ch = owner_letter(p, s->building[v] &
							 CATAN_CITY_BIT);
			}
			put(&g, cx, cy, ch);
		}
		puts_at(&g, x - 1, y - 1, terrain_code(b->tile_terrain[t]));
		if (b->tile_token[t]) {
			char num[8];
			snprintf(num, sizeof num, "%d", b->tile_token[t]);
			puts_at(&g, x - (b->tile_token[t] >= 10), y, num);
		}
		if (t == robber)
			puts_at(&g, x - 1, y + 1, "ROB");
	}
	for (int h = 0; h < b->nharbours; h++) {
		int e = b->harbour_edge[h], t = -1, k = -1;
		for (int i = 0; i < b->ntiles && t < 0; i++)
			for (int j = 0; j < 6; j++)
				if (b->tile_edges[i][j] == e)
					t = i, k = j;
		if (t < 0)
			continue;
		int x = 10 * b->tile_hex[t].q + 5 * b->tile_hex[t].r;
		int y = 6 * b->tile_hex[t].r, x1, y1, x2, y2;
		corner(x, y, k, &x1, &y1);
		corner(x, y, (k + 1) % 6, &x2, &y2);
		/* Beyond the side's middle, away from the tile's centre. */
		int mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
		int lx = mx + (mx - x) * 3 / 5, ly = my + (my - y) * 3 / 4;
		static const char res_letter[] = "LBWGO";
		char label[4] = "3:1";
		if (b->harbour_kind[h] < CATAN_RES_COUNT) {
			label[0] = '2';
			label[1] = res_letter[b->harbour_kind[h]];
			label[2] = 0;
		}
		puts_at(&g, lx - 1, ly, label);
	}
	int h = ymax - ymin + 13;
	for (int y = 0; y < h && y < GRID_H; y++) {
		int len = GRID_W;
		while (len > 0 && g.c[y][len - 1] == ' ')
			len--;
		fprintf(f, "  %.*s\n", len, g.c[y]);
	}
	fprintf(f, "  settlements r b w o g n, cities R B W O G N, roads the "
		   "letter on a side;\n  harbours 3:1 or 2L 2B 2W 2G 2O; ROB "
		   "the robber\n");
}
