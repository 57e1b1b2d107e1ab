/*
 * mcts.c - the search bot: determinized Monte Carlo search (spec/bots.md).
 *
 * The value bot ranks the seat's legal actions and keeps the best few
 * that score within CLOSE of its pick (trades and discards are the value
 * bot's: offers cannot be searched without modelling the partner). Then,
 * playout after playout, the hidden cards of the view are dealt again at
 * random (catan_seat_view_deal: a determinization consistent with every
 * count the seat sees, dice and draws included), UCB1 picks a candidate,
 * the candidate is applied, and play continues with the greedy bot to the
 * end of the seat's turn (HORIZON). A playout scores 1 for a win, 0 for a
 * loss, else a sigmoid of the change of the seat's standing (its value
 * less a third of the best opponent's, as the value bot weighs it). The
 * candidate played most often is chosen.
 *
 * Measured (spec/bots.md): horizons of one or two rounds with greedy
 * playouts and rewards not measured against the current standing made the
 * bot weaker than the value bot alone.
 *
 * Floating point only in the search statistics; every sum is made in the
 * same order, so a given seed and playout count give the same choice.
 */
#include <limits.h>
#include <string.h>

#include "bot_internal.h"
#include "rules_internal.h"

enum {
	CANDIDATES = 8,	   /* actions searched, best by the value bot */
	CLOSE = 1000,	   /* searched: within this of the best score */
	HORIZON = 1,	   /* a playout's horizon, in turns */
	PLAYOUT_MAX = 400, /* actions in a playout, a guard */
};

/*
 * A sigmoid of a change of standing (thousandths of a VP), scale half a
 * VP, without libm: a rational approximation, monotone, in (0, 1).
 */
static double squash(int diff)
{
	double x = diff / 500.0;
	return 0.5 + 0.5 * x / (1.0 + (x < 0 ? -x : x));
}

/* One playout from determinized state `s` after the seat's action. */
static double playout(const catan_board *b, catan_state *s, int seat, int base,
		      catan_rng *rng)
{
	int end_turn = s->turn + HORIZON;
	for (int k = 0; k < PLAYOUT_MAX && s->phase != CATAN_PHASE_OVER &&
			s->turn < end_turn;
	     k++) {
		int who = catan_state_next_actor(s);
		catan_action a;
		if (catan_bot_greedy(&a, b, s, who, rng,
				     CATAN_LEGAL_NO_OFFERS) ||
		    catan_state_apply(s, b, s, who, &a, NULL))
			break; /* cannot happen: the greedy bot plays legally */
	}
	if (s->phase == CATAN_PHASE_OVER)
		return s->winner == seat ? 1.0 : 0.0;
	int best = INT_MIN;
	for (int o = 0; o < s->opt.nplayers; o++) {
		if (o == seat)
			continue;
		int v = catan_bot_value(b, s, o, o);
		best = v > best ? v : best;
	}
	/* The change of the seat's standing (as the value bot weighs it). */
	return squash(catan_bot_value(b, s, seat, seat) - best / 3 - base);
}

/* sqrt without libm (the core links nothing): Newton from above. */
static double root(double x)
{
	if (x <= 0)
		return 0;
	double r = x > 1 ? x : 1;
	for (int i = 0; i < 40; i++)
		r = 0.5 * (r + x / r);
	return r;
}

/* ln without libm, for UCB1: ln x = 2 atanh((x-1)/(x+1)), x >= 1. */
static double ln(double x)
{
	int k = 0;
	while (x > 2) /* x = m * 2^k */
		x /= 2, k++;
	double y = (x - 1) / (x + 1), y2 = y * y, sum = 0, term = y;
	for (int i = 1; i < 30; i += 2) {
		sum += term / i;
		term *= y2;
	}
	return 2 * sum + k * 0.6931471805599453;
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
	/* The best CANDIDATES by the value bot, best first. */
	catan_bot_score_actions(score, b, v, buf, n);
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
	if ((k == CATAN_ACT_END || k == CATAN_ACT_END_TRADE) &&
	    catan_bot_trade_move(out, cfg, b, v, true))
		return CATAN_OK;
	if (nc == 1) {
		*out = cand[0];
		return CATAN_OK;
	}

	/* The seat's standing now, from its view: what rewards are
	 * measured against. */
	int base = INT_MIN;
	for (int o = 0; o < s->opt.nplayers; o++)
		if (o != me) {
			int vo = catan_bot_value(b, s, me, o);
			base = vo > base ? vo : base;
		}
	base = catan_bot_value(b, s, me, me) - base / 3;
	double sum[CANDIDATES] = {0};
	uint32_t visits[CANDIDATES] = {0}, total = 0;
	uint32_t budget = cfg->playouts ? cfg->playouts : 400;
	bool timed = cfg->clock && cfg->time_ms;
	double deadline =
	    timed ? cfg->clock(cfg->clock_ctx) + cfg->time_ms / 1000.0 : 0;
	for (;;) {
		if (timed ? (total % 16 == 0 &&
			     cfg->clock(cfg->clock_ctx) >= deadline && total)
			  : total >= budget)
			break;
		int arm = -1;
		double best = -1;
		for (int i = 0; i < nc && arm < 0; i++)
			if (!visits[i])
				arm = i;
		if (arm < 0) {
			double lt = ln((double)total);
			for (int i = 0; i < nc; i++) {
				double u = sum[i] / visits[i] +
					   0.7 * root(lt / visits[i]);
				if (u > best)
					best = u, arm = i;
			}
		}
		catan_seat_view d = *v;
		catan_seat_view_deal(&d, rng);
		double r = 0;
		if (catan_state_apply(&d.s, b, &d.s, me, &cand[arm], NULL) ==
		    CATAN_OK)
			r = playout(b, &d.s, me, base, rng);
		sum[arm] += r;
		visits[arm]++;
		total++;
	}
	if (cfg->playouts_done)
		*cfg->playouts_done += total;
	int best = 0;
	for (int i = 1; i < nc; i++)
		if (visits[i] > visits[best] ||
		    (visits[i] == visits[best] && sum[i] > sum[best]))
			best = i;
	*out = cand[best];
	return CATAN_OK;
}
