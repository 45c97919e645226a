/* fuzz_codecs.c - every codec's decode on arbitrary bytes; byte 0 picks codec
 * and dtype, byte 1 the value count, byte 2 whether block meta follows */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/gt_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Decode; for the codecs with loops per instruction set (tfp, rangeq,
 * fft: gt_isa.h), decode again with each other usable one and abort
 * unless the result (code, and the values when it is 0) is the same.
 */
static void same_on_every_isa(struct gt_codec_ctx *ctx, const struct gt_codec *c,
			      const uint8_t *src, size_t len, void *dst, size_t n, size_t w)
{
	const char *name = gt_codec_name(c);
	const int rc = gt_codec_decode(ctx, src, len, dst, n);
	void *again;

	if (strcmp(name, "tfp") && strcmp(name, "rangeq") && strcmp(name, "fft"))
		return;
	again = malloc(n * w + 1);
	for (int isa = GT_ISA_PORTABLE; again && isa <= GT_ISA_LAST; isa++) {
		if (!gt_isa_usable((enum gt_isa)isa))
			continue;
		gt_codec_set_isa(ctx, (enum gt_isa)isa);
		if (gt_codec_decode(ctx, src, len, again, n) != rc ||
		    (rc == 0 && memcmp(again, dst, n * w)))
			abort();
	}
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gt_codec_params p = { GT_DT_F32, NULL, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	const struct gt_codec *c;
	struct gt_diag d;
	size_t n, meta_len = 0;
	void *dst;

	if (size < 5)
		return 0;
	c = gt_codec_at(data[0] % gt_codec_count());
	p.dtype = (enum gt_dtype)(1 + (data[0] >> 4) % GT_DT_MAX);
	n = (size_t)data[1] * 37;
	if (data[2] & 1) {
		meta_len = (size_t)data[3] * 8 + data[4];
		if (meta_len > size - 5)
			meta_len = size - 5;
	}
	data += 5;
	size -= 5;
	if (gt_codec_new(c, &p, &ctx, &d) < 0)
		return 0;
	/* exact-size output: a write past the end is an ASan report */
	dst = malloc(n * gt_dtype_size(p.dtype) + 1);
	if (dst && gt_codec_block_load(ctx, data, meta_len) == 0)
		same_on_every_isa(ctx, c, data + meta_len, size - meta_len, dst, n,
				  gt_dtype_size(p.dtype));
	free(dst);
	gt_codec_free(ctx);
	return 0;
}
