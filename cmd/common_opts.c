/* common_opts.c - the options many commands share, one argp child each */
#include <argp.h>
#include <stdlib.h>

#include "common_opts.h"
#include "../front/msg.h"
#include "../lib/banned.h"

enum { OPT_DTYPE = 0x500, OPT_BLOCK, OPT_CHUNK, OPT_FORMAT };

static error_t parse_input(int key, char *arg, struct argp_state *state)
{
	struct gt_common *c = state->input;

	if (key != ARGP_KEY_ARG)
		return ARGP_ERR_UNKNOWN;
	gt_argp_input(state, &c->input, arg);
	return 0;
}

const struct argp gt_common_input_argp = { NULL, parse_input, NULL, NULL, NULL, NULL, NULL };

static const struct argp_option dataset_options[] = {
	{ "dataset", 'd', "PATTERN", 0, "only datasets matching PATTERN (a path or a glob; "
	  "repeatable)", 0 },
	{ 0 }
};

static error_t parse_dataset(int key, char *arg, struct argp_state *state)
{
	struct gt_common *c = state->input;

	if (key != 'd')
		return ARGP_ERR_UNKNOWN;
	gt_argp_dataset(&c->datasets, &c->ndatasets, arg);
	return 0;
}

const struct argp gt_common_dataset_argp = {
	dataset_options, parse_dataset, NULL, NULL, NULL, NULL, NULL
};

static const struct argp_option dtype_options[] = {
	{ "dtype", OPT_DTYPE, "DT", 0, "dtype of raw input: f32, f16, bf16 or f64", 0 },
	{ 0 }
};

static error_t parse_dtype(int key, char *arg, struct argp_state *state)
{
	struct gt_common *c = state->input;

	if (key != OPT_DTYPE)
		return ARGP_ERR_UNKNOWN;
	c->src.dtype = gt_argp_dtype(state, arg);
	return 0;
}

const struct argp gt_common_dtype_argp = { dtype_options, parse_dtype, NULL, NULL, NULL, NULL, NULL };

static const struct argp_option blocks_options[] = {
	{ "block-size", OPT_BLOCK, "N", 0, "values per block (default 1M; K, M suffixes)", 0 },
	{ "chunk-size", OPT_CHUNK, "N", 0, "values per chunk, the unit of parallel work "
	  "(default 64K)", 0 },
	{ 0 }
};

static error_t parse_blocks(int key, char *arg, struct argp_state *state)
{
	struct gt_common *c = state->input;

	switch (key) {
	case OPT_BLOCK: c->block_values = gt_argp_block_size(state, arg); break;
	case OPT_CHUNK: c->chunk_values = gt_argp_chunk_size(state, arg); break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp gt_common_blocks_argp = {
	blocks_options, parse_blocks, NULL, NULL, NULL, NULL, NULL
};

static const struct argp_option fmt_options[] = {
	{ "format", OPT_FORMAT, "FMT", 0, "output format: table, csv, tsv or json", 0 },
	{ 0 }
};

static error_t parse_fmt(int key, char *arg, struct argp_state *state)
{
	struct gt_common *c = state->input;

	if (key != OPT_FORMAT)
		return ARGP_ERR_UNKNOWN;
	c->fmt = gt_argp_fmt(state, arg, 0);
	return 0;
}

const struct argp gt_common_fmt_argp = { fmt_options, parse_fmt, NULL, NULL, NULL, NULL, NULL };

static const struct argp_option quiet_options[] = {
	{ "quiet", 'q', NULL, 0, "print no warnings, progress or summary", 0 },
	{ 0 }
};

static error_t parse_quiet(int key, char *arg, struct argp_state *state)
{
	struct gt_common *c = state->input;

	(void)arg;
	if (key != 'q')
		return ARGP_ERR_UNKNOWN;
	c->quiet = 1;
	gt_msg_set_quiet(1);
	return 0;
}

const struct argp gt_common_quiet_argp = { quiet_options, parse_quiet, NULL, NULL, NULL, NULL, NULL };

static const struct argp_option verbose_options[] = {
	{ "verbose", 'v', NULL, 0, "say more on stderr: datasets skipped, each tensor or file written", 0 },
	{ 0 }
};

static error_t parse_verbose(int key, char *arg, struct argp_state *state)
{
	struct gt_common *c = state->input;

	(void)arg;
	if (key != 'v')
		return ARGP_ERR_UNKNOWN;
	c->verbose = 1;
	return 0;
}

const struct argp gt_common_verbose_argp = {
	verbose_options, parse_verbose, NULL, NULL, NULL, NULL, NULL
};

static int shared(const struct argp *a)
{
	return a == &gt_common_input_argp || a == &gt_common_dataset_argp ||
	       a == &gt_common_dtype_argp || a == &gt_common_blocks_argp ||
	       a == &gt_common_fmt_argp || a == &gt_common_quiet_argp ||
	       a == &gt_common_verbose_argp;
}

void gt_common_bind(struct argp_state *state, const struct argp *self, struct gt_common *c)
{
	const struct argp_child *ch = self->children;

	for (size_t k = 0; ch && ch[k].argp; k++)
		if (shared(ch[k].argp))
			state->child_inputs[k] = c;
}

void gt_common_release(struct gt_common *c)
{
	free(c->datasets);
	c->datasets = NULL;
	c->ndatasets = 0;
}
