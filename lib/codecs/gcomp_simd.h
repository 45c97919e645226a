/* gcomp_simd.h - gcomp's vector encoder kernels (x86-64 AVX-512, AVX2), internal */
#ifndef GT_GCOMP_SIMD_H
#define GT_GCOMP_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "../gt_bitio.h"
#include "../gt_optim.h"

/*
 * The encoder's instruction sets: GC_ISA_SCALAR is the portable C of
 * gcomp.c (the reference); GC_ISA_AVX512 runs the kernels below
 * (gcomp_x86.c), GC_ISA_AVX2 their 256-bit versions (gcomp_avx2.c: AVX2,
 * FMA, BMI2; no PEXT or PDEP, which are slow on AMD before Zen 3).  All
 * give the same bytes: the kernels do the same IEEE operations in the
 * same order (double, no contraction) and only reorganize the loops.
 */
enum gc_isa { GC_ISA_SCALAR = 0, GC_ISA_AVX512 = 1, GC_ISA_AVX2 = 2 };

/* The best instruction set this CPU runs (GC_ISA_SCALAR off x86-64). */
enum gc_isa gc_isa_detect(void);

/* Whether this CPU (and build) runs @isa: GC_ISA_SCALAR always. */
int gc_isa_runs(enum gc_isa isa);

/*
 * δ of f32 values, factored for the level test (gcomp.c, above
 * dplan_init, says how): per value N from θ, g and the states by the
 * operations of delta_one() in gt_optim.c; then either |N/(K g) − λθ/g|
 * (@quot) or |N (+ θ − θ when @qz)| against |K g| times the thresholds.
 * @ibc2 is 1/bc2, for the kernel's approximate filter only.
 */
struct gc_dplan {
	enum gt_optim_kind kind;
	int first, quot, qz; /* momentum without buffer; Q term; θ − θ */
	double K, lam, a1, a2, a3, a4, eps, bc1, bc2, ibc2, t1, t2, t3;
};

/*
 * The float32 filter in front of the level kernels' double test (the
 * kinds whose N takes a root and has no Q term; gcomp_x86.c, above
 * lev16f(), and gcomp_avx2.c, above lev8f(), say what it computes and
 * why its answer is the double test's): @on whether it applies, the
 * constants rounded to float, the guards as bounds on g's exponent field
 * e: glo <= e <= glo + gspan (unsigned e - glo <= gspan).
 */
struct gc_fplan {
	int on;
	float x0, x1, x2, ca, cb, eps, c1, c2, c3;
	uint32_t glo, gspan;
};

/* gc_fplan_init - the filter of @q (x86-64 builds only). */
void gc_fplan_init(struct gc_fplan *f, const struct gc_dplan *q);

/*
 * What the level kernel needs beyond δ: @cv the values as coded (f32
 * bits, subnormals flushed in the pruning modes), @zt whether ±0.0 has
 * its ZERO/NZERO token, @zl the level of a ±0.0, @zc[s] whether a ±0.0 of
 * sign s carries a word, @badmap a 512-bit map (16 words) of the symbols
 * without a code (bit s of word s / 32), NULL where none of the values
 * can lack one (the level kernel skips the test then).
 */
struct gc_lparams {
	const uint32_t *cv;
	uint32_t zt, zl, zc[2];
	const uint32_t *badmap;
};

/*
 * gc_avx512_levels - levels of values [0, k) with k = @n rounded down to
 * 16: lv[i] as gcomp.c's levels_f32() sets it (δ level; 0 for a g with
 * exponent 0 or all ones; @lp->zl for a coded ±0.0), carriers per level
 * added to @cnt.  @s0, @s1 may be NULL (read as zeros).
 * @return k; *@bad_ret gets 1 when a value's symbol has no code.
 */
size_t gc_avx512_levels(const struct gc_dplan *q, const struct gc_lparams *lp,
			size_t n, const float *g, const float *p, const float *s0,
			const float *s1, uint8_t *lv, uint64_t *cnt, int *bad_ret);

/*
 * What the token kernel needs: @ctab[e] the code of exponent symbol e
 * (bits | length << 24, from gc_ctx.enc), @wtab the 64 of them from
 * @wbase on, @zent[s] and @zc[s] the code
 * and carrier flag of a ±0.0 of sign s when @zt (ZERO/NZERO tokens),
 * @runs whether runs of +0.0 are coded, @lstream whether levels are
 * written, @sh[l] and @wd[l] the dropped bits and word width of level l,
 * @run_code the RUN code (bits | length << 32, from gc_ctx.enc).
 *
 * huffexp's f32 chunks (mixed signs, whole mantissas) are the same
 * tokens with every value at level 0 (@lv NULL) and the word of
 * huffexp's layout (@rot: the value rotated left by one, its low 24
 * bits); a symbol without a code has bit 23 of its entry set and a
 * length of 0, and @bad, when not NULL, is set to whether any value
 * coded had one (gcomp's level pass has checked, and passes NULL).
 * Only gc_avx512_encode() takes these three: with AVX2 the same was
 * slower than huffexp's scalar loop (gc_avx2_encode() needs @rot 0,
 * @bad NULL and @lv).
 */
/* The token kernels' entry of a gt_huff_enc_words() word @e: code bits |
 * length << 24, or 1 << 23 with length 0 for a symbol without a code. */
static inline uint32_t gc_code_entry(uint64_t e)
{
	return e >> 41 & 1 ? UINT32_C(1) << 23
			   : (uint32_t)(e & 0xffffff) | (uint32_t)(e >> 32 & 0xff) << 24;
}

/*
 * gc_code_table - struct gc_eparams' @ctab from the words @enc of the 256
 * exponent symbols (gcomp's and huffexp's tables alike), and its window:
 * the 64 entries from *@wbase_ret on into @wtab, ending at the highest
 * exponent 1-254 with a code.
 */
void gc_code_table(const uint64_t *enc, uint32_t *ctab, uint32_t *wtab, uint32_t *wbase_ret);

struct gc_eparams {
	const uint32_t *ctab, *wtab; /* wtab: ctab[wbase .. wbase + 63] */
	uint32_t wbase;
	uint64_t run_code;
	uint32_t zent[2], zc[2], zt;
	int runs, lstream;
	int w24; /* wd[0] is 24: the words of level 0 are packed 16 at once */
	int rot;
	int *bad;
	unsigned sh[4], wd[4];
};

/*
 * gc_eparams_codes - the fields of @ep that the encode words @enc give,
 * with their kernel tables from gc_code_table(): @ctab, @wtab and @wbase,
 * the entries of the tokens of +0.0 and -0.0 (symbols @z0 and @z1 of
 * @enc: ZERO and NZERO, or exponent 0 where zeros have no token of their
 * own) and whether they carry a word, and the code of RUN.
 */
void gc_eparams_codes(struct gc_eparams *ep, const uint64_t *enc, const uint32_t *ctab,
		      const uint32_t *wtab, uint32_t wbase, unsigned z0, unsigned z1);

/*
 * gc_avx512_encode - tokens, levels and words of f32 values @cv from @i
 * on, sixteen at a time (fewer at the end), RUN tokens where enc_values()
 * in gcomp.c codes them, while each writer has 128 bytes of room before
 * its end (@cend, @mend, @lend); the same bits as enc_values().  Every
 * symbol must have a code (the level pass checked).
 * @return where it stopped: @n, or where a writer ran short of room.
 */
size_t gc_avx512_encode(const struct gc_eparams *ep, const uint32_t *cv,
			const uint8_t *lv, size_t i, size_t n, struct gt_bitw_fast *cw,
			const unsigned char *cend, struct gt_bitw_fast *mw,
			const unsigned char *mend, struct gt_bitw_fast *lw,
			const unsigned char *lend);

/*
 * gc_avx512_count - count_levels() of gcomp.c for values [0, k), k = @n
 * rounded down to 16, as for gc_avx512_levels() but with the levels
 * already in @lv (±0.0 set to @lp->zl here).
 * @return k; *@bad_ret as there.
 */
size_t gc_avx512_count(const struct gc_lparams *lp, size_t n, uint8_t *lv, uint64_t *cnt,
		       int *bad_ret);

/*
 * The float32 constants of one optimizer step, as gt_optim.c's step_*()
 * compute them from struct gt_optim (gcomp.c fills them the same way):
 * @has_buf whether the momentum buffer (state 0) exists yet.
 */
struct gc_sparams {
	enum gt_optim_kind kind;
	int has_wd, has_buf;
	float wd, mom, damp1, neg_lr, eps, alpha, one_alpha, decay;
	float b1, one_b1, b2, one_b2, bc2_sqrt;
};

/*
 * gc_avx512_exact - exact mode's levels of @n f32 values (gcomp.c's
 * levels_exact()): lv[i] the highest level whose truncated g gives a θ_t
 * bit-identical to g's (0 when none; 3 for ±0.0 and for a value pruned);
 * with @prune (the chunk holds a subnormal) first a zero of g's sign is
 * tried, and @tv receives every value, the pruned ones as that zero.
 * @neg_lr of @sp is −η (−η̃ for AdaGrad, −η/(1 − β1^t) for Adam).
 */
void gc_avx512_exact(const struct gc_sparams *sp, const unsigned *lev, int prune, size_t n,
		     const float *g, const float *p, const float *s0, const float *s1,
		     uint8_t *lv, uint32_t *tv);

/* gc_avx512_has_sub - whether any of @n f32 values at @v is subnormal. */
int gc_avx512_has_sub(const uint32_t *v, size_t n);

/* The same kernels with AVX2 (gcomp_avx2.c), eight lanes where the ones
 * above take sixteen: the same contracts, and the same bytes. */
size_t gc_avx2_levels(const struct gc_dplan *q, const struct gc_lparams *lp, size_t n,
		      const float *g, const float *p, const float *s0, const float *s1,
		      uint8_t *lv, uint64_t *cnt, int *bad_ret);
size_t gc_avx2_encode(const struct gc_eparams *ep, const uint32_t *cv, const uint8_t *lv,
		      size_t i, size_t n, struct gt_bitw_fast *cw, const unsigned char *cend,
		      struct gt_bitw_fast *mw, const unsigned char *mend,
		      struct gt_bitw_fast *lw, const unsigned char *lend);
size_t gc_avx2_count(const struct gc_lparams *lp, size_t n, uint8_t *lv, uint64_t *cnt,
		     int *bad_ret);
void gc_avx2_exact(const struct gc_sparams *sp, const unsigned *lev, int prune, size_t n,
		   const float *g, const float *p, const float *s0, const float *s1,
		   uint8_t *lv, uint32_t *tv);
int gc_avx2_has_sub(const uint32_t *v, size_t n);

/* The kernels of @isa (GC_ISA_AVX2 or GC_ISA_AVX512), for gcomp.c. */
static inline size_t gc_vec_levels(int isa, const struct gc_dplan *q,
				   const struct gc_lparams *lp, size_t n, const float *g,
				   const float *p, const float *s0, const float *s1,
				   uint8_t *lv, uint64_t *cnt, int *bad_ret)
{
	return isa == GC_ISA_AVX2 ? gc_avx2_levels(q, lp, n, g, p, s0, s1, lv, cnt, bad_ret) :
				    gc_avx512_levels(q, lp, n, g, p, s0, s1, lv, cnt, bad_ret);
}

static inline size_t gc_vec_encode(int isa, const struct gc_eparams *ep, const uint32_t *cv,
				   const uint8_t *lv, size_t i, size_t n,
				   struct gt_bitw_fast *cw, const unsigned char *cend,
				   struct gt_bitw_fast *mw, const unsigned char *mend,
				   struct gt_bitw_fast *lw, const unsigned char *lend)
{
	return isa == GC_ISA_AVX2 ?
		       gc_avx2_encode(ep, cv, lv, i, n, cw, cend, mw, mend, lw, lend) :
		       gc_avx512_encode(ep, cv, lv, i, n, cw, cend, mw, mend, lw, lend);
}

static inline size_t gc_vec_count(int isa, const struct gc_lparams *lp, size_t n,
				  uint8_t *lv, uint64_t *cnt, int *bad_ret)
{
	return isa == GC_ISA_AVX2 ? gc_avx2_count(lp, n, lv, cnt, bad_ret) :
				    gc_avx512_count(lp, n, lv, cnt, bad_ret);
}

static inline void gc_vec_exact(int isa, const struct gc_sparams *sp, const unsigned *lev,
				int prune, size_t n, const float *g, const float *p,
				const float *s0, const float *s1, uint8_t *lv, uint32_t *tv)
{
	if (isa == GC_ISA_AVX2)
		gc_avx2_exact(sp, lev, prune, n, g, p, s0, s1, lv, tv);
	else
		gc_avx512_exact(sp, lev, prune, n, g, p, s0, s1, lv, tv);
}

static inline int gc_vec_has_sub(int isa, const uint32_t *v, size_t n)
{
	return isa == GC_ISA_AVX2 ? gc_avx2_has_sub(v, n) : gc_avx512_has_sub(v, n);
}

#endif
