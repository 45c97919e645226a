/* atomic.h - write a file under a temporary name, rename it on success (internal) */
#ifndef GT_ATOMIC_H
#define GT_ATOMIC_H

#include "../lib/gt_error.h"

struct gt_atomic {
	char *path; /* the target */
	char *tmp;  /* ".<base>.XXXXXX" in the target's folder while open */
	int force;
	int done;
	int direct; /* the target is a FIFO or a device: written in place */
};

/*
 * gt_atomic_create - refuse an existing regular @path unless @force, then
 * create a temporary file beside it (O_EXCL, mode 0666 less the umask) and
 * return its descriptor.  A @path that exists and is not a regular file (a
 * FIFO, /dev/null) is opened and written in place, as zstd does: renaming
 * over it would replace the device with a file.
 * @return 0, GT_ERR(EXISTS), GT_ERR(IO), GT_ERR(NOMEM).
 */
int gt_atomic_create(struct gt_atomic *a, const char *path, int force,
		     int *fd_ret, struct gt_diag *d);
/* Rename the temporary file over the target (without @force, never over
 * a file that appeared meanwhile). */
int gt_atomic_commit(struct gt_atomic *a, struct gt_diag *d);
/* Remove the temporary file unless committed; free. Safe to call twice. */
void gt_atomic_release(struct gt_atomic *a);
/*
 * gt_atomic_tmp_path - the temporary file's name while it exists (created,
 * not yet renamed); NULL when writing in place or after the commit.  The
 * string is @a's: a caller that removes it on a signal copies it.
 */
const char *gt_atomic_tmp_path(const struct gt_atomic *a);

#endif
