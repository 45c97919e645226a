/* atomic.c - temporary file beside the target, renamed into place on success */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "gt_sink.h"
#include "../lib/banned.h"

/* Why the temporary file beside @path (its folder: @dirlen bytes) could not
 * be made, told in terms of the output the user named. */
static int tmp_failed(const char *path, int dirlen, int err, struct gt_diag *d)
{
	const int len = dirlen > 1 ? dirlen - 1 : dirlen; /* "dir/" -> "dir", "/" stays */

	if (dirlen && err == ENOENT)
		return gt_diag_set(d, GT_ERR(IO), "%s: folder %.*s does not exist", path, len, path);
	if (dirlen && err == ENOTDIR)
		return gt_diag_set(d, GT_ERR(IO), "%s: %.*s is not a folder", path, len, path);
	return gt_diag_set(d, GT_ERR(IO), "%s: cannot create a file in %s%.*s: %s", path,
			   dirlen ? "folder " : "the current folder", len, path, strerror(err));
}

/* ".<base>.XXXXXX" next to the target, O_EXCL, mode 0666 (the umask
 * applies, as for a plain fopen), unlike mkstemp's 0600. */
static int make_tmp(struct gt_atomic *a, int *fd_ret, struct gt_diag *d)
{
	const char *slash = strrchr(a->path, '/');
	const int dirlen = slash ? (int)(slash - a->path + 1) : 0;
	const char *base = slash ? slash + 1 : a->path;
	const size_t cap = strlen(a->path) + 16;
	struct timespec ts;

	a->tmp = malloc(cap);
	if (!a->tmp)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	clock_gettime(CLOCK_REALTIME, &ts);
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		const uint32_t r = (uint32_t)((uintptr_t)a ^ (uintptr_t)ts.tv_nsec ^
					      ((uint32_t)getpid() << 8) ^ (attempt * 0x9e3779b9u));

		snprintf(a->tmp, cap, "%.*s.%s.%06x", dirlen, a->path, base,
			 (unsigned)(r & 0xffffff));
		*fd_ret = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (*fd_ret >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	free(a->tmp);
	a->tmp = NULL;
	return tmp_failed(a->path, dirlen, errno, d);
}

int gt_atomic_create(struct gt_atomic *a, const char *path, int force,
		     int *fd_ret, struct gt_diag *d)
{
	struct stat sb;

	memset(a, 0, sizeof(*a));
	a->force = force;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
		*fd_ret = open(path, O_WRONLY | O_CLOEXEC);
		if (*fd_ret < 0)
			return gt_diag_set(d, GT_ERR(IO), "%s: %s", path, strerror(errno));
		a->direct = 1;
		return 0;
	}
	if (!force && stat(path, &sb) == 0)
		return gt_diag_set(d, GT_ERR(EXISTS), "%s exists; use -f to overwrite", path);
	a->path = strdup(path);
	if (!a->path)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	return make_tmp(a, fd_ret, d);
}

int gt_atomic_commit(struct gt_atomic *a, struct gt_diag *d)
{
	int rc = -1;

	if (a->direct)
		return 0;
#ifdef RENAME_NOREPLACE
	if (!a->force) {
		rc = renameat2(AT_FDCWD, a->tmp, AT_FDCWD, a->path, RENAME_NOREPLACE);
		if (rc < 0 && errno == EEXIST)
			return gt_diag_set(d, GT_ERR(EXISTS), "%s exists; use -f to overwrite",
					   a->path);
	}
#endif
	if (rc < 0)
		rc = rename(a->tmp, a->path);
	if (rc < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot rename %s to %s: %s",
				   a->tmp, a->path, strerror(errno));
	a->done = 1;
	return 0;
}

void gt_atomic_release(struct gt_atomic *a)
{
	if (a->tmp && !a->done)
		unlink(a->tmp);
	free(a->tmp);
	free(a->path);
	a->tmp = a->path = NULL;
}

const char *gt_atomic_tmp_path(const struct gt_atomic *a)
{
	return a->direct || a->done ? NULL : a->tmp;
}

int gt_write_file(const char *path, int force, const void *data, size_t len,
		  struct gt_diag *d)
{
	struct gt_atomic a;
	FILE *f = NULL;
	int fd, rc;

	if (!strcmp(path, "-")) {
		if (fwrite(data, 1, len, stdout) != len || fflush(stdout))
			return gt_diag_set(d, GT_ERR(IO), "write error: %s", strerror(errno));
		return 0;
	}
	rc = gt_atomic_create(&a, path, force, &fd, d);
	if (rc >= 0 && !(f = fdopen(fd, "wb"))) {
		close(fd);
		rc = gt_diag_set(d, GT_ERR(IO), "%s: %s", path, strerror(errno));
	}
	if (rc >= 0 && (fwrite(data, 1, len, f) != len || fflush(f)))
		rc = gt_diag_set(d, GT_ERR(IO), "%s: write error: %s", path, strerror(errno));
	if (f && fclose(f) && rc >= 0)
		rc = gt_diag_set(d, GT_ERR(IO), "%s: write error: %s", path, strerror(errno));
	if (rc >= 0)
		rc = gt_atomic_commit(&a, d);
	gt_atomic_release(&a);
	return rc;
}
