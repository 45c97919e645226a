/* gtz_read.h - the reader's state, shared with the .gtz source (internal) */
#ifndef GT_GTZ_READ_H
#define GT_GTZ_READ_H

#include "gtz_impl.h"

struct chunk_in {
	uint64_t off, bits;
	uint64_t values;
	uint32_t crc;  /* of the decoded chunk */
	int rc;
};

/* One block read and decoded. */
struct rblock {
	uint64_t first, values, bits, rec_off, bytes;
	unsigned codec;
	uint32_t crc;
	unsigned char *meta;
	size_t meta_len, meta_cap;
	struct chunk_in *chunks;
	size_t nchunks, chunks_cap;
	unsigned char *payload;
	size_t payload_len, payload_cap;
	unsigned char *out;
	size_t out_cap;
	int raw, rc;
};

struct gt_gtz_reader {
	FILE *f;
	FILE *owned;            /* @f when the reader made it (_io, _fd, _mem) */
	uint64_t off;           /* bytes consumed */
	uint64_t rec_off;       /* offset of the last record read */
	struct gt_pool *pool;
	unsigned threads;
	int done;
	struct gt_group_info group;
	struct gt_object obj;   /* the last D or L record */
	uint64_t obj_payload;   /* its payload's bytes (D) */
	/* the open tensor */
	int open;
	uint32_t tensors;       /* tensor headers seen */
	struct gt_gtz_tensor t;
	struct coder k;
	uint64_t seen, blocks;  /* parsed so far */
	unsigned char *body;    /* the last record's body */
	size_t body_cap;
	/* gtz_reader_slots() blocks: gt_gtz_read_all's ring; gt_gtz_next uses slot 0 */
	struct rblock *slot;
	/* the offsets of the blocks read, to check against the index */
	uint64_t *offsets;
	size_t noffsets, offsets_cap;
	int scan;               /* listing a seekable file: skip payloads */
	unsigned last_tag;      /* of the last record read */
	uint64_t index_off;     /* of the index record, once read */
};

/* gt_gtz_read_all's ring: two blocks a coding thread (one decoded, one
 * waiting) and one more that the reading thread fills meanwhile. */
static inline size_t gtz_reader_slots(const struct gt_gtz_reader *r)
{
	return 2 * (size_t)r->threads + 1;
}

int gtz_read_record(struct gt_gtz_reader *r, unsigned *tag, size_t *len_ret,
		    struct gt_diag *d);
int gtz_parse_tensor(struct gt_gtz_reader *r, size_t len, struct gt_diag *d);
/* Parse the block record in r->body into @b, then read (or, scanning,
 * skip) its payload. */
int gtz_read_block(struct gt_gtz_reader *r, size_t len, struct rblock *b,
		   struct gt_diag *d);
/* Decode @b with all workers on its chunks; check its CRC. */
int gtz_decode_block(struct gt_gtz_reader *r, struct rblock *b, struct gt_diag *d);
void gtz_reader_close_tensor(struct gt_gtz_reader *r);
/* Parse the D record in r->body into r->obj, then read (or, scanning,
 * skip) its payload. */
int gtz_parse_dataset(struct gt_gtz_reader *r, size_t len, struct gt_diag *d);

#endif
