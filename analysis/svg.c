/* svg.c - an SVG 1.1 writer into memory, and scatter, bar and line charts */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_svg.h"
#include "../lib/banned.h"

struct gt_svg {
	FILE *f;
	char *buf;
	size_t len;
};

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

const char *gt_svg_color(size_t i)
{
	return palette[i % NPALETTE];
}

struct gt_svg *gt_svg_new(double w, double h)
{
	struct gt_svg *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->f = open_memstream(&s->buf, &s->len);
	if (!s->f) {
		free(s);
		return NULL;
	}
	fprintf(s->f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		w, h, w, h);
	return s;
}

void gt_svg_free(struct gt_svg *s)
{
	if (!s)
		return;
	if (s->f)
		fclose(s->f);
	free(s->buf);
	free(s);
}

int gt_svg_end(struct gt_svg *s, char **buf_ret, size_t *len_ret)
{
	int bad;

	*buf_ret = NULL;
	*len_ret = 0;
	fputs("</svg>\n", s->f);
	bad = fclose(s->f) != 0 || !s->buf;
	s->f = NULL;
	if (bad) {
		gt_svg_free(s);
		return GT_ERR(NOMEM);
	}
	*buf_ret = s->buf;
	*len_ret = s->len;
	s->buf = NULL;
	gt_svg_free(s);
	return 0;
}

static void escape(FILE *f, const char *t)
{
	for (; *t; t++) {
		switch (*t) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc((unsigned char)*t < 0x20 ? ' ' : *t, f);
			break;
		}
	}
}

void gt_svg_text(struct gt_svg *s, double x, double y, double size,
		 const char *anchor, double rotate, const char *text)
{
	fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%g\" text-anchor=\"", x, y, size);
	escape(s->f, anchor ? anchor : "start");
	fputc('"', s->f);
	if (rotate < 0 || rotate > 0)
		fprintf(s->f, " transform=\"rotate(%g %.1f %.1f)\"", rotate, x, y);
	fputc('>', s->f);
	escape(s->f, text);
	fputs("</text>\n", s->f);
}

void gt_svg_line(struct gt_svg *s, double x1, double y1, double x2, double y2,
		 const char *stroke)
{
	fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"",
		x1, y1, x2, y2);
	escape(s->f, stroke);
	fputs("\"/>\n", s->f);
}

static void shape_end(FILE *f, const char *tag, const char *title)
{
	if (!title) {
		fputs("/>\n", f);
		return;
	}
	fputs("><title>", f);
	escape(f, title);
	fprintf(f, "</title></%s>\n", tag);
}

void gt_svg_rect(struct gt_svg *s, double x, double y, double w, double h,
		 const char *fill, const char *title)
{
	fprintf(s->f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"",
		x, y, w, h);
	escape(s->f, fill);
	fputc('"', s->f);
	shape_end(s->f, "rect", title);
}

void gt_svg_circle(struct gt_svg *s, double cx, double cy, double r,
		   const char *fill, const char *title)
{
	fprintf(s->f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%g\" fill=\"", cx, cy, r);
	escape(s->f, fill);
	fputc('"', s->f);
	shape_end(s->f, "circle", title);
}

void gt_svg_polyline(struct gt_svg *s, const double *xy, size_t n,
		     const char *stroke, double width)
{
	fputs("<polyline fill=\"none\" stroke=\"", s->f);
	escape(s->f, stroke);
	fprintf(s->f, "\" stroke-width=\"%g\" points=\"", width);
	for (size_t i = 0; i < n; i++)
		fprintf(s->f, "%s%.2f,%.2f", i ? " " : "", xy[2 * i], xy[2 * i + 1]);
	fputs("\"/>\n", s->f);
}

void gt_svg_legend(struct gt_svg *s, double x, double y,
		   const char *const *labels, size_t n)
{
	fputs("<g font-size=\"12\">\n", s->f);
	for (size_t i = 0; i < n; i++) {
		const double yy = y + 10 + 18.0 * (double)i;

		gt_svg_rect(s, x, yy - 10, 12, 12, gt_svg_color(i), NULL);
		gt_svg_text(s, x + 18, yy, 12, "start", 0, labels[i] ? labels[i] : "");
	}
	fputs("</g>\n", s->f);
}

/* ---- charts ------------------------------------------------------------ */

/* One axis: its range and how values map onto pixels. */
struct axis {
	int log;
	double lo, hi;      /* range (log: powers of 10) */
	double p0, p1;      /* pixels of lo and hi */
	int zero;           /* log axis with values <= 0: drawn at lo, labelled 0 */
};

static double nice_ceil(double v)
{
	static const double steps[] = { 1, 2, 2.5, 5, 10 };
	const double p = pow(10, floor(log10(v)));

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * p >= v * (1 - 1e-12))
			return steps[i] * p;
	return 10 * p;
}

/* The range of the finite values in @v..., @n of them (NaN skipped). */
static void axis_fit(struct axis *a, const double *v, size_t n)
{
	double mn = INFINITY, mx = -INFINITY, pmin = INFINITY, pmax = 0;

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		mn = fmin(mn, v[i]);
		mx = fmax(mx, v[i]);
		if (v[i] > 0) {
			pmin = fmin(pmin, v[i]);
			pmax = fmax(pmax, v[i]);
		} else {
			a->zero = 1;
		}
	}
	if (a->log) {
		a->lo = pmax > 0 ? pow(10, floor(log10(pmin))) : 1;
		a->hi = pmax > 0 ? pow(10, ceil(log10(pmax))) : 10;
		if (a->hi <= a->lo)
			a->hi = a->lo * 10;
		return;
	}
	if (!(mx >= mn))
		mn = mx = 0;
	a->lo = mn < 0 ? -nice_ceil(-mn) : 0;
	a->hi = mx > 0 ? nice_ceil(mx) : 1;
}

static double axis_px(const struct axis *a, double v)
{
	double t;

	if (a->log)
		t = v > 0 ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) : 0;
	else
		t = (v - a->lo) / (a->hi - a->lo);
	return a->p0 + t * (a->p1 - a->p0);
}

/* Tick values along @a: 5 linear steps, or one per decade (at most 12). */
static size_t axis_ticks(const struct axis *a, double *t, size_t cap)
{
	size_t n = 0;

	if (!a->log) {
		for (int i = 0; i <= 5 && n < cap; i++)
			t[n++] = a->lo + (a->hi - a->lo) * i / 5;
		return n;
	}
	{
		const double decades = round(log10(a->hi / a->lo));
		const double step = pow(10, ceil(decades / 12));

		for (double v = a->lo; v <= a->hi * 1.0001 && n < cap; v *= step)
			t[n++] = v;
	}
	return n;
}

struct frame {
	double w, h, left, right, top, bottom;
	struct axis x, y;
};

static void draw_frame(struct gt_svg *s, const struct frame *fr, const struct gt_plot *p,
		       int x_ticks)
{
	double t[16];
	char label[32];
	size_t n = axis_ticks(&fr->y, t, 16);

	gt_svg_text(s, fr->w / 2, 28, 18, "middle", 0, p->title ? p->title : "");
	for (size_t i = 0; i < n; i++) {
		const double y = axis_px(&fr->y, t[i]);

		gt_svg_line(s, fr->left, y, fr->right, y, "#ddd");
		snprintf(label, sizeof(label), "%g", t[i]);
		gt_svg_text(s, fr->left - 6, y + 4, 12, "end", 0, label);
	}
	if (fr->y.log && fr->y.zero)
		gt_svg_text(s, fr->left - 6, fr->bottom + 14, 12, "end", 0, "0");
	gt_svg_line(s, fr->left, fr->bottom, fr->right, fr->bottom, "black");
	gt_svg_line(s, fr->left, fr->top, fr->left, fr->bottom, "black");
	n = x_ticks ? axis_ticks(&fr->x, t, 16) : 0;
	for (size_t i = 0; i < n; i++) {
		const double x = axis_px(&fr->x, t[i]);

		gt_svg_line(s, x, fr->bottom, x, fr->bottom + 5, "black");
		snprintf(label, sizeof(label), "%g", t[i]);
		gt_svg_text(s, x, fr->bottom + 20, 12, "middle", 0, label);
	}
	if (x_ticks && fr->x.log && fr->x.zero)
		gt_svg_text(s, fr->left, fr->bottom + 34, 12, "middle", 0, "0");
	gt_svg_text(s, (fr->left + fr->right) / 2, fr->h - 14, 14, "middle", 0,
		    p->xlabel ? p->xlabel : "");
	gt_svg_text(s, 22, (fr->top + fr->bottom) / 2, 14, "middle", -90,
		    p->ylabel ? p->ylabel : "");
}

/* The points no other point beats in both x and y, joined left to right. */
static void draw_pareto(struct gt_svg *s, const struct frame *fr, const struct gt_plot *p)
{
	size_t n = 0, k = 0;
	double *pt, *xy, best = INFINITY;

	for (size_t i = 0; i < p->nseries; i++)
		n += p->series[i].n;
	pt = malloc(2 * n * sizeof(*pt) + 1);
	xy = malloc(2 * n * sizeof(*xy) + 1);
	for (size_t i = 0; pt && xy && i < p->nseries; i++)
		for (size_t j = 0; j < p->series[i].n; j++) {
			const double x = p->series[i].x[j], y = p->series[i].y[j];

			if (isnan(x) || isnan(y))
				continue;
			pt[2 * k] = fr->x.log && x < 0 ? 0 : x;
			pt[2 * k++ + 1] = y;
		}
	/* insertion sort by x, then y: the lists are short */
	for (size_t i = 1; pt && xy && i < k; i++)
		for (size_t j = i; j > 0 && (pt[2 * j] < pt[2 * j - 2] ||
		     (!(pt[2 * j] > pt[2 * j - 2]) && pt[2 * j + 1] < pt[2 * j - 1])); j--) {
			const double a = pt[2 * j], b = pt[2 * j + 1];

			pt[2 * j] = pt[2 * j - 2];
			pt[2 * j + 1] = pt[2 * j - 1];
			pt[2 * j - 2] = a;
			pt[2 * j - 1] = b;
		}
	n = 0;
	for (size_t i = 0; pt && xy && i < k; i++)
		if (pt[2 * i + 1] < best) {
			best = pt[2 * i + 1];
			xy[2 * n] = axis_px(&fr->x, pt[2 * i]);
			xy[2 * n++ + 1] = axis_px(&fr->y, best);
		}
	if (n > 1)
		gt_svg_polyline(s, xy, n, "#999", 1);
	free(pt);
	free(xy);
}

static void draw_points(struct gt_svg *s, const struct frame *fr, const struct gt_plot *p)
{
	if (p->pareto)
		draw_pareto(s, fr, p);
	for (size_t i = 0; i < p->nseries; i++) {
		const struct gt_plot_series *sr = &p->series[i];
		double *xy = malloc(2 * sr->n * sizeof(*xy) + 1);
		size_t k = 0;

		for (size_t j = 0; xy && j < sr->n; j++) {
			const double x = axis_px(&fr->x, sr->x[j]), y = axis_px(&fr->y, sr->y[j]);

			if (isnan(sr->x[j]) || isnan(sr->y[j]))
				continue;
			xy[2 * k] = x;
			xy[2 * k++ + 1] = y;
		}
		if (xy && p->kind == GT_PLOT_LINES && k > 1)
			gt_svg_polyline(s, xy, k, gt_svg_color(i), 1.5);
		for (size_t j = 0, q = 0; xy && j < sr->n; j++) {
			if (isnan(sr->x[j]) || isnan(sr->y[j]))
				continue;
			gt_svg_circle(s, xy[2 * q], xy[2 * q + 1], p->kind == GT_PLOT_LINES ? 2.5 : 4,
				      gt_svg_color(i), sr->names ? sr->names[j] : NULL);
			if (sr->names && p->kind == GT_PLOT_SCATTER)
				gt_svg_text(s, xy[2 * q] + 6, xy[2 * q + 1] - 5, 10, "start", 0,
					    sr->names[j]);
			q++;
		}
		free(xy);
	}
}

static void draw_bars(struct gt_svg *s, const struct frame *fr, const struct gt_plot *p)
{
	const double slot = (fr->right - fr->left) / (double)p->ncat;
	const double bw = 0.8 * slot / (double)p->nseries;
	const int tilt = p->ncat > 6;

	for (size_t c = 0; c < p->ncat; c++) {
		const double x0 = fr->left + slot * (double)c + 0.1 * slot;

		for (size_t i = 0; i < p->nseries; i++) {
			const double v = p->series[i].y[c];
			char tip[64];
			double y;

			if (isnan(v))
				continue;
			y = axis_px(&fr->y, fr->y.log && v < fr->y.lo ? fr->y.lo : v);
			snprintf(tip, sizeof(tip), "%.4g", v);
			gt_svg_rect(s, x0 + bw * (double)i, fmin(y, fr->bottom), bw,
				    fabs(fr->bottom - y), gt_svg_color(i), tip);
		}
		gt_svg_text(s, x0 + 0.4 * slot, fr->bottom + 16, 11, tilt ? "end" : "middle",
			    tilt ? -35 : 0, p->categories[c] ? p->categories[c] : "");
	}
}

/* Every x (or y) of every series into one array for axis_fit. */
static double *gather(const struct gt_plot *p, int want_y, size_t *n_ret)
{
	size_t n = 0, k = 0;
	double *v;

	for (size_t i = 0; i < p->nseries; i++)
		n += p->kind == GT_PLOT_BARS ? p->ncat : p->series[i].n;
	v = malloc(n * sizeof(*v) + 1);
	for (size_t i = 0; v && i < p->nseries; i++) {
		const size_t m = p->kind == GT_PLOT_BARS ? p->ncat : p->series[i].n;

		for (size_t j = 0; j < m; j++)
			v[k++] = want_y ? p->series[i].y[j] : p->series[i].x[j];
	}
	*n_ret = k;
	return v;
}

static int plan(struct frame *fr, const struct gt_plot *p)
{
	const int legend = p->nseries > 1 || (p->nseries == 1 && p->series[0].label);
	double *v;
	size_t n;

	memset(fr, 0, sizeof(*fr));
	fr->w = p->width ? p->width : 900;
	fr->h = p->height ? p->height : 500;
	fr->left = 80;
	fr->right = fr->w - (legend ? 190 : 30);
	fr->top = 50;
	fr->bottom = fr->h - (p->kind == GT_PLOT_BARS && p->ncat > 6 ? 130 : 70);
	fr->x.log = p->kind != GT_PLOT_BARS && p->log_x;
	fr->y.log = p->log_y;
	fr->x.p0 = fr->left;
	fr->x.p1 = fr->right;
	fr->y.p0 = fr->bottom;
	fr->y.p1 = fr->top;
	v = gather(p, 1, &n);
	if (!v)
		return GT_ERR(NOMEM);
	axis_fit(&fr->y, v, n);
	free(v);
	if (p->kind == GT_PLOT_BARS)
		return 0;
	v = gather(p, 0, &n);
	if (!v)
		return GT_ERR(NOMEM);
	axis_fit(&fr->x, v, n);
	free(v);
	/* room on the left of a log axis for the points at 0 */
	if (fr->x.log && fr->x.zero)
		fr->x.p0 = fr->left + 30;
	return 0;
}

static int check_plot(const struct gt_plot *p)
{
	if (!p->nseries || !p->series)
		return GT_ERR(INVAL);
	for (size_t i = 0; i < p->nseries; i++) {
		if (!p->series[i].y)
			return GT_ERR(INVAL);
		if (p->kind == GT_PLOT_BARS ? p->series[i].n < p->ncat : !p->series[i].x)
			return GT_ERR(INVAL);
	}
	if (p->kind == GT_PLOT_BARS && (!p->ncat || !p->categories))
		return GT_ERR(INVAL);
	return 0;
}

int gt_svg_plot(const struct gt_plot *p, char **buf_ret, size_t *len_ret)
{
	struct frame fr;
	struct gt_svg *s;
	int rc = check_plot(p);

	*buf_ret = NULL;
	*len_ret = 0;
	if (rc < 0)
		return rc;
	rc = plan(&fr, p);
	if (rc < 0)
		return rc;
	s = gt_svg_new(fr.w, fr.h);
	if (!s)
		return GT_ERR(NOMEM);
	draw_frame(s, &fr, p, p->kind != GT_PLOT_BARS);
	if (p->kind == GT_PLOT_BARS)
		draw_bars(s, &fr, p);
	else
		draw_points(s, &fr, p);
	if (p->nseries > 1 || p->series[0].label) {
		const char **labels = calloc(p->nseries, sizeof(*labels));

		for (size_t i = 0; labels && i < p->nseries; i++)
			labels[i] = p->series[i].label;
		if (labels)
			gt_svg_legend(s, fr.right + 15, fr.top, labels, p->nseries);
		free(labels);
	}
	return gt_svg_end(s, buf_ret, len_ret);
}
