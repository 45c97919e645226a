/* gt_metric.h - streaming error metrics between an original A and a copy B */
#ifndef GT_METRIC_H
#define GT_METRIC_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/gt_error.h"
#include "../lib/gt_float.h"

/* A compensated (Neumaier) sum: s + c is the running total. */
struct gt_metric_sum {
	double s, c;
};

/*
 * An accumulator over pairs (a_i, b_i), a the original (A) and b the
 * reconstruction (B).  Feed it blocks with gt_metric_add(), combine two
 * with gt_metric_merge(), read the metrics with gt_metric_derive().  The
 * caller owns the struct; it holds no pointers, so there is nothing to
 * release.  One thread per accumulator: accumulate per thread and merge.
 *
 * Every pair counts in @values and may count in @identical.  A pair with a
 * NaN in a or b counts in @nan, one with an infinity (and no NaN) in @inf;
 * both are left out of everything else.  The other pairs ("finite", @n of
 * them) give the sums, the extremes and the co-moments, all in double:
 * sums per chunk of at most 1024 pairs, chunks added with Neumaier's
 * compensation; the centred moments per chunk with a two-pass mean, chunks
 * combined with the parallel update of Chan, Golub and LeVeque, so the
 * Pearson correlation does not suffer from cancellation when the mean is
 * large against the spread.  The moments are taken of a - shift_a and
 * b - shift_b, the first finite pair: near the data, so the means carry
 * the digits of the spread, not of the mean.
 */
struct gt_metric {
	uint64_t values;     /* every pair */
	uint64_t identical;  /* bit-identical pairs (see gt_metric_add) */
	uint64_t nan;        /* a or b is NaN */
	uint64_t inf;        /* a or b is +-Inf, neither is NaN */
	uint64_t n;          /* finite pairs: what the rest is over */
	double max_abs;      /* max |a - b| */
	double max_rel;      /* max |a - b| / |a| over a != 0; 0 if none */
	double min_a, max_a; /* extremes of a; NaN while n == 0 */
	double shift_a, shift_b; /* the first finite pair */
	double mean_a, mean_b;  /* running means of a - shift_a, b - shift_b */
	double m2_a, m2_b;      /* sums of squared deviations from the means */
	double c_ab;            /* sum of (a - mean_a)(b - mean_b) */
	struct gt_metric_sum aa, bb, ab, dd; /* sums of a^2, b^2, ab, (a - b)^2 */
};

/* What `gtool error` shows; NaN where a quantity is undefined. */
struct gt_metric_result {
	double range;   /* max_a - min_a */
	double rmse;    /* sqrt(sum (a - b)^2 / n) */
	double nrmse;   /* rmse / range; 0 when rmse is 0 */
	double psnr;    /* 20 log10(range / rmse) dB; +Inf when rmse is 0 */
	double snr;     /* 10 log10(sum a^2 / sum (a - b)^2) dB; +Inf when rmse is 0 */
	double cosine;  /* sum ab / sqrt(sum a^2 sum b^2) */
	double pearson; /* c_ab / sqrt(m2_a m2_b) */
	double gain;    /* sum b^2 / sum a^2: GraVAC's compression gain */
};

/* gt_metric_init - an empty accumulator. */
void gt_metric_init(struct gt_metric *m);

/*
 * gt_metric_add - accumulate @n pairs: @a (little-endian values of dtype
 * @dta) against @b (of dtype @dtb); any alignment.  Values are compared
 * as doubles (exact for every dtype).  A pair is identical when its bit
 * patterns are equal: with @dta == @dtb the stored bits (memcmp: -0 is not
 * +0, NaN payloads count), otherwise the bits of both values widened to
 * double.
 * @return 0, GT_ERR(INVAL) for GT_DT_NONE or an unknown dtype.
 */
int gt_metric_add(struct gt_metric *m, const void *a, enum gt_dtype dta,
		  const void *b, enum gt_dtype dtb, size_t n);

/*
 * gt_metric_merge - add accumulator @b into @a: the result is what one
 * pass over both inputs gives, up to the rounding of the sums.
 */
void gt_metric_merge(struct gt_metric *a, const struct gt_metric *b);

/*
 * gt_metric_derive - the metrics of @m into @r (formulas above).  With no
 * finite pair every field is NaN; rmse 0 (identical finite values) gives
 * nrmse 0 and psnr, snr +Inf; a zero range with rmse > 0 gives nrmse +Inf
 * and psnr -Inf; cosine, pearson and gain are NaN where their
 * denominators are 0.
 */
void gt_metric_derive(const struct gt_metric *m, struct gt_metric_result *r);

#endif
