/*
 * hook_run.c - what the pre-receive hook of `catan host-hook install`
 * runs, in its own small program (catan-hook, hook_main.c) and as `catan
 * host-hook run`: git's updates ("OLD NEW REF" lines) on standard input,
 * checked by catan_store_check_push in the repository git names; the
 * reason on standard error and exit status 1 when the push is refused.
 * Uses only the store's public API, so catan-hook links the store and
 * not the window's libraries (a process start is most of a hook's cost).
 */
#define _GNU_SOURCE /* accept4 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "catan/store.h"
#include "hook_run.h"

/* At most this many refs in one push: a game has at most 6 branches. */
#define HOOK_MAX_REFS 64

int cli_hook_check(FILE *in, FILE *say)
{
	static char olds[HOOK_MAX_REFS][48], news[HOOK_MAX_REFS][48],
	    refs[HOOK_MAX_REFS][256];
	const char *o[HOOK_MAX_REFS], *nw[HOOK_MAX_REFS], *r[HOOK_MAX_REFS];
	char line[512];
	int n = 0;
	while (fgets(line, sizeof line, in)) {
		if (n == HOOK_MAX_REFS) {
			fprintf(say,
				"catan: refused: more than %d refs in "
				"one push\n",
				HOOK_MAX_REFS);
			return 1;
		}
		if (sscanf(line, "%47s %47s %255s", olds[n], news[n],
			   refs[n]) != 3) {
			fprintf(say, "catan: refused: cannot read the "
				     "update line from git\n");
			return 1;
		}
		o[n] = olds[n];
		nw[n] = news[n];
		r[n] = refs[n];
		n++;
	}
	catan_store *s = NULL;
	catan_err err;
	catan_verify_report rep;
	if (catan_store_open_ext(&s, NULL, true, &err) ||
	    catan_store_check_push(s, r, o, nw, n, &rep, &err)) {
		fprintf(say, "catan: refused: %s\n", err.msg);
		catan_store_free(s);
		return 1;
	}
	catan_store_free(s);
	if (!rep.ok) {
		fprintf(say, "catan: refused: commit %.10s: %s\n", rep.bad.hex,
			rep.why);
		return 1;
	}
	return 0;
}

int cli_hook_run(void)
{
	return cli_hook_check(stdin, stderr);
}

/* ---- catan host-hook serve ---- */

/* What the client may pass of git's environment (hook_client.c). */
static const char *const passed[] = {
    "GIT_QUARANTINE_PATH",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
};

/* A request: at most this much, read within SERVE_READ_MS. */
#define SERVE_MAX     (65536 + 8192)
#define SERVE_READ_MS 10000

static volatile sig_atomic_t serve_stop;

static void on_signal(int sig)
{
	(void)sig;
	serve_stop = 1;
}

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Reads up to n more bytes into buf + *len before end_ms: 0 at the end
 * of the stream, 1 for bytes, -1 for an error or the time up. */
static int read_some(int fd, char *buf, size_t *len, size_t n, long end_ms)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long left = end_ms - now_ms();
		int pr = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return -1;
		ssize_t r = read(fd, buf + *len, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		*len += (size_t)r;
		return r > 0;
	}
}

/*
 * Reads one request from fd into buf (NUL-terminated), all of it within
 * SERVE_READ_MS (a client trickling bytes holds the server no longer):
 * its length, or -1.
 */
static long read_request(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	long end = now_ms() + SERVE_READ_MS;
	while (len < cap - 1) {
		int r = read_some(fd, buf, &len, cap - 1 - len, end);
		if (r < 0)
			return -1;
		if (r == 0) {
			buf[len] = '\0';
			return (long)len;
		}
	}
	return -1; /* too large */
}

/*
 * One push: the variables of the request set (the others unset), the
 * update lines checked as the hook checks them; the answer, "0" or "1"
 * and the message, into *out (malloc'd, *outlen bytes). An empty body
 * (nothing pushed) passes, as it does for catan-hook.
 */
static void serve_one(char *req, char **out, size_t *outlen)
{
	FILE *say = open_memstream(out, outlen);
	if (!say) {
		*out = NULL;
		return;
	}
	for (size_t i = 0; i < sizeof passed / sizeof *passed; i++)
		unsetenv(passed[i]);
	/* The variables, one per line, up to a blank line; then git's. */
	char *line = req, *body = NULL;
	bool bad = false;
	while (!bad && !body) {
		char *nl = strchr(line, '\n');
		if (!nl) {
			bad = true;
			break;
		}
		if (nl == line) {
			body = nl + 1;
			break;
		}
		*nl = '\0';
		char *eq = strchr(line, '=');
		bad = true;
		for (size_t i = 0; eq && i < sizeof passed / sizeof *passed;
		     i++)
			if ((size_t)(eq - line) == strlen(passed[i]) &&
			    !strncmp(line, passed[i], strlen(passed[i]))) {
				setenv(passed[i], eq + 1, 1);
				bad = false;
			}
		line = nl + 1;
	}
	if (bad) {
		fprintf(say, "1catan: refused: the hook's request does not "
			     "parse\n");
	} else {
		FILE *in = fmemopen(body, strlen(body), "r");
		char *msg = NULL;
		size_t mlen = 0;
		FILE *m = open_memstream(&msg, &mlen);
		int rc = in && m ? cli_hook_check(in, m) : 1;
		if (in)
			fclose(in);
		if (m)
			fclose(m);
		fputc(rc ? '1' : '0', say);
		if (msg)
			fwrite(msg, 1, mlen, say);
		free(msg);
	}
	fclose(say);
}

/* ---- the HTTP requests of catan peers (--http) ---- */

/* A request's header at most this long; its body at most HTTP_BODY_MAX. */
#define HTTP_HEAD_MAX 16384
#define HTTP_BODY_MAX (16 << 20)

/* The push's check (catan_serve_check): the hook's, with the quarantine
 * folder seen as git shows it to a pre-receive hook. */
static int http_check(void *ctx, const char *quarantine, const char *updates,
		      char **message)
{
	const char *dir = ctx;
	char alt[PATH_MAX + 16];
	snprintf(alt, sizeof alt, "%s/objects", dir);
	setenv("GIT_QUARANTINE_PATH", quarantine, 1);
	setenv("GIT_OBJECT_DIRECTORY", quarantine, 1);
	setenv("GIT_ALTERNATE_OBJECT_DIRECTORIES", alt, 1);
	size_t mlen = 0;
	FILE *in = fmemopen((void *)updates, strlen(updates), "r");
	FILE *m = open_memstream(message, &mlen);
	int rc = in && m ? cli_hook_check(in, m) : 1;
	if (in)
		fclose(in);
	if (m)
		fclose(m);
	for (size_t i = 0; i < sizeof passed / sizeof *passed; i++)
		unsetenv(passed[i]);
	return rc;
}

static void http_answer(int c, int status, const char *type, const char *body,
			size_t len)
{
	const char *what = status == 200   ? "OK"
			   : status == 400 ? "Bad Request"
			   : status == 403 ? "Forbidden"
			   : status == 404 ? "Not Found"
			   : status == 413 ? "Payload Too Large"
			   : status == 408 ? "Request Timeout"
			   : status == 502 ? "Bad Gateway"
					   : "Internal Server Error";
	char head[512];
	int k = snprintf(head, sizeof head,
			 "HTTP/1.0 %d %s\r\nContent-Type: %s\r\n"
			 "Content-Length: %zu\r\nCache-Control: no-cache\r\n"
			 "Connection: close\r\n\r\n",
			 status, what, type, len);
	struct iovec v[2] = {{head, (size_t)k}, {(void *)body, body ? len : 0}};
	/* All of it within SERVE_READ_MS too: a client that does not read
	 * its answer holds the server no longer than one that does not send
	 * its request. */
	long end = now_ms() + SERVE_READ_MS;
	fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
	for (int i = 0; i < 2;) {
		ssize_t w = writev(c, v + i, 2 - i);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = {.fd = c, .events = POLLOUT};
			long left = end - now_ms();
			if (left <= 0 || poll(&p, 1, (int)left) < 0) {
				if (left > 0 && errno == EINTR)
					continue;
				return; /* (the time is up) */
			}
			continue;
		}
		if (w <= 0)
			return; /* (the web server went away) */
		for (size_t left = (size_t)w; i < 2 && left;) {
			size_t t = left < v[i].iov_len ? left : v[i].iov_len;
			v[i].iov_base = (char *)v[i].iov_base + t;
			v[i].iov_len -= t;
			left -= t;
			if (!v[i].iov_len)
				i++;
		}
		while (i < 2 && !v[i].iov_len)
			i++;
	}
}

/* A header's value (case-insensitive name) in the header block, into
 * out; false when absent. */
static bool header(const char *head, const char *name, char *out, size_t n)
{
	size_t k = strlen(name);
	for (const char *p = strstr(head, "\r\n"); p; p = strstr(p, "\r\n")) {
		p += 2;
		if (!strncasecmp(p, name, k) && p[k] == ':') {
			const char *v = p + k + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			size_t m = strcspn(v, "\r\n");
			if (m >= n)
				return false;
			memcpy(out, v, m);
			out[m] = '\0';
			return true;
		}
	}
	return false;
}

/*
 * One HTTP/1.0 request of the web server in front (nginx's proxy_pass):
 * POST .../git-upload-pack or .../git-receive-pack with a
 * Content-Length, the login in X-Catan-User; all of it within
 * SERVE_READ_MS. The answer, then the connection closed.
 */
static void serve_http(int c, const char *dir, catan_store *s)
{
	static char head[HTTP_HEAD_MAX + 1];
	size_t hl = 0;
	long end = now_ms() + SERVE_READ_MS;
	char *body_start = NULL;
	while (!body_start) {
		if (hl == HTTP_HEAD_MAX) {
			http_answer(c, 413, "text/plain", "header too long\n",
				    16);
			return;
		}
		if (read_some(c, head, &hl, HTTP_HEAD_MAX - hl, end) <= 0) {
			http_answer(c, 408, "text/plain", "no whole request\n",
				    17);
			return;
		}
		head[hl] = '\0';
		body_start = strstr(head, "\r\n\r\n");
	}
	body_start[2] = '\0'; /* (the header block ends with its \r\n) */
	body_start += 4;
	size_t have = hl - (size_t)(body_start - head);
	char method[8], path[512], len_s[24], user[256] = "";
	unsigned long long clen = 0;
	char *end_num = NULL;
	if (sscanf(head, "%7s %511s HTTP/1.", method, path) != 2 ||
	    strcmp(method, "POST") ||
	    !header(head, "Content-Length", len_s, sizeof len_s) ||
	    (clen = strtoull(len_s, &end_num, 10), *end_num || !*len_s)) {
		http_answer(c, 400, "text/plain",
			    "a POST with a Content-Length only\n", 34);
		return;
	}
	header(head, "X-Catan-User", user, sizeof user);
	size_t pl = strlen(path);
	bool upload = pl >= 16 && !strcmp(path + pl - 16, "/git-upload-pack");
	bool receive = pl >= 17 && !strcmp(path + pl - 17, "/git-receive-pack");
	if (!upload && !receive) {
		http_answer(c, 404, "text/plain", "no such service\n", 16);
		return;
	}
	if (clen > HTTP_BODY_MAX || have > clen) {
		http_answer(c, 413, "text/plain", "request too large\n", 18);
		return;
	}
	if (receive && !user[0]) {
		http_answer(c, 403, "text/plain",
			    "pushes need a login (X-Catan-User)\n", 35);
		return;
	}
	char *body = malloc(clen + 1);
	if (!body) {
		http_answer(c, 500, "text/plain", "out of memory\n", 14);
		return;
	}
	memcpy(body, body_start, have);
	size_t got = have;
	while (got < clen)
		if (read_some(c, body, &got, clen - got, end) <= 0) {
			free(body);
			http_answer(c, 408, "text/plain", "no whole request\n",
				    17);
			return;
		}
	char *out = NULL;
	size_t outlen = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int status =
	    upload ? catan_store_serve_upload(s, body, clen, &out, &outlen)
		   : catan_store_serve_receive(s, user, body, clen, http_check,
					       (void *)dir, &out, &outlen);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("CATAN_HOOK_TIMING"))
		fprintf(stderr, "%s served in %ld us\n",
			upload ? "git-upload-pack" : "git-receive-pack",
			(t1.tv_sec - t0.tv_sec) * 1000000L +
			    (t1.tv_nsec - t0.tv_nsec) / 1000);
	free(body);
	http_answer(c, status,
		    upload ? "application/x-git-upload-pack-result"
			   : "application/x-git-receive-pack-result",
		    out, outlen);
	free(out);
}

/* A socket listening at DIR/name (mode 0700): its fd, or -1 with the
 * reason on standard error. */
static int listen_at(const char *dir, const char *name, struct sockaddr_un *a)
{
	memset(a, 0, sizeof *a);
	a->sun_family = AF_UNIX;
	if ((size_t)snprintf(a->sun_path, sizeof a->sun_path, "%s/%s", dir,
			     name) >= sizeof a->sun_path) {
		fprintf(stderr,
			"catan host-hook serve: the path %s/%s is too long "
			"for a socket\n",
			dir, name);
		return -1;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)a, sizeof *a) == 0) {
		fprintf(stderr,
			"catan host-hook serve: %s is served already (%s)\n",
			dir, a->sun_path);
		close(fd);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	unlink(a->sun_path); /* (a socket nobody listens on any more) */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	mode_t mask = umask(077); /* (only the repository's owner connects) */
	int bound = fd >= 0 ? bind(fd, (struct sockaddr *)a, sizeof *a) : -1;
	umask(mask);
	if (bound || listen(fd, 16)) {
		fprintf(stderr, "catan host-hook serve: %s: %s\n", a->sun_path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* One push's check over the hook's socket. */
static void serve_hook(int c)
{
	static char req[SERVE_MAX];
	long len = read_request(c, req, sizeof req);
	char *out = NULL;
	size_t outlen = 0;
	if (len < 0) {
		static const char no[] = "1catan: refused: the hook's request "
					 "was too large or too slow\n";
		(void)!write(c, no, sizeof no - 1);
		return;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	serve_one(req, &out, &outlen);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (getenv("CATAN_HOOK_TIMING"))
		fprintf(stderr, "served in %ld us\n",
			(t1.tv_sec - t0.tv_sec) * 1000000L +
			    (t1.tv_nsec - t0.tv_nsec) / 1000);
	for (size_t off = 0; out && off < outlen;) {
		ssize_t w = write(c, out + off, outlen - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(out);
}

/*
 * The served repository, read-only. Opened once for writing first, which
 * does what `catan host-hook install` does to it: the branches a fresh
 * game lacks made at the genesis (so that each seat's first push is a
 * forward move the check can judge), and the genesis recorded in its
 * configuration (catan.genesis), which every check's open then reads
 * instead of walking the whole history to find it.
 */
static int open_served(catan_store **s, const char *dir, bool http,
		       catan_err *err)
{
	catan_store *w = NULL;
	if (http && catan_store_open_ext(&w, dir, false, err) == 0) {
		if (catan_store_fill_branches(w, err))
			fprintf(stderr, "catan host-hook serve: %s: %s\n", dir,
				err->msg);
		catan_store_free(w);
	}
	return catan_store_open_ext(s, dir, true, err);
}

int cli_hook_serve(const char *bare, bool http)
{
	char dir[PATH_MAX];
	if (!realpath(bare, dir)) {
		fprintf(stderr, "catan host-hook serve: %s: %s\n", bare,
			strerror(errno));
		return 1;
	}
	struct sockaddr_un a, ha;
	int fd = listen_at(dir, "catan-hook.sock", &a);
	int hfd = fd >= 0 && http ? listen_at(dir, "catan-http.sock", &ha) : -1;
	if (fd < 0 || (http && hfd < 0)) {
		if (fd >= 0) {
			close(fd);
			unlink(a.sun_path);
		}
		return 1;
	}
	/*
	 * A game repository, as the hook will open it; kept open while this
	 * serves, which keeps libgit2 started (freeing the last handle would
	 * shut it down, and every push would start it again: a third of the
	 * cost of a check). Opened after the sockets are taken: a second
	 * server stops there, before it touches the repository.
	 */
	catan_store *s = NULL;
	catan_err err;
	if (open_served(&s, dir, http, &err)) {
		/* With --http, a repository the game is not pushed to yet is
		 * served from its first push on (until then the web server
		 * hands everything to git). */
		char objects[PATH_MAX + 16];
		struct stat st;
		snprintf(objects, sizeof objects, "%s/objects", dir);
		if (!http || stat(objects, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "catan host-hook serve: %s: %s\n", dir,
				err.msg);
			close(fd);
			unlink(a.sun_path);
			if (hfd >= 0) {
				close(hfd);
				unlink(ha.sun_path);
			}
			return 1;
		}
		fprintf(stderr,
			"catan host-hook serve: %s holds no game yet: peers' "
			"requests go to git until it does\n",
			dir);
		s = NULL;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	setenv("GIT_DIR", dir, 1);
	int rc = 0;
	if (chdir(dir)) {
		fprintf(stderr, "catan host-hook serve: %s: %s\n", dir,
			strerror(errno));
		rc = 1;
		serve_stop = 1;
	} else if (http) {
		printf("serving the checks of pushes to %s (%s), and catan "
		       "peers' fetches and pushes (%s)\n",
		       dir, a.sun_path, ha.sun_path);
	} else {
		printf("serving the checks of pushes to %s (%s)\n", dir,
		       a.sun_path);
	}
	fflush(stdout);
	while (!serve_stop) {
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN},
				      {.fd = hfd, .events = POLLIN}};
		if (poll(p, http ? 2 : 1, -1) < 0) {
			if (errno != EINTR)
				poll(NULL, 0, 100);
			continue;
		}
		for (int k = 0; k < (http ? 2 : 1); k++) {
			if (!(p[k].revents & POLLIN))
				continue;
			int c = accept4(p[k].fd, NULL, NULL, SOCK_CLOEXEC);
			if (c < 0) {
				/* (out of files: a breath before the next
				 * try) */
				if (errno != EINTR && errno != EAGAIN)
					poll(NULL, 0, 100);
				continue;
			}
			if (k == 0)
				serve_hook(c);
			else if (s || open_served(&s, dir, http, &err) == 0)
				serve_http(c, dir, s);
			else /* (no game here yet: nginx hands it to git) */
				http_answer(c, 502, "text/plain",
					    "no game here yet\n", 17);
			close(c);
		}
	}
	close(fd);
	unlink(a.sun_path);
	if (hfd >= 0) {
		close(hfd);
		unlink(ha.sun_path);
	}
	catan_store_free(s);
	return rc;
}
