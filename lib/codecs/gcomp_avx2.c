/* gcomp_avx2.c - gcomp's AVX2 encoder kernels: levels by δ, exact mode, tokens */

/* δ must round as gt_optim_delta() rounds: no contraction into FMAs */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GT_NO_SIMD)
#define GC_X86 /* -DGT_NO_SIMD builds the scalar path alone */
#include <immintrin.h>
#endif

#include "gcomp_simd.h"
#include "../banned.h"

/*
 * The kernels of gcomp_x86.c in 256-bit registers, for the CPUs without
 * AVX-512 (AMD Zen 2 and 3, most Intel client CPUs): eight lanes of
 * float32 or four of double where those take sixteen and eight, masks as
 * the sign bits of lanes (movemask), gathers where those permute tables,
 * and no PEXT or PDEP (microcoded, hundreds of cycles, on AMD before Zen
 * 3).  They reorganize the loops of gcomp.c and nothing else, as the
 * AVX-512 ones do; test_gcomp.c compares their bytes with the scalar
 * path's (isa=scalar) the same way.
 */

#ifdef GC_X86

#define GC_TARGET __attribute__((target("avx2,fma,bmi,bmi2,popcnt")))
#define GC_INLINE static inline __attribute__((always_inline)) GC_TARGET
#define GC_UNROLL _Pragma("GCC unroll 8")
#define GC_AHEAD 256 /* values */

#define D(x) _mm256_set1_pd(x)
#define F(x) _mm256_set1_ps(x)
#define I(x) _mm256_set1_epi32((int)(x))

/* The sign bits of the eight 32-bit lanes of @x. */
GC_INLINE unsigned bits8(__m256i x)
{
	return (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(x));
}

/* Lanes of bit mask @m as all ones. */
GC_INLINE __m256i lanes8(unsigned m)
{
	const __m256i b = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);

	return _mm256_cmpeq_epi32(_mm256_and_si256(I(m), b), b);
}

/* Byte j of the result: bit j of the 8-bit @m. */
static inline uint64_t spread8(unsigned m)
{
	const uint64_t x = ((uint64_t)m * UINT64_C(0x0101010101010101)) &
			   UINT64_C(0x8040201008040201);

	return ((x + UINT64_C(0x7f7f7f7f7f7f7f7f)) >> 7) & UINT64_C(0x0101010101010101);
}

/* The @left (< 8) first 32-bit values at @v, zeros after them. */
GC_INLINE __m256i load_part(const void *v, size_t left)
{
	const __m256i k = _mm256_cmpgt_epi32(I(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));

	return _mm256_maskload_epi32((const int *)v, k);
}

GC_INLINE __m256d abs_pd(__m256d x)
{
	return _mm256_andnot_pd(D(-0.0), x);
}

GC_INLINE __m256 abs_ps(__m256 x)
{
	return _mm256_andnot_ps(F(-0.0f), x);
}

/* ---- levels by δ ------------------------------------------------------------ */

/*
 * N = A − B of four values, A and B by the expressions of delta_num() in
 * gcomp.c, in the same order, exact (B = 0 where N has no subtracted
 * term: N is A then): num8() of gcomp_x86.c without its approximations.
 */
GC_INLINE __m256d num4(const struct gc_dplan *q, enum gt_optim_kind kind, __m256d g,
		       __m256d th, __m256d s0, __m256d s1, __m256d *b_ret)
{
	const __m256d z = _mm256_setzero_pd();
	__m256d d, x;

	*b_ret = z;
	switch (kind) {
	case GT_OPT_MOMENTUM:
		*b_ret = q->first ? z : _mm256_mul_pd(D(q->a1), s0);
		return th;
	case GT_OPT_NESTEROV:
		*b_ret = _mm256_mul_pd(D(q->a2), s0);
		return _mm256_mul_pd(D(q->a1), th);
	case GT_OPT_ADAGRAD: /* s0 + d d */
		d = _mm256_add_pd(g, _mm256_mul_pd(D(q->lam), th));
		x = _mm256_add_pd(s0, _mm256_mul_pd(d, d));
		return _mm256_mul_pd(th, _mm256_add_pd(_mm256_sqrt_pd(x), D(q->eps)));
	case GT_OPT_RMSPROP: /* a1 s0 + (a2 d) d */
		d = _mm256_add_pd(g, _mm256_mul_pd(D(q->lam), th));
		x = _mm256_add_pd(_mm256_mul_pd(D(q->a1), s0),
				  _mm256_mul_pd(_mm256_mul_pd(D(q->a2), d), d));
		return _mm256_mul_pd(th, _mm256_add_pd(_mm256_sqrt_pd(x), D(q->eps)));
	case GT_OPT_ADAM: /* (a1 s1 + (a2 d) d) / bc2; (θ (r + ε)) bc1 − a3 s0 */
		d = _mm256_add_pd(g, _mm256_mul_pd(D(q->lam), th));
		x = _mm256_div_pd(_mm256_add_pd(_mm256_mul_pd(D(q->a1), s1),
						_mm256_mul_pd(_mm256_mul_pd(D(q->a2), d), d)),
				  D(q->bc2));
		x = _mm256_mul_pd(th, _mm256_add_pd(_mm256_sqrt_pd(x), D(q->eps)));
		*b_ret = _mm256_mul_pd(D(q->a3), s0);
		return _mm256_mul_pd(x, D(q->bc1));
	case GT_OPT_ADAMW: /* (a1 s1 + (a2 g) g) / bc2; ((θ a4)(r + ε)) bc1 − a3 s0 */
		x = _mm256_div_pd(_mm256_add_pd(_mm256_mul_pd(D(q->a1), s1),
						_mm256_mul_pd(_mm256_mul_pd(D(q->a2), g), g)),
				  D(q->bc2));
		x = _mm256_mul_pd(_mm256_mul_pd(th, D(q->a4)),
				  _mm256_add_pd(_mm256_sqrt_pd(x), D(q->eps)));
		*b_ret = _mm256_mul_pd(D(q->a3), s0);
		return _mm256_mul_pd(x, D(q->bc1));
	case GT_OPT_SGD:
	case GT_OPT_NONE:
		break;
	}
	return th;
}

/* Whether N of @kind has a subtracted term. */
static inline int has_b(const struct gc_dplan *q, enum gt_optim_kind kind)
{
	return (kind == GT_OPT_MOMENTUM && !q->first) || kind == GT_OPT_NESTEROV ||
	       kind == GT_OPT_ADAM || kind == GT_OPT_ADAMW;
}

GC_INLINE __m256d load4(const float *v)
{
	return v ? _mm256_cvtps_pd(_mm_loadu_ps(v)) : _mm256_setzero_pd();
}

/* Level masks (a > b t_k) of four values exactly as delta_levels(): bits
 * 0-3, 8-11, 16-19 hold the lanes' tests against t_1, t_2, t_3. */
GC_INLINE uint32_t lev4(const struct gc_dplan *q, enum gt_optim_kind kind, const float *g,
			const float *p, const float *s0, const float *s1)
{
	const __m256d gv = load4(g), th = load4(p);
	__m256d bt, num = num4(q, kind, gv, th, load4(s0), load4(s1), &bt), a, b, r1, r2, r3;

	if (has_b(q, kind))
		num = _mm256_sub_pd(num, bt);
	if (q->quot) {
		/* |N/(K g) − (λθ)/g| against 1 t_k = t_k */
		a = _mm256_sub_pd(_mm256_div_pd(num, _mm256_mul_pd(D(q->K), gv)),
				  _mm256_div_pd(_mm256_mul_pd(D(q->lam), th), gv));
		a = abs_pd(a);
		r1 = D(q->t1);
		r2 = D(q->t2);
		r3 = D(q->t3);
	} else {
		if (q->qz)
			num = _mm256_add_pd(num, _mm256_sub_pd(th, th));
		a = abs_pd(num);
		b = abs_pd(_mm256_mul_pd(gv, D(q->K)));
		r1 = _mm256_mul_pd(b, D(q->t1));
		r2 = _mm256_mul_pd(b, D(q->t2));
		r3 = _mm256_mul_pd(b, D(q->t3));
	}
	return (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(a, r1, _CMP_GT_OQ)) |
	       (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(a, r2, _CMP_GT_OQ)) << 8 |
	       (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(a, r3, _CMP_GT_OQ)) << 16;
}

/*
 * The float32 filter of gcomp_x86.c (the comment above its lev16f() says
 * what it computes: x, A, B, a', r'_k from the constants of struct
 * gc_fplan, and why each guard is needed) with AVX2's root: x rsqrt(x)
 * by _mm256_rsqrt_ps, whose relative error the Intel and AMD manuals
 * bound by 1.5 × 2^-12 < 2^-11.41 (rsqrt14's is 2^-14).  The band is
 * re-derived with that error e_r.  With the same guards, R' is within
 * e_r + 6u of R (u = 2^-24), A' within e_r + 10u of A, B' within 3u of
 * B, the reference's doubles within 2^-50, and underflow adds τ ≤ 2^-84
 * at most, so |a' − 2^S a_d| < S'(e_r + 13u) + τ with S' = |A'| + |B'|;
 * r'_k is within 3u of 2^S b_d t_k.  The test is taken where a' ± E,
 * E = 2^-10 S', fall on the same side of every r'_k: where r'_k ≤ 2 S'
 * (so S' ≥ 2^-61 and τ < 2^-23 S'), both errors together are below
 * S'(e_r + 20u) < 2^-11.40 S', and E covers them 2.6 times over (the
 * AVX-512 band, 2^-12 S', would not: e_r alone is 2^-11.41 S'); where
 * r'_k is larger, a' ≤ S' < r'_k / 2 and r'_k − a' > r'_k / 2 does.  The
 * rounding of a' ± E adds u a' at most.  Any NaN or Inf makes a lane
 * unsure (ordered compares), and unsure lanes go through lev4().
 *
 * The level masks of the eight values at @g (bit i of @m[k-1]: value
 * i's test against t_k); 0 where a lane of @valid is unsure (the masks
 * are then not set).
 */
GC_INLINE int lev8f(const struct gc_fplan *f, enum gt_optim_kind kind, unsigned valid,
		    __m256i ge, const float *g, const float *p, const float *s0,
		    const float *s1, unsigned *m)
{
	const int adam = kind == GT_OPT_ADAM || kind == GT_OPT_ADAMW;
	const __m256 z = _mm256_setzero_ps(), gv = _mm256_loadu_ps(g), th = _mm256_loadu_ps(p);
	const __m256 a0 = s0 ? _mm256_loadu_ps(s0) : z, a1 = s1 ? _mm256_loadu_ps(s1) : z;
	const __m256 s = adam ? a1 : a0, ag = abs_ps(gv);
	const __m256i d = _mm256_sub_epi32(ge, I(f->glo));
	__m256 x, r, a, b, e, lo, hi, rk[3], rs;
	unsigned ok, sure, gt;

	x = _mm256_fmadd_ps(_mm256_mul_ps(F(f->x1), gv), gv, _mm256_mul_ps(F(f->x0), s));
	if (adam)
		x = _mm256_mul_ps(x, F(f->x2));
	/* a state below 0 (or -0): x NaN, so the lane is unsure below */
	x = _mm256_or_ps(x, _mm256_and_ps(_mm256_castsi256_ps(_mm256_srai_epi32(
							   _mm256_castps_si256(s), 31)),
					  _mm256_castsi256_ps(I(0x7fc00000))));
	r = _mm256_add_ps(_mm256_mul_ps(x, _mm256_rsqrt_ps(x)), F(f->eps));
	a = _mm256_mul_ps(_mm256_mul_ps(th, F(f->ca)), r);
	b = adam ? _mm256_mul_ps(F(f->cb), a0) : z;
	e = _mm256_mul_ps(_mm256_add_ps(abs_ps(a), abs_ps(b)), F(0x1p-10f));
	a = abs_ps(_mm256_sub_ps(a, b));
	lo = _mm256_sub_ps(a, e);
	hi = _mm256_add_ps(a, e);
	rk[0] = _mm256_mul_ps(ag, F(f->c1));
	rk[1] = _mm256_mul_ps(ag, F(f->c2));
	rk[2] = _mm256_mul_ps(ag, F(f->c3));
	/* g in range (unsigned e - glo <= gspan), a' ± E not NaN */
	ok = bits8(_mm256_cmpeq_epi32(_mm256_min_epu32(d, I(f->gspan)), d)) &
	     (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(hi, lo, _CMP_GE_OQ));
	GC_UNROLL
	for (int k = 0; k < 3; k++)
		m[k] = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(hi, rk[k], _CMP_GT_OQ));
	/* the highest r'_k below a' + E must lie below a' - E too */
	rs = _mm256_blendv_ps(_mm256_blendv_ps(rk[0], rk[1], _mm256_cmp_ps(hi, rk[1], _CMP_GT_OQ)),
			      rk[2], _mm256_cmp_ps(hi, rk[2], _CMP_GT_OQ));
	gt = (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(lo, rs, _CMP_GT_OQ));
	sure = ~m[0] | (m[0] & gt);
	return !(valid & ~(ok & sure) & 0xff);
}

/* The level masks of the eight values at @g (lanes @gv: g neither zero,
 * subnormal, Inf nor NaN) into @m: the float32 filter, else lev4()'s. */
GC_INLINE void masks8(const struct gc_dplan *q, const struct gc_fplan *f,
		      enum gt_optim_kind kind, unsigned gv, __m256i ge, const float *g,
		      const float *p, const float *s0, const float *s1, unsigned *m)
{
	uint32_t lo, hi;

	if (f->on && lev8f(f, kind, gv, ge, g, p, s0, s1, m))
		return;
	lo = lev4(q, kind, g, p, s0, s1);
	hi = lev4(q, kind, g + 4, p + 4, s0 ? s0 + 4 : NULL, s1 ? s1 + 4 : NULL);
	GC_UNROLL
	for (int k = 0; k < 3; k++)
		m[k] = (lo >> 8 * k & 0xf) | (hi >> 8 * k & 0xf) << 4;
}

/* The entry of each lane's symbol in the map of symbols without a code,
 * ORed into @bad (bit 0 of a lane): symbol u >> 23 & 0xff, ZERO or NZERO
 * (256 + sign) for the lanes @zmv when @zt. */
GC_INLINE void bad8(const uint32_t *badmap, uint32_t zt, __m256i cu, __m256i zmv, __m256i *bad)
{
	__m256i sym = _mm256_and_si256(_mm256_srli_epi32(cu, 23), I(0xff)), w;

	if (zt)
		sym = _mm256_blendv_epi8(sym, _mm256_add_epi32(I(256), _mm256_srli_epi32(cu, 31)),
					 zmv);
	w = _mm256_i32gather_epi32((const int *)badmap, _mm256_srli_epi32(sym, 5), 4);
	*bad = _mm256_or_si256(*bad, _mm256_srlv_epi32(w, _mm256_and_si256(sym, I(31))));
}

/* Levels and carrier counts of eight values at @i (lev16() of gcomp_x86.c). */
GC_INLINE void lev8(const struct gc_dplan *q, const struct gc_fplan *f,
		    enum gt_optim_kind kind, const struct gc_lparams *lp, size_t i,
		    const float *g, const float *p, const float *s0, const float *s1,
		    uint8_t *lv, uint64_t *cnt, __m256i *bad)
{
	const __m256i zero = _mm256_setzero_si256();
	const __m256i e = _mm256_and_si256(_mm256_srli_epi32(_mm256_loadu_si256(
								      (const void *)(g + i)), 23),
					   I(0xff));
	const unsigned gv = ~(bits8(_mm256_cmpeq_epi32(e, zero)) |
			      bits8(_mm256_cmpeq_epi32(e, I(0xff)))) & 0xff;
	const __m256i cu = _mm256_loadu_si256((const void *)(lp->cv + i));
	const __m256i zmv = _mm256_cmpeq_epi32(_mm256_slli_epi32(cu, 1), zero);
	const unsigned zm = bits8(zmv), zp = bits8(_mm256_cmpeq_epi32(cu, zero));
	const unsigned v = gv & ~zm;
	const unsigned carry = (~zm | (lp->zc[0] ? zp : 0) | (lp->zc[1] ? zm & ~zp : 0)) & 0xff;
	unsigned m[3], l1, l2, l3;
	uint64_t l;

	masks8(q, f, kind, gv, e, g + i, p + i, s0 ? s0 + i : NULL, s1 ? s1 + i : NULL, m);
	/* lanes of level >= 1, 2, 3 (each inside the one before) */
	l1 = (m[0] & v) | (lp->zl >= 1 ? zm : 0);
	l2 = (m[1] & v) | (lp->zl >= 2 ? zm : 0);
	l3 = (m[2] & v) | (lp->zl >= 3 ? zm : 0);
	l = spread8(l1) + spread8(l2) + spread8(l3);
	memcpy(lv + i, &l, 8);
	/* carriers at level >= k (levels_kind() takes the differences) */
	cnt[0] += (uint64_t)__builtin_popcount(carry);
	cnt[1] += (uint64_t)__builtin_popcount(l1 & carry);
	cnt[2] += (uint64_t)__builtin_popcount(l2 & carry);
	cnt[3] += (uint64_t)__builtin_popcount(l3 & carry);
	if (lp->badmap) /* NULL: every symbol of the block has a code */
		bad8(lp->badmap, lp->zt, cu, zmv, bad);
}

/* Whether any lane of @bad has bit 0 set. */
GC_INLINE int any_bad(__m256i bad)
{
	return !_mm256_testz_si256(bad, I(1));
}

GC_INLINE size_t levels_kind(const struct gc_dplan *q, enum gt_optim_kind kind,
			     const struct gc_lparams *lp, size_t n, const float *g,
			     const float *p, const float *s0, const float *s1, uint8_t *lv,
			     uint64_t *cnt, int *bad_ret)
{
	__m256i bad = _mm256_setzero_si256();
	uint64_t k[4] = { 0, 0, 0, 0 };
	struct gc_fplan f;
	size_t i = 0;

	gc_fplan_init(&f, q);
	for (; i + 8 <= n; i += 8) {
		/* θ and the states come once from memory: ask 1 KiB ahead */
		if (!(i & 8)) {
			_mm_prefetch((const char *)(g + i + GC_AHEAD), _MM_HINT_T0);
			_mm_prefetch((const char *)(p + i + GC_AHEAD), _MM_HINT_T0);
			if (s0)
				_mm_prefetch((const char *)(s0 + i + GC_AHEAD), _MM_HINT_T0);
			if (s1)
				_mm_prefetch((const char *)(s1 + i + GC_AHEAD), _MM_HINT_T0);
		}
		lev8(q, &f, kind, lp, i, g, p, s0, s1, lv, k, &bad);
	}
	GC_UNROLL
	for (int l = 0; l < 4; l++)
		cnt[l] += k[l] - (l < 3 ? k[l + 1] : 0);
	*bad_ret = any_bad(bad);
	return i;
}

GC_TARGET size_t gc_avx2_levels(const struct gc_dplan *q, const struct gc_lparams *lp,
				size_t n, const float *g, const float *p, const float *s0,
				const float *s1, uint8_t *lv, uint64_t *cnt, int *bad_ret)
{
	switch (q->kind) {
	case GT_OPT_MOMENTUM:
		return levels_kind(q, GT_OPT_MOMENTUM, lp, n, g, p, s0, s1, lv, cnt, bad_ret);
	case GT_OPT_NESTEROV:
		return levels_kind(q, GT_OPT_NESTEROV, lp, n, g, p, s0, s1, lv, cnt, bad_ret);
	case GT_OPT_ADAGRAD:
		return levels_kind(q, GT_OPT_ADAGRAD, lp, n, g, p, s0, s1, lv, cnt, bad_ret);
	case GT_OPT_RMSPROP:
		return levels_kind(q, GT_OPT_RMSPROP, lp, n, g, p, s0, s1, lv, cnt, bad_ret);
	case GT_OPT_ADAM:
		return levels_kind(q, GT_OPT_ADAM, lp, n, g, p, s0, s1, lv, cnt, bad_ret);
	case GT_OPT_ADAMW:
		return levels_kind(q, GT_OPT_ADAMW, lp, n, g, p, s0, s1, lv, cnt, bad_ret);
	case GT_OPT_SGD:
	case GT_OPT_NONE:
		break;
	}
	return levels_kind(q, GT_OPT_SGD, lp, n, g, p, s0, s1, lv, cnt, bad_ret);
}

/* ---- the carrier count of the other modes --------------------------------- */

/* count_part() of gcomp.c for eight values at @i (tally16() of gcomp_x86.c). */
GC_INLINE void tally8(const struct gc_lparams *lp, size_t i, uint8_t *lv, uint64_t *cnt,
		      __m256i *bad)
{
	const __m256i zero = _mm256_setzero_si256();
	const __m256i cu = _mm256_loadu_si256((const void *)(lp->cv + i));
	const __m256i zmv = _mm256_cmpeq_epi32(_mm256_slli_epi32(cu, 1), zero);
	const unsigned zm = bits8(zmv), zp = bits8(_mm256_cmpeq_epi32(cu, zero));
	const unsigned carry = (~zm | (lp->zc[0] ? zp : 0) | (lp->zc[1] ? zm & ~zp : 0)) & 0xff;
	__m256i l = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const void *)(lv + i)));
	__m128i b;

	l = _mm256_blendv_epi8(l, I(lp->zl), zmv);
	b = _mm_packus_epi32(_mm256_castsi256_si128(l), _mm256_extracti128_si256(l, 1));
	_mm_storel_epi64((void *)(lv + i), _mm_packus_epi16(b, b));
	GC_UNROLL
	for (int k = 0; k < 4; k++)
		cnt[k] += (uint64_t)__builtin_popcount(bits8(_mm256_cmpeq_epi32(l, I(k))) & carry);
	bad8(lp->badmap, lp->zt, cu, zmv, bad);
}

GC_TARGET size_t gc_avx2_count(const struct gc_lparams *lp, size_t n, uint8_t *lv,
			       uint64_t *cnt, int *bad_ret)
{
	__m256i bad = _mm256_setzero_si256();
	uint64_t k[4] = { 0, 0, 0, 0 };
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		tally8(lp, i, lv, k, &bad);
	GC_UNROLL
	for (int l = 0; l < 4; l++)
		cnt[l] += k[l];
	*bad_ret = any_bad(bad);
	return i;
}

/* ---- tokens, levels and words ------------------------------------------------ */

/*
 * Each even 32-bit lane of @v | the odd one << the even one's width
 * (@w), as 64-bit lanes, then those joined by pairs and all four: into
 * @f the same bits as a put of each lane in turn, in one put when they
 * are 56 bits at most, else two (each half 56 at most), else four (a
 * pair must be 56 at most: codes of 15 bits, words of 24, levels of 2).
 */
GC_INLINE void put_lanes(struct gt_bitw_fast *f, __m256i v, __m256i w)
{
	const __m256i lo = _mm256_set1_epi64x(0xffffffff);
	const __m256i we = _mm256_and_si256(w, lo);
	const __m256i b1 = _mm256_or_si256(_mm256_and_si256(v, lo),
					   _mm256_sllv_epi64(_mm256_srli_epi64(v, 32), we));
	const __m256i w1 = _mm256_add_epi64(we, _mm256_srli_epi64(w, 32));
	/* lanes 0 and 2: pairs 0, 1 and 2, 3 joined; lane 0: all four */
	const __m256i b2 = _mm256_or_si256(b1, _mm256_sllv_epi64(_mm256_shuffle_epi32(b1, 0x4e),
								 w1));
	const __m256i w2 = _mm256_add_epi64(w1, _mm256_shuffle_epi32(w1, 0x4e));
	const __m256i b3 = _mm256_or_si256(b2, _mm256_sllv_epi64(_mm256_permute4x64_epi64(b2, 0x4e),
								 w2));
	const __m256i w3 = _mm256_add_epi64(w2, _mm256_permute4x64_epi64(w2, 0x4e));
	uint64_t q[16] __attribute__((aligned(32)));

	_mm256_store_si256((void *)q, b3);
	_mm256_store_si256((void *)(q + 4), w3);
	if (__builtin_expect(q[4] <= 56, 1)) {
		gt_bitw_fast_put(f, q[0], (unsigned)q[4]);
		return;
	}
	_mm256_store_si256((void *)(q + 8), b2);
	_mm256_store_si256((void *)(q + 12), w2);
	if (q[12] <= 56 && q[14] <= 56) {
		gt_bitw_fast_put(f, q[8], (unsigned)q[12]);
		gt_bitw_fast_put(f, q[10], (unsigned)q[14]);
		return;
	}
	_mm256_store_si256((void *)q, b1);
	_mm256_store_si256((void *)(q + 4), w1);
	GC_UNROLL
	for (int k = 0; k < 4; k++)
		gt_bitw_fast_put(f, q[k], (unsigned)q[4 + k]);
}

/* tab[sym] of eight symbols: from the window ep->wtab (64 codes from
 * ep->wbase on, the usual case) by eight permutes and a tree of blends
 * on the index's bits 3-5, when every lane of @use lies in it; else by a
 * gather from ep->ctab. */
GC_INLINE __m256i lookup8(const struct gc_eparams *ep, __m256i sym, __m256i use)
{
	const __m256i j = _mm256_sub_epi32(sym, I(ep->wbase));
	const __m256i b3 = _mm256_slli_epi32(j, 28), b4 = _mm256_slli_epi32(j, 27);
	const __m256i b5 = _mm256_slli_epi32(j, 26);
	__m256 r[8];

	/* outside the window: j >= 64 as unsigned */
	if (__builtin_expect(!_mm256_testz_si256(_mm256_and_si256(j, I(~63)), use), 0))
		return _mm256_i32gather_epi32((const int *)ep->ctab, sym, 4);
	GC_UNROLL
	for (int k = 0; k < 8; k++)
		r[k] = _mm256_permutevar8x32_ps(_mm256_loadu_ps((const float *)(const void *)
								(ep->wtab + 8 * k)), j);
	GC_UNROLL
	for (int k = 0; k < 8; k += 2)
		r[k] = _mm256_blendv_ps(r[k], r[k + 1], _mm256_castsi256_ps(b3));
	r[0] = _mm256_blendv_ps(r[0], r[2], _mm256_castsi256_ps(b4));
	r[4] = _mm256_blendv_ps(r[4], r[6], _mm256_castsi256_ps(b4));
	return _mm256_castps_si256(_mm256_blendv_ps(r[0], r[4], _mm256_castsi256_ps(b5)));
}

/* The values at @i in lanes @live (the others are none; @left of them
 * exist from @i): codes, the carriers' levels, words (enc16() of
 * gcomp_x86.c). */
GC_INLINE void enc8(const struct gc_eparams *ep, const uint32_t *cv, const uint8_t *lv,
		    size_t i, size_t left, unsigned live, __m256i shv, __m256i wdv,
		    struct gt_bitw_fast *cw, struct gt_bitw_fast *mw, struct gt_bitw_fast *lw)
{
	const __m256i u = left >= 8 ? _mm256_loadu_si256((const void *)(cv + i)) :
				      load_part(cv + i, left);
	const __m256i zero = _mm256_setzero_si256(), lv8 = lanes8(live);
	const __m256i ex = _mm256_and_si256(_mm256_srli_epi32(u, 23), I(0xff));
	const __m256i zmv = ep->zt ? _mm256_cmpeq_epi32(_mm256_slli_epi32(u, 1), zero) : zero;
	const __m256i zpv = _mm256_and_si256(_mm256_cmpeq_epi32(u, zero), zmv);
	const __m256i znv = _mm256_andnot_si256(zpv, zmv);
	/* carriers: not ±0.0, or one whose token carries a word */
	const __m256i mmv = _mm256_and_si256(
		_mm256_or_si256(_mm256_or_si256(_mm256_xor_si256(zmv, I(-1)),
						ep->zc[0] ? zpv : zero),
				ep->zc[1] ? znv : zero),
		lv8);
	uint64_t lb = 0;
	__m256i l, ce, w;

	memcpy(&lb, lv + i, left >= 8 ? 8 : left);
	l = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)lb));
	ce = lookup8(ep, ex, _mm256_andnot_si256(zmv, lv8));
	ce = _mm256_blendv_epi8(ce, I(ep->zent[0]), zpv);
	ce = _mm256_and_si256(_mm256_blendv_epi8(ce, I(ep->zent[1]), znv), lv8);
	put_lanes(cw, _mm256_and_si256(ce, I(0xffffff)), _mm256_srli_epi32(ce, 24));
	if (ep->lstream)
		put_lanes(lw, _mm256_and_si256(l, mmv), _mm256_and_si256(I(2), mmv));
	/* the word: (sign << 23 | mantissa) >> dropped bits, carriers only */
	w = _mm256_or_si256(_mm256_slli_epi32(_mm256_srli_epi32(u, 31), 23),
			    _mm256_and_si256(u, I(0x7fffff)));
	w = _mm256_and_si256(_mm256_srlv_epi32(w, _mm256_permutevar8x32_epi32(shv, l)), mmv);
	put_lanes(mw, w, _mm256_and_si256(_mm256_permutevar8x32_epi32(wdv, l), mmv));
}

/* The lanes of the (up to) @left values at @v that are +0.0. */
GC_INLINE unsigned zeros8(const uint32_t *v, size_t left)
{
	const __m256i zero = _mm256_setzero_si256();

	if (left >= 8)
		return bits8(_mm256_cmpeq_epi32(_mm256_loadu_si256((const void *)v), zero));
	return bits8(_mm256_cmpeq_epi32(load_part(v, left), zero)) & ((1u << left) - 1);
}

/* The +0.0 values from @j (at least 8) on, before @n. */
GC_INLINE size_t run_len(const uint32_t *cv, size_t j, size_t n)
{
	size_t p = j + 8;

	while (p < n) {
		const unsigned z = zeros8(cv + p, n - p);

		if (z != 0xff) {
			p += (size_t)__builtin_ctz(~z);
			break;
		}
		p += 8;
	}
	return (p < n ? p : n) - j;
}

/* The RUN token of @len +0.0 values as gt_huff_put_run() writes it: the
 * code, then the Elias gamma code of len - 7 (k zeros, a one, the low k
 * bits; k < 40 here). */
GC_INLINE void put_run(struct gt_bitw_fast *cw, uint64_t run_code, uint64_t len)
{
	const uint64_t v = len - 7;
	const unsigned k = 63 - (unsigned)__builtin_clzll(v);

	gt_bitw_fast_put(cw, run_code & 0xffffffff, (unsigned)(run_code >> 32) & 0xff);
	gt_bitw_fast_put(cw, UINT64_C(1) << k, k + 1);
	gt_bitw_fast_put(cw, _bzhi_u64(v, k), k);
}

GC_TARGET size_t gc_avx2_encode(const struct gc_eparams *ep, const uint32_t *cv,
				const uint8_t *lv, size_t i, size_t n, struct gt_bitw_fast *cw,
				const unsigned char *cend, struct gt_bitw_fast *mw,
				const unsigned char *mend, struct gt_bitw_fast *lw,
				const unsigned char *lend)
{
	const unsigned *sh = ep->sh, *wd = ep->wd;
	const __m256i shv = _mm256_setr_epi32((int)sh[0], (int)sh[1], (int)sh[2], (int)sh[3],
					      0, 0, 0, 0);
	const __m256i wdv = _mm256_setr_epi32((int)wd[0], (int)wd[1], (int)wd[2], (int)wd[3],
					      0, 0, 0, 0);
	struct gt_bitw_fast c = *cw, m = *mw, l = *lw;

	while (i < n && cend - c.ptr >= 128 && mend - m.ptr >= 128 && lend - l.ptr >= 128) {
		const size_t left = n - i;
		unsigned live = left >= 8 ? 0xff : (1u << left) - 1, r = 0;
		size_t len;

		if (ep->runs) {
			/* r: where 8 +0.0 start among the next eight */
			const unsigned z = zeros8(cv + i, left) |
					   (left > 8 ? zeros8(cv + i + 8, left - 8) << 8 : 0);

			r = z & z >> 1;
			r &= r >> 2;
			r &= (r >> 4) & 0xff;
			live &= r ? (1u << __builtin_ctz(r)) - 1 : 0xff;
		}
		if (live)
			enc8(ep, cv, lv, i, left, live, shv, wdv, &c, &m, &l);
		if (!r) {
			i += left < 8 ? left : 8;
			continue;
		}
		/* a stretch of 8 or more: one RUN, as enc_values() codes it */
		i += (size_t)__builtin_ctz(r);
		len = run_len(cv, i, n);
		if (len >= (UINT64_C(1) << 39))
			break;
		put_run(&c, ep->run_code, len);
		i += len;
	}
	*cw = c;
	*mw = m;
	*lw = l;
	return i;
}

/* ---- exact mode -------------------------------------------------------------- */

/* θ_t of eight values, float32, as gt_optim.c's step_*() compute it
 * (step16() of gcomp_x86.c: fmaf() as an FMA instruction, both round
 * once); @s0, @s1 the states (zeros when absent). */
GC_INLINE __m256 step8(const struct gc_sparams *sp, enum gt_optim_kind kind, __m256 g,
		       __m256 p, __m256 s0, __m256 s1)
{
	__m256 d, b, v, m, pi;

	switch (kind) {
	case GT_OPT_MOMENTUM:
	case GT_OPT_NESTEROV:
	case GT_OPT_SGD:
		d = sp->has_wd ? _mm256_fmadd_ps(p, F(sp->wd), g) : g;
		if (kind != GT_OPT_SGD) {
			b = sp->has_buf ? _mm256_fmadd_ps(d, F(sp->damp1),
							  _mm256_mul_ps(s0, F(sp->mom))) : d;
			d = kind == GT_OPT_NESTEROV ? _mm256_fmadd_ps(b, F(sp->mom), d) : b;
		}
		return _mm256_fmadd_ps(d, F(sp->neg_lr), p);
	case GT_OPT_ADAGRAD:
		d = sp->has_wd ? _mm256_fmadd_ps(p, F(sp->wd), g) : g;
		v = _mm256_fmadd_ps(d, d, s0);
		return _mm256_add_ps(p, _mm256_div_ps(_mm256_mul_ps(F(sp->neg_lr), d),
						      _mm256_add_ps(_mm256_sqrt_ps(v), F(sp->eps))));
	case GT_OPT_RMSPROP:
		d = sp->has_wd ? _mm256_fmadd_ps(p, F(sp->wd), g) : g;
		v = _mm256_fmadd_ps(_mm256_mul_ps(d, F(sp->one_alpha)), d,
				    _mm256_mul_ps(s0, F(sp->alpha)));
		return _mm256_add_ps(p, _mm256_div_ps(_mm256_mul_ps(F(sp->neg_lr), d),
						      _mm256_add_ps(_mm256_sqrt_ps(v), F(sp->eps))));
	case GT_OPT_ADAM:
	case GT_OPT_ADAMW:
		pi = kind == GT_OPT_ADAMW ? _mm256_mul_ps(p, F(sp->decay)) : p;
		d = kind == GT_OPT_ADAM && sp->has_wd ? _mm256_fmadd_ps(p, F(sp->wd), g) : g;
		m = _mm256_fmadd_ps(d, F(sp->one_b1), _mm256_mul_ps(s0, F(sp->b1)));
		v = _mm256_fmadd_ps(_mm256_mul_ps(d, F(sp->one_b2)), d, _mm256_mul_ps(s1, F(sp->b2)));
		return _mm256_add_ps(pi, _mm256_div_ps(_mm256_mul_ps(F(sp->neg_lr), m),
						       _mm256_add_ps(_mm256_div_ps(_mm256_sqrt_ps(v),
										   F(sp->bc2_sqrt)),
								     F(sp->eps))));
	case GT_OPT_NONE:
		break;
	}
	return p;
}

/* The lanes where θ_t of a candidate @x counts as the reference's @ref:
 * the same bits, or both NaN (same_theta() in gcomp.c). */
GC_INLINE unsigned same8(__m256 x, __m256 ref)
{
	return bits8(_mm256_cmpeq_epi32(_mm256_castps_si256(x), _mm256_castps_si256(ref))) |
	       ((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q)) &
		(unsigned)_mm256_movemask_ps(_mm256_cmp_ps(ref, ref, _CMP_UNORD_Q)));
}

/* One float32 lane per byte: the bytes of @m's lanes set to @k in @l. */
static inline uint64_t set_bytes(uint64_t l, unsigned m, unsigned k)
{
	const uint64_t b = spread8(m) * 0xff;

	return (l & ~b) | (b & (UINT64_C(0x0101010101010101) * k));
}

/* Exact mode's choice for eight values at @i (exact16() of gcomp_x86.c);
 * @left of them exist from @i. */
GC_INLINE void exact8(const struct gc_sparams *sp, enum gt_optim_kind kind,
		      const unsigned *lev, int prune, size_t i, size_t left, const float *g,
		      const float *p, const float *s0, const float *s1, uint8_t *lv, uint32_t *tv)
{
	const int full = left >= 8;
	const __m256i u = full ? _mm256_loadu_si256((const void *)(g + i)) : load_part(g + i, left);
	const __m256 gv = _mm256_castsi256_ps(u), z = _mm256_setzero_ps();
	const __m256 pv = full ? _mm256_loadu_ps(p + i) :
				 _mm256_castsi256_ps(load_part(p + i, left));
	const __m256 a0 = !s0 ? z : full ? _mm256_loadu_ps(s0 + i) :
					   _mm256_castsi256_ps(load_part(s0 + i, left));
	const __m256 a1 = !s1 ? z : full ? _mm256_loadu_ps(s1 + i) :
					   _mm256_castsi256_ps(load_part(s1 + i, left));
	const __m256 ref = step8(sp, kind, gv, pv, a0, a1);
	const __m256i em = I(0x7f800000);
	const unsigned inf = bits8(_mm256_cmpeq_epi32(_mm256_and_si256(u, em), em));
	const unsigned zero = bits8(_mm256_cmpeq_epi32(_mm256_and_si256(u, I(0x7fffffff)),
						       _mm256_setzero_si256()));
	unsigned open = ~(inf | zero) & 0xff, hit;
	uint64_t l = spread8(zero) * 3;
	__m256i c;

	if (prune) {
		/* a zero of the value's sign: coded as its token, level 3 */
		c = _mm256_and_si256(u, I(0x80000000u));
		hit = open & same8(step8(sp, kind, _mm256_castsi256_ps(c), pv, a0, a1), ref);
		c = _mm256_blendv_epi8(u, c, lanes8(hit));
		if (full)
			_mm256_storeu_si256((void *)(tv + i), c);
		else
			_mm256_maskstore_epi32((int *)(tv + i), lanes8((1u << left) - 1), c);
		l = set_bytes(l, hit, 3);
		open &= ~hit;
	}
	/* every candidate, without a branch on the lanes still open: the
	 * branch waited for the division and was mispredicted */
	for (int k = 3; k >= 1; k--) {
		c = _mm256_and_si256(u, I(~0u << lev[k]));
		hit = open & same8(step8(sp, kind, _mm256_castsi256_ps(c), pv, a0, a1), ref);
		l = set_bytes(l, hit, (unsigned)k);
		open &= ~hit;
	}
	memcpy(lv + i, &l, full ? 8 : left);
}

GC_INLINE void exact_kind(const struct gc_sparams *sp, enum gt_optim_kind kind,
			  const unsigned *lev, int prune, size_t n, const float *g,
			  const float *p, const float *s0, const float *s1, uint8_t *lv,
			  uint32_t *tv)
{
	for (size_t i = 0; i < n; i += 8) {
		if (!(i & 8)) {
			_mm_prefetch((const char *)(p + i + GC_AHEAD), _MM_HINT_T0);
			if (s0)
				_mm_prefetch((const char *)(s0 + i + GC_AHEAD), _MM_HINT_T0);
			if (s1)
				_mm_prefetch((const char *)(s1 + i + GC_AHEAD), _MM_HINT_T0);
		}
		exact8(sp, kind, lev, prune, i, n - i, g, p, s0, s1, lv, tv);
	}
}

GC_TARGET void gc_avx2_exact(const struct gc_sparams *sp, const unsigned *lev, int prune,
			     size_t n, const float *g, const float *p, const float *s0,
			     const float *s1, uint8_t *lv, uint32_t *tv)
{
	switch (sp->kind) {
	case GT_OPT_MOMENTUM:
		exact_kind(sp, GT_OPT_MOMENTUM, lev, prune, n, g, p, s0, s1, lv, tv);
		return;
	case GT_OPT_NESTEROV:
		exact_kind(sp, GT_OPT_NESTEROV, lev, prune, n, g, p, s0, s1, lv, tv);
		return;
	case GT_OPT_ADAGRAD:
		exact_kind(sp, GT_OPT_ADAGRAD, lev, prune, n, g, p, s0, s1, lv, tv);
		return;
	case GT_OPT_RMSPROP:
		exact_kind(sp, GT_OPT_RMSPROP, lev, prune, n, g, p, s0, s1, lv, tv);
		return;
	case GT_OPT_ADAM:
		exact_kind(sp, GT_OPT_ADAM, lev, prune, n, g, p, s0, s1, lv, tv);
		return;
	case GT_OPT_ADAMW:
		exact_kind(sp, GT_OPT_ADAMW, lev, prune, n, g, p, s0, s1, lv, tv);
		return;
	case GT_OPT_SGD:
	case GT_OPT_NONE:
		break;
	}
	exact_kind(sp, GT_OPT_SGD, lev, prune, n, g, p, s0, s1, lv, tv);
}

/* Whether any of @n f32 values at @v is subnormal (four vectors, two
 * lines, at a time, prefetching ahead). */
GC_TARGET int gc_avx2_has_sub(const uint32_t *v, size_t n)
{
	const __m256i em = I(0x7f800000), mm = I(0x7fffff), zero = _mm256_setzero_si256();
	size_t i = 0;

	for (; i + 32 <= n; i += 32) {
		__m256i any = zero;

		_mm_prefetch((const char *)(v + i + 4 * GC_AHEAD), _MM_HINT_T0);
		_mm_prefetch((const char *)(v + i + 4 * GC_AHEAD + 16), _MM_HINT_T0);
		GC_UNROLL
		for (int k = 0; k < 4; k++) {
			const __m256i u = _mm256_loadu_si256((const void *)(v + i + 8 * k));
			const __m256i e0 = _mm256_cmpeq_epi32(_mm256_and_si256(u, em), zero);
			const __m256i m0 = _mm256_cmpeq_epi32(_mm256_and_si256(u, mm), zero);

			any = _mm256_or_si256(any, _mm256_andnot_si256(m0, e0));
		}
		if (!_mm256_testz_si256(any, any))
			return 1;
	}
	for (; i < n; i++)
		if (!(v[i] & 0x7f800000u) && (v[i] & 0x7fffffu))
			return 1;
	return 0;
}

#else /* no x86-64: the scalar path only (gc_isa_runs() says so) */

size_t gc_avx2_levels(const struct gc_dplan *q, const struct gc_lparams *lp, size_t n,
		      const float *g, const float *p, const float *s0, const float *s1,
		      uint8_t *lv, uint64_t *cnt, int *bad_ret)
{
	(void)q, (void)lp, (void)n, (void)g, (void)p, (void)s0, (void)s1, (void)lv, (void)cnt;
	*bad_ret = 0;
	return 0;
}

size_t gc_avx2_encode(const struct gc_eparams *ep, const uint32_t *cv, const uint8_t *lv,
		      size_t i, size_t n, struct gt_bitw_fast *cw, const unsigned char *cend,
		      struct gt_bitw_fast *mw, const unsigned char *mend,
		      struct gt_bitw_fast *lw, const unsigned char *lend)
{
	(void)ep, (void)cv, (void)lv, (void)n, (void)cw, (void)cend, (void)mw;
	(void)mend, (void)lw, (void)lend;
	return i;
}

size_t gc_avx2_count(const struct gc_lparams *lp, size_t n, uint8_t *lv, uint64_t *cnt,
		     int *bad_ret)
{
	(void)lp, (void)n, (void)lv, (void)cnt;
	*bad_ret = 0;
	return 0;
}

void gc_avx2_exact(const struct gc_sparams *sp, const unsigned *lev, int prune, size_t n,
		   const float *g, const float *p, const float *s0, const float *s1,
		   uint8_t *lv, uint32_t *tv)
{
	(void)sp, (void)lev, (void)prune, (void)n, (void)g, (void)p, (void)s0, (void)s1;
	(void)lv, (void)tv;
}

int gc_avx2_has_sub(const uint32_t *v, size_t n)
{
	(void)v, (void)n;
	return 0;
}

#endif
