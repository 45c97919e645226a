/* gt_palette.h - values coded as a palette of the distinct ones and a token each */
#ifndef GT_PALETTE_H
#define GT_PALETTE_H

/*
 * A run of n values (huffexp's kept values of a chunk) is coded as its
 * palette, the distinct values in the order they first occur (coded by
 * the caller), and one token per value, LSB-first (gt_bitio.h), in
 * order.  While value i is decoded, `seen` is the number of palette
 * values used so far (those of values 0..i-1).  With the row context
 * (param bit 0), a value has a prediction when i >= rk (the values of
 * one row, so that value i - rk is the one in the same column of the row
 * above) and a value equal to value i - rk has been followed, rk values
 * later, by some value before: the prediction is that one, the last
 * such.  Tokens:
 *
 *   seen = 0            NEW, no bits (the first value)
 *   no prediction       1 bit: 0 NEW, 1 REF
 *   a prediction        1 bit 0: the kind s = param bits 1-2;
 *                       1 bit 1 then 1 bit b: the other two kinds in the
 *                       order NEW, REF, HIT, b = 0 the first
 *   NEW: the value is palette value `seen` (seen then grows by one)
 *   REF: then the truncated binary code of j < seen: with
 *        k = floor(log2 seen) and u = 2^(k+1) - seen, j < u is the k-bit
 *        field j, else the k-bit field (j + u) >> 1 and the bit (j + u) & 1;
 *        the value is palette value j
 *   HIT: the value is the prediction
 *
 * The encoder codes a value as HIT when it has a prediction equal to it,
 * else as REF when it is in the palette so far, else NEW.  The stream is
 * zero-padded to a byte; a decoder checks that every palette value was
 * used and that no bit or byte is left over.  param: bit 0 the row
 * context; bits 1-2 s (0 NEW, 1 REF, 2 HIT; 3 is corrupt), 0 without the
 * context; bits 3-7 zero.
 *
 * A struct is owned by its caller (gt_pal_init, gt_pal_release); one
 * thread at a time.
 */
#include <stddef.h>
#include <stdint.h>

#include "gt_error.h"
#include "gt_float.h"

#define GT_PAL_CTX 1u
/* Most values of one run (a chunk holds at most a block's 2^24). */
#define GT_PAL_MAX (1u << 24)

struct gt_pal {
	uint64_t *val;   /* the palette: d values, as bit patterns */
	uint32_t *idx;   /* the palette index of each of the n values */
	uint32_t *below; /* row context: per palette value, the last one below it */
	uint32_t *slot;  /* hash table of gt_pal_build: index + 1, 0 empty */
	size_t n, d;
	size_t val_cap, idx_cap, below_cap, slot_cap;
};

void gt_pal_init(struct gt_pal *p);
void gt_pal_release(struct gt_pal *p);

/*
 * gt_pal_worth - whether the @n values at @src (dtype @dt) are worth a
 * palette: of up to 1024 of them, evenly spread, at least one in eight
 * repeat an earlier one of those and are not ±0.0 (which huffexp codes
 * in a few bits anyway).  Cheap: a dense block of gradients stops here.
 */
int gt_pal_worth(const void *src, size_t n, enum gt_dtype dt);

/*
 * gt_pal_build - the palette and the indexes of the @n values at @src.
 * @return 0; GT_ERR(INVAL) when @n > GT_PAL_MAX; GT_ERR(NOMEM).
 */
int gt_pal_build(struct gt_pal *p, const void *src, size_t n, enum gt_dtype dt);

/* The palette's p->d values at @dst in dtype @dt. */
void gt_pal_values(const struct gt_pal *p, enum gt_dtype dt, void *dst);

/*
 * gt_pal_choose - the param (context or not, and the kind with the
 * 1-bit code) whose tokens for the built values, rows of @rk values,
 * take the fewest bits (without the context on a tie); *@bits_ret those
 * bits, padding left out.  @return the param, or GT_ERR(NOMEM).
 */
int gt_pal_choose(struct gt_pal *p, size_t rk, uint64_t *bits_ret);

/*
 * gt_pal_encode - the tokens of the built values with @param, rows of
 * @rk values, at @dst (*@len_ret bytes).
 * @return 0, GT_ERR(DST_TOO_SMALL), GT_ERR(INVAL) (a bad param),
 *	GT_ERR(NOMEM).
 */
int gt_pal_encode(struct gt_pal *p, size_t rk, unsigned param, void *dst,
		  size_t cap, size_t *len_ret);

/*
 * gt_pal_decode - @n values at @dst (dtype @dt) from the tokens in the
 * @len bytes at @src and the @d palette values at @pal.  Hostile input:
 * a NEW past the palette, a REF with seen = 0 (no such token), palette
 * values left unused, bits or bytes left over are GT_ERR(CORRUPT); too
 * few bits GT_ERR(TRUNCATED).  @return 0, those, GT_ERR(NOMEM).
 */
int gt_pal_decode(struct gt_pal *p, size_t rk, unsigned param, const void *src,
		  size_t len, const void *pal, size_t d, enum gt_dtype dt,
		  void *dst, size_t n);

/* 1 when @param is one gt_pal_choose() may return. */
int gt_pal_param_ok(unsigned param);

#endif
