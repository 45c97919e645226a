/* breakeven.c - the break-even model (Eq. 1-4) of Wang et al., FFT-based Gradient Sparsification (HPDC '20), for measured codecs */
#include <math.h>

#include "gt_breakeven.h"

double gt_breakeven_kmin(double link_Bps, double comp_Bps, double decomp_Bps)
{
	double cost;

	if (!(link_Bps > 0 && comp_Bps > 0 && decomp_Bps > 0))
		return INFINITY;
	/* compression and decompression time per byte, in link time */
	cost = link_Bps * (1 / comp_Bps + 1 / decomp_Bps);
	if (cost >= 1)
		return INFINITY;
	return 1 / (1 - cost);
}

double gt_breakeven_speedup(const struct gt_codec_speed *c, double link_Bps)
{
	if (!(link_Bps > 0 && c->ratio > 0 && c->comp_Bps > 0 && c->decomp_Bps > 0))
		return NAN;
	return (1 / link_Bps) /
	       (1 / c->comp_Bps + c->ratio / link_Bps + 1 / c->decomp_Bps);
}
