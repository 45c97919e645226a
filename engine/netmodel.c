/* netmodel.c - what the network models take: codec speeds (measured now or
 * from a bench file), a model's gradient tensors, link speeds and lists */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_measure.h"
#include "gt_netmodel.h"
#include "gt_parse.h"
#include "../formats/gt_source.h"
#include "../formats/gt_trace.h"
#include "../lib/banned.h"

const char *gt_rate_name(double bps, char *buf, size_t len)
{
	static const struct { double mult; const char *suffix; } steps[] = {
		{ 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
	};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (bps >= steps[i].mult) {
			snprintf(buf, len, "%.4g%s", bps / steps[i].mult, steps[i].suffix);
			return buf;
		}
	}
	snprintf(buf, len, "%.4g", bps);
	return buf;
}

/* Split @s at commas into a malloc'd copy; each item is handed to @fn. */
static int each_item(const char *s, size_t cap, size_t *n_ret,
		     int (*fn)(const char *item, size_t i, void *arg), void *arg)
{
	char *copy = strdup(s), *p = copy;
	size_t n = 0;
	int rc = copy ? 0 : -1;

	for (; copy;) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = 0;
		if (!*p || n == cap || fn(p, n, arg) < 0) {
			rc = -1;
			break;
		}
		n++;
		if (!comma)
			break;
		p = comma + 1;
	}
	free(copy);
	*n_ret = n;
	return rc;
}

static int rate_item(const char *item, size_t i, void *arg)
{
	return gt_parse_rate(item, (double *)arg + i);
}

int gt_parse_rate_list(const char *s, double *v, size_t cap, size_t *n_ret)
{
	return each_item(s, cap, n_ret, rate_item, v);
}

struct count_arg {
	long min, max, *v;
};

static int count_item(const char *item, size_t i, void *arg)
{
	const struct count_arg *c = arg;

	return gt_parse_int(item, c->min, c->max, c->v + i);
}

int gt_parse_count_list(const char *s, long min, long max, long *v, size_t cap,
			size_t *n_ret)
{
	struct count_arg c = { min, max, v };

	return each_item(s, cap, n_ret, count_item, &c);
}

static const struct gt_bench_row *partner(const struct gt_bench_row *rows, size_t n,
					  const struct gt_bench_row *r,
					  enum gt_bench_dir dir, size_t *count)
{
	const struct gt_bench_row *found = NULL;

	*count = 0;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].direction != dir || rows[i].threads != r->threads ||
		    strcmp(rows[i].spec, r->spec))
			continue;
		if (!found)
			found = &rows[i];
		++*count;
	}
	return found;
}

/* Check row @r against the others: one partner, measured once. */
static int pair_row(const char *path, const struct gt_bench_row *rows, size_t n,
		    const struct gt_bench_row *r, struct gt_codec_pair *p, struct gt_diag *d)
{
	const enum gt_bench_dir other = r->direction == GT_BENCH_COMPRESS ?
		GT_BENCH_DECOMPRESS : GT_BENCH_COMPRESS;
	const struct gt_bench_row *dr;
	size_t same, count;

	partner(rows, n, r, r->direction, &same);
	dr = partner(rows, n, r, other, &count);
	if (same > 1 || count > 1)
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: %s with %u thread%s is measured "
				   "more than once", path, r->spec, r->threads,
				   r->threads == 1 ? "" : "s");
	if (!dr)
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: %s with %u thread%s has no %s entry",
				   path, r->spec, r->threads, r->threads == 1 ? "" : "s",
				   other == GT_BENCH_COMPRESS ? "compress" : "decompress");
	if (r->direction == GT_BENCH_COMPRESS) {
		p->comp = r;
		p->speed.ratio = r->ratio;
		p->speed.comp_Bps = r->mbps_median * 1e6;
		p->speed.decomp_Bps = dr->mbps_median * 1e6;
	}
	return 0;
}

/* Pair the compress and decompress rows of @rows (from @label); takes @rows. */
static int pair_rows(const char *label, struct gt_bench_row *rows, size_t n,
		     struct gt_bench_row **rows_ret, struct gt_codec_pair **pairs_ret,
		     size_t *n_ret, struct gt_diag *d)
{
	struct gt_codec_pair *pairs;
	size_t np = 0;
	int rc;

	if (!n) {
		free(rows);
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: no bench results", label);
	}
	pairs = calloc(n, sizeof(*pairs));
	if (!pairs) {
		free(rows);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		rc = pair_row(label, rows, n, &rows[i], &pairs[np], d);
		if (rc < 0) {
			free(rows);
			free(pairs);
			return rc;
		}
		np += rows[i].direction == GT_BENCH_COMPRESS;
	}
	*rows_ret = rows;
	*pairs_ret = pairs;
	*n_ret = np;
	return 0;
}

int gt_bench_pairs(const char *path, struct gt_bench_row **rows_ret,
		   struct gt_codec_pair **pairs_ret, size_t *n_ret, struct gt_diag *d)
{
	struct gt_diag rd = { "" };
	struct gt_bench_row *rows;
	size_t n;
	int rc;

	*rows_ret = NULL;
	*pairs_ret = NULL;
	*n_ret = 0;
	rc = gt_bench_read(path, &rows, &n, &rd);
	if (rc < 0)
		return gt_diag_set(d, rc, "%s: %s", path, rd.msg);
	return pair_rows(path, rows, n, rows_ret, pairs_ret, n_ret, d);
}

static int add_tensor(struct gt_model_tensor **t, size_t *n,
		      const struct gt_tensor_info *info)
{
	struct gt_model_tensor *v = realloc(*t, (*n + 1) * sizeof(**t));

	if (!v)
		return GT_ERR(NOMEM);
	*t = v;
	v[*n].name = strdup(info->name);
	if (!v[*n].name)
		return GT_ERR(NOMEM);
	v[*n].count = info->count;
	v[*n].size = gt_dtype_size(info->dtype);
	++*n;
	return 0;
}

/* The first step's gradients of a trace; 0 tensors when @src is not one. */
static int trace_grads(const struct gt_source *src, struct gt_model_tensor **t,
		       size_t *n)
{
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	int rc = 0;

	if (gt_source_kind(src) == GT_KIND_HDF5 && gt_trace_open(src, &tr, &d) >= 0 &&
	    gt_trace_nsteps(tr)) {
		const struct gt_trace_step *st = gt_trace_step(tr, 0);

		for (size_t k = 0; k < st->n_grads && rc >= 0; k++)
			rc = add_tensor(t, n, gt_source_info(src, st->grads[k]));
	}
	gt_trace_free(tr);
	return rc;
}

int gt_model_tensors(const char *path, struct gt_model_tensor **t_ret, size_t *n_ret,
		     struct gt_diag *d)
{
	const struct gt_source_opts so = { GT_KIND_AUTO, GT_DT_NONE, 0 };
	struct gt_source *src = NULL;
	struct gt_diag rd = { "" };
	struct gt_model_tensor *t = NULL;
	size_t n = 0;
	int rc = gt_source_open(path, &so, &src, &rd);

	if (rc < 0)
		return gt_diag_set(d, rc, "%s: %s", path, rd.msg);
	rc = trace_grads(src, &t, &n);
	for (size_t i = 0; rc >= 0 && !n && i < gt_source_count(src); i++)
		if (gt_source_info(src, i)->dtype != GT_DT_NONE)
			rc = add_tensor(&t, &n, gt_source_info(src, i));
	if (rc < 0)
		gt_diag_set(d, rc, "out of memory");
	/* tensors read only after a scan of the whole list: keep the check here */
	for (size_t i = 0; i < n && rc >= 0; i++)
		if (t[i].count == GT_COUNT_UNKNOWN)
			rc = gt_diag_set(d, GT_ERR(INVAL), "%s: %s: size unknown (a pipe): give a file",
					 path, t[i].name);
	if (rc >= 0 && !n)
		rc = gt_diag_set(d, GT_ERR(NOTFOUND), "%s: no floating-point tensors", path);
	gt_source_free(src);
	if (rc < 0) {
		gt_model_tensors_free(t, n);
		return rc;
	}
	*t_ret = t;
	*n_ret = n;
	return 0;
}

void gt_model_tensors_free(struct gt_model_tensor *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(t[i].name);
	free(t);
}

/* Every spec of @l names a codec with valid options. */
static int check_specs(const struct gt_speclist *l, struct gt_diag *d)
{
	for (size_t i = 0; i < l->n; i++) {
		struct gt_spec s;

		GT_TRY(gt_spec_init(&s, l->v[i], 0, d));
		gt_spec_release(&s);
	}
	return 0;
}

int gt_bench_measure(const char *input, const char *codecs, unsigned repeat,
		     struct gt_bench_row **rows_ret, struct gt_codec_pair **pairs_ret,
		     size_t *n_ret, struct gt_diag *d)
{
	static const unsigned one = 1;
	struct gt_speclist l = { NULL, 0 };
	struct gt_measure_opts mo = { 0 };
	struct gt_bench_row *rows = NULL;
	size_t n = 0;
	int rc;

	*rows_ret = NULL;
	*pairs_ret = NULL;
	*n_ret = 0;
	rc = gt_speclist_add(&l, codecs ? codecs : GT_MEASURE_CODECS);
	if (rc < 0)
		gt_diag_set(d, rc, "out of memory");
	else
		rc = check_specs(&l, d);
	mo.input = input;
	mo.specs = &l;
	mo.threads = &one;
	mo.nthreads = 1;
	mo.repeat = repeat;
	mo.warmup = 1;
	if (rc >= 0)
		rc = gt_measure_run(&mo, &rows, &n, d);
	gt_speclist_release(&l);
	if (rc < 0)
		return rc;
	return pair_rows(input, rows, n, rows_ret, pairs_ret, n_ret, d);
}
