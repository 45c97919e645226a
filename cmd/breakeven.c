/* breakeven.c - `gtool breakeven`: which codecs pay off on which links (the FFT paper's break-even model, Eq. 4) */
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
#include "../analysis/gt_breakeven.h"
#include "../lib/banned.h"

#define MAX_LINKS 64

struct breakeven_opts {
	const char *from, *file, *codecs;
	double links[MAX_LINKS];
	size_t nlinks;
	long repeat;
	struct gt_common c;      /* the shared options (common_opts.h) */
};

enum { OPT_FROM = 0x100, OPT_BANDWIDTH, OPT_FORMAT, OPT_REPEAT };

static const struct argp_option options[] = {
	{ "from", OPT_FROM, "FILE", 0,
	  "codec speeds and ratios from FILE, written by gtool bench --format json "
	  "(else they are measured now on DATA)", 0 },
	{ "codecs", 'c', "LIST", 0, "codecs to measure on DATA (default " GT_MEASURE_CODECS ")", 0 },
	{ "repeat", OPT_REPEAT, "N", 0, "timed runs of each codec on DATA (default 5)", 0 },
	{ "bandwidth", OPT_BANDWIDTH, "LIST", 0,
	  "link speeds in bits/s, comma-separated: 10G,56G,100G (default 10G)", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct breakeven_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &breakeven_argp, &o->c); break;
	case OPT_FROM: o->from = arg; break;
	case OPT_BANDWIDTH:
		if (gt_parse_rate_list(arg, o->links, MAX_LINKS, &o->nlinks) < 0)
			argp_error(state, "invalid bandwidth list '%s': expected rates in "
				   "bits/s such as 10G,56G,100G", arg);
		break;
	case 'c': o->codecs = arg; break;
	case OPT_REPEAT:
		if (gt_parse_int(arg, 1, 1000, &o->repeat) < 0)
			argp_error(state, "invalid repeat '%s': expected 1-1000", arg);
		break;
	case ARGP_KEY_ARG:
		if (o->file)
			argp_error(state, "one data file at a time");
		o->file = arg;
		break;
	case ARGP_KEY_END:
		if (!o->from == !o->file)
			argp_error(state, "give either --from BENCH.json or a DATA file to measure");
		if (o->from && o->codecs)
			argp_error(state, "-c picks codecs to measure; with --from the file has them");
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_common_fmt_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp breakeven_argp = {
	options, parse_opt, "--from BENCH.json\nDATA",
	"The break-even model of Wang et al., FFT-based Gradient Sparsification for "
	"the Distributed Training of Deep Neural Networks (HPDC '20, §3.3, "
	"Eq. 1-4): for each link speed and "
	"each codec measured by gtool bench, the smallest compression factor "
	"k_min = 1 / (1 - B (1/Tc + 1/Td)) that pays for compressing at Tc and "
	"decompressing at Td on a link of B bytes/s, and whether the codec's own "
	"factor 1/ratio speeds the transfer up or slows it down.  The speeds "
	"come from a gtool bench JSON file, or are measured now on DATA by gtool "
	"bench on one thread."
	"\vspeedup = (1/B) / (1/Tc + ratio/B + 1/Td): above 1 the codec is faster "
	"than sending the data as it is.  k_min is inf (null in JSON) when no "
	"factor pays off.",
	children, NULL, NULL
};

static const char *verdict(double speedup)
{
	if (speedup > 1)
		return "faster";
	return speedup < 1 ? "slower" : "even";
}

static void add_row(struct gt_table *tab, double link_bps, const struct gt_codec_pair *p)
{
	const double link_Bps = link_bps / 8;
	const double sp = gt_breakeven_speedup(&p->speed, link_Bps);
	char name[32];

	gt_table_str(tab, gt_rate_name(link_bps, name, sizeof(name)));
	gt_table_num(tab, link_bps, 6);
	gt_table_str(tab, p->comp->spec);
	gt_table_uint(tab, p->comp->threads);
	gt_table_num(tab, p->speed.ratio, 4);
	gt_table_num(tab, 1 / p->speed.ratio, 4);
	gt_table_num(tab, p->speed.comp_Bps / 1e6, 5);
	gt_table_num(tab, p->speed.decomp_Bps / 1e6, 5);
	gt_table_num(tab, gt_breakeven_kmin(link_Bps, p->speed.comp_Bps,
					    p->speed.decomp_Bps), 4);
	gt_table_num(tab, sp, 4);
	gt_table_str(tab, verdict(sp));
}

static int run_breakeven(const struct breakeven_opts *o)
{
	static const char *const cols[] = {
		"link", "link_bps", "codec", "threads", "ratio", "cf", "compress_mbps",
		"decompress_mbps", "k_min", "speedup", "verdict",
	};
	struct gt_bench_row *rows;
	struct gt_codec_pair *pairs;
	struct gt_diag d = { "" };
	struct gt_table *tab;
	size_t n;

	if ((o->from ? gt_bench_pairs(o->from, &rows, &pairs, &n, &d)
		     : gt_bench_measure(o->file, o->codecs, (unsigned)o->repeat, &rows, &pairs, &n,
					&d)) < 0)
		return gt_error("%s", d.msg);
	tab = gt_table_new(o->c.fmt);
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		gt_table_col(tab, cols[c]);
	for (size_t l = 0; l < o->nlinks; l++)
		for (size_t i = 0; i < n; i++)
			add_row(tab, o->links[l], &pairs[i]);
	gt_table_print(tab, stdout);
	gt_table_free(tab);
	free(rows);
	free(pairs);
	return 0;
}

int cmd_breakeven(int argc, char **argv)
{
	struct breakeven_opts o = { .links = { 10e9 }, .nlinks = 1, .repeat = 5 };
	const int rc = gt_argp_parse(&breakeven_argp, argc, argv, &o);

	if (rc)
		return rc;
	return run_breakeven(&o) < 0;
}
