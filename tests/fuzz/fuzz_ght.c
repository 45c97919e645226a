/* fuzz_ght.c - read arbitrary bytes as a Huffman table file */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../formats/gt_ght.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const int fd = memfd_create("fuzz_ght", 0);
	struct gt_ght t;
	struct gt_diag d;
	char path[64];

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (gt_ght_read(path, &t, &d) == 0)
		gt_ght_release(&t);
	close(fd);
	return 0;
}
