/* gt_isa.c - the run-time choice of the codecs' loops */
#include <stddef.h>

#include "gt_isa.h"
#include "banned.h"

int gt_isa_usable(enum gt_isa isa)
{
	switch (isa) {
	case GT_ISA_PORTABLE:
		return 1;
	case GT_ISA_AVX2:
#if GT_ISA_X86
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
#else
		return 0;
#endif
	case GT_ISA_AVX512:
#if GT_ISA_X86
		return gt_isa_usable(GT_ISA_AVX2) && __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
		       __builtin_cpu_supports("avx512bw");
#else
		return 0;
#endif
	}
	return 0;
}

enum gt_isa gt_isa_best(void)
{
	if (gt_isa_usable(GT_ISA_AVX512))
		return GT_ISA_AVX512;
	return gt_isa_usable(GT_ISA_AVX2) ? GT_ISA_AVX2 : GT_ISA_PORTABLE;
}

const char *gt_isa_name(enum gt_isa isa)
{
	switch (isa) {
	case GT_ISA_PORTABLE:
		return "portable";
	case GT_ISA_AVX2:
		return "avx2";
	case GT_ISA_AVX512:
		return "avx512";
	}
	return NULL;
}
