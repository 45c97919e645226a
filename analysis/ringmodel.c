/* ringmodel.c - ring allreduce time with and without a codec (GComp Fig. 10) */
#include <math.h>

#include "gt_ringmodel.h"
#include "../lib/gt_error.h"

static double max3(double a, double b, double c)
{
	const double m = a > b ? a : b;

	return m > c ? m : c;
}

int gt_ring_model(const struct gt_ring_params *p, const struct gt_codec_speed *c,
		  struct gt_ring_result *ret)
{
	double part, k, cs, xs, ds, steps;

	if (p->workers < 2 || !(p->bytes > 0) || !(p->link_Bps > 0) ||
	    !(p->latency >= 0) || !(p->chunk_bytes > 0) || !(c->ratio > 0) ||
	    !(c->comp_Bps > 0) || !(c->decomp_Bps > 0) || !isfinite(p->bytes))
		return GT_ERR(INVAL);
	steps = 2.0 * (p->workers - 1);
	part = p->bytes / p->workers;
	k = ceil(part / p->chunk_bytes);
	if (k < 1)
		k = 1;
	cs = part / (k * c->comp_Bps);
	xs = p->latency + c->ratio * part / (k * p->link_Bps);
	ds = part / (k * c->decomp_Bps);
	ret->partition_bytes = part;
	ret->chunks = k;
	ret->t_none = steps * (p->latency + part / p->link_Bps);
	ret->t_codec = steps * (cs + xs + ds + (k - 1) * max3(cs, xs, ds));
	ret->normalized = ret->t_codec / ret->t_none;
	return 0;
}
