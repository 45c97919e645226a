/* sparse_common.c - the context and calls topk, randk, dgc and redsync share */
#include <stdlib.h>
#include <string.h>

#include "sparse_impl.h"
#include "../banned.h"

int sp_new(const struct gt_codec_params *p, const struct gt_kv *kv, size_t nkv,
	   const char *name, unsigned accept, struct gt_codec_ctx **ctx_ret,
	   struct gt_diag *d)
{
	struct gt_sparse_opts o;
	struct sp_ctx *c;

	GT_TRY(gt_sparse_opts_parse(kv, nkv, name, accept, &o, d));
	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->dt = p->dtype;
	c->o = o;
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

void sp_free(struct gt_codec_ctx *ctx)
{
	struct sp_ctx *c = sp_of(ctx);

	gt_sparse_work_release(&c->w);
	free(c);
}

size_t sp_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct sp_ctx *c = (const struct sp_ctx *)(const void *)ctx;

	return gt_sparse_opts_canon(&c->o, buf, cap);
}

size_t sp_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct sp_ctx *c = (const struct sp_ctx *)(const void *)ctx;

	return gt_sparse_bound(c->dt, n);
}

int sp_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
	      void *dst, size_t n)
{
	return gt_sparse_unpack(src, src_len, sp_of(ctx)->dt, dst, n, NULL);
}

void sp_seek(struct gt_codec_ctx *ctx, uint64_t stream, uint64_t pos)
{
	struct sp_ctx *c = sp_of(ctx);

	c->stream = stream;
	c->pos = pos;
}

int sp_pack(struct sp_ctx *c, const void *src, size_t n, size_t k, void *dst,
	    size_t dst_cap, size_t *dst_len_ret)
{
	return gt_sparse_pack(src, c->dt, n, c->w.idx, k, GT_SPARSE_AUTO, dst,
			      dst_cap, dst_len_ret);
}
