/* benchjson.c - read the results of `gtool bench --format json` (Jansson) */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "gt_benchjson.h"
#include "gt_bytes.h"
#include "../lib/banned.h"

static int get_str(json_t *obj, const char *key, char *dst, size_t i, struct gt_diag *d)
{
	const json_t *v = json_object_get(obj, key);
	size_t len;

	if (!v || !json_is_string(v))
		return gt_diag_set(d, GT_ERR(CORRUPT), "entry %zu: \"%s\" is %s", i, key,
				   v ? "not a string" : "missing");
	len = json_string_length(v);
	if (len >= GT_BENCH_STR_MAX || memchr(json_string_value(v), 0, len))
		return gt_diag_set(d, GT_ERR(CORRUPT), "entry %zu: \"%s\" is too long "
				   "or holds a NUL", i, key);
	memcpy(dst, json_string_value(v), len + 1);
	return 0;
}

static int get_uint(json_t *obj, const char *key, uint64_t max, uint64_t *ret,
		    size_t i, struct gt_diag *d)
{
	const json_t *v = json_object_get(obj, key);
	json_int_t n;

	if (!v || !json_is_integer(v))
		return gt_diag_set(d, GT_ERR(CORRUPT), "entry %zu: \"%s\" is %s", i, key,
				   v ? "not an integer" : "missing");
	n = json_integer_value(v);
	if (n < 1 || (uint64_t)n > max)
		return gt_diag_set(d, GT_ERR(CORRUPT), "entry %zu: \"%s\" is out of range "
				   "(1 to %llu)", i, key, (unsigned long long)max);
	*ret = (uint64_t)n;
	return 0;
}

/* A finite number, > 0 (@positive) or >= 0. */
static int get_num(json_t *obj, const char *key, int positive, double *ret,
		   size_t i, struct gt_diag *d)
{
	const json_t *v = json_object_get(obj, key);
	double x;

	if (!v || !json_is_number(v))
		return gt_diag_set(d, GT_ERR(CORRUPT), "entry %zu: \"%s\" is %s", i, key,
				   v ? "not a number" : "missing");
	x = json_number_value(v);
	if (!isfinite(x) || x < 0 || (positive && !(x > 0)))
		return gt_diag_set(d, GT_ERR(CORRUPT), "entry %zu: \"%s\" is not a %s number",
				   i, key, positive ? "positive" : "non-negative");
	*ret = x;
	return 0;
}

static int get_dir(json_t *obj, enum gt_bench_dir *ret, size_t i, struct gt_diag *d)
{
	char s[GT_BENCH_STR_MAX];

	GT_TRY(get_str(obj, "direction", s, i, d));
	if (!strcmp(s, "compress"))
		*ret = GT_BENCH_COMPRESS;
	else if (!strcmp(s, "decompress"))
		*ret = GT_BENCH_DECOMPRESS;
	else
		return gt_diag_set(d, GT_ERR(CORRUPT), "entry %zu: \"direction\" is neither "
				   "compress nor decompress", i);
	return 0;
}

/* Entry @i (1-based in messages) of the array. */
static int get_row(json_t *obj, struct gt_bench_row *r, size_t i, struct gt_diag *d)
{
	uint64_t threads, repeat;

	if (!json_is_object(obj))
		return gt_diag_set(d, GT_ERR(CORRUPT), "entry %zu is not an object", i);
	GT_TRY(get_str(obj, "codec", r->codec, i, d));
	GT_TRY(get_str(obj, "options", r->options, i, d));
	GT_TRY(get_str(obj, "spec", r->spec, i, d));
	GT_TRY(get_uint(obj, "threads", 4096, &threads, i, d));
	GT_TRY(get_dir(obj, &r->direction, i, d));
	GT_TRY(get_uint(obj, "repeat", UINT32_MAX, &repeat, i, d));
	GT_TRY(get_uint(obj, "bytes", UINT64_MAX >> 1, &r->bytes, i, d));
	GT_TRY(get_num(obj, "ratio", 1, &r->ratio, i, d));
	GT_TRY(get_num(obj, "mbps_median", 1, &r->mbps_median, i, d));
	GT_TRY(get_num(obj, "mbps_min", 1, &r->mbps_min, i, d));
	GT_TRY(get_num(obj, "mbps_max", 1, &r->mbps_max, i, d));
	GT_TRY(get_num(obj, "peak_rss_mib", 0, &r->peak_rss_mib, i, d));
	r->threads = (unsigned)threads;
	r->repeat = (unsigned)repeat;
	if (!(r->mbps_min <= r->mbps_median && r->mbps_median <= r->mbps_max))
		return gt_diag_set(d, GT_ERR(CORRUPT), "entry %zu: mbps_min <= mbps_median "
				   "<= mbps_max does not hold", i);
	return 0;
}

int gt_bench_parse(const void *text, size_t len, struct gt_bench_row **rows_ret,
		   size_t *n_ret, struct gt_diag *d)
{
	struct gt_bench_row *rows = NULL;
	json_error_t err;
	json_t *root;
	size_t n = 0;
	int rc = 0;

	*rows_ret = NULL;
	*n_ret = 0;
	if (len > GT_BENCH_MAX_BYTES)
		return gt_diag_set(d, GT_ERR(OVERFLOW), "larger than %zu bytes",
				   GT_BENCH_MAX_BYTES);
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (!root)
		return gt_diag_set(d, GT_ERR(CORRUPT), "line %d column %d: %s",
				   err.line, err.column, err.text);
	if (!json_is_array(root)) {
		rc = gt_diag_set(d, GT_ERR(CORRUPT), "not a JSON array of bench results");
		goto out;
	}
	n = json_array_size(root);
	if (n > GT_BENCH_MAX_ROWS) {
		rc = gt_diag_set(d, GT_ERR(OVERFLOW), "more than %d entries", GT_BENCH_MAX_ROWS);
		goto out;
	}
	rows = n ? calloc(n, sizeof(*rows)) : NULL;
	if (n && !rows) {
		rc = gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n && rc >= 0; i++)
		rc = get_row(json_array_get(root, i), &rows[i], i + 1, d);
out:
	json_decref(root);
	if (rc < 0) {
		free(rows);
		return rc;
	}
	*rows_ret = rows;
	*n_ret = n;
	return 0;
}

int gt_bench_read(const char *path, struct gt_bench_row **rows_ret, size_t *n_ret,
		  struct gt_diag *d)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len;
	int rc;

	*rows_ret = NULL;
	*n_ret = 0;
	if (!f)
		return gt_diag_set(d, GT_ERR(IO), "%s", strerror(errno));
	rc = gt_slurp(f, GT_BENCH_MAX_BYTES, &buf, &len);
	if (rc < 0)
		rc = gt_diag_set(d, rc, rc == GT_ERR(NOMEM) ? "out of memory" : "read error");
	else
		rc = gt_bench_parse((const char *)buf, len, rows_ret, n_ret, d);
	fclose(f);
	free(buf);
	return rc;
}
