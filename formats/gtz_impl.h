/* gtz_impl.h - what the .gtz writer and reader share (internal to formats/) */
#ifndef GT_GTZ_IMPL_H
#define GT_GTZ_IMPL_H

#include <stdio.h>
#include <zlib.h>

#include "../lib/gt_codec.h"
#include "../lib/gt_crc.h"
#include "gt_bytes.h"
#include "gt_gtz.h"

extern const unsigned char gt_gtz_magic[4];

/* Record tags (GTZ.md). */
enum {
	TAG_GROUP = 'G', TAG_TENSOR = 'T', TAG_BLOCK = 'B', TAG_END = 'E',
	TAG_INDEX = 'I', TAG_EOF = 'Z',
	/* format 1.1 */
	TAG_DATASET = 'D', TAG_LINK = 'L',
};

/* Limits on what a file may claim, checked before anything is allocated. */
#define REC_MAX (16u << 20) /* a record body */
#define ATTRS_MAX 65536u
#define ATTR_VALUES_MAX (1u << 20)
#define ATTR_TYPED 3u            /* an attribute's type byte: a typed one (1.1) */
#define BLOB_TYPE_MAX (1u << 16) /* an encoded HDF5 datatype */

/*
 * gtz_prefault - the pages of a new buffer of 1 MiB or more at once, in
 * one call: on a virtual machine a fault a page costs more than the bytes
 * (a block's buffers are 4 MiB, a thousand pages), the more so once the
 * process has several threads.  Whole GTZ_HUGE-aligned stretches are
 * asked to be transparent huge pages first: a fault then brings 2 MiB,
 * and a virtual machine's host backs it at once.  Only hints: a kernel
 * without MADV_POPULATE_WRITE (before 5.14) or huge pages faults the
 * pages in as before.
 */
#define GTZ_HUGE ((size_t)1 << 21)
void gtz_prefault(void *p, size_t len);
/*
 * gtz_alloc_big - a block's buffer of at least *@n bytes (free() frees
 * it): from GTZ_HUGE bytes on, whole huge pages, aligned, *@n rounded up
 * to them, prefaulted (gtz_prefault).  Their first touch is the dearest
 * part of a short run on a virtual machine: 4 KiB pages cost gtool
 * decompress -T1 of 64 MiB about as much as the decoding.
 */
void *gtz_alloc_big(size_t *n);

void gtz_put_attrs(struct gt_buf *b, const struct gt_attrs *a);
/* GT_ERR(OVERFLOW) naming @what and the start of @name when it is too long for a str. */
int gtz_check_name(const char *what, const char *name, struct gt_diag *d);
int gtz_get_attrs(struct gt_cur *c, struct gt_attrs *a);
void gtz_put_blob(struct gt_buf *b, const struct gt_blob *x, int with_data);
/* @x is filled even on failure: release it */
int gtz_get_blob(struct gt_cur *c, struct gt_blob *x, int with_data);

/*
 * The coding of one tensor: its codec contexts, one per worker, and raw
 * contexts for blocks stored raw.  Writer and reader alike.
 */
struct coder {
	const struct gt_codec *codec;
	enum gt_dtype dtype;
	unsigned width;
	uint32_t block_values, chunk_values;
	struct gt_codec_ctx **ctx;
	struct gt_codec_ctx **raw;
	unsigned nctx;
	size_t chunk_bound;
	int aux; /* the codec uses the optimizer context */
};

int gtz_coder_init(struct coder *k, const struct gt_codec *codec,
		   const struct gt_codec_params *p, uint32_t block_values,
		   uint32_t chunk_values, unsigned nctx, struct gt_diag *d);
void gtz_coder_release(struct coder *k);

static inline size_t gtz_nchunks(const struct coder *k, size_t n)
{
	return (n + k->chunk_values - 1) / k->chunk_values;
}

/* Values of chunk @i of a block of @n values. */
static inline size_t gtz_chunk_values(const struct coder *k, size_t n, size_t i)
{
	const size_t first = i * k->chunk_values;

	return n - first < k->chunk_values ? n - first : k->chunk_values;
}

#endif
