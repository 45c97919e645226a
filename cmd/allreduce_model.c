/* allreduce_model.c - `gtool allreduce-model`: ring allreduce with each codec (GComp Fig. 10) */
#include <argp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "common_opts.h"
#include "../front/msg.h"
#include "util.h"
#include "../engine/gt_netmodel.h"
#include "../analysis/gt_ringmodel.h"
#include "../lib/banned.h"

#define MAX_LIST 64

/* The model in one line, for the table's header and a JSON field. */
#define MODEL_TEXT "T_none = 2(N-1)(a + P/B); T_codec = 2(N-1)(c + x + d + (K-1) max(c,x,d)), " \
	"P = M/N, K = ceil(P/chunk), c = P/(K Tc), x = a + ratio P/(K B), d = P/(K Td); " \
	"normalized = T_codec/T_none"

struct allreduce_model_opts {
	const char *from, *file, *codecs;
	long repeat;
	long workers[MAX_LIST];
	size_t nworkers;
	double links[MAX_LIST];
	size_t nlinks;
	uint64_t bytes, chunk;
	double latency;
	struct gt_common c;      /* the shared options (common_opts.h) */
};

enum { OPT_FROM = 0x100, OPT_BANDWIDTH, OPT_WORKERS, OPT_BYTES, OPT_CHUNK,
       OPT_LATENCY, OPT_FORMAT , OPT_REPEAT };

static const struct argp_option options[] = {
	{ "from", OPT_FROM, "FILE", 0,
	  "codec speeds and ratios from FILE, written by gtool bench --format json "
	  "(else they are measured now on the trace FILE)", 0 },
	{ "codecs", 'c', "LIST", 0, "codecs to measure (default " GT_MEASURE_CODECS ")", 0 },
	{ "repeat", OPT_REPEAT, "N", 0, "timed runs of each codec when measuring (default 5)", 0 },
	{ "workers", OPT_WORKERS, "LIST", 0, "ring sizes N, comma-separated, 2-65536 "
	  "(default 4,16,128)", 0 },
	{ "bandwidth", OPT_BANDWIDTH, "LIST", 0,
	  "link speeds in bits/s, comma-separated (default 10G)", 0 },
	{ "bytes", OPT_BYTES, "N", 0, "model size M in bytes (K, M, G: powers of 2) "
	  "instead of a trace's gradients", 0 },
	{ "chunk", OPT_CHUNK, "N", 0, "pipelining unit in bytes of original data "
	  "(default 256K)", 0 },
	{ "latency", OPT_LATENCY, "SECONDS", 0, "per-message latency a (default 0)", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct allreduce_model_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &allreduce_model_argp, &o->c); break;
	case OPT_FROM: o->from = arg; break;
	case OPT_WORKERS:
		if (gt_parse_count_list(arg, 2, 65536, o->workers, MAX_LIST, &o->nworkers) < 0)
			argp_error(state, "invalid workers '%s': expected numbers 2-65536 "
				   "such as 4,16,128", arg);
		break;
	case OPT_BANDWIDTH:
		if (gt_parse_rate_list(arg, o->links, MAX_LIST, &o->nlinks) < 0)
			argp_error(state, "invalid bandwidth list '%s': expected rates in "
				   "bits/s such as 10G,56G,100G", arg);
		break;
	case OPT_BYTES:
		if (gt_parse_size(arg, 1, (uint64_t)1 << 50, &o->bytes) < 0)
			argp_error(state, "invalid bytes '%s': expected 1 to 1P", arg);
		break;
	case OPT_CHUNK:
		if (gt_parse_size(arg, 1, (uint64_t)1 << 40, &o->chunk) < 0)
			argp_error(state, "invalid chunk '%s': expected 1 to 1T bytes", arg);
		break;
	case OPT_LATENCY:
		if (gt_parse_double(arg, 0, 10, &o->latency) < 0)
			argp_error(state, "invalid latency '%s': expected 0 to 10 seconds", arg);
		break;
	case ARGP_KEY_ARG:
		if (o->file)
			argp_error(state, "one trace at a time");
		o->file = arg;
		break;
	case 'c': o->codecs = arg; break;
	case OPT_REPEAT:
		if (gt_parse_int(arg, 1, 1000, &o->repeat) < 0)
			argp_error(state, "invalid repeat '%s': expected 1-1000", arg);
		break;
	case ARGP_KEY_END:
		if (!o->from && !o->file)
			argp_error(state, "give --from BENCH.json, or a trace FILE to measure the codecs on");
		if (o->from && o->codecs)
			argp_error(state, "-c picks codecs to measure; with --from the file has them");
		if (o->from && !o->file == !o->bytes)
			argp_error(state, "give either a trace FILE or --bytes N");
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_common_fmt_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp allreduce_model_argp = {
	options, parse_opt, "--from BENCH.json FILE\n--from BENCH.json --bytes N\n[-c LIST] FILE",
	"GComp's Figure 10 as a model: the time of a ring allreduce of the "
	"gradients of FILE (the first step of a trace; --bytes instead) with each "
	"codec measured by gtool bench (read from --from, or measured now on FILE "
	"on one thread), compressing before each send and "
	"decompressing after each receive, pipelined by chunks, normalized by the "
	"time without compression (below 1: the codec helps).\v"
	"Model: " MODEL_TEXT ".  N workers, M bytes, B the link in bytes/s, a the "
	"latency, Tc and Td the codec's speeds and ratio its compressed/original "
	"size.  The table prints the model as a comment line above the rows; JSON "
	"has it as the field \"model\" of each row.",
	children, NULL, NULL
};

static void add_row(struct gt_table *tab, const struct allreduce_model_opts *o,
		    const struct gt_ring_params *p, const struct gt_codec_pair *c,
		    const struct gt_ring_result *r)
{
	char name[32];

	gt_table_uint(tab, p->workers);
	gt_table_str(tab, gt_rate_name(p->link_Bps * 8, name, sizeof(name)));
	gt_table_num(tab, p->link_Bps * 8, 6);
	gt_table_str(tab, c->comp->spec);
	gt_table_uint(tab, c->comp->threads);
	gt_table_num(tab, c->speed.ratio, 4);
	gt_table_num(tab, p->bytes, 10);
	gt_table_num(tab, r->chunks, 10);
	gt_table_num(tab, r->t_none * 1e3, 5);
	gt_table_num(tab, r->t_codec * 1e3, 5);
	gt_table_num(tab, r->normalized, 4);
	if (o->c.fmt == GT_FMT_JSON)
		gt_table_str(tab, MODEL_TEXT);
}

static void columns(struct gt_table *tab, enum gt_fmt fmt)
{
	static const char *const cols[] = {
		"workers", "link", "link_bps", "codec", "threads", "ratio", "bytes",
		"chunks", "t_none_ms", "t_codec_ms", "normalized",
	};

	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		gt_table_col(tab, cols[c]);
	if (fmt == GT_FMT_JSON)
		gt_table_col(tab, "model");
}

static int model_bytes(const struct allreduce_model_opts *o, double *ret)
{
	struct gt_model_tensor *t;
	struct gt_diag d = { "" };
	size_t n;

	if (o->bytes) {
		*ret = (double)o->bytes;
		return 0;
	}
	if (gt_model_tensors(o->file, &t, &n, &d) < 0)
		return gt_error("%s", d.msg);
	*ret = 0;
	for (size_t i = 0; i < n; i++)
		*ret += (double)t[i].count * t[i].size;
	gt_model_tensors_free(t, n);
	if (!(*ret > 0))
		return gt_error("%s: the gradients hold no values", o->file);
	return 0;
}

static int run_allreduce_model(const struct allreduce_model_opts *o)
{
	struct gt_ring_params p = { 0, 0, 0, o->latency, (double)o->chunk };
	struct gt_bench_row *rows;
	struct gt_codec_pair *pairs;
	struct gt_diag d = { "" };
	struct gt_table *tab;
	size_t n;

	if (model_bytes(o, &p.bytes) < 0)
		return -1;
	if ((o->from ? gt_bench_pairs(o->from, &rows, &pairs, &n, &d)
		     : gt_bench_measure(o->file, o->codecs, (unsigned)o->repeat, &rows, &pairs, &n,
					&d)) < 0)
		return gt_error("%s", d.msg);
	tab = gt_table_new(o->c.fmt);
	columns(tab, o->c.fmt);
	for (size_t w = 0; w < o->nworkers; w++)
		for (size_t l = 0; l < o->nlinks; l++)
			for (size_t i = 0; i < n; i++) {
				struct gt_ring_result r;

				p.workers = (unsigned)o->workers[w];
				p.link_Bps = o->links[l] / 8;
				if (gt_ring_model(&p, &pairs[i].speed, &r) >= 0)
					add_row(tab, o, &p, &pairs[i], &r);
			}
	if (o->c.fmt == GT_FMT_TABLE)
		printf("# %s\n", MODEL_TEXT);
	gt_table_print(tab, stdout);
	gt_table_free(tab);
	free(rows);
	free(pairs);
	return 0;
}

int cmd_allreduce_model(int argc, char **argv)
{
	struct allreduce_model_opts o = {
		.workers = { 4, 16, 128 }, .nworkers = 3, .links = { 10e9 }, .nlinks = 1,
		.chunk = 256 << 10, .repeat = 5,
	};
	const int rc = gt_argp_parse(&allreduce_model_argp, argc, argv, &o);

	if (rc)
		return rc;
	return run_allreduce_model(&o) < 0;
}
