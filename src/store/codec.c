/*
 * codec.c - layer 0 (pure): game and state -> the text files of a Git tree,
 * and the file sets (catan_files) both directions use.
 *
 * Encoding writes every fact of the state on its own line, in a fixed
 * order; decoding (codec_game.c, codec_state.c) reads the same lines back
 * with a strict reader (codec_read.c) that accepts exactly the canonical
 * text, so a tree id is a function of the state. spec/format.md documents
 * the layout. No I/O, no libgit2.
 */
#include "catan/codec.h"
#include "catan/sign.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_read.h"

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
    "setup", "roll",  "discard", "robber",  "main",   "trade",
    "build", "offer", "over",	 "special", "reveal",
};

const char *catan_phase_name(int phase)
{
	return phase >= 0 && phase < CATAN_PHASE_COUNT ? phase_names[phase]
						       : "?";
}

/* The tile a board's robber starts on unless told otherwise. */
uint8_t codec_first_desert(const catan_board *b)
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
	if (b->robber_start != codec_first_desert(b)) {
		catan_tile_format(name, sizeof name, b, b->robber_start);
		tprintf(&t, "robber %s\n", name);
	}
	if (flush(out, "game/board", &t))
		return -1;
	/* The lobby's open seats, in player order (path order: board, open,
	 * options, signers). */
	if (g->signed_game && g->open) {
		for (int p = 0; p < g->opt.nplayers; p++)
			if (g->open & (1u << p))
				tprintf(&t, "%s\n", g->names.name[p]);
		if (flush(out, "game/open", &t))
			return -1;
	}
	tprintf(&t, "players");
	for (int p = 0; p < g->opt.nplayers; p++)
		tprintf(&t, " %s", g->names.name[p]);
	tprintf(&t, "\nvp %d\nphases %s\ndice %s\noffer-limit %d\nseed %llu\n",
		g->opt.vp_target,
		g->opt.phases == CATAN_PHASES_CLASSIC ? "classic" : "combined",
		g->opt.dice == CATAN_DICE_MANUAL ? "manual"
		: g->opt.dice == CATAN_DICE_FAIR ? "fair"
						 : "seeded",
		g->opt.offer_limit, (unsigned long long)g->opt.seed);
	/* 5-6 players only (2-4 player games never have the phase). */
	if (g->opt.nplayers > CATAN_MAX_PLAYERS_BASE)
		tprintf(&t, "special-build %s\n",
			g->opt.special_build ? "yes" : "no");
	if (flush(out, "game/options", &t))
		return -1;
	if (!g->signed_game)
		return 0;
	/* One line per bound seat: an open seat has no key yet. */
	const char *names[CATAN_MAX_PLAYERS];
	unsigned char keys[CATAN_MAX_PLAYERS][32];
	int nb = 0;
	for (int p = 0; p < g->opt.nplayers; p++)
		if (!(g->open & (1u << p))) {
			names[nb] = g->names.name[p];
			memcpy(keys[nb++], g->keys[p], 32);
		}
	int n = catan_signers_format(t.buf, sizeof t.buf, names,
				     (const unsigned char(*)[32])keys, nb);
	if (n < 0)
		return -1;
	t.len = (size_t)n;
	return flush(out, "game/signers", &t);
}

static uint64_t rng_gamma_inverse(void)
{
	uint64_t inv = RNG_GAMMA; /* Newton: each step doubles the good bits */
	for (int i = 0; i < 6; i++)
		inv *= 2 - RNG_GAMMA * inv;
	return inv;
}

uint64_t codec_rng_start(uint64_t seed)
{
	catan_rng r;
	catan_rng_seed(&r, seed);
	return r.s;
}

bool codec_resuming(int phase)
{
	return phase == CATAN_PHASE_DISCARD || phase == CATAN_PHASE_ROBBER ||
	       phase == CATAN_PHASE_OFFER;
}

/*
 * The text of the file "now" into t: what most actions change, in one file
 * so that a typical action rewrites one blob, and in an order that keeps a
 * diff's hunks short (end: the first line; roll: the first line, dice,
 * draws, hands). Lines that only hold a default are left out. An overflow
 * is left in t for flush to report.
 */
static void now_text(textbuf *t, const catan_game *g, const catan_state *s)
{
	const catan_board *b = &g->board;
	int n = s->opt.nplayers;

	tprintf(t, "turn %d %s %s\n", s->turn, who(g, s->active),
		catan_phase_name(s->phase));
	/* Fair dice: a request waits (the phase it was made in counts). */
	int ph = s->phase;
	if (ph == CATAN_PHASE_REVEAL) {
		catan_action a;
		char text[96];
		catan_action_init(&a, s->req_kind);
		if (a.kind == CATAN_ACT_ROBBER ||
		    a.kind == CATAN_ACT_PLAY_KNIGHT) {
			a.tile = s->req_tile;
			a.player = s->req_player;
		}
		catan_action_format(text, sizeof text, b, &g->names, &a);
		ph = s->fair_phase;
		tprintf(t, "request %s %s %s\n", who(g, s->requester),
			catan_phase_name(ph), text);
	}
	if (ph == CATAN_PHASE_SPECIAL)
		tprintf(t, "builder %s\n", who(g, s->builder));
	if (s->phase == CATAN_PHASE_REVEAL && s->reveal_wait) {
		tprintf(t, "waiting");
		for (int p = 0; p < n; p++)
			if ((s->reveal_wait >> p) & 1)
				tprintf(t, " %s", who(g, p));
		tprintf(t, "\n");
	}
	for (int p = 0; p < n; p++)
		if (s->discard[p])
			tprintf(t, "discard %s %d\n", who(g, p), s->discard[p]);
	if (s->phase == CATAN_PHASE_OFFER) {
		tprintf(t, "offer %s %s give ", who(g, s->offer_from),
			who(g, s->offer_to));
		cards_text(t, s->offer_give, CATAN_RES_COUNT, catan_res_name);
		tprintf(t, " get ");
		cards_text(t, s->offer_get, CATAN_RES_COUNT, catan_res_name);
		tprintf(t, "\n");
	}
	if (codec_resuming(ph))
		tprintf(t, "resume %s\n", catan_phase_name(s->resume));
	if (s->dev_played)
		tprintf(t, "card-played yes\n");
	bool bought = false;
	for (int d = 0; d < CATAN_DEV_COUNT; d++)
		bought |= s->bought[d] != 0;
	if (bought) {
		tprintf(t, "bought ");
		cards_text(t, s->bought, CATAN_DEV_COUNT, catan_dev_name);
		tprintf(t, "\n");
	}
	if (s->offers)
		tprintf(t, "offers %d\n", s->offers);
	if (s->fair_events)
		tprintf(t, "fair-events %d\n", s->fair_events);
	if (s->out) { /* expelled seats (spec/rules.md), in seat order */
		const char *sep = "out ";
		for (int p = 0; p < n; p++)
			if (catan_state_out(s, p)) {
				tprintf(t, "%s%s", sep, who(g, p));
				sep = ",";
			}
		tprintf(t, "\n");
	}
	uint64_t draws =
	    (s->rng.s - codec_rng_start(s->opt.seed)) * rng_gamma_inverse();
	tprintf(t, "dice %d %d\ndraws %llu\n", s->dice[0], s->dice[1],
		(unsigned long long)draws);
	/* Hands: counts of lumber brick wool grain ore (spec/format.md). */
	for (int p = 0; p < n; p++) {
		const uint8_t *h = s->players[p].hand;
		tprintf(t, "%s %d %d %d %d %d\n", who(g, p), h[0], h[1], h[2],
			h[3], h[4]);
	}
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
	now_text(&t, g, s);
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
