/*
 * botplay.c - seats played by choosers, and the minimum viable move that
 * stands in for a choice that does not apply (botplay.h).
 */
#include "botplay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "research.h"

static double clock_now(void *ctx)
{
	(void)ctx;
	return cli_now();
}

/*
 * The "illegal" entrant: always ends the turn, whether that applies or
 * not, and answers nothing else. It exists to show (and test) the minimum
 * viable move standing in for moves that do not apply.
 */
static int illegal_choose(void *ctx, catan_action *out, const catan_board *b,
			  const catan_state *s, int actor, unsigned flags)
{
	(void)ctx, (void)b, (void)s, (void)actor, (void)flags;
	catan_action_init(out, CATAN_ACT_END);
	return CATAN_OK;
}

int bp_entrant_parse(bp_entrant *out, const char *spec, size_t n, char *why,
		     size_t whysize)
{
	memset(out, 0, sizeof *out);
	if (n == 0 || n >= sizeof out->name) {
		snprintf(why, whysize, "a bot name is 1 to %zu characters",
			 sizeof out->name - 1);
		return -1;
	}
	memcpy(out->name, spec, n);
	out->name[n] = 0;
	if (!strncmp(out->name, "agent:", 6)) {
		if (!out->name[6]) {
			snprintf(why, whysize,
				 "agent: needs a command "
				 "(agent:CMD)");
			return -1;
		}
		out->agent = true;
		return 0;
	}
	if (!strcmp(out->name, "illegal")) {
		out->choose = illegal_choose;
		return 0;
	}
	size_t kl = strcspn(out->name, ":");
	int kind = catan_bot_kind_parse(out->name, kl);
	if (kind < 0) {
		snprintf(why, whysize,
			 "unknown bot \"%s\" (random, greedy, value, mcts, "
			 "mcts:N playouts, mcts:Nms, illegal)",
			 out->name);
		return -1;
	}
	catan_bot_config_default(&out->cfg, kind);
	if (out->name[kl] == ':') {
		const char *arg = out->name + kl + 1;
		char *end;
		unsigned long v = strtoul(arg, &end, 10);
		bool ms = !strcmp(end, "ms");
		if (kind != CATAN_BOT_MCTS || end == arg || (*end && !ms) ||
		    v < 1 || v > 1000000) {
			snprintf(why, whysize,
				 "\"%s\": only mcts takes an argument, "
				 "mcts:N (1..1000000 playouts) or mcts:Nms",
				 out->name);
			return -1;
		}
		if (ms) {
			out->cfg.time_ms = (uint32_t)v;
			out->cfg.clock = clock_now;
		} else {
			out->cfg.playouts = (uint32_t)v;
		}
	}
	return 0;
}

int bp_minimum_move(catan_action *out, const catan_board *b,
		    const catan_state *s, int actor)
{
	if (s->phase == CATAN_PHASE_DISCARD && s->discard[actor]) {
		/* The most plentiful card, one at a time. */
		uint8_t h[CATAN_RES_COUNT];
		memcpy(h, s->players[actor].hand, sizeof h);
		catan_action_init(out, CATAN_ACT_DISCARD);
		for (int k = 0; k < s->discard[actor]; k++) {
			int best = 0;
			for (int r = 1; r < CATAN_RES_COUNT; r++)
				best = h[r] > h[best] ? r : best;
			h[best]--;
			out->give[best]++;
		}
		return CATAN_OK;
	}
	static catan_action buf[CATAN_BOT_BUF];
	int n = catan_legal_actions(buf, CATAN_BOT_BUF, b, s, actor,
				    CATAN_LEGAL_NO_OFFERS);
	if (n == 0)
		return CATAN_E_NOT_YOUR_TURN;
	n = n > CATAN_BOT_BUF ? CATAN_BOT_BUF : n;
	for (int i = 0; i < n; i++)
		if (buf[i].kind == CATAN_ACT_END ||
		    buf[i].kind == CATAN_ACT_TRADE_REJECT) {
			*out = buf[i];
			return CATAN_OK;
		}
	*out = buf[0];
	return CATAN_OK;
}

int bp_choose(catan_action *out, bp_entrant *e, const catan_board *b,
	      const catan_state *s, int actor, catan_rng *rng, bool *fouled)
{
	int rc;
	*fouled = false;
	if (e->choose) {
		rc = e->choose(e->ctx, out, b, s, actor, 0);
	} else {
		catan_seat_view v;
		catan_seat_view_make(&v, s, actor);
		/* Built-in bots make their own offers (value, mcts) or none. */
		rc = catan_bot_choose_view(out, &e->cfg, b, &v, rng,
					   CATAN_LEGAL_NO_OFFERS);
		if (rc == CATAN_OK)
			catan_bot_resolve_manual(out, s, rng);
	}
	catan_state probe;
	if (rc == CATAN_OK &&
	    catan_state_apply(&probe, b, s, actor, out, NULL) == CATAN_OK)
		return CATAN_OK;
	*fouled = true;
	return bp_minimum_move(out, b, s, actor);
}
