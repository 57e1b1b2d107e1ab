/*
 * catan/action.h - actions as values and as canonical text.
 *
 * An action says what is done, not who does it: the actor is passed beside
 * it (it is the commit author in the Git log). Actions are fixed-size,
 * pointer-free values that refer to the board by vertex, edge and tile id, so
 * parsing needs the board (to resolve coordinates) and the player names.
 * The grammar is spec/actions.md; catan_action_parse(catan_action_format(a))
 * gives back a, and the text of every action has exactly one canonical form.
 */
#ifndef CATAN_ACTION_H
#define CATAN_ACTION_H

#include "catan/board.h"
#include "catan/types.h"

typedef enum {
	CATAN_ACT_SETUP,	       /* vertex, edge */
	CATAN_ACT_ROLL,		       /* dice[0..1] or 0,0 (seeded) */
	CATAN_ACT_DISCARD,	       /* give[] */
	CATAN_ACT_ROBBER,	       /* tile, player (victim or NONE), res */
	CATAN_ACT_BUILD_ROAD,	       /* edge */
	CATAN_ACT_BUILD_SETTLEMENT,    /* vertex */
	CATAN_ACT_BUILD_CITY,	       /* vertex */
	CATAN_ACT_BUY_DEV,	       /* dev (manual dice mode) or NONE */
	CATAN_ACT_PLAY_KNIGHT,	       /* tile, player, res: as ROBBER */
	CATAN_ACT_PLAY_ROAD_BUILDING,  /* edge, edge2 (or NONE) */
	CATAN_ACT_PLAY_YEAR_OF_PLENTY, /* res, res2 (or NONE) */
	CATAN_ACT_PLAY_MONOPOLY,       /* res */
	CATAN_ACT_TRADE_BANK,	       /* res (given), count, res2 (got) */
	CATAN_ACT_TRADE_OFFER,	       /* player (to), give[], get[] */
	CATAN_ACT_TRADE_ACCEPT,
	CATAN_ACT_TRADE_REJECT,
	CATAN_ACT_END_TRADE, /* classic phases: end the trade phase */
	CATAN_ACT_END,	     /* end the turn */
	CATAN_ACT_REVEAL,    /* fair dice: a seat's secret for a request */
	/*
	 * player: the seat expelled for equivocation (spec/rules.md,
	 * "Expelled seats"). The rules only check when it is due; the store
	 * checks the proof.
	 */
	CATAN_ACT_EXPEL,
	CATAN_ACT_COUNT
} catan_action_kind;

/*
 * One action. Unused fields are 0 or CATAN_NONE exactly as
 * catan_action_init() leaves them, so two equal actions compare equal with
 * memcmp.
 */
typedef struct catan_action {
	uint8_t kind;
	uint8_t vertex;	 /* CATAN_NONE if unused */
	uint8_t edge;	 /* CATAN_NONE if unused */
	uint8_t edge2;	 /* CATAN_NONE if unused */
	uint8_t tile;	 /* CATAN_NONE if unused */
	uint8_t player;	 /* victim or trade partner; CATAN_NONE if unused */
	uint8_t res;	 /* CATAN_NONE if unused */
	uint8_t res2;	 /* CATAN_NONE if unused */
	uint8_t count;	 /* bank trade: cards given */
	uint8_t dev;	 /* drawn card in manual mode; CATAN_NONE if unused */
	uint8_t dice[2]; /* 0,0 when not stated */
	uint8_t give[CATAN_RES_COUNT];
	uint8_t get[CATAN_RES_COUNT];
	uint8_t reserved[2]; /* always 0: pads the action to 24 bytes */
} catan_action;

/* Player names, as they appear in action text (lowercase [a-z0-9_-]). */
#define CATAN_NAME_MAX 16
typedef struct catan_names {
	uint8_t n;
	char name[CATAN_MAX_PLAYERS][CATAN_NAME_MAX];
} catan_names;

/* Fills `out` with red, blue, white, orange, green, brown (first n). */
void catan_names_default(catan_names *out, int n);

/*
 * Sets names from a comma-separated list ("red,blue,white"). Returns
 * CATAN_OK, or CATAN_E_BAD_PLAYER for a bad name, a duplicate, or a count
 * outside 2..CATAN_MAX_PLAYERS; `out` is untouched on failure.
 */
int catan_names_parse(catan_names *out, const char *list);

/* Index of `name` (exact match, length n), or -1. */
int catan_names_find(const catan_names *names, const char *name, size_t n);

/* An action of `kind` with every field unused. */
void catan_action_init(catan_action *out, int kind);

/*
 * Error detail from the parser: a code, the byte offset of the offending
 * word in the input, and a sentence.
 */
typedef struct catan_parse_error {
	int code;
	int pos;
	char msg[96];
} catan_parse_error;

/*
 * Parses one action from `text` (one line; surrounding white space allowed;
 * every alias of spec/actions.md accepted, any letter case). `names` may be NULL for
 * the default colours. On failure returns CATAN_E_PARSE (or the more precise
 * CATAN_E_BAD_VERTEX etc.), fills `err` if not NULL, and leaves `out`
 * untouched. Never reads past the terminating NUL.
 */
int catan_action_parse(catan_action *out, const catan_board *board,
		       const catan_names *names, const char *text,
		       catan_parse_error *err);

/*
 * Writes the canonical text of `a` into buf (always NUL-terminated when
 * size > 0). Returns the length the full text needs, like snprintf; a
 * return >= size means it was cut.
 */
int catan_action_format(char *buf, size_t size, const catan_board *board,
			const catan_names *names, const catan_action *a);

/* Writes the canonical name of a vertex ("0,-1,n"), edge or tile. */
int catan_vertex_format(char *buf, size_t size, const catan_board *b, int v);
int catan_edge_format(char *buf, size_t size, const catan_board *b, int e);
int catan_tile_format(char *buf, size_t size, const catan_board *b, int t);

#endif
