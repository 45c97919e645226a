/* gt_error.h - error codes shared by every layer of gtool */
#ifndef GT_ERROR_H
#define GT_ERROR_H

/*
 * One list generates both the enum and the message table, so they cannot
 * drift apart.  Functions return 0 (or a positive count) on success and
 * GT_ERR(NAME), a negative value, on failure.
 */
#define GT_ERRORS(X)                                                   \
	X(NOMEM, "out of memory")                                      \
	X(INVAL, "invalid argument")                                   \
	X(IO, "input/output error")                                    \
	X(TRUNCATED, "unexpected end of data")                         \
	X(CORRUPT, "corrupt data")                                     \
	X(DST_TOO_SMALL, "output buffer too small")                    \
	X(UNSUPPORTED, "unsupported format version")                   \
	X(NOTFOUND, "not found")                                       \
	X(OVERFLOW, "size overflow")                                   \
	X(TYPE, "unsupported data type")                               \
	X(EXISTS, "file exists")

enum gt_errno {
	GT_OK = 0,
#define X(n, s) GT_E_##n,
	GT_ERRORS(X)
#undef X
	GT_E_COUNT_
};

#define GT_ERR(n) (-GT_E_##n)

/*
 * gt_strerror - the message for an error code.
 * @return a static string, never NULL ("unknown error" for codes not listed).
 */
const char *gt_strerror(int rc);

/*
 * A diagnostic filled by formats/ and analysis/ functions when they fail:
 * a phrase naming the object ("dataset /x not found"), with no program
 * name and no trailing newline, ready for cmd/ to print after its prefix.
 */
struct gt_diag {
	char msg[256];
};

/*
 * gt_diag_set - fill @d (which may be NULL) printf-style and return @rc,
 * so that a failing path can write `return gt_diag_set(d, rc, "...")`.
 */
int gt_diag_set(struct gt_diag *d, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define GT_TRY(expr)                                                   \
	do {                                                           \
		const int gt_try_rc_ = (expr);                         \
		if (gt_try_rc_ < 0)                                    \
			return gt_try_rc_;                             \
	} while (0)

#define GT_CHECK(cond, name)                                           \
	do {                                                           \
		if (!(cond))                                           \
			return GT_ERR(name);                           \
	} while (0)

#endif
