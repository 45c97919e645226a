/* compress.c - `gtool compress`: tensors of any input into a .gtz file, or an HDF5 file with gtool's filter */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "common_opts.h"
#include "../front/msg.h"
#include "optflags.h"
#include "sigclean.h"
#include "util.h"
#include "filelist.h"
#include "filesum.h"
#include "../engine/gt_pack.h"
#include "../engine/gt_spec.h"
#include "../lib/banned.h"

/* The options of `gtool compress`, as its parser fills them. */
struct compress_opts {
	struct gt_common c;              /* the input at work, -d, --dtype, sizes, -q, -v */
	char **inputs;                   /* FILE... as given */
	size_t ninputs;
	int recursive, several;          /* -r; several outputs (-r or FILE...) */
	const char *output, *codec, *table_path;
	int list_codecs;
	long level, table_refresh;
	unsigned threads;                /* 0: all cores */
	struct gt_optflags of;
	int force, grads_only;
	int lossy_metadata;              /* go on, with a warning, past what cannot be kept */
};

enum { OPT_TABLE = 256, OPT_REFRESH, OPT_FORMAT, OPT_GRADS_ONLY, OPT_LOSSY_META, OPT_IN_FORMAT };

static const struct argp_option options[] = {
	{ "codec", 'c', "NAME[:K=V,...]", 0, "codec and its options (default huffexp; see --list-codecs)", 0 },
	{ "level", 'l', "N", 0, "level for zstd (1-22) and zlib (1-9), as codec option level=N", 0 },
	{ "table", OPT_TABLE, "FILE", 0, "static Huffman table from 'gtool huffman build' (huffexp)", 0 },
	{ "table-refresh", OPT_REFRESH, "N", 0, "on a trace: rebuild the table every N steps from the steps before", 0 },
	{ "output", 'o', "FILE", 0, "output file (default: INPUT.gtz; stdout for '-'), or a folder "
	  "to write each INPUT.gtz in (several inputs need one); .h5/.hdf5: HDF5 with gtool's filter", 0 },
	{ "force", 'f', NULL, 0, "overwrite an existing output file", 0 },
	{ "recursive", 'r', NULL, 0, "compress the files in each FOLDER and the folders below it "
	  "(files already ending in .gtz are skipped)", 0 },
	{ "threads", 'T', "N", 0, "coding threads (default and 0: all cores; reading and writing run in one more thread each); "
	  "the output does not depend on it", 0 },
	{ "in-format", OPT_IN_FORMAT, "KIND", 0, "input file format: hdf5, npy, raw (default: from the file)", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "a report per file on standard output: json, csv, tsv "
	  "or markdown (table: the summary lines only); hdf5, npy, raw: as --in-format", 0 },
	{ "grads-only", OPT_GRADS_ONLY, NULL, 0, "on a trace, compress the gradients and leave the rest out", 0 },
	{ "lossy-metadata", OPT_LOSSY_META, NULL, 0, "go on, with a warning, when an attribute, "
	  "dataset or link of the input cannot be kept exactly (else that is an error)", 0 },
	{ "list-codecs", 'L', NULL, 0, "list the codecs and their options, then exit", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct compress_opts *o = state->input;

	switch (key) {
	case 'c': o->codec = arg; break;
	case 'l':
		if (gt_parse_int(arg, 1, 22, &o->level) < 0)
			argp_error(state, "invalid level '%s': expected 1-22", arg);
		break;
	case OPT_TABLE: o->table_path = arg; break;
	case OPT_REFRESH:
		if (gt_parse_int(arg, 1, 1L << 30, &o->table_refresh) < 0)
			argp_error(state, "invalid table refresh '%s': expected a step count", arg);
		break;
	case 'o': o->output = arg; break;
	case 'f': o->force = 1; break;
	case 'T':
		if (gt_parse_threads(arg, &o->threads) < 0)
			argp_error(state, "invalid thread count '%s'", arg);
		break;
	case OPT_IN_FORMAT: o->c.src.kind = gt_argp_kind(state, arg, "input"); break;
	case OPT_FORMAT: gt_argp_fmt_or_kind(state, arg, "input", &o->c.fmt, &o->c.src.kind); break;
	case 'r': o->recursive = 1; break;
	case ARGP_KEY_ARG: gt_argp_dataset(&o->inputs, &o->ninputs, arg); break;
	case 'L': o->list_codecs = 1; break;
	case OPT_GRADS_ONLY: o->grads_only = 1; break;
	case OPT_LOSSY_META: o->lossy_metadata = 1; break;
	case ARGP_KEY_INIT:
		gt_common_bind(state, &compress_argp, &o->c);
		state->child_inputs[0] = &o->of;
		break;
	case ARGP_KEY_END:
		if (!o->ninputs && !o->list_codecs)
			argp_usage(state);
		o->several = o->ninputs > 1 || o->recursive;
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_optflags_argp, 0, "Optimizer context, for -c gcomp (a trace carries its own):", 0 },
	{ &gt_common_dataset_argp, 0, NULL, 0 },
	{ &gt_common_dtype_argp, 0, NULL, 0 },
	{ &gt_common_blocks_argp, 0, NULL, 0 },
	{ &gt_common_quiet_argp, 0, NULL, 0 },
	{ &gt_common_verbose_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp compress_argp = {
	options, parse_opt, "FILE...",
	"Compress the floating-point tensors of each FILE (HDF5, .npy, raw, or '-' for "
	"stdin) into a .gtz container, FILE.gtz beside it unless -o says; the "
	"inputs are kept and no file is overwritten without -f.  With several "
	"inputs (or -r), a failure on one is reported and the others go on; "
	"the exit status is then 1. On an HDF5 file, every float dataset is "
	"compressed and the rest is kept: groups, hard, soft and external links, "
	"every attribute with its HDF5 type and bytes, and datasets of other "
	"types (integers, booleans, strings, compounds) whole, so 'gtool "
	"decompress' gives the file back (without its chunking, filters and "
	"object times). What cannot be kept exactly is an error unless "
	"--lossy-metadata is given.  With a lossy codec only the gradients of a trace "
	"are coded with it (gcomp with the optimizer and state of their step), "
	"and every other tensor losslessly with huffexp.  With -o FILE.h5 (or "
	".hdf5) the output is HDF5 instead: the same tree, each float dataset "
	"chunked (at most 1Mi values, whole rows) and coded by gtool's HDF5 "
	"filter with the codec, readable by any HDF5 program with the plugin "
	"(gtool-h5filter(5)); a codec, option or gcomp mode the filter does not "
	"offer is refused up front.",
	children, NULL, NULL
};

static void list_codecs_text(void)
{
	for (size_t i = 0; i < gt_codec_count(); i++) {
		const struct gt_codec *c = gt_codec_at(i);
		const char *h = gt_codec_help(c);

		printf("%-10s id %-3u %s\n", gt_codec_name(c), gt_codec_id(c),
		       gt_codec_flags(c) & GT_CODEC_LOSSLESS ? "lossless" : "lossy");
		while (h && *h) {
			const char *nl = strchrnul(h, '\n');

			printf("    %.*s\n", (int)(nl - h), h);
			h = *nl ? nl + 1 : nl;
		}
	}
}

/* --list-codecs --format=FMT: a row per codec, its option keys in one cell. */
static int list_codecs(enum gt_fmt fmt)
{
	struct gt_table *t;
	int rc;

	if (fmt == GT_FMT_TABLE) {
		list_codecs_text();
		return 0;
	}
	t = gt_table_new(fmt);
	gt_table_col(t, "codec");
	gt_table_col(t, "id");
	gt_table_col(t, "lossless");
	gt_table_col(t, "needs_optimizer");
	gt_table_col(t, "options");
	for (size_t i = 0; i < gt_codec_count(); i++) {
		const struct gt_codec *c = gt_codec_at(i);
		char *keys = gt_codec_keys(c, ' ');
		const size_t n = strlen(keys);

		if (n)
			keys[n - 1] = '\0';
		gt_table_str(t, gt_codec_name(c));
		gt_table_uint(t, gt_codec_id(c));
		gt_table_bool(t, !!(gt_codec_flags(c) & GT_CODEC_LOSSLESS));
		gt_table_bool(t, !!(gt_codec_flags(c) & GT_CODEC_NEEDS_OPTIM));
		gt_table_str(t, keys);
		free(keys);
	}
	rc = gt_table_print(t, stdout);
	gt_table_free(t);
	return rc < 0 ? gt_error("%s", gt_strerror(rc)) : 0;
}

/* The progress line and -v's line per tensor, from the engine's events. */
static void on_start(void *arg, uint64_t total)
{
	gt_progress_init(arg, "compressing", total);
}

static void on_bytes(void *arg, uint64_t n)
{
	gt_progress_add(arg, n);
}

/* The output's temporary file, removed if SIGINT stops gtool (cmd/sigclean.c). */
static int tmp_slot = -1;

static void on_tmpfile(void *arg, const char *path)
{
	(void)arg;
	tmp_slot = gt_sigclean_add(path);
}

static void on_tensor(void *arg, const char *name, uint64_t values, const char *codec)
{
	(void)arg;
	fprintf(stderr, "%s: %s: %llu values, %s\n", gt_msg_prefix(), name,
		(unsigned long long)values, codec);
}

/* The codec spec and its table; a bad spec is a usage error (2). */
static int setup_spec(const struct compress_opts *o, struct gt_spec *spec)
{
	struct gt_diag d = { "" };

	if (gt_spec_init(spec, o->codec ? o->codec : "huffexp", o->level, &d) < 0) {
		if (!strncmp(d.msg, "codec ", 6) && strstr(d.msg, " has no level"))
			gt_error("%s", d.msg);
		else
			gt_error("%s; see 'gtool compress --list-codecs'", d.msg);
		return 2;
	}
	return 0;
}

/* The output of @input: -o FILE, INPUT.gtz beside it or in the -o folder;
 * malloc'd. */
static char *output_of(const struct compress_opts *o, const char *input)
{
	char *base, *out;

	if (o->output && !gt_is_dir(o->output))
		return xstrdup(o->output);
	if (!strcmp(input, "-") && !o->output)
		return xstrdup("-");
	base = gt_path_in_dir(o->output, input);
	if (asprintf(&out, "%s.gtz", base) < 0)
		gt_die("out of memory");
	free(base);
	return out;
}

static void fill_pack_opts(const struct compress_opts *o, const struct gt_spec *spec,
			   struct gt_progress *progress, struct gt_pack_opts *po)
{
	po->input = o->c.input;
	po->spec = spec;
	po->datasets = o->c.datasets;
	po->ndatasets = o->c.ndatasets;
	po->table_refresh = o->table_refresh;
	po->threads = o->threads ? o->threads : (unsigned)gt_ncores();
	po->block_values = o->c.block_values;
	po->chunk_values = o->c.chunk_values;
	po->src = o->c.src;
	po->of = o->of;
	po->force = o->force;
	po->grads_only = o->grads_only;
	po->lossy_metadata = o->lossy_metadata;
	po->nt = &gt_msg_notify;
	po->ev = (struct gt_pack_events){ on_start, on_bytes, o->c.verbose ? on_tensor : NULL,
					  progress, on_tmpfile };
}

/* One input into po->output: 0, or the exit status of its failure. */
static int pack_one(const struct gt_pack_opts *po, struct gt_pack_result *r)
{
	struct gt_diag d = { "" };
	int rc = 0, h5;

	if (!strcmp(po->output, "-") && isatty(STDOUT_FILENO))
		rc = gt_error("refusing to write compressed data to a terminal; use -o FILE or a pipe");
	else if (gt_pack_output_is_h5(po->output) && (h5 = gt_pack_h5_check(po, &d)) < 0) {
		gt_error("%s: %s", po->output, d.msg);
		/* a usage error, said before any output exists; or no HDF5 support */
		rc = h5 == GT_ERR(IO) ? -1 : -2;
	} else if (gt_pack_file(po, r, &d) < 0)
		rc = gt_error("%s", d.msg);
	gt_sigclean_remove(tmp_slot);
	tmp_slot = -1;
	return rc < 0 ? -rc : 0;
}

/* Compress o->c.input; its report goes to stderr and into @j. */
static int compress_one(struct compress_opts *o, const struct gt_spec *spec,
			struct gt_filelist *l, struct gt_filesum_report *j)
{
	struct gt_progress progress = { 0 };
	struct gt_pack_result r = { 0 };
	struct gt_pack_opts po = { 0 };
	struct gt_filesum s = { 0 };
	char *out;
	double t0;
	int rc;

	if (o->several && gt_has_suffix(o->c.input, ".gtz")) {
		gt_warn("%s: already has the .gtz suffix, skipped", o->c.input);
		return 0;
	}
	out = output_of(o, o->c.input);
	s.input = o->c.input;
	fill_pack_opts(o, spec, &progress, &po);
	po.output = out;
	t0 = gt_now();
	if (strcmp(out, "-") && gt_filelist_claim(l, out))
		rc = gt_error("%s: %s is written from another input of this run", o->c.input, out) < 0;
	else
		rc = pack_one(&po, &r);
	gt_progress_end(&progress);
	s.seconds = gt_now() - t0;
	s.ok = !rc;
	s.output = rc ? NULL : out;
	s.raw_bytes = r.in_bytes;
	s.gtz_bytes = r.out_bytes;
	s.ntensors = r.ntensors;
	s.gtz_path = strcmp(out, "-") && !gt_pack_output_is_h5(out) ? out : NULL;
	if (!rc && !gt_msg_quiet() && (o->c.verbose || isatty(STDERR_FILENO)))
		gt_filesum_line(&s, NULL);
	if (j)
		gt_filesum_report_add(j, &s, o->c.verbose);
	free(out);
	return rc;
}

/* What several inputs, a folder and --format json refuse (exit 2). */
static int check_usage(const struct compress_opts *o)
{
	const int to_stdout = o->output ? !strcmp(o->output, "-")
				       : o->ninputs == 1 && !strcmp(o->inputs[0], "-");

	for (size_t i = 0; o->several && i < o->ninputs; i++)
		if (!strcmp(o->inputs[i], "-"))
			return gt_error("'-' (standard input) cannot be one of several inputs");
	if (o->several && o->output && !gt_is_dir(o->output))
		return gt_error("%s: not a folder: with several inputs, -o names a folder",
				o->output);
	if (o->output && gt_is_dir(o->output) && o->ninputs == 1 && !strcmp(o->inputs[0], "-"))
		return gt_error("%s: standard input has no name to write in a folder; "
				"use -o FILE", o->output);
	if (o->c.fmt != GT_FMT_TABLE && to_stdout)
		return gt_error("--format %s prints on standard output, where the "
				"compressed data goes; use -o FILE", gt_filesum_fmt_name(o->c.fmt));
	return 0;
}

static int run_compress(struct compress_opts *o)
{
	struct gt_spec spec;
	struct gt_filelist l = { 0 };
	struct gt_filesum_report *j = NULL;
	struct gt_diag d = { "" };
	int rc = check_usage(o) < 0 ? 2 : setup_spec(o, &spec);

	if (rc)
		return rc;
	if (o->table_path && gt_spec_load_table(&spec, o->table_path, &d) < 0) {
		gt_spec_release(&spec);
		return gt_error("%s", d.msg) < 0;
	}
	for (size_t i = 0; i < o->ninputs; i++)
		gt_filelist_add(&l, o->inputs[i], o->recursive);
	rc = l.failed ? 1 : 0;
	j = gt_filesum_report_new(o->c.fmt);
	for (size_t i = 0; i < l.n; i++) {
		int one;

		o->c.input = l.paths[i];
		one = compress_one(o, &spec, &l, j);
		rc = one > rc ? one : rc;
	}
	if (gt_filesum_report_print(j) < 0)
		rc = 1;
	gt_filelist_release(&l);
	gt_spec_release(&spec);
	return rc;
}

int cmd_compress(int argc, char **argv)
{
	struct compress_opts o = { 0 };
	int rc = gt_argp_parse(&compress_argp, argc, argv, &o);

	if (!rc && o.list_codecs)
		rc = list_codecs(o.c.fmt) < 0;
	else if (!rc)
		rc = run_compress(&o);
	free(o.inputs);
	gt_common_release(&o.c);
	return rc;
}
