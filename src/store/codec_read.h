/*
 * codec_read.h - layer 0 (the pure codec): what codec.c (encoding),
 * codec_game.c (decoding game/) and codec_state.c (decoding a state)
 * share. A line reader over one file of a catan_files with errors that
 * name the file and line, and the parsers of the words and numbers the
 * files hold. No I/O, no allocation, no libgit2.
 *
 * Every codec_* function that returns int returns 0 on success or -1
 * after filling r->err (through codec_rfail); the bool ones say whether
 * the text parsed and touch no error.
 */
#ifndef CATAN_STORE_CODEC_READ_H
#define CATAN_STORE_CODEC_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "catan/codec.h"

/*
 * The RNG as a draw count: SplitMix64 adds a fixed odd constant per draw,
 * so its state is seed' + k * gamma and k (how many numbers the game has
 * drawn) says the same in fewer, more readable bytes.
 */
#define RNG_GAMMA 0x9e3779b97f4a7c15ull

/* The RNG state before any draw of a game of this seed. */
uint64_t codec_rng_start(uint64_t seed);
/* Whether phase is one a game resumes from (discard, robber, offer). */
bool codec_resuming(int phase);
/* The tile a board's robber starts on unless told otherwise. */
uint8_t codec_first_desert(const catan_board *b);

/* A file being read, line by line. */
typedef struct reader {
	const char *path;
	const char *p, *end;
	int line;
	char cur[512]; /* the current line, NUL-terminated */
	catan_codec_error *err;
} reader;

/* Fills r->err with path, line and the message; returns -1. */
int codec_rfail(reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Starts reading file `path` of in: -1 when it is missing, holds a NUL
 * byte or does not end with a newline. */
int codec_open_file(reader *r, const catan_files *in, const char *path,
		    catan_codec_error *err);
/* Next line into r->cur: 0 on success, 1 at end of file, -1 error. */
int codec_next_line(reader *r);
/* As codec_next_line, but the end is an error naming `what`. */
int codec_need_line(reader *r, const char *what);
/* Nothing may follow. */
int codec_expect_end(reader *r);
/* A whole decimal number in [lo, hi] with no sign or leading zero. */
bool codec_read_uint(const char *s, long lo, long hi, long *out);
/* "KEY VALUE" with an exact key and a number in range. */
int codec_key_num(reader *r, const char *key, long lo, long hi, long *out);
/* "KEY WORD": *out points into r->cur. */
int codec_key_word(reader *r, const char *key, const char **out);
/* The index i < n with name(i) equal to w, or -1. */
int codec_find_word(const char *w, const char *(*name)(int), int n);
/* The index of player w (none_ok: "none" is CATAN_NONE), or -1. */
int codec_player_word(const catan_game *g, const char *w, bool none_ok);
/* "name:N name:N ..." or "none" into counts c[0..n-1], each <= max. */
bool codec_parse_cards(const char *s, uint8_t *c, int n,
		       const char *(*name)(int), int max);
/* "KEY yes" or "KEY no" into *out (1 or 0). */
int codec_yes_no(reader *r, const char *key, uint8_t *out);

#endif
