/* gt_chunk.h - the block and chunk rule every coder follows */
#ifndef GT_CHUNK_H
#define GT_CHUNK_H

#include <stddef.h>

#include "gt_codec.h"

/*
 * Values are coded in blocks (the unit of the .gtz container, and what a
 * sparsifier or the FFT codec sees at once) cut into chunks (the unit of
 * parallel work).  The .gtz writer, the in-memory benchmark and the gain
 * replay all size them with these two functions, so the same options
 * code the same way everywhere.
 */
#define GT_BLOCK_DEFAULT (1u << 20) /* values per block */
#define GT_CHUNK_DEFAULT (1u << 16) /* values per chunk */
#define GT_CHUNK_MIN 64u            /* the smallest chunk (and block) */

/* gt_chunk_block - values per block: @block, or GT_BLOCK_DEFAULT for 0. */
size_t gt_chunk_block(size_t block);

/*
 * gt_chunk_values - values per chunk in blocks of @block values: @chunk
 * (0: GT_CHUNK_DEFAULT), at least GT_CHUNK_MIN, at most the block; the
 * whole block for a GT_CODEC_WHOLE_BLOCK codec @c (@c may be NULL: no
 * codec rule).  Never fails; the caller checks @block's own range.
 */
size_t gt_chunk_values(const struct gt_codec *c, size_t block, size_t chunk);

#endif
