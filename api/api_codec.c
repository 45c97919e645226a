/* api_codec.c - libgtool's one-tensor compress and decompress, on the streaming .gtz API */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "api_impl.h"
#include "../formats/gt_gtz.h"
#include "../lib/banned.h"

/*
 * A new result of 4 MiB or more asks for transparent huge pages, as NumPy
 * does for its own arrays: its first touch then faults once per 2 MiB
 * instead of once per 4 KiB page, which costs as much as decoding it.
 * Advice only: a kernel without them, or one that refuses, changes nothing.
 */
#define HUGE_MIN ((size_t)1 << 22)

static void advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t page = 4096;
	uintptr_t start = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t end = ((uintptr_t)p + n) & ~(page - 1);

	if (n >= HUGE_MIN && end > start)
		(void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

/* Output into the caller's buffer, or a growing malloc'd one. */
struct membuf {
	unsigned char *p;
	size_t len, cap;
	int grow, full;
};

static int mem_write(void *arg, const void *p, size_t n)
{
	struct membuf *m = arg;

	if (n > m->cap - m->len) {
		size_t cap = m->cap ? m->cap : 4096;
		unsigned char *q;

		if (!m->grow) {
			m->full = 1;
			return GT_ERR(DST_TOO_SMALL);
		}
		while (n > cap - m->len) {
			if (cap > SIZE_MAX / 2)
				return GT_ERR(NOMEM);
			cap *= 2;
		}
		q = realloc(m->p, cap);
		if (!q)
			return GT_ERR(NOMEM);
		advise_huge(q + m->len, cap - m->len);
		m->p = q;
		m->cap = cap;
	}
	memcpy(m->p + m->len, p, n);
	m->len += n;
	return 0;
}

/* 2^20-value blocks (GT_GTZ_BLOCK_DEFAULT) and 2^16-value chunks: the
 * header's formula; a block's payload is at most its raw size. */
GTOOL_API size_t gtool_compress_bound(int dtype, uint64_t count)
{
	const size_t size = gtool_dtype_size(dtype);
	const uint64_t blocks = count / GT_GTZ_BLOCK_DEFAULT + 1;
	const uint64_t chunks = count / GT_GTZ_CHUNK_MIN + 1;
	uint64_t b;

	if (!size || count > (UINT64_MAX / 2) / size)
		return 0;
	b = count * size + 2048 + blocks * (GT_CODEC_META_MAX + 512) + chunks * 32;
	return b > SIZE_MAX ? 0 : (size_t)b;
}

static int compress_to(const char *spec, int dtype, const uint64_t *dims, unsigned rank,
		       const void *src, size_t src_len, const struct gtool_optctx *opt,
		       struct membuf *m, struct gtool_errbuf *err)
{
	struct gtool_writer *w = NULL;
	struct gt_diag d = { "" };
	uint64_t count;
	int rc;

	if (!spec || (!src && src_len))
		return api_errf(err, GT_ERR(INVAL), "NULL codec spec or source");
	if (api_count(dims, rank, &count) < 0)
		return api_errf(err, GT_ERR(INVAL), "bad shape (rank %u)", rank);
	rc = api_check_len(dtype, count, src_len, &d);
	if (rc < 0)
		return api_err(err, rc, &d);
	rc = gtool_writer_open_cb(mem_write, m, 1, &w, err);
	if (rc < 0)
		return rc;
	rc = gtool_writer_begin(w, "tensor", spec, dtype, dims, rank, opt);
	if (rc >= 0)
		rc = gtool_writer_write(w, src, src_len);
	if (rc >= 0)
		rc = gtool_writer_end(w);
	if (rc >= 0)
		rc = gtool_writer_commit(w);
	if (rc < 0 && m->full)
		rc = api_errf(err, GT_ERR(DST_TOO_SMALL), "output buffer too small");
	else if (rc < 0)
		api_errf(err, rc, "%s", gtool_writer_errmsg(w));
	gtool_writer_free(w);
	return rc;
}

GTOOL_API int gtool_compress(const char *spec, int dtype, const uint64_t *dims, unsigned rank,
			     const void *src, size_t src_len, const struct gtool_optctx *opt,
			     void *dst, size_t dst_cap, size_t *dst_len_ret,
			     struct gtool_errbuf *err)
{
	struct membuf m = { dst, 0, dst_cap, 0, 0 };
	int rc;

	api_err_clear(err);
	if (!dst_len_ret || (!dst && dst_cap))
		return api_errf(err, GT_ERR(INVAL), "NULL output");
	*dst_len_ret = 0;
	rc = compress_to(spec, dtype, dims, rank, src, src_len, opt, &m, err);
	if (rc >= 0)
		*dst_len_ret = m.len;
	return rc;
}

/* The whole bound at once, as the Python package does, rather than a
 * buffer that doubles (a copy and fresh pages each time); trimmed after.
 * Where the bound is unknown or cannot be had, the buffer grows instead. */
static void prealloc(struct membuf *m, int dtype, size_t src_len)
{
	const size_t size = gtool_dtype_size(dtype);
	const size_t bound = size ? gtool_compress_bound(dtype, src_len / size) : 0;

	m->p = bound ? malloc(bound) : NULL;
	if (m->p) {
		m->cap = bound;
		advise_huge(m->p, bound);
	}
}

GTOOL_API int gtool_compress_alloc(const char *spec, int dtype, const uint64_t *dims,
				   unsigned rank, const void *src, size_t src_len,
				   const struct gtool_optctx *opt, void **dst_ret,
				   size_t *dst_len_ret, struct gtool_errbuf *err)
{
	struct membuf m = { NULL, 0, 0, 1, 0 };
	int rc;

	api_err_clear(err);
	if (!dst_ret || !dst_len_ret)
		return api_errf(err, GT_ERR(INVAL), "NULL output");
	*dst_ret = NULL;
	*dst_len_ret = 0;
	prealloc(&m, dtype, src_len);
	rc = compress_to(spec, dtype, dims, rank, src, src_len, opt, &m, err);
	if (rc < 0) {
		free(m.p);
		return rc;
	}
	if (m.len && m.len < m.cap) {
		unsigned char *q = realloc(m.p, m.len);

		if (q)
			m.p = q;
	}
	*dst_ret = m.p;
	*dst_len_ret = m.len;
	return 0;
}

/* Open a blob and read up to its one tensor's header. */
static int blob_open(const void *src, size_t src_len, struct gtool_reader **r_ret,
		     struct gtool_info *info, struct gtool_errbuf *err)
{
	int ev = GTOOL_EV_EOF;
	int rc;

	if (!src)
		return api_errf(err, GT_ERR(INVAL), "NULL source");
	GT_TRY(gtool_reader_open_mem(src, src_len, 1, r_ret, err));
	do
		rc = gtool_reader_next(*r_ret, &ev);
	while (rc >= 0 && ev == GTOOL_EV_GROUP);
	if (rc >= 0 && ev != GTOOL_EV_TENSOR)
		rc = api_errf(err, GT_ERR(CORRUPT), "no tensor in the stream");
	else if (rc < 0)
		api_errf(err, rc, "%s", gtool_reader_errmsg(*r_ret));
	if (rc >= 0)
		rc = gtool_reader_info(*r_ret, info);
	if (rc >= 0 && info->count > SIZE_MAX / gtool_dtype_size(info->dtype))
		rc = api_errf(err, GT_ERR(OVERFLOW), "the tensor does not fit in memory");
	if (rc < 0) {
		gtool_reader_free(*r_ret);
		*r_ret = NULL;
	}
	return rc;
}

GTOOL_API int gtool_decompress_info(const void *src, size_t src_len, struct gtool_info *info,
				    struct gtool_errbuf *err)
{
	struct gtool_reader *r = NULL;

	api_err_clear(err);
	if (!info)
		return api_errf(err, GT_ERR(INVAL), "NULL info");
	GT_TRY(blob_open(src, src_len, &r, info, err));
	gtool_reader_free(r);
	return 0;
}

/* The values into @dst (allocated when @grow), then the end of the stream. */
static int blob_read(struct gtool_reader *r, const struct gtool_info *info, void **dst,
		     size_t dst_cap, int grow, size_t *len_ret, struct gtool_errbuf *err)
{
	const size_t need = (size_t)info->count * gtool_dtype_size(info->dtype);
	int ev = GTOOL_EV_EOF;
	int rc;

	if (grow) {
		*dst = need ? malloc(need) : NULL;
		if (need && !*dst)
			return api_errf(err, GT_ERR(NOMEM), "out of memory");
		advise_huge(*dst, need);
		dst_cap = need;
	} else if (dst_cap < need) {
		return api_errf(err, GT_ERR(DST_TOO_SMALL), "the tensor needs %zu bytes, the buffer holds %zu",
				need, dst_cap);
	}
	rc = gtool_reader_read_tensor(r, *dst, dst_cap, len_ret);
	if (rc < 0)
		return api_errf(err, rc, "%s", gtool_reader_errmsg(r));
	if (*len_ret != need)
		return api_errf(err, GT_ERR(CORRUPT), "the tensor holds fewer values than its shape says");
	do
		rc = gtool_reader_next(r, &ev);
	while (rc >= 0 && ev == GTOOL_EV_GROUP);
	if (rc < 0)
		return api_errf(err, rc, "%s", gtool_reader_errmsg(r));
	if (ev != GTOOL_EV_EOF)
		return api_errf(err, GT_ERR(CORRUPT), "more than one tensor in the stream");
	return 0;
}

GTOOL_API int gtool_decompress(const void *src, size_t src_len, void *dst, size_t dst_cap,
			       size_t *dst_len_ret, struct gtool_info *info,
			       struct gtool_errbuf *err)
{
	struct gtool_reader *r = NULL;
	struct gtool_info tmp;
	int rc;

	api_err_clear(err);
	if (!dst_len_ret || (!dst && dst_cap))
		return api_errf(err, GT_ERR(INVAL), "NULL output");
	*dst_len_ret = 0;
	if (!info)
		info = &tmp;
	GT_TRY(blob_open(src, src_len, &r, info, err));
	rc = blob_read(r, info, &dst, dst_cap, 0, dst_len_ret, err);
	gtool_reader_free(r);
	if (rc < 0)
		*dst_len_ret = 0;
	return rc;
}

GTOOL_API int gtool_decompress_alloc(const void *src, size_t src_len, void **dst_ret,
				     size_t *dst_len_ret, struct gtool_info *info,
				     struct gtool_errbuf *err)
{
	struct gtool_reader *r = NULL;
	struct gtool_info tmp;
	void *dst = NULL;
	int rc;

	api_err_clear(err);
	if (!dst_ret || !dst_len_ret)
		return api_errf(err, GT_ERR(INVAL), "NULL output");
	*dst_ret = NULL;
	*dst_len_ret = 0;
	if (!info)
		info = &tmp;
	GT_TRY(blob_open(src, src_len, &r, info, err));
	rc = blob_read(r, info, &dst, 0, 1, dst_len_ret, err);
	gtool_reader_free(r);
	if (rc < 0) {
		free(dst);
		*dst_len_ret = 0;
		return rc;
	}
	*dst_ret = dst;
	return 0;
}
