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
 * Fair dice: an author's first commit carries its chain's anchor and no
 * other does; a request and a reveal carry the author's next value, which
 * hashes to the last one it published (f: updated).
 */
int verify_fair_trailers(ctx *c, const git_oid *id, store_fair *f, int author,
			 const catan_state *ps, const catan_action *a,
			 const char *anchor, const char *reveal)
{
	const char *name = c->s->game.names.name[author];
	uint8_t x[32], h[32];
	if (c->s->game.opt.dice != CATAN_DICE_FAIR)
		return 0;
	bool anchored = (f->anchored >> author) & 1;
	if (anchored && anchor[0])
		return verify_bad(c, id,
				  "an Anchor trailer, but %s's chain is "
				  "anchored already",
				  name);
	if (!anchored && !anchor[0])
		return verify_bad(c, id,
				  "%s's first commit has no Anchor trailer "
				  "(fair dice)",
				  name);
	if (!anchored) {
		store_fair_unhex(f->head[author], anchor, 64);
		f->anchored |= (uint8_t)(1u << author);
	}
	(void)ps;
	(void)a;
	if (!reveal[0])
		return 0;
	store_fair_unhex(x, reveal, 64);
	store_fair_hash(h, x);
	if (memcmp(h, f->head[author], 32))
		return verify_bad(c, id,
				  "the revealed value is not the next of "
				  "%s's chain (its hash is not the value %s "
				  "published last)",
				  name, name);
	memcpy(f->head[author], x, 32);
	return 0;
}

/* Fair dice: a Reveal trailer exactly on a request and on a reveal. */
int verify_fair_reveal_kind(ctx *c, const git_oid *id, const catan_state *ps,
			    const catan_state *next, const catan_action *a,
			    const char *reveal)
{
	if (c->s->game.opt.dice != CATAN_DICE_FAIR)
		return 0;
	bool request = next->phase == CATAN_PHASE_REVEAL &&
		       ps->phase != CATAN_PHASE_REVEAL;
	bool want = request || a->kind == CATAN_ACT_REVEAL;
	if (want && !reveal[0])
		return verify_bad(c, id,
				  "a %s without its Reveal trailer (fair "
				  "dice)",
				  request ? "request" : "reveal");
	if (!want && reveal[0])
		return verify_bad(c, id,
				  "a Reveal trailer on a commit that neither "
				  "asks for an outcome nor reveals");
	return 0;
}

/*
 * Fair dice: the completion of a request with two or more reveals is
 * their merge: by the requester, one parent per revealing seat, each a
 * reveal on the request, in player order; its action is the request
 * with the outcome all the revealed values give.
 */
int verify_fair_merge(ctx *c, git_commit *commit, int author,
		      const char *subject, const uint8_t dice[2],
		      const char *anchor, const char *reveal)
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
	int last = -1;
	catan_action rv;
	catan_action_init(&rv, CATAN_ACT_REVEAL);
	for (unsigned i = 0; i < n; i++) {
		seen *pe = verify_known(c, git_commit_parent_id(commit, i));
		if (!pe || !pe->discard ||
		    pe->state.phase != CATAN_PHASE_REVEAL ||
		    !git_oid_equal(&pe->parent, &base->id))
			return verify_bad(c, id,
					  "merge parent %u is not a reveal on "
					  "the request",
					  i + 1);
		if (pe->author <= last)
			return verify_bad(c, id,
					  "merge parents must be in player "
					  "order, one per player");
		last = pe->author;
		/* Each parent is the request + its reveal: apply it. */
		if (catan_state_apply(&st, &g->board, &st, pe->author, &rv,
				      NULL))
			return verify_bad(c, id, "merged reveals do not apply");
		memcpy(fair.head[pe->author], pe->fair.head[pe->author], 32);
	}
	if (st.reveal_wait)
		return verify_bad(c, id, "merge leaves reveals owed");
	if (anchor[0] || reveal[0])
		return verify_bad(c, id,
				  "a completion carries no Anchor or Reveal "
				  "trailer");
	catan_action a;
	catan_parse_error pe;
	char canon[160];
	if (catan_action_parse(&a, &g->board, &g->names, subject, &pe))
		return verify_bad(
		    c, id, "commit message does not parse: \"%.60s\": %s",
		    subject, pe.msg);
	catan_action_format(canon, sizeof canon, &g->board, &g->names, &a);
	if (strcmp(canon, subject))
		return verify_bad(c, id,
				  "subject \"%.60s\" is not canonical (\"%s\")",
				  subject, canon);
	if (store_trailer_int(git_commit_message(commit), "Turn") != st.turn)
		return verify_bad(c, id, "Turn trailer is not the turn (%d)",
				  st.turn);
	if (verify_fair_outcome(c, id, &st, &fair, &a))
		return 1;
	catan_state next;
	int rc = catan_state_apply(&next, &g->board, &st, author, &a, NULL);
	if (rc)
		return verify_bad(c, id, "illegal action \"%s\" by %s: %s",
				  subject, g->names.name[author],
				  catan_error_str(rc));
	if (verify_check_dice(c, id, &next, &a, dice) ||
	    verify_check_tree(c, id, commit, &next, &fair))
		return 1;
	seen *e = verify_table_put(&c->t, id);
	if (!e)
		return verify_bad(c, id, "out of memory");
	e->state = next;
	e->fair = fair;
	e->author = author;
	git_oid_cpy(&e->parent, &base->id);
	c->rep->merges++;
	return 0;
}
