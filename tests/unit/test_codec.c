/* test_codec.c - the registry, option parsing, and the raw/zlib/zstd codecs */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../lib/gt_codec.h"

static void test_registry(void)
{
	const struct gt_codec *c;
	const char *opts;
	struct gt_diag d;

	CHECK(gt_codec_count() >= 4);
	for (size_t i = 0; i < gt_codec_count(); i++) {
		c = gt_codec_at(i);
		CHECK(gt_codec_find(gt_codec_name(c)) == c);
		CHECK(gt_codec_by_id(gt_codec_id(c)) == c);
		for (size_t k = 0; k < i; k++)
			CHECK(gt_codec_id(gt_codec_at(k)) != gt_codec_id(c));
	}
	/* ids are written into files: they never change */
	CHECK(gt_codec_id(gt_codec_find("raw")) == 0);
	CHECK(gt_codec_id(gt_codec_find("zlib")) == 1);
	CHECK(gt_codec_id(gt_codec_find("zstd")) == 2);
	CHECK(gt_codec_id(gt_codec_find("huffexp")) == 3);
	CHECK_RC(gt_codec_spec_parse("zstd:level=19", &c, &opts, &d), 0);
	CHECK(c == gt_codec_find("zstd") && !strcmp(opts, "level=19"));
	CHECK_RC(gt_codec_spec_parse("zst", &c, &opts, &d), GT_ERR(NOTFOUND));
	CHECK(!strcmp(d.msg, "unknown codec 'zst'"));
}

static void test_options(void)
{
	struct gt_codec_params p = { GT_DT_F32, "level=19", NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d;
	char canon[64];

	CHECK_RC(gt_codec_new(gt_codec_find("zstd"), &p, &ctx, &d), 0);
	if (ctx) {
		gt_codec_canon(ctx, canon, sizeof(canon));
		CHECK(!strcmp(canon, "level=19"));
	}
	gt_codec_free(ctx);
	p.opts = "";
	CHECK_RC(gt_codec_new(gt_codec_find("zlib"), &p, &ctx, &d), 0);
	if (ctx) {
		gt_codec_canon(ctx, canon, sizeof(canon));
		CHECK(!strcmp(canon, "level=6"));
	}
	gt_codec_free(ctx);
	p.opts = "level=10";
	CHECK_RC(gt_codec_new(gt_codec_find("zlib"), &p, &ctx, &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "codec zlib: invalid level '10': expected 1-9"));
	p.opts = "speed=3";
	CHECK_RC(gt_codec_new(gt_codec_find("zstd"), &p, &ctx, &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "unknown option 'speed' for codec zstd"));
	p.opts = "level";
	CHECK_RC(gt_codec_new(gt_codec_find("zstd"), &p, &ctx, &d), GT_ERR(INVAL));
	p.opts = NULL;
	p.dtype = GT_DT_NONE;
	CHECK_RC(gt_codec_new(gt_codec_find("raw"), &p, &ctx, &d), GT_ERR(TYPE));
	gt_codec_free(NULL);
}

/* Exact-size heap buffers, so ASan sees any access past an end. */
static void round_trip(const char *name, const char *opts, enum gt_dtype dt,
		       const void *src, size_t n)
{
	struct gt_codec_params p = { dt, opts, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	const size_t w = gt_dtype_size(dt);
	struct gt_diag d;
	size_t bound, len = 0;
	unsigned char *dst, *back, *small;

	CHECK_RC(gt_codec_new(gt_codec_find(name), &p, &ctx, &d), 0);
	if (!ctx)
		return;
	bound = gt_codec_bound(ctx, n);
	CHECK(bound >= n * w);
	dst = malloc(bound ? bound : 1);
	back = malloc(n * w + 1);
	CHECK_RC(gt_codec_encode(ctx, src, n, dst, bound, &len), 0);
	CHECK(len <= bound);
	CHECK_RC(gt_codec_decode(ctx, dst, len, back, n), 0);
	CHECK(!memcmp(back, src, n * w));
	/* one byte short of what the data needs: an error, never an overflow */
	if (len) {
		small = malloc(len - 1 ? len - 1 : 1);
		CHECK_RC(gt_codec_encode(ctx, src, n, small, len - 1, &bound), GT_ERR(DST_TOO_SMALL));
		free(small);
		/* truncated and padded input decode to errors */
		CHECK(gt_codec_decode(ctx, dst, len - 1, back, n) < 0);
	}
	small = malloc(len + 1);
	memcpy(small, dst, len);
	small[len] = 0;
	CHECK(gt_codec_decode(ctx, small, len + 1, back, n) < 0);
	free(small);
	free(dst);
	free(back);
	gt_codec_free(ctx);
}

static void test_round_trips(void)
{
	static const char *const codecs[][2] = {
		{ "raw", "" }, { "zlib", "level=1" }, { "zlib", "level=9" },
		{ "zstd", "level=1" }, { "zstd", "level=19" },
	};
	static const size_t sizes[] = { 0, 1, 3, 1001, 65536 };
	const size_t max = 65536 * 8;
	unsigned char *v = malloc(max);

	for (size_t i = 0; i < max; i++)
		v[i] = (unsigned char)(i % 7 == 0 ? check_rand() : i / 97);
	for (size_t c = 0; c < sizeof(codecs) / sizeof(codecs[0]); c++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (int dt = GT_DT_F32; dt <= GT_DT_MAX; dt++)
				round_trip(codecs[c][0], codecs[c][1], (enum gt_dtype)dt,
					   v, sizes[s]);
	free(v);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_registry);
	RUN(test_options);
	RUN(test_round_trips);
	return check_done("test_codec");
}
