/*
 * delta.c - layer 1 (leaf): Git's delta format, encoded (pack.h,
 * store_delta_encode). Pure: bytes in, bytes out.
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
