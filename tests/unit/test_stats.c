/* test_stats.c - unit tests of analysis/stats.c */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../analysis/gt_stats.h"
#include "../../lib/banned.h"

static const enum gt_dtype dtypes[] = { GT_DT_F32, GT_DT_F16, GT_DT_BF16, GT_DT_F64 };
#define NDT (sizeof(dtypes) / sizeof(dtypes[0]))

/* a == b without -Wfloat-equal: gtool compares floats on purpose here */
static int feq(double a, double b)
{
	return !(a < b) && !(a > b) && !isnan(a) && !isnan(b);
}

static int close_rel(double a, double b, double tol)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) || fabs(a - b) < 1e-300;
}

/* A random bit pattern of @dt: mostly gradient-like, some specials. */
static uint64_t rand_bits(enum gt_dtype dt)
{
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);
	const int bias = gt_dtype_bias(dt);
	const uint64_t r = check_rand();
	const unsigned sign = (unsigned)(r >> 63);
	const uint64_t man = (r >> 8) & ((UINT64_C(1) << mb) - 1);
	unsigned exp;

	/* exponents clustered a few below the bias, like gradients */
	exp = (unsigned)(bias - 1 - (int)((r >> 2) % (unsigned)(bias / 2 > 12 ? 12 : bias / 2)));
	switch (r % 64) {
	case 0: return gt_fp_make(sign, 0, 0, dt);                   /* +-0 */
	case 1: return gt_fp_make(sign, 0, man | 1, dt);             /* subnormal */
	case 2: return gt_fp_make(sign, (1u << eb) - 1, 0, dt);      /* Inf */
	case 3: return gt_fp_make(sign, (1u << eb) - 1, man | 1, dt);/* NaN */
	default: return gt_fp_make(sign, exp, man, dt);
	}
}

/* The direct computation: counts and a two-pass mean/std in double. */
struct ref {
	uint64_t zeros, sub, nan, inf, neg, finite;
	double min, max, mean, std, mean_abs;
	uint64_t hist[GT_STATS_MAX_BINS];
};

static void reference(const void *buf, enum gt_dtype dt, size_t n, struct ref *r)
{
	const size_t nbins = (size_t)1 << gt_dtype_exp_bits(dt);
	double sum = 0, sq = 0, sa = 0;

	memset(r, 0, sizeof(*r));
	r->min = INFINITY;
	r->max = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		const uint64_t u = gt_fp_load(buf, dt, i);
		const double x = gt_fp_get(buf, dt, i);
		const unsigned e = gt_fp_exp(u, dt);

		r->hist[e]++;
		r->neg += gt_fp_sign(u, dt);
		if (isnan(x)) {
			r->nan++;
		} else if (isinf(x)) {
			r->inf++;
		} else {
			r->finite++;
			sum += x;
			sa += fabs(x);
			r->min = fmin(r->min, x);
			r->max = fmax(r->max, x);
		}
		if (feq(x, 0))
			r->zeros++;
		else if (e == 0)
			r->sub++;
	}
	r->mean = sum / (double)r->finite;
	for (size_t i = 0; i < n; i++) {
		const double x = gt_fp_get(buf, dt, i);

		if (isfinite(x))
			sq += (x - r->mean) * (x - r->mean);
	}
	r->std = sqrt(sq / (double)r->finite);
	r->mean_abs = sa / (double)r->finite;
	(void)nbins;
}

static void *rand_buf(enum gt_dtype dt, size_t n)
{
	unsigned char *buf = malloc(n * gt_dtype_size(dt) + 1);

	for (size_t i = 0; i < n; i++)
		gt_fp_store(buf, dt, i, rand_bits(dt));
	return buf;
}

static void check_against_ref(const struct gt_stats *s, const struct ref *r,
			      enum gt_dtype dt)
{
	struct gt_stats_result res;
	const size_t nbins = (size_t)1 << gt_dtype_exp_bits(dt);

	gt_stats_derive(s, &res);
	CHECK(s->zeros == r->zeros);
	CHECK(s->subnormals == r->sub);
	CHECK(s->nan == r->nan);
	CHECK(s->inf == r->inf);
	CHECK(s->negative == r->neg);
	CHECK(s->finite == r->finite);
	CHECK(!memcmp(s->hist, r->hist, nbins * sizeof(uint64_t)));
	CHECK(feq(res.min, r->min)); /* exact */
	CHECK(feq(res.max, r->max));
	CHECK(close_rel(res.mean, r->mean, 1e-10) || fabs(res.mean - r->mean) < 1e-12 * r->std);
	CHECK(close_rel(res.std, r->std, 1e-10));
	CHECK(close_rel(res.mean_abs, r->mean_abs, 1e-12));
}

static void test_random_every_dtype(void)
{
	for (size_t k = 0; k < NDT; k++) {
		const size_t n = 10000 + (size_t)(check_rand() % 5000);
		void *buf = rand_buf(dtypes[k], n);
		struct gt_stats *s = malloc(sizeof(*s));
		struct ref *r = malloc(sizeof(*r));

		CHECK_RC(gt_stats_init(s, dtypes[k]), 0);
		CHECK_RC(gt_stats_add(s, buf, n), 0);
		CHECK(s->values == n);
		reference(buf, dtypes[k], n, r);
		check_against_ref(s, r, dtypes[k]);
		free(buf);
		free(s);
		free(r);
	}
}

/* Blocks of odd sizes, and merging accumulators, equal one pass. */
static void test_blocks_and_merge(void)
{
	for (size_t k = 0; k < NDT; k++) {
		const enum gt_dtype dt = dtypes[k];
		const size_t n = 7001, size = gt_dtype_size(dt);
		unsigned char *buf = rand_buf(dt, n);
		struct gt_stats *one = malloc(sizeof(*one)), *a = malloc(sizeof(*a));
		struct gt_stats *b = malloc(sizeof(*b));
		struct gt_stats_result r1, r2;
		size_t off = 0;

		gt_stats_init(one, dt);
		gt_stats_add(one, buf, n);
		gt_stats_init(a, dt);
		while (off < n) {
			size_t c = 1 + (size_t)(check_rand() % 1500);

			if (c > n - off)
				c = n - off;
			gt_stats_init(b, dt);
			CHECK_RC(gt_stats_add(b, buf + off * size, c), 0);
			gt_stats_merge(a, b);
			off += c;
		}
		gt_stats_derive(one, &r1);
		gt_stats_derive(a, &r2);
		CHECK(a->values == one->values && a->zeros == one->zeros);
		CHECK(a->subnormals == one->subnormals && a->nan == one->nan);
		CHECK(a->inf == one->inf && a->negative == one->negative);
		CHECK(!memcmp(a->hist, one->hist, sizeof(a->hist)));
		CHECK(feq(r1.min, r2.min) && feq(r1.max, r2.max));
		CHECK(close_rel(r1.mean, r2.mean, 1e-12) || fabs(r1.mean - r2.mean) < 1e-13 * r1.std);
		CHECK(close_rel(r1.std, r2.std, 1e-12));
		CHECK(close_rel(r1.mean_abs, r2.mean_abs, 1e-13));
		CHECK(feq(r1.entropy, r2.entropy) && feq(r1.top15, r2.top15));
		CHECK(r1.distinct == r2.distinct);
		free(buf);
		free(one);
		free(a);
		free(b);
	}
}

/* Each special value, for every dtype, one at a time. */
static void test_specials(void)
{
	for (size_t k = 0; k < NDT; k++) {
		const enum gt_dtype dt = dtypes[k];
		const unsigned emax = (1u << gt_dtype_exp_bits(dt)) - 1;
		const uint64_t v[] = {
			gt_fp_make(0, 0, 0, dt), gt_fp_make(1, 0, 0, dt),       /* +0 -0 */
			gt_fp_make(0, 0, 1, dt), gt_fp_make(1, 0, 3, dt),       /* subnormals */
			gt_fp_make(0, emax, 0, dt), gt_fp_make(1, emax, 0, dt), /* +-Inf */
			gt_fp_make(0, emax, 1, dt), gt_fp_make(1, emax, 5, dt), /* NaN */
			gt_fp_make(0, (unsigned)gt_dtype_bias(dt), 0, dt),      /* 1.0 */
			gt_fp_make(1, (unsigned)gt_dtype_bias(dt) + 1, 0, dt),  /* -2.0 */
		};
		unsigned char buf[sizeof(v) / sizeof(v[0]) * 8];
		struct gt_stats *s = malloc(sizeof(*s));
		struct gt_stats_result r;
		const size_t n = sizeof(v) / sizeof(v[0]);
		double sub0;

		for (size_t i = 0; i < n; i++)
			gt_fp_store(buf, dt, i, v[i]);
		sub0 = gt_fp_get(buf, dt, 2);
		gt_stats_init(s, dt);
		CHECK_RC(gt_stats_add(s, buf, n), 0);
		gt_stats_derive(s, &r);
		CHECK(s->values == n);
		CHECK(s->zeros == 2);
		CHECK(s->subnormals == 2);
		CHECK(s->inf == 2);
		CHECK(s->nan == 2);
		CHECK(s->negative == 5);
		CHECK(s->finite == 6);
		CHECK(s->hist[0] == 4 && s->hist[emax] == 4);
		CHECK(r.distinct == 4);
		CHECK(feq(r.min, -2.0));
		CHECK(feq(r.max, 1.0));
		CHECK(sub0 > 0 && sub0 < 1e-4);
		CHECK(feq(r.top15, 1.0));
		CHECK(close_rel(r.sign, 0.5, 1e-15));
		/* fields: 0 x4, emax x4, bias x1, bias+1 x1 */
		CHECK(close_rel(r.entropy, -2 * 0.4 * log2(0.4) - 2 * 0.1 * log2(0.1), 1e-14));
		CHECK(close_rel(r.bound_bits, 1 + gt_dtype_man_bits(dt) + r.entropy, 1e-15));
		CHECK(close_rel(r.bound_ratio, r.bound_bits / (8.0 * gt_dtype_size(dt)), 1e-15));
		free(s);
	}
}

static void test_no_finite_and_empty(void)
{
	struct gt_stats *s = malloc(sizeof(*s));
	struct gt_stats_result r;
	const float nan = NAN;

	gt_stats_init(s, GT_DT_F32);
	gt_stats_derive(s, &r);
	CHECK(isnan(r.mean) && isnan(r.min) && isnan(r.mean_abs));
	CHECK(feq(r.entropy, 0) && feq(r.top15, 0) && feq(r.sign, 0));
	CHECK(r.distinct == 0 && feq(r.bound_bits, 24) && feq(r.bound_ratio, 0.75));
	CHECK_RC(gt_stats_add(s, &nan, 1), 0);
	gt_stats_derive(s, &r);
	CHECK(s->nan == 1 && isnan(r.mean) && isnan(r.std) && isnan(r.max));
	CHECK(feq(r.entropy, 0) && feq(r.top15, 1));
	CHECK_RC(gt_stats_init(s, GT_DT_NONE), GT_ERR(TYPE));
	free(s);
}

/* Cancellation: a large offset with a tiny spread keeps its std. */
static void test_numerics(void)
{
	const size_t n = 100000;
	double *x = malloc(n * sizeof(*x));
	struct gt_stats *s = malloc(sizeof(*s));
	struct gt_stats_result r;

	double dev = 0;

	for (size_t i = 0; i < n; i++)
		x[i] = 1e9 + (i & 1 ? 1e-3 : -1e-3);
	for (size_t i = 0; i < n; i++) /* the mean is exactly 1e9 here */
		dev += (x[i] - 1e9) * (x[i] - 1e9);
	gt_stats_init(s, GT_DT_F64);
	gt_stats_add(s, x, n);
	gt_stats_derive(s, &r);
	CHECK(close_rel(r.std, sqrt(dev / (double)n), 1e-9));
	CHECK(close_rel(r.mean, 1e9, 1e-15));
	free(x);
	free(s);
}

/* The largest finite value of @dt as a bit pattern, and as a double. */
static uint64_t max_bits(enum gt_dtype dt)
{
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);

	return gt_fp_make(0, (1u << eb) - 2, (UINT64_C(1) << mb) - 1, dt);
}

/*
 * Values near each dtype's largest finite value M (f64 1.797e308, f32
 * 3.403e38, f16 65504, bf16 3.390e38).  {M, M, 1}, worked by hand: mean =
 * (2M + 1)/3, deviations d = (M - 1)/3, d and -2d, so std^2 = (d^2 + d^2 +
 * 4d^2) / 3 = 2 d^2: std = sqrt(2) (M - 1) / 3; mean |x| = mean.
 * Then 3000 values in 3 chunks of ±M, M/2 and small ones, in two blocks and
 * two accumulators merged (the small one first, so the scales differ),
 * against a long double two-pass computation.  Before the moments were
 * kept scaled, f64 gave mean = nan, std = 0.
 */
static void test_limits(void)
{
	const size_t n = 3000;

	for (size_t k = 0; k < NDT; k++) {
		const enum gt_dtype dt = dtypes[k];
		const size_t w = gt_dtype_size(dt);
		unsigned char *buf = malloc(n * w);
		struct gt_stats *s = malloc(sizeof(*s)), *t = malloc(sizeof(*t));
		struct gt_stats_result r;
		long double sum = 0, sq = 0, sa = 0, mean;
		double m;

		gt_fp_store(buf, dt, 0, max_bits(dt));
		m = gt_fp_get(buf, dt, 0);
		gt_fp_store(buf, dt, 1, max_bits(dt));
		gt_fp_store(buf, dt, 2, gt_fp_make(0, (unsigned)gt_dtype_bias(dt), 0, dt)); /* 1 */
		gt_stats_init(s, dt);
		gt_stats_add(s, buf, 3);
		gt_stats_derive(s, &r);
		CHECK(close_rel(r.mean, 2 * (m / 3) + 1.0 / 3, 1e-12));
		CHECK(close_rel(r.mean_abs, 2 * (m / 3) + 1.0 / 3, 1e-12));
		CHECK(close_rel(r.std, sqrt(2.0) * ((m - 1) / 3), 1e-12));
		CHECK(feq(r.max, m) && feq(r.min, 1.0));
		for (size_t i = 0; i < n; i++) {
			const uint64_t mb = max_bits(dt) - (check_rand() & 7);
			const uint64_t sign = (uint64_t)(i % 3 == 1) << (8 * w - 1);

			gt_fp_store(buf, dt, i, i % 5 == 4 ? gt_fp_make(0, 5, i & 3, dt) : mb | sign);
		}
		for (size_t i = 0; i < n; i++)
			sum += gt_fp_get(buf, dt, i);
		mean = sum / n;
		for (size_t i = 0; i < n; i++) {
			const long double x = gt_fp_get(buf, dt, i);

			sq += (x - mean) * (x - mean);
			sa += fabsl(x);
		}
		gt_stats_init(s, dt);
		gt_stats_init(t, dt);
		gt_stats_add(t, buf + 4 * w, 1);   /* a small value alone: scale 0 */
		gt_stats_add(s, buf, 4);
		gt_stats_add(s, buf + 5 * w, n - 5);
		gt_stats_merge(t, s);
		gt_stats_derive(t, &r);
		CHECK(close_rel(r.mean, (double)mean, 1e-12));
		CHECK(close_rel(r.std, (double)sqrtl(sq / n), 1e-12));
		CHECK(close_rel(r.mean_abs, (double)(sa / n), 1e-12));
		free(buf);
		free(s);
		free(t);
	}
}

static void test_entropy_topk(void)
{
	uint64_t c[GT_STATS_MAX_BINS] = { 0 };
	uint64_t total = 0, top = 0;

	for (unsigned k = 0; k <= 11; k++) {
		memset(c, 0, sizeof(c));
		for (size_t i = 0; i < ((size_t)1 << k); i++)
			c[i * 3 % GT_STATS_MAX_BINS] = 7;
		CHECK(close_rel(gt_stats_entropy(c, GT_STATS_MAX_BINS), k, 1e-12) ||
		      (k == 0 && feq(gt_stats_entropy(c, GT_STATS_MAX_BINS), 0)));
	}
	memset(c, 0, sizeof(c));
	CHECK(feq(gt_stats_entropy(c, 16), 0));
	CHECK(feq(gt_stats_topk_share(c, 16, 15), 0));
	c[0] = 1;
	c[1] = 1;
	CHECK(feq(gt_stats_entropy(c, 2), 1.0));
	/* counts 1..20 in shuffled bins: the top 15 are 6..20 */
	memset(c, 0, sizeof(c));
	for (unsigned i = 1; i <= 20; i++) {
		c[(i * 37) % 256] = i;
		total += i;
		if (i >= 6)
			top += i;
	}
	CHECK(close_rel(gt_stats_topk_share(c, 256, 15), (double)top / (double)total, 1e-15));
	CHECK(feq(gt_stats_topk_share(c, 256, 256), 1.0));
}

static void test_mixed_merge(void)
{
	struct gt_stats *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	struct gt_stats_result r;
	const float f[2] = { 1.0f, 3.0f };
	const double d[2] = { 5.0, 7.0 };

	gt_stats_init(a, GT_DT_F32);
	gt_stats_init(b, GT_DT_F64);
	gt_stats_add(a, f, 2);
	gt_stats_add(b, d, 2);
	gt_stats_merge(a, b);
	gt_stats_derive(a, &r);
	CHECK(a->mixed && a->values == 4 && gt_stats_nbins(a) == 0);
	CHECK(feq(r.mean, 4.0) && close_rel(r.std, sqrt(5.0), 1e-15));
	CHECK(feq(r.min, 1.0) && feq(r.max, 7.0) && feq(r.mean_abs, 4.0));
	CHECK(isnan(r.entropy) && isnan(r.bound_bits));
	CHECK_RC(gt_stats_add(a, f, 2), GT_ERR(INVAL));
	free(a);
	free(b);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_random_every_dtype);
	RUN(test_blocks_and_merge);
	RUN(test_specials);
	RUN(test_no_finite_and_empty);
	RUN(test_numerics);
	RUN(test_limits);
	RUN(test_entropy_topk);
	RUN(test_mixed_merge);
	return check_done("test_stats");
}
