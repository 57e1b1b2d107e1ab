/*
 * action.c - actions as values and as canonical text: the parser, the
 * formatter, player names and error sentences. The grammar, the aliases and
 * the canonical forms are written down in spec/actions.md.
 *
 * This file is part of the pure core: no I/O, no allocation, no global
 * mutable state, and no libc call beyond memcpy/memset. Numbers, letter case
 * and bounded string writing are done by the small helpers below. The parser
 * reads its input one byte at a time up to the terminating NUL and never
 * further, so any byte string (as long as a fuzzer likes) is safe input.
 */
#include "catan/action.h"

#include <limits.h>
#include <string.h>

/* ---- error sentences ---- */

static const char *const error_sentences[CATAN_ERROR_COUNT] = {
    [CATAN_OK] = "success",
    [CATAN_E_NOT_YOUR_TURN] = "it is not your turn to act",
    [CATAN_E_WRONG_PHASE] = "that action is not allowed in this phase",
    [CATAN_E_GAME_OVER] = "the game is over",
    [CATAN_E_BAD_ACTION] = "that is not a valid action",
    [CATAN_E_BAD_VERTEX] = "there is no such vertex on this board",
    [CATAN_E_BAD_EDGE] = "there is no such edge on this board",
    [CATAN_E_BAD_TILE] = "there is no such tile on this board",
    [CATAN_E_BAD_PLAYER] = "there is no such player",
    [CATAN_E_OCCUPIED] = "that place is already taken",
    [CATAN_E_DISTANCE_RULE] =
	"a settlement may not be next to another building",
    [CATAN_E_NOT_CONNECTED] = "that is not connected to your own roads",
    [CATAN_E_NOT_ADJACENT] = "the road must touch the settlement",
    [CATAN_E_NOT_YOUR_SETTLEMENT] =
	"a city must replace one of your own settlements",
    [CATAN_E_NO_PIECES] = "you have no pieces of that kind left",
    [CATAN_E_CANNOT_AFFORD] = "you do not have the cards to pay for that",
    [CATAN_E_BANK_EMPTY] = "the bank does not have those cards",
    [CATAN_E_DECK_EMPTY] = "the development card deck is empty",
    [CATAN_E_NO_CARD] = "you do not hold that development card",
    [CATAN_E_CARD_BOUGHT_THIS_TURN] =
	"a development card cannot be played on the turn it was bought",
    [CATAN_E_CARD_ALREADY_PLAYED] =
	"you have already played a development card this turn",
    [CATAN_E_ROBBER_SAME_TILE] = "the robber must move to another tile",
    [CATAN_E_BAD_VICTIM] =
	"that player cannot be robbed: no building on the tile or no cards",
    [CATAN_E_VICTIM_REQUIRED] = "you must name a player to rob",
    [CATAN_E_DISCARD_COUNT] = "you must discard exactly half your cards",
    [CATAN_E_NO_DISCARD_OWED] = "you do not owe a discard",
    [CATAN_E_BAD_RATE] = "that is not your trade rate with the bank",
    [CATAN_E_BAD_TRADE] = "that trade is not valid",
    [CATAN_E_OFFER_LIMIT] = "no more trade offers are allowed this turn",
    [CATAN_E_NO_OFFER] = "there is no trade offer to answer",
    [CATAN_E_DICE_REQUIRED] = "the dice must be stated in manual dice mode",
    [CATAN_E_DICE_NOT_ALLOWED] =
	"the dice are rolled by the game in seeded mode",
    [CATAN_E_DRAW_REQUIRED] =
	"the card drawn or stolen must be stated in manual dice mode",
    [CATAN_E_DRAW_NOT_ALLOWED] =
	"cards are drawn and stolen by the game in seeded mode",
    [CATAN_E_TOO_FEW] = "there are too few cards for that",
    [CATAN_E_PARSE] = "the action text could not be read",
    [CATAN_E_INVARIANT] = "the game state is inconsistent",
    [CATAN_E_BAD_OPTION] = "an option is out of range",
    [CATAN_E_CAPACITY] = "that does not fit the compiled capacity",
};

const char *catan_error_str(int code)
{
	if (code < 0 || code >= CATAN_ERROR_COUNT || !error_sentences[code])
		return "unknown error";
	return error_sentences[code];
}

/* ---- bounded string writer ---- */

/*
 * Writes into buf[0..size-1] like snprintf: `len` counts every byte that
 * would have been written, bytes past the end are dropped.
 */
struct sbuf {
	char *buf;
	size_t size;
	size_t len;
};

static void sb_init(struct sbuf *s, char *buf, size_t size)
{
	s->buf = buf;
	s->size = buf ? size : 0;
	s->len = 0;
}

static void sb_putc(struct sbuf *s, char c)
{
	if (s->len + 1 < s->size)
		s->buf[s->len] = c;
	s->len++;
}

static void sb_puts(struct sbuf *s, const char *str)
{
	while (*str)
		sb_putc(s, *str++);
}

static void sb_int(struct sbuf *s, long v)
{
	char digits[24];
	int n = 0;
	unsigned long u = v < 0 ? 0ul - (unsigned long)v : (unsigned long)v;

	if (v < 0)
		sb_putc(s, '-');
	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		sb_putc(s, digits[--n]);
}

/* NUL-terminates (cutting if needed) and returns the full length. */
static int sb_end(struct sbuf *s)
{
	if (s->size)
		s->buf[s->len < s->size ? s->len : s->size - 1] = '\0';
	return s->len > INT_MAX ? INT_MAX : (int)s->len;
}

/* ---- names of things ---- */

static const char *const vdir_words[CATAN_VDIR_COUNT] = {"n",  "s",  "ne",
							 "se", "sw", "nw"};
static const char *const edir_words[CATAN_EDIR_COUNT] = {"w", "nw", "ne",
							 "e", "se", "sw"};

/* One accepted word and the value it stands for. Lists end at word NULL. */
struct alias {
	const char *word;
	uint8_t value;
};

static const struct alias res_aliases[] = {
    {"lumber", CATAN_LUMBER},
    {"wood", CATAN_LUMBER},
    {"brick", CATAN_BRICK},
    {"clay", CATAN_BRICK},
    {"wool", CATAN_WOOL},
    {"sheep", CATAN_WOOL},
    {"grain", CATAN_GRAIN},
    {"wheat", CATAN_GRAIN},
    {"ore", CATAN_ORE},
    {"stone", CATAN_ORE},
    {NULL, 0},
};

static const struct alias dev_aliases[] = {
    {"knight", CATAN_DEV_KNIGHT},
    {"road-building", CATAN_DEV_ROAD_BUILDING},
    {"road_building", CATAN_DEV_ROAD_BUILDING},
    {"roadbuilding", CATAN_DEV_ROAD_BUILDING},
    {"year-of-plenty", CATAN_DEV_YEAR_OF_PLENTY},
    {"year_of_plenty", CATAN_DEV_YEAR_OF_PLENTY},
    {"yearofplenty", CATAN_DEV_YEAR_OF_PLENTY},
    {"yop", CATAN_DEV_YEAR_OF_PLENTY},
    {"monopoly", CATAN_DEV_MONOPOLY},
    {"victory-point", CATAN_DEV_VICTORY_POINT},
    {"victory_point", CATAN_DEV_VICTORY_POINT},
    {"victorypoint", CATAN_DEV_VICTORY_POINT},
    {"victory", CATAN_DEV_VICTORY_POINT},
    {"vp", CATAN_DEV_VICTORY_POINT},
    {NULL, 0},
};

static const struct alias vdir_aliases[] = {
    {"n", CATAN_VDIR_N},
    {"s", CATAN_VDIR_S},
    {"ne", CATAN_VDIR_NE},
    {"se", CATAN_VDIR_SE},
    {"sw", CATAN_VDIR_SW},
    {"nw", CATAN_VDIR_NW},
    {NULL, 0},
};

static const struct alias edir_aliases[] = {
    {"w", CATAN_EDIR_W}, {"nw", CATAN_EDIR_NW}, {"ne", CATAN_EDIR_NE},
    {"e", CATAN_EDIR_E}, {"se", CATAN_EDIR_SE}, {"sw", CATAN_EDIR_SW},
    {NULL, 0},
};

static const struct alias devcard_words[] = {
    {"devcard", 0},
    {"dev", 0},
    {"dev-card", 0},
    {"dev_card", 0},
    {"development-card", 0},
    {"development_card", 0},
    {NULL, 0},
};

static const struct alias bank_words[] = {
    {"bank", 0},
    {"maritime", 0},
    {NULL, 0},
};

static const struct alias end_words[] = {
    {"end", 0},
    {"pass", 0},
    {NULL, 0},
};

/* Player names that would read as keywords; catan_names_parse refuses them. */
static const char *const reserved_names[] = {"give", "get", "none", NULL};

static const char default_names[CATAN_MAX_PLAYERS][CATAN_NAME_MAX] = {
    "red", "blue", "white", "orange", "green", "brown",
};

static char ascii_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Does s[0..len-1] equal the lowercase keyword kw, ignoring letter case? */
static bool span_is(const char *s, size_t len, const char *kw)
{
	for (size_t i = 0; i < len; i++)
		if (!kw[i] || ascii_lower(s[i]) != kw[i])
			return false;
	return kw[len] == '\0';
}

/* Value of s[0..len-1] in an alias list, or -1. */
static int alias_find(const struct alias *list, const char *s, size_t len)
{
	for (; list->word; list++)
		if (span_is(s, len, list->word))
			return list->value;
	return -1;
}

/* ---- formatting ---- */

static const catan_names *names_or_default(const catan_names *names,
					   catan_names *tmp)
{
	if (names)
		return names;
	catan_names_default(tmp, CATAN_MAX_PLAYERS);
	return tmp;
}

static void sb_res(struct sbuf *s, int r)
{
	sb_puts(s, (r >= 0 && r < CATAN_RES_COUNT) ? catan_res_name(r) : "?");
}

static void sb_vertex(struct sbuf *s, const catan_board *b, int v)
{
	if (!b || v < 0 || v >= b->nvertices || v >= CATAN_MAX_VERTICES ||
	    b->vertex_dir[v] >= CATAN_VDIR_COUNT) {
		sb_putc(s, '?');
		return;
	}
	sb_int(s, b->vertex_hex[v].q);
	sb_putc(s, ',');
	sb_int(s, b->vertex_hex[v].r);
	sb_putc(s, ',');
	sb_puts(s, vdir_words[b->vertex_dir[v]]);
}

static void sb_edge(struct sbuf *s, const catan_board *b, int e)
{
	if (!b || e < 0 || e >= b->nedges || e >= CATAN_MAX_EDGES ||
	    b->edge_dir[e] >= CATAN_EDIR_COUNT) {
		sb_putc(s, '?');
		return;
	}
	sb_int(s, b->edge_hex[e].q);
	sb_putc(s, ',');
	sb_int(s, b->edge_hex[e].r);
	sb_putc(s, ',');
	sb_puts(s, edir_words[b->edge_dir[e]]);
}

static void sb_tile(struct sbuf *s, const catan_board *b, int t)
{
	if (!b || t < 0 || t >= b->ntiles || t >= CATAN_MAX_TILES) {
		sb_putc(s, '?');
		return;
	}
	sb_int(s, b->tile_hex[t].q);
	sb_putc(s, ',');
	sb_int(s, b->tile_hex[t].r);
}

static void sb_player(struct sbuf *s, const catan_names *names, int p)
{
	int n = names->n < CATAN_MAX_PLAYERS ? names->n : CATAN_MAX_PLAYERS;

	if (p < 0 || p >= n) {
		sb_putc(s, '?');
		return;
	}
	for (int i = 0; i < CATAN_NAME_MAX && names->name[p][i]; i++)
		sb_putc(s, names->name[p][i]);
}

/* " lumber:2 ore:1": every non-zero count, in resource order. */
static void sb_cards(struct sbuf *s, const uint8_t cards[CATAN_RES_COUNT])
{
	for (int r = 0; r < CATAN_RES_COUNT; r++) {
		if (!cards[r])
			continue;
		sb_putc(s, ' ');
		sb_res(s, r);
		sb_putc(s, ':');
		sb_int(s, cards[r]);
	}
}

/* " TILE [PLAYER [RES]]" of robber and knight. */
static void sb_robber(struct sbuf *s, const catan_board *b,
		      const catan_names *names, const catan_action *a)
{
	sb_putc(s, ' ');
	sb_tile(s, b, a->tile);
	if (a->player == CATAN_NONE)
		return;
	sb_putc(s, ' ');
	sb_player(s, names, a->player);
	if (a->res == CATAN_NONE)
		return;
	sb_putc(s, ' ');
	sb_res(s, a->res);
}

int catan_vertex_format(char *buf, size_t size, const catan_board *b, int v)
{
	struct sbuf s;

	sb_init(&s, buf, size);
	sb_vertex(&s, b, v);
	return sb_end(&s);
}

int catan_edge_format(char *buf, size_t size, const catan_board *b, int e)
{
	struct sbuf s;

	sb_init(&s, buf, size);
	sb_edge(&s, b, e);
	return sb_end(&s);
}

int catan_tile_format(char *buf, size_t size, const catan_board *b, int t)
{
	struct sbuf s;

	sb_init(&s, buf, size);
	sb_tile(&s, b, t);
	return sb_end(&s);
}

/*
 * Canonical text of an action (spec/actions.md). A field holding a value
 * that the board or the names cannot name is written as "?", which no parse
 * accepts, so a corrupt action never round-trips silently.
 */
int catan_action_format(char *buf, size_t size, const catan_board *board,
			const catan_names *names, const catan_action *a)
{
	catan_names tmp;
	struct sbuf s;

	sb_init(&s, buf, size);
	if (!a) {
		sb_putc(&s, '?');
		return sb_end(&s);
	}
	names = names_or_default(names, &tmp);
	switch (a->kind) {
	case CATAN_ACT_SETUP:
		sb_puts(&s, "setup ");
		sb_vertex(&s, board, a->vertex);
		sb_putc(&s, ' ');
		sb_edge(&s, board, a->edge);
		break;
	case CATAN_ACT_ROLL:
		sb_puts(&s, "roll");
		if (a->dice[0] || a->dice[1]) {
			sb_putc(&s, ' ');
			sb_int(&s, a->dice[0]);
			sb_putc(&s, ' ');
			sb_int(&s, a->dice[1]);
		}
		break;
	case CATAN_ACT_DISCARD:
		sb_puts(&s, "discard");
		sb_cards(&s, a->give);
		break;
	case CATAN_ACT_ROBBER:
		sb_puts(&s, "robber");
		sb_robber(&s, board, names, a);
		break;
	case CATAN_ACT_BUILD_ROAD:
		sb_puts(&s, "build road ");
		sb_edge(&s, board, a->edge);
		break;
	case CATAN_ACT_BUILD_SETTLEMENT:
		sb_puts(&s, "build settlement ");
		sb_vertex(&s, board, a->vertex);
		break;
	case CATAN_ACT_BUILD_CITY:
		sb_puts(&s, "build city ");
		sb_vertex(&s, board, a->vertex);
		break;
	case CATAN_ACT_BUY_DEV:
		sb_puts(&s, "buy devcard");
		if (a->dev != CATAN_NONE) {
			sb_putc(&s, ' ');
			sb_puts(&s, catan_dev_name(a->dev));
		}
		break;
	case CATAN_ACT_PLAY_KNIGHT:
		sb_puts(&s, "play knight");
		sb_robber(&s, board, names, a);
		break;
	case CATAN_ACT_PLAY_ROAD_BUILDING:
		sb_puts(&s, "play road-building ");
		sb_edge(&s, board, a->edge);
		if (a->edge2 != CATAN_NONE) {
			sb_putc(&s, ' ');
			sb_edge(&s, board, a->edge2);
		}
		break;
	case CATAN_ACT_PLAY_YEAR_OF_PLENTY:
		sb_puts(&s, "play year-of-plenty ");
		sb_res(&s, a->res);
		if (a->res2 != CATAN_NONE) {
			sb_putc(&s, ' ');
			sb_res(&s, a->res2);
		}
		break;
	case CATAN_ACT_PLAY_MONOPOLY:
		sb_puts(&s, "play monopoly ");
		sb_res(&s, a->res);
		break;
	case CATAN_ACT_TRADE_BANK:
		sb_puts(&s, "trade bank ");
		sb_res(&s, a->res);
		sb_putc(&s, ':');
		sb_int(&s, a->count);
		sb_putc(&s, ' ');
		sb_res(&s, a->res2);
		break;
	case CATAN_ACT_TRADE_OFFER:
		sb_puts(&s, "trade offer ");
		sb_player(&s, names, a->player);
		sb_puts(&s, " give");
		sb_cards(&s, a->give);
		sb_puts(&s, " get");
		sb_cards(&s, a->get);
		break;
	case CATAN_ACT_TRADE_ACCEPT:
		sb_puts(&s, "trade accept");
		break;
	case CATAN_ACT_TRADE_REJECT:
		sb_puts(&s, "trade reject");
		break;
	case CATAN_ACT_END_TRADE:
		sb_puts(&s, "end trade");
		break;
	case CATAN_ACT_END:
		sb_puts(&s, "end");
		break;
	case CATAN_ACT_REVEAL:
		sb_puts(&s, "reveal");
		break;
	case CATAN_ACT_EXPEL:
		sb_puts(&s, "expel ");
		sb_player(&s, names, a->player);
		break;
	default:
		sb_putc(&s, '?');
		break;
	}
	return sb_end(&s);
}

/* ---- player names ---- */

void catan_names_default(catan_names *out, int n)
{
	if (n < 0)
		n = 0;
	if (n > CATAN_MAX_PLAYERS)
		n = CATAN_MAX_PLAYERS;
	memset(out, 0, sizeof *out);
	out->n = (uint8_t)n;
	memcpy(out->name, default_names, (size_t)n * CATAN_NAME_MAX);
}

static bool name_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-';
}

/* Is the lowercase name s[0..len-1] a word of the grammar? */
static bool name_reserved(const char *s, size_t len)
{
	for (int i = 0; reserved_names[i]; i++)
		if (span_is(s, len, reserved_names[i]))
			return true;
	return alias_find(res_aliases, s, len) >= 0;
}

/*
 * Names from "red,blue,white": spaces and tabs around a name are ignored and
 * letters are folded to lowercase; each name is 1..15 bytes of [a-z0-9_-],
 * not a reserved word, not a repeat. Builds into a copy so that `out` is
 * untouched on failure.
 */
int catan_names_parse(catan_names *out, const char *list)
{
	catan_names tmp;
	size_t i = 0;

	if (!out || !list)
		return CATAN_E_BAD_PLAYER;
	memset(&tmp, 0, sizeof tmp);
	for (;;) {
		char name[CATAN_NAME_MAX];
		size_t len = 0;

		while (list[i] == ' ' || list[i] == '\t')
			i++;
		while (list[i] && list[i] != ',' && list[i] != ' ' &&
		       list[i] != '\t') {
			char c = ascii_lower(list[i++]);
			if (!name_char_ok(c) || len + 1 >= CATAN_NAME_MAX)
				return CATAN_E_BAD_PLAYER;
			name[len++] = c;
		}
		while (list[i] == ' ' || list[i] == '\t')
			i++;
		if (len == 0 || (list[i] && list[i] != ','))
			return CATAN_E_BAD_PLAYER;
		name[len] = '\0';
		if (name_reserved(name, len) ||
		    catan_names_find(&tmp, name, len) >= 0 ||
		    tmp.n == CATAN_MAX_PLAYERS)
			return CATAN_E_BAD_PLAYER;
		memcpy(tmp.name[tmp.n++], name, len + 1);
		if (!list[i])
			break;
		i++; /* the comma */
	}
	if (tmp.n < CATAN_MIN_PLAYERS)
		return CATAN_E_BAD_PLAYER;
	*out = tmp;
	return CATAN_OK;
}

int catan_names_find(const catan_names *names, const char *name, size_t n)
{
	catan_names tmp;
	int count;

	if (!name || n == 0 || n >= CATAN_NAME_MAX)
		return -1;
	names = names_or_default(names, &tmp);
	count = names->n < CATAN_MAX_PLAYERS ? names->n : CATAN_MAX_PLAYERS;
	for (int p = 0; p < count; p++)
		if (memcmp(names->name[p], name, n) == 0 &&
		    names->name[p][n] == '\0')
			return p;
	return -1;
}

/* ---- actions ---- */

void catan_action_init(catan_action *out, int kind)
{
	memset(out, 0, sizeof *out);
	out->kind = (uint8_t)kind;
	out->vertex = CATAN_NONE;
	out->edge = CATAN_NONE;
	out->edge2 = CATAN_NONE;
	out->tile = CATAN_NONE;
	out->player = CATAN_NONE;
	out->res = CATAN_NONE;
	out->res2 = CATAN_NONE;
	out->dev = CATAN_NONE;
}

/* ---- parsing ---- */

/* A word of the input: a maximal run of non-space bytes. */
struct word {
	const char *s;
	size_t len;
	size_t pos; /* byte offset in the input */
};

struct parser {
	const char *text;
	size_t cur; /* next byte to scan */
	const catan_board *b;
	const catan_names *names;
	catan_parse_error *err;
};

/* Largest magnitude a parsed number keeps; bigger ones saturate here. */
#define NUM_CAP 100000L
/* Bytes of an offending word quoted in an error sentence. */
#define QUOTE_MAX 24

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/* Reads the next word into w; false at the end of the input. */
static bool next_word(struct parser *p, struct word *w)
{
	const char *t = p->text;
	size_t i = p->cur;

	while (t[i] && is_space(t[i]))
		i++;
	p->cur = i;
	if (!t[i])
		return false;
	w->s = t + i;
	w->pos = i;
	while (t[i] && !is_space(t[i]))
		i++;
	w->len = i - w->pos;
	p->cur = i;
	return true;
}

/* Like next_word, but leaves the cursor where it was. */
static bool peek_word(struct parser *p, struct word *w)
{
	size_t cur = p->cur;
	bool ok = next_word(p, w);

	p->cur = cur;
	return ok;
}

static bool word_is(const struct word *w, const char *kw)
{
	return span_is(w->s, w->len, kw);
}

/* Writes w in double quotes, cut to QUOTE_MAX bytes, non-ASCII as '?'. */
static void sb_quote(struct sbuf *s, const char *str, size_t len)
{
	sb_putc(s, '"');
	for (size_t i = 0; i < len && i < QUOTE_MAX; i++) {
		unsigned char c = (unsigned char)str[i];
		sb_putc(s, (c >= 0x20 && c < 0x7f) ? (char)c : '?');
	}
	if (len > QUOTE_MAX)
		sb_puts(s, "...");
	sb_putc(s, '"');
}

/*
 * Records an error: `code`, position `pos`, and the sentence
 * pre + "word" + post (the quoted word left out when w is NULL).
 */
static int fail_at(struct parser *p, int code, size_t pos, const char *pre,
		   const struct word *w, const char *post)
{
	struct sbuf s;

	if (!p->err)
		return code;
	sb_init(&s, p->err->msg, sizeof p->err->msg);
	sb_puts(&s, pre);
	if (w)
		sb_quote(&s, w->s, w->len);
	sb_puts(&s, post);
	sb_end(&s);
	p->err->code = code;
	p->err->pos = pos > INT_MAX ? INT_MAX : (int)pos;
	return code;
}

static int fail_word(struct parser *p, int code, const struct word *w,
		     const char *pre, const char *post)
{
	return fail_at(p, code, w->pos, pre, w, post);
}

/* A word is missing: the position is the end of the input. */
static int fail_end(struct parser *p, const char *what)
{
	return fail_at(p, CATAN_E_PARSE, p->cur, "expected ", NULL, what);
}

/* Unsigned decimal s[0..len-1] (at least one digit), saturating. */
static bool parse_uint(const char *s, size_t len, long *out)
{
	long v = 0;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
		if (v > NUM_CAP)
			v = NUM_CAP;
	}
	*out = v;
	return true;
}

/* Signed decimal: an optional '-' or '+', then digits. */
static bool parse_int(const char *s, size_t len, long *out)
{
	bool neg = false;

	if (len > 0 && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		s++;
		len--;
	}
	if (!parse_uint(s, len, out))
		return false;
	if (neg)
		*out = -*out;
	return true;
}

/*
 * Splits w at commas into at most `max` parts; returns the number of parts,
 * or max + 1 if there are more.
 */
static int split_commas(const struct word *w, struct word *parts, int max)
{
	int n = 0;
	size_t start = 0;

	for (size_t i = 0; i <= w->len; i++) {
		if (i < w->len && w->s[i] != ',')
			continue;
		if (n == max)
			return max + 1;
		parts[n].s = w->s + start;
		parts[n].len = i - start;
		parts[n].pos = w->pos + start;
		n++;
		start = i + 1;
	}
	return n;
}

/* Reads "Q,R" and, when dirs is not NULL, ",D"; false if malformed. */
static bool parse_coord(const struct word *w, const struct alias *dirs, long *q,
			long *r, int *dir)
{
	struct word parts[3];
	int want = dirs ? 3 : 2;

	if (split_commas(w, parts, want) != want ||
	    !parse_int(parts[0].s, parts[0].len, q) ||
	    !parse_int(parts[1].s, parts[1].len, r))
		return false;
	if (!dirs)
		return true;
	*dir = alias_find(dirs, parts[2].s, parts[2].len);
	return *dir >= 0;
}

/* Reads a vertex word (any direction alias) and resolves it on the board. */
static int get_vertex(struct parser *p, uint8_t *out)
{
	struct word w;
	long q, r;
	int dir, v;

	if (!next_word(p, &w))
		return fail_end(p, "a vertex Q,R,D at the end of the input");
	if (!parse_coord(&w, vdir_aliases, &q, &r, &dir))
		return fail_word(p, CATAN_E_BAD_VERTEX, &w, "bad vertex ",
				 ": want Q,R,D with D one of n ne se s sw nw");
	v = p->b ? catan_board_vertex(p->b, (int)q, (int)r, dir) : -1;
	if (v < 0 || v >= CATAN_NONE)
		return fail_word(p, CATAN_E_BAD_VERTEX, &w, "no vertex ",
				 " on this board");
	*out = (uint8_t)v;
	return CATAN_OK;
}

/* Reads an edge word (any direction alias) and resolves it on the board. */
static int get_edge(struct parser *p, uint8_t *out)
{
	struct word w;
	long q, r;
	int dir, e;

	if (!next_word(p, &w))
		return fail_end(p, "an edge Q,R,D at the end of the input");
	if (!parse_coord(&w, edir_aliases, &q, &r, &dir))
		return fail_word(p, CATAN_E_BAD_EDGE, &w, "bad edge ",
				 ": want Q,R,D with D one of w nw ne e se sw");
	e = p->b ? catan_board_edge(p->b, (int)q, (int)r, dir) : -1;
	if (e < 0 || e >= CATAN_NONE)
		return fail_word(p, CATAN_E_BAD_EDGE, &w, "no edge ",
				 " on this board");
	*out = (uint8_t)e;
	return CATAN_OK;
}

/* Reads a tile word "Q,R"; the hex must be a land tile of the board. */
static int get_tile(struct parser *p, uint8_t *out)
{
	struct word w;
	long q, r;
	int t;

	if (!next_word(p, &w))
		return fail_end(p, "a tile Q,R at the end of the input");
	if (!parse_coord(&w, NULL, &q, &r, NULL))
		return fail_word(p, CATAN_E_BAD_TILE, &w, "bad tile ",
				 ": want Q,R");
	t = p->b ? catan_board_tile(p->b, (int)q, (int)r) : -1;
	if (t < 0 || t >= CATAN_NONE)
		return fail_word(p, CATAN_E_BAD_TILE, &w, "no tile ",
				 " on this board");
	*out = (uint8_t)t;
	return CATAN_OK;
}

/* The player named by w (any letter case), or an error. */
static int word_player(struct parser *p, const struct word *w, uint8_t *out)
{
	char name[CATAN_NAME_MAX];
	int i = -1;

	if (w->len < CATAN_NAME_MAX) {
		for (size_t k = 0; k < w->len; k++)
			name[k] = ascii_lower(w->s[k]);
		i = catan_names_find(p->names, name, w->len);
	}
	if (i < 0)
		return fail_word(p, CATAN_E_BAD_PLAYER, w, "unknown player ",
				 "");
	*out = (uint8_t)i;
	return CATAN_OK;
}

/* Reads a player name; a missing word is an error. */
static int get_player(struct parser *p, uint8_t *out)
{
	struct word w;

	if (!next_word(p, &w))
		return fail_end(p, "a player name at the end of the input");
	return word_player(p, &w, out);
}

/* A bare resource word (no count). */
static int word_res(struct parser *p, const struct word *w, uint8_t *out)
{
	int r = alias_find(res_aliases, w->s, w->len);

	if (r < 0)
		return fail_word(p, CATAN_E_PARSE, w, "unknown resource ", "");
	*out = (uint8_t)r;
	return CATAN_OK;
}

/* Reads a bare resource word; a missing word is an error. */
static int get_res(struct parser *p, uint8_t *out)
{
	struct word w;

	if (!next_word(p, &w))
		return fail_end(p, "a resource at the end of the input");
	return word_res(p, &w, out);
}

/*
 * "RES" or "RES:N" with N 1..99. *count is 0 when no count was written.
 */
static int word_res_count(struct parser *p, const struct word *w, uint8_t *res,
			  long *count)
{
	size_t colon = 0;
	int r;

	while (colon < w->len && w->s[colon] != ':')
		colon++;
	r = alias_find(res_aliases, w->s, colon);
	if (r < 0)
		return fail_word(p, CATAN_E_PARSE, w, "unknown resource ", "");
	*res = (uint8_t)r;
	*count = 0;
	if (colon == w->len)
		return CATAN_OK;
	if (!parse_uint(w->s + colon + 1, w->len - colon - 1, count))
		return fail_word(p, CATAN_E_PARSE, w, "bad card count in ", "");
	if (*count < 1 || *count > 99)
		return fail_word(p, CATAN_E_PARSE, w,
				 "card count out of 1..99 in ", "");
	return CATAN_OK;
}

/*
 * A list of "RES[:N]" words (bare RES = 1) into cards[], up to the end of
 * the input or up to the word `stop` (consumed; *stopped says whether it
 * was seen). A resource may appear once, and not at all if it is already in
 * `other` (the other side of an offer). `what` names the list for errors.
 */
static int get_cards(struct parser *p, uint8_t cards[CATAN_RES_COUNT],
		     const uint8_t *other, const char *stop, bool *stopped,
		     const char *what)
{
	struct word w;
	int n = 0, rc;

	if (stopped)
		*stopped = false;
	while (next_word(p, &w)) {
		uint8_t r = 0;
		long count = 0;

		if (stop && word_is(&w, stop)) {
			*stopped = true;
			if (n == 0)
				return fail_word(p, CATAN_E_PARSE, &w,
						 "expected cards before ", "");
			return CATAN_OK;
		}
		rc = word_res_count(p, &w, &r, &count);
		if (rc)
			return rc;
		if (cards[r])
			return fail_word(p, CATAN_E_PARSE, &w, "",
					 " repeats a resource");
		if (other && other[r])
			return fail_word(p, CATAN_E_PARSE, &w, "",
					 " is on both sides of the offer");
		cards[r] = (uint8_t)(count ? count : 1);
		n++;
	}
	if (n == 0)
		return fail_end(p, what);
	return CATAN_OK;
}

/* "Q,R [PLAYER [RES]]" of robber and knight. */
static int get_robber(struct parser *p, catan_action *a)
{
	struct word w;
	int rc = get_tile(p, &a->tile);

	if (rc || !next_word(p, &w))
		return rc;
	rc = word_player(p, &w, &a->player);
	if (rc || !next_word(p, &w))
		return rc;
	return word_res(p, &w, &a->res);
}

/* Reads one die, 1..6. */
static int get_die(struct parser *p, uint8_t *out)
{
	struct word w;
	long v;

	if (!next_word(p, &w))
		return fail_end(p, "a second die at the end of the input");
	if (!parse_uint(w.s, w.len, &v) || v < 1 || v > 6)
		return fail_word(p, CATAN_E_PARSE, &w,
				 "a die shows 1 to 6, not ", "");
	*out = (uint8_t)v;
	return CATAN_OK;
}

/* "roll" alone (seeded dice) or "roll D1 D2" (manual dice). */
static int parse_roll(struct parser *p, catan_action *a)
{
	struct word w;
	int rc;

	if (!peek_word(p, &w))
		return CATAN_OK;
	rc = get_die(p, &a->dice[0]);
	return rc ? rc : get_die(p, &a->dice[1]);
}

/* "build road E", "build settlement V" (alias village), "build city V". */
static int parse_build(struct parser *p, catan_action *a)
{
	struct word w;

	if (!next_word(p, &w))
		return fail_end(p, "road, settlement or city at the end of the "
				   "input");
	if (word_is(&w, "road")) {
		a->kind = CATAN_ACT_BUILD_ROAD;
		return get_edge(p, &a->edge);
	}
	if (word_is(&w, "settlement") || word_is(&w, "village")) {
		a->kind = CATAN_ACT_BUILD_SETTLEMENT;
		return get_vertex(p, &a->vertex);
	}
	if (word_is(&w, "city")) {
		a->kind = CATAN_ACT_BUILD_CITY;
		return get_vertex(p, &a->vertex);
	}
	return fail_word(p, CATAN_E_PARSE, &w, "cannot build ",
			 ": want road, settlement or city");
}

/* "buy devcard [DEV]" and its aliases. */
static int parse_buy(struct parser *p, catan_action *a)
{
	struct word w;
	int d;

	if (!next_word(p, &w))
		return fail_end(p, "\"devcard\" at the end of the input");
	if (alias_find(devcard_words, w.s, w.len) < 0)
		return fail_word(p, CATAN_E_PARSE, &w, "cannot buy ",
				 ": only \"devcard\" is for sale");
	if (!next_word(p, &w))
		return CATAN_OK;
	d = alias_find(dev_aliases, w.s, w.len);
	if (d < 0)
		return fail_word(p, CATAN_E_PARSE, &w,
				 "unknown development card ", "");
	a->dev = (uint8_t)d;
	return CATAN_OK;
}

/*
 * "play" and a development card; victory point cards are refused here
 * because no state ever lets one be played.
 */
static int parse_play(struct parser *p, catan_action *a)
{
	struct word w;
	int rc;

	if (!next_word(p, &w))
		return fail_end(p,
				"a development card at the end of the input");
	switch (alias_find(dev_aliases, w.s, w.len)) {
	case CATAN_DEV_KNIGHT:
		a->kind = CATAN_ACT_PLAY_KNIGHT;
		return get_robber(p, a);
	case CATAN_DEV_ROAD_BUILDING:
		a->kind = CATAN_ACT_PLAY_ROAD_BUILDING;
		rc = get_edge(p, &a->edge);
		if (rc || !peek_word(p, &w))
			return rc;
		rc = get_edge(p, &a->edge2);
		if (!rc && a->edge2 == a->edge)
			return fail_word(p, CATAN_E_PARSE, &w, "",
					 " names the same road twice");
		return rc;
	case CATAN_DEV_YEAR_OF_PLENTY:
		a->kind = CATAN_ACT_PLAY_YEAR_OF_PLENTY;
		rc = get_res(p, &a->res);
		if (rc || !next_word(p, &w))
			return rc;
		return word_res(p, &w, &a->res2);
	case CATAN_DEV_MONOPOLY:
		a->kind = CATAN_ACT_PLAY_MONOPOLY;
		return get_res(p, &a->res);
	case CATAN_DEV_VICTORY_POINT:
		return fail_word(p, CATAN_E_PARSE, &w, "",
				 " cards are never played: they just count");
	default:
		return fail_word(p, CATAN_E_PARSE, &w,
				 "unknown development card ", "");
	}
}

/* "bank RES:N RES": N 2..4, two different resources. */
static int parse_bank(struct parser *p, catan_action *a)
{
	struct word w;
	long count;
	int rc;

	if (!next_word(p, &w))
		return fail_end(p, "cards to give, like wool:4, at the end of "
				   "the input");
	rc = word_res_count(p, &w, &a->res, &count);
	if (rc)
		return rc;
	if (count == 0)
		return fail_word(
		    p, CATAN_E_PARSE, &w, "",
		    " needs a count: 2, 3 or 4 cards, like wool:4");
	if (count < 2 || count > 4)
		return fail_word(p, CATAN_E_PARSE, &w,
				 "the bank takes 2, 3 or 4 "
				 "cards, not ",
				 "");
	a->count = (uint8_t)count;
	if (!next_word(p, &w))
		return fail_end(p,
				"the resource to get at the end of the input");
	rc = word_res_count(p, &w, &a->res2, &count);
	if (rc)
		return rc;
	if (count > 1)
		return fail_word(p, CATAN_E_PARSE, &w,
				 "the bank gives one card, "
				 "not ",
				 "");
	if (a->res2 == a->res)
		return fail_word(p, CATAN_E_PARSE, &w, "",
				 " is given and got in one trade");
	return CATAN_OK;
}

/* "offer PLAYER give CARDS get CARDS". */
static int parse_offer(struct parser *p, catan_action *a)
{
	struct word w;
	bool stopped;
	int rc = get_player(p, &a->player);

	if (rc)
		return rc;
	if (!next_word(p, &w))
		return fail_end(p, "\"give\" at the end of the input");
	if (!word_is(&w, "give"))
		return fail_word(p, CATAN_E_PARSE, &w,
				 "expected \"give\", not ", "");
	rc = get_cards(p, a->give, NULL, "get", &stopped,
		       "cards to give at the end of the input");
	if (rc)
		return rc;
	if (!stopped)
		return fail_end(p, "\"get\" at the end of the input");
	return get_cards(p, a->get, a->give, NULL, NULL,
			 "cards to get at the end of the input");
}

/* "trade bank|maritime ...", "trade offer ...", "trade accept|reject". */
static int parse_trade(struct parser *p, catan_action *a)
{
	struct word w;

	if (!next_word(p, &w))
		return fail_end(p, "bank, offer, accept or reject at the end "
				   "of the input");
	if (alias_find(bank_words, w.s, w.len) >= 0) {
		a->kind = CATAN_ACT_TRADE_BANK;
		return parse_bank(p, a);
	}
	if (word_is(&w, "offer")) {
		a->kind = CATAN_ACT_TRADE_OFFER;
		return parse_offer(p, a);
	}
	if (word_is(&w, "accept")) {
		a->kind = CATAN_ACT_TRADE_ACCEPT;
		return CATAN_OK;
	}
	if (word_is(&w, "reject")) {
		a->kind = CATAN_ACT_TRADE_REJECT;
		return CATAN_OK;
	}
	return fail_word(p, CATAN_E_PARSE, &w, "unknown trade ",
			 ": want bank, offer, accept or reject");
}

/* The words after the first one; a->kind is set from it. */
static int parse_words(struct parser *p, const struct word *w, catan_action *a)
{
	struct word next;
	int rc;

	if (word_is(w, "setup")) {
		catan_action_init(a, CATAN_ACT_SETUP);
		rc = get_vertex(p, &a->vertex);
		return rc ? rc : get_edge(p, &a->edge);
	}
	if (word_is(w, "roll")) {
		catan_action_init(a, CATAN_ACT_ROLL);
		return parse_roll(p, a);
	}
	if (word_is(w, "discard")) {
		catan_action_init(a, CATAN_ACT_DISCARD);
		return get_cards(p, a->give, NULL, NULL, NULL,
				 "cards to discard at the end of the input");
	}
	if (word_is(w, "robber")) {
		catan_action_init(a, CATAN_ACT_ROBBER);
		return get_robber(p, a);
	}
	if (word_is(w, "build")) {
		catan_action_init(a, CATAN_ACT_BUILD_ROAD);
		return parse_build(p, a);
	}
	if (word_is(w, "buy")) {
		catan_action_init(a, CATAN_ACT_BUY_DEV);
		return parse_buy(p, a);
	}
	if (word_is(w, "play")) {
		catan_action_init(a, CATAN_ACT_PLAY_KNIGHT);
		return parse_play(p, a);
	}
	if (word_is(w, "trade")) {
		catan_action_init(a, CATAN_ACT_TRADE_BANK);
		return parse_trade(p, a);
	}
	if (word_is(w, "reveal")) {
		catan_action_init(a, CATAN_ACT_REVEAL);
		return CATAN_OK;
	}
	if (word_is(w, "expel")) {
		catan_action_init(a, CATAN_ACT_EXPEL);
		return get_player(p, &a->player);
	}
	if (alias_find(end_words, w->s, w->len) >= 0) {
		catan_action_init(a, CATAN_ACT_END);
		if (!word_is(w, "end") || !peek_word(p, &next))
			return CATAN_OK;
		if (word_is(&next, "trade"))
			a->kind = CATAN_ACT_END_TRADE;
		if (word_is(&next, "trade") || word_is(&next, "turn"))
			next_word(p, &next);
		return CATAN_OK;
	}
	return fail_word(p, CATAN_E_PARSE, w, "unknown action ", "");
}

/*
 * Parses one action: the first word picks the kind, parse_words reads the
 * rest, and any word left over is an error. The action is built in a local
 * and copied to `out` only on success; `err` is cleared on success.
 */
int catan_action_parse(catan_action *out, const catan_board *board,
		       const catan_names *names, const char *text,
		       catan_parse_error *err)
{
	catan_names tmp;
	catan_action a;
	struct parser p;
	struct word w;
	int rc;

	p.text = text ? text : "";
	p.cur = 0;
	p.b = board;
	p.names = names_or_default(names, &tmp);
	p.err = err;
	catan_action_init(&a, CATAN_ACT_END);
	if (!next_word(&p, &w))
		return fail_at(&p, CATAN_E_PARSE, p.cur, "empty action", NULL,
			       "");
	rc = parse_words(&p, &w, &a);
	if (!rc && next_word(&p, &w))
		rc = fail_word(&p, CATAN_E_PARSE, &w, "unexpected ",
			       " after a complete action");
	if (rc)
		return rc;
	if (out)
		*out = a;
	if (err) {
		err->code = CATAN_OK;
		err->pos = 0;
		err->msg[0] = '\0';
	}
	return CATAN_OK;
}
