/*
 * fuzz_sign.c - the readers of keys and signatures a peer sends (sign.c):
 * an armored SSH signature in a commit's gpgsig header, the signers file
 * of a genesis (game/signers), a public key line.
 *
 * Input: one byte of mode, then bytes. Mode % 3 == 0: the rest is an
 * armored signature checked against a fixed message; 1: a signers file
 * for the players red, blue, white; 2: a public key line.
 * Invariants: an accepted signature is one of the fixed keys' signature
 * of the message byte for byte (Ed25519 is deterministic, and the checker
 * accepts one text per signature); an accepted signers file is byte for
 * byte what catan_signers_format writes for the keys read; an accepted
 * key line's two words are what catan_pubkey_format writes.
 */
#include <string.h>

#include "catan/sign.h"
#include "fuzz.h"

static const char msg[] = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
			  "author red <red@catan> 1700000000 +0000\n"
			  "committer red <red@catan> 1700000000 +0000\n\n"
			  "genesis\n\nPlayer: red\nTurn: 0\n";
static catan_key keys[3];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	for (int i = 0; i < 3; i++) {
		unsigned char seed[32] = {(unsigned char)(i + 1)};
		catan_key_from_seed(&keys[i], seed);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[3] = {"red", "blue", "white"};
	catan_sign_why why;
	if (size < 1)
		return 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	switch (data[0] % 3) {
	case 0: {
		unsigned char signer[CATAN_PUBKEY_LEN];
		if (catan_sshsig_verify(signer, text, len, msg, strlen(msg),
					&why))
			return 0;
		int k = -1;
		for (int i = 0; i < 3; i++)
			if (!memcmp(signer, keys[i].pk, CATAN_PUBKEY_LEN))
				k = i;
		FUZZ_CHECK(k >= 0); /* nobody else signed anything */
		char again[CATAN_SSHSIG_MAX];
		size_t al =
		    catan_sshsig_sign(again, &keys[k], msg, strlen(msg));
		FUZZ_CHECK(al == len && !memcmp(again, text, len));
		break;
	}
	case 1: {
		unsigned char got[3][CATAN_PUBKEY_LEN];
		if (catan_signers_parse(got, text, len, names, 3, &why))
			return 0;
		char again[1024];
		int n =
		    catan_signers_format(again, sizeof again, names,
					 (const unsigned char(*)[32])got, 3);
		FUZZ_CHECK(n >= 0 && (size_t)n == len &&
			   !memcmp(again, text, len));
		break;
	}
	default: {
		unsigned char pk[CATAN_PUBKEY_LEN];
		size_t used;
		if (catan_pubkey_parse(pk, text, len, &used, &why))
			return 0;
		char again[CATAN_PUBKEY_TEXT];
		catan_pubkey_format(again, pk);
		FUZZ_CHECK(used == strlen(again) && used <= len &&
			   !memcmp(again, text, used));
		break;
	}
	}
	return 0;
}
