/* zlib.c - zlib (deflate) at a level, the GComp paper's baseline */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../codec_impl.h"
#include "../banned.h"

struct zlib_ctx {
	struct gt_codec_base base;
	unsigned width;
	int level;
};

static int zlib_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		    size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	struct zlib_ctx *c;
	long level = 6;

	for (size_t i = 0; i < nkv; i++) {
		if (strcmp(kv[i].key, "level"))
			return gt_kv_unknown(&kv[i], "zlib", d);
		GT_TRY(gt_kv_int(&kv[i], "zlib", 1, 9, &level, d));
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->width = gt_dtype_size(p->dtype);
	c->level = (int)level;
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void zlib_free(struct gt_codec_ctx *ctx)
{
	free(ctx);
}

static size_t zlib_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct zlib_ctx *c = (const struct zlib_ctx *)(const void *)ctx;

	return (size_t)snprintf(buf, cap, "level=%d", c->level);
}

static size_t zlib_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct zlib_ctx *c = (const struct zlib_ctx *)(const void *)ctx;
	const size_t len = n * c->width;

	if (len > (size_t)UINT32_MAX)
		return 0;
	return compressBound((uLong)len);
}

static int zlib_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		       void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	const struct zlib_ctx *c = (const struct zlib_ctx *)(void *)ctx;
	uLongf out = dst_cap > UINT32_MAX ? UINT32_MAX : (uLongf)dst_cap;
	const size_t len = n * c->width;
	int zrc;

	if (len > UINT32_MAX)
		return GT_ERR(OVERFLOW);
	zrc = compress2(dst, &out, src, (uLong)len, c->level);
	if (zrc == Z_BUF_ERROR)
		return GT_ERR(DST_TOO_SMALL);
	if (zrc != Z_OK)
		return zrc == Z_MEM_ERROR ? GT_ERR(NOMEM) : GT_ERR(INVAL);
	*dst_len_ret = out;
	return 0;
}

static int zlib_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		       void *dst, size_t n)
{
	const struct zlib_ctx *c = (const struct zlib_ctx *)(void *)ctx;
	const size_t len = n * c->width;
	uLongf out = (uLongf)len;
	uLong in = (uLong)src_len;
	unsigned char dummy;
	int zrc;

	if (len > UINT32_MAX || src_len > UINT32_MAX)
		return GT_ERR(CORRUPT);
	/* zlib refuses a NULL or zero-sized output; decode into a byte */
	zrc = uncompress2(len ? dst : &dummy, &out, src, &in);
	if (zrc == Z_MEM_ERROR)
		return GT_ERR(NOMEM);
	if (zrc == Z_BUF_ERROR && in == src_len)
		return len ? GT_ERR(CORRUPT) : GT_ERR(TRUNCATED);
	if (zrc != Z_OK)
		return GT_ERR(CORRUPT);
	if (out != len || in != src_len)
		return GT_ERR(CORRUPT);
	return 0;
}

const struct gt_codec gt_codec_zlib = {
	.name = "zlib",
	.id = 1,
	.flags = GT_CODEC_LOSSLESS,
	.help = "level=N    deflate level, 1-9 (default 6)\n",
	.ctx_new = zlib_new,
	.ctx_free = zlib_free,
	.canon = zlib_canon,
	.bound = zlib_bound,
	.encode = zlib_encode,
	.decode = zlib_decode,
};
