/*
 * fuzz.h - shared by the libFuzzer harnesses of tests/fuzz.
 *
 * A harness is one LLVMFuzzerTestOneInput over one reader of peer-supplied
 * bytes. It returns 0 for every input the reader rejects; for one it
 * accepts it checks the reader's invariant (a round trip, an equality)
 * and aborts through FUZZ_CHECK when that breaks, which libFuzzer records
 * as a crash like any sanitizer report.
 */
#ifndef CATAN_FUZZ_H
#define CATAN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* An invariant of an accepted input: aborts with where and what. */
#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: invariant broken: %s\n",       \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/*
 * A NUL-terminated copy of the input (malloc'ed; the caller frees it), or
 * NULL when out of memory. Inputs holding a NUL are cut there, as a C
 * string reader sees them.
 */
char *fuzz_cstr(const uint8_t *data, size_t size);

/*
 * A scratch directory of this process, made once (under $TMPDIR or /tmp)
 * and removed at exit; its path, static.
 */
const char *fuzz_scratch(void);

/* Writes len bytes to path (created or truncated); 0 or -1. */
int fuzz_write_file(const char *path, const void *data, size_t len);

/* A whole file, malloc'ed, *len its size; NULL when unreadable. */
unsigned char *fuzz_read_file(const char *path, size_t *len);

#endif
