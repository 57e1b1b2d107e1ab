/*
 * bot.c - the random bot (research baseline), the greedy bot (a table
 * opponent for humans), bot names and configs, and the entry points that
 * hand each bot the view of its seat. The value and search bots are in
 * botvalue.c and mcts.c. Every bot chooses among catan_legal_actions() of
 * its view, so it can never make an illegal move.
 */
#include "catan/bot.h"

#include <string.h>

#include "bot_internal.h"
#include "rules_internal.h"

static const char *const kind_names[CATAN_BOT_COUNT] = {"random", "greedy",
							"value", "mcts"};

const char *catan_bot_kind_name(int kind)
{
	return kind >= 0 && kind < CATAN_BOT_COUNT ? kind_names[kind] : "?";
}

int catan_bot_kind_parse(const char *name, size_t n)
{
	/* By hand: the core calls no libc beyond mem*. */
	for (int k = 0; k < CATAN_BOT_COUNT; k++) {
		const char *w = kind_names[k];
		size_t i = 0;
		while (i < n && w[i] && w[i] == name[i])
			i++;
		if (i == n && !w[i])
			return k;
	}
	return -1;
}

void catan_bot_config_default(catan_bot_config *out, int kind)
{
	memset(out, 0, sizeof *out);
	out->kind = kind;
	out->playouts = 400;
	out->trade = true;
}

/*
 * Discard `owed` uniformly random cards, one at a time. Returns CATAN_OK
 * (so that the random bot's call of it is a jump, without a frame).
 */
static int random_discard(catan_action *out, const catan_player *pl, int owed,
			  catan_rng *rng)
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
	return CATAN_OK;
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
		/* Others' victory-point cards are hidden: public VP. */
		int vp =
		    o == p ? catan_state_vp(s, o) : s->players[o].public_vp;
		score += (o == p ? -3 : 1) * k * pips * (1 + vp);
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
		return 500 -
		       10 * (pl->hand[a->res] +
			     (a->res2 != CATAN_NONE ? pl->hand[a->res2] : 0));
	case CATAN_ACT_PLAY_MONOPOLY: {
		/* What the others hold in all is public: total - bank - own. */
		uint8_t unseen[CATAN_RES_COUNT];
		catan_seat_view_unseen(unseen, s, p);
		int k = unseen[a->res];
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

/*
 * The random bot's choice on state `s` for `actor`. It reads the legal
 * actions and the actor's own hand only, which no hidden card changes
 * (test_seatview checks it chooses alike on the full state and on any
 * dealing of the hidden cards), so catan_bot_choose() runs it on the
 * full state and spares the benchmarks the view.
 */
static inline int random_choose(catan_action *out, const catan_board *board,
				const catan_state *s, int actor, catan_rng *rng,
				unsigned flags)
{
	/*
	 * The random bot discards uniformly random cards, as catanatron's
	 * RandomPlayer does, instead of drawing one of the (possibly
	 * thousands of) discard actions.
	 */
	if (s->phase == CATAN_PHASE_DISCARD && s->discard[actor])
		return random_discard(out, &s->players[actor],
				      s->discard[actor], rng);
	return catan_legal_draw(out, board, s, actor, flags, rng);
}

int catan_bot_greedy(catan_action *out, const catan_board *board,
		     const catan_state *s, int actor, catan_rng *rng,
		     unsigned flags)
{
	catan_action buf[CATAN_BOT_BUF];
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

/*
 * Fair dice: revealing is no choice, and neither is the completion: the
 * request again, without its outcome, which the store takes from the
 * reveals.
 */
static int fair_duty(catan_action *out, const catan_state *s, int actor)
{
	if (!catan_state_may_act(s, actor))
		return CATAN_E_NOT_YOUR_TURN;
	if ((s->reveal_wait >> actor) & 1) {
		catan_action_init(out, CATAN_ACT_REVEAL);
		return CATAN_OK;
	}
	catan_action_init(out, s->req_kind);
	if (s->req_kind == CATAN_ACT_ROBBER ||
	    s->req_kind == CATAN_ACT_PLAY_KNIGHT) {
		out->tile = s->req_tile;
		out->player = s->req_player;
	}
	return CATAN_OK;
}

int catan_bot_choose_view(catan_action *out, const catan_bot_config *cfg,
			  const catan_board *board, const catan_seat_view *v,
			  catan_rng *rng, unsigned flags)
{
	const catan_state *s = &v->s;
	int actor = v->seat;
	if (!catan_state_may_act(s, actor))
		return CATAN_E_NOT_YOUR_TURN;
	if (s->phase == CATAN_PHASE_REVEAL)
		return fair_duty(out, s, actor);
	if (s->opt.dice == CATAN_DICE_MANUAL ||
	    s->opt.dice == CATAN_DICE_FAIR) {
		/*
		 * Manual dice: the legal actions state the card drawn and the
		 * card stolen, which the view cannot know. Choose as in
		 * seeded mode; catan_bot_resolve_manual() states them. Fair
		 * dice: the actions are requests, as in seeded mode.
		 */
		catan_seat_view m = *v;
		m.s.opt.dice = CATAN_DICE_SEEDED;
		return catan_bot_choose_view(out, cfg, board, &m, rng, flags);
	}
	switch (cfg->kind) {
	case CATAN_BOT_RANDOM:
		return random_choose(out, board, s, actor, rng, flags);
	case CATAN_BOT_VALUE:
		return catan_bot_value_choose(out, cfg, board, v, rng, flags);
	case CATAN_BOT_MCTS:
		return catan_bot_mcts_choose(out, cfg, board, v, rng, flags);
	default:
		return catan_bot_greedy(out, board, s, actor, rng, flags);
	}
}

/* A card drawn from counts[0..n-1] with weights, or CATAN_NONE. */
static int draw_weighted(const uint8_t *counts, int n, catan_rng *rng)
{
	int total = 0;
	for (int i = 0; i < n; i++)
		total += counts[i];
	if (!total)
		return CATAN_NONE;
	int k = (int)catan_rng_below(rng, (uint32_t)total);
	for (int i = 0; i < n; i++) {
		if (k < counts[i])
			return i;
		k -= counts[i];
	}
	return CATAN_NONE;
}

void catan_bot_resolve_manual(catan_action *a, const catan_state *s,
			      catan_rng *rng)
{
	if (s->opt.dice != CATAN_DICE_MANUAL)
		return;
	if (a->kind == CATAN_ACT_ROLL && !a->dice[0]) {
		a->dice[0] = (uint8_t)(1 + catan_rng_below(rng, 6));
		a->dice[1] = (uint8_t)(1 + catan_rng_below(rng, 6));
	}
	if (a->kind == CATAN_ACT_BUY_DEV && a->dev == CATAN_NONE) {
		int d = draw_weighted(s->deck, CATAN_DEV_COUNT, rng);
		a->dev = (uint8_t)d;
	}
	if ((a->kind == CATAN_ACT_ROBBER || a->kind == CATAN_ACT_PLAY_KNIGHT) &&
	    a->res == CATAN_NONE && a->player < s->opt.nplayers) {
		int r = draw_weighted(s->players[a->player].hand,
				      CATAN_RES_COUNT, rng);
		a->res = (uint8_t)r; /* NONE when the victim has no card */
	}
}

/*
 * The bots that read a seat view. Not inlined into catan_bot_choose(), so
 * the random bot's calls do not pay for the view's stack frame.
 */
static __attribute__((noinline)) int
choose_with_view(catan_action *out, int kind, const catan_board *board,
		 const catan_state *s, int actor, catan_rng *rng,
		 unsigned flags)
{
	if (!catan_state_may_act(s, actor))
		return CATAN_E_NOT_YOUR_TURN;
	catan_bot_config cfg;
	catan_seat_view v;
	catan_bot_config_default(&cfg, kind);
	catan_seat_view_make(&v, s, actor);
	int rc = catan_bot_choose_view(out, &cfg, board, &v, rng, flags);
	if (rc == CATAN_OK)
		catan_bot_resolve_manual(out, s, rng);
	return rc;
}

int catan_bot_choose(catan_action *out, int kind, const catan_board *board,
		     const catan_state *s, int actor, catan_rng *rng,
		     unsigned flags)
{
	if (actor < 0 || actor >= s->opt.nplayers)
		return CATAN_E_NOT_YOUR_TURN;
	if (s->phase == CATAN_PHASE_REVEAL)
		return fair_duty(out, s, actor);
	if (kind == CATAN_BOT_RANDOM) /* see random_choose() */
		return random_choose(out, board, s, actor, rng, flags);
	return choose_with_view(out, kind, board, s, actor, rng, flags);
}
