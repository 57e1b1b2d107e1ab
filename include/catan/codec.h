/*
 * catan/codec.h - the canonical text form of a game: the files of a Git
 * tree. The layout is spec/format.md.
 *
 * A game's fixed facts (board, options, player names, and in a signed game
 * the seats' public keys) are two or three files under game/, written once
 * at genesis. Everything else is the state: small text
 * files, one fact per line, in a fixed order. Encoding is a pure function of
 * the state, and decoding accepts exactly what encoding produces, so
 * encode(decode(files)) == files byte for byte and a tree id names a state.
 * Not part of the pure core: this module uses libc formatting.
 */
#ifndef CATAN_CODEC_H
#define CATAN_CODEC_H

#include <stdbool.h>
#include <stddef.h>

#include "catan/action.h"
#include "catan/board.h"
#include "catan/state.h"

/* The fixed facts of one game. A plain value. */
typedef struct catan_game {
	catan_board board;
	catan_options opt;
	catan_names names;
	/*
	 * A signed game (game/signers present) fixes every seat's Ed25519
	 * public key at genesis; every commit must then be signed by its
	 * author's key (spec/replication.md, "Keys and signatures").
	 */
	bool signed_game;
	unsigned char keys[CATAN_MAX_PLAYERS][32];
	/*
	 * The lobby (spec/replication.md, "Keys and signatures"): the seats,
	 * one bit each (1u << p), that a signed genesis leaves open for a
	 * joiner to claim (game/open); their keys[] are zero and their
	 * lines absent from game/signers. 0 once the start binds every seat,
	 * and in every game without a lobby. Never the first seat.
	 */
	unsigned open;
} catan_game;

/* One file of a tree: path relative to the root, and its bytes. */
#define CATAN_PATH_MAX 48
typedef struct catan_file {
	char path[CATAN_PATH_MAX];
	char *data; /* points into the owning catan_files' buffer */
	size_t len;
} catan_file;

#define CATAN_FILES_MAX (12 + 4 * CATAN_MAX_PLAYERS)

/*
 * A set of files in path order, owning one growable buffer. Initialise with
 * catan_files_init, release with catan_files_free (accepts NULL).
 */
typedef struct catan_files {
	int n;
	catan_file file[CATAN_FILES_MAX];
	char *buf;
	size_t used, cap;
} catan_files;

void catan_files_init(catan_files *f);
void catan_files_free(catan_files *f);
/* Adds a file (copies the bytes). Returns 0, or -1 when out of memory/room. */
int catan_files_add(catan_files *f, const char *path, const char *data,
		    size_t len);
/* The file at `path`, or NULL. */
const catan_file *catan_files_get(const catan_files *f, const char *path);

/* Error detail: which file, which line (1-based, 0 = whole file), why. */
typedef struct catan_codec_error {
	char path[CATAN_PATH_MAX];
	int line;
	char msg[160];
} catan_codec_error;

/*
 * Encodes the game's fixed facts as game/board and game/options into `out`
 * (appended). Returns 0 or -1 (out of memory).
 */
int catan_codec_encode_game(catan_files *out, const catan_game *g);

/*
 * Encodes the state's files (everything but game/) into `out` (appended),
 * in path order. Returns 0 or -1 (out of memory).
 */
int catan_codec_encode_state(catan_files *out, const catan_game *g,
			     const catan_state *s);

/*
 * Decodes game/board and game/options from `in`. On failure returns -1 and
 * fills `err` (file, line, reason); `out` is then unspecified.
 */
int catan_codec_decode_game(catan_game *out, const catan_files *in,
			    catan_codec_error *err);

/* `e` as a message: "path:line: why", or "path: why" about a whole file. */
void catan_codec_error_text(char *out, size_t size, const catan_codec_error *e);

/*
 * Decodes the state files of `in` for game `g`: every expected file must be
 * present, no other file may be, each must be exactly canonical, and the
 * decoded state must pass catan_state_check. On failure returns -1 and fills
 * `err`; `out` is then unspecified.
 */
int catan_codec_decode_state(catan_state *out, const catan_game *g,
			     const catan_files *in, catan_codec_error *err);

/* The canonical names of the phases as the files write them. */
const char *catan_phase_name(int phase);

#endif
