/* memload.h - a file's tensors held in memory, with the coding `gtool
 * compress` would give each of them (for bench and compare) */
#ifndef GT_MEMLOAD_H
#define GT_MEMLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "optctx.h"
#include "../analysis/gt_bench.h"
#include "../formats/gt_source.h"

struct gt_memload {
	const char *path;
	struct gt_source *src;
	struct gt_optflags of;      /* none: a trace carries its own context */
	struct gt_optctx ctx;
	size_t n;                   /* float tensors held */
	size_t *idx;                /* their source indexes */
	void **data;                /* their values */
	float *(*aux)[3];           /* param, state 0, state 1 once loaded, or NULL */
	double *(*aux64)[3];        /* the same unrounded, for f64 ones */
	struct gt_optim *optim;     /* the resolved optimizer, once loaded */
	unsigned char *aux_done;
	uint64_t bytes, values;     /* of all tensors held */
	struct gt_bench_input *in;  /* the last gt_memload_inputs */
};

/* Read every float tensor of @path into memory.  Prints errors; 0 or -1. */
int gt_memload_open(struct gt_memload *m, const char *path,
		    const struct gt_source_opts *so, int grads_only);
void gt_memload_close(struct gt_memload *m);

/*
 * gt_memload_spec - parse "NAME[:k=v,...]" and check its options: a codec
 * that does not exist or bad options are printed (exit 2 for the caller).
 * *@needs_optim_ret: the codec, as configured, uses the optimizer context.
 */
int gt_memload_spec(const char *spec, const struct gt_codec **c_ret,
		    const char **opts_ret, int *needs_optim_ret);

/*
 * gt_memload_inputs - the m->n inputs of gt_bench_run for @codec with
 * @opts, each tensor coded as gt_optctx_coding says (the same decision as
 * `gtool compress`), gradients with their optimizer context when the codec
 * uses it (read once, then kept).  *@in_ret points into @m, valid until
 * the next call.  Prints errors; returns 0 or -1.
 */
int gt_memload_inputs(struct gt_memload *m, const struct gt_codec *codec,
		      const char *opts, int needs_optim,
		      const struct gt_bench_input **in_ret);

/*
 * Codec specs of -c: "gcomp,zstd:level=3,fft:drop=0.85,bits=10" splits at
 * commas, and a piece with '=' but no ':' continues the options of the spec
 * before it ("fft:drop=0.85,bits=10" is one spec).  -c may be repeated.
 */
struct gt_speclist {
	char **v;
	size_t n;
};
void gt_speclist_add(struct gt_speclist *l, const char *list);
/* The default list (compare, bench): the settings the papers used, and
 * zstd and zlib at the GComp paper's levels; specs whose codec is not
 * registered are left out. */
extern const char *const gt_memload_defaults[];
void gt_speclist_defaults(struct gt_speclist *l);
void gt_speclist_release(struct gt_speclist *l);
/*
 * gt_speclist_usable - leave out the specs that need the optimizer
 * context (gcomp's default mode) when @m is not a trace: with @defaults a
 * warning says so, otherwise it is an error (printed; returns -1).
 */
int gt_speclist_usable(struct gt_speclist *l, const struct gt_memload *m, int defaults);

#endif
