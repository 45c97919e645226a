/* test_gain.c - compression gain sums, EWMA, multi-level gather/scatter, coding */
#include <math.h>

#include "check.h"
#include "../../analysis/gt_gain.h"

static float frand(void)
{
	return (float)((double)(check_rand() >> 11) * 0x1p-53 * 2 - 1);
}

/* The sums against a direct double computation over two tensors. */
static void test_sums(void)
{
	enum { N1 = 1000, N2 = 37 };
	static float g[N1 + N2], ef[N1 + N2], hat[N1 + N2];
	struct gt_gain_sums s = { 0 }, s2 = { 0 };
	double ef2 = 0, h2 = 0, ng[2] = { 0 }, nh[2] = { 0 };

	for (int i = 0; i < N1 + N2; i++) {
		g[i] = frand();
		ef[i] = g[i] + frand() * 0.1f;
		hat[i] = i % 3 ? 0 : ef[i];
		ef2 += (double)ef[i] * ef[i];
		h2 += (double)hat[i] * hat[i];
		ng[i >= N1] += (double)g[i] * g[i];
		nh[i >= N1] += (double)hat[i] * hat[i];
	}
	gt_gain_add(&s, g, ef, hat, N1);
	gt_gain_add(&s2, g + N1, ef + N1, hat + N1, N2);
	gt_gain_merge(&s, &s2);
	CHECK(fabs(gt_gain_sq(&s) - h2 / ef2) < 1e-12);
	CHECK(fabs(gt_gain_norm(&s) - (sqrt(nh[0]) + sqrt(nh[1])) / (sqrt(ng[0]) + sqrt(ng[1]))) < 1e-12);
	/* a tensor coded exactly has gain 1; an empty one has none */
	memset(&s, 0, sizeof(s));
	gt_gain_add(&s, g, g, g, N1);
	CHECK(fabs(gt_gain_sq(&s) - 1) < 1e-15 && fabs(gt_gain_norm(&s) - 1) < 1e-15);
	memset(&s, 0, sizeof(s));
	CHECK(isnan(gt_gain_sq(&s)) && isnan(gt_gain_norm(&s)));
}

/* pandas' adjusted EWMA, written out as its weighted sum. */
static void test_ewma(void)
{
	const double x[] = { 0.5, 0.9, 0.1, 0.7, 0.7, 0.2 };
	const double a = 0.3;
	struct gt_ewma e;

	gt_ewma_init(&e, a);
	for (int t = 0; t < 6; t++) {
		double num = 0, den = 0, got = gt_ewma_add(&e, x[t]);

		for (int i = 0; i <= t; i++) {
			num += pow(1 - a, i) * x[t - i];
			den += pow(1 - a, i);
		}
		CHECK(fabs(got - num / den) < 1e-12);
	}
	gt_ewma_init(&e, 1);
	gt_ewma_add(&e, 3);
	CHECK(fabs(gt_ewma_add(&e, 5) - 5) < 1e-15); /* alpha 1: the last value */
}

static void test_compact_scatter(void)
{
	const float hat[] = { 0, 1.5f, -0.0f, 0, -2, 0, 3 };
	float vals[7], back[7];
	size_t idx[7];
	const size_t m = gt_gain_compact(hat, 7, vals, idx);

	CHECK(m == 3);
	CHECK(idx[0] == 1 && idx[1] == 4 && idx[2] == 6);
	gt_gain_scatter(vals, idx, m, back, 7);
	for (int i = 0; i < 7; i++)
		CHECK(fabs(back[i] - hat[i]) < 1e-30f); /* -0 comes back as +0 */
}

/*
 * Coding through a lossless codec gives the values back and counts the
 * bytes of every block; raw costs 4 bytes a value (a block that would
 * grow is kept as it is).
 */
static void test_code(void)
{
	enum { N = 5000 };
	static float src[N], dst[N];
	struct gt_gain_coder gc;
	struct gt_gain_cost cost = { 0 };
	struct gt_diag d;

	for (int i = 0; i < N; i++)
		src[i] = frand() * (i % 7 ? 1e-3f : 1);
	CHECK_RC(gt_gain_coder_init(&gc, gt_codec_find("huffexp"), "", 1024, 256, &d), 0);
	CHECK_RC(gt_gain_code(&gc, src, N, 3, dst, &cost), 0);
	CHECK(!memcmp(src, dst, sizeof(src)));
	CHECK(cost.bytes > 0 && cost.bytes < N * 4);
	{
		/* without @dst only the bytes are counted, the same bytes */
		struct gt_gain_cost c2 = { 0 };

		CHECK_RC(gt_gain_code(&gc, src, N, 3, NULL, &c2), 0);
		CHECK(c2.bytes == cost.bytes);
	}
	gt_gain_coder_release(&gc);

	memset(&cost, 0, sizeof(cost));
	CHECK_RC(gt_gain_coder_init(&gc, gt_codec_find("raw"), "", 1024, 256, &d), 0);
	CHECK_RC(gt_gain_code(&gc, src, N, 0, dst, &cost), 0);
	CHECK(!memcmp(src, dst, sizeof(src)) && cost.bytes == N * 4);
	gt_gain_coder_release(&gc);
	CHECK_RC(gt_gain_coder_init(&gc, gt_codec_find("zstd"), "level=99", 1024, 256, &d),
		 GT_ERR(INVAL));
	CHECK_RC(gt_gain_coder_init(&gc, gt_codec_find("zstd"), "", 256, 1024, &d),
		 GT_ERR(INVAL));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_sums);
	RUN(test_ewma);
	RUN(test_compact_scatter);
	RUN(test_code);
	return check_done("test_gain");
}
