/*
 * game.c - the Git-backed subcommands of the catan command (hot-seat: all
 * players in one repository):
 *
 *   catan new DIR [--players a,b,c] [--board beginner|random|balanced|FILE]
 *                 [--seed N]
 *                 [--phases combined|classic] [--dice seeded|manual|fair]
 *                 [--vp N] [--offer-limit N]
 *   catan -C DIR act --as PLAYER ACTION...
 *   catan -C DIR show [--json] [REV]
 *   catan -C DIR legal --as PLAYER
 *   catan -C DIR log
 *   catan -C DIR verify
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "catan/boardfile.h"
#include "catan/boardgen.h"
#include "catan/bot.h"
#include "catan/sign.h"
#include "catan/store.h"
#include "cli.h"

int cli_special_build(catan_options *opt, int asked, const char *cmd)
{
	bool ext = opt->nplayers > CATAN_MAX_PLAYERS_BASE;
	if (asked == 1 && !ext) {
		fprintf(stderr, "%s: --special-build is for 5 or 6 players "
				"(the 5-6 player extension)\n",
			cmd);
		return -1;
	}
	opt->special_build = ext && asked != 0;
	return 0;
}

int cli_parse_u64(const char *opt, const char *s, uint64_t lo, uint64_t hi,
		  uint64_t *out)
{
	char *end = NULL;
	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+') {
		fprintf(stderr, "catan: %s needs a number, got \"%s\"\n", opt,
			s ? s : "");
		return -1;
	}
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr,
			"catan: %s must be a whole number from %" PRIu64
			" to %" PRIu64 ", got \"%s\"\n",
			opt, lo, hi, s);
		return -1;
	}
	*out = v;
	return 0;
}

static int choose(const char *opt, const char *val, const char *a,
		  const char *b, int *out)
{
	if (val && !strcmp(val, a))
		*out = 0;
	else if (val && !strcmp(val, b))
		*out = 1;
	else {
		fprintf(stderr, "catan: %s is %s or %s, got \"%s\"\n", opt, a, b,
			val ? val : "");
		return -1;
	}
	return 0;
}

/*
 * A signed game's keys: the creator's (the first seat's) from its private
 * key file, every other seat's from a --seat PLAYER=PUBKEY, or left open
 * for a joiner to claim with --open PLAYER (the lobby, spec/replication.md
 * "Keys and signatures"). 0, or -1 after a sentence.
 */
static int new_keys(catan_game *g, int mine, const char *keyfile,
		    const char **seats, int nseats, const char **opens,
		    int nopens)
{
	catan_key k;
	catan_sign_why sw = {{0}, 0};
	char why[256];
	bool have[CATAN_MAX_PLAYERS] = {false};
	if (mine > 0) {
		fprintf(stderr,
			"catan new: in a signed game the creator takes "
			"the first seat (%s), which signs the "
			"genesis; list the players with yours first\n",
			g->names.name[0]);
		return -1;
	}
	if (catan_key_load(&k, keyfile, &sw)) {
		fprintf(stderr, "catan new: --key: %s\n", sw.msg);
		return -1;
	}
	memcpy(g->keys[0], k.pk, sizeof k.pk);
	have[0] = true;
	for (int i = 0; i < nseats; i++) {
		const char *eq = strchr(seats[i], '=');
		int p = catan_names_find(&g->names, seats[i],
					 (size_t)(eq - seats[i]));
		if (p < 0 || have[p]) {
			fprintf(stderr, "catan new: --seat %.*s: %s\n",
				(int)(eq - seats[i]), seats[i],
				p < 0	 ? "not one of the players"
				: p == 0 ? "that seat is yours (--key)"
					 : "given twice");
			return -1;
		}
		if (cli_read_pubkey(g->keys[p], eq + 1, why, sizeof why)) {
			fprintf(stderr, "catan new: --seat %.*s: %s\n",
				(int)(eq - seats[i]), seats[i], why);
			return -1;
		}
		have[p] = true;
	}
	for (int i = 0; i < nopens; i++) {
		int p = catan_names_find(&g->names, opens[i], strlen(opens[i]));
		if (p < 0 || have[p] || strcmp(opens[i], g->names.name[p])) {
			fprintf(stderr, "catan new: --open %s: %s\n", opens[i],
				p < 0 || strcmp(opens[i], g->names.name[p])
				    ? "not one of the players"
				: p == 0 ? "that seat is yours (--key)"
					 : "that seat is given already");
			return -1;
		}
		have[p] = true;
		g->open |= 1u << p;
	}
	for (int p = 0; p < g->opt.nplayers; p++)
		if (!have[p]) {
			fprintf(stderr,
				"catan new: a signed game needs every seat's "
				"key: no --seat %s=PUBKEY (its player runs "
				"catan key show) or --open %s (its player "
				"claims it with catan join)\n",
				g->names.name[p], g->names.name[p]);
			return -1;
		}
	g->signed_game = true;
	return 0;
}

int cli_new(int argc, char **argv)
{
	catan_game g;
	uint64_t seed = 1, v;
	int random_board = 0, k, special = -1; /* -1: by player count */
	const char *dir = NULL, *me = NULL, *board_file = NULL, *keyfile = NULL;
	const char *seats[CATAN_MAX_PLAYERS], *opens[CATAN_MAX_PLAYERS];
	int nseats = 0, nopens = 0;
	bool balanced = false, board_asked = false;
	bool names_set = false, dice_set = false;

	memset(&g, 0, sizeof g);
	catan_options_default(&g.opt);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (a[0] != '-') {
			if (dir) {
				fprintf(stderr, "catan new: one directory, "
						"please (got \"%s\" too)\n",
					a);
				return 2;
			}
			dir = a;
			continue;
		}
		if (!strcmp(a, "--special-build") ||
		    !strcmp(a, "--no-special-build")) {
			special = a[2] == 's';
			continue;
		}
		if (!strcmp(a, "--players")) {
			if (!val || catan_names_parse(&g.names, val) ||
			    g.names.n > CATAN_MAX_PLAYERS) {
				fprintf(stderr,
					"catan: --players wants 2 to %d "
					"distinct names of [a-z0-9_-] "
					"(1-15 letters), comma-separated; got "
					"\"%s\"\n",
					CATAN_MAX_PLAYERS, val ? val : "");
				return 2;
			}
			names_set = true;
		} else if (!strcmp(a, "--board")) {
			board_asked = true;
			if (val && !strcmp(val, "balanced"))
				balanced = true;
			else if (val && strcmp(val, "beginner") &&
				 strcmp(val, "random"))
				board_file = val;
			else if (choose(a, val, "beginner", "random",
					&random_board))
				return 2;
		} else if (!strcmp(a, "--seed")) {
			if (cli_parse_u64(a, val, 0, UINT64_MAX, &seed))
				return 2;
		} else if (!strcmp(a, "--phases")) {
			if (choose(a, val, "combined", "classic", &k))
				return 2;
			g.opt.phases = (uint8_t)k;
		} else if (!strcmp(a, "--dice")) {
			if (val && !strcmp(val, "fair")) {
				k = CATAN_DICE_FAIR;
			} else if (val && !strcmp(val, "seeded")) {
				k = CATAN_DICE_SEEDED;
			} else if (val && !strcmp(val, "manual")) {
				k = CATAN_DICE_MANUAL;
			} else {
				fprintf(stderr,
					"catan: --dice is seeded, manual or "
					"fair (fair: every seat's secret "
					"decides, a signed game), got \"%s\"\n",
					val ? val : "");
				return 2;
			}
			g.opt.dice = (uint8_t)k;
			dice_set = true;
		} else if (!strcmp(a, "--vp")) {
			if (cli_parse_u64(a, val, 3, 20, &v))
				return 2;
			g.opt.vp_target = (uint8_t)v;
		} else if (!strcmp(a, "--offer-limit")) {
			if (cli_parse_u64(a, val, 0, 255, &v))
				return 2;
			g.opt.offer_limit = (uint8_t)v;
		} else if (!strcmp(a, "--me")) {
			if (!val) {
				fprintf(stderr, "catan new: --me needs a player\n");
				return 2;
			}
			me = val;
		} else if (!strcmp(a, "--key")) {
			if (!val) {
				fprintf(stderr, "catan new: --key needs the "
						"private key file\n");
				return 2;
			}
			keyfile = val;
		} else if (!strcmp(a, "--seat")) {
			if (!val || !strchr(val, '=') ||
			    nseats == CATAN_MAX_PLAYERS) {
				fprintf(stderr, "catan new: --seat wants "
						"PLAYER=PUBKEY (a public key "
						"line or a .pub file), one per "
						"other player\n");
				return 2;
			}
			seats[nseats++] = val;
		} else if (!strcmp(a, "--open")) {
			if (!val || nopens == CATAN_MAX_PLAYERS) {
				fprintf(stderr, "catan new: --open wants a "
						"PLAYER whose seat a joiner "
						"claims\n");
				return 2;
			}
			opens[nopens++] = val;
		} else {
			fprintf(stderr, "catan new: unknown option \"%s\"\n", a);
			return 2;
		}
		i++;
	}
	if (!dir) {
		fprintf(stderr, "usage: catan new DIR [--players a,b,c] "
				"[--board beginner|random|balanced|FILE] "
				"[--me PLAYER] [--seed N] "
				"[--phases combined|classic] "
				"[--dice seeded|manual|fair] [--vp N] "
				"[--offer-limit N] [--[no-]special-build] "
				"[--key FILE --seat PLAYER=PUBKEY... "
				"--open PLAYER...]\n");
		return 2;
	}
	if (!names_set)
		catan_names_default(&g.names, 4);
	g.opt.nplayers = g.names.n;
	g.opt.seed = seed;
	/* 5-6 players: the extension's board (random unless told). */
	bool ext = g.opt.nplayers > CATAN_MAX_PLAYERS_BASE;
	if (cli_special_build(&g.opt, special, "catan new"))
		return 2;
	if (ext && !board_asked)
		random_board = 1;
	if (ext && !board_file && !balanced && !random_board) {
		fprintf(stderr, "catan new: 5-6 players play on a 5-6 board: "
				"--board random|balanced|FILE (there is no "
				"beginner one)\n");
		return 2;
	}
	if (board_file) {
		/* A board file (spec/board.md); the robber starts where its
		 * robber line says, else on the first desert. */
		static char text[65536];
		FILE *f = fopen(board_file, "r");
		size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
		bool big = f && !feof(f);
		if (f)
			fclose(f);
		text[n] = '\0';
		catan_boardfile_error be;
		memset(&be, 0, sizeof be);
		if (!f || big) {
			fprintf(stderr,
				"catan new: --board is beginner, random, "
				"balanced or a board file; cannot read "
				"the file %s%s\n",
				board_file, big ? " (over 64 KiB)" : "");
			return 2;
		}
		if (catan_boardfile_parse(&g.board, text, &be)) {
			cli_boardfile_error("catan new", board_file, &be);
			return 2;
		}
	} else if (balanced) {
		catan_genopts go;
		catan_genreport gr;
		catan_genopts_default(&go);
		go.seed = seed;
		if (ext)
			go.shape = CATAN_SHAPE_EXT56;
		if (catan_board_generate(&g.board, &go, &gr)) {
			fprintf(stderr, "catan new: %s\n", gr.why);
			return 1;
		}
	} else if (random_board && ext) {
		if (catan_board_random_ext56(&g.board, seed)) {
			fprintf(stderr, "catan new: no 5-6 board in this build\n");
			return 1;
		}
	} else if (random_board) {
		catan_board_random(&g.board, seed);
	} else {
		catan_board_beginner(&g.board);
	}

	int mine = -1;
	if (me && (mine = catan_names_find(&g.names, me, strlen(me))) < 0) {
		fprintf(stderr, "catan new: --me \"%s\" is not one of the "
				"players\n",
			me);
		return 2;
	}
	char keypath[4096];
	if ((nseats || nopens) && !keyfile) {
		if (cli_default_key(keypath, sizeof keypath)) {
			fprintf(stderr, "catan new: --seat needs --key FILE\n");
			return 2;
		}
		keyfile = keypath;
	}
	if (keyfile &&
	    new_keys(&g, mine, keyfile, seats, nseats, opens, nopens))
		return 2;
	/* Players who do not trust each other: nobody computes a roll. */
	if (!dice_set && g.signed_game)
		g.opt.dice = CATAN_DICE_FAIR;
	if (g.opt.dice == CATAN_DICE_FAIR && !g.signed_game) {
		fprintf(stderr, "catan new: fair dice need a signed game "
				"(--key FILE and --seat PLAYER=PUBKEY for the "
				"others): each seat's secrets come from its "
				"key\n");
		return 2;
	}
	catan_store *s = NULL;
	catan_err err;
	if (g.signed_game
		? catan_store_create_signed(&s, dir, &g, keyfile, &err)
		: (catan_store_create(&s, dir, &g, CATAN_TIME_NOW, &err) ||
		   (mine >= 0 && catan_store_set_me(s, mine, &err)))) {
		fprintf(stderr, "catan new: %s\n", err.msg);
		catan_store_free(s);
		return 1;
	}
	if (!g.signed_game && mine >= 0)
		fprintf(stderr,
			"catan new: an unsigned game: anyone who can write to "
			"a repository of it can act as any player (give "
			"--key FILE and --seat PLAYER=PUBKEY for the others "
			"to sign it)\n");
	printf("new game in %s: %d players (", dir, g.opt.nplayers);
	for (int p = 0; p < g.opt.nplayers; p++)
		printf("%s%s", p ? ", " : "", g.names.name[p]);
	printf("), %s%s board, seed %" PRIu64 "%s%s%s; %s places first\n",
	       board_file     ? board_file
	       : balanced     ? "balanced"
	       : random_board ? "random"
			      : "beginner",
	       ext && !board_file ? " 5-6" : "", seed,
	       g.opt.special_build ? ", special building phase" : "",
	       g.signed_game ? ", signed" : "",
	       g.opt.dice == CATAN_DICE_FAIR ? ", fair dice" : "",
	       g.names.name[0]);
	catan_store_free(s);
	return 0;
}

/*
 * Opens the game in dir; readonly for commands that only read (they write
 * nothing to the repository, not even when they fail).
 */
static int open_game_ext(catan_store **s, const char *dir, bool readonly)
{
	catan_err err;
	if (!dir) {
		fprintf(stderr, "catan: say which game with -C DIR\n");
		return 2;
	}
	if (catan_store_open_ext(s, dir, readonly, &err)) {
		fprintf(stderr, "catan: %s: %s\n", dir, err.msg);
		return 1;
	}
	return 0;
}

/* A signed game stopped by an equivocation says so (verify, sync). */
static void print_equivocation(catan_store *s)
{
	int seat;
	catan_commit_id m, c[2];
	int k = catan_store_equivocation(s, &seat, &m, c);
	if (k == 1 || k >= 3)
		printf("stopped: %s signed two different %s on %.10s "
		       "(%.10s and %.10s); the game stops there\n",
		       catan_store_game(s)->names.name[seat],
		       k == 3 ? "expulsions" : "moves", m.hex, c[0].hex,
		       c[1].hex);
}

static int open_game(catan_store **s, const char *dir)
{
	return open_game_ext(s, dir, false);
}

static int player_arg(const catan_game *g, int argc, char **argv, int *who)
{
	for (int i = 0; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--as")) {
			int p = catan_names_find(&g->names, argv[i + 1],
						 strlen(argv[i + 1]));
			if (p < 0) {
				fprintf(stderr,
					"catan: no player \"%s\" in this "
					"game\n",
					argv[i + 1]);
				return -1;
			}
			*who = p;
			return i;
		}
	fprintf(stderr, "catan: say who acts with --as PLAYER\n");
	return -1;
}

/* "red to roll", "blue, white to discard", ... */
static void waiting_for(FILE *f, const catan_game *g, const catan_state *s)
{
	if (g->open) {
		/* The lobby (spec/replication.md, "Keys and signatures"). */
		fprintf(f, "the game has not started: it waits for seats ");
		for (int p = 0, n = 0; p < g->opt.nplayers; p++)
			if (g->open & (1u << p))
				fprintf(f, "%s%s", n++ ? ", " : "",
					g->names.name[p]);
		fprintf(f, " to be claimed, then for %s to start it",
			g->names.name[0]);
		return;
	}
	if (s->phase == CATAN_PHASE_OVER) {
		fprintf(f, "%s has won", g->names.name[s->winner]);
		return;
	}
	if (s->phase == CATAN_PHASE_DISCARD) {
		bool first = true;
		for (int p = 0; p < s->opt.nplayers; p++)
			if (s->discard[p]) {
				fprintf(f, "%s%s to discard %d",
					first ? "" : ", ", g->names.name[p],
					s->discard[p]);
				first = false;
			}
		return;
	}
	if (s->phase == CATAN_PHASE_REVEAL) {
		/* Fair dice: whose secret the outcome waits for. */
		static const char *const what[CATAN_ACT_COUNT] = {
		    [CATAN_ACT_ROLL] = "roll",
		    [CATAN_ACT_BUY_DEV] = "development card",
		    [CATAN_ACT_ROBBER] = "robbery",
		    [CATAN_ACT_PLAY_KNIGHT] = "robbery"};
		const char *kind =
		    s->req_kind < CATAN_ACT_COUNT && what[s->req_kind]
			? what[s->req_kind]
			: "outcome";
		if (!s->reveal_wait) {
			fprintf(f, "%s to complete the %s (every secret is in)",
				g->names.name[s->requester], kind);
			return;
		}
		bool first = true;
		for (int p = 0; p < s->opt.nplayers; p++)
			if ((s->reveal_wait >> p) & 1) {
				fprintf(f, "%s%s", first ? "" : ", ",
					g->names.name[p]);
				first = false;
			}
		fprintf(f, " to reveal a secret for %s's %s (fair dice)",
			g->names.name[s->requester], kind);
		return;
	}
	static const char *const doing[] = {
		"to place a settlement and road", "to roll",
		"",				  "to move the robber",
		"to trade, build or end the turn", "to trade or end trade",
		"to build or end the turn",	  "to answer the offer",
		"",
		"to build, buy or pass (special building phase)"};
	int who = catan_state_next_actor(s);
	fprintf(f, "%s %s", g->names.name[who], doing[s->phase]);
}

/* Fair dice: since when the game waits for reveals (the request's time). */
static void waiting_since(FILE *f, catan_store *s, const catan_state *st,
			  const catan_commit_id *head)
{
	long long t = st->phase == CATAN_PHASE_REVEAL && st->reveal_wait
			  ? catan_store_commit_time(s, head)
			  : -1;
	if (t < 0)
		return;
	char when[32];
	time_t tt = (time_t)t;
	struct tm tm;
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC",
		 gmtime_r(&tt, &tm));
	fprintf(f, ", asked %s", when);
}

/*
 * Whether a signed game stopped at an equivocation (its seat not expelled
 * yet): the equivocating seat, else -1. Only the others' discards or
 * reveals owed there, and then the expulsion, move it on.
 */
static int game_stopped(catan_store *s)
{
	int seat;
	catan_commit_id m, c[2];
	int k = catan_store_equivocation(s, &seat, &m, c);
	return k == 1 || k >= 3 ? seat : -1;
}

/* Whether nobody may move on at all (two expulsions by one seat, two
 * starts of a lobby). */
static bool stopped_for_good(catan_store *s)
{
	int seat;
	catan_commit_id m, c[2];
	return catan_store_equivocation(s, &seat, &m, c) >= 3;
}

/*
 * A signed game stopped by an equivocation: says so on f (where the
 * others say whom the game waits for), with who expels the seat when that
 * is due, and returns true; false otherwise, nothing said.
 */
static bool say_stopped(FILE *f, catan_store *s, const catan_state *st)
{
	int seat, e, by;
	catan_commit_id m, c[2];
	const catan_game *g = catan_store_game(s);
	int k = catan_store_equivocation(s, &seat, &m, c);
	if (k >= 3) {
		fprintf(f,
			"the game stopped at %.10s (%s signed two different "
			"%s there); nobody moves on",
			m.hex, g->names.name[seat],
			k == 3 ? "expulsions" : "moves");
		return true;
	}
	if (k != 1)
		return false;
	fprintf(f,
		"the game stopped at %.10s (%s signed two different moves "
		"there); ",
		m.hex, g->names.name[seat]);
	if (catan_store_expel_due(s, &e, &by) == 1) {
		fprintf(f, "%s to expel %s, then the game goes on",
			g->names.name[by], g->names.name[e]);
	} else {
		fprintf(f,
			"%s is expelled once the others' moves there are "
			"in: ",
			g->names.name[seat]);
		waiting_for(f, g, st);
	}
	return true;
}

/* What the game waits for now, or that it stopped; then since when. */
static void say_now(FILE *f, catan_store *s, const catan_state *st,
		    const catan_commit_id *head)
{
	if (say_stopped(f, s, st))
		return;
	waiting_for(f, catan_store_game(s), st);
	if (head)
		waiting_since(f, s, st, head);
}

int cli_act(const char *dir, int argc, char **argv)
{
	catan_store *s = NULL;
	int rc = open_game(&s, dir), who = -1;
	if (rc)
		return rc;
	const catan_game *g = catan_store_game(s);
	int me = catan_store_me(s), at = -2;
	bool has_as = false;
	for (int i = 0; i < argc; i++)
		has_as |= !strcmp(argv[i], "--as");
	if (has_as || me < 0)
		at = player_arg(g, argc, argv, &who);
	else
		who = me;
	if (at == -1) {
		catan_store_free(s);
		return 2;
	}
	if (me >= 0 && who != me) {
		fprintf(stderr,
			"catan act: this repository plays for %s; %s acts "
			"in their own\n",
			g->names.name[me], g->names.name[who]);
		catan_store_free(s);
		return 2;
	}
	char text[512] = "";
	size_t len = 0;
	for (int i = 0; i < argc; i++) {
		if (i == at || i == at + 1)
			continue;
		size_t k = strlen(argv[i]);
		if (len + k + 2 > sizeof text) {
			fprintf(stderr, "catan act: action too long\n");
			catan_store_free(s);
			return 2;
		}
		if (len)
			text[len++] = ' ';
		memcpy(text + len, argv[i], k + 1);
		len += k;
	}
	catan_action a;
	catan_parse_error pe;
	if (catan_action_parse(&a, &g->board, &g->names, text, &pe)) {
		fprintf(stderr, "catan act: %s (in \"%s\", at byte %d)\n",
			pe.msg, text, pe.pos);
		catan_store_free(s);
		return 2;
	}
	catan_err err;
	catan_outcome oc;
	catan_commit_id id;
	if (catan_store_act(s, who, &a, &oc, &id, &err)) {
		fprintf(stderr, "catan act: %s\n", err.msg);
		catan_store_free(s);
		return 1;
	}
	char canon[160];
	catan_action_format(canon, sizeof canon, &g->board, &g->names, &a);
	printf("%.10s %s: %s", id.hex, g->names.name[who], canon);
	if (a.kind == CATAN_ACT_ROLL)
		printf("  (%d+%d=%d)", oc.dice[0], oc.dice[1],
		       oc.dice[0] + oc.dice[1]);
	if (oc.stolen != CATAN_NONE)
		printf("  (stole %s)", catan_res_name(oc.stolen));
	if (oc.drawn != CATAN_NONE)
		printf("  (drew %s)", catan_dev_name(oc.drawn));
	printf("\n");
	catan_state st;
	catan_commit_id head;
	if (!catan_store_current(&st, &head, s, &err)) {
		printf("now: ");
		say_now(stdout, s, &st, &head);
		printf("\n");
	}
	catan_store_free(s);
	return 0;
}

static void json_counts(FILE *f, const uint8_t *c, int n,
			const char *(*name)(int))
{
	fprintf(f, "{");
	for (int i = 0; i < n; i++)
		fprintf(f, "%s\"%s\":%d", i ? "," : "", name(i), c[i]);
	fprintf(f, "}");
}

/* A JSON array of the canonical names of the vertices (or edges) in a set. */
static void json_places(FILE *f, const catan_board *b, const uint64_t *words,
			int nwords, bool edges)
{
	char name[32];
	bool first = true;
	fprintf(f, "[");
	CATAN_FOR_BITS(i, words, nwords)
	{
		if (edges)
			catan_edge_format(name, sizeof name, b, i);
		else
			catan_vertex_format(name, sizeof name, b, i);
		fprintf(f, "%s\"%s\"", first ? "" : ",", name);
		first = false;
	}
	fprintf(f, "]");
}

static const char *json_player(const catan_game *g, int p)
{
	static char buf[CATAN_NAME_MAX + 2];
	if (p == CATAN_NONE)
		return "null";
	snprintf(buf, sizeof buf, "\"%s\"", g->names.name[p]);
	return buf;
}

static void show_json(FILE *f, const catan_game *g, const catan_state *s,
		      const char *commit)
{
	char name[32];
	fprintf(f, "{\"commit\":\"%s\",\"turn\":%d,\"phase\":\"%s\",", commit,
		s->turn, catan_phase_name(s->phase));
	fprintf(f, "\"active\":%s,", json_player(g, s->active));
	fprintf(f, "\"next\":%s,", json_player(g, catan_state_next_actor(s)));
	fprintf(f, "\"winner\":%s,", json_player(g, s->winner));
	fprintf(f, "\"dice\":[%d,%d],", s->dice[0], s->dice[1]);
	if (s->robber == CATAN_NONE)
		fprintf(f, "\"robber\":null,");
	else {
		catan_tile_format(name, sizeof name, &g->board, s->robber);
		fprintf(f, "\"robber\":\"%s\",", name);
	}
	fprintf(f, "\"bank\":");
	json_counts(f, s->bank, CATAN_RES_COUNT, catan_res_name);
	fprintf(f, ",\"deck\":%d,", s->deck[0] + s->deck[1] + s->deck[2] +
					     s->deck[3] + s->deck[4]);
	fprintf(f, "\"longest_road\":%s,", json_player(g, s->longest_road));
	fprintf(f, "\"largest_army\":%s,", json_player(g, s->largest_army));
	fprintf(f, "\"players\":[");
	for (int p = 0; p < s->opt.nplayers; p++) {
		const catan_player *pl = &s->players[p];
		fprintf(f, "%s{\"name\":\"%s\",\"vp\":%d,\"public_vp\":%d,", p ? "," : "",
			g->names.name[p], catan_state_vp(s, p), pl->public_vp);
		fprintf(f, "\"hand\":");
		json_counts(f, pl->hand, CATAN_RES_COUNT, catan_res_name);
		fprintf(f, ",\"cards\":");
		json_counts(f, pl->devs, CATAN_DEV_COUNT, catan_dev_name);
		fprintf(f, ",\"knights_played\":%d,\"road_length\":%d,",
			pl->knights, pl->road_length);
		fprintf(f, "\"discard_owed\":%d,", s->discard[p]);
		/* (only for an expelled seat: older readers see the same) */
		if (catan_state_out(s, p))
			fprintf(f, "\"expelled\":true,");
		fprintf(f, "\"settlements\":");
		json_places(f, &g->board, pl->settlements.w, CATAN_VWORDS, false);
		fprintf(f, ",\"cities\":");
		json_places(f, &g->board, pl->cities.w, CATAN_VWORDS, false);
		fprintf(f, ",\"roads\":");
		json_places(f, &g->board, pl->roads.w, CATAN_EWORDS, true);
		fprintf(f, "}");
	}
	fprintf(f, "]}\n");
}

int cli_show(const char *dir, int argc, char **argv)
{
	catan_store *s = NULL;
	const char *rev = NULL;
	bool json = false;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "catan show: unknown option \"%s\"\n",
				argv[i]);
			return 2;
		} else
			rev = argv[i];
	}
	int rc = open_game_ext(&s, dir, true);
	if (rc)
		return rc;
	const catan_game *g = catan_store_game(s);
	catan_state st;
	catan_commit_id id;
	catan_err err;
	if (catan_store_state_at(&st, &id, s, rev, &err)) {
		fprintf(stderr, "catan show: %s%s%s\n", rev ? rev : "",
			rev ? ": " : "", err.msg);
		catan_store_free(s);
		return 1;
	}
	if (json) {
		show_json(stdout, g, &st, id.hex);
		catan_store_free(s);
		return 0;
	}
	printf("commit %s, turn %d, phase %s: ", id.hex, st.turn,
	       catan_phase_name(st.phase));
	waiting_for(stdout, g, &st);
	printf("\n\n");
	cli_print_board(stdout, &g->board, &st);
	printf("\nbank:");
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		printf(" %s %d", catan_res_name(r), st.bank[r]);
	printf(";  development cards left: %d\n",
	       st.deck[0] + st.deck[1] + st.deck[2] + st.deck[3] + st.deck[4]);
	if (st.dice[0])
		printf("last roll: %d+%d=%d\n", st.dice[0], st.dice[1],
		       st.dice[0] + st.dice[1]);
	printf("\n");
	cli_print_scores(stdout, &g->board, &st, &g->names);
	printf("\nhands (the repository holds every hand; a player's own "
	       "interface shows only theirs):\n");
	for (int p = 0; p < st.opt.nplayers; p++) {
		printf("  %-8s", g->names.name[p]);
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			printf(" %s:%d", catan_res_name(r),
			       st.players[p].hand[r]);
		printf("  |");
		for (int d = 0; d < CATAN_DEV_COUNT; d++)
			if (st.players[p].devs[d])
				printf(" %s:%d", catan_dev_name(d),
				       st.players[p].devs[d]);
		printf("\n");
	}
	catan_store_free(s);
	return 0;
}

/*
 * catan status: the game in a few lines: who plays, what the game waits
 * for (whose move, whose fair-dice reveal and since when, or that it
 * stopped), the scores. Reads only.
 */
int cli_status(const char *dir, int argc, char **argv)
{
	catan_store *s = NULL;
	if (argc > 0) {
		fprintf(stderr,
			"catan status: unknown argument \"%s\" (usage: "
			"catan -C DIR status)\n",
			argv[0]);
		return 2;
	}
	int rc = open_game_ext(&s, dir, true);
	if (rc)
		return rc;
	const catan_game *g = catan_store_game(s);
	catan_state st;
	catan_commit_id head;
	catan_err err;
	if (catan_store_current(&st, &head, s, &err)) {
		fprintf(stderr, "catan status: %s\n", err.msg);
		catan_store_free(s);
		return 1;
	}
	static const char *const dice[] = {"seeded", "manual", "fair"};
	int me = catan_store_me(s);
	printf("game: ");
	for (int p = 0; p < g->opt.nplayers; p++)
		printf("%s%s", p ? ", " : "", g->names.name[p]);
	printf(" (%d VP to win); %s, %s dice; ", g->opt.vp_target,
	       g->signed_game ? "signed" : "unsigned",
	       g->opt.dice < 3 ? dice[g->opt.dice] : "?");
	if (me >= 0 && me < g->opt.nplayers)
		printf("you play %s\n", g->names.name[me]);
	else
		printf("every seat plays here (hot-seat)\n");
	printf("at: commit %.10s, turn %d, phase %s\n", head.hex, st.turn,
	       catan_phase_name(st.phase));
	printf("now: ");
	say_now(stdout, s, &st, &head);
	int ex, by;
	if (me >= 0 && me < g->opt.nplayers &&
	    catan_store_expel_due(s, &ex, &by) == 1 && by == me)
		printf(" (your move: catan act expel %s)", g->names.name[ex]);
	else if (me >= 0 && me < g->opt.nplayers && !g->open &&
		 st.phase != CATAN_PHASE_OVER && catan_state_may_act(&st, me) &&
		 game_stopped(s) < 0)
		printf(" (your move: catan legal --as %s)", g->names.name[me]);
	printf("\n\n");
	cli_print_scores(stdout, &g->board, &st, &g->names);
	catan_store_free(s);
	return 0;
}

int cli_legal(const char *dir, int argc, char **argv)
{
	catan_store *s = NULL;
	int rc = open_game_ext(&s, dir, true), who = -1;
	if (rc)
		return rc;
	const catan_game *g = catan_store_game(s);
	if (player_arg(g, argc, argv, &who) < 0) {
		catan_store_free(s);
		return 2;
	}
	catan_state st;
	catan_err err;
	if (catan_store_current(&st, NULL, s, &err)) {
		fprintf(stderr, "catan legal: %s\n", err.msg);
		catan_store_free(s);
		return 1;
	}
	static catan_action buf[8192];
	/*
	 * A stopped game: the equivocator has nothing (catan act refuses
	 * it); when the expulsion is due, it is the one action, of the seat
	 * that writes it; before, the others' discards or reveals there.
	 */
	int cheat = game_stopped(s), ex, by, n;
	if (cheat >= 0 && catan_store_expel_due(s, &ex, &by) == 1) {
		n = 0;
		if (who == by) {
			catan_action_init(&buf[0], CATAN_ACT_EXPEL);
			buf[0].player = (uint8_t)ex;
			n = 1;
		}
	} else {
		n = cheat == who || stopped_for_good(s)
			? 0
			: catan_legal_actions(buf, 8192, &g->board, &st, who,
					      0);
	}
	/* Only actions on stdout (legal | shuf -n1 | xargs act works); the
	 * note that there are none goes to stderr. */
	if (n == 0) {
		fprintf(stderr,
			"%s has nothing to do now: ", g->names.name[who]);
		say_now(stderr, s, &st, NULL);
		fprintf(stderr, "\n");
	}
	for (int i = 0; i < n && i < 8192; i++) {
		char text[160];
		catan_action_format(text, sizeof text, &g->board, &g->names,
				    &buf[i]);
		printf("%s\n", text);
	}
	catan_store_free(s);
	return 0;
}

/* Opens the game of a command that takes no arguments: 0, 1 or 2. */
static int open_plain(catan_store **s, const char *dir, int argc,
		      const char *cmd, bool readonly)
{
	if (argc) {
		fprintf(stderr, "catan %s: no arguments expected\n", cmd);
		return 2;
	}
	return open_game_ext(s, dir, readonly);
}

int cli_verify(const char *dir, int argc, char **argv)
{
	catan_store *s = NULL;
	(void)argv;
	int rc = open_plain(&s, dir, argc, "verify", true);
	if (rc)
		return rc;
	catan_verify_report rep;
	catan_err err;
	if (catan_store_verify(s, &rep, &err)) {
		fprintf(stderr, "catan verify: %s\n", err.msg);
		catan_store_free(s);
		return 1;
	}
	if (rep.ok)
		printf("ok: %ld commits (%ld discard merges) replayed and "
		       "verified\n",
		       rep.commits, rep.merges);
	else
		printf("BAD commit %s: %s\n", rep.bad.hex, rep.why);
	print_equivocation(s);
	catan_store_free(s);
	return rep.ok ? 0 : 1;
}

int cli_gc(const char *dir, int argc, char **argv)
{
	catan_store *s = NULL;
	(void)argv;
	int rc = open_plain(&s, dir, argc, "gc", false);
	if (rc)
		return rc;
	catan_err err;
	if (catan_store_gc(s, &err)) {
		fprintf(stderr, "catan gc: %s\n", err.msg);
		catan_store_free(s);
		return 1;
	}
	catan_store_free(s);
	return 0;
}

static void print_sync(const catan_sync_report *rep)
{
	fputs(rep->log, stdout);
	printf("sync: %d remote(s) fetched, %d unreachable; %d branch(es) "
	       "adopted, %d rejected; pushed to %d\n",
	       rep->fetched, rep->unreachable, rep->adopted, rep->rejected,
	       rep->pushed);
	if (rep->refused)
		printf("sync: %d remote(s) refused (said why above)\n",
		       rep->refused);
}

int cli_join(int argc, char **argv)
{
	const char *url = NULL, *dir = NULL, *me = NULL, *keyfile = NULL;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--as") && i + 1 < argc)
			me = argv[++i];
		else if (!strcmp(argv[i], "--key") && i + 1 < argc)
			keyfile = argv[++i];
		else if (!url)
			url = argv[i];
		else if (!dir)
			dir = argv[i];
		else {
			fprintf(stderr, "catan join: unexpected \"%s\"\n",
				argv[i]);
			return 2;
		}
	}
	if (!url || !dir || !me) {
		fprintf(stderr,
			"usage: catan join URL DIR --as PLAYER [--key FILE]\n");
		return 2;
	}
	catan_store *s = NULL;
	catan_sync_report rep;
	catan_err err;
	if (catan_store_join(&s, url, dir, me, &rep, &err)) {
		fprintf(stderr, "catan join: %s\n", err.msg);
		return 1;
	}
	char keypath[4096];
	if (catan_store_game(s)->signed_game) {
		struct stat st;
		if (!keyfile && !cli_default_key(keypath, sizeof keypath) &&
		    !stat(keypath, &st))
			keyfile = keypath;
		/* An open seat: the key claims it (the lobby). */
		int who = catan_store_me(s);
		bool open = who >= 0 && (catan_store_game(s)->open >> who) & 1;
		if (!keyfile)
			fprintf(stderr,
				"catan join: a signed game: give your key "
				"with catan -C %s key use FILE before you "
				"act%s\n",
				dir,
				open ? " (your seat is open: join again "
				       "with --key FILE to claim it)"
				     : "");
		else if (open ? catan_store_claim(s, keyfile, &err)
			      : catan_store_use_key(s, keyfile, &err)) {
			fprintf(stderr,
				"catan join: %s\n"
				"catan join: nothing joined: %s removed\n",
				err.msg, dir);
			catan_store_join_abandon(s, dir);
			return 1;
		} else if (open)
			printf("claimed seat %s with %s: push it (catan sync "
			       "with a push remote) and wait for %s to start "
			       "the game\n",
			       me, keyfile, catan_store_game(s)->names.name[0]);
	}
	print_sync(&rep);
	catan_state st;
	if (!catan_store_current(&st, NULL, s, &err)) {
		printf("joined as %s; now: ", me);
		say_now(stdout, s, &st, NULL);
		printf("\n");
	}
	catan_store_free(s);
	return rep.rejected || rep.refused ? 1 : 0;
}

int cli_remote(const char *dir, int argc, char **argv)
{
	bool push = argc >= 1 && !strcmp(argv[argc - 1], "--push");
	if (push)
		argc--;
	bool add = argc == 3 && !strcmp(argv[0], "add");
	bool mark = argc == 2 && !strcmp(argv[0], "push");
	if (!add && !mark) {
		fprintf(stderr, "usage: catan -C DIR remote add NAME URL [--push]\n"
				"       catan -C DIR remote push NAME   (sync "
				"pushes my branch there)\n");
		return 2;
	}
	catan_store *s = NULL;
	int rc = open_game(&s, dir);
	if (rc)
		return rc;
	catan_err err;
	if ((add && catan_store_remote_add(s, argv[1], argv[2], &err)) ||
	    ((push || mark) && catan_store_remote_push(s, argv[1], true, &err))) {
		fprintf(stderr, "catan remote: %s\n", err.msg);
		rc = 1;
	}
	catan_store_free(s);
	return rc;
}

int cli_sync(const char *dir, int argc, char **argv)
{
	catan_store *s = NULL;
	int rc = open_game(&s, dir);
	if (rc)
		return rc;
	catan_sync_report rep;
	catan_err err;
	if (catan_store_sync(s, (const char *const *)argv, argc, &rep, &err)) {
		fprintf(stderr, "catan sync: %s\n", err.msg);
		catan_store_free(s);
		return 1;
	}
	print_sync(&rep);
	print_equivocation(s);
	catan_state st;
	catan_commit_id head;
	if (!catan_store_current(&st, &head, s, &err)) {
		printf("now: ");
		say_now(stdout, s, &st, &head);
		printf("\n");
	} else {
		printf("cannot read the position: %s\n", err.msg);
	}
	catan_store_free(s);
	return rep.rejected || rep.refused ? 1 : 0;
}

/* Runs git with argv (no shell); returns its exit status or -1. */
static int run_git(char *const argv[])
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp("git", argv);
		_exit(127);
	}
	int status = 0;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int cli_bundle(const char *dir, int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[0], "create") && strcmp(argv[0], "apply"))) {
		fprintf(stderr, "usage: catan -C DIR bundle create|apply FILE\n");
		return 2;
	}
	catan_store *s = NULL;
	int rc = open_game(&s, dir);
	if (rc)
		return rc;
	if (!strcmp(argv[0], "create")) {
		/*
		 * Every player branch: the file is a complete game; and the
		 * two children of an equivocation this peer recorded (spec/
		 * replication.md, "Equivocation"), when there is one.
		 */
		char *git[] = {
		    "git",    "-C",	    (char *)dir,
		    "bundle", "create",	    "-q",
		    argv[1],  "--branches", "--glob=refs/catan/equivocation-?",
		    NULL};
		rc = run_git(git) == 0 ? 0 : 1;
		if (rc)
			fprintf(stderr, "catan bundle: git bundle create "
					"failed\n");
		else
			printf("wrote %s\n", argv[1]);
		catan_store_free(s);
		return rc;
	}
	/*
	 * Fetch into refs/remotes/bundle/ (and its evidence into
	 * refs/catan/evidence/bundle/), then verify and adopt as sync.
	 * Pruned: what an earlier bundle left there and this one lacks goes
	 * first (a bundle made with stock git may hold any ref under the
	 * globs: refs/catan/equivocation-a/x would otherwise stay as
	 * refs/catan/evidence/bundle/a/x and make every later bundle with a
	 * record fail whole, tests/cli/test_attack_bundle_refs.sh; and a pair
	 * this bundle lacks is not offered again).
	 */
	char *git[] = {
	    "git",
	    "-C",
	    (char *)dir,
	    "fetch",
	    "-q",
	    "--prune",
	    "--no-tags",
	    argv[1],
	    "+refs/heads/*:refs/remotes/bundle/*",
	    "+refs/catan/equivocation-*:refs/catan/evidence/bundle/*",
	    NULL};
	if (run_git(git) != 0) {
		fprintf(stderr, "catan bundle: cannot read %s as a bundle\n",
			argv[1]);
		catan_store_free(s);
		return 1;
	}
	catan_sync_report rep;
	catan_err err;
	memset(&rep, 0, sizeof rep);
	if (catan_store_adopt(s, "bundle", &rep, &err)) {
		fprintf(stderr, "catan bundle: %s\n", err.msg);
		catan_store_free(s);
		return 1;
	}
	rep.fetched = 1;
	print_sync(&rep);
	catan_store_free(s);
	return rep.rejected || rep.refused ? 1 : 0;
}

/*
 * catan -C DIR step [--bot greedy|random|value|mcts] [--max N]: this peer's bot
 * does everything this player may do now (its turn, a discard it owes, an offer
 * to answer), one commit per action, then stops.
 */
int cli_step(const char *dir, int argc, char **argv)
{
	int kind = CATAN_BOT_GREEDY;
	long max = 1000;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--bot") && i + 1 < argc) {
			i++;
			kind = catan_bot_kind_parse(argv[i], strlen(argv[i]));
			if (kind < 0) {
				fprintf(stderr, "catan step: --bot is random, "
						"greedy, value or mcts\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--max") && i + 1 < argc) {
			max = atol(argv[++i]);
		} else {
			fprintf(stderr, "catan step: unknown option \"%s\"\n",
				argv[i]);
			return 2;
		}
	}
	catan_store *s = NULL;
	int rc = open_game(&s, dir);
	if (rc)
		return rc;
	const catan_game *g = catan_store_game(s);
	int me = catan_store_me(s);
	if (me < 0) {
		fprintf(stderr, "catan step: this repository plays for nobody "
				"(catan new --me, or catan join)\n");
		catan_store_free(s);
		return 2;
	}
	catan_err err;
	for (long n = 0; n < max; n++) {
		catan_state st;
		catan_commit_id head;
		if (catan_store_current(&st, &head, s, &err)) {
			fprintf(stderr, "catan step: %s\n", err.msg);
			rc = 1;
			break;
		}
		/* The lobby: nobody acts before the start. */
		if (g->open || !catan_state_may_act(&st, me))
			break;
		catan_rng rng;
		catan_rng_seed(&rng, catan_state_hash(&st) ^ (uint64_t)me);
		catan_action a;
		if (catan_bot_choose(&a, kind, &g->board, &st, me, &rng,
				     CATAN_LEGAL_NO_OFFERS) ||
		    catan_store_act(s, me, &a, NULL, NULL, &err)) {
			fprintf(stderr, "catan step: %s\n", err.msg);
			rc = 1;
			break;
		}
		char text[160];
		catan_action_format(text, sizeof text, &g->board, &g->names, &a);
		printf("%s %s\n", g->names.name[me], text);
	}
	catan_state st;
	if (rc == 0 && !catan_store_current(&st, NULL, s, &err) &&
	    st.phase == CATAN_PHASE_OVER)
		printf("over: %s won\n", g->names.name[st.winner]);
	catan_store_free(s);
	return rc;
}

/*
 * catan -C DIR peer [--bot greedy|random | --agent CMD] [--interval S]
 *                   [--max-interval S] [--hot S] [--watch-interval S]
 *                   [--rounds N] [--on-kick K]
 *                   [--agent-timeout S] [--agent-memory MIB]
 *                   [--agent-threads N]
 * The long-running peer: syncs with every remote, lets the bot act when
 * this player may (its turn, a discard it owes, an offer to answer), and
 * says what it waits for. It syncs again at once after acting, otherwise
 * every --interval while the game moves (for --hot seconds, 2 by default,
 * after this peer last acted or adopted a move: the next move is likely
 * soon, and a sync that finds nothing is cheap, most of all over https),
 * then after an interval that doubles while nothing changes (up to
 * --max-interval). A git:// remote served by `catan serve` is watched
 * instead (catan_watch: the server wakes the peer when its branches move):
 * when every remote is, the peer syncs when woken, or after
 * --watch-interval (30 s) at the latest. The repository is locked only while it
 * works, so other catan commands can read it in between. Stops when the game is
 * over. With --agent, the moves come from an agent process (spec/agents.md),
 * started once and kept for the whole run; a kicked agent's seat plays
 * as --on-kick says (default: minimum viable moves).
 */
int cli_peer(const char *dir, int argc, char **argv)
{
	double interval = 0.2, max_interval = 5.0, hot = 2.0,
	       watch_interval = 30;
	long rounds = -1;
	const char *bot = NULL;
	cli_agent_opts ao;
	cli_seat seat;
	memset(&seat, 0, sizeof seat);
	cli_agent_opts_default(&ao);
	for (int i = 0; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int k = cli_agent_opt(&ao, "peer", argv[i], v);
		if (k < 0)
			return 2;
		if (k) {
			i++;
			continue;
		}
		if (!strcmp(argv[i], "--agent") && v) {
			seat.cmd = v;
			i++;
		} else if (!strcmp(argv[i], "--bot") && v) {
			bot = v;
			i++;
		} else if (!strcmp(argv[i], "--interval") && v) {
			interval = atof(v);
			i++;
		} else if (!strcmp(argv[i], "--max-interval") && v) {
			max_interval = atof(v);
			i++;
		} else if (!strcmp(argv[i], "--hot") && v) {
			hot = atof(v);
			i++;
		} else if (!strcmp(argv[i], "--watch-interval") && v) {
			watch_interval = atof(v);
			i++;
		} else if (!strcmp(argv[i], "--rounds") && v) {
			rounds = atol(v);
			i++;
		} else {
			fprintf(stderr, "catan peer: unknown option \"%s\"\n",
				argv[i]);
			return 2;
		}
	}
	if (interval <= 0 || max_interval < interval || !(hot >= 0) ||
	    hot > 3600 || !(watch_interval >= interval) ||
	    watch_interval > 3600 ||
	    (bot && catan_bot_kind_parse(bot, strlen(bot)) < 0) ||
	    (bot && seat.cmd)) {
		fprintf(stderr, "catan peer: bad --interval, --max-interval, "
				"--hot, --watch-interval or --bot (or both "
				"--bot and --agent)\n");
		return 2;
	}
	catan_state st;
	int rc = 0;
	double wait = interval;
	struct timespec moved; /* when this peer last acted or adopted */
	clock_gettime(CLOCK_MONOTONIC, &moved);
	char last[256] = "", last_why[256] = "";
	static char last_log[sizeof(((catan_sync_report *)0)->log)];
	/* The last wait ended in a wake-up; wake-ups in a row whose sync
	 * adopted nothing (see the wait below). */
	bool woken = false;
	int fruitless = 0;
	catan_watch *watch = catan_watch_new();
	if (!watch) {
		fprintf(stderr, "catan peer: out of memory\n");
		return 1;
	}
	for (long r = 0; rounds < 0 || r < rounds; r++) {
		catan_store *s = NULL;
		rc = open_game(&s, dir);
		if (rc)
			break;
		catan_watch_targets(watch, s);
		const catan_game *g = catan_store_game(s);
		int me = catan_store_me(s);
		if (seat.cmd && (me < 0 || g->opt.dice == CATAN_DICE_MANUAL)) {
			fprintf(stderr,
				"catan peer: --agent wants a repository "
				"that plays for a player, with seeded or "
				"fair dice (the protocol has no message "
				"for dice rolled by hand)\n");
			catan_store_free(s);
			catan_watch_free(watch);
			return 2;
		}
		catan_sync_report rep;
		catan_err err;
		bool acted = false, over = false;
		memset(&rep, 0, sizeof rep);
		/* The same report round after round (a peer that stays away)
		 * is printed once. */
		if (catan_store_sync(s, NULL, 0, &rep, &err) == 0 && rep.log[0] &&
		    strcmp(rep.log, last_log)) {
			fputs(rep.log, stdout);
			snprintf(last_log, sizeof last_log, "%s", rep.log);
		} else if (!rep.log[0]) {
			last_log[0] = 0;
		}
		if (woken)
			fruitless = rep.adopted ? 0 : fruitless + 1;
		woken = false;
		if (catan_store_current(&st, NULL, s, &err)) {
			fprintf(stderr, "catan peer: %s\n", err.msg);
			catan_store_free(s);
			rc = 1;
			break;
		}
		/*
		 * A stopped game: the peer goes on syncing (its record
		 * reaches the others) and says so once; it makes the moves
		 * its seat owes there (a discard, a reveal), and when the
		 * expulsion falls to its seat, writes it.
		 */
		int cheat = game_stopped(s), ex = -1, by = -1;
		bool ended = cheat >= 0 && stopped_for_good(s);
		bool due = cheat >= 0 && !ended &&
			   catan_store_expel_due(s, &ex, &by) == 1;
		bool stopped = cheat >= 0 && (cheat == me || ended || due);
		if (due && cheat != me && by == me) {
			catan_action a;
			catan_action_init(&a, CATAN_ACT_EXPEL);
			a.player = (uint8_t)ex;
			if (catan_store_act(s, me, &a, NULL, NULL, &err) == 0) {
				printf("%s expel %s\n", g->names.name[me],
				       g->names.name[ex]);
				acted = true;
			} else {
				fprintf(stderr, "catan peer: %s\n", err.msg);
			}
			catan_store_current(&st, NULL, s, &err);
		} else if (!stopped && seat.cmd && !g->open &&
			   catan_state_may_act(&st, me)) {
			catan_action a;
			catan_outcome oc;
			/*
			 * Fair dice: the peer reveals for its seat and
			 * completes the seat's own requests; the agent asked
			 * (ROLL, BUILD a card, ROB) and is told the outcome
			 * once the completion is in (spec/agents.md, "Fair
			 * dice").
			 */
			bool duty = st.phase == CATAN_PHASE_REVEAL;
			catan_action_init(&a, CATAN_ACT_REVEAL);
			catan_rng drng;
			catan_rng_seed(&drng, catan_state_hash(&st));
			if (duty)
				catan_bot_choose(&a, CATAN_BOT_GREEDY,
						 &g->board, &st, me, &drng, 0);
			else if (cli_seat_move(&seat, &ao, &a, &g->board, &st,
					       &g->names, me)) {
				fprintf(stderr,
					"catan peer: %s's agent was "
					"kicked; stopping (--on-kick "
					"stop)\n",
					g->names.name[me]);
				catan_store_free(s);
				rc = 1;
				break;
			}
			if (catan_store_act(s, me, &a, &oc, NULL, &err) == 0) {
				char text[160];
				catan_action_format(text, sizeof text,
						    &g->board, &g->names, &a);
				printf("%s %s\n", g->names.name[me], text);
				acted = true;
				catan_store_current(&st, NULL, s, &err);
				/* A request's outcome comes with its
				 * completion; a reveal has none. */
				if (a.kind != CATAN_ACT_REVEAL &&
				    st.phase != CATAN_PHASE_REVEAL)
					cli_seat_done(&seat, &st, &a, &oc);
				/* Over Git only actions travel: a counter-offer
				 * is logged, not passed on (spec/agents.md). */
				catan_msg c;
				if (seat.agent &&
				    catan_agent_take_counter(seat.agent, &c))
					printf(
					    "%s counters: %d %s for %d %s (not "
					    "passed on over Git)\n",
					    g->names.name[me],
					    c.u.trade.offer_count,
					    catan_res_name(catan_res_from_wire(
						c.u.trade.offer_res)),
					    c.u.trade.ask_count,
					    catan_res_name(catan_res_from_wire(
						c.u.trade.ask_res)));
			} else {
				fprintf(stderr, "catan peer: %s\n", err.msg);
			}
		} else if (!stopped && bot && me >= 0 && !g->open &&
			   catan_state_may_act(&st, me)) {
			catan_rng rng;
			catan_action a;
			catan_rng_seed(&rng, catan_state_hash(&st) ^ (uint64_t)me);
			/* The value and search bots trade with the others; the
			 * greedy and random ones make no offers (as before). */
			int kind = catan_bot_kind_parse(bot, strlen(bot));
			if (catan_bot_choose(&a, kind, &g->board, &st, me, &rng,
					     kind == CATAN_BOT_VALUE ||
						     kind == CATAN_BOT_MCTS
						 ? 0
						 : CATAN_LEGAL_NO_OFFERS) ==
				0 &&
			    catan_store_act(s, me, &a, NULL, NULL, &err) == 0) {
				char text[160];
				catan_action_format(text, sizeof text, &g->board,
						    &g->names, &a);
				printf("%s %s\n", g->names.name[me], text);
				acted = true;
			} else {
				fprintf(stderr, "catan peer: %s\n", err.msg);
			}
			catan_store_current(&st, NULL, s, &err);
		}
		over = st.phase == CATAN_PHASE_OVER;
		char now[256];
		FILE *m = fmemopen(now, sizeof now, "w");
		catan_commit_id head;
		if (m) {
			bool cur =
			    catan_store_current(&st, &head, s, &err) == 0;
			say_now(m, s, &st, cur ? &head : NULL);
			fclose(m);
		}
		if (strcmp(now, last)) {
			printf("waiting: %s\n", now);
			snprintf(last, sizeof last, "%s", now);
		}
		/* The winning move goes out before the peer stops: with a
		 * relay (a hosted repository it pushes to) no one else would
		 * ever see it. */
		if (over && acted) {
			memset(&rep, 0, sizeof rep);
			if (catan_store_sync(s, NULL, 0, &rep, &err) == 0)
				fputs(rep.log, stdout);
		}
		fflush(stdout);
		catan_store_free(s);
		if (over)
			break;
		/* Act again at once; otherwise back off once nothing moved for
		 * --hot seconds. */
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		/* Every remote watched: no polling, the servers wake us. */
		bool all = catan_watch_all(watch);
		if (acted || rep.adopted) {
			moved = t;
			wait = all ? watch_interval : interval;
			if (acted)
				continue;
		} else if (all) {
			wait = watch_interval;
		} else if ((double)(t.tv_sec - moved.tv_sec) +
			       (double)(t.tv_nsec - moved.tv_nsec) / 1e9 <
			   hot) {
			wait = interval;
		} else {
			wait = wait * 2 < max_interval ? wait * 2 : max_interval;
		}
		/* Wake-ups that bring nothing are paced as polling would be
		 * (catan_watch_pause): never a loop of syncs. */
		woken = catan_watch_wait(watch, (int)(wait * 1000)) == 1;
		double d = catan_watch_pause(fruitless, interval, max_interval);
		if (woken && d > 0) {
			struct timespec ts = {
			    (time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
			nanosleep(&ts, NULL);
		}
		const char *why = catan_watch_why(watch);
		if (why[0] && strcmp(why, last_why)) {
			printf("not watched, polled instead: %s\n", why);
			snprintf(last_why, sizeof last_why, "%s", why);
		}
	}
	catan_watch_free(watch);
	cli_seat_free(&seat, &st);
	return rc;
}
