/* gt_isa.h - which instruction set the hot loops of the codecs run with */
#ifndef GT_ISA_H
#define GT_ISA_H

#include <stddef.h>
#include <stdint.h>

/*
 * Some loops (tfp, rangeq, gt_bitpack) are compiled twice from the same
 * C code: once for the baseline of the target (SSE2 on x86-64) and, where
 * the compiler can (gcc or clang on x86-64), twice more with
 * __attribute__((target(...))): AVX2 + BMI2, and AVX-512 (F, DQ, VL, BW:
 * Skylake-SP and later; DQ's 64-bit multiply is what the stochastic tfp
 * loop needs).  gt_isa_best() picks the best at run time that the CPU
 * (and the OS, which must save the vector registers) has.  All give the
 * same bytes; tests run each one.  Nothing here is cached:
 * __builtin_cpu_supports() reads what libgcc found at start-up.
 */

enum gt_isa {
	GT_ISA_PORTABLE = 0, /* plain C, whatever the compiler targets */
	GT_ISA_AVX2 = 1,     /* x86-64 AVX2 + BMI2 */
	GT_ISA_AVX512 = 2,   /* x86-64 AVX-512 F, DQ, VL, BW (+ AVX2, BMI2) */
};
#define GT_ISA_LAST GT_ISA_AVX512

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define GT_ISA_X86 1
#define GT_ISA_TARGET_AVX2 __attribute__((target("avx2,bmi2")))
#define GT_ISA_TARGET_AVX512 \
	__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,bmi2")))
#else
#define GT_ISA_X86 0
#endif

/*
 * gt_prefetch - a hint to load the @len bytes GT_PREFETCH_DIST past @p:
 * loops that read their input once call it a block ahead (the hardware
 * prefetcher does not keep far enough ahead of the slower ones: stochastic
 * tfp runs twice as fast with it).  Never faults, past the end included.
 */
#define GT_PREFETCH_DIST 4096
static inline void gt_prefetch(const void *p, size_t len)
{
#if defined(__GNUC__) || defined(__clang__)
	for (size_t l = 0; l < len; l += 64)
		__builtin_prefetch((const void *)((uintptr_t)p + GT_PREFETCH_DIST + l));
#else
	(void)p;
	(void)len;
#endif
}

/* The best instruction set this build has loops for and the CPU runs. */
enum gt_isa gt_isa_best(void);

/* Whether @isa can run here: GT_ISA_PORTABLE always. */
int gt_isa_usable(enum gt_isa isa);

/* "portable", "avx2", "avx512"; NULL for a value out of range. */
const char *gt_isa_name(enum gt_isa isa);

#endif
