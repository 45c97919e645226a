/* error.c - `gtool error`: reconstruction error and update fidelity of A against B */
#include <argp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "common_opts.h"
#include "../front/msg.h"
#include "util.h"
#include "../engine/gt_pair.h"
#include "../lib/banned.h"

struct error_opts {
	int total_only, missing_ok, update;
	enum gt_dtype dtype, dtype_b;
	const char *a, *b;
	struct gt_common c;      /* the shared options (common_opts.h) */
};

enum { OPT_FORMAT = 0x100, OPT_TOTAL, OPT_DTYPE, OPT_DTYPE_B, OPT_MISSING_OK,
       OPT_UPDATE };

static const struct argp_option options[] = {
	{ "dtype", OPT_DTYPE, "DT",
	  0, "dtype of raw input: f32, f16, bf16 or f64 (default: from the "
	  "extension); applies to B too unless --dtype-b", 0 },
	{ "dtype-b", OPT_DTYPE_B, "DT", 0, "dtype of B when B is raw", 0 },
	{ "missing-ok", OPT_MISSING_OK, NULL, 0,
	  "skip tensors of A that B lacks instead of failing", 0 },
	{ "total", OPT_TOTAL, NULL, 0, "print only the total row", 0 },
	{ "update", OPT_UPDATE, NULL, 0,
	  "update fidelity: apply the optimizer step of trace A once with A's "
	  "gradients and once with B's, and compare the new parameters", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct error_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &error_argp, &o->c); break;
	case OPT_TOTAL: o->total_only = 1; break;
	case OPT_MISSING_OK: o->missing_ok = 1; break;
	case OPT_UPDATE: o->update = 1; break;
	case OPT_DTYPE: o->dtype = gt_argp_dtype(state, arg); break;
	case OPT_DTYPE_B: o->dtype_b = gt_argp_dtype(state, arg); break;
	case ARGP_KEY_ARGS:
		if (state->argc - state->next != 2)
			argp_error(state, "expected two files, A and B");
		o->a = state->argv[state->next];
		o->b = state->argv[state->next + 1];
		if (!strcmp(o->a, "-") && !strcmp(o->b, "-"))
			argp_error(state, "A and B cannot both be standard input");
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

const struct argp error_argp = {
	options, parse_opt, "A B",
	"Compare the floating-point tensors of B (a reconstruction: a "
	"decompressed file, or a .gtz) with those of A (the original), matched "
	"by name; A and B are HDF5, .npy, raw or .gtz files (\"-\" reads "
	"standard input). Per tensor and in total: values, bit-identical "
	"values, NaN and Inf pairs, max absolute and relative error, the range "
	"of A, RMSE, NRMSE, PSNR = 20 log10(range / RMSE) (SZ's convention; "
	"zfp prints 6.02 dB less), SNR, cosine similarity, Pearson correlation "
	"and the compression gain sum B^2 / sum A^2."
	"\vWith --update, A is a trace: each gradient step is applied in "
	"float32, as PyTorch does, with g from A and with g from B, and the "
	"new parameters are compared (identical share, ULPs, relative "
	"difference); pytorch_identical_pct checks gtool's step against the "
	"trace's param_next.",
	children, NULL, NULL
};

/* @if_raw: @dt is --dtype inherited by B, for a raw B only. */
static int open_source(const char *path, enum gt_dtype dt, int if_raw, struct gt_source **ret)
{
	const struct gt_source_opts so = { GT_KIND_AUTO, dt, if_raw };
	struct gt_diag d = { "" };
	const int rc = gt_source_open(path, &so, ret, &d);

	if (rc < 0)
		return gt_error("%s: %s", path, *d.msg ? d.msg : gt_strerror(rc));
	return 0;
}

/* ---- reconstruction error --------------------------------------------- */

static void error_header(struct gt_table *tb)
{
	static const char *const cols[] = {
		"name", "values", "identical", "identical_pct", "nan", "inf",
		"max_abs", "max_rel", "range", "rmse", "nrmse", "psnr", "snr",
		"cosine", "pearson", "gain",
	};

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		gt_table_col(tb, cols[i]);
}

static void error_row(void *arg, const char *name, const struct gt_metric *m)
{
	struct gt_table *tb = arg;
	struct gt_metric_result r;
	const double none = m->n ? 0 : NAN;

	gt_metric_derive(m, &r);
	gt_table_str(tb, name);
	gt_table_uint(tb, m->values);
	gt_table_uint(tb, m->identical);
	gt_table_pct(tb, m->values ? 100.0 * (double)m->identical / (double)m->values : NAN);
	gt_table_uint(tb, m->nan);
	gt_table_uint(tb, m->inf);
	gt_table_num(tb, m->max_abs + none, 6);
	gt_table_num(tb, m->max_rel + none, 6);
	gt_table_num(tb, r.range, 6);
	gt_table_num(tb, r.rmse, 6);
	gt_table_num(tb, r.nrmse, 6);
	gt_table_num(tb, r.psnr, 6);
	gt_table_num(tb, r.snr, 6);
	gt_table_num(tb, r.cosine, 8);
	gt_table_num(tb, r.pearson, 8);
	gt_table_num(tb, r.gain, 8);
}

static int error_tensors(const struct error_opts *o, const struct gt_pair *p,
			 struct gt_table *tb)
{
	struct gt_metric total;
	struct gt_diag d = { "" };

	if (gt_pair_metrics(p, o->total_only ? NULL : error_row, tb, &total, &d) < 0)
		return gt_error("%s", d.msg);
	error_row(tb, "total", &total);
	return 0;
}

/* ---- update fidelity -------------------------------------------------- */

static void update_header(struct gt_table *tb, int with_next)
{
	static const char *const cols[] = {
		"name", "step", "optimizer", "values", "identical", "identical_pct",
		"max_ulp", "max_rel",
	};

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		gt_table_col(tb, cols[i]);
	if (with_next)
		gt_table_col(tb, "pytorch_identical_pct");
}

static void update_cells(struct gt_table *tb, const char *name,
			 const struct gt_trace_step *st, const char *optim,
			 const struct gt_fidelity *f, int with_next)
{
	gt_table_str(tb, name);
	if (st)
		gt_table_int(tb, st->step);
	else
		gt_table_null(tb, NULL);
	gt_table_str(tb, optim);
	gt_table_uint(tb, f->values);
	gt_table_uint(tb, f->identical);
	gt_table_pct(tb, gt_fidelity_pct(f));
	if (f->max_ulp == GT_OPTIM_ULP_NAN)
		gt_table_num(tb, NAN, 6);
	else
		gt_table_uint(tb, f->max_ulp);
	gt_table_num(tb, f->max_rel, 6);
	if (!with_next)
		return;
	if (f->py_values)
		gt_table_pct(tb, 100.0 * (double)f->py_identical / (double)f->py_values);
	else
		gt_table_null(tb, NULL);
}

struct urows {
	struct gt_table *tb;
	int total_only, with_next;
};

static void update_row(void *arg, const struct gt_pair_urow *r, int with_next)
{
	struct urows *u = arg;

	if (!r) {
		update_header(u->tb, with_next);
		u->with_next = with_next;
	} else if (!u->total_only) {
		update_cells(u->tb, r->name, r->step, r->optim, r->f, with_next);
	}
}

static int update_trace(const struct error_opts *o, const struct gt_pair *p,
			struct gt_table *tb)
{
	struct urows u = { tb, o->total_only, 0 };
	struct gt_fidelity total;
	const char *optim;
	struct gt_diag d = { "" };

	if (gt_pair_update(p, update_row, &u, &total, &optim, &d) < 0)
		return gt_error("%s", d.msg);
	update_cells(tb, "total", NULL, optim, &total, u.with_next);
	return 0;
}

/* ---- the command -------------------------------------------------------- */

static int run_error(const struct error_opts *o)
{
	struct gt_source *a = NULL, *b = NULL;
	struct gt_table *tb = gt_table_new(o->c.fmt);
	unsigned char *sel = NULL;
	struct gt_pair p;
	int rc;

	gt_msg_set_quiet(o->c.quiet);
	rc = open_source(o->a, o->dtype, 0, &a);
	if (rc >= 0)
		rc = open_source(o->b, o->dtype_b ? o->dtype_b : o->dtype, !o->dtype_b, &b);
	if (rc < 0)
		goto out;
	sel = xcalloc(gt_source_count(a) + 1, 1);
	rc = gt_select_tensors(a, o->c.datasets, o->c.ndatasets,
			       o->c.verbose ? GT_SKIP_NOTE : GT_SKIP_SILENT, sel);
	if (rc < 0)
		goto out;
	p = (struct gt_pair){ a, b, o->a, o->b, sel, o->missing_ok, o->c.verbose, &gt_msg_notify };
	if (o->update) {
		rc = update_trace(o, &p, tb);
	} else {
		error_header(tb);
		rc = error_tensors(o, &p, tb);
	}
	if (rc < 0)
		goto out;
	if (o->c.fmt == GT_FMT_TABLE && !o->update)
		printf("# PSNR = 20 log10(range / RMSE), range = max - min of A "
		       "(SZ's convention; zfp prints 6.02 dB less)\n");
	gt_table_print(tb, stdout);
out:
	gt_table_free(tb);
	free(sel);
	gt_source_free(a);
	gt_source_free(b);
	return rc;
}

int cmd_error(int argc, char **argv)
{
	struct error_opts o = { 0 };
	int rc;

	o.c.fmt = GT_FMT_TABLE;
	rc = gt_argp_parse(&error_argp, argc, argv, &o);
	if (!rc)
		rc = run_error(&o) < 0;
	gt_common_release(&o.c);
	return rc;
}
