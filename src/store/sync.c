/*
 * sync.c - peers: joining a game, remotes, fetching other peers' branches,
 * verifying what arrived and adopting the newest valid history.
 *
 * Fetched branches land in remote-tracking refs (refs/remotes/<remote>/...),
 * never in a local branch. A remote branch that is ahead of the local one
 * is a candidate; every new commit of the candidates is verified exactly as
 * catan verify does (incrementally: the local branches were verified when
 * they were adopted); a candidate that fails, or that rewrote history, is
 * kept as evidence under refs/catan/quarantine/<remote>/<player> and
 * reported, and the local game is left as it was. Valid candidates move
 * the local branches forward.
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

#include "pack.h"
#include "store_internal.h"

/* ---- limits (spec/replication.md, "Limits") ---- */

#define MAX_OBJECT 65536 /* no commit, tree or blob of a game comes near */

/* A positive integer from the environment, or `dflt`. */
static long env_limit(const char *name, long dflt)
{
	const char *v = getenv(name);
	char *end = NULL;
	long n = v ? strtol(v, &end, 10) : 0;
	return v && end && end != v && !*end && n > 0 ? n : dflt;
}

void store_limits_read(store_limits *out)
{
	out->commits = env_limit("CATAN_SYNC_MAX_COMMITS", 10000);
	out->message = env_limit("CATAN_SYNC_MAX_MESSAGE", 512);
	out->object = env_limit("CATAN_SYNC_MAX_OBJECT", MAX_OBJECT);
	if (out->object > MAX_OBJECT) /* (the readers' buffers: lower only) */
		out->object = MAX_OBJECT;
	out->fetch_bytes =
	    env_limit("CATAN_SYNC_MAX_FETCH_BYTES", 16L * 1024 * 1024);
	out->remote_ms = env_limit("CATAN_SYNC_REMOTE_MS", 20000);
}

double store_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

bool store_past_deadline(const catan_store *s)
{
	return s->deadline_ms > 0 && store_now_ms() > s->deadline_ms;
}

/* The time of remote `name` starts now. */
static void start_clock(catan_store *s)
{
	s->deadline_ms = store_now_ms() + (double)s->lim.remote_ms;
}

static void note(catan_sync_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note(catan_sync_report *rep, const char *fmt, ...)
{
	va_list ap;
	size_t len = strlen(rep->log);
	if (len + 2 >= sizeof rep->log)
		return;
	va_start(ap, fmt);
	vsnprintf(rep->log + len, sizeof rep->log - len, fmt, ap);
	va_end(ap);
	len = strlen(rep->log);
	if (len + 1 < sizeof rep->log) {
		rep->log[len] = '\n';
		rep->log[len + 1] = '\0';
	}
}

/*
 * The name of the ref refs/catan/<space>/<remote>/<player p> (space:
 * "quarantine" or "held"): false (and no name) when the remote's name
 * makes no valid ref name of it.
 */
static bool remote_ref(char *ref, size_t size, const catan_store *s,
		       const char *space, const char *remote, int p)
{
	int valid = 0;
	int len = snprintf(ref, size, "refs/catan/%s/%s/%s", space, remote,
			   s->game.names.name[p]);
	return len > 0 && (size_t)len < size &&
	       git_reference_name_is_valid(&valid, ref) == 0 && valid;
}

/*
 * The refs under refs/catan/quarantine/ and refs/catan/refused/, counted
 * once per handle (as held_count): a sync with none looks for none.
 */
static int record_count(catan_store *s)
{
	static const char *const globs[] = {"refs/catan/quarantine/*",
					    "refs/catan/refused/*"};
	if (s->quar_refs == 0) {
		int n = 0;
		for (int i = 0; i < 2; i++) {
			git_reference_iterator *it = NULL;
			const char *name;
			if (git_reference_iterator_glob_new(&it, s->repo,
							    globs[i]))
				return 1; /* cannot tell: look */
			while (git_reference_next_name(&name, it) == 0)
				n++;
			git_reference_iterator_free(it);
		}
		s->quar_refs = n + 1;
	}
	return s->quar_refs - 1;
}

/*
 * The quarantine record of player p's branch of `remote`: the tip refused
 * and the first bad commit in it (*bad may be NULL), from the evidence
 * blob refs/catan/quarantine/<remote>/<player> points at (or, as older
 * versions wrote it, the refused tip itself). 0, or -1 when there is none.
 */
static int quarantine_read(catan_store *s, const char *remote, int p,
			   git_oid *tip, git_oid *bad)
{
	char ref[256];
	git_oid q;
	git_blob *b = NULL;
	if (record_count(s) == 0 ||
	    !remote_ref(ref, sizeof ref, s, "quarantine", remote, p) ||
	    git_reference_name_to_id(&q, s->repo, ref))
		return -1;
	if (git_blob_lookup(&b, s->repo, &q)) {
		*tip = q; /* a commit, as before evidence blobs */
		if (bad)
			*bad = q;
		return 0;
	}
	const char *d = git_blob_rawcontent(b);
	size_t len = (size_t)git_blob_rawsize(b);
	int rc = len >= 2 * (GIT_OID_HEXSZ + 5) && !memcmp(d, "tip ", 4) &&
			 !git_oid_fromstrn(tip, d + 4, GIT_OID_HEXSZ) &&
			 !memcmp(d + GIT_OID_HEXSZ + 5, "bad ", 4) &&
			 (!bad || !git_oid_fromstrn(bad, d + GIT_OID_HEXSZ + 9,
						    GIT_OID_HEXSZ))
		     ? 0
		     : -1;
	git_blob_free(b);
	return rc;
}

/* Whether player p's branch of `remote` was quarantined at tip `id`. */
static bool quarantined_at(catan_store *s, const char *remote, int p,
			   const git_oid *id)
{
	git_oid q;
	return quarantine_read(s, remote, p, &q, NULL) == 0 &&
	       git_oid_equal(&q, id);
}

/*
 * Refuses player p's branch of `remote` at `tip` for good: the evidence
 * (the tip, the first bad commit in it, the reason, that commit's headers
 * as stored, at most 2 KiB, a NUL shown as "\0") goes into one small
 * blob that refs/catan/quarantine/<remote>/<player> points at (the
 * headers are read here, or from `also`, the peer's objects, when they
 * were never copied). Nothing of
 * the refused history is kept by it, so `catan gc` reclaims that (and
 * whatever huge object came with it). A commit valid in itself but off
 * its author's branch at that remote (`off`: the peer's refs, not the
 * commit, were wrong) is recorded as "off <id>", not "bad <id>": what
 * builds on it is checked again, not refused at once. Best effort.
 */
static void quarantine(catan_store *s, const char *remote, int p,
		       const git_oid *tip, const git_oid *bad, bool off,
		       const char *why, git_odb *also)
{
	char ref[256], text[4096], th[GIT_OID_HEXSZ + 1], bh[GIT_OID_HEXSZ + 1];
	git_reference *r = NULL;
	git_odb_object *o = NULL;
	git_oid blob;
	if (!remote_ref(ref, sizeof ref, s, "quarantine", remote, p))
		return;
	git_oid_tostr(th, sizeof th, tip);
	git_oid_tostr(bh, sizeof bh, bad ? bad : tip);
	int len = snprintf(text, sizeof text,
			   "tip %s\n%s %s\nremote %s\nplayer %s\nreason "
			   "%.600s\n\n",
			   th, off ? "off" : "bad", bh, remote,
			   s->game.names.name[p], why);
	if (len < 0 || len >= (int)sizeof text)
		return;
	if (git_odb_read(&o, s->odb, bad ? bad : tip) == 0 ||
	    (also && git_odb_read(&o, also, bad ? bad : tip) == 0)) {
		const char *d = git_odb_object_data(o);
		size_t n = git_odb_object_size(o);
		for (size_t i = 0; i < n && len < 2048 + 700; i++) {
			if (d[i] == '\n' && (i + 1 == n || d[i + 1] == '\n')) {
				text[len++] = '\n';
				break; /* the headers end at the blank line */
			}
			if (d[i] == '\0') {
				text[len++] = '\\';
				text[len++] = '0';
			} else {
				text[len++] = d[i];
			}
		}
		git_odb_object_free(o);
	}
	if (git_blob_create_from_buffer(&blob, s->repo, text, (size_t)len) ==
		0 &&
	    git_reference_create(&r, s->repo, ref, &blob, 1,
				 "catan sync: quarantined") == 0)
		git_reference_free(r);
	s->quar_refs = 0;
}

/*
 * Whether `tip` builds on the commit refused before in player p's branch
 * of `remote` (its record's bad commit): walks back from tip, no further
 * than the local tips, commits with a Turn trailer below `floor` (the
 * local branch's turn: nothing new is older) or s->lim.commits commits.
 * Junk that grows by a commit is then refused at once, not checked again.
 */
static bool builds_on_rejected(catan_store *s, const char *remote, int p,
			       const git_oid *tip, const git_oid *local,
			       int floor)
{
	git_oid qtip, bad, *todo = NULL;
	size_t k = 0, cap = 0;
	long seen = 0;
	bool found = false;
	if (quarantine_read(s, remote, p, &qtip, &bad) ||
	    !(todo = store_reserve(NULL, &cap, 16, sizeof *todo)))
		return false;
	todo[k++] = *tip;
	while (k > 0 && !found && seen++ < s->lim.commits) {
		git_oid id = todo[--k];
		git_commit *c = NULL;
		bool stop = false;
		if ((found =
			 git_oid_equal(&id, &bad) || git_oid_equal(&id, &qtip)))
			break;
		for (int i = 0; i < s->game.opt.nplayers && !stop; i++)
			stop = git_oid_equal(&id, &local[i]);
		if (stop || git_commit_lookup(&c, s->repo, &id))
			continue;
		if (store_trailer_int(git_commit_message(c), "Turn") >= floor) {
			unsigned np = git_commit_parentcount(c);
			git_oid *more =
			    store_reserve(todo, &cap, k + np, sizeof *todo);
			if (more) {
				todo = more;
				for (unsigned i = 0; i < np; i++)
					todo[k++] = *git_commit_parent_id(c, i);
			}
		}
		git_commit_free(c);
	}
	free(todo);
	return found;
}

void store_quarantine_untrack(catan_store *s)
{
	git_reference_iterator *it = NULL;
	const char *name;
	if (git_reference_iterator_glob_new(&it, s->repo,
					    "refs/catan/quarantine/*"))
		return;
	while (git_reference_next_name(&name, it) == 0) {
		/* refs/catan/quarantine/<remote>/<player> */
		const char *rest = name + strlen("refs/catan/quarantine/");
		const char *sl = strrchr(rest, '/');
		int p = sl ? catan_names_find(&s->game.names, sl + 1,
					      strlen(sl + 1))
			   : -1;
		char remote[256], ref[512];
		git_oid tip;
		git_reference *r = NULL;
		if (p < 0 || strcmp(sl + 1, s->game.names.name[p]) ||
		    (size_t)(sl - rest) >= sizeof remote)
			continue;
		memcpy(remote, rest, (size_t)(sl - rest));
		remote[sl - rest] = '\0';
		snprintf(ref, sizeof ref, "refs/remotes/%s/%s", remote,
			 s->game.names.name[p]);
		if (quarantine_read(s, remote, p, &tip, NULL) == 0 &&
		    git_reference_lookup(&r, s->repo, ref) == 0 &&
		    git_reference_target(r) &&
		    git_oid_equal(git_reference_target(r), &tip))
			git_reference_delete(r);
		git_reference_free(r);
	}
	git_reference_iterator_free(it);
}

/* The refs under refs/catan/held/, counted once per handle (see held_refs). */
static int held_count(catan_store *s)
{
	if (s->held_refs == 0) {
		git_reference_iterator *it = NULL;
		const char *name;
		int n = 0;
		if (git_reference_iterator_glob_new(&it, s->repo,
						    "refs/catan/held/*"))
			return 1; /* cannot tell: look */
		while (git_reference_next_name(&name, it) == 0)
			n++;
		git_reference_iterator_free(it);
		s->held_refs = n + 1;
	}
	return s->held_refs - 1;
}

/* Whether a tip of some branch of `remote` is held back. */
static bool remote_has_held(catan_store *s, const char *remote)
{
	if (held_count(s) == 0)
		return false;
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		char ref[256];
		git_oid id;
		if (remote_ref(ref, sizeof ref, s, "held", remote, p) &&
		    git_reference_name_to_id(&id, s->repo, ref) == 0)
			return true;
	}
	return false;
}

/*
 * A branch of `remote` holds a valid commit that its author's branch there
 * does not: a peer that shows that may be misbehaving, or may have been
 * read in the middle of a move (its refs are read one at a time; over a
 * fetch, git reads them so too). The first time a tip shows it, it is held
 * back (refs/catan/held/<remote>/<player> records it): true. When the same
 * tip shows it again at a later sync, the peer's refs had time to settle,
 * so it is misbehaviour: false, and the caller quarantines it. So is a tip
 * that does not descend from the one held before: a peer's branch only
 * moves forward, so views of it read mid-move do too, and one that went
 * elsewhere (say, back and forth between two bad tips) is no such view.
 * A tip that cannot be recorded is not held back either (it would be
 * held back again at every sync), nor one already quarantined from that
 * remote; one whose ancestry cannot be read now (an I/O error here) is,
 * the record unchanged.
 */
static bool hold_back(catan_store *s, const char *remote, int p,
		      const git_oid *tip)
{
	char ref[256];
	git_oid was;
	git_reference *r = NULL;
	if (!remote_ref(ref, sizeof ref, s, "held", remote, p))
		return false;
	/* (A tip refused before is refused again, not held back anew.) */
	if (quarantined_at(s, remote, p, tip))
		return false;
	if (git_reference_name_to_id(&was, s->repo, ref) == 0) {
		if (git_oid_equal(&was, tip))
			return false;
		int anc = store_is_ancestor(s, &was, tip);
		if (anc < 0)
			return true;
		if (anc == 0)
			return false;
	}
	if (git_reference_create(&r, s->repo, ref, tip, 1,
				 "catan sync: held back"))
		return false;
	git_reference_free(r);
	s->held_refs = 0;
	return true;
}

/*
 * The held-back record of each branch of `remote` that this sync looked at
 * (has) and did not hold back again (held) is gone: the peer settled, or
 * its tip was judged.
 */
static void release_held(catan_store *s, const char *remote, const bool *has,
			 const bool *held)
{
	if (held_count(s) == 0)
		return;
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		char ref[256];
		git_reference *r = NULL;
		if (!has[p] || held[p] ||
		    !remote_ref(ref, sizeof ref, s, "held", remote, p) ||
		    git_reference_lookup(&r, s->repo, ref))
			continue;
		if (git_reference_delete(r) == 0)
			s->held_refs = 0;
		git_reference_free(r);
	}
}

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
 * Verifies and adopts what remote `remote` holds: tips[p] is its branch of
 * player p where has[p]. Every object reachable from the tips is in the
 * object database on disk. The branches that move are written by settle;
 * held[p] is set for each branch held back (hold_back). Returns -1 only
 * when the local repository cannot be updated.
 */
static int verify_and_adopt(catan_store *s, const char *remote,
			    const git_oid *tips, const bool *has, bool *held,
			    catan_sync_report *rep, catan_err *err)
{
	int n = s->game.opt.nplayers;
	git_oid local[CATAN_MAX_PLAYERS], cand[CATAN_MAX_PLAYERS];
	bool ahead[CATAN_MAX_PLAYERS] = {false};
	char hex[GIT_OID_HEXSZ + 1], hex2[GIT_OID_HEXSZ + 1];

	for (int p = 0; p < n; p++) {
		if (store_branch_tip(&local[p], s, p))
			return store_fail(err,
					  "branch refs/heads/%s is missing",
					  s->game.names.name[p]);
		cand[p] = local[p];
	}
	for (int p = 0; p < n; p++) {
		if (!has[p])
			continue; /* this remote does not have the branch */
		git_oid r = tips[p];
		if (quarantined_at(s, remote, p, &r))
			continue; /* refused and reported before */
		if (store_is_ancestor(s, &r, &local[p]) == 1)
			continue; /* nothing new */
		if (store_is_ancestor(s, &local[p], &r) != 1) {
			git_oid_tostr(hex, sizeof hex, &local[p]);
			git_oid_tostr(hex2, sizeof hex2, &r);
			note(
			    rep,
			    "rejected %s from %s: history rewritten (local %s, "
			    "remote %s does not contain it); kept as "
			    "refs/catan/quarantine/%s/%s",
			    s->game.names.name[p], remote, hex, hex2, remote,
			    s->game.names.name[p]);
			quarantine(s, remote, p, &r, NULL, false,
				   "history rewritten", NULL);
			rep->rejected++;
			continue;
		}
		int floor = 0;
		git_commit *lc = NULL;
		if (git_commit_lookup(&lc, s->repo, &local[p]) == 0)
			floor =
			    store_trailer_int(git_commit_message(lc), "Turn");
		git_commit_free(lc);
		if (builds_on_rejected(s, remote, p, &r, local, floor)) {
			git_oid_tostr(hex2, sizeof hex2, &r);
			note(rep,
			     "rejected %s from %s: builds on what was "
			     "rejected before (refs/catan/quarantine/%s/%s); "
			     "not checked again (tip %.10s)",
			     s->game.names.name[p], remote, remote,
			     s->game.names.name[p], hex2);
			git_oid qtip, qbad;
			char why[120];
			quarantine_read(s, remote, p, &qtip, &qbad);
			git_oid_tostr(hex, sizeof hex, &qbad);
			snprintf(why, sizeof why,
				 "builds on %s, rejected before", hex);
			quarantine(s, remote, p, &r, &qbad, false, why, NULL);
			rep->rejected++;
			continue;
		}
		cand[p] = r;
		ahead[p] = true;
	}
	/*
	 * Verify all candidates together (they may build on each other);
	 * when a commit fails, drop the candidates holding it and retry.
	 */
	for (int round = 0; round <= n; round++) {
		bool any = false;
		for (int p = 0; p < n; p++)
			any |= ahead[p];
		if (!any)
			return 0;
		catan_verify_report vr;
		if (store_verify_new(s, cand, &vr, err))
			return -1;
		if (vr.ok) {
			for (int p = 0; p < n; p++) {
				if (!ahead[p])
					continue;
				if (defer_move(s, p, &local[p], &cand[p], err))
					return -1;
				git_oid_tostr(hex, sizeof hex, &cand[p]);
				note(rep, "adopted %s from %s: now at %.10s",
				     s->game.names.name[p], remote, hex);
				rep->adopted++;
			}
			/* (store_verify_new kept the newest state it checked.)
			 */
			return 0;
		}
		if (vr.timed_out) {
			/* No verdict: nothing is adopted or quarantined. */
			note(rep, "gave up on %s: %s (at commit %.10s)", remote,
			     vr.why, vr.bad.hex);
			rep->refused++;
			return 0;
		}
		/*
		 * Every candidate holding the bad commit is dropped (by
		 * reachability: verify says which). Should none be said to
		 * hold it, every candidate left is refused with the reason
		 * rather than verified again: a sync never ends without a
		 * word on what it fetched.
		 */
		unsigned holds = vr.holders;
		for (int p = 0; p < n; p++)
			if (ahead[p] && (holds & (1u << p)))
				break;
			else if (p == n - 1)
				holds = ~0u;
		for (int p = 0; p < n; p++) {
			if (!ahead[p] || !(holds & (1u << p)))
				continue;
			git_oid_tostr(hex, sizeof hex, &cand[p]);
			/*
			 * Held back only when the author's branch is the
			 * remote's own (not one this sync dropped or found
			 * behind ours): then the remote really lacks it.
			 */
			int a = vr.off_author;
			if (vr.off_branch && a >= 0 && a < n && has[a] &&
			    git_oid_equal(&cand[a], &tips[a]) &&
			    hold_back(s, remote, p, &cand[p])) {
				held[p] = true;
				note(rep,
				     "held back %s from %s: commit %.10s: %s "
				     "there (tip %.10s); tried again at the "
				     "next sync",
				     s->game.names.name[p], remote,
				     vr.bad.hex, vr.why, hex);
			} else {
				note(rep,
				     "rejected %s from %s: commit %.10s: %s; "
				     "kept as refs/catan/quarantine/%s/%s "
				     "(tip %.10s)",
				     s->game.names.name[p], remote, vr.bad.hex,
				     vr.why, remote, s->game.names.name[p],
				     hex);
				git_oid badid;
				git_oid_fromstr(&badid, vr.bad.hex);
				quarantine(s, remote, p, &cand[p], &badid,
					   vr.off_branch, vr.why, NULL);
				rep->rejected++;
			}
			cand[p] = local[p];
			ahead[p] = false;
		}
	}
	return 0;
}

/*
 * Verifies and adopts what remote `remote` holds: tips[p] is its branch of
 * player p where has[p] (see verify_and_adopt), then forgets the held-back
 * tips of its branches that were not held back again.
 */
static int adopt_tips(catan_store *s, const char *remote, const git_oid *tips,
		      const bool *has, catan_sync_report *rep, catan_err *err)
{
	bool held[CATAN_MAX_PLAYERS] = {false};
	int rc = verify_and_adopt(s, remote, tips, has, held, rep, err);
	if (rc == 0)
		release_held(s, remote, has, held);
	return rc;
}

/* adopt_tips for what the remote-tracking refs of `remote` hold. */
static int adopt_remote(catan_store *s, const char *remote,
			catan_sync_report *rep, catan_err *err)
{
	git_oid tips[CATAN_MAX_PLAYERS];
	bool has[CATAN_MAX_PLAYERS] = {false};
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		char ref[256];
		snprintf(ref, sizeof ref, "refs/remotes/%s/%s", remote,
			 s->game.names.name[p]);
		has[p] = git_reference_name_to_id(&tips[p], s->repo, ref) == 0;
	}
	return adopt_tips(s, remote, tips, has, rep, err);
}

/*
 * Fetches every refs/heads/ branch of remote `name` into refs/remotes/name/.
 * It first lists the remote's branches and stops there when each already
 * equals its remote-tracking ref: a peer with nothing new costs a
 * connection, not a negotiation, a pack and ref updates. *changed says
 * whether anything was downloaded.
 */
/*
 * What a fetch watches as the pack comes (libgit2's transfer progress):
 * the bytes, the objects and the time of the remote, against their
 * limits. The ssh state comes first: store_ssh's callbacks get this as
 * their payload too.
 */
typedef struct fetch_watch {
	store_ssh ssh;
	catan_store *s;
	bool over;
	char why[200];
} fetch_watch;

static int fetch_progress(const git_indexer_progress *st, void *payload)
{
	fetch_watch *fw = payload;
	const store_limits *lim = &fw->s->lim;
	if ((long long)st->received_bytes > (long long)lim->fetch_bytes)
		snprintf(fw->why, sizeof fw->why,
			 "over CATAN_SYNC_MAX_FETCH_BYTES (%ld bytes)",
			 lim->fetch_bytes);
	else if ((long long)st->total_objects > 4LL * lim->commits)
		snprintf(fw->why, sizeof fw->why,
			 "%u objects: over 4 x CATAN_SYNC_MAX_COMMITS (%ld)",
			 st->total_objects, lim->commits);
	else if (store_past_deadline(fw->s))
		snprintf(fw->why, sizeof fw->why,
			 "over CATAN_SYNC_REMOTE_MS (%ld ms)", lim->remote_ms);
	else
		return 0;
	fw->over = true;
	return -1;
}

/* The peer's own progress messages, before the pack: the time still counts. */
static int fetch_sideband(const char *str, int len, void *payload)
{
	fetch_watch *fw = payload;
	(void)str;
	(void)len;
	if (!store_past_deadline(fw->s))
		return 0;
	snprintf(fw->why, sizeof fw->why, "over CATAN_SYNC_REMOTE_MS (%ld ms)",
		 fw->s->lim.remote_ms);
	fw->over = true;
	return -1;
}

/* Whether remote `name`'s branch `ref` (refs/heads/P) is quarantined at id. */
static bool head_quarantined(catan_store *s, const char *name, const char *ref,
			     const git_oid *id)
{
	int p =
	    s->game.opt.nplayers > 0 && !strncmp(ref, "refs/heads/", 11)
		? catan_names_find(&s->game.names, ref + 11, strlen(ref + 11))
		: -1;
	return p >= 0 && !strcmp(ref + 11, s->game.names.name[p]) &&
	       quarantined_at(s, name, p, id);
}

/*
 * A fetch cut by a limit of bytes or objects would be cut again while
 * the remote's branches stay where they are: refs/catan/refused/<remote>
 * records them (a blob: "reason <why>", then "<hex> <ref>" per branch),
 * and the next fetch that finds the same branches there is refused at
 * once, by the same reason, without downloading anything. (A cut for
 * time is not recorded: a slow link is no verdict.)
 */
static int heads_text(char *buf, size_t size, const git_remote_head **heads,
		      size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		char hex[GIT_OID_HEXSZ + 1];
		if (strncmp(heads[i]->name, "refs/heads/", 11))
			continue;
		git_oid_tostr(hex, sizeof hex, &heads[i]->oid);
		int k = snprintf(buf + len, size - len, "%s %s\n", hex,
				 heads[i]->name);
		if (k < 0 || (size_t)k >= size - len)
			return -1; /* (too many to remember: not recorded) */
		len += (size_t)k;
	}
	return 0;
}

static bool refused_ref(char *ref, size_t size, const char *name)
{
	int valid = 0;
	int len = snprintf(ref, size, "refs/catan/refused/%s", name);
	return len > 0 && (size_t)len < size &&
	       git_reference_name_is_valid(&valid, ref) == 0 && valid;
}

/* The reason the same heads were refused before, into why: true. */
static bool refused_before(catan_store *s, const char *name, const char *text,
			   char *why, size_t whylen)
{
	char ref[300];
	git_oid id;
	git_blob *b = NULL;
	bool same = false;
	if (record_count(s) == 0 || !refused_ref(ref, sizeof ref, name) ||
	    git_reference_name_to_id(&id, s->repo, ref) ||
	    git_blob_lookup(&b, s->repo, &id))
		return false;
	const char *d = git_blob_rawcontent(b);
	size_t len = (size_t)git_blob_rawsize(b);
	const char *nl = memchr(d, '\n', len);
	if (nl && len > 7 && !memcmp(d, "reason ", 7) &&
	    (size_t)(d + len - nl - 1) == strlen(text) &&
	    !memcmp(nl + 1, text, strlen(text))) {
		snprintf(why, whylen, "%.*s", (int)(nl - d - 7), d + 7);
		same = true;
	}
	git_blob_free(b);
	return same;
}

/* Records the heads refused for `why`, or (why NULL) forgets them. */
static void refused_record(catan_store *s, const char *name, const char *text,
			   const char *why)
{
	char ref[300];
	git_reference *r = NULL;
	if ((!why && record_count(s) == 0) ||
	    !refused_ref(ref, sizeof ref, name))
		return;
	s->quar_refs = 0;
	if (!why) {
		if (git_reference_lookup(&r, s->repo, ref) == 0)
			git_reference_delete(r);
		git_reference_free(r);
		return;
	}
	size_t len = strlen(why) + strlen(text) + 16;
	char *buf = malloc(len);
	git_oid id;
	if (buf) {
		int k = snprintf(buf, len, "reason %s\n%s", why, text);
		if (k > 0 &&
		    git_blob_create_from_buffer(&id, s->repo, buf, (size_t)k) ==
			0 &&
		    git_reference_create(&r, s->repo, ref, &id, 1,
					 "catan sync: refused") == 0)
			git_reference_free(r);
	}
	free(buf);
}

static int fetch_remote(catan_store *s, const char *name, bool *changed,
			catan_err *err)
{
	git_remote *remote = NULL;
	char spec[256];
	char *specs[1] = {spec};
	git_strarray refspecs = {specs, 1};
	git_fetch_options opt;
	git_remote_callbacks cb;
	const git_remote_head **heads = NULL;
	size_t nheads = 0;
	int rc = -1;

	*changed = false;
	git_fetch_options_init(&opt, GIT_FETCH_OPTIONS_VERSION);
	git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
	opt.prune = GIT_FETCH_NO_PRUNE;
	opt.update_fetchhead = 0;
	opt.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	snprintf(spec, sizeof spec, "+refs/heads/*:refs/remotes/%s/*", name);
	if (git_remote_lookup(&remote, s->repo, name))
		return store_git_fail(err, "no such remote");
	const char *url = git_remote_url(remote);
	fetch_watch fw;
	memset(&fw, 0, sizeof fw);
	fw.s = s;
	store_ssh_callbacks(&cb, &fw.ssh, url);
	cb.transfer_progress = fetch_progress;
	cb.sideband_progress = fetch_sideband;
	opt.callbacks = cb;
	if (git_remote_connect(remote, GIT_DIRECTION_FETCH, &cb, NULL, NULL) ||
	    git_remote_ls(&heads, &nheads, remote))
		goto fail;
	char text[16384];
	bool known = heads_text(text, sizeof text, heads, nheads) == 0;
	if (known && refused_before(s, name, text, fw.why, sizeof fw.why)) {
		char why[200];
		snprintf(why, sizeof why, "%s", fw.why);
		snprintf(fw.why, sizeof fw.why,
			 "%.150s (its branches have not moved since)", why);
		fw.over = true;
		goto fail;
	}
	bool same = true;
	for (size_t i = 0; i < nheads && same; i++) {
		const char *ref = heads[i]->name;
		if (strncmp(ref, "refs/heads/", 11))
			continue;
		char local[512];
		git_oid have;
		snprintf(local, sizeof local, "refs/remotes/%s/%s", name,
			 ref + 11);
		same = (git_reference_name_to_id(&have, s->repo, local) == 0 &&
			git_oid_equal(&have, &heads[i]->oid)) ||
		       head_quarantined(s, name, ref, &heads[i]->oid);
	}
	if (!same) {
		if (git_remote_download(remote, &refspecs, &opt) ||
		    git_remote_update_tips(remote, &cb, 0,
					   GIT_REMOTE_DOWNLOAD_TAGS_NONE,
					   "catan sync")) {
			if (fw.over && known &&
			    !strstr(fw.why, "CATAN_SYNC_REMOTE_MS"))
				refused_record(s, name, text, fw.why);
			goto fail;
		}
		*changed = true;
	}
	if (known && s->lim.commits > 0)
		refused_record(s, name, text, NULL);
	rc = 0;
fail:
	if (rc && fw.over) {
		store_fail(err, "%s", fw.why);
		rc = -2;
	} else if (rc) {
		char what[300];
		snprintf(what, sizeof what, "fetching from %.200s", name);
		store_ssh_fail(&fw.ssh, err, what);
	}
	git_remote_disconnect(remote);
	git_remote_free(remote);
	return rc;
}

/*
 * Every sync that brings something leaves a small pack; looking an object
 * up costs a probe per pack, so syncs would slow down as a game goes on.
 * Past `limit` packs, the small ones are merged into one (their entries
 * copied as they are, store_pack_merge) and removed: the work is what came
 * since the last merge, not the whole history, and the packs stay few (the
 * merged pack becomes the largest in its turn, as in git's geometric
 * repacking). An open mapping of a removed pack stays valid; the object
 * database is then rescanned. Best effort: on any failure nothing is
 * removed.
 */
typedef struct pack_size {
	int index;
	off_t bytes;
} pack_size;

static int by_size(const void *a, const void *b)
{
	const pack_size *x = a, *y = b;
	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/*
 * A new object database for the handle, once packs were removed: libgit2
 * 1.5 adds the packs a rescan finds but never forgets a removed one, so
 * every lookup of a missing object would go on probing every pack the
 * handle ever saw (and a sync looks up objects it does not have yet).
 * On failure the old one stays (still valid: a removed pack stays mapped).
 */
static void reopen_odb(catan_store *s)
{
	char dir[4200];
	git_odb *fresh = NULL;
	snprintf(dir, sizeof dir, "%sobjects", git_repository_path(s->repo));
	if (git_odb_open(&fresh, dir)) {
		git_odb_refresh(s->odb);
		return;
	}
	git_repository_set_odb(s->repo, fresh); /* takes its own reference */
	git_odb_free(s->odb);
	s->odb = fresh;
}

static void repack_if_needed(catan_store *s, int limit)
{
	char dir[4096], path[8192];
	snprintf(dir, sizeof dir, "%sobjects/pack",
		 git_repository_path(s->repo));
	DIR *d = opendir(dir);
	struct dirent *e;
	char(*name)[64] = NULL; /* "pack-<40 hex>" of each pack */
	pack_size *size = NULL;
	int n = 0;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct stat sb;
		if (len != 50 || strncmp(e->d_name, "pack-", 5) ||
		    strcmp(e->d_name + 45, ".pack"))
			continue;
		void *more = realloc(name, sizeof *name * (size_t)(n + 1));
		if (!more)
			break;
		name = more;
		if (!(more = realloc(size, sizeof *size * (size_t)(n + 1))))
			break;
		size = more;
		snprintf(name[n], sizeof name[n], "%.45s", e->d_name);
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		size[n].index = n;
		size[n].bytes = stat(path, &sb) == 0 ? sb.st_size : 0;
		n++;
	}
	if (d)
		closedir(d);
	bool ok = n > limit;
	/*
	 * Which to merge: by size, smallest first, the longest run whose
	 * total stays below half the next pack (that one and the larger ones
	 * are kept), but at least all but the largest when that run would
	 * leave too many. Each object is rewritten about log2(game) times.
	 */
	if (ok)
		qsort(size, (size_t)n, sizeof *size, by_size);
	int merge = 0;
	off_t total = 0;
	while (ok && merge < n - 1 &&
	       (n - merge > limit / 2 ||
		2 * (total + size[merge].bytes) < size[merge + 1].bytes)) {
		total += size[merge].bytes;
		merge++;
	}
	const char **stems = ok ? malloc(sizeof *stems * (size_t)merge) : NULL;
	char keep[GIT_OID_HEXSZ + 1];
	catan_err err;
	for (int i = 0; stems && i < merge; i++)
		stems[i] = name[size[i].index];
	ok = stems && store_pack_merge(dir, stems, merge, keep, &err) == 0;
	for (int i = 0; ok && i < merge; i++) {
		if (strstr(name[size[i].index], keep))
			continue;
		snprintf(path, sizeof path, "%s/%s.idx", dir,
			 name[size[i].index]);
		unlink(path);
		snprintf(path, sizeof path, "%s/%s.pack", dir,
			 name[size[i].index]);
		unlink(path);
	}
	if (ok)
		reopen_odb(s);
	free(stems);
	free(name);
	free(size);
}

/* ---- path remotes, read directly ---- */

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


void store_sync_free(catan_store *s)
{
	for (int i = 0; i < s->npeers; i++) {
		git_odb_free(s->peers[i].odb);
		git_repository_free(s->peers[i].repo);
		free(s->peers[i].name);
		free(s->peers[i].path);
	}
	free(s->peers);
	s->peers = NULL;
	s->npeers = 0;
	store_pack_free(s->stage);
	s->stage = NULL;
}

/* The directory a path or file:// URL names, or NULL (network URL). */
static const char *local_dir(const char *url)
{
	struct stat sb;
	if (!url)
		return NULL;
	if (!strncmp(url, "file://", 7))
		url += 7;
	else if (strstr(url, "://"))
		return NULL;
	return stat(url, &sb) == 0 && S_ISDIR(sb.st_mode) ? url : NULL;
}

/* The open repository of path remote `name` at `path`, or NULL. */
static store_peer *peer_open(catan_store *s, const char *name, const char *path)
{
	for (int i = 0; i < s->npeers; i++)
		if (!strcmp(s->peers[i].name, name) &&
		    !strcmp(s->peers[i].path, path))
			return &s->peers[i];
	store_peer pe = {strdup(name), strdup(path), NULL, NULL,
			 {{{0}}},      {0},	     {0},  {0}};
	store_peer *grown =
	    realloc(s->peers, sizeof *grown * (size_t)(s->npeers + 1));
	if (!pe.name || !pe.path || !grown ||
	    git_repository_open_ext(&pe.repo, path,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) ||
	    git_repository_odb(&pe.odb, pe.repo)) {
		git_repository_free(pe.repo);
		free(pe.name);
		free(pe.path);
		if (grown)
			s->peers = grown;
		return NULL;
	}
	s->peers = grown;
	s->peers[s->npeers] = pe;
	return &s->peers[s->npeers++];
}

/*
 * The stage: a pack being written in memory (pack.h), with no deltas (a
 * sync brings a few turns; their bases are mostly on disk already, and a
 * pack on disk may only hold deltas against its own objects). The object
 * database never sees it: it is written with its index, then the database
 * rescanned, before anything refers to what it holds.
 */
static int stage_init(catan_store *s)
{
	return s->stage ? 0 : store_pack_new_fast(&s->stage);
}

/* Forgets what the stage holds (nothing refers to it yet). */
static void stage_drop(catan_store *s)
{
	store_pack_free(s->stage);
	s->stage = NULL;
}

/*
 * Writes the stage as one pack into objects/pack and empties it. Until it
 * returns, nothing points at the staged objects; a crash before that
 * leaves at most a temporary file.
 */
static int stage_flush(catan_store *s, catan_err *err)
{
	char dir[4200];
	int rc = 0;
	if (!s->stage || store_pack_count(s->stage) == 0)
		return 0;
	snprintf(dir, sizeof dir, "%sobjects/pack",
		 git_repository_path(s->repo));
	if (store_pack_write(s->stage, dir, NULL, err))
		rc = -1;
	else
		git_odb_refresh(s->odb); /* the new pack */
	stage_drop(s);
	s->packs_added = true;
	return rc;
}

/* An object read from a peer: its content, owned by one of the two. */
typedef struct peer_obj {
	unsigned char *buf; /* malloc'ed: read from a loose file */
	git_odb_object *o;  /* or read through the peer's object database */
	const unsigned char *data;
	size_t len;
} peer_obj;

static void peer_obj_free(peer_obj *po)
{
	free(po->buf);
	git_odb_object_free(po->o);
	memset(po, 0, sizeof *po);
}

/*
 * Opens a file of a peer's repository for reading without ever blocking
 * or leaving it: O_NONBLOCK (a FIFO would wait for a writer for ever),
 * O_NOFOLLOW (no symlink out of the repository), and only a regular file
 * is kept (no FIFO, device, socket or directory). The descriptor, or -1
 * with errno (ENOENT when there is no such file; EINVAL when it is not a
 * regular file).
 */
static int peer_open_file(const char *path)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENXIO)
			errno = EINVAL; /* a symlink, or a socket */
		return -1;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/*
 * Whether the files libgit2 itself opens in the peer's repository (it
 * opens them blocking, and follows symlinks) are plain: HEAD, config,
 * packed-refs, objects/info/alternates (refused outright: it points
 * elsewhere), and everything in objects/pack; and objects, objects/pack,
 * refs and refs/heads are directories, not symlinks. 0, or -1 and why.
 */
static int peer_plain(const char *gitdir, char *why, size_t whylen)
{
	static const char *const files[] = {"HEAD", "config", "packed-refs",
					    "objects/info/alternates"};
	char path[4400];
	struct stat sb;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", gitdir, files[i]);
		if (lstat(path, &sb) && errno == ENOENT)
			continue;
		if (i == 3 || !S_ISREG(sb.st_mode)) {
			snprintf(why, whylen,
				 "%.300s is not a plain file of the "
				 "repository",
				 path);
			return -1;
		}
	}
	static const char *const dirs[] = {"objects", "objects/pack", "refs",
					   "refs/heads"};
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		snprintf(path, sizeof path, "%s/%s", gitdir, dirs[i]);
		if (lstat(path, &sb) && errno == ENOENT)
			continue;
		if (!S_ISDIR(sb.st_mode)) {
			snprintf(why, whylen,
				 "%.300s is not a directory of the "
				 "repository",
				 path);
			return -1;
		}
	}
	snprintf(path, sizeof path, "%s/objects/pack", gitdir);
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = 0;
	while (d && rc == 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%.4000s/objects/pack/%s", gitdir,
			 e->d_name);
		if (lstat(path, &sb) || !S_ISREG(sb.st_mode)) {
			snprintf(why, whylen,
				 "%.300s is not a plain file of the "
				 "repository",
				 path);
			rc = -1;
		}
	}
	if (d)
		closedir(d);
	return rc;
}

/*
 * Reads the loose object file of `id` in the peer's repository: zlib of
 * "<type> <size>\0" and the content. Returns 0; 1 when there is no such
 * file (the object may be packed); -1 when the file is unreadable or not
 * of `type`; -2 when it is not a regular file (peer_open_file); -3 when
 * it is over MAX_OBJECT (or its compressed form is).
 */
static int read_loose(store_peer *pe, const git_oid *id, git_object_t type,
		      peer_obj *po)
{
	char path[4200], hex[GIT_OID_HEXSZ + 1];
	unsigned char z[MAX_OBJECT + 512];
	git_oid_tostr(hex, sizeof hex, id);
	snprintf(path, sizeof path, "%sobjects/%.2s/%s",
		 git_repository_path(pe->repo), hex, hex + 2);
	if (!pe->fan_ok[id->id[0]]) {
		/* (O_NOFOLLOW covers the file, not its directory) */
		struct stat sb;
		path[strlen(path) - GIT_OID_HEXSZ + 1] = '\0';
		int st = lstat(path, &sb);
		path[strlen(path)] = '/';
		if (st)
			return errno == ENOENT ? 1 : -1;
		if (!S_ISDIR(sb.st_mode))
			return -2;
		pe->fan_ok[id->id[0]] = true;
	}
	int fd = peer_open_file(path);
	if (fd < 0)
		return errno == ENOENT ? 1 : errno == EINVAL ? -2 : -1;
	ssize_t n = read(fd, z, sizeof z);
	close(fd);
	if (n == (ssize_t)sizeof z)
		return -3; /* (a game's objects compress well below this) */
	if (n <= 0)
		return -1;
	const size_t room = MAX_OBJECT + 64;
	unsigned char *out = malloc(room + 1);
	z_stream st;
	memset(&st, 0, sizeof st);
	if (!out || inflateInit(&st) != Z_OK) {
		free(out);
		return -1;
	}
	st.next_in = z;
	st.avail_in = (uInt)n;
	st.next_out = out;
	st.avail_out = (uInt)room + 1;
	int zr = inflate(&st, Z_FINISH);
	size_t got = room + 1 - st.avail_out;
	inflateEnd(&st);
	const char *want = git_object_type2string(type);
	size_t wl = strlen(want);
	const unsigned char *nul = memchr(out, '\0', got < 32 ? got : 32);
	char *end = NULL;
	unsigned long long size =
	    nul && got > wl + 1 && !memcmp(out, want, wl) && out[wl] == ' '
		? strtoull((const char *)out + wl + 1, &end, 10)
		: 0;
	if (nul && end && end == (const char *)nul && size > MAX_OBJECT) {
		free(out);
		return -3;
	}
	if (zr != Z_STREAM_END || !nul || !end || end != (const char *)nul ||
	    size != got - (size_t)(nul + 1 - out)) {
		free(out);
		return -1;
	}
	po->buf = out;
	po->data = nul + 1;
	po->len = (size_t)size;
	return 0;
}

/*
 * Reads object `id` of type `type` from the peer: its loose file directly
 * (what the peer wrote itself is loose, and libgit2 would first look for
 * it in every pack, formatting an error for each), else through its object
 * database. Returns 0; 1 when it is missing, unreadable or of another
 * type; 2 when it is over `max` bytes (CATAN_SYNC_MAX_OBJECT); 3 when its
 * file is not a regular file (peer_open_file: a FIFO, a device, a
 * symlink).
 */
static int peer_read(store_peer *pe, const git_oid *id, git_object_t type,
		     long max, peer_obj *po)
{
	size_t len = 0;
	git_object_t t;
	memset(po, 0, sizeof *po);
	int rc = read_loose(pe, id, type, po);
	if (rc == 0 || rc == -1)
		return -rc;
	if (rc == -2)
		return 3;
	if (git_odb_read_header(&len, &t, pe->odb, id) || t != type)
		return 1;
	if ((long long)len > (long long)max)
		return 2;
	if (git_odb_read(&po->o, pe->odb, id))
		return 1;
	po->data = git_odb_object_data(po->o);
	po->len = git_odb_object_size(po->o);
	if ((long long)po->len > (long long)max) {
		peer_obj_free(po);
		return 2;
	}
	return 0;
}

/*
 * Copies object `id` of type `type` from the peer into the stage, unless
 * it is staged already or (when `look`) this repository holds it; *copied
 * says which, and po (may be NULL) keeps the content when copied. Returns
 * 1 when the peer's object is missing, of another type or does not hash
 * to its id (the ordinary fetch then handles and reports it); 2 when it
 * is over CATAN_SYNC_MAX_OBJECT, 3 when its file is not a regular file
 * (peer_read).
 */
static int copy_object(catan_store *s, store_peer *pe, const git_oid *id,
		       git_object_t type, bool look, bool *copied,
		       peer_obj *keep)
{
	peer_obj po;
	*copied = false;
	/* Our own store changes only through this handle: no rescan. */
	if (store_pack_find(s->stage, id) >= 0 ||
	    (look && git_odb_exists_ext(s->odb, id, GIT_ODB_LOOKUP_NO_REFRESH)))
		return 0;
	int got = peer_read(pe, id, type, s->lim.object, &po);
	if (got)
		return got;
	/* The stage hashes what it packs: the id must be the content's. */
	int k = store_pack_add(s->stage, type, po.data, po.len, NULL, 0);
	if (k < 0 || !git_oid_equal(store_pack_id(s->stage, k), id)) {
		peer_obj_free(&po);
		return 1;
	}
	*copied = true;
	if (keep)
		*keep = po;
	else
		peer_obj_free(&po);
	return 0;
}

/* An entry of a raw tree: "<octal mode> <name>\0<20-byte id>". */
typedef struct tree_entry {
	unsigned mode;
	const char *name;
	git_oid id;
} tree_entry;

#define MAX_ENTRIES 64 /* a state tree has about ten */

/* Parses a raw tree into e (at most MAX_ENTRIES); the count, or -1. */
static int parse_tree(tree_entry *e, const unsigned char *d, size_t len)
{
	int n = 0;
	size_t i = 0;
	while (i < len) {
		unsigned mode = 0;
		size_t start = i;
		while (i < len && d[i] >= '0' && d[i] <= '7' && i - start < 7)
			mode = mode * 8 + (unsigned)(d[i++] - '0');
		if (i == start || i >= len || d[i++] != ' ' || n == MAX_ENTRIES)
			return -1;
		const unsigned char *nul = memchr(d + i, '\0', len - i);
		if (!nul || nul == d + i || (size_t)(d + len - nul) < 21)
			return -1;
		e[n].mode = mode;
		e[n].name = (const char *)d + i;
		git_oid_fromraw(&e[n].id, nul + 1);
		n++;
		i = (size_t)(nul + 21 - d);
	}
	return n;
}

/*
 * Copies tree `id` and what it holds. A tree this repository has (or has
 * staged) is complete already (nothing incomplete is ever written to disk
 * here, and fetches bring whole histories), so the copy stops there. With
 * `base` (the parent commit's tree at the same place, complete here), an
 * entry equal to the one of the same name there is skipped, and one that
 * differs is new (a turn changes a few files): it is copied without
 * asking this repository first. (The rare blob that comes back to an
 * older content is then stored twice, in two packs; a merge keeps one.)
 */
static int copy_tree(catan_store *s, store_peer *pe, const git_oid *id,
		     const git_oid *base, int depth)
{
	peer_obj t = {0}, bt = {0};
	tree_entry te[MAX_ENTRIES], be[MAX_ENTRIES];
	int nt, nb = 0, rc;
	bool copied;
	if (depth > 3)
		return 1;
	if (base && git_oid_equal(id, base))
		return 0;
	if ((rc =
		 copy_object(s, pe, id, GIT_OBJECT_TREE, !base, &copied, &t)) ||
	    !copied)
		return rc;
	if (depth == 0)
		store_tree_remember(s, id, t.data, t.len);
	/* The base: built or copied lately here, or read from the peer. */
	const unsigned char *bd = NULL;
	size_t blen = 0;
	if (base && !(bd = store_tree_recall(s, base, &blen)) &&
	    peer_read(pe, base, GIT_OBJECT_TREE, s->lim.object, &bt) == 0) {
		bd = bt.data;
		blen = bt.len;
	}
	if ((nt = parse_tree(te, t.data, t.len)) < 0 ||
	    (base && (!bd || (nb = parse_tree(be, bd, blen)) < 0))) {
		rc = 1;
		goto done;
	}
	for (int i = 0; rc == 0 && i < nt; i++) {
		const git_oid *prev = NULL;
		for (int j = 0; j < nb && !prev; j++)
			if (be[j].mode == te[i].mode &&
			    !strcmp(be[j].name, te[i].name))
				prev = &be[j].id;
		if (prev && git_oid_equal(prev, &te[i].id))
			continue;
		if (te[i].mode == GIT_FILEMODE_TREE)
			rc = copy_tree(s, pe, &te[i].id, prev, depth + 1);
		else if (te[i].mode == GIT_FILEMODE_BLOB)
			rc = copy_object(s, pe, &te[i].id, GIT_OBJECT_BLOB,
					 !base, &copied, NULL);
		else
			rc = 1;
	}
done:
	peer_obj_free(&t);
	peer_obj_free(&bt);
	return rc;
}

/* Is id among the first n of list? */
static bool listed(const git_oid *list, size_t n, const git_oid *id)
{
	for (size_t i = 0; i < n; i++)
		if (git_oid_equal(&list[i], id))
			return true;
	return false;
}

/* The tree and first parent of a raw commit; -1 when it does not parse. */
static int parse_commit(git_oid *tree, git_oid *parents, unsigned *np,
			unsigned max, const peer_obj *po)
{
	const char *d = (const char *)po->data, *end = d + po->len;
	*np = 0;
	if (po->len < 46 || memcmp(d, "tree ", 5) || d[45] != '\n' ||
	    git_oid_fromstrn(tree, d + 5, GIT_OID_HEXSZ))
		return -1;
	d += 46;
	while (end - d >= 48 && !memcmp(d, "parent ", 7) && d[47] == '\n') {
		if (*np == max ||
		    git_oid_fromstrn(&parents[*np], d + 7, GIT_OID_HEXSZ))
			return -1;
		(*np)++;
		d += 48;
	}
	return 0;
}

/*
 * Copies the commits reachable from `tip` that this repository lacks:
 * first the commits (newest first; held[] are nheld commits known to be
 * here), then, oldest first, the tree of each.
 * A commit's tree is compared with its first parent's when that parent's
 * tree is complete here: a commit this repository had, or one whose tree
 * was copied before it. Each commit's form is checked as it comes
 * (store_commit_form), and the walk stops at the first that fails, at
 * a limit, or at one of refused[0..2) (when not NULL: the tip and the bad
 * commit of the branch's quarantine record). Returns 0; 1 when something is
 * unusual (the ordinary fetch handles it); 2 when the branch is refused (*bad
 * the commit, why the reason: a bad form, a limit passed); 3 when a file of the
 * peer is not a regular file; 4 when the remote's time is up.
 */
#define MAX_PARENTS CATAN_MAX_PLAYERS /* a merge has one per discard */

typedef struct got_commit {
	git_oid id, tree, parent; /* parent: the first, or zero */
} got_commit;

static int copy_history(catan_store *s, store_peer *pe, const git_oid *tip,
			const git_oid *held, int nheld, const git_oid *refused,
			git_oid *bad, char *why, size_t whylen)
{
	size_t n = 0, cap = 16, nc = 0, ccap = 16;
	git_oid *todo = malloc(sizeof *todo * cap);
	got_commit *got = malloc(sizeof *got * ccap); /* newest first */
	git_oid *ids = NULL;
	int rc = todo && got ? 0 : -1;
	if (rc == 0)
		todo[n++] = *tip;
	while (rc == 0 && n > 0) {
		git_oid id = todo[--n], parents[MAX_PARENTS];
		got_commit g;
		peer_obj po = {0};
		unsigned k = 0;
		bool copied;
		if (listed(held, (size_t)nheld, &id))
			continue; /* a local tip: the usual end of the walk */
		/* (The caller found the tip missing here already.) */
		bool look = !git_oid_equal(&id, tip);
		*bad = id;
		if (refused && listed(refused, 2, &id)) {
			snprintf(why, whylen,
				 "builds on what was rejected before");
			rc = 2;
			break;
		}
		if ((long)nc >= s->lim.commits) {
			snprintf(why, whylen,
				 "more than CATAN_SYNC_MAX_COMMITS (%ld) new "
				 "commits",
				 s->lim.commits);
			rc = 2;
			break;
		}
		if (store_past_deadline(s)) {
			snprintf(why, whylen,
				 "gave up: over CATAN_SYNC_REMOTE_MS (%ld ms)",
				 s->lim.remote_ms);
			rc = 4;
			break;
		}
		if ((rc = copy_object(s, pe, &id, GIT_OBJECT_COMMIT, look,
				      &copied, &po)) ||
		    !copied) {
			if (rc == 2)
				snprintf(why, whylen,
					 "commit over CATAN_SYNC_MAX_OBJECT "
					 "(%ld bytes)",
					 s->lim.object);
			continue;
		}
		/* Its form first: junk is refused at the first bad commit. */
		if (store_commit_form(s, (const char *)po.data, po.len, why,
				      whylen)) {
			peer_obj_free(&po);
			rc = 2;
			break;
		}
		if (parse_commit(&g.tree, parents, &k, MAX_PARENTS, &po)) {
			peer_obj_free(&po);
			rc = 1;
			break;
		}
		peer_obj_free(&po);
		g.id = id;
		memset(&g.parent, 0, sizeof g.parent);
		if (k > 0)
			g.parent = parents[0];
		git_oid *more = store_reserve(todo, &cap, n + k, sizeof *todo);
		if (more)
			todo = more;
		got_commit *more2 =
		    more ? store_reserve(got, &ccap, nc + 1, sizeof *got) : NULL;
		if (more2)
			got = more2;
		if (!more || !more2) {
			rc = -1;
			break;
		}
		got[nc++] = g;
		for (unsigned i = 0; i < k; i++)
			todo[n++] = parents[i];
	}
	if (rc == 0 && nc > 0 && !(ids = malloc(sizeof *ids * nc)))
		rc = -1;
	for (size_t i = 0; rc == 0 && i < nc; i++)
		ids[i] = got[i].id;
	/* Oldest first; got[0..i) are those whose trees are not copied yet. */
	for (size_t i = nc; rc == 0 && i-- > 0;) {
		git_oid ptree;
		const git_oid *base = NULL;
		const git_oid *parent = &got[i].parent;
		git_commit *pc = NULL;
		size_t j = i + 1;
		while (j < nc && !git_oid_equal(&got[j].id, parent))
			j++;
		if (git_oid_is_zero(parent) || listed(ids, i, parent) ||
		    (j == nc && store_pack_find(s->stage, parent) >= 0))
			base = NULL; /* not complete here yet, or not on disk */
		else if (j < nc)
			base = &got[j].tree; /* copied just now */
		else if (git_commit_lookup(&pc, s->repo, parent) == 0) {
			ptree = *git_commit_tree_id(pc); /* held here */
			base = &ptree;
		}
		git_commit_free(pc);
		rc = copy_tree(s, pe, &got[i].tree, base, 0);
		*bad = got[i].id;
		if (rc == 2)
			snprintf(why, whylen,
				 "its tree holds an object over "
				 "CATAN_SYNC_MAX_OBJECT (%ld bytes)",
				 s->lim.object);
	}
	free(ids);
	free(todo);
	free(got);
	return rc < 0 ? 1 : rc;
}

/*
 * A ref to move in settle's one write of packed-refs: a remote-tracking
 * ref of s->peers[peer] for `player`, or (peer < 0) the branch of `player`.
 */
typedef struct tracking {
	char ref[256];
	git_oid old, id;  /* old: zero when there is none */
	int peer, player; /* s->peers[peer] (which may move as it grows) */
} tracking;

/* The reflog of ref: appended to when there is one or `all` says so. */
static int open_log(catan_store *s, const char *ref, bool all)
{
	char path[4300];
	int len = snprintf(path, sizeof path, "%slogs/%s",
			   git_repository_path(s->repo), ref);
	int flags = O_WRONLY | O_APPEND | O_CLOEXEC | (all ? O_CREAT : 0);
	int fd = open(path, flags, 0666);
	if (fd >= 0 || !all || errno != ENOENT || len >= (int)sizeof path)
		return fd;
	/* A new log in a directory not made yet (logs/refs/remotes/<r>). */
	for (char *sl =
		 strchr(path + strlen(git_repository_path(s->repo)), '/');
	     sl; sl = strchr(sl + 1, '/')) {
		*sl = '\0';
		mkdir(path, 0777);
		*sl = '/';
	}
	return open(path, flags, 0666);
}

/*
 * Appends the line git and libgit2 write for a move to an open reflog,
 * dated `now` at `off` minutes from UTC.
 */
static int log_move(catan_store *s, int fd, const git_oid *old,
		    const git_oid *id, time_t now, long off)
{
	char line[512], ohex[GIT_OID_HEXSZ + 1], nhex[GIT_OID_HEXSZ + 1];
	git_oid_tostr(ohex, sizeof ohex, old);
	git_oid_tostr(nhex, sizeof nhex, id);
	int len = snprintf(line, sizeof line,
			   "%s %s %s %lld %c%02ld%02ld\tcatan sync\n", ohex,
			   nhex, s->ident, (long long)now, off < 0 ? '-' : '+',
			   labs(off) / 60, labs(off) % 60);
	if (len <= 0 || len >= (int)sizeof line)
		return -1;
	return write(fd, line, (size_t)len) == len ? 0 : -1;
}

/* A record of packed-refs: "<hex> <name>\n" and any "^<hex>\n" after it. */
typedef struct packed {
	const char *name;
	size_t name_len;
	const char *text; /* the whole record, or NULL: write `id` */
	size_t len;
	const git_oid *id;
} packed;

static int by_name(const void *a, const void *b)
{
	const packed *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);
	return c ? c
		 : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

#define PACKED_TRAITS "# pack-refs with:"

/* How reflog lines are written: where to, and dated when. */
typedef struct log_opts {
	int all; /* core.logAllRefUpdates: create logs that are missing */
	time_t now;
	long off; /* the local offset from UTC in minutes */
} log_opts;

/*
 * Rewrites packed-refs with the refs t[0..n) at t[k].id, or at t[k].old
 * when `at_old` (their values do not change then: see write_packed): a
 * lock file, written, renamed over packed-refs. When `lo` is given, the
 * reflogs of the branches among t are appended to before the rename, as
 * libgit2 does (a crash in between leaves each log one forward move ahead
 * of its branch, which verify accepts, and the next sync moves them).
 * Durable as git makes it (core.fsync): the lock file and the logs are
 * on disk before the rename (one syncfs), the directory after it.
 * Returns 0; -1 when packed-refs is locked or not in git's format, or
 * cannot be written: nothing moved then (but when only the directory's
 * fsync failed: moved, not known to be on disk).
 */
static int packed_rewrite(catan_store *s, const tracking *t, int n,
			  bool at_old, const log_opts *lo, char *why,
			  size_t whylen)
{
	const char *gitdir = git_repository_path(s->repo);
	char path[4300], lock[4310];
	char *old = NULL;
	packed *rec = NULL;
	size_t olen = 0, nrec = 0, start = 0;
	int rc = -1, fd = -1;
	bool peeled = true, fully = true; /* (a new file: git's traits) */
	snprintf(path, sizeof path, "%spacked-refs", gitdir);
	snprintf(lock, sizeof lock, "%spacked-refs.lock", gitdir);
	size_t mark = s->intent_len;
	if (store_intent(s, "packed-refs.lock")) {
		snprintf(why, whylen, "cannot write to catan.lock: %s",
			 strerror(errno));
		return -1;
	}
	/* Held by another program: tried again for up to 1 s, as git does
	 * (core.packedRefsTimeout), and left alone. */
	for (int ms = 1, waited = 0;; waited += ms, ms *= 2) {
		fd = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST || waited >= 1000)
			break;
		nanosleep(&(struct timespec){0, ms * 1000000L}, NULL);
	}
	if (fd < 0) {
		snprintf(why, whylen,
			 "cannot create %.300s: %s%s", lock, strerror(errno),
			 errno == EEXIST ? " (another git process seems to "
					   "be running in this repository; "
					   "if none is, remove the file)"
					 : "");
		store_intent_done(s, mark);
		return -1;
	}
	snprintf(why, whylen, "cannot read or write %.300s", path);
	FILE *f = fopen(path, "rb");
	if (f) {
		struct stat sb;
		if (fstat(fileno(f), &sb) == 0 &&
		    (old = malloc((size_t)sb.st_size + 1)) &&
		    fread(old, 1, (size_t)sb.st_size, f) == (size_t)sb.st_size)
			olen = (size_t)sb.st_size;
		else
			olen = (size_t)-1;
		fclose(f);
		if (olen == (size_t)-1)
			goto done;
		old[olen] = '\0'; /* strncmp below may read to its n */
	} else if (errno != ENOENT) {
		goto done;
	}
	/*
	 * Any layout git or libgit2 writes: a traits line or none, records
	 * sorted or not. The traits "peeled" and "fully-peeled" are kept as
	 * they were (they say which records carry a "^" line); the records
	 * are written sorted, and the file says so.
	 */
	if (olen > 0 && old[0] == '#') {
		char *nl = memchr(old, '\n', olen);
		if (!nl || strncmp(old, PACKED_TRAITS, strlen(PACKED_TRAITS)))
			goto bad;
		*nl = '\0';
		peeled = strstr(old, " peeled ") != NULL;
		fully = peeled && strstr(old, " fully-peeled ") != NULL;
		*nl = '\n';
		start = (size_t)(nl + 1 - old);
	} else if (olen > 0) {
		peeled = fully = false;
	}
	size_t cap = (size_t)n + olen / 42 + 1;
	if (!(rec = malloc(sizeof *rec * cap)))
		goto done;
	for (size_t i = start; i < olen;) {
		char *nl = memchr(old + i, '\n', olen - i);
		if (!nl || nl - (old + i) < GIT_OID_HEXSZ + 2 ||
		    old[i + GIT_OID_HEXSZ] != ' ' || nrec == cap)
			goto bad;
		packed r = {old + i + GIT_OID_HEXSZ + 1,
			    (size_t)(nl - (old + i)) - GIT_OID_HEXSZ - 1,
			    old + i, 0, NULL};
		char *end = nl + 1;
		while (end < old + olen && *end == '^') {
			char *nl2 =
			    memchr(end, '\n', (size_t)(old + olen - end));
			if (!nl2)
				goto bad;
			end = nl2 + 1;
		}
		r.len = (size_t)(end - r.text);
		bool moved = false;
		for (int k = 0; k < n && !moved; k++)
			moved = strlen(t[k].ref) == r.name_len &&
				!memcmp(t[k].ref, r.name, r.name_len);
		if (!moved)
			rec[nrec++] = r;
		i = (size_t)(end - old);
	}
	for (int k = 0; k < n; k++) {
		if (nrec == cap)
			goto done;
		packed r = {t[k].ref, strlen(t[k].ref), NULL, 0,
			    at_old ? &t[k].old : &t[k].id};
		rec[nrec++] = r;
	}
	qsort(rec, nrec, sizeof *rec, by_name);
	FILE *w = fdopen(fd, "wb");
	if (!w)
		goto done;
	fd = -1;
	fprintf(w, "%s%s%s sorted \n", PACKED_TRAITS, peeled ? " peeled" : "",
		fully ? " fully-peeled" : "");
	for (size_t i = 0; i < nrec; i++) {
		if (rec[i].text) {
			fwrite(rec[i].text, 1, rec[i].len, w);
		} else {
			char hex[GIT_OID_HEXSZ + 1];
			git_oid_tostr(hex, sizeof hex, rec[i].id);
			fprintf(w, "%s %.*s\n", hex, (int)rec[i].name_len,
				rec[i].name);
		}
	}
	if (fclose(w))
		goto done;
	for (int k = 0; k < n && lo; k++) {
		if (t[k].peer >= 0)
			continue;
		int log = open_log(s, t[k].ref, lo->all != 0);
		if (log >= 0) {
			int bad = log_move(s, log, &t[k].old, &t[k].id, lo->now,
					   lo->off);
			close(log);
			if (bad) {
				snprintf(why, whylen,
					 "cannot write the reflog of %.200s: "
					 "%s",
					 t[k].ref, strerror(errno));
				goto done_why;
			}
		}
	}
	/*
	 * The lock file and the reflog lines on disk before the rename, with
	 * one flush of the disk's cache for all (rather than an fsync each).
	 */
	if (store_syncfs(s))
		goto done;
	if (rename(lock, path))
		goto done;
	lock[0] = '\0'; /* renamed: no longer ours to remove */
	if (store_fsync_dir(gitdir)) {
		snprintf(why, whylen, "cannot fsync %.300s: %s", gitdir,
			 strerror(errno));
		goto done_why;
	}
	rc = 0;
	goto done_why;
bad:
	snprintf(why, whylen, "%.300s is not in git's format", path);
	goto done_why;
done:
	snprintf(why, whylen, "cannot read or write %.300s: %s", path,
		 strerror(errno));
done_why:
	if (rc) {
		if (fd >= 0)
			close(fd);
		if (lock[0])
			unlink(lock);
	}
	store_intent_done(s, mark);
	free(rec);
	free(old);
	return rc;
}

/* Removes the loose file of ref: 0 when there is none left. */
static int unlink_loose(catan_store *s, const char *ref)
{
	char loose[4300];
	snprintf(loose, sizeof loose, "%s%s", git_repository_path(s->repo),
		 ref);
	return unlink(loose) == 0 || errno == ENOENT ? 0 : -1;
}

/*
 * Moves the refs t[0..n) in one write of packed-refs (git's format, as
 * libgit2 and git write it: the traits line, then records sorted by name)
 * rather than a loose ref each. File creations are what a sync costs most
 * on a disk; this is one per sync instead of one per ref, and the moves of
 * the branches are one atomic step: a crash never leaves one branch moved
 * and another, whose new commits the first already holds, behind (verify
 * would find commits off their author's branch).
 *
 * A loose file of a ref hides its packed value, so it must go. For a
 * branch it goes first, in a write of packed-refs that keeps every value
 * where it is (there is one after a clone, or this peer's own commits,
 * which libgit2 writes loose); then the move. A remote-tracking ref's
 * loose file goes after the move (no rule ties it to the others), and its
 * reflog is appended to then. This handle holds the writer lock: nothing
 * else of ours moves these refs meanwhile.
 *
 * Returns 0; -1 and why when packed-refs is locked, is not in git's
 * format, or cannot be written: no branch moved then.
 */
static int write_packed(catan_store *s, git_config *cfg, const tracking *t,
			int n, char *why, size_t whylen)
{
	log_opts lo = {0, time(NULL), 0};
	if (git_config_get_bool(&lo.all, cfg, "core.logAllRefUpdates") != 0) {
		git_buf v = {NULL, 0, 0};
		lo.all = git_config_get_string_buf(&v, cfg,
						   "core.logAllRefUpdates") ==
			     0 &&
			 !strcasecmp(v.ptr, "always");
		git_buf_dispose(&v);
	}
	/* As git_signature_now dates a line: the local offset in minutes. */
	struct tm utc;
	gmtime_r(&lo.now, &utc);
	utc.tm_isdst = -1;
	lo.off = (long)difftime(lo.now, mktime(&utc)) / 60;

	tracking loose[CATAN_MAX_PLAYERS];
	int nloose = 0;
	for (int k = 0; k < n; k++) {
		struct stat sb;
		char file[4300];
		if (t[k].peer >= 0)
			continue;
		snprintf(file, sizeof file, "%s%s",
			 git_repository_path(s->repo), t[k].ref);
		if (lstat(file, &sb) == 0) {
			loose[nloose++] = t[k];
		} else if (errno != ENOENT) {
			snprintf(why, whylen, "cannot look at %.300s: %s", file,
				 strerror(errno));
			return -1;
		}
	}
	if (nloose > 0) {
		if (packed_rewrite(s, loose, nloose, true, NULL, why, whylen))
			return -1;
		for (int k = 0; k < nloose; k++)
			if (unlink_loose(s, loose[k].ref)) {
				snprintf(why, whylen, "cannot remove %.200s: %s",
					 loose[k].ref, strerror(errno));
				return -1; /* (nothing moved) */
			}
	}
	if (packed_rewrite(s, t, n, false, &lo, why, whylen))
		return -1;
	for (int k = 0; k < n; k++) {
		if (t[k].peer < 0)
			continue;
		store_peer *pe = &s->peers[t[k].peer];
		if (!pe->packed[t[k].player] && unlink_loose(s, t[k].ref) == 0)
			pe->packed[t[k].player] = true;
		int log = open_log(s, t[k].ref, lo.all != 0); /* best effort */
		if (log >= 0) {
			log_move(s, log, &t[k].old, &t[k].id, lo.now, lo.off);
			close(log);
		}
	}
	/*
	 * libgit2 knows packed-refs by its inode, size and time, and ours
	 * has the size it had and perhaps a freed inode again: this handle's
	 * reference database starts afresh, rather than trust that.
	 */
	git_refdb *db = NULL;
	if (git_refdb_open(&db, s->repo) == 0) {
		git_repository_set_refdb(s->repo, db);
		git_refdb_free(db);
	}
	return 0;
}

/*
 * The target of the peer's ref `ref`, from its loose file when there is
 * one holding an id (two system calls fewer than libgit2, which also
 * looks at packed-refs first), else through libgit2. 0 or -1; -2 when
 * the ref's file is not a regular file (peer_open_file).
 */
static int peer_ref(git_oid *out, store_peer *pe, const char *ref)
{
	char path[4300], buf[GIT_OID_HEXSZ + 2];
	snprintf(path, sizeof path, "%s%s", git_repository_path(pe->repo), ref);
	int fd = peer_open_file(path);
	if (fd < 0 && errno == EINVAL)
		return -2; /* (libgit2 would open it blocking: not at all) */
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof buf);
		close(fd);
		if (n == GIT_OID_HEXSZ + 1 && buf[GIT_OID_HEXSZ] == '\n' &&
		    git_oid_fromstrn(out, buf, GIT_OID_HEXSZ) == 0)
			return 0;
	}
	/* libgit2 reads packed-refs next, blocking: only a plain file. */
	struct stat sb;
	snprintf(path, sizeof path, "%spacked-refs",
		 git_repository_path(pe->repo));
	if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return -2;
	return git_reference_name_to_id(out, pe->repo, ref) ? -1 : 0;
}

/*
 * The peer's player branches (tips[p] where has[p]) as they were at one
 * instant. They are read one by one while the peer may be moving them (an
 * atomic packed-refs write, or its own commit), so a read can mix old and
 * new: one branch holding another player's commit that this read of the
 * other's branch misses, which verify would refuse. Branches only move
 * forward, so two reads in a row that agree were all true at the instant
 * between them; up to 8 tries, then the last read. When the first read
 * brings nothing new (every tip is a local tip), it is taken as it is.
 * 0, or -2 when a branch's file is not a regular file (nothing read).
 */
static int peer_tips(catan_store *s, store_peer *pe, git_oid *tips, bool *has)
{
	int plain = 0;
	int n = s->game.opt.nplayers;
	git_oid again[CATAN_MAX_PLAYERS];
	bool had[CATAN_MAX_PLAYERS], same = true;
	for (int p = 0; p < n; p++) {
		char ref[256];
		git_oid local;
		snprintf(ref, sizeof ref, "refs/heads/%s",
			 s->game.names.name[p]);
		int got = peer_ref(&tips[p], pe, ref);
		has[p] = got == 0;
		plain |= got == -2;
		if (has[p] && (store_branch_tip(&local, s, p) ||
			       !git_oid_equal(&local, &tips[p])))
			same = false;
	}
	for (int round = 0; !same && !plain && round < 8; round++) {
		same = true;
		for (int p = 0; p < n; p++) {
			char ref[256];
			snprintf(ref, sizeof ref, "refs/heads/%s",
				 s->game.names.name[p]);
			int got = peer_ref(&again[p], pe, ref);
			had[p] = got == 0;
			plain |= got == -2;
			same &= had[p] == has[p] &&
				(!had[p] || git_oid_equal(&again[p], &tips[p]));
		}
		memcpy(tips, again, sizeof *tips * (size_t)n);
		memcpy(has, had, sizeof *has * (size_t)n);
	}
	return plain ? -2 : 0;
}

/*
 * Stages what path remote `name` holds that this repository lacks: its
 * branches (tips[p] where has[p]) with every object they need go into the
 * stage, written later by stage_flush; the remote-tracking refs that are
 * to move are added to t (*nt of them, room for CATAN_MAX_PLAYERS more).
 * *changed is false when no branch is ahead of (or diverged from) the
 * local one, or each such branch is already quarantined at that tip:
 * there is nothing to verify. Returns 0; 1 when this is not a path remote
 * or anything is unusual (what it staged is dropped, and the ordinary
 * fetch then does the work and the reporting).
 */
static int read_path_remote(catan_store *s, git_config *cfg, const char *name,
			    git_oid *tips, bool *has, bool *changed,
			    tracking *t, int *nt, catan_sync_report *rep)
{
	store_peer *pe = NULL;
	git_buf url = {NULL, 0, 0};
	char key[300], why[400];
	*changed = false;
	/*
	 * The URL as configured (git_remote_lookup would read the whole
	 * configuration again for each remote; a path is never rewritten by
	 * url.<base>.insteadOf here: only a directory that exists is read).
	 */
	snprintf(key, sizeof key, "remote.%s.url", name);
	if (git_config_get_string_buf(&url, cfg, key))
		return 1;
	const char *dir = local_dir(url.ptr);
	char gitdir[4200];
	bool plain = false; /* peer_plain said so in this sync */
	if (dir) {
		/* (git_repository_open_ext finds a bare one or DIR/.git) */
		snprintf(gitdir, sizeof gitdir, "%.4100s/.git", dir);
		struct stat sb;
		if (lstat(gitdir, &sb) || !S_ISDIR(sb.st_mode))
			snprintf(gitdir, sizeof gitdir, "%.4100s", dir);
		/* (before libgit2 first opens it; again before a copy) */
		bool opened = false;
		for (int i = 0; i < s->npeers && !opened; i++)
			opened = !strcmp(s->peers[i].name, name) &&
				 !strcmp(s->peers[i].path, dir);
		if (!opened && peer_plain(gitdir, why, sizeof why)) {
			git_buf_dispose(&url);
			note(rep, "refused %s: %s", name, why);
			rep->refused++;
			return 2;
		}
		plain = !opened;
		pe = peer_open(s, name, dir);
	}
	git_buf_dispose(&url);
	if (!pe || stage_init(s))
		return 1;
	memset(pe->fan_ok, 0, sizeof pe->fan_ok);
	int n = s->game.opt.nplayers, nmine = 0;
	int mark = store_pack_count(s->stage);
	git_oid mine[CATAN_MAX_PLAYERS]; /* the local tips */
	bool read[CATAN_MAX_PLAYERS] = {false};
	for (int p = 0; p < n; p++)
		if (store_branch_tip(&mine[nmine], s, p) == 0)
			nmine++;
	if (peer_tips(s, pe, tips, has)) {
		note(rep,
		     "refused %s: a branch of it is not a regular file (a "
		     "FIFO, a device or a symlink)",
		     name);
		rep->refused++;
		return 2;
	}
	for (int p = 0; p < n; p++) {
		git_oid local;
		read[p] = has[p];
		if (!has[p] || (store_branch_tip(&local, s, p) == 0 &&
				git_oid_equal(&local, &tips[p])))
			continue;
		if (quarantined_at(s, name, p, &tips[p])) {
			/* Refused and reported before (its objects may be
			 * gone: catan gc). */
			has[p] = read[p] = false;
			continue;
		}
		if (listed(mine, (size_t)nmine, &tips[p]) ||
		    store_pack_find(s->stage, &tips[p]) >= 0 ||
		    git_odb_exists_ext(s->odb, &tips[p],
				       GIT_ODB_LOOKUP_NO_REFRESH)) {
			/* Behind the local branch is nothing new. */
			if (store_pack_find(s->stage, &tips[p]) >= 0 ||
			    store_is_ancestor(s, &tips[p], &local) != 1)
				*changed = true;
			continue;
		}
		git_oid bad, refused[2];
		if (!plain && peer_plain(gitdir, why, sizeof why)) {
			if (store_pack_truncate(s->stage, mark))
				stage_drop(s);
			note(rep, "refused %s: %s", name, why);
			rep->refused++;
			return 2;
		}
		plain = true;
		bool was =
		    quarantine_read(s, name, p, &refused[0], &refused[1]) == 0;
		int here = store_pack_count(s->stage);
		int rc =
		    copy_history(s, pe, &tips[p], mine, nmine,
				 was ? refused : NULL, &bad, why, sizeof why);
		if (rc == 2) {
			/* Refused before anything of it is kept. */
			if (store_pack_truncate(s->stage, here))
				stage_drop(s);
			char hex[GIT_OID_HEXSZ + 1];
			git_oid_tostr(hex, sizeof hex, &tips[p]);
			note(rep,
			     "rejected %s from %s: commit %.10s: %s; kept as "
			     "refs/catan/quarantine/%s/%s (tip %.10s)",
			     s->game.names.name[p], name, git_oid_tostr_s(&bad),
			     why, name, s->game.names.name[p], hex);
			quarantine(s, name, p, &tips[p], &bad, false, why,
				   pe->odb);
			rep->rejected++;
			has[p] = read[p] = false;
			if (!s->stage && stage_init(s))
				return 1;
			continue;
		}
		if (rc) {
			if (store_pack_truncate(s->stage, mark))
				stage_drop(s);
			if (rc == 1)
				return 1;
			note(rep, "refused %s: %s", name,
			     rc == 4 ? why
				     : "a file of it is not a regular file (a "
				       "FIFO, a device or a symlink)");
			rep->refused++;
			return 2;
		}
		*changed = true;
	}
	/*
	 * The remote-tracking refs, as a fetch would leave them (git branch
	 * -r shows what each peer holds); only the ones that move.
	 */
	for (int p = 0; p < n; p++) {
		tracking *k = &t[*nt];
		if (!read[p])
			continue;
		snprintf(k->ref, sizeof k->ref, "refs/remotes/%s/%s", name,
			 s->game.names.name[p]);
		if (!pe->tracked_known[p]) {
			if (git_reference_name_to_id(&pe->tracked[p], s->repo,
						     k->ref))
				memset(&pe->tracked[p], 0,
				       sizeof pe->tracked[p]);
			pe->tracked_known[p] = true;
		}
		if (git_oid_equal(&pe->tracked[p], &tips[p]))
			continue;
		k->old = pe->tracked[p];
		k->id = tips[p];
		k->peer = (int)(pe - s->peers);
		k->player = p;
		(*nt)++;
	}
	return 0;
}

/*
 * Moves the remote-tracking refs t[0..n) (room for CATAN_MAX_PLAYERS
 * more) and the branches adopt_tips adopted, in one packed-refs write.
 * The objects they point at are on disk already (stage_flush). When that
 * write cannot be made (packed-refs locked by another program, say), the
 * remote-tracking refs and a single branch move through libgit2 one by
 * one; several branches do not, since some orders of their moves pass
 * through states verify refuses (a commit on another player's branch
 * before it is on its author's): they stay, and the next sync adopts
 * them again. Returns 0, or -1 when a branch was not moved.
 */
static int settle(catan_store *s, git_config *cfg, tracking *t, int n,
		  catan_err *err)
{
	int nt = n;
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		if (!s->move_pending[p])
			continue;
		tracking *k = &t[n++];
		snprintf(k->ref, sizeof k->ref, "refs/heads/%s",
			 s->game.names.name[p]);
		k->old = s->move_old[p];
		k->id = s->held_tips[p];
		k->peer = -1;
		k->player = p;
	}
	memset(s->move_pending, 0, sizeof s->move_pending);
	if (n == 0)
		return 0;
	char why[512];
	if (write_packed(s, cfg, t, n, why, sizeof why) == 0) {
		for (int k = 0; k < nt; k++)
			s->peers[t[k].peer].tracked[t[k].player] = t[k].id;
		return 0;
	}
	for (int k = 0; k < n; k++) {
		git_reference *r = NULL;
		if (t[k].peer < 0) {
			if (n - nt > 1) {
				s->tips_held = false; /* (not where held) */
				return store_fail(
				    err,
				    "%s: the %d branches adopted were not "
				    "moved (the next sync tries again)",
				    why, n - nt);
			}
			if (store_move_branch(s, t[k].player, &t[k].old,
					      &t[k].id, "catan sync", err))
				return -1;
			continue;
		}
		s->peers[t[k].peer].tracked_known[t[k].player] = false;
		s->peers[t[k].peer].packed[t[k].player] = false;
		char lock[300];
		size_t mark = s->intent_len;
		snprintf(lock, sizeof lock, "%s.lock", t[k].ref);
		if (store_intent(s, lock) == 0 &&
		    git_reference_create(&r, s->repo, t[k].ref, &t[k].id, 1,
					 "catan sync") == 0)
			git_reference_free(r);
		store_intent_done(s, mark);
	}
	return 0;
}

/* Is pushing to remote `name` allowed (remote.<name>.catanpush)? */
static bool push_allowed(git_config *cfg, const char *name)
{
	char key[300];
	int on = 0;
	snprintf(key, sizeof key, "remote.%s.catanpush", name);
	git_config_get_bool(&on, cfg, key);
	return on != 0;
}

/*
 * Pushes this peer's own branch (only it: a peer writes no one else's log)
 * to a shared repository. Not a force push: a remote that holds a history
 * this branch does not contain refuses it, and the report says so.
 */
static void push_own(catan_store *s, const char *name, catan_sync_report *rep)
{
	int me = catan_store_me(s);
	git_remote *remote = NULL;
	char spec[256];
	char *specs[1] = {spec};
	git_strarray refspecs = {specs, 1};
	git_push_options opt;
	if (me < 0 || git_remote_lookup(&remote, s->repo, name))
		return;
	git_push_options_init(&opt, GIT_PUSH_OPTIONS_VERSION);
	store_ssh ssh;
	store_ssh_callbacks(&opt.callbacks, &ssh, git_remote_url(remote));
	/*
	 * In a signed game only this peer can write a valid commit on its
	 * branch: whatever else stands there at the remote (a forgery pushed
	 * by another player) is overwritten.
	 */
	snprintf(spec, sizeof spec, "%srefs/heads/%s:refs/heads/%s",
		 s->game.signed_game ? "+" : "", s->game.names.name[me],
		 s->game.names.name[me]);
	if (git_remote_push(remote, &refspecs, &opt)) {
		const git_error *e = git_error_last();
		char cut[600];
		note(rep, "could not push %s to %s: %s", s->game.names.name[me],
		     name,
		     store_net_cut(cut, sizeof cut) ? cut
		     : ssh.why[0]		    ? ssh.why
		     : e && e->message		    ? e->message
						    : "refused");
	} else {
		note(rep, "pushed %s to %s", s->game.names.name[me], name);
		rep->pushed++;
	}
	git_remote_free(remote);
}

int catan_store_sync(catan_store *s, const char *const *remotes, int nremotes,
		     catan_sync_report *rep, catan_err *err)
{
	git_strarray all = {NULL, 0};
	git_config *cfg = NULL;
	int rc = 0;
	memset(rep, 0, sizeof *rep);
	if (s->batch)
		return store_fail(err, "cannot sync in batch mode");
	/*
	 * The lock files of refs/catan/ (quarantine and held-back records,
	 * catan's own) are said in catan.lock for the whole sync; the others
	 * at each write (see store_intent).
	 */
	size_t mark = s->intent_len;
	if (store_intent(s, "refs/catan/"))
		return store_fail(err, "cannot write to catan.lock: %s",
				  strerror(errno));
	/* One reading of the configuration for the whole sync. */
	if (git_repository_config_snapshot(&cfg, s->repo)) {
		store_intent_done(s, mark);
		return store_git_fail(err, "reading the configuration");
	}
	if (nremotes == 0) {
		if (git_remote_list(&all, s->repo)) {
			git_config_free(cfg);
			store_intent_done(s, mark);
			return store_git_fail(err, "listing remotes");
		}
		remotes = (const char *const *)all.strings;
		nremotes = (int)all.count;
	}
	/* A remote named twice is synced once. */
	const char **uniq = calloc((size_t)nremotes + 1, sizeof *uniq);
	int nuniq = 0;
	for (int i = 0; uniq && i < nremotes; i++) {
		bool seen = false;
		for (int j = 0; j < nuniq && !seen; j++)
			seen = !strcmp(uniq[j], remotes[i]);
		if (!seen)
			uniq[nuniq++] = remotes[i];
	}
	if (uniq) {
		remotes = uniq;
		nremotes = nuniq;
	}
	s->packs_added = false;
	store_limits_read(&s->lim);
	store_hold_tips(s); /* (not held if a branch is missing) */
	/*
	 * First every path remote is read and what it brings staged, then
	 * the stage written as one pack and the remote-tracking refs moved
	 * in one write, then each remote's branches verified and adopted in
	 * turn (the ordinary fetch for the others, at their turn).
	 */
	typedef struct pending {
		int fast;
		bool changed, has[CATAN_MAX_PLAYERS];
		git_oid tips[CATAN_MAX_PLAYERS];
	} pending;
	pending *pend = calloc((size_t)nremotes + 1, sizeof *pend);
	tracking *track =
	    calloc((size_t)(nremotes + 1) * CATAN_MAX_PLAYERS, sizeof *track);
	int ntrack = 0;
	if (!pend || !track)
		rc = store_fail(err, "out of memory");
	for (int i = 0; i < nremotes && rc == 0; i++) {
		start_clock(s);
		pend[i].fast = read_path_remote(
		    s, cfg, remotes[i], pend[i].tips, pend[i].has,
		    &pend[i].changed, track, &ntrack, rep);
	}
	if (rc == 0)
		rc = stage_flush(s, err);
	for (int i = 0; i < nremotes && rc == 0; i++) {
		start_clock(s);
		if (pend[i].fast == 0 && pend[i].changed)
			rc = adopt_tips(s, remotes[i], pend[i].tips,
					pend[i].has, rep, err);
	}
	if (rc == 0)
		rc = settle(s, cfg, track, ntrack, err);
	for (int i = 0; i < nremotes && rc == 0; i++) {
		catan_err ferr;
		bool changed = false;
		int frc = 0;
		start_clock(s);
		if (pend[i].fast == 2)
			continue; /* refused (and said why) */
		char tracked[300];
		snprintf(tracked, sizeof tracked, "refs/remotes/%s/",
			 remotes[i]);
		size_t fmark = s->intent_len;
		if (pend[i].fast != 0 && store_intent(s, tracked))
			frc = store_fail(&ferr, "cannot write to "
						"catan.lock: %s",
					 strerror(errno));
		else if (pend[i].fast != 0)
			frc = fetch_remote(s, remotes[i], &changed, &ferr);
		store_intent_done(s, fmark);
		if (pend[i].fast == 0) {
			rep->fetched++;
		} else if (frc == -2) {
			/* Past a limit: nothing of it was kept. */
			note(rep, "refused %s: %s", remotes[i], ferr.msg);
			rep->refused++;
			continue;
		} else if (frc) {
			/* An unreachable peer is not an error: play goes on. */
			note(rep, "could not reach %s: %s", remotes[i],
			     ferr.msg);
			rep->unreachable++;
			continue;
		} else {
			rep->fetched++;
			s->packs_added |= changed;
			/* (A fetch writes remote-tracking refs itself.) */
			for (int k = 0; k < s->npeers; k++)
				if (!strcmp(s->peers[k].name, remotes[i])) {
					memset(
					    s->peers[k].tracked_known, 0,
					    sizeof s->peers[k].tracked_known);
					memset(s->peers[k].packed, 0,
					       sizeof s->peers[k].packed);
				}
			/*
			 * Nothing new, but a tip held back at an earlier
			 * sync is judged again (it is still there, or the
			 * peer settled).
			 */
			start_clock(s);
			if (changed || remote_has_held(s, remotes[i]))
				rc = adopt_remote(s, remotes[i], rep, err);
			if (rc == 0)
				rc = settle(s, cfg, track, 0, err);
		}
		if (rc == 0 && push_allowed(cfg, remotes[i]))
			push_own(s, remotes[i], rep);
	}
	free(pend);
	free(track);
	free(uniq);
	git_strarray_dispose(&all);
	git_config_free(cfg);
	s->tips_held = false;
	s->deadline_ms = 0;
	memset(s->move_pending, 0, sizeof s->move_pending);
	/* Only a sync that brought packs can have made too many. */
	if (rc == 0 && s->packs_added)
		repack_if_needed(s, 16);
	store_intent_done(s, mark);
	return rc;
}

int catan_store_adopt(catan_store *s, const char *remote,
		      catan_sync_report *rep, catan_err *err)
{
	git_config *cfg = NULL;
	tracking none[CATAN_MAX_PLAYERS];
	if (s->batch)
		return store_fail(err, "cannot adopt in batch mode");
	if (git_repository_config_snapshot(&cfg, s->repo))
		return store_git_fail(err, "reading the configuration");
	store_hold_tips(s); /* (not held if a branch is missing) */
	store_limits_read(&s->lim);
	start_clock(s);
	int rc = adopt_remote(s, remote, rep, err);
	if (rc == 0)
		rc = settle(s, cfg, none, 0, err);
	s->tips_held = false;
	s->deadline_ms = 0;
	memset(s->move_pending, 0, sizeof s->move_pending);
	git_config_free(cfg);
	return rc;
}

int catan_store_remote_push(catan_store *s, const char *name, bool on,
			    catan_err *err)
{
	git_config *cfg = NULL;
	git_remote *r = NULL;
	char key[300];
	int rc = 0;
	if (git_remote_lookup(&r, s->repo, name))
		return store_git_fail(err, "no such remote");
	git_remote_free(r);
	snprintf(key, sizeof key, "remote.%s.catanpush", name);
	size_t mark = s->intent_len;
	if (store_intent(s, "config.lock"))
		rc = store_fail(err, "cannot write to catan.lock");
	else if (git_repository_config(&cfg, s->repo) ||
		 git_config_set_bool(cfg, key, on))
		rc = store_git_fail(err, "configuring the remote");
	store_intent_done(s, mark);
	git_config_free(cfg);
	return rc;
}

int catan_store_remote_add(catan_store *s, const char *name, const char *url,
			   catan_err *err)
{
	git_remote *r = NULL;
	int valid = 0;
	if (git_remote_name_is_valid(&valid, name) || !valid ||
	    !strcmp(name, "quarantine"))
		return store_fail(err, "\"%s\" is not a valid remote name",
				  name);
	size_t mark = s->intent_len;
	if (store_intent(s, "config.lock"))
		return store_fail(err, "cannot write to catan.lock");
	int rc = git_remote_create(&r, s->repo, name, url);
	store_intent_done(s, mark);
	if (rc)
		return store_git_fail(err, "adding the remote");
	git_remote_free(r);
	return 0;
}

int catan_store_me(const catan_store *s)
{
	git_config *cfg = NULL;
	git_buf buf = {NULL, 0, 0};
	int me = -1;
	if (git_repository_config_snapshot(&cfg, s->repo) == 0 &&
	    git_config_get_string_buf(&buf, cfg, "catan.me") == 0)
		me = catan_names_find(&s->game.names, buf.ptr, strlen(buf.ptr));
	git_buf_dispose(&buf);
	git_config_free(cfg);
	return me;
}

int catan_store_set_me(catan_store *s, int player, catan_err *err)
{
	git_config *cfg = NULL;
	int rc = 0;
	if (player < 0 || player >= s->game.opt.nplayers)
		return store_fail(err, "no such player");
	size_t mark = s->intent_len;
	if (store_intent(s, "config.lock"))
		rc = store_fail(err, "cannot write to catan.lock");
	else if (git_repository_config(&cfg, s->repo) ||
		 git_config_set_string(cfg, "catan.me",
				       s->game.names.name[player]))
		rc = store_git_fail(err, "recording who plays here");
	store_intent_done(s, mark);
	git_config_free(cfg);
	return rc;
}

static int remove_one(const char *p, const struct stat *sb, int flag,
		      struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

int catan_store_join(catan_store **out, const char *url, const char *path,
		     const char *me, catan_sync_report *rep, catan_err *err)
{
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	git_revwalk *walk = NULL;
	git_config *cfg = NULL;
	git_oid root;
	int rc = -1;

	*out = NULL;
	memset(rep, 0, sizeof *rep);
	/* Only a new or empty directory: a failed join then removes it all. */
	if (store_claim_dir(path, "join into it", err))
		return -1;
	store_lib_init();
	if (git_repository_init(&repo, path, 1)) {
		store_git_fail(err, "creating the repository");
		goto done;
	}
	store_drop_template(git_repository_path(repo));
	if (git_repository_config(&cfg, repo) ||
	    git_config_set_string(cfg, "core.logAllRefUpdates", "always")) {
		store_git_fail(err, "configuring the repository");
		goto done;
	}
	if (git_remote_create(&remote, repo, "origin", url)) {
		store_git_fail(err, "adding the remote");
		goto done;
	}
	git_remote_free(remote);
	remote = NULL;
	/* Fetch, then find the genesis among what arrived. */
	{
		catan_store tmp;
		bool changed;
		memset(&tmp, 0, sizeof tmp);
		tmp.repo = repo;
		store_limits_read(&tmp.lim); /* (bytes and objects) */
		if (fetch_remote(&tmp, "origin", &changed, err))
			goto done;
	}
	if (git_revwalk_new(&walk, repo) ||
	    git_revwalk_push_glob(walk, "refs/remotes/origin/*")) {
		store_fail(err, "%s has no game (no branch)", url);
		goto done;
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	if (git_revwalk_next(&root, walk)) {
		store_fail(err, "%s has no game (no commit)", url);
		goto done;
	}
	/*
	 * Point every local branch at the root, then open the game from it:
	 * catan_store_open checks the root is a genesis whose game/ decodes.
	 */
	{
		git_commit *c = NULL;
		git_tree *t = NULL;
		catan_files files;
		catan_codec_error ce;
		catan_game g;
		catan_files_init(&files);
		if (git_commit_lookup(&c, repo, &root) ||
		    git_commit_parentcount(c) != 0 || git_commit_tree(&t, c)) {
			git_commit_free(c);
			store_fail(err, "the oldest commit is not a genesis");
			goto done;
		}
		const git_tree_entry *ge = git_tree_entry_byname(t, "game");
		git_tree *gt = NULL;
		int bad =
		    !ge || git_tree_lookup(&gt, repo, git_tree_entry_id(ge));
		for (size_t i = 0; !bad && i < git_tree_entrycount(gt); i++) {
			const git_tree_entry *e = git_tree_entry_byindex(gt, i);
			git_blob *b = NULL;
			char p2[CATAN_PATH_MAX];
			if (git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
			    strlen(git_tree_entry_name(e)) > 20 ||
			    git_blob_lookup(&b, repo, git_tree_entry_id(e)) ||
			    git_blob_rawsize(b) > 65536) {
				git_blob_free(b);
				bad = 1;
				break;
			}
			snprintf(p2, sizeof p2, "game/%s",
				 git_tree_entry_name(e));
			catan_files_add(&files, p2, git_blob_rawcontent(b),
					(size_t)git_blob_rawsize(b));
			git_blob_free(b);
		}
		git_tree_free(gt);
		git_tree_free(t);
		git_commit_free(c);
		if (bad || catan_codec_decode_game(&g, &files, &ce)) {
			catan_files_free(&files);
			store_fail(err,
				   "the genesis holds no readable game/%s%s",
				   bad ? "" : ": ", bad ? "" : ce.msg);
			goto done;
		}
		catan_files_free(&files);
		for (int p = 0; p < g.opt.nplayers; p++) {
			char ref[128];
			git_reference *r = NULL;
			snprintf(ref, sizeof ref, "refs/heads/%s",
				 g.names.name[p]);
			if (git_reference_create(&r, repo, ref, &root, 0,
						 "catan join: genesis")) {
				store_git_fail(err, "creating the branches");
				goto done;
			}
			git_reference_free(r);
		}
		char head[128];
		snprintf(head, sizeof head, "refs/heads/%s", g.names.name[0]);
		git_repository_set_head(repo, head);
	}
	git_repository_free(repo);
	repo = NULL;

	catan_store *s = NULL;
	if (catan_store_open(&s, path, err))
		goto done;
	/* The genesis itself: a full verify of the one-commit history. */
	catan_verify_report vr;
	if (catan_store_verify(s, &vr, err) || !vr.ok) {
		if (!vr.ok)
			store_fail(err, "the genesis is not valid: %s", vr.why);
		catan_store_free(s);
		goto done;
	}
	int who = catan_names_find(&s->game.names, me, strlen(me));
	if (who < 0) {
		store_fail(err, "no player \"%s\" in this game", me);
		catan_store_free(s);
		goto done;
	}
	if (catan_store_set_me(s, who, err) ||
	    catan_store_adopt(s, "origin", rep, err) ||
	    store_fsync_repo(path, err)) {
		catan_store_free(s);
		goto done;
	}
	*out = s;
	rc = 0;
done:
	git_revwalk_free(walk);
	git_config_free(cfg);
	git_repository_free(repo);
	git_libgit2_shutdown();
	if (rc)
		nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return rc;
}

/* ---- for the fuzzing harnesses (fuzz_internal.h) ---- */

#include "fuzz_internal.h"

int store_fuzz_read_loose(git_repository *repo, const git_oid *id,
			  git_object_t type, unsigned char **buf,
			  const unsigned char **data, size_t *len)
{
	store_peer pe;
	memset(&pe, 0, sizeof pe);
	pe.repo = repo;
	peer_obj po = {0};
	int rc = read_loose(&pe, id, type, &po);
	*buf = po.buf;
	*data = po.data;
	*len = po.len;
	return rc;
}

int store_fuzz_parse_tree(unsigned *modes, const char **names, git_oid *ids,
			  int max, const unsigned char *d, size_t len)
{
	tree_entry e[MAX_ENTRIES];
	int n = parse_tree(e, d, len);
	for (int i = 0; i < n && i < max; i++) {
		modes[i] = e[i].mode;
		names[i] = e[i].name;
		ids[i] = e[i].id;
	}
	return n;
}

int store_fuzz_parse_commit(git_oid *tree, git_oid *parents, unsigned *np,
			    unsigned max, const unsigned char *data, size_t len)
{
	peer_obj po = {NULL, NULL, data, len};
	return parse_commit(tree, parents, np, max, &po);
}

int store_fuzz_packed_rewrite(git_repository *repo, const char *const *refs,
			      const git_oid *ids, int n, char *why,
			      size_t whylen)
{
	tracking t[CATAN_MAX_PLAYERS];
	catan_store *s = calloc(1, sizeof *s);
	int rc = -1;
	if (!s || n < 0 || n > CATAN_MAX_PLAYERS) {
		snprintf(why, whylen, "out of memory or too many refs");
		goto done;
	}
	s->repo = repo;
	for (int k = 0; k < n; k++) {
		memset(&t[k], 0, sizeof t[k]);
		snprintf(t[k].ref, sizeof t[k].ref, "%s", refs[k]);
		t[k].id = ids[k];
		t[k].peer = -1;
	}
	rc = packed_rewrite(s, t, n, false, NULL, why, whylen);
done:
	free(s);
	return rc;
}
