/* gt_huff_simd.h - the vector first pass of the f32 histogram, internal */
#ifndef GT_HUFF_SIMD_H
#define GT_HUFF_SIMD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gt_isa.h"

/*
 * The f32 histogram (gt_huff.c) counts a block a chunk at a time in two
 * passes.  The first, below, looks at @m values at @src (m <= GT_HUFF_IDX_MAX):
 *   idx[k]   the sub-histogram index of value k: u >> 23 (sign and
 *            exponent field), plus 512 when the value is ±0.0 (so +0.0 is
 *            512 and -0.0 is 768); entries up to m rounded up to 16 may
 *            be written
 *   zero     bit k (of word k / 64) set when value k is +0.0; the words
 *            up to GT_HUFF_ZWORDS are written, bits from m on are 0
 *   lo, hi   the least and the greatest exponent field of the values that
 *            are not ±0.0 (*lo_ret > *hi_ret when there are none)
 * The second pass (scalar, gt_huff.c) finds the runs in @zero and counts
 * idx[] in sub-histograms cleared over [lo, hi] only.  Every version
 * gives the same output; gt_huff_x86.c has the AVX2 and AVX-512 ones.
 */
#define GT_HUFF_CHUNK 1024                /* values counted per first pass */
#define GT_HUFF_IDX_MAX (GT_HUFF_CHUNK + 16) /* look-ahead for runs */
#define GT_HUFF_ZWORDS (GT_HUFF_IDX_MAX / 64 + 1)

/* The index of the f32 value with bits @u. */
static inline uint32_t gt_huff_idx_one(uint32_t u)
{
	return u >> 23 | (uint32_t)(u << 1 == 0) << 9;
}

/*
 * The first pass over values [@k, @m) one at a time (the vector loops'
 * last few), the range so far in *@lo and *@hi.  A ±0.0 has index 512 or
 * 768, so its index & 0x2ff (512) never lowers the least field and its
 * index & 0xff (0) never raises the greatest: the vector loops keep the
 * range the same way, without masks.
 */
static inline void gt_huff_idx_tail(const unsigned char *src, size_t k, size_t m,
				    uint32_t *idx, uint64_t *zero, unsigned *lo,
				    unsigned *hi)
{
	for (; k < m; k++) {
		uint32_t u, x;

		memcpy(&u, src + 4 * k, 4);
		x = gt_huff_idx_one(u);
		idx[k] = x;
		zero[k / 64] |= (uint64_t)(u == 0) << (k % 64);
		*lo = (x & 0x2ff) < *lo ? (x & 0x2ff) : *lo;
		*hi = (x & 0xff) > *hi ? (x & 0xff) : *hi;
	}
}

#if GT_ISA_X86
void gt_huff_idx_avx2(const unsigned char *src, size_t m, uint32_t *idx,
		      uint64_t *zero, unsigned *lo_ret, unsigned *hi_ret);
void gt_huff_idx_avx512(const unsigned char *src, size_t m, uint32_t *idx,
			uint64_t *zero, unsigned *lo_ret, unsigned *hi_ret);
#endif

#endif
