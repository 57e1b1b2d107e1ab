/*
 * remote.c - layer 1 (leaves): the remotes as the configuration names
 * them, read without libgit2's git_remote_lookup and git_remote_list.
 *
 * Both go through libgit2's regular expressions over the configuration
 * (the url.<base>.insteadOf rewriting, the list of remote.*.url), and
 * libgit2 1.5.1, the version Debian 12 ships, leaks the match data of
 * every entry such an expression does not match (git_regexp_match
 * returns before pcre2_match_data_free; fixed upstream in 1.6): about
 * 20 KB an entry with pcre2's frames. A sync looked its remote up once
 * for the fetch and once for the push, and `catan peer` polling a host
 * grew by about 110 KB a second (400 MB an hour). What a sync needs of a
 * remote, its name and URL, is read here with plain lookups and one
 * iteration of the configuration; the transports that need a git_remote
 * get one made in memory for the URL (store_remote_at), which reads no
 * configuration with an expression.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net.h"

/* Whether the configuration entry name `key` is url.<base>.<var> for var
 * (case-insensitive, as git compares section and variable names); *base
 * and *blen then point into key. */
static bool rewrite_key(const char *key, const char *var, const char **base,
			size_t *blen)
{
	size_t n = strlen(key), v = strlen(var);
	if (n < 4 + 1 + v + 1 || strncasecmp(key, "url.", 4) ||
	    key[n - v - 1] != '.' || strcasecmp(key + n - v, var))
		return false;
	*base = key + 4;
	*blen = n - v - 1 - 4;
	return true;
}

/*
 * url with the longest prefix a url.<base>.<var> value names replaced by
 * its base, into out: 1 when one applied, 0 when none did (out is then
 * url), -1 when out is too small or the configuration unreadable.
 */
static int rewrite(git_config *cfg, const char *url, const char *var, char *out,
		   size_t size)
{
	git_config_iterator *it = NULL;
	git_config_entry *e;
	size_t best = 0;
	int rc = 0;
	if (strlen(url) >= size)
		return -1;
	memcpy(out, url, strlen(url) + 1);
	if (git_config_iterator_new(&it, cfg))
		return -1;
	while (rc >= 0 && git_config_next(&e, it) == 0) {
		const char *base;
		size_t blen, plen = e->value ? strlen(e->value) : 0;
		if (!plen || plen <= best || strncmp(url, e->value, plen) ||
		    !rewrite_key(e->name, var, &base, &blen))
			continue;
		if (blen + strlen(url + plen) >= size) {
			rc = -1;
			break;
		}
		memcpy(out, base, blen);
		memcpy(out + blen, url + plen, strlen(url + plen) + 1);
		best = plen;
		rc = 1;
	}
	git_config_iterator_free(it);
	return rc;
}

int store_remote_url(git_config *cfg, const char *name, bool push, char *out,
		     size_t size)
{
	char key[300];
	git_buf url = {NULL, 0, 0};
	int rc, valid = 0;
	/* (git_remote_lookup refused such a name: a name becomes part of
	 * ref names, refs/remotes/<name>/) */
	if (strlen(name) > 200 || git_remote_name_is_valid(&valid, name) ||
	    !valid)
		return 1;
	/* A push goes to remote.<name>.pushurl when set (insteadOf applied
	 * to it), else to the url with pushInsteadOf, else insteadOf; an
	 * empty value counts as none, as in libgit2. */
	snprintf(key, sizeof key, "remote.%s.pushurl", name);
	if (push && git_config_get_string_buf(&url, cfg, key) == 0 &&
	    url.ptr[0]) {
		rc = rewrite(cfg, url.ptr, "insteadof", out, size);
		git_buf_dispose(&url);
		return rc < 0 ? -1 : 0;
	}
	git_buf_dispose(&url);
	snprintf(key, sizeof key, "remote.%s.url", name);
	if (git_config_get_string_buf(&url, cfg, key) || !url.ptr[0]) {
		git_buf_dispose(&url);
		return 1;
	}
	rc = push ? rewrite(cfg, url.ptr, "pushinsteadof", out, size) : 0;
	if (rc == 0)
		rc = rewrite(cfg, url.ptr, "insteadof", out, size);
	git_buf_dispose(&url);
	return rc < 0 ? -1 : 0;
}

int store_remote_at(git_remote **out, git_repository *repo, const char *name,
		    const char *url)
{
	char spec[300];
	git_remote_create_options opt;
	git_remote_create_options_init(&opt, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	snprintf(spec, sizeof spec, "+refs/heads/*:refs/remotes/%.200s/*",
		 name);
	opt.repository = repo;
	opt.fetchspec = spec;
	opt.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF;
	return git_remote_create_with_opts(out, url, &opt);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int store_remote_names(git_config *cfg, git_strarray *out)
{
	git_config_iterator *it = NULL;
	git_config_entry *e;
	size_t n = 0, cap = 0;
	char **names = NULL;
	int rc = -1;
	if (git_config_iterator_new(&it, cfg))
		return -1;
	while (git_config_next(&e, it) == 0) {
		const char *name = e->name, *dot;
		if (strncasecmp(name, "remote.", 7) ||
		    !(dot = strrchr(name, '.')) || dot < name + 8 ||
		    (strcasecmp(dot, ".url") && strcasecmp(dot, ".pushurl")))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			char **more = realloc(names, cap * sizeof *more);
			if (!more)
				goto done;
			names = more;
		}
		if (!(names[n] = strndup(name + 7, (size_t)(dot - name) - 7)))
			goto done;
		int valid = 0;
		if (git_remote_name_is_valid(&valid, names[n]) == 0 && valid)
			n++;
		else
			free(names[n]); /* (not a name git_remote_list gives) */
	}
	if (n)
		qsort(names, n, sizeof *names, by_string);
	out->strings = names;
	out->count = n;
	names = NULL;
	n = 0;
	rc = 0;
done:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	git_config_iterator_free(it);
	return rc;
}

void store_remote_names_free(git_strarray *names)
{
	for (size_t i = 0; i < names->count; i++)
		free(names->strings[i]);
	free(names->strings);
	names->strings = NULL;
	names->count = 0;
}
