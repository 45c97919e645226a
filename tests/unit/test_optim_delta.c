/* test_optim_delta.c - GComp's δ (gt_optim_delta) against values worked by hand */
#include <math.h>
#include <string.h>

#include "check.h"
#include "../../lib/gt_optim.h"

/*
 * Every optimizer, with and without weight decay, on float32 inputs and
 * hyper-parameters chosen so that each step below is exact in binary
 * (dyadic values, square roots of perfect squares): δ must come out
 * exactly.  Common values: θ = 3, g = 0.5, η = 0.5, and where used
 * λ = 0.125 (so λθ/g = 0.375/0.5 = 0.75), μ = 0.5, τ = 0.5, α = 0.75,
 * β1 = 0.5, β2 = 0.75, t = 2 (so 1 − β1^t = 0.75, 1 − β2^t = 0.4375),
 * λ_lr = 1 (AdaGrad: η̃ = η/(1 + (t−1)λ_lr) = 0.25), ε = 0 unless said.
 * The formulas are those of the GComp paper's Table 2 / Appendix A with
 * PyTorch's weight decay (gt_optim.h); d = g + λθ (0.5, or 0.875 with λ,
 * d² = 0.25 or 0.765625).
 *
 * SGD       δ = θ/(ηg) − λθ/g
 *   λ=0:    3/(0.5·0.5) = 12
 *   λ:      12 − 0.75 = 11.25
 * Momentum  δ = (θ − ημb)/(η(1−τ)g) − λθ/g, b = 1
 *   λ=0:    (3 − 0.5·0.5·1)/(0.5·0.5·0.5) = 2.75/0.125 = 22
 *   λ:      22 − 0.75 = 21.25
 *   no buffer (first step, PyTorch's b_1 = d): the SGD values, 12, 11.25
 * Nesterov  δ = ((1 − ηλ(1+μ))θ − ημ²b)/(η(1+μ)g), b = 3
 *   λ=0:    (3 − 0.5·0.25·3)/(0.5·1.5·0.5) = 2.625/0.375 = 7
 *   λ:      ((1 − 0.5·0.125·1.5)·3 − 0.375)/0.375 = (2.71875 − 0.375)/0.375 = 6.25
 * AdaGrad   δ = θ(√r_t + ε)/(η̃g) − λθ/g, r_t = r + d²
 *   λ=0, r = 0.75:      r_t = 1, 3·1/(0.25·0.5) = 24
 *   λ=0, r = 0.75, ε = 0.5: 3·1.5/0.125 = 36
 *   λ, r = 1.484375:    r_t = 2.25, 3·1.5/0.125 − 0.75 = 35.25
 * RMSProp   δ = θ(√v_t + ε)/(ηg) − λθ/g, v_t = αv + (1−α)d²
 *   λ=0, v = 0.25:      v_t = 0.1875 + 0.0625 = 0.25, 3·0.5/0.25 = 6
 *   λ, v = 1.078125:    v_t = 0.80859375 + 0.19140625 = 1, 3/0.25 − 0.75 = 11.25
 * Adam      δ = (θ(√v̂_t + ε)(1−β1^t) − ηβ1m)/(η(1−β1)g) − λθ/g,
 *           v̂_t = v_t/(1−β2^t), v_t = β2v + (1−β2)d², m = 1 (ηβ1m = 0.25)
 *   λ=0, v = 0.5:       v_t = 0.375 + 0.0625 = 0.4375, v̂ = 1,
 *                       (3·1·0.75 − 0.25)/(0.5·0.5·0.5) = 2/0.125 = 16
 *   λ=0, v = 0.5, ε = 0.5: (3·1.5·0.75 − 0.25)/0.125 = 3.125/0.125 = 25
 *   λ, v = 2.078125:    v_t = 1.55859375 + 0.19140625 = 1.75, v̂ = 4,
 *                       (3·2·0.75 − 0.25)/0.125 − 0.75 = 34 − 0.75 = 33.25
 * AdamW     δ = (θ(1−ηλ)(√v̂_t + ε)(1−β1^t) − ηβ1m)/(η(1−β1)g),
 *           v_t = β2v + (1−β2)g² (no decay inside), m = 1
 *   λ=0, v = 0.5:       as Adam, 16
 *   λ, v = 0.5:         v̂ = 1, (3·0.9375·1·0.75 − 0.25)/0.125 = 1.859375/0.125 = 14.875
 *
 * A mutant that drops or shifts Adam's bias corrections (1 − β1^t, 1 − β2^t)
 * changes the Adam and AdamW rows: with 1 − β1^(t−1) = 0.5 the first is
 * (1.5 − 0.25)/0.125 = 10.
 */
struct dcase {
	const char *what;
	enum gt_optim_kind kind;
	double lam, eps;
	int state;       /* 0: no state (first step), else s0, s1 given */
	float s0, s1;
	double want;
};

static const struct dcase cases[] = {
	{ "sgd", GT_OPT_SGD, 0, 0, 0, 0, 0, 12 },
	{ "sgd wd", GT_OPT_SGD, 0.125, 0, 0, 0, 0, 11.25 },
	{ "momentum", GT_OPT_MOMENTUM, 0, 0, 1, 1, 0, 22 },
	{ "momentum wd", GT_OPT_MOMENTUM, 0.125, 0, 1, 1, 0, 21.25 },
	{ "momentum first", GT_OPT_MOMENTUM, 0, 0, 0, 0, 0, 12 },
	{ "momentum first wd", GT_OPT_MOMENTUM, 0.125, 0, 0, 0, 0, 11.25 },
	{ "nesterov", GT_OPT_NESTEROV, 0, 0, 1, 3, 0, 7 },
	{ "nesterov wd", GT_OPT_NESTEROV, 0.125, 0, 1, 3, 0, 6.25 },
	{ "adagrad", GT_OPT_ADAGRAD, 0, 0, 1, 0.75f, 0, 24 },
	{ "adagrad eps", GT_OPT_ADAGRAD, 0, 0.5, 1, 0.75f, 0, 36 },
	{ "adagrad wd", GT_OPT_ADAGRAD, 0.125, 0, 1, 1.484375f, 0, 35.25 },
	{ "rmsprop", GT_OPT_RMSPROP, 0, 0, 1, 0.25f, 0, 6 },
	{ "rmsprop wd", GT_OPT_RMSPROP, 0.125, 0, 1, 1.078125f, 0, 11.25 },
	{ "adam", GT_OPT_ADAM, 0, 0, 1, 1, 0.5f, 16 },
	{ "adam eps", GT_OPT_ADAM, 0, 0.5, 1, 1, 0.5f, 25 },
	{ "adam wd", GT_OPT_ADAM, 0.125, 0, 1, 1, 2.078125f, 33.25 },
	{ "adamw", GT_OPT_ADAMW, 0, 0, 1, 1, 0.5f, 16 },
	{ "adamw wd", GT_OPT_ADAMW, 0.125, 0, 1, 1, 0.5f, 14.875 },
};

static struct gt_optim optim(const struct dcase *c)
{
	struct gt_optim o;

	memset(&o, 0, sizeof(o));
	o.kind = c->kind;
	o.have = ~0u;
	o.lr = 0.5;
	o.weight_decay = c->lam;
	o.momentum = c->kind == GT_OPT_MOMENTUM || c->kind == GT_OPT_NESTEROV ? 0.5 : 0;
	o.dampening = c->kind == GT_OPT_MOMENTUM ? 0.5 : 0;
	o.nesterov = c->kind == GT_OPT_NESTEROV;
	o.alpha = 0.75;
	o.beta1 = 0.5;
	o.beta2 = 0.75;
	o.eps = c->eps;
	o.lr_decay = 1;
	o.t = 2;
	return o;
}

/* exact equality, without -Wfloat-equal */
static int same(double a, double b)
{
	return !(a < b) && !(a > b) && !isnan(a) && !isnan(b);
}

static void test_hand_worked(void)
{
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct dcase *c = &cases[k];
		const struct gt_optim o = optim(c);
		/* the row of the table and its mirror: with θ, g and the first
		 * moment or buffer negated every term flips sign, so δ stays */
		const float g[2] = { 0.5f, -0.5f }, th[2] = { 3, -3 };
		float s0[2] = { c->s0, -c->s0 }, s1[2] = { c->s1, c->s1 };
		double d[2];

		if (c->kind == GT_OPT_ADAGRAD || c->kind == GT_OPT_RMSPROP)
			s0[1] = c->s0; /* a sum of squares keeps its sign */
		CHECK_RC(gt_optim_delta(&o, 2, g, th, c->state ? s0 : NULL,
					c->state ? s1 : NULL, d), 0);
		if (!same(d[0], c->want) || !same(d[1], c->want)) {
			fprintf(stderr, "%s: δ = %.17g, %.17g, want %.17g\n", c->what, d[0], d[1],
				c->want);
			CHECK(0);
		}
	}
}

/* g = 0: +Inf (nothing to truncate); a NaN anywhere: NaN. */
static void test_special(void)
{
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct gt_optim o = optim(&cases[k]);
		const float g[4] = { 0.0f, -0.0f, NAN, 0.5f }, th[4] = { 3, 3, 3, NAN };
		const float s0[4] = { 1, 1, 1, 1 }, s1[4] = { 0.5f, 0.5f, 0.5f, 0.5f };
		double d[4];

		CHECK_RC(gt_optim_delta(&o, 4, g, th, s0, s1, d), 0);
		CHECK(isinf(d[0]) && d[0] > 0 && isinf(d[1]) && d[1] > 0);
		CHECK(isnan(d[2]) && isnan(d[3]));
	}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_hand_worked);
	RUN(test_special);
	return check_done("test_optim_delta");
}
