/*
 * pack.c - layer 1 (leaf): our own pack writer (see pack.h): every object
 * as a delta against its natural base when that is smaller, compressed,
 * and the pack's version 2 index written from what the writer knows, both
 * files made durable before anything points at them.
 */
#define _XOPEN_SOURCE 700

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

#include "pack_internal.h"

/* ---- the pack ---- */

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
void store_pack_put_ofs(bytes *b, size_t ofs)
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
		store_pack_put_ofs(&p->out, o->offset - p->obj[base].offset);
	} else {
		put_obj_header(&p->out, (int)type, len);
	}
	bytes_put(&p->out, z->p, z->len);
	object_id(&o->id, type, data, len);
	o->crc = (uint32_t)crc32(0, p->out.p + o->offset,
				 (uInt)(p->out.len - o->offset));
	if (store_oidmap_get(&p->ids, &o->id) < 0 &&
	    !store_oidmap_put(&p->ids, &o->id, p->n))
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
		if (store_oidmap_get(&ids, &p->obj[i].id) < 0 &&
		    !store_oidmap_put(&ids, &p->obj[i].id, i)) {
			store_oidmap_free(&ids);
			return -1;
		}
	for (int i = n; i < p->n; i++)
		free(p->obj[i].data);
	p->out.len = p->obj[n].offset;
	p->n = n;
	store_oidmap_free(&p->ids);
	p->ids = ids;
	return 0;
}

const git_oid *store_pack_id(const store_pack *p, int i)
{
	return &p->obj[i].id;
}

int store_pack_find(const store_pack *p, const git_oid *id)
{
	return store_oidmap_get(&p->ids, id);
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
	if (store_path(tmp, tmplen, "%s/tmp_pack_XXXXXX", dir))
		return -1;
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
 * syncfs for the two rather than an fsync each), the directory after,
 * unless `later`: the caller flushes before anything durable points into
 * the pack (a sync: store_stage_flush). name (41 bytes, or NULL) receives
 * the hex. Returns 0, or -1 with err.
 */
int store_pack_write_files(const char *packdir, const unsigned char *pack,
			   size_t len, idx_entry *e, size_t n, char *name,
			   bool later, catan_err *err)
{
	bytes idx = {NULL, 0, 0};
	char hex[GIT_OID_HEXSZ + 1], path[STORE_PATH_MAX];
	char tp[STORE_PATH_MAX] = "", ti[STORE_PATH_MAX] = "";
	git_oid sum;
	int rc = -1;
	git_oid_fromraw(&sum, pack + len - SHA1_DIGEST_SIZE);
	git_oid_tostr(hex, sizeof hex, &sum);
	if (!build_idx(&idx, e, n, sum.id)) {
		store_fail(err, "indexing the pack: out of memory or an "
				"object twice");
		goto done;
	}
	if (store_path(path, sizeof path, "%s/pack-%s.pack", packdir, hex) ||
	    write_tmp(tp, sizeof tp, packdir, pack, len) ||
	    write_tmp(ti, sizeof ti, packdir, idx.p, idx.len) ||
	    store_syncfs_dir(packdir) || rename(tp, path)) {
		store_fail_code(err, store_errno_code(errno), "writing %s: %s",
				path, strerror(errno));
		goto done;
	}
	tp[0] = '\0';
	if (store_path(path, sizeof path, "%s/pack-%s.idx", packdir, hex) ||
	    rename(ti, path)) {
		store_fail_code(err, store_errno_code(errno), "writing %s: %s",
				path, strerror(errno));
		goto done;
	}
	ti[0] = '\0';
	/* Both names on disk before any ref points into the pack. */
	if (!later && store_fsync_dir(packdir)) {
		store_fail_code(err, store_errno_code(errno), "fsync of %s: %s",
				packdir, strerror(errno));
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
	return store_pack_write_ext(p, packdir, name, false, err);
}

int store_pack_write_ext(store_pack *p, const char *packdir, char *name,
			 bool later, catan_err *err)
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
	int rc = store_pack_write_files(packdir, data, len, e, (size_t)p->n,
					name, later, err);
	free(e);
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
	store_oidmap_free(&p->ids);
	for (int k = 0; k < p->z_ready; k++)
		deflateEnd(&p->z[k / NSTRATEGY][k % NSTRATEGY]);
	free(p);
}
