/*
 * verify_new.c - layer 5: which commits to verify and the walk over them.
 * catan verify checks every commit from the genesis; a sync checks only
 * the commits the local branches lack (store_verify_new), trusting those
 * (verified when adopted), within the sync's limits.
 *
 * Commits are visited in topological order, so a commit's parents have
 * been checked when it is reached. The first failure stops the walk and
 * names the commit and the reason.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby.h"
#include "verify_ctx.h"

/*
 * The commits found[0..nf) (listed in `listed`) ordered parents first
 * into *out (malloc'ed, *nout of them); *todo (capacity *cap) is the
 * caller's stack, grown as needed. 0, or -1 when out of memory.
 */
static int parents_first(catan_store *s, const git_oid *found, size_t nf,
			 const oid_map *listed, git_oid **todo, size_t *cap,
			 git_oid **out, size_t *nout)
{
	/*
	 * Parents first: a depth-first post-order over the listed commits
	 * (todo is the stack; a commit is pushed back above its unlisted
	 * parents and emitted when it comes up again with all of them out).
	 */
	oid_map emitted = {NULL, NULL, 0, 0};
	git_oid *order = malloc((nf ? nf : 1) * sizeof *order);
	size_t no = 0;
	if (!order)
		return -1;
	for (size_t i = nf; i-- > 0;) {
		size_t n = 0;
		(*todo)[n++] = found[i];
		while (n > 0) {
			git_oid id = (*todo)[n - 1];
			git_commit *c = NULL;
			bool ready = true;
			size_t at = n;
			if (store_oidmap_has(&emitted, &id)) {
				n--;
				continue;
			}
			if (git_commit_lookup(&c, s->repo, &id) == 0) {
				unsigned k = git_commit_parentcount(c);
				git_oid *more = store_reserve(*todo, cap, n + k,
							      sizeof **todo);
				if (!more) {
					git_commit_free(c);
					free(order);
					store_oidmap_free(&emitted);
					return -1;
				}
				*todo = more;
				for (unsigned j = k; j-- > 0;) {
					const git_oid *pid =
					    git_commit_parent_id(c, j);
					if (store_oidmap_has(listed, pid) &&
					    !store_oidmap_has(&emitted, pid)) {
						(*todo)[n++] = *pid;
						ready = false;
					}
				}
				git_commit_free(c);
			}
			if (!ready)
				continue;
			n = at - 1;
			if (store_oidmap_add(&emitted, &id) < 0) {
				free(order);
				store_oidmap_free(&emitted);
				return -1;
			}
			order[no++] = id;
		}
	}
	store_oidmap_free(&emitted);
	*out = order;
	*nout = no;
	return 0;
}

/*
 * The commits reachable from newtips[] that no local branch holds, parents
 * before children, in *out (malloc'ed, *n of them). A commit is held when
 * it is an ancestor of a local tip, which store_is_ancestor decides by
 * walking back only through the turns since it: the work is what is new,
 * not the game's length. (libgit2's revwalk with the local tips hidden
 * orders by commit time, and commits of one second tie.) A commit that
 * cannot be read is listed all the same: the check reports it. Each new
 * commit's form is checked as it is met (check_form), as are the limits
 * on their number and on time: at the first that fails the walk stops,
 * cx->rep says which and why, and *out lists the commits met so far (in
 * no order) for the caller to attribute it. Returns 0; 1 then; -1 out of
 * memory.
 */
static int new_commits(ctx *cx, const git_oid *newtips, git_oid **out,
		       size_t *nout)
{
	catan_store *s = cx->s;
	long limit = s->budget.lim.commits > 0 ? s->budget.lim.commits
					       : STORE_DEFAULT_COMMITS;
	int np = s->game.opt.nplayers, nl = 0;
	git_oid local[CATAN_MAX_PLAYERS];
	oid_map visited = {NULL, NULL, 0, 0}, listed = {NULL, NULL, 0, 0};
	git_oid *todo = NULL, *found = NULL;
	size_t n = 0, cap = 0, nf = 0, fcap = 0;
	int rc = -1;

	*out = NULL;
	*nout = 0;
	for (int p = 0; p < np; p++) {
		git_oid t;
		bool dup = false;
		if (store_branch_tip(&t, s, p))
			continue;
		for (int k = 0; k < nl; k++)
			dup |= git_oid_equal(&local[k], &t);
		if (!dup)
			local[nl++] = t;
	}
	/* Newest first: every commit that is new, with its parents. */
	for (int p = 0; p < np; p++) {
		git_oid *more = store_reserve(todo, &cap, n + 1, sizeof *todo);
		if (!more)
			goto done;
		todo = more;
		todo[n++] = newtips[p];
	}
	while (n > 0) {
		git_oid id = todo[--n];
		int added = store_oidmap_add(&visited, &id);
		if (added < 0)
			goto done;
		if (added == 0)
			continue;
		bool held = false;
		for (int k = 0; k < nl && !held; k++)
			held = store_is_ancestor(s, &id, &local[k]) == 1;
		if (held)
			continue;
		git_oid *more =
		    store_reserve(found, &fcap, nf + 1, sizeof *found);
		if (!more)
			goto done;
		found = more;
		found[nf++] = id;
		if (store_oidmap_add(&listed, &id) < 0)
			goto done;
		/*
		 * Its form (and the limits) before anything else: junk is
		 * refused at the first bad commit met, not walked through.
		 */
		if ((long)nf > limit || store_past_deadline(&s->budget) ||
		    verify_check_form(cx, &id)) {
			if ((long)nf > limit)
				verify_bad(cx, &id,
					   "more than %s (%ld) new commits",
					   "CATAN_SYNC_MAX_COMMITS", limit);
			else if (store_past_deadline(&s->budget)) {
				cx->rep->timed_out = true;
				verify_bad(
				    cx, &id,
				    "gave up: over CATAN_SYNC_REMOTE_MS (%ld "
				    "ms)",
				    s->budget.lim.remote_ms);
			}
			*out = found;
			*nout = nf;
			found = NULL;
			rc = 1;
			goto done;
		}
		git_commit *c = NULL;
		if (git_commit_lookup(&c, s->repo, &id))
			continue;
		unsigned np2 = git_commit_parentcount(c);
		more = store_reserve(todo, &cap, n + np2, sizeof *todo);
		if (!more) {
			git_commit_free(c);
			goto done;
		}
		todo = more;
		for (unsigned i = 0; i < np2; i++)
			todo[n++] = *git_commit_parent_id(c, i);
		git_commit_free(c);
	}
	if (parents_first(s, found, nf, &listed, &todo, &cap, out, nout))
		goto done;
	rc = 0;
done:
	free(todo);
	free(found);
	store_oidmap_free(&visited);
	store_oidmap_free(&listed);
	return rc;
}

/*
 * Which candidates hold the bad commit rep->bad: bit p of rep->holders
 * for each newtips[p] from which it is reached through the new commits
 * ids[0..n) (a path to a new commit passes only through new ones: what a
 * local branch holds, its ancestors are held too). Decided by reachability
 * alone, never by Turn trailers (a commit without one, or lying, is still
 * attributed). Returns 0, or -1 out of memory.
 */
static int holders(catan_store *s, const git_oid *newtips, const git_oid *ids,
		   size_t n, catan_verify_report *rep)
{
	oid_map fresh = {NULL, NULL, 0, 0};
	git_oid badid, *todo = NULL;
	size_t cap = 0;
	int rc = 0;
	if (git_oid_fromstr(&badid, rep->bad.hex))
		return 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = store_oidmap_add(&fresh, &ids[i]) < 0 ? -1 : 0;
	for (int p = 0; p < s->game.opt.nplayers && rc == 0; p++) {
		oid_map done = {NULL, NULL, 0, 0};
		size_t k = 0;
		bool found = false;
		if (!store_oidmap_has(&fresh, &newtips[p]))
			continue;
		git_oid *room = store_reserve(todo, &cap, 1, sizeof *todo);
		if (!room) {
			rc = -1;
			break;
		}
		todo = room;
		todo[k++] = newtips[p];
		while (k > 0 && !found && rc == 0) {
			git_oid id = todo[--k];
			git_commit *c = NULL;
			int added = store_oidmap_add(&done, &id);
			if (added <= 0) {
				rc = added;
				continue;
			}
			if ((found = git_oid_equal(&id, &badid)) ||
			    git_commit_lookup(&c, s->repo, &id))
				continue;
			unsigned np = git_commit_parentcount(c);
			git_oid *more =
			    store_reserve(todo, &cap, k + np, sizeof *todo);
			if (!more)
				rc = -1;
			else
				todo = more;
			for (unsigned i = 0; more && i < np; i++)
				if (store_oidmap_has(
					&fresh, git_commit_parent_id(c, i)))
					todo[k++] = *git_commit_parent_id(c, i);
			git_commit_free(c);
		}
		store_oidmap_free(&done);
		if (found)
			rep->holders |= 1u << p;
	}
	free(todo);
	store_oidmap_free(&fresh);
	return rc;
}

int store_verify_new(catan_store *s, const git_oid *newtips,
		     catan_verify_report *rep, catan_err *err)
{
	ctx c = {.s = s, .rep = rep, .incremental = true, .newtips = newtips};
	git_oid *ids = NULL, last;
	size_t n = 0;
	int rc = 0;

	memset(rep, 0, sizeof *rep);
	rep->ok = true;
	rc = new_commits(&c, newtips, &ids, &n);
	if (rc < 0)
		return store_fail(err, "out of memory walking the new commits");
	for (size_t i = 0; i < n && rc == 0; i++) {
		git_commit *commit = NULL;
		if (store_past_deadline(&s->budget)) {
			rep->timed_out = true;
			rc = verify_bad(
			    &c, &ids[i],
			    "gave up: over CATAN_SYNC_REMOTE_MS (%ld ms)",
			    s->budget.lim.remote_ms);
			break;
		}
		if (git_commit_lookup(&commit, s->repo, &ids[i])) {
			rc = verify_bad(&c, &ids[i], "unreadable commit");
			break;
		}
		unsigned np = git_commit_parentcount(commit);
		/*
		 * A lobby's commits were form-checked when copied, maybe
		 * before the start bound their authors' keys: again, now
		 * that the walk went through the start (form.c).
		 */
		rc = s->lobby.open && verify_check_form(&c, &ids[i]) ? 1
		     : np == 0 ? verify_bad(&c, &ids[i], "a second root commit")
			       : verify_check_commit(&c, commit);
		git_commit_free(commit);
		rep->commits++;
		last = ids[i];
	}
	if (rc == 0)
		rc = verify_check_new_on_own_branch(&c);
	if (rc && holders(s, newtips, ids, n, rep))
		rc = store_fail(err, "out of memory walking the new commits");
	/*
	 * The newest state checked is the one the next action or sync most
	 * likely starts from: keep it at hand (catan_store_current, known()).
	 */
	for (size_t i = n > STORE_STATE_MEMO ? n - STORE_STATE_MEMO : 0;
	     rc == 0 && i < n; i++) {
		seen *k = verify_table_get(&c.t, &ids[i]);
		store_state_memo *m = &s->states[s->states_next];
		if (!k)
			continue;
		m->id = ids[i];
		m->state = k->state;
		m->fair = k->fair;
		s->states_next = (s->states_next + 1) % STORE_STATE_MEMO;
	}
	seen *e = rc == 0 && n > 0 ? verify_table_get(&c.t, &last) : NULL;
	if (e) {
		s->cached = true;
		s->cache_discard = e->discard;
		git_oid_cpy(&s->cache_id, &last);
		s->cache_state = e->state;
		s->cache_fair = e->fair;
	}
	free(ids);
	verify_table_free(&c.t);
	/* A start checked here is the handle's only once adopted. */
	if (rc)
		store_lobby_load(s);
	return rc < 0 ? -1 : 0;
}

int catan_store_verify(catan_store *s, catan_verify_report *rep, catan_err *err)
{
	ctx c = {.s = s, .rep = rep};
	git_revwalk *walk = NULL;
	int rc = 0;

	memset(rep, 0, sizeof *rep);
	rep->ok = true;
	if (git_revwalk_new(&walk, s->repo) ||
	    git_revwalk_push_glob(walk, "refs/heads/*")) {
		git_revwalk_free(walk);
		return store_git_fail(err, "walking the history");
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	rc = verify_check_walk(&c, walk);
	git_revwalk_free(walk);
	if (rc == 0)
		verify_check_branches(&c);
	verify_table_free(&c.t);
	if (!rep->ok)
		store_lobby_load(s);
	return 0;
}
