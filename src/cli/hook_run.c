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
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long left = end - now_ms();
		int pr = left > 0 ? poll(&p, 1, (int)left) : 0;
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return -1;
		ssize_t r = read(fd, buf + len, cap - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			buf[len] = '\0';
			return (long)len;
		}
		len += (size_t)r;
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

int cli_hook_serve(const char *bare)
{
	char dir[PATH_MAX];
	if (!realpath(bare, dir)) {
		fprintf(stderr, "catan host-hook serve: %s: %s\n", bare,
			strerror(errno));
		return 1;
	}
	/*
	 * A game repository, as the hook will open it; kept open while this
	 * serves, which keeps libgit2 started (freeing the last handle would
	 * shut it down, and every push would start it again: a third of the
	 * cost of a check).
	 */
	catan_store *s = NULL;
	catan_err err;
	if (catan_store_open_ext(&s, dir, true, &err)) {
		fprintf(stderr, "catan host-hook serve: %s: %s\n", dir,
			err.msg);
		return 1;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if ((size_t)snprintf(a.sun_path, sizeof a.sun_path,
			     "%s/catan-hook.sock", dir) >= sizeof a.sun_path) {
		fprintf(stderr,
			"catan host-hook serve: the path %s/catan-hook.sock "
			"is too long for a socket\n",
			dir);
		catan_store_free(s);
		return 1;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) {
		fprintf(stderr,
			"catan host-hook serve: %s is served already (%s)\n",
			dir, a.sun_path);
		close(fd);
		catan_store_free(s);
		return 1;
	}
	if (fd >= 0)
		close(fd);
	unlink(a.sun_path); /* (a socket nobody listens on any more) */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	mode_t mask = umask(077); /* (only the repository's owner connects) */
	int bound = fd >= 0 ? bind(fd, (struct sockaddr *)&a, sizeof a) : -1;
	umask(mask);
	if (bound || listen(fd, 16)) {
		fprintf(stderr, "catan host-hook serve: %s: %s\n", a.sun_path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		catan_store_free(s);
		return 1;
	}
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	setenv("GIT_DIR", dir, 1);
	if (chdir(dir)) {
		fprintf(stderr, "catan host-hook serve: %s: %s\n", dir,
			strerror(errno));
		close(fd);
		unlink(a.sun_path);
		catan_store_free(s);
		return 1;
	}
	printf("serving the checks of pushes to %s (%s)\n", dir, a.sun_path);
	fflush(stdout);
	static char req[SERVE_MAX];
	while (!serve_stop) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			/* (EINTR: a signal, seen above; else out of files:
			 * a breath before the next try) */
			if (errno != EINTR)
				poll(NULL, 0, 100);
			continue;
		}
		long len = read_request(c, req, sizeof req);
		char *out = NULL;
		size_t outlen = 0;
		if (len < 0) {
			static const char no[] =
			    "1catan: refused: the hook's request was too "
			    "large or too slow\n";
			(void)!write(c, no, sizeof no - 1);
		} else {
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
		close(c);
	}
	close(fd);
	unlink(a.sun_path);
	catan_store_free(s);
	return 0;
}
