/* ring.h - a ring allreduce with per-chunk compression, pipelined, over MPI */
#ifndef GT_MPI_RING_H
#define GT_MPI_RING_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "load.h"
#include "../lib/gt_codec.h"

/*
 * How a ring codes its messages: @enc and @dec are two contexts of one
 * codec (encode and decode keep separate block tables), or both NULL for
 * codec none (the floats are sent as they are).  @aux: pass the rank's
 * parameter and state of the values being coded (gcomp).
 */
struct ring_codec {
	struct gt_codec_ctx *enc, *dec;
	int aux;
	int lossless;
};

/* Seconds one rank spent in each part of a run, and what it sent. */
struct ring_stats {
	double total, compress, decompress, reduce;
	uint64_t bytes;
	uint64_t messages;
};

struct ring;

/*
 * ring_new - a ring over @comm for vectors of @n values, cut into
 * partitions (one per rank) and chunks of @chunk values.  @rate: bytes per
 * second each rank may send (a token bucket with no burst: a message is
 * handed to MPI when its last byte would have crossed a link of that
 * rate); 0: not paced.  @ctx gives the context when @codec->aux.
 * Returns 0, GT_ERR(NOMEM), GT_ERR(OVERFLOW).
 */
int ring_new(MPI_Comm comm, size_t n, size_t chunk, double rate,
	     const struct ring_codec *codec, const struct rank_grad *ctx,
	     struct ring **ret);
void ring_free(struct ring *r);

/*
 * ring_run - allreduce @buf (n values) in place: reduce-scatter then
 * allgather (GComp §6.2, Figure 8).  In the reduce-scatter every partial
 * sum is compressed by the rank that sends it; in the allgather the owner
 * of a reduced partition compresses it once, every rank forwards those
 * bytes unchanged, and the owner keeps the decoded copy, so that every
 * rank ends with the same values.  Collective: every rank calls it.
 * @return 0; GT_ERR(CORRUPT) and the like when a message does not decode,
 *	GT_ERR(IO) when MPI fails, with @d saying what (the caller aborts:
 *	the ring cannot continue without that rank).
 */
int ring_run(struct ring *r, float *buf, struct ring_stats *st, struct gt_diag *d);

#endif
