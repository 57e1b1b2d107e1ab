/*
 * lock.c - layer 2: the writer lock (catan.lock) and the lock files catan
 * records before it takes them, so that what a killed writer left behind,
 * and only that, is removed (spec/format.md, "Locks").
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
 * Lock files (spec/format.md, "Locks"). catan never removes a lock file it
 * cannot tell is its own: git and libgit2 take a lock by creating
 * <file>.lock with O_EXCL and give it up by renaming it over <file>, and a
 * stock git may hold one at any moment (git never removes another's lock
 * either: it fails with "File exists" and leaves it to the user).
 *
 * What catan may leave behind when killed is known because it says so
 * first: before a step that takes lock files, the writer appends to
 * catan.lock (which it holds an flock on) a line "<sec>.<nsec> <path>" for
 * each lock file the step may create, timed by the clock file timestamps
 * are taken from, and blanks those lines once the step is over (the
 * lock files renamed or removed). A path ending in "/" stands for every
 * *.lock under that directory (a fetch through libgit2, whose ref names
 * are not known before). A writer that finds lines there finds what a
 * killed writer was doing, and removes such a lock file only when it was
 * changed at or after the time of its line. A lock file older than its
 * line was there before the dead writer's step (taken by someone else,
 * which made that step fail) and stays.
 */
#define INTENT_MAX 4096

/* Whether rel is a lock file name catan may have recorded. */
static bool intent_path_ok(const char *rel, size_t n)
{
	return n > 5 &&
	       (!strcmp(rel + n - 5, ".lock") ||
		(rel[n - 1] == '/' && !strncmp(rel, "refs/", 5))) &&
	       rel[0] != '/' && !strstr(rel, "..") && !strchr(rel, '\n');
}

/*
 * Removes path when it is a lock file changed at or after sec.nsec; a
 * directory (a line ending in "/", depth 0) the same way, file by file.
 */
static void remove_if_newer(const char *path, long long sec, long nsec,
			    int depth)
{
	struct stat sb;
	size_t n = strlen(path);
	if (lstat(path, &sb))
		return;
	if (S_ISDIR(sb.st_mode) && depth >= 0 && depth < 8) {
		DIR *d = opendir(path);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char sub[STORE_PATH_MAX];
			if (e->d_name[0] == '.' ||
			    store_path(sub, sizeof sub, "%s/%s", path,
				       e->d_name))
				continue;
			remove_if_newer(sub, sec, nsec, depth + 1);
		}
		if (d)
			closedir(d);
		return;
	}
	if (S_ISREG(sb.st_mode) && n > 5 && !strcmp(path + n - 5, ".lock") &&
	    (sb.st_ctim.tv_sec > sec ||
	     (sb.st_ctim.tv_sec == sec && sb.st_ctim.tv_nsec >= nsec)))
		unlink(path);
}

int store_intent(catan_store *s, const char *rel)
{
	char line[600];
	struct timespec ts;
	if (s->lock_fd < 0 || s->readonly)
		return 0;
	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	int n = snprintf(line, sizeof line, "%lld.%09ld %s\n",
			 (long long)ts.tv_sec, ts.tv_nsec, rel);
	if (n <= 0 || n >= (int)sizeof line ||
	    s->intent_len + (size_t)n > INTENT_MAX)
		return -1;
	if (pwrite(s->lock_fd, line, (size_t)n, (off_t)s->intent_len) != n)
		return -1;
	s->intent_len += (size_t)n;
	return 0;
}

/*
 * Blanks bytes [from, to) of catan.lock: newlines, empty lines to a
 * reader. Lines are blanked rather than cut off because catan.lock keeps
 * its one block then: truncating it freed the block at every step, and
 * ext4 mounted with "discard" (as here) waits for the disk to discard
 * each freed block: 0.25 ms a truncation under strace, two per sync.
 */
static void blank(int fd, size_t from, size_t to)
{
	char nl[INTENT_MAX];
	if (to > from && to - from <= sizeof nl) {
		memset(nl, '\n', to - from);
		(void)!pwrite(fd, nl, to - from, (off_t)from);
	}
}

void store_intent_done(catan_store *s, size_t mark)
{
	if (s->lock_fd >= 0 && s->intent_len > mark) {
		blank(s->lock_fd, mark, s->intent_len);
		s->intent_len = mark;
	}
}

/*
 * Removes the lock files the lines of catan.lock name that a killed
 * writer left (see above), then blanks them. Holds the flock.
 */
static void recover_intents(catan_store *s)
{
	char buf[INTENT_MAX + 1], path[STORE_PATH_MAX];
	const char *gitdir = git_repository_path(s->repo);
	ssize_t len = pread(s->lock_fd, buf, INTENT_MAX, 0);
	if (len <= 0)
		return;
	buf[len] = '\0';
	bool blank_already = strspn(buf, "\n") == (size_t)len;
	for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		long long sec;
		long nsec;
		int at = 0;
		*nl = '\0';
		if (sscanf(line, "%lld.%ld %n", &sec, &nsec, &at) != 2 || !at ||
		    !intent_path_ok(line + at, strlen(line + at)))
			continue;
		size_t n = strlen(line + at);
		if (store_path(path, sizeof path, "%s%s", gitdir, line + at))
			continue;
		remove_if_newer(path, sec, nsec,
				line[at + n - 1] == '/' ? 0 : -1);
	}
	struct stat sb;
	if (fstat(s->lock_fd, &sb) || sb.st_size > INTENT_MAX)
		(void)!ftruncate(s->lock_fd, 0); /* (not catan's) */
	else if (!blank_already)
		blank(s->lock_fd, 0, (size_t)len);
}

/*
 * One catan process writes a repository at a time: the writer holds an
 * exclusive flock on <gitdir>/catan.lock, which the kernel releases when
 * the process dies, even by kill -9; then it removes what a killed writer
 * left (recover_intents). A reader (readonly) takes a shared flock, and
 * only when catan.lock is there: it creates nothing and removes nothing.
 */
int store_lock(catan_store *s, bool readonly, catan_err *err)
{
	char path[STORE_PATH_MAX];
	const char *gitdir = git_repository_path(s->repo);
	if (store_path(path, sizeof path, "%scatan.lock", gitdir))
		return store_fail_code(err, CATAN_STORE_E_LOCKED,
				       "cannot lock %scatan.lock: %s", gitdir,
				       strerror(errno));
	s->readonly = readonly;
	if (readonly) {
		s->lock_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->lock_fd < 0 && errno == ENOENT)
			return 0;
		if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_SH))
			return store_fail_code(err, CATAN_STORE_E_LOCKED,
					       "cannot lock %s: %s", path,
					       strerror(errno));
		return 0;
	}
	s->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX))
		return store_fail_code(err, CATAN_STORE_E_LOCKED,
				       "cannot lock %s: %s", path,
				       strerror(errno));
	recover_intents(s);
	if (store_recover_moves(s)) {
		int e = errno;
		return store_fail_code(err, store_errno_code(e),
				       "finishing a branch move cut short (see "
				       "%scatan.moves): %s",
				       gitdir, strerror(e));
	}
	return 0;
}
