/* hist.c - exponent histogram rows and the SVG chart of them */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_hist.h"
#include "gt_svg.h"
#include "../lib/banned.h"

int gt_hist_rows(const struct gt_stats *s, struct gt_hist_row **rows_ret,
		 size_t *n_ret)
{
	const size_t nbins = gt_stats_nbins(s);
	const int bias = nbins ? gt_dtype_bias(s->dtype) : 0;
	struct gt_hist_row *rows;
	double cum = 0;
	size_t n = 0;

	*rows_ret = NULL;
	*n_ret = 0;
	if (!nbins)
		return GT_ERR(TYPE);
	for (size_t e = 0; e < nbins; e++)
		n += s->hist[e] != 0;
	if (!n)
		return 0;
	rows = calloc(n, sizeof(*rows));
	if (!rows)
		return GT_ERR(NOMEM);
	n = 0;
	for (size_t e = 0; e < nbins; e++) {
		struct gt_hist_row *r = &rows[n];

		if (!s->hist[e])
			continue;
		r->field = (unsigned)e;
		r->power = (int)e - bias;
		r->kind = e == 0 ? GT_HIST_ZERO
			: e == nbins - 1 ? GT_HIST_NONFINITE : GT_HIST_NORMAL;
		r->count = s->hist[e];
		r->pct = 100.0 * (double)s->hist[e] / (double)s->values;
		cum += r->pct;
		r->cum_pct = cum;
		n++;
	}
	*rows_ret = rows;
	*n_ret = n;
	return 0;
}

const char *gt_hist_label(const struct gt_hist_row *r, char *buf, size_t len)
{
	switch (r->kind) {
	case GT_HIST_ZERO: snprintf(buf, len, "zero/sub"); break;
	case GT_HIST_NONFINITE: snprintf(buf, len, "inf/nan"); break;
	case GT_HIST_NORMAL: snprintf(buf, len, "2^%d", r->power); break;
	}
	return buf;
}

/* ---- SVG ------------------------------------------------------------- */

/* The chart's geometry, fixed before drawing. */
struct chart {
	double w, h, left, right, top, bottom; /* plot area: [left,right]x[top,bottom] */
	size_t nbins;       /* bins of the dtype */
	unsigned lo, hi;    /* normal fields shown: lo..hi (lo > hi: none) */
	int zero, nonfin;   /* special columns shown */
	size_t nslots;
	int bias;
	int log_y;
	double ymin, ymax;  /* axis range, in % (log: powers of 10) */
	double ystep;       /* linear: tick spacing */
};

/* Slot index of field @e, or -1 when it is not shown. */
static long slot_of(const struct chart *c, size_t e)
{
	long k = c->zero ? 1 : 0;

	if (e == 0)
		return c->zero ? 0 : -1;
	if (e == c->nbins - 1)
		return c->nonfin ? (long)c->nslots - 1 : -1;
	if (c->lo > c->hi || e < c->lo || e > c->hi)
		return -1;
	return k + (long)(e - c->lo);
}

static double slot_x(const struct chart *c, double slot)
{
	return c->left + (slot + 0.5) * (c->right - c->left) / (double)c->nslots;
}

static double y_of(const struct chart *c, double pct)
{
	double t;

	if (c->log_y) {
		if (pct < c->ymin)
			pct = c->ymin;
		t = (log10(pct) - log10(c->ymin)) / (log10(c->ymax) - log10(c->ymin));
	} else {
		t = pct / c->ymax;
	}
	return c->bottom - t * (c->bottom - c->top);
}

/* A tick step of 1, 2, 2.5 or 5 times a power of ten: about @v / 5. */
static double nice_step(double v)
{
	const double p = pow(10, floor(log10(v / 5)));
	static const double steps[] = { 1, 2, 2.5, 5, 10 };

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (5 * steps[i] * p >= v * (1 - 1e-12))
			return steps[i] * p;
	return 10 * p;
}

static int plan(struct chart *c, const struct gt_hist_series *sr, size_t n,
		const struct gt_hist_svg_opts *o)
{
	double maxp = 0, minp = 100;

	c->nbins = gt_stats_nbins(sr[0].stats);
	if (!c->nbins)
		return GT_ERR(TYPE);
	c->bias = gt_dtype_bias(sr[0].stats->dtype);
	c->lo = (unsigned)c->nbins;
	c->hi = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gt_stats *s = sr[i].stats;

		if (!gt_stats_nbins(s))
			return GT_ERR(TYPE);
		if (gt_stats_nbins(s) != c->nbins)
			return GT_ERR(INVAL);
		for (size_t e = 0; e < c->nbins; e++) {
			const double p = s->values ? 100.0 * (double)s->hist[e] / (double)s->values : 0;

			if (!s->hist[e])
				continue;
			maxp = p > maxp ? p : maxp;
			minp = p < minp ? p : minp;
			if (e == 0) {
				c->zero = 1;
			} else if (e == c->nbins - 1) {
				c->nonfin = 1;
			} else {
				c->lo = (unsigned)e < c->lo ? (unsigned)e : c->lo;
				c->hi = (unsigned)e > c->hi ? (unsigned)e : c->hi;
			}
		}
	}
	c->nslots = (size_t)c->zero + (size_t)c->nonfin +
		    (c->lo <= c->hi ? c->hi - c->lo + 1 : 0);
	if (!c->nslots)
		c->nslots = 1;
	c->w = o && o->width ? o->width : 900;
	c->h = o && o->height ? o->height : 500;
	c->left = 80;
	c->right = c->w - (n > 1 ? 170 : 30);
	c->top = 50;
	c->bottom = c->h - 70;
	c->log_y = o && o->log_y;
	if (maxp <= 0)
		maxp = 100;
	if (c->log_y) {
		c->ymax = pow(10, ceil(log10(maxp)));
		c->ymin = pow(10, floor(log10(minp > 0 ? minp : 1e-6)));
		if (c->ymin >= c->ymax)
			c->ymin = c->ymax / 10;
	} else {
		/* the axis ends at the first tick at or above the data */
		c->ystep = nice_step(maxp);
		c->ymin = 0;
		c->ymax = c->ystep * ceil(maxp / c->ystep * (1 - 1e-12));
	}
	return 0;
}

static void draw_axes(struct gt_svg *f, const struct chart *c, const char *title)
{
	const size_t step = (c->nslots + 23) / 24;
	char label[32];

	gt_svg_text(f, c->w / 2, 28, 18, "middle", 0, title);
	gt_svg_line(f, c->left, c->bottom, c->right, c->bottom, "black");
	gt_svg_line(f, c->left, c->top, c->left, c->bottom, "black");
	/* y ticks: up to the top of the axis, a tick step or a decade apart */
	for (int i = 0;; i++) {
		const double v = c->log_y ? c->ymin * pow(10, i) : c->ystep * i;
		const double y = y_of(c, v);

		if (v > c->ymax * 1.0001 || i > 64)
			break;
		gt_svg_line(f, c->left, y, c->right, y, "#ddd");
		snprintf(label, sizeof(label), "%g", v);
		gt_svg_text(f, c->left - 6, y + 4, 12, "end", 0, label);
	}
	/* x ticks: one label every @step slots, the special columns always */
	for (size_t e = 0; e < c->nbins; e++) {
		const long k = slot_of(c, e);
		double x;

		if (k < 0 || (e && e != c->nbins - 1 && (e - c->lo) % step))
			continue;
		x = slot_x(c, (double)k);
		if (e == 0)
			snprintf(label, sizeof(label), "0/sub");
		else if (e == c->nbins - 1)
			snprintf(label, sizeof(label), "inf/nan");
		else
			snprintf(label, sizeof(label), "%d", (int)e - c->bias);
		gt_svg_line(f, x, c->bottom, x, c->bottom + 5, "black");
		gt_svg_text(f, x, c->bottom + 20, 12, "middle", 0, label);
	}
	gt_svg_text(f, (c->left + c->right) / 2, c->h - 22, 14, "middle", 0,
		    "exponent k (value in [2^k, 2^(k+1)))");
	gt_svg_text(f, 22, (c->top + c->bottom) / 2, 14, "middle", -90,
		    c->log_y ? "share of values (%, log scale)" : "share of values (%)");
}

static double pct_of(const struct gt_stats *s, size_t e)
{
	return s->values ? 100.0 * (double)s->hist[e] / (double)s->values : 0;
}

/* A special column (0/sub, inf/nan) of series @idx of @n: its own bar. */
static int special(const struct chart *c, size_t e)
{
	return e == 0 || e == c->nbins - 1;
}

static void draw_bar(struct gt_svg *f, const struct chart *c, const struct gt_stats *s,
		     size_t e, size_t idx, size_t n)
{
	const double slot_w = (c->right - c->left) / (double)c->nslots;
	const double bw = 0.8 * slot_w / (double)n;
	const double y = y_of(c, pct_of(s, e));
	char tip[32];

	snprintf(tip, sizeof(tip), "%.4g%%", pct_of(s, e));
	gt_svg_rect(f, slot_x(c, (double)slot_of(c, e)) - 0.4 * slot_w + bw * (double)idx, y,
		    bw, c->bottom - y, gt_svg_color(idx), tip);
}

/*
 * One series: bars when it is alone; among several, a line with markers
 * over the exponents, and the zero/subnormal and Inf/NaN columns as bars
 * of their own, side by side, never joined to the line.
 */
static void draw_series(struct gt_svg *f, const struct chart *c, const struct gt_stats *s,
			size_t idx, size_t n)
{
	const char *color = gt_svg_color(idx);
	double *xy = malloc(2 * c->nbins * sizeof(*xy) + 1);
	size_t k = 0;

	for (size_t e = 0; e < c->nbins; e++) {
		if (slot_of(c, e) < 0)
			continue;
		if (n > 1 && !special(c, e) && xy) {
			xy[2 * k] = slot_x(c, (double)slot_of(c, e));
			xy[2 * k++ + 1] = y_of(c, pct_of(s, e));
		} else if (s->hist[e]) {
			draw_bar(f, c, s, e, n > 1 ? idx : 0, n > 1 ? n : 1);
		}
	}
	if (n > 1 && xy) {
		if (k > 1)
			gt_svg_polyline(f, xy, k, color, 1.5);
		for (size_t e = 1; e + 1 < c->nbins; e++)
			if (slot_of(c, e) >= 0 && s->hist[e])
				gt_svg_circle(f, slot_x(c, (double)slot_of(c, e)),
					      y_of(c, pct_of(s, e)), 2.5, color, NULL);
	}
	free(xy);
}

int gt_hist_svg(const struct gt_hist_series *series, size_t n,
		const struct gt_hist_svg_opts *o, char **buf_ret,
		size_t *len_ret)
{
	struct chart c = { 0 };
	struct gt_svg *f;
	const char **labels;
	int rc;

	*buf_ret = NULL;
	*len_ret = 0;
	if (!n)
		return GT_ERR(INVAL);
	rc = plan(&c, series, n, o);
	if (rc < 0)
		return rc;
	f = gt_svg_new(c.w, c.h);
	labels = calloc(n, sizeof(*labels));
	if (!f || !labels) {
		gt_svg_free(f);
		free(labels);
		return GT_ERR(NOMEM);
	}
	draw_axes(f, &c, o && o->title ? o->title : "Exponent histogram");
	for (size_t i = 0; i < n; i++) {
		draw_series(f, &c, series[i].stats, i, n);
		labels[i] = series[i].label ? series[i].label : "values";
	}
	gt_svg_legend(f, n > 1 ? c.right + 15 : c.right - 200, c.top, labels, n);
	free(labels);
	return gt_svg_end(f, buf_ret, len_ret);
}
