/* compare.c - `gtool compare`: every codec on one file, one row each */
#include <argp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "common_opts.h"
#include "../front/msg.h"
#include "util.h"
#include "../analysis/gt_bench.h"
#include "../engine/gt_memload.h"
#include "../engine/gt_pair.h"
#include "../engine/gt_pack.h"
#include "../lib/banned.h"

struct compare_opts {
	struct gt_speclist specs;
	const char *sort;
	unsigned threads;
	long repeat;
	int grads_only;
	struct gt_common c;      /* input, --dtype, -q; --format here knows markdown */
};

enum { OPT_FORMAT = 0x100, OPT_SORT, OPT_REPEAT, OPT_GRADS_ONLY };

static const struct argp_option options[] = {
	{ "codecs", 'c', "LIST", 0,
	  "codec specs, comma-separated (default: the list in gtool-compare(1)); repeatable", 0 },
	{ "sort", OPT_SORT, "COLUMN", 0, "sort the rows by COLUMN (best first)", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "output format: table, csv, tsv, json or markdown", 0 },
	{ "threads", 'T', "N", 0, "worker threads (default and 0: all cores)", 0 },
	{ "repeat", OPT_REPEAT, "N", 0, "timed runs for the MB/s columns, median (default 3)", 0 },
	{ "grads-only", OPT_GRADS_ONLY, NULL, 0,
	  "on a trace: only the gradients, in the sizes, speeds and errors", 0 },
	{ 0 }
};

/* The numeric columns, in order; @desc: larger is better (sorted first). */
static const struct { const char *name; int desc; } numcols[] = {
	{ "values", 0 }, { "bytes", 0 }, { "gtz_bytes", 0 }, { "ratio", 0 },
	{ "bits_per_value", 0 }, { "compress_mbps", 1 }, { "decompress_mbps", 1 },
	{ "max_abs", 0 }, { "rmse", 0 }, { "psnr", 1 }, { "cosine", 1 }, { "gain", 0 },
	{ "update_identical_pct", 1 }, { "update_max_ulp", 0 },
};
#define NNUM (sizeof(numcols) / sizeof(numcols[0]))
#define NUPDATE 2 /* the last columns, on a trace only */

static int sort_column(const char *s)
{
	if (!strcmp(s, "codec") || !strcmp(s, "options") || !strcmp(s, "spec") ||
	    !strcmp(s, "lossless"))
		return -1;
	for (size_t i = 0; i < NNUM; i++)
		if (!strcmp(s, numcols[i].name))
			return (int)i;
	return -2;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct compare_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &compare_argp, &o->c); break;
	case 'c':
		if (gt_speclist_add(&o->specs, arg) < 0)
			gt_die("out of memory");
		break;
	case OPT_SORT:
		if (sort_column(arg) == -2)
			argp_error(state, "invalid sort column '%s'; see gtool-compare(1)", arg);
		o->sort = arg;
		break;
	case OPT_FORMAT: o->c.fmt = gt_argp_fmt(state, arg, 1); break;
	case 'T':
		if (gt_parse_threads(arg, &o->threads) < 0)
			argp_error(state, "invalid thread count '%s'", arg);
		break;
	case OPT_REPEAT:
		if (gt_parse_int(arg, 1, 100000, &o->repeat) < 0)
			argp_error(state, "invalid repeat count '%s'", arg);
		break;
	case OPT_GRADS_ONLY: o->grads_only = 1; break;
	case ARGP_KEY_END:
		if (!o->c.input)
			argp_usage(state);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_common_input_argp, 0, NULL, 0 },
	{ &gt_common_dtype_argp, 0, NULL, 0 },
	{ &gt_common_quiet_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp compare_argp = {
	options, parse_opt, "FILE",
	"Compress FILE (HDF5, .npy or raw) with each codec spec, as 'gtool "
	"compress' does, into a temporary .gtz, and print one row per spec: "
	"size ratio (.gtz bytes / original bytes), bits per value, compress "
	"and decompress MB/s (the codec on the data in memory, as 'gtool "
	"bench' measures it: median of --repeat runs), the error of the "
	"decoded file against FILE as 'gtool error' computes it (max abs, RMSE, "
	"PSNR, cosine, gain sum B^2 / sum A^2), and on a trace the update "
	"fidelity of 'gtool error --update'.",
	children, NULL, NULL
};

struct row {
	const char *spec;
	const struct gt_codec *codec;
	const char *opts;
	double v[NNUM];
	struct gt_spec parsed;   /* owns what spec, codec and opts point at */
};

static void table_header(struct gt_table *tb, int trace)
{
	gt_table_col(tb, "codec");
	gt_table_col(tb, "options");
	gt_table_col(tb, "spec");
	gt_table_col(tb, "lossless");
	for (size_t i = 0; i < NNUM - (trace ? 0 : NUPDATE); i++)
		gt_table_col(tb, numcols[i].name);
}

static void table_row(struct gt_table *tb, const struct row *r, int trace)
{
	gt_table_str(tb, gt_codec_name(r->codec));
	gt_table_str(tb, r->opts);
	gt_table_str(tb, r->spec);
	gt_table_bool(tb, !!(gt_codec_flags(r->codec) & GT_CODEC_LOSSLESS));
	for (size_t i = 0; i < NNUM - (trace ? 0 : NUPDATE); i++) {
		if (i < 3 || (i == NNUM - 1 && isfinite(r->v[i])))
			gt_table_uint(tb, (unsigned long long)r->v[i]);
		else if (i == NNUM - 2)
			gt_table_pct(tb, r->v[i]);
		else
			gt_table_num(tb, r->v[i], i == 10 || i == 11 ? 8 : 5);
	}
}

/* ---- one spec ----------------------------------------------------------- */

struct cmp {
	const struct compare_opts *o;
	struct gt_memload m;
	unsigned char *sel;
	int trace;
	char *dir, *gtz;
};

/* The .gtz of @spec, as `gtool compress -c SPEC` writes it. */
static int compress_to_tmp(struct cmp *c, struct row *r)
{
	struct gt_pack_opts po = { 0 };
	struct gt_pack_result pr = { 0 };
	struct gt_diag d = { "" };
	uint64_t in, out;

	po.input = c->o->c.input;
	po.output = c->gtz;
	po.spec = &r->parsed;
	po.threads = c->o->threads;
	po.src = c->o->c.src;
	po.force = 1;
	po.lossy_metadata = 1; /* nt NULL: compare says nothing of what is not kept */
	po.grads_only = c->o->grads_only;
	if (gt_pack_file(&po, &pr, &d) < 0)
		return gt_error("%s", d.msg);
	in = pr.in_bytes;
	out = pr.out_bytes;
	r->v[1] = (double)in;
	r->v[2] = (double)out;
	r->v[3] = in ? (double)out / (double)in : NAN;
	r->v[4] = c->m.values ? 8.0 * (double)out / (double)c->m.values : NAN;
	return 0;
}

/* Error and update fidelity of the .gtz against the input. */
static int errors(struct cmp *c, struct row *r)
{
	const struct gt_source_opts so = { GT_KIND_GTZ, GT_DT_NONE, 0 };
	struct gt_source *b = NULL;
	struct gt_diag d = { "" };
	struct gt_metric total;
	struct gt_metric_result mr;
	struct gt_fidelity f;
	const char *optim;
	int rc;

	if (gt_source_open(c->gtz, &so, &b, &d) < 0)
		return gt_error("%s: %s", c->gtz, d.msg);
	{
		const struct gt_pair p = { c->m.src, b, c->o->c.input, c->gtz, c->sel, 0, 0, NULL };

		rc = gt_pair_metrics(&p, NULL, NULL, &total, &d);
		if (rc >= 0 && c->trace)
			rc = gt_pair_update(&p, NULL, NULL, &f, &optim, &d);
	}
	gt_source_free(b);
	if (rc < 0)
		return gt_error("%s", d.msg);
	gt_metric_derive(&total, &mr);
	r->v[0] = (double)total.values;
	r->v[7] = total.n ? total.max_abs : NAN;
	r->v[8] = mr.rmse;
	r->v[9] = mr.psnr;
	r->v[10] = mr.cosine;
	r->v[11] = mr.gain;
	if (c->trace) {
		r->v[12] = gt_fidelity_pct(&f);
		r->v[13] = f.max_ulp == GT_OPTIM_ULP_NAN ? NAN : (double)f.max_ulp;
	}
	return 0;
}

/* MB/s of the codec on the data in memory (gtool bench's core). */
static int speed(struct cmp *c, struct row *r)
{
	const size_t n = (size_t)c->o->repeat;
	double *cs = xcalloc(n, sizeof(double)), *ds = xcalloc(n, sizeof(double));
	const struct gt_bench_opts bo = { c->o->threads, (unsigned)n, 1, 0, 0 };
	struct gt_bench_result br = { 0, 0, cs, ds };
	const struct gt_bench_input *in;
	struct gt_diag d = { "" };
	double med, lo, hi;
	int rc;

	rc = gt_memload_inputs(&c->m, &r->parsed, &in, &d);
	if (rc < 0)
		rc = gt_error("%s", d.msg);
	else if (gt_bench_run(in, c->m.n, &bo, &br, &d) < 0)
		rc = gt_error("%s: %s: %s", c->o->c.input, r->spec, d.msg);
	if (rc >= 0) {
		gt_bench_spread(cs, n, &med, &lo, &hi);
		r->v[5] = gt_bench_mbps(br.bytes, med);
		gt_bench_spread(ds, n, &med, &lo, &hi);
		r->v[6] = gt_bench_mbps(br.bytes, med);
	}
	free(cs);
	free(ds);
	return rc;
}

static int compare_spec(struct cmp *c, const char *spec, struct row *r)
{
	struct gt_diag d = { "" };
	int rc;

	for (size_t i = 0; i < NNUM; i++)
		r->v[i] = NAN;
	if (gt_spec_init(&r->parsed, spec, 0, &d) < 0)
		return gt_error("%s", d.msg);
	r->spec = r->parsed.text;
	r->codec = r->parsed.codec;
	r->opts = r->parsed.opts;
	rc = speed(c, r);
	if (rc >= 0)
		rc = compress_to_tmp(c, r);
	if (rc >= 0)
		rc = errors(c, r);
	unlink(c->gtz);
	return rc;
}

/* ---- the command -------------------------------------------------------- */

/* Best first: ascending, or descending where larger is better; NaN last. */
static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct row *a = pa, *b = pb;
	const int col = *(const int *)arg;
	double x, y;

	if (col < 0) {
		const int s = strcmp(gt_codec_name(a->codec), gt_codec_name(b->codec));

		return s ? s : strcmp(a->opts, b->opts);
	}
	x = a->v[col];
	y = b->v[col];
	if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);
	if (numcols[col].desc)
		return (x < y) - (x > y);
	return (x > y) - (x < y);
}

static int open_cmp(struct cmp *c)
{
	const char *tmp = getenv("TMPDIR");
	struct gt_diag d = { "" };

	c->m.nt = &gt_msg_notify;
	if (gt_memload_open(&c->m, c->o->c.input, &c->o->c.src, c->o->grads_only, &d) < 0)
		return gt_error("%s", d.msg);
	c->m.nt = &gt_msg_notify;
	c->sel = xcalloc(gt_source_count(c->m.src) + 1, 1);
	for (size_t k = 0; k < c->m.n; k++)
		c->sel[c->m.idx[k]] = 1;
	c->trace = gt_memload_is_trace(&c->m);
	if (c->o->grads_only && !c->trace)
		return gt_error("%s: --grads-only needs a trace with step groups", c->o->c.input);
	if (asprintf(&c->dir, "%s/gtool-compare.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		gt_die("out of memory");
	if (!mkdtemp(c->dir)) {
		gt_error_errno("cannot create a temporary folder in %s", tmp && *tmp ? tmp : "/tmp");
		free(c->dir);
		c->dir = NULL;
		return -1;
	}
	if (asprintf(&c->gtz, "%s/codec.gtz", c->dir) < 0)
		gt_die("out of memory");
	return 0;
}

static void close_cmp(struct cmp *c)
{
	if (c->dir)
		rmdir(c->dir);
	free(c->dir);
	free(c->gtz);
	free(c->sel);
	gt_memload_close(&c->m);
}

static void print_rows(const struct compare_opts *o, struct row *rows, size_t n, int trace)
{
	struct gt_table *tb = gt_table_new(o->c.fmt);

	if (o->sort) {
		int col = sort_column(o->sort);

		qsort_r(rows, n, sizeof(*rows), cmp_rows, &col);
	}
	table_header(tb, trace);
	for (size_t i = 0; i < n; i++)
		table_row(tb, &rows[i], trace);
	gt_table_print(tb, stdout);
	gt_table_free(tb);
}

static int run_compare(struct compare_opts *o)
{
	struct cmp c = { o, { 0 }, NULL, 0, NULL, NULL };
	struct row *rows;
	const int defaults = !o->specs.n;
	struct gt_diag d = { "" };
	int rc = 0;

	if (defaults && gt_speclist_defaults(&o->specs) < 0)
		gt_die("out of memory");
	for (size_t i = 0; i < o->specs.n; i++) {
		struct gt_spec s;

		if (gt_spec_init(&s, o->specs.v[i], 0, &d) < 0) {
			gt_error("%s; see 'gtool compress --list-codecs'", d.msg);
			return 2;
		}
		gt_spec_release(&s);
	}
	rows = xcalloc(o->specs.n + 1, sizeof(*rows));
	rc = open_cmp(&c);
	if (rc >= 0 && gt_memload_usable(&o->specs, &c.m, defaults, &gt_msg_notify, &d) < 0)
		rc = gt_error("%s", d.msg);
	for (size_t i = 0; i < o->specs.n && rc >= 0; i++)
		rc = compare_spec(&c, o->specs.v[i], &rows[i]);
	if (rc >= 0)
		print_rows(o, rows, o->specs.n, c.trace);
	close_cmp(&c);
	for (size_t i = 0; i < o->specs.n; i++)
		gt_spec_release(&rows[i].parsed);
	free(rows);
	return rc < 0 ? 1 : 0;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { 0 };
	int rc;

	o.c.fmt = GT_FMT_TABLE;
	o.repeat = 3;
	rc = gt_argp_parse(&compare_argp, argc, argv, &o);
	if (!rc) {
		if (!o.threads)
			o.threads = (unsigned)gt_ncores();
		rc = run_compare(&o);
	}
	gt_speclist_release(&o.specs);
	return rc;
}
