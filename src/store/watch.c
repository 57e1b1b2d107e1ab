/*
 * watch.c - layer 7 (top): waking a waiting peer when a git:// remote moves,
 * instead of polling it (spec/replication.md, "Waking peers over git://").
 *
 * `catan serve` answers, besides git's own requests, one of its own: a
 * watcher sends the digest of the branches it last saw, and the server
 * answers as soon as its branches differ from that (at once when they
 * already do), or after CATAN_WATCH_MS with the same digest. This file
 * holds both ends:
 *   - catan_watch_digest: the digest of a repository's branches (the
 *     server computes it whenever its refs change);
 *   - catan_watch_*: the client, which keeps one such request open to each
 *     git:// remote of a game and waits on all of them at once. A remote
 *     that does not answer the request as catan serve does (a stock git
 *     daemon, a dead host) is left to polling and asked again later.
 * Uses the store handle (its remotes) and net.c's dial; writes nothing.
 */
#define _DEFAULT_SOURCE

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "catan/store.h"
#include "net.h"
#include "repo.h"

enum {
	WATCH_MAX = 16,		  /* git:// remotes watched at once */
	WATCH_RETRY_MS = 10000,	  /* a remote that did not answer */
	WATCH_STALE_MS = 60000,	  /* a request unanswered this long is asked
				     again (a link that died silently) */
	WATCH_REFS_MAX = 1 << 20, /* bytes of refs read for a digest */
	WATCH_SAME_MS = 1000,	  /* a "same" sooner than this after the
				     request (not catan serve's time limit):
				     asked again only then */
};

/* FNV-1a, 64 bits: the digest only decides when to look, never what. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Adds to *h the bytes of the file dir/name (at most *budget of them, which
 * shrinks). A missing file adds nothing; -1 when the budget runs out.
 */
static int hash_file(uint64_t *h, const char *dir, const char *name,
		     size_t *budget)
{
	char path[STORE_PATH_MAX];
	if (store_path(path, sizeof path, "%s/%s", dir, name))
		return -1;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	*h = fnv(*h, name, strlen(name) + 1);
	char buf[4096]; /* (a read's chunk, not a limit: budget is) */
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0) {
		if ((size_t)n > *budget) {
			close(fd);
			return -1;
		}
		*budget -= (size_t)n;
		*h = fnv(*h, buf, (size_t)n);
	}
	close(fd);
	return n < 0 ? -1 : 0;
}

/*
 * The lines of packed-refs that name a branch (refs/heads/), hashed; the
 * rest (remote-tracking refs, catan's records, peeled lines) moves when
 * the server syncs and would wake its watchers for nothing.
 */
static int hash_packed(uint64_t *h, const char *gitdir, size_t *budget)
{
	char path[STORE_PATH_MAX];
	if (store_path(path, sizeof path, "%s/packed-refs", gitdir))
		return -1;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > *budget) {
		close(fd);
		return -1;
	}
	size_t len = (size_t)st.st_size;
	char *buf = malloc(len + 1);
	ssize_t got = buf ? read(fd, buf, len) : -1;
	close(fd);
	if (got != (ssize_t)len) {
		free(buf);
		return -1;
	}
	*budget -= len;
	buf[len] = '\n';
	for (char *l = buf, *end; l < buf + len; l = end + 1) {
		end = memchr(l, '\n', (size_t)(buf + len + 1 - l));
		/* "<40 hex> refs/heads/<name>" */
		if (end - l > 52 && !memcmp(l + 40, " refs/heads/", 12))
			*h = fnv(*h, l, (size_t)(end - l) + 1);
	}
	free(buf);
	return 0;
}

int catan_watch_digest(const char *gitdir, uint64_t *out)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t budget = WATCH_REFS_MAX;
	char dir[STORE_PATH_MAX];
	if (hash_packed(&h, gitdir, &budget) ||
	    store_path(dir, sizeof dir, "%s/refs/heads", gitdir))
		return -1;
	/* The loose branches, in name order. */
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	char *names[256];
	int n = 0, rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) && rc == 0) {
		if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
			continue; /* ., .., and lock files */
		if (n == (int)(sizeof names / sizeof names[0]) ||
		    !(names[n] = strdup(e->d_name)))
			rc = -1;
		else
			n++;
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0], by_name);
	for (int i = 0; i < n; i++) {
		if (rc == 0)
			rc = hash_file(&h, dir, names[i], &budget);
		free(names[i]);
	}
	if (rc == 0)
		*out = h;
	return rc;
}

/* The request and its answers: git's pkt-lines (4 hex digits of length,
 * themselves included). */
int catan_watch_request_parse(const char *buf, size_t len, uint64_t *digest)
{
	static const char word[] = "catan-watch ";
	char hex[17];
	/* "0020catan-watch <16 hex>\n" */
	if (len != 4 + 12 + 16 + 1 || memcmp(buf, "0021", 4) ||
	    memcmp(buf + 4, word, 12) || buf[len - 1] != '\n')
		return -1;
	memcpy(hex, buf + 16, 16);
	hex[16] = 0;
	for (int i = 0; i < 16; i++)
		if (!isxdigit((unsigned char)hex[i]) ||
		    isupper((unsigned char)hex[i]))
			return -1;
	*digest = strtoull(hex, NULL, 16);
	return 0;
}

int catan_watch_answer(char *buf, size_t n, bool moved, uint64_t digest)
{
	/* "0021catan-moved <16 hex>\n" or "0020catan-same <16 hex>\n" */
	return snprintf(buf, n, "%04x%s %016llx\n", moved ? 0x21 : 0x20,
			moved ? "catan-moved" : "catan-same",
			(unsigned long long)digest);
}

/* One remote watched. */
typedef struct {
	char name[64];
	char host[256], port[8];
	int fd;	    /* the open request, or -1 */
	bool known; /* digest: what the server last said */
	uint64_t digest;
	long long retry_at; /* not watchable before (CLOCK_MONOTONIC ms) */
	long long asked_at; /* when the open request was sent */
	long long hold;	    /* not asked again before (an early "same") */
	char got[64];	    /* the answer so far */
	size_t ngot;
} target;

struct catan_watch {
	target t[WATCH_MAX];
	int n;
	int all;       /* the game's remotes, git:// or not */
	bool lost;     /* a remote was left to polling during this wait */
	char why[256]; /* the last remote left to polling, and why */
};

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

catan_watch *catan_watch_new(void)
{
	catan_watch *w = calloc(1, sizeof *w);
	return w;
}

static void drop(target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	t->ngot = 0;
}

void catan_watch_free(catan_watch *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->n; i++)
		drop(&w->t[i]);
	free(w);
}

int catan_watch_targets(catan_watch *w, catan_store *s)
{
	/* (not git_remote_list and git_remote_lookup: remote.c says why) */
	git_strarray all = {0};
	git_config *cfg = NULL;
	if (git_repository_config_snapshot(&cfg, s->repo) ||
	    store_remote_names(cfg, &all)) {
		git_config_free(cfg);
		return -1;
	}
	catan_watch old = *w;
	w->n = 0;
	w->all = 0;
	for (size_t i = 0; i < all.count; i++) {
		char url[STORE_URL_MAX];
		if (i > 0 && !strcmp(all.strings[i], all.strings[i - 1]))
			continue; /* (a url and a pushurl) */
		w->all++;
		if (w->n == WATCH_MAX ||
		    store_remote_url(cfg, all.strings[i], false, url,
				     sizeof url))
			continue;
		target t;
		memset(&t, 0, sizeof t);
		t.fd = -1;
		if (!strncmp(url, "git://", 6) &&
		    strlen(all.strings[i]) < sizeof t.name &&
		    store_url_endpoint(url, t.host, sizeof t.host, t.port,
				       sizeof t.port)) {
			snprintf(t.name, sizeof t.name, "%s", all.strings[i]);
			/* A remote watched before keeps its request and what
			 * it said. */
			for (int j = 0; j < old.n; j++)
				if (!strcmp(old.t[j].name, t.name) &&
				    !strcmp(old.t[j].host, t.host) &&
				    !strcmp(old.t[j].port, t.port)) {
					t = old.t[j];
					old.t[j].fd = -1;
				}
			w->t[w->n++] = t;
		}
	}
	for (int j = 0; j < old.n; j++)
		drop(&old.t[j]);
	store_remote_names_free(&all);
	git_config_free(cfg);
	return w->n;
}

int catan_watch_count(const catan_watch *w)
{
	int n = 0;
	for (int i = 0; i < w->n; i++)
		n += w->t[i].retry_at <= mono_ms();
	return n;
}

bool catan_watch_all(const catan_watch *w)
{
	return w->all > 0 && catan_watch_count(w) == w->all;
}

const char *catan_watch_why(const catan_watch *w)
{
	return w->why;
}

static void give_up(catan_watch *w, target *t, const char *why)
{
	snprintf(w->why, sizeof w->why, "%.60s (git://%.100s:%.7s/): %.60s",
		 t->name, t->host, t->port, why);
	drop(t);
	t->known = false;
	t->retry_at = mono_ms() + WATCH_RETRY_MS;
	w->lost = true;
}

/* Opens t's request: 0, or -1 after give_up. */
static int ask(catan_watch *w, target *t)
{
	int io_ms;
	t->fd = store_net_dial(t->host, t->port, &io_ms);
	if (t->fd < 0) {
		give_up(w, t, "cannot connect");
		return -1;
	}
	char req[64];
	int len = snprintf(req, sizeof req, "0021catan-watch %016llx\n",
			   (unsigned long long)(t->known ? t->digest : 0));
	if (send(t->fd, req, (size_t)len, MSG_NOSIGNAL) != len) {
		give_up(w, t, "cannot send the request");
		return -1;
	}
	t->ngot = 0;
	t->asked_at = mono_ms();
	return 0;
}

/*
 * Reads what t's server sent: 1 when its branches moved, 0 when it is not
 * done or said they did not (the request is then over), -1 after give_up.
 */
static int hear(catan_watch *w, target *t)
{
	ssize_t n = recv(t->fd, t->got + t->ngot, sizeof t->got - t->ngot,
			 MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0) {
		give_up(w, t,
			t->ngot
			    ? "the answer was cut"
			    : "closed without an answer (not catan serve?)");
		return -1;
	}
	t->ngot += (size_t)n;
	static const size_t moved_len = 4 + 11 + 1 + 16 + 1,
			    same_len = 4 + 10 + 1 + 16 + 1;
	bool moved = t->ngot >= 4 && !memcmp(t->got, "0021", 4);
	size_t want = moved ? moved_len : same_len;
	if (t->ngot < want && t->ngot < sizeof t->got)
		return 0;
	char expect[64];
	uint64_t d = 0;
	char hex[17];
	if (t->ngot == want) {
		memcpy(hex, t->got + want - 17, 16);
		hex[16] = 0;
		d = strtoull(hex, NULL, 16);
		catan_watch_answer(expect, sizeof expect, moved, d);
	}
	if (t->ngot != want || memcmp(expect, t->got, want)) {
		give_up(w, t, "answered something else (not catan serve?)");
		return -1;
	}
	drop(t);
	t->digest = d;
	t->known = true;
	/* catan serve says "same" after its time limit: one that says it
	 * at once (broken, or lying) would be asked again at once, a
	 * connection after another for the whole wait. */
	if (!moved && mono_ms() - t->asked_at < WATCH_SAME_MS)
		t->hold = t->asked_at + WATCH_SAME_MS;
	return moved;
}

double catan_watch_pause(int fruitless, double interval, double max_interval)
{
	if (fruitless < 2)
		return 0;
	double d = interval;
	for (int k = 2; k < fruitless && d < max_interval; k++)
		d *= 2;
	return d < max_interval ? d : max_interval;
}

int catan_watch_wait(catan_watch *w, int timeout_ms)
{
	long long until = mono_ms() + timeout_ms;
	w->lost = false;
	for (;;) {
		struct pollfd pf[WATCH_MAX];
		int idx[WATCH_MAX], np = 0;
		long long now = mono_ms();
		for (int i = 0; i < w->n; i++) {
			target *t = &w->t[i];
			/* The server answers within its CATAN_WATCH_MS; a
			 * request older than this went down with its link. */
			if (t->fd >= 0 && now - t->asked_at > WATCH_STALE_MS)
				drop(t);
			if (t->fd < 0 && t->retry_at <= now && t->hold <= now &&
			    ask(w, t))
				continue;
			if (t->fd >= 0) {
				pf[np].fd = t->fd;
				pf[np].events = POLLIN;
				idx[np++] = i;
			}
		}
		now = mono_ms();
		/* A remote just left to polling: the caller plans its wait
		 * again (it may have counted on the wake-up). */
		if (now >= until || w->lost)
			return 0;
		long long wake = until;
		for (int k = 0; k < np; k++)
			if (w->t[idx[k]].asked_at + WATCH_STALE_MS < wake)
				wake = w->t[idx[k]].asked_at + WATCH_STALE_MS + 1;
		for (int i = 0; i < w->n; i++)
			if (w->t[i].fd < 0 && w->t[i].retry_at <= now &&
			    w->t[i].hold > now && w->t[i].hold < wake)
				wake = w->t[i].hold;
		/* (a request gone stale while another was asked: at once; a
		 * negative time would be poll's "for ever") */
		int left = wake > now ? (int)(wake - now) : 0;
		if (np == 0) {
			/* Nothing to watch: the caller's wait, as a sleep, or
			 * up to a request held back. */
			struct timespec ts = {left / 1000,
					      (long)(left % 1000) * 1000000L};
			nanosleep(&ts, NULL);
			if (wake >= until)
				return 0;
			continue;
		}
		int r = poll(pf, (nfds_t)np, left);
		if (r < 0 && errno != EINTR)
			return -1;
		bool moved = false;
		for (int k = 0; k < np && r > 0; k++)
			if (pf[k].revents && hear(w, &w->t[idx[k]]) == 1)
				moved = true;
		if (moved)
			return 1;
		if (w->lost)
			return 0;
		/*
		 * A request answered "same" (the server's time limit) or given
		 * up is asked again on the next turn of the loop; one given up
		 * waits WATCH_RETRY_MS, so a remote that keeps refusing costs
		 * a connection every ten seconds, not a busy loop.
		 */
	}
}
