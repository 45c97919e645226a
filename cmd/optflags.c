/* optflags.c - the optimizer-context flags (--optimizer, --lr, ..., --params,
 * --state) as an argp child, filling the engine's struct gt_optflags */
#include <argp.h>
#include <math.h>
#include <string.h>

#include "optflags.h"
#include "util.h"
#include "../lib/banned.h"

enum {
	OPT_OPTIMIZER = 0x300, OPT_LR, OPT_MOMENTUM, OPT_DAMPENING, OPT_WD,
	OPT_BETA1, OPT_BETA2, OPT_EPS, OPT_ALPHA, OPT_LR_DECAY, OPT_STEP,
	OPT_PARAMS, OPT_STATE,
};

static const struct argp_option options[] = {
	{ "optimizer", OPT_OPTIMIZER, "NAME", 0, "sgd, momentum, nesterov, adagrad, rmsprop, adam or adamw "
	  "(default: the trace's)", 0 },
	{ "lr", OPT_LR, "X", 0, "learning rate", 0 },
	{ "momentum", OPT_MOMENTUM, "X", 0, "momentum (sgd with momentum, nesterov)", 0 },
	{ "dampening", OPT_DAMPENING, "X", 0, "dampening (sgd with momentum)", 0 },
	{ "weight-decay", OPT_WD, "X", 0, "weight decay", 0 },
	{ "beta1", OPT_BETA1, "X", 0, "Adam's beta1", 0 },
	{ "beta2", OPT_BETA2, "X", 0, "Adam's beta2", 0 },
	{ "eps", OPT_EPS, "X", 0, "epsilon (adagrad, rmsprop, adam, adamw)", 0 },
	{ "alpha", OPT_ALPHA, "X", 0, "RMSProp's smoothing constant", 0 },
	{ "lr-decay", OPT_LR_DECAY, "X", 0, "AdaGrad's learning-rate decay", 0 },
	{ "step", OPT_STEP, "T", 0, "the step t, 1-based (default: the trace's, else 1)", 0 },
	{ "params", OPT_PARAMS, "FILE", 0, "the parameters before the step, for input that is not a trace", 0 },
	{ "state", OPT_STATE, "NAME=FILE", 0, "an optimizer state buffer before the step "
	  "(momentum_buffer; exp_avg, exp_avg_sq; sum; square_avg); repeatable", 0 },
	{ 0 }
};


static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct gt_optflags *f = state->input;
	long t;

	/* OPT_LR ... OPT_LR_DECAY are in the order of gt_optim_hps */
	if (key >= OPT_LR && key < OPT_LR + GT_OPTIM_NHP) {
		double v;

		if (gt_parse_double(arg, -INFINITY, INFINITY, &v) < 0)
			argp_error(state, "invalid number '%s'", arg);
		gt_optim_hp_set(&f->o, &gt_optim_hps[key - OPT_LR], v);
		return 0;
	}
	switch (key) {
	case OPT_OPTIMIZER:
		f->o.kind = gt_optim_parse(arg);
		if (f->o.kind == GT_OPT_NONE)
			argp_error(state, "unknown optimizer '%s'", arg);
		break;
	case OPT_STEP:
		if (gt_parse_int(arg, 1, 1L << 40, &t) < 0)
			argp_error(state, "invalid step '%s': expected 1 or more", arg);
		f->o.t = t;
		f->has_t = 1;
		break;
	case OPT_PARAMS: f->params = arg; break;
	case OPT_STATE:
		if (!strchr(arg, '=') || f->state_arg[1])
			argp_error(state, "invalid state '%s': expected NAME=FILE, at most twice", arg);
		f->state_arg[f->state_arg[0] ? 1 : 0] = arg;
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp gt_optflags_argp = { options, parse_opt, NULL, NULL, NULL, NULL, NULL };

