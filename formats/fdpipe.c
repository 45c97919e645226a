/* fdpipe.c - a larger buffer for a pipe at stdin or stdout */
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "fdpipe.h"
#include "../lib/banned.h"

size_t gt_fdpipe_widen(int fd, size_t bytes)
{
	struct stat sb;
	int now;

	if (fstat(fd, &sb) < 0 || !S_ISFIFO(sb.st_mode))
		return 0;
	now = fcntl(fd, F_GETPIPE_SZ);
	if (now < 0)
		return 0;
	if ((size_t)now < bytes && bytes <= INT_MAX) {
		const int got = fcntl(fd, F_SETPIPE_SZ, (int)bytes);

		if (got > 0)
			now = got;
	}
	return (size_t)now;
}
