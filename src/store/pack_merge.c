/*
 * pack_merge.c - layer 1 (leaf): merging packs by copying their entries as
 * they are (store_pack_merge), read through their indexes, every offset
 * and length checked against the pack before it is used.
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

#include "fuzz_internal.h"
#include "pack_internal.h"

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

/*
 * Writes the object count into the header of the pack `out` and appends
 * the pack's SHA-1; out has the room for it (SHA1_DIGEST_SIZE). Cannot
 * fail.
 */
static void seal(bytes *out, uint32_t count)
{
	for (int i = 0; i < 4; i++)
		out->p[8 + i] = (unsigned char)(count >> (24 - 8 * i));
	struct sha1_ctx ctx;
	sha1_init(&ctx);
	sha1_update(&ctx, out->len, out->p);
	sha1_digest(&ctx, SHA1_DIGEST_SIZE, out->p + out->len);
	out->len += SHA1_DIGEST_SIZE;
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
		char path[STORE_PATH_MAX];
		size_t plen = 0, ilen = 0;
		uint32_t count = 0;
		unsigned char *pack =
		    store_path(path, sizeof path, "%s/%s.pack", packdir,
			       stems[k])
			? NULL
			: slurp(path, &plen);
		unsigned char *idx =
		    pack && !store_path(path, sizeof path, "%s/%s.idx", packdir,
					stems[k])
			? slurp(path, &ilen)
			: NULL;
		src_entry *e =
		    idx ? read_entries(idx, ilen, pack, plen, &count) : NULL;
		bool ok = e != NULL;
		if (!ok)
			store_fail(err, "cannot read pack %s", stems[k]);
		for (uint32_t i = 0; ok && i < count; i++) {
			git_oid id;
			git_oid_fromraw(&id, e[i].id);
			if (store_oidmap_get(&seen, &id) >= 0)
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
			    !store_oidmap_put(&seen, &id, (int)nix))
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
				/* (0 would name the entry itself.) */
				const src_entry *b =
				    ofs > 0 && ofs <= e[i].offset
					? entry_at(e, count, e[i].offset - ofs)
					: NULL;
				git_oid bid;
				int bk = -1;
				if (b) {
					git_oid_fromraw(&bid, b->id);
					bk = store_oidmap_get(&seen, &bid);
				}
				if (bk < 0 || (c & 0x80)) {
					ok = false;
					store_fail(err,
						   "pack %s: a delta "
						   "without its base",
						   stems[k]);
					break;
				}
				store_pack_put_ofs(&out, at - ix[bk].offset);
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
	seal(&out, (uint32_t)nix);
	rc = store_pack_write_files(packdir, out.p, out.len, ix, nix, name,
				    false, err);
	goto done;
oom:
	store_fail(err, "out of memory merging packs");
done:
	free(out.p);
	free(ix);
	store_oidmap_free(&seen);
	return rc;
}

long store_fuzz_pack_entries(const unsigned char *idx, size_t idx_len,
			     const unsigned char *pack, size_t len,
			     uint64_t *offset, uint64_t *end,
			     const unsigned char **id, size_t max)
{
	uint32_t n = 0;
	src_entry *e = read_entries(idx, idx_len, pack, len, &n);
	if (!e)
		return -1;
	for (uint32_t i = 0; i < n && i < max; i++) {
		offset[i] = e[i].offset;
		end[i] = e[i].end;
		id[i] = e[i].id;
	}
	free(e);
	return (long)n;
}
