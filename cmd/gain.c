/* gain.c - `gtool gain`: compression gain per setting, with error feedback */
#include <argp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "common_opts.h"
#include "../front/msg.h"
#include "../engine/gt_spec.h"
#include "../engine/gt_steps.h"
#include "util.h"
#include "../analysis/gt_gain.h"
#include "../formats/gt_gtz.h"
#include "../lib/banned.h"

struct gain_opts {
	const char *codec, *key, *list; /* -c; --cf/--bits/--levels and its list */
	int ef, multilevel, norm, total_only;
	double ewma;                   /* 0: off */
	struct gt_common c;            /* input, -d, --dtype, sizes, --format, -q */
};

enum { OPT_CF = 256, OPT_BITS, OPT_LEVELS, OPT_EF, OPT_EWMA, OPT_ML, OPT_GAIN,
       OPT_TOTAL };

static const struct argp_option options[] = {
	{ "codec", 'c', "NAME[:K=V,...]", 0, "the codec and its fixed options (required)", 0 },
	{ "cf", OPT_CF, "LIST", 0, "compression factors to try, e.g. 10,20,40,160,1000 (codec option cf=)", 0 },
	{ "bits", OPT_BITS, "LIST", 0, "bit widths to try (codec option bits=)", 0 },
	{ "levels", OPT_LEVELS, "LIST", 0, "quantization levels to try (codec option levels=)", 0 },
	{ "error-feedback", OPT_EF, NULL, 0,
	  "carry each tensor's residual g_ef - ghat to its next step (g_ef = g + residual)", 0 },
	{ "ewma", OPT_EWMA, "ALPHA", 0, "also print the gain smoothed over the steps (0 < ALPHA <= 1)", 0 },
	{ "multilevel", OPT_ML, NULL, 0,
	  "compress to the smallest CF, then that result to each larger CF (GraVAC IV-C)", 0 },
	{ "gain", OPT_GAIN, "KIND", 0,
	  "sq: sum ghat^2 / sum g_ef^2, the paper's (default); norm: sum of L2 norms, GraVAC's code", 0 },
	{ "total", OPT_TOTAL, NULL, 0, "print only the total rows, not one per tensor", 0 },
	{ 0 }
};

static void set_list(struct argp_state *state, struct gain_opts *o, const char *key,
		     const char *arg)
{
	if (o->key && strcmp(o->key, key))
		argp_error(state, "--%s and --%s: give one list of settings", o->key, key);
	o->key = key;
	o->list = arg;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct gain_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &gain_argp, &o->c); break;
	case 'c': o->codec = arg; break;
	case OPT_CF: set_list(state, o, "cf", arg); break;
	case OPT_BITS: set_list(state, o, "bits", arg); break;
	case OPT_LEVELS: set_list(state, o, "levels", arg); break;
	case OPT_EF: o->ef = 1; break;
	case OPT_ML: o->multilevel = 1; break;
	case OPT_EWMA:
		if (gt_parse_double(arg, 1e-9, 1, &o->ewma) < 0)
			argp_error(state, "invalid smoothing factor '%s': expected 0 < ALPHA <= 1", arg);
		break;
	case OPT_GAIN:
		if (strcmp(arg, "sq") && strcmp(arg, "norm"))
			argp_error(state, "invalid gain '%s': expected sq or norm", arg);
		o->norm = !strcmp(arg, "norm");
		break;
	case OPT_TOTAL: o->total_only = 1; break;
	case ARGP_KEY_END:
		if (!o->c.input)
			argp_usage(state);
		if (!o->codec)
			argp_error(state, "no codec: give -c NAME");
		if (o->multilevel && (!o->key || strcmp(o->key, "cf")))
			argp_error(state, "--multilevel needs --cf with the compression factors");
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_common_input_argp, 0, NULL, 0 },
	{ &gt_common_dataset_argp, 0, NULL, 0 },
	{ &gt_common_fmt_argp, 0, NULL, 0 },
	{ &gt_common_dtype_argp, 0, NULL, 0 },
	{ &gt_common_blocks_argp, 0, NULL, 0 },
	{ &gt_common_quiet_argp, 0, NULL, 0 },
	{ 0 }
};

const struct argp gain_argp = {
	options, parse_opt, "FILE",
	"Compression gain of a lossy codec at one or more settings: the gradients "
	"of FILE (every step of a trace, in order) are coded and decoded as "
	"'gtool compress' would, and the gain sum ghat^2 / sum g^2 of GraVAC is "
	"printed per tensor and in total, with the size ratio and the time to "
	"compress.  --error-feedback carries each tensor's residual to its next "
	"step; --multilevel measures GraVAC's multi-level compression.",
	children, NULL, NULL
};

/* One tensor's state at one setting, carried across steps. */
struct entry {
	const char *name; /* parameter name */
	size_t n;
	float *res;       /* residual, with --error-feedback */
	struct gt_ewma ew;
};

/* What one tensor at one setting gave. */
struct result {
	struct gt_gain_sums sums;
	struct gt_gain_cost cost;
	double ewma, ml_ms, direct_ms;
	int ml_equal; /* -1: not measured */
};

struct setting {
	char *opts, *value;      /* codec options; the setting's value ("10") */
	double cf;
	struct gt_gain_coder gc;
	struct entry *e;
	size_t ne;
	struct gt_ewma ew;       /* of the step totals */
	struct result all;       /* over every step */
	uint64_t values, eq, eqn; /* --multilevel: tensors equal, measured */
};

struct job {
	const struct gain_opts *o;
	struct gt_spec spec;          /* -c, parsed once */
	const struct gt_codec *codec;
	const char *base;             /* the codec's fixed options */
	struct gt_steps st;
	struct setting *set;
	size_t nset;
	float *g, *ef, *hat, *ef_min, *hat_min, *vals, *tmp, *ml, *dir;
	size_t *idx, cap;
	struct gt_table *tb;
};

static char *join_opts(const char *base, const char *key, const char *val)
{
	char *s;

	if (asprintf(&s, "%s%s%s%s%s", base, *base && key ? "," : "", key ? key : "",
		     key ? "=" : "", key ? val : "") < 0)
		gt_die("out of memory");
	return s;
}

static int cmp_cf(const void *a, const void *b)
{
	const struct setting *x = a, *y = b;

	return (x->cf > y->cf) - (x->cf < y->cf);
}

/* The settings of --cf/--bits/--levels, or the codec's defaults. */
static int make_settings(struct job *j)
{
	const struct gain_opts *o = j->o;
	char *list = xstrdup(o->list ? o->list : ""), *save = NULL;
	const char *v;

	for (v = strtok_r(list, ",", &save); v || !j->nset; v = strtok_r(NULL, ",", &save)) {
		struct setting *s;

		j->set = xrealloc(j->set, (j->nset + 1) * sizeof(*j->set));
		s = memset(&j->set[j->nset++], 0, sizeof(*s));
		s->all.ewma = s->all.ml_ms = s->all.direct_ms = NAN;
		s->all.ml_equal = -1;
		s->value = xstrdup(v ? v : "");
		s->opts = join_opts(j->base, v ? o->key : NULL, s->value);
		if (o->multilevel && gt_parse_double(s->value, 1, 1e12, &s->cf) < 0) {
			free(list);
			return gt_error("invalid compression factor '%s'", s->value);
		}
		if (!v)
			break;
	}
	free(list);
	if (o->multilevel)
		qsort(j->set, j->nset, sizeof(*j->set), cmp_cf);
	return 0;
}

static int open_coders(struct job *j)
{
	const size_t block = gt_chunk_block(j->o->c.block_values);
	const size_t chunk = gt_chunk_values(NULL, block, j->o->c.chunk_values);

	for (size_t k = 0; k < j->nset; k++) {
		struct gt_diag d = { "" };

		if (gt_gain_coder_init(&j->set[k].gc, j->codec, j->set[k].opts, block, chunk,
				       &d) < 0)
			return gt_error("%s", d.msg);
		if (gt_codec_needs_aux(j->set[k].gc.ctx))
			return gt_error("codec %s needs the optimizer context of each value; "
					"gain measures codecs that do not (see 'gtool error --update')",
					gt_codec_name(j->codec));
		if (!j->o->key) {
			char canon[256];

			gt_codec_canon(j->set[k].gc.ctx, canon, sizeof(canon));
			free(j->set[k].value);
			j->set[k].value = xstrdup(canon);
		}
		gt_ewma_init(&j->set[k].ew, j->o->ewma);
	}
	return 0;
}

static void grow(struct job *j, size_t n)
{
	float **bufs[] = { &j->g, &j->ef, &j->hat, &j->ef_min, &j->hat_min, &j->vals, &j->tmp,
			   &j->ml, &j->dir };

	if (n <= j->cap)
		return;
	for (size_t k = 0; k < sizeof(bufs) / sizeof(bufs[0]); k++) {
		free(*bufs[k]);
		*bufs[k] = xmalloc(n * sizeof(float));
	}
	free(j->idx);
	j->idx = xmalloc(n * sizeof(size_t));
	j->cap = n;
}

/* The state of parameter @name at setting @s, made on first sight. */
static struct entry *entry_of(struct setting *s, const char *name, size_t n, double alpha)
{
	struct entry *e;

	for (size_t k = 0; k < s->ne; k++)
		if (!strcmp(s->e[k].name, name))
			return s->e[k].n == n ? &s->e[k] : NULL;
	s->e = xrealloc(s->e, (s->ne + 1) * sizeof(*s->e));
	e = &s->e[s->ne++];
	e->name = name;
	e->n = n;
	e->res = xcalloc(n ? n : 1, sizeof(float));
	gt_ewma_init(&e->ew, alpha);
	return e;
}

static double gain_of(const struct job *j, const struct gt_gain_sums *s)
{
	return j->o->norm ? gt_gain_norm(s) : gt_gain_sq(s);
}

/*
 * GraVAC's multi-level compression of setting @k (gt_gain_relevel) against
 * direct compression of the same input (j->ef_min) to the same CF.
 */
static int multilevel(struct job *j, size_t k, size_t i, size_t n, double t_min,
		      struct result *r)
{
	struct setting *s = &j->set[k];
	struct gt_gain_cost c2 = { 0 }, cd = { 0 };
	struct gt_gain_scratch sc = { j->vals, j->tmp, j->idx };
	struct gt_diag d = { "" };

	if (gt_gain_relevel(j->codec, j->base, j->hat_min, n, s->cf, s->gc.block,
			    s->gc.chunk, i, j->ml, &sc, &c2, &d) < 0)
		return gt_error("--multilevel: %s", d.msg);
	if (j->o->ef) {
		if (gt_gain_code(&s->gc, j->ef_min, n, i, j->dir, &cd) < 0)
			return gt_error("%s: coding failed", j->o->c.input);
	} else {
		memcpy(j->dir, j->hat, n * sizeof(float));
		cd = r->cost;
	}
	r->ml_ms = (t_min + c2.encode_s) * 1e3;
	r->direct_ms = (t_min + cd.encode_s) * 1e3;
	r->ml_equal = !memcmp(j->ml, j->dir, n * sizeof(float));
	return 0;
}

/* Tensor @i (read into j->g) at every setting; results into @r. */
static int code_tensor(struct job *j, size_t i, size_t n, struct result *r)
{
	const char *name = gt_steps_name(&j->st, i);
	double t_min = 0;
	for (size_t k = 0; k < j->nset; k++) {
		struct setting *s = &j->set[k];
		struct entry *e = entry_of(s, name, n, j->o->ewma);
		const float *in = j->g;
		int rc;

		if (!e)
			return gt_error("%s: %s changes size between steps", j->o->c.input, name);
		memset(&r[k], 0, sizeof(r[k]));
		r[k].ewma = r[k].ml_ms = r[k].direct_ms = NAN;
		r[k].ml_equal = -1;
		if (j->o->ef) {
			for (size_t x = 0; x < n; x++)
				j->ef[x] = j->g[x] + e->res[x];
			in = j->ef;
		}
		rc = gt_gain_code(&s->gc, in, n, i, j->hat, &r[k].cost);
		if (rc < 0)
			return gt_error("%s: %s: %s", j->o->c.input, name, gt_strerror(rc));
		gt_gain_add(&r[k].sums, j->g, in, j->hat, n);
		if (j->o->ef)
			for (size_t x = 0; x < n; x++)
				e->res[x] = in[x] - j->hat[x];
		if (j->o->ewma > 0)
			r[k].ewma = gt_ewma_add(&e->ew, gain_of(j, &r[k].sums));
		if (j->o->multilevel && k == 0) {
			memcpy(j->ef_min, in, n * sizeof(float));
			memcpy(j->hat_min, j->hat, n * sizeof(float));
			t_min = r[k].cost.encode_s;
		} else if (j->o->multilevel) {
			GT_TRY(multilevel(j, k, i, n, t_min, &r[k]));
		}
	}
	return 0;
}

static void header(struct job *j)
{
	const struct gain_opts *o = j->o;

	gt_table_col(j->tb, "step");
	gt_table_col(j->tb, "tensor");
	gt_table_col(j->tb, o->key ? o->key : "options");
	gt_table_col(j->tb, "values");
	gt_table_col(j->tb, "bytes");
	gt_table_col(j->tb, "ratio");
	gt_table_col(j->tb, o->norm ? "gain_norm" : "gain");
	if (o->ewma > 0)
		gt_table_col(j->tb, o->norm ? "gain_norm_ewma" : "gain_ewma");
	gt_table_col(j->tb, "compress_ms");
	gt_table_col(j->tb, "decompress_ms");
	if (o->multilevel) {
		gt_table_col(j->tb, "ml_ms");
		gt_table_col(j->tb, "direct_ms");
		gt_table_col(j->tb, "ml_speedup");
		gt_table_col(j->tb, "ml_equal");
	}
}

/* @equal: 1/0 for a tensor, the share of equal tensors for a total, NaN: none */
static void row(struct job *j, const char *step, const char *tensor,
		const struct setting *s, uint64_t values, const struct result *r,
		double equal)
{
	const struct gain_opts *o = j->o;

	gt_table_numstr(j->tb, step, 1);
	gt_table_str(j->tb, tensor);
	gt_table_numstr(j->tb, s->value, 0);
	gt_table_uint(j->tb, values);
	gt_table_uint(j->tb, r->cost.bytes);
	gt_table_num(j->tb, values ? (double)r->cost.bytes / ((double)values * 4) : NAN, 4);
	gt_table_num(j->tb, gain_of(j, &r->sums), 6);
	if (o->ewma > 0)
		gt_table_num(j->tb, r->ewma, 6);
	gt_table_num(j->tb, r->cost.encode_s * 1e3, 4);
	gt_table_num(j->tb, r->cost.decode_s * 1e3, 4);
	if (o->multilevel) {
		gt_table_num(j->tb, r->ml_ms, 4);
		gt_table_num(j->tb, r->direct_ms, 4);
		gt_table_num(j->tb, r->direct_ms / r->ml_ms, 4);
		gt_table_num(j->tb, equal, 3);
	}
}

static void add_result(struct result *t, const struct result *r)
{
	gt_gain_merge(&t->sums, &r->sums);
	t->cost.bytes += r->cost.bytes;
	t->cost.encode_s += r->cost.encode_s;
	t->cost.decode_s += r->cost.decode_s;
	if (!isnan(r->ml_ms)) {
		t->ml_ms = isnan(t->ml_ms) ? r->ml_ms : t->ml_ms + r->ml_ms;
		t->direct_ms = isnan(t->direct_ms) ? r->direct_ms : t->direct_ms + r->direct_ms;
	}
}

static void result_init(struct result *r)
{
	memset(r, 0, sizeof(*r));
	r->ewma = r->ml_ms = r->direct_ms = NAN;
	r->ml_equal = -1;
}

static double share(uint64_t eq, uint64_t n)
{
	return n ? (double)eq / (double)n : NAN;
}

/* One step: its tensors at every setting, then a total row per setting. */
static int run_step(struct job *j, const struct gt_step *st)
{
	struct result *r = xmalloc(j->nset * sizeof(*r)), *tot = xmalloc(j->nset * sizeof(*r));
	uint64_t *eq = xcalloc(j->nset, sizeof(*eq)), values = 0;
	int rc = 0;

	for (size_t k = 0; k < j->nset; k++)
		result_init(&tot[k]);
	for (size_t t = 0; t < st->nt && rc >= 0; t++) {
		const struct gt_tensor_info *ti = gt_source_info(j->st.src, st->t[t]);
		const size_t n = (size_t)ti->count;

		grow(j, n);
		rc = gt_read_f32(j->st.src, st->t[t], 0, n, j->g, NULL);
		if (rc >= 0)
			rc = code_tensor(j, st->t[t], n, r);
		for (size_t k = 0; k < j->nset && rc >= 0; k++) {
			add_result(&tot[k], &r[k]);
			eq[k] += r[k].ml_equal > 0;
			if (!j->o->total_only)
				row(j, st->label, ti->name, &j->set[k], n, &r[k],
				    r[k].ml_equal < 0 ? NAN : r[k].ml_equal);
		}
		values += n;
	}
	for (size_t k = 0; k < j->nset && rc >= 0; k++) {
		struct setting *s = &j->set[k];
		const int ml = j->o->multilevel && k > 0;

		if (j->o->ewma > 0)
			tot[k].ewma = gt_ewma_add(&s->ew, gain_of(j, &tot[k].sums));
		row(j, st->label, "total", s, values, &tot[k], ml ? share(eq[k], st->nt) : NAN);
		add_result(&s->all, &tot[k]);
		s->values += values;
		s->eq += eq[k];
		s->eqn += ml ? st->nt : 0;
	}
	free(r);
	free(tot);
	free(eq);
	return rc;
}

static int run(struct job *j)
{
	for (size_t s = 0; s < j->st.n; s++)
		GT_TRY(run_step(j, &j->st.step[s]));
	if (j->st.n > 1)
		for (size_t k = 0; k < j->nset; k++)
			row(j, "all", "total", &j->set[k], j->set[k].values, &j->set[k].all,
			    share(j->set[k].eq, j->set[k].eqn));
	return 0;
}

/* Source, trace, selection; the codec and its settings (usage errors: 2). */
static int setup(struct job *j, const struct gain_opts *o)
{
	struct gt_diag d = { "" };

	if (gt_spec_init(&j->spec, o->codec, 0, &d) < 0) {
		gt_error("%s; see 'gtool compress --list-codecs'", d.msg);
		return 2;
	}
	j->codec = j->spec.codec;
	j->base = j->spec.opts;
	if (make_settings(j) < 0)
		return 2;
	if (open_coders(j) < 0)
		return 2;
	if (gt_steps_open(&j->st, o->c.input, &o->c.src, o->c.datasets, o->c.ndatasets, &d) < 0)
		return gt_error("%s", d.msg);
	return 0;
}

static void job_release(struct job *j)
{
	float *bufs[] = { j->g, j->ef, j->hat, j->ef_min, j->hat_min, j->vals, j->tmp,
			  j->ml, j->dir };

	for (size_t k = 0; k < j->nset; k++) {
		struct setting *s = &j->set[k];

		gt_gain_coder_release(&s->gc);
		for (size_t e = 0; e < s->ne; e++)
			free(s->e[e].res);
		free(s->e);
		free(s->opts);
		free(s->value);
	}
	free(j->set);
	gt_spec_release(&j->spec);
	gt_steps_close(&j->st);
	for (size_t k = 0; k < sizeof(bufs) / sizeof(bufs[0]); k++)
		free(bufs[k]);
	free(j->idx);
	gt_table_free(j->tb);
}

int cmd_gain(int argc, char **argv)
{
	struct gain_opts o = { 0 };
	struct job j = { 0 };
	int rc;

	o.c.fmt = GT_FMT_TABLE;
	rc = gt_argp_parse(&gain_argp, argc, argv, &o);
	if (rc) {
		gt_common_release(&o.c);
		return rc;
	}
	j.o = &o;
	rc = setup(&j, &o);
	if (!rc) {
		j.tb = gt_table_new(o.c.fmt);
		header(&j);
		rc = run(&j) < 0;
		if (!rc)
			gt_table_print(j.tb, stdout);
	} else if (rc < 0) {
		rc = 1;
	}
	job_release(&j);
	gt_common_release(&o.c);
	return rc;
}
