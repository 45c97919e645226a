/* test_isa.c - the run-time choice of instruction set, against CPUID read
 * here (and /proc/cpuinfo, which lists what the CPU has even where an
 * emulator such as valgrind hides some of it) */
#include "check.h"
#include "../../lib/gt_isa.h"
#if GT_ISA_X86
#include <cpuid.h>
#endif
#include "../../lib/banned.h"

/* What CPUID and XCR0 say: 0 portable only, 1 AVX2 + BMI2, 2 AVX-512 too. */
static int cpuid_level(void)
{
#if GT_ISA_X86
	unsigned a, b, c, d, lo, hi;
	unsigned long long xcr0;
	int avx2;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & 1u << 27) || !(c & 1u << 28))
		return 0; /* no OSXSAVE or no AVX */
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	xcr0 = (unsigned long long)hi << 32 | lo;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	avx2 = (xcr0 & 6) == 6 && (b & 1u << 5) && (b & 1u << 8);
	if (!avx2)
		return 0;
	/* F 16, DQ 17, BW 30, VL 31; opmask and ZMM state saved */
	return (xcr0 & 0xe6) == 0xe6 && (b & 1u << 16) && (b & 1u << 17) &&
	       (b & 1u << 30) && (b & 1u << 31) ? 2 : 1;
#else
	return 0;
#endif
}

/* Whether /proc/cpuinfo's first "flags" line lists @flag; -1 without one. */
static int cpuinfo_has(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		char *tok, *save = NULL;

		if (strncmp(line, "flags", 5))
			continue;
		found = 0;
		for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
			found |= !strcmp(tok, flag);
	}
	fclose(f);
	return found;
}

static void test_names(void)
{
	CHECK(!strcmp(gt_isa_name(GT_ISA_PORTABLE), "portable"));
	CHECK(!strcmp(gt_isa_name(GT_ISA_AVX2), "avx2"));
	CHECK(!strcmp(gt_isa_name(GT_ISA_AVX512), "avx512"));
	CHECK(gt_isa_name((enum gt_isa)7) == NULL);
	CHECK(gt_isa_usable(GT_ISA_PORTABLE));
	CHECK(!gt_isa_usable((enum gt_isa)7));
}

/* best is the last usable one; each is usable exactly when CPUID says
 * so, and never when /proc/cpuinfo does not list its flags */
static void test_best(void)
{
	const int avx2 = cpuinfo_has("avx2"), bmi2 = cpuinfo_has("bmi2");
	const int f = cpuinfo_has("avx512f"), dq = cpuinfo_has("avx512dq");
	const int vl = cpuinfo_has("avx512vl"), bw = cpuinfo_has("avx512bw");
	const int level = cpuid_level();
	int last = GT_ISA_PORTABLE;

	for (int isa = GT_ISA_PORTABLE; isa <= GT_ISA_LAST; isa++)
		last = gt_isa_usable((enum gt_isa)isa) ? isa : last;
	CHECK(gt_isa_best() == (enum gt_isa)last);
	printf("  best: %s; cpuid level %d; cpuinfo avx2 %d bmi2 %d avx512 f %d dq %d vl %d bw %d\n",
	       gt_isa_name(gt_isa_best()), level, avx2, bmi2, f, dq, vl, bw);
	CHECK(gt_isa_usable(GT_ISA_AVX2) == (GT_ISA_X86 && level >= 1));
	CHECK(gt_isa_usable(GT_ISA_AVX512) == (GT_ISA_X86 && level >= 2));
	if (avx2 >= 0) {
		CHECK(!gt_isa_usable(GT_ISA_AVX2) || (avx2 && bmi2));
		CHECK(!gt_isa_usable(GT_ISA_AVX512) || (avx2 && bmi2 && f && dq && vl && bw));
	}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_names);
	RUN(test_best);
	return check_done("test_isa");
}
