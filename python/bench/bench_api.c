/* bench_api.c - libgtool's own speed through its public API, the baseline of
 * python/bench/bench.py: gtool_compress and gtool_decompress of a raw f32 file */
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

/* One compress and decompress into buffers the caller keeps (warm), or into
 * buffers malloc'd for the call (fresh: their pages are touched the first
 * time, as a one-shot caller's are); seconds of each into t[0], t[1]. */
static int once(const char *spec, const void *src, size_t len, void *dst, void *back,
		size_t cap, size_t *clen, double t[2])
{
	struct gtool_errbuf err;
	const uint64_t dims[1] = { len / 4 };
	void *d = dst ? dst : malloc(cap), *b = back ? back : malloc(len);
	size_t dlen = 0;
	double t0 = now();
	int rc = -1;

	if (!d || !b)
		goto out;
	if (gtool_compress(spec, GTOOL_F32, dims, 1, src, len, NULL, d, cap, clen, &err) < 0) {
		fprintf(stderr, "bench_api: %s\n", err.msg);
		goto out;
	}
	t[0] = now() - t0;
	t0 = now();
	if (gtool_decompress(d, *clen, b, len, &dlen, NULL, &err) < 0) {
		fprintf(stderr, "bench_api: %s\n", err.msg);
		goto out;
	}
	t[1] = now() - t0;
	rc = 0;
out:
	if (d != dst)
		free(d);
	if (b != back)
		free(b);
	return rc;
}

/* bench_api FILE.f32 CODEC REPS: prints "bytes compress_s decompress_s
 * fresh_compress_s fresh_decompress_s", the best of REPS runs each */
int main(int argc, char **argv)
{
	double best[4] = { 1e30, 1e30, 1e30, 1e30 }, t[2];
	size_t len = 0, clen = 0, cap;
	void *src, *dst, *back;
	int reps;

	if (argc != 4)
		return fprintf(stderr, "usage: bench_api FILE.f32 CODEC REPS\n"), 2;
	src = slurp(argv[1], &len);
	reps = (int)strtol(argv[3], NULL, 10);
	if (!src || len % 4 || reps < 1)
		return fprintf(stderr, "bench_api: cannot read %s\n", argv[1]), 1;
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
				 &clen, t) < 0)
				return 1;
			for (int k = 0; k < 2; k++)
				best[2 * fresh + k] = t[k] < best[2 * fresh + k] ? t[k] : best[2 * fresh + k];
		}
	}
	if (memcmp(src, back, len) != 0 && strncmp(argv[2], "huffexp", 7) == 0)
		return fprintf(stderr, "bench_api: round trip differs\n"), 1;
	printf("%zu %.9f %.9f %.9f %.9f\n", clen, best[0], best[1], best[2], best[3]);
	free(src);
	free(dst);
	free(back);
	return 0;
}
