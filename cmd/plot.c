/* plot.c - `gtool plot`: a chart of CSV columns as an SVG file */
#include <argp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "../front/msg.h"
#include "util.h"
#include "../analysis/gt_svg.h"
#include "../formats/gt_sink.h"
#include "../lib/banned.h"

struct plot_opts {
	struct gt_plot p;
	const char *x, *y, *label, *series, *output, *input;
	int force;
};

enum { OPT_KIND = 0x100, OPT_LABEL, OPT_SERIES, OPT_LOGX, OPT_LOGY, OPT_PARETO,
       OPT_TITLE, OPT_SUBTITLE, OPT_XLABEL, OPT_YLABEL };

static const struct argp_option options[] = {
	{ "kind", OPT_KIND, "KIND", 0, "scatter (default), bars or lines", 0 },
	{ "x", 'x', "COLUMN", 0, "x values (bars: the category names)", 0 },
	{ "y", 'y', "COLUMN[,COLUMN...]", 0, "y values: one series per column", 0 },
	{ "series", OPT_SERIES, "COLUMN", 0,
	  "one series per value of COLUMN instead (with one -y column)", 0 },
	{ "label", OPT_LABEL, "COLUMN", 0, "scatter: write COLUMN beside each point", 0 },
	{ "log-x", OPT_LOGX, NULL, 0, "logarithmic x axis (values <= 0 sit on the axis)", 0 },
	{ "log-y", OPT_LOGY, NULL, 0, "logarithmic y axis", 0 },
	{ "pareto", OPT_PARETO, NULL, 0, "scatter: join the points no other beats in x and y", 0 },
	{ "title", OPT_TITLE, "TEXT", 0, "chart title (default: none)", 0 },
	{ "subtitle", OPT_SUBTITLE, "TEXT", 0, "a smaller line under the title", 0 },
	{ "xlabel", OPT_XLABEL, "TEXT", 0, "x axis title (default: the x column)", 0 },
	{ "ylabel", OPT_YLABEL, "TEXT", 0, "y axis title (default: the y column)", 0 },
	{ "output", 'o', "FILE", 0, "the SVG file (default: stdout)", 0 },
	{ "force", 'f', NULL, 0, "overwrite an existing output file", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct plot_opts *o = state->input;

	switch (key) {
	case OPT_KIND:
		if (!strcmp(arg, "scatter"))
			o->p.kind = GT_PLOT_SCATTER;
		else if (!strcmp(arg, "bars"))
			o->p.kind = GT_PLOT_BARS;
		else if (!strcmp(arg, "lines"))
			o->p.kind = GT_PLOT_LINES;
		else
			argp_error(state, "invalid kind '%s': expected scatter, bars or lines", arg);
		break;
	case 'x': o->x = arg; break;
	case 'y': o->y = arg; break;
	case OPT_SERIES: o->series = arg; break;
	case OPT_LABEL: o->label = arg; break;
	case OPT_LOGX: o->p.log_x = 1; break;
	case OPT_LOGY: o->p.log_y = 1; break;
	case OPT_PARETO: o->p.pareto = 1; break;
	case OPT_TITLE: o->p.title = arg; break;
	case OPT_SUBTITLE: o->p.subtitle = arg; break;
	case OPT_XLABEL: o->p.xlabel = arg; break;
	case OPT_YLABEL: o->p.ylabel = arg; break;
	case 'o': o->output = arg; break;
	case 'f': o->force = 1; break;
	case ARGP_KEY_ARG: gt_argp_input(state, &o->input, arg); break;
	case ARGP_KEY_END:
		if (!o->x || !o->y)
			argp_error(state, "-x and -y are required");
		if (o->series && strchr(o->y, ','))
			argp_error(state, "--series takes one -y column");
		if (!o->input)
			o->input = "-";
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp plot_argp = {
	options, parse_opt, "[FILE]",
	"Draw columns of a CSV file with a header line (FILE, or standard "
	"input) as an SVG chart: a scatter plot, grouped bars (one group per "
	"value of -x, one bar per series) or lines.  Cells that are empty or "
	"not numbers are left out.  The CSV of 'gtool compare', 'bench', "
	"'stats' and 'ls' feed it: gtool plot -x rmse -y ratio --label codec "
	"--log-x --pareto cmp.csv -o pareto.svg",
	NULL, NULL, NULL
};

/* ---- CSV ------------------------------------------------------------------ */

struct csv {
	char ***rows;  /* rows[0] is the header */
	size_t nrows, ncols;
};

/* One field at *@p (RFC 4180 quotes); *@p moves past it and its separator. */
static char *field(char **p, int *eol)
{
	char *s = *p, *out = *p, *start = *p;

	if (*s == '"') {
		for (s++; *s; s++) {
			if (*s == '"' && s[1] == '"')
				s++;
			else if (*s == '"')
				break;
			*out++ = *s;
		}
		if (*s == '"')
			s++;
	} else {
		while (*s && *s != ',' && *s != '\n' && *s != '\r')
			*out++ = *s++;
	}
	if (*s == '\r')
		s++;
	*eol = *s != ',';
	*p = *s ? s + 1 : s;
	*out = 0;
	return start;
}

static int parse_csv(char *text, struct csv *c, const char *name)
{
	char *p = text;

	while (*p) {
		char **row = NULL;
		size_t n = 0;
		int eol = 0;

		while (!eol) {
			row = xrealloc(row, (n + 1) * sizeof(*row));
			row[n++] = field(&p, &eol);
		}
		if (n == 1 && !*row[0]) {
			free(row); /* an empty line */
			continue;
		}
		if (!c->nrows)
			c->ncols = n;
		else if (n != c->ncols) {
			free(row);
			return gt_error("%s: line %zu: %zu fields, the header has %zu", name,
					c->nrows + 1, n, c->ncols);
		}
		c->rows = xrealloc(c->rows, (c->nrows + 1) * sizeof(*c->rows));
		c->rows[c->nrows++] = row;
	}
	if (!c->nrows)
		return gt_error("%s: no header line", name);
	return 0;
}

static int column(const struct csv *c, const char *name, const char *file)
{
	for (size_t i = 0; i < c->ncols; i++)
		if (!strcmp(c->rows[0][i], name))
			return (int)i;
	return gt_error("%s: no column '%s'", file, name);
}

static double number(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	return end == s || *end ? NAN : v;
}

/* ---- series --------------------------------------------------------------- */

struct built {
	struct gt_plot_series *sr;
	size_t nsr;
	const char **keys;   /* per series: the --series value or the y column */
	int *ycol;           /* per series */
	const char **cats;
	size_t ncat;
	void **own;          /* the series' arrays, to free */
	size_t nown;
};

static void *owned(struct built *b, void *p)
{
	b->own = xrealloc(b->own, (b->nown + 1) * sizeof(*b->own));
	b->own[b->nown++] = p;
	return p;
}

/* Index of @s in @v[0..*n), appended when absent. */
static size_t intern(const char ***v, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return i;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n] = s;
	return (*n)++;
}

static int series_keys(const struct plot_opts *o, const struct csv *c, struct built *b)
{
	char *ys = xstrdup(o->y), *save = NULL;
	int rc = 0;

	if (o->series) {
		const int si = column(c, o->series, o->input), yi = column(c, o->y, o->input);

		for (size_t r = 1; si >= 0 && yi >= 0 && r < c->nrows; r++)
			intern(&b->keys, &b->nsr, c->rows[r][si]);
		b->ycol = xcalloc(b->nsr + 1, sizeof(*b->ycol));
		for (size_t k = 0; k < b->nsr; k++)
			b->ycol[k] = yi;
		free(ys);
		return si < 0 || yi < 0 ? -1 : 0;
	}
	for (char *p = strtok_r(ys, ",", &save); p && rc >= 0; p = strtok_r(NULL, ",", &save)) {
		const int yi = column(c, p, o->input);
		size_t k;

		if (yi < 0) {
			rc = -1;
			break;
		}
		k = intern(&b->keys, &b->nsr, c->rows[0][yi]);
		b->ycol = xrealloc(b->ycol, b->nsr * sizeof(*b->ycol));
		b->ycol[k] = yi;
	}
	free(ys);
	return rc;
}

/* The values of series @k: from the rows whose --series cell is its key. */
static void fill_series(const struct plot_opts *o, const struct csv *c,
			struct built *b, size_t k, int xi, int li, int si)
{
	struct gt_plot_series *s = &b->sr[k];
	const size_t cap = o->p.kind == GT_PLOT_BARS ? b->ncat : c->nrows;
	double *x = owned(b, xcalloc(cap + 1, sizeof(double)));
	double *y = owned(b, xcalloc(cap + 1, sizeof(double)));
	const char **names = li >= 0 ? owned(b, xcalloc(cap + 1, sizeof(*names))) : NULL;

	for (size_t i = 0; i < cap; i++)
		y[i] = NAN;
	s->n = o->p.kind == GT_PLOT_BARS ? b->ncat : 0;
	for (size_t r = 1; r < c->nrows; r++) {
		char **row = c->rows[r];

		if (si >= 0 && strcmp(row[si], b->keys[k]))
			continue;
		if (o->p.kind == GT_PLOT_BARS) {
			size_t ci = intern(&b->cats, &b->ncat, row[xi]);

			y[ci] = number(row[b->ycol[k]]);
			continue;
		}
		x[s->n] = number(row[xi]);
		y[s->n] = number(row[b->ycol[k]]);
		if (names)
			names[s->n] = row[li];
		s->n++;
	}
	s->label = b->nsr > 1 || o->series ? b->keys[k] : NULL;
	s->x = x;
	s->y = y;
	s->names = names;
}

static int build(const struct plot_opts *o, const struct csv *c, struct built *b)
{
	const int xi = column(c, o->x, o->input);
	const int li = o->label ? column(c, o->label, o->input) : -1;
	const int si = o->series ? column(c, o->series, o->input) : -1;

	if (xi < 0 || (o->label && li < 0) || (o->series && si < 0) ||
	    series_keys(o, c, b) < 0)
		return -1;
	if (o->p.kind == GT_PLOT_BARS)
		for (size_t r = 1; r < c->nrows; r++)
			intern(&b->cats, &b->ncat, c->rows[r][xi]);
	if (c->nrows < 2)
		return gt_error("%s: no data rows", o->input);
	b->sr = xcalloc(b->nsr + 1, sizeof(*b->sr));
	for (size_t k = 0; k < b->nsr; k++)
		fill_series(o, c, b, k, xi, li, si);
	return 0;
}

static void built_release(struct built *b)
{
	for (size_t k = 0; k < b->nown; k++)
		free(b->own[k]);
	free(b->own);
	free(b->sr);
	free(b->keys);
	free(b->ycol);
	free(b->cats);
}

/* ---- the command ---------------------------------------------------------- */

static int read_all(const char *path, char **buf_ret)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f)
		return gt_error_errno("%s", path);
	do {
		if (len + 4096 >= cap) {
			cap = cap ? 2 * cap : 65536;
			buf = xrealloc(buf, cap + 1);
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got);
	if (ferror(f)) {
		free(buf);
		if (f != stdin)
			fclose(f);
		return gt_error_errno("%s", path);
	}
	if (f != stdin)
		fclose(f);
	buf[len] = 0;
	*buf_ret = buf;
	return 0;
}

static int run_plot(struct plot_opts *o)
{
	struct csv c = { NULL, 0, 0 };
	struct built b;
	struct gt_diag d = { "" };
	char *text = NULL, *svg = NULL;
	size_t len;
	int rc;

	memset(&b, 0, sizeof(b));
	rc = read_all(o->input, &text);
	if (rc >= 0)
		rc = parse_csv(text, &c, o->input);
	if (rc >= 0)
		rc = build(o, &c, &b);
	if (rc >= 0) {
		o->p.series = b.sr;
		o->p.nseries = b.nsr;
		o->p.categories = b.cats;
		o->p.ncat = b.ncat;
		o->p.xlabel = o->p.xlabel ? o->p.xlabel : o->x;
		o->p.ylabel = o->p.ylabel ? o->p.ylabel : o->y;
		rc = gt_svg_plot(&o->p, &svg, &len);
		if (rc < 0)
			rc = gt_error("%s: %s", o->input, gt_strerror(rc));
	}
	if (rc >= 0 && gt_write_file(o->output, o->force, svg, len, &d) < 0)
		rc = gt_error("%s", d.msg);
	free(svg);
	built_release(&b);
	for (size_t r = 0; r < c.nrows; r++)
		free(c.rows[r]);
	free(c.rows);
	free(text);
	return rc;
}

int cmd_plot(int argc, char **argv)
{
	struct plot_opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	o.output = "-";
	rc = gt_argp_parse(&plot_argp, argc, argv, &o);
	if (!rc)
		rc = run_plot(&o) < 0;
	return rc;
}
