/* gt_gain.h - compression gain (GraVAC), error feedback and multi-level compression */
#ifndef GT_GAIN_H
#define GT_GAIN_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/gt_codec.h"
#include "../lib/gt_error.h"

/*
 * A codec applied to a whole f32 tensor in memory, cut into blocks and
 * chunks exactly as `gtool compress` cuts it (a GT_CODEC_WHOLE_BLOCK codec
 * codes each block as one chunk; a block that coding would grow is kept
 * as it is, as the container stores it raw), with gt_codec_seek told the
 * same (stream, first value) as the container writer tells it: the values
 * gt_gain_code() gives back are those `gtool decompress` would.
 */
struct gt_gain_coder {
	struct gt_codec_ctx *ctx;
	size_t block, chunk;       /* values */
	unsigned char *buf;        /* one chunk's bound */
	size_t cap;
};

/* What coding one tensor cost. */
struct gt_gain_cost {
	uint64_t bytes;    /* coded chunks and block tables */
	double encode_s;   /* wall seconds in block_begin and encode */
	double decode_s;   /* wall seconds in decode */
};

/*
 * gt_gain_coder_init - a coder for codec @c with options @opts; @block and
 * @chunk (values, @chunk <= @block) as compress cuts them: cmd/ passes
 * the container's defaults or its --block-size and --chunk-size.
 * @return 0, or the errors of gt_codec_new with @d set.
 */
int gt_gain_coder_init(struct gt_gain_coder *gc, const struct gt_codec *c,
		       const char *opts, size_t block, size_t chunk,
		       struct gt_diag *d);
void gt_gain_coder_release(struct gt_gain_coder *gc);

/*
 * gt_gain_code - code @n values of @src and decode them into @dst (which
 * may not be @src; NULL: only the bytes are wanted, nothing is decoded);
 * add the cost to @cost.
 * @return 0, GT_ERR(NOMEM), or a codec's error.
 */
int gt_gain_code(struct gt_gain_coder *gc, const float *src, size_t n,
		 uint64_t stream, float *dst, struct gt_gain_cost *cost);

/*
 * The sums the two gains are made of, over one or more tensors:
 *   gain      = sum ghat^2 / sum g_ef^2          (GraVAC, §III-B)
 *   gain_norm = sum_t ||ghat_t|| / sum_t ||g_t|| (GraVAC's released code:
 *               per-tensor L2 norms added up, against the gradient as
 *               back-propagated, g, without the residual)
 * Without error feedback g_ef = g.
 */
struct gt_gain_sums {
	double ef2, hat2;       /* sum g_ef^2, sum ghat^2 */
	double norm_g, norm_hat; /* sum of per-tensor norms */
};

/* Add one tensor: @g as back-propagated, @ef = g + residual, @hat the result. */
void gt_gain_add(struct gt_gain_sums *s, const float *g, const float *ef,
		 const float *hat, size_t n);
void gt_gain_merge(struct gt_gain_sums *a, const struct gt_gain_sums *b);
double gt_gain_sq(const struct gt_gain_sums *s);   /* NaN when sum g_ef^2 is 0 */
double gt_gain_norm(const struct gt_gain_sums *s); /* NaN when sum ||g|| is 0 */

/*
 * An exponentially weighted moving average with pandas' default weights
 * (adjust=True): y_t = sum_i (1-a)^i x_{t-i} / sum_i (1-a)^i over every x
 * so far, which is what GraVAC's MovingWindowAverage computes.
 */
struct gt_ewma {
	double alpha, num, den;
};
void gt_ewma_init(struct gt_ewma *e, double alpha);
double gt_ewma_add(struct gt_ewma *e, double x); /* the average after x */

/*
 * Multi-level compression (GraVAC §IV-C): a sparsifier's output at CF
 * theta_1 is compressed again to CF theta_2 by coding only the values it
 * kept.  gt_gain_compact gathers the non-zero values of @hat (what the
 * first level kept) into @vals and their positions into @idx, and returns
 * their count; gt_gain_scatter puts @m values back at @idx into a zeroed
 * @dst of @n values.
 */
size_t gt_gain_compact(const float *hat, size_t n, float *vals, size_t *idx);
void gt_gain_scatter(const float *vals, const size_t *idx, size_t m, float *dst,
		     size_t n);

/* Scratch arrays of gt_gain_relevel, each of at least a block's values. */
struct gt_gain_scratch {
	float *vals, *tmp;
	size_t *idx;
};

/*
 * gt_gain_relevel - GraVAC's second level: compress @hat_min (a
 * sparsifier's output at a smaller CF, @n values) to CF @cf by coding,
 * block by block (@block values, as gt_gain_coder cuts them), only the
 * values it kept, to exactly min(ceil(block values / @cf), kept) of them
 * with codec @c, its fixed options @base and option k=.  Result into @dst.
 * Gathering the kept values is not timed: a sparsifier hands them over as
 * its output.  The bytes added to @cost are those of the result at its
 * places in the tensor, as the sparsifiers pack a block (topk's chunk
 * keeping exactly those values), not those of the smaller coded array.
 * @return 0, or a codec's error with @d set.
 */
int gt_gain_relevel(const struct gt_codec *c, const char *base,
		    const float *hat_min, size_t n, double cf, size_t block,
		    size_t chunk, uint64_t stream, float *dst,
		    struct gt_gain_scratch *s, struct gt_gain_cost *cost,
		    struct gt_diag *d);

#endif
