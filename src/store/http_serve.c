/*
 * http_serve.c - layer 7 (top): the host's side of what http_fetch.c,
 * http_quick.c and http_push.c ask, answered by a process that stays up
 * (`catan host-hook serve BARE --http`, behind the host's web server)
 * instead of git-http-backend, which starts git once or twice per
 * request:
 *   - git-upload-pack in protocol version 2: `ls-refs` (the refs, by
 *     prefix) and `fetch` (wants that a ref reaches, haves, done: the
 *     pack in side-band packets);
 *   - git-receive-pack: the update lines (report-status, side-band-64k),
 *     the pack indexed into a quarantine folder of the repository, the
 *     push checked there as the pre-receive hook checks it (the caller's
 *     check), then the pack moved in, every ref moved from the old id the
 *     client named (compare and swap: a ref moved meanwhile is refused),
 *     and info/refs and objects/info/packs rewritten (what
 *     `git update-server-info` writes: the "anything new?" of waiting
 *     peers).
 * Every request is untrusted: a malformed one gets the protocol's error
 * (an ERR packet, or "unpack <reason>" / "ng <ref> <reason>"), and costs
 * at most what its bounded size allows. Uses repo.h, exchange.h (the
 * merge of small packs) and http.h.
 */
#define _GNU_SOURCE /* mkdtemp */

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "base.h"
#include "catan/store.h"
#include "exchange.h"
#include "http.h"
#include "repo.h"

enum {
	SERVE_PKT_MAX = 65520,
	SERVE_BAND_MAX = 65515, /* a side-band packet's data */
	SERVE_WANTS = 256,
	SERVE_HAVES = 1024,
	SERVE_PREFIXES = 32,
	SERVE_REFS = 1024,
	SERVE_UPDATES = 64,
	SERVE_PACKS = 16, /* past it, the small packs are merged */
	SERVE_INFLATED_MAX = 256 << 20, /* a push's objects, inflated */
};

/* ---- bytes out ---- */

typedef struct sbuf {
	char *b;
	size_t len, cap;
	bool oom;
} sbuf;

static void put(sbuf *o, const void *data, size_t n)
{
	if (o->oom)
		return;
	char *b = store_reserve(o->b, &o->cap, o->len + n, 1);
	if (!b) {
		o->oom = true;
		return;
	}
	o->b = b;
	memcpy(o->b + o->len, data, n);
	o->len += n;
}

/* A pkt-line of n bytes of data (n <= SERVE_PKT_MAX - 4). */
static void put_pkt(sbuf *o, const void *data, size_t n)
{
	char hex[5];
	store_http_pkt_len(hex, n + 4);
	put(o, hex, 4);
	put(o, data, n);
}

static void put_line(sbuf *o, const char *text)
{
	put_pkt(o, text, strlen(text));
}

/* data in band packets (1: the pack or the report, 2: messages). */
static void put_band(sbuf *o, int band, const char *data, size_t n)
{
	char pkt[SERVE_BAND_MAX + 1];
	for (size_t at = 0; at < n;) {
		size_t k = n - at < SERVE_BAND_MAX ? n - at : SERVE_BAND_MAX;
		pkt[0] = (char)band;
		memcpy(pkt + 1, data + at, k);
		put_pkt(o, pkt, k + 1);
		at += k;
	}
}

/* ---- pkt-lines in ---- */

typedef struct pkts {
	const char *p;
	size_t len, at;
} pkts;

enum { PKT_BAD = -1, PKT_FLUSH = 0, PKT_DATA = 1, PKT_DELIM = 2, PKT_END = 3 };

/* The next packet: its kind, and for data its bytes (a final newline
 * dropped) at *line, *n. */
static int next_pkt(pkts *r, const char **line, size_t *n)
{
	if (r->at + 4 > r->len)
		return PKT_BAD;
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = r->p[r->at + i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
					       : -1;
		if (d < 0)
			return PKT_BAD;
		v = v * 16 + (unsigned)d;
	}
	r->at += 4;
	if (v < 4)
		return v == 0 ? PKT_FLUSH : v == 1 ? PKT_DELIM : PKT_END;
	if (v > SERVE_PKT_MAX || r->at + (v - 4) > r->len)
		return PKT_BAD;
	*line = r->p + r->at;
	*n = v - 4;
	r->at += v - 4;
	if (*n && (*line)[*n - 1] == '\n')
		(*n)--;
	return PKT_DATA;
}

/* Whether the packet (line, n) is `word` followed by the end or `sep`;
 * *rest after it. */
static bool starts(const char *line, size_t n, const char *word,
		   const char **rest, size_t *restn)
{
	size_t k = strlen(word);
	if (n < k || memcmp(line, word, k))
		return false;
	*rest = line + k;
	*restn = n - k;
	return true;
}

/* An object id of exactly 40 hex digits. */
static bool parse_oid(git_oid *id, const char *p, size_t n)
{
	if (n != GIT_OID_HEXSZ)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') ||
		      (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return git_oid_fromstrn(id, p, n) == 0;
}

/* ---- the refs ---- */

typedef struct refs {
	int n;
	char name[SERVE_REFS][256];
	git_oid id[SERVE_REFS];
} refs;

typedef struct ref_entry {
	char name[256];
	git_oid id;
} ref_entry;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const ref_entry *)a)->name,
		      ((const ref_entry *)b)->name);
}

/* Every direct ref under refs/ (at most SERVE_REFS), sorted by name. */
static int read_refs(git_repository *repo, refs *out)
{
	git_reference_iterator *it = NULL;
	git_reference *r;
	out->n = 0;
	if (git_reference_iterator_glob_new(&it, repo, "refs/*"))
		return -1;
	int rc = 0;
	static ref_entry e[SERVE_REFS];
	int n = 0;
	while ((rc = git_reference_next(&r, it)) == 0) {
		const char *name = git_reference_name(r);
		const git_oid *id = git_reference_target(r);
		if (id && strlen(name) < sizeof e[0].name && n < SERVE_REFS) {
			snprintf(e[n].name, sizeof e[n].name, "%s", name);
			e[n++].id = *id;
		}
		git_reference_free(r);
	}
	git_reference_iterator_free(it);
	if (rc != GIT_ITEROVER)
		return -1;
	qsort(e, (size_t)n, sizeof e[0], cmp_name);
	/* (ids apart, in one array: git_graph_reachable_from_any) */
	for (int i = 0; i < n; i++) {
		memcpy(out->name[i], e[i].name, sizeof e[i].name);
		out->id[i] = e[i].id;
	}
	out->n = n;
	return 0;
}

/* ---- upload-pack, version 2 ---- */

static int err_pkt(sbuf *o, const char *why)
{
	char line[300];
	snprintf(line, sizeof line, "ERR %s\n", why);
	put_line(o, line);
	return 400;
}

static int ls_refs(git_repository *repo, pkts *r, sbuf *o)
{
	char prefix[SERVE_PREFIXES][256];
	int np = 0;
	/* (a request with no arguments ends at the capabilities' flush) */
	while (r->at < r->len) {
		const char *line, *rest;
		size_t n, rn;
		int k = next_pkt(r, &line, &n);
		if (k == PKT_FLUSH)
			break;
		if (k != PKT_DATA)
			return err_pkt(o, "ls-refs: malformed arguments");
		if (starts(line, n, "ref-prefix ", &rest, &rn)) {
			if (np == SERVE_PREFIXES || rn >= sizeof prefix[0])
				return err_pkt(o, "ls-refs: too many or too "
						  "long prefixes");
			memcpy(prefix[np], rest, rn);
			prefix[np++][rn] = '\0';
		} else if (!((n == 4 && !memcmp(line, "peel", 4)) ||
			     (n == 7 && !memcmp(line, "symrefs", 7)) ||
			     (n == 6 && !memcmp(line, "unborn", 6)))) {
			return err_pkt(o, "ls-refs: an unknown argument");
		}
	}
	static refs all;
	if (read_refs(repo, &all))
		return err_pkt(o, "cannot read the refs");
	for (int i = 0; i < all.n; i++) {
		bool match = np == 0;
		for (int j = 0; j < np && !match; j++)
			match =
			    !strncmp(all.name[i], prefix[j], strlen(prefix[j]));
		if (!match)
			continue;
		char line[320], hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof hex, &all.id[i]);
		snprintf(line, sizeof line, "%s %s\n", hex, all.name[i]);
		put_line(o, line);
	}
	put(o, "0000", 4);
	return 200;
}

static int pack_cb(void *data, size_t size, void *payload)
{
	sbuf *o = payload;
	put_band(o, 1, data, size);
	return o->oom ? -1 : 0;
}

static int fetch(git_repository *repo, pkts *r, sbuf *o)
{
	static git_oid want[SERVE_WANTS], have[SERVE_HAVES];
	int nw = 0, nh = 0;
	bool done = false;
	for (;;) {
		const char *line, *rest;
		size_t n, rn;
		int k = next_pkt(r, &line, &n);
		if (k == PKT_FLUSH)
			break;
		if (k != PKT_DATA)
			return err_pkt(o, "fetch: malformed arguments");
		if (starts(line, n, "want ", &rest, &rn)) {
			if (nw == SERVE_WANTS ||
			    !parse_oid(&want[nw], rest, rn))
				return err_pkt(o, "fetch: a bad want, or too "
						  "many");
			nw++;
		} else if (starts(line, n, "have ", &rest, &rn)) {
			if (nh == SERVE_HAVES ||
			    !parse_oid(&have[nh], rest, rn))
				return err_pkt(o, "fetch: a bad have, or too "
						  "many");
			nh++;
		} else if (n == 4 && !memcmp(line, "done", 4)) {
			done = true;
		} else if (!((n == 11 && !memcmp(line, "no-progress", 11)) ||
			     (n == 9 && !memcmp(line, "ofs-delta", 9)) ||
			     (n == 9 && !memcmp(line, "thin-pack", 9)) ||
			     (n == 11 && !memcmp(line, "include-tag", 11)))) {
			return err_pkt(o, "fetch: an argument this host does "
					  "not take");
		}
	}
	if (!nw)
		return err_pkt(o, "fetch: nothing wanted");
	if (!done)
		return err_pkt(o, "fetch: this host answers only a fetch "
				  "with done");
	/*
	 * Only what a ref holds: a client learns no object that no ref
	 * reaches. Not only tips: a branch may move between the list a peer
	 * read and its fetch, and the tip it read is then in the history of
	 * the new one (git's upload-pack in version 2 takes such wants too).
	 */
	static refs all;
	if (read_refs(repo, &all))
		return err_pkt(o, "cannot read the refs");
	for (int i = 0; i < nw; i++) {
		bool held = false;
		for (int j = 0; j < all.n && !held; j++)
			held = git_oid_equal(&want[i], &all.id[j]);
		if (!held && all.n > 0 &&
		    git_graph_reachable_from_any(repo, &want[i], all.id,
						 (size_t)all.n) == 1)
			held = true;
		if (!held)
			return err_pkt(o, "fetch: a want that no ref reaches");
	}
	git_odb *odb = NULL;
	git_packbuilder *pb = NULL;
	git_revwalk *walk = NULL;
	int status = 200;
	if (git_repository_odb(&odb, repo) || git_packbuilder_new(&pb, repo) ||
	    git_revwalk_new(&walk, repo)) {
		status = err_pkt(o, "cannot read the objects");
		goto done;
	}
	for (int i = 0; i < nw && status == 200; i++)
		if (git_revwalk_push(walk, &want[i]))
			status = err_pkt(o, "fetch: a want that is no commit");
	for (int i = 0; i < nh && status == 200; i++) {
		size_t sz;
		git_object_t t;
		if (git_odb_read_header(&sz, &t, odb, &have[i]) == 0 &&
		    t == GIT_OBJECT_COMMIT && git_revwalk_hide(walk, &have[i]))
			status = err_pkt(o, "cannot walk the history");
	}
	if (status != 200)
		goto done;
	put_line(o, "packfile\n");
	if (git_packbuilder_insert_walk(pb, walk) ||
	    git_packbuilder_foreach(pb, pack_cb, o)) {
		/* (the packets so far are dropped: only the error goes) */
		o->len = 0;
		o->oom = false;
		status = err_pkt(o, "cannot make the pack");
		goto done;
	}
	put(o, "0000", 4);
done:
	git_revwalk_free(walk);
	git_packbuilder_free(pb);
	git_odb_free(odb);
	return status;
}

int catan_store_serve_upload(catan_store *s, const char *body, size_t len,
			     char **out, size_t *outlen)
{
	sbuf o = {0};
	pkts r = {body, len, 0};
	int command = 0; /* 1: ls-refs, 2: fetch */
	int status = 0;
	for (;;) {
		const char *line, *rest;
		size_t n, rn;
		int k = next_pkt(&r, &line, &n);
		if (k == PKT_DELIM || (k == PKT_FLUSH && command == 1))
			break;
		if (k != PKT_DATA) {
			status = err_pkt(&o, "a malformed request");
			break;
		}
		if (starts(line, n, "command=", &rest, &rn) && !command) {
			if (rn == 7 && !memcmp(rest, "ls-refs", 7))
				command = 1;
			else if (rn == 5 && !memcmp(rest, "fetch", 5))
				command = 2;
			else {
				status = err_pkt(&o, "an unknown command");
				break;
			}
		} else if (!(starts(line, n, "agent=", &rest, &rn) ||
			     (n == 18 &&
			      !memcmp(line, "object-format=sha1", 18)))) {
			status = err_pkt(&o, "a capability this host does "
					     "not take");
			break;
		}
	}
	if (!status && !command)
		status = err_pkt(&o, "no command");
	if (!status) {
		git_repository *repo = s->repo;
		status =
		    command == 1 ? ls_refs(repo, &r, &o) : fetch(repo, &r, &o);
	}
	if (o.oom) {
		free(o.b);
		*out = NULL;
		*outlen = 0;
		return 500;
	}
	*out = o.b;
	*outlen = o.len;
	return status;
}

/* ---- receive-pack ---- */

typedef struct update {
	git_oid old, new;
	char ref[256];
	const char *why; /* NULL: moved */
} update;

/* Moves the pack in qdir/pack into the repository's objects/pack: the
 * .pack first, the .idx (which makes readers see it) last. */
static int move_pack(const char *objects, const char *qdir)
{
	char from[1600], to[1600], pack[1300];
	snprintf(pack, sizeof pack, "%.1200s/pack", qdir);
	DIR *d = opendir(pack);
	if (!d)
		return -1;
	char names[8][256];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 8)
		if (!strncmp(e->d_name, "pack-", 5) &&
		    strlen(e->d_name) < sizeof names[0])
			snprintf(names[n++], sizeof names[0], "%s", e->d_name);
	closedir(d);
	int rc = 0;
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (int i = 0; i < n && !rc; i++) {
			size_t k = strlen(names[i]);
			bool idx = k > 4 && !strcmp(names[i] + k - 4, ".idx");
			if (idx != (pass == 1))
				continue;
			snprintf(from, sizeof from, "%.1300s/%.255s", pack,
				 names[i]);
			snprintf(to, sizeof to, "%.1100s/pack/%.255s", objects,
				 names[i]);
			if (rename(from, to))
				rc = -1;
		}
	snprintf(to, sizeof to, "%.1100s/pack", objects);
	if (!rc)
		rc = store_fsync_dir(to);
	return rc;
}

/*
 * Writes path whole, not synced: what it holds is derived (server_info),
 * and a list lost to a crash is written again by the next push, while
 * peers find moves through the refs themselves every CATAN_HTTP_FULL_MS
 * (git's update-server-info does not sync either). The text goes into a
 * second file kept beside it, PATH.catan-tmp, which then trades places
 * with path (renameat2's RENAME_EXCHANGE): a reader sees the old text or
 * the new (one that holds it open across two pushes may see it rewritten:
 * a wrong list, which peers take for a stale one), and no file is created
 * or freed per push (a new file was the costliest step of a push: on ext4
 * without a journal, 15% of the host's CPU went into finding a free
 * inode). Where the exchange is not supported, or path is not there yet,
 * the file is renamed over it.
 */
static int write_file(const char *path, const char *data, size_t n)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.catan-tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	size_t at = 0;
	while (at < n) {
		ssize_t w = pwrite(fd, data + at, n - at, (off_t)at);
		if (w <= 0)
			break;
		at += (size_t)w;
	}
	int rc = at == n && ftruncate(fd, (off_t)n) == 0 ? 0 : -1;
	close(fd);
	if (rc == 0 &&
	    renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0)
		return 0;
	if (rc || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* What `git update-server-info` writes: info/refs and
 * objects/info/packs. */
static int server_info(git_repository *repo, const char *gitdir)
{
	static refs all;
	if (read_refs(repo, &all))
		return -1;
	sbuf o = {0};
	for (int i = 0; i < all.n; i++) {
		char line[320], hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof hex, &all.id[i]);
		int k =
		    snprintf(line, sizeof line, "%s\t%s\n", hex, all.name[i]);
		put(&o, line, (size_t)k);
	}
	char path[4096];
	snprintf(path, sizeof path, "%sinfo", gitdir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%sinfo/refs", gitdir);
	int rc = o.oom || write_file(path, o.b ? o.b : "", o.len) ? -1 : 0;
	o.len = 0;
	snprintf(path, sizeof path, "%sobjects/pack", gitdir);
	DIR *d = opendir(path);
	while (d) {
		struct dirent *e = readdir(d);
		if (!e)
			break;
		size_t k = strlen(e->d_name);
		if (k > 5 && k < 200 && !strcmp(e->d_name + k - 5, ".pack")) {
			char line[256];
			int m =
			    snprintf(line, sizeof line, "P %s\n", e->d_name);
			put(&o, line, (size_t)m);
		}
	}
	if (d)
		closedir(d);
	put(&o, "\n", 1);
	snprintf(path, sizeof path, "%sobjects/info", gitdir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%sobjects/info/packs", gitdir);
	if (o.oom || write_file(path, o.b, o.len))
		rc = -1;
	free(o.b);
	return rc;
}

/* The report: "unpack ok" (or its reason), then "ok REF" / "ng REF why"
 * for each update; in band 1 when side-band-64k was asked. */
static void report(sbuf *o, bool band, const char *unpack, const update *u,
		   int n, const char *message)
{
	sbuf rep = {0};
	char line[1024];
	snprintf(line, sizeof line, "unpack %s\n", unpack ? unpack : "ok");
	put_line(&rep, line);
	for (int i = 0; i < n; i++) {
		if (u[i].why)
			snprintf(line, sizeof line, "ng %s %.700s\n", u[i].ref,
				 u[i].why);
		else
			snprintf(line, sizeof line, "ok %s\n", u[i].ref);
		put_line(&rep, line);
	}
	put(&rep, "0000", 4);
	if (band) {
		if (message && *message)
			put_band(o, 2, message, strlen(message));
		if (!rep.oom)
			put_band(o, 1, rep.b, rep.len);
		put(o, "0000", 4);
	} else if (!rep.oom) {
		put(o, rep.b, rep.len);
	}
	o->oom |= rep.oom;
	free(rep.b);
}

/* Moves each ref from its old id (compare and swap), flushed (libgit2's
 * fsync: a loose ref left empty by a power cut would refuse every later
 * push of its branch). */
static void move_refs(git_repository *repo, update *u, int n, const char *user)
{
	char msg[200];
	snprintf(msg, sizeof msg, "catan host: push by %.100s", user);
	for (int i = 0; i < n; i++) {
		git_reference *r = NULL;
		int rc = git_oid_is_zero(&u[i].old)
			     ? git_reference_create(&r, repo, u[i].ref,
						    &u[i].new, 0, msg)
			     : git_reference_create_matching(&r, repo, u[i].ref,
							     &u[i].new, 1,
							     &u[i].old, msg);
		git_reference_free(r);
		if (rc == GIT_EEXISTS || rc == GIT_EMODIFIED)
			u[i].why = "the ref moved meanwhile (fetch first)";
		else if (rc)
			u[i].why = "cannot write the ref";
	}
}

/* The bytes of the zlib stream at p (at most n) inflated with z, *used
 * the stream's length; at most cap (more: -1), -1 when it does not end.
 * Its first bytes (up to headn) into head. */
static long inflated(z_stream *z, const unsigned char *p, size_t n, size_t cap,
		     size_t *used, unsigned char *head, size_t headn)
{
	static unsigned char sink[16384];
	if (inflateReset(z) != Z_OK)
		return -1;
	z->next_in = (unsigned char *)p;
	z->avail_in = n > UINT_MAX ? UINT_MAX : (unsigned)n;
	int rc = Z_OK;
	while (rc == Z_OK && z->total_out <= cap) {
		uLong before = z->total_out;
		z->next_out = sink;
		z->avail_out = sizeof sink;
		rc = inflate(z, Z_NO_FLUSH);
		if (before < headn)
			memcpy(head + before, sink,
			       z->total_out - before < headn - before
				   ? z->total_out - before
				   : headn - before);
	}
	*used = z->total_in;
	return rc == Z_STREAM_END && z->total_out <= cap ? (long)z->total_out
							 : -1;
}

/* A delta's size varint at *p (before end), or -1. */
static long delta_size(const unsigned char **p, const unsigned char *end)
{
	unsigned long v = 0;
	for (int shift = 0; *p < end && shift < 28; shift += 7) {
		unsigned char c = *(*p)++;
		v |= (unsigned long)(c & 127) << shift;
		if (!(c & 128))
			return (long)v;
	}
	return -1;
}

/* Whether the pack entry at *at (before end) fits (pack_fits); *at
 * after it, its bytes inflated added to *total. */
static bool entry_fits(z_stream *z, const unsigned char *p, size_t end,
		       size_t *pat, size_t *total)
{
	size_t at = *pat;
	if (at >= end)
		return false;
	unsigned type = (p[at] >> 4) & 7;
	size_t size = p[at] & 15;
	for (int shift = 4; p[at++] & 128; shift += 7)
		if (at >= end || shift > 25)
			return false;
		else
			size |= (size_t)(p[at] & 127) << shift;
	if (type == 6) { /* the base's distance */
		while (at < end && p[at] & 128)
			at++;
		at++;
	} else if (type == 7) { /* the base's id */
		at += 20;
	} else if (type == 0 || type == 5) {
		return false;
	}
	unsigned char head[20] = {0};
	size_t used = 0;
	if (at >= end || size > STORE_MAX_OBJECT ||
	    inflated(z, p + at, end - at, size, &used, head, sizeof head) !=
		(long)size)
		return false;
	*total += size;
	if (type >= 6) { /* the sizes the delta names */
		const unsigned char *h = head,
				    *he = head + (size < 20 ? size : 20);
		long base = delta_size(&h, he), res = delta_size(&h, he);
		if (base < 0 || res < 0 || base > STORE_MAX_OBJECT ||
		    res > STORE_MAX_OBJECT)
			return false;
		*total += (size_t)res;
	}
	if (*total > SERVE_INFLATED_MAX)
		return false;
	*pat = at + used;
	return true;
}

/*
 * Whether a pack (when it is one: the indexer says what else is wrong)
 * costs what its size allows. libgit2's indexer allocates for the
 * header's object count before it reads an object (a 400-byte push
 * claiming 600 million objects: 4.8 GB asked), and makes every object a
 * delta describes at the size the delta names (a 1.5 KB push of deltas
 * of 256 MiB each held the server 45 s and 10 GB). So: a count its bytes
 * can hold (an entry takes at least 9 bytes: a byte of type and size and
 * the smallest zlib stream, 8), every object and delta at most
 * STORE_MAX_OBJECT (what any reader of the store accepts), and all of
 * them together at most SERVE_INFLATED_MAX.
 */
static bool pack_fits(const char *pack, size_t n)
{
	const unsigned char *p = (const unsigned char *)pack;
	if (n < 12 || memcmp(p, "PACK", 4))
		return true;
	uint32_t count = (uint32_t)p[8] << 24 | (uint32_t)p[9] << 16 |
			 (uint32_t)p[10] << 8 | p[11];
	if (count == 0)
		return true;
	if (n < 32 || count > (n - 32) / 8)
		return false;
	size_t at = 12, end = n - 20, total = 0;
	z_stream z = {0};
	bool fits = inflateInit(&z) == Z_OK;
	for (uint32_t i = 0; fits && i < count; i++)
		fits = entry_fits(&z, p, end, &at, &total);
	inflateEnd(&z);
	return fits;
}

int catan_store_serve_receive(catan_store *s, const char *user,
			      const char *body, size_t len,
			      catan_serve_check check, void *ctx, char **out,
			      size_t *outlen)
{
	sbuf o = {0};
	pkts r = {body, len, 0};
	static update u[SERVE_UPDATES];
	int n = 0;
	bool band = false, bad = false;
	char qdir[1200] = "";
	const char *unpack = NULL;
	git_repository *repo = s->repo;
	const char *gitdir = git_repository_path(repo);
	char *message = NULL;
	int status = 200;
	/* The update lines; the first carries the capabilities. */
	for (;;) {
		const char *line;
		size_t k;
		int kind = next_pkt(&r, &line, &k);
		if (kind == PKT_FLUSH)
			break;
		if (kind != PKT_DATA || n == SERVE_UPDATES) {
			bad = true;
			break;
		}
		const char *nul = memchr(line, '\0', k);
		size_t cmd = nul ? (size_t)(nul - line) : k;
		if (nul && n == 0) {
			/* report-status is the only answer this host writes
			 * (report-status-v2's lines are the same here);
			 * atomic and push-options are refused. */
			const char *c = nul + 1, *end = line + k;
			while (c < end) {
				const char *sp =
				    memchr(c, ' ', (size_t)(end - c));
				size_t w =
				    sp ? (size_t)(sp - c) : (size_t)(end - c);
				if (w == 13 && !memcmp(c, "side-band-64k", 13))
					band = true;
				else if (!((w == 13 &&
					    !memcmp(c, "report-status", 13)) ||
					   (w == 16 &&
					    !memcmp(c, "report-status-v2",
						    16)) ||
					   (w == 5 && !memcmp(c, "quiet", 5)) ||
					   (w == 9 &&
					    !memcmp(c, "ofs-delta", 9)) ||
					   (w == 18 &&
					    !memcmp(c, "object-format=sha1",
						    18)) ||
					   (w > 6 && !memcmp(c, "agent=", 6)) ||
					   w == 0))
					bad = true;
				c += w + 1;
			}
		} else if (nul) {
			bad = true;
		}
		/* "OLD NEW REF" */
		if (bad || cmd < 2 * GIT_OID_HEXSZ + 3 ||
		    line[GIT_OID_HEXSZ] != ' ' ||
		    line[2 * GIT_OID_HEXSZ + 1] != ' ' ||
		    !parse_oid(&u[n].old, line, GIT_OID_HEXSZ) ||
		    !parse_oid(&u[n].new, line + GIT_OID_HEXSZ + 1,
			       GIT_OID_HEXSZ) ||
		    cmd - 2 * GIT_OID_HEXSZ - 2 >= sizeof u[n].ref) {
			bad = true;
			break;
		}
		size_t rl = cmd - 2 * GIT_OID_HEXSZ - 2;
		memcpy(u[n].ref, line + 2 * GIT_OID_HEXSZ + 2, rl);
		u[n].ref[rl] = '\0';
		u[n].why = NULL;
		int valid = 0;
		if (strncmp(u[n].ref, "refs/", 5) ||
		    git_reference_name_is_valid(&valid, u[n].ref) || !valid) {
			bad = true;
			break;
		}
		n++;
	}
	if (bad || n == 0) {
		sbuf e = {0};
		put_line(&e, "ERR a malformed push request\n");
		*out = e.b;
		*outlen = e.len;
		return 400;
	}
	for (int i = 0; i < n; i++)
		if (git_oid_is_zero(&u[i].new))
			u[i].why = "this host deletes no refs";
	/* The pack, into a quarantine folder of the repository. */
	char objects[1100];
	if (strlen(gitdir) > 1024) {
		sbuf e = {0};
		put_line(&e, "ERR the repository's path is too long\n");
		*out = e.b;
		*outlen = e.len;
		return 500;
	}
	snprintf(objects, sizeof objects, "%.1024sobjects", gitdir);
	snprintf(qdir, sizeof qdir, "%.1100s/incoming-catan-XXXXXX", objects);
	git_indexer *ix = NULL;
	git_indexer_progress st = {0};
	char pack[1300];
	if (!pack_fits(body + r.at, len - r.at)) {
		qdir[0] = '\0';
		unpack = "the pack's objects are too many or too large";
	} else if (!mkdtemp(qdir)) {
		qdir[0] = '\0';
		unpack = "cannot make a quarantine folder";
	} else {
		snprintf(pack, sizeof pack, "%.1200s/pack", qdir);
		git_indexer_options io;
		git_indexer_options_init(&io, GIT_INDEXER_OPTIONS_VERSION);
		if (mkdir(pack, 0755) ||
		    git_indexer_new(&ix, pack, 0, NULL, &io) ||
		    (r.at < len &&
		     git_indexer_append(ix, body + r.at, len - r.at, &st)) ||
		    (r.at < len && git_indexer_commit(ix, &st)))
			unpack = "the pack does not index";
	}
	git_indexer_free(ix);
	bool any = false;
	for (int i = 0; i < n; i++)
		any |= u[i].why == NULL;
	if (!unpack && any) {
		/* The check, with the quarantine seen (the hook's way). */
		sbuf lines = {0};
		for (int i = 0; i < n; i++) {
			char line[400], a[GIT_OID_HEXSZ + 1],
			    b[GIT_OID_HEXSZ + 1];
			git_oid_tostr(a, sizeof a, &u[i].old);
			git_oid_tostr(b, sizeof b, &u[i].new);
			int k = snprintf(line, sizeof line, "%s %s %s\n", a, b,
					 u[i].ref);
			if (!u[i].why)
				put(&lines, line, (size_t)k);
		}
		put(&lines, "", 1);
		if (lines.oom || check(ctx, qdir, lines.b, &message)) {
			/* (the reason's first line, for a client that takes
			 * no side band) */
			static char why[600];
			snprintf(why, sizeof why, "%s",
				 message && *message
				     ? message
				     : "pre-receive hook declined");
			why[strcspn(why, "\n")] = '\0';
			for (int i = 0; i < n; i++)
				if (!u[i].why)
					u[i].why = why;
			any = false;
		}
		free(lines.b);
	}
	/* (a pack of no objects, as a push that moves refs to ids the
	 * repository holds sends, is not kept) */
	if (!unpack && any && r.at < len && st.total_objects > 0 &&
	    move_pack(objects, qdir))
		unpack = "cannot move the pack in";
	if (unpack)
		for (int i = 0; i < n; i++)
			if (!u[i].why)
				u[i].why = "unpacker error";
	if (!unpack && any) {
		/* (libgit2 reads the pack folder again when an id is not
		 * found: the new pack is seen) */
		move_refs(repo, u, n, user);
		/* One pack per push would pile up (about 540 in a 6-player
		 * game): each check opens the repository, and each lookup
		 * probes every pack. Merged past SERVE_PACKS, as peers do
		 * theirs. */
		store_repack_if_needed(s, SERVE_PACKS);
		if (server_info(repo, gitdir))
			fprintf(stderr,
				"catan host: cannot rewrite info/refs "
				"of %s\n",
				gitdir);
	}
	if (qdir[0])
		store_remove_tree(qdir);
	report(&o, band, unpack, u, n, message);
	free(message);
	if (o.oom) {
		free(o.b);
		*out = NULL;
		*outlen = 0;
		return 500;
	}
	*out = o.b;
	*outlen = o.len;
	return status;
}
