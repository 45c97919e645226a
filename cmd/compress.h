/* compress.h - `gtool compress` as a call, for compare: the same code path */
#ifndef GT_COMPRESS_H
#define GT_COMPRESS_H

#include <stdint.h>

#include "optctx.h"
#include "../formats/gt_source.h"

/* The options of `gtool compress`, as its parser fills them. */
struct gt_compress_opts {
	const char *input, *output, *codec, *table_path;
	char **datasets;
	size_t ndatasets;
	int list_codecs;
	long level, table_refresh;
	unsigned threads;                /* must be set: 0 is not "all cores" here */
	uint64_t block_values, chunk_values;
	struct gt_source_opts src;
	struct gt_optflags of;
	int force, verbose, grads_only;
	int silent; /* no summary line, no warnings about skipped datasets */
	int lossy_metadata; /* go on, with a warning, past what cannot be kept */
};

/*
 * gt_compress_file - what `gtool compress` does with @o: @o->input into
 * the .gtz file @o->output (NULL: INPUT.gtz).  *@in_ret: the bytes of the
 * tensors read; *@out_ret: the bytes of the .gtz file (either may be
 * NULL).  Errors are printed.  Returns 0, 1 (data or I/O), 2 (usage: a
 * bad codec spec or option).
 */
int gt_compress_file(struct gt_compress_opts *o, uint64_t *in_ret, uint64_t *out_ret);

#endif
