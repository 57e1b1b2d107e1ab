/*
 * http_quick.c - layer 1 (leaves): "anything new?" of an https:// remote:
 * its branches, read from NAME.git/info/refs over the connection kept
 * between syncs (http_tls.c).
 *
 * A peer asks its host every few hundred milliseconds whether anything
 * moved, and the answer is almost always no. Through libgit2 that costs a
 * TCP connection, a TLS handshake, and two requests that each start git
 * on the server (info/refs, then the pack). Asked here instead, it is one
 * GET of NAME.git/info/refs (the list `git update-server-info` writes,
 * which a host serves as a plain file) on the kept connection: no process
 * started on either side. The list is untrusted and may be stale (a host
 * that does not run update-server-info after pushes): the caller believes
 * a "nothing moved" and fetches what it names (http_fetch.c) only while
 * each branch moves forward, and the usual way (libgit2's ref
 * advertisement) is taken anyway once CATAN_HTTP_FULL_MS passed since the
 * last time it was.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

enum { LIST_MAX = 65536, FULL_URLS = 16 };

bool store_http_url_split(const char *url, store_http_url *u)
{
	if (strncmp(url, "https://", 8) || strlen(url) >= 512 ||
	    strchr(url, '?') || strchr(url, '#'))
		return false;
	/* host:port as the URL has it (for Host:), the path after it */
	const char *rest = url + 8;
	size_t host = strcspn(rest, "/");
	const char *at = memchr(rest, '@', host);
	for (const char *p = at; p && p < rest + host; p++)
		if (*p == '@')
			at = p;
	if (at) {
		host -= (size_t)(at + 1 - rest);
		rest = at + 1;
	}
	if (host == 0 || host >= sizeof u->hostport ||
	    !store_url_endpoint(url, u->host, sizeof u->host, u->port,
				sizeof u->port))
		return false;
	snprintf(u->hostport, sizeof u->hostport, "%.*s", (int)host, rest);
	const char *p = rest + host;
	size_t pl = strlen(p);
	while (pl && p[pl - 1] == '/')
		pl--;
	snprintf(u->path, sizeof u->path, "%.*s", (int)pl, p);
	for (const char *c = u->hostport; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return false;
	for (const char *c = u->path; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return false;
	return true;
}

/* When each remote (repository and URL) was last fetched the usual way. */
static struct {
	char key[1024];
	double at;
} full[FULL_URLS];
static int nfull;

int store_http_env_ms(const char *name, int dflt)
{
	const char *v = getenv(name);
	char *end;
	long ms = v && *v ? strtol(v, &end, 10) : -1;
	return ms < 0 || *end || ms > 3600000 ? dflt : (int)ms;
}

/* Due for a fetch the usual way: true, and the time noted. */
static bool full_due(git_repository *repo, const char *url)
{
	double now = store_now_ms();
	int every = store_http_env_ms("CATAN_HTTP_FULL_MS", 2000);
	char key[sizeof full[0].key];
	int k =
	    snprintf(key, sizeof key, "%s %s", git_repository_path(repo), url);
	if (k < 0 || (size_t)k >= sizeof key)
		return true; /* (too long to remember: always) */
	int i = 0;
	while (i < nfull && strcmp(full[i].key, key))
		i++;
	if (i < nfull && now - full[i].at < every)
		return false;
	if (i == nfull) {
		if (nfull == FULL_URLS)
			i = 0; /* (forgets one: it gets a full fetch) */
		else
			nfull++;
		snprintf(full[i].key, sizeof full[i].key, "%s", key);
	}
	full[i].at = now;
	return true;
}

/* The branches (refs/heads/) and evidence refs (store_tracking_ref) of
 * an info/refs list into h: false when the list is malformed or holds
 * more than h can. */
static bool list_parse(const char *list, store_http_heads *h)
{
	h->n = 0;
	for (const char *p = list; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		git_oid id;
		if (len < GIT_OID_HEXSZ + 2 || p[GIT_OID_HEXSZ] != '\t' ||
		    git_oid_fromstrn(&id, p, GIT_OID_HEXSZ))
			return false;
		const char *ref = p + GIT_OID_HEXSZ + 1;
		size_t rl = len - GIT_OID_HEXSZ - 1;
		p = nl ? nl + 1 : p + len;
		bool branch = rl > 11 && !strncmp(ref, "refs/heads/", 11);
		if (!branch && store_evidence_index(ref, rl) < 0)
			continue; /* (neither a branch nor evidence) */
		if (h->n == STORE_HTTP_HEADS || rl >= sizeof h->name[0])
			return false;
		int i = h->n++;
		memcpy(h->name[i], ref, rl);
		h->name[i][rl] = '\0';
		int valid = 0;
		if (git_reference_name_is_valid(&valid, h->name[i]) || !valid)
			return false;
		memset(&h->head[i], 0, sizeof h->head[i]);
		h->head[i].oid = id;
		h->head[i].name = h->name[i];
		h->ptr[i] = &h->head[i];
	}
	return h->n > 0;
}

void store_http_pkt_len(char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 4; i++)
		out[i] = hex[(n >> (12 - 4 * i)) & 15];
}

size_t store_http_pkt_line(char *out, const char *text)
{
	size_t n = strlen(text) + 4;
	store_http_pkt_len(out, n);
	memcpy(out + 4, text, n - 4);
	return n;
}

/*
 * An ls-refs answer (pkt-lines "<id> <ref>[ attributes]", then a flush)
 * rewritten in place as an info/refs list ("<id> TAB <ref>" lines): false
 * when it is not one.
 */
static bool lsrefs_text(char *b, size_t *len)
{
	size_t in = 0, out = 0, total = *len;
	while (in + 4 <= total) {
		char hex[5];
		memcpy(hex, b + in, 4);
		hex[4] = '\0';
		char *end;
		unsigned long n = strtoul(hex, &end, 16);
		if (*end || !isxdigit((unsigned char)hex[0]))
			return false;
		if (n == 0) {
			*len = out;
			return in + 4 == total; /* (the flush ends it) */
		}
		if (n < 4 + GIT_OID_HEXSZ + 2 || in + n > total)
			return false;
		const char *p = b + in + 4;
		size_t pl = n - 4;
		if (p[pl - 1] == '\n')
			pl--;
		if (p[GIT_OID_HEXSZ] != ' ')
			return false;
		size_t rl = 0;
		while (GIT_OID_HEXSZ + 1 + rl < pl &&
		       p[GIT_OID_HEXSZ + 1 + rl] != ' ')
			rl++;
		/* (out never passes in: each line loses its 4 length bytes) */
		memmove(b + out, p, GIT_OID_HEXSZ);
		b[out + GIT_OID_HEXSZ] = '\t';
		memmove(b + out + GIT_OID_HEXSZ + 1, p + GIT_OID_HEXSZ + 1, rl);
		out += GIT_OID_HEXSZ + 1 + rl;
		b[out++] = '\n';
		in += n;
	}
	return false; /* (no flush at the end) */
}

typedef struct list_buf {
	char *b;
	size_t len;
} list_buf;

static int list_sink(void *ctx, const char *data, size_t len)
{
	list_buf *lb = ctx;
	memcpy(lb->b + lb->len, data, len); /* (max: LIST_MAX - 1) */
	lb->len += len;
	return 0;
}

bool store_http_list(git_repository *repo, const char *url, store_http_heads *h)
{
	const char *q = getenv("CATAN_HTTP_QUICK");
	store_http_url u;
	char path[800], auth[720];
	if ((q && !strcmp(q, "0")) || !store_http_url_split(url, &u))
		return false;
	snprintf(path, sizeof path, "%s/info/refs", u.path);
	/* The login, when one is known already (else: the usual way asks). */
	if (!store_http_auth(url, auth, sizeof auth))
		return false;
	bool ok = false;
	list_buf lb = {malloc(LIST_MAX), 0};
	store_tls_lock();
	/* Due for a full check: the refs as git upload-pack itself lists
	 * them (protocol v2's ls-refs, one POST), not the list a host may
	 * have let go stale. */
	bool due = lb.b && full_due(repo, url);
	char lspath[800], body[192];
	size_t bl = 0;
	snprintf(lspath, sizeof lspath, "%s/git-upload-pack", u.path);
	bl += store_http_pkt_line(body + bl, "command=ls-refs\n");
	bl += store_http_pkt_line(body + bl, "object-format=sha1\n");
	memcpy(body + bl, "0001", 4);
	bl += 4;
	bl += store_http_pkt_line(body + bl, "ref-prefix refs/heads/\n");
	bl += store_http_pkt_line(body + bl,
				  "ref-prefix " STORE_EVIDENCE_REF "\n");
	memcpy(body + bl, "0000", 4);
	bl += 4;
	int status = -1;
	for (int tries = 0; lb.b && tries < 2 && status < 0; tries++) {
		/* (a kept connection the server since closed fails once: a
		 * new one is made) */
		bool kept = store_tls_up();
		if (!store_tls_connect(repo, u.host, u.port))
			break;
		lb.len = 0;
		status = store_tls_request(
		    due ? "POST" : "GET", u.hostport, due ? lspath : path, auth,
		    due ? "Content-Type: "
			  "application/x-git-upload-pack-request\r\n"
			  "Accept: application/x-git-upload-pack-result\r\n"
			  "Git-Protocol: version=2\r\n"
			  "Catan-Peer: 1\r\n"
			: "Accept: */*\r\n",
		    due ? body : NULL, due ? bl : 0, list_sink, &lb,
		    LIST_MAX - 1,
		    store_now_ms() +
			store_http_env_ms("CATAN_IO_TIMEOUT_MS", 15000));
		if (!kept)
			break;
	}
	if (status == 200 && (!due || lsrefs_text(lb.b, &lb.len)) &&
	    !memchr(lb.b, '\0', lb.len)) {
		lb.b[lb.len] = '\0';
		ok = list_parse(lb.b, h);
	}
	store_tls_unlock();
	free(lb.b);
	store_http_wipe(auth, sizeof auth);
	return ok;
}
