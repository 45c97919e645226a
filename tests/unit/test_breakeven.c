/* test_breakeven.c - unit tests of analysis/breakeven.c (Eq. 1-4 of the FFT sparsification paper) */
#include <math.h>

#include "check.h"
#include "../../analysis/gt_breakeven.h"
#include "../../lib/banned.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* 10 Gbit/s = 1.25e9 B/s; codec at 5e9 B/s both ways: link time per byte
 * spent coding is 1.25 * (0.2 + 0.2) = 0.5, so k_min = 1 / (1 - 0.5) = 2. */
static void test_kmin_by_hand(void)
{
	CHECK(near(gt_breakeven_kmin(1.25e9, 5e9, 5e9), 2.0));
	/* compress 2.5e9, decompress 1e10: 1.25 * (0.4 + 0.1) = 0.625 */
	CHECK(near(gt_breakeven_kmin(1.25e9, 2.5e9, 1e10), 1 / 0.375));
	/* a slow link: almost any factor pays off */
	CHECK(near(gt_breakeven_kmin(1.25e6, 5e9, 5e9), 1 / (1 - 5e-4)));
}

static void test_kmin_never(void)
{
	/* coding costs exactly the link time, or more: no k pays off */
	CHECK(isinf(gt_breakeven_kmin(1.25e9, 2.5e9, 2.5e9)));
	CHECK(isinf(gt_breakeven_kmin(7e9, 5e9, 5e9)));
	CHECK(isinf(gt_breakeven_kmin(0, 5e9, 5e9)));
	CHECK(isinf(gt_breakeven_kmin(1e9, -1, 5e9)));
}

static void test_speedup_by_hand(void)
{
	struct gt_codec_speed c = { 0.25, 5e9, 5e9 };

	/* 0.8 ns/B uncompressed; 0.2 + 0.25 * 0.8 + 0.2 = 0.6 ns/B */
	CHECK(near(gt_breakeven_speedup(&c, 1.25e9), 0.8 / 0.6));
	/* at k = k_min = 2 the codec breaks even */
	c.ratio = 0.5;
	CHECK(near(gt_breakeven_speedup(&c, 1.25e9), 1.0));
	/* incompressible data only costs time */
	c.ratio = 1.0;
	CHECK(gt_breakeven_speedup(&c, 1.25e9) < 1);
	c.ratio = 0;
	CHECK(isnan(gt_breakeven_speedup(&c, 1.25e9)));
}

/* speedup > 1 exactly when 1 / ratio > k_min, over a grid */
static void test_speedup_agrees_with_kmin(void)
{
	static const double links[] = { 1.25e8, 1.25e9, 7e9, 1.25e10 };
	static const double speeds[] = { 3e8, 1e9, 4e9, 2e10 };
	static const double ratios[] = { 0.05, 0.3, 0.6, 0.95, 1.2 };

	for (size_t l = 0; l < 4; l++)
		for (size_t s = 0; s < 4; s++)
			for (size_t r = 0; r < 5; r++) {
				const struct gt_codec_speed c = { ratios[r], speeds[s], 2 * speeds[s] };
				const double k = gt_breakeven_kmin(links[l], c.comp_Bps, c.decomp_Bps);
				const double sp = gt_breakeven_speedup(&c, links[l]);

				CHECK((sp > 1) == (1 / ratios[r] > k));
			}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_kmin_by_hand);
	RUN(test_kmin_never);
	RUN(test_speedup_by_hand);
	RUN(test_speedup_agrees_with_kmin);
	return check_done("test_breakeven");
}
