/* redsync.c - RedSync's threshold search between mean |x| and max |x| */
#include <math.h>

#include "sparse_impl.h"
#include "../banned.h"

/*
 * RedSync (Fang et al., JPDC 2019), threshold binary search selection,
 * as GraVAC implements it: T = mean + r (max - mean) over the finite
 * |x| of the block, r bisected in [0, 1] until c = #{|x| > T} lies in
 * [k, 2k] (GraVAC's window), at most 30 halvings.  Every value above T
 * is kept: no trimming, so every kept magnitude exceeds every dropped
 * one.  The window may be out of reach:
 *   - fewer than k values exceed the mean (keep shares above ~0.4):
 *     the values above the mean are kept (c < k);
 *   - ties jump over the window: the bracket end whose count is nearer
 *     to k (by ratio) is kept.
 * NaN and Inf are above every threshold: kept bit-exactly, counted.
 */
#define RS_HALVINGS 30

static int redsync_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		       size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	return sp_new(p, kv, nkv, "redsync", 0, ctx_ret, d);
}

/* Mean and max of the finite magnitudes (0 and 0 when there are none). */
static void mean_max(const void *src, enum gt_dtype dt, size_t n, double *mean,
		     double *max)
{
	double sum = 0, m = 0;
	size_t c = 0;

	for (size_t i = 0; i < n; i++) {
		const double a = fabs(gt_fp_get(src, dt, i));

		if (isfinite(a)) {
			sum += a;
			m = a > m ? a : m;
			c++;
		}
	}
	*mean = c ? sum / (double)c : 0;
	*max = m;
}

/* The key threshold "|x| > T" for r, and its count. */
static size_t count_at(const struct sp_ctx *c, const void *src, size_t n,
		       double mean, double max, double r, uint64_t *kmin)
{
	*kmin = gt_sparse_thr_key(mean + r * (max - mean), c->dt, 1);
	return gt_sparse_count(src, c->dt, n, *kmin);
}

/* The key threshold the search settles on. */
static uint64_t search(const struct sp_ctx *c, const void *src, size_t n, size_t k)
{
	double mean, max, lo = 0, hi = 1;
	uint64_t klo, khi, kmid;
	size_t clo, chi;

	mean_max(src, c->dt, n, &mean, &max);
	clo = count_at(c, src, n, mean, max, lo, &klo);
	chi = count_at(c, src, n, mean, max, hi, &khi);
	for (int i = 0; i < RS_HALVINGS && clo > 2 * k; i++) {
		const double mid = lo + (hi - lo) / 2;
		const size_t cmid = count_at(c, src, n, mean, max, mid, &kmid);

		if (cmid < k) {
			hi = mid, chi = cmid, khi = kmid;
		} else {
			lo = mid, clo = cmid, klo = kmid;
		}
		if (cmid >= k && cmid <= 2 * k)
			return kmid;
	}
	if (clo <= 2 * k)
		return klo; /* in the window, or below it: all above the mean */
	/* clo / k against k / chi, without dividing by chi = 0 */
	return (double)clo * (double)chi <= (double)k * (double)k ? klo : khi;
}

static int redsync_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
			  void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct sp_ctx *c = sp_of(ctx);
	const size_t k = gt_sparse_k(&c->o, n);
	size_t kept = 0;

	if (k)
		GT_TRY(gt_sparse_above(&c->w, src, c->dt, n, search(c, src, n, k), n, &kept));
	return sp_pack(c, src, n, kept, dst, dst_cap, dst_len_ret);
}

const struct gt_codec gt_codec_redsync = {
	.name = "redsync",
	.id = 11,
	.flags = GT_CODEC_WHOLE_BLOCK,
	.help = "cf=X       compression factor >= 1: aim at k = ceil(n/X) values (default 100)\n"
		"keep=S     or the share 0 < S <= 1 to aim at: k = ceil(n*S)\n"
		"k=N        or N values a block\n",
	.ctx_new = redsync_new,
	.ctx_free = sp_free,
	.canon = sp_canon,
	.bound = sp_bound,
	.encode = redsync_encode,
	.decode = sp_decode,
};
