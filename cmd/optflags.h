/* optflags.h - the optimizer-context flags of compress, bench and compare */
#ifndef GT_OPTFLAGS_H
#define GT_OPTFLAGS_H

#include <argp.h>

#include "../engine/gt_optctx.h"

/*
 * The options as an argp child: `{ &gt_optflags_argp, 0, "Optimizer
 * context (gcomp):", 0 }`, with state->child_inputs[k] = &flags (a
 * struct gt_optflags, which the engine's coding plan takes).
 */
extern const struct argp gt_optflags_argp;

#endif
