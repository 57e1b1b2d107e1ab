/*
 * store_internal.h - shared by the files of src/store.
 */
#ifndef CATAN_STORE_INTERNAL_H
#define CATAN_STORE_INTERNAL_H

#include <git2.h>

#include "catan/codec.h"
#include "catan/sign.h"
#include "catan/store.h"

/* A root tree's bytes, kept for sync to compare a new tree with. */
#define STORE_TREE_MEMO 8
typedef struct store_tree_memo {
	git_oid id;
	size_t len; /* 0: empty slot */
	unsigned char buf[1024];
} store_tree_memo;

/* A state file's last content and blob id (store_tree_of). */
typedef struct store_blob_memo {
	char path[CATAN_PATH_MAX];
	char *data; /* malloc'ed, NULL: empty slot */
	size_t len;
	git_oid id;
} store_blob_memo;

/* A verified commit's state, kept for the next sync's replay. */
#define STORE_STATE_MEMO 8
typedef struct store_state_memo {
	git_oid id; /* zero: empty slot */
	catan_state state;
} store_state_memo;

/*
 * What one peer may make a sync do (spec/replication.md, "Limits"): the
 * names are those of the environment variables that set them and of the
 * error messages that refuse work beyond them.
 */
#define STORE_MAX_PARENTS CATAN_MAX_PLAYERS /* CATAN_SYNC_MAX_PARENTS */
typedef struct store_limits {
	long commits;	  /* CATAN_SYNC_MAX_COMMITS: new per remote */
	long message;	  /* CATAN_SYNC_MAX_MESSAGE: bytes of a message */
	long object;	  /* CATAN_SYNC_MAX_OBJECT: bytes of any object */
	long fetch_bytes; /* CATAN_SYNC_MAX_FETCH_BYTES: one fetch */
	long remote_ms;	  /* CATAN_SYNC_REMOTE_MS: time per remote */
} store_limits;

/* The limits as the environment sets them (defaults otherwise). */
void store_limits_read(store_limits *out);

struct catan_store {
	git_repository *repo;
	git_odb *odb;
	catan_game game;
	/*
	 * The secret keys this handle signs with, by seat (NULL: none; a
	 * signed game refuses to commit for a seat without one). Owned,
	 * wiped when freed (catan_store_set_key).
	 */
	catan_key *keys[CATAN_MAX_PLAYERS];
	char key_note[320]; /* why a configured key did not load */
	git_oid genesis;
	git_oid game_tree; /* id of game/, shared by every state tree */
	catan_time_mode time;

	/*
	 * Exclusive lock on <gitdir>/catan.lock for the handle's lifetime
	 * (shared when readonly; -1 for a reader of a repository without
	 * one). intent_len: the bytes of lock-file lines written to it
	 * (store_intent).
	 */
	int lock_fd;
	bool readonly;
	size_t intent_len;

	/* Batch mode (simulation): objects in memory, tips in memory. */
	bool batch;
	git_odb_backend *mempack;
	git_oid tips[CATAN_MAX_PLAYERS];

	/*
	 * The branch tips, read once for the length of a sync
	 * (store_hold_tips): this handle holds the writer lock, so only it
	 * moves them, through store_move_branch, which keeps them current.
	 */
	bool tips_held;
	git_oid held_tips[CATAN_MAX_PLAYERS];
	/*
	 * Branches sync adopted and has not written yet (adopt_tips in
	 * sync.c): held_tips has where they go, from move_old. They are all
	 * written at once, with the remote-tracking refs, in one write of
	 * packed-refs.
	 */
	bool move_pending[CATAN_MAX_PLAYERS];
	git_oid move_old[CATAN_MAX_PLAYERS];
	/*
	 * How many refs refs/catan/held/ holds, plus one; 0 when not counted
	 * since this handle last wrote or removed one (sync.c): a sync only
	 * looks for the held tips of a remote when there are any.
	 */
	int held_refs;
	/* The same for refs/catan/quarantine/ and refs/catan/refused/. */
	int quar_refs;

	/*
	 * The trees this handle built (act, verify) or copied (sync) last: a
	 * new commit's parent tree is nearly always among them.
	 */
	store_tree_memo trees[STORE_TREE_MEMO];
	int trees_next;
	store_blob_memo blobs[CATAN_FILES_MAX]; /* by index in the file set */

	/* "name <email>" of reflog lines (user.name, user.email or unknown). */
	char ident[256];
	/* core.logAllRefUpdates is true or always: a missing reflog of a
	 * branch is made when it moves (write_ref in store.c). */
	bool log_all;

	/*
	 * The states of the last commits sync verified: the next sync's
	 * commits build on them (a discard merge on the 7-roll commit and
	 * the discards, which the single cached state below cannot all be).
	 */
	store_state_memo states[STORE_STATE_MEMO];
	int states_next;

	/* The last state this handle committed, to skip decoding it. */
	bool cached, cache_discard;
	git_oid cache_id;
	catan_state cache_state;

	/*
	 * Sync (sync.c): repositories of path remotes, opened at their first
	 * sync and kept open; and the pack (pack.h) that objects copied from
	 * them are compressed into as they come, written with its index
	 * before anything points at them (the object database does not see
	 * it until then).
	 */
	struct store_peer *peers;
	int npeers;
	struct store_pack *stage;
	bool packs_added; /* by this sync: see whether to merge some */
	/*
	 * The limits of the sync under way, and when the time of the remote
	 * being synced is up (CLOCK_MONOTONIC, ms; 0: no deadline).
	 */
	store_limits lim;
	double deadline_ms;
};

/* CLOCK_MONOTONIC in ms. */
double store_now_ms(void);
/* Whether the remote being synced is past its CATAN_SYNC_REMOTE_MS. */
bool store_past_deadline(const catan_store *s);

/*
 * Whether the raw commit raw[0..len) (as stored: headers, a blank line,
 * the message) has exactly the form catan writes: "tree", "parent" lines
 * (at most STORE_MAX_PARENTS), "author" and "committer" (the same player,
 * "P <P@catan> SECONDS +HHMM"), no other header (no gpgsig, no encoding,
 * no mergetag), no NUL byte, a message of at most s->lim.message bytes
 * "SUBJECT\n\nPlayer: P\nTurn: N\n", then "Dice: A B\n" (each 1..6) if
 * and only if the subject is a roll, and nothing after it, the subject
 * an action in canonical form ("merge discards" for a merge). Says
 * nothing about whether the action is legal (the replay does). 0, or 1
 * and why (naming the limit when one is passed). Cannot fail otherwise.
 */
int store_commit_form(const catan_store *s, const char *raw, size_t len,
		      char *why, size_t whylen);

/*
 * Removes each remote-tracking ref that points where a quarantine record
 * says that branch was refused (refs/catan/quarantine/): nothing then
 * keeps the refused history, and catan gc reclaims it. A later sync does
 * not bring it back (a refused tip is not fetched or copied again).
 */
void store_quarantine_untrack(catan_store *s);

/* Closes what sync kept open (peers, stage). Cannot fail. */
void store_sync_free(catan_store *s);

/*
 * Takes the repository's writer lock (blocking) and removes the lock files
 * a killed catan writer left behind, those it recorded with store_intent
 * (never any other). readonly: a shared lock, nothing created or removed.
 * Returns 0 or -1.
 */
int store_lock(catan_store *s, bool readonly, catan_err *err);

/*
 * Records in catan.lock, before a step that may create the lock file rel
 * (a path under the git directory, ending in ".lock"), that catan is about
 * to take it: a writer that finds it there after a crash may remove it
 * (spec/format.md, "Locks"). No-op for a reader. Returns 0 or -1 (errno).
 */
int store_intent(catan_store *s, const char *rel);

/*
 * The step is over (its lock files renamed or removed): forgets the lines
 * recorded since s->intent_len was `mark`. Cannot fail.
 */
void store_intent_done(catan_store *s, size_t mark);

/*
 * fsync of the directory `dir`, after a file in it was created or renamed:
 * the entry itself survives a power loss then. Returns 0 or -1 (errno).
 */
int store_fsync_dir(const char *dir);

/*
 * syncfs of the file system holding the repository: every file written
 * so far (and the directories they are in) on disk, for one flush of the
 * disk's cache. Returns 0 or -1 (errno).
 */
int store_syncfs(catan_store *s);

/* The same for the file system holding the directory dir. */
int store_syncfs_dir(const char *dir);

/*
 * fsync of every file and directory of the new repository at path, and of
 * the directory holding it: what libgit2 writes when it makes a repository
 * (HEAD, config) is not fsync'ed, and a repository made by create or join
 * is reported done. Returns 0, or -1 with err.
 */
int store_fsync_repo(const char *path, catan_err *err);

/*
 * Removes what repository init copied from git's template (sample hooks,
 * info/, description, empty refs/tags and objects/info): a game uses none.
 */
void store_drop_template(const char *gitdir);

/* Fills err with a formatted sentence; returns -1. */
int store_fail(catan_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "what: <libgit2's last error>"; returns -1. */
int store_git_fail(catan_err *err, const char *what);

/*
 * ssh:// remotes (ssh.c): keys to log in with and the host-key check that
 * libgit2 1.5 leaves to its caller. Fill a git_remote_callbacks with
 * store_ssh_callbacks(cb, &st, url) before connecting; on failure,
 * store_ssh_fail names what ssh refused, or libgit2's error otherwise.
 */
typedef struct store_ssh {
	int next; /* the next kind of key to offer */
	int port;
	char tried[256];
	char why[1024];
} store_ssh;
void store_ssh_callbacks(git_remote_callbacks *cb, store_ssh *st,
			 const char *url);
int store_ssh_fail(const store_ssh *st, catan_err *err, const char *what);
/* 0 when known_hosts holds this raw key for host:port, else -1 and why. */
int store_ssh_check_host(store_ssh *st, const char *host, int port,
			 int raw_type, const char *key, size_t len);

/* Registers the TCP stream with connect and I/O time limits (net.c) in
 * place of libgit2's own; call after each git_libgit2_init(). */
int store_net_register(void);
/* libgit2 initialised (once more: it counts) with our stream registered. */
void store_lib_init(void);
/*
 * Why the watcher of net.c last cut a connection (idle or past its
 * deadline, naming host and port): true and copied into buf when it has
 * since store_net_cut_forget. For the transports that bypass our reads
 * (ssh: libssh2 reports only that the socket closed).
 */
void store_net_cut_forget(void);
bool store_net_cut(char *buf, size_t n);

/*
 * Makes way for a new repository at `path`: nothing there, or an empty
 * directory (removed). Otherwise -1 and err says why, ending "refusing to
 * <what>".
 */
int store_claim_dir(const char *path, const char *what, catan_err *err);

/*
 * Room for `need` elements of `elem` bytes in the array `a` of capacity
 * *cap: `a` itself when it has the room, else a larger copy (at least
 * double, at least `need`, at least 16) with *cap updated; NULL when out
 * of memory, `a` and *cap then untouched.
 */
void *store_reserve(void *a, size_t *cap, size_t need, size_t elem);

void store_oid_hex(catan_commit_id *out, const git_oid *id);
void store_email(char *out, size_t size, const char *name);

/*
 * Remembers the bytes of tree `id` (at most 1 KiB; the oldest of
 * STORE_TREE_MEMO is forgotten), and recalls them: NULL when not kept
 * (*len may be NULL). Cannot fail.
 */
void store_tree_remember(catan_store *s, const git_oid *id,
			 const unsigned char *data, size_t len);
const unsigned char *store_tree_recall(const catan_store *s, const git_oid *id,
				       size_t *len);

/* Tree id of a file set (state files; game/ is added); writes if asked. */
int store_tree_of(git_oid *out, catan_store *s, const catan_files *files,
		  bool write);
/* Tree id of the encoding of st; writes the objects if asked. */
int store_state_tree(git_oid *out, catan_store *s, const catan_state *st,
		     bool write);
/* Decodes the state held by tree `tree` (strict: see the codec). */
int store_read_state(catan_state *out, catan_store *s, const git_oid *tree,
		     catan_err *err);

/*
 * Writes a commit (message: store_message of subject, the author's name,
 * turn and dice: the rolled dice on a roll commit, NULL on any other).
 */
int store_commit(git_oid *out, catan_store *s, int author, const char *subject,
		 int turn, const uint8_t *dice, const git_oid *tree_id,
		 const git_oid *parents, int nparents, catan_err *err);
/*
 * The message catan writes: "SUBJECT\n\nPlayer: P\nTurn: N\n", then
 * "Dice: A B\n" when dice is not NULL (a roll: the dice the state holds
 * after it). Truncated to size; cannot fail.
 */
void store_message(char *out, size_t size, const char *subject,
		   const char *player, int turn, const uint8_t *dice);
/*
 * The Dice trailer of a message: 1 with dice[0..1] (each 1..6) when the
 * message has a line "Dice: A B", 0 with 0,0 when it has none, -1 when
 * it has one that does not parse. Says nothing about where it stands
 * (the exact form is checked by rebuilding the message).
 */
int store_trailer_dice(const char *message, uint8_t dice[2]);
/* Fast-forwards (or creates, old == NULL) a player's branch. */
int store_move_branch(catan_store *s, int player, const git_oid *old,
		      const git_oid *id, const char *why, catan_err *err);
int store_branch_tip(git_oid *out, catan_store *s, int player);
/*
 * Reads every branch tip once; store_branch_tip answers from memory until
 * s->tips_held is cleared (the end of a sync). -1 when a branch is missing
 * (nothing held then).
 */
int store_hold_tips(catan_store *s);

/*
 * Is commit `anc` an ancestor of (or equal to) `desc`? 1, 0, or -1 when a
 * commit cannot be read. Walks back from desc only through the turns since
 * anc's (Turn trailers never decrease along a valid history), so it costs
 * what happened since anc, not the game's length. libgit2's
 * git_graph_descendant_of orders its walk by commit time; commits made in
 * the same second tie, and it then walks the whole history.
 */
int store_is_ancestor(catan_store *s, const git_oid *anc, const git_oid *desc);

/* Integer value of a "Key: N" trailer in a commit message, or -1. */
int store_trailer_int(const char *message, const char *key);

/*
 * Verifies the commits reachable from newtips[p] (one per player) that the
 * local branches do not hold yet, trusting the local branches (verified
 * when they were adopted). Reads only the repository; when every new
 * commit is valid, the state of the newest one becomes the handle's cached
 * state (the next action or sync starts from it). Returns -1 only if it
 * cannot run.
 */
int store_verify_new(catan_store *s, const git_oid *newtips,
		     catan_verify_report *rep, catan_err *err);

#define STORE_MERGE_SUBJECT "merge discards"

/*
 * Creates a game (catan_store_create_ext); a signed game's genesis is signed
 * with `first`, the first seat's key (NULL for an unsigned game).
 */
int store_create(catan_store **out, const char *path, const catan_game *g,
		 catan_time_mode time, bool batch, const catan_key *first,
		 catan_err *err);

/*
 * Loads the keys the repository's config names (catan.key, one or more
 * paths) into the seats they belong to; what fails is noted in key_note
 * for the error of a later commit (keys.c). Cannot fail.
 */
void store_keys_load(catan_store *s);

#endif
