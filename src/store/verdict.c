/*
 * verdict.c - layer 2 (repo): the record of an equivocation in a signed
 * game: one seat signed two different children of one commit, the proof
 * against that seat (spec/replication.md, "Equivocation"). The record is
 * refs/catan/equivocation, a small blob:
 *
 *     equivocation <player>
 *     parent <id>            the commit both children build on
 *     commit <id>            the two children, the smaller id first
 *     commit <id>
 *
 * and refs/catan/equivocation-a and -b point at the two children, which
 * keeps them (and what was built on them) in the repository. Whoever
 * finds the proof (adopt.c) writes it; act.c refuses to play on, verify.c
 * accepts the branches moved back to the parent. Nothing here checks the
 * proof: adopt.c does, with the signatures, before it writes it.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "repo.h"

#define VERDICT_REF "refs/catan/equivocation"

int store_verdict_read(catan_store *s, store_verdict *out)
{
	git_oid id;
	git_blob *b = NULL;
	memset(out, 0, sizeof *out);
	if (git_reference_name_to_id(&id, s->repo, VERDICT_REF))
		return 0;
	if (git_blob_lookup(&b, s->repo, &id))
		return -1;
	const char *d = git_blob_rawcontent(b);
	size_t len = (size_t)git_blob_rawsize(b);
	char text[256], name[CATAN_NAME_MAX + 1], h[3][GIT_OID_HEXSZ + 1];
	int rc = -1;
	if (len < sizeof text) {
		memcpy(text, d, len);
		text[len] = '\0';
		if (sscanf(text,
			   "equivocation %15s\nparent %40s\ncommit %40s\n"
			   "commit %40s\n",
			   name, h[0], h[1], h[2]) == 4) {
			int p = catan_names_find(&s->game.names, name,
						 strlen(name));
			if (p >= 0 && !git_oid_fromstr(&out->parent, h[0]) &&
			    !git_oid_fromstr(&out->child[0], h[1]) &&
			    !git_oid_fromstr(&out->child[1], h[2])) {
				out->seat = p;
				rc = 1;
			}
		}
	}
	git_blob_free(b);
	return rc;
}

int store_verdict_write(catan_store *s, const store_verdict *v, catan_err *err)
{
	char text[256], h[3][GIT_OID_HEXSZ + 1];
	git_oid blob, *c0 = (git_oid *)&v->child[0],
		      *c1 = (git_oid *)&v->child[1];
	git_reference *r = NULL;
	if (git_oid_cmp(c0, c1) > 0) {
		git_oid *t = c0;
		c0 = c1;
		c1 = t;
	}
	git_oid_tostr(h[0], sizeof h[0], &v->parent);
	git_oid_tostr(h[1], sizeof h[1], c0);
	git_oid_tostr(h[2], sizeof h[2], c1);
	int n = snprintf(text, sizeof text,
			 "equivocation %s\nparent %s\ncommit %s\ncommit %s\n",
			 s->game.names.name[v->seat], h[0], h[1], h[2]);
	if (git_blob_create_from_buffer(&blob, s->repo, text, (size_t)n))
		return store_git_fail(err, "writing the equivocation record");
	const char *const refs[3] = {VERDICT_REF, store_evidence_name(0),
				     store_evidence_name(1)};
	const git_oid *to[3] = {&blob, c0, c1};
	for (int i = 0; i < 3; i++) {
		size_t mark = s->intent_len;
		char lock[64];
		snprintf(lock, sizeof lock, "%s.lock", refs[i]);
		int bad = store_intent(s, lock) || store_pack_named(s) ||
			  git_reference_create(&r, s->repo, refs[i], to[i], 1,
					       "catan: equivocation");
		store_intent_done(s, mark);
		git_reference_free(r);
		r = NULL;
		if (bad)
			return store_git_fail(
			    err, "writing the equivocation record");
	}
	return 0;
}

int store_side_open(store_side_walk *sw, catan_store *s, int p,
		    const git_oid *from, const git_oid *hide)
{
	sw->w = NULL;
	sw->name = s->game.names.name[p];
	sw->left = STORE_VOIDS_WALK;
	return git_revwalk_new(&sw->w, s->repo) ||
		       git_revwalk_push(sw->w, from) ||
		       git_revwalk_hide(sw->w, hide)
		   ? -1
		   : 0;
}

int store_side_next(store_side_walk *sw, catan_store *s, git_oid *id,
		    git_oid *up)
{
	while (sw->left-- > 0 && git_revwalk_next(id, sw->w) == 0) {
		git_commit *c = NULL;
		if (git_commit_lookup(&c, s->repo, id))
			return -1;
		const git_signature *a = git_commit_author(c);
		bool mine = a && a->name && !strcmp(a->name, sw->name) &&
			    git_commit_parentcount(c);
		if (mine)
			*up = *git_commit_parent_id(c, 0);
		git_commit_free(c);
		if (mine)
			return 0;
	}
	return -1;
}

bool store_verdict_recorded(catan_store *s, const store_verdict *v,
			    const git_oid *id)
{
	for (int i = 0; i < 2; i++)
		if (git_oid_equal(id, &v->child[i]) ||
		    store_is_ancestor(s, &v->child[i], id) == 1)
			return true;
	return false;
}

bool store_expel_proof(catan_store *s, git_commit *c, store_verdict *v)
{
	const char *sum = git_commit_summary(c);
	unsigned n = git_commit_parentcount(c);
	if (!sum || strncmp(sum, "expel ", 6) || n < 3)
		return false;
	int seat = catan_names_find(&s->game.names, sum + 6, strlen(sum + 6));
	git_commit *k[2] = {NULL, NULL};
	bool ok = seat >= 0;
	for (int i = 0; i < 2 && ok; i++)
		ok = !git_commit_parent(&k[i], c, n - 2 + (unsigned)i) &&
		     store_author_seat(s, k[i]) == seat &&
		     git_commit_parentcount(k[i]) > 0;
	ok = ok && !git_oid_equal(git_commit_id(k[0]), git_commit_id(k[1])) &&
	     git_oid_equal(git_commit_parent_id(k[0], 0),
			   git_commit_parent_id(k[1], 0));
	if (ok) {
		v->seat = seat;
		v->parent = *git_commit_parent_id(k[0], 0);
		v->child[0] = *git_commit_id(k[0]);
		v->child[1] = *git_commit_id(k[1]);
	}
	git_commit_free(k[0]);
	git_commit_free(k[1]);
	return ok;
}

/*
 * Whether c is an expulsion of v's seat. It settles every fork of that
 * seat, wherever (an earlier one met later included): the seat is out
 * for good, and every peer that holds the expulsion judges alike.
 */
static bool settles(catan_store *s, const store_verdict *v, git_commit *c)
{
	store_verdict w;
	return store_expel_proof(s, c, &w) && w.seat == v->seat;
}

int store_expel_find(catan_store *s, const store_verdict *v,
		     const git_oid *from, int n, git_oid *z)
{
	if (s->expel_known && s->expel_seat == v->seat)
		for (int i = 0; i < n; i++)
			if (git_oid_equal(&from[i], &s->expel_id) ||
			    store_is_ancestor(s, &s->expel_id, &from[i]) == 1) {
				if (z)
					*z = s->expel_id;
				return 1;
			}
	git_revwalk *w = NULL;
	git_oid id;
	long left = STORE_VOIDS_WALK;
	int found = 0;
	if (git_revwalk_new(&w, s->repo) || git_revwalk_hide(w, &v->parent)) {
		git_revwalk_free(w);
		return 0;
	}
	for (int i = 0; i < n; i++)
		if (git_revwalk_push(w, &from[i])) {
			git_revwalk_free(w);
			return 0;
		}
	while (!found && left-- > 0 && git_revwalk_next(&id, w) == 0) {
		git_commit *c = NULL;
		if (git_commit_lookup(&c, s->repo, &id))
			break;
		/* (Only a merge can be one: the rest costs a count.) */
		if (git_commit_parentcount(c) >= 3 && settles(s, v, c)) {
			found = 1;
			s->expel_known = true;
			s->expel_id = id;
			s->expel_seat = v->seat;
			if (z)
				*z = id;
		}
		git_commit_free(c);
	}
	git_revwalk_free(w);
	return found;
}

int store_seat_last(catan_store *s, int p, const git_oid *at, git_oid *out)
{
	/*
	 * Children come before their parents in a topological walk, and a
	 * seat's commits form one line: the first met is its newest.
	 */
	git_revwalk *w = NULL;
	git_oid id;
	long left = STORE_VOIDS_WALK;
	*out = s->genesis;
	if (git_revwalk_new(&w, s->repo) || git_revwalk_push(w, at)) {
		git_revwalk_free(w);
		return -1;
	}
	git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL);
	while (left-- > 0 && git_revwalk_next(&id, w) == 0) {
		git_commit *c = NULL;
		if (git_commit_lookup(&c, s->repo, &id))
			break;
		bool mine =
		    store_author_seat(s, c) == p && git_commit_parentcount(c);
		git_commit_free(c);
		if (mine) {
			*out = id;
			break;
		}
	}
	git_revwalk_free(w);
	return 0;
}

/*
 * Whether id is in what an expulsion of v's seat that a branch here holds
 * rests on (its parents but the proof): that stays (a fork of the seat
 * earlier than the one it was expelled for voids none of it), while the
 * proof's children, and what builds on them, stay void.
 */
static bool under_expulsion(catan_store *s, const store_verdict *v,
			    const git_oid *id)
{
	git_oid tips[CATAN_MAX_PLAYERS], z;
	git_commit *zc = NULL;
	int n = store_branch_tips(tips, s, NULL);
	bool under = false;
	if (store_expel_find(s, v, tips, n, &z) != 1 ||
	    git_commit_lookup(&zc, s->repo, &z))
		return false;
	unsigned np = git_commit_parentcount(zc);
	for (unsigned i = 0; i + 2 < np && !under; i++) {
		const git_oid *b = git_commit_parent_id(zc, i);
		under =
		    git_oid_equal(id, b) || store_is_ancestor(s, id, b) == 1;
	}
	git_commit_free(zc);
	return under;
}

bool store_verdict_twins(catan_store *s, const store_verdict *v,
			 store_verdict *inner)
{
	git_commit *k[2] = {NULL, NULL};
	store_verdict w[2];
	bool ok = true;
	for (int i = 0; i < 2 && ok; i++)
		ok = !git_commit_lookup(&k[i], s->repo, &v->child[i]) &&
		     store_expel_proof(s, k[i], &w[i]);
	ok = ok && w[0].seat == w[1].seat &&
	     git_oid_equal(&w[0].parent, &w[1].parent);
	if (ok && inner)
		*inner = w[0];
	git_commit_free(k[0]);
	git_commit_free(k[1]);
	return ok;
}

bool store_verdict_final(catan_store *s, const store_verdict *v)
{
	if (store_verdict_twins(s, v, NULL))
		return true;
	/* Two starts of a lobby: children of its claims, not of the
	 * genesis: the game never began, and nobody is expelled from it. */
	for (int i = 0; i < 2; i++) {
		git_commit *k = NULL;
		bool on = !git_commit_lookup(&k, s->repo, &v->child[i]) &&
			  git_commit_parentcount(k) > 0 &&
			  git_oid_equal(git_commit_parent_id(k, 0), &v->parent);
		git_commit_free(k);
		if (!on)
			return true;
	}
	return false;
}

static bool voids_one(catan_store *s, const store_verdict *v,
		      const git_oid *id);

bool store_verdict_voids(catan_store *s, const store_verdict *v,
			 const git_oid *id)
{
	/*
	 * Two expulsions of one seat signed by the seat that wrote them:
	 * both are void, and the fork they settled stands as it was (the
	 * seat they expel is not out either way: the game stops for good).
	 */
	store_verdict in;
	if (store_verdict_twins(s, v, &in))
		return voids_one(s, v, id) || voids_one(s, &in, id);
	return voids_one(s, v, id);
}

static bool voids_one(catan_store *s, const store_verdict *v, const git_oid *id)
{
	/* An expulsion of the seat, and what builds on it, goes on. */
	if (s->expel_known && s->expel_seat == v->seat &&
	    (git_oid_equal(id, &s->expel_id) ||
	     store_is_ancestor(s, &s->expel_id, id) == 1))
		return false;
	if (store_verdict_recorded(s, v, id))
		return store_expel_find(s, v, id, 1, NULL) == 0 &&
		       !under_expulsion(s, v, id);
	/*
	 * Any other child of the fork by the same seat too: what the game
	 * stops at is the parent, whichever pair of children a peer was
	 * shown (the record keeps two; a seat may have signed more). The
	 * commits since the parent are walked, as many as a sync takes in.
	 */
	if (git_oid_equal(id, &v->parent) ||
	    store_is_ancestor(s, &v->parent, id) != 1)
		return false;
	/*
	 * A child of the fork is by the seat, its first parent the
	 * verdict's parent. At the genesis, any commit by the seat: only
	 * the first seat has children there (a start's parents are the
	 * claims on the genesis; in a game without a lobby its first move
	 * is one), and all its later commits build on one of them.
	 */
	store_side_walk sw;
	git_oid at, up;
	bool hit = false;
	if (store_side_open(&sw, s, v->seat, id, &v->parent) == 0)
		while (!hit && store_side_next(&sw, s, &at, &up) == 0)
			hit = git_oid_equal(&up, &v->parent) ||
			      git_oid_equal(&v->parent, &s->genesis);
	git_revwalk_free(sw.w);
	return hit && store_expel_find(s, v, id, 1, NULL) == 0 &&
	       !under_expulsion(s, v, id);
}
