/*
 * render.c - draws one frame: sea, tiles with terrain icons and number
 * tokens, harbours, roads, buildings, the robber, highlights, the button
 * bar, the side panel and an open dialog. Works with any SDL_Renderer
 * (window or software surface). Floats are fine here: this is not the core.
 *
 * Colour-blind safety: every terrain has a distinct lightness and, as a
 * second cue, its own icon (trees, bricks, sheep, sheaves, peaks) and its
 * name in small letters; players differ in colour and have outlined pieces;
 * the red 6 and 8 are also bold and larger.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui.h"

#define SQRT3 1.7320508f

typedef SDL_Color rgba;

static const rgba terrain_fill[CATAN_RES_COUNT + 1] = {
	{38, 110, 52, 255},   /* lumber: dark green */
	{190, 88, 50, 255},   /* brick: orange red */
	{150, 205, 95, 255},  /* wool: light green */
	{236, 196, 64, 255},  /* grain: gold */
	{120, 128, 150, 255}, /* ore: slate */
	{226, 208, 160, 255}, /* desert: sand */
};
static const rgba sea = {46, 112, 160, 255}, sea_deep = {30, 78, 118, 255};
static const rgba ink = {24, 24, 28, 255}, cream = {250, 240, 215, 255};
static const rgba panel_bg = {32, 36, 46, 255}, text_light = {232, 232, 236, 255};
static const rgba text_dim = {160, 166, 180, 255}, red_token = {196, 30, 30, 255};
static const rgba white = {255, 255, 255, 255}, gold = {250, 200, 60, 255};

/* Short labels of the resources, for the icons' second cue. */
static const char *const res_short[CATAN_RES_COUNT + 1] = {
	"lumber", "brick", "wool", "grain", "ore", "desert"};

SDL_Color ui_player_color(const catan_game *g, int p)
{
	static const struct {
		const char *name;
		rgba c;
	} named[] = {
		{"red", {214, 48, 49, 255}},	  {"blue", {40, 96, 220, 255}},
		{"white", {245, 245, 245, 255}},  {"orange", {245, 130, 20, 255}},
		{"green", {40, 160, 70, 255}},	  {"brown", {130, 80, 40, 255}},
		{"purple", {140, 70, 190, 255}},  {"yellow", {240, 215, 40, 255}},
		{"black", {40, 40, 40, 255}},	  {"pink", {235, 120, 180, 255}},
	};
	static const rgba cycle[CATAN_MAX_PLAYERS] = {
		{214, 48, 49, 255},  {40, 96, 220, 255},  {245, 245, 245, 255},
		{245, 130, 20, 255}, {40, 160, 70, 255}, {130, 80, 40, 255}};
	if (p < 0 || p >= CATAN_MAX_PLAYERS)
		return (rgba){128, 128, 128, 255};
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		if (!strcmp(g->names.name[p], named[i].name))
			return named[i].c;
	return cycle[p];
}

void ui_status_text(char *out, size_t n, const catan_game *g,
		    const catan_state *s, int viewer)
{
	if (s->phase == CATAN_PHASE_OVER) {
		snprintf(out, n, "%s has won!", g->names.name[s->winner]);
		return;
	}
	bool mine = viewer >= 0 && viewer < s->opt.nplayers &&
		    catan_state_may_act(s, viewer);
	if (s->phase == CATAN_PHASE_DISCARD) {
		if (mine) {
			snprintf(out, n, "your move: discard %d cards",
				 s->discard[viewer]);
			return;
		}
		size_t used = 0;
		out[0] = 0;
		for (int p = 0; p < s->opt.nplayers && used < n; p++)
			if (s->discard[p])
				used += (size_t)snprintf(
					out + used, n - used, "%s%s to discard %d",
					used ? ", " : "waiting for ",
					g->names.name[p], s->discard[p]);
		return;
	}
	if (s->phase == CATAN_PHASE_REVEAL) {
		/* Fair dice: whose secret the outcome waits for. */
		const char *what = s->req_kind == CATAN_ACT_ROLL ? "roll"
				   : s->req_kind == CATAN_ACT_BUY_DEV
				       ? "card draw"
				       : "robbery";
		size_t used = 0;
		out[0] = 0;
		for (int p = 0; p < s->opt.nplayers && used < n; p++)
			if ((s->reveal_wait >> p) & 1)
				used += (size_t)snprintf(
				    out + used, n - used, "%s%s",
				    used ? ", " : "fair dice: waiting for ",
				    p == viewer ? "you" : g->names.name[p]);
		if (!s->reveal_wait)
			snprintf(out, n,
				 "fair dice: every secret is in; %s's %s "
				 "comes next",
				 g->names.name[s->requester], what);
		else if (used < n)
			snprintf(out + used, n - used,
				 " to reveal a secret for "
				 "%s's %s",
				 g->names.name[s->requester], what);
		return;
	}
	static const char *const doing[] = {
		"place a settlement and a road", "roll",
		"",				 "move the robber",
		"trade, build or end the turn",	 "trade or end the trade phase",
		"build or end the turn",	 "answer the offer"};
	int who = catan_state_next_actor(s);
	const char *d = s->phase < 8			  ? doing[s->phase]
			: s->phase == CATAN_PHASE_SPECIAL ? "build or pass (special build)"
							  : "";
	if (mine)
		snprintf(out, n, "your move: %s", d);
	else
		snprintf(out, n, "waiting for %s to %s",
			 who < s->opt.nplayers ? g->names.name[who] : "?", d);
}

/* ---- primitives ---- */

static rgba shade(rgba c, float k)
{
	float f[3] = {c.r * k, c.g * k, c.b * k};
	for (int i = 0; i < 3; i++)
		f[i] = f[i] > 255 ? 255 : f[i];
	return (rgba){(Uint8)f[0], (Uint8)f[1], (Uint8)f[2], c.a};
}

static rgba alpha(rgba c, Uint8 a)
{
	c.a = a;
	return c;
}

/* A convex polygon as a triangle fan. */
static void fill_poly(SDL_Renderer *r, const float *xy, int n, rgba c)
{
	SDL_Vertex vx[64];
	int idx[3 * 64];
	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		vx[i] = (SDL_Vertex){{xy[2 * i], xy[2 * i + 1]}, c, {0, 0}};
	int m = 0;
	for (int i = 1; i + 1 < n; i++) {
		idx[m++] = 0;
		idx[m++] = i;
		idx[m++] = i + 1;
	}
	SDL_RenderGeometry(r, NULL, vx, n, idx, m);
}

static void thick_line(SDL_Renderer *r, float x0, float y0, float x1,
		       float y1, float w, rgba c)
{
	float dx = x1 - x0, dy = y1 - y0, len = sqrtf(dx * dx + dy * dy);
	if (len < 1e-3f)
		return;
	float nx = -dy / len * w / 2, ny = dx / len * w / 2;
	float q[8] = {x0 + nx, y0 + ny, x1 + nx, y1 + ny,
		      x1 - nx, y1 - ny, x0 - nx, y0 - ny};
	fill_poly(r, q, 4, c);
}

static void fill_circle(SDL_Renderer *r, float x, float y, float rad, rgba c)
{
	float xy[64];
	int n = rad < 6 ? 12 : rad < 20 ? 20 : 32;
	for (int i = 0; i < n; i++) {
		float a = (float)i / n * 6.2831853f;
		xy[2 * i] = x + rad * cosf(a);
		xy[2 * i + 1] = y + rad * sinf(a);
	}
	fill_poly(r, xy, n, c);
}

/* A ring of width w centred on radius rad: one geometry call (an inner
 * and an outer circle of 28 points joined by triangles). */
static void ring(SDL_Renderer *r, float x, float y, float rad, float w,
		 rgba c)
{
	enum { N = 28 };
	SDL_Vertex vx[2 * N];
	int idx[6 * N];
	float ri = rad - w / 2, ro = rad + w / 2;
	for (int i = 0; i < N; i++) {
		float a = (float)i / N * 6.2831853f, ca = cosf(a), sa = sinf(a);
		vx[2 * i] = (SDL_Vertex){{x + ri * ca, y + ri * sa}, c, {0, 0}};
		vx[2 * i + 1] =
		    (SDL_Vertex){{x + ro * ca, y + ro * sa}, c, {0, 0}};
		int j = (i + 1) % N, k = 6 * i;
		idx[k] = 2 * i;
		idx[k + 1] = 2 * i + 1;
		idx[k + 2] = 2 * j;
		idx[k + 3] = 2 * j;
		idx[k + 4] = 2 * i + 1;
		idx[k + 5] = 2 * j + 1;
	}
	SDL_RenderGeometry(r, NULL, vx, 2 * N, idx, 6 * N);
}

static void fill_rect(SDL_Renderer *r, const catan_rect *q, rgba c)
{
	SDL_SetRenderDrawColor(r, c.r, c.g, c.b, c.a);
	SDL_Rect sr = {q->x, q->y, q->w, q->h};
	SDL_RenderFillRect(r, &sr);
}

static void outline_rect(SDL_Renderer *r, const catan_rect *q, rgba c)
{
	SDL_SetRenderDrawColor(r, c.r, c.g, c.b, c.a);
	SDL_Rect sr = {q->x, q->y, q->w, q->h};
	SDL_RenderDrawRect(r, &sr);
}

static void hexagon(float *xy, float cx, float cy, float s)
{
	/* Pointy-top: corners at -90, -30, 30, 90, 150, 210 degrees. */
	for (int i = 0; i < 6; i++) {
		float a = (-90.0f + 60.0f * i) * 3.14159265f / 180.0f;
		xy[2 * i] = cx + s * cosf(a);
		xy[2 * i + 1] = cy + s * sinf(a);
	}
}

/* ---- text, with a small cache of rendered textures ---- */

typedef struct text_entry {
	SDL_Renderer *r;
	TTF_Font *font;
	rgba c;
	char s[256];
	SDL_Texture *tex;
	int w, h;
	unsigned used;
} text_entry;

#define TEXT_CACHE 1024
static text_entry cache[TEXT_CACHE];
ui_text_stats_t ui_text_stats;
static unsigned frame_no;

void ui_draw_reset(void)
{
	for (int i = 0; i < TEXT_CACHE; i++) {
		if (cache[i].tex)
			SDL_DestroyTexture(cache[i].tex);
		memset(&cache[i], 0, sizeof cache[i]);
	}
}

static text_entry *text_get(SDL_Renderer *r, TTF_Font *font, const char *s,
			    rgba c)
{
	if (!font || !s || !*s || strlen(s) >= sizeof cache[0].s)
		return NULL; /* (longer text than any label: not drawn) */
	unsigned h = 2166136261u;
	for (const char *p = s; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619u;
	h ^= (unsigned)(uintptr_t)font ^ ((unsigned)c.r << 16 | c.g << 8 | c.b);
	int slot = (int)(h % TEXT_CACHE);
	text_entry *e = &cache[slot];
	if (e->tex && e->r == r && e->font == font && !memcmp(&e->c, &c, sizeof c) &&
	    !strcmp(e->s, s)) {
		e->used = frame_no;
		return e;
	}
	if (e->tex)
		SDL_DestroyTexture(e->tex);
	memset(e, 0, sizeof *e);
	SDL_Surface *surf = TTF_RenderUTF8_Blended(font, s, c);
	if (!surf)
		return NULL;
	e->tex = SDL_CreateTextureFromSurface(r, surf);
	e->w = surf->w;
	e->h = surf->h;
	SDL_FreeSurface(surf);
	if (!e->tex)
		return NULL;
	e->r = r;
	e->font = font;
	e->c = c;
	snprintf(e->s, sizeof e->s, "%s", s);
	e->used = frame_no;
	return e;
}

/* Draws s with its anchor: ax, ay in {0 left/top, 1 centre, 2 right}. */
static int text(SDL_Renderer *r, TTF_Font *font, const char *s, float x,
		float y, int ax, int ay, rgba c)
{
	text_entry *e = text_get(r, font, s, c);
	if (!e)
		return 0;
	SDL_Rect d = {(int)(x - e->w * ax / 2.0f), (int)(y - e->h * ay / 2.0f),
		      e->w, e->h};
	SDL_RenderCopy(r, e->tex, NULL, &d);
	/* Text must fit its clip area (the panel) and the output. */
	SDL_Rect clip;
	int ow = 0, oh = 0;
	SDL_GetRendererOutputSize(r, &ow, &oh);
	if (!SDL_RenderIsClipEnabled(r))
		clip = (SDL_Rect){0, 0, ow, oh};
	else
		SDL_RenderGetClipRect(r, &clip);
	ui_text_stats.texts++;
	int fh = TTF_FontHeight(font);
	if (fh < ui_text_stats.min_px || !ui_text_stats.min_px)
		ui_text_stats.min_px = fh;
	if (d.x < clip.x || d.y < clip.y || d.x + d.w > clip.x + clip.w ||
	    d.y + d.h > clip.y + clip.h || d.x + d.w > ow || d.y + d.h > oh) {
		if (!ui_text_stats.clipped++)
			snprintf(
			    ui_text_stats.first, sizeof ui_text_stats.first,
			    "\"%.80s\" at %d,%d size %dx%d outside %d,%d %dx%d",
			    s, d.x, d.y, d.w, d.h, clip.x, clip.y, clip.w,
			    clip.h);
	}
	return e->w;
}

/*
 * Draws s within width w from (x, y): in `font` when it fits, else in
 * `small`, else wrapped once at a space (second row indented). Returns
 * the height used.
 */
static float text_fit(SDL_Renderer *r, TTF_Font *font, TTF_Font *small,
		      const char *s, float x, float y, float w, rgba c)
{
	int tw = 0, th = 0;
	if (!s || !*s)
		return 0;
	/* Widths from the text cache: no measuring twice per frame. */
	text_entry *e = text_get(r, font, s, c);
	if (e && e->w <= w) {
		text(r, font, s, x, y, 0, 0, c);
		return (float)TTF_FontLineSkip(font);
	}
	e = text_get(r, small, s, c);
	if (e && e->w <= w) {
		text(r, small, s, x, y, 0, 0, c);
		return (float)TTF_FontLineSkip(small);
	}
	char part[256];
	snprintf(part, sizeof part, "%s", s);
	for (int k = (int)strlen(part) - 1; k > 0; k--) {
		if (part[k] != ' ')
			continue;
		part[k] = 0;
		if (!TTF_SizeUTF8(small, part, &tw, &th) && tw <= w) {
			text(r, small, part, x, y, 0, 0, c);
			text(r, small, s + k + 1, x + 10,
			     y + TTF_FontLineSkip(small), 0, 0, c);
			return 2.0f * TTF_FontLineSkip(small);
		}
	}
	text(r, small, s, x, y, 0, 0, c);
	return (float)TTF_FontLineSkip(small);
}

/* ---- board pieces ---- */

static void icon(SDL_Renderer *r, int terrain, float x, float y, float s)
{
	rgba dark = shade(terrain_fill[terrain], 0.55f);
	rgba light = shade(terrain_fill[terrain], 1.35f);
	switch (terrain) {
	case CATAN_LUMBER: /* three trees */
		for (int i = -1; i <= 1; i++) {
			float tx = x + i * s * 0.3f, ty = y + (i ? 0 : -s * 0.08f);
			float t[6] = {tx, ty - s * 0.22f, tx + s * 0.13f,
				      ty + s * 0.1f, tx - s * 0.13f,
				      ty + s * 0.1f};
			fill_poly(r, t, 3, dark);
			thick_line(r, tx, ty + s * 0.1f, tx, ty + s * 0.17f,
				   s * 0.04f, (rgba){90, 60, 30, 255});
		}
		break;
	case CATAN_BRICK: /* a wall of bricks */
		for (int row = 0; row < 3; row++)
			for (int c = 0; c < 3 - (row & 1); c++) {
				float bx = x - s * 0.33f + c * s * 0.22f +
					   (row & 1) * s * 0.11f,
				      by = y - s * 0.2f + row * s * 0.12f;
				float q[8] = {bx, by, bx + s * 0.2f, by,
					      bx + s * 0.2f, by + s * 0.1f, bx,
					      by + s * 0.1f};
				fill_poly(r, q, 4, shade(terrain_fill[terrain], 0.7f));
			}
		break;
	case CATAN_WOOL: /* two sheep */
		for (int i = -1; i <= 1; i += 2) {
			float sx = x + i * s * 0.2f, sy = y - s * 0.05f;
			fill_circle(r, sx, sy, s * 0.12f, cream);
			fill_circle(r, sx + i * s * 0.12f, sy - s * 0.03f,
				    s * 0.05f, ink);
		}
		break;
	case CATAN_GRAIN: /* sheaves */
		for (int i = -2; i <= 2; i++) {
			float gx = x + i * s * 0.1f;
			thick_line(r, gx, y + s * 0.15f, gx + i * s * 0.03f,
				   y - s * 0.15f, s * 0.035f,
				   shade(terrain_fill[terrain], 0.6f));
			fill_circle(r, gx + i * s * 0.03f, y - s * 0.17f,
				    s * 0.04f, shade(terrain_fill[terrain], 0.75f));
		}
		break;
	case CATAN_ORE: /* peaks with snow */
		for (int i = -1; i <= 1; i += 2) {
			float px = x + i * s * 0.15f;
			float t[6] = {px, y - s * 0.25f, px + s * 0.22f,
				      y + s * 0.12f, px - s * 0.22f,
				      y + s * 0.12f};
			fill_poly(r, t, 3, dark);
			float c[6] = {px, y - s * 0.25f, px + s * 0.07f,
				      y - s * 0.13f, px - s * 0.07f,
				      y - s * 0.13f};
			fill_poly(r, c, 3, light);
		}
		break;
	default: /* desert: dunes */
		thick_line(r, x - s * 0.3f, y, x + s * 0.3f, y - s * 0.05f,
			   s * 0.04f, shade(terrain_fill[terrain], 0.8f));
		thick_line(r, x - s * 0.2f, y + s * 0.12f, x + s * 0.35f,
			   y + s * 0.1f, s * 0.04f,
			   shade(terrain_fill[terrain], 0.8f));
		break;
	}
}

static void token(SDL_Renderer *r, ui_fonts *f, int num, float x, float y,
		  float s)
{
	float rad = s * 0.27f;
	fill_circle(r, x + 1, y + 2, rad, alpha(ink, 90));
	fill_circle(r, x, y, rad, cream);
	ring(r, x, y, rad, 1.2f, shade(cream, 0.6f));
	bool hot = num == 6 || num == 8;
	char buf[4];
	snprintf(buf, sizeof buf, "%d", num);
	text(r, hot ? f->bold : f->normal, buf, x, y - rad * 0.18f, 1, 1,
	     hot ? red_token : ink);
	int pips = catan_token_pips(num);
	float pr = s * 0.025f + 0.6f, gap = pr * 2.6f;
	for (int i = 0; i < pips; i++)
		fill_circle(r, x + (i - (pips - 1) / 2.0f) * gap,
			    y + rad * 0.62f, pr, hot ? red_token : ink);
}

static void harbour(SDL_Renderer *r, ui_fonts *f, const catan_view *v,
		    const catan_board *b, int h)
{
	int e = b->harbour_edge[h], kind = b->harbour_kind[h];
	float ax, ay, bx, by;
	catan_view_vertex_xy(v, b, b->edge_vertices[e][0], &ax, &ay);
	catan_view_vertex_xy(v, b, b->edge_vertices[e][1], &bx, &by);
	float mx = (ax + bx) / 2, my = (ay + by) / 2;
	/* Outward: away from the land tile on this edge. */
	float tx = 0, ty = 0;
	for (int t = 0; t < b->ntiles; t++)
		for (int k = 0; k < 6; k++)
			if (b->tile_edges[t][k] == e)
				catan_view_hex_xy(v, b->tile_hex[t].q,
						  b->tile_hex[t].r, &tx, &ty);
	float dx = mx - tx, dy = my - ty, len = sqrtf(dx * dx + dy * dy);
	if (len < 1e-3f)
		len = 1;
	float px = mx + dx / len * v->size * 0.5f,
	      py = my + dy / len * v->size * 0.5f;
	rgba pier = {120, 90, 60, 255};
	thick_line(r, px, py, ax, ay, v->size * 0.07f, pier);
	thick_line(r, px, py, bx, by, v->size * 0.07f, pier);
	float rad = v->size * 0.25f;
	rgba c = kind < CATAN_RES_COUNT ? terrain_fill[kind] : cream;
	fill_circle(r, px, py, rad, c);
	ring(r, px, py, rad, 1.5f, ink);
	rgba tc = kind == CATAN_LUMBER || kind == CATAN_ORE || kind == CATAN_BRICK
			  ? white
			  : ink;
	text(r, f->bold, kind < CATAN_RES_COUNT ? "2:1" : "3:1", px,
	     py - rad * 0.25f, 1, 1, tc);
	if (kind < CATAN_RES_COUNT)
		text(r, f->small, res_short[kind], px, py + rad * 0.45f, 1, 1,
		     tc);
}

/* Fades colour c in: t = 0 transparent, 1 as it is. */
static rgba fade(rgba c, float t)
{
	return t >= 1 ? c : alpha(c, (Uint8)(c.a * (t < 0 ? 0 : t)));
}

/* A road; t < 1 while it is being laid (it grows from its middle and
 * fades in). */
static void road(SDL_Renderer *r, const catan_view *v, const catan_board *b,
		 int e, rgba c, float t)
{
	float ax, ay, bx, by;
	catan_view_vertex_xy(v, b, b->edge_vertices[e][0], &ax, &ay);
	catan_view_vertex_xy(v, b, b->edge_vertices[e][1], &bx, &by);
	float k = t >= 1 ? 0.18f : 0.5f - 0.32f * t;
	float x0 = ax + (bx - ax) * k, y0 = ay + (by - ay) * k;
	float x1 = bx - (bx - ax) * k, y1 = by - (by - ay) * k;
	float w = v->size * 0.13f;
	thick_line(r, x0, y0, x1, y1, w + 3, fade(ink, t));
	thick_line(r, x0, y0, x1, y1, w, fade(c, t));
}

/* A settlement or city; t < 1 while it is being placed (its outline
 * fades in with it). */
static void building(SDL_Renderer *r, const catan_view *v, float x, float y,
		     bool city, rgba c, float t)
{
	rgba ol = fade(ink, t);
	c = fade(c, t);
	float s = v->size * (city ? 0.2f : 0.16f);
	float house[10] = {x - s, y + s * 0.8f, x - s, y - s * 0.2f,
			   x, y - s * 1.1f, x + s, y - s * 0.2f,
			   x + s, y + s * 0.8f};
	if (!city) {
		float o[10];
		for (int i = 0; i < 5; i++) {
			float dx = house[2 * i] - x, dy = house[2 * i + 1] - y;
			o[2 * i] = x + dx * 1.3f;
			o[2 * i + 1] = y + dy * 1.3f;
		}
		fill_poly(r, o, 5, ol);
		fill_poly(r, house, 5, c);
		return;
	}
	/* City: a hall and a taller house beside it, each convex, each
	 * outlined by drawing it first a little larger in ink. */
	float hall[8] = {x - s * 1.4f, y + s, x - s * 1.4f, y - s * 0.1f,
			 x + s * 0.2f, y - s * 0.1f, x + s * 0.2f, y + s};
	float house2[10] = {x - s * 0.1f, y + s, x - s * 0.1f, y - s * 0.7f,
			    x + s * 0.55f, y - s * 1.4f, x + s * 1.2f,
			    y - s * 0.7f, x + s * 1.2f, y + s};
	float *parts[2] = {hall, house2};
	int counts[2] = {4, 5};
	for (int k = 0; k < 2; k++) {
		float cx = 0, cy = 0, o[10];
		for (int i = 0; i < counts[k]; i++) {
			cx += parts[k][2 * i] / counts[k];
			cy += parts[k][2 * i + 1] / counts[k];
		}
		for (int i = 0; i < counts[k]; i++) {
			float dx = parts[k][2 * i] - cx, dy = parts[k][2 * i + 1] - cy;
			float len = sqrtf(dx * dx + dy * dy);
			float g = len > 0 ? (len + 2.2f) / len : 1;
			o[2 * i] = cx + dx * g;
			o[2 * i + 1] = cy + dy * g;
		}
		fill_poly(r, o, counts[k], ol);
	}
	fill_poly(r, hall, 4, c);
	fill_poly(r, house2, 5, c);
}

static void robber(SDL_Renderer *r, float x, float y, float s, float t)
{
	rgba body = fade((rgba){50, 50, 56, 255}, t);
	float b[8] = {x - s * 0.13f, y + s * 0.3f, x - s * 0.08f, y - s * 0.05f,
		      x + s * 0.08f, y - s * 0.05f, x + s * 0.13f, y + s * 0.3f};
	fill_poly(r, b, 4, body);
	fill_circle(r, x, y - s * 0.1f, s * 0.1f, body);
	fill_circle(r, x, y - s * 0.1f, s * 0.04f, fade(shade(body, 1.8f), t));
}

/* ---- the board ---- */

/* How high above its spot a piece being placed is at t (0..1): it drops
 * from half a hexagon and eases onto the spot. */
static float drop(const catan_view *v, float t)
{
	if (t >= 1)
		return 0;
	float u = 1 - (t < 0 ? 0 : t);
	return v->size * 0.5f * u * u;
}

static void draw_board(SDL_Renderer *r, ui_fonts *f, const ui_frame *fr)
{
	const catan_view *v = fr->v;
	const catan_board *b = &fr->g->board;
	const catan_state *s = fr->s;
	float xy[12];
	fill_rect(r, &v->board_area, sea_deep);
	/* Sea hexes: every neighbour of a land tile that is not land. */
	static const int dq[6] = {1, -1, 1, 0, 0, -1}, dr[6] = {0, 0, -1, -1, 1, 1};
	for (int t = 0; t < b->ntiles; t++)
		for (int k = 0; k < 6; k++) {
			int q = b->tile_hex[t].q + dq[k], rr = b->tile_hex[t].r + dr[k];
			if (catan_board_tile(b, q, rr) >= 0)
				continue;
			float cx, cy;
			catan_view_hex_xy(v, q, rr, &cx, &cy);
			hexagon(xy, cx, cy, v->size * 1.001f);
			fill_poly(r, xy, 6, sea);
		}
	for (int t = 0; t < b->ntiles; t++) {
		float cx, cy;
		catan_view_hex_xy(v, b->tile_hex[t].q, b->tile_hex[t].r, &cx, &cy);
		int terr = b->tile_terrain[t];
		hexagon(xy, cx, cy, v->size);
		fill_poly(r, xy, 6, shade(terrain_fill[terr], 0.8f));
		hexagon(xy, cx, cy, v->size * 0.93f);
		fill_poly(r, xy, 6, terrain_fill[terr]);
		icon(r, terr, cx, cy - v->size * 0.45f, v->size);
		rgba lc = terr == CATAN_LUMBER || terr == CATAN_BRICK ||
					  terr == CATAN_ORE
				  ? white
				  : ink;
		text(r, f->small, res_short[terr], cx, cy + v->size * 0.62f, 1,
		     1, lc);
		if (b->tile_token[t])
			token(r, f, b->tile_token[t], cx, cy + v->size * 0.08f,
			      v->size);
		if (fr->hl_tiles[t]) {
			ring(r, cx, cy, v->size * 0.42f, 3, white);
			if (fr->hover_kind == CATAN_HIT_TILE && fr->hover_id == t)
				fill_circle(r, cx, cy, v->size * 0.4f,
					    alpha(white, 90));
		}
		if (v->coords) {
			char c[16];
			snprintf(c, sizeof c, "%d,%d", b->tile_hex[t].q,
				 b->tile_hex[t].r);
			text(r, f->small, c, cx, cy - v->size * 0.8f, 1, 1, ink);
		}
	}
	for (int h = 0; h < b->nharbours; h++)
		harbour(r, f, v, b, h);
	/* Robber. */
	if (s->robber < b->ntiles) {
		float cx, cy;
		catan_view_hex_xy(v, b->tile_hex[s->robber].q,
				  b->tile_hex[s->robber].r, &cx, &cy);
		float t = fr->anim_robber ? fr->anim_t : 1;
		robber(r, cx - v->size * (b->tile_token[s->robber] ? 0.45f : 0),
		       cy + v->size * 0.05f - drop(v, t), v->size, t);
	}
	/* Roads. */
	for (int p = 0; p < s->opt.nplayers; p++)
		CATAN_FOR_BITS(e, s->players[p].roads.w, CATAN_EWORDS)
		{
			road(r, v, b, e, ui_player_color(fr->g, p),
			     catan_eset_has(&fr->anim_edges, e) ? fr->anim_t
								: 1);
		}
	/* Highlighted edges. */
	CATAN_FOR_BITS(e, fr->hl_edges.w, CATAN_EWORDS)
	{
		float ax, ay, bx, by;
		catan_view_vertex_xy(v, b, b->edge_vertices[e][0], &ax, &ay);
		catan_view_vertex_xy(v, b, b->edge_vertices[e][1], &bx, &by);
		bool hov = fr->hover_kind == CATAN_HIT_EDGE && fr->hover_id == e;
		float k = 0.22f;
		thick_line(r, ax + (bx - ax) * k, ay + (by - ay) * k,
			   bx - (bx - ax) * k, by - (by - ay) * k,
			   v->size * (hov ? 0.14f : 0.08f),
			   alpha(white, hov ? 230 : 150));
	}
	/* Buildings. */
	for (int i = 0; i < b->nvertices; i++) {
		int own = s->building[i] & 0x0f;
		if (!own)
			continue;
		float x, y;
		catan_view_vertex_xy(v, b, i, &x, &y);
		float t =
		    catan_vset_has(&fr->anim_vertices, i) ? fr->anim_t : 1;
		building(r, v, x, y - drop(v, t),
			 s->building[i] & CATAN_CITY_BIT,
			 ui_player_color(fr->g, own - 1), t);
	}
	CATAN_FOR_BITS(i, fr->hl_vertices.w, CATAN_VWORDS)
	{
		float x, y;
		catan_view_vertex_xy(v, b, i, &x, &y);
		bool hov = fr->hover_kind == CATAN_HIT_VERTEX && fr->hover_id == i;
		ring(r, x, y, v->size * 0.16f, hov ? 4 : 2.5f,
		     alpha(white, hov ? 255 : 200));
		if (hov)
			fill_circle(r, x, y, v->size * 0.14f, alpha(white, 110));
	}
	/* What the others did since the viewer's last move: a halo in the
	 * owner's colour around new roads and buildings, a ring in the
	 * mover's colour on the robber's new tile. */
	CATAN_FOR_BITS(e, fr->recent_edges.w, CATAN_EWORDS)
	{
		float ax, ay, bx, by, mx, my;
		catan_view_vertex_xy(v, b, b->edge_vertices[e][0], &ax, &ay);
		catan_view_vertex_xy(v, b, b->edge_vertices[e][1], &bx, &by);
		catan_view_edge_xy(v, b, e, &mx, &my);
		float g =
		    catan_eset_has(&fr->newest_edges, e) ? fr->mark_grow : 0;
		ring(r, mx, my, v->size * 0.2f * (1 + 2 * g), 3, gold);
	}
	CATAN_FOR_BITS(i, fr->recent_vertices.w, CATAN_VWORDS)
	{
		float x, y;
		catan_view_vertex_xy(v, b, i, &x, &y);
		float g =
		    catan_vset_has(&fr->newest_vertices, i) ? fr->mark_grow : 0;
		ring(r, x, y, v->size * 0.27f * (1 + 2 * g), 3.5f, gold);
	}
	if (fr->recent_tile >= 0 && fr->recent_tile < b->ntiles) {
		float cx, cy;
		catan_view_hex_xy(v, b->tile_hex[fr->recent_tile].q,
				  b->tile_hex[fr->recent_tile].r, &cx, &cy);
		hexagon(xy, cx, cy, v->size * 0.9f);
		for (int k = 0; k < 6; k++)
			thick_line(r, xy[2 * k], xy[2 * k + 1],
				   xy[(2 * k + 2) % 12], xy[(2 * k + 3) % 12],
				   4, gold);
		ring(r, cx, cy,
		     v->size * 0.5f *
			 (1 + (fr->newest_tile ? fr->mark_grow : 0)),
		     3, ui_player_color(fr->g, fr->recent_tile_by));
	}
	/* Selected set-up settlement / first road. */
	if (v->pick_vertex != CATAN_NONE && v->pick_vertex < b->nvertices) {
		float x, y;
		catan_view_vertex_xy(v, b, v->pick_vertex, &x, &y);
		building(r, v, x, y, false,
			 alpha(ui_player_color(fr->g, v->actor), 170), 1);
	}
	if (v->pick_edge != CATAN_NONE && v->pick_edge < b->nedges)
		road(r, v, b, v->pick_edge,
		     alpha(ui_player_color(fr->g, v->actor), 170), 1);
	/* Coordinates of the spot under the mouse. */
	if (v->coords && (fr->hover_kind == CATAN_HIT_VERTEX ||
			  fr->hover_kind == CATAN_HIT_EDGE)) {
		char name[32];
		float x, y;
		if (fr->hover_kind == CATAN_HIT_VERTEX) {
			catan_vertex_format(name, sizeof name, b, fr->hover_id);
			catan_view_vertex_xy(v, b, fr->hover_id, &x, &y);
		} else {
			catan_edge_format(name, sizeof name, b, fr->hover_id);
			catan_view_edge_xy(v, b, fr->hover_id, &x, &y);
		}
		text_entry *e = text_get(r, f->normal, name, ink);
		if (e) {
			catan_rect bg = {(int)x + 10, (int)y - e->h - 10, e->w + 8,
					 e->h + 4};
			fill_rect(r, &bg, alpha(cream, 235));
			text(r, f->normal, name, bg.x + 4, bg.y + 2, 0, 0, ink);
		}
	}
}

/* ---- panel ---- */

static void res_chip(SDL_Renderer *r, ui_fonts *f, float x, float y, float u,
		     int res, int n)
{
	catan_rect q = {(int)x, (int)y, (int)(46 * u), (int)(30 * u)};
	fill_rect(r, &q, terrain_fill[res]);
	outline_rect(r, &q, ink);
	char buf[8];
	snprintf(buf, sizeof buf, "%d", n);
	rgba tc = res == CATAN_LUMBER || res == CATAN_BRICK || res == CATAN_ORE
			  ? white
			  : ink;
	text(r, f->bold, buf, q.x + q.w / 2.0f, q.y + q.h * 0.42f, 1, 1, tc);
	text(r, f->small, res_short[res], q.x + q.w / 2.0f, q.y + q.h + 1, 1, 0,
	     text_dim);
}

static void draw_panel(SDL_Renderer *r, ui_fonts *f, const ui_frame *fr)
{
	const catan_view *v = fr->v;
	const catan_state *s = fr->s;
	const catan_game *g = fr->g;
	float u = v->u;
	u = v->t; /* text and controls: never smaller than at scale 1 */
	fill_rect(r, &v->panel, panel_bg);
	SDL_Rect clip = {v->panel.x, v->panel.y, v->panel.w, v->panel.h};
	SDL_RenderSetClipRect(r, &clip);
	float x = v->panel.x + 12 * u, y = 8 * u, w = v->panel.w - 24 * u;
	char buf[256];
	text(r, f->big, fr->title ? fr->title : "catan-git", x, y, 0, 0,
	     text_light);
	y += 30 * u;
	/* The dice, with who threw them: before this turn's roll they are
	 * the last turn's, and say so. */
	char roller[40] = "";
	if (fr->roller >= 0 && fr->roller < s->opt.nplayers)
		snprintf(roller, sizeof roller, "%s",
			 g->names.name[fr->roller]);
	if (!s->turn)
		snprintf(buf, sizeof buf, "set-up");
	else if (!s->dice[0])
		snprintf(buf, sizeof buf, "turn %d   not rolled yet", s->turn);
	else if (s->phase == CATAN_PHASE_ROLL)
		snprintf(buf, sizeof buf,
			 "turn %d   %s to roll (last: %s %d+%d)", s->turn,
			 g->names.name[s->active], roller[0] ? roller : "roll",
			 s->dice[0], s->dice[1]);
	else
		snprintf(buf, sizeof buf, "turn %d   %s rolled %d + %d = %d",
			 s->turn, roller[0] ? roller : g->names.name[s->active],
			 s->dice[0], s->dice[1], s->dice[0] + s->dice[1]);
	y += text_fit(r, f->normal, f->small, buf, x, y, w, text_light) + 4 * u;
	y += text_fit(r, f->normal, f->small, fr->status ? fr->status : "", x,
		      y, w, gold) +
	     4 * u;
	if (s->phase == CATAN_PHASE_OFFER && s->offer_from < s->opt.nplayers &&
	    s->offer_to < s->opt.nplayers) {
		size_t used = (size_t)snprintf(buf, sizeof buf, "%s offers %s:",
					       g->names.name[s->offer_from],
					       g->names.name[s->offer_to]);
		for (int k = 0; k < 2; k++) {
			const uint8_t *c = k ? s->offer_get : s->offer_give;
			used += (size_t)snprintf(buf + used, sizeof buf - used,
						 k ? " for" : "");
			for (int res = 0; res < CATAN_RES_COUNT; res++)
				if (c[res] && used < sizeof buf)
					used += (size_t)snprintf(
						buf + used, sizeof buf - used,
						" %d %s", c[res], res_short[res]);
		}
		text(r, f->bold, buf, x, y, 0, 0, (rgba){255, 230, 150, 255});
		y += 22 * u;
	}
	if (fr->message && *fr->message)
		y += text_fit(r, f->small, f->small, fr->message, x, y, w,
			      fr->message_ok ? (rgba){150, 230, 150, 255}
					     : (rgba){255, 140, 120, 255}) -
		     20 * u;
	y += 20 * u;
	/* Players. */
	for (int p = 0; p < s->opt.nplayers; p++) {
		const catan_player *pl = &s->players[p];
		bool open = fr->reveal_all && p != fr->viewer;
		catan_rect card = {(int)x, (int)y, (int)w,
				   (int)((open ? 60 : 44) * u)};
		bool turn = p == s->active && s->phase != CATAN_PHASE_OVER;
		fill_rect(r, &card, turn ? (rgba){58, 64, 82, 255}
					 : (rgba){42, 47, 60, 255});
		catan_rect sw = {card.x, card.y, (int)(8 * u), card.h};
		fill_rect(r, &sw, ui_player_color(g, p));
		/* Every hidden VP card counts (and shows) once it is over. */
		int vp = fr->reveal_all || p == fr->viewer ||
				 s->phase == CATAN_PHASE_OVER
			     ? catan_state_vp(s, p)
			     : pl->public_vp;
		snprintf(buf, sizeof buf, "%s%s%s", g->names.name[p],
			 p == fr->viewer ? " (you)" : "",
			 catan_state_out(s, p) ? " (expelled)" : "");
		int nw = text(r, f->bold, buf, card.x + 14 * u, card.y + 3 * u, 0,
			      0, text_light);
		snprintf(buf, sizeof buf, "%s%s%s",
			 s->longest_road == p ? "Longest road" : "",
			 s->longest_road == p && s->largest_army == p ? ", " : "",
			 s->largest_army == p ? "Largest army" : "");
		text(r, f->small, buf, card.x + 22 * u + nw, card.y + 6 * u, 0, 0,
		     gold);
		snprintf(buf, sizeof buf, "%d VP", vp);
		text(r, f->bold, buf, card.x + card.w - 8 * u, card.y + 3 * u, 2,
		     0, gold);
		int devs = 0;
		for (int d = 0; d < CATAN_DEV_COUNT; d++)
			devs += pl->devs[d];
		snprintf(buf, sizeof buf, "cards %d  dev %d  knights %d  road %d%s",
			 pl->ncards, devs, pl->knights, pl->road_length,
			 s->discard[p] ? "  must discard" : "");
		text(r, f->small, buf, card.x + 14 * u, card.y + 24 * u, 0, 0,
		     text_dim);
		if (open) {
			snprintf(buf, sizeof buf,
				 "hand: %d lumber %d brick %d wool %d grain %d ore",
				 pl->hand[0], pl->hand[1], pl->hand[2], pl->hand[3],
				 pl->hand[4]);
			text(r, f->small, buf, card.x + 14 * u, card.y + 40 * u, 0,
			     0, text_dim);
		}
		y += card.h + 4 * u;
	}
	/* Hand of the viewer. */
	y += 4 * u;
	if (fr->viewer != CATAN_NONE && fr->viewer < s->opt.nplayers) {
		const catan_player *me = &s->players[fr->viewer];
		snprintf(buf, sizeof buf, "%s's hand", g->names.name[fr->viewer]);
		text(r, f->bold, buf, x, y, 0, 0, text_light);
		y += 22 * u;
		for (int res = 0; res < CATAN_RES_COUNT; res++)
			res_chip(r, f, x + res * 52 * u, y, u, res, me->hand[res]);
		y += 50 * u;
		size_t used = 0;
		buf[0] = 0;
		for (int d = 0; d < CATAN_DEV_COUNT; d++)
			if (me->devs[d] && used < sizeof buf)
				used += (size_t)snprintf(buf + used, sizeof buf - used,
							 "%s%s x%d", used ? ", " : "",
							 catan_dev_name(d), me->devs[d]);
		text(r, f->small, used ? buf : "no development cards", x, y, 0, 0,
		     text_dim);
		y += 20 * u;
		/* The building costs, for whoever has not learnt them. */
		if (fr->show_buttons) {
			static const char *const costs[] = {
			    "road: lumber, brick",
			    "settlement: lumber, brick, wool, grain",
			    "city: 2 grain, 3 ore   card: wool, grain, ore"};
			for (int k = 0; k < 3; k++) {
				text(r, f->small, costs[k], x, y, 0, 0,
				     (rgba){200, 190, 150, 255});
				y += TTF_FontLineSkip(f->small);
			}
			y += 4 * u;
		}
	}
	/* Bank. */
	snprintf(buf, sizeof buf, "bank: %d lumber %d brick %d wool %d grain %d ore",
		 s->bank[0], s->bank[1], s->bank[2], s->bank[3], s->bank[4]);
	text(r, f->small, buf, x, y, 0, 0, text_dim);
	y += 18 * u;
	int deck = 0;
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		deck += s->deck[d];
	snprintf(buf, sizeof buf, "development cards left: %d", deck);
	text(r, f->small, buf, x, y, 0, 0, text_dim);
	y += 24 * u;
	if (fr->sync && *fr->sync) {
		y += text_fit(r, f->small, f->small, fr->sync, x, y, w,
			      (rgba){140, 200, 255, 255}) -
		     TTF_FontLineSkip(f->small);
		y += 20 * u;
	}
	/* Log. */
	float bottom = v->h - (fr->show_buttons ? 40 : 8) * u;
	float lh = TTF_FontLineSkip(f->small) + 1;
	int rows_free = (int)((bottom - 6 * u - y - 20 * u) / lh);
	/* A line wider than the panel wraps once at a space: split[i] is
	 * where its second row starts (0: one row). Newest lines first
	 * until the rows are used up. */
	int split[UI_LOG_LINES], first = fr->nlog;
	for (int i = fr->nlog - 1; i >= 0; i--) {
		int tw = 0, th = 0;
		split[i] = 0;
		rgba lc = i == fr->nlog - 1 && !fr->log_scroll ? text_light
							       : text_dim;
		text_entry *te = text_get(r, f->small, fr->log[i], lc);
		tw = te ? te->w : 0;
		if (tw > w) {
			char part[UI_LOG_LINE_MAX];
			snprintf(part, sizeof part, "%s", fr->log[i]);
			for (int k = (int)strlen(part) - 1; k > 0; k--) {
				if (part[k] != ' ')
					continue;
				part[k] = 0;
				TTF_SizeUTF8(f->small, part, &tw, &th);
				if (tw <= w) {
					split[i] = k + 1;
					break;
				}
			}
		}
		int need = split[i] ? 2 : 1;
		if (need > rows_free)
			break;
		rows_free -= need;
		first = i;
	}
	if (first == fr->nlog && fr->nlog)
		first = fr->nlog - 1;
	int more = fr->log_more + first;
	if (more || fr->log_scroll)
		snprintf(buf, sizeof buf,
			 "log  (%d earlier%s; mouse wheel scrolls)", more,
			 fr->log_scroll ? ", scrolled back" : "");
	else
		snprintf(buf, sizeof buf, "log");
	text(r, f->bold, "log", x, y, 0, 0, text_light);
	if (more || fr->log_scroll)
		text(r, f->small, buf + 3, x + 34 * u, y + 2 * u, 0, 0,
		     text_dim);
	y += 20 * u;
	for (int i = first; i < fr->nlog; i++) {
		rgba c = i == fr->nlog - 1 && !fr->log_scroll ? text_light
							      : text_dim;
		if (split[i]) {
			char part[UI_LOG_LINE_MAX];
			snprintf(part, sizeof part, "%.*s", split[i] - 1,
				 fr->log[i]);
			text(r, f->small, part, x, y, 0, 0, c);
			y += lh;
			text(r, f->small, fr->log[i] + split[i], x + 10 * u, y,
			     0, 0, c);
		} else
			text(r, f->small, fr->log[i], x, y, 0, 0, c);
		y += lh;
	}
	if (fr->show_buttons) {
		/* How to play, for whoever has not read the README. */
		text(r, f->small, "click a ringed spot: build, move the robber",
		     x, bottom, 0, 0, text_dim);
		text(r, f->small,
		     "keys under the buttons; Esc cancels; q quits", x,
		     bottom + 16 * u, 0, 0, text_dim);
	}
	SDL_RenderSetClipRect(r, NULL);
}

static void draw_bar(SDL_Renderer *r, ui_fonts *f, const ui_frame *fr)
{
	const catan_view *v = fr->v;
	fill_rect(r, &v->bar, (rgba){24, 27, 35, 255});
	if (fr->replay_count > 0) {
		/* The replay slider. */
		catan_rect track = {v->bar.x + 20, v->bar.y + v->bar.h / 2 - 3,
				    v->bar.w - 40, 6};
		fill_rect(r, &track, (rgba){80, 86, 100, 255});
		float k = fr->replay_count > 1
				  ? (float)fr->replay_pos / (fr->replay_count - 1)
				  : 0;
		float kx = track.x + k * track.w;
		catan_rect done = {track.x, track.y, (int)(kx - track.x), 6};
		fill_rect(r, &done, gold);
		fill_circle(r, kx, track.y + 3, 9 * v->u, gold);
		/* How to move, for whoever has not read the README. */
		text(r, f->small,
		     "right arrow or space: next move, left: back, drag the "
		     "bar; q closes",
		     track.x, track.y + 12 * v->u, 0, 0, text_dim);
		return;
	}
	if (!fr->show_buttons)
		return;
	for (int i = 0; i < CATAN_BTN_COUNT; i++) {
		const catan_rect *q = &v->button[i];
		bool on = fr->buttons >> i & 1u;
		bool hov = fr->hover_kind == CATAN_HIT_BUTTON && fr->hover_id == i;
		fill_rect(r, q, on ? (hov ? (rgba){90, 140, 90, 255}
					  : (rgba){60, 110, 70, 255})
				   : (rgba){48, 52, 62, 255});
		outline_rect(r, q, on ? (rgba){150, 210, 150, 255}
				      : (rgba){70, 74, 86, 255});
		static const char keys[CATAN_BTN_COUNT] = "rebkoymtfaxde";
		char label[32];
		snprintf(label, sizeof label, "%s", catan_button_label(i));
		text(r, f->small, label, q->x + q->w / 2.0f,
		     q->y + q->h * 0.4f, 1, 1, on ? white : (rgba){120, 124, 136, 255});
		snprintf(label, sizeof label, "%c", keys[i]);
		if (q->h > 30 * v->t)
			text(r, f->small, label, q->x + q->w / 2.0f,
			     q->y + q->h * 0.8f, 1, 1,
			     on ? (rgba){190, 230, 190, 255} : (rgba){90, 94, 106, 255});
	}
}

/* "2 grain and 1 ore" */
static void cards_words(char *out, size_t n, const uint8_t c[CATAN_RES_COUNT])
{
	int kinds = 0, done = 0;
	for (int res = 0; res < CATAN_RES_COUNT; res++)
		kinds += c[res] > 0;
	out[0] = 0;
	for (int res = 0; res < CATAN_RES_COUNT; res++) {
		if (!c[res])
			continue;
		size_t u = strlen(out);
		done++;
		snprintf(out + u, n - u, "%s%d %s",
			 done == 1	 ? ""
			 : done == kinds ? " and "
					 : ", ",
			 c[res], catan_res_name(res));
	}
}

/* What OK will do, in plain words: "OK offers 1 ore for 1 brick to blue,
 * white, orange (one at a time)". */
static void dialog_words(char *out, size_t n, const catan_game *g,
			 const catan_view *v, const catan_action *a)
{
	char give[80], get[80];
	cards_words(give, sizeof give, a->give);
	cards_words(get, sizeof get, a->get);
	switch (a->kind) {
	case CATAN_ACT_TRADE_OFFER: {
		char who[120] = "";
		unsigned t = v->targets ? v->targets : 1u << a->player;
		int k = 0;
		for (int p = 0; p < g->names.n; p++)
			if (t >> p & 1u) {
				size_t u = strlen(who);
				snprintf(who + u, sizeof who - u, "%s%s",
					 k++ ? ", " : "", g->names.name[p]);
			}
		snprintf(out, n, "OK offers %s for %s to %s", give, get, who);
		break;
	}
	case CATAN_ACT_TRADE_BANK:
		snprintf(out, n, "OK gives the bank %d %s for 1 %s (%d:1)",
			 a->count, catan_res_name(a->res),
			 catan_res_name(a->res2), a->count);
		break;
	case CATAN_ACT_DISCARD:
		snprintf(out, n, "OK discards %s", give);
		break;
	case CATAN_ACT_PLAY_YEAR_OF_PLENTY:
		if (a->res2 == CATAN_NONE)
			snprintf(out, n, "OK takes 1 %s from the bank",
				 catan_res_name(a->res));
		else
			snprintf(out, n, "OK takes %s and %s from the bank",
				 catan_res_name(a->res),
				 catan_res_name(a->res2));
		break;
	case CATAN_ACT_PLAY_MONOPOLY:
		snprintf(out, n, "OK takes every %s from the others",
			 catan_res_name(a->res));
		break;
	default:
		if (a->player < g->names.n &&
		    (a->kind == CATAN_ACT_ROBBER ||
		     a->kind == CATAN_ACT_PLAY_KNIGHT))
			snprintf(out, n, "OK robs %s",
				 g->names.name[a->player]);
		else
			catan_action_format(out, n, &g->board, &g->names, a);
	}
}

static void draw_dialog(SDL_Renderer *r, ui_fonts *f, const ui_frame *fr)
{
	const catan_view *v = fr->v;
	const catan_state *s = fr->s;
	if (v->dialog == CATAN_DLG_NONE)
		return;
	static const char *const titles[CATAN_DLG_COUNT] = {
		"",
		"Discard",
		"Year of plenty: take two resources",
		"Monopoly: name a resource",
		"Trade with the bank",
		"Offer a trade",
		"Rob whom?",
		"Dice thrown at the table"};
	catan_rect shadow = v->dlg;
	shadow.x += 6;
	shadow.y += 6;
	fill_rect(r, &shadow, alpha(ink, 120));
	fill_rect(r, &v->dlg, (rgba){246, 240, 226, 255});
	outline_rect(r, &v->dlg, ink);
	float u = v->t;
	char buf[128];
	const char *title = titles[v->dialog];
	if (v->dialog == CATAN_DLG_DISCARD && v->actor < s->opt.nplayers) {
		int n = 0;
		for (int k = 0; k < CATAN_RES_COUNT; k++)
			n += v->give[k];
		snprintf(buf, sizeof buf, "Discard %d cards (chosen %d)",
			 s->discard[v->actor], n);
		title = buf;
	}
	if (v->dialog == CATAN_DLG_OFFER && s->phase == CATAN_PHASE_OFFER &&
	    s->offer_from < s->opt.nplayers) {
		snprintf(buf, sizeof buf, "Counter-offer to %s",
			 fr->g->names.name[s->offer_from]);
		title = buf;
	} else if (v->dialog == CATAN_DLG_OFFER &&
		   __builtin_popcount(v->targets) > 1) {
		snprintf(buf, sizeof buf,
			 "Offer a trade to %d players, in turn",
			 __builtin_popcount(v->targets));
		title = buf;
	}
	text(r, f->bold, title, v->dlg.x + 16 * u, v->dlg.y + 12 * u, 0, 0, ink);
	bool give_col = v->control[CATAN_DLG_GIVE_PLUS].w &&
			(v->dialog == CATAN_DLG_DISCARD ||
			 v->dialog == CATAN_DLG_BANK ||
			 v->dialog == CATAN_DLG_OFFER || v->dialog == CATAN_DLG_DICE);
	bool get_col = v->dialog != CATAN_DLG_DISCARD;
	bool manual = s->opt.dice == CATAN_DICE_MANUAL;
	if (v->dialog == CATAN_DLG_VICTIM && !manual)
		get_col = false;
	int rows = v->dialog == CATAN_DLG_DICE ? 1 : CATAN_RES_COUNT;
	const char *h1 = v->dialog == CATAN_DLG_DICE ? "die 1" : "give";
	const char *h2 = v->dialog == CATAN_DLG_DICE ? "die 2" : v->dialog == CATAN_DLG_VICTIM ? "card taken" : "get";
	if (give_col)
		text(r, f->small, h1, v->control[CATAN_DLG_GIVE_MINUS].x,
		     v->dlg.y + 42 * u, 0, 0, ink);
	if (get_col)
		text(r, f->small, h2, v->control[CATAN_DLG_GET_MINUS].x,
		     v->dlg.y + 42 * u, 0, 0, ink);
	for (int res = 0; res < rows; res++) {
		const catan_rect *gm = &v->control[CATAN_DLG_GIVE_MINUS + res];
		/* The rob-whom dialog names no cards of yours (only, in
		 * manual dice mode, the card taken). */
		if (v->dialog != CATAN_DLG_DICE &&
		    (v->dialog != CATAN_DLG_VICTIM || manual)) {
			catan_rect chip = {v->dlg.x + (int)(16 * u), gm->y,
					   (int)(110 * u), gm->h};
			fill_rect(r, &chip, terrain_fill[res]);
			int have = v->actor < s->opt.nplayers
				       ? s->players[v->actor].hand[res]
				       : 0;
			if (v->dialog == CATAN_DLG_VICTIM)
				snprintf(buf, sizeof buf, "%s", res_short[res]);
			else if (v->dialog == CATAN_DLG_BANK)
				snprintf(buf, sizeof buf, "%s (%d) %d:1",
					 res_short[res], have,
					 catan_view_rate(&fr->g->board, s,
							 v->actor, res));
			else
				snprintf(buf, sizeof buf, "%s (%d)",
					 res_short[res], have);
			text(r, f->small, buf, chip.x + 6 * u, chip.y + chip.h / 2.0f,
			     0, 1,
			     res == CATAN_LUMBER || res == CATAN_BRICK ||
					     res == CATAN_ORE
				     ? white
				     : ink);
		}
		for (int col = 0; col < 2; col++) {
			if ((col == 0 && !give_col) || (col == 1 && !get_col))
				continue;
			const catan_rect *m = &v->control[(col ? CATAN_DLG_GET_MINUS
							       : CATAN_DLG_GIVE_MINUS) + res];
			const catan_rect *p = &v->control[(col ? CATAN_DLG_GET_PLUS
							       : CATAN_DLG_GIVE_PLUS) + res];
			fill_rect(r, m, (rgba){210, 200, 180, 255});
			fill_rect(r, p, (rgba){210, 200, 180, 255});
			outline_rect(r, m, ink);
			outline_rect(r, p, ink);
			text(r, f->bold, "-", m->x + m->w / 2.0f, m->y + m->h / 2.0f, 1, 1, ink);
			text(r, f->bold, "+", p->x + p->w / 2.0f, p->y + p->h / 2.0f, 1, 1, ink);
			snprintf(buf, sizeof buf, "%d", col ? v->get[res] : v->give[res]);
			text(r, f->bold, buf, (m->x + m->w + p->x) / 2.0f,
			     m->y + m->h / 2.0f, 1, 1, ink);
		}
	}
	if (v->dialog == CATAN_DLG_OFFER || v->dialog == CATAN_DLG_VICTIM) {
		/* Only who can be chosen: the robber's possible victims;
		 * for a counter-offer, who offered. */
		unsigned can = v->dialog == CATAN_DLG_VICTIM
				   ? catan_view_victims(v, &fr->g->board, s)
			       : s->phase == CATAN_PHASE_OFFER
				   ? 1u << s->offer_from
				   : ~0u;
		for (int p = 0; p < s->opt.nplayers; p++) {
			if (p == v->actor || !(can >> p & 1u))
				continue;
			const catan_rect *q = &v->control[CATAN_DLG_PLAYER + p];
			rgba c = ui_player_color(fr->g, p);
			bool on = v->dialog == CATAN_DLG_OFFER
				      ? (v->targets >> p & 1u)
				      : v->target == p;
			/* Chosen: full colour, a thick frame and a tick;
			 * not chosen: pale with a thin grey frame. */
			fill_rect(r, q, on ? c : (rgba){225, 220, 210, 255});
			catan_rect strip = {q->x, q->y, (int)(5 * u), q->h};
			fill_rect(r, &strip, c);
			outline_rect(r, q,
				     on ? ink : (rgba){150, 150, 150, 255});
			if (on) {
				catan_rect in = {q->x + 1, q->y + 1, q->w - 2,
						 q->h - 2};
				outline_rect(r, &in, ink);
				catan_rect in2 = {q->x + 2, q->y + 2, q->w - 4,
						  q->h - 4};
				outline_rect(r, &in2, ink);
			}
			/* A victim: how many cards each has to lose. */
			if (v->dialog == CATAN_DLG_VICTIM)
				snprintf(buf, sizeof buf, "%s%s (%d)",
					 on ? "* " : "", fr->g->names.name[p],
					 s->players[p].ncards);
			else
				snprintf(buf, sizeof buf, "%s%s",
					 on ? "* " : "", fr->g->names.name[p]);
			text(r, on ? f->bold : f->small, buf,
			     q->x + q->w / 2.0f, q->y + q->h / 2.0f, 1, 1,
			     on && (c.r + c.g + c.b) < 300 ? white : ink);
		}
	}
	catan_action a;
	char why[128] = "";
	bool ok = catan_view_dialog_action(&a, v, &fr->g->board, s, why,
					   sizeof why) == CATAN_OK;
	const catan_rect *okr = &v->control[CATAN_DLG_OK], *cr = &v->control[CATAN_DLG_CANCEL];
	fill_rect(r, okr, ok ? (rgba){60, 130, 70, 255} : (rgba){170, 170, 170, 255});
	fill_rect(r, cr, (rgba){150, 80, 70, 255});
	text(r, f->bold, "OK", okr->x + okr->w / 2.0f, okr->y + okr->h / 2.0f, 1, 1, white);
	text(r, f->bold, "Cancel", cr->x + cr->w / 2.0f, cr->y + cr->h / 2.0f, 1, 1, white);
	bool none = true; /* nothing chosen yet: a hint, not an error */
	for (int res = 0; res < CATAN_RES_COUNT; res++)
		none = none && !v->give[res] && !v->get[res];
	int chosen = 0; /* a discard: how many still to choose */
	for (int res = 0; res < CATAN_RES_COUNT; res++)
		chosen += v->give[res];
	int owed = v->dialog == CATAN_DLG_DISCARD && v->actor < s->opt.nplayers
		       ? s->discard[v->actor]
		       : 0;
	/* The line above OK: what is missing (grey), why it cannot be done
	 * (red), or what OK will do (green). */
	char line[200];
	rgba lc = {100, 100, 100, 255};
	if (!ok && owed > chosen)
		snprintf(line, sizeof line, "choose %d more with +, then OK",
			 owed - chosen);
	else if (!ok && (v->dialog == CATAN_DLG_VICTIM ? v->target == CATAN_NONE
						       : none))
		snprintf(line, sizeof line, "%s",
			 v->dialog == CATAN_DLG_VICTIM
			     ? "choose whom to rob (cards in hand), then OK"
			     : "choose cards with + and -, then OK");
	else if (!ok) {
		snprintf(line, sizeof line, "%s", why);
		lc = (rgba){160, 40, 30, 255};
	} else {
		dialog_words(line, sizeof line, fr->g, v, &a);
		lc = (rgba){40, 110, 50, 255};
	}
	if (line[0])
		text(r, f->small, line, v->dlg.x + 16 * u, okr->y - 20 * u, 0,
		     0, lc);
	snprintf(ui_text_stats.dialog_line, sizeof ui_text_stats.dialog_line,
		 "%s", line);
}

/* ---- the end of the game ---- */

static catan_rect results_box(const catan_view *v)
{
	float t = v->t;
	int w = (int)(560 * t), h = (int)(420 * t);
	const catan_rect *ba = &v->board_area;
	if (w > ba->w - 8)
		w = ba->w - 8;
	if (h > ba->h - 8)
		h = ba->h - 8;
	return (catan_rect){ba->x + (ba->w - w) / 2, ba->y + (ba->h - h) / 2, w,
			    h};
}

void ui_results_layout(ui_results *res, const catan_view *v)
{
	catan_rect b = results_box(v);
	float t = v->t;
	int bw = (int)(120 * t), bh = (int)(32 * t);
	int y = b.y + b.h - bh - (int)(12 * t);
	res->replay =
	    (catan_rect){b.x + b.w - 2 * bw - (int)(24 * t), y, bw, bh};
	res->newgame = (catan_rect){b.x + b.w - bw - (int)(12 * t), y, bw, bh};
}

/*
 * The results panel over the board: the winner, every player's final VP
 * with the victory-point cards revealed, resources received, cards
 * stolen and lost, the dice histogram, and the Replay / New game buttons.
 */
static void draw_results(SDL_Renderer *r, ui_fonts *f, const ui_frame *fr)
{
	const catan_view *v = fr->v;
	const catan_state *s = fr->s;
	const catan_game *g = fr->g;
	const ui_results *res = fr->results;
	float t = v->t;
	catan_rect b = results_box(v);
	catan_rect shadow = {b.x + 6, b.y + 6, b.w, b.h};
	fill_rect(r, &shadow, alpha(ink, 140));
	fill_rect(r, &b, (rgba){246, 240, 226, 255});
	outline_rect(r, &b, ink);
	SDL_Rect clip = {b.x, b.y, b.w, b.h};
	SDL_RenderSetClipRect(r, &clip);
	char buf[160];
	float x = b.x + 16 * t, y = b.y + 12 * t;
	snprintf(buf, sizeof buf, "%s wins with %d victory points!",
		 g->names.name[s->winner], catan_state_vp(s, s->winner));
	text(r, f->big, buf, x, y, 0, 0,
	     shade(ui_player_color(g, s->winner), 0.7f));
	y += 34 * t;
	/* The table: one row a player. */
	static const char *const head[] = {"player",   "VP",	"VP cards",
					   "received", "stole", "lost"};
	float col[] = {0, 110, 160, 240, 320, 380};
	for (int k = 0; k < 6; k++)
		text(r, f->small, head[k], x + col[k] * t, y, 0, 0, ink);
	y += 20 * t;
	for (int p = 0; p < s->opt.nplayers; p++) {
		catan_rect sw = {(int)x, (int)y + 2, (int)(6 * t),
				 (int)(14 * t)};
		fill_rect(r, &sw, ui_player_color(g, p));
		outline_rect(r, &sw, ink); /* white on cream shows too */
		text(r, p == s->winner ? f->bold : f->normal, g->names.name[p],
		     x + 10 * t, y, 0, 0, ink);
		int vals[5] = {catan_state_vp(s, p),
			       s->players[p].devs[CATAN_DEV_VICTORY_POINT],
			       res->received[p], res->stole[p], res->lost[p]};
		for (int k = 0; k < 5; k++) {
			snprintf(buf, sizeof buf, "%d", vals[k]);
			text(r, k == 0 ? f->bold : f->normal, buf,
			     x + col[k + 1] * t, y, 0, 0, ink);
		}
		y += 20 * t;
	}
	/* The dice: a bar per total. */
	y += 8 * t;
	snprintf(buf, sizeof buf, "dice (%d rolls)", res->rolls);
	text(r, f->small, buf, x, y, 0, 0, ink);
	y += 18 * t;
	int most = 1;
	for (int d = 2; d <= 12; d++)
		most = res->dice[d] > most ? res->dice[d] : most;
	float bar_h = b.y + b.h - 60 * t - y, bw = (b.w - 40 * t) / 11;
	for (int d = 2; d <= 12; d++) {
		float bx = x + (d - 2) * bw;
		int hgt = (int)((bar_h - 18 * t) * res->dice[d] / most);
		catan_rect bar = {(int)(bx + 2),
				  (int)(y + bar_h - 18 * t - hgt),
				  (int)(bw - 4), hgt};
		fill_rect(r, &bar,
			  d == 7 ? (rgba){150, 60, 60, 255}
				 : (rgba){80, 110, 160, 255});
		snprintf(buf, sizeof buf, "%d", d);
		text(r, f->small, buf, bx + bw / 2, y + bar_h - 16 * t, 1, 0,
		     ink);
		if (res->dice[d]) {
			snprintf(buf, sizeof buf, "%d", res->dice[d]);
			text(r, f->small, buf, bx + bw / 2, bar.y - 15 * t, 1,
			     0, ink);
		}
	}
	const catan_rect *btn[2] = {&res->replay, &res->newgame};
	const char *label[2] = {"Replay", "New game"};
	for (int k = 0; k < 2; k++) {
		bool hov = fr->hover_kind == CATAN_HIT_NONE &&
			   catan_rect_has(btn[k], fr->hover_x, fr->hover_y);
		fill_rect(r, btn[k],
			  hov ? (rgba){90, 140, 90, 255}
			      : (rgba){60, 110, 70, 255});
		outline_rect(r, btn[k], ink);
		text(r, f->bold, label[k], btn[k]->x + btn[k]->w / 2.0f,
		     btn[k]->y + btn[k]->h / 2.0f, 1, 1, white);
	}
	SDL_RenderSetClipRect(r, NULL);
}

void ui_draw(SDL_Renderer *r, ui_fonts *f, const ui_frame *fr)
{
	memset(&ui_text_stats, 0, sizeof ui_text_stats);
	frame_no++;
	SDL_SetRenderDrawBlendMode(r, SDL_BLENDMODE_BLEND);
	SDL_SetRenderDrawColor(r, 20, 22, 28, 255);
	SDL_RenderClear(r);
	draw_board(r, f, fr);
	draw_bar(r, f, fr);
	draw_panel(r, f, fr);
	draw_dialog(r, f, fr);
	if (fr->s->phase == CATAN_PHASE_OVER && fr->results &&
	    fr->s->winner < fr->s->opt.nplayers) {
		draw_results(r, f, fr);
	} else if (fr->s->phase == CATAN_PHASE_OVER &&
		   fr->s->winner < fr->s->opt.nplayers &&
		   fr->v->dialog == CATAN_DLG_NONE) {
		/* The winner, across the board. */
		const catan_view *v = fr->v;
		char buf[96];
		snprintf(buf, sizeof buf, "%s wins with %d victory points!",
			 fr->g->names.name[fr->s->winner],
			 catan_state_vp(fr->s, fr->s->winner));
		catan_rect band = {v->board_area.x, v->board_area.y + v->board_area.h / 2 - (int)(30 * v->u),
				   v->board_area.w, (int)(60 * v->u)};
		fill_rect(r, &band, alpha(ink, 190));
		text(r, f->big, buf, band.x + band.w / 2.0f, band.y + band.h / 2.0f, 1, 1,
		     ui_player_color(fr->g, fr->s->winner));
	}
}
