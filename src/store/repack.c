/*
 * repack.c - layer 6: the small packs syncs leave, merged into one past a
 * limit (store_pack_merge), the object database then rescanned.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2/sys/repository.h>
#include <zlib.h>

#include "exchange.h"

/*
 * Every sync that brings something leaves a small pack; looking an object
 * up costs a probe per pack, so syncs would slow down as a game goes on.
 * Past `limit` packs, the small ones are merged into one (their entries
 * copied as they are, store_pack_merge) and removed: the work is what came
 * since the last merge, not the whole history, and the packs stay few (the
 * merged pack becomes the largest in its turn, as in git's geometric
 * repacking). An open mapping of a removed pack stays valid; the object
 * database is then rescanned. Best effort: on any failure nothing is
 * removed.
 */
typedef struct pack_size {
	int index;
	off_t bytes;
} pack_size;

static int by_size(const void *a, const void *b)
{
	const pack_size *x = a, *y = b;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/*
 * A new object database for the handle, once packs were removed: libgit2
 * 1.5 adds the packs a rescan finds but never forgets a removed one, so
 * every lookup of a missing object would go on probing every pack the
 * handle ever saw (and a sync looks up objects it does not have yet).
 * On failure the old one stays (still valid: a removed pack stays mapped).
 */
static void reopen_odb(catan_store *s)
{
	char dir[STORE_PATH_MAX];
	git_odb *fresh = NULL;
	if (store_path(dir, sizeof dir, "%sobjects",
		       git_repository_path(s->repo)) ||
	    git_odb_open(&fresh, dir)) {
		git_odb_refresh(s->odb);
		return;
	}
	git_repository_set_odb(s->repo, fresh); /* takes its own reference */
	git_odb_free(s->odb);
	s->odb = fresh;
}

void store_repack_if_needed(catan_store *s, int limit)
{
	char dir[STORE_PATH_MAX], path[STORE_PATH_MAX];
	DIR *d = store_path(dir, sizeof dir, "%sobjects/pack",
			    git_repository_path(s->repo))
		     ? NULL
		     : opendir(dir);
	struct dirent *e;
	char(*name)[64] = NULL; /* "pack-<40 hex>" of each pack */
	pack_size *size = NULL;
	int n = 0;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len != 50 || strncmp(e->d_name, "pack-", 5) ||
		    strcmp(e->d_name + 45, ".pack"))
			continue;
		void *more = realloc(name, sizeof *name * (size_t)(n + 1));
		if (!more)
			break;
		name = more;
		if (!(more = realloc(size, sizeof *size * (size_t)(n + 1))))
			break;
		size = more;
		snprintf(name[n], sizeof name[n], "%.45s", e->d_name);
		size[n].index = n;
		size[n].bytes = 0;
		n++;
	}
	if (d)
		closedir(d);
	bool ok = n > limit;
	/* The sizes only when there is something to merge (most syncs that
	 * bring a pack leave fewer than the limit). */
	for (int i = 0; ok && i < n; i++) {
		struct stat sb;
		if (store_path(path, sizeof path, "%s/%s.pack", dir, name[i]) ==
			0 &&
		    stat(path, &sb) == 0)
			size[i].bytes = sb.st_size;
	}
	/*
	 * Which to merge: by size, smallest first, the longest run whose
	 * total stays below half the next pack (that one and the larger ones
	 * are kept), but at least all but the largest when that run would
	 * leave too many. Each object is rewritten about log2(game) times.
	 */
	if (ok)
		qsort(size, (size_t)n, sizeof *size, by_size);
	int merge = 0;
	off_t total = 0;
	while (ok && merge < n - 1 &&
	       (n - merge > limit / 2 ||
		2 * (total + size[merge].bytes) < size[merge + 1].bytes)) {
		total += size[merge].bytes;
		merge++;
	}
	const char **stems = ok ? malloc(sizeof *stems * (size_t)merge) : NULL;
	char keep[GIT_OID_HEXSZ + 1];
	catan_err err;
	for (int i = 0; stems && i < merge; i++)
		stems[i] = name[size[i].index];
	ok = stems && store_pack_merge(dir, stems, merge, keep, &err) == 0;
	for (int i = 0; ok && i < merge; i++) {
		if (strstr(name[size[i].index], keep))
			continue;
		if (store_path(path, sizeof path, "%s/%s.idx", dir,
			       name[size[i].index]) == 0)
			unlink(path);
		if (store_path(path, sizeof path, "%s/%s.pack", dir,
			       name[size[i].index]) == 0)
			unlink(path);
	}
	if (ok)
		reopen_odb(s);
	free(stems);
	free(name);
	free(size);
}
