/*
 * fuzz_util.c - the helpers of fuzz.h.
 */
#define _XOPEN_SOURCE 700

#include "fuzz.h"

#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

static char scratch[512];

static int remove_one(const char *p, const struct stat *sb, int flag,
		      struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void scratch_remove(void)
{
	if (scratch[0])
		nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_scratch(void)
{
	if (!scratch[0]) {
		/* Memory rather than a disk where there is one: the
		 * harnesses write a few files per input. */
		const char *tmp = getenv("TMPDIR");
		if (!tmp || !*tmp)
			tmp =
			    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
		snprintf(scratch, sizeof scratch, "%s/catan-fuzz-XXXXXX", tmp);
		if (!mkdtemp(scratch)) {
			perror("fuzz: mkdtemp");
			abort();
		}
		atexit(scratch_remove);
	}
	return scratch;
}

int fuzz_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t put = len ? fwrite(data, 1, len, f) : 0;
	return fclose(f) == 0 && put == len ? 0 : -1;
}

unsigned char *fuzz_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat sb;
	unsigned char *buf = NULL;
	*len = 0;
	if (!f)
		return NULL;
	if (fstat(fileno(f), &sb) == 0 &&
	    (buf = malloc((size_t)sb.st_size + 1)) &&
	    fread(buf, 1, (size_t)sb.st_size, f) == (size_t)sb.st_size)
		*len = (size_t)sb.st_size;
	else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}
