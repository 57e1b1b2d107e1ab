/*
 * copy.c - layer 6: copying from a path remote the commits this peer
 * lacks, with their trees and blobs, into the stage: every object hashed
 * again as it is copied, every raw tree and commit parsed here within the
 * sync's limits.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2/sys/repository.h>
#include <zlib.h>

#include "exchange.h"
#include "fuzz_internal.h"

/*
 * Copies object `id` of type `type` from the peer into the stage, unless
 * it is staged already or (when `look`) this repository holds it; *copied
 * says which, and po (may be NULL) keeps the content when copied. Returns
 * 1 when the peer's object is missing, of another type or does not hash
 * to its id (the ordinary fetch then handles and reports it); 2 when it
 * is over CATAN_SYNC_MAX_OBJECT, 3 when its file is not a regular file
 * (peer_read).
 */
static int copy_object(catan_store *s, store_peer *pe, const git_oid *id,
		       git_object_t type, bool look, bool *copied,
		       peer_obj *keep)
{
	peer_obj po;
	*copied = false;
	/* Our own store changes only through this handle: no rescan. */
	if (store_pack_find(s->stage, id) >= 0 ||
	    (look && git_odb_exists_ext(s->odb, id, GIT_ODB_LOOKUP_NO_REFRESH)))
		return 0;
	int got = store_peer_read(pe, id, type, s->budget.lim.object, &po);
	if (got)
		return got;
	/* The stage hashes what it packs: the id must be the content's. */
	int k = store_pack_add(s->stage, type, po.data, po.len, NULL, 0);
	if (k < 0 || !git_oid_equal(store_pack_id(s->stage, k), id)) {
		store_peer_obj_free(&po);
		return 1;
	}
	*copied = true;
	if (keep)
		*keep = po;
	else
		store_peer_obj_free(&po);
	return 0;
}

/* An entry of a raw tree: "<octal mode> <name>\0<20-byte id>". */
typedef struct tree_entry {
	unsigned mode;
	const char *name;
	git_oid id;
} tree_entry;

#define MAX_ENTRIES 64 /* a state tree has about ten */

/* Parses a raw tree into e (at most MAX_ENTRIES); the count, or -1. */
static int parse_tree(tree_entry *e, const unsigned char *d, size_t len)
{
	int n = 0;
	size_t i = 0;
	while (i < len) {
		unsigned mode = 0;
		size_t start = i;
		while (i < len && d[i] >= '0' && d[i] <= '7' && i - start < 7)
			mode = mode * 8 + (unsigned)(d[i++] - '0');
		if (i == start || i >= len || d[i++] != ' ' || n == MAX_ENTRIES)
			return -1;
		const unsigned char *nul = memchr(d + i, '\0', len - i);
		if (!nul || nul == d + i || (size_t)(d + len - nul) < 21)
			return -1;
		e[n].mode = mode;
		e[n].name = (const char *)d + i;
		git_oid_fromraw(&e[n].id, nul + 1);
		n++;
		i = (size_t)(nul + 21 - d);
	}
	return n;
}

/*
 * Copies tree `id` and what it holds. A tree this repository has (or has
 * staged) is complete already (nothing incomplete is ever written to disk
 * here, and fetches bring whole histories), so the copy stops there. With
 * `base` (the parent commit's tree at the same place, complete here), an
 * entry equal to the one of the same name there is skipped, and one that
 * differs is new (a turn changes a few files): it is copied without
 * asking this repository first. (The rare blob that comes back to an
 * older content is then stored twice, in two packs; a merge keeps one.)
 */
static int copy_tree(catan_store *s, store_peer *pe, const git_oid *id,
		     const git_oid *base, int depth)
{
	peer_obj t = {0}, bt = {0};
	tree_entry te[MAX_ENTRIES], be[MAX_ENTRIES];
	int nt, nb = 0, rc;
	bool copied;
	if (depth > 3)
		return 1;
	if (base && git_oid_equal(id, base))
		return 0;
	if ((rc =
		 copy_object(s, pe, id, GIT_OBJECT_TREE, !base, &copied, &t)) ||
	    !copied)
		return rc;
	if (depth == 0)
		store_tree_remember(s, id, t.data, t.len);
	/* The base: built or copied lately here, or read from the peer. */
	const unsigned char *bd = NULL;
	size_t blen = 0;
	if (base && !(bd = store_tree_recall(s, base, &blen)) &&
	    store_peer_read(pe, base, GIT_OBJECT_TREE, s->budget.lim.object,
			    &bt) == 0) {
		bd = bt.data;
		blen = bt.len;
	}
	if ((nt = parse_tree(te, t.data, t.len)) < 0 ||
	    (base && (!bd || (nb = parse_tree(be, bd, blen)) < 0))) {
		rc = 1;
		goto done;
	}
	for (int i = 0; rc == 0 && i < nt; i++) {
		const git_oid *prev = NULL;
		for (int j = 0; j < nb && !prev; j++)
			if (be[j].mode == te[i].mode &&
			    !strcmp(be[j].name, te[i].name))
				prev = &be[j].id;
		if (prev && git_oid_equal(prev, &te[i].id))
			continue;
		if (te[i].mode == GIT_FILEMODE_TREE)
			rc = copy_tree(s, pe, &te[i].id, prev, depth + 1);
		else if (te[i].mode == GIT_FILEMODE_BLOB)
			rc = copy_object(s, pe, &te[i].id, GIT_OBJECT_BLOB,
					 !base, &copied, NULL);
		else
			rc = 1;
	}
done:
	store_peer_obj_free(&t);
	store_peer_obj_free(&bt);
	return rc;
}

/* Is id among the first n of list? */
bool store_listed(const git_oid *list, size_t n, const git_oid *id)
{
	for (size_t i = 0; i < n; i++)
		if (git_oid_equal(&list[i], id))
			return true;
	return false;
}

/* The tree and first parent of a raw commit; -1 when it does not parse. */
static int parse_commit(git_oid *tree, git_oid *parents, unsigned *np,
			unsigned max, const peer_obj *po)
{
	const char *d = (const char *)po->data, *end = d + po->len;
	*np = 0;
	if (po->len < 46 || memcmp(d, "tree ", 5) || d[45] != '\n' ||
	    git_oid_fromstrn(tree, d + 5, GIT_OID_HEXSZ))
		return -1;
	d += 46;
	while (end - d >= 48 && !memcmp(d, "parent ", 7) && d[47] == '\n') {
		if (*np == max ||
		    git_oid_fromstrn(&parents[*np], d + 7, GIT_OID_HEXSZ))
			return -1;
		(*np)++;
		d += 48;
	}
	return 0;
}

int store_commit_form_id(catan_store *s, const git_oid *id, const char *raw,
			 size_t len, char *why, size_t whylen)
{
	long lim[2] = {s->budget.lim.message, s->budget.lim.object};
	if (lim[0] != s->form_lim[0] || lim[1] != s->form_lim[1]) {
		store_oidmap_free(&s->form_ok);
		s->form_lim[0] = lim[0];
		s->form_lim[1] = lim[1];
	}
	if (store_oidmap_has(&s->form_ok, id))
		return 0;
	int rc = store_commit_form(s, raw, len, why, whylen);
	/* (A cache; not of a pass that awaits the lobby's start: form.c.) */
	if (rc == 0 && !s->game.open)
		(void)store_oidmap_add(&s->form_ok, id);
	return rc;
}

/*
 * Copies the commits reachable from `tip` that this repository lacks:
 * first the commits (newest first; held[] are nheld commits known to be
 * here), then, oldest first, the tree of each.
 * A commit's tree is compared with its first parent's when that parent's
 * tree is complete here: a commit this repository had, or one whose tree
 * was copied before it. Each commit's form is checked as it comes
 * (store_commit_form), and the walk stops at the first that fails, at
 * a limit, or at one of refused[0..2) (when not NULL: the tip and the bad
 * commit of the branch's quarantine record). Returns 0; 1 when something is
 * unusual (the ordinary fetch handles it); 2 when the branch is refused (*bad
 * the commit, why the reason: a bad form, a limit passed); 3 when a file of the
 * peer is not a regular file; 4 when the remote's time is up.
 */
#define MAX_PARENTS                                                            \
	(CATAN_MAX_PLAYERS + 2) /* one per discard; an expulsion two more */

typedef struct got_commit {
	git_oid id, tree, parent; /* parent: the first, or zero */
} got_commit;

/*
 * Whether the walk stops at commit id, the nc-th new one: 2 when it
 * builds on what was refused before (refused: the two ids of the
 * quarantine record, or NULL) or is past CATAN_SYNC_MAX_COMMITS, 4 past
 * CATAN_SYNC_REMOTE_MS, with why; 0 otherwise.
 */
static int walk_stops(const catan_store *s, const git_oid *id,
		      const git_oid *refused, size_t nc, char *why,
		      size_t whylen)
{
	if (refused && store_listed(refused, 2, id)) {
		snprintf(why, whylen, "builds on what was rejected before");
		return 2;
	}
	if ((long)nc >= s->budget.lim.commits) {
		snprintf(why, whylen,
			 "more than CATAN_SYNC_MAX_COMMITS (%ld) new "
			 "commits",
			 s->budget.lim.commits);
		return 2;
	}
	if (store_past_deadline(&s->budget)) {
		snprintf(why, whylen,
			 "gave up: over CATAN_SYNC_REMOTE_MS (%ld ms)",
			 s->budget.lim.remote_ms);
		return 4;
	}
	return 0;
}

int store_copy_history(catan_store *s, store_peer *pe, const git_oid *tip,
		       const git_oid *held, int nheld, const git_oid *refused,
		       git_oid *bad, char *why, size_t whylen)
{
	size_t n = 0, cap = 16, nc = 0, ccap = 16;
	git_oid *todo = malloc(sizeof *todo * cap);
	got_commit *got = malloc(sizeof *got * ccap); /* newest first */
	git_oid *ids = NULL;
	int rc = todo && got ? 0 : -1;
	if (rc == 0)
		todo[n++] = *tip;
	while (rc == 0 && n > 0) {
		git_oid id = todo[--n], parents[MAX_PARENTS];
		got_commit g;
		peer_obj po = {0};
		unsigned k = 0;
		bool copied;
		if (store_listed(held, (size_t)nheld, &id))
			continue; /* a local tip: the usual end of the walk */
		/* (The caller found the tip missing here already.) */
		bool look = !git_oid_equal(&id, tip);
		*bad = id;
		if ((rc = walk_stops(s, &id, refused, nc, why, whylen)))
			break;
		if ((rc = copy_object(s, pe, &id, GIT_OBJECT_COMMIT, look,
				      &copied, &po)) ||
		    !copied) {
			if (rc == 2)
				snprintf(why, whylen,
					 "commit over CATAN_SYNC_MAX_OBJECT "
					 "(%ld bytes)",
					 s->budget.lim.object);
			continue;
		}
		/* Its form first: junk is refused at the first bad commit. */
		if (store_commit_form_id(s, &id, (const char *)po.data, po.len,
					 why, whylen)) {
			store_peer_obj_free(&po);
			rc = 2;
			break;
		}
		if (parse_commit(&g.tree, parents, &k, MAX_PARENTS, &po)) {
			store_peer_obj_free(&po);
			rc = 1;
			break;
		}
		store_peer_obj_free(&po);
		g.id = id;
		memset(&g.parent, 0, sizeof g.parent);
		if (k > 0)
			g.parent = parents[0];
		git_oid *more = store_reserve(todo, &cap, n + k, sizeof *todo);
		if (more)
			todo = more;
		got_commit *more2 =
		    more ? store_reserve(got, &ccap, nc + 1, sizeof *got)
			 : NULL;
		if (more2)
			got = more2;
		if (!more || !more2) {
			rc = -1;
			break;
		}
		got[nc++] = g;
		for (unsigned i = 0; i < k; i++)
			todo[n++] = parents[i];
	}
	if (rc == 0 && nc > 0 && !(ids = malloc(sizeof *ids * nc)))
		rc = -1;
	for (size_t i = 0; rc == 0 && i < nc; i++)
		ids[i] = got[i].id;
	/* Oldest first; got[0..i) are those whose trees are not copied yet. */
	for (size_t i = nc; rc == 0 && i-- > 0;) {
		git_oid ptree;
		const git_oid *base = NULL;
		const git_oid *parent = &got[i].parent;
		git_commit *pc = NULL;
		size_t j = i + 1;
		while (j < nc && !git_oid_equal(&got[j].id, parent))
			j++;
		if (git_oid_is_zero(parent) || store_listed(ids, i, parent) ||
		    (j == nc && store_pack_find(s->stage, parent) >= 0))
			base = NULL; /* not complete here yet, or not on disk */
		else if (j < nc)
			base = &got[j].tree; /* copied just now */
		else if (git_commit_lookup(&pc, s->repo, parent) == 0) {
			ptree = *git_commit_tree_id(pc); /* held here */
			base = &ptree;
		}
		git_commit_free(pc);
		rc = copy_tree(s, pe, &got[i].tree, base, 0);
		*bad = got[i].id;
		if (rc == 2)
			snprintf(why, whylen,
				 "its tree holds an object over "
				 "CATAN_SYNC_MAX_OBJECT (%ld bytes)",
				 s->budget.lim.object);
	}
	free(ids);
	free(todo);
	free(got);
	return rc < 0 ? 1 : rc;
}

int store_fuzz_parse_tree(unsigned *modes, const char **names, git_oid *ids,
			  int max, const unsigned char *d, size_t len)
{
	tree_entry e[MAX_ENTRIES];
	int n = parse_tree(e, d, len);
	for (int i = 0; i < n && i < max; i++) {
		modes[i] = e[i].mode;
		names[i] = e[i].name;
		ids[i] = e[i].id;
	}
	return n;
}

int store_fuzz_parse_commit(git_oid *tree, git_oid *parents, unsigned *np,
			    unsigned max, const unsigned char *data, size_t len)
{
	peer_obj po = {NULL, NULL, data, len};
	return parse_commit(tree, parents, np, max, &po);
}
