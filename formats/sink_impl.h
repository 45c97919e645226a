/* sink_impl.h - how each file kind plugs into gt_sink (internal to formats/) */
#ifndef GT_SINK_IMPL_H
#define GT_SINK_IMPL_H

#include <stdio.h>

#include "atomic.h"
#include "gt_sink.h"

/*
 * The dispatcher (sink.c) creates the temporary file, checks the call
 * order and the value counts, and renames on commit; a kind only writes.
 */
struct gt_sink_ops {
	/* after s->tmp (or s->to_stdout) and, for raw and npy, s->f are set */
	int (*open)(struct gt_sink *s, struct gt_diag *d);
	int (*group)(struct gt_sink *s, const struct gt_group_info *g,
		     struct gt_diag *d); /* NULL: groups are ignored */
	int (*begin)(struct gt_sink *s, struct gt_diag *d); /* s->info is set */
	int (*write)(struct gt_sink *s, const void *src, size_t n,
		     struct gt_diag *d);
	int (*end)(struct gt_sink *s, struct gt_diag *d);
	/* write out and close the temporary file (or stdout) */
	int (*commit)(struct gt_sink *s, struct gt_diag *d);
	void (*close)(struct gt_sink *s); /* frees priv only */
	int (*object)(struct gt_sink *s, const struct gt_object *o,
		      struct gt_diag *d); /* NULL: links and whole datasets are ignored */
	int single; /* holds one tensor */
	int uses_file; /* the dispatcher opens s->f on the temporary file */
};

struct gt_sink {
	const struct gt_sink_ops *ops;
	enum gt_kind kind;
	char *path;
	struct gt_atomic at; /* the temporary file and the rename */
	const char *tmp; /* at.tmp: the temporary file; NULL for stdout */
	FILE *f;         /* raw, npy: the temporary file or stdout */
	int to_stdout;
	int force;
	int v110_index;  /* gt_sink_open_v110 */
	int committed;
	int in_tensor;
	size_t ntensors; /* begun so far */
	struct gt_tensor_info info; /* the current tensor: own name and attrs */
	uint64_t written;           /* values of the current tensor so far */
	unsigned filter_cd[8]; /* gt_sink_set_filter: filter 400's cd_values */
	size_t filter_n;       /* 0: no filter */
	void *priv;
};

extern const struct gt_sink_ops gt_raw_sink_ops;
extern const struct gt_sink_ops gt_npy_sink_ops;
extern const struct gt_sink_ops gt_hdf5_sink_ops;

/* fwrite all of @src to s->f; GT_ERR(IO) with @d saying why. */
int gt_sink_put(struct gt_sink *s, const void *src, size_t len,
		struct gt_diag *d);
/* Flush s->f and close it unless it is stdout. */
int gt_sink_close_file(struct gt_sink *s, struct gt_diag *d);

#endif
