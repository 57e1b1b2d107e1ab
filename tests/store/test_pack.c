/*
 * test_pack.c - our pack writer (src/store/pack.c): the delta encoder
 * against a reference applier written here, packs read back through
 * libgit2, the chain depth cap read from the pack bytes themselves,
 * determinism, and a batch game flushed through it as stock git sees it.
 */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "helpers.h"
#include "pack.h"
#include "store_helpers.h"

/* ---- a reference delta applier (Git's format, written from the spec) ---- */

static size_t varint(const unsigned char *d, size_t len, size_t *i)
{
	size_t v = 0;
	int shift = 0;
	unsigned char c;
	do {
		assert_true(*i < len);
		c = d[(*i)++];
		v |= (size_t)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	return v;
}

/*
 * Applies delta d to base; returns the result (malloc'ed, *n its size).
 * *all_bytes counts copy operations that use all four offset bytes and all
 * three size bytes.
 */
static unsigned char *apply(const unsigned char *base, size_t base_len,
			    const unsigned char *d, size_t len, size_t *n,
			    int *all_bytes)
{
	size_t i = 0;
	assert_int_equal(varint(d, len, &i), base_len);
	size_t want = varint(d, len, &i), at = 0;
	unsigned char *out = malloc(want ? want : 1);
	assert_non_null(out);
	while (i < len) {
		unsigned char cmd = d[i++];
		if (cmd & 0x80) {
			size_t off = 0, size = 0;
			for (int k = 0; k < 4; k++)
				if (cmd & (1 << k)) {
					assert_true(i < len);
					off |= (size_t)d[i++] << (8 * k);
				}
			for (int k = 0; k < 3; k++)
				if (cmd & (0x10 << k)) {
					assert_true(i < len);
					size |= (size_t)d[i++] << (8 * k);
				}
			if (size == 0)
				size = 0x10000;
			if (all_bytes && cmd == 0xff)
				(*all_bytes)++;
			assert_true(off + size <= base_len);
			assert_true(at + size <= want);
			memcpy(out + at, base + off, size);
			at += size;
		} else {
			assert_true(cmd > 0); /* 0 is reserved */
			assert_true(i + cmd <= len && at + cmd <= want);
			memcpy(out + at, d + i, cmd);
			i += cmd;
			at += cmd;
		}
	}
	assert_int_equal(at, want);
	*n = want;
	return out;
}

/* Encodes, applies, and checks the round trip; returns the delta size. */
static size_t round_trip(const unsigned char *base, size_t base_len,
			 const unsigned char *target, size_t target_len,
			 int *all_bytes)
{
	unsigned char *d = NULL, *back;
	size_t dlen = 0, n = 0;
	assert_int_equal(
	    store_delta_encode(&d, &dlen, base, base_len, target, target_len),
	    0);
	assert_non_null(d);
	back = apply(base, base_len, d, dlen, &n, all_bytes);
	assert_int_equal(n, target_len);
	if (n)
		assert_memory_equal(back, target, n);
	free(back);
	free(d);
	return dlen;
}

static unsigned char *random_bytes(catan_rng *r, size_t n, int alphabet)
{
	unsigned char *p = malloc(n ? n : 1);
	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(catan_rng_next(r) % (uint64_t)alphabet);
	return p;
}

static void test_pack__delta_edge_cases(void **st)
{
	const unsigned char text[] = "turn 12 red main\ndice 3 4\n";
	size_t n = sizeof text - 1;
	catan_rng r;
	(void)st;
	catan_rng_seed(&r, 1);
	/* Empty base, empty result, both empty. */
	round_trip(NULL, 0, text, n, NULL);
	round_trip(text, n, NULL, 0, NULL);
	round_trip(NULL, 0, NULL, 0, NULL);
	/* Identical: one copy after the two sizes. */
	assert_true(round_trip(text, n, text, n, NULL) <= 4);
	/* Completely different: inserts only, runs longer than 127 bytes. */
	unsigned char *a = random_bytes(&r, 1000, 256);
	unsigned char *b = malloc(1000);
	assert_non_null(b);
	for (int i = 0; i < 1000; i++)
		b[i] = (unsigned char)(a[i] ^ 0x80);
	size_t d = round_trip(a, 1000, b, 1000, NULL);
	assert_true(d >= 1000 && d <= 1000 + 8 + 4);
	/* Shorter than a window, on either side. */
	round_trip(text, 3, text, n, NULL);
	round_trip(text, n, text + 5, 3, NULL);
	free(a);
	free(b);
}

static void test_pack__delta_random_and_adversarial(void **st)
{
	catan_rng r;
	(void)st;
	catan_rng_seed(&r, 42);
	for (int round = 0; round < 400; round++) {
		int alphabet = round % 3 == 0 ? 2 : round % 3 == 1 ? 4 : 256;
		size_t blen = (size_t)(catan_rng_next(&r) % 3000);
		unsigned char *base = random_bytes(&r, blen, alphabet);
		/* The target: pieces of the base, mutated, and fresh bytes. */
		size_t cap = blen + 4000, tlen = 0;
		unsigned char *t = malloc(cap);
		assert_non_null(t);
		while (tlen < cap / 2) {
			size_t k = (size_t)(catan_rng_next(&r) % 300) + 1;
			if (tlen + k > cap)
				break;
			if (blen && catan_rng_next(&r) % 2) {
				size_t at = (size_t)(catan_rng_next(&r) % blen);
				if (at + k > blen)
					k = blen - at;
				memcpy(t + tlen, base + at, k);
			} else {
				unsigned char *fresh =
				    random_bytes(&r, k, alphabet);
				memcpy(t + tlen, fresh, k);
				free(fresh);
			}
			tlen += k;
		}
		round_trip(base, blen, t, tlen, NULL);
		free(base);
		free(t);
	}
	/* Runs: a base of one repeated byte, a target of another. */
	unsigned char a[5000], b[5000];
	memset(a, 'x', sizeof a);
	memset(b, 'x', sizeof b);
	b[2500] = 'y';
	assert_true(round_trip(a, sizeof a, b, sizeof b, NULL) < 30);
	assert_true(round_trip(a, sizeof a, a, 10, NULL) < 10);
}

static void test_pack__delta_large_inputs(void **st)
{
	catan_rng r;
	(void)st;
	catan_rng_seed(&r, 7);
	/* > 64 KiB: one edit in 200 KiB is a few operations. */
	size_t n = 200 * 1024;
	unsigned char *a = random_bytes(&r, n, 256);
	unsigned char *b = malloc(n);
	assert_non_null(b);
	memcpy(b, a, n);
	memcpy(b + 100000, "an edit", 7);
	assert_true(round_trip(a, n, b, n, NULL) < 40);
	free(a);
	free(b);

	/*
	 * Offsets needing all four bytes and a size needing all three: a
	 * copy of 0x010203 bytes from 0x01020304 of a base over 16 MiB.
	 */
	size_t off = 0x01020304, size = 0x010203, blen = off + size + 1000;
	a = random_bytes(&r, blen, 256);
	int all = 0;
	assert_true(round_trip(a, blen, a + off, size, &all) < 16);
	assert_true(all >= 1);
	/* Longer than one copy can say (0xffffff): split in two. */
	assert_true(round_trip(a, blen, a + 5, 0x1000000 + 5, NULL) < 24);
	free(a);
}

/* ---- packs ---- */

/* Follows one object's header in a pack; returns its base's index or -1. */
static int pack_parse(const unsigned char *p, size_t len, size_t *at,
		      const size_t *offsets, int n)
{
	size_t start = *at;
	unsigned char c = p[(*at)++];
	int type = (c >> 4) & 7, base = -1;
	while (c & 0x80)
		c = p[(*at)++];
	if (type == 6) {
		c = p[(*at)++];
		size_t ofs = c & 127;
		while (c & 0x80) {
			c = p[(*at)++];
			ofs = ((ofs + 1) << 7) | (c & 127);
		}
		for (int i = 0; i < n; i++)
			if (offsets[i] == start - ofs)
				base = i;
		assert_true(base >= 0);
	} else {
		assert_true(type >= 1 && type <= 4);
	}
	/* Skip the zlib stream. */
	z_stream z;
	unsigned char sink[4096];
	memset(&z, 0, sizeof z);
	assert_int_equal(inflateInit(&z), Z_OK);
	z.next_in = (unsigned char *)p + *at;
	z.avail_in = (uInt)(len - *at);
	int rc;
	do {
		z.next_out = sink;
		z.avail_out = sizeof sink;
		rc = inflate(&z, Z_NO_FLUSH);
	} while (rc == Z_OK);
	assert_int_equal(rc, Z_STREAM_END);
	*at += z.total_in;
	inflateEnd(&z);
	return base;
}

#define CHAIN 130

/* A pack of CHAIN versions of a file, each against the previous one. */
static store_pack *chain_pack(git_oid *ids, unsigned char **versions,
			      size_t *lens)
{
	store_pack *p = NULL;
	assert_int_equal(store_pack_new(&p, STORE_PACK_MAX_DEPTH), 0);
	for (int i = 0; i < CHAIN; i++) {
		int base = i - 1;
		assert_int_equal(store_pack_add(p, GIT_OBJECT_BLOB, versions[i],
						lens[i], &base, 1),
				 i);
		assert_int_equal(git_odb_hash(&ids[i], versions[i], lens[i],
					      GIT_OBJECT_BLOB),
				 0);
	}
	return p;
}

/* Reads every id back through libgit2 and compares it with its content. */
static void read_back(const char *dir, const git_oid *ids,
		      unsigned char *const *v, const size_t *lens, int n)
{
	git_repository *repo = NULL;
	git_odb *odb = NULL;
	assert_int_equal(git_repository_open(&repo, dir), 0);
	assert_int_equal(git_repository_odb(&odb, repo), 0);
	for (int i = 0; i < n; i++) {
		git_odb_object *o = NULL;
		assert_int_equal(git_odb_read(&o, odb, &ids[i]), 0);
		assert_int_equal(git_odb_object_size(o), lens[i]);
		assert_memory_equal(git_odb_object_data(o), v[i], lens[i]);
		git_odb_object_free(o);
	}
	git_odb_free(odb);
	git_repository_free(repo);
}

static void test_pack__read_back_depth_and_determinism(void **st)
{
	char *tmp = sh_tmpdir("pack");
	char packdir[600], out[4096];
	git_oid ids[CHAIN];
	unsigned char *v[CHAIN];
	size_t lens[CHAIN];
	catan_rng r;
	catan_err err = {0};
	(void)st;
	catan_rng_seed(&r, 3);
	for (int i = 0; i < CHAIN; i++) {
		char buf[400];
		int k = snprintf(buf, sizeof buf,
				 "turn %d red main\ndice %d %d\ndraws %d\n"
				 "red %d 0 1 3 0\nblue 0 0 0 0 0\n",
				 i, i % 6 + 1, i % 5 + 1, 7 * i, i % 9);
		v[i] = malloc((size_t)k);
		memcpy(v[i], buf, (size_t)k);
		lens[i] = (size_t)k;
	}
	git_libgit2_init();
	git_repository *repo = NULL;
	assert_int_equal(git_repository_init(&repo, tmp, 1), 0);
	store_pack *p = chain_pack(ids, v, lens);
	/* Every chain at most the cap, and some at the cap. */
	int deepest = 0;
	for (int i = 0; i < CHAIN; i++) {
		assert_true(store_pack_depth(p, i) <= STORE_PACK_MAX_DEPTH);
		if (store_pack_depth(p, i) > deepest)
			deepest = store_pack_depth(p, i);
	}
	assert_int_equal(deepest, STORE_PACK_MAX_DEPTH);
	snprintf(packdir, sizeof packdir, "%s/objects/pack", tmp);
	assert_int_equal(store_pack_write(p, packdir, NULL, &err), 0);

	/* The same from the bytes: follow each object's base. */
	size_t len = 0, at = 12, offsets[CHAIN];
	const unsigned char *bytes = store_pack_finish(p, &len);
	assert_memory_equal(bytes, "PACK\0\0\0\2", 8);
	int depth[CHAIN], deltas = 0;
	for (int i = 0; i < CHAIN; i++) {
		offsets[i] = at;
		int base = pack_parse(bytes, len, &at, offsets, i);
		depth[i] = base < 0 ? 0 : depth[base] + 1;
		deltas += base >= 0;
		assert_int_equal(depth[i], store_pack_depth(p, i));
	}
	assert_int_equal(at + 20, len);
	assert_int_equal(deltas, CHAIN - 1); /* the cap ends no chain here */

	/* Same objects, same order: same bytes. */
	store_pack *again = chain_pack(ids, v, lens);
	size_t len2 = 0;
	const unsigned char *bytes2 = store_pack_finish(again, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(bytes, bytes2, len);
	store_pack_free(again);
	store_pack_free(p);

	/* libgit2 reads every object back as written. */
	git_repository_free(repo);
	read_back(tmp, ids, v, lens, CHAIN);
	for (int i = 0; i < CHAIN; i++)
		free(v[i]);
	/* And so does git. */
	sh_must(out, sizeof out,
		"cd '%s' && git verify-pack objects/pack/*.idx >/dev/null && "
		"git count-objects -v | grep '^in-pack'",
		tmp);
	char want[64];
	snprintf(want, sizeof want, "in-pack: %d\n", CHAIN);
	assert_string_equal(out, want);
	git_libgit2_shutdown();
	sh_rmrf(tmp);
	free(tmp);
}

/*
 * Object i of a pack read at *at: its base's index (-1 when whole), the
 * size of its zlib stream and what the stream holds (malloc'ed).
 */
static int pack_object(const unsigned char *p, size_t len, size_t *at,
		       const size_t *offsets, int i, size_t *zlen,
		       unsigned char **payload, size_t *payload_len)
{
	size_t start = *at;
	int base = pack_parse(p, len, at, offsets, i);
	size_t head = start;
	unsigned char c = p[head++];
	while (c & 0x80)
		c = p[head++];
	if (base >= 0)
		while (p[head++] & 0x80)
			;
	*zlen = *at - head;
	uLongf n = 1 << 20;
	*payload = malloc(n);
	assert_non_null(*payload);
	assert_int_equal(uncompress(*payload, &n, p + head, (uLong)*zlen),
			 Z_OK);
	*payload_len = n;
	return base;
}

/* Size of data compressed at level 9 with zlib's defaults but strategy. */
static size_t deflated_size(const unsigned char *data, size_t len, int strategy)
{
	z_stream z;
	unsigned char out[1 << 16];
	memset(&z, 0, sizeof z);
	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 15, 8, strategy),
			 Z_OK);
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = sizeof out;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t n = z.total_out;
	deflateEnd(&z);
	return n;
}

#define LONG_CHAIN 1200

/*
 * A chain longer than the cap allows goes on from the heads of its
 * segments (51 objects, then 50, ..., 26: 1001 objects, then one stored
 * whole),
 * never deeper than the cap; every stream is no larger than zlib's level 9
 * with the default strategy or Z_FILTERED would make it; libgit2 and git
 * read every object back.
 */
static void test_pack__long_chain_in_segments(void **st)
{
	char *tmp = sh_tmpdir("packlong");
	char packdir[600], out[4096];
	static git_oid ids[LONG_CHAIN];
	static unsigned char *v[LONG_CHAIN];
	static size_t lens[LONG_CHAIN], offsets[LONG_CHAIN];
	catan_err err = {0};
	store_pack *p = NULL;
	(void)st;
	assert_int_equal(store_pack_new(&p, STORE_PACK_MAX_DEPTH), 0);
	for (int i = 0; i < LONG_CHAIN; i++) {
		char buf[2400];
		int k = snprintf(buf, sizeof buf, "turn %d red main\n", i / 3);
		for (int line = 0; line < 40; line++)
			k += snprintf(buf + k, sizeof buf - (size_t)k,
				      "line %d of a long file: %d\n", line,
				      line == i % 40 ? i : line * 7);
		v[i] = malloc((size_t)k);
		memcpy(v[i], buf, (size_t)k);
		lens[i] = (size_t)k;
		int base = i - 1;
		assert_int_equal(
		    store_pack_add(p, GIT_OBJECT_BLOB, v[i], lens[i], &base, 1),
		    i);
		assert_int_equal(
		    git_odb_hash(&ids[i], v[i], lens[i], GIT_OBJECT_BLOB), 0);
	}
	int whole = 0, far = 0;
	for (int i = 0; i < LONG_CHAIN; i++) {
		int d = store_pack_depth(p, i);
		assert_true(d <= STORE_PACK_MAX_DEPTH);
		if (d == 0)
			assert_true(i == 0 || i == 1001);
		whole += d == 0;
	}
	assert_int_equal(whole, 2);

	size_t len = 0, at = 12;
	const unsigned char *bytes = store_pack_finish(p, &len);
	for (int i = 0; i < LONG_CHAIN; i++) {
		unsigned char *payload = NULL;
		size_t zlen = 0, plen = 0;
		offsets[i] = at;
		int base = pack_object(bytes, len, &at, offsets, i, &zlen,
				       &payload, &plen);
		far += base >= 0 && base < i - 1;
		if (base < 0) {
			assert_int_equal(plen, lens[i]);
			assert_memory_equal(payload, v[i], plen);
		}
		assert_true(zlen <=
			    deflated_size(payload, plen, Z_DEFAULT_STRATEGY));
		assert_true(zlen <= deflated_size(payload, plen, Z_FILTERED));
		free(payload);
	}
	assert_int_equal(at + 20, len);
	assert_int_equal(far, 25 + 4); /* heads of segments 1-25, then 1-4 */

	git_libgit2_init();
	git_repository *repo = NULL;
	assert_int_equal(git_repository_init(&repo, tmp, 1), 0);
	git_repository_free(repo);
	snprintf(packdir, sizeof packdir, "%s/objects/pack", tmp);
	assert_int_equal(store_pack_write(p, packdir, NULL, &err), 0);
	store_pack_free(p);
	read_back(tmp, ids, v, lens, LONG_CHAIN);
	for (int i = 0; i < LONG_CHAIN; i++)
		free(v[i]);
	git_libgit2_shutdown();
	sh_must(out, sizeof out,
		"cd '%s' && git verify-pack -v objects/pack/*.idx | "
		"grep -c '^chain length = 50:'",
		tmp);
	assert_true(atoi(out) == 1);
	sh_rmrf(tmp);
	free(tmp);
}

static void test_pack__refuses_bad_bases(void **st)
{
	store_pack *p = NULL;
	int bad = 0, none = -1;
	(void)st;
	assert_int_equal(store_pack_new(&p, 0), 0);
	assert_int_equal(store_pack_add(p, GIT_OBJECT_BLOB, "a", 1, &bad, 1),
			 -1);
	assert_int_equal(store_pack_add(p, GIT_OBJECT_BLOB, "a", 1, &none, 1),
			 0);
	/* max_depth 0: never a delta. */
	assert_int_equal(store_pack_add(p, GIT_OBJECT_BLOB, "a", 1, &bad, 1),
			 1);
	assert_int_equal(store_pack_depth(p, 1), 0);
	store_pack_free(p);
}

/*
 * The sync stage's packs (stored blocks, no deltas), packs merged by
 * copying their entries (OFS_DELTA distances rewritten, an object in two
 * packs kept once) and a truncated pack: each index is what git expects
 * (git verify-pack recomputes it from the pack) and every object reads
 * back.
 */
static void test_pack__stored_merged_truncated(void **st)
{
	char *tmp = sh_tmpdir("packmerge");
	char packdir[600], out[8192], name[3][GIT_OID_HEXSZ + 1];
	git_oid ids[CHAIN + 3];
	unsigned char *v[CHAIN + 3];
	size_t lens[CHAIN + 3];
	catan_err err = {0};
	(void)st;
	for (int i = 0; i < CHAIN; i++) {
		char buf[400];
		int k = snprintf(buf, sizeof buf,
				 "turn %d red main\ndice %d %d\ndraws %d\n", i,
				 i % 6 + 1, i % 5 + 1, 7 * i);
		v[i] = malloc((size_t)k);
		memcpy(v[i], buf, (size_t)k);
		lens[i] = (size_t)k;
	}
	git_libgit2_init();
	git_repository *repo = NULL;
	assert_int_equal(git_repository_init(&repo, tmp, 1), 0);
	git_repository_free(repo);
	snprintf(packdir, sizeof packdir, "%s/objects/pack", tmp);

	/* 1: deltas (OFS) against the previous version. */
	store_pack *p = chain_pack(ids, v, lens);
	assert_int_equal(store_pack_write(p, packdir, name[0], &err), 0);
	store_pack_free(p);
	/* 2: stored, three objects of pack 1 again, two new, one dropped. */
	assert_int_equal(store_pack_new_fast(&p), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(
		    store_pack_add(p, GIT_OBJECT_BLOB, v[i], lens[i], NULL, 0),
		    i);
	static const char *more[3] = {"one more\n", "", "dropped\n"};
	for (int i = 0; i < 3; i++) {
		v[CHAIN + i] = (unsigned char *)strdup(more[i]);
		lens[CHAIN + i] = strlen(more[i]);
		assert_int_equal(store_pack_add(p, GIT_OBJECT_BLOB,
						v[CHAIN + i], lens[CHAIN + i],
						NULL, 0),
				 3 + i);
		assert_int_equal(git_odb_hash(&ids[CHAIN + i], more[i],
					      strlen(more[i]), GIT_OBJECT_BLOB),
				 0);
		assert_true(
		    git_oid_equal(store_pack_id(p, 3 + i), &ids[CHAIN + i]));
	}
	assert_int_equal(store_pack_find(p, &ids[CHAIN + 2]), 5);
	assert_int_equal(store_pack_truncate(p, 5), 0);
	assert_int_equal(store_pack_count(p), 5);
	assert_int_equal(store_pack_find(p, &ids[CHAIN + 2]), -1);
	assert_int_equal(store_pack_find(p, &ids[1]), 1);
	assert_int_equal(store_pack_truncate(p, 6), -1);
	/* Stored blocks: the content is there as it is. */
	size_t len = 0;
	const unsigned char *bytes = store_pack_finish(p, &len);
	bool found = false;
	for (size_t i = 0; i + 9 <= len && !found; i++)
		found = !memcmp(bytes + i, "one more\n", 9);
	assert_true(found);
	assert_int_equal(store_pack_write(p, packdir, name[1], &err), 0);
	store_pack_free(p);
	sh_must(out, sizeof out,
		"cd '%s' && git verify-pack objects/pack/pack-%s.idx && "
		"git verify-pack objects/pack/pack-%s.idx",
		tmp, name[0], name[1]);
	read_back(tmp, ids, v, lens, CHAIN + 2);

	/* Merged: one pack, every object once, git agrees. */
	char stem[2][64];
	const char *stems[2] = {stem[1], stem[0]};
	for (int i = 0; i < 2; i++)
		snprintf(stem[i], sizeof stem[i], "pack-%s", name[i]);
	assert_int_equal(store_pack_merge(packdir, stems, 2, name[2], &err), 0);
	for (int i = 0; i < 2; i++) {
		char path[800];
		snprintf(path, sizeof path, "%s/%s.idx", packdir, stem[i]);
		unlink(path);
		snprintf(path, sizeof path, "%s/%s.pack", packdir, stem[i]);
		unlink(path);
	}
	sh_must(out, sizeof out,
		"cd '%s' && git verify-pack -v objects/pack/pack-%s.idx | "
		"grep -c ' blob '",
		tmp, name[2]);
	assert_int_equal(atoi(out), CHAIN + 2);
	sh_must(out, sizeof out,
		"cd '%s' && git verify-pack -v objects/pack/pack-%s.idx | "
		"awk '$2==\"blob\" && NF > 5' | wc -l",
		tmp, name[2]);
	assert_true(atoi(out) > CHAIN - 10); /* the deltas survived */
	sh_must(out, sizeof out, "git -C '%s' fsck --strict 2>&1", tmp);
	read_back(tmp, ids, v, lens, CHAIN + 2);
	/* A pack that is not there, or an index of another pack: refused. */
	const char *missing[1] = {
	    "pack-0000000000000000000000000000000000000000"};
	assert_int_equal(store_pack_merge(packdir, missing, 1, NULL, &err), -1);
	for (int i = 0; i < CHAIN + 3; i++)
		free(v[i]);
	git_libgit2_shutdown();
	sh_rmrf(tmp);
	free(tmp);
}

/* A batch game (as simulate plays it), flushed: what stock git sees. */
static void test_pack__batch_game_flush(void **st)
{
	char *tmp = sh_tmpdir("packgame");
	char dir[600], out[8192];
	catan_game g;
	catan_store *s = NULL;
	catan_err err = {0};
	catan_state ref, cur;
	catan_rng r;
	(void)st;
	snprintf(dir, sizeof dir, "%s/game", tmp);
	sh_game(&g, 4, SH_BOARD_RANDOM, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 5);
	assert_int_equal(catan_store_create_ext(
			     &s, dir, &g, CATAN_TIME_DETERMINISTIC, true, &err),
			 0);
	assert_int_equal(catan_state_init(&ref, &g.board, &g.opt), CATAN_OK);
	catan_rng_seed(&r, 9);
	int n = sh_play(s, 300, &r, 0, &ref, NULL);
	assert_int_equal(catan_store_flush(s, &err), 0);
	catan_store_free(s);

	s = sh_open(dir);
	sh_current(s, &cur, NULL);
	assert_true(catan_state_hash(&cur) == catan_state_hash(&ref));
	catan_store_free(s);
	sh_must(out, sizeof out, "git -C '%s' fsck --strict 2>&1", dir);
	sh_must(out, sizeof out, "git -C '%s' rev-list --all | wc -l", dir);
	assert_true(atoi(out) >= n);
	/* One pack, with commits, trees and blobs stored as deltas. */
	sh_must(out, sizeof out,
		"cd '%s' && ls objects/pack/*.pack | wc -l && git verify-pack "
		"-v objects/pack/*.idx | awk '$2==\"commit\" && NF > 5' | "
		"wc -l",
		dir);
	int packs = 0, delta_commits = 0;
	assert_int_equal(sscanf(out, "%d %d", &packs, &delta_commits), 2);
	assert_int_equal(packs, 1);
	assert_true(delta_commits > n / 2);
	sh_rmrf(tmp);
	free(tmp);
}

/* catan gc: a hot-seat game (loose objects) repacked, then played on. */
static void test_pack__gc_loose_game(void **st)
{
	char *tmp = sh_tmpdir("packgc");
	char dir[600], out[8192];
	catan_game g;
	catan_state ref, cur;
	catan_rng r;
	catan_err err = {0};
	(void)st;
	snprintf(dir, sizeof dir, "%s/game", tmp);
	sh_game(&g, 3, SH_BOARD_RANDOM, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 11);
	assert_int_equal(catan_state_init(&ref, &g.board, &g.opt), CATAN_OK);
	catan_rng_seed(&r, 4);
	catan_store *s = sh_create(dir, &g);
	sh_play(s, 80, &r, 0, &ref, NULL);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(catan_store_gc(s, &err), 0);
		sh_must(out, sizeof out,
			"cd '%s' && git count-objects -v | grep -E "
			"'^(count|packs):' | tr '\\n' ' '",
			dir);
		assert_string_equal(out, "count: 0 packs: 1 ");
		sh_current(s, &cur, NULL);
		assert_true(catan_state_hash(&cur) == catan_state_hash(&ref));
	}
	/* The game goes on: a loose commit on top of the pack. */
	sh_play(s, 20, &r, 0, &ref, NULL);
	catan_store_free(s);
	sh_must(out, sizeof out, "git -C '%s' fsck --strict 2>&1", dir);
	sh_must(out, sizeof out, "'%s' -C '%s' verify", CATAN_BIN, dir);
	assert_true(strncmp(out, "ok:", 3) == 0);
	sh_rmrf(tmp);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pack__delta_edge_cases),
	    cmocka_unit_test(test_pack__delta_random_and_adversarial),
	    cmocka_unit_test(test_pack__delta_large_inputs),
	    cmocka_unit_test(test_pack__read_back_depth_and_determinism),
	    cmocka_unit_test(test_pack__long_chain_in_segments),
	    cmocka_unit_test(test_pack__refuses_bad_bases),
	    cmocka_unit_test(test_pack__stored_merged_truncated),
	    cmocka_unit_test(test_pack__batch_game_flush),
	    cmocka_unit_test(test_pack__gc_loose_game),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
