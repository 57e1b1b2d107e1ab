/*
 * Tests for src/store/sign.c: keys and signatures checked against
 * OpenSSH's own ssh-keygen (which must read our keys, accept our
 * signatures and write byte-identical ones), and every refusal of the
 * parsers.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "catan/sign.h"

static char dir[256];

static int setup(void **st)
{
	(void)st;
	snprintf(dir, sizeof(dir), "/tmp/catan-sign-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *b = malloc(65536);
	*n = fread(b, 1, 65535, f);
	b[*n] = 0;
	fclose(f);
	return b;
}

static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* ssh-keygen reads the key catan writes and derives the same public key. */
static void test_sign__keygen_readable_by_ssh(void **st)
{
	(void)st;
	catan_key k;
	catan_sign_why why = {{0}, 0};
	char path[300];
	snprintf(path, sizeof(path), "%s/mine", dir);
	assert_int_equal(catan_key_generate(&k, &why), 0);
	assert_int_equal(catan_key_save(&k, path, "red@catan", &why), 0);
	assert_int_equal(
	    sh("ssh-keygen -y -f %s/mine > %s/derived.pub", dir, dir), 0);
	size_t a, b;
	char *pub = slurp(strcat(strcpy((char[320]){0}, path), ".pub"), &a);
	char *der =
	    slurp(strcat(strcpy((char[320]){0}, dir), "/derived.pub"), &b);
	assert_non_null(pub);
	assert_non_null(der);
	/* ssh-keygen -y prints the key and the comment */
	assert_memory_equal(pub, der, 80);
	free(pub);
	free(der);

	/* and catan reads it back */
	catan_key back;
	assert_int_equal(catan_key_load(&back, path, &why), 0);
	assert_memory_equal(&back, &k, sizeof(k));
	/* never over an existing file */
	assert_int_equal(catan_key_save(&k, path, NULL, &why), -1);
}

/*
 * A key made by ssh-keygen: catan loads it, its signature is the one
 * ssh-keygen -Y sign makes (Ed25519 is deterministic), and ssh-keygen -Y
 * verify accepts it with an allowed_signers file written by catan.
 */
static void test_sign__signature_equals_ssh_keygen(void **st)
{
	(void)st;
	catan_key k;
	catan_sign_why why = {{0}, 0};
	assert_int_equal(
	    sh("ssh-keygen -q -t ed25519 -N '' -C x -f %s/ssh", dir), 0);
	char path[300];
	snprintf(path, sizeof(path), "%s/ssh", dir);
	assert_int_equal(catan_key_load(&k, path, &why), 0);

	const char *msg = "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n"
			  "author red <red@catan> 1700000000 +0000\n\nroll\n";
	FILE *f = fopen(strcat(strcpy((char[320]){0}, dir), "/msg"), "wb");
	fputs(msg, f);
	fclose(f);
	assert_int_equal(sh("ssh-keygen -q -Y sign -f %s/ssh -n git %s/msg "
			    "2>/dev/null",
			    dir, dir),
			 0);
	size_t n;
	char *theirs =
	    slurp(strcat(strcpy((char[320]){0}, dir), "/msg.sig"), &n);
	assert_non_null(theirs);
	char ours[CATAN_SSHSIG_MAX];
	size_t ol = catan_sshsig_sign(ours, &k, msg, strlen(msg));
	assert_int_equal(ol, n);
	assert_memory_equal(ours, theirs, n);

	unsigned char signer[CATAN_PUBKEY_LEN];
	assert_int_equal(
	    catan_sshsig_verify(signer, theirs, n, msg, strlen(msg), &why), 0);
	assert_memory_equal(signer, k.pk, CATAN_PUBKEY_LEN);
	free(theirs);

	/* the signers file catan writes is one ssh-keygen -Y verify takes */
	char signers[512];
	const char *names[] = {"red"};
	int sl = catan_signers_format(signers, sizeof(signers), names,
				      (const unsigned char(*)[32])k.pk, 1);
	assert_true(sl > 0);
	f = fopen(strcat(strcpy((char[320]){0}, dir), "/allowed"), "wb");
	fwrite(signers, 1, (size_t)sl, f);
	fclose(f);
	assert_int_equal(sh("ssh-keygen -Y verify -f %s/allowed -I red@catan "
			    "-n git -s %s/msg.sig < %s/msg >/dev/null",
			    dir, dir, dir),
			 0);
}

static void test_sign__verify_refuses(void **st)
{
	(void)st;
	catan_key k, other;
	catan_sign_why why = {{0}, 0};
	unsigned char signer[CATAN_PUBKEY_LEN];
	assert_int_equal(catan_key_generate(&k, &why), 0);
	assert_int_equal(catan_key_generate(&other, &why), 0);
	const char *msg = "the commit";
	char sig[CATAN_SSHSIG_MAX];
	size_t sl = catan_sshsig_sign(sig, &k, msg, strlen(msg));
	assert_int_equal(
	    catan_sshsig_verify(signer, sig, sl, msg, strlen(msg), &why), 0);

	/* another message */
	assert_int_equal(
	    catan_sshsig_verify(signer, sig, sl, "the commiT", 10, &why), -1);
	assert_non_null(strstr(why.msg, "does not match"));

	/* every single byte flipped inside the base64 is refused */
	for (size_t i = strlen("-----BEGIN SSH SIGNATURE-----\n");
	     i < sl - strlen("-----END SSH SIGNATURE-----\n"); i++) {
		char bad[CATAN_SSHSIG_MAX];
		memcpy(bad, sig, sl);
		if (bad[i] == '\n')
			continue;
		bad[i] = bad[i] == 'A' ? 'B' : 'A';
		assert_int_equal(catan_sshsig_verify(signer, bad, sl, msg,
						     strlen(msg), &why),
				 -1);
	}
	/* truncated, empty, rewrapped */
	for (size_t cut = 0; cut < sl; cut += 7)
		assert_int_equal(catan_sshsig_verify(signer, sig, cut, msg,
						     strlen(msg), &why),
				 -1);
	char wrapped[CATAN_SSHSIG_MAX + 4];
	size_t hl = strlen("-----BEGIN SSH SIGNATURE-----\n");
	memcpy(wrapped, sig, hl + 10);
	wrapped[hl + 10] = '\n';
	memcpy(wrapped + hl + 11, sig + hl + 10, sl - hl - 10);
	assert_int_equal(catan_sshsig_verify(signer, wrapped, sl + 1, msg,
					     strlen(msg), &why),
			 -1);
	assert_non_null(strstr(why.msg, "exact"));

	/* the signer is reported: a signature by `other` names other's key */
	sl = catan_sshsig_sign(sig, &other, msg, strlen(msg));
	assert_int_equal(
	    catan_sshsig_verify(signer, sig, sl, msg, strlen(msg), &why), 0);
	assert_memory_equal(signer, other.pk, CATAN_PUBKEY_LEN);
}

/* ssh-keygen signs in another namespace: refused, named. */
static void test_sign__other_namespace_refused(void **st)
{
	(void)st;
	catan_sign_why why = {{0}, 0};
	assert_int_equal(sh("ssh-keygen -q -t ed25519 -N '' -f %s/ns", dir), 0);
	assert_int_equal(sh("echo hi > %s/m && ssh-keygen -q -Y sign -f %s/ns "
			    "-n file %s/m 2>/dev/null",
			    dir, dir, dir),
			 0);
	size_t n;
	char *sig = slurp(strcat(strcpy((char[320]){0}, dir), "/m.sig"), &n);
	unsigned char signer[CATAN_PUBKEY_LEN];
	assert_int_equal(catan_sshsig_verify(signer, sig, n, "hi\n", 3, &why),
			 -1);
	assert_non_null(strstr(why.msg, "namespace"));
	free(sig);

	/* a passphrase-protected key is refused with a sentence */
	assert_int_equal(sh("ssh-keygen -q -t ed25519 -N secret -f %s/pp", dir),
			 0);
	catan_key k;
	char path[300];
	snprintf(path, sizeof(path), "%s/pp", dir);
	assert_int_equal(catan_key_load(&k, path, &why), -1);
	assert_non_null(strstr(why.msg, "passphrase"));
	/* an RSA key too */
	assert_int_equal(
	    sh("ssh-keygen -q -t rsa -b 1024 -N '' -f %s/rsa", dir), 0);
	snprintf(path, sizeof(path), "%s/rsa", dir);
	assert_int_equal(catan_key_load(&k, path, &why), -1);
	assert_non_null(strstr(why.msg, "ssh-ed25519"));
}

static void test_sign__signers_file(void **st)
{
	(void)st;
	catan_key a, b;
	catan_sign_why why = {{0}, 0};
	catan_key_generate(&a, &why);
	catan_key_generate(&b, &why);
	unsigned char keys[2][CATAN_PUBKEY_LEN], back[2][CATAN_PUBKEY_LEN];
	memcpy(keys[0], a.pk, 32);
	memcpy(keys[1], b.pk, 32);
	const char *names[] = {"red", "blue"};
	char text[1024];
	int n = catan_signers_format(text, sizeof(text), names,
				     (const unsigned char(*)[32])keys, 2);
	assert_true(n > 0);
	assert_int_equal(
	    catan_signers_parse(back, text, (size_t)n, names, 2, &why), 0);
	assert_memory_equal(back, keys, sizeof(keys));

	/* wrong order of names, a missing newline, a trailing line */
	const char *swapped[] = {"blue", "red"};
	assert_int_equal(
	    catan_signers_parse(back, text, (size_t)n, swapped, 2, &why), -1);
	assert_int_equal(why.line, 1);
	assert_non_null(strstr(why.msg, "blue@catan"));
	assert_int_equal(
	    catan_signers_parse(back, text, (size_t)n - 1, names, 2, &why), -1);
	assert_int_equal(why.line, 2);
	char more[1100];
	memcpy(more, text, (size_t)n);
	memcpy(more + n, "x\n", 2);
	assert_int_equal(
	    catan_signers_parse(back, more, (size_t)n + 2, names, 2, &why), -1);
	assert_int_equal(why.line, 3);
	/* one key for two seats */
	memcpy(keys[1], a.pk, 32);
	n = catan_signers_format(text, sizeof(text), names,
				 (const unsigned char(*)[32])keys, 2);
	assert_int_equal(
	    catan_signers_parse(back, text, (size_t)n, names, 2, &why), -1);
	assert_non_null(strstr(why.msg, "same key"));
	assert_int_equal(why.line, 2);
	/* a public key with a non-canonical last base64 character */
	char pub[CATAN_PUBKEY_TEXT];
	unsigned char pk[32];
	catan_pubkey_format(pub, a.pk);
	assert_int_equal(catan_pubkey_parse(pk, pub, strlen(pub), NULL, &why),
			 0);
	size_t last = strlen(pub) - 2; /* before the '=' */
	pub[last] = pub[last] == 'A' ? 'B' : 'A';
	catan_pubkey_parse(pk, pub, strlen(pub), NULL, &why);
	assert_memory_not_equal(pk, a.pk, 32);
}

/* The fingerprint is ssh-keygen -l's (catan names keys by it). */
static void test_sign__fingerprint_equals_ssh_keygen(void **st)
{
	(void)st;
	catan_key k;
	catan_sign_why why = {{0}, 0};
	char path[300], fp[CATAN_FINGERPRINT_TEXT];
	assert_int_equal(
	    sh("ssh-keygen -q -t ed25519 -N '' -C x -f %s/fp", dir), 0);
	assert_int_equal(
	    sh("ssh-keygen -l -f %s/fp.pub | cut -d' ' -f2 > %s/fp.txt", dir,
	       dir),
	    0);
	snprintf(path, sizeof(path), "%s/fp", dir);
	assert_int_equal(catan_key_load(&k, path, &why), 0);
	catan_pubkey_fingerprint(fp, k.pk);
	snprintf(path, sizeof(path), "%s/fp.txt", dir);
	size_t n;
	char *want = slurp(path, &n);
	assert_non_null(want);
	assert_true(n > 1 && want[n - 1] == '\n');
	want[n - 1] = 0;
	assert_string_equal(fp, want);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sign__keygen_readable_by_ssh),
	    cmocka_unit_test(test_sign__signature_equals_ssh_keygen),
	    cmocka_unit_test(test_sign__verify_refuses),
	    cmocka_unit_test(test_sign__other_namespace_refused),
	    cmocka_unit_test(test_sign__signers_file),
	    cmocka_unit_test(test_sign__fingerprint_equals_ssh_keygen),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
