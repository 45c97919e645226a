/* gt_hdf5.h - the HDF5 support as one table: reading, writing, filter 400's
 * cd_values.  In libgtool a direct table; the gtool binary loads it from a
 * module of its own on first use, so that a command that touches no HDF5
 * file does not pay for loading libhdf5 and the libraries it needs. */
#ifndef GT_HDF5_H
#define GT_HDF5_H

#include <stddef.h>

#include "../lib/gt_error.h"

struct gt_source;
struct gt_sink_ops;

struct gt_hdf5_api {
	/* formats/source_impl.h's open function of the HDF5 kind */
	int (*source_open)(struct gt_source *s, struct gt_diag *d);
	/* gt_source_filters() of an HDF5 source */
	int (*source_filters)(const struct gt_source *s, size_t i, char *name,
			      size_t name_len, char *opts, size_t opts_len);
	/* the HDF5 kind's sink */
	const struct gt_sink_ops *sink_ops;
	/* gt_h5filter_cd() of the codec named @codec */
	int (*filter_cd)(const char *codec, const char *opts, unsigned *cd, size_t *n_ret,
			 struct gt_diag *d);
};

/* The table itself (formats/hdf5.c): what the gtool binary's module
 * exports under this name. */
extern const struct gt_hdf5_api gt_hdf5_module;
#define GT_HDF5_MODULE_SYMBOL "gt_hdf5_module"

/*
 * gt_hdf5 - the HDF5 support, loaded first if need be.
 * @return the table, or NULL with @d (when not NULL) saying why it
 * cannot be loaded; GT_ERR(IO) is what to return then.
 */
const struct gt_hdf5_api *gt_hdf5(struct gt_diag *d);

#endif
