/* stream_impl.h - flat value streams shared by the raw and .npy kinds (internal to formats/) */
#ifndef GT_STREAM_IMPL_H
#define GT_STREAM_IMPL_H

#include <stdio.h>

#include "source_impl.h"

/*
 * The values of one tensor stored flat from byte @off of @f.  A regular
 * file is read with pread() at any offset; anything else (stdin, a pipe)
 * is read once, in order, with fread().
 */
struct gt_stream {
	FILE *f;
	int fd;           /* -1 unless @f is a regular file */
	uint64_t off;     /* byte offset of value 0 */
	uint64_t pos;     /* streams: values consumed so far */
	unsigned size;    /* bytes per value */
	int seen_eof;
};

/* Set up @st over @f (owned by the caller until gt_stream_close). */
void gt_stream_init(struct gt_stream *st, FILE *f, unsigned size);
void gt_stream_close(struct gt_stream *st);

/*
 * Read values [@first, @first + @n) of @t into @dst.  For a known count,
 * a short file is GT_ERR(TRUNCATED); for an unknown count (raw pipe) the
 * end sets t->count, and a trailing partial value is GT_ERR(INVAL).
 */
int gt_stream_read(struct gt_stream *st, struct gt_tensor_info *t,
		   uint64_t first, size_t n, void *dst, size_t *n_ret,
		   struct gt_diag *d);

/* "x" from "/some/dir/x.f32"; malloc'd, caller frees; NULL on no memory. */
char *gt_stream_base_name(const char *path);

#endif
