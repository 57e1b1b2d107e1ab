/*
 * verify.h - layer 5 of src/store: where a commit is verified. form.c
 * checks a raw commit's bytes have the form catan writes; verify.c checks
 * one commit against its parents' states (the rules replayed); verify_new.c
 * picks the commits to check (all of them for catan verify, only those the
 * local branches lack for a sync) and walks them. Read-only. Uses state.h
 * and below; used by adopt.c and sync.c (layers 6-7).
 */
#ifndef CATAN_STORE_VERIFY_H
#define CATAN_STORE_VERIFY_H

#include "state.h"

/*
 * Whether the raw commit raw[0..len) (as stored: headers, a blank line,
 * the message) has exactly the form catan writes: "tree", "parent" lines
 * (at most STORE_MAX_PARENTS), "author" and "committer" (the same player,
 * "P <P@catan> SECONDS +HHMM"), no other header (no gpgsig, no encoding,
 * no mergetag), no NUL byte, a message of at most s->lim.message bytes
 * "SUBJECT\n\nPlayer: P\nTurn: N\n", then "Dice: A B\n" (each 1..6) if
 * and only if the subject is a roll, and nothing after it, the subject
 * an action in canonical form ("merge discards" for a merge). Says
 * nothing about whether the action is legal (the replay does). 0, or 1
 * and why (naming the limit when one is passed). Cannot fail otherwise.
 */
int store_commit_form(const catan_store *s, const char *raw, size_t len,
		      char *why, size_t whylen);

/*
 * The key whose valid SSH signature the signed raw commit carries (any
 * key). 0, or -1 when it carries none that verifies. form.c.
 */
int store_commit_signer(unsigned char signer[CATAN_PUBKEY_LEN],
			const catan_store *s, const char *raw, size_t len);
/* The same for the stored commit `id`. 0, or -1. form.c. */
int store_commit_signer_of(unsigned char signer[CATAN_PUBKEY_LEN],
			   catan_store *s, const git_oid *id);

/*
 * Verifies the commits reachable from newtips[p] (one per player) that the
 * local branches do not hold yet, trusting the local branches (verified
 * when they were adopted). Reads only the repository; when every new
 * commit is valid, the state of the newest one becomes the handle's cached
 * state (the next action or sync starts from it). Returns -1 only if it
 * cannot run.
 */
int store_verify_new(catan_store *s, const git_oid *newtips,
		     catan_verify_report *rep, catan_err *err);

#endif
