/* test_sim.c - unit tests of analysis/sim.c (the AQGB simulation) */
#include <math.h>
#include <string.h>

#include "check.h"
#include "../../analysis/gt_sim.h"
#include "../../lib/banned.h"

static struct gt_sim_config paper(enum gt_sim_scheme scheme, unsigned bits, double duration)
{
	const struct gt_sim_config c = {
		16, 2.5e9, 1.5, GT_SIM_RESNET50_FP_FRACTION, GT_SIM_UNIFORM, duration, 7,
		gt_sim_resnet50, GT_SIM_RESNET50_BLOCKS, scheme, bits, 0.125, 256 << 10,
	};

	return c;
}

/* §5.2.2, Fig. 10: AQGB iterates almost as often as 4 bit and far more
 * than 32 bit; its utilization lies between theirs, much nearer 32 bit's
 * than 4 bit's; its ROW is the highest; its T_wait is close to 4 bit's. */
static void test_paper_findings(void)
{
	struct gt_sim_config c32 = paper(GT_SIM_FIXED, 32, 60), c4 = paper(GT_SIM_FIXED, 4, 60);
	struct gt_sim_config ca = paper(GT_SIM_AQGB, 0, 60);
	struct gt_sim_result r32, r4, ra;

	CHECK_RC(gt_sim_run(&c32, NULL, &r32), 0);
	CHECK_RC(gt_sim_run(&c4, NULL, &r4), 0);
	CHECK_RC(gt_sim_run(&ca, NULL, &ra), 0);
	CHECK(ra.rounds >= 0.9 * (double)r4.rounds);
	CHECK(ra.rounds >= 2 * r32.rounds);
	CHECK(r4.utilization < ra.utilization && ra.utilization < r32.utilization);
	CHECK(2 * r4.utilization < ra.utilization);
	CHECK(ra.row > r4.row && ra.row > r32.row);
	CHECK(ra.wait_norm < 1.5 * r4.wait_norm && ra.wait_norm < r32.wait_norm / 5);
	/* fixed widths arrive as they are; AQGB sends more than qbar's 4 bits */
	CHECK(fabs(r32.bits_per_value - 32) < 1e-12 && fabs(r4.bits_per_value - 4) < 1e-12);
	CHECK(ra.bits_per_value > 4 && ra.bits_per_value < 32);
	CHECK(r32.utilization > 0 && r32.utilization <= 1 + 1e-9);
}

/* The same seed gives the same run, worker by worker; another seed does not. */
static void test_deterministic(void)
{
	struct gt_sim_config c = paper(GT_SIM_AQGB, 0, 20);
	struct gt_sim_worker w1[16], w2[16];
	struct gt_sim_result r1, r2;

	CHECK_RC(gt_sim_run(&c, w1, &r1), 0);
	CHECK_RC(gt_sim_run(&c, w2, &r2), 0);
	CHECK(!memcmp(w1, w2, sizeof(w1)) && !memcmp(&r1, &r2, sizeof(r1)));
	c.seed = 8;
	CHECK_RC(gt_sim_run(&c, w2, &r2), 0);
	CHECK(memcmp(w1, w2, sizeof(w1)));
}

/* Communication-bound by construction: 4 workers, one block of 10^6 values
 * at 32 bits sent whole, compute of a microsecond.  Every uplink carries 3
 * flows at C/3, so a round takes 3 * 32e6 / 1e9 = 96 ms (plus 1 us), all
 * links are busy all the time, and the forward pass waits for it all.
 * Round 0 needs no data: 1 + 100 rounds fit in 9.601 s. */
static void test_comm_bound_by_hand(void)
{
	static const struct gt_sim_block one[1] = { { 1000000, 1, 1 } };
	const struct gt_sim_config c = {
		4, 1e9, 1e-6, 0.5, GT_SIM_UNIFORM, 9.6 + 1e-3, 3, one, 1, GT_SIM_FIXED, 32,
		0.125, 1000000,
	};
	struct gt_sim_worker w[4];
	struct gt_sim_result r;

	CHECK_RC(gt_sim_run(&c, w, &r), 0);
	CHECK(r.rounds == 101);
	CHECK(r.utilization > 0.9999 * (9.6 / (9.6 + 1e-3)) && r.utilization <= 1 + 1e-9);
	for (unsigned k = 0; k < 4; k++) {
		CHECK(w[k].rounds == 101);
		/* 100 rounds wait 96 ms each, less their compute */
		CHECK(fabs(w[k].t_wait - 9.6) < 0.01);
		CHECK(w[k].t_comp < 102 * 1.1e-6);
	}
}

/* Links ten thousand times faster than needed: the compute alone sets the
 * pace, about duration / iter_time rounds, nobody waits long. */
static void test_compute_bound(void)
{
	struct gt_sim_config c = paper(GT_SIM_FIXED, 32, 30);
	struct gt_sim_worker w[16];
	struct gt_sim_result r;

	c.link_bps = 1e14;
	CHECK_RC(gt_sim_run(&c, w, &r), 0);
	/* a round ends when the slowest of the 16 is done: mean <= 1.1 x 1.5 s */
	CHECK(r.rounds >= (uint64_t)(30 / (1.1 * 1.5)) - 1 && r.rounds <= (uint64_t)(30 / (0.9 * 1.5)));
	CHECK(r.wait_norm < 0.15);
	CHECK(r.utilization < 1e-3);
	c.timing = GT_SIM_STRAGGLER;
	CHECK_RC(gt_sim_run(&c, w, &r), 0);
	CHECK(r.rounds >= (uint64_t)(30 / (1.78 * 1.5)) - 1 && r.rounds <= (uint64_t)(30 / (0.88 * 1.5)));
}

/* The control's direction: the more bandwidth, the more bits arrive in
 * time; at 100 Mbit/s only qbar's 4 bits, near 32 when the links are
 * fast; qbar is a floor. */
static void test_aqgb_adapts(void)
{
	static const double links[] = { 1e8, 1e9, 2.5e9, 1e10, 1e11 };
	struct gt_sim_config c = paper(GT_SIM_AQGB, 0, 20);
	struct gt_sim_result r;
	double prev = 0;

	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		c.link_bps = links[i];
		CHECK_RC(gt_sim_run(&c, NULL, &r), 0);
		CHECK(r.bits_per_value >= prev);
		prev = r.bits_per_value;
		if (i == 0)
			CHECK(fabs(r.bits_per_value - 4) < 1e-12);
	}
	CHECK(prev > 31 && prev <= 32);
	c.link_bps = 2.5e9;
	c.qbar = 0.25;
	CHECK_RC(gt_sim_run(&c, NULL, &r), 0);
	CHECK(r.bits_per_value >= 8);
}

/* Progressive filling by hand.  C = 1; flows 0->1, 0->2, 0->3, 1->3:
 * uplink 0 has the smallest fair share, 1/3, for its three flows; the
 * downlink of 3 then has 2/3 left for 1->3, which its uplink allows. */
static void test_maxmin_by_hand(void)
{
	unsigned char on[16] = { 0 };
	double rate[16];

	on[0 * 4 + 1] = on[0 * 4 + 2] = on[0 * 4 + 3] = on[1 * 4 + 3] = 1;
	CHECK_RC(gt_sim_maxmin(4, 1, on, rate), 0);
	CHECK(fabs(rate[1] - 1.0 / 3) < 1e-15 && fabs(rate[2] - 1.0 / 3) < 1e-15);
	CHECK(fabs(rate[3] - 1.0 / 3) < 1e-15 && fabs(rate[7] - 2.0 / 3) < 1e-15);
	CHECK(fabs(rate[4]) < 1e-300 && fabs(rate[0]) < 1e-300);
	/* add 2->3 and 1->2: downlink 3 (3 flows) is the bottleneck at 1/3;
	 * then uplink 1 has 2/3 left for 1->2, downlink 2 has 2/3 left for
	 * 1->2 with 0->2 frozen at 1/3: 1->2 gets 2/3 */
	on[2 * 4 + 3] = on[1 * 4 + 2] = 1;
	CHECK_RC(gt_sim_maxmin(4, 2.5e9, on, rate), 0);
	for (unsigned i = 0; i < 16; i++) {
		const double want = i == 1 * 4 + 2 ? 2.0 / 3 : on[i] ? 1.0 / 3 : 0;

		CHECK(fabs(rate[i] - 2.5e9 * want) < 1e-6);
	}
	/* every link carries at most its capacity */
	memset(on, 1, sizeof(on));
	CHECK_RC(gt_sim_maxmin(4, 1, on, rate), 0);
	for (unsigned i = 0; i < 16; i++)
		CHECK(fabs(rate[i] - (i / 4 == i % 4 ? 0 : 1.0 / 3)) < 1e-15);
	CHECK_RC(gt_sim_maxmin(0, 1, on, rate), GT_ERR(INVAL));
}

static void test_invalid(void)
{
	struct gt_sim_config c = paper(GT_SIM_FIXED, 32, 10);
	struct gt_sim_block bad[1] = { { 10, 0.5, 1 } };
	struct gt_sim_result r;

	c.workers = 1;
	CHECK_RC(gt_sim_run(&c, NULL, &r), GT_ERR(INVAL));
	c = paper(GT_SIM_FIXED, 33, 10);
	CHECK_RC(gt_sim_run(&c, NULL, &r), GT_ERR(INVAL));
	c = paper(GT_SIM_AQGB, 0, 10);
	c.qbar = 0;
	CHECK_RC(gt_sim_run(&c, NULL, &r), GT_ERR(INVAL));
	c = paper(GT_SIM_FIXED, 32, 10);
	c.blocks = bad; /* shares that do not sum to 1 */
	c.nblocks = 1;
	CHECK_RC(gt_sim_run(&c, NULL, &r), GT_ERR(INVAL));
	c = paper(GT_SIM_FIXED, 32, 10);
	c.chunk = 1; /* 25.6 M chunks per round */
	CHECK_RC(gt_sim_run(&c, NULL, &r), GT_ERR(INVAL));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_paper_findings);
	RUN(test_deterministic);
	RUN(test_comm_bound_by_hand);
	RUN(test_compute_bound);
	RUN(test_aqgb_adapts);
	RUN(test_maxmin_by_hand);
	RUN(test_invalid);
	return check_done("test_sim");
}
