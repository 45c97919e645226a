/* gt_ringmodel.h - ring allreduce time with and without a codec (GComp Fig. 10) */
#ifndef GT_RINGMODEL_H
#define GT_RINGMODEL_H

#include "gt_breakeven.h"

/*
 * GComp §6.2 puts its codec inside Gloo's ring allreduce: the tensor of
 * M bytes is cut into N partitions of P = M / N bytes; a reduce-scatter
 * of N - 1 steps and an allgather of N - 1 steps each send one partition
 * to the next worker.  With a codec, every step compresses the partition
 * it sends, sends the compressed bytes and decompresses what it receives,
 * pipelined over K = max(1, ceil(P / chunk)) chunks.  On a link of B
 * bytes/s with a per-message latency a:
 *
 *   T_none  = 2 (N - 1) (a + P / B)
 *   c = P / (K Tc),  x = a + r P / (K B),  d = P / (K Td)
 *   T_codec = 2 (N - 1) (c + x + d + (K - 1) max(c, x, d))
 *   normalized = T_codec / T_none            (GComp Figure 10's y axis)
 *
 * Below 1 the codec makes the allreduce faster.  The reduction itself is
 * left out of both (it is the same work).  Pure; thread-safe.
 */
struct gt_ring_params {
	unsigned workers;   /* N >= 2 */
	double bytes;       /* M > 0 */
	double link_Bps;    /* B > 0, bytes/s */
	double latency;     /* a >= 0, seconds per message */
	double chunk_bytes; /* > 0: the pipelining unit */
};

struct gt_ring_result {
	double partition_bytes; /* P */
	double chunks;          /* K */
	double t_none, t_codec; /* seconds */
	double normalized;      /* t_codec / t_none */
};

/*
 * gt_ring_model - the times above for codec @c.
 * @return 0, GT_ERR(INVAL) when a parameter is out of range.
 */
int gt_ring_model(const struct gt_ring_params *p, const struct gt_codec_speed *c,
		  struct gt_ring_result *ret);

#endif
