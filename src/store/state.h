/*
 * state.h - layer 3 of src/store (codec): a game state as a Git tree and
 * back (state.c, through the pure codec), and a commit written with the
 * message catan writes (commit.c). Uses repo.h; used by act.c (layer 4),
 * verify (5) and the handle (store.c).
 */
#ifndef CATAN_STORE_STATE_H
#define CATAN_STORE_STATE_H

#include "repo.h"

/* Tree id of the encoding of st; writes the objects if asked. */
int store_state_tree(git_oid *out, catan_store *s, const catan_state *st,
		     bool write);
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
/* Decodes the state held by tree `tree` (strict: see the codec). */
int store_read_state(catan_state *out, catan_store *s, const git_oid *tree,
		     catan_err *err);

/*
 * Writes a commit (message: store_message of subject, the author's name,
 * turn and dice: the rolled dice on a roll commit, NULL on any other).
 */
int store_commit(git_oid *out, catan_store *s, int author, const char *subject,
		 int turn, const uint8_t *dice, const git_oid *tree_id,
		 const git_oid *parents, int nparents, catan_err *err);

#endif
