/*
 * lobby.h - layer 4 (log) of src/store: the lobby of a signed game
 * (spec/replication.md, "Keys and signatures"). A genesis may leave seats
 * open (game/open); a joiner claims one with a commit on the genesis that
 * presents its key and is signed by it; the first seat's player (the
 * host) merges one claim per open seat into the start, whose game/ binds
 * every seat. lobby.c writes claims and the start and says which game a
 * handle plays; verify_lobby.c checks them.
 */
#ifndef CATAN_STORE_LOBBY_H
#define CATAN_STORE_LOBBY_H

#include "state.h"

/* The subjects of a claim and of the start. */
#define STORE_CLAIM_SUBJECT "claim"
#define STORE_START_SUBJECT "start"

/*
 * Why a claim of seat `name` presenting key `key` is refused when the
 * seat is held already by key `held` (by the start, or by another claim
 * taken first): a second key, or the same key claiming twice (a joiner
 * who joined again: a claim is no move, so no fork either), or, when
 * `own_lost` (the seat is this repository's own, its claim the one held
 * here, and the claim judged another joiner's that took the seat),
 * this repository's own claim passed over. Into why[n]. One
 * judgement for the verification of a claim (verify_lobby.c) and for a
 * seat's branch that would move to one (adopt.c).
 */
void store_lobby_rival_why(char *why, size_t n, const char *name,
			   const unsigned char *key, const unsigned char *held,
			   bool own_lost);

/* A claim for a seat the genesis binds: the seat. (form.c, verify_lobby.c) */
#define LOBBY_WHY_BOUND_SEAT                                                   \
	"a claim for seat %s, which the genesis binds (only an open seat is "  \
	"claimed)"

/*
 * Reads and decodes the game/ of the root tree `tree` into *out (strictly,
 * as a genesis's) and its id into *game_tree. 0, or -1 with err.
 */
int store_game_of_tree(catan_game *out, git_oid *game_tree, catan_store *s,
		       const git_oid *tree, catan_err *err);

/*
 * The tree of game g (its game/ plus the initial state, as the genesis,
 * a claim and the start hold), into *out, game/'s id into *game_tree;
 * hashed only unless write. 0 or -1.
 */
int store_lobby_tree(git_oid *out, git_oid *game_tree, catan_store *s,
		     const catan_game *g, bool write);

/* Why a start's claims do not bind its game (store_lobby_bind). */
typedef enum store_bind {
	STORE_BIND_OK,
	STORE_BIND_ORDER,     /* a claim's seat not after the one before */
	STORE_BIND_KEY_TWICE, /* a claim's key is another seat's already */
	STORE_BIND_SEATS,     /* not one claim for each open seat */
	STORE_BIND_ENCODE,    /* the game cannot be encoded */
} store_bind;

/*
 * The game a start merging n claims binds (one rule for verify_lobby.c,
 * which checks a start, and adopt.c, which judges a start alone for a
 * proof): the lobby's game with key[i] bound to seat seat[i], into *want
 * and its tree into *tree (store_lobby_tree), provided the seats are open
 * and in player order, no key is taken twice (nor one the genesis binds)
 * and every open seat is bound. Else why, *bad the claim at fault and
 * *other the seat holding its key already (STORE_BIND_KEY_TWICE).
 */
store_bind store_lobby_bind(catan_game *want, git_oid *tree, git_oid *game_tree,
			    catan_store *s, unsigned n, const int *seat,
			    const unsigned char (*key)[CATAN_PUBKEY_LEN],
			    unsigned *bad, int *other);

/*
 * Sets s->game and s->game_tree to the start's when the first seat's
 * branch holds it (its tip's game/ binds every seat), else to the
 * lobby's. Nothing to do in a game without a lobby. Cannot fail (an
 * unreadable tip leaves the lobby's game).
 */
void store_lobby_load(catan_store *s);

/* The open seats of g, "blue, white", into out. Cannot fail. */
void store_lobby_waits(char *out, size_t n, const catan_game *g);

/*
 * Writes seat p's claim with key k: a commit by p on the genesis, its
 * tree the genesis's with p bound to k (game/signers gains p's line,
 * game/open loses p), signed by k; moves p's branch from the genesis to
 * it. 0, or -1 with err (p not open, k already a seat's, the branch not
 * at the genesis).
 */
int store_lobby_claim(git_oid *out, catan_store *s, int p, const catan_key *k,
		      catan_err *err);

/*
 * The host's start: when this handle plays the first seat, the game has
 * not started and every open seat's branch holds a claim, writes the
 * start (parents: the claims in player order; tree: game/ binding every
 * seat plus the initial state), moves the first seat's branch to it and
 * makes its game the handle's. *wrote says whether it did. 0, or -1
 * with err.
 */
int store_lobby_start(catan_store *s, bool *wrote, catan_err *err);

/*
 * The start on tip's first-parent line (tip itself, or the commit its
 * first parents lead to whose subject is the start's), into *out: 0, or
 * -1 when the line reaches the genesis (or a root, or cannot be read)
 * before one. In a lobby game only the first seat's branch holds one.
 */
int store_lobby_start_on(catan_store *s, const git_oid *tip, git_oid *out);

#endif
