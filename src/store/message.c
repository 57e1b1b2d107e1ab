/*
 * message.c - layer 2: the commit message catan writes and its trailers
 * (Player, Turn, Dice) read back, and the seat a commit's author names.
 * Pure string work.
 */
#define _GNU_SOURCE /* syncfs */

#include <git2/sys/mempack.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>

#include "repo.h"

/* ---- commits ---- */

void store_email(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s@catan", name);
}

int store_author_seat(const catan_store *s, const git_commit *c)
{
	const git_signature *a = git_commit_author(c);
	return a && a->name
		   ? catan_names_find(&s->game.names, a->name, strlen(a->name))
		   : -1;
}

void store_message(char *out, size_t size, const char *subject,
		   const char *player, int turn, const uint8_t *dice)
{
	int n = snprintf(out, size, "%s\n\nPlayer: %s\nTurn: %d\n", subject,
			 player, turn);
	if (dice && n >= 0 && (size_t)n < size)
		snprintf(out + n, size - (size_t)n, "Dice: %d %d\n", dice[0],
			 dice[1]);
}

int store_trailer_dice(const char *message, uint8_t dice[2])
{
	dice[0] = dice[1] = 0;
	const char *p = strstr(message, "\nDice: ");
	if (!p)
		return 0;
	p += 7;
	if (p[0] < '1' || p[0] > '6' || p[1] != ' ' || p[2] < '1' ||
	    p[2] > '6' || (p[3] != '\n' && p[3] != '\0'))
		return -1;
	dice[0] = (uint8_t)(p[0] - '0');
	dice[1] = (uint8_t)(p[2] - '0');
	return 1;
}

/* The value of trailer `key` ("Turn") in a commit message, or -1. */
int store_trailer_int(const char *message, const char *key)
{
	/* "\n<key>: " (no snprintf: ancestry walks ask this of every
	 * commit they pass) */
	char pat[32];
	size_t kl = strlen(key);
	if (kl + 4 > sizeof pat)
		return -1;
	pat[0] = '\n';
	memcpy(pat + 1, key, kl);
	memcpy(pat + 1 + kl, ": ", 3);
	const char *p = strstr(message, pat);
	if (!p)
		return -1;
	p += strlen(pat);
	long v = 0;
	if (*p < '0' || *p > '9')
		return -1;
	while (*p >= '0' && *p <= '9' && v < 1000000)
		v = v * 10 + (*p++ - '0');
	return (*p == '\n' || !*p) ? (int)v : -1;
}
