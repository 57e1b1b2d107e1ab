/*
 * benchdir.h - where a benchmark writes its repositories: a fresh folder
 * (mkdtemp) under the folder it was given, or under $TMPDIR (else /tmp),
 * never a fixed path it would have to wipe first, so two runs (or two
 * engineers) never remove each other's files. Header-only: each tool is
 * one file (static inline: a tool may use only some).
 */
#ifndef CATAN_BENCHDIR_H
#define CATAN_BENCHDIR_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Makes PARENT/NAME-XXXXXX (PARENT created if missing; NULL: $TMPDIR or
 * /tmp) and writes its path into out. Returns 0, or -1 with a sentence on
 * stderr.
 */
static inline int bench_dir(char *out, size_t n, const char *parent,
		     const char *name)
{
	if (!parent) {
		parent = getenv("TMPDIR");
		if (!parent || !*parent)
			parent = "/tmp";
	} else if (mkdir(parent, 0777) && errno != EEXIST) {
		fprintf(stderr, "%s: cannot create %s: %s\n", name, parent,
			strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(out, n, "%s/%s-XXXXXX", parent, name) >= n ||
	    !mkdtemp(out)) {
		fprintf(stderr, "%s: cannot make a folder under %s: %s\n", name,
			parent, strerror(errno));
		return -1;
	}
	return 0;
}

static inline int bench_rm1(const char *path, const struct stat *sb, int type,
		     struct FTW *ftw)
{
	(void)sb, (void)type, (void)ftw;
	return remove(path) ? -1 : 0;
}

/* Removes dir and everything in it (symbolic links are not followed). */
static inline int bench_rmtree(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st))
		return errno == ENOENT ? 0 : -1;
	return nftw(dir, bench_rm1, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
