/*
 * packed_refs.c - layer 2: many refs moved in one write of packed-refs, in
 * git's format, with their reflogs (store_write_packed): a sync's
 * remote-tracking refs and adopted branches.
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

#include "fuzz_internal.h"
#include "repo.h"

/* The reflog of ref: appended to when there is one or `all` says so. */
static int open_log(catan_store *s, const char *ref, bool all)
{
	char path[STORE_PATH_MAX];
	if (store_path(path, sizeof path, "%slogs/%s",
		       git_repository_path(s->repo), ref))
		return -1;
	int flags = O_WRONLY | O_APPEND | O_CLOEXEC | (all ? O_CREAT : 0);
	int fd = open(path, flags, 0666);
	if (fd >= 0 || !all || errno != ENOENT)
		return fd;
	/* A new log in a directory not made yet (logs/refs/remotes/<r>). */
	for (char *sl =
		 strchr(path + strlen(git_repository_path(s->repo)), '/');
	     sl; sl = strchr(sl + 1, '/')) {
		*sl = '\0';
		mkdir(path, 0777);
		*sl = '/';
	}
	return open(path, flags, 0666);
}

/*
 * Appends the line git and libgit2 write for a move to an open reflog,
 * dated `now` at `off` minutes from UTC.
 */
static int log_move(catan_store *s, int fd, const git_oid *old,
		    const git_oid *id, time_t now, long off)
{
	char line[512], ohex[GIT_OID_HEXSZ + 1], nhex[GIT_OID_HEXSZ + 1];
	git_oid_tostr(ohex, sizeof ohex, old);
	git_oid_tostr(nhex, sizeof nhex, id);
	int len = snprintf(line, sizeof line,
			   "%s %s %s %lld %c%02ld%02ld\tcatan sync\n", ohex,
			   nhex, s->ident, (long long)now, off < 0 ? '-' : '+',
			   labs(off) / 60, labs(off) % 60);
	if (len <= 0 || len >= (int)sizeof line)
		return -1;
	return write(fd, line, (size_t)len) == len ? 0 : -1;
}

/* A record of packed-refs: "<hex> <name>\n" and any "^<hex>\n" after it. */
typedef struct packed {
	const char *name;
	size_t name_len;
	const char *text; /* the whole record, or NULL: write `id` */
	size_t len;
	const git_oid *id;
} packed;

static int by_name(const void *a, const void *b)
{
	const packed *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);
	return c ? c
		 : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

#define PACKED_TRAITS "# pack-refs with:"

/* How reflog lines are written: where to, and dated when. */
typedef struct log_opts {
	int all; /* core.logAllRefUpdates: create logs that are missing */
	time_t now;
	long off; /* the local offset from UTC in minutes */
} log_opts;

/*
 * Creates the lock file `lock` (O_EXCL). Held by another program, it is
 * tried again for up to 1 s, as git does (core.packedRefsTimeout), and
 * left alone. The descriptor, or -1 (errno).
 */
static int take_lock(const char *lock)
{
	int fd;
	for (int ms = 1, waited = 0;; waited += ms, ms *= 2) {
		fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST || waited >= 1000)
			break;
		nanosleep(&(struct timespec){0, ms * 1000000L}, NULL);
	}
	return fd;
}

/*
 * The records of packed-refs old[start..olen) into rec (room for cap,
 * counted in *nrec), but those of the refs t[0..n) (rewritten). 0, or -1
 * when old is not in git's format.
 */
static int parse_records(packed *rec, size_t cap, size_t *nrec, char *old,
			 size_t olen, size_t start, const tracking *t, int n)
{
	for (size_t i = start; i < olen;) {
		char *nl = memchr(old + i, '\n', olen - i);
		if (!nl || nl - (old + i) < GIT_OID_HEXSZ + 2 ||
		    old[i + GIT_OID_HEXSZ] != ' ' || *nrec == cap)
			return -1;
		packed r = {old + i + GIT_OID_HEXSZ + 1,
			    (size_t)(nl - (old + i)) - GIT_OID_HEXSZ - 1,
			    old + i, 0, NULL};
		char *end = nl + 1;
		while (end < old + olen && *end == '^') {
			char *nl2 =
			    memchr(end, '\n', (size_t)(old + olen - end));
			if (!nl2)
				return -1;
			end = nl2 + 1;
		}
		r.len = (size_t)(end - r.text);
		bool moved = false;
		for (int k = 0; k < n && !moved; k++)
			moved = strlen(t[k].ref) == r.name_len &&
				!memcmp(t[k].ref, r.name, r.name_len);
		if (!moved)
			rec[(*nrec)++] = r;
		i = (size_t)(end - old);
	}
	return 0;
}

/*
 * Appends the reflog lines of the branches among t[0..n) (as libgit2
 * does, before the rename). 0, or -1 and why.
 */
static int log_branches(catan_store *s, const tracking *t, int n,
			const log_opts *lo, char *why, size_t whylen)
{
	for (int k = 0; k < n; k++) {
		if (t[k].peer != STORE_TRACK_BRANCH)
			continue;
		int log = open_log(s, t[k].ref, lo->all != 0);
		if (log >= 0) {
			int bad = log_move(s, log, &t[k].old, &t[k].id, lo->now,
					   lo->off);
			close(log);
			if (bad) {
				snprintf(why, whylen,
					 "cannot write the reflog of %.200s: "
					 "%s",
					 t[k].ref, strerror(errno));
				return -1;
			}
		}
	}
	return 0;
}

/*
 * The whole file at path into *old (malloc'ed, NUL-terminated, *olen
 * bytes); none there: *old NULL and *olen 0. 0, or -1 (errno) when it
 * cannot be read.
 */
static int read_old(const char *path, char **old, size_t *olen)
{
	FILE *f = fopen(path, "rb");
	if (f) {
		struct stat sb;
		if (fstat(fileno(f), &sb) == 0 &&
		    (*old = malloc((size_t)sb.st_size + 1)) &&
		    fread(*old, 1, (size_t)sb.st_size, f) == (size_t)sb.st_size)
			*olen = (size_t)sb.st_size;
		else
			*olen = (size_t)-1;
		fclose(f);
		if (*olen == (size_t)-1)
			return -1;
		(*old)[*olen] = '\0'; /* strncmp below may read to its n */
	} else if (errno != ENOENT) {
		return -1;
	}
	return 0;
}

/*
 * The traits line of the packed-refs text old[0..olen), if any: *peeled
 * and *fully as it says (a file without the line: neither; an empty file:
 * left as they are), *start where the records begin. 0, or -1 when the
 * first line is a comment but not git's traits line.
 */
static int read_traits(char *old, size_t olen, bool *peeled, bool *fully,
		       size_t *start)
{
	if (olen > 0 && old[0] == '#') {
		char *nl = memchr(old, '\n', olen);
		if (!nl || strncmp(old, PACKED_TRAITS, strlen(PACKED_TRAITS)))
			return -1;
		*nl = '\0';
		*peeled = strstr(old, " peeled ") != NULL;
		*fully = *peeled && strstr(old, " fully-peeled ") != NULL;
		*nl = '\n';
		*start = (size_t)(nl + 1 - old);
	} else if (olen > 0) {
		*peeled = *fully = false;
	}
	return 0;
}

/*
 * Writes the traits line (with "sorted") and the records rec[0..nrec)
 * (kept text as it was, new ones as "ID NAME") to the open file *fd, and
 * closes it. *fd is -1 once a stream owns it (closed then, whatever
 * happens); left open for the caller when the stream cannot be made.
 * 0, or -1 with errno.
 */
static int write_records(int *fd, const packed *rec, size_t nrec, bool peeled,
			 bool fully)
{
	FILE *w = fdopen(*fd, "wb");
	if (!w)
		return -1;
	*fd = -1;
	fprintf(w, "%s%s%s sorted \n", PACKED_TRAITS, peeled ? " peeled" : "",
		fully ? " fully-peeled" : "");
	for (size_t i = 0; i < nrec; i++) {
		if (rec[i].text) {
			fwrite(rec[i].text, 1, rec[i].len, w);
		} else {
			char hex[GIT_OID_HEXSZ + 1];
			git_oid_tostr(hex, sizeof hex, rec[i].id);
			fprintf(w, "%s %.*s\n", hex, (int)rec[i].name_len,
				rec[i].name);
		}
	}
	return fclose(w) ? -1 : 0;
}

/*
 * Rewrites packed-refs with the refs t[0..n) at t[k].id, or at t[k].old
 * when `at_old` (their values do not change then: see write_packed): a
 * lock file, written, renamed over packed-refs. When `lo` is given, the
 * reflogs of the branches among t are appended to before the rename, as
 * libgit2 does (a crash in between leaves each log one forward move ahead
 * of its branch, which verify accepts, and the next sync moves them).
 * Durable as git makes it (core.fsync): the lock file and the logs are
 * on disk before the rename (one syncfs, which also puts on disk the
 * names of the pack the sync wrote), the directory after it when
 * `at_old` (see the rename).
 * Returns 0; -1 when packed-refs is locked or not in git's format, or
 * cannot be written: nothing moved then (but when only the directory's
 * fsync failed: moved, not known to be on disk).
 */
static int packed_rewrite(catan_store *s, const tracking *t, int n, bool at_old,
			  const log_opts *lo, char *why, size_t whylen)
{
	const char *gitdir = git_repository_path(s->repo);
	char path[STORE_PATH_MAX], lock[STORE_PATH_MAX];
	char *old = NULL;
	packed *rec = NULL;
	size_t olen = 0, nrec = 0, start = 0;
	int rc = -1, fd = -1;
	bool peeled = true, fully = true; /* (a new file: git's traits) */
	if (store_path(path, sizeof path, "%spacked-refs", gitdir) ||
	    store_path(lock, sizeof lock, "%spacked-refs.lock", gitdir)) {
		snprintf(why, whylen, "%.300s: path too long", gitdir);
		return -1;
	}
	size_t mark = s->intent_len;
	if (store_intent(s, "packed-refs.lock")) {
		snprintf(why, whylen, "cannot write to catan.lock: %s",
			 strerror(errno));
		return -1;
	}
	fd = take_lock(lock);
	if (fd < 0) {
		snprintf(why, whylen, "cannot create %.300s: %s%s", lock,
			 strerror(errno),
			 errno == EEXIST ? " (another git process seems to "
					   "be running in this repository; "
					   "if none is, remove the file)"
					 : "");
		store_intent_done(s, mark);
		return -1;
	}
	snprintf(why, whylen, "cannot read or write %.300s", path);
	if (read_old(path, &old, &olen))
		goto done;
	/*
	 * Any layout git or libgit2 writes: a traits line or none, records
	 * sorted or not. The traits "peeled" and "fully-peeled" are kept as
	 * they were (they say which records carry a "^" line); the records
	 * are written sorted, and the file says so.
	 */
	if (read_traits(old, olen, &peeled, &fully, &start))
		goto bad;
	size_t cap = (size_t)n + olen / 42 + 1;
	if (!(rec = malloc(sizeof *rec * cap)))
		goto done;
	if (parse_records(rec, cap, &nrec, old, olen, start, t, n))
		goto bad;
	for (int k = 0; k < n; k++) {
		if (nrec == cap)
			goto done;
		packed r = {t[k].ref, strlen(t[k].ref), NULL, 0,
			    at_old ? &t[k].old : &t[k].id};
		rec[nrec++] = r;
	}
	qsort(rec, nrec, sizeof *rec, by_name);
	if (write_records(&fd, rec, nrec, peeled, fully))
		goto done;
	if (lo && log_branches(s, t, n, lo, why, whylen))
		goto done_why;
	/*
	 * The lock file and the reflog lines on disk before the rename, with
	 * one flush of the disk's cache for all (rather than an fsync each).
	 */
	if (store_syncfs(s))
		goto done;
	if (rename(lock, path))
		goto done;
	lock[0] = '\0'; /* renamed: no longer ours to remove */
	/*
	 * A move needs no flush after its rename: were the rename lost, the
	 * repository is as a crash just before it leaves it (the branches'
	 * reflogs one move ahead, which verify accepts; the adoption done
	 * again by the next sync, from the objects on disk), and the next
	 * flush (a commit's, say) puts it on disk. Keeping the values, it
	 * does: the loose files of the refs are removed after it.
	 */
	if (at_old && store_fsync_dir(gitdir)) {
		snprintf(why, whylen, "cannot fsync %.300s: %s", gitdir,
			 strerror(errno));
		goto done_why;
	}
	rc = 0;
	goto done_why;
bad:
	snprintf(why, whylen, "%.300s is not in git's format", path);
	goto done_why;
done:
	snprintf(why, whylen, "cannot read or write %.300s: %s", path,
		 strerror(errno));
done_why:
	if (rc) {
		if (fd >= 0)
			close(fd);
		if (lock[0])
			unlink(lock);
	}
	store_intent_done(s, mark);
	free(rec);
	free(old);
	return rc;
}

/* Removes the loose file of ref: 0 when there is none left. */
static int unlink_loose(catan_store *s, const char *ref)
{
	char loose[STORE_PATH_MAX];
	if (store_path(loose, sizeof loose, "%s%s",
		       git_repository_path(s->repo), ref))
		return -1;
	return unlink(loose) == 0 || errno == ENOENT ? 0 : -1;
}

/*
 * Moves the refs t[0..n) in one write of packed-refs (git's format, as
 * libgit2 and git write it: the traits line, then records sorted by name)
 * rather than a loose ref each. File creations are what a sync costs most
 * on a disk; this is one per sync instead of one per ref, and the moves of
 * the branches are one atomic step: a crash never leaves one branch moved
 * and another, whose new commits the first already holds, behind (verify
 * would find commits off their author's branch).
 *
 * A loose file of a ref hides its packed value, so it must go. For a
 * branch it goes first, in a write of packed-refs that keeps every value
 * where it is (there is one after a clone, or this peer's own commits,
 * which libgit2 writes loose); then the move. A remote-tracking ref's
 * loose file goes after the move (no rule ties it to the others), and its
 * reflog is appended to then. This handle holds the writer lock: nothing
 * else of ours moves these refs meanwhile.
 *
 * Returns 0; -1 and why when packed-refs is locked, is not in git's
 * format, or cannot be written: no branch moved then.
 */
int store_write_packed(catan_store *s, git_config *cfg, tracking *t, int n,
		       char *why, size_t whylen)
{
	log_opts lo = {0, time(NULL), 0};
	if (git_config_get_bool(&lo.all, cfg, "core.logAllRefUpdates") != 0) {
		git_buf v = {NULL, 0, 0};
		lo.all = git_config_get_string_buf(
			     &v, cfg, "core.logAllRefUpdates") == 0 &&
			 !strcasecmp(v.ptr, "always");
		git_buf_dispose(&v);
	}
	/* As git_signature_now dates a line: the local offset in minutes. */
	struct tm utc;
	gmtime_r(&lo.now, &utc);
	utc.tm_isdst = -1;
	lo.off = (long)difftime(lo.now, mktime(&utc)) / 60;

	tracking loose[CATAN_MAX_PLAYERS];
	int nloose = 0;
	for (int k = 0; k < n; k++) {
		struct stat sb;
		char file[STORE_PATH_MAX];
		if (t[k].peer != STORE_TRACK_BRANCH)
			continue;
		if (store_path(file, sizeof file, "%s%s",
			       git_repository_path(s->repo), t[k].ref)) {
			snprintf(why, whylen, "%.300s: path too long",
				 t[k].ref);
			return -1;
		}
		if (lstat(file, &sb) == 0) {
			loose[nloose++] = t[k];
		} else if (errno != ENOENT) {
			snprintf(why, whylen, "cannot look at %.300s: %s", file,
				 strerror(errno));
			return -1;
		}
	}
	if (nloose > 0) {
		if (packed_rewrite(s, loose, nloose, true, NULL, why, whylen))
			return -1;
		for (int k = 0; k < nloose; k++)
			if (unlink_loose(s, loose[k].ref)) {
				snprintf(why, whylen,
					 "cannot remove %.200s: %s",
					 loose[k].ref, strerror(errno));
				return -1; /* (nothing moved) */
			}
	}
	if (packed_rewrite(s, t, n, false, &lo, why, whylen))
		return -1;
	for (int k = 0; k < n; k++) {
		if (t[k].peer == STORE_TRACK_BRANCH)
			continue;
		if (!t[k].packed && unlink_loose(s, t[k].ref) == 0)
			t[k].packed = true;
		int log = open_log(s, t[k].ref, lo.all != 0); /* best effort */
		if (log >= 0) {
			log_move(s, log, &t[k].old, &t[k].id, lo.now, lo.off);
			close(log);
		}
	}
	/*
	 * libgit2 knows packed-refs by its inode, size and time, and ours
	 * has the size it had and perhaps a freed inode again: this handle's
	 * reference database starts afresh, rather than trust that.
	 */
	git_refdb *db = NULL;
	if (git_refdb_open(&db, s->repo) == 0) {
		git_repository_set_refdb(s->repo, db);
		git_refdb_free(db);
	}
	return 0;
}

int store_fuzz_packed_rewrite(git_repository *repo, const char *const *refs,
			      const git_oid *ids, int n, char *why,
			      size_t whylen)
{
	tracking t[CATAN_MAX_PLAYERS];
	catan_store *s = calloc(1, sizeof *s);
	int rc = -1;
	if (!s || n < 0 || n > CATAN_MAX_PLAYERS) {
		snprintf(why, whylen, "out of memory or too many refs");
		goto done;
	}
	s->repo = repo;
	for (int k = 0; k < n; k++) {
		memset(&t[k], 0, sizeof t[k]);
		snprintf(t[k].ref, sizeof t[k].ref, "%s", refs[k]);
		t[k].id = ids[k];
		t[k].peer = STORE_TRACK_BRANCH;
	}
	rc = packed_rewrite(s, t, n, false, NULL, why, whylen);
done:
	free(s);
	return rc;
}
