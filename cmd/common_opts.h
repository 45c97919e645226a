/* common_opts.h - the options many commands share, as argp children (like
 * git's OPT__QUIET): one spelling, one meaning, one parser */
#ifndef GT_COMMON_OPTS_H
#define GT_COMMON_OPTS_H

#include <argp.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"
#include "../formats/gt_source.h"

/* What the shared options fill; a command keeps one in its options struct. */
struct gt_common {
	const char *input;              /* FILE: the one input ('-': stdin) */
	char **datasets;                /* -d PATTERN, repeatable (freed by
					 * gt_common_release) */
	size_t ndatasets;
	struct gt_source_opts src;      /* --dtype of raw input */
	uint64_t block_values;          /* --block-size (0: the default) */
	uint64_t chunk_values;          /* --chunk-size (0: the default) */
	enum gt_fmt fmt;                /* --format=FMT of results */
	int quiet, verbose;             /* -q, -v */
};

/*
 * The children a command lists in its struct argp children[] (header
 * NULL, group 0, so their options sort in with the command's own), each
 * taking the command's struct gt_common as input (gt_common_bind):
 *
 *   gt_common_input_argp    the one input FILE
 *   gt_common_dataset_argp  -d, --dataset=PATTERN
 *   gt_common_dtype_argp    --dtype=DT
 *   gt_common_blocks_argp   --block-size=N, --chunk-size=N
 *   gt_common_fmt_argp      --format=FMT: table, csv, tsv or json
 *   gt_common_quiet_argp    -q, --quiet (also gt_msg_set_quiet)
 *   gt_common_verbose_argp  -v, --verbose
 */
extern const struct argp gt_common_input_argp;
extern const struct argp gt_common_dataset_argp;
extern const struct argp gt_common_dtype_argp;
extern const struct argp gt_common_blocks_argp;
extern const struct argp gt_common_fmt_argp;
extern const struct argp gt_common_quiet_argp;
extern const struct argp gt_common_verbose_argp;

/* At ARGP_KEY_INIT of the parser of @self (the command's argp): point its
 * shared children at @c. */
void gt_common_bind(struct argp_state *state, const struct argp *self, struct gt_common *c);

void gt_common_release(struct gt_common *c);

#endif
