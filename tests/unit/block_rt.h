/* block_rt.h - for the unit tests of the codecs: a block coded chunk by
 * chunk and decoded back, and a huffexp context that knows its rows */
#ifndef GT_TEST_BLOCK_RT_H
#define GT_TEST_BLOCK_RT_H

#include "check.h"
#include "../../lib/gt_codec.h"

/*
 * Code the block at @src in chunks of @cv values, each chunk no larger
 * than the bound, decode each from an exact-size copy, compare; the
 * bytes in all (meta and chunks), the meta in @meta (*@mlen_ret bytes).
 */
static inline size_t check_block_rt(struct gt_codec_ctx *e, struct gt_codec_ctx *x,
				    enum gt_dtype dt, const void *src, size_t n, size_t cv,
				    unsigned char *meta, size_t *mlen_ret)
{
	const size_t w = gt_dtype_size(dt), bound = gt_codec_bound(e, cv);
	unsigned char *dst = malloc(bound), *back = malloc(n * w + 1);
	size_t total;

	CHECK_RC(gt_codec_block_begin(e, src, n, meta, GT_CODEC_META_MAX, mlen_ret), 0);
	CHECK_RC(gt_codec_block_load(e, meta, *mlen_ret), 0);
	CHECK_RC(gt_codec_block_load(x, meta, *mlen_ret), 0);
	total = *mlen_ret;
	for (size_t q = 0; q < n; q += cv) {
		const size_t m = n - q < cv ? n - q : cv;
		unsigned char *exact;
		size_t len = 0;

		CHECK_RC(gt_codec_encode(e, (const unsigned char *)src + q * w, m, dst, bound,
					 &len), 0);
		CHECK(len <= gt_codec_bound(e, m));
		exact = malloc(len ? len : 1);
		memcpy(exact, dst, len);
		CHECK_RC(gt_codec_decode(x, exact, len, back + q * w, m), 0);
		free(exact);
		total += len;
	}
	CHECK(!memcmp(back, src, n * w));
	free(back);
	free(dst);
	return total;
}

/* A huffexp context with default options whose tensor has rows of
 * @row_len values (0: none), as the .gtz writer makes it. */
static inline struct gt_codec_ctx *mk_rows(enum gt_dtype dt, size_t row_len)
{
	const struct gt_codec_params p = { dt, "", NULL, 0, NULL, row_len };
	struct gt_codec_ctx *c = NULL;
	struct gt_diag d;

	CHECK_RC(gt_codec_new(gt_codec_find("huffexp"), &p, &c, &d), 0);
	return c;
}

#endif
