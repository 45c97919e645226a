/* gt_optctx.h - the per-tensor coding plan: which codec codes each tensor,
 * and the optimizer context of a gradient (from a trace, flags and files) */
#ifndef GT_OPTCTX_H
#define GT_OPTCTX_H

#include <stddef.h>
#include <stdint.h>

#include "gt_notify.h"
#include "gt_spec.h"
#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"
#include "../lib/gt_codec.h"
#include "../lib/gt_optim.h"

/*
 * What --optimizer, --lr, ..., --params and --state gave.  cmd/ fills it
 * with its argp child (cmd/optflags.c); a zeroed struct means "none: a
 * trace carries its own context".
 */
struct gt_optflags {
	struct gt_optim o;       /* kind NONE and have 0 unless given */
	int has_t;
	const char *params;      /* --params FILE */
	const char *state[2];    /* --state NAME=FILE, by the optimizer's buffer order */
	const char *state_arg[2];
};

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
 * trace layout of @input when it has one; buffers for @buf_values values.
 * @return 0 or a negative error with @d (naming the file).  Close @c
 * with gt_optctx_close either way.
 */
int gt_optctx_open(struct gt_optctx *c, const struct gt_optflags *f,
		   struct gt_source *input, const char *input_name, size_t buf_values,
		   struct gt_diag *d);
void gt_optctx_close(struct gt_optctx *c);

/*
 * gt_optctx_is_grad - 1 when tensor @i of the input is a gradient of a
 * trace step; on an input without steps every tensor counts as one.
 */
int gt_optctx_is_grad(const struct gt_optctx *c, size_t i);

/*
 * gt_optctx_resolve - the optimizer and where the parameter and state of
 * gradient @i come from: the trace's step (flags override what it says),
 * else the flags and files.  @return 0 or a negative error, @d saying
 * what is missing.
 */
int gt_optctx_resolve(struct gt_optctx *c, const struct gt_optflags *f,
		      struct gt_source *input, const char *input_name, size_t i,
		      struct gt_diag *d);

/*
 * gt_optctx_read - values [@first, @first + @n) of the parameter and state
 * as f32 into @aux (pointing at internal buffers).  NaN or Inf is
 * GT_ERR(INVAL).  @return 0 or a negative error with @d.
 */
int gt_optctx_read(struct gt_optctx *c, uint64_t first, size_t n,
		   struct gt_codec_aux *aux, struct gt_diag *d);

/* How one tensor is coded: the result of gt_optctx_coding. */
struct gt_coding {
	const struct gt_codec *codec;
	const char *opts;              /* the spec's options, or "" (huffexp's defaults) */
	const struct gt_optim *optim;  /* non-NULL: code with the optimizer context,
					* read with gt_optctx_read (points into @c) */
};

/*
 * gt_optctx_coding - how tensor @i of @input is coded with @spec: a
 * lossless codec codes everything; with a lossy or near-lossless one,
 * only the gradients of a trace are coded with it and everything else of
 * the file (parameters, state) losslessly with huffexp, so decompress
 * gives back a trace training can resume from; a tensor of a dtype the
 * codec cannot code (rangeq and fft are f32 only) goes to huffexp too,
 * with a warning to @nt.  When the spec's mode uses the optimizer context,
 * @c is resolved for @i and out->optim is set.  compress, compare and
 * bench all call this, so they code the same tensors the same way.
 * @return 0 or a negative error with @d.
 */
int gt_optctx_coding(struct gt_optctx *c, const struct gt_optflags *f,
		     struct gt_source *input, const char *input_name, size_t i,
		     const struct gt_spec *spec, const struct gt_notify *nt,
		     struct gt_coding *out, struct gt_diag *d);

#endif
