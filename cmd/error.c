/* error.c - `gtool error`: reconstruction error and update fidelity of A against B */
#include <argp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "msg.h"
#include "util.h"
#include "../analysis/gt_metric.h"
#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"
#include "../lib/gt_optim.h"
#include "../lib/banned.h"

/* Values per read: both files are streamed side by side, never loaded. */
#define BLOCK GT_READ_VALUES
/* Values per optimizer step in --update (eight float arrays of this size). */
#define UBLOCK ((size_t)1 << 18)

struct error_opts {
	char **datasets;
	size_t n_datasets;
	int total_only, missing_ok, update;
	enum gt_fmt fmt;
	enum gt_dtype dtype, dtype_b;
	int quiet, verbose;
	const char *a, *b;
};

enum { OPT_FORMAT = 0x100, OPT_TOTAL, OPT_DTYPE, OPT_DTYPE_B, OPT_MISSING_OK,
       OPT_UPDATE };

static const struct argp_option options[] = {
	{ "dataset", 'd', "PATTERN", 0,
	  "only datasets of A matching PATTERN (a path or a glob; repeatable)", 0 },
	{ "dtype", OPT_DTYPE, "DT",
	  0, "dtype of raw input: f32, f16, bf16 or f64 (default: from the "
	  "extension); applies to B too unless --dtype-b", 0 },
	{ "dtype-b", OPT_DTYPE_B, "DT", 0, "dtype of B when B is raw", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "output format: table, csv, tsv or json", 0 },
	{ "missing-ok", OPT_MISSING_OK, NULL, 0,
	  "skip tensors of A that B lacks instead of failing", 0 },
	{ "quiet", 'q', NULL, 0, "print no warnings", 0 },
	{ "total", OPT_TOTAL, NULL, 0, "print only the total row", 0 },
	{ "update", OPT_UPDATE, NULL, 0,
	  "update fidelity: apply the optimizer step of trace A once with A's "
	  "gradients and once with B's, and compare the new parameters", 0 },
	{ "verbose", 'v', NULL, 0, "say which datasets are skipped", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct error_opts *o = state->input;

	switch (key) {
	case 'd':
		o->datasets = xrealloc(o->datasets, (o->n_datasets + 1) * sizeof(*o->datasets));
		o->datasets[o->n_datasets++] = arg;
		break;
	case OPT_TOTAL: o->total_only = 1; break;
	case OPT_MISSING_OK: o->missing_ok = 1; break;
	case OPT_UPDATE: o->update = 1; break;
	case OPT_FORMAT:
		o->fmt = gt_argp_fmt(state, arg, 0);
		break;
	case OPT_DTYPE: o->dtype = gt_argp_dtype(state, arg); break;
	case OPT_DTYPE_B: o->dtype_b = gt_argp_dtype(state, arg); break;
	case 'q': o->quiet = 1; break;
	case 'v': o->verbose = 1; break;
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
	NULL, NULL, NULL
};

/* ---- opening and matching --------------------------------------------- */

static int open_source(const char *path, enum gt_dtype dt, struct gt_source **ret)
{
	const struct gt_source_opts so = { GT_KIND_AUTO, dt };
	struct gt_diag d = { "" };
	const int rc = gt_source_open(path, &so, ret, &d);

	if (rc < 0)
		return gt_error("%s: %s", path, *d.msg ? d.msg : gt_strerror(rc));
	return 0;
}

static int single_array(const struct gt_source *s)
{
	const enum gt_kind k = gt_source_kind(s);

	return gt_source_count(s) == 1 && (k == GT_KIND_RAW || k == GT_KIND_NPY);
}

/*
 * B's tensor for tensor @i of A: the same name, or the only tensor when
 * both files hold one and either is a raw or .npy array (whose names are
 * file names).  Returns 1 and *@j, 0 when skipped (--missing-ok), -1.
 */
static int match(const struct error_opts *o, const struct gt_source *a, size_t i,
		 const struct gt_source *b, size_t *j)
{
	const struct gt_tensor_info *ta = gt_source_info(a, i), *tb;

	if (gt_source_count(a) == 1 && gt_source_count(b) == 1 &&
	    (single_array(a) || single_array(b))) {
		*j = 0;
	} else if (gt_source_find(b, ta->name, j) < 0) {
		if (!o->missing_ok)
			return gt_error("%s: dataset %s not found", o->b, ta->name);
		if (o->verbose)
			fprintf(stderr, "%s: %s: skipping %s (not in B)\n",
				gt_msg_prefix(), o->b, ta->name);
		return 0;
	}
	tb = gt_source_info(b, *j);
	if (tb->dtype == GT_DT_NONE)
		return gt_error("%s: dataset %s is %s, not floating point", o->b,
				tb->name, tb->type_desc);
	if (ta->count != GT_COUNT_UNKNOWN && tb->count != GT_COUNT_UNKNOWN &&
	    ta->count != tb->count)
		return gt_error("%s: %s: %llu values in A, %llu in B", o->b, ta->name,
				(unsigned long long)ta->count,
				(unsigned long long)tb->count);
	return 1;
}

static int read_block(struct gt_source *s, size_t i, uint64_t first, size_t n,
		      void *buf, size_t *got)
{
	struct gt_diag d = { "" };

	if (gt_source_read(s, i, first, n, buf, got, &d) < 0)
		return gt_error("%s: %s", gt_source_path(s), d.msg);
	return 0;
}

/* ---- reconstruction error --------------------------------------------- */

struct bufs {
	void *a, *b;
};

/* Stream tensor @i of A and @j of B side by side into @m. */
static int accumulate(const struct error_opts *o, struct gt_source *a, size_t i,
		      struct gt_source *b, size_t j, struct gt_metric *m,
		      const struct bufs *buf)
{
	const enum gt_dtype da = gt_source_info(a, i)->dtype;
	const enum gt_dtype db = gt_source_info(b, j)->dtype;
	uint64_t ta = 0, tb = 0;
	int end_a = 0, end_b = 0, differ = 0;

	gt_metric_init(m);
	while (!end_a || !end_b) {
		size_t na = 0, nb = 0;

		if (!end_a && read_block(a, i, ta, BLOCK, buf->a, &na) < 0)
			return -1;
		if (!end_b && read_block(b, j, tb, BLOCK, buf->b, &nb) < 0)
			return -1;
		end_a |= !na;
		end_b |= !nb;
		differ |= na != nb;
		if (!differ && na)
			gt_metric_add(m, buf->a, da, buf->b, db, na);
		ta += na;
		tb += nb;
	}
	if (differ) /* a pipe whose length was not known in advance */
		return gt_error("%s: %s: %llu values in A, %llu in B", o->b,
				gt_source_info(a, i)->name, (unsigned long long)ta,
				(unsigned long long)tb);
	return 0;
}

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

static void error_row(struct gt_table *tb, const char *name, const struct gt_metric *m)
{
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

static int error_tensors(const struct error_opts *o, struct gt_source *a,
			 struct gt_source *b, const unsigned char *sel,
			 struct gt_table *tb)
{
	struct gt_metric m, total;
	const struct bufs buf = { xmalloc(BLOCK * 8), xmalloc(BLOCK * 8) };
	int rc = 0;

	gt_metric_init(&total);
	for (size_t i = 0; i < gt_source_count(a) && rc >= 0; i++) {
		size_t j;

		if (!sel[i])
			continue;
		rc = match(o, a, i, b, &j);
		if (rc <= 0)
			continue;
		rc = accumulate(o, a, i, b, j, &m, &buf);
		if (rc < 0)
			break;
		if (!o->total_only)
			error_row(tb, gt_source_info(a, i)->name, &m);
		gt_metric_merge(&total, &m);
	}
	if (rc >= 0)
		error_row(tb, "total", &total);
	free(buf.a);
	free(buf.b);
	return rc < 0 ? -1 : 0;
}

/* ---- update fidelity -------------------------------------------------- */

/* Sums of one row of --update, and of the total. */
struct fidelity {
	uint64_t values, identical, max_ulp;
	double max_rel;
	uint64_t py_values, py_identical; /* against param_next, where present */
};

/* Source indexes of what one gradient's step needs; -1: absent. */
struct step_io {
	struct gt_source *src[7];
	long idx[7];
};
enum { IO_G, IO_GHAT, IO_PARAM, IO_S0, IO_S1, IO_NEXT, IO_N };

struct ubufs {
	float *v[IO_N];
	float *out_g, *out_ghat;
	void *scratch;
};

/* Read @n float32 values of tensor @idx into @dst, converting other dtypes. */
static int read_f32(struct gt_source *s, size_t idx, uint64_t first, size_t n,
		    float *dst, void *scratch)
{
	const enum gt_dtype dt = gt_source_info(s, idx)->dtype;
	size_t got = 0;

	if (read_block(s, idx, first, n, dt == GT_DT_F32 ? (void *)dst : scratch, &got) < 0)
		return -1;
	if (got != n)
		return gt_error("%s: %s: unexpected end of data", gt_source_path(s),
				gt_source_info(s, idx)->name);
	if (dt != GT_DT_F32)
		for (size_t k = 0; k < n; k++)
			dst[k] = (float)gt_fp_get(scratch, dt, k);
	return 0;
}

static void fidelity_add(struct fidelity *f, const struct fidelity *x)
{
	f->values += x->values;
	f->identical += x->identical;
	f->max_ulp = x->max_ulp > f->max_ulp ? x->max_ulp : f->max_ulp;
	f->max_rel = x->max_rel > f->max_rel ? x->max_rel : f->max_rel;
	f->py_values += x->py_values;
	f->py_identical += x->py_identical;
}

/* Apply the step of @st with g and with ĝ over @n values, block by block. */
static int run_steps(const struct gt_trace_step *st, const struct step_io *io,
		     uint64_t n, const struct ubufs *u, struct fidelity *f)
{
	memset(f, 0, sizeof(*f));
	for (uint64_t first = 0; first < n; first += UBLOCK) {
		const size_t len = n - first < UBLOCK ? (size_t)(n - first) : UBLOCK;
		struct fidelity x = { len, 0, 0, 0, 0, 0 };
		const float *s0, *s1;
		int rc;

		for (int r = 0; r < IO_N; r++)
			if (io->idx[r] >= 0 &&
			    read_f32(io->src[r], (size_t)io->idx[r], first, len,
				     u->v[r], u->scratch) < 0)
				return -1;
		s0 = io->idx[IO_S0] >= 0 ? u->v[IO_S0] : NULL;
		s1 = io->idx[IO_S1] >= 0 ? u->v[IO_S1] : NULL;
		rc = gt_optim_step(&st->optim, len, u->v[IO_G], u->v[IO_PARAM], s0, s1,
				   u->out_g, NULL, NULL);
		if (rc >= 0)
			rc = gt_optim_step(&st->optim, len, u->v[IO_GHAT], u->v[IO_PARAM],
					   s0, s1, u->out_ghat, NULL, NULL);
		if (rc < 0)
			return gt_error("%s: step %s: %s", gt_source_path(io->src[IO_G]),
					st->group, gt_strerror(rc));
		gt_optim_compare(len, u->out_g, u->out_ghat, &x.identical, &x.max_ulp,
				 &x.max_rel);
		if (io->idx[IO_NEXT] >= 0) {
			x.py_values = len;
			gt_optim_compare(len, u->v[IO_NEXT], u->out_g, &x.py_identical,
					 NULL, NULL);
		}
		fidelity_add(f, &x);
	}
	return 0;
}

/* A's tensor @role (@buf: state buffer) of gradient @name, checked for size. */
static int find_role(const struct error_opts *o, const struct gt_trace *tr,
		     size_t k, enum gt_role role, const char *buf, const char *name,
		     uint64_t n, int required, struct gt_source *a, long *idx)
{
	struct gt_diag d = { "" };
	const struct gt_tensor_info *t;
	size_t i;

	*idx = -1;
	if (gt_trace_find(tr, k, role, buf, name, &i, &d) < 0)
		return required ? gt_error("%s: %s", o->a, d.msg) : 0;
	t = gt_source_info(a, i);
	if (t->dtype == GT_DT_NONE)
		return gt_error("%s: dataset %s is %s, not floating point", o->a,
				t->name, t->type_desc);
	if (t->count != n)
		return gt_error("%s: %s: %llu values, the gradient has %llu", o->a,
				t->name, (unsigned long long)t->count,
				(unsigned long long)n);
	*idx = (long)i;
	return 0;
}

/* Everything the step of gradient @gi (of step @k) reads; 0 = skipped. */
static int step_inputs(const struct error_opts *o, const struct gt_trace *tr,
		       size_t k, size_t gi, struct gt_source *a,
		       struct gt_source *b, struct step_io *io)
{
	const struct gt_trace_step *st = gt_trace_step(tr, k);
	const struct gt_tensor_info *g = gt_source_info(a, gi);
	const char *name = gt_trace_param_name(g->name);
	size_t j;
	int rc;

	for (int r = 0; r < IO_N; r++) {
		io->src[r] = r == IO_GHAT ? b : a;
		io->idx[r] = -1;
	}
	io->idx[IO_G] = (long)gi;
	rc = match(o, a, gi, b, &j);
	if (rc <= 0)
		return rc;
	io->idx[IO_GHAT] = (long)j;
	if (find_role(o, tr, k, GT_ROLE_PARAM, NULL, name, g->count, 1, a,
		      &io->idx[IO_PARAM]) < 0 ||
	    find_role(o, tr, k, GT_ROLE_PARAM_NEXT, NULL, name, g->count, 0, a,
		      &io->idx[IO_NEXT]) < 0)
		return -1;
	/* a missing buffer is PyTorch's state before its first step */
	for (int s = 0; s < gt_optim_nstates(st->optim.kind); s++)
		if (find_role(o, tr, k, GT_ROLE_STATE,
			      gt_optim_state_name(st->optim.kind, s), name,
			      g->count, 0, a, &io->idx[IO_S0 + s]) < 0)
			return -1;
	return 1;
}

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

static void update_row(struct gt_table *tb, const char *name,
		       const struct gt_trace_step *st, const char *optim,
		       const struct fidelity *f, int with_next)
{
	gt_table_str(tb, name);
	if (st)
		gt_table_int(tb, st->step);
	else
		gt_table_str(tb, "");
	gt_table_str(tb, optim);
	gt_table_uint(tb, f->values);
	gt_table_uint(tb, f->identical);
	gt_table_pct(tb, f->values ? 100.0 * (double)f->identical / (double)f->values : NAN);
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
		gt_table_str(tb, "");
}

/* Whether any selected gradient of @tr has a param_next: the self-check column. */
static int any_next(const struct gt_trace *tr, const struct gt_source *a,
		    const unsigned char *sel)
{
	for (size_t k = 0; k < gt_trace_nsteps(tr); k++) {
		const struct gt_trace_step *st = gt_trace_step(tr, k);

		for (size_t g = 0; g < st->n_grads; g++) {
			const char *name = gt_source_info(a, st->grads[g])->name;
			size_t i;

			if (sel[st->grads[g]] &&
			    !gt_trace_find(tr, k, GT_ROLE_PARAM_NEXT, NULL,
					   gt_trace_param_name(name), &i, NULL))
				return 1;
		}
	}
	return 0;
}

static void ubufs_init(struct ubufs *u)
{
	for (int r = 0; r < IO_N; r++)
		u->v[r] = xmalloc(UBLOCK * sizeof(float));
	u->out_g = xmalloc(UBLOCK * sizeof(float));
	u->out_ghat = xmalloc(UBLOCK * sizeof(float));
	u->scratch = xmalloc(UBLOCK * 8);
}

static void ubufs_release(struct ubufs *u)
{
	for (int r = 0; r < IO_N; r++)
		free(u->v[r]);
	free(u->out_g);
	free(u->out_ghat);
	free(u->scratch);
}

/* The rows of step @k; a step's attributes are checked at its first gradient. */
static int update_step(const struct error_opts *o, const struct gt_trace *tr,
		       size_t k, struct gt_source *a, struct gt_source *b,
		       const unsigned char *sel, const struct ubufs *u,
		       struct gt_table *tb, int with_next, struct fidelity *total,
		       const char **optim)
{
	const struct gt_trace_step *st = gt_trace_step(tr, k);
	const char *name = gt_optim_name(st->optim.kind);
	int checked = 0;

	for (size_t g = 0; g < st->n_grads; g++) {
		struct step_io io;
		struct fidelity f;
		int rc;

		if (!sel[st->grads[g]])
			continue;
		if (!checked++) {
			char where[256];
			struct gt_diag d = { "" };

			snprintf(where, sizeof(where), "step %s", st->group);
			if (gt_optim_check(&st->optim, where, &d) < 0)
				return gt_error("%s: %s", o->a, d.msg);
			if (*optim && strcmp(*optim, name ? name : ""))
				*optim = ""; /* the total of several optimizers */
			else if (!*optim)
				*optim = name ? name : "";
		}
		rc = step_inputs(o, tr, k, st->grads[g], a, b, &io);
		if (rc < 0)
			return -1;
		if (!rc)
			continue; /* not in B, --missing-ok */
		if (run_steps(st, &io, gt_source_info(a, st->grads[g])->count, u, &f) < 0)
			return -1;
		if (!o->total_only)
			update_row(tb, gt_source_info(a, st->grads[g])->name, st,
				   name ? name : "", &f, with_next);
		fidelity_add(total, &f);
	}
	return 0;
}

static int update_trace(const struct error_opts *o, struct gt_source *a,
			struct gt_source *b, const unsigned char *sel,
			struct gt_table *tb)
{
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	struct fidelity total = { 0, 0, 0, 0, 0, 0 };
	const char *optim = NULL;
	struct ubufs u;
	int with_next, rc = 0;

	if (gt_source_kind(a) != GT_KIND_HDF5)
		return gt_error("%s: --update needs a trace with optimizer attributes", o->a);
	if (gt_trace_open(a, &tr, &d) < 0)
		return gt_error("%s: %s", o->a, d.msg);
	if (!gt_trace_nsteps(tr)) {
		gt_trace_free(tr);
		return gt_error("%s: --update needs a trace with optimizer attributes", o->a);
	}
	with_next = any_next(tr, a, sel);
	update_header(tb, with_next);
	ubufs_init(&u);
	for (size_t k = 0; k < gt_trace_nsteps(tr) && rc >= 0; k++)
		rc = update_step(o, tr, k, a, b, sel, &u, tb, with_next, &total, &optim);
	if (rc >= 0)
		update_row(tb, "total", NULL, optim ? optim : "", &total, with_next);
	ubufs_release(&u);
	gt_trace_free(tr);
	return rc;
}

/* ---- the command -------------------------------------------------------- */

static int run_error(const struct error_opts *o)
{
	struct gt_source *a = NULL, *b = NULL;
	struct gt_table *tb = gt_table_new(o->fmt);
	unsigned char *sel = NULL;
	int rc;

	gt_msg_set_quiet(o->quiet);
	rc = open_source(o->a, o->dtype, &a);
	if (rc >= 0)
		rc = open_source(o->b, o->dtype_b ? o->dtype_b : o->dtype, &b);
	if (rc < 0)
		goto out;
	sel = xcalloc(gt_source_count(a) + 1, 1);
	rc = gt_select_tensors(a, o->datasets, o->n_datasets,
			       o->verbose ? GT_SKIP_NOTE : GT_SKIP_SILENT, sel);
	if (rc < 0)
		goto out;
	if (o->update) {
		rc = update_trace(o, a, b, sel, tb);
	} else {
		error_header(tb);
		rc = error_tensors(o, a, b, sel, tb);
	}
	if (rc < 0)
		goto out;
	if (o->fmt == GT_FMT_TABLE && !o->update)
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

	o.fmt = GT_FMT_TABLE;
	rc = gt_argp_parse(&error_argp, argc, argv, &o);
	if (!rc)
		rc = run_error(&o) < 0;
	free(o.datasets);
	return rc;
}
