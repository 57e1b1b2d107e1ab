/*
 * agent_bench.c - what an agent process costs (README "Agents").
 *
 *   catan-agent-bench --agent CMD [--moves N] [--games G] [--seed S]
 *
 * 1. Round trip: N times, asks the agent for the move of seat 0 in one
 *    fixed state (its turn to roll): VIEW encoded and sent, the agent's
 *    answer read, decoded, turned into an action and checked by the rules
 *    (catan_agent_choose, with its thread check). Prints the mean and
 *    the median in microseconds.
 * 2. Games: G games on the beginner board in memory (no Git), once with
 *    four agents (one process per seat) and once with four greedy bots,
 *    the same seeds; prints the time per game of each and the ratio.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catan/agent.h"
#include "catan/bot.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One game: agents (cmd != NULL) or greedy bots. Actions, or -1. */
static long game(const char *cmd, uint64_t seed, const catan_board *b)
{
	catan_options o;
	catan_state s;
	catan_agent *ag[4] = {0};
	catan_agent_limits lim;
	catan_rng rng;
	char why[256];
	long n = 0;
	catan_options_default(&o);
	o.seed = seed;
	catan_agent_limits_default(&lim);
	catan_rng_seed(&rng, seed);
	if (catan_state_init(&s, b, &o))
		return -1;
	for (int p = 0; cmd && p < 4; p++)
		if (catan_agent_start(&ag[p], cmd, &lim, b, &s, p, why,
				      sizeof why)) {
			fprintf(stderr, "agent: %s\n", why);
			return -1;
		}
	while (s.phase != CATAN_PHASE_OVER && n < 100000) {
		int who = catan_state_next_actor(&s);
		catan_action a;
		catan_outcome oc;
		int rc =
		    cmd ? catan_agent_choose(ag[who], &a, b, &s, who, 0)
			: catan_bot_choose(&a, CATAN_BOT_GREEDY, b, &s, who,
					   &rng, CATAN_LEGAL_NO_OFFERS);
		if (rc) {
			fprintf(stderr, "seat %d: %s\n", who,
				cmd ? catan_agent_kicked(ag[who]) : "no move");
			n = -1;
			break;
		}
		if (catan_state_apply(&s, b, &s, who, &a, &oc)) {
			n = -1;
			break;
		}
		if (cmd)
			catan_agent_result(ag[who], &s, &a, &oc);
		n++;
	}
	for (int p = 0; cmd && p < 4; p++) {
		catan_agent_end(ag[p], s.winner);
		catan_agent_free(ag[p]);
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *cmd = NULL;
	long moves = 20000, games = 20;
	uint64_t seed = 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--agent"))
			cmd = argv[i + 1];
		else if (!strcmp(argv[i], "--moves"))
			moves = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--games"))
			games = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 10);
	}
	if (!cmd || moves < 1 || games < 0) {
		fprintf(stderr, "usage: catan-agent-bench --agent CMD "
				"[--moves N] [--games G] [--seed S]\n");
		return 2;
	}
	static catan_board b;
	catan_board_beginner(&b);

	/* 1. Round trips in the first state where seat 0 rolls. */
	catan_options o;
	catan_state s;
	catan_rng rng;
	catan_options_default(&o);
	o.seed = seed;
	catan_rng_seed(&rng, seed);
	catan_state_init(&s, &b, &o);
	while (s.phase == CATAN_PHASE_SETUP) {
		int who = catan_state_next_actor(&s);
		catan_action a;
		catan_bot_choose(&a, CATAN_BOT_GREEDY, &b, &s, who, &rng, 0);
		catan_state_apply(&s, &b, &s, who, &a, NULL);
	}
	catan_agent *ag;
	catan_agent_limits lim;
	char why[256];
	catan_agent_limits_default(&lim);
	if (catan_agent_start(&ag, cmd, &lim, &b, &s, s.active, why,
			      sizeof why) ||
	    catan_agent_kicked(ag)) {
		fprintf(stderr, "agent: %s\n",
			ag ? catan_agent_kicked(ag) : why);
		catan_agent_free(ag);
		return 1;
	}
	double *t = malloc(sizeof *t * (size_t)moves);
	if (!t) {
		catan_agent_free(ag);
		return 1;
	}
	for (long i = 0; i < moves; i++) {
		catan_action a;
		double t0 = now_s();
		if (catan_agent_choose(ag, &a, &b, &s, s.active, 0)) {
			fprintf(stderr, "agent: %s\n", catan_agent_kicked(ag));
			catan_agent_free(ag);
			free(t);
			return 1;
		}
		t[i] = now_s() - t0;
	}
	catan_agent_free(ag);
	double sum = 0;
	for (long i = 0; i < moves; i++)
		sum += t[i];
	qsort(t, (size_t)moves, sizeof *t, cmp_d);
	printf("round trip: %ld moves, mean %.1f us, median %.1f us, "
	       "p99 %.1f us\n",
	       moves, sum / (double)moves * 1e6, t[moves / 2] * 1e6,
	       t[moves * 99 / 100] * 1e6);
	free(t);

	/* 2. Games: agents versus greedy bots, same seeds. */
	if (games == 0)
		return 0;
	double ta = 0, tb = 0;
	long na = 0, nb = 0;
	for (long g = 0; g < games; g++) {
		double t0 = now_s();
		long n = game(cmd, seed + (uint64_t)g, &b);
		double t1 = now_s();
		long m = game(NULL, seed + (uint64_t)g, &b);
		double t2 = now_s();
		if (n < 0 || m < 0)
			return 1;
		na += n;
		nb += m;
		ta += t1 - t0;
		tb += t2 - t1;
	}
	printf("games: %ld each; agents %.2f ms per game (%.0f actions), "
	       "greedy bots %.2f ms per game (%.0f actions); ratio %.1fx\n",
	       games, ta / (double)games * 1e3, (double)na / (double)games,
	       tb / (double)games * 1e3, (double)nb / (double)games, ta / tb);
	return 0;
}
