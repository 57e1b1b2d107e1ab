/*
 * base.c - layer 0: errors into a catan_err, a growing array, the sync
 * limits and their clock, the report log, and file-system steps on paths
 * (claiming a directory, fsync and syncfs, dropping git's template files).
 * Uses nothing of the store; everything else may use it (base.h).
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
#define _XOPEN_SOURCE 700

#include <git2/sys/repository.h>
#include <zlib.h>

#include "base.h"

static int vfail(catan_err *err, int code, const char *fmt, va_list ap)
{
	if (!err)
		return -1;
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	err->code = code;
	return -1;
}

int store_fail(catan_err *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(err, CATAN_STORE_E_FAILED, fmt, ap);
	va_end(ap);
	return -1;
}

int store_fail_code(catan_err *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int store_code(catan_err *err, int code)
{
	if (err)
		err->code = code;
	return -1;
}

int store_errno_code(int e)
{
	switch (e) {
	case EACCES:
	case EPERM:
	case EROFS:
		return CATAN_STORE_E_DENIED;
	case ENOENT:
		return CATAN_STORE_E_NOT_FOUND;
	case EEXIST:
		return CATAN_STORE_E_LOCKED;
	default:
		return CATAN_STORE_E_FAILED;
	}
}

int store_path(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out, size, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < size)
		return 0;
	if (size)
		out[0] = '\0';
	errno = ENAMETOOLONG;
	return -1;
}

int store_git_fail(catan_err *err, const char *what)
{
	const git_error *e = git_error_last();
	int code = CATAN_STORE_E_FAILED;
	if (e && (e->klass == GIT_ERROR_NET || e->klass == GIT_ERROR_SSH ||
		  e->klass == GIT_ERROR_HTTP || e->klass == GIT_ERROR_SSL ||
		  e->klass == GIT_ERROR_CALLBACK))
		code = CATAN_STORE_E_NETWORK;
	else if (e && e->klass == GIT_ERROR_ZLIB)
		code = CATAN_STORE_E_CORRUPT; /* a stored object that inflates
						 to nothing sensible */
	return store_fail_code(err, code, "%s: %s", what,
			       e && e->message ? e->message : "unknown error");
}

int store_git_fail_rc(catan_err *err, int rc, const char *what)
{
	store_git_fail(err, what);
	if (rc == GIT_ENOTFOUND)
		return store_code(err, CATAN_STORE_E_NOT_FOUND);
	if (rc == GIT_ELOCKED)
		return store_code(err, CATAN_STORE_E_LOCKED);
	if (rc == GIT_EMISMATCH)
		return store_code(err, CATAN_STORE_E_CORRUPT);
	return -1;
}

int store_claim_dir(const char *path, const char *what, catan_err *err)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return 0;
	if (!S_ISDIR(sb.st_mode))
		return store_fail_code(err, CATAN_STORE_E_DENIED,
				       "%s exists and is not a directory",
				       path);
	if (rmdir(path) != 0) /* only an empty directory may exist */
		return store_fail_code(err, CATAN_STORE_E_DENIED,
				       "%s exists and is not empty: refusing "
				       "to %s",
				       path, what);
	return 0;
}

void *store_reserve(void *a, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return a;
	size_t n = *cap * 2 > need ? *cap * 2 : need;
	if (n < 16)
		n = 16;
	if (n > SIZE_MAX / elem)
		return NULL;
	void *more = realloc(a, n * elem);
	if (more)
		*cap = n;
	return more;
}

void store_oid_hex(catan_commit_id *out, const git_oid *id)
{
	if (out)
		git_oid_tostr(out->hex, sizeof out->hex, id);
}

const char *store_evidence_name(int k)
{
	return k ? STORE_EVIDENCE_REF "b" : STORE_EVIDENCE_REF "a";
}

int store_evidence_index(const char *ref, size_t len)
{
	const size_t ne = sizeof STORE_EVIDENCE_REF - 1;
	if (len != ne + 1 || memcmp(ref, STORE_EVIDENCE_REF, ne) ||
	    (ref[ne] != 'a' && ref[ne] != 'b'))
		return -1;
	return ref[ne] - 'a';
}

bool store_tracking_ref(char *out, size_t size, const char *remote,
			const char *ref)
{
	int len = -1, k = store_evidence_index(ref, strlen(ref));
	if (!strncmp(ref, "refs/heads/", 11) && ref[11])
		len =
		    snprintf(out, size, "refs/remotes/%s/%s", remote, ref + 11);
	else if (k >= 0)
		len = snprintf(out, size, "refs/catan/evidence/%s/%c", remote,
			       'a' + k);
	return len > 0 && (size_t)len < size;
}

/* A positive integer from the environment, or `dflt`. */
static long env_limit(const char *name, long dflt)
{
	const char *v = getenv(name);
	char *end = NULL;
	long n = v ? strtol(v, &end, 10) : 0;
	return v && end && end != v && !*end && n > 0 ? n : dflt;
}

void store_limits_read(store_limits *out)
{
	out->commits =
	    env_limit("CATAN_SYNC_MAX_COMMITS", STORE_DEFAULT_COMMITS);
	out->message =
	    env_limit("CATAN_SYNC_MAX_MESSAGE", STORE_DEFAULT_MESSAGE);
	out->object = env_limit("CATAN_SYNC_MAX_OBJECT", STORE_MAX_OBJECT);
	if (out->object >
	    STORE_MAX_OBJECT) /* (the readers' buffers: lower only) */
		out->object = STORE_MAX_OBJECT;
	out->fetch_bytes =
	    env_limit("CATAN_SYNC_MAX_FETCH_BYTES", STORE_DEFAULT_FETCH_BYTES);
	out->remote_ms =
	    env_limit("CATAN_SYNC_REMOTE_MS", STORE_DEFAULT_REMOTE_MS);
}

double store_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

bool store_past_deadline(const store_budget *b)
{
	return b->deadline_ms > 0 && store_now_ms() > b->deadline_ms;
}

int store_syncfs_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = syncfs(fd), e = errno;
	close(fd);
	errno = e;
	return rc;
}

static int remove_one(const char *p, const struct stat *sb, int flag,
		      struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

void store_remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void store_remove_named(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[STORE_PATH_MAX];
	size_t n = strlen(prefix);
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, prefix, n) &&
		    store_path(path, sizeof path, "%s/%s", dir, e->d_name) == 0)
			store_remove_tree(path);
	if (d)
		closedir(d);
}

int store_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

int store_descends(git_repository *repo, const git_oid *desc,
		   const git_oid *old)
{
	enum { WALK = 64 };
	git_oid seen[WALK];
	int n = 0, next = 0;
	seen[n++] = *desc;
	while (next < n) {
		git_commit *c = NULL;
		if (git_oid_equal(&seen[next], old))
			return 1;
		if (git_commit_lookup(&c, repo, &seen[next])) {
			git_odb *odb = NULL;
			bool absent = git_repository_odb(&odb, repo) == 0 &&
				      !git_odb_exists(odb, &seen[next]);
			git_odb_free(odb);
			return absent ? -2 : -1;
		}
		next++;
		unsigned np = git_commit_parentcount(c);
		for (unsigned i = 0; i < np; i++) {
			const git_oid *p = git_commit_parent_id(c, i);
			bool dup = false;
			for (int k = 0; k < n && !dup; k++)
				dup = git_oid_equal(&seen[k], p);
			if (dup)
				continue;
			if (n == WALK) {
				git_commit_free(c);
				int rc =
				    git_graph_descendant_of(repo, desc, old);
				return rc == GIT_ENOTFOUND ? -2
				       : rc < 0		   ? -1
							   : rc;
			}
			seen[n++] = *p;
		}
		git_commit_free(c);
	}
	return 0;
}

int store_fsync_repo(const char *path, catan_err *err)
{
	char parent[STORE_PATH_MAX];
	if (store_path(parent, sizeof parent, "%s", path))
		return store_fail(err, "cannot fsync %s: %s", path,
				  strerror(errno));
	char *sl = strrchr(parent, '/');
	if (sl && sl != parent)
		*sl = '\0';
	else
		snprintf(parent, sizeof parent, "%s", sl ? "/" : ".");
	/*
	 * One flush for the whole file system rather than an fsync of each
	 * file and directory (a join wrote some sixty): the directory
	 * holding the repository too, unless it is on another file system.
	 */
	struct stat a, b;
	if (store_syncfs_dir(path) || stat(path, &a) || stat(parent, &b) ||
	    (a.st_dev != b.st_dev && store_fsync_dir(parent)))
		return store_fail(err, "cannot fsync %s: %s", path,
				  strerror(errno));
	return 0;
}

/*
 * What `git init` copies from its template and a game never uses: the
 * sample hooks, info/exclude (a bare repository has no working tree), the
 * gitweb description, and two empty directories. Stock git recreates none
 * of them and needs none of them (HEAD, objects/ and refs/ make a
 * repository), so a game is left without them: they were most of a short
 * game's .git. Failures are ignored: what stays is only a few bytes.
 */
void store_drop_template(const char *gitdir)
{
	static const char *const files[] = {
	    "description",
	    "info/exclude",
	    "hooks/README.sample",
	    "hooks/applypatch-msg.sample",
	    "hooks/commit-msg.sample",
	    "hooks/post-update.sample",
	    "hooks/pre-applypatch.sample",
	    "hooks/pre-commit.sample",
	    "hooks/pre-push.sample",
	    "hooks/pre-rebase.sample",
	    "hooks/prepare-commit-msg.sample",
	    "hooks/update.sample",
	};
	static const char *const dirs[] = {"info", "hooks", "refs/tags",
					   "objects/info"};
	char path[STORE_PATH_MAX];
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		if (store_path(path, sizeof path, "%s%s", gitdir, files[i]) ==
		    0)
			unlink(path);
	}
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		if (store_path(path, sizeof path, "%s%s", gitdir, dirs[i]) == 0)
			rmdir(path); /* only if empty: anything else is not ours
				      */
	}
}

void store_note(catan_sync_report *rep, const char *fmt, ...)
{
	va_list ap;
	size_t len = strlen(rep->log);
	if (len + 2 >= sizeof rep->log)
		return;
	va_start(ap, fmt);
	vsnprintf(rep->log + len, sizeof rep->log - len, fmt, ap);
	va_end(ap);
	len = strlen(rep->log);
	if (len + 1 < sizeof rep->log) {
		rep->log[len] = '\n';
		rep->log[len + 1] = '\0';
	}
}
