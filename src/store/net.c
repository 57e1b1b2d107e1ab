/*
 * net.c - the TCP connections libgit2 makes for git://, ssh:// and
 * http(s):// remotes, with time limits.
 *
 * libgit2 1.5 (Debian 12) connects with a plain blocking connect() and
 * reads with a plain blocking recv(): a peer whose link goes silent (no
 * RST, just nothing) holds a fetch for the kernel's SYN timeout when
 * connecting, and for ever once connected. A peer stuck in such a fetch
 * cannot play. This file registers our own standard stream in its place
 * (git_stream_register, GIT_STREAM_STANDARD), which
 *   - looks the host's name up on a thread of its own and stops waiting
 *     after CATAN_RESOLVE_TIMEOUT_MS (5,000 ms unless set);
 *   - connects without blocking and gives up after CATAN_CONNECT_TIMEOUT_MS
 *     (1,000 ms unless set), trying each address the name resolves to;
 *   - sets SO_RCVTIMEO and SO_SNDTIMEO to CATAN_IO_TIMEOUT_MS (15,000 ms
 *     unless set): a connection on which nothing moves for that long is
 *     given up, with an error naming the host and port;
 *   - gives a connection CATAN_NET_DEADLINE_MS in all (120,000 ms unless
 *     set), so that a peer trickling a byte now and then cannot hold a
 *     fetch either (a whole game is a few hundred kilobytes);
 *   - sets TCP_NODELAY: the git protocol sends small packets and waits for
 *     the answer, which Nagle's algorithm would delay.
 *
 * Over ssh:// libssh2 moves the bytes itself: it makes the descriptor
 * non-blocking and waits in its own poll(), with no time limit as libgit2
 * 1.5 sets it up, so neither the socket's timeouts nor our read and write
 * see a silent server. One watcher thread, running while any connection is
 * open, therefore looks at each every few milliseconds and cuts it
 * (shutdown(), which wakes any poll on it) when the kernel says no data
 * went either way for CATAN_IO_TIMEOUT_MS (TCP_INFO), or its deadline has
 * passed; the reason is kept for the error message (store_net_cut).
 *
 * The first four members of `net_stream` are laid out as libgit2's own
 * git_socket_stream (the stream, host, port, descriptor): libgit2's ssh
 * transport reads the descriptor from there to hand it to libssh2. The
 * ssh test (tests/cli/test_ssh.sh) fails if that ever stops holding.
 */
#define _DEFAULT_SOURCE /* struct tcp_info */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/stream.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "net.h"

typedef struct net_stream_ {
	git_stream parent;
	char *host;
	char *port;
	int s;
	/* ours from here on */
	int connect_ms, io_ms, deadline_ms;
	long long until; /* CLOCK_MONOTONIC ms after which nothing goes */
	atomic_int cut;	 /* CUT_IDLE or CUT_DEADLINE once the watcher cut it */
	struct net_stream_ *next; /* in the watcher's list while connected */
} net_stream;

enum { CUT_IDLE = 1, CUT_DEADLINE = 2 };

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Why a connection was given up, as the error messages say it. */
static void cut_why(char *buf, size_t n, const net_stream *st, int why)
{
	if (why == CUT_DEADLINE)
		snprintf(buf, n,
			 "%s port %s: the connection took longer than %d ms "
			 "in all, giving up on it",
			 st->host, st->port, st->deadline_ms);
	else
		snprintf(buf, n,
			 "%s port %s: nothing moved for %d ms, giving up on "
			 "the connection",
			 st->host, st->port, st->io_ms);
}

static void remember_cut(const char *why);

/*
 * 0 while the connection is within its deadline, else -1 and the error,
 * kept for store_net_cut too: over https the TLS layer between libgit2
 * and this stream replaces our error with its own ("SSL error").
 */
static int in_time(net_stream *st)
{
	char why[600];
	int cut = atomic_load(&st->cut);
	if (!cut && now_ms() <= st->until)
		return 0;
	cut_why(why, sizeof why, st, cut ? cut : CUT_DEADLINE);
	git_error_set(GIT_ERROR_NET, "%s", why);
	remember_cut(why);
	return -1;
}

/* ---- the watcher ---- */

static pthread_mutex_t watch_mu = PTHREAD_MUTEX_INITIALIZER;
static net_stream *watched;   /* the open connections */
static bool watcher_running;  /* (exits when the list is empty) */
static char last_cut[600];    /* why the watcher last cut one */

/* Cuts st when it is past its deadline or idle too long; holds watch_mu. */
static void watch_one(net_stream *st, long long now)
{
	int why = 0;
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	if (now > st->until)
		why = CUT_DEADLINE;
	else if (getsockopt(st->s, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
		 len >= offsetof(struct tcp_info, tcpi_last_ack_recv) &&
		 ti.tcpi_last_data_recv > (unsigned)st->io_ms &&
		 ti.tcpi_last_data_sent > (unsigned)st->io_ms)
		why = CUT_IDLE;
	if (!why || atomic_load(&st->cut))
		return;
	atomic_store(&st->cut, why);
	cut_why(last_cut, sizeof last_cut, st, why);
	shutdown(st->s, SHUT_RDWR);
}

static void *watch(void *arg)
{
	(void)arg;
	for (;;) {
		int tick = 250;
		pthread_mutex_lock(&watch_mu);
		if (!watched) {
			watcher_running = false;
			pthread_mutex_unlock(&watch_mu);
			return NULL;
		}
		long long now = now_ms();
		for (net_stream *st = watched; st; st = st->next) {
			watch_one(st, now);
			int t = (st->io_ms < st->deadline_ms ? st->io_ms
							      : st->deadline_ms) /
				8;
			if (t < tick)
				tick = t < 5 ? 5 : t;
		}
		pthread_mutex_unlock(&watch_mu);
		nanosleep(&(struct timespec){tick / 1000,
					     (tick % 1000) * 1000000L},
			  NULL);
	}
}

static void watch_add(net_stream *st)
{
	pthread_mutex_lock(&watch_mu);
	st->next = watched;
	watched = st;
	if (!watcher_running) {
		pthread_t t;
		pthread_attr_t a;
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		watcher_running = pthread_create(&t, &a, watch, NULL) == 0;
		pthread_attr_destroy(&a);
	}
	pthread_mutex_unlock(&watch_mu);
}

/* Takes st off the list: after this the watcher never touches it. */
static void watch_remove(net_stream *st)
{
	pthread_mutex_lock(&watch_mu);
	for (net_stream **p = &watched; *p; p = &(*p)->next)
		if (*p == st) {
			*p = st->next;
			break;
		}
	pthread_mutex_unlock(&watch_mu);
}

static void remember_cut(const char *why)
{
	pthread_mutex_lock(&watch_mu);
	snprintf(last_cut, sizeof last_cut, "%s", why);
	pthread_mutex_unlock(&watch_mu);
}

void store_net_cut_forget(void)
{
	pthread_mutex_lock(&watch_mu);
	last_cut[0] = '\0';
	pthread_mutex_unlock(&watch_mu);
}

bool store_net_cut(char *buf, size_t n)
{
	pthread_mutex_lock(&watch_mu);
	bool any = last_cut[0] != '\0';
	if (any)
		snprintf(buf, n, "%s", last_cut);
	pthread_mutex_unlock(&watch_mu);
	return any;
}

static int env_ms(const char *name, int dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	char *end;
	long ms = strtol(v, &end, 10);
	return *end || ms <= 0 || ms > 3600000 ? dflt : (int)ms;
}

/* Connects fd to ai within ms; 0 on success, else an errno value. */
static int connect_within(int fd, const struct addrinfo *ai, int ms)
{
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return errno;
	int e = 0;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		if (errno != EINPROGRESS)
			return errno;
		struct pollfd pfd = {fd, POLLOUT, 0};
		int r;
		do
			r = poll(&pfd, 1, ms);
		while (r < 0 && errno == EINTR);
		if (r == 0)
			return ETIMEDOUT;
		socklen_t sl = sizeof e;
		if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &sl))
			return errno ? errno : EIO;
		if (e)
			return e;
	}
	return fcntl(fd, F_SETFL, flags) < 0 ? errno : 0;
}

/*
 * A name looked up on a thread of its own, so that the caller can stop
 * waiting: getaddrinfo has no time limit of ours (the resolver's own,
 * resolv.conf's timeout times attempts times servers, can be a minute).
 * Whoever of the two lets go of it last frees it.
 */
typedef struct lookup {
	pthread_mutex_t mx;
	pthread_cond_t cv;
	int refs; /* 2 while both hold it */
	bool done;
	int gai;
	struct addrinfo *res;
	char *host, *port;
} lookup;

static void lookup_release(lookup *l)
{
	/* Called with l->mx held; unlocks it. */
	bool last = --l->refs == 0;
	pthread_mutex_unlock(&l->mx);
	if (!last)
		return;
	if (l->res)
		freeaddrinfo(l->res);
	pthread_cond_destroy(&l->cv);
	pthread_mutex_destroy(&l->mx);
	free(l->host);
	free(l->port);
	free(l);
}

static void *lookup_run(void *arg)
{
	lookup *l = arg;
	struct addrinfo hints, *res = NULL;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	int gai = getaddrinfo(l->host, l->port, &hints, &res);
	pthread_mutex_lock(&l->mx);
	l->gai = gai;
	l->res = gai ? NULL : res;
	l->done = true;
	pthread_cond_signal(&l->cv);
	lookup_release(l);
	return NULL;
}

/*
 * host:port's addresses within ms (CATAN_RESOLVE_TIMEOUT_MS): 0 and *res,
 * or -1 with the reason set as libgit2's error. An address written as
 * numbers needs no lookup.
 */
static int resolve(const char *host, const char *port, int ms,
		   struct addrinfo **res)
{
	struct addrinfo hints;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(host, port, &hints, res) == 0)
		return 0;
	lookup *l = calloc(1, sizeof *l);
	pthread_t t;
	pthread_attr_t attr;
	if (!l || !(l->host = strdup(host)) || !(l->port = strdup(port)) ||
	    pthread_mutex_init(&l->mx, NULL)) {
		if (l) {
			free(l->host);
			free(l->port);
		}
		free(l);
		git_error_set(GIT_ERROR_NET, "cannot resolve %s: %s", host,
			      strerror(ENOMEM));
		return -1;
	}
	pthread_cond_init(&l->cv, NULL);
	l->refs = 2;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	int e = pthread_create(&t, &attr, lookup_run, l);
	pthread_attr_destroy(&attr);
	pthread_mutex_lock(&l->mx);
	if (e) {
		l->refs = 1;
		lookup_release(l);
		git_error_set(GIT_ERROR_NET, "cannot resolve %s: %s", host,
			      strerror(e));
		return -1;
	}
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (long)(ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	while (!l->done &&
	       pthread_cond_timedwait(&l->cv, &l->mx, &until) != ETIMEDOUT)
		;
	int rc = 0;
	if (!l->done) {
		git_error_set(GIT_ERROR_NET, "cannot resolve %s within %d ms",
			      host, ms);
		rc = -1;
	} else if (l->gai) {
		git_error_set(GIT_ERROR_NET, "cannot resolve %s: %s", host,
			      gai_strerror(l->gai));
		rc = -1;
	} else {
		*res = l->res;
		l->res = NULL;
	}
	lookup_release(l);
	return rc;
}

/*
 * A TCP connection to host:port within connect_ms (after the name's
 * lookup, within resolve_ms), with TCP_NODELAY and send and receive
 * timeouts of io_ms: its descriptor, or -1 and the reason set as
 * libgit2's error.
 */
static int dial(const char *host, const char *port, int connect_ms, int io_ms)
{
	struct addrinfo *res = NULL;
	if (resolve(host, port, env_ms("CATAN_RESOLVE_TIMEOUT_MS", 5000), &res))
		return -1;
	int e = EHOSTUNREACH, s = -1;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
				ai->ai_protocol);
		if (fd < 0) {
			e = errno;
			continue;
		}
		e = connect_within(fd, ai, connect_ms);
		if (e == 0) {
			s = fd;
			break;
		}
		close(fd);
	}
	freeaddrinfo(res);
	if (s < 0) {
		if (e == ETIMEDOUT)
			git_error_set(GIT_ERROR_NET,
				      "no answer from %s port %s within %d ms",
				      host, port, connect_ms);
		else
			git_error_set(GIT_ERROR_NET,
				      "cannot connect to %s port %s: %s", host,
				      port, strerror(e));
		return -1;
	}
	int one = 1;
	struct timeval tv = {io_ms / 1000, (io_ms % 1000) * 1000};
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	return s;
}

int store_net_dial(const char *host, const char *port, int *io_ms)
{
	*io_ms = env_ms("CATAN_IO_TIMEOUT_MS", 15000);
	return dial(host, port, env_ms("CATAN_CONNECT_TIMEOUT_MS", 1000),
		    *io_ms);
}

static int net_connect(git_stream *stream)
{
	net_stream *st = (net_stream *)stream;
	st->s = dial(st->host, st->port, st->connect_ms, st->io_ms);
	if (st->s < 0)
		return -1;
	st->until = now_ms() + st->deadline_ms;
	watch_add(st);
	return 0;
}

static void stalled(net_stream *st, const char *what)
{
	if (errno == EAGAIN || errno == EWOULDBLOCK) {
		char why[600];
		snprintf(why, sizeof why,
			 "%s %s port %s: nothing moved for %d ms, giving up "
			 "on the connection",
			 what, st->host, st->port, st->io_ms);
		git_error_set(GIT_ERROR_NET, "%s", why);
		remember_cut(why);
	} else
		git_error_set(GIT_ERROR_NET, "%s %s port %s: %s", what,
			      st->host, st->port, strerror(errno));
}

static ssize_t net_read(git_stream *stream, void *data, size_t len)
{
	net_stream *st = (net_stream *)stream;
	ssize_t r;
	if (in_time(st))
		return -1;
	do
		r = recv(st->s, data, len, 0);
	while (r < 0 && errno == EINTR);
	if (r <= 0 && atomic_load(&st->cut))
		return in_time(st); /* the watcher cut it: say why */
	if (r < 0)
		stalled(st, "reading from");
	return r;
}

static ssize_t net_write(git_stream *stream, const char *data, size_t len,
			 int flags)
{
	net_stream *st = (net_stream *)stream;
	ssize_t r;
	(void)flags;
	if (in_time(st))
		return -1;
	do
		r = send(st->s, data, len, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0 && atomic_load(&st->cut))
		return in_time(st);
	if (r < 0)
		stalled(st, "writing to");
	return r;
}

static int net_close(git_stream *stream)
{
	net_stream *st = (net_stream *)stream;
	int r = 0;
	if (st->s >= 0) {
		watch_remove(st);
		r = close(st->s);
	}
	st->s = -1;
	return r;
}

static void net_free(git_stream *stream)
{
	net_stream *st = (net_stream *)stream;
	if (!st)
		return;
	net_close(stream);
	free(st->host);
	free(st->port);
	free(st);
}

static int net_init(git_stream **out, const char *host, const char *port)
{
	net_stream *st = calloc(1, sizeof *st);
	if (!st || !(st->host = strdup(host)) || !(st->port = strdup(port))) {
		if (st)
			free(st->host);
		free(st);
		git_error_set_oom();
		return -1;
	}
	st->s = -1;
	st->connect_ms = env_ms("CATAN_CONNECT_TIMEOUT_MS", 1000);
	st->io_ms = env_ms("CATAN_IO_TIMEOUT_MS", 15000);
	st->deadline_ms = env_ms("CATAN_NET_DEADLINE_MS", 120000);
	st->parent.version = GIT_STREAM_VERSION;
	st->parent.connect = net_connect;
	st->parent.read = net_read;
	st->parent.write = net_write;
	st->parent.close = net_close;
	st->parent.free = net_free;
	*out = &st->parent;
	return 0;
}

int store_net_register(void)
{
	git_stream_registration reg = {GIT_STREAM_VERSION, net_init, NULL};
	return git_stream_register(GIT_STREAM_STANDARD, &reg);
}
