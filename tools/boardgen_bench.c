/*
 * boardgen_bench.c - speed and fairness of the balanced board generator.
 *
 *   catan-boardgen-bench [--boards N] [--radius R | --ext56]
 *                        [--rules MASK] [--max-pips N]
 *                        [--method auto|exact|search] [--fairness]
 *                        [--infeasible] [--budget N] [--mix N]
 *                        [--dump FILE]
 *
 * Generates N boards from seeds 1..N on one core and prints the median,
 * mean and worst time per board, boards per second, how many are distinct
 * and how many came from the exact sampler. --fairness also counts how
 * often each resource and each token lands on each position and prints,
 * per resource and token, the least and most frequent position relative to
 * the average position (1.00 = perfectly even); --dump writes every
 * (position, piece) frequency to FILE, to compare methods (the exact
 * sampler is the reference where it is fast enough). --infeasible times the
 * answer to a set of pins no board can satisfy.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catan/boardgen.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static uint64_t board_hash(const catan_board *b)
{
	uint64_t h = 1469598103934665603ull;
	for (int t = 0; t < b->ntiles; t++) {
		h = (h ^ b->tile_terrain[t]) * 1099511628211ull;
		h = (h ^ b->tile_token[t]) * 1099511628211ull;
	}
	for (int i = 0; i < b->nharbours; i++)
		h = (h ^ b->harbour_kind[i]) * 1099511628211ull;
	return h | 1;
}

static int infeasible(void)
{
	/* A 6, an 8 and a 5 round one corner (and a harmless pin). */
	catan_genopts o;
	catan_genreport rep;
	catan_board b;
	catan_genopts_default(&o);
	o.npins = 4;
	o.pins[0] = (catan_pin){{0, 0}, CATAN_GRAIN, 6};
	o.pins[1] = (catan_pin){{1, 0}, CATAN_NONE, 8};
	o.pins[2] = (catan_pin){{-1, 0}, CATAN_LUMBER, 0};
	o.pins[3] = (catan_pin){{0, 1}, CATAN_ORE, 5};
	double t0 = now();
	int rc = catan_board_generate(&b, &o, &rep);
	double dt = now() - t0;
	printf("infeasible pins (6, 8 and 5 round a corner): rc=%d status=%d "
	       "in %.3f ms: "
	       "%s\n",
	       rc, rep.status, dt * 1e3, rep.why);
	/* 4 lumber at most 2 low: pin 3 lumbers with 2, 3, 12 nearby. */
	o.npins = 3;
	o.pins[0] = (catan_pin){{-2, 0}, CATAN_LUMBER, 2};
	o.pins[1] = (catan_pin){{0, -2}, CATAN_LUMBER, 3};
	o.pins[2] = (catan_pin){{2, 0}, CATAN_LUMBER, 12};
	t0 = now();
	rc = catan_board_generate(&b, &o, &rep);
	dt = now() - t0;
	printf("infeasible pins (3 low lumber): rc=%d status=%d in %.3f ms: "
	       "%s\n",
	       rc, rep.status, dt * 1e3, rep.why);
	/* A pip limit of 7 with every rule: needs a search to refute. */
	catan_genopts_default(&o);
	o.max_pips = 7;
	t0 = now();
	rc = catan_board_generate(&b, &o, &rep);
	dt = now() - t0;
	printf("max-pips 7: rc=%d status=%d in %.3f ms: %s\n", rc, rep.status,
	       dt * 1e3, rep.why);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: catan-boardgen-bench [--boards N] [--radius R | --ext56]\n"
		"                            [--rules MASK] [--max-pips N]\n"
		"                            [--method auto|exact|search] "
		"[--fairness]\n"
		"                            [--infeasible] [--budget N] [--mix N]\n"
		"                            [--dump FILE]\n"
		"  generates N balanced boards (seeds 1..N, default 10000) and "
		"prints the\n"
		"  time per board, boards/s, how many are distinct and how many "
		"came from\n"
		"  the exact sampler; --fairness how evenly each resource and "
		"token lands\n"
		"  on each position (--dump writes every frequency to FILE);\n"
		"  --infeasible times the answer to pins no board can satisfy.\n");
}

int main(int argc, char **argv)
{
	catan_genopts o;
	int boards = 10000, fairness = 0;
	const char *dump = NULL;
	catan_genopts_default(&o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--boards"))
			boards = atoi(v), i++;
		else if (!strcmp(a, "--radius"))
			o.radius = (uint8_t)atoi(v), i++;
		else if (!strcmp(a, "--ext56"))
			o.shape = CATAN_SHAPE_EXT56;
		else if (!strcmp(a, "--rules"))
			o.rules = (uint8_t)strtoul(v, NULL, 0), i++;
		else if (!strcmp(a, "--max-pips"))
			o.max_pips = (uint8_t)atoi(v), i++;
		else if (!strcmp(a, "--method")) {
			o.method = !strcmp(v, "exact")	  ? CATAN_GEN_EXACT
				   : !strcmp(v, "search") ? CATAN_GEN_SEARCH
							  : CATAN_GEN_AUTO;
			i++;
		} else if (!strcmp(a, "--budget"))
			o.budget = (uint32_t)strtoul(v, NULL, 0), i++;
		else if (!strcmp(a, "--mix"))
			o.mix = (uint32_t)strtoul(v, NULL, 0), i++;
		else if (!strcmp(a, "--fairness"))
			fairness = 1;
		else if (!strcmp(a, "--dump"))
			dump = v, fairness = 1, i++;
		else if (!strcmp(a, "--infeasible"))
			return infeasible();
		else {
			usage(stderr);
			return 2;
		}
	}
	if (boards < 1)
		boards = 1;
	double *times = malloc(sizeof(double) * (size_t)boards);
	size_t cap = 1;
	while (cap < 2 * (size_t)boards)
		cap <<= 1;
	uint64_t *seen = calloc(cap, sizeof *seen);
	static long res_at[CATAN_MAX_TILES][CATAN_RES_COUNT + 1];
	static long tok_at[CATAN_MAX_TILES][13];
	long distinct = 0, exact = 0, failed = 0;
	uint64_t steps = 0;
	catan_board b;
	int ntiles = 0;

	double start = now();
	for (int i = 0; i < boards; i++) {
		catan_genreport rep;
		o.seed = (uint64_t)i + 1;
		double t0 = now();
		int rc = catan_board_generate(&b, &o, &rep);
		times[i] = now() - t0;
		steps += rep.steps;
		if (rc) {
			failed++;
			continue;
		}
		ntiles = b.ntiles;
		exact += rep.exact;
		uint64_t h = board_hash(&b);
		size_t j = h & (cap - 1);
		while (seen[j] && seen[j] != h)
			j = (j + 1) & (cap - 1);
		if (!seen[j]) {
			seen[j] = h;
			distinct++;
		}
		if (fairness)
			for (int t = 0; t < b.ntiles; t++) {
				res_at[t][b.tile_terrain[t]]++;
				tok_at[t][b.tile_token[t]]++;
			}
	}
	double total = now() - start;
	qsort(times, (size_t)boards, sizeof *times, cmp_double);
	printf("shape %s radius %d rules 0x%02x max-pips %d method %s\n",
	       o.shape == CATAN_SHAPE_EXT56 ? "5-6" : "hexagon", o.radius,
	       o.rules, o.max_pips,
	       o.method == CATAN_GEN_EXACT    ? "exact"
	       : o.method == CATAN_GEN_SEARCH ? "search"
					      : "auto");
	printf("boards %d  failed %ld  distinct %ld  exact %ld\n", boards,
	       failed, distinct, exact);
	printf("median %.3f ms  mean %.3f ms  p99 %.3f ms  max %.3f ms  "
	       "%.0f boards/s  %.0f steps/board\n",
	       times[boards / 2] * 1e3, total / boards * 1e3,
	       times[(size_t)boards * 99 / 100] * 1e3, times[boards - 1] * 1e3,
	       boards / total, (double)steps / boards);
	if (fairness && ntiles) {
		static const char *names[] = {"lumber", "brick", "wool",
					      "grain",	"ore",	 "desert"};
		int centre = catan_board_tile(&b, 0, 0);
		if (centre < 0)
			centre = 0;
		printf("fairness: per position frequency / mean over "
		       "positions (min .. max)\n");
		for (int x = 0; x <= CATAN_RES_COUNT; x++) {
			long lo = -1, hi = 0, sum = 0;
			for (int t = 0; t < ntiles; t++) {
				long c = res_at[t][x];
				sum += c;
				lo = lo < 0 || c < lo ? c : lo;
				hi = c > hi ? c : hi;
			}
			double mean = (double)sum / ntiles;
			printf("  %-7s %.3f .. %.3f  (centre %.3f)\n", names[x],
			       lo / mean, hi / mean, res_at[centre][x] / mean);
		}
		for (int k = 2; k <= 12; k++) {
			if (k == 7)
				continue;
			long lo = -1, hi = 0, sum = 0;
			for (int t = 0; t < ntiles; t++) {
				long c = tok_at[t][k];
				sum += c;
				lo = lo < 0 || c < lo ? c : lo;
				hi = c > hi ? c : hi;
			}
			if (!sum)
				continue;
			double mean = (double)sum / ntiles;
			printf("  token %-2d %.3f .. %.3f  (centre %.3f)\n", k,
			       lo / mean, hi / mean, tok_at[centre][k] / mean);
		}
	}
	FILE *df = dump ? fopen(dump, "w") : NULL;
	for (int t = 0; df && t < ntiles; t++) {
		for (int x = 0; x <= CATAN_RES_COUNT; x++)
			fprintf(df, "%d terrain %d %.6f\n", t, x,
				(double)res_at[t][x] / boards);
		for (int k = 2; k <= 12; k++)
			if (k != 7)
				fprintf(df, "%d token %d %.6f\n", t, k,
					(double)tok_at[t][k] / boards);
	}
	if (df)
		fclose(df);
	free(times);
	free(seen);
	return failed ? 1 : 0;
}
