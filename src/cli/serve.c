/*
 * serve.c - catan serve: make this peer's repository fetchable over git://,
 * read-only, with the real git daemon.
 *
 *   catan -C DIR serve [--port N] [--listen ADDR] [--once]
 *
 * git daemon's own listener leaves Nagle's algorithm on its sockets, and a
 * fetch then stalls about 40 ms on delayed ACKs between its small writes.
 * So this command accepts the connections itself, sets TCP_NODELAY on each,
 * and hands the socket to `git daemon --inetd` as its standard input and
 * output: the same daemon and protocol, without the stall. Only
 * upload-pack (fetch) is enabled; nobody can push.
 *
 * It also answers catan's watch requests itself (spec/replication.md,
 * "Waking peers over git://"): a waiting peer sends the digest of the
 * branches it last saw and is answered when they move, so it need not
 * poll. A connection's first bytes are peeked to tell the two apart.
 *
 * A fetch costs the processes it starts (the daemon, upload-pack,
 * pack-objects: about 1.5 ms each here), so each one counts:
 *   - git-daemon is run directly from `git --exec-path` (looked up once),
 *     not as `git daemon`: that would start the `git` front end first,
 *     which looks for a repository around our working directory and then
 *     starts git-daemon as a child and waits for it;
 *   - it is started with posix_spawn (vfork and exec), not fork: forking
 *     this process copies its page tables, and catan maps SDL and libgit2.
 * See README "Sync: measurements" for where a fetch's time goes.
 */
#define _GNU_SOURCE /* accept4 */

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "catan/store.h"
#include "cli.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * Writes to out (size n) the path of the git-daemon program in git's exec
 * path, or "" when there is none (git-daemon is then run as `git daemon`).
 */
static void find_daemon(char *out, size_t n)
{
	char dir[PATH_MAX] = "";
	out[0] = '\0';
	FILE *f = popen("git --exec-path 2>/dev/null", "r");
	if (!f)
		return;
	bool got = fgets(dir, sizeof dir, f) != NULL;
	pclose(f);
	dir[strcspn(dir, "\n")] = '\0';
	if (!got || !dir[0])
		return;
	int len = snprintf(out, n, "%s/git-daemon", dir);
	if (len < 0 || (size_t)len >= n || access(out, X_OK))
		out[0] = '\0';
}

/*
 * Starts the daemon on connection c (its standard input and output).
 * Returns its process id, or -1.
 */
static pid_t spawn_daemon(int c, const char *daemon, char *base_arg)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t dflt;
	pid_t pid = -1;
	/* --init-timeout: a connection that sends no request is given up
	 * (the ones beyond PENDING_MAX come here unread, and git daemon
	 * would otherwise wait for ever, a process each). */
	char *direct[] = {(char *)daemon,     "--inetd", "--export-all",
			  "--init-timeout=5", base_arg,	 NULL};
	char *front[] = {
	    "git",    "daemon", "--inetd", "--export-all", "--init-timeout=5",
	    base_arg, NULL};

	if (posix_spawn_file_actions_init(&fa))
		return -1;
	if (posix_spawnattr_init(&at)) {
		posix_spawn_file_actions_destroy(&fa);
		return -1;
	}
	/* SIGCHLD is ignored here; git daemon waits for its own children. */
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGCHLD);
	if (!posix_spawn_file_actions_adddup2(&fa, c, 0) &&
	    !posix_spawn_file_actions_adddup2(&fa, c, 1) &&
	    !posix_spawnattr_setsigdefault(&at, &dflt) &&
	    !posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF)) {
		extern char **environ;
		int e = daemon[0]
			    ? posix_spawn(&pid, daemon, &fa, &at, direct, environ)
			    : posix_spawnp(&pid, "git", &fa, &at, front, environ);
		if (e) {
			fprintf(stderr, "catan serve: cannot start git daemon: "
					"%s\n",
				strerror(e));
			pid = -1;
		}
	}
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/*
 * The listener's state. A new connection is pending until its first bytes
 * say what it wants: a watch request (catan's own, spec/replication.md
 * "Waking peers over git://") makes it a watcher, anything else goes to
 * git daemon with its bytes unread. Bounded: PENDING_MAX connections
 * pending (each for PENDING_MS at most), WATCHERS_MAX watchers (each
 * answered within CATAN_WATCH_MS); a watcher beyond is closed, a
 * connection beyond the pending ones goes to git daemon at once (which
 * gives it up after its --init-timeout when it sends nothing).
 */
enum { PENDING_MAX = 32, WATCHERS_MAX = 64, PENDING_MS = 5000 };
enum { REQ_LEN = 33 }; /* "0021catan-watch <16 hex>\n" */
/*
 * A pending connection whose first bytes are only a part of a watch
 * request: its bytes stay unread (git daemon may need them), so poll()
 * would report it readable at once, every round; it is peeked again
 * every PEEK_MS instead.
 */
enum { PEEK_MS = 20 };

typedef struct {
	int fd;
	long long until; /* ms: answered (watcher) or closed (pending) */
	uint64_t digest; /* a watcher's: what it saw */
	bool partial;	 /* pending: a part of a request seen, unread */
	long long again; /* pending and partial: when to peek next */
} conn;

typedef struct {
	const char *base, *daemon;
	char *base_arg;
	bool once, done;
	conn pending[PENDING_MAX], watchers[WATCHERS_MAX];
	int npending, nwatchers;
	int ino; /* inotify on the branches' files, or -1: then a look every
		    POLL_MS while anyone watches */
	int heads_wd; /* its watch of refs/heads (the other: packed-refs) */
	int watch_ms;
	bool have_digest;
	uint64_t digest;
} server;

enum { POLL_MS = 100 };

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void server_init(server *sv, const char *base, const char *daemon,
			char *base_arg, bool once)
{
	memset(sv, 0, sizeof *sv);
	sv->base = base;
	sv->daemon = daemon;
	sv->base_arg = base_arg;
	sv->once = once;
	const char *e = getenv("CATAN_WATCH_MS");
	sv->watch_ms = e && atoi(e) > 0 ? atoi(e) : 25000;
	sv->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	char heads[PATH_MAX + 16];
	snprintf(heads, sizeof heads, "%s/refs/heads", base);
	uint32_t mask = IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE;
	if (sv->ino >= 0 &&
	    (inotify_add_watch(sv->ino, base, mask) < 0 ||
	     (sv->heads_wd = inotify_add_watch(sv->ino, heads, mask)) < 0)) {
		close(sv->ino);
		sv->ino = -1;
	}
}

static void server_free(server *sv)
{
	for (int i = 0; i < sv->npending; i++)
		close(sv->pending[i].fd);
	for (int i = 0; i < sv->nwatchers; i++)
		close(sv->watchers[i].fd);
	if (sv->ino >= 0)
		close(sv->ino);
}

/* Gives c to git daemon (which reads what c sent) and forgets it. */
static void to_daemon(server *sv, int c)
{
	pid_t pid = spawn_daemon(c, sv->daemon, sv->base_arg);
	close(c);
	if (sv->once && pid > 0) {
		int status;
		waitpid(pid, &status, 0);
		sv->done = true;
	}
}

/* Answers watcher i (moved or not) and closes it. */
static void answer(server *sv, int i, bool moved)
{
	char buf[64];
	int n = catan_watch_answer(buf, sizeof buf, moved, sv->digest);
	/* A watcher that does not read its answer loses it, nothing else. */
	ssize_t sent = send(sv->watchers[i].fd, buf, (size_t)n,
			    MSG_DONTWAIT | MSG_NOSIGNAL);
	(void)sent;
	close(sv->watchers[i].fd);
	sv->watchers[i] = sv->watchers[--sv->nwatchers];
}

/* The branches again; every watcher that saw others is answered. */
static void look(server *sv)
{
	uint64_t d;
	if (catan_watch_digest(sv->base, &d))
		return; /* (mid-write: the next event or look tells) */
	sv->digest = d;
	sv->have_digest = true;
	for (int i = sv->nwatchers - 1; i >= 0; i--)
		if (sv->watchers[i].digest != d)
			answer(sv, i, true);
}

/* Pending connection i: its first bytes decide (see server). */
static void classify(server *sv, int i, long long now)
{
	conn *p = &sv->pending[i];
	char buf[REQ_LEN];
	static const char word[] = "0021catan-watch ";
	ssize_t n = recv(p->fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR) && now < p->until)
		return;
	size_t k = n > 0 ? (size_t)n : 0;
	size_t cmp = k < sizeof word - 1 ? k : sizeof word - 1;
	int fd = p->fd;
	long long until = p->until;
	sv->pending[i] = sv->pending[--sv->npending];
	if (n <= 0 || (now >= until && k < REQ_LEN)) {
		close(fd);
	} else if (memcmp(buf, word, cmp)) {
		to_daemon(sv, fd);
	} else if (k < REQ_LEN) {
		sv->pending[sv->npending++] = (conn){.fd = fd,
						     .until = until,
						     .partial = true,
						     .again = now + PEEK_MS};
	} else {
		uint64_t d;
		if (recv(fd, buf, REQ_LEN, MSG_DONTWAIT) != REQ_LEN ||
		    catan_watch_request_parse(buf, REQ_LEN, &d) ||
		    sv->nwatchers == WATCHERS_MAX) {
			close(fd);
			return;
		}
		sv->watchers[sv->nwatchers++] =
		    (conn){.fd = fd, .until = now + sv->watch_ms, .digest = d};
		look(sv);
	}
}

/* Whether an inotify batch names a branch's file or packed-refs. */
static bool branches_touched(const server *sv)
{
	char buf[4096]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	bool any = false;
	ssize_t n;
	while ((n = read(sv->ino, buf, sizeof buf)) > 0)
		for (char *q = buf; q < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)q;
			/* packed-refs in the repository, a branch's file
			 * (not a lock) in refs/heads */
			if (ev->len && (ev->wd == sv->heads_wd
					    ? !strchr(ev->name, '.')
					    : !strcmp(ev->name, "packed-refs")))
				any = true;
			q += sizeof *ev + ev->len;
		}
	return any;
}

/* One wait for something to do, and doing it. -1 when accept fails. */
static int serve_round(server *sv, int lfd)
{
	struct pollfd pf[2 + PENDING_MAX + WATCHERS_MAX];
	int np = 0;
	pf[np++] = (struct pollfd){lfd, POLLIN, 0};
	int ino_at = -1;
	if (sv->ino >= 0) {
		ino_at = np;
		pf[np++] = (struct pollfd){sv->ino, POLLIN, 0};
	}
	int first_pending = np;
	for (int i = 0; i < sv->npending; i++)
		pf[np++] = (struct pollfd){
		    sv->pending[i].fd, sv->pending[i].partial ? 0 : POLLIN, 0};
	int first_watcher = np;
	for (int i = 0; i < sv->nwatchers; i++)
		pf[np++] = (struct pollfd){sv->watchers[i].fd, POLLIN, 0};
	long long now = now_ms(), next = -1;
	for (int i = 0; i < sv->npending; i++) {
		const conn *p = &sv->pending[i];
		long long at =
		    p->partial && p->again < p->until ? p->again : p->until;
		if (next < 0 || at < next)
			next = at;
	}
	for (int i = 0; i < sv->nwatchers; i++)
		if (next < 0 || sv->watchers[i].until < next)
			next = sv->watchers[i].until;
	if (sv->ino < 0 && sv->nwatchers && (next < 0 || now + POLL_MS < next))
		next = now + POLL_MS;
	int ms = next < 0 ? -1 : next > now ? (int)(next - now) : 0;
	int r = poll(pf, (nfds_t)np, ms);
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	now = now_ms();
	/* Watchers first: a closed one goes, a due one hears "same". */
	for (int k = np - 1; k >= first_watcher; k--) {
		int i = k - first_watcher;
		if (pf[k].revents) {
			close(sv->watchers[i].fd);
			sv->watchers[i] = sv->watchers[--sv->nwatchers];
		} else if (now >= sv->watchers[i].until) {
			answer(sv, i, false);
		}
	}
	if ((ino_at >= 0 && pf[ino_at].revents && branches_touched(sv)) ||
	    (sv->ino < 0 && sv->nwatchers))
		look(sv);
	for (int k = first_watcher - 1; k >= first_pending; k--) {
		int i = k - first_pending;
		const conn *p = &sv->pending[i];
		if (pf[k].revents || now >= p->until ||
		    (p->partial && now >= p->again))
			classify(sv, i, now);
	}
	if (pf[0].revents) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			return errno == EINTR || errno == ECONNABORTED ? 0 : -1;
		int on = 1;
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
		if (sv->npending == PENDING_MAX)
			to_daemon(sv, c);
		else
			sv->pending[sv->npending++] =
			    (conn){.fd = c, .until = now + PENDING_MS};
	}
	return 0;
}

int cli_serve(const char *dir, int argc, char **argv)
{
	long port = 9418;
	const char *listen_addr = "127.0.0.1";
	bool once = false;
	char base[PATH_MAX];

	for (int i = 0; i < argc; i++) {
		char *end = NULL;
		if (!strcmp(argv[i], "--port") && i + 1 < argc) {
			port = strtol(argv[++i], &end, 10);
			if (*end || port < 1 || port > 65535) {
				fprintf(stderr, "catan serve: bad port \"%s\"\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--listen") && i + 1 < argc) {
			listen_addr = argv[++i];
		} else if (!strcmp(argv[i], "--once")) {
			once = true;
		} else {
			fprintf(stderr, "catan serve: unknown option \"%s\"\n",
				argv[i]);
			return 2;
		}
	}
	if (!dir || !realpath(dir, base)) {
		fprintf(stderr, "catan serve: say which game with -C DIR\n");
		return 2;
	}
	char daemon[PATH_MAX + 16];
	find_daemon(daemon, sizeof daemon);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in addr;
	memset(&addr, 0, sizeof addr);
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, listen_addr, &addr.sin_addr) != 1) {
		fprintf(stderr, "catan serve: bad address \"%s\"\n", listen_addr);
		return 2;
	}
	int on = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) ||
	    listen(fd, 16)) {
		fprintf(stderr, "catan serve: cannot listen on %s:%ld: %s\n",
			listen_addr, port, strerror(errno));
		return 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGCHLD, SIG_IGN); /* children reap themselves */
	printf("serving %s read-only at git://%s:%ld/\n", base, listen_addr,
	       port);
	fflush(stdout);
	char base_arg[PATH_MAX + 16];
	snprintf(base_arg, sizeof base_arg, "--base-path=%s", base);
	server sv;
	server_init(&sv, base, daemon, base_arg, once);
	while (!stop && !sv.done) {
		if (serve_round(&sv, fd) < 0)
			break;
	}
	server_free(&sv);
	close(fd);
	return 0;
}
