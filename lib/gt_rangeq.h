/* gt_rangeq.h - the offset-based N-bit float of Algorithm 1 (FFT paper §3.2.1) */
#ifndef GT_RANGEQ_H
#define GT_RANGEQ_H

/*
 * An N-bit code (2 <= N <= 16) for f32 values in [min, max], min <= 0 <= max
 * (shared/papers/003, §3.2.1, Algorithm 1 and Figure 8).  With m mantissa
 * bits, the "bin" of a magnitude a is its f32 bit pattern shifted right by
 * 23 - m: the sign-less float with m mantissa bits, truncated (Figure 8
 * cuts the low bits off).  eps is the smallest magnitude coded; its bin is
 * pbase.  Codes:
 *
 *   0                   zero (and every |x| < eps, and NaN)
 *   1 .. P              +value of bin  code + pbase - 1
 *   P + 1 .. P + Q      -value of bin  code - P + pbase - 1
 *
 * so code 1 is +eps and P + Q (1...1 when the codes balance) the most
 * negative value (the paper's "minimal representable negative number").
 * P and Q, the numbers of positive and negative codes, follow from eps,
 * max and min (P + Q <= 2^N - 1; codes above P + Q are never written and
 * decode as P + Q); the paper tunes eps until the value of
 * 1...1 is min ("if actual_min is smaller than min, we decrease eps, and
 * increase otherwise"): gt_rangeq_fit() does that search by bisection on
 * pbase (the value of 1...1 moves monotonically with eps), and keeps the
 * smallest eps for which both max and min are representable.  Values
 * beyond [min, max] clamp to the end codes, Inf included.
 *
 * m: the paper iterates every m in [1, N] and tunes eps for each;
 * gt_rangeq_fit_auto() keeps the m whose squared error over a sample of
 * the values is least.
 *
 * Everything but the fitting is static inline; a struct is plain data.
 */
#include <stddef.h>
#include <stdint.h>

#include "gt_error.h"
#include "gt_float.h"
#include "gt_isa.h"

#define GT_RANGEQ_BITS_MIN 2
#define GT_RANGEQ_BITS_MAX 16
#define GT_RANGEQ_M_MAX 23
/* Bytes of gt_rangeq_save(): m (1), pbase (4), P (4), little-endian. */
#define GT_RANGEQ_HDR 9

struct gt_rangeq {
	unsigned bits;  /* N */
	unsigned m;     /* mantissa bits, 1..23 */
	uint32_t pbase; /* bin of eps, >= 1 */
	uint32_t npos;  /* P: codes 1..P are positive */
	/* derived by gt_rangeq_fit/_load: */
	unsigned shift; /* 23 - m */
	uint32_t nneg;  /* Q: codes P+1..P+Q are negative */
	/* the loops of pack, unpack and fit_auto's sample (gt_isa.h): set to
	 * gt_isa_best() by fit and load; any usable one gives the same result */
	enum gt_isa isa;
};

/*
 * gt_rangeq_fit - the parameters for @bits-bit codes with @m mantissa
 * bits over [-@neg, @pos], given as the f32 bit patterns of the two
 * magnitudes (each finite, 0 allowed).
 * @return 0, GT_ERR(INVAL) for bits or m out of range or a non-finite
 *	magnitude.
 */
int gt_rangeq_fit(struct gt_rangeq *q, unsigned bits, unsigned m,
		  uint32_t pos, uint32_t neg);

/*
 * gt_rangeq_fit_auto - gt_rangeq_fit() for the m in 1..min(bits, 23)
 * whose squared error over up to 512 of the @n values @x (one in each
 * n/512, at a hashed offset) is least; ties go to the smaller m.
 */
int gt_rangeq_fit_auto(struct gt_rangeq *q, unsigned bits, uint32_t pos,
		       uint32_t neg, const float *x, size_t n);
/* The same with the loops of @isa (usable, gt_isa.h), which @q keeps:
 * the same parameters whichever runs. */
int gt_rangeq_fit_auto_isa(struct gt_rangeq *q, unsigned bits, uint32_t pos,
			   uint32_t neg, const float *x, size_t n, enum gt_isa isa);

/*
 * gt_rangeq_range - the finite magnitudes of [min, max] of @n values:
 * the largest positive and the largest negative magnitude's bit patterns
 * (0 when there is none); NaN and Inf are skipped.
 */
void gt_rangeq_range(const float *x, size_t n, uint32_t *pos_ret, uint32_t *neg_ret);
/* The same with the loops of @isa (usable, gt_isa.h): the same result. */
void gt_rangeq_range_isa(const float *x, size_t n, enum gt_isa isa, uint32_t *pos_ret,
			 uint32_t *neg_ret);

/* The GT_RANGEQ_HDR bytes of @q's m, pbase and P at @dst. */
void gt_rangeq_save(const struct gt_rangeq *q, unsigned char *dst);

/*
 * gt_rangeq_load - parameters read back from GT_RANGEQ_HDR bytes, for
 * @bits-bit codes; Q is taken as 2^N - 1 - P, as far as finite values
 * reach (an encoder's Q may be smaller; it never writes the codes above).  The bytes are hostile: m, pbase and P are checked so
 * that every code decodes to a finite value.
 * @return 0, GT_ERR(CORRUPT).
 */
int gt_rangeq_load(struct gt_rangeq *q, unsigned bits, const unsigned char *src);

/* eps, the smallest magnitude coded (0 when no code is positive or negative). */
float gt_rangeq_eps(const struct gt_rangeq *q);

/* The code of @x: branch-free (conditional moves). */
static inline uint32_t gt_rangeq_code(const struct gt_rangeq *q, float x)
{
	const uint32_t u = gt_f32_bits(x);
	const uint32_t s = u >> 31, a = u & 0x7fffffffu;
	const uint32_t lim = s ? q->nneg : q->npos;
	int64_t k = (int64_t)(a >> q->shift) - (int64_t)q->pbase + 1;

	k = k < 0 ? 0 : k;
	k = k > (int64_t)lim ? (int64_t)lim : k;
	k = a > 0x7f800000u ? 0 : k; /* NaN */
	return k == 0 ? 0 : (uint32_t)k + (s ? q->npos : 0);
}

/* The value of @code (< 2^bits); negative codes past the last finite
 * value (never written, but a hostile stream may hold them) clamp to it. */
static inline float gt_rangeq_value(const struct gt_rangeq *q, uint32_t code)
{
	const uint32_t neg = code > q->npos;
	const uint32_t kn = code - q->npos;
	const uint32_t k = neg ? (kn < q->nneg ? kn : q->nneg) : code;
	const uint32_t mag = (k + q->pbase - 1) << q->shift;

	return code ? gt_f32_from_bits(neg << 31 | mag) : 0.0f;
}

/*
 * gt_rangeq_pack - the codes of @n values, @bits bits each, LSB-first
 * (gt_bitio.h), zero-padded to a byte: (n * bits + 7) / 8 bytes.
 * @return 0, GT_ERR(DST_TOO_SMALL).
 */
int gt_rangeq_pack(const struct gt_rangeq *q, const float *x, size_t n,
		   void *dst, size_t dst_cap, size_t *dst_len_ret);

/*
 * gt_rangeq_unpack - @n values from exactly (n * bits + 7) / 8 bytes.
 * @return 0, GT_ERR(TRUNCATED) (too few bytes), GT_ERR(CORRUPT) (bytes
 *	left over or non-zero padding).
 */
int gt_rangeq_unpack(const struct gt_rangeq *q, const void *src, size_t src_len,
		     float *dst, size_t n);

#endif
