/* huffexp_impl.h - the huffexp codec's context, shared by its encoder and decoder */
#ifndef GT_HUFFEXP_IMPL_H
#define GT_HUFFEXP_IMPL_H

#include <string.h>

#include "../codec_impl.h"
#include "../gt_huff.h"
#include "../gt_palette.h"
#include "../gt_zstruct.h"

/* The block meta and the chunk layouts are described at the top of huffexp.c. */

#define HX_MIN(a, b) ((a) < (b) ? (a) : (b))
/* f32 encode table entry: bits 0-7 code length, 8-15 mantissa bytes
 * (0 or the stride, 3 or 1), bit 16 no code, bits 32-63 the code (<= 15 + 8 bits) */
#define HX_E_LEN(e) ((unsigned)(uint8_t)(e))
#define HX_E_ADV(e) ((unsigned)(uint8_t)((e) >> 8))
#define HX_E_BAD (UINT64_C(1) << 16)
#define HX_E_CODE(e) ((e) >> 32)
/* f32 decode: index bits of the multi-symbol table in large blocks; 4
 * lookups <= 56 bits (gt_huff_mlut_bits(): fewer in smaller blocks, none
 * under 512 values, which the single-token loop dec1_f32_at decodes) */
#define HX_MBITS 12
/* the mode byte of the block meta */
#define HX_MODE_K(b) ((unsigned)(b) & 63u)
#define HX_MODE_SIGN(b) ((unsigned)(b) >> 6)
#define HX_SIGN_MIXED 0u
#define HX_SIGN_POS 1u
#define HX_SIGN_NEG 2u
/* f32, mixed signs, k = 0 or 16, chunks of HX_SPLIT_MIN..HX_SPLIT_MAX
 * values in HX_SPLIT_S parts (format 1.3; corrupt before) */
#define HX_SIGN_SPLIT 3u
#define HX_SPLIT_S 4
#define HX_SPLIT_MIN 8192
#define HX_SPLIT_MAX (UINT64_C(1) << 30)
/* parts the decoder follows at once (divides HX_SPLIT_S): two beat one
 * and four, whose state no longer fits in x86-64's registers */
#ifndef HX_LANES
#define HX_LANES 2
#endif
/* first meta byte of a zero-structure block: k = 63 and sign mode 3,
 * which no plain mode byte is */
#define HX_ZS_MARK 0xffu

struct hx_ctx {
	struct gt_codec_base base;
	enum gt_dtype dt;
	unsigned maxlen;
	enum gt_huff_method method;
	int fixed;  /* static table: block meta is the mode byte */
	int ready;  /* a table is installed */
	int runs;   /* RUN tokens in use */
	unsigned k;       /* mantissa trailing zero bits dropped, <= M */
	unsigned sgn;     /* HX_SIGN_*, never HX_SIGN_SPLIT */
	int split;        /* the mode byte said HX_SIGN_SPLIT */
	unsigned wbits;   /* W, bits of a mantissa word */
	unsigned mstride; /* f32 fast paths: word bytes, 3 or 1; 0: none */
	struct gt_huff_table table;
	struct gt_huff_hist hist;
	struct gt_huff_table ztab; /* block_begin's trial tables */
	/* encode, per symbol: code bits | nbits << 32 | mant << 40 | bad << 41 */
	uint64_t enc[GT_HUFF_NSYM_MAX];
	int enc_ready; /* enc (and for f32 enc32) match the table */
	/* the saved table block_begin just built, so that the block_load of
	 * the same context that follows keeps the tables it has */
	unsigned char built[GT_HUFF_SAVE_MAX];
	size_t built_len; /* 0: none */
	int dec_ready; /* lut (and for f32 mlut) match the table */
	unsigned lbits; /* index bits of lut: the longest code's length */
	unsigned mbits; /* index bits of mlut, <= HX_MBITS; 0: no mlut */
	uint16_t lut[GT_HUFF_LUT_MAX];
	/* f32 encode, by u >> 23 | (u is ±0.0) << 9: HX_E_* entries */
	uint64_t enc32[1024];
	/* f32 encode at stride 3 by gcomp's AVX-512 token kernel
	 * (gcomp_simd.h): per exponent, code | length << 24 (1 << 23: no
	 * code), the 64 from wbase on; made from enc when vec_ready is 0 */
	uint32_t ctab[256], wtab[64];
	uint32_t wbase;
	int vec_ready;
	int vec_cpu; /* the CPU runs that kernel */
	/* f32 decode per symbol: the value rotated left by one without its
	 * mantissa word, | the mask of that word << 32 (0: no mantissa);
	 * the same for every table, filled by hx_new() */
	uint64_t dsym[GT_HUFF_NSYM_MAX];
	/*
	 * f32 decode, by the next B = mbits <= min(maxlen, HX_MBITS) bits: bits 0-3
	 * the bits of the whole tokens (0: none, take the slow path), 4-5
	 * their number k <= 3, 6-7 how many carry a mantissa; slot j < k at
	 * bit 8 + 16 j: symbol (9 bits) | byte offset of its mantissa at
	 * stride 3 << 9 | at stride 1 << 12.
	 * Only exponent, ZERO and NZERO tokens whose code lies within B bits.
	 */
	uint64_t mlut[1u << HX_MBITS];
	/* zero structure (gt_zstruct.h): the block's rows and columns */
	size_t row_len;  /* R from the tensor's shape; 0: none (encode only) */
	int zmode;       /* the block is coded with c->zs */
	int zbegun;      /* block_begin ran: zsrc is the block of block_load */
	struct gt_zstruct zs;
	const unsigned char *zsrc; /* encode: the block's values, zn of them */
	size_t zn;
	unsigned char *scratch;    /* kept values of a block or chunk */
	size_t scratch_cap;
	uint64_t zbits; /* zmode: the chosen way's bits less its meta */
	/* palette (GT_ZS_PALETTE in zs.flags): its param byte, the palette
	 * of a chunk, its values */
	unsigned pparam;
	struct gt_pal pal;
	unsigned char *pbuf;
	size_t pbuf_cap;
	/* the next block_begin's values' histogram, given (gcomp) */
	const struct gt_huff_hist *hint;
	/* hist counts the hn values at hsrc (a plain block's own, or the
	 * hint): a chunk that is the whole block takes its carrier count
	 * from it; NULL: none */
	const void *hsrc;
	size_t hn;
};


static inline struct hx_ctx *hx(struct gt_codec_ctx *ctx)
{
	return (struct hx_ctx *)(void *)ctx;
}

/* Whether a chunk of @n values is coded in HX_SPLIT_S parts. */
static inline int split_chunk(const struct hx_ctx *c, size_t n)
{
	return c->split && n >= HX_SPLIT_MIN && n <= HX_SPLIT_MAX;
}

/* The first value of part @j of a chunk of @n values. */
static inline size_t part_at(size_t n, unsigned j)
{
	return j == HX_SPLIT_S ? n : n / HX_SPLIT_S * j;
}

/* f32: values that are not ±0.0, and (*@pz_ret) those that are +0.0.
 * Fixed 64-value inner loops, which compilers vectorize at -O2: inlined
 * into count_f32() (huffexp.c) and, built for AVX-512, into
 * hx_count_f32_avx512() (huffexp_x86.c). */
static inline __attribute__((always_inline)) size_t
hx_count_f32(const unsigned char *p, size_t n, size_t *pz_ret)
{
	size_t nz = 0, pz = 0, i = 0;

	for (; n - i >= 64; i += 64) {
		uint32_t a = 0, b = 0;

		for (unsigned k = 0; k < 64; k++) {
			uint32_t u;

			memcpy(&u, p + 4 * (i + k), 4);
			a += u << 1 != 0;
			b += u == 0;
		}
		nz += a;
		pz += b;
	}
	for (; i < n; i++) {
		uint32_t u;

		memcpy(&u, p + 4 * i, 4);
		nz += u << 1 != 0;
		pz += u == 0;
	}
	*pz_ret = pz;
	return nz;
}

/* hx_count_f32() with AVX-512 (the caller checks the CPU has it: isa
 * avx512); the baseline's where the build has no x86-64 targets. */
size_t hx_count_f32_avx512(const unsigned char *p, size_t n, size_t *pz_ret);

/* The decode tables of the installed table, first used on @n values
 * (huffexp_dec.c). */
int hx_prepare_dec(struct hx_ctx *c, size_t n);
/*
 * The value pass of the two-pass f32 decoder (huffexp_dec.c walks the
 * table and stores each value's slot, its symbol in the low 9 bits):
 * hx_asm_f32_avx512() (AVX-512 VBMI2, which hx_asm_avx512_runs() tells)
 * makes the values of @cnt slots at @sym, their mantissa words read from
 * *@mp_io on (at @stride bytes, never past @mend; *@mp_io advances).
 * huffexp_x86.c.
 */
int hx_asm_avx512_runs(void);
int hx_asm_f32_avx512(const uint16_t *sym, size_t cnt, const unsigned char **mp_io,
		      const unsigned char *mend, unsigned char *dst, unsigned stride);
/* The same with AVX2 (eight values a time), for CPUs without VBMI2; it
 * returns the values it made, fewer than @cnt near the stream's end. */
size_t hx_asm_f32_avx2(const uint16_t *sym, size_t cnt, const unsigned char **mp_io,
		       const unsigned char *mend, unsigned char *dst, unsigned stride);
/* Decode a plain chunk of @n values (either layout). */
int hx_dec_plain(struct hx_ctx *c, const void *src, size_t src_len, void *dst,
		 size_t n);

#endif
