/* chunk.c - the block and chunk sizes, defaulted and clamped in one place */
#include "gt_chunk.h"
#include "banned.h"

size_t gt_chunk_block(size_t block)
{
	return block ? block : GT_BLOCK_DEFAULT;
}

size_t gt_chunk_values(const struct gt_codec *c, size_t block, size_t chunk)
{
	size_t cv = chunk ? chunk : GT_CHUNK_DEFAULT;

	if (c && (gt_codec_flags(c) & GT_CODEC_WHOLE_BLOCK))
		return block;
	cv = cv < GT_CHUNK_MIN ? GT_CHUNK_MIN : cv;
	return cv > block ? block : cv;
}
