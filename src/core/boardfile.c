/*
 * boardfile.c - the board file format of spec/board.md: a parser that
 * checks everything and a formatter whose output parses back to the same
 * board; terrain names and tile pins.
 *
 * Pure core: no I/O, no allocation, no libc beyond memcpy/memset. The
 * parser reads one byte at a time up to the terminating NUL.
 */
#include "catan/boardfile.h"

#include <string.h>

static const char *const terrain_words[] = {"lumber", "brick", "wool",
					    "grain",  "ore",   "desert"};
static const char *const tile_words[] = {"forest", "hills",	"pasture",
					 "fields", "mountains", "desert"};
static const char *const edge_words[CATAN_EDIR_COUNT] = {"w", "nw", "ne",
							 "e", "se", "sw"};

static int lower(int ch)
{
	return ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch;
}

/* NUL-terminated a equals lowercase s, in any case. */
static bool zword_is(const char *a, const char *s)
{
	for (; *a && *s; a++, s++)
		if (lower((unsigned char)*a) != *s)
			return false;
	return *a == *s;
}

/* Does `word` (n bytes) equal the lowercase name `s`, in any case? */
static bool word_is(const char *word, size_t n, const char *s)
{
	size_t i = 0;
	for (; i < n && s[i]; i++)
		if (lower((unsigned char)word[i]) != s[i])
			return false;
	return i == n && s[i] == '\0';
}

int catan_terrain_parse(const char *word, size_t n)
{
	for (int x = 0; x <= CATAN_DESERT; x++)
		if (word_is(word, n, terrain_words[x]) ||
		    word_is(word, n, tile_words[x]))
			return x;
	return -1;
}

/*
 * Reads a signed decimal at *p (saturating far outside any board) and
 * advances *p. Returns false if there is no digit.
 */
static bool read_int(const char **p, int *out)
{
	const char *s = *p;
	bool neg = false;
	long v = 0;
	if (*s == '-')
		neg = *s++ == '-';
	if (*s < '0' || *s > '9')
		return false;
	/* Canonical only: no "+", no leading zero, no "-0". */
	if (*s == '0' && ((s[1] >= '0' && s[1] <= '9') || neg))
		return false;
	while (*s >= '0' && *s <= '9') {
		if (v < 100000)
			v = v * 10 + (*s - '0');
		s++;
	}
	*out = (int)(neg ? -v : v);
	*p = s;
	return true;
}

/* "Q,R" at *p; advances *p. */
static bool read_hex(const char **p, int *q, int *r)
{
	const char *s = *p;
	if (!read_int(&s, q) || *s != ',')
		return false;
	s++;
	if (!read_int(&s, r))
		return false;
	*p = s;
	return true;
}

static bool is_token(int k)
{
	return k >= 2 && k <= 12 && k != 7;
}

int catan_pin_parse(catan_pin *out, const char *text)
{
	const char *s = text;
	int q, r, k = 0;
	catan_pin pin = {{0, 0}, CATAN_NONE, 0};

	while (*s == ' ')
		s++;
	if (!read_hex(&s, &q, &r) || *s != '=' || q < -100 || q > 100 ||
	    r < -100 || r > 100)
		return CATAN_E_PARSE;
	s++;
	pin.hex = (catan_hex){(int8_t)q, (int8_t)r};
	if (*s >= '0' && *s <= '9') {
		if (!read_int(&s, &k) || !is_token(k))
			return CATAN_E_PARSE;
		pin.token = (uint8_t)k;
	} else {
		const char *w = s;
		while (*s && *s != ':' && *s != ' ')
			s++;
		int x = catan_terrain_parse(w, (size_t)(s - w));
		if (x < 0)
			return CATAN_E_PARSE;
		pin.terrain = (uint8_t)x;
		if (*s == ':') {
			s++;
			if (!read_int(&s, &k) || !is_token(k) ||
			    x == CATAN_DESERT)
				return CATAN_E_PARSE;
			pin.token = (uint8_t)k;
		}
	}
	while (*s == ' ')
		s++;
	if (*s)
		return CATAN_E_PARSE;
	*out = pin;
	return CATAN_OK;
}

/* ---- parsing ---- */

typedef struct pfile {
	int ntiles, nharbours, robber_line, radius, radius_line;
	catan_hex hex[CATAN_MAX_TILES];
	uint8_t terrain[CATAN_MAX_TILES], token[CATAN_MAX_TILES];
	int tile_line[CATAN_MAX_TILES];
	int hq[CATAN_MAX_HARBOURS], hr[CATAN_MAX_HARBOURS];
	int hdir[CATAN_MAX_HARBOURS], hkind[CATAN_MAX_HARBOURS];
	int harbour_line[CATAN_MAX_HARBOURS];
	int robber_q, robber_r;
} pfile;

static int set_err(catan_boardfile_error *err, int code, int line,
		   const char *msg)
{
	if (err) {
		size_t n = 0;
		for (; msg[n] && n + 1 < sizeof err->msg; n++)
			err->msg[n] = msg[n];
		err->msg[n] = '\0';
		err->code = code;
		err->line = line;
	}
	return code;
}

/* Words of one line: up to 4, each (start, length). */
typedef struct words {
	int n;
	const char *w[5];
	size_t len[5];
} words;

static const char *split_line(const char *s, words *ws)
{
	ws->n = 0;
	while (*s && *s != '\n') {
		if (*s == '#') {
			while (*s && *s != '\n')
				s++;
			break;
		}
		if (*s == ' ' || *s == '\t' || *s == '\r') {
			s++;
			continue;
		}
		const char *start = s;
		while (*s && *s != '\n' && *s != ' ' && *s != '\t' &&
		       *s != '\r' && *s != '#')
			s++;
		if (ws->n < 5) {
			ws->w[ws->n] = start;
			ws->len[ws->n] = (size_t)(s - start);
		}
		ws->n++;
	}
	return *s == '\n' ? s + 1 : s;
}

/* Whole word is a number in [lo, hi]. */
static bool word_int(const char *w, size_t n, int lo, int hi, int *out)
{
	char tmp[16];
	const char *p = tmp;
	if (n == 0 || n >= sizeof tmp)
		return false;
	memcpy(tmp, w, n);
	tmp[n] = '\0';
	if (!read_int(&p, out) || *p || *out < lo || *out > hi)
		return false;
	return true;
}

static bool word_hex(const char *w, size_t n, int *q, int *r, int *dir)
{
	char tmp[32];
	const char *p = tmp;
	if (n == 0 || n >= sizeof tmp)
		return false;
	memcpy(tmp, w, n);
	tmp[n] = '\0';
	if (!read_hex(&p, q, r))
		return false;
	if (!dir)
		return *p == '\0';
	if (*p != ',')
		return false;
	p++;
	for (int d = 0; d < CATAN_EDIR_COUNT; d++)
		if (zword_is(p, edge_words[d])) {
			*dir = d;
			return true;
		}
	return false;
}

static int parse_lines(pfile *f, const char *text, catan_boardfile_error *err)
{
	const char *s = text;
	int line = 0;
	bool header = false;
	words ws;

	while (*s) {
		line++;
		s = split_line(s, &ws);
		if (ws.n == 0)
			continue;
		if (ws.n > 4)
			return set_err(err, CATAN_E_PARSE, line,
				       "too many words on the line");
		const char *w0 = ws.w[0];
		size_t n0 = ws.len[0];
		if (!header) {
			int v;
			if (!word_is(w0, n0, "catan-board") || ws.n != 2 ||
			    !word_int(ws.w[1], ws.len[1], 1, 1, &v))
				return set_err(err, CATAN_E_PARSE, line,
					       "a board file starts with "
					       "\"catan-board 1\"");
			header = true;
		} else if (word_is(w0, n0, "radius")) {
			if (ws.n != 2 || f->radius_line ||
			    !word_int(ws.w[1], ws.len[1], 1, 100, &f->radius))
				return set_err(
				    err, CATAN_E_PARSE, line,
				    "expected one \"radius N\" line");
			f->radius_line = line;
		} else if (word_is(w0, n0, "tile")) {
			int q, r, x, k = 0;
			if (ws.n < 3 ||
			    !word_hex(ws.w[1], ws.len[1], &q, &r, NULL))
				return set_err(err, CATAN_E_PARSE, line,
					       "expected \"tile Q,R TERRAIN "
					       "[TOKEN]\"");
			x = catan_terrain_parse(ws.w[2], ws.len[2]);
			if (x < 0)
				return set_err(err, CATAN_E_PARSE, line,
					       "unknown terrain");
			if (x == CATAN_DESERT && ws.n != 3)
				return set_err(err, CATAN_E_PARSE, line,
					       "a desert has no token");
			if (x != CATAN_DESERT &&
			    (ws.n != 4 ||
			     !word_int(ws.w[3], ws.len[3], 2, 12, &k) ||
			     k == 7))
				return set_err(err, CATAN_E_PARSE, line,
					       "a land tile needs a token, 2 "
					       "to 12 but not 7");
			if (f->ntiles >= CATAN_MAX_TILES)
				return set_err(err, CATAN_E_CAPACITY, line,
					       "more tiles than this build "
					       "holds");
			if (q < -100 || q > 100 || r < -100 || r > 100)
				return set_err(err, CATAN_E_CAPACITY, line,
					       "tile outside this build's "
					       "capacity");
			int i = f->ntiles++;
			f->hex[i] = (catan_hex){(int8_t)q, (int8_t)r};
			f->terrain[i] = (uint8_t)x;
			f->token[i] = (uint8_t)k;
			f->tile_line[i] = line;
		} else if (word_is(w0, n0, "harbour")) {
			int q, r, d, kind;
			if (ws.n != 3 ||
			    !word_hex(ws.w[1], ws.len[1], &q, &r, &d))
				return set_err(err, CATAN_E_PARSE, line,
					       "expected \"harbour Q,R,SIDE "
					       "KIND\"");
			if (word_is(ws.w[2], ws.len[2], "3:1") ||
			    word_is(ws.w[2], ws.len[2], "generic"))
				kind = CATAN_HARBOUR_GENERIC;
			else if ((kind = catan_terrain_parse(
				      ws.w[2], ws.len[2])) == CATAN_DESERT)
				kind = -1;
			if (kind < 0)
				return set_err(err, CATAN_E_PARSE, line,
					       "a harbour is 3:1 or a "
					       "resource (2:1)");
			if (f->nharbours >= CATAN_MAX_HARBOURS)
				return set_err(err, CATAN_E_CAPACITY, line,
					       "too many harbours");
			int i = f->nharbours++;
			f->hq[i] = q;
			f->hr[i] = r;
			f->hdir[i] = d;
			f->hkind[i] = kind;
			f->harbour_line[i] = line;
		} else if (word_is(w0, n0, "robber")) {
			if (ws.n != 2 || f->robber_line ||
			    !word_hex(ws.w[1], ws.len[1], &f->robber_q,
				      &f->robber_r, NULL))
				return set_err(err, CATAN_E_PARSE, line,
					       "expected one \"robber Q,R\" "
					       "line");
			f->robber_line = line;
		} else {
			return set_err(err, CATAN_E_PARSE, line,
				       "unknown line; expected radius, tile, "
				       "harbour or robber");
		}
	}
	if (!header)
		return set_err(err, CATAN_E_PARSE, 0,
			       "empty file: a board file starts with "
			       "\"catan-board 1\"");
	if (!f->radius_line)
		return set_err(err, CATAN_E_PARSE, 0, "no \"radius N\" line");
	if (!f->ntiles)
		return set_err(err, CATAN_E_PARSE, 0, "no tiles");
	return CATAN_OK;
}

int catan_boardfile_parse(catan_board *out, const char *text,
			  catan_boardfile_error *err)
{
	pfile f;
	catan_board b;
	int rc;

	memset(&f, 0, sizeof f);
	rc = parse_lines(&f, text, err);
	if (rc)
		return rc;
	rc = catan_board_init_shape(&b, f.hex, f.ntiles);
	if (rc == CATAN_E_BAD_TILE) {
		for (int i = 1; i < f.ntiles; i++)
			for (int j = 0; j < i; j++)
				if (f.hex[i].q == f.hex[j].q &&
				    f.hex[i].r == f.hex[j].r)
					return set_err(err, rc, f.tile_line[i],
						       "the same tile twice");
	}
	if (rc)
		return set_err(err, rc, 0,
			       "the board is larger than this build holds "
			       "(rebuild with -DCATAN_MAX_RADIUS=N)");
	if (b.radius != f.radius)
		return set_err(err, CATAN_E_PARSE, f.radius_line,
			       "the radius line does not match the tiles");
	int per_token[13] = {0};
	for (int i = 0; i < f.ntiles; i++) {
		int t = catan_board_tile(&b, f.hex[i].q, f.hex[i].r);
		b.tile_terrain[t] = f.terrain[i];
		b.tile_token[t] = f.token[i];
		if (++per_token[f.token[i]] > 8 && f.token[i])
			return set_err(err, CATAN_E_CAPACITY, f.tile_line[i],
				       "more than 8 tiles with one token");
	}
	b.nharbours = (uint8_t)f.nharbours;
	for (int h = 0; h < f.nharbours; h++) {
		int e = catan_board_edge(&b, f.hq[h], f.hr[h], f.hdir[h]);
		if (e < 0)
			return set_err(err, CATAN_E_BAD_EDGE, f.harbour_line[h],
				       "no such side on this board");
		b.harbour_edge[h] = (uint8_t)e;
		b.harbour_kind[h] = (uint8_t)f.hkind[h];
	}
	int bad;
	const char *why;
	if ((rc = catan_board_check_harbours(&b, &bad, &why)))
		return set_err(err, rc, f.harbour_line[bad], why);
	catan_board_finish(&b);
	if (f.robber_line) {
		int t = catan_board_tile(&b, f.robber_q, f.robber_r);
		if (t < 0)
			return set_err(err, CATAN_E_BAD_TILE, f.robber_line,
				       "the robber must be on a land tile");
		b.robber_start = (uint8_t)t;
	} else if (b.robber_start == CATAN_NONE) {
		return set_err(err, CATAN_E_PARSE, 0,
			       "a board without a desert needs a robber "
			       "line");
	}
	*out = b;
	return CATAN_OK;
}

/* ---- formatting ---- */

typedef struct obuf {
	char *p;
	size_t size, len;
} obuf;

static void ob_puts(obuf *b, const char *s)
{
	for (; *s; s++, b->len++)
		if (b->len + 1 < b->size)
			b->p[b->len] = *s;
}

static void ob_int(obuf *b, int v)
{
	char tmp[12];
	int n = 0;
	unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[n++] = '-';
	char out[13];
	for (int i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
	ob_puts(b, out);
}

static void ob_hex(obuf *b, int q, int r)
{
	ob_int(b, q);
	ob_puts(b, ",");
	ob_int(b, r);
}

int catan_boardfile_format(char *buf, size_t size, const catan_board *b)
{
	static const int dq[6] = {1, 1, 0, -1, -1, 0},
			 dr[6] = {-1, 0, 1, 1, 0, -1};
	/* tile_edges order NE, E, SE, SW, W, NW as catan_edir values. */
	static const int side_dir[6] = {CATAN_EDIR_NE, CATAN_EDIR_E,
					CATAN_EDIR_SE, CATAN_EDIR_SW,
					CATAN_EDIR_W,  CATAN_EDIR_NW};
	obuf o = {buf, size, 0};

	ob_puts(&o, "catan-board 1\nradius ");
	ob_int(&o, b->radius);
	ob_puts(&o, "\n");
	for (int t = 0; t < b->ntiles; t++) {
		ob_puts(&o, "tile ");
		ob_hex(&o, b->tile_hex[t].q, b->tile_hex[t].r);
		ob_puts(&o, " ");
		ob_puts(&o, terrain_words[b->tile_terrain[t] <= CATAN_DESERT
					      ? b->tile_terrain[t]
					      : CATAN_DESERT]);
		if (b->tile_terrain[t] != CATAN_DESERT) {
			ob_puts(&o, " ");
			ob_int(&o, b->tile_token[t]);
		}
		ob_puts(&o, "\n");
	}
	for (int h = 0; h < b->nharbours; h++) {
		int e = b->harbour_edge[h], lt = -1, ls = 0;
		for (int t = 0; t < b->ntiles && lt < 0; t++)
			for (int s = 0; s < 6; s++)
				if (b->tile_edges[t][s] == e &&
				    catan_board_tile(
					b, b->tile_hex[t].q + dq[s],
					b->tile_hex[t].r + dr[s]) < 0) {
					lt = t;
					ls = s;
				}
		ob_puts(&o, "harbour ");
		if (lt >= 0) {
			ob_hex(&o, b->tile_hex[lt].q, b->tile_hex[lt].r);
			ob_puts(&o, ",");
			ob_puts(&o, edge_words[side_dir[ls]]);
		} else {
			ob_hex(&o, b->edge_hex[e].q, b->edge_hex[e].r);
			ob_puts(&o, ",");
			ob_puts(&o, edge_words[b->edge_dir[e]]);
		}
		ob_puts(&o, " ");
		ob_puts(&o,
			b->harbour_kind[h] == CATAN_HARBOUR_GENERIC
			    ? "3:1"
			    : terrain_words[b->harbour_kind[h] < CATAN_RES_COUNT
						? b->harbour_kind[h]
						: 0]);
		ob_puts(&o, "\n");
	}
	if (b->robber_start != CATAN_NONE) {
		ob_puts(&o, "robber ");
		ob_hex(&o, b->tile_hex[b->robber_start].q,
		       b->tile_hex[b->robber_start].r);
		ob_puts(&o, "\n");
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}
