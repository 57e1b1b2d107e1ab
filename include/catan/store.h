/*
 * catan/store.h - a game as Git history (libgit2).
 *
 * One repository per game (bare: the state lives in commits, never in a
 * working tree). The genesis commit holds the initial state; every action is
 * one commit whose subject is the action's canonical text, authored by the
 * acting player, on that player's branch refs/heads/<player>. A commit's
 * tree is the canonical encoding of the state after the action
 * (catan/codec.h, spec/format.md), so replaying the action on the parent's
 * state and comparing one tree id verifies it. After a rolled 7 the players
 * who owe discards commit concurrently on the 7-roll commit, and the active
 * player joins two or more of them with a merge commit. spec/replication.md
 * has the details.
 *
 * Errors: every fallible call returns 0 or -1 and fills a catan_err with a
 * sentence (libgit2's own message copied in where it is the cause) and a
 * code to branch on (catan_err.code). Nothing is written to the
 * repository by a call that fails.
 */
#ifndef CATAN_STORE_H
#define CATAN_STORE_H

#include "catan/codec.h"
#include "catan/state.h"

/*
 * What went wrong, as a value: the rules' own code (a catan_error,
 * CATAN_E_NOT_YOUR_TURN and the rest) when they refused an action, else
 * one of these. The sentence in msg says the same for a reader.
 */
typedef enum {
	CATAN_STORE_E_FAILED = 100, /* anything else: I/O, memory, libgit2 */
	CATAN_STORE_E_NOT_FOUND,    /* no such repository, game, commit,
				       branch, remote or player */
	CATAN_STORE_E_LOCKED,	    /* another process holds a lock */
	CATAN_STORE_E_CORRUPT,	    /* stored data that is not a valid game */
	CATAN_STORE_E_NETWORK,	    /* a remote could not be reached or read */
	CATAN_STORE_E_DENIED,	    /* refused: a limit, a rewrite, a non-empty
				       directory, batch mode */
} catan_store_code;

typedef struct catan_err {
	char msg[512];
	int code; /* a catan_error (1..) or a catan_store_code */
} catan_err;

struct catan_key;

/*
 * Gives the handle `player`'s secret key (copied; wiped when the handle is
 * freed): in a signed game every commit of that seat is signed with it.
 * Refused when the game is not signed or binds another key to the seat.
 */
struct catan_store;
int catan_store_set_key(struct catan_store *s, int player,
			const struct catan_key *k, catan_err *err);

/* An opaque open game repository. */
typedef struct catan_store catan_store;

/* A commit id as 40 lowercase hex digits and a NUL. */
typedef struct catan_commit_id {
	char hex[41];
} catan_commit_id;

/*
 * Commit timestamps: real time; the seed's date for the genesis and one
 * second after the latest parent for every other commit (simulate: the
 * same game gives the same ids, one date per action, rising along every
 * branch as git's walks expect); or the seed's date plus a minute a turn
 * (the benchmarks of peers: reproducible, with dates that grow as a real
 * game's do, which git's walks rely on).
 */
typedef enum {
	CATAN_TIME_NOW,
	CATAN_TIME_DETERMINISTIC,
	CATAN_TIME_TURNS,
} catan_time_mode;

/*
 * Creates a new bare game repository at `path` (which must not exist or be
 * an empty directory) with the genesis commit for game `g`, every player's
 * branch pointing at it, and HEAD at the first player's branch.
 */
int catan_store_create(catan_store **out, const char *path, const catan_game *g,
		       catan_time_mode time, catan_err *err);

/*
 * The same, already in batch mode (see catan_store_batch): even the genesis
 * stays in memory until the first catan_store_flush().
 */
int catan_store_create_ext(catan_store **out, const char *path,
			   const catan_game *g, catan_time_mode time,
			   bool batch, catan_err *err);

/* Opens an existing game repository and reads its genesis. */
int catan_store_open(catan_store **out, const char *path, catan_err *err);

/*
 * The same; readonly for a command that only reads (show, legal, log,
 * verify, render): it waits for a writer to finish (a shared lock on
 * catan.lock, when there is one) and writes nothing to the repository,
 * not even when it fails. Acting, syncing or gc through a read-only
 * handle is a programming error.
 */
int catan_store_open_ext(catan_store **out, const char *path, bool readonly,
			 catan_err *err);

/*
 * Checks that reading `rev` (a revision, or a range A..B or A...B, in git's
 * syntax) writes nothing: libgit2 1.5 creates an empty reflog when asked for
 * an entry ("red@{1}") of a ref that has none. Returns 0, or -1 with "REF has
 * no reflog" in err. Call it before handing rev to libgit2 in a read
 * command.
 */
int catan_store_rev_check(catan_store *s, const char *rev, catan_err *err);

/*
 * Batch mode, for simulation: new objects go to memory and branch moves are
 * kept in memory until catan_store_flush(), which writes one pack (deltas
 * included) and then moves the branches, logged. Writing loose objects and
 * ref files costs a file creation each; a batch costs one pack per flush.
 * Closing a store in batch mode without a flush loses the unflushed work.
 */
int catan_store_batch(catan_store *s, catan_err *err);
int catan_store_flush(catan_store *s, catan_err *err);

/* Closes the repository. Accepts NULL. */
void catan_store_free(catan_store *s);

/* The game's fixed facts, valid while the store is open. */
const catan_game *catan_store_game(const catan_store *s);

/*
 * The current position of the game: the state every player's next action
 * applies to. Normally the state of the newest commit (the one every branch
 * tip is an ancestor of); during the discards after a 7, the 7-roll state
 * with every discard committed so far applied. `head` receives the commit
 * the next ordinary action builds on (the 7-roll commit while discards are
 * pending). May be NULL.
 */
/*
 * The committer time of commit `id` (seconds since 1970), or -1 when it
 * cannot be read. (Fair dice: the current head of a game waiting for
 * reveals is the request, so this says since when it waits.)
 */
long long catan_store_commit_time(catan_store *s, const catan_commit_id *id);

int catan_store_current(catan_state *out, catan_commit_id *head, catan_store *s,
			catan_err *err);

/* The state at revision `rev` (any git revision syntax; NULL = current). */
int catan_store_state_at(catan_state *out, catan_commit_id *id, catan_store *s,
			 const char *rev, catan_err *err);

/*
 * Player `actor` does `a`: fast-forwards the actor's branch to the current
 * position, applies the action, writes the changed blobs and trees straight
 * into the object database, commits, and moves refs/heads/<actor> forward.
 * A discard commits on the 7-roll commit; when the last owed discard is in
 * and two or more were owed, the active player's next action first commits
 * the merge. On a refused action returns -1 with the rules' reason and
 * writes nothing. `outcome` and `id` may be NULL.
 */
int catan_store_act(catan_store *s, int actor, const catan_action *a,
		    catan_outcome *outcome, catan_commit_id *id,
		    catan_err *err);

/*
 * Repacks the repository with catan's pack writer (src/store/pack.h): one
 * pack of everything reachable from refs/, every object a delta against
 * its natural base when smaller; then removes the other packs (except
 * those with a .keep file) and the loose objects the new pack holds.
 * Nothing is removed before the new pack and its index are complete. Not
 * in batch mode. Returns 0, or -1 with err filled.
 */
int catan_store_gc(catan_store *s, catan_err *err);

/* Result of catan_store_verify. */
typedef struct catan_verify_report {
	long commits; /* commits checked */
	long merges;  /* discard merges among them */
	bool ok;
	catan_commit_id bad; /* first bad commit, when !ok */
	char why[512];	     /* what is wrong with it */
	/*
	 * The bad commit is valid in itself but not on its author's branch
	 * (which a peer read mid-move can show for an instant): sync holds
	 * such a branch back once before it calls it misbehaviour.
	 */
	bool off_branch;
	int off_author; /* with off_branch: whose branch lacks the commit */
	/*
	 * An object the bad commit needs is not here (the commit itself, its
	 * tree, or a file of it): the pack that brought it left that out. No
	 * verdict on its author; sync fetches it again.
	 */
	bool incomplete;
	/*
	 * The bad commit is a second child of its parent by the same author
	 * (a fork); fork_other is the first. In a signed game two signed
	 * children are a proof against their author (sync: equivocation).
	 */
	bool fork;
	catan_commit_id fork_other;
	/*
	 * A fork found settled: two children of one commit by one seat that
	 * an expulsion checked here carries as its proof (spec/replication.md,
	 * "Expulsion"): not a failure; sync records the proof.
	 */
	bool settled;
	catan_commit_id settled_pair[2];
	/*
	 * Incremental checks (sync): bit p set when player p's candidate
	 * tip holds the bad commit; and whether the check gave up because
	 * the remote's time was up (no verdict on any commit then).
	 */
	unsigned holders;
	bool timed_out;
} catan_verify_report;

/*
 * Replays the whole history from genesis and checks every commit reachable
 * from any refs/heads/ branch: its author may act in its parent's state, its
 * subject parses and is legal there, its trailers agree, its tree is exactly
 * the encoding of the result, merges are exactly the discard merges the rules
 * allow, no author forks a commit, every branch holds only what its player
 * may hold and moved only forward (reflog). Returns 0 when the check ran
 * (see report->ok) and -1 when it could not run (unreadable repository).
 * Reads only; never writes.
 */
int catan_store_verify(catan_store *s, catan_verify_report *report,
		       catan_err *err);

/*
 * Calls fn once per commit of the current history, oldest first (the
 * discard commits of a fan-out in player order, then their merge). A game
 * stopped by an equivocation: up to the commit where it stopped.
 */
typedef struct catan_log_entry {
	catan_commit_id id;
	char subject[160];
	char author[CATAN_NAME_MAX];
	int turn;
	bool merge; /* the join of a 7's discards, which is no action (a fair
		     * outcome's completion, also a merge, is its action) */
	uint8_t dice[2]; /* a roll's Dice trailer; 0,0 on any other commit */
} catan_log_entry;

int catan_store_log(catan_store *s,
		    int (*fn)(const catan_log_entry *e, void *ctx), void *ctx,
		    catan_err *err);
/*
 * catan_store_log, or with `stored` every commit the branches hold: in a
 * stopped game also the two children and what was built on them (for a
 * revision named past the fork: catan log REV, replay, render).
 */
int catan_store_log_ext(catan_store *s, bool stored,
			int (*fn)(const catan_log_entry *e, void *ctx),
			void *ctx, catan_err *err);

/* ---- peers (sync.c; spec/replication.md) ---- */

typedef struct catan_sync_report {
	int fetched;	 /* remotes fetched */
	int unreachable; /* remotes that could not be reached */
	int adopted;	 /* branches moved forward */
	int rejected;	 /* branches refused and quarantined */
	int refused;	 /* remotes given up on (a limit; no verdict) */
	int pushed;	 /* remotes this peer's branch was pushed to */
	int equivocations; /* proofs found that a seat signed two moves */
	char log[4096];	 /* one line per event, for people */
} catan_sync_report;

/*
 * Fetches every player branch of the named remotes (all remotes when
 * nremotes == 0) into refs/remotes/REMOTE/ (a path or file:// remote is
 * read directly, its new objects copied as one pack, then the remote-tracking
 * refs that moved: spec/replication.md), verifies every new commit,
 * and moves the local branches forward to the newest valid history. A
 * remote that rewrote a branch or sent an invalid commit is reported in
 * rep->log and the evidence (tip, first bad commit, reason, headers) kept
 * in a blob under refs/catan/quarantine/<remote>/<player>; the local game
 * is untouched by it. An unreachable remote is reported, not an error; a
 * remote past one of the limits of spec/replication.md ("Limits") is
 * reported by the limit's name and counted in rep->refused. Then this peer's
 * own branch is pushed to the remotes marked with catan_store_remote_push.
 * Returns -1 only when the local repository cannot be updated.
 */
int catan_store_sync(catan_store *s, const char *const *remotes, int nremotes,
		     catan_sync_report *rep, catan_err *err);

/* The verify-and-adopt half of sync, for refs already fetched (bundles). */
int catan_store_adopt(catan_store *s, const char *remote,
		      catan_sync_report *rep, catan_err *err);

/*
 * Marks a remote as a shared repository that sync pushes this peer's own
 * branch to (a bare repository on a server, say). Never set it on another
 * peer's own repository: their branches move only by their verification.
 */
int catan_store_remote_push(catan_store *s, const char *name, bool on,
			    catan_err *err);

/* Adds a remote (a path, file://, git://, ssh://: anything git fetches). */
int catan_store_remote_add(catan_store *s, const char *name, const char *url,
			   catan_err *err);

/*
 * Signed games (spec/replication.md, "Keys and signatures").
 *
 * catan_store_create_signed creates a game whose genesis (g->signed_game,
 * g->keys: every seat's public key) is signed with the private key file at
 * `keypath`, which must be the first seat's; the repository then plays for
 * that seat and signs with that file from then on.
 *
 * catan_store_use_key loads the private key file at `path` (OpenSSH format,
 * unencrypted ed25519), finds the seat it is bound to, refuses it when this
 * repository plays for another seat, and records its absolute path in the
 * repository's config (catan.key) so that every later handle that may
 * write signs with it. The key never enters the repository's objects.
 */
int catan_store_create_signed(catan_store **out, const char *path,
			      const catan_game *g, const char *keypath,
			      catan_err *err);
int catan_store_use_key(catan_store *s, const char *path, catan_err *err);

/*
 * The lobby (spec/replication.md, "Keys and signatures"): claims the seat
 * this repository plays (catan.me), open in the game, with the private
 * key file at `path`: writes the claim (a commit on the genesis
 * presenting the key, signed by it) on that seat's branch and records
 * the key as catan_store_use_key does. Refused when the seat is bound,
 * claimed here already, or shown claimed at a remote (err names the
 * key). 0 or -1.
 */
int catan_store_claim(catan_store *s, const char *path, catan_err *err);

/*
 * catan_store_create_ext for a signed game (g->signed_game), its genesis
 * signed with `first`, the first seat's secret key (the benchmarks and
 * tests, which hold every seat's key in memory: catan_store_set_key).
 */
int catan_store_create_keyed(catan_store **out, const char *path,
			     const catan_game *g, catan_time_mode time,
			     bool batch, const struct catan_key *first,
			     catan_err *err);

/*
 * In a signed game, the proof that a seat signed two different children of
 * one commit, when this peer has seen one (spec/replication.md,
 * "Equivocation"): returns 1 and the seat, the commit both build on (where
 * the game stopped) and the two children; 2 and the same once the seat is
 * expelled (the game goes on without it); 3 when the two children are two
 * expulsions of one seat that the seat signed, 4 when they are two starts
 * of a lobby (either way the game stopped for good: spec/replication.md,
 * "Expulsion"); 0 when there is none.
 */
int catan_store_equivocation(catan_store *s, int *seat, catan_commit_id *parent,
			     catan_commit_id child[2]);

/*
 * In a game stopped by an equivocation, whether the equivocating seat is
 * to be expelled now (every other seat's discard or reveal owed on that
 * commit is in): 1 with the seat and *by, the seat that writes `expel
 * <seat>` (catan_store_act; it acts next once the seat is skipped);
 * else 0 (spec/replication.md, "Expulsion").
 */
int catan_store_expel_due(catan_store *s, int *seat, int *by);

/*
 * For a repository that players push to (a pre-receive hook, catan
 * host-hook): whether moving the branches `refs[i]` from olds[i] to
 * news[i] (40 hex each; the ids as git gives them to the hook) keeps the
 * game valid: every ref a player's branch, no deletion, no creation, no
 * rewrite, and every new commit verified as a sync verifies it (legal
 * action, on its author's branch, no fork, and in a signed game signed by
 * the author's key). Open the handle read-only, with path NULL inside a
 * hook so that the pushed objects, still in git's quarantine, are seen.
 * Returns 0 with rep->ok saying whether to accept (rep->why: the reason,
 * rep->bad: the commit or the new tip), -1 if it cannot run.
 */
int catan_store_check_push(catan_store *s, const char *const *refs,
			   const char *const *olds, const char *const *news,
			   int n, catan_verify_report *rep, catan_err *err);

/*
 * A host that answers catan peers itself (`catan host-hook serve BARE
 * --http`, behind the web server that does TLS and logins), instead of
 * git-http-backend, which starts git for every request
 * (spec/replication.md, "A host that answers peers itself").
 *
 * catan_store_serve_upload: the body of a POST to git-upload-pack in
 * protocol version 2 (`ls-refs`, or `fetch` of ref tips with `done`);
 * the answer's body into *out (malloc'd, *outlen bytes), an ERR packet
 * for a request it does not take. Returns the HTTP status (200, 400, or
 * 500 out of memory with *out NULL).
 *
 * catan_store_serve_receive: the body of a POST to git-receive-pack
 * (update lines, then a pack) pushed by login `user`. The pack goes to a
 * quarantine folder under objects/; `check` (0: accept) then judges the
 * update lines ("OLD NEW REF\n" each) with that folder holding the new
 * objects, as a pre-receive hook would, its reason into *message
 * (malloc'd, or left NULL); accepted, the pack moves in, each ref moves
 * from the old id the client named (a ref moved meanwhile is refused)
 * and info/refs is rewritten. The report-status answer into *out.
 */
typedef int (*catan_serve_check)(void *ctx, const char *quarantine,
				 const char *updates, char **message);
int catan_store_serve_upload(catan_store *s, const char *body, size_t len,
			     char **out, size_t *outlen);
int catan_store_serve_receive(catan_store *s, const char *user,
			      const char *body, size_t len,
			      catan_serve_check check, void *ctx, char **out,
			      size_t *outlen);

/*
 * Creates every player's branch that the repository lacks at the genesis
 * (a shared repository the host pushed only its own branch to), so that
 * every later push is a forward move. 0 or -1.
 */
int catan_store_fill_branches(catan_store *s, catan_err *err);

/* The player this repository plays for (config catan.me), or -1. */
int catan_store_me(const catan_store *s);
int catan_store_set_me(catan_store *s, int player, catan_err *err);

/*
 * Joins the game at `url` as player `me`: a new repository at `path` with
 * remote "origin", the genesis checked, everything fetched verified and
 * adopted.
 */
int catan_store_join(catan_store **out, const char *url, const char *path,
		     const char *me, catan_sync_report *rep, catan_err *err);

/*
 * Undoes a join the caller refuses after it (a key that cannot take the
 * seat): frees `s` and removes `path`, which catan_store_join made, or
 * found empty, as a failed join removes it.
 */
void catan_store_join_abandon(catan_store *s, const char *path);

/*
 * Waking a waiting peer when a git:// remote moves (src/store/watch.c,
 * spec/replication.md "Waking peers over git://"). `catan serve` answers a
 * watch request, the digest of the branches the watcher last saw, as soon
 * as its own branches differ from it, or after CATAN_WATCH_MS (25,000
 * unless set) with the same digest.
 *
 * catan_watch_digest: the digest of the branches of the repository at
 * gitdir (its packed-refs' refs/heads lines and its loose refs/heads
 * files); 0, or -1 when they cannot be read.
 * catan_watch_request_parse: 0 and the digest when buf (len bytes) is
 * exactly one watch request, else -1. catan_watch_answer: writes the
 * answer ("moved" or not, with the digest now) to buf; its length.
 */
int catan_watch_digest(const char *gitdir, uint64_t *out);
int catan_watch_request_parse(const char *buf, size_t len, uint64_t *digest);
int catan_watch_answer(char *buf, size_t n, bool moved, uint64_t digest);

/*
 * The client: one open request to each git:// remote of a game (at most
 * 16), kept between calls. catan_watch_targets takes the remotes from an
 * open handle (which may then be freed): the number of git:// remotes, or
 * -1. catan_watch_wait waits up to timeout_ms for any of them to move: 1
 * when one did, 0 when the time passed or a remote was just left to
 * polling (one that does not answer as catan serve does, or cannot be
 * reached, is asked again only after ten seconds; with nothing to watch the
 * call simply sleeps), -1 on a failed poll. catan_watch_count: the git://
 * remotes being watched now; catan_watch_all: whether that is every remote of
 * the game (none is left to polling); catan_watch_why: why the last one left to
 * polling was.
 */
typedef struct catan_watch catan_watch;
catan_watch *catan_watch_new(void);
int catan_watch_targets(catan_watch *w, catan_store *s);
int catan_watch_wait(catan_watch *w, int timeout_ms);
int catan_watch_count(const catan_watch *w);
bool catan_watch_all(const catan_watch *w);
const char *catan_watch_why(const catan_watch *w);
void catan_watch_free(catan_watch *w);

/*
 * A wake-up is a server's word, and a server may say "moved" at every
 * request (broken, or a lying peer). After `fruitless` wake-ups in a row
 * whose sync adopted nothing, the seconds to wait before the next request:
 * none for the first two (one may be the peer's own move coming back),
 * then `interval`, doubling, up to `max_interval`, as polling would.
 */
double catan_watch_pause(int fruitless, double interval, double max_interval);

#endif
