/* api_trace.c - libgtool's traces: tensors, steps and optimizer context (gt_source, gt_trace) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"
#include "../lib/banned.h"

struct gtool_trace {
	struct gt_source *src;
	struct gt_trace *tr;
	char msg[256];
};

GTOOL_API int gtool_trace_open(const char *path, struct gtool_trace **tr_ret,
			       struct gtool_errbuf *err)
{
	const struct gt_source_opts o = { GT_KIND_AUTO, GT_DT_NONE, 0 };
	struct gtool_trace *t;
	struct gt_diag d = { "" };
	int rc;

	api_err_clear(err);
	if (!tr_ret)
		return api_errf(err, GT_ERR(INVAL), "no place for the trace");
	*tr_ret = NULL;
	if (!path || !*path || !strcmp(path, "-"))
		return api_errf(err, GT_ERR(INVAL), "bad path");
	t = calloc(1, sizeof(*t));
	if (!t)
		return api_errf(err, GT_ERR(NOMEM), "out of memory");
	rc = gt_source_open(path, &o, &t->src, &d);
	if (rc >= 0 && gt_source_kind(t->src) != GT_KIND_HDF5 &&
	    gt_source_kind(t->src) != GT_KIND_GTZ)
		rc = gt_diag_set(&d, GT_ERR(CORRUPT), "%s: not an HDF5 or .gtz file", path);
	if (rc >= 0)
		rc = gt_trace_open(t->src, &t->tr, &d);
	if (rc < 0) {
		gtool_trace_free(t);
		return api_err(err, rc, &d);
	}
	*tr_ret = t;
	return 0;
}

GTOOL_API void gtool_trace_free(struct gtool_trace *tr)
{
	if (!tr)
		return;
	gt_trace_free(tr->tr);
	gt_source_free(tr->src);
	free(tr);
}

GTOOL_API const char *gtool_trace_errmsg(const struct gtool_trace *tr)
{
	return tr ? tr->msg : "no trace";
}

static int t_failf(const struct gtool_trace *tr, int rc, const char *what)
{
	/* the message is the context's, not part of its value: const calls set it too */
	snprintf((char *)(uintptr_t)tr->msg, sizeof(tr->msg), "%s", what);
	return rc;
}

GTOOL_API size_t gtool_trace_ntensors(const struct gtool_trace *tr)
{
	return tr ? gt_source_count(tr->src) : 0;
}

GTOOL_API const char *gtool_trace_tensor_name(const struct gtool_trace *tr, size_t i)
{
	if (!tr || i >= gt_source_count(tr->src))
		return NULL;
	return gt_source_info(tr->src, i)->name;
}

GTOOL_API int gtool_trace_tensor_info(const struct gtool_trace *tr, size_t i,
				      struct gtool_info *info)
{
	const struct gt_tensor_info *t;

	if (!tr)
		return GT_ERR(INVAL);
	if (!info || i >= gt_source_count(tr->src))
		return t_failf(tr, GT_ERR(INVAL), "no such tensor");
	t = gt_source_info(tr->src, i);
	memset(info, 0, sizeof(*info));
	info->dtype = (int)t->dtype;
	info->rank = t->rank;
	for (unsigned k = 0; k < t->rank && k < GTOOL_MAX_RANK; k++)
		info->dims[k] = t->dims[k];
	info->count = t->count;
	if (t->dtype == GT_DT_NONE)
		return t_failf(tr, GT_ERR(TYPE), "not a float dataset");
	return 0;
}

GTOOL_API int gtool_trace_find(const struct gtool_trace *tr, const char *name, size_t *idx_ret)
{
	if (!tr)
		return GT_ERR(INVAL);
	if (!name || !idx_ret)
		return t_failf(tr, GT_ERR(INVAL), "NULL name");
	if (gt_source_find(tr->src, name, idx_ret) < 0)
		return t_failf(tr, GT_ERR(NOTFOUND), "no such tensor");
	return 0;
}

GTOOL_API int gtool_trace_read(struct gtool_trace *tr, size_t i, uint64_t first, void *dst,
			       size_t dst_cap, size_t *len_ret)
{
	struct gt_diag d = { "" };
	const struct gt_tensor_info *t;
	size_t size, n;
	int rc;

	if (!tr)
		return GT_ERR(INVAL);
	if (!len_ret || (!dst && dst_cap) || i >= gt_source_count(tr->src))
		return t_failf(tr, GT_ERR(INVAL), "bad tensor or buffer");
	*len_ret = 0;
	t = gt_source_info(tr->src, i);
	size = gt_dtype_size(t->dtype);
	if (!size)
		return t_failf(tr, GT_ERR(TYPE), "not a float dataset");
	if (dst_cap % size)
		return t_failf(tr, GT_ERR(INVAL), "buffer length not a multiple of the dtype size");
	if (first >= t->count)
		return 0;
	rc = gt_source_read(tr->src, i, first, dst_cap / size, dst, &n, &d);
	if (rc < 0)
		return api_msg(tr->msg, rc, &d);
	*len_ret = n * size;
	return 0;
}

GTOOL_API size_t gtool_trace_nsteps(const struct gtool_trace *tr)
{
	return tr ? gt_trace_nsteps(tr->tr) : 0;
}

GTOOL_API int gtool_trace_step(const struct gtool_trace *tr, size_t s, struct gtool_step *st)
{
	const struct gt_trace_step *ts;

	if (!tr)
		return GT_ERR(INVAL);
	if (!st || s >= gt_trace_nsteps(tr->tr))
		return t_failf(tr, GT_ERR(INVAL), "no such step");
	ts = gt_trace_step(tr->tr, s);
	st->step = ts->step;
	st->group = ts->group;
	st->optimizer = ts->optim.kind == GT_OPT_NONE ? NULL : gt_optim_name(ts->optim.kind);
	st->ngrads = ts->n_grads;
	return 0;
}

GTOOL_API int gtool_trace_step_hparam(const struct gtool_trace *tr, size_t s,
				      const char *name, double *v_ret)
{
	const struct gt_optim *o;

	if (!tr)
		return GT_ERR(INVAL);
	if (!name || !v_ret || s >= gt_trace_nsteps(tr->tr))
		return t_failf(tr, GT_ERR(INVAL), "bad step or name");
	o = &gt_trace_step(tr->tr, s)->optim;
	if (!strcmp(name, "step")) {
		*v_ret = (double)o->t;
		return o->t > 0 ? 0 : t_failf(tr, GT_ERR(NOTFOUND), "no step number");
	}
	for (int i = 0; i < GT_OPTIM_NHP; i++)
		if (!strcmp(name, gt_optim_hps[i].name)) {
			if (!(o->have & gt_optim_hps[i].bit))
				return t_failf(tr, GT_ERR(NOTFOUND), "the trace does not set it");
			*v_ret = gt_optim_hp_get(o, &gt_optim_hps[i]);
			return 0;
		}
	return t_failf(tr, GT_ERR(NOTFOUND), "unknown hyper-parameter");
}

/* The index of @role for @name at step @s, or GTOOL_NONE. */
static size_t lookup(const struct gtool_trace *tr, size_t s, enum gt_role role,
		     const char *buffer, const char *name)
{
	size_t idx;

	return gt_trace_find(tr->tr, s, role, buffer, name, &idx, NULL) < 0 ? GTOOL_NONE : idx;
}

GTOOL_API int gtool_trace_grad(const struct gtool_trace *tr, size_t s, size_t j,
			       struct gtool_grad *g)
{
	const struct gt_trace_step *ts;
	const char *name;

	if (!tr)
		return GT_ERR(INVAL);
	if (!g || s >= gt_trace_nsteps(tr->tr) || j >= gt_trace_step(tr->tr, s)->n_grads)
		return t_failf(tr, GT_ERR(INVAL), "no such step or gradient");
	ts = gt_trace_step(tr->tr, s);
	memset(g, 0, sizeof(*g));
	g->grad = ts->grads[j];
	name = gt_trace_param_name(gt_source_info(tr->src, g->grad)->name);
	g->param_name = name;
	g->param = lookup(tr, s, GT_ROLE_PARAM, NULL, name);
	g->param_next = lookup(tr, s, GT_ROLE_PARAM_NEXT, NULL, name);
	g->nstates = (unsigned)gt_optim_nstates(ts->optim.kind);
	for (unsigned k = 0; k < 2; k++) {
		g->state_name[k] = gt_optim_state_name(ts->optim.kind, (int)k);
		g->state[k] = g->state_name[k] ?
			lookup(tr, s, GT_ROLE_STATE, g->state_name[k], name) : GTOOL_NONE;
	}
	return 0;
}

GTOOL_API int gtool_trace_optctx(const struct gtool_trace *tr, size_t s,
				 struct gtool_optctx **ctx_ret)
{
	struct gtool_optctx *c;

	if (!tr)
		return GT_ERR(INVAL);
	if (!ctx_ret || s >= gt_trace_nsteps(tr->tr))
		return t_failf(tr, GT_ERR(INVAL), "no such step");
	*ctx_ret = NULL;
	if (gt_trace_step(tr->tr, s)->optim.kind == GT_OPT_NONE)
		return t_failf(tr, GT_ERR(NOTFOUND), "the step names no optimizer");
	c = calloc(1, sizeof(*c));
	if (!c)
		return t_failf(tr, GT_ERR(NOMEM), "out of memory");
	c->o = gt_trace_step(tr->tr, s)->optim;
	*ctx_ret = c;
	return 0;
}
