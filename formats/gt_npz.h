/* gt_npz.h - reading .npz archives as a table, as gt_hdf5.h does for HDF5:
 * in libgtool a direct table; the gtool binary loads it from a module of
 * its own (gtool-npz.so) on first use, so that libzip and the OpenSSL
 * library it needs are not loaded by every command. */
#ifndef GT_NPZ_H
#define GT_NPZ_H

#include <stdio.h>

#include "../lib/gt_error.h"

struct gt_source;

struct gt_npz_api {
	/* formats/source_impl.h's open function of an .npz archive */
	int (*source_open)(struct gt_source *s, FILE *f, struct gt_diag *d);
};

/* The table itself (formats/npz.c): what gtool-npz.so exports. */
extern const struct gt_npz_api gt_npz_module;
#define GT_NPZ_MODULE_SYMBOL "gt_npz_module"

/*
 * gt_npz - the .npz support, loaded first if need be.
 * @return the table, or NULL with @d (when not NULL) saying why it cannot
 * be loaded; GT_ERR(IO) is what to return then.
 */
const struct gt_npz_api *gt_npz(struct gt_diag *d);

#endif
