/*
 * test_boardfile.c - the board file format (spec/board.md): round trips
 * of every kind of board, every rejection with its line, truncated
 * output, fuzzed input; terrain names and pins.
 */
#include "helpers.h"

#include <stdio.h>
#include <string.h>

#include "catan/boardfile.h"
#include "catan/boardgen.h"

static void round_trip(const catan_board *b)
{
	char text[8192];
	int n = catan_boardfile_format(text, sizeof text, b);
	assert_true(n > 0 && n < (int)sizeof text);
	assert_int_equal((int)strlen(text), n);
	catan_board back;
	catan_boardfile_error err;
	int rc = catan_boardfile_parse(&back, text, &err);
	if (rc)
		fail_msg("line %d: %s\n%s", err.line, err.msg, text);
	assert_memory_equal(&back, b, sizeof back);
	/* And the text is stable. */
	char again[8192];
	catan_boardfile_format(again, sizeof again, &back);
	assert_string_equal(again, text);
}

static void test_boardfile__round_trips(void **state)
{
	(void)state;
	catan_board b;
	catan_board_beginner(&b);
	round_trip(&b);
	for (int seed = 0; seed < 50; seed++) {
		catan_board_random(&b, (uint64_t)seed);
		round_trip(&b);
	}
	for (int radius = 1; radius <= CATAN_MAX_RADIUS; radius++)
		for (int seed = 0; seed < 10; seed++) {
			catan_genopts o;
			catan_genopts_default(&o);
			o.radius = (uint8_t)radius;
			o.seed = (uint64_t)seed;
			assert_int_equal(catan_board_generate(&b, &o, NULL), 0);
			round_trip(&b);
		}
	catan_genopts o;
	catan_genopts_default(&o);
	o.shape = CATAN_SHAPE_EXT56;
	assert_int_equal(catan_board_generate(&b, &o, NULL), 0);
	round_trip(&b);
}

static const char beginner_text[] =
    "catan-board 1\n"
    "# the beginner board of DESIGN.md\n"
    "radius 2\n"
    "tile 0,-2 ore 10\ntile 1,-2 wool 2\ntile 2,-2 lumber 9\n"
    "tile -1,-1 grain 12\ntile 0,-1 brick 6\ntile 1,-1 wool 4\n"
    "tile 2,-1 brick 10\ntile -2,0 grain 9\ntile -1,0 lumber 11\n"
    "tile 0,0 desert\ntile 1,0 lumber 3\ntile 2,0 ore 8\n"
    "tile -2,1 lumber 8\ntile -1,1 ore 3\ntile 0,1 grain 4\n"
    "tile 1,1 wool 5\ntile -2,2 brick 5\ntile -1,2 grain 6\n"
    "tile 0,2 wool 11\n"
    "harbour 0,-2,nw 3:1\nharbour 1,-2,ne grain\nharbour 2,-1,ne ore\n"
    "harbour 2,0,e 3:1\nharbour 1,1,se wool\nharbour -1,2,se 3:1\n"
    "harbour -2,2,sw 3:1\nharbour -2,1,w brick\nharbour -1,-1,w lumber\n"
    "robber 0,0\n";

static void test_boardfile__reads_the_beginner_board(void **state)
{
	(void)state;
	catan_board a, b;
	catan_boardfile_error err;
	catan_board_beginner(&a);
	assert_int_equal(catan_boardfile_parse(&b, beginner_text, &err), 0);
	assert_memory_equal(&a, &b, sizeof a);
	/* Tile names, any case, CRLF, tabs, aliases of sides. */
	char text[sizeof beginner_text + 64];
	strcpy(text, beginner_text);
	char *p = strstr(text, "tile 0,-2 ore");
	memcpy(p, "TILE 0,-2 Mtn", 13);
	assert_int_equal(catan_boardfile_parse(&b, text, &err), CATAN_E_PARSE);
	memcpy(p, "TILE 0,-2 ORE", 13);
	assert_int_equal(catan_boardfile_parse(&b, text, &err), 0);
	assert_memory_equal(&a, &b, sizeof a);
	p = strstr(text, "tile 1,-2 wool");
	memcpy(p, "tile 1,-2 pstr", 14);
	assert_int_equal(catan_boardfile_parse(&b, text, &err), CATAN_E_PARSE);
	assert_int_equal(err.line, 5);
	memcpy(p, "tile 1,-2 wool", 14);
	p = strstr(text, "harbour 2,0,e");
	memcpy(p, "harbour 3,0,w", 13); /* the same side */
	assert_int_equal(catan_boardfile_parse(&b, text, &err), 0);
	assert_memory_equal(&a, &b, sizeof a);
}

static void expect_error(const char *text, int code, int line)
{
	catan_board b, before;
	catan_boardfile_error err;
	memset(&b, 0x33, sizeof b);
	before = b;
	int rc = catan_boardfile_parse(&b, text, &err);
	if (rc != code || err.line != line)
		fail_msg("expected %d at line %d, got %d at line %d (%s)", code,
			 line, rc, err.line, err.msg);
	assert_true(err.msg[0] != '\0');
	assert_memory_equal(&b, &before, sizeof b);
}

static void test_boardfile__rejections_name_the_line(void **state)
{
	(void)state;
	const char *hdr = "catan-board 1\nradius 1\n";
	char buf[1024];
	expect_error("", CATAN_E_PARSE, 0);
	expect_error("radius 2\n", CATAN_E_PARSE, 1);
	expect_error("catan-board 2\n", CATAN_E_PARSE, 1);
	expect_error("catan-board 1\n", CATAN_E_PARSE, 0);
	expect_error("catan-board 1\nradius 1\n", CATAN_E_PARSE, 0);
	expect_error("catan-board 1\nradius 1\nradius 1\n", CATAN_E_PARSE, 3);
	expect_error("catan-board 1\nradius 1\nfoo 1\n", CATAN_E_PARSE, 3);
	snprintf(buf, sizeof buf, "%stile 0,0 stone 5\n", hdr);
	expect_error(buf, CATAN_E_PARSE, 3);
	snprintf(buf, sizeof buf, "%s\ntile 0,0 desert 5\n", hdr);
	expect_error(buf, CATAN_E_PARSE, 4);
	snprintf(buf, sizeof buf, "%stile 0,0 ore\n", hdr);
	expect_error(buf, CATAN_E_PARSE, 3);
	snprintf(buf, sizeof buf, "%stile 0,0 ore 7\n", hdr);
	expect_error(buf, CATAN_E_PARSE, 3);
	snprintf(buf, sizeof buf, "%stile 0,0 ore 13\n", hdr);
	expect_error(buf, CATAN_E_PARSE, 3);
	snprintf(buf, sizeof buf, "%stile 0,0 ore 5 extra words\n", hdr);
	expect_error(buf, CATAN_E_PARSE, 3);
	snprintf(buf, sizeof buf, "%stile 0,0 ore 5\ntile 0,0 wool 6\n", hdr);
	expect_error(buf, CATAN_E_BAD_TILE, 4);
	/* Radius line must match: one tile at the centre is radius 0. */
	snprintf(buf, sizeof buf, "%stile 0,0 desert\n", hdr);
	expect_error(buf, CATAN_E_PARSE, 2);
	snprintf(buf, sizeof buf,
		 "%stile 0,0 desert\ntile 1,0 ore 5\nharbour 0,0,e 3:1\n", hdr);
	expect_error(buf, CATAN_E_BAD_EDGE, 5); /* inland side */
	snprintf(buf, sizeof buf,
		 "%stile 0,0 desert\ntile 1,0 ore 5\nharbour 9,9,e 3:1\n", hdr);
	expect_error(buf, CATAN_E_BAD_EDGE, 5);
	snprintf(buf, sizeof buf,
		 "%stile 0,0 desert\ntile 1,0 ore 5\nharbour 1,0,e 3:1\n"
		 "harbour 2,0,w ore\n",
		 hdr);
	expect_error(buf, CATAN_E_BAD_EDGE, 6); /* the same side twice */
	/* Two harbours sharing a corner (the NE corner of 1,0): a corner
	 * gives one rate, and the rules and the decoder disagreed on it. */
	snprintf(buf, sizeof buf,
		 "%stile 0,0 desert\ntile 1,0 ore 5\nharbour 1,0,ne 3:1\n"
		 "harbour 2,0,w ore\n",
		 hdr);
	expect_error(buf, CATAN_E_BAD_EDGE, 6);
	/* Numbers are written one way only. */
	static const char *const noncanon[] = {"+1,0", "01,0", "1,-0", "1,00",
					       "-0,0"};
	for (size_t i = 0; i < sizeof noncanon / sizeof *noncanon; i++) {
		snprintf(buf, sizeof buf, "%stile 0,0 desert\ntile %s ore 5\n",
			 hdr, noncanon[i]);
		expect_error(buf, CATAN_E_PARSE, 4);
	}
	snprintf(buf, sizeof buf, "%stile 0,0 desert\ntile 1,0 ore 05\n", hdr);
	expect_error(buf, CATAN_E_PARSE, 4);
	snprintf(buf, sizeof buf,
		 "%stile 0,0 desert\ntile 1,0 ore 5\nharbour 1,0,e desert\n",
		 hdr);
	expect_error(buf, CATAN_E_PARSE, 5);
	snprintf(buf, sizeof buf,
		 "%stile 0,0 desert\ntile 1,0 ore 5\nrobber 5,5\n", hdr);
	expect_error(buf, CATAN_E_BAD_TILE, 5);
	snprintf(buf, sizeof buf, "%stile 0,0 wool 4\ntile 1,0 ore 5\n", hdr);
	expect_error(buf, CATAN_E_PARSE, 0); /* no desert, no robber */
	snprintf(buf, sizeof buf,
		 "%stile 0,0 wool 4\ntile 1,0 ore 5\n"
		 "robber 1,0\n",
		 hdr);
	catan_board b;
	catan_boardfile_error err;
	assert_int_equal(catan_boardfile_parse(&b, buf, &err), 0);
	assert_int_equal(b.robber_start, catan_board_tile(&b, 1, 0));
	/* Outside the compiled capacity. */
	snprintf(buf, sizeof buf, "catan-board 1\nradius 9\ntile 9,0 ore 5\n");
	expect_error(buf, CATAN_E_CAPACITY, 0);
}

static void test_boardfile__truncated_output(void **state)
{
	(void)state;
	catan_board b;
	char full[4096], small[40];
	catan_board_beginner(&b);
	int n = catan_boardfile_format(full, sizeof full, &b);
	memset(small, 'x', sizeof small);
	assert_int_equal(catan_boardfile_format(small, sizeof small, &b), n);
	assert_int_equal(small[sizeof small - 1], '\0');
	assert_memory_equal(small, full, sizeof small - 1);
	assert_int_equal(catan_boardfile_format(NULL, 0, &b), n);
}

static void test_boardfile__fuzz(void **state)
{
	(void)state;
	catan_rng rng;
	catan_rng_seed(&rng, 5);
	char text[sizeof beginner_text];
	int parsed = 0;
	for (int i = 0; i < 20000; i++) {
		memcpy(text, beginner_text, sizeof text);
		int flips = 1 + (int)catan_rng_below(&rng, 4);
		for (int f = 0; f < flips; f++) {
			size_t at = catan_rng_below(&rng, sizeof text - 1);
			static const char alphabet[] = "0123456789-+,:# \n\tabc"
						       "deorswn";
			text[at] = alphabet[catan_rng_below(
			    &rng, sizeof alphabet - 1)];
		}
		if (catan_rng_below(&rng, 8) == 0)
			text[catan_rng_below(&rng, sizeof text - 1)] = '\0';
		catan_board b;
		catan_boardfile_error err;
		if (catan_boardfile_parse(&b, text, &err) == 0) {
			parsed++;
			round_trip(&b);
		}
	}
	assert_true(parsed > 0);
}

static void test_boardfile__terrain_names_and_pins(void **state)
{
	(void)state;
	assert_int_equal(catan_terrain_parse("forest", 6), CATAN_LUMBER);
	assert_int_equal(catan_terrain_parse("Hills", 5), CATAN_BRICK);
	assert_int_equal(catan_terrain_parse("pasture", 7), CATAN_WOOL);
	assert_int_equal(catan_terrain_parse("fields", 6), CATAN_GRAIN);
	assert_int_equal(catan_terrain_parse("MOUNTAINS", 9), CATAN_ORE);
	assert_int_equal(catan_terrain_parse("desert", 6), CATAN_DESERT);
	assert_int_equal(catan_terrain_parse("ore", 3), CATAN_ORE);
	assert_int_equal(catan_terrain_parse("or", 2), -1);
	assert_int_equal(catan_terrain_parse("oreo", 4), -1);

	catan_pin p;
	assert_int_equal(catan_pin_parse(&p, "0,-1=forest:8"), 0);
	assert_int_equal(p.hex.q, 0);
	assert_int_equal(p.hex.r, -1);
	assert_int_equal(p.terrain, CATAN_LUMBER);
	assert_int_equal(p.token, 8);
	assert_int_equal(catan_pin_parse(&p, "1,1=desert"), 0);
	assert_int_equal(p.terrain, CATAN_DESERT);
	assert_int_equal(p.token, 0);
	assert_int_equal(catan_pin_parse(&p, "-2,+2=6"), CATAN_E_PARSE);
	assert_int_equal(catan_pin_parse(&p, "-2,2=6"), 0);
	assert_int_equal(p.terrain, CATAN_NONE);
	assert_int_equal(p.token, 6);
	assert_int_equal(p.hex.r, 2);
	assert_int_equal(catan_pin_parse(&p, "2,0=ore"), 0);
	assert_int_equal(p.token, 0);
	const char *bad[] = {
	    "",		"0,0",		"0,0=",	    "0,0=7",	 "0,0=13",
	    "0,0=wood", "0,0=desert:6", "0,0=ore:", "0,0=ore:7", "0=ore",
	    "a,b=ore",	"0,0=ore:5x",	"999,0=ore"};
	p = (catan_pin){{9, 9}, 1, 2};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		if (catan_pin_parse(&p, bad[i]) != CATAN_E_PARSE)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_int_equal(p.hex.q, 9); /* untouched */
	}
}

/*
 * The robber line: the 5-6 board has two deserts; a file can start the
 * robber on the second (or any land tile), the text round-trips, and a
 * game started on the board puts the robber there.
 */
static void test_boardfile__robber_line_on_the_five_six_board(void **state)
{
	(void)state;
	catan_board b, back;
	catan_boardfile_error err;
	static char text[8192], edited[8192];
	assert_int_equal(catan_board_random_ext56(&b, 3), CATAN_OK);
	int deserts[2], nd = 0;
	for (int t = 0; t < b.ntiles; t++)
		if (b.tile_terrain[t] == CATAN_DESERT)
			deserts[nd++] = t;
	assert_int_equal(nd, 2);
	assert_int_equal(b.robber_start, deserts[0]);
	round_trip(&b);

	/* Written: the robber line names the start tile. */
	b.robber_start = (uint8_t)deserts[1];
	round_trip(&b);
	int n = catan_boardfile_format(text, sizeof text, &b);
	assert_true(n > 0);
	char want[32];
	snprintf(want, sizeof want, "\nrobber %d,%d\n",
		 b.tile_hex[deserts[1]].q, b.tile_hex[deserts[1]].r);
	assert_non_null(strstr(text, want));

	/* Read: any land tile, a desert or not; the game starts there. */
	int land = deserts[1] == 5 ? 6 : 5;
	char *at = strstr(text, "\nrobber ");
	snprintf(edited, sizeof edited, "%.*s\nrobber %d,%d\n",
		 (int)(at - text), text, b.tile_hex[land].q,
		 b.tile_hex[land].r);
	assert_int_equal(catan_boardfile_parse(&back, edited, &err), 0);
	assert_int_equal(back.robber_start, land);
	catan_options o;
	catan_state s;
	catan_options_default(&o);
	o.nplayers = 6;
	o.special_build = 1;
	assert_int_equal(catan_state_init(&s, &back, &o), CATAN_OK);
	assert_int_equal(s.robber, land);
	th_check(&back, &s);
	/* Without the line: the first desert. */
	snprintf(edited, sizeof edited, "%.*s\n", (int)(at - text), text);
	assert_int_equal(catan_boardfile_parse(&back, edited, &err), 0);
	assert_int_equal(back.robber_start, deserts[0]);

	/* Rejected: at sea, off the grid, malformed, twice. */
	int line = 1;
	for (const char *c = text; c < at + 1; c++)
		line += *c == '\n';
	static const char *const bad[] = {"robber 3,0", "robber 9,9",
					  "robber 0", "robber 0,0,n",
					  "robber desert", "robber"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(edited, sizeof edited, "%.*s\n%s\n", (int)(at - text),
			 text, bad[i]);
		catan_board x;
		memset(&x, 0x5a, sizeof x);
		int rc = catan_boardfile_parse(&x, edited, &err);
		if (rc == 0 || err.line != line)
			fail_msg("\"%s\" accepted or wrong line (%d, line %d, "
				 "want %d: %s)",
				 bad[i], rc, err.line, line, err.msg);
	}
	assert_true((size_t)n + 12 < sizeof edited);
	memcpy(edited, text, (size_t)n);
	memcpy(edited + n, "robber 0,0\n", 12);
	assert_int_not_equal(catan_boardfile_parse(&back, edited, &err), 0);
	assert_int_equal(err.line, line + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_boardfile__round_trips),
	    cmocka_unit_test(test_boardfile__reads_the_beginner_board),
	    cmocka_unit_test(test_boardfile__rejections_name_the_line),
	    cmocka_unit_test(test_boardfile__truncated_output),
	    cmocka_unit_test(test_boardfile__fuzz),
	    cmocka_unit_test(test_boardfile__terrain_names_and_pins),
	    cmocka_unit_test(test_boardfile__robber_line_on_the_five_six_board),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
