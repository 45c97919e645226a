/* fidelity.c - update fidelity: one optimizer step with g and with ĝ */
#include <math.h>
#include <string.h>

#include "gt_fidelity.h"
#include "../lib/banned.h"

void gt_fidelity_init(struct gt_fidelity *f)
{
	memset(f, 0, sizeof(*f));
}

void gt_fidelity_add(struct gt_fidelity *f, const struct gt_fidelity *x)
{
	f->values += x->values;
	f->identical += x->identical;
	f->max_ulp = x->max_ulp > f->max_ulp ? x->max_ulp : f->max_ulp;
	f->max_rel = x->max_rel > f->max_rel ? x->max_rel : f->max_rel;
	f->py_values += x->py_values;
	f->py_identical += x->py_identical;
}

int gt_fidelity_block_dt(struct gt_fidelity *f, const struct gt_optim *o, enum gt_dtype dt,
			 uint64_t first, uint64_t total, size_t n,
			 const struct gt_fidelity_io *io)
{
	const size_t vec_end = gt_optim_vec_end(dt, first, total, n);
	struct gt_fidelity x;
	int rc;

	gt_fidelity_init(&x);
	x.values = n;
	rc = gt_optim_step_dt(o, dt, n, vec_end, io->g, io->param, io->s0, io->s1,
			      io->out_g, NULL, NULL);
	if (rc >= 0)
		rc = gt_optim_step_dt(o, dt, n, vec_end, io->ghat, io->param, io->s0,
				      io->s1, io->out_ghat, NULL, NULL);
	if (rc < 0)
		return rc;
	gt_optim_compare_dt(dt, n, io->out_g, io->out_ghat, &x.identical, &x.max_ulp,
			    &x.max_rel);
	if (io->next) {
		x.py_values = n;
		gt_optim_compare_dt(dt, n, io->next, io->out_g, &x.py_identical, NULL, NULL);
	}
	gt_fidelity_add(f, &x);
	return 0;
}

int gt_fidelity_block(struct gt_fidelity *f, const struct gt_optim *o, size_t n,
		      const struct gt_fidelity_io *io)
{
	return gt_fidelity_block_dt(f, o, GT_DT_F32, 0, n, n, io);
}

double gt_fidelity_pct(const struct gt_fidelity *f)
{
	return f->values ? 100.0 * (double)f->identical / (double)f->values : NAN;
}
