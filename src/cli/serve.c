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
 */
#define _XOPEN_SOURCE 700

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
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
	int fd = socket(AF_INET, SOCK_STREAM, 0);
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
		int c = accept(fd, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "catan serve: accept: %s\n",
				strerror(errno));
			break;
		}
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
		pid_t pid = fork();
		if (pid == 0) {
			/* git daemon waits for its own children. */
			signal(SIGCHLD, SIG_DFL);
			close(fd);
			dup2(c, 0);
			dup2(c, 1);
			close(c);
			char *args[] = {"git", "daemon", "--inetd",
					"--export-all", base_arg, NULL};
			execvp("git", args);
			_exit(127);
		}
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
