/* h5z_crc.h - zlib's CRC-32, by carry-less multiplication where the CPU has it */
#ifndef GT_H5Z_CRC_H
#define GT_H5Z_CRC_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/*
 * The filter checks a CRC-32 of every chunk it decodes, and zlib's
 * table-driven crc32_z (about 3 GB/s) would cost half again as much as
 * huffexp's decoding.  Folding 64 bytes at a time with PCLMULQDQ runs
 * several times faster: "Fast CRC Computation for Generic Polynomials
 * Using PCLMULQDQ Instruction", Vinodh Gopal, Erdinc Ozturk, Jim Guilford,
 * Gil Wolrich, Wajdi Feghali, Martin Dixon and Deniz Karakoyunlu (Intel,
 * 2009).  The constants are x^k mod P for the bit-reflected polynomial of
 * zlib (0x04C11DB7 reflected: 0xEDB88320), and the Barrett constant
 * floor(x^64 / P); the result is zlib's, bit for bit (fuzz_h5filter
 * compares them).
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define H5Z_CRC_FOLD_MIN 256

__attribute__((target("pclmul,sse4.1")))
static uint32_t h5z_crc_fold(uint32_t crc, const unsigned char *p, size_t n)
{
	/* fold distances 512+-64 and 128+-64 bits, x^64 mod P, P and mu */
	const __m128i k512 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
	const __m128i k128 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	const __m128i k64 = _mm_set_epi64x(0, 0x0163cd6124);
	const __m128i pmu = _mm_set_epi64x(0x01f7011641, 0x01db710641);
	const __m128i lo32 = _mm_setr_epi32(~0, 0, ~0, 0);
	__m128i x[4], t;

	for (int i = 0; i < 4; i++)
		x[i] = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
	x[0] = _mm_xor_si128(x[0], _mm_cvtsi32_si128((int)crc));
	for (p += 64, n -= 64; n >= 64; p += 64, n -= 64) {
		for (int i = 0; i < 4; i++) {
			t = _mm_clmulepi64_si128(x[i], k512, 0x00);
			x[i] = _mm_clmulepi64_si128(x[i], k512, 0x11);
			x[i] = _mm_xor_si128(_mm_xor_si128(x[i], t),
					     _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i)));
		}
	}
	for (int i = 1; i < 4; i++) {
		t = _mm_clmulepi64_si128(x[0], k128, 0x00);
		x[0] = _mm_clmulepi64_si128(x[0], k128, 0x11);
		x[0] = _mm_xor_si128(_mm_xor_si128(x[0], t), x[i]);
	}
	for (; n >= 16; p += 16, n -= 16) {
		t = _mm_clmulepi64_si128(x[0], k128, 0x00);
		x[0] = _mm_clmulepi64_si128(x[0], k128, 0x11);
		x[0] = _mm_xor_si128(_mm_xor_si128(x[0], t),
				     _mm_loadu_si128((const __m128i *)(const void *)p));
	}
	/* 128 bits to 64, then Barrett reduction to 32 */
	t = _mm_clmulepi64_si128(x[0], k128, 0x10);
	x[0] = _mm_xor_si128(_mm_srli_si128(x[0], 8), t);
	t = _mm_srli_si128(x[0], 4);
	x[0] = _mm_clmulepi64_si128(_mm_and_si128(x[0], lo32), k64, 0x00);
	x[0] = _mm_xor_si128(x[0], t);
	t = _mm_clmulepi64_si128(_mm_and_si128(x[0], lo32), pmu, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, lo32), pmu, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x[0], t), 1);
}

/* crc32_z(@crc, @p, @n), faster. */
static inline uint32_t h5z_crc32(uint32_t crc, const void *p, size_t n)
{
	const size_t head = n & ~(size_t)15;

	__builtin_cpu_init();
	if (n < H5Z_CRC_FOLD_MIN || !__builtin_cpu_supports("pclmul") ||
	    !__builtin_cpu_supports("sse4.1"))
		return (uint32_t)crc32_z(crc, p, n);
	crc = ~h5z_crc_fold(~crc, p, head);
	return (uint32_t)crc32_z(crc, (const unsigned char *)p + head, n - head);
}
#else
static inline uint32_t h5z_crc32(uint32_t crc, const void *p, size_t n)
{
	return (uint32_t)crc32_z(crc, p, n);
}
#endif

#endif
