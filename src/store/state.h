/*
 * state.h - layer 3 of src/store (codec): a game state as a Git tree and
 * back (state.c, through the pure codec), and a commit written with the
 * message catan writes (commit.c). Uses repo.h; used by act.c (layer 4),
 * verify (5) and the handle (store.c).
 */
#ifndef CATAN_STORE_STATE_H
#define CATAN_STORE_STATE_H

#include "repo.h"

/* Fair dice (fair.c; store_fair is in repo.h). */
void store_fair_hash(uint8_t out[32], const uint8_t in[32]);
void store_fair_hex(char out[65], const uint8_t v[32]);
/* 64 lowercase hex digits -> 32 bytes; false when not exactly that. */
bool store_fair_unhex(uint8_t out[32], const char *text, size_t len);
/* The random bytes of the outcome pending in s: every seat's value. */
void store_fair_random(uint8_t r[32], const catan_state *s,
		       const store_fair *f);
/* Appends the files fair-<seat> of f. 0, or -1 out of memory. */
int store_fair_encode(catan_files *out, const catan_game *g,
		      const store_fair *f);
/*
 * Splits `in`: the fair-<seat> files into *f (strictly: a player's name,
 * 64 lowercase hex digits, a newline), every other file into `rest`.
 * 0, or 1 with why filled.
 */
int store_fair_take(store_fair *f, catan_files *rest, const catan_game *g,
		    const catan_files *in, char *why, size_t whylen);
/*
 * Value k of seat p's chain (0: the anchor), from the seat's secret key
 * in this handle. 0, or -1 with err (no key, k out of range).
 */
int store_fair_value(uint8_t out[32], catan_store *s, int p, int k,
		     catan_err *err);
/*
 * The value the file fair-<seat p> of `tree` holds (the last one p
 * published as of that tree): 0; 1 when the tree has no such file or it
 * is not 64 lowercase hex digits and a newline; -2 when the tree or the
 * file's blob is not in the object database; -1 when either cannot be
 * read otherwise.
 */
int store_fair_read(uint8_t out[32], catan_store *s, const git_oid *tree,
		    int p);

/*
 * Tree id of the encoding of st (and, in a fair game, f; NULL: no chain
 * anchored yet); writes the objects if asked.
 */
int store_state_tree(git_oid *out, catan_store *s, const catan_state *st,
		     const store_fair *f, bool write);
/*
 * Reads the plain files of tree `id` (recursively) into `out`, named
 * prefix + path; an entry named `skip` at this level is passed over.
 * Refuses anything but plain files and trees, and any file over
 * STORE_MAX_OBJECT (from the object header, before reading it).
 */
int store_read_tree_into(catan_files *out, git_repository *repo, git_odb *odb,
			 const git_oid *id, const char *prefix, int depth,
			 const char *skip, catan_err *err);

/*
 * The one reader of a genesis (catan_store_open, catan_store_join): the
 * game that root commit `root` holds in game/, read with the limits of
 * store_read_tree_into and decoded strictly, into *out, and the id of
 * game/ into *game_tree. Returns 0, or what is wrong (err says it, and
 * ce too for STORE_GENESIS_DECODE):
 */
enum {
	STORE_GENESIS_NOT_ROOT = 1, /* not a root commit, or no tree */
	STORE_GENESIS_FILES,	    /* no game/, or files not plain/small */
	STORE_GENESIS_DECODE,	    /* game/ does not decode (ce says why) */
};
int store_read_genesis(catan_game *out, git_oid *game_tree,
		       git_repository *repo, git_odb *odb, const git_oid *root,
		       catan_codec_error *ce, catan_err *err);
/*
 * Decodes the state held by tree `tree` (strict: see the codec), and in a
 * fair game its chain values into *fair (may be NULL: not read).
 */
int store_read_state(catan_state *out, store_fair *fair, catan_store *s,
		     const git_oid *tree, catan_err *err);

/*
 * Writes a commit (message: store_message of subject, the author's name,
 * turn and dice: the rolled dice on a roll commit, NULL on any other).
 * With fair dice, the chain values a commit publishes are in its tree
 * (fair-<seat>), not in its message.
 */
int store_commit(git_oid *out, catan_store *s, int author, const char *subject,
		 int turn, const uint8_t *dice, const git_oid *tree_id,
		 const git_oid *parents, int nparents, catan_err *err);

#endif
