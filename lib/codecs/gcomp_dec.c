/* gcomp_dec.c - decoding gcomp chunks (the layout is at the top of gcomp.c) */
#include <stdlib.h>
#include <string.h>

#include "gcomp_impl.h"
#include "gcomp_simd.h"
#include "../gt_isa.h"
#if GT_ISA_X86 && !defined(GT_NO_SIMD)
#include <immintrin.h>
#endif
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
 * The f32 path, two passes per segment of GC_SEG values.  Pass 1 turns
 * the tokens into one 16-bit code per value: a carrier's exponent << 7 |
 * 1, 0 for ZERO, 0x8000 for NZERO (the top half of the float, with the
 * carrier flag in bit 0); a lookup of the next B code bits (mlut) gives up
 * to three codes, stored as one word.  Pass 2 rebuilds the floats from the
 * codes, the level stream and the mantissa stream: branch-free in C,
 * sixteen values at a time with AVX-512 (levels spread to lanes, word
 * offsets by a prefix sum, the words gathered and expanded to the
 * carriers' lanes) and eight with AVX2 (each lane finds its carrier's
 * level and word itself).  Pass 2 reads the streams with loads bounded by the
 * end of the chunk and counts carriers; the counts per level and the
 * padding are checked once, at the end (f32_check).
 */
#define GC_SEG 4096
/* multi-symbol table index bits in large blocks (gt_huff_mlut_bits():
 * fewer in smaller ones, none under 512 values, which tok1_fast()
 * decodes) */
#define GC_MBITS 12

/* mlut entry: bits 0-3 the code bits taken, 4-5 the codes (1..3), the
 * codes from bit 16 (16 each); 0: the next token is none of these */
static uint64_t mlut_word(const void *arg, unsigned s, unsigned k, unsigned nc)
{
	(void)nc;
	return (uint64_t)((const struct gc_ctx *)arg)->c16[s] << (16 + 16 * k);
}

/* The codes of the symbols up to NZERO: the same for every table. */
static void prepare_f32_ctx(struct gc_ctx *c)
{
	for (unsigned s = 0; s < 256; s++)
		c->c16[s] = (uint16_t)(s << 7 | 1);
	c->c16[GT_HUFF_ZERO(8)] = 0;
	c->c16[GT_HUFF_NZERO(8)] = 0x8000;
	c->f32_ready = 1;
}

/* The decode tables of the installed table, first used on @n values: a
 * LUT as wide as the longest code, and for f32 blocks that are not small
 * the multi-symbol table (gt_huff_mlut_bits()). */
static int prepare_dec(struct gc_ctx *c, size_t n)
{
	GT_TRY(gt_huff_lut_fit(&c->table, c->lut, GT_HUFF_LUT_MAX, &c->lbits));
	c->mbits = 0;
	if (c->dt == GT_DT_F32 && !c->f32_ready)
		prepare_f32_ctx(c);
	if (c->dt == GT_DT_F32)
		c->mbits = gt_huff_mlut_make(&c->table, n, c->lbits, GC_MBITS, c->mlut,
					     mlut_word, c, 0);
	c->dec_ready = 1;
	return 0;
}

/* ---- pass 1: tokens to codes --------------------------------------------- */

struct gc_tok {
	struct gt_bitr cr; /* the code stream */
	uint64_t run;      /* zeros of a RUN still to come */
};

/*
 * One lookup of mlut into @e: its codes stored at @o + @i (four slots, the
 * ones past its codes junk that later ones overwrite), @i past them.  A
 * token mlut does not hold has the entry 0: nothing is consumed nor
 * counted, so the lookups after it find the same entry, and a group of
 * lookups is checked once, by its last entry; the shift takes the entry's
 * low six bits as they are (GT_HUFF_MLEN), with no branch in the chain.
 */
#define GC_MSTEP(c, r, o, i, mask, e)                                   \
	do {                                                            \
		uint64_t w_;                                            \
		(e) = (c)->mlut[(r).acc & (mask)];                      \
		w_ = (e) >> 16;                                         \
		gt_bitr_consume(&(r), GT_HUFF_MLEN(e));                 \
		memcpy((o) + (i), &w_, 8);                              \
		(i) += GT_HUFF_MCOUNT(e);                               \
	} while (0)

/* Codes from mlut, four lookups (<= 48 bits, <= 12 codes) per refill,
 * while 12 codes fit below @m and 8 code bytes are left; stops at a token
 * that mlut does not take.  Returns the codes' end. */
static size_t tok_fast(const struct gc_ctx *c, struct gt_bitr *cr,
		       uint16_t *o, size_t i, size_t m)
{
	const uint64_t mask = (UINT64_C(1) << c->mbits) - 1;
	struct gt_bitr r = *cr;
	uint64_t e = 1;

	while (GT_HUFF_MLEN(e) && m - i >= 12 && r.end - r.ptr >= 8) {
		gt_bitr_refill(&r);
		GC_MSTEP(c, r, o, i, mask, e);
		GC_MSTEP(c, r, o, i, mask, e);
		GC_MSTEP(c, r, o, i, mask, e);
		GC_MSTEP(c, r, o, i, mask, e);
	}
	*cr = r;
	return i;
}

/* tok_fast() for blocks without mlut: three LUT lookups (<= 45 bits) per
 * refill. */
static size_t tok1_fast(const struct gc_ctx *c, struct gt_bitr *cr,
			uint16_t *o, size_t i, size_t m)
{
	const uint64_t mask = (UINT64_C(1) << c->lbits) - 1;
	struct gt_bitr r = *cr;

	while (m - i >= 3 && r.end - r.ptr >= 8) {
		gt_bitr_refill(&r);
		for (int k = 0; k < 3; k++) {
			const unsigned e = c->lut[r.acc & mask], s = GT_HUFF_LUT_SYM(e);

			if (__builtin_expect(e < (1u << 12) || s > GT_HUFF_NZERO(8), 0))
				goto out;
			gt_bitr_consume(&r, GT_HUFF_LUT_LEN(e));
			o[i++] = c->c16[s];
		}
	}
out:
	*cr = r;
	return i;
}

/* One token of any kind (bounds checked): *@i_ret codes on, a RUN cut at
 * @m (the rest in t->run); @nleft values are left in the chunk from 0. */
static int tok_slow(const struct gc_ctx *c, struct gc_tok *t, uint16_t *o,
		    size_t *i_ret, size_t m, size_t nleft)
{
	size_t i = *i_ret;
	unsigned e, s;

	gt_bitr_refill(&t->cr);
	e = c->lut[gt_bitr_peek(&t->cr, c->lbits)];
	if (!GT_HUFF_LUT_LEN(e))
		return GT_ERR(CORRUPT);
	gt_bitr_consume(&t->cr, GT_HUFF_LUT_LEN(e));
	s = GT_HUFF_LUT_SYM(e);
	if (s <= GT_HUFF_NZERO(8)) {
		o[i++] = c->c16[s];
	} else if (s == GT_HUFF_ESC(8)) {
		o[i++] = (uint16_t)(gt_bitr_get(&t->cr, 8) << 7 | 1);
	} else {
		const uint64_t len = gt_huff_get_run(&t->cr);
		const size_t z = len < m - i ? (size_t)len : m - i;

		if (!len || len > nleft - i)
			return GT_ERR(CORRUPT);
		memset(o + i, 0, z * 2);
		i += z;
		t->run = len - z;
	}
	*i_ret = i;
	return 0;
}

/* The codes of values @i to @m (@nleft left in the chunk from 0) into @o;
 * the fast loop's stores of four codes end by @o + @fast_end (@m where @o
 * has slack after @m). */
static int tok_loop(const struct gc_ctx *c, struct gc_tok *t, uint16_t *o, size_t i,
		    size_t m, size_t nleft, size_t fast_end)
{
	while (i < m) {
		i = c->mbits ? tok_fast(c, &t->cr, o, i, fast_end) : tok1_fast(c, &t->cr, o, i, m);
		if (i < m)
			GT_TRY(tok_slow(c, t, o, &i, m, nleft));
	}
	return gt_bitr_left(&t->cr) < 0 ? GT_ERR(TRUNCATED) : 0;
}

/* The codes of the next @m values (@nleft left in the chunk) into @o. */
static int tok_f32(const struct gc_ctx *c, struct gc_tok *t, uint16_t *o,
		   size_t m, size_t nleft)
{
	size_t i = t->run < m ? (size_t)t->run : m;

	memset(o, 0, i * 2);
	t->run -= i;
	return tok_loop(c, t, o, i, m, nleft, m);
}

/*
 * Split chunks: two parts' code streams at once, so that the chains of
 * table lookups of both overlap.  Both parts write into one array, part
 * b right after part a: a step stores four codes, so a part stops 13
 * codes short of its end (12 could store into b's first).
 */
static void tok2_fast(const struct gc_ctx *c, struct gt_bitr *ra, uint16_t *oa,
		      size_t *ia, size_t ma, struct gt_bitr *rb, uint16_t *ob, size_t *ib,
		      size_t mb)
{
	const uint64_t mask = (UINT64_C(1) << c->mbits) - 1;
	struct gt_bitr a = *ra, b = *rb;
	size_t i = *ia, j = *ib;
	uint64_t ea = 1, eb = 1;

	while (GT_HUFF_MLEN(ea) && GT_HUFF_MLEN(eb) && ma - i >= 13 && mb - j >= 13 &&
	       a.end - a.ptr >= 8 && b.end - b.ptr >= 8) {
		gt_bitr_refill_fast(&a);
		gt_bitr_refill_fast(&b);
		GC_MSTEP(c, a, oa, i, mask, ea);
		GC_MSTEP(c, b, ob, j, mask, eb);
		GC_MSTEP(c, a, oa, i, mask, ea);
		GC_MSTEP(c, b, ob, j, mask, eb);
		GC_MSTEP(c, a, oa, i, mask, ea);
		GC_MSTEP(c, b, ob, j, mask, eb);
		GC_MSTEP(c, a, oa, i, mask, ea);
		GC_MSTEP(c, b, ob, j, mask, eb);
	}
	*ra = a;
	*rb = b;
	*ia = i;
	*ib = j;
}

/* Whether the next token of @t (value @i of @m) is one tok2_fast() does
 * not take: no room, or a token mlut does not hold. */
static int tok2_stops(const struct gc_ctx *c, struct gc_tok *t, size_t i, size_t m)
{
	if (m - i < 13 || t->cr.end - t->cr.ptr < 8)
		return 1;
	gt_bitr_refill_fast(&t->cr);
	return !GT_HUFF_MLEN(c->mlut[t->cr.acc & ((UINT64_C(1) << c->mbits) - 1)]);
}

/* The codes of parts @ta (@ma values into @o) and @tb (@mb values, into
 * @o + @ma), together while both have tokens the fast loop takes. */
static int tok_pair(const struct gc_ctx *c, struct gc_tok *ta, struct gc_tok *tb,
		    uint16_t *o, size_t ma, size_t mb)
{
	uint16_t *const ob = o + ma;
	size_t i = 0, j = 0;

	while (c->mbits && i < ma && j < mb) {
		int sa, sb;

		tok2_fast(c, &ta->cr, o, &i, ma, &tb->cr, ob, &j, mb);
		sa = tok2_stops(c, ta, i, ma);
		sb = tok2_stops(c, tb, j, mb);
		if (sa || !sb)
			GT_TRY(tok_slow(c, ta, o, &i, ma, ma));
		if (sb)
			GT_TRY(tok_slow(c, tb, ob, &j, mb, mb));
	}
	/* the rest alone; a part's stores must not pass its end (the next
	 * part's codes): a step of four stops one code earlier */
	GT_TRY(tok_loop(c, ta, o, i, ma, ma, ma - 1));
	return tok_loop(c, tb, ob, j, mb, mb, mb - 1);
}

/* ---- pass 2: codes to values --------------------------------------------- */

/* Where pass 2 is in the level (lp) and mantissa (mp) streams; lav, mav:
 * the bytes from lp, mp to the end of the chunk (bound of every load). */
struct gc_mst {
	const unsigned char *lp, *mp;
	size_t lav, mav;
	uint64_t lpos, mpos, nc; /* bit positions; carriers so far */
};

/* The 8 bytes at @p + @b, zeros past @av. */
static inline uint64_t ld64(const unsigned char *p, uint64_t b, size_t av)
{
	uint64_t v = 0;

	if (__builtin_expect(b + 8 <= av, 1)) {
		memcpy(&v, p + b, 8);
		return v;
	}
	for (unsigned j = 0; j < 8 && b + j < av; j++)
		v |= (uint64_t)p[b + j] << (8 * j);
	return v;
}

/* The value of code @code; branch-free on the carrier flag. */
static inline uint32_t rec1(const struct gc_ctx *c, struct gc_mst *s,
			    unsigned code, const int lstream)
{
	const uint32_t car = code & 1;
	const unsigned l = lstream ? (unsigned)(ld64(s->lp, s->lpos >> 3, s->lav) >>
					      (s->lpos & 7)) & 3 : 0;
	const unsigned W = 24 - c->lev[l];
	const uint32_t w = (uint32_t)(ld64(s->mp, s->mpos >> 3, s->mav) >> (s->mpos & 7) &
				      ((UINT64_C(1) << W) - 1)) << c->lev[l];

	s->lpos += 2 * car;
	s->mpos += car * W;
	s->nc += car;
	return (uint32_t)(code & 0xff80) << 16 |
	       (((w & 0x7fffffu) | (w & 0x800000u) << 8) & (0u - car));
}

static void rec_scalar(const struct gc_ctx *c, struct gc_mst *s, const uint16_t *o,
		       unsigned char *dst, size_t m, const int lstream)
{
	for (size_t i = 0; i < m; i++) {
		const uint32_t v = rec1(c, s, o[i], lstream);

		memcpy(dst + 4 * i, &v, 4);
	}
}

#if GT_ISA_X86 && !defined(GT_NO_SIMD)
#define GC_DEC_X86 1
/*
 * Pass 2 with AVX-512, sixteen values a step while the step's loads stay
 * inside the chunk (8 level bytes, 16 x 24 bits + 4 mantissa bytes);
 * returns the values done (the rest is for rec_scalar).  The same values
 * as rec1(): lane j of the carriers takes level j of the stream, its word
 * at the sum of the widths before it, and goes to the j-th carrier.
 */
#define GC_TARGET_AVX512 \
	__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,bmi2,popcnt")))
#define GC_TARGET_VBMI \
	__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx512vbmi,avx2,bmi2,popcnt")))
#define GC_INLINE512 static inline __attribute__((always_inline)) GC_TARGET_AVX512

/* One step of rec_avx512(): what comes before the words' load. */
struct gc_step {
	__m512i cz, lvl, W, pos;
	__mmask16 car, km;
	unsigned k, bits; /* carriers, their words' bits */
};

/*
 * The levels as the steps use them, made once a call: the stores to the
 * output may alias the context (char pointers), so the compiler would
 * load and rebuild them every step.
 */
struct gc_rk {
	__m512i levv, widv;
	unsigned lev[4];
};

GC_INLINE512 void rec_rk(const struct gc_ctx *c, struct gc_rk *k)
{
	k->levv = _mm512_set_epi32(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (int)c->lev[3],
				   (int)c->lev[2], (int)c->lev[1], (int)c->lev[0]);
	k->widv = _mm512_sub_epi32(_mm512_set1_epi32(24), k->levv);
	memcpy(k->lev, c->lev, sizeof(k->lev));
}

GC_INLINE512 void rec_step_begin(const struct gc_rk *c, const struct gc_mst *s,
				 const uint16_t *o, const int lstream, struct gc_step *st)
{
	const __m512i widv = c->widv;
	const __m512i sh2 = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12,
					     10, 8, 6, 4, 2, 0);
	const __m512i z = _mm512_setzero_si512();
	__m512i t;

	st->cz = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const void *)o));
	st->car = _mm512_test_epi32_mask(st->cz, _mm512_set1_epi32(1));
	st->k = (unsigned)__builtin_popcount(st->car);
	st->km = (__mmask16)((1u << st->k) - 1);
	st->lvl = z;
	st->bits = st->k * (24 - c->lev[0]);
	if (lstream) {
		const uint64_t q = UINT64_C(0x5555555555555555);
		uint64_t L, x, lo, hi;

		memcpy(&L, s->lp + (s->lpos >> 3), 8);
		st->lvl = _mm512_and_si512(_mm512_srlv_epi32(
			_mm512_set1_epi32((int)(uint32_t)(L >> (s->lpos & 7))), sh2),
			_mm512_set1_epi32(3));
		/* the words' bits from the k levels by scalar counts, so that
		 * the next step's position does not wait for the vector sums */
		x = L >> (s->lpos & 7) & ((UINT64_C(1) << 2 * st->k) - 1);
		lo = x & q;
		hi = x >> 1 & q;
		st->bits = 24 * st->k - c->lev[0] * st->k -
			   (c->lev[1] - c->lev[0]) * (unsigned)__builtin_popcountll(lo & ~hi) -
			   (c->lev[2] - c->lev[0]) * (unsigned)__builtin_popcountll(hi & ~lo) -
			   (c->lev[3] - c->lev[0]) * (unsigned)__builtin_popcountll(lo & hi);
	}
	st->W = _mm512_maskz_permutexvar_epi32(st->km, st->lvl, widv);
	t = _mm512_add_epi32(st->W, _mm512_alignr_epi32(st->W, z, 15));
	t = _mm512_add_epi32(t, _mm512_alignr_epi32(t, z, 14));
	t = _mm512_add_epi32(t, _mm512_alignr_epi32(t, z, 12));
	t = _mm512_add_epi32(t, _mm512_alignr_epi32(t, z, 8));
	st->pos = _mm512_add_epi32(_mm512_sub_epi32(t, st->W),
				   _mm512_set1_epi32((int)(s->mpos & 7)));
}

/* The rest of a step, the 4 bytes at each lane's byte offset in @g. */
GC_INLINE512 void rec_step_end(const struct gc_rk *c, struct gc_mst *s,
			       const struct gc_step *st, __m512i g, unsigned char *dst)
{
	const __m512i levv = c->levv;
	const __m512i one = _mm512_set1_epi32(1);
	__m512i w;

	w = _mm512_and_si512(_mm512_srlv_epi32(g, _mm512_and_si512(st->pos, _mm512_set1_epi32(7))),
			     _mm512_sub_epi32(_mm512_sllv_epi32(one, st->W), one));
	w = _mm512_sllv_epi32(w, _mm512_permutexvar_epi32(st->lvl, levv));
	w = _mm512_or_si512(_mm512_and_si512(w, _mm512_set1_epi32(0x7fffff)),
			    _mm512_slli_epi32(_mm512_and_si512(w, _mm512_set1_epi32(0x800000)), 8));
	w = _mm512_or_si512(_mm512_maskz_expand_epi32(st->car, w),
			    _mm512_slli_epi32(_mm512_and_si512(st->cz, _mm512_set1_epi32(0xff80)), 16));
	_mm512_storeu_si512((void *)dst, w);
	s->mpos += st->bits;
	s->lpos += 2 * st->k;
	s->nc += st->k;
}

/*
 * Pass 2 with AVX-512, sixteen values a step while the step's loads stay
 * inside the chunk (8 level bytes, 16 x 24 bits + 4 mantissa bytes);
 * returns the values done (the rest is for rec_scalar).  The same values
 * as rec1(): lane j of the carriers takes level j of the stream, its word
 * at the sum of the widths before it, and goes to the j-th carrier.  The
 * words come through a gather.
 */
GC_TARGET_AVX512 static size_t
rec_avx512(const struct gc_ctx *ctx, struct gc_mst *sp, const uint16_t *o,
	   unsigned char *dst, size_t m, const int lstream)
{
	struct gc_rk rk, *const c = &rk;
	struct gc_mst ms = *sp, *const s = &ms; /* in registers: see gc_rk */
	size_t i = 0;

	rec_rk(ctx, &rk);
	for (; m - i >= 16; i += 16) {
		struct gc_step st;

		if ((s->lpos >> 3) + 8 > s->lav || (s->mpos >> 3) + 52 > s->mav)
			break;
		rec_step_begin(c, s, o + i, lstream, &st);
		rec_step_end(c, s, &st,
			     _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), st.km,
							 _mm512_srli_epi32(st.pos, 3),
							 (const void *)(s->mp + (s->mpos >> 3)), 1),
			     dst + 4 * i);
	}
	*sp = ms;
	return i;
}

/*
 * rec_avx512() with AVX-512 VBMI: a step's words lie in the 52 bytes from
 * its first, so one load of 64 bytes (masked at the chunk's end) and a
 * byte permute give each lane its 4 bytes.  A gather of sixteen lanes was
 * half of the decoder's time on AMD Zen 4; the permute is one instruction.
 */
GC_TARGET_VBMI static size_t
rec_vbmi(const struct gc_ctx *ctx, struct gc_mst *sp, const uint16_t *o,
	 unsigned char *dst, size_t m, const int lstream)
{
	/* each lane's byte offset into all four of its bytes, + 0, 1, 2, 3 */
	const __m512i spread = _mm512_set4_epi32(0x0c0c0c0c, 0x08080808, 0x04040404, 0x00000000);
	const __m512i bytes = _mm512_set1_epi32(0x03020100);
	struct gc_rk rk, *const c = &rk;
	struct gc_mst ms = *sp, *const s = &ms; /* in registers: see gc_rk */
	size_t i = 0;

	rec_rk(ctx, &rk);
	for (; m - i >= 16; i += 16) {
		const size_t b = s->mpos >> 3;
		struct gc_step st;
		__m512i win, idx;

		if ((s->lpos >> 3) + 8 > s->lav || b + 52 > s->mav)
			break;
		rec_step_begin(c, s, o + i, lstream, &st);
		/* a plain load where 64 bytes remain: the masked one is slower */
		win = __builtin_expect(s->mav - b >= 64, 1) ?
			      _mm512_loadu_si512((const void *)(s->mp + b)) :
			      _mm512_maskz_loadu_epi8(_bzhi_u64(~UINT64_C(0), (unsigned)(s->mav - b)),
						      s->mp + b);
		idx = _mm512_add_epi8(_mm512_shuffle_epi8(_mm512_srli_epi32(st.pos, 3), spread), bytes);
		rec_step_end(c, s, &st, _mm512_permutexvar_epi8(idx, win), dst + 4 * i);
	}
	*sp = ms;
	return i;
}

/*
 * Pass 2 with AVX2, eight values a step while the step's loads stay inside
 * the chunk (8 level bytes, 8 x 24 bits + 4 mantissa bytes); returns the
 * values done (the rest is for rec_scalar).  The same values as rec1():
 * AVX2 has no expand, so each lane finds its own place, the carriers
 * before it (an exclusive prefix sum of the carrier flags): its level is
 * that one of the stream, its word starts at the sum of the carriers'
 * widths before it, and a lane that is no carrier takes width 0.
 */
#define GC_TARGET_AVX2 __attribute__((target("avx2,bmi2,popcnt")))

/* Inclusive prefix sums of the eight 32-bit lanes of @x. */
GC_TARGET_AVX2 static inline __m256i psum8(__m256i x)
{
	x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
	x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
	return _mm256_add_epi32(x, _mm256_blend_epi32(_mm256_setzero_si256(),
						      _mm256_permutevar8x32_epi32(
							      x, _mm256_set1_epi32(3)), 0xf0));
}

GC_TARGET_AVX2 static size_t rec_avx2(const struct gc_ctx *c, struct gc_mst *sp,
				      const uint16_t *o, unsigned char *dst, size_t m,
				      const int lstream)
{
	struct gc_mst ms = *sp, *const s = &ms; /* in registers: see gc_rk */
	const __m256i levv = _mm256_setr_epi32((int)c->lev[0], (int)c->lev[1], (int)c->lev[2],
					       (int)c->lev[3], 0, 0, 0, 0);
	const __m256i widv = _mm256_sub_epi32(_mm256_set1_epi32(24), levv);
	const __m256i one = _mm256_set1_epi32(1), z = _mm256_setzero_si256();
	size_t i = 0;

	for (; m - i >= 8; i += 8) {
		__m256i cz, car, lvl = z, W, t, pos, g, w;
		unsigned k;

		if ((s->lpos >> 3) + 8 > s->lav || (s->mpos >> 3) + 28 > s->mav)
			break;
		cz = _mm256_cvtepu16_epi32(_mm_loadu_si128((const void *)(o + i)));
		car = _mm256_and_si256(cz, one);
		t = psum8(car); /* carriers up to each lane */
		k = (unsigned)_mm256_extract_epi32(t, 7);
		car = _mm256_cmpeq_epi32(car, one);
		if (lstream) {
			uint64_t L;

			memcpy(&L, s->lp + (s->lpos >> 3), 8);
			/* the level of the carriers before the lane */
			lvl = _mm256_and_si256(_mm256_srlv_epi32(
				_mm256_set1_epi32((int)(uint32_t)(L >> (s->lpos & 7))),
				_mm256_slli_epi32(_mm256_sub_epi32(t, _mm256_and_si256(car, one)), 1)),
				_mm256_set1_epi32(3));
		}
		W = _mm256_and_si256(_mm256_permutevar8x32_epi32(widv, lvl), car);
		t = psum8(W);
		pos = _mm256_add_epi32(_mm256_sub_epi32(t, W), _mm256_set1_epi32((int)(s->mpos & 7)));
		g = _mm256_i32gather_epi32((const int *)(const void *)(s->mp + (s->mpos >> 3)),
					   _mm256_srli_epi32(pos, 3), 1);
		w = _mm256_and_si256(_mm256_srlv_epi32(g, _mm256_and_si256(pos, _mm256_set1_epi32(7))),
				     _mm256_sub_epi32(_mm256_sllv_epi32(one, W), one));
		w = _mm256_sllv_epi32(w, _mm256_permutevar8x32_epi32(levv, lvl));
		w = _mm256_or_si256(_mm256_and_si256(w, _mm256_set1_epi32(0x7fffff)),
				    _mm256_slli_epi32(_mm256_and_si256(w, _mm256_set1_epi32(0x800000)), 8));
		w = _mm256_or_si256(_mm256_and_si256(w, car),
				    _mm256_slli_epi32(_mm256_and_si256(cz, _mm256_set1_epi32(0xff80)), 16));
		_mm256_storeu_si256((void *)(dst + 4 * i), w);
		s->mpos += (uint32_t)_mm256_extract_epi32(t, 7);
		s->lpos += 2 * k;
		s->nc += k;
	}
	*sp = ms;
	return i;
}
#endif

/* Pass 2 on @m values with the instruction set of c->isa. */
static void rec_f32(const struct gc_ctx *c, struct gc_mst *s, const uint16_t *o,
		    unsigned char *dst, size_t m)
{
	const int lstream = c->mode != GC_PRUNE;
	size_t i = 0;

#ifdef GC_DEC_X86
	if (c->isa == GC_ISA_AVX512 && __builtin_cpu_supports("avx512vbmi"))
		i = lstream ? rec_vbmi(c, s, o, dst, m, 1) : rec_vbmi(c, s, o, dst, m, 0);
	else if (c->isa == GC_ISA_AVX512)
		i = lstream ? rec_avx512(c, s, o, dst, m, 1) : rec_avx512(c, s, o, dst, m, 0);
	else if (c->isa == GC_ISA_AVX2)
		i = lstream ? rec_avx2(c, s, o, dst, m, 1) : rec_avx2(c, s, o, dst, m, 0);
#endif
	if (lstream)
		rec_scalar(c, s, o + i, dst + 4 * i, m - i, 1);
	else
		rec_scalar(c, s, o + i, dst + 4 * i, m - i, 0);
}

/* Levels 1, 2, 3 among the first @n (2-bit, LSB-first) of @p into @k. */
static inline __attribute__((always_inline)) void
count_levels_in(const unsigned char *p, uint64_t n, uint64_t *k)
{
	const uint64_t lo = UINT64_C(0x5555555555555555);

	for (uint64_t b = 0; b < (n + 3) / 4; b += 8) {
		uint64_t x = 0, h, l;
		const uint64_t left = n - 4 * b; /* levels from this word on */

		memcpy(&x, p + b, (n + 3) / 4 - b < 8 ? (size_t)((n + 3) / 4 - b) : 8);
		if (left < 32)
			x &= (UINT64_C(1) << (2 * left)) - 1;
		h = x >> 1 & lo;
		l = x & lo;
		k[1] += (uint64_t)__builtin_popcountll(l & ~h);
		k[2] += (uint64_t)__builtin_popcountll(h & ~l);
		k[3] += (uint64_t)__builtin_popcountll(h & l);
	}
}

static void count_levels(const unsigned char *p, uint64_t n, uint64_t *k)
{
	count_levels_in(p, n, k);
}

#ifdef GC_DEC_X86
/* count_levels() with the popcnt instruction (else a libgcc call) */
GC_TARGET_AVX2 static void count_levels_popcnt(const unsigned char *p, uint64_t n,
					       uint64_t *k)
{
	count_levels_in(p, n, k);
}
#endif

/* After the last segment: the carriers, the levels per count and the
 * streams' padding as the header says (the streams' sizes follow from
 * it, open_streams). */
static int f32_check(const struct gc_ctx *c, const uint64_t *cnt,
		     const struct gc_readers *r, const struct gc_mst *s)
{
	const uint64_t mc = cnt[0] + cnt[1] + cnt[2] + cnt[3];
	const size_t lb = (size_t)(r->lr.end - r->lr.start);
	const size_t mb = (size_t)(r->mr.end - r->mr.start);
	uint64_t k[4] = { 0, 0, 0, 0 };

	if (s->nc != mc)
		return GT_ERR(CORRUPT);
	if (c->mode != GC_PRUNE) {
#ifdef GC_DEC_X86
		if (c->isa != GC_ISA_SCALAR)
			count_levels_popcnt(s->lp, mc, k);
		else
#endif
			count_levels(s->lp, mc, k);
		if (k[1] != cnt[1] || k[2] != cnt[2] || k[3] != cnt[3])
			return GT_ERR(CORRUPT);
		if ((mc & 3) && s->lp[lb - 1] >> (2 * (mc & 3)))
			return GT_ERR(CORRUPT);
	}
	if ((s->mpos & 7) && s->mp[mb - 1] >> (s->mpos & 7))
		return GT_ERR(CORRUPT);
	return 0;
}

/* The f32 values of a chunk in segments, through the two passes. */
static int dec_f32(struct gc_ctx *c, const uint64_t *cnt, struct gc_readers *r,
		   const unsigned char *end, unsigned char *dst, size_t n)
{
	struct gc_tok t = { r->cr, 0 };
	struct gc_mst s = { r->lr.start, r->mr.start, (size_t)(end - r->lr.start),
			    (size_t)(end - r->mr.start), 0, 0, 0 };

	for (size_t i = 0; i < n;) {
		const size_t m = n - i < GC_SEG ? n - i : GC_SEG;

		GT_TRY(tok_f32(c, &t, c->seg, m, n - i));
		rec_f32(c, &s, c->seg, dst + 4 * i, m);
		i += m;
	}
	r->cr = t.cr;
	return f32_check(c, cnt, r, &s);
}

/*
 * A split chunk's f32 values: pass 1 on parts 0 and 1 together, then on
 * 2 and 3, into c->codes (the whole chunk); then pass 2 in segments.
 * @r->cr holds the code stream sizes, then the four code streams.
 */
static int dec_f32_split(struct gc_ctx *c, const uint64_t *cnt, struct gc_readers *r,
			 const unsigned char *end, unsigned char *dst, size_t n)
{
	const unsigned char *p = r->cr.start;
	const size_t avail = (size_t)(r->cr.end - p);
	struct gc_tok t[4];
	struct gc_mst s = { r->lr.start, r->mr.start, (size_t)(end - r->lr.start),
			    (size_t)(end - r->mr.start), 0, 0, 0 };
	size_t off = GC_SPLIT_TAB;

	if (avail < GC_SPLIT_TAB)
		return GT_ERR(TRUNCATED);
	for (unsigned j = 0; j < 4; j++) {
		size_t len = avail - off;

		if (j < 3) {
			len = gt_le32_get(p + 4 * j);
			if (len > avail - off)
				return GT_ERR(TRUNCATED);
		}
		gt_bitr_init(&t[j].cr, p + off, len);
		t[j].run = 0;
		off += len;
	}
	if (n + 16 > c->codes_cap) {
		uint16_t *const q = realloc(c->codes, (n + 16) * sizeof(*q));

		if (!q)
			return GT_ERR(NOMEM);
		c->codes = q;
		c->codes_cap = n + 16;
	}
	GT_TRY(tok_pair(c, &t[0], &t[1], c->codes, gc_part_end(n, 0),
			gc_part_end(n, 1) - gc_part_end(n, 0)));
	GT_TRY(tok_pair(c, &t[2], &t[3], c->codes + gc_part_end(n, 1),
			gc_part_end(n, 2) - gc_part_end(n, 1), n - gc_part_end(n, 2)));
	for (unsigned j = 0; j < 4; j++)
		GT_TRY(gt_bitr_finish(&t[j].cr));
	for (size_t i = 0; i < n; i += GC_SEG)
		rec_f32(c, &s, c->codes + i, dst + 4 * i, n - i < GC_SEG ? n - i : GC_SEG);
	return f32_check(c, cnt, r, &s);
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
	if (c->dt == GT_DT_F32 && GC_SPLIT_CHUNK(c->split, n))
		return dec_f32_split(c, cnt, &r, end, dst, n);
	if (c->dt == GT_DT_F32) {
		GT_TRY(dec_f32(c, cnt, &r, end, dst, n));
		return gt_bitr_finish(&r.cr);
	}
	for (size_t i = 0; rc == 0 && i < n;)
		rc = dec_values(c, &r, dst, n, n, &i);
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

