/* codec_impl.h - what a codec file provides (internal to lib/) */
#ifndef GT_CODEC_IMPL_H
#define GT_CODEC_IMPL_H

#include "gt_codec.h"

/*
 * A codec is one file in lib/codecs/ defining one `const struct gt_codec`
 * and one line in the registry (codec.c).  It keeps no global state: all
 * state lives in the context it allocates.  The wrappers in codec.c check
 * arguments once, so the functions below may assume:
 *   - ctx_new: p->dtype is a valid dtype; @kv holds the parsed options;
 *   - encode: dst_cap bytes are writable, n values readable;
 *   - decode: n values writable.
 */
struct gt_kv {
	char key[32];
	char val[96];
};

struct gt_codec {
	const char *name; /* CLI name: lowercase, stable */
	uint8_t id;       /* container id: stable, never reused */
	unsigned flags;   /* GT_CODEC_* */
	const char *help; /* options, one per line */
	int (*ctx_new)(const struct gt_codec_params *p, const struct gt_kv *kv,
		       size_t nkv, struct gt_codec_ctx **ctx_ret,
		       struct gt_diag *d);
	void (*ctx_free)(struct gt_codec_ctx *ctx);
	size_t (*canon)(const struct gt_codec_ctx *ctx, char *buf, size_t cap);
	size_t (*bound)(const struct gt_codec_ctx *ctx, size_t n);
	/* optional, NULL when the codec has no block state */
	int (*block_begin)(struct gt_codec_ctx *ctx, const void *src, size_t n,
			   void *meta, size_t meta_cap, size_t *meta_len_ret);
	int (*block_load)(struct gt_codec_ctx *ctx, const void *meta,
			  size_t meta_len);
	/* optional: block_begin with the block's optimizer context (@aux
	 * arrays indexed like @src; NULL: none), for
	 * gt_codec_block_begin_aux(); block_begin stays what
	 * gt_codec_block_begin() calls */
	int (*block_begin_aux)(struct gt_codec_ctx *ctx, const void *src, size_t n,
			       const struct gt_codec_aux *aux, void *meta,
			       size_t meta_cap, size_t *meta_len_ret);
	int (*encode)(struct gt_codec_ctx *ctx, const void *src, size_t n,
		      void *dst, size_t dst_cap, size_t *dst_len_ret);
	int (*decode)(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		      void *dst, size_t n);
	/* optional, for GT_CODEC_NEEDS_OPTIM codecs: encode with the context
	 * (aux may be NULL), and whether the configured mode needs it */
	int (*encode_aux)(struct gt_codec_ctx *ctx, const void *src, size_t n,
			  const struct gt_codec_aux *aux, void *dst, size_t dst_cap,
			  size_t *dst_len_ret);
	int (*needs_aux)(const struct gt_codec_ctx *ctx);
	/* optional, for GT_CODEC_STOCHASTIC codecs: see gt_codec_seek */
	void (*seek)(struct gt_codec_ctx *ctx, uint64_t stream, uint64_t pos);
	/* optional: named counters of what a chunk holds (gt_codec_chunk_stats) */
	const char *const *stat_names; /* NULL-terminated */
	int (*chunk_stats)(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
			   size_t n, uint64_t *counts);
};

/*
 * Every context starts with this header, so that the wrappers can find
 * the codec: `struct gt_codec_ctx { struct gt_codec_base base; ... }`.
 */
struct gt_codec_base {
	const struct gt_codec *codec;
	enum gt_dtype dtype;
	enum gt_isa isa; /* the loops to run: gt_isa_best() or gt_codec_set_isa()'s */
};

/* Option helpers for ctx_new: each returns GT_ERR(INVAL) with @d set. */
int gt_kv_int(const struct gt_kv *kv, const char *codec, long min, long max,
	      long *ret, struct gt_diag *d);
int gt_kv_double(const struct gt_kv *kv, const char *codec, double min,
		 double max, double *ret, struct gt_diag *d);
int gt_kv_unknown(const struct gt_kv *kv, const char *codec, struct gt_diag *d);
/*
 * The exponent-table options of huffexp and gcomp: maxlen=N and method=M.
 * @return 1 when @kv is one of them (stored), 0 when it is not, or
 *	GT_ERR(INVAL) with @d set.
 */
int gt_kv_huff(const struct gt_kv *kv, const char *codec, unsigned *maxlen,
	       int *method, struct gt_diag *d);

/*
 * huffexp, after its block_begin() on the @n values at @src: a lower
 * bound on the bits of the block's chunks (its meta, chunk headers and
 * byte padding left out), for gcomp's fallback (gcomp_fall.c).
 * @return 0, GT_ERR(INVAL) when no block was begun.
 */
int gt_huffexp_block_bits(struct gt_codec_ctx *ctx, const void *src, size_t n,
			  uint64_t *bits_ret);

/*
 * huffexp: @h is the histogram (gt_huff_hist()) of the values the next
 * block_begin() gets, so that it need not count them again (gcomp's
 * fallback, which has counted them).  @h must live until that call.
 */
struct gt_huff_hist;
void gt_huffexp_hint_hist(struct gt_codec_ctx *ctx, const struct gt_huff_hist *h);

extern const struct gt_codec gt_codec_raw;
extern const struct gt_codec gt_codec_zlib;
extern const struct gt_codec gt_codec_zstd;
extern const struct gt_codec gt_codec_huffexp;
extern const struct gt_codec gt_codec_gcomp;
extern const struct gt_codec gt_codec_tfp;
extern const struct gt_codec gt_codec_rangeq;
extern const struct gt_codec gt_codec_fft;
extern const struct gt_codec gt_codec_topk;
extern const struct gt_codec gt_codec_randk;
extern const struct gt_codec gt_codec_dgc;
extern const struct gt_codec gt_codec_redsync;
extern const struct gt_codec gt_codec_qsgd;
extern const struct gt_codec gt_codec_terngrad;

#endif
