/* adapt.c - GraVAC's adaptive compression (Algorithm 1), replayed offline */
#include <math.h>
#include <string.h>

#include "gt_adapt.h"
#include "../lib/banned.h"

void gt_adapt_init(struct gt_adapt *a, const struct gt_adapt_params *p)
{
	memset(a, 0, sizeof(*a));
	a->p = *p;
	a->theta_min = p->theta_min;
	a->theta_s = p->theta_s;
	gt_ewma_init(&a->ew_min, p->alpha);
	gt_ewma_init(&a->ew_c, p->alpha);
}

double gt_adapt_candidate(const struct gt_adapt *a)
{
	const double c = a->theta_s * a->theta_min;

	return c < a->p.theta_max ? c : a->p.theta_max;
}

double gt_ring_time(unsigned n, double bytes, double latency_s, double bandwidth)
{
	if (n < 2)
		return 0;
	return 2.0 * (n - 1) * latency_s + 2.0 * (bytes * 8 / bandwidth) * (n - 1) / n;
}

/* UpdateStep (lines 28-30): T_sys, and T_compress[theta] = T_sys delta. */
static void update_step(struct gt_adapt *a, double theta, double delta,
			struct gt_adapt_out *o)
{
	size_t k;

	o->t_sys = (double)a->p.workers * a->p.batch / o->t_iter;
	o->t_compression = o->t_sys * delta;
	for (k = 0; k < a->ncf; k++)
		if (fabs(a->cf[k] - theta) <= 1e-9 * theta)
			break;
	if (k == a->ncf) {
		if (k == GT_ADAPT_MAX_CF)
			return;
		a->ncf++;
	}
	a->cf[k] = theta;
	a->tput[k] = o->t_compression;
}

static double scale(const struct gt_adapt *a, double theta_s)
{
	const double up = a->p.policy == GT_ADAPT_EXPONENTIAL ? theta_s * theta_s : 2 * theta_s;
	const double most = a->p.theta_max / a->theta_min;

	return up < most ? up : most > 1 ? most : 1;
}

/*
 * CheckGraVAC (lines 31-41), every window steps.  Line 35 raises theta_min
 * to the CF just evaluated, theta_s theta_min before the scale-up, as the
 * text says ("we escalate the minimum CF to currently evaluated CF").
 */
static void check(struct gt_adapt *a)
{
	const double evaluated = gt_adapt_candidate(a);
	size_t top = 0, second = 0, have = 0;

	if (!a->p.window || a->step % a->p.window)
		return;
	a->theta_s = scale(a, a->theta_s);
	if (a->gain_min > 0 && a->p.omega >= fabs(a->gain_min - a->gain_c) / a->gain_min)
		a->theta_min = evaluated;
	/* ct[-1] and ct[-2] of the sorted throughputs, by index */
	for (size_t k = 0; k < a->ncf; k++) {
		if (!have++ || a->tput[k] > a->tput[top]) {
			second = top;
			top = k;
		} else if (have == 2 || a->tput[k] > a->tput[second]) {
			second = k;
		}
	}
	if (a->ncf >= 2 && a->tput[second] > 0 &&
	    fabs((a->tput[top] - a->tput[second]) / a->tput[second]) <= a->p.omega) {
		const double s = a->cf[second] / a->theta_min;

		a->theta_s = s > 1 ? s : 1;
	}
}

void gt_adapt_step(struct gt_adapt *a, const struct gt_adapt_in *in,
		   struct gt_adapt_out *o)
{
	const double cand = gt_adapt_candidate(a);
	const struct gt_adapt_params *p = &a->p;

	memset(o, 0, sizeof(*o));
	a->step++;
	a->gain_min = gt_ewma_add(&a->ew_min, gt_gain_sq(&in->min));
	a->gain_c = gt_ewma_add(&a->ew_c, gt_gain_sq(&in->cand));
	o->theta_min = a->theta_min;
	o->candidate = cand;
	o->gain_min = a->gain_min;
	o->gain_c = a->gain_c;
	o->t_compress = in->t_min + in->t_c;
	if (a->gain_c >= p->epsilon) {
		o->choice = GT_ADAPT_CANDIDATE;
		o->cf = cand;
		o->bytes = in->bytes_c;
	} else if (a->gain_min >= p->epsilon) {
		o->choice = GT_ADAPT_MIN;
		o->cf = a->theta_min;
		o->bytes = in->bytes_min;
	} else {
		o->choice = GT_ADAPT_DENSE;
		o->cf = 1;
		o->bytes = in->bytes_dense;
		o->t_compress = 0;
	}
	o->t_sync = gt_ring_time(p->workers, o->bytes, p->latency_s, p->bandwidth);
	o->t_iter = p->compute_s + o->t_compress + o->t_sync;
	update_step(a, o->cf, o->choice == GT_ADAPT_CANDIDATE ? a->gain_c
			      : o->choice == GT_ADAPT_MIN ? a->gain_min : 1, o);
	check(a);
}
