/* gt_measure.h - codec throughput on a file held in memory (gtool bench,
 * and the measurements allreduce-model and breakeven take) */
#ifndef GT_MEASURE_H
#define GT_MEASURE_H

#include <stddef.h>

#include "gt_memload.h"
#include "gt_notify.h"
#include "gt_spec.h"
#include "../formats/gt_benchjson.h"
#include "../formats/gt_source.h"

struct gt_measure_opts {
	const char *input;
	struct gt_source_opts src;
	struct gt_speclist *specs;  /* checked with gt_spec_init by the caller;
				     * unusable ones are removed (gt_memload_usable) */
	int defaults;               /* the specs are the default list: an unusable
				     * one is a warning, not an error */
	const unsigned *threads;    /* thread counts to measure */
	size_t nthreads;
	unsigned repeat, warmup;
	const struct gt_notify *nt;
};

/*
 * gt_measure_run - read o->input into memory and, for every spec and
 * thread count, time --warmup then --repeat runs of compressing and of
 * decompressing every tensor as `gtool compress` codes it: two rows
 * (compress, decompress) each, the rows `gtool bench --format json`
 * writes.  *@rows_ret is malloc'd (caller frees), *@n_ret its length.
 * @return 0 or a negative error with @d ("FILE: SPEC: what").
 */
int gt_measure_run(const struct gt_measure_opts *o, struct gt_bench_row **rows_ret,
		   size_t *n_ret, struct gt_diag *d);

#endif
