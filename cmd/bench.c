/* bench.c - `gtool bench`: codec throughput on data in memory, median and spread */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "common_opts.h"
#include "../front/msg.h"
#include "util.h"
#include "../engine/gt_measure.h"
#include "../lib/banned.h"

struct bench_opts {
	struct gt_speclist specs;
	unsigned *threads;
	size_t nthreads;
	long repeat, warmup;
	struct gt_common c;      /* input, --dtype, --format, -q */
};

enum { OPT_REPEAT = 0x100, OPT_WARMUP };

static const struct argp_option options[] = {
	{ "codecs", 'c', "LIST", 0,
	  "codec specs, comma-separated (default: compare's list); repeatable", 0 },
	{ "threads", 'T', "LIST", 0, "thread counts to measure, comma-separated (default 1; 0: all cores)", 0 },
	{ "repeat", OPT_REPEAT, "N", 0, "timed repetitions per measurement (default 5)", 0 },
	{ "warmup", OPT_WARMUP, "N", 0, "untimed runs before them (default 1)", 0 },
	{ 0 }
};

static void add_threads(struct argp_state *state, struct bench_opts *o, char *arg)
{
	char *save = NULL;

	for (char *p = strtok_r(arg, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		unsigned t;

		if (gt_parse_threads(p, &t) < 0)
			argp_error(state, "invalid thread count '%s'", p);
		if (!t)
			t = (unsigned)gt_ncores();
		o->threads = xrealloc(o->threads, (o->nthreads + 1) * sizeof(*o->threads));
		o->threads[o->nthreads++] = t;
	}
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct bench_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &bench_argp, &o->c); break;
	case 'c':
		if (gt_speclist_add(&o->specs, arg) < 0)
			gt_die("out of memory");
		break;
	case 'T': add_threads(state, o, arg); break;
	case OPT_REPEAT:
		if (gt_parse_int(arg, 1, 100000, &o->repeat) < 0)
			argp_error(state, "invalid repeat count '%s'", arg);
		break;
	case OPT_WARMUP:
		if (gt_parse_int(arg, 0, 100000, &o->warmup) < 0)
			argp_error(state, "invalid warm-up count '%s'", arg);
		break;
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
	{ &gt_common_fmt_argp, 0, NULL, 0 },
	{ &gt_common_dtype_argp, 0, NULL, 0 },
	{ &gt_common_quiet_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp bench_argp = {
	options, parse_opt, "FILE",
	"Measure codec throughput on the float tensors of FILE (HDF5, .npy or "
	"raw), read into memory first: for each codec spec, thread count and "
	"direction, warm-up runs, then --repeat timed runs; MB/s is 10^6 bytes "
	"of original data per second (median, min, max).  Each tensor is coded "
	"as 'gtool compress' would code it (a lossy codec codes a trace's "
	"gradients, with their optimizer context for gcomp; the rest huffexp), "
	"in .gtz blocks and chunks, without the file around them."
	"\vColumns: codec, options, spec, threads, direction (compress or "
	"decompress), repeat, bytes (original), ratio (coded / original bytes "
	"of the same run), mbps_median, mbps_min, mbps_max, peak_rss_mib "
	"(MiB: the peak resident memory while that spec ran, the data in "
	"memory included; Linux resets the peak before each spec).",
	children, NULL, NULL
};

static void header(struct gt_table *tb)
{
	static const char *const cols[] = {
		"codec", "options", "spec", "threads", "direction", "repeat", "bytes",
		"ratio", "mbps_median", "mbps_min", "mbps_max", "peak_rss_mib",
	};

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		gt_table_col(tb, cols[i]);
}

static void row(struct gt_table *tb, const struct gt_bench_row *r)
{
	gt_table_str(tb, r->codec);
	gt_table_str(tb, r->options);
	gt_table_str(tb, r->spec);
	gt_table_uint(tb, r->threads);
	gt_table_str(tb, r->direction == GT_BENCH_COMPRESS ? "compress" : "decompress");
	gt_table_int(tb, r->repeat);
	gt_table_uint(tb, r->bytes);
	gt_table_num(tb, r->ratio, 4);
	gt_table_num(tb, r->mbps_median, 5);
	gt_table_num(tb, r->mbps_min, 5);
	gt_table_num(tb, r->mbps_max, 5);
	gt_table_num(tb, r->peak_rss_mib, 4);
}

/* Specs are checked before the file is read: a bad one is a usage error. */
static int check_specs(const struct gt_speclist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct gt_spec s;
		struct gt_diag d = { "" };

		if (gt_spec_init(&s, l->v[i], 0, &d) < 0)
			return gt_error("%s; see 'gtool compress --list-codecs'", d.msg);
		gt_spec_release(&s);
	}
	return 0;
}

static int run_bench(struct bench_opts *o)
{
	struct gt_measure_opts mo = { 0 };
	struct gt_bench_row *rows = NULL;
	struct gt_diag d = { "" };
	struct gt_table *tb;
	size_t n = 0;

	mo.defaults = !o->specs.n;
	if (mo.defaults && gt_speclist_defaults(&o->specs) < 0)
		gt_die("out of memory");
	if (check_specs(&o->specs) < 0)
		return 2;
	mo.input = o->c.input;
	mo.src = o->c.src;
	mo.specs = &o->specs;
	mo.threads = o->threads;
	mo.nthreads = o->nthreads;
	mo.repeat = (unsigned)o->repeat;
	mo.warmup = (unsigned)o->warmup;
	mo.nt = &gt_msg_notify;
	if (gt_measure_run(&mo, &rows, &n, &d) < 0) {
		gt_error("%s", d.msg);
		return 1;
	}
	tb = gt_table_new(o->c.fmt);
	header(tb);
	for (size_t i = 0; i < n; i++)
		row(tb, &rows[i]);
	gt_table_print(tb, stdout);
	gt_table_free(tb);
	free(rows);
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_opts o = { 0 };
	int rc;

	o.repeat = 5;
	o.warmup = 1;
	o.c.fmt = GT_FMT_TABLE;
	rc = gt_argp_parse(&bench_argp, argc, argv, &o);
	if (!rc) {
		if (!o.nthreads) {
			o.threads = xcalloc(1, sizeof(*o.threads));
			o.threads[o.nthreads++] = 1;
		}
		rc = run_bench(&o);
	}
	gt_speclist_release(&o.specs);
	free(o.threads);
	return rc;
}
