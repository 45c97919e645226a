/* gt_optim.h - optimizer steps as PyTorch computes them, GComp's metric δ */
#ifndef GT_OPTIM_H
#define GT_OPTIM_H

#include <stddef.h>
#include <stdint.h>

#include "gt_error.h"
#include "gt_float.h"

/* Stable ids: written into .gtz codec parameters. */
enum gt_optim_kind {
	GT_OPT_NONE = 0,
	GT_OPT_SGD,       /* momentum == 0 */
	GT_OPT_MOMENTUM,  /* SGD with momentum */
	GT_OPT_NESTEROV,
	GT_OPT_ADAGRAD,
	GT_OPT_RMSPROP,
	GT_OPT_ADAM,
	GT_OPT_ADAMW,
};

/* Which hyper-parameters were given (bits of gt_optim.have). */
enum {
	GT_HP_LR = 1 << 0, GT_HP_MOMENTUM = 1 << 1, GT_HP_DAMPENING = 1 << 2,
	GT_HP_WEIGHT_DECAY = 1 << 3, GT_HP_BETA1 = 1 << 4, GT_HP_BETA2 = 1 << 5,
	GT_HP_EPS = 1 << 6, GT_HP_ALPHA = 1 << 7, GT_HP_LR_DECAY = 1 << 8,
};

/*
 * An optimizer and its hyper-parameters, as PyTorch's attributes hold
 * them (float64).  Absent ones are 0.  @kind alone decides the update rule;
 * @nesterov records the trace's flag (formats/ sets kind GT_OPT_NESTEROV
 * with it).  @t is the step number: 1-based, PyTorch's state "step" after
 * the update (the trace's step attribute); Adam's bias corrections and
 * AdaGrad's learning-rate decay use it.
 */
struct gt_optim {
	enum gt_optim_kind kind;
	unsigned have; /* GT_HP_* */
	double lr, momentum, dampening, weight_decay;
	double beta1, beta2, eps, alpha, lr_decay;
	long t;
	int nesterov;
	/* variants PyTorch has and gtool's step does not model: a trace that
	 * sets one is refused by gt_optim_check rather than computed wrongly */
	int amsgrad, centered, maximize;
};

/* The hyper-parameters, in a fixed order: the attribute name a trace
 * uses, the GT_HP_* bit, and where the double is in struct gt_optim. */
struct gt_optim_hp {
	const char *name;
	unsigned bit;
	size_t off;
};
#define GT_OPTIM_NHP 9
extern const struct gt_optim_hp gt_optim_hps[GT_OPTIM_NHP];
double gt_optim_hp_get(const struct gt_optim *o, const struct gt_optim_hp *h);
/* Set the value and its GT_HP_* bit in o->have. */
void gt_optim_hp_set(struct gt_optim *o, const struct gt_optim_hp *h, double v);

/* "sgd", "momentum", ...; case-insensitive parse, GT_OPT_NONE if unknown. */
const char *gt_optim_name(enum gt_optim_kind k);
enum gt_optim_kind gt_optim_parse(const char *s);

/*
 * gt_optim_check - whether @o is complete and valid for its update rule.
 * @where prefixes the phrase in @d (may be NULL): "step /step_000100".
 * @return 0; GT_ERR(NOTFOUND) naming the first missing attribute
 *	("<where>: attribute lr missing", also "attribute optimizer missing");
 *	GT_ERR(INVAL) for a bad value ("<where>: lr must be positive", "beta1
 *	must be in [0, 1)", "eps must not be negative", "step must be positive",
 *	"nesterov needs momentum > 0 and dampening 0", ...);
 *	GT_ERR(UNSUPPORTED) for RMSProp with momentum.
 * Thread safety: pure function.
 */
int gt_optim_check(const struct gt_optim *o, const char *where, struct gt_diag *d);

/*
 * gt_optim_nstates - how many state buffers optimizer @k keeps per
 * parameter: 0 (SGD), 1 (momentum, Nesterov, AdaGrad, RMSProp), 2 (Adam,
 * AdamW); 0 for an unknown kind.
 */
int gt_optim_nstates(enum gt_optim_kind k);

/*
 * gt_optim_state_name - PyTorch's name of state buffer @i of optimizer @k,
 * as the trace layout's state/<buffer>/ folders spell it: "momentum_buffer"
 * (momentum, Nesterov), "sum" (AdaGrad), "square_avg" (RMSProp),
 * "exp_avg" then "exp_avg_sq" (Adam, AdamW).
 * @return a static string; NULL when @k has no buffer @i.
 */
const char *gt_optim_state_name(enum gt_optim_kind k, int i);

/*
 * gt_optim_step - one optimizer step on @n values in float32, bit for bit
 * as PyTorch 1.13 computes it on the CPU (foreach=False; the recipe is the
 * docstring of samples/check_steps.py).
 * @o:  a struct gt_optim_check() accepts (its values are not re-checked
 *      here beyond the kind).
 * @g, @param: the gradient g_t and the parameter θ_{t-1}.
 * @s0, @s1: the state before the step, buffers gt_optim_state_name(kind,
 *      0 and 1); NULL means absent (before the first step), as PyTorch
 *      starts them: the momentum buffer becomes d_1, Adam's moments,
 *      AdaGrad's sum (initial_accumulator_value 0) and RMSProp's
 *      square_avg are zeros.  Unused ones are ignored.
 * @param_out, @s0_out, @s1_out: θ_t and the state after the step; any may
 *      be NULL when not wanted.  An output may alias its own input
 *      (param_out == param, s0_out == s0) but no other array.
 * @return 0; GT_ERR(INVAL) for an unknown kind, or NULL @g/@param with
 *	@n > 0; GT_ERR(UNSUPPORTED) for RMSProp with momentum (centered
 *	RMSProp, amsgrad and maximize are not represented in struct gt_optim).
 * Thread safety: pure function; no allocation.
 */
int gt_optim_step(const struct gt_optim *o, size_t n, const float *g,
		  const float *param, const float *s0, const float *s1,
		  float *param_out, float *s0_out, float *s1_out);

/*
 * Steps in the trace's own dtype.  PyTorch steps a parameter in its dtype:
 * float64 with the float32 recipe's operations (the same fused
 * multiply-adds) in double and the hyper-parameters unrounded; bfloat16
 * and float16 one tensor operation at a time, each computed in float and
 * rounded to the dtype (round to nearest even), scalars rounded to the
 * dtype where PyTorch 1.13's CPU kernels round them (gt_optim.c lists
 * each operation).  Arrays are of double for GT_DT_F64 and of float
 * otherwise (f16 and bf16 values, which float holds exactly; a value that
 * is not one is rounded to the dtype first).
 */

/* bfloat16 add(x, y, alpha) in PyTorch 1.13 on an AVX2 CPU: a fused
 * multiply-add in float over the tensor's first n - n % 32 values (the
 * vectorized loop), two roundings to bfloat16 over the last n % 32. */
#define GT_OPTIM_BF16_VEC 32

/*
 * gt_optim_vec_end - how many of the @n values that start at value @first
 * of a tensor of @total values take PyTorch's vectorized loop: @n for
 * every dtype but bf16 (whose two loops round differently).
 */
size_t gt_optim_vec_end(enum gt_dtype dt, uint64_t first, uint64_t total, size_t n);

/*
 * gt_optim_dtype_check - whether PyTorch 1.13 can step values of @dt with
 * @o's optimizer on the CPU: float16 has no addcmul there, so AdaGrad,
 * RMSProp, Adam and AdamW raise "not implemented for 'Half'".
 * @return 0; GT_ERR(UNSUPPORTED) with @d (may be NULL) saying "<where>:
 *	adam cannot step f16 values (PyTorch 1.13 has no float16 addcmul on
 *	the CPU)"; GT_ERR(TYPE) for GT_DT_NONE.
 */
int gt_optim_dtype_check(const struct gt_optim *o, enum gt_dtype dt, const char *where,
			 struct gt_diag *d);

/*
 * gt_optim_step_dt - gt_optim_step() in dtype @dt (arrays as above; f32 is
 * gt_optim_step() itself).  Values [0, @vec_end) take PyTorch's vectorized
 * loop, the others its scalar loop (gt_optim_vec_end(); it matters for
 * bf16 only).
 * @return as gt_optim_step(); also GT_ERR(UNSUPPORTED) where
 *	gt_optim_dtype_check() refuses, GT_ERR(TYPE) for GT_DT_NONE.
 * Thread safety: pure function; no allocation.
 */
int gt_optim_step_dt(const struct gt_optim *o, enum gt_dtype dt, size_t n, size_t vec_end,
		     const void *g, const void *param, const void *s0, const void *s1,
		     void *param_out, void *s0_out, void *s1_out);

/*
 * gt_optim_delta - GComp's quantization metric δ (Table 2 and Appendix A of
 * the GComp paper) of each gradient value, in double: about how many
 * times |η'g| (the gradient's share of the update) fits into the rest of
 * θ_t, so that |δ| > 2^k means the low k mantissa bits of g are lost when
 * the step adds it to θ anyway.  δ is signed as in the paper (negative
 * when the step moves θ away from zero); the caller takes |δ| if it wants.
 * Arguments as for gt_optim_step() (state before the step; NULL = absent);
 * @delta receives @n values.  g = 0 gives +Inf (nothing to truncate); a
 * NaN among a value's inputs gives NaN.  Where PyTorch and the paper
 * differ, δ follows PyTorch; gt_optim.c documents each formula.
 * @return 0; GT_ERR(INVAL) for an unknown kind or NULL arrays with @n > 0;
 *	GT_ERR(UNSUPPORTED) for RMSProp with momentum.
 * Thread safety: pure function; no allocation.
 */
int gt_optim_delta(const struct gt_optim *o, size_t n, const float *g,
		   const float *param, const float *s0, const float *s1,
		   double *delta);

/*
 * gt_optim_delta_dt - gt_optim_delta() of values of @dt (arrays as for
 * gt_optim_step_dt(): double for f64, so that δ sees θ and the state
 * unrounded).
 */
int gt_optim_delta_dt(const struct gt_optim *o, enum gt_dtype dt, size_t n,
		      const void *g, const void *param, const void *s0, const void *s1,
		      double *delta);

/* The ULP distance gt_optim_compare() reports when a NaN differs. */
#define GT_OPTIM_ULP_NAN UINT64_MAX

/*
 * gt_optim_compare - update fidelity between two float32 arrays @a (the
 * reference) and @b: *@identical counts bit-identical pairs; *@max_ulp is
 * the largest distance in units in the last place (the distance of their
 * sign-magnitude bit patterns as ordered integers: +0 and -0 are 0 apart,
 * the largest finite float and +Inf 1 apart), GT_OPTIM_ULP_NAN when a
 * pair differs and holds a NaN; *@max_rel is the largest |a - b| / |a|
 * over a != 0 (in double; +Inf for a NaN or an infinity that differs).
 * Each output may be NULL.
 * @return 0; GT_ERR(INVAL) for NULL arrays with @n > 0.
 * Thread safety: pure function.
 */
int gt_optim_compare(size_t n, const float *a, const float *b,
		     uint64_t *identical, uint64_t *max_ulp, double *max_rel);

/*
 * gt_optim_compare_dt - gt_optim_compare() of values of @dt (arrays as for
 * gt_optim_step_dt()), ULPs counted in @dt (a bf16 ULP is 2^16 float ULPs).
 * @return 0; GT_ERR(INVAL) for NULL arrays with @n > 0; GT_ERR(TYPE).
 */
int gt_optim_compare_dt(enum gt_dtype dt, size_t n, const void *a, const void *b,
			uint64_t *identical, uint64_t *max_ulp, double *max_rel);

#endif
