/* notify.c - warnings and notes of the engine, handed to the front end */
#include <stdarg.h>
#include <stdio.h>

#include "gt_notify.h"
#include "../lib/banned.h"

void gt_notify_send(const struct gt_notify *n, enum gt_note kind, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!n || !n->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n->fn(n->arg, kind, msg);
}
