/* gt_error.c - messages for gtool's error codes */
#include <stdarg.h>
#include <stdio.h>

#include "gt_error.h"
#include "banned.h"

static const char *const messages[GT_E_COUNT_] = {
	[GT_OK] = "success",
#define X(n, s) [GT_E_##n] = s,
	GT_ERRORS(X)
#undef X
};

const char *gt_strerror(int rc)
{
	const int e = rc < 0 ? -rc : rc;

	if (e >= GT_E_COUNT_)
		return "unknown error";
	return messages[e];
}

int gt_diag_set(struct gt_diag *d, int rc, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return rc;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return rc;
}
