/* test_optim_dtype.c - optimizer steps in float64, bfloat16 and float16 against PyTorch */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "../../formats/gt_source.h"
#include "../../formats/gt_trace.h"
#include "../../lib/gt_optim.h"

/* Tensor @idx of @s as doubles (f64) or floats (every other dtype), a new
 * buffer; *@dt its dtype. */
static void *read_dt(struct gt_source *s, size_t idx, size_t *n_ret, enum gt_dtype *dt)
{
	const struct gt_tensor_info *t = gt_source_info(s, idx);
	struct gt_diag d = { "" };
	size_t n, got = 0;
	unsigned char *raw;
	float *f;

	*dt = t->dtype;
	n = (size_t)t->count;
	*n_ret = n;
	raw = malloc(n * 8 + 8);
	CHECK(raw != NULL);
	if (!raw)
		return NULL;
	CHECK_RC(gt_source_read(s, idx, 0, n, raw, &got, &d), 0);
	CHECK(got == n);
	if (t->dtype == GT_DT_F64 || t->dtype == GT_DT_F32)
		return raw;
	f = malloc(n * sizeof(float) + 4);
	CHECK(f != NULL);
	for (size_t i = 0; f && i < n; i++)
		f[i] = (float)gt_fp_get(raw, t->dtype, i);
	free(raw);
	return f;
}

static void *load_dt(struct gt_source *s, const struct gt_trace *tr, size_t k,
		     enum gt_role role, const char *buf, const char *name, size_t n,
		     enum gt_dtype want)
{
	struct gt_diag d = { "" };
	enum gt_dtype dt;
	size_t idx, got = 0;
	void *v;

	if (gt_trace_find(tr, k, role, buf, name, &idx, &d) < 0)
		return NULL;
	v = read_dt(s, idx, &got, &dt);
	CHECK(got == n && dt == want);
	return v;
}

struct counts {
	uint64_t values, same, tail_values;
};

/* One gradient tensor: gt_optim_step_dt against param_next, bit for bit. */
static void check_tensor(struct gt_source *s, const struct gt_trace *tr, size_t k,
			 size_t gidx, struct counts *c)
{
	const struct gt_trace_step *st = gt_trace_step(tr, k);
	const char *name = gt_trace_param_name(gt_source_info(s, gidx)->name);
	const int ns = gt_optim_nstates(st->optim.kind);
	void *state[2] = { NULL, NULL }, *g, *p, *next, *out;
	enum gt_dtype dt;
	size_t n = 0, w;
	uint64_t same = 0;

	g = read_dt(s, gidx, &n, &dt);
	w = dt == GT_DT_F64 ? 8 : 4;
	p = load_dt(s, tr, k, GT_ROLE_PARAM, NULL, name, n, dt);
	next = load_dt(s, tr, k, GT_ROLE_PARAM_NEXT, NULL, name, n, dt);
	for (int i = 0; i < ns; i++)
		state[i] = load_dt(s, tr, k, GT_ROLE_STATE,
				   gt_optim_state_name(st->optim.kind, i), name, n, dt);
	out = malloc(n * w + 8);
	CHECK(g && p && next && out && dt != GT_DT_F32);
	if (g && p && next && out) {
		CHECK_RC(gt_optim_step_dt(&st->optim, dt, n, gt_optim_vec_end(dt, 0, n, n),
					  g, p, state[0], state[1], out, NULL, NULL), 0);
		CHECK_RC(gt_optim_compare_dt(dt, n, next, out, &same, NULL, NULL), 0);
		c->same += same;
		c->values += n;
		c->tail_values += n - gt_optim_vec_end(dt, 0, n, n);
		CHECK(!memcmp(out, next, n * w));
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
	struct counts c = { 0, 0, 0 };

	CHECK_RC(gt_source_open(trace_path, NULL, &s, &d), 0);
	if (s)
		CHECK_RC(gt_trace_open(s, &tr, &d), 0);
	CHECK(tr && gt_trace_nsteps(tr) == 3);
	for (size_t k = 0; tr && k < gt_trace_nsteps(tr); k++) {
		const struct gt_trace_step *st = gt_trace_step(tr, k);

		CHECK_RC(gt_optim_check(&st->optim, st->group, &d), 0);
		CHECK(st->n_grads == 4);
		for (size_t j = 0; j < st->n_grads; j++)
			check_tensor(s, tr, k, st->grads[j], &c);
	}
	if (tr)
		printf("%s: %s, %" PRIu64 "/%" PRIu64 " values bit-identical to param_next"
		       " (%" PRIu64 " on PyTorch's scalar loop)\n", trace_path,
		       gt_optim_name(gt_trace_step(tr, 0)->optim.kind), c.same, c.values,
		       c.tail_values);
	CHECK(c.values > 0 && c.same == c.values);
	gt_trace_free(tr);
	gt_source_free(s);
}

static void run_traces(void)
{
	static const char *const traces[] = {
		"samples/f64_momentum.h5", "samples/f64_nesterov.h5", "samples/f64_adagrad.h5",
		"samples/f64_rmsprop.h5", "samples/f64_adam.h5", "samples/f64_adamw.h5",
		"samples/bf16_momentum.h5", "samples/bf16_adagrad.h5", "samples/bf16_rmsprop.h5",
		"samples/bf16_adam.h5", "samples/bf16_adamw.h5",
		"samples/f16_momentum.h5", "samples/f16_nesterov.h5",
	};

	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		trace_path = traces[i];
		check_run(traces[i], test_trace);
	}
}

/* ---- hand-checked roundings (each also checked in torch 1.13) ---------- */

static int eqf(float a, float b)
{
	return !memcmp(&a, &b, sizeof(a));
}

/*
 * bf16 SGD lr=0.1 on θ = 0.5, g = 5: alpha = bf16(-0.1) = -0.10009765625.
 * Vectorized loop: fma in float, 0.5 - 0.50048828125 = -2^-11 exactly;
 * scalar loop: alpha * g rounds to bf16 first (0.50048828125 -> 0.5), 0.
 */
static void test_bf16_loops(void)
{
	const struct gt_optim o = { .kind = GT_OPT_SGD, .lr = 0.1, .have = GT_HP_LR };
	float p[33], g[33], out[33];

	for (int i = 0; i < 33; i++) {
		p[i] = 0.5f;
		g[i] = 5.0f;
	}
	CHECK(gt_optim_vec_end(GT_DT_BF16, 0, 33, 33) == 32);
	CHECK(gt_optim_vec_end(GT_DT_BF16, 32, 33, 1) == 0);
	CHECK(gt_optim_vec_end(GT_DT_BF16, 16, 100, 50) == 50);
	CHECK(gt_optim_vec_end(GT_DT_BF16, 80, 100, 20) == 16);
	CHECK(gt_optim_vec_end(GT_DT_F16, 0, 33, 33) == 33);
	CHECK_RC(gt_optim_step_dt(&o, GT_DT_BF16, 33, 32, g, p, NULL, NULL, out, NULL, NULL), 0);
	CHECK(eqf(out[0], -0x1p-11f) && eqf(out[31], -0x1p-11f) && eqf(out[32], 0.0f));
	/* a value that is not a bf16 is rounded first: 0.5 + 2^-10 -> 0.5 */
	p[0] = 0.5f + 0x1p-10f;
	CHECK_RC(gt_optim_step_dt(&o, GT_DT_BF16, 1, 1, g, p, NULL, NULL, out, NULL, NULL), 0);
	CHECK(eqf(out[0], -0x1p-11f));
}

/*
 * f16 SGD lr=0.1 (alpha = f16(-0.1) = -0.0999755859375), every value on
 * the scalar loop: θ' = R(θ + R(alpha * g)).
 *	θ = 1, g = 1:      R(1 - 0.0999755859375) = 0.89990234375
 *	θ = 0, g = 2^-23:  alpha * g rounds to -0 (below half of 2^-24): +0
 *	θ = 1, g = 65504:  R(-6548.8) = -6548, R(1 - 6548) = -6548
 *	θ = 65504, g = -2^13 (lr 1): 65504 + 8192 rounds to Inf
 */
static void test_f16_rounding(void)
{
	struct gt_optim o = { .kind = GT_OPT_SGD, .lr = 0.1, .have = GT_HP_LR };
	const float p[3] = { 1.0f, 0.0f, 1.0f }, g[3] = { 1.0f, 0x1p-23f, 65504.0f };
	float out[3];

	CHECK_RC(gt_optim_step_dt(&o, GT_DT_F16, 3, 3, g, p, NULL, NULL, out, NULL, NULL), 0);
	CHECK(eqf(out[0], 0.89990234375f) && eqf(out[1], 0.0f) && eqf(out[2], -6548.0f));
	o.lr = 1;
	CHECK_RC(gt_optim_step_dt(&o, GT_DT_F16, 1, 1, &(float){ -0x1p13f },
				  &(float){ 65504.0f }, NULL, NULL, out, NULL, NULL), 0);
	CHECK(isinf(out[0]) && out[0] > 0);
}

/*
 * f64: fma, as in float32.  θ = -2^-30, g = -(2^-30 + 2^-60), lr = 1 + 2^-30:
 * -lr g = 2^-30 + 2^-59 + 2^-90 exactly, so θ' = 2^-59 + 2^-90; a product
 * rounded first (60 bits) would lose the 2^-90 and give 2^-59.
 */
static void test_f64_fma(void)
{
	const struct gt_optim o = { .kind = GT_OPT_SGD, .lr = 1 + 0x1p-30,
				    .have = GT_HP_LR };
	const double p = -0x1p-30, g = -(0x1p-30 + 0x1p-60), want = 0x1p-59 + 0x1p-90;
	double out;

	CHECK_RC(gt_optim_step_dt(&o, GT_DT_F64, 1, 1, &g, &p, NULL, NULL, &out, NULL, NULL), 0);
	CHECK(!memcmp(&out, &want, sizeof(out)));
}

static void test_refusals(void)
{
	const struct gt_optim adam = { .kind = GT_OPT_ADAM, .lr = 1e-3, .beta1 = 0.9,
				       .beta2 = 0.999, .eps = 1e-8, .t = 1 };
	const struct gt_optim mom = { .kind = GT_OPT_MOMENTUM, .lr = 0.1, .momentum = 0.9 };
	struct gt_diag d = { "" };
	float x = 1, out;

	CHECK_RC(gt_optim_dtype_check(&adam, GT_DT_F16, "step /step_000001", &d),
		 GT_ERR(UNSUPPORTED));
	CHECK(!strcmp(d.msg, "step /step_000001: adam cannot step f16 values (PyTorch 1.13 "
			     "has no float16 addcmul on the CPU)"));
	CHECK_RC(gt_optim_step_dt(&adam, GT_DT_F16, 1, 1, &x, &x, NULL, NULL, &out, NULL, NULL),
		 GT_ERR(UNSUPPORTED));
	CHECK_RC(gt_optim_dtype_check(&adam, GT_DT_BF16, "x", &d), 0);
	CHECK_RC(gt_optim_dtype_check(&mom, GT_DT_F16, "x", &d), 0);
	CHECK_RC(gt_optim_dtype_check(&mom, GT_DT_NONE, "x", &d), GT_ERR(TYPE));
	CHECK_RC(gt_optim_step_dt(&mom, GT_DT_NONE, 1, 1, &x, &x, NULL, NULL, &out, NULL, NULL),
		 GT_ERR(TYPE));
}

static void test_compare_dt(void)
{
	const float a[3] = { 1.0f, -2.0f, 0.0f }, bb[3] = { 1.0078125f, -2.0f, -0.0f };
	const float h[2] = { 1.0f, 1.0f + 0x1p-10f };
	const double x[2] = { 1.0, -3.0 }, y[2] = { 1.0 + 0x1p-52, -3.0 };
	uint64_t same = 0, ulp = 0;
	double rel = 0;

	CHECK_RC(gt_optim_compare_dt(GT_DT_BF16, 3, a, bb, &same, &ulp, &rel), 0);
	CHECK(same == 1 && ulp == 1 && rel > 0.0078 && rel < 0.0079);
	CHECK_RC(gt_optim_compare_dt(GT_DT_F16, 1, h, h + 1, &same, &ulp, &rel), 0);
	CHECK(same == 0 && ulp == 1);
	CHECK_RC(gt_optim_compare_dt(GT_DT_F64, 2, x, y, &same, &ulp, &rel), 0);
	CHECK(same == 1 && ulp == 1);
	CHECK_RC(gt_optim_compare_dt(GT_DT_F32, 3, a, bb, &same, &ulp, &rel), 0);
	CHECK(same == 1 && ulp == 65536);
}

/* δ of f64 values sees θ unrounded: SGD, δ = θ/(ηg) with θ = 1 + 2^-40 */
static void test_delta_f64(void)
{
	const struct gt_optim o = { .kind = GT_OPT_SGD, .lr = 0.5, .have = GT_HP_LR };
	const double th = 1 + 0x1p-40, g = 1;
	double dl = 0;

	CHECK_RC(gt_optim_delta_dt(&o, GT_DT_F64, 1, &g, &th, NULL, NULL, &dl), 0);
	CHECK(dl > 2 && dl < 2 + 0x1p-38);
	CHECK_RC(gt_optim_delta_dt(&o, GT_DT_NONE, 1, &g, &th, NULL, NULL, &dl), GT_ERR(TYPE));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	run_traces();
	RUN(test_bf16_loops);
	RUN(test_f16_rounding);
	RUN(test_f64_fma);
	RUN(test_refusals);
	RUN(test_compare_dt);
	RUN(test_delta_f64);
	return check_done("test_optim_dtype");
}
