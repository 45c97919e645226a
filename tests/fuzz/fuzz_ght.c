/* fuzz_ght.c - read arbitrary bytes as a Huffman table file */
#include "fuzz_file.h"
#include "../../formats/gt_ght.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	const int fd = fuzz_file(data, size, path, sizeof(path));
	struct gt_ght t;
	struct gt_diag d;

	if (fd < 0)
		return 0;
	if (gt_ght_read(path, &t, &d) == 0)
		gt_ght_release(&t);
	close(fd);
	return 0;
}
