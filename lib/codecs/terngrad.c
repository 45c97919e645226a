/* terngrad.c - TernGrad: stochastic ternary values scaled by max |g| */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codec_impl.h"
#include "../gt_bitio.h"
#include "../gt_rng.h"
#include "../gt_sparse.h"
#include "../banned.h"

/*
 * TernGrad (Wen et al., NeurIPS 2017) as GRACE codes it, over a whole
 * block: sigma is the standard deviation of the block's finite values
 * (population, about their mean), each |g| is clipped at c = 2.5 sigma,
 * the scale S = max clipped |g| (an f32 rounded up), and each value
 * becomes sign(g) S with probability min(|g|, c) / S, else 0: unbiased
 * for the clipped gradient.  2 bits a value: 0 is 0, 1 is +S, 2 is -S,
 * 3 an escape.
 * Chunk: f32 S | 2-bit codes, LSB-first, zero-padded to a byte | the raw
 * values (input dtype) of the escapes.  NaN and +-Inf are escapes, kept
 * bit-exactly (outside sigma and S); -0 and +0 decode as +0; subnormals
 * are treated like any value.
 */
struct tg_ctx {
	struct gt_codec_base base;
	enum gt_dtype dt;
	uint64_t seed, stream, pos;
};

enum { TG_ZERO = 0, TG_PLUS = 1, TG_MINUS = 2, TG_ESC = 3 };

static int terngrad_new(const struct gt_codec_params *p, const struct gt_kv *kv,
			size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	struct tg_ctx *c;
	long seed = 0;

	for (size_t i = 0; i < nkv; i++) {
		if (strcmp(kv[i].key, "seed"))
			return gt_kv_unknown(&kv[i], "terngrad", d);
		GT_TRY(gt_kv_int(&kv[i], "terngrad", 0, LONG_MAX, &seed, d));
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->dt = p->dtype;
	c->seed = (uint64_t)seed;
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void terngrad_free(struct gt_codec_ctx *ctx)
{
	free(ctx);
}

static size_t terngrad_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct tg_ctx *c = (const struct tg_ctx *)(const void *)ctx;
	const int n = snprintf(buf, cap, "seed=%llu", (unsigned long long)c->seed);

	return n < 0 ? 0 : (size_t)n;
}

static size_t terngrad_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct tg_ctx *c = (const struct tg_ctx *)(const void *)ctx;
	const size_t w = gt_dtype_size(c->dt);

	if (n > (SIZE_MAX - 64) / (w + 1))
		return 0;
	return 4 + (n + 3) / 4 + n * w;
}

static void terngrad_seek(struct gt_codec_ctx *ctx, uint64_t stream, uint64_t pos)
{
	struct tg_ctx *c = (struct tg_ctx *)(void *)ctx;

	c->stream = stream;
	c->pos = pos;
}

/* The clip c = 2.5 sigma and the scale S (before rounding); the escapes. */
static void clip_scale(const struct tg_ctx *c, const void *src, size_t n,
		       double *clip, double *scale, size_t *nesc)
{
	double sum = 0, var = 0, mean, m = 0;
	size_t cnt = 0;

	for (size_t i = 0; i < n; i++) {
		const double x = gt_fp_get(src, c->dt, i);

		if (isfinite(x)) {
			sum += x;
			cnt++;
		}
	}
	mean = cnt ? sum / (double)cnt : 0;
	for (size_t i = 0; i < n; i++) {
		const double x = gt_fp_get(src, c->dt, i);

		if (isfinite(x)) {
			var += (x - mean) * (x - mean);
			m = fabs(x) > m ? fabs(x) : m;
		}
	}
	*clip = 2.5 * sqrt(cnt ? var / (double)cnt : 0);
	*scale = m < *clip ? m : *clip;
	*nesc = n - cnt;
}

static int terngrad_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
			   void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct tg_ctx *c = (struct tg_ctx *)(void *)ctx;
	const size_t w = gt_dtype_size(c->dt), cb = (n + 3) / 4;
	unsigned char *q = dst, *esc = q + 4 + cb;
	double clip, scale;
	size_t nesc;
	struct gt_bitw bw;
	struct gt_rng r;
	float s;

	clip_scale(c, src, n, &clip, &scale, &nesc);
	if (dst_cap < 4 + cb || dst_cap - 4 - cb < nesc * w)
		return GT_ERR(DST_TOO_SMALL);
	s = gt_sparse_f32_up(scale);
	memcpy(q, &s, 4);
	gt_bitw_init(&bw, q + 4, cb);
	gt_rng_init(&r, c->seed, c->stream, c->pos);
	for (size_t i = 0; i < n; i++) {
		const double x = gt_fp_get(src, c->dt, i), u = gt_rng_unit(&r);
		const double a = fabs(x) < clip ? fabs(x) : clip;
		unsigned code = TG_ZERO;

		if (!isfinite(x)) {
			code = TG_ESC;
			memcpy(esc, (const unsigned char *)src + i * w, w);
			esc += w;
		} else if (u * s < a) {
			code = signbit(x) ? TG_MINUS : TG_PLUS;
		}
		gt_bitw_put(&bw, code, 2);
		gt_bitw_flush(&bw);
	}
	GT_TRY(gt_bitw_close(&bw, dst_len_ret));
	*dst_len_ret = (size_t)(esc - q);
	return 0;
}

static int terngrad_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
			   void *dst, size_t n)
{
	struct tg_ctx *c = (struct tg_ctx *)(void *)ctx;
	const size_t w = gt_dtype_size(c->dt), cb = (n + 3) / 4;
	const unsigned char *p = src, *esc = p + 4 + cb, *end = p + src_len;
	struct gt_bitr br;
	float s;

	if (src_len < 4 + cb)
		return GT_ERR(TRUNCATED);
	memcpy(&s, p, 4);
	if (!(s >= 0 && s <= FLT_MAX))
		return GT_ERR(CORRUPT);
	gt_bitr_init(&br, p + 4, cb);
	for (size_t i = 0; i < n; i++) {
		const unsigned code = (unsigned)gt_bitr_get(&br, 2);

		if (code == TG_ESC) {
			if ((size_t)(end - esc) < w)
				return GT_ERR(TRUNCATED);
			memcpy((unsigned char *)dst + i * w, esc, w);
			esc += w;
		} else {
			gt_sparse_put(dst, c->dt, i, code == TG_ZERO ? 0.0
					 : code == TG_PLUS ? (double)s : -(double)s);
		}
	}
	GT_TRY(gt_bitr_finish(&br));
	return esc == end ? 0 : GT_ERR(CORRUPT);
}

const struct gt_codec gt_codec_terngrad = {
	.name = "terngrad",
	.id = 13,
	.flags = GT_CODEC_WHOLE_BLOCK | GT_CODEC_STOCHASTIC,
	.help = "seed=N     random seed (default 0)\n",
	.ctx_new = terngrad_new,
	.ctx_free = terngrad_free,
	.canon = terngrad_canon,
	.bound = terngrad_bound,
	.encode = terngrad_encode,
	.decode = terngrad_decode,
	.seek = terngrad_seek,
};
