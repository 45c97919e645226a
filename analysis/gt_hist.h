/* gt_hist.h - exponent histogram rows and an SVG chart of them */
#ifndef GT_HIST_H
#define GT_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "gt_stats.h"

/* What a histogram row's exponent field stands for. */
enum gt_hist_kind {
	GT_HIST_NORMAL,   /* 2^power with power = field - bias */
	GT_HIST_ZERO,     /* field 0: zeros and subnormals */
	GT_HIST_NONFINITE /* the all-ones field: Inf and NaN */
};

struct gt_hist_row {
	unsigned field;         /* biased exponent field */
	int power;              /* field - bias (for NORMAL rows) */
	enum gt_hist_kind kind;
	uint64_t count;
	double pct;             /* count / values * 100 */
	double cum_pct;         /* running sum of pct, ascending field */
};

/*
 * gt_hist_rows - the non-empty bins of @s in ascending field order.
 * @rows_ret: a malloc'd array of *@n_ret rows (NULL when there are none);
 * the caller frees it.
 * @return 0, GT_ERR(TYPE) when @s has no histogram (mixed dtypes),
 *	GT_ERR(NOMEM).
 */
int gt_hist_rows(const struct gt_stats *s, struct gt_hist_row **rows_ret,
		 size_t *n_ret);

/* "zero/sub", "inf/nan" or "2^-7" into @buf (>= 16 bytes); returns @buf. */
const char *gt_hist_label(const struct gt_hist_row *r, char *buf, size_t len);

/* One series of a chart: a label for the legend and its accumulator. */
struct gt_hist_series {
	const char *label;
	const struct gt_stats *stats;
};

struct gt_hist_svg_opts {
	const char *title; /* NULL: "Exponent histogram" */
	int log_y;         /* logarithmic y axis (share of values, %) */
	unsigned width, height; /* pixels; 0: 900 x 500 */
};

/*
 * gt_hist_svg - an SVG 1.1 document charting the exponent histograms of
 * @n series (n >= 1, all of one dtype's exponent width): x is the exponent
 * (a power of two, with zeros/subnormals and Inf/NaN as their own
 * columns when present), y the share of the series' values in percent.
 * One series is drawn as bars, several as lines with markers and a legend.
 * @buf_ret: a malloc'd NUL-terminated document of *@len_ret bytes; the
 * caller frees it.  No file I/O here: cmd/ writes it.
 * @return 0, GT_ERR(INVAL) (no series, exponent widths differ),
 *	GT_ERR(TYPE) (a series without histogram), GT_ERR(NOMEM).
 */
int gt_hist_svg(const struct gt_hist_series *series, size_t n,
		const struct gt_hist_svg_opts *o, char **buf_ret,
		size_t *len_ret);

#endif
