/*
 * store_helpers.c - shared fixtures for the store tests.
 */
#define _XOPEN_SOURCE 700

#include "store_helpers.h"

#include "catan/boardgen.h"

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/* ---- files and commands ---- */

char *sh_tmpdir(const char *tag)
{
	char tmpl[256];
	snprintf(tmpl, sizeof tmpl, "/tmp/catan-%s-XXXXXX", tag);
	char *d = mkdtemp(tmpl);
	if (!d)
		fail_msg("mkdtemp %s failed", tmpl);
	char *copy = strdup(d);
	assert_non_null(copy);
	return copy;
}

static int rm_one(const char *path, const struct stat *sb, int flag,
		  struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void sh_rmrf(const char *path)
{
	if (!path)
		return;
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int vrun(char *out, size_t size, const char *fmt, va_list ap)
{
	char cmd[4096];
	int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
	if (n < 0 || (size_t)n >= sizeof cmd)
		fail_msg("command too long");
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	size_t used = 0;
	char chunk[4096];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, p)) > 0) {
		if (out && used + 1 < size) {
			size_t room = size - 1 - used;
			size_t c = k < room ? k : room;
			memcpy(out + used, chunk, c);
			used += c;
		}
	}
	if (out && size)
		out[used] = '\0';
	int st = pclose(p);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int sh_run(char *out, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vrun(out, size, fmt, ap);
	va_end(ap);
	return rc;
}

void sh_must(char *out, size_t size, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	int rc = sh_run(out, size, "%s", cmd);
	if (rc != 0)
		fail_msg("command failed (%d): %s", rc, cmd);
}

void sh_copy_dir(const char *src, const char *dst)
{
	sh_must(NULL, 0, "cp -a '%s' '%s'", src, dst);
}

long sh_fingerprint(const char *dir, char *out, size_t size)
{
	char count[64];
	sh_must(out, size,
		"cd '%s' && git for-each-ref --format='%%(refname) "
		"%%(objectname)' && cat HEAD && "
		"(find logs -type f -exec cat {} + 2>/dev/null | sha1sum) && "
		"find objects -type f | sort | sha1sum && git count-objects -v",
		dir);
	sh_must(count, sizeof count, "find '%s/objects' -type f | wc -l", dir);
	return atol(count);
}

static void read_dir_rec(catan_files *f, const char *root, const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
	DIR *d = opendir(path);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!*rel && !strcmp(e->d_name, ".git"))
			continue;
		char sub[512], full[1024];
		snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "",
			 e->d_name);
		snprintf(full, sizeof full, "%s/%s", root, sub);
		struct stat sb;
		assert_int_equal(lstat(full, &sb), 0);
		if (S_ISDIR(sb.st_mode)) {
			read_dir_rec(f, root, sub);
			continue;
		}
		assert_true(S_ISREG(sb.st_mode));
		FILE *fp = fopen(full, "rb");
		assert_non_null(fp);
		char *buf = malloc((size_t)sb.st_size + 1);
		assert_non_null(buf);
		size_t n = fread(buf, 1, (size_t)sb.st_size, fp);
		fclose(fp);
		assert_int_equal(n, (size_t)sb.st_size);
		assert_int_equal(catan_files_add(f, sub, buf, n), 0);
		free(buf);
	}
	closedir(d);
}

void sh_read_dir_files(catan_files *f, const char *dir)
{
	read_dir_rec(f, dir, "");
}

/* ---- games ---- */

void sh_game(catan_game *g, int nplayers, sh_board board, int phases,
	     int dice, uint64_t seed)
{
	memset(g, 0, sizeof *g);
	switch (board) {
	case SH_BOARD_BEGINNER:
		catan_board_beginner(&g->board);
		break;
	case SH_BOARD_RANDOM:
		catan_board_random(&g->board, seed);
		break;
	case SH_BOARD_HEX3: {
		static const uint8_t tokens[] = {2, 3, 4, 5, 6, 8,
						 9, 10, 11, 12};
		assert_int_equal(catan_board_init_hexagon(&g->board, 3),
				 CATAN_OK);
		for (int t = 0; t < g->board.ntiles; t++) {
			if (t == g->board.ntiles / 2) {
				g->board.tile_terrain[t] = CATAN_DESERT;
				g->board.tile_token[t] = 0;
				continue;
			}
			g->board.tile_terrain[t] = (uint8_t)(t % 5);
			g->board.tile_token[t] = tokens[t % 10];
		}
		catan_board_finish(&g->board);
		break;
	}
	case SH_BOARD_EXT56:
		assert_int_equal(catan_board_random_ext56(&g->board, seed),
				 CATAN_OK);
		break;
	}
	catan_options_default(&g->opt);
	g->opt.nplayers = (uint8_t)nplayers;
	/* 5-6 players: the official rules' special building phase. */
	g->opt.special_build = nplayers > CATAN_MAX_PLAYERS_BASE;
	g->opt.phases = (uint8_t)phases;
	g->opt.dice = (uint8_t)dice;
	g->opt.seed = seed;
	catan_names_default(&g->names, nplayers);
}

void sh_encode_all(catan_files *out, const catan_game *g, const catan_state *s)
{
	assert_int_equal(catan_codec_encode_game(out, g), 0);
	assert_int_equal(catan_codec_encode_state(out, g, s), 0);
}

catan_store *sh_create_mode(const char *path, const catan_game *g,
			    catan_time_mode mode)
{
	catan_store *s = NULL;
	catan_err err = {0};
	if (catan_store_create(&s, path, g, mode, &err))
		fail_msg("catan_store_create %s: %s", path, err.msg);
	return s;
}

catan_store *sh_create(const char *path, const catan_game *g)
{
	return sh_create_mode(path, g, CATAN_TIME_DETERMINISTIC);
}

catan_store *sh_open(const char *path)
{
	catan_store *s = NULL;
	catan_err err = {0};
	if (catan_store_open(&s, path, &err))
		fail_msg("catan_store_open %s: %s", path, err.msg);
	return s;
}

void sh_current(catan_store *s, catan_state *st, catan_commit_id *head)
{
	catan_err err = {0};
	if (catan_store_current(st, head, s, &err))
		fail_msg("catan_store_current: %s", err.msg);
}

void sh_act_a(catan_store *s, int actor, const catan_action *a,
	      catan_commit_id *id)
{
	catan_err err = {0};
	if (catan_store_act(s, actor, a, NULL, id, &err)) {
		char text[160];
		sh_format(text, sizeof text, catan_store_game(s), a);
		fail_msg("act \"%s\" by %d: %s", text, actor, err.msg);
	}
}

void sh_act(catan_store *s, int actor, const char *text, catan_commit_id *id)
{
	const catan_game *g = catan_store_game(s);
	catan_action a;
	catan_parse_error pe;
	if (catan_action_parse(&a, &g->board, &g->names, text, &pe))
		fail_msg("cannot parse \"%s\": %s", text, pe.msg);
	sh_act_a(s, actor, &a, id);
}

static int owing(const catan_state *st)
{
	int n = 0;
	for (int p = 0; p < st->opt.nplayers; p++)
		n += st->discard[p] > 0;
	return n;
}

int sh_play(catan_store *s, int n, catan_rng *rng, unsigned flags,
	    catan_state *ref, int *merges)
{
	const catan_game *g = catan_store_game(s);
	int played = 0;
	for (; played < n; played++) {
		catan_state st;
		catan_action a;
		catan_err err = {0};
		sh_current(s, &st, NULL);
		if (ref && catan_state_hash(ref) != catan_state_hash(&st))
			fail_msg("store state differs from the reference "
				 "before action %d",
				 played);
		if (st.phase == CATAN_PHASE_OVER)
			break;
		int actor = catan_state_next_actor(&st);
		assert_int_not_equal(actor, CATAN_NONE);
		assert_int_equal(catan_bot_choose(&a, CATAN_BOT_RANDOM,
						  &g->board, &st, actor, rng,
						  flags),
				 CATAN_OK);
		if (catan_store_act(s, actor, &a, NULL, NULL, &err)) {
			char text[160];
			sh_format(text, sizeof text, g, &a);
			fail_msg("action %d \"%s\" by %s refused: %s", played,
				 text, g->names.name[actor], err.msg);
		}
		if (ref) {
			int rc = catan_state_apply(ref, &g->board, ref, actor,
						   &a, NULL);
			assert_int_equal(rc, CATAN_OK);
			if (merges && a.kind == CATAN_ACT_ROLL &&
			    ref->phase == CATAN_PHASE_DISCARD && owing(ref) >= 2)
				(*merges)++;
			/* Compared at the top of the next round. */
		}
	}
	if (ref) {
		catan_state now;
		sh_current(s, &now, NULL);
		if (catan_state_hash(ref) != catan_state_hash(&now))
			fail_msg("store state differs from the reference at "
				 "the end");
	}
	return played;
}

void sh_play_setup(catan_store *s, catan_rng *rng)
{
	catan_state st;
	for (;;) {
		sh_current(s, &st, NULL);
		if (st.phase != CATAN_PHASE_SETUP)
			break;
		sh_play(s, 1, rng, CATAN_LEGAL_NO_OFFERS, NULL, NULL);
	}
	assert_int_equal(st.phase, CATAN_PHASE_ROLL);
}

void sh_quiet_turn(catan_store *s, catan_rng *rng)
{
	catan_state st;
	char text[32];
	int d1, d2;
	sh_current(s, &st, NULL);
	assert_int_equal(st.phase, CATAN_PHASE_ROLL);
	do {
		d1 = 1 + (int)catan_rng_below(rng, 6);
		d2 = 1 + (int)catan_rng_below(rng, 6);
	} while (d1 + d2 == 7);
	snprintf(text, sizeof text, "roll %d %d", d1, d2);
	sh_act(s, st.active, text, NULL);
	sh_act(s, st.active, "end", NULL);
}

int sh_owing_if_seven(const catan_state *st)
{
	int n = 0;
	for (int p = 0; p < st->opt.nplayers; p++)
		n += st->players[p].ncards > 7;
	return n;
}

catan_action sh_first_legal(const catan_game *g, const catan_state *st,
			    int actor)
{
	static catan_action buf[4096];
	int n = catan_legal_actions(buf, 4096, &g->board, st, actor, 0);
	if (n < 1)
		fail_msg("player %d has no legal action", actor);
	return buf[0];
}

void sh_format(char *buf, size_t size, const catan_game *g,
	       const catan_action *a)
{
	catan_action_format(buf, size, &g->board, &g->names, a);
}

/* ---- raw Git ---- */

static void git_check(int rc, const char *what)
{
	if (rc < 0) {
		const git_error *e = git_error_last();
		fail_msg("%s: %s", what, e && e->message ? e->message : "?");
	}
}

git_repository *sh_repo(const char *path)
{
	git_repository *r = NULL;
	git_check(git_repository_open(&r, path), "git_repository_open");
	return r;
}

git_oid sh_commit_raw(git_repository *repo, const git_oid *tree,
		      const git_oid *parents, int nparents, const char *name,
		      const char *email, const char *message)
{
	git_signature *sig = NULL;
	git_tree *t = NULL;
	git_commit *pc[8] = {NULL};
	git_oid id;
	assert_true(nparents <= 8);
	git_check(git_signature_new(&sig, name, email, 1800000000, 0),
		  "git_signature_new");
	git_check(git_tree_lookup(&t, repo, tree), "git_tree_lookup");
	for (int i = 0; i < nparents; i++)
		git_check(git_commit_lookup(&pc[i], repo, &parents[i]),
			  "git_commit_lookup");
	git_check(git_commit_create(&id, repo, NULL, sig, sig, NULL, message, t,
				    (size_t)nparents,
				    (const git_commit **)pc),
		  "git_commit_create");
	for (int i = 0; i < nparents; i++)
		git_commit_free(pc[i]);
	git_tree_free(t);
	git_signature_free(sig);
	return id;
}

git_oid sh_commit_action(git_repository *repo, const git_oid *tree,
			 const git_oid *parent, const char *player,
			 const char *subject, int turn, const uint8_t *dice)
{
	char msg[512], email[128];
	int n = snprintf(msg, sizeof msg, "%s\n\nPlayer: %s\nTurn: %d\n",
			 subject, player, turn);
	if (dice)
		snprintf(msg + n, sizeof msg - (size_t)n, "Dice: %d %d\n",
			 dice[0], dice[1]);
	snprintf(email, sizeof email, "%s@" SH_EMAIL_DOMAIN, player);
	return sh_commit_raw(repo, tree, parent, 1, player, email, msg);
}

void sh_move_ref(git_repository *repo, const char *ref, const git_oid *id,
		 const char *log_message)
{
	git_reference *r = NULL;
	git_check(git_reference_create(&r, repo, ref, id, 1, log_message),
		  "git_reference_create");
	git_reference_free(r);
}

git_oid sh_blob(git_repository *repo, const char *data, size_t len)
{
	git_oid id;
	git_check(git_blob_create_from_buffer(&id, repo, data, len),
		  "git_blob_create_from_buffer");
	return id;
}

/* Tree of the files of f under prefix (e.g. "" or "players/red/"). */
static git_oid tree_of_prefix(git_repository *repo, const catan_files *f,
			      const char *prefix)
{
	git_treebuilder *tb = NULL;
	size_t pl = strlen(prefix);
	git_oid id;
	git_check(git_treebuilder_new(&tb, repo, NULL), "git_treebuilder_new");
	for (int i = 0; i < f->n; i++) {
		const char *path = f->file[i].path;
		if (strncmp(path, prefix, pl))
			continue;
		const char *rest = path + pl;
		const char *slash = strchr(rest, '/');
		if (!slash) {
			git_oid b = sh_blob(repo, f->file[i].data,
					    f->file[i].len);
			git_check(git_treebuilder_insert(NULL, tb, rest, &b,
							 GIT_FILEMODE_BLOB),
				  "git_treebuilder_insert");
			continue;
		}
		char dir[CATAN_PATH_MAX], sub[CATAN_PATH_MAX + 1];
		size_t dl = (size_t)(slash - rest);
		memcpy(dir, rest, dl);
		dir[dl] = '\0';
		if (git_treebuilder_get(tb, dir))
			continue; /* done already */
		snprintf(sub, sizeof sub, "%s%s/", prefix, dir);
		git_oid t = tree_of_prefix(repo, f, sub);
		git_check(git_treebuilder_insert(NULL, tb, dir, &t,
						 GIT_FILEMODE_TREE),
			  "git_treebuilder_insert");
	}
	git_check(git_treebuilder_write(&id, tb), "git_treebuilder_write");
	git_treebuilder_free(tb);
	return id;
}

git_oid sh_tree_from_files(git_repository *repo, const catan_files *f)
{
	return tree_of_prefix(repo, f, "");
}

git_oid sh_tree_put(git_repository *repo, const git_oid *root,
		    const char *path, const git_oid *blob)
{
	git_tree *t = NULL;
	git_treebuilder *tb = NULL;
	git_oid id;
	const char *slash = strchr(path, '/');
	git_check(git_tree_lookup(&t, repo, root), "git_tree_lookup");
	git_check(git_treebuilder_new(&tb, repo, t), "git_treebuilder_new");
	if (!slash) {
		if (blob)
			git_check(git_treebuilder_insert(NULL, tb, path, blob,
							 GIT_FILEMODE_BLOB),
				  "git_treebuilder_insert");
		else
			git_check(git_treebuilder_remove(tb, path),
				  "git_treebuilder_remove");
	} else {
		char dir[256];
		size_t dl = (size_t)(slash - path);
		assert_true(dl < sizeof dir);
		memcpy(dir, path, dl);
		dir[dl] = '\0';
		const git_tree_entry *e = git_tree_entry_byname(t, dir);
		assert_non_null(e);
		git_oid sub = sh_tree_put(repo, git_tree_entry_id(e), slash + 1,
					  blob);
		git_check(git_treebuilder_insert(NULL, tb, dir, &sub,
						 GIT_FILEMODE_TREE),
			  "git_treebuilder_insert");
	}
	git_check(git_treebuilder_write(&id, tb), "git_treebuilder_write");
	git_treebuilder_free(tb);
	git_tree_free(t);
	return id;
}

git_oid sh_rev(git_repository *repo, const char *rev)
{
	git_object *o = NULL;
	git_check(git_revparse_single(&o, repo, rev), "git_revparse_single");
	git_oid id = *git_object_id(o);
	git_object_free(o);
	return id;
}

git_oid sh_commit_tree(git_repository *repo, const git_oid *commit)
{
	git_commit *c = NULL;
	git_check(git_commit_lookup(&c, repo, commit), "git_commit_lookup");
	git_oid id = *git_commit_tree_id(c);
	git_commit_free(c);
	return id;
}

git_oid sh_oid(const char *hex)
{
	git_oid id;
	git_check(git_oid_fromstr(&id, hex), "git_oid_fromstr");
	return id;
}
