/* compress.c - `gtool compress`: tensors of any input into a .gtz file */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "compress.h"
#include "msg.h"
#include "optctx.h"
#include "util.h"
#include "../formats/gt_gtz.h"
#include "../formats/gt_source.h"
#include "../formats/gt_ght.h"
#include "../formats/gt_trace.h"
#include "../lib/gt_huff.h"
#include "../lib/banned.h"

enum { OPT_TABLE = 256, OPT_REFRESH, OPT_BLOCK, OPT_CHUNK, OPT_DTYPE, OPT_FORMAT,
	OPT_GRADS_ONLY, OPT_LOSSY_META };

static const struct argp_option options[] = {
	{ "codec", 'c', "NAME[:K=V,...]", 0, "codec and its options (default huffexp; see --list-codecs)", 0 },
	{ "level", 'l', "N", 0, "level for zstd (1-22) and zlib (1-9), as codec option level=N", 0 },
	{ "table", OPT_TABLE, "FILE", 0, "static Huffman table from 'gtool huffman build' (huffexp)", 0 },
	{ "table-refresh", OPT_REFRESH, "N", 0, "on a trace: rebuild the table every N steps from the steps before", 0 },
	{ "output", 'o', "FILE", 0, "output file (default: INPUT.gtz; stdout for '-')", 0 },
	{ "force", 'f', NULL, 0, "overwrite an existing output file", 0 },
	{ "threads", 'T', "N", 0, "worker threads (default: all cores); the output does not depend on it", 0 },
	{ "block-size", OPT_BLOCK, "N", 0, "values per block (default 1M; K, M suffixes)", 0 },
	{ "chunk-size", OPT_CHUNK, "N", 0, "values per chunk, the unit of parallel work (default 64K)", 0 },
	{ "dataset", 'd', "PATTERN", 0, "compress only datasets matching PATTERN (repeatable)", 0 },
	{ "dtype", OPT_DTYPE, "DTYPE", 0, "dtype of raw input: f32, f16, bf16, f64", 0 },
	{ "format", OPT_FORMAT, "KIND", 0, "input format: hdf5, npy, raw (default: from the file)", 0 },
	{ "grads-only", OPT_GRADS_ONLY, NULL, 0, "on a trace, compress the gradients and leave the rest out", 0 },
	{ "lossy-metadata", OPT_LOSSY_META, NULL, 0, "go on, with a warning, when an attribute, "
	  "dataset or link of the input cannot be kept exactly (else that is an error)", 0 },
	{ "list-codecs", 'L', NULL, 0, "list the codecs and their options, then exit", 0 },
	{ "quiet", 'q', NULL, 0, "no progress, warnings or summary", 0 },
	{ "verbose", 'v', NULL, 0, "a line per tensor", 0 },
	{ 0 }
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct gt_compress_opts *o = state->input;

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
	case OPT_BLOCK: o->block_values = gt_argp_block_size(state, arg); break;
	case OPT_CHUNK: o->chunk_values = gt_argp_chunk_size(state, arg); break;
	case 'd':
		gt_argp_dataset(&o->datasets, &o->ndatasets, arg);
		break;
	case OPT_DTYPE:
		o->src.dtype = gt_argp_dtype(state, arg);
		break;
	case OPT_FORMAT:
		o->src.kind = gt_kind_parse(arg);
		if (o->src.kind == GT_KIND_AUTO || o->src.kind == GT_KIND_GTZ)
			argp_error(state, "unknown input format '%s': expected hdf5, npy or raw", arg);
		break;
	case 'L': o->list_codecs = 1; break;
	case OPT_GRADS_ONLY: o->grads_only = 1; break;
	case OPT_LOSSY_META: o->lossy_metadata = 1; break;
	case ARGP_KEY_INIT: state->child_inputs[0] = &o->of; break;
	case 'q': gt_msg_set_quiet(1); break;
	case 'v': o->verbose = 1; break;
	case ARGP_KEY_ARG: gt_argp_input(state, &o->input, arg); break;
	case ARGP_KEY_END:
		if (!o->input && !o->list_codecs)
			argp_usage(state);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_optflags_argp, 0, "Optimizer context, for -c gcomp (a trace carries its own):", 0 },
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
	"and every other tensor losslessly with huffexp.",
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

/* Codec options: the spec's, plus level=N from -l. */
static char *codec_options(const struct gt_compress_opts *o, const struct gt_codec *c,
			   const char *spec_opts)
{
	char *opts;

	if (!o->level)
		return xstrdup(spec_opts);
	if (strcmp(gt_codec_name(c), "zstd") && strcmp(gt_codec_name(c), "zlib"))
		return NULL;
	if (asprintf(&opts, "%s%slevel=%ld", spec_opts, *spec_opts ? "," : "", o->level) < 0)
		gt_die("out of memory");
	return opts;
}

struct blob {
	void *p;
	size_t len;
};

struct job {
	const struct gt_compress_opts *o;
	struct gt_optctx ctx;    /* -c gcomp: where each gradient's context is */
	int needs_optim;         /* the codec's mode uses the context */
	struct gt_source *src;
	struct gt_gtz_writer *w;
	const struct gt_codec *codec;
	char *opts;
	void *table;
	size_t table_len;
	struct blob *tables;     /* --table-refresh: per tensor, or NULL */
	struct blob *owned;      /* the refreshed tables, to free */
	size_t nowned;
	void *buf;
	size_t buf_values;
	uint64_t in_bytes;
	size_t ntensors;
	struct gt_progress progress;
};

struct feed {
	struct job *j;
	unsigned width;
	uint64_t values;
	int aux;                 /* read the optimizer context alongside */
};

static int feed_block(void *arg, const void *data, size_t n)
{
	struct feed *f = arg;
	struct gt_codec_aux aux;
	struct gt_diag d = { "" };

	if (f->aux && gt_optctx_read(&f->j->ctx, f->values, n, &aux) < 0)
		return -1;
	if (gt_gtz_write_aux(f->j->w, data, f->aux ? &aux : NULL, n, &d) < 0)
		return gt_error("%s: %s", f->j->o->output, d.msg);
	f->values += n;
	f->j->in_bytes += n * f->width;
	gt_progress_add(&f->j->progress, n * f->width);
	return 0;
}

struct in_place {
	struct feed *f;
	size_t i;
};

/*
 * The writer's threads call this, one at a time, for the next block: read
 * straight into it (a full block unless the data ends).
 */
static int fill_block(void *arg, void *dst, size_t cap, size_t *got_ret)
{
	struct in_place *p = arg;
	struct feed *f = p->f;
	struct job *j = f->j;
	struct gt_diag d = { "" };
	size_t got = 0, n;

	do {
		if (gt_source_read(j->src, p->i, f->values + got, cap - got,
				   (char *)dst + got * f->width, &n, &d) < 0)
			return gt_error("%s: %s", j->o->input, d.msg);
		got += n;
	} while (n && got < cap);
	f->values += got;
	j->in_bytes += got * f->width;
	gt_progress_add(&j->progress, got * f->width);
	*got_ret = got;
	return 0;
}

/* Tensor @i straight into the writer's blocks, read, coded and written
 * by all of its threads at once. */
static int read_in_place(struct feed *f, size_t i)
{
	struct in_place p = { f, i };
	struct job *j = f->j;
	const struct gt_tensor_info *t = gt_source_info(j->src, i);
	struct gt_diag d = { "" };
	size_t got;
	int rc = gt_gtz_write_from(j->w, fill_block, &p, &d);

	if (rc == GT_ERR(IO) && !*d.msg)
		return -1;
	if (rc < 0)
		return gt_error("%s: %s", j->o->output, d.msg);
	/* a known count was read whole: more values would be an error */
	if (t->count != GT_COUNT_UNKNOWN &&
	    gt_source_read(j->src, i, f->values, 1, j->buf, &got, &d) >= 0 && got)
		return gt_error("%s: more values than the tensor holds", j->o->input);
	return 0;
}

/* How tensor @i is coded: gt_optctx_coding decides (compare and bench
 * ask it too). */
static int coding_of(struct job *j, size_t i, struct gt_gtz_coding *c, int *aux)
{
	const struct gt_tensor_info *t = gt_source_info(j->src, i);
	int own_opts;

	memset(c, 0, sizeof(*c));
	c->params.dtype = t->dtype;
	c->params.table = j->table;
	c->params.table_len = j->table_len;
	if (j->tables) {
		c->params.table = j->tables[i].p;
		c->params.table_len = j->tables[i].len;
	}
	c->block_values = (uint32_t)j->o->block_values;
	c->chunk_values = (uint32_t)j->o->chunk_values;
	GT_TRY(gt_optctx_coding(&j->ctx, &j->o->of, j->src, j->o->input, i, j->codec,
				j->needs_optim, &c->codec, &own_opts, aux));
	c->params.opts = own_opts ? j->opts : "";
	if (*aux)
		c->params.optim = &j->ctx.optim;
	return 0;
}

static int compress_tensor(struct job *j, size_t i)
{
	const struct gt_tensor_info *t = gt_source_info(j->src, i);
	struct feed f = { j, gt_dtype_size(t->dtype), 0, 0 };
	struct gt_gtz_coding c;
	struct gt_diag d = { "" };

	GT_TRY(coding_of(j, i, &c, &f.aux));
	if (gt_gtz_begin(j->w, t, &c, &d) < 0)
		return gt_error("%s: %s", j->o->input, d.msg);
	if (f.aux)
		GT_TRY(gt_read_tensor(j->src, i, j->buf, j->buf_values, feed_block, &f));
	else
		GT_TRY(read_in_place(&f, i));
	if (gt_gtz_end(j->w, &d) < 0)
		return gt_error("%s: %s", j->o->output, d.msg);
	if (j->o->verbose)
		fprintf(stderr, "%s: %s: %llu values, %s\n", gt_msg_prefix(), t->name,
			(unsigned long long)f.values, gt_codec_name(c.codec));
	j->ntensors++;
	return 0;
}

/* The selected float tensors, and their bytes for the progress line. */
static int select_tensors(struct job *j, unsigned char *sel, uint64_t *bytes)
{
	const struct gt_compress_opts *o = j->o;
	const size_t n = gt_source_count(j->src);

	/* -d may name any dataset: non-float ones are kept whole, as
	 * objects (keep_object), not coded here */
	for (size_t p = 0; p < o->ndatasets; p++) {
		size_t hits = 0;

		for (size_t i = 0; i < n; i++)
			hits += (size_t)gt_select_match(gt_source_info(j->src, i)->name,
							&o->datasets[p], 1);
		if (!hits)
			return gt_error("%s: dataset %s not found", o->input, o->datasets[p]);
	}
	for (size_t i = 0; i < n; i++) {
		const struct gt_tensor_info *t = gt_source_info(j->src, i);

		sel[i] = t->dtype != GT_DT_NONE &&
			 gt_select_match(t->name, o->datasets, o->ndatasets);
		if ((o->grads_only && !gt_optctx_is_grad(&j->ctx, i)) || t->same_as)
			sel[i] = 0; /* a second name is stored as a link */
		if (sel[i] && t->count != GT_COUNT_UNKNOWN)
			*bytes += t->count * gt_dtype_size(t->dtype);
	}
	return 0;
}

static void summary(const struct job *j)
{
	char a[32], b[32];
	const uint64_t out = gt_gtz_writer_bytes(j->w);

	if (gt_msg_quiet() || j->o->silent || (!j->o->verbose && !isatty(STDERR_FILENO)))
		return;
	fprintf(stderr, "%s: %s: %zu tensor%s, %s -> %s (%.2f%%)\n", gt_msg_prefix(), j->o->input,
		j->ntensors, j->ntensors == 1 ? "" : "s",
		gt_human_bytes((double)j->in_bytes, a, sizeof(a)),
		gt_human_bytes((double)out, b, sizeof(b)),
		j->in_bytes ? 100.0 * (double)out / (double)j->in_bytes : 0.0);
}

static int add_hist(void *arg, const void *data, size_t n)
{
	gt_huff_hist(arg, data, n);
	return 0;
}

/* Add the values of tensor @i to @h. */
static int hist_tensor(struct job *j, size_t i, struct gt_huff_hist *h)
{
	const struct gt_tensor_info *t = gt_source_info(j->src, i);

	if (t->dtype != h->dtype)
		return gt_error("%s: %s: --table-refresh needs gradients of one dtype",
				j->o->input, t->name);
	return gt_read_tensor(j->src, i, j->buf, j->buf_values, add_hist, h);
}

/* The table built from the histogram of the last window of steps. */
static int window_table(struct job *j, const struct gt_huff_hist *h, struct blob *b)
{
	struct gt_huff_table *t = xcalloc(1, sizeof(*t));
	size_t len = 0;
	int rc;

	b->p = xmalloc(GT_HUFF_SAVE_MAX);
	rc = gt_huff_build(t, h, GT_HUFF_MAXLEN_DEFAULT, GT_HUFF_BEST, GT_HUFF_STATIC);
	if (rc >= 0)
		rc = gt_huff_save(t, b->p, GT_HUFF_SAVE_MAX, &len);
	free(t);
	b->len = len;
	j->owned = xrealloc(j->owned, (j->nowned + 1) * sizeof(*j->owned));
	j->owned[j->nowned++] = *b;
	return rc < 0 ? gt_error("cannot build a refreshed table: %s", gt_strerror(rc)) : 0;
}

/*
 * --table-refresh N (the GComp paper's periodic update, §4.4): the
 * gradients of steps [kN, (k+1)N) are coded with a static table built from
 * those of steps [(k-1)N, kN); the first N steps use --table, or a table of
 * each block's own when there is none.  Other tensors keep per-block tables.
 */
static int refresh_tables(struct job *j, const unsigned char *sel)
{
	const size_t n = gt_source_count(j->src);
	struct gt_huff_hist *h = xcalloc(1, sizeof(*h));
	struct blob cur = { j->table, j->table_len };
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	int rc = gt_trace_open(j->src, &tr, &d), have = 0;

	if (rc < 0 || !gt_trace_nsteps(tr))
		rc = gt_error("%s: --table-refresh needs a trace with step groups", j->o->input);
	j->tables = xcalloc(n ? n : 1, sizeof(*j->tables));
	for (size_t s = 0; rc >= 0 && s < gt_trace_nsteps(tr); s++) {
		const struct gt_trace_step *st = gt_trace_step(tr, s);

		if (s && s % (size_t)j->o->table_refresh == 0) {
			if (have)
				rc = window_table(j, h, &cur);
			have = 0;
		}
		for (size_t k = 0; rc >= 0 && k < st->n_grads; k++) {
			const size_t i = st->grads[k];

			if (!sel[i])
				continue;
			if (!have++)
				gt_huff_hist_init(h, gt_source_info(j->src, i)->dtype);
			j->tables[i] = cur;
			rc = hist_tensor(j, i, h);
		}
	}
	for (size_t i = 0; rc >= 0 && i < n; i++)
		if (!j->tables[i].p && j->table)
			j->tables[i] = (struct blob){ j->table, j->table_len };
	gt_trace_free(tr);
	free(h);
	return rc;
}

/* What the input holds that cannot be kept: an error, or with
 * --lossy-metadata (or for compare) a warning. */
static int check_lost(const struct job *j)
{
	const size_t n = gt_source_nlost(j->src);

	for (size_t i = 0; i < n && !j->o->silent; i++) {
		if (j->o->lossy_metadata)
			gt_warn("%s: %s: not kept", j->o->input, gt_source_lost(j->src, i));
		else
			gt_error("%s: %s (--lossy-metadata to go on without it)",
				 j->o->input, gt_source_lost(j->src, i));
	}
	return n && !j->o->lossy_metadata && !j->o->silent ? -1 : 0;
}

/* Links and non-float datasets: all of them, or those -d selects. */
static int keep_object(void *arg, const struct gt_object *o)
{
	const struct job *j = arg;
	size_t t;

	if (j->o->grads_only)
		return 0;
	if (!j->o->ndatasets)
		return 1;
	if (!gt_select_match(o->name, j->o->datasets, j->o->ndatasets))
		return 0;
	return o->kind != GT_OBJ_HARD || gt_select_match(o->target, j->o->datasets,
							 j->o->ndatasets) ||
	       gt_source_find(j->src, o->target, &t) < 0;
}

static int write_all(struct job *j)
{
	const size_t n = gt_source_count(j->src);
	unsigned char *sel = xcalloc(n ? n : 1, 1);
	uint64_t total = 0;
	struct gt_diag d = { "" };
	int rc = check_lost(j);

	if (rc >= 0)
		rc = select_tensors(j, sel, &total);
	for (size_t g = 0; rc >= 0 && g < gt_source_ngroups(j->src); g++) {
		rc = gt_gtz_write_group(j->w, gt_source_group(j->src, g), &d);
		if (rc < 0)
			rc = gt_error("%s: %s", j->o->output, d.msg);
	}
	if (rc >= 0 && j->o->table_refresh)
		rc = refresh_tables(j, sel);
	gt_progress_init(&j->progress, "compressing", total);
	for (size_t i = 0; rc >= 0 && i < n; i++)
		if (sel[i])
			rc = compress_tensor(j, i);
	gt_progress_end(&j->progress);
	if (rc >= 0 && gt_gtz_write_objects(j->w, j->src, keep_object, j, &d) < 0)
		rc = gt_error("%s: %s", d.msg[0] == 'w' ? j->o->output : j->o->input, d.msg);
	if (rc >= 0) {
		rc = gt_gtz_writer_commit(j->w, &d);
		if (rc < 0)
			rc = gt_error("%s: %s", j->o->output, d.msg);
	}
	if (rc >= 0)
		summary(j);
	free(sel);
	return rc;
}

/* Bad codec options are a usage error, found before any file is touched. */
static int check_options(struct job *j)
{
	const struct gt_codec_params p = { GT_DT_F32, j->opts, NULL, 0, NULL };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };

	if (gt_codec_new(j->codec, &p, &ctx, &d) < 0)
		return gt_error("%s; see 'gtool compress --list-codecs'", d.msg);
	j->needs_optim = gt_codec_needs_aux(ctx);
	gt_codec_free(ctx);
	return 0;
}

static int load_table(struct job *j)
{
	static struct gt_huff_table probe;
	struct gt_ght g;
	struct gt_diag d = { "" };

	if (!j->o->table_path)
		return 0;
	if (!(gt_codec_flags(j->codec) & GT_CODEC_TABLE))
		return gt_error("codec %s does not use a Huffman table", gt_codec_name(j->codec));
	if (gt_ght_read(j->o->table_path, &g, &d) < 0)
		return gt_error("%s: %s", j->o->table_path, d.msg);
	if (gt_huff_load(&probe, g.table, g.table_len, GT_HUFF_STATIC) < 0) {
		gt_ght_release(&g);
		return gt_error("%s: impossible code table", j->o->table_path);
	}
	j->table = g.table;
	j->table_len = g.table_len;
	g.table = NULL;
	gt_ght_release(&g);
	return 0;
}

/* The codec and its options; usage errors return 2, else 0. */
static int setup_codec(struct job *j, const struct gt_compress_opts *o)
{
	const char *spec_opts = "";
	struct gt_diag d = { "" };

	if (gt_codec_spec_parse(o->codec ? o->codec : "huffexp", &j->codec, &spec_opts, &d) < 0) {
		gt_error("%s; see 'gtool compress --list-codecs'", d.msg);
		return 2;
	}
	j->opts = codec_options(o, j->codec, spec_opts);
	if (!j->opts) {
		gt_error("codec %s has no level", gt_codec_name(j->codec));
		return 2;
	}
	return check_options(j) < 0 ? 2 : 0;
}

/* Input, optimizer context and output, in that order. */
static int open_files(struct job *j, struct gt_compress_opts *o)
{
	struct gt_diag d = { "" };

	if (!strcmp(o->output, "-") && isatty(STDOUT_FILENO))
		return gt_error("refusing to write compressed data to a terminal; use -o FILE or a pipe");
	GT_TRY(load_table(j));
	if (gt_source_open(o->input, &o->src, &j->src, &d) < 0)
		return gt_error("%s: %s", o->input, d.msg);
	j->buf_values = o->block_values ? (size_t)o->block_values : GT_GTZ_BLOCK_DEFAULT;
	GT_TRY(gt_optctx_open(&j->ctx, &o->of, j->src, o->input, j->buf_values));
	if (o->grads_only && !j->ctx.trace)
		return gt_error("%s: --grads-only needs a trace with step groups", o->input);
	if (gt_gtz_writer_open(o->output, o->force, o->threads, &j->w, &d) < 0)
		return gt_error("%s", d.msg);
	j->buf = xmalloc(j->buf_values * 8);
	return 0;
}

int gt_compress_file(struct gt_compress_opts *o, uint64_t *in_ret, uint64_t *out_ret)
{
	struct job j = { 0 };
	char *out = NULL;
	int rc;

	j.o = o;
	rc = setup_codec(&j, o);
	if (rc) {
		free(j.opts);
		return rc;
	}
	if (!o->output) {
		if (asprintf(&out, "%s.gtz", o->input) < 0)
			gt_die("out of memory");
		o->output = strcmp(o->input, "-") ? out : "-";
	}
	rc = open_files(&j, o);
	if (rc >= 0)
		rc = write_all(&j);
	if (rc >= 0 && in_ret)
		*in_ret = j.in_bytes;
	if (rc >= 0 && out_ret)
		*out_ret = gt_gtz_writer_bytes(j.w);
	gt_gtz_writer_free(j.w);
	gt_optctx_close(&j.ctx);
	gt_source_free(j.src);
	free(j.buf);
	for (size_t i = 0; i < j.nowned; i++)
		free(j.owned[i].p);
	free(j.owned);
	free(j.tables);
	free(j.table);
	free(j.opts);
	free(out);
	return rc < 0 ? 1 : 0;
}

int cmd_compress(int argc, char **argv)
{
	struct gt_compress_opts o = { 0 };
	int rc = gt_argp_parse(&compress_argp, argc, argv, &o);

	if (!rc && o.list_codecs) {
		list_codecs();
	} else if (!rc) {
		if (!o.threads)
			o.threads = (unsigned)gt_ncores();
		rc = gt_compress_file(&o, NULL, NULL);
	}
	free(o.datasets);
	return rc;
}
