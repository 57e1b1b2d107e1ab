/*
 * catan/view.h - what the window shows where, and what a click or a key
 * means: the pure half of the user interface.
 *
 * A catan_view is a plain value: the window size, the layout computed from
 * it (board area, side panel, button bar, hex size and origin), and the
 * interaction state (a half-built action waiting for its second click, an
 * open dialog, the coordinates overlay). Nothing here draws or touches SDL;
 * src/ui/ draws what this module lays out, and sends every mouse click and
 * key through catan_view_click() / catan_view_key(), which answer with a
 * complete legal action, a change of the view, or a sentence saying why
 * nothing happens. So the whole input model is testable without a window
 * (tests/ui/test_view.c).
 *
 * Every action this module returns has been checked against the rules
 * (catan_state_apply on a copy), so the interface cannot submit an illegal
 * move; a click on a spot where nothing is legal gets the rules' reason.
 *
 * Geometry: pointy-top hexes of `size` pixels from centre to corner; tile
 * (q, r) has its centre at (ox + size*sqrt(3)*(q + r/2), oy + 1.5*size*r).
 */
#ifndef CATAN_VIEW_H
#define CATAN_VIEW_H

#include "catan/action.h"
#include "catan/state.h"

typedef struct catan_rect {
	int x, y, w, h;
} catan_rect;

static inline bool catan_rect_has(const catan_rect *r, int x, int y)
{
	return x >= r->x && y >= r->y && x < r->x + r->w && y < r->y + r->h;
}

/* The buttons of the bar under the board, in display order. */
typedef enum {
	CATAN_BTN_ROLL,
	CATAN_BTN_END,
	CATAN_BTN_BUY,
	CATAN_BTN_KNIGHT,
	CATAN_BTN_ROADS,    /* play road-building */
	CATAN_BTN_PLENTY,   /* play year-of-plenty */
	CATAN_BTN_MONOPOLY, /* play monopoly */
	CATAN_BTN_BANK,	    /* maritime trade */
	CATAN_BTN_OFFER,    /* domestic trade offer */
	CATAN_BTN_ACCEPT,
	CATAN_BTN_REJECT,
	CATAN_BTN_DISCARD,
	CATAN_BTN_END_TRADE, /* classic phases */
	CATAN_BTN_COUNT
} catan_button;

/* What a click on the board means besides the obvious build. */
typedef enum {
	CATAN_MODE_NORMAL,
	CATAN_MODE_KNIGHT, /* next tile click places the robber by knight */
	CATAN_MODE_ROADS,  /* road-building card: one or two edges */
	CATAN_MODE_COUNT
} catan_view_mode;

typedef enum {
	CATAN_DLG_NONE,
	CATAN_DLG_DISCARD,
	CATAN_DLG_PLENTY,
	CATAN_DLG_MONOPOLY,
	CATAN_DLG_BANK,
	CATAN_DLG_OFFER,
	CATAN_DLG_VICTIM, /* robber placed: whom to rob */
	CATAN_DLG_DICE,	  /* manual dice: the two dice thrown at the table */
	CATAN_DLG_COUNT
} catan_dialog;

/* Hit-test results: what is under a point. */
typedef enum {
	CATAN_HIT_NONE,
	CATAN_HIT_VERTEX,
	CATAN_HIT_EDGE,
	CATAN_HIT_TILE,
	CATAN_HIT_BUTTON,
	CATAN_HIT_DIALOG, /* a control inside the open dialog */
	CATAN_HIT_COUNT
} catan_hit_kind;

/* Controls of a dialog, numbered for hit-testing. */
#define CATAN_DLG_GIVE_MINUS 0 /* + resource */
#define CATAN_DLG_GIVE_PLUS 5
#define CATAN_DLG_GET_MINUS 10
#define CATAN_DLG_GET_PLUS 15
#define CATAN_DLG_PLAYER 20 /* + player index: victim or trade partner */
#define CATAN_DLG_OK 30
#define CATAN_DLG_CANCEL 31
#define CATAN_DLG_CONTROLS 32

typedef struct catan_view {
	/* Layout (catan_view_layout). */
	int w, h;	 /* window size in pixels */
	float u;	 /* scale of the board: 1.0 at 800 px high */
	float t;	 /* scale of text and controls: u, but at least 1 so
			    that text is never under 12 px */
	catan_rect board_area, panel, bar;
	float size;	 /* hex centre to corner, pixels */
	float ox, oy;	 /* pixel position of the centre of tile (0,0) */
	catan_rect button[CATAN_BTN_COUNT];
	/* Dialog geometry, valid while dialog != CATAN_DLG_NONE. */
	catan_rect dlg, control[CATAN_DLG_CONTROLS];

	/* Interaction. */
	int actor;	   /* the player this window acts for, or CATAN_NONE */
	uint8_t mode;	   /* catan_view_mode */
	uint8_t pick_vertex; /* set-up: settlement chosen, road next */
	uint8_t pick_edge;   /* road-building: first road chosen */
	uint8_t pick_tile;   /* robber tile chosen, victim next */
	uint8_t dialog;	     /* catan_dialog */
	uint8_t give[CATAN_RES_COUNT], get[CATAN_RES_COUNT];
	uint8_t target; /* trade partner / victim, CATAN_NONE if none */
	uint8_t targets; /* offer dialog: every player chosen (bit p); the
			    window offers to each in turn, `target` first */
	bool coords;	/* draw coordinates on tiles, vertices and edges */
} catan_view;

/* A fresh view for `actor` (or CATAN_NONE), laid out for w x h pixels. */
void catan_view_init(catan_view *v, const catan_board *b, int actor, int w,
		     int h);

/*
 * Recomputes the layout for a window of w x h pixels (any size; tiny
 * windows get a tiny board) and the dialog geometry. Keeps the interaction
 * state. Cannot fail.
 */
void catan_view_layout(catan_view *v, const catan_board *b, int w, int h);

/* Pixel positions of a tile centre, a vertex, an edge midpoint. */
void catan_view_hex_xy(const catan_view *v, int q, int r, float *x, float *y);
void catan_view_vertex_xy(const catan_view *v, const catan_board *b, int vtx,
			  float *x, float *y);
void catan_view_edge_xy(const catan_view *v, const catan_board *b, int e,
			float *x, float *y);

/*
 * What is at pixel (x, y): an open dialog's control (id in *id), a button,
 * else on the board the nearest vertex within 0.28 hex sizes, else the
 * nearest edge midpoint within 0.25, else the land tile containing the
 * point. Returns a catan_hit_kind; *id is the vertex/edge/tile/button/
 * control id (undefined for CATAN_HIT_NONE).
 */
int catan_view_hit(const catan_view *v, const catan_board *b, int x, int y,
		   int *id);

/* Results of catan_view_click and catan_view_key. */
typedef enum {
	CATAN_VIEW_NOTHING, /* nothing to do; `why` may say why */
	CATAN_VIEW_CHANGED, /* the view changed (selection, dialog): redraw */
	CATAN_VIEW_ACT,	    /* `out` holds a legal action for v->actor */
} catan_view_result;

/*
 * Maps a left click at (x, y) to an action of v->actor in state s. Returns
 * CATAN_VIEW_ACT with a legal action in *out (and resets the selection),
 * CATAN_VIEW_CHANGED when the click only selected something or changed a
 * dialog, or CATAN_VIEW_NOTHING with a sentence in why (may be empty) when
 * nothing is legal there. `why` may be NULL. Never changes *out otherwise.
 */
int catan_view_click(catan_action *out, catan_view *v, const catan_board *b,
		     const catan_state *s, int x, int y, char *why,
		     size_t whysize);

/*
 * The same for a key: 'r' roll, 'e' end the turn (or the trade phase in
 * classic phases), 'b' buy a card, 'k' knight, 'o' road building, 'y' year
 * of plenty, 'm' monopoly, 't' bank trade, 'f' domestic offer, 'a' accept,
 * 'x' reject, 'd' discard, 'c' toggle coordinates, 27 (Esc) cancel, '\r'
 * confirm a dialog.
 */
int catan_view_key(catan_action *out, catan_view *v, const catan_board *b,
		   const catan_state *s, int key, char *why, size_t whysize);

/*
 * Which buttons do something for v->actor now: bit i for catan_button i.
 */
unsigned catan_view_buttons(const catan_view *v, const catan_board *b,
			    const catan_state *s);

/*
 * The spots a click would act on now, for highlighting: vertices, edges
 * and tiles (tiles[t] true). Follows the view's mode and selection.
 */
void catan_view_targets(const catan_view *v, const catan_board *b,
			const catan_state *s, catan_vset *vertices,
			catan_eset *edges, bool tiles[CATAN_MAX_TILES]);

/*
 * The action the open dialog would submit, checked against the rules:
 * CATAN_OK with *out filled, or the rules' error code (why filled).
 */
int catan_view_dialog_action(catan_action *out, const catan_view *v,
			     const catan_board *b, const catan_state *s,
			     char *why, size_t whysize);

/* The players the robber may rob on the victim dialog's tile: bit p. */
unsigned catan_view_victims(const catan_view *v, const catan_board *b,
			    const catan_state *s);

/* The bank's rate of `res` for `actor` (4, 3 or 2), 0 when there is no
 * such player or resource. */
int catan_view_rate(const catan_board *b, const catan_state *s, int actor,
		    int res);

/* A label for a button ("Roll", "End turn", ...). */
const char *catan_button_label(int button);

#endif
