/* topk.c - Top-k sparsification: the k largest magnitudes, exactly */
#include "sparse_impl.h"
#include "../banned.h"

/*
 * k = ceil(n / cf) (or keep=, k=) values of the block, the k largest by
 * |x| in gtool's magnitude order (gt_sparse.h: NaN above Inf above every
 * finite value, ties to the earlier position), found by radix selection
 * on the magnitude bits, not by sorting.  Kept values are stored
 * bit-exactly in the input dtype; the rest decode as +0.
 */
static int topk_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		    size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	return sp_new(p, kv, nkv, "topk", 0, ctx_ret, d);
}

static int topk_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		       void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct sp_ctx *c = sp_of(ctx);
	const size_t k = gt_sparse_k(&c->o, n);

	GT_TRY(gt_sparse_topk(&c->w, src, c->dt, n, k));
	return sp_pack(c, src, n, k, dst, dst_cap, dst_len_ret);
}

const struct gt_codec gt_codec_topk = {
	.name = "topk",
	.id = 8,
	.flags = GT_CODEC_WHOLE_BLOCK,
	.help = "cf=X       compression factor >= 1: keep k = ceil(n/X) values (default 100)\n"
		"keep=S     or the share 0 < S <= 1 to keep: k = ceil(n*S)\n"
		"k=N        or exactly N values a block\n",
	.ctx_new = topk_new,
	.ctx_free = sp_free,
	.canon = sp_canon,
	.bound = sp_bound,
	.encode = topk_encode,
	.decode = sp_decode,
};
