/*
 * png.c - writes an SDL surface as a PNG file with libpng's simplified API
 * (the format is libpng's job, not ours).
 */
#include <png.h>
#include <stdio.h>
#include <string.h>

#include "ui.h"

int ui_png_write(const char *path, SDL_Surface *surf, char *why,
		 size_t whysize)
{
	SDL_Surface *rgba = SDL_ConvertSurfaceFormat(surf, SDL_PIXELFORMAT_ABGR8888, 0);
	if (!rgba) {
		snprintf(why, whysize, "cannot convert the image: %s", SDL_GetError());
		return -1;
	}
	png_image img;
	memset(&img, 0, sizeof img);
	img.version = PNG_IMAGE_VERSION;
	img.width = (png_uint_32)rgba->w;
	img.height = (png_uint_32)rgba->h;
	img.format = PNG_FORMAT_RGBA;
	int ok = png_image_write_to_file(&img, path, 0, rgba->pixels,
					 rgba->pitch, NULL);
	SDL_FreeSurface(rgba);
	if (!ok) {
		snprintf(why, whysize, "cannot write %s: %s", path, img.message);
		return -1;
	}
	return 0;
}
