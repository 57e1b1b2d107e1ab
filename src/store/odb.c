/*
 * odb.c - layer 2: objects written (or only hashed) with the memos that
 * spare the work: a state tree serialised and hashed here rather than
 * through git_treebuilder (the layout is fixed and small, and hashing
 * without writing lets verify compare tree ids without touching the
 * object database); blobs remembered by path.
 */
#define _GNU_SOURCE /* syncfs */

#include <git2/sys/mempack.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "repo.h"

/* ---- trees ---- */

typedef struct tree_entry {
	char name[CATAN_PATH_MAX];
	bool dir;
	git_oid id;
} tree_entry;

/*
 * Git orders a directory as if its name ended in '/'. The names hold no
 * '/', so the first byte past the shorter name decides: that '/' (or the
 * end) against the longer name's next byte. (No snprintf per comparison:
 * it was 2% of a sync's instructions, sorting the trees verify encodes.)
 */
static int entry_cmp(const void *a, const void *b)
{
	const tree_entry *x = a, *y = b;
	size_t lx = strlen(x->name), ly = strlen(y->name);
	size_t n = lx < ly ? lx : ly;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	int cx = n < lx ? (unsigned char)x->name[n] : x->dir ? '/' : 0;
	int cy = n < ly ? (unsigned char)y->name[n] : y->dir ? '/' : 0;
	return cx - cy;
}

/*
 * Object writes without libgit2's fsync of each loose object (the file and
 * its directory: two flushes of the disk's cache per object, most of what
 * a commit cost once fsync'ed): the objects of an action are flushed
 * together, by one syncfs, before a branch can reach them
 * (store_move_branch), as git's core.fsyncMethod=batch does. libgit2 reads
 * its fsync option at each write; refs, reflogs and config keep it on.
 */
void store_objects_batch(bool on)
{
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, on ? 0 : 1);
}

/*
 * The largest tree put_tree makes: a state's holds a few entries of short
 * names (spec/format.md); one over it is refused.
 */
#define TREE_MAX 4096

/*
 * Serialises entries as a Git tree; hashes it, and writes it if asked.
 * 0; -1 when it would be over TREE_MAX; libgit2's code when it fails.
 */
static int put_tree(git_oid *out, catan_store *s, tree_entry *e, int n,
		    bool write)
{
	char buf[TREE_MAX];
	size_t len = 0;
	qsort(e, (size_t)n, sizeof *e, entry_cmp);
	for (int i = 0; i < n; i++) {
		int k = snprintf(buf + len, sizeof buf - len, "%s %s",
				 e[i].dir ? "40000" : "100644", e[i].name);
		if (k < 0 || len + (size_t)k + 1 + GIT_OID_RAWSZ > sizeof buf)
			return -1;
		len += (size_t)k + 1; /* keep the NUL */
		memcpy(buf + len, e[i].id.id, GIT_OID_RAWSZ);
		len += GIT_OID_RAWSZ;
	}
	store_objects_batch(true);
	int rc = write ? git_odb_write(out, s->odb, buf, len, GIT_OBJECT_TREE)
		       : git_odb_hash(out, buf, len, GIT_OBJECT_TREE);
	store_objects_batch(false);
	/* A state tree built now is the base of the next sync's copy. */
	if (rc == 0)
		store_tree_remember(s, out, (const unsigned char *)buf, len);
	return rc;
}

/*
 * The id of file f as a blob, written if asked. Most files of a state are
 * those of the state before: each path's last content and id are kept
 * (s->blobs), and an unchanged file is not hashed again when only its id
 * is wanted. (A write always goes to the object database: the memo says
 * what an id is, never that the object is stored.)
 */
static int put_blob(git_oid *out, catan_store *s, int slot, const catan_file *f,
		    bool write)
{
	store_blob_memo *m = slot < CATAN_FILES_MAX ? &s->blobs[slot] : NULL;
	bool same = m && m->data && m->len == f->len &&
		    !strcmp(m->path, f->path) &&
		    !memcmp(m->data, f->data, f->len);
	if (same && !write) {
		*out = m->id;
		return 0;
	}
	store_objects_batch(true);
	int rc =
	    write ? git_odb_write(out, s->odb, f->data, f->len, GIT_OBJECT_BLOB)
		  : git_odb_hash(out, f->data, f->len, GIT_OBJECT_BLOB);
	store_objects_batch(false);
	if (rc == 0 && m && !same) {
		char *copy = realloc(m->data, f->len ? f->len : 1);
		if (copy) {
			memcpy(copy, f->data, f->len);
			m->data = copy;
			m->len = f->len;
			m->id = *out;
			snprintf(m->path, sizeof m->path, "%s", f->path);
		}
	}
	return rc;
}

void store_tree_remember(catan_store *s, const git_oid *id,
			 const unsigned char *data, size_t len)
{
	store_tree_memo *m = &s->trees[s->trees_next];
	if (len > sizeof m->buf || store_tree_recall(s, id, NULL))
		return;
	m->id = *id;
	m->len = len;
	memcpy(m->buf, data, len);
	s->trees_next = (s->trees_next + 1) % STORE_TREE_MEMO;
}

const unsigned char *store_tree_recall(const catan_store *s, const git_oid *id,
				       size_t *len)
{
	for (int i = 0; i < STORE_TREE_MEMO; i++)
		if (s->trees[i].len && git_oid_equal(&s->trees[i].id, id)) {
			if (len)
				*len = s->trees[i].len;
			return s->trees[i].buf;
		}
	return NULL;
}

int store_tree_of(git_oid *out, catan_store *s, const catan_files *files,
		  bool write)
{
	/* Flat: every state file at the root, beside the shared game/. */
	tree_entry root[CATAN_FILES_MAX + 1];
	int nroot = 0;
	for (int i = 0; i < files->n; i++) {
		const catan_file *f = &files->file[i];
		snprintf(root[nroot].name, sizeof root[nroot].name, "%s",
			 f->path);
		root[nroot].dir = false;
		if (put_blob(&root[nroot].id, s, i, f, write))
			return -1;
		nroot++;
	}
	snprintf(root[nroot].name, sizeof root[0].name, "game");
	root[nroot].dir = true;
	git_oid_cpy(&root[nroot].id, &s->game_tree);
	nroot++;
	return put_tree(out, s, root, nroot, write);
}

int store_game_tree_id(git_oid *out, catan_store *s, const catan_files *files,
		       bool write)
{
	/* board, options and, in a signed game, signers (and a lobby's open) */
	tree_entry e[4];
	int ne = 0;
	for (int i = 0; i < files->n && ne < 4; i++) {
		if (strncmp(files->file[i].path, "game/", 5))
			continue;
		snprintf(e[ne].name, sizeof e[ne].name, "%s",
			 files->file[i].path + 5);
		e[ne].dir = false;
		if (put_blob(&e[ne].id, s, CATAN_FILES_MAX, &files->file[i],
			     write))
			return -1;
		ne++;
	}
	return put_tree(out, s, e, ne, write);
}

int store_game_tree(catan_store *s, const catan_files *files)
{
	return store_game_tree_id(&s->game_tree, s, files, true);
}
