/* decompress.c - `gtool decompress`: a .gtz file back to HDF5, .npy or raw */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmds.h"
#include "common_opts.h"
#include "../front/msg.h"
#include "sigclean.h"
#include "util.h"
#include "filelist.h"
#include "filesum.h"
#include "../formats/gt_gtz.h"
#include "../formats/gt_sink.h"
#include "../lib/banned.h"

struct decompress_opts {
	const char *input, *output; /* the file at work and its output */
	char **inputs;           /* FILE... as given */
	size_t ninputs;
	const char *out_opt;     /* -o as given */
	struct gt_common c;      /* -d (common_opts.h), --format json */
	enum gt_kind kind;
	unsigned threads;
	int force, verbose, test, recursive;
	int several;             /* several outputs (-r or FILE...) */
};

enum { OPT_FORMAT = 256, OPT_OUT_FORMAT };

static const struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "output file: .h5, .npy or raw by its extension "
	  "(default: INPUT without .gtz; stdout for '-'), or a folder to write each "
	  "output in (several inputs need one)", 0 },
	{ "out-format", OPT_OUT_FORMAT, "KIND", 0, "output file format: hdf5, npy, raw "
	  "(default: from the output's extension)", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "a report per file on standard output: json, csv, tsv "
	  "or markdown (table: the summary lines only); hdf5, npy, raw: as --out-format", 0 },
	{ "force", 'f', NULL, 0, "overwrite an existing output file", 0 },
	{ "test", 't', NULL, 0, "decode every block and check its CRC, writing nothing; "
	  "say OK or the first error of each file", 0 },
	{ "recursive", 'r', NULL, 0, "decompress the .gtz files in each FOLDER and the "
	  "folders below it (other files are skipped)", 0 },
	{ "threads", 'T', "N", 0, "decoding threads (default and 0: all cores; reading and writing run in one more thread each)", 0 },
	{ "quiet", 'q', NULL, 0, "no progress or warnings", 0 },
	{ "verbose", 'v', NULL, 0, "a line per tensor", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct decompress_opts *o = state->input;

	switch (key) {
	case 'o': o->out_opt = arg; break;
	case 't': o->test = 1; break;
	case 'r': o->recursive = 1; break;
	case ARGP_KEY_INIT: gt_common_bind(state, &decompress_argp, &o->c); break;
	case OPT_OUT_FORMAT: o->kind = gt_argp_kind(state, arg, "output"); break;
	case OPT_FORMAT: gt_argp_fmt_or_kind(state, arg, "output", &o->c.fmt, &o->kind); break;
	case 'f': o->force = 1; break;
	case 'T':
		if (gt_parse_threads(arg, &o->threads) < 0)
			argp_error(state, "invalid thread count '%s'", arg);
		break;
	case 'q': gt_msg_set_quiet(1); break;
	case 'v': o->verbose = 1; break;
	case ARGP_KEY_ARG: gt_argp_dataset(&o->inputs, &o->ninputs, arg); break;
	case ARGP_KEY_NO_ARGS: argp_usage(state); break;
	case ARGP_KEY_END: o->several = o->ninputs > 1 || o->recursive; break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_common_dataset_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp decompress_argp = {
	options, parse_opt, "FILE...",
	"Decompress each .gtz FILE ('-' for stdin) made by 'gtool compress', or "
	"with -d only the tensors named, into FILE without .gtz (the inputs are "
	"kept; no file is overwritten without -f). Every block's CRC-32 is checked; a "
	"damaged file stops with the tensor and block named, and no output file "
	"is left behind. A raw or .npy output (and '-o -') takes one tensor: "
	"a file of several is refused before anything is written.  With several "
	"inputs (or -r), a failure on one is reported and the others go on; the "
	"exit status is then 1.",
	children, NULL, NULL
};

/* "x.h5.gtz" -> "x.h5", in the -o folder if there is one; NULL when the
 * name says nothing more and --format gives no kind. */
static char *default_output(const struct decompress_opts *o, const char *input)
{
	const char *dir = o->out_opt;
	char *out;

	if (!strcmp(input, "-"))
		return xstrdup("-");
	if (!gt_has_suffix(input, ".gtz"))
		return NULL;
	out = gt_path_in_dir(dir, input);
	out[strlen(out) - 4] = 0;
	if (gt_kind_from_name(out) == GT_KIND_AUTO && o->kind == GT_KIND_AUTO) {
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
	int skip;         /* the current tensor is not selected */
	unsigned char *hit; /* per -d pattern: it matched a tensor */
	size_t nsel;      /* tensors selected so far */
	/* with -d: groups wait until a selected tensor lies inside them */
	struct gt_group_info *pend;
	unsigned char *sent;
	size_t npend;
	/* one tensor to stdout from a pipe: held until EOF proves it alone,
	 * or up to HOLD_MAX bytes where its header can be written (raw, or
	 * .npy of a known count), then written as it comes (released: a
	 * second tensor is refused after the first's bytes) */
	int hold, released, npy;
	size_t hold_max;
	struct gt_tensor_info held;
	unsigned char *buf;
	size_t len, cap;
	int hdf5;         /* the output holds links and whole datasets */
	size_t dropped;   /* objects a raw or .npy output cannot hold */
	enum gt_dtype dtype; /* of the tensor at work */
	uint64_t out_bytes;  /* of the selected tensors' values */
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
	struct gt_group_info *p;

	if (!s->o->c.ndatasets)
		return sink_rc(s, gt_sink_group(s->sink, g, d));
	s->pend = xrealloc(s->pend, (s->npend + 1) * sizeof(*s->pend));
	s->sent = xrealloc(s->sent, s->npend + 1);
	p = &s->pend[s->npend];
	p->name = xstrdup(g->name);
	memset(&p->attrs, 0, sizeof(p->attrs));
	s->sent[s->npend++] = 0;
	if (gt_attrs_copy(&p->attrs, &g->attrs) < 0)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	return 0;
}

/* The waiting groups that hold tensor @name, parents first (file order). */
static int send_groups(struct state *s, const char *name, struct gt_diag *d)
{
	for (size_t i = 0; i < s->npend; i++) {
		const char *g = s->pend[i].name;
		const size_t len = strlen(g);

		if (s->sent[i] || !(!strcmp(g, "/") ||
				    (!strncmp(name, g, len) && name[len] == '/')))
			continue;
		s->sent[i] = 1;
		GT_TRY(sink_rc(s, gt_sink_group(s->sink, &s->pend[i], d)));
	}
	return 0;
}

/* Keep a copy of @t for the held tensor (the reader's goes away). */
static int hold_info(struct state *s, const struct gt_tensor_info *t, struct gt_diag *d)
{
	s->held = *t;
	s->held.name = xstrdup(t->name);
	memset(&s->held.attrs, 0, sizeof(s->held.attrs));
	if (gt_attrs_copy(&s->held.attrs, &t->attrs) < 0)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	return 0;
}

/*
 * The most bytes of a tensor held for standard output from a pipe: a
 * trace of small tensors is still refused before a byte is written, and
 * a large tensor streams in bounded memory.  A .npy header needs the
 * count: a tensor compressed from a stream has it only at its end, and
 * is held whole.
 */
#define HOLD_MAX ((size_t)64 << 20)

/* Write the held tensor's begin and values, and stream from here on (or,
 * at the end, before its end). */
static int release(struct state *s, struct gt_diag *d)
{
	const size_t w = gt_dtype_size(s->held.dtype);

	s->hold = 0;
	s->released = 1;
	GT_TRY(sink_rc(s, gt_sink_begin(s->sink, &s->held, d)));
	GT_TRY(sink_rc(s, gt_sink_write(s->sink, s->buf, s->len / w, d)));
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
	return 0;
}

static int on_tensor(void *arg, const struct gt_gtz_tensor *t, struct gt_diag *d)
{
	struct state *s = arg;
	const struct decompress_opts *o = s->o;

	s->skip = !gt_tensor_match(t->info.name, o->c.datasets, o->c.ndatasets);
	for (size_t i = 0; i < o->c.ndatasets; i++)
		s->hit[i] |= gt_tensor_match(t->info.name, &o->c.datasets[i], 1);
	if (s->skip)
		return 0;
	if ((s->hold || s->released) && s->nsel)
		return gt_diag_set(d, GT_ERR(INVAL), "more than one tensor (%s, %s): "
				   "standard output takes one; select it with -d PATTERN",
				   s->held.name, t->info.name);
	s->nsel++;
	s->dtype = t->info.dtype;
	if (s->hold) {
		s->hold_max = s->npy && t->info.count == GT_COUNT_UNKNOWN ? SIZE_MAX : HOLD_MAX;
		return hold_info(s, &t->info, d);
	}
	GT_TRY(send_groups(s, t->info.name, d));
	return sink_rc(s, gt_sink_begin(s->sink, &t->info, d));
}

static int on_data(void *arg, const void *values, size_t n, struct gt_diag *d)
{
	struct state *s = arg;
	size_t bytes;

	if (s->skip)
		return 0;
	gt_progress_add(&s->progress, n);
	s->out_bytes += (uint64_t)n * gt_dtype_size(s->dtype);
	if (!s->hold)
		return sink_rc(s, gt_sink_write(s->sink, values, n, d));
	bytes = n * gt_dtype_size(s->held.dtype);
	if (bytes > s->hold_max - s->len) {
		GT_TRY(release(s, d));
		return sink_rc(s, gt_sink_write(s->sink, values, n, d));
	}
	if (bytes > s->cap - s->len) {
		s->cap = s->len + bytes > 2 * s->cap ? s->len + bytes : 2 * s->cap;
		s->buf = xrealloc(s->buf, s->cap);
	}
	memcpy(s->buf + s->len, values, bytes);
	s->len += bytes;
	return 0;
}

static int on_end(void *arg, const struct gt_gtz_tensor *t, struct gt_diag *d)
{
	struct state *s = arg;

	if (s->skip)
		return 0;
	if (s->o->verbose)
		fprintf(stderr, "%s: %s: %llu values\n", gt_msg_prefix(), t->info.name,
			(unsigned long long)t->info.count);
	if (s->hold) {
		s->held.count = t->info.count; /* known now for a raw stream */
		s->held.dims[0] = t->info.rank == 1 ? t->info.dims[0] : s->held.dims[0];
		return 0;
	}
	return sink_rc(s, gt_sink_end(s->sink, d));
}

static int on_eof(void *arg, struct gt_diag *d)
{
	struct state *s = arg;

	for (size_t i = 0; i < s->o->c.ndatasets; i++)
		if (!s->hit[i])
			return gt_diag_set(d, GT_ERR(NOTFOUND), "dataset %s not found",
					   s->o->c.datasets[i]);
	if (s->hold && s->nsel) {
		GT_TRY(release(s, d));
		GT_TRY(sink_rc(s, gt_sink_end(s->sink, d)));
	}
	return sink_rc(s, gt_sink_commit(s->sink, d));
}

static int on_object(void *arg, const struct gt_object *o, struct gt_diag *d)
{
	struct state *s = arg;
	const struct decompress_opts *op = s->o;

	/* with -d, a link or non-float dataset comes out when a pattern names it */
	if (!gt_tensor_match(o->name, op->c.datasets, op->c.ndatasets))
		return 0;
	for (size_t i = 0; i < op->c.ndatasets; i++)
		s->hit[i] |= gt_tensor_match(o->name, &op->c.datasets[i], 1);
	if (!s->hdf5) {
		s->dropped++;
		return 0;
	}
	GT_TRY(send_groups(s, o->name, d));
	return sink_rc(s, gt_sink_object(s->sink, o, d));
}

static const struct gt_gtz_callbacks callbacks = {
	on_group, on_tensor, on_data, on_end, on_eof, on_object,
};

/* The output's kind as the sink will take it; AUTO when it cannot tell. */
static enum gt_kind out_kind(const struct decompress_opts *o)
{
	if (o->kind != GT_KIND_AUTO || !o->output)
		return o->kind;
	return strcmp(o->output, "-") ? gt_kind_from_name(o->output) : GT_KIND_RAW;
}

/* Whether -d pattern @p names a tensor or an object (link, non-float
 * dataset) of @src. */
static int pattern_hits(const struct gt_source *src, char *const *p)
{
	for (size_t i = 0; i < gt_source_count(src); i++)
		if (gt_tensor_match(gt_source_info(src, i)->name, p, 1))
			return 1;
	for (size_t i = 0; i < gt_source_nobjects(src); i++)
		if (gt_tensor_match(gt_source_object(src, i)->name, p, 1))
			return 1;
	return 0;
}

/*
 * A seekable input lists its tensors first: the -d patterns are checked
 * and a one-tensor output refuses several float tensors before anything
 * is written.  1: the listing failed (a damaged file): decoding in order
 * will say where, so no message here.  *@total_ret: the values selected,
 * for the progress line.
 */
static int precheck(const struct decompress_opts *o, uint64_t *total_ret)
{
	const struct gt_source_opts so = { GT_KIND_GTZ, GT_DT_NONE, 0 };
	const enum gt_kind k = out_kind(o);
	struct gt_source *src = NULL;
	struct gt_diag d = { "" };
	size_t n = 0;
	int rc;

	if (gt_source_open(o->input, &so, &src, &d) < 0)
		return 1;
	rc = 0;
	for (size_t p = 0; rc >= 0 && p < o->c.ndatasets; p++)
		if (!pattern_hits(src, &o->c.datasets[p]))
			rc = gt_error("%s: dataset %s not found", o->input, o->c.datasets[p]);
	for (size_t i = 0; rc >= 0 && i < gt_source_count(src); i++) {
		const struct gt_tensor_info *t = gt_source_info(src, i);

		if (t->dtype != GT_DT_NONE &&
		    gt_tensor_match(t->name, o->c.datasets, o->c.ndatasets)) {
			n++;
			*total_ret += t->count;
		}
	}
	if (rc >= 0 && n > 1 && (k == GT_KIND_RAW || k == GT_KIND_NPY))
		rc = gt_error("%s: %zu tensors%s; a %s output takes one: select it with "
			      "-d PATTERN, or write .h5", o->input, n,
			      o->c.ndatasets ? " match" : "", k == GT_KIND_NPY ? ".npy" : "raw");
	gt_source_free(src);
	return rc;
}

/* A regular file, not stdin: it can be listed before decoding. */
static int seekable(const struct decompress_opts *o, FILE *f)
{
	struct stat sb;

	return strcmp(o->input, "-") && fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The progress line shows a percentage when the input could be listed. */
static int progress_wanted(void)
{
	return !gt_msg_quiet() && isatty(STDERR_FILENO);
}

/* The bytes of the .gtz read, up to its trailer (a pipe has no size). */
static uint64_t gtz_bytes(const struct gt_gtz_reader *r)
{
	struct gt_gtz_record rec;

	gt_gtz_last_record(r, &rec);
	return rec.offset + rec.bytes;
}

static void state_release(struct state *s)
{
	gt_sink_free(s->sink);
	gt_gtz_reader_free(s->r);
	free(s->held.name);
	gt_attrs_release(&s->held.attrs);
	free(s->buf);
	free(s->hit);
	for (size_t i = 0; i < s->npend; i++) {
		free(s->pend[i].name);
		gt_attrs_release(&s->pend[i].attrs);
	}
	free(s->pend);
	free(s->sent);
}

/* An error of the reader names the input, one of the sink the output. */
static int run_decompress(const struct decompress_opts *o, struct gt_filesum *sum)
{
	const struct gt_sink_opts so = { o->kind, o->force };
	const enum gt_kind k = out_kind(o);
	struct state s;
	struct gt_diag d = { "" };
	uint64_t total = 0;
	FILE *f = stdin;
	int rc, slot = -1;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.hit = xcalloc(o->c.ndatasets + 1, 1);
	if (strcmp(o->input, "-") && !(f = fopen(o->input, "rb"))) {
		free(s.hit);
		return gt_error_errno("%s", o->input);
	}
	/* HDF5 takes any number of tensors: only -d patterns and the
	 * progress line need the list */
	rc = seekable(o, f) && (k == GT_KIND_RAW || k == GT_KIND_NPY || o->c.ndatasets ||
				progress_wanted()) ? precheck(o, &total) : 1;
	if (rc < 0)
		goto out;
	/* not listed: one tensor to stdout is held until the end shows it alone */
	s.hold = rc == 1 && !strcmp(o->output, "-") && (k == GT_KIND_RAW || k == GT_KIND_NPY);
	s.npy = k == GT_KIND_NPY;
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
	slot = gt_sigclean_add(gt_sink_tmp_path(s.sink));
	s.hdf5 = k == GT_KIND_HDF5;
	gt_progress_init(&s.progress, "decompressing", total);
	rc = gt_gtz_read_all(s.r, &callbacks, &s, &d);
	gt_progress_end(&s.progress);
	if (rc < 0)
		rc = gt_error("%s: %s", s.sink_failed ? o->output : o->input, d.msg);
	else if (s.dropped)
		gt_warn("%s: %zu %s left out: %s holds one float tensor", o->input, s.dropped,
			s.dropped == 1 ? "link or non-float dataset" : "links and non-float datasets",
			o->output);
	sum->gtz_bytes = gtz_bytes(s.r);
	sum->raw_bytes = s.out_bytes;
	sum->ntensors = s.nsel;
out:
	gt_sigclean_remove(slot);
	if (f != stdin)
		fclose(f);
	state_release(&s);
	return rc;
}

/* -t: the callbacks count what a decompression would write. */
static int t_group(void *arg, const struct gt_group_info *g, struct gt_diag *d)
{
	(void)arg, (void)g, (void)d;
	return 0;
}

static int t_tensor(void *arg, const struct gt_gtz_tensor *t, struct gt_diag *d)
{
	struct state *s = arg;

	(void)d;
	s->nsel++;
	s->dtype = t->info.dtype;
	return 0;
}

static int t_data(void *arg, const void *values, size_t n, struct gt_diag *d)
{
	struct state *s = arg;

	(void)values, (void)d;
	gt_progress_add(&s->progress, n);
	s->out_bytes += (uint64_t)n * gt_dtype_size(s->dtype);
	return 0;
}

static int t_end(void *arg, const struct gt_gtz_tensor *t, struct gt_diag *d)
{
	struct state *s = arg;

	(void)d;
	if (s->o->verbose)
		fprintf(stderr, "%s: %s: %llu values\n", gt_msg_prefix(), t->info.name,
			(unsigned long long)t->info.count);
	return 0;
}

static int t_eof(void *arg, struct gt_diag *d)
{
	(void)arg, (void)d;
	return 0;
}

static int t_object(void *arg, const struct gt_object *o, struct gt_diag *d)
{
	(void)arg, (void)o, (void)d;
	return 0;
}

static const struct gt_gtz_callbacks test_callbacks = {
	t_group, t_tensor, t_data, t_end, t_eof, t_object,
};

/* -t: decode every block (and whole dataset) of o->input, check its CRC,
 * write nothing. */
static int run_test(const struct decompress_opts *o, struct gt_filesum *sum)
{
	struct state s;
	struct gt_diag d = { "" };
	uint64_t total = 0;
	FILE *f = stdin;
	int rc;

	memset(&s, 0, sizeof(s));
	s.o = o;
	if (strcmp(o->input, "-") && !(f = fopen(o->input, "rb")))
		return gt_error_errno("%s", o->input);
	if (seekable(o, f) && progress_wanted()) {
		struct decompress_opts any = *o;

		any.kind = GT_KIND_AUTO; /* no output: nothing to refuse */
		(void)precheck(&any, &total);
	}
	rc = gt_gtz_reader_open(f, o->threads, &s.r, &d);
	if (rc >= 0) {
		gt_progress_init(&s.progress, "testing", total);
		rc = gt_gtz_read_all(s.r, &test_callbacks, &s, &d);
		gt_progress_end(&s.progress);
	}
	if (rc < 0)
		rc = gt_error("%s: %s", o->input, d.msg);
	else {
		sum->gtz_bytes = gtz_bytes(s.r);
		sum->raw_bytes = s.out_bytes;
		sum->ntensors = s.nsel;
	}
	if (f != stdin)
		fclose(f);
	state_release(&s);
	return rc;
}

/* The output of o->input; 0, or the exit status of a refusal. */
static int pick_output(const struct decompress_opts *o, char **out_ret)
{
	char *out;

	*out_ret = NULL;
	if (o->out_opt && !gt_is_dir(o->out_opt))
		out = xstrdup(o->out_opt);
	else if (!(out = default_output(o, o->input))) {
		if (!o->several) {
			gt_error("%s: cannot tell the output name; use -o FILE", o->input);
			return 2;
		}
		gt_error("%s: cannot tell the output format from its name; use --format KIND",
			 o->input);
		return 1;
	}
	*out_ret = out;
	if (!strcmp(out, "-") && isatty(STDOUT_FILENO) && !o->force) {
		gt_error("refusing to write binary data to a terminal; use -o FILE or a pipe");
		return 1;
	}
	return 0;
}

/* Decompress or test one input; its report goes to stderr and into @j. */
static int decompress_one(const struct decompress_opts *opts, const char *input,
			  struct gt_filelist *l, struct gt_filesum_report *j)
{
	struct decompress_opts o = *opts;
	struct gt_filesum s = { 0 };
	char *out = NULL;
	double t0;
	int rc = 0;

	o.input = input;
	if (o.several && !gt_has_suffix(input, ".gtz")) {
		gt_warn("%s: no .gtz suffix, skipped", input);
		return 0;
	}
	if (!o.test && !(rc = pick_output(&o, &out)) && strcmp(out, "-") && gt_filelist_claim(l, out))
		rc = gt_error("%s: %s is written from another input of this run", input, out) < 0;
	o.output = out;
	t0 = gt_now();
	if (!rc)
		rc = (o.test ? run_test(&o, &s) : run_decompress(&o, &s)) < 0;
	s.input = input;
	s.output = rc ? NULL : out;
	s.ok = !rc;
	s.unpack = 1;
	s.seconds = gt_now() - t0;
	s.gtz_path = strcmp(input, "-") ? input : NULL;
	s.patterns = o.c.datasets;
	s.npatterns = o.c.ndatasets;
	if (!rc && !gt_msg_quiet() && (o.test || o.verbose || isatty(STDERR_FILENO)))
		gt_filesum_line(&s, o.test ? "OK" : NULL);
	if (j)
		gt_filesum_report_add(j, &s, o.verbose);
	free(out);
	return rc;
}

/* What several inputs, -t, a folder and --format json refuse (exit 2). */
static int check_usage(const struct decompress_opts *o)
{
	const char *to = o->out_opt ? o->out_opt : o->ninputs == 1 ? o->inputs[0] : "";

	for (size_t i = 0; o->several && i < o->ninputs; i++)
		if (!strcmp(o->inputs[i], "-"))
			return gt_error("'-' (standard input) cannot be one of several inputs");
	if (o->test && (o->out_opt || o->c.ndatasets))
		return gt_error("-t writes nothing and checks the whole file: no -o or -d with it");
	if (o->several && o->out_opt && !gt_is_dir(o->out_opt))
		return gt_error("%s: not a folder: with several inputs, -o names a folder",
				o->out_opt);
	if (o->out_opt && gt_is_dir(o->out_opt) && o->ninputs == 1 && !strcmp(o->inputs[0], "-"))
		return gt_error("%s: standard input has no name to write in a folder; "
				"use -o FILE", o->out_opt);
	if (o->c.fmt != GT_FMT_TABLE && !o->test && !strcmp(to, "-"))
		return gt_error("--format %s prints on standard output, where the "
				"decompressed data goes; use -o FILE", gt_filesum_fmt_name(o->c.fmt));
	return 0;
}

int cmd_decompress(int argc, char **argv)
{
	struct decompress_opts o = { 0 };
	struct gt_filelist l = { 0 };
	struct gt_filesum_report *j = NULL;
	int rc = gt_argp_parse(&decompress_argp, argc, argv, &o);

	if (rc || (rc = check_usage(&o) < 0 ? 2 : 0))
		goto done;
	if (!o.threads)
		o.threads = (unsigned)gt_ncores();
	for (size_t i = 0; i < o.ninputs; i++)
		gt_filelist_add(&l, o.inputs[i], o.recursive);
	rc = l.failed ? 1 : 0;
	j = gt_filesum_report_new(o.c.fmt);
	for (size_t i = 0; i < l.n; i++) {
		const int one = decompress_one(&o, l.paths[i], &l, j);

		rc = one > rc ? one : rc;
	}
	if (gt_filesum_report_print(j) < 0)
		rc = 1;
done:
	gt_filelist_release(&l);
	free(o.inputs);
	gt_common_release(&o.c);
	return rc;
}
