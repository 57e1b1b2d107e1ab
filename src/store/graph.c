/*
 * graph.c - layer 2: ancestry bounded by turns. Walks back from a commit
 * only through the turns since a floor (Turn trailers never decrease along
 * a valid history), so a question costs what happened since, not the
 * game's length.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repo.h"

/* ---- ancestry, bounded by turns ---- */

/* The Turn trailer of commit id, or -1 (unreadable, none). */
int store_turn_of(catan_store *s, const git_oid *id)
{
	git_commit *c = NULL;
	if (git_commit_lookup(&c, s->repo, id))
		return -1;
	int t = store_trailer_int(git_commit_message(c), "Turn");
	git_commit_free(c);
	return t;
}

/*
 * Visits the commits reachable from `from` (itself included) whose Turn
 * trailer is at least `floor`, calling fn on each until it returns
 * non-zero (its value is returned; a commit for which it returns -2 is not
 * walked past). The trailer never decreases from parent to child in a
 * valid history (a child's is its parent's state's turn), so nothing
 * older than `floor` can lead back above it: the walk covers the turns
 * since `floor`, however long the game. Returns -1 when a commit cannot
 * be read.
 */
int store_walk_turns(catan_store *s, const git_oid *from, int floor,
		     int (*fn)(git_commit *c, void *arg), void *arg)
{
	oid_map done = {NULL, NULL, 0, 0};
	size_t n = 0, cap = 32;
	git_oid *todo = malloc(sizeof *todo * cap);
	int rc = todo ? 0 : -1;
	if (todo)
		todo[n++] = *from;
	while (rc == 0 && n > 0) {
		git_oid id = todo[--n];
		git_commit *c = NULL;
		int added = store_oidmap_add(&done, &id);
		if (added <= 0) {
			rc = added;
			continue;
		}
		if (git_commit_lookup(&c, s->repo, &id)) {
			rc = -1;
			break;
		}
		if (store_trailer_int(git_commit_message(c), "Turn") < floor) {
			git_commit_free(c);
			continue;
		}
		rc = fn(c, arg);
		if (rc == -2) {
			rc = 0;
			git_commit_free(c);
			continue;
		}
		for (unsigned i = 0; rc == 0 && i < git_commit_parentcount(c);
		     i++) {
			git_oid *more =
			    store_reserve(todo, &cap, n + 1, sizeof *todo);
			if (!more) {
				rc = -1;
				break;
			}
			todo = more;
			todo[n++] = *git_commit_parent_id(c, i);
		}
		git_commit_free(c);
	}
	free(todo);
	store_oidmap_free(&done);
	return rc;
}

static int is_target(git_commit *c, void *arg)
{
	return git_oid_equal(git_commit_id(c), arg);
}

int store_walk_collect(git_commit *c, void *arg)
{
	return store_oidmap_add(arg, git_commit_id(c)) < 0 ? -1 : 0;
}

int store_is_ancestor(catan_store *s, const git_oid *anc, const git_oid *desc)
{
	if (git_oid_equal(anc, desc))
		return 1;
	int floor = store_turn_of(s, anc);
	if (floor < 0)
		return 0; /* not a commit of ours: not in desc's history */
	return store_walk_turns(s, desc, floor, is_target, (void *)anc);
}

int store_moves_forward(catan_store *s, const git_oid *old, const git_oid *new)
{
	if (store_is_ancestor(s, old, new) == 1)
		return 1;
	return store_descends(s->repo, new, old);
}
