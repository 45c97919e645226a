/* qsgd.c - QSGD: stochastic rounding of |x| / ||x|| to s levels */
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
 * QSGD (Alistarh et al., NeurIPS 2017) with s = levels: per chunk the L2
 * norm N of its finite values (an f32, rounded up so that |x| <= N); each
 * value becomes sign and level l in 0..s, l = floor(s|x|/N) plus 1 with
 * probability frac(s|x|/N), so that E[l N / s] = |x| (unbiased).  A code
 * is the sign bit then ceil(log2(s+1)) level bits: levels=3 is 3 bits a
 * value, levels=7 4 bits, levels=8 5 bits.
 * Chunk: f32 N | codes, LSB-first, zero-padded to a byte | the raw
 * values (input dtype) of the codes that are escapes.
 * Code "sign 1, level 0" is the escape: NaN and +-Inf are stored raw,
 * bit-exactly (outside the norm).  Level 0 otherwise has sign 0: -0 and
 * small values rounded to 0 decode as +0.  Subnormals are quantized like
 * any value.  Decoded values are l N / s in the input dtype (f16, bf16
 * rounded through f32).
 */
struct qs_ctx {
	struct gt_codec_base base;
	enum gt_dtype dt;
	unsigned s, bits; /* levels, bits a code */
	uint64_t seed, stream, pos;
};

#define QS_ESC 1u

static int qsgd_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		    size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	long s = 3, seed = 0;
	struct qs_ctx *c;

	for (size_t i = 0; i < nkv; i++) {
		if (!strcmp(kv[i].key, "levels"))
			GT_TRY(gt_kv_int(&kv[i], "qsgd", 1, 32767, &s, d));
		else if (!strcmp(kv[i].key, "seed"))
			GT_TRY(gt_kv_int(&kv[i], "qsgd", 0, LONG_MAX, &seed, d));
		else
			return gt_kv_unknown(&kv[i], "qsgd", d);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->dt = p->dtype;
	c->s = (unsigned)s;
	c->bits = 1;
	while ((1ul << (c->bits - 1)) <= (unsigned long)s)
		c->bits++;
	c->seed = (uint64_t)seed;
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void qsgd_free(struct gt_codec_ctx *ctx)
{
	free(ctx);
}

static size_t qsgd_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct qs_ctx *c = (const struct qs_ctx *)(const void *)ctx;
	const int n = snprintf(buf, cap, "levels=%u,seed=%llu", c->s,
			       (unsigned long long)c->seed);

	return n < 0 ? 0 : (size_t)n;
}

static size_t codes_bytes(size_t n, unsigned bits)
{
	return n / 8 * bits + (n % 8 * bits + 7) / 8;
}

static size_t qsgd_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct qs_ctx *c = (const struct qs_ctx *)(const void *)ctx;
	const size_t w = gt_dtype_size(c->dt);

	if (n > (SIZE_MAX - 64) / (w + 3))
		return 0;
	return 4 + codes_bytes(n, c->bits) + n * w;
}

static void qsgd_seek(struct gt_codec_ctx *ctx, uint64_t stream, uint64_t pos)
{
	struct qs_ctx *c = (struct qs_ctx *)(void *)ctx;

	c->stream = stream;
	c->pos = pos;
}

/* The code of @x at scale s / N, drawing one random number. */
static uint64_t qs_code(const struct qs_ctx *c, double x, double s_over_n,
			struct gt_rng *r)
{
	const double u = gt_rng_unit(r), lf = fabs(x) * s_over_n;
	double l = floor(lf);

	if (!isfinite(x))
		return QS_ESC;
	l += u < lf - l;
	if (l > c->s)
		l = c->s;
	return l > 0 ? ((uint64_t)l << 1) | (signbit(x) ? 1u : 0u) : 0;
}

static int qsgd_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		       void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct qs_ctx *c = (struct qs_ctx *)(void *)ctx;
	const size_t w = gt_dtype_size(c->dt), cb = codes_bytes(n, c->bits);
	unsigned char *q = dst, *esc = q + 4 + cb;
	double sum = 0;
	size_t nesc = 0;
	struct gt_bitw bw;
	struct gt_rng r;
	float norm;

	for (size_t i = 0; i < n; i++) {
		const double x = gt_fp_get(src, c->dt, i);

		if (isfinite(x))
			sum += x * x;
		else
			nesc++;
	}
	if (dst_cap < 4 + cb || dst_cap - 4 - cb < nesc * w)
		return GT_ERR(DST_TOO_SMALL);
	norm = gt_sparse_f32_up(sqrt(sum));
	memcpy(q, &norm, 4);
	gt_bitw_init(&bw, q + 4, cb);
	gt_rng_init(&r, c->seed, c->stream, c->pos);
	for (size_t i = 0; i < n; i++) {
		const double x = gt_fp_get(src, c->dt, i);
		const uint64_t code = qs_code(c, x, norm > 0 ? c->s / (double)norm : 0, &r);

		gt_bitw_put(&bw, code, c->bits);
		gt_bitw_flush(&bw);
		if (code == QS_ESC) {
			memcpy(esc, (const unsigned char *)src + i * w, w);
			esc += w;
		}
	}
	GT_TRY(gt_bitw_close(&bw, dst_len_ret));
	*dst_len_ret = (size_t)(esc - q);
	return 0;
}

static int qsgd_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		       void *dst, size_t n)
{
	struct qs_ctx *c = (struct qs_ctx *)(void *)ctx;
	const size_t w = gt_dtype_size(c->dt), cb = codes_bytes(n, c->bits);
	const unsigned char *p = src, *esc = p + 4 + cb, *end = p + src_len;
	struct gt_bitr br;
	double step;
	float norm;

	if (src_len < 4 + cb)
		return GT_ERR(TRUNCATED);
	memcpy(&norm, p, 4);
	if (!(norm >= 0 && norm <= FLT_MAX))
		return GT_ERR(CORRUPT);
	step = (double)norm / c->s;
	gt_bitr_init(&br, p + 4, cb);
	for (size_t i = 0; i < n; i++) {
		const uint64_t code = gt_bitr_get(&br, c->bits);

		if (code == QS_ESC) {
			if ((size_t)(end - esc) < w)
				return GT_ERR(TRUNCATED);
			memcpy((unsigned char *)dst + i * w, esc, w);
			esc += w;
			continue;
		}
		if ((code >> 1) > c->s)
			return GT_ERR(CORRUPT);
		gt_sparse_put(dst, c->dt, i, (code & 1 ? -1.0 : 1.0) * (double)(code >> 1) * step);
	}
	GT_TRY(gt_bitr_finish(&br));
	return esc == end ? 0 : GT_ERR(CORRUPT);
}

const struct gt_codec gt_codec_qsgd = {
	.name = "qsgd",
	.id = 12,
	.flags = GT_CODEC_STOCHASTIC,
	.help = "levels=N   quantization levels s, 1-32767 (default 3: 3 bits a value)\n"
		"seed=N     random seed (default 0)\n",
	.ctx_new = qsgd_new,
	.ctx_free = qsgd_free,
	.canon = qsgd_canon,
	.bound = qsgd_bound,
	.encode = qsgd_encode,
	.decode = qsgd_decode,
	.seek = qsgd_seek,
};
