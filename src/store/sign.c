/*
 * sign.c - Ed25519 keys and SSHSIG signatures in OpenSSH's and git's
 * formats (catan/sign.h). Pure encoding and decoding around libsodium:
 * no cryptography of our own. Layer 1 (leaves): it knows nothing of
 * games, commits or repositories (commit.c signs the commits it writes,
 * form.c checks them).
 *
 * Wire pieces (RFC 4251): `uint32` big-endian, `string` = uint32 length
 * then the bytes.
 */
#define _GNU_SOURCE
#include "catan/sign.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base.h"

#define KEYTYPE	      "ssh-ed25519"
#define SIG_MAGIC     "SSHSIG"
#define SIG_NAMESPACE "git"
#define SIG_HASH      "sha512"
#define SIG_BEGIN     "-----BEGIN SSH SIGNATURE-----\n"
#define SIG_END	      "-----END SSH SIGNATURE-----\n"
#define KEY_MAGIC     "openssh-key-v1"
#define KEY_BEGIN     "-----BEGIN OPENSSH PRIVATE KEY-----\n"
#define KEY_END	      "-----END OPENSSH PRIVATE KEY-----\n"
#define WRAP	      70
/* A private key file is a few hundred bytes; refuse anything far larger. */
#define KEY_FILE_MAX 8192

static int fail(catan_sign_why *why, const char *msg)
{
	if (why)
		snprintf(why->msg, sizeof(why->msg), "%s", msg);
	return -1;
}

static int init(catan_sign_why *why)
{
	if (sodium_init() < 0)
		return fail(why, "libsodium cannot start");
	return 0;
}

/* --- RFC 4251 writer and reader ------------------------------------- */

typedef struct wbuf {
	unsigned char *p;
	size_t len, cap;
	int over;
} wbuf;

static void put(wbuf *w, const void *d, size_t n)
{
	if (w->over || n > w->cap - w->len) {
		w->over = 1;
		return;
	}
	memcpy(w->p + w->len, d, n);
	w->len += n;
}

static void put_u32(wbuf *w, uint32_t v)
{
	unsigned char b[4] = {v >> 24, v >> 16, v >> 8, v};
	put(w, b, 4);
}

static void put_str(wbuf *w, const void *d, size_t n)
{
	put_u32(w, (uint32_t)n);
	put(w, d, n);
}

/* The public key blob: string "ssh-ed25519", string pk. */
static void put_pubblob(wbuf *w, const unsigned char *pk)
{
	put_u32(w, 4 + strlen(KEYTYPE) + 4 + CATAN_PUBKEY_LEN);
	put_str(w, KEYTYPE, strlen(KEYTYPE));
	put_str(w, pk, CATAN_PUBKEY_LEN);
}

typedef struct rbuf {
	const unsigned char *p;
	size_t len, at;
} rbuf;

static int get_u32(rbuf *r, uint32_t *v)
{
	if (r->len - r->at < 4)
		return -1;
	const unsigned char *b = r->p + r->at;
	*v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
	     b[3];
	r->at += 4;
	return 0;
}

static int get_str(rbuf *r, const unsigned char **d, size_t *n)
{
	uint32_t l;
	if (get_u32(r, &l) || l > r->len - r->at)
		return -1;
	*d = r->p + r->at;
	*n = l;
	r->at += l;
	return 0;
}

static int get_expect(rbuf *r, const char *want, size_t wlen)
{
	const unsigned char *d;
	size_t n;
	return get_str(r, &d, &n) || n != wlen || memcmp(d, want, n) ? -1 : 0;
}

/* Reads the blob `string "ssh-ed25519", string pk(32)` in full. */
static int get_pubblob_inner(rbuf *r, unsigned char *pk)
{
	const unsigned char *d;
	size_t n;
	if (get_expect(r, KEYTYPE, strlen(KEYTYPE)) || get_str(r, &d, &n) ||
	    n != CATAN_PUBKEY_LEN)
		return -1;
	memcpy(pk, d, n);
	return 0;
}

/* --- base64 with line wrapping --------------------------------------- */

/* Writes `bin` as base64 lines of WRAP characters, each ending "\n". */
static size_t armor_body(char *out, const unsigned char *bin, size_t n)
{
	char flat[1024];
	sodium_bin2base64(flat, sizeof(flat), bin, n,
			  sodium_base64_VARIANT_ORIGINAL);
	size_t fl = strlen(flat), o = 0;
	for (size_t i = 0; i < fl; i += WRAP) {
		size_t k = fl - i < WRAP ? fl - i : WRAP;
		memcpy(out + o, flat + i, k);
		o += k;
		out[o++] = '\n';
	}
	out[o] = '\0';
	return o;
}

/*
 * Reads the base64 between `begin` and `end` (both full lines) of `text`
 * into `bin` (cap bytes). Lenient about wrapping only for key files the
 * user brings; signatures are compared with their canonical text after.
 */
static int unarmor(unsigned char *bin, size_t cap, size_t *n, const char *text,
		   size_t len, const char *begin, const char *end)
{
	size_t bl = strlen(begin), el = strlen(end);
	if (len < bl + el || memcmp(text, begin, bl))
		return -1;
	const char *body = text + bl;
	const char *stop = NULL;
	for (size_t i = bl; i + el <= len; i++)
		if ((i == bl || text[i - 1] == '\n') &&
		    !memcmp(text + i, end, el)) {
			stop = text + i;
			break;
		}
	if (!stop)
		return -1;
	return sodium_base642bin(bin, cap, body, (size_t)(stop - body), "\n\r",
				 n, NULL, sodium_base64_VARIANT_ORIGINAL);
}

/* --- keys ------------------------------------------------------------ */

int catan_key_generate(catan_key *out, catan_sign_why *why)
{
	if (init(why))
		return -1;
	crypto_sign_keypair(out->pk, out->sk);
	return 0;
}

void catan_key_from_seed(catan_key *out, const unsigned char seed[32])
{
	(void)init(NULL);
	crypto_sign_seed_keypair(out->pk, out->sk, seed);
}

void catan_pubkey_format(char *out, const unsigned char pk[CATAN_PUBKEY_LEN])
{
	unsigned char blob[64];
	wbuf w = {blob, 0, sizeof(blob), 0};
	put_str(&w, KEYTYPE, strlen(KEYTYPE));
	put_str(&w, pk, CATAN_PUBKEY_LEN);
	memcpy(out, KEYTYPE " ", strlen(KEYTYPE) + 1);
	sodium_bin2base64(out + strlen(KEYTYPE) + 1,
			  CATAN_PUBKEY_TEXT - strlen(KEYTYPE) - 1, blob, w.len,
			  sodium_base64_VARIANT_ORIGINAL);
}

void catan_pubkey_fingerprint(char *out,
			      const unsigned char pk[CATAN_PUBKEY_LEN])
{
	unsigned char blob[64], h[crypto_hash_sha256_BYTES];
	wbuf w = {blob, 0, sizeof(blob), 0};
	put_str(&w, KEYTYPE, strlen(KEYTYPE));
	put_str(&w, pk, CATAN_PUBKEY_LEN);
	crypto_hash_sha256(h, blob, w.len);
	memcpy(out, "SHA256:", 7);
	sodium_bin2base64(out + 7, CATAN_FINGERPRINT_TEXT - 7, h, sizeof h,
			  sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
}

int catan_pubkey_parse(unsigned char pk[CATAN_PUBKEY_LEN], const char *text,
		       size_t len, size_t *used, catan_sign_why *why)
{
	size_t tl = strlen(KEYTYPE);
	if (init(why))
		return -1;
	if (len < tl + 1 || memcmp(text, KEYTYPE " ", tl + 1))
		return fail(why, "not an ssh-ed25519 public key");
	size_t b = tl + 1, e = b;
	while (e < len && text[e] != ' ' && text[e] != '\n' && e - b < 80)
		e++;
	unsigned char blob[64];
	size_t n;
	if (e - b != 68 ||
	    sodium_base642bin(blob, sizeof(blob), text + b, e - b, NULL, &n,
			      NULL, sodium_base64_VARIANT_ORIGINAL))
		return fail(why, "the public key is not valid base64 of the "
				 "right length");
	rbuf r = {blob, n, 0};
	if (get_pubblob_inner(&r, pk) || r.at != n)
		return fail(why, "the public key blob is not ssh-ed25519");
	char again[CATAN_PUBKEY_TEXT];
	catan_pubkey_format(again, pk);
	if (memcmp(again + b, text + b, e - b))
		return fail(why, "the public key is not in canonical base64");
	if (used)
		*used = e;
	return 0;
}

int catan_key_save(const catan_key *k, const char *path, const char *comment,
		   catan_sign_why *why)
{
	unsigned char priv[512], file[1024];
	size_t cl = comment ? strlen(comment) : 0;
	uint32_t check;
	if (init(why))
		return -1;
	if (cl > 200)
		return fail(why, "the key comment is longer than 200 bytes");
	randombytes_buf(&check, sizeof(check));

	wbuf p = {priv, 0, sizeof(priv), 0};
	put_u32(&p, check);
	put_u32(&p, check);
	put_str(&p, KEYTYPE, strlen(KEYTYPE));
	put_str(&p, k->pk, CATAN_PUBKEY_LEN);
	put_str(&p, k->sk, CATAN_SECKEY_LEN);
	put_str(&p, comment ? comment : "", cl);
	for (unsigned char pad = 1; p.len % 8; pad++)
		put(&p, &pad, 1);

	wbuf f = {file, 0, sizeof(file), 0};
	put(&f, KEY_MAGIC, strlen(KEY_MAGIC) + 1);
	put_str(&f, "none", 4);
	put_str(&f, "none", 4);
	put_str(&f, "", 0);
	put_u32(&f, 1);
	put_pubblob(&f, k->pk);
	put_str(&f, priv, p.len);
	sodium_memzero(priv, sizeof(priv));
	if (p.over || f.over)
		return fail(why, "the key does not fit its buffer");

	char text[2048];
	size_t tl = strlen(KEY_BEGIN);
	memcpy(text, KEY_BEGIN, tl);
	tl += armor_body(text + tl, file, f.len);
	sodium_memzero(file, sizeof(file));
	memcpy(text + tl, KEY_END, strlen(KEY_END) + 1);
	tl += strlen(KEY_END);

	char pub[CATAN_PUBKEY_TEXT + 210];
	catan_pubkey_format(pub, k->pk);
	size_t pl = strlen(pub);
	if (cl) {
		pub[pl++] = ' ';
		memcpy(pub + pl, comment, cl);
		pl += cl;
	}
	pub[pl++] = '\n';

	char pubpath[STORE_PATH_MAX];
	if (store_path(pubpath, sizeof pubpath, "%s.pub", path))
		return fail(why, "the key path is too long");
	int ok = 0;
	for (int i = 0; i < 2; i++) {
		const char *fp = i ? pubpath : path;
		const char *d = i ? pub : text;
		size_t dl = i ? pl : tl;
		int fd = open(fp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			      i ? 0644 : 0600);
		if (fd < 0) {
			snprintf(why->msg, sizeof(why->msg), "%.100s: %s", fp,
				 strerror(errno));
			break;
		}
		ssize_t w = write(fd, d, dl);
		int bad = w != (ssize_t)dl || fsync(fd);
		bad |= close(fd);
		if (bad) {
			snprintf(why->msg, sizeof(why->msg),
				 "%.100s: cannot write it", fp);
			break;
		}
		ok++;
	}
	sodium_memzero(text, sizeof(text));
	return ok == 2 ? 0 : -1;
}

int catan_key_load(catan_key *out, const char *path, catan_sign_why *why)
{
	char text[KEY_FILE_MAX];
	unsigned char bin[KEY_FILE_MAX];
	size_t n = 0, bl;
	if (init(why))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why->msg, sizeof(why->msg), "%.100s: %s", path,
			 strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    st.st_size >= KEY_FILE_MAX) {
		close(fd);
		return fail(why, "the key file is not a regular file under 8 "
				 "KiB");
	}
	for (ssize_t r; n < sizeof(text) &&
			(r = read(fd, text + n, sizeof(text) - n)) > 0;)
		n += (size_t)r;
	close(fd);

	int rc = -1;
	const unsigned char *d, *ppk, *priv;
	size_t dl, pl;
	uint32_t nkeys, c1, c2;
	if (unarmor(bin, sizeof(bin), &bl, text, n, KEY_BEGIN, KEY_END)) {
		fail(why, "not an OpenSSH private key file");
		goto done;
	}
	rbuf r = {bin, bl, 0};
	size_t ml = strlen(KEY_MAGIC) + 1;
	if (bl < ml || memcmp(bin, KEY_MAGIC, ml)) {
		fail(why, "not an OpenSSH private key (magic)");
		goto done;
	}
	r.at = ml;
	if (get_str(&r, &d, &dl)) {
		fail(why, "the key file is truncated");
		goto done;
	}
	if (dl != 4 || memcmp(d, "none", 4)) {
		fail(why, "the key is protected by a passphrase; catan needs "
			  "an unencrypted key (or make one with catan keygen)");
		goto done;
	}
	if (get_expect(&r, "none", 4) || get_str(&r, &d, &dl) ||
	    get_u32(&r, &nkeys) || nkeys != 1 || get_str(&r, &ppk, &pl)) {
		fail(why, "the key file holds not exactly one key");
		goto done;
	}
	rbuf pr = {ppk, pl, 0};
	unsigned char pk[CATAN_PUBKEY_LEN];
	if (get_pubblob_inner(&pr, pk) || pr.at != pl) {
		fail(why, "the key is not an ssh-ed25519 key");
		goto done;
	}
	if (get_str(&r, &priv, &pl)) {
		fail(why, "the key file is truncated");
		goto done;
	}
	rbuf s = {priv, pl, 0};
	const unsigned char *spk, *ssk;
	size_t spl, ssl;
	if (get_u32(&s, &c1) || get_u32(&s, &c2) || c1 != c2 ||
	    get_expect(&s, KEYTYPE, strlen(KEYTYPE)) ||
	    get_str(&s, &spk, &spl) || spl != CATAN_PUBKEY_LEN ||
	    get_str(&s, &ssk, &ssl) || ssl != CATAN_SECKEY_LEN ||
	    memcmp(spk, pk, spl) || memcmp(ssk + 32, pk, CATAN_PUBKEY_LEN)) {
		fail(why, "the private part of the key is damaged");
		goto done;
	}
	/* The secret must really belong to the public key. */
	unsigned char derived[CATAN_PUBKEY_LEN], sk2[CATAN_SECKEY_LEN];
	crypto_sign_seed_keypair(derived, sk2, ssk);
	sodium_memzero(sk2, sizeof(sk2));
	if (memcmp(derived, pk, sizeof(pk))) {
		fail(why, "the private key does not match its public key");
		goto done;
	}
	memcpy(out->pk, pk, sizeof(pk));
	memcpy(out->sk, ssk, CATAN_SECKEY_LEN);
	rc = 0;
done:
	sodium_memzero(bin, sizeof(bin));
	sodium_memzero(text, sizeof(text));
	return rc;
}

/* --- SSHSIG ---------------------------------------------------------- */

/* What is signed: MAGIC, namespace, reserved, hash name, H(message). */
static void signed_data(unsigned char out[128], size_t *n, const void *msg,
			size_t len)
{
	unsigned char h[crypto_hash_sha512_BYTES];
	crypto_hash_sha512(h, msg, len);
	wbuf w = {out, 0, 128, 0};
	put(&w, SIG_MAGIC, 6);
	put_str(&w, SIG_NAMESPACE, strlen(SIG_NAMESPACE));
	put_str(&w, "", 0);
	put_str(&w, SIG_HASH, strlen(SIG_HASH));
	put_str(&w, h, sizeof(h));
	*n = w.len;
}

/* The signature blob around a 64-byte Ed25519 signature. */
static size_t sig_blob(unsigned char out[256], const unsigned char *pk,
		       const unsigned char *sig)
{
	wbuf w = {out, 0, 256, 0};
	put(&w, SIG_MAGIC, 6);
	put_u32(&w, 1);
	put_pubblob(&w, pk);
	put_str(&w, SIG_NAMESPACE, strlen(SIG_NAMESPACE));
	put_str(&w, "", 0);
	put_str(&w, SIG_HASH, strlen(SIG_HASH));
	put_u32(&w, 4 + strlen(KEYTYPE) + 4 + crypto_sign_BYTES);
	put_str(&w, KEYTYPE, strlen(KEYTYPE));
	put_str(&w, sig, crypto_sign_BYTES);
	return w.len;
}

static size_t armor_sig(char *out, const unsigned char *blob, size_t n)
{
	size_t o = strlen(SIG_BEGIN);
	memcpy(out, SIG_BEGIN, o);
	o += armor_body(out + o, blob, n);
	memcpy(out + o, SIG_END, strlen(SIG_END) + 1);
	return o + strlen(SIG_END);
}

size_t catan_sshsig_sign(char *out, const catan_key *k, const void *msg,
			 size_t len)
{
	unsigned char data[128], sig[crypto_sign_BYTES], blob[256];
	size_t dn;
	(void)init(NULL);
	signed_data(data, &dn, msg, len);
	crypto_sign_detached(sig, NULL, data, dn, k->sk);
	return armor_sig(out, blob, sig_blob(blob, k->pk, sig));
}

int catan_sshsig_verify(unsigned char signer[CATAN_PUBKEY_LEN],
			const char *armor, size_t alen, const void *msg,
			size_t len, catan_sign_why *why)
{
	unsigned char blob[256];
	size_t bl;
	if (init(why))
		return -1;
	if (alen > CATAN_SSHSIG_MAX ||
	    unarmor(blob, sizeof(blob), &bl, armor, alen, SIG_BEGIN, SIG_END))
		return fail(why, "the signature is not an armored SSH "
				 "signature");
	rbuf r = {blob, bl, 0};
	uint32_t version;
	const unsigned char *pb, *sb;
	size_t pl, sl;
	unsigned char pk[CATAN_PUBKEY_LEN];
	if (bl < 6 || memcmp(blob, SIG_MAGIC, 6))
		return fail(why, "the signature is not an SSHSIG");
	r.at = 6;
	if (get_u32(&r, &version) || version != 1)
		return fail(why, "the signature is not SSHSIG version 1");
	if (get_str(&r, &pb, &pl))
		return fail(why, "the signature is truncated");
	rbuf pr = {pb, pl, 0};
	if (get_pubblob_inner(&pr, pk) || pr.at != pl)
		return fail(why, "the signature's key is not ssh-ed25519");
	if (get_expect(&r, SIG_NAMESPACE, strlen(SIG_NAMESPACE)))
		return fail(why, "the signature is not for namespace git");
	if (get_expect(&r, "", 0) || get_expect(&r, SIG_HASH, strlen(SIG_HASH)))
		return fail(why, "the signature does not use sha512");
	if (get_str(&r, &sb, &sl) || r.at != bl)
		return fail(why, "the signature is truncated or has extra "
				 "bytes");
	rbuf sr = {sb, sl, 0};
	const unsigned char *sig;
	size_t siglen;
	if (get_expect(&sr, KEYTYPE, strlen(KEYTYPE)) ||
	    get_str(&sr, &sig, &siglen) || siglen != crypto_sign_BYTES ||
	    sr.at != sl)
		return fail(why, "the signature is not an Ed25519 signature");
	char again[CATAN_SSHSIG_MAX];
	unsigned char blob2[256];
	size_t al = armor_sig(again, blob2, sig_blob(blob2, pk, sig));
	if (al != alen || memcmp(again, armor, al))
		return fail(why, "the signature is not in catan's exact "
				 "armored form");
	unsigned char data[128];
	size_t dn;
	signed_data(data, &dn, msg, len);
	if (crypto_sign_verify_detached(sig, data, dn, pk))
		return fail(why, "the signature does not match the commit");
	memcpy(signer, pk, CATAN_PUBKEY_LEN);
	return 0;
}

/* --- the signers file ------------------------------------------------ */

#define SIGNER_MID "@catan namespaces=\"git\" "

int catan_signers_format(char *out, size_t n, const char *const names[],
			 const unsigned char (*keys)[CATAN_PUBKEY_LEN],
			 int count)
{
	size_t o = 0;
	for (int i = 0; i < count; i++) {
		char pub[CATAN_PUBKEY_TEXT];
		catan_pubkey_format(pub, keys[i]);
		int w = snprintf(out + o, n - o, "%s" SIGNER_MID "%s\n",
				 names[i], pub);
		if (w < 0 || (size_t)w >= n - o)
			return -1;
		o += (size_t)w;
	}
	return (int)o;
}

int catan_signers_parse(unsigned char (*keys)[CATAN_PUBKEY_LEN],
			const char *text, size_t len, const char *const names[],
			int count, catan_sign_why *why)
{
	size_t at = 0;
	for (int i = 0; i < count; i++) {
		size_t nl = strlen(names[i]), ml = strlen(SIGNER_MID), used;
		why->line = i + 1;
		if (len - at < nl + ml || memcmp(text + at, names[i], nl) ||
		    memcmp(text + at + nl, SIGNER_MID, ml)) {
			snprintf(why->msg, sizeof(why->msg),
				 "expected `%s@catan namespaces=\"git\" "
				 "ssh-ed25519 ...` (the seats' lines in "
				 "game/options' order)",
				 names[i]);
			return -1;
		}
		at += nl + ml;
		if (catan_pubkey_parse(keys[i], text + at, len - at, &used,
				       why))
			return -1;
		at += used;
		if (at >= len || text[at] != '\n')
			return fail(why, "the line must end after the key");
		at++;
		for (int j = 0; j < i; j++)
			if (!memcmp(keys[j], keys[i], CATAN_PUBKEY_LEN)) {
				snprintf(why->msg, sizeof(why->msg),
					 "%s has the same key as %s", names[i],
					 names[j]);
				return -1;
			}
	}
	why->line = count + 1;
	if (at != len)
		return fail(why, "a line after the last seat's");
	why->line = 0;
	return 0;
}
