/* decompress.c - `gtool decompress`: a .gtz file back to HDF5, .npy or raw */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "msg.h"
#include "util.h"
#include "../formats/gt_gtz.h"
#include "../formats/gt_sink.h"
#include "../lib/banned.h"

struct decompress_opts {
	const char *input, *output;
	enum gt_kind kind;
	unsigned threads;
	int force, verbose;
};

enum { OPT_FORMAT = 256 };

static const struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "output file: .h5, .npy or raw by its extension "
	  "(default: INPUT without .gtz; stdout for '-')", 0 },
	{ "format", OPT_FORMAT, "KIND", 0, "output format: hdf5, npy, raw", 0 },
	{ "force", 'f', NULL, 0, "overwrite an existing output file", 0 },
	{ "threads", 'T', "N", 0, "worker threads (default: all cores)", 0 },
	{ "quiet", 'q', NULL, 0, "no progress or warnings", 0 },
	{ "verbose", 'v', NULL, 0, "a line per tensor", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct decompress_opts *o = state->input;

	switch (key) {
	case 'o': o->output = arg; break;
	case OPT_FORMAT:
		o->kind = gt_kind_parse(arg);
		if (o->kind == GT_KIND_AUTO || o->kind == GT_KIND_GTZ)
			argp_error(state, "unknown output format '%s': expected hdf5, npy or raw", arg);
		break;
	case 'f': o->force = 1; break;
	case 'T':
		if (gt_parse_threads(arg, &o->threads) < 0)
			argp_error(state, "invalid thread count '%s'", arg);
		break;
	case 'q': gt_msg_set_quiet(1); break;
	case 'v': o->verbose = 1; break;
	case ARGP_KEY_ARG:
		if (o->input)
			argp_error(state, "one input file at a time");
		o->input = arg;
		break;
	case ARGP_KEY_NO_ARGS: argp_usage(state); break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp decompress_argp = {
	options, parse_opt, "FILE",
	"Decompress a .gtz file ('-' for stdin) made by 'gtool compress'. Every "
	"block's CRC-32 is checked; a damaged file stops with the tensor and "
	"block named, and no output file is left behind.",
	NULL, NULL, NULL
};

/* "x.h5.gtz" -> "x.h5"; NULL when the name says nothing more. */
static char *default_output(const char *input)
{
	const size_t n = strlen(input);
	char *out;

	if (!strcmp(input, "-"))
		return xstrdup("-");
	if (n <= 4 || strcmp(input + n - 4, ".gtz"))
		return NULL;
	out = xstrdup(input);
	out[n - 4] = 0;
	if (gt_kind_from_name(out) == GT_KIND_AUTO) {
		free(out);
		return NULL;
	}
	return out;
}

struct state {
	const struct decompress_opts *o;
	struct gt_gtz_reader *r;
	struct gt_sink *sink;
	struct gt_progress progress;
};

static int on_event(struct state *s, enum gt_gtz_event ev, struct gt_diag *d)
{
	const void *data;
	size_t n;

	switch (ev) {
	case GT_GTZ_GROUP: return gt_sink_group(s->sink, gt_gtz_group(s->r), d);
	case GT_GTZ_TENSOR: return gt_sink_begin(s->sink, &gt_gtz_tensor(s->r)->info, d);
	case GT_GTZ_DATA:
		gt_gtz_data(s->r, &data, &n);
		gt_progress_add(&s->progress, n);
		return gt_sink_write(s->sink, data, n, d);
	case GT_GTZ_TENSOR_END:
		if (s->o->verbose)
			fprintf(stderr, "%s: %s: %llu values\n", gt_msg_prefix(),
				gt_gtz_tensor(s->r)->info.name,
				(unsigned long long)gt_gtz_tensor(s->r)->info.count);
		return gt_sink_end(s->sink, d);
	case GT_GTZ_EOF: return gt_sink_commit(s->sink, d);
	}
	return 0;
}

static int run_decompress(const struct decompress_opts *o)
{
	const struct gt_sink_opts so = { o->kind, o->force };
	struct state s = { o, NULL, NULL, { 0 } };
	struct gt_diag d = { "" };
	enum gt_gtz_event ev = GT_GTZ_DATA;
	FILE *f = stdin;
	int rc;

	if (strcmp(o->input, "-") && !(f = fopen(o->input, "rb")))
		return gt_error_errno("%s", o->input);
	rc = gt_gtz_reader_open(f, o->threads, &s.r, &d);
	if (rc < 0) {
		rc = gt_error("%s: %s", o->input, d.msg);
		goto out;
	}
	rc = gt_sink_open(o->output, &so, &s.sink, &d);
	if (rc < 0) {
		rc = gt_error("%s", d.msg);
		goto out;
	}
	gt_progress_init(&s.progress, "decompressing", 0);
	while (rc >= 0 && ev != GT_GTZ_EOF) {
		rc = gt_gtz_next(s.r, &ev, &d);
		if (rc < 0) {
			rc = gt_error("%s: %s", o->input, d.msg);
			break;
		}
		rc = on_event(&s, ev, &d);
		if (rc < 0)
			rc = gt_error("%s: %s", o->output, d.msg);
	}
	gt_progress_end(&s.progress);
out:
	gt_sink_free(s.sink);
	gt_gtz_reader_free(s.r);
	if (f != stdin)
		fclose(f);
	return rc;
}

int cmd_decompress(int argc, char **argv)
{
	struct decompress_opts o = { 0 };
	char *out = NULL;
	int rc = gt_argp_parse(&decompress_argp, argc, argv, &o);

	if (rc)
		return rc;
	if (!o.threads)
		o.threads = (unsigned)gt_ncores();
	if (!o.output) {
		out = default_output(o.input);
		if (!out) {
			gt_error("%s: cannot tell the output name; use -o FILE", o.input);
			return 2;
		}
		o.output = out;
	}
	if (!strcmp(o.output, "-") && isatty(STDOUT_FILENO) && !o.force) {
		gt_error("refusing to write binary data to a terminal; use -o FILE or a pipe");
		free(out);
		return 1;
	}
	rc = run_decompress(&o) < 0;
	free(out);
	return rc;
}
