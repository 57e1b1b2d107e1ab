/*
 * store.c - the game as Git history: genesis, reading states from trees,
 * acting (one commit per action), the discard fan-out and its merge.
 *
 * Trees are serialised and hashed here rather than through git_treebuilder:
 * the layout is fixed and small, and hashing without writing lets verify
 * compare tree ids without touching the object database.
 */
#define _GNU_SOURCE /* syncfs */

#include "pack.h"
#include "store_internal.h"

#include <git2/sys/mempack.h>
#include <sodium.h>

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

int store_fail(catan_err *err, const char *fmt, ...)
{
	va_list ap;
	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int store_git_fail(catan_err *err, const char *what)
{
	const git_error *e = git_error_last();
	return store_fail(err, "%s: %s", what,
			  e && e->message ? e->message : "unknown error");
}

int store_claim_dir(const char *path, const char *what, catan_err *err)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return 0;
	if (!S_ISDIR(sb.st_mode))
		return store_fail(err, "%s exists and is not a directory",
				  path);
	if (rmdir(path) != 0) /* only an empty directory may exist */
		return store_fail(err,
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

/* out = a + b; false (out untouched) when it does not fit. */
static bool join(char *out, size_t size, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la + lb + 1 > size)
		return false;
	memcpy(out, a, la);
	memcpy(out + la, b, lb + 1);
	return true;
}

/* ---- trees ---- */

typedef struct tree_entry {
	char name[CATAN_PATH_MAX];
	bool dir;
	git_oid id;
} tree_entry;

static int entry_cmp(const void *a, const void *b)
{
	const tree_entry *x = a, *y = b;
	char kx[CATAN_PATH_MAX + 1], ky[CATAN_PATH_MAX + 1];
	/* Git orders a directory as if its name ended in '/'. */
	snprintf(kx, sizeof kx, "%s%s", x->name, x->dir ? "/" : "");
	snprintf(ky, sizeof ky, "%s%s", y->name, y->dir ? "/" : "");
	return strcmp(kx, ky);
}

/* Serialises entries as a Git tree; hashes it, and writes it if asked. */
/*
 * Object writes without libgit2's fsync of each loose object (the file and
 * its directory: two flushes of the disk's cache per object, most of what
 * a commit cost once fsync'ed): the objects of an action are flushed
 * together, by one syncfs, before a branch can reach them
 * (store_move_branch), as git's core.fsyncMethod=batch does. libgit2 reads
 * its fsync option at each write; refs, reflogs and config keep it on.
 */
static void objects_batch(bool on)
{
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, on ? 0 : 1);
}

static int put_tree(git_oid *out, catan_store *s, tree_entry *e, int n,
		    bool write)
{
	char buf[4096];
	size_t len = 0;
	qsort(e, (size_t)n, sizeof *e, entry_cmp);
	for (int i = 0; i < n; i++) {
		int k = snprintf(buf + len, sizeof buf - len, "%s %s",
				 e[i].dir ? "40000" : "100644", e[i].name);
		if (k < 0 || len + (size_t)k + 1 + GIT_OID_RAWSZ > sizeof buf)
			return -1;
		len += (size_t)k + 1; /* keep the NUL */
		memcpy(buf + len, e[i].id.id, GIT_OID_RAWSZ);
		len += GIT_OID_RAWSZ;
	}
	objects_batch(true);
	int rc = write ? git_odb_write(out, s->odb, buf, len, GIT_OBJECT_TREE)
		       : git_odb_hash(out, buf, len, GIT_OBJECT_TREE);
	objects_batch(false);
	/* A state tree built now is the base of the next sync's copy. */
	if (rc == 0)
		store_tree_remember(s, out, (const unsigned char *)buf, len);
	return rc;
}

/*
 * The id of file f as a blob, written if asked. Most files of a state are
 * those of the state before: each path's last content and id are kept
 * (s->blobs), and an unchanged file is not hashed again when only its id
 * is wanted. (A write always goes to the object database: the memo says
 * what an id is, never that the object is stored.)
 */
static int put_blob(git_oid *out, catan_store *s, int slot, const catan_file *f,
		    bool write)
{
	store_blob_memo *m = slot < CATAN_FILES_MAX ? &s->blobs[slot] : NULL;
	bool same = m && m->data && m->len == f->len &&
		    !strcmp(m->path, f->path) &&
		    !memcmp(m->data, f->data, f->len);
	if (same && !write) {
		*out = m->id;
		return 0;
	}
	objects_batch(true);
	int rc =
	    write ? git_odb_write(out, s->odb, f->data, f->len, GIT_OBJECT_BLOB)
		  : git_odb_hash(out, f->data, f->len, GIT_OBJECT_BLOB);
	objects_batch(false);
	if (rc == 0 && m && !same) {
		char *copy = realloc(m->data, f->len ? f->len : 1);
		if (copy) {
			memcpy(copy, f->data, f->len);
			m->data = copy;
			m->len = f->len;
			m->id = *out;
			snprintf(m->path, sizeof m->path, "%s", f->path);
		}
	}
	return rc;
}

void store_tree_remember(catan_store *s, const git_oid *id,
			 const unsigned char *data, size_t len)
{
	store_tree_memo *m = &s->trees[s->trees_next];
	if (len > sizeof m->buf || store_tree_recall(s, id, NULL))
		return;
	m->id = *id;
	m->len = len;
	memcpy(m->buf, data, len);
	s->trees_next = (s->trees_next + 1) % STORE_TREE_MEMO;
}

const unsigned char *store_tree_recall(const catan_store *s, const git_oid *id,
				       size_t *len)
{
	for (int i = 0; i < STORE_TREE_MEMO; i++)
		if (s->trees[i].len && git_oid_equal(&s->trees[i].id, id)) {
			if (len)
				*len = s->trees[i].len;
			return s->trees[i].buf;
		}
	return NULL;
}

int store_tree_of(git_oid *out, catan_store *s, const catan_files *files,
		  bool write)
{
	/* Flat: every state file at the root, beside the shared game/. */
	tree_entry root[CATAN_FILES_MAX + 1];
	int nroot = 0;
	for (int i = 0; i < files->n; i++) {
		const catan_file *f = &files->file[i];
		snprintf(root[nroot].name, sizeof root[nroot].name, "%s",
			 f->path);
		root[nroot].dir = false;
		if (put_blob(&root[nroot].id, s, i, f, write))
			return -1;
		nroot++;
	}
	snprintf(root[nroot].name, sizeof root[0].name, "game");
	root[nroot].dir = true;
	git_oid_cpy(&root[nroot].id, &s->game_tree);
	nroot++;
	return put_tree(out, s, root, nroot, write);
}

int store_state_tree(git_oid *out, catan_store *s, const catan_state *st,
		     bool write)
{
	catan_files f;
	catan_files_init(&f);
	int rc = catan_codec_encode_state(&f, &s->game, st);
	if (!rc)
		rc = store_tree_of(out, s, &f, write);
	catan_files_free(&f);
	return rc ? -1 : 0;
}

/* ---- reading trees back ---- */

#define MAX_BLOB 65536 /* no canonical file comes near this */

/* Names a path for an error message, escaping bytes that are not ASCII. */
static void printable(char *out, size_t size, const char *in)
{
	size_t j = 0;
	for (; *in && j + 5 < size; in++) {
		unsigned char c = (unsigned char)*in;
		if (c >= 0x20 && c < 0x7f)
			out[j++] = (char)c;
		else
			j += (size_t)snprintf(out + j, size - j, "\\x%02x", c);
	}
	out[j] = '\0';
}

/*
 * Reads the plain files of tree `id` (recursively) into `out`, named
 * prefix + path; an entry named `skip` at this level is passed over.
 * Refuses anything but plain files and trees, and any file over MAX_BLOB
 * (from the object header, before reading it).
 */
static int read_tree_into(catan_files *out, catan_store *s, const git_oid *id,
			  const char *prefix, int depth, const char *skip,
			  catan_err *err)
{
	git_tree *tree = NULL;
	int rc = -1;
	if (depth > 3)
		return store_fail(err, "tree %s nests too deep", prefix);
	if (git_tree_lookup(&tree, s->repo, id))
		return store_git_fail(err, "reading a tree");
	size_t n = git_tree_entrycount(tree);
	if (n > CATAN_FILES_MAX) {
		store_fail(err, "tree \"%s\" has %zu entries: too many", prefix,
			   n);
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		const char *name = git_tree_entry_name(e);
		char path[CATAN_PATH_MAX], sub[CATAN_PATH_MAX];
		if (skip && !strcmp(name, skip))
			continue;
		if (!join(path, sizeof path, prefix, name) ||
		    !join(sub, sizeof sub, path, "/")) {
			char shown[128];
			printable(shown, sizeof shown, name);
			store_fail(err,
				   "unexpected entry \"%s%.40s\" (name too "
				   "long)",
				   prefix, shown);
			goto done;
		}
		git_filemode_t mode = git_tree_entry_filemode(e);
		if (mode == GIT_FILEMODE_TREE) {
			if (read_tree_into(out, s, git_tree_entry_id(e), sub,
					   depth + 1, NULL, err))
				goto done;
			continue;
		}
		if (mode != GIT_FILEMODE_BLOB) {
			store_fail(err, "\"%s\" is not a plain file", path);
			goto done;
		}
		size_t len = 0;
		git_object_t type;
		if (git_odb_read_header(&len, &type, s->odb,
					git_tree_entry_id(e))) {
			store_git_fail(err, "reading a blob header");
			goto done;
		}
		if (len > MAX_BLOB) {
			store_fail(err, "file \"%s\" is %zu bytes: too large",
				   path, len);
			goto done;
		}
		git_blob *blob = NULL;
		if (git_blob_lookup(&blob, s->repo, git_tree_entry_id(e))) {
			store_git_fail(err, "reading a blob");
			goto done;
		}
		int added =
		    catan_files_add(out, path, git_blob_rawcontent(blob),
				    (size_t)git_blob_rawsize(blob));
		git_blob_free(blob);
		if (added) {
			char shown[128];
			printable(shown, sizeof shown, path);
			store_fail(err,
				   "unexpected entry \"%s\" (too many files)",
				   shown);
			goto done;
		}
	}
	rc = 0;
done:
	git_tree_free(tree);
	return rc;
}

int store_read_state(catan_state *out, catan_store *s, const git_oid *tree,
		     catan_err *err)
{
	catan_files files;
	catan_codec_error ce;
	git_tree *t = NULL;
	int rc = -1;

	catan_files_init(&files);
	if (git_tree_lookup(&t, s->repo, tree)) {
		store_git_fail(err, "reading a state tree");
		goto done;
	}
	const git_tree_entry *game = git_tree_entry_byname(t, "game");
	if (!game || !git_oid_equal(git_tree_entry_id(game), &s->game_tree)) {
		store_fail(err, "game/ differs from the genesis (the board, "
				"options and players never change)");
		goto done;
	}
	/* Everything but game/ (already known and checked). */
	if (read_tree_into(&files, s, tree, "", 0, "game", err))
		goto done;
	if (catan_codec_decode_state(out, &s->game, &files, &ce)) {
		char shown[128];
		printable(shown, sizeof shown, ce.path);
		if (ce.line)
			store_fail(err, "%s:%d: %s", shown, ce.line, ce.msg);
		else
			store_fail(err, "%s: %s", shown, ce.msg);
		goto done;
	}
	rc = 0;
done:
	git_tree_free(t);
	catan_files_free(&files);
	return rc;
}

/* ---- commits ---- */

void store_email(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s@catan", name);
}

void store_message(char *out, size_t size, const char *subject,
		   const char *player, int turn, const uint8_t *dice)
{
	int n = snprintf(out, size, "%s\n\nPlayer: %s\nTurn: %d\n", subject,
			 player, turn);
	if (dice && n >= 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n, "Dice: %d %d\n", dice[0],
			 dice[1]);
}

int store_trailer_dice(const char *message, uint8_t dice[2])
{
	dice[0] = dice[1] = 0;
	const char *p = strstr(message, "\nDice: ");
	if (!p)
		return 0;
	p += 7;
	if (p[0] < '1' || p[0] > '6' || p[1] != ' ' || p[2] < '1' ||
	    p[2] > '6' || (p[3] != '\n' && p[3] != '\0'))
		return -1;
	dice[0] = (uint8_t)(p[0] - '0');
	dice[1] = (uint8_t)(p[2] - '0');
	return 1;
}

/*
 * Writes the commit git would write, with an SSH signature of it by the
 * author's key in a `gpgsig` header after the committer line, as `git
 * commit -S` with gpg.format=ssh does (every signature line after the
 * first indented by one space). 0 or -1 (libgit2's error set).
 */
static int signed_commit(git_oid *out, catan_store *s, int author,
			 const git_signature *asig, const git_signature *sig,
			 const char *message, const git_tree *tree,
			 int nparents, const git_commit **pc)
{
	git_buf payload = {0};
	char armor[CATAN_SSHSIG_MAX], raw[8192];
	if (git_commit_create_buffer(&payload, s->repo, asig, sig, NULL,
				     message, tree, (size_t)nparents, pc))
		return -1;
	size_t al = catan_sshsig_sign(armor, s->keys[author], payload.ptr,
				      payload.size);
	const char *body = strstr(payload.ptr, "\n\n");
	size_t head = body ? (size_t)(body - payload.ptr) + 1 : 0;
	size_t n = 0;
	int rc = -1;
	if (!body || payload.size + al + 16 + al / 60 > sizeof raw) {
		git_error_set_str(GIT_ERROR_OBJECT, "commit too large to sign");
		goto done;
	}
	memcpy(raw, payload.ptr, head);
	n = head;
	memcpy(raw + n, "gpgsig ", 7);
	n += 7;
	for (size_t i = 0; i < al; i++) {
		raw[n++] = armor[i];
		if (armor[i] == '\n' && i + 1 < al)
			raw[n++] = ' ';
	}
	memcpy(raw + n, payload.ptr + head, payload.size - head);
	n += payload.size - head;
	objects_batch(true);
	rc = git_odb_write(out, s->odb, raw, n, GIT_OBJECT_COMMIT);
	objects_batch(false);
done:
	git_buf_dispose(&payload);
	return rc;
}

int store_commit(git_oid *out, catan_store *s, int author, const char *subject,
		 int turn, const uint8_t *dice, const git_oid *tree_id,
		 const git_oid *parents, int nparents, catan_err *err)
{
	git_signature *sig = NULL, *asig = NULL;
	git_tree *tree = NULL;
	const git_commit *pc[CATAN_MAX_PLAYERS + 1];
	git_commit *owned[CATAN_MAX_PLAYERS + 1] = {NULL};
	char email[64], message[256];
	int rc = -1;
	const char *name = s->game.names.name[author];

	git_time_t when;
	git_time_t base =
	    1700000000 + (git_time_t)(s->game.opt.seed % 100000000);
	for (int i = 0; i < nparents; i++) {
		if (git_commit_lookup(&owned[i], s->repo, &parents[i])) {
			store_git_fail(err, "reading a parent commit");
			goto done;
		}
		pc[i] = owned[i];
	}
	if (s->time == CATAN_TIME_DETERMINISTIC) {
		/*
		 * From the seed alone, so the same game gives the same commit
		 * ids: the genesis at the seed's date, every other commit one
		 * second after the latest of its parents (its generation).
		 * One second per action along every branch, and a commit is
		 * always younger than its ancestors, so git's date-ordered
		 * walks (`git log A..B`, upload-pack answering a fetch) stop
		 * where they should instead of walking the whole history, as
		 * they did when every commit of a game had one date (which
		 * let a commit's delta copy its author lines whole: 12.5 B
		 * per commit more in a pack now; README, "The Git layer").
		 * The discards after a 7, written side by side on the same
		 * 7-roll commit, share a second.
		 */
		when = base;
		for (int i = 0; i < nparents; i++) {
			git_time_t t = git_commit_time(owned[i]) + 1;
			if (t > when)
				when = t;
		}
	} else if (s->time == CATAN_TIME_TURNS)
		/* A minute a turn from the seed's date: a table's pace. */
		when = base + (git_time_t)turn * 60;
	else
		when = (git_time_t)time(NULL);
	store_email(email, sizeof email, name);
	store_message(message, sizeof message, subject, name, turn, dice);
	if (git_signature_new(&sig, name, email, when, 0) ||
	    git_signature_new(&asig, name, email, when, 0)) {
		store_git_fail(err, "making a signature");
		goto done;
	}
	if (git_tree_lookup(&tree, s->repo, tree_id)) {
		store_git_fail(err, "reading the new tree");
		goto done;
	}
	int crc;
	if (s->game.signed_game) {
		if (!s->keys[author]) {
			store_fail(err,
				   "this peer holds no key for %s: a signed "
				   "game takes only commits signed by the "
				   "seat's own key (catan key use FILE)%s%s",
				   name, s->key_note[0] ? "; " : "",
				   s->key_note);
			goto done;
		}
		crc = signed_commit(out, s, author, asig, sig, message, tree,
				    nparents, pc);
	} else {
		objects_batch(true);
		crc = git_commit_create(out, s->repo, NULL, asig, sig, NULL,
					message, tree, (size_t)nparents, pc);
		objects_batch(false);
	}
	if (crc) {
		store_git_fail(err, "writing the commit");
		goto done;
	}
	rc = 0;
done:
	for (int i = 0; i < nparents; i++)
		git_commit_free(owned[i]);
	git_tree_free(tree);
	git_signature_free(sig);
	git_signature_free(asig);
	return rc;
}

/*
 * Appends the reflog line libgit2 writes for a move to logs/<ref> (made
 * when missing if every ref is logged). 0 or -1 (errno).
 */
static int append_log(catan_store *s, const char *ref, const char *line,
		      size_t len)
{
	char path[4300];
	int n = snprintf(path, sizeof path, "%slogs/%s",
			 git_repository_path(s->repo), ref);
	if (n < 0 || n >= (int)sizeof path)
		return -1;
	int flags = O_WRONLY | O_APPEND | O_CLOEXEC | (s->log_all ? O_CREAT : 0);
	int fd = open(path, flags, 0666);
	if (fd < 0 && errno == ENOENT && s->log_all) {
		for (char *sl = strchr(path + strlen(git_repository_path(s->repo)),
				       '/');
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
	char path[4300], lock[4310], line[700], ohex[GIT_OID_HEXSZ + 1],
	    nhex[GIT_OID_HEXSZ + 1];
	snprintf(path, sizeof path, "%s%s", gitdir, ref);
	snprintf(lock, sizeof lock, "%s.lock", path);
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
	int len = snprintf(line, sizeof line, "%s %s %s %lld %c%02ld%02ld\t%s\n",
			   ohex, nhex, s->ident, (long long)now,
			   off < 0 ? '-' : '+', labs(off) / 60, labs(off) % 60,
			   why);
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
			return store_fail(err,
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
			return store_fail(
			    err,
			    "moving the branch: %s%s: File exists. Another git "
			    "process seems to be running in this repository; "
			    "if none is, remove the file",
			    git_repository_path(s->repo), lock);
		if (rc == GIT_EMODIFIED)
			return store_fail(err, "moving the branch: %s moved "
					       "meanwhile",
					  ref);
		return store_fail(err, "moving the branch %s: %s", ref,
				  strerror(errno));
	}
	if (s->tips_held)
		git_oid_cpy(&s->held_tips[player], id);
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

/* ---- create and open ---- */

void store_lib_init(void)
{
	git_libgit2_init();
	/* What libgit2 writes (loose objects, refs, reflogs, config) is
	 * fsync'ed, the directory after each rename too: see "Durability" in
	 * spec/format.md. */
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
	store_net_register();
}

static catan_store *store_new(void)
{
	catan_store *s = calloc(1, sizeof *s);
	if (s) {
		s->lock_fd = -1;
		store_lib_init();
	}
	return s;
}

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
 * are taken from, and truncates catan.lock once the step is over (the
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
			char sub[4700];
			if (e->d_name[0] == '.')
				continue;
			snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
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

void store_intent_done(catan_store *s, size_t mark)
{
	if (s->lock_fd >= 0 && s->intent_len > mark) {
		(void)!ftruncate(s->lock_fd, (off_t)mark);
		s->intent_len = mark;
	}
}

/*
 * Removes the lock files the lines of catan.lock name that a killed
 * writer left (see above), then empties it. Holds the flock.
 */
static void recover_intents(catan_store *s)
{
	char buf[INTENT_MAX + 1], path[4700];
	const char *gitdir = git_repository_path(s->repo);
	ssize_t len = pread(s->lock_fd, buf, INTENT_MAX, 0);
	if (len <= 0)
		return;
	buf[len] = '\0';
	for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		long long sec;
		long nsec;
		int at = 0;
		*nl = '\0';
		if (sscanf(line, "%lld.%ld %n", &sec, &nsec, &at) != 2 || !at ||
		    !intent_path_ok(line + at, strlen(line + at)))
			continue;
		size_t n = strlen(line + at);
		snprintf(path, sizeof path, "%s%s", gitdir, line + at);
		remove_if_newer(path, sec, nsec, line[at + n - 1] == '/' ? 0 : -1);
	}
	(void)!ftruncate(s->lock_fd, 0);
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
	char path[4096];
	const char *gitdir = git_repository_path(s->repo);
	snprintf(path, sizeof path, "%scatan.lock", gitdir);
	s->readonly = readonly;
	if (readonly) {
		s->lock_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->lock_fd < 0 && errno == ENOENT)
			return 0;
		if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_SH))
			return store_fail(err, "cannot lock %s: %s", path,
					  strerror(errno));
		return 0;
	}
	s->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX))
		return store_fail(err, "cannot lock %s: %s", path,
				  strerror(errno));
	recover_intents(s);
	return 0;
}

int store_syncfs(catan_store *s)
{
	if (s->lock_fd >= 0)
		return syncfs(s->lock_fd);
	return store_syncfs_dir(git_repository_path(s->repo));
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

static int fsync_one(const char *p, const struct stat *sb, int flag,
		     struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if (flag != FTW_F && flag != FTW_DP)
		return 0;
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

int store_fsync_repo(const char *path, catan_err *err)
{
	char parent[4096];
	snprintf(parent, sizeof parent, "%s", path);
	char *sl = strrchr(parent, '/');
	if (sl && sl != parent)
		*sl = '\0';
	else
		snprintf(parent, sizeof parent, "%s", sl ? "/" : ".");
	if (nftw(path, fsync_one, 16, FTW_DEPTH | FTW_PHYS) ||
	    store_fsync_dir(parent))
		return store_fail(err, "cannot fsync %s: %s", path,
				  strerror(errno));
	return 0;
}

/*
 * The name and e-mail address reflog lines carry, read once: libgit2
 * otherwise reads the whole configuration again for every ref it moves
 * (git_signature_default). The same as it would find: user.name and
 * user.email, or "unknown" for both when either is missing. Best effort.
 */
static void reflog_ident(catan_store *s)
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
			: git_config_get_string_buf(&v, cfg,
						    "core.logAllRefUpdates") ==
				  0 &&
			      !strcasecmp(v.ptr, "always"));
	git_buf_dispose(&v);
	git_buf_dispose(&name);
	git_buf_dispose(&email);
	git_config_free(cfg);
}

int catan_store_batch(catan_store *s, catan_err *err)
{
	if (s->batch)
		return 0;
	for (int p = 0; p < s->game.opt.nplayers; p++)
		if (store_branch_tip(&s->tips[p], s, p))
			return store_git_fail(err, "reading a branch");
	if (git_mempack_new(&s->mempack) ||
	    git_odb_add_backend(s->odb, s->mempack, 999)) {
		s->mempack = NULL;
		return store_git_fail(err, "setting up the in-memory store");
	}
	s->batch = true;
	return 0;
}

int catan_store_flush(catan_store *s, catan_err *err)
{
	git_revwalk *walk = NULL;
	git_refdb *refdb = NULL;
	int rc = -1;
	if (!s->batch)
		return 0;
	/*
	 * One pack of everything new, written by our own writer (pack.h:
	 * every object a delta against its parent's when smaller), from a
	 * walk of the branches (not the in-memory store's hash order): the
	 * same game gives the same pack bytes. What earlier flushes wrote is
	 * on disk already, so their tips are hidden from the walk.
	 */
	if (git_revwalk_new(&walk, s->repo)) {
		store_git_fail(err, "walking the new commits");
		goto done;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		git_oid old;
		char ref[128];
		snprintf(ref, sizeof ref, "refs/heads/%s",
			 s->game.names.name[p]);
		if (git_revwalk_push(walk, &s->tips[p]) ||
		    (git_reference_name_to_id(&old, s->repo, ref) == 0 &&
		     git_revwalk_hide(walk, &old))) {
			store_git_fail(err, "walking the new commits");
			goto done;
		}
	}
	{
		char dir[4096];
		snprintf(dir, sizeof dir, "%sobjects/pack",
			 git_repository_path(s->repo));
		if (store_pack_history(s->repo, walk, s->mempack, dir, NULL,
				       err))
			goto done;
	}
	/* Refs last: they never point at objects not yet on disk. */
	s->batch = false;
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		git_oid old;
		/* A batch-created game has no branch on disk yet. */
		bool exists = store_branch_tip(&old, s, p) == 0;
		if (store_move_branch(s, p, exists ? &old : NULL, &s->tips[p],
				      "simulate", err)) {
			s->batch = true;
			goto done;
		}
	}
	/*
	 * The branches as one packed-refs file rather than a file each in a
	 * directory of their own: what a simulated game leaves is then the
	 * pack, its index, HEAD, config and packed-refs. Later moves write
	 * loose refs again, as git does.
	 */
	size_t mark = s->intent_len;
	if (store_intent(s, "packed-refs.lock") ||
	    store_intent(s, "refs/heads/")) {
		store_fail(err, "cannot write to catan.lock: %s",
			   strerror(errno));
		goto done;
	}
	if (git_repository_refdb(&refdb, s->repo) ||
	    git_refdb_compress(refdb)) {
		store_intent_done(s, mark);
		store_git_fail(err, "packing the branches");
		goto done;
	}
	store_intent_done(s, mark);
	{
		char dir[4096];
		snprintf(dir, sizeof dir, "%srefs/heads",
			 git_repository_path(s->repo));
		rmdir(dir); /* only if empty */
	}
	git_mempack_reset(s->mempack);
	s->batch = true;
	rc = 0;
done:
	git_refdb_free(refdb);
	git_revwalk_free(walk);
	return rc;
}

void catan_store_free(catan_store *s)
{
	if (!s)
		return;
	if (s->lock_fd >= 0)
		close(s->lock_fd); /* releases the flock */
	store_sync_free(s);
	for (int p = 0; p < CATAN_MAX_PLAYERS; p++)
		if (s->keys[p]) {
			sodium_memzero(s->keys[p], sizeof *s->keys[p]);
			free(s->keys[p]);
		}
	for (int i = 0; i < CATAN_FILES_MAX; i++)
		free(s->blobs[i].data);
	git_odb_free(s->odb);
	git_repository_free(s->repo);
	free(s);
	git_libgit2_shutdown();
}

const catan_game *catan_store_game(const catan_store *s)
{
	return &s->game;
}

int catan_store_set_key(catan_store *s, int player, const catan_key *k,
			catan_err *err)
{
	if (player < 0 || player >= s->game.opt.nplayers)
		return store_fail(err, "no such player");
	if (!s->game.signed_game)
		return store_fail(err, "this game is not signed: it has no "
				       "keys (game/signers)");
	if (memcmp(k->pk, s->game.keys[player], CATAN_PUBKEY_LEN))
		return store_fail(err,
				  "the key is not %s's: the game binds "
				  "another key to that seat (game/signers)",
				  s->game.names.name[player]);
	if (!s->keys[player] && !(s->keys[player] = malloc(sizeof *k)))
		return store_fail(err, "out of memory");
	*s->keys[player] = *k;
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
	char path[4096];
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s%s", gitdir, files[i]);
		unlink(path);
	}
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, "%s%s", gitdir, dirs[i]);
		rmdir(path); /* only if empty: anything else is not ours */
	}
}

int catan_store_create(catan_store **out, const char *path, const catan_game *g,
		       catan_time_mode time, catan_err *err)
{
	return catan_store_create_ext(out, path, g, time, false, err);
}

int catan_store_create_ext(catan_store **out, const char *path,
			   const catan_game *g, catan_time_mode time,
			   bool batch, catan_err *err)
{
	return store_create(out, path, g, time, batch, NULL, err);
}

int store_create(catan_store **out, const char *path, const catan_game *g,
		 catan_time_mode time, bool batch, const catan_key *first,
		 catan_err *err)
{
	catan_store *s = NULL;
	catan_files files;
	catan_state st;
	git_config *cfg = NULL;
	git_oid tree_id, commit_id;
	int rc = -1;

	*out = NULL;
	catan_files_init(&files);
	if (store_claim_dir(path, "overwrite it", err))
		return -1;
	if (catan_state_init(&st, &g->board, &g->opt))
		return store_fail(err, "game options out of range");
	if (g->signed_game &&
	    (!first || memcmp(first->pk, g->keys[0], CATAN_PUBKEY_LEN)))
		return store_fail(err, "a signed game's genesis is signed by its "
				       "first player (%s), whose key the creator "
				       "must hold",
				  g->names.name[0]);
	for (int p = 0; g->signed_game && p < g->opt.nplayers; p++)
		for (int q = 0; q < p; q++)
			if (!memcmp(g->keys[p], g->keys[q], CATAN_PUBKEY_LEN))
				return store_fail(err,
						  "%s and %s have the same key: "
						  "every seat needs its own",
						  g->names.name[q],
						  g->names.name[p]);
	if (!(s = store_new()))
		return store_fail(err, "out of memory");
	s->game = *g;
	s->time = time;
	if (g->signed_game) {
		if (!(s->keys[0] = malloc(sizeof *first))) {
			free(s);
			return store_fail(err, "out of memory");
		}
		*s->keys[0] = *first;
	}
	if (git_repository_init(&s->repo, path, 1)) {
		store_git_fail(err, "creating the repository");
		goto done;
	}
	store_drop_template(git_repository_path(s->repo));
	if (store_lock(s, false, err))
		goto done;
	reflog_ident(s);
	/*
	 * Reflogs in a bare repository let verify see every branch move. A
	 * deterministic (simulated) game keeps none: reflog lines carry the
	 * wall-clock time, and its branches move once, when flushed.
	 */
	if (git_repository_config(&cfg, s->repo) ||
	    git_config_set_string(
		cfg, "core.logAllRefUpdates",
		time == CATAN_TIME_DETERMINISTIC ? "false" : "always")) {
		store_git_fail(err, "configuring the repository");
		goto done;
	}
	s->log_all = time != CATAN_TIME_DETERMINISTIC;
	if (git_repository_odb(&s->odb, s->repo)) {
		store_git_fail(err, "opening the object database");
		goto done;
	}
	if (batch) {
		/* Even the genesis goes into the one pack of the flush. */
		if (git_mempack_new(&s->mempack) ||
		    git_odb_add_backend(s->odb, s->mempack, 999)) {
			s->mempack = NULL;
			store_git_fail(err, "setting up the in-memory store");
			goto done;
		}
		s->batch = true;
	}
	/* game/ first: every later tree shares it. */
	if (catan_codec_encode_game(&files, g)) {
		store_fail(err, "out of memory");
		goto done;
	}
	{
		/* board, options and, in a signed game, signers */
		tree_entry e[3];
		int ne = files.n < 3 ? files.n : 3;
		for (int i = 0; i < ne; i++) {
			snprintf(e[i].name, sizeof e[i].name, "%s",
				 files.file[i].path + 5);
			e[i].dir = false;
			if (put_blob(&e[i].id, s, CATAN_FILES_MAX,
				     &files.file[i], true)) {
				store_git_fail(err, "writing game/");
				goto done;
			}
		}
		if (put_tree(&s->game_tree, s, e, ne, true)) {
			store_git_fail(err, "writing game/");
			goto done;
		}
	}
	if (store_state_tree(&tree_id, s, &st, true)) {
		store_git_fail(err, "writing the genesis tree");
		goto done;
	}
	if (store_commit(&commit_id, s, 0, "genesis", 0, NULL, &tree_id, NULL, 0,
			 err))
		goto done;
	for (int p = 0; p < g->opt.nplayers; p++)
		if (store_move_branch(s, p, NULL, &commit_id, "genesis", err))
			goto done;
	char head[128];
	snprintf(head, sizeof head, "refs/heads/%s", g->names.name[0]);
	if (git_repository_set_head(s->repo, head)) {
		store_git_fail(err, "setting HEAD");
		goto done;
	}
	git_oid_cpy(&s->genesis, &commit_id);
	/* (A batch-created game is written, fsync'ed, by its flush.) */
	if (!batch && store_fsync_repo(path, err))
		goto done;
	rc = 0;
done:
	git_config_free(cfg);
	catan_files_free(&files);
	if (rc)
		catan_store_free(s);
	else
		*out = s;
	return rc;
}

int catan_store_open(catan_store **out, const char *path, catan_err *err)
{
	return catan_store_open_ext(out, path, false, err);
}

int catan_store_open_ext(catan_store **out, const char *path, bool readonly,
			 catan_err *err)
{
	catan_store *s = NULL;
	catan_files files;
	catan_codec_error ce;
	git_revwalk *walk = NULL;
	git_commit *genesis = NULL;
	git_tree *tree = NULL;
	int rc = -1;

	*out = NULL;
	catan_files_init(&files);
	if (!(s = store_new()))
		return store_fail(err, "out of memory");
	if (git_repository_open_ext(&s->repo, path,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		store_git_fail(err, "opening the game repository");
		goto done;
	}
	if (store_lock(s, readonly, err))
		goto done;
	reflog_ident(s);
	if (git_repository_odb(&s->odb, s->repo)) {
		store_git_fail(err, "opening the object database");
		goto done;
	}
	/* The genesis: the root commit reachable from the branches. */
	if (git_revwalk_new(&walk, s->repo) ||
	    git_revwalk_push_glob(walk, "refs/heads/*")) {
		store_git_fail(err, "listing the branches");
		goto done;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	git_oid id;
	if (git_revwalk_next(&id, walk)) {
		store_fail(err, "%s holds no game (no branch)", path);
		goto done;
	}
	if (git_commit_lookup(&genesis, s->repo, &id) ||
	    git_commit_parentcount(genesis) != 0) {
		store_fail(err, "the oldest commit is not a root commit");
		goto done;
	}
	if (git_commit_tree(&tree, genesis)) {
		store_git_fail(err, "reading the genesis tree");
		goto done;
	}
	const git_tree_entry *game = git_tree_entry_byname(tree, "game");
	if (!game || git_tree_entry_filemode(game) != GIT_FILEMODE_TREE) {
		store_fail(err, "the genesis has no game/ directory");
		goto done;
	}
	if (read_tree_into(&files, s, git_tree_entry_id(game), "game/", 1, NULL,
			   err))
		goto done;
	if (catan_codec_decode_game(&s->game, &files, &ce)) {
		store_fail(err, "%s:%d: %s", ce.path, ce.line, ce.msg);
		goto done;
	}
	git_oid_cpy(&s->game_tree, git_tree_entry_id(game));
	git_oid_cpy(&s->genesis, &id);
	s->time = CATAN_TIME_NOW;
	if (s->game.signed_game && !readonly)
		store_keys_load(s);
	rc = 0;
done:
	git_tree_free(tree);
	git_commit_free(genesis);
	git_revwalk_free(walk);
	catan_files_free(&files);
	if (rc)
		catan_store_free(s);
	else
		*out = s;
	return rc;
}
