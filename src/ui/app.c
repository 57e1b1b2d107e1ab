/*
 * app.c - the window: play (hot-seat or peer), replay, and the headless
 * renderer behind `catan render`.
 *
 * Threads: the main thread draws and handles input; in play mode a worker
 * thread syncs with the remotes on an interval (and at once after an own
 * action), lets the window's bots act, and publishes a snapshot (state,
 * log lines, sync status). Every use of the repository opens it, works and
 * closes it again under one mutex, so the repository's writer lock is held
 * only while something is written and other catan commands (a bot peer on
 * the same machine, `catan show`) can use it in between.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "catan/bot.h"
#include "catan/ui.h"
#include "story.h"
#include "ui.h"

static int fail(catan_err *err, const char *fmt, const char *a)
{
	snprintf(err->msg, sizeof err->msg, fmt, a ? a : "");
	return -1;
}

/* ---- reading a game ---- */

typedef struct log_buf {
	int n;		 /* entries seen */
	int stop;	 /* stop after the entry with this id (replay/render) */
	const char *until;
	char line[UI_LOG_LINES][160];
	/* Replay: every commit id in order. */
	catan_commit_id *ids;
	char (*subjects)[160];
	int cap;
} log_buf;

static int collect(const catan_log_entry *e, void *ctx)
{
	log_buf *lb = ctx;
	if (lb->stop)
		return 0;
	if (e->dice[0]) /* a roll with its Dice trailer: "red: roll 3+4" */
		snprintf(lb->line[lb->n % UI_LOG_LINES], sizeof lb->line[0],
			 "%.15s: roll %d+%d", e->author, e->dice[0], e->dice[1]);
	else
		snprintf(lb->line[lb->n % UI_LOG_LINES], sizeof lb->line[0],
			 "%.15s: %.140s", e->author[0] ? e->author : "genesis",
			 e->subject);
	if (lb->ids && lb->n < lb->cap) {
		lb->ids[lb->n] = e->id;
		snprintf(lb->subjects[lb->n], sizeof lb->subjects[0], "%s", lb->line[lb->n % UI_LOG_LINES]);
	}
	lb->n++;
	if (lb->until && !strncmp(e->id.hex, lb->until, strlen(lb->until)))
		lb->stop = 1;
	return 0;
}

static int player_index(const catan_game *g, const char *name)
{
	if (!name)
		return CATAN_NONE;
	int p = catan_names_find(&g->names, name, strlen(name));
	return p < 0 ? -1 : p;
}

/* ---- the history as events (story.h) ---- */

/* Every log entry, in the log's order (topological, oldest first). */
typedef struct entry_list {
	catan_log_entry *e;
	int n, cap;
} entry_list;

static int collect_entry(const catan_log_entry *e, void *ctx)
{
	entry_list *l = ctx;
	if (l->n == l->cap) {
		int cap = l->cap ? l->cap * 2 : 1024;
		catan_log_entry *ne = realloc(l->e, (size_t)cap * sizeof *ne);
		if (!ne)
			return -1;
		l->e = ne;
		l->cap = cap;
	}
	l->e[l->n++] = *e;
	return 0;
}

/*
 * The event of log entry e after `prev` (NULL for the genesis). The action
 * is parsed from the subject and applied to prev, which gives the rules'
 * outcome (dice, stolen card, production) and the state as the game went
 * through it (two discards after a 7 sit on sibling commits: applying them
 * in turn shows both, where the second commit's own state holds only its
 * own). A discard merge, or a subject that does not apply, takes the
 * commit's stored state. -1 with err when that cannot be read.
 */
static int event_build(ui_event *ev, catan_store *st, const catan_game *g,
		       const catan_log_entry *e, const catan_state *prev,
		       catan_err *err)
{
	memset(ev, 0, sizeof *ev);
	snprintf(ev->id, sizeof ev->id, "%.11s", e->id.hex);
	ev->actor = player_index(g, e->author);
	if (ev->actor < 0)
		ev->actor = CATAN_NONE;
	/* The join of the discards after a 7 is no action (e->merge); a
	 * fair outcome's completion, a merge too, is the roll itself. */
	catan_parse_error pe;
	ev->merge = e->merge;
	bool parsed = !e->merge && prev && ev->actor != CATAN_NONE &&
		      catan_action_parse(&ev->action, &g->board, &g->names,
					 e->subject, &pe) == 0;
	if (parsed) {
		ev->has_action = true;
		if (catan_state_apply(&ev->after, &g->board, prev, ev->actor,
				      &ev->action, &ev->outcome) == CATAN_OK) {
			ev->has_outcome = true;
			return 0;
		}
	}
	return catan_store_state_at(&ev->after, NULL, st, e->id.hex, err);
}

/*
 * The whole log told in plain words (render, replay): the events of
 * l->e[0 .. n-1] and their lines; end[i] is the number of lines through
 * event i. Private details as `viewer` sees them (`all`: every one).
 */
typedef struct told {
	char (*line)[UI_STORY_LINE];
	int nline, cap;
	int *end;
} told;

static void told_free(told *t)
{
	free(t->line);
	free(t->end);
	memset(t, 0, sizeof *t);
}

static int tell_all(told *t, catan_store *st, const catan_game *g,
		    const entry_list *l, int n, int viewer, bool all,
		    catan_err *err)
{
	memset(t, 0, sizeof *t);
	ui_event *ev = calloc(2, sizeof *ev);
	t->end = calloc((size_t)n + 1, sizeof *t->end);
	if (!ev || !t->end) {
		free(ev);
		return fail(err, "out of memory", NULL);
	}
	for (int i = 0; i < n; i++) {
		ui_event *cur = &ev[i % 2], *prev = &ev[(i + 1) % 2];
		if (event_build(cur, st, g, &l->e[i], i ? &prev->after : NULL,
				err)) {
			free(ev);
			return -1;
		}
		if (t->nline + UI_STORY_MAX > t->cap) {
			int cap = t->cap ? t->cap * 2 : 4096;
			void *nl =
			    realloc(t->line, (size_t)cap * UI_STORY_LINE);
			if (!nl) {
				free(ev);
				return fail(err, "out of memory", NULL);
			}
			t->line = nl;
			t->cap = cap;
		}
		t->nline += ui_story(t->line + t->nline, &g->board, &g->names,
				     i ? &prev->after : NULL, cur, viewer, all);
		t->end[i] = t->nline;
	}
	free(ev);
	return 0;
}

/* The told lines through event i that fit a frame. */
static void told_log(ui_frame *fr, const told *t, int i)
{
	int end = i >= 0 ? t->end[i] : 0;
	int k = end < UI_LOG_LINES ? end : UI_LOG_LINES;
	for (int j = 0; j < k; j++)
		fr->log[j] = t->line[end - k + j];
	fr->nlog = k;
	fr->log_more = end - k;
}

/* ---- headless render ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * A signed game stopped by an equivocation: the status line's sentence
 * into out (true); false and out empty otherwise.
 */
static bool stopped_text(char *out, size_t n, catan_store *st, int *seat,
			 int *by)
{
	int e;
	catan_commit_id at, kids[2];
	const catan_names *names = &catan_store_game(st)->names;
	out[0] = '\0';
	*seat = *by = -1;
	int k = catan_store_equivocation(st, seat, &at, kids);
	if (k >= 3) {
		*by = -2; /* (nobody moves on) */
		snprintf(out, n,
			 "game stopped: %s signed two different %s on %.10s; "
			 "nobody moves on",
			 names->name[*seat], k == 3 ? "expulsions" : "moves",
			 at.hex);
		return true;
	}
	if (k != 1)
		return false;
	if (catan_store_expel_due(st, &e, by) == 1)
		snprintf(out, n,
			 "game stopped: %s signed two different moves on "
			 "%.10s; %s expels %s and the game goes on",
			 names->name[*seat], at.hex, names->name[*by],
			 names->name[*seat]);
	else
		snprintf(out, n,
			 "game stopped: %s signed two different moves on "
			 "%.10s; the others' moves there first, then %s is "
			 "expelled",
			 names->name[*seat], at.hex, names->name[*seat]);
	return true;
}

int catan_ui_render(const catan_ui_options *o, catan_err *err)
{
	catan_store *st = NULL;
	SDL_Surface *surf = NULL;
	SDL_Renderer *r = NULL;
	ui_fonts fonts;
	memset(&fonts, 0, sizeof fonts);
	int rc = -1;
	static log_buf lb;
	memset(&lb, 0, sizeof lb);
	entry_list el = {0};
	told tl = {0};
	catan_state s;
	catan_commit_id id;
	char why[256];
	if (catan_store_open_ext(&st, o->dir, true, err))
		return -1;
	const catan_game *g = catan_store_game(st);
	if (catan_store_state_at(&s, &id, st, o->rev, err))
		goto done;
	lb.until = o->rev ? id.hex : NULL;
	/* (a revision may name commits past a stopped game's fork) */
	if (catan_store_log_ext(st, o->rev != NULL, collect, &lb, err))
		goto done;
	int viewer = o->as ? player_index(g, o->as) : catan_store_me(st);
	if (o->as && viewer < 0) {
		fail(err, "no player named \"%s\" in this game", o->as);
		goto done;
	}
	if (viewer < 0)
		viewer = CATAN_NONE;
	if (catan_store_log_ext(st, o->rev != NULL, collect_entry, &el, err) ||
	    tell_all(&tl, st, g, &el, lb.n < el.n ? lb.n : el.n, viewer,
		     o->reveal, err))
		goto done;
	int w = o->w > 0 ? o->w : 1280, h = o->h > 0 ? o->h : 800;
	surf = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGBA32);
	if (!surf || !(r = SDL_CreateSoftwareRenderer(surf))) {
		fail(err, "cannot create a software renderer: %s", SDL_GetError());
		goto done;
	}
	catan_view v;
	catan_view_init(&v, &g->board, CATAN_NONE, w, h);
	v.coords = o->coords;
	if (ui_fonts_open(&fonts, v.u, why, sizeof why)) {
		fail(err, "%s", why);
		goto done;
	}
	ui_frame fr;
	memset(&fr, 0, sizeof fr);
	char title[96], status[256];
	snprintf(title, sizeof title, "catan-git  %.7s", id.hex);
	/* (at the game's head: an earlier commit shows what it was) */
	int cheat, by;
	if (o->rev || !stopped_text(status, sizeof status, st, &cheat, &by))
		ui_status_text(status, sizeof status, g, &s, viewer);
	fr.g = g;
	fr.s = &s;
	fr.v = &v;
	fr.viewer = viewer;
	fr.reveal_all = o->reveal;
	fr.title = title;
	fr.status = status;
	fr.message = "";
	fr.hover_kind = CATAN_HIT_NONE;
	fr.roller = CATAN_NONE;
	fr.recent_tile = CATAN_NONE;
	told_log(&fr, &tl, (lb.n < el.n ? lb.n : el.n) - 1);
	int frames = o->frames > 0 ? o->frames : 1;
	double *ms = calloc((size_t)frames, sizeof *ms);
	for (int i = 0; i < frames && ms; i++) {
		Uint64 t0 = SDL_GetPerformanceCounter();
		ui_draw(r, &fonts, &fr);
		SDL_RenderPresent(r);
		ms[i] = (double)(SDL_GetPerformanceCounter() - t0) * 1000.0 /
			(double)SDL_GetPerformanceFrequency();
	}
	if (o->frames > 0 && ms) {
		qsort(ms, (size_t)frames, sizeof *ms, cmp_double);
		printf("frames %d  %dx%d  median %.2f ms  p95 %.2f ms  max %.2f ms "
		       "(software renderer, one core)\n",
		       frames, w, h, ms[frames / 2], ms[frames * 95 / 100],
		       ms[frames - 1]);
	}
	free(ms);
	if (o->out && ui_png_write(o->out, surf, why, sizeof why)) {
		fail(err, "%s", why);
		goto done;
	}
	rc = 0;
done:
	free(el.e);
	told_free(&tl);
	ui_draw_reset();
	ui_fonts_close(&fonts);
	if (r)
		SDL_DestroyRenderer(r);
	if (surf)
		SDL_FreeSurface(surf);
	catan_store_free(st);
	return rc;
}

/* ---- the window ---- */

typedef struct snapshot {
	catan_state s;
	char sync[200];
	/* A signed game stopped by an equivocation: what the status says. */
	char stopped[160];
	int stopped_seat, expel_by; /* the equivocator; who expels it, or -1 */
	/* Fair dice: when the outcome the game waits for was asked ("asked
	 * 14:03:07", local time), or empty. */
	char asked[40];
	unsigned seq;
} snapshot;

typedef struct app {
	const catan_ui_options *o;
	catan_game g;
	bool peer;	/* the repository has a player (catan.me) */
	int me;		/* that player, or -1 for hot-seat */
	unsigned bots;	/* players the window's bot plays */
	SDL_mutex *repo; /* serialises every use of the repository */
	SDL_mutex *mx;	 /* guards snap, wake, quit */
	SDL_cond *cv;
	snapshot snap;
	bool wake, quit;
	char message[256];
	catan_rng bot_rng;
	/* The game's commits as events, oldest first: written by whoever
	 * holds `repo`, entries copied out and nhist read under `mx`;
	 * hist_gen changes when the history was rewritten from some point
	 * (another order of sibling commits after a sync). */
	ui_event *hist;
	int nhist, hist_cap;
	unsigned hist_gen;
	/* git:// remotes served by catan serve wake the worker (watch.c):
	 * used by the waker thread only; all_watched under mx. */
	catan_watch *watch;
	bool all_watched;
	/* Syncs the worker made, and whether the last one adopted anything
	 * (under mx): the waker paces wake-ups that bring nothing. */
	unsigned syncs;
	bool adopted;
} app;

/* Brings a->hist up to the log in `l`. Called with a->repo held. */
static int history_update(app *a, catan_store *st, const entry_list *l,
			  catan_err *err)
{
	int i = 0;
	while (i < l->n && i < a->nhist &&
	       !strncmp(a->hist[i].id, l->e[i].id.hex, 11))
		i++;
	if (i < a->nhist) {
		SDL_LockMutex(a->mx);
		a->nhist = i;
		a->hist_gen++;
		SDL_UnlockMutex(a->mx);
	}
	for (; i < l->n; i++) {
		static ui_event ev; /* only under repo */
		if (event_build(&ev, st, &a->g, &l->e[i],
				i ? &a->hist[i - 1].after : NULL, err))
			return -1;
		SDL_LockMutex(a->mx);
		if (a->nhist == a->hist_cap) {
			int cap = a->hist_cap ? a->hist_cap * 2 : 1024;
			ui_event *nh =
			    realloc(a->hist, (size_t)cap * sizeof *nh);
			if (!nh) {
				SDL_UnlockMutex(a->mx);
				return fail(
				    err, "out of memory for the history", NULL);
			}
			a->hist = nh;
			a->hist_cap = cap;
		}
		a->hist[a->nhist++] = ev;
		SDL_UnlockMutex(a->mx);
	}
	return 0;
}

/* Reads state, log and (peer) syncs. Called with app->repo held. */
static int refresh(app *a, bool sync, catan_err *err)
{
	catan_store *st = NULL;
	if (catan_store_open(&st, a->o->dir, err))
		return -1;
	static snapshot tmp; /* only the worker or main thread, under repo */
	memset(&tmp, 0, sizeof tmp);
	if (sync) {
		catan_sync_report rep;
		catan_err serr;
		time_t now = time(NULL);
		char hm[16];
		strftime(hm, sizeof hm, "%H:%M:%S", localtime(&now));
		bool synced = catan_store_sync(st, NULL, 0, &rep, &serr) == 0;
		if (synced)
			snprintf(tmp.sync, sizeof tmp.sync,
				 "sync %s: %d peer%s reached, %d unreachable, %d adopted%s",
				 hm, rep.fetched, rep.fetched == 1 ? "" : "s",
				 rep.unreachable, rep.adopted,
				 rep.rejected ? ", REJECTED a peer (see catan sync)" : "");
		else
			snprintf(tmp.sync, sizeof tmp.sync, "sync %s failed: %.150s",
				 hm, serr.msg);
		SDL_LockMutex(a->mx);
		a->syncs++;
		a->adopted = synced && rep.adopted > 0;
		SDL_UnlockMutex(a->mx);
	}
	catan_commit_id head;
	int rc = catan_store_current(&tmp.s, &head, st, err);
	stopped_text(tmp.stopped, sizeof tmp.stopped, st, &tmp.stopped_seat,
		     &tmp.expel_by);
	long long t =
	    !rc && tmp.s.phase == CATAN_PHASE_REVEAL && tmp.s.reveal_wait
		? catan_store_commit_time(st, &head)
		: -1;
	if (t >= 0) {
		time_t tt = (time_t)t;
		struct tm tm;
		char hms[16];
		strftime(hms, sizeof hms, "%H:%M:%S", localtime_r(&tt, &tm));
		snprintf(tmp.asked, sizeof tmp.asked, "asked %s", hms);
	}
	entry_list l = {0};
	if (!rc)
		rc = catan_store_log(st, collect_entry, &l, err);
	if (!rc)
		rc = history_update(a, st, &l, err);
	free(l.e);
	catan_store_free(st);
	if (rc)
		return -1;
	SDL_LockMutex(a->mx);
	if (!sync)
		memcpy(tmp.sync, a->snap.sync, sizeof tmp.sync);
	tmp.seq = a->snap.seq + 1;
	a->snap = tmp;
	SDL_UnlockMutex(a->mx);
	return 0;
}

/* One action by player p, then a fresh snapshot. Called with repo held. */
static int act(app *a, int p, const catan_action *act_, catan_err *err)
{
	catan_store *st = NULL;
	if (catan_store_open(&st, a->o->dir, err))
		return -1;
	int rc = catan_store_act(st, p, act_, NULL, NULL, err);
	catan_store_free(st);
	if (rc)
		return -1;
	return refresh(a, false, err);
}

static int worker(void *ctx)
{
	app *a = ctx;
	double interval = a->o->interval > 0 ? a->o->interval : 0.5;
	for (;;) {
		SDL_LockMutex(a->mx);
		/* Every remote watched: a sync when woken, else every 30 s. */
		double iv = a->all_watched ? 30 : interval;
		if (!a->wake && !a->quit)
			SDL_CondWaitTimeout(a->cv, a->mx, (Uint32)(iv * 1000));
		bool quit = a->quit;
		a->wake = false;
		catan_state s = a->snap.s;
		bool stopped = a->snap.stopped[0] != '\0';
		int cheat = a->snap.stopped_seat, expel_by = a->snap.expel_by;
		SDL_UnlockMutex(a->mx);
		if (quit)
			break;
		catan_err err;
		SDL_LockMutex(a->repo);
		/* The window's bots: one action per round, so people can follow. */
		int who = catan_state_next_actor(&s);
		if (s.phase == CATAN_PHASE_DISCARD)
			for (int p = 0; p < s.opt.nplayers; p++)
				if (s.discard[p] && (a->bots >> p & 1u) &&
				    !(stopped && p == cheat)) {
					who = p;
					break;
				}
		/*
		 * Fair dice: revealing a secret, and completing one's own
		 * request once every secret is in, ask nothing of a person:
		 * the window does both for the seat it plays.
		 */
		bool duty = false;
		if (s.phase == CATAN_PHASE_REVEAL && a->me >= 0 &&
		    a->me < s.opt.nplayers && catan_state_may_act(&s, a->me)) {
			who = a->me;
			duty = true;
		}
		/*
		 * A game stopped by an equivocation: the others' discards or
		 * reveals there go on; then the seat that acts next expels
		 * the equivocator (the window does it for its own seat and
		 * its bots, as it reveals), and the game goes on.
		 */
		if (stopped && expel_by >= 0 &&
		    (expel_by == a->me || (a->bots >> expel_by & 1u))) {
			catan_action ex;
			catan_action_init(&ex, CATAN_ACT_EXPEL);
			ex.player = (uint8_t)cheat;
			if (act(a, expel_by, &ex, &err)) {
				SDL_LockMutex(a->mx);
				snprintf(a->message, sizeof a->message,
					 "expel: %.200s", err.msg);
				SDL_UnlockMutex(a->mx);
			}
		} else if (who < s.opt.nplayers &&
			   (duty || (a->bots >> who & 1u)) &&
			   s.phase != CATAN_PHASE_OVER &&
			   (!stopped || (expel_by == -1 && who != cheat))) {
			catan_action ba;
			if (catan_bot_choose(&ba, CATAN_BOT_GREEDY, &a->g.board, &s,
					     who, &a->bot_rng,
					     CATAN_LEGAL_NO_OFFERS) == 0 &&
			    act(a, who, &ba, &err)) {
				SDL_LockMutex(a->mx);
				snprintf(a->message, sizeof a->message, "bot %s: %.200s",
					 a->g.names.name[who], err.msg);
				SDL_UnlockMutex(a->mx);
			}
		}
		if (refresh(a, a->peer, &err)) {
			SDL_LockMutex(a->mx);
			snprintf(a->message, sizeof a->message, "%.250s", err.msg);
			SDL_UnlockMutex(a->mx);
		}
		SDL_UnlockMutex(a->repo);
	}
	return 0;
}

/*
 * The waker: waits on the watched git:// remotes and wakes the worker when
 * one moves; while every remote is watched the worker does not poll.
 */
/*
 * Waits until the worker made a sync after the one numbered `since`, at
 * most ms (0: none after), or the window closes; true when it closes.
 */
static bool waker_pause(app *a, unsigned since, double ms)
{
	for (double waited = 0;; waited += 20) {
		SDL_LockMutex(a->mx);
		bool quit = a->quit, done = a->syncs != since;
		SDL_UnlockMutex(a->mx);
		if (quit)
			return true;
		if (ms > 0 ? waited >= ms : done)
			return false;
		SDL_Delay(20);
	}
}

static int waker(void *ctx)
{
	app *a = ctx;
	double interval = a->o->interval > 0 ? a->o->interval : 0.5;
	int fruitless = 0; /* wake-ups in a row whose sync adopted nothing */
	for (;;) {
		SDL_LockMutex(a->mx);
		bool quit = a->quit;
		SDL_UnlockMutex(a->mx);
		if (quit)
			break;
		/* Short waits: the window closes without waiting long. */
		int r = catan_watch_wait(a->watch, 200);
		bool all = catan_watch_all(a->watch);
		SDL_LockMutex(a->mx);
		a->all_watched = all;
		unsigned syncs = a->syncs;
		if (r == 1) {
			a->wake = true;
			SDL_CondSignal(a->cv);
		}
		SDL_UnlockMutex(a->mx);
		if (r != 1)
			continue;
		/*
		 * The next request waits for the sync this wake-up asked for,
		 * and wake-ups that adopted nothing are paced as polling
		 * would be, up to 5 s (catan_watch_pause; catan peer too).
		 */
		if (waker_pause(a, syncs, 0))
			break;
		SDL_LockMutex(a->mx);
		fruitless = a->adopted ? 0 : fruitless + 1;
		SDL_UnlockMutex(a->mx);
		double d = catan_watch_pause(fruitless, interval, 5);
		if (d > 0 && waker_pause(a, syncs, d * 1000))
			break;
	}
	return 0;
}

static void poke(app *a)
{
	SDL_LockMutex(a->mx);
	a->wake = true;
	SDL_CondSignal(a->cv);
	SDL_UnlockMutex(a->mx);
}

/* ---- scripted input (tests, demos) ---- */

/* `anim F` holds pieces being placed at F (0..1) of their animation, so
 * that a screenshot shows them mid-way; below 0: they move with time. */
static float script_anim = -1;

typedef struct script {
	FILE *f;
	Uint32 wait_until;
	bool waiting_turn;
	Uint32 turn_deadline;
	int line;
} script;

/* Pushes a synthetic click at (x, y): the same path as a real mouse. */
static void push_click(int x, int y)
{
	SDL_Event e;
	memset(&e, 0, sizeof e);
	e.type = SDL_MOUSEMOTION;
	e.motion.x = x;
	e.motion.y = y;
	SDL_PushEvent(&e);
	memset(&e, 0, sizeof e);
	e.type = SDL_MOUSEBUTTONDOWN;
	e.button.button = SDL_BUTTON_LEFT;
	e.button.state = SDL_PRESSED;
	e.button.x = x;
	e.button.y = y;
	e.button.clicks = 1;
	SDL_PushEvent(&e);
}

static void push_key(SDL_Keycode k)
{
	SDL_Event e;
	memset(&e, 0, sizeof e);
	e.type = SDL_KEYDOWN;
	e.key.state = SDL_PRESSED;
	e.key.keysym.sym = k;
	SDL_PushEvent(&e);
}

/*
 * Runs the next script command if it is time. Returns 1 to quit, -1 on a
 * bad script line (message in why), 0 otherwise.
 */
typedef void (*script_dump_fn)(FILE *f, void *ctx);

static int script_step(script *sc, const catan_view *v, const catan_game *g,
		       const catan_state *s, SDL_Renderer *r, char *why,
		       size_t n, script_dump_fn dump, void *dctx)
{
	if (!sc->f)
		return 0;
	Uint32 now = SDL_GetTicks();
	if (now < sc->wait_until)
		return 0;
	if (sc->waiting_turn) {
		if (v->actor < s->opt.nplayers && catan_state_may_act(s, v->actor))
			sc->waiting_turn = false;
		else if (now > sc->turn_deadline) {
			snprintf(why, n, "script line %d: timed out waiting for a turn",
				 sc->line);
			return -1;
		} else
			return 0;
	}
	char line[256];
	if (!fgets(line, sizeof line, sc->f))
		return 1;
	sc->line++;
	line[strcspn(line, "\r\n")] = 0;
	char cmd[32] = "", arg[200] = "";
	if (sscanf(line, "%31s %199[^\n]", cmd, arg) < 1 || cmd[0] == '#')
		return 0;
	/* Every step waits a frame or two so the window redraws between. */
	sc->wait_until = now + 60;
	catan_action a;
	catan_parse_error pe;
	char text[240];
	if (!strcmp(cmd, "click")) {
		int x, y;
		if (sscanf(arg, "%d %d", &x, &y) != 2)
			goto bad;
		push_click(x, y);
	} else if (!strcmp(cmd, "click-vertex") || !strcmp(cmd, "click-edge") ||
		   !strcmp(cmd, "click-tile")) {
		/* Spots by name: parse them through the action language. */
		snprintf(text, sizeof text, "%s %s",
			 cmd[6] == 'v' ? "build settlement" : cmd[6] == 'e' ? "build road" : "robber",
			 arg);
		if (catan_action_parse(&a, &g->board, &g->names, text, &pe))
			goto bad;
		float x, y;
		if (cmd[6] == 'v')
			catan_view_vertex_xy(v, &g->board, a.vertex, &x, &y);
		else if (cmd[6] == 'e')
			catan_view_edge_xy(v, &g->board, a.edge, &x, &y);
		else
			catan_view_hex_xy(v, g->board.tile_hex[a.tile].q,
					  g->board.tile_hex[a.tile].r, &x, &y);
		push_click((int)lroundf(x), (int)lroundf(y));
	} else if (!strcmp(cmd, "click-button")) {
		int b = 0;
		while (b < CATAN_BTN_COUNT && strcmp(catan_button_label(b), arg))
			b++;
		if (b == CATAN_BTN_COUNT)
			goto bad;
		push_click(v->button[b].x + v->button[b].w / 2,
			   v->button[b].y + v->button[b].h / 2);
	} else if (!strcmp(cmd, "click-control")) {
		/* give+ RES, give- RES, get+ RES, get- RES, player NAME, ok, cancel */
		char what[16] = "", name[64] = "";
		sscanf(arg, "%15s %63s", what, name);
		int c = -1, res = 0;
		while (res < CATAN_RES_COUNT && strcmp(catan_res_name(res), name))
			res++;
		if (!strcmp(what, "ok"))
			c = CATAN_DLG_OK;
		else if (!strcmp(what, "cancel"))
			c = CATAN_DLG_CANCEL;
		else if (!strcmp(what, "player")) {
			int p = catan_names_find(&g->names, name, strlen(name));
			c = p < 0 ? -1 : CATAN_DLG_PLAYER + p;
		} else if (res < CATAN_RES_COUNT) {
			if (!strcmp(what, "give+"))
				c = CATAN_DLG_GIVE_PLUS + res;
			else if (!strcmp(what, "give-"))
				c = CATAN_DLG_GIVE_MINUS + res;
			else if (!strcmp(what, "get+"))
				c = CATAN_DLG_GET_PLUS + res;
			else if (!strcmp(what, "get-"))
				c = CATAN_DLG_GET_MINUS + res;
		}
		if (c < 0)
			goto bad;
		push_click(v->control[c].x + v->control[c].w / 2,
			   v->control[c].y + v->control[c].h / 2);
	} else if (!strcmp(cmd, "click-result")) {
		/* The results panel's buttons: replay, new */
		ui_results tmp;
		ui_results_layout(&tmp, v);
		const catan_rect *q = !strcmp(arg, "replay") ? &tmp.replay
				      : !strcmp(arg, "new")  ? &tmp.newgame
							     : NULL;
		if (!q)
			goto bad;
		push_click(q->x + q->w / 2, q->y + q->h / 2);
	} else if (!strcmp(cmd, "click-ringed")) {
		/* The first ringed spot (a corner, else a side, else a tile):
		 * what a newcomer clicks. Nothing ringed: nothing clicked. */
		catan_vset vs;
		catan_eset es;
		static bool ts[CATAN_MAX_TILES];
		catan_view_targets(v, &g->board, s, &vs, &es, ts);
		float x = -1, y = -1;
		for (int i = 0; i < g->board.nvertices && x < 0; i++)
			if (catan_vset_has(&vs, i))
				catan_view_vertex_xy(v, &g->board, i, &x, &y);
		for (int e = 0; e < g->board.nedges && x < 0; e++)
			if (es.w[e / 64] >> (e % 64) & 1u)
				catan_view_edge_xy(v, &g->board, e, &x, &y);
		for (int t = 0; t < g->board.ntiles && x < 0; t++)
			if (ts[t])
				catan_view_hex_xy(v, g->board.tile_hex[t].q,
						  g->board.tile_hex[t].r, &x,
						  &y);
		if (x >= 0)
			push_click((int)lroundf(x), (int)lroundf(y));
	} else if (!strcmp(cmd, "wheel")) {
		/* The mouse wheel over the panel: N clicks up (back). */
		int k;
		if (sscanf(arg, "%d", &k) != 1)
			goto bad;
		SDL_Event e;
		memset(&e, 0, sizeof e);
		e.type = SDL_MOUSEWHEEL;
		e.wheel.y = k;
		SDL_PushEvent(&e);
	} else if (!strcmp(cmd, "key")) {
		push_key(!strcmp(arg, "esc") ? SDLK_ESCAPE
			 : !strcmp(arg, "enter") ? SDLK_RETURN
						 : (SDL_Keycode)arg[0]);
	} else if (!strcmp(cmd, "anim")) {
		/* anim F: hold the animation at F; anim off: let it run */
		float t;
		if (!strcmp(arg, "off"))
			script_anim = -1;
		else if (sscanf(arg, "%f", &t) == 1 && t >= 0 && t <= 1)
			script_anim = t;
		else
			goto bad;
	} else if (!strcmp(cmd, "wait")) {
		sc->wait_until = now + (Uint32)atoi(arg);
	} else if (!strcmp(cmd, "wait-turn")) {
		sc->waiting_turn = true;
		sc->turn_deadline = now + 60000;
	} else if (!strcmp(cmd, "resize")) {
		/* handled by the caller through SDL_SetWindowSize */
		int w, h;
		if (sscanf(arg, "%d %d", &w, &h) != 2)
			goto bad;
		SDL_Window *win = SDL_RenderGetWindow(r);
		if (win)
			SDL_SetWindowSize(win, w, h);
	} else if (!strcmp(cmd, "screenshot")) {
		int w, h;
		SDL_GetRendererOutputSize(r, &w, &h);
		SDL_Surface *surf = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_RGBA32);
		if (!surf || SDL_RenderReadPixels(r, NULL, SDL_PIXELFORMAT_RGBA32,
						  surf->pixels, surf->pitch) ||
		    ui_png_write(arg, surf, why, n)) {
			if (surf)
				SDL_FreeSurface(surf);
			if (!*why)
				snprintf(why, n, "screenshot: %s", SDL_GetError());
			return -1;
		}
		SDL_FreeSurface(surf);
	} else if (!strcmp(cmd, "state")) {
		/* The window's own state, for tests: key value lines. */
		FILE *f = fopen(arg, "w");
		if (!f) {
			snprintf(why, n, "script line %d: cannot write %.100s",
				 sc->line, arg);
			return -1;
		}
		SDL_Window *win = SDL_RenderGetWindow(r);
		int rw, rh;
		SDL_GetRendererOutputSize(r, &rw, &rh);
		fprintf(f, "output %d %d\nscale %.3f\n", rw, rh, v->u);
		if (win) {
			int wx, wy, ww, wh, top = 0, left = 0, bottom = 0,
					    right = 0;
			SDL_Rect ub;
			SDL_GetWindowPosition(win, &wx, &wy);
			SDL_GetWindowSize(win, &ww, &wh);
			SDL_GetWindowBordersSize(win, &top, &left, &bottom,
						 &right);
			int d = SDL_GetWindowDisplayIndex(win);
			if (SDL_GetDisplayUsableBounds(d < 0 ? 0 : d, &ub))
				ub = (SDL_Rect){0, 0, 0, 0};
			fprintf(f,
				"window %d %d %d %d\nborders %d %d %d %d\n"
				"usable %d %d %d %d\n",
				wx, wy, ww, wh, top, left, bottom, right, ub.x,
				ub.y, ub.w, ub.h);
		}
		fprintf(f,
			"texts %d\nclipped %d\nfirst_clipped %s\n"
			"min_text_px %d\n",
			ui_text_stats.texts, ui_text_stats.clipped,
			ui_text_stats.clipped ? ui_text_stats.first : "-",
			ui_text_stats.min_px);
		fprintf(f, "actor %d\ndialog %d\nphase %d\nturn %d\n", v->actor,
			v->dialog, s->phase, s->turn);
		if (v->dialog != CATAN_DLG_NONE)
			fprintf(f, "dialog_line %s\n",
				ui_text_stats.dialog_line);
		if (dump)
			dump(f, dctx);
		fclose(f);
	} else if (!strcmp(cmd, "quit")) {
		return 1;
	} else {
		goto bad;
	}
	return 0;
bad:
	snprintf(why, n, "script line %d: cannot do \"%.150s\"", sc->line, line);
	return -1;
}

/* A script that goes on from an earlier window: start where it left. */
static void script_resume(script *sc, const catan_ui_options *o)
{
	if (sc->f && o->script_at && *o->script_at > 0)
		fseek(sc->f, *o->script_at, SEEK_SET);
}

/* Closes the script, telling the caller where it was left. */
static void script_leave(script *sc, const catan_ui_options *o)
{
	if (!sc->f)
		return;
	if (o->script_at)
		*o->script_at = ftell(sc->f);
	fclose(sc->f);
	sc->f = NULL;
}

/* ---- the event loop shared by play and replay ---- */

typedef struct window {
	const catan_ui_options *o;
	SDL_Window *win;
	SDL_Renderer *r;
	ui_fonts fonts;
	catan_view v;
} window;

/*
 * Is there a display to open a window on? Without DISPLAY and
 * WAYLAND_DISPLAY (and no SDL_VIDEODRIVER chosen by hand) SDL falls back
 * to drivers that show nothing, and the window would run unseen until
 * killed: say so at once instead. -1 with the sentence in err.
 */
int catan_ui_display_check(catan_err *err)
{
	const char *drv = getenv("SDL_VIDEODRIVER");
	if (drv && *drv)
		return 0;
	const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
	if ((x && *x) || (wl && *wl))
		return 0;
	return fail(err,
		    "no display: neither DISPLAY nor WAYLAND_DISPLAY is set "
		    "(run it on a desktop, under xvfb-run, or with "
		    "SDL_VIDEODRIVER=offscreen; `catan render` draws a PNG "
		    "without one)%s",
		    NULL);
}

/* Where the last window size is kept: $XDG_CONFIG_HOME/catan-git/window
 * (else ~/.config/...). 0, or -1 when neither variable is set. */
static int size_path(char *out, size_t n, bool mkdirs)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char dir[900];
	if (x && *x)
		snprintf(dir, sizeof dir, "%s/catan-git", x);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.config/catan-git", home);
	else
		return -1;
	if (mkdirs) {
		char parent[900];
		snprintf(parent, sizeof parent, "%s", dir);
		char *slash = strrchr(parent, '/');
		if (slash) {
			*slash = 0;
			mkdir(parent, 0755);
		}
		mkdir(dir, 0755);
	}
	snprintf(out, n, "%s/window", dir);
	return 0;
}

/*
 * The first window size: --size when given; else the size remembered from
 * the last window, or 1280x800 scaled by the display's DPI (96 = 1); then
 * shrunk, keeping its shape, to fit the display's usable area (without
 * the task bar) less room for the window frame. Position: centred in
 * that area.
 */
static void first_geometry(const catan_ui_options *o, int *x, int *y, int *w,
			   int *h)
{
	*x = *y = SDL_WINDOWPOS_CENTERED;
	if (o->w > 0 && o->h > 0) {
		*w = o->w;
		*h = o->h;
		return;
	}
	/* The display's scale: $CATAN_SCALE when set; its DPI over 96 when
	 * the display says (SDL cannot on many X servers), else the
	 * desktop's GDK_SCALE or
	 * QT_SCALE_FACTOR, else a screen of twice 1920x1080 or more is
	 * taken for a high-DPI one. */
	float dpi = 0, scale = 1;
	SDL_Rect ub;
	bool have_ub =
	    !SDL_GetDisplayUsableBounds(0, &ub) && ub.w >= 200 && ub.h >= 150;
	const char *gs = getenv("GDK_SCALE"), *qs = getenv("QT_SCALE_FACTOR");
	const char *cs = getenv("CATAN_SCALE"); /* the user's word first */
	if (cs && atof(cs) >= 0.5)
		scale = (float)atof(cs);
	else if (!SDL_GetDisplayDPI(0, &dpi, NULL, NULL) && dpi > 0)
		scale = dpi > 110 ? dpi / 96.0f : 1;
	else if (gs && atof(gs) >= 1)
		scale = (float)atof(gs);
	else if (qs && atof(qs) >= 1)
		scale = (float)atof(qs);
	else if (have_ub && ub.w >= 3600 && ub.h >= 2000)
		scale = (ub.w / 1920.0f < ub.h / 1080.0f ? ub.w / 1920.0f
							 : ub.h / 1080.0f);
	scale = scale > 3 ? 3 : scale;
	*w = (int)(1280 * scale);
	*h = (int)(800 * scale);
	char path[1000];
	FILE *f = size_path(path, sizeof path, false) ? NULL : fopen(path, "r");
	if (f) {
		int rw, rh;
		if (fscanf(f, "%d %d", &rw, &rh) == 2 && rw >= 320 &&
		    rh >= 200 && rw <= 16384 && rh <= 16384) {
			*w = rw;
			*h = rh;
		}
		fclose(f);
	}
	if (!have_ub)
		return;
	/* Room for a title bar and borders the window manager may add. */
	int mw = ub.w - 16, mh = ub.h - 48;
	if (mw < 200)
		mw = ub.w;
	if (mh < 150)
		mh = ub.h;
	if (*w > mw || *h > mh) {
		float k = (float)mw / *w < (float)mh / *h ? (float)mw / *w
							  : (float)mh / *h;
		*w = (int)(*w * k);
		*h = (int)(*h * k);
	}
	*x = ub.x + (ub.w - *w) / 2;
	*y = ub.y + (ub.h - *h) / 2;
	if (*y < ub.y + 32 && ub.h - *h >= 32)
		*y = ub.y + 32;
}

/* Keeps the window's size for the next window (not a --size one). */
static void remember_size(const catan_ui_options *o, SDL_Window *win)
{
	char path[1000];
	if (!win || (o->w > 0 && o->h > 0) ||
	    size_path(path, sizeof path, true))
		return;
	int w, h;
	SDL_GetWindowSize(win, &w, &h);
	if (SDL_GetWindowFlags(win) &
	    (SDL_WINDOW_MAXIMIZED | SDL_WINDOW_FULLSCREEN))
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d %d\n", w, h);
		fclose(f);
	}
}

static int window_open(window *w, const catan_game *g, int actor,
		       const catan_ui_options *o, const char *title,
		       catan_err *err)
{
	char why[256];
	memset(w, 0, sizeof *w);
	w->o = o;
	if (catan_ui_display_check(err))
		return -1;
	if (SDL_Init(SDL_INIT_VIDEO | SDL_INIT_TIMER))
		return fail(err, "cannot start SDL video (is there a display? "
				 "try SDL_VIDEODRIVER=offscreen or xvfb-run): %s",
			    SDL_GetError());
	/* A display that cannot be reached makes SDL fall back to a driver
	 * that shows nothing: refuse that unless it was asked for. */
	const char *drv = SDL_GetCurrentVideoDriver(),
		   *want = getenv("SDL_VIDEODRIVER");
	if (drv && !(want && *want) &&
	    (!strcmp(drv, "offscreen") || !strcmp(drv, "dummy") ||
	     !strcmp(drv, "evdev") || !strcmp(drv, "KMSDRM"))) {
		const char *x = getenv("DISPLAY");
		snprintf(
		    err->msg, sizeof err->msg,
		    "cannot reach the display%s%s (SDL fell back to its "
		    "\"%s\" driver, which shows nothing); check that the X "
		    "server runs, or use xvfb-run",
		    x && *x ? " DISPLAY=" : "", x && *x ? x : "", drv);
		SDL_Quit();
		return -1;
	}
	int wx, wy, ww, wh;
	first_geometry(o, &wx, &wy, &ww, &wh);
	w->win =
	    SDL_CreateWindow(title, wx, wy, ww, wh,
			     SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
	if (!w->win)
		return fail(err, "cannot open a window: %s", SDL_GetError());
	w->r = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_ACCELERATED);
	if (!w->r)
		w->r = SDL_CreateRenderer(w->win, -1, SDL_RENDERER_SOFTWARE);
	if (!w->r)
		return fail(err, "cannot create a renderer: %s", SDL_GetError());
	int rw, rh;
	SDL_GetRendererOutputSize(w->r, &rw, &rh);
	catan_view_init(&w->v, &g->board, actor, rw, rh);
	w->v.coords = o->coords;
	if (ui_fonts_open(&w->fonts, w->v.u, why, sizeof why))
		return fail(err, "%s", why);
	return 0;
}

static void window_close(window *w)
{
	if (w->o && w->win)
		remember_size(w->o, w->win);
	ui_draw_reset();
	ui_fonts_close(&w->fonts);
	if (w->r)
		SDL_DestroyRenderer(w->r);
	if (w->win)
		SDL_DestroyWindow(w->win);
	TTF_Quit();
	SDL_Quit();
}

/* Mouse coordinates in renderer pixels (differs on high-DPI screens). */
static void to_pixels(window *w, int *x, int *y)
{
	int ww, wh, rw, rh;
	SDL_GetWindowSize(w->win, &ww, &wh);
	SDL_GetRendererOutputSize(w->r, &rw, &rh);
	if (ww > 0 && wh > 0) {
		*x = *x * rw / ww;
		*y = *y * rh / wh;
	}
}

static void relayout(window *w, const catan_game *g)
{
	int rw, rh;
	SDL_GetRendererOutputSize(w->r, &rw, &rh);
	catan_view_layout(&w->v, &g->board, rw, rh);
	char why[256];
	/* New fonts may reuse the old ones' addresses: forget cached text. */
	if (w->fonts.u != w->v.u)
		ui_draw_reset();
	ui_fonts_open(&w->fonts, w->v.u, why, sizeof why);
}

static int sdl_key(SDL_Keycode k)
{
	if (k == SDLK_ESCAPE)
		return 27;
	if (k == SDLK_RETURN || k == SDLK_KP_ENTER)
		return '\r';
	if (k >= 'a' && k <= 'z')
		return (int)k;
	return 0;
}

/* Frame time statistics, printed at exit when CATAN_UI_STATS is set. */
typedef struct frame_stats {
	double ms[4096];
	int n;
} frame_stats;

static void stats_add(frame_stats *fs, double ms)
{
	fs->ms[fs->n % 4096] = ms;
	fs->n++;
}

static void stats_print(frame_stats *fs)
{
	if (!getenv("CATAN_UI_STATS") || !fs->n)
		return;
	int n = fs->n < 4096 ? fs->n : 4096;
	qsort(fs->ms, (size_t)n, sizeof fs->ms[0], cmp_double);
	fprintf(stderr, "frames %d: draw median %.2f ms, p95 %.2f ms, max %.2f ms\n",
		fs->n, fs->ms[n / 2], fs->ms[n * 95 / 100], fs->ms[n - 1]);
}

/* ---- following the game: the paced log ---- */

#define FOLLOW_LINES 4096 /* lines kept for scrolling back */

/*
 * What the window has shown of the history: events are shown one at a
 * time, `pace` seconds apart for the others' moves (the viewer's own show
 * at once), each told in the log in plain words and its changes marked on
 * the board until the viewer moves again. The first history is shown at
 * once (no replay of old moves at start).
 */
typedef struct follow {
	int shown;	  /* events shown */
	unsigned gen;	  /* app.hist_gen they came from */
	bool caught_up;	  /* the first history has been shown */
	Uint32 next_at;	  /* earliest time for the next paced event */
	catan_state disp; /* the state after the last shown event */
	int roller;
	char lines[FOLLOW_LINES][UI_STORY_LINE];
	int nlines; /* ever written; the ring keeps the last FOLLOW_LINES */
	int scroll; /* lines scrolled back */
	catan_vset rv;
	catan_eset re;
	int rtile, rtile_by;
	Uint32 marked_at; /* when the newest mark appeared (it draws in) */
	catan_vset nv;	  /* the newest event's marks */
	catan_eset ne;
	bool nt;
	/* The pieces of the newest event (anyone's), placed in an animation
	 * of anim_ms from anim_at: a short drop and fade-in. */
	catan_vset av;
	catan_eset ae;
	bool arob;
	Uint32 anim_at;
	int anim_ms;	 /* 0: pieces appear at once (--pace 0) */
	int anim_frames; /* frames drawn with a piece mid-way */
	bool anim_done;	 /* the last frame showed them in place */
	bool behind;	/* events not shown yet: disp is the state shown */
	ui_results res; /* statistics of the events shown */
	int last_actor; /* the last event shown: who, what kind */
	int last_kind;
	unsigned last_seq; /* events shown so far, ever */
} follow;

/* Counts event e (after `before`, NULL for the genesis) into res. */
static void results_add(ui_results *res, const catan_state *before,
			const ui_event *e)
{
	if (!before || !e->has_action || e->merge)
		return;
	const catan_state *after = &e->after;
	int n = after->opt.nplayers;
	switch (e->action.kind) {
	case CATAN_ACT_ROLL: {
		int d = after->dice[0] + after->dice[1];
		if (d >= 2 && d <= 12) {
			res->dice[d]++;
			res->rolls++;
		}
	}
		__attribute__((fallthrough)); /* production */
	case CATAN_ACT_SETUP:
	case CATAN_ACT_PLAY_YEAR_OF_PLENTY:
		for (int p = 0; p < n; p++)
			for (int r = 0; r < CATAN_RES_COUNT; r++) {
				int k = after->players[p].hand[r] -
					before->players[p].hand[r];
				if (k > 0)
					res->received[p] += k;
			}
		break;
	case CATAN_ACT_ROBBER:
	case CATAN_ACT_PLAY_KNIGHT: {
		int v = e->action.player;
		if (v < n && e->actor >= 0 && e->actor < n &&
		    after->players[v].ncards < before->players[v].ncards) {
			res->stole[e->actor]++;
			res->lost[v]++;
		}
		break;
	}
	default:
		break;
	}
}

static void follow_reset(follow *fl)
{
	fl->shown = 0;
	fl->caught_up = false;
	fl->nlines = 0;
	fl->scroll = 0;
	fl->roller = CATAN_NONE;
	memset(&fl->rv, 0, sizeof fl->rv);
	memset(&fl->re, 0, sizeof fl->re);
	fl->rtile = fl->rtile_by = CATAN_NONE;
	memset(&fl->res, 0, sizeof fl->res);
}

static void follow_mark(follow *fl, const catan_board *b, const catan_state *x,
			const catan_state *y, int by)
{
	memset(&fl->nv, 0, sizeof fl->nv);
	for (int v = 0; v < b->nvertices; v++)
		if (x->building[v] != y->building[v]) {
			catan_vset_add(&fl->rv, v);
			catan_vset_add(&fl->nv, v);
		}
	for (int k = 0; k < CATAN_EWORDS; k++) {
		fl->ne.w[k] = x->roads.w[k] ^ y->roads.w[k];
		fl->re.w[k] |= fl->ne.w[k];
	}
	fl->nt = x->robber != y->robber;
	if (x->robber != y->robber) {
		fl->rtile = y->robber;
		fl->rtile_by = by;
	}
}

/*
 * The pieces event x -> y placed (or moved: the robber) animate: for half
 * the pace, at most 300 ms; with no pace they appear at once.
 */
static void follow_anim(follow *fl, const catan_board *b, const catan_state *x,
			const catan_state *y, Uint32 now, double pace)
{
	memset(&fl->av, 0, sizeof fl->av);
	for (int v = 0; v < b->nvertices; v++)
		if (y->building[v] && x->building[v] != y->building[v])
			catan_vset_add(&fl->av, v);
	for (int k = 0; k < CATAN_EWORDS; k++)
		fl->ae.w[k] = ~x->roads.w[k] & y->roads.w[k];
	fl->arob = x->robber != y->robber;
	double ms = pace * 500;
	fl->anim_ms = (int)(ms > 300 ? 300 : ms);
	fl->anim_at = now;
	fl->anim_done = false;
}

/*
 * Shows what is due of a->hist. Returns true when something new was shown.
 * `viewer` is whose private details the log may tell.
 */
static bool follow_step(follow *fl, app *a, int viewer, unsigned instant,
			double pace)
{
	bool changed = false;
	SDL_LockMutex(a->mx);
	if (a->hist_gen != fl->gen) {
		fl->gen = a->hist_gen;
		follow_reset(fl);
		changed = true;
	}
	while (fl->shown < a->nhist) {
		Uint32 now = SDL_GetTicks();
		if (fl->caught_up && (Sint32)(now - fl->next_at) < 0)
			break;
		static ui_event ev;
		static catan_state before;
		ev = a->hist[fl->shown];
		bool hasb = fl->shown > 0;
		if (hasb)
			before = a->hist[fl->shown - 1].after;
		char out[UI_STORY_MAX][UI_STORY_LINE];
		int k = ui_story(out, &a->g.board, &a->g.names,
				 hasb ? &before : NULL, &ev, viewer, false);
		for (int i = 0; i < k; i++)
			memcpy(fl->lines[fl->nlines++ % FOLLOW_LINES], out[i],
			       UI_STORY_LINE);
		if (ev.has_action && ev.action.kind == CATAN_ACT_ROLL)
			fl->roller = ev.actor;
		results_add(&fl->res, hasb ? &before : NULL, &ev);
		fl->last_actor = ev.actor;
		fl->last_kind = ev.has_action ? ev.action.kind : -1;
		fl->last_seq++;
		if (fl->caught_up && hasb)
			follow_anim(fl, &a->g.board, &before, &ev.after, now,
				    pace);
		if (fl->caught_up && hasb) {
			/* Marks last until the viewer moves; with nobody to
			 * move (bots only), until the next turn begins. */
			if ((ev.actor < CATAN_MAX_PLAYERS &&
			     (instant >> ev.actor & 1u)) ||
			    (!instant && ev.has_action &&
			     ev.action.kind == CATAN_ACT_END)) {
				memset(&fl->rv, 0, sizeof fl->rv);
				memset(&fl->re, 0, sizeof fl->re);
				fl->rtile = CATAN_NONE;
			} else {
				follow_mark(fl, &a->g.board, &before, &ev.after,
					    ev.actor);
				fl->marked_at = now;
			}
		}
		fl->disp = ev.after;
		fl->shown++;
		changed = true;
		if (fl->caught_up && k > 0 && pace > 0 &&
		    !(ev.actor < CATAN_MAX_PLAYERS &&
		      (instant >> ev.actor & 1u)))
			fl->next_at = now + (Uint32)(pace * 1000);
	}
	if (fl->shown == a->nhist)
		fl->caught_up = true;
	fl->behind = fl->shown < a->nhist;
	SDL_UnlockMutex(a->mx);
	return changed;
}

/* The log lines of a frame: the last that fit the frame's array, ending
 * `scroll` lines before the newest. */
static void follow_log(ui_frame *fr, const follow *fl)
{
	int kept = fl->nlines < FOLLOW_LINES ? fl->nlines : FOLLOW_LINES;
	int end = fl->nlines - fl->scroll;
	int k = end - (fl->nlines - kept);
	k = k < UI_LOG_LINES ? k : UI_LOG_LINES;
	k = k < 0 ? 0 : k;
	for (int i = 0; i < k; i++)
		fr->log[i] = fl->lines[(end - k + i) % FOLLOW_LINES];
	fr->nlog = k;
	fr->log_more = end - k;
	fr->log_scroll = fl->scroll;
}

typedef struct play_dump_ctx {
	const follow *fl;
	app *a;
	const char *message;
	const char *status;
} play_dump_ctx;

/* The paced log's part of a script's `state`: shown, behind, the marks
 * and every log line kept (log LINE), oldest first. */
static void play_dump(FILE *f, void *ctx)
{
	const play_dump_ctx *dc = ctx;
	const follow *fl = dc->fl;
	SDL_LockMutex(dc->a->mx);
	int nh = dc->a->nhist;
	SDL_UnlockMutex(dc->a->mx);
	fprintf(f, "events %d\nshown %d\nroller %d\n", nh, fl->shown,
		fl->roller);
	fprintf(f, "message %s\nstatus %s\nlog_scroll %d\nlog_lines %d\n",
		dc->message, dc->status, fl->scroll, fl->nlines);
	fprintf(f, "recent_tile %d\nrecent_tile_by %d\nrecent_vertices %d\n",
		fl->rtile == CATAN_NONE ? -1 : fl->rtile,
		fl->rtile_by == CATAN_NONE ? -1 : fl->rtile_by,
		catan_vset_count(&fl->rv));
	int ne = 0;
	for (int k = 0; k < CATAN_EWORDS; k++)
		ne += __builtin_popcountll(fl->ae.w[k]);
	fprintf(f, "anim_pieces %d\nanim_ms %d\nanim_frames %d\n",
		catan_vset_count(&fl->av) + ne + fl->arob, fl->anim_ms,
		fl->anim_frames);
	int kept = fl->nlines < FOLLOW_LINES ? fl->nlines : FOLLOW_LINES;
	for (int i = fl->nlines - kept; i < fl->nlines; i++)
		fprintf(f, "log %s\n", fl->lines[i % FOLLOW_LINES]);
}

int catan_ui_play(const catan_ui_options *o, catan_err *err)
{
	static app a; /* big; one window per process */
	memset(&a, 0, sizeof a);
	a.o = o;
	catan_store *st = NULL;
	if (catan_ui_display_check(err))
		return -1;
	if (catan_store_open(&st, o->dir, err))
		return -1;
	a.g = *catan_store_game(st);
	a.me = catan_store_me(st);
	catan_store_free(st);
	if (o->as) {
		a.me = player_index(&a.g, o->as);
		if (a.me < 0)
			return fail(err, "no player named \"%s\" in this game", o->as);
	}
	a.peer = a.me >= 0;
	if (o->bots) {
		char list[256];
		snprintf(list, sizeof list, "%s", o->bots);
		for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
			int p = player_index(&a.g, t);
			if (p < 0)
				return fail(err, "--bots: no player named \"%s\"", t);
			a.bots |= 1u << p;
		}
	}
	/* CATAN_UI_BOT_SEED makes the window's own bots repeatable (tests). */
	const char *bs = getenv("CATAN_UI_BOT_SEED");
	catan_rng_seed(&a.bot_rng, bs && *bs ? strtoull(bs, NULL, 10)
					     : (uint64_t)time(NULL));
	script sc;
	memset(&sc, 0, sizeof sc);
	if (o->script && !(sc.f = fopen(o->script, "r")))
		return fail(err, "cannot read the script %s", o->script);
	script_resume(&sc, o);
	a.repo = SDL_CreateMutex();
	a.mx = SDL_CreateMutex();
	a.cv = SDL_CreateCond();
	if (refresh(&a, a.peer, err)) {
		if (sc.f)
			fclose(sc.f);
		return -1;
	}
	window w;
	char title[128];
	snprintf(title, sizeof title, "catan-git: %s%s", o->dir,
		 a.peer ? "" : " (hot-seat)");
	int rc = -1;
	SDL_Thread *th = NULL, *wth = NULL;
	if (window_open(&w, &a.g, a.me >= 0 ? a.me : CATAN_NONE, o, title, err))
		goto done;
	th = SDL_CreateThread(worker, "catan-sync", &a);
	if (a.peer && (a.watch = catan_watch_new())) {
		catan_store *ws = NULL;
		catan_err werr;
		SDL_LockMutex(a.repo);
		if (catan_store_open(&ws, o->dir, &werr) == 0) {
			catan_watch_targets(a.watch, ws);
			catan_store_free(ws);
		}
		SDL_UnlockMutex(a.repo);
		wth = SDL_CreateThread(waker, "catan-watch", &a);
	}
	static frame_stats fs;
	memset(&fs, 0, sizeof fs);
	snapshot cur;
	memset(&cur, 0, sizeof cur);
	static follow fl;
	memset(&fl, 0, sizeof fl);
	follow_reset(&fl);
	/* Whose moves show at once: the window's own player (peer), or every
	 * player the window does not leave to a bot (hot-seat). */
	unsigned instant =
	    a.peer ? 1u << a.me : ((1u << CATAN_MAX_PLAYERS) - 1) & ~a.bots;
	/* An offer to several players: sent to one at a time; each answer
	 * is shown; an accept or a counter-offer ends the round. */
	struct {
		unsigned queue;	    /* players still to ask */
		catan_action terms; /* the offer (player set per target) */
		int asked;	    /* who has it now, or CATAN_NONE */
		int by;		    /* who offers */
		unsigned seen;	    /* fl.last_seq when it was sent */
		char answers[160];
	} round = {0, {0}, CATAN_NONE, CATAN_NONE, 0, ""};
	unsigned drawn_seq = 0, offered_discard = 0;
	bool dirty = true;
	int mx = -1, my = -1;
	ui_frame fr;
	char status[256], why[256] = "", panel_title[96];
	for (;;) {
		SDL_LockMutex(a.mx);
		if (a.snap.seq != cur.seq) {
			cur = a.snap;
			dirty = true;
		}
		if (a.message[0]) {
			snprintf(why, sizeof why, "%.250s", a.message);
			a.message[0] = 0;
			dirty = true;
		}
		SDL_UnlockMutex(a.mx);
		if (follow_step(&fl, &a, a.peer ? a.me : CATAN_NONE, instant,
				o->pace))
			dirty = true;
		const catan_state *s = fl.behind ? &fl.disp : &cur.s;
		/* The offer round: the answer of who has the offer decides
		 * whether the next chosen player is asked. */
		if (round.asked != CATAN_NONE && !fl.behind &&
		    fl.last_actor == round.asked &&
		    (fl.last_kind == CATAN_ACT_TRADE_ACCEPT ||
		     fl.last_kind == CATAN_ACT_TRADE_REJECT ||
		     fl.last_kind == CATAN_ACT_TRADE_OFFER)) {
			size_t u = strlen(round.answers);
			snprintf(round.answers + u, sizeof round.answers - u,
				 "%s%s %s", u ? ", " : "",
				 a.g.names.name[round.asked],
				 fl.last_kind == CATAN_ACT_TRADE_ACCEPT
				     ? "accepted"
				 : fl.last_kind == CATAN_ACT_TRADE_REJECT
				     ? "rejected"
				     : "counter-offered");
			int next = round.queue ? __builtin_ctz(round.queue)
					       : CATAN_NONE;
			if (fl.last_kind != CATAN_ACT_TRADE_REJECT)
				next = CATAN_NONE;
			round.asked = CATAN_NONE;
			if (next != CATAN_NONE) {
				round.queue &= ~(1u << next);
				catan_action o2 = round.terms;
				o2.player = (uint8_t)next;
				catan_err aerr;
				SDL_LockMutex(a.repo);
				int arc = act(&a, round.by, &o2, &aerr);
				SDL_UnlockMutex(a.repo);
				if (arc) {
					snprintf(
					    why, sizeof why,
					    "offer: %.100s; not asking %s: "
					    "%.100s",
					    round.answers, a.g.names.name[next],
					    aerr.msg);
					round.queue = 0;
				} else {
					snprintf(why, sizeof why,
						 "done: offer: %.120s; now "
						 "asking %s",
						 round.answers,
						 a.g.names.name[next]);
					round.asked = next;
					poke(&a);
				}
			} else {
				snprintf(why, sizeof why, "done: offer: %.150s",
					 round.answers);
				round.queue = 0;
			}
			dirty = true;
			SDL_LockMutex(a.mx);
			cur = a.snap;
			SDL_UnlockMutex(a.mx);
			follow_step(&fl, &a, a.peer ? a.me : CATAN_NONE,
				    instant, o->pace);
			s = fl.behind ? &fl.disp : &cur.s;
		}
		/* Hot-seat: the window acts for whoever is next (not a bot). */
		if (!a.peer) {
			int next = catan_state_next_actor(s);
			if (s->phase == CATAN_PHASE_DISCARD)
				for (int p = 0; p < s->opt.nplayers; p++)
					if (s->discard[p] && !(a.bots >> p & 1u)) {
						next = p;
						break;
					}
			int actor = next < s->opt.nplayers && !(a.bots >> next & 1u)
					    ? next
					    : CATAN_NONE;
			if (actor != w.v.actor) {
				w.v.actor = actor;
				w.v.dialog = CATAN_DLG_NONE;
				dirty = true;
			}
		}
		/* A discard owed opens its dialog by itself, once per turn
		 * (Esc closes it; the Discard button opens it again). */
		if (s->phase == CATAN_PHASE_DISCARD && w.v.actor < s->opt.nplayers &&
		    s->discard[w.v.actor] && w.v.dialog == CATAN_DLG_NONE &&
		    offered_discard != (unsigned)s->turn + 1) {
			catan_action none;
			if (catan_view_key(&none, &w.v, &a.g.board, s, 'd', NULL, 0) ==
			    CATAN_VIEW_CHANGED)
				dirty = true;
			offered_discard = (unsigned)s->turn + 1;
		}
		SDL_Event e;
		bool quit = false;
		while (SDL_PollEvent(&e)) {
			catan_action act_;
			int res = CATAN_VIEW_NOTHING;
			unsigned dlg_targets =
			    w.v.dialog == CATAN_DLG_OFFER ? w.v.targets : 0;
			if (e.type == SDL_QUIT)
				quit = true;
			else if (e.type == SDL_WINDOWEVENT &&
				 (e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED ||
				  e.window.event == SDL_WINDOWEVENT_EXPOSED)) {
				relayout(&w, &a.g);
				dirty = true;
			} else if (e.type == SDL_MOUSEWHEEL) {
				/* The log scrolls back and forth. */
				int kept = fl.nlines < FOLLOW_LINES
					       ? fl.nlines
					       : FOLLOW_LINES;
				fl.scroll += e.wheel.y * 3;
				fl.scroll =
				    fl.scroll > kept - 1 ? kept - 1 : fl.scroll;
				fl.scroll = fl.scroll < 0 ? 0 : fl.scroll;
				dirty = true;
			} else if (e.type == SDL_MOUSEMOTION) {
				mx = e.motion.x;
				my = e.motion.y;
				to_pixels(&w, &mx, &my);
				dirty = true;
			} else if (e.type == SDL_MOUSEBUTTONDOWN &&
				   e.button.button == SDL_BUTTON_LEFT) {
				int x = e.button.x, y = e.button.y;
				to_pixels(&w, &x, &y);
				if (s->phase == CATAN_PHASE_OVER) {
					/* The results panel's buttons. */
					ui_results_layout(&fl.res, &w.v);
					int nx =
					    catan_rect_has(&fl.res.replay, x, y)
						? CATAN_UI_NEXT_REPLAY
					    : catan_rect_has(&fl.res.newgame, x,
							     y)
						? CATAN_UI_NEXT_NEWGAME
						: CATAN_UI_NEXT_NONE;
					if (nx != CATAN_UI_NEXT_NONE) {
						if (o->next)
							*o->next = nx;
						quit = true;
						continue;
					}
				}
				res = catan_view_click(&act_, &w.v, &a.g.board, s, x, y,
						       why, sizeof why);
				dirty = true;
			} else if (e.type == SDL_MOUSEBUTTONDOWN &&
				   e.button.button == SDL_BUTTON_RIGHT) {
				res = catan_view_key(&act_, &w.v, &a.g.board, s, 27,
						     why, sizeof why);
				dirty = true;
			} else if (e.type == SDL_KEYDOWN) {
				/* q or Ctrl+Q closes the window (no action
				 * uses q). */
				if (e.key.keysym.sym == SDLK_q)
					quit = true;
				int k = sdl_key(e.key.keysym.sym);
				if (k)
					res = catan_view_key(&act_, &w.v, &a.g.board,
							     s, k, why, sizeof why);
				dirty = true;
			}
			if (res == CATAN_VIEW_ACT &&
			    act_.kind == CATAN_ACT_TRADE_OFFER &&
			    s->phase != CATAN_PHASE_OFFER &&
			    __builtin_popcount(dlg_targets) > 1) {
				round.queue =
				    dlg_targets & ~(1u << act_.player);
				round.terms = act_;
				round.asked = act_.player;
				round.by = w.v.actor;
				round.answers[0] = 0;
			}
			if (res == CATAN_VIEW_ACT) {
				catan_err aerr;
				int actor = w.v.actor;
				SDL_LockMutex(a.repo);
				int arc = act(&a, actor, &act_, &aerr);
				SDL_UnlockMutex(a.repo);
				static catan_state was;
				was = *s;
				if (arc)
					snprintf(why, sizeof why, "%.250s",
						 aerr.msg);
				poke(&a); /* sync now, so the others see it */
				SDL_LockMutex(a.mx);
				cur = a.snap;
				SDL_UnlockMutex(a.mx);
				s = &cur.s;
				if (!arc) {
					/* What was done, in the log's words. */
					static ui_event ev;
					memset(&ev, 0, sizeof ev);
					ev.actor = actor;
					ev.has_action = true;
					ev.action = act_;
					ev.after = cur.s;
					char said[UI_STORY_MAX][UI_STORY_LINE];
					int k = ui_story(said, &a.g.board,
							 &a.g.names, &was, &ev,
							 actor, false);
					snprintf(why, sizeof why,
						 "done: %.200s",
						 k ? said[0] : "");
				}
			}
		}
		play_dump_ctx dc = {&fl, &a, why, status};
		int src = script_step(&sc, &w.v, &a.g, s, w.r, why, sizeof why,
				      play_dump, &dc);
		if (src < 0) {
			fail(err, "%s", why);
			goto done;
		}
		if (quit || src > 0)
			break;
		Uint32 anim_age = SDL_GetTicks() - fl.anim_at;
		/* (until a frame has shown them in place, however late) */
		bool animating = fl.anim_at && fl.anim_ms > 0 && !fl.anim_done;
		if (!dirty && cur.seq == drawn_seq && !animating &&
		    !(fl.marked_at && SDL_GetTicks() - fl.marked_at < 450)) {
			SDL_Delay(15);
			continue;
		}
		Uint64 t0 = SDL_GetPerformanceCounter();
		memset(&fr, 0, sizeof fr);
		ui_status_text(status, sizeof status, &a.g, s, w.v.actor);
		/* A card being played: say what the next click does. */
		size_t sl = strlen(status);
		if (cur.stopped[0])
			snprintf(status, sizeof status, "%s", cur.stopped);
		else if (cur.asked[0] && s->phase == CATAN_PHASE_REVEAL &&
			 s->reveal_wait && sl < sizeof status)
			/* (whose reveal the game waits for, and since when) */
			snprintf(status + sl, sizeof status - sl, ", %s",
				 cur.asked);
		else if (w.v.dialog == CATAN_DLG_VICTIM)
			snprintf(status, sizeof status,
				 "your move: choose whom to rob, then OK");
		else if (w.v.mode == CATAN_MODE_KNIGHT)
			snprintf(status, sizeof status,
				 "your move: knight - click a tile for the "
				 "robber (Esc cancels)");
		else if (w.v.mode == CATAN_MODE_ROADS)
			snprintf(
			    status, sizeof status,
			    "your move: road building - click the %s road's "
			    "side (Esc cancels)",
			    w.v.pick_edge == CATAN_NONE ? "first" : "second");
		else if (s->phase == CATAN_PHASE_OFFER &&
			 w.v.actor < s->opt.nplayers &&
			 catan_state_may_act(s, w.v.actor) &&
			 !(catan_view_buttons(&w.v, &a.g.board, s) >>
			       CATAN_BTN_ACCEPT &
			   1u))
			/* Accept is grey: say why, and what is left. */
			snprintf(status, sizeof status,
				 "your move: you lack the cards to accept: "
				 "Reject, or Offer back");
		else if (s->phase == CATAN_PHASE_SETUP &&
			 w.v.actor < s->opt.nplayers &&
			 catan_state_may_act(s, w.v.actor))
			snprintf(status, sizeof status,
				 w.v.pick_vertex == CATAN_NONE
				     ? "your move: click a ringed corner for a "
				       "settlement"
				     : "your move: now click a ringed side for "
				       "its road (Esc: another corner)");
		else if (fl.behind) {
			/* Still showing the others' moves, one at a time. */
			SDL_LockMutex(a.mx);
			int left = a.nhist - fl.shown;
			SDL_UnlockMutex(a.mx);
			if (left > 0)
				snprintf(status, sizeof status,
					 "showing the others' moves (%d more)",
					 left);
		}
		snprintf(panel_title, sizeof panel_title, "catan-git%s%s",
			 a.peer ? ": " : " hot-seat",
			 a.peer ? a.g.names.name[a.me] : "");
		fr.g = &a.g;
		fr.s = s;
		fr.v = &w.v;
		fr.viewer = a.peer ? a.me : w.v.actor;
		fr.title = panel_title;
		fr.status = status;
		fr.message = why;
		fr.message_ok = !strncmp(why, "done: ", 6);
		fr.sync = a.peer ? cur.sync : NULL;
		follow_log(&fr, &fl);
		fr.roller = fl.roller;
		fr.recent_vertices = fl.rv;
		fr.recent_edges = fl.re;
		fr.recent_tile = fl.rtile;
		fr.recent_tile_by = fl.rtile_by;
		/* The newest marks draw in: rings shrink onto their spot
		 * over 400 ms (frames keep coming until then). */
		Uint32 age = SDL_GetTicks() - fl.marked_at;
		fr.mark_grow =
		    fl.marked_at && age < 400 ? 1.0f - age / 400.0f : 0;
		fr.newest_vertices = fl.nv;
		fr.newest_edges = fl.ne;
		fr.newest_tile = fl.nt;
		/* The newest pieces drop and fade in (a script may hold them
		 * mid-way for a screenshot). */
		fr.anim_vertices = fl.av;
		fr.anim_edges = fl.ae;
		fr.anim_robber = fl.arob;
		fr.anim_t = script_anim >= 0 ? script_anim
			    : animating && anim_age < (Uint32)fl.anim_ms
				? (float)anim_age / fl.anim_ms
				: 1;
		if (fr.anim_t < 1)
			fl.anim_frames++;
		else
			fl.anim_done = true;
		fr.hover_x = mx;
		fr.hover_y = my;
		if (s->phase == CATAN_PHASE_OVER) {
			ui_results_layout(&fl.res, &w.v);
			fr.results = &fl.res;
		}
		fr.show_buttons = true;
		fr.buttons = catan_view_buttons(&w.v, &a.g.board, s);
		catan_view_targets(&w.v, &a.g.board, s, &fr.hl_vertices,
				   &fr.hl_edges, fr.hl_tiles);
		fr.hover_kind = mx >= 0 ? catan_view_hit(&w.v, &a.g.board, mx, my,
							 &fr.hover_id)
					: CATAN_HIT_NONE;
		ui_draw(w.r, &w.fonts, &fr);
		stats_add(&fs, (double)(SDL_GetPerformanceCounter() - t0) * 1000.0 /
				       (double)SDL_GetPerformanceFrequency());
		SDL_RenderPresent(w.r);
		drawn_seq = cur.seq;
		dirty = false;
	}
	rc = 0;
	stats_print(&fs);
done:
	SDL_LockMutex(a.mx);
	a.quit = true;
	SDL_CondSignal(a.cv);
	SDL_UnlockMutex(a.mx);
	if (th)
		SDL_WaitThread(th, NULL);
	if (wth)
		SDL_WaitThread(wth, NULL);
	catan_watch_free(a.watch);
	script_leave(&sc, o);
	window_close(&w);
	SDL_DestroyCond(a.cv);
	SDL_DestroyMutex(a.mx);
	SDL_DestroyMutex(a.repo);
	return rc;
}

/* ---- replay ---- */

/* The spots that differ between two states: buildings, roads, robber. */
static void changed_spots(ui_frame *fr, const catan_board *b,
			  const catan_state *x, const catan_state *y)
{
	for (int v = 0; v < b->nvertices; v++)
		if (x->building[v] != y->building[v])
			catan_vset_add(&fr->hl_vertices, v);
	for (int k = 0; k < CATAN_EWORDS; k++)
		fr->hl_edges.w[k] = x->roads.w[k] ^ y->roads.w[k];
	if (x->robber != y->robber && y->robber < CATAN_MAX_TILES)
		fr->hl_tiles[y->robber] = true;
}

typedef struct replay_dump_ctx {
	const int *pos;
	int n;
} replay_dump_ctx;

/* The replay's part of a script's `state`: the commit shown, of how many. */
static void replay_dump(FILE *f, void *ctx)
{
	const replay_dump_ctx *dc = ctx;
	fprintf(f, "replay_pos %d\nreplay_count %d\n", *dc->pos + 1, dc->n);
}

int catan_ui_replay(const catan_ui_options *o, catan_err *err)
{
	catan_store *st = NULL;
	if (catan_ui_display_check(err))
		return -1;
	if (catan_store_open_ext(&st, o->dir, true, err))
		return -1;
	catan_game g = *catan_store_game(st);
	static log_buf lb;
	memset(&lb, 0, sizeof lb);
	lb.cap = 1 << 16;
	lb.ids = calloc((size_t)lb.cap, sizeof *lb.ids);
	lb.subjects = calloc((size_t)lb.cap, sizeof *lb.subjects);
	catan_state *states = NULL;
	entry_list el = {0};
	told tl = {0};
	int rc = -1;
	window w;
	memset(&w, 0, sizeof w);
	script sc;
	memset(&sc, 0, sizeof sc);
	if (!lb.ids || !lb.subjects) {
		fail(err, "out of memory", NULL);
		goto done;
	}
	/* (a revision may name commits past a stopped game's fork) */
	if (catan_store_log_ext(st, o->rev != NULL, collect, &lb, err))
		goto done;
	int n = lb.n < lb.cap ? lb.n : lb.cap;
	int viewer0 = o->as ? player_index(&g, o->as) : -1;
	if (catan_store_log_ext(st, o->rev != NULL, collect_entry, &el, err) ||
	    tell_all(&tl, st, &g, &el, n < el.n ? n : el.n,
		     viewer0 >= 0 ? viewer0 : CATAN_NONE,
		     viewer0 < 0 || o->reveal, err))
		goto done;
	states = calloc((size_t)n + 1, sizeof *states);
	if (!states) {
		fail(err, "out of memory", NULL);
		goto done;
	}
	for (int i = 0; i < n; i++)
		if (catan_store_state_at(&states[i], NULL, st, lb.ids[i].hex, err))
			goto done;
	int viewer = o->as ? player_index(&g, o->as) : -1;
	if (o->as && viewer < 0) {
		fail(err, "no player named \"%s\" in this game", o->as);
		goto done;
	}
	int pos = o->from_start && !o->rev ? 0 : n - 1;
	if (o->rev) {
		/* REV in git's syntax: open the replay at that commit. */
		catan_state at;
		catan_commit_id rid;
		if (catan_store_state_at(&at, &rid, st, o->rev, err))
			goto done;
		for (pos = n - 1; pos >= 0 && strcmp(lb.ids[pos].hex, rid.hex);
		     pos--)
			;
		if (pos < 0) {
			fail(err, "%s is not in the game's current history",
			     o->rev);
			goto done;
		}
	}
	char title[160];
	snprintf(title, sizeof title, "catan-git replay: %s", o->dir);
	if (window_open(&w, &g, CATAN_NONE, o, title, err))
		goto done;
	bool dirty = true, drag = false;
	static frame_stats fs;
	memset(&fs, 0, sizeof fs);
	if (o->script && !(sc.f = fopen(o->script, "r"))) {
		fail(err, "cannot read the script %s", o->script);
		goto done;
	}
	script_resume(&sc, o);
	replay_dump_ctx rdc = {&pos, n};
	for (;;) {
		SDL_Event e;
		bool quit = false;
		while (SDL_PollEvent(&e)) {
			int step = 0;
			if (e.type == SDL_QUIT)
				quit = true;
			else if (e.type == SDL_WINDOWEVENT) {
				relayout(&w, &g);
				dirty = true;
			} else if (e.type == SDL_KEYDOWN) {
				SDL_Keycode k = e.key.keysym.sym;
				if (k == SDLK_RIGHT || k == SDLK_SPACE || k == 'l')
					step = 1;
				else if (k == SDLK_LEFT || k == SDLK_BACKSPACE || k == 'h')
					step = -1;
				else if (k == SDLK_PAGEDOWN || k == SDLK_DOWN)
					step = 10;
				else if (k == SDLK_PAGEUP || k == SDLK_UP)
					step = -10;
				else if (k == SDLK_HOME)
					step = -n;
				else if (k == SDLK_END)
					step = n;
				else if (k == 'c') {
					w.v.coords = !w.v.coords;
					dirty = true;
				} else if (k == 'q' || k == SDLK_ESCAPE)
					quit = true;
			} else if ((e.type == SDL_MOUSEBUTTONDOWN ||
				    (e.type == SDL_MOUSEMOTION && drag))) {
				int x = e.type == SDL_MOUSEMOTION ? e.motion.x : e.button.x;
				int y = e.type == SDL_MOUSEMOTION ? e.motion.y : e.button.y;
				to_pixels(&w, &x, &y);
				if (e.type == SDL_MOUSEBUTTONDOWN)
					drag = catan_rect_has(&w.v.bar, x, y);
				if (drag && n > 1) {
					float k = (float)(x - w.v.bar.x - 20) / (w.v.bar.w - 40);
					k = k < 0 ? 0 : k > 1 ? 1 : k;
					pos = (int)lroundf(k * (n - 1));
					dirty = true;
				}
			} else if (e.type == SDL_MOUSEBUTTONUP)
				drag = false;
			if (step) {
				pos += step;
				pos = pos < 0 ? 0 : pos >= n ? n - 1 : pos;
				dirty = true;
			}
		}
		char why[256] = "";
		int src = script_step(&sc, &w.v, &g, &states[pos], w.r, why,
				      sizeof why, replay_dump, &rdc);
		if (src < 0) {
			fail(err, "%s", why);
			goto done;
		}
		if (quit || src > 0)
			break;
		if (!dirty) {
			SDL_Delay(15);
			continue;
		}
		Uint64 t0 = SDL_GetPerformanceCounter();
		ui_frame fr;
		memset(&fr, 0, sizeof fr);
		char ptitle[96], status[300], msg[300];
		snprintf(ptitle, sizeof ptitle, "replay %d / %d", pos + 1, n);
		ui_status_text(status, sizeof status, &g, &states[pos], CATAN_NONE);
		snprintf(msg, sizeof msg, "%.10s  %s", lb.ids[pos].hex, lb.subjects[pos]);
		fr.g = &g;
		fr.s = &states[pos];
		fr.v = &w.v;
		fr.viewer = viewer >= 0 ? viewer : CATAN_NONE;
		fr.reveal_all = viewer < 0 || o->reveal;
		fr.title = ptitle;
		fr.status = status;
		fr.message = msg;
		fr.message_ok = true;
		/* The log told up to the current commit. */
		told_log(&fr, &tl, pos < el.n ? pos : el.n - 1);
		if (pos > 0)
			changed_spots(&fr, &g.board, &states[pos - 1], &states[pos]);
		fr.hover_kind = CATAN_HIT_NONE;
		fr.roller = CATAN_NONE;
		fr.recent_tile = CATAN_NONE;
		fr.replay_pos = pos;
		fr.replay_count = n;
		ui_draw(w.r, &w.fonts, &fr);
		stats_add(&fs, (double)(SDL_GetPerformanceCounter() - t0) * 1000.0 /
				       (double)SDL_GetPerformanceFrequency());
		SDL_RenderPresent(w.r);
		dirty = false;
	}
	stats_print(&fs);
	/* Where the replay was left, for a script or a shell to read. */
	printf("replay: %s (%d / %d)\n", lb.ids[pos].hex, pos + 1, n);
	rc = 0;
done:
	script_leave(&sc, o);
	if (w.win || w.r)
		window_close(&w);
	free(states);
	free(el.e);
	told_free(&tl);
	free(lb.ids);
	free(lb.subjects);
	catan_store_free(st);
	return rc;
}
