/*
 * adopt.c - layer 6: verifying what arrived from a remote and adopting it.
 * A remote branch ahead of the local one is a candidate; every new
 * commit of the candidates is verified (verify.h); a candidate that fails,
 * or that rewrote history, is quarantined and reported, and the local game
 * is left as it was. Valid candidates move the local branches forward.
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

/*
 * Moves the branch of player p from `old` to `id` (a descendant) for the
 * rest of this sync: in memory when the tips are held (settle writes it,
 * with every other move of the sync, in one write of packed-refs), else
 * at once through libgit2. 0 or -1.
 */
static int defer_move(catan_store *s, int p, const git_oid *old,
		      const git_oid *id, catan_err *err)
{
	if (!s->tips_held)
		return store_move_branch(s, p, old, id, "catan sync", err);
	if (!s->move_pending[p]) {
		s->move_old[p] = *old;
		s->move_pending[p] = true;
	}
	s->held_tips[p] = *id;
	return 0;
}

/*
 * Whether remote's tip r of player p's branch is a candidate to verify:
 * new (not an ancestor of local[p]) and neither refused before, a
 * rewrite of local[p]'s history nor built on what was refused before
 * (the last two are quarantined and noted in rep here).
 */
static bool candidate(catan_store *s, const char *remote, int p,
		      const git_oid *r, const git_oid *local,
		      catan_sync_report *rep)
{
	char hex[GIT_OID_HEXSZ + 1], hex2[GIT_OID_HEXSZ + 1];
	if (store_quarantined_at(s, remote, p, r))
		return false; /* refused and reported before */
	if (store_is_ancestor(s, r, &local[p]) == 1)
		return false; /* nothing new */
	if (store_is_ancestor(s, &local[p], r) != 1) {
		git_oid_tostr(hex, sizeof hex, &local[p]);
		git_oid_tostr(hex2, sizeof hex2, r);
		store_note(rep,
			   "rejected %s from %s: history rewritten (local %s, "
			   "remote %s does not contain it); kept as "
			   "refs/catan/quarantine/%s/%s",
			   s->game.names.name[p], remote, hex, hex2, remote,
			   s->game.names.name[p]);
		store_quarantine(s, remote, p, r, NULL, false,
				 "history rewritten", NULL);
		rep->rejected++;
		return false;
	}
	int floor = 0;
	git_commit *lc = NULL;
	if (git_commit_lookup(&lc, s->repo, &local[p]) == 0)
		floor = store_trailer_int(git_commit_message(lc), "Turn");
	git_commit_free(lc);
	if (store_builds_on_rejected(s, remote, p, r, local, floor)) {
		git_oid_tostr(hex2, sizeof hex2, r);
		store_note(rep,
			   "rejected %s from %s: builds on what was "
			   "rejected before (refs/catan/quarantine/%s/%s); "
			   "not checked again (tip %.10s)",
			   s->game.names.name[p], remote, remote,
			   s->game.names.name[p], hex2);
		git_oid qtip, qbad;
		char why[120];
		store_quarantine_read(s, remote, p, &qtip, &qbad);
		git_oid_tostr(hex, sizeof hex, &qbad);
		snprintf(why, sizeof why, "builds on %s, rejected before", hex);
		store_quarantine(s, remote, p, r, &qbad, false, why, NULL);
		rep->rejected++;
		return false;
	}
	return true;
}

/*
 * Verifies and adopts what remote `remote` holds: tips[p] is its branch of
 * player p where has[p]. Every object reachable from the tips is in the
 * object database on disk. The branches that move are written by settle;
 * held[p] is set for each branch held back (hold_back). Returns -1 only
 * when the local repository cannot be updated.
 */
static int verify_and_adopt(catan_store *s, const char *remote,
			    const git_oid *tips, const bool *has, bool *held,
			    catan_sync_report *rep, catan_err *err)
{
	int n = s->game.opt.nplayers;
	git_oid local[CATAN_MAX_PLAYERS], cand[CATAN_MAX_PLAYERS];
	bool ahead[CATAN_MAX_PLAYERS] = {false};
	char hex[GIT_OID_HEXSZ + 1];

	for (int p = 0; p < n; p++) {
		if (store_branch_tip(&local[p], s, p))
			return store_fail(err,
					  "branch refs/heads/%s is missing",
					  s->game.names.name[p]);
		cand[p] = local[p];
	}
	for (int p = 0; p < n; p++) {
		if (!has[p])
			continue; /* this remote does not have the branch */
		if (candidate(s, remote, p, &tips[p], local, rep)) {
			cand[p] = tips[p];
			ahead[p] = true;
		}
	}
	/*
	 * Verify all candidates together (they may build on each other);
	 * when a commit fails, drop the candidates holding it and retry.
	 */
	for (int round = 0; round <= n; round++) {
		bool any = false;
		for (int p = 0; p < n; p++)
			any |= ahead[p];
		if (!any)
			return 0;
		catan_verify_report vr;
		if (store_verify_new(s, cand, &vr, err))
			return -1;
		if (vr.ok) {
			for (int p = 0; p < n; p++) {
				if (!ahead[p])
					continue;
				if (defer_move(s, p, &local[p], &cand[p], err))
					return -1;
				git_oid_tostr(hex, sizeof hex, &cand[p]);
				store_note(rep,
					   "adopted %s from %s: now at %.10s",
					   s->game.names.name[p], remote, hex);
				rep->adopted++;
			}
			/* (store_verify_new kept the newest state it checked.)
			 */
			return 0;
		}
		if (vr.timed_out) {
			/* No verdict: nothing is adopted or quarantined. */
			store_note(rep, "gave up on %s: %s (at commit %.10s)",
				   remote, vr.why, vr.bad.hex);
			rep->refused++;
			return 0;
		}
		/*
		 * Every candidate holding the bad commit is dropped (by
		 * reachability: verify says which). Should none be said to
		 * hold it, every candidate left is refused with the reason
		 * rather than verified again: a sync never ends without a
		 * word on what it fetched.
		 */
		unsigned holds = vr.holders;
		for (int p = 0; p < n; p++)
			if (ahead[p] && (holds & (1u << p)))
				break;
			else if (p == n - 1)
				holds = ~0u;
		for (int p = 0; p < n; p++) {
			if (!ahead[p] || !(holds & (1u << p)))
				continue;
			git_oid_tostr(hex, sizeof hex, &cand[p]);
			/*
			 * Held back only when the author's branch is the
			 * remote's own (not one this sync dropped or found
			 * behind ours): then the remote really lacks it.
			 */
			int a = vr.off_author;
			if (vr.off_branch && a >= 0 && a < n && has[a] &&
			    git_oid_equal(&cand[a], &tips[a]) &&
			    store_hold_back(s, remote, p, &cand[p])) {
				held[p] = true;
				store_note(
				    rep,
				    "held back %s from %s: commit %.10s: %s "
				    "there (tip %.10s); tried again at the "
				    "next sync",
				    s->game.names.name[p], remote, vr.bad.hex,
				    vr.why, hex);
			} else {
				store_note(
				    rep,
				    "rejected %s from %s: commit %.10s: %s; "
				    "kept as refs/catan/quarantine/%s/%s "
				    "(tip %.10s)",
				    s->game.names.name[p], remote, vr.bad.hex,
				    vr.why, remote, s->game.names.name[p], hex);
				git_oid badid;
				git_oid_fromstr(&badid, vr.bad.hex);
				store_quarantine(s, remote, p, &cand[p], &badid,
						 vr.off_branch, vr.why, NULL);
				rep->rejected++;
			}
			cand[p] = local[p];
			ahead[p] = false;
		}
	}
	return 0;
}

/*
 * Verifies and adopts what remote `remote` holds: tips[p] is its branch of
 * player p where has[p] (see verify_and_adopt), then forgets the held-back
 * tips of its branches that were not held back again.
 */
int store_adopt_tips(catan_store *s, const char *remote, const git_oid *tips,
		     const bool *has, catan_sync_report *rep, catan_err *err)
{
	bool held[CATAN_MAX_PLAYERS] = {false};
	int rc = verify_and_adopt(s, remote, tips, has, held, rep, err);
	if (rc == 0)
		store_release_held(s, remote, has, held);
	return rc;
}

/* adopt_tips for what the remote-tracking refs of `remote` hold. */
int store_adopt_remote(catan_store *s, const char *remote,
		       catan_sync_report *rep, catan_err *err)
{
	git_oid tips[CATAN_MAX_PLAYERS];
	bool has[CATAN_MAX_PLAYERS] = {false};
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		char ref[256];
		snprintf(ref, sizeof ref, "refs/remotes/%s/%s", remote,
			 s->game.names.name[p]);
		has[p] = git_reference_name_to_id(&tips[p], s->repo, ref) == 0;
	}
	return store_adopt_tips(s, remote, tips, has, rep, err);
}
