/* gt_sink.h - write tensors to HDF5, raw and .npy files, atomically */
#ifndef GT_SINK_H
#define GT_SINK_H

#include "gt_source.h"

struct gt_sink_opts {
	enum gt_kind kind; /* AUTO: from the extension; raw for "-" */
	int force;         /* overwrite an existing file */
};

struct gt_sink;

/*
 * gt_sink_open - start writing @path ("-" is stdout).  The data goes to a
 * temporary file in the same folder that gt_sink_commit() renames over
 * @path; gt_sink_free() without a commit removes it, so a failure never
 * leaves a partial file and never touches an existing one.
 * @return 0, GT_ERR(EXISTS) (@path exists and !force), GT_ERR(IO),
 *	GT_ERR(INVAL) (GTZ kind: use the container API).
 */
int gt_sink_open(const char *path, const struct gt_sink_opts *o,
		 struct gt_sink **sink_ret, struct gt_diag *d);

/*
 * gt_sink_open_v110 - gt_sink_open, and an HDF5 file in the 1.10 format,
 * whose chunk indexes (single chunk, fixed array) are far smaller than
 * 1.8's B-trees: for filtered datasets (gt_sink_set_filter).  The file
 * needs HDF5 1.10 or later to read.  Other kinds: as gt_sink_open.
 */
int gt_sink_open_v110(const char *path, const struct gt_sink_opts *o,
		      struct gt_sink **sink_ret, struct gt_diag *d);

/* HDF5: create group @g (and its parents) with its attributes; others ignore it. */
int gt_sink_group(struct gt_sink *s, const struct gt_group_info *g,
		  struct gt_diag *d);

/* HDF5: create link or whole dataset @o (gt_source_object); others ignore it. */
int gt_sink_object(struct gt_sink *s, const struct gt_object *o, struct gt_diag *d);

/*
 * HDF5: code the float tensors begun from now on with filter 400 and these
 * @n cd_values (gt_h5filter_cd; dtype and chunk are filled in per tensor),
 * in chunks of at most GT_SINK_CHUNK_VALUES values; @n = 0: no filter,
 * contiguous.  Other kinds ignore it.
 */
int gt_sink_set_filter(struct gt_sink *s, const unsigned *cd, size_t n);

/*
 * Values in one chunk of a filtered dataset, at most: 1 Mi values (4 MiB of
 * f32), whole trailing axes where they fit, so that a chunk is a run of
 * rows of the first axis.  Large enough that the codec's per-chunk table
 * and header cost well under 1%, small enough that reading one row of a
 * large tensor decodes a few MiB, not the tensor.
 */
#define GT_SINK_CHUNK_VALUES (1u << 20)

/*
 * Begin tensor @t (name, dtype, shape, attributes).  Raw and .npy sinks
 * hold one tensor: a second begin is GT_ERR(INVAL).  An unknown count
 * (GT_COUNT_UNKNOWN) is allowed for raw only.
 */
int gt_sink_begin(struct gt_sink *s, const struct gt_tensor_info *t,
		  struct gt_diag *d);
/* Append @n values (little-endian, the tensor's dtype). */
int gt_sink_write(struct gt_sink *s, const void *src, size_t n,
		  struct gt_diag *d);
/* End the tensor: GT_ERR(CORRUPT) when fewer or more values than its count came. */
int gt_sink_end(struct gt_sink *s, struct gt_diag *d);
/* Flush, close and rename into place (or copy to stdout). */
int gt_sink_commit(struct gt_sink *s, struct gt_diag *d);
/* Free; without a successful commit the temporary file is removed. */
void gt_sink_free(struct gt_sink *s);


/*
 * gt_write_file - write @len bytes at @data to @path ("-": stdout) as a
 * whole: through a temporary file renamed into place, refusing an
 * existing @path unless @force.
 * @return 0, GT_ERR(EXISTS), GT_ERR(IO).
 */
int gt_write_file(const char *path, int force, const void *data, size_t len,
		  struct gt_diag *d);

#endif
