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

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_sgd);
	RUN(test_add_and_errors);
	return check_done("test_fidelity");
}
