/* gt_h5filter.h - gtool's HDF5 filter (id 400) registered in this process */
#ifndef GT_H5FILTER_H
#define GT_H5FILTER_H

/*
 * gt_h5filter_register - register the gtool filter (plugins/h5z_gtool.c,
 * man/gtool-h5filter.5) with the HDF5 library of this process, so that
 * gtool reads datasets written with it without HDF5_PLUGIN_PATH.  Cheap
 * and idempotent: call it before opening an HDF5 file.
 * @return 0, GT_ERR(IO) when HDF5 refuses.
 */
int gt_h5filter_register(void);

#endif
