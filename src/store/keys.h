/*
 * keys.h - layer 7 (top): creating a signed game and loading the keys a
 * repository signs with (keys.c; the public side is catan/store.h).
 */
#ifndef CATAN_STORE_KEYS_H
#define CATAN_STORE_KEYS_H

#include "repo.h"

/*
 * Creates a game (catan_store_create_ext); a signed game's genesis is signed
 * with `first`, the first seat's key (NULL for an unsigned game). store.c.
 */
int store_create(catan_store **out, const char *path, const catan_game *g,
		 catan_time_mode time, bool batch, const catan_key *first,
		 catan_err *err);

/*
 * Loads the keys the repository's config names (catan.key, one or more
 * paths) into the seats they belong to; what fails is noted in key_note
 * for the error of a later commit. Cannot fail. keys.c.
 */
void store_keys_load(catan_store *s);

#endif
