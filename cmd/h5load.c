/* h5load.c - the gtool binary's HDF5 support, loaded on first use
 *
 * libhdf5 needs some thirty more shared libraries (curl, TLS, Kerberos,
 * LDAP, ...), and loading them is most of what a gtool command costs
 * before it reads a byte: 15 ms of 20.  So the binary is linked without
 * HDF5, and formats/hdf5.c and its friends are a module of their own,
 * gtool-hdf5.so, that gt_hdf5() loads the first time a command opens or
 * writes an HDF5 file.  The module is looked for beside the binary (the
 * build tree) and in ../lib/gtool/ from it (make install).  This
 * definition of gt_hdf5() takes the place of formats/h5api.c's, which
 * libgtool and the other programs link.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../formats/gt_hdf5.h"
#include "../lib/banned.h"

#define MODULE "gtool-hdf5.so"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const struct gt_hdf5_api *api;
static char why[200];

/* The folder of the running binary into @dir; 0 when unknown. */
static int exe_dir(char *dir, size_t len)
{
	const ssize_t n = readlink("/proc/self/exe", dir, len - 1);
	char *slash;

	if (n <= 0 || (size_t)n >= len - 1)
		return 0;
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	return 1;
}

static void load(void)
{
	static const char *const where[] = { "/" MODULE, "/../lib/gtool/" MODULE };
	char dir[PATH_MAX], path[PATH_MAX + 32];
	void *h = NULL;

	snprintf(why, sizeof(why), "cannot find the folder of the gtool binary");
	for (size_t i = 0; !h && i < sizeof(where) / sizeof(where[0]) &&
			   exe_dir(dir, sizeof(dir)); i++) {
		snprintf(path, sizeof(path), "%s%s", dir, where[i]);
		if (access(path, F_OK) != 0) {
			snprintf(why, sizeof(why), "%s not found beside the gtool binary "
				 "nor in ../lib/gtool/", MODULE);
			continue;
		}
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			snprintf(why, sizeof(why), "%s", dlerror());
			break; /* the module is there but broken: say so */
		}
	}
	if (h) {
		api = dlsym(h, GT_HDF5_MODULE_SYMBOL);
		if (!api)
			snprintf(why, sizeof(why), "%s has no %s", MODULE, GT_HDF5_MODULE_SYMBOL);
	}
}

const struct gt_hdf5_api *gt_hdf5(struct gt_diag *d)
{
	pthread_once(&once, load);
	if (!api)
		gt_diag_set(d, GT_ERR(IO), "cannot load gtool's HDF5 support: %s", why);
	return api;
}
