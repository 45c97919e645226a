/* gcomp_impl.h - the gcomp codec's context, shared by its encoder and decoder */
#ifndef GT_GCOMP_IMPL_H
#define GT_GCOMP_IMPL_H

#include "../codec_impl.h"
#include "../gt_bitio.h"
#include "../gt_huff.h"
#include "../gt_zstruct.h"
#include "gcomp_simd.h"

/* The chunk layout and the levels are described at the top of gcomp.c. */
#define GC_SLICE 65536 /* values per scratch slice in block_begin */

enum gc_mode { GC_FULL, GC_SINGLE, GC_MULTI, GC_PRUNE, GC_EXACT };

/*
 * A block's meta (without a static table) starts with GC_META_TABLE or,
 * from format 1.5, GC_META_SPLIT: the same table, and the block's f32
 * chunks of GC_SPLIT_MIN values or more are split, their tokens in four
 * code streams (gcomp.c, "Split chunks").  GC_SPLIT_TAB: the bytes of
 * the three u32 code stream sizes.
 */
#define GC_META_TABLE 1
#define GC_META_SPLIT 2
#define GC_SPLIT_MIN 8192
#define GC_SPLIT_MAX (UINT32_C(1) << 30) /* a part's codes fit a u32 */
#define GC_SPLIT_TAB 12

/* Where part @j of 4 of a split chunk of @n values ends (it starts where
 * part j - 1 ends, part 0 at 0). */
static inline size_t gc_part_end(size_t n, unsigned j)
{
	return j == 3 ? n : (size_t)(j + 1) * (n / 4);
}

/* Whether a chunk of @n values of a block with split @split is split. */
#define GC_SPLIT_CHUNK(split, n) ((split) && (n) >= GC_SPLIT_MIN && (n) <= GC_SPLIT_MAX)


struct gc_ctx {
	struct gt_codec_base base;
	enum gt_dtype dt;
	unsigned eb, mb, width;
	unsigned maxlen;
	enum gt_huff_method method;
	enum gc_mode mode;
	int isa; /* enum gc_isa (gcomp_simd.h): the encoder's kernels */
	unsigned lev[4];
	long margin;
	double thr[4]; /* 2^(lev[l] + margin) */
	const struct gt_optim *optim; /* NULL: encode in an aux mode fails */
	struct gt_optim optim_copy;
	int fixed, ready, runs, dec_ready;
	int split; /* the block's meta says GC_META_SPLIT */
	int enc_ready; /* enc matches the table (made by the first encode) */
	int f32_ready; /* c16: the same for every table */
	/* the values of the last block_begin() when it found no subnormal
	 * (gcomp.c, clean_block()); lo == hi: none */
	uintptr_t clean_lo, clean_hi;
	/* the same for a block whose every symbol has a code (gcomp.c,
	 * coded_block()): the level kernel need not look them up */
	uintptr_t coded_lo, coded_hi;
	struct gt_huff_table table;
	struct gt_huff_hist hist;
	/* hist is gt_huff_hist() of the block as it is: 1; but for the runs
	 * across its slices' ends (counted as their pieces): 2; else 0 */
	int hist_whole;
	/* per symbol: code bits | nbits << 32 | mant << 40 | no code << 41 */
	uint64_t enc[GT_HUFF_NSYM_MAX];
	/* f32 vector encoder (gcomp_simd.h): exponent codes as bits | nbits
	 * << 24, the map of symbols without a code */
	uint32_t ctab[256], badmap[16];
	/* ctab[wbase .. wbase + 63]: the window of exponents that the vector
	 * encoder looks up in two permutes (the highest with a code last) */
	uint32_t wtab[64];
	uint32_t wbase;
	uint16_t lut[GT_HUFF_LUT_MAX];
	unsigned lbits; /* index bits of lut: the longest code's length */
	/* f32 decode (gcomp_dec.c); mbits 0: no mlut (small blocks); seg:
	 * the codes of one segment of values (GC_SEG, with slack) */
	unsigned mbits;
	uint64_t mlut[1u << 12] /* GC_MBITS */;
	uint16_t c16[GT_HUFF_NZERO(8) + 1], seg[4096 + 16] /* GC_SEG */;
	uint16_t *codes; /* a split chunk's codes, codes_cap with slack */
	size_t codes_cap;
	/* encode scratch for cap values, grown outside the loops */
	size_t cap;
	unsigned char *tv; /* a copy of the values when some must change */
	const unsigned char *cv; /* the values as coded: the source, or tv */
	uint8_t *lv;       /* their levels */
	unsigned char *lbuf, *mbuf; /* level, mantissa streams with slack */
	unsigned char *cbuf; /* the code stream, cbuf_cap bytes with slack */
	size_t cbuf_cap;
	float *gf, *cand, *ref, *out;
	double *delta;
	/* the fallback (gcomp_fall.c): blocks huffexp codes in fewer bytes */
	struct gt_codec_ctx *hx; /* huffexp of the same dtype, row_len, table */
	struct gt_huff_hist hxhist; /* hist, runs joined: huffexp's */
	size_t row_len;            /* the tensor's (gt_codec_params) */
	struct gt_zstruct zs;      /* whether huffexp may see zero rows */
	int fall;                /* the block loaded is a fallback block */
	/* the chunks block_begin() coded to cost the block (GT_CHUNK_DEFAULT
	 * values each): kept[0] gcomp's, kept[1] huffexp's, chunk i at
	 * buf + off[i], off[i + 1] - off[i] bytes; encode copies kept[kfall]
	 * of a chunk of the knch (0: none) of the kn values at ksrc */
	struct gc_kept {
		unsigned char *buf;
		size_t cap, *off, off_cap;
	} kept[2];
	size_t knch, kn;
	int kfall;
	/* the one chunk of the block not coded yet: its levels are in c->lv
	 * (gc_chunk_levels() gave kcnt), for the encode that follows */
	int kdefer;
	uint64_t kcnt[4];
	const unsigned char *ksrc;
	const float *kparam;
	/* the meta block_begin() returned with them: kept for the
	 * block_load() of it that follows, forgotten at any other */
	unsigned char kmeta[GT_HUFF_SAVE_MAX];
	size_t kmeta_len;
	int kfresh;
};

static inline struct gc_ctx *gc(struct gt_codec_ctx *ctx)
{
	return (struct gc_ctx *)(void *)ctx;
}

static inline const struct gc_ctx *gcc(const struct gt_codec_ctx *ctx)
{
	return (const struct gc_ctx *)(const void *)ctx;
}

/* c->isa as lib/'s instruction sets name it */
static inline enum gt_isa gc_gt_isa(const struct gc_ctx *c)
{
	return c->isa == GC_ISA_AVX2 ? GT_ISA_AVX2 :
	       c->isa == GC_ISA_AVX512 ? GT_ISA_AVX512 : GT_ISA_PORTABLE;
}

/* gt_huff_hist() with the loops of c->isa (isa=avx2 runs AVX2's on a CPU
 * with AVX-512 too; isa=scalar the portable ones). */
static inline void gc_hist(const struct gc_ctx *c, struct gt_huff_hist *h, const void *src,
			   size_t n)
{
	gt_huff_hist_isa(h, src, n, gc_gt_isa(c));
}

/* gcomp_opts.c: the options.  gc_mode_names[enum gc_mode]; the default
 * levels of dtype @dt into @lev; @kv into @c (its dt, mb and lev set). */
extern const char *const gc_mode_names[5];
void gc_default_levels(enum gt_dtype dt, unsigned *lev);
int gc_parse_opts(struct gc_ctx *c, const struct gt_kv *kv, size_t nkv, struct gt_diag *d);

/* gcomp_opts.c: the context; gcomp.c: its table installed (gc_prepare),
 * its scratch released, and the codec's own block and chunk coding */
int gc_new(const struct gt_codec_params *p, const struct gt_kv *kv, size_t nkv,
	   struct gt_codec_ctx **ctx_ret, struct gt_diag *d);
void gc_free(struct gt_codec_ctx *ctx);
size_t gc_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap);
int gc_prepare(struct gc_ctx *c);
void gc_scratch_free(struct gc_ctx *c);
size_t gc_own_bound(const struct gt_codec_ctx *ctx, size_t n);
int gc_own_begin(struct gt_codec_ctx *ctx, const void *src, size_t n, int split,
		 void *meta, size_t meta_cap, size_t *meta_len_ret);
int gc_own_load(struct gt_codec_ctx *ctx, const void *meta, size_t meta_len);
int gc_encode_chunk(struct gc_ctx *c, const void *src, size_t n,
		    const struct gt_codec_aux *aux, void *dst, size_t dst_cap,
		    size_t *dst_len_ret);
/* gc_encode_chunk() in two steps: the chunk's levels (in c->lv, the
 * values as coded in c->cv) and carriers per level into @cnt, then its
 * bytes from them; between the two, gc_chunk_fixed(): the bytes of its
 * header, level and mantissa streams and split table (all but the code
 * stream), exact */
int gc_chunk_levels(struct gc_ctx *c, const void *src, size_t n,
		    const struct gt_codec_aux *aux, uint64_t *cnt);
size_t gc_chunk_fixed(const struct gc_ctx *c, size_t n, const uint64_t *cnt);
int gc_chunk_write(struct gc_ctx *c, size_t n, const uint64_t *cnt, void *dst,
		   size_t dst_cap, size_t *dst_len_ret);
/* gcomp_fall.c: bounds on the bytes of a block's one chunk between
 * those steps (its table just built from it); *@hi UINT64_MAX: none */
void gc_own_bounds(const struct gc_ctx *c, size_t n, const uint64_t *cnt, uint64_t *lo,
		   uint64_t *hi);

/* gcomp_fall.c: the inner huffexp context of @c (gc_new), freed with
 * the rest of the fallback's memory (gc_free) */
int gc_fall_new(struct gc_ctx *c, const struct gt_codec_params *p, struct gt_diag *d);
void gc_fall_free(struct gc_ctx *c);

/* gcomp_dec.c: decoding and the per-chunk counters */
int gc_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
	      void *dst, size_t n);
int gc_chunk_stats(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		   size_t n, uint64_t *counts);

#endif
