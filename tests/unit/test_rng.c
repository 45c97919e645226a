/* test_rng.c - the codecs' seeded generator: reproducible and uniform */
#include <math.h>

#include "check.h"
#include "../../lib/gt_rng.h"

/* The same (seed, stream, pos) gives the same numbers; any change differs. */
static void test_reproducible(void)
{
	const uint64_t seed = check_rand();
	struct gt_rng a, b, c, d, e;
	int same = 1, diff_seed = 0, diff_stream = 0, diff_pos = 0;

	gt_rng_init(&a, seed, 3, 1000);
	gt_rng_init(&b, seed, 3, 1000);
	gt_rng_init(&c, seed + 1, 3, 1000);
	gt_rng_init(&d, seed, 4, 1000);
	gt_rng_init(&e, seed, 3, 1001);
	for (int i = 0; i < 64; i++) {
		const uint64_t x = gt_rng_u64(&a);

		same &= x == gt_rng_u64(&b);
		diff_seed += x != gt_rng_u64(&c);
		diff_stream += x != gt_rng_u64(&d);
		diff_pos += x != gt_rng_u64(&e);
	}
	CHECK(same);
	CHECK(diff_seed == 64 && diff_stream == 64 && diff_pos == 64);
}

/*
 * Neighbouring positions start unrelated streams: the second number of
 * pos p is not the first of pos p + 1 (a plain counter would make it so).
 */
static void test_positions_do_not_overlap(void)
{
	struct gt_rng a, b;
	uint64_t a2;

	gt_rng_init(&a, 7, 0, 0);
	gt_rng_init(&b, 7, 0, 1);
	gt_rng_u64(&a);
	a2 = gt_rng_u64(&a);
	CHECK(a2 != gt_rng_u64(&b));
}

/* Chi-square of gt_rng_below over 16 cells and the mean of the units. */
static void test_uniform(void)
{
	enum { CELLS = 16, N = 1 << 20 };
	uint64_t hist[CELLS] = { 0 };
	struct gt_rng r;
	double chi2 = 0, sum = 0, sumf = 0;
	int in_range = 1;

	gt_rng_init(&r, check_rand(), 0, 0);
	for (int i = 0; i < N; i++) {
		const double u = gt_rng_unit(&r);
		const float f = gt_rng_unit_f(&r);

		in_range &= u >= 0 && u < 1 && f >= 0 && f < 1;
		sum += u;
		sumf += f;
		hist[gt_rng_below(&r, CELLS)]++;
	}
	for (int i = 0; i < CELLS; i++) {
		const double e = (double)N / CELLS;

		chi2 += ((double)hist[i] - e) * ((double)hist[i] - e) / e;
	}
	CHECK(in_range);
	/* 15 degrees of freedom: P(chi2 > 44) < 1e-4 */
	CHECK(chi2 < 44);
	/* the mean of N uniforms has sd sqrt(1/12/N) = 2.8e-4: 6 sd */
	CHECK(fabs(sum / N - 0.5) < 1.7e-3);
	CHECK(fabs(sumf / N - 0.5) < 1.7e-3);
}

/* below(n) stays below n for awkward n, 1 included. */
static void test_below_bounds(void)
{
	static const uint64_t ns[] = { 1, 2, 3, 7, 1000003, UINT64_C(1) << 63,
				       UINT64_MAX };
	struct gt_rng r;
	int ok = 1;

	gt_rng_init(&r, 1, 2, 3);
	for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++)
		for (int i = 0; i < 1000; i++)
			ok &= gt_rng_below(&r, ns[k]) < ns[k];
	CHECK(ok);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_reproducible);
	RUN(test_positions_do_not_overlap);
	RUN(test_uniform);
	RUN(test_below_bounds);
	return check_done("test_rng");
}
