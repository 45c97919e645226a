/* tfp.c - TFP: keep the first k bits of each float (AQGB paper §4.4, Eq. 5) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codec_impl.h"
#include "../gt_bitio.h"
#include "../gt_rng.h"
#include "../banned.h"

/*
 * A value's code is the first k bits of its bit pattern in a "grid"
 * format: sign, then the top k - 1 bits of exponent and mantissa.  A
 * chunk is the n codes, k bits each, LSB-first (gt_bitio.h), zero-padded
 * to a byte.  Decoding appends zero bits.
 *
 * Grids.  f32 with k >= 17: f32 itself.  f32 with k <= 16: the paper
 * converts to FP16 first, and to "FP8" for k <= 8; we take FP8 E5M2,
 * which is the top byte of binary16, so that truncating E5M2 to k <= 8
 * bits is truncating FP16 to k bits: one grid for every k <= 16.  E5M2
 * and not E4M3 because gradients need range, not precision: E4M3's
 * smallest subnormal is 2^-9 (~0.002), which flushes most gradient values
 * to zero; E5M2 reaches 2^-16 (2^-24 with FP16's mantissa), and E5M2 is
 * what FP8 training uses for gradients (Micikevicius et al., "FP8 formats
 * for deep learning", 2022).  f16, bf16 and f64 use their own pattern
 * (k up to 16, 16 and 64), with no conversion.
 *
 * Rounding.  trunc keeps the first k bits: |value| never grows (T-lower
 * of Eq. 5).  stochastic is Eq. 5: T-upper is T-lower plus one unit of
 * the k-th bit, and T-lower is chosen when rand() <= 1 - (x - Tl)/(Tu - Tl).
 * The distance (x - Tl)/(Tu - Tl) is exactly the dropped bits L over 2^s
 * (s of them), so with rand() = 1 - r/2^s for an s-bit uniform r the test
 * is r >= L: T-upper with probability L/2^s, exactly.  On the FP16 grid
 * the dropped bits are the f32 value's below the FP16 k-bit unit, 40 more
 * bits than FP16 holds: exact down to |x| >= 2^-41, and below that the
 * bias is under 2^-64.  When k is so small that exponent bits are dropped
 * too (k <= E + 1, E the grid's exponent bits), the dropped bits are not
 * linear in the value, and Eq. 5 is computed on the values themselves (in
 * double, with a 53-bit rand()).  The random numbers come from gt_rng.h keyed on
 * (seed, stream, position of the chunk), one draw per value.
 *
 * Range.  Values beyond the grid's largest finite k-bit value (FP16:
 * 65504 truncated to k bits) saturate to it, both ways of rounding: a
 * finite value never becomes Inf.  Below the smallest non-zero k-bit
 * value, trunc gives ±0 (sign kept) and stochastic gives ±0 or that
 * value.  -0 stays -0; subnormals of the grid are kept like any value.
 * Inf and NaN keep the first k bits of their grid pattern (NaN made
 * quiet first, the sign kept) and are never rounded: NaN stays NaN when
 * k >= E + 2 (E exponent bits of the grid: f32 k >= 10, FP16 grid
 * k >= 7), becomes Inf at k = E + 1; Inf stays Inf for k >= E + 1; with
 * fewer bits both become the largest k-bit magnitude.
 *
 * Speed (f32).  Codes are made TFP_BATCH at a time by branch-free loops
 * in 32-bit lanes (64-bit for Eq. 5) that compilers vectorize, and packed
 * eight at a time by gt_bitpack() (eight codes are k bytes: no bit writer
 * carried from one to the next); decoding is gt_bitunpack() and a
 * branch-free FP16 conversion.  The loops are compiled once for each
 * instruction set of gt_isa.h; each gives the same bytes.
 */

#define TFP_BATCH 1024
/* a loop body compiled inside each driver (with its instruction set) */
#define TFP_LOOP static inline __attribute__((always_inline))
#define TFP_EXT 40 /* extra bits below the FP16 pattern (stochastic) */

enum tfp_grid { TFP_NATIVE, TFP_F16 };

struct tfp_ctx {
	struct gt_codec_base base;
	enum gt_dtype dt;
	unsigned k;
	int stochastic;
	uint64_t seed, stream, pos;
	enum tfp_grid grid;
	unsigned width;   /* grid pattern bits: 16, 32 or 64 */
	unsigned s;       /* dropped bits: width - k */
	uint64_t amask;   /* magnitude bits of the dtype's pattern */
	uint64_t inf;     /* the dtype's +Inf pattern */
	uint64_t quiet;   /* the dtype's quiet-NaN bit */
	uint64_t cmax;    /* largest k-bit magnitude code of a finite value */
	int by_value;     /* stochastic with exponent bits dropped: Eq. 5 on values */
	double tab[32];   /* by_value f32 (FP16 grid, cmax < 32): value of each code */
	uint64_t codes[TFP_BATCH];   /* f16, bf16, f64 */
	uint32_t codes32[TFP_BATCH]; /* f32 (k <= 32) */
};

static struct tfp_ctx *tfp(struct gt_codec_ctx *ctx)
{
	return (struct tfp_ctx *)(void *)ctx;
}

static int tfp_opts(struct tfp_ctx *c, const struct gt_kv *kv, size_t nkv,
		    long kmax, int *have_seed, struct gt_diag *d)
{
	long v;

	for (size_t i = 0; i < nkv; i++) {
		if (!strcmp(kv[i].key, "bits")) {
			GT_TRY(gt_kv_int(&kv[i], "tfp", 2, kmax, &v, d));
			c->k = (unsigned)v;
		} else if (!strcmp(kv[i].key, "round")) {
			if (strcmp(kv[i].val, "trunc") && strcmp(kv[i].val, "stochastic"))
				return gt_diag_set(d, GT_ERR(INVAL),
						   "codec tfp: invalid round '%s': expected trunc or stochastic",
						   kv[i].val);
			c->stochastic = !strcmp(kv[i].val, "stochastic");
		} else if (!strcmp(kv[i].key, "seed")) {
			GT_TRY(gt_kv_int(&kv[i], "tfp", 0, 0x7fffffffffffffffL, &v, d));
			c->seed = (uint64_t)v;
			*have_seed = 1;
		} else {
			return gt_kv_unknown(&kv[i], "tfp", d);
		}
	}
	return 0;
}

static void tfp_setup(struct tfp_ctx *c)
{
	const unsigned mb = gt_dtype_man_bits(c->dt);
	const unsigned w = 8 * gt_dtype_size(c->dt);

	c->grid = c->dt == GT_DT_F32 && c->k <= 16 ? TFP_F16 : TFP_NATIVE;
	c->width = c->grid == TFP_F16 ? 16 : w;
	c->s = c->width - c->k;
	c->amask = w == 64 ? UINT64_MAX >> 1 : (UINT64_C(1) << (w - 1)) - 1;
	c->inf = ((UINT64_C(1) << gt_dtype_exp_bits(c->dt)) - 1) << mb;
	c->quiet = UINT64_C(1) << (mb - 1);
	c->cmax = c->grid == TFP_F16 ? 0x7bffu >> c->s : (c->inf - 1) >> c->s;
	c->by_value = c->k <= (c->grid == TFP_F16 ? 5 : gt_dtype_exp_bits(c->dt)) + 1;
	for (uint64_t m = 0; c->grid == TFP_F16 && c->by_value && m <= c->cmax; m++)
		c->tab[m] = gt_f16_to_f32((uint16_t)(m << c->s));
}

/* The value of the grid's magnitude pattern @m. */
static double grid_value(const struct tfp_ctx *c, uint64_t m)
{
	unsigned char one[8];

	if (c->grid == TFP_F16)
		return gt_f16_to_f32((uint16_t)m);
	gt_fp_store(one, c->dt, 0, m);
	return gt_fp_get(one, c->dt, 0);
}

/*
 * Eq. 5 on values, for k so small that exponent bits are dropped (the
 * dropped bits are then not linear in the value): the code's magnitude
 * for |x| = @ax whose truncated magnitude code is @cm.
 */
static uint64_t round_by_value(const struct tfp_ctx *c, double ax, uint64_t cm,
			       struct gt_rng *r)
{
	double tl, tu;

	if (cm >= c->cmax) {
		gt_rng_u64(r);
		return cm;
	}
	tl = grid_value(c, cm << c->s);
	tu = grid_value(c, (cm + 1) << c->s);
	return cm + (gt_rng_unit(r) < (ax - tl) / (tu - tl));
}

static int tfp_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		   size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	const long kmax = p->dtype == GT_DT_F64 ? 64 : p->dtype == GT_DT_F32 ? 32 : 16;
	struct tfp_ctx *c = calloc(1, sizeof(*c));
	int have_seed = 0, rc;

	if (!c)
		return GT_ERR(NOMEM);
	c->dt = p->dtype;
	c->k = kmax < 16 ? (unsigned)kmax : 16;
	rc = tfp_opts(c, kv, nkv, kmax, &have_seed, d);
	if (rc >= 0 && have_seed && !c->stochastic)
		rc = gt_diag_set(d, GT_ERR(INVAL), "codec tfp: seed needs round=stochastic");
	if (rc < 0) {
		free(c);
		return rc;
	}
	tfp_setup(c);
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void tfp_free(struct gt_codec_ctx *ctx)
{
	free(ctx);
}

static size_t tfp_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct tfp_ctx *c = (const struct tfp_ctx *)(const void *)ctx;

	if (!c->stochastic)
		return (size_t)snprintf(buf, cap, "bits=%u,round=trunc", c->k);
	return (size_t)snprintf(buf, cap, "bits=%u,round=stochastic,seed=%llu", c->k,
				(unsigned long long)c->seed);
}

static size_t tfp_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct tfp_ctx *c = (const struct tfp_ctx *)(const void *)ctx;

	return n > (SIZE_MAX - 7) / c->k ? 0 : (n * c->k + 7) / 8;
}

static void tfp_seek(struct gt_codec_ctx *ctx, uint64_t stream, uint64_t pos)
{
	tfp(ctx)->stream = stream;
	tfp(ctx)->pos = pos;
}

/*
 * The magnitude of f32 bits @a (sign cleared) on the FP16 grid, with
 * TFP_EXT more bits below: the FP16 pattern << 40 | what FP16 drops.
 * Truncating (toward zero), saturating to 65504; NaN -> quiet NaN.
 * Written for 64-bit lanes (AVX2 has variable shifts): shift counts
 * clamped rather than branched on, Inf and NaN added to the saturated
 * value (0x7bff + 1 = 0x7c00, + 0x200 = 0x7e00).  Below 2^-14 the
 * pattern is |x| 2^64 rounded down: mant 2^(e - 86).  Equal to the
 * branchy version it replaced for each of the 2^31 a (checked once, by
 * brute force); test_codec_bytes's digests of every stochastic k hold it.
 */
TFP_LOOP uint64_t ext16(uint32_t a)
{
	const int32_t ai = (int32_t)a;
	const uint64_t e = a >> 23, mant = (a & 0x7fffffu) | 0x800000u;
	const uint64_t up = e > 86 ? e - 86 : 0, dn = e < 86 ? 86 - e : 0;
	/* e <= 62 shifts everything out (e = 0 too, implicit bit or not) */
	const uint64_t sub = (mant << (up < 26 ? up : 26)) >> (dn < 63 ? dn : 63);
	const uint64_t nrm = (uint64_t)(a - 0x38000000u) << 27;
	const uint64_t lo = -(uint64_t)(ai < 0x38800000);
	uint64_t m = (sub & lo) | (nrm & ~lo);

	m = ai >= 0x47800000 ? (uint64_t)0x7bff << TFP_EXT : m;
	m += (uint64_t)(ai >= 0x7f800000) << TFP_EXT;
	return m + ((uint64_t)(ai > 0x7f800000) << (TFP_EXT + 9));
}

/*
 * The truncated FP16 pattern of f32 magnitude bits @a, equal to
 * ext16(a) >> TFP_EXT for each of the 2^31 a (checked once, by brute
 * force; test_codec_bytes checks both sides of every FP16 value), in
 * 32-bit lanes and with no branch, so that the loops below vectorize
 * (SSE2 at -O2).
 * Below 2^-14 (FP16 subnormals) the pattern is |x| 2^24 rounded down:
 * |x| + 0.5 rounds |x| to a multiple of 2^-24 (the unit of floats in
 * [0.5, 1)), exactly, and one comes off when that went up.  No float to
 * int conversion: with -ftrapping-math gcc will not if-convert one.  a
 * <= 0x7fffffff, so signed compares (SSE2 has no unsigned ones) order
 * it; min() then saturates to 65504 and Inf and NaN add 1 and 0x201.
 */
TFP_LOOP uint32_t trunc16(uint32_t a)
{
	const int32_t ai = (int32_t)a;
	const uint32_t lo = -(uint32_t)(ai < 0x38800000);
	const float ax = gt_f32_from_bits(a & lo);
	const float y = ax + 0.5f;
	const uint32_t sub = gt_f32_bits(y) - 0x3f000000u - (y - 0.5f > ax);
	int32_t h = (int32_t)((sub & lo) | ((a - 0x38000000u) >> 13 & ~lo));

	h = h < 0x7bff ? h : 0x7bff;
	return (uint32_t)h + (ai >= 0x7f800000) + ((uint32_t)(ai > 0x7f800000) << 9);
}

/* Truncation codes of @cnt f32 values. */
TFP_LOOP void codes_trunc(const unsigned char *restrict src, size_t cnt,
			  uint32_t *restrict out, enum tfp_grid grid, unsigned k,
			  unsigned s)
{
	if (grid == TFP_F16) {
		for (size_t i = 0; i < cnt; i++) {
			uint32_t u;

			memcpy(&u, src + 4 * i, 4);
			out[i] = (u >> 31) << (k - 1) | trunc16(u & 0x7fffffffu) >> s;
		}
	} else {
		const uint32_t quiet = s ? 0x400000u : 0;

		for (size_t i = 0; i < cnt; i++) {
			uint32_t u;

			memcpy(&u, src + 4 * i, 4);
			u |= (int32_t)(u & 0x7fffffffu) > 0x7f800000 ? quiet : 0;
			out[i] = u >> s;
		}
	}
}

/*
 * The f32 bits of FP16 pattern @h (sign in bit 15), as gt_f16_to_f32()
 * (test_codec_bytes checks every h) but branch-free in 32-bit lanes, to
 * vectorize: subnormals are m 2^-24, exact; the conversion is of a
 * masked m, so that no select of gcc's sinks it into a branch.
 */
TFP_LOOP uint32_t f16_bits(uint32_t h)
{
	const uint32_t m = h & 0x7fffu;
	const uint32_t lo = -(uint32_t)((int32_t)m < 0x400);
	const uint32_t sub = gt_f32_bits((float)(int32_t)(m & lo) * 0x1p-24f);
	uint32_t v = (m << 13) + 0x38000000u;

	v = (int32_t)m >= 0x7c00 ? m << 13 | 0x7f800000u : v;
	return (h & 0x8000u) << 16 | (sub & lo) | (v & ~lo);
}

/* f32 values of @cnt codes. */
TFP_LOOP void values_f32(const uint32_t *restrict codes, size_t cnt,
			 unsigned char *restrict out, enum tfp_grid grid, unsigned s)
{
	if (grid == TFP_F16) {
		for (size_t i = 0; i < cnt; i++) {
			const uint32_t u = f16_bits(codes[i] << s);

			memcpy(out + 4 * i, &u, 4);
		}
	} else {
		for (size_t i = 0; i < cnt; i++) {
			const uint32_t u = codes[i] << s;

			memcpy(out + 4 * i, &u, 4);
		}
	}
}

/*
 * Eq. 5 on the dropped bits (not by_value): codes of @n f32 values, one
 * draw of gt_rng_u64() each from state @z; returns the state after.
 * The dropped bits L (sh of them) against an sh-bit r: T-upper when r < L.
 */
TFP_LOOP uint64_t codes_sr(const unsigned char *restrict src, size_t n,
			   uint32_t *restrict out, uint64_t z, enum tfp_grid grid,
			   unsigned k, unsigned sh, uint64_t cmax)
{
	const uint64_t lmask = (UINT64_C(1) << sh) - 1;

	for (size_t i = 0; i < n; i++) {
		uint32_t u;

		memcpy(&u, src + 4 * i, 4);
		{
			const uint32_t a = u & 0x7fffffffu;
			const uint64_t fin = (int32_t)a < 0x7f800000;
			const uint64_t quiet = (int32_t)a > 0x7f800000 ? 0x400000u : 0;
			const uint64_t m = grid == TFP_F16 ? ext16(a) : (a | quiet);
			uint64_t cm;

			z += GT_RNG_GAMMA; /* gt_rng_u64() */
			cm = (m >> sh) + (fin & ((gt_rng_mix(z) >> (64 - sh)) < (m & lmask)));
			cm = cm < cmax ? cm : cmax;
			cm = fin ? cm : m >> sh;
			out[i] = (u >> 31) << (k - 1) | (uint32_t)cm;
		}
	}
	return z;
}

/*
 * Eq. 5 on values (by_value, f32 on the FP16 grid), round_by_value() in
 * lanes: T-lower and T-upper of magnitude code cm from @tab, the same
 * double operations in the same order, one draw a value from state @z;
 * returns the state after.
 */
TFP_LOOP uint64_t codes_bv(const unsigned char *restrict src, size_t n,
			   uint32_t *restrict out, uint64_t z, unsigned k, unsigned sh,
			   uint64_t cmax, const double *restrict tab)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t u;

		memcpy(&u, src + 4 * i, 4);
		{
			const uint32_t a = u & 0x7fffffffu;
			const uint64_t cm = ext16(a) >> sh, lo = cm < cmax ? cm : cmax - 1;
			const double ax = gt_f32_from_bits(a), tl = tab[lo], tu = tab[lo + 1];
			int up;

			z += GT_RNG_GAMMA; /* gt_rng_unit() */
			up = (double)(gt_rng_mix(z) >> 11) * 0x1p-53 < (ax - tl) / (tu - tl);
			up &= (int32_t)a < 0x7f800000 && cm < cmax;
			out[i] = (u >> 31) << (k - 1) | (uint32_t)(cm + (uint64_t)up);
		}
	}
	return z;
}

/*
 * The loops above inlined into drivers that run them on blocks of a
 * constant TFP_BLOCK values (what gcc's -O2 cost model very-cheap
 * vectorizes: no epilogue) and once on the rest; the drivers are compiled
 * once for each instruction set (gt_isa.h).
 */
#define TFP_BLOCK 64
#define TFP_DRIVERS(SUF, ATTR)                                                \
	ATTR static void trunc_##SUF(const unsigned char *src, size_t n,      \
				     uint32_t *out, enum tfp_grid grid,       \
				     unsigned k, unsigned s)                  \
	{                                                                     \
		size_t i = 0;                                                 \
		for (; i + TFP_BLOCK <= n; i += TFP_BLOCK) {                  \
			gt_prefetch(src + 4 * i, 4 * TFP_BLOCK);              \
			codes_trunc(src + 4 * i, TFP_BLOCK, out + i, grid, k, s); \
		}                                                             \
		codes_trunc(src + 4 * i, n - i, out + i, grid, k, s);         \
	}                                                                     \
	ATTR static uint64_t sr_##SUF(const unsigned char *src, size_t n,     \
				      uint32_t *out, uint64_t z,              \
				      enum tfp_grid grid, unsigned k,         \
				      unsigned sh, uint64_t cmax)             \
	{                                                                     \
		size_t i = 0;                                                 \
		for (; i + TFP_BLOCK <= n; i += TFP_BLOCK) {                  \
			gt_prefetch(src + 4 * i, 4 * TFP_BLOCK);              \
			z = codes_sr(src + 4 * i, TFP_BLOCK, out + i, z, grid, k, sh, cmax); \
		}                                                             \
		return codes_sr(src + 4 * i, n - i, out + i, z, grid, k, sh, cmax); \
	}                                                                     \
	ATTR static uint64_t bv_##SUF(const unsigned char *src, size_t n,     \
				      uint32_t *out, uint64_t z, unsigned k,  \
				      unsigned sh, uint64_t cmax,             \
				      const double *tab)                      \
	{                                                                     \
		size_t i = 0;                                                 \
		for (; i + TFP_BLOCK <= n; i += TFP_BLOCK) {                  \
			gt_prefetch(src + 4 * i, 4 * TFP_BLOCK);              \
			z = codes_bv(src + 4 * i, TFP_BLOCK, out + i, z, k, sh, cmax, tab); \
		}                                                             \
		return codes_bv(src + 4 * i, n - i, out + i, z, k, sh, cmax, tab); \
	}                                                                     \
	ATTR static void values_##SUF(const uint32_t *codes, size_t n,        \
				      unsigned char *out, enum tfp_grid grid, \
				      unsigned s)                             \
	{                                                                     \
		size_t i = 0;                                                 \
		for (; i + TFP_BLOCK <= n; i += TFP_BLOCK)                    \
			values_f32(codes + i, TFP_BLOCK, out + 4 * i, grid, s); \
		values_f32(codes + i, n - i, out + 4 * i, grid, s);           \
	}

TFP_DRIVERS(portable, )
#if GT_ISA_X86
TFP_DRIVERS(avx2, GT_ISA_TARGET_AVX2)
TFP_DRIVERS(avx512, GT_ISA_TARGET_AVX512)
#endif

static void trunc_isa(struct tfp_ctx *c, const unsigned char *src, size_t n)
{
#if GT_ISA_X86
	if (c->base.isa == GT_ISA_AVX512) {
		trunc_avx512(src, n, c->codes32, c->grid, c->k, c->s);
		return;
	}
	if (c->base.isa == GT_ISA_AVX2) {
		trunc_avx2(src, n, c->codes32, c->grid, c->k, c->s);
		return;
	}
#endif
	trunc_portable(src, n, c->codes32, c->grid, c->k, c->s);
}

static void values_isa(const struct tfp_ctx *c, unsigned char *out, size_t n)
{
#if GT_ISA_X86
	if (c->base.isa == GT_ISA_AVX512) {
		values_avx512(c->codes32, n, out, c->grid, c->s);
		return;
	}
	if (c->base.isa == GT_ISA_AVX2) {
		values_avx2(c->codes32, n, out, c->grid, c->s);
		return;
	}
#endif
	values_portable(c->codes32, n, out, c->grid, c->s);
}

/* Stochastic codes of @cnt f32 values into c->codes32 (by_value: only
 * on the FP16 grid, k <= 6; the f32 grid keeps k >= 17 bits). */
static void codes_f32_sr(struct tfp_ctx *c, const unsigned char *src, size_t cnt,
			 struct gt_rng *r)
{
	const unsigned sh = c->s + (c->grid == TFP_F16 ? TFP_EXT : 0);
	uint32_t *out = c->codes32;

#if GT_ISA_X86
	if (c->by_value && c->base.isa == GT_ISA_AVX512)
		r->s = bv_avx512(src, cnt, out, r->s, c->k, sh, c->cmax, c->tab);
	else if (c->by_value && c->base.isa == GT_ISA_AVX2)
		r->s = bv_avx2(src, cnt, out, r->s, c->k, sh, c->cmax, c->tab);
	else if (c->base.isa == GT_ISA_AVX512)
		r->s = sr_avx512(src, cnt, out, r->s, c->grid, c->k, sh, c->cmax);
	else if (c->base.isa == GT_ISA_AVX2)
		r->s = sr_avx2(src, cnt, out, r->s, c->grid, c->k, sh, c->cmax);
	else
#endif
	if (c->by_value)
		r->s = bv_portable(src, cnt, out, r->s, c->k, sh, c->cmax, c->tab);
	else
		r->s = sr_portable(src, cnt, out, r->s, c->grid, c->k, sh, c->cmax);
}

/* Codes of @cnt f32 values at @src into c->codes32. */
static void codes_f32(struct tfp_ctx *c, const unsigned char *src, size_t cnt,
		      struct gt_rng *r)
{
	if (c->stochastic && (c->s || c->grid == TFP_F16))
		codes_f32_sr(c, src, cnt, r);
	else
		trunc_isa(c, src, cnt);
}

/* Codes of @cnt f16, bf16 or f64 values (their own pattern). */
static void codes_gen(struct tfp_ctx *c, const unsigned char *src, size_t cnt,
		      struct gt_rng *r)
{
	const unsigned k = c->k, s = c->s, w = c->width;
	const int round = c->stochastic && s;
	const uint64_t lmask = s ? (UINT64_C(1) << s) - 1 : 0;

	for (size_t i = 0; i < cnt; i++) {
		const uint64_t u = gt_fp_load(src, c->dt, i);
		uint64_t a = u & c->amask, cm;
		const int fin = a < c->inf;

		a |= s && a > c->inf ? c->quiet : 0;
		cm = a >> s;
		if (round && c->by_value && fin) {
			cm = round_by_value(c, fabs(gt_fp_get(src, c->dt, i)), cm, r);
		} else if (round) {
			cm += fin & ((gt_rng_u64(r) >> (64 - s)) < (a & lmask));
			cm = fin && cm > c->cmax ? c->cmax : cm;
		}
		c->codes[i] = (u >> (w - 1)) << (k - 1) | cm;
	}
}

/* Append @cnt codes of k bits. */
static void pack(struct gt_bitw *w, const uint64_t *codes, size_t cnt, unsigned k)
{
	size_t i = 0;

	if (k <= 56) {
		/* g codes a put: 7 pending bits + g * k <= 63 */
		const unsigned g = 56 / k;
		struct gt_bitw_fast f = gt_bitw_fast_load(w);

		for (; i + g <= cnt && w->end - f.ptr >= 8; i += g) {
			uint64_t word = codes[i];

			for (unsigned j = 1; j < g; j++)
				word |= codes[i + j] << (j * k);
			gt_bitw_fast_put(&f, word, g * k);
		}
		gt_bitw_fast_store(&f, w);
	}
	for (; i < cnt; i++) {
		if (k > 32) {
			gt_bitw_put(w, codes[i] & 0xffffffffu, 32);
			gt_bitw_flush(w);
			gt_bitw_put(w, codes[i] >> 32, k - 32);
		} else {
			gt_bitw_put(w, codes[i], k);
		}
		gt_bitw_flush(w);
	}
}

/* Read @cnt codes of k bits. */
static void unpack(struct gt_bitr *r, uint64_t *codes, size_t cnt, unsigned k)
{
	size_t i = 0;

	if (k <= 28) {
		const unsigned g = GT_BITR_MAX / k;
		const uint64_t mask = (UINT64_C(1) << k) - 1;

		for (; i + g <= cnt; i += g) {
			uint64_t acc;

			gt_bitr_refill(r);
			acc = r->acc;
			for (unsigned j = 0; j < g; j++)
				codes[i + j] = acc >> (j * k) & mask;
			gt_bitr_consume(r, g * k);
		}
	}
	for (; i < cnt; i++) {
		if (k > 32) {
			const uint64_t lo = gt_bitr_get(r, 32);

			codes[i] = lo | gt_bitr_get(r, k - 32) << 32;
		} else {
			codes[i] = gt_bitr_get(r, k);
		}
	}
}

static int tfp_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		      void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct tfp_ctx *c = tfp(ctx);
	const unsigned char *in = src;
	const unsigned width = gt_dtype_size(c->dt);
	unsigned char *out = dst;
	struct gt_bitw w;
	struct gt_rng r;

	if ((n * c->k + 7) / 8 > dst_cap)
		return GT_ERR(DST_TOO_SMALL);
	gt_rng_init(&r, c->seed, c->stream, c->pos);
	if (c->dt == GT_DT_F32) {
		/* TFP_BATCH codes are a whole number of bytes */
		for (size_t i = 0; i < n; i += TFP_BATCH) {
			const size_t cnt = n - i < TFP_BATCH ? n - i : TFP_BATCH;

			codes_f32(c, in + i * width, cnt, &r);
			gt_bitpack_isa(c->codes32, cnt, c->k, out + i / 8 * c->k, c->base.isa);
		}
		*dst_len_ret = (n * c->k + 7) / 8;
		return 0;
	}
	gt_bitw_init(&w, dst, dst_cap);
	for (size_t i = 0; i < n; i += TFP_BATCH) {
		const size_t cnt = n - i < TFP_BATCH ? n - i : TFP_BATCH;

		codes_gen(c, in + i * width, cnt, &r);
		pack(&w, c->codes, cnt, c->k);
	}
	return gt_bitw_close(&w, dst_len_ret);
}

/* Values of @cnt codes into @out (f16, bf16, f64). */
static void values_gen(const struct tfp_ctx *c, unsigned char *out, size_t cnt)
{
	for (size_t i = 0; i < cnt; i++)
		gt_fp_store(out, c->dt, i, c->codes[i] << c->s);
}

static int decode_f32(struct tfp_ctx *c, const unsigned char *src, float *dst, size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n && rc >= 0; i += TFP_BATCH) {
		const size_t cnt = n - i < TFP_BATCH ? n - i : TFP_BATCH;

		rc = gt_bitunpack_isa(src + i / 8 * c->k, cnt, c->k, c->codes32, c->base.isa);
		values_isa(c, (unsigned char *)(dst + i), cnt);
	}
	return rc;
}

static int tfp_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		      void *dst, size_t n)
{
	struct tfp_ctx *c = tfp(ctx);
	const unsigned width = gt_dtype_size(c->dt);
	struct gt_bitr r;

	if (n > (SIZE_MAX - 7) / c->k || (n * c->k + 7) / 8 > src_len)
		return GT_ERR(TRUNCATED);
	if ((n * c->k + 7) / 8 < src_len)
		return GT_ERR(CORRUPT);
	if (c->dt == GT_DT_F32)
		return decode_f32(c, src, dst, n);
	gt_bitr_init(&r, src, src_len);
	for (size_t i = 0; i < n; i += TFP_BATCH) {
		const size_t cnt = n - i < TFP_BATCH ? n - i : TFP_BATCH;

		unpack(&r, c->codes, cnt, c->k);
		values_gen(c, (unsigned char *)dst + i * width, cnt);
	}
	return gt_bitr_finish(&r);
}

const struct gt_codec gt_codec_tfp = {
	.name = "tfp",
	.id = 5,
	.flags = GT_CODEC_STOCHASTIC,
	.help = "bits=K     bits kept a value: f32 2-32 (FP16 grid for K <= 16, FP8 E5M2\n"
		"           = FP16's top byte for K <= 8), f16 and bf16 2-16, f64 2-64\n"
		"           (default 16)\n"
		"round=R    trunc or stochastic (Eq. 5; default trunc)\n"
		"seed=N     seed of round=stochastic (default 0)\n",
	.ctx_new = tfp_new,
	.ctx_free = tfp_free,
	.canon = tfp_canon,
	.bound = tfp_bound,
	.encode = tfp_encode,
	.decode = tfp_decode,
	.seek = tfp_seek,
};
