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

void gt_svg_group_begin(struct gt_svg *s, const char *cls)
{
	fputs("<g class=\"", s->f);
	escape(s->f, cls);
	fputs("\">\n", s->f);
}

void gt_svg_group_end(struct gt_svg *s)
{
	fputs("</g>\n", s->f);
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

/*
 * Tick values along @a: 5 linear steps, or every decade of a log axis;
 * *@every_ret: label every that many ticks (log axes over 12 decades).
 */
static size_t axis_ticks(const struct axis *a, double *t, size_t cap, size_t *every_ret)
{
	size_t n = 0;

	*every_ret = 1;
	if (!a->log) {
		for (int i = 0; i <= 5 && n < cap; i++)
			t[n++] = a->lo + (a->hi - a->lo) * i / 5;
		return n;
	}
	{
		const double decades = round(log10(a->hi / a->lo));

		for (double k = 0; k <= decades && n < cap; k++)
			t[n++] = a->lo * pow(10, k);
		*every_ret = (size_t)ceil(decades / 12);
		if (!*every_ret)
			*every_ret = 1;
	}
	return n;
}

struct frame {
	double w, h, left, right, top, bottom;
	struct axis x, y;
};

static int has_text(const char *t)
{
	return t && *t;
}

static void draw_titles(struct gt_svg *s, const struct frame *fr, const struct gt_plot *p)
{
	if (has_text(p->title))
		gt_svg_text(s, fr->w / 2, 28, 18, "middle", 0, p->title);
	if (has_text(p->subtitle))
		gt_svg_text(s, fr->w / 2, has_text(p->title) ? 48 : 28, 12, "middle", 0,
			    p->subtitle);
	if (has_text(p->xlabel))
		gt_svg_text(s, (fr->left + fr->right) / 2, fr->h - 14, 14, "middle", 0,
			    p->xlabel);
	if (has_text(p->ylabel))
		gt_svg_text(s, 22, (fr->top + fr->bottom) / 2, 14, "middle", -90, p->ylabel);
}

static void draw_frame(struct gt_svg *s, const struct frame *fr, const struct gt_plot *p,
		       int x_ticks)
{
	double t[64];
	char label[32];
	size_t every, n = axis_ticks(&fr->y, t, 64, &every);

	draw_titles(s, fr, p);
	for (size_t i = 0; i < n; i++) {
		const double y = axis_px(&fr->y, t[i]);

		gt_svg_line(s, fr->left, y, fr->right, y, "#ddd");
		gt_svg_line(s, fr->left - 4, y, fr->left, y, "black");
		snprintf(label, sizeof(label), "%g", t[i]);
		if (i % every == 0)
			gt_svg_text(s, fr->left - 6, y + 4, 12, "end", 0, label);
	}
	if (fr->y.log && fr->y.zero)
		gt_svg_text(s, fr->left - 6, fr->bottom + 14, 12, "end", 0, "0");
	gt_svg_line(s, fr->left, fr->bottom, fr->right, fr->bottom, "black");
	gt_svg_line(s, fr->left, fr->top, fr->left, fr->bottom, "black");
	n = x_ticks ? axis_ticks(&fr->x, t, 64, &every) : 0;
	for (size_t i = 0; i < n; i++) {
		const double x = axis_px(&fr->x, t[i]);

		gt_svg_line(s, x, fr->bottom, x, fr->bottom + 5, "black");
		snprintf(label, sizeof(label), "%g", t[i]);
		if (i % every == 0)
			gt_svg_text(s, x, fr->bottom + 20, 12, "middle", 0, label);
	}
	if (x_ticks && fr->x.log && fr->x.zero)
		gt_svg_text(s, fr->left, fr->bottom + 34, 12, "middle", 0, "0");
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

/* ---- scatter labels: placed so that no two overlap ------------------------ */

struct box {
	double x0, y0, x1, y1;
};

static struct box text_box(double x, double y, double size, int anchor_end, const char *t)
{
	size_t n = 0;
	double w;
	struct box b;

	for (; *t; t++)
		n += ((unsigned char)*t & 0xC0) != 0x80; /* characters, not UTF-8 bytes */
	w = GT_SVG_CHAR_EM * size * (double)n;
	b.x0 = anchor_end ? x - w : x;
	b.x1 = anchor_end ? x : x + w;
	b.y0 = y - size;
	b.y1 = y + 0.25 * size;
	return b;
}

static int boxes_meet(const struct box *a, const struct box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

struct labeller {
	struct box *labels;       /* the labels placed so far */
	size_t nlabels;
	const struct box *points; /* every point, an obstacle */
	size_t npoints;
	struct box bounds;        /* where labels may go */
};

#define LABEL_SIZE 10.0
#define LABEL_TRIES 60

static int box_free(const struct labeller *lb, const struct box *b)
{
	if (b->x0 < lb->bounds.x0 || b->x1 > lb->bounds.x1 || b->y0 < lb->bounds.y0 ||
	    b->y1 > lb->bounds.y1)
		return 0;
	for (size_t i = 0; i < lb->nlabels; i++)
		if (boxes_meet(b, &lb->labels[i]))
			return 0;
	for (size_t i = 0; i < lb->npoints; i++)
		if (boxes_meet(b, &lb->points[i]))
			return 0;
	return 1;
}

/*
 * Label @t of the point at (px, py): the first free place beside it
 * (right then left; just above, then just below), then further up and
 * down, 12 px a step, joined to the point by a thin line.  A label with
 * no free place in the plot goes beside its point.
 */
static void place_label(struct gt_svg *s, struct labeller *lb, double px, double py,
			const char *t)
{
	struct box b = text_box(px + 7, py - 5, LABEL_SIZE, 0, t);
	double x = px + 7, y = py - 5;
	int end = 0, found = 0;

	for (int k = 0; k < 2 * LABEL_TRIES && !found; k++) {
		const double dy = k % 2 ? 13 + 12.0 * (k / 2) : -5 - 12.0 * (k / 2);

		for (int side = 0; side < 2 && !found; side++) {
			const double cx = px + (side ? -7 : 7);
			const struct box c = text_box(cx, py + dy, LABEL_SIZE, side, t);

			if (box_free(lb, &c)) {
				found = 1;
				b = c;
				x = cx;
				y = py + dy;
				end = side;
			}
		}
	}
	if (found && (y < py - 16 || y > py + 14))
		gt_svg_line(s, px, py, end ? b.x1 : b.x0, y - 0.35 * LABEL_SIZE, "#bbb");
	gt_svg_text(s, x, y, LABEL_SIZE, end ? "end" : "start", 0, t);
	lb->labels[lb->nlabels++] = b;
}

/* The names of the scatter points at @xy (@npoints, NaN left out), placed. */
static void draw_labels(struct gt_svg *s, const struct frame *fr, const struct gt_plot *p,
			const double *xy, size_t npoints)
{
	const int legend = p->nseries > 1 || p->series[0].label;
	struct box *mem = malloc(2 * npoints * sizeof(*mem) + 1);
	struct labeller lb = { mem, 0, mem + npoints, npoints,
			       { fr->left + 2, fr->top, legend ? fr->right : fr->w - 4,
				 fr->bottom - 2 } };
	size_t q = 0;

	if (!mem)
		return;
	for (size_t i = 0; i < npoints; i++) {
		const struct box b = { xy[2 * i] - 4, xy[2 * i + 1] - 4, xy[2 * i] + 4,
				       xy[2 * i + 1] + 4 };

		mem[npoints + i] = b;
	}
	gt_svg_group_begin(s, "labels");
	for (size_t i = 0; i < p->nseries; i++)
		for (size_t j = 0; j < p->series[i].n; j++) {
			if (isnan(p->series[i].x[j]) || isnan(p->series[i].y[j]))
				continue;
			if (p->series[i].names)
				place_label(s, &lb, xy[2 * q], xy[2 * q + 1], p->series[i].names[j]);
			q++;
		}
	gt_svg_group_end(s);
	free(mem);
}

/* Every point's pixel position, series after series, NaN left out. */
static double *point_px(const struct frame *fr, const struct gt_plot *p, size_t *n_ret)
{
	size_t n = 0, k = 0;
	double *xy;

	for (size_t i = 0; i < p->nseries; i++)
		n += p->series[i].n;
	xy = malloc(2 * n * sizeof(*xy) + 1);
	for (size_t i = 0; xy && i < p->nseries; i++)
		for (size_t j = 0; j < p->series[i].n; j++) {
			const double x = p->series[i].x[j], y = p->series[i].y[j];

			if (isnan(x) || isnan(y))
				continue;
			xy[2 * k] = axis_px(&fr->x, x);
			xy[2 * k++ + 1] = axis_px(&fr->y, y);
		}
	*n_ret = k;
	return xy;
}

static void draw_points(struct gt_svg *s, const struct frame *fr, const struct gt_plot *p)
{
	size_t n, q = 0, labels = 0;
	double *xy = point_px(fr, p, &n);

	if (p->pareto)
		draw_pareto(s, fr, p);
	for (size_t i = 0; xy && i < p->nseries; i++) {
		const struct gt_plot_series *sr = &p->series[i];
		const size_t first = q;

		for (size_t j = 0; j < sr->n; j++)
			if (!isnan(sr->x[j]) && !isnan(sr->y[j]))
				q++;
		if (p->kind == GT_PLOT_LINES && q - first > 1)
			gt_svg_polyline(s, xy + 2 * first, q - first, gt_svg_color(i), 1.5);
		for (size_t j = 0, k = first; j < sr->n; j++) {
			if (isnan(sr->x[j]) || isnan(sr->y[j]))
				continue;
			gt_svg_circle(s, xy[2 * k], xy[2 * k + 1], p->kind == GT_PLOT_LINES ? 2.5 : 4,
				      gt_svg_color(i), sr->names ? sr->names[j] : NULL);
			k++;
		}
		labels |= sr->names != NULL;
	}
	if (xy && labels && p->kind == GT_PLOT_SCATTER)
		draw_labels(s, fr, p, xy, n);
	free(xy);
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
	fr->top = has_text(p->subtitle) ? (has_text(p->title) ? 66 : 46) :
		  has_text(p->title) ? 50 : 24;
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
