/*
 * example.c - an example C agent for catan-git (spec/agents.md): set-up on
 * the corners with the most pips, then cities, settlements, roads and
 * development cards as the hand allows, knights as soon as they may be
 * played, maritime trades toward what it lacks, discards from its largest
 * piles, the robber on an opponent.
 *
 *     catan -C DIR peer --agent build/catan-agent-example
 */
#include <string.h>

#include "catan_client.h"

/* Wire order: brick, grain, lumber, ore, wool. */
static const uint8_t cost[4][5] = {
    {1, 0, 1, 0, 0}, /* road */
    {1, 1, 1, 0, 1}, /* settlement */
    {0, 2, 0, 3, 0}, /* city */
    {0, 1, 0, 1, 1}, /* development card */
};

typedef struct seen {
	int owner[CC_MAX_VERTICES]; /* -1, or player */
	int kind[CC_MAX_VERTICES];
	int road[CC_MAX_EDGES]; /* -1, or player */
} seen;

static void read_view(seen *w, const catan_client *c, const catan_msg_view *v)
{
	for (int i = 0; i < CC_MAX_VERTICES; i++)
		w->owner[i] = -1;
	for (int i = 0; i < CC_MAX_EDGES; i++)
		w->road[i] = -1;
	for (int i = 0; i < v->nbuildings; i++) {
		int x = cc_vertex(c, v->buildings[i].pos);
		if (x >= 0) {
			w->owner[x] = v->buildings[i].owner;
			w->kind[x] = v->buildings[i].kind;
		}
	}
	for (int i = 0; i < v->nroads; i++) {
		int e = cc_edge(c, v->roads[i].pos);
		if (e >= 0)
			w->road[e] = v->roads[i].owner;
	}
}

static bool covers(const uint8_t *hand, const uint8_t *need)
{
	for (int k = 0; k < 5; k++)
		if (hand[k] < need[k])
			return false;
	return true;
}

static bool free_vertex(const seen *w, const catan_client *c, int x)
{
	if (w->owner[x] >= 0)
		return false;
	for (int e = 0; e < c->nedges; e++)
		for (int j = 0; j < 2; j++)
			if (c->edge_end[e][j] == x &&
			    w->owner[c->edge_end[e][1 - j]] >= 0)
				return false;
	return true;
}

/* Does my road touch x? */
static bool my_road_at(const seen *w, const catan_client *c, int x, int me)
{
	for (int e = 0; e < c->nedges; e++)
		if (w->road[e] == me &&
		    (c->edge_end[e][0] == x || c->edge_end[e][1] == x))
			return true;
	return false;
}

/* A free edge I may build a road on, or -1. */
static int road_spot(const seen *w, const catan_client *c, int me)
{
	for (int e = 0; e < c->nedges; e++) {
		if (w->road[e] >= 0)
			continue;
		for (int j = 0; j < 2; j++) {
			int x = c->edge_end[e][j];
			if (w->owner[x] == me ||
			    (w->owner[x] < 0 && my_road_at(w, c, x, me)))
				return e;
		}
	}
	return -1;
}

static void robber(const seen *w, const catan_client *c,
		   const catan_msg_view *v, catan_wpos *tile, uint8_t *target)
{
	int best = -100;
	*target = CATAN_WIRE_NOBODY;
	for (int t = 0; t < c->ntiles; t++) {
		if (c->tile[t].q == v->robber.q && c->tile[t].r == v->robber.r)
			continue;
		catan_wpos cs[6];
		cc_tile_corners(c->tile[t].q, c->tile[t].r, cs);
		int score = 0, victim = -1;
		bool mine = false;
		for (int k = 0; k < 6; k++) {
			int x = cc_vertex(c, cs[k]);
			if (x < 0 || w->owner[x] < 0)
				continue;
			if (w->owner[x] == c->me)
				mine = true;
			else {
				score += w->kind[x];
				if (victim < 0 ||
				    v->players[w->owner[x]].cards >
					v->players[victim].cards)
					victim = w->owner[x];
			}
		}
		if (mine)
			score = victim >= 0 ? -1 : -2;
		if (score > best) {
			best = score;
			*tile = c->tile[t];
			*target =
			    victim >= 0 ? (uint8_t)victim : CATAN_WIRE_NOBODY;
		}
	}
}

/* Plays a knight if one is playable (the largest army is worth 2). */
static bool knight(const seen *w, const catan_client *c,
		   const catan_msg_view *v, catan_msg *out)
{
	if (v->dev_played ||
	    v->devs[CATAN_DEV_KNIGHT] <= v->bought[CATAN_DEV_KNIGHT])
		return false;
	out->type = CATAN_MSG_PLAY;
	out->u.play.player_id = (uint8_t)c->me;
	out->u.play.card = CATAN_DEV_KNIGHT;
	robber(w, c, v, &out->u.play.tile, &out->u.play.target);
	return true;
}

static int move(void *ctx, const catan_client *c, const catan_msg_view *v,
		catan_msg *out)
{
	static seen w;
	int me = c->me;
	(void)ctx;
	read_view(&w, c, v);
	memset(out, 0, sizeof *out);
	switch (v->phase) {
	case CATAN_PHASE_SETUP: {
		int best = -1;
		for (int x = 0; x < c->nvertices; x++)
			if (free_vertex(&w, c, x) &&
			    (best < 0 || c->pips[x] > c->pips[best]))
				best = x;
		for (int e = 0; e < c->nedges && best >= 0; e++)
			if (w.road[e] < 0 && (c->edge_end[e][0] == best ||
					      c->edge_end[e][1] == best)) {
				out->type = CATAN_MSG_PLACE;
				out->u.place.house = c->vertex[best];
				out->u.place.road = c->edge[e];
				return 0;
			}
		return -1;
	}
	case CATAN_PHASE_DISCARD: {
		uint8_t hand[5];
		memcpy(hand, v->hand, 5);
		out->type = CATAN_MSG_DISCARD;
		for (int n = v->players[me].discard; n > 0; n--) {
			int k = 0;
			for (int j = 1; j < 5; j++)
				if (hand[j] > hand[k])
					k = j;
			hand[k]--;
			out->u.discard.cards[k]++;
		}
		return 0;
	}
	case CATAN_PHASE_ROBBER:
		out->type = CATAN_MSG_ROB;
		robber(&w, c, v, &out->u.rob.tile, &out->u.rob.target_id);
		return 0;
	case CATAN_PHASE_OFFER:
		out->type = CATAN_MSG_TRADE_REJECT;
		out->u.answer.player_id = v->offer_from;
		out->u.answer.target_id = (uint8_t)me;
		return 0;
	case CATAN_PHASE_ROLL:
		if (knight(&w, c, v, out))
			return 0;
		out->type = CATAN_MSG_ROLL;
		return 0;
	case CATAN_PHASE_TRADE:
		out->type = CATAN_MSG_PASS;
		return 0;
	default:
		break;
	}
	/* Main, classic build, special building phase. */
	if (v->phase != CATAN_PHASE_SPECIAL && knight(&w, c, v, out))
		return 0;
	out->type = CATAN_MSG_BUILD;
	out->u.build.player_id = (uint8_t)me;
	if (covers(v->hand, cost[2]) && v->players[me].cities_left) {
		int best = -1;
		for (int x = 0; x < c->nvertices; x++)
			if (w.owner[x] == me &&
			    w.kind[x] == CATAN_WIRE_SETTLEMENT &&
			    (best < 0 || c->pips[x] > c->pips[best]))
				best = x;
		if (best >= 0) {
			out->u.build.type = CATAN_WIRE_CITY;
			out->u.build.pos = c->vertex[best];
			return 0;
		}
	}
	int spot = -1;
	for (int x = 0; x < c->nvertices; x++)
		if (free_vertex(&w, c, x) && my_road_at(&w, c, x, me) &&
		    (spot < 0 || c->pips[x] > c->pips[spot]))
			spot = x;
	if (spot >= 0 && covers(v->hand, cost[1]) &&
	    v->players[me].settlements_left) {
		out->u.build.type = CATAN_WIRE_SETTLEMENT;
		out->u.build.pos = c->vertex[spot];
		return 0;
	}
	int e = road_spot(&w, c, me);
	if (e >= 0 && covers(v->hand, cost[0]) && v->players[me].roads_left &&
	    (spot < 0 || v->players[me].roads_left > 10)) {
		out->u.build.type = CATAN_WIRE_ROAD;
		out->u.build.pos = c->edge[e];
		return 0;
	}
	if (covers(v->hand, cost[3]) && v->deck) {
		out->u.build.type = CATAN_WIRE_DEVCARD;
		return 0;
	}
	if (v->phase == CATAN_PHASE_MAIN) {
		/* A maritime trade: 4 (or the harbour rate) of a surplus
		 * for one card missing toward a city. */
		unsigned h = v->players[me].harbours;
		for (int k = 0; k < 5; k++) {
			int rate = h >> (k + 1) & 1 ? 2 : h & 1 ? 3 : 4;
			if (v->hand[k] < rate + cost[2][k])
				continue;
			for (int j = 0; j < 5; j++)
				if (j != k && v->hand[j] < cost[2][j] &&
				    v->bank[j]) {
					out->type = CATAN_MSG_TRADE;
					out->u.trade.player_id = (uint8_t)me;
					out->u.trade.target_id =
					    CATAN_WIRE_BANK;
					out->u.trade.offer_res =
					    (uint8_t)(k + 1);
					out->u.trade.offer_count =
					    (uint8_t)rate;
					out->u.trade.ask_res = (uint8_t)(j + 1);
					out->u.trade.ask_count = 1;
					return 0;
				}
		}
	}
	memset(out, 0, sizeof *out);
	out->type = CATAN_MSG_PASS;
	return 0;
}

int main(void)
{
	return catan_client_run(move, NULL);
}
