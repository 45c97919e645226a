/* test_fidelity.c - unit tests of analysis/fidelity.c */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "../../analysis/gt_fidelity.h"
#include "../../lib/banned.h"

#define N 64

static int same_bits(float x, float y)
{
	return !memcmp(&x, &y, sizeof(x));
}

/* Plain SGD, θ_t = θ - lr g in float32: the reference is computed here. */
static void test_sgd(void)
{
	struct gt_optim o;
	float g[N], gh[N], p[N], next[N], a[N], b[N];
	struct gt_fidelity f;
	const struct gt_fidelity_io io = { g, gh, p, NULL, NULL, next, a, b };
	uint64_t same = 0;

	memset(&o, 0, sizeof(o));
	o.kind = GT_OPT_SGD;
	o.lr = 0.5;
	o.have = GT_HP_LR;
	o.t = 1;
	for (int i = 0; i < N; i++) {
		p[i] = 1.0f + (float)i / 8;
		g[i] = (float)(i - 32) / 64;
		gh[i] = i % 4 ? g[i] : g[i] + 0.25f; /* every 4th value differs */
		next[i] = p[i] - 0.5f * g[i];
		if (i == 5)
			next[i] = nextafterf(next[i], 100); /* PyTorch's value off by one ULP */
		same += (uint64_t)same_bits(p[i] - 0.5f * g[i], p[i] - 0.5f * gh[i]);
	}
	gt_fidelity_init(&f);
	CHECK_RC(gt_fidelity_block(&f, &o, N, &io), 0);
	CHECK(f.values == N && f.identical == same && same == N - N / 4);
	CHECK(f.max_ulp > 0 && f.max_rel > 0);
	CHECK(f.py_values == N && f.py_identical == N - 1);
	CHECK(fabs(gt_fidelity_pct(&f) - 75.0) < 1e-12);
	/* a second block adds up */
	CHECK_RC(gt_fidelity_block(&f, &o, N, &io), 0);
	CHECK(f.values == 2 * N && f.identical == 2 * same && f.py_identical == 2 * N - 2);
}

static void test_add_and_errors(void)
{
	struct gt_fidelity a, b;
	struct gt_optim o;
	float v[1] = { 1 };
	const struct gt_fidelity_io io = { v, v, v, NULL, NULL, NULL, v, v };

	gt_fidelity_init(&a);
	gt_fidelity_init(&b);
	CHECK(isnan(gt_fidelity_pct(&a)));
	a.values = 10, a.identical = 9, a.max_ulp = 3, a.max_rel = 1e-7;
	b.values = 5, b.identical = 5, b.max_ulp = 1, b.max_rel = 1e-6, b.py_values = 5;
	gt_fidelity_add(&a, &b);
	CHECK(a.values == 15 && a.identical == 14 && a.max_ulp == 3 && a.py_values == 5);
	CHECK(!(a.max_rel < 1e-6) && !(a.max_rel > 1e-6));
	memset(&o, 0, sizeof(o)); /* kind NONE: gt_optim_step refuses */
	CHECK(gt_fidelity_block(&a, &o, 1, &io) < 0);
	CHECK(a.values == 15);
}

/*
 * bf16 SGD lr=0.1, θ = 0.5, g = 5 over 33 values: PyTorch 1.13 gives -2^-11
 * on its vectorized loop (values 0-31) and 0 on its scalar loop (value 32);
 * ĝ = 4.96875 (the bf16 below 5) steps to 173 * 2^-16 (vectorized: 0.5 -
 * 0.4973602..., rounded once) and 2^-9 (scalar: ĝ alpha rounds to 0.498046875).
 * The tensor is stepped in two blocks, [0, 20) and [20, 33).
 */
static void test_bf16_blocks(void)
{
	const struct gt_optim o = { .kind = GT_OPT_SGD, .lr = 0.1, .have = GT_HP_LR, .t = 1 };
	float g[33], gh[33], p[33], next[33], a[33], b[33];
	struct gt_fidelity f;
	const struct gt_fidelity_io lo = { g, gh, p, NULL, NULL, next, a, b };
	const struct gt_fidelity_io hi = { g + 20, gh + 20, p + 20, NULL, NULL, next + 20,
					   a + 20, b + 20 };

	for (int i = 0; i < 33; i++) {
		p[i] = 0.5f;
		g[i] = 5.0f;
		gh[i] = i % 2 ? 5.0f : 4.96875f;
		next[i] = i < 32 ? -0x1p-11f : 0.0f;
	}
	gt_fidelity_init(&f);
	CHECK_RC(gt_fidelity_block_dt(&f, &o, GT_DT_BF16, 0, 33, 20, &lo), 0);
	CHECK_RC(gt_fidelity_block_dt(&f, &o, GT_DT_BF16, 20, 33, 13, &hi), 0);
	CHECK(f.values == 33 && f.py_values == 33 && f.py_identical == 33);
	CHECK(same_bits(a[31], -0x1p-11f) && same_bits(a[32], 0.0f));
	CHECK(same_bits(b[0], 173 * 0x1p-16f) && same_bits(b[32], 0x1p-9f));
	CHECK(f.identical == 16);
	/* the same in float32: every value one more rounding-free fma */
	gt_fidelity_init(&f);
	CHECK_RC(gt_fidelity_block(&f, &o, 33, &lo), 0);
	CHECK(f.py_identical == 0);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_sgd);
	RUN(test_add_and_errors);
	RUN(test_bf16_blocks);
	return check_done("test_fidelity");
}
