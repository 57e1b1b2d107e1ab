/*
 * sync.c - layer 7 (top): catan sync. For each remote in turn, its clock
 * started: fetch (fetch.c) or read (path_remote.c), verify and adopt
 * (adopt.c), then one write of the refs that moved (packed_refs.c) and
 * push of this peer's own branch where allowed. Also the remotes'
 * settings (push, add) and which player this peer is.
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

/* The time of remote `name` starts now. */
static void start_clock(catan_store *s)
{
	s->budget.deadline_ms =
	    store_now_ms() + (double)s->budget.lim.remote_ms;
}

/* The push recorded for remote-tracking ref `ref`, or -1. */
static int pushed_find(const catan_store *s, const char *ref)
{
	for (int i = 0; i < s->npushed; i++)
		if (!strcmp(s->pushed[i].ref, ref))
			return i;
	return -1;
}

static void pushed_drop(catan_store *s, int i)
{
	s->pushed[i] = s->pushed[--s->npushed];
}

/*
 * Writes ref at id through libgit2, its lock file said in catan.lock
 * first (store_intent): from old when old is given (zero: only if there
 * is none), else whatever it was. As far as it can; nothing to report.
 */
static void ref_write(catan_store *s, const char *ref, const git_oid *id,
		      const git_oid *old, const char *log)
{
	git_reference *r = NULL;
	char lock[300];
	size_t mark = s->intent_len;
	snprintf(lock, sizeof lock, "%s.lock", ref);
	if (store_intent(s, lock) == 0 &&
	    (!old ? git_reference_create(&r, s->repo, ref, id, 1, log)
	     : git_oid_is_zero(old)
		 ? git_reference_create(&r, s->repo, ref, id, 0, log)
		 : git_reference_create_matching(&r, s->repo, ref, id, 1, old,
						 log)) == 0)
		git_reference_free(r);
	store_intent_done(s, mark);
}

/* Moves ref from old (zero: none) to id through libgit2, flushed. */
static void pushed_write(catan_store *s, const char *ref, const git_oid *old,
			 const git_oid *id)
{
	ref_write(s, ref, id, old, "catan sync: pushed");
}

/*
 * Records that a push moved the host's copy of ref from old to id
 * (catan_store.pushed); with no room left, the ref is written now.
 */
static void pushed_note(catan_store *s, const char *ref, const git_oid *old,
			const git_oid *id)
{
	int i = pushed_find(s, ref);
	if (i >= 0) {
		s->pushed[i].id = *id; /* (old: still where the ref stands) */
		return;
	}
	if (s->npushed == STORE_PUSHED_MAX ||
	    strlen(ref) >= sizeof s->pushed[0].ref) {
		pushed_write(s, ref, old, id);
		return;
	}
	i = s->npushed++;
	memcpy(s->pushed[i].ref, ref, strlen(ref) + 1);
	s->pushed[i].old = *old;
	s->pushed[i].id = *id;
}

void store_pushed_flush(catan_store *s)
{
	for (int i = 0; i < s->npushed; i++)
		pushed_write(s, s->pushed[i].ref, &s->pushed[i].old,
			     &s->pushed[i].id);
	s->npushed = 0;
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
		k->peer = STORE_TRACK_BRANCH;
		k->player = p;
	}
	memset(s->move_pending, 0, sizeof s->move_pending);
	if (n == 0)
		return 0;
	char why[512];
	for (int k = 0; k < nt; k++)
		t[k].packed =
		    t[k].peer >= 0 && s->peers[t[k].peer].packed[t[k].player];
	if (store_write_packed(s, cfg, t, n, why, sizeof why) == 0) {
		for (int k = 0; k < nt; k++) {
			if (t[k].peer < 0)
				continue; /* (a URL remote's: no cache) */
			s->peers[t[k].peer].tracked[t[k].player] = t[k].id;
			s->peers[t[k].peer].packed[t[k].player] = t[k].packed;
		}
		return 0;
	}
	/* (libgit2 fsyncs a ref's own file and directory only.) */
	if (store_pack_named(s))
		return store_fail(err, "fsync of objects/pack: %s",
				  strerror(errno));
	for (int k = 0; k < n; k++) {
		if (t[k].peer == STORE_TRACK_BRANCH) {
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
		if (t[k].peer >= 0) {
			s->peers[t[k].peer].tracked_known[t[k].player] = false;
			s->peers[t[k].peer].packed[t[k].player] = false;
		}
		ref_write(s, t[k].ref, &t[k].id, NULL, "catan sync");
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
 * A ref the remote refused (its pre-receive hook, a rule of its own):
 * libgit2 says it here, and git_remote_push succeeds anyway. The first
 * into st->refused (payload: the store_ssh of store_ssh_callbacks).
 */
static int push_status(const char *ref, const char *status, void *payload)
{
	store_ssh *st = payload;
	if (status && !st->refused[0])
		snprintf(st->refused, sizeof st->refused,
			 "the remote refused %.100s (%.150s)", ref, status);
	return 0;
}

/*
 * Pushes this peer's own branch (only it: a peer writes no one else's log)
 * to a shared repository. Not a force push: a remote that holds a history
 * this branch does not contain refuses it, and the report says so.
 */
static void push_own(catan_store *s, git_config *cfg, const char *name,
		     catan_sync_report *rep)
{
	int me = catan_store_me(s);
	git_remote *remote = NULL;
	char url[STORE_URL_MAX];
	char spec[256];
	char *specs[1] = {spec};
	git_strarray refspecs = {specs, 1};
	git_push_options opt;
	if (me < 0)
		return;
	/*
	 * The fetch just before listed the remote's branches: when it holds
	 * this peer's branch where this peer has it, there is nothing to
	 * push, and no second connection is made (over https, a TLS
	 * handshake and two requests that each start git on the server);
	 * nor is the remote looked up (the configuration parsed again).
	 */
	char mine[300], theirs[600];
	git_oid a, b;
	snprintf(mine, sizeof mine, "refs/heads/%s", s->game.names.name[me]);
	snprintf(theirs, sizeof theirs, "refs/remotes/%s/%s", name,
		 s->game.names.name[me]);
	int rec = pushed_find(s, theirs);
	if ((git_reference_name_to_id(&a, s->repo, mine) == 0 &&
	     (rec >= 0 ? (b = s->pushed[rec].id, 0)
		       : git_reference_name_to_id(&b, s->repo, theirs)) == 0 &&
	     git_oid_equal(&a, &b)) ||
	    store_remote_url(cfg, name, true, url, sizeof url))
		return;
	/* An https host: one POST on the connection the fetch kept; its
	 * remote-tracking ref moves with the next sync's write (pushed). */
	git_oid old;
	if (git_reference_name_to_id(&a, s->repo, mine) == 0 &&
	    store_http_push(s->repo, name, url, mine, &a, s->game.signed_game,
			    rec >= 0 ? &s->pushed[rec].id : NULL, &old) == 0) {
		pushed_note(s, theirs, &old, &a);
		store_note(rep, "pushed %s to %s", s->game.names.name[me],
			   name);
		rep->pushed++;
		return;
	}
	if (store_remote_at(&remote, s->repo, name, url)) {
		const git_error *e = git_error_last();
		store_note(rep, "could not push %s to %s: %s",
			   s->game.names.name[me], name,
			   e && e->message ? e->message : "its URL");
		return;
	}
	git_push_options_init(&opt, GIT_PUSH_OPTIONS_VERSION);
	store_ssh ssh;
	store_ssh_callbacks(&opt.callbacks, &ssh, s->repo, url);
	opt.callbacks.push_update_reference = push_status;
	/*
	 * In a signed game only this peer can write a valid commit on its
	 * branch: whatever else stands there at the remote (a forgery pushed
	 * by another player) is overwritten. Not before this peer knows the
	 * start of a lobby: until then an open seat has as many possible
	 * writers as joiners, and the remote may hold the claim the host
	 * took, which this peer's own, passed over, must not replace.
	 */
	bool force = s->game.signed_game && !s->game.open;
	snprintf(spec, sizeof spec, "%srefs/heads/%s:refs/heads/%s",
		 force ? "+" : "", s->game.names.name[me],
		 s->game.names.name[me]);
	if (git_remote_push(remote, &refspecs, &opt) || ssh.refused[0]) {
		char why[sizeof ssh.why]; /* (ssh's or https's reason whole) */
		if (ssh.refused[0])
			snprintf(why, sizeof why, "%s", ssh.refused);
		else
			store_remote_why(&ssh, why, sizeof why);
		store_note(rep, "could not push %s to %s: %s",
			   s->game.names.name[me], name, why);
	} else {
		store_http_done(&ssh, url);
		store_note(rep, "pushed %s to %s", s->game.names.name[me],
			   name);
		rep->pushed++;
		if (rec >= 0) /* (libgit2 moved the ref itself) */
			pushed_drop(s, rec);
	}
	git_remote_free(remote);
}

/*
 * Pushes the two children of this peer's equivocation record (the
 * evidence, spec/replication.md) to a shared repository whose pair (seen:
 * what this sync read or fetched from it, seen[i] where has[i]) is not
 * the one to keep, so that peers who meet only there come to hold the
 * same record. The sync took the repository's pair in before (when valid:
 * store_adopt_evidence), so this peer's record is kept over it, or the
 * same; a pair there that this record would not replace (one this peer
 * cannot judge yet, say) is left alone. Forced: a record moves to smaller
 * ids, not forward. A host running the hook checks the pair as a sync
 * does; what it refuses is tried again at the next sync.
 */
static void push_evidence(catan_store *s, git_config *cfg, const char *name,
			  const git_oid *seen, const bool *has,
			  catan_sync_report *rep)
{
	char url[STORE_URL_MAX];
	store_verdict v, there;
	char track[2][512], spec[2][140];
	char *specs[2] = {spec[0], spec[1]};
	git_strarray refspecs = {specs, 2};
	if (!s->game.signed_game || store_verdict_read(s, &v) != 1)
		return;
	if (has[0] && has[1] &&
	    (store_evidence_same(seen, &v) == 1 ||
	     (store_evidence_proof(s, seen, &there) &&
	      !store_evidence_better(s, &there, &v))))
		return;
	for (int k = 0; k < 2; k++) {
		const char *from = store_evidence_name(k);
		snprintf(spec[k], sizeof spec[k], "+%s:%s", from, from);
		if (!store_tracking_ref(track[k], sizeof track[k], name, from))
			track[k][0] = '\0';
	}
	git_remote *remote = NULL;
	if (store_remote_url(cfg, name, true, url, sizeof url) ||
	    store_remote_at(&remote, s->repo, name, url)) {
		store_note(rep,
			   "could not push the equivocation record to %s: "
			   "its URL",
			   name);
		return;
	}
	git_push_options opt;
	git_push_options_init(&opt, GIT_PUSH_OPTIONS_VERSION);
	store_ssh ssh;
	store_ssh_callbacks(&opt.callbacks, &ssh, s->repo, url);
	opt.callbacks.push_update_reference = push_status;
	if (git_remote_push(remote, &refspecs, &opt) || ssh.refused[0]) {
		char why[sizeof ssh.why];
		if (ssh.refused[0])
			snprintf(why, sizeof why, "%s", ssh.refused);
		else
			store_remote_why(&ssh, why, sizeof why);
		store_note(rep,
			   "could not push the equivocation record to %s: %s",
			   name, why);
	} else {
		store_http_done(&ssh, url);
		store_note(rep, "pushed the equivocation record to %s", name);
		/* (what the remote holds now, as a fetch would say it) */
		for (int k = 0; k < 2; k++) {
			git_reference *r = NULL;
			if (track[k][0] &&
			    git_reference_create(&r, s->repo, track[k],
						 &v.child[k], 1,
						 "catan sync: pushed") == 0)
				git_reference_free(r);
		}
	}
	git_remote_free(remote);
}

/*
 * The names of names[0..n) without repeats, in their order (*nout of
 * them), in an array to free; NULL when out of memory.
 */
static const char **unique_names(const char *const *names, int n, int *nout)
{
	const char **uniq = calloc((size_t)n + 1, sizeof *uniq);
	int nuniq = 0;
	for (int i = 0; uniq && i < n; i++) {
		bool seen = false;
		for (int j = 0; j < nuniq && !seen; j++)
			seen = !strcmp(uniq[j], names[i]);
		if (!seen)
			uniq[nuniq++] = names[i];
	}
	*nout = nuniq;
	return uniq;
}

/*
 * The host's side of a lobby (lobby.c): once every open seat's branch
 * holds a claim, this peer, playing the first seat, writes the start and
 * pushes it where it pushes. 0, or -1 when the start could not be
 * written.
 */
static int lobby_start(catan_store *s, git_config *cfg,
		       const char *const *remotes, int nremotes,
		       catan_sync_report *rep, catan_err *err)
{
	bool wrote = false;
	if (!s->game.open || catan_store_me(s) != 0)
		return 0;
	if (store_lobby_start(s, &wrote, err))
		return -1;
	if (!wrote)
		return 0;
	git_oid tip;
	char hex[GIT_OID_HEXSZ + 1] = "";
	if (store_branch_tip(&tip, s, 0) == 0)
		git_oid_tostr(hex, sizeof hex, &tip);
	store_note(rep, "started the game: every seat is bound (start %.10s)",
		   hex);
	for (int i = 0; i < nremotes; i++)
		if (push_allowed(cfg, remotes[i]))
			push_own(s, cfg, remotes[i], rep);
	return 0;
}

/*
 * The branches whose new commits lacked an object the fetch should have
 * brought (bit p of refetch: player p's, from store_adopt_tips; verify's
 * catan_verify_report.incomplete), this peer's own aside (a
 * remote that shows it elsewhere is overwritten by the push, which needs
 * the remote-tracking ref where the remote has it): their
 * remote-tracking refs go back to the branches here, in track[0..nmoves)
 * when the fetch moves them there, else written now. The next fetch then
 * finds them behind the remote and asks for those commits again, over the
 * kept https connection with only the branches here as haves
 * (http_fetch.c), so a host that left objects out once is not believed to
 * have sent them.
 */
static void refetch_later(catan_store *s, const char *remote, unsigned refetch,
			  tracking *track, int nmoves)
{
	int me = catan_store_me(s);
	for (int p = 0; p < s->game.opt.nplayers && refetch; p++) {
		char ref[300], heads[300];
		git_oid here, now;
		if (!(refetch & (1u << p)) || p == me)
			continue;
		snprintf(heads, sizeof heads, "refs/heads/%s",
			 s->game.names.name[p]);
		if (!store_tracking_ref(ref, sizeof ref, remote, heads) ||
		    store_branch_tip(&here, s, p))
			continue;
		int k = 0;
		while (k < nmoves && strcmp(track[k].ref, ref))
			k++;
		if (k < nmoves) {
			track[k].id = here;
			continue;
		}
		if (git_reference_name_to_id(&now, s->repo, ref) != 0 ||
		    !git_oid_equal(&now, &here))
			ref_write(s, ref, &here, NULL,
				  "catan sync: fetch it again");
	}
}

/*
 * Objects left out of what a fetch through libgit2 brought: libgit2 asks
 * only for commits that are not here, so the remote is fetched whole
 * instead (store_fetch_whole), within what is left of its time. Once per
 * handle for the same tips of the branches that lacked objects at the
 * same remote (the last STORE_WHOLE_MAX remotes), counted when the fetch
 * got an answer or met a limit of bytes or objects (one the network or the
 * clock cut is tried again at the next sync): a remote that leaves them
 * out again is not fetched whole at every sync of a long-running peer (the
 * branches: refetch, as for refetch_later). Whether a pack was added (then
 * the caller adopts again).
 */
static bool refetch_whole(catan_store *s, store_fetch *f, const char *remote,
			  unsigned refetch, const git_oid *tips,
			  catan_sync_report *rep)
{
	int n = s->game.opt.nplayers, me = catan_store_me(s);
	git_oid key[CATAN_MAX_PLAYERS];
	bool any = false;
	for (int p = 0; p < n; p++) {
		bool want = (refetch >> p & 1u) && p != me;
		if (want)
			key[p] = tips[p];
		else
			memset(&key[p], 0, sizeof key[p]);
		any |= want;
	}
	if (!any || strlen(remote) >= sizeof s->whole[0].remote)
		return false;
	int w = 0;
	while (w < s->nwhole && strcmp(s->whole[w].remote, remote))
		w++;
	if (w < s->nwhole &&
	    !memcmp(s->whole[w].tips, key, (size_t)n * sizeof key[0]))
		return false;
	bool added = false;
	catan_err err;
	int rc = store_fetch_whole(f, remote, &added, &err);
	if (rc)
		store_note(rep, "could not fetch all of %s again: %s", remote,
			   err.msg);
	else
		store_note(rep,
			   "fetched all of %s again (what it sent lacked "
			   "objects)",
			   remote);
	/* (a cut for time is no answer: a slow link, tried again) */
	if (rc == -1 || (rc == -2 && strstr(err.msg, "CATAN_SYNC_REMOTE_MS")))
		return false;
	if (w == s->nwhole) {
		if (s->nwhole == STORE_WHOLE_MAX) {
			memmove(&s->whole[0], &s->whole[1],
				(STORE_WHOLE_MAX - 1) * sizeof s->whole[0]);
			w = STORE_WHOLE_MAX - 1;
		} else {
			w = s->nwhole++;
		}
		memcpy(s->whole[w].remote, remote, strlen(remote) + 1);
	}
	memcpy(s->whole[w].tips, key, (size_t)n * sizeof key[0]);
	s->packs_added |= added;
	return rc == 0 && added;
}

/*
 * The fetch of one remote (fast 0: a path remote, read already; 2: one
 * refused), then its verify and adopt, then the push of this peer's own
 * branch where allowed. An unreachable or refused peer is noted in rep,
 * not an error. Returns 0, or -1 when a branch could not be moved.
 */
static int fetch_one(catan_store *s, git_config *cfg, const char *remote,
		     int fast, const git_oid *ev, const bool *hasev,
		     tracking *track, catan_sync_report *rep, catan_err *err)
{
	git_oid fev[2];
	bool fhas[2] = {false, false};
	int rc = 0;
	catan_err ferr;
	bool changed = false;
	int frc = 0, nmoves = 0;
	store_fetch f = {s->repo, &s->budget, &s->quar_refs, s,
			 track,	  0,	      cfg,	     false};
	start_clock(s);
	if (fast == 2)
		return 0; /* refused (and said why) */
	char tracked[300];
	snprintf(tracked, sizeof tracked, "refs/remotes/%s/", remote);
	size_t fmark = s->intent_len;
	if (fast != 0 && store_intent(s, tracked))
		frc = store_fail(&ferr,
				 "cannot write to "
				 "catan.lock: %s",
				 strerror(errno));
	else if (fast != 0) {
		/* (the remote-tracking refs an https fetch moves go into
		 * track, written by settle with the branches adopted) */
		frc = store_fetch_remote(&f, remote, &changed, &ferr);
		nmoves = frc == 0 ? f.nmoves : 0;
	}
	store_intent_done(s, fmark);
	if (fast == 0) {
		rep->fetched++;
	} else if (frc == -2) {
		/* Past a limit: nothing of it was kept. */
		store_note(rep, "refused %s: %s", remote, ferr.msg);
		rep->refused++;
		return 0;
	} else if (frc) {
		/* An unreachable peer is not an error: play goes on. */
		store_note(rep, "could not reach %s: %s", remote, ferr.msg);
		rep->unreachable++;
		return 0;
	} else {
		rep->fetched++;
		s->packs_added |= changed;
		/* The host's list is newer than any push this handle
		 * recorded for it: the fetch moved those refs to it, or
		 * found them there (pushed). */
		for (int i = s->npushed - 1; i >= 0; i--)
			if (!strncmp(s->pushed[i].ref, tracked,
				     strlen(tracked)))
				pushed_drop(s, i);
		/* (A fetch writes remote-tracking refs itself.) */
		for (int k = 0; k < s->npeers; k++)
			if (!strcmp(s->peers[k].name, remote)) {
				memset(s->peers[k].tracked_known, 0,
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
		if (changed || store_remote_has_held(s, remote) ||
		    (!s->synced && store_remote_unadopted(s, remote))) {
			git_oid tips[CATAN_MAX_PLAYERS];
			bool has[CATAN_MAX_PLAYERS] = {false};
			store_remote_tips(s, remote, track, nmoves, tips, has);
			unsigned again = 0;
			rc = store_adopt_tips(s, remote, tips, has, &again, rep,
					      err);
			unsigned first = again;
			if (rc == 0 && first && f.through_libgit2 &&
			    refetch_whole(s, &f, remote, first, tips, rep)) {
				rc = store_adopt_tips(s, remote, tips, has,
						      &again, rep, err);
				/* (what the second pass did not adopt, cut by
				 * a limit say, is fetched again all the same)
				 */
				for (int p = 0; p < CATAN_MAX_PLAYERS; p++) {
					git_oid here;
					if ((first >> p & 1u) &&
					    !store_branch_tip(&here, s, p) &&
					    !git_oid_equal(&here, &tips[p]) &&
					    !store_quarantined_at(s, remote, p,
								  &tips[p]))
						again |= 1u << p;
				}
			}
			if (rc == 0)
				refetch_later(s, remote, again, track, nmoves);
		}
		/*
		 * Its evidence at every sync, moved or not: a pair judged
		 * "not yet" is judged again (it returns at once when the
		 * pair is the record's).
		 */
		store_remote_evidence(s, remote, track, nmoves, fev, fhas);
		if (rc == 0)
			rc = store_adopt_evidence(s, remote, fev, fhas, rep,
						  err);
		/* (the remote-tracking refs stay where they were when it
		 * failed: the next sync fetches again, nothing to download) */
		if (rc == 0)
			rc = settle(s, cfg, track, nmoves, err);
		ev = fev;
		hasev = fhas;
	}
	if (rc == 0 && push_allowed(cfg, remote)) {
		push_own(s, cfg, remote, rep);
		push_evidence(s, cfg, remote, ev, hasev, rep);
	}
	return rc;
}

int catan_store_sync(catan_store *s, const char *const *remotes, int nremotes,
		     catan_sync_report *rep, catan_err *err)
{
	git_strarray all = {NULL, 0};
	git_config *cfg = NULL;
	int rc = 0;
	memset(rep, 0, sizeof *rep);
	if (s->batch)
		return store_fail_code(err, CATAN_STORE_E_DENIED,
				       "cannot sync in batch mode");
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
		if (store_remote_names(cfg, &all)) {
			git_config_free(cfg);
			store_intent_done(s, mark);
			return store_fail(err,
					  "listing remotes: out of memory "
					  "or the configuration unreadable");
		}
		remotes = (const char *const *)all.strings;
		nremotes = (int)all.count;
	}
	/* A remote named twice is synced once. */
	int nuniq = 0;
	const char **uniq = unique_names(remotes, nremotes, &nuniq);
	if (uniq) {
		remotes = uniq;
		nremotes = nuniq;
	}
	s->packs_added = false;
	store_limits_read(&s->budget.lim);
	store_hold_tips(s); /* (not held if a branch is missing) */
	/*
	 * First every path remote is read and what it brings staged, then
	 * the stage written as one pack and the remote-tracking refs moved
	 * in one write, then each remote's branches verified and adopted in
	 * turn (the ordinary fetch for the others, at their turn).
	 */
	typedef struct pending {
		int fast;
		bool changed, has[CATAN_MAX_PLAYERS], hasev[2];
		git_oid tips[CATAN_MAX_PLAYERS], ev[2];
	} pending;
	pending *pend = calloc((size_t)nremotes + 1, sizeof *pend);
	tracking *track = calloc((size_t)(nremotes + 1) * CATAN_MAX_PLAYERS +
				     STORE_FETCH_MOVES,
				 sizeof *track);
	int ntrack = 0;
	if (!pend || !track)
		rc = store_fail(err, "out of memory");
	for (int i = 0; i < nremotes && rc == 0; i++) {
		start_clock(s);
		pend[i].fast = store_read_path_remote(
		    s, cfg, remotes[i], pend[i].tips, pend[i].has, pend[i].ev,
		    pend[i].hasev, &pend[i].changed, track, &ntrack, rep);
	}
	if (rc == 0)
		rc = store_stage_flush(s, err);
	for (int i = 0; i < nremotes && rc == 0; i++) {
		start_clock(s);
		if (pend[i].fast == 0 && pend[i].changed)
			rc = store_adopt_tips(s, remotes[i], pend[i].tips,
					      pend[i].has, NULL, rep, err);
		if (pend[i].fast == 0 && rc == 0)
			rc = store_adopt_evidence(s, remotes[i], pend[i].ev,
						  pend[i].hasev, rep, err);
	}
	if (rc == 0)
		rc = settle(s, cfg, track, ntrack, err);
	for (int i = 0; i < nremotes && rc == 0; i++)
		rc = fetch_one(s, cfg, remotes[i], pend[i].fast, pend[i].ev,
			       pend[i].hasev, track, rep, err);
	if (rc == 0)
		rc = lobby_start(s, cfg, remotes, nremotes, rep, err);
	free(pend);
	free(track);
	free(uniq);
	store_remote_names_free(&all); /* (not libgit2's) */
	git_config_free(cfg);
	s->tips_held = false;
	s->budget.deadline_ms = 0;
	memset(s->move_pending, 0, sizeof s->move_pending);
	if (rc == 0)
		rc = store_verdict_apply(s, rep, err);
	s->synced = rc == 0;
	/* A pack nothing points into yet: its names on disk all the same. */
	if (store_pack_named(s) && rc == 0)
		rc = store_fail(err, "fsync of objects/pack: %s",
				strerror(errno));
	s->pack_unnamed = false;
	/* Only a sync that brought packs can have made too many. */
	if (rc == 0 && s->packs_added)
		store_repack_if_needed(s, 16);
	store_intent_done(s, mark);
	return rc;
}

int catan_store_adopt(catan_store *s, const char *remote,
		      catan_sync_report *rep, catan_err *err)
{
	git_config *cfg = NULL;
	tracking none[CATAN_MAX_PLAYERS];
	if (s->batch)
		return store_fail_code(err, CATAN_STORE_E_DENIED,
				       "cannot adopt in batch mode");
	if (git_repository_config_snapshot(&cfg, s->repo))
		return store_git_fail(err, "reading the configuration");
	store_hold_tips(s); /* (not held if a branch is missing) */
	store_limits_read(&s->budget.lim);
	start_clock(s);
	unsigned again = 0;
	int rc = store_adopt_remote(s, remote, &again, rep, err);
	if (rc == 0)
		refetch_later(s, remote, again, none, 0);
	git_oid ev[2];
	bool has[2];
	store_remote_evidence(s, remote, NULL, 0, ev, has);
	if (rc == 0)
		rc = store_adopt_evidence(s, remote, ev, has, rep, err);
	if (rc == 0)
		rc = settle(s, cfg, none, 0, err);
	s->tips_held = false;
	s->budget.deadline_ms = 0;
	memset(s->move_pending, 0, sizeof s->move_pending);
	if (rc == 0)
		rc = store_verdict_apply(s, rep, err);
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
		return store_git_fail_rc(err, GIT_ENOTFOUND, "no such remote");
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
	if (store_url_check(url, err))
		return -1;
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
		return store_fail_code(err, CATAN_E_BAD_PLAYER,
				       "no such player");
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
