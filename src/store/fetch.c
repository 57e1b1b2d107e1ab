/*
 * fetch.c - layer 6: where a fetch happens: a URL remote (git://, ssh://,
 * http(s)://) fetched through libgit2 into refs/remotes/<remote>/, within
 * the limits of bytes, objects and time; heads refused before for a limit
 * are refused again without downloading.
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
#include "net.h"

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
	const store_fetch *f;
	bool over;
	char why[200];
} fetch_watch;

static int fetch_progress(const git_indexer_progress *st, void *payload)
{
	fetch_watch *fw = payload;
	const store_limits *lim = &fw->f->budget->lim;
	if ((long long)st->received_bytes > (long long)lim->fetch_bytes)
		snprintf(fw->why, sizeof fw->why,
			 "over CATAN_SYNC_MAX_FETCH_BYTES (%ld bytes)",
			 lim->fetch_bytes);
	else if ((long long)st->total_objects > 4LL * lim->commits)
		snprintf(fw->why, sizeof fw->why,
			 "%u objects: over 4 x CATAN_SYNC_MAX_COMMITS (%ld)",
			 st->total_objects, lim->commits);
	else if (store_past_deadline(fw->f->budget))
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
	if (!store_past_deadline(fw->f->budget))
		return 0;
	snprintf(fw->why, sizeof fw->why, "over CATAN_SYNC_REMOTE_MS (%ld ms)",
		 fw->f->budget->lim.remote_ms);
	fw->over = true;
	return -1;
}

/* The player whose branch ref (refs/heads/P) is, or -1 (s NULL: a join,
 * no game yet). */
static int seat_of(const catan_store *s, const char *ref)
{
	int p =
	    s && s->game.opt.nplayers > 0 && !strncmp(ref, "refs/heads/", 11)
		? catan_names_find(&s->game.names, ref + 11, strlen(ref + 11))
		: -1;
	return p >= 0 && !strcmp(ref + 11, s->game.names.name[p]) ? p : -1;
}

/* Whether remote `name`'s branch `ref` (refs/heads/P) is quarantined at id. */
static bool head_quarantined(const store_fetch *f, const char *name,
			     const char *ref, const git_oid *id)
{
	int p = seat_of(f->s, ref);
	return p >= 0 && store_quarantined_at(f->s, name, p, id);
}

/*
 * A fetch cut by a limit of bytes or objects would be cut again while
 * the remote's branches and evidence refs stay where they are:
 * refs/catan/refused/<remote> records them (a blob: "reason <why>", then
 * "<hex> <ref>" per ref), and the next fetch that finds the same refs
 * there is refused at once, by the same reason, without downloading
 * anything. Evidence refs count: a remote that served too much under
 * them, then the pair it recorded, is fetched again (after an
 * equivocation its branches never move). (A cut for time is not
 * recorded: a slow link is no verdict.)
 */
static int heads_text(char *buf, size_t size,
		      const git_remote_head *const *heads, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		char hex[GIT_OID_HEXSZ + 1];
		if (strncmp(heads[i]->name, "refs/heads/", 11) &&
		    store_evidence_index(heads[i]->name,
					 strlen(heads[i]->name)) < 0)
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
static bool refused_before(const store_fetch *f, const char *name,
			   const char *text, char *why, size_t whylen)
{
	char ref[300];
	git_oid id;
	git_blob *b = NULL;
	bool same = false;
	if (store_record_count(f->repo, f->records) == 0 ||
	    !refused_ref(ref, sizeof ref, name) ||
	    git_reference_name_to_id(&id, f->repo, ref) ||
	    git_blob_lookup(&b, f->repo, &id))
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
static void refused_record(const store_fetch *f, const char *name,
			   const char *text, const char *why)
{
	char ref[300];
	git_reference *r = NULL;
	if ((!why && store_record_count(f->repo, f->records) == 0) ||
	    !refused_ref(ref, sizeof ref, name))
		return;
	*f->records = 0;
	if (!why) {
		if (git_reference_lookup(&r, f->repo, ref) == 0)
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
		    git_blob_create_from_buffer(&id, f->repo, buf, (size_t)k) ==
			0 &&
		    git_reference_create(&r, f->repo, ref, &id, 1,
					 "catan sync: refused") == 0)
			git_reference_free(r);
	}
	free(buf);
}

/* Whether each branch of the remote is where refs/remotes/name/ has it
 * (or quarantined there), and its evidence refs where
 * refs/catan/evidence/name/ has them (store_tracking_ref). */
static bool heads_same(const store_fetch *f, const char *name,
		       const git_remote_head *const *heads, size_t nheads)
{
	for (size_t i = 0; i < nheads; i++) {
		const char *ref = heads[i]->name;
		char local[512];
		git_oid have;
		if (!store_tracking_ref(local, sizeof local, name, ref)) {
			if (!strncmp(ref, "refs/heads/", 11))
				return false; /* (no room to track it: fetch) */
			continue;
		}
		if (!((git_reference_name_to_id(&have, f->repo, local) == 0 &&
		       git_oid_equal(&have, &heads[i]->oid)) ||
		      head_quarantined(f, name, ref, &heads[i]->oid)))
			return false;
	}
	return true;
}

/*
 * The evidence refs of remote `name` kept here (refs/catan/evidence/
 * name/a and /b) that its list no longer holds: removed, so that they
 * say what the remote holds now (push_evidence in sync.c reads them).
 */
static void evidence_prune(const store_fetch *f, const char *name,
			   const git_remote_head *const *heads, size_t nheads)
{
	for (int k = 0; k < 2; k++) {
		char ref[512];
		const char *from = store_evidence_name(k);
		bool listed = false;
		for (size_t i = 0; i < nheads && !listed; i++)
			listed = !strcmp(heads[i]->name, from);
		git_reference *r = NULL;
		if (!listed &&
		    store_tracking_ref(ref, sizeof ref, name, from) &&
		    git_reference_lookup(&r, f->repo, ref) == 0)
			git_reference_delete(r);
		git_reference_free(r);
	}
}

/* Whether ref (a name the remote lists) is a player's branch of this
 * game or an evidence ref: names packed-refs may take as they are. */
static bool game_ref(const store_fetch *f, const char *ref)
{
	return store_evidence_index(ref, strlen(ref)) >= 0 ||
	       seat_of(f->s, ref) >= 0;
}

/*
 * The remote-tracking refs an https fetch is to move (move[i]: h's i-th
 * head) into f->moves, for the sync to write in packed-refs: those of the
 * players' branches and the evidence refs, each once (a list naming one
 * twice is refused). Any other (a branch no player has) is written here
 * through libgit2, which checks its name against the refs there are.
 * 0, or -1 and why.
 */
static int tracking_moves(store_fetch *f, const char *name,
			  const store_http_heads *h, const bool *move,
			  const git_oid *old, char *why, size_t whyn)
{
	int rc = 0;
	for (int i = 0; i < h->n && rc == 0; i++) {
		char local[512];
		if (!move[i] ||
		    !store_tracking_ref(local, sizeof local, name, h->name[i]))
			continue;
		for (int k = 0; k < f->nmoves; k++)
			if (!strcmp(f->moves[k].ref, local)) {
				snprintf(why, whyn,
					 "the host lists %.200s twice",
					 h->name[i]);
				return -1;
			}
		if (game_ref(f, h->name[i]) && f->nmoves < STORE_FETCH_MOVES &&
		    strlen(local) < sizeof f->moves[0].ref) {
			tracking *t = &f->moves[f->nmoves++];
			memset(t, 0, sizeof *t);
			memcpy(t->ref, local, strlen(local) + 1);
			t->old = old[i];
			t->id = h->head[i].oid;
			t->peer = STORE_TRACK_URL;
			t->player = -1;
			continue;
		}
		git_reference *r = NULL;
		if (git_reference_create(&r, f->repo, local, &h->head[i].oid, 1,
					 "catan sync")) {
			snprintf(why, whyn, "%.200s: not written", local);
			rc = -1;
		}
		git_reference_free(r);
	}
	return rc;
}

/*
 * An https host asked first over the connection kept between syncs: its
 * ref list (http_quick.c), then, when a branch moved, the fetch of one
 * POST (http_fetch.c). 1 when that cannot be done (the usual way, through
 * libgit2, then); else as store_fetch_remote.
 */
static int fetch_quick(store_fetch *f, const char *name, const char *url,
		       bool *changed, catan_err *err)
{
	store_http_heads *h = malloc(sizeof *h);
	char text[16384], why[300];
	int rc = 1;
	if (!h || !store_http_list(f->repo, url, h))
		goto done;
	bool known = heads_text(text, sizeof text, h->ptr, (size_t)h->n) == 0;
	if (known && refused_before(f, name, text, why, sizeof why)) {
		store_fail_code(err, CATAN_STORE_E_DENIED,
				"%.150s (its refs have not moved since)", why);
		rc = -2;
		goto done;
	}
	evidence_prune(f, name, h->ptr, (size_t)h->n);
	if (heads_same(f, name, h->ptr, (size_t)h->n)) {
		rc = 0;
		goto done;
	}
	bool move[STORE_HTTP_HEADS] = {false}, settled[STORE_HTTP_HEADS];
	git_oid old[STORE_HTTP_HEADS];
	for (int i = 0; i < h->n; i++)
		settled[i] =
		    head_quarantined(f, name, h->name[i], &h->head[i].oid);
	int q =
	    store_http_fetch(f->repo, name, url, h, f->budget, settled, changed,
			     f->moves ? move : NULL, old, why, sizeof why);
	if (q == 0 && f->moves)
		q = tracking_moves(f, name, h, move, old, why, sizeof why);
	if (q == 0) {
		if (known && f->budget->lim.commits > 0)
			refused_record(f, name, text, NULL);
		rc = 0;
	} else if (q == -2) {
		if (known && !strstr(why, "CATAN_SYNC_REMOTE_MS"))
			refused_record(f, name, text, why);
		store_fail_code(err, CATAN_STORE_E_DENIED, "%s", why);
		rc = -2;
	} else if (q == -1) {
		store_fail_code(err, CATAN_STORE_E_NETWORK,
				"fetching from %.100s: https: %.300s", name,
				why);
		rc = -1;
	}
done:
	free(h);
	return rc;
}

/* The URL of remote `name` for a fetch, read from f->cfg, else from a
 * snapshot of the repository's configuration: as store_remote_url. */
static int fetch_url(const store_fetch *f, const char *name, char *url,
		     size_t size)
{
	git_config *snap = NULL;
	int u = f->cfg ? store_remote_url(f->cfg, name, false, url, size)
		: git_repository_config_snapshot(&snap, f->repo)
		    ? -1
		    : store_remote_url(snap, name, false, url, size);
	git_config_free(snap);
	return u;
}

/* A fetch of url through libgit2 watched by fw (the limits of f, the ssh
 * and https logins): its options in opt, their callbacks in cb too. */
static void fetch_options(git_fetch_options *opt, git_remote_callbacks *cb,
			  fetch_watch *fw, const store_fetch *f,
			  const char *url)
{
	git_fetch_options_init(opt, GIT_FETCH_OPTIONS_VERSION);
	git_remote_init_callbacks(cb, GIT_REMOTE_CALLBACKS_VERSION);
	opt->prune = GIT_FETCH_NO_PRUNE;
	opt->update_fetchhead = 0;
	opt->download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	memset(fw, 0, sizeof *fw);
	fw->f = f;
	store_ssh_callbacks(cb, &fw->ssh, f->repo, url);
	cb->transfer_progress = fetch_progress;
	cb->sideband_progress = fetch_sideband;
	opt->callbacks = *cb;
}

int store_fetch_remote(store_fetch *f, const char *name, bool *changed,
		       catan_err *err)
{
	git_remote *remote = NULL;
	char spec[3][800];
	char *specs[3] = {spec[0], spec[1], spec[2]};
	git_strarray refspecs = {specs, 1};
	git_fetch_options opt;
	git_remote_callbacks cb;
	const git_remote_head **heads = NULL;
	size_t nheads = 0;
	int rc = -1;

	*changed = false;
	snprintf(spec[0], sizeof spec[0], "+refs/heads/*:refs/remotes/%s/*",
		 name);
	/* (no git_remote_lookup: remote.c says why) */
	char url[STORE_URL_MAX];
	int u = fetch_url(f, name, url, sizeof url);
	if (u == 1)
		return store_git_fail_rc(err, GIT_ENOTFOUND, "no such remote");
	if (u)
		return store_fail(err,
				  "the URL of remote %.100s: too long, or "
				  "the configuration unreadable",
				  name);
	/* An https host asked cheaply first: nothing moved, or one POST. */
	int q = fetch_quick(f, name, url, changed, err);
	if (q != 1)
		return q;
	f->through_libgit2 = true;
	if (store_remote_at(&remote, f->repo, name, url))
		return store_git_fail(err, "the remote");
	fetch_watch fw;
	fetch_options(&opt, &cb, &fw, f, url);
	if (git_remote_connect(remote, GIT_DIRECTION_FETCH, &cb, NULL, NULL) ||
	    git_remote_ls(&heads, &nheads, remote))
		goto fail;
	char text[16384];
	bool known = heads_text(text, sizeof text, heads, nheads) == 0;
	if (known && refused_before(f, name, text, fw.why, sizeof fw.why)) {
		char why[200];
		snprintf(why, sizeof why, "%s", fw.why);
		snprintf(fw.why, sizeof fw.why,
			 "%.150s (its refs have not moved since)", why);
		fw.over = true;
		goto fail;
	}
	evidence_prune(f, name, heads, nheads);
	/*
	 * The evidence refs the remote lists, by name (a refspec naming a
	 * ref the remote lacks would fail the fetch): forced, since a
	 * record moves to smaller ids, not forward.
	 */
	for (size_t i = 0; i < nheads && refspecs.count < 3; i++) {
		char local[512];
		if (strlen(heads[i]->name) < 200 &&
		    strncmp(heads[i]->name, "refs/heads/", 11) &&
		    store_tracking_ref(local, sizeof local, name,
				       heads[i]->name))
			snprintf(spec[refspecs.count++], sizeof spec[0],
				 "+%s:%s", heads[i]->name, local);
	}
	if (!heads_same(f, name, heads, nheads)) {
		if (git_remote_download(remote, &refspecs, &opt) ||
		    git_remote_update_tips(remote, &cb, 0,
					   GIT_REMOTE_DOWNLOAD_TAGS_NONE,
					   "catan sync")) {
			if (fw.over && known &&
			    !strstr(fw.why, "CATAN_SYNC_REMOTE_MS"))
				refused_record(f, name, text, fw.why);
			goto fail;
		}
		*changed = true;
	}
	if (known && f->budget->lim.commits > 0)
		refused_record(f, name, text, NULL);
	store_http_done(&fw.ssh, url);
	rc = 0;
fail:
	if (rc && fw.over) {
		store_fail_code(err, CATAN_STORE_E_DENIED, "%s", fw.why);
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

/* Every pack file of folder `dir` indexed into odb: 0, or -1 (why). */
static int add_packs(git_odb *odb, const char *dir, bool *added, char *why,
		     size_t whyn)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;
	if (!d)
		return 0; /* (nothing fetched) */
	while (rc == 0 && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".pack"))
			continue;
		char path[STORE_PATH_MAX], buf[65536];
		FILE *in =
		    store_path(path, sizeof path, "%s/%s", dir, e->d_name)
			? NULL
			: fopen(path, "rb");
		git_odb_writepack *wp = NULL;
		git_indexer_progress st;
		memset(&st, 0, sizeof st);
		if (!in || git_odb_write_pack(&wp, odb, NULL, NULL)) {
			snprintf(why, whyn, "cannot add the pack fetched");
			rc = -1;
		}
		size_t n;
		while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
			if (wp->append(wp, buf, n, &st))
				rc = -1;
		if (rc == 0 && (ferror(in) || wp->commit(wp, &st)))
			rc = -1;
		if (rc && !why[0])
			snprintf(why, whyn, "the pack fetched does not index");
		*added |= rc == 0;
		if (wp)
			wp->free(wp);
		if (in)
			fclose(in);
	}
	closedir(d);
	return rc;
}

int store_fetch_whole(store_fetch *f, const char *name, bool *added,
		      catan_err *err)
{
	char url[STORE_URL_MAX], dir[STORE_PATH_MAX], packs[STORE_PATH_MAX];
	char why[200] = "";
	git_repository *tmp = NULL;
	git_remote *remote = NULL;
	git_odb *odb = NULL;
	int rc = -1;
	*added = false;
	if (fetch_url(f, name, url, sizeof url))
		return store_fail(err, "the URL of remote %.100s", name);
	/* What a whole fetch a crash cut left (only a sync, which holds the
	 * writer's lock, makes one; catan gc removes them too). */
	store_remove_named(git_repository_path(f->repo), "catan-whole-");
	if (store_path(dir, sizeof dir, "%scatan-whole-XXXXXX",
		       git_repository_path(f->repo)))
		return store_fail(err, "%s: path too long",
				  git_repository_path(f->repo));
	if (!mkdtemp(dir))
		return store_fail(err, "a folder for the whole fetch: %s",
				  strerror(errno));
	fetch_watch fw;
	git_fetch_options opt;
	git_remote_callbacks cb;
	fetch_options(&opt, &cb, &fw, f, url);
	char spec[] = "+refs/heads/*:refs/remotes/whole/*";
	char *specs[] = {spec};
	git_strarray refspecs = {specs, 1};
	if (git_repository_init(&tmp, dir, 1) ||
	    store_remote_at(&remote, tmp, name, url)) {
		store_git_fail(err, "a repository for the whole fetch");
		goto done;
	}
	if (git_remote_fetch(remote, &refspecs, &opt, NULL)) {
		char what[300];
		snprintf(what, sizeof what, "fetching all of %.200s", name);
		if (fw.over) {
			store_fail_code(err, CATAN_STORE_E_DENIED, "%s",
					fw.why);
			rc = -2;
		} else {
			store_ssh_fail(&fw.ssh, err, what);
		}
		goto done;
	}
	store_http_done(&fw.ssh, url);
	if (store_path(packs, sizeof packs, "%s/objects/pack", dir) ||
	    git_repository_odb(&odb, f->repo) ||
	    add_packs(odb, packs, added, why, sizeof why)) {
		store_fail(err, "fetching all of %.100s: %s", name,
			   why[0] ? why : "cannot write the objects here");
		goto done;
	}
	rc = 0;
done:
	git_odb_free(odb);
	git_remote_free(remote);
	git_repository_free(tmp);
	store_remove_tree(dir);
	return rc;
}
