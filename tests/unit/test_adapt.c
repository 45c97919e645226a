/* test_adapt.c - GraVAC's Algorithm 1: choices, scaling, the time model */
#include <math.h>

#include "check.h"
#include "../../analysis/gt_adapt.h"

static struct gt_adapt_params params(void)
{
	struct gt_adapt_params p = {
		.theta_min = 10, .theta_max = 1000, .theta_s = 2, .epsilon = 0.7,
		.omega = 0.01, .alpha = 1, .window = 1, .policy = GT_ADAPT_EXPONENTIAL,
		.compute_s = 0.25, .latency_s = 1e-5, .bandwidth = 10e9,
		.workers = 4, .batch = 32,
	};
	return p;
}

/* A step whose gains are @gmin and @gc (sums chosen to give them). */
static struct gt_adapt_in input(double gmin, double gc)
{
	struct gt_adapt_in in = { 0 };

	in.min.ef2 = in.cand.ef2 = 1;
	in.min.hat2 = gmin;
	in.cand.hat2 = gc;
	in.t_min = 0.001;
	in.t_c = 0.0005;
	in.bytes_dense = 4e6;
	in.bytes_min = 8e5;
	in.bytes_c = 4e5;
	return in;
}

static void test_ring_time(void)
{
	/* 2 (n-1) alpha + 2 (bytes 8 / B) (n-1) / n, by hand for n = 4 */
	const double t = gt_ring_time(4, 1e6, 1e-5, 1e9);

	CHECK(fabs(t - (6e-5 + 2 * 8e-3 * 3 / 4)) < 1e-12);
	CHECK(!(gt_ring_time(1, 1e6, 1e-5, 1e9) > 0)); /* one worker sends nothing */
}

/* Lines 11-25: candidate, then theta_min, then dense. */
static void test_choice(void)
{
	const struct gt_adapt_params p0 = params();
	struct gt_adapt_params p = p0;
	struct gt_adapt a;
	struct gt_adapt_out o;
	struct gt_adapt_in in;

	p.window = 0; /* no evaluation: theta_s stays */
	gt_adapt_init(&a, &p);
	CHECK(fabs(gt_adapt_candidate(&a) - 20) < 1e-12);
	in = input(0.9, 0.8);
	gt_adapt_step(&a, &in, &o);
	CHECK(o.choice == GT_ADAPT_CANDIDATE && fabs(o.cf - 20) < 1e-12);
	CHECK(fabs(o.bytes - 4e5) < 1e-6 && fabs(o.t_compress - 0.0015) < 1e-12);
	CHECK(fabs(o.t_iter - (0.25 + 0.0015 + gt_ring_time(4, 4e5, 1e-5, 10e9))) < 1e-12);
	CHECK(fabs(o.t_sys - 4 * 32 / o.t_iter) < 1e-9);
	CHECK(fabs(o.t_compression - o.t_sys * 0.8) < 1e-9);

	in = input(0.9, 0.5);
	gt_adapt_step(&a, &in, &o);
	CHECK(o.choice == GT_ADAPT_MIN && fabs(o.cf - 10) < 1e-12 && fabs(o.bytes - 8e5) < 1e-6);

	in = input(0.6, 0.5);
	gt_adapt_step(&a, &in, &o);
	CHECK(o.choice == GT_ADAPT_DENSE && fabs(o.cf - 1) < 1e-12);
	CHECK(fabs(o.t_compress) < 1e-15 && fabs(o.bytes - 4e6) < 1e-6);
}

/* The gains are smoothed: with alpha 0.5 the second is the adjusted mean. */
static void test_smoothing(void)
{
	struct gt_adapt_params p = params();
	struct gt_adapt a;
	struct gt_adapt_out o;
	struct gt_adapt_in in;

	p.alpha = 0.5;
	p.window = 0;
	gt_adapt_init(&a, &p);
	in = input(1, 1);
	gt_adapt_step(&a, &in, &o);
	in = input(0.4, 0.1);
	gt_adapt_step(&a, &in, &o);
	CHECK(fabs(o.gain_min - (0.4 + 0.5 * 1) / 1.5) < 1e-12);
	CHECK(fabs(o.gain_c - (0.1 + 0.5 * 1) / 1.5) < 1e-12);
}

/*
 * Exponential scaling evaluates 10x, 20x, 40x, 160x and 1000x (§IV-B1)
 * when the gains differ (theta_min stays) and throughputs never saturate;
 * geometric doubles.
 */
static void test_scaling(void)
{
	const double want_exp[] = { 20, 40, 160, 1000, 1000 };
	const double want_geo[] = { 20, 40, 80, 160, 320 };
	struct gt_adapt_params p = params();
	struct gt_adapt a;
	struct gt_adapt_out o;

	p.omega = 0; /* no saturation, no theta_min escalation */
	for (int pol = 0; pol < 2; pol++) {
		p.policy = pol ? GT_ADAPT_GEOMETRIC : GT_ADAPT_EXPONENTIAL;
		gt_adapt_init(&a, &p);
		for (int s = 0; s < 5; s++) {
			/* throughputs differ: the candidate's gain falls each step */
			struct gt_adapt_in in = input(0.95, 0.9 - 0.01 * s);

			gt_adapt_step(&a, &in, &o);
			CHECK(fabs(o.candidate - (pol ? want_geo : want_exp)[s]) < 1e-9);
			CHECK(fabs(o.theta_min - 10) < 1e-12);
		}
	}
}

/* Line 34-35: gains within omega raise theta_min to the CF evaluated. */
static void test_escalate(void)
{
	struct gt_adapt_params p = params();
	struct gt_adapt a;
	struct gt_adapt_out o;
	struct gt_adapt_in in = input(0.9, 0.899);

	p.omega = 0.01;
	gt_adapt_init(&a, &p);
	gt_adapt_step(&a, &in, &o);
	CHECK(fabs(a.theta_min - 20) < 1e-12);
	/* theta_s was squared to 4 first: the next candidate is 80 */
	CHECK(fabs(gt_adapt_candidate(&a) - 80) < 1e-12);
}

/* Lines 36-39: two throughputs within omega pick the lower one's CF. */
static void test_saturation(void)
{
	struct gt_adapt_params p = params();
	struct gt_adapt a;
	struct gt_adapt_out o;
	struct gt_adapt_in in;

	p.window = 2;
	p.omega = 0.5; /* loose: every pair of throughputs is "saturated" */
	gt_adapt_init(&a, &p);
	in = input(0.95, 0.3); /* min chosen: T_compress[10] */
	gt_adapt_step(&a, &in, &o);
	CHECK(o.choice == GT_ADAPT_MIN);
	in = input(0.95, 0.94); /* candidate 20: T_compress[20], the larger */
	gt_adapt_step(&a, &in, &o);
	CHECK(o.choice == GT_ADAPT_CANDIDATE);
	/* window: theta_min escalates (gains within 50 %) to 20, then the
	 * second largest throughput is CF 10's: theta_s = 10 / 20 -> 1 */
	CHECK(fabs(a.theta_min - 20) < 1e-12);
	CHECK(fabs(a.theta_s - 1) < 1e-12);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_ring_time);
	RUN(test_choice);
	RUN(test_smoothing);
	RUN(test_scaling);
	RUN(test_escalate);
	RUN(test_saturation);
	return check_done("test_adapt");
}
