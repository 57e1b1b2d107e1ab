/*
 * verify.c - layer 5: where a commit is verified. The checks of one commit
 * against its parents' states (kept in a table): its form, its message,
 * its action replayed through the rules and its tree compared, a merge of
 * discards, forks; and the branches and reflogs of a full verify.
 * Read-only: tree ids are computed by hashing, never by writing.
 */
#define _POSIX_C_SOURCE 200809L

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_internal.h"
#include "lobby.h"
#include "verify_ctx.h"

/* The i-th entry put (i < t->n). Cannot fail. */
static seen *table_at(const table *t, size_t i)
{
	return &t->block[i / TABLE_BLOCK][i % TABLE_BLOCK];
}

seen *verify_table_at(const table *t, size_t i)
{
	return table_at(t, i);
}

seen *verify_table_get(const table *t, const git_oid *id)
{
	int i = store_oidmap_get(&t->idx, id);
	return i < 0 ? NULL : table_at(t, (size_t)i);
}

/* A new entry for id (zeroed but for id and used); NULL when out of memory. */
seen *verify_table_put(table *t, const git_oid *id)
{
	if (t->n == t->nblock * TABLE_BLOCK) {
		seen **block =
		    realloc(t->block, (t->nblock + 1) * sizeof *block);
		if (!block)
			return NULL;
		t->block = block;
		if (!(block[t->nblock] = malloc(TABLE_BLOCK * sizeof(seen))))
			return NULL;
		t->nblock++;
	}
	if (t->n >= INT_MAX || !store_oidmap_put(&t->idx, id, (int)t->n))
		return NULL;
	seen *e = table_at(t, t->n++);
	memset(e, 0, sizeof *e);
	e->used = true;
	git_oid_cpy(&e->id, id);
	return e;
}

void verify_table_free(table *t)
{
	for (size_t i = 0; i < t->nblock; i++)
		free(t->block[i]);
	free(t->block);
	store_oidmap_free(&t->idx);
}

/*
 * The table entry of commit id: checked earlier in this run, or (in
 * incremental mode) a trusted local commit, loaded now.
 */
seen *verify_known(ctx *c, const git_oid *id)
{
	seen *e = verify_table_get(&c->t, id);
	if (e || !c->incremental)
		return e;
	git_commit *commit = NULL;
	catan_err err;
	catan_state st;
	store_fair fair;
	if (git_commit_lookup(&commit, c->s->repo, id))
		return NULL;
	const char *sum = git_commit_summary(commit);
	int author = store_author_seat(c->s, commit);
	/* The state this handle last wrote or verified is at hand. */
	bool cached = c->s->cached && git_oid_equal(&c->s->cache_id, id);
	if (cached) {
		st = c->s->cache_state;
		fair = c->s->cache_fair;
	}
	for (int i = 0; i < STORE_STATE_MEMO && !cached; i++)
		if (git_oid_equal(&c->s->states[i].id, id)) {
			st = c->s->states[i].state;
			fair = c->s->states[i].fair;
			cached = true;
		}
	if (author < 0 ||
	    (!cached && store_read_state(&st, &fair, c->s,
					 git_commit_tree_id(commit), &err))) {
		git_commit_free(commit);
		return NULL;
	}
	e = verify_table_put(&c->t, id);
	if (e) {
		e->state = st;
		e->fair = fair;
		e->author = author;
		e->discard = sum && (!strncmp(sum, "discard ", 8) ||
				     !strcmp(sum, "reveal"));
		e->trusted = true;
		/* The lobby (verify_lobby.c): the genesis and the claims. */
		e->claim = c->s->lobby.open && sum &&
			   !strcmp(sum, STORE_CLAIM_SUBJECT);
		e->lobby = e->claim || (c->s->lobby.open &&
					git_oid_equal(id, &c->s->genesis));
		if (e->claim) {
			catan_game cg;
			git_oid cgt;
			if (store_game_of_tree(&cg, &cgt, c->s,
					       git_commit_tree_id(commit),
					       &err) == 0)
				memcpy(e->key, cg.keys[author], 32);
		}
		if (git_commit_parentcount(commit))
			git_oid_cpy(&e->parent,
				    git_commit_parent_id(commit, 0));
	}
	git_commit_free(commit);
	return e;
}

int verify_bad(ctx *c, const git_oid *id, const char *fmt, ...)
{
	va_list ap;
	c->rep->ok = false;
	if (id)
		store_oid_hex(&c->rep->bad, id);
	va_start(ap, fmt);
	vsnprintf(c->rep->why, sizeof c->rep->why, fmt, ap);
	va_end(ap);
	return 1;
}

seen *verify_keep(ctx *c, const git_oid *id, const catan_state *st,
		  const store_fair *f, int author, const git_oid *parent)
{
	seen *e = verify_table_put(&c->t, id);
	if (!e) {
		verify_bad(c, id, "out of memory");
		return NULL;
	}
	e->state = *st;
	if (f)
		e->fair = *f;
	e->author = author;
	git_oid_cpy(&e->parent, parent);
	return e;
}

int verify_illegal(ctx *c, const git_oid *id, const char *subject, int author,
		   int rc)
{
	return verify_bad(c, id, "illegal action \"%s\" by %s: %s", subject,
			  c->s->game.names.name[author], catan_error_str(rc));
}

/*
 * Message = subject, blank line, "Player: NAME", "Turn: N", then
 * "Dice: A B" or nothing; dice[] says which (0,0: no Dice trailer). Whether
 * the commit may carry dice, and which, is the caller's (the action's).
 */
int verify_check_message(ctx *c, git_commit *commit, int *author,
			 const char **subject_out, char *subject, size_t size,
			 uint8_t dice[2])
{
	const catan_game *g = &c->s->game;
	const git_oid *id = git_commit_id(commit);
	const char *msg = git_commit_message(commit);
	const git_signature *a = git_commit_author(commit);
	const git_signature *k = git_commit_committer(commit);
	char email[64], want[512];

	if (!a || !a->name || !k || !k->name)
		return verify_bad(c, id, "commit has no author");
	int p = catan_names_find(&g->names, a->name, strlen(a->name));
	if (p < 0 || strcmp(a->name, g->names.name[p]))
		return verify_bad(c, id, "author \"%.40s\" is not a player",
				  a->name);
	store_email(email, sizeof email, g->names.name[p]);
	if (!a->email || strcmp(a->email, email) || strcmp(k->name, a->name) ||
	    !k->email || strcmp(k->email, a->email))
		return verify_bad(
		    c, id, "author/committer of %s must be \"%s <%s>\" twice",
		    g->names.name[p], g->names.name[p], email);
	const char *nl = msg ? strchr(msg, '\n') : NULL;
	if (!nl || (size_t)(nl - msg) >= size)
		return verify_bad(c, id,
				  "commit message does not parse (no subject "
				  "line)");
	memcpy(subject, msg, (size_t)(nl - msg));
	subject[nl - msg] = '\0';
	int turn = store_trailer_int(msg, "Turn");
	int has_dice = store_trailer_dice(msg, dice);
	store_message(want, sizeof want, subject, g->names.name[p], turn,
		      has_dice > 0 ? dice : NULL);
	if (turn < 0 || has_dice < 0 || strcmp(msg, want))
		return verify_bad(
		    c, id,
		    "commit message does not parse: want the action, "
		    "a blank line, \"Player: %s\", \"Turn: N\" and on "
		    "a roll \"Dice: A B\"",
		    g->names.name[p]);
	*author = p;
	*subject_out = subject;
	return 0;
}

/* store_commit_form of the commit `id` as stored: 0, or 1 (c->rep says). */
int verify_check_form(ctx *c, const git_oid *id)
{
	git_odb_object *o = NULL;
	char why[300];
	if (git_odb_read(&o, c->s->odb, id)) {
		if (git_odb_exists(c->s->odb, id))
			return verify_bad(c, id, "unreadable commit");
		c->rep->incomplete = true;
		return verify_bad(c, id, "the commit is missing");
	}
	int rc =
	    git_odb_object_type(o) != GIT_OBJECT_COMMIT
		? store_form_bad(why, sizeof why, "not a commit")
		: store_commit_form_id(c->s, id, git_odb_object_data(o),
				       git_odb_object_size(o), why, sizeof why);
	git_odb_object_free(o);
	return rc ? verify_bad(c, id, "%s", why) : 0;
}

/*
 * The trees and blobs of tree t that `base` (NULL: none) does not hold at
 * the same path are in the object database: 0; or, with what is wrong in
 * why, 2 when one is missing, 1 when the tree nests too deep or a folder
 * is not a tree. Bounded by the nesting of a state tree
 * (store_state_tree).
 */
static int objects_there(catan_store *s, const git_tree *t,
			 const git_tree *base, int depth, char *why,
			 size_t whylen)
{
	size_t n = git_tree_entrycount(t);
	if (depth > 4) {
		snprintf(why, whylen, "its tree nests too deep");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		const char *name = git_tree_entry_name(e);
		const git_tree_entry *was =
		    base ? git_tree_entry_byname(base, name) : NULL;
		const git_oid *eid = git_tree_entry_id(e);
		if (was && git_oid_equal(git_tree_entry_id(was), eid))
			continue;
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof hex, eid);
		if (git_tree_entry_type(e) != GIT_OBJECT_TREE) {
			if (git_odb_exists(s->odb, eid))
				continue;
			snprintf(why, whylen,
				 "its file %.100s (%.12s) is missing", name,
				 hex);
			return 2;
		}
		git_tree *sub = NULL, *subbase = NULL;
		if (git_tree_lookup(&sub, s->repo, eid)) {
			bool there = git_odb_exists(s->odb, eid);
			snprintf(why, whylen, "its folder %.100s (%.12s) is %s",
				 name, hex, there ? "not a tree" : "missing");
			return there ? 1 : 2;
		}
		if (was && git_tree_entry_type(was) == GIT_OBJECT_TREE &&
		    git_tree_lookup(&subbase, s->repo, git_tree_entry_id(was)))
			subbase = NULL; /* (then every entry is looked for) */
		int rc = objects_there(s, sub, subbase, depth + 1, why, whylen);
		git_tree_free(sub);
		git_tree_free(subbase);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Every object of the commit's tree is in the object database: the tree,
 * and what in it differs from its first parent's tree (whose objects were
 * checked when the parent was). The tree's id is checked by hashing the
 * replayed state, which never reads the objects, so without this a
 * commit whose trees or blobs a pack left out would be adopted, or taken
 * by a host, and the repository could not check it out (git fsck:
 * missing blob). 0, or 1.
 */
int verify_check_objects(ctx *c, const git_oid *id, git_commit *commit)
{
	git_tree *t = NULL, *base = NULL;
	git_commit *parent = NULL;
	char why[200];
	if (git_tree_lookup(&t, c->s->repo, git_commit_tree_id(commit))) {
		c->rep->incomplete =
		    !git_odb_exists(c->s->odb, git_commit_tree_id(commit));
		return verify_bad(c, id, "its tree is %s",
				  c->rep->incomplete ? "missing"
						     : "not a tree");
	}
	if (git_commit_parentcount(commit) > 0 &&
	    git_commit_parent(&parent, commit, 0) == 0 &&
	    git_commit_tree(&base, parent))
		base = NULL;
	int rc = objects_there(c->s, t, base, 0, why, sizeof why);
	git_tree_free(t);
	git_tree_free(base);
	git_commit_free(parent);
	if (rc == 2)
		c->rep->incomplete = true;
	return rc ? verify_bad(c, id, "%s", why) : 0;
}

int verify_check_tree(ctx *c, const git_oid *id, git_commit *commit,
		      const catan_state *st, const store_fair *fair)
{
	git_oid want;
	if (store_state_tree(&want, c->s, st, fair, false))
		return verify_bad(c, id, "cannot encode the replayed state");
	if (!git_oid_equal(&want, git_commit_tree_id(commit))) {
		/* Name the difference when the tree decodes at all. */
		catan_state got;
		catan_err err;
		if (store_read_state(&got, NULL, c->s,
				     git_commit_tree_id(commit), &err))
			return verify_bad(c, id,
					  "tree is not the state the action "
					  "gives: %s",
					  err.msg);
		return verify_bad(c, id,
				  "tree is not the state the action gives "
				  "(its files differ from the replay)");
	}
	return verify_check_objects(c, id, commit);
}

static int check_genesis(ctx *c, git_commit *commit)
{
	const git_oid *id = git_commit_id(commit);
	catan_state st;
	int author;
	const char *subject;
	char buf[160];
	uint8_t dice[2];
	if (!git_oid_equal(id, &c->s->genesis))
		return verify_bad(c, id, "a second root commit");
	if (verify_check_message(c, commit, &author, &subject, buf, sizeof buf,
				 dice))
		return 1;
	if (strcmp(subject, "genesis") || author != 0 || dice[0])
		return verify_bad(c, id,
				  "the root commit must be \"genesis\" by %s",
				  c->s->game.names.name[0]);
	catan_state_init(&st, &c->s->game.board, &c->s->game.opt);
	if (c->s->lobby.open) {
		/* A lobby's genesis holds the lobby's game/, open seats. */
		git_oid want, gt;
		if (store_lobby_tree(&want, &gt, c->s, &c->s->lobby, false))
			return verify_bad(c, id, "cannot encode the genesis");
		if (!git_oid_equal(&want, git_commit_tree_id(commit)))
			return verify_bad(c, id,
					  "the genesis tree is not its game/ "
					  "and the initial state");
		if (verify_check_objects(c, id, commit))
			return 1;
	} else if (verify_check_tree(c, id, commit, &st, NULL))
		return 1;
	seen *e = verify_table_put(&c->t, id);
	if (!e)
		return verify_bad(c, id, "out of memory");
	e->state = st;
	e->author = author;
	e->lobby = c->s->lobby.open != 0;
	return 0;
}

/*
 * In incremental mode: the child of `parent` on the author's own local
 * branch, if that branch already holds one (a second child is a fork).
 */
typedef struct child_of {
	const git_oid *parent;
	const char *author;
	git_oid found;
} child_of;

static int is_child_of(git_commit *k, void *arg)
{
	child_of *w = arg;
	const git_signature *a = git_commit_author(k);
	if (git_oid_equal(git_commit_id(k), w->parent))
		return -2; /* its ancestors hold no child of it */
	for (unsigned i = 0; i < git_commit_parentcount(k); i++)
		if (git_oid_equal(git_commit_parent_id(k, i), w->parent) && a &&
		    a->name && !strcmp(a->name, w->author)) {
			git_oid_cpy(&w->found, git_commit_id(k));
			return 1;
		}
	return 0;
}

static bool trusted_child(ctx *c, git_oid *out, const git_oid *parent,
			  int author)
{
	git_oid head;
	child_of w = {parent, c->s->game.names.name[author], {{0}}};
	int floor = store_turn_of(c->s, parent);
	if (floor < 0 || store_branch_tip(&head, c->s, author) ||
	    store_walk_turns(c->s, &head, floor, is_child_of, &w) != 1)
		return false;
	git_oid_cpy(out, &w.found);
	return true;
}

/*
 * Whether the fork of `author` at `parent` (children `other` and `id`) is
 * settled: an expulsion with a proof against that seat there is in the
 * history being checked (the branches, and in a sync the new tips). Then
 * the fork is no failure, and the report says so (sync records the
 * proof: spec/replication.md, "Expulsion").
 */
static bool fork_settled(ctx *c, const git_oid *id, const git_oid *other,
			 const git_oid *parent, int author)
{
	git_oid from[2 * CATAN_MAX_PLAYERS];
	store_verdict v = {.seat = author, .parent = *parent};
	if (!c->s->game.signed_game)
		return false;
	int k = store_branch_tips(from, c->s, c->newtips);
	if (store_expel_find(c->s, &v, from, k, NULL) != 1)
		return false;
	c->rep->settled = true;
	store_oid_hex(&c->rep->settled_pair[0], other);
	store_oid_hex(&c->rep->settled_pair[1], id);
	return true;
}

/* Only one child of a commit per author (forks are refused). */
int verify_check_fork(ctx *c, const git_oid *id, const git_oid *parent,
		      int author)
{
	git_oid other;
	if (c->incremental && trusted_child(c, &other, parent, author) &&
	    !git_oid_equal(&other, id) &&
	    !fork_settled(c, id, &other, parent, author)) {
		char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
		git_oid_tostr(a, sizeof a, &other);
		git_oid_tostr(b, sizeof b, id);
		c->rep->fork = true;
		store_oid_hex(&c->rep->fork_other, &other);
		return verify_bad(
		    c, id,
		    "fork: %s wrote two children of one commit: %s and "
		    "%s",
		    c->s->game.names.name[author], a, b);
	}
	for (size_t i = 0; i < c->t.n; i++) {
		seen *e = table_at(&c->t, i);
		if (!e->trusted && e->author == author &&
		    git_oid_equal(&e->parent, parent) &&
		    !git_oid_equal(&e->id, id) &&
		    !fork_settled(c, id, &e->id, parent, author)) {
			char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
			git_oid_tostr(a, sizeof a, &e->id);
			git_oid_tostr(b, sizeof b, id);
			c->rep->fork = true;
			store_oid_hex(&c->rep->fork_other, &e->id);
			return verify_bad(
			    c, id,
			    "fork: %s wrote two children of one commit: "
			    "%s and %s",
			    c->s->game.names.name[author], a, b);
		}
	}
	return 0;
}

/* The Dice trailer: on a roll, exactly the dice the rules rolled. */
int verify_check_dice(ctx *c, const git_oid *id, const catan_state *next,
		      const catan_action *a, const uint8_t dice[2])
{
	/* A fair request "roll" has no dice yet. */
	bool rolled =
	    a->kind == CATAN_ACT_ROLL && next->phase != CATAN_PHASE_REVEAL;
	if (rolled && (dice[0] != next->dice[0] || dice[1] != next->dice[1]))
		return verify_bad(c, id, "Dice trailer is not the roll (%d %d)",
				  next->dice[0], next->dice[1]);
	if (!rolled && dice[0])
		return verify_bad(c, id,
				  "a Dice trailer on a commit that does not "
				  "roll");
	return 0;
}

int verify_subject(ctx *c, git_commit *commit, const char *subject, int turn,
		   catan_action *a)
{
	const catan_game *g = &c->s->game;
	const git_oid *id = git_commit_id(commit);
	catan_parse_error pe;
	char canon[160];
	if (catan_action_parse(a, &g->board, &g->names, subject, &pe))
		return verify_bad(
		    c, id, "commit message does not parse: \"%.60s\": %s",
		    subject, pe.msg);
	catan_action_format(canon, sizeof canon, &g->board, &g->names, a);
	if (strcmp(canon, subject))
		return verify_bad(c, id,
				  "subject \"%.60s\" is not canonical (\"%s\")",
				  subject, canon);
	if (store_trailer_int(git_commit_message(commit), "Turn") != turn)
		return verify_bad(c, id, "Turn trailer is not the turn (%d)",
				  turn);
	return 0;
}

int verify_fan_parents(ctx *c, git_commit *commit, unsigned n, const seen *base,
		       catan_state *st, store_fair *f)
{
	const catan_game *g = &c->s->game;
	const git_oid *id = git_commit_id(commit);
	const char *what =
	    f ? "reveal on the request" : "discard on the 7-roll commit";
	int last = -1;
	for (unsigned i = 0; i < n; i++) {
		seen *pe = verify_known(c, git_commit_parent_id(commit, i));
		if (!pe || !pe->discard ||
		    !git_oid_equal(&pe->parent, &base->id) ||
		    (f && pe->state.phase != CATAN_PHASE_REVEAL))
			return verify_bad(c, id, "merge parent %u is not a %s",
					  i + 1, what);
		if (pe->author <= last)
			return verify_bad(c, id,
					  "merge parents must be in player "
					  "order, one per player");
		last = pe->author;
		/* Each parent's tree is base + its child; apply that. */
		git_commit *pc = NULL;
		catan_action a;
		if (git_commit_parent(&pc, commit, i))
			return verify_bad(c, id, "cannot read merge parent");
		int rc = catan_action_parse(&a, &g->board, &g->names,
					    git_commit_summary(pc), NULL);
		git_commit_free(pc);
		if (rc ||
		    a.kind != (f ? CATAN_ACT_REVEAL : CATAN_ACT_DISCARD) ||
		    catan_state_apply(st, &g->board, st, pe->author, &a, NULL))
			return verify_bad(c, id, "merged %s do not apply",
					  f ? "reveals" : "discards");
		if (f)
			memcpy(f->head[pe->author], pe->fair.head[pe->author],
			       32);
	}
	return 0;
}

int verify_check_action(ctx *c, git_commit *commit)
{
	const catan_game *g = &c->s->game;
	const git_oid *id = git_commit_id(commit);
	const git_oid *pid = git_commit_parent_id(commit, 0);
	char buf[160];
	const char *subject;
	int author;
	uint8_t dice[2];
	if (verify_check_message(c, commit, &author, &subject, buf, sizeof buf,
				 dice))
		return 1;
	seen *parent = verify_known(c, pid);
	if (!parent)
		return verify_bad(c, id, "parent was not checked");
	const catan_state *ps = &parent->state;
	catan_action a;
	if (parent->lobby) {
		char waits[CATAN_MAX_PLAYERS * (CATAN_NAME_MAX + 2)];
		store_lobby_waits(waits, sizeof waits, &c->s->lobby);
		return verify_bad(c, id,
				  "%s acts before the start: the game waits "
				  "for seats %s to be claimed and for %s to "
				  "start it",
				  g->names.name[author], waits,
				  g->names.name[0]);
	}
	if (verify_subject(c, commit, subject, ps->turn, &a))
		return 1;
	if (a.kind == CATAN_ACT_EXPEL)
		return verify_bad(c, id,
				  "an expulsion carries its proof: its last "
				  "two parents are two children of one commit "
				  "signed by the seat it expels");
	if (!catan_state_may_act(ps, author))
		return verify_bad(
		    c, id, "%s may not act now (%s waits for %s)",
		    g->names.name[author], catan_phase_name(ps->phase),
		    g->names.name[catan_state_next_actor(ps) == CATAN_NONE
				      ? 0
				      : catan_state_next_actor(ps)]);
	/* A discard rests on the 7-roll commit, never on another discard. */
	if (a.kind == CATAN_ACT_DISCARD && parent->discard)
		return verify_bad(c, id,
				  "a discard must have the 7-roll commit as "
				  "parent, not another discard");
	if (a.kind == CATAN_ACT_REVEAL && parent->discard)
		return verify_bad(c, id,
				  "a reveal must have the request as parent, "
				  "not another reveal");
	store_fair fair = parent->fair;
	if (verify_fair_outcome(c, id, ps, &parent->fair, &a))
		return 1;
	catan_state next;
	int rc = catan_state_apply(&next, &g->board, ps, author, &a, NULL);
	if (rc)
		return verify_illegal(c, id, subject, author, rc);
	if (verify_fair_values(c, commit, &fair, author, ps, &next, &a) ||
	    verify_check_dice(c, id, &next, &a, dice))
		return 1;
	/* A discard that leaves others owing must be merged, not extended. */
	if (parent->discard && ps->phase == CATAN_PHASE_DISCARD)
		return verify_bad(c, id,
				  "builds on a discard while discards are "
				  "pending");
	if (parent->discard && ps->phase == CATAN_PHASE_REVEAL &&
	    ps->reveal_wait)
		return verify_bad(c, id,
				  "builds on a reveal while reveals are "
				  "pending");
	/*
	 * The fork last: a second child is a proof against its author only
	 * when it is valid in every other way, which every peer judges
	 * alike (adopt.c), whichever child it met first.
	 */
	if (verify_check_tree(c, id, commit, &next, &fair) ||
	    verify_check_fork(c, id, pid, author))
		return 1;
	seen *e = verify_keep(c, id, &next, &fair, author, pid);
	if (!e)
		return 1;
	e->discard = a.kind == CATAN_ACT_DISCARD || a.kind == CATAN_ACT_REVEAL;
	return 0;
}

int verify_check_merge(ctx *c, git_commit *commit)
{
	const catan_game *g = &c->s->game;
	const git_oid *id = git_commit_id(commit);
	unsigned n = git_commit_parentcount(commit);
	char buf[160];
	const char *subject;
	int author;
	uint8_t dice[2];
	if (verify_check_message(c, commit, &author, &subject, buf, sizeof buf,
				 dice))
		return 1;
	if (g->opt.dice == CATAN_DICE_FAIR &&
	    strcmp(subject, STORE_MERGE_SUBJECT))
		return verify_fair_merge(c, commit, author, subject, dice);
	if (strcmp(subject, STORE_MERGE_SUBJECT) || dice[0])
		return verify_bad(c, id, "a merge must be \"%s\"",
				  STORE_MERGE_SUBJECT);
	seen *first = verify_known(c, git_commit_parent_id(commit, 0));
	if (!first || !first->discard)
		return verify_bad(c, id,
				  "merge parents must be discard commits");
	seen *base = verify_known(c, &first->parent);
	if (!base)
		return verify_bad(c, id, "merge base was not checked");
	catan_state st = base->state;
	if (st.phase != CATAN_PHASE_DISCARD || author != st.active)
		return verify_bad(
		    c, id, "only %s, who rolled the 7, merges its discards",
		    g->names.name[st.active]);
	int owing = 0;
	for (int p = 0; p < g->opt.nplayers; p++)
		owing += st.discard[p] > 0;
	if ((int)n != owing || n < 2)
		return verify_bad(c, id,
				  "merge has %u parents; %d players owed "
				  "discards",
				  n, owing);
	if (verify_fan_parents(c, commit, n, base, &st, NULL))
		return 1;
	if (st.phase == CATAN_PHASE_DISCARD)
		return verify_bad(c, id, "merge leaves discards owed");
	if (verify_check_tree(c, id, commit, &st, &base->fair))
		return 1;
	if (!verify_keep(c, id, &st, &base->fair, author, &base->id))
		return 1;
	c->rep->merges++;
	return 0;
}

/* Whether id is a child in the proof of an expulsion checked here. */
static bool expelled_child(const ctx *c, const git_oid *id)
{
	for (int i = 0; i < c->nexpelled; i++)
		if (git_oid_equal(id, &c->expelled[i].child[0]) ||
		    git_oid_equal(id, &c->expelled[i].child[1]))
			return true;
	return false;
}

/*
 * Whether a branch's move back from o to nw is an expelled seat's branch
 * going back to its last move before the fork it was expelled for.
 */
static bool expelled_move(ctx *c, const git_oid *o, const git_oid *nw)
{
	for (int i = 0; i < c->nexpelled; i++)
		if (store_verdict_voids(c->s, &c->expelled[i], o) &&
		    !store_verdict_voids(c->s, &c->expelled[i], nw))
			return true;
	return false;
}

/* Branch names, tips and reflogs. */
int verify_check_branches(ctx *c)
{
	catan_store *s = c->s;
	const catan_game *g = &s->game;
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	int rc = 0;
	store_verdict verdict;
	bool has_verdict =
	    g->signed_game && store_verdict_read(s, &verdict) == 1;
	if (git_reference_iterator_glob_new(&it, s->repo, "refs/heads/*"))
		return verify_bad(c, NULL, "cannot list branches");
	while (rc == 0 && git_reference_next(&ref, it) == 0) {
		const char *name = git_reference_name(ref) + 11;
		int p = catan_names_find(&g->names, name, strlen(name));
		const git_oid *tip = git_reference_target(ref);
		if (p < 0 || strcmp(name, g->names.name[p]))
			rc = verify_bad(c, tip,
					"branch refs/heads/%.40s belongs to no "
					"player",
					name);
		else if (!tip || !verify_table_get(&c->t, tip))
			rc = verify_bad(c, tip, "tip of %s was not verified",
					name);
		else if (!git_oid_equal(tip, &s->genesis) &&
			 verify_table_get(&c->t, tip)->author != p)
			rc = verify_bad(
			    c, tip,
			    "the tip of %s's branch is %s's commit (a "
			    "branch ends at its owner's own commit)",
			    name,
			    g->names
				.name[verify_table_get(&c->t, tip)->author]);
		git_reflog *log = NULL;
		/* (git_reflog_read would create a missing log: ask first.) */
		if (rc == 0 &&
		    git_reference_has_log(s->repo, git_reference_name(ref)) ==
			1 &&
		    git_reflog_read(&log, s->repo, git_reference_name(ref)) ==
			0) {
			size_t n = git_reflog_entrycount(log);
			for (size_t i = 0; i < n && rc == 0; i++) {
				const git_reflog_entry *e =
				    git_reflog_entry_byindex(log, i);
				const git_oid *o = git_reflog_entry_id_old(e);
				const git_oid *nw = git_reflog_entry_id_new(e);
				if (git_oid_is_zero(o) || git_oid_equal(o, nw))
					continue;
				/* moved back by an equivocation's verdict */
				if (((has_verdict &&
				      store_verdict_voids(s, &verdict, o) &&
				      !store_verdict_voids(s, &verdict, nw)) ||
				     expelled_move(c, o, nw)) &&
				    store_is_ancestor(s, nw, o) == 1)
					continue;
				if (store_is_ancestor(s, o, nw) != 1)
					rc = verify_bad(
					    c, nw,
					    "branch %s was rewritten (moved "
					    "from a commit to one that does "
					    "not contain it)",
					    name);
			}
			/*
			 * The newest entry must be where the branch is, or a
			 * forward move from there that never landed (or a
			 * move back an equivocation allows): libgit2
			 * appends to the log before it renames the ref into
			 * place, and a peer killed in between leaves exactly
			 * that (the commit exists, the branch did not move,
			 * the action was not reported as done).
			 */
			const git_reflog_entry *last =
			    n > 0 ? git_reflog_entry_byindex(log, 0) : NULL;
			const git_oid *to =
			    last ? git_reflog_entry_id_new(last) : NULL;
			/* (a move back a verdict or an expulsion makes, too) */
			bool back = last && tip &&
				    store_is_ancestor(s, to, tip) == 1 &&
				    ((has_verdict &&
				      store_verdict_voids(s, &verdict, tip) &&
				      !store_verdict_voids(s, &verdict, to)) ||
				     expelled_move(c, tip, to));
			if (rc == 0 && last && tip && !git_oid_equal(to, tip) &&
			    !(git_oid_equal(git_reflog_entry_id_old(last),
					    tip) &&
			      (store_is_ancestor(s, tip, to) == 1 || back)))
				rc = verify_bad(c, tip,
						"branch %s moved outside its "
						"log",
						name);
			git_reflog_free(log);
		}
		git_reference_free(ref);
		ref = NULL;
	}
	git_reference_iterator_free(it);
	if (rc)
		return rc;
	/*
	 * Every commit is on its author's own branch: one walk per branch
	 * collects what it holds.
	 */
	oid_map on[CATAN_MAX_PLAYERS];
	memset(on, 0, sizeof on);
	for (int p = 0; p < g->opt.nplayers && rc == 0; p++) {
		git_oid tip;
		if (store_branch_tip(&tip, s, p) ||
		    store_walk_turns(s, &tip, 0, store_walk_collect, &on[p]) <
			0)
			rc = verify_bad(c, NULL, "branch of %s cannot be read",
					g->names.name[p]);
	}
	for (size_t i = 0; i < c->t.n && rc == 0; i++) {
		seen *e = table_at(&c->t, i);
		/*
		 * (Not a commit the verdict voids: its author's branch moved
		 * back before it, while the equivocator's branch, kept where
		 * this peer saw it, may still hold it.)
		 */
		if (store_oidmap_add(&on[e->author], &e->id) != 0 &&
		    !(has_verdict &&
		      store_verdict_voids(s, &verdict, &e->id)) &&
		    !expelled_child(c, &e->id))
			rc = verify_bad(c, &e->id,
					"commit by %s is not on its own branch "
					"refs/heads/%s",
					g->names.name[e->author],
					g->names.name[e->author]);
	}
	for (int p = 0; p < CATAN_MAX_PLAYERS; p++)
		store_oidmap_free(&on[p]);
	return rc;
}

/* Incremental mode: each new commit is on its author's new branch tip. */
int verify_check_new_on_own_branch(ctx *c)
{
	/* A branch ends at its owner's own commit, or the genesis. */
	for (int p = 0; p < c->s->game.opt.nplayers; p++) {
		const git_oid *tip = &c->newtips[p];
		seen *e = git_oid_equal(tip, &c->s->genesis)
			      ? NULL
			      : verify_table_get(&c->t, tip);
		if (e && !e->trusted && e->author != p)
			return verify_bad(
			    c, tip,
			    "the tip of %s's branch is %s's commit (a "
			    "branch ends at its owner's own commit)",
			    c->s->game.names.name[p],
			    c->s->game.names.name[e->author]);
	}
	for (size_t i = 0; i < c->t.n; i++) {
		seen *e = table_at(&c->t, i);
		if (e->trusted)
			continue;
		const git_oid *tip = &c->newtips[e->author];
		/* (An expulsion's proof is off its author's branch for good.)
		 */
		if (store_is_ancestor(c->s, &e->id, tip) != 1 &&
		    !expelled_child(c, &e->id)) {
			c->rep->off_branch = true;
			c->rep->off_author = e->author;
			return verify_bad(
			    c, &e->id,
			    "commit by %s is not on its own branch "
			    "refs/heads/%s",
			    c->s->game.names.name[e->author],
			    c->s->game.names.name[e->author]);
		}
	}
	return 0;
}

int verify_check_expel(ctx *c, git_commit *commit)
{
	const catan_game *g = &c->s->game;
	const git_oid *id = git_commit_id(commit);
	unsigned n = git_commit_parentcount(commit);
	char buf[160];
	const char *subject;
	int author;
	uint8_t dice[2];
	store_verdict v;
	if (verify_check_message(c, commit, &author, &subject, buf, sizeof buf,
				 dice))
		return 1;
	if (!g->signed_game)
		return verify_bad(c, id,
				  "an expulsion needs a signed game (without "
				  "signatures nothing proves who wrote a "
				  "fork)");
	if (!store_expel_proof(c->s, commit, &v))
		return verify_bad(c, id,
				  "an expulsion's last two parents must be two "
				  "different children of one commit by the "
				  "seat it expels (its proof)");
	if (!verify_known(c, &v.child[0]) || !verify_known(c, &v.child[1]))
		return verify_bad(c, id,
				  "the proof's children were not "
				  "checked");
	/*
	 * What it rests on: the fork's parent, or the other seats' discards
	 * or reveals on it (all that were owed but the expelled seat's).
	 */
	seen *base = verify_known(c, &v.parent);
	if (!base)
		return verify_bad(c, id, "the fork's parent was not checked");
	catan_state st = base->state;
	store_fair fair = base->fair;
	if (!git_oid_equal(git_commit_parent_id(commit, 0), &v.parent) ||
	    n != 3) {
		bool reveals = st.phase == CATAN_PHASE_REVEAL;
		if (!reveals && st.phase != CATAN_PHASE_DISCARD)
			return verify_bad(
			    c, id,
			    "an expulsion's first parent is the fork's "
			    "parent, or the discards or reveals on it");
		if (verify_fan_parents(c, commit, n - 2, base, &st,
				       reveals ? &fair : NULL))
			return 1;
	}
	catan_action a;
	if (verify_subject(c, commit, subject, st.turn, &a))
		return 1;
	if (a.kind != CATAN_ACT_EXPEL || (int)a.player != v.seat)
		return verify_bad(c, id,
				  "an expulsion must expel %s, whose two "
				  "children are its proof",
				  g->names.name[v.seat]);
	catan_state next;
	int rc = catan_state_apply(&next, &g->board, &st, author, &a, NULL);
	if (rc)
		return verify_illegal(c, id, subject, author, rc);
	if (verify_fair_values(c, commit, &fair, author, &st, &next, &a) ||
	    verify_check_dice(c, id, &next, &a, dice) ||
	    verify_check_tree(c, id, commit, &next, &fair) ||
	    verify_check_fork(c, id, git_commit_parent_id(commit, 0), author) ||
	    !verify_keep(c, id, &next, &fair, author,
			 git_commit_parent_id(commit, 0)))
		return 1;
	if (c->nexpelled < CATAN_MAX_PLAYERS)
		c->expelled[c->nexpelled++] = v;
	return 0;
}

int verify_check_commit(ctx *c, git_commit *commit)
{
	const char *sum = git_commit_summary(commit);
	if (sum && !strncmp(sum, "expel ", 6) &&
	    git_commit_parentcount(commit) > 1)
		return verify_check_expel(c, commit);
	if (c->s->lobby.open && sum && !strcmp(sum, STORE_CLAIM_SUBJECT))
		return verify_check_claim(c, commit);
	if (c->s->lobby.open && sum && !strcmp(sum, STORE_START_SUBJECT))
		return verify_check_start(c, commit);
	return git_commit_parentcount(commit) == 1
		   ? verify_check_action(c, commit)
		   : verify_check_merge(c, commit);
}

/*
 * Checks every commit `walk` yields (parents first): the genesis, an
 * action or a discard merge. A root is only acceptable in a full check;
 * an incremental one never reaches the (trusted) genesis. Returns 0, or
 * non-zero at the first bad commit (c->rep says which and why).
 */
int verify_check_walk(ctx *c, git_revwalk *walk)
{
	git_oid id;
	int rc = 0;
	while (rc == 0 && git_revwalk_next(&id, walk) == 0) {
		git_commit *commit = NULL;
		if (verify_check_form(c, &id))
			return 1;
		if (git_commit_lookup(&commit, c->s->repo, &id))
			return verify_bad(c, &id, "unreadable commit");
		unsigned n = git_commit_parentcount(commit);
		rc = n > 0 ? verify_check_commit(c, commit)
		     : c->incremental
			 ? verify_bad(c, &id, "a second root commit")
			 : check_genesis(c, commit);
		git_commit_free(commit);
		c->rep->commits++;
	}
	return rc;
}

int store_fuzz_check_message(const catan_game *g, git_commit *commit,
			     int *author, char *subject, size_t size, char *why,
			     size_t whylen)
{
	catan_verify_report rep;
	const char *sub = NULL;
	int rc = 1;
	catan_store *s = calloc(1, sizeof *s);
	memset(&rep, 0, sizeof rep);
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return 1;
	}
	s->game = *g;
	ctx c = {.s = s, .rep = &rep};
	uint8_t dice[2];
	rc =
	    verify_check_message(&c, commit, author, &sub, subject, size, dice);
	snprintf(why, whylen, "%s", rc ? rep.why : "");
	free(s);
	return rc;
}
