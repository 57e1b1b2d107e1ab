/*
 * store.c - the game as Git history: genesis, reading states from trees,
 * acting (one commit per action), the discard fan-out and its merge.
 *
 * Trees are serialised and hashed here rather than through git_treebuilder:
 * the layout is fixed and small, and hashing without writing lets verify
 * compare tree ids without touching the object database.
 */
#define _POSIX_C_SOURCE 200809L

#include "pack.h"
#include "store_internal.h"

#include <git2/sys/mempack.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	int rc = write ? git_odb_write(out, s->odb, buf, len, GIT_OBJECT_TREE)
		       : git_odb_hash(out, buf, len, GIT_OBJECT_TREE);
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
	int rc =
	    write ? git_odb_write(out, s->odb, f->data, f->len, GIT_OBJECT_BLOB)
		  : git_odb_hash(out, f->data, f->len, GIT_OBJECT_BLOB);
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
		 * let a commit's delta copy its author lines whole: about
		 * 1 B per commit more in a pack now; README, "The Git
		 * layer"). The discards after a 7, written side by side on
		 * the same 7-roll commit, share a second.
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
	if (git_commit_create(out, s->repo, NULL, asig, sig, NULL, message,
			      tree, (size_t)nparents, pc)) {
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

/* Moves refs/heads/<player> from `old` (may be NULL: create) to `id`. */
int store_move_branch(catan_store *s, int player, const git_oid *old,
		      const git_oid *id, const char *why, catan_err *err)
{
	char ref[128];
	git_reference *r = NULL;
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
	int rc = old ? git_reference_create_matching(&r, s->repo, ref, id, 1,
						     old, why)
		     : git_reference_create(&r, s->repo, ref, id, 0, why);
	git_reference_free(r);
	if (rc) {
		s->tips_held = false; /* where is it now? read it again */
		return store_git_fail(err, "moving the branch");
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

/* Removes *.lock files under dir (recursively, a few levels). */
static void clear_locks(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d || depth > 6) {
		if (d)
			closedir(d);
		return;
	}
	while ((e = readdir(d))) {
		char path[4096];
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size_t n = strlen(e->d_name);
		struct stat sb;
		if (lstat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode))
			clear_locks(path, depth + 1);
		else if (n > 5 && !strcmp(e->d_name + n - 5, ".lock"))
			unlink(path);
	}
	closedir(d);
}

/*
 * One catan process writes a repository at a time: the writer holds an
 * exclusive flock on <gitdir>/catan.lock, which the kernel releases when
 * the process dies, even by kill -9. So a ref or config lock file found
 * while holding it was left by a process that died mid-write (git's own
 * lock files are never cleaned up by a crash) and is removed: the move it
 * guarded either happened (rename done) or did not.
 */
int store_lock(catan_store *s, catan_err *err)
{
	char path[4096];
	const char *gitdir = git_repository_path(s->repo);
	snprintf(path, sizeof path, "%scatan.lock", gitdir);
	s->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (s->lock_fd < 0 || flock(s->lock_fd, LOCK_EX))
		return store_fail(err, "cannot lock %s", path);
	snprintf(path, sizeof path, "%srefs", gitdir);
	clear_locks(path, 0);
	static const char *const top[] = {"packed-refs.lock", "config.lock",
					  "HEAD.lock"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof path, "%s%s", gitdir, top[i]);
		unlink(path);
	}
	snprintf(path, sizeof path, "%slogs", gitdir);
	clear_locks(path, 0);
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
	if (git_repository_refdb(&refdb, s->repo) ||
	    git_refdb_compress(refdb)) {
		store_git_fail(err, "packing the branches");
		goto done;
	}
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
	if (!(s = store_new()))
		return store_fail(err, "out of memory");
	s->game = *g;
	s->time = time;
	if (git_repository_init(&s->repo, path, 1)) {
		store_git_fail(err, "creating the repository");
		goto done;
	}
	store_drop_template(git_repository_path(s->repo));
	if (store_lock(s, err))
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
		tree_entry e[2];
		for (int i = 0; i < 2; i++) {
			snprintf(e[i].name, sizeof e[i].name, "%s",
				 files.file[i].path + 5);
			e[i].dir = false;
			if (put_blob(&e[i].id, s, CATAN_FILES_MAX,
				     &files.file[i], true)) {
				store_git_fail(err, "writing game/");
				goto done;
			}
		}
		if (put_tree(&s->game_tree, s, e, 2, true)) {
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
	if (store_lock(s, err))
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
