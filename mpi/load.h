/* load.h - one rank's gradient and its optimizer context, from a trace or array */
#ifndef GT_MPI_LOAD_H
#define GT_MPI_LOAD_H

#include <stddef.h>

#include "../lib/gt_optim.h"

/*
 * What a rank reduces: the gradients of one trace step (or every float
 * tensor of a file that is not a trace) as one flat f32 vector, in the
 * file's tensor order, like a DDP bucket holding the whole model; and,
 * from a trace, the parameter and optimizer state of the same values.
 */
struct rank_grad {
	size_t n;
	float *g;
	float *param;      /* NULL: no optimizer context (not a trace) */
	float *state[2];   /* NULL: absent (before the first step) or unused */
	struct gt_optim optim;
	long step;         /* the trace step's number; -1: not a trace */
	size_t ntensors;
	int wrapped;       /* the step index wrapped around the trace's steps */
};

/*
 * rank_grad_load - read @path: from a trace, the step @skip recorded
 * steps after step number @step (0: the first step), wrapping around
 * the trace's steps; else every float tensor.  Prints its errors (the
 * caller set the message prefix); returns 0 or -1.
 */
int rank_grad_load(struct rank_grad *rg, const char *path, long step, size_t skip);

/* Repeat the vector and its context @k times (k >= 1). */
void rank_grad_tile(struct rank_grad *rg, size_t k);

void rank_grad_release(struct rank_grad *rg);

#endif
