/*
 * act.c - layer 4 (log): the current position of a game repository,
 * acting on it (one commit per action), and the log.
 *
 * The position is read from the branch tips: normally one tip is the newest
 * (every other tip is its ancestor) and its tree is the state. While the
 * discards after a 7 are being committed the tips fan out from the 7-roll
 * commit; the position is then the 7-roll state with every discard so far
 * applied, and once two or more discards are all in, the active player's
 * next action first commits their merge. Fair dice fan out the same way:
 * the reveals rest on the request, and the requester's completion is
 * itself the merge of two or more.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby.h"

typedef struct position {
	catan_state state;
	catan_state base; /* during a fan: the 7-roll or request state */
	store_fair fair, base_fair; /* fair dice: chain values, as states */
	git_oid head; /* what the next ordinary action builds on */
	int nfan;     /* discard or reveal commits on `head` not merged yet */
	git_oid fan[CATAN_MAX_PLAYERS];
	uint8_t fan_player[CATAN_MAX_PLAYERS];
	bool merge_pending;
	bool reveals; /* the fan is of reveals (else of discards) */
	/* A signed game's equivocation record, when there is one. */
	bool proven;
	store_verdict verdict;
} position;

/* A commit of a fan: a discard on the 7-roll commit, a fair reveal. */
static bool is_discard(const git_commit *c)
{
	const char *sum = git_commit_summary((git_commit *)c);
	return sum && (!strncmp(sum, "discard ", 8) || !strcmp(sum, "reveal"));
}

/*
 * The discard or reveal of commit c by player p, applied to *st (and a
 * reveal's chain value to *f, where it must continue p's chain).
 */
static int apply_discard(catan_state *st, store_fair *f, catan_store *s,
			 git_commit *c, int p, catan_err *err)
{
	catan_action a;
	catan_parse_error pe;
	if (catan_action_parse(&a, &s->game.board, &s->game.names,
			       git_commit_summary(c), &pe) ||
	    (a.kind != CATAN_ACT_DISCARD && a.kind != CATAN_ACT_REVEAL))
		return store_fail_code(err, CATAN_STORE_E_CORRUPT,
				       "discard commit does not parse: %s",
				       pe.msg);
	int rc = catan_state_apply(st, &s->game.board, st, p, &a, NULL);
	if (rc)
		return store_fail_code(
		    err, CATAN_STORE_E_CORRUPT, "%s commit refused: %s",
		    a.kind == CATAN_ACT_REVEAL ? "reveal" : "discard",
		    catan_error_str(rc));
	if (a.kind == CATAN_ACT_REVEAL) {
		uint8_t x[32], h[32];
		if (store_fair_read(x, s, git_commit_tree_id(c), p))
			return store_fail_code(err, CATAN_STORE_E_CORRUPT,
					       "reveal commit without its "
					       "value (fair-%s)",
					       s->game.names.name[p]);
		store_fair_hash(h, x);
		if (!((f->anchored >> p) & 1) || memcmp(h, f->head[p], 32))
			return store_fail_code(err, CATAN_STORE_E_CORRUPT,
					       "reveal of %s does not continue "
					       "its chain",
					       s->game.names.name[p]);
		memcpy(f->head[p], x, 32);
	}
	return 0;
}

static int read_commit_state(catan_state *out, store_fair *f, catan_store *s,
			     const git_oid *id, catan_err *err)
{
	git_commit *c = NULL;
	if (git_commit_lookup(&c, s->repo, id))
		return store_git_fail(err, "reading a commit");
	int rc = store_read_state(out, f, s, git_commit_tree_id(c), err);
	git_commit_free(c);
	return rc;
}

/*
 * No single newest tip: the maximal tips (no other tip descends from
 * them) must be discards sharing one parent, the 7-roll commit, which
 * goes into *base. 0, or -1 with err.
 */
static int fan_base(git_oid *base, catan_store *s, const git_oid *tips,
		    catan_err *err)
{
	int n = s->game.opt.nplayers;
	git_commit *c = NULL;
	/*
	 * No single newest tip: the maximal tips (no other tip descends
	 * from them) must be discards sharing one parent, the 7-roll
	 * commit; every other tip is behind it.
	 */
	bool have_base = false;
	for (int p = 0; p < n; p++) {
		bool maximal = true;
		for (int q = 0; q < n && maximal; q++)
			maximal = git_oid_equal(&tips[p], &tips[q]) ||
				  store_is_ancestor(s, &tips[p], &tips[q]) != 1;
		if (!maximal)
			continue;
		if (git_commit_lookup(&c, s->repo, &tips[p]))
			return store_git_fail(err, "reading a commit");
		bool ok = is_discard(c) && git_commit_parentcount(c) == 1 &&
			  (!have_base ||
			   git_oid_equal(base, git_commit_parent_id(c, 0)));
		if (ok && !have_base) {
			git_oid_cpy(base, git_commit_parent_id(c, 0));
			have_base = true;
		}
		git_commit_free(c);
		c = NULL;
		if (!ok) {
			char id[GIT_OID_HEXSZ + 1];
			git_oid_tostr(id, sizeof id, &tips[p]);
			return store_fail_code(err, CATAN_STORE_E_CORRUPT,
					       "branches diverge: %s "
					       "(refs/heads/%s) is not a "
					       "discard on the 7-roll commit",
					       id, s->game.names.name[p]);
		}
	}
	return 0;
}

/*
 * The fan: the tips that are discards on `base`, one per player, into
 * pos->fan in player order. 0, or -1 with err when a tip ahead of base
 * is anything else.
 */
static int read_fan(position *pos, catan_store *s, const git_oid *tips,
		    const git_oid *base, catan_err *err)
{
	int n = s->game.opt.nplayers;
	git_commit *c = NULL;
	/* The fan: the tips that are discards on `base`, one per player. */
	for (int p = 0; p < n; p++) {
		if (git_oid_equal(&tips[p], base) ||
		    store_is_ancestor(s, &tips[p], base) == 1)
			continue;
		if (git_commit_lookup(&c, s->repo, &tips[p]))
			return store_git_fail(err, "reading a commit");
		int who = store_author_seat(s, c);
		if (!is_discard(c) || git_commit_parentcount(c) != 1 ||
		    !git_oid_equal(git_commit_parent_id(c, 0), base) ||
		    who < 0) {
			char id[GIT_OID_HEXSZ + 1];
			git_oid_tostr(id, sizeof id, &tips[p]);
			git_commit_free(c);
			return store_fail_code(
			    err, CATAN_STORE_E_CORRUPT,
			    "branches diverge: %s (refs/heads/%s) "
			    "is not a discard on the 7-roll commit",
			    id, s->game.names.name[p]);
		}
		bool seen = false;
		for (int k = 0; k < pos->nfan; k++)
			seen |= git_oid_equal(&pos->fan[k], &tips[p]);
		if (!seen) {
			git_oid_cpy(&pos->fan[pos->nfan], &tips[p]);
			pos->fan_player[pos->nfan++] = (uint8_t)who;
		}
		git_commit_free(c);
		c = NULL;
	}
	/* Player order makes the merged state and the merge canonical. */
	for (int i = 1; i < pos->nfan; i++)
		for (int k = i;
		     k > 0 && pos->fan_player[k - 1] > pos->fan_player[k];
		     k--) {
			git_oid t = pos->fan[k];
			uint8_t tp = pos->fan_player[k];
			pos->fan[k] = pos->fan[k - 1];
			pos->fan_player[k] = pos->fan_player[k - 1];
			pos->fan[k - 1] = t;
			pos->fan_player[k - 1] = tp;
		}
	return 0;
}

static int get_position(position *pos, catan_store *s, catan_err *err)
{
	int n = s->game.opt.nplayers, newest = -1;
	git_oid tips[CATAN_MAX_PLAYERS] = {{{0}}}, base;
	git_commit *c = NULL;
	int rc = -1;

	memset(pos, 0, sizeof *pos);
	/* A lobby: the genesis's state until the start (lobby.c). */
	if (s->game.open) {
		git_oid_cpy(&pos->head, &s->genesis);
		return catan_state_init(&pos->state, &s->game.board,
					&s->game.opt)
			   ? store_fail(err, "game options out of range")
			   : 0;
	}
	for (int p = 0; p < n; p++)
		if (store_branch_tip(&tips[p], s, p))
			return store_fail_code(
			    err, CATAN_STORE_E_CORRUPT,
			    "branch refs/heads/%s is missing",
			    s->game.names.name[p]);
	/*
	 * A seat proven to have signed two moves on one commit: its branch
	 * (one child or the other, or what it built there, as this peer saw
	 * it) counts as that commit, where the game stopped; once it is
	 * expelled, its branch is back before the fork anyway.
	 */
	pos->proven = !s->batch && s->game.signed_game &&
		      store_verdict_read(s, &pos->verdict) == 1;
	if (pos->proven)
		tips[pos->verdict.seat] = pos->verdict.parent;
	/*
	 * Batch mode has one writer, this handle: the last commit it wrote is
	 * the newest, unless it was a discard (a fan-out may need a merge).
	 */
	if (s->batch && s->cached && !s->cache_discard) {
		pos->state = s->cache_state;
		pos->fair = s->cache_fair;
		git_oid_cpy(&pos->head, &s->cache_id);
		return 0;
	}
	for (int i = 0; i < n && newest < 0; i++) {
		bool all = true;
		for (int j = 0; j < n && all; j++)
			all = git_oid_equal(&tips[i], &tips[j]) ||
			      store_is_ancestor(s, &tips[j], &tips[i]) == 1;
		if (all)
			newest = i;
	}
	/*
	 * After an expulsion, a branch of a seat expelled earlier (another
	 * record's) may hold what it signed past its fork, adopted before
	 * this peer knew: the newest commit is the one every tip of a seat
	 * still in builds on, by its own state.
	 */
	for (int i = 0; pos->proven && newest < 0 && i < n; i++) {
		catan_state at;
		catan_err e2;
		if (read_commit_state(&at, NULL, s, &tips[i], &e2) || !at.out ||
		    (at.out >> i) & 1)
			continue;
		bool all = true;
		for (int j = 0; j < n && all; j++)
			all = (at.out >> j) & 1 ||
			      git_oid_equal(&tips[i], &tips[j]) ||
			      store_is_ancestor(s, &tips[j], &tips[i]) == 1;
		if (all)
			newest = i;
	}
	if (newest >= 0) {
		if (git_commit_lookup(&c, s->repo, &tips[newest]))
			return store_git_fail(err, "reading a commit");
		if (!is_discard(c) || git_commit_parentcount(c) != 1) {
			git_oid_cpy(&pos->head, &tips[newest]);
			if (s->cached &&
			    git_oid_equal(&s->cache_id, &tips[newest])) {
				pos->state = s->cache_state;
				pos->fair = s->cache_fair;
				git_commit_free(c);
				return 0;
			}
			rc = store_read_state(&pos->state, &pos->fair, s,
					      git_commit_tree_id(c), err);
			git_commit_free(c);
			return rc;
		}
		git_oid_cpy(&base, git_commit_parent_id(c, 0));
		git_commit_free(c);
		c = NULL;
	} else if (fan_base(&base, s, tips, err)) {
		return -1;
	}

	if (read_fan(pos, s, tips, &base, err))
		return -1;
	if (read_commit_state(&pos->state, &pos->fair, s, &base, err))
		return -1;
	pos->base = pos->state;
	pos->base_fair = pos->fair;
	pos->reveals = pos->state.phase == CATAN_PHASE_REVEAL;
	git_oid_cpy(&pos->head, &base);
	for (int k = 0; k < pos->nfan; k++) {
		if (git_commit_lookup(&c, s->repo, &pos->fan[k]))
			return store_git_fail(err, "reading a commit");
		rc = apply_discard(&pos->state, &pos->fair, s, c,
				   pos->fan_player[k], err);
		git_commit_free(c);
		c = NULL;
		if (rc)
			return -1;
	}
	if (pos->reveals ? !pos->state.reveal_wait
			 : pos->state.phase != CATAN_PHASE_DISCARD) {
		if (pos->nfan == 1) {
			/* One discard finished it: an ordinary chain. */
			git_oid_cpy(&pos->head, &pos->fan[0]);
			pos->nfan = 0;
		} else {
			pos->merge_pending = true;
		}
	}
	return 0;
}

long long catan_store_commit_time(catan_store *s, const catan_commit_id *id)
{
	git_oid oid;
	git_commit *c = NULL;
	if (git_oid_fromstrn(&oid, id->hex, GIT_OID_HEXSZ) ||
	    git_commit_lookup(&c, s->repo, &oid))
		return -1;
	long long t = (long long)git_commit_time(c);
	git_commit_free(c);
	return t;
}

int catan_store_current(catan_state *out, catan_commit_id *head, catan_store *s,
			catan_err *err)
{
	/*
	 * A game stopped by an equivocation is where it stopped: the commit
	 * both children build on (with the other seats' discards or reveals
	 * on it), the same at every peer that holds the record, whichever
	 * child its branches hold (get_position).
	 */
	position pos;
	if (get_position(&pos, s, err))
		return -1;
	*out = pos.state;
	store_oid_hex(head, &pos.head);
	return 0;
}

/*
 * store_verdict_stops for a caller that has the position (get_position's,
 * not in a lobby): the record get_position read, its seat not expelled
 * at pos; nothing read again.
 */
static bool stops_at(const position *pos)
{
	return pos->proven && !((pos->state.out >> pos->verdict.seat) & 1);
}

int store_verdict_stops(catan_store *s, store_verdict *v)
{
	position pos;
	catan_err err;
	if (s->batch || !s->game.signed_game || store_verdict_read(s, v) != 1)
		return 0;
	if (get_position(&pos, s, &err))
		return 1;
	return (pos.state.out >> v->seat) & 1 ? 0 : 1;
}

unsigned store_out_seats(catan_store *s)
{
	position pos;
	catan_err err;
	return get_position(&pos, s, &err) ? 0 : pos.state.out;
}

/*
 * In a stopped game, the expulsion due now: the equivocating seat is the
 * only one left to act (the others' discards or reveals are in), and
 * *by, the seat that acts next once it is skipped, writes it. Into *a.
 */
static bool expel_due(const catan_store *s, const store_verdict *v,
		      const catan_state *st, catan_action *a, int *by)
{
	catan_state next;
	catan_action_init(a, CATAN_ACT_EXPEL);
	a->player = (uint8_t)v->seat;
	for (int q = 0; q < s->game.opt.nplayers; q++)
		if (catan_state_apply(&next, &s->game.board, st, q, a, NULL) ==
		    CATAN_OK) {
			*by = q;
			return true;
		}
	return false;
}

int catan_store_expel_due(catan_store *s, int *seat, int *by)
{
	store_verdict v;
	position pos;
	catan_err err;
	catan_action a;
	if (s->batch || !s->game.signed_game ||
	    store_verdict_read(s, &v) != 1 || get_position(&pos, s, &err) ||
	    (pos.state.out >> v.seat) & 1 || store_verdict_final(s, &v) ||
	    !expel_due(s, &v, &pos.state, &a, by))
		return 0;
	*seat = v.seat;
	return 1;
}

/*
 * Whether rev reads a reflog that is not there ("red@{1}" of a branch
 * without one): libgit2 1.5 creates an empty reflog, and its directories,
 * when asked for an entry of a missing one, so a read would write. The
 * log is looked for here first (git_reference_has_log only looks). An
 * empty name ("@{1}", "@{-1}") reads HEAD's and its branch's.
 */
static bool reads_missing_log(catan_store *s, const char *rev, char *which,
			      size_t len)
{
	const char *at = strstr(rev, "@{"), *in = at ? at + 2 : NULL;
	char name[256];
	git_reference *r = NULL, *res = NULL;
	bool missing = false;
	if (!at || rev[0] == ':' || !strncmp(in, "u}", 2) ||
	    !strncmp(in, "upstream}", 9) || !strncmp(in, "push}", 5) ||
	    (size_t)(at - rev) >= sizeof name)
		return false;
	snprintf(name, sizeof name, "%.*s", (int)(at - rev), rev);
	if (!name[0] || in[0] == '-')
		snprintf(name, sizeof name, "HEAD");
	if (git_reference_dwim(&r, s->repo, name))
		return false; /* revparse says what is wrong */
	if (git_reference_has_log(s->repo, git_reference_name(r)) != 1) {
		snprintf(which, len, "%s", git_reference_name(r));
		missing = true;
	} else if (git_reference_type(r) == GIT_REFERENCE_SYMBOLIC &&
		   git_reference_resolve(&res, r) == 0 &&
		   git_reference_has_log(s->repo, git_reference_name(res)) !=
		       1) {
		snprintf(which, len, "%s", git_reference_name(res));
		missing = true;
	}
	git_reference_free(res);
	git_reference_free(r);
	return missing;
}

int catan_store_rev_check(catan_store *s, const char *rev, catan_err *err)
{
	char side[512], log[300];
	const char *dots = strstr(rev, "..");
	for (int i = 0; i < 2; i++) {
		if (i == 0 && dots)
			snprintf(side, sizeof side, "%.*s", (int)(dots - rev),
				 rev);
		else if (i == 0)
			snprintf(side, sizeof side, "%s", rev);
		else if (dots)
			snprintf(side, sizeof side, "%s",
				 dots + (dots[2] == '.' ? 3 : 2));
		else
			break;
		if (reads_missing_log(s, side, log, sizeof log))
			return store_fail_code(err, CATAN_STORE_E_NOT_FOUND,
					       "%s has no reflog", log);
	}
	return 0;
}

int catan_store_state_at(catan_state *out, catan_commit_id *id, catan_store *s,
			 const char *rev, catan_err *err)
{
	git_object *obj = NULL;
	char log[256];
	if (!rev)
		return catan_store_current(out, id, s, err);
	if (reads_missing_log(s, rev, log, sizeof log))
		return store_fail_code(err, CATAN_STORE_E_NOT_FOUND,
				       "resolving the revision: %s has no "
				       "reflog",
				       log);
	int prc = git_revparse_single(&obj, s->repo, rev);
	if (prc)
		return store_git_fail_rc(err, prc, "resolving the revision");
	git_commit *c = NULL;
	int rc = git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc)
		return store_git_fail_rc(err, GIT_ENOTFOUND, "not a commit");
	store_oid_hex(id, git_commit_id(c));
	rc = store_read_state(out, NULL, s, git_commit_tree_id(c), err);
	git_commit_free(c);
	return rc;
}

/*
 * Fair dice: the requester's completion takes its outcome from the
 * reveals. `a` may leave the outcome out (it is filled in) or state it
 * (it must be the one the reveals give). 0, or -1 with err.
 */
static int fair_complete(catan_action *a, const position *pos, catan_store *s,
			 int actor, catan_err *err)
{
	const catan_state *st = &pos->state;
	if (st->phase != CATAN_PHASE_REVEAL || st->reveal_wait ||
	    actor != st->requester || a->kind != st->req_kind)
		return 0;
	catan_action want;
	uint8_t r[32];
	store_fair_random(r, st, &pos->fair);
	catan_fair_outcome(&want, st, r);
	bool stated;
	catan_action_chance(st, a, &stated);
	if (stated && memcmp(a, &want, sizeof want)) {
		char text[160];
		catan_action_format(text, sizeof text, &s->game.board,
				    &s->game.names, &want);
		return store_fail_code(err, CATAN_E_BAD_ACTION,
				       "the reveals give \"%s\"", text);
	}
	*a = want;
	return 0;
}

/*
 * Fair dice: the chain value commit c by actor publishes into f (the
 * tree's fair-<actor>): its anchor on its first commit; on a request or a
 * reveal its next value. A first commit cannot also ask or reveal (one
 * file, one value): the set-up comes before any chance. 0, or -1 with err.
 */
static int fair_publish(store_fair *f, catan_store *s, int actor,
			const catan_state *before, const catan_state *after,
			const catan_action *a, catan_err *err)
{
	uint8_t x[32], h[32];
	bool request = after->phase == CATAN_PHASE_REVEAL &&
		       before->phase != CATAN_PHASE_REVEAL;
	bool publishes = request || a->kind == CATAN_ACT_REVEAL;
	if (!((f->anchored >> actor) & 1)) {
		if (publishes)
			return store_fail_code(
			    err, CATAN_STORE_E_DENIED,
			    "fair dice: %s's first commit anchors its chain "
			    "and cannot also %s",
			    s->game.names.name[actor],
			    request ? "ask for an outcome" : "reveal");
		if (store_fair_value(x, s, actor, 0, err))
			return -1;
		memcpy(f->head[actor], x, 32);
		f->anchored |= (uint8_t)(1u << actor);
		return 0;
	}
	if (!publishes)
		return 0;
	if (store_fair_value(x, s, actor, before->fair_events + 1, err))
		return -1;
	store_fair_hash(h, x);
	if (memcmp(h, f->head[actor], 32))
		return store_fail_code(err, CATAN_STORE_E_DENIED,
				       "fair dice: the chain of %s's key does "
				       "not continue the one the game holds",
				       s->game.names.name[actor]);
	memcpy(f->head[actor], x, 32);
	return 0;
}

/*
 * A signed game stopped at an equivocation (a seat signed two different
 * moves on one commit) and its seat not expelled yet: -1 with err saying
 * where, who, and who expels it when that is due. Nobody acts on such a
 * game but the seats whose discards or reveals on that commit are owed,
 * and the expulsion.
 */
static int stopped_say(catan_store *s, const store_verdict *v,
		       const catan_state *st, catan_err *err)
{
	char m[GIT_OID_HEXSZ + 1], x[GIT_OID_HEXSZ + 1], y[GIT_OID_HEXSZ + 1];
	char then[160] = "";
	catan_action a;
	int by;
	git_oid_tostr(m, sizeof m, &v->parent);
	git_oid_tostr(x, sizeof x, &v->child[0]);
	git_oid_tostr(y, sizeof y, &v->child[1]);
	store_verdict in;
	if (store_verdict_twins(s, v, &in))
		return store_fail(err,
				  "the game stopped at %.10s: %s signed two "
				  "different expulsions of %s there (%.10s and "
				  "%.10s); nobody moves on",
				  m, s->game.names.name[v->seat],
				  s->game.names.name[in.seat], x, y);
	if (store_verdict_final(s, v))
		snprintf(then, sizeof then, "; nobody moves on");
	else if (expel_due(s, v, st, &a, &by))
		snprintf(then, sizeof then,
			 "; %s goes on without it: catan act expel %s --as %s",
			 s->game.names.name[by], s->game.names.name[v->seat],
			 s->game.names.name[by]);
	return store_fail(err,
			  "the game stopped at %.10s: %s signed two "
			  "different moves there (%.10s and %.10s)%s",
			  m, s->game.names.name[v->seat], x, y, then);
}

int catan_store_act(catan_store *s, int actor, const catan_action *a,
		    catan_outcome *outcome, catan_commit_id *id, catan_err *err)
{
	const catan_game *g = &s->game;
	position pos;
	catan_state next;
	git_oid tree, commit, tip;
	char subject[160];

	if (actor < 0 || actor >= g->opt.nplayers)
		return store_fail_code(err, CATAN_E_BAD_PLAYER,
				       "no such player");
	if (g->open) {
		char waits[CATAN_MAX_PLAYERS * (CATAN_NAME_MAX + 2)];
		store_lobby_waits(waits, sizeof waits, g);
		return store_fail_code(err, CATAN_STORE_E_DENIED,
				       "the game has not started: it waits for "
				       "seats %s to be claimed (catan join "
				       "... --as SEAT --key FILE) and for %s "
				       "to start it",
				       waits, g->names.name[0]);
	}
	if (get_position(&pos, s, err))
		return -1;
	const store_verdict v = pos.verdict;
	bool stopped = stops_at(&pos);
	if (a->kind == CATAN_ACT_EXPEL && !stopped)
		return store_fail_code(
		    err, CATAN_E_BAD_ACTION,
		    "nobody is to be expelled: an expulsion needs the proof "
		    "that a seat signed two different moves on one commit, "
		    "and this peer holds none that stops the game");
	if (stopped &&
	    (actor == v.seat || store_verdict_final(s, &v) ||
	     (a->kind == CATAN_ACT_EXPEL && (int)a->player != v.seat) ||
	     catan_state_apply(&next, &g->board, &pos.state, actor, a, NULL) !=
		 CATAN_OK))
		return stopped_say(s, &v, &pos.state, err);
	bool fair = g->opt.dice == CATAN_DICE_FAIR;
	catan_action act = *a;
	if (fair && fair_complete(&act, &pos, s, actor, err))
		return -1;
	/* The rules first: a refused action writes nothing at all. */
	int rc = catan_state_apply(&next, &g->board, &pos.state, actor, &act,
				   outcome);
	if (rc) {
		char text[160];
		catan_action_format(text, sizeof text, &g->board, &g->names,
				    &act);
		if (fair && (rc == CATAN_E_DICE_NOT_ALLOWED ||
			     rc == CATAN_E_DRAW_NOT_ALLOWED))
			return store_fail_code(
			    err, rc,
			    "%s may not \"%s\" now: with fair dice nobody "
			    "states an outcome; ask for it without one, and "
			    "every seat's secret decides it",
			    g->names.name[actor], text);
		return store_fail_code(err, rc, "%s may not \"%s\" now: %s",
				       g->names.name[actor], text,
				       catan_error_str(rc));
	}
	store_fair nf = pos.fair;
	if (fair && fair_publish(&nf, s, actor, &pos.state, &next, &act, err))
		return -1;
	git_oid parents[CATAN_MAX_PLAYERS + 2];
	int nparents = 1;
	git_oid_cpy(&parents[0], &pos.head);
	if (act.kind == CATAN_ACT_EXPEL) {
		/*
		 * The expulsion rests on the fork's parent, or on the other
		 * seats' discards or reveals there, and carries its proof:
		 * the two children, as its last parents.
		 */
		if (pos.nfan > 0) {
			memcpy(parents, pos.fan,
			       sizeof(git_oid) * (size_t)pos.nfan);
			nparents = pos.nfan;
		}
		parents[nparents++] = v.child[0];
		parents[nparents++] = v.child[1];
	} else if (pos.merge_pending && pos.reveals) {
		/* The completion itself merges the reveals. */
		memcpy(parents, pos.fan, sizeof(git_oid) * (size_t)pos.nfan);
		nparents = pos.nfan;
	} else if (pos.merge_pending) {
		/* The active player joins the discards before going on. */
		int active = pos.state.active;
		git_oid merge;
		if (store_state_tree(&tree, s, &pos.state, &pos.fair, true))
			return store_git_fail(err, "writing the merged state");
		if (store_commit(&merge, s, active, STORE_MERGE_SUBJECT,
				 pos.state.turn, NULL, &tree, pos.fan, pos.nfan,
				 err))
			return -1;
		if (store_branch_tip(&tip, s, active) ||
		    store_move_branch(s, active, &tip, &merge,
				      STORE_MERGE_SUBJECT, err))
			return -1;
		git_oid_cpy(&parents[0], &merge);
	}
	/*
	 * A discard rests on the 7-roll commit alone: its tree is the 7-roll
	 * state with only this discard, whatever others are already in; a
	 * reveal likewise on the request.
	 */
	catan_state own = next;
	store_fair own_fair = nf;
	bool child =
	    act.kind == CATAN_ACT_DISCARD || act.kind == CATAN_ACT_REVEAL;
	if (child && pos.nfan > 0) {
		if (catan_state_apply(&own, &g->board, &pos.base, actor, &act,
				      NULL))
			return store_fail(err,
					  "%s does not apply to the "
					  "state it rests on",
					  act.kind == CATAN_ACT_REVEAL
					      ? "reveal"
					      : "discard");
		own_fair = pos.base_fair;
		memcpy(own_fair.head[actor], nf.head[actor], 32);
		own_fair.anchored |= nf.anchored;
	}
	if (store_state_tree(&tree, s, &own, &own_fair, true))
		return store_git_fail(err, "writing the new state");
	catan_action_format(subject, sizeof subject, &g->board, &g->names,
			    &act);
	bool rolled =
	    act.kind == CATAN_ACT_ROLL && own.phase != CATAN_PHASE_REVEAL;
	if (store_commit(&commit, s, actor, subject, pos.state.turn,
			 rolled ? own.dice : NULL, &tree, parents, nparents,
			 err))
		return -1;
	if (store_branch_tip(&tip, s, actor))
		return store_fail_code(err, CATAN_STORE_E_CORRUPT,
				       "branch of %s is missing",
				       g->names.name[actor]);
	if (store_move_branch(s, actor, &tip, &commit, subject, err))
		return -1;
	if (act.kind == CATAN_ACT_EXPEL && store_expelled_back(s, &v, err))
		return -1;
	s->cached = true;
	s->cache_discard = child;
	git_oid_cpy(&s->cache_id, &commit);
	s->cache_state = own;
	s->cache_fair = own_fair;
	store_oid_hex(id, &commit);
	return 0;
}

int catan_store_log(catan_store *s,
		    int (*fn)(const catan_log_entry *e, void *ctx), void *ctx,
		    catan_err *err)
{
	return catan_store_log_ext(s, false, fn, ctx, err);
}

int catan_store_log_ext(catan_store *s, bool stored,
			int (*fn)(const catan_log_entry *e, void *ctx),
			void *ctx, catan_err *err)
{
	git_revwalk *walk = NULL;
	git_oid id;
	int rc = 0;
	/* A stopped game's history ends where it stopped (get_position). */
	store_verdict v;
	bool stopped = !stored && store_verdict_stops(s, &v) == 1;
	if (git_revwalk_new(&walk, s->repo) ||
	    (stopped ? git_revwalk_push(walk, &v.parent)
		     : git_revwalk_push_glob(walk, "refs/heads/*")))
		return store_git_fail(err, "walking the history");
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	while (rc == 0 && git_revwalk_next(&id, walk) == 0) {
		git_commit *c = NULL;
		catan_log_entry e;
		if (git_commit_lookup(&c, s->repo, &id)) {
			rc = store_git_fail(err, "reading a commit");
			break;
		}
		memset(&e, 0, sizeof e);
		store_oid_hex(&e.id, &id);
		snprintf(e.subject, sizeof e.subject, "%s",
			 git_commit_summary(c) ? git_commit_summary(c) : "");
		const git_signature *a = git_commit_author(c);
		snprintf(e.author, sizeof e.author, "%s",
			 a && a->name ? a->name : "?");
		e.turn = store_trailer_int(git_commit_message(c), "Turn");
		store_trailer_dice(git_commit_message(c), e.dice);
		/* Only the join of the discards is a merge without an action;
		 * a fair outcome's completion also has several parents but is
		 * the roll, draw or robbery itself. */
		e.merge = git_commit_parentcount(c) > 1 &&
			  !strcmp(e.subject, STORE_MERGE_SUBJECT);
		git_commit_free(c);
		rc = fn(&e, ctx);
	}
	git_revwalk_free(walk);
	return rc ? -1 : 0;
}
