/*
 * gc.c - layer 7 (top): catan gc. Refused histories untracked
 * (quarantine.c), the whole history written as one pack
 * (pack_history.c), and the packs and loose objects it replaces removed.
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

#include "exchange.h"

/* ---- catan gc ---- */

/*
 * Removes what the new pack (index `keep` in `packdir`) makes redundant:
 * every other pack without a .keep file, and every loose object the new
 * pack holds (an object it does not hold is left alone).
 */
static void drop_redundant(const char *objdir, const char *packdir,
			   const char *keep)
{
	git_odb_backend *pack = NULL;
	char path[STORE_PATH_MAX];
	DIR *d;
	struct dirent *e;
	if (store_path(path, sizeof path, "%s/pack-%s.idx", packdir, keep) ||
	    git_odb_backend_one_pack(&pack, path))
		return;
	if ((d = opendir(packdir))) {
		while ((e = readdir(d))) {
			size_t n = strlen(e->d_name);
			if (strncmp(e->d_name, "pack-", 5) ||
			    strstr(e->d_name, keep) || n < 10 ||
			    strcmp(e->d_name + n - 5, ".pack"))
				continue;
			char stem[STORE_PATH_MAX];
			if (store_path(stem, sizeof stem, "%s/%.*s", packdir,
				       (int)(n - 5), e->d_name) ||
			    store_path(path, sizeof path, "%s.keep", stem) ||
			    access(path, F_OK) == 0)
				continue; /* (kept, or not ours to name) */
			if (store_path(path, sizeof path, "%s.idx", stem) == 0)
				unlink(path);
			if (store_path(path, sizeof path, "%s.pack", stem) == 0)
				unlink(path);
		}
		closedir(d);
	}
	for (int x = 0; x < 256; x++) {
		char sub[STORE_PATH_MAX];
		if (store_path(sub, sizeof sub, "%s/%02x", objdir, x & 0xff) ||
		    !(d = opendir(sub)))
			continue;
		while ((e = readdir(d))) {
			char hex[GIT_OID_HEXSZ + 1];
			git_oid id;
			if (strlen(e->d_name) != GIT_OID_HEXSZ - 2)
				continue;
			snprintf(hex, sizeof hex, "%02x%.38s", x, e->d_name);
			if (git_oid_fromstr(&id, hex) ||
			    pack->exists(pack, &id) != 1)
				continue;
			if (store_path(path, sizeof path, "%s/%s", sub,
				       e->d_name) == 0)
				unlink(path);
		}
		closedir(d);
		rmdir(sub); /* only if empty */
	}
	pack->free(pack);
}

int catan_store_gc(catan_store *s, catan_err *err)
{
	git_revwalk *walk = NULL;
	char objdir[STORE_PATH_MAX], packdir[STORE_PATH_MAX];
	char name[GIT_OID_HEXSZ + 1];
	int rc = -1;
	if (s->batch)
		return store_fail(err, "flush the batch before a gc");
	if (store_path(objdir, sizeof objdir, "%sobjects",
		       git_repository_path(s->repo)) ||
	    store_path(packdir, sizeof packdir, "%s/pack", objdir))
		return store_fail(err, "%s: path too long",
				  git_repository_path(s->repo));
	store_quarantine_untrack(s); /* (what was refused goes) */
	/* (and what a whole fetch a crash cut left: sync.c) */
	store_remove_named(git_repository_path(s->repo), "catan-whole-");
	if (git_revwalk_new(&walk, s->repo) ||
	    git_revwalk_push_glob(walk, "refs/*")) {
		store_git_fail(err, "walking the history");
		goto done;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	if (store_pack_history(s->repo, walk, NULL, packdir, name, err))
		goto done;
	if (name[0]) {
		drop_redundant(objdir, packdir, name);
		git_odb_refresh(s->odb);
	}
	rc = 0;
done:
	git_revwalk_free(walk);
	return rc;
}
