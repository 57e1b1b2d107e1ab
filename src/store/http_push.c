/*
 * http_push.c - layer 1 (leaves): a push of one branch to an https://
 * host over the connection kept between syncs (http_tls.c): one POST of
 * git-receive-pack in git's smart HTTP protocol (gitprotocol-pack: the
 * command "OLD NEW REF" with report-status, then the pack of what the
 * host lacks), where libgit2 1.5 would open a new TLS connection, ask for
 * the ref advertisement (a request the host answers by starting git) and
 * then post the pack.
 *
 * OLD is where the remote-tracking ref says the host has the branch (the
 * ref list read just before, http_quick.c); the pack holds the commits
 * from it to NEW and what they need, built by libgit2's packbuilder. The
 * host moves the branch only from OLD (receive-pack's own check), so a
 * list that was stale costs a refused push, never a lost one. Only a
 * report of "unpack ok" and "ok REF" counts; anything else (a refusal by
 * the host's hook, a stale OLD, a host that does not answer so) is left
 * to libgit2's push, which says why.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

enum { REPORT_MAX = 65536 };

typedef struct buf {
	char *b;
	size_t len, cap;
} buf;

static int buf_add(buf *b, const void *data, size_t len)
{
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->len + len)
			cap *= 2;
		char *nb = realloc(b->b, cap);
		if (!nb)
			return -1;
		b->b = nb;
		b->cap = cap;
	}
	memcpy(b->b + b->len, data, len);
	b->len += len;
	return 0;
}

static int pack_cb(void *data, size_t size, void *payload)
{
	return buf_add(payload, data, size);
}

static int report_sink(void *ctx, const char *data, size_t len)
{
	buf *b = ctx;
	return b->len + len > REPORT_MAX ? -1 : buf_add(b, data, len);
}

/* The command, then the pack of new's history the host lacks (it has
 * what the remote-tracking refs of `name` hold). */
static int request(git_repository *repo, const char *name, const char *ref,
		   const git_oid *old, const git_oid *new, buf *body)
{
	char line[400], ohex[GIT_OID_HEXSZ + 1], nhex[GIT_OID_HEXSZ + 1];
	git_oid_tostr(ohex, sizeof ohex, old);
	git_oid_tostr(nhex, sizeof nhex, new);
	int k = snprintf(line + 4, sizeof line - 4, "%s %s %s%creport-status",
			 ohex, nhex, ref, '\0');
	if (k < 0 || (size_t)k + 4 >= sizeof line)
		return -1;
	store_http_pkt_len(line, (size_t)k + 4);
	if (buf_add(body, line, (size_t)k + 4) || buf_add(body, "0000", 4))
		return -1;
	git_packbuilder *pb = NULL;
	git_revwalk *walk = NULL;
	char glob[300];
	snprintf(glob, sizeof glob, "refs/remotes/%s/*", name);
	int rc = -1;
	if (git_packbuilder_new(&pb, repo) == 0 &&
	    git_revwalk_new(&walk, repo) == 0 &&
	    git_revwalk_push(walk, new) == 0 &&
	    (git_oid_is_zero(old) || git_revwalk_hide(walk, old) == 0) &&
	    git_revwalk_hide_glob(walk, glob) == 0 &&
	    git_packbuilder_insert_walk(pb, walk) == 0 &&
	    git_packbuilder_foreach(pb, pack_cb, body) == 0)
		rc = 0;
	git_revwalk_free(walk);
	git_packbuilder_free(pb);
	return rc;
}

/* Whether the report says the pack was taken and ref moved. */
static bool report_ok(const buf *r, const char *ref)
{
	bool unpacked = false, moved = false;
	for (size_t at = 0; at + 4 <= r->len;) {
		char hex[5];
		memcpy(hex, r->b + at, 4);
		hex[4] = '\0';
		char *end;
		unsigned long n = strtoul(hex, &end, 16);
		if (*end || (n && n < 4) || at + (n ? n : 4) > r->len)
			return false;
		if (n == 0)
			return unpacked && moved && at + 4 == r->len;
		const char *p = r->b + at + 4;
		size_t len = n - 4;
		if (len && p[len - 1] == '\n')
			len--;
		if (len == 9 && !memcmp(p, "unpack ok", 9))
			unpacked = true;
		else if (len == 3 + strlen(ref) && !memcmp(p, "ok ", 3) &&
			 !memcmp(p + 3, ref, strlen(ref)))
			moved = true;
		else
			return false; /* (ng, an unpack error, anything else) */
		at += n;
	}
	return false;
}

int store_http_push(git_repository *repo, const char *name, const char *url,
		    const char *ref, const git_oid *new, bool force)
{
	store_http_url u;
	char auth[720], path[800], theirs[600];
	const char *q = getenv("CATAN_HTTP_QUICK");
	if ((q && !strcmp(q, "0")) || !store_http_url_split(url, &u) ||
	    strncmp(ref, "refs/heads/", 11) ||
	    !store_http_auth(url, auth, sizeof auth))
		return 1;
	git_oid old;
	snprintf(theirs, sizeof theirs, "refs/remotes/%s/%s", name, ref + 11);
	if (git_reference_name_to_id(&old, repo, theirs))
		git_oid_fromstrn(&old, "0", 1); /* (a new branch there) */
	if (!force && !git_oid_is_zero(&old) && !git_oid_equal(&old, new) &&
	    store_descends(repo, new, &old) != 1) {
		store_http_wipe(auth, sizeof auth);
		return 1; /* (not a fast-forward: libgit2 refuses it) */
	}
	buf body = {NULL, 0, 0}, report = {NULL, 0, 0};
	int rc = 1;
	if (request(repo, name, ref, &old, new, &body))
		goto done;
	snprintf(path, sizeof path, "%s/git-receive-pack", u.path);
	store_tls_lock();
	int status = -1;
	for (int tries = 0; tries < 2 && status < 0; tries++) {
		bool kept = store_tls_up();
		if (!store_tls_connect(repo, u.host, u.port))
			break;
		report.len = 0;
		status = store_tls_request(
		    "POST", u.hostport, path, auth,
		    "Content-Type: application/x-git-receive-pack-request\r\n"
		    "Accept: application/x-git-receive-pack-result\r\n"
		    "Catan-Peer: 1\r\n",
		    body.b, body.len, report_sink, &report, REPORT_MAX,
		    store_now_ms() + 60000);
		if (!kept)
			break;
	}
	store_tls_unlock();
	if (status == 200 && report_ok(&report, ref)) {
		git_reference *r = NULL;
		if (git_reference_create(&r, repo, theirs, new, 1,
					 "catan sync: pushed") == 0)
			git_reference_free(r);
		rc = 0;
	}
done:
	free(body.b);
	free(report.b);
	store_http_wipe(auth, sizeof auth);
	return rc;
}
