/*
 * fuzz_sync_objects.c - sync's own readers of a path remote's objects
 * (src/store/sync.c): a loose object file (zlib of "<type> <size>\0" and
 * the content), a raw tree and a raw commit, which sync reads without
 * libgit2 when it copies a peer's history.
 *
 * Input: one byte choosing the reader (and for a loose object the type
 * expected), then its bytes: the loose file as stored, or the raw object.
 * Invariants: an accepted loose object is at most 64 KiB, and written
 * again as git writes it, it is read back the same; an accepted tree's
 * entries, written again, parse to the same entries; an accepted commit's
 * tree and parents are the ids its lines spell.
 */
#define _XOPEN_SOURCE 700

#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <git2.h>
#include <zlib.h>

#include "fuzz.h"
#include "fuzz_internal.h"

static git_repository *repo;
static git_oid loose_id;
static char loose_path[1024];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	char path[600], dir[1024];
	git_libgit2_init();
	snprintf(path, sizeof path, "%s/peer.git", fuzz_scratch());
	FUZZ_CHECK(git_repository_init(&repo, path, 1) == 0);
	FUZZ_CHECK(git_oid_fromstr(&loose_id, "0123456789abcdef0123456789abcdef"
					      "01234567") == 0);
	snprintf(dir, sizeof dir, "%sobjects/01", git_repository_path(repo));
	mkdir(dir, 0777);
	snprintf(loose_path, sizeof loose_path,
		 "%sobjects/01/23456789abcdef0123456789abcdef01234567",
		 git_repository_path(repo));
	return 0;
}

static void fuzz_loose(git_object_t type, const uint8_t *data, size_t size)
{
	unsigned char *buf = NULL, *buf2 = NULL;
	const unsigned char *d = NULL, *d2 = NULL;
	size_t len = 0, len2 = 0;
	if (fuzz_write_file(loose_path, data, size))
		return;
	int rc = store_fuzz_read_loose(repo, &loose_id, type, &buf, &d, &len);
	/* (-3: over CATAN_SYNC_MAX_OBJECT, or its compressed form is.) */
	FUZZ_CHECK(rc == 0 || rc == -1 || rc == -3);
	if (rc) {
		FUZZ_CHECK(buf == NULL);
		return;
	}
	FUZZ_CHECK(len <= 65536 && d >= buf);
	/* As git writes it: the header, the content, deflated. */
	char head[64];
	int h = snprintf(head, sizeof head, "%s %zu",
			 git_object_type2string(type), len);
	size_t rawlen = (size_t)h + 1 + len;
	unsigned char *raw = malloc(rawlen);
	uLongf zlen = compressBound((uLong)rawlen);
	unsigned char *z = malloc(zlen);
	FUZZ_CHECK(raw && z);
	memcpy(raw, head, (size_t)h + 1);
	memcpy(raw + h + 1, d, len);
	FUZZ_CHECK(compress(z, &zlen, raw, (uLong)rawlen) == Z_OK);
	FUZZ_CHECK(fuzz_write_file(loose_path, z, zlen) == 0);
	FUZZ_CHECK(store_fuzz_read_loose(repo, &loose_id, type, &buf2, &d2,
					 &len2) == 0);
	FUZZ_CHECK(len2 == len && !memcmp(d, d2, len));
	free(raw);
	free(z);
	free(buf);
	free(buf2);
}

#define MAX 64

static void fuzz_tree(const uint8_t *data, size_t size)
{
	unsigned modes[MAX], modes2[MAX];
	const char *names[MAX], *names2[MAX];
	git_oid ids[MAX], ids2[MAX];
	int n = store_fuzz_parse_tree(modes, names, ids, MAX, data, size);
	if (n < 0)
		return;
	FUZZ_CHECK(n <= MAX);
	size_t cap = size + 16 * (size_t)n + 1, used = 0;
	unsigned char *again = malloc(cap);
	FUZZ_CHECK(again != NULL);
	for (int i = 0; i < n; i++) {
		const char *nm = names[i];
		FUZZ_CHECK(nm >= (const char *)data &&
			   nm < (const char *)data + size);
		size_t nl = strlen(nm);
		FUZZ_CHECK(nl > 0 && modes[i] < 010000000);
		used += (size_t)snprintf((char *)again + used, cap - used,
					 "%o %s", modes[i], nm) +
			1;
		FUZZ_CHECK(used + 20 <= cap);
		memcpy(again + used, ids[i].id, 20);
		used += 20;
	}
	int n2 = store_fuzz_parse_tree(modes2, names2, ids2, MAX, again, used);
	FUZZ_CHECK(n2 == n);
	for (int i = 0; i < n; i++)
		FUZZ_CHECK(modes2[i] == modes[i] &&
			   !strcmp(names2[i], names[i]) &&
			   git_oid_equal(&ids2[i], &ids[i]));
	free(again);
}

static void fuzz_commit(const uint8_t *data, size_t size, unsigned max)
{
	git_oid tree, parents[8];
	unsigned np = 99;
	char hex[GIT_OID_HEXSZ + 1];
	if (store_fuzz_parse_commit(&tree, parents, &np, max, data, size))
		return;
	FUZZ_CHECK(np <= max && size >= 46);
	git_oid_tostr(hex, sizeof hex, &tree);
	FUZZ_CHECK(!strncasecmp(hex, (const char *)data + 5, GIT_OID_HEXSZ));
	for (unsigned i = 0; i < np; i++) {
		const char *line = (const char *)data + 46 + 48 * i;
		FUZZ_CHECK(46 + 48 * (size_t)(i + 1) <= size);
		FUZZ_CHECK(!memcmp(line, "parent ", 7) && line[47] == '\n');
		git_oid_tostr(hex, sizeof hex, &parents[i]);
		FUZZ_CHECK(!strncasecmp(hex, line + 7, GIT_OID_HEXSZ));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const git_object_t types[4] = {GIT_OBJECT_COMMIT,
					      GIT_OBJECT_TREE, GIT_OBJECT_BLOB,
					      GIT_OBJECT_TAG};
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_loose(types[(data[0] >> 2) & 3], data + 1, size - 1);
		break;
	case 1:
		fuzz_tree(data + 1, size - 1);
		break;
	default:
		fuzz_commit(data + 1, size - 1, 1 + ((data[0] >> 2) & 7));
		break;
	}
	return 0;
}
