/*
 * view.c - layout, hit-testing and the click/key -> action mapping of the
 * window (include/catan/view.h). Pure: no SDL, no I/O. Every action it
 * returns is first applied to a copy of the state, so only legal actions
 * leave this file.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catan/view.h"

#define SQRT3 1.7320508f

static const char *const button_labels[CATAN_BTN_COUNT] = {
	"Roll",	    "End turn", "Buy card", "Knight", "Roads",
	"Plenty",   "Monopoly", "Bank",	    "Offer",  "Accept",
	"Reject",   "Discard",	"End trade"};

const char *catan_button_label(int button)
{
	return button >= 0 && button < CATAN_BTN_COUNT ? button_labels[button]
						       : "?";
}

static void say(char *why, size_t n, const char *msg)
{
	if (why && n)
		snprintf(why, n, "%s", msg);
}

/* Applies a to a copy of s: the rules' verdict, and the reason in why. */
static int try_act(const catan_board *b, const catan_state *s, int actor,
		   const catan_action *a, char *why, size_t n)
{
	catan_state copy;
	if (actor < 0 || actor >= s->opt.nplayers) {
		say(why, n, "this window only watches: it plays for nobody");
		return CATAN_E_BAD_PLAYER;
	}
	int rc = catan_state_apply(&copy, b, s, actor, a, NULL);
	if (rc)
		say(why, n, catan_error_str(rc));
	return rc;
}

/* ---- layout ---- */

/* Bounds of the land tile centres with one ring of sea, in hex sizes. */
static void board_bounds(const catan_board *b, float *x0, float *y0,
			 float *x1, float *y1)
{
	*x0 = *y0 = 1e9f;
	*x1 = *y1 = -1e9f;
	for (int t = 0; t < b->ntiles; t++) {
		float x = SQRT3 * (b->tile_hex[t].q + b->tile_hex[t].r / 2.0f);
		float y = 1.5f * b->tile_hex[t].r;
		*x0 = fminf(*x0, x);
		*x1 = fmaxf(*x1, x);
		*y0 = fminf(*y0, y);
		*y1 = fmaxf(*y1, y);
	}
	if (b->ntiles == 0)
		*x0 = *y0 = *x1 = *y1 = 0;
	/* Half a hex to the tile's edge plus a ring of sea for harbours. */
	*x0 -= SQRT3 * 1.25f;
	*x1 += SQRT3 * 1.25f;
	*y0 -= 2.1f;
	*y1 += 2.1f;
}

static void layout_dialog(catan_view *v)
{
	float u = v->t;
	int w = (int)(430 * u), h = (int)(330 * u);
	const catan_rect *ba = &v->board_area;
	v->dlg = (catan_rect){ba->x + (ba->w - w) / 2, ba->y + (ba->h - h) / 2,
			      w, h};
	int row = (int)(34 * u), top = v->dlg.y + (int)(64 * u);
	int bs = (int)(26 * u);
	int c1 = v->dlg.x + (int)(150 * u), c2 = v->dlg.x + (int)(290 * u);
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		int y = top + r * row;
		v->control[CATAN_DLG_GIVE_MINUS + r] =
			(catan_rect){c1, y, bs, bs};
		v->control[CATAN_DLG_GIVE_PLUS + r] =
			(catan_rect){c1 + (int)(70 * u), y, bs, bs};
		v->control[CATAN_DLG_GET_MINUS + r] =
			(catan_rect){c2, y, bs, bs};
		v->control[CATAN_DLG_GET_PLUS + r] =
			(catan_rect){c2 + (int)(70 * u), y, bs, bs};
	}
	int py = top + CATAN_RES_COUNT * row + (int)(4 * u);
	int pw = (int)(92 * u); /* "* orange" in bold fits */
	for (int p = 0; p < CATAN_MAX_PLAYERS; p++)
		v->control[CATAN_DLG_PLAYER + p] = (catan_rect){
			v->dlg.x + (int)(16 * u) + p * (pw + (int)(4 * u)), py,
			pw, bs};
	int by = v->dlg.y + h - (int)(42 * u);
	v->control[CATAN_DLG_OK] = (catan_rect){
		v->dlg.x + w - (int)(200 * u), by, (int)(88 * u), (int)(30 * u)};
	v->control[CATAN_DLG_CANCEL] = (catan_rect){
		v->dlg.x + w - (int)(104 * u), by, (int)(88 * u), (int)(30 * u)};
}

void catan_view_layout(catan_view *v, const catan_board *b, int w, int h)
{
	if (w < 64)
		w = 64;
	if (h < 64)
		h = 64;
	v->w = w;
	v->h = h;
	float u = h / 800.0f;
	if (u > w / 1200.0f)
		u = w / 1200.0f;
	v->u = u < 0.45f ? 0.45f : u > 2.5f ? 2.5f : u;
	v->t = v->u < 1 ? 1 : v->u;
	/* The panel holds lines of about 330 px of 12 px text. */
	int pw = (int)(w * 0.3f);
	if (pw < (int)(340 * v->t))
		pw = (int)(340 * v->t);
	if (pw > w / 2)
		pw = w / 2;
	/* Buttons in one row when each is wide enough for its label, else
	 * two rows (a taller bar). */
	int n = CATAN_BTN_COUNT, gap = (int)(4 * v->t) + 1;
	int rows = (w - pw - gap * (n + 1)) / n < (int)(68 * v->t) ? 2 : 1;
	int barh = (int)((rows == 1 ? 52 : 84) * v->t);
	v->panel = (catan_rect){w - pw, 0, pw, h};
	v->bar = (catan_rect){0, h - barh, w - pw, barh};
	v->board_area = (catan_rect){0, 0, w - pw, h - barh};

	float x0, y0, x1, y1;
	board_bounds(b, &x0, &y0, &x1, &y1);
	float sx = v->board_area.w / (x1 - x0), sy = v->board_area.h / (y1 - y0);
	v->size = sx < sy ? sx : sy;
	v->ox = v->board_area.x + v->board_area.w / 2.0f -
		v->size * (x0 + x1) / 2.0f;
	v->oy = v->board_area.y + v->board_area.h / 2.0f -
		v->size * (y0 + y1) / 2.0f;

	/* Buttons: equal widths across the bar, in `rows` rows. */
	int bw = rows == 1
		     ? (v->bar.w - gap * (n + 1)) / n
		     : (v->bar.w - gap * ((n + 1) / 2 + 1)) / ((n + 1) / 2);
	int per_row = rows == 1 ? n : (n + 1) / 2;
	int bh = (barh - gap * (rows + 1)) / rows;
	for (int i = 0; i < n; i++) {
		int row = i / per_row, col = i % per_row;
		v->button[i] = (catan_rect){v->bar.x + gap + col * (bw + gap),
					    v->bar.y + gap + row * (bh + gap),
					    bw, bh};
	}
	layout_dialog(v);
}

void catan_view_init(catan_view *v, const catan_board *b, int actor, int w,
		     int h)
{
	memset(v, 0, sizeof *v);
	v->actor = actor;
	v->pick_vertex = v->pick_edge = v->pick_tile = CATAN_NONE;
	v->target = CATAN_NONE;
	catan_view_layout(v, b, w, h);
}

void catan_view_hex_xy(const catan_view *v, int q, int r, float *x, float *y)
{
	*x = v->ox + v->size * SQRT3 * (q + r / 2.0f);
	*y = v->oy + v->size * 1.5f * r;
}

void catan_view_vertex_xy(const catan_view *v, const catan_board *b, int vtx,
			  float *x, float *y)
{
	catan_view_hex_xy(v, b->vertex_hex[vtx].q, b->vertex_hex[vtx].r, x, y);
	*y += b->vertex_dir[vtx] == CATAN_VDIR_N ? -v->size : v->size;
}

void catan_view_edge_xy(const catan_view *v, const catan_board *b, int e,
			float *x, float *y)
{
	float ax, ay, bx, by;
	catan_view_vertex_xy(v, b, b->edge_vertices[e][0], &ax, &ay);
	catan_view_vertex_xy(v, b, b->edge_vertices[e][1], &bx, &by);
	*x = (ax + bx) / 2;
	*y = (ay + by) / 2;
}

/* ---- hit-testing ---- */

/* Controls of the open dialog that are in use. */
static bool control_used(const catan_view *v, int c, int nplayers)
{
	switch (v->dialog) {
	case CATAN_DLG_DISCARD:
		return c < CATAN_DLG_GET_MINUS || c >= CATAN_DLG_OK;
	case CATAN_DLG_PLENTY:
	case CATAN_DLG_MONOPOLY:
		return (c >= CATAN_DLG_GET_MINUS && c < CATAN_DLG_PLAYER) ||
		       c >= CATAN_DLG_OK;
	case CATAN_DLG_BANK:
		return c < CATAN_DLG_PLAYER || c >= CATAN_DLG_OK;
	case CATAN_DLG_OFFER:
		return c < CATAN_DLG_PLAYER + nplayers || c >= CATAN_DLG_OK;
	case CATAN_DLG_VICTIM:
		/* Players; in manual dice mode also the card taken. */
		return (c >= CATAN_DLG_GET_MINUS && c < CATAN_DLG_PLAYER + nplayers) ||
		       c >= CATAN_DLG_OK;
	case CATAN_DLG_DICE:
		/* Give column = first die (1..6), get column = second die. */
		return (c == CATAN_DLG_GIVE_MINUS || c == CATAN_DLG_GIVE_PLUS ||
			c == CATAN_DLG_GET_MINUS || c == CATAN_DLG_GET_PLUS) ||
		       c >= CATAN_DLG_OK;
	default:
		return false;
	}
}

int catan_view_hit(const catan_view *v, const catan_board *b, int x, int y,
		   int *id)
{
	if (v->dialog != CATAN_DLG_NONE) {
		for (int c = 0; c < CATAN_DLG_CONTROLS; c++)
			if (control_used(v, c, CATAN_MAX_PLAYERS) &&
			    catan_rect_has(&v->control[c], x, y)) {
				*id = c;
				return CATAN_HIT_DIALOG;
			}
		if (catan_rect_has(&v->dlg, x, y))
			return CATAN_HIT_NONE; /* the dialog covers the board */
	}
	for (int i = 0; i < CATAN_BTN_COUNT; i++)
		if (catan_rect_has(&v->button[i], x, y)) {
			*id = i;
			return CATAN_HIT_BUTTON;
		}
	if (!catan_rect_has(&v->board_area, x, y))
		return CATAN_HIT_NONE;
	float best = 1e30f;
	int bestv = -1;
	for (int i = 0; i < b->nvertices; i++) {
		float vx, vy;
		catan_view_vertex_xy(v, b, i, &vx, &vy);
		float d = (vx - x) * (vx - x) + (vy - y) * (vy - y);
		if (d < best) {
			best = d;
			bestv = i;
		}
	}
	float lim = 0.28f * v->size;
	if (bestv >= 0 && best <= lim * lim) {
		*id = bestv;
		return CATAN_HIT_VERTEX;
	}
	best = 1e30f;
	int beste = -1;
	for (int e = 0; e < b->nedges; e++) {
		float ex, ey;
		catan_view_edge_xy(v, b, e, &ex, &ey);
		float d = (ex - x) * (ex - x) + (ey - y) * (ey - y);
		if (d < best) {
			best = d;
			beste = e;
		}
	}
	lim = 0.25f * v->size;
	if (beste >= 0 && best <= lim * lim) {
		*id = beste;
		return CATAN_HIT_EDGE;
	}
	/* Tile: the nearest centre, if the point is inside its hexagon
	 * (inside the inscribed circle is enough for a click). */
	best = 1e30f;
	int bestt = -1;
	for (int t = 0; t < b->ntiles; t++) {
		float tx, ty;
		catan_view_hex_xy(v, b->tile_hex[t].q, b->tile_hex[t].r, &tx,
				  &ty);
		float d = (tx - x) * (tx - x) + (ty - y) * (ty - y);
		if (d < best) {
			best = d;
			bestt = t;
		}
	}
	lim = 0.866f * v->size;
	if (bestt >= 0 && best <= lim * lim) {
		*id = bestt;
		return CATAN_HIT_TILE;
	}
	return CATAN_HIT_NONE;
}

/* ---- candidate actions ---- */

static void reset_pick(catan_view *v)
{
	v->mode = CATAN_MODE_NORMAL;
	v->pick_vertex = v->pick_edge = v->pick_tile = CATAN_NONE;
}

static void close_dialog(catan_view *v)
{
	v->dialog = CATAN_DLG_NONE;
	memset(v->give, 0, sizeof v->give);
	memset(v->get, 0, sizeof v->get);
	v->target = CATAN_NONE;
	v->targets = 0;
}

/* The lowest player of a set, or CATAN_NONE. */
static uint8_t lowest(unsigned m)
{
	return m ? (uint8_t)__builtin_ctz(m) : CATAN_NONE;
}

/* A robber or knight action to tile t robbing `victim` (or nobody). */
static void robber_action(catan_action *a, bool knight, int t, int victim,
			  int res)
{
	catan_action_init(a, knight ? CATAN_ACT_PLAY_KNIGHT : CATAN_ACT_ROBBER);
	a->tile = (uint8_t)t;
	a->player = (uint8_t)victim;
	a->res = (uint8_t)res;
}

/*
 * Players who can be robbed on tile t: a bit each, for a robber (or a
 * knight when `knight`) that is legal with that victim. Bit CATAN_MAX_PLAYERS
 * set when moving there with no victim is legal.
 */
static unsigned tile_victims(const catan_board *b, const catan_state *s,
			     int actor, bool knight, int t)
{
	unsigned m = 0;
	catan_action a;
	for (int p = 0; p < s->opt.nplayers; p++) {
		robber_action(&a, knight, t, p, CATAN_NONE);
		int rc = try_act(b, s, actor, &a, NULL, 0);
		if (rc == CATAN_OK || rc == CATAN_E_DRAW_REQUIRED)
			m |= 1u << p;
	}
	robber_action(&a, knight, t, CATAN_NONE, CATAN_NONE);
	if (try_act(b, s, actor, &a, NULL, 0) == CATAN_OK)
		m |= 1u << CATAN_MAX_PLAYERS;
	return m;
}

unsigned catan_view_victims(const catan_view *v, const catan_board *b,
			    const catan_state *s)
{
	if (v->pick_tile == CATAN_NONE || v->actor >= s->opt.nplayers)
		return 0;
	return tile_victims(b, s, v->actor, s->phase != CATAN_PHASE_ROBBER,
			    v->pick_tile) &
	       ((1u << CATAN_MAX_PLAYERS) - 1);
}

static bool robber_mode(const catan_view *v, const catan_state *s)
{
	return s->phase == CATAN_PHASE_ROBBER || v->mode == CATAN_MODE_KNIGHT;
}

static void setup_action(catan_action *a, int vtx, int e)
{
	catan_action_init(a, CATAN_ACT_SETUP);
	a->vertex = (uint8_t)vtx;
	a->edge = (uint8_t)e;
}

static void roads_action(catan_action *a, int e1, int e2)
{
	catan_action_init(a, CATAN_ACT_PLAY_ROAD_BUILDING);
	a->edge = (uint8_t)e1;
	a->edge2 = (uint8_t)e2;
}

/* Is there a legal set-up with settlement at vtx (any road)? */
static bool setup_vertex_ok(const catan_board *b, const catan_state *s,
			    int actor, int vtx)
{
	for (int k = 0; k < 3; k++) {
		int e = b->vertex_edges[vtx][k];
		if (e == CATAN_NONE)
			continue;
		catan_action a;
		setup_action(&a, vtx, e);
		if (try_act(b, s, actor, &a, NULL, 0) == CATAN_OK)
			return true;
	}
	return false;
}

/* Is e a legal first road of the road-building card? */
static bool roads_first_ok(const catan_board *b, const catan_state *s,
			   int actor, int e)
{
	catan_action a;
	roads_action(&a, e, CATAN_NONE);
	if (try_act(b, s, actor, &a, NULL, 0) == CATAN_OK)
		return true;
	for (int e2 = 0; e2 < b->nedges; e2++) {
		roads_action(&a, e, e2);
		if (e2 != e && try_act(b, s, actor, &a, NULL, 0) == CATAN_OK)
			return true;
	}
	return false;
}

static bool kind_legal(const catan_board *b, const catan_state *s, int actor,
		       int kind)
{
	catan_action a;
	catan_action_init(&a, kind);
	return try_act(b, s, actor, &a, NULL, 0) == CATAN_OK;
}

void catan_view_targets(const catan_view *v, const catan_board *b,
			const catan_state *s, catan_vset *vertices,
			catan_eset *edges, bool tiles[CATAN_MAX_TILES])
{
	memset(vertices, 0, sizeof *vertices);
	memset(edges, 0, sizeof *edges);
	memset(tiles, 0, sizeof(bool) * CATAN_MAX_TILES);
	int actor = v->actor;
	if (actor < 0 || actor >= s->opt.nplayers ||
	    !catan_state_may_act(s, actor) || v->dialog != CATAN_DLG_NONE)
		return;
	catan_action a;
	if (s->phase == CATAN_PHASE_SETUP) {
		if (v->pick_vertex == CATAN_NONE) {
			for (int i = 0; i < b->nvertices; i++)
				if (setup_vertex_ok(b, s, actor, i))
					catan_vset_add(vertices, i);
		} else {
			for (int k = 0; k < 3; k++) {
				int e = b->vertex_edges[v->pick_vertex][k];
				if (e == CATAN_NONE)
					continue;
				setup_action(&a, v->pick_vertex, e);
				if (try_act(b, s, actor, &a, NULL, 0) == 0)
					catan_eset_add(edges, e);
			}
		}
		return;
	}
	if (robber_mode(v, s)) {
		bool knight = s->phase != CATAN_PHASE_ROBBER;
		if (v->pick_tile != CATAN_NONE) {
			unsigned m = tile_victims(b, s, actor, knight,
						  v->pick_tile);
			for (int i = 0; i < b->nvertices; i++) {
				int own = s->building[i] & 0x0f;
				if (own && (m >> (own - 1)) & 1u &&
				    catan_vset_has(&b->tile_vmask[v->pick_tile],
						   i))
					catan_vset_add(vertices, i);
			}
			return;
		}
		for (int t = 0; t < b->ntiles; t++)
			tiles[t] = tile_victims(b, s, actor, knight, t) != 0;
		return;
	}
	if (v->mode == CATAN_MODE_ROADS) {
		for (int e = 0; e < b->nedges; e++) {
			if (v->pick_edge == CATAN_NONE) {
				if (roads_first_ok(b, s, actor, e))
					catan_eset_add(edges, e);
			} else if (e != v->pick_edge) {
				roads_action(&a, v->pick_edge, e);
				if (try_act(b, s, actor, &a, NULL, 0) == 0)
					catan_eset_add(edges, e);
			}
		}
		return;
	}
	for (int i = 0; i < b->nvertices; i++) {
		catan_action_init(&a, CATAN_ACT_BUILD_SETTLEMENT);
		a.vertex = (uint8_t)i;
		if (try_act(b, s, actor, &a, NULL, 0) == 0) {
			catan_vset_add(vertices, i);
			continue;
		}
		a.kind = CATAN_ACT_BUILD_CITY;
		if (try_act(b, s, actor, &a, NULL, 0) == 0)
			catan_vset_add(vertices, i);
	}
	for (int e = 0; e < b->nedges; e++) {
		catan_action_init(&a, CATAN_ACT_BUILD_ROAD);
		a.edge = (uint8_t)e;
		if (try_act(b, s, actor, &a, NULL, 0) == 0)
			catan_eset_add(edges, e);
	}
}

unsigned catan_view_buttons(const catan_view *v, const catan_board *b,
			    const catan_state *s)
{
	int actor = v->actor;
	if (actor < 0 || actor >= s->opt.nplayers ||
	    !catan_state_may_act(s, actor))
		return 0;
	const catan_player *me = &s->players[actor];
	unsigned m = 0;
	catan_action a;
	bool manual = s->opt.dice == CATAN_DICE_MANUAL;
	if (s->phase == CATAN_PHASE_ROLL && actor == s->active)
		m |= 1u << CATAN_BTN_ROLL;
	if (kind_legal(b, s, actor, CATAN_ACT_END))
		m |= 1u << CATAN_BTN_END;
	if (kind_legal(b, s, actor, CATAN_ACT_END_TRADE))
		m |= 1u << CATAN_BTN_END_TRADE;
	catan_action_init(&a, CATAN_ACT_BUY_DEV);
	int rc = try_act(b, s, actor, &a, NULL, 0);
	if (rc == CATAN_OK || (manual && rc == CATAN_E_DRAW_REQUIRED))
		m |= 1u << CATAN_BTN_BUY;
	/* A card button is on when some use of that card is legal. */
	for (int t = 0; t < b->ntiles; t++)
		if (tile_victims(b, s, actor, true, t)) {
			m |= 1u << CATAN_BTN_KNIGHT;
			break;
		}
	for (int e = 0; e < b->nedges; e++)
		if (roads_first_ok(b, s, actor, e)) {
			m |= 1u << CATAN_BTN_ROADS;
			break;
		}
	/* Year of plenty: two cards (any pair), or one when the bank holds
	 * only one; res2 CATAN_NONE is the one-card form. */
	catan_action_init(&a, CATAN_ACT_PLAY_YEAR_OF_PLENTY);
	for (int r = 0; r < CATAN_RES_COUNT && !(m >> CATAN_BTN_PLENTY & 1);
	     r++)
		for (int r2 = r; r2 <= CATAN_RES_COUNT; r2++) {
			a.res = (uint8_t)r;
			a.res2 =
			    (uint8_t)(r2 == CATAN_RES_COUNT ? CATAN_NONE : r2);
			if (try_act(b, s, actor, &a, NULL, 0) == 0) {
				m |= 1u << CATAN_BTN_PLENTY;
				break;
			}
		}
	catan_action_init(&a, CATAN_ACT_PLAY_MONOPOLY);
	a.res = 0;
	if (try_act(b, s, actor, &a, NULL, 0) == 0)
		m |= 1u << CATAN_BTN_MONOPOLY;
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		catan_vset own = me->settlements;
		for (int k = 0; k < CATAN_VWORDS; k++)
			own.w[k] |= me->cities.w[k];
		int rate = catan_board_rate(b, &own, r);
		catan_action_init(&a, CATAN_ACT_TRADE_BANK);
		a.res = (uint8_t)r;
		a.count = (uint8_t)rate;
		a.res2 = (uint8_t)((r + 1) % CATAN_RES_COUNT);
		if (try_act(b, s, actor, &a, NULL, 0) == 0) {
			m |= 1u << CATAN_BTN_BANK;
			break;
		}
	}
	/* An offer is possible when some 1:1 offer to somebody is. */
	for (int p = 0; p < s->opt.nplayers && !(m >> CATAN_BTN_OFFER & 1);
	     p++)
		for (int r = 0; r < CATAN_RES_COUNT; r++) {
			catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
			a.player = (uint8_t)p;
			a.give[r] = 1;
			a.get[(r + 1) % CATAN_RES_COUNT] = 1;
			if (try_act(b, s, actor, &a, NULL, 0) == 0) {
				m |= 1u << CATAN_BTN_OFFER;
				break;
			}
		}
	if (kind_legal(b, s, actor, CATAN_ACT_TRADE_ACCEPT))
		m |= 1u << CATAN_BTN_ACCEPT;
	if (kind_legal(b, s, actor, CATAN_ACT_TRADE_REJECT))
		m |= 1u << CATAN_BTN_REJECT;
	if (s->phase == CATAN_PHASE_DISCARD && s->discard[actor])
		m |= 1u << CATAN_BTN_DISCARD;
	return m;
}

/* ---- dialogs ---- */

static int dialog_total(const uint8_t *c)
{
	int n = 0;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		n += c[r];
	return n;
}

static int first_set(const uint8_t *c)
{
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		if (c[r])
			return r;
	return CATAN_NONE;
}

int catan_view_dialog_action(catan_action *out, const catan_view *v,
			     const catan_board *b, const catan_state *s,
			     char *why, size_t n)
{
	catan_action a;
	int actor = v->actor;
	switch (v->dialog) {
	case CATAN_DLG_DISCARD:
		catan_action_init(&a, CATAN_ACT_DISCARD);
		memcpy(a.give, v->give, sizeof a.give);
		break;
	case CATAN_DLG_PLENTY: {
		catan_action_init(&a, CATAN_ACT_PLAY_YEAR_OF_PLENTY);
		int k = 0;
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			for (int c = 0; c < v->get[r]; c++, k++) {
				if (k == 0)
					a.res = (uint8_t)r;
				else if (k == 1)
					a.res2 = (uint8_t)r;
			}
		if (k == 0 || k > 2) {
			say(why, n, "choose one or two resources");
			return CATAN_E_BAD_ACTION;
		}
		break;
	}
	case CATAN_DLG_MONOPOLY:
		catan_action_init(&a, CATAN_ACT_PLAY_MONOPOLY);
		a.res = (uint8_t)first_set(v->get);
		if (dialog_total(v->get) != 1) {
			say(why, n, "choose one resource");
			return CATAN_E_BAD_ACTION;
		}
		break;
	case CATAN_DLG_BANK: {
		catan_action_init(&a, CATAN_ACT_TRADE_BANK);
		int gr = first_set(v->give), tr = first_set(v->get);
		if (dialog_total(v->get) != 1 || gr == CATAN_NONE ||
		    dialog_total(v->give) != v->give[gr]) {
			say(why, n, "give one kind of resource for one card");
			return CATAN_E_BAD_TRADE;
		}
		a.res = (uint8_t)gr;
		a.count = v->give[gr];
		a.res2 = (uint8_t)tr;
		int rate = catan_view_rate(b, s, actor, gr);
		if (rate && a.count != rate) {
			if (why && n)
				snprintf(why, n,
					 "%s trades at %d:1 for you: "
					 "give %d",
					 catan_res_name(gr), rate, rate);
			return CATAN_E_BAD_TRADE;
		}
		break;
	}
	case CATAN_DLG_OFFER:
		catan_action_init(&a, CATAN_ACT_TRADE_OFFER);
		a.player = v->target;
		memcpy(a.give, v->give, sizeof a.give);
		memcpy(a.get, v->get, sizeof a.get);
		if (v->targets)
			a.player = lowest(v->targets);
		if (a.player == CATAN_NONE) {
			say(why, n, "choose whom to offer the trade to");
			return CATAN_E_BAD_PLAYER;
		}
		break;
	case CATAN_DLG_VICTIM:
		robber_action(&a, s->phase != CATAN_PHASE_ROBBER, v->pick_tile,
			      v->target, CATAN_NONE);
		if (v->target == CATAN_NONE) {
			say(why, n, "choose whom to rob");
			return CATAN_E_VICTIM_REQUIRED;
		}
		if (s->opt.dice == CATAN_DICE_MANUAL)
			a.res = (uint8_t)first_set(v->get);
		break;
	case CATAN_DLG_DICE:
		catan_action_init(&a, CATAN_ACT_ROLL);
		a.dice[0] = v->give[0];
		a.dice[1] = v->get[0];
		break;
	default:
		say(why, n, "no dialog is open");
		return CATAN_E_BAD_ACTION;
	}
	int rc = try_act(b, s, actor, &a, why, n);
	if (rc == CATAN_OK)
		*out = a;
	return rc;
}

int catan_view_rate(const catan_board *b, const catan_state *s, int actor,
		    int res)
{
	if (actor < 0 || actor >= s->opt.nplayers || res < 0 ||
	    res >= CATAN_RES_COUNT)
		return 0;
	const catan_player *me = &s->players[actor];
	catan_vset own = me->settlements;
	for (int k = 0; k < CATAN_VWORDS; k++)
		own.w[k] |= me->cities.w[k];
	return catan_board_rate(b, &own, res);
}

/* Opens dialog d with its defaults. */
static void open_dialog(catan_view *v, int d, const catan_state *s)
{
	close_dialog(v);
	v->dialog = (uint8_t)d;
	if (d == CATAN_DLG_DICE) {
		v->give[0] = 1;
		v->get[0] = 1;
	}
	if (d == CATAN_DLG_OFFER && s->phase == CATAN_PHASE_OFFER) {
		/* A counter-offer: back to who offered, the terms turned
		 * round (what you would give, capped by your hand). */
		v->target = s->offer_from;
		v->targets = (uint8_t)(1u << s->offer_from);
		for (int r = 0; r < CATAN_RES_COUNT; r++) {
			int have = v->actor < s->opt.nplayers
				       ? s->players[v->actor].hand[r]
				       : 0;
			v->give[r] =
			    (uint8_t)(s->offer_get[r] < have ? s->offer_get[r]
							     : have);
			v->get[r] = s->offer_give[r];
		}
	} else if (d == CATAN_DLG_OFFER) {
		/* To everybody by default; clicks choose. */
		for (int p = 0; p < s->opt.nplayers; p++)
			if (p != v->actor)
				v->targets |= (uint8_t)(1u << p);
		v->target = lowest(v->targets);
	}
}

/* Up to which count a dialog row may go. */
static int row_max(const catan_view *v, const catan_state *s, bool give,
		   int r)
{
	if (v->dialog == CATAN_DLG_DICE)
		return r == 0 ? 6 : 0;
	if (give)
		return s->players[v->actor].hand[r];
	if (v->dialog == CATAN_DLG_MONOPOLY || v->dialog == CATAN_DLG_BANK ||
	    v->dialog == CATAN_DLG_VICTIM)
		return 1;
	if (v->dialog == CATAN_DLG_PLENTY)
		return 2;
	return catan_res_total(s->opt.nplayers);
}

static int dialog_control(catan_action *out, catan_view *v,
			  const catan_board *b, const catan_state *s, int c,
			  char *why, size_t n)
{
	if (c == CATAN_DLG_CANCEL) {
		close_dialog(v);
		reset_pick(v);
		return CATAN_VIEW_CHANGED;
	}
	if (c == CATAN_DLG_OK) {
		catan_action a;
		if (catan_view_dialog_action(&a, v, b, s, why, n))
			return CATAN_VIEW_NOTHING;
		*out = a;
		close_dialog(v);
		reset_pick(v);
		return CATAN_VIEW_ACT;
	}
	if (c >= CATAN_DLG_PLAYER) {
		int p = c - CATAN_DLG_PLAYER;
		if (p >= s->opt.nplayers || p == v->actor)
			return CATAN_VIEW_NOTHING;
		if (v->dialog == CATAN_DLG_OFFER &&
		    s->phase == CATAN_PHASE_OFFER) {
			if (p != s->offer_from) {
				if (why && n)
					snprintf(why, n,
						 "a counter-offer goes back "
						 "to player %d (who offered) "
						 "only",
						 s->offer_from + 1);
				return CATAN_VIEW_NOTHING;
			}
			v->target = (uint8_t)p;
			v->targets = (uint8_t)(1u << p);
			return CATAN_VIEW_CHANGED;
		}
		if (v->dialog == CATAN_DLG_OFFER) {
			/* From "everybody" (the default) a click picks that
			 * one player; after that clicks add and remove. */
			unsigned all = 0;
			for (int q = 0; q < s->opt.nplayers; q++)
				if (q != v->actor)
					all |= 1u << q;
			if (v->targets == all)
				v->targets = (uint8_t)(1u << p);
			else
				v->targets ^= (uint8_t)(1u << p);
			v->target = lowest(v->targets);
			return CATAN_VIEW_CHANGED;
		}
		if (v->dialog == CATAN_DLG_VICTIM &&
		    !(catan_view_victims(v, b, s) >> p & 1u)) {
			say(why, n,
			    "nobody there to rob by that name: they "
			    "have no building on this tile, or no "
			    "cards");
			return CATAN_VIEW_NOTHING;
		}
		v->target = (uint8_t)p;
		return CATAN_VIEW_CHANGED;
	}
	bool give = c < CATAN_DLG_GET_MINUS;
	bool plus = (c % 10) >= 5;
	int r = c % 5;
	uint8_t *row = give ? v->give : v->get;
	int lo = v->dialog == CATAN_DLG_DICE ? 1 : 0;
	if (plus) {
		/* Single-choice rows: picking one clears the others. */
		bool single = !give && (v->dialog == CATAN_DLG_MONOPOLY ||
					v->dialog == CATAN_DLG_BANK ||
					v->dialog == CATAN_DLG_VICTIM);
		if (give && v->dialog == CATAN_DLG_BANK && !row[r])
			memset(row, 0, CATAN_RES_COUNT);
		if (single)
			memset(row, 0, CATAN_RES_COUNT);
		if (row[r] >= row_max(v, s, give, r)) {
			say(why, n, give ? "you have no more of that" : "that is the most");
			return CATAN_VIEW_NOTHING;
		}
		row[r]++;
	} else {
		if (row[r] <= lo)
			return CATAN_VIEW_NOTHING;
		row[r]--;
	}
	return CATAN_VIEW_CHANGED;
}

/* ---- clicks and keys ---- */

static int press_button(catan_action *out, catan_view *v,
			const catan_board *b, const catan_state *s, int btn,
			char *why, size_t n)
{
	unsigned on = catan_view_buttons(v, b, s);
	if (!(on >> btn & 1u)) {
		if (v->actor == CATAN_NONE || v->actor >= s->opt.nplayers)
			say(why, n, "this window only watches");
		else if (!catan_state_may_act(s, v->actor))
			say(why, n, "it is not your turn");
		else
			say(why, n, "that is not possible now");
		return CATAN_VIEW_NOTHING;
	}
	catan_action a;
	close_dialog(v);
	reset_pick(v);
	switch (btn) {
	case CATAN_BTN_ROLL:
		if (s->opt.dice == CATAN_DICE_MANUAL) {
			open_dialog(v, CATAN_DLG_DICE, s);
			return CATAN_VIEW_CHANGED;
		}
		catan_action_init(&a, CATAN_ACT_ROLL);
		break;
	case CATAN_BTN_END:
		catan_action_init(&a, CATAN_ACT_END);
		break;
	case CATAN_BTN_END_TRADE:
		catan_action_init(&a, CATAN_ACT_END_TRADE);
		break;
	case CATAN_BTN_BUY:
		catan_action_init(&a, CATAN_ACT_BUY_DEV);
		break;
	case CATAN_BTN_ACCEPT:
		catan_action_init(&a, CATAN_ACT_TRADE_ACCEPT);
		break;
	case CATAN_BTN_REJECT:
		catan_action_init(&a, CATAN_ACT_TRADE_REJECT);
		break;
	case CATAN_BTN_KNIGHT:
		v->mode = CATAN_MODE_KNIGHT;
		return CATAN_VIEW_CHANGED;
	case CATAN_BTN_ROADS:
		v->mode = CATAN_MODE_ROADS;
		return CATAN_VIEW_CHANGED;
	case CATAN_BTN_PLENTY:
		open_dialog(v, CATAN_DLG_PLENTY, s);
		return CATAN_VIEW_CHANGED;
	case CATAN_BTN_MONOPOLY:
		open_dialog(v, CATAN_DLG_MONOPOLY, s);
		return CATAN_VIEW_CHANGED;
	case CATAN_BTN_BANK:
		open_dialog(v, CATAN_DLG_BANK, s);
		return CATAN_VIEW_CHANGED;
	case CATAN_BTN_OFFER:
		open_dialog(v, CATAN_DLG_OFFER, s);
		return CATAN_VIEW_CHANGED;
	case CATAN_BTN_DISCARD:
		open_dialog(v, CATAN_DLG_DISCARD, s);
		return CATAN_VIEW_CHANGED;
	default:
		return CATAN_VIEW_NOTHING;
	}
	if (try_act(b, s, v->actor, &a, why, n))
		return CATAN_VIEW_NOTHING;
	*out = a;
	return CATAN_VIEW_ACT;
}

/* A click on tile t while the robber is to be moved. */
static int click_robber_tile(catan_action *out, catan_view *v,
			     const catan_board *b, const catan_state *s, int t,
			     char *why, size_t n)
{
	bool knight = s->phase != CATAN_PHASE_ROBBER;
	unsigned m = tile_victims(b, s, v->actor, knight, t);
	if (!m) {
		catan_action a;
		robber_action(&a, knight, t, CATAN_NONE, CATAN_NONE);
		try_act(b, s, v->actor, &a, why, n);
		return CATAN_VIEW_NOTHING;
	}
	unsigned players = m & ((1u << CATAN_MAX_PLAYERS) - 1);
	bool manual = s->opt.dice == CATAN_DICE_MANUAL;
	if (players == 0 || (!manual && (players & (players - 1)) == 0)) {
		/* Nobody, or exactly one victim: the action is complete. */
		int victim = players ? __builtin_ctz(players) : CATAN_NONE;
		robber_action(out, knight, t, victim, CATAN_NONE);
		reset_pick(v);
		return CATAN_VIEW_ACT;
	}
	v->pick_tile = (uint8_t)t;
	open_dialog(v, CATAN_DLG_VICTIM, s);
	if ((players & (players - 1)) == 0)
		v->target = (uint8_t)__builtin_ctz(players);
	return CATAN_VIEW_CHANGED;
}

int catan_view_click(catan_action *out, catan_view *v, const catan_board *b,
		     const catan_state *s, int x, int y, char *why, size_t n)
{
	say(why, n, "");
	int id = 0;
	int hit = catan_view_hit(v, b, x, y, &id);
	if (hit == CATAN_HIT_DIALOG)
		return dialog_control(out, v, b, s, id, why, n);
	if (hit == CATAN_HIT_BUTTON)
		return press_button(out, v, b, s, id, why, n);
	if (v->dialog != CATAN_DLG_NONE || hit == CATAN_HIT_NONE)
		return CATAN_VIEW_NOTHING;
	int actor = v->actor;
	if (actor < 0 || actor >= s->opt.nplayers) {
		say(why, n, "this window only watches");
		return CATAN_VIEW_NOTHING;
	}
	if (!catan_state_may_act(s, actor)) {
		say(why, n, "it is not your turn");
		return CATAN_VIEW_NOTHING;
	}
	catan_action a;
	if (s->phase == CATAN_PHASE_SETUP) {
		if (hit == CATAN_HIT_VERTEX) {
			if (!setup_vertex_ok(b, s, actor, id)) {
				setup_action(&a, id, b->vertex_edges[id][0]);
				try_act(b, s, actor, &a, why, n);
				return CATAN_VIEW_NOTHING;
			}
			v->pick_vertex = (uint8_t)id;
			return CATAN_VIEW_CHANGED;
		}
		if (hit == CATAN_HIT_EDGE && v->pick_vertex != CATAN_NONE) {
			setup_action(&a, v->pick_vertex, id);
			if (try_act(b, s, actor, &a, why, n))
				return CATAN_VIEW_NOTHING;
			*out = a;
			reset_pick(v);
			return CATAN_VIEW_ACT;
		}
		say(why, n,
		    v->pick_vertex == CATAN_NONE
			    ? "set-up: first click a corner for the settlement"
			    : "set-up: now click a side next to the settlement");
		return CATAN_VIEW_NOTHING;
	}
	if (robber_mode(v, s)) {
		if (hit == CATAN_HIT_TILE)
			return click_robber_tile(out, v, b, s, id, why, n);
		say(why, n, "click a tile to move the robber there");
		return CATAN_VIEW_NOTHING;
	}
	if (v->mode == CATAN_MODE_ROADS) {
		if (hit != CATAN_HIT_EDGE) {
			say(why, n, "road building: click a side for a road");
			return CATAN_VIEW_NOTHING;
		}
		if (v->pick_edge == CATAN_NONE) {
			if (!roads_first_ok(b, s, actor, id)) {
				roads_action(&a, id, CATAN_NONE);
				try_act(b, s, actor, &a, why, n);
				return CATAN_VIEW_NOTHING;
			}
			/* One road is the whole card when no second fits. */
			roads_action(&a, id, CATAN_NONE);
			bool second = false;
			for (int e2 = 0; e2 < b->nedges && !second; e2++) {
				catan_action c;
				roads_action(&c, id, e2);
				second = e2 != id &&
					 try_act(b, s, actor, &c, NULL, 0) == 0;
			}
			if (!second) {
				*out = a;
				reset_pick(v);
				return CATAN_VIEW_ACT;
			}
			v->pick_edge = (uint8_t)id;
			return CATAN_VIEW_CHANGED;
		}
		roads_action(&a, v->pick_edge, id);
		if (try_act(b, s, actor, &a, why, n))
			return CATAN_VIEW_NOTHING;
		*out = a;
		reset_pick(v);
		return CATAN_VIEW_ACT;
	}
	if (hit == CATAN_HIT_VERTEX) {
		catan_action_init(&a, (s->building[id] & CATAN_CITY_BIT) ||
					      !s->building[id]
				      ? CATAN_ACT_BUILD_SETTLEMENT
				      : CATAN_ACT_BUILD_CITY);
		a.vertex = (uint8_t)id;
	} else if (hit == CATAN_HIT_EDGE) {
		catan_action_init(&a, CATAN_ACT_BUILD_ROAD);
		a.edge = (uint8_t)id;
	} else {
		say(why, n, "click a corner to build, a side for a road");
		return CATAN_VIEW_NOTHING;
	}
	if (try_act(b, s, actor, &a, why, n))
		return CATAN_VIEW_NOTHING;
	*out = a;
	return CATAN_VIEW_ACT;
}

int catan_view_key(catan_action *out, catan_view *v, const catan_board *b,
		   const catan_state *s, int key, char *why, size_t n)
{
	say(why, n, "");
	if (key == 27) {
		bool any = v->dialog || v->mode || v->pick_vertex != CATAN_NONE ||
			   v->pick_edge != CATAN_NONE ||
			   v->pick_tile != CATAN_NONE;
		close_dialog(v);
		reset_pick(v);
		return any ? CATAN_VIEW_CHANGED : CATAN_VIEW_NOTHING;
	}
	if (key == 'c') {
		v->coords = !v->coords;
		return CATAN_VIEW_CHANGED;
	}
	if (key == '\r' && v->dialog)
		return dialog_control(out, v, b, s, CATAN_DLG_OK, why, n);
	static const struct {
		char key;
		uint8_t btn;
	} keys[] = {{'r', CATAN_BTN_ROLL},   {'b', CATAN_BTN_BUY},
		    {'k', CATAN_BTN_KNIGHT}, {'o', CATAN_BTN_ROADS},
		    {'y', CATAN_BTN_PLENTY}, {'m', CATAN_BTN_MONOPOLY},
		    {'t', CATAN_BTN_BANK},   {'f', CATAN_BTN_OFFER},
		    {'a', CATAN_BTN_ACCEPT}, {'x', CATAN_BTN_REJECT},
		    {'d', CATAN_BTN_DISCARD}};
	if (key == 'e') {
		unsigned on = catan_view_buttons(v, b, s);
		return press_button(out, v, b, s,
				    (on >> CATAN_BTN_END_TRADE & 1u)
					    ? CATAN_BTN_END_TRADE
					    : CATAN_BTN_END,
				    why, n);
	}
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (keys[i].key == key)
			return press_button(out, v, b, s, keys[i].btn, why, n);
	return CATAN_VIEW_NOTHING;
}
