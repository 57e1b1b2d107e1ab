/*
 * test_store.c - a game as Git history (catan/store.h, spec/format.md):
 * genesis, whole games committed action by action against an in-memory
 * reference, what stock git sees, refused actions, determinism, and the
 * discard fan-out after a 7 with its merge.
 */
#define _XOPEN_SOURCE 700

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "store_helpers.h"

/* ---- genesis ---- */

static void test_store__genesis_then_reopen(void **st)
{
	char *tmp = sh_tmpdir("store");
	char dir[512], out[4096];
	catan_game g;
	catan_state init, cur;
	catan_commit_id head, head2;
	(void)st;
	snprintf(dir, sizeof dir, "%s/game", tmp);
	sh_game(&g, 3, SH_BOARD_RANDOM, CATAN_PHASES_CLASSIC, CATAN_DICE_SEEDED,
		77);
	assert_int_equal(catan_state_init(&init, &g.board, &g.opt), CATAN_OK);

	catan_store *s = sh_create(dir, &g);
	sh_current(s, &cur, &head);
	assert_true(catan_state_hash(&cur) == catan_state_hash(&init));
	catan_store_free(s);

	s = sh_open(dir);
	const catan_game *g2 = catan_store_game(s);
	assert_int_equal(g2->opt.nplayers, 3);
	assert_int_equal(g2->opt.phases, CATAN_PHASES_CLASSIC);
	assert_true(g2->opt.seed == 77);
	assert_memory_equal(&g2->board, &g.board, sizeof g.board);
	sh_current(s, &cur, &head2);
	assert_true(catan_state_hash(&cur) == catan_state_hash(&init));
	assert_string_equal(head.hex, head2.hex);
	catan_store_free(s);

	/* Bare, every branch at the genesis, HEAD at the first player. */
	sh_must(out, sizeof out, "git -C '%s' rev-parse --is-bare-repository",
		dir);
	assert_string_equal(out, "true\n");
	sh_must(out, sizeof out,
		"git -C '%s' for-each-ref --format='%%(refname) "
		"%%(objectname)' refs/heads",
		dir);
	char want[1024];
	snprintf(want, sizeof want,
		 "refs/heads/blue %s\nrefs/heads/red %s\nrefs/heads/white %s\n",
		 head.hex, head.hex, head.hex);
	assert_string_equal(out, want);
	sh_must(out, sizeof out, "git -C '%s' symbolic-ref HEAD", dir);
	assert_string_equal(out, "refs/heads/red\n");
	sh_must(out, sizeof out, "git -C '%s' log --format='%%an <%%ae>|%%B'",
		dir);
	assert_string_equal(out, "red <red@" SH_EMAIL_DOMAIN ">|genesis\n\n"
				 "Player: red\nTurn: 0\n\n");

	/* The genesis tree is the encoding, as stock Git builds trees. */
	catan_files f;
	catan_files_init(&f);
	sh_encode_all(&f, &g, &init);
	git_repository *repo = sh_repo(dir);
	git_oid mine = sh_tree_from_files(repo, &f);
	git_oid genesis = sh_oid(head.hex);
	git_oid theirs = sh_commit_tree(repo, &genesis);
	assert_true(git_oid_equal(&mine, &theirs));
	git_repository_free(repo);
	catan_files_free(&f);
	sh_rmrf(tmp);
	free(tmp);
}

/* What the repository's configuration records as catan.genesis ("" if none). */
static void recorded_genesis(char *out, size_t size, const char *dir)
{
	if (sh_run(out, size, "git -C '%s' config catan.genesis", dir))
		out[0] = '\0';
	else
		out[strcspn(out, "\n")] = '\0';
}

/*
 * A writer records the genesis in the repository's configuration (an open
 * then reads it there instead of walking the whole history): at creation,
 * and at the first writable open of a repository that has none; a read-only
 * open writes nothing. A recorded id that is not a root commit here
 * (nonsense, a missing object, a commit with parents) is ignored: the open
 * walks the history as before, opens the same game and records the right id.
 */
static void test_store__genesis_recorded(void **st)
{
	char *tmp = sh_tmpdir("store");
	char dir[512], out[4096], genesis[64];
	catan_game g;
	catan_state cur;
	catan_commit_id head, head2;
	catan_rng rng;
	catan_err err;
	(void)st;
	snprintf(dir, sizeof dir, "%s/game", tmp);
	sh_game(&g, 3, SH_BOARD_RANDOM, CATAN_PHASES_CLASSIC, CATAN_DICE_SEEDED,
		78);
	catan_store *s = sh_create(dir, &g);
	catan_rng_seed(&rng, 5);
	assert_true(sh_play(s, 30, &rng, 0, NULL, NULL) == 30);
	sh_current(s, &cur, &head);
	catan_store_free(s);
	sh_must(genesis, sizeof genesis,
		"git -C '%s' rev-list --max-parents=0 --all", dir);
	genesis[strcspn(genesis, "\n")] = '\0';
	recorded_genesis(out, sizeof out, dir);
	assert_string_equal(out, genesis);

	sh_must(out, sizeof out, "git -C '%s' config --unset catan.genesis",
		dir);
	assert_int_equal(catan_store_open_ext(&s, dir, true, &err), 0);
	catan_store_free(s);
	recorded_genesis(out, sizeof out, dir);
	assert_string_equal(out, "");
	s = sh_open(dir);
	catan_store_free(s);
	recorded_genesis(out, sizeof out, dir);
	assert_string_equal(out, genesis);

	const char *bad[] = {"nonsense", head.hex,
			     "0123456789abcdef0123456789abcdef01234567"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		sh_must(out, sizeof out,
			"git -C '%s' config catan.genesis '%s'", dir, bad[i]);
		s = sh_open(dir);
		assert_memory_equal(&catan_store_game(s)->board, &g.board,
				    sizeof g.board);
		sh_current(s, &cur, &head2);
		assert_string_equal(head.hex, head2.hex);
		catan_store_free(s);
		recorded_genesis(out, sizeof out, dir);
		assert_string_equal(out, genesis);
	}
	sh_rmrf(tmp);
	free(tmp);
}

/* A game played at a table (real time) keeps a reflog for every branch. */
static void test_store__real_time_game_keeps_reflogs(void **st)
{
	char *tmp = sh_tmpdir("store");
	char dir[512], out[4096];
	catan_game g;
	(void)st;
	snprintf(dir, sizeof dir, "%s/game", tmp);
	sh_game(&g, 2, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 3);
	catan_store *s = sh_create_mode(dir, &g, CATAN_TIME_NOW);
	sh_act(s, RED, "setup 0,-1,n 0,-1,nw", NULL);
	sh_act(s, BLUE, "setup 1,0,n 1,0,nw", NULL);
	catan_store_free(s);
	sh_must(out, sizeof out, "git -C '%s' config core.logAllRefUpdates",
		dir);
	assert_string_equal(out, "always\n");
	/* red: genesis; blue: genesis, then a fast-forward and its action. */
	sh_must(out, sizeof out, "git -C '%s' reflog show refs/heads/red | wc -l",
		dir);
	assert_int_equal(atol(out), 2);
	sh_must(out, sizeof out,
		"git -C '%s' reflog show refs/heads/blue | wc -l", dir);
	assert_true(atol(out) >= 2);
	sh_rmrf(tmp);
	free(tmp);
}

static void test_store__create_refuses_non_empty_directory(void **st)
{
	char *tmp = sh_tmpdir("store");
	char path[512];
	catan_game g;
	catan_store *s = NULL;
	catan_err err = {0};
	(void)st;
	sh_game(&g, 2, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 1);
	snprintf(path, sizeof path, "%s/keep", tmp);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(catan_store_create(&s, tmp, &g,
					    CATAN_TIME_DETERMINISTIC, &err),
			 -1);
	assert_null(s);
	assert_true(strlen(err.msg) > 0);
	fp = fopen(path, "r");
	assert_non_null(fp); /* untouched */
	fclose(fp);
	sh_rmrf(tmp);
	free(tmp);
}

/* ---- whole games ---- */

typedef struct count_ctx {
	long n, merges;
} count_ctx;

static int count_entry(const catan_log_entry *e, void *vctx)
{
	count_ctx *c = vctx;
	c->n++;
	c->merges += e->merge;
	return 0;
}

/* Every commit of a worktree checkout decodes to catan_store_state_at. */
static void check_worktree(catan_store *s, const char *dir, const char *tmp,
			   const char *rev)
{
	char wt[600], commit[64];
	catan_files f;
	catan_game g;
	catan_state disk, want;
	catan_codec_error ce;
	catan_commit_id id;
	catan_err err = {0};
	snprintf(wt, sizeof wt, "%s/wt", tmp);
	sh_must(commit, sizeof commit, "git -C '%s' rev-parse '%s'", dir, rev);
	commit[40] = '\0';
	sh_must(NULL, 0, "git -C '%s' worktree add --detach '%s' %s 2>&1", dir,
		wt, commit);
	catan_files_init(&f);
	sh_read_dir_files(&f, wt);
	memset(&ce, 0, sizeof ce);
	if (catan_codec_decode_game(&g, &f, &ce))
		fail_msg("worktree game/: %s:%d: %s", ce.path, ce.line, ce.msg);
	if (catan_codec_decode_state(&disk, &g, &f, &ce))
		fail_msg("worktree state: %s:%d: %s", ce.path, ce.line, ce.msg);
	if (catan_store_state_at(&want, &id, s, commit, &err))
		fail_msg("state_at %s: %s", commit, err.msg);
	assert_string_equal(id.hex, commit);
	assert_true(catan_state_hash(&disk) == catan_state_hash(&want));
	catan_files_free(&f);
	sh_must(NULL, 0, "git -C '%s' worktree remove --force '%s'", dir, wt);
}

/* 5-6 players play on random 5-6 boards with special building. */
static void full_game(int nplayers, uint64_t seed)
{
	char *tmp = sh_tmpdir("store");
	char dir[512], out[4096];
	catan_game g;
	catan_state ref;
	catan_rng rng;
	int merges = 0;
	sh_game(&g, nplayers,
		nplayers > CATAN_MAX_PLAYERS_BASE ? SH_BOARD_EXT56
						  : SH_BOARD_RANDOM,
		CATAN_PHASES_COMBINED, CATAN_DICE_SEEDED, seed);
	snprintf(dir, sizeof dir, "%s/game", tmp);
	catan_store *s = sh_create(dir, &g);
	assert_int_equal(catan_state_init(&ref, &g.board, &g.opt), CATAN_OK);
	catan_rng_seed(&rng, seed * 31 + 1);
	int actions = sh_play(s, 100000, &rng, CATAN_LEGAL_NO_OFFERS, &ref,
			      &merges);
	assert_int_equal(ref.phase, CATAN_PHASE_OVER);
	assert_int_not_equal(ref.winner, CATAN_NONE);
	assert_true(catan_state_vp(&ref, ref.winner) >= g.opt.vp_target);

	catan_state cur;
	catan_commit_id head;
	sh_current(s, &cur, &head);
	assert_int_equal(cur.winner, ref.winner);

	/* The tip's tree is the encoding of the final state. */
	git_repository *repo = sh_repo(dir);
	catan_files f;
	catan_files_init(&f);
	sh_encode_all(&f, &g, &ref);
	git_oid mine = sh_tree_from_files(repo, &f), tip = sh_oid(head.hex);
	git_oid theirs = sh_commit_tree(repo, &tip);
	assert_true(git_oid_equal(&mine, &theirs));
	catan_files_free(&f);
	git_repository_free(repo);

	catan_verify_report rep;
	catan_err err = {0};
	assert_int_equal(catan_store_verify(s, &rep, &err), 0);
	if (!rep.ok)
		fail_msg("verify: BAD %s: %s", rep.bad.hex, rep.why);
	assert_int_equal(rep.merges, merges);
	assert_int_equal(rep.commits, actions + 1 + merges);
	print_message("%d players: %d actions, %d discard merges\n", nplayers,
		      actions, merges);

	count_ctx cc = {0, 0};
	assert_int_equal(catan_store_log(s, count_entry, &cc, &err), 0);
	assert_int_equal(cc.n, rep.commits);
	assert_int_equal(cc.merges, merges);

	/* Stock git agrees. */
	int rc = sh_run(out, sizeof out, "git -C '%s' fsck --strict 2>&1", dir);
	if (rc != 0 || strstr(out, "error") || strstr(out, "warning"))
		fail_msg("git fsck --strict (%d): %s", rc, out);
	sh_must(out, sizeof out, "git -C '%s' log --format=%%s --all | wc -l",
		dir);
	assert_int_equal(atol(out), rep.commits);
	sh_must(out, sizeof out,
		"git -C '%s' log --format=%%s --all --merges | wc -l", dir);
	assert_int_equal(atol(out), merges);
	sh_must(out, sizeof out, "git -C '%s' log -1 --format=%%s%%n%%an %s",
		dir, head.hex);
	/*
	 * The winner made the last commit, or (special building) the last
	 * builder's pass began the winner's turn, which won it.
	 */
	if (!strstr(out, g.names.name[ref.winner]))
		assert_true(g.opt.special_build && !strncmp(out, "end\n", 4));

	/* Old states, checked out by stock git, decode to the same state. */
	check_worktree(s, dir, tmp, "HEAD~0");
	{
		char rev[64];
		snprintf(rev, sizeof rev, "%s~%d", head.hex, actions / 2);
		check_worktree(s, dir, tmp, rev);
	}
	sh_must(out, sizeof out, "git -C '%s' rev-list --max-parents=0 --all",
		dir);
	out[40] = '\0';
	check_worktree(s, dir, tmp, out);

	catan_store_free(s);
	sh_rmrf(tmp);
	free(tmp);
}

static void test_store__hot_seat_game_4_players(void **st)
{
	(void)st;
	full_game(4, 2024);
}

static void test_store__hot_seat_game_6_players(void **st)
{
	(void)st;
	full_game(6, 2026);
}

static void test_store__hot_seat_game_2_players(void **st)
{
	(void)st;
	full_game(2, 12);
}

static void test_store__commit_layout(void **st)
{
	char *tmp = sh_tmpdir("store");
	char dir[512], out[4096], want[4096];
	catan_game g;
	catan_commit_id id;
	(void)st;
	sh_game(&g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 3);
	snprintf(dir, sizeof dir, "%s/game", tmp);
	catan_store *s = sh_create(dir, &g);
	sh_act(s, RED, "setup 0,-1,n 0,-1,nw", NULL);
	/* Aliases and case are accepted; the subject is canonical. */
	sh_act(s, BLUE, "SETUP 2,-1,SW 1,0,NW", &id);
	sh_must(out, sizeof out,
		"git -C '%s' log -1 --format='%%an <%%ae>|%%cn <%%ce>|%%P|%%B' "
		"refs/heads/blue",
		dir);
	snprintf(want, sizeof want, "%s", out);
	assert_non_null(strstr(want, "blue <blue@" SH_EMAIL_DOMAIN ">|blue "
				     "<blue@" SH_EMAIL_DOMAIN ">|"));
	assert_non_null(strstr(want, "|setup 1,0,n 1,0,nw\n\nPlayer: blue\n"
				     "Turn: 0\n"));
	/* Blue's branch: genesis, red's commit, blue's commit. */
	sh_must(out, sizeof out, "git -C '%s' rev-list --count refs/heads/blue",
		dir);
	assert_string_equal(out, "3\n");
	/* Red's branch did not move for blue's action. */
	sh_must(out, sizeof out, "git -C '%s' rev-list --count refs/heads/red",
		dir);
	assert_string_equal(out, "2\n");
	/* Red's next action fast-forwards red over blue's commit. */
	sh_must(out, sizeof out, "git -C '%s' rev-parse refs/heads/blue", dir);
	assert_int_equal(strncmp(out, id.hex, 40), 0);
	catan_store_free(s);
	sh_rmrf(tmp);
	free(tmp);
}

/* ---- refused actions ---- */

static void expect_refused(catan_store *s, const char *dir, int actor,
			   const char *text)
{
	char before[8192], after[8192];
	const catan_game *g = catan_store_game(s);
	catan_action a;
	catan_err err = {0};
	catan_commit_id id = {{0}};
	long n0 = sh_fingerprint(dir, before, sizeof before);
	assert_int_equal(catan_action_parse(&a, &g->board, &g->names, text,
					    NULL),
			 CATAN_OK);
	assert_int_equal(catan_store_act(s, actor, &a, NULL, &id, &err), -1);
	if (!*err.msg)
		fail_msg("\"%s\" refused without a message", text);
	long n1 = sh_fingerprint(dir, after, sizeof after);
	assert_int_equal(n0, n1);
	assert_string_equal(before, after);
}

static void test_store__refused_action_writes_nothing(void **st)
{
	char *tmp = sh_tmpdir("store");
	char dir[512];
	catan_game g;
	catan_state cur;
	catan_rng rng;
	catan_err err = {0};
	(void)st;
	sh_game(&g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 42);
	snprintf(dir, sizeof dir, "%s/game", tmp);
	catan_store *s = sh_create(dir, &g);
	/* Genesis only: out of turn, and a building in the set-up. */
	expect_refused(s, dir, BLUE, "setup 0,-1,n 0,-1,nw");
	expect_refused(s, dir, RED, "build city 0,-1,n");
	catan_rng_seed(&rng, 9);
	sh_play_setup(s, &rng);
	sh_current(s, &cur, NULL);
	int active = cur.active, other = (active + 1) % 4;
	expect_refused(s, dir, other, "roll");
	expect_refused(s, dir, active, "end");
	sh_act(s, active, "roll", NULL);
	sh_current(s, &cur, NULL);
	if (cur.phase == CATAN_PHASE_MAIN) {
		/* Nobody holds 3 ore and 2 grain after one roll. */
		int v = -1;
		CATAN_FOR_BITS(x, cur.players[active].settlements.w,
			       CATAN_VWORDS)
		{
			if (v < 0)
				v = x;
		}
		char text[64], name[32];
		catan_vertex_format(name, sizeof name, &g.board, v);
		snprintf(text, sizeof text, "build city %s", name);
		if (cur.players[active].hand[CATAN_ORE] < 3 ||
		    cur.players[active].hand[CATAN_GRAIN] < 2)
			expect_refused(s, dir, active, text);
		expect_refused(s, dir, other, "end");
		expect_refused(s, dir, active, "roll");
	}
	/* No such player at all. */
	{
		catan_action a;
		char before[8192], after[8192];
		catan_action_init(&a, CATAN_ACT_END);
		sh_fingerprint(dir, before, sizeof before);
		assert_int_equal(catan_store_act(s, 7, &a, NULL, NULL, &err),
				 -1);
		assert_int_equal(catan_store_act(s, -1, &a, NULL, NULL, &err),
				 -1);
		sh_fingerprint(dir, after, sizeof after);
		assert_string_equal(before, after);
	}
	catan_store_free(s);
	sh_rmrf(tmp);
	free(tmp);
}

/* ---- determinism ---- */

static void play_to_end(const char *dir, catan_commit_id *tip)
{
	catan_game g;
	catan_rng rng;
	sh_game(&g, 3, SH_BOARD_RANDOM, CATAN_PHASES_CLASSIC, CATAN_DICE_SEEDED,
		4);
	catan_store *s = sh_create(dir, &g);
	catan_rng_seed(&rng, 4242);
	sh_play(s, 100000, &rng, CATAN_LEGAL_NO_OFFERS, NULL, NULL);
	catan_state cur;
	sh_current(s, &cur, tip);
	assert_int_equal(cur.phase, CATAN_PHASE_OVER);
	catan_store_free(s);
}

static void test_store__deterministic_games_give_identical_commits(void **st)
{
	char *tmp = sh_tmpdir("store");
	char a[512], b[512], ra[8192], rb[8192];
	catan_commit_id ta, tb;
	(void)st;
	snprintf(a, sizeof a, "%s/a", tmp);
	snprintf(b, sizeof b, "%s/b", tmp);
	play_to_end(a, &ta);
	play_to_end(b, &tb);
	assert_string_equal(ta.hex, tb.hex);
	sh_must(ra, sizeof ra,
		"git -C '%s' for-each-ref --format='%%(refname) %%(objectname)'",
		a);
	sh_must(rb, sizeof rb,
		"git -C '%s' for-each-ref --format='%%(refname) %%(objectname)'",
		b);
	assert_string_equal(ra, rb);
	sh_rmrf(tmp);
	free(tmp);
}

/* ---- the discards after a 7 ---- */

/*
 * Directories holding a 4-player manual-dice game right before the active
 * player rolls, where exactly k players hold more than 7 cards (k = 1..3).
 */
static char g_base[4][600];
static char *g_tmp;

static void find_discard_bases(void)
{
	bool have[4] = {false};
	for (uint64_t seed = 1; seed < 40; seed++) {
		char dir[600];
		catan_game g;
		catan_rng rng;
		snprintf(dir, sizeof dir, "%s/search-%llu", g_tmp,
			 (unsigned long long)seed);
		sh_game(&g, 4, SH_BOARD_RANDOM, CATAN_PHASES_COMBINED,
			CATAN_DICE_MANUAL, seed);
		catan_store *s = sh_create(dir, &g);
		catan_rng_seed(&rng, seed + 1000);
		sh_play_setup(s, &rng);
		for (int turn = 0; turn < 200; turn++) {
			catan_state cur;
			sh_current(s, &cur, NULL);
			int k = sh_owing_if_seven(&cur);
			if (k == 4)
				break;
			if (k >= 1 && !have[k]) {
				snprintf(g_base[k], sizeof g_base[k],
					 "%s/base-%d", g_tmp, k);
				sh_copy_dir(dir, g_base[k]);
				have[k] = true;
			}
			if (have[1] && have[2] && have[3])
				break;
			sh_quiet_turn(s, &rng);
		}
		catan_store_free(s);
		sh_rmrf(dir);
		if (have[1] && have[2] && have[3])
			return;
	}
	fail_msg("no game reached exactly 1, 2 and 3 players owing discards");
}

typedef struct fan_result {
	uint64_t hash;
	git_oid merge_tree;
	bool have_merge;
} fan_result;

/* Commits the discards of the k owing players in `order`, then the robber. */
static void play_fan(fan_result *res, const char *base, const int *order,
		     int k, int idx)
{
	char dir[700];
	catan_state cur, rolled;
	catan_commit_id seven, head;
	snprintf(dir, sizeof dir, "%s/perm-%d-%d", g_tmp, k, idx);
	sh_copy_dir(base, dir);
	catan_store *s = sh_open(dir);
	const catan_game *g = catan_store_game(s);
	sh_current(s, &cur, NULL);
	sh_act(s, cur.active, "roll 3 4", &seven);
	sh_current(s, &rolled, &head);
	assert_string_equal(head.hex, seven.hex);
	assert_int_equal(rolled.phase, CATAN_PHASE_DISCARD);
	int owing[CATAN_MAX_PLAYERS], n = 0;
	for (int p = 0; p < g->opt.nplayers; p++)
		if (rolled.discard[p])
			owing[n++] = p;
	assert_int_equal(n, k);

	git_repository *repo = sh_repo(dir);
	git_oid seven_id = sh_oid(seven.hex);
	for (int i = 0; i < k; i++) {
		int p = owing[order[i]];
		catan_commit_id d;
		catan_state now;
		sh_current(s, &now, &head);
		/* While discards are owed, everything builds on the 7. */
		assert_string_equal(head.hex, seven.hex);
		assert_int_equal(now.phase, CATAN_PHASE_DISCARD);
		catan_action a = sh_first_legal(g, &now, p);
		assert_int_equal(a.kind, CATAN_ACT_DISCARD);
		sh_act_a(s, p, &a, &d);
		/* Each discard's parent is the 7-roll commit. */
		git_commit *c = NULL;
		git_oid did = sh_oid(d.hex);
		assert_int_equal(git_commit_lookup(&c, repo, &did), 0);
		assert_int_equal(git_commit_parentcount(c), 1);
		assert_true(git_oid_equal(git_commit_parent_id(c, 0),
					  &seven_id));
		git_commit_free(c);
	}
	/* The active player moves the robber. */
	sh_current(s, &cur, NULL);
	assert_int_equal(cur.phase, CATAN_PHASE_ROBBER);
	catan_action robber = sh_first_legal(g, &cur, cur.active);
	assert_int_equal(robber.kind, CATAN_ACT_ROBBER);
	catan_commit_id rid;
	sh_act_a(s, cur.active, &robber, &rid);
	sh_current(s, &cur, &head);
	assert_string_equal(head.hex, rid.hex);
	res->hash = catan_state_hash(&cur);

	git_commit *rc = NULL, *m = NULL;
	git_oid rid_oid = sh_oid(rid.hex);
	assert_int_equal(git_commit_lookup(&rc, repo, &rid_oid), 0);
	assert_int_equal(git_commit_parentcount(rc), 1);
	assert_int_equal(git_commit_parent(&m, rc, 0), 0);
	if (k >= 2) {
		res->have_merge = true;
		assert_int_equal(git_commit_parentcount(m), k);
		assert_string_equal(git_commit_summary(m), "merge discards");
		assert_string_equal(git_commit_author(m)->name,
				    g->names.name[cur.active]);
		for (int i = 0; i < k; i++) {
			git_commit *pc = NULL;
			assert_int_equal(git_commit_parent(&pc, m, (unsigned)i),
					 0);
			/* Parents in player order. */
			assert_string_equal(git_commit_author(pc)->name,
					    g->names.name[owing[i]]);
			assert_int_equal(strncmp(git_commit_summary(pc),
						 "discard ", 8),
					 0);
			assert_true(git_oid_equal(git_commit_parent_id(pc, 0),
						  &seven_id));
			git_commit_free(pc);
		}
		res->merge_tree = *git_commit_tree_id(m);
	} else {
		res->have_merge = false;
		/* One discard: the robber builds on it, no merge. */
		assert_int_equal(git_commit_parentcount(m), 1);
		assert_int_equal(strncmp(git_commit_summary(m), "discard ", 8),
				 0);
		assert_true(git_oid_equal(git_commit_parent_id(m, 0),
					  &seven_id));
	}
	git_commit_free(m);
	git_commit_free(rc);
	git_repository_free(repo);

	char out[256];
	sh_must(out, sizeof out, "git -C '%s' rev-list --merges --all | wc -l",
		dir);
	assert_int_equal(atol(out), k >= 2 ? 1 : 0);

	catan_verify_report rep;
	catan_err err = {0};
	assert_int_equal(catan_store_verify(s, &rep, &err), 0);
	if (!rep.ok)
		fail_msg("verify after discards (k=%d, order %d): BAD %s: %s",
			 k, idx, rep.bad.hex, rep.why);
	assert_int_equal(rep.merges, k >= 2 ? 1 : 0);
	catan_store_free(s);
	int rcfsck = sh_run(out, sizeof out,
			    "git -C '%s' fsck --strict >/dev/null 2>&1", dir);
	assert_int_equal(rcfsck, 0);
	sh_rmrf(dir);
}

static bool next_permutation(int *a, int n)
{
	int i = n - 2;
	while (i >= 0 && a[i] >= a[i + 1])
		i--;
	if (i < 0)
		return false;
	int j = n - 1;
	while (a[j] <= a[i])
		j--;
	int t = a[i];
	a[i] = a[j];
	a[j] = t;
	for (int l = i + 1, r = n - 1; l < r; l++, r--) {
		t = a[l];
		a[l] = a[r];
		a[r] = t;
	}
	return true;
}

static void discards_in_every_order(int k)
{
	int order[3] = {0, 1, 2}, idx = 0;
	fan_result first, res;
	memset(&first, 0, sizeof first);
	do {
		memset(&res, 0, sizeof res);
		play_fan(&res, g_base[k], order, k, idx);
		if (idx == 0) {
			first = res;
		} else {
			assert_true(res.hash == first.hash);
			assert_int_equal(res.have_merge, first.have_merge);
			if (res.have_merge)
				assert_true(git_oid_equal(&res.merge_tree,
							  &first.merge_tree));
		}
		idx++;
	} while (next_permutation(order, k));
	static const int fact[] = {1, 1, 2, 6};
	assert_int_equal(idx, fact[k]);
}

static void test_store__one_player_discards(void **st)
{
	(void)st;
	discards_in_every_order(1);
}

static void test_store__two_players_discard_in_any_order(void **st)
{
	(void)st;
	discards_in_every_order(2);
}

static void test_store__three_players_discard_in_any_order(void **st)
{
	(void)st;
	discards_in_every_order(3);
}

/* Syncs s from its remote `name` (added as the path `url` first). */
static void sync_from(catan_store *s, const char *name, const char *url)
{
	catan_sync_report rep;
	catan_err err = {0};
	const char *remotes[1] = {name};
	if (url)
		assert_int_equal(catan_store_remote_add(s, name, url, &err), 0);
	memset(&rep, 0, sizeof rep);
	assert_int_equal(catan_store_sync(s, remotes, 1, &rep, &err), 0);
	print_message("sync from %s: %d adopted, %d rejected\n%s", name,
		      rep.adopted, rep.rejected, rep.log);
}

/*
 * A branch whose tip is another player's discard (the model's mutant
 * M_TIPOWNER, spec/model.md). After a 7 with two players owing, a third
 * peer E shows b's branch at a's valid discard. If the roller's peer took
 * that as b's branch, b's real discard would look like a rewrite of b's
 * branch and never be adopted there: the roller could not merge. The
 * roller's peer must end with each discard on its own author's branch.
 */
static void test_store__branch_at_another_players_discard(void **st)
{
	char v[700], e[700], bd[700], ref[300];
	catan_state cur, rolled;
	catan_commit_id seven, da, db;
	(void)st;
	snprintf(v, sizeof v, "%s/tip-v", g_tmp);
	snprintf(e, sizeof e, "%s/tip-e", g_tmp);
	snprintf(bd, sizeof bd, "%s/tip-b", g_tmp);
	sh_copy_dir(g_base[2], v);
	sh_copy_dir(g_base[2], e);
	sh_copy_dir(g_base[2], bd);
	catan_store *sv = sh_open(v);
	const catan_game *g = catan_store_game(sv);
	sh_current(sv, &cur, NULL);
	sh_act(sv, cur.active, "roll 3 4", &seven);
	sh_current(sv, &rolled, NULL);
	int owing[2], n = 0;
	for (int p = 0; p < g->opt.nplayers; p++)
		if (rolled.discard[p])
			owing[n++] = p;
	assert_int_equal(n, 2);
	int a = owing[0], b = owing[1];

	/* E and b's peer take the 7; each discards. */
	catan_store *se = sh_open(e), *sb = sh_open(bd);
	sync_from(se, "v", v);
	sync_from(sb, "v", v);
	catan_action xa = sh_first_legal(g, &rolled, a);
	catan_action xb = sh_first_legal(g, &rolled, b);
	sh_act_a(se, a, &xa, &da);
	sh_act_a(sb, b, &xb, &db);
	catan_store_free(se);
	/* E points b's branch at a's discard. */
	git_repository *re = sh_repo(e);
	git_oid da_id = sh_oid(da.hex);
	snprintf(ref, sizeof ref, "refs/heads/%s", g->names.name[b]);
	sh_move_ref(re, ref, &da_id, "b's branch at a's discard");
	git_repository_free(re);

	/* The roller's peer syncs from E, then from b's peer. */
	sync_from(sv, "e", e);
	sync_from(sv, "b", bd);
	git_repository *rv = sh_repo(v);
	git_oid at_a = sh_rev(rv, g->names.name[a]);
	git_oid at_b = sh_rev(rv, g->names.name[b]);
	git_repository_free(rv);
	assert_true(git_oid_equal(&at_a, &da_id));
	git_oid db_id = sh_oid(db.hex);
	if (!git_oid_equal(&at_b, &db_id))
		fail_msg("b's branch at the roller's peer is %s, not b's "
			 "discard %s (a's discard is %s)",
			 git_oid_tostr_s(&at_b), db.hex, da.hex);
	catan_store_free(sb);
	catan_store_free(sv);
}

static int discard_setup(void **st)
{
	(void)st;
	g_tmp = sh_tmpdir("discards");
	find_discard_bases();
	return 0;
}

static int discard_teardown(void **st)
{
	(void)st;
	sh_rmrf(g_tmp);
	free(g_tmp);
	g_tmp = NULL;
	return 0;
}

/*
 * Errors are values: a refusal by the rules carries the rules' own code, a
 * missing game, a missing revision, a held lock and a non-empty directory
 * each their store code, the sentences unchanged beside them.
 */
static void test_store__errors_carry_codes(void **st)
{
	char *tmp = sh_tmpdir("store");
	char dir[512], path[600];
	catan_game g;
	catan_action a;
	catan_state cur;
	catan_store *s2 = NULL;
	catan_err err = {0};
	(void)st;
	sh_game(&g, 4, SH_BOARD_BEGINNER, CATAN_PHASES_COMBINED,
		CATAN_DICE_SEEDED, 42);
	snprintf(dir, sizeof dir, "%s/game", tmp);
	catan_store *s = sh_create(dir, &g);
	sh_current(s, &cur, NULL);
	int other = (cur.active + 1) % 4;
	assert_int_equal(catan_action_parse(&a, &g.board, &g.names,
					    "setup 0,-1,n 0,-1,nw", NULL),
			 CATAN_OK);
	assert_int_equal(catan_store_act(s, other, &a, NULL, NULL, &err), -1);
	assert_int_equal(err.code, CATAN_E_NOT_YOUR_TURN);
	assert_non_null(
	    strstr(err.msg, catan_error_str(CATAN_E_NOT_YOUR_TURN)));

	memset(&err, 0, sizeof err);
	assert_int_equal(
	    catan_store_state_at(&cur, NULL, s, "no-such-branch", &err), -1);
	assert_int_equal(err.code, CATAN_STORE_E_NOT_FOUND);

	/* Another git holds the branch's lock: the move is refused, locked. */
	snprintf(path, sizeof path, "%s/.git/refs/heads/%s.lock", dir,
		 g.names.name[cur.active]);
	if (access(path, F_OK) != 0)
		snprintf(path, sizeof path, "%s/refs/heads/%s.lock", dir,
			 g.names.name[cur.active]);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(catan_action_parse(&a, &g.board, &g.names,
					    "setup 0,-1,n 0,-1,nw", NULL),
			 CATAN_OK);
	memset(&err, 0, sizeof err);
	assert_int_equal(catan_store_act(s, cur.active, &a, NULL, NULL, &err),
			 -1);
	assert_int_equal(err.code, CATAN_STORE_E_LOCKED);
	unlink(path);
	catan_store_free(s);

	memset(&err, 0, sizeof err);
	snprintf(path, sizeof path, "%s/nothing-here", tmp);
	assert_int_equal(catan_store_open(&s2, path, &err), -1);
	assert_int_equal(err.code, CATAN_STORE_E_NOT_FOUND);

	memset(&err, 0, sizeof err);
	assert_int_equal(
	    catan_store_create(&s2, dir, &g, CATAN_TIME_DETERMINISTIC, &err),
	    -1);
	assert_int_equal(err.code, CATAN_STORE_E_DENIED);
	sh_rmrf(tmp);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_store__genesis_then_reopen),
	    cmocka_unit_test(test_store__genesis_recorded),
	    cmocka_unit_test(test_store__create_refuses_non_empty_directory),
	    cmocka_unit_test(test_store__real_time_game_keeps_reflogs),
	    cmocka_unit_test(test_store__commit_layout),
	    cmocka_unit_test(test_store__hot_seat_game_4_players),
	    cmocka_unit_test(test_store__hot_seat_game_2_players),
	    cmocka_unit_test(test_store__hot_seat_game_6_players),
	    cmocka_unit_test(test_store__refused_action_writes_nothing),
	    cmocka_unit_test(test_store__errors_carry_codes),
	    cmocka_unit_test(
		test_store__deterministic_games_give_identical_commits),
	};
	const struct CMUnitTest discards[] = {
	    cmocka_unit_test(test_store__one_player_discards),
	    cmocka_unit_test(test_store__two_players_discard_in_any_order),
	    cmocka_unit_test(test_store__three_players_discard_in_any_order),
	    /* Found by the model (spec/model.md, M_TIPOWNER). */
	    cmocka_unit_test(test_store__branch_at_another_players_discard),
	};
	git_libgit2_init();
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	failed += cmocka_run_group_tests(discards, discard_setup,
					 discard_teardown);
	git_libgit2_shutdown();
	return failed;
}
