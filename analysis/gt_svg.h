/* gt_svg.h - an SVG 1.1 writer (into memory) and charts drawn with it:
 * scatter, grouped bars and lines; `gtool hist` and `gtool plot` use it */
#ifndef GT_SVG_H
#define GT_SVG_H

#include <stddef.h>

#include "../lib/gt_error.h"

struct gt_svg;

/* A document of @w x @h pixels on a white background; NULL: no memory. */
struct gt_svg *gt_svg_new(double w, double h);
/*
 * gt_svg_end - close the document and hand it out: @buf_ret, a malloc'd
 * NUL-terminated string of *@len_ret bytes the caller frees.  Frees @s.
 * @return 0, GT_ERR(NOMEM).
 */
int gt_svg_end(struct gt_svg *s, char **buf_ret, size_t *len_ret);
void gt_svg_free(struct gt_svg *s); /* without ending it; NULL-safe */

/* Colour @i of a 10-colour palette (cycling). */
const char *gt_svg_color(size_t i);

/* Drawing.  Every string given is escaped for XML (& < > " '). */
/* @anchor: "start", "middle", "end"; @rotate: degrees about (x, y). */
void gt_svg_text(struct gt_svg *s, double x, double y, double size,
		 const char *anchor, double rotate, const char *text);
void gt_svg_line(struct gt_svg *s, double x1, double y1, double x2, double y2,
		 const char *stroke);
/* @title: a tooltip, or NULL. */
void gt_svg_rect(struct gt_svg *s, double x, double y, double w, double h,
		 const char *fill, const char *title);
void gt_svg_circle(struct gt_svg *s, double cx, double cy, double r,
		   const char *fill, const char *title);
/* @n points (x0, y0, x1, y1, ...) joined by a line. */
void gt_svg_polyline(struct gt_svg *s, const double *xy, size_t n,
		     const char *stroke, double width);
/* A group <g class="@cls"> around what follows, up to gt_svg_group_end. */
void gt_svg_group_begin(struct gt_svg *s, const char *cls);
void gt_svg_group_end(struct gt_svg *s);
/* A legend: @n coloured squares with labels, top-left at (x, y). */
void gt_svg_legend(struct gt_svg *s, double x, double y,
		   const char *const *labels, size_t n);

/*
 * The box a text is taken to fill, for placing labels: each character
 * GT_SVG_CHAR_EM times the font size wide (wider than the average glyph of
 * a sans-serif font), from the font size above the baseline to a quarter
 * of it below.  Tests that check labels for overlap use the same estimate.
 */
#define GT_SVG_CHAR_EM 0.6

/* ---- charts ------------------------------------------------------------ */

enum gt_plot_kind {
	GT_PLOT_SCATTER, /* points (x, y) per series, with optional labels */
	GT_PLOT_BARS,    /* one group of bars per category, one bar per series */
	GT_PLOT_LINES,   /* a line with markers per series, x numeric */
};

struct gt_plot_series {
	const char *label;        /* legend; NULL: none */
	const double *x;          /* n values; bars: unused */
	const double *y;          /* n values (bars: one per category) */
	size_t n;
	const char *const *names; /* scatter: a text beside each point, or NULL */
};

struct gt_plot {
	enum gt_plot_kind kind;
	const char *title, *xlabel, *ylabel; /* NULL or "": none drawn */
	int log_x, log_y;         /* logarithmic axes (not x of bars) */
	int pareto;               /* scatter: join the points no other beats
				   * in both x and y (lower is better) */
	const char *const *categories; /* bars: @ncat names along x */
	size_t ncat;
	const struct gt_plot_series *series;
	size_t nseries;
	unsigned width, height;   /* 0: 900 x 500 */
	const char *subtitle;     /* a smaller line under the title, or NULL */
};

/*
 * gt_svg_plot - the chart @p as an SVG document (as gt_svg_end hands it
 * out).  NaN values are left out.  On a logarithmic axis, values <= 0 are
 * drawn on the axis itself, labelled 0 (a lossless codec's error of 0 on
 * an error axis); it has a tick at every decade (labelled at every one up
 * to 12 decades).  Scatter labels are placed where their boxes (see
 * GT_SVG_CHAR_EM) overlap no other label and no point and stay inside the
 * plot, beside the point or, in a crowd, further up or down with a line
 * to it; they are the <text> elements of <g class="labels">.
 * @return 0, GT_ERR(INVAL) (no series, bars without categories, a series
 *	shorter than the categories), GT_ERR(NOMEM).
 */
int gt_svg_plot(const struct gt_plot *p, char **buf_ret, size_t *len_ret);

#endif
