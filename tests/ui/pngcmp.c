/*
 * pngcmp.c - compares two PNG images with a tolerance, for the golden
 * render tests: prints the share of pixels that differ by more than
 * --level in any channel and the mean absolute difference, and exits 0
 * when both are within --share (percent) and --mean, 1 when not, 2 when an
 * image cannot be read or the sizes differ.
 *
 *   pngcmp GOT.png WANT.png [--share 1.0] [--mean 3.0] [--level 40]
 */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *load(const char *path, png_uint_32 *w, png_uint_32 *h)
{
	png_image img;
	memset(&img, 0, sizeof img);
	img.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&img, path)) {
		fprintf(stderr, "pngcmp: %s: %s\n", path, img.message);
		return NULL;
	}
	img.format = PNG_FORMAT_RGBA;
	unsigned char *buf = malloc(PNG_IMAGE_SIZE(img));
	if (!buf || !png_image_finish_read(&img, NULL, buf, 0, NULL)) {
		fprintf(stderr, "pngcmp: %s: %s\n", path, img.message);
		free(buf);
		png_image_free(&img);
		return NULL;
	}
	*w = img.width;
	*h = img.height;
	return buf;
}

int main(int argc, char **argv)
{
	double share = 1.0, mean_max = 3.0;
	int level = 40;
	if (argc < 3) {
		fprintf(stderr, "usage: pngcmp GOT.png WANT.png [--share P] "
				"[--mean M] [--level L]\n");
		return 2;
	}
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--share"))
			share = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--mean"))
			mean_max = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--level"))
			level = atoi(argv[i + 1]);
	}
	png_uint_32 w1, h1, w2, h2;
	unsigned char *a = load(argv[1], &w1, &h1), *b = load(argv[2], &w2, &h2);
	if (!a || !b) {
		free(a);
		free(b);
		return 2;
	}
	if (w1 != w2 || h1 != h2) {
		fprintf(stderr, "pngcmp: sizes differ: %ux%u vs %ux%u\n", w1, h1,
			w2, h2);
		free(a);
		free(b);
		return 2;
	}
	size_t n = (size_t)w1 * h1, off = 0;
	double sum = 0;
	for (size_t i = 0; i < n; i++) {
		int worst = 0;
		for (int c = 0; c < 3; c++) {
			int d = abs((int)a[4 * i + c] - (int)b[4 * i + c]);
			sum += d;
			worst = d > worst ? d : worst;
		}
		off += worst > level;
	}
	double pct = 100.0 * (double)off / (double)n, mean = sum / (3.0 * (double)n);
	printf("pngcmp: %s vs %s: %.3f%% of pixels differ by > %d, mean "
	       "difference %.3f\n",
	       argv[1], argv[2], pct, level, mean);
	free(a);
	free(b);
	return pct <= share && mean <= mean_max ? 0 : 1;
}
