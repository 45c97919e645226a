/* gt_memload.h - a file's tensors held in memory, with the coding `gtool
 * compress` would give each of them (for bench, compare, breakeven) */
#ifndef GT_MEMLOAD_H
#define GT_MEMLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "gt_notify.h"
#include "gt_optctx.h"
#include "gt_spec.h"
#include "../analysis/gt_bench.h"
#include "../formats/gt_source.h"

struct gt_memload {
	const char *path;
	struct gt_source *src;
	struct gt_optflags of;      /* none: a trace carries its own context */
	struct gt_optctx ctx;
	size_t n;                   /* float tensors held */
	size_t *idx;                /* their source indexes */
	void **data;                /* their values */
	float *(*aux)[3];           /* param, state 0, state 1 once loaded, or NULL */
	double *(*aux64)[3];        /* the same unrounded, for f64 ones */
	struct gt_optim *optim;     /* the resolved optimizer, once loaded */
	unsigned char *aux_done;
	uint64_t bytes, values;     /* of all tensors held */
	struct gt_bench_input *in;  /* the last gt_memload_inputs */
	const struct gt_notify *nt; /* warnings of the coding plan (may be NULL) */
};

/*
 * gt_memload_open - read every float tensor of @path (with @grads_only,
 * only a trace's gradients) into memory.  @return 0 or a negative error
 * with @d; close @m with gt_memload_close either way.
 */
int gt_memload_open(struct gt_memload *m, const char *path,
		    const struct gt_source_opts *so, int grads_only, struct gt_diag *d);
void gt_memload_close(struct gt_memload *m);

/*
 * gt_memload_inputs - the m->n inputs of gt_bench_run for @spec, each
 * tensor coded as gt_optctx_coding says (the same decision as `gtool
 * compress`), gradients with their optimizer context when the spec uses
 * it (read once, then kept).  *@in_ret points into @m, valid until the
 * next call.  @return 0 or a negative error with @d.
 */
int gt_memload_inputs(struct gt_memload *m, const struct gt_spec *spec,
		      const struct gt_bench_input **in_ret, struct gt_diag *d);

/* 1 when @m is a trace with steps (so gcomp's default mode can run). */
int gt_memload_is_trace(const struct gt_memload *m);

/*
 * gt_memload_usable - leave out of @l the specs that need the optimizer
 * context (gcomp's default mode) when @m is not a trace: with @defaults a
 * warning to @nt says so, otherwise it is GT_ERR(INVAL) with @d (the
 * other unusable specs are still removed).  A bad spec in @l is its
 * gt_spec_init error.
 */
int gt_memload_usable(struct gt_speclist *l, const struct gt_memload *m, int defaults,
		      const struct gt_notify *nt, struct gt_diag *d);

#endif
