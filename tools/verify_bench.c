/*
 * verify_bench.c - does every honest game verify, and does the decoder agree
 * with the rules at every commit?
 *
 * Plays N games between random bots through catan_store_act, each into a
 * repository of its own, then reopens the repository and runs
 * catan_store_verify on it, as `catan verify` does. The games vary, by their
 * index g: 2 to 6 players; the board random, balanced (catan_board_generate),
 * the beginner board (2-4 players), or a crafted board whose harbours lie on
 * every other coastal side (as many as fit with no two sharing a corner),
 * written as a board file and parsed back; combined or classic phases;
 * seeded or manual dice; bots with or without domestic offers (two a turn).
 *
 * With --decode, the state the rules produced at every commit is encoded
 * (the commit's tree) and decoded again (as `catan act` and `show` read a
 * state back, through catan_state_derive), and the two must be equal byte
 * for byte.
 *
 *   catan-verify-bench [--games N] [--seed S] [--decode] [--dir DIR]
 *                      [--keep] [--quiet] [--signed]
 *
 * With --signed every game is signed (a key per seat, made at random):
 * every commit carries its author's signature, which verify checks.
 *
 * Exits 0 when every game verified (and decoded), 1 at the first failure,
 * naming the game, the commit and the reason; 2 on bad arguments.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchdir.h"
#include "catan/boardfile.h"
#include "catan/boardgen.h"
#include "catan/bot.h"
#include "catan/codec.h"
#include "catan/sign.h"
#include "catan/store.h"

#define MAX_ACTIONS 100000

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const board_kinds[] = {"random", "balanced", "beginner",
					  "harbours"};

/*
 * Lays harbours on every other coastal side of b, walking the edges in id
 * order and keeping each coastal side that shares no corner with one kept
 * before, up to CATAN_MAX_HARBOURS; kinds cycle over the resources and 3:1.
 * Then writes the board as a board file and parses it back into *b, so the
 * game is played on what a hand-written file gives.
 */
static int harbour_board(catan_board *b)
{
	bool used[CATAN_MAX_VERTICES] = {false};
	int nh = 0;
	for (int e = 0; e < b->nedges && nh < CATAN_MAX_HARBOURS; e++) {
		int land = 0, v0 = b->edge_vertices[e][0],
		    v1 = b->edge_vertices[e][1];
		for (int t = 0; t < b->ntiles; t++)
			for (int s = 0; s < 6; s++)
				land += b->tile_edges[t][s] == e;
		if (land != 1 || used[v0] || used[v1])
			continue;
		used[v0] = used[v1] = true;
		b->harbour_edge[nh] = (uint8_t)e;
		b->harbour_kind[nh] = (uint8_t)(nh % CATAN_HARBOUR_KINDS);
		nh++;
	}
	b->nharbours = (uint8_t)nh;
	catan_board_finish(b);
	char text[16384];
	catan_boardfile_error be;
	if (catan_boardfile_format(text, sizeof text, b) >= (int)sizeof text ||
	    catan_boardfile_parse(b, text, &be)) {
		fprintf(stderr,
			"catan-verify-bench: crafted board refused: "
			"line %d: %s\n",
			be.line, be.msg);
		return -1;
	}
	return 0;
}

/* The game of index g (seed base + g), as the header describes. */
static int make_game(catan_game *game, long g, uint64_t base, unsigned *flags,
		     const char **kind)
{
	uint64_t seed = base + (uint64_t)g;
	int players = 2 + (int)(g % 5), k = (int)((g / 5) % 4);
	bool ext = players > CATAN_MAX_PLAYERS_BASE;
	memset(game, 0, sizeof *game);
	catan_options_default(&game->opt);
	game->opt.nplayers = (uint8_t)players;
	game->opt.seed = seed;
	/* (Periods prime to 5, so a few dozen games mix everything.) */
	game->opt.phases =
	    (g / 2) % 2 ? CATAN_PHASES_CLASSIC : CATAN_PHASES_COMBINED;
	game->opt.dice =
	    (g / 3) % 3 == 2 ? CATAN_DICE_MANUAL : CATAN_DICE_SEEDED;
	game->opt.special_build = ext;
	/* Random offers without a limit can run a game for ever. */
	*flags = (g / 7) % 2 ? 0 : CATAN_LEGAL_NO_OFFERS;
	game->opt.offer_limit = *flags ? 0 : 2;
	catan_names_default(&game->names, players);
	*kind = board_kinds[k];
	if (k == 1 || (k == 3 && ext)) {
		catan_genopts go;
		catan_genreport gr;
		catan_genopts_default(&go);
		go.seed = seed;
		if (ext)
			go.shape = CATAN_SHAPE_EXT56;
		if (catan_board_generate(&game->board, &go, &gr)) {
			fprintf(stderr, "catan-verify-bench: %s\n", gr.why);
			return -1;
		}
	} else if (ext) {
		if (catan_board_random_ext56(&game->board, seed))
			return -1;
	} else if (k == 2 || k == 3) {
		catan_board_beginner(&game->board);
	} else {
		catan_board_random(&game->board, seed);
	}
	return k == 3 ? harbour_board(&game->board) : 0;
}

/* decode(encode(st)) == st, or a sentence in why. */
static int decode_agrees(const catan_game *game, const catan_state *st,
			 char *why, size_t n)
{
	catan_files f;
	catan_state back;
	catan_codec_error ce;
	int rc = 0;
	catan_files_init(&f);
	memset(&back, 0, sizeof back);
	if (catan_codec_encode_state(&f, game, st)) {
		snprintf(why, n, "encode failed (out of memory)");
		rc = -1;
	} else if (catan_codec_decode_state(&back, game, &f, &ce)) {
		snprintf(why, n, "decode refused the encoding: %s:%d: %s",
			 ce.path, ce.line, ce.msg);
		rc = -1;
	} else if (memcmp(&back, st, sizeof back)) {
		size_t at = 0;
		const unsigned char *x = (const void *)&back,
				    *y = (const void *)st;
		while (x[at] == y[at])
			at++;
		snprintf(why, n,
			 "decoded state differs from the rules' state at byte "
			 "%zu of %zu",
			 at, sizeof back);
		rc = -1;
	}
	catan_files_free(&f);
	return rc;
}

typedef struct totals {
	long games, commits, merges, decoded;
	double play, verify;
} totals;

static bool sign_commits;

static int one_game(totals *tot, const char *root, long g, uint64_t base,
		    bool decode, bool keep)
{
	catan_game game;
	unsigned flags;
	const char *kind;
	char dir[4096], why[256];
	catan_err err;
	catan_store *s = NULL;
	int rc = -1;

	if (make_game(&game, g, base, &flags, &kind))
		return -1;
	snprintf(dir, sizeof dir, "%s/game-%05ld", root, g);
	double t0 = now_s();
	catan_key keys[CATAN_MAX_PLAYERS];
	catan_sign_why sw;
	for (int p = 0; sign_commits && p < game.opt.nplayers; p++) {
		if (catan_key_generate(&keys[p], &sw))
			return -1;
		memcpy(game.keys[p], keys[p].pk, sizeof keys[p].pk);
		game.signed_game = true;
	}
	if (catan_store_create_keyed(&s, dir, &game, CATAN_TIME_DETERMINISTIC,
				     true, sign_commits ? &keys[0] : NULL,
				     &err)) {
		fprintf(stderr, "catan-verify-bench: %s: %s\n", dir, err.msg);
		goto done;
	}
	for (int p = 1; sign_commits && p < game.opt.nplayers; p++)
		if (catan_store_set_key(s, p, &keys[p], &err)) {
			fprintf(stderr, "catan-verify-bench: %s\n", err.msg);
			goto done;
		}
	catan_state st;
	catan_state_init(&st, &game.board, &game.opt);
	catan_rng bot;
	catan_rng_seed(&bot, (base + (uint64_t)g) * 2654435761u + 17);
	long n = 0;
	while (st.phase != CATAN_PHASE_OVER && n < MAX_ACTIONS) {
		catan_action a;
		int who = catan_state_next_actor(&st);
		if (catan_bot_choose(&a, CATAN_BOT_RANDOM, &game.board, &st,
				     who, &bot, flags) ||
		    catan_state_apply(&st, &game.board, &st, who, &a, NULL)) {
			fprintf(stderr, "catan-verify-bench: bot stuck in %s\n",
				dir);
			goto done;
		}
		if (catan_store_act(s, who, &a, NULL, NULL, &err)) {
			fprintf(stderr,
				"catan-verify-bench: %s: action %ld: %s\n", dir,
				n + 1, err.msg);
			goto done;
		}
		n++;
		if (decode) {
			if (decode_agrees(&game, &st, why, sizeof why)) {
				char text[160];
				catan_action_format(text, sizeof text,
						    &game.board, &game.names,
						    &a);
				fprintf(stderr,
					"catan-verify-bench: %s: after action "
					"%ld (%s: %s): %s\n",
					dir, n, game.names.name[who], text,
					why);
				goto done;
			}
			tot->decoded++;
		}
	}
	if (catan_store_flush(s, &err)) {
		fprintf(stderr, "catan-verify-bench: %s: %s\n", dir, err.msg);
		goto done;
	}
	catan_store_free(s);
	s = NULL;
	double t1 = now_s();
	catan_verify_report rep;
	if (catan_store_open(&s, dir, &err) ||
	    catan_store_verify(s, &rep, &err)) {
		fprintf(stderr, "catan-verify-bench: %s: %s\n", dir, err.msg);
		goto done;
	}
	double t2 = now_s();
	if (!rep.ok) {
		fprintf(stderr,
			"catan-verify-bench: %s (%d players, %s board): "
			"verify failed at %s: %s\n",
			dir, game.opt.nplayers, kind, rep.bad.hex, rep.why);
		goto done;
	}
	tot->games++;
	tot->commits += rep.commits;
	tot->merges += rep.merges;
	tot->play += t1 - t0;
	tot->verify += t2 - t1;
	rc = 0;
done:
	catan_store_free(s);
	if (rc == 0 && !keep) {
		if (bench_rmtree(dir))
			fprintf(stderr,
				"catan-verify-bench: cannot remove %s\n", dir);
	}
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: catan-verify-bench [--games N] [--seed S] "
		   "[--decode] [--dir DIR] [--keep] [--quiet] [--signed]\n"
		   "  --signed plays signed games: every commit signed, every "
		   "signature checked\n"
		   "  plays N games (2-6 players, random, balanced, beginner "
		   "and crafted boards)\n"
		   "  into DIR (default: a new folder under /tmp) and verifies "
		   "each;\n"
		   "  --decode also checks decode(encode(state)) == state "
		   "after every action\n");
}

int main(int argc, char **argv)
{
	long games = 100;
	uint64_t seed = 1;
	bool decode = false, keep = false, quiet = false;
	const char *root = NULL;
	char tmp[64] = "/tmp/catan-verify-bench-XXXXXX";

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--signed")) {
			sign_commits = true;
		} else if (!strcmp(a, "--decode")) {
			decode = true;
		} else if (!strcmp(a, "--keep")) {
			keep = true;
		} else if (!strcmp(a, "--quiet")) {
			quiet = true;
		} else if (!strcmp(a, "--games") && v) {
			errno = 0;
			games = strtol(v, &end, 10);
			if (errno || *end || games < 1 || games > 10000000) {
				fprintf(stderr, "catan-verify-bench: --games "
						"takes 1 to 10000000\n");
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--seed") && v) {
			errno = 0;
			seed = strtoull(v, &end, 10);
			if (errno || *end || *v == '-') {
				fprintf(stderr, "catan-verify-bench: --seed "
						"takes a number below 2^64\n");
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--dir") && v) {
			root = v;
			i++;
		} else {
			fprintf(stderr,
				"catan-verify-bench: unknown or "
				"incomplete option %s\n",
				a);
			usage(stderr);
			return 2;
		}
	}
	if (!root) {
		if (!mkdtemp(tmp)) {
			perror("catan-verify-bench: mkdtemp");
			return 1;
		}
		root = tmp;
	} else if (mkdir(root, 0777) && errno != EEXIST) {
		fprintf(stderr, "catan-verify-bench: cannot create %s: %s\n",
			root, strerror(errno));
		return 1;
	}

	totals tot;
	memset(&tot, 0, sizeof tot);
	double t0 = now_s();
	int rc = 0;
	for (long g = 0; g < games && rc == 0; g++) {
		rc = one_game(&tot, root, g, seed, decode, keep);
		if (!quiet && (g + 1) % 100 == 0)
			fprintf(stderr,
				"\rcatan-verify-bench: %ld/%ld games, %ld "
				"commits",
				g + 1, games, tot.commits);
	}
	if (!quiet && games >= 100)
		fputc('\n', stderr);
	if (!keep && root == tmp)
		rmdir(tmp);
	double all = now_s() - t0;
	printf(
	    "%s: %ld%s games, %ld commits (%ld discard merges) verified%s in "
	    "%.1f s\n"
	    "  play + commit %.3f s, verify %.3f s (%.3f ms per commit)\n",
	    rc ? "FAILED" : "ok", tot.games, sign_commits ? " signed" : "",
	    tot.commits, tot.merges,
	    decode ? ", decode == rules at every commit" : "", all, tot.play,
	    tot.verify,
	    tot.commits ? tot.verify * 1e3 / (double)tot.commits : 0.0);
	if (decode)
		printf("  %ld states decoded and compared\n", tot.decoded);
	return rc ? 1 : 0;
}
