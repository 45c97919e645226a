/* huffman.c - `gtool huffman build|show|apply|replay`: static and dynamic exponent tables */
#include <argp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "../front/msg.h"
#include "util.h"
#include "../formats/gt_ght.h"
#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"
#include "../lib/gt_huff.h"
#include "../lib/banned.h"

struct huffman_opts {
	const char *action;   /* build, show, apply, replay */
	char **files;
	size_t nfiles;
	const char *output, *table;
	char **datasets;
	size_t ndatasets;
	struct gt_source_opts src;
	enum gt_fmt fmt;
	long maxlen, refresh;
	enum gt_huff_method method;
	int force, verbose;
};

enum { OPT_TABLE = 256, OPT_FORMAT, OPT_DTYPE, OPT_MAXLEN, OPT_METHOD, OPT_REFRESH };

static const struct argp_option options[] = {
	{ "output", 'o', "FILE", 0, "build: the table file to write (.ght)", 0 },
	{ "table", OPT_TABLE, "FILE", 0, "apply: the table to measure; replay: the "
	  "static table (default: built from the first step)", 0 },
	{ "refresh", OPT_REFRESH, "N", 0, "replay: rebuild the dynamic table every N "
	  "training steps (default 50)", 0 },
	{ "dataset", 'd', "PATTERN", 0, "only datasets matching PATTERN (repeatable; "
	  "default: the gradients of a trace, else every float dataset)", 0 },
	{ "maxlen", OPT_MAXLEN, "N", 0, "build, replay: longest code n_theta, 1-15 "
	  "(default 12)", 0 },
	{ "method", OPT_METHOD, "M", 0, "build, replay: best, gcomp or pm (default best)", 0 },
	{ "dtype", OPT_DTYPE, "DTYPE", 0, "dtype of raw input", 0 },
	{ "format", OPT_FORMAT, "FMT", 0, "table, csv, tsv, json, markdown", 0 },
	{ "force", 'f', NULL, 0, "build: overwrite an existing table file", 0 },
	{ "verbose", 'v', NULL, 0, "build: show what both builders cost", 0 },
	{ "quiet", 'q', NULL, 0, "no warnings", 0 },
	{ 0 }
};

static void push(char ***v, size_t *n, char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = s;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct huffman_opts *o = state->input;

	switch (key) {
	case 'o': o->output = arg; break;
	case OPT_TABLE: o->table = arg; break;
	case OPT_REFRESH:
		if (gt_parse_int(arg, 1, __LONG_MAX__, &o->refresh) < 0)
			argp_error(state, "invalid refresh '%s': expected a number of steps >= 1", arg);
		break;
	case 'd': push(&o->datasets, &o->ndatasets, arg); break;
	case OPT_MAXLEN:
		if (gt_parse_int(arg, GT_HUFF_MAXLEN_MIN, GT_HUFF_MAXLEN_MAX, &o->maxlen) < 0)
			argp_error(state, "invalid maxlen '%s': expected 1-15", arg);
		break;
	case OPT_METHOD:
		if (gt_huff_method_parse(arg) < 0)
			argp_error(state, "invalid method '%s': expected best, gcomp or pm", arg);
		o->method = (enum gt_huff_method)gt_huff_method_parse(arg);
		break;
	case OPT_DTYPE:
		o->src.dtype = gt_argp_dtype(state, arg);
		break;
	case OPT_FORMAT:
		o->fmt = gt_argp_fmt(state, arg, 1);
		break;
	case 'f': o->force = 1; break;
	case 'v': o->verbose = 1; break;
	case 'q': gt_msg_set_quiet(1); break;
	case ARGP_KEY_ARG:
		if (!o->action) {
			if (strcmp(arg, "build") && strcmp(arg, "show") && strcmp(arg, "apply") &&
			    strcmp(arg, "replay"))
				argp_error(state, "unknown action '%s': expected build, show, apply "
					   "or replay", arg);
			o->action = arg;
		} else {
			push(&o->files, &o->nfiles, arg);
		}
		break;
	case ARGP_KEY_END:
		if (!o->action || !o->nfiles)
			argp_usage(state);
		if (!strcmp(o->action, "build") && !o->output)
			argp_error(state, "build needs -o FILE");
		if (!strcmp(o->action, "apply") && !o->table)
			argp_error(state, "apply needs --table FILE");
		if (!strcmp(o->action, "show") && o->nfiles != 1)
			argp_error(state, "show takes one table file");
		if (!strcmp(o->action, "replay") && o->nfiles != 1)
			argp_error(state, "replay takes one trace");
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp huffman_argp = {
	options, parse_opt,
	"build [OPTION...] -o TABLE.ght FILE...\n"
	"show [OPTION...] TABLE.ght\n"
	"apply [OPTION...] --table TABLE.ght FILE...\n"
	"replay [OPTION...] [--refresh N] [--table TABLE.ght] TRACE",
	"Static exponent Huffman tables (the GComp paper's prior knowledge, §4.4).\v"
	"build: count the exponent symbols of FILE... and write a length-limited "
	"table with an escape code.  show: each symbol's count, share, code length "
	"and code.  apply: per tensor, the exponent bits per value with the table, "
	"with the tensor's own optimal table, and the token entropy, and the share "
	"of values escaped.  replay: GComp §7.3 over the steps of a trace: the "
	"exponent bits per value of each step's gradients with a static table "
	"(from the first step, or --table) and with a dynamic table rebuilt every "
	"N training steps, against their entropy, and the mean over the steps.",
	NULL, NULL, NULL
};

/* ---- reading tensors into histograms ------------------------------------ */

struct input {
	struct gt_source *src;
	unsigned char *sel;
};

/* The default selection of a trace is its gradients; else every float dataset. */
static int select_inputs(const struct huffman_opts *o, struct input *in)
{
	const size_t n = gt_source_count(in->src);
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	int grads_only = 0;

	in->sel = xcalloc(n ? n : 1, 1);
	if (!o->ndatasets && gt_trace_open(in->src, &tr, &d) >= 0 && gt_trace_nsteps(tr)) {
		grads_only = 1;
		for (size_t s = 0; s < gt_trace_nsteps(tr); s++) {
			const struct gt_trace_step *st = gt_trace_step(tr, s);

			for (size_t k = 0; k < st->n_grads; k++)
				in->sel[st->grads[k]] = 1;
		}
	}
	gt_trace_free(tr);
	if (grads_only)
		return 0;
	return gt_select_tensors(in->src, o->datasets, o->ndatasets, GT_SKIP_SILENT, in->sel);
}

static int open_input(const struct huffman_opts *o, const char *file, struct input *in)
{
	struct gt_diag d = { "" };

	memset(in, 0, sizeof(*in));
	if (gt_source_open(file, &o->src, &in->src, &d) < 0)
		return gt_error("%s: %s", file, d.msg);
	return select_inputs(o, in);
}

static void close_input(struct input *in)
{
	gt_source_free(in->src);
	free(in->sel);
}

#define READ_VALUES GT_READ_VALUES

static int add_hist(void *arg, const void *data, size_t n)
{
	gt_huff_hist(arg, data, n);
	return 0;
}

/* Add tensor @i to @h (whose dtype must match). */
static int hist_tensor(struct input *in, size_t i, const char *file,
		       struct gt_huff_hist *h, void *buf)
{
	const struct gt_tensor_info *t = gt_source_info(in->src, i);

	if (t->dtype != h->dtype)
		return gt_error("%s: %s is %s where the table is for %s: select one dtype with -d",
				file, t->name, gt_dtype_name(t->dtype), gt_dtype_name(h->dtype));
	return gt_read_tensor(in->src, i, buf, READ_VALUES, add_hist, h);
}

/* Bits of the sign and mantissa that @t's coding of @h carries. */
static uint64_t mantissa_bits(const struct gt_huff_table *t, const struct gt_huff_hist *h)
{
	const unsigned nsyms = gt_huff_nsyms(h->dtype);
	const unsigned esc = nsyms - 1;
	uint64_t bits = 0;

	for (unsigned s = 0; s < nsyms; s++) {
		struct gt_huff_sym hs;

		if (s == esc || !h->count[s] || gt_huff_resolve(t, s, &hs) < 0)
			continue;
		if (hs.mant)
			bits += h->count[s] * (1 + gt_dtype_man_bits(h->dtype));
		/* without runs, the zeros of each run are coded one by one */
		if (s == GT_HUFF_ZERO(gt_dtype_exp_bits(h->dtype)) && hs.mant &&
		    !gt_huff_runs_used(t))
			bits += h->run_zeros * (1 + gt_dtype_man_bits(h->dtype));
	}
	return bits;
}

/* Build the histogram of every selected tensor of every file. */
static int gather(const struct huffman_opts *o, struct gt_huff_hist *h)
{
	void *buf = xmalloc((size_t)READ_VALUES * 8);
	int rc = 0, have = 0;

	for (size_t f = 0; f < o->nfiles && rc >= 0; f++) {
		struct input in;

		rc = open_input(o, o->files[f], &in);
		for (size_t i = 0; rc >= 0 && i < gt_source_count(in.src); i++) {
			if (!in.sel[i])
				continue;
			if (!have++)
				gt_huff_hist_init(h, gt_source_info(in.src, i)->dtype);
			rc = hist_tensor(&in, i, o->files[f], h, buf);
		}
		close_input(&in);
	}
	free(buf);
	if (rc >= 0 && !have)
		rc = gt_error("%s: no floating-point data", o->files[0]);
	return rc;
}

/* -v: what each builder's table costs on the data it was built from. */
static void show_builders(const struct huffman_opts *o, const struct gt_huff_hist *h,
			  unsigned maxlen)
{
	static const enum gt_huff_method methods[] = { GT_HUFF_GCOMP, GT_HUFF_PM };
	struct gt_table *tab = gt_table_new(o->fmt);
	struct gt_huff_table *t = xmalloc(sizeof(*t));

	gt_table_col(tab, "method");
	gt_table_col(tab, "bits_per_value");
	gt_table_col(tab, "exponent_bits_per_value");
	gt_table_col(tab, "escaped_pct");
	gt_table_col(tab, "longest_code");
	for (size_t m = 0; m < 2; m++) {
		uint64_t bits = 0, esc = 0;
		unsigned longest = 0;

		if (gt_huff_build(t, h, maxlen, methods[m], GT_HUFF_STATIC) < 0 ||
		    gt_huff_cost(t, h, &bits, &esc) < 0)
			continue;
		for (unsigned s = 0; s < t->nsyms; s++)
			longest = t->len[s] > longest ? t->len[s] : longest;
		gt_table_str(tab, gt_huff_method_name(methods[m]));
		gt_table_num(tab, (double)bits / (double)h->n, 6);
		gt_table_num(tab, (double)(bits - mantissa_bits(t, h)) / (double)h->n, 6);
		gt_table_pct(tab, 100.0 * (double)esc / (double)h->n);
		gt_table_uint(tab, longest);
	}
	gt_table_print(tab, stdout);
	gt_table_free(tab);
	free(t);
}

static int run_build(const struct huffman_opts *o)
{
	const unsigned maxlen = o->maxlen ? (unsigned)o->maxlen : GT_HUFF_MAXLEN_DEFAULT;
	struct gt_huff_hist *h = xcalloc(1, sizeof(*h));
	struct gt_huff_table *t = xcalloc(1, sizeof(*t));
	unsigned char bytes[GT_HUFF_SAVE_MAX];
	struct gt_ght g = { 0 };
	struct gt_diag d = { "" };
	size_t len = 0;
	int rc = gather(o, h);

	if (rc >= 0 && gt_huff_build(t, h, maxlen, o->method, GT_HUFF_STATIC) < 0)
		rc = gt_error("cannot build a table: %s", gt_strerror(GT_ERR(NOMEM)));
	if (rc >= 0 && gt_huff_save(t, bytes, sizeof(bytes), &len) < 0)
		rc = gt_error("cannot save the table");
	if (rc >= 0) {
		g.dtype = h->dtype;
		g.table = bytes;
		g.table_len = len;
		g.hist = h->count;
		g.nsyms = gt_huff_nsyms(h->dtype);
		if (gt_ght_write(o->output, o->force, &g, &d) < 0)
			rc = gt_error("%s", d.msg);
	}
	if (rc >= 0 && o->verbose)
		show_builders(o, h, maxlen);
	free(h);
	free(t);
	return rc;
}

static void symbol_label(enum gt_dtype dt, unsigned s, char *buf, size_t len)
{
	const unsigned e = gt_dtype_exp_bits(dt);

	if (s == GT_HUFF_ZERO(e))
		snprintf(buf, len, "+0");
	else if (s == GT_HUFF_NZERO(e))
		snprintf(buf, len, "-0");
	else if (s == GT_HUFF_RUN(e))
		snprintf(buf, len, "run of +0");
	else if (s == GT_HUFF_ESC(e))
		snprintf(buf, len, "escape");
	else if (s == 0)
		snprintf(buf, len, "subnormal");
	else if (s == (1u << e) - 1)
		snprintf(buf, len, "inf/nan");
	else
		snprintf(buf, len, "2^%d", (int)s - gt_dtype_bias(dt));
}

static int run_show(const struct huffman_opts *o)
{
	struct gt_huff_table *t = xcalloc(1, sizeof(*t));
	struct gt_table *tab = gt_table_new(o->fmt);
	struct gt_ght g;
	struct gt_diag d = { "" };
	uint64_t total = 0;
	int rc = 0;

	if (gt_ght_read(o->files[0], &g, &d) < 0) {
		rc = gt_error("%s: %s", o->files[0], d.msg);
		goto out;
	}
	if (gt_huff_load(t, g.table, g.table_len, GT_HUFF_STATIC) < 0 ||
	    t->dtype != g.dtype || t->nsyms != g.nsyms) {
		rc = gt_error("%s: impossible code table", o->files[0]);
		goto out;
	}
	for (unsigned s = 0; s < g.nsyms; s++)
		total += g.hist[s];
	gt_table_col(tab, "symbol");
	gt_table_col(tab, "field");
	gt_table_col(tab, "value");
	gt_table_col(tab, "count");
	gt_table_col(tab, "pct");
	gt_table_col(tab, "length");
	gt_table_col(tab, "code");
	gt_table_col(tab, "escaped");
	for (unsigned s = 0; s < g.nsyms; s++) {
		char label[32], code[GT_HUFF_MAXLEN_MAX + 1];

		if (!g.hist[s] && !t->len[s])
			continue;
		symbol_label(g.dtype, s, label, sizeof(label));
		for (unsigned b = 0; b < t->len[s]; b++)
			code[b] = (char)('0' + ((t->code[s] >> b) & 1));
		code[t->len[s]] = 0;
		gt_table_uint(tab, s);
		if (s < (1u << gt_dtype_exp_bits(g.dtype)))
			gt_table_uint(tab, s);
		else
			gt_table_null(tab, "-");
		gt_table_str(tab, label);
		gt_table_uint(tab, g.hist[s]);
		gt_table_pct(tab, total ? 100.0 * (double)g.hist[s] / (double)total : 0.0);
		gt_table_uint(tab, t->len[s]);
		gt_table_str(tab, code);
		gt_table_bool(tab, !t->len[s]);
	}
	gt_table_print(tab, stdout);
out:
	gt_ght_release(&g);
	gt_table_free(tab);
	free(t);
	return rc;
}

struct apply_ctx {
	struct gt_huff_table *table, *own;
	struct gt_huff_hist *h;
	struct gt_table *tab;
	void *buf;
};

static int apply_row(struct apply_ctx *a, const char *file, const char *name)
{
	const struct gt_huff_hist *h = a->h;
	uint64_t bits = 0, esc = 0, own_bits = 0, own_esc = 0;
	const double n = h->n ? (double)h->n : 1.0;

	if (gt_huff_cost(a->table, h, &bits, &esc) < 0)
		return gt_error("%s: %s: the table cannot code this data", file, name);
	if (gt_huff_build(a->own, h, a->table->maxlen, GT_HUFF_BEST, 0) < 0 ||
	    gt_huff_cost(a->own, h, &own_bits, &own_esc) < 0)
		return gt_error("%s: %s: cannot build its own table", file, name);
	gt_table_str(a->tab, file);
	gt_table_str(a->tab, name);
	gt_table_uint(a->tab, h->n);
	gt_table_num(a->tab, (double)(bits - mantissa_bits(a->table, h)) / n, 5);
	gt_table_num(a->tab, (double)(own_bits - mantissa_bits(a->own, h)) / n, 5);
	/* the bound for these tokens: their entropy plus the run lengths */
	gt_table_num(a->tab, (gt_huff_entropy(h) + (double)h->run_bits) / n, 5);
	gt_table_pct(a->tab, 100.0 * (double)esc / n);
	gt_table_num(a->tab, (double)bits / n, 5);
	return 0;
}

static int apply_file(const struct huffman_opts *o, const char *file, struct apply_ctx *a)
{
	struct input in;
	int rc = open_input(o, file, &in);

	for (size_t i = 0; rc >= 0 && i < gt_source_count(in.src); i++) {
		const struct gt_tensor_info *t = gt_source_info(in.src, i);

		if (!in.sel[i])
			continue;
		gt_huff_hist_init(a->h, a->table->dtype);
		rc = hist_tensor(&in, i, file, a->h, a->buf);
		if (rc >= 0)
			rc = apply_row(a, file, t->name);
	}
	close_input(&in);
	return rc;
}

static int run_apply(const struct huffman_opts *o)
{
	struct apply_ctx a;
	struct gt_ght g;
	struct gt_diag d = { "" };
	static const char *const cols[] = {
		"file", "name", "values", "table_bits_per_value", "own_bits_per_value",
		"entropy_bits_per_value", "escaped_pct", "total_bits_per_value",
	};
	int rc = 0;

	a.table = xcalloc(1, sizeof(*a.table));
	a.own = xcalloc(1, sizeof(*a.own));
	a.h = xcalloc(1, sizeof(*a.h));
	a.buf = xmalloc((size_t)READ_VALUES * 8);
	a.tab = gt_table_new(o->fmt);
	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		gt_table_col(a.tab, cols[c]);
	if (gt_ght_read(o->table, &g, &d) < 0)
		rc = gt_error("%s: %s", o->table, d.msg);
	else if (gt_huff_load(a.table, g.table, g.table_len, GT_HUFF_STATIC) < 0)
		rc = gt_error("%s: impossible code table", o->table);
	gt_ght_release(&g);
	for (size_t f = 0; rc >= 0 && f < o->nfiles; f++)
		rc = apply_file(o, o->files[f], &a);
	if (rc >= 0)
		gt_table_print(a.tab, stdout);
	gt_table_free(a.tab);
	free(a.table);
	free(a.own);
	free(a.h);
	free(a.buf);
	return rc;
}

/* ---- replay: static against dynamic tables over the steps (GComp §7.3) --- */

struct replay {
	struct gt_huff_table *stat, *dyn, *own;
	struct gt_huff_hist *h, *prev;
	struct gt_table *tab;
	void *buf;
	unsigned maxlen;
	enum gt_huff_method method;
	double n, bits[4]; /* totals: values; static, dynamic, own, entropy bits */
};

/* Exponent bits of @h coded with @t: codes, escapes, run lengths. */
static int exp_bits(const struct gt_huff_table *t, const struct gt_huff_hist *h, double *ret)
{
	uint64_t bits = 0, esc = 0;

	if (t->dtype != h->dtype || gt_huff_cost(t, h, &bits, &esc) < 0)
		return -1;
	*ret = (double)(bits - mantissa_bits(t, h));
	return 0;
}

/* The histogram of every gradient of step @st. */
static int step_hist(struct input *in, const struct gt_trace_step *st, const char *file,
		     struct gt_huff_hist *h, void *buf)
{
	int rc = 0;

	for (size_t k = 0; k < st->n_grads && rc >= 0; k++) {
		if (!k)
			gt_huff_hist_init(h, gt_source_info(in->src, st->grads[k])->dtype);
		rc = hist_tensor(in, st->grads[k], file, h, buf);
	}
	if (rc >= 0 && !st->n_grads)
		rc = gt_error("%s: %s has no gradients", file, st->group);
	return rc;
}

static void replay_row(struct replay *r, const char *step, const double *bits,
		       double n, enum gt_dtype dt, const char *refreshed)
{
	const double full = 8.0 * gt_dtype_size(dt);

	gt_table_numstr(r->tab, step, 1);
	gt_table_num(r->tab, n, 12);
	for (int k = 0; k < 4; k++)
		gt_table_num(r->tab, bits[k] / n, 5);
	gt_table_pct(r->tab, 100 * bits[0] / n / full);
	gt_table_pct(r->tab, 100 * bits[1] / n / full);
	gt_table_str(r->tab, refreshed);
}

/* Step @i of @tr: refresh the dynamic table when a multiple of @refresh
 * lies in (previous step, this step], then measure every table. */
static int replay_step(struct replay *r, const struct gt_trace *tr, size_t i, long refresh,
		       const char *file)
{
	const struct gt_trace_step *st = gt_trace_step(tr, i);
	const char *refreshed = i ? "no" : "initial";
	double bits[4];
	char name[32];

	if (i && st->step / refresh > gt_trace_step(tr, i - 1)->step / refresh) {
		if (gt_huff_build(r->dyn, r->prev, r->maxlen, r->method, GT_HUFF_STATIC) < 0)
			return gt_error("%s: %s: cannot build a table", file, st->group);
		refreshed = "yes";
	}
	if (gt_huff_build(r->own, r->h, r->maxlen, GT_HUFF_BEST, 0) < 0)
		return gt_error("%s: %s: cannot build a table", file, st->group);
	if (exp_bits(r->stat, r->h, &bits[0]) < 0 || exp_bits(r->dyn, r->h, &bits[1]) < 0 ||
	    exp_bits(r->own, r->h, &bits[2]) < 0)
		return gt_error("%s: %s: %s gradients, a table for %s", file, st->group,
				gt_dtype_name(r->h->dtype), gt_dtype_name(r->stat->dtype));
	bits[3] = gt_huff_entropy(r->h) + (double)r->h->run_bits;
	snprintf(name, sizeof(name), "%ld", st->step);
	replay_row(r, name, bits, (double)r->h->n, r->h->dtype, refreshed);
	r->n += (double)r->h->n;
	for (int k = 0; k < 4; k++)
		r->bits[k] += bits[k];
	return 0;
}

/* The static table: --table, or built from the first step's histogram. */
static int replay_table(const struct huffman_opts *o, struct replay *r)
{
	struct gt_ght g;
	struct gt_diag d = { "" };
	int rc = 0;

	if (!o->table) {
		if (gt_huff_build(r->stat, r->h, r->maxlen, o->method, GT_HUFF_STATIC) < 0)
			return gt_error("%s: cannot build a table", o->files[0]);
		return 0;
	}
	if (gt_ght_read(o->table, &g, &d) < 0)
		return gt_error("%s: %s", o->table, d.msg);
	if (gt_huff_load(r->stat, g.table, g.table_len, GT_HUFF_STATIC) < 0)
		rc = gt_error("%s: impossible code table", o->table);
	gt_ght_release(&g);
	return rc;
}

static void replay_columns(struct gt_table *tab)
{
	static const char *const cols[] = {
		"step", "values", "static_bits_per_value", "dynamic_bits_per_value",
		"own_bits_per_value", "entropy_bits_per_value", "static_pct", "dynamic_pct",
		"refreshed",
	};

	for (size_t c = 0; c < sizeof(cols) / sizeof(cols[0]); c++)
		gt_table_col(tab, cols[c]);
}

static int replay_steps(const struct huffman_opts *o, struct input *in,
			const struct gt_trace *tr, struct replay *r)
{
	int rc = 0;

	for (size_t i = 0; i < gt_trace_nsteps(tr) && rc >= 0; i++) {
		struct gt_huff_hist *t;

		rc = step_hist(in, gt_trace_step(tr, i), o->files[0], r->h, r->buf);
		if (rc >= 0 && !i)
			rc = replay_table(o, r);
		if (rc >= 0 && !i)
			*r->dyn = *r->stat;
		if (rc >= 0)
			rc = replay_step(r, tr, i, o->refresh, o->files[0]);
		t = r->prev;
		r->prev = r->h;
		r->h = t;
	}
	if (rc >= 0)
		replay_row(r, "mean", r->bits, r->n, r->stat->dtype, "");
	return rc;
}

static int run_replay(const struct huffman_opts *o)
{
	struct replay r = { .maxlen = o->maxlen ? (unsigned)o->maxlen : GT_HUFF_MAXLEN_DEFAULT,
			    .method = o->method };
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	struct input in = { NULL, NULL };
	int rc = 0;

	if (gt_source_open(o->files[0], &o->src, &in.src, &d) < 0)
		return gt_error("%s: %s", o->files[0], d.msg);
	if (gt_trace_open(in.src, &tr, &d) < 0 || !gt_trace_nsteps(tr)) {
		rc = gt_error("%s: not a trace (no step groups with gradients)", o->files[0]);
		goto out;
	}
	r.stat = xcalloc(1, sizeof(*r.stat));
	r.dyn = xcalloc(1, sizeof(*r.dyn));
	r.own = xcalloc(1, sizeof(*r.own));
	r.h = xcalloc(1, sizeof(*r.h));
	r.prev = xcalloc(1, sizeof(*r.prev));
	r.buf = xmalloc((size_t)READ_VALUES * 8);
	r.tab = gt_table_new(o->fmt);
	replay_columns(r.tab);
	rc = replay_steps(o, &in, tr, &r);
	if (rc >= 0)
		gt_table_print(r.tab, stdout);
	gt_table_free(r.tab);
	free(r.stat);
	free(r.dyn);
	free(r.own);
	free(r.h);
	free(r.prev);
	free(r.buf);
out:
	gt_trace_free(tr);
	gt_source_free(in.src);
	return rc;
}

int cmd_huffman(int argc, char **argv)
{
	struct huffman_opts o = { .method = GT_HUFF_BEST, .refresh = 50 };
	int rc = gt_argp_parse(&huffman_argp, argc, argv, &o);

	if (!rc) {
		if (!strcmp(o.action, "build"))
			rc = run_build(&o) < 0;
		else if (!strcmp(o.action, "show"))
			rc = run_show(&o) < 0;
		else if (!strcmp(o.action, "replay"))
			rc = run_replay(&o) < 0;
		else
			rc = run_apply(&o) < 0;
	}
	free(o.files);
	free(o.datasets);
	return rc;
}
