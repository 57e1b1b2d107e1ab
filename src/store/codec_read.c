/*
 * codec_read.c - layer 0 (pure): the strict line reader of the codec and
 * the parsers of its words and numbers (codec_read.h). Every failure names
 * the file and line.
 */
#include "catan/codec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_read.h"

/* ---- decoding ---- */

int codec_rfail(reader *r, const char *fmt, ...)
{
	va_list ap;
	snprintf(r->err->path, sizeof r->err->path, "%s", r->path);
	r->err->line = r->line;
	va_start(ap, fmt);
	vsnprintf(r->err->msg, sizeof r->err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

void catan_codec_error_text(char *out, size_t size, const catan_codec_error *e)
{
	if (e->line > 0)
		snprintf(out, size, "%s:%d: %s", e->path, e->line, e->msg);
	else
		snprintf(out, size, "%s: %s", e->path, e->msg);
}

int codec_open_file(reader *r, const catan_files *in, const char *path,
		    catan_codec_error *err)
{
	const catan_file *f = catan_files_get(in, path);
	r->path = path;
	r->line = 0;
	r->err = err;
	if (!f)
		return codec_rfail(r, "missing file");
	r->p = f->data;
	r->end = f->data + f->len;
	if (f->len && f->data[f->len - 1] != '\n')
		return codec_rfail(r, "file does not end with a newline");
	if (memchr(f->data, '\0', f->len))
		return codec_rfail(r, "file holds a NUL byte");
	return 0;
}

/* Next line into r->cur; 0 on success, 1 at end of file, -1 error. */
int codec_next_line(reader *r)
{
	if (r->p >= r->end)
		return 1;
	const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	size_t n = (size_t)(nl - r->p);
	r->line++;
	if (n >= sizeof r->cur)
		return codec_rfail(r, "line too long");
	memcpy(r->cur, r->p, n);
	r->cur[n] = '\0';
	r->p = nl + 1;
	/* Canonical lines: single spaces between words, nothing else. */
	if (n && (r->cur[0] == ' ' || r->cur[n - 1] == ' ' ||
		  strstr(r->cur, "  ") || strpbrk(r->cur, "\t\r\v\f")))
		return codec_rfail(r, "stray white space in \"%.60s\"", r->cur);
	return 0;
}

int codec_need_line(reader *r, const char *what)
{
	int rc = codec_next_line(r);
	if (rc == 1) {
		r->line++;
		return codec_rfail(r, "missing line: expected %s", what);
	}
	return rc;
}

int codec_expect_end(reader *r)
{
	if (r->p < r->end) {
		r->line++;
		return codec_rfail(r, "unexpected extra line");
	}
	return 0;
}

/* A whole decimal number in [lo, hi] with no sign or leading zero. */
bool codec_read_uint(const char *s, long lo, long hi, long *out)
{
	long v = 0;
	if (!*s || (s[0] == '0' && s[1]))
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000000)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* "KEY VALUE" with an exact key and a number in range. */
int codec_key_num(reader *r, const char *key, long lo, long hi, long *out)
{
	if (codec_need_line(r, key))
		return -1;
	size_t k = strlen(key);
	if (strncmp(r->cur, key, k) || r->cur[k] != ' ' ||
	    !codec_read_uint(r->cur + k + 1, lo, hi, out))
		return codec_rfail(
		    r,
		    "expected \"%s N\" with N from %ld to %ld, got "
		    "\"%.40s\"",
		    key, lo, hi, r->cur);
	return 0;
}

/* "KEY WORD": returns the word (points into r->cur). */
int codec_key_word(reader *r, const char *key, const char **out)
{
	if (codec_need_line(r, key))
		return -1;
	size_t k = strlen(key);
	if (strncmp(r->cur, key, k) || r->cur[k] != ' ' || !r->cur[k + 1] ||
	    strchr(r->cur + k + 1, ' '))
		return codec_rfail(r, "expected \"%s VALUE\", got \"%.40s\"",
				   key, r->cur);
	*out = r->cur + k + 1;
	return 0;
}

int codec_find_word(const char *w, const char *(*name)(int), int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(w, name(i)))
			return i;
	return -1;
}

int codec_player_word(const catan_game *g, const char *w, bool none_ok)
{
	if (none_ok && !strcmp(w, "none"))
		return CATAN_NONE;
	int p = catan_names_find(&g->names, w, strlen(w));
	return p >= 0 && p < g->opt.nplayers ? p : -1;
}

/* "name:N name:N ..." or "none" into counts c[0..n-1]. */
bool codec_parse_cards(const char *s, uint8_t *c, int n,
		       const char *(*name)(int), int max)
{
	memset(c, 0, (size_t)n);
	if (!strcmp(s, "none"))
		return true;
	int last = -1;
	while (*s) {
		char word[40];
		const char *sp = strchr(s, ' ');
		size_t len = sp ? (size_t)(sp - s) : strlen(s);
		if (len == 0 || len >= sizeof word)
			return false;
		memcpy(word, s, len);
		word[len] = '\0';
		char *colon = strchr(word, ':');
		long v;
		if (!colon)
			return false;
		*colon = '\0';
		int i = codec_find_word(word, name, n);
		/* Canonical: increasing kinds, no zero counts. */
		if (i <= last || !codec_read_uint(colon + 1, 1, max, &v))
			return false;
		c[i] = (uint8_t)v;
		last = i;
		s += len;
		if (*s == ' ') {
			s++;
			if (!*s)
				return false;
		}
	}
	return true;
}

int codec_yes_no(reader *r, const char *key, uint8_t *out)
{
	const char *w;
	if (codec_key_word(r, key, &w))
		return -1;
	if (strcmp(w, "yes") && strcmp(w, "no"))
		return codec_rfail(r, "%s must be yes or no", key);
	*out = !strcmp(w, "yes");
	return 0;
}
