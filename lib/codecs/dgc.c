/* dgc.c - Deep Gradient Compression's sampled-threshold sparsification */
#include <math.h>

#include "sparse_impl.h"
#include "../gt_rng.h"
#include "../banned.h"

/*
 * DGC (Lin et al., ICLR 2018), as its reference implementation selects:
 *  1. sample max(ceil(n*sample), ceil(2n/k)) magnitudes at uniform random
 *     positions (with replacement; gt_rng on seed, tensor, block start);
 *     all n when that is n or more;
 *  2. the threshold T is the ceil(s*k/n)-th largest sampled magnitude;
 *  3. up to 10 times: c = #{|x| >= T}; c > 1.3k: keep the exact top k
 *     (gt_sparse_topk) and stop; k < c <= 1.3k: stop; c < 0.8k: T *= 0.8;
 *  4. keep the first k (by position) of the values with |x| >= T.
 * So at most k values are kept, and at least 0.8k unless 10 rounds of
 * lowering did not get there.  Kept magnitudes are all >= T >= every
 * dropped one, except that step 4 drops values >= T at the end of the
 * block when k < c <= 1.3k: that is DGC's own trimming.  NaN and Inf are
 * above every threshold (kept, bit-exactly, counted in k).
 */
#define DGC_ROUNDS 10
#define DGC_UPPER 1.3
#define DGC_LOWER 0.8

static int dgc_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		   size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	return sp_new(p, kv, nkv, "dgc", GT_SPARSE_SEED | GT_SPARSE_SAMPLE, ctx_ret, d);
}

/* The largest finite magnitude key of the block (0 when none). */
static uint64_t max_finite(const void *src, enum gt_dtype dt, size_t n)
{
	const uint64_t lim = gt_sparse_key_max_finite(dt);
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++) {
		const uint64_t key = gt_sparse_key(src, dt, i);

		if (key <= lim && key > m)
			m = key;
	}
	return m;
}

/* Steps 1-2: the sampled threshold key. */
static int sample_thr(struct sp_ctx *c, const void *src, size_t n, size_t k,
		      uint64_t *t_ret)
{
	const double want = ceil((double)n * c->o.sample);
	const double min = ceil(2.0 * (double)n / (double)k);
	const size_t s = (size_t)(want > min ? (want < (double)n ? want : (double)n)
				   : (min < (double)n ? min : (double)n));
	uint64_t *keys = gt_sparse_keys(&c->w, s);
	struct gt_rng r;

	if (!keys)
		return GT_ERR(NOMEM);
	gt_rng_init(&r, c->o.seed, c->stream, c->pos);
	for (size_t i = 0; i < s; i++)
		keys[i] = gt_sparse_key(src, c->dt, s == n ? i : (size_t)gt_rng_below(&r, n));
	*t_ret = gt_sparse_kth(keys, s, (size_t)ceil((double)s * (double)k / (double)n),
			       8 * gt_dtype_size(c->dt) - 1);
	/* a NaN or Inf threshold cannot be scaled: start at the finite top */
	if (*t_ret > gt_sparse_key_max_finite(c->dt))
		*t_ret = max_finite(src, c->dt, n);
	return 0;
}

static int dgc_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		      void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct sp_ctx *c = sp_of(ctx);
	const size_t k = gt_sparse_k(&c->o, n);
	uint64_t t;
	size_t kept;

	if (!k)
		return sp_pack(c, src, n, 0, dst, dst_cap, dst_len_ret);
	GT_TRY(sample_thr(c, src, n, k, &t));
	for (int round = 0; round < DGC_ROUNDS; round++) {
		const size_t cnt = gt_sparse_count(src, c->dt, n, t);
		uint64_t lower;

		if (cnt > k) {
			if ((double)cnt <= DGC_UPPER * (double)k)
				break;
			GT_TRY(gt_sparse_topk(&c->w, src, c->dt, n, k));
			return sp_pack(c, src, n, k, dst, dst_cap, dst_len_ret);
		}
		if ((double)cnt >= DGC_LOWER * (double)k)
			break;
		lower = gt_sparse_thr_key(DGC_LOWER * gt_sparse_key_value(t, c->dt), c->dt, 0);
		if (lower == t)
			break; /* T is 0: nothing lower */
		t = lower;
	}
	GT_TRY(gt_sparse_above(&c->w, src, c->dt, n, t, k, &kept));
	return sp_pack(c, src, n, kept, dst, dst_cap, dst_len_ret);
}

const struct gt_codec gt_codec_dgc = {
	.name = "dgc",
	.id = 10,
	.flags = GT_CODEC_WHOLE_BLOCK | GT_CODEC_STOCHASTIC,
	.help = "cf=X       compression factor >= 1: aim at k = ceil(n/X) values (default 100)\n"
		"keep=S     or the share 0 < S <= 1 to aim at: k = ceil(n*S)\n"
		"k=N        or N values a block\n"
		"sample=S   share of the block sampled for the threshold, 0.001-1 (default 0.01)\n"
		"seed=N     random seed of the sample (default 0)\n",
	.ctx_new = dgc_new,
	.ctx_free = sp_free,
	.canon = sp_canon,
	.bound = sp_bound,
	.encode = dgc_encode,
	.decode = sp_decode,
	.seek = sp_seek,
};
