/* fdpipe.h - a larger buffer for a pipe at stdin or stdout (internal) */
#ifndef GT_FDPIPE_H
#define GT_FDPIPE_H

#include <stddef.h>

/* What gtool asks for: 16 times Linux's default of 64 KiB. */
#define GT_PIPE_BYTES ((size_t)1 << 20)

/*
 * gt_fdpipe_widen - when @fd is a pipe smaller than @bytes, ask the kernel
 * for @bytes (F_SETPIPE_SZ): the process at the other end then waits and
 * is woken 16 times less often, and more of gtool's writing or reading
 * overlaps its coding.  A refusal (over /proc/sys/fs/pipe-max-size or the
 * per-user limit) leaves the pipe as it was; a pipe is never shrunk.
 * @return the pipe's size afterwards, 0 when @fd is not a pipe.
 */
size_t gt_fdpipe_widen(int fd, size_t bytes);

#endif
