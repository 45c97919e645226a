/* gt_bitio.c - slow paths of the bit writer and reader (near the end) */
#include "gt_bitio.h"
#include "banned.h"

void gt_bitw_flush_slow(struct gt_bitw *w)
{
	while (w->nb >= 8) {
		if (w->ptr == w->end) {
			/* drop the bits, remember: close reports it */
			w->overflow = 1;
			w->acc = 0;
			w->nb = 0;
			return;
		}
		*w->ptr++ = (unsigned char)w->acc;
		w->acc >>= 4;
		w->acc >>= 4;
		w->nb -= 8;
	}
}

int gt_bitw_close(struct gt_bitw *w, size_t *len_ret)
{
	gt_bitw_flush_slow(w);
	if (w->nb && !w->overflow) {
		if (w->ptr == w->end) {
			w->overflow = 1;
		} else {
			*w->ptr++ = (unsigned char)w->acc;
			w->acc = 0;
			w->nb = 0;
		}
	}
	*len_ret = (size_t)(w->ptr - w->start);
	return w->overflow ? GT_ERR(DST_TOO_SMALL) : 0;
}

void gt_bitr_refill_slow(struct gt_bitr *r)
{
	while (r->nb <= 56 && r->ptr < r->end) {
		r->acc |= (uint64_t)*r->ptr++ << r->nb;
		r->nb += 8;
	}
	if (r->nb < 56) {
		/* past the end: zeros (acc above nb is already 0), counted */
		r->pad += 56 - r->nb;
		r->nb = 56;
	}
}

int gt_bitr_finish(struct gt_bitr *r)
{
	const int64_t left = gt_bitr_left(r);

	if (left < 0)
		return GT_ERR(TRUNCATED);
	if (left >= 8)
		return GT_ERR(CORRUPT);
	if (left && gt_bitr_get(r, (unsigned)left))
		return GT_ERR(CORRUPT);
	return 0;
}

/* ---- gt_bitpack / gt_bitunpack ------------------------------------------- */

/* A loop body that must be compiled inside each caller (the caller's
 * instruction set, the caller's constant k). */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

#define K_ALL(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) \
	X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22)  \
	X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32)

/*
 * Eight codes into k bytes at @p, as ceil(k / 8) whole 64-bit words: up
 * to 7 bytes past the group are written (zeros, overwritten by the next
 * group).  With k constant every shift is, and w[] stays in registers.
 */
ALWAYS_INLINE void pack8(unsigned char *p, const uint32_t *c, const unsigned k)
{
	uint64_t w[5] = { 0, 0, 0, 0, 0 };

#pragma GCC unroll 8
	for (unsigned j = 0; j < 8; j++) {
		const unsigned pos = j * k, wi = pos / 64, off = pos % 64;

		w[wi] |= (uint64_t)c[j] << off;
		if (off + k > 64)
			w[wi + 1] |= (uint64_t)c[j] >> (64 - off);
	}
#pragma GCC unroll 4
	for (unsigned i = 0; i < (k + 7) / 8; i++)
		memcpy(p + 8 * i, &w[i], 8);
}

ALWAYS_INLINE void pack_k(const uint32_t *c, size_t n, unsigned char *dst,
			  const unsigned k)
{
	const size_t len = (n * k + 7) / 8, groups = n / 8;
	const size_t over = 8 * ((k + 7) / 8); /* bytes pack8 stores */
	unsigned char tmp[40];
	size_t g = 0;
	uint32_t last[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };

	for (; g < groups && g * k + over <= len; g++)
		pack8(dst + g * k, c + 8 * g, k);
	/* the last groups and the part group through tmp: nothing past len */
	for (; g * 8 < n; g++) {
		const size_t cnt = n - g * 8 < 8 ? n - g * 8 : 8;

		memcpy(last, c + 8 * g, cnt * sizeof(*c));
		memset(last + cnt, 0, (8 - cnt) * sizeof(*c));
		pack8(tmp, last, k);
		memcpy(dst + g * k, tmp, (cnt * k + 7) / 8);
	}
}

/* Eight codes from the k bytes at @p: one 8-byte load each, so up to 8
 * bytes past the group are read. */
ALWAYS_INLINE void unpack8(uint32_t *c, const unsigned char *p, const unsigned k)
{
	const uint64_t mask = ((uint64_t)1 << k) - 1;

#pragma GCC unroll 8
	for (unsigned j = 0; j < 8; j++) {
		uint64_t v;

		memcpy(&v, p + j * k / 8, 8);
		c[j] = (uint32_t)(v >> (j * k % 8) & mask);
	}
}

ALWAYS_INLINE void unpack_k(const unsigned char *src, size_t n, uint32_t *c,
			    const unsigned k)
{
	const size_t len = (n * k + 7) / 8, groups = n / 8;
	unsigned char tmp[48];
	uint32_t last[8];
	size_t g = 0;

	for (; g < groups && g * k + 7 * k / 8 + 8 <= len; g++)
		unpack8(c + 8 * g, src + g * k, k);
	for (; g * 8 < n; g++) {
		const size_t cnt = n - g * 8 < 8 ? n - g * 8 : 8;

		memset(tmp, 0, sizeof(tmp));
		memcpy(tmp, src + g * k, (cnt * k + 7) / 8);
		unpack8(last, tmp, k);
		memcpy(c + 8 * g, last, cnt * sizeof(*c));
	}
}

/*
 * k = 8, 16, 32: whole bytes, plain loops; blocks of a constant 64 so
 * that gcc's -O2 vectorizer (cost model very-cheap: no epilogues) takes
 * them (narrowing and widening with SSE2), then the rest one by one.
 */
#define BYTES_LOOP(BODY)                                                      \
	do {                                                                  \
		size_t i = 0;                                                 \
		for (; i + 64 <= n; i += 64)                                  \
			for (size_t j = i; j < i + 64; j++)                   \
				BODY;                                         \
		for (size_t j = i; j < n; j++)                                \
			BODY;                                                 \
	} while (0)

ALWAYS_INLINE void put16(unsigned char *p, uint32_t v)
{
	const uint16_t h = (uint16_t)v;

	memcpy(p, &h, 2);
}

ALWAYS_INLINE uint32_t get16(const unsigned char *p)
{
	uint16_t h;

	memcpy(&h, p, 2);
	return h;
}

ALWAYS_INLINE void pack_bytes(const uint32_t *restrict c, size_t n,
			      unsigned char *restrict dst, unsigned k)
{
	if (k == 8)
		BYTES_LOOP(dst[j] = (unsigned char)c[j]);
	else if (k == 16)
		BYTES_LOOP(put16(dst + 2 * j, c[j]));
	else
		memcpy(dst, c, 4 * n);
}

ALWAYS_INLINE void unpack_bytes(const unsigned char *restrict src, size_t n,
				uint32_t *restrict c, unsigned k)
{
	if (k == 8)
		BYTES_LOOP(c[j] = src[j]);
	else if (k == 16)
		BYTES_LOOP(c[j] = get16(src + 2 * j));
	else
		memcpy(c, src, 4 * n);
}

/* The two entry points, stamped out once for each instruction set. */
#define PACK_CASE(K)                                                          \
	case K:                                                               \
		pack_k(codes, n, dst, K);                                     \
		break;
#define UNPACK_CASE(K)                                                        \
	case K:                                                               \
		unpack_k(src, n, codes, K);                                   \
		break;
#define BITPACK_FNS(SUF, ATTR)                                                \
	ATTR static void pack_##SUF(const uint32_t *codes, size_t n, unsigned k, \
				    unsigned char *dst)                       \
	{                                                                     \
		if (k == 8 || k == 16 || k == 32) {                           \
			pack_bytes(codes, n, dst, k);                         \
			return;                                               \
		}                                                             \
		switch (k) {                                                  \
			K_ALL(PACK_CASE)                                      \
		default:                                                      \
			break;                                                \
		}                                                             \
	}                                                                     \
	ATTR static void unpack_##SUF(const unsigned char *src, size_t n,     \
				      unsigned k, uint32_t *codes)            \
	{                                                                     \
		if (k == 8 || k == 16 || k == 32) {                           \
			unpack_bytes(src, n, codes, k);                       \
			return;                                               \
		}                                                             \
		switch (k) {                                                  \
			K_ALL(UNPACK_CASE)                                    \
		default:                                                      \
			break;                                                \
		}                                                             \
	}

BITPACK_FNS(portable, )
#if GT_ISA_X86
BITPACK_FNS(avx2, GT_ISA_TARGET_AVX2)
BITPACK_FNS(avx512, GT_ISA_TARGET_AVX512)
#endif

void gt_bitpack_isa(const uint32_t *codes, size_t n, unsigned k, void *dst,
		    enum gt_isa isa)
{
	if (k < 1 || k > GT_BITPACK_MAX)
		return;
#if GT_ISA_X86
	if (isa == GT_ISA_AVX512) {
		pack_avx512(codes, n, k, dst);
		return;
	}
	if (isa == GT_ISA_AVX2) {
		pack_avx2(codes, n, k, dst);
		return;
	}
#endif
	(void)isa;
	pack_portable(codes, n, k, dst);
}

void gt_bitpack(const uint32_t *codes, size_t n, unsigned k, void *dst)
{
	gt_bitpack_isa(codes, n, k, dst, gt_isa_best());
}

int gt_bitunpack_isa(const void *src, size_t n, unsigned k, uint32_t *codes,
		     enum gt_isa isa)
{
	const unsigned char *s = src;
	const unsigned tail = (unsigned)(n * k % 8);

	if (k < 1 || k > GT_BITPACK_MAX)
		return GT_ERR(INVAL);
#if GT_ISA_X86
	if (isa == GT_ISA_AVX512)
		unpack_avx512(s, n, k, codes);
	else if (isa == GT_ISA_AVX2)
		unpack_avx2(s, n, k, codes);
	else
#endif
		unpack_portable(s, n, k, codes);
	return tail && s[(n * k) / 8] >> tail ? GT_ERR(CORRUPT) : 0;
}

int gt_bitunpack(const void *src, size_t n, unsigned k, uint32_t *codes)
{
	return gt_bitunpack_isa(src, n, k, codes, gt_isa_best());
}
