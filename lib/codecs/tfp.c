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
 */

#define TFP_BATCH 1024
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
	float *lut;       /* FP16 grid decode, 2^k values, made on first use */
	uint64_t codes[TFP_BATCH];
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
	if (ctx)
		free(tfp(ctx)->lut);
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
 */
static inline uint64_t ext16(uint32_t a)
{
	const uint32_t e = a >> 23, es = e < 112 ? e : 112; /* FP16 subnormals */
	const uint64_t mant = (a & 0x7fffffu) | (e ? 0x800000u : 0);
	const uint64_t sub = es >= 86 ? mant << (es - 86) : 86 - es < 64 ? mant >> (86 - es) : 0;
	uint64_t m = a >= 0x38800000u ? (uint64_t)(a - 0x38000000u) << 27 : sub;

	m = a >= 0x47800000u ? (uint64_t)0x7bff << TFP_EXT : m;
	m = a >= 0x7f800000u ? (uint64_t)(a > 0x7f800000u ? 0x7e00 : 0x7c00) << TFP_EXT : m;
	return m;
}


/* Codes of @cnt f32 values at @src into c->codes. */
static void codes_f32(struct tfp_ctx *c, const unsigned char *src, size_t cnt,
		      struct gt_rng *r)
{
	const unsigned k = c->k, s = c->s, st = s + TFP_EXT;
	const uint64_t cmax = c->cmax;
	uint64_t *out = c->codes;

	if (c->grid == TFP_NATIVE && (!c->stochastic || !s)) {
		for (size_t i = 0; i < cnt; i++) {
			uint32_t u;

			memcpy(&u, src + 4 * i, 4);
			u |= s && (u & 0x7fffffffu) > 0x7f800000u ? 0x400000u : 0;
			out[i] = u >> s;
		}
	} else if (c->grid == TFP_F16 && !c->stochastic) {
		for (size_t i = 0; i < cnt; i++) {
			uint32_t u;

			memcpy(&u, src + 4 * i, 4);
			out[i] = (uint64_t)(u >> 31) << (k - 1) | ext16(u & 0x7fffffffu) >> st;
		}
	} else {
		/* Eq. 5: the dropped bits L (sh of them) against an sh-bit r */
		const unsigned sh = c->grid == TFP_F16 ? st : s;
		const uint64_t lmask = (UINT64_C(1) << sh) - 1;

		for (size_t i = 0; i < cnt; i++) {
			uint32_t u, a;
			uint64_t m, cm;
			int fin;

			memcpy(&u, src + 4 * i, 4);
			a = u & 0x7fffffffu;
			fin = a < 0x7f800000u;
			m = c->grid == TFP_F16 ? ext16(a) : a | (fin || a == 0x7f800000u ? 0 : 0x400000u);
			if (c->by_value && fin) {
				cm = round_by_value(c, gt_f32_from_bits(a), m >> sh, r);
			} else {
				cm = (m >> sh) + (fin & ((gt_rng_u64(r) >> (64 - sh)) < (m & lmask)));
				cm = fin && cm > cmax ? cmax : cm;
			}
			out[i] = (uint64_t)(u >> 31) << (k - 1) | cm;
		}
	}
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

/*
 * The f32 hot loops: truncation codes @G at a time straight into the
 * register writer (G constant, so the inner loop unrolls), while 8 bytes
 * of room are left; returns how many values were coded.
 */
#define TFP_ENC_LOOP(G, CODE)                                                 \
	for (; i + (G) <= n && w->end - f.ptr >= 8; i += (G)) {               \
		uint64_t word = 0;                                            \
		for (unsigned j = 0; j < (G); j++) {                          \
			uint32_t u;                                           \
			memcpy(&u, in + 4 * (i + j), 4);                      \
			word |= (uint64_t)(CODE) << (j * k);                  \
		}                                                             \
		gt_bitw_fast_put(&f, word, (G) * k);                          \
	}
#define TFP_ENC_G(CODE)                                                       \
	do {                                                                  \
		if (k <= 14)                                                  \
			TFP_ENC_LOOP(4, CODE)                                 \
		else if (k <= 28)                                             \
			TFP_ENC_LOOP(2, CODE)                                 \
		else                                                          \
			TFP_ENC_LOOP(1, CODE)                                 \
	} while (0)

static size_t encode_f32_fast(const struct tfp_ctx *c, const unsigned char *in,
			      size_t n, struct gt_bitw *w)
{
	const unsigned k = c->k, s = c->s, st = s + TFP_EXT;
	const uint32_t quiet = s ? 0x400000u : 0;
	struct gt_bitw_fast f = gt_bitw_fast_load(w);
	size_t i = 0;

	if (c->grid == TFP_NATIVE)
		TFP_ENC_G((u | ((u & 0x7fffffffu) > 0x7f800000u ? quiet : 0)) >> s);
	else
		TFP_ENC_G((uint64_t)(u >> 31) << (k - 1) | ext16(u & 0x7fffffffu) >> st);
	gt_bitw_fast_store(&f, w);
	return i;
}

static int tfp_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		      void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct tfp_ctx *c = tfp(ctx);
	const unsigned char *in = src;
	const unsigned width = gt_dtype_size(c->dt);
	struct gt_bitw w;
	struct gt_rng r;

	if ((n * c->k + 7) / 8 > dst_cap)
		return GT_ERR(DST_TOO_SMALL);
	gt_bitw_init(&w, dst, dst_cap);
	gt_rng_init(&r, c->seed, c->stream, c->pos);
	if (c->dt == GT_DT_F32 && (!c->stochastic || (!c->s && c->grid == TFP_NATIVE))) {
		const size_t done = encode_f32_fast(c, in, n, &w);

		in += done * width;
		n -= done;
	}
	for (size_t i = 0; i < n; i += TFP_BATCH) {
		const size_t cnt = n - i < TFP_BATCH ? n - i : TFP_BATCH;

		if (c->dt == GT_DT_F32)
			codes_f32(c, in + i * width, cnt, &r);
		else
			codes_gen(c, in + i * width, cnt, &r);
		pack(&w, c->codes, cnt, c->k);
	}
	return gt_bitw_close(&w, dst_len_ret);
}

/* The FP16-grid decode table: code -> f32 value. */
static int make_lut(struct tfp_ctx *c)
{
	const size_t len = (size_t)1 << c->k;

	c->lut = malloc(len * sizeof(*c->lut));
	if (!c->lut)
		return GT_ERR(NOMEM);
	for (size_t x = 0; x < len; x++)
		c->lut[x] = gt_f16_to_f32((uint16_t)(x << c->s));
	return 0;
}

/* Values of @cnt codes into @out (the chunk's output at this batch). */
static void values(const struct tfp_ctx *c, unsigned char *out, size_t cnt)
{
	if (c->grid == TFP_F16) {
		for (size_t i = 0; i < cnt; i++)
			memcpy(out + 4 * i, &c->lut[c->codes[i]], 4);
	} else if (c->dt == GT_DT_F32) {
		for (size_t i = 0; i < cnt; i++) {
			const uint32_t u = (uint32_t)(c->codes[i] << c->s);

			memcpy(out + 4 * i, &u, 4);
		}
	} else {
		for (size_t i = 0; i < cnt; i++)
			gt_fp_store(out, c->dt, i, c->codes[i] << c->s);
	}
}

/* f32 decode, G codes a refill (G k <= GT_BITR_MAX), straight to values. */
#define TFP_DEC_LOOP(G, VALUE)                                                \
	for (; i + (G) <= n; i += (G)) {                                      \
		uint64_t acc;                                                 \
		gt_bitr_refill(r);                                            \
		acc = r->acc;                                                 \
		for (unsigned j = 0; j < (G); j++) {                          \
			const uint64_t code = acc >> (j * k) & mask;          \
			VALUE;                                                \
		}                                                             \
		gt_bitr_consume(r, (G) * k);                                  \
	}
#define TFP_DEC_G(VALUE)                                                      \
	do {                                                                  \
		if (k <= 14)                                                  \
			TFP_DEC_LOOP(4, VALUE)                                \
		else if (k <= 28)                                             \
			TFP_DEC_LOOP(2, VALUE)                                \
		else                                                          \
			TFP_DEC_LOOP(1, VALUE)                                \
	} while (0)

static size_t decode_f32_fast(const struct tfp_ctx *c, struct gt_bitr *r,
			      float *out, size_t n)
{
	const unsigned k = c->k, s = c->s;
	const uint64_t mask = (UINT64_C(1) << k) - 1;
	const float *lut = c->lut;
	size_t i = 0;

	if (c->grid == TFP_F16) {
		TFP_DEC_G(out[i + j] = lut[code]);
	} else {
		TFP_DEC_G(const uint32_t u = (uint32_t)(code << s); memcpy(&out[i + j], &u, 4));
	}
	return i;
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
	if (c->grid == TFP_F16 && !c->lut)
		GT_TRY(make_lut(c));
	gt_bitr_init(&r, src, src_len);
	if (c->dt == GT_DT_F32) {
		const size_t done = decode_f32_fast(c, &r, dst, n);

		dst = (float *)dst + done;
		n -= done;
	}
	for (size_t i = 0; i < n; i += TFP_BATCH) {
		const size_t cnt = n - i < TFP_BATCH ? n - i : TFP_BATCH;

		unpack(&r, c->codes, cnt, c->k);
		values(c, (unsigned char *)dst + i * width, cnt);
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
