/* fuzz_file.h - what the file-reading fuzz targets share */
#ifndef GT_FUZZ_FILE_H
#define GT_FUZZ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../formats/gt_source.h"

/* The input as a file (a memfd) named @path; returns its fd, or -1. */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t cap)
{
	const int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, cap, "/proc/self/fd/%d", fd);
	return fd;
}

/* Open @path as @kind (raw as f32) and read every value of every tensor. */
static inline void fuzz_read_all(const char *path, enum gt_kind kind)
{
	const struct gt_source_opts o = { .kind = kind, .dtype = GT_DT_F32,
					  .dtype_if_raw = 1 };
	static unsigned char buf[1 << 16];
	struct gt_source *s = NULL;
	struct gt_diag d;

	if (gt_source_open(path, &o, &s, &d) < 0)
		return;
	for (size_t i = 0; i < gt_source_count(s); i++) {
		const size_t per = sizeof(buf) / 8;
		uint64_t at = 0;
		size_t got = 1;

		while (got && gt_source_read(s, i, at, per, buf, &got, &d) == 0)
			at += got;
	}
	for (size_t i = 0; i < gt_source_nobjects(s); i++) {
		struct gt_blob b;

		if (gt_source_object(s, i)->kind == GT_OBJ_DATASET &&
		    gt_source_read_object(s, i, &b, &d) == 0)
			gt_blob_release(&b);
	}
	gt_source_free(s);
}

#endif
