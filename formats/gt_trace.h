/* gt_trace.h - the trace layout of TRACE.md: steps, grad/param/state, optimizer */
#ifndef GT_TRACE_H
#define GT_TRACE_H

#include "gt_source.h"
#include "../lib/gt_optim.h"

enum gt_role { GT_ROLE_GRAD, GT_ROLE_PARAM, GT_ROLE_STATE, GT_ROLE_PARAM_NEXT };

struct gt_trace_step {
	long step;           /* the step attribute, else the number in the name */
	char *group;         /* "/step_000100" */
	struct gt_optim optim;
	size_t *grads;       /* source indexes of the step's gradients */
	size_t n_grads;
	const struct gt_optim_hp *text_hp; /* a hyper-parameter held as a string, or NULL */
};

struct gt_trace;

/*
 * gt_trace_open - read the trace layout of @src (an HDF5 source).  A file
 * with no step groups is a valid trace with 0 steps.  Attributes on the
 * root are inherited by every step, which may override them.
 * @return 0, GT_ERR(NOMEM); missing attributes are not an error here.
 */
int gt_trace_open(const struct gt_source *src, struct gt_trace **tr_ret,
		  struct gt_diag *d);
void gt_trace_free(struct gt_trace *tr);

/*
 * gt_trace_check - gt_optim_check() of @o, the optimizer of step @st
 * (perhaps with command-line flags merged in), but when a hyper-parameter
 * that @o lacks is in the step as a string, says that instead of
 * "missing": "attribute lr of /step_000010 is a string, expected a number".
 * @return 0, or gt_optim_check()'s error (GT_ERR(TYPE) for a string).
 */
int gt_trace_check(const struct gt_trace_step *st, const struct gt_optim *o,
		   struct gt_diag *d);

size_t gt_trace_nsteps(const struct gt_trace *tr);
const struct gt_trace_step *gt_trace_step(const struct gt_trace *tr, size_t i);

/*
 * gt_trace_find - the source index of @role for parameter @name at step
 * @step_idx; @buffer names the state buffer ("exp_avg") for GT_ROLE_STATE.
 * @return 0, GT_ERR(NOTFOUND) with @d naming the missing dataset.
 */
int gt_trace_find(const struct gt_trace *tr, size_t step_idx, enum gt_role role,
		  const char *buffer, const char *name, size_t *idx_ret,
		  struct gt_diag *d);

/* Parameter name of a gradient dataset: "/step_000100/grad/fc.weight" -> "fc.weight". */
const char *gt_trace_param_name(const char *dataset);

/*
 * gt_trace_step_of - the step index owning source tensor @idx, or -1.
 */
long gt_trace_step_of(const struct gt_trace *tr, size_t idx);

#endif
