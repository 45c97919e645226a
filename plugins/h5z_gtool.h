/* h5z_gtool.h - gtool's codecs as an HDF5 filter: ids, cd_values layout, entry */
#ifndef GT_H5Z_GTOOL_H
#define GT_H5Z_GTOOL_H

#include <stddef.h>

/*
 * Filter id 400, from the range 256-511 that HDF5 sets aside for filters
 * being tested before The HDF Group registers them; a registered id
 * replaces it once one is assigned.  The filter's name is "gtool".
 */
#define GT_H5Z_ID 400
#define GT_H5Z_NAME "gtool"

/*
 * cd_values (man/gtool-h5filter.5): the layout version, the codec's
 * container id (formats/GTZ.md), the dtype (formats/GTZ.md's numbering)
 * and the values in one HDF5 chunk (both filled in by set_local), then
 * the codec's options, one number each, 0 meaning the codec's default.
 * No cd_values at all means huffexp with its defaults.
 */
enum {
	GT_H5Z_CD_VERSION = 0,
	GT_H5Z_CD_CODEC = 1,
	GT_H5Z_CD_DTYPE = 2,
	GT_H5Z_CD_CHUNK = 3,
	GT_H5Z_CD_OPTS = 4, /* the first codec option */
};
/* cd_values[0] this filter writes; it reads 1 and 2.  2: its chunks may
 * hold huffexp's split chunks (.gtz format 1.3), which a filter of layout
 * 1 cannot decode, so that one refuses the dataset by its layout. */
#define GT_H5Z_LAYOUT 2
#define GT_H5Z_OPTS_MAX 3 /* codec options after GT_H5Z_CD_OPTS */
#define GT_H5Z_CD_MAX (GT_H5Z_CD_OPTS + GT_H5Z_OPTS_MAX)

/* gtool values per gtool chunk inside one HDF5 chunk (GTZ.md's C) */
#define GT_H5Z_CHUNK_VALUES 65536u

/*
 * gt_h5z_filter - the H5Z_func_t: codes the @nbytes at *@buf (a chunk of
 * the dataset) into one gtool block, or with H5Z_FLAG_REVERSE in @flags
 * decodes such a block.  On success frees *@buf, replaces it with a buffer
 * from H5allocate_memory() of *@buf_size bytes and returns the bytes
 * used; on failure leaves *@buf alone, pushes an HDF5 error saying why
 * and returns 0.  Reentrant: all state lives on the call's stack.
 */
size_t gt_h5z_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
		     size_t nbytes, size_t *buf_size, void **buf);

#endif
