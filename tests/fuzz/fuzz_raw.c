/* fuzz_raw.c - open arbitrary bytes as a raw file (dtype f32) and read every value */
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	const int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd >= 0) {
		fuzz_read_all(path, GT_KIND_RAW);
		close(fd);
	}
	return 0;
}
