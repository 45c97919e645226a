/* test_bench.c - unit tests of analysis/bench.c */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../analysis/gt_bench.h"
#include "../../lib/banned.h"

/* gradient-like floats: random sign and mantissa, exponents near 2^-10 */
static float *grads(size_t n)
{
	float *v = malloc(n * sizeof(*v) + 1);

	for (size_t i = 0; i < n; i++) {
		const uint64_t r = check_rand();
		const uint32_t e = 117 + (uint32_t)(r % 8);
		const uint32_t bits = (uint32_t)((r >> 8) & 1) << 31 | e << 23 |
				      ((uint32_t)(r >> 20) & 0x7fffff);

		memcpy(&v[i], &bits, 4);
		if (r % 5 == 0)
			v[i] = 0; /* ReLU zeros */
	}
	return v;
}

static struct gt_bench_input input(const void *data, size_t n, const char *codec,
				   const char *opts)
{
	struct gt_bench_input in;

	memset(&in, 0, sizeof(in));
	in.data = data;
	in.n = n;
	in.dtype = GT_DT_F32;
	in.codec = gt_codec_find(codec);
	in.opts = opts;
	return in;
}

/* Several inputs, blocks and chunks, several threads: the coded size does
 * not depend on the threads, timings are there and positive, the lossless
 * round trip is checked. */
static void test_lossless(void)
{
	const size_t n1 = 70000, n2 = 1000;
	float *a = grads(n1), *b = grads(n2);
	double c1[3], d1[3], c2[3], d2[3];
	struct gt_bench_input in[2];
	struct gt_bench_opts o = { 1, 3, 1, 4096, 1024 };
	struct gt_bench_result r1 = { 0, 0, c1, d1 }, r2 = { 0, 0, c2, d2 };
	struct gt_diag d = { "" };

	in[0] = input(a, n1, "huffexp", NULL);
	in[1] = input(b, n2, "zstd", "level=3");
	CHECK_RC(gt_bench_run(in, 2, &o, &r1, &d), 0);
	o.threads = 3;
	CHECK_RC(gt_bench_run(in, 2, &o, &r2, &d), 0);
	CHECK(r1.bytes == (n1 + n2) * 4);
	CHECK(r1.coded > 0 && r1.coded < r1.bytes);
	CHECK(r1.coded == r2.coded);
	for (int i = 0; i < 3; i++)
		CHECK(c1[i] > 0 && d1[i] > 0 && c2[i] > 0 && d2[i] > 0);
	free(a);
	free(b);
}

/* A lossy codec runs without the lossless check and codes smaller. */
static void test_lossy(void)
{
	const size_t n = 20000;
	float *a = grads(n);
	double c[1], dd[1];
	struct gt_bench_input in = input(a, n, "gcomp", "mode=single-quant");
	struct gt_bench_input raw = input(a, n, "huffexp", NULL);
	struct gt_bench_opts o = { 2, 1, 0, 0, 0 };
	struct gt_bench_result r = { 0, 0, c, dd }, rr = { 0, 0, c, dd };
	struct gt_diag d = { "" };

	CHECK_RC(gt_bench_run(&in, 1, &o, &r, &d), 0);
	CHECK_RC(gt_bench_run(&raw, 1, &o, &rr, &d), 0);
	CHECK(r.coded < rr.coded);
	free(a);
}

static void test_bad(void)
{
	float v[4] = { 1, 2, 3, 4 };
	double c[1], dd[1];
	struct gt_bench_input in = input(v, 4, "zstd", "nosuch=1");
	struct gt_bench_opts o = { 1, 1, 0, 0, 0 };
	struct gt_bench_result r = { 0, 0, c, dd };
	struct gt_diag d = { "" };

	CHECK_RC(gt_bench_run(&in, 1, &o, &r, &d), GT_ERR(INVAL));
	CHECK(strstr(d.msg, "nosuch") != NULL);
	in.opts = NULL;
	o.repeat = 0;
	CHECK_RC(gt_bench_run(&in, 1, &o, &r, &d), GT_ERR(INVAL));
	o.repeat = 1;
	o.threads = 0;
	CHECK_RC(gt_bench_run(&in, 1, &o, &r, &d), GT_ERR(INVAL));
}

static int eq(double a, double b)
{
	return !(a < b) && !(a > b);
}

static void test_spread(void)
{
	double v[5] = { 5, 1, 4, 2, 3 }, w[4] = { 4, 1, 3, 2 }, one[1] = { 7 };
	double med, lo, hi;

	gt_bench_spread(v, 5, &med, &lo, &hi);
	CHECK(eq(med, 3) && eq(lo, 1) && eq(hi, 5));
	gt_bench_spread(w, 4, &med, &lo, &hi);
	CHECK(eq(med, 2.5) && eq(lo, 1) && eq(hi, 4));
	gt_bench_spread(one, 1, &med, &lo, &hi);
	CHECK(eq(med, 7) && eq(lo, 7) && eq(hi, 7));
	CHECK(fabs(gt_bench_mbps(3000000, 2.0) - 1.5) < 1e-12);
	CHECK(eq(gt_bench_mbps(100, 0), 0));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_lossless);
	RUN(test_lossy);
	RUN(test_bad);
	RUN(test_spread);
	return check_done("test_bench");
}
