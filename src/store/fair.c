/*
 * fair.c - layer 3 (codec): the hash chains of fair dice
 * (spec/replication.md, "Fair dice").
 *
 * Each seat p has a secret chain x[0..N] with x[k-1] = SHA-256(x[k]):
 * x[N] is derived from its secret key and the genesis, x[0] (the anchor)
 * is published in p's first commit, and p reveals x[1], x[2], ... one per
 * chance outcome, in order. A state tree holds each anchored seat's last
 * published value in the file fair-<seat> (64 hex digits); a reveal is
 * accepted only if it hashes to that value. An outcome's random bytes
 * hash every seat's value for it.
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

/* Fills why; returns 1. */
static int bad(char *why, size_t whylen, const char *what, const char *path)
{
	snprintf(why, whylen, "%.40s: %s", path, what);
	return 1;
}

void store_fair_hash(uint8_t out[32], const uint8_t in[32])
{
	crypto_hash_sha256(out, in, 32);
}

void store_fair_hex(char out[65], const uint8_t v[32])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = digits[v[i] >> 4];
		out[2 * i + 1] = digits[v[i] & 15];
	}
	out[64] = '\0';
}

bool store_fair_unhex(uint8_t out[32], const char *text, size_t len)
{
	if (len != 64)
		return false;
	for (size_t i = 0; i < 64; i++) {
		char c = text[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
					       : -1;
		if (d < 0)
			return false; /* lowercase only: one spelling */
		if (i % 2 == 0)
			out[i / 2] = (uint8_t)(d << 4);
		else
			out[i / 2] |= (uint8_t)d;
	}
	return true;
}

void store_fair_random(uint8_t r[32], const catan_state *s, const store_fair *f)
{
	crypto_hash_sha256_state h;
	char head[48];
	int n = snprintf(head, sizeof head, "catan fair dice v1 %u\n",
			 (unsigned)s->fair_events);
	crypto_hash_sha256_init(&h);
	crypto_hash_sha256_update(&h, (const unsigned char *)head, (size_t)n);
	for (int p = 0; p < s->opt.nplayers; p++)
		crypto_hash_sha256_update(&h, f->head[p], 32);
	crypto_hash_sha256_final(&h, r);
}

int store_fair_encode(catan_files *out, const catan_game *g,
		      const store_fair *f)
{
	for (int p = 0; p < g->opt.nplayers; p++) {
		if (!((f->anchored >> p) & 1))
			continue;
		char path[CATAN_PATH_MAX], line[66];
		snprintf(path, sizeof path, "fair-%s", g->names.name[p]);
		store_fair_hex(line, f->head[p]);
		line[64] = '\n';
		if (catan_files_add(out, path, line, 65))
			return -1;
	}
	return 0;
}

int store_fair_take(store_fair *f, catan_files *rest, const catan_game *g,
		    const catan_files *in, char *why, size_t whylen)
{
	memset(f, 0, sizeof *f);
	for (int i = 0; i < in->n; i++) {
		const catan_file *e = &in->file[i];
		if (strncmp(e->path, "fair-", 5)) {
			if (catan_files_add(rest, e->path, e->data, e->len))
				return bad(why, whylen, "out of memory",
					   e->path);
			continue;
		}
		const char *name = e->path + 5;
		int p = catan_names_find(&g->names, name, strlen(name));
		if (p < 0 || strcmp(name, g->names.name[p]))
			return bad(why, whylen, "not a player's chain",
				   e->path);
		if (e->len != 65 || e->data[64] != '\n' ||
		    !store_fair_unhex(f->head[p], e->data, 64))
			return bad(why, whylen,
				   "want 64 lowercase hex digits and a newline",
				   e->path);
		f->anchored |= (uint8_t)(1u << p);
	}
	return 0;
}

/*
 * The chain's top x[N] of seat p: SHA-256 of a label, the seat's secret
 * key seed and the genesis id. Only the key's holder can compute it.
 */
static void chain_top(uint8_t out[32], const catan_store *s, int p)
{
	crypto_hash_sha256_state h;
	static const char label[] = "catan fair chain v1\n";
	crypto_hash_sha256_init(&h);
	crypto_hash_sha256_update(&h, (const unsigned char *)label,
				  sizeof label - 1);
	crypto_hash_sha256_update(&h, s->keys[p]->sk, 32);
	crypto_hash_sha256_update(&h, s->genesis.id, GIT_OID_RAWSZ);
	crypto_hash_sha256_final(&h, out);
}

int store_fair_value(uint8_t out[32], catan_store *s, int p, int k,
		     catan_err *err)
{
	if (!s->keys[p])
		return store_fail_code(err, CATAN_STORE_E_DENIED,
				       "fair dice: this repository holds no "
				       "key of %s, whose secret it would "
				       "reveal",
				       s->game.names.name[p]);
	if (k < 0 || k > STORE_FAIR_CHAIN)
		return store_fail(err,
				  "fair dice: %s's chain is used up (%d "
				  "values)",
				  s->game.names.name[p], STORE_FAIR_CHAIN);
	/* The whole chain, once per seat and handle: N hashes (~1 ms). */
	if (!s->fair_chain[p]) {
		uint8_t(*c)[32] =
		    malloc(sizeof(uint8_t[32]) * (STORE_FAIR_CHAIN + 1));
		if (!c)
			return store_fail(err, "out of memory");
		chain_top(c[STORE_FAIR_CHAIN], s, p);
		for (int i = STORE_FAIR_CHAIN; i > 0; i--)
			store_fair_hash(c[i - 1], c[i]);
		s->fair_chain[p] = c;
	}
	memcpy(out, s->fair_chain[p][k], 32);
	return 0;
}

int store_fair_read(uint8_t out[32], catan_store *s, const git_oid *tree, int p)
{
	char path[CATAN_PATH_MAX];
	git_tree *t = NULL;
	git_blob *b = NULL;
	if (git_tree_lookup(&t, s->repo, tree))
		return git_odb_exists(s->odb, tree) ? -1 : -2;
	snprintf(path, sizeof path, "fair-%s", s->game.names.name[p]);
	const git_tree_entry *e = git_tree_entry_byname(t, path);
	int rc = 1;
	if (e && git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
	    git_tree_entry_filemode(e) == GIT_FILEMODE_BLOB) {
		if (git_blob_lookup(&b, s->repo, git_tree_entry_id(e)))
			rc = git_odb_exists(s->odb, git_tree_entry_id(e)) ? -1
									  : -2;
		else if (git_blob_rawsize(b) == 65 &&
			 ((const char *)git_blob_rawcontent(b))[64] == '\n' &&
			 store_fair_unhex(out, git_blob_rawcontent(b), 64))
			rc = 0;
	}
	git_blob_free(b);
	git_tree_free(t);
	return rc;
}
