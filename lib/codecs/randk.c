/* randk.c - Random-k sparsification: k values drawn uniformly, seeded */
#include "sparse_impl.h"
#include "../banned.h"

/*
 * k of the block's n positions, uniform without replacement (Floyd's
 * algorithm on gt_rng keyed on seed, tensor and block start), whatever
 * the values are: NaN, Inf, -0 and subnormals are kept or dropped like
 * any value, and kept ones are stored bit-exactly.  As in GRACE and
 * GraVAC the kept values are not rescaled by n/k.
 */
static int randk_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		     size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	return sp_new(p, kv, nkv, "randk", GT_SPARSE_SEED, ctx_ret, d);
}

static int randk_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
			void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct sp_ctx *c = sp_of(ctx);
	const size_t k = gt_sparse_k(&c->o, n);

	GT_TRY(gt_sparse_randk(&c->w, n, k, c->o.seed, c->stream, c->pos));
	return sp_pack(c, src, n, k, dst, dst_cap, dst_len_ret);
}

const struct gt_codec gt_codec_randk = {
	.name = "randk",
	.id = 9,
	.flags = GT_CODEC_WHOLE_BLOCK | GT_CODEC_STOCHASTIC,
	.help = "cf=X       compression factor >= 1: keep k = ceil(n/X) values (default 100)\n"
		"keep=S     or the share 0 < S <= 1 to keep: k = ceil(n*S)\n"
		"k=N        or exactly N values a block\n"
		"seed=N     random seed (default 0)\n",
	.ctx_new = randk_new,
	.ctx_free = sp_free,
	.canon = sp_canon,
	.bound = sp_bound,
	.encode = randk_encode,
	.decode = sp_decode,
	.seek = sp_seek,
};
