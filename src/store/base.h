/*
 * base.h - layer 0 of src/store: what every other file may use and which
 * itself uses nothing of the store. Errors into a catan_err, a growing
 * array, the limits a peer may make a sync spend and the clock they are
 * checked against, and the file-system steps (fsync, syncfs, claiming a
 * directory) that make writes durable. No git_repository handle here:
 * these work on paths and values.
 *
 * The layers of src/store, lowest first (spec/format.md, "Layers";
 * tests/store/layering.sh checks that no file includes a header of a
 * layer above its own, and that every file is named here):
 *   0 base     base.h base.c bytes.h oidmap.h oidmap.c fuzz_internal.h;
 *              the pure codec: codec.c codec_read.h codec_read.c
 *              codec_game.c codec_state.c
 *   1 leaves   sign.c (keys, signatures); net.h net.c ssh.c remote.c; http.h
 *              http.c http_ca.c http_tls.c http_quick.c http_fetch.c
 *              http_push.c; pack.h pack_internal.h pack.c pack_merge.c
 *              pack_history.c delta.c (the pack files)
 *   2 repo     repo.h repo.c lock.c odb.c refs.c packed_refs.c message.c
 *              graph.c verdict.c: the handle, locks, objects, refs,
 *              packed-refs, commit messages, ancestry, verdicts
 *   3 codec    state.h state.c fair.c commit.c: states as trees, the
 *              fair-dice chains, commits written
 *   4 log      act.c (commit an action, the discard fan-out, its merge);
 *              lobby.h lobby.c (a lobby's claims and start written)
 *   5 verify   verify.h verify_ctx.h form.c verify.c verify_fair.c
 *              verify_new.c verify_lobby.c (a lobby's claims and start)
 *   6 exchange exchange.h peer.c copy.c path_remote.c fetch.c
 *              quarantine.c adopt.c repack.c: fetch, path remotes, copy,
 *              quarantine, adopt
 *   7 top      sync.c store.c join.c gc.c hook.c watch.c keys.h keys.c
 *              http_serve.c (the public API; keys.h is shared by keys.c
 *              and store.c)
 */
#ifndef CATAN_STORE_BASE_H
#define CATAN_STORE_BASE_H

#include <stdbool.h>
#include <stddef.h>

#include <git2.h>

#include "catan/store.h"

/*
 * The largest object (commit, tree or blob) any reader of the store
 * accepts, and the ceiling of CATAN_SYNC_MAX_OBJECT: no object of a game
 * comes near it.
 */
#define STORE_MAX_OBJECT 65536

/*
 * The room of a commit message where form.c checks one: a message of this
 * many bytes or more is refused, whatever CATAN_SYNC_MAX_MESSAGE says.
 */
#define STORE_MAX_MESSAGE 1024

/*
 * What one peer may make a sync do (spec/replication.md, "Limits"): the
 * names are those of the environment variables that set them and of the
 * error messages that refuse work beyond them.
 */
#define STORE_MAX_PARENTS (CATAN_MAX_PLAYERS + 2) /* CATAN_SYNC_MAX_PARENTS */
/* The defaults of the limits the environment may set (store_limits). */
#define STORE_DEFAULT_COMMITS	  10000 /* CATAN_SYNC_MAX_COMMITS */
#define STORE_DEFAULT_MESSAGE	  512	/* CATAN_SYNC_MAX_MESSAGE */
#define STORE_DEFAULT_FETCH_BYTES (16L * 1024 * 1024) /* ..._FETCH_BYTES */
#define STORE_DEFAULT_REMOTE_MS	  20000		      /* CATAN_SYNC_REMOTE_MS */
typedef struct store_limits {
	long commits;	  /* CATAN_SYNC_MAX_COMMITS: new per remote */
	long message;	  /* CATAN_SYNC_MAX_MESSAGE: bytes of a message */
	long object;	  /* CATAN_SYNC_MAX_OBJECT: bytes of any object */
	long fetch_bytes; /* CATAN_SYNC_MAX_FETCH_BYTES: one fetch */
	long remote_ms;	  /* CATAN_SYNC_REMOTE_MS: time per remote */
} store_limits;

/*
 * The limits of the sync under way, and when the time of the remote
 * being synced is up (CLOCK_MONOTONIC, ms; 0: no deadline).
 */
typedef struct store_budget {
	store_limits lim;
	double deadline_ms;
} store_budget;

/* The limits as the environment sets them (defaults otherwise). */
void store_limits_read(store_limits *out);
/* CLOCK_MONOTONIC in ms. */
double store_now_ms(void);
/* Whether the remote being synced is past its CATAN_SYNC_REMOTE_MS. */
bool store_past_deadline(const store_budget *b);

/* Fills err with a formatted sentence, code CATAN_STORE_E_FAILED; -1. */
int store_fail(catan_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same with the code given (a catan_error or a catan_store_code). */
int store_fail_code(catan_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/*
 * "what: <libgit2's last error>"; returns -1. The code from libgit2's
 * error class: the network's (net, ssh, http, ssl, callbacks) is
 * CATAN_STORE_E_NETWORK, any other CATAN_STORE_E_FAILED.
 */
int store_git_fail(catan_err *err, const char *what);
/* The same for a call that returned rc: GIT_ENOTFOUND is not-found,
 * GIT_ELOCKED locked, GIT_EMISMATCH (an object whose bytes do not hash
 * to its id) corrupt, otherwise as store_git_fail. */
int store_git_fail_rc(catan_err *err, int rc, const char *what);
/* Sets err's code (err may be NULL); returns -1. */
int store_code(catan_err *err, int code);
/*
 * The code of a failed system call's errno: EACCES, EPERM and EROFS are
 * denied, ENOENT not-found, EEXIST locked (a lock file someone holds),
 * anything else (ENOSPC, EIO, ...) failed.
 */
int store_errno_code(int e);

/*
 * Room for `need` elements of `elem` bytes in the array `a` of capacity
 * *cap: `a` itself when it has the room, else a larger copy (at least
 * double, at least `need`, at least 16) with *cap updated; NULL when out
 * of memory, `a` and *cap then untouched.
 */
void *store_reserve(void *a, size_t *cap, size_t need, size_t elem);

/* The hex of id into out (NULL: nothing). Cannot fail. */
void store_oid_hex(catan_commit_id *out, const git_oid *id);

/*
 * What a peer serves besides its branches: the two children of the
 * equivocation it recorded (verdict.c), so that peers shown different
 * children come to hold the same record (spec/replication.md,
 * "Equivocation"). Fetched, they are kept under refs/catan/evidence/
 * <remote>/a and /b.
 */
#define STORE_EVIDENCE_REF "refs/catan/equivocation-"

/* The name of evidence ref k (0: -a, 1: -b). Cannot fail. */
const char *store_evidence_name(int k);

/*
 * Which evidence ref the len bytes at ref name (not NUL-terminated): 0
 * for refs/catan/equivocation-a, 1 for -b; else -1.
 */
int store_evidence_index(const char *ref, size_t len);

/*
 * Where a fetch from remote `remote` keeps ref `ref` of it: a branch
 * refs/heads/X as refs/remotes/<remote>/X, the evidence refs
 * (STORE_EVIDENCE_REF a and b) as refs/catan/evidence/<remote>/a and /b;
 * into out[size]. False for any other ref (not fetched) or when the name
 * does not fit.
 */
bool store_tracking_ref(char *out, size_t size, const char *remote,
			const char *ref);

/*
 * The room of a path buffer: the longest path the kernel takes (PATH_MAX
 * on Linux), its NUL included.
 */
#define STORE_PATH_MAX 4096

/*
 * Formats a path into out[size]. 0; or -1 with errno ENAMETOOLONG when it
 * does not fit, out then the empty string: a call with it fails (ENOENT)
 * rather than reach a file the truncated name would.
 */
int store_path(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Makes way for a new repository at `path`: nothing there, or an empty
 * directory (removed). Otherwise -1 and err says why, ending "refusing to
 * <what>".
 */
int store_claim_dir(const char *path, const char *what, catan_err *err);

/*
 * fsync of the directory `dir`, after a file in it was created or renamed:
 * the entry itself survives a power loss then. Returns 0 or -1 (errno).
 */
int store_fsync_dir(const char *dir);

/* Removes the file or directory tree at path (not following links), as
 * far as it can. */
void store_remove_tree(const char *path);
/* Removes every entry of folder dir whose name begins with prefix, as
 * store_remove_tree does. */
void store_remove_named(const char *dir, const char *prefix);

/*
 * Whether commit `old` is `desc` or one of its ancestors: 1 yes, 0 no;
 * -2 when a commit on the way is not in the object database (a pack left
 * it out, or no one has it), -1 when one cannot be read otherwise (not a
 * commit). A fetch or a push moves a ref a few commits on,
 * so the parents of desc are walked first, breadth first, for up to 64
 * commits; only a longer history goes to libgit2's merge-base search
 * (which reads it all: 11% of a relay peer's CPU when every check went
 * there).
 */
int store_descends(git_repository *repo, const git_oid *desc,
		   const git_oid *old);

/* syncfs of the file system holding the directory dir. 0 or -1 (errno). */
int store_syncfs_dir(const char *dir);

/*
 * Every file and directory of the new repository at path, and the
 * directory holding it, on disk (one syncfs, and an fsync of that
 * directory when it is on another file system): what libgit2 writes when
 * it makes a repository (HEAD, config) is not fsync'ed, and a repository
 * made by create or join is reported done. Returns 0, or -1 with err.
 */
int store_fsync_repo(const char *path, catan_err *err);

/*
 * Removes what repository init copied from git's template (sample hooks,
 * info/, description, empty refs/tags and objects/info): a game uses none.
 */
void store_drop_template(const char *gitdir);

/*
 * Appends a line (formatted) to rep->log, as much of it as fits; nothing
 * when the log is full. Cannot fail.
 */
void store_note(catan_sync_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
