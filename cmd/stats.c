/* stats.c - `gtool stats`: statistics per tensor and in total */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "common_opts.h"
#include "../front/msg.h"
#include "util.h"
#include "../analysis/gt_stats.h"
#include "../formats/gt_source.h"
#include "../lib/banned.h"

/* Values read per gt_source_read(): the file is streamed, never loaded. */
#define BLOCK ((size_t)1 << 20)

struct stats_opts {
	int total_only;
	enum gt_dtype dtype;
	char **inputs;
	size_t n_inputs;
	struct gt_common c;      /* the shared options (common_opts.h) */
};

enum { OPT_FORMAT = 0x100, OPT_TOTAL, OPT_DTYPE };

static const struct argp_option options[] = {
	{ "total", OPT_TOTAL, NULL, 0, "print only the total row", 0 },
	{ "dtype", OPT_DTYPE, "DT", 0,
	  "dtype of raw input: f32, f16, bf16 or f64 (default: from the extension)", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct stats_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &stats_argp, &o->c); break;
	case OPT_TOTAL: o->total_only = 1; break;
	case OPT_DTYPE:
		o->dtype = gt_argp_dtype(state, arg);
		break;
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
	{ &gt_common_dataset_argp, 0, NULL, 0 },
	{ &gt_common_fmt_argp, 0, NULL, 0 },
	{ &gt_common_quiet_argp, 0, NULL, 0 },
	{ &gt_common_verbose_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp stats_argp = {
	options, parse_opt, "FILE...",
	"Print statistics of the floating-point tensors of each FILE (HDF5, "
	".npy, .npz, raw or .gtz; \"-\" reads standard input): counts of zeros, "
	"subnormals, NaN and Inf, min, max, mean, std and mean |x| of the finite "
	"values, and the exponent statistics that bound a lossless exponent "
	"codec: distinct exponents, entropy H, the share of the 15 most "
	"frequent exponents (OB-1), the sign share and 1 + mantissa bits + H."
	"\vOne row per tensor, then a total row over all of them.",
	children, NULL, NULL
};

static int add_block(void *arg, const void *data, size_t n)
{
	return gt_stats_add(arg, data, n) < 0 ? gt_error("out of memory") : 0;
}

/* Stream tensor @i of @src through a stats accumulator. */
static int accumulate(struct gt_source *src, size_t i, struct gt_stats *st,
		      void *buf)
{
	const struct gt_tensor_info *t = gt_source_info(src, i);

	if (gt_stats_init(st, t->dtype) < 0)
		return gt_error("%s: %s: unsupported dtype", gt_source_path(src), t->name);
	return gt_read_tensor(src, i, buf, BLOCK, add_block, st);
}

static void table_header(struct gt_table *tb)
{
	static const char *const cols[] = {
		"file", "name", "dtype", "values", "zeros", "zeros_pct", "subnormals",
		"nan", "inf", "min", "max", "mean", "std", "mean_abs",
		"distinct_exponents", "entropy", "top15", "sign", "bound_bits",
		"bound_ratio",
	};

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		gt_table_col(tb, cols[i]);
}

static void table_row(struct gt_table *tb, const char *file, const char *name,
		      const struct gt_stats *st)
{
	struct gt_stats_result r;
	const char *dt = !st->mixed ? gt_dtype_name(st->dtype)
				    : st->values ? "mixed" : "";

	gt_stats_derive(st, &r);
	gt_table_str(tb, file);
	gt_table_str(tb, name);
	gt_table_str(tb, dt ? dt : "");
	gt_table_uint(tb, st->values);
	gt_table_uint(tb, st->zeros);
	gt_table_pct(tb, 100.0 * r.zeros_share);
	gt_table_uint(tb, st->subnormals);
	gt_table_uint(tb, st->nan);
	gt_table_uint(tb, st->inf);
	gt_table_num(tb, r.min, 6);
	gt_table_num(tb, r.max, 6);
	gt_table_num(tb, r.mean, 6);
	gt_table_num(tb, r.std, 6);
	gt_table_num(tb, r.mean_abs, 6);
	if (st->mixed)
		gt_table_null(tb, NULL);
	else
		gt_table_uint(tb, r.distinct);
	gt_table_num(tb, r.entropy, 4);
	gt_table_num(tb, r.top15, 4);
	gt_table_num(tb, r.sign, 4);
	gt_table_num(tb, r.bound_bits, 4);
	gt_table_num(tb, r.bound_ratio, 4);
}

/* Rows for every selected tensor of one file, merged into @total. */
static int stats_file(const struct stats_opts *o, const char *path,
		      struct gt_table *tb, struct gt_stats *total, int *have_total,
		      void *buf)
{
	const struct gt_source_opts so = { GT_KIND_AUTO, o->dtype, 0 };
	struct gt_source *src = NULL;
	struct gt_diag d = { "" };
	unsigned char *sel = NULL;
	struct gt_stats *st = xmalloc(sizeof(*st));
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
	for (size_t i = 0; i < gt_source_count(src); i++) {
		if (!sel[i])
			continue;
		rc = accumulate(src, i, st, buf);
		if (rc < 0)
			goto out;
		if (!o->total_only)
			table_row(tb, path, gt_source_info(src, i)->name, st);
		if (*have_total) {
			gt_stats_merge(total, st);
		} else {
			*total = *st;
			*have_total = 1;
		}
	}
out:
	free(sel);
	free(st);
	gt_source_free(src);
	return rc;
}

static int run_stats(const struct stats_opts *o)
{
	struct gt_table *tb = gt_table_new(o->c.fmt);
	struct gt_stats *total = xmalloc(sizeof(*total));
	void *buf = xmalloc(BLOCK * 8);
	int have_total = 0, rc = 0;

	gt_msg_set_quiet(o->c.quiet);
	table_header(tb);
	for (size_t f = 0; f < o->n_inputs && rc >= 0; f++)
		rc = stats_file(o, o->inputs[f], tb, total, &have_total, buf);
	if (rc >= 0) {
		if (!have_total) { /* nothing selected: an empty total */
			gt_stats_init(total, GT_DT_F32);
			total->mixed = 1;
			total->dtype = GT_DT_NONE;
		}
		table_row(tb, o->n_inputs == 1 ? o->inputs[0] : "", "total", total);
		gt_table_print(tb, stdout);
	}
	gt_table_free(tb);
	free(total);
	free(buf);
	return rc;
}

int cmd_stats(int argc, char **argv)
{
	struct stats_opts o = { 0 };
	int rc;

	o.c.fmt = GT_FMT_TABLE;
	rc = gt_argp_parse(&stats_argp, argc, argv, &o);
	if (!rc)
		rc = run_stats(&o) < 0;
	gt_common_release(&o.c);
	return rc;
}
