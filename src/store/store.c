/*
 * store.c - layer 7 (top): the handle. Creating a game repository (the
 * genesis commit), opening one (its genesis and game/ read back), batch
 * mode (objects in memory, written as one pack by the flush), and freeing
 * the handle with what sync kept open.
 */
#define _GNU_SOURCE /* syncfs */

#include <git2/sys/mempack.h>
#include <sodium.h>

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

#include "exchange.h"
#include "keys.h"
#include "lobby.h"

int catan_store_batch(catan_store *s, catan_err *err)
{
	if (s->batch)
		return 0;
	for (int p = 0; p < s->game.opt.nplayers; p++)
		if (store_branch_tip(&s->tips[p], s, p))
			return store_git_fail(err, "reading a branch");
	if (git_mempack_new(&s->mempack) ||
	    git_odb_add_backend(s->odb, s->mempack, 999)) {
		s->mempack = NULL;
		return store_git_fail(err, "setting up the in-memory store");
	}
	s->batch = true;
	return 0;
}

int catan_store_flush(catan_store *s, catan_err *err)
{
	git_revwalk *walk = NULL;
	git_refdb *refdb = NULL;
	int rc = -1;
	if (!s->batch)
		return 0;
	/*
	 * One pack of everything new, written by our own writer (pack.h:
	 * every object a delta against its parent's when smaller), from a
	 * walk of the branches (not the in-memory store's hash order): the
	 * same game gives the same pack bytes. What earlier flushes wrote is
	 * on disk already, so their tips are hidden from the walk.
	 */
	if (git_revwalk_new(&walk, s->repo)) {
		store_git_fail(err, "walking the new commits");
		goto done;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		git_oid old;
		char ref[128];
		snprintf(ref, sizeof ref, "refs/heads/%s",
			 s->game.names.name[p]);
		if (git_revwalk_push(walk, &s->tips[p]) ||
		    (git_reference_name_to_id(&old, s->repo, ref) == 0 &&
		     git_revwalk_hide(walk, &old))) {
			store_git_fail(err, "walking the new commits");
			goto done;
		}
	}
	{
		char dir[STORE_PATH_MAX];
		if (store_path(dir, sizeof dir, "%sobjects/pack",
			       git_repository_path(s->repo))) {
			store_fail(err, "%sobjects/pack: path too long",
				   git_repository_path(s->repo));
			goto done;
		}
		if (store_pack_history(s->repo, walk, s->mempack, dir, NULL,
				       err))
			goto done;
	}
	/* Refs last: they never point at objects not yet on disk. */
	s->batch = false;
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		git_oid old;
		/* A batch-created game has no branch on disk yet. */
		bool exists = store_branch_tip(&old, s, p) == 0;
		if (store_move_branch(s, p, exists ? &old : NULL, &s->tips[p],
				      "simulate", err)) {
			s->batch = true;
			goto done;
		}
	}
	/*
	 * The branches as one packed-refs file rather than a file each in a
	 * directory of their own: what a simulated game leaves is then the
	 * pack, its index, HEAD, config and packed-refs. Later moves write
	 * loose refs again, as git does.
	 */
	size_t mark = s->intent_len;
	if (store_intent(s, "packed-refs.lock") ||
	    store_intent(s, "refs/heads/")) {
		store_fail(err, "cannot write to catan.lock: %s",
			   strerror(errno));
		goto done;
	}
	if (git_repository_refdb(&refdb, s->repo) ||
	    git_refdb_compress(refdb)) {
		store_intent_done(s, mark);
		store_git_fail(err, "packing the branches");
		goto done;
	}
	store_intent_done(s, mark);
	{
		char dir[STORE_PATH_MAX];
		if (store_path(dir, sizeof dir, "%srefs/heads",
			       git_repository_path(s->repo)) == 0)
			rmdir(dir); /* only if empty */
	}
	git_mempack_reset(s->mempack);
	s->batch = true;
	rc = 0;
done:
	git_refdb_free(refdb);
	git_revwalk_free(walk);
	return rc;
}

void catan_store_free(catan_store *s)
{
	if (!s)
		return;
	if (s->moves_open)
		close(s->moves_fd);
	store_pushed_flush(s);
	if (s->lock_fd >= 0)
		close(s->lock_fd); /* releases the flock */
	store_sync_free(s);
	for (int p = 0; p < CATAN_MAX_PLAYERS; p++) {
		if (s->fair_chain[p]) {
			sodium_memzero(s->fair_chain[p],
				       sizeof(uint8_t[32]) *
					   (STORE_FAIR_CHAIN + 1));
			free(s->fair_chain[p]);
		}
		if (s->keys[p]) {
			sodium_memzero(s->keys[p], sizeof *s->keys[p]);
			free(s->keys[p]);
		}
	}
	for (int i = 0; i < CATAN_FILES_MAX; i++)
		free(s->blobs[i].data);
	git_odb_free(s->odb);
	git_repository_free(s->repo);
	free(s);
	git_libgit2_shutdown();
}

const catan_game *catan_store_game(const catan_store *s)
{
	return &s->game;
}

int catan_store_equivocation(catan_store *s, int *seat, catan_commit_id *parent,
			     catan_commit_id child[2])
{
	store_verdict v;
	if (!s->game.signed_game || store_verdict_read(s, &v) != 1)
		return 0;
	int stops = store_verdict_stops(s, &v);
	*seat = v.seat;
	store_oid_hex(parent, &v.parent);
	store_oid_hex(&child[0], &v.child[0]);
	store_oid_hex(&child[1], &v.child[1]);
	return !stops				  ? 2
	       : store_verdict_twins(s, &v, NULL) ? 3
	       : store_verdict_final(s, &v)	  ? 4
						  : 1;
}

int catan_store_set_key(catan_store *s, int player, const catan_key *k,
			catan_err *err)
{
	if (player < 0 || player >= s->game.opt.nplayers)
		return store_fail_code(err, CATAN_STORE_E_NOT_FOUND,
				       "no such player");
	if (!s->game.signed_game)
		return store_fail_code(err, CATAN_STORE_E_DENIED,
				       "this game is not signed: it has no "
				       "keys (game/signers)");
	if (memcmp(k->pk, s->game.keys[player], CATAN_PUBKEY_LEN))
		return store_fail(err,
				  "the key is not %s's: the game binds "
				  "another key to that seat (game/signers)",
				  s->game.names.name[player]);
	if (!s->keys[player] && !(s->keys[player] = malloc(sizeof *k)))
		return store_fail(err, "out of memory");
	*s->keys[player] = *k;
	return 0;
}

int catan_store_create(catan_store **out, const char *path, const catan_game *g,
		       catan_time_mode time, catan_err *err)
{
	return catan_store_create_ext(out, path, g, time, false, err);
}

int catan_store_create_ext(catan_store **out, const char *path,
			   const catan_game *g, catan_time_mode time,
			   bool batch, catan_err *err)
{
	return store_create(out, path, g, time, batch, NULL, err);
}

/*
 * Finding the genesis walks the whole history: every commit is read (on a
 * hosted repository of 201 commits, 15.5 of the 28.5 million instructions
 * its pre-receive hook cost for a push of one commit, and more with every
 * commit). So the repository's own configuration, which only this machine
 * writes (a peer's fetch or push never carries it), records it as
 * `catan.genesis` once a writer has found it, or created it; an open reads
 * it there. A recorded id that is not a root commit of the repository
 * (unparsable, absent, with parents) is ignored and the walk done. Which
 * genesis the branches descend from is verify's question, as before: a
 * second root is refused there.
 */
static bool recorded_genesis(git_oid *out, catan_store *s)
{
	git_config *cfg = NULL;
	git_commit *c = NULL;
	const char *hex;
	bool ok = git_repository_config_snapshot(&cfg, s->repo) == 0 &&
		  git_config_get_string(&hex, cfg, "catan.genesis") == 0 &&
		  strlen(hex) == GIT_OID_HEXSZ &&
		  git_oid_fromstr(out, hex) == 0 &&
		  git_commit_lookup(&c, s->repo, out) == 0 &&
		  git_commit_parentcount(c) == 0;
	git_commit_free(c);
	git_config_free(cfg);
	return ok;
}

/* Records the genesis for later opens; an open that cannot still works. */
static void record_genesis(catan_store *s, const git_oid *id)
{
	git_config *cfg = NULL;
	char hex[GIT_OID_HEXSZ + 1];
	git_oid_tostr(hex, sizeof hex, id);
	if (git_repository_config(&cfg, s->repo) == 0)
		(void)git_config_set_string(cfg, "catan.genesis", hex);
	git_config_free(cfg);
}

int store_create(catan_store **out, const char *path, const catan_game *g,
		 catan_time_mode time, bool batch, const catan_key *first,
		 catan_err *err)
{
	catan_store *s = NULL;
	catan_files files;
	catan_state st;
	git_config *cfg = NULL;
	git_oid tree_id, commit_id;
	int rc = -1;

	*out = NULL;
	catan_files_init(&files);
	if (store_claim_dir(path, "overwrite it", err))
		return -1;
	if (catan_state_init(&st, &g->board, &g->opt))
		return store_fail_code(err, CATAN_E_BAD_OPTION,
				       "game options out of range");
	if (g->signed_game &&
	    (!first || memcmp(first->pk, g->keys[0], CATAN_PUBKEY_LEN)))
		return store_fail(err,
				  "a signed game's genesis is signed by its "
				  "first player (%s), whose key the creator "
				  "must hold",
				  g->names.name[0]);
	for (int p = 0; g->signed_game && p < g->opt.nplayers; p++)
		for (int q = 0; q < p; q++)
			if (!((g->open >> p | g->open >> q) & 1) &&
			    !memcmp(g->keys[p], g->keys[q], CATAN_PUBKEY_LEN))
				return store_fail(
				    err,
				    "%s and %s have the same key: "
				    "every seat needs its own",
				    g->names.name[q], g->names.name[p]);
	if (!(s = store_new()))
		return store_fail(err, "out of memory");
	s->game = *g;
	s->time = time;
	if (g->signed_game) {
		if (!(s->keys[0] = malloc(sizeof *first))) {
			free(s);
			return store_fail(err, "out of memory");
		}
		*s->keys[0] = *first;
	}
	if (git_repository_init(&s->repo, path, 1)) {
		store_git_fail(err, "creating the repository");
		goto done;
	}
	store_drop_template(git_repository_path(s->repo));
	if (store_lock(s, false, err))
		goto done;
	store_reflog_ident(s);
	/*
	 * Reflogs in a bare repository let verify see every branch move. A
	 * deterministic (simulated) game keeps none: reflog lines carry the
	 * wall-clock time, and its branches move once, when flushed.
	 */
	if (git_repository_config(&cfg, s->repo) ||
	    git_config_set_string(
		cfg, "core.logAllRefUpdates",
		time == CATAN_TIME_DETERMINISTIC ? "false" : "always")) {
		store_git_fail(err, "configuring the repository");
		goto done;
	}
	s->log_all = time != CATAN_TIME_DETERMINISTIC;
	if (git_repository_odb(&s->odb, s->repo)) {
		store_git_fail(err, "opening the object database");
		goto done;
	}
	if (batch) {
		/* Even the genesis goes into the one pack of the flush. */
		if (git_mempack_new(&s->mempack) ||
		    git_odb_add_backend(s->odb, s->mempack, 999)) {
			s->mempack = NULL;
			store_git_fail(err, "setting up the in-memory store");
			goto done;
		}
		s->batch = true;
	}
	/* game/ first: every later tree shares it. */
	if (catan_codec_encode_game(&files, g)) {
		store_fail(err, "out of memory");
		goto done;
	}
	if (store_game_tree(s, &files)) {
		store_git_fail(err, "writing game/");
		goto done;
	}
	s->lobby = *g;
	s->lobby_tree = s->game_tree;
	if (store_state_tree(&tree_id, s, &st, NULL, true)) {
		store_git_fail(err, "writing the genesis tree");
		goto done;
	}
	if (store_commit(&commit_id, s, 0, "genesis", 0, NULL, &tree_id, NULL,
			 0, err))
		goto done;
	for (int p = 0; p < g->opt.nplayers; p++)
		if (store_move_branch(s, p, NULL, &commit_id, "genesis", err))
			goto done;
	char head[128];
	snprintf(head, sizeof head, "refs/heads/%s", g->names.name[0]);
	if (git_repository_set_head(s->repo, head)) {
		store_git_fail(err, "setting HEAD");
		goto done;
	}
	git_oid_cpy(&s->genesis, &commit_id);
	record_genesis(s, &commit_id);
	/* (A batch-created game is written, fsync'ed, by its flush.) */
	if (!batch && store_fsync_repo(path, err))
		goto done;
	rc = 0;
done:
	git_config_free(cfg);
	catan_files_free(&files);
	if (rc)
		catan_store_free(s);
	else
		*out = s;
	return rc;
}

int catan_store_open(catan_store **out, const char *path, catan_err *err)
{
	return catan_store_open_ext(out, path, false, err);
}

int catan_store_open_ext(catan_store **out, const char *path, bool readonly,
			 catan_err *err)
{
	catan_store *s = NULL;
	catan_codec_error ce;
	git_revwalk *walk = NULL;
	int rc = -1;

	*out = NULL;
	if (!(s = store_new()))
		return store_fail(err, "out of memory");
	/* NULL: the repository git's environment names (a hook's). */
	int orc = git_repository_open_ext(&s->repo, path,
					  path ? GIT_REPOSITORY_OPEN_NO_SEARCH
					       : GIT_REPOSITORY_OPEN_FROM_ENV,
					  NULL);
	if (orc) {
		store_git_fail_rc(err, orc, "opening the game repository");
		goto done;
	}
	if (store_lock(s, readonly, err))
		goto done;
	store_reflog_ident(s);
	if (git_repository_odb(&s->odb, s->repo)) {
		store_git_fail(err, "opening the object database");
		goto done;
	}
	/* The genesis: the root commit reachable from the branches. */
	git_oid id;
	bool recorded = recorded_genesis(&id, s);
	if (!recorded) {
		if (git_revwalk_new(&walk, s->repo) ||
		    git_revwalk_push_glob(walk, "refs/heads/*")) {
			store_git_fail(err, "listing the branches");
			goto done;
		}
		git_revwalk_sorting(walk,
				    GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
		if (git_revwalk_next(&id, walk)) {
			store_fail_code(err, CATAN_STORE_E_NOT_FOUND,
					"%s holds no game (no branch)", path);
			goto done;
		}
	}
	if (store_read_genesis(&s->game, &s->game_tree, s->repo, s->odb, &id,
			       &ce, err))
		goto done;
	if (!recorded && !readonly)
		record_genesis(s, &id);
	git_oid_cpy(&s->genesis, &id);
	s->lobby = s->game;
	s->lobby_tree = s->game_tree;
	store_lobby_load(s);
	s->time = CATAN_TIME_NOW;
	if (s->game.signed_game && !readonly)
		store_keys_load(s);
	rc = 0;
done:
	git_revwalk_free(walk);
	if (rc)
		catan_store_free(s);
	else
		*out = s;
	return rc;
}
