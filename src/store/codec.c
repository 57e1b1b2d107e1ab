/*
 * codec.c - game and state <-> the text files of a Git tree.
 *
 * Encoding writes every fact of the state on its own line, in a fixed
 * order; decoding reads the same lines back with a strict reader that
 * accepts exactly the canonical text (so a tree id is a function of the
 * state), rebuilds the cached fields with catan_state_derive and checks
 * every invariant. spec/format.md documents the layout.
 */
#include "catan/codec.h"
#include "catan/sign.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- file sets ---- */

void catan_files_init(catan_files *f)
{
	memset(f, 0, sizeof *f);
}

void catan_files_free(catan_files *f)
{
	if (!f)
		return;
	free(f->buf);
	memset(f, 0, sizeof *f);
}

int catan_files_add(catan_files *f, const char *path, const char *data,
		    size_t len)
{
	if (f->n == CATAN_FILES_MAX || strlen(path) >= CATAN_PATH_MAX)
		return -1;
	if (f->used + len + 1 > f->cap) {
		size_t cap = f->cap ? f->cap : 4096;
		while (cap < f->used + len + 1)
			cap *= 2;
		char *nb = realloc(f->buf, cap);
		if (!nb)
			return -1;
		/* Re-point earlier files into the moved buffer. */
		for (int i = 0; i < f->n; i++)
			f->file[i].data = nb + (f->file[i].data - f->buf);
		f->buf = nb;
		f->cap = cap;
	}
	catan_file *e = &f->file[f->n++];
	snprintf(e->path, sizeof e->path, "%s", path);
	e->data = f->buf + f->used;
	memcpy(e->data, data, len);
	e->data[len] = '\0';
	e->len = len;
	f->used += len + 1;
	return 0;
}

const catan_file *catan_files_get(const catan_files *f, const char *path)
{
	for (int i = 0; i < f->n; i++)
		if (!strcmp(f->file[i].path, path))
			return &f->file[i];
	return NULL;
}

/* ---- a tiny growable text writer ---- */

typedef struct textbuf {
	char buf[8192];
	size_t len;
	bool overflow;
} textbuf;

static void tprintf(textbuf *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tprintf(textbuf *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof t->buf - t->len) {
		t->overflow = true;
		return;
	}
	t->len += (size_t)n;
}

static int flush(catan_files *out, const char *path, textbuf *t)
{
	if (t->overflow)
		return -1;
	int rc = catan_files_add(out, path, t->buf, t->len);
	t->len = 0;
	return rc;
}

/* ---- names ---- */

static const char *const phase_names[CATAN_PHASE_COUNT] = {
	"setup", "roll", "discard", "robber", "main",
	"trade", "build", "offer",   "over",    "special",
};

const char *catan_phase_name(int phase)
{
	return phase >= 0 && phase < CATAN_PHASE_COUNT ? phase_names[phase]
						       : "?";
}

/* The tile a board's robber starts on unless told otherwise. */
static uint8_t first_desert(const catan_board *b)
{
	for (int t = 0; t < b->ntiles; t++)
		if (b->tile_terrain[t] == CATAN_DESERT)
			return (uint8_t)t;
	return CATAN_NONE;
}

static const char *harbour_name(int kind)
{
	return kind == CATAN_HARBOUR_GENERIC ? "generic" : catan_res_name(kind);
}

static const char *who(const catan_game *g, int p)
{
	return p == CATAN_NONE ? "none" : g->names.name[p];
}

/* "lumber:1 ore:2", or "none" when every count is 0. */
static void cards_text(textbuf *t, const uint8_t *c, int n,
		       const char *(*name)(int))
{
	bool any = false;
	for (int i = 0; i < n; i++) {
		if (!c[i])
			continue;
		tprintf(t, "%s%s:%d", any ? " " : "", name(i), c[i]);
		any = true;
	}
	if (!any)
		tprintf(t, "none");
}

/* ---- encoding ---- */

int catan_codec_encode_game(catan_files *out, const catan_game *g)
{
	const catan_board *b = &g->board;
	textbuf t = {.len = 0};
	char name[32];

	for (int i = 0; i < b->ntiles; i++) {
		catan_tile_format(name, sizeof name, b, i);
		tprintf(&t, "tile %s %s %d\n", name,
			catan_res_name(b->tile_terrain[i]), b->tile_token[i]);
	}
	for (int h = 0; h < b->nharbours; h++) {
		catan_edge_format(name, sizeof name, b, b->harbour_edge[h]);
		tprintf(&t, "harbour %s %s\n", name,
			harbour_name(b->harbour_kind[h]));
	}
	/* The robber's start, only where it is not the first desert. */
	if (b->robber_start != first_desert(b)) {
		catan_tile_format(name, sizeof name, b, b->robber_start);
		tprintf(&t, "robber %s\n", name);
	}
	if (flush(out, "game/board", &t))
		return -1;
	tprintf(&t, "players");
	for (int p = 0; p < g->opt.nplayers; p++)
		tprintf(&t, " %s", g->names.name[p]);
	tprintf(&t, "\nvp %d\nphases %s\ndice %s\noffer-limit %d\nseed %llu\n",
		g->opt.vp_target,
		g->opt.phases == CATAN_PHASES_CLASSIC ? "classic" : "combined",
		g->opt.dice == CATAN_DICE_MANUAL ? "manual" : "seeded",
		g->opt.offer_limit, (unsigned long long)g->opt.seed);
	/* 5-6 players only (2-4 player games never have the phase). */
	if (g->opt.nplayers > CATAN_MAX_PLAYERS_BASE)
		tprintf(&t, "special-build %s\n",
			g->opt.special_build ? "yes" : "no");
	if (flush(out, "game/options", &t))
		return -1;
	if (!g->signed_game)
		return 0;
	const char *names[CATAN_MAX_PLAYERS];
	for (int p = 0; p < g->opt.nplayers; p++)
		names[p] = g->names.name[p];
	int n = catan_signers_format(t.buf, sizeof t.buf, names,
				     (const unsigned char(*)[32])g->keys,
				     g->opt.nplayers);
	if (n < 0)
		return -1;
	t.len = (size_t)n;
	return flush(out, "game/signers", &t);
}

/*
 * The RNG as a draw count: SplitMix64 adds a fixed odd constant per draw,
 * so its state is seed' + k * gamma and k (how many numbers the game has
 * drawn) says the same in fewer, more readable bytes.
 */
#define RNG_GAMMA 0x9e3779b97f4a7c15ull

static uint64_t rng_gamma_inverse(void)
{
	uint64_t inv = RNG_GAMMA; /* Newton: each step doubles the good bits */
	for (int i = 0; i < 6; i++)
		inv *= 2 - RNG_GAMMA * inv;
	return inv;
}

static uint64_t rng_start(uint64_t seed)
{
	catan_rng r;
	catan_rng_seed(&r, seed);
	return r.s;
}

static bool resuming(int phase)
{
	return phase == CATAN_PHASE_DISCARD || phase == CATAN_PHASE_ROBBER ||
	       phase == CATAN_PHASE_OFFER;
}

int catan_codec_encode_state(catan_files *out, const catan_game *g,
			     const catan_state *s)
{
	const catan_board *b = &g->board;
	int n = s->opt.nplayers;
	textbuf t = {.len = 0};
	char name[32];

	for (int p = 0; p < n; p++) {
		const catan_player *pl = &s->players[p];
		CATAN_FOR_BITS(v, s->occupied.w, CATAN_VWORDS)
		{
			bool city = catan_vset_has(&pl->cities, v);
			if (!city && !catan_vset_has(&pl->settlements, v))
				continue;
			catan_vertex_format(name, sizeof name, b, v);
			tprintf(&t, "%s %s %s\n", who(g, p),
				city ? "city" : "settlement", name);
		}
	}
	if (flush(out, "buildings", &t))
		return -1;
	for (int p = 0; p < n; p++) {
		tprintf(&t, "%s ", who(g, p));
		cards_text(&t, s->players[p].devs, CATAN_DEV_COUNT,
			   catan_dev_name);
		tprintf(&t, "\n");
	}
	/* Knights and victory points are counted elsewhere or never played. */
	uint8_t progress[CATAN_DEV_COUNT] = {0, s->played[1], s->played[2],
					     s->played[3], 0};
	tprintf(&t, "played ");
	cards_text(&t, progress, CATAN_DEV_COUNT, catan_dev_name);
	tprintf(&t, "\n");
	if (flush(out, "cards", &t))
		return -1;
	for (int p = 0; p < n; p++)
		tprintf(&t, "%s %d\n", who(g, p), s->players[p].knights);
	if (flush(out, "knights", &t))
		return -1;
	/*
	 * now: what most actions change, in one file so that a typical action
	 * rewrites one blob, and in an order that keeps a diff's hunks short
	 * (end: the first line; roll: the first line, dice, draws, hands).
	 * Lines that only hold a default are left out.
	 */
	tprintf(&t, "turn %d %s %s\n", s->turn, who(g, s->active),
		catan_phase_name(s->phase));
	if (s->phase == CATAN_PHASE_SPECIAL)
		tprintf(&t, "builder %s\n", who(g, s->builder));
	for (int p = 0; p < n; p++)
		if (s->discard[p])
			tprintf(&t, "discard %s %d\n", who(g, p), s->discard[p]);
	if (s->phase == CATAN_PHASE_OFFER) {
		tprintf(&t, "offer %s %s give ", who(g, s->offer_from),
			who(g, s->offer_to));
		cards_text(&t, s->offer_give, CATAN_RES_COUNT, catan_res_name);
		tprintf(&t, " get ");
		cards_text(&t, s->offer_get, CATAN_RES_COUNT, catan_res_name);
		tprintf(&t, "\n");
	}
	if (resuming(s->phase))
		tprintf(&t, "resume %s\n", catan_phase_name(s->resume));
	if (s->dev_played)
		tprintf(&t, "card-played yes\n");
	bool bought = false;
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		bought |= s->bought[d] != 0;
	if (bought) {
		tprintf(&t, "bought ");
		cards_text(&t, s->bought, CATAN_DEV_COUNT, catan_dev_name);
		tprintf(&t, "\n");
	}
	if (s->offers)
		tprintf(&t, "offers %d\n", s->offers);
	uint64_t draws = (s->rng.s - rng_start(s->opt.seed)) * rng_gamma_inverse();
	tprintf(&t, "dice %d %d\ndraws %llu\n", s->dice[0], s->dice[1],
		(unsigned long long)draws);
	/* Hands: counts of lumber brick wool grain ore (spec/format.md). */
	for (int p = 0; p < n; p++) {
		const uint8_t *h = s->players[p].hand;
		tprintf(&t, "%s %d %d %d %d %d\n", who(g, p), h[0], h[1], h[2],
			h[3], h[4]);
	}
	if (flush(out, "now", &t))
		return -1;
	for (int p = 0; p < n; p++)
		CATAN_FOR_BITS(e, s->players[p].roads.w, CATAN_EWORDS)
		{
			catan_edge_format(name, sizeof name, b, e);
			tprintf(&t, "%s %s\n", who(g, p), name);
		}
	if (flush(out, "roads", &t))
		return -1;
	if (s->robber == CATAN_NONE)
		tprintf(&t, "none\n");
	else {
		catan_tile_format(name, sizeof name, b, s->robber);
		tprintf(&t, "%s\n", name);
	}
	if (flush(out, "robber", &t))
		return -1;
	tprintf(&t, "longest-road %s\nlargest-army %s\nwinner %s\n",
		who(g, s->longest_road), who(g, s->largest_army),
		who(g, s->winner));
	return flush(out, "trophies", &t);
}

/* ---- decoding ---- */

typedef struct reader {
	const char *path;
	const char *p, *end;
	int line;
	char cur[512]; /* the current line, NUL-terminated */
	catan_codec_error *err;
} reader;

static int rfail(reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int rfail(reader *r, const char *fmt, ...)
{
	va_list ap;
	snprintf(r->err->path, sizeof r->err->path, "%s", r->path);
	r->err->line = r->line;
	va_start(ap, fmt);
	vsnprintf(r->err->msg, sizeof r->err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

static int open_file(reader *r, const catan_files *in, const char *path,
		     catan_codec_error *err)
{
	const catan_file *f = catan_files_get(in, path);
	r->path = path;
	r->line = 0;
	r->err = err;
	if (!f)
		return rfail(r, "missing file");
	r->p = f->data;
	r->end = f->data + f->len;
	if (f->len && f->data[f->len - 1] != '\n')
		return rfail(r, "file does not end with a newline");
	if (memchr(f->data, '\0', f->len))
		return rfail(r, "file holds a NUL byte");
	return 0;
}

/* Next line into r->cur; 0 on success, 1 at end of file, -1 error. */
static int next_line(reader *r)
{
	if (r->p >= r->end)
		return 1;
	const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	size_t n = (size_t)(nl - r->p);
	r->line++;
	if (n >= sizeof r->cur)
		return rfail(r, "line too long");
	memcpy(r->cur, r->p, n);
	r->cur[n] = '\0';
	r->p = nl + 1;
	/* Canonical lines: single spaces between words, nothing else. */
	if (n && (r->cur[0] == ' ' || r->cur[n - 1] == ' ' ||
		  strstr(r->cur, "  ") || strpbrk(r->cur, "\t\r\v\f")))
		return rfail(r, "stray white space in \"%.60s\"", r->cur);
	return 0;
}

static int need_line(reader *r, const char *what)
{
	int rc = next_line(r);
	if (rc == 1) {
		r->line++;
		return rfail(r, "missing line: expected %s", what);
	}
	return rc;
}

static int expect_end(reader *r)
{
	if (r->p < r->end) {
		r->line++;
		return rfail(r, "unexpected extra line");
	}
	return 0;
}

/* A whole decimal number in [lo, hi] with no sign or leading zero. */
static bool read_uint(const char *s, long lo, long hi, long *out)
{
	long v = 0;
	if (!*s || (s[0] == '0' && s[1]))
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000000)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* "KEY VALUE" with an exact key and a number in range. */
static int key_num(reader *r, const char *key, long lo, long hi, long *out)
{
	if (need_line(r, key))
		return -1;
	size_t k = strlen(key);
	if (strncmp(r->cur, key, k) || r->cur[k] != ' ' ||
	    !read_uint(r->cur + k + 1, lo, hi, out))
		return rfail(r, "expected \"%s N\" with N from %ld to %ld, got "
				"\"%.40s\"",
			     key, lo, hi, r->cur);
	return 0;
}

/* "KEY WORD": returns the word (points into r->cur). */
static int key_word(reader *r, const char *key, const char **out)
{
	if (need_line(r, key))
		return -1;
	size_t k = strlen(key);
	if (strncmp(r->cur, key, k) || r->cur[k] != ' ' || !r->cur[k + 1] ||
	    strchr(r->cur + k + 1, ' '))
		return rfail(r, "expected \"%s VALUE\", got \"%.40s\"", key,
			     r->cur);
	*out = r->cur + k + 1;
	return 0;
}

static int find_word(const char *w, const char *(*name)(int), int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(w, name(i)))
			return i;
	return -1;
}

static int player_word(const catan_game *g, const char *w, bool none_ok)
{
	if (none_ok && !strcmp(w, "none"))
		return CATAN_NONE;
	int p = catan_names_find(&g->names, w, strlen(w));
	return p >= 0 && p < g->opt.nplayers ? p : -1;
}

/* "name:N name:N ..." or "none" into counts c[0..n-1]. */
static bool parse_cards(const char *s, uint8_t *c, int n,
			const char *(*name)(int), int max)
{
	memset(c, 0, (size_t)n);
	if (!strcmp(s, "none"))
		return true;
	int last = -1;
	while (*s) {
		char word[40];
		const char *sp = strchr(s, ' ');
		size_t len = sp ? (size_t)(sp - s) : strlen(s);
		if (len == 0 || len >= sizeof word)
			return false;
		memcpy(word, s, len);
		word[len] = '\0';
		char *colon = strchr(word, ':');
		long v;
		if (!colon)
			return false;
		*colon = '\0';
		int i = find_word(word, name, n);
		/* Canonical: increasing kinds, no zero counts. */
		if (i <= last || !read_uint(colon + 1, 1, max, &v))
			return false;
		c[i] = (uint8_t)v;
		last = i;
		s += len;
		if (*s == ' ') {
			s++;
			if (!*s)
				return false;
		}
	}
	return true;
}

static int yes_no(reader *r, const char *key, uint8_t *out);

/*
 * The game files must be byte for byte what catan_codec_encode_game writes
 * for the game they decoded to: the field checks above accept some spellings
 * of a number that are not canonical ("-0", "+3", "00"), and this catches
 * those and anything else they let through. Names the first line that
 * differs.
 */
static int canonical_game(reader *r, const catan_game *g,
			  const catan_files *in)
{
	catan_files enc;
	catan_files_init(&enc);
	if (catan_codec_encode_game(&enc, g)) {
		catan_files_free(&enc);
		return rfail(r, "out of memory");
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
		rc = rfail(r, "not canonical (written as catan would write "
			      "this game)");
	}
	catan_files_free(&enc);
	return rc;
}

/*
 * game/signers, when there: the seats' keys (a signed game). No other file
 * but board and options may stand in game/.
 */
static int decode_signers(reader *r, catan_game *out, const catan_files *in)
{
	for (int i = 0; i < in->n; i++) {
		const char *path = in->file[i].path;
		if (!strncmp(path, "game/", 5) && strcmp(path, "game/board") &&
		    strcmp(path, "game/options") && strcmp(path, "game/signers")) {
			r->path = path;
			r->line = 0;
			return rfail(r, "unexpected file in game/");
		}
	}
	const catan_file *f = catan_files_get(in, "game/signers");
	if (!f)
		return 0;
	const char *names[CATAN_MAX_PLAYERS];
	catan_sign_why why = {{0}};
	for (int p = 0; p < out->opt.nplayers; p++)
		names[p] = out->names.name[p];
	r->path = "game/signers";
	r->line = 0;
	if (f->len > 4096 ||
	    catan_signers_parse(out->keys, f->data, f->len, names,
				out->opt.nplayers, &why))
		return rfail(r, "%s", f->len > 4096 ? "over 4 KiB" : why.msg);
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

	if (open_file(&r, in, "game/options", err))
		return -1;
	if (need_line(&r, "players"))
		return -1;
	if (strncmp(r.cur, "players ", 8))
		return rfail(&r, "expected \"players NAME NAME ...\"");
	char list[sizeof r.cur];
	memcpy(list, r.cur + 8, strlen(r.cur + 8) + 1);
	for (char *c = list; *c; c++)
		if (*c == ' ')
			*c = ',';
	if (catan_names_parse(&out->names, list) ||
	    out->names.n > CATAN_MAX_PLAYERS)
		return rfail(&r, "bad player list \"%.60s\"", r.cur + 8);
	/* Canonical: names as stored (lowercase), no folding happened. */
	for (int p = 0; p < out->names.n; p++)
		if (!strstr(r.cur, out->names.name[p]))
			return rfail(&r, "player names must be lowercase");
	catan_options_default(&out->opt);
	out->opt.nplayers = out->names.n;
	long v;
	const char *w;
	if (key_num(&r, "vp", 3, 20, &v))
		return -1;
	out->opt.vp_target = (uint8_t)v;
	if (key_word(&r, "phases", &w))
		return -1;
	if (!strcmp(w, "classic"))
		out->opt.phases = CATAN_PHASES_CLASSIC;
	else if (strcmp(w, "combined"))
		return rfail(&r, "phases must be combined or classic");
	if (key_word(&r, "dice", &w))
		return -1;
	if (!strcmp(w, "manual"))
		out->opt.dice = CATAN_DICE_MANUAL;
	else if (strcmp(w, "seeded"))
		return rfail(&r, "dice must be seeded or manual");
	if (key_num(&r, "offer-limit", 0, 255, &v))
		return -1;
	out->opt.offer_limit = (uint8_t)v;
	if (key_word(&r, "seed", &w))
		return -1;
	{
		unsigned long long seed = 0;
		const char *c = w;
		if (*c == '0' && c[1])
			return rfail(&r, "seed has a leading zero");
		for (; *c; c++) {
			if (*c < '0' || *c > '9' ||
			    seed > (~0ull - (unsigned)(*c - '0')) / 10)
				return rfail(&r, "seed must be a number below "
						 "2^64");
			seed = seed * 10 + (unsigned)(*c - '0');
		}
		out->opt.seed = seed;
	}
	if (out->opt.nplayers > CATAN_MAX_PLAYERS_BASE &&
	    yes_no(&r, "special-build", &out->opt.special_build))
		return -1;
	if (expect_end(&r))
		return -1;

	if (open_file(&r, in, "game/board", err))
		return -1;
	int rc;
	while ((rc = next_line(&r)) == 0) {
		char kind[16], a[32], b2[32], c[32], extra[2];
		int n = sscanf(r.cur, "%15s %31s %31s %31s %1s", kind, a, b2, c,
			       extra);
		if (n == 4 && !strcmp(kind, "tile")) {
			int q, rr, used = 0;
			if (nh || nt == CATAN_MAX_TILES ||
			    sscanf(a, "%d,%d%n", &q, &rr, &used) != 2 ||
			    a[used] || q < -CATAN_MAX_RADIUS - 1 ||
			    q > CATAN_MAX_RADIUS + 1 ||
			    rr < -CATAN_MAX_RADIUS - 1 ||
			    rr > CATAN_MAX_RADIUS + 1)
				return rfail(&r, "bad tile line \"%.60s\"",
					     r.cur);
			int t = find_word(b2, catan_res_name,
					  CATAN_RES_COUNT + 1);
			if (t < 0)
				return rfail(&r, "unknown terrain \"%.20s\"",
					     b2);
			if (!read_uint(c, 0, 12, &v) ||
			    (t == CATAN_DESERT) != (v == 0) || v == 1 || v == 7)
				return rfail(&r, "bad token \"%.20s\"", c);
			hexes[nt] = (catan_hex){(int8_t)q, (int8_t)rr};
			terrain[nt] = (uint8_t)t;
			token[nt++] = (uint8_t)v;
		} else if (n == 3 && !strcmp(kind, "harbour")) {
			int q, rr, used = 0;
			char dir[4];
			if (nh == CATAN_MAX_HARBOURS ||
			    sscanf(a, "%d,%d,%3[a-z]%n", &q, &rr, dir, &used) !=
				    3 ||
			    a[used])
				return rfail(&r, "bad harbour line \"%.60s\"",
					     r.cur);
			int d = !strcmp(dir, "w")    ? CATAN_EDIR_W
				: !strcmp(dir, "nw") ? CATAN_EDIR_NW
				: !strcmp(dir, "ne") ? CATAN_EDIR_NE
						     : -1;
			int k = !strcmp(b2, "generic")
					? CATAN_HARBOUR_GENERIC
					: find_word(b2, catan_res_name,
						    CATAN_RES_COUNT);
			if (d < 0 || k < 0)
				return rfail(&r, "bad harbour line \"%.60s\"",
					     r.cur);
			harbours[nh].hex = (catan_hex){(int8_t)q, (int8_t)rr};
			harbours[nh].dir = d;
			harbours[nh++].kind = k;
		} else if (n == 2 && !strcmp(kind, "robber") && !robber_line) {
			int used = 0;
			if (sscanf(a, "%d,%d%n", &robber.q, &robber.r, &used) !=
				    2 ||
			    a[used])
				return rfail(&r, "bad robber line \"%.60s\"",
					     r.cur);
			robber_line = r.line;
		} else {
			return rfail(&r, "expected a tile, harbour or robber "
					 "line, got \"%.40s\"",
				     r.cur);
		}
		if (robber_line && r.line != robber_line)
			return rfail(&r, "the robber line comes last");
	}
	if (rc < 0)
		return -1;
	if (nt == 0)
		return rfail(&r, "no tiles");
	catan_board *b = &out->board;
	if (catan_board_init_shape(b, hexes, nt))
		return rfail(&r, "tiles do not form a board (duplicate, or "
				 "too many)");
	for (int i = 0; i < nt; i++) {
		int t = catan_board_tile(b, hexes[i].q, hexes[i].r);
		if (t != i) {
			r.line = i + 1;
			return rfail(&r, "tiles out of order (expected by r, "
					 "then q)");
		}
		b->tile_terrain[t] = terrain[i];
		b->tile_token[t] = token[i];
	}
	for (int h = 0; h < nh; h++) {
		int e = catan_board_edge(b, harbours[h].hex.q, harbours[h].hex.r,
					 harbours[h].dir);
		r.line = nt + h + 1;
		if (e < 0)
			return rfail(&r, "harbour edge not on the board");
		b->harbour_edge[h] = (uint8_t)e;
		b->harbour_kind[h] = (uint8_t)harbours[h].kind;
	}
	b->nharbours = (uint8_t)nh;
	{
		int bad;
		const char *why;
		if (catan_board_check_harbours(b, &bad, &why)) {
			r.line = nt + bad + 1;
			return rfail(&r, "%s", why);
		}
	}
	catan_board_finish(b);
	if (robber_line) {
		r.line = robber_line;
		int t = catan_board_tile(b, robber.q, robber.r);
		if (t < 0)
			return rfail(&r, "the robber must start on a land tile");
		char canon[32], text[32];
		catan_tile_format(canon, sizeof canon, b, t);
		snprintf(text, sizeof text, "%d,%d", robber.q, robber.r);
		if (t == first_desert(b) || strcmp(canon, text))
			return rfail(&r, "robber line not canonical (the first "
					 "desert is left out)");
		b->robber_start = (uint8_t)t;
	}
	if (decode_signers(&r, out, in))
		return -1;
	return canonical_game(&r, out, in);
}

static int phase_word(const char *w)
{
	for (int i = 0; i < CATAN_PHASE_COUNT; i++)
		if (!strcmp(w, phase_names[i]))
			return i;
	return -1;
}

static int yes_no(reader *r, const char *key, uint8_t *out)
{
	const char *w;
	if (key_word(r, key, &w))
		return -1;
	if (strcmp(w, "yes") && strcmp(w, "no"))
		return rfail(r, "%s must be yes or no", key);
	*out = !strcmp(w, "yes");
	return 0;
}

static int player_line(reader *r, const catan_game *g, const char *key,
		       uint8_t *out)
{
	const char *w;
	if (key_word(r, key, &w))
		return -1;
	int p = player_word(g, w, true);
	if (p < 0)
		return rfail(r, "unknown player \"%.20s\"", w);
	*out = (uint8_t)p;
	return 0;
}

/* Splits "NAME REST" with NAME the expected player; returns REST. */
static const char *player_prefix(reader *r, const catan_game *g, int p)
{
	const char *name = g->names.name[p];
	size_t k = strlen(name);
	if (strncmp(r->cur, name, k) || r->cur[k] != ' ' || !r->cur[k + 1]) {
		rfail(r, "expected a line for %s, got \"%.40s\"", name, r->cur);
		return NULL;
	}
	return r->cur + k + 1;
}

/* Lines "NAME KIND VERTEX" (buildings) or "NAME EDGE" (roads): player
 * order, then id order. */
static int pieces_file(reader *r, catan_state *s, const catan_game *g,
		       bool roads)
{
	const catan_board *b = &g->board;
	int rc, lastp = 0, lastid = -1;
	while ((rc = next_line(r)) == 0) {
		char pname[32], kind[16], where[32], extra[2], text[64],
			canon[32];
		catan_action a;
		int k = roads ? sscanf(r->cur, "%31s %31s %1s", pname, where,
				       extra)
			      : sscanf(r->cur, "%31s %15s %31s %1s", pname,
				       kind, where, extra);
		if (k != (roads ? 2 : 3))
			return rfail(r, roads ? "expected \"PLAYER EDGE\""
					      : "expected \"PLAYER settlement|"
						"city VERTEX\"");
		int p = player_word(g, pname, false);
		if (p < 0)
			return rfail(r, "unknown player \"%.20s\"", pname);
		snprintf(text, sizeof text, roads ? "build road %s"
						  : "build city %s",
			 where);
		if (catan_action_parse(&a, b, &g->names, text, NULL))
			return rfail(r, "bad %s \"%.20s\"",
				     roads ? "edge" : "vertex", where);
		int id = roads ? a.edge : a.vertex;
		if (roads)
			catan_edge_format(canon, sizeof canon, b, id);
		else
			catan_vertex_format(canon, sizeof canon, b, id);
		if (strcmp(canon, where) || p < lastp ||
		    (p == lastp && id <= lastid))
			return rfail(r, "\"%.20s\" not canonical or out of "
					"order",
				     where);
		if (p != lastp)
			lastid = -1;
		lastp = p;
		lastid = id;
		catan_player *pl = &s->players[p];
		if (roads)
			catan_eset_add(&pl->roads, id);
		else if (!strcmp(kind, "settlement"))
			catan_vset_add(&pl->settlements, id);
		else if (!strcmp(kind, "city"))
			catan_vset_add(&pl->cities, id);
		else
			return rfail(r, "unknown building \"%.20s\"", kind);
	}
	return rc < 0 ? -1 : 0;
}

/* Every path the state of game g must have. */
static const char *const state_paths[] = {
	"buildings", "cards", "knights", "now", "roads", "robber", "trophies",
};
#define NSTATE_PATHS (int)(sizeof state_paths / sizeof state_paths[0])

/* The offer line: "offer FROM TO give CARDS get CARDS". */
static int offer_line(reader *r, catan_state *out, const catan_game *g)
{
	char from[32], to[32], give[160], get[160];
	const char *gv = strstr(r->cur, " give ");
	const char *gt = gv ? strstr(gv + 6, " get ") : NULL;
	int used = 0;
	if (!gv || !gt ||
	    sscanf(r->cur, "offer %31s %31s%n", from, to, &used) != 2 ||
	    r->cur + used != gv || (size_t)(gt - gv - 6) >= sizeof give ||
	    strlen(gt + 5) >= sizeof get)
		return rfail(r, "bad offer line \"%.60s\"", r->cur);
	memcpy(give, gv + 6, (size_t)(gt - gv - 6));
	give[gt - gv - 6] = '\0';
	memcpy(get, gt + 5, strlen(gt + 5) + 1);
	int f = player_word(g, from, false), t = player_word(g, to, false);
	if (f < 0 || t < 0 ||
	    !parse_cards(give, out->offer_give, CATAN_RES_COUNT, catan_res_name,
			 catan_res_total(g->opt.nplayers)) ||
	    !parse_cards(get, out->offer_get, CATAN_RES_COUNT, catan_res_name,
			 catan_res_total(g->opt.nplayers)))
		return rfail(r, "bad offer line \"%.60s\"", r->cur);
	out->offer_from = (uint8_t)f;
	out->offer_to = (uint8_t)t;
	return 0;
}

/* True when the current line starts with the word `key` and a space. */
static bool starts(const reader *r, const char *key)
{
	size_t k = strlen(key);
	return !strncmp(r->cur, key, k) && r->cur[k] == ' ';
}

/*
 * The now file: "turn T ACTIVE PHASE"; the optional lines (discards owed
 * in player order, the offer, the resume phase, card-played yes, bought
 * CARDS, offers N), each only when it holds more than a default and in
 * that order; "dice D1 D2"; "draws K"; one hand per player.
 */
static int decode_now(reader *r, catan_state *out, const catan_game *g,
		      const catan_files *in, catan_codec_error *err)
{
	int n = g->opt.nplayers;
	long v;
	const char *rest;

	if (open_file(r, in, "now", err) || need_line(r, "turn"))
		return -1;
	{
		char tn[8], who_[32], ph[16], extra[2];
		if (sscanf(r->cur, "turn %7s %31s %15s %1s", tn, who_, ph,
			   extra) != 3 ||
		    !read_uint(tn, 0, 65535, &v))
			return rfail(r, "expected \"turn N PLAYER PHASE\" with N "
					"from 0 to 65535, got \"%.40s\"",
				     r->cur);
		out->turn = (uint16_t)v;
		int p = player_word(g, who_, false);
		if (p < 0)
			return rfail(r, "unknown player \"%.20s\"", who_);
		out->active = (uint8_t)p;
		int phase = phase_word(ph);
		if (phase < 0)
			return rfail(r, "unknown phase \"%.20s\"", ph);
		out->phase = (uint8_t)phase;
	}
	if (out->phase == CATAN_PHASE_SPECIAL) {
		if (player_line(r, g, "builder", &out->builder))
			return -1;
		if (out->builder == CATAN_NONE)
			return rfail(r, "builder must be a player");
	}
	/* Optional lines, each at most once and in this order. */
	enum { DISCARD, OFFER, RESUME, PLAYED, BOUGHT, OFFERS, DICE };
	int stage = DISCARD, last = -1;
	bool resume = false;
	for (;;) {
		if (need_line(r, "dice"))
			return -1;
		char kind[16], a[32], c[32], extra[2];
		if (stage <= DISCARD && starts(r, "discard") &&
		    sscanf(r->cur, "%15s %31s %31s %1s", kind, a, c, extra) == 3) {
			int p = player_word(g, a, false);
			if (p <= last ||
			    !read_uint(c, 1, CATAN_RES_COUNT * catan_res_total(n) / 2,
				       &v))
				return rfail(r, "bad discard line \"%.60s\"",
					     r->cur);
			out->discard[p] = (uint8_t)v;
			last = p;
			continue;
		}
		if (stage <= OFFER && starts(r, "offer")) {
			if (offer_line(r, out, g))
				return -1;
			stage = OFFER + 1;
			continue;
		}
		if (stage <= RESUME && starts(r, "resume")) {
			int rp = phase_word(r->cur + 7);
			if (rp < 0)
				return rfail(r, "unknown phase \"%.20s\"",
					     r->cur + 7);
			out->resume = (uint8_t)rp;
			resume = true;
			stage = RESUME + 1;
			continue;
		}
		if (stage <= PLAYED && starts(r, "card-played")) {
			if (strcmp(r->cur, "card-played yes"))
				return rfail(r, "expected \"card-played yes\" "
						"(no is left out)");
			out->dev_played = 1;
			stage = PLAYED + 1;
			continue;
		}
		if (stage <= BOUGHT && starts(r, "bought")) {
			if (!parse_cards(r->cur + 7, out->bought,
					 CATAN_DEV_COUNT, catan_dev_name,
					 catan_dev_start(n, CATAN_DEV_KNIGHT)) ||
			    !strcmp(r->cur + 7, "none"))
				return rfail(r, "expected \"bought CARDS\" (none "
						"is left out)");
			stage = BOUGHT + 1;
			continue;
		}
		if (stage <= OFFERS && starts(r, "offers")) {
			if (!read_uint(r->cur + 7, 1, 255, &v))
				return rfail(r, "expected \"offers N\" with N "
						"from 1 to 255 (0 is left out)");
			out->offers = (uint8_t)v;
			stage = OFFERS + 1;
			continue;
		}
		break; /* the dice line, read below from r->cur */
	}
	if (resume != resuming(out->phase))
		return rfail(r, "a resume line belongs exactly to the discard, "
				"robber and offer phases");
	{
		int d1, d2, used = 0;
		if (sscanf(r->cur, "dice %1d %1d%n", &d1, &d2, &used) != 2 ||
		    r->cur[used] || d1 > 6 || d2 > 6 || (d1 == 0) != (d2 == 0))
			return rfail(r, "expected a discard, offer, resume, "
					"card-played, bought or offers line in "
					"that order, or \"dice D1 D2\"; got "
					"\"%.40s\"",
				     r->cur);
		out->dice[0] = (uint8_t)d1;
		out->dice[1] = (uint8_t)d2;
	}
	const char *w;
	if (key_word(r, "draws", &w))
		return -1;
	{
		unsigned long long k = 0;
		if ((*w == '0' && w[1]) || strspn(w, "0123456789") != strlen(w) ||
		    strlen(w) > 19)
			return rfail(r, "draws must be a whole number");
		sscanf(w, "%llu", &k);
		out->rng.s = rng_start(g->opt.seed) + (uint64_t)k * RNG_GAMMA;
	}
	for (int p = 0; p < n; p++) {
		if (need_line(r, "a player's hand") ||
		    !(rest = player_prefix(r, g, p)))
			return -1;
		for (int res = 0; res < CATAN_RES_COUNT; res++) {
			char num[8];
			size_t len = strcspn(rest, " ");
			bool last_one = res == CATAN_RES_COUNT - 1;
			if (len == 0 || len >= sizeof num ||
			    (last_one ? rest[len] != '\0' : rest[len] != ' '))
				return rfail(r, "expected \"%s L B W G O\": five "
						"counts from 0 to %d",
					     g->names.name[p], catan_res_total(n));
			memcpy(num, rest, len);
			num[len] = '\0';
			if (!read_uint(num, 0, catan_res_total(n), &v))
				return rfail(r, "expected \"%s L B W G O\": five "
						"counts from 0 to %d",
					     g->names.name[p], catan_res_total(n));
			out->players[p].hand[res] = (uint8_t)v;
			rest += len + !last_one;
		}
	}
	return expect_end(r);
}

int catan_codec_decode_state(catan_state *out, const catan_game *g,
			     const catan_files *in, catan_codec_error *err)
{
	const catan_board *b = &g->board;
	int n = g->opt.nplayers;
	reader r;
	long v;
	const char *rest;
	memset(err, 0, sizeof *err);

	/* No stray files (game/ is the caller's). */
	for (int i = 0; i < in->n; i++) {
		const char *path = in->file[i].path;
		bool known = !strncmp(path, "game/", 5);
		for (int k = 0; k < NSTATE_PATHS && !known; k++)
			known = !strcmp(path, state_paths[k]);
		if (!known) {
			snprintf(err->path, sizeof err->path, "%s", path);
			snprintf(err->msg, sizeof err->msg,
				 "unexpected file in the state");
			return -1;
		}
	}
	if (catan_state_init(out, b, &g->opt)) {
		snprintf(err->path, sizeof err->path, "game/options");
		snprintf(err->msg, sizeof err->msg, "options out of range");
		return -1;
	}

	if (decode_now(&r, out, g, in, err))
		return -1;

	if (open_file(&r, in, "buildings", err) || pieces_file(&r, out, g, false))
		return -1;
	if (open_file(&r, in, "roads", err) || pieces_file(&r, out, g, true))
		return -1;

	if (open_file(&r, in, "cards", err))
		return -1;
	for (int p = 0; p < n; p++) {
		if (need_line(&r, "a player's cards") ||
		    !(rest = player_prefix(&r, g, p)))
			return -1;
		if (!parse_cards(rest, out->players[p].devs, CATAN_DEV_COUNT,
				 catan_dev_name,
				 catan_dev_start(n, CATAN_DEV_KNIGHT)))
			return rfail(&r, "bad cards \"%.40s\"", rest);
	}
	if (need_line(&r, "played") || strncmp(r.cur, "played ", 7) ||
	    !parse_cards(r.cur + 7, out->played, CATAN_DEV_COUNT,
			 catan_dev_name,
			 catan_dev_start(n, CATAN_DEV_MONOPOLY)) ||
	    out->played[CATAN_DEV_KNIGHT] ||
	    out->played[CATAN_DEV_VICTORY_POINT])
		return r.line ? rfail(&r, "expected \"played CARDS\" (progress "
					  "cards only)")
			      : -1;
	if (expect_end(&r))
		return -1;

	if (open_file(&r, in, "knights", err))
		return -1;
	for (int p = 0; p < n; p++) {
		if (need_line(&r, "a player's knights") ||
		    !(rest = player_prefix(&r, g, p)))
			return -1;
		int most = catan_dev_start(n, CATAN_DEV_KNIGHT);
		if (!read_uint(rest, 0, most, &v))
			return rfail(&r, "knights must be 0 to %d", most);
		out->players[p].knights = (uint8_t)v;
		out->played[CATAN_DEV_KNIGHT] += (uint8_t)v;
	}
	if (expect_end(&r))
		return -1;

	if (open_file(&r, in, "robber", err) || need_line(&r, "a tile"))
		return -1;
	if (!strcmp(r.cur, "none")) {
		out->robber = CATAN_NONE;
	} else {
		catan_action a;
		char text[64], canon[32];
		snprintf(text, sizeof text, "robber %.40s", r.cur);
		if (strchr(r.cur, ' ') ||
		    catan_action_parse(&a, b, &g->names, text, NULL))
			return rfail(&r, "bad tile \"%.20s\"", r.cur);
		catan_tile_format(canon, sizeof canon, b, a.tile);
		if (strcmp(canon, r.cur))
			return rfail(&r, "tile not canonical");
		out->robber = a.tile;
	}
	if (expect_end(&r))
		return -1;

	if (open_file(&r, in, "trophies", err) ||
	    player_line(&r, g, "longest-road", &out->longest_road) ||
	    player_line(&r, g, "largest-army", &out->largest_army) ||
	    player_line(&r, g, "winner", &out->winner) || expect_end(&r))
		return -1;

	/* What the files leave out: bank, deck and set-up step follow. */
	for (int res = 0; res < CATAN_RES_COUNT; res++) {
		int left = catan_res_total(n);
		for (int p = 0; p < n; p++)
			left -= out->players[p].hand[res];
		if (left < 0) {
			snprintf(err->path, sizeof err->path, "now");
			snprintf(err->msg, sizeof err->msg,
				 "more than %d %s cards in the hands",
				 catan_res_total(n), catan_res_name(res));
			return -1;
		}
		out->bank[res] = (uint8_t)left;
	}
	for (int d = 0; d < CATAN_DEV_COUNT; d++) {
		int left = catan_dev_start(n, d) - out->played[d];
		for (int p = 0; p < n; p++)
			left -= out->players[p].devs[d];
		if (left < 0) {
			snprintf(err->path, sizeof err->path, "cards");
			snprintf(err->msg, sizeof err->msg,
				 "more %s cards than the game has",
				 catan_dev_name(d));
			return -1;
		}
		out->deck[d] = (uint8_t)left;
	}
	if (out->phase == CATAN_PHASE_SETUP) {
		int placed = 0;
		for (int p = 0; p < n; p++)
			placed += catan_vset_count(&out->players[p].settlements);
		out->setup_step = (uint8_t)placed;
	} else {
		out->setup_step = (uint8_t)(2 * n);
	}
	if (!resuming(out->phase))
		out->resume = CATAN_PHASE_SETUP;

	catan_state_derive(out, b);
	char why[200];
	if (catan_state_check(b, out, why, sizeof why)) {
		snprintf(err->path, sizeof err->path, "(state)");
		err->line = 0;
		snprintf(err->msg, sizeof err->msg, "inconsistent state: %.130s",
			 why);
		return -1;
	}
	/* Last guard: the text must be exactly what encoding gives. */
	catan_files again;
	catan_files_init(&again);
	if (catan_codec_encode_state(&again, g, out)) {
		catan_files_free(&again);
		snprintf(err->msg, sizeof err->msg, "out of memory");
		return -1;
	}
	for (int i = 0; i < again.n; i++) {
		const catan_file *f = catan_files_get(in, again.file[i].path);
		if (!f || f->len != again.file[i].len ||
		    memcmp(f->data, again.file[i].data, f->len)) {
			snprintf(err->path, sizeof err->path, "%s",
				 again.file[i].path);
			err->line = 0;
			snprintf(err->msg, sizeof err->msg,
				 "not in canonical form (re-encoding differs)");
			catan_files_free(&again);
			return -1;
		}
	}
	catan_files_free(&again);
	return 0;
}
