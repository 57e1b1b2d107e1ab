/*
 * verify.c - replays a game repository from genesis and checks every
 * commit. Read-only: tree ids are computed by hashing, never by writing.
 *
 * Commits are visited in topological order, so a commit's parents have
 * been checked (and their states kept in a table) when it is reached. The
 * first failure stops the walk and names the commit and the reason.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* States of checked commits, by id (open addressing). */
typedef struct seen {
	git_oid id;
	git_oid parent; /* first parent (for fork detection) */
	int author;	/* player index */
	bool discard;	/* a discard commit */
	bool trusted;	/* verified before, loaded from the repository */
	bool used;
	catan_state state;
} seen;

/*
 * The index is open addressing over pointers; the entries themselves live in
 * blocks that never move, so a pointer from table_get or table_put stays
 * valid while the table grows (check_merge holds several at once, and
 * known() may add entries between its lookups).
 */
#define TABLE_BLOCK 64
typedef struct table {
	seen **slot;
	size_t cap, n;
	seen **block;
	size_t nblock;
} table;

/* The i-th entry put (i < t->n). Cannot fail. */
static seen *table_at(const table *t, size_t i)
{
	return &t->block[i / TABLE_BLOCK][i % TABLE_BLOCK];
}

static size_t slot_of(seen *const *slot, size_t cap, const git_oid *id)
{
	size_t h;
	memcpy(&h, id->id, sizeof h);
	size_t i = h & (cap - 1);
	while (slot[i] && !git_oid_equal(&slot[i]->id, id))
		i = (i + 1) & (cap - 1);
	return i;
}

static seen *table_get(const table *t, const git_oid *id)
{
	if (!t->cap)
		return NULL;
	return t->slot[slot_of(t->slot, t->cap, id)];
}

/* A new entry for id (zeroed but for id and used); NULL when out of memory. */
static seen *table_put(table *t, const git_oid *id)
{
	if ((t->n + 1) * 2 > t->cap) {
		/* Small at first: a sync checks a few commits. */
		size_t cap = t->cap ? t->cap * 2 : 16;
		seen **slot = calloc(cap, sizeof *slot);
		if (!slot)
			return NULL;
		for (size_t i = 0; i < t->cap; i++)
			if (t->slot[i])
				slot[slot_of(slot, cap, &t->slot[i]->id)] =
				    t->slot[i];
		free(t->slot);
		t->slot = slot;
		t->cap = cap;
	}
	if (t->n == t->nblock * TABLE_BLOCK) {
		seen **block =
		    realloc(t->block, (t->nblock + 1) * sizeof *block);
		if (!block)
			return NULL;
		t->block = block;
		if (!(block[t->nblock] = malloc(TABLE_BLOCK * sizeof(seen))))
			return NULL;
		t->nblock++;
	}
	seen *e = table_at(t, t->n++);
	memset(e, 0, sizeof *e);
	e->used = true;
	git_oid_cpy(&e->id, id);
	t->slot[slot_of(t->slot, t->cap, id)] = e;
	return e;
}

static void table_free(table *t)
{
	for (size_t i = 0; i < t->nblock; i++)
		free(t->block[i]);
	free(t->block);
	free(t->slot);
}

/* ---- ancestry, bounded by turns ---- */

/* A set of commit ids (open addressing), for the walks below. */
typedef struct oidset {
	git_oid *id;
	size_t cap, n;
} oidset;

/* Adds id; 1 if it was new, 0 if present, -1 out of memory. */
static int oidset_add(oidset *set, const git_oid *id)
{
	if ((set->n + 1) * 2 > set->cap) {
		oidset bigger = {
		    calloc(set->cap ? set->cap * 2 : 64, sizeof(git_oid)),
		    set->cap ? set->cap * 2 : 64, 0};
		if (!bigger.id)
			return -1;
		for (size_t i = 0; i < set->cap; i++)
			if (!git_oid_is_zero(&set->id[i]))
				oidset_add(&bigger, &set->id[i]);
		free(set->id);
		*set = bigger;
	}
	size_t h;
	memcpy(&h, id->id, sizeof h);
	for (size_t i = h & (set->cap - 1);; i = (i + 1) & (set->cap - 1)) {
		if (git_oid_equal(&set->id[i], id))
			return 0;
		if (git_oid_is_zero(&set->id[i])) {
			set->id[i] = *id;
			set->n++;
			return 1;
		}
	}
}

/* Is id in the set? */
static bool oidset_has(const oidset *set, const git_oid *id)
{
	if (!set->cap)
		return false;
	size_t h;
	memcpy(&h, id->id, sizeof h);
	for (size_t i = h & (set->cap - 1);; i = (i + 1) & (set->cap - 1)) {
		if (git_oid_equal(&set->id[i], id))
			return true;
		if (git_oid_is_zero(&set->id[i]))
			return false;
	}
}

/* The Turn trailer of commit id, or -1 (unreadable, none). */
static int turn_of(catan_store *s, const git_oid *id)
{
	git_commit *c = NULL;
	if (git_commit_lookup(&c, s->repo, id))
		return -1;
	int t = store_trailer_int(git_commit_message(c), "Turn");
	git_commit_free(c);
	return t;
}

/*
 * Visits the commits reachable from `from` (itself included) whose Turn
 * trailer is at least `floor`, calling fn on each until it returns
 * non-zero (its value is returned; a commit for which it returns -2 is not
 * walked past). The trailer never decreases from parent to child in a
 * valid history (a child's is its parent's state's turn), so nothing
 * older than `floor` can lead back above it: the walk covers the turns
 * since `floor`, however long the game. Returns -1 when a commit cannot
 * be read.
 */
static int walk_turns(catan_store *s, const git_oid *from, int floor,
		      int (*fn)(git_commit *c, void *arg), void *arg)
{
	oidset done = {NULL, 0, 0};
	size_t n = 0, cap = 32;
	git_oid *todo = malloc(sizeof *todo * cap);
	int rc = todo ? 0 : -1;
	if (todo)
		todo[n++] = *from;
	while (rc == 0 && n > 0) {
		git_oid id = todo[--n];
		git_commit *c = NULL;
		int added = oidset_add(&done, &id);
		if (added <= 0) {
			rc = added;
			continue;
		}
		if (git_commit_lookup(&c, s->repo, &id)) {
			rc = -1;
			break;
		}
		if (store_trailer_int(git_commit_message(c), "Turn") < floor) {
			git_commit_free(c);
			continue;
		}
		rc = fn(c, arg);
		if (rc == -2) {
			rc = 0;
			git_commit_free(c);
			continue;
		}
		for (unsigned i = 0; rc == 0 && i < git_commit_parentcount(c);
		     i++) {
			git_oid *more =
			    store_reserve(todo, &cap, n + 1, sizeof *todo);
			if (!more) {
				rc = -1;
				break;
			}
			todo = more;
			todo[n++] = *git_commit_parent_id(c, i);
		}
		git_commit_free(c);
	}
	free(todo);
	free(done.id);
	return rc;
}

static int is_target(git_commit *c, void *arg)
{
	return git_oid_equal(git_commit_id(c), arg);
}

static int collect(git_commit *c, void *arg)
{
	return oidset_add(arg, git_commit_id(c)) < 0 ? -1 : 0;
}

int store_is_ancestor(catan_store *s, const git_oid *anc, const git_oid *desc)
{
	if (git_oid_equal(anc, desc))
		return 1;
	int floor = turn_of(s, anc);
	if (floor < 0)
		return 0; /* not a commit of ours: not in desc's history */
	return walk_turns(s, desc, floor, is_target, (void *)anc);
}

typedef struct ctx {
	catan_store *s;
	table t;
	catan_verify_report *rep;
	/*
	 * Incremental mode (sync): only commits not reachable from the local
	 * branches are checked; their already-verified ancestors are loaded
	 * on demand by decoding their trees. newtips[p] is where player p's
	 * branch would move.
	 */
	bool incremental;
	const git_oid *newtips;
} ctx;

/*
 * The table entry of commit id: checked earlier in this run, or (in
 * incremental mode) a trusted local commit, loaded now.
 */
static seen *known(ctx *c, const git_oid *id)
{
	seen *e = table_get(&c->t, id);
	if (e || !c->incremental)
		return e;
	git_commit *commit = NULL;
	catan_err err;
	catan_state st;
	if (git_commit_lookup(&commit, c->s->repo, id))
		return NULL;
	const git_signature *a = git_commit_author(commit);
	const char *sum = git_commit_summary(commit);
	int author = a && a->name ? catan_names_find(&c->s->game.names, a->name,
						     strlen(a->name))
				  : -1;
	/* The state this handle last wrote or verified is at hand. */
	bool cached = c->s->cached && git_oid_equal(&c->s->cache_id, id);
	if (cached)
		st = c->s->cache_state;
	for (int i = 0; i < STORE_STATE_MEMO && !cached; i++)
		if (git_oid_equal(&c->s->states[i].id, id)) {
			st = c->s->states[i].state;
			cached = true;
		}
	if (author < 0 ||
	    (!cached &&
	     store_read_state(&st, c->s, git_commit_tree_id(commit), &err))) {
		git_commit_free(commit);
		return NULL;
	}
	e = table_put(&c->t, id);
	if (e) {
		e->state = st;
		e->author = author;
		e->discard = sum && !strncmp(sum, "discard ", 8);
		e->trusted = true;
		if (git_commit_parentcount(commit))
			git_oid_cpy(&e->parent,
				    git_commit_parent_id(commit, 0));
	}
	git_commit_free(commit);
	return e;
}

static int bad(ctx *c, const git_oid *id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(ctx *c, const git_oid *id, const char *fmt, ...)
{
	va_list ap;
	c->rep->ok = false;
	if (id)
		store_oid_hex(&c->rep->bad, id);
	va_start(ap, fmt);
	vsnprintf(c->rep->why, sizeof c->rep->why, fmt, ap);
	va_end(ap);
	return 1;
}

/*
 * Message = subject, blank line, "Player: NAME", "Turn: N", then
 * "Dice: A B" or nothing; dice[] says which (0,0: no Dice trailer). Whether
 * the commit may carry dice, and which, is the caller's (the action's).
 */
static int check_message(ctx *c, git_commit *commit, int *author,
			 const char **subject_out, char *subject, size_t size,
			 uint8_t dice[2])
{
	const catan_game *g = &c->s->game;
	const git_oid *id = git_commit_id(commit);
	const char *msg = git_commit_message(commit);
	const git_signature *a = git_commit_author(commit);
	const git_signature *k = git_commit_committer(commit);
	char email[64], want[256];

	if (!a || !a->name || !k || !k->name)
		return bad(c, id, "commit has no author");
	int p = catan_names_find(&g->names, a->name, strlen(a->name));
	if (p < 0 || strcmp(a->name, g->names.name[p]))
		return bad(c, id, "author \"%.40s\" is not a player", a->name);
	store_email(email, sizeof email, g->names.name[p]);
	if (!a->email || strcmp(a->email, email) || strcmp(k->name, a->name) ||
	    !k->email || strcmp(k->email, a->email))
		return bad(c, id,
			   "author/committer of %s must be \"%s <%s>\" twice",
			   g->names.name[p], g->names.name[p], email);
	const char *nl = msg ? strchr(msg, '\n') : NULL;
	if (!nl || (size_t)(nl - msg) >= size)
		return bad(c, id,
			   "commit message does not parse (no subject "
			   "line)");
	memcpy(subject, msg, (size_t)(nl - msg));
	subject[nl - msg] = '\0';
	int turn = store_trailer_int(msg, "Turn");
	int has_dice = store_trailer_dice(msg, dice);
	store_message(want, sizeof want, subject, g->names.name[p], turn,
		      has_dice > 0 ? dice : NULL);
	if (turn < 0 || has_dice < 0 || strcmp(msg, want))
		return bad(c, id,
			   "commit message does not parse: want the action, "
			   "a blank line, \"Player: %s\", \"Turn: N\" and on "
			   "a roll \"Dice: A B\"",
			   g->names.name[p]);
	*author = p;
	*subject_out = subject;
	return 0;
}

/* The identity line "P <P@catan> SECONDS +HHMM" after "author "/"committer ".
 */
static bool form_ident(const char *d, const char *end, const char *name)
{
	size_t nl = strlen(name);
	if ((size_t)(end - d) < 2 * nl + 9 || memcmp(d, name, nl) ||
	    d[nl] != ' ' || d[nl + 1] != '<' || memcmp(d + nl + 2, name, nl) ||
	    memcmp(d + 2 * nl + 2, "@catan> ", 8))
		return false;
	d += 2 * nl + 10;
	const char *digits = d;
	while (d < end && *d >= '0' && *d <= '9')
		d++;
	if (d == digits || d - digits > 12 || end - d != 6 || d[0] != ' ' ||
	    (d[1] != '+' && d[1] != '-'))
		return false;
	for (int i = 2; i < 6; i++)
		if (d[i] < '0' || d[i] > '9')
			return false;
	return true;
}

static int form_bad(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int form_bad(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return 1;
}

/*
 * The gpgsig header [sig_at, sig_end) of the raw commit holds an SSH
 * signature, by seat p's key, of the commit without that header. 0, or 1
 * with the reason (whose key signed, when it is another's).
 */
static int check_signature(const catan_game *g, int p, const char *raw,
			   size_t len, const char *sig_at, const char *sig_end,
			   char *why, size_t whylen)
{
	char armor[CATAN_SSHSIG_MAX + 1], small[4096];
	size_t al = 0;
	for (const char *c = sig_at + 7; c < sig_end; c++) {
		if (al == CATAN_SSHSIG_MAX)
			return form_bad(why, whylen,
					"commit's signature is over %d bytes",
					CATAN_SSHSIG_MAX);
		armor[al++] = *c;
		if (*c == '\n' && c + 1 < sig_end)
			c++; /* the space that continues the header */
	}
	size_t pl = len - (size_t)(sig_end - sig_at);
	char *payload = pl <= sizeof small ? small : malloc(pl);
	if (!payload)
		return form_bad(why, whylen, "out of memory");
	memcpy(payload, raw, (size_t)(sig_at - raw));
	memcpy(payload + (sig_at - raw), sig_end,
	       (size_t)(raw + len - sig_end));
	unsigned char signer[CATAN_PUBKEY_LEN];
	catan_sign_why sw = {{0}};
	int bad = catan_sshsig_verify(signer, armor, al, payload, pl, &sw);
	if (payload != small)
		free(payload);
	if (bad)
		return form_bad(why, whylen, "bad signature by %s: %s",
				g->names.name[p], sw.msg);
	if (!memcmp(signer, g->keys[p], CATAN_PUBKEY_LEN))
		return 0;
	for (int q = 0; q < g->opt.nplayers; q++)
		if (!memcmp(signer, g->keys[q], CATAN_PUBKEY_LEN))
			return form_bad(why, whylen,
					"commit by %s is signed with %s's key "
					"(a player acting in another's name)",
					g->names.name[p], g->names.name[q]);
	return form_bad(why, whylen,
			"commit by %s is signed with a key that is not in the "
			"game (game/signers)",
			g->names.name[p]);
}

int store_commit_form(const catan_store *s, const char *raw, size_t len,
		      char *why, size_t whylen)
{
	const catan_game *g = &s->game;
	const char *d = raw, *end = raw + len;
	long maxmsg = s->lim.message > 0 ? s->lim.message : 512;
	long maxobj = s->lim.object > 0 ? s->lim.object : 65536;
	unsigned np = 0;
	if ((long)len > maxobj)
		return form_bad(why, whylen,
				"commit of %zu bytes is over "
				"CATAN_SYNC_MAX_OBJECT (%ld)",
				len, maxobj);
	if (memchr(raw, '\0', len))
		return form_bad(why, whylen,
				"commit holds a NUL byte (git fsck: "
				"nulInCommit)");
	if (len < 46 || memcmp(d, "tree ", 5) || d[45] != '\n')
		return form_bad(why, whylen,
				"commit does not start with its "
				"tree");
	d += 46;
	while (end - d >= 48 && !memcmp(d, "parent ", 7) && d[47] == '\n') {
		if (++np > STORE_MAX_PARENTS)
			return form_bad(why, whylen,
					"commit has more than "
					"CATAN_SYNC_MAX_PARENTS (%d) parents",
					STORE_MAX_PARENTS);
		d += 48;
	}
	/* author, committer, a blank line: exactly what catan writes. */
	const char *line[2] = {NULL, NULL}, *lend[2] = {NULL, NULL};
	static const char *const key[2] = {"author ", "committer "};
	for (int k = 0; k < 2; k++) {
		const char *nl = memchr(d, '\n', (size_t)(end - d));
		size_t kl = strlen(key[k]);
		if (!nl || (size_t)(nl - d) < kl || memcmp(d, key[k], kl)) {
			const char *sp =
			    nl ? memchr(d, ' ', (size_t)(nl - d)) : NULL;
			return form_bad(why, whylen,
					"commit has a header \"%.*s\" where "
					"\"%.*s\" belongs (only tree, parent, "
					"author and committer are written)",
					sp ? (int)(sp - d > 20 ? 20 : sp - d)
					   : 0,
					d, (int)kl - 1, key[k]);
		}
		line[k] = d + kl;
		lend[k] = nl;
		d = nl + 1;
	}
	/* A signed game: the signature, as `git commit -S` writes it. */
	const char *sig_at = NULL, *sig_end = NULL;
	if (g->signed_game) {
		if (end - d < 7 || memcmp(d, "gpgsig ", 7))
			return form_bad(why, whylen,
					"commit is not signed (this game takes "
					"only commits with an SSH signature by "
					"the author's key in a gpgsig header)");
		sig_at = d;
		const char *nl = memchr(d, '\n', (size_t)(end - d));
		while (nl && end - nl > 1 && nl[1] == ' ')
			nl = memchr(nl + 1, '\n', (size_t)(end - nl - 1));
		if (!nl)
			return form_bad(why, whylen,
					"commit's signature is cut short");
		sig_end = d = nl + 1;
	}
	if (d >= end || *d != '\n') {
		const char *sp = memchr(d, ' ', (size_t)(end - d));
		return form_bad(why, whylen,
				"commit has an extra header \"%.*s\" (only "
				"tree, parent, author and committer are "
				"written)",
				sp ? (int)(sp - d > 20 ? 20 : sp - d) : 0, d);
	}
	const char *msg = d + 1;
	size_t mlen = (size_t)(end - msg);
	if ((long)mlen > maxmsg)
		return form_bad(why, whylen,
				"commit message of %zu bytes is over "
				"CATAN_SYNC_MAX_MESSAGE (%ld)",
				mlen, maxmsg);
	/* "SUBJECT\n\nPlayer: P\nTurn: N\n", P the author. */
	char text[1024], subject[1024], player[CATAN_NAME_MAX + 1] = "";
	char want[1100];
	if (mlen >= sizeof text)
		return form_bad(why, whylen,
				"commit message of %zu bytes is over "
				"CATAN_SYNC_MAX_MESSAGE",
				mlen);
	memcpy(text, msg, mlen);
	text[mlen] = '\0';
	const char *nl = strchr(text, '\n');
	if (!nl || nl == text)
		return form_bad(why, whylen, "commit message has no subject");
	memcpy(subject, text, (size_t)(nl - text));
	subject[nl - text] = '\0';
	if (!strncmp(nl, "\n\nPlayer: ", 10)) {
		const char *pl = nl + 10, *ple = strchr(pl, '\n');
		if (ple && (size_t)(ple - pl) < sizeof player) {
			memcpy(player, pl, (size_t)(ple - pl));
			player[ple - pl] = '\0';
		}
	}
	int turn = store_trailer_int(text, "Turn");
	uint8_t dice[2];
	int has_dice = store_trailer_dice(text, dice);
	store_message(want, sizeof want, subject, player, turn,
		      has_dice > 0 ? dice : NULL);
	if (!player[0] || turn < 0 || has_dice < 0 || strcmp(text, want))
		return form_bad(why, whylen,
				"commit message does not parse: want the "
				"action, a blank line, \"Player: P\", "
				"\"Turn: N\" and on a roll \"Dice: A B\", "
				"nothing else");
	/* A roll and only a roll carries its dice (their values: the replay). */
	bool roll = !strcmp(subject, "roll") || !strncmp(subject, "roll ", 5);
	if (roll != (has_dice > 0))
		return form_bad(why, whylen,
				roll ? "roll commit without a Dice trailer"
				     : "a Dice trailer on a commit that does "
				       "not roll");
	int p = catan_names_find(&g->names, player, strlen(player));
	if (p < 0 || strcmp(player, g->names.name[p]))
		return form_bad(why, whylen,
				"commit message: Player \"%.20s\" is not a "
				"player",
				player);
	const char *an = line[0], *ae = memchr(an, '<', (size_t)(lend[0] - an));
	if (!ae || ae == an || (size_t)(ae - an - 1) != strlen(player) ||
	    memcmp(an, player, strlen(player)))
		return form_bad(why, whylen,
				"commit message does not parse: Player "
				"\"%s\" is not its author \"%.*s\"",
				player, ae && ae > an ? (int)(ae - an - 1) : 0,
				an);
	if (!form_ident(line[0], lend[0], player) ||
	    !form_ident(line[1], lend[1], player))
		return form_bad(why, whylen,
				"author and committer of a commit by %s must "
				"be \"%s <%s@catan> SECONDS +HHMM\"",
				player, player, player);
	if (sig_at &&
	    check_signature(g, p, raw, len, sig_at, sig_end, why, whylen))
		return 1;
	if (np == 0)
		return strcmp(subject, "genesis")
			   ? form_bad(why, whylen,
				      "a root commit that is not "
				      "the genesis")
			   : 0;
	if (np > 1)
		return strcmp(subject, STORE_MERGE_SUBJECT)
			   ? form_bad(why, whylen, "a merge must be \"%s\"",
				      STORE_MERGE_SUBJECT)
			   : 0;
	catan_action a;
	catan_parse_error pe;
	char canon[160];
	if (catan_action_parse(&a, &g->board, &g->names, subject, &pe))
		return form_bad(why, whylen,
				"commit message does not parse: \"%.60s\": %s",
				subject, pe.msg);
	catan_action_format(canon, sizeof canon, &g->board, &g->names, &a);
	if (strcmp(canon, subject))
		return form_bad(why, whylen,
				"subject \"%.60s\" is not canonical (\"%s\")",
				subject, canon);
	return 0;
}

/* store_commit_form of the commit `id` as stored: 0, or 1 (c->rep says). */
static int check_form(ctx *c, const git_oid *id)
{
	git_odb_object *o = NULL;
	char why[300];
	if (git_odb_read(&o, c->s->odb, id))
		return bad(c, id, "unreadable commit");
	int rc =
	    git_odb_object_type(o) != GIT_OBJECT_COMMIT
		? form_bad(why, sizeof why, "not a commit")
		: store_commit_form(c->s, git_odb_object_data(o),
				    git_odb_object_size(o), why, sizeof why);
	git_odb_object_free(o);
	return rc ? bad(c, id, "%s", why) : 0;
}

static int check_tree(ctx *c, const git_oid *id, git_commit *commit,
		      const catan_state *st)
{
	git_oid want;
	if (store_state_tree(&want, c->s, st, false))
		return bad(c, id, "cannot encode the replayed state");
	if (!git_oid_equal(&want, git_commit_tree_id(commit))) {
		/* Name the difference when the tree decodes at all. */
		catan_state got;
		catan_err err;
		if (store_read_state(&got, c->s, git_commit_tree_id(commit),
				     &err))
			return bad(c, id,
				   "tree is not the state the action "
				   "gives: %s",
				   err.msg);
		return bad(c, id,
			   "tree is not the state the action gives "
			   "(its files differ from the replay)");
	}
	return 0;
}

static int check_genesis(ctx *c, git_commit *commit)
{
	const git_oid *id = git_commit_id(commit);
	catan_state st;
	int author;
	const char *subject;
	char buf[160];
	uint8_t dice[2];
	if (!git_oid_equal(id, &c->s->genesis))
		return bad(c, id, "a second root commit");
	if (check_message(c, commit, &author, &subject, buf, sizeof buf, dice))
		return 1;
	if (strcmp(subject, "genesis") || author != 0 || dice[0])
		return bad(c, id, "the root commit must be \"genesis\" by %s",
			   c->s->game.names.name[0]);
	catan_state_init(&st, &c->s->game.board, &c->s->game.opt);
	if (check_tree(c, id, commit, &st))
		return 1;
	seen *e = table_put(&c->t, id);
	if (!e)
		return bad(c, id, "out of memory");
	e->state = st;
	e->author = author;
	return 0;
}

/*
 * In incremental mode: the child of `parent` on the author's own local
 * branch, if that branch already holds one (a second child is a fork).
 */
typedef struct child_of {
	const git_oid *parent;
	const char *author;
	git_oid found;
} child_of;

static int is_child_of(git_commit *k, void *arg)
{
	child_of *w = arg;
	const git_signature *a = git_commit_author(k);
	if (git_oid_equal(git_commit_id(k), w->parent))
		return -2; /* its ancestors hold no child of it */
	for (unsigned i = 0; i < git_commit_parentcount(k); i++)
		if (git_oid_equal(git_commit_parent_id(k, i), w->parent) && a &&
		    a->name && !strcmp(a->name, w->author)) {
			git_oid_cpy(&w->found, git_commit_id(k));
			return 1;
		}
	return 0;
}

static bool trusted_child(ctx *c, git_oid *out, const git_oid *parent,
			  int author)
{
	git_oid head;
	child_of w = {parent, c->s->game.names.name[author], {{0}}};
	int floor = turn_of(c->s, parent);
	if (floor < 0 || store_branch_tip(&head, c->s, author) ||
	    walk_turns(c->s, &head, floor, is_child_of, &w) != 1)
		return false;
	git_oid_cpy(out, &w.found);
	return true;
}

/* Only one child of a commit per author (forks are refused). */
static int check_fork(ctx *c, const git_oid *id, const git_oid *parent,
		      int author)
{
	git_oid other;
	if (c->incremental && trusted_child(c, &other, parent, author) &&
	    !git_oid_equal(&other, id)) {
		char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
		git_oid_tostr(a, sizeof a, &other);
		git_oid_tostr(b, sizeof b, id);
		return bad(c, id,
			   "fork: %s wrote two children of one commit: %s and "
			   "%s",
			   c->s->game.names.name[author], a, b);
	}
	for (size_t i = 0; i < c->t.n; i++) {
		seen *e = table_at(&c->t, i);
		if (!e->trusted && e->author == author &&
		    git_oid_equal(&e->parent, parent) &&
		    !git_oid_equal(&e->id, id)) {
			char a[GIT_OID_HEXSZ + 1], b[GIT_OID_HEXSZ + 1];
			git_oid_tostr(a, sizeof a, &e->id);
			git_oid_tostr(b, sizeof b, id);
			return bad(c, id,
				   "fork: %s wrote two children of one commit: "
				   "%s and %s",
				   c->s->game.names.name[author], a, b);
		}
	}
	return 0;
}

static int check_action(ctx *c, git_commit *commit)
{
	const catan_game *g = &c->s->game;
	const git_oid *id = git_commit_id(commit);
	const git_oid *pid = git_commit_parent_id(commit, 0);
	char buf[160];
	const char *subject;
	int author;
	uint8_t dice[2];
	if (check_message(c, commit, &author, &subject, buf, sizeof buf, dice))
		return 1;
	seen *parent = known(c, pid);
	if (!parent)
		return bad(c, id, "parent was not checked");
	const catan_state *ps = &parent->state;
	catan_action a;
	catan_parse_error pe;
	if (catan_action_parse(&a, &g->board, &g->names, subject, &pe))
		return bad(c, id,
			   "commit message does not parse: \"%.60s\": %s",
			   subject, pe.msg);
	char canon[160];
	catan_action_format(canon, sizeof canon, &g->board, &g->names, &a);
	if (strcmp(canon, subject))
		return bad(c, id, "subject \"%.60s\" is not canonical (\"%s\")",
			   subject, canon);
	if (store_trailer_int(git_commit_message(commit), "Turn") != ps->turn)
		return bad(c, id, "Turn trailer is not the turn (%d)",
			   ps->turn);
	if (!catan_state_may_act(ps, author))
		return bad(
		    c, id, "%s may not act now (%s waits for %s)",
		    g->names.name[author], catan_phase_name(ps->phase),
		    g->names.name[catan_state_next_actor(ps) == CATAN_NONE
				      ? 0
				      : catan_state_next_actor(ps)]);
	/* A discard rests on the 7-roll commit, never on another discard. */
	if (a.kind == CATAN_ACT_DISCARD && parent->discard)
		return bad(c, id,
			   "a discard must have the 7-roll commit as "
			   "parent, not another discard");
	catan_state next;
	int rc = catan_state_apply(&next, &g->board, ps, author, &a, NULL);
	if (rc)
		return bad(c, id, "illegal action \"%s\" by %s: %s", subject,
			   g->names.name[author], catan_error_str(rc));
	/* The Dice trailer: on a roll, exactly the dice the rules rolled. */
	if (a.kind == CATAN_ACT_ROLL &&
	    (dice[0] != next.dice[0] || dice[1] != next.dice[1]))
		return bad(c, id, "Dice trailer is not the roll (%d %d)",
			   next.dice[0], next.dice[1]);
	if (a.kind != CATAN_ACT_ROLL && dice[0])
		return bad(c, id, "a Dice trailer on a commit that does not "
				  "roll");
	/* A discard that leaves others owing must be merged, not extended. */
	if (parent->discard && ps->phase == CATAN_PHASE_DISCARD)
		return bad(c, id,
			   "builds on a discard while discards are "
			   "pending");
	if (check_fork(c, id, pid, author) || check_tree(c, id, commit, &next))
		return 1;
	seen *e = table_put(&c->t, id);
	if (!e)
		return bad(c, id, "out of memory");
	e->state = next;
	e->author = author;
	e->discard = a.kind == CATAN_ACT_DISCARD;
	git_oid_cpy(&e->parent, pid);
	return 0;
}

static int check_merge(ctx *c, git_commit *commit)
{
	const catan_game *g = &c->s->game;
	const git_oid *id = git_commit_id(commit);
	unsigned n = git_commit_parentcount(commit);
	char buf[160];
	const char *subject;
	int author;
	uint8_t dice[2];
	if (check_message(c, commit, &author, &subject, buf, sizeof buf, dice))
		return 1;
	if (strcmp(subject, STORE_MERGE_SUBJECT) || dice[0])
		return bad(c, id, "a merge must be \"%s\"",
			   STORE_MERGE_SUBJECT);
	seen *first = known(c, git_commit_parent_id(commit, 0));
	if (!first || !first->discard)
		return bad(c, id, "merge parents must be discard commits");
	seen *base = known(c, &first->parent);
	if (!base)
		return bad(c, id, "merge base was not checked");
	catan_state st = base->state;
	if (st.phase != CATAN_PHASE_DISCARD || author != st.active)
		return bad(c, id,
			   "only %s, who rolled the 7, merges its discards",
			   g->names.name[st.active]);
	int last = -1, owing = 0;
	for (int p = 0; p < g->opt.nplayers; p++)
		owing += st.discard[p] > 0;
	if ((int)n != owing || n < 2)
		return bad(c, id,
			   "merge has %u parents; %d players owed "
			   "discards",
			   n, owing);
	for (unsigned i = 0; i < n; i++) {
		seen *pe = known(c, git_commit_parent_id(commit, i));
		if (!pe || !pe->discard ||
		    !git_oid_equal(&pe->parent, &base->id))
			return bad(c, id,
				   "merge parent %u is not a discard on "
				   "the 7-roll commit",
				   i + 1);
		if (pe->author <= last)
			return bad(c, id,
				   "merge parents must be in player "
				   "order, one per player");
		last = pe->author;
		/* Each parent's tree is base + its discard; apply it. */
		git_commit *pc = NULL;
		catan_action a;
		if (git_commit_parent(&pc, commit, i))
			return bad(c, id, "cannot read merge parent");
		int rc = catan_action_parse(&a, &g->board, &g->names,
					    git_commit_summary(pc), NULL);
		git_commit_free(pc);
		if (rc || catan_state_apply(&st, &g->board, &st, pe->author, &a,
					    NULL))
			return bad(c, id, "merged discards do not apply");
	}
	if (st.phase == CATAN_PHASE_DISCARD)
		return bad(c, id, "merge leaves discards owed");
	if (check_tree(c, id, commit, &st))
		return 1;
	seen *e = table_put(&c->t, id);
	if (!e)
		return bad(c, id, "out of memory");
	e->state = st;
	e->author = author;
	git_oid_cpy(&e->parent, &base->id);
	c->rep->merges++;
	return 0;
}

/* Branch names, tips and reflogs. */
static int check_branches(ctx *c)
{
	catan_store *s = c->s;
	const catan_game *g = &s->game;
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL;
	int rc = 0;
	if (git_reference_iterator_glob_new(&it, s->repo, "refs/heads/*"))
		return bad(c, NULL, "cannot list branches");
	while (rc == 0 && git_reference_next(&ref, it) == 0) {
		const char *name = git_reference_name(ref) + 11;
		int p = catan_names_find(&g->names, name, strlen(name));
		const git_oid *tip = git_reference_target(ref);
		if (p < 0 || strcmp(name, g->names.name[p]))
			rc = bad(c, tip,
				 "branch refs/heads/%.40s belongs to no "
				 "player",
				 name);
		else if (!tip || !table_get(&c->t, tip))
			rc = bad(c, tip, "tip of %s was not verified", name);
		git_reflog *log = NULL;
		/* (git_reflog_read would create a missing log: ask first.) */
		if (rc == 0 &&
		    git_reference_has_log(s->repo, git_reference_name(ref)) ==
			1 &&
		    git_reflog_read(&log, s->repo, git_reference_name(ref)) ==
			0) {
			size_t n = git_reflog_entrycount(log);
			for (size_t i = 0; i < n && rc == 0; i++) {
				const git_reflog_entry *e =
				    git_reflog_entry_byindex(log, i);
				const git_oid *o = git_reflog_entry_id_old(e);
				const git_oid *nw = git_reflog_entry_id_new(e);
				if (git_oid_is_zero(o) || git_oid_equal(o, nw))
					continue;
				if (store_is_ancestor(s, o, nw) != 1)
					rc = bad(
					    c, nw,
					    "branch %s was rewritten (moved "
					    "from a commit to one that does "
					    "not contain it)",
					    name);
			}
			/*
			 * The newest entry must be where the branch is, or a
			 * forward move from there that never landed: libgit2
			 * appends to the log before it renames the ref into
			 * place, and a peer killed in between leaves exactly
			 * that (the commit exists, the branch did not move,
			 * the action was not reported as done).
			 */
			const git_reflog_entry *last =
			    n > 0 ? git_reflog_entry_byindex(log, 0) : NULL;
			if (rc == 0 && last && tip &&
			    !git_oid_equal(git_reflog_entry_id_new(last),
					   tip) &&
			    !(git_oid_equal(git_reflog_entry_id_old(last),
					    tip) &&
			      store_is_ancestor(
				  s, tip, git_reflog_entry_id_new(last)) == 1))
				rc = bad(c, tip,
					 "branch %s moved outside its "
					 "log",
					 name);
			git_reflog_free(log);
		}
		git_reference_free(ref);
		ref = NULL;
	}
	git_reference_iterator_free(it);
	if (rc)
		return rc;
	/*
	 * Every commit is on its author's own branch: one walk per branch
	 * collects what it holds.
	 */
	oidset on[CATAN_MAX_PLAYERS];
	memset(on, 0, sizeof on);
	for (int p = 0; p < g->opt.nplayers && rc == 0; p++) {
		git_oid tip;
		if (store_branch_tip(&tip, s, p) ||
		    walk_turns(s, &tip, 0, collect, &on[p]) < 0)
			rc = bad(c, NULL, "branch of %s cannot be read",
				 g->names.name[p]);
	}
	for (size_t i = 0; i < c->t.n && rc == 0; i++) {
		seen *e = table_at(&c->t, i);
		if (oidset_add(&on[e->author], &e->id) != 0)
			rc = bad(c, &e->id,
				 "commit by %s is not on its own branch "
				 "refs/heads/%s",
				 g->names.name[e->author],
				 g->names.name[e->author]);
	}
	for (int p = 0; p < CATAN_MAX_PLAYERS; p++)
		free(on[p].id);
	return rc;
}

/* Incremental mode: each new commit is on its author's new branch tip. */
static int check_new_on_own_branch(ctx *c)
{
	for (size_t i = 0; i < c->t.n; i++) {
		seen *e = table_at(&c->t, i);
		if (e->trusted)
			continue;
		const git_oid *tip = &c->newtips[e->author];
		if (store_is_ancestor(c->s, &e->id, tip) != 1) {
			c->rep->off_branch = true;
			c->rep->off_author = e->author;
			return bad(c, &e->id,
				   "commit by %s is not on its own branch "
				   "refs/heads/%s",
				   c->s->game.names.name[e->author],
				   c->s->game.names.name[e->author]);
		}
	}
	return 0;
}

/*
 * Checks every commit `walk` yields (parents first): the genesis, an
 * action or a discard merge. A root is only acceptable in a full check;
 * an incremental one never reaches the (trusted) genesis. Returns 0, or
 * non-zero at the first bad commit (c->rep says which and why).
 */
static int check_walk(ctx *c, git_revwalk *walk)
{
	git_oid id;
	int rc = 0;
	while (rc == 0 && git_revwalk_next(&id, walk) == 0) {
		git_commit *commit = NULL;
		if (check_form(c, &id))
			return 1;
		if (git_commit_lookup(&commit, c->s->repo, &id))
			return bad(c, &id, "unreadable commit");
		unsigned n = git_commit_parentcount(commit);
		rc = n == 0
			 ? (c->incremental ? bad(c, &id, "a second root commit")
					   : check_genesis(c, commit))
		     : n == 1 ? check_action(c, commit)
			      : check_merge(c, commit);
		git_commit_free(commit);
		c->rep->commits++;
	}
	return rc;
}

/*
 * The commits reachable from newtips[] that no local branch holds, parents
 * before children, in *out (malloc'ed, *n of them). A commit is held when
 * it is an ancestor of a local tip, which store_is_ancestor decides by
 * walking back only through the turns since it: the work is what is new,
 * not the game's length. (libgit2's revwalk with the local tips hidden
 * orders by commit time, and commits of one second tie.) A commit that
 * cannot be read is listed all the same: the check reports it. Each new
 * commit's form is checked as it is met (check_form), as are the limits
 * on their number and on time: at the first that fails the walk stops,
 * cx->rep says which and why, and *out lists the commits met so far (in
 * no order) for the caller to attribute it. Returns 0; 1 then; -1 out of
 * memory.
 */
static int new_commits(ctx *cx, const git_oid *newtips, git_oid **out,
		       size_t *nout)
{
	catan_store *s = cx->s;
	long limit = s->lim.commits > 0 ? s->lim.commits : 10000;
	int np = s->game.opt.nplayers, nl = 0;
	git_oid local[CATAN_MAX_PLAYERS];
	oidset visited = {NULL, 0, 0}, listed = {NULL, 0, 0};
	git_oid *todo = NULL, *found = NULL;
	size_t n = 0, cap = 0, nf = 0, fcap = 0;
	int rc = -1;

	*out = NULL;
	*nout = 0;
	for (int p = 0; p < np; p++) {
		git_oid t;
		bool dup = false;
		if (store_branch_tip(&t, s, p))
			continue;
		for (int k = 0; k < nl; k++)
			dup |= git_oid_equal(&local[k], &t);
		if (!dup)
			local[nl++] = t;
	}
	/* Newest first: every commit that is new, with its parents. */
	for (int p = 0; p < np; p++) {
		git_oid *more = store_reserve(todo, &cap, n + 1, sizeof *todo);
		if (!more)
			goto done;
		todo = more;
		todo[n++] = newtips[p];
	}
	while (n > 0) {
		git_oid id = todo[--n];
		int added = oidset_add(&visited, &id);
		if (added < 0)
			goto done;
		if (added == 0)
			continue;
		bool held = false;
		for (int k = 0; k < nl && !held; k++)
			held = store_is_ancestor(s, &id, &local[k]) == 1;
		if (held)
			continue;
		git_oid *more =
		    store_reserve(found, &fcap, nf + 1, sizeof *found);
		if (!more)
			goto done;
		found = more;
		found[nf++] = id;
		if (oidset_add(&listed, &id) < 0)
			goto done;
		/*
		 * Its form (and the limits) before anything else: junk is
		 * refused at the first bad commit met, not walked through.
		 */
		if ((long)nf > limit || store_past_deadline(s) ||
		    check_form(cx, &id)) {
			if ((long)nf > limit)
				bad(cx, &id, "more than %s (%ld) new commits",
				    "CATAN_SYNC_MAX_COMMITS", limit);
			else if (store_past_deadline(s)) {
				cx->rep->timed_out = true;
				bad(cx, &id,
				    "gave up: over CATAN_SYNC_REMOTE_MS (%ld "
				    "ms)",
				    s->lim.remote_ms);
			}
			*out = found;
			*nout = nf;
			found = NULL;
			rc = 1;
			goto done;
		}
		git_commit *c = NULL;
		if (git_commit_lookup(&c, s->repo, &id))
			continue;
		unsigned np2 = git_commit_parentcount(c);
		more = store_reserve(todo, &cap, n + np2, sizeof *todo);
		if (!more) {
			git_commit_free(c);
			goto done;
		}
		todo = more;
		for (unsigned i = 0; i < np2; i++)
			todo[n++] = *git_commit_parent_id(c, i);
		git_commit_free(c);
	}
	/*
	 * Parents first: a depth-first post-order over the listed commits
	 * (todo is the stack; a commit is pushed back above its unlisted
	 * parents and emitted when it comes up again with all of them out).
	 */
	oidset emitted = {NULL, 0, 0};
	git_oid *order = malloc((nf ? nf : 1) * sizeof *order);
	size_t no = 0;
	if (!order)
		goto done;
	for (size_t i = nf; i-- > 0;) {
		n = 0;
		todo[n++] = found[i];
		while (n > 0) {
			git_oid id = todo[n - 1];
			git_commit *c = NULL;
			bool ready = true;
			size_t at = n;
			if (oidset_has(&emitted, &id)) {
				n--;
				continue;
			}
			if (git_commit_lookup(&c, s->repo, &id) == 0) {
				unsigned k = git_commit_parentcount(c);
				git_oid *more = store_reserve(todo, &cap, n + k,
							      sizeof *todo);
				if (!more) {
					git_commit_free(c);
					free(order);
					free(emitted.id);
					goto done;
				}
				todo = more;
				for (unsigned j = k; j-- > 0;) {
					const git_oid *pid =
					    git_commit_parent_id(c, j);
					if (oidset_has(&listed, pid) &&
					    !oidset_has(&emitted, pid)) {
						todo[n++] = *pid;
						ready = false;
					}
				}
				git_commit_free(c);
			}
			if (!ready)
				continue;
			n = at - 1;
			if (oidset_add(&emitted, &id) < 0) {
				free(order);
				free(emitted.id);
				goto done;
			}
			order[no++] = id;
		}
	}
	free(emitted.id);
	*out = order;
	*nout = no;
	rc = 0;
done:
	free(todo);
	free(found);
	free(visited.id);
	free(listed.id);
	return rc;
}

/*
 * Which candidates hold the bad commit rep->bad: bit p of rep->holders
 * for each newtips[p] from which it is reached through the new commits
 * ids[0..n) (a path to a new commit passes only through new ones: what a
 * local branch holds, its ancestors are held too). Decided by reachability
 * alone, never by Turn trailers (a commit without one, or lying, is still
 * attributed). Returns 0, or -1 out of memory.
 */
static int holders(catan_store *s, const git_oid *newtips, const git_oid *ids,
		   size_t n, catan_verify_report *rep)
{
	oidset fresh = {NULL, 0, 0};
	git_oid badid, *todo = NULL;
	size_t cap = 0;
	int rc = 0;
	if (git_oid_fromstr(&badid, rep->bad.hex))
		return 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = oidset_add(&fresh, &ids[i]) < 0 ? -1 : 0;
	for (int p = 0; p < s->game.opt.nplayers && rc == 0; p++) {
		oidset done = {NULL, 0, 0};
		size_t k = 0;
		bool found = false;
		if (!oidset_has(&fresh, &newtips[p]))
			continue;
		git_oid *room = store_reserve(todo, &cap, 1, sizeof *todo);
		if (!room) {
			rc = -1;
			break;
		}
		todo = room;
		todo[k++] = newtips[p];
		while (k > 0 && !found && rc == 0) {
			git_oid id = todo[--k];
			git_commit *c = NULL;
			int added = oidset_add(&done, &id);
			if (added <= 0) {
				rc = added;
				continue;
			}
			if ((found = git_oid_equal(&id, &badid)) ||
			    git_commit_lookup(&c, s->repo, &id))
				continue;
			unsigned np = git_commit_parentcount(c);
			git_oid *more =
			    store_reserve(todo, &cap, k + np, sizeof *todo);
			if (!more)
				rc = -1;
			else
				todo = more;
			for (unsigned i = 0; more && i < np; i++)
				if (oidset_has(&fresh,
					       git_commit_parent_id(c, i)))
					todo[k++] = *git_commit_parent_id(c, i);
			git_commit_free(c);
		}
		free(done.id);
		if (found)
			rep->holders |= 1u << p;
	}
	free(todo);
	free(fresh.id);
	return rc;
}

int store_verify_new(catan_store *s, const git_oid *newtips,
		     catan_verify_report *rep, catan_err *err)
{
	ctx c = {s, {NULL, 0, 0, NULL, 0}, rep, true, newtips};
	git_oid *ids = NULL, last;
	size_t n = 0;
	int rc = 0;

	memset(rep, 0, sizeof *rep);
	rep->ok = true;
	rc = new_commits(&c, newtips, &ids, &n);
	if (rc < 0)
		return store_fail(err, "out of memory walking the new commits");
	for (size_t i = 0; i < n && rc == 0; i++) {
		git_commit *commit = NULL;
		if (store_past_deadline(s)) {
			rep->timed_out = true;
			rc = bad(&c, &ids[i],
				 "gave up: over CATAN_SYNC_REMOTE_MS (%ld ms)",
				 s->lim.remote_ms);
			break;
		}
		if (git_commit_lookup(&commit, s->repo, &ids[i])) {
			rc = bad(&c, &ids[i], "unreadable commit");
			break;
		}
		unsigned np = git_commit_parentcount(commit);
		rc = np == 0   ? bad(&c, &ids[i], "a second root commit")
		     : np == 1 ? check_action(&c, commit)
			       : check_merge(&c, commit);
		git_commit_free(commit);
		rep->commits++;
		last = ids[i];
	}
	if (rc == 0)
		rc = check_new_on_own_branch(&c);
	if (rc && holders(s, newtips, ids, n, rep))
		rc = store_fail(err, "out of memory walking the new commits");
	/*
	 * The newest state checked is the one the next action or sync most
	 * likely starts from: keep it at hand (catan_store_current, known()).
	 */
	for (size_t i = n > STORE_STATE_MEMO ? n - STORE_STATE_MEMO : 0;
	     rc == 0 && i < n; i++) {
		seen *k = table_get(&c.t, &ids[i]);
		store_state_memo *m = &s->states[s->states_next];
		if (!k)
			continue;
		m->id = ids[i];
		m->state = k->state;
		s->states_next = (s->states_next + 1) % STORE_STATE_MEMO;
	}
	seen *e = rc == 0 && n > 0 ? table_get(&c.t, &last) : NULL;
	if (e) {
		s->cached = true;
		s->cache_discard = e->discard;
		git_oid_cpy(&s->cache_id, &last);
		s->cache_state = e->state;
	}
	free(ids);
	table_free(&c.t);
	return rc < 0 ? -1 : 0;
}

int catan_store_verify(catan_store *s, catan_verify_report *rep, catan_err *err)
{
	ctx c = {s, {NULL, 0, 0, NULL, 0}, rep, false, NULL};
	git_revwalk *walk = NULL;
	int rc = 0;

	memset(rep, 0, sizeof *rep);
	rep->ok = true;
	if (git_revwalk_new(&walk, s->repo) ||
	    git_revwalk_push_glob(walk, "refs/heads/*")) {
		git_revwalk_free(walk);
		return store_git_fail(err, "walking the history");
	}
	git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	rc = check_walk(&c, walk);
	git_revwalk_free(walk);
	if (rc == 0)
		check_branches(&c);
	table_free(&c.t);
	return 0;
}

/* ---- for the fuzzing harnesses (fuzz_internal.h) ---- */

#include "fuzz_internal.h"

int store_fuzz_check_message(const catan_game *g, git_commit *commit,
			     int *author, char *subject, size_t size, char *why,
			     size_t whylen)
{
	catan_verify_report rep;
	const char *sub = NULL;
	int rc = 1;
	catan_store *s = calloc(1, sizeof *s);
	memset(&rep, 0, sizeof rep);
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return 1;
	}
	s->game = *g;
	ctx c = {s, {NULL, 0, 0, NULL, 0}, &rep, false, NULL};
	uint8_t dice[2];
	rc = check_message(&c, commit, author, &sub, subject, size, dice);
	snprintf(why, whylen, "%s", rc ? rep.why : "");
	free(s);
	return rc;
}
