/* gcomp_x86.c - gcomp's AVX-512 encoder kernels: levels by δ, tokens */

/* δ must round as gt_optim_delta() rounds: no contraction into FMAs */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h>
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
 * Both kernels reorganize loops of gcomp.c and nothing else: the level
 * kernel evaluates δ's N with the same double operations in the same
 * order, eight lanes at a time (an IEEE operation rounds the same in a
 * vector lane), and fuses the exponent fix-ups and the carrier count of
 * count_part(); the token kernel writes the same bit sequence as
 * enc_quad(), in pairs merged in vector lanes.  test_gcomp.c compares
 * their bytes with the scalar path's (isa=scalar).
 */

#ifdef GC_X86

#define GC_TARGET __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,bmi,bmi2,popcnt,fma")))
#define GC_INLINE static inline __attribute__((always_inline)) GC_TARGET
/* gcc -O2 keeps short loops over vectors as loops, through the stack */
#define GC_UNROLL _Pragma("GCC unroll 16")
#define GC_AHEAD 256 /* values */

int gc_isa_runs(enum gc_isa isa)
{
	__builtin_cpu_init();
	switch (isa) {
	case GC_ISA_SCALAR:
		return 1;
	case GC_ISA_AVX2: /* and FMA: exact mode's steps round as fmaf() */
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
		       __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
	case GC_ISA_AVX512:
		return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
		       __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2") &&
		       __builtin_cpu_supports("popcnt");
	}
	return 0;
}

enum gc_isa gc_isa_detect(void)
{
	if (gc_isa_runs(GC_ISA_AVX512))
		return GC_ISA_AVX512;
	return gc_isa_runs(GC_ISA_AVX2) ? GC_ISA_AVX2 : GC_ISA_SCALAR;
}

#define B(x) _mm512_set1_pd(x)

/* The square root of @x: exact (sqrt(), as gt_optim_delta), or @approx
 * x rsqrt14(x), relative error < 2^-14 + 2^-52 (NaN for x <= 0). */
GC_INLINE __m512d root(__m512d x, int approx)
{
	return approx ? _mm512_mul_pd(x, _mm512_rsqrt14_pd(x)) : _mm512_sqrt_pd(x);
}

/* y / bc2: exact, or @approx y (1/bc2) (relative error < 2^-51). */
GC_INLINE __m512d by_bc2(const struct gc_dplan *q, __m512d y, int approx)
{
	return approx ? _mm512_mul_pd(y, B(q->ibc2)) : _mm512_div_pd(y, B(q->bc2));
}

/*
 * N = A − B of eight values, A and B by the expressions of delta_num() in
 * gcomp.c, in the same order (B = 0 where N has no subtracted term: N is
 * A then).  @approx: root() and by_bc2() approximate, which changes A by
 * a relative 2^-13.9 at most (A is a product of the root plus ε ≥ 0 and
 * of exact factors) and leaves B exact.
 */
GC_INLINE __m512d num8(const struct gc_dplan *q, enum gt_optim_kind kind, int approx,
		       __m512d g, __m512d th, __m512d s0, __m512d s1, __m512d *b_ret)
{
	const __m512d z = _mm512_setzero_pd();
	__m512d d, x;

	*b_ret = z;
	switch (kind) {
	case GT_OPT_MOMENTUM:
		*b_ret = q->first ? z : _mm512_mul_pd(B(q->a1), s0);
		return th;
	case GT_OPT_NESTEROV:
		*b_ret = _mm512_mul_pd(B(q->a2), s0);
		return _mm512_mul_pd(B(q->a1), th);
	case GT_OPT_ADAGRAD: /* s0 + d d */
		d = _mm512_add_pd(g, _mm512_mul_pd(B(q->lam), th));
		x = _mm512_add_pd(s0, _mm512_mul_pd(d, d));
		return _mm512_mul_pd(th, _mm512_add_pd(root(x, approx), B(q->eps)));
	case GT_OPT_RMSPROP: /* a1 s0 + (a2 d) d */
		d = _mm512_add_pd(g, _mm512_mul_pd(B(q->lam), th));
		x = _mm512_add_pd(_mm512_mul_pd(B(q->a1), s0),
				  _mm512_mul_pd(_mm512_mul_pd(B(q->a2), d), d));
		return _mm512_mul_pd(th, _mm512_add_pd(root(x, approx), B(q->eps)));
	case GT_OPT_ADAM: /* (a1 s1 + (a2 d) d) / bc2; (θ (r + ε)) bc1 − a3 s0 */
		d = _mm512_add_pd(g, _mm512_mul_pd(B(q->lam), th));
		x = by_bc2(q, _mm512_add_pd(_mm512_mul_pd(B(q->a1), s1),
					    _mm512_mul_pd(_mm512_mul_pd(B(q->a2), d), d)), approx);
		x = _mm512_mul_pd(th, _mm512_add_pd(root(x, approx), B(q->eps)));
		*b_ret = _mm512_mul_pd(B(q->a3), s0);
		return _mm512_mul_pd(x, B(q->bc1));
	case GT_OPT_ADAMW: /* (a1 s1 + (a2 g) g) / bc2; ((θ a4)(r + ε)) bc1 − a3 s0 */
		x = by_bc2(q, _mm512_add_pd(_mm512_mul_pd(B(q->a1), s1),
					    _mm512_mul_pd(_mm512_mul_pd(B(q->a2), g), g)), approx);
		x = _mm512_mul_pd(_mm512_mul_pd(th, B(q->a4)),
				  _mm512_add_pd(root(x, approx), B(q->eps)));
		*b_ret = _mm512_mul_pd(B(q->a3), s0);
		return _mm512_mul_pd(x, B(q->bc1));
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

/* Whether @kind's δ takes a square root. */
static inline int has_root(enum gt_optim_kind kind)
{
	return kind == GT_OPT_ADAGRAD || kind == GT_OPT_RMSPROP || kind == GT_OPT_ADAM ||
	       kind == GT_OPT_ADAMW;
}

/* The eight lanes of @g, @p, @s0, @s1 (absent states: zeros) as doubles. */
struct in8 {
	__m512d g, th, s0, s1;
};

GC_INLINE struct in8 load8(const float *g, const float *p, const float *s0, const float *s1)
{
	const __m512d z = _mm512_setzero_pd();
	struct in8 v;

	v.g = _mm512_cvtps_pd(_mm256_loadu_ps(g));
	v.th = _mm512_cvtps_pd(_mm256_loadu_ps(p));
	v.s0 = s0 ? _mm512_cvtps_pd(_mm256_loadu_ps(s0)) : z;
	v.s1 = s1 ? _mm512_cvtps_pd(_mm256_loadu_ps(s1)) : z;
	return v;
}

/* Level masks (a > b t_k) of eight values exactly as delta_levels():
 * byte k-1 of the result holds the lanes' tests against t_k. */
GC_INLINE uint32_t lev8_exact(const struct gc_dplan *q, enum gt_optim_kind kind,
			      const struct in8 *v)
{
	__m512d bt, num = num8(q, kind, 0, v->g, v->th, v->s0, v->s1, &bt), a, b;
	__mmask8 m1, m2, m3;

	if (has_b(q, kind))
		num = _mm512_sub_pd(num, bt);
	if (q->quot) {
		/* |N/(K g) − (λθ)/g| against 1 t_k = t_k */
		a = _mm512_sub_pd(_mm512_div_pd(num, _mm512_mul_pd(B(q->K), v->g)),
				  _mm512_div_pd(_mm512_mul_pd(B(q->lam), v->th), v->g));
		a = _mm512_abs_pd(a);
		m1 = _mm512_cmp_pd_mask(a, B(q->t1), _CMP_GT_OQ);
		m2 = _mm512_cmp_pd_mask(a, B(q->t2), _CMP_GT_OQ);
		m3 = _mm512_cmp_pd_mask(a, B(q->t3), _CMP_GT_OQ);
	} else {
		if (q->qz)
			num = _mm512_add_pd(num, _mm512_sub_pd(v->th, v->th));
		a = _mm512_abs_pd(num);
		b = _mm512_abs_pd(_mm512_mul_pd(v->g, B(q->K)));
		m1 = _mm512_cmp_pd_mask(a, _mm512_mul_pd(b, B(q->t1)), _CMP_GT_OQ);
		m2 = _mm512_cmp_pd_mask(a, _mm512_mul_pd(b, B(q->t2)), _CMP_GT_OQ);
		m3 = _mm512_cmp_pd_mask(a, _mm512_mul_pd(b, B(q->t3)), _CMP_GT_OQ);
	}
	return (uint32_t)m1 | (uint32_t)m2 << 8 | (uint32_t)m3 << 16;
}

/*
 * The filter: the tests of lev8_exact() with root() and the divisions
 * approximated; a test is taken when |a' − R| > E, else the eight lanes
 * are done exactly.  Bound, with S = |A'| + |B|: the reference N_d and
 * N' = A' − B differ by at most 2^-13.9 |A| + 2^-53 (|N_d| + |N'|) <
 * 2^-12.9 S.  Without a quotient R = b t_k is the reference's own double
 * (the same operations) and a' = |N' (+ θ − θ)|, so |a' − a_d| < 2^-12.9 S;
 * with one, a = |N/(Kg) − (λθ)/g| with rcp14 (relative error < 2^-14) for
 * both divisions: |a' − a_d| < 2^-12.3 (S |1/(Kg)|' + |Q2'|).  E is 2^-11
 * times those, a margin of 2.5 that also covers the rounding of a' − R.
 * A NaN or Inf anywhere (x <= 0 under the root, θ infinite) fails the
 * test (ordered compares), so those lanes are done exactly too.
 */
GC_INLINE uint32_t lev8(const struct gc_dplan *q, enum gt_optim_kind kind,
			const float *g, const float *p, const float *s0, const float *s1)
{
	const struct in8 v = load8(g, p, s0, s1);
	const __m256i ge = _mm256_and_si256(_mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)
										 (const void *)g), 23),
					    _mm256_set1_epi32(0xff));
	/* lanes whose level counts: g neither zero, subnormal, Inf nor NaN */
	const __mmask8 valid = _mm256_cmpneq_epi32_mask(ge, _mm256_setzero_si256()) &
			       _mm256_cmpneq_epi32_mask(ge, _mm256_set1_epi32(0xff));
	__m512d bt, num, a, e, r1, r2, r3;
	__mmask8 sure;

	if (!has_root(kind) && !q->quot)
		return lev8_exact(q, kind, &v); /* no root, no division: cheap */
	num = num8(q, kind, 1, v.g, v.th, v.s0, v.s1, &bt);
	e = _mm512_add_pd(_mm512_abs_pd(num), _mm512_abs_pd(bt));
	if (has_b(q, kind))
		num = _mm512_sub_pd(num, bt);
	if (q->quot) {
		const __m512d rk = _mm512_rcp14_pd(_mm512_mul_pd(B(q->K), v.g));
		const __m512d q2 = _mm512_mul_pd(_mm512_mul_pd(B(q->lam), v.th),
						 _mm512_rcp14_pd(v.g));

		a = _mm512_abs_pd(_mm512_sub_pd(_mm512_mul_pd(num, rk), q2));
		e = _mm512_add_pd(_mm512_mul_pd(e, _mm512_abs_pd(rk)), _mm512_abs_pd(q2));
		r1 = B(q->t1);
		r2 = B(q->t2);
		r3 = B(q->t3);
	} else {
		const __m512d b = _mm512_abs_pd(_mm512_mul_pd(v.g, B(q->K)));

		if (q->qz)
			num = _mm512_add_pd(num, _mm512_sub_pd(v.th, v.th));
		a = _mm512_abs_pd(num);
		r1 = _mm512_mul_pd(b, B(q->t1));
		r2 = _mm512_mul_pd(b, B(q->t2));
		r3 = _mm512_mul_pd(b, B(q->t3));
	}
	e = _mm512_mul_pd(e, B(0x1p-11));
	sure = _mm512_cmp_pd_mask(_mm512_abs_pd(_mm512_sub_pd(a, r1)), e, _CMP_GT_OQ) &
	       _mm512_cmp_pd_mask(_mm512_abs_pd(_mm512_sub_pd(a, r2)), e, _CMP_GT_OQ) &
	       _mm512_cmp_pd_mask(_mm512_abs_pd(_mm512_sub_pd(a, r3)), e, _CMP_GT_OQ);
	if ((sure & valid) != valid)
		return lev8_exact(q, kind, &v);
	return (uint32_t)_mm512_cmp_pd_mask(a, r1, _CMP_GT_OQ) |
	       (uint32_t)_mm512_cmp_pd_mask(a, r2, _CMP_GT_OQ) << 8 |
	       (uint32_t)_mm512_cmp_pd_mask(a, r3, _CMP_GT_OQ) << 16;
}

/*
 * A second filter in front of lev8(), sixteen lanes in float32, for the
 * kinds whose N takes a root and has no Q term (AdaGrad, RMSProp, Adam
 * with λ = 0; AdamW): N is scaled by 2^S (exact) so that |K g| t_k sits
 * near 1, and with R = √x + ε
 *
 *	x = (c_x0 s + (c_x1 g) g) c_x2,   A = (θ c_A) R,   B = c_B s0,
 *	a' = |A − B|,   r'_k = |g| c_k,   c_k = |K| 2^S t_k,
 *
 * each constant the double of gc_dplan rounded to float (relative error
 * u = 2^-24), ε ≤ 1.  Guards (fplan_bounds(): a range of g's exponent
 * field): a state s ≥ 0 (no cancellation in x; a negative one makes x
 * NaN), x ≥ c_x1 g² ≥ 2^-100 (its terms' underflow, 2^-150 at most, is
 * below 2^-50 of it), 2^-60 ≤ r'_1 ≤ r'_3 ≤ 2^100.  With rsqrt14's
 * 2^-14, R' is within 2^-14 + 6u of R, A' within 2^-14 + 10u of A, B'
 * within 3u of B, the reference's doubles within 2^-50, and underflow
 * adds τ ≤ 2^-84 at most (θ c_A below 2^-126: 2^-150 R' with R' ≤ 2^64 +
 * ε; A', B' below it: 2^-150), so |a' − 2^S a_d| < (|A'| + |B'|)(2^-14 +
 * 13u) + τ; r'_k is within 3u of 2^S b_d t_k.  The test is taken where
 * a' ± E, E = 2^-12 (|A'| + |B'|), fall on the same side of every r'_k:
 * where r'_k ≤ 2(|A'| + |B'|) (so |A'| + |B'| ≥ 2^-61, τ below 2^-23 of
 * it), E covers both errors 3.9 times over; where r'_k is larger,
 * r'_k − a' > r'_k / 2 does.  The rounding of a' ± E adds u a' at most.
 * Any NaN or Inf makes a lane unsure (ordered compares), and unsure
 * lanes go through lev8().
 */
/* struct gc_fplan (gcomp_simd.h) holds the constants and the guards. */

/* The least exponent field e with 2^(e - 127) >= @x > 0 (or above it). */
static int field_at_least(double x)
{
	int k;

	(void)frexp(x, &k); /* x < 2^k */
	return 127 + k;
}

/* Whether @x is 0 or a normal float magnitude in [2^-100, 2^100]. */
static int fnice(double x, int zero_ok)
{
	x = fabs(x);
	return (zero_ok && !(x > 0)) || (x >= 0x1p-100 && x <= 0x1p100);
}

/*
 * The guards of lev16f() on g as a range of its exponent field: |g| at
 * least both of √(2^-100 / c_x1) (then x ≥ c_x1 g² ≥ 2^-100 for a state
 * ≥ 0) and 2^-60 / c_1 (r'_1 ≥ 2^-60), |g| c_3 below 2^100; each rounded
 * the safe way.
 */
static void fplan_bounds(struct gc_fplan *f)
{
	const double lx = sqrt(0x1p-100 / f->x1), lr = 0x1p-60 / f->c1;
	int lo = field_at_least(lx > lr ? lx : lr), hi;

	(void)frexp(0x1p100 / f->c3, &hi); /* |g| < 2^(hi - 1) ≤ 2^100 / c_3 */
	hi += 125;
	lo = lo < 1 ? 1 : lo;
	hi = hi > 254 ? 254 : hi;
	if (lo > hi) {
		f->on = 0;
		return;
	}
	f->glo = (uint32_t)lo;
	f->gspan = (uint32_t)(hi - lo);
}

void gc_fplan_init(struct gc_fplan *f, const struct gc_dplan *q)
{
	const int adam = q->kind == GT_OPT_ADAM || q->kind == GT_OPT_ADAMW;
	int e, s;

	memset(f, 0, sizeof(*f));
	if (q->quot || !has_root(q->kind) || !(q->eps >= 0 && q->eps <= 1))
		return;
	/* 2^S |K| t_k: t_1 and t_3 either side of 1 */
	(void)frexp(q->K, &e);
	s = -e - (ilogb(q->t1) + ilogb(q->t3)) / 2;
	f->x0 = (float)(q->kind == GT_OPT_ADAGRAD ? 1 : q->a1);
	f->x1 = (float)(q->kind == GT_OPT_ADAGRAD ? 1 : q->a2);
	f->x2 = (float)(adam ? q->ibc2 : 1);
	f->ca = (float)ldexp(q->kind == GT_OPT_ADAMW ? q->a4 * q->bc1 :
			     q->kind == GT_OPT_ADAM ? q->bc1 : 1, s);
	f->cb = (float)ldexp(adam ? q->a3 : 0, s);
	f->eps = (float)q->eps;
	f->c1 = (float)fabs(ldexp(q->K, s) * q->t1);
	f->c2 = (float)fabs(ldexp(q->K, s) * q->t2);
	f->c3 = (float)fabs(ldexp(q->K, s) * q->t3);
	f->on = fnice(f->x0, 0) && fnice(f->x1, 0) && fnice(f->x2, 0) && fnice(f->ca, 0) &&
		fnice(f->cb, 1) && fnice(f->c1, 0) && fnice(f->c3, 0) && fnice(f->eps, 1);
	if (f->on)
		fplan_bounds(f);
}

#define FS(x) _mm512_set1_ps(x)

/*
 * The level masks of the sixteen values at @g (bit i of *@m[k-1]: value
 * i's test against t_k) by the float32 filter; 0 where a lane of @valid
 * is unsure (the masks are then not set).
 */
GC_INLINE int lev16f(const struct gc_fplan *f, enum gt_optim_kind kind, __mmask16 valid,
		     __m512i ge, const float *g, const float *p, const float *s0,
		     const float *s1, __mmask16 *m)
{
	const __m512 z = _mm512_setzero_ps(), gv = _mm512_loadu_ps(g), th = _mm512_loadu_ps(p);
	const __m512 a0 = s0 ? _mm512_loadu_ps(s0) : z, a1 = s1 ? _mm512_loadu_ps(s1) : z;
	const __m512 s = kind == GT_OPT_ADAM || kind == GT_OPT_ADAMW ? a1 : a0;
	const __m512 ag = _mm512_abs_ps(gv);
	__m512 x, r, a, b, e, lo, hi, rk[3], rs;
	__mmask16 ok, sure;

	x = _mm512_fmadd_ps(_mm512_mul_ps(FS(f->x1), gv), gv, _mm512_mul_ps(FS(f->x0), s));
	if (kind == GT_OPT_ADAM || kind == GT_OPT_ADAMW)
		x = _mm512_mul_ps(x, FS(f->x2));
	/* a state below 0 (or -0): x NaN, so the lane is unsure below */
	x = _mm512_castsi512_ps(_mm512_ternarylogic_epi32(
		_mm512_castps_si512(x), _mm512_srai_epi32(_mm512_castps_si512(s), 31),
		_mm512_set1_epi32(0x7fc00000), 0xf8)); /* x | (sign & NaN) */
	r = _mm512_add_ps(_mm512_mul_ps(x, _mm512_rsqrt14_ps(x)), FS(f->eps));
	a = _mm512_mul_ps(_mm512_mul_ps(th, FS(f->ca)), r);
	b = kind == GT_OPT_ADAM || kind == GT_OPT_ADAMW ? _mm512_mul_ps(FS(f->cb), a0) : z;
	e = _mm512_mul_ps(_mm512_add_ps(_mm512_abs_ps(a), _mm512_abs_ps(b)), FS(0x1p-12f));
	a = _mm512_abs_ps(_mm512_sub_ps(a, b));
	lo = _mm512_sub_ps(a, e);
	hi = _mm512_add_ps(a, e);
	rk[0] = _mm512_mul_ps(ag, FS(f->c1));
	rk[1] = _mm512_mul_ps(ag, FS(f->c2));
	rk[2] = _mm512_mul_ps(ag, FS(f->c3));
	/* g in range (fplan_bounds()), a' ± E not NaN */
	ok = _mm512_cmple_epu32_mask(_mm512_sub_epi32(ge, _mm512_set1_epi32((int)f->glo)),
				     _mm512_set1_epi32((int)f->gspan));
	ok = _mm512_mask_cmp_ps_mask(ok, hi, lo, _CMP_GE_OQ);
	GC_UNROLL
	for (int k = 0; k < 3; k++)
		m[k] = _mm512_cmp_ps_mask(hi, rk[k], _CMP_GT_OQ);
	/* the highest r'_k below a' + E must lie below a' - E too (the r'_k
	 * are 2 or more apart, a' ± E within 2^-11) */
	rs = _mm512_mask_mov_ps(_mm512_mask_mov_ps(rk[0], m[1], rk[1]), m[2], rk[2]);
	sure = (__mmask16)~m[0] | _mm512_mask_cmp_ps_mask(m[0], lo, rs, _CMP_GT_OQ);
	return !(valid & (__mmask16)~(ok & sure));
}

/* The level masks of the sixteen values at @g (lanes @gv: g neither
 * zero, subnormal, Inf nor NaN) as bits 0-15, 16-31, 32-47: t_1, t_2,
 * t_3; the float32 filter, else lev8()'s. */
GC_INLINE uint64_t masks16(const struct gc_dplan *q, const struct gc_fplan *f,
			   enum gt_optim_kind kind, __mmask16 gv, __m512i ge, const float *g,
			   const float *p, const float *s0, const float *s1)
{
	uint32_t lo, hi;
	__mmask16 m[3];

	if (f->on && lev16f(f, kind, gv, ge, g, p, s0, s1, m))
		return m[0] | (uint64_t)m[1] << 16 | (uint64_t)m[2] << 32;
	lo = lev8(q, kind, g, p, s0, s1);
	hi = lev8(q, kind, g + 8, p + 8, s0 ? s0 + 8 : NULL, s1 ? s1 + 8 : NULL);
	return (lo & 0xff) | (hi & 0xff) << 8 | (uint64_t)((lo >> 8 & 0xff) | (hi & 0xff00)) << 16 |
	       (uint64_t)((lo >> 16 & 0xff) | (hi >> 8 & 0xff00)) << 32;
}

/* Levels and carrier counts of sixteen values at @i (see the header). */
GC_INLINE void lev16(const struct gc_dplan *q, const struct gc_fplan *f,
		     enum gt_optim_kind kind, const struct gc_lparams *lp, size_t i,
		     const float *g, const float *p, const float *s0, const float *s1,
		     uint8_t *lv, uint64_t *cnt, __m512i *bad)
{
	const __m512i ff = _mm512_set1_epi32(0xff), zero = _mm512_setzero_si512();
	const __m512i e = _mm512_and_si512(_mm512_srli_epi32(_mm512_loadu_si512(g + i), 23), ff);
	const __mmask16 gv = _mm512_cmpneq_epi32_mask(e, zero) & _mm512_cmpneq_epi32_mask(e, ff);
	const uint64_t m = masks16(q, f, kind, gv, e, g + i, p + i, s0 ? s0 + i : NULL,
				   s1 ? s1 + i : NULL);
	const __m512i cu = _mm512_loadu_si512(lp->cv + i);
	const __mmask16 zm = _mm512_cmpeq_epi32_mask(_mm512_slli_epi32(cu, 1), zero);
	const __mmask16 zp = _mm512_cmpeq_epi32_mask(cu, zero);
	const __mmask16 v = gv & (__mmask16)~zm;
	const __mmask16 zl1 = lp->zl >= 1 ? zm : 0, zl2 = lp->zl >= 2 ? zm : 0;
	const __mmask16 zl3 = lp->zl >= 3 ? zm : 0;
	const __mmask16 carry = (__mmask16)(~zm | (lp->zc[0] ? zp : 0) |
					    (lp->zc[1] ? zm & ~zp : 0));
	const __m128i one = _mm_set1_epi8(1);
	/* lanes of level >= 1, 2, 3 (each inside the one before) */
	const __mmask16 l1 = (__mmask16)(m & v) | zl1, l2 = (__mmask16)(m >> 16 & v) | zl2;
	const __mmask16 l3 = (__mmask16)(m >> 32 & v) | zl3;
	__m512i sym = _mm512_and_si512(_mm512_srli_epi32(cu, 23), ff), w;
	__m128i l;

	l = _mm_maskz_mov_epi8(l1, one);
	l = _mm_add_epi8(l, _mm_maskz_mov_epi8(l2, one));
	l = _mm_add_epi8(l, _mm_maskz_mov_epi8(l3, one));
	_mm_storeu_si128((__m128i *)(void *)(lv + i), l);
	/* carriers at level >= k (levels_kind() takes the differences) */
	cnt[0] += (uint64_t)__builtin_popcount(carry);
	cnt[1] += (uint64_t)__builtin_popcount(l1 & carry);
	cnt[2] += (uint64_t)__builtin_popcount(l2 & carry);
	cnt[3] += (uint64_t)__builtin_popcount(l3 & carry);
	if (!lp->badmap)
		return; /* every symbol of the block has a code */
	/* the symbol's entry in the map of symbols without a code */
	if (lp->zt)
		sym = _mm512_mask_or_epi32(sym, zm, sym,
					   _mm512_add_epi32(_mm512_set1_epi32(256),
							    _mm512_srli_epi32(cu, 31)));
	w = _mm512_permutexvar_epi32(_mm512_srli_epi32(sym, 5), _mm512_loadu_si512(lp->badmap));
	*bad = _mm512_or_si512(*bad, _mm512_srlv_epi32(w, _mm512_and_si512(sym, _mm512_set1_epi32(31))));
}

GC_INLINE size_t levels_kind(const struct gc_dplan *q, enum gt_optim_kind kind,
			     const struct gc_lparams *lp, size_t n, const float *g,
			     const float *p, const float *s0, const float *s1, uint8_t *lv,
			     uint64_t *cnt, int *bad_ret)
{
	__m512i bad = _mm512_setzero_si512();
	uint64_t k[4] = { 0, 0, 0, 0 };
	struct gc_fplan f;
	size_t i = 0;

	gc_fplan_init(&f, q);
	for (; i + 16 <= n; i += 16) {
		/* θ and the states come once from memory: ask 1 KiB ahead;
		 * g too (nothing before this pass reads a chunk of a clean
		 * block: gcomp.c, clean_block()) */
		_mm_prefetch((const char *)(g + i + GC_AHEAD), _MM_HINT_T0);
		_mm_prefetch((const char *)(p + i + GC_AHEAD), _MM_HINT_T0);
		if (s0)
			_mm_prefetch((const char *)(s0 + i + GC_AHEAD), _MM_HINT_T0);
		if (s1)
			_mm_prefetch((const char *)(s1 + i + GC_AHEAD), _MM_HINT_T0);
		lev16(q, &f, kind, lp, i, g, p, s0, s1, lv, k, &bad);
	}
	GC_UNROLL
	for (int l = 0; l < 4; l++)
		cnt[l] += k[l] - (l < 3 ? k[l + 1] : 0);
	*bad_ret = _mm512_test_epi32_mask(bad, _mm512_set1_epi32(1)) != 0;
	return i;
}

GC_TARGET size_t gc_avx512_levels(const struct gc_dplan *q, const struct gc_lparams *lp,
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

/* Swap the two 64-bit lanes of each 128-bit lane. */
#define SWAP64(x) _mm512_shuffle_epi32((x), _MM_PERM_BADC)

/* tab[sym] of sixteen symbols < 256: eight two-register permutes, then
 * the one of sym's bits 5-7 (no gather: it costs more than this). */
GC_INLINE __m512i lookup16(const uint32_t *tab, __m512i sym)
{
	const __mmask16 b5 = _mm512_test_epi32_mask(sym, _mm512_set1_epi32(32));
	const __mmask16 b6 = _mm512_test_epi32_mask(sym, _mm512_set1_epi32(64));
	const __mmask16 b7 = _mm512_test_epi32_mask(sym, _mm512_set1_epi32(128));
	__m512i r[8];

	GC_UNROLL
	for (int k = 0; k < 8; k++)
		r[k] = _mm512_permutex2var_epi32(_mm512_loadu_si512(tab + 32 * k), sym,
						 _mm512_loadu_si512(tab + 32 * k + 16));
	GC_UNROLL
	for (int k = 0; k < 8; k += 2)
		r[k] = _mm512_mask_blend_epi32(b5, r[k], r[k + 1]);
	r[0] = _mm512_mask_blend_epi32(b6, r[0], r[2]);
	r[4] = _mm512_mask_blend_epi32(b6, r[4], r[6]);
	return _mm512_mask_blend_epi32(b7, r[0], r[4]);
}

/* tab[sym] of sixteen symbols: two permutes when every lane of @use
 * lies in the window ep->wtab (the usual case), else lookup16(). */
GC_INLINE __m512i lookup_win(const struct gc_eparams *ep, __m512i sym, __mmask16 use)
{
	const __m512i j = _mm512_sub_epi32(sym, _mm512_set1_epi32((int)ep->wbase));
	const __mmask16 in = _mm512_cmplt_epu32_mask(j, _mm512_set1_epi32(64));

	if (__builtin_expect((use & ~in) != 0, 0))
		return lookup16(ep->ctab, sym);
	return _mm512_mask_blend_epi32(
		_mm512_test_epi32_mask(j, _mm512_set1_epi32(32)),
		_mm512_permutex2var_epi32(_mm512_loadu_si512(ep->wtab), j,
					  _mm512_loadu_si512(ep->wtab + 16)),
		_mm512_permutex2var_epi32(_mm512_loadu_si512(ep->wtab + 32), j,
					  _mm512_loadu_si512(ep->wtab + 48)));
}

/* Each even 32-bit lane of @v | the odd one << the even one's width
 * (@w), as 64-bit lanes: the bit string of a pair of values, and their
 * width (<= 63) in bits 58-63. */
GC_INLINE __m512i pair_up(__m512i v, __m512i w)
{
	const __m512i lo = _mm512_set1_epi64(0xffffffff);
	const __m512i we = _mm512_and_si512(w, lo);

	return _mm512_or_si512(_mm512_or_si512(_mm512_and_si512(v, lo),
					       _mm512_sllv_epi64(_mm512_srli_epi64(v, 32), we)),
			       _mm512_slli_epi64(_mm512_add_epi64(we, _mm512_srli_epi64(w, 32)), 58));
}

/*
 * The 24-bit words of the carriers @mm among @w (their other bits zero)
 * into @f at once, in lane order: the same bits as a put of each.  The
 * words are gathered to the low lanes, packed three bytes each (48 bytes
 * at most), and the 512-bit string shifted left by the writer's pending
 * bits, which go into its lowest ones; the bits past the last word are
 * zero, so the pending bits after it are the byte where it ends.  Needs
 * 64 bytes of room at f->ptr.
 */
GC_INLINE void put_words24(struct gt_bitw_fast *f, __m512i w, __mmask16 mm)
{
	const __m512i pack = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12,
								 13, 14, -1, -1, -1, -1));
	const __m512i join = _mm512_setr_epi32(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 15, 15, 15,
					       15);
	const unsigned k = (unsigned)__builtin_popcount(mm), nb = f->nb;
	const __m512i sh = _mm512_set1_epi64(nb), back = _mm512_set1_epi64(64 - nb);
	const __m512i c = _mm512_maskz_compress_epi32(mm, w);
	/* the last word: its top nb bits are the pending ones after (24 k
	 * bits leave nb as it is); not a load of what y's store wrote, which
	 * would wait for the store */
	const uint32_t last = (uint32_t)_mm_cvtsi128_si32(_mm512_castsi512_si128(
		_mm512_permutexvar_epi32(_mm512_set1_epi32((int)k - 1), c)));
	__m512i x, y;

	x = _mm512_permutexvar_epi32(join, _mm512_shuffle_epi8(c, pack));
	/* x << nb as one 512-bit number (a shift by 64 gives 0) */
	y = _mm512_or_si512(_mm512_sllv_epi64(x, sh),
			    _mm512_srlv_epi64(_mm512_alignr_epi64(x, _mm512_setzero_si512(), 7),
					      back));
	y = _mm512_or_si512(y, _mm512_zextsi128_si512(_mm_cvtsi64_si128((long long)f->acc)));
	_mm512_storeu_si512(f->ptr, y);
	f->ptr += 3 * k;
	f->acc = k ? last >> (24 - nb) : f->acc;
}

/*
 * The eight pairs of codes @pr (pair_up(): bits | width << 58, in value
 * order) into @f: as two puts of eight codes when each fits in 56 bits
 * (gradients have short codes: the usual case), else four of four, else
 * eight of two; the same bits in every case.
 */
GC_INLINE void put_codes(struct gt_bitw_fast *f, __m512i pr)
{
	const __m512i m58 = _mm512_set1_epi64((long long)(UINT64_MAX >> 6));
	const __m512i b1 = _mm512_and_si512(pr, m58), w1 = _mm512_srli_epi64(pr, 58);
	/* even lanes: pairs 2j, 2j+1 joined; lanes 0 and 4: four pairs */
	const __m512i b2 = _mm512_or_si512(b1, _mm512_sllv_epi64(SWAP64(b1), w1));
	const __m512i w2 = _mm512_add_epi64(w1, SWAP64(w1));
	const __m512i b3 = _mm512_or_si512(b2, _mm512_sllv_epi64(_mm512_alignr_epi64(b2, b2, 2), w2));
	const __m512i w3 = _mm512_add_epi64(w2, _mm512_alignr_epi64(w2, w2, 2));
	uint64_t q[24] __attribute__((aligned(64)));

	_mm512_store_si512(q, b3);
	_mm512_store_si512(q + 8, w3);
	if (__builtin_expect(q[8] <= 56 && q[12] <= 56, 1)) {
		gt_bitw_fast_put(f, q[0], (unsigned)q[8]);
		gt_bitw_fast_put(f, q[4], (unsigned)q[12]);
		return;
	}
	_mm512_store_si512(q, b2);
	_mm512_store_si512(q + 8, w2);
	if (q[8] <= 56 && q[10] <= 56 && q[12] <= 56 && q[14] <= 56) {
		GC_UNROLL
		for (int k = 0; k < 8; k += 2)
			gt_bitw_fast_put(f, q[k], (unsigned)q[8 + k]);
		return;
	}
	_mm512_store_si512(q + 16, pr);
	GC_UNROLL
	for (int k = 16; k < 24; k++)
		gt_bitw_fast_put(f, _bzhi_u64(q[k], 58), (unsigned)(q[k] >> 58));
}

/* The lanes of @x moved up by D (lane i gets lane i - D), lanes below D
 * from @fill. */
#define GC_UP64(x, fill, D) _mm512_alignr_epi64((x), (fill), 8 - (D))

/* One step of put_pairs()'s scan: the lanes D apart that start in the same
 * word joined. */
#define GC_SCAN_OR(lo, q, D)                                                              \
	((lo) = _mm512_mask_or_epi64(                                                      \
		 (lo), _mm512_cmpeq_epi64_mask((q), GC_UP64((q), _mm512_set1_epi64(-1), D)),   \
		 (lo), GC_UP64((lo), _mm512_setzero_si512(), D)))

/*
 * The eight pairs @pr (pair_up(), widths <= 48, in value order) into @f
 * at once: the same bits as a put of each.  A pair's place in the string
 * is the sum of the widths before it (a prefix sum across the lanes); it
 * goes into the 64-bit word where it starts, and its high bits spill
 * into the next.  The pairs that start in one word are ORed together by
 * a scan over lanes in the same word; the last of them, the only one
 * that can spill, gives that word and the next one's spill.  No pair is
 * 64 bits wide, so every word up to the last has a pair that starts in
 * it, and the words come out in order.  The string does not wait for the
 * writer: only its shift by the pending bits does.  Needs 64 bytes of
 * room at f->ptr.
 */
GC_INLINE void put_pairs(struct gt_bitw_fast *f, __m512i pr)
{
	const __m512i zero = _mm512_setzero_si512(), m63 = _mm512_set1_epi64(63);
	const __m512i v = _mm512_and_si512(pr, _mm512_set1_epi64((long long)(UINT64_MAX >> 6)));
	const __m512i w = _mm512_srli_epi64(pr, 58);
	const unsigned nb = f->nb;
	__m512i o = w, q, s, lo, hi, b, y;
	__mmask8 last;
	unsigned e;

	o = _mm512_add_epi64(o, GC_UP64(o, zero, 1));
	o = _mm512_add_epi64(o, GC_UP64(o, zero, 2));
	o = _mm512_add_epi64(o, GC_UP64(o, zero, 4));
	e = nb + (unsigned)_mm_extract_epi64(_mm512_extracti32x4_epi32(o, 3), 1);
	o = _mm512_sub_epi64(o, w); /* where each pair starts */
	q = _mm512_srli_epi64(o, 6);
	s = _mm512_and_si512(o, m63);
	lo = _mm512_sllv_epi64(v, s);
	hi = _mm512_srlv_epi64(v, _mm512_sub_epi64(_mm512_set1_epi64(64), s));
	GC_SCAN_OR(lo, q, 1);
	GC_SCAN_OR(lo, q, 2);
	GC_SCAN_OR(lo, q, 4);
	last = _mm512_cmpneq_epi64_mask(q, _mm512_alignr_epi64(_mm512_set1_epi64(-1), q, 1));
	b = _mm512_or_si512(_mm512_maskz_compress_epi64(last, lo),
			    GC_UP64(_mm512_maskz_compress_epi64(last, hi), zero, 1));
	/* b << nb as one 512-bit number, the pending bits below */
	y = _mm512_or_si512(_mm512_sllv_epi64(b, _mm512_set1_epi64(nb)),
			    _mm512_srlv_epi64(GC_UP64(b, zero, 1), _mm512_set1_epi64(64 - nb)));
	y = _mm512_or_si512(y, _mm512_zextsi128_si512(_mm_cvtsi64_si128((long long)f->acc)));
	_mm512_storeu_si512(f->ptr, y);
	f->ptr += e >> 3;
	f->nb = e & 7;
	/* the byte where the string ends: its bits past the end are zero */
	f->acc = (uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(
			 _mm512_permutexvar_epi64(_mm512_set1_epi64(e >> 6), y))) >> (e & 56);
}

/* The values at @i in lanes @live (the others are none): codes, the
 * carriers' levels, words.  Returns the lanes' code entries. */
GC_INLINE __m512i enc16(const struct gc_eparams *ep, const uint32_t *cv, const uint8_t *lv,
		     size_t i, size_t left, __mmask16 live, __m512i shv, __m512i wdv,
		     struct gt_bitw_fast *cw, struct gt_bitw_fast *mw, struct gt_bitw_fast *lw)
{
	/* all sixteen read where they exist (the loads then need not wait
	 * for @live, which waits for the search for a run) */
	const __m512i u = left >= 16 ? _mm512_loadu_si512(cv + i) :
				       _mm512_maskz_loadu_epi32(live, cv + i);
	const __m512i zero = _mm512_setzero_si512();
	const __m512i ex = _mm512_and_si512(_mm512_srli_epi32(u, 23), _mm512_set1_epi32(0xff));
	const __mmask16 zm = ep->zt ? _mm512_cmpeq_epi32_mask(_mm512_slli_epi32(u, 1), zero) : 0;
	const __mmask16 zp = _mm512_cmpeq_epi32_mask(u, zero) & zm;
	const __mmask16 mm = (__mmask16)(~zm | (ep->zc[0] ? zp : 0) | (ep->zc[1] ? zm & ~zp : 0)) &
			     live;
	const __m128i lb = !lv	       ? _mm_setzero_si128() :
			   left >= 16 ? _mm_loadu_si128((const __m128i *)(const void *)(lv + i)) :
					_mm_maskz_loadu_epi8(live, lv + i);
	const __m512i l = _mm512_cvtepu8_epi32(lb);
	/* ±0.0 (zm) takes its own code below */
	__m512i ce = lookup_win(ep, ex, live & (__mmask16)~zm), w;
	uint64_t lq[2];

	ce = _mm512_mask_mov_epi32(ce, zp, _mm512_set1_epi32((int)ep->zent[0]));
	ce = _mm512_maskz_mov_epi32(live, _mm512_mask_mov_epi32(ce, zm & ~zp,
								  _mm512_set1_epi32((int)ep->zent[1])));
	/* the word: (sign << 23 | mantissa) >> dropped bits, carriers only
	 * (huffexp: mantissa << 1 | sign) */
	if (ep->rot) {
		w = _mm512_maskz_and_epi32(mm, _mm512_rol_epi32(u, 1), _mm512_set1_epi32(0xffffff));
	} else {
		w = _mm512_or_si512(_mm512_slli_epi32(_mm512_srli_epi32(u, 31), 23),
				    _mm512_and_si512(u, _mm512_set1_epi32(0x7fffff)));
		w = _mm512_maskz_srlv_epi32(mm, w, _mm512_permutexvar_epi32(l, shv));
	}
	/* out through memory: loads take no vector port, extracts would */
	put_codes(cw, pair_up(_mm512_and_si512(ce, _mm512_set1_epi32(0xffffff)),
			      _mm512_srli_epi32(ce, 24)));
	if (ep->lstream) {
		/* 2-bit levels of all sixteen, then the carriers' alone */
		_mm_storeu_si128((__m128i *)(void *)lq, lb);
		gt_bitw_fast_put(lw, _pext_u64(_pext_u64(lq[0], UINT64_C(0x0303030303030303)) |
						       _pext_u64(lq[1], UINT64_C(0x0303030303030303)) << 16,
					       _pdep_u64(mm, 0x55555555) * 3),
				 2 * (unsigned)__builtin_popcount(mm));
	}
	if (ep->w24 && !_mm_mask_test_epi8_mask(mm, lb, lb))
		put_words24(mw, w, mm); /* every carrier at level 0 */
	else
		put_pairs(mw, pair_up(w, _mm512_maskz_permutexvar_epi32(mm, l, wdv)));
	return ce;
}

/* The lanes of the (up to) @left values at @v that are +0.0. */
GC_INLINE __mmask16 zeros16(const uint32_t *v, size_t left)
{
	const __mmask16 live = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);

	return _mm512_mask_cmpeq_epi32_mask(live, _mm512_maskz_loadu_epi32(live, v),
					    _mm512_setzero_si512());
}

/* The +0.0 values from @j (at least 8) on, before @n. */
GC_INLINE size_t run_len(const uint32_t *cv, size_t j, size_t n)
{
	size_t p = j + 8;

	while (p < n) {
		const __mmask16 z = zeros16(cv + p, n - p);

		if (z != 0xffff) {
			p += (size_t)__builtin_ctz(~(unsigned)z);
			break;
		}
		p += 16;
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

GC_TARGET size_t gc_avx512_encode(const struct gc_eparams *ep, const uint32_t *cv,
				  const uint8_t *lv, size_t i, size_t n,
				  struct gt_bitw_fast *cw, const unsigned char *cend,
				  struct gt_bitw_fast *mw, const unsigned char *mend,
				  struct gt_bitw_fast *lw, const unsigned char *lend)
{
	const unsigned *sh = ep->sh, *wd = ep->wd;
	const __m512i shv = _mm512_setr_epi32((int)sh[0], (int)sh[1], (int)sh[2], (int)sh[3],
					      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	const __m512i wdv = _mm512_setr_epi32((int)wd[0], (int)wd[1], (int)wd[2], (int)wd[3],
					      0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
	struct gt_bitw_fast c = *cw, m = *mw, l = *lw;
	__m512i codes = _mm512_setzero_si512(); /* their OR, for ep->bad */

	while (i < n && cend - c.ptr >= 128 && mend - m.ptr >= 128 && lend - l.ptr >= 128) {
		const size_t left = n - i;
		__mmask16 live = left >= 16 ? 0xffff : (__mmask16)((1u << left) - 1);
		uint32_t r = 0;
		size_t len;

		if (ep->runs) {
			/* r: where 8 +0.0 start among the next sixteen */
			const uint32_t z = zeros16(cv + i, left) |
					   (left > 16 ? (uint32_t)zeros16(cv + i + 16, left - 16) << 16 : 0);

			r = z & z >> 1;
			r &= r >> 2;
			r &= (r >> 4) & 0xffff;
			live &= (__mmask16)(r ? (1u << __builtin_ctz(r)) - 1 : 0xffff);
		}
		if (live)
			codes = _mm512_or_si512(codes, enc16(ep, cv, lv, i, left, live, shv, wdv,
							     &c, &m, &l));
		if (!r) {
			i += left < 16 ? left : 16;
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
	if (ep->bad)
		*ep->bad = _mm512_test_epi32_mask(codes, _mm512_set1_epi32(1 << 23)) != 0;
	return i;
}

/* The carrier count and the ±0.0 level of sixteen values at @i whose
 * level is in @l (count_part() in gcomp.c). */
GC_INLINE void tally16(const struct gc_lparams *lp, size_t i, __m128i l, uint8_t *lv,
		       uint64_t *cnt, __m512i *bad)
{
	const __m512i ff = _mm512_set1_epi32(0xff), zero = _mm512_setzero_si512();
	const __m512i cu = _mm512_loadu_si512(lp->cv + i);
	const __mmask16 zm = _mm512_cmpeq_epi32_mask(_mm512_slli_epi32(cu, 1), zero);
	const __mmask16 zp = _mm512_cmpeq_epi32_mask(cu, zero);
	const __mmask16 carry = (__mmask16)(~zm | (lp->zc[0] ? zp : 0) |
					    (lp->zc[1] ? zm & ~zp : 0));
	__m512i sym = _mm512_and_si512(_mm512_srli_epi32(cu, 23), ff), w;

	l = _mm_mask_mov_epi8(l, zm, _mm_set1_epi8((char)lp->zl));
	_mm_storeu_si128((__m128i *)(void *)(lv + i), l);
	GC_UNROLL
	for (int k = 0; k < 4; k++)
		cnt[k] += (uint64_t)__builtin_popcount(
			_mm_cmpeq_epi8_mask(l, _mm_set1_epi8((char)k)) & carry);
	if (lp->zt)
		sym = _mm512_mask_or_epi32(sym, zm, sym,
					   _mm512_add_epi32(_mm512_set1_epi32(256),
							    _mm512_srli_epi32(cu, 31)));
	w = _mm512_permutexvar_epi32(_mm512_srli_epi32(sym, 5), _mm512_loadu_si512(lp->badmap));
	*bad = _mm512_or_si512(*bad, _mm512_srlv_epi32(w, _mm512_and_si512(sym, _mm512_set1_epi32(31))));
}

GC_TARGET size_t gc_avx512_count(const struct gc_lparams *lp, size_t n, uint8_t *lv,
				 uint64_t *cnt, int *bad_ret)
{
	__m512i bad = _mm512_setzero_si512();
	uint64_t k[4] = { 0, 0, 0, 0 };
	size_t i = 0;

	for (; i + 16 <= n; i += 16)
		tally16(lp, i, _mm_loadu_si128((const __m128i *)(const void *)(lv + i)), lv, k,
			&bad);
	GC_UNROLL
	for (int l = 0; l < 4; l++)
		cnt[l] += k[l];
	*bad_ret = _mm512_test_epi32_mask(bad, _mm512_set1_epi32(1)) != 0;
	return i;
}

#define F(x) _mm512_set1_ps(x)

/* θ_t of sixteen values, float32, as gt_optim.c's step_*() compute it
 * (the same operations, fmaf() as a fused multiply-add instruction: both
 * round once); @s0, @s1 the states (zeros when absent). */
GC_INLINE __m512 step16(const struct gc_sparams *sp, enum gt_optim_kind kind, __m512 g,
			__m512 p, __m512 s0, __m512 s1)
{
	__m512 d, b, v, m, pi;

	switch (kind) {
	case GT_OPT_MOMENTUM:
	case GT_OPT_NESTEROV:
	case GT_OPT_SGD:
		d = sp->has_wd ? _mm512_fmadd_ps(p, F(sp->wd), g) : g;
		if (kind != GT_OPT_SGD) {
			b = sp->has_buf ? _mm512_fmadd_ps(d, F(sp->damp1),
							  _mm512_mul_ps(s0, F(sp->mom))) : d;
			d = kind == GT_OPT_NESTEROV ? _mm512_fmadd_ps(b, F(sp->mom), d) : b;
		}
		return _mm512_fmadd_ps(d, F(sp->neg_lr), p);
	case GT_OPT_ADAGRAD:
		d = sp->has_wd ? _mm512_fmadd_ps(p, F(sp->wd), g) : g;
		v = _mm512_fmadd_ps(d, d, s0);
		return _mm512_add_ps(p, _mm512_div_ps(_mm512_mul_ps(F(sp->neg_lr), d),
						      _mm512_add_ps(_mm512_sqrt_ps(v), F(sp->eps))));
	case GT_OPT_RMSPROP:
		d = sp->has_wd ? _mm512_fmadd_ps(p, F(sp->wd), g) : g;
		v = _mm512_fmadd_ps(_mm512_mul_ps(d, F(sp->one_alpha)), d,
				    _mm512_mul_ps(s0, F(sp->alpha)));
		return _mm512_add_ps(p, _mm512_div_ps(_mm512_mul_ps(F(sp->neg_lr), d),
						      _mm512_add_ps(_mm512_sqrt_ps(v), F(sp->eps))));
	case GT_OPT_ADAM:
	case GT_OPT_ADAMW:
		pi = kind == GT_OPT_ADAMW ? _mm512_mul_ps(p, F(sp->decay)) : p;
		d = kind == GT_OPT_ADAM && sp->has_wd ? _mm512_fmadd_ps(p, F(sp->wd), g) : g;
		m = _mm512_fmadd_ps(d, F(sp->one_b1), _mm512_mul_ps(s0, F(sp->b1)));
		v = _mm512_fmadd_ps(_mm512_mul_ps(d, F(sp->one_b2)), d, _mm512_mul_ps(s1, F(sp->b2)));
		return _mm512_add_ps(pi, _mm512_div_ps(_mm512_mul_ps(F(sp->neg_lr), m),
						       _mm512_add_ps(_mm512_div_ps(_mm512_sqrt_ps(v),
										   F(sp->bc2_sqrt)),
								     F(sp->eps))));
	case GT_OPT_NONE:
		break;
	}
	return p;
}

/* The lanes where θ_t of a candidate @x counts as the reference's @ref:
 * the same bits, or both NaN (same_theta() in gcomp.c). */
GC_INLINE __mmask16 same16(__m512 x, __m512i ref)
{
	const __m512 r = _mm512_castsi512_ps(ref);

	return _mm512_cmpeq_epi32_mask(_mm512_castps_si512(x), ref) |
	       (_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q) & _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q));
}

/* Exact mode's choice for sixteen values at @i (levels_exact() in
 * gcomp.c, fused: one step for g, then per candidate only while a lane
 * is undecided); @live: the lanes inside the chunk. */
GC_INLINE void exact16(const struct gc_sparams *sp, enum gt_optim_kind kind,
		       const unsigned *lev, int prune, size_t i, __mmask16 live, const float *g,
		       const float *p, const float *s0, const float *s1, uint8_t *lv, uint32_t *tv)
{
	const __m512 gv = _mm512_maskz_loadu_ps(live, g + i), pv = _mm512_maskz_loadu_ps(live, p + i);
	const __m512 a0 = s0 ? _mm512_maskz_loadu_ps(live, s0 + i) : _mm512_setzero_ps();
	const __m512 a1 = s1 ? _mm512_maskz_loadu_ps(live, s1 + i) : _mm512_setzero_ps();
	const __m512i u = _mm512_castps_si512(gv), em = _mm512_set1_epi32(0x7f800000);
	const __m512i ref = _mm512_castps_si512(step16(sp, kind, gv, pv, a0, a1));
	const __mmask16 inf = _mm512_cmpeq_epi32_mask(_mm512_and_si512(u, em), em);
	const __mmask16 zero = _mm512_testn_epi32_mask(u, _mm512_set1_epi32(0x7fffffff));
	__mmask16 open = (__mmask16)~(inf | zero), hit;
	__m128i l = _mm_maskz_set1_epi8(zero, 3);
	__m512i c;

	if (prune) {
		/* a zero of the value's sign: coded as its token, level 3 */
		c = _mm512_and_si512(u, _mm512_set1_epi32((int)0x80000000u));
		hit = open & same16(step16(sp, kind, _mm512_castsi512_ps(c), pv, a0, a1), ref);
		_mm512_mask_storeu_epi32(tv + i, live, _mm512_mask_mov_epi32(u, hit, c));
		l = _mm_mask_mov_epi8(l, hit, _mm_set1_epi8(3));
		open &= (__mmask16)~hit;
	}
	for (int k = 3; k >= 1 && open; k--) {
		c = _mm512_and_si512(u, _mm512_set1_epi32((int)(~0u << lev[k])));
		hit = open & same16(step16(sp, kind, _mm512_castsi512_ps(c), pv, a0, a1), ref);
		l = _mm_mask_mov_epi8(l, hit, _mm_set1_epi8((char)k));
		open &= (__mmask16)~hit;
	}
	_mm_mask_storeu_epi8(lv + i, live, l);
}

GC_INLINE void exact_kind(const struct gc_sparams *sp, enum gt_optim_kind kind,
			  const unsigned *lev, int prune, size_t n, const float *g,
			  const float *p, const float *s0, const float *s1, uint8_t *lv,
			  uint32_t *tv)
{
	for (size_t i = 0; i < n; i += 16) {
		const __mmask16 live = n - i >= 16 ? 0xffff : (__mmask16)((1u << (n - i)) - 1);

		_mm_prefetch((const char *)(p + i + GC_AHEAD), _MM_HINT_T0);
		if (s0)
			_mm_prefetch((const char *)(s0 + i + GC_AHEAD), _MM_HINT_T0);
		if (s1)
			_mm_prefetch((const char *)(s1 + i + GC_AHEAD), _MM_HINT_T0);
		exact16(sp, kind, lev, prune, i, live, g, p, s0, s1, lv, tv);
	}
}

GC_TARGET void gc_avx512_exact(const struct gc_sparams *sp, const unsigned *lev, int prune,
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

/* Whether any of @n f32 values at @v is subnormal (the chunk's first
 * pass over memory: four lines at a time, prefetching ahead). */
GC_TARGET int gc_avx512_has_sub(const uint32_t *v, size_t n)
{
	const __m512i em = _mm512_set1_epi32(0x7f800000), mm = _mm512_set1_epi32(0x7fffff);
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		__mmask16 any = 0;

		_mm_prefetch((const char *)(v + i + 4 * GC_AHEAD), _MM_HINT_T0);
		_mm_prefetch((const char *)(v + i + 4 * GC_AHEAD + 16), _MM_HINT_T0);
		_mm_prefetch((const char *)(v + i + 4 * GC_AHEAD + 32), _MM_HINT_T0);
		_mm_prefetch((const char *)(v + i + 4 * GC_AHEAD + 48), _MM_HINT_T0);
		GC_UNROLL
		for (int k = 0; k < 4; k++) {
			const __m512i u = _mm512_loadu_si512(v + i + 16 * k);

			any |= _mm512_mask_test_epi32_mask(_mm512_testn_epi32_mask(u, em), u, mm);
		}
		if (any)
			return 1;
	}
	for (; i < n; i++)
		if (!(v[i] & 0x7f800000u) && (v[i] & 0x7fffffu))
			return 1;
	return 0;
}

#else /* no x86-64: the scalar path only */

size_t gc_avx512_count(const struct gc_lparams *lp, size_t n, uint8_t *lv, uint64_t *cnt,
		       int *bad_ret)
{
	(void)lp, (void)n, (void)lv, (void)cnt;
	*bad_ret = 0;
	return 0;
}

void gc_avx512_exact(const struct gc_sparams *sp, const unsigned *lev, int prune, size_t n,
		     const float *g, const float *p, const float *s0, const float *s1,
		     uint8_t *lv, uint32_t *tv)
{
	(void)sp, (void)lev, (void)prune, (void)n, (void)g, (void)p, (void)s0, (void)s1;
	(void)lv, (void)tv;
}

int gc_avx512_has_sub(const uint32_t *v, size_t n)
{
	(void)v, (void)n;
	return 0;
}

enum gc_isa gc_isa_detect(void)
{
	return GC_ISA_SCALAR;
}

int gc_isa_runs(enum gc_isa isa)
{
	return isa == GC_ISA_SCALAR;
}

size_t gc_avx512_levels(const struct gc_dplan *q, const struct gc_lparams *lp,
			size_t n, const float *g, const float *p, const float *s0,
			const float *s1, uint8_t *lv, uint64_t *cnt, int *bad_ret)
{
	(void)q, (void)lp, (void)n, (void)g, (void)p, (void)s0, (void)s1;
	(void)lv, (void)cnt;
	*bad_ret = 0;
	return 0;
}

size_t gc_avx512_encode(const struct gc_eparams *ep, const uint32_t *cv,
			const uint8_t *lv, size_t i, size_t n, struct gt_bitw_fast *cw,
			const unsigned char *cend, struct gt_bitw_fast *mw,
			const unsigned char *mend, struct gt_bitw_fast *lw,
			const unsigned char *lend)
{
	(void)ep, (void)cv, (void)lv, (void)n, (void)cw, (void)cend, (void)mw;
	(void)mend, (void)lw, (void)lend;
	return i;
}

#endif
