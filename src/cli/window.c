/*
 * window.c - the window's subcommands: render, play, replay; and play
 * --new, which sets up a local game against bots where every bot is a
 * separate peer with its own repository, syncing through path remotes.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catan/sign.h"
#include "catan/ui.h"
#include "cli.h"

/* Options common to the three commands; returns 2 on a bad option. */
static int ui_args(catan_ui_options *o, const char *cmd, const char *dir,
		   int argc, char **argv, const char **rev, bool *newgame,
		   char *new_args, size_t new_size)
{
	memset(o, 0, sizeof *o);
	o->dir = dir;
	o->interval = 0.5;
	o->pace = 0.6;
	size_t used = 0;
	if (new_args)
		new_args[0] = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t n;
		if (!strcmp(a, "--out") && v) {
			o->out = v;
			i++;
		} else if (!strcmp(a, "--size") && v) {
			if (sscanf(v, "%dx%d", &o->w, &o->h) != 2 || o->w < 200 ||
			    o->h < 150 || o->w > 8192 || o->h > 8192) {
				fprintf(stderr, "catan %s: --size is WIDTHxHEIGHT "
						"between 200x150 and 8192x8192, got \"%s\"\n",
					cmd, v);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--as") && v) {
			o->as = v;
			i++;
		} else if (!strcmp(a, "--bots") && v &&
			   !(newgame && *newgame)) {
			o->bots = v;
			i++;
		} else if (!strcmp(a, "--script") && v) {
			o->script = v;
			i++;
		} else if (!strcmp(a, "--interval") && v) {
			o->interval = atof(v);
			if (!(o->interval >= 0.05 && o->interval <= 600)) {
				fprintf(stderr, "catan %s: --interval is seconds "
						"between 0.05 and 600\n", cmd);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--pace") && v) {
			char *end;
			o->pace = strtod(v, &end);
			if (*end || !(o->pace >= 0 && o->pace <= 10)) {
				fprintf(stderr,
					"catan %s: --pace is seconds per "
					"move shown, between 0 and 10, got "
					"\"%s\"\n",
					cmd, v);
				return 2;
			}
			i++;
		} else if (!strcmp(a, "--frames") && v) {
			if (cli_parse_u64(a, v, 1, 100000, &n))
				return 2;
			o->frames = (int)n;
			i++;
		} else if (!strcmp(a, "--reveal")) {
			o->reveal = true;
		} else if (!strcmp(a, "--coords")) {
			o->coords = true;
		} else if (!strcmp(a, "--new") && newgame) {
			*newgame = true;
		} else if (newgame && *newgame && new_args && a[0] == '-' &&
			   v &&
			   (!strcmp(a, "--players") || !strcmp(a, "--seed") ||
			    !strcmp(a, "--board") || !strcmp(a, "--bots") ||
			    !strcmp(a, "--phases") || !strcmp(a, "--vp") ||
			    !strcmp(a, "--me"))) {
			used += (size_t)snprintf(new_args + used, new_size - used,
						 "%s\n%s\n", a, v);
			i++;
		} else if (a[0] != '-' && !o->dir) {
			o->dir = a;
		} else if (a[0] != '-' && rev && !*rev) {
			*rev = a;
		} else {
			fprintf(stderr, "catan %s: unknown or incomplete option \"%s\"\n",
				cmd, a);
			return 2;
		}
	}
	if (!o->dir) {
		fprintf(stderr, "catan %s: which game? give DIR (or -C DIR)\n", cmd);
		return 2;
	}
	return 0;
}

int cli_render(const char *dir, int argc, char **argv)
{
	catan_ui_options o;
	const char *rev = NULL;
	if (ui_args(&o, "render", dir, argc, argv, &rev, NULL, NULL, 0))
		return 2;
	if (!o.out && !o.frames) {
		fprintf(stderr, "usage: catan render DIR [REV] --out FILE.png "
				"[--size WxH] [--as PLAYER] [--reveal] [--coords] "
				"[--frames N]\n");
		return 2;
	}
	o.rev = rev;
	catan_err err;
	if (catan_ui_render(&o, &err)) {
		fprintf(stderr, "catan render: %s\n", err.msg);
		return 1;
	}
	return 0;
}

int cli_replay(const char *dir, int argc, char **argv)
{
	catan_ui_options o;
	const char *rev = NULL;
	if (ui_args(&o, "replay", dir, argc, argv, &rev, NULL, NULL, 0))
		return 2;
	o.rev = rev;
	catan_err err;
	if (catan_ui_replay(&o, &err)) {
		fprintf(stderr, "catan replay: %s\n", err.msg);
		return 1;
	}
	return 0;
}

/* Bot peers started by play --new (or restarted by play DIR), stopped
 * when the window closes; one that ends earlier (its game is over) is
 * reaped at once by the SIGCHLD handler, so none lingers as a zombie. */
static volatile pid_t bot_pids[CATAN_MAX_PLAYERS];
static volatile int nbots;

static void reap_bots(int sig)
{
	(void)sig;
	int saved = errno;
	for (int i = 0; i < nbots; i++)
		if (bot_pids[i] > 0 && waitpid(bot_pids[i], NULL, WNOHANG) > 0)
			bot_pids[i] = 0;
	errno = saved;
}

static void stop_bots(void)
{
	signal(SIGCHLD, SIG_DFL);
	for (int i = 0; i < nbots; i++)
		if (bot_pids[i] > 0) {
			kill(bot_pids[i], SIGTERM);
			waitpid(bot_pids[i], NULL, 0);
			bot_pids[i] = 0;
		}
	nbots = 0;
}

/* Runs `catan argv...` (the catan beside this catan-window, which starts
 * without SDL's libraries; this program itself when there is none): in
 * the background with its output appended to log, or else waited for. */
static int run_self(char *const argv[], const char *log)
{
	char exe[PATH_MAX + 16];
	if (cli_beside_self("catan", exe, sizeof exe) || access(exe, X_OK))
		snprintf(exe, sizeof exe, "/proc/self/exe");
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (log) {
			FILE *f = freopen(log, "a", stdout);
			(void)f;
			dup2(1, 2);
		}
		execv(exe, argv);
		_exit(127);
	}
	if (log) {
		if (nbots < CATAN_MAX_PLAYERS)
			bot_pids[nbots++] = pid;
		return 0;
	}
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

/* Starts `catan -C PATH peer --bot value` in the background, its output
 * appended to PATH.log (which marks PATH as a local bot peer). */
static int start_bot(const char *path)
{
	char log[1100], p[1024];
	snprintf(log, sizeof log, "%s.log", path);
	snprintf(p, sizeof p, "%s", path);
	char *pargv[] = {"catan",      "-C",	p,
			 "peer",       "--bot", "value",
			 "--interval", "0.1",	"--max-interval",
			 "0.6",	       NULL};
	return run_self(pargv, log);
}

/*
 * play DIR on a game made by play --new: the other players' repositories
 * beside DIR with a bot log (DIR/../<name> and DIR/../<name>.log) are
 * local bot peers, which ended with the last window: start them again.
 * Anything else (remote players) is left alone. Prints what it did.
 */
static void resume_local_bots(const char *dir)
{
	catan_store *st = NULL;
	catan_err err;
	if (catan_store_open(&st, dir, &err))
		return; /* catan_ui_play says what is wrong */
	catan_game g = *catan_store_game(st);
	int me = catan_store_me(st);
	catan_store_free(st);
	if (me < 0)
		return;
	char parent[1024];
	snprintf(parent, sizeof parent, "%s", dir);
	size_t n = strlen(parent);
	while (n > 1 && parent[n - 1] == '/')
		parent[--n] = 0;
	char *slash = strrchr(parent, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(parent, sizeof parent, ".");
	char started[256] = "";
	for (int p = 0; p < g.names.n; p++) {
		if (p == me)
			continue;
		char path[1100], log[1200];
		struct stat sb;
		snprintf(path, sizeof path, "%s/%s", parent, g.names.name[p]);
		snprintf(log, sizeof log, "%s.log", path);
		if (stat(path, &sb) || !S_ISDIR(sb.st_mode) || stat(log, &sb))
			continue;
		if (start_bot(path)) {
			fprintf(stderr,
				"catan play: could not restart the bot %s; run "
				"`catan -C %s peer --bot value` yourself\n",
				g.names.name[p], path);
			continue;
		}
		snprintf(started + strlen(started),
			 sizeof started - strlen(started), "%s%s",
			 started[0] ? ", " : "", g.names.name[p]);
	}
	if (started[0]) {
		printf(
		    "resumed: bot peer%s %s started again (logs in %s/*.log)\n",
		    strchr(started, ',') ? "s" : "", started, parent);
		fflush(stdout);
	}
}

/*
 * play --new DIR: DIR/<me> is the player's repository, DIR/<bot> one per
 * bot, every repository with a path remote to every other; each bot runs
 * `catan peer --bot value` in the background (log in DIR/<bot>.log).
 */
static int new_local_game(const char *dir, char *new_args, catan_ui_options *o,
			  char *mydir, size_t mysize)
{
	char *args[24];
	int na = 0;
	const char *players = "red,blue,white,orange", *me = NULL;
	int nbot = -1;
	char *save = NULL;
	for (char *t = strtok_r(new_args, "\n", &save); t && na < 16;
	     t = strtok_r(NULL, "\n", &save)) {
		char *v = strtok_r(NULL, "\n", &save);
		if (!v)
			break;
		if (!strcmp(t, "--players"))
			players = v;
		else if (!strcmp(t, "--me"))
			me = v;
		else if (!strcmp(t, "--bots"))
			nbot = atoi(v);
		else {
			args[na++] = t;
			args[na++] = v;
		}
	}
	catan_names names;
	if (catan_names_parse(&names, players)) {
		fprintf(stderr, "catan play: bad --players \"%s\"\n", players);
		return 2;
	}
	if (!me)
		me = names.name[0];
	int mine = catan_names_find(&names, me, strlen(me));
	if (mine < 0) {
		fprintf(stderr, "catan play: --me \"%s\" is not a player\n", me);
		return 2;
	}
	if (nbot < 0 || nbot > names.n - 1)
		nbot = names.n - 1;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "catan play: cannot create %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	char path[CATAN_MAX_PLAYERS][1024];
	for (int p = 0; p < names.n; p++)
		snprintf(path[p], sizeof path[p], "%s/%s", dir, names.name[p]);
	/* The game is there already (make play with the same SEED, or a
	 * second play --new): resume it rather than fail. */
	struct stat sb;
	if (!stat(path[mine], &sb)) {
		printf("a game is already in %s: resuming it (another DIR "
		       "for a new one)\n",
		       dir);
		fflush(stdout);
		snprintf(mydir, mysize, "%s", path[mine]);
		o->dir = mydir;
		resume_local_bots(mydir);
		o->interval = o->interval > 0.2 ? 0.2 : o->interval;
		return 0;
	}
	/*
	 * A signed game (spec/replication.md, "Keys and signatures"): every
	 * seat is on this machine, so a key for each is made here, in
	 * DIR/keys/. The genesis is signed by the first seat: when you take
	 * another, the game is not signed.
	 */
	static char keyp[CATAN_MAX_PLAYERS][1200],
	    seat[CATAN_MAX_PLAYERS][1300];
	bool sign = mine == 0;
	for (int p = 0; sign && p < names.n; p++) {
		catan_key key;
		catan_sign_why why;
		char kdir[1100];
		snprintf(kdir, sizeof kdir, "%s/keys", dir);
		snprintf(keyp[p], sizeof keyp[p], "%.1100s/%.15s", kdir,
			 names.name[p]);
		snprintf(seat[p], sizeof seat[p], "%.15s=%.1200s.pub",
			 names.name[p], keyp[p]);
		errno = 0;
		if ((mkdir(kdir, 0700) && errno != EEXIST) ||
		    catan_key_generate(&key, &why) ||
		    catan_key_save(&key, keyp[p], NULL, &why)) {
			fprintf(stderr,
				"catan play: no keys (%s): the game is not "
				"signed\n",
				errno ? strerror(errno) : why.msg);
			sign = false;
		}
	}
	char *nargv[48] = {"catan",	    "new",  path[mine], "--players",
			   (char *)players, "--me", (char *)me};
	int k = 7;
	for (int i = 0; i < na && k < 30; i++)
		nargv[k++] = args[i];
	if (sign) {
		nargv[k++] = "--key";
		nargv[k++] = keyp[mine];
		for (int p = 0; p < names.n; p++)
			if (p != mine) {
				nargv[k++] = "--seat";
				nargv[k++] = seat[p];
			}
	}
	nargv[k] = NULL;
	if (run_self(nargv, NULL)) {
		fprintf(stderr, "catan play: could not create the game in %s\n",
			path[mine]);
		return 1;
	}
	/* Bots join from the player's repository, then everyone knows
	 * everyone: a full mesh of path remotes. */
	int bots[CATAN_MAX_PLAYERS], nb = 0;
	for (int p = 0; p < names.n && nb < nbot; p++)
		if (p != mine)
			bots[nb++] = p;
	for (int i = 0; i < nb; i++) {
		int p = bots[i];
		char *jargv[] = {"catan",
				 "join",
				 path[mine],
				 path[p],
				 "--as",
				 names.name[p],
				 sign ? "--key" : NULL,
				 keyp[p],
				 NULL};
		if (run_self(jargv, NULL)) {
			fprintf(stderr, "catan play: %s could not join\n",
				names.name[p]);
			return 1;
		}
	}
	int in[CATAN_MAX_PLAYERS + 1], nin = 0;
	in[nin++] = mine;
	for (int i = 0; i < nb; i++)
		in[nin++] = bots[i];
	for (int i = 0; i < nin; i++)
		for (int j = 0; j < nin; j++) {
			int p = in[i], q = in[j];
			/* A bot's remote "origin" is the player already. */
			if (p == q || (p != mine && q == mine))
				continue;
			char *rargv[] = {"catan", "-C", path[p], "remote", "add",
					 names.name[q], path[q], NULL};
			if (run_self(rargv, NULL)) {
				fprintf(stderr, "catan play: remote %s in %s failed\n",
					names.name[q], path[p]);
				return 1;
			}
		}
	for (int i = 0; i < nb; i++) {
		if (start_bot(path[bots[i]])) {
			fprintf(stderr, "catan play: cannot start bot %s\n",
				names.name[bots[i]]);
			stop_bots();
			return 1;
		}
	}
	printf("game in %s: you are %s in %s; %d bot peer%s (logs in "
	       "%s/*.log)\n",
	       dir, me, path[mine], nb, nb == 1 ? "" : "s", dir);
	fflush(stdout);
	snprintf(mydir, mysize, "%s", path[mine]);
	o->dir = mydir;
	o->interval = o->interval > 0.2 ? 0.2 : o->interval;
	return 0;
}

/* The kind of board a game was made with, for a new one like it: the
 * beginner board, else balanced (the kind make play uses) for the
 * standard 19 tiles, else NULL (catan new's default). */
static const char *board_kind(const catan_board *b)
{
	static catan_board beg;
	catan_board_beginner(&beg);
	if (b->ntiles == beg.ntiles &&
	    !memcmp(b->tile_terrain, beg.tile_terrain, (size_t)b->ntiles) &&
	    !memcmp(b->tile_token, beg.tile_token, (size_t)b->ntiles))
		return "beginner";
	return b->ntiles == beg.ntiles ? "balanced" : NULL;
}

/*
 * "New game" on the results panel: the same players in a new folder beside
 * the old one (DIR-2, DIR-3, ...): with bot peers again for a play --new
 * game, hot-seat otherwise. o->dir and mydir are set to the new game.
 */
static int next_game(catan_ui_options *o, bool bots, char *mydir, size_t n)
{
	catan_store *st = NULL;
	catan_err err;
	if (catan_store_open(&st, o->dir, &err)) {
		fprintf(stderr, "catan play: %s\n", err.msg);
		return 1;
	}
	catan_game g = *catan_store_game(st);
	int me = catan_store_me(st);
	catan_store_free(st);
	char players[CATAN_MAX_PLAYERS * CATAN_NAME_MAX + 8] = "";
	for (int p = 0; p < g.names.n; p++)
		snprintf(players + strlen(players),
			 sizeof players - strlen(players), "%s%s", p ? "," : "",
			 g.names.name[p]);
	/* The folder of the game: DIR/.. for a play --new game. */
	char base[1024];
	snprintf(base, sizeof base, "%s", o->dir);
	size_t len = strlen(base);
	while (len > 1 && base[len - 1] == '/')
		base[--len] = 0;
	if (bots) {
		char *slash = strrchr(base, '/');
		if (slash)
			*slash = 0;
	}
	char dir[1100];
	struct stat sb;
	for (int k = 2;; k++) {
		snprintf(dir, sizeof dir, "%s-%d", base, k);
		if (stat(dir, &sb))
			break;
	}
	printf("new game in %s\n", dir);
	fflush(stdout);
	/* The same kind of board, a new seed. */
	const char *kind = board_kind(&g.board);
	if (bots && me >= 0) {
		char args[512];
		snprintf(args, sizeof args,
			 "--players\n%s\n--me\n%s\n--seed\n%ld\n%s%s%s",
			 players, g.names.name[me], (long)time(NULL),
			 kind ? "--board\n" : "", kind ? kind : "",
			 kind ? "\n" : "");
		return new_local_game(dir, args, o, mydir, n);
	}
	char seed[32];
	snprintf(seed, sizeof seed, "%ld", (long)time(NULL));
	char *nargv[] = {"catan",      "new",	 dir,  "--players",
			 players,      "--seed", seed, kind ? "--board" : NULL,
			 (char *)kind, NULL};
	if (run_self(nargv, NULL)) {
		fprintf(stderr, "catan play: could not create %s\n", dir);
		return 1;
	}
	snprintf(mydir, n, "%s", dir);
	o->dir = mydir;
	return 0;
}

int cli_play(const char *dir, int argc, char **argv)
{
	catan_ui_options o;
	bool newgame = false;
	char new_args[1024];
	if (ui_args(&o, "play", dir, argc, argv, NULL, &newgame, new_args,
		    sizeof new_args))
		return 2;
	static char mydir[1100];
	catan_err derr;
	if (catan_ui_display_check(&derr)) {
		fprintf(stderr, "catan play: %s\n", derr.msg);
		return 1;
	}
	if (newgame) {
		int rc = new_local_game(o.dir, new_args, &o, mydir, sizeof mydir);
		if (rc)
			return rc;
	} else if (!o.bots) {
		resume_local_bots(o.dir);
		if (nbots)
			o.interval = o.interval > 0.2 ? 0.2 : o.interval;
	}
	long script_at = 0;
	o.script_at = &script_at;
	for (;;) {
		signal(SIGCHLD, reap_bots);
		catan_err err;
		int next = CATAN_UI_NEXT_NONE;
		o.next = &next;
		bool had_bots = nbots > 0;
		int rc = catan_ui_play(&o, &err);
		stop_bots();
		if (rc) {
			fprintf(stderr, "catan play: %s\n", err.msg);
			return 1;
		}
		if (next == CATAN_UI_NEXT_NONE)
			return 0;
		printf("window closed: %s\n",
		       next == CATAN_UI_NEXT_REPLAY ? "replay" : "new game");
		fflush(stdout);
		/* A script goes on in the next window where it was left. */
		if (next == CATAN_UI_NEXT_REPLAY) {
			catan_ui_options r = o;
			r.rev = NULL;
			r.from_start = true;
			if (catan_ui_replay(&r, &err)) {
				fprintf(stderr, "catan replay: %s\n", err.msg);
				return 1;
			}
			return 0;
		}
		rc = next_game(&o, had_bots, mydir, sizeof mydir);
		if (rc)
			return rc;
	}
}
