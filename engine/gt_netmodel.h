/* gt_netmodel.h - what the network models take: codec speeds, a model's
 * gradient tensors, link speeds and lists of them */
#ifndef GT_NETMODEL_H
#define GT_NETMODEL_H

#include <stddef.h>

/* gt_parse_rate() is in gt_parse.h. */

/* The same rate as people write it: "2.5G", "100M", "1.2T", "950". */
const char *gt_rate_name(double bps, char *buf, size_t len);

/*
 * gt_parse_rate_list / gt_parse_count_list - a comma-separated list of
 * rates, or of whole numbers in [@min, @max]: "10G,56G,100G", "4,16,128".
 * At most @cap items; *@n_ret the count.  @return 0, -1 on a bad item,
 * an empty item or more than @cap items.
 */
int gt_parse_rate_list(const char *s, double *v, size_t cap, size_t *n_ret);
int gt_parse_count_list(const char *s, long min, long max, long *v, size_t cap,
			size_t *n_ret);

#endif

#include "../analysis/gt_breakeven.h"
#include "../formats/gt_benchjson.h"
#include "../lib/gt_error.h"

/* A codec measured both ways by `gtool bench` at one thread count. */
struct gt_codec_pair {
	const struct gt_bench_row *comp; /* the compress row */
	struct gt_codec_speed speed;     /* ratio, bytes/s both ways */
};

/*
 * gt_bench_pairs - read @path (gtool bench --format json) into @rows_ret
 * and pair each compress row with the decompress row of the same spec and
 * thread count, in the order of the compress rows.  Errors come back with
 * @d ("FILE: what"): an unreadable file, a row with no partner, a spec
 * measured twice, no rows.  Caller frees both arrays.
 */
int gt_bench_pairs(const char *path, struct gt_bench_row **rows_ret,
		   struct gt_codec_pair **pairs_ret, size_t *n_ret, struct gt_diag *d);

/*
 * gt_bench_measure - measure the codecs now, in this process, as `gtool
 * bench -q -T 1 --repeat @repeat [-c @codecs] @input` would (the engine's
 * gt_measure_run), and pair the rows as gt_bench_pairs() pairs those of a
 * --from file, so that "measured now" and "measured before" are checked
 * alike.  Returns 0 or a negative error with @d (a bad spec is its
 * gt_spec_init error).
 */
#define GT_MEASURE_CODECS "huffexp,gcomp,zstd:level=1,zstd:level=3,zlib:level=1,zlib:level=6"
int gt_bench_measure(const char *input, const char *codecs, unsigned repeat,
		     struct gt_bench_row **rows_ret, struct gt_codec_pair **pairs_ret,
		     size_t *n_ret, struct gt_diag *d);

/* A gradient tensor of a model, as the network models see it. */
struct gt_model_tensor {
	char *name;     /* malloc'd */
	uint64_t count; /* values */
	unsigned size;  /* bytes per value */
};

/*
 * gt_model_tensors - the gradients of the first step of the trace @path
 * (in the file's order), or every float tensor when @path is not a trace.
 * Errors come back with @d ("FILE: what"): unreadable, no float tensor, a
 * count unknown (a pipe).  Free with gt_model_tensors_free().
 */
int gt_model_tensors(const char *path, struct gt_model_tensor **t_ret, size_t *n_ret,
		     struct gt_diag *d);
void gt_model_tensors_free(struct gt_model_tensor *t, size_t n);
