/* optctx.h - the optimizer context of a gradient: from a trace, flags and files */
#ifndef GT_OPTCTX_H
#define GT_OPTCTX_H

#include <argp.h>

#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"
#include "../lib/gt_codec.h"

/* What --optimizer, --lr, ..., --params and --state gave. */
struct gt_optflags {
	struct gt_optim o;       /* kind NONE and have 0 unless given */
	int has_t;
	const char *params;      /* --params FILE */
	const char *state[2];    /* --state NAME=FILE, by the optimizer's buffer order */
	const char *state_arg[2];
};

/*
 * The options as an argp child: `{ &gt_optflags_argp, 0, "Optimizer
 * context (gcomp):", 0 }`, with state->child_inputs[k] = &flags.
 */
extern const struct argp gt_optflags_argp;

/* Sources a gradient's parameter and state come from: the trace itself,
 * or the files of --params and --state. */
struct gt_optctx {
	struct gt_source *files[3]; /* opened --params, --state files (owned) */
	struct gt_trace *trace;     /* of the input, or NULL */
	/* for the tensor being coded */
	struct gt_optim optim;
	struct gt_source *src[3];   /* param, state 0, state 1; NULL: absent */
	size_t idx[3];
	float *buf[3];
	double *buf64[3];           /* the same unrounded, for f64 gradients */
	int f64;                    /* the gradient is f64: fill buf64 too */
	size_t buf_values;
};

/*
 * gt_optctx_open - prepare: open the --params/--state files, and the
 * trace layout of @input when it has one.  Prints errors; returns 0 or -1.
 */
int gt_optctx_open(struct gt_optctx *c, const struct gt_optflags *f,
		   struct gt_source *input, const char *input_name, size_t buf_values);
void gt_optctx_close(struct gt_optctx *c);

/*
 * gt_optctx_is_grad - 1 when tensor @i of the input is a gradient of a
 * trace step; on an input without steps every tensor counts as one.
 */
int gt_optctx_is_grad(const struct gt_optctx *c, size_t i);

/*
 * gt_optctx_resolve - the optimizer and where the parameter and state of
 * gradient @i come from: the trace's step (flags override what it says),
 * else the flags and files.  Prints what is missing; returns 0 or -1.
 */
int gt_optctx_resolve(struct gt_optctx *c, const struct gt_optflags *f,
		      struct gt_source *input, const char *input_name, size_t i);

/*
 * gt_optctx_read - values [@first, @first + @n) of the parameter and state
 * as f32 into @aux (pointing at internal buffers).  Returns 0 or -1.
 */
int gt_optctx_read(struct gt_optctx *c, uint64_t first, size_t n,
		   struct gt_codec_aux *aux);

/*
 * gt_optctx_coding - how `gtool compress` codes tensor @i of @input with
 * @codec (@needs_optim: its mode, as configured, uses the optimizer
 * context): a lossless codec codes everything; with a lossy or
 * near-lossless one, only the gradients of a trace are coded with it and
 * everything else of the file (parameters, state) losslessly with huffexp,
 * so decompress gives back a trace training can resume from; a tensor of a
 * dtype the codec cannot code (rangeq and fft are f32 only) goes to
 * huffexp too, with a warning.  *@codec_ret
 * is the codec to use, *@own_opts_ret 1 when the caller's options go with
 * it (0: huffexp's defaults), *@aux_ret 1 when the values must come with
 * their optimizer context (then @c is resolved for @i: c->optim, and
 * gt_optctx_read gives the arrays).  compress, compare and bench all call
 * this, so they code the same tensors the same way.  Returns 0 or -1
 * (printed).
 */
int gt_optctx_coding(struct gt_optctx *c, const struct gt_optflags *f,
		     struct gt_source *input, const char *input_name, size_t i,
		     const struct gt_codec *codec, int needs_optim,
		     const struct gt_codec **codec_ret, int *own_opts_ret, int *aux_ret);

#endif
