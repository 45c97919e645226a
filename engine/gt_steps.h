/* gt_steps.h - the gradients of a file, step by step, read whole as f32 */
#ifndef GT_STEPS_H
#define GT_STEPS_H

#include <stddef.h>

#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"
#include "../lib/gt_error.h"

/* A step's selected gradients (a file without steps is one step, "-"). */
struct gt_step {
	char label[32]; /* the step attribute, or "-" */
	size_t *t;      /* source indexes */
	size_t nt;
};

struct gt_steps {
	const char *path;
	struct gt_source *src;
	struct gt_trace *tr; /* NULL when the file has no steps */
	struct gt_step *step;
	size_t n;
	size_t most;         /* values of the largest selected tensor */
};

/*
 * gt_steps_open - open @path and list, step by step, the gradients the -d
 * @patterns select (every float tensor of a file without steps).  Tensors
 * are read whole: a pipe is refused.  @return 0 or a negative error with
 * @d; close @s with gt_steps_close either way.
 */
int gt_steps_open(struct gt_steps *s, const char *path, const struct gt_source_opts *o,
		  char *const *patterns, size_t npatterns, struct gt_diag *d);
void gt_steps_close(struct gt_steps *s);

/* The parameter name of tensor @i (its dataset name without a trace). */
const char *gt_steps_name(const struct gt_steps *s, size_t i);

#endif
