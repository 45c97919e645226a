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
	case ARGP_KEY_ARG: gt_argp_input(state, &o->input, arg); break;
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
	int sink_failed;  /* the error came from writing the output */
	int hdf5;         /* the output holds links and whole datasets */
	size_t dropped;   /* objects a raw or .npy output cannot hold */
};

/* A sink error: the message names the output. */
static int sink_rc(struct state *s, int rc)
{
	if (rc < 0)
		s->sink_failed = 1;
	return rc;
}

static int on_group(void *arg, const struct gt_group_info *g, struct gt_diag *d)
{
	struct state *s = arg;

	return sink_rc(s, gt_sink_group(s->sink, g, d));
}

static int on_tensor(void *arg, const struct gt_gtz_tensor *t, struct gt_diag *d)
{
	struct state *s = arg;

	return sink_rc(s, gt_sink_begin(s->sink, &t->info, d));
}

static int on_data(void *arg, const void *values, size_t n, struct gt_diag *d)
{
	struct state *s = arg;

	gt_progress_add(&s->progress, n);
	return sink_rc(s, gt_sink_write(s->sink, values, n, d));
}

static int on_end(void *arg, const struct gt_gtz_tensor *t, struct gt_diag *d)
{
	struct state *s = arg;

	if (s->o->verbose)
		fprintf(stderr, "%s: %s: %llu values\n", gt_msg_prefix(), t->info.name,
			(unsigned long long)t->info.count);
	return sink_rc(s, gt_sink_end(s->sink, d));
}

static int on_eof(void *arg, struct gt_diag *d)
{
	struct state *s = arg;

	return sink_rc(s, gt_sink_commit(s->sink, d));
}

static int on_object(void *arg, const struct gt_object *o, struct gt_diag *d)
{
	struct state *s = arg;

	if (!s->hdf5) {
		s->dropped++;
		return 0;
	}
	return sink_rc(s, gt_sink_object(s->sink, o, d));
}

static const struct gt_gtz_callbacks callbacks = {
	on_group, on_tensor, on_data, on_end, on_eof, on_object,
};

/* An error of the reader names the input, one of the sink the output. */
static int run_decompress(const struct decompress_opts *o)
{
	const struct gt_sink_opts so = { o->kind, o->force };
	struct state s = { o, NULL, NULL, { 0 }, 0, 0, 0 };
	struct gt_diag d = { "" };
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
	s.hdf5 = (o->kind ? o->kind : strcmp(o->output, "-") ? gt_kind_from_name(o->output)
		  : GT_KIND_RAW) == GT_KIND_HDF5;
	gt_progress_init(&s.progress, "decompressing", 0);
	rc = gt_gtz_read_all(s.r, &callbacks, &s, &d);
	gt_progress_end(&s.progress);
	if (rc < 0)
		rc = gt_error("%s: %s", s.sink_failed ? o->output : o->input, d.msg);
	else if (s.dropped)
		gt_warn("%s: %zu %s left out: %s holds one float tensor", o->input, s.dropped,
			s.dropped == 1 ? "link or non-float dataset" : "links and non-float datasets",
			o->output);
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
