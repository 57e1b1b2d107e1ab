/*
 * font.c - finding and opening a TrueType font. The font is the one file
 * the window needs from the system; a missing font is a sentence naming the
 * package to install, never a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui.h"

int ui_font_find(char *out, size_t n, char *why, size_t whysize)
{
	const char *env = getenv("CATAN_FONT");
	if (env && *env) {
		if (access(env, R_OK) == 0) {
			snprintf(out, n, "%s", env);
			return 0;
		}
		snprintf(why, whysize, "CATAN_FONT=%s cannot be read", env);
		return -1;
	}
	static const char *const known[] = {
		"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
		"/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
		"/usr/share/fonts/truetype/freefont/FreeSans.ttf",
		"/usr/share/fonts/TTF/DejaVuSans.ttf",
		"/usr/share/fonts/dejavu/DejaVuSans.ttf",
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (access(known[i], R_OK) == 0) {
			snprintf(out, n, "%s", known[i]);
			return 0;
		}
	/* fontconfig knows where the others are. */
	FILE *p = popen("fc-match -f '%{file}' sans:style=Regular 2>/dev/null", "r");
	if (p) {
		char buf[512] = "";
		size_t got = fread(buf, 1, sizeof buf - 1, p);
		buf[got] = 0;
		pclose(p);
		size_t len = strlen(buf);
		if (len > 4 && (!strcmp(buf + len - 4, ".ttf") ||
				!strcmp(buf + len - 4, ".otf")) &&
		    access(buf, R_OK) == 0) {
			snprintf(out, n, "%s", buf);
			return 0;
		}
	}
	snprintf(why, whysize,
		 "no TrueType font found: install fonts-dejavu-core "
		 "(apt-get install fonts-dejavu-core) or set CATAN_FONT to a .ttf file");
	return -1;
}

static TTF_Font *open_one(const char *path, int px, int style)
{
	TTF_Font *f = TTF_OpenFont(path, px < 6 ? 6 : px);
	if (f && style)
		TTF_SetFontStyle(f, style);
	return f;
}

int ui_fonts_open(ui_fonts *f, float u, char *why, size_t whysize)
{
	if (!f->path[0] && ui_font_find(f->path, sizeof f->path, why, whysize))
		return -1;
	if (f->normal && f->u == u)
		return 0;
	ui_fonts_close(f);
	if (!TTF_WasInit() && TTF_Init()) {
		snprintf(why, whysize, "cannot start SDL_ttf: %s", TTF_GetError());
		return -1;
	}
	/* Never below 12 px (readable on a small screen), whatever u. */
#define PX(k) ((int)((k)*u + 0.5f) < 12 ? 12 : (int)((k)*u + 0.5f))
	f->small = open_one(f->path, PX(12), 0);
	f->normal = open_one(f->path, PX(15) < 13 ? 13 : PX(15), 0);
	f->bold = open_one(f->path, PX(15) < 13 ? 13 : PX(15), TTF_STYLE_BOLD);
	f->big = open_one(f->path, PX(20) < 15 ? 15 : PX(20), TTF_STYLE_BOLD);
#undef PX
	if (!f->small || !f->normal || !f->bold || !f->big) {
		snprintf(why, whysize, "cannot open font %s: %s", f->path,
			 TTF_GetError());
		ui_fonts_close(f);
		return -1;
	}
	f->u = u;
	return 0;
}

void ui_fonts_close(ui_fonts *f)
{
	if (!f)
		return;
	TTF_Font **all[] = {&f->small, &f->normal, &f->bold, &f->big};
	for (size_t i = 0; i < 4; i++) {
		if (*all[i])
			TTF_CloseFont(*all[i]);
		*all[i] = NULL;
	}
}
