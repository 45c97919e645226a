/* test_ringmodel.c - unit tests of analysis/ringmodel.c (GComp Fig. 10 model) */
#include <math.h>

#include "check.h"
#include "../../analysis/gt_ringmodel.h"
#include "../../lib/gt_error.h"
#include "../../lib/banned.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* N = 4, M = 4 MB, 1 GB/s: P = 1 MB, 1 ms per uncompressed step, 6 steps.
 * Codec 2 GB/s both ways, ratio 0.5: 0.5 ms per stage of a whole partition. */
static void test_one_chunk(void)
{
	const struct gt_ring_params p = { 4, 4e6, 1e9, 0, 1e6 };
	const struct gt_codec_speed c = { 0.5, 2e9, 2e9 };
	struct gt_ring_result r;

	CHECK_RC(gt_ring_model(&p, &c, &r), 0);
	CHECK(near(r.partition_bytes, 1e6));
	CHECK(near(r.chunks, 1));
	CHECK(near(r.t_none, 6e-3));
	CHECK(near(r.t_codec, 6 * 1.5e-3));
	CHECK(near(r.normalized, 1.5));
}

/* Ten chunks: 0.05 ms per stage, 3 * 0.05 + 9 * 0.05 = 0.6 ms per step. */
static void test_pipelined(void)
{
	struct gt_ring_params p = { 4, 4e6, 1e9, 0, 1e5 };
	const struct gt_codec_speed c = { 0.5, 2e9, 2e9 };
	struct gt_ring_result r;

	CHECK_RC(gt_ring_model(&p, &c, &r), 0);
	CHECK(near(r.chunks, 10));
	CHECK(near(r.normalized, 0.6));
	/* 10 us per message: x = 0.06 ms, step 0.05 + 0.06 + 0.05 + 9 * 0.06 */
	p.latency = 1e-5;
	CHECK_RC(gt_ring_model(&p, &c, &r), 0);
	CHECK(near(r.t_codec, 6 * 0.7e-3));
	CHECK(near(r.t_none, 6 * 1.01e-3));
	/* a partial last chunk counts as a chunk */
	p.latency = 0;
	p.chunk_bytes = 3e5;
	CHECK_RC(gt_ring_model(&p, &c, &r), 0);
	CHECK(near(r.chunks, 4));
}

/* Without latency the normalized time does not depend on N or M at a
 * fixed chunk count; the slowest stage bounds it from below. */
static void test_limits(void)
{
	const struct gt_codec_speed c = { 0.25, 3e9, 6e9 };
	struct gt_ring_params p = { 2, 1e9, 1.25e9, 0, 1e3 };
	struct gt_ring_result r;

	CHECK_RC(gt_ring_model(&p, &c, &r), 0);
	/* compression is the slowest stage: 1.25 / 3 of the link time */
	CHECK(r.normalized > 1.25 / 3 && r.normalized < 1.25 / 3 * 1.001);
	p.workers = 64;
	p.bytes = 64e9;
	CHECK_RC(gt_ring_model(&p, &c, &r), 0);
	CHECK(r.normalized > 1.25 / 3 && r.normalized < 1.25 / 3 * 1.001);
}

static void test_invalid(void)
{
	const struct gt_codec_speed c = { 0.5, 2e9, 2e9 }, bad = { 0, 2e9, 2e9 };
	struct gt_ring_params p = { 1, 4e6, 1e9, 0, 1e6 };
	struct gt_ring_result r;

	CHECK_RC(gt_ring_model(&p, &c, &r), GT_ERR(INVAL));
	p.workers = 2;
	CHECK_RC(gt_ring_model(&p, &bad, &r), GT_ERR(INVAL));
	p.latency = -1;
	CHECK_RC(gt_ring_model(&p, &c, &r), GT_ERR(INVAL));
	p.latency = 0;
	p.chunk_bytes = 0;
	CHECK_RC(gt_ring_model(&p, &c, &r), GT_ERR(INVAL));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_one_chunk);
	RUN(test_pipelined);
	RUN(test_limits);
	RUN(test_invalid);
	return check_done("test_ringmodel");
}
