/* gtz_write.c - the .gtz writer: blocks of chunks coded in parallel, written in order */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "../lib/gt_chunk.h"
#include "../lib/gt_pool.h"
#include "atomic.h"
#include "fdpipe.h"
#include "gtz_impl.h"
#include "../lib/banned.h"


struct index_entry {
	uint32_t tensor;
	uint64_t block, first, offset;
};

struct chunk_out {
	unsigned char *buf;
	unsigned char *back;    /* lossy codecs: the chunk decoded again */
	size_t len;
	uint32_t crc;
	int rc;
};

/* One block being filled or coded. */
struct wblock {
	unsigned char *in;      /* block_values values */
	float *aux[3];          /* param, state 0, state 1 (when the codec uses them) */
	double *aux64[3];       /* the same in f64 (f64 values only) */
	int have[3];            /* which aux arrays were given */
	int have64[3];          /* which 64-bit aux arrays were given */
	size_t n;
	uint64_t first;
	struct chunk_out *chunks;
	unsigned char meta[GT_CODEC_META_MAX];
	size_t meta_len, total;
	uint32_t crc;
	int stored, rc;
};

struct gt_gtz_writer {
	FILE *f;
	struct gt_atomic out;
	int to_stdout;
	int cookie;             /* @f writes through a gt_gtz_io or to a descriptor */
	uint64_t off;
	struct gt_pool *pool;
	unsigned threads;
	/* the open tensor */
	int open;
	uint32_t tensor;
	uint64_t count, seen, blocks, raw_blocks;
	struct coder k;
	int lossless;           /* else a block's CRC is of the values decoded back */
	/*
	 * Two sets of nslots blocks: the workers code one set while this
	 * thread reads into the other, then writes the coded set out.
	 */
	struct wblock *slot;    /* nring(): 2 * nslots + 1 */
	size_t nslots, nfull;   /* blocks a set; filled in the current set */
	unsigned cur;           /* the set being filled */
	size_t inflight;        /* blocks of the other set being coded */
	struct wblock *job;     /* the set the workers code */
	size_t nchunks_max;
	size_t slot_values;     /* values a slot holds: a block, or the whole tensor */
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
		gt_fdpipe_widen(STDOUT_FILENO, GT_PIPE_BYTES);
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

static int write_error(int rc, struct gt_diag *d)
{
	if (rc == GT_ERR(IO))
		return gt_diag_set(d, rc, "write error: %s", strerror(errno));
	return gt_diag_set(d, rc, "%s", gt_strerror(rc));
}

static int put(struct gt_gtz_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		return GT_ERR(IO);
	w->off += n;
	return 0;
}

/* tag | varint body length | body | u32 CRC-32 of all before it */
static int put_record(struct gt_gtz_writer *w, unsigned tag, const struct gt_buf *body)
{
	struct gt_buf head = { 0 };
	unsigned char tail[4];
	uint32_t crc;
	int rc;

	if (body->err)
		return body->err;
	if (body->len > REC_MAX)
		return GT_ERR(OVERFLOW);
	gt_buf_u8(&head, tag);
	gt_buf_uv(&head, body->len);
	crc = gt_crc32(gt_crc32(0, head.p, head.len), body->p, body->len);
	for (int i = 0; i < 4; i++)
		tail[i] = (unsigned char)(crc >> (8 * i));
	rc = head.err;
	if (rc >= 0)
		rc = put(w, head.p, head.len);
	if (rc >= 0)
		rc = put(w, body->p, body->len);
	if (rc >= 0)
		rc = put(w, tail, 4);
	gt_buf_release(&head);
	return rc;
}

static int put_record_release(struct gt_gtz_writer *w, unsigned tag,
			      struct gt_buf *body, struct gt_diag *d)
{
	const int rc = put_record(w, tag, body);

	gt_buf_release(body);
	return rc < 0 ? write_error(rc, d) : 0;
}

/* The pool and the file header, once w->f is set (or @rc says why not). */
static int writer_start(struct gt_gtz_writer *w, int rc, unsigned threads,
			struct gt_gtz_writer **w_ret, struct gt_diag *d)
{
	unsigned char head[16];
	uint32_t crc;

	w->threads = threads ? threads : 1;
	if (rc >= 0)
		rc = gt_pool_new(w->threads, &w->pool);
	/* magic | u16 major | u16 minor | u32 flags | u32 CRC-32 of the 12 before */
	memcpy(head, gt_gtz_magic, 4);
	head[4] = GT_GTZ_VERSION_MAJOR; head[5] = 0;
	head[6] = GT_GTZ_VERSION_MINOR; head[7] = 0;
	memset(head + 8, 0, 4);
	crc = gt_crc32(0, head, 12);
	for (int i = 0; i < 4; i++)
		head[12 + i] = (unsigned char)(crc >> (8 * i));
	if (rc >= 0 && put(w, head, 16) < 0)
		rc = write_error(GT_ERR(IO), d);
	if (rc < 0) {
		gt_gtz_writer_free(w);
		return rc;
	}
	*w_ret = w;
	return 0;
}

int gt_gtz_writer_open(const char *path, int force, unsigned threads,
		       struct gt_gtz_writer **w_ret, struct gt_diag *d)
{
	struct gt_gtz_writer *w = calloc(1, sizeof(*w));

	*w_ret = NULL;
	if (!w)
		return GT_ERR(NOMEM);
	return writer_start(w, open_output(w, path, force, d), threads, w_ret, d);
}

int gt_gtz_write_group(struct gt_gtz_writer *w, const struct gt_group_info *g,
		       struct gt_diag *d)
{
	struct gt_buf b = { 0 };

	GT_TRY(gtz_check_name("group", g->name, d));
	gt_buf_str(&b, g->name);
	gtz_put_attrs(&b, &g->attrs);
	return put_record_release(w, TAG_GROUP, &b, d);
}

/* L: str name | u8 kind | str target | str file */
static int write_link(struct gt_gtz_writer *w, const struct gt_object *o,
		      struct gt_diag *d)
{
	struct gt_buf b = { 0 };

	gt_buf_str(&b, o->name);
	gt_buf_u8(&b, o->kind);
	gt_buf_str(&b, o->target ? o->target : "");
	gt_buf_str(&b, o->file ? o->file : "");
	return put_record_release(w, TAG_LINK, &b, d);
}

/*
 * D: str name | str type description | blob (no data) | attrs | varint
 * data length | u32 CRC-32 of the data | varint payload length; then the
 * payload, the data as one zstd frame.
 */
static int write_dataset(struct gt_gtz_writer *w, const struct gt_object *o,
			 struct gt_diag *d)
{
	const size_t cap = ZSTD_compressBound(o->blob.data_len);
	unsigned char *z = malloc(cap ? cap : 1);
	struct gt_buf b = { 0 };
	size_t zl;
	int rc;

	if (!z)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	zl = ZSTD_compress(z, cap, o->blob.data, o->blob.data_len, 3);
	if (ZSTD_isError(zl)) {
		free(z);
		return gt_diag_set(d, GT_ERR(NOMEM), "%s: %s", o->name, ZSTD_getErrorName(zl));
	}
	gt_buf_str(&b, o->name);
	gt_buf_str(&b, o->type_desc ? o->type_desc : "");
	gtz_put_blob(&b, &o->blob, 0);
	gtz_put_attrs(&b, &o->attrs);
	gt_buf_uv(&b, o->blob.data_len);
	gt_buf_u32(&b, gt_crc32(0, o->blob.data, o->blob.data_len));
	gt_buf_uv(&b, zl);
	rc = put_record_release(w, TAG_DATASET, &b, d);
	if (rc >= 0 && put(w, z, zl) < 0)
		rc = write_error(GT_ERR(IO), d);
	free(z);
	return rc;
}

int gt_gtz_write_object(struct gt_gtz_writer *w, const struct gt_object *o,
			struct gt_diag *d)
{
	if (w->open)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: a tensor is open", o->name);
	GT_TRY(gtz_check_name(o->kind == GT_OBJ_DATASET ? "dataset" : "link", o->name, d));
	GT_TRY(gtz_check_name("link target", o->target ? o->target : "", d));
	if (o->kind == GT_OBJ_DATASET)
		return write_dataset(w, o, d);
	return write_link(w, o, d);
}

int gt_gtz_write_objects(struct gt_gtz_writer *w, struct gt_source *s,
			 int (*keep)(void *arg, const struct gt_object *o), void *arg,
			 struct gt_diag *d)
{
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < gt_source_nobjects(s); i++) {
			const struct gt_object *o = gt_source_object(s, i);
			struct gt_object c = *o;
			int rc;

			if ((o->kind == GT_OBJ_DATASET) != !pass || (keep && !keep(arg, o)))
				continue;
			if (pass) {
				GT_TRY(gt_gtz_write_object(w, o, d));
				continue;
			}
			GT_TRY(gtz_check_name("dataset", o->name, d));
			GT_TRY(gt_source_read_object(s, i, &c.blob, d));
			rc = write_dataset(w, &c, d);
			gt_blob_release(&c.blob);
			GT_TRY(rc);
		}
	}
	return 0;
}

static void put_tensor_header(struct gt_buf *b, uint32_t index,
			      const struct gt_tensor_info *t,
			      const struct gt_gtz_coding *c,
			      const char *opts, uint32_t bv, uint32_t cv)
{
	gt_buf_uv(b, index);
	gt_buf_str(b, t->name);
	gt_buf_u8(b, t->dtype);
	gt_buf_u8(b, t->rank);
	for (unsigned i = 0; i < t->rank; i++)
		gt_buf_uv(b, t->dims[i]);
	gt_buf_uv(b, t->count);
	gt_buf_u8(b, gt_codec_id(c->codec));
	gt_buf_str(b, opts);
	gt_buf_uv(b, c->params.table ? c->params.table_len : 0);
	if (c->params.table)
		gt_buf_put(b, c->params.table, c->params.table_len);
	gt_buf_uv(b, bv);
	gt_buf_uv(b, cv);
	gtz_put_attrs(b, &t->attrs);
}

/* The slots: two sets of nslots, and one more that gt_gtz_write_from's
 * reading thread fills while the two sets are coded and written. */
static size_t nring(const struct gt_gtz_writer *w)
{
	return 2 * w->nslots + 1;
}

static void release_tensor(struct gt_gtz_writer *w)
{
	if (w->inflight)
		gt_pool_wait(w->pool);
	w->inflight = 0;
	for (size_t s = 0; w->slot && s < nring(w); s++) {
		struct wblock *b = &w->slot[s];

		for (size_t i = 0; b->chunks && i < w->nchunks_max; i++) {
			free(b->chunks[i].buf);
			free(b->chunks[i].back);
		}
		free(b->chunks);
		free(b->in);
		for (int a = 0; a < 3; a++) {
			free(b->aux[a]);
			free(b->aux64[a]);
		}
	}
	free(w->slot);
	w->slot = NULL;
	w->nslots = w->nfull = 0;
	w->cur = 0;
	gtz_coder_release(&w->k);
	w->open = 0;
}

/* The buffers of slot @s. */
static int alloc_slot(struct gt_gtz_writer *w, size_t s)
{
	const size_t bv = w->slot_values;
	struct wblock *b = &w->slot[s];
	size_t in_len = bv * w->k.width;

	b->in = gtz_alloc_big(&in_len);
	b->chunks = calloc(w->nchunks_max, sizeof(*b->chunks));
	if (!b->in || !b->chunks)
		return GT_ERR(NOMEM);
	for (size_t i = 0; i < w->nchunks_max; i++) {
		if (!(b->chunks[i].buf = malloc(w->k.chunk_bound)))
			return GT_ERR(NOMEM);
		if (!w->lossless &&
		    !(b->chunks[i].back = malloc((size_t)w->k.chunk_values * w->k.width)))
			return GT_ERR(NOMEM);
	}
	for (int a = 0; a < 3 && w->k.aux; a++)
		if (!(b->aux[a] = malloc(bv * sizeof(float))) ||
		    (w->k.width == 8 && !(b->aux64[a] = malloc(bv * sizeof(double)))))
			return GT_ERR(NOMEM);
	return 0;
}

/* Buffers for two sets of as many blocks as there are workers; the ring's
 * last slot only when gt_gtz_write_from streams (many small tensors would
 * allocate it for nothing). */
static int alloc_slots(struct gt_gtz_writer *w, uint64_t count)
{
	/* a set of one block a thread: the reading thread codes what is left
	 * of the set before when it has filled this one */
	w->nslots = w->threads;
	w->slot = calloc(nring(w), sizeof(*w->slot));
	if (!w->slot)
		return GT_ERR(NOMEM);
	/* no block of a tensor of known size holds more than its values: a
	 * small tensor (a DDP bucket through libgtool) gets small buffers */
	w->slot_values = w->k.block_values;
	if (count != GT_COUNT_UNKNOWN && count < w->slot_values)
		w->slot_values = count ? (size_t)count : 1;
	w->nchunks_max = gtz_nchunks(&w->k, w->slot_values);
	for (size_t s = 0; s < 2 * w->nslots; s++)
		GT_TRY(alloc_slot(w, s));
	return 0;
}

int gt_gtz_begin(struct gt_gtz_writer *w, const struct gt_tensor_info *t,
		 const struct gt_gtz_coding *c, struct gt_diag *d)
{
	const uint32_t bv = (uint32_t)gt_chunk_block(c->block_values);
	uint32_t cv;
	struct gt_buf b = { 0 };
	char opts[512];
	int rc;

	if (w->open || t->dtype != c->params.dtype || !gt_dtype_size(t->dtype))
		return gt_diag_set(d, GT_ERR(INVAL), "%s: bad tensor for the container", t->name);
	GT_TRY(gtz_check_name("dataset", t->name, d));
	if (bv > GT_GTZ_BLOCK_MAX || bv < GT_GTZ_CHUNK_MIN)
		return gt_diag_set(d, GT_ERR(INVAL), "block size %u out of range", bv);
	cv = (uint32_t)gt_chunk_values(c->codec, bv, c->chunk_values);
	w->open = 1; /* release_tensor() cleans up from here on */
	rc = gtz_coder_init(&w->k, c->codec, &c->params, bv, cv, w->threads, d);
	w->lossless = !!(gt_codec_flags(c->codec) & GT_CODEC_LOSSLESS);
	if (rc >= 0)
		rc = alloc_slots(w, t->count);
	if (rc < 0) {
		release_tensor(w);
		return rc == GT_ERR(NOMEM) ? gt_diag_set(d, rc, "out of memory") : rc;
	}
	gt_codec_canon(w->k.ctx[0], opts, sizeof(opts));
	put_tensor_header(&b, w->tensor, t, c, opts, bv, cv);
	rc = put_record_release(w, TAG_TENSOR, &b, d);
	if (rc < 0) {
		release_tensor(w);
		return rc;
	}
	w->count = t->count;
	w->seen = w->blocks = w->raw_blocks = 0;
	return 0;
}

static const struct gt_codec_aux *slot_aux(const struct wblock *b, size_t first,
					   struct gt_codec_aux *a)
{
	if (!b->have[0])
		return NULL;
	a->param = b->aux[0] + first;
	a->state[0] = b->have[1] ? b->aux[1] + first : NULL;
	a->state[1] = b->have[2] ? b->aux[2] + first : NULL;
	for (int k = 0; k < 3; k++) {
		const double *v = b->have64[k] ? b->aux64[k] + first : NULL;

		*(k ? &a->state64[k - 1] : &a->param64) = v;
	}
	return a;
}

static void code_chunk(struct gt_gtz_writer *w, struct wblock *b, size_t i,
		       struct gt_codec_ctx *ctx)
{
	const size_t first = i * w->k.chunk_values;
	const size_t n = gtz_chunk_values(&w->k, b->n, i);
	const unsigned char *src = b->in + first * w->k.width;
	struct chunk_out *out = &b->chunks[i];
	struct gt_codec_aux a;

	gt_codec_seek(ctx, w->tensor, b->first + first);
	out->rc = gt_codec_encode_aux(ctx, src, n, slot_aux(b, first, &a), out->buf,
				      w->k.chunk_bound, &out->len);
	/* the CRC is of what a reader will decode: for a lossy codec, decode it */
	if (out->rc >= 0 && !w->lossless) {
		out->rc = gt_codec_decode(ctx, out->buf, out->len, out->back, n);
		src = out->back;
	}
	out->crc = gt_crc32(0, src, n * w->k.width);
}

/* The block's table, loaded into the context that will code it. */
static int begin_block(struct wblock *b, struct gt_codec_ctx *ctx)
{
	struct gt_codec_aux a;
	const int rc = gt_codec_block_begin_aux(ctx, b->in, b->n, slot_aux(b, 0, &a), b->meta,
						sizeof(b->meta), &b->meta_len);

	return rc < 0 ? rc : gt_codec_block_load(ctx, b->meta, b->meta_len);
}

/* After the chunks: the CRC of the block and whether it is stored raw. */
static void finish_block(struct gt_gtz_writer *w, struct wblock *b)
{
	const size_t nch = gtz_nchunks(&w->k, b->n), raw_len = b->n * w->k.width;

	b->total = 0;
	b->crc = 0;
	for (size_t i = 0; i < nch && b->rc >= 0; i++) {
		b->rc = b->chunks[i].rc;
		b->total += b->chunks[i].len;
		b->crc = i ? (uint32_t)crc32_combine(b->crc, b->chunks[i].crc,
						      (z_off_t)(gtz_chunk_values(&w->k, b->n, i) *
								w->k.width))
			   : b->chunks[i].crc;
	}
	/* a block that would grow is stored raw, chunk for chunk */
	b->stored = b->total + b->meta_len >= raw_len;
	if (b->stored) {
		b->total = raw_len;
		b->meta_len = 0;
		if (!w->lossless)
			b->crc = gt_crc32(0, b->in, raw_len);
	}
}

/* One whole block on one worker. */
static void block_task(void *arg, size_t s, unsigned worker)
{
	struct gt_gtz_writer *w = arg;
	struct wblock *b = &w->job[s];
	struct gt_codec_ctx *ctx = w->k.ctx[worker];

	b->rc = begin_block(b, ctx);
	for (size_t i = 0; i < gtz_nchunks(&w->k, b->n) && b->rc >= 0; i++)
		code_chunk(w, b, i, ctx);
	if (b->rc >= 0)
		finish_block(w, b);
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
 * The block header of GComp's Figure 7, then one header per chunk (all
 * integers varints but dtype, codec and the CRC):
 *   tensor | block | first value | compressed bits | original bits |
 *   u8 dtype | u8 codec | chunks | u32 CRC-32 of the decoded bytes |
 *   meta length | meta | chunks x (byte offset | length in bits | values)
 */
static int write_block(struct gt_gtz_writer *w, struct wblock *b, struct gt_diag *d)
{
	const size_t nch = gtz_nchunks(&w->k, b->n);
	const uint64_t rec_off = w->off;
	struct gt_buf h = { 0 };
	size_t off = 0;
	int rc;

	if (b->rc < 0)
		return gt_diag_set(d, b->rc, "block %llu: %s", (unsigned long long)w->blocks,
				   gt_strerror(b->rc));
	gt_buf_uv(&h, w->tensor);
	gt_buf_uv(&h, w->blocks);
	gt_buf_uv(&h, b->first);
	gt_buf_uv(&h, (uint64_t)b->total * 8);
	gt_buf_uv(&h, (uint64_t)b->n * w->k.width * 8);
	gt_buf_u8(&h, w->k.dtype);
	gt_buf_u8(&h, gt_codec_id(b->stored ? gt_codec_find("raw") : w->k.codec));
	gt_buf_uv(&h, nch);
	gt_buf_u32(&h, b->crc);
	gt_buf_uv(&h, b->meta_len);
	gt_buf_put(&h, b->meta, b->meta_len);
	for (size_t i = 0; i < nch; i++) {
		const size_t nv = gtz_chunk_values(&w->k, b->n, i);
		const size_t len = b->stored ? nv * w->k.width : b->chunks[i].len;

		gt_buf_uv(&h, off);
		gt_buf_uv(&h, (uint64_t)len * 8);
		gt_buf_uv(&h, nv);
		off += len;
	}
	rc = put_record_release(w, TAG_BLOCK, &h, d);
	if (rc < 0)
		return rc;
	if (b->stored)
		rc = put(w, b->in, b->total);
	for (size_t i = 0; i < nch && !b->stored && rc >= 0; i++)
		rc = put(w, b->chunks[i].buf, b->chunks[i].len);
	if (rc >= 0)
		rc = add_index(w, b->first, rec_off);
	if (rc < 0)
		return write_error(rc, d);
	w->blocks++;
	w->raw_blocks += (uint64_t)b->stored;
	return 0;
}

/* Wait for the set being coded and write its blocks, in order. */
static int finish_inflight(struct gt_gtz_writer *w, struct gt_diag *d)
{
	const size_t n = w->inflight;
	int rc = 0;

	if (!n)
		return 0;
	gt_pool_wait(w->pool);
	w->inflight = 0;
	for (size_t s = 0; s < n; s++) {
		if (rc >= 0)
			rc = write_block(w, &w->job[s], d);
		w->job[s].n = 0;
	}
	return rc;
}

/*
 * Hand the first @nblocks of the current set to the workers (each codes
 * whole blocks, so a block's bytes depend on its values alone) and go on
 * filling the other set; the set before is written out first.
 */
static int launch(struct gt_gtz_writer *w, size_t nblocks, struct gt_diag *d)
{
	GT_TRY(finish_inflight(w, d));
	if (!nblocks)
		return 0;
	w->job = &w->slot[w->cur * w->nslots];
	gt_pool_start(w->pool, nblocks, block_task, w);
	w->inflight = nblocks;
	w->cur ^= 1;
	w->nfull = 0;
	return 0;
}

static void copy_aux(struct wblock *b, const struct gt_codec_aux *aux, size_t from,
		     size_t at, size_t n)
{
	const float *src[3] = { aux->param, aux->state[0], aux->state[1] };
	const double *src64[3] = { aux->param64, aux->state64[0], aux->state64[1] };

	for (int a = 0; a < 3; a++) {
		b->have[a] = src[a] != NULL;
		if (src[a])
			memcpy(b->aux[a] + at, src[a] + from, n * sizeof(float));
		b->have64[a] = src64[a] && b->aux64[a];
		if (b->have64[a])
			memcpy(b->aux64[a] + at, src64[a] + from, n * sizeof(double));
	}
}

/* @take values are in block @b from b->n on: count them, launch full sets. */
static int advance(struct gt_gtz_writer *w, struct wblock *b, size_t take,
		   struct gt_diag *d)
{
	if (!b->n)
		b->first = w->seen;
	b->n += take;
	w->seen += take;
	if (b->n == w->k.block_values && ++w->nfull == w->nslots)
		return launch(w, w->nslots, d);
	return 0;
}

int gt_gtz_write_aux(struct gt_gtz_writer *w, const void *src,
		     const struct gt_codec_aux *aux, size_t n, struct gt_diag *d)
{
	const unsigned char *p = src;
	size_t done = 0;

	if (!w->open)
		return GT_ERR(INVAL);
	if (w->count != GT_COUNT_UNKNOWN && n > w->count - w->seen)
		return gt_diag_set(d, GT_ERR(INVAL), "more values than the tensor holds");
	if (w->k.aux && (!aux || !aux->param))
		return gt_diag_set(d, GT_ERR(INVAL), "codec %s needs the optimizer context",
				   gt_codec_name(w->k.codec));
	while (done < n) {
		struct wblock *b = &w->slot[w->cur * w->nslots + w->nfull];
		const size_t take = n - done < w->k.block_values - b->n
				    ? n - done : w->k.block_values - b->n;

		memcpy(b->in + b->n * w->k.width, p + done * w->k.width, take * w->k.width);
		if (w->k.aux)
			copy_aux(b, aux, done, b->n, take);
		done += take;
		GT_TRY(advance(w, b, take, d));
	}
	return 0;
}

void *gt_gtz_write_space(struct gt_gtz_writer *w, size_t *n_ret)
{
	const struct wblock *b = &w->slot[w->cur * w->nslots + w->nfull];
	size_t n = w->k.block_values - b->n;

	if (w->count != GT_COUNT_UNKNOWN && n > w->count - w->seen)
		n = (size_t)(w->count - w->seen);
	*n_ret = w->open && !w->k.aux ? n : 0;
	return b->in + b->n * w->k.width;
}

int gt_gtz_write_done(struct gt_gtz_writer *w, size_t n, struct gt_diag *d)
{
	struct wblock *b = &w->slot[w->cur * w->nslots + w->nfull];
	size_t room;

	gt_gtz_write_space(w, &room);
	if (n > room)
		return gt_diag_set(d, GT_ERR(INVAL), "more values than the space given");
	return n ? advance(w, b, n, d) : 0;
}

/*
 * gt_gtz_write_from: one thread reads the source block by block into the
 * free slots of a ring, the coding threads (-T) code the blocks read, and
 * one more thread writes the coded blocks out in order.  The reading and
 * the writing thread do no coding: with one coding thread too, reading,
 * coding and writing overlap, and the slots are the only buffers.  A
 * block's bytes depend on its values alone, so the output is the same for
 * every thread count.
 */
struct stream {
	struct gt_gtz_writer *w;
	int (*fill)(void *arg, void *dst, size_t cap, size_t *got_ret);
	void *arg;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t ring;
	uint64_t next_seq, next_code, next_write; /* blocks read, taken, written */
	unsigned char coded[2 * GT_GTZ_THREADS_MAX + 1];
	int eof, rc;
	struct gt_diag d;
};

/* The reading thread's step: fill the next free slot (without the lock:
 * no other thread uses it); the lock is held around. */
static void read_block(struct stream *j)
{
	struct gt_gtz_writer *w = j->w;
	const size_t slot = (size_t)(j->next_seq % j->ring);
	struct wblock *b = &w->slot[slot];
	size_t cap = w->k.block_values, got = 0;
	int rc = 0;

	while (j->next_seq - j->next_write == j->ring && j->rc >= 0)
		pthread_cond_wait(&j->cv, &j->mu);
	if (j->rc < 0) {
		j->eof = 1;
		return;
	}
	if (w->count != GT_COUNT_UNKNOWN && cap > w->count - w->seen)
		cap = (size_t)(w->count - w->seen);
	pthread_mutex_unlock(&j->mu);
	if (cap)
		rc = j->fill(j->arg, b->in, cap, &got);
	pthread_mutex_lock(&j->mu);
	if (rc < 0 && j->rc >= 0)
		j->rc = GT_ERR(IO); /* the fill function said why */
	if (!got || rc < 0) {
		j->eof = 1;
	} else {
		b->n = got;
		b->first = w->seen;
		w->seen += got;
		j->next_seq++;
	}
	pthread_cond_broadcast(&j->cv);
}

static void *read_main(void *arg)
{
	struct stream *j = arg;

	pthread_mutex_lock(&j->mu);
	while (!j->eof)
		read_block(j);
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

/* A coding thread: code the blocks read, any order. */
static void code_task(void *arg, size_t t, unsigned worker)
{
	struct stream *j = arg;
	struct gt_codec_ctx *ctx = j->w->k.ctx[worker];

	(void)t;
	pthread_mutex_lock(&j->mu);
	for (;;) {
		struct wblock *b;
		size_t slot;

		while (j->next_code == j->next_seq && !j->eof && j->rc >= 0)
			pthread_cond_wait(&j->cv, &j->mu);
		if (j->rc < 0 || j->next_code == j->next_seq)
			break;
		slot = (size_t)(j->next_code++ % j->ring);
		b = &j->w->slot[slot];
		pthread_mutex_unlock(&j->mu);
		b->rc = begin_block(b, ctx);
		for (size_t i = 0; i < gtz_nchunks(&j->w->k, b->n) && b->rc >= 0; i++)
			code_chunk(j->w, b, i, ctx);
		if (b->rc >= 0)
			finish_block(j->w, b);
		pthread_mutex_lock(&j->mu);
		j->coded[slot] = 1;
		pthread_cond_broadcast(&j->cv);
	}
	pthread_mutex_unlock(&j->mu);
}

/* The writing thread: the coded blocks in order (without the lock: the
 * write may wait on a pipe). */
static void *write_main(void *arg)
{
	struct stream *j = arg;

	pthread_mutex_lock(&j->mu);
	for (;;) {
		const size_t slot = (size_t)(j->next_write % j->ring);
		struct gt_diag d = { "" };
		int rc;

		while (j->rc >= 0 && !(j->next_write < j->next_seq && j->coded[slot]) &&
		       !(j->eof && j->next_write == j->next_seq))
			pthread_cond_wait(&j->cv, &j->mu);
		if (j->rc < 0 || j->next_write == j->next_seq)
			break;
		pthread_mutex_unlock(&j->mu);
		rc = write_block(j->w, &j->w->slot[slot], &d);
		pthread_mutex_lock(&j->mu);
		if (rc < 0 && j->rc >= 0) {
			j->rc = rc;
			j->d = d;
		}
		j->w->slot[slot].n = 0;
		j->coded[slot] = 0;
		j->next_write++;
		pthread_cond_broadcast(&j->cv);
	}
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

/* One block or less: nothing to overlap, so no thread is started (a
 * trace of many small tensors would start two a tensor). */
static void run_inline(struct stream *j)
{
	pthread_mutex_lock(&j->mu);
	read_block(j);
	if (!j->eof)
		read_block(j); /* nothing is left: the end */
	pthread_mutex_unlock(&j->mu);
	code_task(j, 0, 0);
	write_main(j);
}

/* Start the reading and the writing thread, code on the pool's threads
 * (the caller's among them), join. */
static void run_stream(struct stream *j)
{
	pthread_t rt, wt;
	const int have_r = !pthread_create(&rt, NULL, read_main, j);
	const int have_w = have_r && !pthread_create(&wt, NULL, write_main, j);

	if (!have_w) {
		pthread_mutex_lock(&j->mu);
		j->rc = gt_diag_set(&j->d, GT_ERR(NOMEM), "cannot start a thread");
		j->eof = 1;
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mu);
	}
	gt_pool_run(j->w->pool, j->w->threads, code_task, j);
	if (have_r)
		pthread_join(rt, NULL);
	if (have_w)
		pthread_join(wt, NULL);
}

int gt_gtz_write_from(struct gt_gtz_writer *w,
		      int (*fill)(void *arg, void *dst, size_t cap, size_t *got_ret),
		      void *arg, struct gt_diag *d)
{
	struct stream j;
	int rc;

	if (!w->open || w->k.aux || w->nfull || w->slot[w->cur * w->nslots].n ||
	    w->nslots > GT_GTZ_THREADS_MAX)
		return gt_diag_set(d, GT_ERR(INVAL), "cannot stream into this tensor");
	GT_TRY(finish_inflight(w, d));
	memset(&j, 0, sizeof(j));
	j.w = w;
	j.fill = fill;
	j.arg = arg;
	j.ring = nring(w);
	pthread_mutex_init(&j.mu, NULL);
	pthread_cond_init(&j.cv, NULL);
	if (w->count != GT_COUNT_UNKNOWN && w->count - w->seen <= w->k.block_values)
		run_inline(&j);
	else if (w->slot[j.ring - 1].in || (rc = alloc_slot(w, j.ring - 1)) >= 0)
		run_stream(&j);
	else
		j.rc = gt_diag_set(&j.d, rc, "out of memory");
	pthread_mutex_destroy(&j.mu);
	pthread_cond_destroy(&j.cv);
	for (size_t s = 0; s < j.ring; s++)
		w->slot[s].n = 0;
	if (j.rc == GT_ERR(IO) && !*j.d.msg)
		return GT_ERR(IO); /* the fill function said why */
	return j.rc < 0 ? gt_diag_set(d, j.rc, "%s", j.d.msg) : 0;
}

int gt_gtz_write(struct gt_gtz_writer *w, const void *src, size_t n,
		 struct gt_diag *d)
{
	return gt_gtz_write_aux(w, src, NULL, n, d);
}

int gt_gtz_needs_aux(const struct gt_gtz_writer *w)
{
	return w->open && w->k.aux;
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
	if (rc >= 0)
		rc = launch(w, w->nfull + (w->slot[w->cur * w->nslots + w->nfull].n ? 1 : 0), d);
	if (rc >= 0)
		rc = finish_inflight(w, d);
	if (rc >= 0) {
		gt_buf_uv(&b, w->tensor);
		gt_buf_uv(&b, w->seen);
		gt_buf_uv(&b, w->blocks);
		rc = put_record_release(w, TAG_END, &b, d);
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
	gt_buf_uv(&b, w->nindex);
	for (size_t i = 0; i < w->nindex; i++) {
		gt_buf_uv(&b, w->index[i].tensor);
		gt_buf_uv(&b, w->index[i].block);
		gt_buf_uv(&b, w->index[i].first);
		gt_buf_uv(&b, w->index[i].offset);
	}
	rc = put_record_release(w, TAG_INDEX, &b, d);
	if (rc >= 0) {
		gt_buf_uv(&b, idx_off);
		gt_buf_uv(&b, w->tensor);
		rc = put_record_release(w, TAG_EOF, &b, d);
	}
	if (rc >= 0 && fflush(w->f))
		rc = write_error(GT_ERR(IO), d);
	if (rc < 0 || w->to_stdout || w->cookie)
		return rc;
	/* no fsync, as zstd and gzip: the rename protects against gtool
	 * failing, not against the machine losing power */
	if (fclose(w->f) && rc >= 0)
		rc = write_error(GT_ERR(IO), d);
	w->f = NULL;
	return rc < 0 ? rc : gt_atomic_commit(&w->out, d);
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

const char *gt_gtz_writer_tmp_path(const struct gt_gtz_writer *w)
{
	return w && !w->to_stdout ? gt_atomic_tmp_path(&w->out) : NULL;
}

uint64_t gt_gtz_writer_bytes(const struct gt_gtz_writer *w)
{
	return w->off;
}

uint64_t gt_gtz_writer_raw_blocks(const struct gt_gtz_writer *w)
{
	return w->raw_blocks;
}

/* ---- writing through callbacks or to a descriptor ------------------------ */

struct wcookie {
	struct gt_gtz_io io;
	int fd;
};

static ssize_t cookie_write(void *arg, const char *p, size_t n)
{
	struct wcookie *c = arg;
	size_t done = 0;

	if (c->io.write) {
		if (c->io.write(c->io.arg, p, n) < 0) {
			errno = EIO;
			return -1;
		}
		return (ssize_t)n;
	}
	while (done < n) {
		const ssize_t k = write(c->fd, p + done, n - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)k;
	}
	return (ssize_t)n;
}

static int cookie_close(void *arg)
{
	free(arg);
	return 0;
}

static int writer_open_cookie(const struct gt_gtz_io *io, int fd, unsigned threads,
			      struct gt_gtz_writer **w_ret, struct gt_diag *d)
{
	const cookie_io_functions_t fns = { .write = cookie_write, .close = cookie_close };
	struct gt_gtz_writer *w = calloc(1, sizeof(*w));
	struct wcookie *c = calloc(1, sizeof(*c));

	*w_ret = NULL;
	if (!w || !c) {
		free(w);
		free(c);
		return GT_ERR(NOMEM);
	}
	if (io)
		c->io = *io;
	c->fd = fd;
	w->f = fopencookie(c, "wb", fns);
	if (!w->f) {
		free(c);
		free(w);
		return GT_ERR(NOMEM);
	}
	w->cookie = 1;
	return writer_start(w, 0, threads, w_ret, d);
}

int gt_gtz_writer_open_io(const struct gt_gtz_io *io, unsigned threads,
			  struct gt_gtz_writer **w_ret, struct gt_diag *d)
{
	*w_ret = NULL;
	if (!io || !io->write)
		return gt_diag_set(d, GT_ERR(INVAL), "no write function");
	return writer_open_cookie(io, -1, threads, w_ret, d);
}

int gt_gtz_writer_open_fd(int fd, unsigned threads, struct gt_gtz_writer **w_ret,
			  struct gt_diag *d)
{
	*w_ret = NULL;
	if (fd < 0)
		return gt_diag_set(d, GT_ERR(INVAL), "bad file descriptor %d", fd);
	return writer_open_cookie(NULL, fd, threads, w_ret, d);
}
