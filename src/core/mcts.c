/*
 * mcts.c - the search bot: determinized Monte Carlo search (spec/bots.md).
 *
 * The value bot ranks the seat's legal actions and keeps the best few
 * that score within CLOSE of its pick (discards and answers to offers are
 * the value bot's). Then, round after round, the hidden cards of the view
 * are dealt again at random (catan_seat_view_deal: a determinization
 * consistent with every count the seat sees, dice and draws included) and
 * every candidate is played on that same deal with the same random numbers
 * (common random numbers: what differs between candidates is the action,
 * not the sample): the candidate is applied, the seat plays on as the
 * value bot would and the others as the greedy bot to the end of the
 * seat's turn, and the seat's standing there (its value less a third of
 * the best opponent's; a won game is worth 20 points) is added to the
 * candidate's sum. The candidate with the highest sum is chosen.
 *
 * Two decisions are searched otherwise:
 * - set-up placements: nothing is hidden yet, so one playout a candidate
 *   finishes the set-up with every player placing as the value bot, and
 *   the standing at its end decides (where the others will settle is
 *   foreseen);
 * - offers (one or two cards for one, or one for two), when the best move
 *   is to end the turn: each offer is tried on deals of the hidden hands,
 *   where the partner accepts as the value bot does, and the one with the
 *   most expected gain is made.
 *
 * Measured (spec/bots.md): longer horizons, greedy continuations for the
 * seat, or UCB1 over independent samples made the bot weaker.
 *
 * Floating point only in the search statistics; every sum is made in the
 * same order, so a given seed and playout count give the same choice.
 */
#include <limits.h>
#include <string.h>

#include "bot_internal.h"
#include "rules_internal.h"

enum {
	CANDIDATES = 8,	       /* actions searched, best by the value bot */
	SETUP_CANDIDATES = 16, /* set-up placements searched */
	CLOSE = 1000,	       /* searched: within this of the best score */
	PLAYOUT_MAX = 400,     /* actions in a playout, a guard */
	OFFER_DEALS = 16,  /* deals of the hidden hands an offer is tried on */
	OFFER_MAX = 3,	   /* own offers a turn */
	OFFER_MARGIN = 40, /* least gain for the seat */
	OFFER_SHARE = 4,   /* least share of deals that accept: 1/4 */
};

/*
 * The value bot's move for `who` on sampled state `s` (no offers): the
 * highest score, the first of equals. `tmp` is scratch for the view.
 */
static void value_move(catan_action *out, const catan_board *b,
		       const catan_state *s, int who, catan_seat_view *tmp)
{
	catan_action buf[CATAN_BOT_BUF];
	int score[CATAN_BOT_BUF];
	tmp->s = *s;
	tmp->seat = (uint8_t)who;
	if (s->phase == CATAN_PHASE_DISCARD) {
		catan_bot_value_discard(out, b, tmp);
		return;
	}
	int n = catan_legal_actions(buf, CATAN_BOT_BUF, b, s, who,
				    CATAN_LEGAL_NO_OFFERS);
	n = n > CATAN_BOT_BUF ? CATAN_BOT_BUF : n;
	if (n <= 1) {
		*out = buf[0];
		return;
	}
	catan_bot_score_actions(score, b, tmp, buf, n);
	int best = 0;
	for (int i = 1; i < n; i++)
		if (score[i] > score[best])
			best = i;
	*out = buf[best];
}

/* The seat's standing on a sampled state: its value less a third of the
 * best opponent's (a won game is worth 20 points, catan_bot_value). */
static int standing_of(const catan_board *b, const catan_state *s, int seat)
{
	int best = INT_MIN;
	for (int o = 0; o < s->opt.nplayers; o++) {
		if (o == seat)
			continue;
		int v = catan_bot_value(b, s, o, o);
		best = v > best ? v : best;
	}
	return catan_bot_value(b, s, seat, seat) - best / 3;
}

/*
 * One playout from sampled state `s` after the seat's action, to the end
 * of the seat's turn: the seat plays as the value bot, anybody else (a
 * discard owed) as the greedy bot. Returns the seat's standing there.
 */
static int playout(const catan_board *b, catan_state *s, int seat,
		   catan_rng *rng)
{
	int end_turn = s->turn + 1;
	catan_seat_view tmp;
	for (int k = 0; k < PLAYOUT_MAX && s->phase != CATAN_PHASE_OVER &&
			s->turn < end_turn;
	     k++) {
		int who = catan_state_next_actor(s);
		catan_action a;
		if (who == seat)
			value_move(&a, b, s, who, &tmp);
		else if (catan_bot_greedy(&a, b, s, who, rng,
					  CATAN_LEGAL_NO_OFFERS))
			break;
		if (catan_state_apply(s, b, s, who, &a, NULL))
			break; /* cannot happen: the bots play legally */
	}
	return standing_of(b, s, seat);
}

/*
 * Set-up placements: nothing is hidden yet and the value bot's placements
 * are (ties aside) determined by the board, so one playout a candidate
 * finishes the set-up as value bots would and scores the seat's standing
 * at its end: where the others will settle is foreseen.
 */
static void setup_search(catan_action *out, const catan_board *b,
			 const catan_seat_view *v, const catan_action *buf,
			 int *score, int n)
{
	int me = v->seat, best_val = INT_MIN;
	catan_seat_view tmp;
	for (int c = 0; c < SETUP_CANDIDATES; c++) {
		int best = -1;
		for (int i = 0; i < n; i++)
			if (score[i] != INT_MIN &&
			    (best < 0 || score[i] > score[best]))
				best = i;
		if (best < 0)
			break;
		score[best] = INT_MIN;
		catan_state t = v->s;
		if (catan_state_apply(&t, b, &t, me, &buf[best], NULL))
			continue;
		for (int k = 0; k < PLAYOUT_MAX && t.phase == CATAN_PHASE_SETUP;
		     k++) {
			int who = catan_state_next_actor(&t);
			catan_action a;
			value_move(&a, b, &t, who, &tmp);
			if (catan_state_apply(&t, b, &t, who, &a, NULL))
				break;
		}
		int val = standing_of(b, &t, me);
		if (c == 0 || val > best_val) {
			best_val = val;
			*out = buf[best];
		}
	}
}

/*
 * An offer the partner will likely take: every offer of one or two cards
 * of a kind for one card of another, or of one card for two (a value bot
 * with cards to spare takes it: measured 39.9% against three value bots
 * over 2,000 games, seed 1, where one card asked won 30.7%), to each
 * opponent with cards and not about to win, is tried on OFFER_DEALS deals
 * of the hidden hands, where the partner accepts as the value bot does (it
 * can pay and its value function gains). The one with the most expected
 * gain for the seat (its gain times the share of deals that accept) is
 * made.
 */
static bool search_offer(catan_action *out, const catan_board *b,
			 const catan_seat_view *v, catan_rng *rng)
{
	const catan_state *s = &v->s;
	int me = v->seat;
	const catan_player *pl = &s->players[me];
	if (s->active != me ||
	    (s->phase != CATAN_PHASE_MAIN && s->phase != CATAN_PHASE_TRADE) ||
	    s->offers >= OFFER_MAX ||
	    (s->opt.offer_limit && s->offers >= s->opt.offer_limit))
		return false;
	catan_seat_view deals[OFFER_DEALS];
	for (int i = 0; i < OFFER_DEALS; i++) {
		deals[i] = *v;
		catan_seat_view_deal(&deals[i], rng);
	}
	double best = 0;
	bool found = false;
	for (int o = 0; o < s->opt.nplayers; o++) {
		if (o == me || !s->players[o].ncards ||
		    s->players[o].public_vp + 2 >= s->opt.vp_target)
			continue;
		for (int g = 0; g < CATAN_RES_COUNT; g++)
			for (int k = 1; k <= 2 && k <= pl->hand[g]; k++)
				for (int x = 0; x < 2 * CATAN_RES_COUNT; x++) {
					/* m cards of kind r */
					int r = x % CATAN_RES_COUNT,
					    m = 1 + x / CATAN_RES_COUNT;
					if (r == g || (m == 2 && k == 2))
						continue;
					uint8_t give[CATAN_RES_COUNT] = {0},
						get[CATAN_RES_COUNT] = {0};
					give[g] = (uint8_t)k;
					get[r] = (uint8_t)m;
					int mine = catan_bot_trade_value(
					    b, s, me, me, give, get);
					if (mine < OFFER_MARGIN)
						continue;
					int yes = 0;
					for (int i = 0; i < OFFER_DEALS; i++) {
						const catan_state *d =
						    &deals[i].s;
						if (d->players[o].hand[r] >=
							m &&
						    catan_bot_trade_value(
							b, d, o, o, get, give) >
							0)
							yes++;
					}
					double sc =
					    (double)mine * yes / OFFER_DEALS;
					if (yes * OFFER_SHARE < OFFER_DEALS ||
					    sc <= best)
						continue;
					best = sc;
					found = true;
					catan_action_init(
					    out, CATAN_ACT_TRADE_OFFER);
					out->player = (uint8_t)o;
					memcpy(out->give, give, sizeof give);
					memcpy(out->get, get, sizeof get);
				}
	}
	return found;
}

int catan_bot_mcts_choose(catan_action *out, const catan_bot_config *cfg,
			  const catan_board *b, const catan_seat_view *v,
			  catan_rng *rng, unsigned flags)
{
	const catan_state *s = &v->s;
	int me = v->seat;
	if ((s->phase == CATAN_PHASE_DISCARD && s->discard[me]) ||
	    s->phase == CATAN_PHASE_OFFER)
		return catan_bot_value_choose(out, cfg, b, v, rng, flags);
	catan_action buf[CATAN_BOT_BUF];
	int score[CATAN_BOT_BUF];
	int n = catan_legal_actions(buf, CATAN_BOT_BUF, b, s, me,
				    flags | CATAN_LEGAL_NO_OFFERS);
	if (n == 0)
		return CATAN_E_NOT_YOUR_TURN;
	n = n > CATAN_BOT_BUF ? CATAN_BOT_BUF : n;
	catan_bot_score_actions(score, b, v, buf, n);
	if (s->phase == CATAN_PHASE_SETUP) {
		setup_search(out, b, v, buf, score, n);
		return CATAN_OK;
	}
	/* The best CANDIDATES by the value bot, best first. */
	catan_action cand[CANDIDATES];
	int nc = 0;
	int top = INT_MIN;
	for (; nc < CANDIDATES && nc < n; nc++) {
		int best = -1;
		for (int i = 0; i < n; i++)
			if (score[i] != INT_MIN &&
			    (best < 0 || score[i] > score[best]))
				best = i;
		if (best < 0)
			break;
		if (nc == 0)
			top = score[best];
		else if (score[best] < top - CLOSE)
			break; /* clearly worse than the value bot's pick */
		cand[nc] = buf[best];
		score[best] = INT_MIN;
	}
	int k = cand[0].kind;
	if ((k == CATAN_ACT_END || k == CATAN_ACT_END_TRADE) && cfg->trade &&
	    search_offer(out, b, v, rng))
		return CATAN_OK;
	if (nc == 1) {
		*out = cand[0];
		return CATAN_OK;
	}

	double sum[CANDIDATES] = {0};
	uint32_t budget = cfg->playouts ? cfg->playouts : 400, done = 0;
	bool timed = cfg->clock && cfg->time_ms;
	double deadline =
	    timed ? cfg->clock(cfg->clock_ctx) + cfg->time_ms / 1000.0 : 0;
	for (;;) {
		if (done && (timed ? cfg->clock(cfg->clock_ctx) >= deadline
				   : done + (uint32_t)nc > budget))
			break;
		catan_seat_view d = *v;
		catan_seat_view_deal(&d, rng);
		uint64_t seed = catan_rng_next(rng);
		for (int i = 0; i < nc; i++) {
			catan_state t = d.s;
			catan_rng prng = {seed}; /* the same for each */
			double r = -1e9;	 /* cannot happen: legal */
			if (catan_state_apply(&t, b, &t, me, &cand[i], NULL) ==
			    CATAN_OK)
				r = playout(b, &t, me, &prng);
			sum[i] += r;
		}
		done += (uint32_t)nc;
	}
	if (cfg->playouts_done)
		*cfg->playouts_done += done;
	int best = 0;
	for (int i = 1; i < nc; i++)
		if (sum[i] > sum[best])
			best = i;
	*out = cand[best];
	return CATAN_OK;
}
