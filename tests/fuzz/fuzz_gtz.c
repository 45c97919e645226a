/* fuzz_gtz.c - read arbitrary bytes as a .gtz stream, and as a listed .gtz file */
#include <stdint.h>
#include <stdio.h>

#include "fuzz_file.h"
#include "../../formats/gt_gtz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void stream(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)(uintptr_t)data, size, "rb");
	struct gt_gtz_reader *r = NULL;
	enum gt_gtz_event ev = GT_GTZ_DATA;
	struct gt_diag d;

	if (!f)
		return;
	if (gt_gtz_reader_open(f, 2, &r, &d) == 0)
		while (ev != GT_GTZ_EOF && gt_gtz_next(r, &ev, &d) == 0)
			;
	gt_gtz_reader_free(r);
	fclose(f);
}

/* The seekable path: list, then read every tensor through gt_source. */
static void listed(const uint8_t *data, size_t size)
{
	char path[64];
	const int fd = fuzz_file(data, size, path, sizeof(path));

	if (fd >= 0) {
		fuzz_read_all(path, GT_KIND_GTZ);
		close(fd);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	stream(data, size);
	listed(data, size);
	return 0;
}
