/*
 * codec_state.c - layer 0 (pure): the state files of a tree -> catan_state,
 * accepting only the canonical text catan_codec_encode_state writes; the
 * cached fields are rebuilt with catan_state_derive and every invariant
 * checked.
 */
#include "catan/codec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_read.h"

static int phase_word(const char *w)
{
	for (int i = 0; i < CATAN_PHASE_COUNT; i++)
		if (!strcmp(w, catan_phase_name(i)))
			return i;
	return -1;
}

static int player_line(reader *r, const catan_game *g, const char *key,
		       uint8_t *out)
{
	const char *w;
	if (codec_key_word(r, key, &w))
		return -1;
	int p = codec_player_word(g, w, true);
	if (p < 0)
		return codec_rfail(r, "unknown player \"%.20s\"", w);
	*out = (uint8_t)p;
	return 0;
}

/* Splits "NAME REST" with NAME the expected player; returns REST. */
static const char *player_prefix(reader *r, const catan_game *g, int p)
{
	const char *name = g->names.name[p];
	size_t k = strlen(name);
	if (strncmp(r->cur, name, k) || r->cur[k] != ' ' || !r->cur[k + 1]) {
		codec_rfail(r, "expected a line for %s, got \"%.40s\"", name,
			    r->cur);
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
	while ((rc = codec_next_line(r)) == 0) {
		char pname[32], kind[16], where[32], extra[2], text[64],
		    canon[32];
		catan_action a;
		int k =
		    roads ? sscanf(r->cur, "%31s %31s %1s", pname, where, extra)
			  : sscanf(r->cur, "%31s %15s %31s %1s", pname, kind,
				   where, extra);
		if (k != (roads ? 2 : 3))
			return codec_rfail(
			    r, roads ? "expected \"PLAYER EDGE\""
				     : "expected \"PLAYER settlement|"
				       "city VERTEX\"");
		int p = codec_player_word(g, pname, false);
		if (p < 0)
			return codec_rfail(r, "unknown player \"%.20s\"",
					   pname);
		snprintf(text, sizeof text,
			 roads ? "build road %s" : "build city %s", where);
		if (catan_action_parse(&a, b, &g->names, text, NULL))
			return codec_rfail(r, "bad %s \"%.20s\"",
					   roads ? "edge" : "vertex", where);
		int id = roads ? a.edge : a.vertex;
		if (roads)
			catan_edge_format(canon, sizeof canon, b, id);
		else
			catan_vertex_format(canon, sizeof canon, b, id);
		if (strcmp(canon, where) || p < lastp ||
		    (p == lastp && id <= lastid))
			return codec_rfail(r,
					   "\"%.20s\" not canonical or out of "
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
			return codec_rfail(r, "unknown building \"%.20s\"",
					   kind);
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
		return codec_rfail(r, "bad offer line \"%.60s\"", r->cur);
	memcpy(give, gv + 6, (size_t)(gt - gv - 6));
	give[gt - gv - 6] = '\0';
	memcpy(get, gt + 5, strlen(gt + 5) + 1);
	int f = codec_player_word(g, from, false),
	    t = codec_player_word(g, to, false);
	if (f < 0 || t < 0 ||
	    !codec_parse_cards(give, out->offer_give, CATAN_RES_COUNT,
			       catan_res_name,
			       catan_res_total(g->opt.nplayers)) ||
	    !codec_parse_cards(get, out->offer_get, CATAN_RES_COUNT,
			       catan_res_name,
			       catan_res_total(g->opt.nplayers)))
		return codec_rfail(r, "bad offer line \"%.60s\"", r->cur);
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

/* The line "turn N PLAYER PHASE" (read already into r->cur). */
static int turn_line(reader *r, catan_state *out, const catan_game *g)
{
	long v;
	{
		char tn[8], who_[32], ph[16], extra[2];
		if (sscanf(r->cur, "turn %7s %31s %15s %1s", tn, who_, ph,
			   extra) != 3 ||
		    !codec_read_uint(tn, 0, 65535, &v))
			return codec_rfail(
			    r,
			    "expected \"turn N PLAYER PHASE\" with N "
			    "from 0 to 65535, got \"%.40s\"",
			    r->cur);
		out->turn = (uint16_t)v;
		int p = codec_player_word(g, who_, false);
		if (p < 0)
			return codec_rfail(r, "unknown player \"%.20s\"", who_);
		out->active = (uint8_t)p;
		int phase = phase_word(ph);
		if (phase < 0)
			return codec_rfail(r, "unknown phase \"%.20s\"", ph);
		out->phase = (uint8_t)phase;
	}
	return 0;
}

/*
 * Fair dice: "request PLAYER PHASE ACTION" (the request's text without
 * outcome, canonical), then "waiting PLAYER..." (in player order) while
 * reveals are owed.
 */
static int request_line(reader *r, catan_state *out, const catan_game *g)
{
	char who_[32], ph[16], canon[96];
	int used = 0;
	catan_action a;
	if (g->opt.dice != CATAN_DICE_FAIR ||
	    sscanf(r->cur, "request %31s %15s %n", who_, ph, &used) != 2 ||
	    !used)
		return codec_rfail(r, "expected \"request PLAYER PHASE "
				      "ACTION\" (fair dice only)");
	const char *text = r->cur + used;
	int p = codec_player_word(g, who_, false), phase = phase_word(ph);
	if (p < 0 || phase < 0 ||
	    catan_action_parse(&a, &g->board, &g->names, text, NULL))
		return codec_rfail(r, "bad request line \"%.60s\"", r->cur);
	catan_action_format(canon, sizeof canon, &g->board, &g->names, &a);
	if (strcmp(canon, text) || a.dice[0] || a.dev != CATAN_NONE ||
	    a.res != CATAN_NONE)
		return codec_rfail(r,
				   "request \"%.40s\" is not a canonical "
				   "action without outcome",
				   text);
	out->requester = (uint8_t)p;
	out->fair_phase = (uint8_t)phase;
	out->req_kind = a.kind;
	if (a.kind == CATAN_ACT_ROBBER || a.kind == CATAN_ACT_PLAY_KNIGHT) {
		out->req_tile = a.tile;
		out->req_player = a.player;
	}
	return 0;
}

/* "waiting PLAYER...": the seats that owe a reveal, in player order. */
static int waiting_line(reader *r, catan_state *out, const catan_game *g)
{
	const char *w = r->cur + 8;
	int last = -1;
	while (*w) {
		size_t len = strcspn(w, " ");
		char name[32];
		if (!len || len >= sizeof name)
			return codec_rfail(r, "bad waiting line");
		memcpy(name, w, len);
		name[len] = '\0';
		int q = codec_player_word(g, name, false);
		if (q <= last)
			return codec_rfail(r, "waiting: players in order, each "
					      "once");
		out->reveal_wait |= (uint8_t)(1u << q);
		last = q;
		w += len;
		if (*w == ' ' && !*++w)
			return codec_rfail(r, "bad waiting line");
	}
	return out->reveal_wait ? 0 : codec_rfail(r, "bad waiting line");
}

/* The hands: a line "PLAYER L B W G O" per player, in player order. */
static int hand_lines(reader *r, catan_state *out, const catan_game *g)
{
	int n = g->opt.nplayers;
	long v;
	const char *rest;
	for (int p = 0; p < n; p++) {
		if (codec_need_line(r, "a player's hand") ||
		    !(rest = player_prefix(r, g, p)))
			return -1;
		for (int res = 0; res < CATAN_RES_COUNT; res++) {
			char num[8];
			size_t len = strcspn(rest, " ");
			bool last_one = res == CATAN_RES_COUNT - 1;
			if (len == 0 || len >= sizeof num ||
			    (last_one ? rest[len] != '\0' : rest[len] != ' '))
				return codec_rfail(
				    r,
				    "expected \"%s L B W G O\": five "
				    "counts from 0 to %d",
				    g->names.name[p], catan_res_total(n));
			memcpy(num, rest, len);
			num[len] = '\0';
			if (!codec_read_uint(num, 0, catan_res_total(n), &v))
				return codec_rfail(
				    r,
				    "expected \"%s L B W G O\": five "
				    "counts from 0 to %d",
				    g->names.name[p], catan_res_total(n));
			out->players[p].hand[res] = (uint8_t)v;
			rest += len + !last_one;
		}
	}
	return 0;
}

/*
 * The head of the now file: "turn T ACTIVE PHASE", the request while fair
 * dice wait for reveals, "builder PLAYER" in the special building phase.
 * Sets *phase to the phase the rest of the file is read in (a request's
 * phase while reveals are owed, else the phase). 0, or -1 with r's error.
 */
static int now_head(reader *r, catan_state *out, const catan_game *g,
		    int *phase)
{
	if (codec_need_line(r, "turn") || turn_line(r, out, g))
		return -1;
	int ph = out->phase; /* a request counts as made in its phase */
	if (ph == CATAN_PHASE_REVEAL) {
		if (codec_need_line(r, "request") || request_line(r, out, g))
			return -1;
		ph = out->fair_phase;
	}
	if (ph == CATAN_PHASE_SPECIAL) {
		if (player_line(r, g, "builder", &out->builder))
			return -1;
		if (out->builder == CATAN_NONE)
			return codec_rfail(r, "builder must be a player");
	}
	*phase = ph;
	return 0;
}

/*
 * The line "out P1,P2,..." in r->cur: the expelled seats, in seat order,
 * at least one. 0, or -1 with r's error.
 */
static int out_line(reader *r, catan_state *out, const catan_game *g)
{
	const char *s = r->cur + (r->cur[3] ? 4 : 3); /* "out" alone: "" */
	int last = -1;
	for (;;) {
		size_t len = strcspn(s, ",");
		char name[CATAN_NAME_MAX];
		int p = -1;
		if (len > 0 && len < sizeof name) {
			memcpy(name, s, len);
			name[len] = '\0';
			p = codec_player_word(g, name, false);
		}
		if (p < 0)
			return codec_rfail(r,
					   "expected \"out PLAYER,...\" naming "
					   "players; got \"%.60s\"",
					   r->cur);
		if (p <= last)
			return codec_rfail(r,
					   "the out line names each expelled "
					   "player once, in player order: "
					   "\"%.60s\"",
					   r->cur);
		out->out |= (uint8_t)(1u << p);
		last = p;
		if (!s[len])
			return 0;
		s += len + 1;
	}
}

/*
 * The optional lines of the now file, each at most once and in this order:
 * waiting (reveals owed), discards owed (player order), the offer, the
 * resume phase (exactly in the phases codec_resuming names for ph),
 * card-played yes, bought CARDS, offers N, fair-events N, out PLAYERS.
 * Reads lines up
 * to the first that is none of these, left in r->cur for the dice. 0, or
 * -1 with r's error.
 */
static int now_optional(reader *r, catan_state *out, const catan_game *g,
			int ph)
{
	int n = g->opt.nplayers;
	long v;
	enum {
		WAITING,
		DISCARD,
		OFFER,
		RESUME,
		PLAYED,
		BOUGHT,
		OFFERS,
		EVENTS,
		OUT,
		DICE
	};
	int stage = WAITING, last = -1;
	bool resume = false;
	for (;;) {
		if (codec_need_line(r, "dice"))
			return -1;
		char kind[16], a[32], c[32], extra[2];
		if (stage <= WAITING && starts(r, "waiting") &&
		    out->phase == CATAN_PHASE_REVEAL) {
			if (waiting_line(r, out, g))
				return -1;
			stage = DISCARD;
			continue;
		}
		if (stage <= DISCARD && starts(r, "discard") &&
		    sscanf(r->cur, "%15s %31s %31s %1s", kind, a, c, extra) ==
			3) {
			int p = codec_player_word(g, a, false);
			if (p <= last ||
			    !codec_read_uint(
				c, 1, CATAN_RES_COUNT * catan_res_total(n) / 2,
				&v))
				return codec_rfail(
				    r, "bad discard line \"%.60s\"", r->cur);
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
				return codec_rfail(r, "unknown phase \"%.20s\"",
						   r->cur + 7);
			out->resume = (uint8_t)rp;
			resume = true;
			stage = RESUME + 1;
			continue;
		}
		if (stage <= PLAYED && starts(r, "card-played")) {
			if (strcmp(r->cur, "card-played yes"))
				return codec_rfail(
				    r, "expected \"card-played yes\" "
				       "(no is left out)");
			out->dev_played = 1;
			stage = PLAYED + 1;
			continue;
		}
		if (stage <= BOUGHT && starts(r, "bought")) {
			if (!codec_parse_cards(
				r->cur + 7, out->bought, CATAN_DEV_COUNT,
				catan_dev_name,
				catan_dev_start(n, CATAN_DEV_KNIGHT)) ||
			    !strcmp(r->cur + 7, "none"))
				return codec_rfail(
				    r, "expected \"bought CARDS\" (none "
				       "is left out)");
			stage = BOUGHT + 1;
			continue;
		}
		if (stage <= OFFERS && starts(r, "offers")) {
			if (!codec_read_uint(r->cur + 7, 1, 255, &v))
				return codec_rfail(
				    r, "expected \"offers N\" with N "
				       "from 1 to 255 (0 is left out)");
			out->offers = (uint8_t)v;
			stage = OFFERS + 1;
			continue;
		}
		if (stage <= EVENTS && starts(r, "fair-events") &&
		    g->opt.dice == CATAN_DICE_FAIR) {
			if (!codec_read_uint(r->cur + 12, 1, 65535, &v))
				return codec_rfail(
				    r, "expected \"fair-events N\" with N "
				       "from 1 to 65535 (0 is left out)");
			out->fair_events = (uint16_t)v;
			stage = EVENTS + 1;
			continue;
		}
		if (stage <= OUT &&
		    (starts(r, "out") || !strcmp(r->cur, "out"))) {
			if (out_line(r, out, g))
				return -1;
			stage = OUT + 1;
			continue;
		}
		break; /* the dice line, read by the caller from r->cur */
	}
	if (resume != codec_resuming(ph))
		return codec_rfail(
		    r, "a resume line belongs exactly to the discard, "
		       "robber and offer phases");
	return 0;
}

/* The line "dice D1 D2" in r->cur (0 0: not rolled). 0, or -1 with r's
 * error. */
static int dice_line(reader *r, catan_state *out)
{
	int d1, d2, used = 0;
	if (sscanf(r->cur, "dice %1d %1d%n", &d1, &d2, &used) != 2 ||
	    r->cur[used] || d1 > 6 || d2 > 6 || (d1 == 0) != (d2 == 0))
		return codec_rfail(r,
				   "expected a discard, offer, resume, "
				   "card-played, bought, offers, fair-events "
				   "or out line in that order, or \"dice D1 "
				   "D2\"; got \"%.40s\"",
				   r->cur);
	out->dice[0] = (uint8_t)d1;
	out->dice[1] = (uint8_t)d2;
	return 0;
}

/* The next line, "draws K": the RNG K draws past the game's seed. 0, or -1
 * with r's error. */
static int draws_line(reader *r, catan_state *out, const catan_game *g)
{
	const char *w;
	unsigned long long k = 0;
	if (codec_key_word(r, "draws", &w))
		return -1;
	if ((*w == '0' && w[1]) || strspn(w, "0123456789") != strlen(w) ||
	    strlen(w) > 19)
		return codec_rfail(r, "draws must be a whole number");
	sscanf(w, "%llu", &k);
	out->rng.s = codec_rng_start(g->opt.seed) + (uint64_t)k * RNG_GAMMA;
	return 0;
}

/*
 * The now file: "turn T ACTIVE PHASE"; the optional lines (discards owed
 * in player order, the offer, the resume phase, card-played yes, bought
 * CARDS, offers N, fair-events N, out PLAYERS), each only when it holds
 * more than a default and in that order; "dice D1 D2"; "draws K"; one hand per
 * player.
 */
static int decode_now(reader *r, catan_state *out, const catan_game *g,
		      const catan_files *in, catan_codec_error *err)
{
	int ph = 0;
	if (codec_open_file(r, in, "now", err) || now_head(r, out, g, &ph) ||
	    now_optional(r, out, g, ph) || dice_line(r, out) ||
	    draws_line(r, out, g) || hand_lines(r, out, g))
		return -1;
	return codec_expect_end(r);
}

/* The file "cards": each player's development cards, then those played. */
static int cards_file(reader *r, catan_state *out, const catan_game *g,
		      const catan_files *in, catan_codec_error *err)
{
	int n = g->opt.nplayers;
	const char *rest;
	if (codec_open_file(r, in, "cards", err))
		return -1;
	for (int p = 0; p < n; p++) {
		if (codec_need_line(r, "a player's cards") ||
		    !(rest = player_prefix(r, g, p)))
			return -1;
		if (!codec_parse_cards(rest, out->players[p].devs,
				       CATAN_DEV_COUNT, catan_dev_name,
				       catan_dev_start(n, CATAN_DEV_KNIGHT)))
			return codec_rfail(r, "bad cards \"%.40s\"", rest);
	}
	if (codec_need_line(r, "played") || strncmp(r->cur, "played ", 7) ||
	    !codec_parse_cards(r->cur + 7, out->played, CATAN_DEV_COUNT,
			       catan_dev_name,
			       catan_dev_start(n, CATAN_DEV_MONOPOLY)) ||
	    out->played[CATAN_DEV_KNIGHT] ||
	    out->played[CATAN_DEV_VICTORY_POINT])
		return r->line
			   ? codec_rfail(r,
					 "expected \"played CARDS\" (progress "
					 "cards only)")
			   : -1;
	if (codec_expect_end(r))
		return -1;
	return 0;
}

/* The file "knights": the knights each player has played. */
static int knights_file(reader *r, catan_state *out, const catan_game *g,
			const catan_files *in, catan_codec_error *err)
{
	int n = g->opt.nplayers;
	const char *rest;
	long v;
	if (codec_open_file(r, in, "knights", err))
		return -1;
	for (int p = 0; p < n; p++) {
		if (codec_need_line(r, "a player's knights") ||
		    !(rest = player_prefix(r, g, p)))
			return -1;
		int most = catan_dev_start(n, CATAN_DEV_KNIGHT);
		if (!codec_read_uint(rest, 0, most, &v))
			return codec_rfail(r, "knights must be 0 to %d", most);
		out->players[p].knights = (uint8_t)v;
		out->played[CATAN_DEV_KNIGHT] += (uint8_t)v;
	}
	if (codec_expect_end(r))
		return -1;
	return 0;
}

/* The file "robber": its tile (canonical) or "none". */
static int robber_file(reader *r, catan_state *out, const catan_game *g,
		       const catan_files *in, catan_codec_error *err)
{
	const catan_board *b = &g->board;
	if (codec_open_file(r, in, "robber", err) ||
	    codec_need_line(r, "a tile"))
		return -1;
	if (!strcmp(r->cur, "none")) {
		out->robber = CATAN_NONE;
	} else {
		catan_action a;
		char text[64], canon[32];
		snprintf(text, sizeof text, "robber %.40s", r->cur);
		if (strchr(r->cur, ' ') ||
		    catan_action_parse(&a, b, &g->names, text, NULL))
			return codec_rfail(r, "bad tile \"%.20s\"", r->cur);
		catan_tile_format(canon, sizeof canon, b, a.tile);
		if (strcmp(canon, r->cur))
			return codec_rfail(r, "tile not canonical");
		out->robber = a.tile;
	}
	if (codec_expect_end(r))
		return -1;
	return 0;
}

/* No stray files (game/ is the caller's): 0, or -1 with err. */
static int no_stray_file(const catan_files *in, catan_codec_error *err)
{
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
	return 0;
}

int catan_codec_decode_state(catan_state *out, const catan_game *g,
			     const catan_files *in, catan_codec_error *err)
{
	const catan_board *b = &g->board;
	int n = g->opt.nplayers;
	reader r;
	memset(err, 0, sizeof *err);

	/* No stray files (game/ is the caller's). */
	if (no_stray_file(in, err))
		return -1;
	if (catan_state_init(out, b, &g->opt)) {
		snprintf(err->path, sizeof err->path, "game/options");
		snprintf(err->msg, sizeof err->msg, "options out of range");
		return -1;
	}

	if (decode_now(&r, out, g, in, err))
		return -1;

	if (codec_open_file(&r, in, "buildings", err) ||
	    pieces_file(&r, out, g, false))
		return -1;
	if (codec_open_file(&r, in, "roads", err) ||
	    pieces_file(&r, out, g, true))
		return -1;

	if (cards_file(&r, out, g, in, err))
		return -1;

	if (knights_file(&r, out, g, in, err))
		return -1;

	if (robber_file(&r, out, g, in, err))
		return -1;

	if (codec_open_file(&r, in, "trophies", err) ||
	    player_line(&r, g, "longest-road", &out->longest_road) ||
	    player_line(&r, g, "largest-army", &out->largest_army) ||
	    player_line(&r, g, "winner", &out->winner) || codec_expect_end(&r))
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
		/*
		 * The steps in snake order, each taken by its seat's next
		 * settlement; an expelled seat's steps after its last one
		 * were skipped.
		 */
		int left[CATAN_MAX_PLAYERS], k = 0;
		for (int p = 0; p < n; p++)
			left[p] =
			    catan_vset_count(&out->players[p].settlements);
		for (; k < 2 * n; k++) {
			int p = k < n ? k : 2 * n - 1 - k;
			if (left[p] > 0)
				left[p]--;
			else if (!((out->out >> p) & 1))
				break;
		}
		out->setup_step = (uint8_t)k;
	} else {
		out->setup_step = (uint8_t)(2 * n);
	}
	if (!codec_resuming(out->phase == CATAN_PHASE_REVEAL ? out->fair_phase
							     : out->phase))
		out->resume = CATAN_PHASE_SETUP;

	catan_state_derive(out, b);
	char why[200];
	if (catan_state_check(b, out, why, sizeof why)) {
		snprintf(err->path, sizeof err->path, "(state)");
		err->line = 0;
		snprintf(err->msg, sizeof err->msg,
			 "inconsistent state: %.130s", why);
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
