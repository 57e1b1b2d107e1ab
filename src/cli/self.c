/*
 * self.c - where this program is, to run another one installed beside it
 * (catan-window from catan, catan from catan-window).
 */
#define _GNU_SOURCE /* readlink */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cli_beside_self(const char *name, char *out, size_t n)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (len <= 0)
		return -1;
	exe[len] = '\0';
	const char *slash = strrchr(exe, '/');
	int dirlen = slash ? (int)(slash + 1 - exe) : 0;
	int w = snprintf(out, n, "%.*s%s", dirlen, exe, name);
	return w < 0 || (size_t)w >= n ? -1 : 0;
}
