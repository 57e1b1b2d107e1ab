/*
 * log.c - catan log: the actions of a game, one line each.
 *
 *   catan -C DIR log [REV | REV..REV] [--player P] [--json]     (--help)
 *
 * Lists the commits of the current history oldest first, as
 * catan_store_log gives them (the discard commits of a 7 in player order,
 * then their merge): id, turn, player, action (a roll with its dice, from
 * the commit's Dice trailer: "roll 3+4"). A revision or a range (git's
 * syntax, read by libgit2: `blue~5..blue`, `HEAD~3`) keeps the commits it
 * names, --player those one player made, --json prints an array of
 * objects instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "catan/store.h"
#include "cli.h"
#include "research.h"

typedef struct log_ctx {
	const char *player;
	git_oid *keep; /* sorted; NULL: every commit */
	size_t nkeep;
	bool json, first;
	long shown;
} log_ctx;

static int cmp_oid(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

static int log_entry(const catan_log_entry *e, void *arg)
{
	log_ctx *c = arg;
	if (c->player && strcmp(c->player, e->author))
		return 0;
	if (c->keep) {
		git_oid id;
		if (git_oid_fromstr(&id, e->id.hex) ||
		    !bsearch(&id, c->keep, c->nkeep, sizeof id, cmp_oid))
			return 0;
	}
	if (c->json) {
		printf("%s{\"id\":\"%s\",\"turn\":%d,\"player\":",
		       c->first ? "" : ",\n ", e->id.hex, e->turn);
		cli_json_str(stdout, e->author);
		printf(",\"action\":");
		cli_json_str(stdout, e->subject);
		printf(",\"merge\":%s", e->merge ? "true" : "false");
		if (e->dice[0])
			printf(",\"dice\":[%d,%d]", e->dice[0], e->dice[1]);
		printf("}");
	} else if (e->dice[0])
		/* A roll with what it rolled: "roll 3+4". */
		printf("%.10s %4d %-8s roll %d+%d\n", e->id.hex,
		       e->turn < 0 ? 0 : e->turn, e->author, e->dice[0],
		       e->dice[1]);
	else
		printf("%.10s %4d %-8s %s\n", e->id.hex,
		       e->turn < 0 ? 0 : e->turn, e->author, e->subject);
	c->first = false;
	c->shown++;
	return 0;
}

/* The ids `rev` names (one revision: what it reaches; A..B: what B
 * reaches and A does not), sorted into c->keep. 0, or -1 with a sentence. */
static int range_ids(log_ctx *c, const char *dir, const char *rev)
{
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_object *obj = NULL;
	git_oid id;
	size_t cap = 0;
	int rc = -1;
	if (git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH,
				    NULL) ||
	    git_revwalk_new(&walk, repo))
		goto done;
	if (strstr(rev, "..")) {
		if (git_revwalk_push_range(walk, rev))
			goto done;
	} else if (git_revparse_single(&obj, repo, rev) ||
		   git_revwalk_push(walk, git_object_id(obj)))
		goto done;
	while (git_revwalk_next(&id, walk) == 0) {
		if (c->nkeep == cap) {
			cap = cap ? 2 * cap : 256;
			git_oid *more = realloc(c->keep, cap * sizeof *more);
			if (!more)
				goto done;
			c->keep = more;
		}
		c->keep[c->nkeep++] = id;
	}
	if (!c->keep)
		c->keep = malloc(sizeof *c->keep); /* an empty range */
	if (c->keep)
		qsort(c->keep, c->nkeep, sizeof *c->keep, cmp_oid);
	rc = c->keep ? 0 : -1;
done:
	if (rc) {
		const git_error *ge = git_error_last();
		fprintf(stderr, "catan log: %s: %s\n", rev,
			ge ? ge->message : "out of memory");
	}
	git_object_free(obj);
	git_revwalk_free(walk);
	git_repository_free(repo);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: catan -C DIR log [REV | REV..REV] [--player P] "
		   "[--json]\n"
		   "  the actions of the game, oldest first: id, turn, player, "
		   "action;\n"
		   "  REV or a range (git's syntax) keeps the commits it names, "
		   "--player\n"
		   "  the actions of one player, --json prints a JSON array\n");
}

int cli_log(const char *dir, int argc, char **argv)
{
	log_ctx c;
	const char *rev = NULL;
	memset(&c, 0, sizeof c);
	c.first = true;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--json"))
			c.json = true;
		else if (!strcmp(argv[i], "--player") && i + 1 < argc)
			c.player = argv[++i];
		else if (argv[i][0] != '-' && !rev)
			rev = argv[i];
		else {
			fprintf(stderr, "catan log: unexpected \"%s\"\n",
				argv[i]);
			usage(stderr);
			return 2;
		}
	}
	if (!dir) {
		fprintf(stderr, "catan: say which game with -C DIR\n");
		return 2;
	}
	catan_store *s = NULL;
	catan_err err;
	if (catan_store_open_ext(&s, dir, true, &err)) {
		fprintf(stderr, "catan: %s: %s\n", dir, err.msg);
		return 1;
	}
	int rc = 0;
	if (c.player) {
		const catan_game *g = catan_store_game(s);
		if (g && catan_names_find(&g->names, c.player,
					  strlen(c.player)) < 0) {
			fprintf(stderr, "catan log: no player \"%s\" in this "
					"game\n",
				c.player);
			catan_store_free(s);
			return 2;
		}
	}
	if (rev && catan_store_rev_check(s, rev, &err)) {
		fprintf(stderr, "catan log: %s: %s\n", rev, err.msg);
		rc = 2;
	} else if (rev) {
		git_libgit2_init();
		rc = range_ids(&c, dir, rev);
		git_libgit2_shutdown();
	}
	if (rc == 0) {
		if (c.json)
			putchar('[');
		/* (a revision may name commits past a stopped game's fork) */
		if (catan_store_log_ext(s, rev != NULL, log_entry, &c, &err)) {
			fprintf(stderr, "catan log: %s\n", err.msg);
			rc = 1;
		}
		if (c.json)
			puts("]");
	} else
		rc = 2;
	free(c.keep);
	catan_store_free(s);
	return rc;
}
