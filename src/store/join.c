/*
 * join.c - layer 7 (top): catan join. A new repository, the remote fetched
 * (fetch.c: a fetch with no handle yet), the genesis found and checked, the
 * game opened and verified, then adopted like any sync.
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

void catan_store_join_abandon(catan_store *s, const char *path)
{
	catan_store_free(s);
	store_remove_tree(path);
}

/*
 * Points a branch for every player of the game the genesis `root` holds
 * at it, and HEAD at the first player's: the game read by the same
 * reader as catan_store_open's (store_read_genesis). Returns 0, or -1
 * with err.
 */
static int branches_at_genesis(git_repository *repo, const git_oid *root,
			       catan_err *err)
{
	catan_codec_error ce;
	catan_game g;
	git_oid game_tree;
	git_odb *odb = NULL;
	if (git_repository_odb(&odb, repo))
		return store_git_fail(err, "opening the object database");
	int kind =
	    store_read_genesis(&g, &game_tree, repo, odb, root, &ce, err);
	git_odb_free(odb);
	if (kind == STORE_GENESIS_NOT_ROOT)
		return store_fail_code(err, CATAN_STORE_E_CORRUPT,
				       "the oldest commit is not a genesis");
	if (kind)
		return store_fail_code(
		    err, CATAN_STORE_E_CORRUPT,
		    "the genesis holds no readable game/%s%s",
		    kind == STORE_GENESIS_DECODE ? ": " : "",
		    kind == STORE_GENESIS_DECODE ? ce.msg : "");
	for (int p = 0; p < g.opt.nplayers; p++) {
		char ref[128];
		git_reference *r = NULL;
		snprintf(ref, sizeof ref, "refs/heads/%s", g.names.name[p]);
		if (git_reference_create(&r, repo, ref, root, 0,
					 "catan join: genesis")) {
			store_git_fail(err, "creating the branches");
			return -1;
		}
		git_reference_free(r);
	}
	char head[128];
	snprintf(head, sizeof head, "refs/heads/%s", g.names.name[0]);
	git_repository_set_head(repo, head);
	return 0;
}

int catan_store_join(catan_store **out, const char *url, const char *path,
		     const char *me, catan_sync_report *rep, catan_err *err)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	git_revwalk *walk = NULL;
	git_config *cfg = NULL;
	git_oid root;
	int rc = -1;

	*out = NULL;
	memset(rep, 0, sizeof *rep);
	if (store_url_check(url, err))
		return -1;
	/* Only a new or empty directory: a failed join then removes it all. */
	if (store_claim_dir(path, "join into it", err))
		return -1;
	store_lib_init();
	/*
	 * Nothing of the new repository is flushed file by file (libgit2
	 * would fsync each ref, reflog and the fetch's pack, and the
	 * directories after): it is all put on disk at once at the end
	 * (store_fsync_repo), before the join is reported; a join cut
	 * short is removed, or its directory can only be joined into again.
	 */
	store_objects_batch(true);
	if (git_repository_init(&repo, path, 1)) {
		store_git_fail(err, "creating the repository");
		goto done;
	}
	store_drop_template(git_repository_path(repo));
	if (git_repository_config(&cfg, repo) ||
	    git_config_set_string(cfg, "core.logAllRefUpdates", "always")) {
		store_git_fail(err, "configuring the repository");
		goto done;
	}
	if (git_remote_create(&remote, repo, "origin", url)) {
		store_git_fail(err, "adding the remote");
		goto done;
	}
	git_remote_free(remote);
	remote = NULL;
	/* Fetch, then find the genesis among what arrived. */
	{
		/*
		 * No handle yet (the game is not known before the fetch): the
		 * fetch gets the repository, the limits (bytes and objects)
		 * and a count of refusal records of its own.
		 */
		store_budget budget = {{0}, 0};
		int records = 0;
		bool changed;
		store_limits_read(&budget.lim);
		store_fetch f = {repo, &budget, &records, NULL,
				 NULL, 0,	NULL,	  false};
		if (store_fetch_remote(&f, "origin", &changed, err))
			goto done;
	}
	if (git_revwalk_new(&walk, repo) ||
	    git_revwalk_push_glob(walk, "refs/remotes/origin/*")) {
		store_fail_code(err, CATAN_STORE_E_NOT_FOUND,
				"%s has no game (no branch)", url);
		goto done;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	if (git_revwalk_next(&root, walk)) {
		store_fail_code(err, CATAN_STORE_E_NOT_FOUND,
				"%s has no game (no commit)", url);
		goto done;
	}
	/*
	 * Point every local branch at the root, then open the game from it:
	 * catan_store_open checks the root is a genesis whose game/ decodes.
	 */
	if (branches_at_genesis(repo, &root, err))
		goto done;
	git_repository_free(repo);
	repo = NULL;

	catan_store *s = NULL;
	if (catan_store_open(&s, path, err))
		goto done;
	store_objects_batch(true); /* (open turned it on again) */
	/* The genesis itself: a full verify of the one-commit history. */
	catan_verify_report vr;
	if (catan_store_verify(s, &vr, err) || !vr.ok) {
		if (!vr.ok)
			store_fail_code(err, CATAN_STORE_E_CORRUPT,
					"the genesis is not valid: %s", vr.why);
		catan_store_free(s);
		goto done;
	}
	int who = catan_names_find(&s->game.names, me, strlen(me));
	if (who < 0) {
		store_fail_code(err, CATAN_E_BAD_PLAYER,
				"no player \"%s\" in this game", me);
		catan_store_free(s);
		goto done;
	}
	if (catan_store_set_me(s, who, err) ||
	    catan_store_adopt(s, "origin", rep, err) ||
	    store_fsync_repo(path, err)) {
		catan_store_free(s);
		goto done;
	}
	*out = s;
	rc = 0;
done:
	store_objects_batch(false);
	git_revwalk_free(walk);
	git_config_free(cfg);
	git_repository_free(repo);
	git_libgit2_shutdown();
	if (rc)
		store_remove_tree(path);
	return rc;
}
