/*
 * catan/seatview.h - what one seat may see of a game.
 *
 * A seat sees the board, every piece, the bank, the robber, the trophies,
 * the played development cards and the pending offer; its own hand and
 * development cards exactly; of every other player only how many resource
 * cards and how many unplayed development cards they hold; of the
 * development deck only its size; nothing of the game's RNG (which decides
 * the dice to come).
 *
 * A catan_seat_view is a catan_state in which every card the seat may not
 * see has been dealt again from the cards the seat cannot account for,
 * keeping every count (and every invariant of catan_state_check). So the
 * rules, catan_legal_actions() and catan_state_apply() work on it as on a
 * real game: a bot that takes a view can search it, and a bot that reads
 * a hidden field reads a guess, never the truth. The deal is canonical
 * (catan_seat_view_make) or random (catan_seat_view_deal, a
 * determinization for search and for the tests that poison the hidden
 * cards).
 */
#ifndef CATAN_SEATVIEW_H
#define CATAN_SEATVIEW_H

#include "catan/rng.h"
#include "catan/state.h"

typedef struct catan_seat_view {
	catan_state s; /* hidden cards dealt again, RNG replaced */
	uint8_t seat;  /* whose view */
} catan_seat_view;

/*
 * The view of `seat` (0 <= seat < nplayers) of `full`: hidden cards dealt
 * canonically (in resource and player order), RNG zeroed. Two full states
 * that differ only in what `seat` may not see give byte-identical views.
 * Cannot fail.
 */
void catan_seat_view_make(catan_seat_view *out, const catan_state *full,
			  int seat);

/*
 * Deals the hidden cards of `v` again at random from `rng` (one
 * determinization): the other players' resource hands from the resource
 * cards neither in the bank nor in the seat's hand, the other players'
 * development cards and the deck from the development cards neither
 * played nor the seat's own, and a fresh game RNG. Counts are kept, as are
 * the cards a pending offer promises and the cards the active player
 * bought this turn. Cannot fail.
 */
void catan_seat_view_deal(catan_seat_view *v, catan_rng *rng);

/*
 * Resource cards of each kind that `seat` cannot place: in some other
 * player's hand (exactly the total in the game minus the bank minus its
 * own hand). Public to the seat; used for monopolies and trades.
 */
void catan_seat_view_unseen(uint8_t out[CATAN_RES_COUNT], const catan_state *s,
			    int seat);

#endif
