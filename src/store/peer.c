/*
 * peer.c - layer 6 (exchange): path remotes, read directly. A remote that is
 * a directory on this machine has its repository opened (once per handle)
 * and its objects read (loose files inflated here, with every size
 * checked, or through its object database); what is copied goes into the
 * stage, a pack written with its index before anything points at it.
 */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE /* struct dirent's d_type */

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
#include "fuzz_internal.h"

void store_sync_free(catan_store *s)
{
	for (int i = 0; i < s->npeers; i++) {
		git_odb_free(s->peers[i].odb);
		git_repository_free(s->peers[i].repo);
		free(s->peers[i].name);
		free(s->peers[i].path);
	}
	free(s->peers);
	s->peers = NULL;
	s->npeers = 0;
	store_pack_free(s->stage);
	s->stage = NULL;
	store_oidmap_free(&s->form_ok);
}

/* The directory a path or file:// URL names, or NULL (network URL). */
const char *store_local_dir(const char *url)
{
	struct stat sb;
	if (!url)
		return NULL;
	if (!strncmp(url, "file://", 7))
		url += 7;
	else if (strstr(url, "://"))
		return NULL;
	return stat(url, &sb) == 0 && S_ISDIR(sb.st_mode) ? url : NULL;
}

/* The open repository of path remote `name` at `path`, or NULL. */
store_peer *store_peer_open(catan_store *s, const char *name, const char *path)
{
	for (int i = 0; i < s->npeers; i++)
		if (!strcmp(s->peers[i].name, name) &&
		    !strcmp(s->peers[i].path, path))
			return &s->peers[i];
	store_peer pe = {strdup(name), strdup(path), NULL, NULL,
			 {{{0}}},      {0},	     {0},  {0}};
	store_peer *grown =
	    realloc(s->peers, sizeof *grown * (size_t)(s->npeers + 1));
	if (!pe.name || !pe.path || !grown ||
	    git_repository_open_ext(&pe.repo, path,
				    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) ||
	    git_repository_odb(&pe.odb, pe.repo)) {
		git_repository_free(pe.repo);
		free(pe.name);
		free(pe.path);
		if (grown)
			s->peers = grown;
		return NULL;
	}
	s->peers = grown;
	s->peers[s->npeers] = pe;
	return &s->peers[s->npeers++];
}

/*
 * The stage: a pack being written in memory (pack.h), with no deltas (a
 * sync brings a few turns; their bases are mostly on disk already, and a
 * pack on disk may only hold deltas against its own objects). The object
 * database never sees it: it is written with its index, then the database
 * rescanned, before anything refers to what it holds.
 */
int store_stage_init(catan_store *s)
{
	return s->stage ? 0 : store_pack_new_fast(&s->stage);
}

/* Forgets what the stage holds (nothing refers to it yet). */
void store_stage_drop(catan_store *s)
{
	store_pack_free(s->stage);
	s->stage = NULL;
}

/*
 * Writes the stage as one pack into objects/pack and empties it. Until it
 * returns, nothing points at the staged objects; a crash before that
 * leaves at most a temporary file. The pack's data is on disk, its names
 * not yet (s->pack_unnamed).
 */
int store_stage_flush(catan_store *s, catan_err *err)
{
	char dir[STORE_PATH_MAX];
	int rc = 0;
	if (!s->stage || store_pack_count(s->stage) == 0)
		return 0;
	if (store_path(dir, sizeof dir, "%sobjects/pack",
		       git_repository_path(s->repo)))
		rc = store_fail(err, "%sobjects/pack: path too long",
				git_repository_path(s->repo));
	else if (store_pack_write_ext(s->stage, dir, NULL, true, err))
		rc = -1;
	else {
		/*
		 * Its names reach the disk with the flush of the sync's
		 * write of packed-refs (lock file, reflog lines and these
		 * names at once), or store_pack_named before another ref
		 * points into it: one flush fewer per sync.
		 */
		s->pack_unnamed = true;
		git_odb_refresh(s->odb); /* the new pack */
	}
	store_stage_drop(s);
	s->packs_added = true;
	return rc;
}

void store_peer_obj_free(peer_obj *po)
{
	free(po->buf);
	git_odb_object_free(po->o);
	memset(po, 0, sizeof *po);
}

/*
 * Opens a file of a peer's repository for reading without ever blocking
 * or leaving it: O_NONBLOCK (a FIFO would wait for a writer for ever),
 * O_NOFOLLOW (no symlink out of the repository), and only a regular file
 * is kept (no FIFO, device, socket or directory). The descriptor, or -1
 * with errno (ENOENT when there is no such file; EINVAL when it is not a
 * regular file).
 */
int store_peer_open_file(const char *path)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENXIO)
			errno = EINVAL; /* a symlink, or a socket */
		return -1;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/*
 * Whether the files libgit2 itself opens in the peer's repository (it
 * opens them blocking, and follows symlinks) are plain: HEAD, config,
 * packed-refs, objects/info/alternates (refused outright: it points
 * elsewhere), and everything in objects/pack; and objects, objects/pack,
 * refs and refs/heads are directories, not symlinks. 0, or -1 and why.
 */
int store_peer_plain(const char *gitdir, char *why, size_t whylen)
{
	static const char *const files[] = {"HEAD", "config", "packed-refs",
					    "objects/info/alternates"};
	char path[STORE_PATH_MAX];
	struct stat sb;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		if (store_path(path, sizeof path, "%s/%s", gitdir, files[i]))
			goto too_long;
		if (lstat(path, &sb) && errno == ENOENT)
			continue;
		if (i == 3 || !S_ISREG(sb.st_mode)) {
			snprintf(why, whylen,
				 "%.300s is not a plain file of the "
				 "repository",
				 path);
			return -1;
		}
	}
	static const char *const dirs[] = {"objects", "objects/pack", "refs",
					   "refs/heads"};
	for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
		if (store_path(path, sizeof path, "%s/%s", gitdir, dirs[i]))
			goto too_long;
		if (lstat(path, &sb) && errno == ENOENT)
			continue;
		if (!S_ISDIR(sb.st_mode)) {
			snprintf(why, whylen,
				 "%.300s is not a directory of the "
				 "repository",
				 path);
			return -1;
		}
	}
	/* (fits: the loop above built it) */
	store_path(path, sizeof path, "%s/objects/pack", gitdir);
	DIR *d = opendir(path);
	struct dirent *e;
	int rc = 0;
	while (d && rc == 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		/* The directory's own word for its type when it has one (a
		 * name's type never changes: a FIFO put there is another
		 * entry, seen at the next check); else a look. */
		if (e->d_type == DT_REG)
			continue;
		if (store_path(path, sizeof path, "%s/objects/pack/%s", gitdir,
			       e->d_name)) {
			snprintf(why, whylen, "%.300s: path too long", gitdir);
			rc = -1;
		} else if (e->d_type != DT_UNKNOWN || lstat(path, &sb) ||
			   !S_ISREG(sb.st_mode)) {
			snprintf(why, whylen,
				 "%.300s is not a plain file of the "
				 "repository",
				 path);
			rc = -1;
		}
	}
	if (d)
		closedir(d);
	return rc;
too_long:
	snprintf(why, whylen, "%.300s: path too long", gitdir);
	return -1;
}

/*
 * Reads the loose object file of `id` in the peer's repository: zlib of
 * "<type> <size>\0" and the content. Returns 0; 1 when there is no such
 * file (the object may be packed); -1 when the file is unreadable or not
 * of `type`; -2 when it is not a regular file (peer_open_file); -3 when
 * it is over STORE_MAX_OBJECT (or its compressed form is).
 */
static int read_loose(store_peer *pe, const git_oid *id, git_object_t type,
		      peer_obj *po)
{
	char path[STORE_PATH_MAX], hex[GIT_OID_HEXSZ + 1];
	unsigned char z[STORE_MAX_OBJECT + 512];
	git_oid_tostr(hex, sizeof hex, id);
	if (store_path(path, sizeof path, "%sobjects/%.2s/%s",
		       git_repository_path(pe->repo), hex, hex + 2))
		return -1;
	if (!pe->fan_ok[id->id[0]]) {
		/* (O_NOFOLLOW covers the file, not its directory) */
		struct stat sb;
		path[strlen(path) - GIT_OID_HEXSZ + 1] = '\0';
		int st = lstat(path, &sb);
		path[strlen(path)] = '/';
		if (st)
			return errno == ENOENT ? 1 : -1;
		if (!S_ISDIR(sb.st_mode))
			return -2;
		pe->fan_ok[id->id[0]] = true;
	}
	int fd = store_peer_open_file(path);
	if (fd < 0)
		return errno == ENOENT ? 1 : errno == EINVAL ? -2 : -1;
	ssize_t n = read(fd, z, sizeof z);
	close(fd);
	if (n == (ssize_t)sizeof z)
		return -3; /* (a game's objects compress well below this) */
	if (n <= 0)
		return -1;
	const size_t room = STORE_MAX_OBJECT + 64;
	unsigned char *out = malloc(room + 1);
	z_stream st;
	memset(&st, 0, sizeof st);
	if (!out || inflateInit(&st) != Z_OK) {
		free(out);
		return -1;
	}
	st.next_in = z;
	st.avail_in = (uInt)n;
	st.next_out = out;
	st.avail_out = (uInt)room + 1;
	int zr = inflate(&st, Z_FINISH);
	size_t got = room + 1 - st.avail_out;
	inflateEnd(&st);
	const char *want = git_object_type2string(type);
	size_t wl = strlen(want);
	const unsigned char *nul = memchr(out, '\0', got < 32 ? got : 32);
	char *end = NULL;
	unsigned long long size =
	    nul && got > wl + 1 && !memcmp(out, want, wl) && out[wl] == ' '
		? strtoull((const char *)out + wl + 1, &end, 10)
		: 0;
	if (nul && end && end == (const char *)nul && size > STORE_MAX_OBJECT) {
		free(out);
		return -3;
	}
	if (zr != Z_STREAM_END || !nul || !end || end != (const char *)nul ||
	    size != got - (size_t)(nul + 1 - out)) {
		free(out);
		return -1;
	}
	po->buf = out;
	po->data = nul + 1;
	po->len = (size_t)size;
	return 0;
}

/*
 * Reads object `id` of type `type` from the peer: its loose file directly
 * (what the peer wrote itself is loose, and libgit2 would first look for
 * it in every pack, formatting an error for each), else through its object
 * database. Returns 0; 1 when it is missing, unreadable or of another
 * type; 2 when it is over `max` bytes (CATAN_SYNC_MAX_OBJECT); 3 when its
 * file is not a regular file (peer_open_file: a FIFO, a device, a
 * symlink).
 */
int store_peer_read(store_peer *pe, const git_oid *id, git_object_t type,
		    long max, peer_obj *po)
{
	size_t len = 0;
	git_object_t t;
	memset(po, 0, sizeof *po);
	int rc = read_loose(pe, id, type, po);
	if (rc == 0 || rc == -1)
		return -rc;
	if (rc == -2)
		return 3;
	if (git_odb_read_header(&len, &t, pe->odb, id) || t != type)
		return 1;
	if ((long long)len > (long long)max)
		return 2;
	if (git_odb_read(&po->o, pe->odb, id))
		return 1;
	po->data = git_odb_object_data(po->o);
	po->len = git_odb_object_size(po->o);
	if ((long long)po->len > (long long)max) {
		store_peer_obj_free(po);
		return 2;
	}
	return 0;
}

int store_fuzz_read_loose(git_repository *repo, const git_oid *id,
			  git_object_t type, unsigned char **buf,
			  const unsigned char **data, size_t *len)
{
	store_peer pe;
	memset(&pe, 0, sizeof pe);
	pe.repo = repo;
	peer_obj po = {0};
	int rc = read_loose(&pe, id, type, &po);
	*buf = po.buf;
	*data = po.data;
	*len = po.len;
	return rc;
}
