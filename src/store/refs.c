/*
 * refs.c - layer 2: where a branch moves. A loose ref written as git does
 * (lock file, reflog line, syncfs, rename, fsync of the directory), only
 * forward (store_is_ancestor), and the branch tips read or held for a
 * sync. A sync's moves go through packed_refs.c instead.
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

#include "repo.h"

/*
 * Appends the reflog line libgit2 writes for a move to logs/<ref> (made
 * when missing if every ref is logged). 0 or -1 (errno).
 */
static int append_log(catan_store *s, const char *ref, const char *line,
		      size_t len)
{
	char path[STORE_PATH_MAX];
	if (store_path(path, sizeof path, "%slogs/%s",
		       git_repository_path(s->repo), ref))
		return -1;
	int flags =
	    O_WRONLY | O_APPEND | O_CLOEXEC | (s->log_all ? O_CREAT : 0);
	int fd = open(path, flags, 0666);
	if (fd < 0 && errno == ENOENT && s->log_all) {
		for (char *sl = strchr(
			 path + strlen(git_repository_path(s->repo)), '/');
		     sl; sl = strchr(sl + 1, '/')) {
			*sl = '\0';
			mkdir(path, 0777);
			*sl = '/';
		}
		fd = open(path, flags, 0666);
	}
	if (fd < 0)
		return errno == ENOENT && !s->log_all ? 0 : -1;
	int rc = write(fd, line, len) == (ssize_t)len ? 0 : -1;
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

/*
 * Moves the loose ref `ref` from old (NULL: it must not exist) to id as
 * libgit2 and git do: <ref>.lock created, the id written, the reflog line
 * appended (logs/HEAD's too when HEAD names ref), the lock renamed over
 * the ref. Durable with two flushes of the disk's cache rather than
 * libgit2's six: one syncfs once the lock file, the reflog lines and the
 * action's loose objects are written (objects_batch), so all of them are
 * on disk before the rename; one fsync of the ref's directory after it.
 * Returns 0; GIT_ELOCKED when the lock file exists (nothing touched),
 * GIT_EMODIFIED when the ref is not at old, -1 with errno on an I/O error
 * (the ref not moved, unless only the directory's fsync failed).
 */
static int write_ref(catan_store *s, const char *ref, const git_oid *old,
		     const git_oid *id, const char *why)
{
	const char *gitdir = git_repository_path(s->repo);
	char path[STORE_PATH_MAX], lock[STORE_PATH_MAX], line[700];
	char ohex[GIT_OID_HEXSZ + 1], nhex[GIT_OID_HEXSZ + 1];
	if (store_path(path, sizeof path, "%s%s", gitdir, ref) ||
	    store_path(lock, sizeof lock, "%s.lock", path))
		return -1;
	int fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0)
		return errno == EEXIST ? GIT_ELOCKED : -1;
	int rc = -1, e = 0;
	git_oid cur;
	bool have = git_reference_name_to_id(&cur, s->repo, ref) == 0;
	if (old ? !have || !git_oid_equal(&cur, old) : have) {
		rc = GIT_EMODIFIED;
		goto fail;
	}
	git_oid_tostr(nhex, sizeof nhex, id);
	if (old)
		git_oid_tostr(ohex, sizeof ohex, old);
	else
		memset(ohex, '0', GIT_OID_HEXSZ), ohex[GIT_OID_HEXSZ] = '\0';
	nhex[GIT_OID_HEXSZ] = '\n';
	if (write(fd, nhex, GIT_OID_HEXSZ + 1) != GIT_OID_HEXSZ + 1)
		goto fail;
	nhex[GIT_OID_HEXSZ] = '\0';
	/* The line libgit2 writes: its date as git_signature_now's. */
	time_t now = time(NULL);
	struct tm utc;
	gmtime_r(&now, &utc);
	utc.tm_isdst = -1;
	long off = (long)difftime(now, mktime(&utc)) / 60;
	int len =
	    snprintf(line, sizeof line, "%s %s %s %lld %c%02ld%02ld\t%s\n",
		     ohex, nhex, s->ident, (long long)now, off < 0 ? '-' : '+',
		     labs(off) / 60, labs(off) % 60, why);
	if (len <= 0 || len >= (int)sizeof line)
		len = (int)sizeof line - 1, line[len - 1] = '\n';
	for (char *c = strchr(line, '\t'); c && *c; c++)
		if (*c == '\n' && c != line + len - 1)
			*c = ' ';
	git_reference *head = NULL;
	bool via_head = git_reference_lookup(&head, s->repo, "HEAD") == 0 &&
			git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
			!strcmp(git_reference_symbolic_target(head), ref);
	git_reference_free(head);
	if (append_log(s, ref, line, (size_t)len) ||
	    (via_head && append_log(s, "HEAD", line, (size_t)len)))
		goto fail;
	if (store_syncfs(s))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(lock, path))
		goto fail;
	char *sl = strrchr(path, '/');
	*sl = '\0';
	return store_fsync_dir(path) ? -1 : 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(lock);
	errno = e;
	return rc;
}

/* Moves refs/heads/<player> from `old` (may be NULL: create) to `id`. */
int store_move_branch(catan_store *s, int player, const git_oid *old,
		      const git_oid *id, const char *why, catan_err *err)
{
	char ref[128];
	snprintf(ref, sizeof ref, "refs/heads/%s", s->game.names.name[player]);
	if (old && !git_oid_equal(old, id)) {
		int d = store_is_ancestor(s, old, id);
		if (d != 1)
			return store_fail_code(err, CATAN_STORE_E_DENIED,
					       "refusing to move %s: not a "
					       "fast-forward",
					       ref);
	}
	if (s->batch) {
		git_oid_cpy(&s->tips[player], id);
		return 0;
	}
	/*
	 * <ref>.lock, said first in catan.lock (see store_intent). Held by
	 * another program, it is tried again for up to 100 ms, as git does
	 * (core.filesRefLockTimeout), and left alone.
	 */
	char lock[140];
	size_t mark = s->intent_len;
	snprintf(lock, sizeof lock, "%s.lock", ref);
	if (store_intent(s, lock))
		return store_fail(err, "cannot write to catan.lock: %s",
				  strerror(errno));
	int rc;
	for (int tries = 0;; tries++) {
		rc = write_ref(s, ref, old, id, why);
		if (rc != GIT_ELOCKED || tries == 10)
			break;
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	store_intent_done(s, mark);
	if (rc) {
		s->tips_held = false; /* where is it now? read it again */
		if (rc == GIT_ELOCKED)
			return store_fail_code(
			    err, CATAN_STORE_E_LOCKED,
			    "moving the branch: %s%s: File exists. Another git "
			    "process seems to be running in this repository; "
			    "if none is, remove the file",
			    git_repository_path(s->repo), lock);
		if (rc == GIT_EMODIFIED)
			return store_fail_code(err, CATAN_STORE_E_LOCKED,
					       "moving the branch: %s moved "
					       "meanwhile",
					       ref);
		return store_fail(err, "moving the branch %s: %s", ref,
				  strerror(errno));
	}
	if (s->tips_held)
		git_oid_cpy(&s->held_tips[player], id);
	return 0;
}

int store_rewind_branch(catan_store *s, int player, const git_oid *old,
			const git_oid *to, catan_err *err)
{
	char ref[128], lock[140];
	snprintf(ref, sizeof ref, "refs/heads/%s", s->game.names.name[player]);
	snprintf(lock, sizeof lock, "%s.lock", ref);
	if (store_is_ancestor(s, to, old) != 1)
		return store_fail(err,
				  "refusing to move %s back: not an "
				  "ancestor",
				  ref);
	size_t mark = s->intent_len;
	if (store_intent(s, lock))
		return store_fail(err, "cannot write to catan.lock: %s",
				  strerror(errno));
	int rc = write_ref(s, ref, old, to, "catan: equivocation verdict");
	store_intent_done(s, mark);
	s->tips_held = false;
	if (rc)
		return store_fail(err, "moving %s back: %s", ref,
				  rc == GIT_ELOCKED ? "locked"
						    : "moved meanwhile");
	return 0;
}

int store_branch_tip(git_oid *out, catan_store *s, int player)
{
	char ref[128];
	if (s->batch) {
		git_oid_cpy(out, &s->tips[player]);
		return 0;
	}
	if (s->tips_held) {
		git_oid_cpy(out, &s->held_tips[player]);
		return 0;
	}
	snprintf(ref, sizeof ref, "refs/heads/%s", s->game.names.name[player]);
	return git_reference_name_to_id(out, s->repo, ref);
}

int store_hold_tips(catan_store *s)
{
	s->tips_held = false;
	for (int p = 0; p < s->game.opt.nplayers; p++)
		if (store_branch_tip(&s->held_tips[p], s, p))
			return -1;
	s->tips_held = true;
	return 0;
}
