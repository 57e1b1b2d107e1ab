/*
 * seatview.c - the view of one seat: every card it may not see dealt again
 * from the cards it cannot account for (catan/seatview.h).
 */
#include "catan/seatview.h"

#include <string.h>

/* Room for every card of one kind of deal: resources or development. */
#define DEAL_MAX (CATAN_RES_TOTAL_EXT * CATAN_RES_COUNT)

void catan_seat_view_unseen(uint8_t out[CATAN_RES_COUNT], const catan_state *s,
			    int seat)
{
	int total = catan_res_total(s->opt.nplayers);
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		int k = total - s->bank[r] - s->players[seat].hand[r];
		out[r] = (uint8_t)(k > 0 ? k : 0);
	}
}

/* Fisher-Yates over cards[0..n-1]; no shuffle without an RNG. */
static void shuffle(uint8_t *cards, int n, catan_rng *rng)
{
	if (!rng)
		return;
	for (int i = n - 1; i > 0; i--) {
		int j = (int)catan_rng_below(rng, (uint32_t)i + 1);
		uint8_t t = cards[i];
		cards[i] = cards[j];
		cards[j] = t;
	}
}

static void deal_resources(catan_state *s, int seat, catan_rng *rng)
{
	uint8_t unseen[CATAN_RES_COUNT], reserved[CATAN_RES_COUNT] = {0};
	uint8_t cards[DEAL_MAX];
	int n = 0;
	/* A pending offer by another player promises cards it holds. */
	int from = s->phase == CATAN_PHASE_OFFER ? s->offer_from : CATAN_NONE;
	if (from == seat)
		from = CATAN_NONE;
	if (from != CATAN_NONE)
		memcpy(reserved, s->offer_give, sizeof reserved);
	catan_seat_view_unseen(unseen, s, seat);
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		for (int k = reserved[r]; k < unseen[r] && n < DEAL_MAX; k++)
			cards[n++] = (uint8_t)r;
	shuffle(cards, n, rng);
	int next = 0;
	for (int p = 0; p < s->opt.nplayers; p++) {
		if (p == seat)
			continue;
		catan_player *pl = &s->players[p];
		int need = pl->ncards;
		memset(pl->hand, 0, sizeof pl->hand);
		if (p == from)
			for (int r = 0; r < CATAN_RES_COUNT; r++) {
				pl->hand[r] = reserved[r];
				need -= reserved[r];
			}
		for (; need > 0 && next < n; need--)
			pl->hand[cards[next++]]++;
	}
}

static void deal_devs(catan_state *s, int seat, catan_rng *rng)
{
	uint8_t cards[DEAL_MAX];
	int n = 0, bought = 0;
	for (int d = 0; d < CATAN_DEV_COUNT; d++) {
		int k = catan_dev_start(s->opt.nplayers, d) - s->played[d] -
			s->players[seat].devs[d];
		for (int i = 0; i < k && n < DEAL_MAX; i++)
			cards[n++] = (uint8_t)d;
		bought += s->bought[d];
	}
	shuffle(cards, n, rng);
	int next = 0;
	/* The active player first: its first cards are the ones it bought. */
	for (int i = 0; i < s->opt.nplayers; i++) {
		int p = (s->active + i) % s->opt.nplayers;
		if (p == seat)
			continue;
		catan_player *pl = &s->players[p];
		int need = 0;
		for (int d = 0; d < CATAN_DEV_COUNT; d++)
			need += pl->devs[d];
		memset(pl->devs, 0, sizeof pl->devs);
		if (p == s->active)
			memset(s->bought, 0, sizeof s->bought);
		/*
		 * The active player has not reached the target (else the
		 * game would be over), nor, but for a trophy changing hands
		 * outside its turn, has anyone else (a victory-point card
		 * bought wins at once): no victory-point card may take a
		 * player there. A card of another kind is swapped in when
		 * one is left.
		 */
		int room = s->opt.vp_target - 1 - pl->public_vp;
		for (int k = 0; k < need && next < n; k++) {
			if (cards[next] == CATAN_DEV_VICTORY_POINT &&
			    pl->devs[CATAN_DEV_VICTORY_POINT] >= room) {
				for (int j = next + 1; j < n; j++) {
					if (cards[j] == CATAN_DEV_VICTORY_POINT)
						continue;
					uint8_t t = cards[j];
					cards[j] = cards[next];
					cards[next] = t;
					break;
				}
			}
			int d = cards[next++];
			pl->devs[d]++;
			if (p == s->active && k < bought)
				s->bought[d]++;
		}
	}
	memset(s->deck, 0, sizeof s->deck);
	while (next < n)
		s->deck[cards[next++]]++;
}

void catan_seat_view_deal(catan_seat_view *v, catan_rng *rng)
{
	int seat = v->seat;
	deal_resources(&v->s, seat, rng);
	deal_devs(&v->s, seat, rng);
	v->s.rng.s = rng ? catan_rng_next(rng) : 0;
}

void catan_seat_view_make(catan_seat_view *out, const catan_state *full,
			  int seat)
{
	memset(out, 0, sizeof *out); /* padding too: views compare */
	out->s = *full;
	out->seat = (uint8_t)seat;
	catan_seat_view_deal(out, NULL);
}
