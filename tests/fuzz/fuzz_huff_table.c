/* fuzz_huff_table.c - gt_huff_load() on arbitrary bytes, then the LUT */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

#include "../../lib/gt_huff.h"
#include "../../lib/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gt_huff_table *t = malloc(sizeof(*t));
	uint16_t *lut = malloc(GT_HUFF_LUT_MAX * sizeof(*lut));
	unsigned char out[GT_HUFF_SAVE_MAX];
	size_t len;

	if (t && lut && gt_huff_load(t, data, size, size & 1) == 0) {
		if (gt_huff_lut(t, lut, GT_HUFF_LUT_MAX) < 0 ||
		    gt_huff_save(t, out, sizeof(out), &len) < 0)
			abort();
	}
	free(lut);
	free(t);
	return 0;
}
