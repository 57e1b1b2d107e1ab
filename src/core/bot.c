/*
 * bot.c - the random bot (research baseline) and a greedy bot (a table
 * opponent for humans). Both choose among catan_legal_actions(), so they
 * can never make an illegal move.
 */
#include "catan/bot.h"

#include <string.h>

#include "rules_internal.h"

/* Discard `owed` uniformly random cards, one at a time. */
static void random_discard(catan_action *out, const catan_player *pl,
			   int owed, catan_rng *rng)
{
	uint8_t hand[CATAN_RES_COUNT];
	int left = pl->ncards;
	memcpy(hand, pl->hand, sizeof hand);
	catan_action_init(out, CATAN_ACT_DISCARD);
	while (owed-- > 0) {
		uint32_t k = catan_rng_below(rng, (uint32_t)left);
		int r = 0;
		while (k >= hand[r])
			k -= hand[r++];
		hand[r]--;
		out->give[r]++;
		left--;
	}
}

/* Pips of the producing tiles around vertex v (robber ignored). */
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

/* Value of the robber on tile t for player p: hurt others, spare self. */
static int robber_score(const catan_board *b, const catan_state *s, int p,
			const catan_action *a)
{
	int t = a->tile, score = 0;
	int pips = catan_token_pips(b->tile_token[t]);
	for (int o = 0; o < s->opt.nplayers; o++) {
		int k = catan_vset_count_and(&b->tile_vmask[t],
					     &s->players[o].settlements) +
			2 * catan_vset_count_and(&b->tile_vmask[t],
						 &s->players[o].cities);
		score += (o == p ? -3 : 1) * k * pips *
			 (1 + catan_state_vp(s, o));
	}
	if (a->player != CATAN_NONE && s->players[a->player].ncards)
		score += 2 + s->players[a->player].ncards;
	return score;
}

/* Could p afford `cost` with hand h? */
static bool covers(const uint8_t *h, const uint8_t *cost)
{
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		if (h[r] < cost[r])
			return false;
	return true;
}

/* Higher is better; < 0 means "only if nothing else". */
static int greedy_score(const catan_board *b, const catan_state *s, int p,
			const catan_action *a)
{
	const catan_player *pl = &s->players[p];
	switch (a->kind) {
	case CATAN_ACT_SETUP: {
		int v = a->vertex, score = 10 * vertex_pips(b, v);
		bool seen[CATAN_RES_COUNT + 1] = {false};
		for (int i = 0; i < 3; i++) {
			int t = b->vertex_tiles[v][i];
			if (t == CATAN_NONE)
				continue;
			int r = b->tile_terrain[t];
			if (r < CATAN_RES_COUNT && !seen[r])
				score += 8; /* variety */
			seen[r] = true;
		}
		if (b->vertex_harbour[v] != CATAN_NONE)
			score += 5;
		/* Road toward the freer neighbour. */
		int far = b->edge_vertices[a->edge][0] == v
				  ? b->edge_vertices[a->edge][1]
				  : b->edge_vertices[a->edge][0];
		score += vertex_pips(b, far) / 2;
		return score;
	}
	case CATAN_ACT_ROLL:
		return 10;
	case CATAN_ACT_DISCARD: {
		int score = 0;
		for (int r = 0; r < CATAN_RES_COUNT; r++) {
			int keep = pl->hand[r] - a->give[r];
			score -= keep * keep;
		}
		return score;
	}
	case CATAN_ACT_ROBBER:
		return robber_score(b, s, p, a);
	case CATAN_ACT_BUILD_CITY:
		return 1000 + vertex_pips(b, a->vertex);
	case CATAN_ACT_BUILD_SETTLEMENT:
		return 900 + 10 * vertex_pips(b, a->vertex);
	case CATAN_ACT_BUY_DEV:
		return 300;
	case CATAN_ACT_BUILD_ROAD: {
		int score = 100;
		for (int i = 0; i < 2; i++) {
			int v = b->edge_vertices[a->edge][i];
			if (!catan_vset_has(&s->blocked, v) &&
			    !catan_vset_has(&pl->reach, v))
				score += 50 + vertex_pips(b, v);
		}
		/* Save bricks and lumber for a settlement when one fits. */
		if (pl->settlements_left &&
		    catan_vset_count(&pl->reach) >
			    catan_vset_count_and(&pl->reach, &s->blocked))
			score -= 150;
		return score;
	}
	case CATAN_ACT_PLAY_KNIGHT:
		return 200 + robber_score(b, s, p, a);
	case CATAN_ACT_PLAY_ROAD_BUILDING:
		return 400 + a->edge2 % 7;
	case CATAN_ACT_PLAY_YEAR_OF_PLENTY:
		return 500 - 10 * (pl->hand[a->res] +
				   (a->res2 != CATAN_NONE ? pl->hand[a->res2]
							  : 0));
	case CATAN_ACT_PLAY_MONOPOLY: {
		int k = 0;
		for (int o = 0; o < s->opt.nplayers; o++)
			if (o != p)
				k += s->players[o].hand[a->res];
		return k >= 3 ? 450 + 10 * k : -5;
	}
	case CATAN_ACT_TRADE_BANK: {
		uint8_t h[CATAN_RES_COUNT];
		memcpy(h, pl->hand, sizeof h);
		h[a->res] -= a->count;
		h[a->res2]++;
		static const uint8_t *const goals[3] = {
			catan_cost_city, catan_cost_settlement, catan_cost_dev};
		for (int g = 0; g < 3; g++)
			if (covers(h, goals[g]) && !covers(pl->hand, goals[g]))
				return 600 - 100 * g - a->count;
		return -10;
	}
	case CATAN_ACT_TRADE_ACCEPT: {
		int give = sum5(s->offer_get), get = sum5(s->offer_give);
		return get > give ? 50 : -20;
	}
	case CATAN_ACT_TRADE_REJECT:
		return 0;
	case CATAN_ACT_END_TRADE:
	case CATAN_ACT_END:
		return 0;
	default:
		return -100; /* the greedy bot makes no domestic offers */
	}
}

int catan_bot_choose(catan_action *out, int kind, const catan_board *board,
		     const catan_state *s, int actor, catan_rng *rng,
		     unsigned flags)
{
	catan_action buf[CATAN_BOT_BUF];
	/*
	 * The random bot discards uniformly random cards, as catanatron's
	 * RandomPlayer does, instead of drawing one of the (possibly
	 * thousands of) discard actions.
	 */
	if (kind == CATAN_BOT_RANDOM && s->phase == CATAN_PHASE_DISCARD &&
	    s->discard[actor]) {
		random_discard(out, &s->players[actor], s->discard[actor], rng);
		return CATAN_OK;
	}
	if (kind == CATAN_BOT_GREEDY)
		flags |= CATAN_LEGAL_NO_OFFERS;
	int n = catan_legal_actions(buf, CATAN_BOT_BUF, board, s, actor, flags);
	if (n == 0)
		return CATAN_E_NOT_YOUR_TURN;
	if (n > CATAN_BOT_BUF) {
		if (s->phase == CATAN_PHASE_DISCARD) {
			random_discard(out, &s->players[actor],
				       s->discard[actor], rng);
			return CATAN_OK;
		}
		n = CATAN_BOT_BUF; /* cannot happen outside discards */
	}
	if (kind != CATAN_BOT_GREEDY) {
		*out = buf[catan_rng_below(rng, (uint32_t)n)];
		return CATAN_OK;
	}
	int best = 0, best_score = 0, ties = 0;
	for (int i = 0; i < n; i++) {
		int sc = greedy_score(board, s, actor, &buf[i]);
		if (i == 0 || sc > best_score) {
			best = i;
			best_score = sc;
			ties = 1;
		} else if (sc == best_score &&
			   catan_rng_below(rng, (uint32_t)++ties) == 0) {
			best = i; /* reservoir choice among equals */
		}
	}
	*out = buf[best];
	return CATAN_OK;
}
