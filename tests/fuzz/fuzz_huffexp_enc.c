/* fuzz_huffexp_enc.c - huffexp's encoder on arbitrary f32 values: every
 * isa the CPU runs (AVX-512 codes through gcomp's token kernel) must give
 * the portable loops' result, the same bytes or the same error, and what
 * they write must decode to the values.
 *
 * Input: 2 header bytes, then float32 bit patterns (any: NaN, Inf, ±0.0,
 * subnormals; runs of +0.0 when the fuzzer repeats zero bytes).
 *	0  bits 0-1: how the values are coded
 *	     0  one block, one chunk (its carrier count from the histogram)
 *	     1  one block, two chunks (each counted)
 *	     2  a static table of the first half (other values escape)
 *	     3  the table of the first half only, for all the values: those
 *	        without a code must be refused, by every isa alike
 *	1  maxlen 1..15 (low 4 bits; 0 is 12)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/gt_codec.h"
#include "../../lib/gt_huff.h"
#include "../../lib/gt_isa.h"
#include "../../lib/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_VALUES 65536

struct coded {
	int rc;
	size_t len;
	unsigned char *buf; /* meta (its length first, 2 bytes), then the chunks */
};

/* The static table of the @n values at @v into @tb; its length, 0: none. */
static size_t static_table(const uint32_t *v, size_t n, unsigned maxlen, unsigned char *tb)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	size_t tlen = 0;

	gt_huff_hist_init(&h, GT_DT_F32);
	gt_huff_hist(&h, v, n);
	if (gt_huff_build(&t, &h, maxlen, GT_HUFF_PM, GT_HUFF_STATIC) < 0 ||
	    gt_huff_save(&t, tb, GT_HUFF_SAVE_MAX, &tlen) < 0)
		return 0;
	return tlen;
}

/* The chunk of @n values at @v into @r (appended); the rc kept. */
static void chunk(struct gt_codec_ctx *c, const uint32_t *v, size_t n, size_t cap,
		  struct coded *r)
{
	size_t len = 0;

	if (r->rc < 0)
		return;
	r->rc = gt_codec_encode(c, v, n, r->buf + r->len, cap - r->len, &len);
	if (r->rc == 0)
		r->len += len;
}

/* The values coded with @isa as @how says into @r; 0 when @isa does not
 * run here. */
static int code(enum gt_isa isa, unsigned how, const char *opts, const unsigned char *tb,
		size_t tlen, const uint32_t *v, size_t n, struct coded *r)
{
	const struct gt_codec_params p = { GT_DT_F32, opts, how == 2 ? tb : NULL,
					   how == 2 ? tlen : 0, NULL, 0 };
	struct gt_codec_ctx *c = NULL;
	size_t cap, ml = 0;
	const size_t h = n / 2;

	if (!gt_isa_usable(isa) || gt_codec_new(gt_codec_find("huffexp"), &p, &c, NULL) < 0)
		return 0;
	gt_codec_set_isa(c, isa);
	cap = 2 + GT_CODEC_META_MAX + gt_codec_bound(c, n) + gt_codec_bound(c, h) + 64;
	r->buf = malloc(cap);
	r->len = 2;
	r->rc = r->buf ? gt_codec_block_begin(c, v, how == 3 ? h : n, r->buf + 2,
					       GT_CODEC_META_MAX, &ml) : -1;
	if (r->rc == 0) {
		r->buf[0] = (unsigned char)(ml & 0xff);
		r->buf[1] = (unsigned char)(ml >> 8);
		r->len += ml;
		r->rc = gt_codec_block_load(c, r->buf + 2, ml);
	}
	if (how == 1) {
		chunk(c, v, h, cap, r);
		chunk(c, v + h, n - h, cap, r);
	} else {
		chunk(c, v, n, cap, r);
	}
	gt_codec_free(c);
	return 1;
}

/* The portable bytes decode to the values (chunk by chunk as coded). */
static void check_decode(unsigned how, const char *opts, const unsigned char *tb, size_t tlen,
			 const uint32_t *v, size_t n, const struct coded *r)
{
	const struct gt_codec_params p = { GT_DT_F32, opts, how == 2 ? tb : NULL,
					   how == 2 ? tlen : 0, NULL, 0 };
	const size_t ml = (size_t)r->buf[0] | (size_t)r->buf[1] << 8, h = n / 2;
	struct gt_codec_ctx *c = NULL;
	uint32_t *back = malloc(4 * n + 4);
	size_t at = 2 + ml, cl;

	if (!back || gt_codec_new(gt_codec_find("huffexp"), &p, &c, NULL) < 0)
		abort();
	if (gt_codec_block_load(c, r->buf + 2, ml) < 0)
		abort();
	if (how == 1) {
		/* the first chunk's length: the one whose decode works */
		for (cl = 0; at + cl <= r->len; cl++)
			if (gt_codec_decode(c, r->buf + at, cl, back, h) == 0)
				break;
		if (at + cl > r->len || gt_codec_decode(c, r->buf + at + cl, r->len - at - cl,
							back + h, n - h) < 0)
			abort();
	} else if (gt_codec_decode(c, r->buf + at, r->len - at, back, n) < 0) {
		abort();
	}
	if (memcmp(back, v, 4 * n))
		abort();
	gt_codec_free(c);
	free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const unsigned how = size ? data[0] & 3 : 0;
	const unsigned maxlen = size > 1 && (data[1] & 15) ? data[1] & 15 : 12;
	unsigned char tb[GT_HUFF_SAVE_MAX];
	struct coded ref = { 0, 0, NULL }, got;
	char opts[32];
	uint32_t *v;
	size_t n, tlen = 0;

	if (size < 2)
		return 0;
	n = (size - 2) / 4 < MAX_VALUES ? (size - 2) / 4 : MAX_VALUES;
	v = malloc(4 * n + 4);
	if (!v)
		return 0;
	memcpy(v, data + 2, 4 * n);
	snprintf(opts, sizeof(opts), "maxlen=%u", maxlen);
	if (how == 2 && !(tlen = static_table(v, n / 2, maxlen, tb))) {
		free(v);
		return 0;
	}
	(void)code(GT_ISA_PORTABLE, how, opts, tb, tlen, v, n, &ref);
	for (int isa = GT_ISA_PORTABLE + 1; isa <= GT_ISA_LAST; isa++) {
		if (!code((enum gt_isa)isa, how, opts, tb, tlen, v, n, &got))
			continue;
		if (got.rc != ref.rc || (ref.rc == 0 && (got.len != ref.len ||
							 memcmp(got.buf, ref.buf, ref.len))))
			abort();
		free(got.buf);
	}
	if (ref.rc == 0)
		check_decode(how, opts, tb, tlen, v, n, &ref);
	else if (how != 3 && ref.rc != GT_ERR(INVAL))
		abort(); /* only a value without a code may be refused */
	free(ref.buf);
	free(v);
	return 0;
}
