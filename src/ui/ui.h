/*
 * ui.h - private interface of the SDL2 front-end (src/ui/).
 *
 * render.c draws one frame (a ui_frame: state, view, panel texts,
 * highlights) with any SDL_Renderer: a window's, or a software renderer on
 * a surface for `catan render`. font.c finds and opens a TrueType font.
 * app.c runs the window (play, hot-seat, replay). png.c writes surfaces.
 * No game rules here: legality comes from the core through catan/view.h.
 */
#ifndef CATAN_UI_PRIVATE_H
#define CATAN_UI_PRIVATE_H

#include <SDL.h>
#include <SDL_ttf.h>

#include "catan/codec.h"
#include "catan/view.h"

/* Fonts at the sizes the frame uses, for one scale v->u. */
typedef struct ui_fonts {
	char path[512];
	float u; /* scale they were opened for */
	TTF_Font *small, *normal, *big, *bold;
} ui_fonts;

/*
 * Finds a TrueType font: $CATAN_FONT, then the usual Debian paths, then
 * fc-match. Writes its path into out (size n). Returns 0, or -1 with a
 * sentence in why naming what to install.
 */
int ui_font_find(char *out, size_t n, char *why, size_t whysize);

/* Opens (or re-opens for a new scale) the fonts. 0 or -1 with why. */
int ui_fonts_open(ui_fonts *f, float u, char *why, size_t whysize);
void ui_fonts_close(ui_fonts *f);

#define UI_LOG_LINES	64  /* log lines a frame may be given */
#define UI_LOG_LINE_MAX 200 /* longest log line, bytes */

/* Everything one frame shows. Pointers are borrowed for the call. */
typedef struct ui_frame {
	const catan_game *g;
	const catan_state *s;
	const catan_view *v;
	int viewer;	     /* whose hand is shown in full, or CATAN_NONE */
	bool reveal_all;     /* replay: every hand in full */
	const char *title;   /* top line of the panel */
	const char *status;  /* what the game waits for */
	const char *message; /* the last refusal or notice, may be "" */
	bool message_ok;     /* a notice (green), not a refusal (red) */
	const char *sync;    /* sync status, may be NULL */
	const char *log[UI_LOG_LINES]; /* oldest first; the last that fit */
	int nlog;
	int log_more;	  /* lines before log[0] (scrolled or older) */
	int log_scroll;	  /* lines scrolled back from the newest, 0 = newest */
	int roller;	  /* who rolled s->dice, or CATAN_NONE if unknown */
	unsigned buttons; /* enabled buttons (catan_view_buttons) */
	bool show_buttons;
	/* Highlights: legal targets (play) or changed spots (replay). */
	catan_vset hl_vertices;
	catan_eset hl_edges;
	bool hl_tiles[CATAN_MAX_TILES];
	int hover_kind, hover_id; /* catan_view_hit of the mouse */
	int hover_x, hover_y;	  /* the mouse, -1 when outside */
	/* What the others did since the viewer last acted (play), marked
	 * in the colour of who did it: buildings, roads, the robber. */
	catan_vset recent_vertices;
	catan_eset recent_edges;
	int recent_tile;    /* robber moved there, or CATAN_NONE */
	int recent_tile_by; /* by whom */
	float mark_grow;    /* 0..1: the newest marks drawing in (1 = just
			       now, rings larger), 0 = still */
	catan_vset newest_vertices; /* the newest event's marks */
	catan_eset newest_edges;
	bool newest_tile; /* the newest event moved the robber */
	/* Pieces being placed (any player's, the newest event): they drop
	 * onto their spot and fade in while anim_t goes from 0 to 1. */
	catan_vset anim_vertices;
	catan_eset anim_edges;
	bool anim_robber;
	float anim_t; /* 0..1; 1 (or nothing in the sets) = still */
	/* The end of the game: statistics for the results panel (NULL: a
	 * banner only). */
	const struct ui_results *results;
	/* Replay slider: position and count, count 0 = no slider. */
	int replay_pos, replay_count;
} ui_frame;

/* Per-player statistics of a game, counted from its commits. */
typedef struct ui_results {
	int received[CATAN_MAX_PLAYERS]; /* resource cards from the bank by
					    production, set-up and cards */
	int stole[CATAN_MAX_PLAYERS];	 /* cards stolen by the player */
	int lost[CATAN_MAX_PLAYERS];	 /* cards stolen from the player */
	int dice[13];			 /* rolls of each total 2..12 */
	int rolls;
	catan_rect replay, newgame; /* the panel's two buttons (laid out by
				       ui_results_layout) */
} ui_results;

/* Places the results panel's buttons for view v. */
void ui_results_layout(ui_results *res, const catan_view *v);

/* Draws the frame. Text textures are cached per renderer (ui_draw_reset
 * frees the cache; call it before destroying the renderer). */
void ui_draw(SDL_Renderer *r, ui_fonts *f, const ui_frame *fr);

/* What the last ui_draw drew in text: how many texts, how many reached
 * outside their clip area or the output (cut off), the first of those,
 * the smallest font height used (pixels), and an open dialog's hint or
 * preview line. */
typedef struct ui_text_stats_t {
	int texts, clipped, min_px;
	char first[200];
	char dialog_line[200]; /* an open dialog's line above OK */
} ui_text_stats_t;
extern ui_text_stats_t ui_text_stats;
void ui_draw_reset(void);

/* Writes an RGB(A) surface as PNG (libpng). 0 or -1 with why. */
int ui_png_write(const char *path, SDL_Surface *surf, char *why,
		 size_t whysize);

/* The colour of player p (by name when it is a colour name). */
SDL_Color ui_player_color(const catan_game *g, int p);

/* The status line: "your move: roll" for a viewer who may act, else
 * "waiting for blue to discard 4", ... */
void ui_status_text(char *out, size_t n, const catan_game *g,
		    const catan_state *s, int viewer);

#endif
