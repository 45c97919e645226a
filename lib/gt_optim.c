/* gt_optim.c - optimizer steps as PyTorch computes them, GComp's metric δ */

/*
 * Bit-exact float32 needs every rounding where PyTorch rounds: fmaf() where
 * PyTorch's CPU kernels fuse (samples/check_steps.py lists which), and no
 * other contraction.  gcc contracts a*b+c into an FMA by default only in
 * the GNU dialects; the project builds with -std=c11 (-ffp-contract=off),
 * and the pragmas below keep it so under other flags.  FLT_EVAL_METHOD must
 * be 0 (SSE, not x87), which the step test checks against the traces.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "gt_optim.h"
#include "banned.h"

static const char *const optim_names[] = {
	[GT_OPT_NONE] = "none", [GT_OPT_SGD] = "sgd", [GT_OPT_MOMENTUM] = "momentum",
	[GT_OPT_NESTEROV] = "nesterov", [GT_OPT_ADAGRAD] = "adagrad",
	[GT_OPT_RMSPROP] = "rmsprop", [GT_OPT_ADAM] = "adam", [GT_OPT_ADAMW] = "adamw",
};

const char *gt_optim_name(enum gt_optim_kind k)
{
	if ((unsigned)k >= sizeof(optim_names) / sizeof(optim_names[0]))
		return NULL;
	return optim_names[k];
}

enum gt_optim_kind gt_optim_parse(const char *s)
{
	for (unsigned k = GT_OPT_SGD; k <= GT_OPT_ADAMW; k++)
		if (!strcasecmp(s, optim_names[k]))
			return (enum gt_optim_kind)k;
	return GT_OPT_NONE;
}

static int known(enum gt_optim_kind k)
{
	return k >= GT_OPT_SGD && k <= GT_OPT_ADAMW;
}

int gt_optim_nstates(enum gt_optim_kind k)
{
	switch (k) {
	case GT_OPT_MOMENTUM:
	case GT_OPT_NESTEROV:
	case GT_OPT_ADAGRAD:
	case GT_OPT_RMSPROP:
		return 1;
	case GT_OPT_ADAM:
	case GT_OPT_ADAMW:
		return 2;
	case GT_OPT_NONE:
	case GT_OPT_SGD:
		break;
	}
	return 0;
}

const char *gt_optim_state_name(enum gt_optim_kind k, int i)
{
	if (i < 0 || i >= gt_optim_nstates(k))
		return NULL;
	switch (k) {
	case GT_OPT_MOMENTUM:
	case GT_OPT_NESTEROV:
		return "momentum_buffer";
	case GT_OPT_ADAGRAD:
		return "sum";
	case GT_OPT_RMSPROP:
		return "square_avg";
	case GT_OPT_ADAM:
	case GT_OPT_ADAMW:
		return i ? "exp_avg_sq" : "exp_avg";
	case GT_OPT_NONE:
	case GT_OPT_SGD:
		break;
	}
	return NULL;
}

/* ---- checking ---------------------------------------------------------- */

const struct gt_optim_hp gt_optim_hps[GT_OPTIM_NHP] = {
	{ "lr", GT_HP_LR, offsetof(struct gt_optim, lr) },
	{ "momentum", GT_HP_MOMENTUM, offsetof(struct gt_optim, momentum) },
	{ "dampening", GT_HP_DAMPENING, offsetof(struct gt_optim, dampening) },
	{ "weight_decay", GT_HP_WEIGHT_DECAY, offsetof(struct gt_optim, weight_decay) },
	{ "beta1", GT_HP_BETA1, offsetof(struct gt_optim, beta1) },
	{ "beta2", GT_HP_BETA2, offsetof(struct gt_optim, beta2) },
	{ "eps", GT_HP_EPS, offsetof(struct gt_optim, eps) },
	{ "alpha", GT_HP_ALPHA, offsetof(struct gt_optim, alpha) },
	{ "lr_decay", GT_HP_LR_DECAY, offsetof(struct gt_optim, lr_decay) },
};

double gt_optim_hp_get(const struct gt_optim *o, const struct gt_optim_hp *h)
{
	double v;

	memcpy(&v, (const char *)o + h->off, sizeof(v));
	return v;
}

void gt_optim_hp_set(struct gt_optim *o, const struct gt_optim_hp *h, double v)
{
	memcpy((char *)o + h->off, &v, sizeof(v));
	o->have |= h->bit;
}

static int nonzero(double v)
{
	return v > 0 || v < 0 || isnan(v);
}

static int nonneg(double v)
{
	return v >= 0 && isfinite(v);
}

/* What is wrong with @o's values, or NULL; *rc the code. */
static const char *bad_value(const struct gt_optim *o, int *rc)
{
	const enum gt_optim_kind k = o->kind;
	const int adam = k == GT_OPT_ADAM || k == GT_OPT_ADAMW;

	*rc = GT_ERR(UNSUPPORTED);
	if (o->amsgrad)
		return "amsgrad is not supported";
	if (o->centered)
		return "centered RMSProp is not supported";
	if (o->maximize)
		return "maximize is not supported";
	*rc = GT_ERR(INVAL);
	if (!(o->lr > 0) || !isfinite(o->lr))
		return "lr must be positive";
	if (!nonneg(o->weight_decay))
		return "weight_decay must not be negative";
	if (k == GT_OPT_SGD && nonzero(o->momentum))
		return "sgd with momentum must be of kind momentum";
	if ((k == GT_OPT_MOMENTUM || k == GT_OPT_NESTEROV) &&
	    (!(o->momentum > 0) || !isfinite(o->momentum)))
		return "momentum must be positive";
	if (!isfinite(o->dampening))
		return "dampening must be finite";
	if (k == GT_OPT_NESTEROV && nonzero(o->dampening))
		return "nesterov needs dampening 0";
	if (adam && !(o->beta1 >= 0 && o->beta1 < 1))
		return "beta1 must be in [0, 1)";
	if (adam && !(o->beta2 >= 0 && o->beta2 < 1))
		return "beta2 must be in [0, 1)";
	if (k >= GT_OPT_ADAGRAD && !nonneg(o->eps))
		return "eps must not be negative";
	if (k == GT_OPT_RMSPROP && !(o->alpha >= 0 && o->alpha <= 1))
		return "alpha must be in [0, 1]";
	if (k == GT_OPT_ADAGRAD && !nonneg(o->lr_decay))
		return "lr_decay must not be negative";
	if ((adam || k == GT_OPT_ADAGRAD) && o->t < 1)
		return "step must be positive";
	*rc = GT_ERR(UNSUPPORTED);
	if (k == GT_OPT_RMSPROP && nonzero(o->momentum))
		return "rmsprop with momentum is not supported";
	return NULL;
}

int gt_optim_check(const struct gt_optim *o, const char *where, struct gt_diag *d)
{
	static const unsigned need[] = {
		[GT_OPT_NONE] = 0,
		[GT_OPT_SGD] = GT_HP_LR,
		[GT_OPT_MOMENTUM] = GT_HP_LR | GT_HP_MOMENTUM,
		[GT_OPT_NESTEROV] = GT_HP_LR | GT_HP_MOMENTUM,
		[GT_OPT_ADAGRAD] = GT_HP_LR | GT_HP_EPS,
		[GT_OPT_RMSPROP] = GT_HP_LR | GT_HP_ALPHA | GT_HP_EPS,
		[GT_OPT_ADAM] = GT_HP_LR | GT_HP_BETA1 | GT_HP_BETA2 | GT_HP_EPS,
		[GT_OPT_ADAMW] = GT_HP_LR | GT_HP_BETA1 | GT_HP_BETA2 | GT_HP_EPS,
	};
	const char *why;
	int rc;

	if (!known(o->kind))
		return gt_diag_set(d, GT_ERR(NOTFOUND), "%s: attribute optimizer missing", where);
	for (size_t k = 0; k < GT_OPTIM_NHP; k++)
		if ((need[o->kind] & gt_optim_hps[k].bit) && !(o->have & gt_optim_hps[k].bit))
			return gt_diag_set(d, GT_ERR(NOTFOUND), "%s: attribute %s missing",
					   where, gt_optim_hps[k].name);
	why = bad_value(o, &rc);
	if (why)
		return gt_diag_set(d, rc, "%s: %s", where, why);
	return 0;
}

/* ---- the step ------------------------------------------------------------ */

/*
 * SGD, momentum, Nesterov (torch.optim.sgd._single_tensor_sgd):
 *	d   = fma(p, f32(wd), g)                  if wd != 0, else g
 *	buf = d                                   first step (no buffer)
 *	buf = fma(d, f32(1 - dampening), buf * f32(momentum))   later steps
 *	d   = fma(buf, f32(momentum), d) if nesterov else buf
 *	p'  = fma(d, f32(-lr), p)
 */
static void step_sgd(const struct gt_optim *o, size_t n, const float *g,
		     const float *p, const float *buf, float *p_out, float *buf_out)
{
	const int has_wd = nonzero(o->weight_decay);
	const int use_buf = o->kind != GT_OPT_SGD;
	const int nest = o->kind == GT_OPT_NESTEROV;
	const float wd = (float)o->weight_decay;
	const float mom = (float)o->momentum;
	const float damp1 = (float)(1 - o->dampening);
	const float neg_lr = (float)-o->lr;

	for (size_t i = 0; i < n; i++) {
		const float pi = p[i];
		float d = has_wd ? fmaf(pi, wd, g[i]) : g[i];

		if (use_buf) {
			const float b = buf ? fmaf(d, damp1, buf[i] * mom) : d;

			if (buf_out)
				buf_out[i] = b;
			d = nest ? fmaf(b, mom, d) : b;
		}
		if (p_out)
			p_out[i] = fmaf(d, neg_lr, pi);
	}
}

/*
 * AdaGrad (_single_tensor_adagrad; the sum starts at
 * initial_accumulator_value, 0 here when absent):
 *	d   = fma(p, f32(wd), g)                  if wd != 0, else g
 *	clr = lr / (1 + (t - 1) * lr_decay)       in double
 *	sum = fma(d, d, sum)                      (addcmul_ value=1)
 *	p'  = p + (f32(-clr) * d) / (sqrt(sum) + f32(eps))   (addcdiv_)
 */
static void step_adagrad(const struct gt_optim *o, size_t n, const float *g,
			 const float *p, const float *sum, float *p_out, float *sum_out)
{
	const int has_wd = nonzero(o->weight_decay);
	const float wd = (float)o->weight_decay;
	const double clr = o->lr / (1 + ((double)o->t - 1) * o->lr_decay);
	const float neg_clr = (float)-clr;
	const float eps = (float)o->eps;

	for (size_t i = 0; i < n; i++) {
		const float pi = p[i];
		const float d = has_wd ? fmaf(pi, wd, g[i]) : g[i];
		const float s = fmaf(d, d, sum ? sum[i] : 0.0f);

		if (sum_out)
			sum_out[i] = s;
		if (p_out)
			p_out[i] = pi + (neg_clr * d) / (sqrtf(s) + eps);
	}
}

/*
 * RMSProp, not centered, no momentum (_single_tensor_rmsprop):
 *	d  = fma(p, f32(wd), g)                   if wd != 0, else g
 *	sq = fma(d * f32(1 - alpha), d, sq * f32(alpha))
 *	p' = p + (f32(-lr) * d) / (sqrt(sq) + f32(eps))
 */
static void step_rmsprop(const struct gt_optim *o, size_t n, const float *g,
			 const float *p, const float *sq, float *p_out, float *sq_out)
{
	const int has_wd = nonzero(o->weight_decay);
	const float wd = (float)o->weight_decay;
	const float alpha = (float)o->alpha;
	const float one_alpha = (float)(1 - o->alpha);
	const float neg_lr = (float)-o->lr;
	const float eps = (float)o->eps;

	for (size_t i = 0; i < n; i++) {
		const float pi = p[i];
		const float d = has_wd ? fmaf(pi, wd, g[i]) : g[i];
		const float v = fmaf(d * one_alpha, d, (sq ? sq[i] : 0.0f) * alpha);

		if (sq_out)
			sq_out[i] = v;
		if (p_out)
			p_out[i] = pi + (neg_lr * d) / (sqrtf(v) + eps);
	}
}

/*
 * Adam / AdamW (_single_tensor_adam, _single_tensor_adamw; moments start
 * at zero):
 *	AdamW: p = p * f32(1 - lr*wd)     Adam: g = fma(p, f32(wd), g) if wd
 *	m   = fma(g, f32(1 - b1), m * f32(b1))
 *	v   = fma(g * f32(1 - b2), g, v * f32(b2))
 *	den = sqrt(v) / f32(sqrt(1 - b2^t)) + f32(eps)
 *	p'  = p + (f32(-(lr / (1 - b1^t))) * m) / den
 */
static void step_adam(const struct gt_optim *o, size_t n, const float *g,
		      const float *p, const float *m0, const float *v0,
		      float *p_out, float *m_out, float *v_out)
{
	const int adamw = o->kind == GT_OPT_ADAMW;
	const int has_wd = nonzero(o->weight_decay);
	const float wd = (float)o->weight_decay;
	const float decay = (float)(1 - o->lr * o->weight_decay);
	const float b1 = (float)o->beta1, one_b1 = (float)(1 - o->beta1);
	const float b2 = (float)o->beta2, one_b2 = (float)(1 - o->beta2);
	const float bc2_sqrt = (float)sqrt(1 - pow(o->beta2, (double)o->t));
	const float neg_step = (float)-(o->lr / (1 - pow(o->beta1, (double)o->t)));
	const float eps = (float)o->eps;

	for (size_t i = 0; i < n; i++) {
		float pi = p[i], gi = g[i], m, v;

		if (adamw)
			pi = pi * decay;
		else if (has_wd)
			gi = fmaf(pi, wd, gi);
		m = fmaf(gi, one_b1, (m0 ? m0[i] : 0.0f) * b1);
		v = fmaf(gi * one_b2, gi, (v0 ? v0[i] : 0.0f) * b2);
		if (m_out)
			m_out[i] = m;
		if (v_out)
			v_out[i] = v;
		if (p_out)
			p_out[i] = pi + (neg_step * m) / (sqrtf(v) / bc2_sqrt + eps);
	}
}

int gt_optim_step(const struct gt_optim *o, size_t n, const float *g,
		  const float *param, const float *s0, const float *s1,
		  float *param_out, float *s0_out, float *s1_out)
{
	if (!o || !known(o->kind) || (n && (!g || !param)))
		return GT_ERR(INVAL);
	if (o->kind == GT_OPT_RMSPROP && nonzero(o->momentum))
		return GT_ERR(UNSUPPORTED);
	switch (o->kind) {
	case GT_OPT_SGD:
	case GT_OPT_MOMENTUM:
	case GT_OPT_NESTEROV:
		step_sgd(o, n, g, param, s0, param_out, s0_out);
		break;
	case GT_OPT_ADAGRAD:
		step_adagrad(o, n, g, param, s0, param_out, s0_out);
		break;
	case GT_OPT_RMSPROP:
		step_rmsprop(o, n, g, param, s0, param_out, s0_out);
		break;
	case GT_OPT_ADAM:
	case GT_OPT_ADAMW:
		step_adam(o, n, g, param, s0, s1, param_out, s0_out, s1_out);
		break;
	case GT_OPT_NONE:
		return GT_ERR(INVAL);
	}
	return 0;
}

/* ---- steps in float64, bfloat16 and float16 -------------------------------
 *
 * float64 (found against samples/f64_*.h5): the float32 recipes above with
 * every operation in double, fma() where float32 has fmaf(), and the
 * hyper-parameters not rounded to float.
 *
 * bfloat16 and float16 (PyTorch 1.13's CPU kernels; found op by op against
 * torch, then checked against samples/bf16_*.h5 and f16_*.h5): each tensor
 * operation computes in float and rounds its result to the dtype, R()
 * below.  Scalars: alpha of add(), and the scalar of mul(), div() and
 * add(), are rounded to the dtype (S(), through float: R(f32(s))); the
 * value of addcmul() and addcdiv() is f32(v), not rounded further.
 *	add(x, y, alpha=a)     bf16, vectorized loop: R(fma(y, S(a), x))
 *	                       bf16, the last n % 32 values of a tensor, and
 *	                       f16 everywhere: R(x + R(S(a) * y))
 *	mul(x, s), div(x, s), add(x, s):   R(x * S(s)), R(x / S(s)), R(x + S(s))
 *	sqrt(x)                R(sqrt(x))
 *	addcmul(x, y, z, v)    R(fma(f32(v) * y, z, x))        (bf16 only)
 *	addcdiv(x, y, z, v)    R(x + (f32(v) * y) / z)         (bf16 only)
 * with the operations of the float32 recipe in the same order: SGD's
 * d_p.add(param, alpha=wd), buf.mul_(momentum).add_(d_p, alpha=1 - damp),
 * d_p.add(buf, alpha=momentum), param.add_(d_p, alpha=-lr); AdaGrad's
 * sum.addcmul_(g, g, value=1), sum.sqrt().add_(eps),
 * param.addcdiv_(g, std, value=-clr); RMSProp's
 * sa.mul_(alpha).addcmul_(g, g, value=1 - alpha); Adam's
 * m.mul_(b1).add_(g, alpha=1 - b1), v.mul_(b2).addcmul_(g, g, value=1 - b2),
 * (v.sqrt() / bc2_sqrt).add_(eps), param.addcdiv_(m, den, value=-step);
 * AdamW's param.mul_(1 - lr * wd) first.  float16 has no CPU addcmul or
 * sqrt in 1.13: only the SGD family steps it.
 */

/* @x rounded to the nearest bfloat16 (ties to even), as a float. */
static inline float round_bf16(float x)
{
	uint32_t u;

	memcpy(&u, &x, sizeof(u));
	if (isnan(x))
		u = (u | UINT32_C(0x400000)) & UINT32_C(0xffff0000);
	else
		u = (u + UINT32_C(0x7fff) + (u >> 16 & 1)) & UINT32_C(0xffff0000);
	memcpy(&x, &u, sizeof(u));
	return x;
}

/* The binary16 pattern nearest to @x (ties to even). */
static uint16_t f16_bits(float x)
{
	uint32_t u, a;
	uint16_t sign;

	memcpy(&u, &x, sizeof(u));
	sign = (uint16_t)(u >> 16 & 0x8000);
	a = u & UINT32_C(0x7fffffff);
	if (a > UINT32_C(0x7f800000))
		return sign | 0x7e00 | (uint16_t)(a >> 13 & 0x1ff);
	if (a >= UINT32_C(0x477ff000)) /* 65520 and up round to Inf */
		return sign | 0x7c00;
	if (a < UINT32_C(0x38800000)) /* below 2^-14: multiples of 2^-24 */
		return sign | (uint16_t)nearbyintf(fabsf(x) * 0x1p24f);
	a += UINT32_C(0xfff) + (a >> 13 & 1);
	return sign | (uint16_t)((a - (UINT32_C(112) << 23)) >> 13);
}

/* @x rounded to the nearest float16 (ties to even), as a float: f16_bits()
 * without the round trip.  Below 2^-14 the quantum is 2^-24: t + 2^23 - 2^23
 * rounds t < 2^23 to an integer, to even (the default rounding mode). */
static inline float round_f16(float x)
{
	uint32_t u, a;

	memcpy(&u, &x, sizeof(u));
	a = u & UINT32_C(0x7fffffff);
	if (a > UINT32_C(0x7f800000))
		return x;
	if (a >= UINT32_C(0x477ff000))
		return copysignf(INFINITY, x);
	if (a < UINT32_C(0x38800000)) {
		const float t = fabsf(x) * 0x1p24f;

		return copysignf(((t + 0x1p23f) - 0x1p23f) * 0x1p-24f, x);
	}
	u = (u + UINT32_C(0xfff) + (u >> 13 & 1)) & ~UINT32_C(0x1fff);
	memcpy(&x, &u, sizeof(u));
	return x;
}

struct lp {
	int bf16; /* else float16 */
	size_t vec_end;
};

static inline float R(const struct lp *c, float x)
{
	return c->bf16 ? round_bf16(x) : round_f16(x);
}

static float S(const struct lp *c, double s)
{
	return R(c, (float)s);
}

/* add(x, y, alpha=a) of value @i, @a = S(alpha) */
static float lp_add(const struct lp *c, size_t i, float x, float a, float y)
{
	if (c->bf16 && i < c->vec_end)
		return round_bf16(fmaf(y, a, x));
	return R(c, x + R(c, a * y));
}

static float lp_in(const struct lp *c, const float *v, size_t i)
{
	return v ? R(c, v[i]) : 0.0f;
}

static void lp_sgd(const struct gt_optim *o, const struct lp *c, size_t n, const float *g,
		   const float *p, const float *buf, float *p_out, float *buf_out)
{
	const int has_wd = nonzero(o->weight_decay);
	const int use_buf = o->kind != GT_OPT_SGD;
	const int nest = o->kind == GT_OPT_NESTEROV;
	const float wd = S(c, o->weight_decay), mom = S(c, o->momentum);
	const float damp1 = S(c, 1 - o->dampening), neg_lr = S(c, -o->lr);

	for (size_t i = 0; i < n; i++) {
		const float pi = R(c, p[i]);
		float d = R(c, g[i]);

		if (has_wd)
			d = lp_add(c, i, d, wd, pi);
		if (use_buf) {
			const float b = buf ? lp_add(c, i, R(c, R(c, buf[i]) * mom), damp1, d) : d;

			if (buf_out)
				buf_out[i] = b;
			d = nest ? lp_add(c, i, d, mom, b) : b;
		}
		if (p_out)
			p_out[i] = lp_add(c, i, pi, neg_lr, d);
	}
}

/* AdaGrad (@is_rms 0) and RMSProp, bf16 */
static void lp_root(const struct gt_optim *o, const struct lp *c, size_t n, const float *g,
		    const float *p, const float *sq, float *p_out, float *sq_out)
{
	const int rms = o->kind == GT_OPT_RMSPROP;
	const int has_wd = nonzero(o->weight_decay);
	const float wd = S(c, o->weight_decay), eps = S(c, o->eps);
	const float alpha = S(c, o->alpha), one_alpha = (float)(1 - o->alpha);
	const double clr = rms ? o->lr : o->lr / (1 + ((double)o->t - 1) * o->lr_decay);
	const float neg_lr = (float)-clr;

	for (size_t i = 0; i < n; i++) {
		const float pi = R(c, p[i]);
		const float d = has_wd ? lp_add(c, i, R(c, g[i]), wd, pi) : R(c, g[i]);
		const float s0 = lp_in(c, sq, i);
		const float v = rms ? R(c, fmaf(one_alpha * d, d, R(c, s0 * alpha)))
				    : R(c, fmaf(d, d, s0));

		if (sq_out)
			sq_out[i] = v;
		if (p_out)
			p_out[i] = R(c, pi + (neg_lr * d) / R(c, R(c, sqrtf(v)) + eps));
	}
}

static void lp_adam(const struct gt_optim *o, const struct lp *c, size_t n, const float *g,
		    const float *p, const float *m0, const float *v0,
		    float *p_out, float *m_out, float *v_out)
{
	const int adamw = o->kind == GT_OPT_ADAMW;
	const int has_wd = nonzero(o->weight_decay);
	const float wd = S(c, o->weight_decay), decay = S(c, 1 - o->lr * o->weight_decay);
	const float b1 = S(c, o->beta1), one_b1 = S(c, 1 - o->beta1);
	const float b2 = S(c, o->beta2), one_b2 = (float)(1 - o->beta2);
	const float bc2_sqrt = S(c, sqrt(1 - pow(o->beta2, (double)o->t)));
	const float neg_step = (float)-(o->lr / (1 - pow(o->beta1, (double)o->t)));
	const float eps = S(c, o->eps);

	for (size_t i = 0; i < n; i++) {
		float pi = R(c, p[i]), gi = R(c, g[i]), m, v, den;

		if (adamw)
			pi = R(c, pi * decay);
		else if (has_wd)
			gi = lp_add(c, i, gi, wd, pi);
		m = lp_add(c, i, R(c, lp_in(c, m0, i) * b1), one_b1, gi);
		v = R(c, fmaf(one_b2 * gi, gi, R(c, lp_in(c, v0, i) * b2)));
		if (m_out)
			m_out[i] = m;
		if (v_out)
			v_out[i] = v;
		den = R(c, R(c, R(c, sqrtf(v)) / bc2_sqrt) + eps);
		if (p_out)
			p_out[i] = R(c, pi + (neg_step * m) / den);
	}
}

/* float64: the float32 steps above in double */
static void f64_sgd(const struct gt_optim *o, size_t n, const double *g, const double *p,
		    const double *buf, double *p_out, double *buf_out)
{
	const int has_wd = nonzero(o->weight_decay);
	const int use_buf = o->kind != GT_OPT_SGD;
	const int nest = o->kind == GT_OPT_NESTEROV;
	const double wd = o->weight_decay, mom = o->momentum;
	const double damp1 = 1 - o->dampening, neg_lr = -o->lr;

	for (size_t i = 0; i < n; i++) {
		const double pi = p[i];
		double d = has_wd ? fma(pi, wd, g[i]) : g[i];

		if (use_buf) {
			const double b = buf ? fma(d, damp1, buf[i] * mom) : d;

			if (buf_out)
				buf_out[i] = b;
			d = nest ? fma(b, mom, d) : b;
		}
		if (p_out)
			p_out[i] = fma(d, neg_lr, pi);
	}
}

static void f64_root(const struct gt_optim *o, size_t n, const double *g, const double *p,
		     const double *sq, double *p_out, double *sq_out)
{
	const int rms = o->kind == GT_OPT_RMSPROP;
	const int has_wd = nonzero(o->weight_decay);
	const double wd = o->weight_decay, eps = o->eps;
	const double alpha = o->alpha, one_alpha = 1 - o->alpha;
	const double neg_lr = rms ? -o->lr : -(o->lr / (1 + ((double)o->t - 1) * o->lr_decay));

	for (size_t i = 0; i < n; i++) {
		const double pi = p[i];
		const double d = has_wd ? fma(pi, wd, g[i]) : g[i];
		const double s0 = sq ? sq[i] : 0.0;
		const double v = rms ? fma(d * one_alpha, d, s0 * alpha) : fma(d, d, s0);

		if (sq_out)
			sq_out[i] = v;
		if (p_out)
			p_out[i] = pi + (neg_lr * d) / (sqrt(v) + eps);
	}
}

static void f64_adam(const struct gt_optim *o, size_t n, const double *g, const double *p,
		     const double *m0, const double *v0, double *p_out, double *m_out,
		     double *v_out)
{
	const int adamw = o->kind == GT_OPT_ADAMW;
	const int has_wd = nonzero(o->weight_decay);
	const double wd = o->weight_decay, decay = 1 - o->lr * o->weight_decay;
	const double b1 = o->beta1, one_b1 = 1 - o->beta1;
	const double b2 = o->beta2, one_b2 = 1 - o->beta2;
	const double bc2_sqrt = sqrt(1 - pow(o->beta2, (double)o->t));
	const double neg_step = -(o->lr / (1 - pow(o->beta1, (double)o->t)));
	const double eps = o->eps;

	for (size_t i = 0; i < n; i++) {
		double pi = p[i], gi = g[i], m, v;

		if (adamw)
			pi = pi * decay;
		else if (has_wd)
			gi = fma(pi, wd, gi);
		m = fma(gi, one_b1, (m0 ? m0[i] : 0.0) * b1);
		v = fma(gi * one_b2, gi, (v0 ? v0[i] : 0.0) * b2);
		if (m_out)
			m_out[i] = m;
		if (v_out)
			v_out[i] = v;
		if (p_out)
			p_out[i] = pi + (neg_step * m) / (sqrt(v) / bc2_sqrt + eps);
	}
}

size_t gt_optim_vec_end(enum gt_dtype dt, uint64_t first, uint64_t total, size_t n)
{
	const uint64_t end = total - total % GT_OPTIM_BF16_VEC;

	if (dt != GT_DT_BF16)
		return n;
	if (end <= first)
		return 0;
	return end - first < n ? (size_t)(end - first) : n;
}

int gt_optim_dtype_check(const struct gt_optim *o, enum gt_dtype dt, const char *where,
			 struct gt_diag *d)
{
	if (dt == GT_DT_NONE || (unsigned)dt > GT_DT_MAX)
		return gt_diag_set(d, GT_ERR(TYPE), "%s: not a floating-point dtype", where);
	if (dt == GT_DT_F16 && o->kind >= GT_OPT_ADAGRAD && known(o->kind))
		return gt_diag_set(d, GT_ERR(UNSUPPORTED),
				   "%s: %s cannot step f16 values (PyTorch 1.13 has no "
				   "float16 addcmul on the CPU)", where, gt_optim_name(o->kind));
	return 0;
}

static void step_f64(const struct gt_optim *o, size_t n, const double *g, const double *p,
		     const double *s0, const double *s1, double *p_out, double *s0_out,
		     double *s1_out)
{
	switch (o->kind) {
	case GT_OPT_SGD:
	case GT_OPT_MOMENTUM:
	case GT_OPT_NESTEROV:
		f64_sgd(o, n, g, p, s0, p_out, s0_out);
		break;
	case GT_OPT_ADAGRAD:
	case GT_OPT_RMSPROP:
		f64_root(o, n, g, p, s0, p_out, s0_out);
		break;
	case GT_OPT_ADAM:
	case GT_OPT_ADAMW:
		f64_adam(o, n, g, p, s0, s1, p_out, s0_out, s1_out);
		break;
	case GT_OPT_NONE:
		break;
	}
}

static void step_lp(const struct gt_optim *o, const struct lp *c, size_t n, const float *g,
		    const float *p, const float *s0, const float *s1, float *p_out,
		    float *s0_out, float *s1_out)
{
	switch (o->kind) {
	case GT_OPT_SGD:
	case GT_OPT_MOMENTUM:
	case GT_OPT_NESTEROV:
		lp_sgd(o, c, n, g, p, s0, p_out, s0_out);
		break;
	case GT_OPT_ADAGRAD:
	case GT_OPT_RMSPROP:
		lp_root(o, c, n, g, p, s0, p_out, s0_out);
		break;
	case GT_OPT_ADAM:
	case GT_OPT_ADAMW:
		lp_adam(o, c, n, g, p, s0, s1, p_out, s0_out, s1_out);
		break;
	case GT_OPT_NONE:
		break;
	}
}

int gt_optim_step_dt(const struct gt_optim *o, enum gt_dtype dt, size_t n, size_t vec_end,
		     const void *g, const void *param, const void *s0, const void *s1,
		     void *param_out, void *s0_out, void *s1_out)
{
	const int ns = o ? gt_optim_nstates(o->kind) : 0;
	struct lp c = { dt == GT_DT_BF16, vec_end };

	if (dt == GT_DT_F32)
		return gt_optim_step(o, n, g, param, s0, s1, param_out, s0_out, s1_out);
	if (!o || !known(o->kind) || (n && (!g || !param)))
		return GT_ERR(INVAL);
	if (o->kind == GT_OPT_RMSPROP && nonzero(o->momentum))
		return GT_ERR(UNSUPPORTED);
	GT_TRY(gt_optim_dtype_check(o, dt, "", NULL));
	if (ns < 1)
		s0 = NULL;
	if (ns < 2)
		s1 = NULL;
	if (dt == GT_DT_F64)
		step_f64(o, n, g, param, s0, s1, param_out, s0_out, s1_out);
	else
		step_lp(o, &c, n, g, param, s0, s1, param_out, s0_out, s1_out);
	return 0;
}

/* ---- GComp's quantization metric δ ---------------------------------------
 *
 * Notation of the paper: θ = θ_{t-1} (param), g = g_t, η = lr, λ =
 * weight_decay, μ = momentum, τ = dampening, b = b_{t-1} (momentum_buffer),
 * r (sum), v (square_avg or exp_avg_sq), m = m_{t-1} (exp_avg), β1, β2, ε,
 * α, λ_lr = lr_decay, t = the step.  All in double.  δ is the rest of θ_t
 * divided by the term the gradient contributes, as in Appendix A.
 *
 * SGD:       δ = θ/(ηg) − λθ/g
 * Momentum:  δ = (θ − ημb)/(η(1−τ)g) − λθ/g
 *            First step (no buffer): PyTorch sets b_1 = d = g + λθ with no
 *            (1−τ) factor and no μb term, so θ_t = θ − ηλθ − ηg and
 *            δ = θ/(ηg) − λθ/g, the SGD metric (the paper's formula would
 *            divide by (1−τ)).
 * Nesterov:  δ = ((1 − ηλ(1+μ))θ − ημ²b)/(η(1+μ)g); the first step is the
 *            same with b = 0 (b_1 = d, d' = (1+μ)d), which agrees with PyTorch.
 * AdaGrad:   δ = θ(√r_t + ε)/(η̃g) − λθ/g, η̃ = η/(1 + (t−1)λ_lr), with
 *            r_t = r_{t−1} + (g + λθ)², the sum after the update as in the
 *            paper, and with the weight-decayed gradient that PyTorch
 *            accumulates (the paper's table writes g_t², its line 2
 *            having replaced g_t by g_t + λθ).
 * RMSProp:   δ = θ(√v_t + ε)/(ηg) − λθ/g, v_t = αv + (1−α)(g + λθ)².
 *            PyTorch divides by √v_t + ε; one line of Appendix A.4 writes
 *            √(v_t + ε), we follow PyTorch (and Table 2).
 * Adam:      δ = (θ(√v̂_t + ε)(1−β1^t) − ηβ1m)/(η(1−β1)g) − λθ/g,
 *            v̂_t = v_t/(1−β2^t), v_t = β2v + (1−β2)(g + λθ)².
 * AdamW:     δ = (θ(1−ηλ)(√v̂_t + ε)(1−β1^t) − ηβ1m)/(η(1−β1)g),
 *            v_t = β2v + (1−β2)g².
 *            For Adam and AdamW, v_t is the value after the update, computed
 *            from the full g: δ depends on g also through v_t, which the
 *            paper treats as fixed.  PyTorch's denominator is
 *            √v_t/√(1−β2^t) + ε = √v̂_t + ε, the paper's.
 * Absent state is zero (Adam, AdaGrad, RMSProp, Nesterov) or the first
 * momentum step above.  g = 0 gives +Inf, a NaN input NaN.
 */

struct dctx {
	double eta, lam, mu, tau, b1, b2, bc1, bc2, eps, alpha;
	enum gt_optim_kind kind;
	int first; /* momentum: no buffer yet */
};

static double delta_sgd_family(const struct dctx *c, double th, double g, double b)
{
	const double eta = c->eta, lam = c->lam, mu = c->mu;

	switch (c->kind) {
	case GT_OPT_MOMENTUM:
		if (c->first)
			return th / (eta * g) - lam * th / g;
		return (th - eta * mu * b) / (eta * (1 - c->tau) * g) - lam * th / g;
	case GT_OPT_NESTEROV:
		return ((1 - eta * lam * (1 + mu)) * th - eta * mu * mu * b) /
		       (eta * (1 + mu) * g);
	case GT_OPT_NONE:
	case GT_OPT_SGD:
	case GT_OPT_ADAGRAD:
	case GT_OPT_RMSPROP:
	case GT_OPT_ADAM:
	case GT_OPT_ADAMW:
		break;
	}
	return th / (eta * g) - lam * th / g;
}

/* @s0, @s1 are the state values (0 when absent). */
static double delta_one(const struct dctx *c, double th, double g, double s0, double s1)
{
	const double d = g + c->lam * th;
	double v, vh;

	switch (c->kind) {
	case GT_OPT_ADAGRAD: /* c->eta holds η̃ */
		v = s0 + d * d;
		return th * (sqrt(v) + c->eps) / (c->eta * g) - c->lam * th / g;
	case GT_OPT_RMSPROP:
		v = c->alpha * s0 + (1 - c->alpha) * d * d;
		return th * (sqrt(v) + c->eps) / (c->eta * g) - c->lam * th / g;
	case GT_OPT_ADAM:
		v = c->b2 * s1 + (1 - c->b2) * d * d;
		vh = v / c->bc2;
		return (th * (sqrt(vh) + c->eps) * c->bc1 - c->eta * c->b1 * s0) /
		       (c->eta * (1 - c->b1) * g) - c->lam * th / g;
	case GT_OPT_ADAMW:
		v = c->b2 * s1 + (1 - c->b2) * g * g;
		vh = v / c->bc2;
		return (th * (1 - c->eta * c->lam) * (sqrt(vh) + c->eps) * c->bc1 -
			c->eta * c->b1 * s0) / (c->eta * (1 - c->b1) * g);
	case GT_OPT_NONE:
	case GT_OPT_SGD:
	case GT_OPT_MOMENTUM:
	case GT_OPT_NESTEROV:
		break;
	}
	return delta_sgd_family(c, th, g, s0);
}

static void dctx_init(struct dctx *c, const struct gt_optim *o, int first)
{
	const double t = (double)o->t;

	memset(c, 0, sizeof(*c));
	c->kind = o->kind;
	c->first = first;
	c->eta = o->lr;
	c->lam = o->weight_decay;
	c->mu = o->momentum;
	c->tau = o->dampening;
	c->b1 = o->beta1;
	c->b2 = o->beta2;
	c->bc1 = 1 - pow(o->beta1, t);
	c->bc2 = 1 - pow(o->beta2, t);
	c->eps = o->eps;
	c->alpha = o->alpha;
	if (o->kind == GT_OPT_ADAGRAD)
		c->eta = o->lr / (1 + (t - 1) * o->lr_decay);
}

/* Value @i of an array of double (@f64) or float; 0 when @v is NULL. */
static double at(const void *v, int f64, size_t i)
{
	if (!v)
		return 0.0;
	return f64 ? ((const double *)v)[i] : (double)((const float *)v)[i];
}

int gt_optim_delta_dt(const struct gt_optim *o, enum gt_dtype dt, size_t n,
		      const void *g, const void *param, const void *s0, const void *s1,
		      double *delta)
{
	const int ns = o ? gt_optim_nstates(o->kind) : 0;
	const int f64 = dt == GT_DT_F64;
	struct dctx c;

	if (!o || !known(o->kind) || (n && (!g || !param || !delta)))
		return GT_ERR(INVAL);
	if (dt == GT_DT_NONE || (unsigned)dt > GT_DT_MAX)
		return GT_ERR(TYPE);
	if (o->kind == GT_OPT_RMSPROP && nonzero(o->momentum))
		return GT_ERR(UNSUPPORTED);
	if (ns < 1)
		s0 = NULL;
	if (ns < 2)
		s1 = NULL;
	dctx_init(&c, o, !s0);
	for (size_t i = 0; i < n; i++) {
		const double gi = at(g, f64, i), th = at(param, f64, i);
		const double a = at(s0, f64, i), b = at(s1, f64, i);

		if (isnan(gi) || isnan(th) || isnan(a) || isnan(b))
			delta[i] = NAN;
		else if (fpclassify(gi) == FP_ZERO)
			delta[i] = INFINITY;
		else
			delta[i] = delta_one(&c, th, gi, a, b);
	}
	return 0;
}

int gt_optim_delta(const struct gt_optim *o, size_t n, const float *g,
		   const float *param, const float *s0, const float *s1,
		   double *delta)
{
	return gt_optim_delta_dt(o, GT_DT_F32, n, g, param, s0, s1, delta);
}

/* ---- update fidelity ------------------------------------------------------ */

/* @u, a sign-magnitude pattern with the sign in bit @sb, as an integer
 * ordered like the values; ±0 are both 0. */
static int64_t ordered_bits(uint64_t u, unsigned sb)
{
	const uint64_t mag = u & ((UINT64_C(1) << sb) - 1);

	return u >> sb & 1 ? -(int64_t)mag : (int64_t)mag;
}

/* Value @i of @v (dtype @dt, arrays as gt_optim_step_dt) as a double, and
 * its pattern in @dt ordered like the values. */
static double value_at(const void *v, enum gt_dtype dt, size_t i, int64_t *ord)
{
	uint32_t u;
	float f;

	if (dt == GT_DT_F64) {
		const double x = ((const double *)v)[i];

		*ord = ordered_bits(gt_f64_bits(x), 63);
		return x;
	}
	f = ((const float *)v)[i];
	u = gt_f32_bits(f);
	if (dt == GT_DT_BF16)
		*ord = ordered_bits(u >> 16, 15);
	else if (dt == GT_DT_F16)
		*ord = ordered_bits(f16_bits(f), 15);
	else
		*ord = ordered_bits(u, 31);
	return f;
}

int gt_optim_compare_dt(enum gt_dtype dt, size_t n, const void *a, const void *b,
			uint64_t *identical, uint64_t *max_ulp, double *max_rel)
{
	const size_t w = dt == GT_DT_F64 ? sizeof(double) : sizeof(float);
	uint64_t same = 0, ulp = 0;
	double rel = 0;

	if (n && (!a || !b))
		return GT_ERR(INVAL);
	if (dt == GT_DT_NONE || (unsigned)dt > GT_DT_MAX)
		return GT_ERR(TYPE);
	for (size_t i = 0; i < n; i++) {
		int64_t oa, ob;
		const double x = value_at(a, dt, i, &oa), y = value_at(b, dt, i, &ob);
		uint64_t u;
		double r = 0;

		if (!memcmp((const char *)a + i * w, (const char *)b + i * w, w)) {
			same++;
			continue;
		}
		if (isnan(x) || isnan(y)) {
			u = GT_OPTIM_ULP_NAN;
			r = INFINITY;
		} else {
			u = oa > ob ? (uint64_t)oa - (uint64_t)ob : (uint64_t)ob - (uint64_t)oa;
			if (isinf(x))
				r = INFINITY;
			else if (fpclassify(x) != FP_ZERO)
				r = fabs(x - y) / fabs(x);
		}
		if (u > ulp)
			ulp = u;
		if (r > rel)
			rel = r;
	}
	if (identical)
		*identical = same;
	if (max_ulp)
		*max_ulp = ulp;
	if (max_rel)
		*max_rel = rel;
	return 0;
}

int gt_optim_compare(size_t n, const float *a, const float *b,
		     uint64_t *identical, uint64_t *max_ulp, double *max_rel)
{
	return gt_optim_compare_dt(GT_DT_F32, n, a, b, identical, max_ulp, max_rel);
}
