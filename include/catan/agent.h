/*
 * catan/agent.h - agents: players in separate processes that speak the
 * binary protocol of spec/agents.md over a byte stream.
 *
 * Two halves:
 *
 *  - the codec (src/agent/proto.c): catan_msg values to and from bytes.
 *    Pure: no I/O, no allocation, no globals. The decoder reads untrusted
 *    bytes: it never reads past `len`, never crashes, and says what is
 *    wrong in a sentence.
 *
 *  - the runtime (src/agent/agent.c): starts an agent as a child process
 *    connected by a socketpair (its stdin and stdout), enforces the limits
 *    it announced in BEGIN, and turns its answers into catan_actions with
 *    the same shape as catan_bot_choose. An agent that breaks the protocol
 *    is kicked: sent KICK, disconnected, killed and reaped.
 *
 * Wire conventions (spec/agents.md): one type byte, then the fields in
 * order, packed (no padding), integers wider than a byte little-endian.
 * Resources on the wire use the protocol's numbering (ANY 0, BRICK 1,
 * GRAIN 2, LUMBER 3, ORE 4, WOOL 5), not catan_res; card arrays of five
 * are in that order (brick, grain, lumber, ore, wool).
 */
#ifndef CATAN_AGENT_H
#define CATAN_AGENT_H

#include "catan/state.h"

/* The protocol version this build speaks (HELLO). */
#define CATAN_AGENT_VERSION 1

/* Message types: 0-3 and 10-21 are the seed protocol's, the rest ours. */
typedef enum {
	CATAN_MSG_BEGIN = 0,
	CATAN_MSG_SETUP = 1,
	CATAN_MSG_KICK = 2,
	CATAN_MSG_END = 3,
	CATAN_MSG_HELLO = 4, /* v1: first message, both ways */
	CATAN_MSG_VIEW = 5,  /* v1: your seat's view; answer with one move */
	CATAN_MSG_TURN = 10,
	CATAN_MSG_ROLL = 11,
	CATAN_MSG_ROLL_RESULT = 12,
	CATAN_MSG_PLAY = 13, /* v1: followed by the card's arguments */
	CATAN_MSG_BUILD = 14,
	CATAN_MSG_BUILD_RESULT = 15,
	CATAN_MSG_TRADE = 16, /* target 0xff: the bank (maritime trade) */
	CATAN_MSG_TRADE_ACCEPT = 17,
	CATAN_MSG_TRADE_REJECT = 18,
	CATAN_MSG_PASS = 19,
	CATAN_MSG_ROB = 20,
	CATAN_MSG_ROB_RESULT = 21,
	CATAN_MSG_PLACE = 22,	/* v1: set-up settlement and road */
	CATAN_MSG_DISCARD = 23, /* v1: the cards given up after a 7 */
	CATAN_MSG_TYPE_END
} catan_msg_type;

/* Protocol resources and enums (spec/agents.md "Enumerations"). */
enum {
	CATAN_WIRE_ANY = 0,
	CATAN_WIRE_BRICK = 1,
	CATAN_WIRE_GRAIN = 2,
	CATAN_WIRE_LUMBER = 3,
	CATAN_WIRE_ORE = 4,
	CATAN_WIRE_WOOL = 5,
	CATAN_WIRE_DESERT = 6, /* tile type only */
};
enum {
	CATAN_WIRE_ROAD = 0,
	CATAN_WIRE_SETTLEMENT = 1,
	CATAN_WIRE_CITY = 2,
	CATAN_WIRE_DEVCARD = 3,
};
/* "Nobody" for a player id field; "the bank" as a trade target. */
#define CATAN_WIRE_NOBODY 0xff
#define CATAN_WIRE_BANK	  0xff
/* A position that names nothing (an unplaced piece, no second road). */
#define CATAN_WIRE_NOPOS (-128)

/* A tile, vertex (d: N 0, S 1) or edge (d: W 0, NW 1, NE 2) on the wire. */
typedef struct catan_wpos {
	int8_t q, r;
	uint8_t d; /* unused for tiles */
} catan_wpos;

typedef struct catan_msg_begin {
	uint32_t timeout_secs; /* per move */
	uint32_t thread_limit;
	uint32_t memory_limit; /* MiB */
	uint8_t board_radius;
	uint8_t player_id;
	uint32_t cell_count;
	uint32_t harbour_count;
	uint32_t player_count;
} catan_msg_begin;

/* Capacities of the decoded forms (the decoder refuses more). */
#define CATAN_WIRE_MAX_CELLS	 CATAN_MAX_TILES
#define CATAN_WIRE_MAX_HARBOURS	 CATAN_MAX_HARBOURS
#define CATAN_WIRE_MAX_BUILDINGS (CATAN_MAX_PLAYERS * 9)
#define CATAN_WIRE_MAX_ROADS	 (CATAN_MAX_PLAYERS * CATAN_ROADS)

typedef struct catan_msg_setup {
	struct {
		catan_wpos pos;
		uint8_t type; /* CATAN_WIRE_BRICK.. or CATAN_WIRE_DESERT */
		uint8_t counter;
	} cells[CATAN_WIRE_MAX_CELLS];
	struct {
		catan_wpos vert1, vert2;
		uint8_t resource; /* CATAN_WIRE_ANY: 3:1 */
		uint8_t cost;
	} harbours[CATAN_WIRE_MAX_HARBOURS];
	struct {
		uint8_t id;
		catan_wpos house1, road1, house2, road2;
		uint8_t starting_hand[3];
	} players[CATAN_MAX_PLAYERS];
} catan_msg_setup;

/* One seat's view of the state (v1 VIEW): spec/agents.md. */
typedef struct catan_msg_view {
	uint8_t phase; /* catan_phase numbering */
	uint8_t active;
	uint8_t you;
	uint16_t turn;
	uint8_t dice[2];
	catan_wpos robber;
	uint8_t vp_target;
	uint8_t dev_played;
	uint8_t longest_road, largest_army; /* holder or NOBODY */
	uint8_t bank[5];
	uint8_t deck;
	uint8_t offer_from, offer_to; /* NOBODY when no offer is pending */
	uint8_t offer_give[5], offer_get[5];
	uint8_t hand[5];
	uint8_t devs[5];   /* unplayed, by catan_dev (knight..victory point) */
	uint8_t bought[5]; /* bought this turn, by catan_dev */
	uint8_t nplayers;
	struct {
		uint8_t cards, devcards, knights, public_vp, road_length;
		uint8_t discard; /* cards still owed after a 7 */
		uint8_t roads_left, settlements_left, cities_left;
		uint8_t harbours; /* bit k: harbour kind (wire resource k) */
	} players[CATAN_MAX_PLAYERS];
	uint8_t nbuildings;
	struct {
		catan_wpos pos;
		uint8_t owner;
		uint8_t kind; /* CATAN_WIRE_SETTLEMENT or CATAN_WIRE_CITY */
	} buildings[CATAN_WIRE_MAX_BUILDINGS];
	uint8_t nroads;
	struct {
		catan_wpos pos;
		uint8_t owner;
	} roads[CATAN_WIRE_MAX_ROADS];
} catan_msg_view;

typedef struct catan_msg {
	uint8_t type; /* catan_msg_type */
	union {
		struct {
			uint16_t version;
		} hello;
		catan_msg_begin begin;
		struct {
			uint8_t kick_id;
		} kick;
		struct {
			uint8_t winner_id;
		} end;
		struct {
			uint8_t player_id;
		} turn;
		struct {
			uint8_t roll;
		} roll_result;
		struct {
			uint8_t player_id;
			uint8_t card; /* catan_dev numbering */
			/* knight: tile, target; road building: road1, road2;
			 * year of plenty: res1, res2; monopoly: res1. */
			catan_wpos tile;
			uint8_t target;
			catan_wpos road1, road2;
			uint8_t res1, res2;
		} play;
		struct {
			uint8_t player_id;
			uint8_t type;	/* CATAN_WIRE_ROAD.. */
			catan_wpos pos; /* unused for a development card */
		} build;
		struct {
			uint8_t type;
			uint8_t card; /* development card bought */
		} build_result;
		struct {
			uint8_t player_id, target_id;
			uint8_t offer_res, offer_count;
			uint8_t ask_res, ask_count;
		} trade;
		struct {
			uint8_t player_id, target_id;
		} answer; /* TRADE_ACCEPT, TRADE_REJECT */
		struct {
			catan_wpos tile;
			uint8_t target_id;
		} rob;
		struct {
			uint8_t player_id, target_id;
			uint8_t card; /* wire resource; ANY: nothing stolen */
		} rob_result;
		struct {
			catan_wpos house, road;
		} place;
		struct {
			uint8_t cards[5];
		} discard;
		catan_msg_setup setup;
		catan_msg_view view;
	} u;
} catan_msg;

/* The longest message the encoder writes (a SETUP or VIEW at capacity). */
#define CATAN_MSG_MAX 4096

/* Codec results besides a length. */
#define CATAN_MSG_SHORT 0 /* decode: a prefix of a valid message, read more */
#define CATAN_MSG_BAD	(-1) /* decode: not a message; encode: cannot write */

/*
 * Writes `m` into buf[0..cap-1] and returns its length, or CATAN_MSG_BAD
 * when it does not fit or a count is beyond its capacity. SETUP takes its
 * counts from `begin` (may be NULL for every other type). Cannot fail
 * otherwise.
 */
int catan_msg_encode(uint8_t *buf, size_t cap, const catan_msg *m,
		     const catan_msg_begin *begin);

/*
 * Reads one message from buf[0..len-1]. Returns its length (> 0) and
 * fills `out`; CATAN_MSG_SHORT when the bytes are a proper prefix of a
 * message (read more); or CATAN_MSG_BAD with a sentence in why[0..whysize)
 * naming the byte and what is wrong. A SETUP needs the BEGIN that came
 * before it (`begin`; NULL makes SETUP an error). Never reads past len;
 * `out` is written on success only.
 */
int catan_msg_decode(catan_msg *out, const uint8_t *buf, size_t len,
		     const catan_msg_begin *begin, char *why, size_t whysize);

/* A name for a message type ("TRADE_ACCEPT"), "?" when unknown. */
const char *catan_msg_name(int type);

/* Resource numbering: catan_res <-> wire (CATAN_NONE / ANY for none). */
int catan_wire_res(int res);
int catan_res_from_wire(int wire);

/* ---- the runtime ---- */

typedef struct catan_agent catan_agent;

typedef struct catan_agent_limits {
	uint32_t timeout_secs; /* per move, 1.. */
	uint32_t thread_limit; /* threads of the agent's process, 1.. */
	uint32_t memory_limit; /* MiB of address space (RLIMIT_AS), 0: none */
} catan_agent_limits;

/* 5 s per move, 4 threads, 1024 MiB. */
void catan_agent_limits_default(catan_agent_limits *out);

/*
 * Starts `cmd` (a /bin/sh command line) as the agent of seat `seat` on
 * `board` (with the state's options), says HELLO, BEGIN and SETUP, and
 * waits for its HELLO. The child's stdin and stdout are one end of a
 * socketpair; its stderr is ours. Returns CATAN_OK and a handle the caller
 * frees with catan_agent_free; or an error with a sentence in why (no
 * process left behind).
 */
int catan_agent_start(catan_agent **out, const char *cmd,
		      const catan_agent_limits *lim, const catan_board *board,
		      const catan_state *s, int seat, char *why,
		      size_t whysize);

/*
 * Asks the agent for the move of `actor` (its seat; who must be allowed to
 * act) in `s`: sends TURN when a new turn began, then VIEW, and waits up
 * to the time limit for one move, which must be a legal action now.
 * Returns CATAN_OK with the action in `out`. Anything else kicks the
 * agent (KICK sent, connection closed, process killed and reaped) and
 * returns CATAN_E_BAD_ACTION; catan_agent_kicked() then says why. A
 * kicked agent returns CATAN_E_BAD_ACTION at once. `flags` as for
 * catan_legal_actions (unused today: agents may make any legal offer).
 */
int catan_agent_choose(catan_agent *a, catan_action *out, const catan_board *b,
		       const catan_state *s, int actor, unsigned flags);

/*
 * Tells the agent the private result of its own action just applied
 * (ROLL_RESULT, BUILD_RESULT of a development card, ROB_RESULT). Nothing
 * is sent for other actions. A failure to send kicks the agent.
 */
void catan_agent_result(catan_agent *a, const catan_state *after,
			const catan_action *done, const catan_outcome *oc);

/* Sends END with the winner and closes the connection (game over). */
void catan_agent_end(catan_agent *a, int winner);

/* Why the agent was kicked, or NULL while it plays. */
const char *catan_agent_kicked(const catan_agent *a);

/* Kicks the agent with `why` (for a caller-side reason). */
void catan_agent_kick(catan_agent *a, const char *why);

/* Round trips so far and their total time (for benchmarks). */
void catan_agent_stats(const catan_agent *a, long *moves, double *seconds);

/*
 * A counter-offer the agent made instead of answering (TRADE from the
 * target of an offer; the action was a rejection): true once, with it in
 * `out`. A host passes it to the offerer's agent with catan_agent_send.
 */
bool catan_agent_take_counter(catan_agent *a, catan_msg *out);

/* Sends `m` as an event (no answer expected). */
void catan_agent_send(catan_agent *a, const catan_msg *m);

/* Closes, kills and reaps the agent's process if still running. NULL ok. */
void catan_agent_free(catan_agent *a);

/*
 * The seed's minimum viable move for `actor`: the simplest legal action
 * (end the turn, roll, reject an offer, or else the first action
 * catan_legal_actions lists). CATAN_E_NOT_YOUR_TURN when none.
 */
int catan_agent_mvm(catan_action *out, const catan_board *b,
		    const catan_state *s, int actor);

/*
 * Translates a move message into an action (no legality check beyond the
 * board's coordinates and the actor's id in the message). Returns CATAN_OK
 * or CATAN_E_BAD_ACTION with a sentence. Pure.
 */
int catan_agent_msg_action(catan_action *out, const catan_board *b,
			   const catan_state *s, int actor, const catan_msg *m,
			   char *why, size_t whysize);

/* Fills the VIEW of seat `you` of `s` (hidden cards as counts). Pure. */
void catan_agent_view(catan_msg *out, const catan_board *b,
		      const catan_state *s, int you);

#endif
