/* rangeq.c - the offset-based N-bit float of the FFT paper (gt_rangeq.h) as a codec */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codec_impl.h"
#include "../gt_rangeq.h"
#include "../banned.h"

/*
 * A chunk: the GT_RANGEQ_HDR bytes of its parameters (m, pbase, P), then
 * the n codes of bits=N bits, LSB-first, zero-padded to a byte.  [min,
 * max] is the chunk's own (finite values only) unless min=/max= fix
 * either end; m is the sample-best (gt_rangeq_fit_auto) unless m= fixes
 * it.  NaN codes as 0 (zero), ±Inf and values beyond [min, max] clamp to
 * the end codes, -0 and every |x| below eps code as +0; subnormals are
 * ordinary values (below eps unless the whole range is subnormal).
 * f32 only: rangeq is the FFT paper's quantizer of f32 gradients.
 */

struct rq_ctx {
	struct gt_codec_base base;
	unsigned bits;
	unsigned m;          /* 0: auto */
	int have_min, have_max;
	float min, max;      /* when given */
	int fixed;           /* min, max and m given: q made once */
	struct gt_rangeq q;
};

static int rq_range(const char *key, const struct gt_kv *kv, float *v,
		    struct gt_diag *d)
{
	double x;

	GT_TRY(gt_kv_double(kv, "rangeq", -3.4e38, 3.4e38, &x, d));
	if (strcmp(key, "min") ? x < 0 : x > 0)
		return gt_diag_set(d, GT_ERR(INVAL),
				   "codec rangeq: invalid %s '%s': min must be <= 0 and max >= 0",
				   key, kv->val);
	*v = (float)x;
	return 0;
}

static int rq_opt(struct rq_ctx *c, const struct gt_kv *kv, struct gt_diag *d)
{
	long v;

	if (!strcmp(kv->key, "bits")) {
		GT_TRY(gt_kv_int(kv, "rangeq", GT_RANGEQ_BITS_MIN, GT_RANGEQ_BITS_MAX, &v, d));
		c->bits = (unsigned)v;
	} else if (!strcmp(kv->key, "m")) {
		if (!strcmp(kv->val, "auto")) {
			c->m = 0;
			return 0;
		}
		GT_TRY(gt_kv_int(kv, "rangeq", 1, GT_RANGEQ_M_MAX, &v, d));
		c->m = (unsigned)v;
	} else if (!strcmp(kv->key, "min")) {
		GT_TRY(rq_range("min", kv, &c->min, d));
		c->have_min = 1;
	} else if (!strcmp(kv->key, "max")) {
		GT_TRY(rq_range("max", kv, &c->max, d));
		c->have_max = 1;
	} else {
		return gt_kv_unknown(kv, "rangeq", d);
	}
	return 0;
}

static int rq_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		  size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	struct rq_ctx *c;
	int rc = 0;

	if (p->dtype != GT_DT_F32)
		return gt_diag_set(d, GT_ERR(TYPE), "codec rangeq: %s not supported (f32 only)",
				   gt_dtype_name(p->dtype));
	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->bits = 10;
	for (size_t i = 0; i < nkv && rc >= 0; i++)
		rc = rq_opt(c, &kv[i], d);
	c->fixed = c->have_min && c->have_max && c->m;
	if (rc >= 0 && c->fixed)
		rc = gt_rangeq_fit(&c->q, c->bits, c->m, gt_f32_bits(c->max) & 0x7fffffffu,
				   gt_f32_bits(c->min) & 0x7fffffffu);
	if (rc < 0) {
		free(c);
		return rc;
	}
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void rq_free(struct gt_codec_ctx *ctx)
{
	free(ctx);
}

static size_t rq_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct rq_ctx *c = (const struct rq_ctx *)(const void *)ctx;
	char m[16] = "auto", mn[40] = "", mx[40] = "";

	if (c->m)
		snprintf(m, sizeof(m), "%u", c->m);
	if (c->have_min)
		snprintf(mn, sizeof(mn), ",min=%.9g", (double)c->min);
	if (c->have_max)
		snprintf(mx, sizeof(mx), ",max=%.9g", (double)c->max);
	return (size_t)snprintf(buf, cap, "bits=%u,m=%s%s%s", c->bits, m, mn, mx);
}

static size_t rq_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct rq_ctx *c = (const struct rq_ctx *)(const void *)ctx;

	return GT_RANGEQ_HDR + (n * c->bits + 7) / 8;
}

static int rq_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		     void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct rq_ctx *c = (struct rq_ctx *)(void *)ctx;
	const float *x = src;
	unsigned char *out = dst;
	size_t len;

	if (dst_cap < GT_RANGEQ_HDR)
		return GT_ERR(DST_TOO_SMALL);
	if (!c->fixed) {
		uint32_t pos, neg;

		gt_rangeq_range_isa(x, n, c->base.isa, &pos, &neg);
		if (c->have_max)
			pos = gt_f32_bits(c->max) & 0x7fffffffu;
		if (c->have_min)
			neg = gt_f32_bits(c->min) & 0x7fffffffu;
		if (c->m)
			GT_TRY(gt_rangeq_fit(&c->q, c->bits, c->m, pos, neg));
		else
			GT_TRY(gt_rangeq_fit_auto_isa(&c->q, c->bits, pos, neg, x, n,
						      c->base.isa));
	}
	c->q.isa = c->base.isa;
	gt_rangeq_save(&c->q, out);
	GT_TRY(gt_rangeq_pack(&c->q, x, n, out + GT_RANGEQ_HDR, dst_cap - GT_RANGEQ_HDR,
			      &len));
	*dst_len_ret = GT_RANGEQ_HDR + len;
	return 0;
}

static int rq_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		     void *dst, size_t n)
{
	struct rq_ctx *c = (struct rq_ctx *)(void *)ctx;
	const unsigned char *in = src;
	struct gt_rangeq q;

	if (src_len < GT_RANGEQ_HDR)
		return GT_ERR(TRUNCATED);
	GT_TRY(gt_rangeq_load(&q, c->bits, in));
	q.isa = c->base.isa;
	return gt_rangeq_unpack(&q, in + GT_RANGEQ_HDR, src_len - GT_RANGEQ_HDR, dst, n);
}

const struct gt_codec gt_codec_rangeq = {
	.name = "rangeq",
	.id = 6,
	.flags = 0,
	.help = "bits=N     code bits a value, 2-16 (default 10)\n"
		"m=M        mantissa bits, 1-23, or auto (default: least error on a sample)\n"
		"min=X      lower end of the range, <= 0 (default: the chunk's)\n"
		"max=X      upper end of the range, >= 0 (default: the chunk's)\n",
	.ctx_new = rq_new,
	.ctx_free = rq_free,
	.canon = rq_canon,
	.bound = rq_bound,
	.encode = rq_encode,
	.decode = rq_decode,
};
