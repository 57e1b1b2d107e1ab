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
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

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
	char *direct[] = {(char *)daemon, "--inetd", "--export-all", base_arg,
			  NULL};
	char *front[] = {"git",	 "daemon",	   "--inetd",
			 "--export-all", base_arg, NULL};

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
	while (!stop) {
		int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "catan serve: accept: %s\n",
				strerror(errno));
			break;
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
		pid_t pid = spawn_daemon(c, daemon, base_arg);
		close(c);
		if (once && pid > 0) {
			int status;
			waitpid(pid, &status, 0);
			break;
		}
	}
	close(fd);
	return 0;
}
