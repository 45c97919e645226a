/* optctx.c - the per-tensor coding plan: which codec codes a tensor, and where
 * gcomp's optimizer context comes from (a trace, or flags and files) */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_optctx.h"
#include "gt_tensor.h"
#include "../lib/banned.h"

/* The tensor of @s standing for @name: the same name, else its only one. */
static int pick(struct gt_source *s, const char *file, const char *name, size_t *idx,
		struct gt_diag *d)
{
	if (gt_source_find(s, name, idx) >= 0)
		return 0;
	if (gt_source_count(s) == 1) {
		*idx = 0;
		return 0;
	}
	return gt_diag_set(d, GT_ERR(NOTFOUND),
			   "%s: no tensor %s, and more than one tensor to choose from", file, name);
}

int gt_optctx_open(struct gt_optctx *c, const struct gt_optflags *f,
		   struct gt_source *input, const char *input_name, size_t buf_values,
		   struct gt_diag *d)
{
	const char *files[3] = { f->params, NULL, NULL };
	struct gt_diag rd = { "" };
	int rc;

	memset(c, 0, sizeof(*c));
	for (int k = 0; k < 2; k++)
		files[k + 1] = f->state_arg[k] ? strchr(f->state_arg[k], '=') + 1 : NULL;
	for (int k = 0; k < 3; k++) {
		if (files[k]) {
			rc = gt_source_open(files[k], NULL, &c->files[k], &rd);
			if (rc < 0)
				return gt_diag_set(d, rc, "%s: %s", files[k], rd.msg);
		}
		c->buf[k] = malloc(buf_values * sizeof(float) + 1);
		if (!c->buf[k])
			return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	c->buf_values = buf_values;
	if (gt_source_ngroups(input)) {
		rc = gt_trace_open(input, &c->trace, &rd);
		if (rc < 0)
			return gt_diag_set(d, rc, "%s: %s", input_name, rd.msg);
	}
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
		free(c->buf64[k]);
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
		  const char *name, struct gt_diag *d)
{
	if (o->t <= 1)
		return 0;
	return gt_diag_set(d, GT_ERR(NOTFOUND), "%s: state %s of %s missing at step %ld",
			   where, buf, name, o->t);
}

static int resolve_trace(struct gt_optctx *c, struct gt_source *input,
			 const char *input_name, size_t i, struct gt_diag *d)
{
	const long si = gt_trace_step_of(c->trace, i);
	const char *name = gt_trace_param_name(gt_source_info(input, i)->name);
	struct gt_diag rd = { "" };
	const int rc = gt_trace_find(c->trace, (size_t)si, GT_ROLE_PARAM, NULL, name,
				     &c->idx[0], &rd);

	if (rc < 0)
		return gt_diag_set(d, rc, "%s: %s", input_name, rd.msg);
	c->src[0] = input;
	for (int k = 0; k < gt_optim_nstates(c->optim.kind); k++) {
		const char *buf = gt_optim_state_name(c->optim.kind, k);

		if (gt_trace_find(c->trace, (size_t)si, GT_ROLE_STATE, buf, name,
				  &c->idx[k + 1], &rd) >= 0)
			c->src[k + 1] = input;
		else
			GT_TRY(absent(&c->optim, input_name, buf, name, d));
	}
	return 0;
}

static int resolve_files(struct gt_optctx *c, const struct gt_optflags *f, const char *name,
			 struct gt_diag *d)
{
	if (!c->files[0])
		return gt_diag_set(d, GT_ERR(INVAL),
				   "codec gcomp needs the parameters: compress a trace, or give "
				   "--params FILE (see gtool-compress(1))");
	GT_TRY(pick(c->files[0], f->params, name, &c->idx[0], d));
	c->src[0] = c->files[0];
	for (int k = 0; k < 2; k++) {
		const int slot = f->state_arg[k] ? state_slot(&c->optim, f->state_arg[k]) : -1;

		if (f->state_arg[k] && slot < 0)
			return gt_diag_set(d, GT_ERR(INVAL), "--state %s: %s has no such state buffer",
					   f->state_arg[k], gt_optim_name(c->optim.kind));
		if (slot >= 0) {
			GT_TRY(pick(c->files[k + 1], strchr(f->state_arg[k], '=') + 1, name,
				    &c->idx[slot + 1], d));
			c->src[slot + 1] = c->files[k + 1];
		}
	}
	for (int k = 0; k < gt_optim_nstates(c->optim.kind); k++)
		if (!c->src[k + 1])
			GT_TRY(absent(&c->optim, "--state", gt_optim_state_name(c->optim.kind, k),
				      name, d));
	return 0;
}

int gt_optctx_resolve(struct gt_optctx *c, const struct gt_optflags *f,
		      struct gt_source *input, const char *input_name, size_t i,
		      struct gt_diag *d)
{
	const struct gt_tensor_info *g = gt_source_info(input, i);
	const long si = c->trace ? gt_trace_step_of(c->trace, i) : -1;
	struct gt_diag rd = { "" };
	char where[300];
	int rc;

	memset(&c->optim, 0, sizeof(c->optim));
	memset(c->src, 0, sizeof(c->src));
	c->f64 = g->dtype == GT_DT_F64;
	if (si >= 0) {
		const struct gt_trace_step *st = gt_trace_step(c->trace, (size_t)si);

		c->optim = st->optim;
		snprintf(where, sizeof(where), "step %s", st->group);
	} else {
		snprintf(where, sizeof(where), "the optimizer flags");
	}
	merge(&c->optim, f);
	if (si < 0 && c->optim.kind == GT_OPT_NONE)
		return gt_diag_set(d, GT_ERR(INVAL),
				   "%s: codec gcomp needs the optimizer and the parameters before "
				   "the step: compress a trace, or give --optimizer, its "
				   "hyper-parameters and --params FILE (modes single-quant and "
				   "zero-prune need none)", input_name);
	rc = si >= 0 ? gt_trace_check(gt_trace_step(c->trace, (size_t)si), &c->optim, &rd)
		     : gt_optim_check(&c->optim, where, &rd);
	if (rc < 0)
		return gt_diag_set(d, rc, "%s: %s", input_name, rd.msg);
	GT_TRY(si >= 0 ? resolve_trace(c, input, input_name, i, d)
		       : resolve_files(c, f, g->name, d));
	for (int k = 0; k < 3; k++) {
		const struct gt_tensor_info *t = c->src[k] ? gt_source_info(c->src[k], c->idx[k]) : NULL;

		if (t && (t->count != g->count || t->dtype == GT_DT_NONE))
			return gt_diag_set(d, GT_ERR(INVAL),
					   "%s: %s has %llu values where the gradient %s has %llu",
					   gt_source_path(c->src[k]), t->name,
					   (unsigned long long)t->count, g->name,
					   (unsigned long long)g->count);
	}
	return 0;
}

/* @n values of context array @k of an f64 gradient into c->buf64[k]
 * (exact from any dtype) and, rounded, c->buf[k]. */
static int read_f64(struct gt_optctx *c, int k, uint64_t first, size_t n,
		    struct gt_diag *d)
{
	const struct gt_tensor_info *t = gt_source_info(c->src[k], c->idx[k]);
	struct gt_diag rd = { "" };
	size_t got = 0;
	int rc;

	if (!c->buf64[k] && !(c->buf64[k] = malloc(c->buf_values * sizeof(double) + 1)))
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	if (t->dtype != GT_DT_F64) {
		GT_TRY(gt_tensor_read_f32(c->src[k], c->idx[k], first, n, c->buf[k], NULL, d));
		for (size_t v = 0; v < n; v++)
			c->buf64[k][v] = c->buf[k][v];
		return 0;
	}
	rc = gt_source_read(c->src[k], c->idx[k], first, n, c->buf64[k], &got, &rd);
	if (rc < 0)
		return gt_diag_set(d, rc, "%s: %s", gt_source_path(c->src[k]), rd.msg);
	if (got != n)
		return gt_diag_set(d, GT_ERR(TRUNCATED), "%s: %s: unexpected end of data",
				   gt_source_path(c->src[k]), t->name);
	for (size_t v = 0; v < n; v++)
		c->buf[k][v] = (float)c->buf64[k][v];
	return 0;
}

/* Read @n values of context array @k as f32 (and f64 for an f64
 * gradient); NaN or Inf is an error. */
static int read_one(struct gt_optctx *c, int k, uint64_t first, size_t n,
		    struct gt_diag *d)
{
	const struct gt_tensor_info *t = gt_source_info(c->src[k], c->idx[k]);

	if (c->f64)
		GT_TRY(read_f64(c, k, first, n, d));
	else
		GT_TRY(gt_tensor_read_f32(c->src[k], c->idx[k], first, n, c->buf[k], NULL, d));
	for (size_t v = 0; v < n; v++)
		if (!isfinite(c->buf[k][v]))
			return gt_diag_set(d, GT_ERR(INVAL),
					   "%s: %s: value %llu is %s: gcomp needs finite "
					   "parameters and state", gt_source_path(c->src[k]),
					   t->name, (unsigned long long)(first + v),
					   isnan(c->buf[k][v]) ? "NaN" : "infinite");
	return 0;
}

int gt_optctx_read(struct gt_optctx *c, uint64_t first, size_t n,
		   struct gt_codec_aux *aux, struct gt_diag *d)
{
	const float **dst[3] = { &aux->param, &aux->state[0], &aux->state[1] };
	const double **dst64[3] = { &aux->param64, &aux->state64[0], &aux->state64[1] };

	for (int k = 0; k < 3; k++) {
		*dst[k] = NULL;
		*dst64[k] = NULL;
		if (!c->src[k])
			continue;
		GT_TRY(read_one(c, k, first, n, d));
		*dst[k] = c->buf[k];
		if (c->f64)
			*dst64[k] = c->buf64[k];
	}
	return 0;
}

int gt_optctx_coding(struct gt_optctx *c, const struct gt_optflags *f,
		     struct gt_source *input, const char *input_name, size_t i,
		     const struct gt_spec *spec, const struct gt_notify *nt,
		     struct gt_coding *out, struct gt_diag *d)
{
	const struct gt_tensor_info *t = gt_source_info(input, i);

	out->codec = spec->codec;
	out->opts = spec->opts;
	out->optim = NULL;
	if (spec->lossless)
		return 0;
	if (!gt_optctx_is_grad(c, i) || !gt_spec_codes(spec, t->dtype)) {
		if (gt_optctx_is_grad(c, i))
			gt_notify_send(nt, GT_NOTE_WARN,
				       "%s: %s: codec %s does not code %s; kept losslessly with huffexp",
				       input_name, t->name, gt_codec_name(spec->codec),
				       gt_dtype_name(t->dtype));
		out->codec = gt_codec_find("huffexp");
		out->opts = "";
		return 0;
	}
	if (!(spec->flags & GT_CODEC_NEEDS_OPTIM) || !spec->needs_optim)
		return 0;
	GT_TRY(gt_optctx_resolve(c, f, input, input_name, i, d));
	out->optim = &c->optim;
	return 0;
}
