/* gt_huff_x86.c - the f32 histogram's first pass with AVX2 and AVX-512 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gt_huff_simd.h"

#if GT_ISA_X86
#include <immintrin.h>
#endif

#include "banned.h"

#if GT_ISA_X86

/* Eight values a time (the range: as gt_huff_idx_tail() keeps it). */
GT_ISA_TARGET_AVX2 void gt_huff_idx_avx2(const unsigned char *src, size_t m,
					 uint32_t *idx, uint64_t *zero,
					 unsigned *lo_ret, unsigned *hi_ret)
{
	const __m256i nz = _mm256_setzero_si256(), abs = _mm256_set1_epi32(0x7fffffff);
	const __m256i c512 = _mm256_set1_epi32(512), m2ff = _mm256_set1_epi32(0x2ff);
	const __m256i mff = _mm256_set1_epi32(0xff);
	__m256i mn = c512, mx = nz;
	uint32_t lane[16];
	unsigned lo = 512, hi = 0;
	size_t k = 0;

	memset(zero, 0, GT_HUFF_ZWORDS * sizeof(*zero));
	for (; m - k >= 8; k += 8) {
		const __m256i v = _mm256_loadu_si256((const void *)(src + 4 * k));
		const __m256i pz = _mm256_cmpeq_epi32(_mm256_and_si256(v, abs), nz);
		const __m256i x = _mm256_or_si256(_mm256_srli_epi32(v, 23),
						  _mm256_and_si256(pz, c512));
		const int z = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, nz)));

		if (!(k & 8))
			__builtin_prefetch(src + 4 * k + GT_PREFETCH_DIST);
		_mm256_storeu_si256((void *)(idx + k), x);
		mn = _mm256_min_epu32(mn, _mm256_and_si256(x, m2ff));
		mx = _mm256_max_epu32(mx, _mm256_and_si256(x, mff));
		((unsigned char *)zero)[k / 8] = (unsigned char)z;
	}
	_mm256_storeu_si256((void *)lane, mn);
	_mm256_storeu_si256((void *)(lane + 8), mx);
	for (unsigned j = 0; j < 8; j++) {
		lo = lane[j] < lo ? lane[j] : lo;
		hi = lane[8 + j] > hi ? lane[8 + j] : hi;
	}
	gt_huff_idx_tail(src, k, m, idx, zero, &lo, &hi);
	*lo_ret = lo;
	*hi_ret = hi;
}

/* Sixteen values a time; the last < 16 by a masked load (the lanes past
 * @m read as 0: their zero bits are masked off, their index is 512). */
GT_ISA_TARGET_AVX512 void gt_huff_idx_avx512(const unsigned char *src, size_t m,
					     uint32_t *idx, uint64_t *zero,
					     unsigned *lo_ret, unsigned *hi_ret)
{
	const __m512i abs = _mm512_set1_epi32(0x7fffffff), c512 = _mm512_set1_epi32(512);
	const __m512i m2ff = _mm512_set1_epi32(0x2ff), mff = _mm512_set1_epi32(0xff);
	__m512i mn = c512, mx = _mm512_setzero_si512();

	memset(zero, 0, GT_HUFF_ZWORDS * sizeof(*zero));
	for (size_t k = 0; k < m; k += 16) {
		const __mmask16 lm = m - k >= 16 ? (__mmask16)0xffff
						 : (__mmask16)((1u << (m - k)) - 1);
		const __m512i v = _mm512_maskz_loadu_epi32(lm, src + 4 * k);
		const uint16_t z = (uint16_t)_mm512_mask_testn_epi32_mask(lm, v, v);
		const __mmask16 pz = _mm512_testn_epi32_mask(v, abs);
		const __m512i e = _mm512_srli_epi32(v, 23);
		const __m512i x = _mm512_mask_or_epi32(e, pz, e, c512);

		__builtin_prefetch(src + 4 * k + GT_PREFETCH_DIST);
		_mm512_storeu_si512(idx + k, x);
		mn = _mm512_min_epu32(mn, _mm512_and_si512(x, m2ff));
		mx = _mm512_max_epu32(mx, _mm512_and_si512(x, mff));
		memcpy((unsigned char *)zero + k / 8, &z, 2);
	}
	*lo_ret = _mm512_reduce_min_epu32(mn);
	*hi_ret = _mm512_reduce_max_epu32(mx);
}

#else
/* ISO C forbids an empty translation unit */
typedef int gt_huff_x86_unused;
#endif
