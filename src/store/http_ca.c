/*
 * http_ca.c - layer 1 (leaves): which certificate authorities an https://
 * remote is checked against, as git decides it: GIT_SSL_CAINFO, else
 * http.sslCAInfo from the config, else SSL_CERT_FILE, else the system's
 * (GIT_SSL_CAPATH, http.sslCAPath, SSL_CERT_DIR for a folder); told to
 * libgit2 (store_http_choose_ca) and to our own TLS (store_http_ca_paths,
 * http_tls.c).
 *
 * And when they are parsed: libgit2 1.5 (with mbedTLS) parses Debian's
 * bundle of some 140 certificates in every git_libgit2_init, about 54
 * million instructions (10 ms), a cost every catan process paid, the
 * pre-receive hook on every push included, though most never open an
 * https connection. store_git_init starts libgit2 without it: while it
 * runs, on its thread, mbedtls_x509_crt_parse_file (defined here, so
 * libgit2's call comes here first; every other call goes on to
 * mbedTLS's own) only notes the file; the first https remote then gives
 * libgit2 the system's authorities itself (store_http_choose_ca).
 */
#define _GNU_SOURCE /* RTLD_NEXT */

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <mbedtls/x509_crt.h>

#include "http.h"

/* ---- libgit2 started without the system's authorities ---- */

static _Thread_local bool in_init; /* store_git_init under way here */
static bool ca_deferred;	   /* libgit2 was kept from reading them */
static char ca_deferred_path[STORE_PATH_MAX]; /* the file it asked for */

int mbedtls_x509_crt_parse_file(mbedtls_x509_crt *chain, const char *path);
int mbedtls_x509_crt_parse_file(mbedtls_x509_crt *chain, const char *path)
{
	static int (*real)(mbedtls_x509_crt *, const char *);
	if (in_init) {
		ca_deferred = true;
		/* (too long: "", which no file is) */
		store_path(ca_deferred_path, sizeof ca_deferred_path, "%s",
			   path ? path : "");
		return 0;
	}
	if (!real)
		real = (int (*)(mbedtls_x509_crt *, const char *))dlsym(
		    RTLD_NEXT, "mbedtls_x509_crt_parse_file");
	return real ? real(chain, path) : -1;
}

int store_git_init(void)
{
	in_init = true;
	int rc = git_libgit2_init();
	in_init = false;
	return rc;
}

/* ---- the authorities ---- */

static pthread_mutex_t ca_mu = PTHREAD_MUTEX_INITIALIZER;

/* The configured value of key (repository, global, system), into buf. */
static bool config_string(git_repository *repo, const char *key, char *buf,
			  size_t n)
{
	git_config *cfg = NULL;
	git_buf b = {NULL, 0, 0};
	bool got = false;
	if ((repo ? git_repository_config_snapshot(&cfg, repo)
		  : git_config_open_default(&cfg)) == 0 &&
	    git_config_get_string_buf(&b, cfg, key) == 0 && b.ptr && *b.ptr) {
		snprintf(buf, n, "%s", b.ptr);
		got = true;
	}
	git_buf_dispose(&b);
	git_config_free(cfg);
	return got;
}

/*
 * The authorities libgit2 was last told (GIT_OPT_SET_SSL_CERT_LOCATIONS):
 * parsing them is the dearest step of a connection (the system's folder
 * holds some 140 certificates: tens of milliseconds), and a peer connects
 * every few hundred milliseconds, so they are given again only when the
 * file or folder named, or the file's contents (its size, time, inode),
 * changed. libgit2 drops them when its last user shuts it down: the first
 * choice pins it (one git_libgit2_init never undone), which also spares
 * every later store its TLS set-up (the system's authorities read again).
 */
static struct {
	bool set; /* libgit2 holds file/dir, not its defaults */
	char file[512], dir[512];
	struct stat st;
} ca_given;

static void ca_stat(const char *file, struct stat *st)
{
	memset(st, 0, sizeof *st);
	if (file[0] && stat(file, st))
		memset(st, 0, sizeof *st);
}

static bool ca_same(const char *file, const char *dir, const struct stat *st)
{
	return !strcmp(ca_given.file, file) && !strcmp(ca_given.dir, dir) &&
	       ca_given.st.st_size == st->st_size &&
	       ca_given.st.st_ino == st->st_ino &&
	       ca_given.st.st_mtim.tv_sec == st->st_mtim.tv_sec &&
	       ca_given.st.st_mtim.tv_nsec == st->st_mtim.tv_nsec;
}

/* Picks the CA file or folder as git would; tells libgit2 when it changed. */
void store_http_choose_ca(store_ssh *st, git_repository *repo)
{
	char file[512] = "", dir[512] = "";
	const char *from = NULL, *env;
	if ((env = getenv("GIT_SSL_CAINFO")) && *env) {
		snprintf(file, sizeof file, "%s", env);
		from = "GIT_SSL_CAINFO";
	} else if (config_string(repo, "http.sslCAInfo", file, sizeof file)) {
		from = "http.sslCAInfo";
	} else if ((env = getenv("SSL_CERT_FILE")) && *env) {
		snprintf(file, sizeof file, "%s", env);
		from = "SSL_CERT_FILE";
	}
	if ((env = getenv("GIT_SSL_CAPATH")) && *env)
		snprintf(dir, sizeof dir, "%s", env);
	else if (!config_string(repo, "http.sslCAPath", dir, sizeof dir) &&
		 (env = getenv("SSL_CERT_DIR")) && *env)
		snprintf(dir, sizeof dir, "%s", env);
	static bool pinned;
	pthread_mutex_lock(&ca_mu);
	if (!pinned)
		pinned = git_libgit2_init() > 0;
	pthread_mutex_unlock(&ca_mu);
	if (!file[0] && !dir[0]) {
		snprintf(st->ca, sizeof st->ca, "the system's authorities");
		/* Back to the system's after others were given (in a process
		 * that syncs with several hosts), or the first time when
		 * store_git_init kept libgit2 from reading them at its start:
		 * Debian's bundle. */
		pthread_mutex_lock(&ca_mu);
		/* The file libgit2 asked for at its start (its built-in
		 * default), else Debian's. */
		const char *sys = ca_deferred_path[0]
				      ? ca_deferred_path
				      : "/etc/ssl/certs/ca-certificates.crt";
		if ((ca_given.set || ca_deferred) &&
		    !git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS, sys,
				      NULL)) {
			memset(&ca_given, 0, sizeof ca_given);
			ca_deferred = false;
		}
		pthread_mutex_unlock(&ca_mu);
		return;
	}
	if (file[0])
		snprintf(st->ca, sizeof st->ca, "%.400s (%s)", file, from);
	else
		snprintf(st->ca, sizeof st->ca, "%.400s", dir);
	struct stat fs;
	ca_stat(file, &fs);
	pthread_mutex_lock(&ca_mu);
	if (ca_given.set && ca_same(file, dir, &fs)) {
		pthread_mutex_unlock(&ca_mu);
		return;
	}
	if (git_libgit2_opts(GIT_OPT_SET_SSL_CERT_LOCATIONS,
			     file[0] ? file : NULL, dir[0] ? dir : NULL)) {
		const git_error *e = git_error_last();
		snprintf(st->ca_why, sizeof st->ca_why,
			 "https: cannot load the certificate authorities of "
			 "%.400s: %.200s",
			 st->ca, e && e->message ? e->message : "unreadable");
		/* (what libgit2 holds now is unknown: given again next time) */
		memset(&ca_given, 0, sizeof ca_given);
		ca_given.set = true;
	} else {
		ca_given.set = true;
		ca_deferred = false;
		snprintf(ca_given.file, sizeof ca_given.file, "%s", file);
		snprintf(ca_given.dir, sizeof ca_given.dir, "%s", dir);
		ca_given.st = fs;
	}
	pthread_mutex_unlock(&ca_mu);
}

void store_http_ca_paths(git_repository *repo, char *file, char *dir)
{
	const char *env;
	file[0] = dir[0] = '\0';
	if ((env = getenv("GIT_SSL_CAINFO")) && *env)
		snprintf(file, 512, "%s", env);
	else if (!config_string(repo, "http.sslCAInfo", file, 512) &&
		 (env = getenv("SSL_CERT_FILE")) && *env)
		snprintf(file, 512, "%s", env);
	if ((env = getenv("GIT_SSL_CAPATH")) && *env)
		snprintf(dir, 512, "%s", env);
	else if (!config_string(repo, "http.sslCAPath", dir, 512) &&
		 (env = getenv("SSL_CERT_DIR")) && *env)
		snprintf(dir, 512, "%s", env);
	if (!file[0] && !dir[0])
		snprintf(file, 512, "/etc/ssl/certs/ca-certificates.crt");
}
