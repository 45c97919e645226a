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
#include "../engine/gt_pack.h"
#include "../engine/gt_spec.h"
#include "../lib/banned.h"

/* The options of `gtool compress`, as its parser fills them. */
struct compress_opts {
	struct gt_common c;              /* input, -d, --dtype, sizes, -q, -v */
	const char *output, *codec, *table_path;
	int list_codecs;
	long level, table_refresh;
	unsigned threads;                /* 0: all cores */
	struct gt_optflags of;
	int force, grads_only;
	int lossy_metadata;              /* go on, with a warning, past what cannot be kept */
};

enum { OPT_TABLE = 256, OPT_REFRESH, OPT_FORMAT, OPT_GRADS_ONLY, OPT_LOSSY_META };

static const struct argp_option options[] = {
	{ "codec", 'c', "NAME[:K=V,...]", 0, "codec and its options (default huffexp; see --list-codecs)", 0 },
	{ "level", 'l', "N", 0, "level for zstd (1-22) and zlib (1-9), as codec option level=N", 0 },
	{ "table", OPT_TABLE, "FILE", 0, "static Huffman table from 'gtool huffman build' (huffexp)", 0 },
	{ "table-refresh", OPT_REFRESH, "N", 0, "on a trace: rebuild the table every N steps from the steps before", 0 },
	{ "output", 'o', "FILE", 0, "output file (default: INPUT.gtz; stdout for '-'); .h5/.hdf5: HDF5 with gtool's filter", 0 },
	{ "force", 'f', NULL, 0, "overwrite an existing output file", 0 },
	{ "threads", 'T', "N", 0, "coding threads (default: all cores; reading and writing run in one more thread each); the output does not depend on it", 0 },
	{ "format", OPT_FORMAT, "KIND", 0, "input format: hdf5, npy, raw (default: from the file)", 0 },
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
	case OPT_FORMAT:
		o->c.src.kind = gt_kind_parse(arg);
		if (o->c.src.kind == GT_KIND_AUTO || o->c.src.kind == GT_KIND_GTZ)
			argp_error(state, "unknown input format '%s': expected hdf5, npy or raw", arg);
		break;
	case 'L': o->list_codecs = 1; break;
	case OPT_GRADS_ONLY: o->grads_only = 1; break;
	case OPT_LOSSY_META: o->lossy_metadata = 1; break;
	case ARGP_KEY_INIT:
		gt_common_bind(state, &compress_argp, &o->c);
		state->child_inputs[0] = &o->of;
		break;
	case ARGP_KEY_END:
		if (!o->c.input && !o->list_codecs)
			argp_usage(state);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_optflags_argp, 0, "Optimizer context, for -c gcomp (a trace carries its own):", 0 },
	{ &gt_common_input_argp, 0, NULL, 0 },
	{ &gt_common_dataset_argp, 0, NULL, 0 },
	{ &gt_common_dtype_argp, 0, NULL, 0 },
	{ &gt_common_blocks_argp, 0, NULL, 0 },
	{ &gt_common_quiet_argp, 0, NULL, 0 },
	{ &gt_common_verbose_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp compress_argp = {
	options, parse_opt, "FILE",
	"Compress the floating-point tensors of FILE (HDF5, .npy, raw, or '-' for "
	"stdin) into a .gtz container. On an HDF5 file, every float dataset is "
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

static void list_codecs(void)
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

static void summary(const struct compress_opts *o, const struct gt_pack_result *r)
{
	char a[32], b[32];

	if (gt_msg_quiet() || (!o->c.verbose && !isatty(STDERR_FILENO)))
		return;
	fprintf(stderr, "%s: %s: %zu tensor%s, %s -> %s (%.2f%%)\n", gt_msg_prefix(), o->c.input,
		r->ntensors, r->ntensors == 1 ? "" : "s",
		gt_human_bytes((double)r->in_bytes, a, sizeof(a)),
		gt_human_bytes((double)r->out_bytes, b, sizeof(b)),
		r->in_bytes ? 100.0 * (double)r->out_bytes / (double)r->in_bytes : 0.0);
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

static int run_compress(struct compress_opts *o)
{
	struct gt_spec spec;
	struct gt_progress progress = { 0 };
	struct gt_pack_result r = { 0 };
	struct gt_pack_opts po = { 0 };
	struct gt_diag d = { "" };
	char *out = NULL;
	int rc = setup_spec(o, &spec);

	if (rc)
		return rc;
	po.input = o->c.input;
	po.output = o->output;
	if (!po.output) {
		if (asprintf(&out, "%s.gtz", o->c.input) < 0)
			gt_die("out of memory");
		po.output = strcmp(o->c.input, "-") ? out : "-";
	}
	po.spec = &spec;
	po.datasets = o->c.datasets;
	po.ndatasets = o->c.ndatasets;
	po.table_refresh = o->table_refresh;
	po.threads = o->threads ? o->threads : (unsigned)gt_ncores();
	po.block_values = o->c.block_values;
	po.chunk_values = o->c.chunk_values;
	po.src = o->c.src;
	po.of = o->of;
	po.force = o->force;
	po.grads_only = o->grads_only;
	po.lossy_metadata = o->lossy_metadata;
	po.nt = &gt_msg_notify;
	po.ev = (struct gt_pack_events){ on_start, on_bytes, o->c.verbose ? on_tensor : NULL,
					 &progress, on_tmpfile };
	if (!strcmp(po.output, "-") && isatty(STDOUT_FILENO))
		rc = gt_error("refusing to write compressed data to a terminal; use -o FILE or a pipe");
	else if (o->table_path && gt_spec_load_table(&spec, o->table_path, &d) < 0)
		rc = gt_error("%s", d.msg);
	else if (gt_pack_output_is_h5(po.output) && gt_pack_h5_check(&po, &d) < 0) {
		gt_error("%s: %s", po.output, d.msg);
		rc = -2; /* a usage error, said before any output exists */
	} else if (gt_pack_file(&po, &r, &d) < 0)
		rc = gt_error("%s", d.msg);
	gt_sigclean_remove(tmp_slot);
	tmp_slot = -1;
	gt_progress_end(&progress);
	if (rc >= 0)
		summary(o, &r);
	gt_spec_release(&spec);
	free(out);
	return rc < 0 ? -rc : 0;
}

int cmd_compress(int argc, char **argv)
{
	struct compress_opts o = { 0 };
	int rc = gt_argp_parse(&compress_argp, argc, argv, &o);

	if (!rc && o.list_codecs)
		list_codecs();
	else if (!rc)
		rc = run_compress(&o);
	gt_common_release(&o.c);
	return rc;
}
