/*
 * commit.c - layer 3: where a commit is written (store_commit): the message
 * catan writes, author and committer the player, dated by the handle's
 * time mode.
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

#include "state.h"

int store_commit(git_oid *out, catan_store *s, int author, const char *subject,
		 int turn, const uint8_t *dice, const git_oid *tree_id,
		 const git_oid *parents, int nparents, catan_err *err)
{
	git_signature *sig = NULL, *asig = NULL;
	git_tree *tree = NULL;
	const git_commit *pc[CATAN_MAX_PLAYERS + 1];
	git_commit *owned[CATAN_MAX_PLAYERS + 1] = {NULL};
	char email[64], message[256];
	int rc = -1;
	const char *name = s->game.names.name[author];

	git_time_t when;
	git_time_t base =
	    1700000000 + (git_time_t)(s->game.opt.seed % 100000000);
	for (int i = 0; i < nparents; i++) {
		if (git_commit_lookup(&owned[i], s->repo, &parents[i])) {
			store_git_fail(err, "reading a parent commit");
			goto done;
		}
		pc[i] = owned[i];
	}
	if (s->time == CATAN_TIME_DETERMINISTIC) {
		/*
		 * From the seed alone, so the same game gives the same commit
		 * ids: the genesis at the seed's date, every other commit one
		 * second after the latest of its parents (its generation).
		 * One second per action along every branch, and a commit is
		 * always younger than its ancestors, so git's date-ordered
		 * walks (`git log A..B`, upload-pack answering a fetch) stop
		 * where they should instead of walking the whole history, as
		 * they did when every commit of a game had one date (which
		 * let a commit's delta copy its author lines whole: 12.5 B
		 * per commit more in a pack now; README, "The Git layer").
		 * The discards after a 7, written side by side on the same
		 * 7-roll commit, share a second.
		 */
		when = base;
		for (int i = 0; i < nparents; i++) {
			git_time_t t = git_commit_time(owned[i]) + 1;
			if (t > when)
				when = t;
		}
	} else if (s->time == CATAN_TIME_TURNS)
		/* A minute a turn from the seed's date: a table's pace. */
		when = base + (git_time_t)turn * 60;
	else
		when = (git_time_t)time(NULL);
	store_email(email, sizeof email, name);
	store_message(message, sizeof message, subject, name, turn, dice);
	if (git_signature_new(&sig, name, email, when, 0) ||
	    git_signature_new(&asig, name, email, when, 0)) {
		store_git_fail(err, "making a signature");
		goto done;
	}
	if (git_tree_lookup(&tree, s->repo, tree_id)) {
		store_git_fail(err, "reading the new tree");
		goto done;
	}
	store_objects_batch(true);
	int crc = git_commit_create(out, s->repo, NULL, asig, sig, NULL,
				    message, tree, (size_t)nparents, pc);
	store_objects_batch(false);
	if (crc) {
		store_git_fail(err, "writing the commit");
		goto done;
	}
	rc = 0;
done:
	for (int i = 0; i < nparents; i++)
		git_commit_free(owned[i]);
	git_tree_free(tree);
	git_signature_free(sig);
	git_signature_free(asig);
	return rc;
}
