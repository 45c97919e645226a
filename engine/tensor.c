/* tensor.c - tensor selection (-d) and reading, shared by every front end */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "gt_tensor.h"
#include "../lib/gt_float.h"
#include "../lib/banned.h"

int gt_tensor_match(const char *path, char *const *patterns, size_t n)
{
	if (!n)
		return 1;
	for (size_t i = 0; i < n; i++) {
		const char *p = patterns[i];

		if (!fnmatch(p, path, 0))
			return 1;
		/* "grad/fc.weight" selects "/grad/fc.weight" too */
		if (*path == '/' && *p != '/' && !fnmatch(p, path + 1, 0))
			return 1;
	}
	return 0;
}

static int is_glob(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

/* Every pattern matches something, and a plain name names a float tensor. */
static int check_patterns(const struct gt_source *src, char *const *patterns, size_t n,
			  struct gt_diag *d)
{
	const char *path = gt_source_path(src);
	const size_t count = gt_source_count(src);

	for (size_t p = 0; p < n; p++) {
		size_t hits = 0;

		for (size_t i = 0; i < count; i++) {
			const struct gt_tensor_info *t = gt_source_info(src, i);

			if (!gt_tensor_match(t->name, &patterns[p], 1))
				continue;
			hits++;
			if (t->dtype == GT_DT_NONE && !is_glob(patterns[p]))
				return gt_diag_set(d, GT_ERR(INVAL),
						   "%s: dataset %s is %s, not floating point",
						   path, t->name, t->type_desc);
		}
		if (!hits)
			return gt_diag_set(d, GT_ERR(NOTFOUND), "%s: dataset %s not found",
					   path, patterns[p]);
	}
	return 0;
}

int gt_tensor_select(const struct gt_source *src, char *const *patterns, size_t n,
		     enum gt_skip_report report, const struct gt_notify *nt,
		     unsigned char *sel, struct gt_diag *d)
{
	const char *path = gt_source_path(src);

	GT_TRY(check_patterns(src, patterns, n, d));
	for (size_t i = 0; i < gt_source_count(src); i++) {
		const struct gt_tensor_info *t = gt_source_info(src, i);
		const int match = gt_tensor_match(t->name, patterns, n);

		sel[i] = match && t->dtype != GT_DT_NONE;
		if (!match || sel[i])
			continue;
		if (report == GT_SKIP_WARN)
			gt_notify_send(nt, GT_NOTE_WARN, "%s: skipping %s: %s data is not compressed",
				       path, t->name, t->type_desc);
		else if (report == GT_SKIP_NOTE)
			gt_notify_send(nt, GT_NOTE_INFO, "%s: skipping %s (%s)", path, t->name,
				       t->type_desc);
	}
	return 0;
}

int gt_tensor_read_f32(struct gt_source *src, size_t i, uint64_t first, size_t n,
		       float *dst, void *scratch, struct gt_diag *d)
{
	const struct gt_tensor_info *t = gt_source_info(src, i);
	void *raw = t->dtype == GT_DT_F32 ? (void *)dst
		  : scratch ? scratch : malloc(n * gt_dtype_size(t->dtype) + 1);
	struct gt_diag rd = { "" };
	size_t got = 0;
	int rc;

	if (!raw)
		return gt_diag_set(d, GT_ERR(NOMEM), "%s: %s: out of memory",
				   gt_source_path(src), t->name);
	rc = gt_source_read(src, i, first, n, raw, &got, &rd);
	if (rc < 0)
		gt_diag_set(d, rc, "%s: %s", gt_source_path(src), rd.msg);
	else if (got != n)
		rc = gt_diag_set(d, GT_ERR(TRUNCATED), "%s: %s: unexpected end of data",
				 gt_source_path(src), t->name);
	if (rc >= 0 && t->dtype != GT_DT_F32)
		for (size_t k = 0; k < n; k++)
			dst[k] = (float)gt_fp_get(raw, t->dtype, k);
	if (raw != dst && raw != scratch)
		free(raw);
	return rc < 0 ? rc : 0;
}

int gt_tensor_stream(struct gt_source *src, size_t i, void *buf, size_t buf_values,
		     int (*fn)(void *arg, const void *data, size_t n), void *arg,
		     struct gt_diag *d)
{
	struct gt_diag rd = { "" };
	uint64_t first = 0;
	size_t got;
	int rc;

	do {
		rc = gt_source_read(src, i, first, buf_values, buf, &got, &rd);
		if (rc < 0)
			return gt_diag_set(d, rc, "%s: %s", gt_source_path(src), rd.msg);
		if (got) {
			rc = fn(arg, buf, got);
			if (rc < 0)
				return rc;
		}
		first += got;
	} while (got);
	return 0;
}
