/* gt_fidelity.h - update fidelity: one optimizer step with g and with ĝ */
#ifndef GT_FIDELITY_H
#define GT_FIDELITY_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/gt_error.h"
#include "../lib/gt_optim.h"

/*
 * The sums of GComp's update-fidelity claim over some values: apply one
 * optimizer step in the values' dtype (gt_optim_step_dt, as PyTorch does)
 * once with the original gradient g and once with the reconstruction ĝ,
 * from the same parameter and state, and compare the two new parameters
 * (ULPs of that dtype).  The caller
 * owns the struct; it holds no pointers.
 */
struct gt_fidelity {
	uint64_t values, identical; /* parameters stepped; bit-identical ones */
	uint64_t max_ulp;           /* GT_OPTIM_ULP_NAN when a NaN differs */
	double max_rel;             /* max |θ_g - θ_ĝ| / |θ_g| over θ_g != 0 */
	/* gtool's step with g against PyTorch's θ_t (param_next), where known */
	uint64_t py_values, py_identical;
};

/* Buffers of gt_fidelity_block, @n values each (the caller's): float, or
 * double for f64 (gt_optim_step_dt's arrays). */
struct gt_fidelity_io {
	const void *g, *ghat, *param; /* required */
	const void *s0, *s1;          /* state before the step; NULL: absent */
	const void *next;             /* PyTorch's θ_t; NULL: absent */
	void *out_g, *out_ghat;       /* scratch: the two new parameters */
};

void gt_fidelity_init(struct gt_fidelity *f);
/* Add @x into @f: counts add, maxima take the larger. */
void gt_fidelity_add(struct gt_fidelity *f, const struct gt_fidelity *x);

/*
 * gt_fidelity_block - step @n float32 values with g and with ĝ under @o and add
 * the comparison (and, with io->next, gtool's step against PyTorch's) to
 * @f.
 * @return 0, or gt_optim_step's error (then @f is unchanged).
 */
int gt_fidelity_block(struct gt_fidelity *f, const struct gt_optim *o, size_t n,
		      const struct gt_fidelity_io *io);

/*
 * gt_fidelity_block_dt - the same in dtype @dt, for the @n values that
 * start at value @first of a tensor of @total values (where PyTorch's
 * vectorized loop ends: gt_optim_vec_end()).
 * @return 0, or gt_optim_step_dt's error (then @f is unchanged).
 */
int gt_fidelity_block_dt(struct gt_fidelity *f, const struct gt_optim *o, enum gt_dtype dt,
			 uint64_t first, uint64_t total, size_t n,
			 const struct gt_fidelity_io *io);

/* identical / values in percent; NaN with no values. */
double gt_fidelity_pct(const struct gt_fidelity *f);

#endif
