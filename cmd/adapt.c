/* adapt.c - `gtool adapt`: GraVAC's adaptive compression replayed over a trace */
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
#include "../analysis/gt_adapt.h"
#include "../formats/gt_gtz.h"
#include "../lib/banned.h"

struct adapt_opts {
	const char *codec;
	struct gt_adapt_params p;
	int have_alpha, summary;
	struct gt_common c;      /* input, -d, --dtype, sizes, --format, -q */
};

enum { OPT_TMIN = 256, OPT_TMAX, OPT_TS, OPT_EPS, OPT_OMEGA, OPT_WINDOW, OPT_POLICY,
       OPT_COMPUTE, OPT_BW, OPT_LAT, OPT_WORKERS, OPT_BATCH, OPT_EWMA, OPT_SUMMARY,
       };

static const struct argp_option options[] = {
	{ "codec", 'c', "NAME[:K=V,...]", 0, "a sparsifier: topk, dgc, redsync or randk (required)", 0 },
	{ NULL, 0, NULL, 0, "GraVAC's parameters (Algorithm 1):", 1 },
	{ "theta-min", OPT_TMIN, "CF", 0, "smallest compression factor (default 10)", 1 },
	{ "theta-max", OPT_TMAX, "CF", 0, "largest compression factor (default 1000)", 1 },
	{ "theta-s", OPT_TS, "X", 0, "first step size: the first candidate is X theta-min (default 2)", 1 },
	{ "epsilon", OPT_EPS, "G", 0, "least compression gain a CF must keep to be sent (default 0.9)", 1 },
	{ "omega", OPT_OMEGA, "F", 0, "saturation threshold, a fraction: 0.01 is 1 % (default 0.01)", 1 },
	{ "window", OPT_WINDOW, "N", 0, "steps between evaluations (default 500, the paper's)", 1 },
	{ "policy", OPT_POLICY, "P", 0, "scaling policy: exponential (default) or geometric", 1 },
	{ "ewma", OPT_EWMA, "ALPHA", 0, "smoothing of the gains (default workers/100, as the paper)", 1 },
	{ NULL, 0, NULL, 0, "The iteration-time model:", 2 },
	{ "compute-time", OPT_COMPUTE, "SECONDS", 0, "forward and backward pass, t_o (default 0.25)", 2 },
	{ "bandwidth", OPT_BW, "BITS/S", 0, "link speed: 10G, 2.5G, 100M (default 10G)", 2 },
	{ "latency", OPT_LAT, "SECONDS", 0, "alpha of the alpha-beta model (default 5e-5)", 2 },
	{ "workers", OPT_WORKERS, "N", 0, "data-parallel workers (default 32, the paper's)", 2 },
	{ "batch", OPT_BATCH, "B", 0, "per-worker batch size, for T_sys (default 32)", 2 },
	{ NULL, 0, NULL, 0, "Input and output:", 3 },
	{ "summary", OPT_SUMMARY, NULL, 0, "print only the summary (CF densities, volume)", 3 },
	{ 0 }
};

static double num(struct argp_state *state, const char *arg, double min, double max,
		  const char *what)
{
	double v;

	if (gt_parse_double(arg, min, max, &v) < 0)
		argp_error(state, "invalid %s '%s': expected %g-%g", what, arg, min, max);
	return v;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct adapt_opts *o = state->input;
	struct gt_adapt_params *p = &o->p;

	switch (key) {
	case ARGP_KEY_INIT: gt_common_bind(state, &adapt_argp, &o->c); break;
	case 'c': o->codec = arg; break;
	case OPT_TMIN: p->theta_min = num(state, arg, 1, 1e9, "theta-min"); break;
	case OPT_TMAX: p->theta_max = num(state, arg, 1, 1e9, "theta-max"); break;
	case OPT_TS: p->theta_s = num(state, arg, 1, 1e9, "theta-s"); break;
	case OPT_EPS: p->epsilon = num(state, arg, 0, 1, "epsilon"); break;
	case OPT_OMEGA: p->omega = num(state, arg, 0, 1, "omega"); break;
	case OPT_WINDOW: p->window = (unsigned)num(state, arg, 1, 1e9, "window"); break;
	case OPT_POLICY:
		if (!strcmp(arg, "exponential"))
			p->policy = GT_ADAPT_EXPONENTIAL;
		else if (!strcmp(arg, "geometric"))
			p->policy = GT_ADAPT_GEOMETRIC;
		else
			argp_error(state, "invalid policy '%s': expected exponential or geometric", arg);
		break;
	case OPT_EWMA: p->alpha = num(state, arg, 1e-9, 1, "smoothing factor"); o->have_alpha = 1; break;
	case OPT_COMPUTE: p->compute_s = num(state, arg, 0, 1e6, "compute time"); break;
	case OPT_BW:
		if (gt_parse_rate(arg, &p->bandwidth) < 0)
			argp_error(state, "invalid bandwidth '%s': expected bits/s such as 10G", arg);
		break;
	case OPT_LAT: p->latency_s = num(state, arg, 0, 1e3, "latency"); break;
	case OPT_WORKERS: p->workers = (unsigned)num(state, arg, 1, 1e7, "worker count"); break;
	case OPT_BATCH: p->batch = (unsigned)num(state, arg, 1, 1e9, "batch size"); break;
	case OPT_SUMMARY: o->summary = 1; break;
	case ARGP_KEY_END:
		if (!o->c.input)
			argp_usage(state);
		if (!o->codec)
			argp_error(state, "no codec: give -c with a sparsifier (topk, dgc, redsync, randk)");
		if (p->theta_max < p->theta_min)
			argp_error(state, "theta-max %g is below theta-min %g", p->theta_max, p->theta_min);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &gt_common_input_argp, 0, NULL, 3 },
	{ &gt_common_dataset_argp, 0, NULL, 3 },
	{ &gt_common_fmt_argp, 0, NULL, 3 },
	{ &gt_common_dtype_argp, 0, NULL, 3 },
	{ &gt_common_blocks_argp, 0, NULL, 3 },
	{ &gt_common_quiet_argp, 0, NULL, 3 },
	{ 0 }
};

const struct argp adapt_argp = {
	options, parse_opt, "TRACE",
	"Replay GraVAC's adaptive compression (Algorithm 1) over the steps of "
	"TRACE with a real sparsifier: residuals per tensor, compression to "
	"theta-min and then, multi-level, to the candidate CF, smoothed gains, "
	"the choice between candidate, theta-min and dense by epsilon, and the "
	"window evaluation that scales the CF up.  Iteration time is modelled: "
	"compute time + the measured compression time + a ring allreduce of the "
	"chosen volume, 2(N-1) alpha + 2 M 8/bandwidth (N-1)/N.",
	children, NULL, NULL
};

/* A tensor's arrays, carried across steps (matched by parameter name). */
struct entry {
	const char *name;
	size_t n;
	float *res, *go, *gmin, *gc; /* residual; g + residual; at theta_min; at the candidate */
};

struct job {
	const struct adapt_opts *o;
	struct gt_spec spec;       /* -c, parsed once */
	const struct gt_codec *codec;
	const char *base;
	struct gt_steps st;
	struct entry *e;
	size_t ne;
	float *g;
	struct gt_gain_scratch sc;
	struct gt_adapt a;
	struct gt_table *tb;
	/* the summary: steps and bytes per CF sent */
	double cf[GT_ADAPT_MAX_CF + 1], sent[GT_ADAPT_MAX_CF + 1], dense[GT_ADAPT_MAX_CF + 1];
	unsigned long steps[GT_ADAPT_MAX_CF + 1];
	size_t ncf;
};

static struct entry *entry_of(struct job *j, const char *name, size_t n)
{
	struct entry *e;

	for (size_t k = 0; k < j->ne; k++)
		if (!strcmp(j->e[k].name, name))
			return j->e[k].n == n ? &j->e[k] : NULL;
	j->e = xrealloc(j->e, (j->ne + 1) * sizeof(*j->e));
	e = &j->e[j->ne++];
	e->name = name;
	e->n = n;
	e->res = xcalloc(n ? n : 1, sizeof(float));
	e->go = xmalloc((n ? n : 1) * sizeof(float));
	e->gmin = xmalloc((n ? n : 1) * sizeof(float));
	e->gc = xmalloc((n ? n : 1) * sizeof(float));
	return e;
}

static size_t block_of(const struct job *j)
{
	return gt_chunk_block(j->o->c.block_values);
}

static size_t chunk_of(const struct job *j)
{
	return gt_chunk_values(NULL, block_of(j), j->o->c.chunk_values);
}

/* Lines 4-10 for one tensor: g_o, g_min, g_c and what they cost. */
static int code_tensor(struct job *j, struct gt_gain_coder *gc, struct entry *e,
		       size_t i, struct gt_adapt_in *in)
{
	const double cand = gt_adapt_candidate(&j->a);
	struct gt_gain_cost cmin = { 0 }, cc = { 0 };
	struct gt_diag d = { "" };
	int rc;

	for (size_t x = 0; x < e->n; x++)
		e->go[x] = j->g[x] + e->res[x];
	rc = gt_gain_code(gc, e->go, e->n, i, e->gmin, &cmin);
	if (rc < 0)
		return gt_error("%s: %s: %s", j->o->c.input, e->name, gt_strerror(rc));
	if (cand > j->a.theta_min) {
		if (gt_gain_relevel(j->codec, j->base, e->gmin, e->n, cand, block_of(j),
				    chunk_of(j), i, e->gc, &j->sc, &cc, &d) < 0)
			return gt_error("%s: %s: %s", j->o->c.input, e->name, d.msg);
	} else {
		memcpy(e->gc, e->gmin, e->n * sizeof(float));
		cc.bytes = cmin.bytes;
	}
	gt_gain_add(&in->min, e->go, e->go, e->gmin, e->n);
	gt_gain_add(&in->cand, e->go, e->go, e->gc, e->n);
	in->t_min += cmin.encode_s;
	in->t_c += cc.encode_s;
	in->bytes_min += (double)cmin.bytes;
	in->bytes_c += (double)cc.bytes;
	in->bytes_dense += 4.0 * (double)e->n;
	return 0;
}

/* Lines 13, 18, 23: the residual of what was sent. */
static void update_residuals(struct job *j, const struct gt_step *st,
			     enum gt_adapt_choice choice)
{
	for (size_t t = 0; t < st->nt; t++) {
		const size_t i = st->t[t];
		struct entry *e = entry_of(j, gt_steps_name(&j->st, i),
					   (size_t)gt_source_info(j->st.src, i)->count);
		const float *sent = choice == GT_ADAPT_CANDIDATE ? e->gc : e->gmin;

		for (size_t x = 0; x < e->n; x++)
			e->res[x] = choice == GT_ADAPT_DENSE ? 0 : e->go[x] - sent[x];
	}
}

static const char *choice_name(enum gt_adapt_choice c)
{
	switch (c) {
	case GT_ADAPT_CANDIDATE: return "candidate";
	case GT_ADAPT_MIN: return "min";
	case GT_ADAPT_DENSE: return "dense";
	}
	return "?";
}

static void tally(struct job *j, const struct gt_adapt_out *out, double dense)
{
	size_t k;

	for (k = 0; k < j->ncf; k++)
		if (fabs(j->cf[k] - out->cf) <= 1e-9 * out->cf)
			break;
	if (k == j->ncf) {
		if (k == GT_ADAPT_MAX_CF)
			k--; /* more distinct CFs than a replay can show: lump the last */
		else
			j->ncf++;
		j->cf[k] = out->cf;
	}
	j->steps[k]++;
	j->sent[k] += out->bytes;
	j->dense[k] += dense;
}

static void step_row(struct job *j, const char *label, const struct gt_adapt_out *o)
{
	struct gt_table *t = j->tb;

	gt_table_numstr(t, label, 1);
	gt_table_num(t, o->theta_min, 6);
	gt_table_num(t, o->candidate, 6);
	gt_table_num(t, o->cf, 6);
	gt_table_str(t, choice_name(o->choice));
	gt_table_num(t, o->gain_min, 6);
	gt_table_num(t, o->gain_c, 6);
	gt_table_num(t, o->bytes, 10);
	gt_table_num(t, o->t_compress * 1e3, 4);
	gt_table_num(t, o->t_sync * 1e3, 4);
	gt_table_num(t, o->t_iter * 1e3, 4);
	gt_table_num(t, o->t_sys, 6);
	gt_table_num(t, o->t_compression, 6);
}

static int run_step(struct job *j, const struct gt_step *st)
{
	struct gt_adapt_in in = { 0 };
	struct gt_adapt_out out;
	struct gt_gain_coder gc;
	struct gt_diag d = { "" };
	char opts[300];
	int rc = 0;

	snprintf(opts, sizeof(opts), "%s%scf=%.17g", j->base, *j->base ? "," : "", j->a.theta_min);
	if (gt_gain_coder_init(&gc, j->codec, opts, block_of(j), chunk_of(j), &d) < 0)
		return gt_error("%s", d.msg);
	for (size_t t = 0; t < st->nt && rc >= 0; t++) {
		const size_t i = st->t[t];
		const size_t n = (size_t)gt_source_info(j->st.src, i)->count;
		struct entry *e = entry_of(j, gt_steps_name(&j->st, i), n);

		if (!e)
			rc = gt_error("%s: %s changes size between steps", j->o->c.input,
				      gt_steps_name(&j->st, i));
		if (rc >= 0)
			rc = gt_read_f32(j->st.src, i, 0, n, j->g, NULL);
		if (rc >= 0)
			rc = code_tensor(j, &gc, e, i, &in);
	}
	gt_gain_coder_release(&gc);
	if (rc < 0)
		return rc;
	gt_adapt_step(&j->a, &in, &out);
	update_residuals(j, st, out.choice);
	tally(j, &out, in.bytes_dense);
	if (!j->o->summary)
		step_row(j, st->label, &out);
	return 0;
}

static void header(struct job *j)
{
	static const char *const cols[] = {
		"step", "theta_min", "candidate", "cf", "choice", "gain_min", "gain_c", "bytes",
		"t_compress_ms", "t_sync_ms", "t_iter_ms", "t_sys", "t_compression",
	};
	static const char *const sum[] = { "cf", "steps", "share", "bytes", "reduction" };
	const int s = j->o->summary;

	for (size_t k = 0; k < (s ? 5 : sizeof(cols) / sizeof(cols[0])); k++)
		gt_table_col(j->tb, s ? sum[k] : cols[k]);
}

static void sum_row(struct gt_table *t, const char *cf, unsigned long steps,
		    unsigned long all, double sent, double dense)
{
	gt_table_numstr(t, cf, 1);
	gt_table_uint(t, steps);
	gt_table_num(t, all ? (double)steps / (double)all : NAN, 4);
	gt_table_num(t, sent, 10);
	gt_table_num(t, sent > 0 ? dense / sent : NAN, 5);
}

/* CF densities and the communication volume against dense SGD. */
static void summary(struct job *j, struct gt_table *t)
{
	unsigned long all = 0;
	double sent = 0, dense = 0;
	char cf[32];

	for (size_t k = 0; k < j->ncf; k++) {
		all += j->steps[k];
		sent += j->sent[k];
		dense += j->dense[k];
	}
	for (size_t k = 0; k < j->ncf; k++) {
		snprintf(cf, sizeof(cf), "%g", j->cf[k]);
		sum_row(t, cf, j->steps[k], all, j->sent[k], j->dense[k]);
	}
	sum_row(t, "all", all, all, sent, dense);
}

/* The codec must be a sparsifier: one that takes a compression factor. */
/* The codec spec, and that it takes a compression factor (usage errors: 2). */
static int setup_spec(struct job *j, const struct adapt_opts *o)
{
	struct gt_spec probe;
	struct gt_diag d = { "" };
	char text[400];

	if (gt_spec_init(&j->spec, o->codec, 0, &d) < 0) {
		gt_error("%s; see 'gtool compress --list-codecs'", d.msg);
		return 2;
	}
	j->codec = j->spec.codec;
	j->base = j->spec.opts;
	snprintf(text, sizeof(text), "%s:%s%scf=%.17g", gt_codec_name(j->codec), j->base,
		 *j->base ? "," : "", o->p.theta_min);
	if (gt_spec_init(&probe, text, 0, &d) < 0) {
		gt_error("codec %s cannot be set to a compression factor (%s); "
			 "adapt takes a sparsifier: topk, dgc, redsync or randk",
			 gt_codec_name(j->codec), d.msg);
		return 2;
	}
	gt_spec_release(&probe);
	return 0;
}

static int setup(struct job *j, struct adapt_opts *o)
{
	struct gt_diag d = { "" };
	const int rc = setup_spec(j, o);

	if (rc)
		return rc;
	if (!o->have_alpha)
		o->p.alpha = o->p.workers >= 100 ? 1 : o->p.workers / 100.0;
	gt_adapt_init(&j->a, &o->p);
	if (gt_steps_open(&j->st, o->c.input, &o->c.src, o->c.datasets, o->c.ndatasets, &d) < 0)
		return gt_error("%s", d.msg);
	j->g = xmalloc((j->st.most + 1) * sizeof(float));
	j->sc.vals = xmalloc((j->st.most + 1) * sizeof(float));
	j->sc.tmp = xmalloc((j->st.most + 1) * sizeof(float));
	j->sc.idx = xmalloc((j->st.most + 1) * sizeof(size_t));
	return 0;
}

static int run(struct job *j)
{
	const struct adapt_opts *o = j->o;

	j->tb = gt_table_new(o->c.fmt);
	header(j);
	for (size_t s = 0; s < j->st.n; s++)
		GT_TRY(run_step(j, &j->st.step[s]));
	if (o->c.fmt == GT_FMT_TABLE)
		printf("# t_iter = %g s compute + measured compression + ring allreduce "
		       "2(N-1) alpha + 2 M 8/B (N-1)/N, N = %u, alpha = %g s, B = %g bit/s; "
		       "gains smoothed with alpha %g\n",
		       o->p.compute_s, o->p.workers, o->p.latency_s, o->p.bandwidth, o->p.alpha);
	if (o->summary) {
		summary(j, j->tb);
	} else if (o->c.fmt == GT_FMT_TABLE) {
		struct gt_table *t = gt_table_new(o->c.fmt);
		static const char *const sum[] = { "cf", "steps", "share", "bytes", "reduction" };

		for (size_t k = 0; k < 5; k++)
			gt_table_col(t, sum[k]);
		summary(j, t);
		gt_table_print(j->tb, stdout);
		putchar('\n');
		gt_table_print(t, stdout);
		gt_table_free(t);
		return 0;
	}
	gt_table_print(j->tb, stdout);
	return 0;
}

static void job_release(struct job *j)
{
	gt_spec_release(&j->spec);
	for (size_t k = 0; k < j->ne; k++) {
		free(j->e[k].res);
		free(j->e[k].go);
		free(j->e[k].gmin);
		free(j->e[k].gc);
	}
	free(j->e);
	free(j->g);
	free(j->sc.vals);
	free(j->sc.tmp);
	free(j->sc.idx);
	gt_table_free(j->tb);
	gt_steps_close(&j->st);
}

int cmd_adapt(int argc, char **argv)
{
	struct adapt_opts o = { 0 };
	struct job j = { 0 };
	int rc;

	o.c.fmt = GT_FMT_TABLE;
	o.p = (struct gt_adapt_params){
		.theta_min = 10, .theta_max = 1000, .theta_s = 2, .epsilon = 0.9,
		.omega = 0.01, .window = 500, .policy = GT_ADAPT_EXPONENTIAL,
		.compute_s = 0.25, .latency_s = 5e-5, .bandwidth = 10e9,
		.workers = 32, .batch = 32,
	};
	rc = gt_argp_parse(&adapt_argp, argc, argv, &o);
	if (!rc) {
		j.o = &o;
		rc = setup(&j, &o);
		if (!rc)
			rc = run(&j) < 0;
		else if (rc < 0)
			rc = 1;
		job_release(&j);
	}
	gt_common_release(&o.c);
	return rc;
}
