/*
 * oidmap.c - the object id map of oidmap.h: linear probing in a power of
 * two table kept at most half full.
 */
#include "oidmap.h"

#include <stdlib.h>
#include <string.h>

static size_t oidmap_slot(const oid_map *m, const git_oid *id)
{
	size_t h;
	memcpy(&h, id->id, sizeof h);
	h &= m->cap - 1;
	while (m->val[h] >= 0 && !git_oid_equal(&m->key[h], id))
		h = (h + 1) & (m->cap - 1);
	return h;
}

int store_oidmap_get(const oid_map *m, const git_oid *id)
{
	return m->cap ? m->val[oidmap_slot(m, id)] : -1;
}

bool store_oidmap_put(oid_map *m, const git_oid *id, int val)
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
				store_oidmap_put(&big, &m->key[i], m->val[i]);
		free(m->key);
		free(m->val);
		*m = big;
	}
	size_t h = oidmap_slot(m, id);
	if (m->val[h] < 0)
		m->n++;
	git_oid_cpy(&m->key[h], id);
	m->val[h] = val;
	return true;
}

int store_oidmap_add(oid_map *m, const git_oid *id)
{
	if (store_oidmap_get(m, id) >= 0)
		return 0;
	return store_oidmap_put(m, id, 0) ? 1 : -1;
}

bool store_oidmap_has(const oid_map *m, const git_oid *id)
{
	return store_oidmap_get(m, id) >= 0;
}

void store_oidmap_free(oid_map *m)
{
	if (!m)
		return;
	free(m->key);
	free(m->val);
	m->key = NULL;
	m->val = NULL;
	m->cap = m->n = 0;
}
