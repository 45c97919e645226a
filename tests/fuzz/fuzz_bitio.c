/* fuzz_bitio.c - the bit reader on arbitrary bytes with arbitrary widths */
#include <stdint.h>
#include <stddef.h>

#include "../../lib/gt_bitio.h"
#include "../../lib/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gt_bitr r;
	const size_t half = size / 2;

	/* first half: widths; second half: the stream */
	gt_bitr_init(&r, data + half, size - half);
	for (size_t i = 0; i < half; i++) {
		const unsigned w = data[i] % (GT_BITR_MAX + 1);

		(void)gt_bitr_get(&r, w);
		if (gt_bitr_left(&r) < -1000)
			break;
	}
	(void)gt_bitr_finish(&r);
	return 0;
}
