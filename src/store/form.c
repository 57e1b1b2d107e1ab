/*
 * form.c - layer 5 (verify): whether a raw commit has exactly the form
 * catan writes (store_commit_form), before libgit2 parses it. Says nothing
 * about whether its action is legal (verify.c replays it).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby.h"
#include "verify_ctx.h"

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

int store_form_bad(char *why, size_t whylen, const char *fmt, ...)
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
 * with the reason (whose key signed, when it is another's). With `any`
 * (a claim of a lobby's open seat) any key's valid signature passes:
 * verify_lobby.c then compares the signer with the key the claim
 * presents (store_commit_signer).
 */
static int check_signature(const catan_game *g, int p, bool any,
			   unsigned char signer[CATAN_PUBKEY_LEN],
			   const char *raw, size_t len, const char *sig_at,
			   const char *sig_end, char *why, size_t whylen)
{
	char armor[CATAN_SSHSIG_MAX + 1], small[4096];
	size_t al = 0;
	for (const char *c = sig_at + 7; c < sig_end; c++) {
		if (al == CATAN_SSHSIG_MAX)
			return store_form_bad(
			    why, whylen, "commit's signature is over %d bytes",
			    CATAN_SSHSIG_MAX);
		armor[al++] = *c;
		if (*c == '\n' && c + 1 < sig_end)
			c++; /* the space that continues the header */
	}
	size_t pl = len - (size_t)(sig_end - sig_at);
	char *payload = pl <= sizeof small ? small : malloc(pl);
	if (!payload)
		return store_form_bad(why, whylen, "out of memory");
	memcpy(payload, raw, (size_t)(sig_at - raw));
	memcpy(payload + (sig_at - raw), sig_end,
	       (size_t)(raw + len - sig_end));
	catan_sign_why sw = {{0}, 0};
	int bad = catan_sshsig_verify(signer, armor, al, payload, pl, &sw);
	if (payload != small)
		free(payload);
	if (bad)
		return store_form_bad(why, whylen, "bad signature by %s: %s",
				      g->names.name[p], sw.msg);
	if (any || !memcmp(signer, g->keys[p], CATAN_PUBKEY_LEN))
		return 0;
	for (int q = 0; q < g->opt.nplayers; q++)
		if (!memcmp(signer, g->keys[q], CATAN_PUBKEY_LEN))
			return store_form_bad(
			    why, whylen,
			    "commit by %s is signed with %s's key "
			    "(a player acting in another's name)",
			    g->names.name[p], g->names.name[q]);
	return store_form_bad(
	    why, whylen,
	    "commit by %s is signed with a key that is not in the "
	    "game (game/signers)",
	    g->names.name[p]);
}

/*
 * The headers of the raw commit raw[0..len): no NUL byte, "tree", at most
 * STORE_MAX_PARENTS "parent" lines (*np), "author" and "committer" (their
 * values at line[k]..lend[k]), in a signed game "gpgsig" (its lines at
 * sig[0]..sig[1]), and the blank line, nothing else; *msg then points at
 * the message. 0, or 1 and why.
 */
static int form_headers(const char *raw, size_t len, bool signed_game,
			unsigned *np, const char *line[2], const char *lend[2],
			const char *sig[2], const char **msg, char *why,
			size_t whylen)
{
	const char *d = raw, *end = raw + len;
	if (memchr(raw, '\0', len))
		return store_form_bad(why, whylen,
				      "commit holds a NUL byte (git fsck: "
				      "nulInCommit)");
	if (len < 46 || memcmp(d, "tree ", 5) || d[45] != '\n')
		return store_form_bad(why, whylen,
				      "commit does not start with its "
				      "tree");
	d += 46;
	while (end - d >= 48 && !memcmp(d, "parent ", 7) && d[47] == '\n') {
		if (++*np > STORE_MAX_PARENTS)
			return store_form_bad(
			    why, whylen,
			    "commit has more than "
			    "CATAN_SYNC_MAX_PARENTS (%d) parents",
			    STORE_MAX_PARENTS);
		d += 48;
	}
	/* author, committer, a blank line: exactly what catan writes. */
	static const char *const key[2] = {"author ", "committer "};
	for (int k = 0; k < 2; k++) {
		const char *nl = memchr(d, '\n', (size_t)(end - d));
		size_t kl = strlen(key[k]);
		if (!nl || (size_t)(nl - d) < kl || memcmp(d, key[k], kl)) {
			const char *sp =
			    nl ? memchr(d, ' ', (size_t)(nl - d)) : NULL;
			return store_form_bad(
			    why, whylen,
			    "commit has a header \"%.*s\" where "
			    "\"%.*s\" belongs (only tree, parent, "
			    "author and committer are written)",
			    sp ? (int)(sp - d > 20 ? 20 : sp - d) : 0, d,
			    (int)kl - 1, key[k]);
		}
		line[k] = d + kl;
		lend[k] = nl;
		d = nl + 1;
	}
	/* A signed game: the signature, as `git commit -S` writes it. */
	if (signed_game) {
		if (end - d < 7 || memcmp(d, "gpgsig ", 7))
			return store_form_bad(
			    why, whylen,
			    "commit is not signed (this game takes only "
			    "commits with an SSH signature by the author's "
			    "key in a gpgsig header)");
		sig[0] = d;
		const char *nl = memchr(d, '\n', (size_t)(end - d));
		while (nl && end - nl > 1 && nl[1] == ' ')
			nl = memchr(nl + 1, '\n', (size_t)(end - nl - 1));
		if (!nl)
			return store_form_bad(
			    why, whylen, "commit's signature is cut short");
		sig[1] = d = nl + 1;
	}
	if (d >= end || *d != '\n') {
		const char *sp = memchr(d, ' ', (size_t)(end - d));
		return store_form_bad(
		    why, whylen,
		    "commit has an extra header \"%.*s\" (only "
		    "tree, parent, author and committer are "
		    "written)",
		    sp ? (int)(sp - d > 20 ? 20 : sp - d) : 0, d);
	}
	*msg = d + 1;
	return 0;
}

/*
 * The message msg[0..mlen) of a commit, "SUBJECT\n\nPlayer: P\nTurn:
 * N\n" and on a roll "Dice: A B\n", exactly as store_message writes it;
 * a roll and only a roll with dice. subject and player (the name the
 * message gives, not yet checked against the players or the author) are
 * filled. 0, or 1 and why.
 */
static int form_message(const catan_game *g, const char *msg, size_t mlen,
			char subject[STORE_MAX_MESSAGE],
			char player[CATAN_NAME_MAX + 1], char *why,
			size_t whylen)
{
	char text[STORE_MAX_MESSAGE];
	/* One byte more than any text: a message cut short never matches. */
	char want[STORE_MAX_MESSAGE + 1];
	if (mlen >= sizeof text)
		return store_form_bad(why, whylen,
				      "commit message of %zu bytes is over "
				      "CATAN_SYNC_MAX_MESSAGE",
				      mlen);
	memcpy(text, msg, mlen);
	text[mlen] = '\0';
	const char *nl = strchr(text, '\n');
	if (!nl || nl == text)
		return store_form_bad(why, whylen,
				      "commit message has no subject");
	memcpy(subject, text, (size_t)(nl - text));
	subject[nl - text] = '\0';
	if (!strncmp(nl, "\n\nPlayer: ", 10)) {
		const char *pl = nl + 10, *ple = strchr(pl, '\n');
		if (ple && (size_t)(ple - pl) < CATAN_NAME_MAX + 1) {
			memcpy(player, pl, (size_t)(ple - pl));
			player[ple - pl] = '\0';
		}
	}
	int turn = store_trailer_int(text, "Turn");
	uint8_t dice[2];
	int has_dice = store_trailer_dice(text, dice);
	bool fair = g->opt.dice == CATAN_DICE_FAIR;
	store_message(want, sizeof want, subject, player, turn,
		      has_dice > 0 ? dice : NULL);
	if (!player[0] || turn < 0 || has_dice < 0 || strcmp(text, want))
		return store_form_bad(why, whylen,
				      "commit message does not parse: want the "
				      "action, a blank line, \"Player: P\", "
				      "\"Turn: N\" and on a roll \"Dice: A "
				      "B\", nothing else");
	/*
	 * A roll and only a roll carries its dice (their values: the replay);
	 * with fair dice, not the request "roll", which has none yet.
	 */
	bool roll = (!strcmp(subject, "roll") && !fair) ||
		    !strncmp(subject, "roll ", 5);
	if (roll != (has_dice > 0))
		return store_form_bad(
		    why, whylen,
		    roll ? "roll commit without a Dice trailer"
			 : "a Dice trailer on a commit that does "
			   "not roll");
	return 0;
}

int store_commit_form(const catan_store *s, const char *raw, size_t len,
		      char *why, size_t whylen)
{
	const catan_game *g = &s->game;
	const char *end = raw + len;
	long maxmsg = s->budget.lim.message > 0 ? s->budget.lim.message
						: STORE_DEFAULT_MESSAGE;
	long maxobj =
	    s->budget.lim.object > 0 ? s->budget.lim.object : STORE_MAX_OBJECT;
	unsigned np = 0;
	if ((long)len > maxobj)
		return store_form_bad(why, whylen,
				      "commit of %zu bytes is over "
				      "CATAN_SYNC_MAX_OBJECT (%ld)",
				      len, maxobj);
	const char *line[2] = {NULL, NULL}, *lend[2] = {NULL, NULL}, *msg = end;
	const char *sig[2] = {NULL, NULL};
	int bad = form_headers(raw, len, g->signed_game, &np, line, lend, sig,
			       &msg, why, whylen);
	if (bad)
		return bad;
	size_t mlen = (size_t)(end - msg);
	if ((long)mlen > maxmsg)
		return store_form_bad(why, whylen,
				      "commit message of %zu bytes is over "
				      "CATAN_SYNC_MAX_MESSAGE (%ld)",
				      mlen, maxmsg);
	char subject[STORE_MAX_MESSAGE], player[CATAN_NAME_MAX + 1] = "";
	int bad_msg = form_message(g, msg, mlen, subject, player, why, whylen);
	if (bad_msg)
		return bad_msg;
	int p = catan_names_find(&g->names, player, strlen(player));
	if (p < 0 || strcmp(player, g->names.name[p]))
		return store_form_bad(
		    why, whylen,
		    "commit message: Player \"%.20s\" is not a "
		    "player",
		    player);
	const char *an = line[0], *ae = memchr(an, '<', (size_t)(lend[0] - an));
	if (!ae || ae == an || (size_t)(ae - an - 1) != strlen(player) ||
	    memcmp(an, player, strlen(player)))
		return store_form_bad(
		    why, whylen,
		    "commit message does not parse: Player "
		    "\"%s\" is not its author \"%.*s\"",
		    player, ae && ae > an ? (int)(ae - an - 1) : 0, an);
	if (!form_ident(line[0], lend[0], player) ||
	    !form_ident(line[1], lend[1], player))
		return store_form_bad(
		    why, whylen,
		    "author and committer of a commit by %s must "
		    "be \"%s <%s@catan> SECONDS +HHMM\"",
		    player, player, player);
	/* A lobby's claim and start (verify_lobby.c checks the rest). */
	bool claim =
	    s->lobby.open && np == 1 && !strcmp(subject, STORE_CLAIM_SUBJECT);
	unsigned char signer[CATAN_PUBKEY_LEN];
	if (claim && !(s->lobby.open & (1u << p)))
		return store_form_bad(why, whylen, LOBBY_WHY_BOUND_SEAT,
				      player);
	/*
	 * Before this handle knows the start, a seat still open has no key
	 * to check against: any valid signature passes here, and the
	 * verification checks the form again once the start it walks
	 * through binds the seat (store_commit_form_id keeps no such pass).
	 */
	bool unbound = (s->game.open & (1u << p)) != 0;
	if (sig[0] && check_signature(g, p, claim || unbound, signer, raw, len,
				      sig[0], sig[1], why, whylen))
		return 1;
	if (claim ||
	    (s->lobby.open && np >= 1 && !strcmp(subject, STORE_START_SUBJECT)))
		return 0;
	if (np == 0)
		return strcmp(subject, "genesis")
			   ? store_form_bad(why, whylen,
					    "a root commit that is not "
					    "the genesis")
			   : 0;
	/* Fair dice: a completion may merge the reveals of its request. */
	if (np > 1 && !strcmp(subject, STORE_MERGE_SUBJECT))
		return 0;
	/* (An expulsion carries its proof as its last two parents.) */
	bool expel = g->signed_game && !strncmp(subject, "expel ", 6);
	if (np > 1 && g->opt.dice != CATAN_DICE_FAIR && !expel)
		return store_form_bad(why, whylen, "a merge must be \"%s\"",
				      STORE_MERGE_SUBJECT);
	catan_action a;
	catan_parse_error pe;
	char canon[160];
	if (catan_action_parse(&a, &g->board, &g->names, subject, &pe))
		return store_form_bad(
		    why, whylen, "commit message does not parse: \"%.60s\": %s",
		    subject, pe.msg);
	catan_action_format(canon, sizeof canon, &g->board, &g->names, &a);
	if (strcmp(canon, subject))
		return store_form_bad(
		    why, whylen, "subject \"%.60s\" is not canonical (\"%s\")",
		    subject, canon);
	return 0;
}

int store_commit_signer(unsigned char signer[CATAN_PUBKEY_LEN],
			const catan_store *s, const char *raw, size_t len)
{
	const char *line[2] = {NULL, NULL}, *lend[2] = {NULL, NULL};
	const char *sig[2] = {NULL, NULL}, *msg = NULL;
	unsigned np = 0;
	char why[300];
	return form_headers(raw, len, true, &np, line, lend, sig, &msg, why,
			    sizeof why) ||
		       check_signature(&s->game, 0, true, signer, raw, len,
				       sig[0], sig[1], why, sizeof why)
		   ? -1
		   : 0;
}

int store_commit_signer_of(unsigned char signer[CATAN_PUBKEY_LEN],
			   catan_store *s, const git_oid *id)
{
	git_odb_object *o = NULL;
	if (git_odb_read(&o, s->odb, id))
		return -1;
	int rc = store_commit_signer(signer, s, git_odb_object_data(o),
				     git_odb_object_size(o));
	git_odb_object_free(o);
	return rc;
}
