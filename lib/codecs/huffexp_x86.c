/* huffexp_x86.c - huffexp's f32 value assembly with AVX-512 (VBMI2) */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "huffexp_impl.h"

#if GT_ISA_X86
#include <immintrin.h>
#endif

#include "../banned.h"

#if GT_ISA_X86

#define HX_TARGET_VBMI2 \
	__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi,bmi2,popcnt")))

int hx_asm_avx512_runs(void)
{
	__builtin_cpu_init();
	return gt_isa_usable(GT_ISA_AVX512) && __builtin_cpu_supports("avx512vbmi2") &&
	       __builtin_cpu_supports("popcnt");
}

/*
 * Sixteen values: @s their symbols (low 9 bits), @in the lanes that are
 * values.  The symbols say which values carry a mantissa word (an exponent
 * symbol, < 256); an expand puts the next words of the mantissa stream
 * into those values' lanes, in order: their low 3 bytes (stride 3), or
 * byte 2 (stride 1, whose word is the mantissa's top 7 bits and the
 * sign).  Each lane is then the symbol word of val_f32() (exponent << 24,
 * or the sign of a signed zero) with the word ORed in, rotated right by
 * one.  The words are checked against @mend before they are read.
 */
static inline __attribute__((always_inline)) HX_TARGET_VBMI2 int
asm16(__m512i s, __mmask16 in, const unsigned char **mp_io, const unsigned char *mend,
      __m512i *v, unsigned stride)
{
	const __m512i one = _mm512_set1_epi32(1);
	const uint64_t lanes = stride == 3 ? UINT64_C(0x7777777777777777)
					   : UINT64_C(0x4444444444444444);
	const unsigned char *mp = *mp_io;
	const __mmask16 kc = _mm512_mask_cmplt_epu32_mask(in, s, _mm512_set1_epi32(256));
	const unsigned nb = (unsigned)__builtin_popcount(kc) * stride;
	__m512i m, d;

	if ((size_t)(mend - mp) < nb)
		return GT_ERR(CORRUPT);
	/* expanding straight from memory is slow */
	m = mend - mp >= 64 ? _mm512_loadu_si512((const void *)mp)
			    : _mm512_maskz_loadu_epi8(_bzhi_u64(~UINT64_C(0), nb), mp);
	/* each value's 4 mask bits, then those of its word's bytes */
	m = _mm512_maskz_expand_epi8(_pdep_u64(kc, UINT64_C(0x1111111111111111)) * 15 & lanes, m);
	*mp_io = mp + nb;
	if (stride == 1)
		m = _mm512_or_si512(_mm512_and_si512(m, _mm512_set1_epi32(0xfe0000)),
				    _mm512_and_si512(_mm512_srli_epi32(m, 16), one));
	d = _mm512_mask_blend_epi32(kc, _mm512_and_si512(s, one), _mm512_slli_epi32(s, 24));
	*v = _mm512_ror_epi32(_mm512_or_si512(d, m), 1);
	return 0;
}

/* Sixteen values a time, the last few masked. */
HX_TARGET_VBMI2 int hx_asm_f32_avx512(const uint16_t *sym, size_t cnt,
				      const unsigned char **mp_io,
				      const unsigned char *mend, unsigned char *dst,
				      unsigned stride)
{
	const __m512i s9 = _mm512_set1_epi32(0x1ff);
	const unsigned char *mp = *mp_io;
	size_t i = 0;
	__m512i v;

	for (; cnt - i >= 16; i += 16) {
		const __m512i s = _mm512_and_si512(
			_mm512_cvtepu16_epi32(_mm256_loadu_si256((const void *)(sym + i))), s9);

		GT_TRY(stride == 3 ? asm16(s, 0xffff, &mp, mend, &v, 3)
				   : asm16(s, 0xffff, &mp, mend, &v, 1));
		_mm512_storeu_si512((void *)(dst + 4 * i), v);
	}
	if (i < cnt) {
		const __mmask16 in = (__mmask16)((1u << (cnt - i)) - 1);
		const __m512i s = _mm512_and_si512(
			_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(in, sym + i)), s9);

		GT_TRY(asm16(s, in, &mp, mend, &v, stride));
		_mm512_mask_storeu_epi32(dst + 4 * i, in, v);
	}
	*mp_io = mp;
	return 0;
}

/*
 * pshufb controls that spread the packed mantissa words of four values
 * into their lanes, by the 4-bit mask of the values that carry one: at
 * stride 3 a carrier's lane takes the next 3 bytes in its low 3 bytes, at
 * stride 1 the next byte in its byte 2; X (0x80) clears a byte.  Row m,
 * lane k: the word of rank popcount(m & ((1 << k) - 1)).
 */
#define X 0x80
static const unsigned char hx_spread[2][16][16] __attribute__((aligned(16))) = {
	{
		{ X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X },
		{ 0, 1, 2, X, X, X, X, X, X, X, X, X, X, X, X, X },
		{ X, X, X, X, 0, 1, 2, X, X, X, X, X, X, X, X, X },
		{ 0, 1, 2, X, 3, 4, 5, X, X, X, X, X, X, X, X, X },
		{ X, X, X, X, X, X, X, X, 0, 1, 2, X, X, X, X, X },
		{ 0, 1, 2, X, X, X, X, X, 3, 4, 5, X, X, X, X, X },
		{ X, X, X, X, 0, 1, 2, X, 3, 4, 5, X, X, X, X, X },
		{ 0, 1, 2, X, 3, 4, 5, X, 6, 7, 8, X, X, X, X, X },
		{ X, X, X, X, X, X, X, X, X, X, X, X, 0, 1, 2, X },
		{ 0, 1, 2, X, X, X, X, X, X, X, X, X, 3, 4, 5, X },
		{ X, X, X, X, 0, 1, 2, X, X, X, X, X, 3, 4, 5, X },
		{ 0, 1, 2, X, 3, 4, 5, X, X, X, X, X, 6, 7, 8, X },
		{ X, X, X, X, X, X, X, X, 0, 1, 2, X, 3, 4, 5, X },
		{ 0, 1, 2, X, X, X, X, X, 3, 4, 5, X, 6, 7, 8, X },
		{ X, X, X, X, 0, 1, 2, X, 3, 4, 5, X, 6, 7, 8, X },
		{ 0, 1, 2, X, 3, 4, 5, X, 6, 7, 8, X, 9, 10, 11, X },
	},
	{
		{ X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X },
		{ X, X, 0, X, X, X, X, X, X, X, X, X, X, X, X, X },
		{ X, X, X, X, X, X, 0, X, X, X, X, X, X, X, X, X },
		{ X, X, 0, X, X, X, 1, X, X, X, X, X, X, X, X, X },
		{ X, X, X, X, X, X, X, X, X, X, 0, X, X, X, X, X },
		{ X, X, 0, X, X, X, X, X, X, X, 1, X, X, X, X, X },
		{ X, X, X, X, X, X, 0, X, X, X, 1, X, X, X, X, X },
		{ X, X, 0, X, X, X, 1, X, X, X, 2, X, X, X, X, X },
		{ X, X, X, X, X, X, X, X, X, X, X, X, X, X, 0, X },
		{ X, X, 0, X, X, X, X, X, X, X, X, X, X, X, 1, X },
		{ X, X, X, X, X, X, 0, X, X, X, X, X, X, X, 1, X },
		{ X, X, 0, X, X, X, 1, X, X, X, X, X, X, X, 2, X },
		{ X, X, X, X, X, X, X, X, X, X, 0, X, X, X, 1, X },
		{ X, X, 0, X, X, X, X, X, X, X, 1, X, X, X, 2, X },
		{ X, X, X, X, X, X, 0, X, X, X, 1, X, X, X, 2, X },
		{ X, X, 0, X, X, X, 1, X, X, X, 2, X, X, X, 3, X },
	},
};
#undef X

/*
 * hx_asm_f32_avx512() with AVX2, eight values a time: each half's words
 * from a 16-byte load spread by a pshufb (hx_spread), while 28 bytes of
 * the mantissa stream are left (the loads' reach).  Returns the values
 * made; the caller makes the rest one at a time, bounds checked.
 */
GT_ISA_TARGET_AVX2 size_t hx_asm_f32_avx2(const uint16_t *sym, size_t cnt,
					  const unsigned char **mp_io,
					  const unsigned char *mend, unsigned char *dst,
					  unsigned stride)
{
	const __m256i s9 = _mm256_set1_epi32(0x1ff), c256 = _mm256_set1_epi32(256);
	const __m256i one = _mm256_set1_epi32(1);
	const unsigned char(*const spread)[16] = hx_spread[stride == 1];
	const unsigned char *mp = *mp_io;
	size_t i = 0;

	for (; cnt - i >= 8 && mend - mp >= 28; i += 8) {
		const __m256i s = _mm256_and_si256(
			_mm256_cvtepu16_epi32(_mm_loadu_si128((const void *)(sym + i))), s9);
		const __m256i car = _mm256_cmpgt_epi32(c256, s);
		const unsigned kc = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(car));
		const unsigned n0 = (unsigned)__builtin_popcount(kc & 15) * stride;
		const __m256i raw = _mm256_inserti128_si256(
			_mm256_castsi128_si256(_mm_loadu_si128((const void *)mp)),
			_mm_loadu_si128((const void *)(mp + n0)), 1);
		const __m256i ctl = _mm256_inserti128_si256(
			_mm256_castsi128_si256(_mm_load_si128((const void *)spread[kc & 15])),
			_mm_load_si128((const void *)spread[kc >> 4]), 1);
		__m256i m = _mm256_shuffle_epi8(raw, ctl), w;

		mp += (unsigned)__builtin_popcount(kc) * stride;
		if (stride == 1)
			m = _mm256_or_si256(_mm256_and_si256(m, _mm256_set1_epi32(0xfe0000)),
					    _mm256_and_si256(_mm256_srli_epi32(m, 16), one));
		w = _mm256_or_si256(_mm256_blendv_epi8(_mm256_and_si256(s, one),
						       _mm256_slli_epi32(s, 24), car),
				    m);
		_mm256_storeu_si256((void *)(dst + 4 * i),
				    _mm256_or_si256(_mm256_srli_epi32(w, 1), _mm256_slli_epi32(w, 31)));
	}
	*mp_io = mp;
	return i;
}

GT_ISA_TARGET_AVX512 size_t hx_count_f32_avx512(const unsigned char *p, size_t n,
						size_t *pz_ret)
{
	return hx_count_f32(p, n, pz_ret);
}

#else

int hx_asm_avx512_runs(void)
{
	return 0;
}

size_t hx_count_f32_avx512(const unsigned char *p, size_t n, size_t *pz_ret)
{
	return hx_count_f32(p, n, pz_ret);
}

size_t hx_asm_f32_avx2(const uint16_t *sym, size_t cnt, const unsigned char **mp_io,
		       const unsigned char *mend, unsigned char *dst, unsigned stride)
{
	(void)sym, (void)cnt, (void)mp_io, (void)mend, (void)dst, (void)stride;
	return 0;
}

int hx_asm_f32_avx512(const uint16_t *sym, size_t cnt, const unsigned char **mp_io,
		      const unsigned char *mend, unsigned char *dst, unsigned stride)
{
	(void)sym, (void)cnt, (void)mp_io, (void)mend, (void)dst, (void)stride;
	return GT_ERR(INVAL);
}

#endif
