/*
 * repo.h - layer 2 of src/store: the repository primitives. The handle
 * (struct catan_store), the writer lock and the lock files catan takes
 * (lock.c), objects and the memos of what was written (odb.c), branch
 * moves and their reflogs (refs.c), one write of packed-refs for many
 * refs (packed_refs.c), the form of a commit message and the seat its
 * author names (message.c) and ancestry bounded by turns (graph.c).
 * repo.c initialises libgit2 with our transport and makes writes durable.
 *
 * Uses base.h and net.h only; nothing here knows the game's rules,
 * verification or peers.
 */
#ifndef CATAN_STORE_REPO_H
#define CATAN_STORE_REPO_H

#include <git2.h>

#include "base.h"
#include "catan/codec.h"
#include "catan/sign.h"
#include "catan/store.h"
#include "oidmap.h"

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

/*
 * Fair dice: every anchored seat's last published chain value (bit p of
 * `anchored`: seat p has one), kept beside a catan_state and stored as
 * the files fair-<seat> of its tree (fair.c).
 */
typedef struct store_fair {
	uint8_t head[CATAN_MAX_PLAYERS][32];
	uint8_t anchored;
} store_fair;
/* Values a chain holds after its anchor (one per chance outcome). */
#define STORE_FAIR_CHAIN 4096

/* A verified commit's state, kept for the next sync's replay. */
#define STORE_STATE_MEMO 8
typedef struct store_state_memo {
	git_oid id; /* zero: empty slot */
	catan_state state;
	store_fair fair;
} store_state_memo;

/* The remotes whose push records wait (catan_store.pushed); those fetched
 * whole (catan_store.whole). */
enum { STORE_PUSHED_MAX = 8, STORE_WHOLE_MAX = 4 };

struct catan_store {
	/*
	 * Layer 2 (repo): the repository, its object database, the game and
	 * its genesis, the writer lock (lock.c), the tips (refs.c), the
	 * memos of trees and blobs (odb.c), the reflog identity.
	 */
	git_repository *repo;
	git_odb *odb;
	catan_game game;
	/*
	 * The secret keys this handle signs with, by seat (NULL: none; a
	 * signed game refuses to commit for a seat without one). Owned,
	 * wiped when freed (catan_store_set_key, keys.c).
	 */
	catan_key *keys[CATAN_MAX_PLAYERS];
	char key_note[320]; /* why a configured key did not load */
	/* Fair dice: a seat's hash chain, computed on first use (fair.c). */
	uint8_t (*fair_chain[CATAN_MAX_PLAYERS])[32];
	git_oid genesis;
	git_oid game_tree; /* id of game/, shared by every state tree */
	/*
	 * A lobby (spec/replication.md, "Keys and signatures"): the game the
	 * genesis holds (lobby.open: its open seats; 0 when it has no lobby)
	 * and its game/. Until the start binds every seat, game and
	 * game_tree are these; once the start is known (on the first seat's
	 * branch, or checked by a verification under way) they are the
	 * start's (lobby.c, store_lobby_load).
	 */
	catan_game lobby;
	git_oid lobby_tree;
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
	/*
	 * <gitdir>/catan.moves, the last two branch moves (refs.c), open
	 * once a writer moved a branch (moves_open); moves_seq: the number
	 * of the last one written.
	 */
	bool moves_open;
	int moves_fd;
	unsigned long long moves_seq;

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
	 * Whether the last sync of this handle ended well. Until one has,
	 * each URL remote's tips are adopted even when its remote-tracking
	 * refs already stood there: a sync that failed after the fetch moved
	 * them (or a process stopped there, by a crash or a kill) left them
	 * ahead of the branches, and nothing else would adopt them before
	 * the remote moved again, which may wait for this player. (A path
	 * remote's tips are compared with the branches themselves.)
	 */
	bool synced;
	/*
	 * Where a push over https (http_push.c, one POST) left this peer's
	 * branch on a host, its remote-tracking ref not written then (a lock
	 * file, its reflog and four fsyncs a push): the host's list moves
	 * that ref at the next sync, in its one packed-refs write (settle),
	 * and a fetch from that host drops the entries for it (its list is
	 * newer); catan_store_free writes what is left. Until then the ref
	 * is behind the host, as
	 * after any push that a process did not live to record: a cache the
	 * next list sets right, never read to decide what to adopt.
	 */
	struct {
		char ref[256];
		git_oid old, id; /* old: zero when there was none */
	} pushed[STORE_PUSHED_MAX];
	int npushed;
	/*
	 * Branches sync adopted and has not written yet (store_adopt_tips in
	 * adopt.c): held_tips has where they go, from move_old. They are all
	 * written at once, with the remote-tracking refs, in one write of
	 * packed-refs.
	 */
	bool move_pending[CATAN_MAX_PLAYERS];
	git_oid move_old[CATAN_MAX_PLAYERS];
	/* The remotes fetched whole for that (sync.c refetch_whole): each
	 * with the tips of the branches that lacked objects then (zero: a
	 * branch that did not), the last STORE_WHOLE_MAX of them. */
	struct {
		char remote[128];
		git_oid tips[CATAN_MAX_PLAYERS];
	} whole[STORE_WHOLE_MAX];
	int nwhole;
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
	 * Layers 3-5 (state, log, verify): the states of the last commits
	 * sync verified: the next sync's
	 * commits build on them (a discard merge on the 7-roll commit and
	 * the discards, which the single cached state below cannot all be).
	 */
	store_state_memo states[STORE_STATE_MEMO];
	int states_next;

	/*
	 * The expulsion that settles the recorded equivocation, once found
	 * (verdict.c: store_verdict_voids asks for it at every sync).
	 */
	bool expel_known;
	git_oid expel_id;
	int expel_seat;

	/* The last state this handle committed, to skip decoding it. */
	bool cached, cache_discard;
	git_oid cache_id;
	catan_state cache_state;
	store_fair cache_fair;

	/*
	 * Layer 6 (exchange: peer.c, path_remote.c, repack.c): repositories of
	 * path remotes, opened at their first sync and kept open; and the pack
	 * (pack.h) that objects copied from them are compressed into as they
	 * come, written with its index before anything points at them (the
	 * object database does not see it until then).
	 */
	struct store_peer *peers;
	int npeers;
	struct store_pack *stage;
	bool packs_added; /* by this sync: see whether to merge some */
	/*
	 * The names of the pack this sync wrote are not known to be on disk
	 * yet (store_stage_flush): the next syncfs puts them there, and
	 * store_pack_named before any other durable write points into it.
	 */
	bool pack_unnamed;
	/*
	 * The commits this handle found of the right form, signature included
	 * (store_commit_form), as a sync copied them: a commit's id is the
	 * hash of its bytes, so verify need not check them again; the limits
	 * the form checks against when they were checked (form_lim: message,
	 * object; the set is emptied when they change).
	 */
	oid_map form_ok;
	long form_lim[2];
	/* The limits and clock of the sync under way (base.h). */
	store_budget budget;
};

/* ---- repo.c ---- */

/* libgit2 initialised (once more: it counts) with our stream registered. */
/*
 * store_commit_form of commit `id`, whose bytes are raw[0..len) (the
 * caller checked that they hash to id): answered from s->form_ok when
 * this handle found them right before, under the same limits; a commit
 * found right is added. 0, or 1 and why.
 */
int store_commit_form_id(catan_store *s, const git_oid *id, const char *raw,
			 size_t len, char *why, size_t whylen);

void store_lib_init(void);
/* A new handle (calloc'ed, no lock, libgit2 initialised), or NULL. */
catan_store *store_new(void);
/*
 * syncfs of the file system holding the repository: every file written
 * so far (and the directories they are in) on disk, for one flush of the
 * disk's cache. Returns 0 or -1 (errno).
 */
int store_syncfs(catan_store *s);
/*
 * The names of the pack this sync wrote on disk (an fsync of objects/pack)
 * if no syncfs did it since: before a ref written through libgit2 (which
 * fsyncs only the ref's own file and directory) points into the pack.
 * Returns 0 or -1 (errno).
 */
int store_pack_named(catan_store *s);
/*
 * The name and e-mail of reflog lines and core.logAllRefUpdates, read
 * once into s->ident and s->log_all. Best effort.
 */
void store_reflog_ident(catan_store *s);

/* ---- lock.c ---- */

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

/* ---- odb.c ---- */

/* Loose object writes without libgit2's fsync of each (see odb.c). */
void store_objects_batch(bool on);
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
/*
 * Writes the tree game/ of the two files of an encoded game (files, as
 * catan_codec_encode_game makes them) into s->game_tree. 0 or -1.
 */
int store_game_tree(catan_store *s, const catan_files *files);
/* The same for any game's files, into *out; hashed only unless write. */
int store_game_tree_id(git_oid *out, catan_store *s, const catan_files *files,
		       bool write);

/* ---- refs.c ---- */

/* Fast-forwards (or creates, old == NULL) a player's branch. */
/*
 * After a power cut, finishes the branch moves catan.moves records whose
 * data reached the disk but whose rename did not (refs.c; spec/format.md,
 * "Durability"). Called by the writer, under catan.lock, after the lock
 * files a killed writer left are removed. Best effort: 0, or -1 when a
 * move that should be finished could not be (errno).
 */
int store_recover_moves(catan_store *s);
int store_move_branch(catan_store *s, int player, const git_oid *old,
		      const git_oid *id, const char *why, catan_err *err);
int store_branch_tip(git_oid *out, catan_store *s, int player);
/*
 * Every seat's branch tip, in seat order, into out (a missing branch is
 * left out), each followed by also[p] when also is not NULL: out holds
 * CATAN_MAX_PLAYERS ids, twice that with also. The number put; cannot
 * fail.
 */
int store_branch_tips(git_oid *out, catan_store *s, const git_oid *also);
/*
 * Reads every branch tip once; store_branch_tip answers from memory until
 * s->tips_held is cleared (the end of a sync). -1 when a branch is missing
 * (nothing held then).
 */
int store_hold_tips(catan_store *s);

/*
 * Moves a player's branch back from `old` to `to`, an ancestor: only for an
 * equivocation's verdict (verdict.c), which stops the game at the commit
 * both children build on. 0 or -1.
 */
int store_rewind_branch(catan_store *s, int player, const git_oid *old,
			const git_oid *to, catan_err *err);

/* ---- verdict.c ---- */

typedef struct store_verdict {
	int seat;	  /* who signed both */
	git_oid parent;	  /* the commit both build on: the game stops there */
	git_oid child[2]; /* the two children */
} store_verdict;

/* 1 and the record when there is one, 0 when none, -1 when unreadable. */
int store_verdict_read(catan_store *s, store_verdict *out);
/*
 * 1 and the record when it stops the game (its seat not expelled in the
 * current position: act.c), else 0.
 */
int store_verdict_stops(catan_store *s, store_verdict *v);
/* The expelled seats of the current position (bit p: seat p), or 0. */
unsigned store_out_seats(catan_store *s);
/*
 * The expelled seat of v's branch to its last move before the fork
 * (store_seat_last), forward or back: the same at every peer. 0 or -1.
 */
int store_expelled_back(catan_store *s, const store_verdict *v, catan_err *err);
/* Writes the record (and keeps both children); 0 or -1. */
int store_verdict_write(catan_store *s, const store_verdict *v, catan_err *err);
/*
 * Whether `id` is a child of the fork by the equivocating seat (one of
 * the two recorded or another) or builds on one: what the game stops
 * before. Not an expulsion settling v, nor what builds on one (its
 * proof's children are among its parents). Walks at most
 * STORE_VOIDS_WALK commits since the parent.
 */
#define STORE_VOIDS_WALK 100000L
bool store_verdict_voids(catan_store *s, const store_verdict *v,
			 const git_oid *id);
/*
 * The proof an expulsion carries (spec/replication.md, "Expulsion"):
 * commit c says "expel <seat>", has three or more parents, and its last
 * two are two different commits by that seat with one first parent.
 * Into *v (not checked further: the children's signatures and actions
 * are verify's). false when c is no such commit.
 */
bool store_expel_proof(catan_store *s, git_commit *c, store_verdict *v);
/*
 * An expulsion of v's seat (its proof at any fork of that seat: one
 * expulsion settles them all), reachable from one of from[0..n-1] and not
 * from v's parent (at most STORE_VOIDS_WALK commits walked), into *z (may
 * be NULL): 1 found, 0 not.
 */
int store_expel_find(catan_store *s, const store_verdict *v,
		     const git_oid *from, int n, git_oid *z);
/*
 * Seat p's newest commit in the history of `at` (itself included), or
 * the genesis: where an expelled seat's branch stands for good.
 */
int store_seat_last(catan_store *s, int p, const git_oid *at, git_oid *out);
/*
 * Whether v's two children are two expulsions of one seat, both by v's
 * seat (the seat that expelled signed two): then the game stops for good
 * at v's parent, and *inner (may be NULL) is the proof the first one
 * carries.
 */
bool store_verdict_twins(catan_store *s, const store_verdict *v,
			 store_verdict *inner);
/*
 * Whether the game v stops can never go on: v's children are twins
 * (above), or two starts of a lobby (the game never began). Nobody is
 * expelled then, and nobody acts.
 */
bool store_verdict_final(catan_store *s, const store_verdict *v);
/* Whether `id` is one of the two recorded children or builds on one. */
bool store_verdict_recorded(catan_store *s, const store_verdict *v,
			    const git_oid *id);
/*
 * Seat p's commits reachable from `from` and not from `hide`, walked (at
 * most STORE_VOIDS_WALK commits of any seat): store_side_open, then
 * store_side_next gives each commit by the seat (its id, and its first
 * parent into *up; a root commit is none) until it returns -1; then
 * git_revwalk_free(sw.w), also after a failed open.
 */
typedef struct store_side_walk {
	git_revwalk *w;
	const char *name;
	long left;
} store_side_walk;
int store_side_open(store_side_walk *sw, catan_store *s, int p,
		    const git_oid *from, const git_oid *hide);
int store_side_next(store_side_walk *sw, catan_store *s, git_oid *id,
		    git_oid *up);

/* ---- packed_refs.c ---- */

/*
 * A ref to move in one write of packed-refs: a remote-tracking ref of
 * peer number `peer` for `player`, or (peer < 0) the branch of `player`.
 * packed: its loose file is known to be gone (in), set when the write
 * removed it (out).
 */
typedef struct tracking {
	char ref[256];
	git_oid old, id;  /* old: zero when there is none */
	int peer, player; /* s->peers[peer] (which may move as it grows) */
	bool packed;
} tracking;
/* tracking.peer: a branch (-1), a path remote's remote-tracking ref
 * (s->peers[peer], player), or a URL remote's (STORE_TRACK_URL). */
enum { STORE_TRACK_BRANCH = -1, STORE_TRACK_URL = -2 };
/* Moves the refs t[0..n) in one write of packed-refs (packed_refs.c). */
int store_write_packed(catan_store *s, git_config *cfg, tracking *t, int n,
		       char *why, size_t whylen);

/* ---- message.c ---- */

#define STORE_MERGE_SUBJECT "merge discards"

void store_email(char *out, size_t size, const char *name);
/*
 * The seat commit c's author names (exactly a player's name), or -1 when
 * it has none or names no player. What the commit says, not who wrote it:
 * in a signed game only a signature checked by store_commit_form says
 * that (the caller's to check). Cannot fail.
 */
int store_author_seat(const catan_store *s, const git_commit *c);
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
/* Integer value of a "Key: N" trailer in a commit message, or -1. */
int store_trailer_int(const char *message, const char *key);

/* ---- graph.c ---- */

/* The Turn trailer of commit id, or -1 when it cannot be read. */
int store_turn_of(catan_store *s, const git_oid *id);
/*
 * Calls fn on every commit reachable from `from` whose turn is at least
 * floor (see graph.c). fn returns 0 (go on), -2 (not past this one), or
 * anything else to stop with it. Returns 0, fn's, or -1.
 */
int store_walk_turns(catan_store *s, const git_oid *from, int floor,
		     int (*fn)(git_commit *c, void *arg), void *arg);
/* A walk_turns callback adding each commit to the oid_map (set) arg. */
int store_walk_collect(git_commit *c, void *arg);
/*
 * Is commit `anc` an ancestor of (or equal to) `desc`? 1, 0, or -1 when a
 * commit cannot be read. Walks back from desc only through the turns since
 * anc's (Turn trailers never decrease along a valid history), so it costs
 * what happened since anc, not the game's length. libgit2's
 * git_graph_descendant_of orders its walk by commit time; commits made in
 * the same second tie, and it then walks the whole history.
 */
int store_is_ancestor(catan_store *s, const git_oid *anc, const git_oid *desc);
/*
 * Does `new` hold `old` in its history (a branch moving forward)? 1 yes,
 * 0 no, -2 a commit on the way is missing, -1 a commit cannot be read.
 * By the turns since old's first (store_is_ancestor); that walk does not
 * go past a commit without a Turn trailer (a forgery), so then by plain
 * ancestry (store_descends): a forgery on the way is found by the
 * verification, which says what is wrong with it, and is not called a
 * rewritten history.
 */
int store_moves_forward(catan_store *s, const git_oid *old, const git_oid *new);

#endif
