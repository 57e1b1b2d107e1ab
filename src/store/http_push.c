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
 * ref list read just before, http_quick.c; the ref is not moved after
 * the push, the caller records it: catan_store.pushed); the pack holds the
 * commits from it to NEW and what they need, built by our own writer
 * (own_pack below; libgit2's packbuilder past 32 new commits).
 * The host moves the branch only from OLD (receive-pack's own check), so a list
 * that was stale costs a refused push, never a lost one. Only a report of
 * "unpack ok" and "ok REF" counts; anything else (a refusal by the host's hook,
 * a stale OLD, a host that does not answer so) is left to libgit2's push, which
 * says why.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "pack.h"

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

/*
 * The pack of a push built by our own writer (pack.h), without libgit2's
 * packbuilder and revision walk, which read and mark the whole trees of
 * every commit the host has (a fifth of a peer's time in a sync): the
 * new commits are found by walking back from new to the commits the
 * host is known to hold (old and the remote-tracking tips), and of each
 * only the trees and blobs that differ from its first parent's are
 * packed (the host holds everything its refs reach, so the first
 * parent's whole tree when that one is not new). A commit the walk does
 * not find among those it knows is taken for new, with its objects: a
 * pack with objects the host has is still a right one. More than
 * PUSH_MAX_NEW commits, or anything odd, and the caller falls back to
 * libgit2's walk.
 */
enum { PUSH_MAX_NEW = 32, PUSH_MAX_KNOWN = 64 };

typedef struct push_pack {
	git_odb *odb;
	store_pack *p;
} push_pack;

/* Adds object id unless packed already: 0, or -1. */
static int push_add(push_pack *pp, const git_oid *id)
{
	if (store_pack_find(pp->p, id) >= 0)
		return 0;
	git_odb_object *o = NULL;
	if (git_odb_read(&o, pp->odb, id))
		return -1;
	int i = store_pack_add(pp->p, git_odb_object_type(o),
			       git_odb_object_data(o), git_odb_object_size(o),
			       NULL, 0);
	git_odb_object_free(o);
	return i < 0 ? -1 : 0;
}

/* Adds tree t and what it holds that `base` (NULL: none) does not, by
 * path: 0, or -1. depth bounds the nesting. */
static int push_tree(push_pack *pp, git_repository *repo, const git_tree *t,
		     const git_tree *base, int depth)
{
	if (depth > 16 || push_add(pp, git_tree_id(t)))
		return -1;
	size_t n = git_tree_entrycount(t);
	for (size_t i = 0; i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		const git_tree_entry *was =
		    base ? git_tree_entry_byname(base, git_tree_entry_name(e))
			 : NULL;
		if (was &&
		    git_oid_equal(git_tree_entry_id(was), git_tree_entry_id(e)))
			continue;
		git_object_t type = git_tree_entry_type(e);
		if (type == GIT_OBJECT_BLOB) {
			if (push_add(pp, git_tree_entry_id(e)))
				return -1;
		} else if (type == GIT_OBJECT_TREE) {
			git_tree *sub = NULL, *subbase = NULL;
			int rc =
			    git_tree_lookup(&sub, repo, git_tree_entry_id(e));
			if (rc == 0 && was &&
			    git_tree_entry_type(was) == GIT_OBJECT_TREE)
				rc = git_tree_lookup(&subbase, repo,
						     git_tree_entry_id(was));
			if (rc == 0)
				rc = push_tree(pp, repo, sub, subbase,
					       depth + 1);
			git_tree_free(sub);
			git_tree_free(subbase);
			if (rc)
				return -1;
		} else {
			return -1; /* (a submodule: not in a game) */
		}
	}
	return 0;
}

/* Adds commit c, its tree and what that holds unlike its first
 * parent's: 0, or -1. */
static int push_commit(push_pack *pp, git_repository *repo, const git_commit *c)
{
	git_tree *t = NULL, *base = NULL;
	git_commit *parent = NULL;
	int rc = push_add(pp, git_commit_id(c));
	if (rc == 0)
		rc = git_commit_tree(&t, c);
	if (rc == 0 && git_commit_parentcount(c) > 0 &&
	    (rc = git_commit_parent(&parent, c, 0)) == 0)
		rc = git_commit_tree(&base, parent);
	if (rc == 0)
		rc = push_tree(pp, repo, t, base, 0);
	git_tree_free(t);
	git_tree_free(base);
	git_commit_free(parent);
	return rc ? -1 : 0;
}

static bool listed(const git_oid *list, int n, const git_oid *id)
{
	for (int i = 0; i < n; i++)
		if (git_oid_equal(&list[i], id))
			return true;
	return false;
}

/* The pack of new's commits the host lacks into body: 0, or -1 (the
 * caller then builds it with libgit2). */
static int own_pack(git_repository *repo, const char *name, const git_oid *old,
		    const git_oid *new, buf *body)
{
	git_oid known[PUSH_MAX_KNOWN], todo[PUSH_MAX_NEW + 1];
	int nknown = 0, ntodo = 0, rc = -1;
	if (!git_oid_is_zero(old))
		known[nknown++] = *old;
	char glob[300];
	snprintf(glob, sizeof glob, "refs/remotes/%s/*", name);
	git_reference_iterator *it = NULL;
	git_reference *r;
	if (git_reference_iterator_glob_new(&it, repo, glob))
		return -1;
	while (git_reference_next(&r, it) == 0) {
		const git_oid *id = git_reference_target(r);
		if (id && nknown < PUSH_MAX_KNOWN && !listed(known, nknown, id))
			known[nknown++] = *id;
		git_reference_free(r);
	}
	git_reference_iterator_free(it);
	push_pack pp = {NULL, NULL};
	if (git_repository_odb(&pp.odb, repo) || store_pack_new(&pp.p, 0))
		goto done;
	/* Depth first from new; every commit is packed once (its id). */
	if (!listed(known, nknown, new))
		todo[ntodo++] = *new;
	int commits = 0;
	while (ntodo > 0) {
		git_oid id = todo[--ntodo];
		if (store_pack_find(pp.p, &id) >= 0)
			continue;
		git_commit *c = NULL;
		if (++commits > PUSH_MAX_NEW ||
		    git_commit_lookup(&c, repo, &id))
			goto done;
		int bad = push_commit(&pp, repo, c);
		unsigned np = bad ? 0 : git_commit_parentcount(c);
		for (unsigned i = 0; i < np && !bad; i++) {
			const git_oid *up = git_commit_parent_id(c, i);
			if (listed(known, nknown, up) ||
			    store_pack_find(pp.p, up) >= 0)
				continue;
			if (ntodo == PUSH_MAX_NEW)
				bad = 1;
			else
				todo[ntodo++] = *up;
		}
		git_commit_free(c);
		if (bad)
			goto done;
	}
	size_t len;
	const unsigned char *bytes = store_pack_finish(pp.p, &len);
	if (bytes && buf_add(body, bytes, len) == 0)
		rc = 0;
done:
	store_pack_free(pp.p);
	git_odb_free(pp.odb);
	return rc;
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
	size_t mark = body->len;
	if (own_pack(repo, name, old, new, body) == 0)
		return 0;
	body->len = mark;
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
		    const char *ref, const git_oid *new, bool force,
		    const git_oid *from, git_oid *was)
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
	if (from)
		old = *from;
	else if (git_reference_name_to_id(&old, repo, theirs))
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
		*was = old;
		rc = 0;
	}
done:
	free(body.b);
	free(report.b);
	store_http_wipe(auth, sizeof auth);
	return rc;
}
