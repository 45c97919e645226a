/* optctx.c - where gcomp's optimizer context comes from: a trace, or flags and files */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "optctx.h"
#include "util.h"
#include "../lib/banned.h"

enum {
	OPT_OPTIMIZER = 0x300, OPT_LR, OPT_MOMENTUM, OPT_DAMPENING, OPT_WD,
	OPT_BETA1, OPT_BETA2, OPT_EPS, OPT_ALPHA, OPT_LR_DECAY, OPT_STEP,
	OPT_PARAMS, OPT_STATE,
};

static const struct argp_option options[] = {
	{ "optimizer", OPT_OPTIMIZER, "NAME", 0, "sgd, momentum, nesterov, adagrad, rmsprop, adam or adamw "
	  "(default: the trace's)", 0 },
	{ "lr", OPT_LR, "X", 0, "learning rate", 0 },
	{ "momentum", OPT_MOMENTUM, "X", 0, "momentum (sgd with momentum, nesterov)", 0 },
	{ "dampening", OPT_DAMPENING, "X", 0, "dampening (sgd with momentum)", 0 },
	{ "weight-decay", OPT_WD, "X", 0, "weight decay", 0 },
	{ "beta1", OPT_BETA1, "X", 0, "Adam's beta1", 0 },
	{ "beta2", OPT_BETA2, "X", 0, "Adam's beta2", 0 },
	{ "eps", OPT_EPS, "X", 0, "epsilon (adagrad, rmsprop, adam, adamw)", 0 },
	{ "alpha", OPT_ALPHA, "X", 0, "RMSProp's smoothing constant", 0 },
	{ "lr-decay", OPT_LR_DECAY, "X", 0, "AdaGrad's learning-rate decay", 0 },
	{ "step", OPT_STEP, "T", 0, "the step t, 1-based (default: the trace's, else 1)", 0 },
	{ "params", OPT_PARAMS, "FILE", 0, "the parameters before the step, for input that is not a trace", 0 },
	{ "state", OPT_STATE, "NAME=FILE", 0, "an optimizer state buffer before the step "
	  "(momentum_buffer; exp_avg, exp_avg_sq; sum; square_avg); repeatable", 0 },
	{ 0 }
};


static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct gt_optflags *f = state->input;
	long t;

	/* OPT_LR ... OPT_LR_DECAY are in the order of gt_optim_hps */
	if (key >= OPT_LR && key < OPT_LR + GT_OPTIM_NHP) {
		double v;

		if (gt_parse_double(arg, -INFINITY, INFINITY, &v) < 0)
			argp_error(state, "invalid number '%s'", arg);
		gt_optim_hp_set(&f->o, &gt_optim_hps[key - OPT_LR], v);
		return 0;
	}
	switch (key) {
	case OPT_OPTIMIZER:
		f->o.kind = gt_optim_parse(arg);
		if (f->o.kind == GT_OPT_NONE)
			argp_error(state, "unknown optimizer '%s'", arg);
		break;
	case OPT_STEP:
		if (gt_parse_int(arg, 1, 1L << 40, &t) < 0)
			argp_error(state, "invalid step '%s': expected 1 or more", arg);
		f->o.t = t;
		f->has_t = 1;
		break;
	case OPT_PARAMS: f->params = arg; break;
	case OPT_STATE:
		if (!strchr(arg, '=') || f->state_arg[1])
			argp_error(state, "invalid state '%s': expected NAME=FILE, at most twice", arg);
		f->state_arg[f->state_arg[0] ? 1 : 0] = arg;
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp gt_optflags_argp = { options, parse_opt, NULL, NULL, NULL, NULL, NULL };

/* The tensor of @s standing for @name: the same name, else its only one. */
static int pick(struct gt_source *s, const char *file, const char *name, size_t *idx)
{
	if (gt_source_find(s, name, idx) >= 0)
		return 0;
	if (gt_source_count(s) == 1) {
		*idx = 0;
		return 0;
	}
	return gt_error("%s: no tensor %s, and more than one tensor to choose from", file, name);
}

int gt_optctx_open(struct gt_optctx *c, const struct gt_optflags *f,
		   struct gt_source *input, const char *input_name, size_t buf_values)
{
	const char *files[3] = { f->params, NULL, NULL };
	struct gt_diag d = { "" };

	memset(c, 0, sizeof(*c));
	for (int k = 0; k < 2; k++)
		files[k + 1] = f->state_arg[k] ? strchr(f->state_arg[k], '=') + 1 : NULL;
	for (int k = 0; k < 3; k++) {
		if (files[k] && gt_source_open(files[k], NULL, &c->files[k], &d) < 0)
			return gt_error("%s: %s", files[k], d.msg);
		c->buf[k] = xmalloc(buf_values * sizeof(float));
	}
	c->buf_values = buf_values;
	if (gt_source_ngroups(input) && gt_trace_open(input, &c->trace, &d) < 0)
		return gt_error("%s: %s", input_name, d.msg);
	if (c->trace && !gt_trace_nsteps(c->trace)) {
		gt_trace_free(c->trace);
		c->trace = NULL;
	}
	return 0;
}

void gt_optctx_close(struct gt_optctx *c)
{
	for (int k = 0; k < 3; k++) {
		gt_source_free(c->files[k]);
		free(c->buf[k]);
	}
	gt_trace_free(c->trace);
	memset(c, 0, sizeof(*c));
}

int gt_optctx_is_grad(const struct gt_optctx *c, size_t i)
{
	if (!c->trace)
		return 1;
	for (size_t s = 0; s < gt_trace_nsteps(c->trace); s++) {
		const struct gt_trace_step *st = gt_trace_step(c->trace, s);

		for (size_t k = 0; k < st->n_grads; k++)
			if (st->grads[k] == i)
				return 1;
	}
	return 0;
}

/* The flags given override the trace's values. */
static void merge(struct gt_optim *o, const struct gt_optflags *f)
{
	for (size_t k = 0; k < GT_OPTIM_NHP; k++)
		if (f->o.have & gt_optim_hps[k].bit)
			gt_optim_hp_set(o, &gt_optim_hps[k], gt_optim_hp_get(&f->o, &gt_optim_hps[k]));
	if (f->o.kind != GT_OPT_NONE)
		o->kind = f->o.kind;
	if (f->has_t)
		o->t = f->o.t;
	if (!o->t)
		o->t = 1;
	if (o->kind == GT_OPT_SGD && (o->momentum > 0 || o->momentum < 0))
		o->kind = GT_OPT_MOMENTUM;
}

/* Which state buffer a --state NAME=FILE names: 0, 1, or -1. */
static int state_slot(const struct gt_optim *o, const char *arg)
{
	const size_t len = (size_t)(strchr(arg, '=') - arg);

	for (int k = 0; k < gt_optim_nstates(o->kind); k++) {
		const char *name = gt_optim_state_name(o->kind, k);

		if (strlen(name) == len && !strncmp(name, arg, len))
			return k;
	}
	return -1;
}

/* A state buffer may be absent only before the optimizer's first step. */
static int absent(const struct gt_optim *o, const char *where, const char *buf,
		  const char *name)
{
	if (o->t <= 1)
		return 0;
	return gt_error("%s: state %s of %s missing at step %ld", where, buf, name, o->t);
}

static int resolve_trace(struct gt_optctx *c, struct gt_source *input,
			 const char *input_name, size_t i)
{
	const long si = gt_trace_step_of(c->trace, i);
	const char *name = gt_trace_param_name(gt_source_info(input, i)->name);
	struct gt_diag d = { "" };

	if (gt_trace_find(c->trace, (size_t)si, GT_ROLE_PARAM, NULL, name, &c->idx[0], &d) < 0)
		return gt_error("%s: %s", input_name, d.msg);
	c->src[0] = input;
	for (int k = 0; k < gt_optim_nstates(c->optim.kind); k++) {
		const char *buf = gt_optim_state_name(c->optim.kind, k);

		if (gt_trace_find(c->trace, (size_t)si, GT_ROLE_STATE, buf, name,
				  &c->idx[k + 1], &d) >= 0)
			c->src[k + 1] = input;
		else if (absent(&c->optim, input_name, buf, name) < 0)
			return -1;
	}
	return 0;
}

static int resolve_files(struct gt_optctx *c, const struct gt_optflags *f, const char *name)
{
	if (!c->files[0])
		return gt_error("codec gcomp needs the parameters: compress a trace, or give "
				"--params FILE (see gtool-compress(1))");
	GT_TRY(pick(c->files[0], f->params, name, &c->idx[0]));
	c->src[0] = c->files[0];
	for (int k = 0; k < 2; k++) {
		const int slot = f->state_arg[k] ? state_slot(&c->optim, f->state_arg[k]) : -1;

		if (f->state_arg[k] && slot < 0)
			return gt_error("--state %s: %s has no such state buffer", f->state_arg[k],
					gt_optim_name(c->optim.kind));
		if (slot >= 0) {
			GT_TRY(pick(c->files[k + 1], strchr(f->state_arg[k], '=') + 1, name,
				    &c->idx[slot + 1]));
			c->src[slot + 1] = c->files[k + 1];
		}
	}
	for (int k = 0; k < gt_optim_nstates(c->optim.kind); k++)
		if (!c->src[k + 1] && absent(&c->optim, "--state", gt_optim_state_name(c->optim.kind, k),
					     name) < 0)
			return -1;
	return 0;
}

int gt_optctx_resolve(struct gt_optctx *c, const struct gt_optflags *f,
		      struct gt_source *input, const char *input_name, size_t i)
{
	const struct gt_tensor_info *g = gt_source_info(input, i);
	const long si = c->trace ? gt_trace_step_of(c->trace, i) : -1;
	struct gt_diag d = { "" };
	char where[300];

	memset(&c->optim, 0, sizeof(c->optim));
	memset(c->src, 0, sizeof(c->src));
	if (si >= 0) {
		const struct gt_trace_step *st = gt_trace_step(c->trace, (size_t)si);

		c->optim = st->optim;
		snprintf(where, sizeof(where), "step %s", st->group);
	} else {
		snprintf(where, sizeof(where), "the optimizer flags");
	}
	merge(&c->optim, f);
	if (si < 0 && c->optim.kind == GT_OPT_NONE)
		return gt_error("%s: codec gcomp needs the optimizer and the parameters before "
				"the step: compress a trace, or give --optimizer, its "
				"hyper-parameters and --params FILE (modes single-quant and "
				"zero-prune need none)", input_name);
	if ((si >= 0 ? gt_trace_check(gt_trace_step(c->trace, (size_t)si), &c->optim, &d)
		     : gt_optim_check(&c->optim, where, &d)) < 0)
		return gt_error("%s: %s", input_name, d.msg);
	GT_TRY(si >= 0 ? resolve_trace(c, input, input_name, i) : resolve_files(c, f, g->name));
	for (int k = 0; k < 3; k++) {
		const struct gt_tensor_info *t = c->src[k] ? gt_source_info(c->src[k], c->idx[k]) : NULL;

		if (t && (t->count != g->count || t->dtype == GT_DT_NONE))
			return gt_error("%s: %s has %llu values where the gradient %s has %llu",
					gt_source_path(c->src[k]), t->name,
					(unsigned long long)t->count, g->name,
					(unsigned long long)g->count);
	}
	return 0;
}

/* Read @n values of context array @k as f32; NaN or Inf is an error. */
static int read_one(struct gt_optctx *c, int k, uint64_t first, size_t n)
{
	const struct gt_tensor_info *t = gt_source_info(c->src[k], c->idx[k]);

	if (gt_read_f32(c->src[k], c->idx[k], first, n, c->buf[k], NULL) < 0)
		return -1;
	for (size_t v = 0; v < n; v++)
		if (!isfinite(c->buf[k][v]))
			return gt_error("%s: %s: value %llu is %s: gcomp needs finite parameters "
					"and state", gt_source_path(c->src[k]), t->name,
					(unsigned long long)(first + v),
					isnan(c->buf[k][v]) ? "NaN" : "infinite");
	return 0;
}

int gt_optctx_read(struct gt_optctx *c, uint64_t first, size_t n,
		   struct gt_codec_aux *aux)
{
	const float **dst[3] = { &aux->param, &aux->state[0], &aux->state[1] };

	for (int k = 0; k < 3; k++) {
		*dst[k] = NULL;
		if (!c->src[k])
			continue;
		GT_TRY(read_one(c, k, first, n));
		*dst[k] = c->buf[k];
	}
	return 0;
}

/* 0 when codec @codec cannot code values of @dt at all (rangeq on bf16). */
static int codes_dtype(const struct gt_codec *codec, enum gt_dtype dt)
{
	const struct gt_codec_params p = { dt, NULL, NULL, 0, NULL };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d;
	const int rc = gt_codec_new(codec, &p, &ctx, &d);

	gt_codec_free(ctx);
	return rc != GT_ERR(TYPE);
}

int gt_optctx_coding(struct gt_optctx *c, const struct gt_optflags *f,
		     struct gt_source *input, const char *input_name, size_t i,
		     const struct gt_codec *codec, int needs_optim,
		     const struct gt_codec **codec_ret, int *own_opts_ret, int *aux_ret)
{
	*codec_ret = codec;
	*own_opts_ret = 1;
	*aux_ret = 0;
	if (gt_codec_flags(codec) & GT_CODEC_LOSSLESS)
		return 0;
	if (!gt_optctx_is_grad(c, i) || !codes_dtype(codec, gt_source_info(input, i)->dtype)) {
		if (gt_optctx_is_grad(c, i))
			gt_warn("%s: %s: codec %s does not code %s; kept losslessly with huffexp",
				input_name, gt_source_info(input, i)->name, gt_codec_name(codec),
				gt_dtype_name(gt_source_info(input, i)->dtype));
		*codec_ret = gt_codec_find("huffexp");
		*own_opts_ret = 0;
		return 0;
	}
	if (!(gt_codec_flags(codec) & GT_CODEC_NEEDS_OPTIM) || !needs_optim)
		return 0;
	if (gt_optctx_resolve(c, f, input, input_name, i) < 0)
		return -1;
	*aux_ret = 1;
	return 0;
}
