/* zstd.c - Zstandard at a level, the GComp paper's other baseline */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "../codec_impl.h"
#include "../banned.h"

struct zstd_ctx {
	struct gt_codec_base base;
	unsigned width;
	int level;
	ZSTD_CCtx *cctx; /* made on first use: a decoding context needs none */
	ZSTD_DCtx *dctx;
};

static int zstd_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		    size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	struct zstd_ctx *c;
	long level = 3;

	for (size_t i = 0; i < nkv; i++) {
		if (strcmp(kv[i].key, "level"))
			return gt_kv_unknown(&kv[i], "zstd", d);
		GT_TRY(gt_kv_int(&kv[i], "zstd", 1, ZSTD_maxCLevel(), &level, d));
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->width = gt_dtype_size(p->dtype);
	c->level = (int)level;
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void zstd_free(struct gt_codec_ctx *ctx)
{
	struct zstd_ctx *c = (struct zstd_ctx *)(void *)ctx;

	ZSTD_freeCCtx(c->cctx);
	ZSTD_freeDCtx(c->dctx);
	free(c);
}

static size_t zstd_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct zstd_ctx *c = (const struct zstd_ctx *)(const void *)ctx;

	return (size_t)snprintf(buf, cap, "level=%d", c->level);
}

static size_t zstd_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct zstd_ctx *c = (const struct zstd_ctx *)(const void *)ctx;
	const size_t b = ZSTD_compressBound(n * c->width);

	return ZSTD_isError(b) ? 0 : b;
}

static int zstd_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		       void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct zstd_ctx *c = (struct zstd_ctx *)(void *)ctx;
	size_t r;

	if (!c->cctx && !(c->cctx = ZSTD_createCCtx()))
		return GT_ERR(NOMEM);
	r = ZSTD_compressCCtx(c->cctx, dst, dst_cap, src, n * c->width, c->level);
	if (ZSTD_isError(r))
		return ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall
			       ? GT_ERR(DST_TOO_SMALL) : GT_ERR(NOMEM);
	*dst_len_ret = r;
	return 0;
}

static int zstd_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		       void *dst, size_t n)
{
	struct zstd_ctx *c = (struct zstd_ctx *)(void *)ctx;
	const size_t len = n * c->width;
	size_t r;

	if (!c->dctx && !(c->dctx = ZSTD_createDCtx()))
		return GT_ERR(NOMEM);
	/* one frame, exactly: trailing bytes are corruption, not padding */
	r = ZSTD_findFrameCompressedSize(src, src_len);
	if (ZSTD_isError(r))
		return ZSTD_getErrorCode(r) == ZSTD_error_srcSize_wrong
			       ? GT_ERR(TRUNCATED) : GT_ERR(CORRUPT);
	if (r != src_len)
		return GT_ERR(CORRUPT);
	r = ZSTD_decompressDCtx(c->dctx, dst, len, src, src_len);
	if (ZSTD_isError(r) || r != len)
		return GT_ERR(CORRUPT);
	return 0;
}

const struct gt_codec gt_codec_zstd = {
	.name = "zstd",
	.id = 2,
	.flags = GT_CODEC_LOSSLESS,
	.help = "level=N    Zstandard level, 1-19 and above (default 3)\n",
	.ctx_new = zstd_new,
	.ctx_free = zstd_free,
	.canon = zstd_canon,
	.bound = zstd_bound,
	.encode = zstd_encode,
	.decode = zstd_decode,
};
