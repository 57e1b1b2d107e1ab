/*
 * catan/sign.h - player keys and commit signatures, in the formats of
 * OpenSSH and git, so that stock tools check what catan writes:
 *
 *  - a key is Ed25519, stored as OpenSSH stores it (`ssh-keygen -t
 *    ed25519` makes one catan reads; `catan keygen` makes one ssh reads);
 *  - a public key is written `ssh-ed25519 <base64> [comment]`;
 *  - the game's signers file (game/signers) is git's allowed_signers
 *    format, one seat per line: `<player>@catan namespaces="git"
 *    ssh-ed25519 <base64>`;
 *  - a signature is an armored SSHSIG (OpenSSH's PROTOCOL.sshsig) in the
 *    namespace `git` with SHA-512, which git stores in a commit's `gpgsig`
 *    header and checks with `git verify-commit` given gpg.format=ssh and
 *    gpg.ssh.allowedSignersFile.
 *
 * The cryptography is libsodium's (Ed25519, SHA-512, base64, random
 * bytes); this module only encodes and decodes. Every parser here reads
 * untrusted bytes: it never reads past its input, returns -1 and fills
 * `why` (a short reason) on anything it does not accept.
 */
#ifndef CATAN_SIGN_H
#define CATAN_SIGN_H

#include <stddef.h>

#define CATAN_PUBKEY_LEN 32
#define CATAN_SECKEY_LEN                                                       \
	64 /* libsodium's: the 32-byte seed, then the public key */

/* Room for an armored signature: 5 lines of base64 and the frames. */
#define CATAN_SSHSIG_MAX 512
/* Room for `ssh-ed25519 <68 base64>` and a NUL, without comment. */
#define CATAN_PUBKEY_TEXT 96

typedef struct catan_key {
	unsigned char pk[CATAN_PUBKEY_LEN];
	unsigned char sk[CATAN_SECKEY_LEN];
} catan_key;

/* A reason for a refusal, for the caller to put into its own message. */
typedef struct catan_sign_why {
	char msg[160];
	int line; /* catan_signers_parse: the line at fault (1-based), or 0 */
} catan_sign_why;

/* Makes a new key from the system's random source. Returns 0 or -1. */
int catan_key_generate(catan_key *out, catan_sign_why *why);

/* The key of a 32-byte seed (tests and fuzzing: the same key every run). */
void catan_key_from_seed(catan_key *out, const unsigned char seed[32]);

/*
 * Writes `k` to `path` as an unencrypted OpenSSH private key (mode 0600,
 * refused if the file exists) and its public key to `path`.pub, with
 * `comment` (may be NULL). Returns 0 or -1.
 */
int catan_key_save(const catan_key *k, const char *path, const char *comment,
		   catan_sign_why *why);

/*
 * Reads an OpenSSH private key file holding one unencrypted Ed25519 key
 * (a passphrase-protected key is refused, naming the file). Returns 0 or -1.
 */
int catan_key_load(catan_key *out, const char *path, catan_sign_why *why);

/*
 * Writes `ssh-ed25519 <base64>` for `pk` into `out` (at least
 * CATAN_PUBKEY_TEXT bytes). Cannot fail.
 */
void catan_pubkey_format(char *out, const unsigned char pk[CATAN_PUBKEY_LEN]);

/*
 * Writes the key's fingerprint as `ssh-keygen -l` prints it, "SHA256:"
 * and 43 base64 characters, into `out` (CATAN_FINGERPRINT_TEXT bytes).
 * Cannot fail.
 */
#define CATAN_FINGERPRINT_TEXT 52
void catan_pubkey_fingerprint(char *out,
			      const unsigned char pk[CATAN_PUBKEY_LEN]);

/*
 * Reads `ssh-ed25519 <base64>` from the start of `text` (len bytes; a
 * comment after a space is ignored). Sets *used to the bytes of the two
 * words when `used` is not NULL. Returns 0 or -1.
 */
int catan_pubkey_parse(unsigned char pk[CATAN_PUBKEY_LEN], const char *text,
		       size_t len, size_t *used, catan_sign_why *why);

/*
 * Signs `msg` for namespace `git`: writes the armored SSHSIG (lines of 70
 * base64 characters between the BEGIN and END lines, each line ending in
 * "\n") into `out` (CATAN_SSHSIG_MAX bytes, NUL-terminated). Ed25519 is
 * deterministic: one key and message give one signature text. Returns its
 * length; cannot fail.
 */
size_t catan_sshsig_sign(char *out, const catan_key *k, const void *msg,
			 size_t len);

/*
 * Checks an armored SSHSIG: exactly the text catan_sshsig_sign writes
 * (`armor`, alen bytes), namespace `git`, SHA-512, an Ed25519 key, and a
 * valid signature of `msg` by that key, whose public key goes to
 * `signer`. Returns 0, or -1 with the reason.
 */
int catan_sshsig_verify(unsigned char signer[CATAN_PUBKEY_LEN],
			const char *armor, size_t alen, const void *msg,
			size_t len, catan_sign_why *why);

/*
 * The signers file: one line per player, in player order,
 * `<name>@catan namespaces="git" ssh-ed25519 <base64>\n`.
 * catan_signers_format writes it into `out` (n bytes; returns the length,
 * or -1 when it does not fit); catan_signers_parse reads exactly that text
 * for the `n` players named in `names` (each key distinct) into `keys`.
 */
int catan_signers_format(char *out, size_t n, const char *const names[],
			 const unsigned char (*keys)[CATAN_PUBKEY_LEN],
			 int count);
int catan_signers_parse(unsigned char (*keys)[CATAN_PUBKEY_LEN],
			const char *text, size_t len, const char *const names[],
			int count, catan_sign_why *why);

#endif
