/*
 * fuzz_message.c - commit messages and their trailers: verify's
 * check_message (author, committer, "ACTION\n\nPlayer: P\nTurn: N\n")
 * on a commit libgit2 parsed, and store_trailer_int, as verify and sync
 * read every commit a peer sends; then the action parser on the subject.
 *
 * Input: one byte of mode, then bytes. Mode bit 1 set: the game has fair
 * dice (whose messages are those of any game). Mode bit 0 clear: the rest is a
 * whole raw commit object. Set: the next byte picks the author (one of
 * the four players or a stranger) and the rest is the message under a
 * fixed header with that author and committer.
 * Invariants: an accepted message is byte for byte the one store_commit
 * writes for its subject, author and Turn trailer; a commit made with
 * those is accepted again with the same author, subject and turn; a
 * subject the action parser accepts formats to itself when verify would
 * take it (canonical) and parses back to the same action.
 */
#include <string.h>

#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/repository.h>

#include "catan/codec.h"
#include "fuzz.h"
#include "fuzz_internal.h"
#include "repo.h"

static git_repository *repo;
static git_odb *odb;
static git_odb_backend *mem;
static catan_game game;
static const char *const empty_tree =
    "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	/* No cache of parsed commits: it would keep every input's (up to
	 * 256 MiB), which libFuzzer's RSS limit takes for a leak. */
	git_libgit2_opts(GIT_OPT_ENABLE_CACHING, 0);
	/* The raw commit is taken as given (no hash check on reading it). */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
	FUZZ_CHECK(git_odb_new(&odb) == 0);
	FUZZ_CHECK(git_mempack_new(&mem) == 0);
	FUZZ_CHECK(git_odb_add_backend(odb, mem, 1) == 0);
	FUZZ_CHECK(git_repository_new(&repo) == 0);
	git_repository_set_odb(repo, odb);
	catan_board_beginner(&game.board);
	catan_options_default(&game.opt);
	catan_names_default(&game.names, game.opt.nplayers);
	return 0;
}

/* Writes raw commit bytes and reads them back as a commit, or NULL. */
static git_commit *commit_of(const void *raw, size_t len)
{
	git_oid id;
	git_commit *c = NULL;
	if (git_odb_write(&id, odb, raw, len, GIT_OBJECT_COMMIT) ||
	    git_commit_lookup(&c, repo, &id))
		return NULL;
	return c;
}

static void check(git_commit *c)
{
	char subject[160], why[512], want[512], again[160];
	int author = -1, a2 = -1;
	const char *msg = git_commit_message(c);
	int turn = msg ? store_trailer_int(msg, "Turn") : -1;
	if (store_fuzz_check_message(&game, c, &author, subject, sizeof subject,
				     why, sizeof why)) {
		FUZZ_CHECK(why[0] != '\0');
		return;
	}
	FUZZ_CHECK(author >= 0 && author < game.names.n);
	FUZZ_CHECK(turn >= 0);
	/* What store_commit writes for these. */
	uint8_t dice[2];
	int has_dice = store_trailer_dice(msg, dice);
	FUZZ_CHECK(has_dice >= 0);
	store_message(want, sizeof want, subject, game.names.name[author], turn,
		      has_dice > 0 ? dice : NULL);
	FUZZ_CHECK(!strcmp(msg, want));

	/* Made again through libgit2, as store_commit makes it. */
	git_signature *sig = NULL;
	git_buf buf = {NULL, 0, 0};
	git_tree *tree = NULL;
	git_oid tid;
	char email[64];
	store_email(email, sizeof email, game.names.name[author]);
	FUZZ_CHECK(git_signature_new(&sig, game.names.name[author], email,
				     1700000000, 0) == 0);
	FUZZ_CHECK(git_oid_fromstr(&tid, empty_tree) == 0);
	FUZZ_CHECK(git_odb_write(&tid, odb, "", 0, GIT_OBJECT_TREE) == 0);
	FUZZ_CHECK(git_tree_lookup(&tree, repo, &tid) == 0);
	FUZZ_CHECK(git_commit_create_buffer(&buf, repo, sig, sig, NULL, want,
					    tree, 0, NULL) == 0);
	git_commit *c2 = commit_of(buf.ptr, buf.size);
	FUZZ_CHECK(c2 != NULL);
	FUZZ_CHECK(store_fuzz_check_message(&game, c2, &a2, again, sizeof again,
					    why, sizeof why) == 0);
	FUZZ_CHECK(a2 == author && !strcmp(again, subject));
	FUZZ_CHECK(store_trailer_int(git_commit_message(c2), "Turn") == turn);
	git_commit_free(c2);
	git_tree_free(tree);
	git_buf_dispose(&buf);
	git_signature_free(sig);

	/* The subject as verify reads it next. */
	catan_action a, b;
	catan_parse_error pe;
	char canon[160];
	if (catan_action_parse(&a, &game.board, &game.names, subject, &pe))
		return;
	int n = catan_action_format(canon, sizeof canon, &game.board,
				    &game.names, &a);
	FUZZ_CHECK(n > 0 && (size_t)n < sizeof canon);
	FUZZ_CHECK(
	    catan_action_parse(&b, &game.board, &game.names, canon, &pe) == 0);
	FUZZ_CHECK(!memcmp(&a, &b, sizeof a));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const who[5] = {"red", "blue", "white", "orange",
					   "mallory"};
	if (size < 2)
		return 0;
	game.opt.dice = data[0] & 2 ? CATAN_DICE_FAIR : CATAN_DICE_SEEDED;
	/* The trailer readers on any text, as sync's ancestry walks use them.
	 */
	char *text = fuzz_cstr(data + 1, size - 1);
	if (text) {
		int v = store_trailer_int(text, "Turn");
		FUZZ_CHECK(v >= -1 && v < 10000000);
		free(text);
	}
	git_commit *c = NULL;
	if (!(data[0] & 1)) {
		c = commit_of(data + 1, size - 1);
	} else {
		const char *name = who[data[1] % 5];
		size_t cap = 300 + size;
		char *raw = malloc(cap);
		if (!raw)
			return 0;
		int h = snprintf(raw, cap,
				 "tree %s\nauthor %s <%s@catan> 1700000000 "
				 "+0000\ncommitter %s <%s@catan> 1700000000 "
				 "+0000\n\n",
				 empty_tree, name, name, name, name);
		memcpy(raw + h, data + 2, size - 2);
		c = commit_of(raw, (size_t)h + size - 2);
		free(raw);
	}
	if (c)
		check(c);
	git_commit_free(c);
	git_mempack_reset(mem);
	return 0;
}
