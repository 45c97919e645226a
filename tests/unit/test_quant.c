/* test_quant.c - the codecs tfp, rangeq and fft: error bounds, Eq. 5's
 * unbiasedness, special values, sizes, hostile chunks, and fft's RMSE
 * against a reference computed here with double-precision FFTW */
#include <math.h>
#include <fftw3.h>

#include "check.h"
#include "../../lib/gt_codec.h"
#include "../../lib/gt_bitio.h"
#include "../../lib/gt_rangeq.h"

#define MAXN 8192

static float in[MAXN], out[MAXN], back[MAXN];
static unsigned char buf[8 * MAXN + 64];

static struct gt_codec_ctx *make(const char *name, enum gt_dtype dt, const char *opts)
{
	const struct gt_codec_params p = { dt, opts, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d;

	if (gt_codec_new(gt_codec_find(name), &p, &ctx, &d) < 0) {
		fprintf(stderr, "%s:%s: %s\n", name, opts, d.msg);
		return NULL;
	}
	return ctx;
}

/* encode then decode @n f32 values of in[] into out[]; the coded length */
static size_t trip(struct gt_codec_ctx *ctx, const float *x, float *y, size_t n)
{
	size_t len = 0;

	CHECK_RC(gt_codec_encode(ctx, x, n, buf, sizeof(buf), &len), 0);
	CHECK_RC(gt_codec_decode(ctx, buf, len, y, n), 0);
	return len;
}

static uint32_t fb(float f) { return gt_f32_bits(f); }

/* The FP16 pattern of a value on the FP16 grid (>= 0), by bisection over
 * the monotone positive patterns: exact, and not the codec's converter. */
static unsigned f16_of(float a)
{
	unsigned lo = 0, hi = 0x7c00;

	while (lo < hi) {
		const unsigned mid = (lo + hi) / 2;

		if (gt_f16_to_f32((uint16_t)mid) < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The next k-bit value above |y| (a k-bit value): T-upper; INFINITY past
 * the largest finite one. */
static double next_up(float y, unsigned k)
{
	const float a = fabsf(y);

	if (k >= 17) {
		const uint32_t s = 32 - k, c = (fb(a) >> s) + 1;

		return (c << s) >= 0x7f800000u ? INFINITY : gt_f32_from_bits(c << s);
	} else {
		const unsigned s = 16 - k, c = (f16_of(a) >> s) + 1;

		return (c << s) >= 0x7c00u ? INFINITY : gt_f16_to_f32((uint16_t)(c << s));
	}
}

/* The largest finite k-bit magnitude. */
static float kmax(unsigned k)
{
	return k >= 17 ? gt_f32_from_bits(0x7f7fffffu >> (32 - k) << (32 - k))
		       : gt_f16_to_f32((uint16_t)(0x7bffu >> (16 - k) << (16 - k)));
}

/* Random f32 values over 1e-12..1e6, both signs, some f32 subnormals. */
static void fill_wide(float *x, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const uint64_t r = check_rand();
		const uint32_t e = i % 17 ? 87 + (uint32_t)(r % 60) : (uint32_t)(r % 3);

		x[i] = gt_f32_from_bits((uint32_t)(r >> 63) << 31 | e << 23 |
					(uint32_t)(r >> 20 & 0x7fffff));
	}
}

/* trunc: |y| <= |x| < T-upper(y), sign kept, y on the grid; saturation. */
static void test_tfp_trunc_bound(void)
{
	enum { N = 1001 };
	char opts[32];

	fill_wide(in, N);
	for (unsigned k = 2; k <= 32; k++) {
		struct gt_codec_ctx *ctx;
		int ok = 1, grid = 1;
		size_t len;

		snprintf(opts, sizeof(opts), "bits=%u", k);
		ctx = make("tfp", GT_DT_F32, opts);
		len = trip(ctx, in, out, N);
		CHECK(len == (N * k + 7) / 8);
		for (size_t i = 0; i < N; i++) {
			const float x = in[i], y = out[i];

			ok &= signbit(x) == signbit(y) && fabsf(y) <= fabsf(x);
			if (fabsf(x) > kmax(k))
				ok &= fb(fabsf(y)) == fb(kmax(k));
			else
				ok &= (double)fabsf(x) < next_up(y, k);
		}
		/* y is a k-bit value: coding it again changes nothing */
		trip(ctx, out, back, N);
		for (size_t i = 0; i < N; i++)
			grid &= fb(back[i]) == fb(out[i]);
		CHECK(ok);
		CHECK(grid);
		if (!ok || !grid)
			fprintf(stderr, "  tfp bits=%u\n", k);
		gt_codec_free(ctx);
	}
}

/* bits=16 is FP16 with truncation: every FP16 value maps to itself, and
 * a value just above it (in magnitude) to it too. */
static void test_tfp_fp16(void)
{
	struct gt_codec_ctx *ctx = make("tfp", GT_DT_F32, "bits=16");
	int ok = 1;

	for (unsigned h0 = 0; h0 < 0x10000; h0 += MAXN / 2) {
		size_t n = 0;

		for (unsigned h = h0; h < h0 + MAXN / 2; h++) {
			const float v = gt_f16_to_f32((uint16_t)h);

			if ((h & 0x7c00) == 0x7c00)
				continue;
			in[n++] = v;
			in[n++] = gt_f32_from_bits(fb(v) + 1); /* a bit larger |v| */
		}
		trip(ctx, in, out, n);
		for (size_t i = 0; i < n; i++)
			ok &= fb(out[i]) == fb(in[i & ~(size_t)1]);
	}
	CHECK(ok);
	gt_codec_free(ctx);
}

/* NaN, Inf, -0, subnormals and saturation, as the man page says. */
static void test_tfp_specials(void)
{
	static const unsigned ks[] = { 32, 24, 17, 16, 10, 8, 7, 6, 5, 4, 2 };
	char opts[32];

	for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
		const unsigned k = ks[j], E = k >= 17 ? 8 : 5;
		struct gt_codec_ctx *ctx;

		snprintf(opts, sizeof(opts), "bits=%u", k);
		ctx = make("tfp", GT_DT_F32, opts);
		in[0] = NAN;
		in[1] = -INFINITY;
		in[2] = -0.0f;
		in[3] = 1e-45f;     /* the smallest f32 subnormal */
		in[4] = 70000.0f;   /* beyond FP16 */
		in[5] = -1e30f;
		in[6] = 0x1p-20f;   /* an FP16 subnormal */
		in[7] = gt_f32_from_bits(0xff800001u); /* a signalling NaN */
		trip(ctx, in, out, 8);
		CHECK(k == 32 ? fb(out[7]) == 0xff800001u : k >= E + 2 ? isnan(out[7]) : 1);
		if (k >= E + 2)
			CHECK(isnan(out[0]));
		else if (k == E + 1)
			CHECK(isinf(out[0]) && out[0] > 0);
		else
			CHECK(fb(out[0]) == fb(kmax(k)));
		if (k >= E + 1)
			CHECK(isinf(out[1]) && out[1] < 0);
		else
			CHECK(fb(out[1]) == fb(-kmax(k)));
		CHECK(fb(out[2]) == 0x80000000u);
		CHECK(fb(out[3]) == (k == 32 ? 1u : 0u));
		CHECK(fb(out[4]) == (k >= 17 ? fb(in[4]) >> (32 - k) << (32 - k) : fb(kmax(k))));
		CHECK(fb(out[5]) == (k >= 17 ? fb(in[5]) >> (32 - k) << (32 - k) : fb(-kmax(k))));
		/* 2^-20 = FP16 subnormal 16 * 2^-24: kept while k - 6 >= 6 */
		CHECK(fb(out[6]) == fb(k >= 12 ? 0x1p-20f : 0.0f));
		gt_codec_free(ctx);
	}
}

/*
 * round=stochastic is Eq. 5: each value becomes T-lower or T-upper, and
 * the mean over seeds (and positions) is the value: within 5 standard
 * deviations of the mean, (Tu - Tl) sqrt(p (1 - p) / T).
 */
static void test_tfp_unbiased(void)
{
	static const float xs[] = { 3.6f, -0.0123f, 1.3e-5f, 7e-8f, 123.456f, -2.5e-3f };
	static const unsigned ks[] = { 20, 12, 8, 4 };
	enum { SEEDS = 48, M = 512 };
	char opts[64];

	for (size_t a = 0; a < sizeof(ks) / sizeof(ks[0]); a++) {
		for (size_t b = 0; b < sizeof(xs) / sizeof(xs[0]); b++) {
			const unsigned k = ks[a];
			const float x = xs[b];
			struct gt_codec_ctx *t;
			double tl, tu, sum = 0, p, sd;
			int two = 1;

			snprintf(opts, sizeof(opts), "bits=%u", k);
			t = make("tfp", GT_DT_F32, opts);
			in[0] = x;
			trip(t, in, out, 1);
			tl = fabs((double)out[0]);
			tu = next_up(out[0], k);
			gt_codec_free(t);
			for (int i = 0; i < M; i++)
				in[i] = x;
			for (int s = 0; s < SEEDS; s++) {
				snprintf(opts, sizeof(opts), "bits=%u,round=stochastic,seed=%d", k, s);
				t = make("tfp", GT_DT_F32, opts);
				trip(t, in, out, M);
				for (int i = 0; i < M; i++) {
					const double v = fabs((double)out[i]);

					two &= (!(v < tl) && !(v > tl)) + (!(v < tu) && !(v > tu)) == 1 &&
					       signbit(out[i]) == signbit(x);
					sum += v;
				}
				gt_codec_free(t);
			}
			p = (fabs((double)x) - tl) / (tu - tl);
			sd = (tu - tl) * sqrt(p * (1 - p) / (SEEDS * M));
			CHECK(two);
			CHECK(fabs(sum / (SEEDS * M) - fabs((double)x)) <= 5 * sd + 1e-12 * fabs((double)x));
			if (!two || fabs(sum / (SEEDS * M) - fabs((double)x)) > 5 * sd + 1e-12 * fabs((double)x))
				fprintf(stderr, "  k=%u x=%g tl=%g tu=%g mean=%g sd=%g\n", k, (double)x, tl, tu,
					sum / (SEEDS * M), sd);
		}
	}
}

/* The same (seed, stream, pos) gives the same bytes; another pos others. */
static void test_tfp_seek(void)
{
	struct gt_codec_ctx *a = make("tfp", GT_DT_F32, "bits=8,round=stochastic,seed=3");
	struct gt_codec_ctx *b = make("tfp", GT_DT_F32, "bits=8,round=stochastic,seed=3");
	unsigned char c1[MAXN];
	size_t l1, l2;

	fill_wide(in, 4096);
	gt_codec_seek(a, 2, 65536);
	gt_codec_seek(b, 2, 65536);
	CHECK_RC(gt_codec_encode(a, in, 4096, c1, sizeof(c1), &l1), 0);
	CHECK_RC(gt_codec_encode(b, in, 4096, buf, sizeof(buf), &l2), 0);
	CHECK(l1 == l2 && !memcmp(c1, buf, l1));
	gt_codec_seek(b, 2, 0);
	CHECK_RC(gt_codec_encode(b, in, 4096, buf, sizeof(buf), &l2), 0);
	CHECK(memcmp(c1, buf, l1) != 0);
	gt_codec_free(a);
	gt_codec_free(b);
}

/* Other dtypes: their own pattern; bad options; exact sizes. */
static void test_tfp_dtypes_options(void)
{
	const struct gt_codec_params p16 = { GT_DT_F16, "bits=17", NULL, 0, NULL, 0 };
	const struct gt_codec_params pf = { GT_DT_F32, "bits=8,seed=2", NULL, 0, NULL, 0 };
	const struct gt_codec_params pr = { GT_DT_F32, "round=up", NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	double x64[301], y64[301];
	struct gt_diag d;
	int ok = 1;
	size_t len;

	CHECK_RC(gt_codec_new(gt_codec_find("tfp"), &p16, &ctx, &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "codec tfp: invalid bits '17': expected 2-16"));
	CHECK_RC(gt_codec_new(gt_codec_find("tfp"), &pf, &ctx, &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "codec tfp: seed needs round=stochastic"));
	CHECK_RC(gt_codec_new(gt_codec_find("tfp"), &pr, &ctx, &d), GT_ERR(INVAL));
	for (int i = 0; i < 301; i++)
		x64[i] = ((double)(check_rand() >> 11) - 0x1p52) * 0x1p-60;
	ctx = make("tfp", GT_DT_F64, "bits=40");
	CHECK_RC(gt_codec_encode(ctx, x64, 301, buf, sizeof(buf), &len), 0);
	CHECK(len == (301 * 40 + 7) / 8);
	CHECK_RC(gt_codec_decode(ctx, buf, len, y64, 301), 0);
	for (int i = 0; i < 301; i++) {
		const uint64_t u = gt_f64_bits(x64[i]);

		ok &= gt_f64_bits(y64[i]) == (u >> 24 << 24);
	}
	CHECK(ok);
	CHECK_RC(gt_codec_decode(ctx, buf, len - 1, y64, 301), GT_ERR(TRUNCATED));
	CHECK_RC(gt_codec_decode(ctx, buf, len + 1, y64, 301), GT_ERR(CORRUPT));
	CHECK_RC(gt_codec_encode(ctx, x64, 301, buf, len - 1, &len), GT_ERR(DST_TOO_SMALL));
	gt_codec_free(ctx);
}

/* rangeq as a codec: chunk range from the data, min=/max= clamp, dtype. */
static void test_rangeq_codec(void)
{
	const struct gt_codec_params p16 = { GT_DT_F16, NULL, NULL, 0, NULL, 0 };
	const struct gt_codec_params pm = { GT_DT_F32, "min=0.5", NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d;
	int ok = 1;

	CHECK_RC(gt_codec_new(gt_codec_find("rangeq"), &p16, &ctx, &d), GT_ERR(TYPE));
	CHECK(!strcmp(d.msg, "codec rangeq: f16 not supported (f32 only)"));
	CHECK_RC(gt_codec_new(gt_codec_find("rangeq"), &pm, &ctx, &d), GT_ERR(INVAL));
	fill_wide(in, 999);
	for (int i = 0; i < 999; i++)
		in[i] = fmaxf(fminf(in[i], 1.0f), -1.0f);
	ctx = make("rangeq", GT_DT_F32, "bits=12,min=-0.5,max=0.25,m=6");
	CHECK(trip(ctx, in, out, 999) == GT_RANGEQ_HDR + (999 * 12 + 7) / 8);
	for (int i = 0; i < 999; i++)
		ok &= out[i] >= -0.5f && out[i] <= 0.25f && fabsf(out[i]) <= fabsf(in[i]) &&
		      (in[i] < 0.25f || fb(out[i]) == fb(0.25f)) &&
		      (in[i] > -0.5f || fb(out[i]) == fb(-0.5f));
	CHECK(ok);
	gt_codec_free(ctx);
}

static int cmp_float(const void *a, const void *b)
{
	const float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/*
 * rangeq as a codec keeps the order: on sorted input (both signs, wide
 * magnitudes) the decoded values never decrease, and each is truncated
 * toward zero (its sign kept, or 0).
 */
static void test_rangeq_codec_monotone(void)
{
	static const char *const opts[] = { "bits=4", "bits=8", "bits=12,m=6", "bits=16" };

	fill_wide(in, 999);
	for (int i = 0; i < 999; i++)
		if (!isfinite(in[i]))
			in[i] = 0;
	qsort(in, 999, sizeof(float), cmp_float);
	for (size_t k = 0; k < 4; k++) {
		struct gt_codec_ctx *ctx = make("rangeq", GT_DT_F32, opts[k]);
		int mono = 1, toward0 = 1;

		trip(ctx, in, out, 999);
		for (int i = 1; i < 999; i++)
			mono &= !(out[i] < out[i - 1]);
		for (int i = 0; i < 999; i++)
			toward0 &= fabsf(out[i]) <= fabsf(in[i]) &&
				   (!(fabsf(out[i]) > 0) || signbit(out[i]) == signbit(in[i]));
		CHECK(mono);
		CHECK(toward0);
		if (!mono || !toward0)
			fprintf(stderr, "  rangeq %s\n", opts[k]);
		gt_codec_free(ctx);
	}
}

/* samples/grads.f32, a real gradient */
static size_t read_grads(float *x)
{
	FILE *f = fopen("samples/grads.f32", "rb");
	size_t n;

	if (!f)
		return 0;
	n = fread(x, sizeof(float), MAXN, f);
	fclose(f);
	return n;
}


/* The chunk's rangeq parameters and K (after the varint and bitmap). */
static int fft_header(const unsigned char *p, size_t len, size_t n, unsigned bits,
		      struct gt_rangeq *q, uint64_t *K)
{
	const unsigned char *end = p + len;

	GT_TRY(gt_varint_get(&p, end, K));
	p += (n / 2 + 1 + 7) / 8;
	if (p + GT_RANGEQ_HDR > end)
		return GT_ERR(TRUNCATED);
	return gt_rangeq_load(q, bits, p);
}

/* The coefficients of @x, in double (an FFT independent of the codec's). */
static fftw_complex *dft(const float *x, size_t n)
{
	double *xd = fftw_alloc_real(n);
	fftw_complex *X = fftw_alloc_complex(n / 2 + 1);
	fftw_plan p = fftw_plan_dft_r2c_1d((int)n, xd, X, FFTW_ESTIMATE);

	for (size_t i = 0; i < n; i++)
		xd[i] = x[i];
	fftw_execute(p);
	fftw_destroy_plan(p);
	fftw_free(xd);
	return X;
}

static double rms_diff(const float *a, const double *b, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
	return sqrt(s / (double)n);
}

/*
 * drop=0, bits=16: every coefficient kept, each Re and Im truncated by
 * rangeq: error below max(eps, |c| 2^-m).  By Parseval (c2r counts bins
 * 1..n/2-1 twice and ignores Im of bins 0 and n/2), the squared error is
 * at most (1/n) sum of those squared bounds, plus the f32 FFTs' rounding,
 * 10 log2(n) 2^-24 ||x||, both ways.
 */
static void test_fft_drop0(void)
{
	const size_t n = read_grads(in), nc = n / 2 + 1;
	struct gt_codec_ctx *ctx = make("fft", GT_DT_F32, "drop=0,bits=16");
	double b2 = 0, e2 = 0, x2 = 0, eps;
	struct gt_rangeq q;
	fftw_complex *X;
	uint64_t K = 0;
	size_t len;

	CHECK(n == 8192);
	len = trip(ctx, in, out, n);
	CHECK_RC(fft_header(buf, len, n, 16, &q, &K), 0);
	CHECK(K == nc);
	eps = gt_rangeq_eps(&q);
	X = dft(in, n);
	for (size_t j = 0; j < nc; j++) {
		const int w = j == 0 || j == n / 2 ? 1 : 2;
		const double er = fmax(eps, fabs(X[j][0]) * (1 + 1e-4) * ldexp(1, -(int)q.m));
		const double ei = fmax(eps, fabs(X[j][1]) * (1 + 1e-4) * ldexp(1, -(int)q.m));

		b2 += w * er * er + (w == 2 ? w * ei * ei : 0.0);
	}
	for (size_t i = 0; i < n; i++) {
		e2 += ((double)out[i] - in[i]) * ((double)out[i] - in[i]);
		x2 += (double)in[i] * in[i];
	}
	CHECK(sqrt(e2) <= sqrt(b2 / (double)n) + 10 * log2((double)n) * 0x1p-24 * sqrt(x2));
	fprintf(stderr, "  fft drop=0 bits=16: rmse %.3g, bound %.3g (m=%u)\n", sqrt(e2 / n),
		(sqrt(b2 / (double)n) + 10 * log2((double)n) * 0x1p-24 * sqrt(x2)) / sqrt((double)n), q.m);
	fftw_free(X);
	gt_codec_free(ctx);
}

struct mag { double m; size_t j; };

static int by_mag(const void *a, const void *b)
{
	const struct mag *x = a, *y = b;

	if (x->m > y->m)
		return -1;
	if (x->m < y->m)
		return 1;
	return x->j < y->j ? -1 : 1;
}

/*
 * drop=0.85, bits=10 on a real gradient: the same pipeline done here in
 * double (FFTW r2c, a full sort for the top K, gt_rangeq on the kept
 * Re/Im, c2r): the RMSEs agree within 1%.
 */
static void test_fft_reference(void)
{
	const size_t n = read_grads(in), nc = n / 2 + 1;
	const size_t K = (size_t)(0.15 * (double)nc + 0.5);
	struct gt_codec_ctx *ctx = make("fft", GT_DT_F32, "drop=0.85,bits=10");
	struct mag *mg = malloc(nc * sizeof(*mg));
	float *dense = malloc(2 * K * sizeof(float));
	double *y = fftw_alloc_real(n);
	fftw_complex *Y = fftw_alloc_complex(nc), *X = dft(in, n);
	fftw_plan inv = fftw_plan_dft_c2r_1d((int)n, Y, y, FFTW_ESTIMATE);
	struct gt_rangeq q;
	uint32_t pos, neg;
	uint64_t Kc = 0;
	static double xd[MAXN];
	static unsigned char kept[MAXN];
	double r_ref, r_codec;
	size_t m = 0, len;

	len = trip(ctx, in, out, n);
	CHECK_RC(fft_header(buf, len, n, 10, &q, &Kc), 0);
	CHECK(Kc == K);
	for (size_t j = 0; j < nc; j++) {
		mg[j].m = X[j][0] * X[j][0] + X[j][1] * X[j][1];
		mg[j].j = j;
	}
	qsort(mg, nc, sizeof(*mg), by_mag);
	memset(Y, 0, nc * sizeof(*Y));
	memset(kept, 0, nc);
	for (size_t i = 0; i < K; i++)
		kept[mg[i].j] = 1;
	for (size_t j = 0; j < nc; j++) {
		if (!kept[j])
			continue;
		dense[m++] = (float)X[j][0];
		dense[m++] = (float)X[j][1];
	}
	gt_rangeq_range(dense, 2 * K, &pos, &neg);
	CHECK_RC(gt_rangeq_fit_auto(&q, 10, pos, neg, dense, 2 * K), 0);
	m = 0;
	for (size_t j = 0; j < nc; j++) {
		if (!kept[j])
			continue;
		Y[j][0] = gt_rangeq_value(&q, gt_rangeq_code(&q, dense[m++])) / (double)n;
		Y[j][1] = gt_rangeq_value(&q, gt_rangeq_code(&q, dense[m++])) / (double)n;
	}
	fftw_execute(inv);
	for (size_t i = 0; i < n; i++)
		xd[i] = in[i];
	r_ref = rms_diff(in, y, n);
	r_codec = rms_diff(out, xd, n);
	CHECK(fabs(r_codec - r_ref) <= 0.01 * r_ref);
	CHECK(rms_diff(out, y, n) <= 0.05 * r_ref);
	fprintf(stderr, "  fft drop=0.85 bits=10: rmse %.6g, reference %.6g, codec-reference %.3g\n",
		r_codec, r_ref, rms_diff(out, y, n));
	fftw_destroy_plan(inv);
	fftw_free(X);
	fftw_free(Y);
	fftw_free(y);
	free(mg);
	free(dense);
	gt_codec_free(ctx);
}

/* Lengths 0, 1, 2, 7; drop=1; NaN and Inf inputs; hostile chunks. */
static void test_fft_edges(void)
{
	struct gt_codec_ctx *ctx = make("fft", GT_DT_F32, "drop=0,bits=16");
	struct gt_codec_ctx *all = make("fft", GT_DT_F32, "drop=1");
	static const size_t lens[] = { 1, 2, 7, 1000 };
	unsigned char c1[MAXN];
	size_t len, l1;
	int ok = 1;

	CHECK_RC(gt_codec_encode(ctx, in, 0, buf, sizeof(buf), &len), 0);
	CHECK(len == 0);
	CHECK_RC(gt_codec_decode(ctx, buf, 0, out, 0), 0);
	for (size_t l = 0; l < 4; l++) {
		fill_wide(in, lens[l]);
		for (size_t i = 0; i < lens[l]; i++)
			in[i] = fmaxf(fminf(in[i], 1.0f), -1.0f);
		trip(ctx, in, out, lens[l]);
		for (size_t i = 0; i < lens[l]; i++)
			ok &= fabsf(out[i] - in[i]) <= 1e-3f;
		trip(all, in, out, lens[l]);
		for (size_t i = 0; i < lens[l]; i++)
			ok &= fb(out[i]) == 0;
	}
	CHECK(ok);
	/* NaN and Inf code as 0 */
	in[3] = 0;
	in[5] = 0;
	CHECK_RC(gt_codec_encode(ctx, in, 1000, c1, sizeof(c1), &l1), 0);
	in[3] = NAN;
	in[5] = -INFINITY;
	CHECK_RC(gt_codec_encode(ctx, in, 1000, buf, sizeof(buf), &len), 0);
	CHECK(l1 == len && !memcmp(c1, buf, len));
	/* hostile: a bitmap bit flipped, K too large, cut short */
	buf[3] ^= 1;
	CHECK_RC(gt_codec_decode(ctx, buf, len, out, 1000), GT_ERR(CORRUPT));
	buf[3] ^= 1;
	CHECK_RC(gt_codec_decode(ctx, buf, len - 1, out, 1000), GT_ERR(TRUNCATED));
	CHECK_RC(gt_codec_decode(ctx, buf, 5, out, 1000), GT_ERR(TRUNCATED));
	buf[0] = 0xff;
	buf[1] = 0x7f;
	CHECK_RC(gt_codec_decode(ctx, buf, len, out, 1000), GT_ERR(CORRUPT));
	gt_codec_free(ctx);
	gt_codec_free(all);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_tfp_trunc_bound);
	RUN(test_tfp_fp16);
	RUN(test_tfp_specials);
	RUN(test_tfp_unbiased);
	RUN(test_tfp_seek);
	RUN(test_tfp_dtypes_options);
	RUN(test_rangeq_codec);
	RUN(test_rangeq_codec_monotone);
	RUN(test_fft_drop0);
	RUN(test_fft_reference);
	RUN(test_fft_edges);
	return check_done("test_quant");
}
