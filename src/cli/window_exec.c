/*
 * window_exec.c - catan render, play and replay in the catan program that
 * has no window: each runs catan-window, the same command with SDL2 linked
 * in, with the same arguments.
 *
 * Why two programs: SDL2 and SDL2_ttf bring some 55 shared libraries
 * (X11, Wayland, PulseAudio, ALSA, freetype, ...) that the dynamic loader
 * maps at every start, window or not. catan sync, act, step, verify and
 * the rest are started thousands of times by peers, hooks and scripts;
 * without SDL each start loads 22 libraries instead of 77 (README,
 * "catan and catan-window"). catan-window has every command, so a
 * window's own helpers (the bot peers of play --new) can run either
 * program.
 */
#define _GNU_SOURCE /* execv, access */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Runs `catan-window [-C dir] cmd argv...`; returns only on failure. */
static int window_exec(const char *dir, const char *cmd, int argc, char **argv)
{
	char path[PATH_MAX + 16] = "";
	if (cli_beside_self("catan-window", path, sizeof path) ||
	    access(path, X_OK)) {
		fprintf(stderr,
			"catan %s: the window is the program catan-window, "
			"which is not beside this catan (%s): build it "
			"(make build) or run it directly\n",
			cmd, path[0] ? path : "cannot tell where catan is");
		return 1;
	}
	char **args = calloc((size_t)argc + 5, sizeof *args);
	if (!args) {
		fprintf(stderr, "catan %s: out of memory\n", cmd);
		return 1;
	}
	int k = 0;
	args[k++] = "catan-window";
	if (dir) {
		args[k++] = "-C";
		args[k++] = (char *)dir;
	}
	args[k++] = (char *)cmd;
	for (int i = 0; i < argc; i++)
		args[k++] = argv[i];
	args[k] = NULL;
	fflush(NULL);
	execv(path, args);
	fprintf(stderr, "catan %s: cannot run %s: %s\n", cmd, path,
		strerror(errno));
	free(args);
	return 1;
}

int cli_render(const char *dir, int argc, char **argv)
{
	return window_exec(dir, "render", argc, argv);
}

int cli_play(const char *dir, int argc, char **argv)
{
	return window_exec(dir, "play", argc, argv);
}

int cli_replay(const char *dir, int argc, char **argv)
{
	return window_exec(dir, "replay", argc, argv);
}
