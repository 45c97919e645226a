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
	CHECK(gt_isa_name((enum gt_isa)7) == NULL);
	CHECK(gt_isa_usable(GT_ISA_PORTABLE));
	CHECK(!gt_isa_usable((enum gt_isa)7));
}

/* best is usable, and AVX2 exactly when the build has its loops and the
 * CPU lists avx2 and bmi2 (the kernel lists avx2 only when it saves the
 * YMM registers) */
static void test_best(void)
{
	const int avx2 = cpuinfo_has("avx2"), bmi2 = cpuinfo_has("bmi2");

	CHECK(gt_isa_usable(gt_isa_best()));
	CHECK(gt_isa_best() == (gt_isa_usable(GT_ISA_AVX2) ? GT_ISA_AVX2 : GT_ISA_PORTABLE));
	printf("  best: %s; cpuinfo avx2 %d bmi2 %d\n", gt_isa_name(gt_isa_best()), avx2, bmi2);
	if (avx2 >= 0 && bmi2 >= 0)
		CHECK(gt_isa_usable(GT_ISA_AVX2) == (GT_ISA_HAVE_AVX2 && avx2 && bmi2));
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_names);
	RUN(test_best);
	return check_done("test_isa");
}
