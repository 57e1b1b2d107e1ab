/*
 * hook.c - `catan host-hook`: a repository on a server that players push
 * to refuses any push that would make its game invalid (spec/replication.md,
 * "A host that refuses bad pushes").
 *
 *   catan host-hook install BARE   writes BARE/hooks/pre-receive
 *   catan host-hook run            what that hook runs (git gives it the
 *                                  updates on stdin: "OLD NEW REF" lines)
 *   catan host-hook gitolite REPO [--repo NAME] [--user PLAYER=USER]...
 *                                  prints a gitolite.conf fragment from
 *                                  the game's seats: every player reads
 *                                  the game, and writes only its own
 *                                  branch (gitolite refuses the rest)
 */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catan/store.h"
#include "hook_run.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: catan host-hook install BARE_REPO   refuse pushes "
		"that break the game held there\n"
		"       catan host-hook run                (run by the "
		"pre-receive hook; git's updates on stdin)\n"
		"       catan host-hook serve BARE_REPO [--http]\n"
		"                                          check its pushes "
		"in this process\n"
		"                                          (a push then "
		"costs a small client's start);\n"
		"                                          --http: also answer "
		"catan peers'\n"
		"                                          fetches and pushes "
		"the web server passes\n"
		"                                          to "
		"BARE_REPO/catan-http.sock\n"
		"       catan host-hook gitolite REPO [--repo NAME] "
		"[--user PLAYER=USER]...\n"
		"                                          (a gitolite.conf "
		"fragment: each\n"
		"                                          player writes "
		"only its branch)\n");
}

/* Writes a + b + a newline to path (mode), durably: 0 or -1 (errno). */
static int write_file(const char *path, const char *a, const char *b,
		      mode_t mode)
{
	char tmp[PATH_MAX + 96];
	snprintf(tmp, sizeof tmp, "%s.catan-new", path);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%s%s\n", a, b) < 0 || fflush(f) ||
	    fsync(fileno(f)) || fclose(f) || chmod(tmp, mode) ||
	    rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

/* Copies file from to `to` (mode), durably: 0 or -1 (errno). */
static int copy_file(const char *from, const char *to, mode_t mode)
{
	FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wb") : NULL;
	char buf[65536];
	size_t n;
	int rc = in && out ? 0 : -1;
	while (rc == 0 && (n = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	if (rc == 0 && (ferror(in) || fflush(out) || fsync(fileno(out))))
		rc = -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	if (rc == 0 && chmod(to, mode))
		rc = -1;
	return rc;
}

static int install(const char *bare)
{
	catan_store *s = NULL;
	catan_err err;
	catan_verify_report rep;
	char exe[PATH_MAX], hook[PATH_MAX + 64], tmp[PATH_MAX + 80];
	if (catan_store_open_ext(&s, bare, false, &err) ||
	    catan_store_fill_branches(s, &err)) {
		fprintf(stderr,
			"catan host-hook: %s (push the game's genesis there "
			"first: catan -C DIR remote add hub URL --push, then "
			"catan -C DIR sync)\n",
			err.msg);
		return 1;
	}
	int bad = catan_store_verify(s, &rep, &err) || !rep.ok;
	catan_store_free(s);
	if (bad) {
		fprintf(stderr, "catan host-hook: %s does not verify: %s\n",
			bare, rep.ok ? err.msg : rep.why);
		return 1;
	}
	/* catan-hook beside catan: the same check, a smaller program to
	 * start on every push (git runs the hook once per push); and
	 * catan-hook-client (below). */
	char small[PATH_MAX + 16], client[PATH_MAX + 24];
	if (cli_self(exe, sizeof exe) || strchr(exe, '\'') ||
	    cli_beside_self("catan-hook", small, sizeof small) ||
	    cli_beside_self("catan-hook-client", client, sizeof client)) {
		fprintf(stderr,
			"catan host-hook: cannot tell where catan is\n");
		return 1;
	}
	bool own = access(small, X_OK) == 0;
	snprintf(hook, sizeof hook, "%s/hooks", bare);
	if (mkdir(hook, 0755) && errno != EEXIST) {
		fprintf(stderr, "catan host-hook: %s: %s\n", hook,
			strerror(errno));
		return 1;
	}
	snprintf(hook, sizeof hook, "%s/hooks/pre-receive", bare);
	snprintf(tmp, sizeof tmp, "%s.catan-new", hook);
	/*
	 * catan-hook-client beside catan: copied in as the hook itself (no
	 * shell to start; a copy, so that a moved build never leaves a
	 * dangling hook, which git would skip), with the program it runs
	 * when nothing serves the repository named in hooks/catan-hook-path.
	 */
	if (access(client, X_OK) == 0) {
		char path[PATH_MAX + 80];
		snprintf(path, sizeof path, "%s/hooks/catan-hook-path", bare);
		if (write_file(path, own ? small : exe,
			       own ? "" : "\nhost-hook\nrun", 0644) ||
		    copy_file(client, tmp, 0755) || rename(tmp, hook)) {
			fprintf(stderr,
				"catan host-hook: cannot write %s: %s\n", hook,
				strerror(errno));
			unlink(tmp);
			return 1;
		}
		printf("installed %s: pushes to %s are verified (catan "
		       "host-hook serve %s checks them without a process "
		       "start)\n",
		       hook, bare, bare);
		return 0;
	}
	FILE *f = fopen(tmp, "w");
	if (!f ||
	    fprintf(f,
		    "#!/bin/sh\n"
		    "# Written by catan host-hook install: every push is "
		    "verified as catan sync\n"
		    "# verifies what it fetches; a push that would break "
		    "the game is refused.\n"
		    "exec '%s'%s\n",
		    own ? small : exe, own ? "" : " host-hook run") < 0 ||
	    fflush(f) || fsync(fileno(f)) || fclose(f) || chmod(tmp, 0755) ||
	    rename(tmp, hook)) {
		fprintf(stderr, "catan host-hook: cannot write %s: %s\n", hook,
			strerror(errno));
		if (f)
			unlink(tmp);
		return 1;
	}
	printf("installed %s: pushes to %s are verified\n", hook, bare);
	return 0;
}

/* A gitolite user name: letters, digits and . _ @ - (gitolite's own). */
static bool gitolite_name(const char *u)
{
	if (!*u || strlen(u) > 64 || *u == '-' || *u == '@')
		return false;
	for (const char *c = u; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr("._@-", *c)))
			return false;
	return true;
}

static int gitolite(int argc, char **argv)
{
	const char *repo = "catan";
	const char *user[CATAN_MAX_PLAYERS] = {NULL};
	catan_store *s = NULL;
	catan_err err;
	if (argc < 1) {
		usage(stderr);
		return 2;
	}
	if (catan_store_open_ext(&s, argv[0], false, &err)) {
		fprintf(stderr, "catan host-hook gitolite: %s\n", err.msg);
		return 1;
	}
	const catan_game *g = catan_store_game(s);
	int rc = 2;
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--repo") && v && gitolite_name(v) &&
		    !strchr(v, '@')) {
			repo = v;
			i++;
		} else if (!strcmp(argv[i], "--user") && v && strchr(v, '=')) {
			const char *eq = strchr(v, '=');
			int p =
			    catan_names_find(&g->names, v, (size_t)(eq - v));
			if (p < 0 || !gitolite_name(eq + 1)) {
				fprintf(stderr,
					"catan host-hook gitolite: --user "
					"%s: no such player, or not a "
					"gitolite user name\n",
					v);
				goto done;
			}
			user[p] = eq + 1;
			i++;
		} else {
			fprintf(stderr,
				"catan host-hook gitolite: unknown option "
				"\"%s\" (or a bad --repo name)\n",
				argv[i]);
			goto done;
		}
	}
	int n = g->opt.nplayers;
	for (int p = 0; p < n; p++)
		if (!user[p] && !gitolite_name(g->names.name[p])) {
			fprintf(stderr,
				"catan host-hook gitolite: the player name "
				"\"%s\" is no gitolite user name: give "
				"--user %s=NAME\n",
				g->names.name[p], g->names.name[p]);
			goto done;
		}
	/*
	 * A signed game's peers force-push their own branch (only they can
	 * sign a commit there: spec/replication.md), so they get RW+ on it;
	 * an unsigned game's only fast-forward it (RW). The refex ends in $:
	 * gitolite matches a prefix, and red's rule must not cover
	 * refs/heads/reddish.
	 */
	const char *w = g->signed_game ? "RW+" : "RW ";
	printf("# catan game of %d players (%s): every player reads the "
	       "game and\n# writes only its own branch; add the players' "
	       "ssh keys as keydir/USER.pub.\n",
	       n, g->signed_game ? "signed" : "unsigned");
	printf("@%s-players =", repo);
	for (int p = 0; p < n; p++)
		printf(" %s", user[p] ? user[p] : g->names.name[p]);
	printf("\nrepo %s\n    R   %-28s = @%s-players\n", repo, "", repo);
	for (int p = 0; p < n; p++) {
		char ref[300];
		snprintf(ref, sizeof ref, "refs/heads/%s$", g->names.name[p]);
		printf("    %s %-28s = %s\n", w, ref,
		       user[p] ? user[p] : g->names.name[p]);
	}
	rc = 0;
done:
	catan_store_free(s);
	return rc;
}

int cli_host_hook(int argc, char **argv)
{
	if (argc == 1 &&
	    (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[0], "install"))
		return install(argv[1]);
	if (argc == 1 && !strcmp(argv[0], "run"))
		return cli_hook_run();
	if (argc == 2 && !strcmp(argv[0], "serve"))
		return cli_hook_serve(argv[1], false);
	if (argc == 3 && !strcmp(argv[0], "serve") &&
	    !strcmp(argv[2], "--http"))
		return cli_hook_serve(argv[1], true);
	if (argc >= 2 && !strcmp(argv[0], "gitolite"))
		return gitolite(argc - 1, argv + 1);
	usage(stderr);
	return 2;
}
