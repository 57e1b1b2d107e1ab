/*
 * exchange.h - layer 6 of src/store: what a sync does with one remote.
 *   fetch.c        fetches a URL remote through libgit2 (the only fetch)
 *   peer.c         path remotes: their repositories opened and read
 *                  directly, and the stage (the pack of copied objects)
 *   copy.c         copies the commits a path remote has and we lack
 *   path_remote.c  one path remote synced: tips read, history copied
 *   quarantine.c   refused branches recorded (refs/catan/quarantine/),
 *                  held-back tips (refs/catan/held/)
 *   adopt.c        verifies what arrived (verify.h) and moves branches
 *   repack.c       merges the small packs syncs leave
 * Used by sync.c, join.c, gc.c and http_serve.c (layer 7) only. The
 * contract of each function is written above its definition.
 */
#ifndef CATAN_STORE_EXCHANGE_H
#define CATAN_STORE_EXCHANGE_H

#include "net.h"
#include "pack.h"
#include "repo.h"
#include "verify.h"

/* ---- peer.c ---- */

/*
 * A remote that is a directory on this machine is read directly: its
 * repository is opened (once per store handle), its branches read, and
 * the commits this peer lacks copied with their trees and blobs into the
 * stage, each object hashed again as it is copied. The stage is then
 * written as one pack, and only after that does anything (a branch, a
 * quarantine ref) point at what came. libgit2's local transport would do
 * the same work through a fetch: a pack and its index, every remote branch
 * as a remote-tracking ref, a lock file per ref; here a sync with one new
 * commit writes the pack and the branches that move, nothing else.
 */
typedef struct store_peer {
	char *name, *path;
	git_repository *repo;
	git_odb *odb;
	/* Its remote-tracking refs here, as this handle last read or
	 * wrote them (it alone writes them: it holds the writer lock). */
	git_oid tracked[CATAN_MAX_PLAYERS];
	bool tracked_known[CATAN_MAX_PLAYERS];
	bool packed[CATAN_MAX_PLAYERS]; /* and only in packed-refs */
	/* Loose-object directories seen to be directories (not symlinks
	 * out of the repository) in this sync: by their first byte. */
	bool fan_ok[256];
} store_peer;

/* An object read from a peer: its content, owned by one of the two. */
typedef struct peer_obj {
	unsigned char *buf; /* malloc'ed: read from a loose file */
	git_odb_object *o;  /* or read through the peer's object database */
	const unsigned char *data;
	size_t len;
} peer_obj;

/* Closes what sync kept open (peers, stage). Cannot fail. */
void store_sync_free(catan_store *s);
const char *store_local_dir(const char *url);
store_peer *store_peer_open(catan_store *s, const char *name, const char *path);
int store_stage_init(catan_store *s);
void store_stage_drop(catan_store *s);
int store_stage_flush(catan_store *s, catan_err *err);
void store_peer_obj_free(peer_obj *po);
int store_peer_open_file(const char *path);
int store_peer_plain(const char *gitdir, char *why, size_t whylen);
int store_peer_read(store_peer *pe, const git_oid *id, git_object_t type,
		    long max, peer_obj *po);

/* ---- copy.c ---- */

bool store_listed(const git_oid *list, size_t n, const git_oid *id);
int store_copy_history(catan_store *s, store_peer *pe, const git_oid *tip,
		       const git_oid *held, int nheld, const git_oid *refused,
		       git_oid *bad, char *why, size_t whylen);

/* ---- path_remote.c ---- */

int store_read_path_remote(catan_store *s, git_config *cfg, const char *name,
			   git_oid *tips, bool *has, git_oid *ev, bool *hasev,
			   bool *changed, tracking *t, int *nt,
			   catan_sync_report *rep);

/* ---- quarantine.c ---- */

/*
 * The refs under refs/catan/quarantine/ and refs/catan/refused/ of repo,
 * counted once into *count (kept as the count plus one; 0: not counted
 * yet, which any write of such a ref sets again). 1 when it cannot tell.
 */
int store_record_count(git_repository *repo, int *count);
int store_quarantine_read(catan_store *s, const char *remote, int p,
			  git_oid *tip, git_oid *bad);
bool store_quarantined_at(catan_store *s, const char *remote, int p,
			  const git_oid *id);
void store_quarantine(catan_store *s, const char *remote, int p,
		      const git_oid *tip, const git_oid *bad, bool off,
		      const char *why, git_odb *also);
bool store_builds_on_rejected(catan_store *s, const char *remote, int p,
			      const git_oid *tip, const git_oid *local,
			      int floor);
/*
 * Removes each remote-tracking ref that points where a quarantine record
 * says that branch was refused (refs/catan/quarantine/): nothing then
 * keeps the refused history, and catan gc reclaims it. A later sync does
 * not bring it back (a refused tip is not fetched or copied again).
 */
void store_quarantine_untrack(catan_store *s);
bool store_remote_has_held(catan_store *s, const char *remote);
/*
 * Whether a remote-tracking ref of `remote` stands where no branch here
 * does (nor behind one), and no quarantine record of that branch names
 * that tip: what a sync stopped before its adoption leaves (see
 * catan_store.synced).
 */
bool store_remote_unadopted(catan_store *s, const char *remote);
bool store_hold_back(catan_store *s, const char *remote, int p,
		     const git_oid *tip);
void store_release_held(catan_store *s, const char *remote, const bool *has,
			const bool *held);

/* ---- adopt.c ---- */

int store_adopt_tips(catan_store *s, const char *remote, const git_oid *tips,
		     const bool *has, unsigned *refetch, catan_sync_report *rep,
		     catan_err *err);
int store_adopt_remote(catan_store *s, const char *remote, unsigned *refetch,
		       catan_sync_report *rep, catan_err *err);
/*
 * The tips of remote `remote` (tips[p] where has[p]): its remote-tracking
 * refs, or where moves[0..nmoves) moves one (a fetch's, not written yet),
 * the id it moves to.
 */
void store_remote_tips(catan_store *s, const char *remote,
		       const tracking *moves, int nmoves, git_oid *tips,
		       bool *has);
/*
 * The evidence remote `remote` serves (ev[i] where has[i]: the two
 * children its equivocation record names, STORE_EVIDENCE_REF), offered
 * to this peer's record: when they are a proof (two children of one
 * commit signed by one seat, each valid by every check of a commit) that
 * this peer keeps by the rule of better_proof, recorded
 * (found_equivocation). Evidence that is no proof is said in rep and
 * otherwise ignored: it is never adopted onto a branch nor held against
 * the remote's branches. 0, or -1 with err when the record cannot be
 * written.
 */
int store_adopt_evidence(catan_store *s, const char *remote, const git_oid *ev,
			 const bool *has, catan_sync_report *rep,
			 catan_err *err);
/*
 * Judges evidence ev[0], ev[1] (the two children an equivocation record
 * names, served by a peer or pushed to a shared repository) against old
 * (the record kept here; NULL: none), each child verified against the
 * branches at tips[] (NULL: the branches here; a hook passes the tips a
 * push brings, already verified): STORE_EV_PROOF, the proof to keep
 * of the two into *v (its children the smaller id first), when they are
 * one (two children of one commit signed by one seat),
 * the record would keep it (better_proof) and each child not in old
 * passes every check of a commit; STORE_EV_NONE and why when they are
 * no proof or a child is invalid; STORE_EV_WORSE when old is the one
 * kept; STORE_EV_LATER when a child cannot be judged yet (the commits
 * before it are not all here, or the time is up). -1 with err when the
 * verification cannot run.
 */
enum { STORE_EV_NONE, STORE_EV_PROOF, STORE_EV_LATER, STORE_EV_WORSE };
/* Whether proof v is kept over old (better_proof: an earlier fork, or at
 * one fork the smaller seat, or smaller children's ids). */
bool store_evidence_better(catan_store *s, const store_verdict *old,
			   const store_verdict *v);
/*
 * The evidence of remote `remote` as its last fetch left it
 * (refs/catan/evidence/<remote>/a and /b, or what moves[0..nmoves) moves
 * them to: ev[i] where has[i]); none in a game that is not signed.
 */
void store_remote_evidence(catan_store *s, const char *remote,
			   const tracking *moves, int nmoves, git_oid *ev,
			   bool *has);
int store_evidence_judge(catan_store *s, const git_oid *ev,
			 const store_verdict *old, const git_oid *tips,
			 store_verdict *v, char *why, size_t n, catan_err *err);
/* Whether ev[0], ev[1] are a proof by their form alone (signatures, one
 * seat, one first parent; nothing verified): into *v. */
bool store_evidence_proof(catan_store *s, const git_oid *ev, store_verdict *v);
/*
 * Whether ev[0], ev[1] are the children record v names: 1 in the order it
 * keeps them (the smaller id first, as the refs -a and -b hold them), -1
 * the other way round, 0 when they are not that pair.
 */
int store_evidence_same(const git_oid *ev, const store_verdict *v);
/*
 * Whether `tip` would misplace player p's branch: a branch ends at its
 * owner's own commit or the genesis (the model's M_TIPOWNER), as a sync
 * and the host hook take it. *who: the seat that wrote tip (-1: nobody).
 * A commit that cannot be read is not judged here (false): its
 * verification says what is wrong.
 */
bool store_tip_misplaced(catan_store *s, int p, const git_oid *tip, int *who);

/* ---- fetch.c ---- */

/*
 * What a fetch needs, and no more: the repository, the limits and clock
 * of the remote, the count of refusal records (store_record_count), and
 * the handle whose quarantine says which heads not to download again
 * (NULL in a join, before there is a game: nothing is quarantined yet).
 */
typedef struct store_fetch {
	git_repository *repo;
	const store_budget *budget;
	int *records;
	catan_store *s;
	/*
	 * Where an https fetch over the kept connection leaves the moves of
	 * the remote-tracking refs (peer STORE_TRACK_URL), for the sync to
	 * write in its one write of packed-refs with the branches it adopts
	 * (room for STORE_FETCH_MOVES); NULL: the fetch writes them.
	 */
	tracking *moves;
	int nmoves;
	/* The configuration to read the remote's URL from (NULL: a
	 * snapshot of the repository's is taken). */
	git_config *cfg;
	/* Set by store_fetch_remote when the fetch went through libgit2
	 * (which asks only for commits that are not here). */
	bool through_libgit2;
} store_fetch;
enum { STORE_FETCH_MOVES = CATAN_MAX_PLAYERS + 2 };
/*
 * Fetches every refs/heads/ branch of remote `name` into
 * refs/remotes/name/ (see fetch.c). 0; -2 when a limit cut it (err says
 * which); -1 otherwise.
 */
int store_fetch_remote(store_fetch *f, const char *name, bool *changed,
		       catan_err *err);
/*
 * Fetches every refs/heads/ branch of remote `name` whole, through
 * libgit2, into a new repository of its own under the git directory
 * (nothing here to have: every object the branches reach is sent), and
 * adds the pack it got to this repository's objects; the temporary
 * repository is removed. For commits here whose objects a pack left out:
 * libgit2 does not ask again for a commit it has. Within the same limits
 * as any fetch. 0 (*added: a pack added), -2 (a limit; err), -1 (err).
 */
int store_fetch_whole(store_fetch *f, const char *name, bool *added,
		      catan_err *err);

/* ---- repack.c ---- */

void store_repack_if_needed(catan_store *s, int limit);

/*
 * In a signed game with an equivocation's record (verdict.c), moves every
 * branch but the equivocator's that holds one of the two children back to
 * the commit both build on, saying so in rep (may be NULL). adopt.c; 0 or
 * -1.
 */
int store_verdict_apply(catan_store *s, catan_sync_report *rep, catan_err *err);

/* ---- sync.c (layer 7), for store.c ---- */

/*
 * Writes the remote-tracking refs of the pushes still recorded in
 * s->pushed (each only where its ref still stands where the push found
 * it) and forgets them. Called as the handle is freed, under its lock.
 */
void store_pushed_flush(catan_store *s);

#endif
