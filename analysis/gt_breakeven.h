/* gt_breakeven.h - when does a codec pay off on a link: the FFT paper's model */
#ifndef GT_BREAKEVEN_H
#define GT_BREAKEVEN_H

/*
 * The break-even model of Wang et al. (FFT-based Gradient Sparsification, HPDC '20) (§3.3, Eq. 1-4), with a codec's
 * measured throughputs in place of the paper's sum of primitive stages.
 * For a message of M bytes, a link of B bytes/s, a codec that compresses
 * at Tc and decompresses at Td (bytes of original data per second) and
 * has the size ratio r = compressed / original (compression factor
 * k = 1 / r):
 *
 *   cost_comp + cost_decomp = M / Tc + M / Td          (Eq. 1, both ends)
 *   cost_comm               = M / (B k)                (Eq. 2)
 *   saved_cost_comm         = M / B (1 - 1 / k)        (Eq. 3)
 *
 * Compression pays off when M / Tc + M / Td < M / B (1 - 1 / k), that is
 *
 *   k > k_min = 1 / (1 - B (1 / Tc + 1 / Td))          (Eq. 4)
 *
 * and no compression factor pays off when B (1 / Tc + 1 / Td) >= 1.  The
 * paper writes 2 cost_comp for both ends; gtool uses the measured
 * decompression speed for the receiving end.  M cancels out.
 *
 * Pure functions of their arguments; thread-safe.
 */

/* What the model needs to know of a codec. */
struct gt_codec_speed {
	double ratio;      /* compressed / original bytes, > 0 */
	double comp_Bps;   /* compression throughput, original bytes/s, > 0 */
	double decomp_Bps; /* decompression throughput, original bytes/s, > 0 */
};

/*
 * gt_breakeven_kmin - Eq. 4: the smallest compression factor that pays
 * off on a link of @link_Bps bytes/s.  @return k_min >= 1, or +Inf when
 * no factor pays off (or an argument is not positive).
 */
double gt_breakeven_kmin(double link_Bps, double comp_Bps, double decomp_Bps);

/*
 * gt_breakeven_speedup - time to send a message uncompressed over time
 * to compress, send and decompress it:
 *   (1 / B) / (1 / Tc + r / B + 1 / Td).
 * Above 1 the codec speeds the transfer up (exactly when 1 / r > k_min),
 * below 1 it slows it down.  @return the speedup, or NaN when an argument
 * is not positive.
 */
double gt_breakeven_speedup(const struct gt_codec_speed *c, double link_Bps);

#endif
