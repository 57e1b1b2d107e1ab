/*
 * derive.c - recomputes every cached field of a state from its primary
 * facts. Used when a state is read back from storage (the on-disk format
 * holds only primary facts) and by anything that edits a state by hand.
 */
#include "catan/state.h"

#include <string.h>

void catan_state_derive(catan_state *s, const catan_board *b)
{
	int n = s->opt.nplayers;
	memset(s->building, 0, sizeof s->building);
	memset(&s->occupied, 0, sizeof s->occupied);
	memset(&s->roads, 0, sizeof s->roads);
	for (int p = 0; p < n; p++) {
		catan_player *pl = &s->players[p];
		pl->ncards = 0;
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			pl->ncards += pl->hand[r];
		memset(&pl->reach, 0, sizeof pl->reach);
		CATAN_FOR_BITS(e, pl->roads.w, CATAN_EWORDS)
		{
			catan_vset_add(&pl->reach, b->edge_vertices[e][0]);
			catan_vset_add(&pl->reach, b->edge_vertices[e][1]);
		}
		for (int k = 0; k < CATAN_EWORDS; k++)
			s->roads.w[k] |= pl->roads.w[k];
		CATAN_FOR_BITS(v, pl->settlements.w, CATAN_VWORDS)
		{
			s->building[v] = (uint8_t)(p + 1);
		}
		CATAN_FOR_BITS(v, pl->cities.w, CATAN_VWORDS)
		{
			s->building[v] = (uint8_t)((p + 1) | CATAN_CITY_BIT);
		}
		for (int k = 0; k < CATAN_VWORDS; k++)
			s->occupied.w[k] |= pl->settlements.w[k] | pl->cities.w[k];
		catan_vset own = pl->settlements;
		for (int k = 0; k < CATAN_VWORDS; k++)
			own.w[k] |= pl->cities.w[k];
		pl->harbours = (uint8_t)catan_board_harbour_access(b, &own);
		int ns = catan_vset_count(&pl->settlements),
		    nc = catan_vset_count(&pl->cities),
		    nr = catan_eset_count(&pl->roads);
		pl->settlements_left = (uint8_t)(ns <= CATAN_SETTLEMENTS
							 ? CATAN_SETTLEMENTS - ns
							 : 0);
		pl->cities_left =
			(uint8_t)(nc <= CATAN_CITIES ? CATAN_CITIES - nc : 0);
		pl->roads_left = (uint8_t)(nr <= CATAN_ROADS ? CATAN_ROADS - nr : 0);
		pl->public_vp = (uint8_t)(ns + 2 * nc +
					  (s->longest_road == p ? 2 : 0) +
					  (s->largest_army == p ? 2 : 0));
	}
	s->blocked = s->occupied;
	CATAN_FOR_BITS(v, s->occupied.w, CATAN_VWORDS)
	{
		for (int k = 0; k < CATAN_VWORDS; k++)
			s->blocked.w[k] |= b->vertex_nbrs[v].w[k];
	}
	/* Road lengths last: they read the occupied set. */
	for (int p = 0; p < n; p++)
		s->players[p].road_length =
			(uint8_t)catan_state_road_length(b, s, p);
}
