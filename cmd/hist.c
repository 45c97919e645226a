/* hist.c - `gtool hist`: exponent histogram as bars, a table or an SVG chart */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "common_opts.h"
#include "../front/msg.h"
#include "util.h"
#include "../analysis/gt_hist.h"
#include "../analysis/gt_stats.h"
#include "../formats/gt_sink.h"
#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"
#include "../lib/banned.h"

/* Values read per gt_source_read(): the file is streamed, never loaded. */
#define BLOCK ((size_t)1 << 20)

enum hist_by { BY_ALL, BY_STEP, BY_TENSOR };
/* The values of --by, in enum order from BY_STEP (completions list them). */
const char *const hist_by_values[] = { "step", "tensor", NULL };

struct hist_opts {
	enum hist_by by;
	enum gt_dtype dtype;
	const char *svg;
	int log_y, force;
	char **inputs;
	size_t n_inputs;
	struct gt_common c;      /* the shared options (common_opts.h) */
};

enum { OPT_FORMAT = 0x100, OPT_DTYPE, OPT_SVG, OPT_LOG, OPT_BY };

static const struct argp_option options[] = {
	{ "dataset", 'd', "PATTERN", 0,
	  "only datasets matching PATTERN (a path or a glob; repeatable)", 0 },
	{ "by", OPT_BY, "WHAT", 0,
	  "one series per step of a trace (step) or per tensor (tensor)", 0 },
	{ "svg", OPT_SVG, "FILE", 0, "write the chart to FILE as SVG instead", 0 },
	{ "log", OPT_LOG, NULL, 0, "logarithmic y axis in the SVG chart", 0 },
	{ "force", 'f', NULL, 0, "overwrite an existing SVG file", 0 },
	{ "dtype", OPT_DTYPE, "DT",
	  0, "dtype of raw input: f32, f16, bf16 or f64 (default: from the extension)", 0 },
	{ 0 }
};

static void add_pattern(struct hist_opts *o, char *arg)
{
	gt_argp_dataset(&o->c.datasets, &o->c.ndatasets, arg);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct hist_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &hist_argp, &o->c); break;
	case 'd': add_pattern(o, arg); break;
	case OPT_BY:
		o->by = BY_ALL;
		for (int k = BY_STEP; k <= BY_TENSOR; k++)
			if (!strcmp(arg, hist_by_values[k - BY_STEP]))
				o->by = (enum hist_by)k;
		if (o->by == BY_ALL)
			argp_error(state, "invalid --by '%s': expected step or tensor", arg);
		break;
	case OPT_DTYPE:
		o->dtype = gt_argp_dtype(state, arg);
		break;
	case OPT_SVG: o->svg = arg; break;
	case OPT_LOG: o->log_y = 1; break;
	case 'f': o->force = 1; break;
	case ARGP_KEY_ARGS:
		o->inputs = state->argv + state->next;
		o->n_inputs = (size_t)(state->argc - state->next);
		break;
	case ARGP_KEY_NO_ARGS: argp_usage(state); break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_common_fmt_argp, 0, NULL, 0 },
	{ &gt_common_quiet_argp, 0, NULL, 0 },
	{ &gt_common_verbose_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp hist_argp = {
	options, parse_opt, "FILE...",
	"Print the histogram of the exponent fields of the floating-point "
	"tensors of each FILE (HDF5, .npy, .npz, raw or .gtz; \"-\" reads standard "
	"input): for each exponent k present, the count and share of values in "
	"[2^k, 2^(k+1)), zeros and subnormals (field 0) and Inf/NaN as their "
	"own rows, the cumulative share and a bar."
	"\vWithout --by, one histogram over every selected tensor.  With "
	"--by step, one series per step of a trace, over the step's gradients "
	"(or, with -d, over the selected datasets under the step's group).",
	children, NULL, NULL
};

/* A series: a label and its accumulator. */
struct series {
	char *label;
	struct gt_stats *st;
	int used;
};

struct plan {
	struct series *v;
	size_t n;
};

static struct series *series_get(struct plan *p, const char *label)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].label, label))
			return &p->v[i];
	p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	p->v[p->n].label = xstrdup(label);
	p->v[p->n].st = xmalloc(sizeof(struct gt_stats));
	p->v[p->n].used = 0;
	return &p->v[p->n++];
}

static int add_block(void *arg, const void *data, size_t n)
{
	gt_stats_add(arg, data, n);
	return 0;
}

/* Stream tensor @i of @src into @sr (merging when it has data already). */
static int accumulate(struct gt_source *src, size_t i, struct series *sr,
		      void *buf)
{
	const struct gt_tensor_info *t = gt_source_info(src, i);
	struct gt_stats *st = xmalloc(sizeof(*st));
	int rc;

	gt_stats_init(st, t->dtype);
	rc = gt_read_tensor(src, i, buf, BLOCK, add_block, st);
	if (rc >= 0 && sr->used && gt_stats_nbins(sr->st) != gt_stats_nbins(st))
		rc = gt_error("%s: %s: exponent width differs from the other tensors "
			      "of the series; use -d or --by tensor",
			      gt_source_path(src), t->name);
	if (rc >= 0 && sr->used) {
		gt_stats_merge(sr->st, st);
	} else if (rc >= 0) {
		*sr->st = *st;
		sr->used = 1;
	}
	free(st);
	return rc;
}

/* --by step: which step series tensor @i belongs to, or NULL. */
static const struct gt_trace_step *step_of(const struct hist_opts *o,
					   const struct gt_trace *tr, size_t i)
{
	const long k = gt_trace_step_of(tr, i);
	const struct gt_trace_step *s;

	if (k < 0)
		return NULL;
	s = gt_trace_step(tr, (size_t)k);
	if (!o->c.ndatasets) {
		for (size_t g = 0; g < s->n_grads; g++)
			if (s->grads[g] == i)
				return s;
		return NULL;
	}
	return s;
}

static int hist_file(const struct hist_opts *o, const char *path, struct plan *p,
		     void *buf)
{
	const struct gt_source_opts so = { GT_KIND_AUTO, o->dtype, 0 };
	struct gt_source *src = NULL;
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	unsigned char *sel = NULL;
	int rc;

	rc = gt_source_open(path, &so, &src, &d);
	if (rc < 0) {
		rc = gt_error("%s: %s", path, *d.msg ? d.msg : gt_strerror(rc));
		goto out;
	}
	sel = xcalloc(gt_source_count(src) + 1, 1);
	rc = gt_select_tensors(src, o->c.datasets, o->c.ndatasets,
			       o->c.verbose ? GT_SKIP_NOTE : GT_SKIP_SILENT, sel);
	if (rc < 0)
		goto out;
	if (o->by == BY_STEP) {
		if (gt_source_kind(src) == GT_KIND_HDF5)
			rc = gt_trace_open(src, &tr, &d);
		if (rc < 0 || !tr || !gt_trace_nsteps(tr)) {
			rc = gt_error("%s: --by step needs a trace with step groups", path);
			goto out;
		}
	}
	for (size_t i = 0; i < gt_source_count(src); i++) {
		const char *name = gt_source_info(src, i)->name;
		char label[64];
		struct series *sr;

		if (!sel[i])
			continue;
		if (o->by == BY_STEP) {
			const struct gt_trace_step *s = step_of(o, tr, i);

			if (!s)
				continue;
			snprintf(label, sizeof(label), "step %ld", s->step);
			sr = series_get(p, label);
		} else {
			sr = series_get(p, o->by == BY_TENSOR ? name : "all");
		}
		rc = accumulate(src, i, sr, buf);
		if (rc < 0)
			goto out;
	}
out:
	free(sel);
	gt_trace_free(tr);
	gt_source_free(src);
	return rc;
}

static size_t bar_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) &&
	    ws.ws_col > 100)
		return (size_t)ws.ws_col - 50;
	return 50;
}

static int print_rows(const struct hist_opts *o, const struct plan *p)
{
	struct gt_table *tb = gt_table_new(o->c.fmt);
	const int bars = o->c.fmt == GT_FMT_TABLE;
	const size_t width = bar_width();
	char *bar = xmalloc(width + 1);
	int rc = 0;

	if (p->n > 1 || o->by != BY_ALL)
		gt_table_col(tb, "series");
	gt_table_col(tb, "field");
	gt_table_col(tb, "exponent");
	gt_table_col(tb, "count");
	gt_table_col(tb, "pct");
	gt_table_col(tb, "cum_pct");
	if (bars)
		gt_table_col(tb, "bar");
	for (size_t s = 0; s < p->n && rc >= 0; s++) {
		struct gt_hist_row *rows;
		size_t n;
		double maxp = 0;

		rc = gt_hist_rows(p->v[s].st, &rows, &n);
		if (rc < 0) {
			rc = gt_error("%s: %s", p->v[s].label, gt_strerror(rc));
			break;
		}
		for (size_t r = 0; r < n; r++)
			maxp = rows[r].pct > maxp ? rows[r].pct : maxp;
		for (size_t r = 0; r < n; r++) {
			char label[32];
			size_t len = (size_t)(rows[r].pct / maxp * (double)width + 0.5);

			if (p->n > 1 || o->by != BY_ALL)
				gt_table_str(tb, p->v[s].label);
			gt_table_uint(tb, rows[r].field);
			gt_table_str(tb, gt_hist_label(&rows[r], label, sizeof(label)));
			gt_table_uint(tb, rows[r].count);
			gt_table_pct(tb, rows[r].pct);
			gt_table_pct(tb, rows[r].cum_pct);
			if (bars) {
				len = len ? len : 1;
				memset(bar, '#', len);
				bar[len] = '\0';
				gt_table_str(tb, bar);
			}
		}
		free(rows);
	}
	if (rc >= 0)
		gt_table_print(tb, stdout);
	gt_table_free(tb);
	free(bar);
	return rc;
}

static int write_svg(const struct hist_opts *o, const struct plan *p)
{
	struct gt_hist_series *sr = xcalloc(p->n, sizeof(*sr));
	struct gt_hist_svg_opts so = { NULL, o->log_y, 0, 0 };
	char *title = NULL, *svg = NULL;
	struct gt_diag d = { "" };
	size_t len;
	int rc;

	for (size_t i = 0; i < p->n; i++) {
		sr[i].label = p->v[i].label;
		sr[i].stats = p->v[i].st;
	}
	if (asprintf(&title, "Exponent histogram of %s%s", o->inputs[0],
		     o->n_inputs > 1 ? " and more" : "") < 0)
		gt_die("out of memory");
	so.title = title;
	rc = gt_hist_svg(sr, p->n, &so, &svg, &len);
	if (rc < 0)
		rc = gt_error("%s: %s", o->svg, rc == GT_ERR(INVAL)
			      ? "series of different exponent widths cannot share a chart"
			      : gt_strerror(rc));
	else
		rc = gt_write_file(o->svg, o->force, svg, len, &d) < 0
			? gt_error("%s", d.msg) : 0;
	if (rc >= 0 && o->c.verbose)
		fprintf(stderr, "%s: wrote %s (%zu series)\n", gt_msg_prefix(), o->svg, p->n);
	free(svg);
	free(title);
	free(sr);
	return rc;
}

static int run_hist(const struct hist_opts *o)
{
	struct plan p = { NULL, 0 };
	void *buf = xmalloc(BLOCK * 8);
	int rc = 0;

	gt_msg_set_quiet(o->c.quiet);
	for (size_t f = 0; f < o->n_inputs && rc >= 0; f++)
		rc = hist_file(o, o->inputs[f], &p, buf);
	if (rc >= 0 && !p.n)
		rc = gt_error("%s: no floating-point tensor selected", o->inputs[0]);
	if (rc >= 0)
		rc = o->svg ? write_svg(o, &p) : print_rows(o, &p);
	for (size_t i = 0; i < p.n; i++) {
		free(p.v[i].label);
		free(p.v[i].st);
	}
	free(p.v);
	free(buf);
	return rc;
}

int cmd_hist(int argc, char **argv)
{
	struct hist_opts o = { 0 };
	int rc;

	o.c.fmt = GT_FMT_TABLE;
	rc = gt_argp_parse(&hist_argp, argc, argv, &o);
	if (!rc)
		rc = run_hist(&o) < 0;
	gt_common_release(&o.c);
	return rc;
}
