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
	q->isa = gt_isa_best();
	q->shift = sh;
	q->pbase = (uint32_t)lo;
	q->npos = pos > 0 && bp >= lo ? (uint32_t)(bp - lo + 1) : 0;
	/* as many negative codes as reach min: beyond it values clamp */
	q->nneg = neg > 0 && bn >= lo ? (uint32_t)(bn - lo + 1) : 0;
	return 0;
}

/*
 * The loops: gt_rangeq_code() and gt_rangeq_value() in 32-bit lanes with
 * no branch, and the range, so that compilers vectorize them.  Every
 * quantity fits an int32_t: a >> shift and pbase are below 2^31, P and Q
 * below 2^16; signed compares because SSE2 has no unsigned ones.
 * test_rangeq checks them against the inline functions of gt_rangeq.h.
 * Each is inlined into drivers that call it on blocks of a constant
 * RQ_BLOCK values (what gcc's -O2 cost model very-cheap vectorizes: no
 * epilogue) and once on the rest, and the drivers are compiled once for
 * each instruction set (gt_isa.h).
 */
#define RQ_BATCH 1024
#define RQ_BLOCK 64
#define LOOP static inline __attribute__((always_inline))

LOOP void codes_of(const struct gt_rangeq *q, const float *restrict x, size_t n,
		   uint32_t *restrict codes)
{
	const unsigned shift = q->shift;
	const int32_t pb1 = (int32_t)q->pbase - 1, npos = (int32_t)q->npos;
	const int32_t nneg = (int32_t)q->nneg;

	for (size_t i = 0; i < n; i++) {
		const uint32_t u = gt_f32_bits(x[i]), a = u & 0x7fffffffu;
		const int32_t neg = -(int32_t)(u >> 31); /* 0 or all ones */
		const int32_t lim = (nneg & neg) | (npos & ~neg);
		int32_t k = (int32_t)(a >> shift) - pb1;

		k = k < 0 ? 0 : k;
		k = k > lim ? lim : k;
		k = (int32_t)a > 0x7f800000 ? 0 : k; /* NaN */
		codes[i] = (uint32_t)(k + (npos & neg & -(int32_t)(k != 0)));
	}
}

LOOP void values_of(const struct gt_rangeq *q, const uint32_t *restrict codes,
		    size_t n, float *restrict y)
{
	const unsigned shift = q->shift;
	const int32_t pb1 = (int32_t)q->pbase - 1, npos = (int32_t)q->npos;
	const int32_t nneg = (int32_t)q->nneg;

	for (size_t i = 0; i < n; i++) {
		const int32_t c = (int32_t)codes[i], kn = c - npos;
		const int32_t neg = -(int32_t)(c > npos);
		const int32_t k = (neg & (kn < nneg ? kn : nneg)) | (~neg & c);
		const uint32_t v = (uint32_t)neg << 31 | (uint32_t)(k + pb1) << shift;

		y[i] = gt_f32_from_bits(v & -(uint32_t)(c != 0));
	}
}

/* The range of @n values into *@mp, *@mn. */
LOOP void range_of(const float *x, size_t n, int32_t *mp, int32_t *mn)
{
	int32_t p = *mp, q = *mn;

	/* integer max of the magnitudes' bit patterns (< 2^31): monotone */
	for (size_t i = 0; i < n; i++) {
		const uint32_t u = gt_f32_bits(x[i]);
		const int32_t a = (int32_t)(u & 0x7fffffffu);
		const int32_t v = a < 0x7f800000 ? a : 0, neg = -(int32_t)(u >> 31);
		const int32_t vp = v & ~neg, vn = v & neg;

		p = vp > p ? vp : p;
		q = vn > q ? vn : q;
	}
	*mp = p;
	*mn = q;
}

#define RQ_DRIVERS(SUF, ATTR)                                                 \
	ATTR static void codes_##SUF(const struct gt_rangeq *q, const float *x, \
				     size_t n, uint32_t *codes)               \
	{                                                                     \
		size_t i = 0;                                                 \
		for (; i + RQ_BLOCK <= n; i += RQ_BLOCK)                      \
			codes_of(q, x + i, RQ_BLOCK, codes + i);              \
		codes_of(q, x + i, n - i, codes + i);                         \
	}                                                                     \
	ATTR static void values_##SUF(const struct gt_rangeq *q,              \
				      const uint32_t *codes, size_t n, float *y) \
	{                                                                     \
		size_t i = 0;                                                 \
		for (; i + RQ_BLOCK <= n; i += RQ_BLOCK)                      \
			values_of(q, codes + i, RQ_BLOCK, y + i);             \
		values_of(q, codes + i, n - i, y + i);                        \
	}                                                                     \
	ATTR static void range_##SUF(const float *x, size_t n, int32_t *mp,  \
				     int32_t *mn)                             \
	{                                                                     \
		size_t i = 0;                                                 \
		for (; i + 4 * RQ_BLOCK <= n; i += 4 * RQ_BLOCK) {            \
			gt_prefetch(x + i, 16 * RQ_BLOCK);                    \
			range_of(x + i, 4 * RQ_BLOCK, mp, mn);                \
		}                                                             \
		range_of(x + i, n - i, mp, mn);                               \
	}

RQ_DRIVERS(portable, )
#if GT_ISA_X86
RQ_DRIVERS(avx2, GT_ISA_TARGET_AVX2)
RQ_DRIVERS(avx512, GT_ISA_TARGET_AVX512)
#endif

static void codes_isa(const struct gt_rangeq *q, const float *x, size_t n, uint32_t *codes)
{
#if GT_ISA_X86
	if (q->isa == GT_ISA_AVX512) {
		codes_avx512(q, x, n, codes);
		return;
	}
	if (q->isa == GT_ISA_AVX2) {
		codes_avx2(q, x, n, codes);
		return;
	}
#endif
	codes_portable(q, x, n, codes);
}

static void values_isa(const struct gt_rangeq *q, const uint32_t *codes, size_t n, float *y)
{
#if GT_ISA_X86
	if (q->isa == GT_ISA_AVX512) {
		values_avx512(q, codes, n, y);
		return;
	}
	if (q->isa == GT_ISA_AVX2) {
		values_avx2(q, codes, n, y);
		return;
	}
#endif
	values_portable(q, codes, n, y);
}

void gt_rangeq_range_isa(const float *x, size_t n, enum gt_isa isa, uint32_t *pos_ret,
			 uint32_t *neg_ret)
{
	int32_t mp = 0, mn = 0;

#if GT_ISA_X86
	if (isa == GT_ISA_AVX512)
		range_avx512(x, n, &mp, &mn);
	else if (isa == GT_ISA_AVX2)
		range_avx2(x, n, &mp, &mn);
	else
#endif
		range_portable(x, n, &mp, &mn);
	(void)isa;
	*pos_ret = (uint32_t)mp;
	*neg_ret = (uint32_t)mn;
}

void gt_rangeq_range(const float *x, size_t n, uint32_t *pos_ret, uint32_t *neg_ret)
{
	gt_rangeq_range_isa(x, n, gt_isa_best(), pos_ret, neg_ret);
}

/*
 * The sample of gt_rangeq_fit_auto(): one value in each stretch of
 * @stride, at a hashed offset (a fixed stride can fall in step with a
 * tensor's rows, or with its zeros), into @s.  The hash is below 2^24,
 * so a 32-bit division takes the offset.  Returns how many.
 */
static size_t take_sample(const float *x, size_t n, size_t stride, float *s)
{
	size_t k = 0;

	for (size_t b = 0; b + stride <= n; b += stride) {
		const uint32_t h = (uint32_t)((b * 0x9e3779b97f4a7c15ull) >> 40);
		const size_t off = stride <= UINT32_MAX ? h % (uint32_t)stride : h % stride;

		s[k++] = x[b + off];
	}
	return k;
}

/* Squared error of @q over the @k values of a sample at @s, summed in
 * order (the choice of m must not depend on how it is computed). */
static double sample_sse(const struct gt_rangeq *q, const float *s, size_t k)
{
	uint32_t codes[2 * RQ_SAMPLE];
	float y[2 * RQ_SAMPLE];
	double sse = 0;

	codes_isa(q, s, k, codes);
	values_isa(q, codes, k, y);
	for (size_t i = 0; i < k; i++) {
		const double e = (double)s[i] - y[i];

		if (isfinite(s[i]))
			sse += e * e;
	}
	return sse;
}

int gt_rangeq_fit_auto_isa(struct gt_rangeq *q, unsigned bits, uint32_t pos,
			   uint32_t neg, const float *x, size_t n, enum gt_isa isa)
{
	const unsigned mmax = bits < GT_RANGEQ_M_MAX ? bits : GT_RANGEQ_M_MAX;
	const size_t stride = n > RQ_SAMPLE ? n / RQ_SAMPLE : 1;
	float s[2 * RQ_SAMPLE]; /* n / stride < 2 RQ_SAMPLE values */
	const size_t k = take_sample(x, n, stride, s);
	double best = INFINITY;
	struct gt_rangeq t;

	GT_TRY(gt_rangeq_fit(q, bits, 1, pos, neg));
	q->isa = isa;
	for (unsigned m = 1; m <= mmax; m++) {
		double sse;

		GT_TRY(gt_rangeq_fit(&t, bits, m, pos, neg));
		t.isa = isa;
		sse = sample_sse(&t, s, k);
		if (sse < best) {
			best = sse;
			*q = t;
		}
	}
	return 0;
}

int gt_rangeq_fit_auto(struct gt_rangeq *q, unsigned bits, uint32_t pos,
		       uint32_t neg, const float *x, size_t n)
{
	return gt_rangeq_fit_auto_isa(q, bits, pos, neg, x, n, gt_isa_best());
}

void gt_rangeq_save(const struct gt_rangeq *q, unsigned char *dst)
{
	dst[0] = (unsigned char)q->m;
	gt_le32_put(dst + 1, q->pbase);
	gt_le32_put(dst + 5, q->npos);
}

int gt_rangeq_load(struct gt_rangeq *q, unsigned bits, const unsigned char *src)
{
	const unsigned m = src[0];
	const uint32_t pbase = gt_le32_get(src + 1), npos = gt_le32_get(src + 5);
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
	q->isa = gt_isa_best();
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

int gt_rangeq_pack(const struct gt_rangeq *q, const float *x, size_t n,
		   void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	const unsigned N = q->bits;
	unsigned char *out = dst;
	uint32_t codes[RQ_BATCH];

	*dst_len_ret = 0;
	if (n > (SIZE_MAX - 7) / N || (n * N + 7) / 8 > dst_cap)
		return GT_ERR(DST_TOO_SMALL);
	/* RQ_BATCH codes are a whole number of bytes */
	for (size_t i = 0; i < n; i += RQ_BATCH) {
		const size_t cnt = n - i < RQ_BATCH ? n - i : RQ_BATCH;

		codes_isa(q, x + i, cnt, codes);
		gt_bitpack_isa(codes, cnt, N, out + i / 8 * N, q->isa);
	}
	*dst_len_ret = (n * N + 7) / 8;
	return 0;
}

int gt_rangeq_unpack(const struct gt_rangeq *q, const void *src, size_t src_len,
		     float *dst, size_t n)
{
	const unsigned N = q->bits;
	const unsigned char *in = src;
	uint32_t codes[RQ_BATCH];
	int rc = 0;

	if (n > (SIZE_MAX - 7) / N || (n * N + 7) / 8 > src_len)
		return GT_ERR(TRUNCATED);
	if ((n * N + 7) / 8 < src_len)
		return GT_ERR(CORRUPT);
	for (size_t i = 0; i < n && rc >= 0; i += RQ_BATCH) {
		const size_t cnt = n - i < RQ_BATCH ? n - i : RQ_BATCH;

		rc = gt_bitunpack_isa(in + i / 8 * N, cnt, N, codes, q->isa);
		values_isa(q, codes, cnt, dst + i);
	}
	return rc;
}
