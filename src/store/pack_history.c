/*
 * pack_history.c - layer 1 (leaf): a history (a revwalk) as one pack, each
 * object told its natural bases: the commit's parent or its author's last
 * commit, the parent's tree, the blob at the same path
 * (store_pack_history; used by a batch flush and catan gc).
 */
#define _XOPEN_SOURCE 700

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha1.h>
#include <zlib.h>

#include "pack_internal.h"

/* ---- a history as one pack ---- */

typedef struct history {
	git_repository *repo;
	git_odb *odb;
	git_odb_backend *only;
	store_pack *pack;
	oid_map map;
	catan_err *err;
} history;

/*
 * Adds object `id` unless it is in the pack already or not wanted, with
 * the objects of indexes bases[0 .. nbases) (-1: none) as candidate delta
 * bases. *added (may be NULL) says whether it went in. Returns 0 or -1.
 */
static int put_object(history *h, const git_oid *id, const int *bases,
		      int nbases, bool *added)
{
	git_odb_object *o = NULL;
	if (added)
		*added = false;
	if (store_oidmap_get(&h->map, id) >= 0 ||
	    (h->only && !h->only->exists(h->only, id)))
		return 0;
	if (git_odb_read(&o, h->odb, id))
		return store_git_fail(h->err, "reading an object to pack");
	int k = store_pack_add(h->pack, git_odb_object_type(o),
			       git_odb_object_data(o), git_odb_object_size(o),
			       bases, nbases);
	git_odb_object_free(o);
	if (k < 0 || !store_oidmap_put(&h->map, id, k))
		return store_fail(h->err, "out of memory writing a pack");
	if (added)
		*added = true;
	return 0;
}

/* put_object with `base` (may be NULL) as the candidate if it is packed. */
static int put_against(history *h, const git_oid *id, const git_oid *base)
{
	int b = base ? store_oidmap_get(&h->map, base) : -1;
	return put_object(h, id, &b, 1, NULL);
}

/*
 * Adds tree `id` and the trees under it (blobs too when `blobs`), each
 * against the entry of the same name in `base` (a tree or NULL). A tree
 * equal to its base holds nothing new.
 */
static int put_tree(history *h, const git_oid *id, const git_oid *base,
		    bool blobs)
{
	git_tree *t = NULL, *bt = NULL;
	int rc = -1;
	if (base && git_oid_equal(id, base))
		return 0;
	if (!blobs && put_against(h, id, base))
		return -1;
	if (git_tree_lookup(&t, h->repo, id) ||
	    (base && git_tree_lookup(&bt, h->repo, base))) {
		store_git_fail(h->err, "reading a tree to pack");
		goto done;
	}
	for (size_t i = 0; i < git_tree_entrycount(t); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		const git_tree_entry *be =
		    bt ? git_tree_entry_byname(bt, git_tree_entry_name(e))
		       : NULL;
		git_object_t type = git_tree_entry_type(e);
		if (be && git_tree_entry_type(be) != type)
			be = NULL;
		const git_oid *bid = be ? git_tree_entry_id(be) : NULL;
		if (type == GIT_OBJECT_TREE) {
			if (put_tree(h, git_tree_entry_id(e), bid, blobs))
				goto done;
		} else if (type == GIT_OBJECT_BLOB && blobs) {
			if (put_against(h, git_tree_entry_id(e), bid))
				goto done;
		}
	}
	rc = 0;
done:
	git_tree_free(bt);
	git_tree_free(t);
	return rc;
}

/*
 * The last commit in the pack of each author, of each author with each
 * verb (the subject's first word: roll, end, build...) and of each verb:
 * keys "email", "email\nverb" and "\nverb" in an open-addressed table.
 * Keys that do not fit (very long names, a full table) are not kept: a
 * commit then simply has fewer candidates.
 */
#define LAST_SLOTS 1024
#define LAST_KEY   96
typedef struct last_map {
	char key[LAST_SLOTS][LAST_KEY];
	int val[LAST_SLOTS]; /* -1: empty slot */
	int n;
} last_map;

static uint32_t key_hash(const char *k)
{
	uint32_t x = 2166136261u; /* FNV-1a */
	for (; *k; k++)
		x = (x ^ (unsigned char)*k) * 16777619u;
	return x;
}

/* The slot of key k: where it is, or the empty one where it would go. */
static size_t last_slot(const last_map *m, const char *k)
{
	size_t i = key_hash(k) & (LAST_SLOTS - 1);
	while (m->val[i] >= 0 && strcmp(m->key[i], k))
		i = (i + 1) & (LAST_SLOTS - 1);
	return i;
}

static int last_get(const last_map *m, const char *k)
{
	return m->val[last_slot(m, k)];
}

static void last_put(last_map *m, const char *k, int val)
{
	size_t i = last_slot(m, k);
	if (m->val[i] < 0) {
		if (strlen(k) >= LAST_KEY || 2 * (m->n + 1) > LAST_SLOTS)
			return;
		strcpy(m->key[i], k);
		m->n++;
	}
	m->val[i] = val;
}

/*
 * Adds commit c, stored against whichever of these gives the smallest
 * delta: its first parent (the same turn: the same author, committer and
 * Player lines); the author's previous commit; the author's previous
 * commit with the same verb (the same message but for the Turn trailer:
 * the best base of most commits that start a turn); the last commit with
 * that verb by anyone.
 */
static int put_commit(history *h, const git_commit *c, const git_commit *parent,
		      last_map *last)
{
	const char *email = git_commit_author(c)->email;
	const char *msg = git_commit_message(c);
	char keys[3][LAST_KEY];
	int bases[4];
	bool added, keyed = strlen(email) + 34 < LAST_KEY;
	size_t verb = strcspn(msg, " \n");
	if (verb > 32)
		verb = 32;
	snprintf(keys[0], LAST_KEY, "%s", email);
	snprintf(keys[1], LAST_KEY, "%s\n%.*s", email, (int)verb, msg);
	snprintf(keys[2], LAST_KEY, "\n%.*s", (int)verb, msg);
	bases[0] =
	    parent ? store_oidmap_get(&h->map, git_commit_id(parent)) : -1;
	for (int i = 1; i < 4; i++) {
		bases[i] = keyed ? last_get(last, keys[i - 1]) : -1;
		for (int j = 0; j < i; j++)
			if (bases[j] == bases[i])
				bases[i] = -1; /* tried already */
	}
	if (put_object(h, git_commit_id(c), bases, 4, &added))
		return -1;
	if (!added || !keyed)
		return 0;
	int k = store_oidmap_get(&h->map, git_commit_id(c));
	for (int i = 0; i < 3; i++)
		last_put(last, keys[i], k);
	return 0;
}

int store_pack_history(git_repository *repo, git_revwalk *walk,
		       git_odb_backend *only, const char *packdir, char *name,
		       catan_err *err)
{
	history h = {repo, NULL, only, NULL, {NULL, NULL, 0, 0}, err};
	git_oid *ids = NULL;
	size_t n = 0, cap = 0;
	last_map *last = NULL;
	git_oid id;
	int rc = -1, walked;

	if (git_repository_odb(&h.odb, repo)) {
		store_git_fail(err, "opening the object database");
		goto done;
	}
	if (!(last = malloc(sizeof *last)) ||
	    store_pack_new(&h.pack, STORE_PACK_MAX_DEPTH)) {
		store_fail(err, "out of memory writing a pack");
		goto done;
	}
	memset(last->val, 0xff, sizeof last->val);
	last->n = 0;
	while ((walked = git_revwalk_next(&id, walk)) == 0) {
		git_oid *more = store_reserve(ids, &cap, n + 1, sizeof *ids);
		if (!more) {
			store_fail(err, "out of memory writing a pack");
			goto done;
		}
		ids = more;
		git_oid_cpy(&ids[n++], &id);
	}
	if (walked != GIT_ITEROVER) {
		store_git_fail(err, "walking the commits to pack");
		goto done;
	}
	/*
	 * Commits, then trees, then blobs, as git orders a pack; within each,
	 * in the walk's order (a parent before its children), so every base
	 * is written before the objects stored against it.
	 */
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < n; i++) {
			git_commit *c = NULL, *parent = NULL;
			int bad = git_commit_lookup(&c, repo, &ids[i]);
			if (!bad && git_commit_parentcount(c) > 0)
				bad = git_commit_parent(&parent, c, 0);
			if (bad) {
				git_commit_free(c);
				store_git_fail(err, "reading a commit to pack");
				goto done;
			}
			const git_oid *ptree =
			    parent ? git_commit_tree_id(parent) : NULL;
			if (pass == 0)
				bad = put_commit(&h, c, parent, last);
			else
				bad = put_tree(&h, git_commit_tree_id(c), ptree,
					       pass == 2);
			git_commit_free(parent);
			git_commit_free(c);
			if (bad)
				goto done;
		}
	}
	rc = store_pack_write(h.pack, packdir, name, err);
	if (!rc)
		git_odb_refresh(h.odb);
done:
	free(last);
	free(ids);
	store_oidmap_free(&h.map);
	store_pack_free(h.pack);
	git_odb_free(h.odb);
	return rc;
}
