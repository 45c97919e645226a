/* gt_trace.h - the trace layout of TRACE.md: steps, grad/param/state, optimizer */
#ifndef GT_TRACE_H
#define GT_TRACE_H

#include "gt_source.h"

/* Stable ids: written into .gtz codec parameters. */
enum gt_optim_kind {
	GT_OPT_NONE = 0,
	GT_OPT_SGD,       /* momentum == 0 */
	GT_OPT_MOMENTUM,  /* SGD with momentum */
	GT_OPT_NESTEROV,
	GT_OPT_ADAGRAD,
	GT_OPT_RMSPROP,
	GT_OPT_ADAM,
	GT_OPT_ADAMW,
};

/* Which hyper-parameters were given (bits of gt_optim.have). */
enum {
	GT_HP_LR = 1 << 0, GT_HP_MOMENTUM = 1 << 1, GT_HP_DAMPENING = 1 << 2,
	GT_HP_WEIGHT_DECAY = 1 << 3, GT_HP_BETA1 = 1 << 4, GT_HP_BETA2 = 1 << 5,
	GT_HP_EPS = 1 << 6, GT_HP_ALPHA = 1 << 7, GT_HP_LR_DECAY = 1 << 8,
};

struct gt_optim {
	enum gt_optim_kind kind;
	unsigned have; /* GT_HP_* */
	double lr, momentum, dampening, weight_decay;
	double beta1, beta2, eps, alpha, lr_decay;
};

/* "sgd", "momentum", ...; case-insensitive parse, GT_OPT_NONE if unknown. */
const char *gt_optim_name(enum gt_optim_kind k);
enum gt_optim_kind gt_optim_parse(const char *s);

enum gt_role { GT_ROLE_GRAD, GT_ROLE_PARAM, GT_ROLE_STATE, GT_ROLE_PARAM_NEXT };

struct gt_trace_step {
	long step;           /* the step attribute, else the number in the name */
	char *group;         /* "/step_000100" */
	struct gt_optim optim;
	size_t *grads;       /* source indexes of the step's gradients */
	size_t n_grads;
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

/*
 * gt_optim_check - which hyper-parameters @o lacks for its optimizer's
 * update rule; returns 0 when complete, else GT_ERR(NOTFOUND) with @d
 * naming the first missing attribute ("step /step_000100: attribute lr missing").
 */
int gt_optim_check(const struct gt_optim *o, const char *where, struct gt_diag *d);

#endif
