/*
 * test_codec.c - the canonical text form of games and states
 * (catan/codec.h, spec/format.md): round trips byte for byte, and strict
 * decoding that names the file and line of every defect.
 */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "store_helpers.h"

/* ---- utilities ---- */

static void assert_files_equal(const catan_files *a, const catan_files *b)
{
	assert_int_equal(a->n, b->n);
	for (int i = 0; i < a->n; i++) {
		const catan_file *x = &a->file[i];
		const catan_file *y = catan_files_get(b, x->path);
		if (!y)
			fail_msg("file %s missing after the round trip",
				 x->path);
		if (x->len != y->len || memcmp(x->data, y->data, x->len))
			fail_msg("file %s differs:\n%s---\n%s", x->path,
				 x->data, y->data);
	}
}

/*
 * encode(s) -> decode -> encode gives the same bytes, and the decoded
 * state hashes like s. Returns 0, or -1 with the reason in why.
 */
static int try_round_trip(const catan_game *g, const catan_state *s,
			  char *why, size_t size)
{
	catan_files f, again;
	catan_state back;
	catan_codec_error err;
	int rc = -1;
	catan_files_init(&f);
	catan_files_init(&again);
	sh_encode_all(&f, g, s);
	memset(&err, 0, sizeof err);
	if (catan_codec_decode_state(&back, g, &f, &err)) {
		snprintf(why, size, "decode failed: %s:%d: %s", err.path,
			 err.line, err.msg);
		goto done;
	}
	sh_encode_all(&again, g, &back);
	for (int i = 0; i < f.n; i++) {
		const catan_file *x = &f.file[i];
		const catan_file *y = catan_files_get(&again, x->path);
		if (!y || x->len != y->len || memcmp(x->data, y->data, x->len)) {
			snprintf(why, size, "file %s differs after the round "
					    "trip",
				 x->path);
			goto done;
		}
	}
	if (f.n != again.n) {
		snprintf(why, size, "%d files, %d after the round trip", f.n,
			 again.n);
		goto done;
	}
	if (catan_state_hash(&back) != catan_state_hash(s)) {
		snprintf(why, size, "decoded state hashes differently");
		goto done;
	}
	rc = 0;
done:
	catan_files_free(&f);
	catan_files_free(&again);
	return rc;
}

static void round_trip_state(const catan_game *g, const catan_state *s)
{
	char why[300];
	if (try_round_trip(g, s, why, sizeof why))
		fail_msg("%s", why);
}

/* Files of a game and state; the caller edits them and decodes. */
typedef struct fixture {
	catan_game g;
	catan_state s;
	catan_files f;
} fixture;

/* A 4-player beginner game, set-up done and a few turns played. */
static void fixture_played(fixture *fx)
{
	catan_rng rng;
	sh_game(&fx->g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 11);
	assert_int_equal(catan_state_init(&fx->s, &fx->g.board, &fx->g.opt),
			 CATAN_OK);
	th_play_setup(&fx->g.board, &fx->s);
	catan_rng_seed(&rng, 5);
	for (int i = 0; i < 40 && fx->s.phase != CATAN_PHASE_OVER; i++) {
		catan_action a;
		int who = catan_state_next_actor(&fx->s);
		assert_int_equal(catan_bot_choose(&a, CATAN_BOT_RANDOM,
						  &fx->g.board, &fx->s, who,
						  &rng, CATAN_LEGAL_NO_OFFERS),
				 CATAN_OK);
		assert_int_equal(catan_state_apply(&fx->s, &fx->g.board,
						   &fx->s, who, &a, NULL),
				 CATAN_OK);
	}
	catan_files_init(&fx->f);
	sh_encode_all(&fx->f, &fx->g, &fx->s);
}

/*
 * Rebuilds fx->f with file `path` replaced by `data` (NULL: removed), and
 * optionally one extra file.
 */
static void edit(fixture *fx, const char *path, const char *data,
		 const char *extra_path)
{
	catan_files nf;
	catan_files_init(&nf);
	for (int i = 0; i < fx->f.n; i++) {
		const catan_file *x = &fx->f.file[i];
		if (!strcmp(x->path, path)) {
			if (data)
				assert_int_equal(catan_files_add(&nf, path, data,
								 strlen(data)),
						 0);
			continue;
		}
		assert_int_equal(catan_files_add(&nf, x->path, x->data, x->len),
				 0);
	}
	if (extra_path)
		assert_int_equal(catan_files_add(&nf, extra_path, "x\n", 2), 0);
	catan_files_free(&fx->f);
	fx->f = nf;
}

/* The text of file `path` (static buffer). */
static const char *text_of(fixture *fx, const char *path)
{
	static char buf[8192];
	const catan_file *x = catan_files_get(&fx->f, path);
	assert_non_null(x);
	assert_true(x->len < sizeof buf);
	memcpy(buf, x->data, x->len + 1);
	return buf;
}

static void expect_state_error(fixture *fx, const char *path, int line,
			       const char *msg_part)
{
	catan_state out;
	catan_codec_error err;
	memset(&err, 0, sizeof err);
	/* The files are freed before failing: cmocka does not return. */
	if (!catan_codec_decode_state(&out, &fx->g, &fx->f, &err)) {
		catan_files_free(&fx->f);
		fail_msg("decoding accepted a defect in %s", path);
	}
	if (strcmp(err.path, path) || err.line != line) {
		catan_files_free(&fx->f);
		fail_msg("expected %s:%d, got %s:%d: %s", path, line, err.path,
			 err.line, err.msg);
	}
	if (msg_part && !strstr(err.msg, msg_part)) {
		catan_files_free(&fx->f);
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, msg_part);
	}
}

static void fixture_free(fixture *fx)
{
	catan_files_free(&fx->f);
}

/*
 * Finds the first line of a state file that contains `needle`: its path and
 * 1-based line number. Locating lines by content keeps these tests about
 * the rules of the format (canonical numbers, order, names) rather than
 * about which file holds which fact.
 */
static void locate(fixture *fx, const char *needle, char *path, int *line)
{
	for (int i = 0; i < fx->f.n; i++) {
		const catan_file *x = &fx->f.file[i];
		if (!strncmp(x->path, "game/", 5))
			continue;
		int ln = 1;
		for (const char *p = x->data; p < x->data + x->len; ln++) {
			const char *nl = memchr(p, '\n',
						(size_t)(x->data + x->len - p));
			size_t n = nl ? (size_t)(nl - p)
				      : (size_t)(x->data + x->len - p);
			char cur[512];
			snprintf(cur, sizeof cur, "%.*s", (int)n, p);
			if (strstr(cur, needle)) {
				snprintf(path, CATAN_PATH_MAX, "%s", x->path);
				*line = ln;
				return;
			}
			p += n + 1;
		}
	}
	fail_msg("no state file has a line with \"%s\"", needle);
}

/* Replaces line `line` (1-based) of `path` by `text` (no newline). */
static void edit_line(fixture *fx, const char *path, int line,
		      const char *text)
{
	char out[8192];
	const char *t = text_of(fx, path), *p = t;
	for (int i = 1; i < line; i++)
		p = strchr(p, '\n') + 1;
	const char *end = strchr(p, '\n');
	assert_non_null(end);
	snprintf(out, sizeof out, "%.*s%s%s", (int)(p - t), t, text, end);
	edit(fx, path, out, NULL);
}

/* The text of line `line` of `path`, without its newline. */
static void line_of(fixture *fx, const char *path, int line, char *out,
		    size_t size)
{
	const char *p = text_of(fx, path);
	for (int i = 1; i < line; i++)
		p = strchr(p, '\n') + 1;
	const char *end = strchr(p, '\n');
	assert_non_null(end);
	snprintf(out, size, "%.*s", (int)(end - p), p);
}

/* The line of now that holds player p's hand (the last lines). */
static int hand_line(fixture *fx, int p)
{
	int lines = 0;
	for (const char *c = text_of(fx, "now"); *c; c++)
		lines += *c == '\n';
	return lines - fx->g.opt.nplayers + 1 + p;
}

/* Inserts `text` (no newline) as line `line` (1-based) of `path`. */
static void insert_line(fixture *fx, const char *path, int line,
			const char *text)
{
	char out[8192];
	const char *t = text_of(fx, path), *p = t;
	for (int i = 1; i < line; i++)
		p = strchr(p, '\n') + 1;
	snprintf(out, sizeof out, "%.*s%s\n%s", (int)(p - t), t, text, p);
	edit(fx, path, out, NULL);
}

/* Swaps lines `line` and `line` + 1 of `path`. */
static void swap_lines(fixture *fx, const char *path, int line)
{
	char a[512], b[512], both[1030];
	line_of(fx, path, line, a, sizeof a);
	line_of(fx, path, line + 1, b, sizeof b);
	snprintf(both, sizeof both, "%s\n%s", b, a);
	/* Replace line `line` by both and drop line `line` + 1. */
	char out[8192];
	const char *t = text_of(fx, path), *p = t;
	for (int i = 1; i < line; i++)
		p = strchr(p, '\n') + 1;
	const char *end = strchr(strchr(p, '\n') + 1, '\n');
	assert_non_null(end);
	snprintf(out, sizeof out, "%.*s%s%s", (int)(p - t), t, both, end);
	edit(fx, path, out, NULL);
}

/* ---- round trips ---- */

static void test_codec__initial_state_round_trip(void **st)
{
	(void)st;
	for (int n = 2; n <= 4; n++) {
		catan_game g;
		catan_state s;
		sh_game(&g, n, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
			CATAN_DICE_SEEDED, 42);
		assert_int_equal(catan_state_init(&s, &g.board, &g.opt),
				 CATAN_OK);
		round_trip_state(&g, &s);
	}
}

/* Facts of spec/format.md that do not depend on the file layout. */
static void test_codec__initial_files_are_as_documented(void **st)
{
	catan_game g;
	catan_state s;
	catan_files f, f2;
	(void)st;
	sh_game(&g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 42);
	assert_int_equal(catan_state_init(&s, &g.board, &g.opt), CATAN_OK);
	catan_files_init(&f);
	sh_encode_all(&f, &g, &s);
	assert_true(f.n <= CATAN_FILES_MAX);
	assert_string_equal(catan_files_get(&f, "game/options")->data,
			    "players red blue white orange\nvp 10\n"
			    "phases combined\ndice seeded\noffer-limit 0\n"
			    "seed 42\n");
	assert_int_equal(strncmp(catan_files_get(&f, "game/board")->data,
				 "tile 0,-2 ", 10),
			 0);
	assert_null(catan_files_get(&f, "pending"));
	assert_string_equal(catan_files_get(&f, "robber")->data, "0,0\n");
	assert_int_equal(strncmp(catan_files_get(&f, "trophies")->data,
				 "longest-road none\nlargest-army none\n",
				 35),
			 0);
	assert_string_equal(catan_files_get(&f, "now")->data,
			    "turn 0 red setup\ndice 0 0\ndraws 0\n"
			    "red 0 0 0 0 0\nblue 0 0 0 0 0\n"
			    "white 0 0 0 0 0\norange 0 0 0 0 0\n");
	/* State files in path order, each UTF-8 text ending in a newline. */
	catan_files_init(&f2);
	assert_int_equal(catan_codec_encode_state(&f2, &g, &s), 0);
	for (int i = 0; i < f2.n; i++) {
		const catan_file *x = &f2.file[i];
		if (i)
			assert_true(strcmp(f2.file[i - 1].path, x->path) < 0);
		assert_true(x->len == 0 || x->data[x->len - 1] == '\n');
		assert_null(strstr(x->data, " \n"));
		assert_null(strstr(x->data, "  "));
		for (size_t k = 0; k < x->len; k++)
			assert_true((unsigned char)x->data[k] < 0x80 &&
				    x->data[k] != '\r' && x->data[k] != '\t');
	}
	catan_files_free(&f2);
	catan_files_free(&f);
}

struct game_kind {
	int n, phases, dice;
	sh_board board;
	uint64_t seed;
};

static void test_codec__every_state_of_random_games(void **st)
{
	static const struct game_kind kinds[] = {
	    {2, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, SH_BOARD_BEGINNER, 1},
	    {3, CATAN_PHASES_CLASSIC, CATAN_DICE_MANUAL, SH_BOARD_RANDOM, 2},
	    {4, CATAN_PHASES_COMBINED, CATAN_DICE_MANUAL, SH_BOARD_RANDOM, 3},
	    {4, CATAN_PHASES_CLASSIC, CATAN_DICE_SEEDED, SH_BOARD_BEGINNER, 4},
	    {2, CATAN_PHASES_CLASSIC, CATAN_DICE_MANUAL, SH_BOARD_BEGINNER, 5},
	    {3, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, SH_BOARD_HEX3, 6},
	    /* 5-6 players: special building phases, 24-card bank. */
	    {6, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, SH_BOARD_EXT56, 7},
	    {5, CATAN_PHASES_CLASSIC, CATAN_DICE_MANUAL, SH_BOARD_EXT56, 8},
	    /* Fair dice: requests, reveals, completions. */
	    {4, CATAN_PHASES_COMBINED, CATAN_DICE_FAIR, SH_BOARD_RANDOM, 9},
	    {5, CATAN_PHASES_CLASSIC, CATAN_DICE_FAIR, SH_BOARD_EXT56, 10},
	};
	(void)st;
	long states = 0, failures = 0, offers = 0;
	int phases_seen = 0;
	char first[600] = "", other[600] = "";
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		catan_game g;
		catan_state s;
		catan_rng rng;
		char why[300];
		sh_game(&g, kinds[k].n, kinds[k].board, kinds[k].phases,
			kinds[k].dice, kinds[k].seed);
		/* With offers on, a limit keeps offer chains finite. */
		g.opt.offer_limit = (uint8_t)(1 + k % 3);
		assert_int_equal(catan_state_init(&s, &g.board, &g.opt),
				 CATAN_OK);
		catan_rng_seed(&rng, 100 + kinds[k].seed);
		round_trip_state(&g, &s);
		int i;
		for (i = 0; i < 30000 && s.phase != CATAN_PHASE_OVER; i++) {
			catan_action a;
			int who = catan_state_next_actor(&s);
			if (s.phase == CATAN_PHASE_REVEAL && !s.reveal_wait) {
				/* Fair dice: an outcome from random bytes. */
				uint8_t r[32];
				for (int j = 0; j < 32; j++)
					r[j] =
					    (uint8_t)catan_rng_below(&rng, 256);
				catan_fair_outcome(&a, &s, r);
			} else {
				/* Offers on: flags 0. */
				assert_int_equal(
				    catan_bot_choose(&a, CATAN_BOT_RANDOM,
						     &g.board, &s, who, &rng,
						     0),
				    CATAN_OK);
			}
			assert_int_equal(catan_state_apply(&s, &g.board, &s,
							   who, &a, NULL),
					 CATAN_OK);
			phases_seen |= 1 << s.phase;
			offers += s.phase == CATAN_PHASE_OFFER;
			states++;
			/* Keep going after a failure: count them all. */
			if (try_round_trip(&g, &s, why, sizeof why)) {
				if (!failures++)
					snprintf(first, sizeof first,
						 "game %zu, action %d: %s", k,
						 i, why);
				/* Name a second kind of failure too. */
				if (!strstr(why, "give grain") && !*other)
					snprintf(other, sizeof other,
						 "game %zu, action %d: %s", k,
						 i, why);
			}
		}
		assert_int_equal(s.phase, CATAN_PHASE_OVER);
	}
	if (failures)
		fail_msg("%ld of %ld states (%ld with an offer pending) do not "
			 "round-trip; first: %s; first not giving grain: %s",
			 failures, states, offers, first,
			 *other ? other : "none");
	/* Every phase (discards, offers, fair reveals included) was encoded. */
	assert_int_equal(phases_seen, (1 << CATAN_PHASE_COUNT) - 1);
	assert_true(states > 1000);
}

/* A pending offer of each resource, given and asked for. */
static void test_codec__pending_offer_round_trip(void **st)
{
	(void)st;
	char failed[600] = "";
	for (int give = 0; give < CATAN_RES_COUNT; give++) {
		for (int get = 0; get < CATAN_RES_COUNT; get++) {
			catan_game g;
			catan_state s;
			char text[128], why[300];
			if (give == get)
				continue;
			sh_game(&g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
				CATAN_DICE_SEEDED, 42);
			assert_int_equal(catan_state_init(&s, &g.board, &g.opt),
					 CATAN_OK);
			th_play_setup(&g.board, &s);
			th_roll(&g.board, &s, 2, 3);
			th_clear_hand(&s, RED);
			th_clear_hand(&s, BLUE);
			th_give(&s, RED, 1, 1, 1, 1, 1);
			th_give(&s, BLUE, 1, 1, 1, 1, 1);
			snprintf(text, sizeof text,
				 "trade offer blue give %s:1 get %s:1",
				 catan_res_name(give), catan_res_name(get));
			th_do(&g.board, &s, RED, text);
			assert_int_equal(s.phase, CATAN_PHASE_OFFER);
			if (try_round_trip(&g, &s, why, sizeof why) &&
			    !*failed)
				snprintf(failed, sizeof failed, "\"%s\": %s",
					 text, why);
		}
	}
	if (*failed)
		fail_msg("%s", failed);
}

static void game_round_trip(const catan_game *g)
{
	catan_files f, again;
	catan_game back;
	catan_codec_error err;
	catan_files_init(&f);
	catan_files_init(&again);
	assert_int_equal(catan_codec_encode_game(&f, g), 0);
	assert_int_equal(f.n, 2);
	memset(&err, 0, sizeof err);
	if (catan_codec_decode_game(&back, &f, &err)) {
		catan_files_free(&f);
		fail_msg("decode_game: %s:%d: %s", err.path, err.line, err.msg);
	}
	assert_int_equal(catan_codec_encode_game(&again, &back), 0);
	assert_files_equal(&f, &again);
	assert_int_equal(back.board.ntiles, g->board.ntiles);
	assert_int_equal(back.board.nharbours, g->board.nharbours);
	assert_memory_equal(back.board.tile_terrain, g->board.tile_terrain,
			    (size_t)g->board.ntiles);
	assert_memory_equal(back.board.tile_token, g->board.tile_token,
			    (size_t)g->board.ntiles);
	assert_memory_equal(&back.board, &g->board, sizeof back.board);
	assert_int_equal(back.opt.nplayers, g->opt.nplayers);
	assert_int_equal(back.opt.vp_target, g->opt.vp_target);
	assert_int_equal(back.opt.phases, g->opt.phases);
	assert_int_equal(back.opt.dice, g->opt.dice);
	assert_int_equal(back.opt.offer_limit, g->opt.offer_limit);
	assert_int_equal(back.opt.special_build, g->opt.special_build);
	assert_true(back.opt.seed == g->opt.seed);
	assert_int_equal(back.names.n, g->names.n);
	for (int p = 0; p < g->names.n; p++)
		assert_string_equal(back.names.name[p], g->names.name[p]);
	catan_files_free(&f);
	catan_files_free(&again);
}

static void test_codec__game_round_trip_beginner(void **st)
{
	catan_game g;
	(void)st;
	sh_game(&g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 0);
	game_round_trip(&g);
	sh_game(&g, 2, SH_BOARD_BEGINNER, CATAN_PHASES_CLASSIC,
		CATAN_DICE_MANUAL, 1234567890123456789ull);
	g.opt.vp_target = 12;
	g.opt.offer_limit = 3;
	assert_int_equal(catan_names_parse(&g.names, "ann,bob_2"), CATAN_OK);
	game_round_trip(&g);
}

/* Every 64-bit seed encodes, so every one must decode (up to 2^64 - 1). */
static void test_codec__game_round_trip_largest_seeds(void **st)
{
	(void)st;
	static const uint64_t seeds[] = {
		18446744073709551609ull, 18446744073709551610ull,
		18446744073709551615ull};
	for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
		catan_game g;
		sh_game(&g, 3, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
			CATAN_DICE_SEEDED, seeds[i]);
		game_round_trip(&g);
	}
}

static void test_codec__game_round_trip_random(void **st)
{
	(void)st;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		catan_game g;
		sh_game(&g, 3, SH_BOARD_RANDOM, CATAN_PHASES_COMBINED,
			CATAN_DICE_SEEDED, seed * 7919);
		game_round_trip(&g);
	}
}

/*
 * A 6-player game on the 5-6 board with its robber on the second desert:
 * options carry the special building phase, the board its robber.
 */
static void test_codec__game_round_trip_six_players(void **st)
{
	catan_game g;
	catan_files f;
	(void)st;
	for (int sb = 0; sb <= 1; sb++) {
		sh_game(&g, 6, SH_BOARD_EXT56, CATAN_PHASES_COMBINED,
			CATAN_DICE_SEEDED, 11);
		g.opt.special_build = (uint8_t)sb;
		int second = -1, deserts = 0;
		for (int t = 0; t < g.board.ntiles; t++)
			if (g.board.tile_terrain[t] == CATAN_DESERT &&
			    ++deserts == 2)
				second = t;
		assert_int_equal(deserts, 2);
		g.board.robber_start = (uint8_t)second;
		game_round_trip(&g);
		catan_files_init(&f);
		assert_int_equal(catan_codec_encode_game(&f, &g), 0);
		const catan_file *o = catan_files_get(&f, "game/options");
		const catan_file *b = catan_files_get(&f, "game/board");
		assert_non_null(strstr(o->data, sb ? "\nspecial-build yes\n"
						   : "\nspecial-build no\n"));
		assert_non_null(strstr(b->data, "\nrobber "));
		catan_files_free(&f);
	}
	/* 2-4 player games write neither line. */
	sh_game(&g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 11);
	catan_files_init(&f);
	assert_int_equal(catan_codec_encode_game(&f, &g), 0);
	assert_null(strstr(catan_files_get(&f, "game/options")->data,
			   "special-build"));
	assert_null(strstr(catan_files_get(&f, "game/board")->data, "robber"));
	catan_files_free(&f);
}

static void test_codec__game_round_trip_hexagon3(void **st)
{
	catan_game g;
	(void)st;
	sh_game(&g, 4, SH_BOARD_HEX3, CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED,
		9);
	assert_int_equal(g.board.ntiles, 37);
	game_round_trip(&g);
}

/* ---- rejections ---- */

static void test_codec__rejects_missing_file(void **st)
{
	fixture fx;
	(void)st;
	fixture_played(&fx);
	edit(&fx, "robber", NULL, NULL);
	expect_state_error(&fx, "robber", 0, "missing file");
	fixture_free(&fx);
	fixture_played(&fx);
	edit(&fx, "now", NULL, NULL);
	expect_state_error(&fx, "now", 0, "missing file");
	fixture_free(&fx);
	/* Each file in turn. */
	fixture_played(&fx);
	int nfiles = fx.f.n;
	fixture_free(&fx);
	for (int i = 0; i < nfiles; i++) {
		char path[CATAN_PATH_MAX];
		fixture_played(&fx);
		snprintf(path, sizeof path, "%s", fx.f.file[i].path);
		if (strncmp(path, "game/", 5)) {
			edit(&fx, path, NULL, NULL);
			expect_state_error(&fx, path, 0, "missing file");
		}
		fixture_free(&fx);
	}
}

static void test_codec__rejects_stray_file(void **st)
{
	fixture fx;
	(void)st;
	fixture_played(&fx);
	edit(&fx, "-", NULL, "notes");
	expect_state_error(&fx, "notes", 0, "unexpected file");
	fixture_free(&fx);
	/* A player who is not in the game. */
	fixture_played(&fx);
	edit(&fx, "-", NULL, "players/green/hand");
	expect_state_error(&fx, "players/green/hand", 0, "unexpected file");
	fixture_free(&fx);
}

static void test_codec__rejects_line_out_of_order(void **st)
{
	fixture fx;
	char path[CATAN_PATH_MAX];
	int line;
	(void)st;
	/* longest-road and largest-army swapped. */
	fixture_played(&fx);
	swap_lines(&fx, "trophies", 1);
	expect_state_error(&fx, "trophies", 1, "longest-road");
	fixture_free(&fx);
	/* now: the first two lines swapped. */
	fixture_played(&fx);
	swap_lines(&fx, "now", 1);
	expect_state_error(&fx, "now", 1, "turn");
	fixture_free(&fx);
	/* now: dice and draws swapped. */
	fixture_played(&fx);
	locate(&fx, "dice ", path, &line);
	swap_lines(&fx, path, line);
	expect_state_error(&fx, path, line, "dice");
	fixture_free(&fx);
	/* now: optional lines out of their order. */
	fixture_played(&fx);
	insert_line(&fx, "now", 2, "offers 1");
	insert_line(&fx, "now", 3, "card-played yes");
	expect_state_error(&fx, "now", 3, "dice");
	fixture_free(&fx);
	/* Red's two settlements (listed by vertex id) swapped. */
	fixture_played(&fx);
	locate(&fx, "settlement", path, &line);
	swap_lines(&fx, path, line);
	expect_state_error(&fx, path, line + 1, "order");
	fixture_free(&fx);
}

/* ---- expelled seats (spec/rules.md, "Expelled seats") ---- */

/* A 4-player game after set-up where red, then blue, were expelled. */
static void fixture_expelled(fixture *fx, int how_many)
{
	sh_game(&fx->g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 11);
	assert_int_equal(catan_state_init(&fx->s, &fx->g.board, &fx->g.opt),
			 CATAN_OK);
	th_play_setup(&fx->g.board, &fx->s);
	th_do(&fx->g.board, &fx->s, BLUE, "expel red");
	if (how_many > 1)
		th_do(&fx->g.board, &fx->s, WHITE, "expel blue");
	catan_files_init(&fx->f);
	sh_encode_all(&fx->f, &fx->g, &fx->s);
}

static void test_codec__expelled_round_trip(void **st)
{
	fixture fx;
	(void)st;
	fixture_expelled(&fx, 1);
	assert_non_null(strstr(text_of(&fx, "now"), "\nout red\ndice "));
	round_trip_state(&fx.g, &fx.s);
	fixture_free(&fx);
	fixture_expelled(&fx, 2);
	assert_non_null(strstr(text_of(&fx, "now"), "\nout red,blue\n"));
	round_trip_state(&fx.g, &fx.s);
	fixture_free(&fx);
	/* No expulsion, no line. */
	fixture_played(&fx);
	assert_null(strstr(text_of(&fx, "now"), "\nout"));
	fixture_free(&fx);
}

static void test_codec__rejects_bad_out_line(void **st)
{
	static const char *const bad[][2] = {
	    {"out blue,red", "player order"},	  /* wrong order */
	    {"out red,red", "player order"},	  /* duplicate */
	    {"out red,purple", "naming players"}, /* unknown */
	    {"out green", "naming players"},	  /* not in this game */
	    {"out", "naming players"},		  /* empty */
	    {"out ", "white space"},		  /* empty */
	    {"out red,", "naming players"},	  /* empty name */
	    {"out red blue", "naming players"},
	};
	fixture fx;
	char path[CATAN_PATH_MAX];
	int line;
	(void)st;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		fixture_expelled(&fx, 2);
		locate(&fx, "out red,blue", path, &line);
		edit_line(&fx, path, line, bad[i][0]);
		expect_state_error(&fx, path, line, bad[i][1]);
		fixture_free(&fx);
	}
	/* Out of its order: before fair-events' place (after offers). */
	fixture_expelled(&fx, 1);
	locate(&fx, "out red", path, &line);
	insert_line(&fx, path, line + 1, "offers 1");
	expect_state_error(&fx, path, line + 1, "dice");
	fixture_free(&fx);
	/* A seat named out that still holds cards breaks an invariant. */
	fixture_played(&fx);
	locate(&fx, "dice ", path, &line);
	insert_line(&fx, path, line, "out orange");
	{
		catan_state out;
		catan_codec_error err;
		memset(&err, 0, sizeof err);
		bool refused =
		    catan_codec_decode_state(&out, &fx.g, &fx.f, &err) != 0;
		fixture_free(&fx);
		assert_true(refused);
	}
}

static void test_codec__rejects_number_out_of_range(void **st)
{
	fixture fx;
	char path[CATAN_PATH_MAX];
	int line;
	(void)st;
	fixture_played(&fx);
	edit_line(&fx, "now", 1, "turn 65536 red main");
	expect_state_error(&fx, "now", 1, "turn");
	fixture_free(&fx);
	fixture_played(&fx);
	locate(&fx, "dice ", path, &line);
	edit_line(&fx, path, line, "dice 3 9");
	expect_state_error(&fx, path, line, "dice");
	fixture_free(&fx);
	fixture_played(&fx);
	insert_line(&fx, "now", 2, "offers 256");
	expect_state_error(&fx, "now", 2, "offers");
	fixture_free(&fx);
	/* A hand count over the 19 cards of a kind. */
	fixture_played(&fx);
	line = hand_line(&fx, 0);
	edit_line(&fx, "now", line, "red 20 0 0 0 0");
	expect_state_error(&fx, "now", line, "counts");
	fixture_free(&fx);
}

static void test_codec__rejects_non_canonical_number(void **st)
{
	fixture fx;
	char path[CATAN_PATH_MAX], text[64];
	int line;
	(void)st;
	/* "07": a leading zero. */
	fixture_played(&fx);
	snprintf(text, sizeof text, "turn 0%d red main", fx.s.turn);
	edit_line(&fx, "now", 1, text);
	expect_state_error(&fx, "now", 1, "turn");
	fixture_free(&fx);
	fixture_played(&fx);
	insert_line(&fx, "now", 2, "offers 01");
	expect_state_error(&fx, "now", 2, "offers");
	fixture_free(&fx);
	fixture_played(&fx);
	insert_line(&fx, "now", 2, "offers +1");
	expect_state_error(&fx, "now", 2, "offers");
	fixture_free(&fx);
	/* A default is left out, never written. */
	static const char *const defaults[] = {"offers 0", "card-played no",
					       "bought none"};
	for (int i = 0; i < 3; i++) {
		fixture_played(&fx);
		insert_line(&fx, "now", 2, defaults[i]);
		expect_state_error(&fx, "now", 2, "left out");
		fixture_free(&fx);
	}
	fixture_played(&fx);
	line = hand_line(&fx, 0);
	edit_line(&fx, "now", line, "red 0 0 0 0 00");
	expect_state_error(&fx, "now", line, "counts");
	fixture_free(&fx);
	fixture_played(&fx);
	locate(&fx, "dice ", path, &line);
	edit_line(&fx, path, line, "dice 03 4");
	expect_state_error(&fx, path, line, "dice");
	fixture_free(&fx);
}

static void test_codec__rejects_trailing_space(void **st)
{
	fixture fx;
	char path[CATAN_PATH_MAX], text[600];
	int line;
	(void)st;
	fixture_played(&fx);
	line_of(&fx, "robber", 1, text, 512);
	strcat(text, " ");
	edit_line(&fx, "robber", 1, text);
	expect_state_error(&fx, "robber", 1, NULL);
	fixture_free(&fx);
	fixture_played(&fx);
	locate(&fx, "largest-army ", path, &line);
	line_of(&fx, path, line, text, 512);
	strcat(text, " ");
	edit_line(&fx, path, line, text);
	expect_state_error(&fx, path, line, "largest-army");
	fixture_free(&fx);
	/* After a road name. */
	fixture_played(&fx);
	{
		char name[32];
		catan_edge_format(name, sizeof name, &fx.g.board,
				  th_edge(&fx.g.board, 0, -1, "nw"));
		locate(&fx, name, path, &line);
		line_of(&fx, path, line, text, 512);
		strcat(text, " ");
		edit_line(&fx, path, line, text);
		expect_state_error(&fx, path, line, NULL);
	}
	fixture_free(&fx);
}

static void test_codec__rejects_missing_final_newline(void **st)
{
	static const char *const paths[] = {"now", "robber", "trophies"};
	(void)st;
	for (int i = 0; i < 3; i++) {
		fixture fx;
		char t[1024];
		fixture_played(&fx);
		snprintf(t, sizeof t, "%s", text_of(&fx, paths[i]));
		t[strlen(t) - 1] = '\0';
		edit(&fx, paths[i], t, NULL);
		expect_state_error(&fx, paths[i], 0, "newline");
		fixture_free(&fx);
	}
}

static void test_codec__rejects_twenty_lumber(void **st)
{
	fixture fx;
	catan_state s2;
	catan_files f2;
	catan_codec_error err;
	catan_state out;
	(void)st;
	fixture_played(&fx);
	/* Red and blue hold 10 lumber each, nobody else any: 20 in play. */
	s2 = fx.s;
	for (int p = 0; p < 4; p++) {
		s2.players[p].ncards -= s2.players[p].hand[CATAN_LUMBER];
		s2.players[p].hand[CATAN_LUMBER] = 0;
	}
	s2.players[RED].hand[CATAN_LUMBER] = 10;
	s2.players[BLUE].hand[CATAN_LUMBER] = 10;
	s2.players[RED].ncards += 10;
	s2.players[BLUE].ncards += 10;
	catan_files_init(&f2);
	sh_encode_all(&f2, &fx.g, &s2);
	memset(&err, 0, sizeof err);
	assert_int_equal(catan_codec_decode_state(&out, &fx.g, &f2, &err), -1);
	/* Named: the state as a whole, or a file the hands changed. */
	bool changed = false;
	for (int i = 0; i < f2.n; i++) {
		const catan_file *x = &f2.file[i];
		const catan_file *y = catan_files_get(&fx.f, x->path);
		if (!strcmp(err.path, x->path) &&
		    (x->len != y->len || memcmp(x->data, y->data, x->len)))
			changed = true;
	}
	if (!changed && strcmp(err.path, "(state)"))
		fail_msg("20 lumber blamed on %s:%d: %s", err.path, err.line,
			 err.msg);
	assert_int_equal(err.line, 0);
	if (!strstr(err.msg, "lumber"))
		fail_msg("message \"%s\" does not name lumber", err.msg);
	catan_files_free(&f2);
	fixture_free(&fx);
}

static void test_codec__rejects_bad_vertex_name(void **st)
{
	static const struct {
		const char *to;
		const char *why;
	} bad[] = {
		{"settlement 9,9,n", "vertex"},	     /* off the board */
		{"settlement 0,-1,north", "vertex"}, /* not a direction */
		{"settlement 0,-2,se", "canonical"}, /* an alias */
		{"settlement 0,-1", "vertex"},	     /* a tile, not a vertex */
	};
	(void)st;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		fixture fx;
		char path[CATAN_PATH_MAX], text[600];
		int line;
		fixture_played(&fx);
		locate(&fx, "settlement 0,-1,n", path, &line);
		line_of(&fx, path, line, text, 512);
		char *at = strstr(text, "settlement 0,-1,n");
		char out[700];
		snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text,
			 bad[i].to, at + strlen("settlement 0,-1,n"));
		edit_line(&fx, path, line, out);
		expect_state_error(&fx, path, line, NULL);
		fixture_free(&fx);
	}
}

static void test_codec__rejects_unknown_player(void **st)
{
	fixture fx;
	char path[CATAN_PATH_MAX];
	int line;
	(void)st;
	fixture_played(&fx);
	insert_line(&fx, "now", 2, "discard purple 4");
	expect_state_error(&fx, "now", 2, "discard");
	fixture_free(&fx);
	fixture_played(&fx);
	insert_line(&fx, "now", 2, "offer red purple give lumber:1 get ore:1");
	expect_state_error(&fx, "now", 2, "offer");
	fixture_free(&fx);
	fixture_played(&fx);
	locate(&fx, "largest-army ", path, &line);
	edit_line(&fx, path, line, "largest-army purple");
	expect_state_error(&fx, path, line, "purple");
	fixture_free(&fx);
	/* A player of the default list who does not play this game. */
	fixture_played(&fx);
	locate(&fx, "largest-army ", path, &line);
	edit_line(&fx, path, line, "largest-army green");
	expect_state_error(&fx, path, line, "green");
	fixture_free(&fx);
	fixture_played(&fx);
	edit_line(&fx, "now", 1, "turn 1 none main");
	expect_state_error(&fx, "now", 1, "none");
	fixture_free(&fx);
	fixture_played(&fx);
	line = hand_line(&fx, 1);
	edit_line(&fx, "now", line, "purple 0 0 0 0 0");
	expect_state_error(&fx, "now", line, "blue");
	fixture_free(&fx);
}

static void expect_game_error(const catan_files *f, const char *path,
			      int line, const char *msg_part)
{
	catan_game out;
	catan_codec_error err;
	memset(&err, 0, sizeof err);
	if (!catan_codec_decode_game(&out, f, &err))
		fail_msg("decode_game accepted a defect in %s", path);
	if (strcmp(err.path, path) || err.line != line)
		fail_msg("expected %s:%d, got %s:%d: %s", path, line, err.path,
			 err.line, err.msg);
	if (msg_part && !strstr(err.msg, msg_part))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, msg_part);
}

static void test_codec__rejects_tiles_out_of_order(void **st)
{
	catan_game g;
	catan_files f, nf;
	(void)st;
	sh_game(&g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 0);
	catan_files_init(&f);
	assert_int_equal(catan_codec_encode_game(&f, &g), 0);
	const catan_file *board = catan_files_get(&f, "game/board");
	assert_non_null(board);
	/* Swap tile lines 2 and 3. */
	char t[4096], out[4096];
	snprintf(t, sizeof t, "%s", board->data);
	char *l2 = strchr(t, '\n') + 1, *l3 = strchr(l2, '\n') + 1,
	     *l4 = strchr(l3, '\n') + 1;
	snprintf(out, sizeof out, "%.*s%.*s%.*s%s", (int)(l2 - t), t,
		 (int)(l4 - l3), l3, (int)(l3 - l2), l2, l4);
	catan_files_init(&nf);
	assert_int_equal(catan_files_add(&nf, "game/board", out, strlen(out)),
			 0);
	const catan_file *opt = catan_files_get(&f, "game/options");
	assert_int_equal(catan_files_add(&nf, opt->path, opt->data, opt->len),
			 0);
	expect_game_error(&nf, "game/board", 2, "out of order");
	catan_files_free(&nf);

	/* A harbour line before a tile line. */
	catan_files_init(&nf);
	{
		char *h = strstr(t, "harbour ");
		assert_non_null(h);
		char *hend = strchr(h, '\n') + 1;
		snprintf(out, sizeof out, "%.*s%.*s%.*s", (int)(hend - h), h,
			 (int)(h - t), t, (int)(strlen(hend)), hend);
	}
	assert_int_equal(catan_files_add(&nf, "game/board", out, strlen(out)),
			 0);
	assert_int_equal(catan_files_add(&nf, opt->path, opt->data, opt->len),
			 0);
	expect_game_error(&nf, "game/board", 2, "tile");
	catan_files_free(&nf);
	catan_files_free(&f);
}

/* game/board with `from` (once) replaced by `to`, beside the game's options. */
static void board_edit(catan_files *nf, const catan_files *f, const char *from,
		       const char *to)
{
	const catan_file *board = catan_files_get(f, "game/board");
	const catan_file *opt = catan_files_get(f, "game/options");
	char out[4096];
	const char *at = strstr(board->data, from);
	assert_non_null(at);
	snprintf(out, sizeof out, "%.*s%s%s", (int)(at - board->data),
		 board->data, to, at + strlen(from));
	catan_files_init(nf);
	assert_int_equal(catan_files_add(nf, "game/board", out, strlen(out)),
			 0);
	assert_int_equal(catan_files_add(nf, opt->path, opt->data, opt->len),
			 0);
}

/* Numbers in game/board have one spelling; sscanf alone took others. */
static void test_codec__rejects_non_canonical_board(void **st)
{
	catan_game g;
	catan_files f, nf;
	(void)st;
	sh_game(&g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 0);
	catan_files_init(&f);
	assert_int_equal(catan_codec_encode_game(&f, &g), 0);
	static const struct {
		const char *from, *to;
		int line;
	} bad[] = {
	    {"tile 0,-2 ore", "tile -0+0,-2 ore", 1},
	    {"tile 0,-2 ore", "tile 0,-02 ore", 1},
	    {"tile 1,-2 wool", "tile +1,-2 wool", 2},
	    {"tile 0,0 desert", "tile -0,0 desert", 10},
	    {"harbour 2,-1,ne ore", "harbour 2,-1,ne  ore", 22},
	    {"harbour 2,-1,ne ore", "harbour 2,-1,+ne ore", 22},
	    {"harbour 1,-2,ne grain", "harbour 1,-2,ne grain ", 21},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		board_edit(&nf, &f, bad[i].from, bad[i].to);
		expect_game_error(&nf, "game/board", bad[i].line, NULL);
		catan_files_free(&nf);
	}
	/* A second harbour on the N corner of 0,-2 (beside its NW one). */
	board_edit(&nf, &f, "harbour 1,-2,ne grain\n",
		   "harbour 0,-2,ne wool\nharbour 1,-2,ne grain\n");
	expect_game_error(&nf, "game/board", 21, "share a corner");
	catan_files_free(&nf);
	catan_files_free(&f);
}

/*
 * A lobby's game/ (spec/format.md, game/open): the open seats in
 * game/open, the bound ones only in game/signers; round trip, and the
 * refusals: the first seat open, a seat that is no player, open seats
 * out of order, game/open without game/signers.
 */
static void test_codec__lobby_open_seats(void **st)
{
	catan_game g, back;
	catan_files f, nf;
	catan_codec_error err;
	(void)st;
	sh_game(&g, 3, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 7);
	g.signed_game = true;
	memset(g.keys, 0, sizeof g.keys);
	g.keys[0][0] = 1;
	g.open = 1u << 1 | 1u << 2;
	catan_files_init(&f);
	assert_int_equal(catan_codec_encode_game(&f, &g), 0);
	const catan_file *open = catan_files_get(&f, "game/open");
	assert_non_null(open);
	assert_string_equal(open->data, "blue\nwhite\n");
	const catan_file *signers = catan_files_get(&f, "game/signers");
	assert_non_null(signers);
	assert_non_null(strstr(signers->data, "red@catan"));
	assert_null(strstr(signers->data, "blue@catan"));
	memset(&err, 0, sizeof err);
	if (catan_codec_decode_game(&back, &f, &err))
		fail_msg("decode: %s:%d: %s", err.path, err.line, err.msg);
	assert_int_equal(back.open, g.open);
	assert_memory_equal(back.keys, g.keys, sizeof g.keys);

	static const struct {
		const char *text, *why;
		int line;
	} bad[] = {
	    {"red\nblue\n", "no seat a lobby can leave open", 1},
	    {"blue\norange\n", "no seat a lobby can leave open", 2},
	    {"white\nblue\n", "not canonical", 1},
	    {"blue\nwhite", "no end", 2},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		catan_files_init(&nf);
		for (int k = 0; k < f.n; k++) {
			const catan_file *e = &f.file[k];
			const char *d = strcmp(e->path, "game/open")
					    ? e->data
					    : bad[i].text;
			assert_int_equal(
			    catan_files_add(&nf, e->path, d,
					    strcmp(e->path, "game/open")
						? e->len
						: strlen(d)),
			    0);
		}
		expect_game_error(&nf, "game/open", bad[i].line, bad[i].why);
		catan_files_free(&nf);
	}
	/* game/open in a game without keys */
	catan_files_init(&nf);
	for (int k = 0; k < f.n; k++)
		if (strcmp(f.file[k].path, "game/signers"))
			assert_int_equal(catan_files_add(&nf, f.file[k].path,
							 f.file[k].data,
							 f.file[k].len),
					 0);
	expect_game_error(&nf, "game/open", 0, "need game/signers");
	catan_files_free(&nf);
	catan_files_free(&f);
}

/*
 * A defect in game/signers is named by its line (1-based) and what is
 * wrong there; catan_codec_error_text says "path:line: why", or "path:
 * why" about the whole file.
 */
static void test_codec__signers_errors_name_the_line(void **st)
{
	catan_game g;
	catan_files f, nf;
	char text[400];
	(void)st;
	sh_game(&g, 3, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 7);
	g.signed_game = true;
	memset(g.keys, 0, sizeof g.keys);
	for (int p = 0; p < 3; p++)
		g.keys[p][0] = (unsigned char)(p + 1);
	catan_files_init(&f);
	assert_int_equal(catan_codec_encode_game(&f, &g), 0);
	const catan_file *signers = catan_files_get(&f, "game/signers");
	assert_non_null(signers);
	const char *second = strchr(signers->data, '\n') + 1;
	const char *third = strchr(second, '\n') + 1;
	char bad[3][1024];
	/* blue's line names white; white's line cut; a line too many */
	snprintf(bad[0], sizeof bad[0], "%.*swhite%s",
		 (int)(second - signers->data), signers->data, second + 4);
	snprintf(bad[1], sizeof bad[1], "%.*s%.20s\n",
		 (int)(third - signers->data), signers->data, third);
	snprintf(bad[2], sizeof bad[2], "%sred\n", signers->data);
	static const struct {
		int line;
		const char *why;
	} want[] = {
	    {2, "expected `blue@catan"}, {3, ""}, {4, "after the last seat"}};
	for (int i = 0; i < 3; i++) {
		catan_files_init(&nf);
		for (int k = 0; k < f.n; k++) {
			const catan_file *e = &f.file[k];
			bool it = !strcmp(e->path, "game/signers");
			assert_int_equal(
			    catan_files_add(&nf, e->path, it ? bad[i] : e->data,
					    it ? strlen(bad[i]) : e->len),
			    0);
		}
		expect_game_error(&nf, "game/signers", want[i].line,
				  want[i].why);
		catan_files_free(&nf);
	}
	catan_codec_error e = {"game/signers", 2, "bad"};
	catan_codec_error_text(text, sizeof text, &e);
	assert_string_equal(text, "game/signers:2: bad");
	e.line = 0;
	catan_codec_error_text(text, sizeof text, &e);
	assert_string_equal(text, "game/signers: bad");
	catan_files_free(&f);
}

static void test_codec__rejects_bad_options(void **st)
{
	catan_game g;
	catan_files f;
	(void)st;
	sh_game(&g, 3, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 7);
	static const struct {
		const char *text;
		int line;
	} bad[] = {
		{"players red blue white\nvp 10\nphases combined\ndice "
		 "seeded\noffer-limit 0\nseed 07\n",
		 6},
		{"players red blue white\nvp 10\nphases both\ndice "
		 "seeded\noffer-limit 0\nseed 7\n",
		 3},
		{"players red blue white\nvp 2\nphases combined\ndice "
		 "seeded\noffer-limit 0\nseed 7\n",
		 2},
		{"players red Blue white\nvp 10\nphases combined\ndice "
		 "seeded\noffer-limit 0\nseed 7\n",
		 1},
		{"players red blue white\nvp 10\nphases combined\ndice "
		 "seeded\noffer-limit 0\nseed 7\nextra 1\n",
		 7},
		{"players red blue white\nvp 10\nphases combined\ndice "
		 "seeded\noffer-limit 0\nseed 7",
		 0},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		catan_files_init(&f);
		assert_int_equal(catan_codec_encode_game(&f, &g), 0);
		catan_files nf;
		catan_files_init(&nf);
		const catan_file *b = catan_files_get(&f, "game/board");
		assert_int_equal(catan_files_add(&nf, b->path, b->data, b->len),
				 0);
		assert_int_equal(catan_files_add(&nf, "game/options",
						 bad[i].text,
						 strlen(bad[i].text)),
				 0);
		expect_game_error(&nf, "game/options", bad[i].line, NULL);
		catan_files_free(&nf);
		catan_files_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_codec__initial_state_round_trip),
	    cmocka_unit_test(test_codec__initial_files_are_as_documented),
	    cmocka_unit_test(test_codec__every_state_of_random_games),
	    cmocka_unit_test(test_codec__pending_offer_round_trip),
	    cmocka_unit_test(test_codec__game_round_trip_beginner),
	    cmocka_unit_test(test_codec__game_round_trip_largest_seeds),
	    cmocka_unit_test(test_codec__game_round_trip_random),
	    cmocka_unit_test(test_codec__game_round_trip_hexagon3),
	    cmocka_unit_test(test_codec__game_round_trip_six_players),
	    cmocka_unit_test(test_codec__rejects_missing_file),
	    cmocka_unit_test(test_codec__rejects_stray_file),
	    cmocka_unit_test(test_codec__rejects_line_out_of_order),
	    cmocka_unit_test(test_codec__expelled_round_trip),
	    cmocka_unit_test(test_codec__rejects_bad_out_line),
	    cmocka_unit_test(test_codec__rejects_number_out_of_range),
	    cmocka_unit_test(test_codec__rejects_non_canonical_number),
	    cmocka_unit_test(test_codec__rejects_trailing_space),
	    cmocka_unit_test(test_codec__rejects_missing_final_newline),
	    cmocka_unit_test(test_codec__rejects_twenty_lumber),
	    cmocka_unit_test(test_codec__rejects_bad_vertex_name),
	    cmocka_unit_test(test_codec__rejects_unknown_player),
	    cmocka_unit_test(test_codec__rejects_tiles_out_of_order),
	    cmocka_unit_test(test_codec__rejects_non_canonical_board),
	    cmocka_unit_test(test_codec__signers_errors_name_the_line),
	    cmocka_unit_test(test_codec__rejects_bad_options),
	    cmocka_unit_test(test_codec__lobby_open_seats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
