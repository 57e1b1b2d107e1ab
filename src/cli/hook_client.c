/*
 * hook_client.c - catan-hook-client: the pre-receive hook `catan host-hook
 * install` links into a bare repository. It hands git's update lines and
 * the object directories git names (the quarantine of the push) to `catan
 * host-hook serve` over the repository's socket (catan-hook.sock), which
 * checks them in a process that is already running, and says what it
 * answered. When nothing serves the repository it runs catan-hook (the
 * same check, started for this push), as hooks/catan-hook-path names it.
 * libc only: starting this program is what every push pays.
 *
 * The request: "NAME=VALUE" lines for the variables below that are set,
 * a blank line, then git's update lines; the client then shuts its side.
 * The answer: "0" (taken) or "1" (refused), then what to show the pusher.
 * A server that stops answering, or answers anything else, refuses the
 * push: a check that did not run never lets a push through.
 */
#define _GNU_SOURCE

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* What the server may need of git's environment. */
static const char *const passed[] = {
    "GIT_QUARANTINE_PATH",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
};

/* Every wait for the server: its check of a push is bounded anyway. */
#define WAIT_MS 60000

/* At most this much of git's update lines (a game has six branches). */
#define UPDATES_MAX 65536

/*
 * Nothing serves this repository: the check in a process of its own. The
 * program is the one hooks/catan-hook-path names (catan host-hook install
 * writes it: a path, then one argument per line); a hook that cannot run
 * it refuses the push.
 */
static void run_fallback(const char *dir)
{
	static char text[PATH_MAX + 64], path[PATH_MAX + 32];
	char *args[4] = {NULL};
	snprintf(path, sizeof path, "%s/hooks/catan-hook-path", dir);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
	if (f)
		fclose(f);
	text[n] = '\0';
	int k = 0;
	for (char *line = strtok(text, "\n"); line && k < 3;
	     line = strtok(NULL, "\n"))
		args[k++] = line;
	if (k == 0) {
		fprintf(stderr, "catan: refused: cannot read %s\n", path);
		exit(1);
	}
	execv(args[0], args);
	fprintf(stderr, "catan: refused: cannot run %s: %s\n", args[0],
		strerror(errno));
	exit(1);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int main(void)
{
	const char *dir = getenv("GIT_DIR");
	if (!dir || !*dir)
		dir = ".";
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	if ((size_t)snprintf(a.sun_path, sizeof a.sun_path,
			     "%s/catan-hook.sock", dir) >= sizeof a.sun_path)
		run_fallback(dir);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) {
		if (fd >= 0)
			close(fd);
		run_fallback(dir); /* nothing serves this repository */
	}
	/* The request: the variables, a blank line, git's lines. */
	static char buf[UPDATES_MAX + 8192];
	size_t len = 0;
	for (size_t i = 0; i < sizeof passed / sizeof *passed; i++) {
		const char *v = getenv(passed[i]);
		if (!v)
			continue;
		int k = snprintf(buf + len, sizeof buf - len, "%s=%s\n",
				 passed[i], v);
		if (k < 0 || (size_t)k >= sizeof buf - len - 1) {
			fprintf(stderr, "catan: refused: %s is too long\n",
				passed[i]);
			return 1;
		}
		len += (size_t)k;
	}
	buf[len++] = '\n';
	size_t start = len;
	for (;;) {
		ssize_t r = read(0, buf + len, sizeof buf - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr,
				"catan: refused: reading git's "
				"updates: %s\n",
				strerror(errno));
			return 1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len - start > UPDATES_MAX) {
			fprintf(stderr,
				"catan: refused: more than %d bytes of "
				"updates in one push\n",
				UPDATES_MAX);
			return 1;
		}
	}
	if (write_all(fd, buf, len) || shutdown(fd, SHUT_WR)) {
		fprintf(stderr, "catan: refused: the check (catan host-hook "
				"serve) did not take the push\n");
		return 1;
	}
	/* The answer, up to end of file. */
	static char ans[8192];
	size_t got = 0;
	while (got < sizeof ans - 1) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int pr = poll(&p, 1, WAIT_MS);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			break;
		ssize_t r = read(fd, ans + got, sizeof ans - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	ans[got] = '\0';
	if (got == 0 || (ans[0] != '0' && ans[0] != '1')) {
		fprintf(stderr, "catan: refused: the check (catan host-hook "
				"serve) gave no answer\n");
		return 1;
	}
	if (got > 1)
		fputs(ans + 1, stderr);
	return ans[0] == '0' ? 0 : 1;
}
