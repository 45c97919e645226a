/* gt_rng.h - the seeded random numbers of the stochastic codecs */
#ifndef GT_RNG_H
#define GT_RNG_H

/*
 * SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): 64 bits of state, a Weyl sequence through a
 * strong mixer; it passes BigCrush and is what xoshiro's authors seed
 * with.  A stream starts from (seed, stream, pos) through the same mixer,
 * so a chunk's numbers depend on where the chunk is, not on which thread
 * codes it (gt_codec_seek).  Static inline and free of libc, so that CUDA
 * files can use it (GT_HD, from gt_float.h).
 */
#include <stdint.h>

#include "gt_float.h"

#define GT_RNG_GAMMA 0x9e3779b97f4a7c15ull

__extension__ typedef unsigned __int128 gt_rng_u128;

struct gt_rng {
	uint64_t s;
};

static inline GT_HD uint64_t gt_rng_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline GT_HD void gt_rng_init(struct gt_rng *r, uint64_t seed,
				     uint64_t stream, uint64_t pos)
{
	r->s = gt_rng_mix(gt_rng_mix(seed + GT_RNG_GAMMA) ^
			  gt_rng_mix(gt_rng_mix(stream + 2 * GT_RNG_GAMMA) ^ pos));
}

static inline GT_HD uint64_t gt_rng_u64(struct gt_rng *r)
{
	return gt_rng_mix(r->s += GT_RNG_GAMMA);
}

/* A uniform float in [0, 1) with 24 random bits. */
static inline GT_HD float gt_rng_unit_f(struct gt_rng *r)
{
	return (float)(gt_rng_u64(r) >> 40) * 0x1p-24f;
}

/* A uniform double in [0, 1) with 53 random bits. */
static inline GT_HD double gt_rng_unit(struct gt_rng *r)
{
	return (double)(gt_rng_u64(r) >> 11) * 0x1p-53;
}

/* A uniform integer in [0, n), n > 0, without modulo bias (Lemire). */
static inline GT_HD uint64_t gt_rng_below(struct gt_rng *r, uint64_t n)
{
	gt_rng_u128 m = (gt_rng_u128)gt_rng_u64(r) * n;
	uint64_t lo = (uint64_t)m;

	if (lo < n) {
		const uint64_t t = -n % n;

		while (lo < t) {
			m = (gt_rng_u128)gt_rng_u64(r) * n;
			lo = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

#endif
