/*
 * oidmap.h - object id -> small integer, open addressing (layer 0: store
 * base). Used by the pack writer (id -> index in the pack), the pack
 * merger (ids already copied) and the history packer (id -> index).
 *
 * The one map keyed by object id in src/store: the pack writer's index
 * of objects, the history packer's, the pack merger's set of ids copied,
 * verify's table of checked commits (id -> entry number) and the sets of
 * the ancestry walks (graph.c, verify).
 *
 * Contract: a zeroed oid_map is empty; store_oidmap_get answers -1 for an
 * id not in it; store_oidmap_put inserts or replaces (false when out of
 * memory, the map then unchanged). store_oidmap_free releases it (NULL
 * and empty maps too). Ids are SHA-1s, uniformly distributed: the first
 * bytes are the hash.
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

/* As a set: adds id (value 0) when absent. 1 added, 0 present, -1 OOM. */
int store_oidmap_add(oid_map *m, const git_oid *id);
/* As a set: whether id is in m. Cannot fail. */
bool store_oidmap_has(const oid_map *m, const git_oid *id);
/* Frees what m holds (m itself is the caller's); empty again. */
void store_oidmap_free(oid_map *m);

#endif
