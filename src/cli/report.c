/*
 * report.c - catan report: the thesis's figures 5.2-5.5 and their tables
 * from simulated games.
 *
 *   catan report DIR... --out OUT [--by players|board|bots|folder]
 *                [--bin B] [--repack] [--jobs J] [--quiet]     (--help)
 *
 * Reads the games as catan stats does (stats_collect), then writes into
 * OUT the data files gnuplot plots (games-K.tsv per group, hist-K.tsv,
 * groups.tsv), the script (figures.gp), the figures as SVG and PNG, and
 * index.md with the tables beside the thesis's published values:
 *
 *   fig5_2  size of the repository as left against its commits, per game
 *   fig5_3  histogram of git diff sizes per commit (share of pairs)
 *   fig5_4  seconds per game, per group (box plot)
 *   fig5_5  time per commit split into compute, commit and sync (sync
 *           only for games of simulate --peers: others have one repository)
 *
 * gnuplot draws: one program, driven by a text script, with SVG and PNG
 * (cairo) output and no library to link. Without it the data, the script
 * and index.md are still written, and the command says so and fails.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "research.h"

#define MAX_GROUPS 64
#define NBINS 4096

/*
 * The thesis's published values (chapter 5), by player count: commits per
 * game, the repository in KB (2.12 and 2.3 MB), the mean diff in B (0.49
 * and 0.63 KB), % of empty diffs, compute and sync ms per commit, seconds
 * per game. Its MB and KB are taken as 1024 KB and 1024 B.
 */
typedef struct thesis_ref {
	int players;
	double commits, kbytes, diff_mean, empty_pct, compute_ms, sync_ms,
		game_s;
} thesis_ref;

static const thesis_ref thesis[] = {
	{2, 880, 2.12 * 1024, 0.49 * 1024, 24, 64, 64, 113},
	{4, 1168, 2.3 * 1024, 0.63 * 1024, 23, 100, 249, 406},
};

static const thesis_ref *thesis_for(const char *label)
{
	int p = 0;
	if (sscanf(label, "%d players", &p) != 1)
		return NULL;
	for (size_t i = 0; i < sizeof thesis / sizeof thesis[0]; i++)
		if (thesis[i].players == p)
			return &thesis[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: catan report DIR... --out OUT [--by "
		"players|board|bots|folder]\n"
		"                    [--bin B] [--repack] [--jobs J] [--quiet]\n"
		"\n"
		"Draws the thesis's figures 5.2-5.5 from simulated games (DIR as "
		"for\n"
		"catan stats; several folders merge) with gnuplot, as SVG and "
		"PNG, and\n"
		"writes OUT/index.md: the tables, beside the thesis's published "
		"values.\n"
		"\n"
		"  --out OUT   the folder to write (created if missing)\n"
		"  --by G      one series per group: players (default), board, "
		"bots,\n"
		"              folder\n"
		"  --bin B     width of the diff-size histogram's bins in bytes "
		"(default 50)\n"
		"  --repack    also measure libgit2's packbuilder (slower)\n"
		"  --jobs J    J processes read the games (default: the "
		"processors, at most 8)\n"
		"  --quiet     no progress line\n"
		"  -h, --help  this text\n");
}

static void put(FILE *f, double v, int prec)
{
	if (isnan(v))
		fputs("NaN", f);
	else
		fprintf(f, "%.*f", prec, v);
}

/* OUT/games-K.tsv: the games of group K, metrics as stats --csv. */
static int write_games(const char *out, int k, const stats_set *s,
		       const char *by, const char *label)
{
	char path[4096], l[128];
	snprintf(path, sizeof path, "%s/games-%d.tsv", out, k);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# group %s: game", label);
	for (int m = 0; m < STAT_COUNT; m++)
		fprintf(f, "\t%s", stat_names[m]);
	fputc('\n', f);
	for (long i = 0; i < s->n; i++) {
		stats_group_label(l, sizeof l, &s->g[i], by);
		if (strcmp(l, label))
			continue;
		fprintf(f, "%s", s->g[i].name);
		for (int m = 0; m < STAT_COUNT; m++) {
			fputc('\t', f);
			put(f, s->g[i].v[m], stat_prec[m]);
		}
		fputc('\n', f);
	}
	return fclose(f) ? -1 : 0;
}

/* OUT/hist-K.tsv: group K's diff sizes, as stats --histogram --csv. */
static int write_hist(const char *out, int k, const stats_set *s,
		      const char *by, const char *label, long bin)
{
	char path[4096];
	long *counts = malloc(NBINS * sizeof *counts);
	snprintf(path, sizeof path, "%s/hist-%d.tsv", out, k);
	FILE *f = counts ? fopen(path, "w") : NULL;
	if (!f) {
		free(counts);
		return -1;
	}
	int used = stats_histogram(counts, NBINS, bin, s, by, label);
	long total = 0;
	for (int b = 0; b < used; b++)
		total += counts[b];
	fprintf(f, "# group %s: from_bytes\tto_bytes\tpairs\tpercent\n",
		label);
	for (int b = 0; b < used; b++)
		fprintf(f, "%ld\t%ld\t%ld\t%.3f\n", b * bin, (b + 1) * bin,
			counts[b],
			total ? 100.0 * (double)counts[b] / (double)total : 0);
	free(counts);
	return fclose(f) ? -1 : 0;
}

/* OUT/groups.tsv: per group the means figure 5.5 stacks and 5.2 marks. */
static int write_groups(const char *out, char labels[][128], int ng,
			const stats_set *s, const char *by)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/groups.tsv", out);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# k\tgroup\tgames\tcommits_mean\tdu_bytes_mean\t"
		   "compute_ms_per_action_mean\tcommit_ms_per_action_mean\t"
		   "sync_ms_per_action_mean\tgame_s_mean\n");
	for (int k = 0; k < ng; k++) {
		stat_summary c, d, cp, cm, gs, sy;
		stats_group_summary(&c, s, by, labels[k], STAT_COMMITS);
		stats_group_summary(&d, s, by, labels[k], STAT_DU_BYTES);
		stats_group_summary(&cp, s, by, labels[k], STAT_COMPUTE_MS);
		stats_group_summary(&cm, s, by, labels[k], STAT_COMMIT_MS);
		stats_group_summary(&gs, s, by, labels[k], STAT_GAME_S);
		stats_group_summary(&sy, s, by, labels[k], STAT_SYNC_MS);
		fprintf(f, "%d\t%s\t%ld\t", k, labels[k], c.n);
		put(f, c.mean, stat_prec[STAT_COMMITS] + 1);
		fputc('\t', f);
		put(f, d.mean, stat_prec[STAT_DU_BYTES] + 1);
		fputc('\t', f);
		put(f, cp.mean, stat_prec[STAT_COMPUTE_MS] + 1);
		fputc('\t', f);
		put(f, cm.mean, stat_prec[STAT_COMMIT_MS] + 1);
		fputc('\t', f);
		/* No sync measured (not --peers): an empty part of the bar. */
		put(f, sy.n ? sy.mean : 0, stat_prec[STAT_SYNC_MS] + 1);
		fputc('\t', f);
		put(f, gs.mean, stat_prec[STAT_GAME_S] + 1);
		fputc('\n', f);
	}
	return fclose(f) ? -1 : 0;
}

/* Escapes a label for a gnuplot string in double quotes. */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static int write_script(const char *out, char labels[][128], int ng,
			long bin)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/figures.gp", out);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# Written by catan report: the thesis's figures 5.2-5.5.\n"
		   "# Run in this folder: gnuplot figures.gp\n"
		   "ng = %d\n"
		   "array label[%d]\n",
		ng, ng);
	for (int k = 0; k < ng; k++) {
		fprintf(f, "label[%d] = ", k + 1);
		gp_str(f, labels[k]);
		fputc('\n', f);
	}
	fprintf(f,
		"set datafile separator tab\n"
		"set datafile missing 'NaN'\n"
		"set grid\n"
		"set key outside right top\n"
		"games(k) = sprintf('games-%%d.tsv', k - 1)\n"
		"hist(k) = sprintf('hist-%%d.tsv', k - 1)\n"
		"# columns of games-K.tsv (1 is the game)\n"
		"c_commits = 2; c_du = 3; c_compute = 13; c_commit = 14; "
		"c_game = 15\n"
		"do for [fmt in 'svg png'] {\n"
		"  if (fmt eq 'svg') { set terminal svg size 900,560 dynamic "
		"font 'sans,12' } \\\n"
		"  else { set terminal pngcairo size 900,560 font 'sans,11' }\n"
		"\n"
		"  set output 'fig5_2.'.fmt\n"
		"  set title 'Figure 5.2: size of a game repository against its "
		"commits'\n"
		"  set xlabel 'commits per game'\n"
		"  set ylabel 'repository as left (du -sb), KB'\n"
		"  unset logscale\n"
		"  set style fill empty\n"
		"  plot for [k=1:ng] games(k) using c_commits:(column(c_du)/1024) "
		"with points pt 7 ps 0.5 title label[k], \\\n"
		"       'groups.tsv' using 4:($5/1024) with points pt 6 ps 3 lw 2 "
		"lc rgb 'red' title 'mean'\n"
		"\n"
		"  set output 'fig5_3.'.fmt\n"
		"  set title 'Figure 5.3: git diff parent child per commit "
		"(bins of %ld B)'\n"
		"  set xlabel 'bytes of git diff | wc -c'\n"
		"  set ylabel 'share of parent-child pairs, %%'\n"
		"  set style fill transparent solid 0.35 noborder\n"
		"  plot for [k=1:ng] hist(k) using (($1+$2)/2):4:($2-$1) with "
		"boxes title label[k]\n"
		"\n"
		"  set output 'fig5_4.'.fmt\n"
		"  set title 'Figure 5.4: elapsed time per game (create, play, "
		"commit, pack)'\n"
		"  set xlabel ''\n"
		"  set ylabel 'seconds per game'\n"
		"  set style fill solid 0.25 border -1\n"
		"  set style boxplot nooutliers\n"
		"  set xtics () \n"
		"  do for [k=1:ng] { set xtics add (label[k] k) }\n"
		"  set xrange [0.3:ng+0.7]\n"
		"  plot for [k=1:ng] games(k) using (k):c_game with boxplot "
		"notitle, \\\n"
		"       for [k=1:ng] games(k) using (k+0.3*(rand(0)-0.5)):c_game "
		"with points pt 7 ps 0.3 lc rgb '#555555' notitle\n"
		"  set xtics autofreq\n"
		"  unset xrange\n"
		"\n"
		"  set output 'fig5_5.'.fmt\n"
		"  set title 'Figure 5.5: time per commit (sync: simulate "
		"--peers only)'\n"
		"  set ylabel 'ms per commit'\n"
		"  set style data histograms\n"
		"  set style histogram rowstacked\n"
		"  set style fill solid 0.7 border -1\n"
		"  set boxwidth 0.6\n"
		"  plot 'groups.tsv' using 6:xtic(2) title 'compute (bot + "
		"rules)', \\\n"
		"       '' using 7 title 'commit (and final pack)', \\\n"
		"       '' using 8 title 'sync (fetch, verify, adopt)'\n"
		"  unset style data\n"
		"}\n",
		bin);
	return fclose(f) ? -1 : 0;
}

/* Runs gnuplot figures.gp in out; 0 when it drew every figure. */
static int run_gnuplot(const char *out)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (chdir(out))
			_exit(126);
		execlp("gnuplot", "gnuplot", "figures.gp", (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* A cell of index.md: mean ± sd, or "-". */
static void md_cell(FILE *f, const stat_summary *x, int prec)
{
	if (!x->n || isnan(x->mean))
		fputs(" - |", f);
	else
		fprintf(f, " %.*f ± %.*f |", prec, x->mean, prec, x->sd);
}

static void md_ref(FILE *f, double v, const char *fmt)
{
	if (isnan(v))
		fputs(" - |", f);
	else {
		fputc(' ', f);
		fprintf(f, fmt, v);
		fputs(" |", f);
	}
}

static int write_index(const char *out, char labels[][128], int ng,
		       const stats_set *s, const char *by, long bin,
		       bool drawn, char *const *dirs, int ndirs)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/index.md", out);
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# Chapter 5 measurements: %ld games\n\n", s->n);
	fprintf(f, "Written by `catan report` (catan %s) from", CATAN_VERSION);
	for (int i = 0; i < ndirs; i++)
		fprintf(f, " `%s`", dirs[i]);
	fprintf(f, ", grouped by %s. Each cell is the mean ± the standard "
		   "deviation over the group's games (per-game values as in "
		   "`catan stats`); the thesis column gives its published "
		   "figure for that player count (its machine, its code).\n\n",
		by ? by : "nothing (one group)");

	/* The table of the thesis's quantities. */
	static const struct {
		const char *name;
		int m;
		double scale;
		int prec;
		int ref; /* field of thesis_ref, -1 none */
	} rows[] = {
		{"commits per game", STAT_COMMITS, 1, 0, 0},
		{"repository as left, KB (du -sb)", STAT_DU_BYTES, 1.0 / 1024, 1,
		 1},
		{"repository as left per commit, B", STAT_DU_PER_COMMIT, 1, 1,
		 -1},
		{"own pack per commit, B (written)", STAT_WRITTEN_PER_COMMIT, 1,
		 1, -1},
		{"libgit2 repack per commit, B (--repack)",
		 STAT_PACKED_PER_COMMIT, 1, 1, -1},
		{"git diff per commit, mean B", STAT_DIFF_MEAN, 1, 1, 2},
		{"git diff per commit, sd B", STAT_DIFF_SD, 1, 1, -1},
		{"empty diffs, %", STAT_EMPTY_PCT, 1, 2, 3},
		{"compute per commit, ms", STAT_COMPUTE_MS, 1, 4, 4},
		{"commit per commit, ms", STAT_COMMIT_MS, 1, 4, -1},
		{"sync per commit, ms (--peers)", STAT_SYNC_MS, 1, 4, 5},
		{"seconds per game", STAT_GAME_S, 1, 3, 6},
	};
	fputs("| quantity |", f);
	for (int k = 0; k < ng; k++)
		fprintf(f, " %s | thesis |", labels[k]);
	fputs("\n|---|", f);
	for (int k = 0; k < ng; k++)
		fputs("---|---|", f);
	fputc('\n', f);
	for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
		fprintf(f, "| %s |", rows[r].name);
		for (int k = 0; k < ng; k++) {
			stat_summary x;
			memset(&x, 0, sizeof x);
			if (rows[r].m >= 0) {
				stats_group_summary(&x, s, by, labels[k],
						    rows[r].m);
				x.mean *= rows[r].scale;
				x.sd *= rows[r].scale;
			}
			md_cell(f, &x, rows[r].prec);
			const thesis_ref *t = thesis_for(labels[k]);
			double ref = NAN;
			if (t && rows[r].ref >= 0) {
				const double v[7] = {t->commits,
						     t->kbytes,
						     t->diff_mean,
						     t->empty_pct,
						     t->compute_ms,
						     t->sync_ms,
						     t->game_s};
				ref = v[rows[r].ref];
			}
			md_ref(f, ref, rows[r].ref == 1 || rows[r].ref == 2
					       ? "%.0f"
					       : "%g");
		}
		fputc('\n', f);
	}
	fprintf(f,
		"\nThe thesis's per-commit compute includes its commit; its "
		"sizes (2.12 and 2.3 MB, 0.49 and 0.63 KB) are read as 1 MB = "
		"1024 KB, 1 KB = 1024 B; its repositories held loose "
		"objects. Sync is measured only for games of `catan simulate "
		"--peers` (each player a repository of its own, syncing "
		"through path remotes before each turn); their repository is "
		"the first player's, in loose objects as a peer keeps it.\n\n");

	fputs("## Figures\n\n", f);
	static const char *const figs[4][2] = {
		{"fig5_2", "Figure 5.2: repository size against commits"},
		{"fig5_3", "Figure 5.3: histogram of git diff sizes per commit"},
		{"fig5_4", "Figure 5.4: elapsed time per game"},
		{"fig5_5", "Figure 5.5: time per commit: compute, commit, sync"},
	};
	for (int i = 0; i < 4; i++) {
		if (drawn)
			fprintf(f, "![%s](%s.png)\n\n(%s.svg, %s.png)\n\n",
				figs[i][1], figs[i][0], figs[i][0], figs[i][0]);
		else
			fprintf(f, "%s: not drawn (gnuplot missing)\n\n",
				figs[i][1]);
	}
	fprintf(f, "Data: `games-K.tsv` (one line per game of group K, the "
		   "columns of `catan stats --csv`), `hist-K.tsv` (bins of "
		   "%ld B, as `catan stats --histogram --bin %ld`), "
		   "`groups.tsv` (means); `figures.gp` draws them.\n\n",
		bin, bin);
	fputs("| K | group | games |\n|---|---|---|\n", f);
	for (int k = 0; k < ng; k++) {
		stat_summary x;
		stats_group_summary(&x, s, by, labels[k], STAT_COMMITS);
		fprintf(f, "| %d | %s | %ld |\n", k, labels[k], x.n);
	}

	fputs("\n## Summary (every metric)\n\n"
	      "| group | metric | n | mean | sd | min | median | max |\n"
	      "|---|---|---|---|---|---|---|---|\n",
	      f);
	for (int k = 0; k < ng; k++)
		for (int m = 0; m < STAT_COUNT; m++) {
			stat_summary x;
			stats_group_summary(&x, s, by, labels[k], m);
			if (!x.n)
				continue;
			int p = stat_prec[m] + 1;
			fprintf(f, "| %s | %s | %ld | %.*f | %.*f | %.*f | %.*f "
				   "| %.*f |\n",
				labels[k], stat_names[m], x.n, p, x.mean, p,
				x.sd, p, x.min, p, x.median, p, x.max);
		}
	return fclose(f) ? -1 : 0;
}

int cli_report(int argc, char **argv)
{
	const char *out = NULL, *by = "players";
	long bin = 50;
	int jobs = stats_default_jobs();
	bool quiet = false, repack = false;
	uint64_t v;
	char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
	int ndirs = 0, rc = 0;
	if (!dirs)
		return 1;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			free(dirs);
			return 0;
		} else if (!strcmp(a, "--quiet"))
			quiet = true;
		else if (!strcmp(a, "--repack"))
			repack = true;
		else if (!strcmp(a, "--out") && val)
			out = val, i++;
		else if (!strcmp(a, "--by") && val &&
			 (!strcmp(val, "players") || !strcmp(val, "board") ||
			  !strcmp(val, "bots") || !strcmp(val, "folder")))
			by = val, i++;
		else if (!strcmp(a, "--bin") || !strcmp(a, "--jobs")) {
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
			fprintf(stderr, "catan report: bad option \"%s\"\n", a);
			usage(stderr);
			free(dirs);
			return 2;
		} else
			dirs[ndirs++] = argv[i];
	}
	if (!out || ndirs == 0) {
		usage(stderr);
		free(dirs);
		return 2;
	}
	if (mkdir(out, 0777) && errno != EEXIST) {
		fprintf(stderr, "catan report: cannot create %s: %s\n", out,
			strerror(errno));
		free(dirs);
		return 1;
	}
	stats_set s;
	rc = stats_collect(&s, dirs, ndirs, jobs, repack, quiet);
	char labels[MAX_GROUPS][128];
	int ng = stats_groups(labels, MAX_GROUPS, &s, by);
	int werr = 0;
	for (int k = 0; k < ng; k++)
		werr |= write_games(out, k, &s, by, labels[k]) ||
			write_hist(out, k, &s, by, labels[k], bin);
	werr |= write_groups(out, labels, ng, &s, by) ||
		write_script(out, labels, ng, bin);
	int gp = werr || ng == 0 ? -1 : run_gnuplot(out);
	werr |= write_index(out, labels, ng, &s, by, bin, gp == 0, dirs,
			    ndirs);
	if (werr) {
		fprintf(stderr, "catan report: cannot write into %s\n", out);
		rc = 1;
	} else if (gp == 127) {
		fprintf(stderr, "catan report: gnuplot not found (Debian: "
				"gnuplot-nox): data, figures.gp and index.md "
				"written, no figures\n");
		rc = 1;
	} else if (gp != 0) {
		fprintf(stderr, "catan report: gnuplot failed on %s/figures.gp\n",
			out);
		rc = 1;
	} else if (!quiet)
		fprintf(stderr, "catan report: %ld games, %d groups: %s/index.md\n",
			s.n, ng, out);
	stats_set_free(&s);
	free(dirs);
	return rc;
}
