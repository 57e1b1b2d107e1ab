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

#include <zlib.h>

#include "repo.h"

/*
 * The journal of branch moves, <gitdir>/catan.moves (spec/format.md,
 * "Durability"): two slots of MOVE_SLOT bytes, the n-th move (n from 1)
 * in slot n % 2, as "catan-move <n> <ref> <old> <new> <crc>\n" (old all
 * zeros for a create; crc: CRC-32 of the text before it, 8 hex digits),
 * then NULs. A slot is written (not flushed) before the flush that puts
 * the move's objects, lock file and reflog lines on disk; the lock file
 * is then renamed over the ref with no flush after it. A power cut may
 * undo that rename: store_recover_moves finishes it from the journal.
 * A slot is only overwritten two moves later, once the flush of the next
 * move has put this move's rename on disk.
 */
#define MOVE_SLOT 512

typedef struct move_rec {
	unsigned long long seq;
	char ref[256];
	git_oid old, id;
} move_rec;

/* A slot's record, when it is one (whole, its CRC right). */
static bool parse_move(const char *slot, move_rec *r)
{
	char text[MOVE_SLOT + 1], oh[GIT_OID_HEXSZ + 1], nh[GIT_OID_HEXSZ + 1];
	memcpy(text, slot, MOVE_SLOT);
	text[MOVE_SLOT] = '\0';
	char *nl = strchr(text, '\n'), *sp;
	if (!nl)
		return false;
	*nl = '\0';
	if (!(sp = strrchr(text, ' ')) || strlen(sp + 1) != 8)
		return false;
	char want[16];
	snprintf(want, sizeof want, "%08lx",
		 crc32(0, (const Bytef *)text, (uInt)(sp - text)));
	if (strcmp(sp + 1, want))
		return false;
	*sp = '\0';
	int at = 0;
	if (sscanf(text, "catan-move %llu %255s %40s %40s%n", &r->seq, r->ref,
		   oh, nh, &at) != 4 ||
	    text[at] != '\0' || strncmp(r->ref, "refs/heads/", 11) ||
	    strstr(r->ref, "..") || strlen(oh) != GIT_OID_HEXSZ ||
	    strlen(nh) != GIT_OID_HEXSZ || git_oid_fromstr(&r->old, oh) ||
	    git_oid_fromstr(&r->id, nh))
		return false;
	return true;
}

/* Both slots of an open journal: how many records (0..2), oldest first. */
static int read_moves(int fd, move_rec rec[2])
{
	char buf[2 * MOVE_SLOT];
	memset(buf, 0, sizeof buf);
	if (pread(fd, buf, sizeof buf, 0) < 0)
		return 0;
	int n = 0;
	for (int i = 0; i < 2; i++)
		if (parse_move(buf + i * MOVE_SLOT, &rec[n]))
			n++;
	if (n == 2 && rec[0].seq > rec[1].seq) {
		move_rec t = rec[0];
		rec[0] = rec[1];
		rec[1] = t;
	}
	return n;
}

/* Opens the journal for the writer (created when missing). 0 or -1. */
static int open_moves(catan_store *s)
{
	char path[STORE_PATH_MAX];
	if (s->moves_open)
		return 0;
	if (s->lock_fd < 0 || s->readonly ||
	    store_path(path, sizeof path, "%scatan.moves",
		       git_repository_path(s->repo)))
		return -1;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	move_rec rec[2];
	int n = read_moves(fd, rec);
	s->moves_seq = n ? rec[n - 1].seq : 0;
	s->moves_fd = fd;
	s->moves_open = true;
	return 0;
}

/* Writes the record of a move into its slot (not flushed). 0 or -1. */
static int journal_move(catan_store *s, const char *ref, const char *ohex,
			const char *nhex)
{
	char slot[MOVE_SLOT];
	unsigned long long seq = s->moves_seq + 1;
	memset(slot, 0, sizeof slot);
	int n = snprintf(slot, sizeof slot, "catan-move %llu %s %s %s", seq,
			 ref, ohex, nhex);
	if (n <= 0 || n + 10 >= MOVE_SLOT) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(slot + n, sizeof slot - (size_t)n, " %08lx\n",
		 crc32(0, (const Bytef *)slot, (uInt)n));
	if (pwrite(s->moves_fd, slot, sizeof slot,
		   (off_t)(seq % 2) * MOVE_SLOT) != (ssize_t)sizeof slot)
		return -1;
	s->moves_seq = seq;
	return 0;
}

/* Forgets the last record (its move failed). Best effort. */
static void unjournal(catan_store *s)
{
	char slot[MOVE_SLOT];
	memset(slot, 0, sizeof slot);
	if (pwrite(s->moves_fd, slot, sizeof slot,
		   (off_t)(s->moves_seq % 2) * MOVE_SLOT) ==
	    (ssize_t)sizeof slot)
		s->moves_seq--;
}

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
 * the ref. Durable with one flush of the disk's cache rather than
 * libgit2's six: one syncfs once the lock file, the reflog lines, the
 * action's loose objects (objects_batch) and the move's record in
 * catan.moves are written, so all of them are on disk before the rename;
 * the rename itself is finished from the record after a power cut
 * (store_recover_moves). Without a writer lock (no journal): an fsync of
 * the ref's directory after the rename, as before. Returns 0;
 * GIT_ELOCKED when the lock file exists (nothing touched), GIT_EMODIFIED
 * when the ref is not at old, -1 with errno on an I/O error (the ref not
 * moved, unless only the directory's fsync failed).
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
	bool journaled = false;
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
	journaled = open_moves(s) == 0;
	if (journaled && journal_move(s, ref, ohex, nhex)) {
		journaled = false;
		goto fail;
	}
	if (store_syncfs(s))
		goto fail;
	if (close(fd)) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(lock, path))
		goto fail;
	if (journaled)
		return 0; /* on disk, but for the rename: see catan.moves */
	char *sl = strrchr(path, '/');
	*sl = '\0';
	return store_fsync_dir(path) ? -1 : 0;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlink(lock);
	if (journaled)
		unjournal(s);
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
		int e = errno;
		return store_fail_code(err, store_errno_code(e),
				       "moving the branch %s: %s", ref,
				       strerror(e));
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
		return store_fail_code(err, CATAN_STORE_E_DENIED,
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
	if (rc == GIT_ELOCKED || rc == GIT_EMODIFIED)
		return store_fail_code(
		    err, CATAN_STORE_E_LOCKED, "moving %s back: %s", ref,
		    rc == GIT_ELOCKED ? "locked" : "moved meanwhile");
	if (rc) {
		int e = errno;
		return store_fail_code(err, store_errno_code(e),
				       "moving %s back: %s", ref, strerror(e));
	}
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

int store_branch_tips(git_oid *out, catan_store *s, const git_oid *also)
{
	int n = 0;
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		if (store_branch_tip(&out[n], s, p) == 0)
			n++;
		if (also)
			out[n++] = also[p];
	}
	return n;
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

/*
 * Whether the commit `id`, its tree and everything in it can be read
 * back (libgit2 checks each object's hash as it reads it), and its
 * parents are there.
 */
static bool tree_intact(git_repository *repo, git_odb *odb, const git_oid *tree,
			int depth)
{
	git_tree *t = NULL;
	if (depth > 32 || git_tree_lookup(&t, repo, tree))
		return false;
	bool ok = true;
	for (size_t i = 0; ok && i < git_tree_entrycount(t); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		git_odb_object *o = NULL;
		if (git_tree_entry_type(e) == GIT_OBJECT_TREE)
			ok = tree_intact(repo, odb, git_tree_entry_id(e),
					 depth + 1);
		else
			ok = git_odb_read(&o, odb, git_tree_entry_id(e)) == 0;
		git_odb_object_free(o);
	}
	git_tree_free(t);
	return ok;
}

static bool commit_intact(git_repository *repo, const git_oid *id)
{
	git_odb *odb = NULL;
	git_commit *c = NULL;
	bool ok = git_repository_odb(&odb, repo) == 0 &&
		  git_commit_lookup(&c, repo, id) == 0 &&
		  tree_intact(repo, odb, git_commit_tree_id(c), 0);
	for (unsigned i = 0; ok && i < git_commit_parentcount(c); i++)
		ok = git_odb_exists(odb, git_commit_parent_id(c, i));
	git_commit_free(c);
	git_odb_free(odb);
	return ok;
}

/*
 * Whether the reflog of r->ref holds the line of the move (it reached
 * the disk with the move's flush); true when the ref keeps no reflog.
 */
static bool move_logged(catan_store *s, const move_rec *r)
{
	char path[STORE_PATH_MAX], buf[8192], want[2 * GIT_OID_HEXSZ + 3];
	if (store_path(path, sizeof path, "%slogs/%s",
		       git_repository_path(s->repo), r->ref))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	struct stat sb;
	ssize_t n = -1;
	if (fstat(fd, &sb) == 0) {
		off_t at = sb.st_size > (off_t)sizeof buf - 1
			       ? sb.st_size - (off_t)sizeof buf + 1
			       : 0;
		n = pread(fd, buf, sizeof buf - 1, at);
	}
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	git_oid_tostr(want, GIT_OID_HEXSZ + 1, &r->old);
	want[GIT_OID_HEXSZ] = ' ';
	git_oid_tostr(want + GIT_OID_HEXSZ + 1, GIT_OID_HEXSZ + 1, &r->id);
	strcat(want, " ");
	return memmem(buf, (size_t)n, want, strlen(want)) != NULL;
}

/*
 * Removes the last line of the reflog `log` (a ref, or "HEAD") when it is
 * the line of the move r (which is not finished: its commit did not
 * reach the disk). Best effort.
 */
static void unlog_move(catan_store *s, const char *log, const move_rec *r)
{
	char path[STORE_PATH_MAX], buf[1024], want[2 * GIT_OID_HEXSZ + 3];
	if (store_path(path, sizeof path, "%slogs/%s",
		       git_repository_path(s->repo), log))
		return;
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	struct stat sb;
	if (fd < 0)
		return;
	if (fstat(fd, &sb) == 0 && sb.st_size > 0) {
		off_t at = sb.st_size > (off_t)sizeof buf - 1
			       ? sb.st_size - (off_t)sizeof buf + 1
			       : 0;
		ssize_t n = pread(fd, buf, sizeof buf - 1, at);
		if (n > 0 && buf[n - 1] == '\n') {
			buf[n - 1] = '\0';
			char *start = strrchr(buf, '\n');
			start = start ? start + 1 : buf;
			git_oid_tostr(want, GIT_OID_HEXSZ + 1, &r->old);
			want[GIT_OID_HEXSZ] = ' ';
			git_oid_tostr(want + GIT_OID_HEXSZ + 1,
				      GIT_OID_HEXSZ + 1, &r->id);
			strcat(want, " ");
			if ((start > buf || at == 0) &&
			    !strncmp(start, want, strlen(want)) &&
			    ftruncate(fd, at + (start - buf)) == 0)
				(void)!fsync(fd);
		}
	}
	close(fd);
}

/*
 * Finishes the move r: the lock file the cut move left (holding r->id)
 * or a new one, fsync'ed, renamed over the ref, the directory fsync'ed.
 * A lock file holding anything else is another program's: left alone,
 * the move not finished (1). With `drop`, only removes the lock file the
 * cut move left, if it is there (a move that is not finished). 0, 1 or -1
 * (errno).
 */
static int finish_move(catan_store *s, const move_rec *r, bool drop)
{
	const char *gitdir = git_repository_path(s->repo);
	char path[STORE_PATH_MAX], lock[STORE_PATH_MAX];
	char hex[GIT_OID_HEXSZ + 2], had[GIT_OID_HEXSZ + 3];
	if (store_path(path, sizeof path, "%s%s", gitdir, r->ref) ||
	    store_path(lock, sizeof lock, "%s.lock", path))
		return -1;
	git_oid_tostr(hex, GIT_OID_HEXSZ + 1, &r->id);
	hex[GIT_OID_HEXSZ] = '\n';
	hex[GIT_OID_HEXSZ + 1] = '\0';
	int fd = open(lock,
		      O_RDWR | O_CLOEXEC | O_NOFOLLOW |
			  (drop ? 0 : O_CREAT | O_EXCL),
		      0666);
	if (drop) {
		ssize_t n = fd < 0 ? -1 : pread(fd, had, sizeof had - 1, 0);
		if (fd >= 0)
			close(fd);
		if (n == GIT_OID_HEXSZ + 1 && !memcmp(had, hex, (size_t)n))
			unlink(lock);
		return 0;
	}
	if (fd < 0 && errno == EEXIST) {
		fd = open(lock, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		ssize_t n = fd < 0 ? -1 : pread(fd, had, sizeof had - 1, 0);
		if (n != GIT_OID_HEXSZ + 1 || memcmp(had, hex, (size_t)n)) {
			if (fd >= 0)
				close(fd);
			return 1; /* not ours */
		}
	} else if (fd < 0 ||
		   write(fd, hex, GIT_OID_HEXSZ + 1) != GIT_OID_HEXSZ + 1) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(lock);
		}
		errno = e;
		return -1;
	}
	int rc = fsync(fd);
	if (close(fd) || rc || rename(lock, path)) {
		int e = errno;
		unlink(lock);
		errno = e;
		return -1;
	}
	*strrchr(path, '/') = '\0';
	return store_fsync_dir(path);
}

/*
 * A sync names its pack (renames it into objects/pack) with no fsync of
 * the directory after: the one flush before its write of packed-refs puts
 * those names on disk with the lock file and the branches' reflog lines
 * (store_stage_flush, packed_refs.c). A power cut during that flush may
 * keep a reflog line and lose the name of the pack holding its commit;
 * packed-refs was not renamed then (that comes after the flush), so the
 * sync never finished and the next one adopts again: the line goes, so
 * that git fsck stays clean. Looks at the last lines of each branch's
 * reflog; best effort.
 */
static void recover_sync_logs(catan_store *s)
{
	char dir[STORE_PATH_MAX], path[STORE_PATH_MAX], buf[1024];
	git_odb *odb = NULL;
	if (store_path(dir, sizeof dir, "%slogs/refs/heads",
		       git_repository_path(s->repo)))
		return;
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    store_path(path, sizeof path, "%s/%s", dir, de->d_name))
			continue;
		int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		bool cut = false;
		for (int lines = 0; lines < 4; lines++) {
			struct stat sb;
			if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
			    sb.st_size == 0)
				break;
			off_t at = sb.st_size > (off_t)sizeof buf - 1
				       ? sb.st_size - (off_t)sizeof buf + 1
				       : 0;
			ssize_t n = pread(fd, buf, sizeof buf - 1, at);
			if (n <= 0 || buf[n - 1] != '\n')
				break;
			buf[n - 1] = '\0';
			char *start = strrchr(buf, '\n');
			start = start ? start + 1 : buf;
			git_oid id;
			if ((start == buf && at > 0) ||
			    strlen(start) < 2 * GIT_OID_HEXSZ + 1 ||
			    start[GIT_OID_HEXSZ] != ' ' ||
			    git_oid_fromstrn(&id, start + GIT_OID_HEXSZ + 1,
					     GIT_OID_HEXSZ) ||
			    git_oid_is_zero(&id) ||
			    (!odb && git_repository_odb(&odb, s->repo)) ||
			    git_odb_exists(odb, &id) ||
			    ftruncate(fd, at + (start - buf)))
				break;
			cut = true;
		}
		if (cut)
			(void)!fsync(fd);
		close(fd);
	}
	if (d)
		closedir(d);
	git_odb_free(odb);
}

int store_recover_moves(catan_store *s)
{
	char path[STORE_PATH_MAX];
	move_rec rec[2];
	if (s->lock_fd < 0 || s->readonly ||
	    store_path(path, sizeof path, "%scatan.moves",
		       git_repository_path(s->repo)))
		return 0;
	recover_sync_logs(s);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int n = read_moves(fd, rec);
	close(fd);
	/*
	 * Per ref, its records oldest first: a record is finished when the
	 * ref is where it started (its rename lost), its reflog line and
	 * its objects reached the disk. Nothing to do when the ref is where
	 * its last record put it.
	 */
	for (int i = 0; i < n; i++) {
		if (i == 1 && !strcmp(rec[0].ref, rec[1].ref))
			break; /* (done with rec[0]) */
		git_oid cur;
		if (git_reference_name_to_id(&cur, s->repo, rec[i].ref))
			memset(&cur, 0, sizeof cur);
		int last = i;
		if (i == 0 && n == 2 && !strcmp(rec[0].ref, rec[1].ref))
			last = 1;
		if (git_oid_equal(&cur, &rec[last].id))
			continue;
		for (int k = i; k <= last; k++) {
			bool at_old = git_oid_equal(&cur, &rec[k].old) &&
				      !git_oid_is_zero(&rec[k].id);
			bool intact =
			    at_old && commit_intact(s->repo, &rec[k].id);
			if (!intact || !move_logged(s, &rec[k])) {
				finish_move(s, &rec[k], true);
				/* A flush cut short: its reflog lines go. */
				if (at_old && !intact) {
					unlog_move(s, rec[k].ref, &rec[k]);
					unlog_move(s, "HEAD", &rec[k]);
				}
				continue;
			}
			int f = finish_move(s, &rec[k], false);
			if (f < 0)
				return -1;
			if (f == 0)
				cur = rec[k].id;
		}
	}
	return 0;
}
