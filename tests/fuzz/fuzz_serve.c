/*
 * fuzz_serve.c - the host's answers to catan peers' HTTP requests
 * (src/store/http_serve.c, `catan host-hook serve BARE --http`): the body
 * of a POST to git-upload-pack (protocol v2 ls-refs / fetch) and of a POST
 * to git-receive-pack (update lines, then a pack indexed into a quarantine
 * folder, checked, moved in, the refs moved).
 *
 * The repository: a bare game made once with catan_store_create (the
 * beginner board, deterministic dates, so the same ids every run: the
 * seed corpus names them). With FUZZ_SERVE_KEEP=DIR it is made at DIR and
 * kept, for making seeds with stock git (tests/fuzz/make_serve_corpus.sh).
 *
 * Input: one byte of mode, then the body. Mode bit 0 clear: the body goes
 * to catan_store_serve_upload; set: to catan_store_serve_receive, whose
 * check accepts when mode bit 1 is set and refuses otherwise. After a
 * push that moved anything the refs are put back and the new packs
 * removed (and the store opened again, so libgit2 forgets them): the
 * repository stays as made.
 * Invariants: the status is 200 or 400 (500 only with no answer); an
 * answer is whole pkt-lines; 400 is one ERR packet; ls-refs lists exactly
 * the refs it names, with their ids; a push leaves no quarantine folder,
 * and moves only the refs it reports "ok", each to the id it asked; a
 * refused check, or a 400, changes no ref and adds no pack; the check
 * sees an existing quarantine folder and whole "OLD NEW REF" lines.
 */
#define _GNU_SOURCE /* memmem */

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>

#include "catan/store.h"
#include "fuzz.h"

#define MAXREFS 64

static catan_store *store;
static git_repository *view; /* the same repository, for the checks */
static char path[600], packdir[700];
static int nrefs0;
static char refname0[MAXREFS][256];
static git_oid refid0[MAXREFS];
static int npacks0;
static char packs0[16][256];

typedef struct refset {
	int n;
	char name[MAXREFS][256];
	git_oid id[MAXREFS];
} refset;

static void read_all(refset *r)
{
	git_reference_iterator *it = NULL;
	git_reference *ref;
	r->n = 0;
	FUZZ_CHECK(git_reference_iterator_new(&it, view) == 0);
	while (git_reference_next(&ref, it) == 0) {
		if (git_reference_type(ref) == GIT_REFERENCE_DIRECT &&
		    r->n < MAXREFS) {
			snprintf(r->name[r->n], sizeof r->name[0], "%s",
				 git_reference_name(ref));
			git_oid_cpy(&r->id[r->n], git_reference_target(ref));
			r->n++;
		}
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
}

static int find(const refset *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->name[i], name))
			return i;
	return -1;
}

/* The names in objects/pack (or, when dir is objects, its
 * incoming-catan-* folders), counted; names[] filled up to 16. */
static int list_dir(const char *dir, const char *prefix, char names[][256])
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	FUZZ_CHECK(d != NULL);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    !strncmp(e->d_name, prefix, strlen(prefix))) {
			if (names && n < 16)
				snprintf(names[n], 256, "%s", e->d_name);
			n++;
		}
	closedir(d);
	return n;
}

static void open_store(void)
{
	catan_err err;
	if (catan_store_open_ext(&store, path, true, &err)) {
		fprintf(stderr, "fuzz_serve: open: %s\n", err.msg);
		abort();
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	catan_game g;
	catan_err err;
	const char *keep = getenv("FUZZ_SERVE_KEEP");
	/* (started for good: freeing the store's last handle would shut
	 * libgit2 down under the one this harness keeps) */
	git_libgit2_init();
	memset(&g, 0, sizeof g);
	catan_options_default(&g.opt);
	g.opt.seed = 1;
	catan_names_default(&g.names, 4);
	catan_board_beginner(&g.board);
	if (keep && *keep)
		snprintf(path, sizeof path, "%s", keep);
	else
		snprintf(path, sizeof path, "%s/game.git", fuzz_scratch());
	if (catan_store_create(&store, path, &g, CATAN_TIME_DETERMINISTIC,
			       &err)) {
		fprintf(stderr, "fuzz_serve: create %s: %s\n", path, err.msg);
		abort();
	}
	catan_store_free(store);
	open_store();
	FUZZ_CHECK(git_repository_open(&view, path) == 0);
	refset r;
	read_all(&r);
	nrefs0 = r.n;
	for (int i = 0; i < r.n; i++) {
		memcpy(refname0[i], r.name[i], sizeof refname0[i]);
		refid0[i] = r.id[i];
	}
	snprintf(packdir, sizeof packdir, "%s/objects/pack", path);
	mkdir(packdir, 0755);
	npacks0 = list_dir(packdir, "", packs0);
	FUZZ_CHECK(npacks0 <= 16);
	return 0;
}

/* Whether the refs and packs are as made. */
static bool as_made(void)
{
	refset r;
	read_all(&r);
	if (r.n != nrefs0)
		return false;
	for (int i = 0; i < nrefs0; i++) {
		int k = find(&r, refname0[i]);
		if (k < 0 || !git_oid_equal(&r.id[k], &refid0[i]))
			return false;
	}
	return list_dir(packdir, "", NULL) == npacks0;
}

/* The refs put back, the new packs removed, the store opened again. */
static void reset(void)
{
	refset r;
	read_all(&r);
	for (int i = 0; i < r.n; i++) {
		git_reference *ref = NULL;
		int k = -1;
		for (int j = 0; j < nrefs0 && k < 0; j++)
			if (!strcmp(refname0[j], r.name[i]))
				k = j;
		if (k < 0) {
			if (git_reference_lookup(&ref, view, r.name[i]) == 0)
				FUZZ_CHECK(git_reference_delete(ref) == 0);
		} else {
			FUZZ_CHECK(git_reference_create(&ref, view, r.name[i],
							&refid0[k], 1,
							NULL) == 0);
		}
		git_reference_free(ref);
	}
	char names[16][256];
	int n = list_dir(packdir, "", names);
	FUZZ_CHECK(n <= 16);
	for (int i = 0; i < n; i++) {
		bool old = false;
		for (int j = 0; j < npacks0; j++)
			old |= !strcmp(names[i], packs0[j]);
		if (!old) {
			char p[1000];
			snprintf(p, sizeof p, "%s/%s", packdir, names[i]);
			unlink(p);
		}
	}
	catan_store_free(store);
	open_store();
	git_repository_free(view);
	FUZZ_CHECK(git_repository_open(&view, path) == 0);
	FUZZ_CHECK(as_made());
}

/* The answer is whole pkt-lines (flush, delim, or 4..65520 bytes). */
static void check_pkts(const char *o, size_t n, bool err_only)
{
	size_t at = 0;
	int count = 0;
	while (at < n) {
		FUZZ_CHECK(at + 4 <= n);
		unsigned v = 0;
		for (int i = 0; i < 4; i++) {
			char c = o[at + i];
			FUZZ_CHECK((c >= '0' && c <= '9') ||
				   (c >= 'a' && c <= 'f'));
			v = v * 16 +
			    (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
		}
		FUZZ_CHECK(v == 0 || v == 1 || (v >= 5 && v <= 65520));
		if (err_only)
			FUZZ_CHECK(v >= 8 && !memcmp(o + at + 4, "ERR ", 4) &&
				   at + v == n);
		at += v < 4 ? 4 : v;
		count++;
	}
	FUZZ_CHECK(!err_only || count == 1);
}

static int checked;
static bool saw_quarantine;

static int check(void *ctx, const char *quarantine, const char *updates,
		 char **message)
{
	struct stat st;
	FUZZ_CHECK(stat(quarantine, &st) == 0 && S_ISDIR(st.st_mode));
	saw_quarantine = true;
	/* whole "OLD NEW REF\n" lines */
	size_t n = strlen(updates);
	FUZZ_CHECK(n > 0 && updates[n - 1] == '\n');
	for (const char *l = updates; *l;) {
		const char *nl = strchr(l, '\n');
		FUZZ_CHECK(nl && nl - l > 2 * GIT_OID_HEXSZ + 7 &&
			   l[GIT_OID_HEXSZ] == ' ' &&
			   l[2 * GIT_OID_HEXSZ + 1] == ' ' &&
			   !strncmp(l + 2 * GIT_OID_HEXSZ + 2, "refs/", 5));
		l = nl + 1;
	}
	checked++;
	if (*(const int *)ctx)
		return 0;
	*message = strdup("fuzz: refused\n");
	return 1;
}

static void fuzz_upload(const char *body, size_t len)
{
	char *out = NULL;
	size_t outlen = 0;
	int status = catan_store_serve_upload(store, body, len, &out, &outlen);
	FUZZ_CHECK(status == 200 || status == 400 || status == 500);
	if (status == 500) {
		FUZZ_CHECK(out == NULL);
		return;
	}
	FUZZ_CHECK(out != NULL);
	check_pkts(out, outlen, status == 400);
	/* An ls-refs answer: exactly the refs it names, with their ids. */
	if (status == 200 &&
	    !(outlen >= 13 && !memcmp(out, "000dpackfile\n", 13))) {
		refset r;
		read_all(&r);
		for (size_t at = 0; at + 4 < outlen;) {
			unsigned v = (unsigned)strtoul(
			    (char[5]){out[at], out[at + 1], out[at + 2],
				      out[at + 3], 0},
			    NULL, 16);
			if (v < 4)
				break;
			const char *l = out + at + 4;
			FUZZ_CHECK(v > 4 + GIT_OID_HEXSZ + 2 &&
				   l[GIT_OID_HEXSZ] == ' ' && l[v - 5] == '\n');
			char name[300];
			snprintf(name, sizeof name, "%.*s",
				 (int)(v - 4 - GIT_OID_HEXSZ - 2),
				 l + GIT_OID_HEXSZ + 1);
			int k = find(&r, name);
			git_oid id;
			FUZZ_CHECK(k >= 0 && git_oid_fromstrn(
						 &id, l, GIT_OID_HEXSZ) == 0);
			FUZZ_CHECK(git_oid_equal(&id, &r.id[k]));
			at += v;
		}
	}
	free(out);
}

static void fuzz_receive(const char *body, size_t len, int accept)
{
	char *out = NULL;
	size_t outlen = 0;
	char objects[700];
	refset before, after;
	read_all(&before);
	snprintf(objects, sizeof objects, "%s/objects", path);
	int packs = list_dir(packdir, "", NULL);
	checked = 0;
	saw_quarantine = false;
	int status = catan_store_serve_receive(store, "fuzz", body, len, check,
					       &accept, &out, &outlen);
	FUZZ_CHECK(status == 200 || status == 400 || status == 500);
	FUZZ_CHECK(list_dir(objects, "incoming-", NULL) == 0);
	read_all(&after);
	bool changed = after.n != before.n;
	for (int i = 0; i < before.n && !changed; i++) {
		int k = find(&after, before.name[i]);
		changed = k < 0 || !git_oid_equal(&after.id[k], &before.id[i]);
	}
	changed |= list_dir(packdir, "", NULL) != packs;
	if (status != 200 || !accept)
		FUZZ_CHECK(!changed);
	if (status == 500)
		FUZZ_CHECK(out == NULL);
	else
		check_pkts(out, outlen, status == 400);
	/* Each ref moved is one reported "ok", at the id the push named. */
	for (int i = 0; i < after.n; i++) {
		int k = find(&before, after.name[i]);
		if (k >= 0 && git_oid_equal(&after.id[i], &before.id[k]))
			continue;
		char ok[300], hex[GIT_OID_HEXSZ + 1], line[400];
		int m = snprintf(ok, sizeof ok, "ok %s\n", after.name[i]);
		FUZZ_CHECK(out && memmem(out, outlen, ok, (size_t)m));
		git_oid_tostr(hex, sizeof hex, &after.id[i]);
		m = snprintf(line, sizeof line, " %s %s", hex, after.name[i]);
		FUZZ_CHECK(memmem(body, len, line, (size_t)m));
	}
	free(out);
	if (changed)
		reset();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *body = (const char *)data + 1;
	if (data[0] & 1)
		fuzz_receive(body, size - 1, (data[0] >> 1) & 1);
	else
		fuzz_upload(body, size - 1);
	return 0;
}
