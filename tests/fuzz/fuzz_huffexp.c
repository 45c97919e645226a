/* fuzz_huffexp.c - huffexp decode of arbitrary chunks, fixed and fuzzed tables */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/gt_bitio.h"
#include "../../lib/gt_codec.h"
#include "../../lib/gt_huff.h"
#include "../../lib/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* f32, maxlen 12: exponents 120..130, ZERO, RUN, ESC (a complete code) */
static const unsigned char table[] = {
	1, 1, 12, 14, 0,
	0xf4, 105, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04,
	0xf3, 110, 0x14, 0x03,
};

static void decode(const uint8_t *data, size_t size, enum gt_dtype dt,
		   const void *tb, size_t tb_len, const void *meta, size_t mlen,
		   size_t base)
{
	const struct gt_codec_params p = { dt, "", tb, tb_len, NULL, 0 };
	struct gt_codec_ctx *c = NULL;
	size_t n;
	void *dst;

	if (size < 2 || gt_codec_new(gt_codec_find("huffexp"), &p, &c, NULL) < 0)
		return;
	n = base + (size_t)data[0] * 8 + data[1]; /* value count from the input */
	dst = malloc(n * gt_dtype_size(dt) + 1);
	if (dst && gt_codec_block_load(c, meta, mlen) == 0)
		(void)gt_codec_decode(c, data + 2, size - 2, dst, n);
	free(dst);
	gt_codec_free(c);
}

/* block meta: a mode byte (k and sign mode; 0: k = 0, mixed signs), then
 * the block's own table when there is no static one */
static unsigned char meta[1 + sizeof(table)];
/* mode byte 0xc0: k = 0, mixed signs, chunks of 8192 values or more in
 * four parts (format 1.3), decoded at 8192 values and more */
static const unsigned char split_meta[1] = { 0xc0 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t tl;

	memcpy(meta + 1, table, sizeof(table));
	decode(data, size, GT_DT_F32, table, sizeof(table), meta, 1, 0);
	decode(data, size, GT_DT_F32, NULL, 0, meta, sizeof(meta), 0);
	decode(data, size, GT_DT_F32, table, sizeof(table), split_meta, 1, 8192);
	/* the table from the input: byte 0 its length, then the table */
	if (size < 1)
		return 0;
	tl = data[0];
	if (tl + 1 > size)
		return 0;
	for (unsigned dt = 1; dt <= GT_DT_MAX; dt++)
		decode(data + 1 + tl, size - 1 - tl, (enum gt_dtype)dt, NULL, 0,
		       data + 1, tl, 0);
	return 0;
}
