/* modules.c - the gtool binary's heavy file kinds, loaded on first use
 *
 * libhdf5 needs some thirty more shared libraries (curl, TLS, Kerberos,
 * LDAP, ...), and libzip brings OpenSSL's libcrypto: loading them was most
 * of what a gtool command cost before it read a byte (15 and 3.5 ms of
 * 20).  So the binary is linked without either, and what reads and writes
 * HDF5 files (formats/hdf5.c and its friends) and what reads .npz archives
 * (formats/npz.c) are modules of their own, gtool-hdf5.so and
 * gtool-npz.so, that gt_hdf5() and gt_npz() load the first time a command
 * needs them.  A module is looked for beside the binary (the build tree)
 * and in ../lib/gtool/ from it (make install).  These definitions take the
 * place of formats/h5api.c's and formats/npzapi.c's, which libgtool and
 * the other programs link.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../formats/gt_hdf5.h"
#include "../formats/gt_npz.h"
#include "../lib/banned.h"

struct module {
	const char *file, *symbol, *what;
	const void *api;
	char why[200];
};

static struct module hdf5 = { "gtool-hdf5.so", GT_HDF5_MODULE_SYMBOL, "HDF5", NULL, "" };
static struct module npz = { "gtool-npz.so", GT_NPZ_MODULE_SYMBOL, ".npz", NULL, "" };

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

static void load(struct module *m)
{
	static const char *const where[] = { "/", "/../lib/gtool/" };
	char dir[PATH_MAX], path[PATH_MAX + 64];
	void *h = NULL;

	snprintf(m->why, sizeof(m->why), "cannot find the folder of the gtool binary");
	for (size_t i = 0; !h && i < sizeof(where) / sizeof(where[0]) &&
			   exe_dir(dir, sizeof(dir)); i++) {
		snprintf(path, sizeof(path), "%s%s%s", dir, where[i], m->file);
		if (access(path, F_OK) != 0) {
			snprintf(m->why, sizeof(m->why), "%s not found beside the gtool binary "
				 "nor in ../lib/gtool/", m->file);
			continue;
		}
		h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			snprintf(m->why, sizeof(m->why), "%s", dlerror());
			break; /* the module is there but broken: say so */
		}
	}
	if (h) {
		m->api = dlsym(h, m->symbol);
		if (!m->api)
			snprintf(m->why, sizeof(m->why), "%s has no %s", m->file, m->symbol);
	}
}

static void load_hdf5(void)
{
	load(&hdf5);
}

static void load_npz(void)
{
	load(&npz);
}

/* @m's table, loaded by @once through @fn; NULL with @d saying why. */
static const void *get(struct module *m, pthread_once_t *once, void (*fn)(void),
		       struct gt_diag *d)
{
	pthread_once(once, fn);
	if (!m->api)
		gt_diag_set(d, GT_ERR(IO), "cannot load gtool's %s support: %s", m->what, m->why);
	return m->api;
}

const struct gt_hdf5_api *gt_hdf5(struct gt_diag *d)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	return get(&hdf5, &once, load_hdf5, d);
}

const struct gt_npz_api *gt_npz(struct gt_diag *d)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	return get(&npz, &once, load_npz, d);
}
