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

/*
 * Writes the commit git would write, with an SSH signature of it by the
 * author's key in a `gpgsig` header after the committer line, as `git
 * commit -S` with gpg.format=ssh does (every signature line after the
 * first indented by one space). 0 or -1 (libgit2's error set).
 */
static int signed_commit(git_oid *out, catan_store *s, int author,
			 const git_signature *asig, const git_signature *sig,
			 const char *message, const git_tree *tree,
			 int nparents, const git_commit **pc)
{
	git_buf payload = {0};
	char armor[CATAN_SSHSIG_MAX], raw[8192];
	if (git_commit_create_buffer(&payload, s->repo, asig, sig, NULL,
				     message, tree, (size_t)nparents, pc))
		return -1;
	size_t al = catan_sshsig_sign(armor, s->keys[author], payload.ptr,
				      payload.size);
	const char *body = strstr(payload.ptr, "\n\n");
	size_t head = body ? (size_t)(body - payload.ptr) + 1 : 0;
	size_t n = 0;
	int rc = -1;
	if (!body || payload.size + al + 16 + al / 60 > sizeof raw) {
		git_error_set_str(GIT_ERROR_OBJECT, "commit too large to sign");
		goto done;
	}
	memcpy(raw, payload.ptr, head);
	n = head;
	memcpy(raw + n, "gpgsig ", 7);
	n += 7;
	for (size_t i = 0; i < al; i++) {
		raw[n++] = armor[i];
		if (armor[i] == '\n' && i + 1 < al)
			raw[n++] = ' ';
	}
	memcpy(raw + n, payload.ptr + head, payload.size - head);
	n += payload.size - head;
	store_objects_batch(true);
	rc = git_odb_write(out, s->odb, raw, n, GIT_OBJECT_COMMIT);
	store_objects_batch(false);
done:
	git_buf_dispose(&payload);
	return rc;
}

int store_commit(git_oid *out, catan_store *s, int author, const char *subject,
		 int turn, const uint8_t *dice, const git_oid *tree_id,
		 const git_oid *parents, int nparents, catan_err *err)
{
	git_signature *sig = NULL, *asig = NULL;
	git_tree *tree = NULL;
	const git_commit *pc[CATAN_MAX_PLAYERS + 1];
	git_commit *owned[CATAN_MAX_PLAYERS + 1] = {NULL};
	char email[64], message[512];
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
	int crc;
	if (s->game.signed_game) {
		if (!s->keys[author]) {
			store_fail(err,
				   "this peer holds no key for %s: a signed "
				   "game takes only commits signed by the "
				   "seat's own key (catan key use FILE)%s%s",
				   name, s->key_note[0] ? "; " : "",
				   s->key_note);
			goto done;
		}
		crc = signed_commit(out, s, author, asig, sig, message, tree,
				    nparents, pc);
	} else {
		store_objects_batch(true);
		crc = git_commit_create(out, s->repo, NULL, asig, sig, NULL,
					message, tree, (size_t)nparents, pc);
		store_objects_batch(false);
	}
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
