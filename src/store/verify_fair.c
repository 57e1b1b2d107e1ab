/*
 * verify_fair.c - layer 5 (verify): the checks of fair dice
 * (spec/replication.md, "Fair dice"): a seat's chain anchored on its first
 * commit and continued by each request and reveal, the outcome a
 * completion states, and the completion that merges the reveals.
 */
#include <string.h>

#include "verify_ctx.h"

/*
 * Fair dice: the completion of a request states the outcome that every
 * seat's revealed value gives (ps: every reveal in, f: their values).
 */
int verify_fair_outcome(ctx *c, const git_oid *id, const catan_state *ps,
			const store_fair *f, const catan_action *a)
{
	if (ps->phase != CATAN_PHASE_REVEAL || ps->reveal_wait ||
	    a->kind == CATAN_ACT_REVEAL)
		return 0;
	catan_action want;
	uint8_t r[32];
	char text[160];
	store_fair_random(r, ps, f);
	catan_fair_outcome(&want, ps, r);
	if (!memcmp(&want, a, sizeof want))
		return 0;
	const catan_game *g = &c->s->game;
	catan_action_format(text, sizeof text, &g->board, &g->names, &want);
	return verify_bad(c, id,
			  "wrong outcome: the reveals give \"%s\" (fair "
			  "dice)",
			  text);
}

/*
 * Fair dice: the values a commit publishes stand in its tree, in the file
 * fair-<author>: its anchor on the author's first commit; on a request
 * and on a reveal the author's next value, which hashes to the value it
 * published last. On any other commit the file stays as it was (the tree
 * comparison sees to that). f updated.
 */
int verify_fair_values(ctx *c, git_commit *commit, store_fair *f, int author,
		       const catan_state *ps, const catan_state *next,
		       const catan_action *a)
{
	const git_oid *id = git_commit_id(commit);
	const char *name = c->s->game.names.name[author];
	if (c->s->game.opt.dice != CATAN_DICE_FAIR)
		return 0;
	bool request = next->phase == CATAN_PHASE_REVEAL &&
		       ps->phase != CATAN_PHASE_REVEAL;
	bool publishes = request || a->kind == CATAN_ACT_REVEAL;
	bool anchored = (f->anchored >> author) & 1;
	if (anchored && !publishes)
		return 0;
	uint8_t v[32], h[32];
	int rc = store_fair_read(v, c->s, git_commit_tree_id(commit), author);
	if (rc == -2) {
		c->rep->incomplete = true; /* (no verdict: fetched again) */
		return verify_bad(c, id, "its tree or file fair-%s is missing",
				  name);
	}
	if (rc < 0)
		return verify_bad(c, id, "cannot read its tree");
	if (rc)
		return verify_bad(c, id,
				  "%s without %s's chain value (the file "
				  "fair-%s: 64 hex digits and a newline)",
				  !anchored ? "a first commit"
				  : request ? "a request"
					    : "a reveal",
				  name, name);
	if (!anchored) {
		if (publishes)
			return verify_bad(c, id,
					  "a %s before %s's chain is anchored "
					  "(a seat's first commit anchors it; "
					  "fair dice)",
					  request ? "request" : "reveal", name);
		memcpy(f->head[author], v, 32);
		f->anchored |= (uint8_t)(1u << author);
		return 0;
	}
	store_fair_hash(h, v);
	if (memcmp(h, f->head[author], 32))
		return verify_bad(c, id,
				  "the revealed value is not the next of "
				  "%s's chain (its hash is not the value %s "
				  "published last)",
				  name, name);
	memcpy(f->head[author], v, 32);
	return 0;
}

/*
 * Fair dice: the completion of a request with two or more reveals is
 * their merge: by the requester, one parent per revealing seat, each a
 * reveal on the request, in player order; its action is the request
 * with the outcome all the revealed values give.
 */
int verify_fair_merge(ctx *c, git_commit *commit, int author,
		      const char *subject, const uint8_t dice[2])
{
	const catan_game *g = &c->s->game;
	const git_oid *id = git_commit_id(commit);
	unsigned n = git_commit_parentcount(commit);
	seen *first = verify_known(c, git_commit_parent_id(commit, 0));
	if (!first || !first->discard)
		return verify_bad(c, id,
				  "merge parents must be reveals of one "
				  "request");
	seen *base = verify_known(c, &first->parent);
	if (!base)
		return verify_bad(c, id, "merge base was not checked");
	catan_state st = base->state;
	store_fair fair = base->fair;
	if (st.phase != CATAN_PHASE_REVEAL || author != st.requester)
		return verify_bad(c, id,
				  "only the player who asked for an outcome "
				  "merges its reveals");
	if ((int)n != __builtin_popcount(st.reveal_wait) || n < 2)
		return verify_bad(c, id,
				  "merge has %u parents; %d players owed "
				  "reveals",
				  n, __builtin_popcount(st.reveal_wait));
	if (verify_fan_parents(c, commit, n, base, &st, &fair))
		return 1;
	if (st.reveal_wait)
		return verify_bad(c, id, "merge leaves reveals owed");
	catan_action a;
	if (verify_subject(c, commit, subject, st.turn, &a) ||
	    verify_fair_outcome(c, id, &st, &fair, &a))
		return 1;
	catan_state next;
	int rc = catan_state_apply(&next, &g->board, &st, author, &a, NULL);
	if (rc)
		return verify_illegal(c, id, subject, author, rc);
	if (verify_check_dice(c, id, &next, &a, dice) ||
	    verify_check_tree(c, id, commit, &next, &fair) ||
	    !verify_keep(c, id, &next, &fair, author, &base->id))
		return 1;
	c->rep->merges++;
	return 0;
}
