/*
 * fuzz_action.c - the action parser (catan_action_parse), which reads the
 * subject of every commit a peer sends.
 *
 * Input: one byte choosing the board and the player names, then the text.
 * Invariant: an accepted text formats to a canonical text that parses to
 * the same action, and formats again to the same text.
 */
#include <string.h>

#include "catan/action.h"
#include "catan/boardgen.h"
#include "fuzz.h"

static catan_board boards[4];
static catan_names names[4];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	catan_board_beginner(&boards[0]);
	catan_names_default(&names[0], 4);
	catan_board_random(&boards[1], 7);
	catan_names_default(&names[1], 3);
	FUZZ_CHECK(catan_board_random_ext56(&boards[2], 7) == CATAN_OK);
	catan_names_default(&names[2], 6);
	boards[3] = boards[0];
	FUZZ_CHECK(catan_names_parse(&names[3], "a,b0,c-d_e,"
						"fifteen-chars-x") == CATAN_OK);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	int k = data[0] & 3;
	char *text = fuzz_cstr(data + 1, size - 1);
	catan_action a, b;
	catan_parse_error err;
	char t1[512], t2[512];
	if (!text)
		return 0;
	memset(&a, 0xa5, sizeof a); /* untouched on failure */
	catan_action before = a;
	if (catan_action_parse(&a, &boards[k], &names[k], text, &err)) {
		FUZZ_CHECK(!memcmp(&a, &before, sizeof a));
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof err.msg) != NULL);
		FUZZ_CHECK(err.pos >= 0 && (size_t)err.pos <= strlen(text));
		free(text);
		return 0;
	}
	int n1 = catan_action_format(t1, sizeof t1, &boards[k], &names[k], &a);
	FUZZ_CHECK(n1 > 0 && (size_t)n1 < sizeof t1);
	FUZZ_CHECK(catan_action_parse(&b, &boards[k], &names[k], t1, &err) ==
		   CATAN_OK);
	FUZZ_CHECK(!memcmp(&a, &b, sizeof a));
	int n2 = catan_action_format(t2, sizeof t2, &boards[k], &names[k], &b);
	FUZZ_CHECK(n2 == n1 && !strcmp(t1, t2));
	free(text);
	return 0;
}
