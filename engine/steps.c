/* steps.c - the gradients of a file, step by step, read whole as f32 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_steps.h"
#include "gt_tensor.h"
#include "../lib/banned.h"

static void add(struct gt_steps *s, struct gt_step *st, size_t i)
{
	const uint64_t n = gt_source_info(s->src, i)->count;

	st->t[st->nt++] = i;
	if (n > s->most)
		s->most = (size_t)n;
}

static int list(struct gt_steps *s, const unsigned char *sel)
{
	const size_t ns = s->tr ? gt_trace_nsteps(s->tr) : 0;

	s->step = calloc(ns ? ns : 1, sizeof(*s->step));
	if (!s->step)
		return GT_ERR(NOMEM);
	s->n = ns ? ns : 1;
	if (!ns) {
		s->step[0].label[0] = '-';
		s->step[0].t = malloc((gt_source_count(s->src) + 1) * sizeof(size_t));
		if (!s->step[0].t)
			return GT_ERR(NOMEM);
		for (size_t i = 0; i < gt_source_count(s->src); i++)
			if (sel[i])
				add(s, &s->step[0], i);
		return 0;
	}
	for (size_t k = 0; k < ns; k++) {
		const struct gt_trace_step *st = gt_trace_step(s->tr, k);

		snprintf(s->step[k].label, sizeof(s->step[k].label), "%ld", st->step);
		s->step[k].t = malloc((st->n_grads + 1) * sizeof(size_t));
		if (!s->step[k].t)
			return GT_ERR(NOMEM);
		for (size_t g = 0; g < st->n_grads; g++)
			if (sel[st->grads[g]])
				add(s, &s->step[k], st->grads[g]);
	}
	return 0;
}

int gt_steps_open(struct gt_steps *s, const char *path, const struct gt_source_opts *o,
		  char *const *patterns, size_t npatterns, struct gt_diag *d)
{
	struct gt_diag rd = { "" };
	unsigned char *sel;
	int rc;

	memset(s, 0, sizeof(*s));
	s->path = path;
	rc = gt_source_open(path, o, &s->src, &rd);
	if (rc >= 0 && gt_source_ngroups(s->src))
		rc = gt_trace_open(s->src, &s->tr, &rd);
	if (rc < 0)
		return gt_diag_set(d, rc, "%s: %s", path, rd.msg);
	sel = calloc(gt_source_count(s->src) + 1, 1);
	if (!sel)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	rc = gt_tensor_select(s->src, patterns, npatterns, GT_SKIP_SILENT, NULL, sel, d);
	for (size_t i = 0; rc >= 0 && i < gt_source_count(s->src); i++)
		if (sel[i] && gt_source_info(s->src, i)->count == GT_COUNT_UNKNOWN)
			rc = gt_diag_set(d, GT_ERR(INVAL),
					 "%s: tensors are read whole: give a file, not a pipe", path);
	if (rc >= 0 && list(s, sel) < 0)
		rc = gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	free(sel);
	return rc;
}

void gt_steps_close(struct gt_steps *s)
{
	for (size_t k = 0; s->step && k < s->n; k++)
		free(s->step[k].t);
	free(s->step);
	gt_trace_free(s->tr);
	gt_source_free(s->src);
	memset(s, 0, sizeof(*s));
}

const char *gt_steps_name(const struct gt_steps *s, size_t i)
{
	const char *name = gt_source_info(s->src, i)->name;

	return s->tr ? gt_trace_param_name(name) : name;
}
