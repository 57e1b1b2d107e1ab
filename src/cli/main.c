/*
 * main.c - the catan command.
 *
 *   catan bots [options]          a complete game between bots in the
 *                                 terminal: board, action log, scores
 *   catan new DIR [options]       a new game repository (hot-seat)
 *   catan -C DIR act --as P ...   P does an action: one commit
 *   catan -C DIR show [--json] [REV], legal --as P, log, verify, gc
 */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "botplay.h"
#include "catan/boardgen.h"
#include "catan/bot.h"
#include "catan/state.h"
#include "cli.h"
#include "research.h"

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: catan new DIR [--players a,b,c] [--board "
	    "beginner|random|balanced|FILE] [--me PLAYER]\n"
	    "                 [--[no-]special-build]\n"
	    "                 [--seed N] [--phases combined|classic]\n"
	    "                 [--dice seeded|manual|fair] [--vp N] "
	    "[--offer-limit N]\n"
	    "                 [--key FILE --seat PLAYER=PUBKEY... --open "
	    "PLAYER...]\n"
	    "                 (a signed game; --open: a seat a joiner claims)\n"
	    "       catan -C DIR act [--as PLAYER] ACTION...\n"
	    "       catan join URL DIR --as PLAYER [--key FILE]\n"
	    "       catan key new|show [FILE]   catan -C DIR key use "
	    "FILE|list\n"
	    "       catan host-hook install BARE_REPO   (refuse bad "
	    "pushes)\n"
	    "       catan host-hook serve BARE_REPO     (check them without "
	    "a process start)\n"
	    "       catan -C DIR remote add NAME URL [--push] | push NAME\n"
	    "       catan -C DIR sync [REMOTE...]\n"
	    "       catan -C DIR bundle create|apply FILE\n"
	    "       catan -C DIR step [--bot greedy|random|value|mcts] [--max "
	    "N]\n"
	    "       catan -C DIR serve [--port N] [--listen ADDR]\n"
	    "       catan -C DIR peer [--bot greedy|random|value|mcts | "
	    "--agent CMD] "
	    "[--interval S]\n"
	    "                     [--max-interval S] [--hot S] "
	    "[--watch-interval S] [--rounds N]\n"
	    "                     [--on-kick mvm|random|greedy|stop]\n"
	    "                     [--agent-timeout S] [--agent-memory MIB] "
	    "[--agent-threads N]\n"
	    "       catan -C DIR host --agents CMD,CMD,... [--on-kick K] "
	    "[--max-actions N] [agent limits]\n"
	    "       catan -C DIR show [--json] [REV]\n"
	    "       catan -C DIR status\n"
	    "       catan -C DIR legal --as PLAYER\n"
	    "       catan -C DIR log [REV | REV..REV] [--player P] [--json]\n"
	    "       catan -C DIR verify\n"
	    "       catan -C DIR gc\n"
	    "       catan simulate --games N --players P --out DIR "
	    "[--seed S] [--bots K,K,..]\n"
	    "                      [--vp N] [--board beginner|random|balanced] "
	    "[--shard K/N] [--jobs J]\n"
	    "       catan stats DIR... [--csv|--json] [--by "
	    "players|board|bots|folder]\n"
	    "                   [--summary | --histogram [--bin B]]\n"
	    "       catan report DIR... --out OUT [--by players|board|bots|"
	    "folder]\n"
	    "       catan board show FILE|beginner|random|balanced "
	    "[--json] | generate --out FILE\n"
	    "       catan render DIR [REV] --out FILE.png [--size WxH] "
	    "[--as P] [--reveal] [--coords]\n"
	    "       catan play DIR [--as P] [--bots a,b] [--size WxH] "
	    "[--pace S] [--interval S]\n"
	    "       catan play --new DIR [--players a,b,c] [--me P] "
	    "[--bots N] [--seed N] [--board B] [--pace S]\n"
	    "       catan replay DIR [REV] [--as P] [--size WxH] "
	    "[--reveal]\n"
	    "       catan bots [--players N | --names a,b,c] [--seed N]\n"
	    "                  [--board beginner|random] [--bot "
	    "greedy|random]\n"
	    "                  [--bots a,b,c,d] [--display "
	    "nosleep|sleep|step] [--delay MS]\n"
	    "                  [--phases combined|classic] [--vp N]\n"
	    "                  [--[no-]special-build] [--max-actions N] "
	    "[--quiet]\n"
	    "       catan tournament --bots a,b,... [--games N] "
	    "[--players N]\n"
	    "                        [--jobs J] [--seed S] [--json|--csv]\n"
	    "       catan COMMAND --help   what COMMAND does and takes\n"
	    "\n"
	    "Catan as a peer-to-peer game over Git: every action is a "
	    "commit.\n"
	    "2-6 players; 5 and 6 play the 5-6 player extension on a 5-6\n"
	    "board, with its special building phase unless "
	    "--no-special-build.\n"
	    "In the window (play, replay): q or Ctrl+Q quits, Esc "
	    "cancels, the\n"
	    "keys under the buttons act; `make play` starts a game "
	    "against bots.\n"
	    "catan bots: --bots names a bot per seat (random, greedy, "
	    "value, mcts,\n"
	    "mcts:N, mcts:Nms); a move that does not apply is replaced by "
	    "the\n"
	    "minimum viable move. --display draws the board as hexagons: "
	    "nosleep\n"
	    "at the end, sleep after every turn (--delay MS, default 1000), "
	    "step\n"
	    "after every action, waiting for Enter (s: the full state, q: "
	    "quit).\n");
}

/*
 * `catan COMMAND --help` (or -h) for the commands without a help of their
 * own: what the command does and its usage line from usage(). Returns
 * true when it printed (exit 0).
 */
static bool command_help(const char *cmd, int argc, char **argv)
{
	static const struct {
		const char *cmd, *what;
	} help[] = {
	    {"new", "a new game repository (hot-seat unless --me)"},
	    {"act", "one action by a player: one commit (spec/actions.md)"},
	    {"join", "clones a game to play as one of its players"},
	    {"remote", "adds a peer to sync with, or pushes to one"},
	    {"sync", "fetches the peers' moves and verifies every commit"},
	    {"bundle", "moves a game by file: create or apply a bundle"},
	    {"step", "lets a bot play this repository's player's moves"},
	    {"serve", "serves the game to peers over TCP"},
	    {"peer", "a background peer: syncs and lets a bot play"},
	    {"show", "the board, hands and scores at a commit"},
	    {"status", "what the game waits for now, and the scores"},
	    {"legal", "every legal action of a player now"},
	    {"verify", "replays and checks every commit of the game"},
	    {"gc", "packs the repository"},
	    {"render", "draws a commit of the game into a PNG (no display)"},
	    {"play", "the game window: click to play (q quits)"},
	    {"replay", "steps through a game commit by commit in a window"},
	    {"bots", "one complete game between bots in the terminal: "
		     "board, action log (as the Git log will hold it), "
		     "scores"},
	};
	bool asked = false;
	for (int i = 0; i < argc && !asked; i++)
		asked = !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h");
	if (!asked)
		return false;
	for (size_t k = 0; k < sizeof help / sizeof help[0]; k++) {
		if (strcmp(help[k].cmd, cmd))
			continue;
		/* The usage lines of this command, from the full text. */
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (!m)
			return false;
		usage(m);
		fclose(m);
		printf("catan %s: %s\n\nusage:\n", cmd, help[k].what);
		char want[32], want2[48];
		snprintf(want, sizeof want, "catan %s ", cmd);
		snprintf(want2, sizeof want2, "catan -C DIR %s", cmd);
		bool in = false;
		for (char *line = strtok(text, "\n"); line;
		     line = strtok(NULL, "\n")) {
			char *c = strstr(line, "catan ");
			if (strstr(line, "COMMAND"))
				in = false;
			else if (c && c - line < 16)
				in = !strncmp(c, want, strlen(want)) ||
				     (!strncmp(c, want2, strlen(want2)) &&
				      (c[strlen(want2)] == ' ' ||
				       !c[strlen(want2)]));
			else if (!c && line[0] != ' ')
				in = false;
			if (in)
				printf("  %s\n", c ? c : line);
		}
		free(text);
		return true;
	}
	return false;
}

static const char *phase_words(const catan_state *s)
{
	static const char *const w[] = {
	    "set-up", "roll",  "discard", "robber",  "main",  "trade",
	    "build",  "offer", "over",	  "special", "reveal"};
	return s->phase < CATAN_PHASE_COUNT ? w[s->phase] : "?";
}

static void print_outcome(const catan_action *a, const catan_outcome *oc,
			  const catan_state *s, const catan_names *names)
{
	if (a->kind == CATAN_ACT_ROLL) {
		printf("   # %d+%d=%d", oc->dice[0], oc->dice[1],
		       oc->dice[0] + oc->dice[1]);
		for (int p = 0; p < s->opt.nplayers; p++)
			for (int r = 0; r < CATAN_RES_COUNT; r++)
				if (oc->produced[p][r])
					printf(" %s+%d%s", names->name[p],
					       oc->produced[p][r],
					       catan_res_name(r));
	}
	if (oc->stolen != CATAN_NONE)
		printf("   # stole %s", catan_res_name(oc->stolen));
	if (oc->drawn != CATAN_NONE)
		printf("   # drew %s", catan_dev_name(oc->drawn));
}

enum { DISPLAY_NONE, DISPLAY_NOSLEEP, DISPLAY_SLEEP, DISPLAY_STEP };

/* Everything, hidden cards included: what "s" shows in step mode. */
static void print_full_state(const catan_board *b, const catan_state *s,
			     const catan_names *names)
{
	char tile[32];
	catan_tile_format(tile, sizeof tile, b, s->robber);
	printf("turn %u, phase %s, %s to act, robber on %s, dice %d+%d\n",
	       (unsigned)s->turn, phase_words(s),
	       names->name[catan_state_next_actor(s) == CATAN_NONE
			       ? s->active
			       : catan_state_next_actor(s)],
	       tile, s->dice[0], s->dice[1]);
	printf("  bank:");
	for (int r = 0; r < CATAN_RES_COUNT; r++)
		printf(" %s %d", catan_res_name(r), s->bank[r]);
	printf("\n  deck:");
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		printf(" %s %d", catan_dev_name(d), s->deck[d]);
	printf("\n");
	for (int p = 0; p < s->opt.nplayers; p++) {
		const catan_player *pl = &s->players[p];
		printf("  %-8s %2d VP  hand:", names->name[p],
		       catan_state_vp(s, p));
		for (int r = 0; r < CATAN_RES_COUNT; r++)
			printf(" %s %d", catan_res_name(r), pl->hand[r]);
		printf("  devs:");
		for (int d = 0; d < CATAN_DEV_COUNT; d++)
			if (pl->devs[d])
				printf(" %s %d", catan_dev_name(d),
				       pl->devs[d]);
		printf("  knights %d, road %d%s%s\n", pl->knights,
		       pl->road_length,
		       s->longest_road == p ? ", longest road" : "",
		       s->largest_army == p ? ", largest army" : "");
	}
}

/*
 * Step mode: waits for a line on stdin. Enter goes on, "s" prints the
 * full state and asks again, "q" (or the end of input) stops. Returns 1
 * to stop.
 */
static int step_prompt(const catan_board *b, const catan_state *s,
		       const catan_names *names)
{
	char line[64];
	for (;;) {
		printf("[Enter] next, s state, q quit > ");
		fflush(stdout);
		if (!fgets(line, sizeof line, stdin))
			return 1;
		if (line[0] == 'q')
			return 1;
		if (line[0] == 's') {
			print_full_state(b, s, names);
			continue;
		}
		return 0;
	}
}

static int cmd_bots(int argc, char **argv)
{
	catan_options opt;
	catan_names names;
	catan_board board;
	uint64_t seed = 1, max_actions = 100000, v;
	int bot = CATAN_BOT_GREEDY, special = -1; /* -1: by player count */
	const char *bots_list = NULL;
	int display = DISPLAY_NONE;
	uint64_t delay_ms = 1000;
	bool random_board = false, beginner_asked = false, quiet = false,
	     names_set = false;

	catan_options_default(&opt);
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = true;
		if (!strcmp(a, "--players")) {
			if (cli_parse_u64(a, val, CATAN_MIN_PLAYERS,
				      CATAN_MAX_PLAYERS, &v))
				return 2;
			opt.nplayers = (uint8_t)v;
		} else if (!strcmp(a, "--names")) {
			if (!val || catan_names_parse(&names, val) ||
			    names.n > CATAN_MAX_PLAYERS) {
				fprintf(stderr,
					"catan: --names wants 2 to %d distinct "
					"names of [a-z0-9_-], comma-separated; "
					"got \"%s\"\n",
					CATAN_MAX_PLAYERS, val ? val : "");
				return 2;
			}
			names_set = true;
		} else if (!strcmp(a, "--seed")) {
			if (cli_parse_u64(a, val, 0, UINT64_MAX, &seed))
				return 2;
		} else if (!strcmp(a, "--vp")) {
			if (cli_parse_u64(a, val, 3, 20, &v))
				return 2;
			opt.vp_target = (uint8_t)v;
		} else if (!strcmp(a, "--max-actions")) {
			if (cli_parse_u64(a, val, 1, 100000000, &max_actions))
				return 2;
		} else if (!strcmp(a, "--board")) {
			if (val && !strcmp(val, "random"))
				random_board = true;
			else if (val && !strcmp(val, "beginner"))
				random_board = false, beginner_asked = true;
			else {
				fprintf(stderr,
					"catan: --board is beginner or random, "
					"got \"%s\"\n",
					val ? val : "");
				return 2;
			}
		} else if (!strcmp(a, "--bot")) {
			if (val && !strcmp(val, "random"))
				bot = CATAN_BOT_RANDOM;
			else if (val && !strcmp(val, "greedy"))
				bot = CATAN_BOT_GREEDY;
			else {
				fprintf(stderr,
					"catan: --bot is greedy or random, got "
					"\"%s\"\n",
					val ? val : "");
				return 2;
			}
		} else if (!strcmp(a, "--bots")) {
			if (!val) {
				fprintf(stderr,
					"catan bots: --bots wants a list "
					"of bots\n");
				return 2;
			}
			bots_list = val;
		} else if (!strcmp(a, "--display")) {
			if (val && !strcmp(val, "nosleep"))
				display = DISPLAY_NOSLEEP;
			else if (val && !strcmp(val, "sleep"))
				display = DISPLAY_SLEEP;
			else if (val && !strcmp(val, "step"))
				display = DISPLAY_STEP;
			else {
				fprintf(stderr,
					"catan bots: --display is nosleep, "
					"sleep or step, got \"%s\"\n",
					val ? val : "");
				return 2;
			}
		} else if (!strcmp(a, "--delay")) {
			if (cli_parse_u64(a, val, 0, 60000, &delay_ms))
				return 2;
		} else if (!strcmp(a, "--phases")) {
			if (val && !strcmp(val, "classic"))
				opt.phases = CATAN_PHASES_CLASSIC;
			else if (val && !strcmp(val, "combined"))
				opt.phases = CATAN_PHASES_COMBINED;
			else {
				fprintf(stderr,
					"catan: --phases is combined or "
					"classic, got \"%s\"\n",
					val ? val : "");
				return 2;
			}
		} else if (!strcmp(a, "--special-build") ||
			   !strcmp(a, "--no-special-build")) {
			special = a[2] == 's';
			takes = false;
		} else if (!strcmp(a, "--quiet")) {
			quiet = true;
			takes = false;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "catan bots: unknown option \"%s\"\n",
				a);
			usage(stderr);
			return 2;
		}
		i += takes;
	}
	if (names_set)
		opt.nplayers = names.n;
	else
		catan_names_default(&names, opt.nplayers);
	opt.seed = seed;
	bool ext = opt.nplayers > CATAN_MAX_PLAYERS_BASE;
	if (cli_special_build(&opt, special, "catan bots"))
		return 2;
	if (ext && beginner_asked) {
		fprintf(stderr, "catan bots: 5-6 players play on a random 5-6 "
				"board (there is no beginner one)\n");
		return 2;
	}

	if (ext) {
		random_board = true;
		if (catan_board_random_ext56(&board, seed)) {
			fprintf(stderr, "catan bots: no 5-6 board in this "
					"build\n");
			return 2;
		}
	} else if (random_board)
		catan_board_random(&board, seed);
	else
		catan_board_beginner(&board);

	catan_state s;
	int rc = catan_state_init(&s, &board, &opt);
	if (rc) {
		fprintf(stderr, "catan: %s\n", catan_error_str(rc));
		return 2;
	}
	catan_rng bots;
	catan_rng_seed(&bots, seed ^ 0xb075ull);
	bp_entrant seat[CATAN_MAX_PLAYERS];
	for (int p = 0; p < opt.nplayers; p++)
		bp_entrant_parse(&seat[p], catan_bot_kind_name(bot),
				 strlen(catan_bot_kind_name(bot)), NULL, 0);
	if (bots_list) {
		int k = 0;
		char why[160];
		for (const char *q = bots_list; *q; k++) {
			size_t n = strcspn(q, ",");
			if (k == opt.nplayers) {
				fprintf(stderr,
					"catan bots: more bots than "
					"the %d players\n",
					opt.nplayers);
				return 2;
			}
			if (bp_entrant_parse(&seat[k], q, n, why, sizeof why)) {
				fprintf(stderr, "catan bots: %s\n", why);
				return 2;
			}
			q += n + (q[n] == ',');
		}
		if (k == 1) /* one bot for every seat */
			for (int p = 1; p < opt.nplayers; p++)
				seat[p] = seat[0];
		else if (k != opt.nplayers) {
			fprintf(stderr,
				"catan bots: %d bots for %d players "
				"(give one, or one a seat)\n",
				k, opt.nplayers);
			return 2;
		}
	}
	if (!quiet) {
		printf("Board (%s, seed %" PRIu64 "%s):\n",
		       ext ? "random 5-6" : random_board ? "random" : "beginner",
		       seed,
		       opt.special_build ? ", special building phase" : "");
		if (display == DISPLAY_NONE)
			cli_print_board(stdout, &board, &s);
		else
			cli_draw_board(stdout, &board, &s);
		printf("\nSeats:");
		for (int p = 0; p < opt.nplayers; p++)
			printf(" %s=%s", names.name[p], seat[p].name);
		printf("\n\nAction log (turn, player, action):\n");
	}
	uint64_t actions = 0;
	while (s.phase != CATAN_PHASE_OVER && actions < max_actions) {
		int who = catan_state_next_actor(&s);
		unsigned turn = s.turn;
		catan_action a;
		catan_outcome oc;
		bool fouled = false;
		if (bots_list)
			rc = bp_choose(&a, &seat[who], &board, &s, who, &bots,
				       &fouled);
		else
			rc = catan_bot_choose(&a, bot, &board, &s, who, &bots,
					      0);
		if (rc == CATAN_OK)
			rc = catan_state_apply(&s, &board, &s, who, &a, &oc);
		if (rc) {
			fprintf(stderr, "catan: bot %s stuck in phase %s: %s\n",
				names.name[who], phase_words(&s),
				catan_error_str(rc));
			return 1;
		}
		char why[160];
		if (catan_state_check(&board, &s, why, sizeof why)) {
			fprintf(stderr, "catan: invariant broken: %s\n", why);
			return 1;
		}
		actions++;
		if (!quiet) {
			char text[160];
			catan_action_format(text, sizeof text, &board, &names,
					    &a);
			printf("%4u %-7s %s", (unsigned)turn, names.name[who],
			       text);
			print_outcome(&a, &oc, &s, &names);
			if (fouled)
				printf("   # minimum viable move: %s's choice "
				       "did not apply",
				       seat[who].name);
			putchar('\n');
		}
		if (display == DISPLAY_NONE || display == DISPLAY_NOSLEEP ||
		    quiet)
			continue;
		bool turn_over = s.turn != turn || s.phase == CATAN_PHASE_OVER;
		if (turn_over) {
			printf("\n");
			cli_draw_board(stdout, &board, &s);
			cli_print_scores(stdout, &board, &s, &names);
			printf("\n");
		}
		fflush(stdout);
		if (display == DISPLAY_SLEEP && turn_over) {
			struct timespec ts = {(time_t)(delay_ms / 1000),
					      (long)(delay_ms % 1000) *
						  1000000};
			nanosleep(&ts, NULL);
		}
		if (display == DISPLAY_STEP && step_prompt(&board, &s, &names))
			return 0; /* q: stopped by the viewer */
	}
	if (s.phase != CATAN_PHASE_OVER) {
		fprintf(stderr, "catan: no winner after %" PRIu64 " actions\n",
			actions);
		return 1;
	}
	printf("%s%s wins on turn %u after %" PRIu64 " actions.\n",
	       quiet ? "" : "\n", names.name[s.winner], (unsigned)s.turn,
	       actions);
	if (!quiet) {
		printf("\nFinal board:\n");
		if (display == DISPLAY_NONE)
			cli_print_board(stdout, &board, &s);
		else
			cli_draw_board(stdout, &board, &s);
		printf("\nScores:\n");
		cli_print_scores(stdout, &board, &s, &names);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	if (argc >= 3 && !strcmp(argv[1], "-C")) {
		dir = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	argc -= 2;
	argv += 2;
	if (command_help(cmd, argc, argv))
		return 0;
	if (!strcmp(cmd, "bots"))
		return cmd_bots(argc, argv);
	if (!strcmp(cmd, "tournament"))
		return cli_tournament(argc, argv);
	if (!strcmp(cmd, "new"))
		return cli_new(argc, argv);
	if (!strcmp(cmd, "act"))
		return cli_act(dir, argc, argv);
	if (!strcmp(cmd, "show"))
		return cli_show(dir, argc, argv);
	if (!strcmp(cmd, "status"))
		return cli_status(dir, argc, argv);
	if (!strcmp(cmd, "legal"))
		return cli_legal(dir, argc, argv);
	if (!strcmp(cmd, "log"))
		return cli_log(dir, argc, argv);
	if (!strcmp(cmd, "verify"))
		return cli_verify(dir, argc, argv);
	if (!strcmp(cmd, "gc"))
		return cli_gc(dir, argc, argv);
	if (!strcmp(cmd, "host-hook"))
		return cli_host_hook(argc, argv);
	if (!strcmp(cmd, "key"))
		return cli_key(dir, argc, argv);
	if (!strcmp(cmd, "keygen")) {
		char *sub[3] = {"new", argc ? argv[0] : NULL, NULL};
		return cli_key(dir, argc + 1, sub);
	}
	if (!strcmp(cmd, "join"))
		return cli_join(argc, argv);
	if (!strcmp(cmd, "remote"))
		return cli_remote(dir, argc, argv);
	if (!strcmp(cmd, "sync"))
		return cli_sync(dir, argc, argv);
	if (!strcmp(cmd, "peer"))
		return cli_peer(dir, argc, argv);
	if (!strcmp(cmd, "serve"))
		return cli_serve(dir, argc, argv);
	if (!strcmp(cmd, "host"))
		return cli_host(dir, argc, argv);
	if (!strcmp(cmd, "step"))
		return cli_step(dir, argc, argv);
	if (!strcmp(cmd, "bundle"))
		return cli_bundle(dir, argc, argv);
	if (!strcmp(cmd, "simulate"))
		return cli_simulate(argc, argv);
	if (!strcmp(cmd, "stats"))
		return cli_stats(argc, argv);
	if (!strcmp(cmd, "report"))
		return cli_report(argc, argv);
	if (!strcmp(cmd, "board"))
		return cli_board(argc, argv);
	if (!strcmp(cmd, "render"))
		return cli_render(dir, argc, argv);
	if (!strcmp(cmd, "play"))
		return cli_play(dir, argc, argv);
	if (!strcmp(cmd, "replay"))
		return cli_replay(dir, argc, argv);
	argc += 2;
	argv -= 2;
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "catan: unknown command \"%s\"\n", argv[1]);
	usage(stderr);
	return 2;
}
