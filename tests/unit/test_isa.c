/* test_isa.c - the run-time choice of instruction set, against /proc/cpuinfo */
#include "check.h"
#include "../../lib/gt_isa.h"
#include "../../lib/banned.h"

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

/* best is the last usable one, and each is usable exactly when the build
 * has its loops and the CPU lists its flags (the kernel lists avx2 and
 * avx512* only when it saves those registers) */
static void test_best(void)
{
	const int avx2 = cpuinfo_has("avx2"), bmi2 = cpuinfo_has("bmi2");
	const int f = cpuinfo_has("avx512f"), dq = cpuinfo_has("avx512dq");
	const int vl = cpuinfo_has("avx512vl"), bw = cpuinfo_has("avx512bw");
	int last = GT_ISA_PORTABLE;

	for (int isa = GT_ISA_PORTABLE; isa <= GT_ISA_LAST; isa++)
		last = gt_isa_usable((enum gt_isa)isa) ? isa : last;
	CHECK(gt_isa_best() == (enum gt_isa)last);
	printf("  best: %s; cpuinfo avx2 %d bmi2 %d avx512 f %d dq %d vl %d bw %d\n",
	       gt_isa_name(gt_isa_best()), avx2, bmi2, f, dq, vl, bw);
	if (avx2 >= 0) {
		CHECK(gt_isa_usable(GT_ISA_AVX2) == (GT_ISA_X86 && avx2 && bmi2));
		CHECK(gt_isa_usable(GT_ISA_AVX512) ==
		      (GT_ISA_X86 && avx2 && bmi2 && f && dq && vl && bw));
	}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_names);
	RUN(test_best);
	return check_done("test_isa");
}
