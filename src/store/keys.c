/*
 * keys.c - which secret keys a peer signs with. A signed game binds every
 * seat to a public key at genesis (game/signers); a repository's config
 * names the private key files of the seats played here (`catan.key`, one
 * value per key, absolute paths), which every handle that may write loads
 * when it opens. The keys themselves never enter the repository's objects.
 * Layer 7 (top): beside store.c, which creates and opens games; over
 * sign.c (a leaf) and the repository's config.
 */
#define _GNU_SOURCE
#include "keys.h"
#include "lobby.h"

#include <limits.h>
#include <sodium.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The seat whose public key `k` is, or -1. */
static int seat_of(const catan_game *g, const catan_key *k)
{
	for (int p = 0; p < g->opt.nplayers; p++)
		if (!memcmp(g->keys[p], k->pk, CATAN_PUBKEY_LEN))
			return p;
	return -1;
}

void store_keys_load(catan_store *s)
{
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	if (git_repository_config_snapshot(&cfg, s->repo) ||
	    git_config_multivar_iterator_new(&it, cfg, "catan.key", NULL))
		goto done;
	while (git_config_next(&e, it) == 0) {
		catan_key k;
		catan_sign_why why = {{0}, 0};
		int p;
		if (catan_key_load(&k, e->value, &why))
			snprintf(s->key_note, sizeof s->key_note,
				 "the key %.80s does not load: %.100s",
				 e->value, why.msg);
		else if ((p = seat_of(&s->game, &k)) < 0)
			snprintf(s->key_note, sizeof s->key_note,
				 "the key %.100s is no seat's key in this game",
				 e->value);
		else if (!s->keys[p] && (s->keys[p] = malloc(sizeof k)))
			*s->keys[p] = k;
		sodium_memzero(&k, sizeof k);
	}
done:
	git_config_iterator_free(it);
	git_config_free(cfg);
}

static bool has_value(git_config *cfg, const char *v)
{
	git_config_iterator *it = NULL;
	git_config_entry *e;
	bool found = false;
	if (git_config_multivar_iterator_new(&it, cfg, "catan.key", NULL))
		return false;
	while (!found && git_config_next(&e, it) == 0)
		found = !strcmp(e->value, v);
	git_config_iterator_free(it);
	return found;
}

static int record_key(catan_store *s, const char *path, catan_err *err);

int catan_store_use_key(catan_store *s, const char *path, catan_err *err)
{
	catan_key k;
	catan_sign_why why = {{0}, 0};
	int rc = -1, p;
	if (!s->game.signed_game)
		return store_fail(err, "this game is not signed (its genesis "
				       "binds no keys to seats)");
	if (catan_key_load(&k, path, &why))
		return store_fail(err, "%s", why.msg);
	int me = catan_store_me(s);
	if ((p = seat_of(&s->game, &k)) < 0 && me >= 0) {
		/* The seat asked for is bound: say so, and what is open. */
		char open[CATAN_MAX_PLAYERS * (CATAN_NAME_MAX + 2)];
		store_lobby_waits(open, sizeof open, &s->game);
		store_fail(err,
			   "the key %s is not %s's: seat %s is bound to "
			   "another key%s%s",
			   path, s->game.names.name[me], s->game.names.name[me],
			   *open ? "; open seats: " : " (no seat is open)",
			   open);
		goto done;
	}
	if (p < 0) {
		store_fail(err,
			   "the key %s is no seat's key in this game "
			   "(catan show --signers lists them)",
			   path);
		goto done;
	}
	if (me >= 0 && me != p) {
		store_fail(err,
			   "the key %s is %s's, but this repository plays %s",
			   path, s->game.names.name[p], s->game.names.name[me]);
		goto done;
	}
	if (catan_store_set_key(s, p, &k, err))
		goto done;
	rc = record_key(s, path, err);
done:
	sodium_memzero(&k, sizeof k);
	return rc;
}

/*
 * Records the key file's path in the repository's config (catan.key), once.
 * 0, or -1 with err.
 */
static int record_key(catan_store *s, const char *path, catan_err *err)
{
	char abs[PATH_MAX];
	git_config *cfg = NULL;
	int rc = -1;
	if (!realpath(path, abs)) {
		store_fail(err, "%s: cannot resolve the path", path);
		goto done;
	}
	if (git_repository_config(&cfg, s->repo)) {
		store_git_fail(err, "reading the repository's config");
		goto done;
	}
	if (has_value(cfg, abs)) {
		rc = 0;
		goto done;
	}
	size_t mark = s->intent_len;
	/* A pattern no path matches: the value is added, never replaces. */
	if (store_intent(s, "config.lock"))
		store_fail(err, "cannot write to catan.lock");
	else if (git_config_set_multivar(cfg, "catan.key", "^\n$", abs))
		store_git_fail(err, "recording the key's path");
	else
		rc = 0;
	store_intent_done(s, mark);
done:
	git_config_free(cfg);
	return rc;
}

/*
 * Whether a remote already shows seat p taken (refs/remotes/R/<p> off the
 * genesis, its game/ binding p): err then names the key. 1, else 0.
 */
static int taken_at_remote(catan_store *s, int p, catan_err *err)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	int taken = 0;
	if (git_reference_iterator_glob_new(&it, s->repo, "refs/remotes/*"))
		return 0;
	while (!taken && git_reference_next(&ref, it) == 0) {
		const char *name = git_reference_name(ref);
		const char *slash = strrchr(name, '/');
		const git_oid *to = git_reference_target(ref);
		git_commit *c = NULL;
		catan_game g;
		git_oid gt;
		catan_err ignored;
		if (slash && to && !strcmp(slash + 1, s->game.names.name[p]) &&
		    !git_oid_equal(to, &s->genesis) &&
		    git_commit_lookup(&c, s->repo, to) == 0 &&
		    store_game_of_tree(&g, &gt, s, git_commit_tree_id(c),
				       &ignored) == 0 &&
		    !(g.open & (1u << p))) {
			char fp[CATAN_FINGERPRINT_TEXT];
			catan_pubkey_fingerprint(fp, g.keys[p]);
			store_fail_code(err, CATAN_STORE_E_DENIED,
					"seat %s is already claimed by key %s "
					"(%.*s)",
					s->game.names.name[p], fp,
					(int)(slash - name - 13), name + 13);
			taken = 1;
		}
		git_commit_free(c);
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return taken;
}

int catan_store_claim(catan_store *s, const char *path, catan_err *err)
{
	catan_key k;
	catan_sign_why why = {{0}, 0};
	git_oid id;
	int me = catan_store_me(s), rc = -1;
	if (me < 0)
		return store_fail(err, "this repository plays no seat "
				       "(catan join ... --as PLAYER)");
	if (!(s->game.open & (1u << me)))
		return store_fail_code(err, CATAN_STORE_E_DENIED,
				       "seat %s is not open: the game binds "
				       "its key (catan show --signers)",
				       s->game.names.name[me]);
	if (catan_key_load(&k, path, &why))
		return store_fail(err, "%s", why.msg);
	if (taken_at_remote(s, me, err) ||
	    store_lobby_claim(&id, s, me, &k, err))
		goto done;
	if (!s->keys[me] && !(s->keys[me] = malloc(sizeof k))) {
		store_fail(err, "out of memory");
		goto done;
	}
	*s->keys[me] = k;
	rc = record_key(s, path, err);
done:
	sodium_memzero(&k, sizeof k);
	return rc;
}

int catan_store_create_signed(catan_store **out, const char *path,
			      const catan_game *g, const char *keypath,
			      catan_err *err)
{
	catan_key k;
	catan_sign_why why = {{0}, 0};
	*out = NULL;
	if (!g->signed_game)
		return store_fail(err, "no keys for the seats");
	if (catan_key_load(&k, keypath, &why))
		return store_fail(err, "%s", why.msg);
	int rc = store_create(out, path, g, CATAN_TIME_NOW, false, &k, err);
	sodium_memzero(&k, sizeof k);
	if (rc)
		return -1;
	if (catan_store_set_me(*out, 0, err) ||
	    catan_store_use_key(*out, keypath, err)) {
		catan_store_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int catan_store_create_keyed(catan_store **out, const char *path,
			     const catan_game *g, catan_time_mode time,
			     bool batch, const catan_key *first, catan_err *err)
{
	return store_create(out, path, g, time, batch, first, err);
}
