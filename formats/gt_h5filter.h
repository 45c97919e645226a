/* gt_h5filter.h - gtool's HDF5 filter (id 400) registered in this process */
#ifndef GT_H5FILTER_H
#define GT_H5FILTER_H

#include <stddef.h>

#include "../lib/gt_error.h"

/*
 * gt_h5filter_register - register the gtool filter (plugins/h5z_gtool.c,
 * man/gtool-h5filter.5) with the HDF5 library of this process, so that
 * gtool reads datasets written with it without HDF5_PLUGIN_PATH.  Cheap
 * and idempotent: call it before opening an HDF5 file.
 * @return 0, GT_ERR(IO) when HDF5 refuses.
 */
int gt_h5filter_register(void);

struct gt_codec;

/* cd_values of filter 400 hold at most this many numbers. */
#define GT_H5FILTER_CD_MAX 7

/*
 * gt_h5filter_cd - the cd_values (man/gtool-h5filter.5) that make filter
 * 400 code with codec @c and its options @opts ("key=value,...", as
 * struct gt_spec holds them): layout, codec id, dtype and chunk left 0 for
 * set_local, then each option.  Checks what the filter would refuse when
 * a dataset is created: a codec it does not have, an option it does not
 * take, a gcomp mode that needs the optimizer context.
 * @cd: room for GT_H5FILTER_CD_MAX; @n_ret: how many to pass.
 * @return 0, GT_ERR(UNSUPPORTED) (codec), GT_ERR(INVAL) (option or mode),
 *	GT_ERR(NOMEM); @d says which in one phrase.
 */
int gt_h5filter_cd(const struct gt_codec *c, const char *opts, unsigned *cd, size_t *n_ret,
		   struct gt_diag *d);

/*
 * gt_h5filter_spec - the -c spec ("tfp:bits=12", "huffexp") that @n
 * cd_values of filter 400 stand for, into @buf (@len bytes, truncated).
 * @return 0, GT_ERR(UNSUPPORTED) when the filter would refuse them.
 */
int gt_h5filter_spec(const unsigned *cd, size_t n, char *buf, size_t len);

#endif
