/*
 * stats.c - catan stats: the thesis's chapter 5 measurements of game
 * repositories.
 *
 *   catan stats [--csv|--json] DIR...
 *
 * DIR is a game repository, or a `catan simulate` output directory (every
 * game-* inside; timings then come from its games.csv). Per game: commits;
 * the size of the repository as left (apparent bytes, as `du -sb`, and disk
 * usage, as `du -s`); the packed size (one pack of every object, with
 * deltas, as libgit2's packbuilder writes it); the size of the packs the
 * repository holds (*.pack, as catan's own writer or a fetch left them;
 * loose objects are not counted there); the mean and standard
 * deviation of the size of `git diff parent child` over every parent-child
 * pair and the share of empty ones; compute and commit time per action.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <git2.h>

#include "cli.h"

typedef struct game_stats {
	char name[256];
	long commits, pairs, empty;
	double du_bytes, du_disk, packed, written;
	double diff_sum, diff_sq;
	double compute_ms, commit_ms, flush_ms, actions; /* -1: unknown */
} game_stats;

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

static int diff_size(git_repository *repo, const git_tree *a, const git_tree *b,
		     size_t *out)
{
	git_diff *diff = NULL;
	git_buf buf = {NULL, 0, 0};
	git_diff_options opt;
	git_diff_options_init(&opt, GIT_DIFF_OPTIONS_VERSION);
	int rc = git_diff_tree_to_tree(&diff, repo, (git_tree *)a,
				       (git_tree *)b, &opt);
	if (!rc)
		rc = git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH);
	*out = buf.size;
	git_buf_dispose(&buf);
	git_diff_free(diff);
	return rc;
}

static int game_measure(game_stats *gs, const char *dir)
{
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_packbuilder *pb = NULL;
	git_buf pack = {NULL, 0, 0};
	git_oid id;
	int rc = -1;

	walk_bytes = walk_disk = walk_packs = 0;
	if (nftw(dir, add_size, 16, FTW_PHYS))
		return -1;
	gs->du_bytes = walk_bytes;
	gs->du_disk = walk_disk;
	gs->written = walk_packs;
	if (git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) ||
	    git_revwalk_new(&walk, repo) ||
	    git_revwalk_push_glob(walk, "refs/heads/*"))
		goto done;
	while (git_revwalk_next(&id, walk) == 0) {
		git_commit *c = NULL;
		git_tree *t = NULL;
		if (git_commit_lookup(&c, repo, &id) || git_commit_tree(&t, c)) {
			git_commit_free(c);
			goto done;
		}
		gs->commits++;
		for (unsigned i = 0; i < git_commit_parentcount(c); i++) {
			git_commit *p = NULL;
			git_tree *pt = NULL;
			size_t n = 0;
			if (git_commit_parent(&p, c, i) ||
			    git_commit_tree(&pt, p) ||
			    diff_size(repo, pt, t, &n)) {
				git_commit_free(p);
				git_tree_free(pt);
				git_tree_free(t);
				git_commit_free(c);
				goto done;
			}
			gs->pairs++;
			gs->empty += n == 0;
			gs->diff_sum += (double)n;
			gs->diff_sq += (double)n * (double)n;
			git_tree_free(pt);
			git_commit_free(p);
		}
		git_tree_free(t);
		git_commit_free(c);
	}
	git_revwalk_free(walk);
	walk = NULL;
	if (git_packbuilder_new(&pb, repo) || git_revwalk_new(&walk, repo) ||
	    git_revwalk_push_glob(walk, "refs/heads/*") ||
	    git_packbuilder_insert_walk(pb, walk) ||
	    git_packbuilder_write_buf(&pack, pb))
		goto done;
	gs->packed = (double)pack.size;
	rc = 0;
done:
	git_buf_dispose(&pack);
	git_packbuilder_free(pb);
	git_revwalk_free(walk);
	git_repository_free(repo);
	return rc;
}

/* Timings from the games.csv that `catan simulate` left beside the game. */
static void read_timings(game_stats *gs, const char *parent, const char *game)
{
	char path[4096], line[512];
	snprintf(path, sizeof path, "%s/games.csv", parent);
	FILE *f = fopen(path, "r");
	gs->compute_ms = gs->commit_ms = gs->flush_ms = gs->actions = -1;
	if (!f)
		return;
	size_t k = strlen(game);
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, game, k) || line[k] != ',')
			continue;
		char name[64], winner[32];
		int players, turns;
		unsigned long long seed;
		long actions;
		double create, compute, commit, flush, median, total;
		if (sscanf(line,
			   "%63[^,],%d,%llu,%ld,%31[^,],%d,%lf,%lf,%lf,%lf,%lf,"
			   "%lf",
			   name, &players, &seed, &actions, winner, &turns,
			   &create, &compute, &commit, &flush, &median,
			   &total) == 12) {
			gs->actions = (double)actions;
			gs->compute_ms = compute;
			gs->commit_ms = commit;
			gs->flush_ms = flush;
		}
	}
	fclose(f);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void print_row(const game_stats *g, int fmt, bool first)
{
	double n = g->commits ? (double)g->commits : 1;
	double pairs = g->pairs ? (double)g->pairs : 1;
	double mean = g->diff_sum / pairs;
	double sd = sqrt(fmax(0, g->diff_sq / pairs - mean * mean));
	double per_action = g->actions > 0 ? g->actions : n;
	double compute = g->compute_ms >= 0 ? g->compute_ms / per_action : -1;
	double commit = g->commit_ms >= 0
				? (g->commit_ms + g->flush_ms) / per_action
				: -1;
	if (fmt == 1) {
		printf("%s,%ld,%.0f,%.0f,%.0f,%.1f,%.1f,%.1f,%.2f,%.5f,%.5f,"
		       "%.0f,%.1f\n",
		       g->name, g->commits, g->du_bytes, g->du_disk, g->packed,
		       g->packed / n, mean, sd,
		       100.0 * (double)g->empty / pairs, compute, commit,
		       g->written, g->written / n);
	} else if (fmt == 2) {
		printf("%s{\"game\":\"%s\",\"commits\":%ld,\"du_bytes\":%.0f,"
		       "\"du_disk\":%.0f,\"packed_bytes\":%.0f,"
		       "\"packed_per_commit\":%.1f,\"diff_mean\":%.1f,"
		       "\"diff_sd\":%.1f,\"empty_percent\":%.2f,"
		       "\"compute_ms_per_action\":%.5f,"
		       "\"commit_ms_per_action\":%.5f,"
		       "\"written_bytes\":%.0f,\"written_per_commit\":%.1f}",
		       first ? "" : ",\n", g->name, g->commits, g->du_bytes,
		       g->du_disk, g->packed, g->packed / n, mean, sd,
		       100.0 * (double)g->empty / pairs, compute, commit,
		       g->written, g->written / n);
	} else {
		printf("%-14s %7ld %9.0f %7.0f %9.0f %7.0f %7.0f %7.0f %7.0f "
		       "%6.1f%% %9.4f %9.4f\n",
		       g->name, g->commits, g->du_bytes, g->du_bytes / n,
		       g->packed, g->packed / n, g->written / n, mean, sd,
		       100.0 * (double)g->empty / pairs, compute, commit);
	}
}

int cli_stats(int argc, char **argv)
{
	int fmt = 0; /* 0 table, 1 csv, 2 json */
	game_stats total;
	long games = 0;
	bool first = true;
	memset(&total, 0, sizeof total);
	git_libgit2_init();
	if (argc == 0) {
		fprintf(stderr, "usage: catan stats [--csv|--json] DIR...\n");
		return 2;
	}
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--csv"))
			fmt = 1;
		else if (!strcmp(argv[i], "--json"))
			fmt = 2;
	}
	if (fmt == 1)
		printf("game,commits,du_bytes,du_disk,packed_bytes,"
		       "packed_per_commit,diff_mean,diff_sd,empty_percent,"
		       "compute_ms_per_action,commit_ms_per_action,"
		       "written_bytes,written_per_commit\n");
	else if (fmt == 2)
		printf("[");
	else
		printf("%-14s %7s %9s %7s %9s %7s %7s %7s %7s %7s %9s %9s\n",
		       "game", "commits", "du -sb", "B/comm", "packed", "B/comm",
		       "written", "diff", "sd", "empty", "compute", "commit");
	if (!fmt)
		printf("%-14s %7s %9s %7s %9s %7s %7s %7s %7s %7s %9s %9s\n", "",
		       "", "(bytes)", "", "(bytes)", "", "B/comm", "mean B", "",
		       "", "ms/act", "ms/act");
	int rc = 0;
	for (int i = 0; i < argc; i++) {
		if (argv[i][0] == '-')
			continue;
		const char *dir = argv[i];
		char **names = NULL;
		size_t nnames = 0;
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d))) {
			if (strncmp(e->d_name, "game-", 5))
				continue;
			char **more = realloc(names, (nnames + 1) * sizeof *names);
			if (!more)
				break;
			names = more;
			names[nnames++] = strdup(e->d_name);
		}
		if (d)
			closedir(d);
		if (!d) {
			fprintf(stderr, "catan stats: cannot read %s\n", dir);
			rc = 1;
			continue;
		}
		qsort(names, nnames, sizeof *names, cmp_name);
		/* A lone repository is measured as itself. */
		size_t count = nnames ? nnames : 1;
		for (size_t k = 0; k < count; k++) {
			game_stats gs;
			char path[4096];
			memset(&gs, 0, sizeof gs);
			if (nnames) {
				snprintf(path, sizeof path, "%s/%s", dir,
					 names[k]);
				snprintf(gs.name, sizeof gs.name, "%s",
					 names[k]);
				read_timings(&gs, dir, names[k]);
			} else {
				snprintf(path, sizeof path, "%s", dir);
				const char *base = strrchr(dir, '/');
				snprintf(gs.name, sizeof gs.name, "%s",
					 base ? base + 1 : dir);
				gs.compute_ms = gs.commit_ms = gs.actions = -1;
			}
			if (game_measure(&gs, path)) {
				const git_error *ge = git_error_last();
				fprintf(stderr, "catan stats: %s: %s\n", path,
					ge ? ge->message : "not a game");
				rc = 1;
				continue;
			}
			print_row(&gs, fmt, first);
			first = false;
			total.commits += gs.commits;
			total.pairs += gs.pairs;
			total.empty += gs.empty;
			total.du_bytes += gs.du_bytes;
			total.du_disk += gs.du_disk;
			total.packed += gs.packed;
			total.written += gs.written;
			total.diff_sum += gs.diff_sum;
			total.diff_sq += gs.diff_sq;
			if (gs.actions > 0) {
				total.actions += gs.actions;
				total.compute_ms += gs.compute_ms;
				total.commit_ms += gs.commit_ms;
				total.flush_ms += gs.flush_ms;
			}
			games++;
		}
		for (size_t k = 0; k < nnames; k++)
			free(names[k]);
		free(names);
	}
	if (fmt == 2)
		printf("]\n");
	if (fmt == 0 && games > 1) {
		snprintf(total.name, sizeof total.name, "all (%ld)", games);
		if (total.actions <= 0)
			total.compute_ms = total.commit_ms = total.actions = -1;
		print_row(&total, 0, false);
		printf("(B/comm: bytes per commit; packed: one pack as libgit2's "
		       "packbuilder writes it; written: the repository's own "
		       "*.pack files; diff: git diff parent child | wc -c over "
		       "%ld pairs; commit time includes the final pack)\n",
		       total.pairs);
	}
	git_libgit2_shutdown();
	return rc;
}
