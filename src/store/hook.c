/*
 * hook.c - layer 7 (top): what a repository players push to accepts
 * (catan_store_check_push, run by the pre-receive hook `catan host-hook`
 * installs): only forward moves of players' branches whose new commits
 * verify as a sync verifies them (verify_new.c). Read-only.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exchange.h"

static int refuse(catan_verify_report *rep, const char *id, const char *fmt,
		  ...) __attribute__((format(printf, 3, 4)));

static int refuse(catan_verify_report *rep, const char *id, const char *fmt,
		  ...)
{
	va_list ap;
	rep->ok = false;
	snprintf(rep->bad.hex, sizeof rep->bad.hex, "%.40s", id);
	va_start(ap, fmt);
	vsnprintf(rep->why, sizeof rep->why, fmt, ap);
	va_end(ap);
	return 0;
}

/*
 * The evidence a peer pushes (the two children of the equivocation it
 * recorded, ev[k] where set[k]; the other as this repository has it),
 * taken as a sync takes it from a peer (store_evidence_judge): a proof,
 * each child valid, kept over the pair this repository holds by the rule
 * every peer keeps. Each child is judged against the branches at tips[]:
 * as this push leaves them (verified before), so that one push may carry
 * the branches a pair builds on and the pair. Else refused with the
 * reason.
 */
static int check_evidence(catan_store *s, git_oid *ev, const bool *set,
			  const git_oid *tips, catan_verify_report *rep,
			  catan_err *err)
{
	git_oid cur[2];
	bool has = true;
	for (int k = 0; k < 2; k++) {
		const char *ref = store_evidence_name(k);
		has &= git_reference_name_to_id(&cur[k], s->repo, ref) == 0;
		if (!set[k] && !has)
			return refuse(rep, git_oid_tostr_s(&ev[!k]),
				      "%s: push refs/catan/equivocation-a "
				      "and -b together",
				      ref);
		if (!set[k])
			ev[k] = cur[k];
	}
	if (has && git_oid_equal(&ev[0], &cur[0]) &&
	    git_oid_equal(&ev[1], &cur[1]))
		return 0; /* (the pair held here) */
	store_verdict old, v;
	bool kept = has && store_evidence_proof(s, cur, &old);
	char why[600];
	int j = store_evidence_judge(s, ev, kept ? &old : NULL, tips, &v, why,
				     sizeof why, err);
	if (j < 0)
		return -1;
	if (j == STORE_EV_WORSE)
		snprintf(why, sizeof why,
			 "the pair held here is kept (an earlier fork, or "
			 "smaller ids): fetch it first");
	else if (j == STORE_EV_LATER)
		snprintf(why, sizeof why,
			 "a child cannot be judged here yet (push the "
			 "branches it builds on first)");
	/*
	 * Only the pair every peer keeps of the two, the smaller id as -a:
	 * a pair that merely beats the one here (say {c2, c4} over {c1, c3})
	 * would drop c1, and a pair out of order would make every sorted
	 * push of an honest peer look worse.
	 */
	if (j == STORE_EV_PROOF && store_evidence_same(ev, &v) != 1) {
		char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
		snprintf(why, sizeof why,
			 "the pair to keep is %s and %s (the smaller id as "
			 "-a)",
			 git_oid_tostr(a, sizeof a, &v.child[0]),
			 git_oid_tostr(b, sizeof b, &v.child[1]));
		j = STORE_EV_NONE;
	}
	if (j != STORE_EV_PROOF)
		return refuse(rep, git_oid_tostr_s(&ev[0]),
			      "refs/catan/equivocation-a/-b: %s", why);
	return 0;
}

int catan_store_fill_branches(catan_store *s, catan_err *err)
{
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		git_oid tip;
		if (store_branch_tip(&tip, s, p) == 0)
			continue;
		if (store_move_branch(s, p, NULL, &s->genesis,
				      "catan host-hook: the genesis", err))
			return -1;
	}
	return 0;
}

int catan_store_check_push(catan_store *s, const char *const *refs,
			   const char *const *olds, const char *const *news,
			   int n, catan_verify_report *rep, catan_err *err)
{
	const catan_game *g = &s->game;
	git_oid tips[CATAN_MAX_PLAYERS];
	memset(rep, 0, sizeof *rep);
	rep->ok = true;
	for (int p = 0; p < g->opt.nplayers; p++)
		if (store_branch_tip(&tips[p], s, p))
			return store_fail(err,
					  "branch refs/heads/%s is missing",
					  g->names.name[p]);
	git_oid ev[2];
	bool evset[2] = {false, false};
	/* Seats expelled here: their branches stay where they are. */
	unsigned out = g->signed_game ? store_out_seats(s) : 0;
	for (int i = 0; i < n; i++) {
		const char *name = refs[i] + 11;
		git_oid old, new;
		int k = store_evidence_index(refs[i], strlen(refs[i]));
		if (k >= 0) {
			if (git_oid_fromstr(&ev[k], news[i]))
				return refuse(rep, news[i], "%s: bad object id",
					      refs[i]);
			if (git_oid_is_zero(&ev[k]))
				return refuse(rep, olds[i],
					      "%s: an equivocation record is "
					      "never deleted",
					      refs[i]);
			evset[k] = true;
			continue;
		}
		int p = strncmp(refs[i], "refs/heads/", 11)
			    ? -1
			    : catan_names_find(&g->names, name, strlen(name));
		if (p < 0 || strcmp(name, g->names.name[p]))
			return refuse(rep, news[i],
				      "%.100s is not a player's branch (this "
				      "repository holds a game: only "
				      "refs/heads/<player> and "
				      "refs/catan/equivocation-a/-b may "
				      "move)",
				      refs[i]);
		if (git_oid_fromstr(&old, olds[i]) ||
		    git_oid_fromstr(&new, news[i]))
			return refuse(rep, news[i], "%s: bad object id",
				      refs[i]);
		if (git_oid_is_zero(&new))
			return refuse(rep, olds[i],
				      "%s: a player's branch is never deleted",
				      refs[i]);
		if ((out >> p) & 1)
			return refuse(rep, news[i],
				      "%s: %s was expelled (it signed two "
				      "different moves on one commit): its "
				      "branch moves no more",
				      refs[i], g->names.name[p]);
		if (!git_oid_equal(&old, &tips[p]))
			return refuse(rep, news[i],
				      "%s moved meanwhile (push again)",
				      refs[i]);
		/* (a forgery on the way is judged by verify below) */
		if (store_moves_forward(s, &old, &new) != 1)
			return refuse(rep, news[i],
				      "%s: history rewritten (%.10s does not "
				      "contain %.10s)",
				      refs[i], news[i], olds[i]);
		/* A branch ends at its owner's own commit or the genesis,
		 * as a sync takes it (adopt.c, M_TIPOWNER). */
		int who;
		if (store_tip_misplaced(s, p, &new, &who))
			return refuse(rep, news[i],
				      "%s: its tip would be %s's commit (a "
				      "branch ends at its owner's own commit)",
				      refs[i],
				      who >= 0 ? g->names.name[who] : "nobody");
		tips[p] = new;
	}
	catan_verify_report vr;
	if (store_verify_new(s, tips, &vr, err))
		return -1;
	if (!vr.ok)
		*rep = vr;
	else if (evset[0] || evset[1])
		return check_evidence(s, ev, evset, tips, rep, err);
	return 0;
}
