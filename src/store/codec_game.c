/*
 * codec_game.c - layer 0 (pure): game/ (the board and options files of a
 * genesis) -> catan_game, accepting only the canonical text that
 * catan_codec_encode_game writes.
 */
#include "catan/codec.h"
#include "catan/sign.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_read.h"

/*
 * The game files must be byte for byte what catan_codec_encode_game writes
 * for the game they decoded to: the field checks above accept some spellings
 * of a number that are not canonical ("-0", "+3", "00"), and this catches
 * those and anything else they let through. Names the first line that
 * differs.
 */
static int canonical_game(reader *r, const catan_game *g, const catan_files *in)
{
	catan_files enc;
	catan_files_init(&enc);
	if (catan_codec_encode_game(&enc, g)) {
		catan_files_free(&enc);
		return codec_rfail(r, "out of memory");
	}
	int rc = 0;
	for (int i = 0; i < enc.n && rc == 0; i++) {
		const catan_file *want = &enc.file[i];
		const catan_file *got = catan_files_get(in, want->path);
		if (got && got->len == want->len &&
		    !memcmp(got->data, want->data, want->len))
			continue;
		r->path = want->path;
		r->line = 1;
		for (size_t k = 0; got && k < got->len && k < want->len &&
				   got->data[k] == want->data[k];
		     k++)
			r->line += got->data[k] == '\n';
		rc = codec_rfail(r,
				 "not canonical (written as catan would write "
				 "this game)");
	}
	catan_files_free(&enc);
	return rc;
}

/*
 * game/options into out->names and out->opt: "players", "vp", "phases",
 * "dice", "offer-limit", "seed" and, with more than the base game's
 * players, "special-build", in that order and nothing else.
 */
static int decode_options(reader *r, catan_game *out, const catan_files *in,
			  catan_codec_error *err)
{
	long v;
	const char *w;
	if (codec_open_file(r, in, "game/options", err))
		return -1;
	if (codec_need_line(r, "players"))
		return -1;
	if (strncmp(r->cur, "players ", 8))
		return codec_rfail(r, "expected \"players NAME NAME ...\"");
	char list[sizeof r->cur];
	memcpy(list, r->cur + 8, strlen(r->cur + 8) + 1);
	for (char *c = list; *c; c++)
		if (*c == ' ')
			*c = ',';
	if (catan_names_parse(&out->names, list) ||
	    out->names.n > CATAN_MAX_PLAYERS)
		return codec_rfail(r, "bad player list \"%.60s\"", r->cur + 8);
	/* Canonical: names as stored (lowercase), no folding happened. */
	for (int p = 0; p < out->names.n; p++)
		if (!strstr(r->cur, out->names.name[p]))
			return codec_rfail(r, "player names must be lowercase");
	catan_options_default(&out->opt);
	out->opt.nplayers = out->names.n;
	if (codec_key_num(r, "vp", 3, 20, &v))
		return -1;
	out->opt.vp_target = (uint8_t)v;
	if (codec_key_word(r, "phases", &w))
		return -1;
	if (!strcmp(w, "classic"))
		out->opt.phases = CATAN_PHASES_CLASSIC;
	else if (strcmp(w, "combined"))
		return codec_rfail(r, "phases must be combined or classic");
	if (codec_key_word(r, "dice", &w))
		return -1;
	if (!strcmp(w, "manual"))
		out->opt.dice = CATAN_DICE_MANUAL;
	else if (!strcmp(w, "fair"))
		out->opt.dice = CATAN_DICE_FAIR;
	else if (strcmp(w, "seeded"))
		return codec_rfail(r, "dice must be seeded, manual or fair");
	if (codec_key_num(r, "offer-limit", 0, 255, &v))
		return -1;
	out->opt.offer_limit = (uint8_t)v;
	if (codec_key_word(r, "seed", &w))
		return -1;
	{
		unsigned long long seed = 0;
		const char *c = w;
		if (*c == '0' && c[1])
			return codec_rfail(r, "seed has a leading zero");
		for (; *c; c++) {
			if (*c < '0' || *c > '9' ||
			    seed > (~0ull - (unsigned)(*c - '0')) / 10)
				return codec_rfail(
				    r, "seed must be a number below "
				       "2^64");
			seed = seed * 10 + (unsigned)(*c - '0');
		}
		out->opt.seed = seed;
	}
	if (out->opt.nplayers > CATAN_MAX_PLAYERS_BASE &&
	    codec_yes_no(r, "special-build", &out->opt.special_build))
		return -1;
	if (codec_expect_end(r))
		return -1;
	return 0;
}

/*
 * A line "tile Q,R TERRAIN TOKEN" (its words a, b2, c) into hex, terrain
 * and token; full: no tile may come now (too many, or after a harbour).
 */
static int tile_line(reader *r, const char *a, const char *b2, const char *c,
		     bool full, catan_hex *hex, uint8_t *terrain,
		     uint8_t *token)
{
	long v;
	int q, rr, used = 0;
	if (full || sscanf(a, "%d,%d%n", &q, &rr, &used) != 2 || a[used] ||
	    q < -CATAN_MAX_RADIUS - 1 || q > CATAN_MAX_RADIUS + 1 ||
	    rr < -CATAN_MAX_RADIUS - 1 || rr > CATAN_MAX_RADIUS + 1)
		return codec_rfail(r, "bad tile line \"%.60s\"", r->cur);
	int t = codec_find_word(b2, catan_res_name, CATAN_RES_COUNT + 1);
	if (t < 0)
		return codec_rfail(r, "unknown terrain \"%.20s\"", b2);
	if (!codec_read_uint(c, 0, 12, &v) || (t == CATAN_DESERT) != (v == 0) ||
	    v == 1 || v == 7)
		return codec_rfail(r, "bad token \"%.20s\"", c);
	*hex = (catan_hex){(int8_t)q, (int8_t)rr};
	*terrain = (uint8_t)t;
	*token = (uint8_t)v;
	return 0;
}

/*
 * The robber line (at `line`: Q,R) checked canonical and on a land tile
 * other than the first desert, into b->robber_start.
 */
static int robber_start(reader *r, catan_board *b, int q, int rr, int line)
{
	{
		r->line = line;
		int t = catan_board_tile(b, q, rr);
		if (t < 0)
			return codec_rfail(
			    r, "the robber must start on a land tile");
		char canon[32], text[32];
		catan_tile_format(canon, sizeof canon, b, t);
		snprintf(text, sizeof text, "%d,%d", q, rr);
		if (t == codec_first_desert(b) || strcmp(canon, text))
			return codec_rfail(
			    r, "robber line not canonical (the first "
			       "desert is left out)");
		b->robber_start = (uint8_t)t;
	}
	return 0;
}

/*
 * game/open, when there: the seats a lobby leaves open, one name a line in
 * player order, never the first seat (which signs the genesis). Only in a
 * signed game; the canonical check (canonical_game) refuses any other
 * spelling.
 */
static int decode_open(reader *r, catan_game *out, const catan_files *in)
{
	const catan_file *f = catan_files_get(in, "game/open");
	if (!f)
		return 0;
	r->path = "game/open";
	r->line = 0;
	if (!catan_files_get(in, "game/signers"))
		return codec_rfail(r, "open seats need game/signers (a lobby "
				      "is a signed game's)");
	const char *d = f->data, *end = f->data + f->len;
	while (d < end) {
		const char *nl = memchr(d, '\n', (size_t)(end - d));
		r->line++;
		if (!nl)
			return codec_rfail(r, "the last line has no end");
		int p = catan_names_find(&out->names, d, (size_t)(nl - d));
		if (p <= 0 || (size_t)(nl - d) != strlen(out->names.name[p]))
			return codec_rfail(r,
					   "\"%.*s\" is no seat a lobby can "
					   "leave open (a player but the "
					   "first)",
					   (int)(nl - d > 20 ? 20 : nl - d), d);
		out->open |= 1u << p;
		d = nl + 1;
	}
	if (!out->open)
		return codec_rfail(r, "no open seat");
	return 0;
}

/*
 * game/signers, when there: the seats' keys (a signed game), one line per
 * seat not open. No other file but board, open and options may stand in
 * game/.
 */
static int decode_signers(reader *r, catan_game *out, const catan_files *in)
{
	for (int i = 0; i < in->n; i++) {
		const char *path = in->file[i].path;
		if (!strncmp(path, "game/", 5) && strcmp(path, "game/board") &&
		    strcmp(path, "game/options") &&
		    strcmp(path, "game/signers") && strcmp(path, "game/open")) {
			r->path = path;
			r->line = 0;
			return codec_rfail(r, "unexpected file in game/");
		}
	}
	const catan_file *f = catan_files_get(in, "game/signers");
	if (!f && out->opt.dice == CATAN_DICE_FAIR) {
		r->path = "game/options";
		r->line = 0;
		return codec_rfail(r, "fair dice need game/signers (each "
				      "seat's secrets come from its key)");
	}
	if (decode_open(r, out, in))
		return -1;
	if (!f)
		return 0;
	const char *names[CATAN_MAX_PLAYERS];
	unsigned char keys[CATAN_MAX_PLAYERS][32];
	int seat[CATAN_MAX_PLAYERS], nb = 0;
	catan_sign_why why = {{0}, 0};
	for (int p = 0; p < out->opt.nplayers; p++)
		if (!(out->open & (1u << p))) {
			seat[nb] = p;
			names[nb++] = out->names.name[p];
		}
	r->path = "game/signers";
	r->line = 0;
	if (f->len > 4096)
		return codec_rfail(r, "over 4 KiB");
	if (catan_signers_parse(keys, f->data, f->len, names, nb, &why)) {
		r->line = why.line;
		return codec_rfail(r, "%s", why.msg);
	}
	for (int i = 0; i < nb; i++)
		memcpy(out->keys[seat[i]], keys[i], 32);
	out->signed_game = true;
	return 0;
}

int catan_codec_decode_game(catan_game *out, const catan_files *in,
			    catan_codec_error *err)
{
	reader r;
	catan_hex hexes[CATAN_MAX_TILES];
	uint8_t terrain[CATAN_MAX_TILES], token[CATAN_MAX_TILES];
	int nt = 0, nh = 0, robber_line = 0;
	struct {
		int q, r;
	} robber = {0, 0};
	struct {
		catan_hex hex;
		int dir, kind;
	} harbours[CATAN_MAX_HARBOURS];
	memset(out, 0, sizeof *out);

	if (decode_options(&r, out, in, err))
		return -1;

	if (codec_open_file(&r, in, "game/board", err))
		return -1;
	int rc;
	while ((rc = codec_next_line(&r)) == 0) {
		char kind[16], a[32], b2[32], c[32], extra[2];
		int n = sscanf(r.cur, "%15s %31s %31s %31s %1s", kind, a, b2, c,
			       extra);
		if (n == 4 && !strcmp(kind, "tile")) {
			if (tile_line(&r, a, b2, c, nh || nt == CATAN_MAX_TILES,
				      &hexes[nt], &terrain[nt], &token[nt]))
				return -1;
			nt++;
		} else if (n == 3 && !strcmp(kind, "harbour")) {
			int q, rr, used = 0;
			char dir[4];
			if (nh == CATAN_MAX_HARBOURS ||
			    sscanf(a, "%d,%d,%3[a-z]%n", &q, &rr, dir, &used) !=
				3 ||
			    a[used])
				return codec_rfail(
				    &r, "bad harbour line \"%.60s\"", r.cur);
			int d = !strcmp(dir, "w")    ? CATAN_EDIR_W
				: !strcmp(dir, "nw") ? CATAN_EDIR_NW
				: !strcmp(dir, "ne") ? CATAN_EDIR_NE
						     : -1;
			int k = !strcmp(b2, "generic")
				    ? CATAN_HARBOUR_GENERIC
				    : codec_find_word(b2, catan_res_name,
						      CATAN_RES_COUNT);
			if (d < 0 || k < 0)
				return codec_rfail(
				    &r, "bad harbour line \"%.60s\"", r.cur);
			harbours[nh].hex = (catan_hex){(int8_t)q, (int8_t)rr};
			harbours[nh].dir = d;
			harbours[nh++].kind = k;
		} else if (n == 2 && !strcmp(kind, "robber") && !robber_line) {
			int used = 0;
			if (sscanf(a, "%d,%d%n", &robber.q, &robber.r, &used) !=
				2 ||
			    a[used])
				return codec_rfail(
				    &r, "bad robber line \"%.60s\"", r.cur);
			robber_line = r.line;
		} else {
			return codec_rfail(&r,
					   "expected a tile, harbour or robber "
					   "line, got \"%.40s\"",
					   r.cur);
		}
		if (robber_line && r.line != robber_line)
			return codec_rfail(&r, "the robber line comes last");
	}
	if (rc < 0)
		return -1;
	if (nt == 0)
		return codec_rfail(&r, "no tiles");
	catan_board *b = &out->board;
	if (catan_board_init_shape(b, hexes, nt))
		return codec_rfail(&r,
				   "tiles do not form a board (duplicate, or "
				   "too many)");
	for (int i = 0; i < nt; i++) {
		int t = catan_board_tile(b, hexes[i].q, hexes[i].r);
		if (t != i) {
			r.line = i + 1;
			return codec_rfail(&r,
					   "tiles out of order (expected by r, "
					   "then q)");
		}
		b->tile_terrain[t] = terrain[i];
		b->tile_token[t] = token[i];
	}
	for (int h = 0; h < nh; h++) {
		int e = catan_board_edge(b, harbours[h].hex.q,
					 harbours[h].hex.r, harbours[h].dir);
		r.line = nt + h + 1;
		if (e < 0)
			return codec_rfail(&r, "harbour edge not on the board");
		b->harbour_edge[h] = (uint8_t)e;
		b->harbour_kind[h] = (uint8_t)harbours[h].kind;
	}
	b->nharbours = (uint8_t)nh;
	{
		int bad;
		const char *why;
		if (catan_board_check_harbours(b, &bad, &why)) {
			r.line = nt + bad + 1;
			return codec_rfail(&r, "%s", why);
		}
	}
	catan_board_finish(b);
	if (robber_line && robber_start(&r, b, robber.q, robber.r, robber_line))
		return -1;
	if (decode_signers(&r, out, in))
		return -1;
	return canonical_game(&r, out, in);
}
