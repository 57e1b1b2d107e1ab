/*
 * http_fetch.c - layer 1 (leaves): a fetch from an https:// host over the
 * connection kept between syncs (http_tls.c), for the branches its ref
 * list named (http_quick.c): one POST of git-upload-pack in git's smart
 * HTTP protocol, version 2 (gitprotocol-v2: the `fetch` command with
 * want, have and done lines), whose answer is a `packfile` section, the
 * pack multiplexed in side-band packets; the pack goes to libgit2's
 * indexer (git_odb_write_pack: every object checked and hashed), then
 * refs/remotes/<remote>/ move to the listed tips (or the caller, a sync,
 * moves them with the branches it adopts). libgit2 1.5 would open
 * a new TLS connection and have the host start git twice (the ref
 * advertisement, then the pack).
 *
 * The answer is untrusted: a packet longer than the protocol allows, a
 * band that does not exist, a pack that does not index, or tips it did
 * not bring are refused with a sentence; the bytes, the objects and the
 * time are held to the sync's limits (CATAN_SYNC_MAX_FETCH_BYTES, 4 x
 * CATAN_SYNC_MAX_COMMITS objects, CATAN_SYNC_REMOTE_MS) as the pack
 * comes. A host that does not answer in version 2, and a list on which a
 * branch does not move forward (a stale info/refs), are left to libgit2.
 * What verify refuses is never adopted: this only fills the
 * remote-tracking refs, as libgit2's fetch does.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2/sys/odb_backend.h>

#include "http.h"

enum { PKT_MAX = 65520, HAVES_MAX = 64 };

/* The hosts (host:port) found not to answer in version 2. */
static char no_v2[4][300];
static int nno_v2;

typedef struct reader {
	/* the pkt-line under way */
	char hex[4];
	int nhex;
	size_t need, got;
	char pkt[PKT_MAX + 1];
	int state; /* 0: before "packfile", 1: in it, 2: after its flush */
	bool not_v2;
	/* the pack */
	git_odb_writepack *wp;
	git_indexer_progress stats;
	long long bytes;
	const store_budget *b;
	bool over;
	char *why;
	size_t whyn;
} reader;

static int limit(reader *r)
{
	const store_limits *lim = &r->b->lim;
	if (r->bytes > (long long)lim->fetch_bytes)
		snprintf(r->why, r->whyn,
			 "over CATAN_SYNC_MAX_FETCH_BYTES (%ld bytes)",
			 lim->fetch_bytes);
	else if ((long long)r->stats.total_objects > 4LL * lim->commits)
		snprintf(r->why, r->whyn,
			 "%u objects: over 4 x CATAN_SYNC_MAX_COMMITS (%ld)",
			 r->stats.total_objects, lim->commits);
	else if (store_past_deadline(r->b))
		snprintf(r->why, r->whyn, "over CATAN_SYNC_REMOTE_MS (%ld ms)",
			 lim->remote_ms);
	else
		return 0;
	r->over = true;
	return -1;
}

static int bad(reader *r, const char *what)
{
	snprintf(r->why, r->whyn, "%s", what);
	return -1;
}

/* The host's words (n bytes at p) for a message: at most out's size less
 * one, anything unprintable as a space. */
static void printable(char *out, size_t size, const char *p, size_t n)
{
	size_t k = n < size - 1 ? n : size - 1;
	for (size_t i = 0; i < k; i++)
		out[i] = p[i] >= ' ' && p[i] < 0x7f ? p[i] : ' ';
	out[k] = '\0';
}

/* One whole packet of the answer (n bytes at r->pkt). */
static int packet(reader *r, size_t n)
{
	const char *p = r->pkt;
	if (r->state == 0 && n >= 4 && !memcmp(p, "ERR ", 4)) {
		r->not_v2 = true; /* (libgit2 then says what is wrong) */
		return bad(r, "the host refused the version 2 fetch");
	}
	if (n >= 4 && !memcmp(p, "ERR ", 4)) {
		char msg[160];
		printable(msg, sizeof msg, p + 4, n - 4);
		snprintf(r->why, r->whyn, "the host refused the fetch: %s",
			 msg);
		return -1;
	}
	if (r->state == 0) {
		if ((n == 9 && !memcmp(p, "packfile\n", 9)) ||
		    (n == 8 && !memcmp(p, "packfile", 8))) {
			r->state = 1;
			return 0;
		}
		r->not_v2 = true; /* (any other section: not what we asked) */
		return bad(r, "the answer is not a version 2 packfile section");
	}
	if (n == 0)
		return bad(r, "an empty side-band packet");
	switch (p[0]) {
	case 1:
		r->bytes += (long long)n - 1;
		if (limit(r))
			return -1;
		if (r->wp->append(r->wp, p + 1, n - 1, &r->stats)) {
			const git_error *e = git_error_last();
			snprintf(r->why, r->whyn, "the pack is bad: %.150s",
				 e && e->message ? e->message : "");
			return -1;
		}
		return limit(r);
	case 2: /* (progress, though none was asked for) */
		return limit(r);
	case 3: {
		char msg[160];
		printable(msg, sizeof msg, p + 1, n - 1);
		snprintf(r->why, r->whyn, "the host gave up: %s", msg);
		return -1;
	}
	default:
		return bad(r, "a side-band packet of no band (not 1, 2, 3)");
	}
}

/* The answer's bytes as they come, cut into pkt-lines. */
static int answer_sink(void *ctx, const char *data, size_t len)
{
	reader *r = ctx;
	for (size_t i = 0; i < len;) {
		if (r->state == 2)
			return bad(r, "more after the pack's end");
		if (r->nhex < 4) {
			r->hex[r->nhex++] = data[i++];
			if (r->nhex < 4)
				continue;
			unsigned v = 0;
			for (int k = 0; k < 4; k++) {
				char c = r->hex[k];
				int d = c >= '0' && c <= '9'   ? c - '0'
					: c >= 'a' && c <= 'f' ? c - 'a' + 10
							       : -1;
				if (d < 0)
					return bad(r, "a packet length that "
						      "is not hex");
				v = v * 16 + (unsigned)d;
			}
			if (v == 0 && r->state == 1) {
				r->state = 2; /* (the flush: all of it) */
				r->nhex = 0;
				continue;
			}
			if (v < 4 || v > PKT_MAX)
				return bad(r, "a packet of a length the "
					      "protocol does not allow");
			r->need = v - 4;
			r->got = 0;
		}
		size_t k =
		    len - i < r->need - r->got ? len - i : r->need - r->got;
		memcpy(r->pkt + r->got, data + i, k);
		r->got += k;
		i += k;
		if (r->got == r->need) {
			r->nhex = 0;
			if (packet(r, r->need))
				return -1;
		}
	}
	return 0;
}

/*
 * Whether id, the tip the list names for ref, is wanted: when its object
 * is not here; else not when it is where this repository's branch of that
 * name stands or behind it (a branch here was verified, so every object it
 * reaches is here), nor when it was judged already (settled), nor for a
 * ref that is no branch here (an evidence ref, a branch no player has).
 * A tip whose commit is here but on no branch is wanted all the same: a
 * pack that brought the commit may have left out what it needs
 * (catan_verify_report.incomplete), and the haves name only branches.
 */
static bool wanted(git_repository *repo, git_odb *odb, const char *ref,
		   const git_oid *id, bool settled)
{
	if (git_odb_exists_ext(odb, id, GIT_ODB_LOOKUP_NO_REFRESH) == 0)
		return true; /* (no rescan of objects/pack for each one) */
	git_oid here;
	if (settled || strncmp(ref, "refs/heads/", 11) ||
	    git_reference_name_to_id(&here, repo, ref))
		return false;
	return !git_oid_equal(&here, id) &&
	       store_descends(repo, &here, id) != 1;
}

/* The request: the fetch command, wants (what the list names and wanted()
 * says) and haves (the branches here: what they reach is all here). */
static size_t request(git_repository *repo, git_odb *odb,
		      const store_http_heads *h, const bool *settled,
		      char *body, size_t size, int *nwant)
{
	char line[128], hex[GIT_OID_HEXSZ + 1];
	size_t len = 0;
	len += store_http_pkt_line(body + len, "command=fetch\n");
	len += store_http_pkt_line(body + len, "object-format=sha1\n");
	memcpy(body + len, "0001", 4);
	len += 4;
	len += store_http_pkt_line(body + len, "no-progress\n");
	len += store_http_pkt_line(body + len, "ofs-delta\n");
	*nwant = 0;
	for (int i = 0; i < h->n; i++) {
		const git_oid *id = &h->head[i].oid;
		bool dup =
		    !wanted(repo, odb, h->name[i], id, settled && settled[i]);
		for (int j = 0; j < i && !dup; j++)
			dup = git_oid_equal(&h->head[j].oid, id);
		if (dup)
			continue;
		git_oid_tostr(hex, sizeof hex, id);
		snprintf(line, sizeof line, "want %s\n", hex);
		len += store_http_pkt_line(body + len, line);
		(*nwant)++;
	}
	git_reference_iterator *it = NULL;
	git_reference *ref;
	int haves = 0;
	if (git_reference_iterator_glob_new(&it, repo, "refs/heads/*") == 0) {
		while (haves < HAVES_MAX && len + 64 < size &&
		       git_reference_next(&ref, it) == 0) {
			const char *rn = git_reference_name(ref);
			const git_oid *id = git_reference_target(ref);
			if (id && !strncmp(rn, "refs/heads/", 11)) {
				git_oid_tostr(hex, sizeof hex, id);
				snprintf(line, sizeof line, "have %s\n", hex);
				len += store_http_pkt_line(body + len, line);
				haves++;
			}
			git_reference_free(ref);
		}
		git_reference_iterator_free(it);
	}
	len += store_http_pkt_line(body + len, "done\n");
	memcpy(body + len, "0000", 4);
	return len + 4;
}

/* The POST, its answer into the odb: 0, 1 (not version 2), -1, -2. */
static int post(git_repository *repo, const store_http_url *u, const char *auth,
		const char *body, size_t len, reader *r)
{
	git_odb *odb = NULL;
	char path[800];
	int rc = -1;
	snprintf(path, sizeof path, "%s/git-upload-pack", u->path);
	if (git_repository_odb(&odb, repo) ||
	    git_odb_write_pack(&r->wp, odb, NULL, NULL)) {
		git_odb_free(odb);
		return bad(r, "cannot write a pack here");
	}
	/* A join has no sync deadline (deadline_ms 0): the one a fetch through
	 * libgit2 has on its connection then (net.c), so that a host that
	 * trickles its answer cannot keep it reading for hours. */
	double until =
	    r->b->deadline_ms > 0
		? r->b->deadline_ms
		: store_now_ms() +
		      store_http_env_ms("CATAN_NET_DEADLINE_MS", 120000);
	int status = -1;
	for (int tries = 0; tries < 2 && status < 0 && !r->got && !r->nhex &&
			    !r->state && !r->why[0];
	     tries++) {
		bool kept = store_tls_up();
		if (!store_tls_connect(repo, u->host, u->port))
			break;
		status = store_tls_request(
		    "POST", u->hostport, path, auth,
		    "Content-Type: application/x-git-upload-pack-request\r\n"
		    "Accept: application/x-git-upload-pack-result\r\n"
		    "Git-Protocol: version=2\r\n"
		    "Catan-Peer: 1\r\n",
		    body, len, answer_sink, r,
		    (size_t)r->b->lim.fetch_bytes * 2 + PKT_MAX * 4, until);
		if (!kept)
			break;
	}
	if (status < 0 && !r->why[0] && store_past_deadline(r->b)) {
		limit(r);
	} else if (status < 0 && !r->why[0] && store_now_ms() > until) {
		snprintf(r->why, r->whyn,
			 "no whole answer within CATAN_NET_DEADLINE_MS (%d ms)",
			 store_http_env_ms("CATAN_NET_DEADLINE_MS", 120000));
	} else if (status == 200 && r->state == 2) {
		if (r->wp->commit(r->wp, &r->stats) == 0)
			rc = 0;
		else
			bad(r, "the pack does not index");
	} else if (status == 200 && r->state == 0 && !r->why[0]) {
		r->not_v2 = true;
	} else if (status >= 0 && status != 200) {
		rc = 1; /* (a login refused...: the usual way says it) */
	} else if (!r->why[0]) {
		bad(r, status < 0 ? "the connection failed or the answer was "
				    "malformed"
				  : "the answer ended before the pack did");
	}
	r->wp->free(r->wp);
	r->wp = NULL;
	git_odb_free(odb);
	if (r->over)
		return -2;
	return r->not_v2 ? 1 : rc;
}

/* Moves the remote-tracking refs to the tips h lists, each forward (or,
 * with move, says which are to move, and from where in old). Each ref is
 * read once. */
static int move_refs(git_repository *repo, const char *name,
		     const store_http_heads *h, bool *changed, bool *move,
		     git_oid *old, reader *r)
{
	git_odb *odb = NULL;
	if (git_repository_odb(&odb, repo))
		return bad(r, "cannot read the objects here");
	for (int i = 0; i < h->n; i++)
		if (!git_odb_exists(odb, &h->head[i].oid)) {
			git_odb_free(odb);
			return bad(r, "the pack lacks a tip the list names");
		}
	git_odb_free(odb);
	char local[STORE_HTTP_HEADS][512];
	git_oid have[STORE_HTTP_HEADS];
	bool there[STORE_HTTP_HEADS];
	for (int i = 0; i < h->n; i++) {
		if (!store_tracking_ref(local[i], sizeof local[i], name,
					h->name[i]))
			return 1;
		there[i] =
		    git_reference_name_to_id(&have[i], repo, local[i]) == 0;
		/* (a record moves to smaller ids, not forward; -2: a commit
		 * between them is not here, -1: one is no commit: the ref
		 * moves all the same, and the adoption says which, held
		 * back for a pack that left it out or refused as a rewrite) */
		if (!strncmp(h->name[i], "refs/heads/", 11) && there[i] &&
		    !git_oid_equal(&have[i], &h->head[i].oid) &&
		    store_descends(repo, &h->head[i].oid, &have[i]) == 0)
			return 1; /* (a stale list, or a rewrite: libgit2) */
	}
	if (move) {
		for (int i = 0; i < h->n; i++) {
			move[i] = !(there[i] &&
				    git_oid_equal(&have[i], &h->head[i].oid));
			if (there[i])
				old[i] = have[i];
			else
				memset(&old[i], 0, sizeof old[i]);
			*changed |= move[i];
		}
		return 0;
	}
	int rc = 0;
	for (int i = 0; i < h->n && rc == 0; i++) {
		git_reference *ref = NULL;
		if (there[i] && git_oid_equal(&have[i], &h->head[i].oid))
			continue;
		if (git_reference_create(&ref, repo, local[i], &h->head[i].oid,
					 1, "catan sync")) {
			const git_error *e = git_error_last();
			snprintf(r->why, r->whyn, "%.300s: %.150s", local[i],
				 e && e->message ? e->message : "not written");
			rc = -3;
		}
		git_reference_free(ref);
		*changed |= rc == 0;
	}
	return rc;
}

int store_http_fetch(git_repository *repo, const char *name, const char *url,
		     const store_http_heads *h, const store_budget *b,
		     const bool *settled, bool *changed, bool *move,
		     git_oid *old, char *why, size_t whyn)
{
	store_http_url u;
	char auth[720], key[300];
	*changed = false;
	why[0] = '\0';
	if (!store_http_url_split(url, &u) ||
	    !store_http_auth(url, auth, sizeof auth))
		return 1;
	snprintf(key, sizeof key, "%s:%s", u.host, u.port);
	reader *r = calloc(1, sizeof *r);
	size_t size = (size_t)(h->n + HAVES_MAX) * 60 + 256;
	char *body = malloc(size);
	git_odb *odb = NULL;
	int rc = 1;
	if (!r || !body || git_repository_odb(&odb, repo))
		goto done;
	r->b = b;
	r->why = why;
	r->whyn = whyn;
	int nwant = 0;
	size_t len = request(repo, odb, h, settled, body, size, &nwant);
	git_odb_free(odb);
	store_tls_lock();
	for (int i = 0; i < nno_v2 && nwant; i++)
		if (!strcmp(no_v2[i], key))
			nwant = -1; /* (known not to: the usual way) */
	rc = nwant > 0 ? post(repo, &u, auth, body, len, r) : nwant ? 1 : 0;
	if (rc == 1 && r->not_v2 && nwant > 0) {
		snprintf(no_v2[nno_v2 % 4], sizeof no_v2[0], "%s", key);
		nno_v2 += nno_v2 < 4;
	}
	store_tls_unlock();
	if (rc == 0)
		rc = move_refs(repo, name, h, changed, move, old, r);
	if (rc == -3)
		rc = -1;
	if (rc == 1)
		why[0] = '\0';
done:
	free(body);
	free(r);
	store_http_wipe(auth, sizeof auth);
	return rc;
}
