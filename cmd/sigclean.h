/* sigclean.h - remove temporary output files on SIGINT, SIGTERM, SIGHUP */
#ifndef GT_SIGCLEAN_H
#define GT_SIGCLEAN_H

/*
 * gt_sigclean_add - remove @path (a copy is kept) if the process is
 * stopped by SIGINT, SIGTERM or SIGHUP before gt_sigclean_remove(); the
 * signal is then raised again, so the exit status is 128 + its number, as
 * zstd does.  The first call installs the handlers (a signal ignored at
 * start stays ignored, as under nohup).  NULL @path: nothing, -1.
 * @return a slot for gt_sigclean_remove(), -1 when none is free or the
 * name is too long (the file is then not removed on a signal).
 */
int gt_sigclean_add(const char *path);

/* gt_sigclean_remove - forget slot @slot (-1: nothing). */
void gt_sigclean_remove(int slot);

#endif
