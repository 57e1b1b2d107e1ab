/*
 * state.c - layer 3 (codec): a state as a Git tree (through the pure
 * codec) and back: reading refuses anything but the plain files and trees
 * of a state, and any file over STORE_MAX_OBJECT, before reading it.
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

#include "state.h"

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

int store_state_tree(git_oid *out, catan_store *s, const catan_state *st,
		     const store_fair *fair, bool write)
{
	catan_files f;
	catan_files_init(&f);
	int rc = catan_codec_encode_state(&f, &s->game, st);
	if (!rc && fair && s->game.opt.dice == CATAN_DICE_FAIR)
		rc = store_fair_encode(&f, &s->game, fair);
	if (!rc)
		rc = store_tree_of(out, s, &f, write);
	catan_files_free(&f);
	return rc ? -1 : 0;
}

/* ---- reading trees back ---- */

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
 * Refuses anything but plain files and trees, and any file over
 * STORE_MAX_OBJECT (from the object header, before reading it).
 */
int store_read_tree_into(catan_files *out, git_repository *repo, git_odb *odb,
			 const git_oid *id, const char *prefix, int depth,
			 const char *skip, catan_err *err)
{
	git_tree *tree = NULL;
	int rc = -1;
	if (depth > 3)
		return store_fail_code(err, CATAN_STORE_E_CORRUPT,
				       "tree %s nests too deep", prefix);
	if (git_tree_lookup(&tree, repo, id))
		return store_git_fail(err, "reading a tree");
	size_t n = git_tree_entrycount(tree);
	if (n > CATAN_FILES_MAX) {
		store_fail_code(err, CATAN_STORE_E_CORRUPT,
				"tree \"%s\" has %zu entries: too many", prefix,
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
			store_fail_code(
			    err, CATAN_STORE_E_CORRUPT,
			    "unexpected entry \"%s%.40s\" (name too "
			    "long)",
			    prefix, shown);
			goto done;
		}
		git_filemode_t mode = git_tree_entry_filemode(e);
		if (mode == GIT_FILEMODE_TREE) {
			if (store_read_tree_into(out, repo, odb,
						 git_tree_entry_id(e), sub,
						 depth + 1, NULL, err))
				goto done;
			continue;
		}
		if (mode != GIT_FILEMODE_BLOB) {
			store_fail_code(err, CATAN_STORE_E_CORRUPT,
					"\"%s\" is not a plain file", path);
			goto done;
		}
		size_t len = 0;
		git_object_t type;
		if (git_odb_read_header(&len, &type, odb,
					git_tree_entry_id(e))) {
			store_git_fail(err, "reading a blob header");
			goto done;
		}
		if (len > STORE_MAX_OBJECT) {
			store_fail_code(err, CATAN_STORE_E_CORRUPT,
					"file \"%s\" is %zu bytes: too large",
					path, len);
			goto done;
		}
		git_blob *blob = NULL;
		if (git_blob_lookup(&blob, repo, git_tree_entry_id(e))) {
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
			store_fail_code(
			    err, CATAN_STORE_E_CORRUPT,
			    "unexpected entry \"%s\" (too many files)", shown);
			goto done;
		}
	}
	rc = 0;
done:
	git_tree_free(tree);
	return rc;
}

int store_read_state(catan_state *out, store_fair *fair, catan_store *s,
		     const git_oid *tree, catan_err *err)
{
	catan_files files, rest;
	store_fair ignored;
	char why[160];
	catan_codec_error ce;
	git_tree *t = NULL;
	int rc = -1;

	catan_files_init(&files);
	catan_files_init(&rest);
	if (fair)
		memset(fair, 0, sizeof *fair);
	if (git_tree_lookup(&t, s->repo, tree)) {
		store_git_fail(err, "reading a state tree");
		goto done;
	}
	const git_tree_entry *game = git_tree_entry_byname(t, "game");
	/*
	 * In a game with a lobby the genesis, each claim and the start hold
	 * game/s of their own (the seats bound so far): the state files are
	 * read against the board and options they all share, and whoever
	 * checks such a commit compares its whole tree id (verify_lobby.c).
	 */
	if (!game || (!git_oid_equal(git_tree_entry_id(game), &s->game_tree) &&
		      !s->lobby.open)) {
		store_fail_code(err, CATAN_STORE_E_CORRUPT,
				"game/ differs from the genesis (the board, "
				"options and players never change)");
		goto done;
	}
	/* Everything but game/ (already known and checked). */
	if (store_read_tree_into(&files, s->repo, s->odb, tree, "", 0, "game",
				 err))
		goto done;
	if (s->game.opt.dice == CATAN_DICE_FAIR) {
		/* The chain files first: the codec knows only the rules'. */
		if (store_fair_take(fair ? fair : &ignored, &rest, &s->game,
				    &files, why, sizeof why)) {
			store_fail_code(err, CATAN_STORE_E_CORRUPT, "%s", why);
			goto done;
		}
		catan_files tmp = files;
		files = rest;
		rest = tmp;
	}
	if (catan_codec_decode_state(out, &s->game, &files, &ce)) {
		char shown[128];
		printable(shown, sizeof shown, ce.path);
		if (ce.line)
			store_fail_code(err, CATAN_STORE_E_CORRUPT, "%s:%d: %s",
					shown, ce.line, ce.msg);
		else
			store_fail_code(err, CATAN_STORE_E_CORRUPT, "%s: %s",
					shown, ce.msg);
		goto done;
	}
	rc = 0;
done:
	git_tree_free(t);
	catan_files_free(&files);
	catan_files_free(&rest);
	return rc;
}

int store_read_genesis(catan_game *out, git_oid *game_tree,
		       git_repository *repo, git_odb *odb, const git_oid *root,
		       catan_codec_error *ce, catan_err *err)
{
	git_commit *genesis = NULL;
	git_tree *tree = NULL;
	catan_files files;
	int rc;
	catan_files_init(&files);
	memset(ce, 0, sizeof *ce);
	if (git_commit_lookup(&genesis, repo, root) ||
	    git_commit_parentcount(genesis) != 0) {
		store_fail_code(err, CATAN_STORE_E_CORRUPT,
				"the oldest commit is not a root commit");
		rc = STORE_GENESIS_NOT_ROOT;
		goto done;
	}
	if (git_commit_tree(&tree, genesis)) {
		store_git_fail(err, "reading the genesis tree");
		rc = STORE_GENESIS_NOT_ROOT;
		goto done;
	}
	const git_tree_entry *game = git_tree_entry_byname(tree, "game");
	if (!game || git_tree_entry_filemode(game) != GIT_FILEMODE_TREE) {
		store_fail_code(err, CATAN_STORE_E_CORRUPT,
				"the genesis has no game/ directory");
		rc = STORE_GENESIS_FILES;
		goto done;
	}
	if (store_read_tree_into(&files, repo, odb, git_tree_entry_id(game),
				 "game/", 1, NULL, err)) {
		rc = STORE_GENESIS_FILES;
		goto done;
	}
	if (catan_codec_decode_game(out, &files, ce)) {
		char text[sizeof ce->path + sizeof ce->msg + 16];
		catan_codec_error_text(text, sizeof text, ce);
		store_fail_code(err, CATAN_STORE_E_CORRUPT, "%s", text);
		rc = STORE_GENESIS_DECODE;
		goto done;
	}
	git_oid_cpy(game_tree, git_tree_entry_id(game));
	rc = 0;
done:
	git_tree_free(tree);
	git_commit_free(genesis);
	catan_files_free(&files);
	return rc;
}
