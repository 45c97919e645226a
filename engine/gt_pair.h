/* gt_pair.h - an original A against a reconstruction B, tensor by tensor:
 * the error metrics and the update fidelity (gtool error, gtool compare) */
#ifndef GT_PAIR_H
#define GT_PAIR_H

#include <stddef.h>

#include "gt_notify.h"
#include "../analysis/gt_fidelity.h"
#include "../analysis/gt_metric.h"
#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"

struct gt_pair {
	struct gt_source *a, *b;
	const char *a_name, *b_name; /* for messages */
	const unsigned char *sel;    /* tensors of A to compare */
	int missing_ok;              /* skip tensors B lacks */
	int verbose;                 /* say so (GT_NOTE_INFO to @nt) */
	const struct gt_notify *nt;
};

/*
 * gt_pair_match - B's tensor for tensor @i of A: the same name, or the
 * only tensor when both files hold one and either is a raw or .npy array
 * (whose names are file names).  Returns 1 and *@j, 0 when skipped
 * (missing_ok), or a negative error with @d (B lacks it, not floating
 * point, another length).
 */
int gt_pair_match(const struct gt_pair *p, size_t i, size_t *j, struct gt_diag *d);

/*
 * gt_pair_metrics - the error metrics of every selected tensor of A
 * against B, streamed side by side: @row (may be NULL) gets each tensor's,
 * @total the sum.  Returns 0 or a negative error with @d.
 */
int gt_pair_metrics(const struct gt_pair *p,
		    void (*row)(void *arg, const char *name, const struct gt_metric *m),
		    void *arg, struct gt_metric *total, struct gt_diag *d);

/* One gradient's update fidelity, for the row callback of gt_pair_update. */
struct gt_pair_urow {
	const char *name;
	const struct gt_trace_step *step;
	const char *optim;
	const struct gt_fidelity *f;
};

/*
 * gt_pair_update - update fidelity: A is a trace; each selected gradient's
 * step is applied in float32 with g from A and with g from B
 * (analysis/fidelity.c).  @row (may be NULL) is called once with @r NULL
 * before the first gradient (@with_next: whether any selected gradient has
 * a param_next, so a header can be laid out), then once per gradient.
 * @optim_ret: the optimizer of every step, or "" when they differ.
 * Returns 0 or a negative error with @d.
 */
int gt_pair_update(const struct gt_pair *p,
		   void (*row)(void *arg, const struct gt_pair_urow *r, int with_next),
		   void *arg, struct gt_fidelity *total, const char **optim_ret,
		   struct gt_diag *d);

#endif
