/*
 * pack.c - our own pack writer: every object as a delta against its
 * natural base when that is smaller, and its index (see pack.h); merging
 * packs by copying their entries.
 */
#define _XOPEN_SOURCE 700

#include "pack.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha1.h>
#include <zlib.h>

#include "store_internal.h"

/* ---- growing byte buffers ---- */

typedef struct bytes {
	unsigned char *p;
	size_t len, cap;
} bytes;

static bool bytes_reserve(bytes *b, size_t more)
{
	if (b->cap - b->len >= more)
		return true;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < more) {
		if (cap > SIZE_MAX / 2)
			return false;
		cap *= 2;
	}
	unsigned char *p = realloc(b->p, cap);
	if (!p)
		return false;
	b->p = p;
	b->cap = cap;
	return true;
}

/* Appends n bytes; the caller reserved room. */
static void bytes_put(bytes *b, const void *data, size_t n)
{
	assert(b->cap - b->len >= n);
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
}

/* ---- the delta encoder ---- */

/*
 * Windows of WINDOW bytes of the base are hashed at every stride-th
 * position (every position for bases up to 64 KiB, which is every object
 * of a game; every 16th above, to bound the table), so a common run of at
 * least WINDOW + STRIDE - 1 bytes is always found; of a run of equal
 * windows only the first is kept. Candidates for a target window are
 * tried newest first, at most MAX_CHAIN of them, and the
 * longest match wins (the first of equals, so the result is a function of
 * the inputs).
 */
#define WINDOW	   4
#define SMALL_BASE 65536
#define MAX_CHAIN  64
#define MAX_COPY   0xffffffu /* three size bytes */
#define MAX_INSERT 127
#define NONE	   UINT32_MAX

static uint32_t window_hash(const unsigned char *p, int bits)
{
	uint32_t x = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
		     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	return (x * 2654435761u) >> (32 - bits);
}

static void put_varint(bytes *b, size_t v)
{
	unsigned char c;
	do {
		c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		bytes_put(b, &c, 1);
	} while (v);
}

/* Bytes a copy operation takes: the command and its non-zero bytes. */
static size_t copy_cost(uint32_t off, uint32_t size)
{
	size_t n = 1;
	for (int i = 0; i < 4; i++)
		n += ((off >> (8 * i)) & 0xff) != 0;
	for (int i = 0; i < 3; i++)
		n += ((size >> (8 * i)) & 0xff) != 0;
	return n;
}

static bool put_copy(bytes *b, uint32_t off, size_t size)
{
	while (size > 0) {
		uint32_t n = size > MAX_COPY ? MAX_COPY : (uint32_t)size;
		unsigned char op[8];
		size_t k = 1;
		op[0] = 0x80;
		for (int i = 0; i < 4; i++) {
			unsigned char c = (off >> (8 * i)) & 0xff;
			if (c) {
				op[0] |= (unsigned char)(1u << i);
				op[k++] = c;
			}
		}
		for (int i = 0; i < 3; i++) {
			unsigned char c = (n >> (8 * i)) & 0xff;
			if (c) {
				op[0] |= (unsigned char)(0x10u << i);
				op[k++] = c;
			}
		}
		if (!bytes_reserve(b, k))
			return false;
		bytes_put(b, op, k);
		off += n;
		size -= n;
	}
	return true;
}

static bool put_insert(bytes *b, const unsigned char *data, size_t n)
{
	while (n > 0) {
		unsigned char k =
		    n > MAX_INSERT ? MAX_INSERT : (unsigned char)n;
		if (!bytes_reserve(b, 1 + (size_t)k))
			return false;
		bytes_put(b, &k, 1);
		bytes_put(b, data, k);
		data += k;
		n -= k;
	}
	return true;
}

int store_delta_encode(unsigned char **out, size_t *out_len,
		       const unsigned char *base, size_t base_len,
		       const unsigned char *target, size_t target_len)
{
	bytes b = {NULL, 0, 0};
	uint32_t *head = NULL, *next = NULL;
	size_t stride = base_len <= SMALL_BASE ? 1 : 16;
	size_t npos = base_len >= WINDOW ? (base_len - WINDOW) / stride + 1 : 0;
	int bits = 4;

	*out = NULL;
	*out_len = 0;
	if (base_len >= (size_t)UINT32_MAX)
		return -1;
	while (bits < 30 && ((size_t)1 << bits) < npos)
		bits++;
	if (!bytes_reserve(&b, 20) ||
	    !(head = malloc(((size_t)1 << bits) * sizeof *head)) ||
	    (npos && !(next = malloc(npos * sizeof *next))))
		goto fail;
	memset(head, 0xff, ((size_t)1 << bits) * sizeof *head);
	for (size_t k = 0; k < npos; k++) {
		/* In a run of equal windows only the first: it matches longest.
		 */
		if (k > 0 &&
		    !memcmp(base + k * stride, base + (k - 1) * stride, WINDOW))
			continue;
		uint32_t h = window_hash(base + k * stride, bits);
		next[k] = head[h];
		head[h] = (uint32_t)k;
	}
	put_varint(&b, base_len);
	put_varint(&b, target_len);

	size_t i = 0, pending = 0; /* target[pending, i) is still to insert */
	while (i + WINDOW <= target_len && npos) {
		uint32_t h = window_hash(target + i, bits);
		size_t best = 0, best_at = 0;
		int tries = 0;
		for (uint32_t k = head[h]; k != NONE && tries < MAX_CHAIN;
		     k = next[k], tries++) {
			size_t at = (size_t)k * stride, n = 0;
			while (at + n < base_len && i + n < target_len &&
			       base[at + n] == target[i + n])
				n++;
			if (n > best) {
				best = n;
				best_at = at;
			}
		}
		if (best < WINDOW) {
			i++;
			continue;
		}
		/* Grow the match back over bytes that would be inserted. */
		size_t from = i;
		while (best_at > 0 && from > pending &&
		       base[best_at - 1] == target[from - 1]) {
			best_at--;
			from--;
			best++;
		}
		uint32_t shown = best > MAX_COPY ? MAX_COPY : (uint32_t)best;
		if (best <= copy_cost((uint32_t)best_at, shown) + 1) {
			i++;
			continue;
		}
		if (!put_insert(&b, target + pending, from - pending) ||
		    !put_copy(&b, (uint32_t)best_at, best))
			goto fail;
		i = from + best;
		pending = i;
	}
	if (!put_insert(&b, target + pending, target_len - pending))
		goto fail;
	free(head);
	free(next);
	*out = b.p;
	*out_len = b.len;
	return 0;
fail:
	free(head);
	free(next);
	free(b.p);
	return -1;
}

/* ---- object ids ---- */

/* Object id -> index in the pack: open addressing, ids are random. */
typedef struct oid_map {
	git_oid *key;
	int *val; /* -1: empty slot */
	size_t cap, n;
} oid_map;

static size_t oid_slot(const oid_map *m, const git_oid *id)
{
	size_t h;
	memcpy(&h, id->id, sizeof h);
	h &= m->cap - 1;
	while (m->val[h] >= 0 && !git_oid_equal(&m->key[h], id))
		h = (h + 1) & (m->cap - 1);
	return h;
}

static int map_get(const oid_map *m, const git_oid *id)
{
	return m->cap ? m->val[oid_slot(m, id)] : -1;
}

static bool map_put(oid_map *m, const git_oid *id, int val)
{
	if (2 * (m->n + 1) > m->cap) {
		oid_map big = {NULL, NULL, m->cap ? 2 * m->cap : 64, 0};
		if (!(big.key = malloc(big.cap * sizeof *big.key)) ||
		    !(big.val = malloc(big.cap * sizeof *big.val))) {
			free(big.key);
			return false;
		}
		memset(big.val, 0xff, big.cap * sizeof *big.val);
		for (size_t i = 0; i < m->cap; i++)
			if (m->val[i] >= 0)
				map_put(&big, &m->key[i], m->val[i]);
		free(m->key);
		free(m->val);
		*m = big;
	}
	size_t h = oid_slot(m, id);
	if (m->val[h] < 0)
		m->n++;
	git_oid_cpy(&m->key[h], id);
	m->val[h] = val;
	return true;
}

/* ---- the pack ---- */

#define OBJ_OFS_DELTA 6

/*
 * The chosen stream of an object is compressed at level 9 with each of
 * these strategies and the smallest kept (the first of equals): for the
 * few dozen bytes of a delta in a game, Z_FILTERED saves a byte now and
 * then over the default (0.6 B per commit over 100 games); Z_RLE,
 * Z_HUFFMAN_ONLY and Z_FIXED never did better than both. Inputs shorter
 * than SMALL_INPUT go through streams with memLevel 3: the same output
 * there (its 512-symbol block buffer holds them whole, and level 9 follows
 * every hash chain) and a hash table 32 times smaller to clear at each
 * deflateReset. Larger inputs use zlib's default memLevel 8.
 */
#define NSTRATEGY   2
#define SMALL_INPUT 256
static const int strategies[NSTRATEGY] = {Z_DEFAULT_STRATEGY, Z_FILTERED};

typedef struct pack_obj {
	unsigned char *data; /* the object's content, a possible base */
	size_t len;
	size_t offset; /* of its header in the pack */
	int depth;
	int head; /* the first object of its segment (see store_pack_add) */
	git_oid id;
	uint32_t crc; /* CRC-32 of its bytes in the pack, for the .idx */
} pack_obj;

struct store_pack {
	pack_obj *obj;
	int n, cap;
	bytes out;		  /* the pack: header, objects, then trailer */
	bytes whole, delta;	  /* the object compressed, and its delta */
	bytes spare;		  /* a stream being tried (squeeze) */
	z_stream z[2][NSTRATEGY]; /* [0] small inputs, [1] the others */
	int z_ready;		  /* streams initialised, in z's order */
	bool finished;
	bool stored; /* zlib streams of stored blocks: no compression */
	int max_depth;
	oid_map ids; /* id -> index of its first copy */
};

static int pack_new(store_pack **out, int max_depth, bool stored)
{
	store_pack *p = calloc(1, sizeof *p);
	*out = NULL;
	if (!p)
		return -1;
	p->max_depth = max_depth;
	p->stored = stored;
	/* Fixed parameters and zlib's own code: the same bytes every run. */
	for (int k = 0; !stored && k < 2 * NSTRATEGY; k++) {
		if (deflateInit2(&p->z[k / NSTRATEGY][k % NSTRATEGY], 9,
				 Z_DEFLATED, 15, k < NSTRATEGY ? 3 : 8,
				 strategies[k % NSTRATEGY]) != Z_OK) {
			store_pack_free(p);
			return -1;
		}
		p->z_ready++;
	}
	if (!bytes_reserve(&p->out, 12)) {
		store_pack_free(p);
		return -1;
	}
	bytes_put(&p->out, "PACK\0\0\0\2\0\0\0\0", 12); /* count at finish */
	*out = p;
	return 0;
}

int store_pack_new(store_pack **out, int max_depth)
{
	return pack_new(out, max_depth, false);
}

int store_pack_new_fast(store_pack **out)
{
	return pack_new(out, 0, true);
}

/*
 * dst = a zlib stream of data in stored blocks (RFC 1950 and 1951: the
 * header of level 0, blocks of at most 65535 bytes, the Adler-32).
 */
static bool store_blocks(bytes *dst, const unsigned char *data, size_t len)
{
	dst->len = 0;
	if (!bytes_reserve(dst, 6 + len + 5 * (len / 65535 + 1)))
		return false;
	bytes_put(dst, "\x78\x01", 2);
	size_t at = 0;
	do {
		size_t k = len - at < 65535 ? len - at : 65535;
		unsigned char h[5] = {
		    at + k == len, (unsigned char)k, (unsigned char)(k >> 8),
		    (unsigned char)~k, (unsigned char)(~k >> 8)};
		bytes_put(dst, h, 5);
		bytes_put(dst, data + at, k);
		at += k;
	} while (at < len);
	uLong a = adler32(adler32(0, NULL, 0), data, (uInt)len);
	unsigned char t[4] = {(unsigned char)(a >> 24),
			      (unsigned char)(a >> 16), (unsigned char)(a >> 8),
			      (unsigned char)a};
	bytes_put(dst, t, 4);
	return true;
}

/* dst = data compressed by stream z. */
static bool deflate_one(z_stream *z, bytes *dst, const void *data, size_t len)
{
	if (deflateReset(z) != Z_OK)
		return false;
	dst->len = 0;
	size_t bound = deflateBound(z, (uLong)len);
	if (!bytes_reserve(dst, bound))
		return false;
	z->next_in = (Bytef *)(uintptr_t)data;
	z->avail_in = (uInt)len;
	z->next_out = dst->p;
	z->avail_out = (uInt)bound;
	if (deflate(z, Z_FINISH) != Z_STREAM_END)
		return false;
	dst->len = bound - z->avail_out;
	return true;
}

/* dst = the smallest zlib stream of data among the strategies tried. */
static bool squeeze(store_pack *p, bytes *dst, const void *data, size_t len)
{
	if (len <= UINT32_MAX && p->stored)
		return store_blocks(dst, data, len);
	z_stream *z = p->z[len >= SMALL_INPUT];
	if (len > UINT32_MAX || !deflate_one(&z[0], dst, data, len))
		return false;
	for (int k = 1; k < NSTRATEGY; k++) {
		if (!deflate_one(&z[k], &p->spare, data, len))
			return false;
		if (p->spare.len < dst->len) {
			bytes t = *dst;
			*dst = p->spare;
			p->spare = t;
		}
	}
	return true;
}

/* Type and size header of a packed object. */
static void put_obj_header(bytes *b, int type, size_t size)
{
	unsigned char c = (unsigned char)(type << 4 | (size & 15));
	size >>= 4;
	while (size) {
		c |= 0x80;
		bytes_put(b, &c, 1);
		c = size & 0x7f;
		size >>= 7;
	}
	bytes_put(b, &c, 1);
}

/* Distance back to the base, as OFS_DELTA writes it (big-endian, +1). */
static void put_ofs(bytes *b, size_t ofs)
{
	unsigned char buf[16];
	size_t pos = sizeof buf - 1;
	buf[pos] = ofs & 127;
	while (ofs >>= 7)
		buf[--pos] = (unsigned char)(128 | (--ofs & 127));
	bytes_put(b, buf + pos, sizeof buf - pos);
}

/* Bytes of the type and size header of a packed object. */
static size_t obj_header_len(size_t size)
{
	size_t n = 1;
	for (size >>= 4; size; size >>= 7)
		n++;
	return n;
}

/* Bytes of an OFS_DELTA distance. */
static size_t ofs_len(size_t ofs)
{
	size_t n = 1;
	while (ofs >>= 7) {
		ofs--;
		n++;
	}
	return n;
}

/*
 * What a delta of len bytes costs compressed, about: a fixed-Huffman
 * block of literals (8 bits a byte below 144, 9 above, 10 bits of block
 * header and end) and zlib's 6 bytes. Deltas of a game carry ids, numbers
 * and names that repeat little, so this is within a byte or two of
 * deflate's result and ranks candidates as well (0.1 B per commit lost
 * over 100 games) at a fraction of the cost of compressing each one.
 */
static size_t delta_cost(const unsigned char *d, size_t len)
{
	size_t bits = 10;
	for (size_t i = 0; i < len; i++)
		bits += d[i] < 144 ? 8 : 9;
	return (bits + 7) / 8 + 6;
}

/* Git's id of an object: SHA-1 of "<type> <size>\0" and the content. */
static void object_id(git_oid *out, git_object_t type, const void *data,
		      size_t len)
{
	struct sha1_ctx ctx;
	char head[64];
	int n = snprintf(head, sizeof head, "%s %zu",
			 git_object_type2string(type), len);
	sha1_init(&ctx);
	sha1_update(&ctx, (size_t)n + 1, (const uint8_t *)head);
	sha1_update(&ctx, len, data);
	sha1_digest(&ctx, GIT_OID_RAWSZ, out->id);
}

int store_pack_add(store_pack *p, git_object_t type, const void *data,
		   size_t len, const int *bases, int nbases)
{
	unsigned char *delta = NULL, *copy = NULL;
	size_t delta_len = 0, best_cost = 0;
	int base = -1;
	bool jump = false; /* base is the head of a full chain's segment */

	if (p->finished || type < GIT_OBJECT_COMMIT || type > GIT_OBJECT_TAG)
		return -1;
	for (int i = 0; i < nbases; i++)
		if (bases[i] < -1 || bases[i] >= p->n)
			return -1;
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 64;
		pack_obj *o = realloc(p->obj, (size_t)cap * sizeof *o);
		if (!o)
			return -1;
		p->obj = o;
		p->cap = cap;
	}
	/* A copy only where it may serve as a base. */
	if (p->max_depth > 0 && !(copy = malloc(len ? len : 1)))
		goto fail;
	if (copy && len)
		memcpy(copy, data, len);
	/*
	 * The candidate of the smallest estimated size wins (the first of
	 * equals), its header and distance counted; only that one is
	 * compressed.
	 *
	 * A chain that reached max_depth is not ended by an object stored
	 * whole (a root tree of a game: 253 B against 45 for a delta) but
	 * continued from the first object of its last segment: the new object
	 * is a delta against that one (about 50 objects older, so a longer
	 * delta, 118 B for that tree) and starts a segment of its own, one
	 * level deeper. The first segment of a chain holds max_depth + 1
	 * objects, the next one fewer, ...; once the last segment's head is
	 * at half the cap, the object is stored whole and a new chain begins
	 * (after 1001 objects with a cap of 50).
	 */
	for (int i = 0; i < nbases; i++) {
		const pack_obj *b = bases[i] >= 0 ? &p->obj[bases[i]] : NULL;
		unsigned char *d = NULL;
		size_t dlen = 0;
		int bi = bases[i];
		if (b && b->depth >= p->max_depth) {
			bi = b->head;
			b = &p->obj[bi];
		}
		if (!b || b->depth >= p->max_depth ||
		    (bi != bases[i] && 2 * b->depth >= p->max_depth))
			continue;
		if (store_delta_encode(&d, &dlen, b->data, b->len, data, len))
			goto fail;
		size_t cost = delta_cost(d, dlen) + obj_header_len(dlen) +
			      ofs_len(p->out.len - b->offset);
		if (base < 0 || cost < best_cost) {
			free(delta);
			delta = d;
			delta_len = dlen;
			best_cost = cost;
			base = bi;
			jump = bi != bases[i];
		} else {
			free(d);
		}
	}
	/*
	 * The object whole, when that may be smaller: not when the delta is
	 * at most half its size, since what the delta inserts compresses as
	 * the object would.
	 */
	if (base >= 0 && !squeeze(p, &p->delta, delta, delta_len))
		goto fail;
	if (base < 0 || 2 * delta_len > len) {
		if (!squeeze(p, &p->whole, data, len))
			goto fail;
		if (base >= 0 &&
		    p->whole.len + obj_header_len(len) <=
			p->delta.len + obj_header_len(delta_len) +
			    ofs_len(p->out.len - p->obj[base].offset))
			base = -1;
	}

	pack_obj *o = &p->obj[p->n];
	o->data = copy;
	o->len = len;
	o->offset = p->out.len;
	o->depth = base >= 0 ? p->obj[base].depth + 1 : 0;
	o->head = base >= 0 && !jump ? p->obj[base].head : p->n;
	const bytes *z = base >= 0 ? &p->delta : &p->whole;
	if (!bytes_reserve(&p->out, 32 + z->len))
		goto fail;
	if (base >= 0) {
		put_obj_header(&p->out, OBJ_OFS_DELTA, delta_len);
		put_ofs(&p->out, o->offset - p->obj[base].offset);
	} else {
		put_obj_header(&p->out, (int)type, len);
	}
	bytes_put(&p->out, z->p, z->len);
	object_id(&o->id, type, data, len);
	o->crc = (uint32_t)crc32(0, p->out.p + o->offset,
				 (uInt)(p->out.len - o->offset));
	if (map_get(&p->ids, &o->id) < 0 && !map_put(&p->ids, &o->id, p->n))
		goto fail;
	free(delta);
	return p->n++;
fail:
	free(delta);
	free(copy);
	return -1;
}

int store_pack_count(const store_pack *p)
{
	return p->n;
}

int store_pack_depth(const store_pack *p, int i)
{
	return p->obj[i].depth;
}

int store_pack_truncate(store_pack *p, int n)
{
	if (p->finished || n < 0 || n > p->n)
		return -1;
	if (n == p->n)
		return 0;
	oid_map ids = {NULL, NULL, 0, 0};
	for (int i = 0; i < n; i++)
		if (map_get(&ids, &p->obj[i].id) < 0 &&
		    !map_put(&ids, &p->obj[i].id, i)) {
			free(ids.key);
			free(ids.val);
			return -1;
		}
	for (int i = n; i < p->n; i++)
		free(p->obj[i].data);
	p->out.len = p->obj[n].offset;
	p->n = n;
	free(p->ids.key);
	free(p->ids.val);
	p->ids = ids;
	return 0;
}

const git_oid *store_pack_id(const store_pack *p, int i)
{
	return &p->obj[i].id;
}

int store_pack_find(const store_pack *p, const git_oid *id)
{
	return map_get(&p->ids, id);
}

const unsigned char *store_pack_finish(store_pack *p, size_t *len)
{
	if (!p->finished) {
		struct sha1_ctx ctx;
		uint32_t n = (uint32_t)p->n;
		if (!bytes_reserve(&p->out, SHA1_DIGEST_SIZE))
			return NULL;
		for (int i = 0; i < 4; i++)
			p->out.p[8 + i] = (unsigned char)(n >> (24 - 8 * i));
		sha1_init(&ctx);
		sha1_update(&ctx, p->out.len, p->out.p);
		sha1_digest(&ctx, SHA1_DIGEST_SIZE, p->out.p + p->out.len);
		p->out.len += SHA1_DIGEST_SIZE;
		p->finished = true;
	}
	*len = p->out.len;
	return p->out.p;
}

/* ---- the files: the pack and its index ---- */

/* An object as the index lists it. */
typedef struct idx_entry {
	git_oid id;
	uint32_t crc;
	uint64_t offset;
} idx_entry;

static int by_id(const void *a, const void *b)
{
	return git_oid_cmp(&((const idx_entry *)a)->id,
			   &((const idx_entry *)b)->id);
}

static void put_be32(bytes *b, uint32_t v)
{
	unsigned char c[4] = {(unsigned char)(v >> 24),
			      (unsigned char)(v >> 16), (unsigned char)(v >> 8),
			      (unsigned char)v};
	bytes_put(b, c, 4);
}

/*
 * The .idx (version 2, gitformat-pack(5)) of a pack whose trailer is
 * `sum`: magic and version, the fan-out table, the sorted ids, their
 * CRC-32s, their offsets (31 bits, or an index into a table of 64-bit
 * ones), the pack's checksum and the index's own. Sorts e. False when out
 * of memory or when an id is listed twice.
 */
static bool build_idx(bytes *out, idx_entry *e, size_t n,
		      const unsigned char *sum)
{
	size_t large = 0;
	qsort(e, n, sizeof *e, by_id);
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && git_oid_equal(&e[i - 1].id, &e[i].id))
			return false;
		large += e[i].offset >= 0x80000000u;
	}
	if (!bytes_reserve(out, 8 + 1024 + n * 28 + large * 8 + 40))
		return false;
	bytes_put(out, "\377tOc\0\0\0\2", 8);
	size_t k = 0;
	for (int x = 0; x < 256; x++) {
		while (k < n && e[k].id.id[0] <= x)
			k++;
		put_be32(out, (uint32_t)k);
	}
	for (size_t i = 0; i < n; i++)
		bytes_put(out, e[i].id.id, GIT_OID_RAWSZ);
	for (size_t i = 0; i < n; i++)
		put_be32(out, e[i].crc);
	uint32_t next = 0;
	for (size_t i = 0; i < n; i++)
		put_be32(out, e[i].offset < 0x80000000u ? (uint32_t)e[i].offset
							: 0x80000000u | next++);
	for (size_t i = 0; i < n; i++)
		if (e[i].offset >= 0x80000000u) {
			put_be32(out, (uint32_t)(e[i].offset >> 32));
			put_be32(out, (uint32_t)e[i].offset);
		}
	bytes_put(out, sum, SHA1_DIGEST_SIZE);
	struct sha1_ctx ctx;
	sha1_init(&ctx);
	sha1_update(&ctx, out->len, out->p);
	sha1_digest(&ctx, SHA1_DIGEST_SIZE, out->p + out->len);
	out->len += SHA1_DIGEST_SIZE;
	return true;
}

/*
 * Writes data into a new temporary file in dir (read-only, as git leaves
 * packs), its name in tmp. Returns 0 or -1 with errno (nothing left
 * behind).
 */
static int write_tmp(char *tmp, size_t tmplen, const char *dir,
		     const unsigned char *data, size_t len)
{
	snprintf(tmp, tmplen, "%s/tmp_pack_XXXXXX", dir);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	size_t at = 0;
	int e = ENOSPC; /* a write of 0 bytes: the disk is full */
	while (at < len) {
		ssize_t k = write(fd, data + at, len - at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			e = errno;
		if (k <= 0)
			break;
		at += (size_t)k;
	}
	bool bad = at < len;
	if (!bad && fchmod(fd, 0444)) {
		bad = true;
		e = errno;
	}
	if (close(fd) && !bad) {
		bad = true;
		e = errno;
	}
	if (bad) {
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/*
 * Stores a finished pack (its bytes end with their SHA-1) and the index of
 * its n objects in packdir as pack-<that SHA-1>.pack and .idx, the pack
 * first: libgit2 and git only look at a pack once its index is there.
 * Durable as git's core.fsync "pack" and "pack-metadata" make it: both
 * are on disk before their renames (written as temporary files, then one
 * syncfs for the two rather than an fsync each), the directory after.
 * name (41 bytes, or NULL) receives the hex. Returns 0, or -1 with err.
 */
static int write_pack_files(const char *packdir, const unsigned char *pack,
			    size_t len, idx_entry *e, size_t n, char *name,
			    catan_err *err)
{
	bytes idx = {NULL, 0, 0};
	char hex[GIT_OID_HEXSZ + 1], path[4300], tp[4300] = "", ti[4300] = "";
	git_oid sum;
	int rc = -1;
	git_oid_fromraw(&sum, pack + len - SHA1_DIGEST_SIZE);
	git_oid_tostr(hex, sizeof hex, &sum);
	if (!build_idx(&idx, e, n, sum.id)) {
		store_fail(err, "indexing the pack: out of memory or an "
				"object twice");
		goto done;
	}
	snprintf(path, sizeof path, "%s/pack-%s.pack", packdir, hex);
	if (write_tmp(tp, sizeof tp, packdir, pack, len) ||
	    write_tmp(ti, sizeof ti, packdir, idx.p, idx.len) ||
	    store_syncfs_dir(packdir) || rename(tp, path)) {
		store_fail(err, "writing %s: %s", path, strerror(errno));
		goto done;
	}
	tp[0] = '\0';
	snprintf(path, sizeof path, "%s/pack-%s.idx", packdir, hex);
	if (rename(ti, path)) {
		store_fail(err, "writing %s: %s", path, strerror(errno));
		goto done;
	}
	ti[0] = '\0';
	/* Both names on disk before any ref points into the pack. */
	if (store_fsync_dir(packdir)) {
		store_fail(err, "fsync of %s: %s", packdir, strerror(errno));
		goto done;
	}
	if (name)
		memcpy(name, hex, sizeof hex);
	rc = 0;
done:
	if (tp[0])
		unlink(tp);
	if (ti[0])
		unlink(ti);
	free(idx.p);
	return rc;
}

int store_pack_write(store_pack *p, const char *packdir, char *name,
		     catan_err *err)
{
	size_t len = 0;
	if (name)
		name[0] = '\0';
	if (p->n == 0)
		return 0;
	const unsigned char *data = store_pack_finish(p, &len);
	idx_entry *e = malloc(sizeof *e * (size_t)p->n);
	if (!data || !e) {
		free(e);
		return store_fail(err, "out of memory");
	}
	for (int i = 0; i < p->n; i++) {
		e[i].id = p->obj[i].id;
		e[i].crc = p->obj[i].crc;
		e[i].offset = p->obj[i].offset;
	}
	int rc =
	    write_pack_files(packdir, data, len, e, (size_t)p->n, name, err);
	free(e);
	return rc;
}

/* ---- merging packs ---- */

/* A whole file read into memory (malloc'ed); NULL on failure. */
static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat sb;
	unsigned char *buf = NULL;
	if (!f)
		return NULL;
	if (fstat(fileno(f), &sb) == 0 && sb.st_size > 0 &&
	    (buf = malloc((size_t)sb.st_size)) &&
	    fread(buf, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = buf ? (size_t)sb.st_size : 0;
	return buf;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* An entry of a source pack: where it is and what it is. */
typedef struct src_entry {
	uint64_t offset, end;
	const unsigned char *id;
} src_entry;

static int by_offset(const void *a, const void *b)
{
	const src_entry *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * The entries of the pack `pack` (len bytes) from its version 2 index,
 * sorted by offset, each ending where the next begins (the last at the
 * trailer). NULL when the index does not describe this pack.
 */
static src_entry *read_entries(const unsigned char *idx, size_t idx_len,
			       const unsigned char *pack, size_t len,
			       uint32_t *count)
{
	if (idx_len < 8 + 1024 + 40 || memcmp(idx, "\377tOc\0\0\0\2", 8) ||
	    len < 32 || memcmp(pack, "PACK\0\0\0\2", 8))
		return NULL;
	uint32_t n = be32(idx + 8 + 255 * 4);
	if (n != be32(pack + 8) || (idx_len - 1072) / 28 < n ||
	    memcmp(idx + idx_len - 40, pack + len - 20, 20))
		return NULL;
	const unsigned char *ids = idx + 1032, *off = ids + (size_t)n * 24,
			    *large = off + (size_t)n * 4;
	size_t nlarge = (idx_len - 1072 - (size_t)n * 28) / 8;
	src_entry *e = malloc(sizeof *e * (n ? n : 1));
	if (!e)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t o = be32(off + (size_t)i * 4);
		if (o & 0x80000000u) {
			size_t k = o & 0x7fffffffu;
			if (k >= nlarge) {
				free(e);
				return NULL;
			}
			o = (uint64_t)be32(large + k * 8) << 32 |
			    be32(large + k * 8 + 4);
		}
		e[i].offset = o;
		e[i].id = ids + (size_t)i * 20;
	}
	qsort(e, n, sizeof *e, by_offset);
	for (uint32_t i = 0; i < n; i++) {
		e[i].end = i + 1 < n ? e[i + 1].offset : len - 20;
		if (e[i].offset < 12 || e[i].offset >= e[i].end) {
			free(e);
			return NULL;
		}
	}
	*count = n;
	return e;
}

/* The entry of e (n, sorted) at offset `at`, or NULL. */
static const src_entry *entry_at(const src_entry *e, uint32_t n, uint64_t at)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e[mid].offset < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && e[lo].offset == at ? &e[lo] : NULL;
}

int store_pack_merge(const char *packdir, const char *const *stems, int n,
		     char *name, catan_err *err)
{
	bytes out = {NULL, 0, 0};
	idx_entry *ix = NULL;
	size_t nix = 0, cap = 0;
	oid_map seen = {NULL, NULL, 0, 0};
	int rc = -1;

	if (name)
		name[0] = '\0';
	if (!bytes_reserve(&out, 12))
		goto oom;
	bytes_put(&out, "PACK\0\0\0\2\0\0\0\0", 12);
	for (int k = 0; k < n; k++) {
		char path[4300];
		size_t plen = 0, ilen = 0;
		uint32_t count = 0;
		snprintf(path, sizeof path, "%s/%s.pack", packdir, stems[k]);
		unsigned char *pack = slurp(path, &plen);
		snprintf(path, sizeof path, "%s/%s.idx", packdir, stems[k]);
		unsigned char *idx = pack ? slurp(path, &ilen) : NULL;
		src_entry *e =
		    idx ? read_entries(idx, ilen, pack, plen, &count) : NULL;
		bool ok = e != NULL;
		if (!ok)
			store_fail(err, "cannot read pack %s", stems[k]);
		for (uint32_t i = 0; ok && i < count; i++) {
			git_oid id;
			git_oid_fromraw(&id, e[i].id);
			if (map_get(&seen, &id) >= 0)
				continue; /* in an earlier pack too */
			const unsigned char *p = pack + e[i].offset,
					    *end = pack + e[i].end;
			const unsigned char *q = p;
			int type = (*q >> 4) & 7;
			while (q < end && (*q++ & 0x80))
				;
			idx_entry *more =
			    store_reserve(ix, &cap, nix + 1, sizeof *ix);
			if (!more)
				goto oom;
			ix = more;
			size_t at = out.len;
			if (!bytes_reserve(&out, (size_t)(end - p) + 16) ||
			    !map_put(&seen, &id, (int)nix))
				goto oom;
			if (type == OBJ_OFS_DELTA) {
				/* The distance back to the base changes. */
				uint64_t ofs = 0;
				unsigned char c = 0x80;
				bytes_put(&out, p, (size_t)(q - p));
				for (int first = 1; q < end && (c & 0x80);
				     first = 0) {
					c = *q++;
					ofs = first ? (c & 127u)
						    : ((ofs + 1) << 7) |
							  (c & 127u);
				}
				const src_entry *b =
				    ofs <= e[i].offset
					? entry_at(e, count, e[i].offset - ofs)
					: NULL;
				git_oid bid;
				int bk = -1;
				if (b) {
					git_oid_fromraw(&bid, b->id);
					bk = map_get(&seen, &bid);
				}
				if (bk < 0 || (c & 0x80)) {
					ok = false;
					store_fail(err,
						   "pack %s: a delta "
						   "without its base",
						   stems[k]);
					break;
				}
				put_ofs(&out, at - ix[bk].offset);
			} else {
				q = p; /* copied whole */
			}
			bytes_put(&out, q, (size_t)(end - q));
			ix[nix].id = id;
			ix[nix].offset = at;
			ix[nix].crc = (uint32_t)crc32(0, out.p + at,
						      (uInt)(out.len - at));
			nix++;
		}
		free(e);
		free(idx);
		free(pack);
		if (!ok)
			goto done;
	}
	if (nix > UINT32_MAX || !bytes_reserve(&out, SHA1_DIGEST_SIZE))
		goto oom;
	for (int i = 0; i < 4; i++)
		out.p[8 + i] = (unsigned char)(nix >> (24 - 8 * i));
	struct sha1_ctx ctx;
	sha1_init(&ctx);
	sha1_update(&ctx, out.len, out.p);
	sha1_digest(&ctx, SHA1_DIGEST_SIZE, out.p + out.len);
	out.len += SHA1_DIGEST_SIZE;
	rc = write_pack_files(packdir, out.p, out.len, ix, nix, name, err);
	goto done;
oom:
	store_fail(err, "out of memory merging packs");
done:
	free(out.p);
	free(ix);
	free(seen.key);
	free(seen.val);
	return rc;
}

void store_pack_free(store_pack *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->n; i++)
		free(p->obj[i].data);
	free(p->obj);
	free(p->out.p);
	free(p->whole.p);
	free(p->delta.p);
	free(p->spare.p);
	free(p->ids.key);
	free(p->ids.val);
	for (int k = 0; k < p->z_ready; k++)
		deflateEnd(&p->z[k / NSTRATEGY][k % NSTRATEGY]);
	free(p);
}

/* ---- a history as one pack ---- */

typedef struct history {
	git_repository *repo;
	git_odb *odb;
	git_odb_backend *only;
	store_pack *pack;
	oid_map map;
	catan_err *err;
} history;

/*
 * Adds object `id` unless it is in the pack already or not wanted, with
 * the objects of indexes bases[0 .. nbases) (-1: none) as candidate delta
 * bases. *added (may be NULL) says whether it went in. Returns 0 or -1.
 */
static int put_object(history *h, const git_oid *id, const int *bases,
		      int nbases, bool *added)
{
	git_odb_object *o = NULL;
	if (added)
		*added = false;
	if (map_get(&h->map, id) >= 0 ||
	    (h->only && !h->only->exists(h->only, id)))
		return 0;
	if (git_odb_read(&o, h->odb, id))
		return store_git_fail(h->err, "reading an object to pack");
	int k = store_pack_add(h->pack, git_odb_object_type(o),
			       git_odb_object_data(o), git_odb_object_size(o),
			       bases, nbases);
	git_odb_object_free(o);
	if (k < 0 || !map_put(&h->map, id, k))
		return store_fail(h->err, "out of memory writing a pack");
	if (added)
		*added = true;
	return 0;
}

/* put_object with `base` (may be NULL) as the candidate if it is packed. */
static int put_against(history *h, const git_oid *id, const git_oid *base)
{
	int b = base ? map_get(&h->map, base) : -1;
	return put_object(h, id, &b, 1, NULL);
}

/*
 * Adds tree `id` and the trees under it (blobs too when `blobs`), each
 * against the entry of the same name in `base` (a tree or NULL). A tree
 * equal to its base holds nothing new.
 */
static int put_tree(history *h, const git_oid *id, const git_oid *base,
		    bool blobs)
{
	git_tree *t = NULL, *bt = NULL;
	int rc = -1;
	if (base && git_oid_equal(id, base))
		return 0;
	if (!blobs && put_against(h, id, base))
		return -1;
	if (git_tree_lookup(&t, h->repo, id) ||
	    (base && git_tree_lookup(&bt, h->repo, base))) {
		store_git_fail(h->err, "reading a tree to pack");
		goto done;
	}
	for (size_t i = 0; i < git_tree_entrycount(t); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		const git_tree_entry *be =
		    bt ? git_tree_entry_byname(bt, git_tree_entry_name(e))
		       : NULL;
		git_object_t type = git_tree_entry_type(e);
		if (be && git_tree_entry_type(be) != type)
			be = NULL;
		const git_oid *bid = be ? git_tree_entry_id(be) : NULL;
		if (type == GIT_OBJECT_TREE) {
			if (put_tree(h, git_tree_entry_id(e), bid, blobs))
				goto done;
		} else if (type == GIT_OBJECT_BLOB && blobs) {
			if (put_against(h, git_tree_entry_id(e), bid))
				goto done;
		}
	}
	rc = 0;
done:
	git_tree_free(bt);
	git_tree_free(t);
	return rc;
}

/*
 * The last commit in the pack of each author, of each author with each
 * verb (the subject's first word: roll, end, build...) and of each verb:
 * keys "email", "email\nverb" and "\nverb" in an open-addressed table.
 * Keys that do not fit (very long names, a full table) are not kept: a
 * commit then simply has fewer candidates.
 */
#define LAST_SLOTS 1024
#define LAST_KEY   96
typedef struct last_map {
	char key[LAST_SLOTS][LAST_KEY];
	int val[LAST_SLOTS]; /* -1: empty slot */
	int n;
} last_map;

static uint32_t key_hash(const char *k)
{
	uint32_t x = 2166136261u; /* FNV-1a */
	for (; *k; k++)
		x = (x ^ (unsigned char)*k) * 16777619u;
	return x;
}

/* The slot of key k: where it is, or the empty one where it would go. */
static size_t last_slot(const last_map *m, const char *k)
{
	size_t i = key_hash(k) & (LAST_SLOTS - 1);
	while (m->val[i] >= 0 && strcmp(m->key[i], k))
		i = (i + 1) & (LAST_SLOTS - 1);
	return i;
}

static int last_get(const last_map *m, const char *k)
{
	return m->val[last_slot(m, k)];
}

static void last_put(last_map *m, const char *k, int val)
{
	size_t i = last_slot(m, k);
	if (m->val[i] < 0) {
		if (strlen(k) >= LAST_KEY || 2 * (m->n + 1) > LAST_SLOTS)
			return;
		strcpy(m->key[i], k);
		m->n++;
	}
	m->val[i] = val;
}

/*
 * Adds commit c, stored against whichever of these gives the smallest
 * delta: its first parent (the same turn: the same author, committer and
 * Player lines); the author's previous commit; the author's previous
 * commit with the same verb (the same message but for the Turn trailer:
 * the best base of most commits that start a turn); the last commit with
 * that verb by anyone.
 */
static int put_commit(history *h, const git_commit *c, const git_commit *parent,
		      last_map *last)
{
	const char *email = git_commit_author(c)->email;
	const char *msg = git_commit_message(c);
	char keys[3][LAST_KEY];
	int bases[4];
	bool added, keyed = strlen(email) + 34 < LAST_KEY;
	size_t verb = strcspn(msg, " \n");
	if (verb > 32)
		verb = 32;
	snprintf(keys[0], LAST_KEY, "%s", email);
	snprintf(keys[1], LAST_KEY, "%s\n%.*s", email, (int)verb, msg);
	snprintf(keys[2], LAST_KEY, "\n%.*s", (int)verb, msg);
	bases[0] = parent ? map_get(&h->map, git_commit_id(parent)) : -1;
	for (int i = 1; i < 4; i++) {
		bases[i] = keyed ? last_get(last, keys[i - 1]) : -1;
		for (int j = 0; j < i; j++)
			if (bases[j] == bases[i])
				bases[i] = -1; /* tried already */
	}
	if (put_object(h, git_commit_id(c), bases, 4, &added))
		return -1;
	if (!added || !keyed)
		return 0;
	int k = map_get(&h->map, git_commit_id(c));
	for (int i = 0; i < 3; i++)
		last_put(last, keys[i], k);
	return 0;
}

int store_pack_history(git_repository *repo, git_revwalk *walk,
		       git_odb_backend *only, const char *packdir, char *name,
		       catan_err *err)
{
	history h = {repo, NULL, only, NULL, {NULL, NULL, 0, 0}, err};
	git_oid *ids = NULL;
	size_t n = 0, cap = 0;
	last_map *last = NULL;
	git_oid id;
	int rc = -1, walked;

	if (git_repository_odb(&h.odb, repo)) {
		store_git_fail(err, "opening the object database");
		goto done;
	}
	if (!(last = malloc(sizeof *last)) ||
	    store_pack_new(&h.pack, STORE_PACK_MAX_DEPTH)) {
		store_fail(err, "out of memory writing a pack");
		goto done;
	}
	memset(last->val, 0xff, sizeof last->val);
	last->n = 0;
	while ((walked = git_revwalk_next(&id, walk)) == 0) {
		git_oid *more = store_reserve(ids, &cap, n + 1, sizeof *ids);
		if (!more) {
			store_fail(err, "out of memory writing a pack");
			goto done;
		}
		ids = more;
		git_oid_cpy(&ids[n++], &id);
	}
	if (walked != GIT_ITEROVER) {
		store_git_fail(err, "walking the commits to pack");
		goto done;
	}
	/*
	 * Commits, then trees, then blobs, as git orders a pack; within each,
	 * in the walk's order (a parent before its children), so every base
	 * is written before the objects stored against it.
	 */
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < n; i++) {
			git_commit *c = NULL, *parent = NULL;
			int bad = git_commit_lookup(&c, repo, &ids[i]);
			if (!bad && git_commit_parentcount(c) > 0)
				bad = git_commit_parent(&parent, c, 0);
			if (bad) {
				git_commit_free(c);
				store_git_fail(err, "reading a commit to pack");
				goto done;
			}
			const git_oid *ptree =
			    parent ? git_commit_tree_id(parent) : NULL;
			if (pass == 0)
				bad = put_commit(&h, c, parent, last);
			else
				bad = put_tree(&h, git_commit_tree_id(c), ptree,
					       pass == 2);
			git_commit_free(parent);
			git_commit_free(c);
			if (bad)
				goto done;
		}
	}
	rc = store_pack_write(h.pack, packdir, name, err);
	if (!rc)
		git_odb_refresh(h.odb);
done:
	free(last);
	free(ids);
	free(h.map.key);
	free(h.map.val);
	store_pack_free(h.pack);
	git_odb_free(h.odb);
	return rc;
}

/* ---- catan gc ---- */

/*
 * Removes what the new pack (index `keep` in `packdir`) makes redundant:
 * every other pack without a .keep file, and every loose object the new
 * pack holds (an object it does not hold is left alone).
 */
static void drop_redundant(const char *objdir, const char *packdir,
			   const char *keep)
{
	git_odb_backend *pack = NULL;
	char path[8800];
	DIR *d;
	struct dirent *e;
	snprintf(path, sizeof path, "%s/pack-%s.idx", packdir, keep);
	if (git_odb_backend_one_pack(&pack, path))
		return;
	if ((d = opendir(packdir))) {
		while ((e = readdir(d))) {
			size_t n = strlen(e->d_name);
			if (strncmp(e->d_name, "pack-", 5) ||
			    strstr(e->d_name, keep) || n < 10 ||
			    strcmp(e->d_name + n - 5, ".pack"))
				continue;
			char stem[8600];
			snprintf(stem, sizeof stem, "%s/%.*s", packdir,
				 (int)(n - 5), e->d_name);
			snprintf(path, sizeof path, "%s.keep", stem);
			if (access(path, F_OK) == 0)
				continue;
			snprintf(path, sizeof path, "%s.idx", stem);
			unlink(path);
			snprintf(path, sizeof path, "%s.pack", stem);
			unlink(path);
		}
		closedir(d);
	}
	for (int x = 0; x < 256; x++) {
		char sub[4200];
		snprintf(sub, sizeof sub, "%s/%02x", objdir, x & 0xff);
		if (!(d = opendir(sub)))
			continue;
		while ((e = readdir(d))) {
			char hex[GIT_OID_HEXSZ + 1];
			git_oid id;
			if (strlen(e->d_name) != GIT_OID_HEXSZ - 2)
				continue;
			snprintf(hex, sizeof hex, "%02x%.38s", x, e->d_name);
			if (git_oid_fromstr(&id, hex) ||
			    pack->exists(pack, &id) != 1)
				continue;
			snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
			unlink(path);
		}
		closedir(d);
		rmdir(sub); /* only if empty */
	}
	pack->free(pack);
}

int catan_store_gc(catan_store *s, catan_err *err)
{
	git_revwalk *walk = NULL;
	char objdir[4096], packdir[4200], name[GIT_OID_HEXSZ + 1];
	int rc = -1;
	if (s->batch)
		return store_fail(err, "flush the batch before a gc");
	snprintf(objdir, sizeof objdir, "%sobjects",
		 git_repository_path(s->repo));
	snprintf(packdir, sizeof packdir, "%s/pack", objdir);
	store_quarantine_untrack(s); /* (what was refused goes) */
	if (git_revwalk_new(&walk, s->repo) ||
	    git_revwalk_push_glob(walk, "refs/*")) {
		store_git_fail(err, "walking the history");
		goto done;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	if (store_pack_history(s->repo, walk, NULL, packdir, name, err))
		goto done;
	if (name[0]) {
		drop_redundant(objdir, packdir, name);
		git_odb_refresh(s->odb);
	}
	rc = 0;
done:
	git_revwalk_free(walk);
	return rc;
}
