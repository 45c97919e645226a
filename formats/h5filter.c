/* h5filter.c - gtool's own HDF5 filter, built in: files written with filter
 * 400 read without the plugin on HDF5_PLUGIN_PATH */
#define GT_H5Z_BUILTIN /* no H5PL entry points: this is no plugin */
#include "../plugins/h5z_gtool.c"
#include "gt_h5filter.h"

int gt_h5filter_register(void)
{
	return H5Zregister(&gt_h5z_class) < 0 ? GT_ERR(IO) : 0;
}
