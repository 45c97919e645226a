/* h5obj_impl.h - HDF5 values kept whole: attributes and non-float datasets (internal) */
#ifndef GT_H5OBJ_IMPL_H
#define GT_H5OBJ_IMPL_H

#include <hdf5.h>

#include "source_impl.h"

/* Where read attributes go, and where what cannot be kept is reported. */
struct h5_attr_ctx {
	struct gt_attrs *a;
	struct gt_source *s;  /* its lost list */
	const char *where;    /* the object's path */
	int rc;
};

/* Every attribute of @obj into ctx->a: its raw blob, and its simple view. */
int gt_h5_read_attrs(hid_t obj, struct h5_attr_ctx *ctx, struct gt_diag *d);
/* Write @a on @obj: from its blob when it has one, else from its view. */
int gt_h5_write_attr(hid_t obj, const struct gt_attr *a);

/* NULL when a value of @type can be kept byte for byte, else why not. */
const char *gt_h5_unkeepable(hid_t type);
/* "int64", "bool", "string", "compound", ... for a non-float type. */
const char *gt_h5_type_desc(hid_t type);

/* The type, shape and bytes of dataset @ds (named @name) into @b. */
int gt_h5_read_dataset_blob(hid_t ds, const char *name, struct gt_blob *b,
			    struct gt_diag *d);
/* Create dataset @o (its blob and attributes) under @file; @dcpl, @lcpl: its lists. */
int gt_h5_write_object(hid_t file, const struct gt_object *o, hid_t dcpl, hid_t lcpl,
		       struct gt_diag *d);
/* Why a read of @ds failed: a filter that is not available, else "read failed". */
int gt_h5_read_error(hid_t ds, const char *name, struct gt_diag *d);

#endif
