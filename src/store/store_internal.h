/*
 * store_internal.h - shared by the files of src/store.
 */
#ifndef CATAN_STORE_INTERNAL_H
#define CATAN_STORE_INTERNAL_H

#include <git2.h>

#include "catan/store.h"

struct catan_store {
	git_repository *repo;
	git_odb *odb;
	catan_game game;
	git_oid genesis;
	git_oid game_tree; /* id of game/, shared by every state tree */
	catan_time_mode time;

	/* Exclusive lock on <gitdir>/catan.lock for the handle's lifetime. */
	int lock_fd;

	/* Batch mode (simulation): objects in memory, tips in memory. */
	bool batch;
	git_odb_backend *mempack;
	git_oid tips[CATAN_MAX_PLAYERS];

	/* The last state this handle committed, to skip decoding it. */
	bool cached, cache_discard;
	git_oid cache_id;
	catan_state cache_state;
};

/*
 * Takes the repository's writer lock (blocking) and clears lock files a
 * killed catan process left behind. Returns 0 or -1.
 */
int store_lock(catan_store *s, catan_err *err);

/*
 * Removes what repository init copied from git's template (sample hooks,
 * info/, description, empty refs/tags and objects/info): a game uses none.
 */
void store_drop_template(const char *gitdir);

/* Fills err with a formatted sentence; returns -1. */
int store_fail(catan_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "what: <libgit2's last error>"; returns -1. */
int store_git_fail(catan_err *err, const char *what);

void store_oid_hex(catan_commit_id *out, const git_oid *id);
void store_email(char *out, size_t size, const char *name);

/* Tree id of a file set (state files; game/ is added); writes if asked. */
int store_tree_of(git_oid *out, catan_store *s, const catan_files *files,
		  bool write);
/* Tree id of the encoding of st; writes the objects if asked. */
int store_state_tree(git_oid *out, catan_store *s, const catan_state *st,
		     bool write);
/* Decodes the state held by tree `tree` (strict: see the codec). */
int store_read_state(catan_state *out, catan_store *s, const git_oid *tree,
		     catan_err *err);

/* Writes a commit (message: subject, then Player and Turn trailers). */
int store_commit(git_oid *out, catan_store *s, int author, const char *subject,
		 int turn, const git_oid *tree_id, const git_oid *parents,
		 int nparents, catan_err *err);
/* Fast-forwards (or creates, old == NULL) a player's branch. */
int store_move_branch(catan_store *s, int player, const git_oid *old,
		      const git_oid *id, const char *why, catan_err *err);
int store_branch_tip(git_oid *out, catan_store *s, int player);

/* Integer value of a "Key: N" trailer in a commit message, or -1. */
int store_trailer_int(const char *message, const char *key);

/*
 * Verifies the commits reachable from newtips[p] (one per player) that the
 * local branches do not hold yet, trusting the local branches (verified
 * when they were adopted). Reads only. Returns -1 only if it cannot run.
 */
int store_verify_new(catan_store *s, const git_oid *newtips,
		     catan_verify_report *rep, catan_err *err);

#define STORE_MERGE_SUBJECT "merge discards"

#endif
