/*
 * http_tls.c - layer 1 (leaves): one TLS connection (mbedTLS, as libgit2
 * uses in Debian 12) kept open from one sync to the next, and HTTP/1.1
 * requests on it, for the https requests the store makes itself (the
 * "anything new?" list, http_quick.c; the fetch, http_fetch.c): libgit2
 * 1.5 opens a new connection for every fetch, and a peer fetches every
 * few hundred milliseconds.
 *
 * The certificate is checked for the host against the authorities git
 * would trust (store_http_ca_paths), parsed once and again only when
 * their file changes. The TCP connection is net.c's (connect time
 * limit); every read waits at most CATAN_IO_TIMEOUT_MS and never past
 * the caller's deadline. A response is read by its Content-Length or
 * its chunks, never more than the caller allows; anything malformed, too
 * long, or left over after it closes the connection.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>

#include "http.h"

static pthread_mutex_t tls_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	bool ready; /* rng and config set up */
	mbedtls_entropy_context entropy;
	mbedtls_ctr_drbg_context drbg;
	mbedtls_ssl_config conf;
	mbedtls_x509_crt ca;
	bool ca_loaded;
	char cafile[512], cadir[512];
	struct stat cast;
	/* the kept connection */
	char key[300]; /* host:port it goes to */
	int fd, io_ms;
	bool up;
	mbedtls_ssl_context ssl;
	double until; /* no read goes past this (0: none) */
	/* what was received and not yet read */
	char in[16384];
	size_t pos, len;
} tk = {.fd = -1};

void store_tls_lock(void)
{
	pthread_mutex_lock(&tls_mu);
}

void store_tls_unlock(void)
{
	pthread_mutex_unlock(&tls_mu);
}

bool store_tls_up(void)
{
	return tk.up;
}

static int tls_send(void *ctx, const unsigned char *buf, size_t len)
{
	(void)ctx;
	ssize_t w;
	do
		w = send(tk.fd, buf, len, MSG_NOSIGNAL);
	while (w < 0 && errno == EINTR);
	return w < 0 ? -1 : (int)w;
}

static int tls_recv(void *ctx, unsigned char *buf, size_t len)
{
	(void)ctx;
	for (;;) {
		double left = tk.io_ms;
		if (tk.until > 0 && tk.until - store_now_ms() < left)
			left = tk.until - store_now_ms();
		struct pollfd pfd = {tk.fd, POLLIN, 0};
		int r = left > 0 ? poll(&pfd, 1, (int)left + 1) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1; /* (nothing came in time) */
		ssize_t n = recv(tk.fd, buf, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -1 : (int)n;
	}
}

void store_tls_close(void)
{
	if (tk.up) {
		mbedtls_ssl_free(&tk.ssl);
		close(tk.fd);
	}
	tk.up = false;
	tk.fd = -1;
	tk.key[0] = '\0';
	tk.pos = tk.len = 0;
}

static bool same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_ino == b->st_ino &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* The authorities as git picks them, parsed once (again when changed). */
static bool tls_ca(git_repository *repo)
{
	char file[512], dir[512];
	store_http_ca_paths(repo, file, dir);
	struct stat st;
	memset(&st, 0, sizeof st);
	if (file[0] && stat(file, &st))
		memset(&st, 0, sizeof st);
	if (tk.ca_loaded && !strcmp(tk.cafile, file) &&
	    !strcmp(tk.cadir, dir) && same_stat(&tk.cast, &st))
		return true;
	store_tls_close(); /* (it was checked against the old ones) */
	if (tk.ca_loaded)
		mbedtls_x509_crt_free(&tk.ca);
	mbedtls_x509_crt_init(&tk.ca);
	tk.ca_loaded = false;
	bool any = false;
	if (file[0] && mbedtls_x509_crt_parse_file(&tk.ca, file) >= 0)
		any = true;
	if (dir[0] && mbedtls_x509_crt_parse_path(&tk.ca, dir) >= 0)
		any = true;
	if (!any || !tk.ca.version) {
		mbedtls_x509_crt_free(&tk.ca);
		return false;
	}
	tk.ca_loaded = true;
	snprintf(tk.cafile, sizeof tk.cafile, "%s", file);
	snprintf(tk.cadir, sizeof tk.cadir, "%s", dir);
	tk.cast = st;
	mbedtls_ssl_conf_ca_chain(&tk.conf, &tk.ca, NULL);
	return true;
}

static bool tls_setup(void)
{
	if (tk.ready)
		return true;
	mbedtls_entropy_init(&tk.entropy);
	mbedtls_ctr_drbg_init(&tk.drbg);
	mbedtls_ssl_config_init(&tk.conf);
	if (mbedtls_ctr_drbg_seed(&tk.drbg, mbedtls_entropy_func, &tk.entropy,
				  (const unsigned char *)"catan", 5) ||
	    mbedtls_ssl_config_defaults(&tk.conf, MBEDTLS_SSL_IS_CLIENT,
					MBEDTLS_SSL_TRANSPORT_STREAM,
					MBEDTLS_SSL_PRESET_DEFAULT)) {
		mbedtls_ssl_config_free(&tk.conf);
		mbedtls_ctr_drbg_free(&tk.drbg);
		mbedtls_entropy_free(&tk.entropy);
		return false;
	}
	mbedtls_ssl_conf_authmode(&tk.conf, MBEDTLS_SSL_VERIFY_REQUIRED);
	mbedtls_ssl_conf_rng(&tk.conf, mbedtls_ctr_drbg_random, &tk.drbg);
	tk.ready = true;
	return true;
}

bool store_tls_connect(git_repository *repo, const char *host, const char *port)
{
	char key[300];
	if (!tls_setup() || !tls_ca(repo))
		return false;
	snprintf(key, sizeof key, "%s:%s", host, port);
	if (tk.up && !strcmp(tk.key, key))
		return true;
	store_tls_close();
	tk.fd = store_net_dial(host, port, &tk.io_ms);
	if (tk.fd < 0)
		return false;
	mbedtls_ssl_init(&tk.ssl);
	tk.up = true;
	snprintf(tk.key, sizeof tk.key, "%s", key);
	if (mbedtls_ssl_setup(&tk.ssl, &tk.conf) ||
	    mbedtls_ssl_set_hostname(&tk.ssl, host)) {
		store_tls_close();
		return false;
	}
	mbedtls_ssl_set_bio(&tk.ssl, NULL, tls_send, tls_recv, NULL);
	tk.until = store_now_ms() + tk.io_ms;
	int r;
	while ((r = mbedtls_ssl_handshake(&tk.ssl)) != 0)
		if (r != MBEDTLS_ERR_SSL_WANT_READ &&
		    r != MBEDTLS_ERR_SSL_WANT_WRITE) {
			store_tls_close();
			return false;
		}
	return true;
}

/* ---- reading a response ---- */

/* More received into tk.in when all of it was read: false on failure. */
static bool in_fill(void)
{
	if (tk.pos < tk.len)
		return true;
	for (;;) {
		int r = mbedtls_ssl_read(&tk.ssl, (unsigned char *)tk.in,
					 sizeof tk.in);
		if (r == MBEDTLS_ERR_SSL_WANT_READ ||
		    r == MBEDTLS_ERR_SSL_WANT_WRITE)
			continue;
		if (r <= 0)
			return false;
		tk.pos = 0;
		tk.len = (size_t)r;
		return true;
	}
}

/* One line (CRLF or LF; without it) into out: false when over n - 1. */
static bool in_line(char *out, size_t n)
{
	size_t k = 0;
	for (;;) {
		if (!in_fill())
			return false;
		char c = tk.in[tk.pos++];
		if (c == '\n')
			break;
		if (k + 1 >= n)
			return false;
		out[k++] = c;
	}
	if (k && out[k - 1] == '\r')
		k--;
	out[k] = '\0';
	return true;
}

/* n bytes of body to sink, counted in *total against max. */
static bool in_body(unsigned long long n, store_tls_sink sink, void *ctx,
		    size_t *total, size_t max)
{
	if (n > max - *total)
		return false;
	*total += (size_t)n;
	while (n) {
		if (!in_fill())
			return false;
		size_t k = tk.len - tk.pos;
		if (k > n)
			k = (size_t)n;
		if (sink(ctx, tk.in + tk.pos, k))
			return false;
		tk.pos += k;
		n -= k;
	}
	return true;
}

/* A number of the header lines (decimal, or hex for a chunk's size). */
static bool number(const char *s, int base, unsigned long long *out)
{
	char *end;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!(*s >= '0' && *s <= '9') &&
	    !(base == 16 && strchr("abcdefABCDEF", *s) && *s))
		return false;
	errno = 0;
	*out = strtoull(s, &end, base);
	while (*end == ' ' || *end == '\t')
		end++;
	return !errno && (!*end || (base == 16 && *end == ';'));
}

/*
 * The status code of an HTTP/1.x status line ("HTTP/1.1 200 OK"): three
 * digits after the version and one space, then a space or the end; -1
 * for any other line (the line is read no further than its end).
 */
static int status_code(const char *line)
{
	if (strncmp(line, "HTTP/1.", 7) || !isdigit((unsigned char)line[7]) ||
	    line[8] != ' ')
		return -1;
	int code = 0;
	for (int i = 9; i < 12; i++) {
		if (!isdigit((unsigned char)line[i]))
			return -1;
		code = code * 10 + (line[i] - '0');
	}
	return line[12] == ' ' || !line[12] ? code : -1;
}

/* The response: its status line, headers, and body to sink. */
static int read_response(store_tls_sink sink, void *ctx, size_t max)
{
	char line[2048];
	int status = -1, lines = 0;
	unsigned long long cl = 0;
	bool has_cl = false, chunked = false, close_after = false;
	if (!in_line(line, sizeof line) || (status = status_code(line)) < 200)
		return -1;
	for (;;) {
		if (!in_line(line, sizeof line) || ++lines > 100)
			return -1;
		if (!line[0])
			break;
		char *colon = strchr(line, ':');
		if (!colon)
			return -1;
		*colon = '\0';
		const char *v = colon + 1;
		while (*v == ' ' || *v == '\t')
			v++;
		if (!strcasecmp(line, "content-length")) {
			if (!number(v, 10, &cl))
				return -1;
			has_cl = true;
		} else if (!strcasecmp(line, "transfer-encoding")) {
			if (strcasecmp(v, "chunked"))
				return -1;
			chunked = true;
		} else if (!strcasecmp(line, "connection")) {
			close_after = !strcasecmp(v, "close");
		}
	}
	size_t total = 0;
	if (chunked) {
		for (;;) {
			unsigned long long n;
			if (!in_line(line, sizeof line) ||
			    !number(line, 16, &n))
				return -1;
			if (n == 0)
				break;
			if (!in_body(n, sink, ctx, &total, max) ||
			    !in_line(line, sizeof line) || line[0])
				return -1;
		}
		do /* (trailers, up to the empty line) */
			if (!in_line(line, sizeof line) || ++lines > 100)
				return -1;
		while (line[0]);
	} else if (has_cl) {
		if (!in_body(cl, sink, ctx, &total, max))
			return -1;
	} else {
		return -1; /* (a body up to the close: not for us) */
	}
	if (tk.pos != tk.len)
		return -1; /* (more than the response: not ours to read) */
	if (close_after)
		store_tls_close();
	return status;
}

int store_tls_request(const char *method, const char *hostport,
		      const char *path, const char *auth, const char *headers,
		      const void *body, size_t bodylen, store_tls_sink sink,
		      void *ctx, size_t max, double until_ms)
{
	char req[3000], length[64] = "";
	if (!tk.up)
		return -1;
	if (body)
		snprintf(length, sizeof length, "Content-Length: %zu\r\n",
			 bodylen);
	int k = snprintf(req, sizeof req,
			 "%s %s HTTP/1.1\r\nHost: %s\r\n%s%s%s"
			 "User-Agent: catan\r\nCache-Control: no-cache\r\n"
			 "%s%s\r\n",
			 method, path, hostport,
			 auth ? "Authorization: Basic " : "", auth ? auth : "",
			 auth ? "\r\n" : "", headers, length);
	int status = -1;
	if (k < 0 || (size_t)k >= sizeof req)
		goto done;
	tk.until = until_ms;
	const char *parts[2] = {req, body};
	size_t lens[2] = {(size_t)k, body ? bodylen : 0};
	for (int i = 0; i < 2; i++)
		for (size_t off = 0; off < lens[i];) {
			int w = mbedtls_ssl_write(
			    &tk.ssl, (const unsigned char *)parts[i] + off,
			    lens[i] - off);
			if (w == MBEDTLS_ERR_SSL_WANT_READ ||
			    w == MBEDTLS_ERR_SSL_WANT_WRITE)
				continue;
			if (w <= 0)
				goto done;
			off += (size_t)w;
		}
	status = read_response(sink, ctx, max);
done:
	store_http_wipe(req, sizeof req);
	if (status < 0)
		store_tls_close();
	return status;
}
