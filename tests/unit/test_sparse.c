/* test_sparse.c - gt_sparse and the codecs topk, randk, dgc, redsync, qsgd, terngrad */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../lib/gt_codec.h"
#include "../../lib/gt_bitio.h"
#include "../../lib/gt_sparse.h"

/* Gaussian-ish test data: a sum of uniforms, scaled, with repeats. */
static void fill(float *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double s = 0;

		for (int j = 0; j < 4; j++)
			s += (double)(check_rand() >> 11) * 0x1p-53 - 0.5;
		v[i] = (float)(s * 1e-3);
		if (i % 17 == 3)
			v[i] = v[i / 2]; /* ties */
		if (i % 29 == 5)
			v[i] = 0;
	}
}

static struct gt_codec_ctx *ctx_of(const char *name, const char *opts, enum gt_dtype dt)
{
	struct gt_codec_params p = { dt, opts, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d;

	CHECK_RC(gt_codec_new(gt_codec_find(name), &p, &ctx, &d), 0);
	return ctx;
}

/*
 * Encode @n values with codec @name into an exact-size buffer and decode
 * them into @back; the coded length goes to *@len_ret.  Also: one byte
 * less of output is DST_TOO_SMALL, every truncation of the chunk and a
 * byte appended are decode errors.  @pos is the gt_codec_seek position.
 */
static int code(const char *name, const char *opts, enum gt_dtype dt, const void *src,
		size_t n, uint64_t pos, void *back, size_t *len_ret)
{
	struct gt_codec_ctx *ctx = ctx_of(name, opts, dt);
	const size_t bound = ctx ? gt_codec_bound(ctx, n) : 0;
	unsigned char *dst = malloc(bound + 1), *cut;
	size_t len = 0, l2;
	int rc = -1;

	if (!ctx || !dst)
		goto out;
	gt_codec_seek(ctx, 7, pos);
	rc = gt_codec_encode(ctx, src, n, dst, bound, &len);
	CHECK_RC(rc, 0);
	CHECK(len <= bound);
	if (rc < 0)
		goto out;
	cut = malloc(len + 1);
	gt_codec_seek(ctx, 7, pos);
	if (len)
		CHECK_RC(gt_codec_encode(ctx, src, n, cut, len - 1, &l2), GT_ERR(DST_TOO_SMALL));
	for (size_t l = len > 64 ? len - 64 : 0; l < len; l++) {
		memcpy(cut, dst, l);
		CHECK(gt_codec_decode(ctx, cut, l, back, n) < 0);
	}
	memcpy(cut, dst, len);
	cut[len] = 0;
	CHECK(gt_codec_decode(ctx, cut, len + 1, back, n) < 0);
	free(cut);
	rc = gt_codec_decode(ctx, dst, len, back, n);
	CHECK_RC(rc, 0);
	*len_ret = len;
out:
	free(dst);
	gt_codec_free(ctx);
	return rc;
}

static void test_options(void)
{
	static const char *const bad[][2] = {
		{ "cf=0.5", "codec topk: invalid cf '0.5': expected 1-1e+12" },
		{ "keep=0", "codec topk: invalid keep '0': expected 0 < keep <= 1" },
		{ "keep=1.5", "codec topk: invalid keep '1.5': expected 0-1" },
		{ "k=0", "codec topk: invalid k '0': expected 1-9223372036854775807" },
		{ "cf=10,k=5", "codec topk: give only one of cf=, keep= and k=" },
		{ "seed=3", "unknown option 'seed' for codec topk" },
	};
	static const char *const good[][3] = {
		{ "topk", "", "cf=100" }, { "topk", "keep=0.01", "keep=0.01" },
		{ "topk", "k=7", "k=7" }, { "randk", "cf=12.5", "cf=12.5,seed=0" },
		{ "dgc", "seed=4,sample=0.001", "cf=100,seed=4,sample=0.001" },
		{ "redsync", "cf=10", "cf=10" }, { "qsgd", "", "levels=3,seed=0" },
		{ "qsgd", "levels=255,seed=9", "levels=255,seed=9" },
		{ "terngrad", "seed=2", "seed=2" },
	};
	struct gt_codec_params p = { GT_DT_F32, "", NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d;
	char canon[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p.opts = bad[i][0];
		CHECK_RC(gt_codec_new(gt_codec_find("topk"), &p, &ctx, &d), GT_ERR(INVAL));
		CHECK(!strcmp(d.msg, bad[i][1]));
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ctx = ctx_of(good[i][0], good[i][1], GT_DT_F32);
		if (!ctx)
			continue;
		gt_codec_canon(ctx, canon, sizeof(canon));
		CHECK(!strcmp(canon, good[i][2]));
		gt_codec_free(ctx);
	}
	p.opts = "levels=0";
	CHECK_RC(gt_codec_new(gt_codec_find("qsgd"), &p, &ctx, &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "codec qsgd: invalid levels '0': expected 1-32767"));
}

static void test_k(void)
{
	struct gt_sparse_opts o = { GT_SPARSE_CF, 100, 0, 0, 0.01, 0 };

	CHECK(gt_sparse_k(&o, 0) == 0);
	CHECK(gt_sparse_k(&o, 1) == 1);
	CHECK(gt_sparse_k(&o, 1000) == 10);
	CHECK(gt_sparse_k(&o, 1001) == 11);
	o.value = 1;
	CHECK(gt_sparse_k(&o, 1001) == 1001);
	o.mode = GT_SPARSE_KEEP;
	o.value = 0.25;
	CHECK(gt_sparse_k(&o, 10) == 3);
	o.mode = GT_SPARSE_K;
	o.count = 50;
	CHECK(gt_sparse_k(&o, 10) == 10);
	CHECK(gt_sparse_k(&o, 100) == 50);
}

/* The magnitude order of gt_sparse.h, ties to the earlier position. */
static const float *cmp_base;
static int by_mag(const void *a, const void *b)
{
	const uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const uint64_t ki = gt_sparse_key(cmp_base, GT_DT_F32, i);
	const uint64_t kj = gt_sparse_key(cmp_base, GT_DT_F32, j);

	if (ki != kj)
		return ki > kj ? -1 : 1;
	return i < j ? -1 : 1;
}

/* topk keeps exactly the k first of a full sort, bit-exactly. */
static void topk_vs_sort(const float *v, size_t n, const char *opts, size_t k)
{
	float *back = malloc(n * 4 + 4);
	uint32_t *ord = malloc(n * 4 + 4);
	unsigned char *kept = calloc(n + 1, 1);
	size_t len;

	for (size_t i = 0; i < n; i++)
		ord[i] = (uint32_t)i;
	cmp_base = v;
	qsort(ord, n, sizeof(*ord), by_mag);
	for (size_t j = 0; j < k && j < n; j++)
		kept[ord[j]] = 1;
	if (code("topk", opts, GT_DT_F32, v, n, 0, back, &len) == 0)
		for (size_t i = 0; i < n; i++)
			CHECK(kept[i] ? !memcmp(&back[i], &v[i], 4)
				      : gt_f32_bits(back[i]) == 0);
	free(back);
	free(ord);
	free(kept);
}

static void test_topk(void)
{
	static const size_t sizes[] = { 0, 1, 7, 1000, 100003 };
	float *v = malloc(100003 * 4);
	char opts[32];

	fill(v, 100003);
	for (size_t s = 0; s < 5; s++) {
		const size_t n = sizes[s];

		topk_vs_sort(v, n, "", n ? (n + 99) / 100 : 0);
		topk_vs_sort(v, n, "cf=3.5", (size_t)ceil((double)n / 3.5));
		topk_vs_sort(v, n, "keep=1", n);
		snprintf(opts, sizeof(opts), "k=%zu", n / 2 + 1);
		topk_vs_sort(v, n, opts, n / 2 + 1 < n ? n / 2 + 1 : n);
	}
	/* a quarter of the values in each top-digit bucket: the slow path,
	 * which copies out a bucket at the second digit */
	for (size_t i = 0; i < 100003; i++)
		v[i] = 1.0f + (float)(check_rand() >> 40) * 0x1p-25f;
	topk_vs_sort(v, 100003, "cf=7", (100003 + 6) / 7);
	topk_vs_sort(v, 100003, "keep=0.9", (size_t)ceil(100003 * 0.9));
	/* all equal: the first k by position */
	for (size_t i = 0; i < 5000; i++)
		v[i] = -0.5f;
	topk_vs_sort(v, 5000, "k=123", 123);
	free(v);
}

static size_t nonzero(const float *v, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += gt_f32_bits(v[i]) != 0;
	return c;
}

static void test_randk(void)
{
	const size_t n = 20000;
	float *v = malloc(n * 4), *a = malloc(n * 4), *b = malloc(n * 4);
	size_t len;

	for (size_t i = 0; i < n; i++)
		v[i] = (float)i + 1; /* no zeros: the kept count is visible */
	if (code("randk", "cf=50,seed=1", GT_DT_F32, v, n, 0, a, &len) == 0 &&
	    code("randk", "cf=50,seed=1", GT_DT_F32, v, n, 0, b, &len) == 0) {
		CHECK(nonzero(a, n) == 400);
		CHECK(!memcmp(a, b, n * 4));
		for (size_t i = 0; i < n; i++)
			CHECK(gt_f32_bits(a[i]) == 0 || !memcmp(&a[i], &v[i], 4));
	}
	if (code("randk", "cf=50,seed=2", GT_DT_F32, v, n, 0, b, &len) == 0)
		CHECK(memcmp(a, b, n * 4));
	if (code("randk", "cf=50,seed=1", GT_DT_F32, v, n, 1 << 20, b, &len) == 0)
		CHECK(memcmp(a, b, n * 4));
	if (code("randk", "k=20000", GT_DT_F32, v, n, 0, b, &len) == 0)
		CHECK(!memcmp(v, b, n * 4));
	free(v);
	free(a);
	free(b);
}

/* Uniform without replacement: each position about k/n of the time. */
static void test_randk_uniform(void)
{
	struct gt_sparse_work w = { 0 };
	unsigned hits[50] = { 0 };
	const unsigned draws = 4000;

	for (unsigned s = 0; s < draws; s++) {
		if (gt_sparse_randk(&w, 50, 10, s, 0, 0) < 0)
			break;
		for (size_t j = 0; j < 10; j++) {
			CHECK(w.idx[j] < 50 && (j == 0 || w.idx[j] > w.idx[j - 1]));
			hits[w.idx[j]]++;
		}
	}
	/* binomial(4000, 0.2): mean 800, sd 25.3; 6 sd */
	for (size_t i = 0; i < 50; i++)
		CHECK(hits[i] > 800 - 152 && hits[i] < 800 + 152);
	gt_sparse_work_release(&w);
}

/* dgc: k' in [ceil(0.8k), k]; a dropped value >= the least kept one lies
 * after the last kept (DGC's trim by position); redsync: k' in [k, 2k]
 * and every kept magnitude above every dropped one. */
static void check_sel(const float *v, const float *back, size_t n, size_t lo,
		      size_t hi, int strict_order)
{
	float minkept = INFINITY, maxdrop = 0;
	size_t c = 0, last = 0;

	for (size_t i = 0; i < n; i++) {
		if (gt_f32_bits(back[i]) != 0) {
			CHECK(!memcmp(&back[i], &v[i], 4));
			minkept = fminf(minkept, fabsf(v[i]));
			last = i;
			c++;
		}
	}
	CHECK(c >= lo && c <= hi);
	for (size_t i = 0; i < n; i++) {
		if (gt_f32_bits(back[i]) == 0) {
			maxdrop = fmaxf(maxdrop, fabsf(v[i]));
			if (!strict_order && fabsf(v[i]) >= minkept)
				CHECK(i > last);
		}
	}
	if (strict_order)
		CHECK(maxdrop < minkept);
}

static void test_dgc_redsync(void)
{
	static const double cfs[] = { 2.5, 10, 100, 1000 };
	const size_t n = 200000;
	float *v = malloc(n * 4), *back = malloc(n * 4);
	char opts[64];
	size_t len;

	for (size_t i = 0; i < n; i++)
		do
			fill(&v[i], 1);
		while (gt_f32_bits(v[i]) == 0); /* zeros are never above a threshold */
	for (size_t c = 0; c < 4; c++) {
		const size_t k = (size_t)ceil((double)n / cfs[c]);

		for (uint64_t seed = 0; seed < 3; seed++) {
			snprintf(opts, sizeof(opts), "cf=%g,seed=%llu", cfs[c],
				 (unsigned long long)seed);
			if (code("dgc", opts, GT_DT_F32, v, n, seed, back, &len) == 0)
				check_sel(v, back, n, (size_t)ceil(0.8 * (double)k), k, 0);
		}
		snprintf(opts, sizeof(opts), "cf=%g", cfs[c]);
		if (code("redsync", opts, GT_DT_F32, v, n, 0, back, &len) == 0)
			check_sel(v, back, n, k, 2 * k, 1);
	}
	/* keep=0.6 cannot be reached above the mean: all above the mean */
	if (code("redsync", "keep=0.6", GT_DT_F32, v, n, 0, back, &len) == 0) {
		double mean = 0;

		for (size_t i = 0; i < n; i++)
			mean += fabs(v[i]);
		mean /= (double)n;
		for (size_t i = 0; i < n; i++)
			CHECK((gt_f32_bits(back[i]) != 0) == (fabs(v[i]) > mean));
	}
	free(v);
	free(back);
}

/* Both index codings round-trip; AUTO takes the smaller. */
static void test_index_coding(void)
{
	const size_t n = 4099;
	float *v = malloc(n * 4), *back = malloc(n * 4);
	/* a forced delta coding may pass gt_sparse_bound (AUTO never does) */
	const size_t cap = n * (GT_VARINT_MAX + 4) + 16;
	unsigned char *buf = malloc(cap);
	uint32_t *idx = malloc(n * 4);
	static const size_t ks[] = { 0, 1, 40, 500, 1000, 4099 };

	fill(v, n);
	for (size_t t = 0; t < 6; t++) {
		const size_t k = ks[t];
		size_t len, lens[2], got;

		for (size_t j = 0; j < k; j++)
			idx[j] = (uint32_t)(k == n ? j : (j * 7919u + 13u * (j & 1)) % n);
		for (size_t j = 1; j < k; j++) /* sort: insertion, small */
			for (size_t i = j; i > 0 && idx[i - 1] > idx[i]; i--) {
				const uint32_t x = idx[i];
				idx[i] = idx[i - 1];
				idx[i - 1] = x;
			}
		for (int c = GT_SPARSE_BITMAP; c <= GT_SPARSE_DELTA; c++) {
			CHECK_RC(gt_sparse_pack(v, GT_DT_F32, n, idx, k, c, buf, cap, &lens[c]), 0);
			CHECK(buf[0] == c);
			CHECK_RC(gt_sparse_unpack(buf, lens[c], GT_DT_F32, back, n, &got), 0);
			CHECK(got == k);
			for (size_t j = 0, i = 0; i < n; i++) {
				const int kept = j < k && idx[j] == i;

				CHECK(kept ? !memcmp(&back[i], &v[i], 4) : gt_f32_bits(back[i]) == 0);
				j += kept;
			}
		}
		CHECK(lens[0] - lens[1] + gt_sparse_delta_bytes(idx, k) == gt_sparse_bitmap_bytes(n));
		CHECK_RC(gt_sparse_pack(v, GT_DT_F32, n, idx, k, GT_SPARSE_AUTO, buf,
					gt_sparse_bound(GT_DT_F32, n), &len), 0);
		CHECK(len == (lens[0] < lens[1] ? lens[0] : lens[1]));
		CHECK(buf[0] == (lens[1] < lens[0]));
	}
	free(v);
	free(back);
	free(buf);
	free(idx);
}

static int unpack(const unsigned char *b, size_t len, size_t n)
{
	float out[16];

	return gt_sparse_unpack(b, len, GT_DT_F32, out, n, NULL);
}

static void test_hostile(void)
{
	/* coding 0, k=1, bitmap of 16 values, one f32 */
	unsigned char b[16] = { 0, 1, 0x04, 0, 1, 2, 3, 4 };
	/* coding 1, k=2, gaps 3 and 10, two f32 */
	unsigned char dl[16] = { 1, 2, 3, 10, 1, 2, 3, 4, 5, 6, 7, 8 };

	CHECK_RC(unpack(b, 8, 16), 0);
	CHECK_RC(unpack(b, 0, 16), GT_ERR(TRUNCATED));
	b[0] = 2;
	CHECK_RC(unpack(b, 8, 16), GT_ERR(CORRUPT));
	b[0] = 0;
	b[2] = 0x05; /* two bits for k = 1 */
	CHECK_RC(unpack(b, 8, 16), GT_ERR(CORRUPT));
	b[2] = 0;
	CHECK_RC(unpack(b, 8, 16), GT_ERR(CORRUPT)); /* no bit */
	b[2] = 0x80; /* bit 7 of 5 values: padding */
	b[3] = 0; /* 5 values: 1 bitmap byte, so 8 bytes is one too many */
	CHECK_RC(unpack(b, 7, 5), GT_ERR(CORRUPT));
	b[1] = 17; /* k > n */
	CHECK_RC(unpack(b, 8, 16), GT_ERR(CORRUPT));
	CHECK_RC(unpack(dl, 12, 16), 0);
	CHECK_RC(unpack(dl, 12, 14), GT_ERR(CORRUPT)); /* position 14 of 14 */
	CHECK_RC(unpack(dl, 12, 15), 0);
	CHECK(unpack(dl, 11, 16) < 0); /* varints and values collide */
	CHECK_RC(unpack(dl, 5, 16), GT_ERR(TRUNCATED));
	dl[3] = 0x80; /* an unterminated varint */
	CHECK(unpack(dl, 12, 16) < 0);
}

/* ---- qsgd and terngrad ---------------------------------------------------- */

static float f32_up(double x)
{
	float f = (float)x;

	return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/*
 * The mean over @seeds seeds of the decoded values against @want, within
 * 6 standard deviations of that mean: a two-point variable l or l + 1
 * steps has variance step^2 p (1 - p).
 */
static void check_mean(const char *name, const char *pre, const float *v, size_t n,
		       const double *want, const double *step, unsigned seeds)
{
	double *sum = calloc(n, sizeof(double));
	float *back = malloc(n * 4);
	char opts[64];
	size_t len;

	for (unsigned s = 0; s < seeds; s++) {
		snprintf(opts, sizeof(opts), "%sseed=%u", pre, s);
		if (code(name, opts, GT_DT_F32, v, n, 0, back, &len) < 0)
			break;
		for (size_t i = 0; i < n; i++)
			sum[i] += back[i];
	}
	for (size_t i = 0; i < n; i++) {
		const double mean = sum[i] / seeds, lf = fabs(want[i]) / step[i];
		const double p = lf - floor(lf);
		const double sd = step[i] * sqrt(p * (1 - p) / seeds);

		CHECK(fabs(mean - want[i]) <= 6 * sd + 1e-6 * step[i]);
	}
	free(sum);
	free(back);
}

static void test_unbiased(void)
{
	enum { N = 64 };
	float v[N];
	double want[N], step[N], sq = 0, mean = 0, var = 0, mx = 0, clip, scale;

	fill(v, N);
	for (size_t i = 0; i < N; i++)
		sq += (double)v[i] * v[i];
	for (size_t i = 0; i < N; i++) {
		want[i] = v[i];
		step[i] = f32_up(sqrt(sq)) / 3.0;
	}
	check_mean("qsgd", "levels=3,", v, N, want, step, 3000);
	for (size_t i = 0; i < N; i++)
		step[i] *= 3.0 / 255;
	check_mean("qsgd", "levels=255,", v, N, want, step, 1000);
	/* terngrad: unbiased for the gradient clipped at 2.5 sigma */
	for (size_t i = 0; i < N; i++)
		mean += v[i] / (double)N;
	for (size_t i = 0; i < N; i++) {
		var += ((double)v[i] - mean) * ((double)v[i] - mean) / N;
		mx = fmax(mx, fabs(v[i]));
	}
	clip = 2.5 * sqrt(var);
	scale = f32_up(fmin(mx, clip));
	for (size_t i = 0; i < N; i++) {
		want[i] = copysign(fmin(fabs(v[i]), clip), v[i]);
		step[i] = scale;
	}
	check_mean("terngrad", "", v, N, want, step, 3000);
}

/*
 * The level sets, value by value (the unbiasedness above is only on
 * average): qsgd's x̂ is ±l N/s with N = ||x|| rounded up to an f32 and l
 * one of the two levels around s|x|/N (floor or floor + 1), signed as x,
 * level 0 as +0; terngrad's x̂ is 0 or ±S, signed as x, S = min(max |x|,
 * 2.5 sigma) rounded up, and the values at S itself always ±S.
 */
static void test_levels(void)
{
	enum { N = 999 };
	static const unsigned levels[] = { 1, 3, 8, 255 };
	float v[N], back[N];
	double sq = 0, mean = 0, var = 0, mx = 0, scale;
	char opts[48];
	size_t len;

	fill(v, N);
	for (size_t i = 0; i < N; i++)
		sq += (double)v[i] * v[i];
	for (size_t k = 0; k < 4; k++) {
		const unsigned s = levels[k];
		const double norm = f32_up(sqrt(sq)), step = norm / s;
		int ok = 1;

		snprintf(opts, sizeof(opts), "levels=%u,seed=%zu", s, k);
		if (code("qsgd", opts, GT_DT_F32, v, N, 0, back, &len) < 0)
			continue;
		for (size_t i = 0; i < N; i++) {
			const double a = fabs((double)v[i]) * s / norm, lo = floor(a);
			const float at_lo = (float)(lo * step), at_hi = (float)((lo + 1) * step);
			const float y = fabsf(back[i]);

			ok &= !memcmp(&y, &at_lo, 4) || (a > lo && !memcmp(&y, &at_hi, 4));
			ok &= gt_f32_bits(y) == 0 ? gt_f32_bits(back[i]) == 0 : signbit(back[i]) == signbit(v[i]);
		}
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  qsgd levels=%u: a value off its two levels\n", s);
	}
	for (size_t i = 0; i < N; i++)
		mean += v[i] / (double)N;
	for (size_t i = 0; i < N; i++) {
		var += ((double)v[i] - mean) * ((double)v[i] - mean) / N;
		mx = fmax(mx, fabs(v[i]));
	}
	scale = f32_up(fmin(mx, 2.5 * sqrt(var)));
	if (code("terngrad", "seed=5", GT_DT_F32, v, N, 0, back, &len) == 0) {
		const float S = (float)scale;
		int ok = 1;

		for (size_t i = 0; i < N; i++) {
			const float y = fabsf(back[i]);

			ok &= gt_f32_bits(back[i]) == 0 || (!memcmp(&y, &S, 4) &&
							    signbit(back[i]) == signbit(v[i]));
			if (fabs((double)v[i]) >= scale)
				ok &= !memcmp(&y, &S, 4);
		}
		CHECK(ok);
	}
}

static void test_special(void)
{
	enum { N = 8 };
	const float sub = 0x1p-140f;
	float v[N] = { NAN, INFINITY, -INFINITY, 1, -0.0f, 2, sub, -1 }, back[N];
	size_t len;

	if (code("topk", "k=3", GT_DT_F32, v, N, 0, back, &len) == 0) {
		CHECK(!memcmp(back, v, 12)); /* NaN, then Inf before -Inf (tie) */
		CHECK(nonzero(back, N) == 3);
	}
	if (code("topk", "k=8", GT_DT_F32, v, N, 0, back, &len) == 0)
		CHECK(!memcmp(back, v, sizeof(v))); /* -0 and subnormal exact */
	if (code("topk", "k=5", GT_DT_F32, v, N, 0, back, &len) == 0)
		CHECK(gt_f32_bits(back[4]) == 0 && gt_f32_bits(back[6]) == 0 &&
		      !memcmp(&back[5], &v[5], 4)); /* 2, then 1 or -1 */
	for (int c = 0; c < 2; c++)
		if (code(c ? "redsync" : "dgc", "k=3", GT_DT_F32, v, N, 0, back, &len) == 0)
			CHECK(!memcmp(back, v, 12)); /* above every threshold */
	for (int c = 0; c < 2; c++) {
		if (code(c ? "terngrad" : "qsgd", "seed=5", GT_DT_F32, v, N, 0, back, &len) < 0)
			continue;
		CHECK(!memcmp(back, v, 12)); /* escapes: bit-exact */
		CHECK(gt_f32_bits(back[4]) == 0); /* -0 decodes as +0 */
		CHECK(gt_f32_bits(back[6]) == 0 || back[6] > 0.1f); /* a level */
		CHECK(back[3] > 0 && back[7] < 0);
	}
}

static void test_dtypes(void)
{
	uint16_t h[300], hb[300];
	double d[300], db[300];
	unsigned char x[8];
	size_t len;

	/* f16 and bf16 stores round-trip every value exactly */
	for (uint32_t u = 0; u < 65536; u++) {
		const uint16_t b = (uint16_t)u;
		const int f16_nan = (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
		const int bf_nan = (b & 0x7f80) == 0x7f80 && (b & 0x7f);

		gt_sparse_put(x, GT_DT_F16, 0, gt_fp_get(&b, GT_DT_F16, 0));
		CHECK(f16_nan || gt_fp_load(x, GT_DT_F16, 0) == b);
		gt_sparse_put(x, GT_DT_BF16, 0, gt_fp_get(&b, GT_DT_BF16, 0));
		CHECK(bf_nan || gt_fp_load(x, GT_DT_BF16, 0) == b);
	}
	gt_sparse_put(x, GT_DT_F16, 0, 65520.0);
	CHECK(gt_fp_load(x, GT_DT_F16, 0) == 0x7c00);
	gt_sparse_put(x, GT_DT_F16, 0, 0x1p-25 * 3); /* 1.5 units: to even, 2 */
	CHECK(gt_fp_load(x, GT_DT_F16, 0) == 2);
	for (size_t i = 0; i < 300; i++) {
		h[i] = (uint16_t)check_rand();
		h[i] = (h[i] & 0x7c00) == 0x7c00 ? 0x3c00 : h[i];
		d[i] = ((double)(check_rand() >> 11) - 0x1p52) * 0x1p-60;
	}
	if (code("topk", "k=30", GT_DT_F16, h, 300, 0, hb, &len) == 0)
		for (size_t i = 0; i < 300; i++)
			CHECK(hb[i] == 0 || hb[i] == h[i]);
	if (code("topk", "k=300", GT_DT_BF16, h, 300, 0, hb, &len) == 0)
		CHECK(!memcmp(h, hb, sizeof(h)));
	if (code("topk", "cf=7", GT_DT_F64, d, 300, 0, db, &len) == 0)
		for (size_t i = 0; i < 300; i++)
			CHECK(gt_f64_bits(db[i]) == 0 || !memcmp(&db[i], &d[i], 8));
	for (int c = 0; c < 2; c++)
		if (code(c ? "terngrad" : "qsgd", "seed=1", GT_DT_F64, d, 300, 0, db, &len) == 0)
			for (size_t i = 0; i < 300; i++)
				CHECK(isfinite(db[i]));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_options);
	RUN(test_k);
	RUN(test_topk);
	RUN(test_randk);
	RUN(test_randk_uniform);
	RUN(test_dgc_redsync);
	RUN(test_index_coding);
	RUN(test_hostile);
	RUN(test_unbiased);
	RUN(test_levels);
	RUN(test_special);
	RUN(test_dtypes);
	return check_done("test_sparse");
}
