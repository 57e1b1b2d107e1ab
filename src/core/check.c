/*
 * check.c - the invariants of the rules, recomputed from scratch.
 *
 * The thesis's TLA+ invariants (conservation of resources, development
 * cards and buildings) and more: every cached field of the state (road
 * lengths, reach, blocked vertices, harbours, victory points, card counts)
 * must equal what the board and pieces say. Slow on purpose: it trusts
 * nothing the incremental code maintains.
 */
#include "catan/state.h"

#include <string.h>

#include "rules_internal.h"

/* Tiny bounded writer (the core has no snprintf). */
typedef struct msg {
	char *buf;
	size_t size, len;
} msg;

static void put(msg *m, const char *s)
{
	while (*s) {
		if (m->size && m->len + 1 < m->size)
			m->buf[m->len] = *s;
		m->len++;
		s++;
	}
	if (m->size)
		m->buf[m->len < m->size ? m->len : m->size - 1] = '\0';
}

static void put_int(msg *m, long v)
{
	char tmp[24];
	int i = 0;
	unsigned long u = v < 0 ? (unsigned long)-v : (unsigned long)v;
	do {
		tmp[i++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[i++] = '-';
	char out[24];
	for (int k = 0; k < i; k++)
		out[k] = tmp[i - 1 - k];
	out[i] = '\0';
	put(m, out);
}

static int fail(msg *m, const char *what, int p, long got, long want)
{
	put(m, what);
	if (p >= 0) {
		put(m, " (player ");
		put_int(m, p);
		put(m, ")");
	}
	put(m, ": is ");
	put_int(m, got);
	put(m, ", expected ");
	put_int(m, want);
	return CATAN_E_INVARIANT;
}

static bool vset_eq(const catan_vset *a, const catan_vset *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

/* Components of p's roads (ignoring cuts) each touch p's own building. */
static bool roads_connected(const catan_board *b, const catan_player *pl)
{
	catan_vset seen, frontier;
	memset(&seen, 0, sizeof seen);
	for (int k = 0; k < CATAN_VWORDS; k++)
		seen.w[k] = (pl->settlements.w[k] | pl->cities.w[k]);
	frontier = seen;
	bool grew = true;
	catan_eset reached;
	memset(&reached, 0, sizeof reached);
	while (grew) {
		grew = false;
		CATAN_FOR_BITS(v, frontier.w, CATAN_VWORDS)
		{
			for (int i = 0; i < 3; i++) {
				int e = b->vertex_edges[v][i];
				if (e == CATAN_NONE ||
				    !catan_eset_has(&pl->roads, e) ||
				    catan_eset_has(&reached, e))
					continue;
				catan_eset_add(&reached, e);
				for (int j = 0; j < 2; j++) {
					int u = b->edge_vertices[e][j];
					if (!catan_vset_has(&seen, u)) {
						catan_vset_add(&seen, u);
						grew = true;
					}
				}
			}
		}
		frontier = seen;
	}
	return memcmp(&reached, &pl->roads, sizeof reached) == 0;
}

int catan_state_check(const catan_board *b, const catan_state *s, char *why,
		      size_t whysize)
{
	msg m = {why, whysize, 0};
	int n = s->opt.nplayers;
	if (why && whysize)
		why[0] = '\0';
	if (n < CATAN_MIN_PLAYERS || n > CATAN_MAX_PLAYERS)
		return fail(&m, "player count", -1, n, CATAN_MAX_PLAYERS);
	/* Expelled seats: seats of the game, with no card left. */
	unsigned all = (1u << n) - 1, out = s->out;
	if (out & ~all)
		return fail(&m, "expelled seats that nobody plays", -1, out,
			    out & all);
	if (out == all)
		return fail(&m, "every seat expelled", -1, out, 0);
	for (int p = 0; p < n; p++) {
		if (!((out >> p) & 1))
			continue;
		if (s->players[p].ncards || sum5(s->players[p].hand))
			return fail(&m, "resource cards of an expelled seat", p,
				    sum5(s->players[p].hand), 0);
		for (int d = 0; d < CATAN_DEV_COUNT; d++)
			if (s->players[p].devs[d])
				return fail(&m,
					    "development cards of an expelled "
					    "seat",
					    p, s->players[p].devs[d], 0);
		if (s->discard[p])
			return fail(&m, "discard owed by an expelled seat", p,
				    s->discard[p], 0);
		if ((s->reveal_wait >> p) & 1)
			return fail(&m, "reveal owed by an expelled seat", p, 1,
				    0);
		if (s->longest_road == p || s->largest_army == p)
			return fail(&m, "trophy held by an expelled seat", p, 1,
				    0);
		if (s->winner == p)
			return fail(&m, "expelled seat as winner", p, 1, 0);
		/* The active seat of a special building phase only marks
		 * whose turn ended (it may be the one expelled then). */
		if (s->phase != CATAN_PHASE_OVER &&
		    ((s->active == p && s->phase != CATAN_PHASE_SPECIAL) ||
		     s->builder == p || s->offer_to == p ||
		     s->offer_from == p || s->requester == p))
			return fail(&m, "expelled seat still to act", p, 1, 0);
	}

	/* Resource cards: 19 (24 with 5-6 players) of each in hands + bank. */
	int res_total = catan_res_total(n);
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		int total = s->bank[r];
		for (int p = 0; p < n; p++)
			total += s->players[p].hand[r];
		if (total != res_total) {
			put(&m, catan_res_name(r));
			return fail(&m, " cards in play", -1, total, res_total);
		}
	}
	/* Development cards: deck + hands + played, per kind. */
	int knights = 0;
	for (int p = 0; p < n; p++)
		knights += s->players[p].knights;
	if (knights != s->played[CATAN_DEV_KNIGHT])
		return fail(&m, "knights played", -1, knights,
			    s->played[CATAN_DEV_KNIGHT]);
	if (s->played[CATAN_DEV_VICTORY_POINT])
		return fail(&m, "victory point cards played", -1,
			    s->played[CATAN_DEV_VICTORY_POINT], 0);
	for (int d = 0; d < CATAN_DEV_COUNT; d++) {
		int total = s->deck[d] + s->played[d];
		for (int p = 0; p < n; p++)
			total += s->players[p].devs[d];
		if (total != catan_dev_start(n, d)) {
			put(&m, catan_dev_name(d));
			return fail(&m, " cards", -1, total,
				    catan_dev_start(n, d));
		}
		if (s->bought[d] > s->players[s->active].devs[d])
			return fail(&m, "cards bought this turn", s->active,
				    s->bought[d], s->players[s->active].devs[d]);
	}

	catan_vset occupied, blocked;
	catan_eset roads;
	memset(&occupied, 0, sizeof occupied);
	memset(&roads, 0, sizeof roads);
	for (int p = 0; p < n; p++) {
		const catan_player *pl = &s->players[p];
		if (pl->ncards != sum5(pl->hand))
			return fail(&m, "card count", p, pl->ncards,
				    sum5(pl->hand));
		int ns = catan_vset_count(&pl->settlements),
		    nc = catan_vset_count(&pl->cities),
		    nr = catan_eset_count(&pl->roads);
		if (ns + pl->settlements_left != CATAN_SETTLEMENTS)
			return fail(&m, "settlements on board + in supply", p,
				    ns + pl->settlements_left,
				    CATAN_SETTLEMENTS);
		if (nc + pl->cities_left != CATAN_CITIES)
			return fail(&m, "cities on board + in supply", p,
				    nc + pl->cities_left, CATAN_CITIES);
		if (nr + pl->roads_left != CATAN_ROADS)
			return fail(&m, "roads on board + in supply", p,
				    nr + pl->roads_left, CATAN_ROADS);
		/* One building per vertex, one road per edge. */
		if (catan_vset_intersects(&pl->settlements, &pl->cities) ||
		    catan_vset_intersects(&occupied, &pl->settlements) ||
		    catan_vset_intersects(&occupied, &pl->cities))
			return fail(&m, "vertices holding two buildings", p, 1,
				    0);
		for (int k = 0; k < CATAN_EWORDS; k++) {
			if (roads.w[k] & pl->roads.w[k])
				return fail(&m, "edges holding two roads", p, 1,
					    0);
			roads.w[k] |= pl->roads.w[k];
		}
		for (int k = 0; k < CATAN_VWORDS; k++)
			occupied.w[k] |= pl->settlements.w[k] | pl->cities.w[k];
		/* Reach is exactly the vertices of own roads. */
		catan_vset reach;
		memset(&reach, 0, sizeof reach);
		CATAN_FOR_BITS(e, pl->roads.w, CATAN_EWORDS)
		{
			if (e >= b->nedges)
				return fail(&m, "road off the board", p, e,
					    b->nedges);
			catan_vset_add(&reach, b->edge_vertices[e][0]);
			catan_vset_add(&reach, b->edge_vertices[e][1]);
		}
		if (!vset_eq(&reach, &pl->reach))
			return fail(&m, "cached road reach", p,
				    catan_vset_count(&pl->reach),
				    catan_vset_count(&reach));
		if (!roads_connected(b, pl))
			return fail(&m, "roads not connected to own buildings",
				    p, 1, 0);
		int len = catan_state_road_length(b, s, p);
		if (len != pl->road_length)
			return fail(&m, "cached longest road", p,
				    pl->road_length, len);
		/* Harbours reached by own buildings. */
		uint8_t harbours = 0;
		for (int k = 0; k < CATAN_HARBOUR_KINDS; k++)
			if (catan_vset_intersects(&b->harbour_vmask[k],
						  &pl->settlements) ||
			    catan_vset_intersects(&b->harbour_vmask[k],
						  &pl->cities))
				harbours |= (uint8_t)(1u << k);
		if (harbours != pl->harbours)
			return fail(&m, "harbour access bits", p, pl->harbours,
				    harbours);
		/* Victory points from scratch. */
		int vp = ns + 2 * nc + (s->longest_road == p ? 2 : 0) +
			 (s->largest_army == p ? 2 : 0);
		if (vp != pl->public_vp)
			return fail(&m, "public victory points", p,
				    pl->public_vp, vp);
		/* (A special building phase is nobody's turn: see rules.c.) */
		if (s->phase != CATAN_PHASE_OVER &&
		    s->phase != CATAN_PHASE_SETUP &&
		    s->phase != CATAN_PHASE_SPECIAL && p == s->active &&
		    catan_state_vp(s, p) >= s->opt.vp_target)
			return fail(&m, "active player at target but not won",
				    p, catan_state_vp(s, p),
				    s->opt.vp_target - 1);
	}
	for (int p = n; p < CATAN_MAX_PLAYERS; p++) {
		const catan_player *pl = &s->players[p];
		if (catan_vset_count(&pl->settlements) ||
		    catan_vset_count(&pl->cities) ||
		    catan_eset_count(&pl->roads) || pl->ncards)
			return fail(&m, "pieces of a seat nobody plays", p, 1,
				    0);
	}
	for (int v = 0; v < CATAN_MAX_VERTICES; v++) {
		int want = 0;
		for (int p = 0; p < n; p++) {
			if (catan_vset_has(&s->players[p].settlements, v))
				want = p + 1;
			if (catan_vset_has(&s->players[p].cities, v))
				want = (p + 1) | CATAN_CITY_BIT;
		}
		if (s->building[v] != want)
			return fail(&m, "cached building at vertex", -1,
				    s->building[v], want);
	}
	if (!vset_eq(&occupied, &s->occupied))
		return fail(&m, "cached occupied vertices", -1,
			    catan_vset_count(&s->occupied),
			    catan_vset_count(&occupied));
	if (memcmp(&roads, &s->roads, sizeof roads) != 0)
		return fail(&m, "cached road set", -1,
			    catan_eset_count(&s->roads),
			    catan_eset_count(&roads));
	/* Distance rule, and blocked = buildings + neighbours. */
	blocked = occupied;
	CATAN_FOR_BITS(v, occupied.w, CATAN_VWORDS)
	{
		if (v >= b->nvertices)
			return fail(&m, "building off the board", -1, v,
				    b->nvertices);
		if (catan_vset_intersects(&b->vertex_nbrs[v], &occupied))
			return fail(&m, "distance rule broken at vertex", -1, v,
				    -1);
		for (int k = 0; k < CATAN_VWORDS; k++)
			blocked.w[k] |= b->vertex_nbrs[v].w[k];
	}
	if (!vset_eq(&blocked, &s->blocked))
		return fail(&m, "cached blocked vertices", -1,
			    catan_vset_count(&s->blocked),
			    catan_vset_count(&blocked));

	/* Trophies. */
	/* (An expelled seat's roads and knights compete for nothing.) */
	int lr = s->longest_road;
	int max = 0, count = 0;
	for (int p = 0; p < n; p++) {
		if ((out >> p) & 1)
			continue;
		int l = s->players[p].road_length;
		if (l > max) {
			max = l;
			count = 1;
		} else if (l == max) {
			count++;
		}
	}
	if (lr != CATAN_NONE) {
		if (lr >= n || s->players[lr].road_length < 5 ||
		    s->players[lr].road_length < max)
			return fail(&m, "longest road holder's length", lr,
				    lr < n ? s->players[lr].road_length : -1,
				    max);
	} else if (max >= 5 && count == 1) {
		return fail(&m, "longest road unawarded with a unique leader",
			    -1, max, 4);
	}
	int la = s->largest_army;
	/* After an expulsion of its holder the army may lie unawarded while
	 * the others are tied at the top; otherwise nobody has 3 then. */
	int kmax = 0, kcount = 0;
	for (int p = 0; p < n; p++) {
		int k = s->players[p].knights;
		if ((out >> p) & 1)
			continue;
		kcount = k > kmax ? 1 : kcount + (k == kmax);
		kmax = k > kmax ? k : kmax;
	}
	for (int p = 0; p < n; p++) {
		int k = s->players[p].knights;
		if ((out >> p) & 1)
			continue;
		if (la == CATAN_NONE && k >= 3 && (!out || kcount == 1))
			return fail(&m, "largest army unawarded", p, k, 2);
		if (la != CATAN_NONE && la < n && k > s->players[la].knights)
			return fail(&m, "largest army holder outnumbered", p, k,
				    s->players[la].knights);
	}
	if (la != CATAN_NONE && (la >= n || s->players[la].knights < 3))
		return fail(&m, "largest army holder's knights", la,
			    la < n ? s->players[la].knights : -1, 3);

	/* Phase bookkeeping. */
	if (s->phase >= CATAN_PHASE_COUNT)
		return fail(&m, "phase", -1, s->phase, 0);
	if (s->active >= n)
		return fail(&m, "active player", -1, s->active, 0);
	if (s->robber != CATAN_NONE && s->robber >= b->ntiles)
		return fail(&m, "robber tile", -1, s->robber, b->ntiles);
	/* Fair dice: a request waits only in REVEAL, for other seats. */
	if (s->phase == CATAN_PHASE_REVEAL) {
		int k = s->req_kind;
		if (s->opt.dice != CATAN_DICE_FAIR)
			return fail(&m, "reveal phase outside fair dice", -1,
				    s->opt.dice, CATAN_DICE_FAIR);
		if (s->requester >= n)
			return fail(&m, "requester", -1, s->requester, 0);
		if (s->reveal_wait & ~all & 0xff ||
		    (s->reveal_wait >> s->requester) & 1)
			return fail(&m, "reveals owed by requester or nobody",
				    s->requester, s->reveal_wait, 0);
		if (k != CATAN_ACT_ROLL && k != CATAN_ACT_BUY_DEV &&
		    k != CATAN_ACT_ROBBER && k != CATAN_ACT_PLAY_KNIGHT)
			return fail(&m, "requested action", -1, k, 0);
		if (s->fair_phase == CATAN_PHASE_REVEAL ||
		    s->fair_phase >= CATAN_PHASE_COUNT ||
		    s->fair_phase == CATAN_PHASE_OVER)
			return fail(&m, "phase of the request", -1,
				    s->fair_phase, 0);
	} else if (s->requester != CATAN_NONE || s->reveal_wait ||
		   s->fair_phase || s->req_kind || s->req_tile ||
		   s->req_player) {
		return fail(&m, "request outside the reveal phase", -1,
			    s->requester, CATAN_NONE);
	}
	if (s->fair_events && s->opt.dice != CATAN_DICE_FAIR)
		return fail(&m, "chance outcomes counted outside fair dice", -1,
			    s->fair_events, 0);
	/* The phase a request waits in counts as the one it was made in. */
	int ph = s->phase == CATAN_PHASE_REVEAL ? s->fair_phase : s->phase;
	if ((ph == CATAN_PHASE_OVER) != (s->winner != CATAN_NONE))
		return fail(&m, "winner set iff game over", -1, s->winner, ph);
	/* The winner reached the target, or is the one seat left in. */
	if (s->winner != CATAN_NONE &&
	    (s->winner >= n ||
	     (catan_state_vp(s, s->winner) < s->opt.vp_target &&
	      (all & ~out) != 1u << s->winner)))
		return fail(&m, "winner's victory points", s->winner,
			    s->winner < n ? catan_state_vp(s, s->winner) : -1,
			    s->opt.vp_target);
	bool resuming = ph == CATAN_PHASE_DISCARD || ph == CATAN_PHASE_ROBBER ||
			ph == CATAN_PHASE_OFFER;
	if (!resuming && s->resume != CATAN_PHASE_SETUP)
		return fail(&m, "stale resume phase", -1, s->resume,
			    CATAN_PHASE_SETUP);
	int owing = 0;
	for (int p = 0; p < n; p++)
		owing += s->discard[p] > 0;
	if ((ph == CATAN_PHASE_DISCARD) != (owing > 0))
		return fail(&m, "players owing discards outside discard phase",
			    -1, owing, 0);
	if (ph == CATAN_PHASE_OFFER) {
		if (s->offer_from >= n || s->offer_to >= n ||
		    s->offer_from == s->offer_to ||
		    (s->offer_from != s->active && s->offer_to != s->active))
			return fail(&m, "pending offer parties", -1,
				    s->offer_from, s->offer_to);
	} else if (s->offer_from != CATAN_NONE || s->offer_to != CATAN_NONE) {
		return fail(&m, "offer parties outside an offer", -1,
			    s->offer_from, CATAN_NONE);
	}
	/* Special building: 5-6 players, a builder other than the active. */
	if (s->opt.special_build > 1 ||
	    (s->opt.special_build && n <= CATAN_MAX_PLAYERS_BASE))
		return fail(&m, "special building option with players", -1,
			    s->opt.special_build, n);
	if (ph == CATAN_PHASE_SPECIAL) {
		if (!s->opt.special_build || s->builder >= n ||
		    s->builder == s->active)
			return fail(&m, "special building phase's builder", -1,
				    s->builder, s->active);
	} else if (s->builder != CATAN_NONE) {
		return fail(&m, "builder outside a special building phase", -1,
			    s->builder, CATAN_NONE);
	}
	if (ph == CATAN_PHASE_SETUP) {
		/* Step k: each player placed its share of 2 pieces so far. */
		for (int p = 0; p < n; p++) {
			int placed = (s->setup_step > p) +
				     (s->setup_step > 2 * n - 1 - p);
			int ns = catan_vset_count(&s->players[p].settlements);
			/* (An expelled seat missed its steps from then on.) */
			if (ns != placed && !((out >> p) & 1 && ns < placed))
				return fail(&m, "set-up settlements", p, ns,
					    placed);
		}
	}
	return CATAN_OK;
}
