/*
 * quarantine.c - layer 6: the records of refused branches
 * (refs/catan/quarantine/<remote>/<player>: a small evidence blob) and of
 * held-back tips (refs/catan/held/), read and written.
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
int store_record_count(git_repository *repo, int *count)
{
	static const char *const globs[] = {"refs/catan/quarantine/*",
					    "refs/catan/refused/*"};
	if (*count == 0) {
		int n = 0;
		for (int i = 0; i < 2; i++) {
			git_reference_iterator *it = NULL;
			const char *name;
			if (git_reference_iterator_glob_new(&it, repo,
							    globs[i]))
				return 1; /* cannot tell: look */
			while (git_reference_next_name(&name, it) == 0)
				n++;
			git_reference_iterator_free(it);
		}
		*count = n + 1;
	}
	return *count - 1;
}

/*
 * The record of player p's branch of `remote` in
 * refs/catan/quarantine/<remote>/<player>, of either kind: its tip, and
 * *refused whether it refuses that tip (a "bad" line, whose commit goes to
 * *bad when bad is not NULL; or, as older versions wrote it, the tip
 * itself) rather than noting it off its author's branch. 0, or -1 when
 * there is none.
 */
static int read_record(catan_store *s, const char *remote, int p, git_oid *tip,
		       git_oid *bad, bool *refused)
{
	char ref[256];
	git_oid q;
	git_blob *b = NULL;
	if (store_record_count(s->repo, &s->quar_refs) == 0 ||
	    !remote_ref(ref, sizeof ref, s, "quarantine", remote, p) ||
	    git_reference_name_to_id(&q, s->repo, ref))
		return -1;
	if (git_blob_lookup(&b, s->repo, &q)) {
		*tip = q; /* a commit, as before evidence blobs */
		if (bad)
			*bad = q;
		*refused = true;
		return 0;
	}
	const char *d = git_blob_rawcontent(b);
	size_t len = (size_t)git_blob_rawsize(b);
	int rc = len >= GIT_OID_HEXSZ + 4 && !memcmp(d, "tip ", 4) &&
			 !git_oid_fromstrn(tip, d + 4, GIT_OID_HEXSZ)
		     ? 0
		     : -1;
	*refused = rc == 0 && len >= 2 * (GIT_OID_HEXSZ + 5) &&
		   !memcmp(d + GIT_OID_HEXSZ + 5, "bad ", 4) &&
		   (!bad || !git_oid_fromstrn(bad, d + GIT_OID_HEXSZ + 9,
					      GIT_OID_HEXSZ));
	git_blob_free(b);
	return rc;
}

/*
 * The quarantine record of player p's branch of `remote` that refuses a
 * tip: the tip refused and the first bad commit in it (*bad may be NULL).
 * 0, or -1 when there is none (or only a note of a tip off its author's
 * branch).
 */
int store_quarantine_read(catan_store *s, const char *remote, int p,
			  git_oid *tip, git_oid *bad)
{
	bool refused = false;
	return read_record(s, remote, p, tip, bad, &refused) == 0 && refused
		   ? 0
		   : -1;
}

/* Whether player p's branch of `remote` was quarantined at tip `id`. */
bool store_quarantined_at(catan_store *s, const char *remote, int p,
			  const git_oid *id)
{
	git_oid q;
	return store_quarantine_read(s, remote, p, &q, NULL) == 0 &&
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
void store_quarantine(catan_store *s, const char *remote, int p,
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
 * local branch's turn: nothing new is older) or s->budget.lim.commits commits.
 * Junk that grows by a commit is then refused at once, not checked again.
 */
bool store_builds_on_rejected(catan_store *s, const char *remote, int p,
			      const git_oid *tip, const git_oid *local,
			      int floor)
{
	git_oid qtip, bad, *todo = NULL;
	size_t k = 0, cap = 0;
	long seen = 0;
	bool found = false;
	if (store_quarantine_read(s, remote, p, &qtip, &bad) ||
	    !(todo = store_reserve(NULL, &cap, 16, sizeof *todo)))
		return false;
	todo[k++] = *tip;
	while (k > 0 && !found && seen++ < s->budget.lim.commits) {
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
		if (store_quarantine_read(s, remote, p, &tip, NULL) == 0 &&
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
bool store_remote_has_held(catan_store *s, const char *remote)
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

bool store_remote_unadopted(catan_store *s, const char *remote)
{
	for (int p = 0; p < s->game.opt.nplayers; p++) {
		char ref[256];
		git_oid id, local;
		int k = snprintf(ref, sizeof ref, "refs/remotes/%s/%s", remote,
				 s->game.names.name[p]);
		if (k < 0 || (size_t)k >= sizeof ref ||
		    git_reference_name_to_id(&id, s->repo, ref))
			continue;
		git_oid judged;
		bool refused;
		if (read_record(s, remote, p, &judged, NULL, &refused) == 0 &&
		    git_oid_equal(&judged, &id))
			continue; /* (judged at that tip before, either way) */
		if (store_branch_tip(&local, s, p) ||
		    (!git_oid_equal(&id, &local) &&
		     store_is_ancestor(s, &id, &local) != 1))
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
bool store_hold_back(catan_store *s, const char *remote, int p,
		     const git_oid *tip)
{
	char ref[256];
	git_oid was;
	git_reference *r = NULL;
	if (!remote_ref(ref, sizeof ref, s, "held", remote, p))
		return false;
	/* (A tip refused before is refused again, not held back anew.) */
	if (store_quarantined_at(s, remote, p, tip))
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
	if (store_pack_named(s) ||
	    git_reference_create(&r, s->repo, ref, tip, 1,
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
void store_release_held(catan_store *s, const char *remote, const bool *has,
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
