/* simulate.c - `gtool simulate`: AQGB's quantized broadcast as a discrete-event simulation */
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
#include "../analysis/gt_sim.h"
#include "../lib/banned.h"

#define MAX_SCHEMES 16

struct scheme {
	char name[16];
	enum gt_sim_scheme kind;
	unsigned bits;
};

struct simulate_opts {
	struct gt_sim_config c;
	struct scheme schemes[MAX_SCHEMES];
	size_t nschemes;
	const char *blocks_from;
	long nblocks;      /* --blocks: merge a trace's tensors into this many */
	int per_worker;
	struct gt_common common; /* --format (common_opts.h) */
};

enum { OPT_SCHEME = 0x100, OPT_WORKERS, OPT_BANDWIDTH, OPT_ITER_TIME, OPT_TIMING,
       OPT_DURATION, OPT_SEED, OPT_QBAR, OPT_CHUNK, OPT_BLOCKS_FROM, OPT_BLOCKS,
       OPT_FP_FRACTION, OPT_PER_WORKER, OPT_FORMAT };

static const struct argp_option options[] = {
	{ "scheme", OPT_SCHEME, "LIST", 0, "schemes, comma-separated: aqgb, or NNbit "
	  "for a fixed width of 1-32 bits (default 32bit,4bit,aqgb)", 0 },
	{ "workers", OPT_WORKERS, "M", 0, "workers on the switch, 2-256 (default 16)", 0 },
	{ "bandwidth", OPT_BANDWIDTH, "RATE", 0, "each link in bits/s: 2.5G, 10G, 100M "
	  "(default 2.5G)", 0 },
	{ "iter-time", OPT_ITER_TIME, "SECONDS", 0, "mean compute time of a round, "
	  "forward and backward (default 1.5)", 0 },
	{ "timing", OPT_TIMING, "DIST", 0, "uniform (U[0.9,1.1] x iter-time) or straggler "
	  "(default uniform)", 0 },
	{ "duration", OPT_DURATION, "SECONDS", 0, "simulated time (default 200)", 0 },
	{ "seed", OPT_SEED, "N", 0, "seed of the compute times (default 1)", 0 },
	{ "qbar", OPT_QBAR, "Q", 0, "aqgb: lowest quantization ratio, 0-1 (default 0.125)", 0 },
	{ "chunk", OPT_CHUNK, "N", 0, "values per broadcast chunk (default 256K)", 0 },
	{ "blocks-from", OPT_BLOCKS_FROM, "TRACE", 0, "blocks from the gradient tensors "
	  "of TRACE's first step instead of ResNet-50's Table 1", 0 },
	{ "blocks", OPT_BLOCKS, "N", 0, "with --blocks-from: merge neighbouring tensors "
	  "into N blocks of about equal size (default: a block per tensor)", 0 },
	{ "fp-fraction", OPT_FP_FRACTION, "F", 0, "share of a round spent in the forward "
	  "pass (default 0.365, Table 1)", 0 },
	{ "per-worker", OPT_PER_WORKER, NULL, 0, "a row per scheme and worker", 0 },
	{ 0 }
};

static int parse_scheme(const char *s, struct scheme *ret)
{
	char *end;
	long bits;

	if (strlen(s) >= sizeof(ret->name))
		return -1;
	memcpy(ret->name, s, strlen(s) + 1);
	if (!strcmp(s, "aqgb")) {
		ret->kind = GT_SIM_AQGB;
		return 0;
	}
	bits = strtol(s, &end, 10);
	if (end == s || strcmp(end, "bit") || bits < 1 || bits > 32)
		return -1;
	ret->kind = GT_SIM_FIXED;
	ret->bits = (unsigned)bits;
	return 0;
}

static void parse_schemes(struct argp_state *state, struct simulate_opts *o, char *arg)
{
	char *copy = xstrdup(arg), *p = copy, *item;

	o->nschemes = 0;
	while ((item = strsep(&p, ",")) != NULL) {
		if (o->nschemes == MAX_SCHEMES || parse_scheme(item, &o->schemes[o->nschemes]) < 0) {
			free(copy);
			argp_error(state, "invalid scheme list '%s': expected aqgb or NNbit "
				   "(1-32), comma-separated", arg);
			return;
		}
		o->nschemes++;
	}
	free(copy);
}

static void parse_num(struct argp_state *state, const char *what, const char *arg,
		      double lo, double hi, double *ret)
{
	if (gt_parse_double(arg, lo, hi, ret) < 0)
		argp_error(state, "invalid %s '%s': expected %g to %g", what, arg, lo, hi);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct simulate_opts *o = state->input;
	long v;
	uint64_t u;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &simulate_argp, &o->common); break;
	case OPT_SCHEME: parse_schemes(state, o, arg); break;
	case OPT_WORKERS:
		if (gt_parse_int(arg, 2, GT_SIM_MAX_WORKERS, &v) < 0)
			argp_error(state, "invalid workers '%s': expected 2-%d", arg,
				   GT_SIM_MAX_WORKERS);
		o->c.workers = (unsigned)v;
		break;
	case OPT_BANDWIDTH:
		if (gt_parse_rate(arg, &o->c.link_bps) < 0)
			argp_error(state, "invalid bandwidth '%s': expected bits/s such as "
				   "2.5G, 10G or 100M", arg);
		break;
	case OPT_ITER_TIME: parse_num(state, "iter-time", arg, 1e-6, 1e6, &o->c.iter_time); break;
	case OPT_DURATION: parse_num(state, "duration", arg, 1e-3, 1e7, &o->c.duration); break;
	case OPT_QBAR: parse_num(state, "qbar", arg, 1e-3, 1, &o->c.qbar); break;
	case OPT_FP_FRACTION:
		parse_num(state, "fp-fraction", arg, 0.001, 0.999, &o->c.fp_fraction);
		break;
	case OPT_TIMING:
		if (!strcmp(arg, "uniform"))
			o->c.timing = GT_SIM_UNIFORM;
		else if (!strcmp(arg, "straggler"))
			o->c.timing = GT_SIM_STRAGGLER;
		else
			argp_error(state, "invalid timing '%s': expected uniform or straggler", arg);
		break;
	case OPT_SEED:
		if (gt_parse_int(arg, 0, __LONG_MAX__, &v) < 0)
			argp_error(state, "invalid seed '%s': expected a number >= 0", arg);
		o->c.seed = (uint64_t)v;
		break;
	case OPT_CHUNK:
		if (gt_parse_size(arg, 1, (uint64_t)1 << 32, &u) < 0)
			argp_error(state, "invalid chunk '%s': expected 1 to 4G values", arg);
		o->c.chunk = u;
		break;
	case OPT_BLOCKS_FROM: o->blocks_from = arg; break;
	case OPT_BLOCKS:
		if (gt_parse_int(arg, 1, GT_SIM_MAX_BLOCKS, &o->nblocks) < 0)
			argp_error(state, "invalid blocks '%s': expected 1-%d", arg, GT_SIM_MAX_BLOCKS);
		break;
	case OPT_PER_WORKER: o->per_worker = 1; break;
	case ARGP_KEY_ARG: argp_error(state, "unexpected argument '%s'", arg); break;
	case ARGP_KEY_END:
		if (o->nblocks && !o->blocks_from)
			argp_error(state, "--blocks needs --blocks-from TRACE");
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_common_fmt_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp simulate_argp = {
	options, parse_opt, NULL,
	"AQGB's setting (§4-§5 of the AQGB paper) as a discrete-event simulation: "
	"M workers on one switch broadcast each gradient block to the others as "
	"it is made, sharing the links max-min fairly, with no quantization "
	"(32bit), a fixed width (4bit) or AQGB's two-stage adaptive quantization "
	"ratio control (aqgb).  Per scheme: training rounds in the duration, "
	"the group's ROW (Eq. 2), T_wait / T_comp, link utilization and the "
	"bits of a received value when it is used.\v"
	"The model is ResNet-50 in the 4 blocks of the paper's Table 1 (25.6 M "
	"parameters) unless --blocks-from names a trace; then block sizes are "
	"its gradient tensors' and compute time is shared by size.  The same "
	"--seed gives the same numbers.  See gtool-simulate(1) for the model.",
	children, NULL, NULL
};

/* Empty tensors make no block. */
static void drop_empty(struct gt_model_tensor *t, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		if (t[i].count)
			t[k++] = t[i];
		else
			free(t[i].name);
	}
	*n = k;
}

/* Blocks from a trace's gradients: neighbours merged into @want blocks of
 * about equal size (0: one per tensor); compute shared by size. */
static int trace_blocks(const char *path, long want, struct gt_sim_block **ret, size_t *n_ret)
{
	struct gt_model_tensor *t;
	struct gt_sim_block *b;
	struct gt_diag d = { "" };
	size_t n, nb, g = 0;
	double total = 0, acc = 0;
	uint64_t cur = 0;

	if (gt_model_tensors(path, &t, &n, &d) < 0)
		return gt_error("%s", d.msg);
	drop_empty(t, &n);
	nb = want && (size_t)want < n ? (size_t)want : n;
	if (n > GT_SIM_MAX_BLOCKS && !want) {
		gt_model_tensors_free(t, n);
		return gt_error("%s: %zu tensors: merge them with --blocks N (at most %d)",
				path, n, GT_SIM_MAX_BLOCKS);
	}
	for (size_t i = 0; i < n; i++)
		total += (double)t[i].count;
	if (!(total > 0)) {
		gt_model_tensors_free(t, n);
		return gt_error("%s: the gradients hold no values", path);
	}
	b = xcalloc(nb, sizeof(*b));
	for (size_t i = 0; i < n; i++) {
		acc += (double)t[i].count;
		cur += t[i].count;
		if (g + 1 < nb && (acc >= (double)(g + 1) * total / (double)nb ||
				   n - i - 1 == nb - g - 1)) {
			b[g++].values = cur;
			cur = 0;
		}
	}
	b[g].values = cur;
	for (size_t j = 0; j < nb; j++)
		b[j].fp_share = b[j].bp_share = (double)b[j].values / total;
	gt_model_tensors_free(t, n);
	*ret = b;
	*n_ret = nb;
	return 0;
}

static void columns(struct gt_table *tab, int per_worker)
{
	static const char *const group[] = {
		"scheme", "workers", "link", "rounds", "t_wait_norm", "row", "utilization_pct",
		"bits_per_value",
	};
	static const char *const worker[] = {
		"scheme", "worker", "rounds", "t_comp_s", "t_wait_s", "t_overlap_s", "row",
		"t_wait_norm", "bits_per_value",
	};
	const char *const *cols = per_worker ? worker : group;
	const size_t n = per_worker ? sizeof(worker) / sizeof(worker[0]) :
		sizeof(group) / sizeof(group[0]);

	for (size_t c = 0; c < n; c++)
		gt_table_col(tab, cols[c]);
}

static void add_rows(struct gt_table *tab, const struct simulate_opts *o, const char *scheme,
		     const struct gt_sim_worker *w, const struct gt_sim_result *r)
{
	char name[32];

	if (!o->per_worker) {
		gt_table_str(tab, scheme);
		gt_table_uint(tab, o->c.workers);
		gt_table_str(tab, gt_rate_name(o->c.link_bps, name, sizeof(name)));
		gt_table_uint(tab, r->rounds);
		gt_table_num(tab, r->wait_norm, 4);
		gt_table_num(tab, r->row, 4);
		gt_table_pct(tab, 100 * r->utilization);
		gt_table_num(tab, r->bits_per_value, 4);
		return;
	}
	for (unsigned k = 0; k < o->c.workers; k++) {
		gt_table_str(tab, scheme);
		gt_table_uint(tab, k);
		gt_table_uint(tab, w[k].rounds);
		gt_table_num(tab, w[k].t_comp, 5);
		gt_table_num(tab, w[k].t_wait, 5);
		gt_table_num(tab, w[k].t_overlap, 5);
		gt_table_num(tab, w[k].row, 4);
		gt_table_num(tab, w[k].wait_norm, 4);
		gt_table_num(tab, w[k].bits_per_value, 4);
	}
}

static int run_simulate(struct simulate_opts *o)
{
	struct gt_sim_block *own = NULL;
	struct gt_sim_worker *w = xcalloc(o->c.workers, sizeof(*w));
	struct gt_table *tab = gt_table_new(o->common.fmt);
	int rc = 0;

	if (o->blocks_from) {
		rc = trace_blocks(o->blocks_from, o->nblocks, &own, &o->c.nblocks);
		o->c.blocks = own;
	}
	columns(tab, o->per_worker);
	for (size_t s = 0; s < o->nschemes && rc >= 0; s++) {
		struct gt_sim_result r;

		o->c.scheme = o->schemes[s].kind;
		o->c.bits = o->schemes[s].bits;
		if (gt_sim_run(&o->c, w, &r) < 0)
			rc = gt_error("%s: cannot simulate this setting: too many chunks "
				      "per round (raise --chunk)", o->schemes[s].name);
		else
			add_rows(tab, o, o->schemes[s].name, w, &r);
	}
	if (rc >= 0)
		gt_table_print(tab, stdout);
	gt_table_free(tab);
	free(own);
	free(w);
	return rc;
}

int cmd_simulate(int argc, char **argv)
{
	struct simulate_opts o = {
		.c = { 16, 2.5e9, 1.5, GT_SIM_RESNET50_FP_FRACTION, GT_SIM_UNIFORM, 200, 1,
		       gt_sim_resnet50, GT_SIM_RESNET50_BLOCKS, GT_SIM_AQGB, 32, 0.125,
		       256 << 10 },
		.schemes = { { "32bit", GT_SIM_FIXED, 32 }, { "4bit", GT_SIM_FIXED, 4 },
			     { "aqgb", GT_SIM_AQGB, 0 } },
		.nschemes = 3,
	};
	const int rc = gt_argp_parse(&simulate_argp, argc, argv, &o);

	if (rc)
		return rc;
	return run_simulate(&o) < 0;
}
