/*
 * test_verify.c - catan_store_verify against injected misbehaviour: every
 * kind of bad history is written with raw libgit2 calls into a copy of a
 * valid game repository (one with a discard merge), and verify must name
 * the injected commit and say what is wrong, without writing anything.
 */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "store_helpers.h"

static char *g_tmp;
static char g_fixture[600];
static long g_fixture_merges;

/*
 * A 3-player manual-dice game: set-up, quiet turns until two or more
 * players would owe discards, a 7, the discards (merged), the robber, and
 * one more quiet turn.
 */
static int fixture_setup(void **st)
{
	catan_game g;
	catan_rng rng;
	catan_state cur;
	(void)st;
	g_tmp = sh_tmpdir("verify");
	snprintf(g_fixture, sizeof g_fixture, "%s/fixture", g_tmp);
	sh_game(&g, 3, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_MANUAL, 17);
	/* Real time, as a table plays: the branches keep reflogs. */
	catan_store *s = sh_create_mode(g_fixture, &g, CATAN_TIME_NOW);
	catan_rng_seed(&rng, 17);
	sh_play_setup(s, &rng);
	for (int turn = 0; turn < 300; turn++) {
		sh_current(s, &cur, NULL);
		if (sh_owing_if_seven(&cur) >= 2)
			break;
		sh_quiet_turn(s, &rng);
	}
	sh_current(s, &cur, NULL);
	assert_true(sh_owing_if_seven(&cur) >= 2);
	sh_act(s, cur.active, "roll 3 4", NULL);
	sh_current(s, &cur, NULL);
	/* Discards in reverse player order. */
	for (int p = g.opt.nplayers - 1; p >= 0; p--) {
		if (!cur.discard[p])
			continue;
		catan_action a = sh_first_legal(&g, &cur, p);
		sh_act_a(s, p, &a, NULL);
		sh_current(s, &cur, NULL);
	}
	catan_action robber = sh_first_legal(&g, &cur, cur.active);
	sh_act_a(s, cur.active, &robber, NULL);
	sh_act(s, cur.active, "end", NULL);
	sh_quiet_turn(s, &rng);

	catan_verify_report rep;
	catan_err err = {0};
	assert_int_equal(catan_store_verify(s, &rep, &err), 0);
	if (!rep.ok)
		fail_msg("the fixture does not verify: %s: %s", rep.bad.hex,
			 rep.why);
	g_fixture_merges = rep.merges;
	catan_store_free(s);
	return 0;
}

static int fixture_teardown(void **st)
{
	(void)st;
	sh_rmrf(g_tmp);
	free(g_tmp);
	return 0;
}

/* One injection: a copy of the fixture, open both ways. */
typedef struct inj {
	char *tmp;
	char dir[600];
	git_repository *repo;
	catan_store *s;
	const catan_game *g;
	catan_state cur;
	git_oid head;
	git_oid head_tree;
	int next; /* who acts next */
} inj;

static void inj_begin(inj *x)
{
	catan_commit_id head;
	x->tmp = sh_tmpdir("inject");
	snprintf(x->dir, sizeof x->dir, "%s/game", x->tmp);
	sh_copy_dir(g_fixture, x->dir);
	x->s = sh_open(x->dir);
	x->g = catan_store_game(x->s);
	sh_current(x->s, &x->cur, &head);
	x->head = sh_oid(head.hex);
	x->repo = sh_repo(x->dir);
	x->head_tree = sh_commit_tree(x->repo, &x->head);
	x->next = catan_state_next_actor(&x->cur);
	assert_int_not_equal(x->next, CATAN_NONE);
}

/* Tree of the encoding of st (game/ included), as the store writes it. */
static git_oid state_tree(inj *x, const catan_state *st)
{
	catan_files f;
	catan_files_init(&f);
	sh_encode_all(&f, x->g, st);
	git_oid id = sh_tree_from_files(x->repo, &f);
	catan_files_free(&f);
	return id;
}

/* The legal action number k of the next actor, its text and its result. */
static catan_action legal(inj *x, int k, char *text, size_t size,
			  catan_state *after)
{
	static catan_action buf[4096];
	int n =
	    catan_legal_actions(buf, 4096, &x->g->board, &x->cur, x->next, 0);
	assert_true(k < n && k < 4096);
	sh_format(text, size, x->g, &buf[k]);
	if (after)
		assert_int_equal(catan_state_apply(after, &x->g->board, &x->cur,
						   x->next, &buf[k], NULL),
				 CATAN_OK);
	return buf[k];
}

/* The Dice trailer a commit of `text` carries: after's dice on a roll. */
static const uint8_t *roll_dice(const char *text, const catan_state *after)
{
	return !strcmp(text, "roll") || !strncmp(text, "roll ", 5)
		   ? after->dice
		   : NULL;
}

static void branch_of(char *out, size_t size, inj *x, int p)
{
	snprintf(out, size, "refs/heads/%s", x->g->names.name[p]);
}

/* Moves player p's branch to id (a logged move, as git push would). */
static void move_branch(inj *x, int p, const git_oid *id)
{
	char ref[64];
	branch_of(ref, sizeof ref, x, p);
	sh_move_ref(x->repo, ref, id, "injected");
}

/*
 * The commit of the next actor's first legal action on the head, with the
 * tree of its result (*after, may be NULL), written but not on a branch.
 */
static git_oid legal_commit(inj *x, catan_state *after)
{
	char text[160];
	catan_state next;
	legal(x, 0, text, sizeof text, &next);
	git_oid tree = state_tree(x, &next);
	if (after)
		*after = next;
	return sh_commit_action(x->repo, &tree, &x->head,
				x->g->names.name[x->next], text, x->cur.turn,
				roll_dice(text, &next));
}

/*
 * Runs verify on a fresh handle and expects it to accept the history;
 * `what` names the injection in the failure. Returns the handle (the
 * caller frees it and the directory).
 */
static catan_store *inj_expect_ok(inj *x, const char *what)
{
	catan_verify_report rep;
	catan_err err = {0};
	catan_store_free(x->s);
	git_repository_free(x->repo);
	catan_store *s = sh_open(x->dir);
	assert_int_equal(catan_store_verify(s, &rep, &err), 0);
	if (!rep.ok)
		fail_msg("verify refused %s: %s: %s", what, rep.bad.hex,
			 rep.why);
	return s;
}

/*
 * Runs verify on a fresh handle and expects it to reject commit `bad` (or
 * `bad2` when not NULL) with a reason containing `why` (NULL: any), and to
 * write nothing. Cleans up.
 */
static void inj_expect_bad(inj *x, const git_oid *bad, const git_oid *bad2,
			   const char *why)
{
	char before[8192], after[8192];
	catan_verify_report rep;
	catan_err err = {0};
	catan_store_free(x->s);
	git_repository_free(x->repo);
	long n0 = sh_fingerprint(x->dir, before, sizeof before);
	catan_store *s = sh_open(x->dir);
	int rc = catan_store_verify(s, &rep, &err);
	catan_store_free(s);
	long n1 = sh_fingerprint(x->dir, after, sizeof after);
	assert_int_equal(rc, 0);
	if (rep.ok)
		fail_msg("verify accepted the injected history");
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1] = "";
	git_oid_tostr(a, sizeof a, bad);
	if (bad2)
		git_oid_tostr(b, sizeof b, bad2);
	if (strcmp(rep.bad.hex, a) && (!bad2 || strcmp(rep.bad.hex, b)))
		fail_msg("verify blamed %s (%s), not the injected %s %s",
			 rep.bad.hex, rep.why, a, b);
	if (why && !strstr(rep.why, why))
		fail_msg("reason \"%s\" does not mention \"%s\"", rep.why, why);
	/* Only an object not here is no verdict on the commit (sync fetches
	 * it again); anything else wrong with it is its author's. */
	if (rep.incomplete != (strstr(rep.why, "is missing") != NULL))
		fail_msg("reason \"%s\" with incomplete %d", rep.why,
			 rep.incomplete);
	/* Verify reads only. */
	assert_int_equal(n0, n1);
	assert_string_equal(before, after);
	sh_rmrf(x->tmp);
	free(x->tmp);
}

/* ---- the fixture ---- */

static void test_verify__fixture_is_valid(void **st)
{
	char out[4096];
	(void)st;
	assert_true(g_fixture_merges >= 1);
	int rc = sh_run(out, sizeof out, "'%s' -C '%s' verify 2>&1", CATAN_BIN,
			g_fixture);
	if (rc != 0)
		fail_msg("catan verify on a good game (%d): %s", rc, out);
	assert_int_equal(strncmp(out, "ok:", 3), 0);
	rc = sh_run(out, sizeof out, "git -C '%s' fsck --strict 2>&1",
		    g_fixture);
	assert_int_equal(rc, 0);
	/* Every branch has a reflog for verify to read. */
	rc = sh_run(out, sizeof out,
		    "cd '%s' && for b in red blue white; do "
		    "test -s logs/refs/heads/$b || echo missing $b; done",
		    g_fixture);
	assert_string_equal(out, "");
}

/* ---- injections ---- */

static void test_verify__tampered_tree(void **st)
{
	inj x;
	char text[160];
	catan_state next;
	(void)st;
	inj_begin(&x);
	legal(&x, 0, text, sizeof text, &next);
	/* The right state, but one card more in the actor's hand. */
	next.players[x.next].hand[CATAN_ORE]++;
	next.players[x.next].ncards++;
	git_oid tree = state_tree(&x, &next);
	git_oid c = sh_commit_action(x.repo, &tree, &x.head,
				     x.g->names.name[x.next], text, x.cur.turn,
				     roll_dice(text, &next));
	move_branch(&x, x.next, &c);
	inj_expect_bad(&x, &c, NULL, "tree");
}

static void test_verify__right_tree_is_accepted(void **st)
{
	/* The control: the same injection without the tampering passes. */
	inj x;
	catan_state next;
	(void)st;
	inj_begin(&x);
	git_oid c = legal_commit(&x, &next);
	move_branch(&x, x.next, &c);
	catan_store *s = inj_expect_ok(&x, "a hand-made valid commit");
	catan_state cur;
	sh_current(s, &cur, NULL);
	assert_true(catan_state_hash(&cur) == catan_state_hash(&next));
	catan_store_free(s);
	sh_rmrf(x.tmp);
	free(x.tmp);
}

static void test_verify__illegal_action(void **st)
{
	inj x;
	char text[160], name[32];
	catan_action a;
	(void)st;
	inj_begin(&x);
	int v = -1;
	CATAN_FOR_BITS(b, x.cur.players[x.next].settlements.w, CATAN_VWORDS)
	{
		if (v < 0)
			v = b;
	}
	assert_true(v >= 0);
	catan_vertex_format(name, sizeof name, &x.g->board, v);
	snprintf(text, sizeof text, "build city %s", name);
	assert_int_equal(
	    catan_action_parse(&a, &x.g->board, &x.g->names, text, NULL),
	    CATAN_OK);
	catan_state tmp;
	assert_int_not_equal(
	    catan_state_apply(&tmp, &x.g->board, &x.cur, x.next, &a, NULL),
	    CATAN_OK);
	git_oid c = sh_commit_action(x.repo, &x.head_tree, &x.head,
				     x.g->names.name[x.next], text, x.cur.turn,
				     NULL);
	move_branch(&x, x.next, &c);
	/* The CLI says so too. */
	{
		char out[4096], want[128];
		catan_store_free(x.s);
		x.s = NULL;
		int rc = sh_run(out, sizeof out, "'%s' -C '%s' verify 2>&1",
				CATAN_BIN, x.dir);
		assert_int_equal(rc, 1);
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof hex, &c);
		snprintf(want, sizeof want, "BAD commit %s: ", hex);
		if (strncmp(out, want, strlen(want)))
			fail_msg("catan verify said: %s", out);
		x.s = sh_open(x.dir);
	}
	inj_expect_bad(&x, &c, NULL, "illegal");
}

static void test_verify__trailer_names_another_player(void **st)
{
	inj x;
	char text[160], msg[256], email[64];
	catan_state next;
	(void)st;
	inj_begin(&x);
	legal(&x, 0, text, sizeof text, &next);
	git_oid tree = state_tree(&x, &next);
	int other = (x.next + 1) % x.g->opt.nplayers;
	/* Author is the actor; the Player trailer names someone else. */
	int n = snprintf(msg, sizeof msg, "%s\n\nPlayer: %s\nTurn: %d\n",
			 text, x.g->names.name[other], x.cur.turn);
	const uint8_t *dice = roll_dice(text, &next);
	if (dice)
		snprintf(msg + n, sizeof msg - (size_t)n, "Dice: %d %d\n",
			 dice[0], dice[1]);
	snprintf(email, sizeof email, "%s@" SH_EMAIL_DOMAIN,
		 x.g->names.name[x.next]);
	git_oid c = sh_commit_raw(x.repo, &tree, &x.head, 1,
				  x.g->names.name[x.next], email, msg);
	move_branch(&x, x.next, &c);
	inj_expect_bad(&x, &c, NULL, "Player");
}

static void test_verify__author_may_not_act(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	int other = (x.next + 1) % x.g->opt.nplayers;
	assert_false(catan_state_may_act(&x.cur, other));
	git_oid c = sh_commit_action(x.repo, &x.head_tree, &x.head,
				     x.g->names.name[other], "end", x.cur.turn,
				     NULL);
	move_branch(&x, other, &c);
	inj_expect_bad(&x, &c, NULL, "may not act");
}

static void test_verify__author_is_not_a_player(void **st)
{
	inj x;
	char text[160];
	catan_state next;
	(void)st;
	inj_begin(&x);
	legal(&x, 0, text, sizeof text, &next);
	git_oid tree = state_tree(&x, &next);
	git_oid c = sh_commit_action(x.repo, &tree, &x.head, "mallory", text,
				     x.cur.turn, roll_dice(text, &next));
	move_branch(&x, x.next, &c);
	inj_expect_bad(&x, &c, NULL, "mallory");
}

static void test_verify__rewritten_branch(void **st)
{
	inj x;
	git_commit *tip = NULL;
	char ref[64];
	(void)st;
	inj_begin(&x);
	/* The last commit of the fixture: "end" by the previous player. */
	git_oid last = x.head;
	assert_int_equal(git_commit_lookup(&tip, x.repo, &last), 0);
	assert_string_equal(git_commit_summary(tip), "end");
	const char *who = git_commit_author(tip)->name;
	int p = catan_names_find(&x.g->names, who, strlen(who));
	assert_true(p >= 0);
	branch_of(ref, sizeof ref, &x, p);
	git_oid branch_tip = sh_rev(x.repo, ref);
	assert_true(git_oid_equal(&last, &branch_tip));
	git_oid parent = *git_commit_parent_id(tip, 0);
	/* The same action again on the same parent: another commit. */
	catan_state pst;
	catan_err err = {0};
	char phex[GIT_OID_HEXSZ + 1];
	git_oid_tostr(phex, sizeof phex, &parent);
	catan_commit_id pid;
	assert_int_equal(catan_store_state_at(&pst, &pid, x.s, phex, &err), 0);
	git_oid c = sh_commit_action(x.repo, git_commit_tree_id(tip), &parent,
				     who, "end", pst.turn, NULL);
	git_commit_free(tip);
	assert_false(git_oid_equal(&c, &last));
	/* Force-move the branch from the old tip to it: a rewrite. */
	sh_move_ref(x.repo, ref, &c, "push --force");
	inj_expect_bad(&x, &c, NULL, "rewritten");
}

/*
 * Appends a log entry tip -> to on player p's branch without moving it:
 * what libgit2 leaves when the process dies between writing the log and
 * renaming the ref into place.
 */
static void log_unlanded_move(inj *x, int p, const git_oid *to)
{
	char ref[64];
	git_reflog *log = NULL;
	git_signature *sig = NULL;
	branch_of(ref, sizeof ref, x, p);
	assert_int_equal(git_reflog_read(&log, x->repo, ref), 0);
	assert_int_equal(git_signature_now(&sig, "catan", "catan@catan"), 0);
	assert_int_equal(git_reflog_append(log, to, sig, "killed"), 0);
	assert_int_equal(git_reflog_write(log), 0);
	git_signature_free(sig);
	git_reflog_free(log);
}

/* A peer killed mid-commit: its log says it moved, the branch did not. */
static void test_verify__move_that_never_landed(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	git_oid c = legal_commit(&x, NULL);
	log_unlanded_move(&x, x.next, &c);
	catan_store_free(inj_expect_ok(&x, "a move that never landed"));
	sh_rmrf(x.tmp);
	free(x.tmp);
}

/* A branch moved with no log entry at all is still refused. */
static void test_verify__unlogged_move(void **st)
{
	inj x;
	char path[1024], hex[GIT_OID_HEXSZ + 1];
	(void)st;
	inj_begin(&x);
	move_branch(&x, x.next, &x.head);
	git_oid c = legal_commit(&x, NULL);
	/* Written as a file, as a hand or a script would: no log entry. */
	snprintf(path, sizeof path, "%s/refs/heads/%s", x.dir,
		 x.g->names.name[x.next]);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", git_oid_tostr(hex, sizeof hex, &c));
	fclose(f);
	inj_expect_bad(&x, &c, NULL, "moved outside its log");
}

static void test_verify__fork(void **st)
{
	inj x;
	char t1[160], t2[160];
	catan_state n1, n2;
	(void)st;
	inj_begin(&x);
	legal(&x, 0, t1, sizeof t1, &n1);
	legal(&x, 1, t2, sizeof t2, &n2);
	assert_string_not_equal(t1, t2);
	git_oid tr1 = state_tree(&x, &n1), tr2 = state_tree(&x, &n2);
	const char *name = x.g->names.name[x.next];
	git_oid c1 =
	    sh_commit_action(x.repo, &tr1, &x.head, name, t1, x.cur.turn,
			     roll_dice(t1, &n1));
	git_oid c2 =
	    sh_commit_action(x.repo, &tr2, &x.head, name, t2, x.cur.turn,
			     roll_dice(t2, &n2));
	move_branch(&x, x.next, &c1);
	move_branch(&x, (x.next + 1) % x.g->opt.nplayers, &c2);
	inj_expect_bad(&x, &c1, &c2, "fork");
}

/* Commits the next actor's first legal action with tree `tree`. */
static git_oid commit_next(inj *x, const git_oid *tree)
{
	char text[160];
	catan_state next;
	legal(x, 0, text, sizeof text, &next);
	git_oid c =
	    sh_commit_action(x->repo, tree, &x->head, x->g->names.name[x->next],
			     text, x->cur.turn, roll_dice(text, &next));
	move_branch(x, x->next, &c);
	return c;
}

static git_oid next_tree(inj *x)
{
	char text[160];
	catan_state next;
	legal(x, 0, text, sizeof text, &next);
	return state_tree(x, &next);
}

static void test_verify__stray_file(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	git_oid good = next_tree(&x);
	git_oid blob = sh_blob(x.repo, "hello\n", 6);
	git_oid bad = sh_tree_put(x.repo, &good, "notes", &blob);
	git_oid c = commit_next(&x, &bad);
	inj_expect_bad(&x, &c, NULL, "notes");
}

static void test_verify__stray_directory_file(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	git_oid good = next_tree(&x);
	git_oid blob = sh_blob(x.repo, "x\n", 2);
	git_oid bad = sh_tree_put(x.repo, &good, "game/extra", &blob);
	git_oid c = commit_next(&x, &bad);
	inj_expect_bad(&x, &c, NULL, NULL);
}

static void test_verify__missing_file(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	git_oid good = next_tree(&x);
	git_oid bad = sh_tree_put(x.repo, &good, "robber", NULL);
	git_oid c = commit_next(&x, &bad);
	inj_expect_bad(&x, &c, NULL, "robber");
}

/*
 * The right tree, one of whose files is not in the repository (a pack that
 * left it out): the tree's id is checked by hashing the replayed state,
 * which reads no object, so this passed before verify looked the objects
 * up, and a host or a peer took a commit that git cannot check out.
 */
static void test_verify__object_missing(void **st)
{
	inj x;
	char path[1200], name[300] = "";
	(void)st;
	inj_begin(&x);
	git_oid good = next_tree(&x);
	git_oid c = commit_next(&x, &good);
	/* A blob of the new tree that its parent's lacks, stored loose. */
	git_tree *t = NULL, *was = NULL;
	assert_int_equal(git_tree_lookup(&t, x.repo, &good), 0);
	assert_int_equal(git_tree_lookup(&was, x.repo, &x.head_tree), 0);
	for (size_t i = 0; i < git_tree_entrycount(t) && !name[0]; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		const git_tree_entry *p =
		    git_tree_entry_byname(was, git_tree_entry_name(e));
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof hex, git_tree_entry_id(e));
		snprintf(path, sizeof path, "%s/objects/%.2s/%s", x.dir, hex,
			 hex + 2);
		if (git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
		    (!p || !git_oid_equal(git_tree_entry_id(p),
					  git_tree_entry_id(e))) &&
		    access(path, F_OK) == 0 && unlink(path) == 0)
			snprintf(name, sizeof name, "%s",
				 git_tree_entry_name(e));
	}
	git_tree_free(t);
	git_tree_free(was);
	if (!name[0])
		fail_msg("no loose blob of its own in the commit's tree");
	inj_expect_bad(&x, &c, NULL, "is missing");
}

static void test_verify__huge_blob(void **st)
{
	inj x;
	git_odb *odb = NULL;
	git_odb_stream *ws = NULL;
	git_oid blob;
	const size_t total = 100u << 20, chunk = 1u << 20;
	(void)st;
	inj_begin(&x);
	char *buf = malloc(chunk);
	assert_non_null(buf);
	memset(buf, 'a', chunk);
	assert_int_equal(git_repository_odb(&odb, x.repo), 0);
	assert_int_equal(git_odb_open_wstream(&ws, odb, total, GIT_OBJECT_BLOB),
			 0);
	for (size_t done = 0; done < total; done += chunk)
		assert_int_equal(git_odb_stream_write(ws, buf, chunk), 0);
	assert_int_equal(git_odb_stream_finalize_write(&blob, ws), 0);
	git_odb_stream_free(ws);
	git_odb_free(odb);
	free(buf);
	git_oid good = next_tree(&x);
	git_oid bad = sh_tree_put(x.repo, &good, "robber", &blob);
	git_oid c = commit_next(&x, &bad);
	inj_expect_bad(&x, &c, NULL, NULL);
}

static void test_verify__file_name_not_utf8(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	git_oid good = next_tree(&x);
	git_oid blob = sh_blob(x.repo, "x\n", 2);
	git_oid bad = sh_tree_put(x.repo, &good, "\xff\xfe", &blob);
	git_oid c = commit_next(&x, &bad);
	inj_expect_bad(&x, &c, NULL, NULL);
}

static void test_verify__subject_does_not_parse(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	git_oid c = sh_commit_action(x.repo, &x.head_tree, &x.head,
				     x.g->names.name[x.next], "build rod 0,0,w",
				     x.cur.turn, NULL);
	move_branch(&x, x.next, &c);
	inj_expect_bad(&x, &c, NULL, "parse");
}

static void test_verify__message_without_trailers(void **st)
{
	inj x;
	char text[160], msg[200], email[64];
	catan_state next;
	(void)st;
	inj_begin(&x);
	legal(&x, 0, text, sizeof text, &next);
	git_oid tree = state_tree(&x, &next);
	snprintf(msg, sizeof msg, "%s\n", text);
	snprintf(email, sizeof email, "%s@" SH_EMAIL_DOMAIN,
		 x.g->names.name[x.next]);
	git_oid c = sh_commit_raw(x.repo, &tree, &x.head, 1,
				  x.g->names.name[x.next], email, msg);
	move_branch(&x, x.next, &c);
	inj_expect_bad(&x, &c, NULL, "parse");
}

static void test_verify__wrong_turn_trailer(void **st)
{
	inj x;
	char text[160];
	catan_state next;
	(void)st;
	inj_begin(&x);
	legal(&x, 0, text, sizeof text, &next);
	git_oid tree = state_tree(&x, &next);
	git_oid c =
	    sh_commit_action(x.repo, &tree, &x.head, x.g->names.name[x.next],
			     text, x.cur.turn + 1, roll_dice(text, &next));
	move_branch(&x, x.next, &c);
	inj_expect_bad(&x, &c, NULL, "Turn");
}

static void test_verify__non_canonical_subject(void **st)
{
	inj x;
	char text[160], upper[160];
	catan_state next;
	(void)st;
	inj_begin(&x);
	legal(&x, 0, text, sizeof text, &next);
	git_oid tree = state_tree(&x, &next);
	/* The same action in capitals: it parses, but is not canonical. */
	size_t i;
	for (i = 0; text[i]; i++)
		upper[i] = (text[i] >= 'a' && text[i] <= 'z')
			       ? (char)(text[i] - 'a' + 'A')
			       : text[i];
	upper[i] = '\0';
	git_oid c = sh_commit_action(
	    x.repo, &tree, &x.head, x.g->names.name[x.next], upper, x.cur.turn,
	    NULL);
	move_branch(&x, x.next, &c);
	inj_expect_bad(&x, &c, NULL, "canonical");
}

/*
 * A raw commit object of the next actor's first legal action on the head
 * (its result's tree), written as it is: `headers` after the committer
 * line, then the blank line, then the canonical message and `tail` (tlen
 * bytes, may hold NULs). On the next actor's branch; returns its id.
 */
static git_oid raw_action(inj *x, const char *headers, const char *tail,
			  size_t tlen, int nparents)
{
	char text[160], buf[4096], th[GIT_OID_HEXSZ + 1], ph[GIT_OID_HEXSZ + 1];
	catan_state next;
	git_odb *odb = NULL;
	git_oid id;
	const char *who = x->g->names.name[x->next];
	legal(x, 0, text, sizeof text, &next);
	git_oid tree = state_tree(x, &next);
	git_oid_tostr(th, sizeof th, &tree);
	git_oid_tostr(ph, sizeof ph, &x->head);
	int len = snprintf(buf, sizeof buf, "tree %s\n", th);
	for (int i = 0; i < nparents; i++)
		len += snprintf(buf + len, sizeof buf - (size_t)len,
				"parent %s\n", ph);
	len += snprintf(buf + len, sizeof buf - (size_t)len,
			"author %s <%s@" SH_EMAIL_DOMAIN "> 1700000000 +0000\n"
			"committer %s <%s@" SH_EMAIL_DOMAIN
			"> 1700000000 +0000\n%s\n%s\n\nPlayer: %s\nTurn: %d\n",
			who, who, who, who, headers, text, who, x->cur.turn);
	const uint8_t *dice = roll_dice(text, &next);
	if (dice)
		len += snprintf(buf + len, sizeof buf - (size_t)len,
				"Dice: %d %d\n", dice[0], dice[1]);
	assert_true(len > 0 && (size_t)len + tlen < sizeof buf);
	memcpy(buf + len, tail, tlen);
	assert_int_equal(git_repository_odb(&odb, x->repo), 0);
	assert_int_equal(
	    git_odb_write(&id, odb, buf, (size_t)len + tlen, GIT_OBJECT_COMMIT),
	    0);
	git_odb_free(odb);
	move_branch(x, x->next, &id);
	return id;
}

/* The control: raw_action with nothing added is the commit catan writes. */
static void test_verify__raw_commit_as_catan_writes_it(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	raw_action(&x, "", "", 0, 1);
	catan_store *s = inj_expect_ok(&x, "a raw commit in catan's form");
	catan_store_free(s);
	sh_rmrf(x.tmp);
	free(x.tmp);
}

/*
 * A NUL byte then a payload after the canonical message: libgit2 reads
 * the message up to the NUL (so it compared equal), git fsck --strict
 * refuses the object (nulInCommit).
 */
static void test_verify__nul_and_payload_after_message(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	git_oid c = raw_action(&x, "", "\0payload", 8, 1);
	inj_expect_bad(&x, &c, NULL, "NUL");
}

static void test_verify__unknown_extra_header(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	git_oid c = raw_action(&x, "x-evil yes\n", "", 0, 1);
	inj_expect_bad(&x, &c, NULL, "extra header \"x-evil\"");
}

/* Signed or re-encoded commits are never written by catan: refused. */
static void test_verify__gpgsig_and_encoding_headers(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	git_oid c = raw_action(&x,
			       "gpgsig -----BEGIN PGP SIGNATURE-----\n"
			       " iQEzBAABCAAdFiEE\n"
			       " -----END PGP SIGNATURE-----\n",
			       "", 0, 1);
	inj_expect_bad(&x, &c, NULL, "extra header \"gpgsig\"");
	inj_begin(&x);
	c = raw_action(&x, "encoding ISO-8859-1\n", "", 0, 1);
	inj_expect_bad(&x, &c, NULL, "extra header \"encoding\"");
}

static void test_verify__too_many_parents(void **st)
{
	inj x;
	(void)st;
	inj_begin(&x);
	git_oid c = raw_action(&x, "", "", 0, CATAN_MAX_PLAYERS + 3);
	inj_expect_bad(&x, &c, NULL, "CATAN_SYNC_MAX_PARENTS");
}

/* Text after the trailers, or a message over the limit. */
static void test_verify__trailing_text_and_huge_message(void **st)
{
	inj x;
	static char big[700];
	(void)st;
	inj_begin(&x);
	git_oid c = raw_action(&x, "", "more\n", 5, 1);
	inj_expect_bad(&x, &c, NULL, "parse");
	inj_begin(&x);
	memset(big, 'x', sizeof big);
	c = raw_action(&x, "", big, sizeof big, 1);
	inj_expect_bad(&x, &c, NULL, "CATAN_SYNC_MAX_MESSAGE");
}

/* ---- the Dice trailer: on a roll, exactly the dice rolled ---- */

/* The fixture's next actor rolls: the tests below build on that. */
static void roll_next(inj *x, char *text, size_t size, catan_state *next,
		      git_oid *tree)
{
	catan_action a = legal(x, 0, text, size, next);
	assert_int_equal(a.kind, CATAN_ACT_ROLL);
	*tree = state_tree(x, next);
}

static void test_verify__roll_with_its_dice_is_accepted(void **st)
{
	inj x;
	char text[160];
	catan_state next;
	git_oid tree;
	(void)st;
	inj_begin(&x);
	roll_next(&x, text, sizeof text, &next, &tree);
	git_oid c = sh_commit_action(x.repo, &tree, &x.head,
				     x.g->names.name[x.next], text, x.cur.turn,
				     next.dice);
	move_branch(&x, x.next, &c);
	catan_store *s = inj_expect_ok(&x, "a roll with its Dice trailer");
	catan_store_free(s);
	sh_rmrf(x.tmp);
	free(x.tmp);
}

static void test_verify__roll_with_other_dice(void **st)
{
	inj x;
	char text[160];
	catan_state next;
	git_oid tree;
	(void)st;
	inj_begin(&x);
	roll_next(&x, text, sizeof text, &next, &tree);
	/* The tree the rules give, a trailer with other (valid) dice. */
	uint8_t wrong[2] = {(uint8_t)(next.dice[0] % 6 + 1), next.dice[1]};
	git_oid c = sh_commit_action(x.repo, &tree, &x.head,
				     x.g->names.name[x.next], text, x.cur.turn,
				     wrong);
	move_branch(&x, x.next, &c);
	inj_expect_bad(&x, &c, NULL, "Dice trailer is not the roll");
}

static void test_verify__roll_without_dice(void **st)
{
	inj x;
	char text[160];
	catan_state next;
	git_oid tree;
	(void)st;
	inj_begin(&x);
	roll_next(&x, text, sizeof text, &next, &tree);
	git_oid c = sh_commit_action(x.repo, &tree, &x.head,
				     x.g->names.name[x.next], text, x.cur.turn,
				     NULL);
	move_branch(&x, x.next, &c);
	inj_expect_bad(&x, &c, NULL, "roll commit without a Dice trailer");
}

static void test_verify__dice_that_do_not_parse(void **st)
{
	inj x;
	char text[160], msg[256], email[64];
	catan_state next;
	git_oid tree;
	(void)st;
	inj_begin(&x);
	roll_next(&x, text, sizeof text, &next, &tree);
	snprintf(msg, sizeof msg, "%s\n\nPlayer: %s\nTurn: %d\nDice: 7 0\n",
		 text, x.g->names.name[x.next], x.cur.turn);
	snprintf(email, sizeof email, "%s@" SH_EMAIL_DOMAIN,
		 x.g->names.name[x.next]);
	git_oid c = sh_commit_raw(x.repo, &tree, &x.head, 1,
				  x.g->names.name[x.next], email, msg);
	move_branch(&x, x.next, &c);
	inj_expect_bad(&x, &c, NULL, "Dice: A B");
}

static void test_verify__dice_on_a_commit_that_does_not_roll(void **st)
{
	inj x;
	char text[160], after_text[160];
	catan_state next, after;
	git_oid tree;
	(void)st;
	inj_begin(&x);
	roll_next(&x, text, sizeof text, &next, &tree);
	git_oid roll = sh_commit_action(x.repo, &tree, &x.head,
					x.g->names.name[x.next], text,
					x.cur.turn, next.dice);
	/* What the roller does next (whatever its first legal action). */
	static catan_action buf[4096];
	int who = catan_state_next_actor(&next);
	assert_int_not_equal(who, CATAN_NONE);
	int n = catan_legal_actions(buf, 4096, &x.g->board, &next, who, 0);
	assert_true(n > 0);
	assert_int_not_equal(buf[0].kind, CATAN_ACT_ROLL);
	sh_format(after_text, sizeof after_text, x.g, &buf[0]);
	assert_int_equal(
	    catan_state_apply(&after, &x.g->board, &next, who, &buf[0], NULL),
	    CATAN_OK);
	git_oid tree2 = state_tree(&x, &after);
	git_oid c = sh_commit_action(x.repo, &tree2, &roll,
				     x.g->names.name[who], after_text,
				     next.turn, next.dice);
	move_branch(&x, who, &c);
	if (who != x.next)
		move_branch(&x, x.next, &roll);
	inj_expect_bad(&x, &c, NULL, "Dice trailer on a commit that does not");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verify__fixture_is_valid),
	    cmocka_unit_test(test_verify__right_tree_is_accepted),
	    cmocka_unit_test(test_verify__tampered_tree),
	    cmocka_unit_test(test_verify__illegal_action),
	    cmocka_unit_test(test_verify__trailer_names_another_player),
	    cmocka_unit_test(test_verify__author_may_not_act),
	    cmocka_unit_test(test_verify__author_is_not_a_player),
	    cmocka_unit_test(test_verify__rewritten_branch),
	    cmocka_unit_test(test_verify__move_that_never_landed),
	    cmocka_unit_test(test_verify__unlogged_move),
	    cmocka_unit_test(test_verify__fork),
	    cmocka_unit_test(test_verify__stray_file),
	    cmocka_unit_test(test_verify__stray_directory_file),
	    cmocka_unit_test(test_verify__missing_file),
	    cmocka_unit_test(test_verify__object_missing),
	    cmocka_unit_test(test_verify__huge_blob),
	    cmocka_unit_test(test_verify__file_name_not_utf8),
	    cmocka_unit_test(test_verify__subject_does_not_parse),
	    cmocka_unit_test(test_verify__message_without_trailers),
	    cmocka_unit_test(test_verify__wrong_turn_trailer),
	    cmocka_unit_test(test_verify__non_canonical_subject),
	    cmocka_unit_test(test_verify__raw_commit_as_catan_writes_it),
	    cmocka_unit_test(test_verify__nul_and_payload_after_message),
	    cmocka_unit_test(test_verify__unknown_extra_header),
	    cmocka_unit_test(test_verify__gpgsig_and_encoding_headers),
	    cmocka_unit_test(test_verify__too_many_parents),
	    cmocka_unit_test(test_verify__trailing_text_and_huge_message),
	    cmocka_unit_test(test_verify__roll_with_its_dice_is_accepted),
	    cmocka_unit_test(test_verify__roll_with_other_dice),
	    cmocka_unit_test(test_verify__roll_without_dice),
	    cmocka_unit_test(test_verify__dice_that_do_not_parse),
	    cmocka_unit_test(test_verify__dice_on_a_commit_that_does_not_roll),
	};
	git_libgit2_init();
	int failed =
	    cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
	git_libgit2_shutdown();
	return failed;
}
