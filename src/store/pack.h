/*
 * pack.h - our own pack writer (internal to src/store).
 *
 * libgit2's packbuilder looks for deltas only among objects of similar
 * size and type and only keeps one smaller than half the object minus
 * 20 bytes, so it never stores a commit of a game as a delta and rarely a
 * small blob. This writer is told the natural bases of each object (a
 * commit's first parent or its author's earlier commits, the parent's root
 * tree, the parent tree's blob at the same path) and stores the object as
 * an OFS_DELTA against one when that is smaller once compressed. It writes
 * the index (.idx, version 2) itself: it knows every object's id, offset
 * and CRC-32 as it packs, where libgit2's git_indexer would inflate and
 * hash every object again.
 *
 * The pack format is Git's, version 2 (gitformat-pack(5)); the delta
 * format is Git's too (base size, result size, then copy and insert
 * operations).
 */
#ifndef CATAN_STORE_PACK_H
#define CATAN_STORE_PACK_H

#include <stddef.h>

#include <git2.h>
#include <git2/sys/odb_backend.h>

#include "catan/store.h"

/* Git's default --depth: longest chain of deltas a reader has to follow. */
#define STORE_PACK_MAX_DEPTH 50

/*
 * Encodes `target` as a Git delta against `base` into a buffer allocated
 * with malloc (*out, *out_len; the caller frees it). Any input is valid,
 * empty ones included; the delta is deterministic (a function of the two
 * inputs). Copies come from a hash of short windows of the base, greedy,
 * extended both ways. Returns 0, or -1 when out of memory or when the base
 * is 4 GiB or more (a copy offset has 32 bits); *out is then NULL.
 */
int store_delta_encode(unsigned char **out, size_t *out_len,
		       const unsigned char *base, size_t base_len,
		       const unsigned char *target, size_t target_len);

typedef struct store_pack store_pack;

/*
 * A pack being written, in memory. max_depth caps delta chains (0: no
 * deltas at all). Returns 0, or -1 when out of memory (*out NULL). Free it
 * with store_pack_free.
 */
int store_pack_new(store_pack **out, int max_depth);

/*
 * As store_pack_new for a few small objects written at once (a sync's):
 * no deltas, and no compression (zlib streams of stored blocks, as git
 * writes at core.compression 0). The objects of a game are a few hundred
 * bytes, which deflate shrinks by a sixth, for more time than all the
 * rest of copying them; `catan gc` packs them small again.
 */
int store_pack_new_fast(store_pack **out);

/*
 * Appends an object of `type` (commit, tree, blob or tag) with the given
 * content, copied. `bases` holds nbases indexes (from earlier calls, -1
 * for none) of objects to try as its delta base; a candidate whose chain
 * is max_depth long stands for the first object of that chain's last
 * segment, unless that one is at half the cap already (see pack.c). Of
 * the candidates whose chain is then shorter than max_depth, the one whose
 * delta is estimated smallest once compressed (header and base distance
 * counted; the first of equals) is compressed, and the object is stored
 * as that delta unless stored whole it is no larger. Every stream is the
 * smallest of zlib's level 9 with the strategies tried (pack.c). Same
 * objects in the same order with the same bases give the same pack bytes.
 * Returns the new object's index (0, 1, ...) or -1 (out of memory, zlib
 * failure, or a base that is not an earlier object).
 */
int store_pack_add(store_pack *p, git_object_t type, const void *data,
		   size_t len, const int *bases, int nbases);

/* Objects added so far. */
int store_pack_count(const store_pack *p);

/* Delta chain length of object i: 0 when stored whole. */
int store_pack_depth(const store_pack *p, int i);

/*
 * Forgets the objects added after the first n (the pack is then as it was
 * when it held n). Returns 0, or -1 (finished, n out of range, out of
 * memory: the pack is unchanged).
 */
int store_pack_truncate(store_pack *p, int n);

/* Id of object i (hashed by store_pack_add), borrowed from the pack. */
const git_oid *store_pack_id(const store_pack *p, int i);

/* Index of the first object added with this id, or -1. Cannot fail. */
int store_pack_find(const store_pack *p, const git_oid *id);

/*
 * Finishes the pack (object count, SHA-1 trailer) and returns its bytes,
 * borrowed until the pack is freed; no object can be added afterwards.
 * NULL when out of memory.
 */
const unsigned char *store_pack_finish(store_pack *p, size_t *len);

/*
 * Finishes the pack and stores it in `packdir` (a repository's
 * objects/pack) with its index: pack-<name>.pack, then pack-<name>.idx,
 * each written to a temporary file and renamed into place (a reader never
 * sees half a file; a pack is only used once its index exists). <name> is
 * the pack's SHA-1 trailer; name (41 bytes, or NULL) receives it in hex.
 * An empty pack writes nothing (name ""). An object added twice makes it
 * fail. Returns 0, or -1 with err filled.
 */
int store_pack_write(store_pack *p, const char *packdir, char *name,
		     catan_err *err);
/*
 * store_pack_write, and with `later` no fsync of packdir after the
 * renames: the caller flushes (a syncfs) before any ref or reflog line
 * that lasts points into the pack.
 */
int store_pack_write_ext(store_pack *p, const char *packdir, char *name,
			 bool later, catan_err *err);

/*
 * Merges the packs `stems` ("pack-<hex>", n of them, in packdir, each with
 * a version 2 index) into one new pack with its index, as
 * store_pack_write stores one: every entry is copied as it is (no
 * inflating, no compressing), an OFS_DELTA's distance to its base
 * rewritten, an object held by several packs kept once. The sources are
 * left in place (the caller removes them once the new one is written).
 * Returns 0, or -1 with err filled (an unreadable pack, an index that does
 * not describe its pack, out of memory, a write failure).
 */
int store_pack_merge(const char *packdir, const char *const *stems, int n,
		     char *name, catan_err *err);

/* Frees the pack. Accepts NULL. */
void store_pack_free(store_pack *p);

/*
 * Writes one pack into `packdir` (store_pack_write) of the commits `walk`
 * yields and the trees and blobs they reach, each once: the commits in the
 * walk's order (it must yield parents first), then the trees, then the
 * blobs. A commit's candidate bases are its first parent, its author's
 * previous commit, its author's previous commit with the same first word
 * of the subject and the last commit with that word by anyone; a tree's
 * the first parent's tree, a blob's or subtree's the entry of the same
 * name in the parent's tree. With `only` (the batch's in-memory store), an
 * object goes in only if that backend holds it (everything else is on disk
 * already); without it, every object reached goes in. The object database
 * is refreshed afterwards; name as for store_pack_write. Returns 0, or -1
 * with err filled (nothing written).
 */
int store_pack_history(git_repository *repo, git_revwalk *walk,
		       git_odb_backend *only, const char *packdir, char *name,
		       catan_err *err);

#endif
