/*
 * http.h - layer 1 (leaves): the pieces of the https:// remotes that do
 * not go through libgit2, shared by http.c (the login, the authorities),
 * http_tls.c (a TLS connection kept from one sync to the next, and HTTP/1.1
 * requests on it), http_quick.c (the "anything new?" list),
 * http_fetch.c and http_push.c (a fetch, a push over the kept
 * connection). Uses net.h and base.h.
 */
#ifndef CATAN_STORE_HTTP_H
#define CATAN_STORE_HTTP_H

#include "net.h"

/* ---- http_ca.c ---- */

/* Tells libgit2 the authorities an https remote is checked against, as
 * git picks them; what the errors name them into st->ca (st->ca_why when
 * they cannot be loaded). */
void store_http_choose_ca(store_ssh *st, git_repository *repo);
/*
 * The certificate authorities as git picks them (GIT_SSL_CAINFO,
 * http.sslCAInfo, SSL_CERT_FILE; GIT_SSL_CAPATH, http.sslCAPath,
 * SSL_CERT_DIR), Debian's bundle when none is named; into file and dir
 * (512 bytes each, "" when not given).
 */
void store_http_ca_paths(git_repository *repo, char *file, char *dir);

/* ---- http.c ---- */

/*
 * The base64 of "user:password" for an Authorization: Basic header, for
 * url: from CATAN_HTTP_TOKEN (and CATAN_HTTP_USER), else a login a git
 * credential helper gave earlier in this process. False when none is
 * known yet (the usual way, through libgit2, asks for it).
 */
bool store_http_auth(const char *url, char *auth, size_t n);
/* Overwrites n bytes of p (a password no longer needed). */
void store_http_wipe(void *p, size_t n);

/* ---- http_tls.c: the kept connection ---- */

/*
 * One TLS connection, kept open between syncs, for every request this
 * process makes outside libgit2. Callers hold its lock around a
 * connect and the requests on it.
 */
void store_tls_lock(void);
void store_tls_unlock(void);
/* The connection to host:port (the certificate checked for host against
 * the authorities of repo); reuses the kept one when it goes there. */
bool store_tls_connect(git_repository *repo, const char *host,
		       const char *port);
/* Whether a connection is up (one kept from before may have been closed
 * by the server since: a first request on it may fail once). */
bool store_tls_up(void);
void store_tls_close(void);

/* Receives the body of a response, piece by piece: 0, or -1 to stop. */
typedef int (*store_tls_sink)(void *ctx, const char *data, size_t len);
/*
 * One request on the kept connection: "METHOD path HTTP/1.1" to hostport
 * (the Host: header), with auth (base64 user:password, or NULL), the
 * extra header lines `headers` (each ending in \r\n; may be ""), and
 * body (bodylen bytes; a Content-Length is sent when body is not NULL).
 * The response's body (by Content-Length or chunked) goes to sink, at
 * most max bytes; every read waits at most CATAN_IO_TIMEOUT_MS, and none
 * goes past until_ms (CLOCK_MONOTONIC; 0: no such limit). Returns the
 * response's status, or -1 (the connection failed, or the response was
 * over max, malformed, or refused by sink: the connection is closed).
 */
int store_tls_request(const char *method, const char *hostport,
		      const char *path, const char *auth, const char *headers,
		      const void *body, size_t bodylen, store_tls_sink sink,
		      void *ctx, size_t max, double until_ms);

/* ---- http_quick.c ---- */

/*
 * An https:// URL split for a request of our own: host and port (to
 * connect), hostport (as the URL writes it, for Host:) and the
 * repository's path without trailing slashes. False for URLs it does
 * not take (not https, a query or fragment, control characters).
 */
typedef struct store_http_url {
	char host[256], port[8], hostport[300], path[700];
} store_http_url;
bool store_http_url_split(const char *url, store_http_url *u);

/* A pkt-line's length n (< 65,520, itself included) as git writes it:
 * 4 lower-case hex digits at out (no NUL). And a pkt-line of text at
 * out: the 4 digits, then the text; the line's length (http_quick.c). */
void store_http_pkt_len(char *out, size_t n);
size_t store_http_pkt_line(char *out, const char *text);
/* The milliseconds in environment variable name (0 to 3,600,000), else
 * dflt. */
int store_http_env_ms(const char *name, int dflt);

#endif
