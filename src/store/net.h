/*
 * net.h - layer 1 (leaves): the transports under libgit2. net.c replaces
 * libgit2's TCP stream with one that has connect and I/O time limits;
 * ssh.c supplies the keys and the host-key check for ssh:// remotes.
 * Uses only base.h; used by repo.c (registering the stream) and fetch.c.
 */
#ifndef CATAN_STORE_NET_H
#define CATAN_STORE_NET_H

#include <git2.h>

#include "base.h"

/*
 * ssh:// remotes (ssh.c): keys to log in with and the host-key check that
 * libgit2 1.5 leaves to its caller. Fill a git_remote_callbacks with
 * store_ssh_callbacks(cb, &st, url) before connecting; on failure,
 * store_ssh_fail names what ssh refused, or libgit2's error otherwise.
 */
typedef struct store_ssh {
	int next; /* the next kind of key to offer */
	int port;
	char tried[256];
	char why[1024];
} store_ssh;
void store_ssh_callbacks(git_remote_callbacks *cb, store_ssh *st,
			 const char *url);
int store_ssh_fail(const store_ssh *st, catan_err *err, const char *what);
/* 0 when known_hosts holds this raw key for host:port, else -1 and why. */
int store_ssh_check_host(store_ssh *st, const char *host, int port,
			 int raw_type, const char *key, size_t len);

/* Registers the TCP stream with connect and I/O time limits (net.c) in
 * place of libgit2's own; call after each git_libgit2_init(). */
int store_net_register(void);
/*
 * Why the watcher of net.c last cut a connection (idle or past its
 * deadline, naming host and port): true and copied into buf when it has
 * since store_net_cut_forget. For the transports that bypass our reads
 * (ssh: libssh2 reports only that the socket closed).
 */
void store_net_cut_forget(void);
bool store_net_cut(char *buf, size_t n);

#endif
