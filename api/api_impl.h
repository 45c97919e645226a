/* api_impl.h - what the files of libgtool's public API share (internal to api/) */
#ifndef GT_API_IMPL_H
#define GT_API_IMPL_H

#include "gtool.h"
#include "../lib/gt_error.h"
#include "../lib/gt_optim.h"

/* Only the gtool_* functions leave the shared library (Makefile: the
 * objects are built with -fvisibility=hidden). */
#define GTOOL_API __attribute__((visibility("default")))

struct gtool_optctx {
	struct gt_optim o;
	const float *param;
	size_t n_param;
	const float *state[2];
	size_t n_state[2];
	char msg[256];
};

/* Copy @d's message into @err (NULL-safe); return @rc. */
int api_err(struct gtool_errbuf *err, int rc, const struct gt_diag *d);
/* printf into @err (NULL-safe); return @rc. */
int api_errf(struct gtool_errbuf *err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Clear @err for a call that starts. */
void api_err_clear(struct gtool_errbuf *err);
/* Copy @d's message, or gt_strerror(rc) when it is empty, into @msg[256]. */
int api_msg(char *msg, int rc, const struct gt_diag *d);

/* The element count of a shape; GT_ERR(INVAL) for a rank over the limit
 * or NULL dims with rank > 0, GT_ERR(OVERFLOW). */
int api_count(const uint64_t *dims, unsigned rank, uint64_t *count_ret);
/* @len bytes of @dtype: GT_ERR(INVAL)/(TYPE) unless len == count * size. */
int api_check_len(int dtype, uint64_t count, size_t len, struct gt_diag *d);
/* Every state buffer of the optimizer is given when its step is past the
 * first: GT_ERR(INVAL) naming the missing one. */
int api_optctx_states(const struct gtool_optctx *c, struct gt_diag *d);

#endif
