/*
 * agents.c - seats played by agent processes (spec/agents.md): the options
 * catan peer --agent and catan host share, one move of a seat (agent, or
 * its replacement after a kick), and catan host.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catan/agent.h"
#include "catan/bot.h"
#include "catan/store.h"
#include "cli.h"

static const char *const on_kick_words[] = {"mvm", "random", "greedy", "stop"};
static const char *const on_kick_says[] = {
    "minimum viable moves", "random legal moves", "the greedy bot's moves",
    "nothing (the command stops)"};

void cli_agent_opts_default(cli_agent_opts *o)
{
	catan_agent_limits_default(&o->lim);
	o->on_kick = CLI_KICK_MVM;
}

int cli_agent_opt(cli_agent_opts *o, const char *cmd, const char *a,
		  const char *v)
{
	uint64_t n;
	if (!strcmp(a, "--on-kick")) {
		for (int k = 0; k < 4; k++)
			if (v && !strcmp(v, on_kick_words[k])) {
				o->on_kick = k;
				return 1;
			}
		fprintf(stderr,
			"catan %s: --on-kick is mvm, random, greedy or stop\n",
			cmd);
		return -1;
	}
	if (!strcmp(a, "--agent-timeout")) {
		if (cli_parse_u64(a, v, 1, 3600, &n))
			return -1;
		o->lim.timeout_secs = (uint32_t)n;
		return 1;
	}
	if (!strcmp(a, "--agent-memory")) {
		/* 0: no limit (an agent built with AddressSanitizer reserves
		 * terabytes of address space). */
		if (cli_parse_u64(a, v, 0, 1 << 20, &n))
			return -1;
		if (n > 0 && n < 16) {
			fprintf(stderr,
				"catan %s: --agent-memory is 0 (no "
				"limit) or at least 16 MiB\n",
				cmd);
			return -1;
		}
		o->lim.memory_limit = (uint32_t)n;
		return 1;
	}
	if (!strcmp(a, "--agent-threads")) {
		if (cli_parse_u64(a, v, 1, 4096, &n))
			return -1;
		o->lim.thread_limit = (uint32_t)n;
		return 1;
	}
	return 0;
}

/* A built-in bot named in place of an agent command: its kind, or -1. */
static int builtin(const char *cmd)
{
	if (!strcmp(cmd, "greedy"))
		return CATAN_BOT_GREEDY;
	if (!strcmp(cmd, "random"))
		return CATAN_BOT_RANDOM;
	return -1;
}

int cli_seat_move(cli_seat *seat, const cli_agent_opts *o, catan_action *out,
		  const catan_board *b, const catan_state *s,
		  const catan_names *names, int me)
{
	int kind = seat->cmd ? builtin(seat->cmd) : -1;
	if (seat->cmd && kind < 0 && !seat->agent && !seat->kicked) {
		char why[256];
		if (catan_agent_start(&seat->agent, seat->cmd, &o->lim, b, s,
				      me, why, sizeof why)) {
			fprintf(stderr, "catan: %s's agent \"%s\": %s\n",
				names->name[me], seat->cmd, why);
			seat->kicked = true;
		}
	}
	if (seat->agent && !seat->kicked) {
		if (catan_agent_choose(seat->agent, out, b, s, me, 0) ==
		    CATAN_OK)
			return CATAN_OK;
		seat->kicked = true;
		printf("kicked: %s's agent \"%s\": %s; %s plays %s from now "
		       "on\n",
		       names->name[me], seat->cmd,
		       catan_agent_kicked(seat->agent), names->name[me],
		       on_kick_says[o->on_kick]);
		fflush(stdout);
	}
	if (kind < 0 && seat->kicked) {
		if (o->on_kick == CLI_KICK_STOP)
			return -1;
		kind = o->on_kick == CLI_KICK_RANDOM   ? CATAN_BOT_RANDOM
		       : o->on_kick == CLI_KICK_GREEDY ? CATAN_BOT_GREEDY
						       : -1;
		if (kind < 0)
			return catan_agent_mvm(out, b, s, me);
	}
	if (kind < 0)
		kind = CATAN_BOT_GREEDY;
	catan_rng rng;
	catan_rng_seed(&rng, catan_state_hash(s) ^ (uint64_t)me);
	return catan_bot_choose(out, kind, b, s, me, &rng,
				CATAN_LEGAL_NO_OFFERS);
}

void cli_seat_done(cli_seat *seat, const catan_state *after,
		   const catan_action *a, const catan_outcome *oc)
{
	if (seat->agent && !seat->kicked)
		catan_agent_result(seat->agent, after, a, oc);
}

void cli_seat_free(cli_seat *seat, const catan_state *s)
{
	if (seat->agent && !seat->kicked && s && s->phase == CATAN_PHASE_OVER)
		catan_agent_end(seat->agent, s->winner);
	catan_agent_free(seat->agent);
	seat->agent = NULL;
}

/*
 * catan -C DIR host --agents CMD1,CMD2,... [--agent CMD]... [--on-kick K]
 *                   [--agent-timeout S] [--agent-memory MIB]
 *                   [--agent-threads N] [--max-actions N]
 * A whole game between agent processes in one hot-seat repository (made by
 * catan new without --me): each action a commit on its seat's branch.
 */
int cli_host(const char *dir, int argc, char **argv)
{
	cli_agent_opts o;
	cli_seat seats[CATAN_MAX_PLAYERS];
	char *list = NULL;
	int nseats = 0, rc = 0;
	uint64_t max_actions = 100000;
	memset(seats, 0, sizeof seats);
	cli_agent_opts_default(&o);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int k = cli_agent_opt(&o, "host", a, v);
		if (k < 0)
			return 2;
		if (k) {
			i++;
			continue;
		}
		if (!strcmp(a, "--agents") && v) {
			free(list);
			list = strdup(v);
			if (!list)
				return 1;
			nseats = 0;
			for (char *sv = NULL, *t = strtok_r(list, ",", &sv); t;
			     t = strtok_r(NULL, ",", &sv)) {
				if (nseats == CATAN_MAX_PLAYERS) {
					fprintf(stderr,
						"catan host: more than "
						"%d agents\n",
						CATAN_MAX_PLAYERS);
					free(list);
					return 2;
				}
				seats[nseats++].cmd = t;
			}
			i++;
		} else if (!strcmp(a, "--agent") && v) {
			if (nseats == CATAN_MAX_PLAYERS) {
				fprintf(stderr,
					"catan host: too many agents\n");
				free(list);
				return 2;
			}
			seats[nseats++].cmd = v;
			i++;
		} else if (!strcmp(a, "--max-actions")) {
			if (cli_parse_u64(a, v, 1, 100000000, &max_actions)) {
				free(list);
				return 2;
			}
			i++;
		} else {
			fprintf(stderr, "catan host: unknown option \"%s\"\n",
				a);
			free(list);
			return 2;
		}
	}
	catan_store *s = NULL;
	catan_err err;
	if (!dir) {
		fprintf(stderr, "catan host: say which game with -C DIR\n");
		free(list);
		return 2;
	}
	if (catan_store_open(&s, dir, &err)) {
		fprintf(stderr, "catan host: %s: %s\n", dir, err.msg);
		free(list);
		return 1;
	}
	const catan_game *g = catan_store_game(s);
	if (catan_store_me(s) >= 0 || nseats != g->opt.nplayers ||
	    g->opt.dice != CATAN_DICE_SEEDED) {
		fprintf(stderr,
			"catan host: wants a hot-seat game in seeded dice "
			"mode (catan new without --me) and one agent per "
			"player (%d players, %d agents)\n",
			g->opt.nplayers, nseats);
		catan_store_free(s);
		free(list);
		return 2;
	}
	catan_state st;
	uint64_t n = 0;
	for (;; n++) {
		if (catan_store_current(&st, NULL, s, &err)) {
			fprintf(stderr, "catan host: %s\n", err.msg);
			rc = 1;
			break;
		}
		if (st.phase == CATAN_PHASE_OVER) {
			printf("over: %s won after %" PRIu64 " actions\n",
			       g->names.name[st.winner], n);
			break;
		}
		if (n >= max_actions) {
			printf("stopped: %" PRIu64 " actions and no winner\n",
			       n);
			rc = 1;
			break;
		}
		int who = catan_state_next_actor(&st);
		catan_action a;
		catan_outcome oc;
		if (cli_seat_move(&seats[who], &o, &a, &g->board, &st,
				  &g->names, who)) {
			fprintf(stderr,
				"catan host: %s has no move; stopping "
				"(--on-kick stop)\n",
				g->names.name[who]);
			rc = 1;
			break;
		}
		if (catan_store_act(s, who, &a, &oc, NULL, &err)) {
			fprintf(stderr, "catan host: %s\n", err.msg);
			rc = 1;
			break;
		}
		char text[160];
		catan_action_format(text, sizeof text, &g->board, &g->names,
				    &a);
		printf("%s %s\n", g->names.name[who], text);
		catan_state after;
		if (catan_store_current(&after, NULL, s, &err) == 0)
			cli_seat_done(&seats[who], &after, &a, &oc);
		catan_msg counter;
		if (seats[who].agent &&
		    catan_agent_take_counter(seats[who].agent, &counter) &&
		    st.offer_from < g->opt.nplayers) {
			catan_agent_send(seats[st.offer_from].agent, &counter);
			printf("%s counters: %d %s for %d %s\n",
			       g->names.name[who], counter.u.trade.offer_count,
			       catan_res_name(catan_res_from_wire(
				   counter.u.trade.offer_res)),
			       counter.u.trade.ask_count,
			       catan_res_name(catan_res_from_wire(
				   counter.u.trade.ask_res)));
		}
	}
	for (int p = 0; p < nseats; p++) {
		if (seats[p].agent && !seats[p].kicked) {
			long moves;
			double secs;
			catan_agent_stats(seats[p].agent, &moves, &secs);
			fprintf(stderr,
				"%s's agent: %ld moves, %.1f us per move on "
				"average\n",
				g->names.name[p], moves,
				moves ? secs * 1e6 / (double)moves : 0.0);
		}
		cli_seat_free(&seats[p], &st);
	}
	catan_store_free(s);
	free(list);
	return rc;
}
