/*
 * repo.c - layer 2: libgit2 set up for the store (fsync on, our TCP
 * stream registered), a new handle, the reflog identity, and syncfs of
 * the repository's file system.
 */
#define _GNU_SOURCE /* syncfs */

#include <git2/sys/mempack.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "net.h"
#include "repo.h"

/* ---- create and open ---- */

void store_lib_init(void)
{
	store_git_init();
	/* What libgit2 writes (loose objects, refs, reflogs, config) is
	 * fsync'ed, the directory after each rename too: see "Durability" in
	 * spec/format.md. */
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
	store_net_register();
}

int store_syncfs(catan_store *s)
{
	int rc = s->lock_fd >= 0
		     ? syncfs(s->lock_fd)
		     : store_syncfs_dir(git_repository_path(s->repo));
	if (rc == 0)
		s->pack_unnamed = false;
	return rc;
}

int store_pack_named(catan_store *s)
{
	char dir[STORE_PATH_MAX];
	if (!s->pack_unnamed)
		return 0;
	if (store_path(dir, sizeof dir, "%sobjects/pack",
		       git_repository_path(s->repo)) ||
	    store_fsync_dir(dir))
		return -1;
	s->pack_unnamed = false;
	return 0;
}

catan_store *store_new(void)
{
	catan_store *s = calloc(1, sizeof *s);
	if (s) {
		s->lock_fd = -1;
		store_lib_init();
	}
	return s;
}

/*
 * The name and e-mail address reflog lines carry, read once: libgit2
 * otherwise reads the whole configuration again for every ref it moves
 * (git_signature_default). The same as it would find: user.name and
 * user.email, or "unknown" for both when either is missing. Best effort.
 */
void store_reflog_ident(catan_store *s)
{
	git_config *cfg = NULL;
	git_buf name = {NULL, 0, 0}, email = {NULL, 0, 0};
	bool both = git_repository_config_snapshot(&cfg, s->repo) == 0 &&
		    git_config_get_string_buf(&name, cfg, "user.name") == 0 &&
		    git_config_get_string_buf(&email, cfg, "user.email") == 0 &&
		    name.ptr[0] && email.ptr[0];
	git_repository_set_ident(s->repo, both ? name.ptr : "unknown",
				 both ? email.ptr : "unknown");
	snprintf(s->ident, sizeof s->ident, "%s <%s>",
		 both ? name.ptr : "unknown", both ? email.ptr : "unknown");
	int all = 0;
	git_buf v = {NULL, 0, 0};
	s->log_all =
	    cfg && (git_config_get_bool(&all, cfg, "core.logAllRefUpdates") == 0
			? all
			: git_config_get_string_buf(
			      &v, cfg, "core.logAllRefUpdates") == 0 &&
			      !strcasecmp(v.ptr, "always"));
	git_buf_dispose(&v);
	git_buf_dispose(&name);
	git_buf_dispose(&email);
	git_config_free(cfg);
}
