/*
 * http.c - layer 1 (leaves): what an https:// remote needs around libgit2
 * 1.5: the login, the certificate authorities, and errors that say what
 * went wrong.
 *
 * libgit2 does TLS itself (mbedTLS in Debian 12) over our TCP stream
 * (net.c), so https connections have the same time limits as git://.
 * What it leaves to its caller:
 *
 *   - The login (HTTP basic authentication), asked for by the credential
 *     callback when the server answers 401. Taken, as git users keep it,
 *     from CATAN_HTTP_TOKEN (the password or access token; the user name
 *     from CATAN_HTTP_USER, else the URL's, else "catan"), else from
 *     `git credential fill`, so that any credential helper the player has
 *     configured for git works here too; a login that helper gave and the
 *     server took is confirmed to it (`git credential approve`), one the
 *     server refused is withdrawn (`reject`). Never on the command line,
 *     never in the repository's config: a URL that holds a password is
 *     refused before it is stored (store_url_check). A login given once is
 *     kept for the process (a peer fetches every few seconds), not asked
 *     for again.
 *   - Which certificate authorities to trust, as git decides it:
 *     GIT_SSL_CAINFO, else http.sslCAInfo from the config, else
 *     SSL_CERT_FILE, else the system's (GIT_SSL_CAPATH, http.sslCAPath,
 *     SSL_CERT_DIR for a folder).
 *   - A sentence, naming host and port, for a refused certificate (not for
 *     this name, not signed by an authority trusted here, expired) and for
 *     a refused login.
 *
 * The same login and authorities serve the requests the store makes
 * itself over a connection it keeps (http_tls.c): store_http_auth and
 * store_http_ca_paths.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mbedtls/base64.h>

#include "http.h"

extern char **environ;

/* ---- the URL ---- */

/* The [user[:password]@] part of an http(s):// URL, if any: its length. */
static size_t userinfo_len(const char *url, const char **start)
{
	const char *rest = NULL;
	if (!strncmp(url, "https://", 8))
		rest = url + 8;
	else if (!strncmp(url, "http://", 7))
		rest = url + 7;
	if (!rest)
		return 0;
	size_t host = strcspn(rest, "/?#");
	const char *at = memchr(rest, '@', host);
	if (!at)
		return 0;
	/* (the last @ before the path: a user name may hold an encoded one) */
	for (const char *p = at; p < rest + host; p++)
		if (*p == '@')
			at = p;
	*start = rest;
	return (size_t)(at - rest);
}

int store_url_check(const char *url, catan_err *err)
{
	const char *ui = NULL;
	size_t len = userinfo_len(url, &ui);
	if (len && memchr(ui, ':', len))
		return store_fail(
		    err,
		    "the URL holds a password, which would be kept in clear "
		    "in the repository's config: give the URL without it, "
		    "and the password through a git credential helper (git "
		    "config --global credential.helper ...) or "
		    "CATAN_HTTP_TOKEN");
	return 0;
}

static pthread_mutex_t http_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- the login ---- */

/*
 * Logins given by `git credential fill`, kept for the process: one per
 * protocol://host[:port]/path.
 */
typedef struct login {
	char key[600];
	char user[256];
	char pass[256];
	bool approved;
	struct login *next;
} login;
static login *logins;

void store_http_wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;
	while (n--)
		*v++ = 0;
}

/*
 * Runs `git credential ACTION` with `in` on its standard input and
 * reads its standard output into out (NUL-terminated; may be NULL).
 * No terminal prompt; given up after 10 s. 0 when git said yes.
 */
static int run_credential(const char *action, const char *in, char *out,
			  size_t n)
{
	int to[2], from[2];
	if (pipe(to))
		return -1;
	if (pipe(from)) {
		close(to[0]);
		close(to[1]);
		return -1;
	}
	fcntl(to[1], F_SETFD, FD_CLOEXEC);
	fcntl(from[0], F_SETFD, FD_CLOEXEC);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, to[0], 0);
	posix_spawn_file_actions_adddup2(&fa, from[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* The child's environment: ours, without a terminal prompt. */
	size_t ne = 0;
	while (environ[ne])
		ne++;
	char **env = calloc(ne + 2, sizeof *env);
	pid_t pid = -1;
	if (env) {
		size_t k = 0;
		for (size_t i = 0; i < ne; i++)
			if (strncmp(environ[i], "GIT_TERMINAL_PROMPT=", 20))
				env[k++] = environ[i];
		env[k++] = "GIT_TERMINAL_PROMPT=0";
		env[k] = NULL;
		char *argv[] = {"git", "credential", (char *)action, NULL};
		if (posix_spawnp(&pid, "git", &fa, NULL, argv, env))
			pid = -1;
		free(env);
	}
	posix_spawn_file_actions_destroy(&fa);
	close(to[0]);
	close(from[1]);
	if (pid < 0) {
		close(to[1]);
		close(from[0]);
		return -1;
	}
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	size_t inlen = strlen(in), off = 0, got = 0;
	bool ok = true;
	for (; off < inlen;) {
		ssize_t w = write(to[1], in + off, inlen - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			ok = false;
			break;
		}
		off += (size_t)w;
	}
	close(to[1]);
	signal(SIGPIPE, old);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ok) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left = 10000 - ((t.tv_sec - t0.tv_sec) * 1000 +
				     (t.tv_nsec - t0.tv_nsec) / 1000000);
		struct pollfd pfd = {from[0], POLLIN, 0};
		int r = left > 0 ? poll(&pfd, 1, (int)left) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ok = false; /* (a helper that hangs) */
			kill(pid, SIGKILL);
			break;
		}
		char drop[256];
		char *into = out && got + 1 < n ? out + got : drop;
		size_t room = out && got + 1 < n ? n - 1 - got : sizeof drop;
		ssize_t rd = read(from[0], into, room);
		if (rd < 0 && errno == EINTR)
			continue;
		if (rd <= 0)
			break;
		if (into != drop)
			got += (size_t)rd;
	}
	close(from[0]);
	if (out && n)
		out[got] = '\0';
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The protocol=, host= and path= lines of url (what git credential wants). */
static bool credential_text(char *buf, size_t n, const char *url,
			    const char *user)
{
	const char *rest = !strncmp(url, "https://", 8)	 ? url + 8
			   : !strncmp(url, "http://", 7) ? url + 7
							 : NULL;
	if (!rest)
		return false;
	size_t proto = (size_t)(rest - 3 - url);
	const char *ui = NULL;
	size_t ul = userinfo_len(url, &ui);
	if (ul)
		rest += ul + 1;
	size_t hl = strcspn(rest, "/?#");
	const char *path = rest + hl;
	if (*path == '/')
		path++;
	size_t pl = strcspn(path, "?#");
	int k = snprintf(buf, n, "protocol=%.*s\nhost=%.*s\npath=%.*s\n",
			 (int)proto, url, (int)hl, rest, (int)pl, path);
	if (k < 0 || (size_t)k >= n)
		return false;
	if (user && *user && !strchr(user, '\n')) {
		int j = snprintf(buf + k, n - (size_t)k, "username=%s\n", user);
		if (j < 0 || (size_t)j >= n - (size_t)k)
			return false;
	}
	return true;
}

static void line_value(const char *text, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	out[0] = '\0';
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(out, n, "%.*s", (int)(len - kl - 1),
				 p + kl + 1);
			return;
		}
		p = nl ? nl + 1 : NULL;
	}
}

static void login_key(char *key, size_t n, const char *url)
{
	char text[600];
	if (!credential_text(text, sizeof text, url, NULL))
		text[0] = '\0';
	snprintf(key, n, "%s", text);
}

/* The kept login for url, or NULL; holds http_mu. */
static login *login_find(const char *url)
{
	char key[600];
	login_key(key, sizeof key, url);
	for (login *l = logins; l; l = l->next)
		if (!strcmp(l->key, key))
			return l;
	return NULL;
}

/* Tells the helper (approve or reject) about the login kept for url. */
static void login_tell(const char *url, const char *action)
{
	char in[1200];
	pthread_mutex_lock(&http_mu);
	login *l = login_find(url);
	bool go = l && (strcmp(action, "approve") || !l->approved);
	if (go) {
		char text[600];
		go = credential_text(text, sizeof text, url, l->user) &&
		     snprintf(in, sizeof in, "%spassword=%s\n\n", text,
			      l->pass) < (int)sizeof in;
		store_http_wipe(text, sizeof text);
		if (!strcmp(action, "approve"))
			l->approved = true;
		else {
			/* (forgotten: asked for again next time) */
			for (login **p = &logins; *p; p = &(*p)->next)
				if (*p == l) {
					*p = l->next;
					break;
				}
			store_http_wipe(l, sizeof *l);
			free(l);
		}
	}
	pthread_mutex_unlock(&http_mu);
	if (go)
		run_credential(action, in, NULL, 0);
	store_http_wipe(in, sizeof in);
}

int store_http_login(git_credential **out, store_ssh *st, const char *url,
		     const char *user_from_url)
{
	const char *token = getenv("CATAN_HTTP_TOKEN");
	const char *envuser = getenv("CATAN_HTTP_USER");
	const char *user = envuser && *envuser		     ? envuser
			   : user_from_url && *user_from_url ? user_from_url
							     : NULL;
	if (st->http_tries++ > 0) {
		/* The server refused the login it was given. */
		if (st->login_from == LOGIN_HELPER)
			login_tell(url, "reject");
		snprintf(st->why, sizeof st->why,
			 "https: %.100s port %s refused the login of \"%.60s\" "
			 "(%s): wrong user name, password or token",
			 st->host, st->port_s, st->user,
			 st->login_from == LOGIN_TOKEN ? "from CATAN_HTTP_TOKEN"
						       : "from git credential");
		return GIT_EUSER;
	}
	if (token && *token) {
		snprintf(st->user, sizeof st->user, "%s",
			 user ? user : "catan");
		st->login_from = LOGIN_TOKEN;
		return git_credential_userpass_plaintext_new(out, st->user,
							     token);
	}
	pthread_mutex_lock(&http_mu);
	login *l = login_find(url);
	if (l) {
		snprintf(st->user, sizeof st->user, "%s", l->user);
		st->login_from = LOGIN_HELPER;
		int rc = git_credential_userpass_plaintext_new(out, l->user,
							       l->pass);
		pthread_mutex_unlock(&http_mu);
		return rc;
	}
	pthread_mutex_unlock(&http_mu);
	char in[800], got[1200], pass[256];
	int rc = GIT_EUSER;
	if (credential_text(in, sizeof in, url, user) &&
	    strlen(in) + 2 < sizeof in) {
		strcat(in, "\n");
		if (run_credential("fill", in, got, sizeof got) == 0) {
			line_value(got, "username", st->user, sizeof st->user);
			line_value(got, "password", pass, sizeof pass);
			if (st->user[0] && pass[0]) {
				st->login_from = LOGIN_HELPER;
				rc = git_credential_userpass_plaintext_new(
				    out, st->user, pass);
				login *nl = calloc(1, sizeof *nl);
				pthread_mutex_lock(&http_mu);
				if (nl && !login_find(url)) {
					login_key(nl->key, sizeof nl->key, url);
					snprintf(nl->user, sizeof nl->user,
						 "%s", st->user);
					snprintf(nl->pass, sizeof nl->pass,
						 "%s", pass);
					nl->next = logins;
					logins = nl;
					nl = NULL;
				}
				pthread_mutex_unlock(&http_mu);
				free(nl);
			}
		}
		store_http_wipe(got, sizeof got);
		store_http_wipe(pass, sizeof pass);
	}
	if (rc == GIT_EUSER)
		snprintf(st->why, sizeof st->why,
			 "https: %.100s port %s asks for a login, and none was "
			 "given: set CATAN_HTTP_TOKEN (and CATAN_HTTP_USER), "
			 "or store it with a git credential helper (git config "
			 "--global credential.helper store, then git "
			 "credential approve)",
			 st->host, st->port_s);
	return rc;
}

void store_http_done(const store_ssh *st, const char *url)
{
	if (st->https && st->login_from == LOGIN_HELPER && url)
		login_tell(url, "approve");
}

/* ---- the callbacks' set-up and the errors ---- */

void store_http_prepare(store_ssh *st, git_repository *repo, const char *url)
{
	char host[256], port[8];
	bool tls = url && !strncmp(url, "https://", 8);
	if (!url || (!tls && strncmp(url, "http://", 7)) ||
	    !store_url_endpoint(url, host, sizeof host, port, sizeof port))
		return;
	st->https = true; /* (http:// too: the login is the same) */
	snprintf(st->host, sizeof st->host, "%s", host);
	snprintf(st->port_s, sizeof st->port_s, "%s", port);
	if (tls)
		store_http_choose_ca(st, repo);
}

bool store_http_why(const store_ssh *st, char *buf, size_t n)
{
	const git_error *e = git_error_last();
	const char *msg = e && e->message ? e->message : "";
	if (!st->https)
		return false;
	if (st->ca_why[0]) {
		snprintf(buf, n, "%s", st->ca_why);
		return true;
	}
	const char *bad = strstr(msg, "certificate is invalid: ");
	if (!bad)
		return false;
	/* mbedTLS's flags (MBEDTLS_X509_BADCERT_*): 0x04 the name, 0x08
	 * not trusted, 0x01 expired, 0x200 not yet valid. */
	unsigned long flags = strtoul(bad + 24, NULL, 16);
	const char *text = strstr(bad, " - ");
	text = text ? text + 3 : msg;
	char reason[300];
	if (flags & 0x04)
		snprintf(reason, sizeof reason,
			 "its certificate is not for the name %.100s",
			 st->host);
	else if (flags & 0x08)
		snprintf(reason, sizeof reason,
			 "its certificate is not signed by an authority "
			 "trusted here (%.200s)",
			 st->ca);
	else if (flags & 0x01)
		snprintf(reason, sizeof reason, "its certificate has expired");
	else if (flags & 0x200)
		snprintf(reason, sizeof reason,
			 "its certificate is not valid yet");
	else
		snprintf(reason, sizeof reason, "its certificate was refused");
	snprintf(buf, n, "https: refusing %.100s port %s: %s (%.150s)",
		 st->host, st->port_s, reason, text);
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return true;
}

/* ---- for the requests made outside libgit2 (http_tls.c, http_quick.c) ---- */

bool store_http_auth(const char *url, char *auth, size_t n)
{
	char plain[520];
	const char *token = getenv("CATAN_HTTP_TOKEN");
	const char *envuser = getenv("CATAN_HTTP_USER");
	const char *ui = NULL;
	size_t ul = userinfo_len(url, &ui);
	char user[256] = "";
	if (ul && memchr(ui, '@', ul) == NULL)
		snprintf(user, sizeof user, "%.*s", (int)ul, ui);
	plain[0] = '\0';
	if (token && *token) {
		snprintf(plain, sizeof plain, "%s:%s",
			 envuser && *envuser ? envuser
			 : user[0]	     ? user
					     : "catan",
			 token);
	} else {
		pthread_mutex_lock(&http_mu);
		login *l = login_find(url);
		if (l)
			snprintf(plain, sizeof plain, "%s:%s", l->user,
				 l->pass);
		pthread_mutex_unlock(&http_mu);
	}
	size_t al = 0;
	bool ok =
	    plain[0] && mbedtls_base64_encode((unsigned char *)auth, n, &al,
					      (const unsigned char *)plain,
					      strlen(plain)) == 0;
	store_http_wipe(plain, sizeof plain);
	return ok;
}
