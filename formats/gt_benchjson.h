/* gt_benchjson.h - read the results of `gtool bench --format json` */
#ifndef GT_BENCHJSON_H
#define GT_BENCHJSON_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/gt_error.h"

/*
 * `gtool bench --format json` writes an array of objects, one per codec,
 * thread count and direction:
 *
 *   {"codec": "zstd", "options": "level=3", "spec": "zstd:level=3",
 *    "threads": 1, "direction": "compress", "repeat": 7, "bytes": 123456,
 *    "ratio": 0.71, "mbps_median": 296.1, "mbps_min": 280.0,
 *    "mbps_max": 301.2, "peak_rss_mib": 38.2}
 *
 * mbps_* are MB/s (10^6 bytes) of original data; ratio is compressed /
 * original bytes.  The reader is strict about these twelve keys (each
 * present once, of its type, in range) and passes over keys it does not
 * know, so that a later bench may add fields.  JSON syntax is Jansson's
 * (duplicate keys rejected).  Hostile-input safe: sizes and string
 * lengths are bounded and every value is checked before use.
 */
#define GT_BENCH_MAX_BYTES ((size_t)16 << 20) /* largest file read */
#define GT_BENCH_MAX_ROWS 100000
#define GT_BENCH_STR_MAX 256 /* longest codec, options or spec, with NUL */

enum gt_bench_dir { GT_BENCH_COMPRESS, GT_BENCH_DECOMPRESS };

struct gt_bench_row {
	char codec[GT_BENCH_STR_MAX], options[GT_BENCH_STR_MAX], spec[GT_BENCH_STR_MAX];
	unsigned threads;            /* 1 ... 4096 */
	enum gt_bench_dir direction;
	unsigned repeat;             /* >= 1 */
	uint64_t bytes;              /* >= 1 */
	double ratio;                /* > 0 */
	double mbps_median, mbps_min, mbps_max; /* > 0 */
	double peak_rss_mib;         /* >= 0 */
};

/*
 * gt_bench_parse - the rows of a bench JSON text of @len bytes.  On
 * success *@rows_ret is a malloc'd array of *@n_ret rows (caller frees;
 * NULL when 0 rows).  On failure @d says where: "entry 3: \"ratio\" is
 * not a positive number", "line 2 column 5: ...".
 * @return 0, GT_ERR(CORRUPT), GT_ERR(OVERFLOW) (too large), GT_ERR(NOMEM).
 */
int gt_bench_parse(const void *text, size_t len, struct gt_bench_row **rows_ret,
		   size_t *n_ret, struct gt_diag *d);

/* gt_bench_read - gt_bench_parse() of the file @path; GT_ERR(IO) too. */
int gt_bench_read(const char *path, struct gt_bench_row **rows_ret, size_t *n_ret,
		  struct gt_diag *d);

#endif
