/* test_optim.c - optimizer steps against PyTorch's param_next, δ, update fidelity */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "trace_read.h"
#include "../../formats/gt_source.h"
#include "../../formats/gt_trace.h"
#include "../../lib/gt_optim.h"

/* ---- reproduction of PyTorch's steps, bit for bit ---------------------- */

struct counts {
	uint64_t values, same, tensors, steps;
};

/* One gradient tensor of step @k: gt_optim_step against param_next. */
static void check_tensor(struct gt_source *s, const struct gt_trace *tr, size_t k,
			 size_t gidx, struct counts *c)
{
	const struct gt_trace_step *st = gt_trace_step(tr, k);
	const char *name = gt_trace_param_name(gt_source_info(s, gidx)->name);
	const int ns = gt_optim_nstates(st->optim.kind);
	float *state[2] = { NULL, NULL }, *g, *p, *next = NULL, *out = NULL;
	size_t n = 0;

	g = read_all(s, gidx, &n);
	p = load(s, tr, k, GT_ROLE_PARAM, NULL, name, n);
	next = load(s, tr, k, GT_ROLE_PARAM_NEXT, NULL, name, n);
	for (int i = 0; i < ns; i++)
		state[i] = load(s, tr, k, GT_ROLE_STATE,
				gt_optim_state_name(st->optim.kind, i), name, n);
	out = malloc((n ? n : 1) * sizeof(*out));
	CHECK(g && p && next && out);
	/* state is absent exactly at the first step (AdaGrad's sum: always there) */
	if (ns && st->optim.kind != GT_OPT_ADAGRAD)
		CHECK(!state[0] == (st->step == 1));
	if (g && p && next && out) {
		CHECK_RC(gt_optim_step(&st->optim, n, g, p, state[0], state[1], out,
				       NULL, NULL), 0);
		for (size_t i = 0; i < n; i++)
			c->same += !memcmp(&out[i], &next[i], sizeof(float));
		c->values += n;
		c->tensors++;
		CHECK(!memcmp(out, next, n * sizeof(float)));
	}
	free(g);
	free(p);
	free(next);
	free(out);
	free(state[0]);
	free(state[1]);
}

static const char *trace_path;

static void test_trace(void)
{
	struct gt_source *s = NULL;
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	struct counts c = { 0, 0, 0, 0 };

	CHECK_RC(gt_source_open(trace_path, NULL, &s, &d), 0);
	if (s)
		CHECK_RC(gt_trace_open(s, &tr, &d), 0);
	CHECK(tr && gt_trace_nsteps(tr) > 0);
	for (size_t k = 0; tr && k < gt_trace_nsteps(tr); k++) {
		const struct gt_trace_step *st = gt_trace_step(tr, k);

		CHECK_RC(gt_optim_check(&st->optim, st->group, &d), 0);
		CHECK(st->n_grads > 0);
		for (size_t j = 0; j < st->n_grads; j++)
			check_tensor(s, tr, k, st->grads[j], &c);
		c.steps++;
	}
	if (tr)
		printf("%s: %s, %" PRIu64 " steps, %" PRIu64 " tensors, %" PRIu64 "/%" PRIu64
		       " values bit-identical to param_next\n", trace_path,
		       gt_optim_name(gt_trace_step(tr, 0)->optim.kind), c.steps, c.tensors,
		       c.same, c.values);
	CHECK(c.values > 0 && c.same == c.values);
	gt_trace_free(tr);
	gt_source_free(s);
}

static void run_traces(void)
{
	static const struct {
		const char *path;
		int required;
	} traces[] = {
		{ "samples/mlp_sgd.h5", 1 }, { "samples/cnn_adam.h5", 1 },
		{ "samples/lstm_adamw.h5", 1 }, { "samples/mlp_nesterov.h5", 0 },
		{ "samples/mlp_adagrad.h5", 0 }, { "samples/mlp_rmsprop.h5", 0 },
		{ "samples/mlp_sgd_plain.h5", 0 },
	};

	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		FILE *f = fopen(traces[i].path, "rb");

		if (!f && !traces[i].required) {
			printf("note: %s absent, skipped (not counted)\n", traces[i].path);
			continue;
		}
		if (f)
			fclose(f);
		trace_path = traces[i].path;
		check_run(traces[i].path, test_trace);
	}
}

/* ---- steps on hand-made values --------------------------------------------- */

/* Bit-identical (no -Wfloat-equal, and tells -0 from +0). */
static int eqf(float a, float b)
{
	return !memcmp(&a, &b, sizeof(a));
}

static int eqd(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a));
}

static void test_step_small(void)
{
	/* η = 0.5, λ = 0.25, μ = 0.5, τ = 0.5; θ = 2, g = 0.5: d = 1 */
	struct gt_optim o = { .kind = GT_OPT_MOMENTUM, .lr = 0.5, .weight_decay = 0.25,
			      .momentum = 0.5, .dampening = 0.5, .t = 1 };
	const float g[1] = { 0.5f }, p[1] = { 2.0f }, b[1] = { 4.0f };
	float out[1], bo[1], so[1];

	/* first step: b = d = 1, θ' = 2 - 0.5 = 1.5 */
	CHECK_RC(gt_optim_step(&o, 1, g, p, NULL, NULL, out, bo, NULL), 0);
	CHECK(eqf(out[0], 1.5f) && eqf(bo[0], 1.0f));
	/* later: b = 0.5*4 + 0.5*1 = 2.5, θ' = 2 - 1.25 = 0.75 */
	CHECK_RC(gt_optim_step(&o, 1, g, p, b, NULL, out, bo, NULL), 0);
	CHECK(eqf(out[0], 0.75f) && eqf(bo[0], 2.5f));
	/* in place */
	memcpy(bo, b, sizeof(bo));
	memcpy(out, p, sizeof(out));
	CHECK_RC(gt_optim_step(&o, 1, g, out, bo, NULL, out, bo, NULL), 0);
	CHECK(eqf(out[0], 0.75f) && eqf(bo[0], 2.5f));
	/* Nesterov, τ = 0: b = 2 + 1 = 3, d = 1 + 1.5 = 2.5, θ' = 0.75 */
	o.kind = GT_OPT_NESTEROV;
	o.dampening = 0;
	CHECK_RC(gt_optim_step(&o, 1, g, p, b, NULL, out, bo, NULL), 0);
	CHECK(eqf(out[0], 0.75f) && eqf(bo[0], 3.0f));
	/* AdaGrad, t = 1, ε = 0: sum = 3 + 1 = 4, θ' = 2 - 0.5*1/2 = 1.75 */
	o = (struct gt_optim){ .kind = GT_OPT_ADAGRAD, .lr = 0.5, .weight_decay = 0.25, .t = 1 };
	CHECK_RC(gt_optim_step(&o, 1, g, p, (const float[]){ 3.0f }, NULL, out, so, NULL), 0);
	CHECK(eqf(out[0], 1.75f) && eqf(so[0], 4.0f));
	/* unknown kind, NULL arrays */
	o.kind = GT_OPT_NONE;
	CHECK_RC(gt_optim_step(&o, 1, g, p, NULL, NULL, out, NULL, NULL), GT_ERR(INVAL));
	o.kind = GT_OPT_SGD;
	CHECK_RC(gt_optim_step(&o, 1, NULL, p, NULL, NULL, out, NULL, NULL), GT_ERR(INVAL));
	CHECK_RC(gt_optim_step(&o, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL), 0);
}

/* ---- δ against values worked out by hand ------------------------------------ */

static int close_to(double got, double want)
{
	if (isinf(want))
		return isinf(got) && (got > 0) == (want > 0);
	return fabs(got - want) <= 1e-12 * fabs(want);
}

/* δ of one value (state @s0, @s1 or NULL) under @o. */
static double delta1(const struct gt_optim *o, float g, float p, const float *s0,
		     const float *s1)
{
	double v = -1;

	CHECK_RC(gt_optim_delta(o, 1, &g, &p, s0, s1, &v), 0);
	return v;
}

static void test_delta_sgd_family(void)
{
	struct gt_optim o = { .kind = GT_OPT_SGD, .lr = 0.5, .weight_decay = 0.25, .t = 5 };
	const float b4 = 4.0f, b2 = 2.0f;

	/* SGD, η = 0.5, λ = 0.25: δ = θ/(ηg) − λθ/g
	 * θ = 2, g = 0.5:     2/0.25 − 0.5/0.5       = 8 − 1 = 7
	 * θ = −3, g = 0.25:   −3/0.125 − (−0.75)/0.25 = −24 + 3 = −21 */
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, NULL, NULL), 7));
	CHECK(close_to(delta1(&o, 0.25f, -3.0f, NULL, NULL), -21));
	CHECK(close_to(delta1(&o, 0.0f, 2.0f, NULL, NULL), INFINITY));
	CHECK(close_to(delta1(&o, -0.0f, -2.0f, NULL, NULL), INFINITY));
	CHECK(isnan(delta1(&o, 0.5f, NAN, NULL, NULL)));
	CHECK(isnan(delta1(&o, NAN, 1.0f, NULL, NULL)));
	/* Momentum, μ = 0.5, τ = 0.5: δ = (θ − ημb)/(η(1−τ)g) − λθ/g
	 * θ = 2, g = 0.5, b = 4:    (2 − 1)/0.125 − 1       = 7
	 * θ = −1, g = −0.25, b = 2: (−1 − 0.5)/(−0.0625) − 1 = 24 − 1 = 23
	 * first step (no buffer), θ = 2, g = 0.5: PyTorch's b_1 = g + λθ, so
	 * θ_t = θ − ηλθ − ηg, δ = θ/(ηg) − λθ/g = 7 (the paper's formula with
	 * b = 0 would give 2/0.125 − 1 = 15) */
	o.kind = GT_OPT_MOMENTUM;
	o.momentum = 0.5;
	o.dampening = 0.5;
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, &b4, NULL), 7));
	CHECK(close_to(delta1(&o, -0.25f, -1.0f, &b2, NULL), 23));
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, NULL, NULL), 7));
	CHECK(isnan(delta1(&o, 0.5f, 2.0f, (const float[]){ NAN }, NULL)));
	/* Nesterov, μ = 0.5: δ = ((1 − ηλ(1+μ))θ − ημ²b)/(η(1+μ)g)
	 * θ = 2, g = 0.5, b = 4: ((1 − 0.1875)·2 − 0.5)/0.375 = 1.125/0.375 = 3
	 * first step (b = 0):    1.625/0.375 = 13/3 */
	o.kind = GT_OPT_NESTEROV;
	o.dampening = 0;
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, &b4, NULL), 3));
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, NULL, NULL), 13.0 / 3));
	CHECK(close_to(delta1(&o, 0.0f, 2.0f, &b4, NULL), INFINITY));
}

static void test_delta_adaptive(void)
{
	struct gt_optim o = { .kind = GT_OPT_ADAGRAD, .lr = 0.5, .weight_decay = 0.25,
			      .eps = 0.5, .lr_decay = 0.5, .t = 3 };
	const float r3 = 3.0f, v7 = 7.0f, m1 = 1.0f, v5 = 5.0f;

	/* AdaGrad, η̃ = 0.5/(1 + 2·0.5) = 0.25, ε = 0.5: δ = θ(√r_t+ε)/(η̃g) − λθ/g
	 * θ = 2, g = 0.5, r = 3:   d = 1, r_t = 4: 2·2.5/0.125 − 1 = 39
	 * θ = −2, g = −0.5, r = 3: d = −1, r_t = 4: −5/−0.125 − 1 = 39
	 * θ = 2, g = 0.5, no sum:  r_t = 1: 2·1.5/0.125 − 1 = 23 */
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, &r3, NULL), 39));
	CHECK(close_to(delta1(&o, -0.5f, -2.0f, &r3, NULL), 39));
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, NULL, NULL), 23));
	CHECK(close_to(delta1(&o, 0.0f, 2.0f, &r3, NULL), INFINITY));
	/* RMSProp, η = 0.5, α = 0.5, ε = 0.5: δ = θ(√v_t+ε)/(ηg) − λθ/g
	 * θ = 2, g = 0.5, v = 7: v_t = 3.5 + 0.5 = 4: 2·2.5/0.25 − 1 = 19
	 * no square_avg:          v_t = 0.5: 8(√0.5 + 0.5) − 1 = 4√2 + 3 */
	o = (struct gt_optim){ .kind = GT_OPT_RMSPROP, .lr = 0.5, .weight_decay = 0.25,
			       .eps = 0.5, .alpha = 0.5, .t = 3 };
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, &v7, NULL), 19));
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, NULL, NULL), 4 * sqrt(2.0) + 3));
	/* Adam, η = β1 = β2 = ε = 0.5, λ = 0.25, θ = 2, g = 0.5 (d = 1):
	 * δ = (θ(√v̂_t+ε)(1−β1^t) − ηβ1m)/(η(1−β1)g) − λθ/g
	 * t = 1, m = 1, v = 7: v_t = 4, v̂ = 8: (2(2√2+0.5)0.5 − 0.25)/0.125 − 1 = 16√2 + 1
	 * t = 2, m = 1, v = 5: v_t = 3, v̂ = 4: (2·2.5·0.75 − 0.25)/0.125 − 1 = 27 */
	o = (struct gt_optim){ .kind = GT_OPT_ADAM, .lr = 0.5, .weight_decay = 0.25,
			       .beta1 = 0.5, .beta2 = 0.5, .eps = 0.5, .t = 1 };
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, &m1, &v7), 16 * sqrt(2.0) + 1));
	o.t = 2;
	CHECK(close_to(delta1(&o, 0.5f, 2.0f, &m1, &v5), 27));
	CHECK(close_to(delta1(&o, -0.0f, 2.0f, &m1, &v5), INFINITY));
	CHECK(isnan(delta1(&o, 0.5f, 2.0f, &m1, (const float[]){ NAN })));
	/* AdamW, same, g = 1: δ = (θ(1−ηλ)(√v̂_t+ε)(1−β1^t) − ηβ1m)/(η(1−β1)g)
	 * t = 2, m = 1, v = 5: v_t = 3, v̂ = 4: (2·0.875·2.5·0.75 − 0.25)/0.25 = 12.125
	 * t = 1, no state:     v_t = 0.5, v̂ = 1: 2·0.875·1.5·0.5/0.25 = 5.25
	 * θ = −2, g = −1, t = 1, no state: −1.3125/−0.25 = 5.25 */
	o.kind = GT_OPT_ADAMW;
	CHECK(close_to(delta1(&o, 1.0f, 2.0f, &m1, &v5), 12.125));
	o.t = 1;
	CHECK(close_to(delta1(&o, 1.0f, 2.0f, NULL, NULL), 5.25));
	CHECK(close_to(delta1(&o, -1.0f, -2.0f, NULL, NULL), 5.25));
	o.kind = GT_OPT_NONE;
	CHECK_RC(gt_optim_delta(&o, 1, &(float){ 1 }, &(float){ 1 }, NULL, NULL,
				&(double){ 0 }), GT_ERR(INVAL));
}

/* ---- update fidelity ------------------------------------------------------ */

static float from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static void test_compare(void)
{
	const float a[] = { 0.0f, 1.0f, 1.0f, 3.0f, -1.0f, from_bits(1), FLT_MAX };
	const float b[] = { -0.0f, from_bits(0x3f7fffff), 1.0f, 3.0f, 1.0f,
			    from_bits(0x80000001), INFINITY };
	const float na[] = { 1.0f, NAN }, nb[] = { NAN, NAN };
	uint64_t same = 0, ulp = 0;
	double rel = -1;

	/* ±0: 0 ULP; 1 and its predecessor below a power of two: 1 ULP, rel 2^-24 */
	CHECK_RC(gt_optim_compare(2, a, b, &same, &ulp, &rel), 0);
	CHECK(same == 0 && ulp == 1 && eqd(rel, ldexp(1, -24)));
	CHECK_RC(gt_optim_compare(4, a, b, &same, &ulp, &rel), 0);
	CHECK(same == 2 && ulp == 1);
	/* −1 vs 1: the ordered distance is twice 1.0f's bit pattern; rel 2 */
	CHECK_RC(gt_optim_compare(5, a, b, &same, &ulp, &rel), 0);
	CHECK(ulp == 2 * UINT64_C(0x3f800000) && eqd(rel, 2.0));
	/* smallest subnormals of either sign: 2 ULP; FLT_MAX vs +Inf: 1 ULP, rel Inf */
	CHECK_RC(gt_optim_compare(2, a + 5, b + 5, &same, &ulp, &rel), 0);
	CHECK(same == 0 && ulp == 2 && isinf(rel));
	/* a NaN that differs: the largest ULP distance; identical NaNs count as same */
	CHECK_RC(gt_optim_compare(2, na, nb, &same, &ulp, &rel), 0);
	CHECK(same == 1 && ulp == GT_OPTIM_ULP_NAN && isinf(rel));
	CHECK_RC(gt_optim_compare(0, NULL, NULL, &same, &ulp, &rel), 0);
	CHECK(same == 0 && ulp == 0 && eqd(rel, 0));
	CHECK_RC(gt_optim_compare(1, a, NULL, NULL, NULL, NULL), GT_ERR(INVAL));
}

/* ---- checking and names ------------------------------------------------------ */

static void test_check(void)
{
	struct gt_optim o = { .kind = GT_OPT_SGD, .have = 0, .t = 1 };
	struct gt_diag d = { "" };

	CHECK_RC(gt_optim_check(&o, "step /s", &d), GT_ERR(NOTFOUND));
	CHECK(!strcmp(d.msg, "step /s: attribute lr missing"));
	o.have = GT_HP_LR;
	CHECK_RC(gt_optim_check(&o, "step /s", &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "step /s: lr must be positive"));
	o.lr = NAN;
	CHECK_RC(gt_optim_check(&o, "step /s", &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "step /s: lr must be positive"));
	o.lr = INFINITY;
	CHECK_RC(gt_optim_check(&o, "step /s", &d), GT_ERR(INVAL));
	o.lr = 0.1;
	CHECK_RC(gt_optim_check(&o, "step /s", &d), 0);
	o.weight_decay = -1;
	CHECK_RC(gt_optim_check(&o, "x", &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "x: weight_decay must not be negative"));
	o = (struct gt_optim){ .kind = GT_OPT_ADAM, .lr = 1e-3, .beta1 = 1.0, .beta2 = 0.999,
			       .eps = 1e-8, .t = 1,
			       .have = GT_HP_LR | GT_HP_BETA1 | GT_HP_BETA2 | GT_HP_EPS };
	CHECK_RC(gt_optim_check(&o, "x", &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "x: beta1 must be in [0, 1)"));
	o.beta1 = 0.9;
	o.eps = -1;
	CHECK_RC(gt_optim_check(&o, "x", &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "x: eps must not be negative"));
	o.eps = 1e-8;
	o.t = 0;
	CHECK_RC(gt_optim_check(&o, "x", &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "x: step must be positive"));
	o = (struct gt_optim){ .kind = GT_OPT_NESTEROV, .lr = 0.1, .momentum = 0.9,
			       .dampening = 0.1, .have = GT_HP_LR | GT_HP_MOMENTUM };
	CHECK_RC(gt_optim_check(&o, "x", &d), GT_ERR(INVAL));
	CHECK(!strcmp(d.msg, "x: nesterov needs dampening 0"));
	o = (struct gt_optim){ .kind = GT_OPT_RMSPROP, .lr = 0.1, .alpha = 0.99, .momentum = 0.9,
			       .have = GT_HP_LR | GT_HP_ALPHA | GT_HP_EPS };
	CHECK_RC(gt_optim_check(&o, "x", &d), GT_ERR(UNSUPPORTED));
	CHECK(!strcmp(d.msg, "x: rmsprop with momentum is not supported"));
	CHECK_RC(gt_optim_step(&o, 1, &(float){ 1 }, &(float){ 1 }, NULL, NULL, NULL, NULL,
			       NULL), GT_ERR(UNSUPPORTED));
	o.kind = GT_OPT_NONE;
	CHECK_RC(gt_optim_check(&o, "x", &d), GT_ERR(NOTFOUND));
	CHECK(!strcmp(d.msg, "x: attribute optimizer missing"));
	CHECK_RC(gt_optim_check(&o, "x", NULL), GT_ERR(NOTFOUND));
}

static void test_names(void)
{
	CHECK(gt_optim_nstates(GT_OPT_SGD) == 0 && gt_optim_nstates(GT_OPT_ADAMW) == 2);
	CHECK(gt_optim_nstates(GT_OPT_RMSPROP) == 1 && gt_optim_nstates(GT_OPT_NONE) == 0);
	CHECK(!strcmp(gt_optim_state_name(GT_OPT_MOMENTUM, 0), "momentum_buffer"));
	CHECK(!strcmp(gt_optim_state_name(GT_OPT_NESTEROV, 0), "momentum_buffer"));
	CHECK(!strcmp(gt_optim_state_name(GT_OPT_ADAGRAD, 0), "sum"));
	CHECK(!strcmp(gt_optim_state_name(GT_OPT_RMSPROP, 0), "square_avg"));
	CHECK(!strcmp(gt_optim_state_name(GT_OPT_ADAM, 0), "exp_avg"));
	CHECK(!strcmp(gt_optim_state_name(GT_OPT_ADAMW, 1), "exp_avg_sq"));
	CHECK(!gt_optim_state_name(GT_OPT_SGD, 0) && !gt_optim_state_name(GT_OPT_ADAM, 2));
	CHECK(!gt_optim_state_name(GT_OPT_MOMENTUM, -1) && !gt_optim_state_name(GT_OPT_MOMENTUM, 1));
	CHECK(gt_optim_parse("Adagrad") == GT_OPT_ADAGRAD && !gt_optim_name((enum gt_optim_kind)99));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	run_traces();
	RUN(test_step_small);
	RUN(test_delta_sgd_family);
	RUN(test_delta_adaptive);
	RUN(test_compare);
	RUN(test_check);
	RUN(test_names);
	return check_done("test_optim");
}
