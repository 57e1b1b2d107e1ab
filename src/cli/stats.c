/*
 * stats.c - catan stats: the thesis's chapter 5 measurements of game
 * repositories, as tables.
 *
 *   catan stats DIR... [--csv|--json] [--by players|board|bots|folder]
 *                      [--summary | --histogram [--bin B]] [--repack]
 *                      [--jobs J] [--quiet]                     (--help)
 *
 * DIR is a game repository, or a `catan simulate` output folder (every
 * game-* inside; provenance and timings then come from its games.csv and
 * run.json). Several folders (the shards of one run, or runs to compare)
 * are read as one set of games. Per game: commits; the size of the
 * repository as left (apparent bytes, as `du -sb`, and disk usage, as
 * `du -s`); with --repack, the packed size (one pack of every object,
 * with deltas, as libgit2's packbuilder writes it); the size of the packs the repository
 * holds (*.pack, as catan's own writer or a fetch left them; loose objects
 * are not counted there); the mean and standard deviation of the size of
 * `git diff parent child` over every parent-child pair and the share of
 * empty ones; compute and commit time per action and the time of the game
 * (and sync time per action for games of simulate --peers).
 *
 * The diff sizes are git's own (tests/cli/test_cli.sh compares them with
 * `git diff | wc -c`), but computed without libgit2's tree diff: that
 * looks up the .gitattributes of every changed path (a stat of each
 * attribute file per pair) and rereads each blob, which made catan stats
 * read about 18 games a second. Here the two trees are compared entry by
 * entry, each changed blob pair goes through libgit2's patch code as two
 * buffers (the same xdiff, hunk headers and function context as `git
 * diff`), and the file header around it is counted from git's format.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <git2.h>

#include "cli.h"
#include "research.h"

const char *const stat_names[STAT_COUNT] = {
	"commits",		 "du_bytes",
	"du_disk",		 "packed_bytes",
	"written_bytes",	 "du_per_commit",
	"packed_per_commit",	 "written_per_commit",
	"diff_mean",		 "diff_sd",
	"empty_percent",	 "compute_ms_per_action",
	"commit_ms_per_action", "game_s",
	"sync_ms_per_action",
};
const char *const stat_units[STAT_COUNT] = {
	"commits", "B", "B", "B", "B", "B", "B", "B", "B", "B", "%", "ms",
	"ms",	   "s",	      "ms",
};
const int stat_prec[STAT_COUNT] = {0, 0, 0, 0, 0, 1, 1, 1,
				   1, 1, 2, 5, 5, 4, 5};

/* ---- one game ------------------------------------------------------- */

static double walk_bytes, walk_disk, walk_packs;

static int add_size(const char *path, const struct stat *sb, int type,
		    struct FTW *ftw)
{
	(void)ftw;
	size_t n = strlen(path);
	if (type == FTW_F || type == FTW_D) {
		walk_bytes += (double)sb->st_size;
		walk_disk += (double)sb->st_blocks * 512.0;
	}
	if (type == FTW_F && n > 5 && !strcmp(path + n - 5, ".pack"))
		walk_packs += (double)sb->st_size;
	return 0;
}

typedef struct diff_acc {
	uint32_t *sizes;
	long n, cap;
} diff_acc;

static int acc_push(diff_acc *a, uint32_t v)
{
	if (a->n == a->cap) {
		long cap = a->cap ? 2 * a->cap : 1024;
		uint32_t *more = realloc(a->sizes, (size_t)cap * sizeof *more);
		if (!more)
			return -1;
		a->sizes = more, a->cap = cap;
	}
	a->sizes[a->n++] = v;
	return 0;
}

/*
 * Bytes `git diff` writes for one path: the file header (git's format,
 * ids abbreviated to 7 digits, regular files only) and, when either side
 * has content, the hunks as libgit2's patch code writes them. `a` or `b`
 * NULL: the file is new or deleted. -1 on a libgit2 error.
 */
static long blob_diff(git_repository *repo, const git_tree_entry *a,
		      const git_tree_entry *b, const char *path)
{
	git_blob *ba = NULL, *bb = NULL;
	git_patch *patch = NULL;
	git_diff_options opt;
	long p = (long)strlen(path), size = 2 * p + 17; /* diff --git a/ b/ */
	if ((a && git_blob_lookup(&ba, repo, git_tree_entry_id(a))) ||
	    (b && git_blob_lookup(&bb, repo, git_tree_entry_id(b)))) {
		size = -1;
		goto done;
	}
	size_t la = ba ? (size_t)git_blob_rawsize(ba) : 0;
	size_t lb = bb ? (size_t)git_blob_rawsize(bb) : 0;
	if (!a)
		size += 21 + 23; /* new file mode 100644, index 0000000..x */
	else if (!b)
		size += 25 + 23; /* deleted file mode 100644, index x..0000000 */
	else
		size += 30; /* index x..y 100644 */
	if (a && b)
		size += 2 * (p + 7); /* --- a/P, +++ b/P */
	else if (la || lb)
		size += p + 7 + 14; /* one side is /dev/null */
	git_diff_options_init(&opt, GIT_DIFF_OPTIONS_VERSION);
	if (la || lb) {
		if (git_patch_from_buffers(
			    &patch, ba ? git_blob_rawcontent(ba) : NULL, la,
			    path, bb ? git_blob_rawcontent(bb) : NULL, lb, path,
			    &opt)) {
			size = -1;
			goto done;
		}
		size += (long)git_patch_size(patch, 1, 1, 0);
	}
done:
	git_patch_free(patch);
	git_blob_free(ba);
	git_blob_free(bb);
	return size;
}

/* Bytes of `git diff` from tree a to tree b (either may be NULL: empty),
 * paths under `prefix`. -1 on a libgit2 error. */
static long tree_diff(git_repository *repo, const git_tree *a,
		      const git_tree *b, const char *prefix)
{
	long total = 0;
	size_t na = a ? git_tree_entrycount(a) : 0;
	size_t nb = b ? git_tree_entrycount(b) : 0;
	char path[1024];
	/* Every entry of b against a's of that name, then a's gone in b. */
	for (int side = 0; side < 2; side++) {
		const git_tree *t = side ? a : b, *o = side ? b : a;
		size_t n = side ? na : nb;
		for (size_t i = 0; i < n; i++) {
			const git_tree_entry *e = git_tree_entry_byindex(t, i);
			const char *name = git_tree_entry_name(e);
			const git_tree_entry *f =
				o ? git_tree_entry_byname(o, name) : NULL;
			if (side && f)
				continue; /* counted from b's side */
			if (f && !git_oid_cmp(git_tree_entry_id(e),
					      git_tree_entry_id(f)))
				continue;
			snprintf(path, sizeof path, "%s%s", prefix, name);
			const git_tree_entry *ea = side ? e : f;
			const git_tree_entry *eb = side ? NULL : e;
			bool ta = ea && git_tree_entry_type(ea) == GIT_OBJECT_TREE;
			bool tb = eb && git_tree_entry_type(eb) == GIT_OBJECT_TREE;
			long d;
			if (ta || tb) {
				git_tree *sa = NULL, *sb = NULL;
				char sub[1024];
				size_t pl = strlen(path);
				if (pl + 2 > sizeof sub)
					return -1;
				memcpy(sub, path, pl);
				memcpy(sub + pl, "/", 2);
				d = (ta && git_tree_lookup(&sa, repo,
							   git_tree_entry_id(ea))) ||
						    (tb && git_tree_lookup(
								   &sb, repo,
								   git_tree_entry_id(eb)))
					    ? -1
					    : tree_diff(repo, sa, sb, sub);
				git_tree_free(sa);
				git_tree_free(sb);
				/* A blob replaced by a tree: both parts. */
				if (d >= 0 && ea && !ta)
					d += blob_diff(repo, ea, NULL, path);
				if (d >= 0 && eb && !tb)
					d += blob_diff(repo, NULL, eb, path);
			} else
				d = blob_diff(repo, ea, eb, path);
			if (d < 0)
				return -1;
			total += d;
		}
	}
	return total;
}

/*
 * The commits of a game, each visited once, without a revwalk (which
 * reads and parses every commit a second time beside the lookups below):
 * a set of the ids seen (open addressing) and a stack of those to visit.
 */
typedef struct oid_set {
	git_oid *slot; /* all-zero: free */
	size_t cap, n;
} oid_set;

typedef struct oid_stack {
	git_oid *ids;
	size_t n, cap;
} oid_stack;

static size_t oid_hash(const git_oid *id, size_t cap)
{
	size_t h;
	memcpy(&h, id->id, sizeof h);
	return h & (cap - 1);
}

/* 1: added, 0: there already, -1: out of memory. */
static int oid_set_add(oid_set *s, const git_oid *id)
{
	static const git_oid zero;
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		git_oid *slot = calloc(cap, sizeof *slot);
		if (!slot)
			return -1;
		for (size_t i = 0; i < s->cap; i++) {
			if (!memcmp(&s->slot[i], &zero, sizeof zero))
				continue;
			size_t k = oid_hash(&s->slot[i], cap);
			while (memcmp(&slot[k], &zero, sizeof zero))
				k = (k + 1) & (cap - 1);
			slot[k] = s->slot[i];
		}
		free(s->slot);
		s->slot = slot, s->cap = cap;
	}
	size_t k = oid_hash(id, s->cap);
	while (memcmp(&s->slot[k], &zero, sizeof zero)) {
		if (!git_oid_cmp(&s->slot[k], id))
			return 0;
		k = (k + 1) & (s->cap - 1);
	}
	s->slot[k] = *id;
	s->n++;
	return 1;
}

static int oid_stack_push(oid_stack *s, const git_oid *id)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		git_oid *more = realloc(s->ids, cap * sizeof *more);
		if (!more)
			return -1;
		s->ids = more, s->cap = cap;
	}
	s->ids[s->n++] = *id;
	return 0;
}

/*
 * Measures the repository at dir into gs (metrics from Git; timings are
 * the caller's); the packbuilder's pack only when `repack` (it takes four
 * fifths of the time: a delta search over every object). 0, or -1 with
 * libgit2's error.
 */
static int game_measure(stats_game *gs, diff_acc *acc, const char *dir,
			bool repack)
{
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_packbuilder *pb = NULL;
	git_reference_iterator *refs = NULL;
	git_reference *ref = NULL;
	oid_set seen = {NULL, 0, 0};
	oid_stack todo = {NULL, 0, 0};
	git_buf pack = {NULL, 0, 0};
	git_oid id;
	int rc = -1;
	long commits = 0, empty = 0;
	double sum = 0, sq = 0;

	acc->n = 0;
	walk_bytes = walk_disk = walk_packs = 0;
	if (nftw(dir, add_size, 16, FTW_PHYS))
		return -1;
	if (git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) ||
	    git_reference_iterator_glob_new(&refs, repo, "refs/heads/*"))
		goto done;
	while (git_reference_next(&ref, refs) == 0) {
		const git_oid *tip = git_reference_target(ref);
		if (tip && oid_set_add(&seen, tip) == 1 &&
		    oid_stack_push(&todo, tip))
			goto done;
		git_reference_free(ref);
		ref = NULL;
	}
	while (todo.n > 0) {
		git_commit *c = NULL;
		git_tree *t = NULL;
		id = todo.ids[--todo.n];
		if (git_commit_lookup(&c, repo, &id) || git_commit_tree(&t, c)) {
			git_commit_free(c);
			goto done;
		}
		commits++;
		for (unsigned i = 0; i < git_commit_parentcount(c); i++) {
			git_commit *p = NULL;
			git_tree *pt = NULL;
			long n = 0;
			const git_oid *pid = git_commit_parent_id(c, i);
			int fresh = pid ? oid_set_add(&seen, pid) : -1;
			if (fresh < 0 || (fresh && oid_stack_push(&todo, pid)) ||
			    git_commit_parent(&p, c, i))
				goto fail_pair;
			if (git_oid_cmp(git_commit_tree_id(p),
					git_commit_tree_id(c))) {
				if (git_commit_tree(&pt, p) ||
				    (n = tree_diff(repo, pt, t, "")) < 0)
					goto fail_pair;
			}
			if (acc_push(acc, (uint32_t)n))
				goto fail_pair;
			empty += n == 0;
			sum += (double)n;
			sq += (double)n * (double)n;
			git_tree_free(pt);
			git_commit_free(p);
			continue;
fail_pair:
			git_commit_free(p);
			git_tree_free(pt);
			git_tree_free(t);
			git_commit_free(c);
			goto done;
		}
		git_tree_free(t);
		git_commit_free(c);
	}
	if (!repack)
		goto fill;
	if (git_packbuilder_new(&pb, repo) || git_revwalk_new(&walk, repo) ||
	    git_revwalk_push_glob(walk, "refs/heads/*") ||
	    git_packbuilder_insert_walk(pb, walk) ||
	    git_packbuilder_write_buf(&pack, pb))
		goto done;

fill:
	double nc = commits ? (double)commits : 1;
	double pairs = acc->n ? (double)acc->n : 1;
	double mean = sum / pairs;
	gs->v[STAT_COMMITS] = (double)commits;
	gs->v[STAT_DU_BYTES] = walk_bytes;
	gs->v[STAT_DU_DISK] = walk_disk;
	gs->v[STAT_PACKED] = repack ? (double)pack.size : NAN;
	gs->v[STAT_WRITTEN] = walk_packs;
	gs->v[STAT_DU_PER_COMMIT] = walk_bytes / nc;
	gs->v[STAT_PACKED_PER_COMMIT] = gs->v[STAT_PACKED] / nc;
	gs->v[STAT_WRITTEN_PER_COMMIT] = walk_packs / nc;
	gs->v[STAT_DIFF_MEAN] = mean;
	gs->v[STAT_DIFF_SD] = sqrt(fmax(0, sq / pairs - mean * mean));
	gs->v[STAT_EMPTY_PCT] = 100.0 * (double)empty / pairs;
	rc = 0;
done:
	git_buf_dispose(&pack);
	git_packbuilder_free(pb);
	git_revwalk_free(walk);
	git_reference_free(ref);
	git_reference_iterator_free(refs);
	free(seen.slot);
	free(todo.ids);
	git_repository_free(repo);
	return rc;
}

/* ---- provenance: games.csv and run.json of a simulate folder --------- */

typedef struct csv_row {
	char name[64];
	char seed[24], board[16], phases[12], bots[64];
	int players, vp;
	double actions, compute, commit, flush, total, sync;
} csv_row;

/* Field k of a CSV line (no quoting: simulate writes none) into buf. */
static void csv_field(char *buf, size_t n, const char *line, int k)
{
	while (k > 0 && line) {
		line = strchr(line, ',');
		if (line)
			line++;
		k--;
	}
	size_t len = line ? strcspn(line, ",\r\n") : 0;
	if (len >= n)
		len = n - 1;
	memcpy(buf, line ? line : "", len);
	buf[len] = 0;
}

/* Reads DIR/games.csv by its header's column names (older folders lack
 * the provenance columns: they read as unknown). */
static csv_row *read_games_csv(const char *dir, long *nrows)
{
	static const char *const want[] = {
		"game",	   "seed",	"board",    "phases",
		"bots",	   "players",	"vp",	    "actions",
		"compute_ms", "commit_ms", "flush_ms", "total_ms", "sync_ms"};
	enum { NW = sizeof want / sizeof want[0] };
	int col[NW];
	char path[4096], line[1024], f[128];
	csv_row *rows = NULL;
	long n = 0, cap = 0;
	*nrows = 0;
	snprintf(path, sizeof path, "%s/games.csv", dir);
	FILE *in = fopen(path, "r");
	if (!in)
		return NULL;
	if (!fgets(line, sizeof line, in)) {
		fclose(in);
		return NULL;
	}
	for (int w = 0; w < NW; w++) {
		col[w] = -1;
		for (int k = 0; k < 64; k++) {
			csv_field(f, sizeof f, line, k);
			if (!*f)
				break;
			if (!strcmp(f, want[w]))
				col[w] = k;
		}
	}
	while (fgets(line, sizeof line, in)) {
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			csv_row *more = realloc(rows, (size_t)cap * sizeof *more);
			if (!more)
				break;
			rows = more;
		}
		csv_row *r = &rows[n];
		char *dst[5] = {r->name, r->seed, r->board, r->phases, r->bots};
		size_t dn[5] = {sizeof r->name, sizeof r->seed, sizeof r->board,
				sizeof r->phases, sizeof r->bots};
		for (int w = 0; w < 5; w++) {
			if (col[w] >= 0)
				csv_field(dst[w], dn[w], line, col[w]);
			else
				snprintf(dst[w], dn[w], "-");
		}
		double num[8];
		for (int w = 5; w < NW; w++) {
			num[w - 5] = NAN;
			if (col[w] >= 0) {
				csv_field(f, sizeof f, line, col[w]);
				char *end = NULL;
				double v = strtod(f, &end);
				if (*f && !*end)
					num[w - 5] = v;
			}
		}
		r->players = isnan(num[0]) ? 0 : (int)num[0];
		r->vp = isnan(num[1]) ? 0 : (int)num[1];
		r->actions = num[2], r->compute = num[3], r->commit = num[4];
		r->flush = num[5], r->total = num[6], r->sync = num[7];
		n++;
	}
	fclose(in);
	*nrows = n;
	return rows;
}

/* "catan_version" of DIR/run.json, or "-". */
static void read_version(char *buf, size_t n, const char *dir)
{
	char path[4096], text[4096];
	snprintf(buf, n, "-");
	snprintf(path, sizeof path, "%s/run.json", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	size_t len = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[len] = 0;
	const char *k = strstr(text, "\"catan_version\":\"");
	if (!k)
		return;
	k += strlen("\"catan_version\":\"");
	size_t m = strcspn(k, "\"");
	if (m >= n)
		m = n - 1;
	memcpy(buf, k, m);
	buf[m] = 0;
}

static void apply_row(stats_game *g, const csv_row *r)
{
	snprintf(g->seed, sizeof g->seed, "%s", r->seed);
	snprintf(g->board, sizeof g->board, "%s", r->board);
	snprintf(g->phases, sizeof g->phases, "%s", r->phases);
	snprintf(g->bots, sizeof g->bots, "%s", r->bots);
	g->players = r->players;
	g->vp = r->vp;
	if (r->actions > 0 && !isnan(r->compute) && !isnan(r->commit) &&
	    !isnan(r->flush)) {
		g->v[STAT_COMPUTE_MS] = r->compute / r->actions;
		g->v[STAT_COMMIT_MS] = (r->commit + r->flush) / r->actions;
	}
	if (!isnan(r->total))
		g->v[STAT_GAME_S] = r->total / 1e3;
	if (r->actions > 0 && !isnan(r->sync))
		g->v[STAT_SYNC_MS] = r->sync / r->actions;
}

/* ---- collecting -------------------------------------------------------- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int set_add(stats_set *s, const stats_game *g)
{
	if (s->n == s->cap) {
		long cap = s->cap ? 2 * s->cap : 64;
		stats_game *more = realloc(s->g, (size_t)cap * sizeof *more);
		if (!more)
			return -1;
		s->g = more, s->cap = cap;
	}
	s->g[s->n++] = *g;
	return 0;
}

void stats_set_free(stats_set *s)
{
	if (!s)
		return;
	for (long i = 0; i < s->n; i++)
		free(s->g[i].diffs);
	free(s->g);
	memset(s, 0, sizeof *s);
}

/* Every game to read, with provenance, into s (metrics NaN); the
 * repository paths into paths[]. */
static int list_games(stats_set *s, char ***paths, char *const *dirs,
		      int ndirs)
{
	int rc = 0;
	long cap = 0;
	for (int i = 0; i < ndirs; i++) {
		const char *dir = dirs[i];
		char **names = NULL;
		size_t nnames = 0;
		DIR *d = opendir(dir);
		struct dirent *e;
		if (!d) {
			fprintf(stderr, "catan stats: cannot read %s: %s\n", dir,
				strerror(errno));
			rc = 1;
			continue;
		}
		while ((e = readdir(d))) {
			if (strncmp(e->d_name, "game-", 5))
				continue;
			char **more = realloc(names, (nnames + 1) * sizeof *names);
			if (!more)
				break;
			names = more;
			names[nnames++] = strdup(e->d_name);
		}
		closedir(d);
		qsort(names, nnames, sizeof *names, cmp_name);
		long nrows = 0;
		csv_row *rows = nnames ? read_games_csv(dir, &nrows) : NULL;
		char version[32];
		read_version(version, sizeof version, dir);
		/* A lone repository is measured as itself. */
		size_t count = nnames ? nnames : 1;
		for (size_t k = 0; k < count; k++) {
			stats_game g;
			char path[4096];
			memset(&g, 0, sizeof g);
			for (int m = 0; m < STAT_COUNT; m++)
				g.v[m] = NAN;
			snprintf(g.folder, sizeof g.folder, "%s", dir);
			snprintf(g.seed, sizeof g.seed, "-");
			snprintf(g.board, sizeof g.board, "-");
			snprintf(g.phases, sizeof g.phases, "-");
			snprintf(g.bots, sizeof g.bots, "-");
			snprintf(g.version, sizeof g.version, "%s", version);
			if (nnames) {
				snprintf(path, sizeof path, "%s/%s", dir,
					 names[k]);
				snprintf(g.name, sizeof g.name, "%s", names[k]);
				for (long r = 0; r < nrows; r++)
					if (!strcmp(rows[r].name, names[k]))
						apply_row(&g, &rows[r]);
			} else {
				snprintf(path, sizeof path, "%s", dir);
				const char *base = strrchr(dir, '/');
				snprintf(g.name, sizeof g.name, "%s",
					 base && base[1] ? base + 1 : dir);
			}
			if (s->n == cap) {
				cap = cap ? 2 * cap : 64;
				char **more = realloc(*paths,
						      (size_t)cap * sizeof *more);
				if (!more)
					return 1;
				*paths = more;
			}
			(*paths)[s->n] = strdup(path);
			if (set_add(s, &g))
				return 1;
		}
		free(rows);
		for (size_t k = 0; k < nnames; k++)
			free(names[k]);
		free(names);
	}
	return rc;
}

/*
 * One worker: measures games k, k+jobs, ... and writes each as a record
 * to `out` (its index, the metrics, the diff sizes), a byte to `done`
 * after each (-1: none). Returns the number of games it could not read.
 */
static int measure_share(FILE *out, int done, stats_set *s, char **paths,
			 int k, int jobs, bool repack, cli_progress *pr)
{
	diff_acc acc = {NULL, 0, 0};
	int bad = 0;
	git_libgit2_init();
	/* Blobs are read once as a child's and once as a parent's: keep them
	 * (libgit2 caches no blobs by default). */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_BLOB,
			 (size_t)16384);
	/* Measuring is not verifying (catan verify is): no SHA-1 of every
	 * object read, which libgit2 computes by default. */
	git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
	for (long i = k; i < s->n; i += jobs) {
		stats_game *g = &s->g[i];
		if (game_measure(g, &acc, paths[i], repack)) {
			const git_error *ge = git_error_last();
			fprintf(stderr, "catan stats: %s: %s\n", paths[i],
				ge ? ge->message : "not a game");
			bad++;
			acc.n = 0;
		}
		if (out) {
			fwrite(&i, sizeof i, 1, out);
			fwrite(g->v, sizeof g->v, 1, out);
			fwrite(&acc.n, sizeof acc.n, 1, out);
			fwrite(acc.sizes, sizeof *acc.sizes, (size_t)acc.n, out);
		} else {
			g->diffs = malloc((size_t)(acc.n ? acc.n : 1) *
					  sizeof *g->diffs);
			if (g->diffs && acc.n)
				memcpy(g->diffs, acc.sizes,
				       (size_t)acc.n * sizeof *g->diffs);
			g->ndiffs = g->diffs ? acc.n : 0;
		}
		if (done >= 0 && write(done, "g", 1) != 1)
			bad++;
		if (pr)
			cli_progress_step(pr, i + 1);
	}
	free(acc.sizes);
	git_libgit2_shutdown();
	return bad;
}

int stats_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 8 ? 8 : (int)n;
}

int stats_collect(stats_set *out, char *const *dirs, int ndirs, int jobs,
		  bool repack, bool quiet)
{
	char **paths = NULL;
	memset(out, 0, sizeof *out);
	int rc = list_games(out, &paths, dirs, ndirs);
	cli_progress pr;
	cli_progress_start(&pr, "catan stats", out->n, quiet);
	if (jobs > out->n)
		jobs = out->n ? (int)out->n : 1;
	if (jobs <= 1) {
		if (measure_share(NULL, -1, out, paths, 0, 1, repack, &pr))
			rc = 1;
	} else {
		FILE *tmp[256] = {NULL};
		int pfd[2];
		if (pipe(pfd))
			return 1;
		fflush(NULL);
		for (int k = 0; k < jobs; k++) {
			tmp[k] = tmpfile();
			pid_t pid = tmp[k] ? fork() : -1;
			if (pid < 0) {
				fprintf(stderr, "catan stats: cannot start "
						"worker %d\n",
					k);
				return 1;
			}
			if (pid == 0) {
				close(pfd[0]);
				int bad = measure_share(tmp[k], pfd[1], out,
							paths, k, jobs, repack,
							NULL);
				_exit(fflush(tmp[k]) || bad ? 1 : 0);
			}
		}
		close(pfd[1]);
		char buf[64];
		long done = 0;
		ssize_t got;
		while ((got = read(pfd[0], buf, sizeof buf)) != 0) {
			if (got < 0 && errno == EINTR)
				continue;
			if (got < 0)
				break;
			done += got;
			cli_progress_step(&pr, done);
		}
		close(pfd[0]);
		for (int k = 0; k < jobs; k++) {
			int status = 0;
			wait(&status);
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				rc = 1;
		}
		for (int k = 0; k < jobs; k++) {
			long i, nd;
			rewind(tmp[k]);
			while (fread(&i, sizeof i, 1, tmp[k]) == 1) {
				stats_game *g = &out->g[i];
				if (fread(g->v, sizeof g->v, 1, tmp[k]) != 1 ||
				    fread(&nd, sizeof nd, 1, tmp[k]) != 1)
					break;
				g->diffs = malloc((size_t)(nd ? nd : 1) *
						  sizeof *g->diffs);
				if (!g->diffs ||
				    fread(g->diffs, sizeof *g->diffs, (size_t)nd,
					  tmp[k]) != (size_t)nd) {
					rc = 1;
					break;
				}
				g->ndiffs = nd;
			}
			fclose(tmp[k]);
		}
	}
	cli_progress_end(&pr);
	for (long i = 0; i < out->n; i++)
		free(paths[i]);
	free(paths);
	return rc;
}

/* ---- groups and summaries -------------------------------------------- */

void stats_group_label(char *buf, size_t n, const stats_game *g,
		       const char *by)
{
	if (!by)
		snprintf(buf, n, "all");
	else if (!strcmp(by, "players"))
		snprintf(buf, n, "%d players", g->players);
	else if (!strcmp(by, "board"))
		snprintf(buf, n, "%s", g->board);
	else if (!strcmp(by, "bots"))
		snprintf(buf, n, "%s", g->bots);
	else
		snprintf(buf, n, "%s", g->folder);
}

int stats_groups(char labels[][128], int max, const stats_set *s,
		 const char *by)
{
	int n = 0;
	for (long i = 0; i < s->n; i++) {
		char l[128];
		int k;
		stats_group_label(l, sizeof l, &s->g[i], by);
		for (k = 0; k < n && strcmp(labels[k], l); k++)
			;
		if (k == n && n < max)
			snprintf(labels[n++], 128, "%s", l);
	}
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void stat_summarize(stat_summary *out, double *x, long n)
{
	memset(out, 0, sizeof *out);
	out->n = n;
	if (n == 0) {
		out->mean = out->sd = out->min = out->median = out->max = NAN;
		return;
	}
	qsort(x, (size_t)n, sizeof *x, cmp_double);
	double sum = 0, sq = 0;
	for (long i = 0; i < n; i++)
		sum += x[i];
	out->mean = sum / (double)n;
	for (long i = 0; i < n; i++)
		sq += (x[i] - out->mean) * (x[i] - out->mean);
	out->sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	out->min = x[0];
	out->max = x[n - 1];
	out->median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

void stats_group_summary(stat_summary *out, const stats_set *s,
			 const char *by, const char *label, int m)
{
	double *x = malloc((size_t)(s->n ? s->n : 1) * sizeof *x);
	long n = 0;
	char l[128];
	for (long i = 0; x && i < s->n; i++) {
		stats_group_label(l, sizeof l, &s->g[i], by);
		if (!strcmp(l, label) && !isnan(s->g[i].v[m]))
			x[n++] = s->g[i].v[m];
	}
	stat_summarize(out, x, n);
	free(x);
}

int stats_histogram(long *counts, int nbins, long bin, const stats_set *s,
		    const char *by, const char *label)
{
	int used = 0;
	char l[128];
	memset(counts, 0, (size_t)nbins * sizeof *counts);
	for (long i = 0; i < s->n; i++) {
		stats_group_label(l, sizeof l, &s->g[i], by);
		if (strcmp(l, label))
			continue;
		for (long k = 0; k < s->g[i].ndiffs; k++) {
			long b = (long)s->g[i].diffs[k] / bin;
			if (b >= nbins)
				b = nbins - 1;
			counts[b]++;
			if (b + 1 > used)
				used = (int)b + 1;
		}
	}
	return used;
}

/* ---- output ------------------------------------------------------------ */

static const char *const prov_names[] = {"folder",  "game", "seed",
					 "players", "board", "phases",
					 "vp",	    "bots", "catan_version"};
enum { NPROV = sizeof prov_names / sizeof prov_names[0] };

static void prov_value(char *buf, size_t n, const stats_game *g, int k)
{
	const char *s[] = {g->folder, g->name, g->seed, NULL, g->board,
			   g->phases, NULL,    g->bots, g->version};
	if (k == 3 || k == 6) {
		int v = k == 3 ? g->players : g->vp;
		if (v)
			snprintf(buf, n, "%d", v);
		else
			snprintf(buf, n, "-");
	} else
		snprintf(buf, n, "%s", s[k]);
}

static void num(FILE *f, double v, int prec, bool json)
{
	if (isnan(v))
		fputs(json ? "null" : "", f);
	else
		fprintf(f, "%.*f", prec, v);
}

static void print_games_csv(FILE *f, const stats_set *s)
{
	char buf[512];
	for (int k = 0; k < NPROV; k++)
		fprintf(f, "%s,", prov_names[k]);
	for (int m = 0; m < STAT_COUNT; m++)
		fprintf(f, "%s%c", stat_names[m], m + 1 < STAT_COUNT ? ',' : '\n');
	for (long i = 0; i < s->n; i++) {
		for (int k = 0; k < NPROV; k++) {
			prov_value(buf, sizeof buf, &s->g[i], k);
			fprintf(f, "%s,", buf);
		}
		for (int m = 0; m < STAT_COUNT; m++) {
			num(f, s->g[i].v[m], stat_prec[m], false);
			fputc(m + 1 < STAT_COUNT ? ',' : '\n', f);
		}
	}
}

static void print_games_json(FILE *f, const stats_set *s)
{
	char buf[512];
	fputc('[', f);
	for (long i = 0; i < s->n; i++) {
		fputs(i ? ",\n {" : "{", f);
		for (int k = 0; k < NPROV; k++) {
			prov_value(buf, sizeof buf, &s->g[i], k);
			fprintf(f, "\"%s\":", prov_names[k]);
			if ((k == 3 || k == 6) && strcmp(buf, "-"))
				fputs(buf, f);
			else
				cli_json_str(f, buf);
			fputc(',', f);
		}
		for (int m = 0; m < STAT_COUNT; m++) {
			fprintf(f, "\"%s\":", stat_names[m]);
			num(f, s->g[i].v[m], stat_prec[m], true);
			fputs(m + 1 < STAT_COUNT ? "," : "}", f);
		}
	}
	fputs("]\n", f);
}

/* A text cell of width w: the number, or "-" when unknown. */
static void cell(FILE *f, int w, int prec, double v)
{
	if (isnan(v))
		fprintf(f, " %*s", w, "-");
	else
		fprintf(f, " %*.*f", w, prec, v);
}

static void print_games_text(FILE *f, const stats_set *s)
{
	fprintf(f, "%-14s %2s %7s %7s %7s %7s %7s %7s %6s %9s %9s %9s %8s\n",
		"game", "p", "commits", "du B/c", "pack", "written", "diff",
		"sd", "empty%", "compute", "commit", "sync", "game");
	fprintf(f, "%-14s %2s %7s %7s %7s %7s %7s %7s %6s %9s %9s %9s %8s\n",
		"", "", "", "", "B/c", "B/c", "mean B", "", "", "ms/act",
		"ms/act", "ms/act", "s");
	for (long i = 0; i < s->n; i++) {
		const double *v = s->g[i].v;
		fprintf(f, "%-14s %2d", s->g[i].name, s->g[i].players);
		cell(f, 7, 0, v[STAT_COMMITS]);
		cell(f, 7, 0, v[STAT_DU_PER_COMMIT]);
		cell(f, 7, 0, v[STAT_PACKED_PER_COMMIT]);
		cell(f, 7, 0, v[STAT_WRITTEN_PER_COMMIT]);
		cell(f, 7, 0, v[STAT_DIFF_MEAN]);
		cell(f, 7, 0, v[STAT_DIFF_SD]);
		cell(f, 6, 1, v[STAT_EMPTY_PCT]);
		cell(f, 9, 4, v[STAT_COMPUTE_MS]);
		cell(f, 9, 4, v[STAT_COMMIT_MS]);
		cell(f, 9, 4, v[STAT_SYNC_MS]);
		cell(f, 8, 3, v[STAT_GAME_S]);
		fputc('\n', f);
	}
}

static void print_summary(FILE *f, const stats_set *s, const char *by,
			  int fmt)
{
	char labels[256][128];
	int ng = stats_groups(labels, 256, s, by);
	if (fmt == 1)
		fprintf(f, "group,metric,unit,n,mean,sd,min,median,max\n");
	else if (fmt == 2)
		fputc('[', f);
	else
		fprintf(f, "%-16s %-22s %6s %12s %12s %12s %12s %12s\n",
			"group", "metric", "n", "mean", "sd", "min", "median",
			"max");
	bool first = true;
	for (int k = 0; k < ng; k++)
		for (int m = 0; m < STAT_COUNT; m++) {
			stat_summary x;
			stats_group_summary(&x, s, by, labels[k], m);
			double v[5] = {x.mean, x.sd, x.min, x.median, x.max};
			int p = stat_prec[m] + 1;
			if (fmt == 1) {
				fprintf(f, "%s,%s,%s,%ld", labels[k],
					stat_names[m], stat_units[m], x.n);
				for (int j = 0; j < 5; j++) {
					fputc(',', f);
					num(f, v[j], p, false);
				}
				fputc('\n', f);
			} else if (fmt == 2) {
				fputs(first ? "{\"group\":" : ",\n {\"group\":",
				      f);
				cli_json_str(f, labels[k]);
				fprintf(f,
					",\"metric\":\"%s\",\"unit\":\"%s\","
					"\"n\":%ld",
					stat_names[m], stat_units[m], x.n);
				static const char *const kn[5] = {
					"mean", "sd", "min", "median", "max"};
				for (int j = 0; j < 5; j++) {
					fprintf(f, ",\"%s\":", kn[j]);
					num(f, v[j], p, true);
				}
				fputc('}', f);
			} else {
				fprintf(f, "%-16.16s %-22s %6ld", labels[k],
					stat_names[m], x.n);
				for (int j = 0; j < 5; j++)
					cell(f, 12, p > 4 ? p : 1, v[j]);
				fputc('\n', f);
			}
			first = false;
		}
	if (fmt == 2)
		fputs("]\n", f);
}

static void print_histogram(FILE *f, const stats_set *s, const char *by,
			    long bin, int fmt)
{
	char labels[256][128];
	int ng = stats_groups(labels, 256, s, by);
	enum { NBINS = 4096 };
	long *counts = malloc(NBINS * sizeof *counts);
	bool first = true;
	if (!counts)
		return;
	if (fmt == 1)
		fprintf(f, "group,from_bytes,to_bytes,pairs,percent\n");
	else if (fmt == 2)
		fputc('[', f);
	else
		fprintf(f, "%-16s %10s %10s %9s %8s\n", "group", "from B",
			"below B", "pairs", "share");
	for (int k = 0; k < ng; k++) {
		int used = stats_histogram(counts, NBINS, bin, s, by, labels[k]);
		long total = 0;
		for (int b = 0; b < used; b++)
			total += counts[b];
		for (int b = 0; b < used; b++) {
			double pct = total ? 100.0 * (double)counts[b] /
						     (double)total
					   : 0;
			if (fmt == 1)
				fprintf(f, "%s,%ld,%ld,%ld,%.3f\n", labels[k],
					b * bin, (b + 1) * bin, counts[b], pct);
			else if (fmt == 2) {
				fputs(first ? "{\"group\":" : ",\n {\"group\":",
				      f);
				cli_json_str(f, labels[k]);
				fprintf(f,
					",\"from_bytes\":%ld,\"to_bytes\":%ld,"
					"\"pairs\":%ld,\"percent\":%.3f}",
					b * bin, (b + 1) * bin, counts[b], pct);
			} else
				fprintf(f, "%-16.16s %10ld %10ld %9ld %7.2f%%\n",
					labels[k], b * bin, (b + 1) * bin,
					counts[b], pct);
			first = false;
		}
	}
	if (fmt == 2)
		fputs("]\n", f);
	free(counts);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: catan stats DIR... [--csv|--json] [--by "
		"players|board|bots|folder]\n"
		"                   [--summary | --histogram [--bin B]] [--repack]\n"
		"                   [--jobs J] [--quiet]\n"
		"\n"
		"Measures game repositories as the thesis's chapter 5 does. DIR is "
		"a\n"
		"game repository or a catan simulate folder (every game-* in it);\n"
		"several folders (shards of one run, or runs to compare) are read "
		"as\n"
		"one set of games.\n"
		"\n"
		"  (default)     one row per game: provenance (folder, game, seed,\n"
		"                players, board, phases, vp, bots, catan version) "
		"and\n"
		"                metrics (commits, bytes as left, packed and "
		"written\n"
		"                bytes, per commit too, git diff mean and sd, "
		"share\n"
		"                of empty diffs, compute and commit ms per action,\n"
		"                seconds per game); as text, the summary follows\n"
		"  --summary     per group: n, mean, sd, min, median, max of each\n"
		"                metric over the games\n"
		"  --histogram   per group: git diff sizes per commit in bins of B\n"
		"                bytes (--bin, default 50)\n"
		"  --by G        groups by players, board, bots or folder (default:\n"
		"                one group, all)\n"
		"  --csv, --json the same tables as CSV or JSON\n"
		"  --repack      also packs each game with libgit2's packbuilder\n"
		"                (packed_bytes; about five times slower)\n"
		"  --jobs J      J processes read the games (default: the "
		"processors, at most 8)\n"
		"  --quiet       no progress line (there is none unless stderr is a\n"
		"                terminal)\n"
		"  -h, --help    this text\n");
}

int cli_stats(int argc, char **argv)
{
	int fmt = 0; /* 0 text, 1 csv, 2 json */
	int table = 0; /* 0 games, 1 summary, 2 histogram */
	const char *by = NULL;
	long bin = 50;
	int jobs = stats_default_jobs();
	bool quiet = false, repack = false;
	char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
	int ndirs = 0;
	uint64_t v;
	if (!dirs)
		return 1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			free(dirs);
			return 0;
		} else if (!strcmp(a, "--csv"))
			fmt = 1;
		else if (!strcmp(a, "--json"))
			fmt = 2;
		else if (!strcmp(a, "--summary"))
			table = 1;
		else if (!strcmp(a, "--histogram"))
			table = 2;
		else if (!strcmp(a, "--quiet"))
			quiet = true;
		else if (!strcmp(a, "--repack"))
			repack = true;
		else if (!strcmp(a, "--by")) {
			if (!val || (strcmp(val, "players") &&
				     strcmp(val, "board") && strcmp(val, "bots") &&
				     strcmp(val, "folder"))) {
				fprintf(stderr, "catan stats: --by is players, "
						"board, bots or folder\n");
				free(dirs);
				return 2;
			}
			by = val;
			i++;
		} else if (!strcmp(a, "--bin") || !strcmp(a, "--jobs")) {
			if (cli_parse_u64(a, val, 1, a[2] == 'b' ? 1000000 : 256,
					  &v)) {
				free(dirs);
				return 2;
			}
			if (a[2] == 'b')
				bin = (long)v;
			else
				jobs = (int)v;
			i++;
		} else if (a[0] == '-') {
			fprintf(stderr, "catan stats: unknown option \"%s\"\n",
				a);
			usage(stderr);
			free(dirs);
			return 2;
		} else
			dirs[ndirs++] = argv[i];
	}
	if (ndirs == 0) {
		usage(stderr);
		free(dirs);
		return 2;
	}
	stats_set s;
	int rc = stats_collect(&s, dirs, ndirs, jobs, repack, quiet);
	if (table == 1)
		print_summary(stdout, &s, by, fmt);
	else if (table == 2)
		print_histogram(stdout, &s, by, bin, fmt);
	else if (fmt == 1)
		print_games_csv(stdout, &s);
	else if (fmt == 2)
		print_games_json(stdout, &s);
	else {
		print_games_text(stdout, &s);
		printf("\n");
		print_summary(stdout, &s, by, 0);
		printf("(B/c: bytes per commit; du: the repository as left, as "
		       "du -sb; pack: one pack as libgit2's packbuilder writes "
		       "it; written: the repository's own *.pack files; diff: "
		       "git diff parent child | wc -c; commit time includes "
		       "the final pack; sd in the summary is over games)\n");
	}
	stats_set_free(&s);
	free(dirs);
	return rc;
}
