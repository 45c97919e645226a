/* gcomp_dec.c - decoding gcomp chunks (the layout is at the top of gcomp.c) */
#include <stdlib.h>
#include <string.h>

#include "gcomp_impl.h"
#include "../banned.h"

/* ---- decoding ----------------------------------------------------------- */


/* The chunk header: counts per level, checked against @n. */
static int get_header(const struct gc_ctx *c, const unsigned char **p,
		      const unsigned char *end, size_t n, uint64_t *cnt)
{
	uint64_t mc = 0;

	cnt[1] = cnt[2] = cnt[3] = 0;
	for (int l = 0; l < (c->mode == GC_PRUNE ? 1 : 4); l++) {
		GT_TRY(gt_varint_get(p, end, &cnt[l]));
		if (cnt[l] > n || mc + cnt[l] > n)
			return GT_ERR(CORRUPT);
		mc += cnt[l];
	}
	return 0;
}


struct gc_readers {
	struct gt_bitr lr, mr, cr;
	uint64_t left[4]; /* carriers still to come per level */
};

/* A carrier with exponent field @x: its level and word. */
static inline int dec_carrier(const struct gc_ctx *c, struct gc_readers *r,
			      int lstream, unsigned x, uint64_t *v_ret)
{
	const unsigned eb = c->eb, mb = c->mb;
	const unsigned l = lstream ? (unsigned)gt_bitr_get(&r->lr, 2) : 0;
	uint64_t w;

	if (!r->left[l]--)
		return GT_ERR(CORRUPT);
	w = gt_bitr_get(&r->mr, 1 + mb - c->lev[l]) << c->lev[l];
	*v_ret = (w >> mb) << (eb + mb) | (uint64_t)x << mb |
		 (w & ((UINT64_C(1) << mb) - 1));
	return 0;
}

/* The tokens that start before @stop, from value *@i_ret on (any dtype:
 * the reference loop, and the f32 path's runs, escapes and tail). */
static int dec_values(const struct gc_ctx *c, struct gc_readers *r,
		      unsigned char *dst, size_t stop, size_t n, size_t *i_ret)
{
	const unsigned eb = c->eb, mb = c->mb;
	const int lstream = c->mode != GC_PRUNE;
	size_t i = *i_ret;

	while (i < stop) {
		unsigned e, s;
		uint64_t v = 0;

		gt_bitr_refill(&r->cr);
		e = c->lut[gt_bitr_peek(&r->cr, c->lbits)];
		if (!GT_HUFF_LUT_LEN(e))
			return GT_ERR(CORRUPT);
		gt_bitr_consume(&r->cr, GT_HUFF_LUT_LEN(e));
		s = GT_HUFF_LUT_SYM(e);
		if (s < (1u << eb)) {
			GT_TRY(dec_carrier(c, r, lstream, s, &v));
		} else if (s == GT_HUFF_ESC(eb)) {
			GT_TRY(dec_carrier(c, r, lstream,
					   (unsigned)gt_bitr_get(&r->cr, eb), &v));
		} else if (s == GT_HUFF_RUN(eb)) {
			const uint64_t len = gt_huff_get_run(&r->cr);

			if (!len || len > n - i)
				return GT_ERR(CORRUPT);
			memset(dst + i * c->width, 0, (size_t)len * c->width);
			i += (size_t)len;
			continue;
		} else {
			v = (uint64_t)(s == GT_HUFF_NZERO(eb)) << (eb + mb);
		}
		gt_fp_store(dst, c->dt, i++, v);
	}
	*i_ret = i;
	return 0;
}

/*
 * The f32 fast path (GComp §4.5 with several tokens per lookup, as in
 * huffexp): a lookup of the next B code bits gives up to three exponent,
 * ZERO or NZERO tokens and the index of each one's carrier among them;
 * one 6-bit peek of the level stream and a lookup in ltab give the
 * carriers' word offsets, the bits they take and their counts per level;
 * the words are read from bit positions in the mantissa stream.  All
 * three slots are stored (junk that later values overwrite).
 */
#define GC_MBITS 12 /* table index bits; 9 for blocks of < 16384 values */
/* No multi-symbol table for blocks under GC_MLUT_MIN values: building it
 * would cost more than it saves; dec1_f32_at() decodes them */
#ifndef GC_MLUT_MIN
#define GC_MLUT_MIN 4096
#endif

static uint64_t mlut_entry(const struct gc_ctx *c, unsigned x, unsigned B)
{
	unsigned pos = 0, k = 0, nc = 0;
	uint64_t ent = 0;

	while (k < 3) {
		/* bits of x above B are unknown: only codes within B count */
		const unsigned e = c->lut[x >> pos], l = GT_HUFF_LUT_LEN(e);
		const unsigned s = GT_HUFF_LUT_SYM(e);

		if (!l || l > B - pos || s > GT_HUFF_NZERO(8))
			break;
		ent |= (uint64_t)(s | nc << 9) << (8 + 16 * k);
		nc += s < 256;
		pos += l;
		k++;
	}
	return k ? ent | pos | k << 4 | nc << 6 : 0;
}

/* ltab[nc << 6 | levels]: word offsets 0, off1, off2 in bits 0-23, the
 * nc words' bits in 24-31, the nc carriers per level (bytes) above; and
 * dsym, wsh, wmask: none depends on the table, made once per context. */
static void prepare_f32_ctx(struct gc_ctx *c)
{
	for (unsigned s = 0; s < 256; s++)
		c->dsym[s] = (uint64_t)s << 23 | UINT64_C(0xffffffff) << 32;
	c->dsym[GT_HUFF_ZERO(8)] = 0;
	c->dsym[GT_HUFF_NZERO(8)] = UINT64_C(1) << 31;
	for (unsigned x = 0; x < 256; x++) {
		const unsigned nc = x >> 6;
		uint64_t off = 0, t = 0;

		for (unsigned k = 0; k < 3; k++) {
			const unsigned l = x >> (2 * k) & 3;

			t |= off << (8 * k);
			if (k < nc)
				t += UINT64_C(1) << (32 + 8 * l);
			off += 24 - c->lev[l];
			if (k + 1 == nc)
				t |= off << 24;
		}
		c->ltab[x] = t;
	}
	for (int l = 0; l < 4; l++) {
		c->wsh[l] = c->lev[l];
		c->wmask[l] = (UINT64_C(1) << (24 - c->lev[l])) - 1;
	}
	c->f32_ready = 1;
}

/* The decode tables of the installed table, first used on @n values: a
 * LUT as wide as the longest code, and for f32 blocks that are not small
 * the multi-symbol table (9 index bits under 16384 values, else 12). */
static int prepare_dec(struct gc_ctx *c, size_t n)
{
	GT_TRY(gt_huff_lut_fit(&c->table, c->lut, GT_HUFF_LUT_MAX, &c->lbits));
	c->mbits = 0;
	if (c->dt == GT_DT_F32 && !c->f32_ready)
		prepare_f32_ctx(c);
	if (c->dt == GT_DT_F32 && n >= GC_MLUT_MIN) {
		const unsigned want = n < 16384 ? 9 : GC_MBITS;
		const unsigned B = c->lbits < want ? c->lbits : want;

		for (unsigned x = 0; x < (1u << B); x++)
			c->mlut[x] = mlut_entry(c, x, B);
		c->mbits = B;
	}
	c->dec_ready = 1;
	return 0;
}

/* Bits consumed by reader @r (pad 0), and the reader moved to bit @pos. */
static uint64_t bitr_pos(const struct gt_bitr *r)
{
	return (uint64_t)(r->ptr - r->start) * 8 - r->nb;
}

static void bitr_seek(struct gt_bitr *r, uint64_t pos)
{
	r->ptr = r->start + pos / 8;
	r->acc = 0;
	r->nb = 0;
	if (pos & 7)
		(void)gt_bitr_get(r, (unsigned)(pos & 7));
}

struct gc_fr {
	struct gt_bitr cr;
	const unsigned char *mp, *lp;
	uint64_t mpos, lpos, cnt;
	size_t i;
};

static inline __attribute__((always_inline)) int
step_f32(const struct gc_ctx *c, struct gc_fr *f, unsigned char *dst,
	 uint64_t bmask, const int lstream)
{
	const uint64_t e = c->mlut[f->cr.acc & bmask];
	uint64_t lb = 0, t, x;

	if (__builtin_expect(!(e & 15), 0))
		return 0;
	gt_bitr_consume(&f->cr, (unsigned)(e & 15));
	if (lstream) {
		memcpy(&x, f->lp + (f->lpos >> 3), 8);
		lb = x >> (f->lpos & 7) & 63;
	}
	t = c->ltab[(e >> 6 & 3) << 6 | lb];
	for (unsigned k = 0; k < 3; k++) {
		const unsigned sl = (unsigned)(e >> (8 + 16 * k)), ci = sl >> 9 & 3;
		const uint64_t p = f->mpos + (t >> (8 * ci) & 0xff), d = c->dsym[sl & 0x1ff];
		const unsigned l = (unsigned)(lb >> (2 * ci)) & 3;
		uint32_t w, v;

		memcpy(&x, f->mp + (p >> 3), 8);
		w = (uint32_t)((x >> (p & 7)) & c->wmask[l]) << c->wsh[l];
		v = (uint32_t)d | (((w & 0x7fffffu) | (w >> 23) << 31) & (uint32_t)(d >> 32));
		memcpy(dst + 4 * (f->i + k), &v, 4);
	}
	f->i += e >> 4 & 3;
	f->mpos += t >> 24 & 0xff;
	f->lpos += lstream ? 2 * (e >> 6 & 3) : 0;
	f->cnt += t >> 32;
	return 1;
}

/*
 * One token through the LUT (blocks without mlut): an exponent, ZERO or
 * NZERO token, else 0 (nothing consumed).  Branch-free on the token kind
 * (zeros are random in gradients): a ZERO/NZERO reads a level and word
 * that it does not consume.
 */
static inline __attribute__((always_inline)) int
step1_f32(const struct gc_ctx *c, struct gc_fr *f, unsigned char *dst,
	  uint64_t lmask, const int lstream)
{
	const unsigned e = c->lut[f->cr.acc & lmask], s = GT_HUFF_LUT_SYM(e);
	const unsigned car = s < 256;
	uint64_t x, d;
	unsigned l = 0;
	uint32_t w, v;

	if (__builtin_expect(e < (1u << 12) || s > GT_HUFF_NZERO(8), 0))
		return 0;
	gt_bitr_consume(&f->cr, GT_HUFF_LUT_LEN(e));
	if (lstream) {
		memcpy(&x, f->lp + (f->lpos >> 3), 8);
		l = (unsigned)(x >> (f->lpos & 7)) & 3;
		f->lpos += 2 * car;
	}
	d = c->dsym[s];
	memcpy(&x, f->mp + (f->mpos >> 3), 8);
	w = (uint32_t)((x >> (f->mpos & 7)) & c->wmask[l]) << c->wsh[l];
	v = (uint32_t)d | (((w & 0x7fffffu) | (w >> 23) << 31) & (uint32_t)(d >> 32));
	memcpy(dst + 4 * f->i++, &v, 4);
	f->mpos += car * (24 - c->wsh[l]);
	f->cnt += (uint64_t)car << (8 * l);
	return 1;
}

/* Counts per level (bytes of @cnt) into @k. */
static inline void cnt_flush(uint64_t cnt, size_t *k)
{
	for (int l = 0; l < 4; l++)
		k[l] += cnt >> (8 * l) & 0xff;
}

/* The readers after a fast loop stopped at @f with @k carriers per level
 * decoded; returns @tail, or GT_ERR(CORRUPT) for too many carriers. */
static inline __attribute__((always_inline)) int
fr_done(struct gc_readers *r, const struct gc_fr *f, const size_t *k,
		   size_t *i_ret, int tail)
{
	r->cr = f->cr;
	bitr_seek(&r->mr, f->mpos);
	bitr_seek(&r->lr, f->lpos);
	*i_ret = f->i;
	for (int q = 0; q < 4; q++) {
		if (k[q] > r->left[q])
			return GT_ERR(CORRUPT);
		r->left[q] -= k[q];
	}
	return tail;
}

/*
 * Groups of four lookups after one refill (4 x 12 <= 56 bits) while 12
 * values, 8 code bytes, 48 mantissa and 16 level bytes are left, so that
 * nothing inside a group needs a check (a group takes <= 36 and 3).  It
 * stops at any other token for dec_values().  Carriers per level are
 * counted (flushed every 16 groups: <= 192 a byte) and checked once.
 * Returns 1 when too little is left for it (the rest is for dec_values),
 * 0 when it stopped at a token, or an error.
 */
static inline __attribute__((always_inline)) int
dec_f32_at(const struct gc_ctx *c, struct gc_readers *r, unsigned char *dst,
	   size_t n, size_t *i_ret, const int lstream)
{
	const size_t mlen = (size_t)(r->mr.end - r->mr.start);
	const size_t llen = (size_t)(r->lr.end - r->lr.start);
	const uint64_t bmask = (UINT64_C(1) << c->mbits) - 1;
	struct gc_fr f = { r->cr, r->mr.start, r->lr.start, 0, 0, 0, *i_ret };
	size_t k[4] = { 0, 0, 0, 0 };
	unsigned g = 0;
	int tail = 1;

	if (r->mr.pad || r->lr.pad)
		return 1;
	f.mpos = bitr_pos(&r->mr);
	f.lpos = bitr_pos(&r->lr);
	while (n - f.i >= 12 && f.cr.end - f.cr.ptr >= 8 && mlen - f.mpos / 8 >= 48 &&
	       (!lstream || llen - f.lpos / 8 >= 16)) {
		int ok;

		gt_bitr_refill(&f.cr);
		ok = step_f32(c, &f, dst, bmask, lstream) &&
		     step_f32(c, &f, dst, bmask, lstream) &&
		     step_f32(c, &f, dst, bmask, lstream) &&
		     step_f32(c, &f, dst, bmask, lstream);
		if (!ok) {
			tail = 0;
			break;
		}
		if (++g == 16) {
			cnt_flush(f.cnt, k);
			f.cnt = 0;
			g = 0;
		}
	}
	cnt_flush(f.cnt, k);
	return fr_done(r, &f, k, i_ret, tail);
}

/*
 * dec_f32_at() for blocks without mlut: three tokens through the LUT
 * after one refill (3 x 15 <= 56 bits) while 3 values, 16 mantissa and 9
 * level bytes are left (three tokens take <= 9 and 1).  Counts flushed
 * every 64 groups (<= 192 a byte).
 */
static inline __attribute__((always_inline)) int
dec1_f32_at(const struct gc_ctx *c, struct gc_readers *r, unsigned char *dst,
	    size_t n, size_t *i_ret, const int lstream)
{
	const size_t mlen = (size_t)(r->mr.end - r->mr.start);
	const size_t llen = (size_t)(r->lr.end - r->lr.start);
	const uint64_t lmask = (UINT64_C(1) << c->lbits) - 1;
	struct gc_fr f = { r->cr, r->mr.start, r->lr.start, 0, 0, 0, *i_ret };
	size_t k[4] = { 0, 0, 0, 0 };
	unsigned g = 0;
	int tail = 1;

	if (r->mr.pad || r->lr.pad)
		return 1;
	f.mpos = bitr_pos(&r->mr);
	f.lpos = bitr_pos(&r->lr);
	while (n - f.i >= 3 && f.cr.end - f.cr.ptr >= 8 && mlen - f.mpos / 8 >= 16 &&
	       (!lstream || llen - f.lpos / 8 >= 9)) {
		int ok;

		gt_bitr_refill(&f.cr);
		ok = step1_f32(c, &f, dst, lmask, lstream) &&
		     step1_f32(c, &f, dst, lmask, lstream) &&
		     step1_f32(c, &f, dst, lmask, lstream);
		if (!ok) {
			tail = 0;
			break;
		}
		if (++g == 64) {
			cnt_flush(f.cnt, k);
			f.cnt = 0;
			g = 0;
		}
	}
	cnt_flush(f.cnt, k);
	return fr_done(r, &f, k, i_ret, tail);
}

static int dec_f32(const struct gc_ctx *c, struct gc_readers *r,
		   unsigned char *dst, size_t n, size_t *i_ret)
{
	const int lstream = c->mode != GC_PRUNE;

	if (!c->mbits)
		return lstream ? dec1_f32_at(c, r, dst, n, i_ret, 1)
			       : dec1_f32_at(c, r, dst, n, i_ret, 0);
	return lstream ? dec_f32_at(c, r, dst, n, i_ret, 1)
		       : dec_f32_at(c, r, dst, n, i_ret, 0);
}

/* The three streams of a chunk after its header. */
static int open_streams(const struct gc_ctx *c, const unsigned char *p,
			const unsigned char *end, const uint64_t *cnt,
			struct gc_readers *r)
{
	const uint64_t mc = cnt[0] + cnt[1] + cnt[2] + cnt[3];
	uint64_t lbytes, mbits = 0, mbytes;

	for (int l = 0; l < 4; l++) {
		mbits += cnt[l] * (1 + c->mb - c->lev[l]);
		r->left[l] = cnt[l];
	}
	lbytes = c->mode == GC_PRUNE ? 0 : (mc + 3) / 4;
	mbytes = (mbits + 7) / 8;
	if (lbytes > (uint64_t)(end - p) || mbytes > (uint64_t)(end - p) - lbytes)
		return GT_ERR(TRUNCATED);
	gt_bitr_init(&r->lr, p, (size_t)lbytes);
	gt_bitr_init(&r->mr, p + lbytes, (size_t)mbytes);
	gt_bitr_init(&r->cr, p + lbytes + mbytes, (size_t)(end - p - lbytes - mbytes));
	return 0;
}

int gc_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		     void *dst, size_t n)
{
	struct gc_ctx *c = gc(ctx);
	const unsigned char *p = src, *const end = p + src_len;
	struct gc_readers r;
	uint64_t cnt[4];
	int rc = 0, rc2, rc3;

	if (!c->ready)
		return GT_ERR(INVAL);
	if (!c->dec_ready)
		GT_TRY(prepare_dec(c, n));
	GT_TRY(get_header(c, &p, end, n, cnt));
	GT_TRY(open_streams(c, p, end, cnt, &r));
	for (size_t i = 0; rc == 0 && i < n;) {
		if (c->dt == GT_DT_F32) {
			/* after a token the fast loop cannot take, back to it; when
			 * too little is left for it, the rest (a small block's all) */
			rc = dec_f32(c, &r, dst, n, &i);
			if (rc >= 0 && i < n)
				rc = dec_values(c, &r, dst, rc ? n : i + 1, n, &i);
		} else {
			rc = dec_values(c, &r, dst, n, n, &i);
		}
	}
	if (rc < 0)
		return gt_bitr_left(&r.cr) < 0 || gt_bitr_left(&r.mr) < 0 ||
		       gt_bitr_left(&r.lr) < 0 ? GT_ERR(TRUNCATED) : rc;
	rc = gt_bitr_finish(&r.cr);
	rc2 = gt_bitr_finish(&r.mr);
	rc3 = gt_bitr_finish(&r.lr);
	if (rc < 0)
		return rc;
	if (rc2 < 0 || rc3 < 0 || r.left[0] || r.left[1] || r.left[2] || r.left[3])
		return GT_ERR(CORRUPT);
	return 0;
}

int gc_chunk_stats(struct gt_codec_ctx *ctx, const void *src,
			  size_t src_len, size_t n, uint64_t *counts)
{
	const struct gc_ctx *c = gc(ctx);
	const unsigned char *p = src;
	uint64_t cnt[4];

	GT_TRY(get_header(c, &p, p + src_len, n, cnt));
	for (int l = 0; l < 4; l++)
		counts[l] += cnt[l];
	counts[4] += n - (cnt[0] + cnt[1] + cnt[2] + cnt[3]);
	return 0;
}

