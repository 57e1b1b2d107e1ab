/*
 * fuzz_agent.c - the agent protocol's decoder (catan_msg_decode), which
 * reads every byte an agent process sends, and the translation of a
 * decoded move into an action.
 *
 * Input: one byte choosing the context (no BEGIN, a beginner-board BEGIN,
 * a 5-6 board BEGIN), then the bytes. Invariants: a decoded message
 * re-encodes to exactly the bytes it was read from; a refusal leaves the
 * output untouched and says why in a NUL-terminated sentence; a SHORT
 * input is a proper prefix (never longer than the message cap); a decoded
 * move becomes an action or a refusal, never a crash.
 */
#include <string.h>

#include "catan/agent.h"
#include "catan/boardgen.h"
#include "fuzz.h"

static catan_board boards[2];
static catan_state states[2];
static catan_msg_begin begins[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	catan_options o;
	catan_options_default(&o);
	catan_board_beginner(&boards[0]);
	FUZZ_CHECK(catan_state_init(&states[0], &boards[0], &o) == CATAN_OK);
	FUZZ_CHECK(catan_board_random_ext56(&boards[1], 7) == CATAN_OK);
	o.nplayers = 6;
	o.special_build = 1;
	FUZZ_CHECK(catan_state_init(&states[1], &boards[1], &o) == CATAN_OK);
	for (int k = 0; k < 2; k++) {
		begins[k] = (catan_msg_begin){5,
					      4,
					      1024,
					      boards[k].radius,
					      0,
					      boards[k].ntiles,
					      boards[k].nharbours,
					      states[k].opt.nplayers};
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static catan_msg m, before;
	static uint8_t enc[CATAN_MSG_MAX];
	char why[160];
	if (size < 1)
		return 0;
	int k = data[0] % 3;
	const catan_msg_begin *bg = k ? &begins[k - 1] : NULL;
	data++;
	size--;
	memset(&m, 0xa5, sizeof m);
	before = m;
	int n = catan_msg_decode(&m, data, size, bg, why, sizeof why);
	if (n < 0) {
		FUZZ_CHECK(!memcmp(&m, &before, sizeof m));
		FUZZ_CHECK(memchr(why, '\0', sizeof why) != NULL && why[0]);
		return 0;
	}
	if (n == 0) {
		FUZZ_CHECK(!memcmp(&m, &before, sizeof m));
		return 0;
	}
	FUZZ_CHECK((size_t)n <= size && n <= CATAN_MSG_MAX);
	int e = catan_msg_encode(enc, sizeof enc, &m, bg);
	FUZZ_CHECK(e == n && !memcmp(enc, data, (size_t)n));
	/* Every prefix is SHORT. */
	catan_msg p;
	FUZZ_CHECK(catan_msg_decode(&p, data, (size_t)n - 1, bg, why,
				    sizeof why) == CATAN_MSG_SHORT);
	int b = k == 2 ? 1 : 0;
	catan_action a;
	for (int actor = 0; actor < 2; actor++)
		(void)catan_agent_msg_action(&a, &boards[b], &states[b], actor,
					     &m, why, sizeof why);
	return 0;
}
