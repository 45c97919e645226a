/* msg.h - the only place the front ends (cmd/, mpi/) print diagnostics */
#ifndef GT_MSG_H
#define GT_MSG_H

#include <stddef.h>

#include "../engine/gt_notify.h"

/* Set once by main, and by each subcommand: "gtool stats". */
void gt_msg_set_prefix(const char *prefix);
const char *gt_msg_prefix(void);
/* Quiet mode silences warnings and progress, never errors. */
void gt_msg_set_quiet(int quiet);
int gt_msg_quiet(void);

/* "<prefix>: <msg>\n" on stderr; returns -1 so callers can `return gt_error(...)`. */
int gt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, followed by ": strerror(errno)". */
int gt_error_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gt_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Hands the engine's warnings to gt_warn and its notes to stderr. */
extern const struct gt_notify gt_msg_notify;

/* xmalloc family: print and exit(1) on out-of-memory (cmd/ only). */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
