/* msg.c - error and warning messages on stderr, for both front ends (gtool and gtool-mpi) */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "../lib/banned.h"

static const char *msg_prefix = "gtool";
static int msg_quiet;

void gt_msg_set_prefix(const char *prefix) { msg_prefix = prefix; }
const char *gt_msg_prefix(void) { return msg_prefix; }
void gt_msg_set_quiet(int quiet) { msg_quiet = quiet; }
int gt_msg_quiet(void) { return msg_quiet; }

__attribute__((format(printf, 2, 0)))
static void vreport(const char *kind, const char *fmt, va_list ap, int err)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	fflush(stdout);
	if (err)
		fprintf(stderr, "%s: %s%s: %s\n", msg_prefix, kind, buf, strerror(err));
	else
		fprintf(stderr, "%s: %s%s\n", msg_prefix, kind, buf);
}

int gt_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
	return -1;
}

int gt_error_errno(const char *fmt, ...)
{
	const int err = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, err);
	va_end(ap);
	return -1;
}

void gt_warn(const char *fmt, ...)
{
	va_list ap;

	if (msg_quiet)
		return;
	va_start(ap, fmt);
	vreport("warning: ", fmt, ap, 0);
	va_end(ap);
}

void gt_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap, 0);
	va_end(ap);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		gt_die("out of memory (allocating %zu bytes)", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		gt_die("out of memory (allocating %zu x %zu bytes)", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		gt_die("out of memory (allocating %zu bytes)", n);
	return q;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		gt_die("out of memory");
	return p;
}

/* The engine's warnings become gt_warn lines (silenced by -q), its extra
 * errors gt_error lines; its notes are printed as they come. */
static void notify(void *arg, enum gt_note kind, const char *msg)
{
	(void)arg;
	if (kind == GT_NOTE_WARN) {
		gt_warn("%s", msg);
	} else if (kind == GT_NOTE_ERROR) {
		gt_error("%s", msg);
	} else {
		fflush(stdout);
		fprintf(stderr, "%s: %s\n", msg_prefix, msg);
	}
}

const struct gt_notify gt_msg_notify = { notify, NULL };
