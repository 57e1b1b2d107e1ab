/*
 * sim.c - catan simulate: many complete games between random bots, each
 * written as a game repository with one commit per action, for research.
 *
 *   catan simulate --games N --players P --out DIR [options]  (--help)
 *
 * Game g (0 <= g < N) has seed S + g and lives in OUT/game-NNNNN, whatever
 * the shard or the number of jobs, so shards of one run merge into the
 * same games as the run unsharded (--shard K/N plays the K-th of N equal
 * ranges of game numbers).
 *
 * With 5 or 6 players every game is on a 5-6 board (random unless
 * --board balanced) with the special building phase unless
 * --no-special-build says otherwise.
 *
 * Bots (one kind per seat, --bots) play without domestic offers; the
 * random bot draws uniformly among the legal actions (as the thesis's
 * did). Commit times come from the seed, so a fixed seed gives
 * byte-identical repositories. Per game, a line of OUT/games.csv holds the
 * provenance (players, seed, board, phases, victory points, bots) and the
 * timings: compute (bot choice and rules), commit (encode, hash, write to
 * the in-memory object store, commit, move the branch) and flush (one
 * pack), and with --peers sync. OUT/run.json records the run: catan
 * version, host, command line, options, start time and the games it holds
 * (catan stats reads both).
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catan/boardgen.h"

#include "catan/bot.h"
#include "catan/store.h"
#include "cli.h"
#include "research.h"

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The bot kinds of catan/bot.h by name, in catan_bot_kind order. */
static const char *const bot_names[CATAN_BOT_COUNT] = {"random", "greedy",
						       "value", "mcts"};

enum { BOARD_BEGINNER, BOARD_RANDOM, BOARD_BALANCED };
static const char *const board_names[] = {"beginner", "random", "balanced"};

typedef struct sim_opts {
	long games;
	int players, phases, vp;
	int board;	   /* BOARD_*; -1: beginner, random with 5-6 players */
	int special_build; /* -1: the default (on with 5-6 players) */
	int bots[CATAN_MAX_PLAYERS], nbots; /* nbots 1: every seat */
	uint64_t seed;
	const char *out;
	int jobs;
	long shard, nshards; /* 1/1: the whole run */
	long lo, hi;	     /* the games of this shard: [lo, hi) */
	bool quiet;
	bool peers;	 /* each player a repository of its own, syncing */
	bool keep_peers; /* leave the other players' repositories */
} sim_opts;

#define MAX_ACTIONS 200000

static int sim_board(const char *kind, int players)
{
	(void)players;
	for (int k = 0; k < 3; k++)
		if (!strcmp(kind, board_names[k]))
			return k;
	return -1;
}

static int board_of(const sim_opts *o)
{
	if (o->board >= 0)
		return o->board;
	return o->players > CATAN_MAX_PLAYERS_BASE ? BOARD_RANDOM
						   : BOARD_BEGINNER;
}

static int bot_of(const sim_opts *o, int seat)
{
	return o->bots[o->nbots == 1 ? 0 : seat];
}

/* The seats' bots as "random-greedy-...", one name a seat. */
static void bots_label(char *buf, size_t n, const sim_opts *o)
{
	size_t k = 0;
	buf[0] = 0;
	for (int p = 0; p < o->players && k < n; p++)
		k += (size_t)snprintf(buf + k, n - k, "%s%s", p ? "-" : "",
				      bot_names[bot_of(o, p)]);
}

/* The board of a game of seed `seed`; a sentence on stderr on failure. */
static int make_board(catan_board *b, const sim_opts *o, uint64_t seed)
{
	bool ext = o->players > CATAN_MAX_PLAYERS_BASE;
	int kind = board_of(o);
	if (kind == BOARD_BALANCED) {
		catan_genopts go;
		catan_genreport gr;
		catan_genopts_default(&go);
		go.seed = seed;
		if (ext)
			go.shape = CATAN_SHAPE_EXT56;
		if (catan_board_generate(b, &go, &gr)) {
			fprintf(stderr, "catan simulate: %s\n", gr.why);
			return -1;
		}
	} else if (ext) {
		if (catan_board_random_ext56(b, seed)) {
			fprintf(stderr, "catan simulate: no 5-6 board in this "
					"build\n");
			return -1;
		}
	} else if (kind == BOARD_RANDOM)
		catan_board_random(b, seed);
	else
		catan_board_beginner(b);
	return 0;
}

/* Plays game g into OUT/game-NNNNN; appends its CSV line to f. */
static int sim_game(const sim_opts *o, long g, FILE *f, double *act_ns,
		    long *nact)
{
	catan_game game;
	char dir[4096], bots[64];
	catan_err err;
	catan_store *s = NULL;
	uint64_t seed = o->seed + (uint64_t)g;

	memset(&game, 0, sizeof game);
	catan_options_default(&game.opt);
	game.opt.nplayers = (uint8_t)o->players;
	game.opt.phases = (uint8_t)o->phases;
	if (o->vp)
		game.opt.vp_target = (uint8_t)o->vp;
	game.opt.seed = seed;
	game.opt.special_build =
		o->players > CATAN_MAX_PLAYERS_BASE && o->special_build != 0;
	catan_names_default(&game.names, o->players);
	if (make_board(&game.board, o, seed))
		return -1;
	snprintf(dir, sizeof dir, "%s/game-%05ld", o->out, g);

	double t0 = now_ns();
	if (catan_store_create_ext(&s, dir, &game, CATAN_TIME_DETERMINISTIC,
				   true, &err)) {
		fprintf(stderr, "catan simulate: %s: %s\n", dir, err.msg);
		catan_store_free(s);
		return -1;
	}
	double t_create = now_ns() - t0;
	catan_state st;
	catan_state_init(&st, &game.board, &game.opt);
	catan_rng bot;
	catan_rng_seed(&bot, seed * 2654435761u + 17);
	double compute = 0, commit = 0;
	long n = 0;
	while (st.phase != CATAN_PHASE_OVER && n < MAX_ACTIONS) {
		catan_action a;
		double t1 = now_ns();
		int who = catan_state_next_actor(&st);
		if (catan_bot_choose(&a, bot_of(o, who), &game.board, &st, who,
				     &bot, CATAN_LEGAL_NO_OFFERS) ||
		    catan_state_apply(&st, &game.board, &st, who, &a, NULL)) {
			fprintf(stderr, "catan simulate: bot stuck in %s\n", dir);
			catan_store_free(s);
			return -1;
		}
		double t2 = now_ns();
		if (catan_store_act(s, who, &a, NULL, NULL, &err)) {
			fprintf(stderr, "catan simulate: %s: %s\n", dir, err.msg);
			catan_store_free(s);
			return -1;
		}
		double t3 = now_ns();
		compute += t2 - t1;
		commit += t3 - t2;
		act_ns[n] = t3 - t1;
		n++;
	}
	double t4 = now_ns();
	if (catan_store_flush(s, &err)) {
		fprintf(stderr, "catan simulate: %s: %s\n", dir, err.msg);
		catan_store_free(s);
		return -1;
	}
	double flush = now_ns() - t4;
	catan_store_free(s);
	double total = now_ns() - t0;
	qsort(act_ns, (size_t)n, sizeof *act_ns, cmp_double);
	bots_label(bots, sizeof bots, o);
	fprintf(f,
		"game-%05ld,%d,%" PRIu64 ",%ld,%s,%d,%.3f,%.3f,%.3f,%.3f,%.4f,"
		"%.3f,%s,%s,%d,%s,%s,-\n",
		g, o->players, seed, n,
		st.phase == CATAN_PHASE_OVER ? game.names.name[st.winner] : "-",
		st.turn, t_create / 1e6, compute / 1e6, commit / 1e6,
		flush / 1e6, n ? act_ns[n / 2] / 1e6 : 0.0, total / 1e6,
		board_names[board_of(o)],
		o->phases == CATAN_PHASES_CLASSIC ? "classic" : "combined",
		game.opt.vp_target, bots, game.opt.special_build ? "yes" : "no");
	fflush(f);
	*nact = n;
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int type,
		  struct FTW *ftw)
{
	(void)sb, (void)type, (void)ftw;
	return remove(path) ? -1 : 0;
}

/*
 * Plays game g with --peers: each player a repository of its own (red's
 * is OUT/game-NNNNN, the others' OUT/game-NNNNN.peers/NAME), path remotes
 * in a full mesh, every peer syncing with all others before it acts, as
 * catan-peers-bench does (the thesis's chapter 5 split of compute, commit
 * and sync). Red syncs once more at the end, so its repository holds the
 * whole game. The other repositories are removed unless --keep-peers.
 */
static int sim_game_peers(const sim_opts *o, long g, FILE *f, long *nact)
{
	catan_game game;
	char dir[4096], others[4200], path[CATAN_MAX_PLAYERS][4300], bots[64];
	catan_err err;
	catan_sync_report rep;
	catan_store *s[CATAN_MAX_PLAYERS] = {NULL};
	uint64_t seed = o->seed + (uint64_t)g;
	int n = o->players, rc = -1;

	memset(&game, 0, sizeof game);
	memset(&err, 0, sizeof err);
	catan_options_default(&game.opt);
	game.opt.nplayers = (uint8_t)n;
	game.opt.phases = (uint8_t)o->phases;
	if (o->vp)
		game.opt.vp_target = (uint8_t)o->vp;
	game.opt.seed = seed;
	game.opt.special_build =
		n > CATAN_MAX_PLAYERS_BASE && o->special_build != 0;
	catan_names_default(&game.names, n);
	if (make_board(&game.board, o, seed))
		return -1;
	snprintf(dir, sizeof dir, "%s/game-%05ld", o->out, g);
	snprintf(others, sizeof others, "%s.peers", dir);
	snprintf(path[0], sizeof path[0], "%s", dir);
	for (int p = 1; p < n; p++)
		snprintf(path[p], sizeof path[p], "%s/%s", others,
			 game.names.name[p]);

	double t0 = now_ns();
	if (mkdir(others, 0777) ||
	    catan_store_create(&s[0], path[0], &game, CATAN_TIME_DETERMINISTIC,
			       &err) ||
	    catan_store_set_me(s[0], 0, &err))
		goto done;
	for (int p = 1; p < n; p++)
		if (catan_store_join(&s[p], path[0], path[p],
				     game.names.name[p], &rep, &err))
			goto done;
	for (int p = 0; p < n; p++)
		for (int q = 0; q < n; q++)
			if (p != q && !(p > 0 && q == 0) &&
			    catan_store_remote_add(s[p], game.names.name[q],
						   path[q], &err))
				goto done;
	double t_create = now_ns() - t0;
	double compute = 0, commit = 0, sync = 0;
	long actions = 0;
	catan_state st;
	memset(&st, 0, sizeof st);
	bool over = false;
	while (!over && actions < MAX_ACTIONS) {
		for (int p = 0; p < n && !over; p++) {
			double a = now_ns();
			if (catan_store_sync(s[p], NULL, 0, &rep, &err))
				goto done;
			sync += now_ns() - a;
			for (;;) {
				catan_action act;
				catan_rng rng;
				catan_state next;
				if (catan_store_current(&st, NULL, s[p], &err))
					goto done;
				if (st.phase == CATAN_PHASE_OVER) {
					over = true;
					break;
				}
				if (!catan_state_may_act(&st, p))
					break;
				double b = now_ns();
				catan_rng_seed(&rng,
					       catan_state_hash(&st) ^ (uint64_t)p);
				if (catan_bot_choose(&act, bot_of(o, p),
						     &game.board, &st, p, &rng,
						     CATAN_LEGAL_NO_OFFERS) ||
				    catan_state_apply(&next, &game.board, &st, p,
						      &act, NULL)) {
					snprintf(err.msg, sizeof err.msg,
						 "bot stuck");
					goto done;
				}
				double c = now_ns();
				if (catan_store_act(s[p], p, &act, NULL, NULL,
						    &err))
					goto done;
				compute += c - b;
				commit += now_ns() - c;
				actions++;
			}
		}
	}
	/* Red's repository gets the whole game (the last moves were made
	 * elsewhere); not timed. */
	if (catan_store_sync(s[0], NULL, 0, &rep, &err) ||
	    catan_store_current(&st, NULL, s[0], &err))
		goto done;
	double total = now_ns() - t0;
	bots_label(bots, sizeof bots, o);
	fprintf(f,
		"game-%05ld,%d,%" PRIu64 ",%ld,%s,%d,%.3f,%.3f,%.3f,0,0,%.3f,"
		"%s,%s,%d,%s,%s,%.3f\n",
		g, n, seed, actions,
		st.phase == CATAN_PHASE_OVER ? game.names.name[st.winner] : "-",
		st.turn, t_create / 1e6, compute / 1e6, commit / 1e6,
		total / 1e6, board_names[board_of(o)],
		o->phases == CATAN_PHASES_CLASSIC ? "classic" : "combined",
		game.opt.vp_target, bots, game.opt.special_build ? "yes" : "no",
		sync / 1e6);
	fflush(f);
	*nact = actions;
	rc = 0;
done:
	if (rc)
		fprintf(stderr, "catan simulate: %s: %s\n", dir, err.msg);
	for (int p = 0; p < n; p++)
		catan_store_free(s[p]);
	if (!o->keep_peers && rc == 0 &&
	    nftw(others, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "catan simulate: cannot remove %s\n", others);
	return rc;
}

/* Worker k of o->jobs: games lo+k, lo+k+jobs, ... into csv; a byte on
 * `done` after each game (the parent's progress line). */
static int sim_worker(const sim_opts *o, int k, const char *csv, int done)
{
	FILE *f = fopen(csv, "w");
	double *act = malloc(sizeof(double) * MAX_ACTIONS);
	int rc = 0;
	if (!f || !act) {
		fprintf(stderr, "catan simulate: cannot write %s\n", csv);
		free(act);
		if (f)
			fclose(f);
		return 1;
	}
	for (long g = o->lo + k; g < o->hi && rc == 0; g += o->jobs) {
		long n = 0;
		rc = o->peers ? sim_game_peers(o, g, f, &n)
			      : sim_game(o, g, f, act, &n);
		if (rc == 0 && write(done, "g", 1) != 1)
			rc = -1;
	}
	fclose(f);
	free(act);
	return rc ? 1 : 0;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: catan simulate --games N --players P --out DIR [options]\n"
	    "\n"
	    "Plays N complete games between bots, each into DIR/game-NNNNN "
	    "(one\n"
	    "commit per action), for research; DIR/games.csv holds provenance\n"
	    "and timings per game, DIR/run.json the run (catan stats reads "
	    "both).\n"
	    "\n"
	    "  --games N        games in the whole run (1 to 10000000; default "
	    "1)\n"
	    "  --players P      2 to 6 (default 4)\n"
	    "  --seed S         game g has seed S+g (default 1)\n"
	    "  --bots K,K,...   a bot kind per seat, or one for every seat:\n"
	    "                   random (uniform over the legal actions, the\n"
	    "                   thesis's), greedy, value or mcts "
	    "(spec/bots.md;\n"
	    "                   default random)\n"
	    "  --vp N           victory points to win, 3 to 20 (default 10)\n"
	    "  --board B        beginner, random or balanced (default "
	    "beginner;\n"
	    "                   5-6 players: random or balanced 5-6 board)\n"
	    "  --phases P       combined or classic (default combined)\n"
	    "  --[no-]special-build  the 5-6 players' special building phase\n"
	    "                   (default on with 5-6 players)\n"
	    "  --shard K/N      play only the K-th of N equal ranges of the N\n"
	    "                   games (1 <= K <= N); shards merge in catan "
	    "stats\n"
	    "  --peers          each player a repository of its own (red's in\n"
	    "                   game-NNNNN, the others' removed after the "
	    "game),\n"
	    "                   syncing through path remotes before each "
	    "turn:\n"
	    "                   times sync too (the thesis's figure 5.5); "
	    "slower\n"
	    "  --keep-peers     --peers, leaving game-NNNNN.peers/ in place\n"
	    "  --jobs J         J processes (default 1)\n"
	    "  --out DIR        where the games go (created if missing)\n"
	    "  --quiet          no progress line (there is none unless stderr "
	    "is a\n"
	    "                   terminal) and no closing sentence\n"
	    "  -h, --help       this text\n");
}

/* Parses "K/N" with 1 <= K <= N <= 1000000. */
static int parse_shard(const char *v, long *k, long *n)
{
	char *end = NULL;
	errno = 0;
	if (!v || *v < '0' || *v > '9')
		return -1;
	*k = strtol(v, &end, 10);
	if (errno || *end != '/' || end[1] < '0' || end[1] > '9')
		return -1;
	*n = strtol(end + 1, &end, 10);
	if (errno || *end || *n < 1 || *n > 1000000 || *k < 1 || *k > *n)
		return -1;
	return 0;
}

/* Parses the --bots list into o->bots; -1 on an unknown name. */
static int parse_bots(sim_opts *o, const char *v)
{
	o->nbots = 0;
	while (v && *v) {
		size_t len = strcspn(v, ",");
		int kind = -1;
		for (int k = 0; k < CATAN_BOT_COUNT; k++)
			if (strlen(bot_names[k]) == len &&
			    !strncmp(v, bot_names[k], len))
				kind = k;
		if (kind < 0 || o->nbots == CATAN_MAX_PLAYERS)
			return -1;
		o->bots[o->nbots++] = kind;
		v += len + (v[len] == ',');
	}
	return o->nbots ? 0 : -1;
}

/* OUT/run.json: what made this folder (catan stats reads the version). */
static int write_run(const sim_opts *o, int argc, char **argv,
		     const char *started)
{
	char path[4096], host[256] = "", bots[64];
	snprintf(path, sizeof path, "%s/run.json", o->out);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	if (gethostname(host, sizeof host - 1))
		snprintf(host, sizeof host, "unknown");
	bots_label(bots, sizeof bots, o);
	fprintf(f, "{\"catan_version\":");
	cli_json_str(f, CATAN_VERSION);
	fprintf(f, ",\"host\":");
	cli_json_str(f, host);
	fprintf(f, ",\"started\":");
	cli_json_str(f, started);
	fprintf(f, ",\"command\":[\"catan\",\"simulate\"");
	for (int i = 0; i < argc; i++) {
		fputc(',', f);
		cli_json_str(f, argv[i]);
	}
	fprintf(f,
		"],\n \"options\":{\"games\":%ld,\"players\":%d,\"seed\":%" PRIu64
		",\"board\":\"%s\",\"phases\":\"%s\",\"vp\":%d,\"bots\":\"%s\","
		"\"special_build\":%s,\"jobs\":%d,\"shard\":\"%ld/%ld\","
		"\"peers\":%s},\n"
		" \"first_game\":%ld,\"end_game\":%ld}\n",
		o->games, o->players, o->seed, board_names[board_of(o)],
		o->phases == CATAN_PHASES_CLASSIC ? "classic" : "combined",
		o->vp ? o->vp : 10, bots,
		o->players > CATAN_MAX_PLAYERS_BASE && o->special_build != 0
			? "true"
			: "false",
		o->jobs, o->shard, o->nshards, o->peers ? "true" : "false", o->lo,
		o->hi);
	return fclose(f) ? -1 : 0;
}

int cli_simulate(int argc, char **argv)
{
	sim_opts o;
	memset(&o, 0, sizeof o);
	o.games = 1, o.players = 4, o.board = -1, o.special_build = -1;
	o.nbots = 1, o.bots[0] = CATAN_BOT_RANDOM;
	o.seed = 1, o.jobs = 1, o.shard = 1, o.nshards = 1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--quiet") || !strcmp(a, "--peers") ||
		    !strcmp(a, "--keep-peers")) {
			if (a[2] == 'q')
				o.quiet = true;
			else if (a[2] == 'p')
				o.peers = true;
			else
				o.peers = o.keep_peers = true;
			continue;
		}
		if (!strcmp(a, "--special-build") ||
		    !strcmp(a, "--no-special-build")) {
			o.special_build = a[2] == 's';
			continue;
		}
		if (strncmp(a, "--", 2)) {
			fprintf(stderr, "catan simulate: unexpected \"%s\"\n", a);
			usage(stderr);
			return 2;
		}
		if (!v) {
			fprintf(stderr, "catan simulate: %s needs a value\n", a);
			return 2;
		}
		errno = 0;
		if (!strcmp(a, "--games")) {
			o.games = strtol(v, &end, 10);
			if (errno || *end || o.games < 1 || o.games > 10000000)
				goto bad;
		} else if (!strcmp(a, "--players")) {
			o.players = (int)strtol(v, &end, 10);
			if (*end || o.players < CATAN_MIN_PLAYERS ||
			    o.players > CATAN_MAX_PLAYERS)
				goto bad;
		} else if (!strcmp(a, "--seed")) {
			if (*v == '-')
				goto bad;
			o.seed = strtoull(v, &end, 10);
			if (errno || *end)
				goto bad;
		} else if (!strcmp(a, "--jobs")) {
			o.jobs = (int)strtol(v, &end, 10);
			if (*end || o.jobs < 1 || o.jobs > 256)
				goto bad;
		} else if (!strcmp(a, "--vp")) {
			o.vp = (int)strtol(v, &end, 10);
			if (*end || o.vp < 3 || o.vp > 20)
				goto bad;
		} else if (!strcmp(a, "--board")) {
			if ((o.board = sim_board(v, o.players)) < 0)
				goto bad;
		} else if (!strcmp(a, "--bots")) {
			if (parse_bots(&o, v))
				goto bad;
		} else if (!strcmp(a, "--shard")) {
			if (parse_shard(v, &o.shard, &o.nshards))
				goto bad;
		} else if (!strcmp(a, "--phases")) {
			if (!strcmp(v, "classic"))
				o.phases = CATAN_PHASES_CLASSIC;
			else if (!strcmp(v, "combined"))
				o.phases = CATAN_PHASES_COMBINED;
			else
				goto bad;
		} else if (!strcmp(a, "--out")) {
			o.out = v;
		} else {
			fprintf(stderr, "catan simulate: unknown option \"%s\"\n",
				a);
			usage(stderr);
			return 2;
		}
		i++;
		continue;
bad:
		fprintf(stderr, "catan simulate: bad value \"%s\" for %s (see "
				"catan simulate --help)\n",
			v, a);
		return 2;
	}
	if (!o.out) {
		usage(stderr);
		return 2;
	}
	if (o.special_build == 1 && o.players <= CATAN_MAX_PLAYERS_BASE) {
		fprintf(stderr, "catan simulate: --special-build is for 5 or 6 "
				"players\n");
		return 2;
	}
	if (o.board == BOARD_BEGINNER && o.players > CATAN_MAX_PLAYERS_BASE) {
		fprintf(stderr, "catan simulate: 5-6 players play on a random "
				"or balanced 5-6 board (there is no beginner "
				"one)\n");
		return 2;
	}
	if (o.nbots != 1 && o.nbots != o.players) {
		fprintf(stderr,
			"catan simulate: --bots names %d kinds for %d players "
			"(one per seat, or one for all)\n",
			o.nbots, o.players);
		return 2;
	}
	/* Shard K of N: games [games*(K-1)/N, games*K/N). */
	o.lo = (long)((o.shard - 1) * o.games / o.nshards);
	o.hi = (long)(o.shard * o.games / o.nshards);
	if (o.jobs > o.hi - o.lo && o.hi > o.lo)
		o.jobs = (int)(o.hi - o.lo);
	if (mkdir(o.out, 0777) && errno != EEXIST) {
		fprintf(stderr, "catan simulate: cannot create %s: %s\n", o.out,
			strerror(errno));
		return 1;
	}
	char started[32];
	time_t now = time(NULL);
	struct tm tm;
	strftime(started, sizeof started, "%Y-%m-%dT%H:%M:%SZ",
		 gmtime_r(&now, &tm));
	if (write_run(&o, argc, argv, started)) {
		fprintf(stderr, "catan simulate: cannot write %s/run.json\n",
			o.out);
		return 1;
	}

	/* Workers in processes of their own; each writes a byte per game
	 * into a pipe, which the progress line counts. */
	char csv[4096];
	int failed = 0, pfd[2];
	if (pipe(pfd)) {
		fprintf(stderr, "catan simulate: pipe: %s\n", strerror(errno));
		return 1;
	}
	fflush(NULL);
	for (int k = 0; k < o.jobs; k++) {
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "catan simulate: fork: %s\n",
				strerror(errno));
			return 1;
		}
		if (pid == 0) {
			close(pfd[0]);
			snprintf(csv, sizeof csv, "%s/games.csv.%d", o.out, k);
			_exit(sim_worker(&o, k, csv, pfd[1]));
		}
	}
	close(pfd[1]);
	cli_progress pr;
	cli_progress_start(&pr, "catan simulate", o.hi - o.lo, o.quiet);
	char buf[64];
	long done = 0;
	ssize_t got;
	while ((got = read(pfd[0], buf, sizeof buf)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		done += got;
		cli_progress_step(&pr, done);
	}
	close(pfd[0]);
	cli_progress_end(&pr);
	for (int k = 0; k < o.jobs; k++) {
		int status = 0;
		wait(&status);
		failed |= !WIFEXITED(status) || WEXITSTATUS(status);
	}
	/* One CSV in game order (each worker wrote its share in order). */
	snprintf(csv, sizeof csv, "%s/games.csv", o.out);
	FILE *out = fopen(csv, "w");
	FILE *in[256] = {NULL};
	char line[512];
	if (!out) {
		fprintf(stderr, "catan simulate: cannot write %s\n", csv);
		return 1;
	}
	fprintf(out, "game,players,seed,actions,winner,turns,create_ms,"
		     "compute_ms,commit_ms,flush_ms,median_action_ms,total_ms,"
		     "board,phases,vp,bots,special_build,sync_ms\n");
	for (int k = 0; k < o.jobs; k++) {
		snprintf(csv, sizeof csv, "%s/games.csv.%d", o.out, k);
		in[k] = fopen(csv, "r");
	}
	for (long g = o.lo; g < o.hi; g++) {
		FILE *src = in[(g - o.lo) % o.jobs];
		if (src && fgets(line, sizeof line, src))
			fputs(line, out);
	}
	for (int k = 0; k < o.jobs; k++) {
		if (in[k])
			fclose(in[k]);
		snprintf(csv, sizeof csv, "%s/games.csv.%d", o.out, k);
		unlink(csv);
	}
	fclose(out);
	if (!failed && !o.quiet)
		fprintf(stderr, "catan simulate: %ld games in %s (timings in "
				"%s/games.csv)\n",
			o.hi - o.lo, o.out, o.out);
	return failed ? 1 : 0;
}
