/*
 * lobby.c - layer 4 (log): the lobby of a signed game (lobby.h;
 * spec/replication.md, "Keys and signatures"). Writes a joiner's claim
 * and the host's start, and says which game/ a handle plays: the
 * genesis's until the start, the start's after.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>

#include "lobby.h"

int store_game_of_tree(catan_game *out, git_oid *game_tree, catan_store *s,
		       const git_oid *tree, catan_err *err)
{
	git_tree *t = NULL;
	catan_files files;
	catan_codec_error ce;
	int rc = -1;
	catan_files_init(&files);
	if (git_tree_lookup(&t, s->repo, tree)) {
		store_git_fail(err, "reading a tree");
		goto done;
	}
	const git_tree_entry *game = git_tree_entry_byname(t, "game");
	if (!game || git_tree_entry_filemode(game) != GIT_FILEMODE_TREE) {
		store_fail_code(err, CATAN_STORE_E_CORRUPT,
				"the tree has no game/ directory");
		goto done;
	}
	if (store_read_tree_into(&files, s->repo, s->odb,
				 git_tree_entry_id(game), "game/", 1, NULL,
				 err))
		goto done;
	if (catan_codec_decode_game(out, &files, &ce)) {
		char text[sizeof ce.path + sizeof ce.msg + 16];
		catan_codec_error_text(text, sizeof text, &ce);
		store_fail_code(err, CATAN_STORE_E_CORRUPT, "%s", text);
		goto done;
	}
	git_oid_cpy(game_tree, git_tree_entry_id(game));
	rc = 0;
done:
	git_tree_free(t);
	catan_files_free(&files);
	return rc;
}

int store_lobby_tree(git_oid *out, git_oid *game_tree, catan_store *s,
		     const catan_game *g, bool write)
{
	catan_files files;
	catan_state st;
	catan_files_init(&files);
	int rc = catan_state_init(&st, &g->board, &g->opt) ||
			 catan_codec_encode_game(&files, g) ||
			 store_game_tree_id(game_tree, s, &files, write)
		     ? -1
		     : 0;
	catan_files_free(&files);
	if (rc)
		return -1;
	/* The state files beside this game/ (store_tree_of adds s's). */
	git_oid keep = s->game_tree;
	catan_game kept = s->game;
	s->game_tree = *game_tree;
	s->game = *g;
	rc = store_state_tree(out, s, &st, NULL, write);
	s->game_tree = keep;
	s->game = kept;
	return rc;
}

store_bind store_lobby_bind(catan_game *want, git_oid *tree, git_oid *game_tree,
			    catan_store *s, unsigned n, const int *seat,
			    const unsigned char (*key)[CATAN_PUBKEY_LEN],
			    unsigned *bad, int *other)
{
	const catan_game *lg = &s->lobby;
	unsigned bound = 0;
	int last = -1;
	*want = *lg;
	*bad = 0;
	*other = -1;
	for (unsigned i = 0; i < n; i++) {
		int p = seat[i];
		*bad = i;
		if (p <= last || p >= lg->opt.nplayers)
			return STORE_BIND_ORDER;
		if (!(lg->open & (1u << p)))
			return STORE_BIND_SEATS;
		for (int q = 0; q < lg->opt.nplayers; q++)
			if (((bound & (1u << q)) || !(lg->open & (1u << q))) &&
			    !memcmp(want->keys[q], key[i], CATAN_PUBKEY_LEN)) {
				*other = q;
				return STORE_BIND_KEY_TWICE;
			}
		memcpy(want->keys[p], key[i], CATAN_PUBKEY_LEN);
		bound |= 1u << p;
		last = p;
	}
	if (bound != lg->open)
		return STORE_BIND_SEATS;
	want->open = 0;
	return store_lobby_tree(tree, game_tree, s, want, false)
		   ? STORE_BIND_ENCODE
		   : STORE_BIND_OK;
}

void store_lobby_load(catan_store *s)
{
	git_oid tip, gt;
	git_commit *c = NULL;
	catan_game g;
	catan_err err;
	if (!s->lobby.open)
		return;
	s->game = s->lobby;
	s->game_tree = s->lobby_tree;
	if (store_branch_tip(&tip, s, 0) || git_oid_equal(&tip, &s->genesis) ||
	    git_commit_lookup(&c, s->repo, &tip))
		return;
	/* The first seat's branch leaves the genesis only for the start. */
	if (store_game_of_tree(&g, &gt, s, git_commit_tree_id(c), &err) == 0 &&
	    !g.open && !memcmp(&g.board, &s->lobby.board, sizeof g.board) &&
	    !memcmp(&g.opt, &s->lobby.opt, sizeof g.opt)) {
		s->game = g;
		s->game_tree = gt;
	}
	git_commit_free(c);
}

void store_lobby_waits(char *out, size_t n, const catan_game *g)
{
	size_t o = 0;
	out[0] = '\0';
	for (int p = 0; p < g->opt.nplayers && o < n; p++)
		if (g->open & (1u << p)) {
			int w = snprintf(out + o, n - o, "%s%s", o ? ", " : "",
					 g->names.name[p]);
			if (w < 0)
				return;
			o += (size_t)w;
		}
}

int store_lobby_claim(git_oid *out, catan_store *s, int p, const catan_key *k,
		      catan_err *err)
{
	catan_game g = s->lobby;
	git_oid tree, gt, tip;
	catan_state st;
	if (p < 0 || !(s->game.open & (1u << p)))
		return store_fail_code(
		    err, CATAN_STORE_E_DENIED,
		    "seat %s is not open: its key is bound (game/signers)",
		    p < 0 ? "?" : s->game.names.name[p]);
	for (int q = 0; q < g.opt.nplayers; q++)
		if (!(g.open & (1u << q)) &&
		    !memcmp(g.keys[q], k->pk, CATAN_PUBKEY_LEN))
			return store_fail_code(err, CATAN_STORE_E_DENIED,
					       "the key is %s's: every seat "
					       "needs its own",
					       g.names.name[q]);
	if (store_branch_tip(&tip, s, p))
		return store_fail(err, "branch %s is missing", g.names.name[p]);
	if (!git_oid_equal(&tip, &s->genesis))
		return store_fail_code(err, CATAN_STORE_E_DENIED,
				       "%s's branch already left the genesis "
				       "(a seat is claimed once)",
				       g.names.name[p]);
	memcpy(g.keys[p], k->pk, CATAN_PUBKEY_LEN);
	g.open &= ~(1u << p);
	if (catan_state_init(&st, &g.board, &g.opt) ||
	    store_lobby_tree(&tree, &gt, s, &g, true))
		return store_git_fail(err, "writing the claim's tree");
	catan_key *had = s->keys[p], mine = *k;
	s->keys[p] = &mine;
	int rc = store_commit(out, s, p, STORE_CLAIM_SUBJECT, st.turn, NULL,
			      &tree, &s->genesis, 1, err);
	s->keys[p] = had;
	if (rc)
		return -1;
	return store_move_branch(s, p, &s->genesis, out, "claim", err);
}

int store_lobby_start(catan_store *s, bool *wrote, catan_err *err)
{
	catan_game g = s->lobby;
	git_oid claims[CATAN_MAX_PLAYERS], tree, gt, tip0;
	int n = 0;
	catan_state st;
	store_verdict v;
	*wrote = false;
	if (!s->lobby.open || !s->game.open)
		return 0;
	/* A game an equivocation stopped is started by nobody. */
	if (store_verdict_read(s, &v) != 0)
		return 0;
	for (int p = 0; p < g.opt.nplayers; p++) {
		if (!(g.open & (1u << p)))
			continue;
		git_commit *c = NULL;
		catan_game cg;
		git_oid cgt;
		if (store_branch_tip(&claims[n], s, p))
			return store_fail(err, "branch %s is missing",
					  g.names.name[p]);
		if (git_oid_equal(&claims[n], &s->genesis))
			return 0; /* not claimed yet */
		if (git_commit_lookup(&c, s->repo, &claims[n]))
			return store_git_fail(err, "reading a claim");
		int rc = strcmp(git_commit_summary(c), STORE_CLAIM_SUBJECT) ||
				 store_game_of_tree(&cg, &cgt, s,
						    git_commit_tree_id(c), err)
			     ? -1
			     : 0;
		git_commit_free(c);
		if (rc)
			return store_fail(err,
					  "%s's branch holds no claim where "
					  "the start needs one",
					  g.names.name[p]);
		for (int q = 0; q < p; q++)
			if ((g.open & (1u << q)) &&
			    !memcmp(g.keys[q], cg.keys[p], CATAN_PUBKEY_LEN))
				return store_fail(err,
						  "the claims of %s and %s "
						  "present one key: no start",
						  g.names.name[q],
						  g.names.name[p]);
		memcpy(g.keys[p], cg.keys[p], CATAN_PUBKEY_LEN);
		n++;
	}
	g.open = 0;
	if (store_branch_tip(&tip0, s, 0) || !git_oid_equal(&tip0, &s->genesis))
		return store_fail(err, "%s's branch is not at the genesis",
				  g.names.name[0]);
	if (catan_state_init(&st, &g.board, &g.opt) ||
	    store_lobby_tree(&tree, &gt, s, &g, true))
		return store_git_fail(err, "writing the start's tree");
	git_oid id;
	if (store_commit(&id, s, 0, STORE_START_SUBJECT, st.turn, NULL, &tree,
			 claims, n, err) ||
	    store_move_branch(s, 0, &s->genesis, &id, "start", err))
		return -1;
	s->game = g;
	s->game_tree = gt;
	*wrote = true;
	return 0;
}

int store_lobby_start_on(catan_store *s, const git_oid *tip, git_oid *out)
{
	git_oid at = *tip;
	/* (A game is some thousand commits: the bound only stops a loop.) */
	for (long i = 0; i < 1000000 && !git_oid_equal(&at, &s->genesis); i++) {
		git_commit *c = NULL;
		if (git_commit_lookup(&c, s->repo, &at))
			return -1;
		const char *sum = git_commit_summary(c);
		bool start = sum && !strcmp(sum, STORE_START_SUBJECT);
		bool root = !git_commit_parentcount(c);
		git_oid here = at;
		if (!root)
			at = *git_commit_parent_id(c, 0);
		git_commit_free(c);
		if (start) {
			*out = here;
			return 0;
		}
		if (root)
			return -1;
	}
	return -1;
}

void store_lobby_rival_why(char *why, size_t n, const char *name,
			   const unsigned char *key, const unsigned char *held,
			   bool own_lost)
{
	char k[CATAN_FINGERPRINT_TEXT], h[CATAN_FINGERPRINT_TEXT];
	catan_pubkey_fingerprint(k, key);
	catan_pubkey_fingerprint(h, held);
	bool other = memcmp(key, held, CATAN_PUBKEY_LEN) != 0;
	if (other && own_lost)
		snprintf(why, n,
			 "seat %s went to another joiner's claim, with key "
			 "%s; this repository's claim, with key %s, lost it "
			 "(join another seat or game)",
			 name, k, h);
	else if (other)
		snprintf(why, n,
			 "seat %s is already claimed by key %s; a second key "
			 "%s is refused",
			 name, h, k);
	else
		snprintf(why, n,
			 "seat %s is already claimed by key %s, by another "
			 "claim; a second claim is refused",
			 name, h);
}
