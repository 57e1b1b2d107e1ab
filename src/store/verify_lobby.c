/*
 * verify_lobby.c - layer 5 (verify): the checks of a lobby's commits
 * (spec/replication.md, "Keys and signatures"): a claim presents a
 * joiner's key for an open seat, on the genesis, signed by that key; the
 * start, by the first seat, merges one claim per open seat and binds
 * them all. Once a start is checked the handle plays its game (every
 * later commit is checked against the keys it binds).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby.h"
#include "verify_ctx.h"

/*
 * The claim of seat p already held (checked earlier in this run, or in
 * incremental mode on p's local branch) other than id, or NULL.
 */
static seen *rival_claim(ctx *c, const git_oid *id, int p)
{
	for (size_t i = 0; i < c->t.n; i++) {
		seen *e = verify_table_at(&c->t, i);
		if (e->claim && e->author == p && !git_oid_equal(&e->id, id))
			return e;
	}
	git_oid tip;
	if (!c->incremental || store_branch_tip(&tip, c->s, p) ||
	    git_oid_equal(&tip, &c->s->genesis) || git_oid_equal(&tip, id))
		return NULL;
	seen *e = verify_known(c, &tip);
	return e && e->claim ? e : NULL;
}

/*
 * A claim held for another seat than p (checked earlier in this run, or
 * in incremental mode on that seat's local branch) presenting `key`, or
 * NULL: one key claiming two seats would give one joiner two votes, and
 * the start could never merge both.
 */
static seen *other_seat_claim(ctx *c, int p, const unsigned char *key)
{
	for (size_t i = 0; i < c->t.n; i++) {
		seen *e = verify_table_at(&c->t, i);
		if (e->claim && e->author != p &&
		    !memcmp(e->key, key, CATAN_PUBKEY_LEN))
			return e;
	}
	if (!c->incremental)
		return NULL;
	for (int q = 0; q < c->s->lobby.opt.nplayers; q++) {
		git_oid tip;
		if (q == p || !(c->s->lobby.open & (1u << q)) ||
		    store_branch_tip(&tip, c->s, q) ||
		    git_oid_equal(&tip, &c->s->genesis))
			continue;
		seen *e = verify_known(c, &tip);
		if (e && e->claim && !memcmp(e->key, key, CATAN_PUBKEY_LEN))
			return e;
	}
	return NULL;
}

int verify_check_claim(ctx *c, git_commit *commit)
{
	catan_store *s = c->s;
	const catan_game *lg = &s->lobby;
	const git_oid *id = git_commit_id(commit);
	char buf[160], fp[CATAN_FINGERPRINT_TEXT],
	    other[CATAN_FINGERPRINT_TEXT];
	const char *subject;
	int p;
	uint8_t dice[2];
	if (verify_check_message(c, commit, &p, &subject, buf, sizeof buf,
				 dice))
		return 1;
	const char *name = lg->names.name[p];
	unsigned bit = 1u << p;
	if (!(lg->open & bit))
		return verify_bad(c, id, LOBBY_WHY_BOUND_SEAT, name);
	if (git_commit_parentcount(commit) != 1 ||
	    !git_oid_equal(git_commit_parent_id(commit, 0), &s->genesis))
		return verify_bad(c, id,
				  "%s's claim must have the genesis as its "
				  "only parent",
				  name);
	seen *gen = verify_known(c, &s->genesis);
	if (!gen)
		return verify_bad(c, id, "parent was not checked");
	if (dice[0] || store_trailer_int(git_commit_message(commit), "Turn") !=
			   gen->state.turn)
		return verify_bad(c, id, "Turn trailer is not the turn (%d)",
				  gen->state.turn);
	/* The key it presents: the genesis's game/ with p bound. */
	catan_game cg, want = *lg;
	git_oid cgt, tree, gt;
	catan_err err;
	if (store_game_of_tree(&cg, &cgt, s, git_commit_tree_id(commit), &err))
		return verify_bad(c, id, "%s's claim presents no key: %s", name,
				  err.msg);
	if (cg.open & bit)
		return verify_bad(c, id, "%s's claim presents no key", name);
	const unsigned char *key = cg.keys[p];
	catan_pubkey_fingerprint(fp, key);
	for (int q = 0; q < lg->opt.nplayers; q++)
		if (!(lg->open & (1u << q)) &&
		    !memcmp(lg->keys[q], key, CATAN_PUBKEY_LEN))
			return verify_bad(c, id,
					  "%s's claim presents %s's key %s "
					  "(every seat needs its own)",
					  name, lg->names.name[q], fp);
	/* Nor a key a start bound to another seat, nor another's claim. */
	for (int q = 0; q < lg->opt.nplayers; q++)
		if (q != p && !(s->game.open & (1u << q)) &&
		    !memcmp(s->game.keys[q], key, CATAN_PUBKEY_LEN))
			return verify_bad(c, id,
					  "%s's claim presents %s's key %s "
					  "(every seat needs its own)",
					  name, lg->names.name[q], fp);
	seen *twin = other_seat_claim(c, p, key);
	if (twin)
		return verify_bad(c, id,
				  "%s's claim presents key %s, which %s's "
				  "claim holds already (every seat needs its "
				  "own)",
				  name, fp, lg->names.name[twin->author]);
	memcpy(want.keys[p], key, CATAN_PUBKEY_LEN);
	want.open &= ~bit;
	if (store_lobby_tree(&tree, &gt, s, &want, false))
		return verify_bad(c, id, "cannot encode the claim");
	if (!git_oid_equal(&tree, git_commit_tree_id(commit)))
		return verify_bad(c, id,
				  "%s's claim's tree is not the genesis's "
				  "with seat %s bound (game/signers gains its "
				  "line, game/open loses it, nothing else "
				  "changes)",
				  name, name);
	if (verify_check_objects(c, id, commit))
		return 1;
	/* Proof of possession: signed by the key it presents. */
	unsigned char signer[CATAN_PUBKEY_LEN];
	if (store_commit_signer_of(signer, s, id))
		return verify_bad(c, id, "%s's claim is not signed", name);
	if (memcmp(signer, key, CATAN_PUBKEY_LEN)) {
		catan_pubkey_fingerprint(other, signer);
		return verify_bad(c, id,
				  "%s's claim presents key %s but is signed "
				  "by %s (a claim is signed by the key it "
				  "presents)",
				  name, fp, other);
	}
	/* One key per seat: the start's, else the first claim held. */
	if (!(s->game.open & bit) &&
	    memcmp(s->game.keys[p], key, CATAN_PUBKEY_LEN)) {
		catan_pubkey_fingerprint(other, s->game.keys[p]);
		return verify_bad(c, id,
				  "seat %s is already claimed by key %s (the "
				  "start binds it); a second key %s is "
				  "refused",
				  name, other, fp);
	}
	seen *r = rival_claim(c, id, p);
	git_oid mine;
	if (r) {
		/*
		 * The same key twice (a joiner who joined again) is a second
		 * claim too, refused, but no fork: a claim is no move, and
		 * taking it for an equivocation would stop a game that has
		 * not begun.
		 */
		char why[400];
		store_lobby_rival_why(why, sizeof why, name, key, r->key,
				      catan_store_me(s) == p &&
					  !store_branch_tip(&mine, s, p) &&
					  git_oid_equal(&mine, &r->id));
		return verify_bad(c, id, "%s", why);
	}
	seen *e = verify_table_put(&c->t, id);
	if (!e)
		return verify_bad(c, id, "out of memory");
	e->state = gen->state;
	e->author = p;
	e->lobby = e->claim = true;
	memcpy(e->key, key, CATAN_PUBKEY_LEN);
	git_oid_cpy(&e->parent, &s->genesis);
	return 0;
}

/*
 * Names what a start's game/ changes that it may not (a key the genesis
 * binds), into c->rep; 1. Else the generic reason.
 */
static int bad_start_tree(ctx *c, git_commit *commit)
{
	catan_store *s = c->s;
	const catan_game *lg = &s->lobby;
	const git_oid *id = git_commit_id(commit);
	catan_game sg;
	git_oid sgt;
	catan_err err;
	if (store_game_of_tree(&sg, &sgt, s, git_commit_tree_id(commit),
			       &err) == 0)
		for (int q = 0; q < lg->opt.nplayers; q++)
			if (!(lg->open & (1u << q)) &&
			    memcmp(sg.keys[q], lg->keys[q], CATAN_PUBKEY_LEN)) {
				char a[CATAN_FINGERPRINT_TEXT],
				    b[CATAN_FINGERPRINT_TEXT];
				catan_pubkey_fingerprint(a, lg->keys[q]);
				catan_pubkey_fingerprint(b, sg.keys[q]);
				return verify_bad(
				    c, id,
				    "the start changes %s's key, which the "
				    "genesis binds (%s), to %s",
				    lg->names.name[q], a, b);
			}
	return verify_bad(c, id,
			  "the start's tree is not the genesis's game with "
			  "the merged claims' keys bound and the initial "
			  "state");
}

int verify_check_start(ctx *c, git_commit *commit)
{
	catan_store *s = c->s;
	const catan_game *lg = &s->lobby;
	const git_oid *id = git_commit_id(commit);
	char buf[160], waits[CATAN_MAX_PLAYERS * (CATAN_NAME_MAX + 2)];
	const char *subject;
	int author;
	uint8_t dice[2];
	if (verify_check_message(c, commit, &author, &subject, buf, sizeof buf,
				 dice))
		return 1;
	if (author != 0)
		return verify_bad(c, id,
				  "a start by %s: only %s, whose key signs "
				  "the genesis, starts the game",
				  lg->names.name[author], lg->names.name[0]);
	seen *gen = verify_known(c, &s->genesis);
	if (!gen)
		return verify_bad(c, id, "the genesis was not checked");
	if (dice[0] || store_trailer_int(git_commit_message(commit), "Turn") !=
			   gen->state.turn)
		return verify_bad(c, id, "Turn trailer is not the turn (%d)",
				  gen->state.turn);
	catan_game want;
	unsigned n = git_commit_parentcount(commit), bad;
	int seat[CATAN_MAX_PLAYERS], other;
	unsigned char key[CATAN_MAX_PLAYERS][CATAN_PUBKEY_LEN];
	store_lobby_waits(waits, sizeof waits, lg);
	if (n > (unsigned)lg->opt.nplayers)
		return verify_bad(c, id,
				  "the start must merge one claim for each "
				  "open seat (%s)",
				  waits);
	for (unsigned i = 0; i < n; i++) {
		seen *pe = verify_known(c, git_commit_parent_id(commit, i));
		if (!pe || !pe->claim)
			return verify_bad(
			    c, id, "start parent %u is not a claim", i + 1);
		seat[i] = pe->author;
		memcpy(key[i], pe->key, CATAN_PUBKEY_LEN);
	}
	git_oid tree, gt;
	switch (store_lobby_bind(&want, &tree, &gt, s, n, seat,
				 (const unsigned char(*)[CATAN_PUBKEY_LEN])key,
				 &bad, &other)) {
	case STORE_BIND_OK:
		break;
	case STORE_BIND_ORDER:
		return verify_bad(c, id,
				  "the start's parents must be the claims of "
				  "seats %s, in player order",
				  waits);
	case STORE_BIND_KEY_TWICE:
		return verify_bad(c, id,
				  "the start merges claims of %s and %s with "
				  "the same key",
				  lg->names.name[other],
				  lg->names.name[seat[bad]]);
	case STORE_BIND_SEATS:
		return verify_bad(c, id,
				  "the start must merge one claim for each "
				  "open seat (%s)",
				  waits);
	default:
		return verify_bad(c, id, "cannot encode the start");
	}
	if (!git_oid_equal(&tree, git_commit_tree_id(commit)))
		return bad_start_tree(c, commit);
	if (verify_check_objects(c, id, commit))
		return 1;
	/*
	 * A start other than the one this peer holds (or accepted earlier in
	 * this verification): the host signed two, a fork of the genesis and
	 * the proof against the host (adopt.c records it), whatever claims
	 * each merges.
	 */
	git_oid tip, held;
	bool holds = c->started;
	if (holds)
		held = c->start;
	else if (!s->game.open)
		holds = !store_branch_tip(&tip, s, 0) &&
			!store_lobby_start_on(s, &tip, &held);
	if (!s->game.open && !(holds && git_oid_equal(&held, id))) {
		if (holds) {
			c->rep->fork = true;
			store_oid_hex(&c->rep->fork_other, &held);
		}
		return verify_bad(c, id,
				  "a second start: %s signed another, which "
				  "this peer holds",
				  lg->names.name[0]);
	}
	if (verify_check_fork(c, id, git_commit_parent_id(commit, 0), 0))
		return 1;
	/* From here on the handle plays the started game. */
	c->started = true;
	c->start = *id;
	s->game = want;
	s->game_tree = gt;
	seen *e = verify_table_put(&c->t, id);
	if (!e)
		return verify_bad(c, id, "out of memory");
	e->state = gen->state;
	e->author = 0;
	git_oid_cpy(&e->parent, git_commit_parent_id(commit, 0));
	return 0;
}
