/*
 * net.h - layer 1 (leaves): the transports under libgit2. net.c replaces
 * libgit2's TCP stream with one that has connect and I/O time limits;
 * ssh.c supplies the keys and the host-key check for ssh:// remotes.
 * http*.c do what https remotes need (http.h); remote.c reads the
 * remotes' names and URLs from the configuration. Uses only base.h; used
 * by repo.c (registering the stream), fetch.c, sync.c (the push) and
 * watch.c.
 */
#ifndef CATAN_STORE_NET_H
#define CATAN_STORE_NET_H

#include <git2.h>

#include "base.h"

/*
 * ssh:// and https:// remotes (ssh.c, http.c): the logins and the checks
 * of the server (host key, certificate) that libgit2 1.5 leaves to its
 * caller. Fill a git_remote_callbacks with store_ssh_callbacks(cb, &st,
 * repo, url) before connecting (repo: whose config names the certificate
 * authorities; may be NULL); on failure, store_ssh_fail names what ssh or
 * https refused, or libgit2's error otherwise; after a success,
 * store_http_done confirms a login to the git credential helper that gave
 * it.
 */
enum { LOGIN_NONE, LOGIN_TOKEN, LOGIN_HELPER };
typedef struct store_ssh {
	int next; /* the next kind of key to offer */
	int port;
	char tried[256];
	char why[1024];
	/* a ref the remote refused in a push (its hook, say), and why */
	char refused[300];
	/* http(s):// */
	bool https;	/* an http:// or https:// remote */
	int http_tries; /* logins asked for by the server */
	int login_from; /* LOGIN_*: where the last login came from */
	char host[256]; /* the server's, and its port, for the errors */
	char port_s[8];
	char user[256];	  /* the user name of the login given */
	char ca[512];	  /* the authorities trusted, as the errors say it */
	char ca_why[800]; /* why they could not be loaded */
} store_ssh;
void store_ssh_callbacks(git_remote_callbacks *cb, store_ssh *st,
			 git_repository *repo, const char *url);
int store_ssh_fail(const store_ssh *st, catan_err *err, const char *what);
/* The best reason for a failed fetch or push: a cut, what ssh or https
 * refused, or libgit2's error; into buf. */
void store_remote_why(const store_ssh *st, char *buf, size_t n);

/* Host and port of a git://, ssh:// or http(s):// URL (ssh.c). */
bool store_url_endpoint(const char *url, char *host, size_t hn, char *port,
			size_t pn);

/* http.c: refuses a URL that holds a password (it would be stored). */
int store_url_check(const char *url, catan_err *err);
/* Sets st up for an http(s):// url (no-op for others). */
void store_http_prepare(store_ssh *st, git_repository *repo, const char *url);
/* The login for a server that answered 401 (credential callback). */
int store_http_login(git_credential **out, store_ssh *st, const char *url,
		     const char *user_from_url);
void store_http_done(const store_ssh *st, const char *url);
/* A sentence for a refused certificate or CA file: true and into buf. */
bool store_http_why(const store_ssh *st, char *buf, size_t n);
/* 0 when known_hosts holds this raw key for host:port, else -1 and why. */
int store_ssh_check_host(store_ssh *st, const char *host, int port,
			 int raw_type, const char *key, size_t len);

/*
 * A TCP connection with the time limits of net.c (CATAN_CONNECT_TIMEOUT_MS
 * to connect, CATAN_IO_TIMEOUT_MS, into *io_ms, for each send and
 * receive): its descriptor, or -1 with libgit2's error set.
 */
int store_net_dial(const char *host, const char *port, int *io_ms);
/*
 * http_quick.c: the branches of an https:// remote, asked cheaply: the
 * host's ref list (info/refs, as `git update-server-info` keeps it) over
 * a connection kept open between syncs, into h. False (fetch the usual
 * way) when it cannot be had, holds no branch or more than
 * STORE_HTTP_HEADS, or when the usual way is due (CATAN_HTTP_FULL_MS,
 * 2,000 ms unless set, after the last: a host whose list is stale costs
 * that much delay, never a missed move). CATAN_HTTP_QUICK=0 turns it off.
 */
enum { STORE_HTTP_HEADS = 32 };
typedef struct store_http_heads {
	int n;
	git_remote_head head[STORE_HTTP_HEADS];
	const git_remote_head *ptr[STORE_HTTP_HEADS]; /* &head[i] */
	char name[STORE_HTTP_HEADS][256];
} store_http_heads;
bool store_http_list(git_repository *repo, const char *url,
		     store_http_heads *h);
/*
 * http_fetch.c: fetches the branches h lists (store_http_list) into
 * refs/remotes/<name>/ over the kept connection (smart HTTP, protocol
 * version 2: one POST), within the limits of b. 0: fetched, *changed
 * says whether a ref moved; 1: not done here (a host that does not speak
 * version 2, a list that is not ahead of the refs: fetch the usual way);
 * -2: over a limit, why says which; -1: the host's answer was wrong, why
 * says how. Nothing is stored but objects, and refs that move forward.
 * A tip whose commit is here is asked for again unless it is at or
 * behind the branch of that name here, or settled[i] (NULL: none) says it
 * was judged already (a quarantined tip). With move and old (room for
 * h->n each), the refs are not written:
 * move[i] says that the remote-tracking ref of h->name[i] is to move to
 * h->head[i] from old[i] (zero: it does not exist) (the caller writes
 * them with what the sync adopts).
 */
int store_http_fetch(git_repository *repo, const char *name, const char *url,
		     const store_http_heads *h, const store_budget *b,
		     const bool *settled, bool *changed, bool *move,
		     git_oid *old, char *why, size_t whyn);

/*
 * http_push.c: pushes branch ref (refs/heads/P) at new to the https://
 * host of remote `name` over the kept connection: one POST of
 * git-receive-pack, from where refs/remotes/<name>/P says the host has
 * it, or from `from` when not NULL (where this handle's last push left
 * it: catan_store.pushed); a fast-forward unless force. 0: pushed, *was
 * set to where the push found it (zero: nowhere), the remote-tracking
 * ref not moved (the caller records the push); 1: not done here
 * (refused, stale, not possible: push the usual way, which says why).
 */
int store_http_push(git_repository *repo, const char *name, const char *url,
		    const char *ref, const git_oid *new, bool force,
		    const git_oid *from, git_oid *was);

/*
 * remote.c: the URL of remote `name` as libgit2's lookup resolves it,
 * from cfg: remote.<name>.url (the last value), or for a push
 * remote.<name>.pushurl when set and not empty; the longest
 * url.<base>.insteadOf prefix (pushInsteadOf first, for a push of the
 * url) replaced by its base. 0; 1 when the remote has no URL or its name
 * is not a valid remote name; -1 when out is too small or cfg
 * unreadable. No git_remote_lookup: libgit2 1.5.1 leaks memory in it at
 * every call (remote.c says how much).
 */
int store_remote_url(git_config *cfg, const char *name, bool push, char *out,
		     size_t size);
/* Room for a remote's URL (longer ones are refused). */
enum { STORE_URL_MAX = 2048 };
/*
 * A remote made in memory for url (resolved: no insteadOf applied again)
 * for libgit2's fetch and push, whose branches map to
 * refs/remotes/<name>/. libgit2's error code; git_remote_free it.
 */
int store_remote_at(git_remote **out, git_repository *repo, const char *name,
		    const char *url);
/*
 * The names of the remotes cfg configures (a remote.<name>.url or
 * .pushurl; a name with both is there twice; names git refuses left
 * out), sorted, into out: free
 * with store_remote_names_free. 0, or -1 (out of memory, cfg unreadable).
 */
int store_remote_names(git_config *cfg, git_strarray *out);
void store_remote_names_free(git_strarray *names);

/*
 * http_ca.c: git_libgit2_init, without the parse of the system's
 * certificate authorities libgit2 1.5 makes in it (10 ms; given to it
 * when an https remote first needs them). Its return value.
 */
int store_git_init(void);

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
