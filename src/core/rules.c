/*
 * rules.c - the state machine: game start, apply, victory, trophies.
 *
 * Every do_* function follows one pattern: read `in` and reject with a code
 * if anything is wrong, then begin() (copy in to out when they differ) and
 * write the effect to `out`. Nothing is written before the last check, so a
 * rejected action leaves `out` as it was. The official 5th edition rules are
 * followed (spec/actions.md names the choices where the rulebook is loose).
 */
#include "catan/state.h"

#include <string.h>

#include "rules_internal.h"

const uint8_t catan_cost_road[CATAN_RES_COUNT] = {1, 1, 0, 0, 0};
const uint8_t catan_cost_settlement[CATAN_RES_COUNT] = {1, 1, 1, 1, 0};
const uint8_t catan_cost_city[CATAN_RES_COUNT] = {0, 0, 0, 2, 3};
const uint8_t catan_cost_dev[CATAN_RES_COUNT] = {0, 0, 1, 1, 1};

void catan_options_default(catan_options *out)
{
	memset(out, 0, sizeof *out);
	out->nplayers = 4;
	out->vp_target = 10;
	out->phases = CATAN_PHASES_COMBINED;
	out->dice = CATAN_DICE_SEEDED;
	out->offer_limit = 0;
	out->seed = 0;
}

static int setup_player(int step, int n)
{
	return step < n ? step : 2 * n - 1 - step;
}

/*
 * The seat after p in turn order that was not expelled (p itself when
 * every other seat was: the game is over then).
 */
static int next_seat(const catan_state *s, int p)
{
	int n = s->opt.nplayers;
	for (int k = 1; k < n; k++) {
		int q = (p + k) % n;
		if (!catan_state_out(s, q))
			return q;
	}
	return p;
}

int catan_state_init(catan_state *out, const catan_board *board,
		     const catan_options *opt)
{
	if (opt->nplayers < CATAN_MIN_PLAYERS ||
	    opt->nplayers > CATAN_MAX_PLAYERS || opt->vp_target < 3 ||
	    opt->vp_target > 20 || opt->phases > CATAN_PHASES_CLASSIC ||
	    opt->dice > CATAN_DICE_FAIR || opt->special_build > 1 ||
	    (opt->special_build && opt->nplayers <= CATAN_MAX_PLAYERS_BASE) ||
	    board->ntiles == 0)
		return CATAN_E_BAD_OPTION;
	memset(out, 0, sizeof *out);
	out->opt = *opt;
	catan_rng_seed(&out->rng, opt->seed);
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		out->bank[r] = (uint8_t)catan_res_total(opt->nplayers);
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		out->deck[d] = (uint8_t)catan_dev_start(opt->nplayers, d);
	out->builder = CATAN_NONE;
	out->phase = CATAN_PHASE_SETUP;
	out->resume = CATAN_PHASE_SETUP;
	out->active = 0;
	out->robber = board->robber_start;
	out->longest_road = CATAN_NONE;
	out->largest_army = CATAN_NONE;
	out->winner = CATAN_NONE;
	out->offer_from = CATAN_NONE;
	out->offer_to = CATAN_NONE;
	out->requester = CATAN_NONE;
	for (int p = 0; p < opt->nplayers; p++) {
		out->players[p].roads_left = CATAN_ROADS;
		out->players[p].settlements_left = CATAN_SETTLEMENTS;
		out->players[p].cities_left = CATAN_CITIES;
	}
	return CATAN_OK;
}

bool catan_state_may_act(const catan_state *s, int actor)
{
	return actor >= 0 && actor < s->opt.nplayers && may_act(s, actor);
}

int catan_state_next_actor(const catan_state *s)
{
	/* The active player's phases first, without the jump table (as
	 * may_act() does): nearly every call is one of them. */
	if ((1u << (s->phase & 31)) &
	    (1u << CATAN_PHASE_SETUP | 1u << CATAN_PHASE_ROLL |
	     1u << CATAN_PHASE_ROBBER | 1u << CATAN_PHASE_MAIN |
	     1u << CATAN_PHASE_TRADE | 1u << CATAN_PHASE_BUILD))
		return s->active;
	switch (s->phase) {
	case CATAN_PHASE_OVER:
		return CATAN_NONE;
	case CATAN_PHASE_DISCARD:
		for (int p = 0; p < s->opt.nplayers; p++)
			if (s->discard[p])
				return p;
		return s->active; /* unreachable in a valid state */
	case CATAN_PHASE_OFFER:
		return s->offer_to;
	case CATAN_PHASE_SPECIAL:
		return s->builder;
	case CATAN_PHASE_REVEAL:
		return s->reveal_wait ? __builtin_ctz(s->reveal_wait)
				      : s->requester;
	default:
		return s->active;
	}
}

int catan_state_vp(const catan_state *s, int p)
{
	return s->players[p].public_vp +
	       s->players[p].devs[CATAN_DEV_VICTORY_POINT];
}

/* ---- shared helpers (rules_internal.h) ---- */

void catan_road_spots(catan_eset *out, const catan_board *b,
		      const catan_state *s, int p, const catan_vset *reach,
		      const catan_eset *all)
{
	const catan_player *pl = &s->players[p];
	uint64_t src[CATAN_VWORDS];
	for (int k = 0; k < CATAN_VWORDS; k++) {
		src[k] = pl->settlements.w[k] | pl->cities.w[k] |
			 (reach->w[k] & ~s->occupied.w[k]);
	}
	memset(out, 0, sizeof *out);
	CATAN_FOR_BITS(v, src, CATAN_VWORDS)
	{
		for (int k = 0; k < CATAN_EWORDS; k++)
			out->w[k] |= b->vertex_emask[v].w[k];
	}
	for (int k = 0; k < CATAN_EWORDS; k++)
		out->w[k] &= ~all->w[k];
}

void catan_robber_victims_all(uint8_t *out, const catan_board *b,
			      const catan_state *s, int p)
{
	memset(out, 0, b->ntiles);
	for (int o = 0; o < s->opt.nplayers; o++) {
		const catan_player *pl = &s->players[o];
		if (o == p)
			continue;
		uint64_t own[CATAN_VWORDS];
		for (int k = 0; k < CATAN_VWORDS; k++)
			own[k] = pl->settlements.w[k] | pl->cities.w[k];
		uint64_t on = 0;
		CATAN_FOR_BITS(v, own, CATAN_VWORDS)
		{
			on |= b->vertex_tmask[v];
		}
		for (; on; on &= on - 1)
			out[__builtin_ctzll(on)] |= (uint8_t)(1u << o);
	}
}

unsigned catan_robber_victims(const catan_board *b, const catan_state *s,
			      int p, int t)
{
	unsigned m = 0;
	const catan_vset *tv = &b->tile_vmask[t];
	for (int o = 0; o < s->opt.nplayers; o++) {
		const catan_player *pl = &s->players[o];
		if (o == p)
			continue;
		if (catan_vset_intersects(tv, &pl->settlements) ||
		    catan_vset_intersects(tv, &pl->cities))
			m |= 1u << o;
	}
	return m;
}

/* ---- longest road ---- */

/*
 * The longest trail (each road once, vertices may repeat) through player
 * p's roads; a trail may end at, but not pass through, a vertex holding an
 * opponent's building.
 *
 * The roads are first copied into a small local graph (at most 15 roads)
 * in which a vertex holding an opponent's building is split into one end
 * per road, so no trail can pass through it. Almost every network is then a
 * forest, whose longest trail is the longest path: the diameter, found by
 * two breadth-first searches. A bare cycle is one closed trail through all
 * its roads. Any other component with a cycle is contracted (each chain of
 * plain degree-2 vertices becomes one weighted edge between two ends or
 * forks) and searched exhaustively: a handful of edges at most.
 */
#define TRAIL_MAXV (2 * CATAN_ROADS)

typedef struct trail_graph {
	int nv;
	uint8_t deg[TRAIL_MAXV];
	uint8_t edge[TRAIL_MAXV][3];  /* local road ids */
	uint8_t other[TRAIL_MAXV][3]; /* vertex across that road */
	int best;
} trail_graph;

/*
 * Exhaustive search over a contracted graph: every chain of degree-2
 * vertices between two branch vertices (ends and forks) is one weighted
 * edge, since a longest trail always uses a chain whole (a trail that
 * stops inside a chain can be extended along it). `weight[k]` is the
 * number of roads of contracted edge k.
 */
static void trail_weighted(trail_graph *h, const uint8_t *weight, int v,
			   unsigned used, int len)
{
	if (len > h->best)
		h->best = len;
	for (int i = 0; i < h->deg[v]; i++) {
		unsigned bit = 1u << h->edge[v][i];
		if (!(used & bit))
			trail_weighted(h, weight, h->other[v][i], used | bit,
				       len + weight[h->edge[v][i]]);
	}
}

/* Longest trail of component `id` of g, which has a cycle and a branch. */
static int trail_cyclic(const trail_graph *g, const uint8_t *comp, int id)
{
	trail_graph h;
	uint8_t weight[CATAN_ROADS];
	unsigned seen = 0;
	int n = 0;
	h.nv = g->nv;
	h.best = 0;
	memset(h.deg, 0, sizeof h.deg);
	for (int u = 0; u < g->nv; u++) {
		if (comp[u] != id || g->deg[u] == 2)
			continue;
		for (int i = 0; i < g->deg[u]; i++) {
			int road = g->edge[u][i], x = g->other[u][i], len = 1;
			if (seen & (1u << road))
				continue;
			seen |= 1u << road;
			while (g->deg[x] == 2) { /* walk the chain */
				int j = g->edge[x][0] == road ? 1 : 0;
				road = g->edge[x][j];
				seen |= 1u << road;
				len++;
				x = g->other[x][j];
			}
			weight[n] = (uint8_t)len;
			h.edge[u][h.deg[u]] = (uint8_t)n;
			h.other[u][h.deg[u]++] = (uint8_t)x;
			h.edge[x][h.deg[x]] = (uint8_t)n;
			h.other[x][h.deg[x]++] = (uint8_t)u;
			n++;
		}
	}
	for (int u = 0; u < g->nv; u++)
		if (h.deg[u])
			trail_weighted(&h, weight, u, 0, 0);
	return h.best;
}

/* Local id of board vertex v (a fresh one per road at a cut vertex). */
static int trail_vertex(trail_graph *g, uint8_t *local, int v, bool cut)
{
	if (cut || local[v] == CATAN_NONE) {
		if (!cut)
			local[v] = (uint8_t)g->nv;
		g->deg[g->nv] = 0;
		return g->nv++;
	}
	return local[v];
}

/*
 * Breadth-first distances (in roads) from `from` within its component;
 * returns the farthest vertex and its distance in *far_dist.
 */
static int trail_farthest(const trail_graph *g, int from, int *far_dist)
{
	uint8_t dist[TRAIL_MAXV], queue[TRAIL_MAXV];
	int head = 0, tail = 0, far = from;
	memset(dist, CATAN_NONE, (size_t)g->nv);
	dist[from] = 0;
	queue[tail++] = (uint8_t)from;
	while (head < tail) {
		int u = queue[head++];
		if (dist[u] > dist[far])
			far = u;
		for (int i = 0; i < g->deg[u]; i++) {
			int w = g->other[u][i];
			if (dist[w] == CATAN_NONE) {
				dist[w] = (uint8_t)(dist[u] + 1);
				queue[tail++] = (uint8_t)w;
			}
		}
	}
	*far_dist = dist[far];
	return far;
}

int catan_state_road_length(const catan_board *board, const catan_state *s,
			    int p)
{
	const catan_player *pl = &s->players[p];
	trail_graph g;
	uint8_t local[CATAN_MAX_VERTICES];
	catan_vset cut;
	int nroads = 0;
	for (int k = 0; k < CATAN_VWORDS; k++)
		cut.w[k] = s->occupied.w[k] &
			   ~(pl->settlements.w[k] | pl->cities.w[k]);
	memset(local, CATAN_NONE, board->nvertices);
	g.nv = 0;
	CATAN_FOR_BITS(e, pl->roads.w, CATAN_EWORDS)
	{
		if (nroads == CATAN_ROADS)
			break; /* cannot happen: 15 road pieces */
		int va = board->edge_vertices[e][0],
		    vb = board->edge_vertices[e][1];
		int a = trail_vertex(&g, local, va, catan_vset_has(&cut, va));
		int b = trail_vertex(&g, local, vb, catan_vset_has(&cut, vb));
		g.edge[a][g.deg[a]] = (uint8_t)nroads;
		g.other[a][g.deg[a]++] = (uint8_t)b;
		g.edge[b][g.deg[b]] = (uint8_t)nroads;
		g.other[b][g.deg[b]++] = (uint8_t)a;
		nroads++;
	}
	if (nroads <= 1)
		return nroads;

	uint8_t comp[TRAIL_MAXV], stack[TRAIL_MAXV];
	memset(comp, CATAN_NONE, sizeof comp);
	g.best = 0;
	for (int v = 0, id = 0; v < g.nv; v++) {
		if (comp[v] != CATAN_NONE)
			continue;
		id++;
		/* Label v's component; count its vertices, road ends and
		 * branch vertices (ends and forks: degree 1 or 3). */
		int top = 0, nverts = 0, ends = 0, branches = 0;
		comp[v] = (uint8_t)id;
		stack[top++] = (uint8_t)v;
		while (top) {
			int u = stack[--top];
			nverts++;
			ends += g.deg[u];
			branches += g.deg[u] != 2;
			for (int i = 0; i < g.deg[u]; i++) {
				int w = g.other[u][i];
				if (comp[w] == CATAN_NONE) {
					comp[w] = (uint8_t)id;
					stack[top++] = (uint8_t)w;
				}
			}
		}
		if (ends / 2 == nverts - 1) {
			/* A tree: the longest trail is its diameter. */
			int d;
			trail_farthest(&g, trail_farthest(&g, v, &d), &d);
			if (d > g.best)
				g.best = d;
			continue;
		}
		/*
		 * A bare cycle is one closed trail through every road, and so
		 * is any component with two branch vertices (a cycle with a
		 * tail, two forks joined three ways): every vertex but two has
		 * even degree, so one trail takes every road (Euler). Others
		 * are searched.
		 */
		int d = branches > 2 ? trail_cyclic(&g, comp, id) : ends / 2;
		if (d > g.best)
			g.best = d;
	}
	return g.best;
}

/*
 * Re-awards the longest road after lengths changed. The holder keeps it
 * while it has >= 5 and nobody is longer; otherwise it goes to the unique
 * longest player with >= 5, or is set aside when the longest are tied.
 */
static void award_longest(catan_state *s)
{
	int n = s->opt.nplayers, h = s->longest_road, max = 0, count = 0,
	    who = CATAN_NONE;
	unsigned out = s->out;
	for (int p = 0; p < n; p++) {
		int l = s->players[p].road_length;
		/* An expelled seat's roads stay, but they win nothing. */
		if (__builtin_expect(out, 0) && (out >> p) & 1)
			l = 0;
		if (l > max) {
			max = l;
			count = 1;
			who = p;
		} else if (l == max) {
			count++;
		}
	}
	int next = CATAN_NONE;
	if (h != CATAN_NONE && s->players[h].road_length >= 5 &&
	    s->players[h].road_length >= max)
		next = h;
	else if (max >= 5 && count == 1)
		next = who;
	if (next == h)
		return;
	if (h != CATAN_NONE)
		s->players[h].public_vp -= 2;
	if (next != CATAN_NONE)
		s->players[next].public_vp += 2;
	s->longest_road = (uint8_t)next;
}

/* Recomputes road lengths of the players in `mask`, then re-awards. */
static void update_roads(const catan_board *b, catan_state *s, unsigned mask)
{
	for (int p = 0; p < s->opt.nplayers; p++)
		if (mask & (1u << p))
			s->players[p].road_length =
				(uint8_t)catan_state_road_length(b, s, p);
	award_longest(s);
}

/*
 * Longest road from v in a forest: the most roads of `roads` a walk from v
 * can take without going back along `via` (a walk ends at a cut vertex).
 * Returns -1 when the walk meets a vertex of `seen` again, i.e. the roads
 * around v are not a forest. Depth first with a stack of its own rather
 * than by recursion: in a forest every vertex is reached once, by one
 * road, so the deepest vertex reached is the longest walk, and a vertex
 * reached twice is a cycle (or the other end of the new road).
 */
static int tree_reach(const catan_board *b, const catan_eset *roads,
		      const catan_vset *cut, catan_vset *seen, int v, int via)
{
	/* Each entry is reached by a road of its own: at most 15. */
	uint8_t at[CATAN_ROADS + 1], from[CATAN_ROADS + 1],
	    depth[CATAN_ROADS + 1];
	int top = 1, best = 0;
	at[0] = (uint8_t)v;
	from[0] = (uint8_t)via;
	depth[0] = 0;
	while (top) {
		top--;
		int u = at[top], back = from[top], d = depth[top] + 1;
		for (int i = 0; i < 3; i++) {
			int e = b->vertex_edges[u][i];
			if (e == CATAN_NONE || e == back ||
			    !catan_eset_has(roads, e))
				continue;
			if (d > best)
				best = d;
			int w = b->vertex_vertices[u][i]; /* across e */
			if (catan_vset_has(cut, w))
				continue;
			if (catan_vset_has(seen, w) || top == CATAN_ROADS + 1)
				return -1;
			catan_vset_add(seen, w);
			at[top] = (uint8_t)w;
			from[top] = (uint8_t)e;
			depth[top++] = (uint8_t)d;
		}
	}
	return best;
}

/*
 * Player p's road length after p built road e, and nothing else changed.
 * Adding a road removes no trail, so the longest trail is the old one or
 * one through e. When the roads at e's ends form a forest in which e closes
 * no cycle (nearly always), the longest trail through e is e plus the
 * longest walk from each end away from it; otherwise the full search.
 */
static int road_length_after(const catan_board *b, const catan_state *s, int p,
			     int e)
{
	const catan_player *pl = &s->players[p];
	catan_vset cut, seen;
	for (int k = 0; k < CATAN_VWORDS; k++) {
		cut.w[k] = s->occupied.w[k] &
			   ~(pl->settlements.w[k] | pl->cities.w[k]);
		seen.w[k] = 0;
	}
	int va = b->edge_vertices[e][0], vb = b->edge_vertices[e][1];
	bool cut_a = catan_vset_has(&cut, va), cut_b = catan_vset_has(&cut, vb);
	if (!cut_a)
		catan_vset_add(&seen, va);
	if (!cut_b)
		catan_vset_add(&seen, vb);
	int la = cut_a ? 0 : tree_reach(b, &pl->roads, &cut, &seen, va, e);
	int lb =
	    la < 0 || cut_b ? 0 : tree_reach(b, &pl->roads, &cut, &seen, vb, e);
	if (la < 0 || lb < 0)
		return catan_state_road_length(b, s, p);
	int through = 1 + la + lb;
	return through > pl->road_length ? through : pl->road_length;
}

/* update_roads() for p's new road e (see road_length_after()). */
static void update_road_built(const catan_board *b, catan_state *s, int p,
			      int e)
{
	s->players[p].road_length = (uint8_t)road_length_after(b, s, p, e);
	award_longest(s);
}

/* ---- effects ---- */

static void begin(catan_state *out, const catan_state *in)
{
	if (out != in)
		*out = *in;
}

static void pay(catan_state *s, catan_player *pl, const uint8_t *cost)
{
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		pl->hand[r] -= cost[r];
		s->bank[r] += cost[r];
	}
	pl->ncards -= (uint8_t)sum5(cost);
}

static void gain(catan_state *s, catan_player *pl, int r, int n)
{
	pl->hand[r] += (uint8_t)n;
	pl->ncards += (uint8_t)n;
	s->bank[r] -= (uint8_t)n;
}

static void place_road(const catan_board *b, catan_state *s, int p, int e)
{
	catan_player *pl = &s->players[p];
	catan_eset_add(&pl->roads, e);
	catan_eset_add(&s->roads, e);
	catan_vset_add(&pl->reach, b->edge_vertices[e][0]);
	catan_vset_add(&pl->reach, b->edge_vertices[e][1]);
	pl->roads_left--;
}

/* Opponents of p with a road on both sides of v: a building there cuts. */
static unsigned cut_players(const catan_board *b, const catan_state *s, int p,
			    int v)
{
	unsigned m = 0;
	for (int o = 0; o < s->opt.nplayers; o++) {
		if (o == p)
			continue;
		int n = 0;
		for (int i = 0; i < 3; i++) {
			int e = b->vertex_edges[v][i];
			if (e != CATAN_NONE &&
			    catan_eset_has(&s->players[o].roads, e))
				n++;
		}
		if (n >= 2)
			m |= 1u << o;
	}
	return m;
}

static void place_settlement(const catan_board *b, catan_state *s, int p,
			     int v)
{
	catan_player *pl = &s->players[p];
	catan_vset_add(&pl->settlements, v);
	s->building[v] = (uint8_t)(p + 1);
	catan_vset_add(&s->occupied, v);
	catan_vset_add(&s->blocked, v);
	for (int k = 0; k < CATAN_VWORDS; k++)
		s->blocked.w[k] |= b->vertex_nbrs[v].w[k];
	pl->settlements_left--;
	pl->public_vp++;
	/* (A city only ever replaces a settlement: settlements and cities
	 * together are every building p has now.) */
	catan_vset own = pl->settlements;
	for (int k = 0; k < CATAN_VWORDS; k++)
		own.w[k] |= pl->cities.w[k];
	pl->harbours = (uint8_t)catan_board_harbour_access(b, &own);
}

/* Seeded mode: a uniformly random card from p's hand (p holds some). */
static int random_card(catan_state *s, const catan_player *pl)
{
	uint32_t k = catan_rng_below(&s->rng, pl->ncards);
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		if (k < pl->hand[r])
			return r;
		k -= pl->hand[r];
	}
	return CATAN_RES_COUNT - 1; /* unreachable: ncards == sum of hand */
}

/*
 * Validates moving the robber to tile t and robbing `victim` (card `res`
 * in manual mode). Shared by the 7 and the knight.
 */
static int check_robber(const catan_board *b, const catan_state *s, int p,
			const catan_action *a)
{
	if (a->tile >= b->ntiles)
		return CATAN_E_BAD_TILE;
	if (a->tile == s->robber)
		return CATAN_E_ROBBER_SAME_TILE;
	unsigned victims = catan_robber_victims(b, s, p, a->tile);
	if (a->player == CATAN_NONE) {
		/* Robbing nobody is allowed only when nobody here has a
		 * card to lose. */
		for (unsigned m = victims; m; m &= m - 1)
			if (s->players[__builtin_ctz(m)].ncards)
				return CATAN_E_VICTIM_REQUIRED;
		return a->res == CATAN_NONE ? CATAN_OK : CATAN_E_BAD_ACTION;
	}
	if (a->player >= s->opt.nplayers || !(victims & (1u << a->player)))
		return CATAN_E_BAD_VICTIM;
	/* A victim with no cards may be chosen; nothing is stolen. */
	if (s->players[a->player].ncards == 0)
		return a->res == CATAN_NONE ? CATAN_OK : CATAN_E_NO_CARD;
	if (s->opt.dice == CATAN_DICE_MANUAL) {
		if (a->res == CATAN_NONE)
			return CATAN_E_DRAW_REQUIRED;
		if (a->res >= CATAN_RES_COUNT ||
		    s->players[a->player].hand[a->res] == 0)
			return CATAN_E_NO_CARD;
	} else if (a->res != CATAN_NONE) {
		return CATAN_E_DRAW_NOT_ALLOWED;
	}
	return CATAN_OK;
}

static void move_robber(catan_state *s, int p, const catan_action *a,
			catan_outcome *oc)
{
	s->robber = a->tile;
	if (a->player == CATAN_NONE || s->players[a->player].ncards == 0)
		return;
	catan_player *victim = &s->players[a->player];
	int r = s->opt.dice == CATAN_DICE_MANUAL ? a->res
						 : random_card(s, victim);
	victim->hand[r]--;
	victim->ncards--;
	s->players[p].hand[r]++;
	s->players[p].ncards++;
	if (oc)
		oc->stolen = (uint8_t)r;
}

/*
 * The actions of most turns (roll, end, bank trade) are inlined into
 * catan_state_apply() and catan_state_apply_legal() (IN_LINE: with two
 * callers GCC would call them); the others, and production, are called, so that
 * apply's frame (its saved registers) is as small as those need: inlined,
 * their register pressure made every action pay for the largest.
 */
#define OUT_OF_LINE __attribute__((noinline))
#define IN_LINE	    inline __attribute__((always_inline))

/*
 * What a vertex's building[] byte earns on a producing tile, as produce()
 * adds it up: 1 (settlement) or 2 (city) in its owner's byte; 0 for no
 * building (the values past the sixth player are never stored).
 */
static const uint64_t owe_table[32] = {
    [1] = 1ull << 0,
    [2] = 1ull << 8,
    [3] = 1ull << 16,
    [4] = 1ull << 24,
    [5] = 1ull << 32,
    [6] = 1ull << 40,
    [CATAN_CITY_BIT | 1] = 2ull << 0,
    [CATAN_CITY_BIT | 2] = 2ull << 8,
    [CATAN_CITY_BIT | 3] = 2ull << 16,
    [CATAN_CITY_BIT | 4] = 2ull << 24,
    [CATAN_CITY_BIT | 5] = 2ull << 32,
    [CATAN_CITY_BIT | 6] = 2ull << 40,
};

/*
 * Pays production for dice sum `n`, with the bank-shortage rule. What each
 * resource owes is one word, a byte per player (a tile has at most 3
 * buildings by the distance rule, so 6 cards, and a number at most 8
 * tiles: 48 < 256 in all), summed over each rolled tile's six corners by
 * owe_table (no branch per corner), then paid over the resources the roll
 * touched only.
 */
static OUT_OF_LINE void produce(const catan_board *b, catan_state *s, int n,
				catan_outcome *oc)
{
	uint64_t owed[CATAN_RES_COUNT] = {0};
	unsigned hit = 0;      /* resources with a word in owed[] */
	uint64_t keep = ~0ull; /* the bytes of seats not expelled */
	if (__builtin_expect(s->out, 0))
		for (int p = 0; p < CATAN_MAX_PLAYERS; p++)
			if (catan_state_out(s, p))
				keep &= ~(0xffull << (8 * p));
	for (int i = 0; i < b->token_ntiles[n]; i++) {
		int t = b->token_tiles[n][i];
		if (t == s->robber)
			continue;
		const uint8_t *tv = b->tile_vertices[t];
		int r = b->tile_terrain[t];
		owed[r] += owe_table[s->building[tv[0]] & 31] +
			   owe_table[s->building[tv[1]] & 31] +
			   owe_table[s->building[tv[2]] & 31] +
			   owe_table[s->building[tv[3]] & 31] +
			   owe_table[s->building[tv[4]] & 31] +
			   owe_table[s->building[tv[5]] & 31];
		hit |= 1u << r;
	}
	for (; hit; hit &= hit - 1) {
		int r = __builtin_ctz(hit);
		uint64_t o = owed[r] & keep;
		if (!o)
			continue;
		int total = (int)((o * 0x0101010101010101ull) >> 56);
		int first = __builtin_ctzll(o) / 8;
		if (total <= s->bank[r]) {
			s->bank[r] = (uint8_t)(s->bank[r] - total);
			/* A byte a player, shifted out one at a time. */
			int p = first;
			for (uint64_t m = o >> (8 * first); m; m >>= 8, p++) {
				uint8_t k = (uint8_t)m;
				if (!k)
					continue;
				s->players[p].hand[r] += k;
				s->players[p].ncards += k;
				if (oc)
					oc->produced[p][r] = k;
			}
			continue;
		}
		/* Short: paid only when a single player is owed it. */
		if (!(o >> (8 * first) >> 8) && s->bank[r] > 0) {
			if (oc)
				oc->produced[first][r] = s->bank[r];
			gain(s, &s->players[first], r, s->bank[r]);
		}
	}
}

static void start_turn(catan_state *s, int p)
{
	s->active = (uint8_t)p;
	s->phase = CATAN_PHASE_ROLL;
	s->dev_played = 0;
	s->offers = 0;
	memset(s->bought, 0, sizeof s->bought);
	if (s->turn < UINT16_MAX)
		s->turn++;
}

/*
 * The next set-up step whose seat was not expelled; after the last, the
 * first turn, of the first seat not expelled.
 */
static void setup_advance(catan_state *s)
{
	int n = s->opt.nplayers;
	do
		s->setup_step++;
	while (__builtin_expect(s->out, 0) && s->setup_step < 2 * n &&
	       catan_state_out(s, setup_player(s->setup_step, n)));
	if (s->setup_step == 2 * n) {
		s->turn = 0;
		start_turn(s, catan_state_out(s, 0) ? next_seat(s, 0) : 0);
	} else {
		s->active = (uint8_t)setup_player(s->setup_step, n);
	}
}

/*
 * A special building phase's builder passes: the next seat (not expelled)
 * builds, or, back at the active player, the next turn begins.
 */
static void pass_builder(catan_state *s)
{
	int n = s->opt.nplayers, next = (s->builder + 1) % n;
	while (__builtin_expect(s->out, 0) && next != s->active &&
	       catan_state_out(s, next))
		next = (next + 1) % n;
	if (next != s->active) {
		s->builder = (uint8_t)next;
		return;
	}
	s->builder = CATAN_NONE;
	start_turn(s, next_seat(s, s->active));
}

/* ---- one function per action ---- */

static OUT_OF_LINE int do_setup(catan_state *out, const catan_board *b,
				const catan_state *in, int p,
				const catan_action *a)
{
	int v = a->vertex, e = a->edge, n = in->opt.nplayers;
	if (v >= b->nvertices)
		return CATAN_E_BAD_VERTEX;
	if (e >= b->nedges)
		return CATAN_E_BAD_EDGE;
	if (catan_vset_has(&in->occupied, v))
		return CATAN_E_OCCUPIED;
	if (catan_vset_has(&in->blocked, v))
		return CATAN_E_DISTANCE_RULE;
	if (b->edge_vertices[e][0] != v && b->edge_vertices[e][1] != v)
		return CATAN_E_NOT_ADJACENT;
	if (catan_eset_has(&in->roads, e))
		return CATAN_E_OCCUPIED;

	begin(out, in);
	place_settlement(b, out, p, v);
	place_road(b, out, p, e);
	if (out->setup_step >= n) {
		for (int i = 0; i < 3; i++) {
			int t = b->vertex_tiles[v][i];
			if (t == CATAN_NONE ||
			    b->tile_terrain[t] == CATAN_DESERT)
				continue;
			if (out->bank[b->tile_terrain[t]] > 0)
				gain(out, &out->players[p], b->tile_terrain[t],
				     1);
		}
	}
	/* A set-up settlement cuts no road (no road touches a vertex the
	 * distance rule leaves free), so only the new road counts. */
	update_road_built(b, out, p, e);
	setup_advance(out);
	return CATAN_OK;
}

static int check_roll(const catan_state *in, const catan_action *a)
{
	if (in->phase != CATAN_PHASE_ROLL)
		return CATAN_E_WRONG_PHASE;
	bool stated = a->dice[0] || a->dice[1];
	if (in->opt.dice == CATAN_DICE_MANUAL) {
		if (!stated)
			return CATAN_E_DICE_REQUIRED;
		if (a->dice[0] < 1 || a->dice[0] > 6 || a->dice[1] < 1 ||
		    a->dice[1] > 6)
			return CATAN_E_BAD_ACTION;
	} else if (stated) {
		return CATAN_E_DICE_NOT_ALLOWED;
	}
	return CATAN_OK;
}

static IN_LINE int do_roll(catan_state *out, const catan_board *b,
			   const catan_state *in, const catan_action *a,
			   catan_outcome *oc, bool legal)
{
	int rc = legal ? CATAN_OK : check_roll(in, a);
	if (rc)
		return rc;

	begin(out, in);
	if (out->opt.dice == CATAN_DICE_MANUAL) {
		out->dice[0] = a->dice[0];
		out->dice[1] = a->dice[1];
	} else {
		out->dice[0] = (uint8_t)(1 + catan_rng_below(&out->rng, 6));
		out->dice[1] = (uint8_t)(1 + catan_rng_below(&out->rng, 6));
	}
	if (oc) {
		oc->dice[0] = out->dice[0];
		oc->dice[1] = out->dice[1];
	}
	int sum = out->dice[0] + out->dice[1];
	if (sum != 7) {
		produce(b, out, sum, oc);
		out->phase = (uint8_t)main_phase(out);
		return CATAN_OK;
	}
	bool any = false;
	for (int q = 0; q < out->opt.nplayers; q++) {
		int c = out->players[q].ncards;
		out->discard[q] = (uint8_t)(c > 7 ? c / 2 : 0);
		any |= c > 7;
	}
	out->resume = (uint8_t)main_phase(out);
	out->phase = any ? CATAN_PHASE_DISCARD : CATAN_PHASE_ROBBER;
	return CATAN_OK;
}

static int check_discard(const catan_state *in, int p, const catan_action *a)
{
	if (in->phase != CATAN_PHASE_DISCARD)
		return CATAN_E_WRONG_PHASE;
	const catan_player *pl = &in->players[p];
	if (in->discard[p] == 0)
		return CATAN_E_NO_DISCARD_OWED;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		if (a->give[r] > pl->hand[r])
			return CATAN_E_CANNOT_AFFORD;
	if (sum5(a->give) != in->discard[p])
		return CATAN_E_DISCARD_COUNT;
	return CATAN_OK;
}

static OUT_OF_LINE int do_discard(catan_state *out, const catan_state *in,
				  int p, const catan_action *a, bool legal)
{
	int rc = legal ? CATAN_OK : check_discard(in, p, a);
	if (rc)
		return rc;

	begin(out, in);
	pay(out, &out->players[p], a->give);
	out->discard[p] = 0;
	for (int q = 0; q < out->opt.nplayers; q++)
		if (out->discard[q])
			return CATAN_OK;
	out->phase = CATAN_PHASE_ROBBER;
	return CATAN_OK;
}

static int check_robber_move(const catan_board *b, const catan_state *in, int p,
			     const catan_action *a)
{
	if (in->phase != CATAN_PHASE_ROBBER)
		return CATAN_E_WRONG_PHASE;
	return check_robber(b, in, p, a);
}

static OUT_OF_LINE int do_robber(catan_state *out, const catan_board *b,
				 const catan_state *in, int p,
				 const catan_action *a, catan_outcome *oc,
				 bool legal)
{
	int rc = legal ? CATAN_OK : check_robber_move(b, in, p, a);
	if (rc)
		return rc;
	begin(out, in);
	move_robber(out, p, a, oc);
	out->phase = out->resume;
	out->resume = CATAN_PHASE_SETUP; /* unused outside DISCARD/ROBBER/OFFER */
	return CATAN_OK;
}

static int check_build_road(const catan_board *b, const catan_state *in, int p,
			    const catan_action *a)
{
	const catan_player *pl = &in->players[p];
	int e = a->edge;
	if (!phase_allows_build(in->phase))
		return CATAN_E_WRONG_PHASE;
	if (e >= b->nedges)
		return CATAN_E_BAD_EDGE;
	if (pl->roads_left == 0)
		return CATAN_E_NO_PIECES;
	if (!can_afford(pl, catan_cost_road))
		return CATAN_E_CANNOT_AFFORD;
	if (catan_eset_has(&in->roads, e))
		return CATAN_E_OCCUPIED;
	/* catan_road_spots()'s test for the one edge: an end holds p's
	 * building, or p's road reaches it and no building occupies it. */
	bool connected = false;
	for (int i = 0; i < 2; i++) {
		int v = b->edge_vertices[e][i];
		connected |=
		    has_building(pl, v) || (catan_vset_has(&pl->reach, v) &&
					    !catan_vset_has(&in->occupied, v));
	}
	if (!connected)
		return CATAN_E_NOT_CONNECTED;
	return CATAN_OK;
}

static OUT_OF_LINE int do_build_road(catan_state *out, const catan_board *b,
				     const catan_state *in, int p,
				     const catan_action *a, bool legal)
{
	int e = a->edge;
	int rc = legal ? CATAN_OK : check_build_road(b, in, p, a);
	if (rc)
		return rc;

	begin(out, in);
	pay(out, &out->players[p], catan_cost_road);
	place_road(b, out, p, e);
	update_road_built(b, out, p, e);
	return CATAN_OK;
}

static int check_build_settlement(const catan_board *b, const catan_state *in,
				  int p, const catan_action *a)
{
	const catan_player *pl = &in->players[p];
	int v = a->vertex;
	if (!phase_allows_build(in->phase))
		return CATAN_E_WRONG_PHASE;
	if (v >= b->nvertices)
		return CATAN_E_BAD_VERTEX;
	if (pl->settlements_left == 0)
		return CATAN_E_NO_PIECES;
	if (!can_afford(pl, catan_cost_settlement))
		return CATAN_E_CANNOT_AFFORD;
	if (catan_vset_has(&in->occupied, v))
		return CATAN_E_OCCUPIED;
	if (catan_vset_has(&in->blocked, v))
		return CATAN_E_DISTANCE_RULE;
	if (!catan_vset_has(&pl->reach, v))
		return CATAN_E_NOT_CONNECTED;
	return CATAN_OK;
}

static OUT_OF_LINE int do_build_settlement(catan_state *out,
					   const catan_board *b,
					   const catan_state *in, int p,
					   const catan_action *a, bool legal)
{
	int v = a->vertex;
	int rc = legal ? CATAN_OK : check_build_settlement(b, in, p, a);
	if (rc)
		return rc;

	begin(out, in);
	pay(out, &out->players[p], catan_cost_settlement);
	place_settlement(b, out, p, v);
	unsigned cut = cut_players(b, out, p, v);
	if (cut)
		update_roads(b, out, cut);
	return CATAN_OK;
}

static int check_build_city(const catan_state *in, int p, const catan_action *a,
			    const catan_board *b)
{
	const catan_player *pl = &in->players[p];
	int v = a->vertex;
	if (!phase_allows_build(in->phase))
		return CATAN_E_WRONG_PHASE;
	if (v >= b->nvertices)
		return CATAN_E_BAD_VERTEX;
	if (!catan_vset_has(&pl->settlements, v))
		return CATAN_E_NOT_YOUR_SETTLEMENT;
	if (pl->cities_left == 0)
		return CATAN_E_NO_PIECES;
	if (!can_afford(pl, catan_cost_city))
		return CATAN_E_CANNOT_AFFORD;
	return CATAN_OK;
}

static OUT_OF_LINE int do_build_city(catan_state *out, const catan_state *in,
				     int p, const catan_action *a,
				     const catan_board *b, bool legal)
{
	int v = a->vertex;
	int rc = legal ? CATAN_OK : check_build_city(in, p, a, b);
	if (rc)
		return rc;

	begin(out, in);
	catan_player *o = &out->players[p];
	pay(out, o, catan_cost_city);
	catan_vset_del(&o->settlements, v);
	catan_vset_add(&o->cities, v);
	out->building[v] |= CATAN_CITY_BIT;
	o->settlements_left++;
	o->cities_left--;
	o->public_vp++;
	return CATAN_OK;
}

static int check_buy_dev(const catan_state *in, int p, const catan_action *a)
{
	const catan_player *pl = &in->players[p];
	if (!phase_allows_build(in->phase))
		return CATAN_E_WRONG_PHASE;
	if (!can_afford(pl, catan_cost_dev))
		return CATAN_E_CANNOT_AFFORD;
	if (sum5(in->deck) == 0)
		return CATAN_E_DECK_EMPTY;
	if (in->opt.dice == CATAN_DICE_MANUAL) {
		if (a->dev == CATAN_NONE)
			return CATAN_E_DRAW_REQUIRED;
		if (a->dev >= CATAN_DEV_COUNT || in->deck[a->dev] == 0)
			return CATAN_E_DECK_EMPTY;
	} else if (a->dev != CATAN_NONE) {
		return CATAN_E_DRAW_NOT_ALLOWED;
	}
	return CATAN_OK;
}

static OUT_OF_LINE int do_buy_dev(catan_state *out, const catan_state *in,
				  int p, const catan_action *a,
				  catan_outcome *oc, bool legal)
{
	int rc = legal ? CATAN_OK : check_buy_dev(in, p, a);
	if (rc)
		return rc;
	int left = sum5(in->deck);

	begin(out, in);
	pay(out, &out->players[p], catan_cost_dev);
	int d = a->dev;
	if (out->opt.dice != CATAN_DICE_MANUAL) {
		uint32_t k = catan_rng_below(&out->rng, (uint32_t)left);
		for (d = 0; d < CATAN_DEV_COUNT - 1; d++) {
			if (k < out->deck[d])
				break;
			k -= out->deck[d];
		}
	}
	out->deck[d]--;
	out->players[p].devs[d]++;
	/*
	 * `bought` guards the active player's cards for the rest of this
	 * turn. A card bought in a special building phase is the builder's,
	 * playable from the builder's own next turn (which resets `bought`).
	 */
	if (in->phase != CATAN_PHASE_SPECIAL)
		out->bought[d]++;
	if (oc)
		oc->drawn = (uint8_t)d;
	return CATAN_OK;
}

/* Common checks for playing a development card of kind d. */
static int check_card(const catan_state *in, int p, int d)
{
	if (!phase_allows_card(in->phase))
		return CATAN_E_WRONG_PHASE;
	if (in->dev_played)
		return CATAN_E_CARD_ALREADY_PLAYED;
	if (in->players[p].devs[d] == 0)
		return CATAN_E_NO_CARD;
	if (in->players[p].devs[d] <= in->bought[d])
		return CATAN_E_CARD_BOUGHT_THIS_TURN;
	return CATAN_OK;
}

static void use_card(catan_state *s, int p, int d)
{
	s->players[p].devs[d]--;
	s->played[d]++;
	s->dev_played = 1;
}

/*
 * Whether p has more knights than every other seat still in. Without an
 * expulsion this holds whenever nobody holds the largest army (the others
 * have fewer than 3); after one, the expelled holder's army can leave
 * the others tied above 3, and a tie takes nothing.
 */
static bool army_alone(const catan_state *s, int p)
{
	for (int q = 0; q < s->opt.nplayers; q++)
		if (q != p && !catan_state_out(s, q) &&
		    s->players[q].knights >= s->players[p].knights)
			return false;
	return true;
}

static OUT_OF_LINE int do_knight(catan_state *out, const catan_board *b,
				 const catan_state *in, int p,
				 const catan_action *a, catan_outcome *oc,
				 bool legal)
{
	int rc = legal ? CATAN_OK : check_card(in, p, CATAN_DEV_KNIGHT);
	if (rc || (!legal && (rc = check_robber(b, in, p, a))))
		return rc;

	begin(out, in);
	use_card(out, p, CATAN_DEV_KNIGHT);
	move_robber(out, p, a, oc);
	catan_player *pl = &out->players[p];
	pl->knights++;
	int h = out->largest_army;
	if (h != p && pl->knights >= 3 &&
	    (h == CATAN_NONE ? army_alone(out, p)
			     : pl->knights > out->players[h].knights)) {
		if (h != CATAN_NONE)
			out->players[h].public_vp -= 2;
		pl->public_vp += 2;
		out->largest_army = (uint8_t)p;
	}
	return CATAN_OK;
}

static OUT_OF_LINE int do_road_building(catan_state *out, const catan_board *b,
					const catan_state *in, int p,
					const catan_action *a)
{
	const catan_player *pl = &in->players[p];
	int rc = check_card(in, p, CATAN_DEV_ROAD_BUILDING);
	if (rc)
		return rc;
	if (a->edge >= b->nedges)
		return CATAN_E_BAD_EDGE;
	if (a->edge2 != CATAN_NONE && a->edge2 >= b->nedges)
		return CATAN_E_BAD_EDGE;
	if (pl->roads_left == 0)
		return CATAN_E_NO_PIECES;
	catan_eset spots, all = in->roads;
	catan_vset reach = pl->reach;
	catan_road_spots(&spots, b, in, p, &reach, &all);
	if (catan_eset_has(&all, a->edge))
		return CATAN_E_OCCUPIED;
	if (!catan_eset_has(&spots, a->edge))
		return CATAN_E_NOT_CONNECTED;
	/* Where could the second road go once the first is down? */
	catan_eset_add(&all, a->edge);
	catan_vset_add(&reach, b->edge_vertices[a->edge][0]);
	catan_vset_add(&reach, b->edge_vertices[a->edge][1]);
	catan_road_spots(&spots, b, in, p, &reach, &all);
	bool second_possible = pl->roads_left >= 2 && catan_eset_count(&spots);
	if (a->edge2 == CATAN_NONE) {
		if (second_possible)
			return CATAN_E_TOO_FEW;
	} else {
		if (pl->roads_left < 2)
			return CATAN_E_NO_PIECES;
		if (catan_eset_has(&all, a->edge2))
			return CATAN_E_OCCUPIED;
		if (!catan_eset_has(&spots, a->edge2))
			return CATAN_E_NOT_CONNECTED;
	}

	begin(out, in);
	use_card(out, p, CATAN_DEV_ROAD_BUILDING);
	place_road(b, out, p, a->edge);
	if (a->edge2 != CATAN_NONE)
		place_road(b, out, p, a->edge2);
	update_roads(b, out, 1u << p);
	return CATAN_OK;
}

static OUT_OF_LINE int do_year_of_plenty(catan_state *out,
					 const catan_state *in, int p,
					 const catan_action *a)
{
	int rc = check_card(in, p, CATAN_DEV_YEAR_OF_PLENTY);
	if (rc)
		return rc;
	if (a->res >= CATAN_RES_COUNT ||
	    (a->res2 != CATAN_NONE && a->res2 >= CATAN_RES_COUNT))
		return CATAN_E_BAD_ACTION;
	uint8_t want[CATAN_RES_COUNT] = {0};
	want[a->res]++;
	if (a->res2 != CATAN_NONE)
		want[a->res2]++;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		if (want[r] > in->bank[r])
			return CATAN_E_BANK_EMPTY;
	/* Two cards whenever the bank holds two. */
	if (a->res2 == CATAN_NONE && sum5(in->bank) >= 2)
		return CATAN_E_TOO_FEW;

	begin(out, in);
	use_card(out, p, CATAN_DEV_YEAR_OF_PLENTY);
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		if (want[r])
			gain(out, &out->players[p], r, want[r]);
	return CATAN_OK;
}

static OUT_OF_LINE int do_monopoly(catan_state *out, const catan_state *in,
				   int p, const catan_action *a)
{
	int rc = check_card(in, p, CATAN_DEV_MONOPOLY);
	if (rc)
		return rc;
	if (a->res >= CATAN_RES_COUNT)
		return CATAN_E_BAD_ACTION;

	begin(out, in);
	use_card(out, p, CATAN_DEV_MONOPOLY);
	int r = a->res;
	for (int o = 0; o < out->opt.nplayers; o++) {
		if (o == p)
			continue;
		int k = out->players[o].hand[r];
		out->players[o].hand[r] = 0;
		out->players[o].ncards -= (uint8_t)k;
		out->players[p].hand[r] += (uint8_t)k;
		out->players[p].ncards += (uint8_t)k;
	}
	return CATAN_OK;
}

static int check_trade_bank(const catan_state *in, int p, const catan_action *a)
{
	const catan_player *pl = &in->players[p];
	if (!phase_allows_trade(in->phase))
		return CATAN_E_WRONG_PHASE;
	if (a->res >= CATAN_RES_COUNT || a->res2 >= CATAN_RES_COUNT ||
	    a->res == a->res2)
		return CATAN_E_BAD_TRADE;
	if (!bank_rate_ok(pl, a->res, a->count))
		return CATAN_E_BAD_RATE;
	if (pl->hand[a->res] < a->count)
		return CATAN_E_CANNOT_AFFORD;
	if (in->bank[a->res2] == 0)
		return CATAN_E_BANK_EMPTY;
	return CATAN_OK;
}

static IN_LINE int do_trade_bank(catan_state *out, const catan_state *in, int p,
				 const catan_action *a, bool legal)
{
	int rc = legal ? CATAN_OK : check_trade_bank(in, p, a);
	if (rc)
		return rc;

	begin(out, in);
	catan_player *o = &out->players[p];
	o->hand[a->res] -= a->count;
	o->ncards -= a->count;
	out->bank[a->res] += a->count;
	gain(out, o, a->res2, 1);
	return CATAN_OK;
}

/* An offer's sides: each non-empty, no resource on both. */
static bool offer_shape_ok(const catan_action *a)
{
	if (sum5(a->give) == 0 || sum5(a->get) == 0)
		return false;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		if (a->give[r] && a->get[r])
			return false;
	return true;
}

static OUT_OF_LINE int do_trade_offer(catan_state *out, const catan_state *in,
				      int p, const catan_action *a)
{
	const catan_player *pl = &in->players[p];
	int to = a->player;
	if (in->phase == CATAN_PHASE_OFFER) {
		/* A counter-offer: only back to the one who offered. */
		if (to != in->offer_from)
			return CATAN_E_BAD_PLAYER;
	} else if (!phase_allows_trade(in->phase)) {
		return CATAN_E_WRONG_PHASE;
	} else if (to >= in->opt.nplayers || to == p ||
		   catan_state_out(in, to)) {
		return CATAN_E_BAD_PLAYER;
	}
	if (!offer_shape_ok(a))
		return CATAN_E_BAD_TRADE;
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		if (a->give[r] > pl->hand[r])
			return CATAN_E_CANNOT_AFFORD;
	if (in->opt.offer_limit && in->offers >= in->opt.offer_limit)
		return CATAN_E_OFFER_LIMIT;

	begin(out, in);
	if (out->phase != CATAN_PHASE_OFFER)
		out->resume = out->phase;
	out->phase = CATAN_PHASE_OFFER;
	out->offers++;
	out->offer_from = (uint8_t)p;
	out->offer_to = (uint8_t)to;
	memcpy(out->offer_give, a->give, sizeof out->offer_give);
	memcpy(out->offer_get, a->get, sizeof out->offer_get);
	return CATAN_OK;
}

static void close_offer(catan_state *s)
{
	s->phase = s->resume;
	s->resume = CATAN_PHASE_SETUP; /* unused outside DISCARD/ROBBER/OFFER */
	s->offer_from = CATAN_NONE;
	s->offer_to = CATAN_NONE;
	memset(s->offer_give, 0, sizeof s->offer_give);
	memset(s->offer_get, 0, sizeof s->offer_get);
}

static OUT_OF_LINE int do_trade_answer(catan_state *out, const catan_state *in,
				       int p, bool accept)
{
	if (in->phase != CATAN_PHASE_OFFER)
		return CATAN_E_NO_OFFER;
	if (accept) {
		const catan_player *pl = &in->players[p];
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			if (in->offer_get[r] > pl->hand[r])
				return CATAN_E_CANNOT_AFFORD;
	}

	begin(out, in);
	if (accept) {
		catan_player *from = &out->players[out->offer_from];
		catan_player *to = &out->players[p];
		int g = sum5(out->offer_give), t = sum5(out->offer_get);
		for (int r = 0; r < CATAN_RES_COUNT; r++) {
			from->hand[r] += out->offer_get[r];
			from->hand[r] -= out->offer_give[r];
			to->hand[r] += out->offer_give[r];
			to->hand[r] -= out->offer_get[r];
		}
		from->ncards = (uint8_t)(from->ncards + t - g);
		to->ncards = (uint8_t)(to->ncards + g - t);
	}
	close_offer(out);
	return CATAN_OK;
}

static IN_LINE int do_end(catan_state *out, const catan_state *in, int kind,
			  bool legal)
{
	if (kind == CATAN_ACT_END_TRADE) {
		if (!legal && in->phase != CATAN_PHASE_TRADE)
			return CATAN_E_WRONG_PHASE;
		begin(out, in);
		out->phase = CATAN_PHASE_BUILD;
		return CATAN_OK;
	}
	int n = in->opt.nplayers;
	if (in->phase == CATAN_PHASE_SPECIAL) {
		/* The builder passes; the next one builds, or the turn ends. */
		begin(out, in);
		pass_builder(out);
		return CATAN_OK;
	}
	if (!legal && in->phase != CATAN_PHASE_MAIN &&
	    in->phase != CATAN_PHASE_BUILD)
		return CATAN_E_WRONG_PHASE;
	begin(out, in);
	int next = __builtin_expect(out->out, 0) ? next_seat(out, out->active)
						 : (out->active + 1) % n;
	if (out->opt.special_build) {
		out->phase = CATAN_PHASE_SPECIAL;
		out->builder = (uint8_t)next;
		return CATAN_OK;
	}
	start_turn(out, next);
	return CATAN_OK;
}

/* ---- expelling a seat ---- */

/*
 * The active player's turn ends as `end` ends it, whatever the phase:
 * the special building phase (5-6 players) or the next seat's turn.
 */
static void end_turn(catan_state *s)
{
	s->resume = CATAN_PHASE_SETUP;
	int next = next_seat(s, s->active);
	if (s->opt.special_build) {
		s->phase = CATAN_PHASE_SPECIAL;
		s->builder = (uint8_t)next;
		return;
	}
	start_turn(s, next);
}

/*
 * One step past expelled seat e, who is the one to act in s: the game
 * goes on as if e had done the least it could (spec/rules.md).
 */
static void expel_step(catan_state *s, int e)
{
	switch (s->phase) {
	case CATAN_PHASE_SETUP:
		setup_advance(s);
		break;
	case CATAN_PHASE_OFFER: /* as if e rejected the offer */
		close_offer(s);
		break;
	case CATAN_PHASE_DISCARD:
		s->discard[e] = 0;
		for (int q = 0; q < s->opt.nplayers; q++)
			if (s->discard[q])
				return;
		s->phase = CATAN_PHASE_ROBBER;
		break;
	case CATAN_PHASE_SPECIAL:
		pass_builder(s);
		break;
	case CATAN_PHASE_REVEAL:
		if (s->reveal_wait) {
			s->reveal_wait &= (uint8_t) ~(1u << e);
			break;
		}
		/* e asked: the request is dropped. */
		s->phase = s->fair_phase;
		s->requester = CATAN_NONE;
		s->fair_phase = s->req_kind = s->req_tile = s->req_player = 0;
		break;
	default: /* ROLL, ROBBER, MAIN, TRADE, BUILD: e's turn */
		end_turn(s);
		break;
	}
}

/*
 * Expels seat e from s: its cards go back to the bank and the deck, its
 * trophies to whoever now leads alone, and the game moves past it. With
 * one seat left, that seat wins.
 */
static void expel(catan_state *s, int e)
{
	catan_player *pl = &s->players[e];
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		s->bank[r] += pl->hand[r];
		pl->hand[r] = 0;
	}
	pl->ncards = 0;
	for (int d = 0; d < CATAN_DEV_COUNT; d++) {
		s->deck[d] += pl->devs[d];
		pl->devs[d] = 0;
	}
	if (s->active == e)
		memset(s->bought, 0, sizeof s->bought);
	s->out |= (uint8_t)(1u << e);

	int n = s->opt.nplayers;
	if (s->longest_road == e) {
		pl->public_vp -= 2;
		s->longest_road = CATAN_NONE;
		award_longest(s); /* skips e now */
	}
	if (s->largest_army == e) {
		pl->public_vp -= 2;
		s->largest_army = CATAN_NONE;
		int max = 0, count = 0, who = CATAN_NONE;
		for (int p = 0; p < n; p++) {
			int k = s->players[p].knights;
			if (catan_state_out(s, p))
				continue;
			if (k > max) {
				max = k;
				count = 1;
				who = p;
			} else if (k == max) {
				count++;
			}
		}
		if (max >= 3 && count == 1) {
			s->largest_army = (uint8_t)who;
			s->players[who].public_vp += 2;
		}
	}

	unsigned left = ((1u << n) - 1) & ~(unsigned)s->out;
	if (left & (left - 1)) {
		while (catan_state_next_actor(s) == e)
			expel_step(s, e);
		return;
	}
	/* One seat left: it wins, and nothing is pending any more. */
	s->phase = CATAN_PHASE_OVER;
	s->winner = (uint8_t)__builtin_ctz(left);
	s->resume = CATAN_PHASE_SETUP;
	s->builder = CATAN_NONE;
	s->offer_from = s->offer_to = CATAN_NONE;
	memset(s->offer_give, 0, sizeof s->offer_give);
	memset(s->offer_get, 0, sizeof s->offer_get);
	memset(s->discard, 0, sizeof s->discard);
	s->requester = CATAN_NONE;
	s->reveal_wait = 0;
	s->fair_phase = s->req_kind = s->req_tile = s->req_player = 0;
}

/*
 * `expel e` by p: legal when e (a seat still in) is the only seat that
 * may act, and p is the seat that acts next once e is gone (the winner
 * when p is the last seat left). The proof that e equivocated is the
 * store's to check (spec/replication.md, "Equivocation").
 */
static __attribute__((noinline, cold)) int
do_expel(catan_state *out, const catan_state *in, int p, const catan_action *a)
{
	int n = in->opt.nplayers, e = a->player;
	if (e >= n || e == p || catan_state_out(in, e) ||
	    catan_state_out(in, p))
		return CATAN_E_BAD_PLAYER;
	for (int q = 0; q < n; q++)
		if (may_act(in, q) != (q == e))
			return CATAN_E_WRONG_PHASE;
	catan_state s = *in;
	expel(&s, e);
	int next =
	    s.phase == CATAN_PHASE_OVER ? s.winner : catan_state_next_actor(&s);
	if (p != next)
		return CATAN_E_NOT_YOUR_TURN;
	*out = s;
	return CATAN_OK;
}

/*
 * The active player wins the moment they reach the target on their turn.
 * A special building phase is nobody's turn (the active player's turn is
 * over; the builder's has not begun): whoever reaches the target there
 * wins when their own turn begins.
 */
static void check_victory(catan_state *s)
{
	/* The points first: after nearly every action they are short, and
	 * the phases need not be looked at. */
	if (catan_state_vp(s, s->active) < s->opt.vp_target ||
	    s->phase == CATAN_PHASE_SETUP || s->phase == CATAN_PHASE_OVER ||
	    s->phase == CATAN_PHASE_SPECIAL)
		return;
	s->winner = s->active;
	s->phase = CATAN_PHASE_OVER;
}

/*
 * The action's rules: checked and applied, or with `legal` (a constant in
 * each of its two callers) applied without the checks.
 */
static inline __attribute__((always_inline)) int
dispatch(catan_state *out, const catan_board *b, const catan_state *in, int p,
	 const catan_action *a, catan_outcome *oc, bool legal)
{
	int ph = in->phase;
	/* The phases that limit the kinds of action, tested one by one only
	 * when the phase is one of them (one mask test for the others). */
	if (!legal &&
	    (1u << (ph & 31)) &
		(1u << CATAN_PHASE_SETUP | 1u << CATAN_PHASE_OFFER |
		 1u << CATAN_PHASE_DISCARD | 1u << CATAN_PHASE_SPECIAL)) {
		if (ph == CATAN_PHASE_SETUP)
			return a->kind == CATAN_ACT_SETUP
				   ? do_setup(out, b, in, p, a)
				   : CATAN_E_WRONG_PHASE;
		if (ph == CATAN_PHASE_OFFER &&
		    a->kind != CATAN_ACT_TRADE_ACCEPT &&
		    a->kind != CATAN_ACT_TRADE_REJECT &&
		    a->kind != CATAN_ACT_TRADE_OFFER)
			return CATAN_E_WRONG_PHASE;
		if (ph == CATAN_PHASE_DISCARD && a->kind != CATAN_ACT_DISCARD)
			return CATAN_E_WRONG_PHASE;
		/* Special building: build, buy, pass; no trade, no card. */
		if (ph == CATAN_PHASE_SPECIAL &&
		    a->kind != CATAN_ACT_BUILD_ROAD &&
		    a->kind != CATAN_ACT_BUILD_SETTLEMENT &&
		    a->kind != CATAN_ACT_BUILD_CITY &&
		    a->kind != CATAN_ACT_BUY_DEV && a->kind != CATAN_ACT_END)
			return CATAN_E_WRONG_PHASE;
	}
	/* Set-up, road building, year of plenty, monopoly and domestic
	 * trades (a few a game) are checked either way. */
	if (legal && ph == CATAN_PHASE_SETUP)
		return do_setup(out, b, in, p, a);
	switch (a->kind) {
	case CATAN_ACT_ROLL:
		return do_roll(out, b, in, a, oc, legal);
	case CATAN_ACT_DISCARD:
		return do_discard(out, in, p, a, legal);
	case CATAN_ACT_ROBBER:
		return do_robber(out, b, in, p, a, oc, legal);
	case CATAN_ACT_BUILD_ROAD:
		return do_build_road(out, b, in, p, a, legal);
	case CATAN_ACT_BUILD_SETTLEMENT:
		return do_build_settlement(out, b, in, p, a, legal);
	case CATAN_ACT_BUILD_CITY:
		return do_build_city(out, in, p, a, b, legal);
	case CATAN_ACT_BUY_DEV:
		return do_buy_dev(out, in, p, a, oc, legal);
	case CATAN_ACT_PLAY_KNIGHT:
		return do_knight(out, b, in, p, a, oc, legal);
	case CATAN_ACT_PLAY_ROAD_BUILDING:
		return do_road_building(out, b, in, p, a);
	case CATAN_ACT_PLAY_YEAR_OF_PLENTY:
		return do_year_of_plenty(out, in, p, a);
	case CATAN_ACT_PLAY_MONOPOLY:
		return do_monopoly(out, in, p, a);
	case CATAN_ACT_TRADE_BANK:
		return do_trade_bank(out, in, p, a, legal);
	case CATAN_ACT_TRADE_OFFER:
		return do_trade_offer(out, in, p, a);
	case CATAN_ACT_TRADE_ACCEPT:
		return do_trade_answer(out, in, p, true);
	case CATAN_ACT_TRADE_REJECT:
		return do_trade_answer(out, in, p, false);
	case CATAN_ACT_END_TRADE:
	case CATAN_ACT_END:
		return do_end(out, in, a->kind, legal);
	case CATAN_ACT_SETUP:
		return CATAN_E_WRONG_PHASE;
	default:
		return CATAN_E_BAD_ACTION;
	}
}

/* ---- fair dice ---- */

bool catan_action_chance(const catan_state *s, const catan_action *a,
			 bool *stated)
{
	switch (a->kind) {
	case CATAN_ACT_ROLL:
		*stated = a->dice[0] || a->dice[1];
		return true;
	case CATAN_ACT_BUY_DEV:
		*stated = a->dev != CATAN_NONE;
		return true;
	case CATAN_ACT_ROBBER:
	case CATAN_ACT_PLAY_KNIGHT:
		*stated = a->res != CATAN_NONE;
		return a->player < s->opt.nplayers &&
		       s->players[a->player].ncards > 0;
	default:
		*stated = false;
		return false;
	}
}

/*
 * A stand-in outcome for `a` (the first possible one), so that a request
 * is checked by the same rules as its completion will be.
 */
static void any_outcome(catan_action *a, const catan_state *s)
{
	if (a->kind == CATAN_ACT_ROLL) {
		a->dice[0] = a->dice[1] = 1;
	} else if (a->kind == CATAN_ACT_BUY_DEV) {
		for (int d = CATAN_DEV_COUNT - 1; d >= 0; d--)
			if (s->deck[d])
				a->dev = (uint8_t)d;
	} else if (a->player < s->opt.nplayers) {
		for (int r = CATAN_RES_COUNT - 1; r >= 0; r--)
			if (s->players[a->player].hand[r])
				a->res = (uint8_t)r;
	}
}

/*
 * The rules of manual mode on tmp (a copy of a fair state with dice
 * MANUAL): catan_state_apply again, so that dispatch() keeps its one call
 * site, inlined in the hot path.
 */
static int dispatch_fair(catan_state *out, const catan_board *b,
			 const catan_state *tmp, int p, const catan_action *a,
			 catan_outcome *oc)
{
	return catan_state_apply(out, b, tmp, p, a, oc);
}

/*
 * Fair mode. A chance action without its outcome is a request: checked
 * as it will be completed, it moves the game to REVEAL, where every other
 * seat reveals (CATAN_ACT_REVEAL); then the requester repeats the action
 * with the outcome stated, which is applied as in manual mode. The store
 * checks the outcome against the reveals; the rules only check that it
 * is possible. Every other action is applied as in manual mode.
 */
static __attribute__((noinline, cold)) int
fair_apply(catan_state *out, const catan_board *b, const catan_state *in, int p,
	   const catan_action *a, catan_outcome *oc)
{
	catan_state tmp = *in;
	bool stated;
	bool chance = catan_action_chance(in, a, &stated);
	int rc;
	tmp.opt.dice = CATAN_DICE_MANUAL;
	if (in->phase == CATAN_PHASE_REVEAL) {
		if (a->kind == CATAN_ACT_REVEAL) {
			if (!((in->reveal_wait >> p) & 1))
				return CATAN_E_WRONG_PHASE;
			*out = *in;
			out->reveal_wait &= (uint8_t) ~(1u << p);
			return CATAN_OK;
		}
		/* Only the requester completes, once every reveal is in. */
		if (in->reveal_wait || p != in->requester)
			return CATAN_E_WRONG_PHASE;
		if (a->kind != in->req_kind || !chance || !stated ||
		    ((a->kind == CATAN_ACT_ROBBER ||
		      a->kind == CATAN_ACT_PLAY_KNIGHT) &&
		     (a->tile != in->req_tile || a->player != in->req_player)))
			return CATAN_E_WRONG_PHASE;
		tmp.phase = in->fair_phase;
		tmp.requester = CATAN_NONE;
		tmp.fair_phase = tmp.req_kind = tmp.req_tile = tmp.req_player =
		    0;
		if ((rc = dispatch_fair(out, b, &tmp, p, a, oc)))
			return rc;
		out->opt.dice = CATAN_DICE_FAIR;
		if (out->fair_events < UINT16_MAX)
			out->fair_events++;
		return CATAN_OK;
	}
	if (a->kind == CATAN_ACT_REVEAL)
		return CATAN_E_WRONG_PHASE;
	if (chance && stated)
		return a->kind == CATAN_ACT_ROLL ? CATAN_E_DICE_NOT_ALLOWED
						 : CATAN_E_DRAW_NOT_ALLOWED;
	if (!chance) {
		if ((rc = dispatch_fair(out, b, &tmp, p, a, oc)))
			return rc;
		out->opt.dice = CATAN_DICE_FAIR;
		return CATAN_OK;
	}
	catan_action full = *a;
	catan_state probe;
	any_outcome(&full, in);
	if ((rc = dispatch_fair(&probe, b, &tmp, p, &full, NULL)))
		return rc;
	*out = *in;
	out->fair_phase = in->phase;
	out->phase = CATAN_PHASE_REVEAL;
	out->requester = (uint8_t)p;
	out->req_kind = a->kind;
	out->req_tile =
	    a->kind == CATAN_ACT_ROBBER || a->kind == CATAN_ACT_PLAY_KNIGHT
		? a->tile
		: 0;
	out->req_player =
	    a->kind == CATAN_ACT_ROBBER || a->kind == CATAN_ACT_PLAY_KNIGHT
		? a->player
		: 0;
	out->reveal_wait = (uint8_t)(((1u << in->opt.nplayers) - 1) &
				     ~(1u << p) & ~(unsigned)in->out);
	return CATAN_OK;
}

/* The 64-bit little-endian word k of r. */
static uint64_t word64(const uint8_t r[32], int k)
{
	uint64_t w = 0;
	for (int i = 7; i >= 0; i--)
		w = w << 8 | r[8 * k + i];
	return w;
}

/* Which of counts[0..n-1] the k-th card (0-based) is. */
static int nth_card(const uint8_t *counts, int n, uint64_t k)
{
	for (int i = 0; i < n; i++) {
		if (k < counts[i])
			return i;
		k -= counts[i];
	}
	return CATAN_NONE;
}

void catan_fair_outcome(catan_action *out, const catan_state *s,
			const uint8_t r[32])
{
	catan_action_init(out, s->req_kind);
	switch (s->req_kind) {
	case CATAN_ACT_ROLL:
		out->dice[0] = (uint8_t)(1 + word64(r, 0) % 6);
		out->dice[1] = (uint8_t)(1 + word64(r, 1) % 6);
		break;
	case CATAN_ACT_BUY_DEV: {
		int total = sum5(s->deck);
		out->dev = total ? (uint8_t)nth_card(s->deck, CATAN_DEV_COUNT,
						     word64(r, 0) % total)
				 : CATAN_NONE;
		break;
	}
	default: {
		out->tile = s->req_tile;
		out->player = s->req_player;
		const catan_player *v = s->req_player < s->opt.nplayers
					    ? &s->players[s->req_player]
					    : NULL;
		if (v && v->ncards)
			out->res = (uint8_t)nth_card(v->hand, CATAN_RES_COUNT,
						     word64(r, 0) % v->ncards);
		break;
	}
	}
}

int catan_state_apply(catan_state *out, const catan_board *board,
		      const catan_state *in, int actor, const catan_action *a,
		      catan_outcome *outcome)
{
	if (actor < 0 || actor >= in->opt.nplayers)
		return CATAN_E_BAD_PLAYER;
	if (in->phase == CATAN_PHASE_OVER)
		return CATAN_E_GAME_OVER;
	if (__builtin_expect(a->kind == CATAN_ACT_EXPEL, 0)) {
		int rc = do_expel(out, in, actor, a);
		if (rc == CATAN_OK) {
			if (outcome) {
				memset(outcome, 0, sizeof *outcome);
				outcome->stolen = CATAN_NONE;
				outcome->drawn = CATAN_NONE;
			}
			check_victory(out);
		}
		return rc;
	}
	if (!may_act(in, actor))
		return CATAN_E_NOT_YOUR_TURN;
	if (outcome) {
		memset(outcome, 0, sizeof *outcome);
		outcome->stolen = CATAN_NONE;
		outcome->drawn = CATAN_NONE;
	}
	int rc = __builtin_expect(in->opt.dice == CATAN_DICE_FAIR, 0)
		     ? fair_apply(out, board, in, actor, a, outcome)
		     : dispatch(out, board, in, actor, a, outcome, false);
	if (rc == CATAN_OK)
		check_victory(out);
	return rc;
}

/*
 * In debug builds (sanitizer builds among them) apply_legal checks its
 * promise: catan_state_apply accepts the action, with the same result.
 * (A trap, not assert(): the core calls nothing outside itself.)
 */
#ifdef NDEBUG
#define CHECK_LEGAL 0
#else
#define CHECK_LEGAL 1
#endif

int catan_state_apply_legal(catan_state *out, const catan_board *board,
			    const catan_state *in, int actor,
			    const catan_action *a, catan_outcome *outcome)
{
	/* Fair dice turn requests into reveals: the full rules (and an
	 * expulsion, never listed as legal, has its own). */
	if (__builtin_expect(in->opt.dice == CATAN_DICE_FAIR ||
				 a->kind == CATAN_ACT_EXPEL,
			     0))
		return catan_state_apply(out, board, in, actor, a, outcome);
	catan_state want;
	if (CHECK_LEGAL &&
	    catan_state_apply(&want, board, in, actor, a, NULL) != CATAN_OK)
		__builtin_trap();
	if (outcome) {
		memset(outcome, 0, sizeof *outcome);
		outcome->stolen = CATAN_NONE;
		outcome->drawn = CATAN_NONE;
	}
	int rc = dispatch(out, board, in, actor, a, outcome, true);
	if (rc == CATAN_OK)
		check_victory(out);
	if (CHECK_LEGAL && (rc != CATAN_OK || memcmp(&want, out, sizeof want)))
		__builtin_trap();
	return rc;
}

/* ---- hashing ---- */

typedef struct hasher {
	uint64_t h;
} hasher;

static void mix_bytes(hasher *h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h->h ^= p[i];
		h->h *= 0x100000001b3ull;
	}
}

static void mix_u64(hasher *h, uint64_t x)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(x >> (8 * i));
	mix_bytes(h, b, 8);
}

static void mix_words(hasher *h, const uint64_t *w, int n)
{
	for (int i = 0; i < n; i++)
		mix_u64(h, w[i]);
}

uint64_t catan_state_hash(const catan_state *s)
{
	hasher h = {0xcbf29ce484222325ull};
	for (int p = 0; p < s->opt.nplayers; p++) {
		const catan_player *pl = &s->players[p];
		mix_words(&h, pl->settlements.w, CATAN_VWORDS);
		mix_words(&h, pl->cities.w, CATAN_VWORDS);
		mix_words(&h, pl->roads.w, CATAN_EWORDS);
		mix_words(&h, pl->reach.w, CATAN_VWORDS);
		mix_bytes(&h, pl->hand, sizeof pl->hand);
		mix_bytes(&h, pl->devs, sizeof pl->devs);
		uint8_t small[] = {pl->ncards,		 pl->knights,
				   pl->roads_left,	 pl->settlements_left,
				   pl->cities_left,	 pl->road_length,
				   pl->harbours,	 pl->public_vp};
		mix_bytes(&h, small, sizeof small);
	}
	mix_bytes(&h, s->building, sizeof s->building);
	mix_words(&h, s->occupied.w, CATAN_VWORDS);
	mix_words(&h, s->blocked.w, CATAN_VWORDS);
	mix_words(&h, s->roads.w, CATAN_EWORDS);
	mix_u64(&h, s->rng.s);
	uint8_t opt[] = {s->opt.nplayers, s->opt.vp_target, s->opt.phases,
			 s->opt.dice, s->opt.offer_limit};
	mix_bytes(&h, opt, sizeof opt);
	mix_u64(&h, s->opt.seed);
	mix_bytes(&h, s->bank, sizeof s->bank);
	mix_bytes(&h, s->deck, sizeof s->deck);
	mix_bytes(&h, s->played, sizeof s->played);
	uint8_t misc[] = {s->phase,	   s->resume,	    s->active,
			  s->setup_step,   s->robber,	    s->longest_road,
			  s->largest_army, s->winner,	    s->dice[0],
			  s->dice[1],	   s->dev_played,
			  s->offers,	   s->offer_from,   s->offer_to,
			  (uint8_t)s->turn, (uint8_t)(s->turn >> 8)};
	mix_bytes(&h, misc, sizeof misc);
	mix_bytes(&h, s->discard, sizeof s->discard);
	mix_bytes(&h, s->bought, sizeof s->bought);
	mix_bytes(&h, s->offer_give, sizeof s->offer_give);
	mix_bytes(&h, s->offer_get, sizeof s->offer_get);
	/*
	 * Only games with a special building phase (5-6 players) mix these:
	 * a 2-4 player state hashes as it did before the extension existed,
	 * so recorded golden hashes stay valid.
	 */
	if (s->opt.special_build) {
		uint8_t sb[] = {s->opt.special_build, s->builder};
		mix_bytes(&h, sb, sizeof sb);
	}
	if (s->opt.dice == CATAN_DICE_FAIR) {
		uint8_t f[] = {s->requester,
			       s->reveal_wait,
			       s->fair_phase,
			       s->req_kind,
			       s->req_tile,
			       s->req_player,
			       (uint8_t)s->fair_events,
			       (uint8_t)(s->fair_events >> 8)};
		mix_bytes(&h, f, sizeof f);
	}
	/* Only after an expulsion: other games hash as they always did. */
	if (s->out)
		mix_bytes(&h, &s->out, 1);
	return h.h;
}
