/*
 * adopt.c - layer 6: verifying what arrived from a remote and adopting it.
 * A remote branch ahead of the local one is a candidate; every new
 * commit of the candidates is verified (verify.h); a candidate that fails,
 * or that rewrote history, is quarantined and reported, and the local game
 * is left as it was. Valid candidates move the local branches forward.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <git2/sys/repository.h>
#include <zlib.h>

#include "exchange.h"
#include "lobby.h"

/*
 * Moves the branch of player p from `old` to `id` (a descendant) for the
 * rest of this sync: in memory when the tips are held (settle writes it,
 * with every other move of the sync, in one write of packed-refs), else
 * at once through libgit2. 0 or -1.
 */
static int defer_move(catan_store *s, int p, const git_oid *old,
		      const git_oid *id, catan_err *err)
{
	if (!s->tips_held)
		return store_move_branch(s, p, old, id, "catan sync", err);
	if (!s->move_pending[p]) {
		s->move_old[p] = *old;
		s->move_pending[p] = true;
	}
	s->held_tips[p] = *id;
	return 0;
}

/*
 * Where branch p stood before it took in a voided commit: the newest
 * position in its reflog that holds neither child, else the fork's parent
 * (so that it is where the other peers, who refused what it built on a
 * voided commit, still see it).
 */
static void rewind_target(catan_store *s, int p, const store_verdict *v,
			  const git_oid *tip, git_oid *to)
{
	char ref[128];
	git_reflog *log = NULL;
	snprintf(ref, sizeof ref, "refs/heads/%s", s->game.names.name[p]);
	if (git_reflog_read(&log, s->repo, ref))
		return;
	size_t n = git_reflog_entrycount(log);
	for (size_t i = 0; i < n; i++) {
		const git_oid *o =
		    git_reflog_entry_id_old(git_reflog_entry_byindex(log, i));
		if (!git_oid_is_zero(o) && !store_verdict_voids(s, v, o) &&
		    store_is_ancestor(s, o, tip) == 1) {
			*to = *o;
			break;
		}
	}
	git_reflog_free(log);
}

int store_expelled_back(catan_store *s, const store_verdict *v, catan_err *err)
{
	/*
	 * Its last move before the fork of the expulsion the branches hold
	 * (the record may name an earlier fork of the seat, met later).
	 */
	git_oid tips[CATAN_MAX_PLAYERS], z, tip, to;
	git_commit *zc = NULL;
	store_verdict w = *v;
	int p = v->seat, n = store_branch_tips(tips, s, NULL);
	if (store_expel_find(s, v, tips, n, &z) == 1 &&
	    git_commit_lookup(&zc, s->repo, &z) == 0)
		store_expel_proof(s, zc, &w);
	git_commit_free(zc);
	if (store_branch_tip(&tip, s, p) ||
	    store_seat_last(s, p, &w.parent, &to))
		return store_fail_code(err, CATAN_STORE_E_NOT_FOUND,
				       "branch %s is missing",
				       s->game.names.name[p]);
	if (git_oid_equal(&tip, &to))
		return 0;
	if (store_is_ancestor(s, &tip, &to) == 1)
		return store_move_branch(s, p, &tip, &to,
					 "catan: expelled, last move", err);
	return store_rewind_branch(s, p, &tip, &to, err);
}

int store_verdict_apply(catan_store *s, catan_sync_report *rep, catan_err *err)
{
	store_verdict v;
	if (!s->game.signed_game || store_verdict_read(s, &v) != 1)
		return 0;
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		git_oid tip;
		if (store_branch_tip(&tip, s, p))
			return store_fail_code(err, CATAN_STORE_E_NOT_FOUND,
					       "branch %s is missing",
					       s->game.names.name[p]);
		/*
		 * The equivocator's own branch stays where this peer saw it
		 * until it is expelled: it is how the other side reaches the
		 * peers that fetch it here, and they reach the same verdict.
		 */
		if (p == v.seat || !store_verdict_voids(s, &v, &tip))
			continue;
		git_oid to = v.parent;
		rewind_target(s, p, &v, &tip, &to);
		if (store_rewind_branch(s, p, &tip, &to, err))
			return -1;
		if (rep)
			store_note(rep,
				   "moved %s back to %.10s, before %s "
				   "equivocated (what it built there stays "
				   "in its reflog)",
				   s->game.names.name[p], git_oid_tostr_s(&to),
				   s->game.names.name[v.seat]);
	}
	if (store_verdict_stops(s, &v) != 0)
		return 0;
	/*
	 * Expelled: its branch stands at its last move before the fork at
	 * every peer (the children live on as the expulsion's parents).
	 */
	git_oid was, now;
	if (store_branch_tip(&was, s, v.seat) ||
	    store_expelled_back(s, &v, err))
		return -1;
	if (rep && store_branch_tip(&now, s, v.seat) == 0 &&
	    !git_oid_equal(&was, &now))
		store_note(rep,
			   "moved %s to %.10s, its last move before it "
			   "equivocated: it was expelled",
			   s->game.names.name[v.seat], git_oid_tostr_s(&now));
	return 0;
}

/* ---- equivocation (signed games; spec/replication.md) ---- */

/*
 * The seat whose validly signed commit `id` is, or -1: store_author_seat
 * once the commit's raw bytes pass store_commit_form (its signature by
 * that seat's key included), which store_author_seat leaves to its caller.
 */
static int signed_author(catan_store *s, const git_oid *id)
{
	git_odb_object *o = NULL;
	git_commit *c = NULL;
	char why[256];
	int p = -1;
	if (git_odb_read(&o, s->odb, id))
		return -1;
	if (git_odb_object_type(o) == GIT_OBJECT_COMMIT &&
	    !store_commit_form(s, git_odb_object_data(o),
			       git_odb_object_size(o), why, sizeof why) &&
	    !git_commit_lookup(&c, s->repo, id))
		p = store_author_seat(s, c);
	git_commit_free(c);
	git_odb_object_free(o);
	return p;
}

/*
 * A lobby's claim r of seat p where p's seat is taken here already (by
 * the start, or by the claim local holds): the reason into why, naming
 * both keys; false when r is no such claim.
 */
static bool rival_claim(catan_store *s, int p, const git_oid *r,
			const git_oid *local, char *why, size_t n)
{
	git_commit *c = NULL;
	catan_game g;
	git_oid gt;
	catan_err err;
	unsigned char bound[CATAN_PUBKEY_LEN];
	bool rival = false;
	if (!s->lobby.open || git_commit_lookup(&c, s->repo, r) ||
	    strcmp(git_commit_summary(c), STORE_CLAIM_SUBJECT) ||
	    store_game_of_tree(&g, &gt, s, git_commit_tree_id(c), &err))
		goto done;
	if (!(s->game.open & (1u << p))) {
		memcpy(bound, s->game.keys[p], sizeof bound);
	} else {
		git_commit *lc = NULL;
		catan_game lg;
		if (git_oid_equal(local, &s->genesis) ||
		    git_commit_lookup(&lc, s->repo, local))
			goto done;
		int bad = store_game_of_tree(&lg, &gt, s,
					     git_commit_tree_id(lc), &err);
		git_commit_free(lc);
		if (bad)
			goto done;
		memcpy(bound, lg.keys[p], sizeof bound);
	}
	store_lobby_rival_why(why, n, s->game.names.name[p], g.keys[p], bound,
			      catan_store_me(s) == p &&
				  (s->game.open & (1u << p)));
	rival = true;
done:
	git_commit_free(c);
	return rival;
}

/*
 * Whether c is a sound start of this lobby, judged by it alone (so every
 * peer judges it alike): the first seat's, its parents one signed claim
 * for each open seat (on the genesis) in player order, no key twice, its
 * tree the genesis's game with those keys bound and the initial state.
 * What the claims are up against in a peer's own lobby does not count
 * here: two sound starts are the host's proof whatever claims they merge.
 */
static bool is_start(catan_store *s, git_commit *c)
{
	const char *sum = git_commit_summary(c);
	unsigned n = git_commit_parentcount(c), bad;
	int seat[CATAN_MAX_PLAYERS], other;
	unsigned char key[CATAN_MAX_PLAYERS][CATAN_PUBKEY_LEN];
	if (!s->lobby.open || !n || n > (unsigned)s->lobby.opt.nplayers ||
	    !sum || strcmp(sum, STORE_START_SUBJECT))
		return false;
	for (unsigned i = 0; i < n; i++) {
		const git_oid *pid = git_commit_parent_id(c, i);
		git_commit *pc = NULL;
		catan_game cg;
		git_oid cgt;
		catan_err err;
		int q = seat[i] = signed_author(s, pid);
		bool ok =
		    q >= 0 && git_commit_lookup(&pc, s->repo, pid) == 0 &&
		    git_commit_parentcount(pc) == 1 &&
		    git_oid_equal(git_commit_parent_id(pc, 0), &s->genesis) &&
		    git_commit_summary(pc) &&
		    !strcmp(git_commit_summary(pc), STORE_CLAIM_SUBJECT) &&
		    !store_game_of_tree(&cg, &cgt, s, git_commit_tree_id(pc),
					&err);
		git_commit_free(pc);
		if (!ok || store_commit_signer_of(key[i], s, pid) ||
		    memcmp(key[i], cg.keys[q], CATAN_PUBKEY_LEN))
			return false; /* (a claim is signed by its key) */
	}
	catan_game want;
	git_oid tree, gt;
	return store_lobby_bind(&want, &tree, &gt, s, n, seat,
				(const unsigned char(*)[CATAN_PUBKEY_LEN])key,
				&bad, &other) == STORE_BIND_OK &&
	       git_oid_equal(&tree, git_commit_tree_id(c));
}

/*
 * Two different commits signed by one seat, with one first parent (or two
 * starts of the lobby, children of its genesis): the proof against that
 * seat, into *v. Whoever relayed them is not to blame: a signature says
 * who wrote a commit, not who passed it on.
 */
static bool proof_of(catan_store *s, const git_oid *x, const git_oid *y,
		     store_verdict *v)
{
	git_commit *a = NULL, *b = NULL;
	bool ok = false;
	if (!s->game.signed_game || git_oid_equal(x, y) ||
	    git_commit_lookup(&a, s->repo, x) ||
	    git_commit_lookup(&b, s->repo, y))
		goto done;
	/*
	 * Two starts of one lobby are two children of its genesis, whatever
	 * claims each merges: the host told some peers that one game began
	 * and others that another did. Both then name the genesis as the
	 * parent, by whichever path the peer found them.
	 */
	bool starts = is_start(s, a) && is_start(s, b);
	if (!starts &&
	    (!git_commit_parentcount(a) || !git_commit_parentcount(b) ||
	     !git_oid_equal(git_commit_parent_id(a, 0),
			    git_commit_parent_id(b, 0))))
		goto done;
	int p = signed_author(s, x);
	if (p < 0 || signed_author(s, y) != p || (starts && p != 0))
		goto done; /* (only the first seat starts: another's is none) */
	/*
	 * One key, too: two claims of a lobby's open seat by two keys are
	 * two joiners, not one seat's two moves. And two claims are no
	 * moves at all: a second claim, even by the same key (a joiner who
	 * joined again), is refused as a second claim (rival_claim below),
	 * not taken for an equivocation that would stop the game.
	 */
	unsigned char kx[CATAN_PUBKEY_LEN], ky[CATAN_PUBKEY_LEN];
	/* (A seat still open here has no key to hold anything against.) */
	if (s->lobby.open &&
	    ((s->game.open & (1u << p)) ||
	     !strcmp(git_commit_summary(a), STORE_CLAIM_SUBJECT) ||
	     store_commit_signer_of(kx, s, x) ||
	     store_commit_signer_of(ky, s, y) || memcmp(kx, ky, sizeof kx)))
		goto done;
	v->seat = p;
	v->parent = starts ? s->genesis : *git_commit_parent_id(a, 0);
	v->child[0] = *x;
	v->child[1] = *y;
	ok = true;
done:
	git_commit_free(a);
	git_commit_free(b);
	return ok;
}

/* A commit by a seat and its first parent, in a table sorted by the
 * parent (fork_pair). */
typedef struct kid_up {
	git_oid up, kid; /* (up first: sorted by it) */
} kid_up;

static int by_up(const void *x, const void *y)
{
	return git_oid_cmp(&((const kid_up *)x)->up, &((const kid_up *)y)->up);
}

/*
 * Two children of one commit signed by seat p, one reachable from a and
 * not b, the other from b and not a: the proof into *v. The children need
 * not be on the tips' first-parent lines: a seat's discard may sit in a
 * branch only as the second parent of another seat's "merge discards".
 */
static bool fork_pair(catan_store *s, int p, const git_oid *a, const git_oid *b,
		      store_verdict *v)
{
	kid_up *k = NULL, one;
	size_t n = 0, cap = 0;
	bool found = false;
	store_side_walk sa = {0}, sb = {0};
	if (store_side_open(&sa, s, p, a, b))
		goto done;
	while (store_side_next(&sa, s, &one.kid, &one.up) == 0) {
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			kid_up *k2 = realloc(k, nc * sizeof *k);
			if (!k2)
				goto done;
			k = k2;
			cap = nc;
		}
		k[n++] = one;
	}
	if (!n || store_side_open(&sb, s, p, b, a))
		goto done;
	qsort(k, n, sizeof *k, by_up);
	while (!found && store_side_next(&sb, s, &one.kid, &one.up) == 0) {
		kid_up *hit = bsearch(&one, k, n, sizeof *k, by_up);
		/* (several of a's side on one parent: any one is a proof) */
		found = hit && proof_of(s, &hit->kid, &one.kid, v);
	}
done:
	git_revwalk_free(sa.w);
	git_revwalk_free(sb.w);
	free(k);
	return found;
}

/*
 * Whether lines a and b (tips of the first seat's branch) hold two
 * different starts of this lobby: the proof then into *v.
 */
static bool two_starts(catan_store *s, const git_oid *a, const git_oid *b,
		       store_verdict *v)
{
	git_oid x, y;
	if (!s->lobby.open || store_lobby_start_on(s, a, &x) ||
	    store_lobby_start_on(s, b, &y))
		return false;
	/*
	 * Both sound starts, each judged alone (nothing else verifies them
	 * here): two commits merely called "start" that share a claim as
	 * first parent are no proof (proof_of would take them for two moves
	 * on it); the verification judges them (test_bad_start.sh).
	 */
	git_commit *cx = NULL, *cy = NULL;
	bool ok = !git_commit_lookup(&cx, s->repo, &x) &&
		  !git_commit_lookup(&cy, s->repo, &y) && is_start(s, cx) &&
		  is_start(s, cy) && proof_of(s, &x, &y, v);
	git_commit_free(cx);
	git_commit_free(cy);
	return ok;
}

/* How many commits `id`'s history holds, itself included (walked; at
 * most STORE_VOIDS_WALK, which a game's history never reaches). */
static long history_size(catan_store *s, const git_oid *id)
{
	git_revwalk *w = NULL;
	git_oid at;
	long n = 0;
	if (git_revwalk_new(&w, s->repo) == 0 && git_revwalk_push(w, id) == 0)
		while (n < STORE_VOIDS_WALK && git_revwalk_next(&at, w) == 0)
			n++;
	git_revwalk_free(w);
	return n;
}

/*
 * The proof a peer keeps of old and v (both proofs): two expulsions signed
 * by one seat over a proof against the seat they expel; then one against a
 * seat still in over one against an expelled seat (and old over another
 * against the same expelled seat); then the first fork of the game
 * (the one whose parent has the smaller history: an ancestor's is;
 * at equal sizes the smaller parent id), at one parent the smaller seat's, and
 * of one seat's three or more children there the two smallest ids known. Every
 * honest peer that has seen the same children keeps the same bytes, whatever
 * the pairs each was shown (spec/replication.md, "Equivocation"). Into *keep;
 * false when that is old.
 */
static bool better_proof(catan_store *s, const store_verdict *old,
			 const store_verdict *v, store_verdict *keep)
{
	*keep = *v;
	/*
	 * Two expulsions signed by one seat stop the game for good: kept
	 * over any proof against the seat they expel (which they carry).
	 */
	store_verdict in;
	if (store_verdict_twins(s, old, &in) && in.seat == v->seat)
		return false;
	if (store_verdict_twins(s, v, &in) && in.seat == old->seat)
		return true;
	/*
	 * Then a proof against a seat already expelled has done its work:
	 * one against a seat still in is kept over it, and never the
	 * reverse (the expelled seat stays out: the state says so).
	 */
	unsigned out = store_out_seats(s);
	bool old_out = (out >> old->seat) & 1, new_out = (out >> v->seat) & 1;
	if (old_out != new_out)
		return old_out;
	/* (Another proof against an expelled seat changes nothing.) */
	if (old_out && old->seat == v->seat)
		return false;
	if (!git_oid_equal(&old->parent, &v->parent)) {
		/*
		 * By the size of each parent's history: an ancestor's is
		 * smaller, so the earlier fork wins, and unlike "the ancestor,
		 * else the smaller id" this is an order (three proofs at
		 * forks on concurrent lines cannot beat each other in a
		 * circle, which would make the record depend on the order
		 * they arrived).
		 */
		long a = history_size(s, &old->parent),
		     b = history_size(s, &v->parent);
		return b < a ||
		       (b == a && git_oid_cmp(&v->parent, &old->parent) < 0);
	}
	if (old->seat != v->seat)
		return v->seat < old->seat;
	const git_oid *all[4] = {&old->child[0], &old->child[1], &v->child[0],
				 &v->child[1]};
	const git_oid *m[2] = {NULL, NULL};
	for (int i = 0; i < 4; i++) {
		if ((m[0] && git_oid_equal(all[i], m[0])) ||
		    (m[1] && git_oid_equal(all[i], m[1])))
			continue;
		if (!m[0] || git_oid_cmp(all[i], m[0]) < 0) {
			m[1] = m[0];
			m[0] = all[i];
		} else if (!m[1] || git_oid_cmp(all[i], m[1]) < 0) {
			m[1] = all[i];
		}
	}
	bool same = true;
	for (int i = 0; i < 2; i++)
		same &= git_oid_equal(m[i], &old->child[0]) ||
			git_oid_equal(m[i], &old->child[1]);
	/* (Each child passed every check before: any two are the proof.) */
	return !same && proof_of(s, m[0], m[1], keep) &&
	       git_oid_equal(&keep->parent, &old->parent);
}

/*
 * Records the proof (or keeps the one recorded: better_proof) and says
 * so: expelled when its seat was expelled for it (the expulsion came
 * with the proof), else that the game stops. The branches move back to
 * its parent when the sync ends (store_verdict_apply).
 */
static int found_equivocation(catan_store *s, const store_verdict *found,
			      const char *remote, catan_sync_report *rep,
			      bool expelled, catan_err *err)
{
	store_verdict old, keep = *found, *v = &keep;
	if (store_verdict_read(s, &old) == 1 &&
	    !better_proof(s, &old, found, &keep))
		return 0;
	if (store_verdict_write(s, v, err))
		return -1;
	char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1], m[GIT_OID_HEXSZ + 1];
	git_oid_tostr(a, sizeof a, &v->child[0]);
	git_oid_tostr(b, sizeof b, &v->child[1]);
	git_oid_tostr(m, sizeof m, &v->parent);
	if (expelled)
		store_note(rep,
			   "equivocation: %s signed two different moves on "
			   "%.10s (%.10s and %.10s), and was expelled for it "
			   "(seen through %s, which only relayed them)",
			   s->game.names.name[v->seat], m, a, b, remote);
	else
		store_note(rep,
			   "equivocation: %s signed two different moves on "
			   "%.10s (%.10s and %.10s); the game stops at %.10s "
			   "(seen through %s, which only relayed them)",
			   s->game.names.name[v->seat], m, a, b, m, remote);
	rep->equivocations++;
	return 0;
}

/* Remote's tip r of p's branch does not contain local: said, quarantined. */
static void rewritten(catan_store *s, const char *remote, int p,
		      const git_oid *local, const git_oid *r,
		      catan_sync_report *rep)
{
	char hex[GIT_OID_HEXSZ + 1], hex2[GIT_OID_HEXSZ + 1];
	git_oid_tostr(hex, sizeof hex, local);
	git_oid_tostr(hex2, sizeof hex2, r);
	store_note(rep,
		   "rejected %s from %s: history rewritten (local %s, remote "
		   "%s does not contain it); kept as "
		   "refs/catan/quarantine/%s/%s",
		   s->game.names.name[p], remote, hex, hex2, remote,
		   s->game.names.name[p]);
	store_quarantine(s, remote, p, r, NULL, false, "history rewritten",
			 NULL);
	rep->rejected++;
}

/*
 * Tip r of player p's branch at `remote` is refused for `why`, the tip
 * itself the bad commit: said in rep and quarantined.
 */
static void reject_tip(catan_store *s, const char *remote, int p,
		       const git_oid *r, const char *why,
		       catan_sync_report *rep)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_oid_tostr(hex, sizeof hex, r);
	store_note(rep,
		   "rejected %s from %s: commit %.10s: %s; kept as "
		   "refs/catan/quarantine/%s/%s",
		   s->game.names.name[p], remote, hex, why, remote,
		   s->game.names.name[p]);
	store_quarantine(s, remote, p, r, r, false, why, NULL);
	rep->rejected++;
}

/*
 * Whether remote's tip r of player p's branch is a candidate to verify:
 * new (not an ancestor of local[p]) and neither refused before, a
 * rewrite of local[p]'s history nor built on what was refused before
 * (the last two are quarantined and noted in rep here). *sideways is set
 * when r is a candidate though it does not contain local[p]: a line from
 * a second child of a commit, signed by the seat that signed local[p]'s
 * child of it, for the verification to judge (a valid one is a fork).
 * Bit p of *refetch is set when a commit before r is missing.
 */
static bool candidate(catan_store *s, const char *remote, int p,
		      const git_oid *r, const git_oid *local, bool *sideways,
		      store_verdict *proof, unsigned *refetch,
		      catan_sync_report *rep)
{
	*sideways = false;
	char hex[GIT_OID_HEXSZ + 1], hex2[GIT_OID_HEXSZ + 1];
	if (store_quarantined_at(s, remote, p, r))
		return false; /* refused and reported before */
	if (store_is_ancestor(s, r, &local[p]) == 1)
		return false; /* nothing new */
	store_verdict v;
	/*
	 * The game stopped before it: nothing counts. (A line from another
	 * child of the fork goes on to the verification: a valid one is a
	 * proof too, and may hold a smaller id the record keeps:
	 * drop_stopped.)
	 */
	if (s->game.signed_game && store_verdict_read(s, &v) == 1) {
		if (store_verdict_recorded(s, &v, r) &&
		    store_expel_find(s, &v, r, 1, NULL) == 0)
			return false;
		/*
		 * An expelled seat's branch stays at its last move before
		 * the fork: whatever it signed since counts for nothing
		 * (and nobody who relays it is to blame).
		 */
		if ((store_out_seats(s) >> p) & 1)
			return false;
	}
	catan_err err;
	int moves = store_moves_forward(s, &local[p], r);
	bool forward = moves == 1;
	/* A commit between them is not here: what the remote sent left it
	 * out (no verdict on anyone; fetched again: sync.c). */
	if (moves == -2) {
		git_oid_tostr(hex, sizeof hex, r);
		store_note(
		    rep,
		    "held back %s from %s: a commit before its tip %.10s "
		    "is missing (left out of what it sent; to be fetched "
		    "again)",
		    s->game.names.name[p], remote, hex);
		*refetch |= 1u << p;
		return false;
	}
	if (!forward && s->game.signed_game &&
	    two_starts(s, &local[p], r, &v)) {
		if (found_equivocation(s, &v, remote, rep, false, &err))
			store_note(rep, "could not record it: %s", err.msg);
		return false;
	}
	/*
	 * Two children of one commit signed by one seat: the verification
	 * decides (a valid second child is its fork, the proof: drop_forked;
	 * an invalid one is refused as any invalid commit), so that a peer
	 * that met the children in the other order judges them alike.
	 */
	if (!forward && s->game.signed_game &&
	    fork_pair(s, p, &local[p], r, proof)) {
		*sideways = true;
		return true;
	}
	char cwhy[240];
	if (!forward && rival_claim(s, p, r, &local[p], cwhy, sizeof cwhy)) {
		reject_tip(s, remote, p, r, cwhy, rep);
		return false;
	}
	if (!forward) {
		rewritten(s, remote, p, &local[p], r, rep);
		return false;
	}
	/*
	 * A branch ends at its owner's own commit (or the genesis): only its
	 * owner moves it, to what it just wrote. A remote that shows it at
	 * another player's commit (valid as that commit may be) misplaces
	 * it; taking that would make the owner's real commit look like a
	 * rewrite here (the model's M_TIPOWNER, spec/model.md).
	 */
	int who;
	if (store_tip_misplaced(s, p, r, &who)) {
		char why[160];
		snprintf(why, sizeof why,
			 "its tip is %s's commit, not %s's (a branch ends at "
			 "its owner's own commit)",
			 who >= 0 ? s->game.names.name[who] : "nobody",
			 s->game.names.name[p]);
		reject_tip(s, remote, p, r, why, rep);
		return false;
	}
	int floor = 0;
	git_commit *lc = NULL;
	if (git_commit_lookup(&lc, s->repo, &local[p]) == 0)
		floor = store_trailer_int(git_commit_message(lc), "Turn");
	git_commit_free(lc);
	if (store_builds_on_rejected(s, remote, p, r, local, floor)) {
		git_oid_tostr(hex2, sizeof hex2, r);
		store_note(rep,
			   "rejected %s from %s: builds on what was "
			   "rejected before (refs/catan/quarantine/%s/%s); "
			   "not checked again (tip %.10s)",
			   s->game.names.name[p], remote, remote,
			   s->game.names.name[p], hex2);
		git_oid qtip, qbad;
		char why[120];
		store_quarantine_read(s, remote, p, &qtip, &qbad);
		git_oid_tostr(hex, sizeof hex, &qbad);
		snprintf(why, sizeof why, "builds on %s, rejected before", hex);
		store_quarantine(s, remote, p, r, &qbad, false, why, NULL);
		rep->rejected++;
		return false;
	}
	return true;
}

/*
 * The branches of one remote under verification: tips[p] its branch of
 * player p where has[p]; local[p] the local tip; cand[p] the tip verified,
 * the remote's while ahead[p], local[p] once dropped. Bit p of *refetch:
 * branch p's new commits lack an object that what the remote sent should
 * have held (the sync fetches them again).
 */
typedef struct adopt_set {
	const char *remote;
	const git_oid *tips;
	const bool *has;
	int n;
	git_oid local[CATAN_MAX_PLAYERS], cand[CATAN_MAX_PLAYERS];
	bool ahead[CATAN_MAX_PLAYERS];
	unsigned *refetch;
} adopt_set;

/* Candidate p is no longer verified: back to the local tip. */
static void drop_candidate(adopt_set *c, int p)
{
	c->cand[p] = c->local[p];
	c->ahead[p] = false;
}

/*
 * Before the start only the host adopts another seat's claim (the first
 * it sees per seat is the one its start merges): any other peer takes a
 * claim only with a start that merges it, so that no branch of its holds
 * a claim the start may pass over, which would then look like a rewrite.
 * Claims of this remote that come without its start are left where they
 * are, said in rep, and looked at again at the next sync.
 */
static void lobby_hold(catan_store *s, adopt_set *c, catan_sync_report *rep)
{
	if (!s->game.open || c->ahead[0])
		return;
	git_config *cfg = NULL;
	git_buf buf = {NULL, 0, 0};
	bool host = git_repository_config_snapshot(&cfg, s->repo) == 0 &&
		    git_config_get_string_buf(&buf, cfg, "catan.me") == 0 &&
		    !strcmp(buf.ptr, s->game.names.name[0]);
	git_buf_dispose(&buf);
	git_config_free(cfg);
	if (host)
		return;
	/* (A joiner's own claim is written here, never adopted.) */
	for (int p = 1; p < c->n; p++)
		if (c->ahead[p]) {
			c->ahead[p] = false;
			drop_candidate(c, p);
			store_note(rep,
				   "left %s's claim at %s: before the start "
				   "only %s adopts claims (it comes with the "
				   "start)",
				   s->game.names.name[p], c->remote,
				   s->game.names.name[0]);
		}
}

/*
 * Every candidate verified: each branch ahead moves to it (defer_move) and
 * is reported adopted. Returns 0, or -1 with err when a branch cannot move.
 */
static int adopt_all(catan_store *s, const adopt_set *c, catan_sync_report *rep,
		     catan_err *err)
{
	char hex[GIT_OID_HEXSZ + 1];
	for (int p = 0; p < c->n; p++) {
		if (!c->ahead[p])
			continue;
		if (defer_move(s, p, &c->local[p], &c->cand[p], err))
			return -1;
		git_oid_tostr(hex, sizeof hex, &c->cand[p]);
		store_note(rep, "adopted %s from %s: now at %.10s",
			   s->game.names.name[p], c->remote, hex);
		rep->adopted++;
	}
	/* (store_verify_new kept the newest state it checked.) */
	return 0;
}

/* Every candidate voided by the proof v is dropped (nobody blamed). */
static void drop_voided(catan_store *s, adopt_set *c, const store_verdict *v)
{
	for (int p = 0; p < c->n; p++)
		if (c->ahead[p] && store_verdict_voids(s, v, &c->cand[p]))
			drop_candidate(c, p);
}

/*
 * Every candidate (verified) that builds on a child of the fork of the
 * recorded proof is dropped; a child not in the record that it holds
 * anywhere (a seat's third move: fork_pair; the host's third start) is
 * a proof too, and found_equivocation keeps the smaller ids. 0, or -1 with err
 * when the record cannot be written.
 */
static int drop_stopped(catan_store *s, adopt_set *c, catan_sync_report *rep,
			catan_err *err)
{
	store_verdict v, fv;
	if (!s->game.signed_game || store_verdict_read(s, &v) != 1)
		return 0;
	for (int p = 0; p < c->n; p++) {
		if (!c->ahead[p] || !store_verdict_voids(s, &v, &c->cand[p]))
			continue;
		git_oid x;
		bool more = false;
		if (git_oid_equal(&v.parent, &s->genesis) && s->lobby.open)
			more = !store_lobby_start_on(s, &c->cand[p], &x) &&
			       !git_oid_equal(&x, &v.child[0]) &&
			       !git_oid_equal(&x, &v.child[1]) &&
			       proof_of(s, &v.child[0], &x, &fv);
		else
			for (int i = 0; i < 2 && !more; i++)
				more = fork_pair(s, v.seat, &c->cand[p],
						 &v.child[i], &fv);
		if (more &&
		    found_equivocation(s, &fv, c->remote, rep, false, err))
			return -1;
		drop_candidate(c, p);
	}
	return 0;
}

/*
 * A second signed child by the same seat (vr->fork): the proof against
 * it is recorded (found_equivocation) and the candidates holding it, or
 * voided by it, are dropped, nobody blamed. Returns 1 when vr was such a
 * proof, 0 when it was not (nothing done), -1 with err when the proof
 * cannot be recorded.
 */
static int drop_forked(catan_store *s, adopt_set *c,
		       const catan_verify_report *vr, catan_sync_report *rep,
		       catan_err *err)
{
	git_oid fa, fb;
	store_verdict fv;
	if (!vr->fork || git_oid_fromstr(&fa, vr->bad.hex) ||
	    git_oid_fromstr(&fb, vr->fork_other.hex) ||
	    !proof_of(s, &fb, &fa, &fv))
		return 0;
	if (found_equivocation(s, &fv, c->remote, rep, false, err))
		return -1;
	for (int p = 0; p < c->n; p++)
		if (c->ahead[p] && (vr->holders & (1u << p) ||
				    store_verdict_voids(s, &fv, &c->cand[p])))
			drop_candidate(c, p);
	return 1;
}

/*
 * Every candidate holding the bad commit of vr is dropped (by
 * reachability: verify says which). Should none be said to hold it, every
 * candidate left is refused with the reason rather than verified again: a
 * sync never ends without a word on what it fetched. A dropped branch is
 * fetched again (c->refetch) when the commit lacks an object, held back
 * (held[p] set) when the commit is only off its author's branch and that
 * branch is the remote's own, else quarantined and counted rejected.
 * Cannot fail.
 */
static void drop_holders(catan_store *s, adopt_set *c,
			 const catan_verify_report *vr, bool *held,
			 catan_sync_report *rep)
{
	int n = c->n;
	char hex[GIT_OID_HEXSZ + 1];
	unsigned holds = vr->holders;
	for (int p = 0; p < n; p++)
		if (c->ahead[p] && (holds & (1u << p)))
			break;
		else if (p == n - 1)
			holds = ~0u;
	for (int p = 0; p < n; p++) {
		if (!c->ahead[p] || !(holds & (1u << p)))
			continue;
		git_oid_tostr(hex, sizeof hex, &c->cand[p]);
		/*
		 * Held back only when the author's branch is the remote's own
		 * (not one this sync dropped or found behind ours): then the
		 * remote really lacks it.
		 */
		int a = vr->off_author;
		if (vr->incomplete) {
			/* (the pack's fault, not the author's: no record) */
			*c->refetch |= 1u << p;
			store_note(rep,
				   "held back %s from %s: commit %.10s: %s "
				   "(left out of what it sent; to be fetched "
				   "again)",
				   s->game.names.name[p], c->remote,
				   vr->bad.hex, vr->why);
		} else if (vr->off_branch && a >= 0 && a < n && c->has[a] &&
			   git_oid_equal(&c->cand[a], &c->tips[a]) &&
			   store_hold_back(s, c->remote, p, &c->cand[p])) {
			held[p] = true;
			store_note(rep,
				   "held back %s from %s: commit %.10s: %s "
				   "there (tip %.10s); tried again at the "
				   "next sync",
				   s->game.names.name[p], c->remote,
				   vr->bad.hex, vr->why, hex);
		} else {
			store_note(rep,
				   "rejected %s from %s: commit %.10s: %s; "
				   "kept as refs/catan/quarantine/%s/%s "
				   "(tip %.10s)",
				   s->game.names.name[p], c->remote,
				   vr->bad.hex, vr->why, c->remote,
				   s->game.names.name[p], hex);
			git_oid badid;
			git_oid_fromstr(&badid, vr->bad.hex);
			store_quarantine(s, c->remote, p, &c->cand[p], &badid,
					 vr->off_branch, vr->why, NULL);
			rep->rejected++;
		}
		drop_candidate(c, p);
	}
}

/*
 * Verifies and adopts what remote `remote` holds: tips[p] is its branch of
 * player p where has[p]. Every object reachable from the tips is in the
 * object database on disk. The branches that move are written by settle;
 * held[p] is set for each branch held back (hold_back), bit p of *refetch
 * for each to be fetched again (adopt_set). Returns -1 only when the local
 * repository cannot be updated.
 */
static int verify_and_adopt(catan_store *s, const char *remote,
			    const git_oid *tips, const bool *has, bool *held,
			    unsigned *refetch, catan_sync_report *rep,
			    catan_err *err)
{
	int n = s->game.opt.nplayers;
	adopt_set c = {.remote = remote,
		       .tips = tips,
		       .has = has,
		       .n = n,
		       .refetch = refetch};
	bool sideways[CATAN_MAX_PLAYERS] = {false};
	store_verdict proofs[CATAN_MAX_PLAYERS];

	for (int p = 0; p < n; p++) {
		if (store_branch_tip(&c.local[p], s, p))
			return store_fail(err,
					  "branch refs/heads/%s is missing",
					  s->game.names.name[p]);
		c.cand[p] = c.local[p];
	}
	for (int p = 0; p < n; p++) {
		if (!has[p])
			continue; /* this remote does not have the branch */
		if (candidate(s, remote, p, &tips[p], c.local, &sideways[p],
			      &proofs[p], refetch, rep)) {
			c.cand[p] = tips[p];
			c.ahead[p] = true;
		}
	}
	lobby_hold(s, &c, rep);
	/*
	 * Verify all candidates together (they may build on each other);
	 * when a commit fails, drop the candidates holding it and retry.
	 */
	for (int round = 0; round <= n; round++) {
		bool any = false;
		for (int p = 0; p < n; p++)
			any |= c.ahead[p];
		if (!any)
			return 0;
		catan_verify_report vr;
		if (store_verify_new(s, c.cand, &vr, err))
			return -1;
		if (vr.ok) {
			/*
			 * A fork an expulsion here settles: its proof is
			 * recorded (so that what the seat signed since is
			 * void here too), and the expulsion adopted.
			 */
			git_oid sa, sb;
			store_verdict sv;
			if (vr.settled &&
			    !git_oid_fromstr(&sa, vr.settled_pair[0].hex) &&
			    !git_oid_fromstr(&sb, vr.settled_pair[1].hex) &&
			    proof_of(s, &sa, &sb, &sv) &&
			    found_equivocation(s, &sv, remote, rep, true, err))
				return -1;
			/*
			 * A second child the verification found valid without
			 * calling it a fork (the seat's other child is on
			 * another seat's branch here, not its own): both
			 * valid, the proof stands. Never adopted.
			 */
			for (int p = 0; p < n; p++)
				if (c.ahead[p] && sideways[p] &&
				    found_equivocation(s, &proofs[p], remote,
						       rep, false, err))
					return -1;
			for (int p = 0; p < n; p++)
				if (c.ahead[p] && sideways[p])
					drop_voided(s, &c, &proofs[p]);
			if (drop_stopped(s, &c, rep, err))
				return -1;
			return adopt_all(s, &c, rep, err);
		}
		if (vr.timed_out) {
			/* No verdict: nothing is adopted or quarantined. */
			store_note(rep, "gave up on %s: %s (at commit %.10s)",
				   remote, vr.why, vr.bad.hex);
			rep->refused++;
			return 0;
		}
		int forked = drop_forked(s, &c, &vr, rep, err);
		if (forked < 0)
			return -1;
		if (!forked)
			drop_holders(s, &c, &vr, held, rep);
	}
	return 0;
}

/*
 * Whether x, a child of the fork of proof v, passes every check of a
 * commit (signature, legal action, tree; a second child of its parent is
 * no fault here): verified as the tip of its seat's branch, the others
 * at tips (NULL: the branches here). A start is judged by itself
 * (is_start). 1 valid; 0 invalid (why); 2 not now (the commits before it
 * are not all here yet, or the remote's time is up); -1 with err when
 * verify cannot run.
 */
static int evidence_valid(catan_store *s, const store_verdict *v,
			  const git_oid *x, const git_oid *tips, char *why,
			  size_t n, catan_err *err)
{
	git_commit *c = NULL;
	bool start = false;
	if (s->lobby.open && git_commit_lookup(&c, s->repo, x) == 0)
		start = is_start(s, c);
	git_commit_free(c);
	if (start)
		return 1;
	git_oid cand[CATAN_MAX_PLAYERS];
	for (int p = 0; p < s->game.opt.nplayers; p++)
		if (tips)
			cand[p] = tips[p];
		else if (store_branch_tip(&cand[p], s, p))
			return 2; /* (not judged against a branch missing) */
	cand[v->seat] = *x;
	catan_verify_report vr;
	if (store_verify_new(s, cand, &vr, err))
		return -1;
	git_oid bad;
	if (vr.ok || (vr.fork && !git_oid_fromstr(&bad, vr.bad.hex) &&
		      git_oid_equal(&bad, x)))
		return 1;
	if (vr.timed_out || vr.off_branch || vr.incomplete)
		return 2; /* (not now: no verdict on what is not all here) */
	snprintf(why, n, "commit %.10s: %s", vr.bad.hex, vr.why);
	return 0;
}

bool store_evidence_proof(catan_store *s, const git_oid *ev, store_verdict *v)
{
	return proof_of(s, &ev[0], &ev[1], v);
}

bool store_evidence_better(catan_store *s, const store_verdict *old,
			   const store_verdict *v)
{
	store_verdict keep;
	return better_proof(s, old, v, &keep);
}

bool store_tip_misplaced(catan_store *s, int p, const git_oid *tip, int *who)
{
	git_commit *c = NULL;
	*who = p;
	if (git_oid_equal(tip, &s->genesis) ||
	    git_commit_lookup(&c, s->repo, tip))
		return false;
	*who = store_author_seat(s, c);
	git_commit_free(c);
	return *who != p;
}

int store_evidence_same(const git_oid *ev, const store_verdict *v)
{
	for (int k = 0; k < 2; k++)
		if (git_oid_equal(&ev[0], &v->child[k]) &&
		    git_oid_equal(&ev[1], &v->child[!k]))
			return k ? -1 : 1;
	return 0;
}

int store_evidence_judge(catan_store *s, const git_oid *ev,
			 const store_verdict *old, const git_oid *tips,
			 store_verdict *v, char *why, size_t n, catan_err *err)
{
	store_verdict found, keep;
	if (git_oid_equal(&ev[0], &ev[1]) ||
	    !proof_of(s, &ev[0], &ev[1], &found)) {
		char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
		snprintf(why, n,
			 "%.10s and %.10s are not two moves signed by one "
			 "seat on one commit",
			 git_oid_tostr(a, sizeof a, &ev[0]),
			 git_oid_tostr(b, sizeof b, &ev[1]));
		return STORE_EV_NONE;
	}
	if (old && !better_proof(s, old, &found, &keep))
		return STORE_EV_WORSE;
	for (int i = 0; i < 2; i++) {
		if (old && (git_oid_equal(&ev[i], &old->child[0]) ||
			    git_oid_equal(&ev[i], &old->child[1])))
			continue; /* (verified when it was recorded) */
		int ok = evidence_valid(s, &found, &ev[i], tips, why, n, err);
		if (ok < 0)
			return -1;
		if (ok != 1)
			return ok == 0 ? STORE_EV_NONE : STORE_EV_LATER;
	}
	/* (of one seat's children at one parent: the two smallest ids) */
	*v = old ? keep : found;
	if (git_oid_cmp(&v->child[0], &v->child[1]) > 0) {
		git_oid t = v->child[0];
		v->child[0] = v->child[1];
		v->child[1] = t;
	}
	return STORE_EV_PROOF;
}

int store_adopt_evidence(catan_store *s, const char *remote, const git_oid *ev,
			 const bool *has, catan_sync_report *rep,
			 catan_err *err)
{
	store_verdict old, fv;
	if (!s->game.signed_game || !has[0] || !has[1])
		return 0;
	int rec = store_verdict_read(s, &old);
	if (rec == 1 && store_evidence_same(ev, &old))
		return 0; /* (what this peer records: the usual case) */
	if (!git_odb_exists(s->odb, &ev[0]) || !git_odb_exists(s->odb, &ev[1]))
		return 0; /* (not fetched: a limit said so) */
	char why[600];
	int j = store_evidence_judge(s, ev, rec == 1 ? &old : NULL, NULL, &fv,
				     why, sizeof why, err);
	if (j < 0)
		return -1;
	if (j == STORE_EV_NONE)
		store_note(rep, "ignored the equivocation record of %s: %s",
			   remote, why);
	if (j != STORE_EV_PROOF)
		return 0;
	return found_equivocation(s, &fv, remote, rep, false, err);
}

/*
 * Verifies and adopts what remote `remote` holds: tips[p] is its branch of
 * player p where has[p] (see verify_and_adopt), then forgets the held-back
 * tips of its branches that were not held back again. *refetch (when not
 * NULL) is set to the branches to be fetched again.
 */
int store_adopt_tips(catan_store *s, const char *remote, const git_oid *tips,
		     const bool *has, unsigned *refetch, catan_sync_report *rep,
		     catan_err *err)
{
	bool held[CATAN_MAX_PLAYERS] = {false};
	unsigned again = 0;
	int rc = verify_and_adopt(s, remote, tips, has, held, &again, rep, err);
	if (refetch)
		*refetch = again;
	if (rc == 0)
		store_release_held(s, remote, has, held);
	return rc;
}

/* Where ref stands: where moves[0..nmoves) moves it, else where it is.
 * Whether it stands anywhere. */
static bool ref_at(catan_store *s, const char *ref, const tracking *moves,
		   int nmoves, git_oid *id)
{
	for (int k = 0; k < nmoves; k++)
		if (!strcmp(moves[k].ref, ref)) {
			*id = moves[k].id;
			return true;
		}
	return git_reference_name_to_id(id, s->repo, ref) == 0;
}

void store_remote_tips(catan_store *s, const char *remote,
		       const tracking *moves, int nmoves, git_oid *tips,
		       bool *has)
{
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		char ref[256];
		snprintf(ref, sizeof ref, "refs/remotes/%s/%s", remote,
			 s->game.names.name[p]);
		has[p] = ref_at(s, ref, moves, nmoves, &tips[p]);
	}
}

/* adopt_tips for what the remote-tracking refs of `remote` hold. */
int store_adopt_remote(catan_store *s, const char *remote, unsigned *refetch,
		       catan_sync_report *rep, catan_err *err)
{
	git_oid tips[CATAN_MAX_PLAYERS];
	bool has[CATAN_MAX_PLAYERS] = {false};
	store_remote_tips(s, remote, NULL, 0, tips, has);
	return store_adopt_tips(s, remote, tips, has, refetch, rep, err);
}

void store_remote_evidence(catan_store *s, const char *remote,
			   const tracking *moves, int nmoves, git_oid *ev,
			   bool *has)
{
	for (int i = 0; i < 2; i++) {
		char ref[512];
		has[i] = s->game.signed_game &&
			 store_tracking_ref(ref, sizeof ref, remote,
					    store_evidence_name(i)) &&
			 ref_at(s, ref, moves, nmoves, &ev[i]);
	}
}
