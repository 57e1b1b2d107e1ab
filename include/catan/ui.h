/*
 * catan/ui.h - the SDL2 window and the headless renderer (src/ui/).
 *
 *   catan_ui_render  draws the board of any commit into a PNG file with
 *                    SDL's software renderer (no display needed)
 *   catan_ui_play    the game window: hot-seat (every player of the
 *                    repository in one window), or peer (this repository's
 *                    player; the others are remote peers or bots, synced
 *                    in the background)
 *   catan_ui_replay  steps through a game commit by commit (from o->rev
 *                    when given; prints the commit shown last on exit)
 *
 * The window holds no rules: legality comes from the core (catan/view.h),
 * actions go through the store (catan/store.h). Errors: 0, or -1 with a
 * sentence in err.
 */
#ifndef CATAN_UI_H
#define CATAN_UI_H

#include "catan/store.h"

typedef struct catan_ui_options {
	const char *dir;    /* the game repository */
	const char *rev;    /* render: revision, NULL = current position;
			       replay: the commit to open at, NULL = the last */
	const char *out;    /* render: PNG file */
	int w, h;	    /* window or image size, pixels */
	const char *as;	    /* the player whose hand is shown / who acts */
	bool reveal;	    /* render/replay: every hand in full */
	bool coords;	    /* start with coordinates shown */
	const char *bots;   /* play: players the window's own bot plays */
	const char *script; /* play: scripted input, one command a line */
	double interval;    /* play: seconds between background syncs */
	double pace;	    /* play: seconds each move of another player
			       (or a bot) is shown before the next; 0 = none */
	int frames;	    /* render: draw this many frames, print timing */
	int *next;	    /* play: set to a catan_ui_next when the window
			       closed by the results panel's buttons */
	long *script_at;    /* play, replay: where in the script to start
			       (bytes), and where the window left it: a
			       script goes on in the next window (Replay,
			       New game); NULL = from the start */
	bool from_start;    /* replay without rev: open at the first commit
			       (the results panel's Replay), not the last */
} catan_ui_options;

typedef enum {
	CATAN_UI_NEXT_NONE,
	CATAN_UI_NEXT_REPLAY,  /* "Replay": replay this game */
	CATAN_UI_NEXT_NEWGAME, /* "New game": a new game, same players */
} catan_ui_next;

int catan_ui_render(const catan_ui_options *o, catan_err *err);
/* Is there a display for a window? 0, or -1 with one sentence saying what
 * to do (no DISPLAY, no WAYLAND_DISPLAY and no SDL_VIDEODRIVER). */
int catan_ui_display_check(catan_err *err);
int catan_ui_play(const catan_ui_options *o, catan_err *err);
int catan_ui_replay(const catan_ui_options *o, catan_err *err);

#endif
