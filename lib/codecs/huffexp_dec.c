/* huffexp_dec.c - huffexp's decoder (the layouts: huffexp.c) */
#include <string.h>

#include "huffexp_impl.h"
#include "../gt_bitio.h"
#include "../banned.h"

#if GT_ISA_X86
/* x86-64's variable shifts without the CL register */
#define HX_TARGET_WALK __attribute__((target("bmi,bmi2")))
#else
#define HX_TARGET_WALK
#endif

/* Where an f32 multi-symbol entry counts its mantissa words: above the
 * three slots (bits 8-55), the walk's fourth slot, which it overwrites */
#define HX_NC_AT 56

/* The f32 multi-symbol table's word of a code: its symbol, the
 * carriers before it (which mantissa word), from bit 8 + 16 k. */
static uint64_t mlut_word(const void *arg, unsigned s, unsigned k, unsigned nc)
{
	(void)arg;
	return (uint64_t)(s | 3 * nc << 9 | nc << 12) << (8 + 16 * k);
}

/* The decode tables of the installed table, first used on @n values:
 * a LUT as wide as the longest code, and for f32 blocks that are not
 * small a multi-symbol table, smaller for smaller blocks (cheaper to
 * build). */
int hx_prepare_dec(struct hx_ctx *c, size_t n)
{
	GT_TRY(gt_huff_lut_fit(&c->table, c->lut, GT_HUFF_LUT_MAX, &c->lbits));
	c->mbits = 0;
	if (c->dt == GT_DT_F32)
		c->mbits = gt_huff_mlut_make(&c->table, n, c->lbits, HX_MBITS, c->mlut,
					     mlut_word, NULL, HX_NC_AT);
	c->dec_ready = 1;
	return 0;
}



/* Zero bytes for @len values at @dst + i, after checking they fit. */
static int put_zeros(unsigned char *dst, size_t width, size_t i, size_t n,
		     uint64_t len)
{
	if (!len || len > n - i)
		return GT_ERR(CORRUPT);
	memset(dst + i * width, 0, (size_t)len * width);
	return 0;
}

/* The next token's symbol into *@s through the one-level LUT. */
static inline int next_sym(const struct hx_ctx *c, struct gt_bitr *cr, unsigned *s)
{
	unsigned e;

	gt_bitr_refill(cr);
	e = c->lut[gt_bitr_peek(cr, c->lbits)];
	if (!GT_HUFF_LUT_LEN(e))
		return GT_ERR(CORRUPT);
	gt_bitr_consume(cr, GT_HUFF_LUT_LEN(e));
	*s = GT_HUFF_LUT_SYM(e);
	return 0;
}

/* Any dtype, from value *@i_ret on; *@left_ret: mantissas still unread. */
static int dec_generic(const struct hx_ctx *c, struct gt_bitr *cr,
		       struct gt_bitr *mr, unsigned char *dst, size_t i,
		       size_t n, size_t *left_ret)
{
	const enum gt_dtype dt = c->dt;
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);
	const unsigned width = gt_dtype_size(dt);
	const unsigned k = c->k, sb = c->sgn == HX_SIGN_MIXED, wb = c->wbits;
	const uint64_t sfix = c->sgn == HX_SIGN_NEG;
	size_t left = *left_ret;

	while (i < n) {
		unsigned s, mant = 1;
		uint64_t v, sm;

		GT_TRY(next_sym(c, cr, &s));
		if (s < (1u << eb)) {
			v = (uint64_t)s << mb;
		} else if (s == GT_HUFF_RUN(eb)) {
			const uint64_t len = gt_huff_get_run(cr);

			GT_TRY(put_zeros(dst, width, i, n, len));
			i += len;
			continue;
		} else if (s == GT_HUFF_ESC(eb)) {
			v = gt_bitr_get(cr, eb) << mb;
		} else { /* ZERO, NZERO */
			v = (uint64_t)(s == GT_HUFF_NZERO(eb)) << (eb + mb);
			mant = 0;
		}
		if (mant) {
			if (!left--)
				return GT_ERR(CORRUPT);
			sm = gt_bitr_get(mr, wb);
			v |= sm >> sb << k | (sb ? sm & 1 : sfix) << (eb + mb);
		}
		gt_fp_store(dst, dt, i++, v);
	}
	*left_ret = left;
	return 0;
}

/* The f32 value of symbol word @d (dsym) and the mantissa word in the low
 * bits of @m at @stride (HX_WORD32 undone). */
static inline uint32_t val_f32(uint64_t d, uint32_t m, const unsigned stride)
{
	const uint32_t x = stride == 3 ? m : (m & 0xfe) << 16 | (m & 1);
	const uint32_t w = (uint32_t)d | (x & (uint32_t)(d >> 32));

	return w >> 1 | w << 31;
}

/*
 * The f32 value of symbol word @d (dsym) into @dst, its mantissa word (if
 * it has one) read at *@mp_ret, checked against @mend, at @stride bytes;
 * *@mp_ret advances.  The bounds-checked form of a value, one at a time.
 */
static inline int put_f32(uint64_t d, const unsigned char **mp_ret,
			  const unsigned char *mend, unsigned stride, unsigned char *dst)
{
	const unsigned char *mp = *mp_ret;
	uint32_t m = 0, v;

	if (d >> 32) {
		if (mend - mp < stride)
			return GT_ERR(CORRUPT);
		m = mp[0];
		if (stride == 3)
			m |= (uint32_t)mp[1] << 8 | (uint32_t)mp[2] << 16;
		*mp_ret = mp + stride;
	}
	v = val_f32(d, m, stride);
	memcpy(dst, &v, 4);
	return 0;
}

/*
 * One f32 token the slow way (ESC, RUN, codes longer than HX_MBITS bits,
 * corrupt codes) at value *@i_ret < @n.  *@mp_ret and *@i_ret advance.
 */
static int dec_one_f32(const struct hx_ctx *c, struct gt_bitr *cr,
		       const unsigned char **mp_ret, const unsigned char *mend,
		       unsigned char *dst, size_t n, size_t *i_ret)
{
	const size_t i = *i_ret;
	unsigned s;
	uint64_t d;

	GT_TRY(next_sym(c, cr, &s));
	if (s == GT_HUFF_RUN(8)) {
		const uint64_t len = gt_huff_get_run(cr);

		GT_TRY(put_zeros(dst, 4, i, n, len));
		*i_ret = i + (size_t)len;
		return 0;
	}
	d = s == GT_HUFF_ESC(8) ? gt_bitr_get(cr, 8) << 24 | UINT64_C(0xffffff) << 32
				: c->dsym[s];
	GT_TRY(put_f32(d, mp_ret, mend, c->mstride, dst + 4 * i));
	*i_ret = i + 1;
	return 0;
}

/*
 * One lookup of the f32 multi-symbol table: up to three tokens.  All
 * three slots are stored (and their mantissa words loaded), the unused
 * ones with junk that later values overwrite; the caller keeps 3 values
 * and 10 mantissa bytes of room.  Returns 0, having done nothing, when
 * the slow path must take the next token.
 */
static inline __attribute__((always_inline)) int
step_f32(const uint64_t *mlut, const uint64_t *dsym, uint64_t bmask,
	 struct gt_bitr *cr, const unsigned char **mp, unsigned char **op,
	 const unsigned stride)
{
	const uint64_t e = mlut[cr->acc & bmask];

	if (__builtin_expect(!GT_HUFF_MLEN(e), 0))
		return 0;
	gt_bitr_consume(cr, GT_HUFF_MLEN(e));
#pragma GCC unroll 3
	for (unsigned k = 0; k < 3; k++) {
		const uint64_t sl = e >> (8 + 16 * k);
		uint32_t m, v;

		memcpy(&m, *mp + (stride == 3 ? sl >> 9 & 7 : sl >> 12 & 3), 4);
		v = val_f32(dsym[sl & 0x1ff], m, stride);
		memcpy(*op + 4 * k, &v, 4);
	}
	*op += 4 * GT_HUFF_MCOUNT(e);
	*mp += stride * (e >> HX_NC_AT & 3);
	return 1;
}

/*
 * The f32 hot loop: groups of four lookups after one refill (4 x 12 <=
 * 56 bits) while 12 values and 40 (stride 1: 16) mantissa bytes are
 * left, so nothing inside a group needs a bounds check.  A token the
 * table does not hold goes through dec_one_f32().  Returns 0 or an error;
 * *@i_ret is where it stopped and *@mp_ret advances.  Inlined once per
 * mantissa @stride.
 */
static inline __attribute__((always_inline)) int
dec_f32_at(const struct hx_ctx *c, struct gt_bitr *cr_io,
	   const unsigned char **mp_ret, const unsigned char *mend,
	   unsigned char *dst, size_t n, size_t *i_ret, const unsigned stride)
{
	/* local copies, whose address no call takes: stores to dst would
	 * otherwise alias them, and they stay in registers */
	struct gt_bitr lr = *cr_io;
	const unsigned char *mp = *mp_ret;
	const uint64_t bmask = (UINT64_C(1) << c->mbits) - 1;
	unsigned char *op = dst, *const oend = dst + 4 * n;
	int rc = 0;

	while (oend - op >= 48 && mend - mp >= (stride == 3 ? 40 : 16)) {
		struct gt_bitr sr;
		const unsigned char *smp;
		size_t i;

		gt_bitr_refill(&lr);
		if (step_f32(c->mlut, c->dsym, bmask, &lr, &mp, &op, stride) &&
		    step_f32(c->mlut, c->dsym, bmask, &lr, &mp, &op, stride) &&
		    step_f32(c->mlut, c->dsym, bmask, &lr, &mp, &op, stride) &&
		    step_f32(c->mlut, c->dsym, bmask, &lr, &mp, &op, stride))
			continue;
		sr = lr;
		smp = mp;
		i = (size_t)(op - dst) / 4;
		rc = dec_one_f32(c, &sr, &smp, mend, dst, n, &i);
		lr = sr;
		mp = smp;
		op = dst + 4 * i;
		if (rc < 0)
			break;
	}
	*cr_io = lr;
	*mp_ret = mp;
	*i_ret = (size_t)(op - dst) / 4;
	return rc;
}

/*
 * The f32 loop of blocks too small for the multi-symbol table: three
 * tokens per refill (3 x 15 <= 56 bits) through the LUT while 3 values
 * and 12 mantissa bytes are left; RUN, ESC and corrupt codes go through
 * dec_one_f32().  As dec_f32_at() otherwise.
 */
static inline __attribute__((always_inline)) int
dec1_f32_at(const struct hx_ctx *c, struct gt_bitr *cr_io,
	    const unsigned char **mp_ret, const unsigned char *mend,
	    unsigned char *dst, size_t n, size_t *i_ret, const unsigned stride)
{
	struct gt_bitr lr = *cr_io, *const cr = &lr;
	const unsigned char *mp = *mp_ret;
	const uint16_t *const lut = c->lut;
	const uint64_t *const dsym = c->dsym;
	const uint64_t lmask = (UINT64_C(1) << c->lbits) - 1;
	size_t i = 0;
	int rc = 0;

	while (n - i >= 3 && mend - mp >= 12) {
		unsigned k;

		gt_bitr_refill(cr);
		for (k = 0; k < 3; k++) {
			const unsigned e = lut[cr->acc & lmask];
			uint64_t d;
			uint32_t m, v;

			/* length 0 (no code) or a symbol above NZERO */
			if (__builtin_expect(e < (1u << 12) ||
					     GT_HUFF_LUT_SYM(e) > GT_HUFF_NZERO(8), 0))
				break;
			gt_bitr_consume(cr, GT_HUFF_LUT_LEN(e));
			d = dsym[GT_HUFF_LUT_SYM(e)];
			memcpy(&m, mp, 4);
			v = val_f32(d, m, stride);
			memcpy(dst + 4 * i++, &v, 4);
			mp += (d >> 32 != 0) * stride;
		}
		if (k < 3) {
			rc = dec_one_f32(c, cr, &mp, mend, dst, n, &i);
			if (rc < 0)
				break;
		}
	}
	*cr_io = lr;
	*mp_ret = mp;
	*i_ret = i;
	return rc;
}

static int dec_f32(const struct hx_ctx *c, struct gt_bitr *cr,
		   const unsigned char **mp_ret, const unsigned char *mend,
		   unsigned char *dst, size_t n, size_t *i_ret)
{
	if (!c->mbits && c->mstride == 3)
		return dec1_f32_at(c, cr, mp_ret, mend, dst, n, i_ret, 3);
	if (!c->mbits)
		return dec1_f32_at(c, cr, mp_ret, mend, dst, n, i_ret, 1);
	if (c->mstride == 3)
		return dec_f32_at(c, cr, mp_ret, mend, dst, n, i_ret, 3);
	return dec_f32_at(c, cr, mp_ret, mend, dst, n, i_ret, 1);
}

/* One part (or a chunk) after the fast loops: the mantissa stream of
 * @mcount words at [@m0, @mend), read up to @mp, values from @i on. */
struct hx_part {
	struct gt_bitr cr;
	const unsigned char *m0, *mp, *mend;
	unsigned char *dst;
	size_t n, i, mcount;
};

static HX_TARGET_WALK int dec_walk1(const struct hx_ctx *c, struct hx_part *p, int kind);

/*
 * Which value pass the two-pass decoder takes with the context's isa: 2
 * AVX-512 VBMI2, 1 AVX2 (AVX-512 without VBMI2 too), 0 none (the one-pass
 * loops run).
 */
static int walk_kind(const struct hx_ctx *c)
{
	if (c->base.isa == GT_ISA_AVX512 && hx_asm_avx512_runs())
		return 2;
	return c->base.isa == GT_ISA_AVX2 || c->base.isa == GT_ISA_AVX512;
}

/* Part @p to its end, both streams checked; @walk: the two-pass loop
 * first, with the value pass of walk_kind(). */
static int dec_part(const struct hx_ctx *c, struct hx_part *p, int walk)
{
	struct gt_bitr mr;
	size_t i = 0, left = p->mcount;
	int rc, rc2;

	gt_bitr_init(&mr, p->m0, (size_t)(p->mend - p->m0));
	if (walk && c->mbits && c->mstride) {
		rc = dec_walk1(c, p, walk);
		if (rc < 0)
			return gt_bitr_left(&p->cr) < 0 ? GT_ERR(TRUNCATED) : rc;
	}
	if (c->mstride) {
		rc = dec_f32(c, &p->cr, &p->mp, p->mend, p->dst + 4 * p->i,
			     p->n - p->i, &i);
		if (rc < 0)
			return gt_bitr_left(&p->cr) < 0 ? GT_ERR(TRUNCATED) : rc;
		p->i += i;
		left -= (size_t)(p->mp - p->m0) / c->mstride;
		mr.ptr = p->mp;
	}
	rc = dec_generic(c, &p->cr, &mr, p->dst, p->i, p->n, &left);
	if (rc < 0)
		return gt_bitr_left(&p->cr) < 0 ? GT_ERR(TRUNCATED) : rc;
	rc = gt_bitr_finish(&p->cr);
	rc2 = gt_bitr_finish(&mr);
	if (rc < 0)
		return rc;
	return left || rc2 < 0 ? GT_ERR(CORRUPT) : 0;
}

/* After a round of dec_lanes_at(): the token that stopped each part
 * whose bit in @ok is 0, the slow way. */
static int dec_lane_slow(const struct hx_ctx *c, const struct hx_part *p,
			 unsigned nl, unsigned ok, struct gt_bitr *r,
			 const unsigned char **m, unsigned char **o)
{
	for (unsigned j = 0; j < nl; j++) {
		size_t i;

		if (ok >> j & 1)
			continue;
		i = (size_t)(o[j] - p[j].dst) / 4;
		GT_TRY(dec_one_f32(c, &r[j], &m[j], p[j].mend, p[j].dst, p[j].n, &i));
		o[j] = p[j].dst + 4 * i;
	}
	return 0;
}

/*
 * The f32 loop of a split chunk: the HX_SPLIT_S parts at once, a lookup
 * of each in turn, so that their chains of table lookups overlap; four
 * rounds after one refill.  A part whose token the table does not hold
 * does nothing in the rest of the round (step_f32 leaves it as it was)
 * and takes it through dec_one_f32() after the round.  Stops when one
 * part is near its end; dec_part() finishes each.
 */
static inline __attribute__((always_inline)) int
dec_lanes_at(const struct hx_ctx *c, struct hx_part *p, const unsigned stride)
{
	const uint64_t bmask = (UINT64_C(1) << c->mbits) - 1;
	const uint64_t *const mlut = c->mlut, *const dsym = c->dsym;
	const ptrdiff_t mroom = stride == 3 ? 40 : 16;
	struct gt_bitr r[HX_LANES];
	const unsigned char *m[HX_LANES];
	unsigned char *o[HX_LANES], *oe[HX_LANES];
	int rc = 0;

#pragma GCC unroll 8
	for (unsigned j = 0; j < HX_LANES; j++) {
		r[j] = p[j].cr;
		m[j] = p[j].mp;
		o[j] = p[j].dst + 4 * p[j].i;
		oe[j] = p[j].dst + 4 * p[j].n;
	}
	for (;;) {
		unsigned ok = ~0u, room = 1;

#pragma GCC unroll 8
		for (unsigned j = 0; j < HX_LANES; j++)
			room &= (oe[j] - o[j] >= 48) & (p[j].mend - m[j] >= mroom);
		if (!room)
			break;
#pragma GCC unroll 8
		for (unsigned j = 0; j < HX_LANES; j++)
			gt_bitr_refill(&r[j]);
#pragma GCC unroll 4
		for (unsigned k = 0; k < 4; k++) {
#pragma GCC unroll 8
			for (unsigned j = 0; j < HX_LANES; j++)
				ok &= (unsigned)step_f32(mlut, dsym, bmask, &r[j], &m[j], &o[j], stride) << j | ~(1u << j);
		}
		if (__builtin_expect(ok == ~0u, 1))
			continue;
		{
			/* copies: the loop's own never have their address taken */
			struct gt_bitr rc_[HX_LANES];
			const unsigned char *mc[HX_LANES];
			unsigned char *oc[HX_LANES];

#pragma GCC unroll 8
			for (unsigned j = 0; j < HX_LANES; j++)
				rc_[j] = r[j], mc[j] = m[j], oc[j] = o[j];
			rc = dec_lane_slow(c, p, HX_LANES, ok, rc_, mc, oc);
#pragma GCC unroll 8
			for (unsigned j = 0; j < HX_LANES; j++)
				r[j] = rc_[j], m[j] = mc[j], o[j] = oc[j];
		}
		if (rc < 0)
			break;
	}
#pragma GCC unroll 8
	for (unsigned j = 0; j < HX_LANES; j++) {
		p[j].cr = r[j];
		p[j].mp = m[j];
		p[j].i = (size_t)(o[j] - p[j].dst) / 4;
	}
	return rc;
}

/* Slots the table walk of dec_walk_at() stores per part before they
 * become values. */
#define HX_WIN 2048

/*
 * One lookup of the f32 multi-symbol table in the two-pass decoder: the
 * entry's three slots (and a fourth, its bits 56-63: HX_NC_AT's count)
 * stored at *@sp, which advances by the tokens it holds; the slots past
 * those hold junk that later ones overwrite.  A token the table does not hold has the entry 0: nothing
 * is consumed, nor stored past *@sp, so the lookups after it find the
 * same entry.  Returns the entry.  x86 only, so little-endian: slot 0
 * goes first.
 */
static inline __attribute__((always_inline)) uint64_t
walk_f32(const uint64_t *mlut, uint64_t bmask, struct gt_bitr *cr, uint16_t **sp)
{
	const uint64_t e = mlut[cr->acc & bmask], w = e >> 8;

	gt_bitr_consume(cr, GT_HUFF_MLEN(e));
	memcpy(*sp, &w, 8);
	*sp += GT_HUFF_MCOUNT(e);
	return e;
}

/*
 * One round of the walk: a refill of each part, then @look lookups of
 * each in turn (@look x the table's bits <= 56: four of 12 bits, six of
 * 9), so that their chains of table lookups overlap; @checked refills
 * near the end of a code stream.  Returns the parts that met a token the
 * table does not hold, a bit each.
 */
static inline __attribute__((always_inline)) unsigned
walk_round(const uint64_t *mlut, uint64_t bmask, struct gt_bitr *r, uint16_t **sp,
	   const unsigned nl, const unsigned look, const int checked)
{
	uint64_t e[HX_LANES];
	unsigned stuck = 0;

#pragma GCC unroll 8
	for (unsigned j = 0; j < nl; j++)
		if (checked)
			gt_bitr_refill(&r[j]);
		else
			gt_bitr_refill_fast(&r[j]);
#pragma GCC unroll 8
	for (unsigned k = 0; k < look; k++)
#pragma GCC unroll 8
		for (unsigned j = 0; j < nl; j++)
			e[j] = walk_f32(mlut, bmask, &r[j], &sp[j]);
#pragma GCC unroll 8
	for (unsigned j = 0; j < nl; j++)
		stuck |= (unsigned)!GT_HUFF_MLEN(e[j]) << j;
	return stuck;
}

/*
 * One window of the walk: rounds until a part's window (@lim values) could
 * not take another, or a part meets a token the table does not hold.
 * While it walks, it prefetches the window's mantissa words and values
 * from @m and @o on, a line a round (a round of four lookups takes fewer
 * than 48 bytes of either; one of six or seven, on gradients' codes of
 * about 4 bits, about as much), so that the value pass finds them in
 * cache.  Returns the parts that met such a token, a bit each.
 */
static inline __attribute__((always_inline)) unsigned
walk_window(const uint64_t *mlut, uint64_t bmask, struct gt_bitr *r, uint16_t **sp,
	    uint16_t *const *sym, const size_t *lim, const unsigned char *const *m,
	    unsigned char *const *o, const unsigned nl, const unsigned look)
{
	unsigned stuck = 0, pf = 0;

	for (;;) {
		/* rounds (of at most 3 @look values a part) that fit in every
		 * window, and of those, refills that need no check (a refill
		 * moves at most 7 bytes on) */
		size_t rounds = SIZE_MAX, fast = SIZE_MAX;

		for (unsigned j = 0; j < nl; j++) {
			const ptrdiff_t left = r[j].end - r[j].ptr;

			rounds = HX_MIN(rounds, (lim[j] - (size_t)(sp[j] - sym[j])) / (3 * look));
			fast = HX_MIN(fast, left < 8 ? 0 : (size_t)(left - 8) / 7 + 1);
		}
		if (!rounds)
			return 0;
		if (!fast) {
			stuck = walk_round(mlut, bmask, r, sp, nl, look, 1);
		} else {
			rounds = HX_MIN(rounds, fast);
			do {
				for (unsigned j = 0; j < nl; j++) {
					__builtin_prefetch(m[j] + pf);
					__builtin_prefetch(o[j] + pf, 1);
				}
				pf += 64;
				stuck = walk_round(mlut, bmask, r, sp, nl, look, 0);
			} while (--rounds && !stuck);
		}
		if (stuck)
			return stuck;
	}
}

/* After a window: each part's values from its @cnt slots at @sym, then
 * the token that stopped each part in @stuck, the slow way. */
static int walk_values(const struct hx_ctx *c, const struct hx_part *p, unsigned nl,
		       int kind, const unsigned stride, uint16_t *const *sym,
		       const size_t *cnt, unsigned stuck, struct gt_bitr *r,
		       const unsigned char **m, unsigned char **o)
{
	for (unsigned j = 0; j < nl; j++) {
		if (kind == 2) {
			GT_TRY(hx_asm_f32_avx512(sym[j], cnt[j], &m[j], p[j].mend, o[j], stride));
		} else {
			/* the AVX2 pass leaves the last few values */
			for (size_t i = hx_asm_f32_avx2(sym[j], cnt[j], &m[j], p[j].mend, o[j],
							stride);
			     i < cnt[j]; i++)
				GT_TRY(put_f32(c->dsym[sym[j][i] & 0x1ff], &m[j], p[j].mend, stride,
					       o[j] + 4 * i));
		}
		o[j] += 4 * cnt[j];
	}
	return stuck ? dec_lane_slow(c, p, nl, ~stuck, r, m, o) : 0;
}

/*
 * dec_lanes_at() in two passes, a window at a time: the parts' table
 * walks store the slots of up to HX_WIN values per part (walk_window, no
 * mantissa in sight); then the value pass (hx_asm_f32_avx512 or _avx2,
 * by @kind) makes each part's values
 * from its slots and its mantissa stream.  A token the table does not
 * hold ends the window; the values before it are made, and dec_one_f32()
 * takes it.  Stops when one part has fewer than 3 @look values left;
 * dec_part() finishes each.
 */
static inline __attribute__((always_inline)) int
dec_walk_at(const struct hx_ctx *c, struct hx_part *p, const unsigned stride,
	    const unsigned nl, const unsigned look, int kind)
{
	const uint64_t bmask = (UINT64_C(1) << c->mbits) - 1;
	uint16_t buf[HX_LANES][HX_WIN + 4], *sym[HX_LANES];
	struct gt_bitr r[HX_LANES];
	const unsigned char *m[HX_LANES];
	unsigned char *o[HX_LANES];
	int rc = 0, more = 1;

	for (unsigned j = 0; j < nl; j++) {
		sym[j] = buf[j];
		r[j] = p[j].cr;
		m[j] = p[j].mp;
		o[j] = p[j].dst + 4 * p[j].i;
	}
	while (more && rc == 0) {
		uint16_t *sp[HX_LANES];
		size_t lim[HX_LANES], cnt[HX_LANES];
		unsigned stuck;

		for (unsigned j = 0; j < nl; j++) {
			lim[j] = HX_MIN(p[j].n - (size_t)(o[j] - p[j].dst) / 4, HX_WIN);
			sp[j] = sym[j];
		}
		stuck = walk_window(c->mlut, bmask, r, sp, sym, lim, m, o, nl, look);
		{
			/* copies: the walk's own never have their address taken */
			struct gt_bitr rc_[HX_LANES];
			const unsigned char *mc[HX_LANES];
			unsigned char *oc[HX_LANES];

			for (unsigned j = 0; j < nl; j++) {
				rc_[j] = r[j], mc[j] = m[j], oc[j] = o[j];
				cnt[j] = (size_t)(sp[j] - sym[j]);
			}
			rc = walk_values(c, p, nl, kind, stride, sym, cnt, stuck, rc_, mc, oc);
			for (unsigned j = 0; j < nl; j++) {
				r[j] = rc_[j], m[j] = mc[j], o[j] = oc[j];
				more &= p[j].n - (size_t)(o[j] - p[j].dst) / 4 >= 3 * look;
			}
		}
	}
	for (unsigned j = 0; j < nl; j++) {
		p[j].cr = r[j];
		p[j].mp = m[j];
		p[j].i = (size_t)(o[j] - p[j].dst) / 4;
	}
	return rc;
}

/* Two parts at once (a split chunk), one part or chunk alone; as many
 * lookups a refill as the table's bits allow (gt_huff_mlut_bits()). */
#define HX_WALK(c, p, nl, kind)                                                      \
	((c)->mbits <= 8    ? dec_walk_at(c, p, (c)->mstride, nl, 7, kind)           \
	 : (c)->mbits <= 9  ? dec_walk_at(c, p, (c)->mstride, nl, 6, kind)           \
	 : (c)->mbits <= 11 ? dec_walk_at(c, p, (c)->mstride, nl, 5, kind)           \
			    : dec_walk_at(c, p, (c)->mstride, nl, 4, kind))

static HX_TARGET_WALK int dec_walk2(const struct hx_ctx *c, struct hx_part *p, int kind)
{
	return HX_WALK(c, p, HX_LANES, kind);
}

static HX_TARGET_WALK int dec_walk1(const struct hx_ctx *c, struct hx_part *p, int kind)
{
	return HX_WALK(c, p, 1, kind);
}

static int dec_split(struct hx_ctx *c, const unsigned char *p,
		     const unsigned char *end, unsigned char *dst, size_t n)
{
	const int walk = walk_kind(c);
	struct hx_part pt[HX_SPLIT_S];
	uint64_t mcount, clen[HX_SPLIT_S], total = 0;

	for (unsigned j = 0; j < HX_SPLIT_S; j++) {
		pt[j].i = 0;
		pt[j].dst = dst + 4 * part_at(n, j);
		pt[j].n = part_at(n, j + 1) - part_at(n, j);
		GT_TRY(gt_varint_get(&p, end, &mcount));
		if (mcount > pt[j].n)
			return GT_ERR(CORRUPT);
		pt[j].mcount = (size_t)mcount;
		total += (mcount * c->wbits + 7) / 8;
	}
	if (end - p < 4 * (HX_SPLIT_S - 1))
		return GT_ERR(TRUNCATED);
	for (unsigned j = 0; j < HX_SPLIT_S - 1; j++, p += 4) {
		clen[j] = gt_le32_get(p);
		total += clen[j];
	}
	if (total > (uint64_t)(end - p))
		return GT_ERR(TRUNCATED);
	clen[HX_SPLIT_S - 1] = (uint64_t)(end - p) - total;
	for (unsigned j = 0; j < HX_SPLIT_S; j++) {
		pt[j].m0 = pt[j].mp = p;
		p += (pt[j].mcount * c->wbits + 7) / 8;
		pt[j].mend = p;
	}
	for (unsigned j = 0; j < HX_SPLIT_S; j++) {
		gt_bitr_init(&pt[j].cr, p, (size_t)clen[j]);
		p += clen[j];
	}
	if (c->mbits) {
		int rc = 0;

		for (unsigned j = 0; rc == 0 && j < HX_SPLIT_S; j += HX_LANES)
			if (walk)
				rc = dec_walk2(c, pt + j, walk);
			else
				rc = c->mstride == 3 ? dec_lanes_at(c, pt + j, 3) :
						       dec_lanes_at(c, pt + j, 1);
		for (unsigned j = 0; rc < 0 && j < HX_SPLIT_S; j++)
			if (gt_bitr_left(&pt[j].cr) < 0)
				return GT_ERR(TRUNCATED);
		GT_TRY(rc);
	}
	for (unsigned j = 0; j < HX_SPLIT_S; j++)
		GT_TRY(dec_part(c, &pt[j], walk));
	return 0;
}

int hx_dec_plain(struct hx_ctx *c, const void *src, size_t src_len, void *dst,
		 size_t n)
{
	const unsigned char *p = src, *const end = p + src_len;
	struct hx_part pt;
	uint64_t mcount, mbytes;

	if (!c->ready)
		return GT_ERR(INVAL);
	if (!c->dec_ready)
		GT_TRY(hx_prepare_dec(c, n));
	if (split_chunk(c, n))
		return dec_split(c, p, end, dst, n);
	GT_TRY(gt_varint_get(&p, end, &mcount));
	if (mcount > n)
		return GT_ERR(CORRUPT);
	mbytes = (mcount * c->wbits + 7) / 8;
	if (mbytes > (uint64_t)(end - p))
		return GT_ERR(TRUNCATED);
	pt.m0 = pt.mp = p;
	pt.mend = p + mbytes;
	pt.dst = dst;
	pt.n = n;
	pt.i = 0;
	pt.mcount = (size_t)mcount;
	gt_bitr_init(&pt.cr, pt.mend, (size_t)(end - pt.mend));
	return dec_part(c, &pt, walk_kind(c));
}

