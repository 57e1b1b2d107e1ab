/*
 * botvalue.c - the value function, the value bot (one ply over it) and the
 * trades both the value and the search bot make (spec/bots.md).
 *
 * The weights are hand-tuned, not fitted: thousandths of a victory point,
 * chosen so that a settlement on a good spot is worth its victory point
 * plus its production, and a hand is worth more the closer it is to the
 * next building. Everything reads the seat's view only: for another
 * player nothing but public facts and card counts.
 */
#include <limits.h>
#include <string.h>

#include "bot_internal.h"
#include "rules_internal.h"

enum {
	W_VP = 1000,	   /* a victory point */
	W_PIP = 22,	   /* a pip of production (1/36 card a roll) */
	W_KIND = 40,	   /* producing one more kind of resource */
	W_CARD = 20,	   /* a resource card in hand */
	W_OVER = 30,	   /* each card over 7 (a 7 halves the hand) */
	W_DEV = 150,	   /* an unplayed development card */
	W_KNIGHT = 70,	   /* a knight played (toward largest army) */
	W_ROAD = 12,	   /* a road in the longest trail */
	W_SPOT = 100,	   /* a free settlement spot at the end of a road */
	W_SPOT_PIP = 8,	   /* ... and each pip it has */
	W_NEXT = 40,	   /* a free spot one road further */
	W_NEXT_PIP = 4,	   /* ... and each pip it has */
	W_STEAL = 30,	   /* a card stolen with the robber (worth unknown) */
	W_BUY = 250,	   /* a development card bought (kind unknown) */
	TRADE_MARGIN = 40, /* least gain for which a bot offers a trade */
	OWN_OFFERS = 2,	   /* own offers a turn (counter-offers: +2) */
};

/* Pips each resource of p's buildings yields; the robber's tile none. */
static void production(const catan_board *b, const catan_state *s, int p,
		       int prod[CATAN_RES_COUNT])
{
	const catan_player *pl = &s->players[p];
	memset(prod, 0, CATAN_RES_COUNT * sizeof *prod);
	for (int city = 0; city < 2; city++) {
		const catan_vset *set = city ? &pl->cities : &pl->settlements;
		CATAN_FOR_BITS(v, set->w, CATAN_VWORDS)
		{
			for (int i = 0; i < 3; i++) {
				int t = b->vertex_tiles[v][i];
				if (t == CATAN_NONE || t == s->robber ||
				    b->tile_terrain[t] >= CATAN_RES_COUNT)
					continue;
				prod[b->tile_terrain[t]] +=
				    (1 + city) *
				    catan_token_pips(b->tile_token[t]);
			}
		}
	}
}

static int vertex_pips(const catan_board *b, int v)
{
	int pips = 0;
	for (int i = 0; i < 3; i++) {
		int t = b->vertex_tiles[v][i];
		if (t != CATAN_NONE)
			pips += catan_token_pips(b->tile_token[t]);
	}
	return pips;
}

/* Where p could still settle: at the end of its roads, or one road on. */
static int spot_value(const catan_board *b, const catan_state *s, int p,
		      bool *spot)
{
	const catan_player *pl = &s->players[p];
	int now = -1, next = -1;
	*spot = false;
	if (!pl->settlements_left)
		return 0;
	CATAN_FOR_BITS(v, pl->reach.w, CATAN_VWORDS)
	{
		if (!catan_vset_has(&s->blocked, v)) {
			int pips = vertex_pips(b, v);
			now = pips > now ? pips : now;
		}
		for (int i = 0; i < 3; i++) {
			int u = b->vertex_vertices[v][i];
			if (u == CATAN_NONE || catan_vset_has(&s->blocked, u) ||
			    catan_vset_has(&pl->reach, u))
				continue;
			int e = b->vertex_edges[v][i];
			if (e != CATAN_NONE && catan_eset_has(&s->roads, e))
				continue;
			int pips = vertex_pips(b, u);
			next = pips > next ? pips : next;
		}
	}
	*spot = now >= 0;
	if (now >= 0)
		return W_SPOT + W_SPOT_PIP * now;
	if (next >= 0 && pl->roads_left)
		return W_NEXT + W_NEXT_PIP * next;
	return 0;
}

/* Worth of an exact hand: its cards, and how near the next building. */
static int hand_value(const uint8_t *h, int ncards, const catan_player *pl,
		      bool spot, bool deck)
{
	static const uint8_t *const goal[4] = {catan_cost_city,
					       catan_cost_settlement,
					       catan_cost_dev, catan_cost_road};
	bool city = pl->cities_left && catan_vset_count(&pl->settlements);
	const int weight[4] = {city ? 320 : 0, spot ? 300 : 0, deck ? 120 : 0,
			       pl->roads_left ? 60 : 0};
	int best = 0;
	for (int g = 0; g < 4; g++) {
		int have = 0, size = 0;
		for (int r = 0; r < CATAN_RES_COUNT; r++) {
			have += h[r] < goal[g][r] ? h[r] : goal[g][r];
			size += goal[g][r];
		}
		int val = weight[g] * have * have / (size * size);
		best = val > best ? val : best;
	}
	return W_CARD * ncards + best;
}

int catan_bot_value(const catan_board *b, const catan_state *s, int seat, int p)
{
	const catan_player *pl = &s->players[p];
	bool own = p == seat;
	int vp = own ? catan_state_vp(s, p) : pl->public_vp;
	if (s->phase == CATAN_PHASE_OVER)
		return s->winner == p ? 20 * W_VP : vp * W_VP;
	int v = vp * W_VP, prod[CATAN_RES_COUNT], total = 0;
	production(b, s, p, prod);
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		total += prod[r];
		v += prod[r] ? W_KIND : 0;
		if (pl->harbours >> r & 1)
			v += 6 * prod[r] + 10;
	}
	v += W_PIP * total;
	if (pl->harbours >> CATAN_HARBOUR_GENERIC & 1)
		v += 35;
	bool spot;
	v += spot_value(b, s, p, &spot);
	v += W_ROAD * (pl->road_length < 8 ? pl->road_length : 8);
	v += W_KNIGHT * pl->knights;
	int devs = 0;
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		if (!own || d != CATAN_DEV_VICTORY_POINT) /* own: in vp */
			devs += pl->devs[d];
	v += W_DEV * devs;
	if (own)
		v += hand_value(pl->hand, pl->ncards, pl, spot,
				sum5(s->deck) > 0);
	else
		v += W_CARD * pl->ncards;
	if (pl->ncards > 7)
		v -= W_OVER * (pl->ncards - 7);
	return v;
}

/* The seat's standing: its value less a third of the best opponent's. */
static int standing(const catan_board *b, const catan_state *s, int seat)
{
	int best = INT_MIN;
	for (int o = 0; o < s->opt.nplayers; o++) {
		if (o == seat)
			continue;
		int v = catan_bot_value(b, s, seat, o);
		best = v > best ? v : best;
	}
	return catan_bot_value(b, s, seat, seat) - best / 3;
}

int catan_bot_trade_value(const catan_board *b, const catan_state *s, int seat,
			  int p, const uint8_t give[CATAN_RES_COUNT],
			  const uint8_t get[CATAN_RES_COUNT])
{
	if (p == seat) {
		catan_state t = *s;
		catan_player *pl = &t.players[p];
		for (int r = 0; r < CATAN_RES_COUNT; r++) {
			if (give[r] > pl->hand[r])
				return -20 * W_VP; /* cannot give it */
			pl->hand[r] = (uint8_t)(pl->hand[r] - give[r] + get[r]);
			pl->ncards = (uint8_t)(pl->ncards - give[r] + get[r]);
		}
		return catan_bot_value(b, &t, seat, p) -
		       catan_bot_value(b, s, seat, p);
	}
	/* Another player's hand is hidden: a card it produces little of is
	 * worth more to it. */
	int prod[CATAN_RES_COUNT], v = 0;
	production(b, s, p, prod);
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		int worth = 60 - 4 * (prod[r] < 10 ? prod[r] : 10);
		v += worth * (get[r] - give[r]);
	}
	return v;
}

void catan_bot_score_actions(int *score, const catan_board *b,
			     const catan_seat_view *v, const catan_action *buf,
			     int n)
{
	const catan_state *s = &v->s;
	int me = v->seat, base = standing(b, s, me), opp = INT_MIN;
	const catan_player *was = &s->players[me];
	for (int o = 0; o < s->opt.nplayers; o++)
		if (o != me) {
			int vo = catan_bot_value(b, s, me, o);
			opp = vo > opp ? vo : opp;
		}
	for (int i = 0; i < n; i++) {
		const catan_action *a = &buf[i];
		catan_state t;
		if (a->kind == CATAN_ACT_ROLL || a->kind == CATAN_ACT_END ||
		    a->kind == CATAN_ACT_END_TRADE ||
		    a->kind == CATAN_ACT_TRADE_REJECT) {
			/*
			 * The dice are chance; ending changes nothing for the
			 * seat (and the next player's hidden cards, which the
			 * rules then look at, are not the seat's to know).
			 */
			score[i] = base;
			continue;
		}
		if (a->kind == CATAN_ACT_BUY_DEV) {
			/*
			 * The card drawn is hidden in the view (it might even
			 * end the game): pay for it and count its worth.
			 */
			t = *s;
			catan_player *pl = &t.players[me];
			for (int r = 0; r < CATAN_RES_COUNT; r++) {
				pl->hand[r] -= catan_cost_dev[r];
				pl->ncards -= catan_cost_dev[r];
			}
			score[i] = standing(b, &t, me) + W_BUY;
			continue;
		}
		if (a->kind == CATAN_ACT_TRADE_OFFER ||
		    catan_state_apply(&t, b, s, me, a, NULL) != CATAN_OK) {
			score[i] = INT_MIN / 2;
			continue;
		}
		if (a->kind == CATAN_ACT_PLAY_MONOPOLY) {
			/*
			 * What the others hold of it in all is public, not
			 * who holds how much: their side is scored as before.
			 */
			score[i] = catan_bot_value(b, &t, me, me) - opp / 3;
			continue;
		}
		int bonus = 0;
		catan_player *pl = &t.players[me];
		if ((a->kind == CATAN_ACT_ROBBER ||
		     a->kind == CATAN_ACT_PLAY_KNIGHT) &&
		    pl->ncards != was->ncards) {
			/* The card stolen is hidden in the view too. */
			memcpy(pl->hand, was->hand, sizeof pl->hand);
			pl->ncards = was->ncards;
			bonus = W_STEAL;
		}
		score[i] = standing(b, &t, me) + bonus;
	}
}

void catan_bot_value_discard(catan_action *out, const catan_board *b,
			     const catan_seat_view *v)
{
	catan_state t = v->s;
	int me = v->seat;
	catan_player *pl = &t.players[me];
	catan_action_init(out, CATAN_ACT_DISCARD);
	for (int k = 0; k < v->s.discard[me]; k++) {
		int best = -1, best_val = INT_MIN;
		for (int r = 0; r < CATAN_RES_COUNT; r++) {
			if (!pl->hand[r])
				continue;
			pl->hand[r]--;
			pl->ncards--;
			int val = catan_bot_value(b, &t, me, me);
			pl->hand[r]++;
			pl->ncards++;
			if (val > best_val)
				best = r, best_val = val;
		}
		if (best < 0)
			break; /* cannot happen: a discard owed is held */
		pl->hand[best]--;
		pl->ncards--;
		out->give[best]++;
	}
}

/* Is p within two points of winning (as far as anyone can see)? */
static bool leading(const catan_state *s, int p)
{
	return s->players[p].public_vp + 2 >= s->opt.vp_target;
}

static bool may_offer(const catan_state *s, int cap)
{
	return s->offers < cap &&
	       (!s->opt.offer_limit || s->offers < s->opt.offer_limit);
}

/*
 * The best offer from the seat to a player of mask `to`, getting one card
 * of a kind in `kinds`, giving one or two of another; false if none gains
 * the seat TRADE_MARGIN while looking good to the partner too.
 */
static bool best_offer(catan_action *out, const catan_board *b,
		       const catan_seat_view *v, unsigned to, unsigned kinds)
{
	const catan_state *s = &v->s;
	int me = v->seat, best = INT_MIN;
	const catan_player *pl = &s->players[me];
	for (int o = 0; o < s->opt.nplayers; o++) {
		if (o == me || !(to >> o & 1) || leading(s, o) ||
		    !s->players[o].ncards)
			continue;
		for (int g = 0; g < CATAN_RES_COUNT; g++)
			for (int k = 1; k <= 2 && k <= pl->hand[g]; k++)
				for (int r = 0; r < CATAN_RES_COUNT; r++) {
					if (r == g || !(kinds >> r & 1))
						continue;
					uint8_t give[CATAN_RES_COUNT] = {0},
						get[CATAN_RES_COUNT] = {0};
					give[g] = (uint8_t)k;
					get[r] = 1;
					int mine = catan_bot_trade_value(
					    b, s, me, me, give, get);
					int theirs = catan_bot_trade_value(
					    b, s, me, o, get, give);
					if (mine < TRADE_MARGIN || theirs <= 0)
						continue;
					int sc = mine + theirs / 4;
					if (sc <= best)
						continue;
					best = sc;
					catan_action_init(
					    out, CATAN_ACT_TRADE_OFFER);
					out->player = (uint8_t)o;
					memcpy(out->give, give, sizeof give);
					memcpy(out->get, get, sizeof get);
				}
	}
	return best != INT_MIN;
}

bool catan_bot_trade_move(catan_action *out, const catan_bot_config *cfg,
			  const catan_board *b, const catan_seat_view *v,
			  bool idle)
{
	const catan_state *s = &v->s;
	int me = v->seat;
	const catan_player *pl = &s->players[me];
	if (s->phase == CATAN_PHASE_OFFER && s->offer_to == me) {
		int from = s->offer_from;
		bool afford = true;
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			afford &= s->offer_get[r] <= pl->hand[r];
		int gain = catan_bot_trade_value(b, s, me, me, s->offer_get,
						 s->offer_give);
		if (afford && gain > 0 && !leading(s, from)) {
			catan_action_init(out, CATAN_ACT_TRADE_ACCEPT);
			return true;
		}
		/* A counter-offer, for a kind the offerer showed it holds. */
		unsigned kinds = 0;
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			kinds |= s->offer_give[r] ? 1u << r : 0;
		if (cfg->trade && !leading(s, from) &&
		    may_offer(s, OWN_OFFERS + 2) &&
		    best_offer(out, b, v, 1u << from, kinds))
			return true;
		catan_action_init(out, CATAN_ACT_TRADE_REJECT);
		return true;
	}
	if (!idle || !cfg->trade || s->active != me ||
	    (s->phase != CATAN_PHASE_MAIN && s->phase != CATAN_PHASE_TRADE) ||
	    !may_offer(s, OWN_OFFERS))
		return false;
	return best_offer(out, b, v, ~0u, (1u << CATAN_RES_COUNT) - 1);
}

int catan_bot_value_choose(catan_action *out, const catan_bot_config *cfg,
			   const catan_board *b, const catan_seat_view *v,
			   catan_rng *rng, unsigned flags)
{
	static const int none = INT_MIN;
	const catan_state *s = &v->s;
	int me = v->seat;
	if (s->phase == CATAN_PHASE_DISCARD && s->discard[me]) {
		catan_bot_value_discard(out, b, v);
		return CATAN_OK;
	}
	if (s->phase == CATAN_PHASE_OFFER &&
	    catan_bot_trade_move(out, cfg, b, v, false))
		return CATAN_OK;
	catan_action buf[CATAN_BOT_BUF];
	int score[CATAN_BOT_BUF];
	int n = catan_legal_actions(buf, CATAN_BOT_BUF, b, s, me,
				    flags | CATAN_LEGAL_NO_OFFERS);
	if (n == 0)
		return CATAN_E_NOT_YOUR_TURN;
	n = n > CATAN_BOT_BUF ? CATAN_BOT_BUF : n;
	catan_bot_score_actions(score, b, v, buf, n);
	int best = 0, best_score = none, ties = 0;
	for (int i = 0; i < n; i++) {
		if (score[i] > best_score) {
			best = i, best_score = score[i], ties = 1;
		} else if (score[i] == best_score &&
			   catan_rng_below(rng, (uint32_t)++ties) == 0) {
			best = i;
		}
	}
	int k = buf[best].kind;
	bool idle = k == CATAN_ACT_END || k == CATAN_ACT_END_TRADE;
	if (idle && catan_bot_trade_move(out, cfg, b, v, true))
		return CATAN_OK;
	*out = buf[best];
	return CATAN_OK;
}
