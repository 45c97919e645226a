/* gt_rangeq.c - fitting, header and bit packing of the offset-based N-bit float */
#include <math.h>
#include <string.h>

#include "gt_rangeq.h"
#include "gt_bitio.h"
#include "banned.h"

#define RQ_SAMPLE 512
#define RQ_FINITE_MAX 0x7f7fffffu

/*
 * Whether eps at bin @b leaves room for max and min: the codes from eps
 * up to each bound (counted without clamping at 0, as the paper's value
 * of 1...1 moves on past min) fit the 2^N - 1 codes together and each
 * alone.  Monotone in b.
 */
static int fits(int64_t bp, int64_t bn, int sp, int sn, int64_t b, int64_t codes)
{
	const int64_t p = sp ? bp - b + 1 : 0, q = sn ? bn - b + 1 : 0;

	return p + q <= codes && p <= codes && q <= codes;
}

int gt_rangeq_fit(struct gt_rangeq *q, unsigned bits, unsigned m,
		  uint32_t pos, uint32_t neg)
{
	const int64_t codes = ((int64_t)1 << bits) - 1; /* 0 is zero */
	unsigned sh;
	int64_t bp, bn, lo, hi;

	if (bits < GT_RANGEQ_BITS_MIN || bits > GT_RANGEQ_BITS_MAX || m < 1 ||
	    m > GT_RANGEQ_M_MAX || pos > RQ_FINITE_MAX || neg > RQ_FINITE_MAX)
		return GT_ERR(INVAL);
	sh = GT_RANGEQ_M_MAX - m;
	bp = pos >> sh;
	bn = neg >> sh;
	/*
	 * The paper's search: a smaller eps (pbase) gives more positive codes
	 * and pushes the value of 1...1 towards zero; bisect for the smallest
	 * pbase at which the codes still reach both max and min.
	 */
	lo = 1;
	hi = (bp > bn ? bp : bn) + 1;
	while (lo < hi) {
		const int64_t mid = lo + (hi - lo) / 2;

		if (fits(bp, bn, pos > 0, neg > 0, mid, codes))
			hi = mid;
		else
			lo = mid + 1;
	}
	q->bits = bits;
	q->m = m;
	q->shift = sh;
	q->pbase = (uint32_t)lo;
	q->npos = pos > 0 && bp >= lo ? (uint32_t)(bp - lo + 1) : 0;
	/* as many negative codes as reach min: beyond it values clamp */
	q->nneg = neg > 0 && bn >= lo ? (uint32_t)(bn - lo + 1) : 0;
	return 0;
}

/*
 * Squared error of @q over a sample of @x: one value in each stretch of
 * @stride, at a hashed offset (a fixed stride can fall in step with a
 * tensor's rows, or with its zeros).
 */
static double sample_sse(const struct gt_rangeq *q, const float *x, size_t n,
			 size_t stride)
{
	double sse = 0;

	for (size_t b = 0; b + stride <= n; b += stride) {
		const size_t i = b + (size_t)((b * 0x9e3779b97f4a7c15ull) >> 40) % stride;
		const double e = (double)x[i] - gt_rangeq_value(q, gt_rangeq_code(q, x[i]));

		if (isfinite(x[i]))
			sse += e * e;
	}
	return sse;
}

int gt_rangeq_fit_auto(struct gt_rangeq *q, unsigned bits, uint32_t pos,
		       uint32_t neg, const float *x, size_t n)
{
	const unsigned mmax = bits < GT_RANGEQ_M_MAX ? bits : GT_RANGEQ_M_MAX;
	const size_t stride = n > RQ_SAMPLE ? n / RQ_SAMPLE : 1;
	double best = INFINITY;
	struct gt_rangeq t;

	GT_TRY(gt_rangeq_fit(q, bits, 1, pos, neg));
	for (unsigned m = 1; m <= mmax; m++) {
		double sse;

		GT_TRY(gt_rangeq_fit(&t, bits, m, pos, neg));
		sse = sample_sse(&t, x, n, stride);
		if (sse < best) {
			best = sse;
			*q = t;
		}
	}
	return 0;
}

void gt_rangeq_range(const float *x, size_t n, uint32_t *pos_ret, uint32_t *neg_ret)
{
	uint32_t mp = 0, mn = 0;

	/* integer max of the magnitudes' bit patterns: monotone, and vectorizes */
	for (size_t i = 0; i < n; i++) {
		const uint32_t u = gt_f32_bits(x[i]);
		const uint32_t a = u & 0x7fffffffu;
		const uint32_t v = a < 0x7f800000u ? a : 0;
		const uint32_t p = u >> 31 ? 0 : v, ng = u >> 31 ? v : 0;

		mp = p > mp ? p : mp;
		mn = ng > mn ? ng : mn;
	}
	*pos_ret = mp;
	*neg_ret = mn;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void gt_rangeq_save(const struct gt_rangeq *q, unsigned char *dst)
{
	dst[0] = (unsigned char)q->m;
	put32(dst + 1, q->pbase);
	put32(dst + 5, q->npos);
}

int gt_rangeq_load(struct gt_rangeq *q, unsigned bits, const unsigned char *src)
{
	const unsigned m = src[0];
	const uint32_t pbase = get32(src + 1), npos = get32(src + 5);
	const uint64_t codes = (UINT64_C(1) << bits) - 1;
	uint32_t fb;

	if (bits < GT_RANGEQ_BITS_MIN || bits > GT_RANGEQ_BITS_MAX || m < 1 ||
	    m > GT_RANGEQ_M_MAX || pbase < 1 || npos > codes)
		return GT_ERR(CORRUPT);
	fb = RQ_FINITE_MAX >> (GT_RANGEQ_M_MAX - m);
	/* every positive code must decode to a finite value */
	if (pbase > fb || npos > fb - pbase + 1)
		return GT_ERR(CORRUPT);
	q->bits = bits;
	q->m = m;
	q->shift = GT_RANGEQ_M_MAX - m;
	q->pbase = pbase;
	q->npos = npos;
	q->nneg = (uint32_t)(codes - npos);
	if (q->nneg > fb - pbase + 1)
		q->nneg = fb - pbase + 1;
	return 0;
}

float gt_rangeq_eps(const struct gt_rangeq *q)
{
	return gt_f32_from_bits(q->pbase << q->shift);
}

/* The codes of @n values from @x, @g per word, into the register writer. */
#define RQ_PACK_LOOP(g)                                                       \
	for (; i + (g) <= n && f.ptr + 8 <= end; i += (g)) {                 \
		uint64_t word = 0;                                            \
		for (unsigned j = 0; j < (g); j++)                            \
			word |= (uint64_t)gt_rangeq_code(q, x[i + j]) << (j * N); \
		gt_bitw_fast_put(&f, word, (g) * N);                          \
	}

int gt_rangeq_pack(const struct gt_rangeq *q, const float *x, size_t n,
		   void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	const unsigned N = q->bits;
	struct gt_bitw w;
	struct gt_bitw_fast f;
	const unsigned char *end;
	size_t i = 0;

	*dst_len_ret = 0;
	if (n > (SIZE_MAX - 7) / N || (n * N + 7) / 8 > dst_cap)
		return GT_ERR(DST_TOO_SMALL);
	gt_bitw_init(&w, dst, dst_cap);
	end = w.end;
	f = gt_bitw_fast_load(&w);
	/* 7 pending bits + g * N <= 63 */
	if (N <= 14) {
		RQ_PACK_LOOP(4)
	} else {
		RQ_PACK_LOOP(3)
	}
	gt_bitw_fast_store(&f, &w);
	for (; i < n; i++) {
		gt_bitw_put(&w, gt_rangeq_code(q, x[i]), N);
		gt_bitw_flush(&w);
	}
	return gt_bitw_close(&w, dst_len_ret);
}

int gt_rangeq_unpack(const struct gt_rangeq *q, const void *src, size_t src_len,
		     float *dst, size_t n)
{
	const unsigned N = q->bits;
	const uint64_t mask = (UINT64_C(1) << N) - 1;
	const unsigned g = 48 / N; /* codes per refill: 48 <= GT_BITR_MAX */
	struct gt_bitr r;
	size_t i = 0;

	if (n > (SIZE_MAX - 7) / N || (n * N + 7) / 8 > src_len)
		return GT_ERR(TRUNCATED);
	if ((n * N + 7) / 8 < src_len)
		return GT_ERR(CORRUPT);
	gt_bitr_init(&r, src, src_len);
	for (; i + g <= n; i += g) {
		uint64_t acc;

		gt_bitr_refill(&r);
		acc = r.acc;
		for (unsigned j = 0; j < g; j++)
			dst[i + j] = gt_rangeq_value(q, (uint32_t)(acc >> (j * N) & mask));
		gt_bitr_consume(&r, g * N);
	}
	for (; i < n; i++)
		dst[i] = gt_rangeq_value(q, (uint32_t)gt_bitr_get(&r, N));
	return gt_bitr_finish(&r);
}
