/*
 * fuzz_codec.c - the state-tree decoder (catan_codec_decode_game and
 * catan_codec_decode_state), which reads the tree of every commit a peer
 * sends.
 *
 * Input: the files of a tree as text, each introduced by a line
 * "=== PATH" (the bytes up to the next such line are its content; what
 * comes before the first is ignored). Without both game/board and
 * game/options the game is the beginner board with four players and
 * default options. A path given twice is not tried (a Git tree cannot
 * hold it, and verify compares the tree's id with the re-encoded state).
 * Invariants: an accepted game/ encodes back to the same two files byte
 * for byte; an accepted state encodes back to exactly the state files
 * given (same paths, same bytes), and decoding that encoding gives the
 * same state (memcmp).
 */
#include <string.h>

#include "catan/codec.h"
#include "fuzz.h"

static bool header_at(const uint8_t *p, const uint8_t *end)
{
	return end - p >= 4 && !memcmp(p, "=== ", 4);
}

/* Splits the input into files; -1 when it cannot be a tree. */
static int split(catan_files *in, const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	/* To the first header line. */
	while (p < end && !header_at(p, end)) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || nl - (p + 4) <= 0 || nl - (p + 4) >= CATAN_PATH_MAX)
			return -1;
		char path[CATAN_PATH_MAX];
		memcpy(path, p + 4, (size_t)(nl - (p + 4)));
		path[nl - (p + 4)] = '\0';
		if (strlen(path) != (size_t)(nl - (p + 4)) ||
		    catan_files_get(in, path))
			return -1;
		const uint8_t *c = nl + 1, *q = c;
		while (q < end && !header_at(q, end)) {
			const uint8_t *nl2 = memchr(q, '\n', (size_t)(end - q));
			q = nl2 ? nl2 + 1 : end;
		}
		if (catan_files_add(in, path, (const char *)c, (size_t)(q - c)))
			return -1;
		p = q;
	}
	return 0;
}

static bool same_file(const catan_file *f, const catan_file *g)
{
	return f && g && f->len == g->len && !memcmp(f->data, g->data, f->len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static catan_game game;
	static catan_state st, again;
	catan_files in, out, out2;
	catan_codec_error err;
	catan_files_init(&in);
	catan_files_init(&out);
	catan_files_init(&out2);
	if (split(&in, data, size))
		goto done;
	if (catan_files_get(&in, "game/board") &&
	    catan_files_get(&in, "game/options")) {
		if (catan_codec_decode_game(&game, &in, &err))
			goto done;
		FUZZ_CHECK(catan_codec_encode_game(&out, &game) == 0);
		FUZZ_CHECK(out.n == 2);
		for (int i = 0; i < out.n; i++)
			FUZZ_CHECK(
			    same_file(&out.file[i],
				      catan_files_get(&in, out.file[i].path)));
		catan_files_free(&out);
		catan_files_init(&out);
	} else {
		memset(&game, 0, sizeof game);
		catan_board_beginner(&game.board);
		catan_options_default(&game.opt);
		catan_names_default(&game.names, game.opt.nplayers);
	}
	if (catan_codec_decode_state(&st, &game, &in, &err))
		goto done;
	FUZZ_CHECK(catan_codec_encode_state(&out, &game, &st) == 0);
	int given = 0;
	for (int i = 0; i < in.n; i++)
		given += strncmp(in.file[i].path, "game/", 5) != 0;
	FUZZ_CHECK(given == out.n);
	for (int i = 0; i < out.n; i++)
		FUZZ_CHECK(same_file(&out.file[i],
				     catan_files_get(&in, out.file[i].path)));
	FUZZ_CHECK(catan_codec_decode_state(&again, &game, &out, &err) == 0);
	FUZZ_CHECK(!memcmp(&st, &again, sizeof st));
	FUZZ_CHECK(catan_codec_encode_state(&out2, &game, &again) == 0);
	FUZZ_CHECK(out2.n == out.n);
	for (int i = 0; i < out.n; i++)
		FUZZ_CHECK(same_file(&out.file[i], &out2.file[i]));
done:
	catan_files_free(&in);
	catan_files_free(&out);
	catan_files_free(&out2);
	return 0;
}
