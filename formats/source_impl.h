/* source_impl.h - how each file kind plugs into gt_source (internal to formats/) */
#ifndef GT_SOURCE_IMPL_H
#define GT_SOURCE_IMPL_H

#include <stdio.h>

#include "gt_source.h"

struct gt_source_ops {
	int (*read)(struct gt_source *s, size_t i, uint64_t first, size_t n,
		    void *dst, size_t *n_ret, struct gt_diag *d);
	void (*close)(struct gt_source *s); /* frees priv only */
};

/*
 * gt_source_open() allocates this, sets kind, path and opts, and calls the
 * kind's open function, which fills tensors, groups, ops and priv.
 * gt_source_free() calls ops->close, then frees tensors and groups.
 */
struct gt_source {
	const struct gt_source_ops *ops;
	enum gt_kind kind;
	char *path;
	struct gt_source_opts opts;
	struct gt_tensor_info *tensors;
	size_t ntensors;
	struct gt_group_info *groups;
	size_t ngroups;
	struct gt_object *objects;
	size_t nobjects;
	char **lost;
	size_t nlost;
	/* the bytes of object i (a non-float dataset); NULL: the kind has none */
	int (*read_object)(struct gt_source *s, size_t i, struct gt_blob *b,
			   struct gt_diag *d);
	void *priv;
};

/* The kinds' open functions. @f is the opened file (NULL for HDF5, which
 * opens by name); a kind takes ownership of @f on success and failure. */
int gt_hdf5_source_open(struct gt_source *s, struct gt_diag *d);
int gt_raw_source_open(struct gt_source *s, FILE *f, struct gt_diag *d);
int gt_npy_source_open(struct gt_source *s, FILE *f, struct gt_diag *d);
int gt_gtz_source_open(struct gt_source *s, FILE *f, struct gt_diag *d);

/* Release one tensor info's allocations (name, attrs). */
void gt_tensor_info_release(struct gt_tensor_info *t);
/* Free one attribute's allocations and zero it. */
void gt_attr_release(struct gt_attr *a);
/* Append a phrase to s->lost (printf-style); GT_ERR(NOMEM). */
int gt_source_add_lost(struct gt_source *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
