/*
 * test_golden.c - replays the recorded games of tests/data/games/ through
 * the parser and the rules, checking every line is canonical text, every
 * action applies, every invariant holds, the legal-action counts of
 * tests/data/legal_counts.txt match, and the final state hash and winner
 * are the recorded ones. Regenerate the data with tools/golden.c.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "recorded.h"

#ifndef CATAN_TEST_DATA
#define CATAN_TEST_DATA "tests/data"
#endif

typedef struct count_row {
	char game[64];
	long index;
	char actor[CATAN_NAME_MAX];
	int count;
} count_row;

static count_row rows[4096];
static int nrows;

static void load_counts(void)
{
	FILE *f = fopen(CATAN_TEST_DATA "/legal_counts.txt", "r");
	char line[256];
	assert_non_null(f);
	nrows = 0;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#')
			continue;
		count_row *r = &rows[nrows];
		if (sscanf(line, "%63s %ld %15s %d", r->game, &r->index,
			   r->actor, &r->count) == 4 &&
		    nrows < (int)(sizeof rows / sizeof rows[0]) - 1)
			nrows++;
	}
	fclose(f);
	assert_true(nrows > 20);
}

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* Replays one recorded game; returns the number of actions. */
static long replay(const char *path, const char *game)
{
	FILE *f = fopen(path, "r");
	char line[512];
	catan_board b;
	catan_state s;
	catan_options o;
	catan_names names;
	long n = 0, counted = 0;
	bool started = false;
	catan_options_default(&o);
	catan_board_beginner(&b);
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		chomp(line);
		if (!line[0] || line[0] == '#')
			continue;
		char key[32] = "", val[64] = "";
		sscanf(line, "%31s %63s", key, val);
		if (!started) {
			int h = recorded_header_line(line, &b, &o);
			assert_true(h >= 0);
			if (h == 0)
				continue;
			catan_names_default(&names, o.nplayers);
			assert_int_equal(catan_state_init(&s, &b, &o), CATAN_OK);
			started = true;
			continue;
		}
		if (!strcmp(key, "winner")) {
			assert_int_equal(s.phase, CATAN_PHASE_OVER);
			assert_string_equal(names.name[s.winner], val);
			continue;
		}
		if (!strcmp(key, "final")) {
			char got[17];
			snprintf(got, sizeof got, "%016" PRIx64,
				 catan_state_hash(&s));
			if (strcmp(got, val))
				fail_msg("%s: final hash %s, recorded %s", game,
					 got, val);
			continue;
		}
		/* "<player> <action text>" */
		int who = catan_names_find(&names, key, strlen(key));
		if (who < 0)
			fail_msg("%s: unknown player %s", game, key);
		const char *text = line + strlen(key) + 1;
		for (int i = 0; i < nrows; i++) {
			if (strcmp(rows[i].game, game) || rows[i].index != n)
				continue;
			catan_action buf[2048];
			assert_string_equal(rows[i].actor, key);
			int c = catan_legal_actions(buf, 2048, &b, &s, who, 0);
			if (c != rows[i].count)
				fail_msg("%s: %d legal actions at %ld, recorded "
					 "%d",
					 game, c, n, rows[i].count);
			counted++;
		}
		catan_action a;
		catan_parse_error err;
		if (catan_action_parse(&a, &b, &names, text, &err))
			fail_msg("%s line \"%s\": %s", game, line, err.msg);
		char again[256];
		catan_action_format(again, sizeof again, &b, &names, &a);
		assert_string_equal(again, text);
		int rc = catan_state_apply(&s, &b, &s, who, &a, NULL);
		if (rc)
			fail_msg("%s line \"%s\": %s", game, line,
				 catan_error_str(rc));
		th_check(&b, &s);
		n++;
	}
	fclose(f);
	assert_true(started);
	assert_int_equal(s.phase, CATAN_PHASE_OVER);
	assert_true(counted > 0);
	return n;
}

static void test_golden__recorded_games_replay(void **state)
{
	(void)state;
	DIR *d = opendir(CATAN_TEST_DATA "/games");
	struct dirent *e;
	int games = 0;
	assert_non_null(d);
	load_counts();
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".txt"))
			continue;
		char path[1024], game[64];
		snprintf(path, sizeof path, "%s/games/%s", CATAN_TEST_DATA,
			 e->d_name);
		snprintf(game, sizeof game, "%.*s", (int)(len - 4), e->d_name);
		long n = replay(path, game);
		printf("  %-28s %5ld actions replayed\n", game, n);
		games++;
	}
	closedir(d);
	assert_true(games >= 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden__recorded_games_replay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
