/* gt_pack.h - compress a source (HDF5, .npy, raw) into a .gtz file or a filtered HDF5 file */
#ifndef GT_PACK_H
#define GT_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "gt_notify.h"
#include "gt_optctx.h"
#include "gt_spec.h"
#include "gt_tensor.h"
#include "../formats/gt_source.h"

/* What a front end hears while a file is packed (every callback may be NULL). */
struct gt_pack_events {
	void (*start)(void *arg, uint64_t total_bytes);  /* before the first tensor */
	void (*bytes)(void *arg, uint64_t n);            /* n more bytes read */
	void (*tensor)(void *arg, const char *name, uint64_t values, const char *codec);
	void *arg;
	/* the output's temporary file (".NAME.XXXXXX" beside it) now exists,
	 * until the commit renames it or a failure removes it; NULL for stdout
	 * or a device.  A front end that handles SIGINT removes it there (the
	 * engine touches no signals).  Last, so that { start, bytes, tensor,
	 * arg } initializers leave it NULL. */
	void (*tmpfile)(void *arg, const char *path);
};

/* The options of one compression: what `gtool compress` takes. */
struct gt_pack_opts {
	const char *input;               /* path, or "-" */
	const char *output;              /* path, or "-" (the caller picks the default) */
	const struct gt_spec *spec;      /* codec, options, static table */
	char *const *datasets;           /* -d patterns */
	size_t ndatasets;
	long table_refresh;              /* rebuild the table every N steps (0: never) */
	unsigned threads;                /* >= 1 */
	uint64_t block_values, chunk_values; /* 0: the container's defaults */
	struct gt_source_opts src;
	struct gt_optflags of;
	int force, grads_only;
	int lossy_metadata;              /* what the input holds that cannot be kept
					  * (gt_source_lost) is a warning to @nt, not
					  * an error */
	const struct gt_notify *nt;      /* warnings */
	struct gt_pack_events ev;
};

struct gt_pack_result {
	uint64_t in_bytes;   /* of the tensors read */
	uint64_t out_bytes;  /* of the .gtz file */
	size_t ntensors;
};

/*
 * gt_pack_file - compress o->input into the .gtz file o->output: select
 * the tensors (-d may name any dataset: a non-float one is kept whole),
 * keep the groups, attributes, links and other datasets, code each tensor as
 * gt_optctx_coding plans it (with its optimizer context for gcomp),
 * refresh the Huffman table every o->table_refresh steps, and commit the
 * file atomically.  @r (may be NULL) gets the sizes.  The work of one
 * tensor starts in pack.c:pack_tensor.
 * @return 0 or a negative error with @d ("FILE: what"); on error no
 *	output file is left behind.  When the input holds several things
 *	that cannot be kept, all but the last go to @nt as GT_NOTE_ERROR.
 */
int gt_pack_file(const struct gt_pack_opts *o, struct gt_pack_result *r, struct gt_diag *d);

/*
 * gt_pack_output_is_h5 - 1 when @output ("-" never) names an HDF5 file
 * (.h5, .hdf5): gt_pack_file then writes the input's tree as HDF5, each
 * float dataset chunked (GT_SINK_CHUNK_VALUES) and coded by filter 400
 * (man/gtool-h5filter.5) with the codec its coding plan gives, the rest
 * as it is.
 */
int gt_pack_output_is_h5(const char *output);

/*
 * gt_pack_h5_check - whether @o can be written as HDF5: the codec and its
 * options are ones filter 400 offers, gcomp's mode needs no optimizer
 * context, and no --table or --table-refresh.  gt_pack_file checks it too,
 * before it creates the output; a front end calls it first to refuse a
 * usage error up front.
 * @return 0, GT_ERR(INVAL) or GT_ERR(UNSUPPORTED) with @d saying why;
 * GT_ERR(IO) when the HDF5 support cannot be loaded (gt_hdf5()).
 */
int gt_pack_h5_check(const struct gt_pack_opts *o, struct gt_diag *d);

#endif
