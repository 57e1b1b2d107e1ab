/*
 * fuzz_boardfile.c - the board file parser (catan_boardfile_parse), which
 * reads `catan new --board FILE` and any board a player is handed.
 *
 * Invariant: an accepted board formats to a text that parses to the same
 * board (memcmp), and that text formats again byte for byte.
 */
#include <string.h>

#include "catan/boardfile.h"
#include "fuzz.h"

static char t1[1 << 16], t2[1 << 16];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	static catan_board a, b, before;
	catan_boardfile_error err;
	if (!text)
		return 0;
	memset(&a, 0x5a, sizeof a);
	before = a;
	if (catan_boardfile_parse(&a, text, &err)) {
		FUZZ_CHECK(!memcmp(&a, &before, sizeof a));
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof err.msg) != NULL);
		free(text);
		return 0;
	}
	int n1 = catan_boardfile_format(t1, sizeof t1, &a);
	FUZZ_CHECK(n1 > 0 && (size_t)n1 < sizeof t1);
	FUZZ_CHECK(catan_boardfile_parse(&b, t1, &err) == CATAN_OK);
	FUZZ_CHECK(!memcmp(&a, &b, sizeof a));
	int n2 = catan_boardfile_format(t2, sizeof t2, &b);
	FUZZ_CHECK(n2 == n1 && !memcmp(t1, t2, (size_t)n1));
	free(text);
	return 0;
}
