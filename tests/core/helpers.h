/*
 * helpers.h - shared fixtures for the core tests: boards and states built in
 * C, and actions from their text. Every th_* helper fails the running
 * cmocka test (it does not return an error) when something is off.
 */
#ifndef CATAN_TEST_HELPERS_H
#define CATAN_TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "catan/action.h"
#include "catan/board.h"
#include "catan/bot.h"
#include "catan/state.h"

/* Player indices of the default names. */
enum { RED, BLUE, WHITE, ORANGE };

/* Beginner board, default options with n players, fresh state. */
void th_new_game(catan_board *b, catan_state *s, int nplayers);

/*
 * Plays the set-up phase with fixed, legal placements (listed in
 * helpers.c) for 2-4 players, leaving player 0 to roll on turn 1.
 */
void th_play_setup(const catan_board *b, catan_state *s);

/* Ids from coordinates; dir is "n", "ne", "w", ... (aliases allowed). */
int th_vertex(const catan_board *b, int q, int r, const char *dir);
int th_edge(const catan_board *b, int q, int r, const char *dir);
int th_tile(const catan_board *b, int q, int r);

/* Parses `text` (default names); fails the test on a parse error. */
catan_action th_action(const catan_board *b, const char *text);

/*
 * Applies `text` by `actor` in place and asserts it succeeds and that every
 * invariant holds afterwards.
 */
void th_do(const catan_board *b, catan_state *s, int actor, const char *text);

/*
 * Applies `text` by `actor` and asserts it is rejected with exactly `code`
 * and that the state is byte-for-byte unchanged.
 */
void th_reject(const catan_board *b, catan_state *s, int actor,
	       const char *text, int code);

/* Moves cards from the bank into p's hand (counts per resource). */
void th_give(catan_state *s, int p, int lumber, int brick, int wool,
	     int grain, int ore);

/* Empties p's hand back into the bank. */
void th_clear_hand(catan_state *s, int p);

/* Moves a development card of kind d from the deck to p (not "bought"). */
void th_give_dev(catan_state *s, int p, int d);

/* Asserts catan_state_check() passes, printing the reason if not. */
void th_check(const catan_board *b, const catan_state *s);

/*
 * From a state after set-up where the active player must roll: rolls the
 * given dice in manual mode semantics by temporarily switching dice mode
 * (the state's option is restored afterwards).
 */
void th_roll(const catan_board *b, catan_state *s, int d1, int d2);

#endif
