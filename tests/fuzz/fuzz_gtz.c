/* fuzz_gtz.c - read arbitrary bytes as a .gtz stream, and as a listed .gtz file */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../formats/gt_gtz.h"
#include "../../formats/gt_source.h"

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
	const struct gt_source_opts o = { GT_KIND_GTZ, GT_DT_NONE };
	const int fd = memfd_create("fuzz_gtz", 0);
	struct gt_source *s = NULL;
	struct gt_diag d;
	static unsigned char buf[1 << 16];
	char path[64];

	if (fd < 0)
		return;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (gt_source_open(path, &o, &s, &d) == 0) {
		for (size_t i = 0; i < gt_source_count(s); i++) {
			const size_t per = sizeof(buf) / 8;
			uint64_t at = 0;
			size_t got = 1;

			while (got && gt_source_read(s, i, at, per, buf, &got, &d) == 0)
				at += got;
		}
		gt_source_free(s);
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	stream(data, size);
	listed(data, size);
	return 0;
}
