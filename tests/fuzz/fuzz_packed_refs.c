/*
 * fuzz_packed_refs.c - sync's reader and writer of packed-refs
 * (packed_rewrite in src/store/sync.c): it reads the file as git,
 * libgit2 or a peer's tools left it, and writes it back with the refs a
 * sync moves.
 *
 * Input: one byte choosing which refs move (none, one, two), then the
 * bytes of packed-refs.
 * Invariants: on failure the file is as it was and no lock is left; on
 * success the file starts with git's traits line saying "sorted", its
 * records are sorted by name, each moved ref is there once with its new
 * id, and rewriting it with nothing to move gives the same bytes.
 */
#define _XOPEN_SOURCE 700

#include <string.h>
#include <unistd.h>

#include <git2.h>

#include "fuzz.h"
#include "fuzz_internal.h"

static git_repository *repo;
static char packed[1024], lock[1024];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char path[600];
	git_libgit2_init();
	snprintf(path, sizeof path, "%s/game.git", fuzz_scratch());
	FUZZ_CHECK(git_repository_init(&repo, path, 1) == 0);
	snprintf(packed, sizeof packed, "%spacked-refs",
		 git_repository_path(repo));
	snprintf(lock, sizeof lock, "%spacked-refs.lock",
		 git_repository_path(repo));
	return 0;
}

static const char *const refs[4] = {"refs/heads/red", "refs/remotes/blue/white",
				    "refs/heads/orange", "refs/heads/r"};

/* Name of the record starting at p (to the end of its line). */
static size_t record_name(const unsigned char *p, const unsigned char *end,
			  const unsigned char **name)
{
	const unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
	FUZZ_CHECK(nl && nl - p > GIT_OID_HEXSZ + 1 && p[GIT_OID_HEXSZ] == ' ');
	*name = p + GIT_OID_HEXSZ + 1;
	return (size_t)(nl - *name);
}

static void check_output(const char *const *moved, const git_oid *ids, int n)
{
	size_t len = 0, len2 = 0;
	unsigned char *out = fuzz_read_file(packed, &len);
	FUZZ_CHECK(out != NULL);
	const unsigned char *nl = memchr(out, '\n', len);
	FUZZ_CHECK(nl && !memcmp(out, "# pack-refs with:", 17));
	FUZZ_CHECK(nl - out >= 9 && !memcmp(nl - 8, " sorted ", 8));
	const unsigned char *p = nl + 1, *end = out + len, *prev = NULL;
	size_t prevlen = 0;
	int found[4] = {0};
	while (p < end) {
		const unsigned char *name;
		size_t nlen = record_name(p, end, &name);
		if (prev) {
			size_t m = nlen < prevlen ? nlen : prevlen;
			int c = memcmp(prev, name, m);
			FUZZ_CHECK(c < 0 || (c == 0 && prevlen <= nlen));
		}
		for (int k = 0; k < n; k++)
			if (strlen(moved[k]) == nlen &&
			    !memcmp(moved[k], name, nlen)) {
				char hex[GIT_OID_HEXSZ + 1];
				git_oid_tostr(hex, sizeof hex, &ids[k]);
				FUZZ_CHECK(!memcmp(p, hex, GIT_OID_HEXSZ));
				found[k]++;
			}
		prev = name;
		prevlen = nlen;
		p = name + nlen + 1;
		while (p < end && *p == '^') {
			const unsigned char *nl2 =
			    memchr(p, '\n', (size_t)(end - p));
			FUZZ_CHECK(nl2 != NULL);
			p = nl2 + 1;
		}
	}
	for (int k = 0; k < n; k++)
		FUZZ_CHECK(found[k] == 1);
	/* Nothing to move: the same bytes. */
	char why[512];
	FUZZ_CHECK(store_fuzz_packed_rewrite(repo, NULL, NULL, 0, why,
					     sizeof why) == 0);
	unsigned char *again = fuzz_read_file(packed, &len2);
	FUZZ_CHECK(again && len2 == len && !memcmp(again, out, len));
	free(again);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *moved[2];
	git_oid ids[2];
	char why[512];
	if (size < 1)
		return 0;
	int n = data[0] % 3;
	for (int k = 0; k < n; k++) {
		moved[k] = refs[(data[0] >> (2 + 2 * k)) & 3];
		memset(ids[k].id, 0x11 * (k + 1), sizeof ids[k].id);
	}
	if (n == 2 && !strcmp(moved[0], moved[1]))
		n = 1;
	if (fuzz_write_file(packed, data + 1, size - 1))
		return 0;
	int rc =
	    store_fuzz_packed_rewrite(repo, moved, ids, n, why, sizeof why);
	FUZZ_CHECK(access(lock, F_OK) != 0);
	if (rc) {
		size_t len = 0;
		unsigned char *now = fuzz_read_file(packed, &len);
		FUZZ_CHECK(now && len == size - 1 &&
			   !memcmp(now, data + 1, len));
		FUZZ_CHECK(why[0] != '\0');
		free(now);
		return 0;
	}
	check_output(moved, ids, n);
	return 0;
}
