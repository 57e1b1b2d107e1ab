/*
 * path_remote.c - layer 6: one path remote synced: its branch tips read,
 * quarantined and held-back tips set aside, the new history copied
 * (copy.c), and its remote-tracking refs prepared for the one write of
 * packed-refs.
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
 * The peer's packed-refs, read once per reading of its branches: the
 * branch targets it holds for the players (got[p] true for those), and
 * rc as returned.
 * 0; 1 when it cannot be read here (libgit2 then reads each branch as
 * usual: a file over 64 KiB, a line not as git writes it); -2 when it is
 * not a regular file.
 */
#define PEER_PACKED_MAX 65536 /* (the 64 KiB above: a game's is a few KiB) */
typedef struct peer_packed {
	bool got[CATAN_MAX_PLAYERS], evgot[2];
	int rc;
	git_oid id[CATAN_MAX_PLAYERS], ev[2]; /* (ev: the evidence refs) */
} peer_packed;

static int read_packed(peer_packed *pk, const catan_store *s, store_peer *pe)
{
	char path[STORE_PATH_MAX], buf[PEER_PACKED_MAX];
	memset(pk->got, 0, sizeof pk->got);
	memset(pk->evgot, 0, sizeof pk->evgot);
	if (store_path(path, sizeof path, "%spacked-refs",
		       git_repository_path(pe->repo)))
		return pk->rc = 1;
	int fd = store_peer_open_file(path);
	if (fd < 0)
		return pk->rc = errno == ENOENT ? 0 : errno == EINVAL ? -2 : 1;
	size_t len = 0;
	ssize_t n;
	while (len < sizeof buf &&
	       (n = read(fd, buf + len, sizeof buf - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (len == sizeof buf || (len > 0 && buf[len - 1] != '\n'))
		return pk->rc = 1;
	for (size_t i = 0; i < len;) {
		const char *line = buf + i, *nl = memchr(line, '\n', len - i);
		size_t ll = (size_t)(nl - line);
		i += ll + 1;
		if (ll > 0 && (line[0] == '#' || line[0] == '^'))
			continue; /* the header, a peeled tag */
		git_oid id;
		if (ll < GIT_OID_HEXSZ + 2 || line[GIT_OID_HEXSZ] != ' ' ||
		    git_oid_fromstrn(&id, line, GIT_OID_HEXSZ))
			return pk->rc = 1;
		const char *ref = line + GIT_OID_HEXSZ + 1;
		size_t rl = ll - GIT_OID_HEXSZ - 1;
		int k = store_evidence_index(ref, rl);
		if (k >= 0) {
			pk->ev[k] = id;
			pk->evgot[k] = true;
		}
		if (rl <= 11 || memcmp(ref, "refs/heads/", 11))
			continue;
		for (int p = 0; p < s->game.opt.nplayers; p++) {
			const char *name = s->game.names.name[p];
			if (strlen(name) == rl - 11 &&
			    !memcmp(ref + 11, name, rl - 11)) {
				pk->id[p] = id;
				pk->got[p] = true;
			}
		}
	}
	return pk->rc = 0;
}

/*
 * The target of ref `ref` in the peer from its loose file, when there is
 * one holding an id: 0 (two system calls fewer than libgit2, which also
 * looks at packed-refs first); 1 when there is no such file (the ref is
 * in packed-refs or nowhere); -1 for anything else (libgit2 reads it);
 * -2 when the file is not a regular file (peer_open_file).
 */
static int peer_loose(git_oid *out, store_peer *pe, const char *ref)
{
	char path[STORE_PATH_MAX], buf[GIT_OID_HEXSZ + 2];
	if (store_path(path, sizeof path, "%s%s", git_repository_path(pe->repo),
		       ref))
		return -1;
	int fd = store_peer_open_file(path);
	if (fd < 0)
		return errno == EINVAL ? -2 : errno == ENOENT ? 1 : -1;
	ssize_t n = read(fd, buf, sizeof buf);
	close(fd);
	return n == GIT_OID_HEXSZ + 1 && buf[GIT_OID_HEXSZ] == '\n' &&
		       git_oid_fromstrn(out, buf, GIT_OID_HEXSZ) == 0
		   ? 0
		   : -1;
}

/* peer_loose for player p's branch. */
static int peer_loose_ref(git_oid *out, const catan_store *s, store_peer *pe,
			  int p)
{
	char ref[300];
	snprintf(ref, sizeof ref, "refs/heads/%s", s->game.names.name[p]);
	return peer_loose(out, pe, ref);
}

/*
 * The peer's evidence refs (its equivocation record's two children:
 * ev[i] where has[i]), from their loose files, else from packed-refs.
 * Only plain files are read; anything else there counts as no evidence.
 */
static void peer_evidence(const catan_store *s, store_peer *pe, git_oid *ev,
			  bool *has)
{
	int got[2];
	for (int i = 0; i < 2; i++) {
		got[i] = peer_loose(&ev[i], pe, store_evidence_name(i));
		has[i] = got[i] == 0;
	}
	peer_packed pk;
	if ((got[0] == 1 || got[1] == 1) && read_packed(&pk, s, pe) == 0)
		for (int i = 0; i < 2; i++)
			if (got[i] == 1 && pk.evgot[i]) {
				ev[i] = pk.ev[i];
				has[i] = true;
			}
}

/*
 * One reading of the peer's player branches (tips[p] where has[p]): every
 * loose file first, then, when a branch has none, packed-refs once for
 * all of them (read after the loose files, as libgit2 reads a ref: a
 * value there is not older than the loose file missed), else libgit2 for
 * each. Returns whether a file is not a regular file.
 */
static bool peer_read_tips(const catan_store *s, store_peer *pe, git_oid *tips,
			   bool *has)
{
	int n = s->game.opt.nplayers, got[CATAN_MAX_PLAYERS];
	bool plain = false, missed = false;
	peer_packed pk = {.rc = 1};
	for (int p = 0; p < n; p++) {
		got[p] = peer_loose_ref(&tips[p], s, pe, p);
		plain |= got[p] == -2;
		missed |= got[p] > 0;
	}
	if (!plain && missed && read_packed(&pk, s, pe) == -2)
		plain = true;
	for (int p = 0; p < n && !plain; p++) {
		if (got[p] > 0 && pk.rc == 0) {
			got[p] = pk.got[p] ? 0 : -3;
			if (pk.got[p])
				tips[p] = pk.id[p];
		} else if (got[p] != 0) {
			/* libgit2 reads packed-refs, blocking: only a plain
			 * file. */
			char path[STORE_PATH_MAX], ref[256];
			struct stat sb;
			snprintf(ref, sizeof ref, "refs/heads/%s",
				 s->game.names.name[p]);
			if (store_path(path, sizeof path, "%spacked-refs",
				       git_repository_path(pe->repo)) == 0 &&
			    lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
				plain = true;
			else
				got[p] = git_reference_name_to_id(&tips[p],
								  pe->repo, ref)
					     ? -3
					     : 0;
		}
		has[p] = got[p] == 0;
	}
	return plain;
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
	int n = s->game.opt.nplayers;
	git_oid again[CATAN_MAX_PLAYERS];
	bool had[CATAN_MAX_PLAYERS], same = true;
	bool plain = peer_read_tips(s, pe, tips, has);
	for (int p = 0; p < n && !plain; p++) {
		git_oid local;
		if (has[p] && (store_branch_tip(&local, s, p) ||
			       !git_oid_equal(&local, &tips[p])))
			same = false;
	}
	for (int round = 0; !same && !plain && round < 8; round++) {
		plain = peer_read_tips(s, pe, again, had);
		same = true;
		for (int p = 0; p < n; p++)
			same &= had[p] == has[p] &&
				(!had[p] || git_oid_equal(&again[p], &tips[p]));
		memcpy(tips, again, sizeof *tips * (size_t)n);
		memcpy(has, had, sizeof *has * (size_t)n);
	}
	return plain ? -2 : 0;
}

/*
 * The remote-tracking refs of the branches read from peer pe (read[p]),
 * as a fetch would leave them (git branch -r shows what each peer
 * holds): only the ones that move are added to t[*nt...].
 */
static void track_moves(catan_store *s, store_peer *pe, const char *name,
			const git_oid *tips, const bool *read, tracking *t,
			int *nt)
{
	int n = s->game.opt.nplayers;
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
}

/*
 * Player p's branch of path remote `name`, at tip, refused while copying
 * it (commit bad, for why): quarantined and noted in rep.
 */
static void reject_copy(catan_store *s, store_peer *pe, const char *name, int p,
			const git_oid *tip, const git_oid *bad, const char *why,
			catan_sync_report *rep)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_oid_tostr(hex, sizeof hex, tip);
	store_note(rep,
		   "rejected %s from %s: commit %.10s: %s; kept as "
		   "refs/catan/quarantine/%s/%s (tip %.10s)",
		   s->game.names.name[p], name, git_oid_tostr_s(bad), why, name,
		   s->game.names.name[p], hex);
	store_quarantine(s, name, p, tip, bad, false, why, pe->odb);
	rep->rejected++;
}

/*
 * A copy from path remote `name` failed with rc (store_copy_history): the
 * stage back to `mark`, and 1 (cannot run) or 2 (refused, noted in rep).
 */
static int copy_failed(catan_store *s, int mark, int rc, const char *name,
		       const char *why, catan_sync_report *rep)
{
	if (store_pack_truncate(s->stage, mark))
		store_stage_drop(s);
	if (rc == 1)
		return 1;
	store_note(rep, "refused %s: %s", name,
		   rc == 4 ? why
			   : "a file of it is not a regular file (a "
			     "FIFO, a device or a symlink)");
	rep->refused++;
	return 2;
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
int store_read_path_remote(catan_store *s, git_config *cfg, const char *name,
			   git_oid *tips, bool *has, git_oid *ev, bool *hasev,
			   bool *changed, tracking *t, int *nt,
			   catan_sync_report *rep)
{
	store_peer *pe = NULL;
	git_buf url = {NULL, 0, 0};
	char key[300], why[400];
	*changed = false;
	hasev[0] = hasev[1] = false;
	/*
	 * The URL as configured (git_remote_lookup would read the whole
	 * configuration again for each remote; a path is never rewritten by
	 * url.<base>.insteadOf here: only a directory that exists is read).
	 */
	snprintf(key, sizeof key, "remote.%s.url", name);
	if (git_config_get_string_buf(&url, cfg, key))
		return 1;
	const char *dir = store_local_dir(url.ptr);
	char gitdir[STORE_PATH_MAX];
	bool plain = false; /* peer_plain said so in this sync */
	if (dir && store_path(gitdir, sizeof gitdir, "%s", dir)) {
		git_buf_dispose(&url);
		return 1; /* (no such directory can be opened) */
	}
	if (dir) {
		/* (git_repository_open_ext finds a bare one or DIR/.git) */
		struct stat sb;
		if (store_path(gitdir, sizeof gitdir, "%s/.git", dir) ||
		    lstat(gitdir, &sb) || !S_ISDIR(sb.st_mode))
			store_path(gitdir, sizeof gitdir, "%s", dir);
		/* (before libgit2 first opens it; again before a copy) */
		bool opened = false;
		for (int i = 0; i < s->npeers && !opened; i++)
			opened = !strcmp(s->peers[i].name, name) &&
				 !strcmp(s->peers[i].path, dir);
		if (!opened && store_peer_plain(gitdir, why, sizeof why)) {
			git_buf_dispose(&url);
			store_note(rep, "refused %s: %s", name, why);
			rep->refused++;
			return 2;
		}
		plain = !opened;
		pe = store_peer_open(s, name, dir);
	}
	git_buf_dispose(&url);
	if (!pe || store_stage_init(s))
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
		store_note(
		    rep,
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
		if (store_quarantined_at(s, name, p, &tips[p])) {
			/* Refused and reported before (its objects may be
			 * gone: catan gc). */
			has[p] = read[p] = false;
			continue;
		}
		if (store_listed(mine, (size_t)nmine, &tips[p]) ||
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
		if (!plain && store_peer_plain(gitdir, why, sizeof why)) {
			if (store_pack_truncate(s->stage, mark))
				store_stage_drop(s);
			store_note(rep, "refused %s: %s", name, why);
			rep->refused++;
			return 2;
		}
		plain = true;
		bool was = store_quarantine_read(s, name, p, &refused[0],
						 &refused[1]) == 0;
		int here = store_pack_count(s->stage);
		int rc = store_copy_history(s, pe, &tips[p], mine, nmine,
					    was ? refused : NULL, &bad, why,
					    sizeof why);
		if (rc == 2) {
			/* Refused before anything of it is kept. */
			if (store_pack_truncate(s->stage, here))
				store_stage_drop(s);
			reject_copy(s, pe, name, p, &tips[p], &bad, why, rep);
			has[p] = read[p] = false;
			if (!s->stage && store_stage_init(s))
				return 1;
			continue;
		}
		if (rc)
			return copy_failed(s, mark, rc, name, why, rep);
		*changed = true;
	}
	/*
	 * Its evidence (signed games): copied when new, offered to the
	 * record after the branches (store_adopt_evidence). A copy that
	 * fails leaves it out, said in rep (store_adopt_evidence then finds
	 * a child missing and passes over it; ev and hasev stay what the
	 * peer holds, which push_evidence compares with the record); the
	 * branches stay as read.
	 */
	if (s->game.signed_game)
		peer_evidence(s, pe, ev, hasev);
	for (int i = 0; i < 2; i++) {
		git_oid bad;
		if (!hasev[i] || store_pack_find(s->stage, &ev[i]) >= 0 ||
		    git_odb_exists_ext(s->odb, &ev[i],
				       GIT_ODB_LOOKUP_NO_REFRESH))
			continue;
		int here = store_pack_count(s->stage);
		snprintf(why, sizeof why,
			 "it is missing there, or no commit, or does not hash "
			 "to its id");
		if ((!plain && store_peer_plain(gitdir, why, sizeof why)) ||
		    store_copy_history(s, pe, &ev[i], mine, nmine, NULL, &bad,
				       why, sizeof why)) {
			if (store_pack_truncate(s->stage, here))
				store_stage_drop(s);
			store_note(rep,
				   "ignored the equivocation record of %s: "
				   "cannot copy %.10s (%s): %s",
				   name, git_oid_tostr_s(&ev[i]),
				   store_evidence_name(i), why);
			if (!s->stage && store_stage_init(s))
				return 1;
			break;
		}
		plain = true;
	}
	track_moves(s, pe, name, tips, read, t, nt);
	return 0;
}
