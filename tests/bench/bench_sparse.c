/* bench_sparse.c - one-thread speed of the whole-block codecs on one big block */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gt_bitio.h"
#include "gt_codec.h"
#include "gt_huff.h"

/*
 * usage: bench_sparse [--repeat N] [--values N] [--codec NAME[:opts]]...
 *	[FILE.f32]
 *
 * The sparsifiers (and terngrad) select over a whole .gtz block, so this
 * codes --values values (default 2^24, the largest block) as one chunk,
 * as the container does with --block-size 16777216: FILE.f32 repeated
 * up to that many values, or without a file Gaussian-like values (a sum
 * of four uniforms) with 28% zeros, from a fixed seed.  Prints the median
 * (min-max) milliseconds of N runs (default 5) of encode and of decode,
 * and the coded size.  Default codecs: topk:cf=100, randk:cf=100,
 * dgc:cf=100, redsync:cf=100, terngrad, qsgd.
 */

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static int cmp_d(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void synth(float *v, size_t n)
{
	uint64_t s = 42;

	for (size_t i = 0; i < n; i++) {
		double g = 0;

		for (int j = 0; j < 4; j++) {
			uint64_t z = (s += 0x9e3779b97f4a7c15ull);

			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
			z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
			g += (double)((z ^ (z >> 31)) >> 11) * 0x1p-53 - 0.5;
		}
		v[i] = (i * 2654435761u) % 100 < 28 ? 0.0f : (float)(g * 1e-3);
	}
}

static int load(const char *path, float *v, size_t n)
{
	FILE *f = fopen(path, "rb");
	size_t have = 0, got;

	if (!f)
		return -1;
	while (have < n && (got = fread(v + have, 4, n - have, f)) > 0)
		have += got;
	fclose(f);
	for (size_t i = have; have && i < n; i++)
		v[i] = v[i % have];
	return have ? 0 : -1;
}

static void bench(const char *spec, const float *v, size_t n, int reps)
{
	const struct gt_codec *c;
	const char *opts;
	struct gt_codec_params p = { GT_DT_F32, NULL, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d;
	double enc[64], dec[64];
	unsigned char *dst;
	float *back = malloc(n * 4);
	size_t cap, len = 0;

	if (gt_codec_spec_parse(spec, &c, &opts, &d) < 0 ||
	    (p.opts = opts, gt_codec_new(c, &p, &ctx, &d) < 0)) {
		fprintf(stderr, "bench_sparse: %s: %s\n", spec, d.msg);
		exit(2);
	}
	cap = gt_codec_bound(ctx, n);
	dst = malloc(cap);
	for (int r = 0; r < reps; r++) {
		double t = now_ms();

		if (gt_codec_encode(ctx, v, n, dst, cap, &len) < 0)
			exit(1);
		enc[r] = now_ms() - t;
		t = now_ms();
		if (gt_codec_decode(ctx, dst, len, back, n) < 0)
			exit(1);
		dec[r] = now_ms() - t;
	}
	qsort(enc, (size_t)reps, sizeof(double), cmp_d);
	qsort(dec, (size_t)reps, sizeof(double), cmp_d);
	printf("%-22s %10zu values  encode %8.1f ms (%.1f-%.1f)  decode %7.1f ms (%.1f-%.1f)  %10zu bytes\n",
	       spec, n, enc[reps / 2], enc[0], enc[reps - 1], dec[reps / 2], dec[0],
	       dec[reps - 1], len);
	free(dst);
	free(back);
	gt_codec_free(ctx);
}

int main(int argc, char **argv)
{
	static const char *const defaults[] = {
		"topk:cf=100", "randk:cf=100", "dgc:cf=100", "redsync:cf=100", "terngrad", "qsgd",
	};
	const char *codecs[32], *file = NULL;
	size_t ncodecs = 0, n = (size_t)1 << 24;
	int reps = 5;
	float *v;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
			const long r = strtol(argv[++i], NULL, 10);

			reps = r < 1 ? 1 : r > 64 ? 64 : (int)r;
		}
		else if (!strcmp(argv[i], "--values") && i + 1 < argc)
			n = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--codec") && i + 1 < argc && ncodecs < 32)
			codecs[ncodecs++] = argv[++i];
		else
			file = argv[i];
	}
	for (size_t i = 0; !ncodecs && i < sizeof(defaults) / sizeof(*defaults); i++)
		codecs[i] = defaults[i];
	if (!ncodecs)
		ncodecs = sizeof(defaults) / sizeof(*defaults);
	v = malloc(n * 4);
	if (!v || (file ? load(file, v, n) : (synth(v, n), 0)) < 0) {
		fprintf(stderr, "bench_sparse: cannot read %s\n", file ? file : "memory");
		return 1;
	}
	printf("bench_sparse: %s, one thread, one chunk, median (min-max) of %d runs\n",
	       file ? file : "synthetic", reps);
	for (size_t i = 0; i < ncodecs; i++)
		bench(codecs[i], v, n, reps);
	free(v);
	return 0;
}
