/* npy_impl.h - the .npy header and layout, shared with the .npz reader (internal to formats/) */
#ifndef GT_NPY_IMPL_H
#define GT_NPY_IMPL_H

#include "source_impl.h"

/* How an array's values lie in the file. */
struct gt_npy_layout {
	uint64_t off;     /* byte offset of the data: preamble + header */
	int fortran;      /* column-major ('fortran_order': True) */
	int swap;         /* big-endian ('>f4'): bytes reversed per value */
	const char *kind; /* what a descr that is not a float is ("integer") */
};

/*
 * gt_npy_parse - parse the .npy preamble and header dict at @buf (@len
 * bytes, at least the whole header) into @t's dtype, rank, dims and count
 * and @l.  @return 0, GT_ERR(CORRUPT), GT_ERR(UNSUPPORTED) (version),
 * GT_ERR(TYPE) (not a float numpy dtype gtool reads; l->kind says what).
 */
int gt_npy_parse(const void *buf, size_t len, struct gt_tensor_info *t,
		 struct gt_npy_layout *l, struct gt_diag *d);

/*
 * gt_npy_to_c_order - the t->count values at @src as the file has them
 * (@fortran, @swap) to little-endian C order at @dst (no overlap unless
 * !@fortran, when @dst may be @src).
 */
void gt_npy_to_c_order(const struct gt_tensor_info *t, int fortran, int swap,
		       const void *src, void *dst);

#endif
