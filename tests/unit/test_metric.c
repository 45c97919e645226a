/* test_metric.c - unit tests of analysis/metric.c */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../analysis/gt_metric.h"
#include "../../lib/banned.h"

static int close_rel(double a, double b, double tol)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	if (isinf(a) || isinf(b))
		return !(a < b) && !(a > b);
	return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) || fabs(a - b) < 1e-300;
}

/* a uniform double in [0, 1) */
static double urand(void)
{
	return (double)(check_rand() >> 11) * 0x1p-53;
}

/* The direct computation in long double: every metric from its definition. */
struct ref {
	uint64_t n, identical;
	long double max_abs, max_rel, range, rmse, nrmse, psnr, snr, cosine,
		pearson, gain;
};

static void reference(const double *a, const double *b, size_t n, struct ref *r)
{
	long double sa = 0, sb = 0, aa = 0, bb = 0, ab = 0, dd = 0;
	long double lo = INFINITY, hi = -INFINITY, ma, mb, m2a = 0, m2b = 0, cab = 0;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		const long double x = a[i], y = b[i], d = fabsl(x - y);

		r->identical += !memcmp(&a[i], &b[i], sizeof(double));
		sa += x;
		sb += y;
		aa += x * x;
		bb += y * y;
		ab += x * y;
		dd += d * d;
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		r->max_abs = d > r->max_abs ? d : r->max_abs;
		if (x < 0 || x > 0)
			r->max_rel = fmaxl(r->max_rel, d / fabsl(x));
	}
	ma = sa / n;
	mb = sb / n;
	for (size_t i = 0; i < n; i++) {
		m2a += (a[i] - ma) * (a[i] - ma);
		m2b += (b[i] - mb) * (b[i] - mb);
		cab += (a[i] - ma) * (b[i] - mb);
	}
	r->n = n;
	r->range = hi - lo;
	r->rmse = sqrtl(dd / n);
	r->nrmse = r->rmse / r->range;
	r->psnr = 20 * log10l(r->range / r->rmse);
	r->snr = 10 * log10l(aa / dd);
	r->cosine = ab / sqrtl(aa * bb);
	r->pearson = cab / sqrtl(m2a * m2b);
	r->gain = bb / aa;
}

static void check_against(const struct gt_metric *m, const struct ref *r, double tol)
{
	struct gt_metric_result x;

	gt_metric_derive(m, &x);
	CHECK(m->values == r->n && m->n == r->n);
	CHECK(m->identical == r->identical);
	CHECK(close_rel(m->max_abs, (double)r->max_abs, 1e-15));
	CHECK(close_rel(m->max_rel, (double)r->max_rel, 1e-15));
	CHECK(close_rel(x.range, (double)r->range, 1e-15));
	CHECK(close_rel(x.rmse, (double)r->rmse, tol));
	CHECK(close_rel(x.nrmse, (double)r->nrmse, tol));
	CHECK(close_rel(x.psnr, (double)r->psnr, tol));
	CHECK(close_rel(x.snr, (double)r->snr, tol));
	CHECK(close_rel(x.cosine, (double)r->cosine, tol));
	CHECK(close_rel(x.pearson, (double)r->pearson, tol));
	CHECK(close_rel(x.gain, (double)r->gain, tol));
}

/* Random gradient-like data a and a reconstruction b = a + noise (f64). */
static void make_pairs(double *a, double *b, size_t n, double mean, double spread,
		       double noise)
{
	for (size_t i = 0; i < n; i++) {
		a[i] = mean + spread * (2 * urand() - 1);
		b[i] = check_rand() % 5 ? a[i] + noise * (2 * urand() - 1) : a[i];
	}
}

/* Accumulate in pieces of random length (1 to 5000 values). */
static void add_pieces(struct gt_metric *m, const void *a, enum gt_dtype da,
		       const void *b, enum gt_dtype db, size_t n)
{
	const size_t wa = gt_dtype_size(da), wb = gt_dtype_size(db);

	for (size_t first = 0; first < n;) {
		size_t len = 1 + check_rand() % 5000;

		len = len > n - first ? n - first : len;
		CHECK_RC(gt_metric_add(m, (const char *)a + first * wa, da,
				       (const char *)b + first * wb, db, len), 0);
		first += len;
	}
}

static void test_random_f64(void)
{
	const size_t n = 100003;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	struct gt_metric m;
	struct ref r;

	make_pairs(a, b, n, 0.001, 0.05, 1e-4);
	reference(a, b, n, &r);
	gt_metric_init(&m);
	add_pieces(&m, a, GT_DT_F64, b, GT_DT_F64, n);
	check_against(&m, &r, 1e-12);
	free(a);
	free(b);
}

/* f32 data (the fast path) and mixed dtypes, against the f64 reference. */
static void test_random_f32(void)
{
	const size_t n = 65537;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	float *fa = malloc(n * sizeof(*fa)), *fb = malloc(n * sizeof(*fb));
	struct gt_metric m;
	struct ref r;

	make_pairs(a, b, n, 0, 0.01, 1e-5);
	for (size_t i = 0; i < n; i++) {
		fa[i] = (float)a[i];
		fb[i] = (float)b[i];
		a[i] = fa[i];
		b[i] = fb[i];
	}
	reference(a, b, n, &r);
	gt_metric_init(&m);
	add_pieces(&m, fa, GT_DT_F32, fb, GT_DT_F32, n);
	check_against(&m, &r, 1e-12);
	/* f32 against f64: compared as doubles, identical by widened bits */
	gt_metric_init(&m);
	add_pieces(&m, fa, GT_DT_F32, b, GT_DT_F64, n);
	check_against(&m, &r, 1e-12);
	free(a);
	free(b);
	free(fa);
	free(fb);
}

/* f16 and bf16 bit patterns through gt_fp_get, against the reference. */
static void test_random_half(void)
{
	static const enum gt_dtype dts[] = { GT_DT_F16, GT_DT_BF16 };
	const size_t n = 4099;
	uint16_t *ha = malloc(n * 2), *hb = malloc(n * 2);
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	struct gt_metric m;
	struct ref r;

	for (size_t t = 0; t < 2; t++) {
		const unsigned bias = (unsigned)gt_dtype_bias(dts[t]);

		for (size_t i = 0; i < n; i++) {
			const uint64_t x = check_rand();
			/* finite values: exponent bias-6 .. bias-1, random mantissa */
			ha[i] = (uint16_t)gt_fp_make((unsigned)(x & 1), bias - 1 - (unsigned)(x >> 1) % 6,
						     (x >> 8) % (1u << gt_dtype_man_bits(dts[t])), dts[t]);
			hb[i] = x >> 40 & 1 ? (uint16_t)(ha[i] ^ (x >> 41 & 3)) : ha[i];
			a[i] = gt_fp_get(ha, dts[t], i);
			b[i] = gt_fp_get(hb, dts[t], i);
		}
		reference(a, b, n, &r);
		gt_metric_init(&m);
		add_pieces(&m, ha, dts[t], hb, dts[t], n);
		check_against(&m, &r, 1e-12);
	}
	free(ha);
	free(hb);
	free(a);
	free(b);
}

static void test_identical(void)
{
	const float x[] = { 0.5f, -0.25f, 3e-3f, 0.0f, -0.0f, 1e-40f, 7.0f };
	struct gt_metric m;
	struct gt_metric_result r;

	gt_metric_init(&m);
	CHECK_RC(gt_metric_add(&m, x, GT_DT_F32, x, GT_DT_F32, 7), 0);
	gt_metric_derive(&m, &r);
	CHECK(m.values == 7 && m.identical == 7 && m.n == 7);
	CHECK(!(m.max_abs > 0) && !(m.max_rel > 0));
	CHECK(!(r.rmse > 0) && !(r.nrmse > 0));
	CHECK(isinf(r.psnr) && r.psnr > 0 && isinf(r.snr) && r.snr > 0);
	/* exactly 1, not 1 + ulp */
	CHECK(!(r.cosine < 1) && !(r.cosine > 1));
	CHECK(!(r.pearson < 1) && !(r.pearson > 1));
	CHECK(!(r.gain < 1) && !(r.gain > 1));
	CHECK(close_rel(r.range, 7.25, 0));
}

/* a = 1 2 3 4, b = 1 2.5 3 3: worked by hand. */
static void test_by_hand(void)
{
	const float a[] = { 1, 2, 3, 4 }, b[] = { 1, 2.5f, 3, 3 };
	struct gt_metric m;
	struct gt_metric_result r;

	gt_metric_init(&m);
	CHECK_RC(gt_metric_add(&m, a, GT_DT_F32, b, GT_DT_F32, 4), 0);
	gt_metric_derive(&m, &r);
	CHECK(m.identical == 2);
	CHECK(close_rel(m.max_abs, 1, 0));
	CHECK(close_rel(m.max_rel, 0.25, 0));      /* 0.5/2 and 1/4 */
	CHECK(close_rel(r.range, 3, 0));
	/* sum d^2 = 0.25 + 1 = 1.25; rmse = sqrt(1.25 / 4) */
	CHECK(close_rel(r.rmse, 0.5590169943749475, 1e-15));
	CHECK(close_rel(r.nrmse, 0.18633899812498247, 1e-15));
	CHECK(close_rel(r.psnr, 14.593924877592308, 1e-14)); /* 20 log10(3 / rmse) */
	CHECK(close_rel(r.snr, 13.80211241711606, 1e-14));   /* 10 log10(30 / 1.25) */
	CHECK(close_rel(r.cosine, 0.9810077663422254, 1e-15)); /* 27 / sqrt(30 * 25.25) */
	/* means 2.5, 2.375: c_ab 3.25, m2 5 and 2.6875 */
	CHECK(close_rel(r.pearson, 0.8865926413116155, 1e-15));
	CHECK(close_rel(r.gain, 25.25 / 30, 1e-15));
}

static void test_nan_inf(void)
{
	const uint32_t a[] = { 0x3f800000u, 0x7fc00000u, 0x7f800000u, 0x40000000u,
			       0x80000000u, 0x7fc00000u, 0x3f800000u, 0xff800000u };
	const uint32_t b[] = { 0x3f800000u, 0x7fc00000u, 0x7f800000u, 0x40400000u,
			       0x00000000u, 0x7fc00001u, 0x7fc00000u, 0x3f800000u };
	struct gt_metric m;
	struct gt_metric_result r;

	gt_metric_init(&m);
	CHECK_RC(gt_metric_add(&m, a, GT_DT_F32, b, GT_DT_F32, 8), 0);
	gt_metric_derive(&m, &r);
	/* 1=1, NaN=NaN (same payload), Inf=Inf; -0 != +0, payloads differ */
	CHECK(m.values == 8 && m.identical == 3);
	CHECK(m.nan == 3 && m.inf == 2 && m.n == 3);
	/* finite pairs: (1,1) (2,3) (-0,0) */
	CHECK(close_rel(m.max_abs, 1, 0) && close_rel(m.max_rel, 0.5, 0));
	CHECK(close_rel(r.range, 2, 0));
	CHECK(close_rel(r.rmse, sqrt(1.0 / 3), 1e-15));
	/* only NaN: everything derived is NaN */
	gt_metric_init(&m);
	CHECK_RC(gt_metric_add(&m, &a[1], GT_DT_F32, &b[1], GT_DT_F32, 1), 0);
	gt_metric_derive(&m, &r);
	CHECK(m.n == 0 && isnan(r.rmse) && isnan(r.psnr) && isnan(r.cosine));
	CHECK(gt_metric_add(&m, a, GT_DT_NONE, b, GT_DT_F32, 1) == GT_ERR(INVAL));
}

/* Zero range and zero signal: the formulas' infinities, and NaN ratios. */
static void test_degenerate(void)
{
	const float a[] = { 2, 2, 2 }, b[] = { 2, 2, 3 }, z[] = { 0, 0, 0 };
	struct gt_metric m;
	struct gt_metric_result r;

	gt_metric_init(&m);
	gt_metric_add(&m, a, GT_DT_F32, b, GT_DT_F32, 3);
	gt_metric_derive(&m, &r);
	CHECK(isinf(r.nrmse) && r.nrmse > 0 && isinf(r.psnr) && r.psnr < 0);
	CHECK(isnan(r.pearson) && isfinite(r.cosine));
	gt_metric_init(&m);
	gt_metric_add(&m, z, GT_DT_F32, z, GT_DT_F32, 3);
	gt_metric_derive(&m, &r);
	CHECK(isinf(r.psnr) && r.psnr > 0 && isnan(r.cosine) && isnan(r.gain));
}

/* Merging accumulators of pieces equals one pass over everything. */
static void test_merge(void)
{
	const size_t n = 50001;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	struct gt_metric one, total, part;
	struct gt_metric_result x, y;
	size_t first = 0;

	make_pairs(a, b, n, -0.3, 1, 1e-3);
	a[17] = NAN;
	b[99] = INFINITY;
	gt_metric_init(&one);
	gt_metric_add(&one, a, GT_DT_F64, b, GT_DT_F64, n);
	gt_metric_init(&total);
	while (first < n) {
		size_t len = check_rand() % 9000;

		len = len > n - first ? n - first : len;
		gt_metric_init(&part);
		gt_metric_add(&part, a + first, GT_DT_F64, b + first, GT_DT_F64, len);
		gt_metric_merge(&total, &part);
		first += len;
	}
	gt_metric_init(&part); /* an empty one changes nothing */
	gt_metric_merge(&total, &part);
	gt_metric_derive(&one, &x);
	gt_metric_derive(&total, &y);
	CHECK(one.values == total.values && one.identical == total.identical);
	CHECK(one.nan == 1 && total.nan == 1 && one.inf == 1 && total.inf == 1);
	CHECK(one.n == total.n);
	CHECK(close_rel(one.max_abs, total.max_abs, 0));
	CHECK(close_rel(one.max_rel, total.max_rel, 0));
	CHECK(close_rel(x.range, y.range, 0));
	CHECK(close_rel(x.rmse, y.rmse, 1e-13) && close_rel(x.psnr, y.psnr, 1e-13));
	CHECK(close_rel(x.snr, y.snr, 1e-13) && close_rel(x.cosine, y.cosine, 1e-13));
	CHECK(close_rel(x.pearson, y.pearson, 1e-13) && close_rel(x.gain, y.gain, 1e-13));
	free(a);
	free(b);
}

/*
 * Mean 1e6, spread 1e-3: naive sums of products would lose every digit, and
 * means rounded at 1e6 (1e-10) would lose some (up to 1e-9 of Pearson).
 */
static void test_pearson_large_mean(void)
{
	const size_t n = 200000;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	struct gt_metric m, h1, h2;
	struct gt_metric_result x;
	struct ref r;

	make_pairs(a, b, n, 1e6, 1e-3, 1e-4);
	reference(a, b, n, &r);
	CHECK(r.pearson > 0.9 && r.pearson < 0.999);
	gt_metric_init(&m);
	add_pieces(&m, a, GT_DT_F64, b, GT_DT_F64, n);
	gt_metric_derive(&m, &x);
	CHECK(close_rel(x.pearson, (double)r.pearson, 1e-11));
	/* and through a merge of two halves with different means */
	for (size_t i = n / 2; i < n; i++) {
		a[i] += 0.5;
		b[i] += 0.5;
	}
	reference(a, b, n, &r);
	gt_metric_init(&h1);
	gt_metric_init(&h2);
	gt_metric_add(&h1, a, GT_DT_F64, b, GT_DT_F64, n / 2);
	gt_metric_add(&h2, a + n / 2, GT_DT_F64, b + n / 2, GT_DT_F64, n - n / 2);
	gt_metric_merge(&h1, &h2);
	gt_metric_derive(&h1, &x);
	CHECK(close_rel(x.pearson, (double)r.pearson, 1e-11));
	free(a);
	free(b);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_random_f64);
	RUN(test_random_f32);
	RUN(test_random_half);
	RUN(test_identical);
	RUN(test_by_hand);
	RUN(test_nan_inf);
	RUN(test_degenerate);
	RUN(test_merge);
	RUN(test_pearson_large_mean);
	return check_done("test_metric");
}
