/* gt_crc.h - the CRC-32 of zlib and gzip, by Intel's ISA-L */
#ifndef GT_CRC_H
#define GT_CRC_H

#include <stddef.h>
#include <stdint.h>

#include <isa-l/crc.h>

/*
 * gt_crc32 - zlib's crc32_z(@crc, @p, @n), bit for bit: the reflected
 * polynomial 0xEDB88320, @crc the CRC of the bytes before (0 to start),
 * so that crc32_combine() joins the CRCs of pieces.  Every CRC of a .gtz
 * file and of a filtered HDF5 chunk is this one.
 *
 * ISA-L's crc32_gzip_refl picks at run time the widest carry-less
 * multiplication the CPU has (AVX-512 VPCLMULQDQ, else PCLMULQDQ) and
 * folds 256 bytes a step: about 30-50 GB/s on a Zen 4 core against zlib
 * 1.2's tables at about 4 GB/s, which cost a tenth of a huffexp compress
 * and more of a filtered HDF5 read.
 */
/*
 * ISA-L's AVX-512 CRC returns with the upper halves of the vector
 * registers in use (no VZEROUPPER), and the SSE code that runs next (the
 * codecs, built for plain x86-64) then pays for every instruction: a
 * huffexp chunk coded after a CRC took a third longer.  So after each
 * CRC the upper halves are cleared, on a CPU that has them.
 */
static inline void gt_crc_clear_upper(void)
{
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
	if (__builtin_cpu_supports("avx"))
		__asm__ volatile("vzeroupper" ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
				 "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
				 "xmm13", "xmm14", "xmm15");
#endif
}

static inline uint32_t gt_crc32(uint32_t crc, const void *p, size_t n)
{
	if (!n)
		return crc;
	crc = crc32_gzip_refl(crc, (const unsigned char *)p, (uint64_t)n);
	gt_crc_clear_upper();
	return crc;
}

#endif
