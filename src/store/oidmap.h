/*
 * oidmap.h - object id -> small integer, open addressing (layer 0: store
 * base). Used by the pack writer (id -> index in the pack), the pack
 * merger (ids already copied) and the history packer (id -> index).
 *
 * Contract: a zeroed oid_map is empty; store_oidmap_get answers -1 for an
 * id not in it; store_oidmap_put inserts or replaces (false when out of
 * memory, the map then unchanged). The owner frees key and val (free(3)).
 * Ids are SHA-1s, uniformly distributed: the first bytes are the hash.
 */
#ifndef CATAN_STORE_OIDMAP_H
#define CATAN_STORE_OIDMAP_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

typedef struct oid_map {
	git_oid *key;
	int *val; /* -1: empty slot */
	size_t cap, n;
} oid_map;

/* The value of id, or -1 when absent. Cannot fail. */
int store_oidmap_get(const oid_map *m, const git_oid *id);
/* Sets id to val (val >= 0). false: out of memory, m unchanged. */
bool store_oidmap_put(oid_map *m, const git_oid *id, int val);

#endif
