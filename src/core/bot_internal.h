/*
 * bot_internal.h - what the bots of bot.c, botvalue.c and mcts.c share.
 */
#ifndef CATAN_BOT_INTERNAL_H
#define CATAN_BOT_INTERNAL_H

#include "catan/bot.h"

/* The greedy bot on state `s` (a view or, inside a playout, a sample). */
int catan_bot_greedy(catan_action *out, const catan_board *board,
		     const catan_state *s, int actor, catan_rng *rng,
		     unsigned flags);

/* The value bot (botvalue.c) and the search bot (mcts.c). */
int catan_bot_value_choose(catan_action *out, const catan_bot_config *cfg,
			   const catan_board *board, const catan_seat_view *v,
			   catan_rng *rng, unsigned flags);
int catan_bot_mcts_choose(catan_action *out, const catan_bot_config *cfg,
			  const catan_board *board, const catan_seat_view *v,
			  catan_rng *rng, unsigned flags);

/*
 * The value bot's score of every action of buf[0..n-1] for the seat of
 * `v` (one ply: the state after the action, chance outcomes replaced by
 * their worth), into score[]. Offers are not scored here.
 */
void catan_bot_score_actions(int *score, const catan_board *board,
			     const catan_seat_view *v, const catan_action *buf,
			     int n);

/*
 * The value bot's trading move, if it has one: an answer to an offer made
 * to the seat (accept, reject or counter-offer), or an offer of its own
 * when `idle` (its best other move is to end). Returns true and fills
 * `out` when it has one.
 */
bool catan_bot_trade_move(catan_action *out, const catan_bot_config *cfg,
			  const catan_board *board, const catan_seat_view *v,
			  bool idle);

/* A discard of the cards owed, one card at a time, keeping most value. */
void catan_bot_value_discard(catan_action *out, const catan_board *board,
			     const catan_seat_view *v);

#endif
