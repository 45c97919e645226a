/* gt_sim.h - AQGB's discrete-event simulation of quantized gradient broadcast */
#ifndef GT_SIM_H
#define GT_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/gt_error.h"

/*
 * The setting of the AQGB paper (§4-§5): m workers train a model split
 * into n blocks, each on its own link of C bits/s (both ways) to one
 * switch.  A round is a forward pass over blocks 0 .. n-1 then a backward
 * pass over blocks n-1 .. 0; the end of block j's backward pass makes its
 * gradient, which the worker broadcasts to the m - 1 others in chunks of
 * at most `chunk` values, one chunk at a time (reliable broadcast: a chunk
 * is done when every receiver has it).  Each chunk to each receiver is a
 * flow over the sender's uplink and the receiver's downlink; concurrent
 * flows share the links max-min fairly (progressive filling).  The forward
 * pass of block j in round r + 1 starts when the worker has finished its
 * previous block and holds every other worker's first-stage data of block
 * j from round r; the time spent blocked there is T_wait.
 *
 * Compute: a round takes iter_time x U[0.9, 1.1] (GT_SIM_UNIFORM, §5.1.1)
 * or, with stragglers (GT_SIM_STRAGGLER, §5.2.5: [1.33, 2.67] s around a
 * 1.5 s mean, Fig. 8 being published only as a plot), iter_time x
 * U[0.8867, 1.0333] with probability 1 - p and iter_time x U[1.3333, 1.78]
 * with probability p = 0.04 / 0.59667 (a round over 2 s at 1.5 s is a
 * straggler), which keeps the mean at iter_time.  Forward takes fp_fraction
 * of it, backward the rest, split over the blocks by their shares.  Draws
 * come from gt_rng (seed, worker, round): the same seed gives the same run.
 *
 * Schemes:
 *   fixed k bits   every value is sent with its first k bits (TFP; 32: no
 *                  quantization), no second stage.
 *   AQGB           two-stage control (§4.3-§4.4).  Stage 1: before each
 *                  chunk, u = bits of generated-yet-unsent values at full
 *                  width, t_next = when the next block appears, b = payload
 *                  rate of the sender's last chunk; q1 = b (t_next - t) / u,
 *                  the chunk goes out with L_F = ceil(32 max(q1, qbar)) bits
 *                  (qbar once the last block has appeared).  Gradients go
 *                  last come, first served.  Stage 2, once a worker's first
 *                  stage of a round is done: blocks in forward order, each
 *                  chunk sends ceil(max(q2, qbar) (32 - L_F)) more bits, q2 =
 *                  b (t_j^FP - t) / u(g_j^S), t_j^FP the latest estimate over
 *                  all workers of when block j's next forward pass starts;
 *                  a block past its deadline is dropped, and new first-stage
 *                  data preempts the second stage.  Second-stage bits count
 *                  as used by a receiver only when they arrive before its
 *                  forward pass of the block.
 *
 * Metrics over [0, duration]: T_comp, T_wait and T_overlap (time computing
 * while any flow of the worker, sent or received, is active) per worker;
 * ROW = T_overlap / T_wait (Eq. 1) and the group's ROW = min T_overlap /
 * max T_wait (Eq. 2), both over the whole run; T_wait / T_comp; link
 * utilization = bits carried / (2 m C duration) over all 2 m links; rounds
 * (backward passes finished by the slowest worker); and the mean bits of a
 * received value when its forward pass starts.
 */

enum gt_sim_timing { GT_SIM_UNIFORM, GT_SIM_STRAGGLER };
enum gt_sim_scheme { GT_SIM_FIXED, GT_SIM_AQGB };

/* A model block: its size and its shares of the forward and backward time. */
struct gt_sim_block {
	uint64_t values;
	double fp_share, bp_share; /* each sums to 1 over the blocks */
};

#define GT_SIM_RESNET50_BLOCKS 4
/* Table 1 of the AQGB paper: ResNet-50 in 4 blocks (3 M, 5.6 M, 6 M, 11 M
 * parameters), FP:BP = 0.365:0.635. */
extern const struct gt_sim_block gt_sim_resnet50[GT_SIM_RESNET50_BLOCKS];
#define GT_SIM_RESNET50_FP_FRACTION 0.365

struct gt_sim_config {
	unsigned workers;            /* m, 2 ... GT_SIM_MAX_WORKERS */
	double link_bps;             /* C > 0 */
	double iter_time;            /* mean seconds of FP + BP, > 0 */
	double fp_fraction;          /* (0, 1) */
	enum gt_sim_timing timing;
	double duration;             /* > 0 seconds */
	uint64_t seed;
	const struct gt_sim_block *blocks; /* forward order, block 0 first */
	size_t nblocks;              /* 1 ... GT_SIM_MAX_BLOCKS */
	enum gt_sim_scheme scheme;
	unsigned bits;               /* GT_SIM_FIXED: 1 ... 32 */
	double qbar;                 /* GT_SIM_AQGB: (0, 1] */
	uint64_t chunk;              /* values per chunk, >= 1 */
};
#define GT_SIM_MAX_WORKERS 256
#define GT_SIM_MAX_BLOCKS 4096
#define GT_SIM_MAX_CHUNKS (1u << 20) /* chunks per round of one worker */

struct gt_sim_worker {
	uint64_t rounds;
	double t_comp, t_wait, t_overlap;
	double row;        /* T_overlap / T_wait; +Inf when T_wait is 0 */
	double wait_norm;  /* T_wait / T_comp */
	double bits_per_value;
};

struct gt_sim_result {
	uint64_t rounds;       /* min over the workers */
	double row;            /* Eq. 2; +Inf when no worker waited */
	double wait_norm;      /* mean over the workers of T_wait / T_comp */
	double utilization;    /* 0 ... 1 */
	double bits_per_value; /* over every received value consumed */
	uint64_t events;       /* simulation steps, for the curious */
};

/*
 * gt_sim_run - simulate @c; per-worker results into @w (c->workers
 * entries, may be NULL), the group's into @r.  Allocates its state for
 * the call.  Deterministic for a seed.  @return 0, GT_ERR(INVAL) (a
 * parameter out of range), GT_ERR(NOMEM).
 */
int gt_sim_run(const struct gt_sim_config *c, struct gt_sim_worker *w,
	       struct gt_sim_result *r);

/*
 * gt_sim_maxmin - the max-min fair rates the simulation gives flows:
 * @m workers, each with an uplink and a downlink of @link_bps; flow
 * s -> d (s != d) is active when @active[s * m + d] is non-zero.  Writes
 * @rate[s * m + d] in bits/s (0 for inactive flows and s = d).  For tests
 * and for the curious.  @return 0, GT_ERR(INVAL), GT_ERR(NOMEM).
 */
int gt_sim_maxmin(unsigned m, double link_bps, const unsigned char *active, double *rate);

#endif
