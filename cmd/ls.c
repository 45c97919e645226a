/* ls.c - `gtool ls`: the tensors of a file, and the steps of a trace */
#include <argp.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "common_opts.h"
#include "../front/msg.h"
#include "util.h"
#include "../formats/gt_gtz.h"
#include "../lib/gt_codec.h"
#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"
#include "../lib/banned.h"

struct ls_opts {
	enum gt_dtype dtype;
	int steps_only, records;
	char **inputs;
	size_t n_inputs;
	struct gt_common c;      /* the shared options (common_opts.h) */
};

enum { OPT_FORMAT = 0x100, OPT_DTYPE, OPT_STEPS, OPT_RECORDS };

static const struct argp_option options[] = {
	{ "steps", OPT_STEPS, NULL, 0,
	  "list only the steps of a trace, with optimizer and hyper-parameters", 0 },
	{ "records", OPT_RECORDS, NULL, 0,
	  "for a .gtz file: every record with its offset and size (the layout of gtool-format(5))", 0 },
	{ "dtype", OPT_DTYPE, "DT", 0,
	  "dtype of raw input: f32, f16, bf16 or f64 (default: from the extension)", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct ls_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &ls_argp, &o->c); break;
	case OPT_DTYPE:
		o->dtype = gt_argp_dtype(state, arg);
		break;
	case OPT_STEPS: o->steps_only = 1; break;
	case OPT_RECORDS: o->records = 1; break;
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
	{ 0 }
};

const struct argp ls_argp = {
	options, parse_opt, "FILE...",
	"List the datasets of each FILE (HDF5, .npy, .npz, raw or .gtz; \"-\" reads "
	"standard input): name, dtype (or the type of a dataset that is not "
	"floating point), shape, values and bytes.  For a trace, also list its "
	"steps with their optimizer and hyper-parameters.  A .gtz file adds how "
	"each tensor is coded; an HDF5 file with filtered datasets adds each "
	"one's filter and its options."
	"\vThe table format prints the datasets, then the steps; the machine "
	"formats print the datasets, or with --steps the steps.",
	children, NULL, NULL
};

/* The shape: [] for a scalar, null when unknown or a null dataspace. */
static void shape_cell(struct gt_table *tb, const struct gt_tensor_info *t)
{
	if (t->count == GT_COUNT_UNKNOWN) {
		gt_table_null(tb, "?");
		return;
	}
	if (!t->rank) {
		if (t->count)
			gt_table_shape(tb, NULL, 0, "scalar");
		else
			gt_table_null(tb, "empty"); /* a null dataspace: no shape at all */
		return;
	}
	gt_table_shape(tb, t->dims, t->rank, NULL);
}

/* Columns of a codec's counters (gcomp: values per level, pruned), as
 * shares of the tensor's values. */
static const char *const *stat_cols(size_t *n)
{
	return gt_codec_stat_names(gt_codec_find("gcomp"), n);
}

static void tensor_cols(struct gt_table *tb, int gtz, int filt, int stats)
{
	static const char *const cols[] = { "file", "name", "dtype", "shape", "values", "bytes" };
	static const char *const gtz_cols[] = {
		"codec", "options", "stored_bytes", "ratio", "blocks", "raw_blocks",
	};

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		gt_table_col(tb, cols[i]);
	for (size_t i = 0; gtz && i < sizeof(gtz_cols) / sizeof(gtz_cols[0]); i++)
		gt_table_col(tb, gtz_cols[i]);
	if (filt) {
		gt_table_col(tb, "filter");
		gt_table_col(tb, "filter_options");
	}
	if (stats) {
		size_t n;
		const char *const *names = stat_cols(&n);

		for (size_t i = 0; i < n; i++) {
			char col[64];

			snprintf(col, sizeof(col), "%s_pct", names[i]);
			gt_table_col(tb, col);
		}
	}
}

/* gcomp's counters of tensor @i, as shares; empty cells for other codecs. */
static int stat_cells(struct gt_table *tb, struct gt_source *src, size_t i,
		      const char *path)
{
	const struct gt_tensor_info *t = gt_source_info(src, i);
	uint64_t counts[GT_CODEC_STATS_MAX] = { 0 };
	struct gt_gtz_meta m;
	struct gt_diag d = { "" };
	size_t n;

	stat_cols(&n);
	if (gt_gtz_source_meta(src, i, &m) < 0 || strcmp(m.codec, "gcomp")) {
		for (size_t k = 0; k < n; k++)
			gt_table_null(tb, NULL);
		return 0;
	}
	if (gt_gtz_source_stats(src, i, counts, &d) < 0)
		return gt_error("%s: %s: %s", path, t->name, d.msg);
	for (size_t k = 0; k < n; k++)
		gt_table_pct(tb, t->count ? 100.0 * (double)counts[k] / (double)t->count : 0.0);
	return 0;
}

static void tensor_row(struct gt_table *tb, const char *file,
		       const struct gt_tensor_info *t)
{
	const char *dt = gt_dtype_name(t->dtype);

	gt_table_str(tb, file);
	gt_table_str(tb, t->name);
	gt_table_str(tb, dt ? dt : t->type_desc ? t->type_desc : "?");
	shape_cell(tb, t);
	if (t->count == GT_COUNT_UNKNOWN) {
		gt_table_null(tb, "?");
		gt_table_null(tb, "?");
	} else {
		gt_table_uint(tb, t->count);
		if (dt)
			gt_table_uint(tb, t->count * gt_dtype_size(t->dtype));
		else
			gt_table_null(tb, NULL);
	}
}

/* How a .gtz stores tensor @i: codec, options, bytes, ratio, blocks. */
static void gtz_cells(struct gt_table *tb, const struct gt_source *src, size_t i)
{
	const struct gt_tensor_info *t = gt_source_info(src, i);
	struct gt_gtz_meta m;

	if (gt_gtz_source_meta(src, i, &m) < 0) {
		for (int k = 0; k < 6; k++)
			gt_table_null(tb, NULL);
		return;
	}
	gt_table_str(tb, m.codec);
	gt_table_str(tb, m.static_table ? "static table" : m.opts);
	gt_table_uint(tb, m.stored_bytes);
	if (t->dtype == GT_DT_NONE)
		gt_table_null(tb, NULL); /* kept whole: its bytes are HDF5's */
	else
		gt_table_num(tb, t->count ? (double)m.stored_bytes /
			     ((double)t->count * gt_dtype_size(t->dtype)) : 0.0, 4);
	gt_table_uint(tb, m.blocks);
	gt_table_uint(tb, m.raw_blocks);
}


static void step_cols(struct gt_table *tb)
{
	gt_table_col(tb, "file");
	gt_table_col(tb, "step");
	gt_table_col(tb, "group");
	gt_table_col(tb, "optimizer");
	gt_table_col(tb, "grads");
	for (size_t h = 0; h < GT_OPTIM_NHP; h++)
		gt_table_col(tb, gt_optim_hps[h].name);
}

static void step_row(struct gt_table *tb, const char *file,
		     const struct gt_trace_step *s)
{
	const char *opt = gt_optim_name(s->optim.kind);

	gt_table_str(tb, file);
	gt_table_int(tb, s->step);
	gt_table_str(tb, s->group);
	gt_table_str(tb, opt && s->optim.kind != GT_OPT_NONE ? opt : "");
	gt_table_uint(tb, s->n_grads);
	for (size_t h = 0; h < GT_OPTIM_NHP; h++) {
		if (s->optim.have & gt_optim_hps[h].bit)
			gt_table_num(tb, gt_optim_hp_get(&s->optim, &gt_optim_hps[h]), 6);
		else
			gt_table_null(tb, NULL);
	}
}

/* How an HDF5 file stores tensor @i: its filters and their options. */
static void filter_cells(struct gt_table *tb, const struct gt_source *src, size_t i)
{
	char name[128], opts[256];

	gt_source_filters(src, i, name, sizeof(name), opts, sizeof(opts));
	gt_table_str(tb, name);
	gt_table_str(tb, opts);
}

/* 1 when a dataset of @src has a filter: ls adds the filter columns. */
static int any_filter(const struct gt_source *src)
{
	char name[8], opts[8];

	for (size_t i = 0; i < gt_source_count(src); i++)
		if (gt_source_filters(src, i, name, sizeof(name), opts, sizeof(opts)) > 0)
			return 1;
	return 0;
}

static int ls_file(struct gt_source *src, const char *path, struct gt_table *files,
		   struct gt_table *steps, size_t *nsteps, const int cols[3])
{
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	int rc = 0;

	for (size_t i = 0; i < gt_source_count(src) && rc >= 0; i++) {
		tensor_row(files, path, gt_source_info(src, i));
		if (cols[0])
			gtz_cells(files, src, i);
		if (cols[1])
			filter_cells(files, src, i);
		if (cols[2])
			rc = stat_cells(files, src, i, path);
	}
	if (gt_source_ngroups(src)) {
		rc = gt_trace_open(src, &tr, &d);
		if (rc < 0)
			rc = gt_error("%s: %s", path, *d.msg ? d.msg : gt_strerror(rc));
		for (size_t s = 0; rc >= 0 && s < gt_trace_nsteps(tr); s++)
			step_row(steps, path, gt_trace_step(tr, s));
		*nsteps += rc >= 0 ? gt_trace_nsteps(tr) : 0;
	}
	gt_trace_free(tr);
	return rc;
}

static void record_row(struct gt_table *tb, const char *file, const struct gt_gtz_record *r,
		       const char *what, const char *name, long long block)
{
	gt_table_str(tb, file);
	gt_table_uint(tb, r->offset);
	gt_table_str(tb, what);
	gt_table_uint(tb, r->bytes);
	gt_table_uint(tb, r->payload_offset);
	gt_table_uint(tb, r->payload_bytes);
	gt_table_str(tb, name);
	if (block >= 0)
		gt_table_int(tb, block);
	else
		gt_table_null(tb, NULL);
}

/* One row per record of a .gtz file, read without decoding. */
static int records_file(const char *path, struct gt_table *tb)
{
	FILE *f = fopen(path, "rb");
	struct gt_gtz_reader *r = NULL;
	enum gt_gtz_event ev = GT_GTZ_DATA;
	struct gt_diag d = { "" };
	long long block = 0;
	int rc;

	if (!f)
		return gt_error_errno("%s", path);
	rc = gt_gtz_reader_open(f, 1, &r, &d);
	if (rc >= 0)
		gt_gtz_reader_skip_payloads(r, 1);
	while (rc >= 0 && ev != GT_GTZ_EOF) {
		struct gt_gtz_record rec;

		rc = gt_gtz_next(r, &ev, &d);
		if (rc < 0)
			break;
		gt_gtz_last_record(r, &rec);
		switch (ev) {
		case GT_GTZ_GROUP: record_row(tb, path, &rec, "group", gt_gtz_group(r)->name, -1); break;
		case GT_GTZ_TENSOR:
			block = 0;
			record_row(tb, path, &rec, "tensor", gt_gtz_tensor(r)->info.name, -1);
			break;
		case GT_GTZ_DATA:
			record_row(tb, path, &rec, "block", gt_gtz_tensor(r)->info.name, block++);
			break;
		case GT_GTZ_TENSOR_END: record_row(tb, path, &rec, "end", gt_gtz_tensor(r)->info.name, -1); break;
		case GT_GTZ_OBJECT:
			record_row(tb, path, &rec, gt_gtz_object(r)->kind == GT_OBJ_DATASET
				   ? "dataset" : "link", gt_gtz_object(r)->name, -1);
			break;
		case GT_GTZ_EOF: {
			struct gt_gtz_record idx = rec;

			idx.offset = rec.index_offset;
			idx.bytes = rec.offset - rec.index_offset;
			record_row(tb, path, &idx, "index", "", -1);
			record_row(tb, path, &rec, "trailer", "", -1);
			break;
		}
		}
	}
	if (rc < 0)
		rc = gt_error("%s: %s", path, d.msg);
	gt_gtz_reader_free(r);
	fclose(f);
	return rc;
}

static int run_records(const struct ls_opts *o)
{
	static const char *const cols[] = { "file", "offset", "record", "bytes",
		"payload_offset", "payload_bytes", "name", "block" };
	struct gt_table *tb = gt_table_new(o->c.fmt);
	int rc = 0;

	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		gt_table_col(tb, cols[c]);
	for (size_t f = 0; f < o->n_inputs && rc >= 0; f++)
		rc = records_file(o->inputs[f], tb);
	if (rc >= 0)
		gt_table_print(tb, stdout);
	gt_table_free(tb);
	return rc;
}

static int run_ls(const struct ls_opts *o)
{
	const struct gt_source_opts so = { GT_KIND_AUTO, o->dtype, 0 };
	struct gt_table *files = gt_table_new(o->c.fmt), *steps = gt_table_new(o->c.fmt);
	struct gt_source **src = xcalloc(o->n_inputs, sizeof(*src));
	struct gt_diag d = { "" };
	size_t nsteps = 0;
	int rc = 0, cols[3] = { 0 }; /* gtz, filter and gcomp stats columns */

	/* open every file first: a .gtz among them adds the codec columns,
	 * a gcomp tensor its level shares */
	for (size_t f = 0; f < o->n_inputs && rc >= 0; f++) {
		if (gt_source_open(o->inputs[f], &so, &src[f], &d) < 0) {
			rc = gt_error("%s: %s", o->inputs[f], d.msg);
			continue;
		}
		cols[0] |= gt_source_kind(src[f]) == GT_KIND_GTZ;
		cols[1] |= any_filter(src[f]);
		for (size_t i = 0; i < gt_source_count(src[f]); i++) {
			struct gt_gtz_meta m;

			cols[2] |= gt_gtz_source_meta(src[f], i, &m) >= 0 && !strcmp(m.codec, "gcomp");
		}
	}
	tensor_cols(files, cols[0], cols[1], cols[2]);
	step_cols(steps);
	for (size_t f = 0; f < o->n_inputs && rc >= 0; f++)
		rc = ls_file(src[f], o->inputs[f], files, steps, &nsteps, cols);
	if (rc >= 0) {
		if (o->steps_only) {
			gt_table_print(steps, stdout);
		} else {
			gt_table_print(files, stdout);
			if (o->c.fmt == GT_FMT_TABLE && nsteps) {
				fputc('\n', stdout);
				gt_table_print(steps, stdout);
			}
		}
	}
	for (size_t f = 0; f < o->n_inputs; f++)
		gt_source_free(src[f]);
	free(src);
	gt_table_free(files);
	gt_table_free(steps);
	return rc;
}

int cmd_ls(int argc, char **argv)
{
	struct ls_opts o = { 0 };
	int rc;

	o.c.fmt = GT_FMT_TABLE;
	rc = gt_argp_parse(&ls_argp, argc, argv, &o);
	if (!rc)
		rc = (o.records ? run_records(&o) : run_ls(&o)) < 0;
	return rc;
}
