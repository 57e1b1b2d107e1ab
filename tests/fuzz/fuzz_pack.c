/*
 * fuzz_pack.c - reading packs and their indexes, and merging them
 * (store_pack_merge and read_entries in src/store/pack.c), as a sync
 * does once a repository holds more than 16 packs.
 *
 * Input: a byte of flags, then one or two packs, each as two chunks (the
 * .pack, then the .idx), a chunk being a 4-byte little-endian length and
 * that many bytes. The flags mend what a mutation would otherwise break
 * first: bit 0 sets each pack's trailer to the SHA-1 of its bytes, bit 1
 * copies that trailer into its index, bit 2 sets the index's own SHA-1.
 * Invariants: a merge that succeeds writes a pack whose index describes
 * it, holds each id of the sources once, and whose every OFS_DELTA points
 * back at the start of an entry; when libgit2 reads every object of the
 * sources (each id once per source, its hash checked, none over 1 MiB),
 * it reads every one from the merged pack too, with the same type and
 * bytes.
 */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <nettle/sha1.h>

#include "catan/store.h"
#include "fuzz.h"
#include "fuzz_internal.h"
#include "pack.h"

static char dir[700];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	git_libgit2_init();
	snprintf(dir, sizeof dir, "%s/pack", fuzz_scratch());
	mkdir(dir, 0777);
	return 0;
}

static void clear_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[1100];
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
}

static void sha1(unsigned char *out, const unsigned char *p, size_t n)
{
	struct sha1_ctx c;
	sha1_init(&c);
	sha1_update(&c, n, p);
	sha1_digest(&c, SHA1_DIGEST_SIZE, out);
}

typedef struct chunk {
	unsigned char *p;
	size_t len;
} chunk;

/* The next chunk of the input (a copy), or false at its end. */
static bool next_chunk(chunk *c, const uint8_t **data, size_t *size)
{
	if (*size < 4)
		return false;
	size_t n = (size_t)(*data)[0] | (size_t)(*data)[1] << 8 |
		   (size_t)(*data)[2] << 16 | (size_t)(*data)[3] << 24;
	*data += 4;
	*size -= 4;
	if (n > *size)
		n = *size;
	c->p = malloc(n ? n : 1);
	FUZZ_CHECK(c->p != NULL);
	memcpy(c->p, *data, n);
	c->len = n;
	*data += n;
	*size -= n;
	return true;
}

/* An object database of the one pack at idx_path, or NULL. */
static git_odb *odb_of(const char *idx_path)
{
	git_odb *odb = NULL;
	git_odb_backend *b = NULL;
	if (git_odb_new(&odb))
		return NULL;
	if (git_odb_backend_one_pack(&b, idx_path) ||
	    git_odb_add_backend(odb, b, 1)) {
		if (b)
			b->free(b);
		git_odb_free(odb);
		return NULL;
	}
	return odb;
}

#define MAXE 4096

typedef struct src {
	long n;
	uint64_t off[MAXE], end[MAXE];
	const unsigned char *id[MAXE];
} src;

static src srcs[2], merged;

static bool ids_unique(const src *s)
{
	for (long i = 0; i < s->n; i++)
		for (long j = 0; j < i; j++)
			if (!memcmp(s->id[i], s->id[j], 20))
				return false;
	return true;
}

static bool in_src(const src *s, long upto, const unsigned char *id)
{
	for (long i = 0; i < upto; i++)
		if (!memcmp(s->id[i], id, 20))
			return true;
	return false;
}

static bool in_offsets(const src *s, uint64_t at)
{
	for (long i = 0; i < s->n; i++)
		if (s->off[i] == at)
			return true;
	return false;
}

/*
 * Whether every entry of source k is one libgit2 may be asked to read:
 * a commit, tree, blob or tag of at most 1 MiB, or an OFS_DELTA whose
 * base is an entry of the same source. (libgit2 allocates what a header
 * claims, and follows a delta's base wherever it points; a game's
 * objects are far below 1 MiB.)
 */
static bool readable_entries(const src *s, const unsigned char *pack)
{
	for (long i = 0; i < s->n; i++) {
		const unsigned char *p = pack + s->off[i],
				    *end = pack + s->end[i];
		int type = (*p >> 4) & 7;
		uint64_t size = *p & 15u;
		int shift = 4;
		while (p < end && (*p++ & 0x80) && shift < 32) {
			if (p == end)
				return false;
			size |= (uint64_t)(*p & 127u) << shift;
			shift += 7;
		}
		if (type == 0 || type == 5 || type == 7 || size > (1u << 20) ||
		    shift >= 32)
			return false;
		if (type != 6)
			continue;
		uint64_t ofs = 0;
		unsigned char c = 0x80;
		for (int first = 1; p < end && (c & 0x80); first = 0) {
			c = *p++;
			ofs =
			    first ? (c & 127u) : ((ofs + 1) << 7) | (c & 127u);
		}
		if ((c & 0x80) || ofs == 0 || ofs > s->off[i] ||
		    !in_offsets(s, s->off[i] - ofs))
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	chunk pk[2] = {{0}}, ix[2] = {{0}};
	const char *stems[2] = {"pack-a", "pack-b"};
	char path[1100], name[GIT_OID_HEXSZ + 1];
	catan_err err;
	int n = 0;
	unsigned char *mp = NULL, *mi = NULL;
	size_t mplen = 0, milen = 0;
	git_odb *sodb[2] = {NULL, NULL}, *modb = NULL;
	if (size < 1)
		return 0;
	unsigned flags = data[0];
	data++;
	size--;
	clear_dir();
	while (n < 2 && next_chunk(&pk[n], &data, &size)) {
		if (!next_chunk(&ix[n], &data, &size)) {
			free(pk[n].p);
			pk[n].p = NULL;
			break;
		}
		if ((flags & 1) && pk[n].len >= 20)
			sha1(pk[n].p + pk[n].len - 20, pk[n].p, pk[n].len - 20);
		if ((flags & 2) && pk[n].len >= 20 && ix[n].len >= 40)
			memcpy(ix[n].p + ix[n].len - 40,
			       pk[n].p + pk[n].len - 20, 20);
		if ((flags & 4) && ix[n].len >= 20)
			sha1(ix[n].p + ix[n].len - 20, ix[n].p, ix[n].len - 20);
		snprintf(path, sizeof path, "%s/%s.pack", dir, stems[n]);
		FUZZ_CHECK(!fuzz_write_file(path, pk[n].p, pk[n].len));
		snprintf(path, sizeof path, "%s/%s.idx", dir, stems[n]);
		FUZZ_CHECK(!fuzz_write_file(path, ix[n].p, ix[n].len));
		n++;
	}
	if (n == 0)
		goto done;
	if (store_pack_merge(dir, stems, n, name, &err))
		goto done;

	/* The merged pack is described by its index. */
	long unique = 0;
	for (int k = 0; k < n; k++) {
		srcs[k].n = store_fuzz_pack_entries(
		    ix[k].p, ix[k].len, pk[k].p, pk[k].len, srcs[k].off,
		    srcs[k].end, srcs[k].id, MAXE);
		FUZZ_CHECK(srcs[k].n >= 0);
		if (srcs[k].n > MAXE)
			goto done; /* (more than this harness keeps) */
	}
	snprintf(path, sizeof path, "%s/pack-%s.pack", dir, name);
	mp = fuzz_read_file(path, &mplen);
	snprintf(path, sizeof path, "%s/pack-%s.idx", dir, name);
	mi = fuzz_read_file(path, &milen);
	FUZZ_CHECK(mp && mi);
	merged.n = store_fuzz_pack_entries(mi, milen, mp, mplen, merged.off,
					   merged.end, merged.id, MAXE);
	FUZZ_CHECK(merged.n >= 0 && merged.n <= MAXE);
	for (int k = 0; k < n; k++)
		for (long i = 0; i < srcs[k].n; i++) {
			bool before = in_src(&srcs[k], i, srcs[k].id[i]) ||
				      (k == 1 && in_src(&srcs[0], srcs[0].n,
							srcs[k].id[i]));
			unique += !before;
			FUZZ_CHECK(in_src(&merged, merged.n, srcs[k].id[i]));
		}
	FUZZ_CHECK(merged.n == unique && ids_unique(&merged));
	/* Every delta's base is an entry before it. */
	for (long i = 0; i < merged.n; i++) {
		const unsigned char *p = mp + merged.off[i],
				    *end = mp + merged.end[i];
		if (((*p >> 4) & 7) != 6)
			continue;
		while (p < end && (*p++ & 0x80))
			;
		uint64_t ofs = 0;
		unsigned char c = 0x80;
		for (int first = 1; p < end && (c & 0x80); first = 0) {
			c = *p++;
			ofs =
			    first ? (c & 127u) : ((ofs + 1) << 7) | (c & 127u);
		}
		FUZZ_CHECK(!(c & 0x80) && ofs > 0 && ofs <= merged.off[i]);
		bool at_entry = false;
		for (long j = 0; j < merged.n && !at_entry; j++)
			at_entry = merged.off[j] == merged.off[i] - ofs;
		FUZZ_CHECK(at_entry);
	}

	/* What libgit2 reads from the sources it reads from the merge. */
	for (int k = 0; k < n; k++) {
		snprintf(path, sizeof path, "%s/%s.idx", dir, stems[k]);
		if (!ids_unique(&srcs[k]) ||
		    !readable_entries(&srcs[k], pk[k].p) ||
		    !(sodb[k] = odb_of(path)))
			goto done;
		/* A delta's size as it will be: every header before any read.
		 */
		for (long i = 0; i < srcs[k].n; i++) {
			git_oid id;
			size_t len = 0;
			git_object_t type;
			git_oid_fromraw(&id, srcs[k].id[i]);
			if (git_odb_read_header(&len, &type, sodb[k], &id) ||
			    len > (1u << 20))
				goto done;
		}
		for (long i = 0; i < srcs[k].n; i++) {
			git_oid id;
			git_odb_object *o = NULL;
			git_oid_fromraw(&id, srcs[k].id[i]);
			if (git_odb_read(&o, sodb[k], &id))
				goto done;
			git_odb_object_free(o);
		}
	}
	snprintf(path, sizeof path, "%s/pack-%s.idx", dir, name);
	modb = odb_of(path);
	FUZZ_CHECK(modb != NULL);
	for (int k = 0; k < n; k++)
		for (long i = 0; i < srcs[k].n; i++) {
			git_oid id;
			git_odb_object *o = NULL, *m = NULL;
			git_oid_fromraw(&id, srcs[k].id[i]);
			FUZZ_CHECK(git_odb_read(&o, sodb[k], &id) == 0);
			FUZZ_CHECK(git_odb_read(&m, modb, &id) == 0);
			FUZZ_CHECK(
			    git_odb_object_type(o) == git_odb_object_type(m) &&
			    git_odb_object_size(o) == git_odb_object_size(m) &&
			    !memcmp(git_odb_object_data(o),
				    git_odb_object_data(m),
				    git_odb_object_size(o)));
			git_odb_object_free(o);
			git_odb_object_free(m);
		}
done:
	git_odb_free(modb);
	git_odb_free(sodb[0]);
	git_odb_free(sodb[1]);
	free(mp);
	free(mi);
	for (int k = 0; k < 2; k++) {
		free(pk[k].p);
		free(ix[k].p);
	}
	return 0;
}
