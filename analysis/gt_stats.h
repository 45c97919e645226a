/* gt_stats.h - one-pass streaming statistics of float tensors of any dtype */
#ifndef GT_STATS_H
#define GT_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/gt_error.h"
#include "../lib/gt_float.h"

/* Bins of the largest exponent field (f64: 11 bits). */
#define GT_STATS_MAX_BINS 2048
/* The "OB-1" observation of the GComp paper: the 15 most frequent exponents. */
#define GT_STATS_TOPK 15

/*
 * An accumulator.  Feed it blocks of values with gt_stats_add(), combine two
 * with gt_stats_merge(), read the results with gt_stats_derive().  The
 * caller owns the struct (about 17 kB: keep it off small stacks if needed);
 * it holds no pointers, so there is nothing to release.  One thread per
 * accumulator; accumulate per thread and merge.
 *
 * Counts are over every value.  The moments (min, max, mean, M2, sum of
 * |x|) are over the finite values only, accumulated in double: per chunk
 * of at most 1024 values with a two-pass mean and sum of squared
 * deviations, and chunks combined with the parallel update of Chan,
 * Golub and LeVeque, so the variance does not suffer from cancellation.
 * They are kept scaled by a power of two (E > 0 once an f64 chunk holds
 * a value of 2^440 or more), so neither a sum nor a square overflows for
 * any finite input: the mean of two DBL_MAX is DBL_MAX.
 */
struct gt_stats {
	enum gt_dtype dtype;  /* GT_DT_NONE after merging different dtypes */
	int mixed;            /* 1: merged from different dtypes, no histogram */
	uint64_t values;      /* every value */
	uint64_t zeros;       /* x == 0, +0 and -0 */
	uint64_t subnormals;  /* exponent field 0, mantissa != 0 */
	uint64_t nan, inf;
	uint64_t negative;    /* sign bit set (-0 and negative NaN included) */
	uint64_t finite;      /* values the moments are over */
	double min, max;      /* NaN while finite == 0 */
	int scale;            /* E: mean, sum_abs in units of 2^E, m2 of 2^2E */
	double mean;          /* running mean of the finite values / 2^E */
	double m2;            /* sum of squared deviations from the mean / 2^2E */
	double sum_abs;       /* sum of |x| / 2^E */
	double sum_abs_c;     /* its Kahan compensation */
	/* count of each biased exponent field: 2^exp_bits bins are used */
	uint64_t hist[GT_STATS_MAX_BINS];
};

/* Derived statistics: what `gtool stats` shows. */
struct gt_stats_result {
	double min, max, mean, std, mean_abs; /* finite values; NaN if none */
	unsigned distinct;      /* non-empty exponent fields */
	double entropy;         /* H = -sum p log2 p over the fields, bits/value */
	double top15;           /* share (0..1) of values in the 15 most frequent fields */
	double sign;            /* share (0..1) of values with the sign bit set */
	double zeros_share;     /* zeros / values */
	double bound_bits;      /* 1 + mantissa bits + H: lossless exponent-codec bound */
	double bound_ratio;     /* bound_bits / width in bits */
};

/*
 * gt_stats_init - empty accumulator for values of dtype @dt.
 * @return 0, GT_ERR(TYPE) for GT_DT_NONE or an unknown dtype.
 */
int gt_stats_init(struct gt_stats *s, enum gt_dtype dt);

/*
 * gt_stats_add - accumulate @n values at @src (little-endian, s->dtype;
 * any alignment).  The f32 path runs at about a byte per cycle.
 * @return 0, GT_ERR(INVAL) when @s was merged from mixed dtypes.
 */
int gt_stats_add(struct gt_stats *s, const void *src, size_t n);

/*
 * gt_stats_merge - add accumulator @b into @a: the result is what one pass
 * over both inputs gives (up to rounding of the moments).  Different
 * dtypes merge the counts and moments; the histogram is then dropped
 * (a->mixed = 1, a->dtype = GT_DT_NONE) and the exponent statistics of
 * gt_stats_derive() are NaN.
 */
void gt_stats_merge(struct gt_stats *a, const struct gt_stats *b);

/*
 * gt_stats_derive - the derived statistics of @s into @r, defined as in
 * samples/stats_ref.py.  With no values the shares and the entropy are 0;
 * with no finite values the moments are NaN; after a merge of mixed
 * dtypes the exponent statistics are NaN.
 */
void gt_stats_derive(const struct gt_stats *s, struct gt_stats_result *r);

/* Number of histogram bins for @s: 2^exp_bits, 0 when mixed. */
size_t gt_stats_nbins(const struct gt_stats *s);

/*
 * gt_stats_entropy - H = -sum (c_i / N) log2 (c_i / N) over @n counts,
 * N their sum, in bits; 0 for one non-empty bin or when N == 0.
 */
double gt_stats_entropy(const uint64_t *counts, size_t n);

/*
 * gt_stats_topk_share - share of the total held by the @k largest of @n
 * counts (1 when @k >= the non-empty bins); 0 when the total is 0.
 */
double gt_stats_topk_share(const uint64_t *counts, size_t n, size_t k);

#endif
