/*
 * fuzz_internal.h - the readers of peer-supplied bytes that are static in
 * their files (sync.c, pack.c, verify.c), exported one wrapper each for
 * the fuzzing harnesses of tests/fuzz. Nothing else calls these: each
 * wrapper only builds the arguments of the static function and calls it,
 * so what the harness finds is what sync, gc and verify would do.
 */
#ifndef CATAN_STORE_FUZZ_INTERNAL_H
#define CATAN_STORE_FUZZ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <git2.h>

#include "catan/codec.h"
#include "catan/store.h"

/* ---- sync.c ---- */

/*
 * read_loose: the loose object file of `id` in `repo` (a path remote),
 * expected of `type`. Returns 0 with *buf (malloc'ed, the caller frees
 * it), *data and *len (the content, inside *buf); 1 when there is no such
 * file; -1 when it is unreadable, of another type or too large.
 */
int store_fuzz_read_loose(git_repository *repo, const git_oid *id,
			  git_object_t type, unsigned char **buf,
			  const unsigned char **data, size_t *len);

/*
 * parse_tree: the entries of a raw tree (modes, names pointing into d,
 * ids); at most `max` of them copied out. Returns the count sync saw, or
 * -1 when it does not parse.
 */
int store_fuzz_parse_tree(unsigned *modes, const char **names, git_oid *ids,
			  int max, const unsigned char *d, size_t len);

/*
 * parse_commit: the tree and the parents (at most max) of a raw commit.
 * Returns 0, or -1 when it does not parse.
 */
int store_fuzz_parse_commit(git_oid *tree, git_oid *parents, unsigned *np,
			    unsigned max, const unsigned char *data,
			    size_t len);

/*
 * packed_rewrite: rewrites <gitdir of repo>/packed-refs with refs[k] at
 * ids[k] (k < n), no reflogs. Returns 0, or -1 and why.
 */
int store_fuzz_packed_rewrite(git_repository *repo, const char *const *refs,
			      const git_oid *ids, int n, char *why,
			      size_t whylen);

/* ---- pack.c ---- */

/*
 * read_entries: the entries of a pack from its version 2 index, sorted by
 * offset. Returns their count with offsets, ends and ids (pointers into
 * idx) of the first `max` copied out, or -1 when the index does not
 * describe the pack.
 */
long store_fuzz_pack_entries(const unsigned char *idx, size_t idx_len,
			     const unsigned char *pack, size_t len,
			     uint64_t *offset, uint64_t *end,
			     const unsigned char **id, size_t max);

/* ---- verify.c ---- */

/*
 * check_message: whether `commit` (of game g) has the author, committer
 * and message of an action commit. Returns 0 with *author and the subject
 * (NUL-terminated, in subject[size]); 1 with why filled otherwise.
 */
int store_fuzz_check_message(const catan_game *g, git_commit *commit,
			     int *author, char *subject, size_t size, char *why,
			     size_t whylen);

#endif
