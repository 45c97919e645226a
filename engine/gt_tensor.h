/* gt_tensor.h - which tensors of a source a command works on, and reading them */
#ifndef GT_TENSOR_H
#define GT_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "gt_notify.h"
#include "../formats/gt_source.h"
#include "../lib/gt_error.h"

/* 1 when @path matches one of the @n patterns (fnmatch, with or without a
 * leading '/'), or when @n is 0. */
int gt_tensor_match(const char *path, char *const *patterns, size_t n);

/* How gt_tensor_select reports float-less datasets it passes over. */
enum gt_skip_report { GT_SKIP_SILENT, GT_SKIP_NOTE, GT_SKIP_WARN };

/*
 * gt_tensor_select - which tensors of @src the -d @patterns select:
 * @sel[i] = 1 (@sel has gt_source_count() bytes).  No patterns: every
 * float tensor.  Non-float datasets passed over go to @nt as @report
 * says (GT_NOTE_INFO for GT_SKIP_NOTE, GT_NOTE_WARN for GT_SKIP_WARN).
 * @return 0, GT_ERR(NOTFOUND) when a pattern matches nothing,
 *	GT_ERR(INVAL) when it names a non-float dataset without a glob;
 *	@d says which, with the file's path.
 */
int gt_tensor_select(const struct gt_source *src, char *const *patterns, size_t n,
		     enum gt_skip_report report, const struct gt_notify *nt,
		     unsigned char *sel, struct gt_diag *d);

/*
 * gt_tensor_stream - tensor @i of @src through @fn in pieces of at most
 * @buf_values values read into @buf (8 * @buf_values bytes).
 * @return 0, a read error (@d names the file), or @fn's negative return
 *	(@d untouched: @fn reports its own errors).
 */
#define GT_TENSOR_READ_VALUES ((size_t)1 << 20)
int gt_tensor_stream(struct gt_source *src, size_t i, void *buf, size_t buf_values,
		     int (*fn)(void *arg, const void *data, size_t n), void *arg,
		     struct gt_diag *d);

/*
 * gt_tensor_read_f32 - values [@first, @first + @n) of tensor @i of @src
 * as f32 into @dst, other dtypes converted.  @scratch (8 * @n bytes) holds
 * the raw values of a dtype other than f32; NULL: allocated for the call.
 * @return 0, a read error or GT_ERR(TRUNCATED) for a short read, with @d.
 */
int gt_tensor_read_f32(struct gt_source *src, size_t i, uint64_t first, size_t n,
		       float *dst, void *scratch, struct gt_diag *d);

#endif
