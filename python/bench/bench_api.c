/* bench_api.c - libgtool's own speed through its public API, the baseline of
 * python/bench/bench.py: gtool_compress and gtool_decompress of a raw f32 file
 * into reused buffers, and their _alloc forms that return fresh memory */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gtool.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *slurp(const char *path, size_t *len_ret)
{
	FILE *f = fopen(path, "rb");
	void *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		p = malloc((size_t)n);
		if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
			free(p);
			p = NULL;
		}
		*len_ret = (size_t)n;
	}
	fclose(f);
	return p;
}

/* One compress and decompress into buffers the caller keeps (reuse), or
 * with gtool_compress_alloc / gtool_decompress_alloc (alloc: fresh memory
 * for each result, freed after, as a one-shot caller gets it); seconds of
 * each into t[0], t[1]. */
static int once(const char *spec, const void *src, size_t len, void *dst, void *back,
		size_t cap, size_t *clen, double t[2])
{
	struct gtool_errbuf err;
	const uint64_t dims[1] = { len / 4 };
	void *d = dst, *b = back;
	size_t dlen = 0;
	double t0 = now();
	int rc = dst ? gtool_compress(spec, GTOOL_F32, dims, 1, src, len, NULL, d, cap, clen, &err)
		     : gtool_compress_alloc(spec, GTOOL_F32, dims, 1, src, len, NULL, &d, clen,
					    &err);

	if (rc < 0)
		return fprintf(stderr, "bench_api: %s\n", err.msg), -1;
	t[0] = now() - t0;
	t0 = now();
	rc = back ? gtool_decompress(d, *clen, b, len, &dlen, NULL, &err)
		  : gtool_decompress_alloc(d, *clen, &b, &dlen, NULL, &err);
	t[1] = now() - t0;
	if (rc < 0)
		fprintf(stderr, "bench_api: %s\n", err.msg);
	if (rc >= 0 && !back && memcmp(b, src, len) != 0 && strncmp(spec, "huffexp", 7) == 0)
		rc = -1, fprintf(stderr, "bench_api: round trip differs\n");
	if (d != dst)
		gtool_free(d);
	if (b != back)
		gtool_free(b);
	return rc < 0 ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define REPS_MAX 101

/* bench_api FILE.f32 CODEC REPS: prints "bytes compress_s decompress_s
 * alloc_compress_s alloc_decompress_s", the median of REPS runs each, the
 * two ways taking turns */
int main(int argc, char **argv)
{
	static double t[4][REPS_MAX];
	double ti[2];
	size_t len = 0, clen = 0, cap;
	void *src, *dst, *back;
	int reps;

	if (argc != 4)
		return fprintf(stderr, "usage: bench_api FILE.f32 CODEC REPS\n"), 2;
	src = slurp(argv[1], &len);
	reps = (int)strtol(argv[3], NULL, 10);
	if (!src || len % 4 || reps < 1 || reps > REPS_MAX)
		return fprintf(stderr, "bench_api: cannot read %s or bad REPS\n", argv[1]), 1;
	cap = gtool_compress_bound(GTOOL_F32, len / 4);
	dst = malloc(cap);
	back = malloc(len);
	if (!dst || !back)
		return 1;
	memset(dst, 0, cap);
	memset(back, 0, len);
	for (int i = 0; i < reps; i++) {
		for (int fresh = 0; fresh < 2; fresh++) {
			if (once(argv[2], src, len, fresh ? NULL : dst, fresh ? NULL : back, cap,
				 &clen, ti) < 0)
				return 1;
			t[2 * fresh][i] = ti[0];
			t[2 * fresh + 1][i] = ti[1];
		}
	}
	if (memcmp(src, back, len) != 0 && strncmp(argv[2], "huffexp", 7) == 0)
		return fprintf(stderr, "bench_api: round trip differs\n"), 1;
	printf("%zu", clen);
	for (int k = 0; k < 4; k++) {
		qsort(t[k], (size_t)reps, sizeof(double), cmp_double);
		printf(" %.9f", t[k][reps / 2]);
	}
	printf("\n");
	free(src);
	free(dst);
	free(back);
	return 0;
}
