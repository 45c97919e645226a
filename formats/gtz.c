/* gtz.c - the .gtz container: records, blocks of chunks, CRCs, index (GTZ.md) */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../lib/gt_pool.h"
#include "atomic.h"
#include "gt_bytes.h"
#include "gt_gtz.h"
#include "source_impl.h"
#include "../lib/banned.h"

static const unsigned char file_magic[4] = { 0x89, 'G', 'T', 'Z' };
#define TAG_GROUP "GRP"
#define TAG_TENSOR "TNS"
#define TAG_BLOCK "BLK"
#define TAG_END "END"
#define TAG_INDEX "IDX"
#define TAG_EOF "EOF"

/* Limits on what a file may claim, checked before anything is allocated. */
#define REC_MAX (16u << 20)      /* header record body */
#define ATTRS_MAX 65536u
#define ATTR_VALUES_MAX (1u << 20)
#define INDEX_ENTRY 28u

static uint32_t crc_of(uint32_t crc, const void *p, size_t n)
{
	return (uint32_t)crc32_z(crc, p, n);
}

/* ---- attributes -------------------------------------------------------- */

static void put_attrs(struct gt_buf *b, const struct gt_attrs *a)
{
	gt_buf_u32(b, (uint32_t)a->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct gt_attr *at = &a->v[i];

		gt_buf_str(b, at->name);
		gt_buf_u8(b, at->type);
		gt_buf_u32(b, (uint32_t)at->n);
		for (size_t k = 0; k < at->n; k++) {
			switch (at->type) {
			case GT_ATTR_INT: gt_buf_u64(b, (uint64_t)at->i[k]); break;
			case GT_ATTR_FLOAT: {
				uint64_t u;
				memcpy(&u, &at->f[k], 8);
				gt_buf_u64(b, u);
				break;
			}
			case GT_ATTR_STR: gt_buf_u8(b, (unsigned char)at->s[k]); break;
			}
		}
	}
}

static int get_attr(struct gt_cur *c, struct gt_attr *at)
{
	const unsigned type = (at->name = gt_cur_str(c)) ? gt_cur_u8(c) : 0;
	const uint32_t n = gt_cur_u32(c);
	const unsigned char *p;

	if (c->err)
		return c->err;
	if (type > GT_ATTR_STR || n > ATTR_VALUES_MAX)
		return GT_ERR(CORRUPT);
	at->type = (enum gt_attr_type)type;
	at->n = n;
	p = gt_cur_bytes(c, (size_t)n * (type == GT_ATTR_STR ? 1 : 8));
	if (!p)
		return c->err;
	if (type == GT_ATTR_STR) {
		if (memchr(p, 0, n))
			return GT_ERR(CORRUPT);
		at->s = malloc((size_t)n + 1);
		if (!at->s)
			return GT_ERR(NOMEM);
		memcpy(at->s, p, n);
		at->s[n] = 0;
		return 0;
	}
	if (type == GT_ATTR_INT)
		at->i = malloc((size_t)n * 8 + 1);
	else
		at->f = malloc((size_t)n * 8 + 1);
	if (!at->i && !at->f)
		return GT_ERR(NOMEM);
	memcpy(type == GT_ATTR_INT ? (void *)at->i : (void *)at->f, p, (size_t)n * 8);
	return 0;
}

static int get_attrs(struct gt_cur *c, struct gt_attrs *a)
{
	const uint32_t n = gt_cur_u32(c);

	if (c->err)
		return c->err;
	if (n > ATTRS_MAX || n > (size_t)(c->end - c->p) / 7)
		return GT_ERR(CORRUPT);
	a->v = calloc(n ? n : 1, sizeof(*a->v));
	if (!a->v)
		return GT_ERR(NOMEM);
	for (uint32_t i = 0; i < n; i++) {
		const int rc = get_attr(c, &a->v[i]);

		a->n = i + 1;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- records ------------------------------------------------------------ */

/* tag[4] | u32 body length | body | u32 CRC-32 of all before it */
static int put_record(FILE *f, uint64_t *off, const char *tag,
		      const struct gt_buf *body)
{
	unsigned char head[8];
	unsigned char tail[4];
	uint32_t crc;

	if (body->err)
		return body->err;
	if (body->len > REC_MAX)
		return GT_ERR(OVERFLOW);
	memset(head, 0, 4);
	memcpy(head, tag, strlen(tag));
	for (int i = 0; i < 4; i++)
		head[4 + i] = (unsigned char)(body->len >> (8 * i));
	crc = crc_of(crc_of(0, head, 8), body->p, body->len);
	for (int i = 0; i < 4; i++)
		tail[i] = (unsigned char)(crc >> (8 * i));
	if (fwrite(head, 1, 8, f) != 8 ||
	    (body->len && fwrite(body->p, 1, body->len, f) != body->len) ||
	    fwrite(tail, 1, 4, f) != 4)
		return GT_ERR(IO);
	*off += 12 + body->len;
	return 0;
}

/* Read exactly @n bytes; TRUNCATED at a clean or early end, IO on error. */
static int read_exact(FILE *f, void *dst, size_t n)
{
	if (n && fread(dst, 1, n, f) != n)
		return ferror(f) ? GT_ERR(IO) : GT_ERR(TRUNCATED);
	return 0;
}

/* ---- the coding of one tensor, shared by writer and reader ----------- */

struct coder {
	const struct gt_codec *codec;
	enum gt_dtype dtype;
	unsigned width;
	uint32_t block_values, chunk_values;
	struct gt_codec_ctx **ctx; /* one per worker */
	unsigned nctx;
	struct gt_codec_ctx **raw;  /* raw contexts for stored blocks */
	size_t chunk_bound;
};

static void coder_release(struct coder *k)
{
	for (unsigned i = 0; i < k->nctx; i++) {
		if (k->ctx)
			gt_codec_free(k->ctx[i]);
		if (k->raw)
			gt_codec_free(k->raw[i]);
	}
	free(k->ctx);
	free(k->raw);
	memset(k, 0, sizeof(*k));
}

static int coder_init(struct coder *k, const struct gt_codec *codec,
		      const struct gt_codec_params *p, uint32_t block_values,
		      uint32_t chunk_values, unsigned nctx, struct gt_diag *d)
{
	const struct gt_codec_params rawp = { .dtype = p->dtype };
	int rc = 0;

	memset(k, 0, sizeof(*k));
	k->codec = codec;
	k->dtype = p->dtype;
	k->width = gt_dtype_size(p->dtype);
	k->block_values = block_values;
	k->chunk_values = chunk_values;
	k->ctx = calloc(nctx, sizeof(*k->ctx));
	k->raw = calloc(nctx, sizeof(*k->raw));
	k->nctx = nctx;
	if (!k->ctx || !k->raw)
		return GT_ERR(NOMEM);
	for (unsigned i = 0; i < nctx && rc >= 0; i++) {
		rc = gt_codec_new(codec, p, &k->ctx[i], d);
		if (rc >= 0)
			rc = gt_codec_new(gt_codec_find("raw"), &rawp, &k->raw[i], d);
	}
	if (rc < 0)
		return rc;
	k->chunk_bound = gt_codec_bound(k->ctx[0], chunk_values);
	if (!k->chunk_bound || k->chunk_bound < (size_t)chunk_values * k->width)
		k->chunk_bound = (size_t)chunk_values * k->width;
	return 0;
}

static size_t nchunks_of(const struct coder *k, size_t n)
{
	return (n + k->chunk_values - 1) / k->chunk_values;
}

/* ---- writer ------------------------------------------------------------- */

struct index_entry {
	uint32_t tensor;
	uint64_t block, first, offset;
};

struct chunk_out {
	unsigned char *buf;
	size_t len;
	int rc;
};

struct gt_gtz_writer {
	FILE *f;
	struct gt_atomic out;
	int to_stdout;
	uint64_t off;
	struct gt_pool *pool;
	unsigned threads;
	/* current tensor */
	int open;
	uint32_t tensor;
	uint64_t count, seen, blocks, raw_blocks;
	struct coder k;
	unsigned char *block;   /* block_values values being filled */
	size_t fill;
	struct chunk_out *chunks;
	size_t nchunks_max;
	struct index_entry *index;
	size_t nindex, index_cap;
};

static int open_output(struct gt_gtz_writer *w, const char *path, int force,
		       struct gt_diag *d)
{
	int fd;

	if (!strcmp(path, "-")) {
		w->f = stdout;
		w->to_stdout = 1;
		return 0;
	}
	GT_TRY(gt_atomic_create(&w->out, path, force, &fd, d));
	w->f = fdopen(fd, "wb");
	if (!w->f) {
		close(fd);
		return gt_diag_set(d, GT_ERR(IO), "%s: %s", path, strerror(errno));
	}
	return 0;
}

int gt_gtz_writer_open(const char *path, int force, unsigned threads,
		       struct gt_gtz_writer **w_ret, struct gt_diag *d)
{
	struct gt_gtz_writer *w = calloc(1, sizeof(*w));
	unsigned char head[16];
	uint32_t crc;
	int rc;

	*w_ret = NULL;
	if (!w)
		return GT_ERR(NOMEM);
	w->threads = threads ? threads : 1;
	rc = open_output(w, path, force, d);
	if (rc >= 0)
		rc = gt_pool_new(w->threads, &w->pool);
	if (rc < 0) {
		gt_gtz_writer_free(w);
		return rc;
	}
	/* magic | u16 major | u16 minor | u32 flags | u32 CRC-32 of the 12 before */
	memcpy(head, file_magic, 4);
	head[4] = GT_GTZ_VERSION_MAJOR; head[5] = 0;
	head[6] = GT_GTZ_VERSION_MINOR; head[7] = 0;
	memset(head + 8, 0, 4);
	crc = crc_of(0, head, 12);
	for (int i = 0; i < 4; i++)
		head[12 + i] = (unsigned char)(crc >> (8 * i));
	if (fwrite(head, 1, 16, w->f) != 16) {
		gt_gtz_writer_free(w);
		return gt_diag_set(d, GT_ERR(IO), "write error");
	}
	w->off = 16;
	*w_ret = w;
	return 0;
}

static int write_error(struct gt_gtz_writer *w, int rc, struct gt_diag *d)
{
	if (rc == GT_ERR(IO))
		return gt_diag_set(d, rc, "write error: %s", strerror(errno));
	(void)w;
	return gt_diag_set(d, rc, "%s", gt_strerror(rc));
}

int gt_gtz_write_group(struct gt_gtz_writer *w, const struct gt_group_info *g,
		       struct gt_diag *d)
{
	struct gt_buf b = { 0 };
	int rc;

	gt_buf_str(&b, g->name);
	put_attrs(&b, &g->attrs);
	rc = put_record(w->f, &w->off, TAG_GROUP, &b);
	gt_buf_release(&b);
	return rc < 0 ? write_error(w, rc, d) : 0;
}

static void put_tensor_header(struct gt_buf *b, uint32_t index,
			      const struct gt_tensor_info *t,
			      const struct gt_gtz_coding *c,
			      const char *opts, uint32_t bv, uint32_t cv)
{
	gt_buf_u32(b, index);
	gt_buf_str(b, t->name);
	gt_buf_u8(b, t->dtype);
	gt_buf_u8(b, t->rank);
	for (unsigned i = 0; i < t->rank; i++)
		gt_buf_u64(b, t->dims[i]);
	gt_buf_u64(b, t->count);
	gt_buf_u8(b, gt_codec_id(c->codec));
	gt_buf_str(b, opts);
	gt_buf_u32(b, (uint32_t)(c->params.table ? c->params.table_len : 0));
	if (c->params.table)
		gt_buf_put(b, c->params.table, c->params.table_len);
	gt_buf_u32(b, bv);
	gt_buf_u32(b, cv);
	put_attrs(b, &t->attrs);
}

int gt_gtz_begin(struct gt_gtz_writer *w, const struct gt_tensor_info *t,
		 const struct gt_gtz_coding *c, struct gt_diag *d)
{
	uint32_t bv = c->block_values ? c->block_values : GT_GTZ_BLOCK_DEFAULT;
	uint32_t cv = c->chunk_values ? c->chunk_values : GT_GTZ_CHUNK_DEFAULT;
	char opts[512];
	struct gt_buf b = { 0 };
	int rc;

	if (w->open || t->dtype != c->params.dtype || !gt_dtype_size(t->dtype))
		return gt_diag_set(d, GT_ERR(INVAL), "%s: bad tensor for the container", t->name);
	if (bv > GT_GTZ_BLOCK_MAX || bv < GT_GTZ_CHUNK_MIN)
		return gt_diag_set(d, GT_ERR(INVAL), "block size %u out of range", bv);
	if (cv > bv)
		cv = bv;
	if (cv < GT_GTZ_CHUNK_MIN)
		cv = GT_GTZ_CHUNK_MIN;
	rc = coder_init(&w->k, c->codec, &c->params, bv, cv, w->threads, d);
	if (rc < 0) {
		coder_release(&w->k);
		return rc;
	}
	gt_codec_canon(w->k.ctx[0], opts, sizeof(opts));
	put_tensor_header(&b, w->tensor, t, c, opts, bv, cv);
	rc = put_record(w->f, &w->off, TAG_TENSOR, &b);
	gt_buf_release(&b);
	if (rc < 0) {
		coder_release(&w->k);
		return write_error(w, rc, d);
	}
	w->nchunks_max = nchunks_of(&w->k, bv);
	w->block = malloc((size_t)bv * w->k.width);
	w->chunks = calloc(w->nchunks_max, sizeof(*w->chunks));
	if (!w->block || !w->chunks)
		return GT_ERR(NOMEM);
	for (size_t i = 0; i < w->nchunks_max; i++)
		if (!(w->chunks[i].buf = malloc(w->k.chunk_bound)))
			return GT_ERR(NOMEM);
	w->open = 1;
	w->count = t->count;
	w->seen = w->blocks = w->raw_blocks = 0;
	w->fill = 0;
	return 0;
}

struct encode_job {
	struct gt_gtz_writer *w;
	size_t n;
};

static void encode_chunk(void *arg, size_t i, unsigned worker)
{
	const struct encode_job *job = arg;
	struct gt_gtz_writer *w = job->w;
	const size_t first = i * w->k.chunk_values;
	const size_t n = job->n - first < w->k.chunk_values ? job->n - first
							    : w->k.chunk_values;
	struct chunk_out *out = &w->chunks[i];

	out->rc = gt_codec_encode(w->k.ctx[worker], w->block + first * w->k.width,
				  n, out->buf, w->k.chunk_bound, &out->len);
}

static int add_index(struct gt_gtz_writer *w, uint64_t first, uint64_t offset)
{
	if (w->nindex == w->index_cap) {
		const size_t cap = w->index_cap ? 2 * w->index_cap : 64;
		struct index_entry *p = realloc(w->index, cap * sizeof(*p));

		if (!p)
			return GT_ERR(NOMEM);
		w->index = p;
		w->index_cap = cap;
	}
	w->index[w->nindex].tensor = w->tensor;
	w->index[w->nindex].block = w->blocks;
	w->index[w->nindex].first = first;
	w->index[w->nindex].offset = offset;
	w->nindex++;
	return 0;
}

/*
 * The block header of GComp's Figure 7, then one header per chunk:
 *   u32 tensor | u64 block | u64 first value | u64 compressed bits |
 *   u64 original bits | u8 dtype | u8 codec | u32 chunks | u32 CRC-32 of
 *   the decoded bytes | u32 meta length | meta |
 *   chunks x (u64 byte offset | u64 length in bits | u32 values)
 */
static int flush_block(struct gt_gtz_writer *w, struct gt_diag *d)
{
	unsigned char meta[GT_CODEC_META_MAX];
	struct encode_job job = { w, w->fill };
	const size_t nch = nchunks_of(&w->k, w->fill);
	const size_t raw_len = w->fill * w->k.width;
	struct gt_buf b = { 0 };
	size_t meta_len = 0, total = 0, off = 0;
	const uint64_t rec_off = w->off;
	int rc, stored;

	rc = gt_codec_block_begin(w->k.ctx[0], w->block, w->fill, meta, sizeof(meta), &meta_len);
	for (unsigned i = 0; i < w->k.nctx && rc >= 0; i++)
		rc = gt_codec_block_load(w->k.ctx[i], meta, meta_len);
	if (rc < 0)
		return gt_diag_set(d, rc, "block %llu: %s", (unsigned long long)w->blocks,
				   gt_strerror(rc));
	gt_pool_run(w->pool, nch, encode_chunk, &job);
	for (size_t i = 0; i < nch; i++) {
		if (w->chunks[i].rc < 0)
			return gt_diag_set(d, w->chunks[i].rc, "block %llu: chunk %zu: %s",
					   (unsigned long long)w->blocks, i,
					   gt_strerror(w->chunks[i].rc));
		total += w->chunks[i].len;
	}
	/* a block that would grow is stored raw, chunk for chunk */
	stored = total + meta_len >= raw_len;
	if (stored) {
		total = raw_len;
		meta_len = 0;
	}
	gt_buf_u32(&b, w->tensor);
	gt_buf_u64(&b, w->blocks);
	gt_buf_u64(&b, w->seen - w->fill);
	gt_buf_u64(&b, (uint64_t)total * 8);
	gt_buf_u64(&b, (uint64_t)raw_len * 8);
	gt_buf_u8(&b, w->k.dtype);
	gt_buf_u8(&b, stored ? gt_codec_id(gt_codec_find("raw")) : gt_codec_id(w->k.codec));
	gt_buf_u32(&b, (uint32_t)nch);
	gt_buf_u32(&b, crc_of(0, w->block, raw_len));
	gt_buf_u32(&b, (uint32_t)meta_len);
	gt_buf_put(&b, meta, meta_len);
	for (size_t i = 0; i < nch; i++) {
		const size_t nv = i + 1 < nch ? w->k.chunk_values : w->fill - i * w->k.chunk_values;
		const size_t len = stored ? nv * w->k.width : w->chunks[i].len;

		gt_buf_u64(&b, off);
		gt_buf_u64(&b, (uint64_t)len * 8);
		gt_buf_u32(&b, (uint32_t)nv);
		off += len;
	}
	rc = put_record(w->f, &w->off, TAG_BLOCK, &b);
	gt_buf_release(&b);
	if (rc < 0)
		return write_error(w, rc, d);
	if (stored) {
		if (raw_len && fwrite(w->block, 1, raw_len, w->f) != raw_len)
			return write_error(w, GT_ERR(IO), d);
	} else {
		for (size_t i = 0; i < nch; i++)
			if (w->chunks[i].len &&
			    fwrite(w->chunks[i].buf, 1, w->chunks[i].len, w->f) != w->chunks[i].len)
				return write_error(w, GT_ERR(IO), d);
	}
	w->off += total;
	rc = add_index(w, w->seen - w->fill, rec_off);
	if (rc < 0)
		return rc;
	w->blocks++;
	w->raw_blocks += stored;
	w->fill = 0;
	return 0;
}

int gt_gtz_write(struct gt_gtz_writer *w, const void *src, size_t n,
		 struct gt_diag *d)
{
	const unsigned char *p = src;

	if (!w->open)
		return GT_ERR(INVAL);
	if (w->count != GT_COUNT_UNKNOWN && n > w->count - w->seen)
		return gt_diag_set(d, GT_ERR(INVAL), "more values than the tensor holds");
	while (n) {
		const size_t take = n < w->k.block_values - w->fill ? n
				    : w->k.block_values - w->fill;

		memcpy(w->block + w->fill * w->k.width, p, take * w->k.width);
		w->fill += take;
		w->seen += take;
		p += take * w->k.width;
		n -= take;
		if (w->fill == w->k.block_values)
			GT_TRY(flush_block(w, d));
	}
	return 0;
}

static void release_tensor(struct gt_gtz_writer *w)
{
	for (size_t i = 0; w->chunks && i < w->nchunks_max; i++)
		free(w->chunks[i].buf);
	free(w->chunks);
	free(w->block);
	w->chunks = NULL;
	w->block = NULL;
	coder_release(&w->k);
	w->open = 0;
}

int gt_gtz_end(struct gt_gtz_writer *w, struct gt_diag *d)
{
	struct gt_buf b = { 0 };
	int rc = 0;

	if (!w->open)
		return GT_ERR(INVAL);
	if (w->count != GT_COUNT_UNKNOWN && w->seen != w->count)
		rc = gt_diag_set(d, GT_ERR(INVAL), "tensor ended after %llu of %llu values",
				 (unsigned long long)w->seen, (unsigned long long)w->count);
	if (rc >= 0 && w->fill)
		rc = flush_block(w, d);
	if (rc >= 0) {
		gt_buf_u32(&b, w->tensor);
		gt_buf_u64(&b, w->seen);
		gt_buf_u64(&b, w->blocks);
		rc = put_record(w->f, &w->off, TAG_END, &b);
		gt_buf_release(&b);
		if (rc < 0)
			rc = write_error(w, rc, d);
	}
	release_tensor(w);
	w->tensor++;
	return rc;
}

int gt_gtz_writer_commit(struct gt_gtz_writer *w, struct gt_diag *d)
{
	struct gt_buf b = { 0 };
	const uint64_t idx_off = w->off;
	int rc;

	if (w->open)
		return gt_diag_set(d, GT_ERR(INVAL), "a tensor is still open");
	gt_buf_u64(&b, w->nindex);
	for (size_t i = 0; i < w->nindex; i++) {
		gt_buf_u32(&b, w->index[i].tensor);
		gt_buf_u64(&b, w->index[i].block);
		gt_buf_u64(&b, w->index[i].first);
		gt_buf_u64(&b, w->index[i].offset);
	}
	rc = put_record(w->f, &w->off, TAG_INDEX, &b);
	gt_buf_release(&b);
	if (rc >= 0) {
		gt_buf_u64(&b, idx_off);
		gt_buf_u32(&b, w->tensor);
		rc = put_record(w->f, &w->off, TAG_EOF, &b);
		gt_buf_release(&b);
	}
	if (rc >= 0 && fflush(w->f))
		rc = GT_ERR(IO);
	if (rc >= 0 && !w->to_stdout) {
		if (fsync(fileno(w->f)) && errno != EINVAL)
			rc = GT_ERR(IO);
		if (fclose(w->f))
			rc = GT_ERR(IO);
		w->f = NULL;
		if (rc < 0)
			return write_error(w, rc, d);
		return gt_atomic_commit(&w->out, d);
	}
	return rc < 0 ? write_error(w, rc, d) : 0;
}

void gt_gtz_writer_free(struct gt_gtz_writer *w)
{
	if (!w)
		return;
	release_tensor(w);
	if (w->f && !w->to_stdout)
		fclose(w->f);
	gt_atomic_release(&w->out);
	gt_pool_free(w->pool);
	free(w->index);
	free(w);
}

uint64_t gt_gtz_writer_bytes(const struct gt_gtz_writer *w)
{
	return w->off;
}

uint64_t gt_gtz_writer_raw_blocks(const struct gt_gtz_writer *w)
{
	return w->raw_blocks;
}

/* ---- reader --------------------------------------------------------------- */

struct chunk_in {
	uint64_t off, bits;
	uint32_t values;
	int rc;
};

struct gt_gtz_reader {
	FILE *f;
	uint64_t off;           /* bytes consumed */
	struct gt_pool *pool;
	unsigned threads;
	int done;
	struct gt_group_info group;
	/* the open tensor */
	int open;
	uint32_t tensors;       /* tensor headers seen */
	struct gt_gtz_tensor t;
	struct coder k;
	uint64_t seen, blocks;
	unsigned char *body;    /* record body */
	size_t body_cap;
	unsigned char *payload;
	size_t payload_cap;
	unsigned char *out;     /* decoded block */
	size_t out_cap, out_n;
	struct chunk_in *chunks;
	size_t nchunks;
	int block_codec_raw;
	/* index check: offsets of the blocks seen */
	uint64_t *offsets;
	size_t noffsets, offsets_cap;
	uint64_t rec_off;
	int scan;               /* skip payloads (gt_source listing) */
	int last_raw;           /* the last block was stored raw */
	uint64_t last_bytes;    /* its size on disk */
};

int gt_gtz_reader_open(FILE *f, unsigned threads, struct gt_gtz_reader **r_ret,
		       struct gt_diag *d)
{
	struct gt_gtz_reader *r;
	unsigned char head[16];
	uint32_t crc;
	int rc;

	*r_ret = NULL;
	memset(head, 0, sizeof(head));
	rc = read_exact(f, head, 16);
	if (memcmp(head, file_magic, 4))
		return gt_diag_set(d, GT_ERR(CORRUPT), "not a .gtz file");
	if (rc < 0)
		return gt_diag_set(d, rc, rc == GT_ERR(TRUNCATED) ? "truncated file header"
				   : "read error");
	crc = (uint32_t)head[12] | (uint32_t)head[13] << 8 |
	      (uint32_t)head[14] << 16 | (uint32_t)head[15] << 24;
	if (crc != crc_of(0, head, 12))
		return gt_diag_set(d, GT_ERR(CORRUPT), "file header: CRC mismatch");
	if (head[4] != GT_GTZ_VERSION_MAJOR || head[5])
		return gt_diag_set(d, GT_ERR(UNSUPPORTED),
				   "format version %u.%u is newer than this gtool reads (%d.x)",
				   head[4] | head[5] << 8, head[6] | head[7] << 8,
				   GT_GTZ_VERSION_MAJOR);
	if (head[8] | head[9] | head[10] | head[11])
		return gt_diag_set(d, GT_ERR(UNSUPPORTED), "unknown header flags %02x%02x%02x%02x",
				   head[11], head[10], head[9], head[8]);
	r = calloc(1, sizeof(*r));
	if (!r)
		return GT_ERR(NOMEM);
	r->f = f;
	r->off = 16;
	r->threads = threads ? threads : 1;
	rc = gt_pool_new(r->threads, &r->pool);
	if (rc < 0) {
		free(r);
		return rc;
	}
	*r_ret = r;
	return 0;
}

static void reader_close_tensor(struct gt_gtz_reader *r)
{
	gt_tensor_info_release(&r->t.info);
	free(r->t.opts);
	free(r->t.table);
	memset(&r->t, 0, sizeof(r->t));
	coder_release(&r->k);
	r->open = 0;
}

static void reader_clear_group(struct gt_gtz_reader *r)
{
	free(r->group.name);
	gt_attrs_release(&r->group.attrs);
	memset(&r->group, 0, sizeof(r->group));
}

void gt_gtz_reader_free(struct gt_gtz_reader *r)
{
	if (!r)
		return;
	reader_close_tensor(r);
	reader_clear_group(r);
	gt_pool_free(r->pool);
	free(r->body);
	free(r->payload);
	free(r->out);
	free(r->chunks);
	free(r->offsets);
	free(r);
}

static int grow(unsigned char **p, size_t *cap_ret, size_t need)
{
	unsigned char *q;

	size_t cap = *cap_ret > SIZE_MAX / 2 ? need : 2 * *cap_ret;

	if (need <= *cap_ret)
		return 0;
	if (cap < need)
		cap = need;
	q = realloc(*p, cap);
	if (!q)
		return GT_ERR(NOMEM);
	*p = q;
	*cap_ret = cap;
	return 0;
}

/* Read one record: its tag and its CRC-checked body into r->body. */
static int read_record(struct gt_gtz_reader *r, char tag[4], size_t *len_ret,
		       struct gt_diag *d)
{
	unsigned char head[8], tail[4];
	uint32_t len, crc;
	int rc;

	r->rec_off = r->off;
	rc = read_exact(r->f, head, 8);
	if (rc < 0)
		return gt_diag_set(d, rc, rc == GT_ERR(IO) ? "read error" :
				   "truncated: the file ends before its index");
	memcpy(tag, head, 4);
	len = (uint32_t)head[4] | (uint32_t)head[5] << 8 | (uint32_t)head[6] << 16 |
	      (uint32_t)head[7] << 24;
	if (len > REC_MAX)
		return gt_diag_set(d, GT_ERR(CORRUPT), "offset %llu: record length %u too large",
				   (unsigned long long)r->off, len);
	rc = grow(&r->body, &r->body_cap, len ? len : 1);
	if (rc >= 0)
		rc = read_exact(r->f, r->body, len);
	if (rc >= 0)
		rc = read_exact(r->f, tail, 4);
	if (rc < 0)
		return gt_diag_set(d, rc, "offset %llu: truncated record",
				   (unsigned long long)r->off);
	crc = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
	      (uint32_t)tail[3] << 24;
	if (crc != crc_of(crc_of(0, head, 8), r->body, len))
		return gt_diag_set(d, GT_ERR(CORRUPT), "offset %llu: record header CRC mismatch",
				   (unsigned long long)r->off);
	r->off += 12 + (uint64_t)len;
	*len_ret = len;
	return 0;
}

static int parse_group(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	int rc;

	reader_clear_group(r);
	r->group.name = gt_cur_str(&c);
	rc = c.err ? c.err : get_attrs(&c, &r->group.attrs);
	if (rc >= 0 && c.p != c.end)
		rc = GT_ERR(CORRUPT);
	if (rc < 0)
		return gt_diag_set(d, GT_ERR(CORRUPT), "offset %llu: bad group record",
				   (unsigned long long)r->rec_off);
	return 0;
}

static int check_shape(const struct gt_tensor_info *t)
{
	uint64_t prod = 1;

	if (t->count == GT_COUNT_UNKNOWN)
		return t->rank == 1 && t->dims[0] == GT_COUNT_UNKNOWN ? 0 : GT_ERR(CORRUPT);
	for (unsigned i = 0; i < t->rank; i++) {
		if (t->dims[i] && prod > UINT64_MAX / t->dims[i])
			return GT_ERR(CORRUPT);
		prod *= t->dims[i];
	}
	return prod == t->count ? 0 : GT_ERR(CORRUPT);
}

static int parse_tensor_fields(struct gt_gtz_reader *r, struct gt_cur *c,
			       unsigned *codec_id)
{
	struct gt_gtz_tensor *t = &r->t;
	const unsigned char *table;
	uint32_t table_len;

	if (gt_cur_u32(c) != r->tensors && !c->err)
		return GT_ERR(CORRUPT);
	t->info.name = gt_cur_str(c);
	t->info.dtype = (enum gt_dtype)gt_cur_u8(c);
	t->info.rank = gt_cur_u8(c);
	if (c->err)
		return c->err;
	if (!gt_dtype_size(t->info.dtype) || t->info.dtype > GT_DT_MAX ||
	    t->info.rank > GT_MAX_RANK)
		return GT_ERR(CORRUPT);
	for (unsigned i = 0; i < t->info.rank; i++)
		t->info.dims[i] = gt_cur_u64(c);
	t->info.count = gt_cur_u64(c);
	*codec_id = gt_cur_u8(c);
	t->opts = gt_cur_str(c);
	table_len = gt_cur_u32(c);
	table = gt_cur_bytes(c, table_len);
	if (c->err)
		return c->err;
	if (table_len) {
		t->table = malloc(table_len);
		if (!t->table)
			return GT_ERR(NOMEM);
		memcpy(t->table, table, table_len);
		t->table_len = table_len;
	}
	t->block_values = gt_cur_u32(c);
	t->chunk_values = gt_cur_u32(c);
	if (c->err)
		return c->err;
	return get_attrs(c, &t->info.attrs);
}

static int parse_tensor(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	struct gt_gtz_tensor *t = &r->t;
	struct gt_codec_params p = { 0 };
	struct gt_diag cd;
	unsigned codec_id = 0;
	int rc;

	rc = parse_tensor_fields(r, &c, &codec_id);
	if (rc >= 0 && (c.p != c.end || check_shape(&t->info) < 0 ||
			t->block_values > GT_GTZ_BLOCK_MAX ||
			t->chunk_values < GT_GTZ_CHUNK_MIN ||
			t->chunk_values > t->block_values))
		rc = GT_ERR(CORRUPT);
	if (rc < 0)
		return gt_diag_set(d, GT_ERR(CORRUPT), "tensor %u: bad tensor header", r->tensors);
	t->codec = gt_codec_by_id(codec_id);
	if (!t->codec)
		return gt_diag_set(d, GT_ERR(UNSUPPORTED), "%s: unknown codec id %u",
				   t->info.name, codec_id);
	p.dtype = t->info.dtype;
	p.opts = t->opts;
	p.table = t->table;
	p.table_len = t->table_len;
	rc = coder_init(&r->k, t->codec, &p, t->block_values, t->chunk_values,
			r->threads, &cd);
	if (rc < 0)
		return gt_diag_set(d, rc == GT_ERR(NOMEM) ? rc : GT_ERR(CORRUPT),
				   "%s: %s", t->info.name,
				   rc == GT_ERR(NOMEM) ? "out of memory" : cd.msg);
	r->open = 1;
	r->seen = r->blocks = 0;
	r->tensors++;
	return 0;
}

#define BLOCK_ERR(rc, ...) gt_diag_set(d, (rc), "%s: block %llu: " __VA_ARGS__)

struct block_head {
	uint64_t first, bits, orig_bits, values;
	unsigned codec;
	uint32_t nchunks, crc, meta_len;
	const unsigned char *meta;
};

static int parse_chunks(struct gt_gtz_reader *r, struct gt_cur *c,
			const struct block_head *h, uint64_t *payload_ret)
{
	uint64_t off = 0, bits = 0;

	for (uint32_t i = 0; i < h->nchunks; i++) {
		struct chunk_in *ch = &r->chunks[i];
		const uint64_t want = i + 1 < h->nchunks ? r->k.chunk_values
				      : h->values - (uint64_t)i * r->k.chunk_values;

		ch->off = gt_cur_u64(c);
		ch->bits = gt_cur_u64(c);
		ch->values = gt_cur_u32(c);
		if (c->err)
			return c->err;
		/* contiguous, the expected value count, no larger than a worst case */
		if (ch->off != off || ch->values != want ||
		    ch->bits > (uint64_t)r->k.chunk_bound * 8)
			return GT_ERR(CORRUPT);
		off += (ch->bits + 7) / 8;
		bits += ch->bits;
	}
	if (bits != h->bits || c->p != c->end)
		return GT_ERR(CORRUPT);
	*payload_ret = off;
	return 0;
}

static int parse_block(struct gt_gtz_reader *r, size_t len, struct block_head *h,
		       uint64_t *payload_ret)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	const uint32_t tensor = gt_cur_u32(&c);
	const uint64_t block = gt_cur_u64(&c);
	const uint64_t width_bits = 8ull * r->k.width;
	unsigned dtype;

	h->first = gt_cur_u64(&c);
	h->bits = gt_cur_u64(&c);
	h->orig_bits = gt_cur_u64(&c);
	dtype = gt_cur_u8(&c);
	h->codec = gt_cur_u8(&c);
	h->nchunks = gt_cur_u32(&c);
	h->crc = gt_cur_u32(&c);
	h->meta_len = gt_cur_u32(&c);
	h->meta = gt_cur_bytes(&c, h->meta_len);
	if (c.err)
		return c.err;
	h->values = h->orig_bits / width_bits;
	if (tensor != r->tensors - 1 || block != r->blocks || h->first != r->seen ||
	    dtype != r->t.info.dtype || h->orig_bits % width_bits ||
	    !h->values || h->values > r->t.block_values ||
	    (r->t.info.count != GT_COUNT_UNKNOWN && h->values > r->t.info.count - r->seen) ||
	    h->nchunks != (h->values + r->k.chunk_values - 1) / r->k.chunk_values ||
	    h->meta_len > GT_CODEC_META_MAX)
		return GT_ERR(CORRUPT);
	if (h->codec != gt_codec_id(r->t.codec) &&
	    (h->codec != gt_codec_id(gt_codec_find("raw")) || h->meta_len))
		return GT_ERR(CORRUPT);
	if (h->nchunks > r->nchunks) {
		struct chunk_in *p = realloc(r->chunks, h->nchunks * sizeof(*p));

		if (!p)
			return GT_ERR(NOMEM);
		r->chunks = p;
		r->nchunks = h->nchunks;
	}
	return parse_chunks(r, &c, h, payload_ret);
}

/*
 * Read @len payload bytes, growing the buffer only as bytes arrive, so a
 * header that claims a huge block in a small file fails on the short read
 * before anything large is allocated.
 */
static int read_payload(struct gt_gtz_reader *r, size_t len)
{
	const size_t step = 1u << 20;
	size_t done = 0;

	while (done < len) {
		const size_t take = len - done < step ? len - done : step;

		GT_TRY(grow(&r->payload, &r->payload_cap, done + take));
		GT_TRY(read_exact(r->f, r->payload + done, take));
		done += take;
	}
	return 0;
}

struct decode_job {
	struct gt_gtz_reader *r;
	int raw;
};

static void decode_chunk(void *arg, size_t i, unsigned worker)
{
	const struct decode_job *job = arg;
	struct gt_gtz_reader *r = job->r;
	struct chunk_in *ch = &r->chunks[i];
	struct gt_codec_ctx *ctx = job->raw ? r->k.raw[worker] : r->k.ctx[worker];

	ch->rc = gt_codec_decode(ctx, r->payload + ch->off, (size_t)((ch->bits + 7) / 8),
				 r->out + i * (size_t)r->k.chunk_values * r->k.width,
				 ch->values);
}

static int read_block(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	const char *name = r->t.info.name;
	const unsigned long long bno = (unsigned long long)r->blocks;
	struct block_head h;
	struct decode_job job = { r, 0 };
	uint64_t payload = 0;
	int rc;

	rc = parse_block(r, len, &h, &payload);
	if (rc < 0)
		return BLOCK_ERR(rc == GT_ERR(NOMEM) ? rc : GT_ERR(CORRUPT),
				 "bad block header", name, bno);
	r->last_raw = h.codec != gt_codec_id(r->t.codec);
	r->last_bytes = 12 + len + payload;
	if (r->scan) {
		/* listing a seekable file: skip the payload, decode nothing */
		if (fseeko(r->f, (off_t)payload, SEEK_CUR))
			return BLOCK_ERR(GT_ERR(IO), "cannot seek", name, bno);
		r->off += payload;
		r->seen += h.values;
		r->blocks++;
		r->out_n = (size_t)h.values;
		return 0;
	}
	rc = read_payload(r, (size_t)payload);
	if (rc >= 0)
		rc = grow(&r->out, &r->out_cap, (size_t)h.values * r->k.width);
	if (rc < 0)
		return BLOCK_ERR(rc, "%s", name, bno, rc == GT_ERR(TRUNCATED)
				 ? "truncated" : gt_strerror(rc));
	r->off += payload;
	job.raw = h.codec != gt_codec_id(r->t.codec);
	for (unsigned i = 0; i < r->k.nctx && !job.raw && rc >= 0; i++)
		rc = gt_codec_block_load(r->k.ctx[i], h.meta, h.meta_len);
	if (rc < 0)
		return BLOCK_ERR(GT_ERR(CORRUPT), "bad codec table", name, bno);
	gt_pool_run(r->pool, h.nchunks, decode_chunk, &job);
	for (uint32_t i = 0; i < h.nchunks; i++)
		if (r->chunks[i].rc < 0)
			return BLOCK_ERR(GT_ERR(CORRUPT), "chunk %u: %s", name, bno, i,
					 gt_strerror(r->chunks[i].rc));
	if (crc_of(0, r->out, (size_t)h.values * r->k.width) != h.crc)
		return BLOCK_ERR(GT_ERR(CORRUPT), "CRC mismatch", name, bno);
	r->seen += h.values;
	r->blocks++;
	r->out_n = (size_t)h.values;
	return 0;
}

static int add_offset(struct gt_gtz_reader *r)
{
	if (r->noffsets == r->offsets_cap) {
		const size_t cap = r->offsets_cap ? 2 * r->offsets_cap : 64;
		uint64_t *p = realloc(r->offsets, cap * sizeof(*p));

		if (!p)
			return GT_ERR(NOMEM);
		r->offsets = p;
		r->offsets_cap = cap;
	}
	r->offsets[r->noffsets++] = r->rec_off;
	return 0;
}

static int parse_end(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	const uint32_t tensor = gt_cur_u32(&c);
	const uint64_t count = gt_cur_u64(&c);
	const uint64_t blocks = gt_cur_u64(&c);

	if (c.err || c.p != c.end || tensor != r->tensors - 1 || blocks != r->blocks)
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: bad end record", r->t.info.name);
	if (count != r->seen || (r->t.info.count != GT_COUNT_UNKNOWN && count != r->t.info.count))
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: %llu values where %llu were expected",
				   r->t.info.name, (unsigned long long)r->seen,
				   (unsigned long long)(r->t.info.count == GT_COUNT_UNKNOWN
							? count : r->t.info.count));
	if (r->t.info.count == GT_COUNT_UNKNOWN) {
		r->t.info.count = count;
		r->t.info.dims[0] = count;
	}
	r->open = 0;
	return 0;
}

/* The index must list exactly the blocks read; the trailer points at it. */
static int parse_index(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	const uint64_t idx_off = r->rec_off;
	const uint64_t n = gt_cur_u64(&c);
	char tag[4];
	int rc;

	if (c.err || n != r->noffsets || n > (len - 8) / INDEX_ENTRY || len - 8 != n * INDEX_ENTRY)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad index");
	for (uint64_t i = 0; i < n; i++) {
		(void)gt_cur_u32(&c);
		(void)gt_cur_u64(&c);
		(void)gt_cur_u64(&c);
		if (gt_cur_u64(&c) != r->offsets[i])
			return gt_diag_set(d, GT_ERR(CORRUPT), "index entry %llu is wrong",
					   (unsigned long long)i);
	}
	rc = read_record(r, tag, &len, d);
	if (rc < 0)
		return rc;
	c.p = r->body;
	c.end = r->body + len;
	if (memcmp(tag, TAG_EOF, 4) || gt_cur_u64(&c) != idx_off ||
	    gt_cur_u32(&c) != r->tensors || c.err || c.p != c.end)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad trailer");
	if (fgetc(r->f) != EOF)
		return gt_diag_set(d, GT_ERR(CORRUPT), "data after the trailer");
	return 0;
}

int gt_gtz_next(struct gt_gtz_reader *r, enum gt_gtz_event *ev_ret,
		struct gt_diag *d)
{
	char tag[4];
	size_t len;
	int rc;

	*ev_ret = GT_GTZ_EOF;
	if (r->done)
		return 0;
	rc = read_record(r, tag, &len, d);
	if (rc < 0)
		return rc;
	if (!memcmp(tag, TAG_BLOCK, 4) && r->open) {
		rc = add_offset(r);
		if (rc >= 0)
			rc = read_block(r, len, d);
		*ev_ret = GT_GTZ_DATA;
	} else if (!memcmp(tag, TAG_END, 4) && r->open) {
		rc = parse_end(r, len, d);
		*ev_ret = GT_GTZ_TENSOR_END;
	} else if (r->open) {
		rc = gt_diag_set(d, GT_ERR(CORRUPT), "%s: block %llu: missing",
				 r->t.info.name, (unsigned long long)r->blocks);
	} else if (!memcmp(tag, TAG_GROUP, 4)) {
		rc = parse_group(r, len, d);
		*ev_ret = GT_GTZ_GROUP;
	} else if (!memcmp(tag, TAG_TENSOR, 4)) {
		reader_close_tensor(r);
		rc = parse_tensor(r, len, d);
		*ev_ret = GT_GTZ_TENSOR;
	} else if (!memcmp(tag, TAG_INDEX, 4)) {
		rc = parse_index(r, len, d);
		*ev_ret = GT_GTZ_EOF;
		r->done = 1;
	} else {
		rc = gt_diag_set(d, GT_ERR(CORRUPT), "offset %llu: unexpected record",
				 (unsigned long long)r->rec_off);
	}
	return rc;
}

const struct gt_group_info *gt_gtz_group(const struct gt_gtz_reader *r)
{
	return &r->group;
}

const struct gt_gtz_tensor *gt_gtz_tensor(const struct gt_gtz_reader *r)
{
	return &r->t;
}

void gt_gtz_data(const struct gt_gtz_reader *r, const void **data_ret,
		 size_t *n_ret)
{
	*data_ret = r->out;
	*n_ret = r->out_n;
}

/* ---- .gtz as a gt_source: a seekable file, listed once, decoded per block -- */

struct src_tensor {
	struct gt_gtz_meta meta;
	uint64_t header_off;   /* offset of its tensor record */
	uint64_t *blk_off, *blk_first;
	size_t nblk;
};

struct gtz_src {
	FILE *f;
	struct gt_gtz_reader *r;
	struct src_tensor *t;
	size_t loaded;         /* tensor whose header the reader holds (+1; 0: none) */
	size_t cached;         /* block of it in r->out (+1; 0: none) */
};

static void gtz_src_close(struct gt_source *s)
{
	struct gtz_src *g = s->priv;

	if (!g)
		return;
	for (size_t i = 0; g->t && i < s->ntensors; i++) {
		free((char *)(uintptr_t)g->t[i].meta.opts);
		free(g->t[i].blk_off);
		free(g->t[i].blk_first);
	}
	free(g->t);
	gt_gtz_reader_free(g->r);
	if (g->f)
		fclose(g->f);
	free(g);
	s->priv = NULL;
}

static int push_block(struct src_tensor *t, uint64_t off, uint64_t first)
{
	uint64_t *a = realloc(t->blk_off, (t->nblk + 1) * sizeof(*a));
	uint64_t *b;

	if (!a)
		return GT_ERR(NOMEM);
	t->blk_off = a;
	b = realloc(t->blk_first, (t->nblk + 1) * sizeof(*b));
	if (!b)
		return GT_ERR(NOMEM);
	t->blk_first = b;
	t->blk_off[t->nblk] = off;
	t->blk_first[t->nblk] = first;
	t->nblk++;
	return 0;
}

static int add_tensor(struct gt_source *s, struct gtz_src *g)
{
	const struct gt_gtz_tensor *t = &g->r->t;
	struct gt_tensor_info *ti;
	struct src_tensor *st;
	void *p;

	p = realloc(s->tensors, (s->ntensors + 1) * sizeof(*s->tensors));
	if (!p)
		return GT_ERR(NOMEM);
	s->tensors = p;
	p = realloc(g->t, (s->ntensors + 1) * sizeof(*g->t));
	if (!p)
		return GT_ERR(NOMEM);
	g->t = p;
	ti = &s->tensors[s->ntensors];
	st = &g->t[s->ntensors];
	memset(st, 0, sizeof(*st));
	*ti = t->info;
	memset(&ti->attrs, 0, sizeof(ti->attrs));
	ti->name = strdup(t->info.name);
	s->ntensors++;
	st->header_off = g->r->rec_off;
	st->meta.codec = gt_codec_name(t->codec);
	st->meta.opts = strdup(t->opts ? t->opts : "");
	st->meta.static_table = t->table != NULL;
	if (!ti->name || !st->meta.opts)
		return GT_ERR(NOMEM);
	return gt_attrs_copy(&ti->attrs, &t->info.attrs);
}

static int add_group(struct gt_source *s, const struct gt_group_info *g)
{
	struct gt_group_info *p = realloc(s->groups, (s->ngroups + 1) * sizeof(*p));

	if (!p)
		return GT_ERR(NOMEM);
	s->groups = p;
	memset(&p[s->ngroups], 0, sizeof(*p));
	p[s->ngroups].name = strdup(g->name);
	s->ngroups++;
	if (!p[s->ngroups - 1].name)
		return GT_ERR(NOMEM);
	return gt_attrs_copy(&p[s->ngroups - 1].attrs, &g->attrs);
}

static int scan_event(struct gt_source *s, struct gtz_src *g, enum gt_gtz_event ev)
{
	struct src_tensor *st = s->ntensors ? &g->t[s->ntensors - 1] : NULL;

	switch (ev) {
	case GT_GTZ_GROUP: return add_group(s, &g->r->group);
	case GT_GTZ_TENSOR: return add_tensor(s, g);
	case GT_GTZ_DATA:
		st->meta.blocks++;
		st->meta.raw_blocks += g->r->last_raw;
		st->meta.stored_bytes += g->r->last_bytes;
		return push_block(st, g->r->rec_off, g->r->seen - g->r->out_n);
	case GT_GTZ_TENSOR_END:
		s->tensors[s->ntensors - 1].count = g->r->t.info.count;
		s->tensors[s->ntensors - 1].dims[0] = g->r->t.info.dims[0];
		return 0;
	case GT_GTZ_EOF: break;
	}
	return 0;
}

static const struct gt_source_ops gtz_ops;

int gt_gtz_source_open(struct gt_source *s, FILE *f, struct gt_diag *d)
{
	struct gtz_src *g = calloc(1, sizeof(*g));
	enum gt_gtz_event ev;
	int rc;

	if (!g) {
		fclose(f);
		return GT_ERR(NOMEM);
	}
	g->f = f;
	s->priv = g;
	s->ops = &gtz_ops;
	if (fseeko(f, 0, SEEK_CUR))
		return gt_diag_set(d, GT_ERR(INVAL),
				   "a .gtz stream cannot be listed from a pipe; use gtool decompress");
	rc = gt_gtz_reader_open(f, 1, &g->r, d);
	if (rc < 0)
		return rc;
	g->r->scan = 1;
	do {
		rc = gt_gtz_next(g->r, &ev, d);
		if (rc >= 0)
			rc = scan_event(s, g, ev);
	} while (rc >= 0 && ev != GT_GTZ_EOF);
	g->r->scan = 0;
	return rc;
}

/* Make the reader hold tensor @i's header and block @b decoded. */
static int load_block(struct gt_source *s, size_t i, size_t b, struct gt_diag *d)
{
	struct gtz_src *g = s->priv;
	struct gt_gtz_reader *r = g->r;
	const struct src_tensor *st = &g->t[i];
	char tag[4];
	size_t len;
	int rc;

	if (g->loaded == i + 1 && g->cached == b + 1)
		return 0;
	if (g->loaded != i + 1) {
		g->loaded = g->cached = 0;
		if (fseeko(g->f, (off_t)st->header_off, SEEK_SET))
			return gt_diag_set(d, GT_ERR(IO), "cannot seek");
		r->off = st->header_off;
		GT_TRY(read_record(r, tag, &len, d));
		reader_close_tensor(r);
		r->tensors = (uint32_t)i;
		GT_TRY(parse_tensor(r, len, d));
		g->loaded = i + 1;
	}
	g->cached = 0;
	if (fseeko(g->f, (off_t)st->blk_off[b], SEEK_SET))
		return gt_diag_set(d, GT_ERR(IO), "cannot seek");
	r->off = st->blk_off[b];
	r->open = 1;
	r->blocks = b;
	r->seen = st->blk_first[b];
	GT_TRY(read_record(r, tag, &len, d));
	if (memcmp(tag, TAG_BLOCK, 4))
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: block %zu: missing", r->t.info.name, b);
	rc = read_block(r, len, d);
	if (rc >= 0)
		g->cached = b + 1;
	return rc;
}

static int gtz_src_read(struct gt_source *s, size_t i, uint64_t first, size_t n,
			void *dst, size_t *n_ret, struct gt_diag *d)
{
	struct gtz_src *g = s->priv;
	const struct src_tensor *st = &g->t[i];
	const uint64_t count = s->tensors[i].count;
	const unsigned w = gt_dtype_size(s->tensors[i].dtype);
	unsigned char *out = dst;
	size_t done = 0, b = 0;

	if (first >= count) {
		*n_ret = 0;
		return 0;
	}
	if (n > count - first)
		n = (size_t)(count - first);
	while (done < n) {
		const uint64_t at = first + done;
		size_t off, take;

		while (b + 1 < st->nblk && st->blk_first[b + 1] <= at)
			b++;
		GT_TRY(load_block(s, i, b, d));
		off = (size_t)(at - st->blk_first[b]);
		take = g->r->out_n - off < n - done ? g->r->out_n - off : n - done;
		memcpy(out + done * w, g->r->out + off * w, take * w);
		done += take;
	}
	*n_ret = n;
	return 0;
}

static const struct gt_source_ops gtz_ops = {
	.read = gtz_src_read,
	.close = gtz_src_close,
};

int gt_gtz_source_meta(const struct gt_source *s, size_t i, struct gt_gtz_meta *m_ret)
{
	const struct gtz_src *g;

	if (s->kind != GT_KIND_GTZ || i >= s->ntensors)
		return GT_ERR(INVAL);
	g = s->priv;
	*m_ret = g->t[i].meta;
	return 0;
}
