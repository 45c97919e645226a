/* raw.c - the identity codec: values stored as they are */
#include <stdlib.h>
#include <string.h>

#include "../codec_impl.h"
#include "../banned.h"

struct raw_ctx {
	struct gt_codec_base base;
	unsigned width;
};

static int raw_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		   size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	struct raw_ctx *c;

	if (nkv)
		return gt_kv_unknown(&kv[0], "raw", d);
	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->width = gt_dtype_size(p->dtype);
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void raw_free(struct gt_codec_ctx *ctx)
{
	free(ctx);
}

static size_t raw_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	(void)ctx;
	if (cap)
		buf[0] = 0;
	return 0;
}

static size_t raw_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct raw_ctx *c = (const struct raw_ctx *)(const void *)ctx;

	return n * c->width;
}

static int raw_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		      void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	const size_t len = raw_bound(ctx, n);

	if (len > dst_cap)
		return GT_ERR(DST_TOO_SMALL);
	if (len)
		memcpy(dst, src, len);
	*dst_len_ret = len;
	return 0;
}

static int raw_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		      void *dst, size_t n)
{
	const size_t len = raw_bound(ctx, n);

	if (src_len < len)
		return GT_ERR(TRUNCATED);
	if (src_len > len)
		return GT_ERR(CORRUPT);
	if (len)
		memcpy(dst, src, len);
	return 0;
}

const struct gt_codec gt_codec_raw = {
	.name = "raw",
	.id = 0,
	.flags = GT_CODEC_LOSSLESS,
	.help = "(no options)\n",
	.ctx_new = raw_new,
	.ctx_free = raw_free,
	.canon = raw_canon,
	.bound = raw_bound,
	.encode = raw_encode,
	.decode = raw_decode,
};
