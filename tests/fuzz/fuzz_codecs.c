/* fuzz_codecs.c - every codec's decode on arbitrary bytes; byte 0 picks codec
 * and dtype, byte 1 the value count, byte 2 whether block meta follows */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/gt_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gt_codec_params p = { GT_DT_F32, NULL, NULL, 0, NULL };
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
		gt_codec_decode(ctx, data + meta_len, size - meta_len, dst, n);
	free(dst);
	gt_codec_free(ctx);
	return 0;
}
