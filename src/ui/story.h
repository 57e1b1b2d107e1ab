/*
 * story.h - what happened, in plain words: one commit of the game (who
 * did what, the state before and after, the rules' outcome) told as lines
 * for the window's log ("Blue rolled 3+4 = 7", "Orange stole a card from
 * you: lumber", "You received 2 grain"). Private details (a stolen card, a
 * drawn development card, the cards of a discard) are told only to the
 * player they belong to. Pure: no SDL, no I/O (src/ui/story.c).
 */
#ifndef CATAN_UI_STORY_H
#define CATAN_UI_STORY_H

#include "catan/action.h"
#include "catan/state.h"

#define UI_STORY_LINE 160
#define UI_STORY_MAX  12 /* lines one commit can give at most */

/* One commit as the window's history holds it. */
typedef struct ui_event {
	int actor;	  /* author's player index, or CATAN_NONE */
	bool has_action;  /* the subject parsed as an action */
	bool merge;	  /* a discard merge (internal: never told) */
	bool has_outcome; /* outcome is the rules' own (the action applied) */
	catan_action action;
	catan_outcome outcome;
	catan_state after;
	char id[12]; /* the commit, abbreviated */
} ui_event;

/*
 * Writes the lines that tell event `e` (applied to `before`) as seen by
 * `viewer` (CATAN_NONE: a spectator, who sees no private detail; `all`
 * true: a replay with every hand open, which sees everything). Returns the
 * number of lines written to out (at most UI_STORY_MAX). Cannot fail.
 */
int ui_story(char out[][UI_STORY_LINE], const catan_board *b,
	     const catan_names *names, const catan_state *before,
	     const ui_event *e, int viewer, bool all);

/* "Blue", or "You" for the viewer; `cap` false gives "blue" / "you". */
const char *ui_story_name(char *buf, size_t n, const catan_names *names, int p,
			  int viewer, bool cap);

#endif
