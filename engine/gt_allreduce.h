/* gt_allreduce.h - the options of `gtool allreduce`, shared with build/gtool-mpi */
#ifndef GT_ALLREDUCE_H
#define GT_ALLREDUCE_H

#include <argp.h>
#include <stddef.h>
#include <stdint.h>

#include "gt_spec.h"
#include "gt_table.h"

/* The codec list when -c is not given (codec none is always run). */
#define GT_ALLREDUCE_CODECS "zstd:level=1,zlib:level=1,huffexp,gcomp"
/* Values per pipelined chunk when --chunk is not given. */
#define GT_ALLREDUCE_CHUNK ((uint64_t)1 << 15)

/*
 * What the command line asks for.  `gtool allreduce` parses it (so that
 * --help and usage errors need no MPI) and then runs the sibling
 * executable gtool-mpi with the same arguments, which parses them again
 * into the same struct.
 */
struct gt_allreduce_opts {
	struct gt_speclist codecs; /* -c: one spec per entry ("zstd:level=1"), split */
	long step;          /* --step: the trace's step number; 0: the first */
	const char *per_rank; /* --per-rank PATTERN: "%d" is the rank */
	double rate;        /* --rate in bits/s; 0: loopback, not paced */
	const char *rate_arg;
	long repeat;        /* --repeat: timed runs per codec */
	uint64_t chunk;     /* --chunk: values per pipelined chunk */
	long tile;          /* --tile: each rank's gradient repeated K times */
	enum gt_fmt fmt;
	const char *dump;   /* --dump DIR: rank 0 writes the results there */
	int quiet;
	const char *input;  /* the trace (or array) every rank reads */
};

/* The argp parser both front ends run: bad values are usage errors, every
 * codec spec is checked with gt_spec_init. */
extern const struct argp gt_allreduce_argp;


/*
 * gt_allreduce_rank_path - @pattern with its one "%d" (or "%0Nd") replaced
 * by @rank into @buf; "%%" is a percent sign.  Returns 0, -1 when the
 * pattern has no or more than one conversion or @cap is short.
 */
int gt_allreduce_rank_path(const char *pattern, int rank, char *buf, size_t cap);

/* Free what parsing allocated. */
void gt_allreduce_release(struct gt_allreduce_opts *o);

#endif
