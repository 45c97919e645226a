/* allreduce_opts.c - the options of `gtool allreduce`, parsed by gtool (for
 * --help and usage errors without MPI) and again by gtool-mpi: the one
 * argp table the two front ends share, so it lives below both */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_allreduce.h"
#include "gt_parse.h"
#include "gt_spec.h"
#include "../lib/gt_codec.h"
#include "../lib/banned.h"

enum { OPT_FORMAT = 0x100, OPT_STEP, OPT_PER_RANK, OPT_RATE, OPT_REPEAT,
       OPT_CHUNK, OPT_TILE, OPT_DUMP };

static const struct argp_option options[] = {
	{ "codec", 'c', "LIST", 0, "codec specs, comma-separated and repeatable "
	  "(\"zstd:level=1,huffexp,gcomp\"); none, the ring without compression, "
	  "always runs (default: " GT_ALLREDUCE_CODECS ")", 0 },
	{ "step", OPT_STEP, "S", 0, "rank r takes the r-th recorded step from step S "
	  "of the trace (default: the first)", 0 },
	{ "per-rank", OPT_PER_RANK, "PATTERN", 0, "each rank reads its own file: "
	  "PATTERN with %d (or %03d) replaced by the rank", 0 },
	{ "rate", OPT_RATE, "BITS", 0, "pace each rank's sends to BITS per second "
	  "(10G, 25G, 2.5G, 100M); default: loopback speed, not paced", 0 },
	{ "repeat", OPT_REPEAT, "N", 0, "timed runs per codec, after one warm-up "
	  "(default 5)", 0 },
	{ "chunk", OPT_CHUNK, "N", 0, "values per pipelined chunk (default 32K)", 0 },
	{ "tile", OPT_TILE, "K", 0, "repeat each rank's gradient (and its context) "
	  "K times, to model a larger model (default 1)", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "output format: table, markdown, csv, tsv or json", 0 },
	{ "dump", OPT_DUMP, "DIR", 0, "rank 0 writes each codec's result (CODEC.f32), "
	  "the f64 sum (exact.f64) and the sum of magnitudes (abssum.f64) into DIR", 0 },
	{ "quiet", 'q', NULL, 0, "print no warnings", 0 },
	{ 0 }
};

/* Every spec names a codec whose options are valid; "none" is the ring's. */
static void check_codecs(struct argp_state *state, const struct gt_allreduce_opts *o)
{
	for (size_t i = 0; i < o->codecs.n; i++) {
		struct gt_spec s;
		struct gt_diag d = { "" };

		if (!strcmp(o->codecs.v[i], "none"))
			continue;
		if (gt_spec_init(&s, o->codecs.v[i], 0, &d) < 0)
			argp_error(state, "%s; see 'gtool compress --list-codecs'", d.msg);
		gt_spec_release(&s);
	}
}

static void add_codecs(struct argp_state *state, struct gt_allreduce_opts *o, const char *list)
{
	if (gt_speclist_add(&o->codecs, list) < 0)
		argp_failure(state, 1, ENOMEM, "-c");
}

static enum gt_fmt parse_fmt(struct argp_state *state, const char *arg)
{
	enum gt_fmt fmt = GT_FMT_TABLE;

	if (gt_fmt_parse(arg, &fmt) < 0)
		argp_error(state, "invalid format '%s': expected table, csv, tsv, markdown or json",
			   arg);
	return fmt;
}

/* The length of a "%d" or "%0Nd" conversion at @p, or 0. */
static size_t conversion(const char *p)
{
	size_t k = 1;

	if (p[k] == '0')
		while (p[k] >= '0' && p[k] <= '9' && k < 4)
			k++;
	return p[k] == 'd' ? k + 1 : 0;
}

int gt_allreduce_rank_path(const char *pattern, int rank, char *buf, size_t cap)
{
	size_t out = 0, nconv = 0;

	for (const char *p = pattern; *p; ) {
		char piece[32];
		size_t len = 1, k;

		piece[0] = *p;
		piece[1] = '\0';
		if (*p == '%' && p[1] == '%') {
			len = 2;
		} else if (*p == '%' && (k = conversion(p)) != 0) {
			const int width = k > 2 ? (int)strtol(p + 2, NULL, 10) : 0;

			snprintf(piece, sizeof(piece), "%0*d", width, rank);
			len = k;
			nconv++;
		} else if (*p == '%') {
			return -1;
		}
		if (out + strlen(piece) >= cap)
			return -1;
		memcpy(buf + out, piece, strlen(piece) + 1);
		out += strlen(piece);
		p += len;
	}
	return nconv == 1 ? 0 : -1;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct gt_allreduce_opts *o = state->input;
	char probe[PATH_MAX];

	switch (key) {
	case 'c': add_codecs(state, o, arg); break;
	case 'q': o->quiet = 1; break;
	case OPT_STEP:
		if (gt_parse_int(arg, 0, 1L << 40, &o->step) < 0)
			argp_error(state, "invalid step '%s': expected 0 or more", arg);
		break;
	case OPT_PER_RANK:
		if (gt_allreduce_rank_path(arg, 0, probe, sizeof(probe)) < 0)
			argp_error(state, "invalid pattern '%s': expected one %%d (or %%03d) "
				   "for the rank", arg);
		o->per_rank = arg;
		break;
	case OPT_RATE:
		if (gt_parse_rate(arg, &o->rate) < 0 || o->rate < 1e3 || o->rate > 1e15)
			argp_error(state, "invalid rate '%s': expected bits per second, "
				   "1k to 1000T, as 10G, 2.5G or 100M", arg);
		o->rate_arg = arg;
		break;
	case OPT_REPEAT:
		if (gt_parse_int(arg, 1, 1000, &o->repeat) < 0)
			argp_error(state, "invalid repeat count '%s': expected 1-1000", arg);
		break;
	case OPT_CHUNK:
		if (gt_parse_size(arg, 1, (uint64_t)1 << 26, &o->chunk) < 0)
			argp_error(state, "invalid chunk '%s': expected 1 to 64M values", arg);
		break;
	case OPT_TILE:
		if (gt_parse_int(arg, 1, 4096, &o->tile) < 0)
			argp_error(state, "invalid tile count '%s': expected 1-4096", arg);
		break;
	case OPT_FORMAT: o->fmt = parse_fmt(state, arg); break;
	case OPT_DUMP: o->dump = arg; break;
	case ARGP_KEY_ARG:
		if (o->input || o->per_rank)
			argp_error(state, "expected one input: a trace, or --per-rank PATTERN");
		o->input = arg;
		break;
	case ARGP_KEY_END:
		if (!o->input && !o->per_rank)
			argp_error(state, "expected a trace, or --per-rank PATTERN");
		if (!o->codecs.n)
			add_codecs(state, o, GT_ALLREDUCE_CODECS);
		check_codecs(state, o);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp gt_allreduce_argp = {
	options, parse_opt, "[TRACE]",
	"Run a ring allreduce (reduce-scatter, then allgather) over the MPI "
	"ranks, with each partition cut into chunks that are compressed, sent, "
	"received, decompressed and reduced in a pipeline, once per codec, and "
	"MPI_Allreduce beside them. Rank r holds the gradient of the r-th "
	"recorded step from --step of TRACE (or the file --per-rank names). "
	"Per codec: allreduce time (median, min, max over --repeat), bytes sent "
	"per rank, time in compress, transfer, decompress and reduce, the time "
	"normalized to codec none, and the error of the result against the f64 "
	"sum of the ranks' gradients (max abs, RMSE, update fidelity)."
	"\vRun it under mpirun: mpirun -n 4 gtool allreduce -c gcomp trace.h5. "
	"Only rank 0 prints. See gtool-allreduce(1).",
	NULL, NULL, NULL
};

void gt_allreduce_release(struct gt_allreduce_opts *o)
{
	gt_speclist_release(&o->codecs);
}
