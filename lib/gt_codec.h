/* gt_codec.h - the codec registry and the calls every codec answers */
#ifndef GT_CODEC_H
#define GT_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "gt_error.h"
#include "gt_float.h"
#include "gt_isa.h"
#include "gt_optim.h"

enum gt_codec_flags {
	GT_CODEC_LOSSLESS = 1 << 0,    /* decode(encode(x)) == x, bit for bit */
	GT_CODEC_NEEDS_OPTIM = 1 << 1, /* needs optimizer context (gcomp) */
	GT_CODEC_STOCHASTIC = 1 << 2,  /* takes a seed */
	GT_CODEC_TABLE = 1 << 3,       /* accepts a static Huffman table */
	GT_CODEC_WHOLE_BLOCK = 1 << 4, /* codes a block as one chunk (a sparsifier
					* selects over the whole block) */
};

/* What a context is made from: on encode from the command line, on decode
 * from the tensor header of a .gtz file. */
struct gt_codec_params {
	enum gt_dtype dtype;
	const char *opts;     /* "key=value,key=value"; NULL or "" for defaults */
	const void *table;    /* serialized static Huffman table (gt_huff_save), or NULL */
	size_t table_len;
	/* encode only, for GT_CODEC_NEEDS_OPTIM codecs: the optimizer and its
	 * hyper-parameters (step t included); NULL when there is none */
	const struct gt_optim *optim;
	/* encode only: values per row of the tensor (the product of every
	 * dimension but the first; 0: unknown or rank 1); huffexp codes the
	 * zero rows and columns of a block with it (gt_zstruct.h) */
	size_t row_len;
};

/*
 * The optimizer context of the values being coded, for codecs that need
 * it (gcomp): arrays parallel to the values, f32, or NULL when absent
 * (a state buffer before its first step).  Which buffers: see
 * gt_optim_state_name().  f16 and bf16 values are exact in f32.  For f64
 * values, @param64 and @state64 hold the same arrays unrounded: gcomp's
 * mode=exact needs them (it steps in float64, as PyTorch does), the
 * other modes use them when given.
 */
struct gt_codec_aux {
	const float *param;    /* theta_{t-1}, before the step */
	const float *state[2]; /* the optimizer state before the step */
	const double *param64;    /* f64 values: theta_{t-1}; NULL: absent */
	const double *state64[2]; /* f64 values: the state; NULL: absent */
};

struct gt_codec;
struct gt_codec_ctx;

/* The codec named @name ("zstd"), or NULL. */
const struct gt_codec *gt_codec_find(const char *name);
/* The codec with container id @id, or NULL. */
const struct gt_codec *gt_codec_by_id(unsigned id);
/* Codec number @i in registry order (i < gt_codec_count()). */
const struct gt_codec *gt_codec_at(size_t i);
size_t gt_codec_count(void);

const char *gt_codec_name(const struct gt_codec *c);
unsigned gt_codec_id(const struct gt_codec *c);
unsigned gt_codec_flags(const struct gt_codec *c);
/* One line per option: "level=N  zstd level, 1-19 (default 3)". */
const char *gt_codec_help(const struct gt_codec *c);

/*
 * gt_codec_new - a context for @c with parameters @p.  Unknown or invalid
 * options are GT_ERR(INVAL) with @d saying which ("unknown option 'x' for
 * codec zstd"); a dtype the codec cannot code is GT_ERR(TYPE).
 * Contexts are used by one thread at a time; make one per thread.
 * Returns a context the caller frees with gt_codec_free().
 */
int gt_codec_new(const struct gt_codec *c, const struct gt_codec_params *p,
		 struct gt_codec_ctx **ctx_ret, struct gt_diag *d);
void gt_codec_free(struct gt_codec_ctx *ctx); /* NULL-safe */
const struct gt_codec *gt_codec_of(const struct gt_codec_ctx *ctx);

/*
 * gt_codec_canon - the options in canonical form ("level=19"), every
 * option with its value, as written into the tensor header.  Returns the
 * length; the string is truncated (but NUL-terminated) when @cap is short.
 */
size_t gt_codec_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap);

/*
 * gt_codec_bound - the most bytes encode() can write for a chunk of @n
 * values; 0 when that does not fit in size_t.  A true worst case.
 */
size_t gt_codec_bound(const struct gt_codec_ctx *ctx, size_t n);

/*
 * Block-level side information (a per-block Huffman table): the encoder
 * calls gt_codec_block_begin() once per block with all of its values, and
 * stores the @meta bytes it returns in the block header; every context
 * that then codes chunks of that block (on any thread) first gets the
 * same bytes through gt_codec_block_load().  Codecs without block state
 * return 0 bytes and accept 0 bytes.  The chunks a context then encodes
 * for that block must be read from the memory block_begin was given,
 * unchanged: a codec may remember what it learnt of them there (gcomp:
 * that no value is subnormal; huffexp: how many carry a mantissa word)
 * until the next block_begin.  Changed values give an error or bytes
 * that do not decode to them, never a write out of bounds.
 * @return 0, GT_ERR(DST_TOO_SMALL), GT_ERR(CORRUPT) (load of bad meta).
 */
#define GT_CODEC_META_MAX 8192
int gt_codec_block_begin(struct gt_codec_ctx *ctx, const void *src, size_t n,
			 void *meta, size_t meta_cap, size_t *meta_len_ret);
int gt_codec_block_load(struct gt_codec_ctx *ctx, const void *meta,
			size_t meta_len);
/*
 * gt_codec_block_begin_aux - gt_codec_block_begin() with the optimizer
 * context of the block's @n values (@aux arrays indexed like @src; NULL:
 * none), for codecs whose block choice needs it: gcomp costs the block
 * both as itself and as huffexp with it (without @aux: in the modes that
 * need none), and codes it as huffexp when that is smaller (.gtz format
 * 1.3; gt_codec_block_begin() never does).  The chunks then encoded get
 * the same arrays (the slices of them).  Other codecs ignore @aux.
 * @return as gt_codec_block_begin().
 */
int gt_codec_block_begin_aux(struct gt_codec_ctx *ctx, const void *src, size_t n,
			     const struct gt_codec_aux *aux, void *meta, size_t meta_cap,
			     size_t *meta_len_ret);

/*
 * gt_codec_encode - code @n values at @src (little-endian, the context's
 * dtype) into @dst; never writes past @dst_cap.
 * @return 0, GT_ERR(DST_TOO_SMALL) when @dst_cap is below what the data
 *	needs (always enough at gt_codec_bound()).
 */
int gt_codec_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		    void *dst, size_t dst_cap, size_t *dst_len_ret);

/*
 * gt_codec_encode_aux - the same, with the optimizer context of the @n
 * values (@aux arrays are indexed like @src).  Codecs that do not need it
 * ignore it; a GT_CODEC_NEEDS_OPTIM codec given NULL codes as its
 * context-free mode would, or returns GT_ERR(INVAL) when it has none.
 */
int gt_codec_encode_aux(struct gt_codec_ctx *ctx, const void *src, size_t n,
			const struct gt_codec_aux *aux, void *dst, size_t dst_cap,
			size_t *dst_len_ret);

/*
 * gt_codec_seek - where the next chunk sits: @stream (the tensor's number
 * in its file, or a step) and @pos (the index of its first value).
 * Stochastic codecs draw their random numbers from (seed, stream, pos),
 * so the bytes do not depend on how chunks are shared among threads.
 * Both are 0 in a new context; other codecs ignore the call.
 */
void gt_codec_seek(struct gt_codec_ctx *ctx, uint64_t stream, uint64_t pos);

/*
 * gt_codec_set_isa - run @ctx's hot loops (tfp, rangeq, fft's rangeq,
 * huffexp's histogram; gcomp takes its isa= option instead) with
 * instruction set @isa (gt_isa.h) instead of gt_isa_best(), the default;
 * one this CPU cannot run means GT_ISA_PORTABLE.  The bytes and the
 * values are the same whichever runs: for tests and benchmarks.
 */
void gt_codec_set_isa(struct gt_codec_ctx *ctx, enum gt_isa isa);

/*
 * gt_codec_needs_aux - 1 when @ctx, as configured (its mode), uses the
 * optimizer context, so the caller must supply it; 0 otherwise.
 */
int gt_codec_needs_aux(const struct gt_codec_ctx *ctx);

/*
 * What a coded chunk holds, for `gtool ls`: gt_codec_stat_names() names
 * the counters a codec keeps (gcomp: values per quantization level and
 * values pruned), at most GT_CODEC_STATS_MAX; gt_codec_chunk_stats() adds
 * a chunk's counts to @counts (after gt_codec_block_load of its block).
 * Codecs without counters return 0 names and leave @counts alone.
 * @return 0, or the errors of gt_codec_decode.
 */
#define GT_CODEC_STATS_MAX 8
const char *const *gt_codec_stat_names(const struct gt_codec *c, size_t *n_ret);
int gt_codec_chunk_stats(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
			 size_t n, uint64_t *counts);

/*
 * gt_codec_decode - decode exactly @n values from @src_len bytes at @src
 * into @dst.  The input is hostile: every read is bounds-checked.
 * @return 0, GT_ERR(CORRUPT) (bad code, wrong value count, bytes left
 *	over), GT_ERR(TRUNCATED) (input ends early).
 */
int gt_codec_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		    void *dst, size_t n);

/*
 * gt_codec_spec_parse - split "-c NAME[:k=v,...]" into the codec and its
 * option string.  *@opts_ret points into @spec (or is "").
 * @return 0, GT_ERR(NOTFOUND) with @d naming the unknown codec.
 */
int gt_codec_spec_parse(const char *spec, const struct gt_codec **c_ret,
			const char **opts_ret, struct gt_diag *d);

#endif
