/* gt_bench.h - codec throughput on tensors held in memory */
#ifndef GT_BENCH_H
#define GT_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/gt_codec.h"
#include "../lib/gt_error.h"

/* One tensor in memory and how it is coded (as `gtool compress` would). */
struct gt_bench_input {
	const void *data;           /* @n values of @dtype, little-endian */
	size_t n;
	enum gt_dtype dtype;
	const struct gt_codec *codec;
	const char *opts;           /* the codec's options; NULL: defaults */
	const struct gt_optim *optim; /* for a codec that uses the context, or NULL */
	struct gt_codec_aux aux;    /* aux.param NULL: no optimizer context */
};

struct gt_bench_opts {
	unsigned threads;       /* >= 1: workers coding blocks in parallel */
	unsigned repeat;        /* >= 1 timed runs of each direction */
	unsigned warmup;        /* untimed runs before them (0 is allowed) */
	size_t block_values;    /* 0: 2^20, as .gtz */
	size_t chunk_values;    /* 0: 2^16, as .gtz (whole-block codecs: the block) */
};

/* The measurements of one gt_bench_run. */
struct gt_bench_result {
	uint64_t bytes;   /* original bytes of all inputs */
	uint64_t coded;   /* coded bytes: chunk payloads and block side data */
	double *comp_s;   /* @repeat wall seconds of compressing everything */
	double *decomp_s; /* @repeat wall seconds of decompressing it */
};

/*
 * gt_bench_run - code the @n inputs split into blocks and chunks as the
 * .gtz writer splits them (gt_codec_block_begin, gt_codec_encode_aux per
 * chunk; a block is one task on a pool of @o->threads workers, each with
 * its own codec contexts), @o->warmup + @o->repeat times, then decode them
 * back as many times; the caller's @r->comp_s and @r->decomp_s (each
 * @o->repeat doubles) get the timed runs' wall seconds.  After the first
 * decode, a lossless codec's output is checked against its input.
 * Nothing is read from or written to files; the timings cover coding only.
 * @return 0, GT_ERR(INVAL) (bad options, with @d), GT_ERR(NOMEM), a
 *	codec's error, GT_ERR(CORRUPT) when a lossless round trip differs.
 */
int gt_bench_run(const struct gt_bench_input *in, size_t n,
		 const struct gt_bench_opts *o, struct gt_bench_result *r,
		 struct gt_diag *d);

/* MB/s (10^6 bytes of original data per second) of @bytes in @secs. */
double gt_bench_mbps(uint64_t bytes, double secs);

/* Median, minimum and maximum of @n > 0 values (@v is sorted in place). */
void gt_bench_spread(double *v, size_t n, double *median, double *min, double *max);

#endif
