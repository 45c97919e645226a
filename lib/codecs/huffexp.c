/* huffexp.c - Huffman-coded exponents, sign and mantissa stored raw */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codec_impl.h"
#include "../gt_bitio.h"
#include "../gt_chunk.h"
#include "../gt_huff.h"
#include "../gt_zstruct.h"
#include "gcomp_simd.h"
#include "huffexp_impl.h"
#include "../banned.h"

/*
 * A block's meta: one mode byte, then (unless the context has a static
 * table) the block's gt_huff_save() table bytes.  The mode byte holds
 * k, the trailing zero bits common to the mantissas of the block's values
 * (0..M), in bits 0-5 and the sign mode in bits 6-7: 0 mixed, 1 every
 * value with a mantissa word is positive, 2 every one is negative (3 is
 * corrupt, as is k > M).  A chunk of n values (E exponent bits, M
 * mantissa bits, s = 1 when signs are mixed else 0, W = s + M - k):
 *
 *   varint   mcount: values that carry a sign and mantissa (LEB128, <= 10 B)
 *   bytes    mantissa stream, ceil(mcount * W / 8) bytes: the word
 *            (man >> k) << s | sign (sign only when s = 1) of each such
 *            value, W bits, LSB-first (gt_bitio.h); for f32 with k = 0
 *            and mixed signs that is 3 little-endian bytes per value
 *            (the low 24 bits of the value rotated left by one), with
 *            k = 16 (bf16 values held in f32) 1 byte
 *   bytes    code stream, to the end of the chunk: one token per value or
 *            run (gt_huff.h): its code; after ESC the raw E-bit exponent;
 *            after RUN the Elias-gamma code of len - GT_HUFF_RUN_MIN + 1
 *            (k zero bits, a one, then the k low bits of the number)
 *
 * Both streams are zero-padded to a byte.  The sign/mantissa of a value
 * goes to the mantissa stream when its token is an exponent or ESC (or a
 * ±0.0 coded as exponent 0 because ZERO/NZERO has no code).  Counting
 * mcount first (a cheap pass) lets the encoder place the code stream
 * without a scratch buffer or a memmove.  Dropping k bits costs nothing
 * on gradients (k = 0, found in the first values of a block) and wins
 * 29 bits a value on f64 holding f32 values, 16 on f32 holding bf16.
 *
 * Split chunks (format 1.3): in an f32 block whose mode byte has sign
 * mode 3 (mixed signs, k = 0 or 16; written for blocks of HX_SPLIT_MIN =
 * 8192 values or more), a chunk of 8192 to 2^30 values is coded as
 * S = 4 parts: part j holds values [j * (n / 4), (j + 1) * (n / 4)), the
 * last one to n, each coded as above on its own (a run ends at its end):
 *
 *   varint x 4   mcount of each part
 *   u32 LE x 3   code stream bytes of parts 0, 1, 2
 *   bytes        the mantissa streams of parts 0..3, one after the other
 *   bytes        the code streams of parts 0..3 (part 3's to the end)
 *
 * so that the decoder follows two code streams at once and their chains
 * of table lookups overlap (HX_LANES, huffexp_dec.c); chunks under 8192
 * values keep one stream.  The other dtypes keep one stream: their loops
 * are the generic ones, which do not gain from it.
 *
 * The mantissa word was (sign << M | man) until the f32 fast paths came:
 * (man << 1 | sign) is one rotate on f32, both ways.  Chunks of the old
 * layout fail the block CRC.
 *
 * f32 fast paths (the generic loops are the reference), for k = 0 and
 * k = 16 with mixed signs: the encoder codes
 * four values per step with a 1024-entry table indexed by sign, exponent
 * and "is ±0.0", and flushes once per two codes; the decoder reads up to
 * three tokens per lookup of a table indexed by the next min(maxlen,
 * HX_MBITS) bits (GComp §4.5 extended to several symbols per entry;
 * fewer bits in smaller blocks, gt_huff_mlut_bits()), or, in blocks under
 * 512 values, where building that table costs more than it saves, one
 * token per lookup of a LUT as wide as the block's longest code.
 *
 * Tables: by default block_begin() builds one per block (method best) and
 * appends its gt_huff_save() bytes to the mode byte; with a static table
 * (params->table) every block uses it and the meta is the mode byte.
 *
 * Zero structure (format 1.2; formats/GTZ.md, gt_zstruct.h): with the
 * tensor's row length (params->row_len), a block whose rows or columns
 * are all +0.0 may be coded as 0xFF, the gt_zs_save() bytes, then the
 * mode byte and table of its kept values; its chunks are then varint q
 * (the chunk's first value in the block), the row copies when the flags
 * say so (gt_zs_copies_save), and the chunk above of the kept values.
 * block_begin() chooses by the bits each way costs (hx_zs_choose); a
 * block without a zero row or column never gets that far and is coded as
 * before, byte for byte.  Palettes (format 1.4, gt_palette.h): with flag
 * GT_ZS_PALETTE the meta has a param byte after the zero structure, the
 * table is of the block's distinct kept values, and a chunk's kept values
 * are varint D, varint P, a plain chunk of its D distinct values in P
 * bytes, then one token per value (enc_pal, dec_pal).  Encoding such a chunk needs its place in the
 * block: it must be read from the memory block_begin() was given (the
 * rule of gt_codec.h), by the context that ran it.
 */

/* The f32 encode table's entry of c->enc[] word @e. */
static uint64_t enc32_of(const struct hx_ctx *c, uint64_t e)
{
	if (e >> 41)
		return HX_E_BAD;
	return (e & 0xffffffff) << 32 | (e >> 32 & 0xff) | (e >> 40 & 1 ? c->mstride << 8 : 0);
}

/* The f32 encode table from c->enc[]: x = sign and exponent, | 512 for
 * ±0.0; either sign has the entry of its exponent, and of 512-1023 only
 * 512 (+0.0) and 768 (-0.0) occur (the others are set by init_f32()) */
static void prepare_enc32(struct hx_ctx *c)
{
	for (unsigned x = 0; x < 256; x++)
		c->enc32[x] = c->enc32[x + 256] = enc32_of(c, c->enc[x]);
	c->enc32[512] = enc32_of(c, c->enc[GT_HUFF_ZERO(8)]);
	c->enc32[768] = enc32_of(c, c->enc[GT_HUFF_NZERO(8)]);
}

/* Values a chunk (or part) needs for the token kernel: under that its
 * tables (prepare_vec) and set-up cost more than it saves, and it leaves
 * the last 128 bytes of each stream to the scalar loop anyway */
#define HX_VEC_MIN 1024

/* Whether the next f32 chunk (or part) of @n values is coded with gcomp's
 * token kernel: from HX_VEC_MIN values, at stride 3 with isa avx512,
 * where every exponent with a code carries a word (prepare_vec() checks). */
static int use_vec(const struct hx_ctx *c, size_t n)
{
	return n >= HX_VEC_MIN && c->mstride == 3 && c->base.isa == GT_ISA_AVX512 && c->vec_cpu;
}

/* The token kernel's tables from enc (gcomp's gc_code_table()); vec_ready
 * stays 0 where an exponent has a code but no word, which the kernel
 * cannot code. */
static void prepare_vec(struct hx_ctx *c)
{
	int ok = 1;

	gc_code_table(c->enc, c->ctab, c->wtab, &c->wbase);
	for (unsigned x = 0; x < 256; x++)
		ok &= (c->enc[x] >> 41 & 1) || (c->enc[x] >> 40 & 1);
	c->vec_ready = ok;
}

/* Fill the encode tables of the installed c->table (lazily: decoders
 * never need them, and block_load() is on the decoder's path). */
static void prepare_enc(struct hx_ctx *c)
{
	gt_huff_enc_words(&c->table, c->enc);
	if (c->dt == GT_DT_F32)
		prepare_enc32(c);
	c->vec_ready = 0;
	c->enc_ready = 1;
}

/* Install c->table: the encode and decode tables are made when first
 * needed (prepare_enc, prepare_dec). */
static int prepare(struct hx_ctx *c)
{
	if (c->table.dtype != c->dt)
		return GT_ERR(CORRUPT);
	c->runs = gt_huff_runs_used(&c->table);
	c->enc_ready = 0;
	c->dec_ready = 0;
	c->ready = 1;
	return 0;
}

/* The f32 entries that no table changes: the symbol words (dsym), and
 * the encode table's indices that no value has (prepare_enc32()). */
static void init_f32(struct hx_ctx *c)
{
	for (unsigned x = 513; x < 1024; x++)
		c->enc32[x] = HX_E_BAD;
	for (unsigned s = 0; s < 256; s++)
		c->dsym[s] = (uint64_t)s << 24 | UINT64_C(0xffffff) << 32;
	c->dsym[GT_HUFF_ZERO(8)] = 0;
	c->dsym[GT_HUFF_NZERO(8)] = 1; /* the sign, rotated left */
	c->dsym[GT_HUFF_RUN(8)] = 0;
	c->dsym[GT_HUFF_ESC(8)] = 0;
}

static int hx_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		  size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	unsigned maxlen = GT_HUFF_MAXLEN_DEFAULT;
	int method = GT_HUFF_BEST;
	struct hx_ctx *c;
	int rc;

	for (size_t i = 0; i < nkv; i++) {
		rc = gt_kv_huff(&kv[i], "huffexp", &maxlen, &method, d);
		if (rc < 0)
			return rc;
		if (!rc)
			return gt_kv_unknown(&kv[i], "huffexp", d);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->dt = p->dtype;
	c->maxlen = maxlen;
	c->method = (enum gt_huff_method)method;
	c->wbits = 1 + gt_dtype_man_bits(c->dt);
	c->mstride = c->dt == GT_DT_F32 ? 3 : 0;
	c->row_len = p->row_len;
	gt_zs_init(&c->zs);
	gt_pal_init(&c->pal);
	if (c->dt == GT_DT_F32) {
		init_f32(c);
		c->vec_cpu = gc_isa_runs(GC_ISA_AVX512);
	}
	if (p->table) {
		c->fixed = 1;
		rc = gt_huff_load(&c->table, p->table, p->table_len, GT_HUFF_STATIC);
		if (rc == 0)
			rc = prepare(c);
		if (rc < 0) {
			free(c);
			return gt_diag_set(d, rc, "codec huffexp: bad static table for %s",
					   gt_dtype_name(p->dtype));
		}
	}
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void hx_free(struct gt_codec_ctx *ctx)
{
	struct hx_ctx *c = hx(ctx);

	if (!c)
		return;
	gt_zs_release(&c->zs);
	gt_pal_release(&c->pal);
	free(c->pbuf);
	free(c->scratch);
	free(c);
}

static size_t hx_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct hx_ctx *c = (const struct hx_ctx *)(const void *)ctx;

	return (size_t)snprintf(buf, cap, "maxlen=%u,method=%s", c->maxlen,
				gt_huff_method_name(c->method));
}

/*
 * Worst case: the varint, every value carrying a sign and mantissa (a
 * word of W <= 1 + M bits, any k and sign mode), and every value escaped
 * with the longest code (GT_HUFF_MAXLEN_MAX + E bits; a run costs at most
 * 2 bits per value), each stream padded to a byte.
 */
static size_t hx_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct hx_ctx *c = (const struct hx_ctx *)(const void *)ctx;
	const size_t w = 1 + gt_dtype_man_bits(c->dt);
	const size_t cbits = GT_HUFF_MAXLEN_MAX + gt_dtype_exp_bits(c->dt);

	if (n > SIZE_MAX / 128)
		return 0;
	/* a zero-structure chunk starts with its place and its row copies:
	 * a count and at most 8 bytes per copied row of >= 2 values */
	/* a split chunk: S - 1 more varints, the code lengths, padding */
	/* a palette chunk: two more varints (D, its bytes), a palette of at
	 * most the n values coded as a plain chunk, and a token of at most
	 * 2 + 24 bits per value (in the 4 n, which the copies of the same
	 * values leave) */
	return 5 * GT_VARINT_MAX + 4 * n + (n * w + 7) / 8 + (n * cbits + 7) / 8 +
	       (HX_SPLIT_S - 1) * (GT_VARINT_MAX + 4 + 2);
}

/* Install the block's mode byte @b (k and sign mode). */
static int set_mode(struct hx_ctx *c, unsigned b)
{
	const unsigned mb = gt_dtype_man_bits(c->dt);
	const unsigned k = HX_MODE_K(b);
	unsigned sgn = HX_MODE_SIGN(b), stride = 0;

	if (k > mb || (sgn == HX_SIGN_SPLIT && (c->dt != GT_DT_F32 || (k && k != 16))))
		return GT_ERR(CORRUPT);
	c->split = sgn == HX_SIGN_SPLIT;
	sgn = c->split ? HX_SIGN_MIXED : sgn;
	c->k = k;
	c->sgn = sgn;
	c->wbits = (sgn == HX_SIGN_MIXED) + mb - k;
	if (c->dt == GT_DT_F32 && sgn == HX_SIGN_MIXED && (k == 0 || k == 16))
		stride = k ? 1 : 3;
	if (stride != c->mstride) {
		c->mstride = stride;
		if (c->enc_ready && stride)
			prepare_enc32(c);
	}
	return 0;
}

/*
 * f32 scan for the mode byte: the OR of the mantissas (*@or_ret) and the
 * signs seen on values with a mantissa word (*@sg_ret: 1 +, 2 -), @zp and
 * @zn: +0.0 and -0.0 carry a word.  Stops after the 64 values in which
 * both signs and an odd mantissa have been seen (gradients: the first).
 */
static void scan_f32(const unsigned char *p, size_t n, uint32_t zp,
		     uint32_t zn, uint64_t *or_ret, unsigned *sg_ret)
{
	uint32_t o = 0, pos = 0, neg = 0;

	for (size_t i = 0; i < n;) {
		const size_t m = HX_MIN(n - i, 64);

		for (size_t j = 0; j < m; j++) {
			uint32_t u, s, car;

			memcpy(&u, p + 4 * (i + j), 4);
			s = u >> 31;
			car = (uint32_t)(u << 1 != 0) | (s & zn) | (~s & zp);
			o |= u & 0x7fffffu;
			pos |= car & ~s;
			neg |= car & s;
		}
		i += m;
		if ((o & 1) && (pos & 1) && neg)
			break;
	}
	*or_ret = o;
	*sg_ret = (pos & 1) | (neg & 1) << 1;
}

/* The mode byte for the @n values at @src with the installed table. */
static unsigned block_mode(const struct hx_ctx *c, const void *src, size_t n)
{
	const unsigned eb = gt_dtype_exp_bits(c->dt), mb = gt_dtype_man_bits(c->dt);
	const uint64_t mmask = (UINT64_C(1) << mb) - 1;
	const unsigned zp = c->enc[GT_HUFF_ZERO(eb)] >> 40 & 1;
	const unsigned zn = c->enc[GT_HUFF_NZERO(eb)] >> 40 & 1;
	uint64_t o = 0;
	unsigned sg = 0, k;

	if (c->dt == GT_DT_F32) {
		scan_f32(src, n, zp, zn, &o, &sg);
	} else {
		for (size_t i = 0; i < n && !((o & 1) && sg == 3); i++) {
			const uint64_t u = gt_fp_load(src, c->dt, i);
			const unsigned s = (unsigned)(u >> (eb + mb)) & 1;

			o |= u & mmask;
			if ((u & ((UINT64_C(1) << (eb + mb)) - 1)) || (s ? zn : zp))
				sg |= 1u << s;
		}
	}
	k = o ? (unsigned)__builtin_ctzll(o) : mb;
	/*
	 * f32 with k = 0 or 16 has byte-aligned fast paths only for mixed
	 * signs: dropping a constant sign there would save 1 bit of 32 and
	 * cost two thirds of the speed, so the encoder keeps the sign bit.
	 */
	if (c->dt == GT_DT_F32 && (k == 0 || k == 16))
		sg = 3;
	return k | (sg == 3 ? HX_SIGN_MIXED : sg == 2 ? HX_SIGN_NEG : HX_SIGN_POS) << 6;
}

/* Room for @n values of the context's dtype in *@buf (*@cap bytes). */
static int buf_room(const struct hx_ctx *c, unsigned char **buf, size_t *cap,
		    size_t n)
{
	const size_t w = gt_dtype_size(c->dt);
	unsigned char *p;

	if (n < 1)
		n = 1;
	if (n > SIZE_MAX / w)
		return GT_ERR(OVERFLOW);
	if (n * w <= *cap)
		return 0;
	p = realloc(*buf, n * w);
	if (!p)
		return GT_ERR(NOMEM);
	*buf = p;
	*cap = n * w;
	return 0;
}

/* Room for @n values in c->scratch. */
static int hx_scratch(struct hx_ctx *c, size_t n)
{
	return buf_room(c, &c->scratch, &c->scratch_cap, n);
}

/*
 * The table a plain block of the @n values at @src is coded with: the
 * static one or, built here, theirs (*@tlen_ret bytes saved).
 */
static const struct gt_huff_table *cost_table(struct hx_ctx *c, const void *src,
					      size_t n, size_t *tlen_ret)
{
	unsigned char buf[GT_HUFF_SAVE_MAX];

	*tlen_ret = 0;
	if (c->fixed)
		return &c->table;
	gt_huff_hist_init(&c->hist, c->dt);
	gt_huff_hist(&c->hist, src, n);
	if (gt_huff_build(&c->ztab, &c->hist, c->maxlen, c->method, 0) < 0 ||
	    gt_huff_save(&c->ztab, buf, sizeof(buf), tlen_ret) < 0)
		return NULL;
	return &c->ztab;
}

/*
 * The bits of a plain block of the @n values at @src coded with @t of
 * @tlen bytes: its meta (mode byte and table) and its values (exact,
 * gt_huff_cost; byte padding left out); UINT64_MAX when @t cannot code
 * them.
 */
static uint64_t plain_cost(struct hx_ctx *c, const struct gt_huff_table *t,
			   size_t tlen, const void *src, size_t n)
{
	uint64_t bits, esc;

	if (!t)
		return UINT64_MAX;
	gt_huff_hist_init(&c->hist, c->dt);
	gt_huff_hist(&c->hist, src, n);
	if (gt_huff_cost(t, &c->hist, &bits, &esc) < 0)
		return UINT64_MAX;
	return bits + 8 * (1 + (uint64_t)tlen);
}

/* With GT_ZS_COPIES in c->zs.flags: the copies of the whole block taken
 * as one chunk, their list's bytes added to *@zb. */
static int copies_of_block(struct hx_ctx *c, const void *src, size_t n,
			   size_t *zb)
{
	unsigned char buf[3 * GT_VARINT_MAX];
	size_t len;

	if (!(c->zs.flags & GT_ZS_COPIES))
		return 0;
	GT_TRY(gt_zs_find_copies(&c->zs, 0, src, n, c->dt));
	/* the list's exact bytes, one copy at a time */
	for (size_t i = 0; i < c->zs.ncopy; i++) {
		len = (size_t)gt_varint_put(buf, c->zs.copy[i]) +
		      (size_t)gt_varint_put(buf, 2 * (uint64_t)(c->zs.copy[i] - c->zs.from[i]));
		*zb += len;
	}
	*zb += 1;
	return 0;
}

static size_t varint_len(uint64_t v)
{
	unsigned char b[GT_VARINT_MAX];

	return (size_t)gt_varint_put(b, v);
}

/* Kept values per whole row of c->zs (the row context of a palette). */
static size_t kept_row(const struct hx_ctx *c)
{
	return c->zs.flags & GT_ZS_COLS ? c->zs.row_len - c->zs.zero_cols :
					  c->zs.row_len;
}

/*
 * The palette of the kept values of the @n values at @src with the zero
 * structure of @flags (c->zs.flags is left at @flags): built in c->pal,
 * its values in c->pbuf.  @all: copied rows' values too (the table's).
 */
static int pal_of(struct hx_ctx *c, const void *src, size_t n, unsigned flags,
		  int all)
{
	const size_t w = gt_dtype_size(c->dt);
	size_t m;

	c->zs.flags = all ? flags & ~GT_ZS_COPIES : flags;
	m = gt_zs_gather(&c->zs, 0, src, n, w, c->scratch);
	c->zs.flags = flags;
	GT_TRY(gt_pal_build(&c->pal, c->scratch, m, c->dt));
	GT_TRY(buf_room(c, &c->pbuf, &c->pbuf_cap, c->pal.d));
	gt_pal_values(&c->pal, c->dt, c->pbuf);
	return 0;
}

/* A way to code a block: its zero structure's flags, bits in all and
 * without the meta, the palette's param. */
struct hx_way {
	unsigned flags, param;
	uint64_t bits, zbits;
};

/*
 * The block at @src with the zero structure of @flags (GT_ZS_PALETTE
 * among them) and @zb bytes of meta before the palette's param byte
 * (the copy lists of the whole block as one chunk included), into @way:
 * the palette's table is of every kept value, copied rows' too, its
 * tokens those of the whole block as one chunk, with a varint of D and
 * one byte of its length.  @way->bits is UINT64_MAX when the meta would
 * not fit in @meta_cap.
 */
static int pal_way(struct hx_ctx *c, const void *src, size_t n, unsigned flags,
		   size_t zb, size_t meta_cap, struct hx_way *way)
{
	const struct gt_huff_table *t;
	uint64_t pc, tb, chunk;
	size_t tlen;
	int param;

	way->bits = UINT64_MAX;
	GT_TRY(pal_of(c, src, n, flags, 1));
	t = cost_table(c, c->pbuf, c->pal.d, &tlen);
	if (flags & GT_ZS_COPIES)
		GT_TRY(pal_of(c, src, n, flags, 0));
	param = gt_pal_choose(&c->pal, kept_row(c), &tb);
	GT_TRY(param);
	pc = plain_cost(c, t, tlen, c->pbuf, c->pal.d);
	if (pc == UINT64_MAX || zb + 2 + tlen > meta_cap)
		return 0;
	chunk = 8 * ((uint64_t)varint_len(c->pal.d) + 1);
	way->flags = flags;
	way->param = (unsigned)param;
	way->bits = pc + tb + chunk + 8 * ((uint64_t)zb + 1);
	way->zbits = pc - 8 * (1 + (uint64_t)tlen) + tb + chunk +
		     8 * ((uint64_t)zb - 1 - gt_zs_size(&c->zs));
	return 0;
}

/*
 * The zero structure of @flags without a palette into @way (when it
 * costs fewer than way->bits), and with one when the kept values repeat
 * (gt_pal_worth).  Flags 0: a palette of all values only.
 */
static int zs_way(struct hx_ctx *c, const void *src, size_t n, unsigned flags,
		  size_t meta_cap, uint64_t qbits, struct hx_way *way)
{
	const size_t w = gt_dtype_size(c->dt);
	const struct gt_huff_table *t;
	struct hx_way pw;
	size_t tlen = 0, zb, m;
	uint64_t cost;

	c->zs.flags = flags;
	zb = 1 + gt_zs_size(&c->zs);
	GT_TRY(copies_of_block(c, src, n, &zb));
	/* the table is of the kept values copies included (as block_begin
	 * builds it), the values coded leave them out */
	c->zs.flags = flags & ~GT_ZS_COPIES;
	m = gt_zs_gather(&c->zs, 0, src, n, w, c->scratch);
	t = flags ? cost_table(c, c->scratch, m, &tlen) : NULL;
	c->zs.flags = flags;
	if (flags & GT_ZS_COPIES)
		m = gt_zs_gather(&c->zs, 0, src, n, w, c->scratch);
	cost = plain_cost(c, t, tlen, c->scratch, m);
	if (cost != UINT64_MAX && zb + 1 + tlen <= meta_cap && cost + 8 * zb + qbits < way->bits) {
		way->bits = cost + 8 * zb + qbits;
		way->flags = flags;
		/* the chunks: values and copy lists (cost and zb hold the
		 * meta: mark, bitmaps, mode byte, table) */
		way->zbits = cost + 8 * (zb - 1 - gt_zs_size(&c->zs)) - 8 * (1 + (uint64_t)tlen);
	}
	if (n > GT_PAL_MAX || !gt_pal_worth(c->scratch, m, c->dt))
		return 0;
	GT_TRY(pal_way(c, src, n, flags | GT_ZS_PALETTE, zb, meta_cap, &pw));
	if (pw.bits != UINT64_MAX && pw.bits + qbits < way->bits) {
		pw.bits += qbits;
		*way = pw;
	}
	return 0;
}

/*
 * Whether to code the block at @src with its zero structure, and with
 * which bitmaps, copies and palette: the way that costs the fewest bits
 * (plain on a tie), counting the meta and a varint of up to 3 bytes per
 * chunk of the default size.  Dense blocks return at gt_zs_find(), which
 * leaves at the first value of a row that is not +0.0.  Sets c->zmode,
 * c->zs, c->pparam and, when chosen, the values the table is built from
 * in c->scratch (*@kept_ret of them): the kept values, or their palette.
 */
static int hx_zs_choose(struct hx_ctx *c, const void *src, size_t n,
			size_t meta_cap, size_t *kept_ret)
{
	const size_t w = gt_dtype_size(c->dt);
	const uint64_t qbits = 24 * ((uint64_t)n / GT_CHUNK_DEFAULT + 1);
	const struct gt_huff_table *t;
	struct hx_way way = { 0, 0, UINT64_MAX, 0 };
	size_t tlen;
	unsigned all;
	int rc;

	c->zmode = 0;
	*kept_ret = n;
	if (!c->row_len)
		return 0;
	rc = gt_zs_find(&c->zs, src, n, c->dt, c->row_len);
	if (rc == GT_ERR(INVAL) || (rc >= 0 && !c->zs.flags))
		return 0;
	GT_TRY(rc);
	GT_TRY(hx_scratch(c, n));
	all = c->zs.flags | GT_ZS_COPIES;
	t = cost_table(c, src, n, &tlen);
	way.bits = plain_cost(c, t, tlen, src, n);
	for (unsigned f = 0; f <= (GT_ZS_ROWS | GT_ZS_COLS | GT_ZS_COPIES); f++)
		if ((f & all) == f)
			GT_TRY(zs_way(c, src, n, f, meta_cap, qbits, &way));
	if (!way.flags)
		return 0;
	/* the table is of every kept value: a row copied in the whole block
	 * may be coded in a chunk that does not hold its source */
	c->zs.flags = way.flags & ~GT_ZS_COPIES;
	*kept_ret = gt_zs_gather(&c->zs, 0, src, n, w, c->scratch);
	c->zs.flags = way.flags;
	if (way.flags & GT_ZS_PALETTE) {
		GT_TRY(pal_of(c, src, n, way.flags, 1));
		*kept_ret = c->pal.d;
		memcpy(c->scratch, c->pbuf, c->pal.d * w);
	}
	c->zbits = way.zbits;
	c->pparam = way.param;
	c->zmode = 1;
	return 0;
}

/* The plain block meta of the @n values at @src at @m: the mode byte and
 * (unless the table is static) the block's table. */
static int plain_begin(struct hx_ctx *c, const void *src, size_t n,
		       const struct gt_huff_hist *hint, unsigned char *m, size_t meta_cap,
		       size_t *meta_len_ret)
{
	size_t tlen = 0;

	*meta_len_ret = 0;
	if (meta_cap < 1)
		return GT_ERR(DST_TOO_SMALL);
	if (!c->fixed) {
		if (hint) {
			/* the counts of the dtype's symbols only (the rest is
			 * never read): a small block's copy stays small */
			c->hist.dtype = hint->dtype;
			c->hist.n = hint->n;
			c->hist.run_zeros = hint->run_zeros;
			c->hist.run_bits = hint->run_bits;
			memcpy(c->hist.count, hint->count,
			       gt_huff_nsyms(c->dt) * sizeof(c->hist.count[0]));
		} else {
			gt_huff_hist_init(&c->hist, c->dt);
			gt_huff_hist_isa(&c->hist, src, n, c->base.isa);
		}
		if (!c->zmode) {
			c->hsrc = src;
			c->hn = n;
		}
		GT_TRY(gt_huff_build(&c->table, &c->hist, c->maxlen, c->method, 0));
		GT_TRY(gt_huff_save(&c->table, m + 1, meta_cap - 1, &tlen));
		GT_TRY(prepare(c));
		if (tlen <= sizeof(c->built)) {
			memcpy(c->built, m + 1, tlen);
			c->built_len = tlen;
		}
	}
	if (!c->enc_ready)
		prepare_enc(c); /* block_mode() reads enc */
	m[0] = (unsigned char)block_mode(c, src, n);
	/* the split layout pays from HX_SPLIT_MIN values a chunk on */
	if (c->dt == GT_DT_F32 && HX_MODE_SIGN(m[0]) == HX_SIGN_MIXED &&
	    (HX_MODE_K(m[0]) == 0 || HX_MODE_K(m[0]) == 16) && n >= HX_SPLIT_MIN)
		m[0] |= HX_SIGN_SPLIT << 6;
	GT_TRY(set_mode(c, m[0]));
	*meta_len_ret = 1 + tlen;
	return 0;
}

static int hx_block_begin(struct gt_codec_ctx *ctx, const void *src, size_t n,
			  void *meta, size_t meta_cap, size_t *meta_len_ret)
{
	struct hx_ctx *c = hx(ctx);
	unsigned char *const m = meta;
	size_t zlen = 0, kept = n, len;
	const void *vals = src;
	const struct gt_huff_hist *hint = c->hint;

	*meta_len_ret = 0;
	c->hint = NULL;
	c->hsrc = NULL; /* the trials below count into c->hist */
	c->zsrc = src;
	c->zn = n;
	c->zbegun = 1;
	GT_TRY(hx_zs_choose(c, src, n, meta_cap, &kept));
	if (c->zmode) {
		vals = c->scratch;
		m[0] = HX_ZS_MARK;
		GT_TRY(gt_zs_save(&c->zs, m + 1, meta_cap - 1, &zlen));
		zlen++;
		if (c->zs.flags & GT_ZS_PALETTE) {
			if (zlen >= meta_cap)
				return GT_ERR(DST_TOO_SMALL);
			m[zlen++] = (unsigned char)c->pparam;
		}
	}
	GT_TRY(plain_begin(c, vals, kept, c->zmode ? NULL : hint, m + zlen, meta_cap - zlen,
			   &len));
	*meta_len_ret = zlen + len;
	return 0;
}

void gt_huffexp_hint_hist(struct gt_codec_ctx *ctx, const struct gt_huff_hist *h)
{
	hx(ctx)->hint = h;
}

/*
 * Plain blocks: gt_huff_cost() of the values with the block's table, less
 * what the mantissa words save on it (it counts 1 + M bits a word, the
 * chunks W <= 1 + M: n (1 + M - W) bits off, at most what they save).
 */
int gt_huffexp_block_bits(struct gt_codec_ctx *ctx, const void *src, size_t n,
			  uint64_t *bits_ret)
{
	struct hx_ctx *c = hx(ctx);
	const unsigned mb = gt_dtype_man_bits(c->dt);
	uint64_t bits, esc, save;

	*bits_ret = 0;
	if (!c->ready || !c->zbegun)
		return GT_ERR(INVAL);
	if (c->zmode) {
		*bits_ret = c->zbits;
		return 0;
	}
	if (c->fixed) { /* else c->hist holds them (plain_begin) */
		gt_huff_hist_init(&c->hist, c->dt);
		gt_huff_hist_isa(&c->hist, src, n, c->base.isa);
	}
	GT_TRY(gt_huff_cost(&c->table, &c->hist, &bits, &esc));
	save = (uint64_t)n * (1 + mb - c->wbits);
	*bits_ret = bits > save ? bits - save : 0;
	return 0;
}

/* The mode byte and table part of a block's meta (after any zero
 * structure). */
static int plain_load(struct hx_ctx *c, const unsigned char *m, size_t meta_len)
{
	int rc;

	if (!meta_len || (c->fixed && meta_len != 1))
		return GT_ERR(CORRUPT);
	if (!c->fixed && c->ready && c->built_len && c->built_len == meta_len - 1 &&
	    !memcmp(c->built, m + 1, c->built_len)) {
		/* the encoder loading the table block_begin just built */
	} else {
		c->built_len = 0;
		c->ready = c->fixed;
	}
	if (!c->ready) {
		GT_TRY(gt_huff_load(&c->table, m + 1, meta_len - 1, 0));
		GT_TRY(prepare(c));
	}
	rc = set_mode(c, m[0]);
	if (rc < 0)
		c->ready = 0;
	return rc;
}

static int hx_block_load(struct gt_codec_ctx *ctx, const void *meta,
			 size_t meta_len)
{
	struct hx_ctx *c = hx(ctx);
	const unsigned char *m = meta;
	size_t used = 0;
	int rc;

	if (!c->zbegun)
		c->zsrc = NULL; /* not the block this context began */
	c->zbegun = 0;
	c->zmode = meta_len && m[0] == HX_ZS_MARK;
	if (c->zmode) {
		rc = gt_zs_load(&c->zs, m + 1, meta_len - 1, &used);
		if (rc < 0) {
			c->zmode = 0;
			c->ready = c->fixed;
			return rc == GT_ERR(NOMEM) ? rc : GT_ERR(CORRUPT);
		}
		used++;
		if (c->zs.flags & GT_ZS_PALETTE) {
			if (used >= meta_len || !gt_pal_param_ok(m[used])) {
				c->zmode = 0;
				c->ready = c->fixed;
				return GT_ERR(CORRUPT);
			}
			c->pparam = m[used++];
		}
	}
	return plain_load(c, m + used, meta_len - used);
}

/* ---- encoding ------------------------------------------------------------- */

/* hx_count_f32() with the baseline's vectors (huffexp_x86.c has it with
 * AVX-512's, for isa avx512). */
static size_t count_f32(const struct hx_ctx *c, const unsigned char *p, size_t n,
			size_t *pz_ret)
{
	if (c->base.isa == GT_ISA_AVX512)
		return hx_count_f32_avx512(p, n, pz_ret);
	return hx_count_f32(p, n, pz_ret);
}

/* Values of @src carrying a sign and mantissa with the installed table:
 * those that are not ±0.0, and ±0.0 where its token carries one.  The
 * block's histogram has the counts when the chunk is the whole block
 * (a value is +0.0 counted as ZERO or inside a run, -0.0 as NZERO). */
static size_t count_carriers(const struct hx_ctx *c, const void *src, size_t n)
{
	const unsigned eb = gt_dtype_exp_bits(c->dt);
	const uint64_t mag = (UINT64_C(1) << (eb + gt_dtype_man_bits(c->dt))) - 1;
	size_t nz = 0, pz = 0;

	if (src == c->hsrc && n == c->hn && c->hist.n == n) {
		pz = (size_t)(c->hist.count[GT_HUFF_ZERO(eb)] + c->hist.run_zeros);
		nz = n - pz - (size_t)c->hist.count[GT_HUFF_NZERO(eb)];
	} else if (c->dt == GT_DT_F32) {
		nz = count_f32(c, src, n, &pz);
	} else {
		for (size_t i = 0; i < n; i++) {
			const uint64_t u = gt_fp_load(src, c->dt, i);

			nz += (u & mag) != 0;
			pz += u == 0;
		}
	}
	return nz + (c->enc[GT_HUFF_ZERO(eb)] >> 40 & 1) * pz +
	       (c->enc[GT_HUFF_NZERO(eb)] >> 40 & 1) * (n - nz - pz);
}



/* Any dtype, from value @i on: the reference loop and the f32 tail. */
static int enc_generic(const struct hx_ctx *c, const void *src, size_t i,
		       size_t n, struct gt_bitw *cw, struct gt_bitw *mw)
{
	const enum gt_dtype dt = c->dt;
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);
	const uint64_t mmask = (UINT64_C(1) << mb) - 1;
	const unsigned k = c->k, sb = c->sgn == HX_SIGN_MIXED, wb = c->wbits;

	while (i < n) {
		const uint64_t u = gt_fp_load(src, dt, i);
		uint64_t e;
		size_t len;

		if (!u && c->runs) {
			len = gt_huff_zeros_from(src, dt, i, n);
			if (len >= GT_HUFF_RUN_MIN) {
				gt_huff_put_run(cw, c->enc[GT_HUFF_RUN(gt_dtype_exp_bits(c->dt))], len);
				i += len;
				continue;
			}
		}
		e = c->enc[(u & (mmask | ((uint64_t)((1u << eb) - 1) << mb))) ?
				   (unsigned)(u >> mb) & ((1u << eb) - 1) :
				   (1u << eb) + (unsigned)(u >> (eb + mb))];
		if (e >> 41)
			return GT_ERR(INVAL); /* no code and no ESC */
		gt_bitw_put(cw, (uint32_t)e, (unsigned)(e >> 32) & 0xff);
		gt_bitw_flush(cw);
		if (e >> 40 & 1) {
			gt_bitw_put(mw, (u & mmask) >> k << sb | (u >> (eb + mb) & sb), wb);
			gt_bitw_flush(mw);
		}
		i++;
	}
	return 0;
}

/* The f32 encode table index: sign and exponent, | 512 for ±0.0. */
static inline uint32_t idx_f32(uint32_t u)
{
	return u >> 23 | (uint32_t)(u << 1 == 0) << 9;
}

/* Four table indexes at once (GCC/clang vector extension: SSE2, NEON). */
typedef uint32_t hx_v4 __attribute__((vector_size(16)));

static inline hx_v4 idx4_f32(hx_v4 u)
{
	return u >> 23 | ((hx_v4)(u << 1 == 0) & 512);
}

/* The f32 mantissa word of @u (vector or scalar) at @stride 3 (k = 0:
 * man << 1 | sign, the value rotated, exponent above bit 24) or 1 (k = 16:
 * man >> 16 << 1 | sign, 8 bits). */
#define HX_WORD32(u, stride) \
	((stride) == 3 ? (u) << 1 | (u) >> 31 : ((u) >> 15 & 0xfe) | (u) >> 31)

/* Mantissa word @w (in the low 8 stride bits), 4 bytes stored, the
 * stride kept: the next store (or the generic tail) covers the rest. */
static inline unsigned char *put_mant(unsigned char *mp, uint32_t w,
				      uint64_t e)
{
	memcpy(mp, &w, 4);
	return mp + HX_E_ADV(e);
}

static inline void put4(struct gt_bitw_fast *w, const uint64_t *e)
{
	const unsigned l0 = HX_E_LEN(e[0]), l1 = HX_E_LEN(e[1]);
	const unsigned l2 = HX_E_LEN(e[2]), l3 = HX_E_LEN(e[3]);
	const uint64_t c01 = HX_E_CODE(e[0]) | HX_E_CODE(e[1]) << l0;
	const uint64_t c23 = HX_E_CODE(e[2]) | HX_E_CODE(e[3]) << l2;

	if (__builtin_expect(l0 + l1 + l2 + l3 <= 56, 1)) {
		gt_bitw_fast_put(w, c01 | c23 << (l0 + l1), l0 + l1 + l2 + l3);
	} else {
		gt_bitw_fast_put(w, c01, l0 + l1);
		gt_bitw_fast_put(w, c23, l2 + l3);
	}
}

/* Value i alone, when a run may start there: a run or one value. */
static unsigned char *enc_one_f32(const struct hx_ctx *c,
				  const unsigned char *src, size_t n,
				  size_t *i_ret, struct gt_bitw *cw,
				  unsigned char *mp, uint64_t *bad,
				  unsigned stride)
{
	const size_t len = gt_huff_zeros_from(src, GT_DT_F32, *i_ret, n);
	uint64_t e;
	uint32_t u;

	if (len >= GT_HUFF_RUN_MIN) {
		gt_huff_put_run(cw, c->enc[GT_HUFF_RUN(gt_dtype_exp_bits(c->dt))], len);
		*i_ret += len;
		return mp;
	}
	memcpy(&u, src + 4 * (*i_ret)++, 4);
	e = c->enc32[idx_f32(u)];
	*bad |= e;
	gt_bitw_put(cw, HX_E_CODE(e), HX_E_LEN(e));
	gt_bitw_flush(cw);
	return put_mant(mp, HX_WORD32(u, stride), e);
}

/*
 * The f32 hot loop: four values per step while 8 values are left and the
 * mantissa stream has room for 4 stores of 4 bytes.  A run (>= 8 zeros)
 * starting in values i..i+3 covers all of i+4..i+7, so only when those
 * are all +0.0 does value i go alone through enc_one_f32().  Returns
 * the index where it stopped; the mantissa writer stays byte-aligned.
 * A value without a code sets HX_E_BAD in *@bad_ret.  Inlined once per
 * mantissa @stride (3 or 1), so that the word is a constant expression.
 */
static inline __attribute__((always_inline)) size_t
enc_f32_at(const struct hx_ctx *c, const unsigned char *src, size_t n,
	   struct gt_bitw *cw, struct gt_bitw *mw, uint64_t *bad_ret,
	   const unsigned stride)
{
	/* locals: stores through mp (char) would force reloads of fields */
	const uint64_t *const t = c->enc32;
	const unsigned char *const mend = mw->end, *const cend = cw->end;
	const int runs = c->runs;
	unsigned char *mp = mw->ptr;
	/* no call takes its address, so it stays in registers */
	struct gt_bitw_fast w = gt_bitw_fast_load(cw);
	uint64_t bad = 0;
	size_t i = 0;

	while (n - i >= 8 && mend - mp >= 13 && cend - w.ptr >= 16) {
		/* quads that fit: a quad takes <= 12 bytes of each stream */
		size_t q = (n - i - 4) / 4;

		q = HX_MIN(q, (size_t)(mend - mp - 1) / 12);
		q = HX_MIN(q, (size_t)(cend - w.ptr - 4) / 12);
		for (; q; q--) {
			uint64_t a, b, e[4];
			hx_v4 v, x, m;

			memcpy(&a, src + 4 * i + 16, 8);
			memcpy(&b, src + 4 * i + 24, 8);
			if (__builtin_expect(runs && !(a | b), 0))
				break;
			memcpy(&v, src + 4 * i, 16);
			x = idx4_f32(v);
			m = HX_WORD32(v, stride);
			e[0] = t[x[0]];
			e[1] = t[x[1]];
			e[2] = t[x[2]];
			e[3] = t[x[3]];
			bad |= e[0] | e[1] | e[2] | e[3];
			put4(&w, e);
			mp = put_mant(mp, m[0], e[0]);
			mp = put_mant(mp, m[1], e[1]);
			mp = put_mant(mp, m[2], e[2]);
			mp = put_mant(mp, m[3], e[3]);
			i += 4;
		}
		if (q) {
			gt_bitw_fast_store(&w, cw);
			mp = enc_one_f32(c, src, n, &i, cw, mp, &bad, stride);
			w = gt_bitw_fast_load(cw);
		}
	}
	mw->ptr = mp;
	gt_bitw_fast_store(&w, cw);
	*bad_ret = bad;
	return i;
}

static size_t enc_f32(const struct hx_ctx *c, const unsigned char *src,
		      size_t n, struct gt_bitw *cw, struct gt_bitw *mw,
		      uint64_t *bad_ret)
{
	if (c->mstride == 3)
		return enc_f32_at(c, src, n, cw, mw, bad_ret, 3);
	return enc_f32_at(c, src, n, cw, mw, bad_ret, 1);
}


/*
 * The f32 values at stride 3 from the first on, sixteen at a time, by
 * gcomp's AVX-512 token kernel (gcomp_simd.h): the same tokens, every
 * value at level 0, words rotated as huffexp lays them out, and no level
 * stream.  Stops where a stream has less than 128 bytes of room; returns
 * where.  *@bad_ret: a value had no code.
 */
static size_t enc_vec(const struct hx_ctx *c, const unsigned char *src, size_t n,
		      struct gt_bitw *cw, struct gt_bitw *mw, int *bad_ret)
{
	static unsigned char none[128]; /* the level stream, never written */
	struct gt_bitw_fast f = gt_bitw_fast_load(cw), m = gt_bitw_fast_load(mw);
	struct gt_bitw_fast l = { 0, 0, none };
	struct gc_eparams ep;
	size_t i;

	gc_eparams_codes(&ep, c->enc, c->ctab, c->wtab, c->wbase, GT_HUFF_ZERO(8),
			 GT_HUFF_NZERO(8));
	ep.zt = 1;
	ep.runs = c->runs;
	ep.lstream = 0;
	ep.w24 = 1;
	ep.rot = 1;
	ep.bad = bad_ret;
	for (int k = 0; k < 4; k++) {
		ep.sh[k] = 0;
		ep.wd[k] = 24;
	}
	i = gc_avx512_encode(&ep, (const uint32_t *)(const void *)src, NULL, 0, n, &f, cw->end,
			     &m, mw->end, &l, none + sizeof(none));
	gt_bitw_fast_store(&f, cw);
	gt_bitw_fast_store(&m, mw);
	return i;
}

/* The values of one part (or of a chunk): the mantissa stream of
 * exactly @mbytes at @mdst, the code stream at @cdst (*@clen_ret bytes). */
static int enc_part(const struct hx_ctx *c, const unsigned char *src, size_t n,
		    unsigned char *mdst, size_t mbytes, unsigned char *cdst,
		    size_t ccap, size_t *clen_ret)
{
	struct gt_bitw cw, mw;
	size_t i = 0, mlen;
	int rc;

	gt_bitw_init(&mw, mdst, mbytes);
	gt_bitw_init(&cw, cdst, ccap);
	if (c->mstride) {
		uint64_t bad;
		int vbad = 0;

		if (use_vec(c, n) && c->vec_ready)
			i = enc_vec(c, src, n, &cw, &mw, &vbad);
		i += enc_f32(c, src + 4 * i, n - i, &cw, &mw, &bad);
		if ((bad & HX_E_BAD) || vbad)
			return GT_ERR(INVAL); /* no code and no ESC */
	}
	rc = enc_generic(c, src, i, n, &cw, &mw);
	if (rc < 0)
		return rc;
	rc = gt_bitw_close(&mw, &mlen);
	if (rc < 0 || mlen != mbytes)
		return GT_ERR(INVAL); /* cannot happen: mcount was counted */
	return gt_bitw_close(&cw, clen_ret);
}

/*
 * A chunk in HX_SPLIT_S parts: the mcount varints, the code stream
 * lengths of parts 0..S-2 (4 bytes each, filled in as they are known),
 * the mantissa streams, the code streams.
 */
static int enc_split(const struct hx_ctx *c, const unsigned char *src, size_t n,
		     unsigned char *out, size_t dst_cap, size_t *dst_len_ret)
{
	size_t mb[HX_SPLIT_S], pos = 0, mpos, clen;
	unsigned char *lens;

	for (unsigned j = 0; j < HX_SPLIT_S; j++) {
		const size_t a = part_at(n, j), m = count_carriers(c, src + 4 * a,
								    part_at(n, j + 1) - a);

		mb[j] = (m * c->wbits + 7) / 8;
		if (dst_cap - pos < GT_VARINT_MAX)
			return GT_ERR(DST_TOO_SMALL);
		pos += (size_t)gt_varint_put(out + pos, m);
	}
	lens = out + pos;
	pos += 4 * (HX_SPLIT_S - 1);
	mpos = pos;
	for (unsigned j = 0; j < HX_SPLIT_S; j++)
		pos += mb[j];
	if (pos > dst_cap)
		return GT_ERR(DST_TOO_SMALL);
	for (unsigned j = 0; j < HX_SPLIT_S; j++) {
		const size_t a = part_at(n, j);

		GT_TRY(enc_part(c, src + 4 * a, part_at(n, j + 1) - a, out + mpos,
				mb[j], out + pos, dst_cap - pos, &clen));
		mpos += mb[j];
		pos += clen;
		if (j < HX_SPLIT_S - 1) {
			if (clen > UINT32_MAX)
				return GT_ERR(INVAL); /* cannot happen: HX_SPLIT_MAX */
			gt_le32_put(lens + 4 * j, (uint32_t)clen);
		}
	}
	*dst_len_ret = pos;
	return 0;
}

static int enc_plain(struct hx_ctx *c, const void *src, size_t n,
		     void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	unsigned char hdr[GT_VARINT_MAX];
	unsigned char *const out = dst;
	size_t mcount, mbytes, hlen, clen;

	*dst_len_ret = 0;
	if (!c->ready)
		return GT_ERR(INVAL);
	if (!c->enc_ready)
		prepare_enc(c);
	if (use_vec(c, n) && !c->vec_ready)
		prepare_vec(c);
	if (split_chunk(c, n))
		return enc_split(c, src, n, out, dst_cap, dst_len_ret);
	mcount = count_carriers(c, src, n);
	if (mcount > SIZE_MAX / 64)
		return GT_ERR(OVERFLOW);
	mbytes = (mcount * c->wbits + 7) / 8;
	hlen = (size_t)gt_varint_put(hdr, mcount);
	if (hlen > dst_cap || mbytes > dst_cap - hlen)
		return GT_ERR(DST_TOO_SMALL);
	memcpy(out, hdr, hlen);
	GT_TRY(enc_part(c, src, n, out + hlen, mbytes, out + hlen + mbytes,
			dst_cap - hlen - mbytes, &clen));
	*dst_len_ret = hlen + mbytes + clen;
	return 0;
}

/*
 * The @m kept values of a chunk in c->scratch with a palette: varint D,
 * then (D > 0) varint P and the plain chunk of the D palette values in
 * P bytes, then the tokens (gt_palette.h) to the end.
 */
static int enc_pal(struct hx_ctx *c, size_t m, unsigned char *out, size_t cap,
		   size_t *len_ret)
{
	size_t pos, plen = 0, tlen, vl;

	*len_ret = 0;
	GT_TRY(gt_pal_build(&c->pal, c->scratch, m, c->dt));
	GT_TRY(buf_room(c, &c->pbuf, &c->pbuf_cap, c->pal.d));
	gt_pal_values(&c->pal, c->dt, c->pbuf);
	if (cap < 2 * GT_VARINT_MAX)
		return GT_ERR(DST_TOO_SMALL);
	pos = (size_t)gt_varint_put(out, c->pal.d);
	if (c->pal.d) {
		/* the palette after room for its length, then moved down */
		GT_TRY(enc_plain(c, c->pbuf, c->pal.d, out + pos + GT_VARINT_MAX,
				 cap - pos - GT_VARINT_MAX, &plen));
		vl = (size_t)gt_varint_put(out + pos, plen);
		memmove(out + pos + vl, out + pos + GT_VARINT_MAX, plen);
		pos += vl + plen;
	}
	GT_TRY(gt_pal_encode(&c->pal, kept_row(c), c->pparam, out + pos, cap - pos, &tlen));
	*len_ret = pos + tlen;
	return 0;
}

/* The @m kept values of a palette chunk (enc_pal) at @p into c->scratch. */
static int dec_pal(struct hx_ctx *c, const unsigned char *p,
		   const unsigned char *end, size_t m)
{
	uint64_t d, plen = 0;

	GT_TRY(gt_varint_get(&p, end, &d));
	if (d > m || (!d && m))
		return GT_ERR(CORRUPT);
	GT_TRY(buf_room(c, &c->pbuf, &c->pbuf_cap, (size_t)d));
	if (d) {
		GT_TRY(gt_varint_get(&p, end, &plen));
		if (plen > (uint64_t)(end - p))
			return GT_ERR(TRUNCATED);
		GT_TRY(hx_dec_plain(c, p, (size_t)plen, c->pbuf, (size_t)d));
		p += plen;
	}
	return gt_pal_decode(&c->pal, kept_row(c), c->pparam, p, (size_t)(end - p),
			     c->pbuf, (size_t)d, c->dt, c->scratch, m);
}

/*
 * A chunk of a zero-structure block: varint q, the index in the block of
 * its first value, then the plain chunk of its kept values.
 */
static int hx_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		     void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct hx_ctx *const c = hx(ctx);
	const size_t w = gt_dtype_size(c->dt);
	const uintptr_t at = (uintptr_t)src, base = (uintptr_t)c->zsrc;
	unsigned char *const out = dst;
	size_t q, hlen, m, len;

	*dst_len_ret = 0;
	if (!c->zmode)
		return enc_plain(c, src, n, dst, dst_cap, dst_len_ret);
	/* the chunk must lie in the memory block_begin was given */
	if (!c->zsrc || at < base || (at - base) % w || (at - base) / w > c->zn ||
	    n > c->zn - (at - base) / w)
		return GT_ERR(INVAL);
	q = (at - base) / w;
	GT_TRY(hx_scratch(c, n));
	if (dst_cap < GT_VARINT_MAX)
		return GT_ERR(DST_TOO_SMALL);
	hlen = (size_t)gt_varint_put(out, q);
	if (c->zs.flags & GT_ZS_COPIES) {
		GT_TRY(gt_zs_find_copies(&c->zs, q, src, n, c->dt));
		GT_TRY(gt_zs_copies_save(&c->zs, q, out + hlen, dst_cap - hlen, &len));
		hlen += len;
	}
	m = gt_zs_gather(&c->zs, q, src, n, w, c->scratch);
	if (c->zs.flags & GT_ZS_PALETTE)
		GT_TRY(enc_pal(c, m, out + hlen, dst_cap - hlen, &len));
	else
		GT_TRY(enc_plain(c, c->scratch, m, out + hlen, dst_cap - hlen, &len));
	*dst_len_ret = hlen + len;
	return 0;
}

static int hx_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		     void *dst, size_t n)
{
	struct hx_ctx *c = hx(ctx);
	const unsigned char *p = src, *const end = p + src_len;
	const size_t w = gt_dtype_size(c->dt);
	const uint64_t span = (uint64_t)c->zs.nrows * c->zs.row_len;
	uint64_t q;
	size_t m, used;

	if (!c->zmode)
		return hx_dec_plain(c, src, src_len, dst, n);
	GT_TRY(gt_varint_get(&p, end, &q));
	if (q > span || n > span - q)
		return GT_ERR(CORRUPT);
	if (c->zs.flags & GT_ZS_COPIES) {
		GT_TRY(gt_zs_copies_load(&c->zs, (size_t)q, n, p, (size_t)(end - p), &used));
		p += used;
	}
	m = gt_zs_kept(&c->zs, (size_t)q, n);
	GT_TRY(hx_scratch(c, m));
	if (c->zs.flags & GT_ZS_PALETTE)
		GT_TRY(dec_pal(c, p, end, m));
	else
		GT_TRY(hx_dec_plain(c, p, (size_t)(end - p), c->scratch, m));
	gt_zs_scatter(&c->zs, (size_t)q, c->scratch, n, w, dst);
	gt_zs_apply_copies(&c->zs, (size_t)q, dst, c->dt);
	return 0;
}

const struct gt_codec gt_codec_huffexp = {
	.name = "huffexp",
	.id = 3,
	.flags = GT_CODEC_LOSSLESS | GT_CODEC_TABLE,
	.help = "maxlen=N   longest Huffman code n_theta, 1-15 (default 12)\n"
		"method=M   table builder: best, gcomp or pm (default best)\n",
	.ctx_new = hx_new,
	.ctx_free = hx_free,
	.canon = hx_canon,
	.bound = hx_bound,
	.block_begin = hx_block_begin,
	.block_load = hx_block_load,
	.encode = hx_encode,
	.decode = hx_decode,
};
