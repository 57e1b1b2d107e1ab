/*
 * store_helpers.h - shared fixtures for the store tests: temporary
 * directories, shell commands, game repositories played by bots, and raw
 * libgit2 writes used to inject bad history. Like the th_* helpers, every
 * sh_* helper fails the running cmocka test when something is off (unless
 * it says it returns an error).
 */
#ifndef STORE_HELPERS_H
#define STORE_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <git2.h>

#include "catan/action.h"
#include "catan/bot.h"
#include "catan/codec.h"
#include "catan/state.h"
#include "catan/store.h"

/* A player's e-mail address in commits (spec/format.md): "<name>@catan". */
#define SH_EMAIL_DOMAIN "catan"

/* ---- files and commands ---- */

/* A fresh empty directory under /tmp; free() the returned path. */
char *sh_tmpdir(const char *tag);

/* Removes a directory tree (nftw, depth first). Accepts NULL. */
void sh_rmrf(const char *path);

/*
 * Runs a shell command (printf-style) with popen, captures at most size-1
 * bytes of its standard output into out (may be NULL) and returns its exit
 * status (or -1 when it could not run or was killed).
 */
int sh_run(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Runs a command and asserts it exits 0; returns its output in out. */
void sh_must(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* cp -a src dst (dst must not exist). */
void sh_copy_dir(const char *src, const char *dst);

/*
 * A fingerprint of everything a repository holds: every ref and its target,
 * HEAD, the reflogs, the object files and their count. Two equal
 * fingerprints mean nothing was written. Returns the object count.
 */
long sh_fingerprint(const char *dir, char *out, size_t size);

/* Reads every regular file under dir (except .git) into f, paths relative. */
void sh_read_dir_files(catan_files *f, const char *dir);

/* ---- games ---- */

typedef enum {
	SH_BOARD_BEGINNER,
	SH_BOARD_RANDOM,
	SH_BOARD_HEX3,
	SH_BOARD_EXT56, /* catan_board_random_ext56(seed) */
} sh_board;

/* Fixed facts of a game with default names. */
void sh_game(catan_game *g, int nplayers, sh_board board, int phases,
	     int dice, uint64_t seed);

/* All files of a state (game/ included), in any order. */
void sh_encode_all(catan_files *out, const catan_game *g, const catan_state *s);

/* catan_store_create with deterministic times; asserts success. */
catan_store *sh_create(const char *path, const catan_game *g);

/* As sh_create with a time mode (CATAN_TIME_NOW keeps reflogs). */
catan_store *sh_create_mode(const char *path, const catan_game *g,
			    catan_time_mode mode);

/* catan_store_open; asserts success. */
catan_store *sh_open(const char *path);

/* catan_store_current; asserts success. */
void sh_current(catan_store *s, catan_state *st, catan_commit_id *head);

/* Parses text (the store's names) and acts; asserts success. */
void sh_act(catan_store *s, int actor, const char *text, catan_commit_id *id);

/* As sh_act, for an action value. */
void sh_act_a(catan_store *s, int actor, const catan_action *a,
	      catan_commit_id *id);

/*
 * Plays up to n random-bot actions through catan_store_act (actor =
 * catan_state_next_actor of the current state), stopping when the game is
 * over. If ref is not NULL it is a reference state advanced in memory with
 * the same actions, and after each action the store's current state must
 * hash the same. *merges (may be NULL) counts discard merges the store
 * wrote (a 7 that left two or more players owing). Returns the number of
 * actions played.
 */
int sh_play(catan_store *s, int n, catan_rng *rng, unsigned flags,
	    catan_state *ref, int *merges);

/* Plays random-bot actions until the set-up is over. */
void sh_play_setup(catan_store *s, catan_rng *rng);

/*
 * In a manual-dice game with the active player to roll: rolls random dice
 * that are not a 7, then ends the turn (nobody spends a card).
 */
void sh_quiet_turn(catan_store *s, catan_rng *rng);

/* Players holding more than 7 resource cards. */
int sh_owing_if_seven(const catan_state *st);

/* The first legal action of actor (asserts there is one). */
catan_action sh_first_legal(const catan_game *g, const catan_state *st,
			    int actor);

/* Canonical text of an action in game g. */
void sh_format(char *buf, size_t size, const catan_game *g,
	       const catan_action *a);

/* ---- raw Git ---- */

git_repository *sh_repo(const char *path);

/*
 * Writes a commit with libgit2: tree, parents, author = committer = name
 * <email>, the message as given (no trailers added). Returns its id.
 */
git_oid sh_commit_raw(git_repository *repo, const git_oid *tree,
		      const git_oid *parents, int nparents, const char *name,
		      const char *email, const char *message);

/*
 * As sh_commit_raw in the store's layout: author P <P@catan>, message
 * "SUBJECT\n\nPlayer: P\nTurn: N\n", then "Dice: A B\n" when dice is
 * not NULL (a roll's trailer).
 */
git_oid sh_commit_action(git_repository *repo, const git_oid *tree,
			 const git_oid *parent, const char *player,
			 const char *subject, int turn, const uint8_t *dice);

/* Moves (or creates) a ref with git_reference_create, force. */
void sh_move_ref(git_repository *repo, const char *ref, const git_oid *id,
		 const char *log_message);

/* Tree of a file set (paths with '/' become subtrees), via treebuilder. */
git_oid sh_tree_from_files(git_repository *repo, const catan_files *f);

/*
 * Returns the tree `root` with `path` (may contain '/') set to blob `blob`
 * (mode 100644), or removed when blob is NULL, via treebuilder.
 */
git_oid sh_tree_put(git_repository *repo, const git_oid *root,
		    const char *path, const git_oid *blob);

/* A blob of the given bytes. */
git_oid sh_blob(git_repository *repo, const char *data, size_t len);

/* Id of a ref / revision. */
git_oid sh_rev(git_repository *repo, const char *rev);

/* Tree id of a commit. */
git_oid sh_commit_tree(git_repository *repo, const git_oid *commit);

git_oid sh_oid(const char *hex);

#endif
