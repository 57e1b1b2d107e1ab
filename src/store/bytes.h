/*
 * bytes.h - a growing byte buffer (layer 0: store base; used by the pack
 * writer, the delta encoder and the pack merger).
 *
 * Contract: a zeroed `bytes` is empty; bytes_reserve makes room (false
 * when out of memory, the buffer then untouched); bytes_put appends into
 * room already reserved. The owner frees b.p.
 */
#ifndef CATAN_STORE_BYTES_H
#define CATAN_STORE_BYTES_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct bytes {
	unsigned char *p;
	size_t len, cap;
} bytes;

static inline bool bytes_reserve(bytes *b, size_t more)
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
static inline void bytes_put(bytes *b, const void *data, size_t n)
{
	assert(b->cap - b->len >= n);
	if (n)
		memcpy(b->p + b->len, data, n);
	b->len += n;
}

#endif
