/* trace_read.h - reading a sample trace's tensors whole, for unit tests */
#ifndef GT_TRACE_READ_H
#define GT_TRACE_READ_H

#include <stdlib.h>

#include "check.h"
#include "../../formats/gt_source.h"
#include "../../formats/gt_trace.h"

/* Tensor @idx of @s into a new buffer of *n_ret floats, or NULL. */
static inline float *read_all(struct gt_source *s, size_t idx, size_t *n_ret)
{
	const struct gt_tensor_info *t = gt_source_info(s, idx);
	struct gt_diag d = { "" };
	size_t n, got = 0;
	float *v;

	CHECK(t && t->dtype == GT_DT_F32);
	if (!t || t->dtype != GT_DT_F32)
		return NULL;
	n = (size_t)t->count;
	v = malloc((n ? n : 1) * sizeof(*v));
	CHECK(v != NULL);
	if (!v)
		return NULL;
	CHECK_RC(gt_source_read(s, idx, 0, n, v, &got, &d), 0);
	CHECK(got == n);
	*n_ret = n;
	return v;
}

/* Source tensor of @role (state buffer @buf) for parameter @name, or NULL. */
static inline float *load(struct gt_source *s, const struct gt_trace *tr, size_t step,
		   enum gt_role role, const char *buf, const char *name, size_t n)
{
	struct gt_diag d = { "" };
	size_t idx, got = 0;
	float *v;

	if (gt_trace_find(tr, step, role, buf, name, &idx, &d) < 0)
		return NULL;
	v = read_all(s, idx, &got);
	CHECK(got == n);
	if (got != n) {
		free(v);
		return NULL;
	}
	return v;
}

#endif
