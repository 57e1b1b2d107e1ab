/*
 * fair_bench.c - fair dice, measured: are the rolls fair, and what does
 * the fairness cost?
 *
 * Plays games between random bots with fair dice (a signed game, every
 * seat's key in one handle, batch mode as in simulate) until N rolls are
 * done, then prints:
 *   - the frequencies of the sums 2..12 against two fair dice, Pearson's
 *     chi-square (10 degrees of freedom) and the share of doubles;
 *   - compute + commit per action (signing, chain values and the
 *     outcome included), and the commits a chance outcome takes;
 *   - catan verify per commit, signatures and chains included;
 *   - bytes per commit in the pack the game is flushed to.
 * --check exits 1 when the chi-square is over 29.59 (p < 0.001): the
 * test `fair_rolls` runs it.
 *
 *   catan-fair-bench [--rolls N] [--players 2..6] [--seed S] [--dir DIR]
 *                    [--check] [--keep] [--seeded]
 *
 * --seeded plays the same signed games with seeded dice, for comparison;
 * --keep leaves the repositories.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "benchdir.h"
#include "catan/boardgen.h"
#include "catan/bot.h"
#include "catan/sign.h"
#include "catan/store.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Bytes of the files under dir/.git/objects/pack (or dir/objects/pack). */
static long pack_bytes(const char *dir)
{
	char path[4400], f[4800];
	struct stat st;
	if (snprintf(path, sizeof path, "%s/.git/objects/pack", dir) >=
	    (int)sizeof path)
		return 0;
	if (stat(path, &st))
		snprintf(path, sizeof path, "%s/objects/pack", dir);
	DIR *d = opendir(path);
	long total = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (snprintf(f, sizeof f, "%s/%s", path, e->d_name) <
			(int)sizeof f &&
		    e->d_name[0] != '.' && stat(f, &st) == 0)
			total += (long)st.st_size;
	}
	if (d)
		closedir(d);
	return total;
}

typedef struct totals {
	long sums[13], doubles, rolls, commits, events;
	double *act_us;
	long act_n, act_cap;
	double verify_us;
	long verify_commits, bytes;
} totals;

/* One game to its end (or `left` rolls); 0, or 1 on failure. */
static bool seeded;

static int play(const char *dir, int players, uint64_t seed, long left,
		totals *t)
{
	catan_key keys[CATAN_MAX_PLAYERS];
	catan_sign_why why;
	catan_game g;
	catan_store *s = NULL;
	catan_err err;
	memset(&g, 0, sizeof g);
	catan_options_default(&g.opt);
	g.opt.nplayers = (uint8_t)players;
	g.opt.special_build = players > CATAN_MAX_PLAYERS_BASE;
	g.opt.dice = seeded ? CATAN_DICE_SEEDED : CATAN_DICE_FAIR;
	g.opt.seed = seed;
	catan_names_default(&g.names, players);
	if (players > CATAN_MAX_PLAYERS_BASE)
		catan_board_random_ext56(&g.board, seed);
	else
		catan_board_random(&g.board, seed);
	for (int p = 0; p < players; p++) {
		if (catan_key_generate(&keys[p], &why))
			return 1;
		memcpy(g.keys[p], keys[p].pk, sizeof keys[p].pk);
	}
	g.signed_game = true;
	if (catan_store_create_keyed(&s, dir, &g, CATAN_TIME_DETERMINISTIC,
				     true, &keys[0], &err))
		goto fail;
	for (int p = 1; p < players; p++)
		if (catan_store_set_key(s, p, &keys[p], &err))
			goto fail;
	catan_rng rng;
	catan_rng_seed(&rng, seed * 31 + 7);
	catan_state st;
	catan_commit_id head;
	long commits = 0;
	for (;;) {
		if (catan_store_current(&st, &head, s, &err))
			goto fail;
		if (st.phase == CATAN_PHASE_OVER || left <= 0 || st.turn > 2000)
			break;
		int who = catan_state_next_actor(&st);
		catan_action a;
		catan_outcome oc;
		if (catan_bot_choose(&a, CATAN_BOT_RANDOM, &g.board, &st, who,
				     &rng, CATAN_LEGAL_NO_OFFERS))
			goto fail;
		bool completes =
		    (st.phase == CATAN_PHASE_REVEAL && !st.reveal_wait) ||
		    (seeded && a.kind == CATAN_ACT_ROLL);
		double t0 = now_us();
		if (catan_store_act(s, who, &a, &oc, NULL, &err))
			goto fail;
		double dt = now_us() - t0;
		if (t->act_n == t->act_cap) {
			t->act_cap = t->act_cap ? 2 * t->act_cap : 4096;
			t->act_us = realloc(t->act_us, sizeof(double) *
							   (size_t)t->act_cap);
			if (!t->act_us)
				return 1;
		}
		t->act_us[t->act_n++] = dt;
		commits++;
		if (completes) {
			t->events++;
			if (a.kind == CATAN_ACT_ROLL) {
				t->sums[oc.dice[0] + oc.dice[1]]++;
				t->doubles += oc.dice[0] == oc.dice[1];
				t->rolls++;
				left--;
			}
		}
	}
	if (catan_store_flush(s, &err))
		goto fail;
	catan_verify_report rep;
	double v0 = now_us();
	if (catan_store_verify(s, &rep, &err) || !rep.ok) {
		fprintf(stderr, "catan-fair-bench: verify: %s\n",
			rep.ok ? err.msg : rep.why);
		catan_store_free(s);
		return 1;
	}
	t->verify_us += now_us() - v0;
	t->verify_commits += rep.commits;
	t->commits += commits;
	catan_store_free(s);
	t->bytes += pack_bytes(dir);
	return 0;
fail:
	fprintf(stderr, "catan-fair-bench: %s\n", err.msg);
	catan_store_free(s);
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: catan-fair-bench [--rolls N] [--players 2..6] "
		   "[--seed S] [--dir DIR] [--check] [--keep] [--seeded]\n"
		   "  games between random bots with fair dice until N rolls "
		   "(default 10000):\n"
		   "  the sums' chi-square against two dice, compute + commit "
		   "and verify per\n"
		   "  commit, and pack bytes per commit. --check: exit 1 when "
		   "the chi-square\n"
		   "  is over 29.59 (p < 0.001 with 10 degrees of freedom).\n");
}

int main(int argc, char **argv)
{
	long rolls = 10000;
	int players = 4;
	unsigned long long seed = 1;
	const char *parent = NULL;
	bool check = false, keep = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--check")) {
			check = true;
		} else if (!strcmp(a, "--keep")) {
			keep = true;
		} else if (!strcmp(a, "--seeded")) {
			seeded = true;
		} else if (!strcmp(a, "--rolls") && v) {
			rolls = atol(v);
			i++;
		} else if (!strcmp(a, "--players") && v) {
			players = atoi(v);
			i++;
		} else if (!strcmp(a, "--seed") && v) {
			seed = strtoull(v, NULL, 10);
			i++;
		} else if (!strcmp(a, "--dir") && v) {
			parent = v;
			i++;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (rolls < 1 || players < 2 || players > CATAN_MAX_PLAYERS) {
		usage(stderr);
		return 2;
	}
	char top[4096];
	if (bench_dir(top, sizeof top, parent, "catan-fair-bench"))
		return 1;
	totals t;
	memset(&t, 0, sizeof t);
	for (int game = 0; t.rolls < rolls; game++) {
		char dir[4200];
		snprintf(dir, sizeof dir, "%s/game-%d", top, game);
		if (play(dir, players, seed + (uint64_t)game, rolls - t.rolls,
			 &t))
			return 1;
	}
	if (keep)
		printf("repositories kept in %s\n", top);
	else
		bench_rmtree(top);
	double chi = 0;
	printf("%ld fair rolls, %d players: sum  seen  expected\n", t.rolls,
	       players);
	for (int k = 2; k <= 12; k++) {
		double e = (6 - abs(k - 7)) / 36.0 * (double)t.rolls;
		chi += (t.sums[k] - e) * (t.sums[k] - e) / e;
		printf("  %2d %6ld %9.1f\n", k, t.sums[k], e);
	}
	printf("chi-square %.2f (10 degrees of freedom; 29.59 is p = "
	       "0.001); doubles %.4f (1/6 = 0.1667)\n",
	       chi, (double)t.doubles / (double)t.rolls);
	qsort(t.act_us, (size_t)t.act_n, sizeof(double), cmp);
	if (seeded)
		printf("%ld commits, seeded dice\n", t.commits);
	else
		printf("%ld commits, %ld chance outcomes (each a request, %d "
		       "reveals and a completion: fair dice add %.0f%% "
		       "commits)\n",
		       t.commits, t.events, players - 1,
		       100.0 * (double)(t.events * players) /
			   (double)(t.commits - t.events * players));
	printf("compute + commit per action: median %.1f us, p90 %.1f us "
	       "(signing and chain values included)\n",
	       t.act_us[t.act_n / 2], t.act_us[t.act_n * 9 / 10]);
	printf("verify: %.3f ms per commit (%ld commits, signatures and "
	       "chains included)\n",
	       t.verify_us / 1e3 / (double)t.verify_commits, t.verify_commits);
	printf("pack: %.0f B per commit\n",
	       (double)t.bytes / (double)t.commits);
	free(t.act_us);
	return check && chi > 29.59 ? 1 : 0;
}
