/* gt_notify.h - how the engine tells its caller about things that are not errors */
#ifndef GT_NOTIFY_H
#define GT_NOTIFY_H

/*
 * The engine never prints (STYLE.md §3).  Errors come back as a return
 * code with a struct gt_diag; warnings ("kept losslessly with huffexp")
 * and notes ("skipping /labels (integer)") go to a callback the front end
 * supplies, which prints them, counts them or drops them.
 */
enum gt_note {
	GT_NOTE_WARN,  /* something the user asked for was not done as asked */
	GT_NOTE_INFO,  /* what was done, for a verbose front end */
	GT_NOTE_ERROR, /* one of several errors; the call returns the last
			* with its struct gt_diag */
};

struct gt_notify {
	/* @msg: one phrase, no program name, no '\n' (as struct gt_diag) */
	void (*fn)(void *arg, enum gt_note kind, const char *msg);
	void *arg;
};

/*
 * gt_notify_send - format a message printf-style and hand it to @n's
 * callback.  @n may be NULL, or have no callback: the message is dropped.
 */
void gt_notify_send(const struct gt_notify *n, enum gt_note kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
