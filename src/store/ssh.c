/*
 * ssh.c - what an ssh:// remote needs that libgit2 1.5 leaves to its
 * caller: a key to log in with, and a check of the server's host key.
 *
 * libgit2 1.5.0 accepted any host key unless a certificate callback said
 * otherwise. 1.5.1, as Debian 12 installs it, fixed that (CVE-2023-22742,
 * libgit2 pull request 6449: without a callback, the host key is checked
 * against ~/.ssh/known_hosts), but it still only reads that one file, and
 * a callback, which overrides that check, is not told the port (pull
 * request 6503, in a later release) or why a key failed. What this file
 * keeps is what 1.5.1 still lacks: a known_hosts file of the player's
 * choosing (CATAN_SSH_KNOWN_HOSTS), [host]:port entries for a peer on
 * another port than 22, an error that says whether the host is unknown or
 * its key changed and how to add it, and the keys to log in with. Host
 * keys are checked here against
 * OpenSSH's known_hosts file with libssh2's own parser (the library
 * libgit2 uses for ssh), hashed host names and [host]:port entries
 * included. An unknown host or a changed key refuses the connection; the
 * error says which and how to add the key (StrictHostKeyChecking=yes).
 *
 * Keys, tried in this order, each once:
 *   CATAN_SSH_KEY (a private key file; CATAN_SSH_PASSPHRASE if it has one),
 *   the ssh agent (SSH_AUTH_SOCK),
 *   ~/.ssh/id_ed25519, ~/.ssh/id_ecdsa, ~/.ssh/id_rsa.
 * Known hosts: CATAN_SSH_KNOWN_HOSTS, else ~/.ssh/known_hosts.
 * The same callbacks serve https:// remotes: their login and certificate
 * errors are http.c's.
 */
#define _POSIX_C_SOURCE 200809L

#include <libssh2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net.h"

enum { TRY_ENV, TRY_AGENT, TRY_ED25519, TRY_ECDSA, TRY_RSA, TRY_DONE };

static const char *const default_keys[] = {"id_ed25519", "id_ecdsa", "id_rsa"};

/*
 * Host and port of a network URL (git://, ssh://, http(s)://, written
 * [user@]host[:port] or [v6]:port after the scheme); the scheme's port when
 * none is given. False for anything else (a path, file://, user@host:path)
 * and for a host part it cannot take apart.
 */
bool store_url_endpoint(const char *url, char *host, size_t hn, char *port,
			size_t pn)
{
	static const struct {
		const char *scheme, *port;
	} schemes[] = {{"git://", "9418"},
		       {"ssh://", "22"},
		       {"http://", "80"},
		       {"https://", "443"}};
	const char *rest = NULL;
	for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
		if (!strncmp(url, schemes[i].scheme,
			     strlen(schemes[i].scheme))) {
			rest = url + strlen(schemes[i].scheme);
			snprintf(port, pn, "%s", schemes[i].port);
		}
	if (!rest)
		return false;
	char buf[256];
	const char *at = strchr(rest, '@'), *slash = strchr(rest, '/');
	if (at && (!slash || at < slash))
		rest = at + 1;
	size_t len = strcspn(rest, "/");
	if (len == 0 || len >= sizeof buf)
		return false;
	memcpy(buf, rest, len);
	buf[len] = 0;
	char *h = buf, *colon;
	if (buf[0] == '[') { /* [v6]:port */
		char *end = strchr(buf, ']');
		if (!end)
			return false;
		*end = 0;
		h = buf + 1;
		colon = end[1] == ':' ? end + 1 : NULL;
	} else {
		colon = strrchr(buf, ':');
	}
	if (colon) {
		*colon = 0;
		snprintf(port, pn, "%.6s", colon + 1);
	}
	snprintf(host, hn, "%s", h);
	return true;
}

/* $HOME/.ssh/name into out[n] (store_path: "" when too long). */
static void home_file(char *out, size_t n, const char *name)
{
	const char *home = getenv("HOME");
	store_path(out, n, "%s/.ssh/%s", home && *home ? home : ".", name);
}

static int credentials(git_credential **out, const char *url,
		       const char *user_from_url, unsigned int allowed,
		       void *payload)
{
	store_ssh *st = payload;
	if (st->https || (allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
		return store_http_login(out, st, url, user_from_url);
	const char *user =
	    user_from_url && *user_from_url ? user_from_url : getenv("USER");
	if (!user || !*user)
		user = "git";
	if (allowed & GIT_CREDENTIAL_USERNAME)
		return git_credential_username_new(out, user);
	if (!(allowed & GIT_CREDENTIAL_SSH_KEY)) {
		snprintf(st->why, sizeof st->why,
			 "the server asks for a login catan cannot give (only "
			 "ssh keys are supported)");
		return GIT_EUSER;
	}
	while (st->next < TRY_DONE) {
		int k = st->next++;
		if (k == TRY_ENV) {
			const char *key = getenv("CATAN_SSH_KEY");
			if (!key || !*key)
				continue;
			if (access(key, R_OK)) {
				snprintf(st->why, sizeof st->why,
					 "CATAN_SSH_KEY=%.200s cannot be read",
					 key);
				return GIT_EUSER;
			}
			snprintf(st->tried, sizeof st->tried, "%.200s", key);
			return git_credential_ssh_key_new(
			    out, user, NULL, key,
			    getenv("CATAN_SSH_PASSPHRASE"));
		}
		if (k == TRY_AGENT) {
			if (!getenv("SSH_AUTH_SOCK"))
				continue;
			snprintf(st->tried, sizeof st->tried, "the ssh agent");
			return git_credential_ssh_key_from_agent(out, user);
		}
		char key[STORE_PATH_MAX];
		home_file(key, sizeof key, default_keys[k - TRY_ED25519]);
		if (access(key, R_OK))
			continue;
		snprintf(st->tried, sizeof st->tried, "%.200s", key);
		return git_credential_ssh_key_new(out, user, NULL, key, NULL);
	}
	if (st->tried[0])
		snprintf(st->why, sizeof st->why,
			 "ssh: %.60s was not let in (last key tried: %.200s)",
			 user, st->tried);
	else
		snprintf(
		    st->why, sizeof st->why,
		    "ssh: no key to log in with (set CATAN_SSH_KEY, run an "
		    "ssh agent, or create ~/.ssh/id_ed25519)");
	return GIT_EUSER;
}

static int key_type(git_cert_ssh_raw_type_t t)
{
	switch (t) {
	case GIT_CERT_SSH_RAW_TYPE_RSA:
		return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
	case GIT_CERT_SSH_RAW_TYPE_DSS:
		return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
	case GIT_CERT_SSH_RAW_TYPE_KEY_ECDSA_256:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
	case GIT_CERT_SSH_RAW_TYPE_KEY_ECDSA_384:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
	case GIT_CERT_SSH_RAW_TYPE_KEY_ECDSA_521:
		return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
	case GIT_CERT_SSH_RAW_TYPE_KEY_ED25519:
		return LIBSSH2_KNOWNHOST_KEY_ED25519;
	default:
		return LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
	}
}

int store_ssh_check_host(store_ssh *st, const char *host, int port,
			 int raw_type, const char *key, size_t len)
{
	char file[STORE_PATH_MAX];
	const char *env = getenv("CATAN_SSH_KNOWN_HOSTS");
	if (env && *env)
		store_path(file, sizeof file, "%s", env);
	else
		home_file(file, sizeof file, "known_hosts");
	int type = key_type((git_cert_ssh_raw_type_t)raw_type);
	if (type == LIBSSH2_KNOWNHOST_KEY_UNKNOWN) {
		snprintf(st->why, sizeof st->why,
			 "ssh: %.100s offers a host key of a type catan cannot "
			 "check",
			 host);
		return -1;
	}
	LIBSSH2_SESSION *session = libssh2_session_init();
	LIBSSH2_KNOWNHOSTS *kh =
	    session ? libssh2_knownhost_init(session) : NULL;
	int rc = -1;
	if (!kh) {
		snprintf(st->why, sizeof st->why, "ssh: out of memory");
		goto done;
	}
	if (access(file, R_OK) ||
	    libssh2_knownhost_readfile(kh, file,
				       LIBSSH2_KNOWNHOST_FILE_OPENSSH) < 0) {
		snprintf(st->why, sizeof st->why,
			 "ssh: cannot read the known hosts file %.200s (add "
			 "the host with: ssh-keyscan -p %d %.100s >> %.200s)",
			 file, port, host, file);
		goto done;
	}
	struct libssh2_knownhost *found = NULL;
	int m = libssh2_knownhost_checkp(
	    kh, host, port, key, len,
	    LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW | type,
	    &found);
	if (m == LIBSSH2_KNOWNHOST_CHECK_MATCH)
		rc = 0;
	else if (m == LIBSSH2_KNOWNHOST_CHECK_MISMATCH)
		snprintf(st->why, sizeof st->why,
			 "ssh: the host key of %.100s port %d does not match "
			 "%.200s: refusing (someone may be impersonating it; "
			 "if the key really changed, fix that file)",
			 host, port, file);
	else
		snprintf(st->why, sizeof st->why,
			 "ssh: %.100s port %d is not in %.200s: refusing (add "
			 "it with: ssh-keyscan -p %d %.100s >> %.200s)",
			 host, port, file, port, host, file);
done:
	if (kh)
		libssh2_knownhost_free(kh);
	if (session)
		libssh2_session_free(session);
	return rc;
}

static int certificate(git_cert *cert, int valid, const char *host,
		       void *payload)
{
	store_ssh *st = payload;
	(void)valid;
	if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2)
		return GIT_PASSTHROUGH; /* https: libgit2 checks it */
	const git_cert_hostkey *hk = (const git_cert_hostkey *)cert;
	if (!(hk->type & GIT_CERT_SSH_RAW)) {
		snprintf(st->why, sizeof st->why,
			 "ssh: no host key to check for %.100s", host);
		return GIT_EUSER;
	}
	return store_ssh_check_host(st, host, st->port, hk->raw_type,
				    hk->hostkey, hk->hostkey_len)
		   ? GIT_EUSER
		   : 0;
}

void store_ssh_callbacks(git_remote_callbacks *cb, store_ssh *st,
			 git_repository *repo, const char *url)
{
	memset(st, 0, sizeof *st);
	store_net_cut_forget(); /* (store_ssh_fail reports a cut since) */
	st->port = 22;
	/* ssh://[user@]host[:port]/path; scp-like user@host:path uses 22. */
	char host[256], port[8];
	if (url && !strncmp(url, "ssh://", 6) &&
	    store_url_endpoint(url, host, sizeof host, port, sizeof port)) {
		int p = atoi(port);
		if (p > 0 && p < 65536)
			st->port = p;
	}
	store_http_prepare(st, repo, url);
	cb->credentials = credentials;
	cb->certificate_check = certificate;
	cb->payload = st;
}

int store_ssh_fail(const store_ssh *st, catan_err *err, const char *what)
{
	char cut[600];
	if (store_net_cut(cut, sizeof cut)) {
		snprintf(err->msg, sizeof err->msg, "%.100s: %.380s", what,
			 cut);
		return store_code(err, CATAN_STORE_E_NETWORK);
	}
	if (st->why[0] || store_http_why(st, cut, sizeof cut)) {
		snprintf(err->msg, sizeof err->msg, "%.100s: %.380s", what,
			 st->why[0] ? st->why : cut);
		/* (the key, the login or the certificate) */
		return store_code(err, CATAN_STORE_E_DENIED);
	}
	store_git_fail(err, what);
	return store_code(err, CATAN_STORE_E_NETWORK);
}

void store_remote_why(const store_ssh *st, char *buf, size_t n)
{
	const git_error *e = git_error_last();
	if (store_net_cut(buf, n))
		return;
	if (st->why[0])
		snprintf(buf, n, "%s", st->why);
	else if (!store_http_why(st, buf, n))
		snprintf(buf, n, "%s",
			 e && e->message ? e->message : "refused");
}
