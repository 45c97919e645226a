/* fuzz_bench.c - parse arbitrary bytes as gtool bench JSON results */
#include <stdint.h>
#include <stdlib.h>

#include "../../formats/gt_benchjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gt_bench_row *rows = NULL;
	struct gt_diag d;
	size_t n = 0;

	if (gt_bench_parse(data, size, &rows, &n, &d) == 0) {
		/* every row the parser accepts holds what the header promises */
		for (size_t i = 0; i < n; i++)
			if (!(rows[i].ratio > 0) || !(rows[i].mbps_median > 0) ||
			    rows[i].threads < 1 || rows[i].spec[GT_BENCH_STR_MAX - 1])
				abort();
	}
	free(rows);
	return 0;
}
