/* fuzz_npy.c - open arbitrary bytes as a npy file (dtype f32) and read every value */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../formats/gt_source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct gt_source_opts o = { GT_KIND_NPY, GT_DT_F32 };
	const int fd = memfd_create("fuzz_npy", 0);
	struct gt_source *s = NULL;
	struct gt_diag d;
	unsigned char buf[4096];
	char path[64];

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (gt_source_open(path, &o, &s, &d) == 0) {
		const struct gt_tensor_info *t = gt_source_info(s, 0);
		const size_t per = sizeof(buf) / gt_dtype_size(t->dtype);
		uint64_t at = 0;
		size_t got = 1;

		while (got && gt_source_read(s, 0, at, per, buf, &got, &d) == 0)
			at += got;
		gt_source_free(s);
	}
	close(fd);
	return 0;
}
