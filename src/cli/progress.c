/*
 * progress.c - the progress line of the long-running research commands,
 * and the small helpers they share (research.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "research.h"

double cli_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void cli_progress_start(cli_progress *p, const char *what, long total,
			bool quiet)
{
	memset(p, 0, sizeof *p);
	p->what = what;
	p->total = total;
	p->on = !quiet && isatty(2);
	p->t0 = cli_now();
}

void cli_progress_step(cli_progress *p, long done)
{
	p->done = done;
	if (!p->on)
		return;
	double t = cli_now();
	if (t - p->last < 0.2 && done < p->total)
		return;
	p->last = t;
	double rate = done / (t - p->t0 > 1e-9 ? t - p->t0 : 1e-9);
	double eta = rate > 0 ? (double)(p->total - done) / rate : 0;
	fprintf(stderr, "\r%s: %ld/%ld games, %.1f games/s, ETA %ld:%02ld   ",
		p->what, done, p->total, rate, (long)eta / 60, (long)eta % 60);
	fflush(stderr);
}

void cli_progress_end(cli_progress *p)
{
	if (p->on && p->last > 0)
		fprintf(stderr, "\r%*s\r", 72, "");
}

void cli_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
