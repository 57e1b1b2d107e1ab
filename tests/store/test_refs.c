/*
 * test_refs.c - the store's own refs and reflog writer (refs.c: a branch's
 * loose ref and its reflog lines; packed_refs.c: a sync's packed-refs
 * rewrite) checked against stock git after every operation: what `git
 * for-each-ref` lists, what `git reflog show` reads from each log, and
 * `git fsck --strict`. The expected refs and logs are a model the test
 * keeps (read from git once, then changed by each operation as git would
 * change them). Also a stock git holding a branch's lock file and
 * packed-refs.lock while the writer runs: the writer reports the lock,
 * leaves the file alone and succeeds once git lets go.
 */
#define _GNU_SOURCE /* popen, strtok_r, nanosleep */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "repo.h"
#include "store_helpers.h"

#define MAX_REFS 64
#define MAX_LOG	 64

typedef struct model_ref {
	char name[256];
	char hex[GIT_OID_HEXSZ + 1];
	/* Its reflog as `git reflog show --format='%H %gs'`, newest first. */
	char log[MAX_LOG][300];
	int nlog;
} model_ref;

typedef struct model {
	const char *dir;
	model_ref ref[MAX_REFS];
	int n;
} model;

static char out[1 << 16];

static model_ref *find(model *m, const char *name)
{
	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->ref[i].name, name))
			return &m->ref[i];
	return NULL;
}

/* `git reflog show` of ref in the form the model keeps. */
static void show_reflog(const char *dir, const char *ref)
{
	if (sh_run(out, sizeof out,
		   "git -C '%s' reflog show --format='%%H %%gs' '%s' --", dir,
		   ref) != 0)
		out[0] = '\0'; /* (no log) */
}

/* The model, read from git: every ref, and the reflog of each. */
static void model_load(model *m, const char *dir)
{
	memset(m, 0, sizeof *m);
	m->dir = dir;
	sh_must(out, sizeof out,
		"git -C '%s' for-each-ref --format='%%(objectname) "
		"%%(refname)'",
		dir);
	char *save = NULL, copy[sizeof out];
	memcpy(copy, out, sizeof out);
	for (char *l = strtok_r(copy, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		assert_true(m->n < MAX_REFS);
		model_ref *r = &m->ref[m->n++];
		assert_int_equal(sscanf(l, "%40s %255s", r->hex, r->name), 2);
		show_reflog(dir, r->name);
		char *s2 = NULL;
		for (char *e = strtok_r(out, "\n", &s2); e;
		     e = strtok_r(NULL, "\n", &s2)) {
			assert_true(r->nlog < MAX_LOG);
			snprintf(r->log[r->nlog++], sizeof r->log[0], "%s", e);
		}
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const model_ref *)a)->name,
		      ((const model_ref *)b)->name);
}

/* What the model says a move of ref to id (with a reflog line) does. */
static void model_move(model *m, const char *name, const git_oid *id,
		       const char *why, bool logged)
{
	model_ref *r = find(m, name);
	if (!r) {
		assert_true(m->n < MAX_REFS);
		r = &m->ref[m->n++];
		memset(r, 0, sizeof *r);
		snprintf(r->name, sizeof r->name, "%s", name);
		qsort(m->ref, (size_t)m->n, sizeof m->ref[0], by_name);
		r = find(m, name);
	}
	git_oid_tostr(r->hex, sizeof r->hex, id);
	if (!logged)
		return;
	assert_true(r->nlog < MAX_LOG);
	memmove(r->log[1], r->log[0], sizeof r->log[0] * (size_t)r->nlog);
	snprintf(r->log[0], sizeof r->log[0], "%s %s", r->hex, why);
	r->nlog++;
}

static void model_delete(model *m, const char *name)
{
	model_ref *r = find(m, name);
	assert_non_null(r);
	*r = m->ref[--m->n];
	qsort(m->ref, (size_t)m->n, sizeof m->ref[0], by_name);
}

/*
 * Compares git's view of the repository with the model: for-each-ref,
 * every reflog, fsck --strict; then that `step` left no lock file.
 */
static void check(const model *m, const char *step)
{
	char want[sizeof out];
	size_t len = 0;
	want[0] = '\0';
	for (int i = 0; i < m->n; i++)
		len +=
		    (size_t)snprintf(want + len, sizeof want - len, "%s %s\n",
				     m->ref[i].hex, m->ref[i].name);
	sh_must(out, sizeof out,
		"git -C '%s' for-each-ref --format='%%(objectname) "
		"%%(refname)'",
		m->dir);
	if (strcmp(out, want))
		fail_msg("after %s, git for-each-ref:\n%s\nexpected:\n%s", step,
			 out, want);
	for (int i = 0; i < m->n; i++) {
		const model_ref *r = &m->ref[i];
		len = 0;
		want[0] = '\0';
		for (int k = 0; k < r->nlog; k++)
			len += (size_t)snprintf(want + len, sizeof want - len,
						"%s\n", r->log[k]);
		show_reflog(m->dir, r->name);
		if (strcmp(out, want))
			fail_msg("after %s, git reflog show %s:\n%s\n"
				 "expected:\n%s",
				 step, r->name, out, want);
	}
	if (sh_run(out, sizeof out,
		   "git -C '%s' fsck --strict --no-dangling --no-progress "
		   "2>&1",
		   m->dir) != 0 ||
	    out[0])
		fail_msg("after %s, git fsck --strict:\n%s", step, out);
	if (sh_run(out, sizeof out,
		   "cd '%s' && find . -name '*.lock' ! -name catan.lock",
		   m->dir) != 0 ||
	    out[0])
		fail_msg("after %s, lock files left:\n%s", step, out);
}

/*
 * A new commit on top of parent (its tree, its turn: the store's
 * ancestry walk goes by Turn trailers), by player name.
 */
static git_oid child_of(catan_store *s, const git_oid *parent, const char *name,
			const char *subject)
{
	git_oid tree = sh_commit_tree(s->repo, parent);
	int turn = store_turn_of(s, parent);
	assert_true(turn >= 0);
	return sh_commit_action(s->repo, &tree, parent, name, subject, turn,
				NULL);
}

typedef struct fixture {
	char *dir;
	catan_game g;
	catan_store *s;
	model m;
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof *fx);
	catan_rng rng;
	fx->dir = sh_tmpdir("refs");
	sh_game(&fx->g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 5);
	/* CATAN_TIME_NOW: reflogs kept (core.logAllRefUpdates). */
	fx->s = sh_create_mode(fx->dir, &fx->g, CATAN_TIME_NOW);
	catan_rng_seed(&rng, 5);
	sh_play(fx->s, 12, &rng, 0, NULL, NULL);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;
	catan_store_free(fx->s);
	sh_rmrf(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

static const char *branch(fixture *fx, int p, char *buf, size_t size)
{
	snprintf(buf, size, "refs/heads/%s", fx->g.names.name[p]);
	return buf;
}

/*
 * Create, update, rewind a branch through refs.c; a branch deleted by git
 * and created again; packed-refs written by git (git pack-refs) and by us
 * (branches and remote-tracking refs, loose files removed); a loose move
 * over a packed ref; refs held back by quarantine (written by libgit2) and
 * removed. git agrees with the model after each.
 */
static void test_refs__writer_against_git(void **state)
{
	fixture *fx = *state;
	catan_store *s = fx->s;
	model *m = &fx->m;
	catan_err err = {0};
	char red[64], blue[64], white[64];
	branch(fx, 0, red, sizeof red);
	branch(fx, 1, blue, sizeof blue);
	branch(fx, 3, white, sizeof white);
	model_load(m, fx->dir);
	check(m, "the game's own commits");
	assert_non_null(find(m, red));
	assert_true(find(m, red)->nlog > 1);

	git_oid r0 = sh_rev(s->repo, red), b0 = sh_rev(s->repo, blue);
	git_oid r1 = child_of(s, &r0, fx->g.names.name[0], "one\n");
	git_oid r2 = child_of(s, &r1, fx->g.names.name[0], "two\n");
	git_oid r3 = child_of(s, &r2, fx->g.names.name[0], "three\n");

	/* Update, twice, then rewind (an equivocation verdict's move). */
	assert_int_equal(store_move_branch(s, 0, &r0, &r1, "move one", &err),
			 0);
	model_move(m, red, &r1, "move one", true);
	check(m, "an update");
	assert_int_equal(store_move_branch(s, 0, &r1, &r2, "move two", &err),
			 0);
	model_move(m, red, &r2, "move two", true);
	check(m, "a second update");
	assert_int_equal(store_rewind_branch(s, 0, &r2, &r1, &err), 0);
	model_move(m, red, &r1, "catan: equivocation verdict", true);
	check(m, "a rewind");

	/* Refused: not a fast-forward, and not at old; nothing written. */
	assert_int_equal(store_move_branch(s, 0, &r1, &b0, "no", &err), -1);
	assert_int_equal(err.code, CATAN_STORE_E_DENIED);
	assert_int_equal(store_move_branch(s, 0, &r0, &r2, "no", &err), -1);
	assert_int_equal(err.code, CATAN_STORE_E_LOCKED);
	check(m, "two refused moves");
	/* A rewind to a commit that is not an ancestor, or from elsewhere. */
	assert_int_equal(store_rewind_branch(s, 0, &r1, &r3, &err), -1);
	assert_int_equal(err.code, CATAN_STORE_E_DENIED);
	assert_int_equal(store_rewind_branch(s, 0, &r2, &r0, &err), -1);
	assert_int_equal(err.code, CATAN_STORE_E_LOCKED);
	check(m, "two refused rewinds");

	/* Deleted by git (with its log), created again by us. */
	git_oid w0 = sh_rev(s->repo, white);
	sh_must(NULL, 0, "git -C '%s' update-ref -d '%s'", fx->dir, white);
	model_delete(m, white);
	check(m, "git update-ref -d");
	assert_int_equal(
	    store_move_branch(s, 3, NULL, &w0, "created again", &err), 0);
	model_move(m, white, &w0, "created again", true);
	find(m, white)->nlog = 1; /* (a new log: git removed the old one) */
	check(m, "a create");
	assert_int_equal(store_move_branch(s, 3, NULL, &w0, "twice", &err), -1);
	check(m, "a create of a branch that exists");

	/* git packs every ref; we move a packed branch (a loose file). */
	sh_must(NULL, 0, "git -C '%s' pack-refs --all --prune", fx->dir);
	check(m, "git pack-refs");
	assert_int_equal(store_move_branch(s, 0, &r1, &r2, "over packed", &err),
			 0);
	model_move(m, red, &r2, "over packed", true);
	check(m, "a loose move over a packed ref");

	/*
	 * Our packed-refs write: red (loose) and blue (packed) moved, a new
	 * remote-tracking ref; red's loose file goes.
	 */
	git_oid b1 = child_of(s, &b0, fx->g.names.name[1], "bee\n");
	git_config *cfg = NULL;
	assert_int_equal(git_repository_config_snapshot(&cfg, s->repo), 0);
	tracking t[3];
	memset(t, 0, sizeof t);
	snprintf(t[0].ref, sizeof t[0].ref, "%s", red);
	t[0].old = r2, t[0].id = r3, t[0].peer = -1, t[0].player = 0;
	snprintf(t[1].ref, sizeof t[1].ref, "%s", blue);
	t[1].old = b0, t[1].id = b1, t[1].peer = -1, t[1].player = 1;
	snprintf(t[2].ref, sizeof t[2].ref, "refs/remotes/origin/%s",
		 fx->g.names.name[0]);
	t[2].id = r3, t[2].peer = 0, t[2].player = 0;
	char why[512] = "";
	if (store_write_packed(s, cfg, t, 3, why, sizeof why))
		fail_msg("store_write_packed: %s", why);
	model_move(m, red, &r3, "catan sync", true);
	model_move(m, blue, &b1, "catan sync", true);
	model_move(m, t[2].ref, &r3, "catan sync", true);
	check(m, "our packed-refs write");
	struct stat sb;
	char path[STORE_PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", fx->dir, red);
	assert_int_equal(lstat(path, &sb), -1); /* packed now */
	sh_must(out, sizeof out, "head -1 '%s/packed-refs'", fx->dir);
	assert_non_null(strstr(out, "# pack-refs with: peeled fully-peeled "
				    "sorted"));

	/* The remote-tracking ref moves again (its old value known). */
	git_oid r4 = child_of(s, &r3, fx->g.names.name[0], "four\n");
	t[0] = t[2];
	t[0].old = r3, t[0].id = r4, t[0].packed = true;
	if (store_write_packed(s, cfg, t, 1, why, sizeof why))
		fail_msg("store_write_packed: %s", why);
	model_move(m, t[0].ref, &r4, "catan sync", true);
	check(m, "a packed remote-tracking ref moved");

	/* A quarantine ref (written by libgit2), then deleted by git. */
	sh_move_ref(s->repo, "refs/quarantine/origin/red/1", &r4,
		    "catan sync: quarantined");
	model_move(m, "refs/quarantine/origin/red/1", &r4,
		   "catan sync: quarantined", true);
	check(m, "a quarantine ref");
	sh_must(NULL, 0,
		"git -C '%s' update-ref -d refs/quarantine/origin/red/1",
		fx->dir);
	model_delete(m, "refs/quarantine/origin/red/1");
	check(m, "a quarantine ref deleted");
	git_config_free(cfg);
}

/* Starts `git update-ref --stdin` in dir with a transaction prepared. */
static FILE *git_holding(const char *dir, const char *commands,
			 const char *lock)
{
	char cmd[1024], path[STORE_PATH_MAX];
	snprintf(cmd, sizeof cmd,
		 "git -C '%s' update-ref --stdin >'%s/git-says' 2>&1", dir,
		 dir);
	FILE *p = popen(cmd, "w");
	assert_non_null(p);
	fprintf(p, "start\n%sprepare\n", commands);
	fflush(p);
	/* Until git holds the lock (it says "prepare: ok" then). */
	snprintf(path, sizeof path, "%s/%s", dir, lock);
	for (int i = 0; i < 3000; i++) {
		sh_run(out, sizeof out, "cat '%s/git-says' 2>/dev/null", dir);
		if (strstr(out, "prepare: ok") || strstr(out, "fatal"))
			break;
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	}
	if (!strstr(out, "prepare: ok") || access(path, F_OK))
		fail_msg("git did not take %s: %s", lock, out);
	return p;
}

static void git_release(FILE *p, const char *dir)
{
	fprintf(p, "abort\n");
	assert_int_equal(pclose(p), 0);
	char path[STORE_PATH_MAX];
	snprintf(path, sizeof path, "%s/git-says", dir);
	unlink(path);
}

/*
 * A stock git holds refs/heads/<red>.lock, then packed-refs.lock, in an
 * open `update-ref --stdin` transaction: our writer reports LOCKED (or
 * names packed-refs.lock), leaves git's lock file, moves nothing, and
 * succeeds once git aborts.
 */
static void test_refs__git_holding_locks(void **state)
{
	fixture *fx = *state;
	catan_store *s = fx->s;
	model *m = &fx->m;
	catan_err err = {0};
	char red[64], blue[64], cmds[512], lock[300];
	branch(fx, 0, red, sizeof red);
	branch(fx, 1, blue, sizeof blue);
	model_load(m, fx->dir);
	check(m, "the game's own commits");
	git_oid r0 = sh_rev(s->repo, red), b0 = sh_rev(s->repo, blue);
	git_oid r1 = child_of(s, &r0, fx->g.names.name[0], "one\n");
	char h0[GIT_OID_HEXSZ + 1], h1[GIT_OID_HEXSZ + 1];
	git_oid_tostr(h0, sizeof h0, &r0);
	git_oid_tostr(h1, sizeof h1, &r1);

	/* git's transaction on red: its lock file. */
	snprintf(cmds, sizeof cmds, "update %s %s %s\n", red, h1, h0);
	snprintf(lock, sizeof lock, "%s.lock", red);
	FILE *g = git_holding(fx->dir, cmds, lock);
	assert_int_equal(store_move_branch(s, 0, &r0, &r1, "ours", &err), -1);
	assert_int_equal(err.code, CATAN_STORE_E_LOCKED);
	assert_non_null(strstr(err.msg, lock));
	char path[STORE_PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", fx->dir, lock);
	assert_int_equal(access(path, F_OK), 0); /* git's, left alone */
	git_release(g, fx->dir);
	check(m, "our move refused while git held the branch's lock");
	assert_int_equal(store_move_branch(s, 0, &r0, &r1, "ours", &err), 0);
	model_move(m, red, &r1, "ours", true);
	check(m, "our move once git let go");

	/* git deletes a packed ref: it holds packed-refs.lock meanwhile. */
	sh_must(NULL, 0,
		"git -C '%s' update-ref refs/tags/x %s && git -C "
		"'%s' pack-refs --all --prune",
		fx->dir, h0, fx->dir);
	model_move(m, "refs/tags/x", &r0, "", true); /* (always logged) */
	check(m, "git pack-refs");
	g = git_holding(fx->dir, "delete refs/tags/x\n", "packed-refs.lock");
	git_config *cfg = NULL;
	assert_int_equal(git_repository_config_snapshot(&cfg, s->repo), 0);
	git_oid b1 = child_of(s, &b0, fx->g.names.name[1], "bee\n");
	tracking t[1];
	memset(t, 0, sizeof t);
	snprintf(t[0].ref, sizeof t[0].ref, "%s", blue);
	t[0].old = b0, t[0].id = b1, t[0].peer = -1, t[0].player = 1;
	char why[512] = "";
	assert_int_equal(store_write_packed(s, cfg, t, 1, why, sizeof why), -1);
	assert_non_null(strstr(why, "packed-refs.lock"));
	assert_non_null(strstr(why, "File exists"));
	snprintf(path, sizeof path, "%s/packed-refs.lock", fx->dir);
	assert_int_equal(access(path, F_OK), 0); /* git's, left alone */
	git_release(g, fx->dir);
	check(m, "our packed-refs write refused while git held its lock");
	if (store_write_packed(s, cfg, t, 1, why, sizeof why))
		fail_msg("store_write_packed: %s", why);
	model_move(m, blue, &b1, "catan sync", true);
	check(m, "our packed-refs write once git let go");
	git_config_free(cfg);
}

/* A raw commit on tree `tree` whose one parent is `parent`, written as is
 * (libgit2's commit writer would refuse a parent that is no commit). */
static git_oid raw_commit(git_repository *repo, const git_oid *tree,
			  const git_oid *parent)
{
	char t[GIT_OID_HEXSZ + 1], p[GIT_OID_HEXSZ + 1], body[400];
	git_oid_tostr(t, sizeof t, tree);
	git_oid_tostr(p, sizeof p, parent);
	int n = snprintf(body, sizeof body,
			 "tree %s\nparent %s\nauthor red <red@catan> 0 +0000\n"
			 "committer red <red@catan> 0 +0000\n\nforged\n",
			 t, p);
	git_odb *odb = NULL;
	git_oid id;
	assert_int_equal(git_repository_odb(&odb, repo), 0);
	assert_int_equal(
	    git_odb_write(&id, odb, body, (size_t)n, GIT_OBJECT_COMMIT), 0);
	git_odb_free(odb);
	return id;
}

/*
 * store_descends tells a commit on the way that is not in the object
 * database (-2: a pack left it out; sync fetches it again, no verdict)
 * from one that is there but is no commit (-1: the remote's tip is then
 * a rewrite, quarantined), and both from an answer (1, 0).
 */
static void test_refs__descends_absent_or_not_a_commit(void **state)
{
	fixture *fx = *state;
	git_repository *repo = fx->s->repo;
	git_oid tip, parent, blob, absent;
	git_commit *c = NULL;
	char buf[64];
	assert_int_equal(git_reference_name_to_id(
			     &tip, repo, branch(fx, 0, buf, sizeof buf)),
			 0);
	assert_int_equal(git_commit_lookup(&c, repo, &tip), 0);
	assert_true(git_commit_parentcount(c) > 0);
	parent = *git_commit_parent_id(c, 0);
	git_oid tree = *git_commit_tree_id(c);
	git_commit_free(c);
	assert_int_equal(store_descends(repo, &tip, &parent), 1);
	assert_int_equal(store_descends(repo, &parent, &tip), 0);
	assert_int_equal(git_blob_create_from_buffer(&blob, repo, "x\n", 2), 0);
	git_oid on_blob = raw_commit(repo, &tree, &blob);
	assert_int_equal(store_descends(repo, &on_blob, &parent), -1);
	assert_int_equal(git_oid_fromstr(&absent, "1111111111111111111111111111"
						  "111111111111"),
			 0);
	git_oid on_absent = raw_commit(repo, &tree, &absent);
	assert_int_equal(store_descends(repo, &on_absent, &parent), -2);
}

int main(void)
{
	if (sh_run(NULL, 0, "git --version >/dev/null 2>&1") != 0) {
		printf("skipped: no git\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_refs__writer_against_git,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refs__git_holding_locks, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(
		test_refs__descends_absent_or_not_a_commit, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
