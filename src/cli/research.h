/*
 * research.h - what catan simulate, stats and report share (private to the
 * catan command): the progress line, the per-game measurements, the
 * summary statistics and the JSON string writer.
 */
#ifndef CATAN_CLI_RESEARCH_H
#define CATAN_CLI_RESEARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The project version from CMake (CATAN_VERSION), for provenance. */
#ifndef CATAN_VERSION
#define CATAN_VERSION "unknown"
#endif

/*
 * A progress line on stderr ("what: done/total, rate/s, ETA"), redrawn at
 * most five times a second. Only when stderr is a terminal and `quiet` is
 * false; otherwise every call does nothing. Cannot fail.
 */
typedef struct cli_progress {
	const char *what;
	long total, done;
	double t0, last;
	bool on;
} cli_progress;

void cli_progress_start(cli_progress *p, const char *what, long total,
			bool quiet);
void cli_progress_step(cli_progress *p, long done);
/* Clears the line (when it was drawn). */
void cli_progress_end(cli_progress *p);

/* Seconds of CLOCK_MONOTONIC. */
double cli_now(void);

/* Writes s as a JSON string, quotes and escapes included. */
void cli_json_str(FILE *f, const char *s);

/* The metrics of one game, each a column of catan stats. */
typedef enum {
	STAT_COMMITS,
	STAT_DU_BYTES,	  /* the repository as left, du -sb */
	STAT_DU_DISK,	  /* du -s, in bytes */
	STAT_PACKED,	  /* one pack by libgit2's packbuilder (--repack) */
	STAT_WRITTEN,	  /* the repository's own *.pack files */
	STAT_DU_PER_COMMIT,
	STAT_PACKED_PER_COMMIT,
	STAT_WRITTEN_PER_COMMIT,
	STAT_DIFF_MEAN,	  /* git diff parent child | wc -c, per pair */
	STAT_DIFF_SD,
	STAT_EMPTY_PCT,	  /* share of empty diffs, percent */
	STAT_COMPUTE_MS,  /* per action: bot choice and rules */
	STAT_COMMIT_MS,	  /* per action: commit, the final pack included */
	STAT_GAME_S,	  /* the whole game, create to flush, seconds */
	STAT_SYNC_MS,	  /* per action: sync (simulate --peers only) */
	STAT_COUNT
} stat_metric;

/* Column name (CSV/JSON) and unit of each metric. */
extern const char *const stat_names[STAT_COUNT];
extern const char *const stat_units[STAT_COUNT];
/* Digits after the point of each metric in catan stats --csv (catan report
 * writes its data files with the same, so the two compare as text). */
extern const int stat_prec[STAT_COUNT];

/* One game: where it comes from and what it measured. */
typedef struct stats_game {
	char folder[512]; /* the DIR argument it was found under */
	char name[128];	  /* game-NNNNN, or the repository's own name */
	char board[16], phases[12], bots[64], version[32];
	char seed[24]; /* as written by simulate; "-" when unknown */
	int players, vp;
	double v[STAT_COUNT]; /* NaN: unknown (timings of a lone game) */
	uint32_t *diffs;      /* size of each parent-child diff, bytes */
	long ndiffs;
} stats_game;

typedef struct stats_set {
	stats_game *g;
	long n, cap;
} stats_set;

/*
 * Measures every game under each of dirs (a simulate output folder, every
 * game-* inside, or one game repository) into `out`, in the order given
 * and by name within a folder; a folder's games.csv gives provenance and
 * timings. Games are measured by `jobs` processes; STAT_PACKED only with
 * `repack` (NaN otherwise). Prints a sentence per
 * game it cannot read and returns 1 after measuring the others, 0 when
 * all were read. Free with stats_set_free.
 */
int stats_collect(stats_set *out, char *const *dirs, int ndirs, int jobs,
		  bool repack, bool quiet);
void stats_set_free(stats_set *s);

/* The group of a game for --by: "players", "board", "bots", "folder", or
 * NULL (everything one group, "all"). Writes the label into buf. */
void stats_group_label(char *buf, size_t n, const stats_game *g,
		       const char *by);

/* n, mean, sd (sample), min, median, max of x[0..n) (x is sorted). */
typedef struct stat_summary {
	long n;
	double mean, sd, min, median, max;
} stat_summary;
void stat_summarize(stat_summary *out, double *x, long n);

/*
 * The default --jobs of stats and report: the processors online, at most 8
 * (reading games is CPU-bound and each game is read alone; the tables do
 * not depend on it). Cannot fail: 1 when the count is unknown.
 */
int stats_default_jobs(void);

/* The distinct group labels of s in first-seen order (at most max). */
int stats_groups(char labels[][128], int max, const stats_set *s,
		 const char *by);

/*
 * The histogram of diff sizes of the games of group `label`: counts[k]
 * pairs of size in [k*bin, (k+1)*bin); returns the number of bins used
 * (at most nbins; bigger sizes go into the last). Empty diffs are in bin 0.
 */
int stats_histogram(long *counts, int nbins, long bin, const stats_set *s,
		    const char *by, const char *label);

/* Summary of metric m over the games of group `label` (NaNs left out). */
void stats_group_summary(stat_summary *out, const stats_set *s,
			 const char *by, const char *label, int m);

int cli_report(int argc, char **argv);

#endif
