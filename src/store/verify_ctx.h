/*
 * verify_ctx.h - layer 5 (verify), shared by verify.c (the checks of one
 * commit) and verify_new.c (which commits to check, and the walk). Not
 * included outside the verify files.
 */
#ifndef CATAN_STORE_VERIFY_CTX_H
#define CATAN_STORE_VERIFY_CTX_H

#include "verify.h"

/* States of checked commits, by id (open addressing). */
typedef struct seen {
	git_oid id;
	git_oid parent; /* first parent (for fork detection) */
	int author;	/* player index */
	bool discard;	/* a discard or a fair reveal: a commit of a fan */
	bool lobby;	/* the genesis of a lobby, or a claim: not started */
	bool claim;	/* a claim (lobby.h) */
	unsigned char key[32]; /* the key a claim presents */
	bool trusted;	/* verified before, loaded from the repository */
	bool used;
	catan_state state;
	store_fair fair; /* fair dice: chain values (repo.h) */
} seen;

/*
 * The entries live in blocks that never move, so a pointer from
 * verify_table_get or verify_table_put stays valid while the table grows
 * (check_merge holds several at once, and known() may add entries between
 * its lookups); idx maps a commit id to its entry's number.
 */
#define TABLE_BLOCK 64
typedef struct table {
	oid_map idx;
	seen **block;
	size_t n, nblock;
} table;

/* The entry of id, or NULL. Cannot fail. */
seen *verify_table_get(const table *t, const git_oid *id);
/* The i-th entry put (i < t->n). Cannot fail. */
seen *verify_table_at(const table *t, size_t i);
/* A new entry for id (zeroed but for id and used); NULL when out of memory. */
seen *verify_table_put(table *t, const git_oid *id);
void verify_table_free(table *t);

/* A verification under way. */
typedef struct ctx {
	catan_store *s;
	table t;
	catan_verify_report *rep;
	/*
	 * Incremental mode (sync): only commits not reachable from the local
	 * branches are checked; their already-verified ancestors are loaded
	 * on demand by decoding their trees. newtips[p] is where player p's
	 * branch would move.
	 */
	bool incremental;
	const git_oid *newtips;
	/* The start this verification accepted, if it accepted one. */
	bool started;
	git_oid start;
	/*
	 * The proofs of the expulsions checked so far (verify_check_expel):
	 * their children are off their author's branch for good.
	 */
	store_verdict expelled[CATAN_MAX_PLAYERS];
	int nexpelled;
} ctx;

/*
 * Records that commit id (NULL: none in particular) fails for the reason
 * formatted: c->rep->ok false, bad and why filled. Returns 1.
 */
int verify_bad(ctx *c, const git_oid *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The checks of one commit (verify.c). Each returns 0 when the commit
 * passes, 1 when it fails (c->rep says why, naming the commit), -1 when
 * it cannot run (out of memory, an unreadable object).
 */
int verify_check_form(ctx *c, const git_oid *id);
int verify_check_action(ctx *c, git_commit *commit);
/*
 * A commit with parents: a lobby's claim or start, an action, or a merge
 * (whichever it says it is).
 */
int verify_check_commit(ctx *c, git_commit *commit);
int verify_check_merge(ctx *c, git_commit *commit);
/* An expulsion (a merge whose last two parents are its proof). */
int verify_check_expel(ctx *c, git_commit *commit);
/*
 * The table entry of commit id: checked earlier in this run, or (in
 * incremental mode) a trusted local commit, loaded now; NULL if neither.
 */
seen *verify_known(ctx *c, const git_oid *id);
/*
 * Commit id checked: its state (and f's chain values, if f), author and
 * first parent kept in the table; the entry, or NULL when out of memory
 * (c->rep says so).
 */
seen *verify_keep(ctx *c, const git_oid *id, const catan_state *st,
		  const store_fair *f, int author, const git_oid *parent);
/* The rules refused the commit's action (rc): 1, c->rep says so. */
int verify_illegal(ctx *c, const git_oid *id, const char *subject, int author,
		   int rc);
/*
 * Every object of the commit's tree is in the object database (what
 * differs from its first parent's tree is looked for): 0, or 1.
 */
int verify_check_objects(ctx *c, const git_oid *id, git_commit *commit);
/* The commit's tree is the encoding of st (and f), and its objects are
 * there (verify_check_objects): 0, or 1. */
int verify_check_tree(ctx *c, const git_oid *id, git_commit *commit,
		      const catan_state *st, const store_fair *fair);
/* The Dice trailer is exactly the roll's (or absent): 0, or 1. */
int verify_check_dice(ctx *c, const git_oid *id, const catan_state *next,
		      const catan_action *a, const uint8_t dice[2]);
/*
 * The subject of an action commit: an action (parsed into *a), written
 * canonically, and the Turn trailer is `turn`. 0, or 1.
 */
int verify_subject(ctx *c, git_commit *commit, const char *subject, int turn,
		   catan_action *a);
/*
 * The first n parents of a merge of children of `base` (discards on a
 * 7-roll, or with f reveals on a request): each a checked child of base,
 * one per player, in player order; each child's action applied to *st, and with
 * f each revealing seat's value copied into *f. 0, or 1.
 */
int verify_fan_parents(ctx *c, git_commit *commit, unsigned n, const seen *base,
		       catan_state *st, store_fair *f);
/*
 * Fair dice (verify_fair.c), each 0 or 1 as the checks above: the outcome
 * a completion states (ps: every reveal in, f: the values); the chain
 * values the commit's tree publishes (f updated); a completion merging
 * two or more reveals.
 */
int verify_fair_outcome(ctx *c, const git_oid *id, const catan_state *ps,
			const store_fair *f, const catan_action *a);
int verify_fair_values(ctx *c, git_commit *commit, store_fair *f, int author,
		       const catan_state *ps, const catan_state *next,
		       const catan_action *a);
int verify_fair_merge(ctx *c, git_commit *commit, int author,
		      const char *subject, const uint8_t dice[2]);

/* The branches and their reflogs (full verify), as check_* above. */
int verify_check_branches(ctx *c);
/* Every new commit is on its author's branch (incremental). */
int verify_check_new_on_own_branch(ctx *c);
/* Every commit of walk, in topological order. */
int verify_check_walk(ctx *c, git_revwalk *walk);
/*
 * The lobby (verify_lobby.c), each 0 or 1 as the checks above: a claim
 * (a joiner's key for an open seat, on the genesis, signed by that key)
 * and the start (the host's merge of one claim per open seat).
 */
int verify_check_claim(ctx *c, git_commit *commit);
int verify_check_start(ctx *c, git_commit *commit);
/* Only one child of a commit per author (forks are refused). verify.c. */
int verify_check_fork(ctx *c, const git_oid *id, const git_oid *parent,
		      int author);
/* The author and subject of a commit's message (checked). verify.c. */
int verify_check_message(ctx *c, git_commit *commit, int *author,
			 const char **subject_out, char *subject, size_t size,
			 uint8_t dice[2]);
/* Fills why with a formatted sentence; returns 1. */
int store_form_bad(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
