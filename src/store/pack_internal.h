/*
 * pack_internal.h - what the pack files share (layer 1: leaves): pack.c
 * (the writer), pack_merge.c (merging packs) and pack_history.c (a
 * history as one pack). Nothing outside the pack files includes it.
 */
#ifndef CATAN_STORE_PACK_INTERNAL_H
#define CATAN_STORE_PACK_INTERNAL_H

#include "base.h"
#include "bytes.h"
#include "oidmap.h"
#include "pack.h"

/* The pack entry type of a delta against an earlier entry (an offset). */
#define OBJ_OFS_DELTA 6

/* An object of a pack as its index lists it. */
typedef struct idx_entry {
	git_oid id;
	uint32_t crc;
	uint64_t offset;
} idx_entry;

/* Appends the negative offset of an OFS_DELTA's base (Git's encoding). */
void store_pack_put_ofs(bytes *b, size_t ofs);

/*
 * Stores the finished pack[0..len) (ending with its SHA-1) and the index
 * of its n entries e (sorted here) in packdir as pack-<SHA-1>.pack and
 * .idx (see pack.c); with `later`, the directory is not fsync'ed after
 * (the caller flushes before anything points into the pack). name (41
 * bytes, or NULL) receives the hex. Returns 0, or -1 with err.
 */
int store_pack_write_files(const char *packdir, const unsigned char *pack,
			   size_t len, idx_entry *e, size_t n, char *name,
			   bool later, catan_err *err);

#endif
