/*
 * keys.c - `catan key` (and `catan keygen`): a player's Ed25519 key, and
 * the seats' keys of a signed game (spec/replication.md, "Keys and
 * signatures").
 */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "catan/sign.h"
#include "catan/store.h"

int cli_default_key(char *out, size_t n)
{
	const char *env = getenv("CATAN_KEY");
	const char *home = getenv("HOME");
	int w;
	if (env && *env)
		w = snprintf(out, n, "%s", env);
	else if (home && *home)
		w = snprintf(out, n, "%s/.config/catan/id_ed25519", home);
	else
		return -1;
	return w < 0 || (size_t)w >= n ? -1 : 0;
}

int cli_read_pubkey(unsigned char pk[32], const char *what, char *why,
		    size_t whylen)
{
	char text[512];
	catan_sign_why sw = {{0}, 0};
	const char *t = what;
	if (strncmp(what, "ssh-ed25519 ", 12)) {
		FILE *f = fopen(what, "r");
		if (!f) {
			snprintf(why, whylen,
				 "\"%.100s\" is neither a public key line "
				 "(ssh-ed25519 AAAA...) nor a readable file: "
				 "%s",
				 what, strerror(errno));
			return -1;
		}
		size_t n = fread(text, 1, sizeof text - 1, f);
		fclose(f);
		text[n] = '\0';
		t = text;
	}
	if (catan_pubkey_parse(pk, t, strlen(t), NULL, &sw)) {
		snprintf(why, whylen, "%.100s: %s", what, sw.msg);
		return -1;
	}
	return 0;
}

static int mkdirs(char *path)
{
	for (char *sl = strchr(path + 1, '/'); sl; sl = strchr(sl + 1, '/')) {
		*sl = '\0';
		int bad = mkdir(path, 0700) && errno != EEXIST;
		*sl = '/';
		if (bad)
			return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: catan key new [FILE]        make a key (default "
		   "$CATAN_KEY or ~/.config/catan/id_ed25519)\n"
		   "       catan key show [FILE]       print its public key, "
		   "the line a game's host needs\n"
		   "       catan -C DIR key use FILE   sign this game's moves "
		   "with FILE\n"
		   "       catan -C DIR key list       the seats' keys "
		   "(game/signers)\n"
		   "       catan keygen [FILE]         the same as key new\n"
		   "A key is an OpenSSH ed25519 key: `ssh-keygen -t ed25519` "
		   "makes one catan reads, and ~/.ssh/id_ed25519 works too.\n");
}

int cli_key(const char *dir, int argc, char **argv)
{
	if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
		usage(argc < 1 ? stderr : stdout);
		return argc < 1 ? 2 : 0;
	}
	const char *sub = argv[0];
	char path[4096];
	if (!strcmp(sub, "new") || !strcmp(sub, "show")) {
		if (argc > 2) {
			usage(stderr);
			return 2;
		}
		if (argc == 2)
			snprintf(path, sizeof path, "%s", argv[1]);
		else if (cli_default_key(path, sizeof path)) {
			fprintf(stderr, "catan key: no FILE, no $CATAN_KEY and "
					"no $HOME\n");
			return 2;
		}
		catan_key k;
		catan_sign_why why = {{0}, 0};
		char pub[CATAN_PUBKEY_TEXT];
		if (sub[0] == 'n') {
			if (mkdirs(path) || catan_key_generate(&k, &why) ||
			    catan_key_save(&k, path, NULL, &why)) {
				fprintf(stderr, "catan key new: %s\n",
					why.msg[0] ? why.msg
						   : "cannot make the folder");
				return 1;
			}
			printf("wrote %s (secret: keep it) and %s.pub\n", path,
			       path);
		} else if (catan_key_load(&k, path, &why)) {
			fprintf(stderr, "catan key show: %s\n", why.msg);
			return 1;
		}
		catan_pubkey_format(pub, k.pk);
		printf("%s\n", pub);
		if (sub[0] == 'n')
			fprintf(stderr, "give that line to the game's host: "
					"catan new ... --seat YOURNAME='<the "
					"line>'\n");
		return 0;
	}
	if (!strcmp(sub, "use") || !strcmp(sub, "list")) {
		if (!dir || (sub[0] == 'u') != (argc == 2) ||
		    (sub[0] == 'l' && argc != 1)) {
			usage(stderr);
			return 2;
		}
		catan_store *s = NULL;
		catan_err err;
		if (catan_store_open_ext(&s, dir, sub[0] == 'l', &err)) {
			fprintf(stderr, "catan key: %s\n", err.msg);
			return 1;
		}
		const catan_game *g = catan_store_game(s);
		int rc = 0;
		if (sub[0] == 'u') {
			if (catan_store_use_key(s, argv[1], &err)) {
				fprintf(stderr, "catan key use: %s\n", err.msg);
				rc = 1;
			} else
				printf("this repository signs with %s\n",
				       argv[1]);
		} else if (!g->signed_game) {
			printf("unsigned game: no keys (any writer can act as "
			       "any player)\n");
		} else
			for (int p = 0; p < g->opt.nplayers; p++) {
				char pub[CATAN_PUBKEY_TEXT];
				catan_pubkey_format(pub, g->keys[p]);
				/* A lobby's open seat has no key before the
				 * start. */
				printf("%s %s\n", g->names.name[p],
				       g->open & (1u << p)
					   ? "open (claimed in the game; bound "
					     "at the start)"
					   : pub);
			}
		catan_store_free(s);
		return rc;
	}
	usage(stderr);
	return 2;
}
