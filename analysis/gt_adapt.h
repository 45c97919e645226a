/* gt_adapt.h - GraVAC's adaptive compression (Algorithm 1), replayed offline */
#ifndef GT_ADAPT_H
#define GT_ADAPT_H

#include <stddef.h>

#include "gt_gain.h"

enum gt_adapt_policy {
	GT_ADAPT_EXPONENTIAL, /* theta_s <- theta_s^2: 10x, 20x, 40x, 160x, ... (§IV-B1) */
	GT_ADAPT_GEOMETRIC,   /* theta_s <- 2 theta_s: 10x, 20x, 40x, 80x, ... (§IV-B2) */
};

struct gt_adapt_params {
	double theta_min, theta_max; /* the CF range explored */
	double theta_s;              /* first step size (2: the first candidate is 2 theta_min) */
	double epsilon;              /* least gain a CF must keep to be sent */
	double omega;                /* saturation threshold, a fraction (0.01 = 1 %) */
	double alpha;                /* EWMA smoothing of the gains */
	unsigned window;             /* steps between CheckGraVAC calls */
	enum gt_adapt_policy policy;
	/* the iteration-time model */
	double compute_s;            /* t_o: forward and backward pass */
	double latency_s;            /* alpha of the alpha-beta model */
	double bandwidth;            /* bits per second */
	unsigned workers;            /* N */
	unsigned batch;              /* per-worker batch b, for T_sys = N b / t_iter */
};

enum gt_adapt_choice { GT_ADAPT_CANDIDATE, GT_ADAPT_MIN, GT_ADAPT_DENSE };

#define GT_ADAPT_MAX_CF 64

struct gt_adapt {
	struct gt_adapt_params p;
	double theta_min, theta_s;
	struct gt_ewma ew_min, ew_c;
	double gain_min, gain_c;     /* smoothed, after the last step */
	unsigned long step;          /* steps replayed */
	/* T_compress of Algorithm 1: the last compression throughput per CF */
	double cf[GT_ADAPT_MAX_CF], tput[GT_ADAPT_MAX_CF];
	size_t ncf;
};

/* What one step measured, over every tensor of the model. */
struct gt_adapt_in {
	struct gt_gain_sums min, cand; /* g_min and g_c against g_o (+ residual) */
	double t_min, t_c;             /* seconds to compress to theta_min, then theta_c */
	double bytes_min, bytes_c, bytes_dense;
};

struct gt_adapt_out {
	enum gt_adapt_choice choice;
	double theta_min, candidate, cf; /* cf: what was sent (1: dense) */
	double gain_min, gain_c;         /* smoothed */
	double bytes, t_compress, t_sync, t_iter, t_sys, t_compression;
};

void gt_adapt_init(struct gt_adapt *a, const struct gt_adapt_params *p);
/* The candidate CF of the next step: theta_s theta_min, at most theta_max. */
double gt_adapt_candidate(const struct gt_adapt *a);
/* Lines 7-27 of Algorithm 1 for one step: the choice, its time, CheckGraVAC. */
void gt_adapt_step(struct gt_adapt *a, const struct gt_adapt_in *in,
		   struct gt_adapt_out *out);

/*
 * gt_ring_time - the alpha-beta time of a ring allreduce of @bytes over
 * @n workers: 2 (n - 1) alpha + 2 (bytes 8 / bandwidth) (n - 1) / n.
 */
double gt_ring_time(unsigned n, double bytes, double latency_s, double bandwidth);

#endif
