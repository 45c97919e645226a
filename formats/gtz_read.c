/* gtz_read.c - the .gtz reader: checks everything, decodes blocks in parallel */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "../lib/gt_pool.h"
#include "gtz_impl.h"
#include "gtz_read.h"
#include "source_impl.h"
#include "../lib/banned.h"

static int grow(unsigned char **p, size_t *cap_ret, size_t need)
{
	size_t cap = *cap_ret > SIZE_MAX / 2 ? need : 2 * *cap_ret;
	unsigned char *q;

	if (need <= *cap_ret)
		return 0;
	if (cap < need)
		cap = need;
	if (cap >= GTZ_HUGE) {
		q = gtz_alloc_big(&cap);
		if (!q)
			return GT_ERR(NOMEM);
		if (*cap_ret)
			memcpy(q, *p, *cap_ret);
		free(*p);
	} else {
		q = realloc(*p, cap);
		if (!q)
			return GT_ERR(NOMEM);
		gtz_prefault(q + *cap_ret, cap - *cap_ret);
	}
	*p = q;
	*cap_ret = cap;
	return 0;
}

/* Read exactly @n bytes; TRUNCATED at a clean or early end, IO on error. */
static int read_exact(FILE *f, void *dst, size_t n)
{
	if (n && fread(dst, 1, n, f) != n)
		return ferror(f) ? GT_ERR(IO) : GT_ERR(TRUNCATED);
	return 0;
}

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
	if (memcmp(head, gt_gtz_magic, 4))
		return gt_diag_set(d, GT_ERR(CORRUPT), "not a .gtz file");
	if (rc < 0)
		return gt_diag_set(d, rc, rc == GT_ERR(TRUNCATED) ? "truncated file header"
				   : "read error");
	crc = (uint32_t)head[12] | (uint32_t)head[13] << 8 |
	      (uint32_t)head[14] << 16 | (uint32_t)head[15] << 24;
	if (crc != gt_crc32(0, head, 12))
		return gt_diag_set(d, GT_ERR(CORRUPT), "file header: CRC mismatch");
	if (head[4] != GT_GTZ_VERSION_MAJOR || head[5])
		return gt_diag_set(d, GT_ERR(UNSUPPORTED),
				   "format version %u.%u is newer than this gtool reads (%d.x)",
				   head[4] | head[5] << 8, head[6] | head[7] << 8,
				   GT_GTZ_VERSION_MAJOR);
	/* a later minor version may code blocks this one cannot (1.2: the
	 * zero structure of huffexp): refuse it here, not at its first block */
	if ((unsigned)(head[6] | head[7] << 8) > GT_GTZ_VERSION_MINOR)
		return gt_diag_set(d, GT_ERR(UNSUPPORTED),
				   "format version %u.%u is newer than this gtool reads (%d.%d)",
				   head[4] | head[5] << 8, head[6] | head[7] << 8,
				   GT_GTZ_VERSION_MAJOR, GT_GTZ_VERSION_MINOR);
	if (head[8] | head[9] | head[10] | head[11])
		return gt_diag_set(d, GT_ERR(UNSUPPORTED), "unknown header flags %02x%02x%02x%02x",
				   head[11], head[10], head[9], head[8]);
	r = calloc(1, sizeof(*r));
	if (!r)
		return GT_ERR(NOMEM);
	r->f = f;
	r->off = 16;
	r->threads = threads ? threads : 1;
	r->slot = calloc(gtz_reader_slots(r), sizeof(*r->slot));
	rc = r->slot ? gt_pool_new(r->threads, &r->pool) : GT_ERR(NOMEM);
	if (rc < 0) {
		free(r->slot);
		free(r);
		return rc;
	}
	*r_ret = r;
	return 0;
}

void gtz_reader_close_tensor(struct gt_gtz_reader *r)
{
	gt_tensor_info_release(&r->t.info);
	free(r->t.opts);
	free(r->t.table);
	memset(&r->t, 0, sizeof(r->t));
	gtz_coder_release(&r->k);
	r->open = 0;
}

static void clear_group(struct gt_gtz_reader *r)
{
	free(r->group.name);
	gt_attrs_release(&r->group.attrs);
	memset(&r->group, 0, sizeof(r->group));
}

void gt_gtz_reader_free(struct gt_gtz_reader *r)
{
	if (!r)
		return;
	gtz_reader_close_tensor(r);
	clear_group(r);
	gt_object_release(&r->obj);
	gt_pool_free(r->pool);
	for (size_t s = 0; s < gtz_reader_slots(r); s++) {
		free(r->slot[s].meta);
		free(r->slot[s].chunks);
		free(r->slot[s].payload);
		free(r->slot[s].out);
	}
	free(r->slot);
	free(r->body);
	free(r->offsets);
	if (r->owned)
		fclose(r->owned);
	free(r);
}

/* A record's varint length, one byte at a time, into @head at *@hl. */
static int read_len(struct gt_gtz_reader *r, unsigned char *head, size_t *hl,
		    uint64_t *len_ret)
{
	uint64_t len = 0;

	for (unsigned shift = 0; shift < 35; shift += 7) {
		const int c = fgetc(r->f);

		if (c == EOF)
			return ferror(r->f) ? GT_ERR(IO) : GT_ERR(TRUNCATED);
		head[(*hl)++] = (unsigned char)c;
		len |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*len_ret = len;
			return 0;
		}
	}
	return GT_ERR(CORRUPT);
}

/* One record: its tag and its CRC-checked body into r->body. */
int gtz_read_record(struct gt_gtz_reader *r, unsigned *tag, size_t *len_ret,
		    struct gt_diag *d)
{
	unsigned char head[8], tail[4];
	size_t hl = 0;
	uint64_t len = 0;
	uint32_t crc;
	int c, rc;

	r->rec_off = r->off;
	c = fgetc(r->f);
	if (c == EOF)
		return gt_diag_set(d, ferror(r->f) ? GT_ERR(IO) : GT_ERR(TRUNCATED),
				   ferror(r->f) ? "read error" :
				   "truncated: the file ends before its index");
	head[hl++] = (unsigned char)c;
	rc = read_len(r, head, &hl, &len);
	if (rc >= 0 && len > REC_MAX)
		rc = GT_ERR(CORRUPT);
	if (rc >= 0)
		rc = grow(&r->body, &r->body_cap, len ? (size_t)len : 1);
	if (rc >= 0)
		rc = read_exact(r->f, r->body, (size_t)len);
	if (rc >= 0)
		rc = read_exact(r->f, tail, 4);
	if (rc < 0)
		return gt_diag_set(d, rc == GT_ERR(TRUNCATED) ? rc : GT_ERR(CORRUPT),
				   "offset %llu: %s record", (unsigned long long)r->off,
				   rc == GT_ERR(TRUNCATED) ? "truncated" : "bad");
	crc = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
	      (uint32_t)tail[3] << 24;
	if (crc != gt_crc32(gt_crc32(0, head, hl), r->body, (size_t)len))
		return gt_diag_set(d, GT_ERR(CORRUPT), "offset %llu: record header CRC mismatch",
				   (unsigned long long)r->off);
	r->off += hl + len + 4;
	*tag = (unsigned)c;
	*len_ret = (size_t)len;
	r->last_tag = (unsigned)c;
	return 0;
}

static int parse_group(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	int rc;

	clear_group(r);
	r->group.name = gt_cur_str(&c);
	rc = c.err ? c.err : gtz_get_attrs(&c, &r->group.attrs);
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

	if (!t->rank && !t->count) /* a null dataspace: no values */
		return 0;
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
	uint64_t table_len, bv, cv;

	if (gt_cur_uv(c) != r->tensors && !c->err)
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
		t->info.dims[i] = gt_cur_uv(c);
	t->info.count = gt_cur_uv(c);
	*codec_id = gt_cur_u8(c);
	t->opts = gt_cur_str(c);
	table_len = gt_cur_uv(c);
	table = gt_cur_bytes(c, table_len > REC_MAX ? (size_t)-1 : (size_t)table_len);
	if (c->err)
		return c->err;
	if (table_len) {
		t->table = malloc((size_t)table_len);
		if (!t->table)
			return GT_ERR(NOMEM);
		memcpy(t->table, table, (size_t)table_len);
		t->table_len = (size_t)table_len;
	}
	bv = gt_cur_uv(c);
	cv = gt_cur_uv(c);
	if (c->err || bv > GT_GTZ_BLOCK_MAX || cv < GT_GTZ_CHUNK_MIN || cv > bv)
		return GT_ERR(CORRUPT);
	t->block_values = (uint32_t)bv;
	t->chunk_values = (uint32_t)cv;
	return gtz_get_attrs(c, &t->info.attrs);
}

int gtz_parse_tensor(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	struct gt_gtz_tensor *t = &r->t;
	struct gt_codec_params p = { 0 };
	struct gt_diag cd = { "" };
	unsigned codec_id = 0;
	int rc;

	rc = parse_tensor_fields(r, &c, &codec_id);
	if (rc >= 0 && (c.p != c.end || check_shape(&t->info) < 0))
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
	rc = gtz_coder_init(&r->k, t->codec, &p, t->block_values, t->chunk_values,
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

static int parse_chunks(struct gt_gtz_reader *r, struct gt_cur *c, struct rblock *b)
{
	uint64_t off = 0, bits = 0;

	for (size_t i = 0; i < b->nchunks; i++) {
		struct chunk_in *ch = &b->chunks[i];
		const uint64_t want = gtz_chunk_values(&r->k, (size_t)b->values, i);

		ch->off = gt_cur_uv(c);
		ch->bits = gt_cur_uv(c);
		ch->values = gt_cur_uv(c);
		if (c->err)
			return c->err;
		/* contiguous, the expected value count, no larger than a worst case */
		if (ch->off != off || ch->values != want ||
		    ch->bits > (uint64_t)r->k.chunk_bound * 8)
			return GT_ERR(CORRUPT);
		off += (ch->bits + 7) / 8;
		bits += ch->bits;
	}
	if (bits != b->bits || c->p != c->end)
		return GT_ERR(CORRUPT);
	b->payload_len = (size_t)off;
	return 0;
}

static int parse_block(struct gt_gtz_reader *r, size_t len, struct rblock *b)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	const uint64_t tensor = gt_cur_uv(&c), block = gt_cur_uv(&c);
	const uint64_t width_bits = 8ull * r->k.width;
	const unsigned char *meta;
	uint64_t orig_bits, nchunks, meta_len;
	unsigned dtype;

	b->first = gt_cur_uv(&c);
	b->bits = gt_cur_uv(&c);
	orig_bits = gt_cur_uv(&c);
	dtype = gt_cur_u8(&c);
	b->codec = gt_cur_u8(&c);
	nchunks = gt_cur_uv(&c);
	b->crc = gt_cur_u32(&c);
	meta_len = gt_cur_uv(&c);
	meta = gt_cur_bytes(&c, meta_len > GT_CODEC_META_MAX ? (size_t)-1 : (size_t)meta_len);
	if (c.err)
		return c.err;
	b->values = orig_bits / width_bits;
	if (tensor != r->tensors - 1 || block != r->blocks || b->first != r->seen ||
	    dtype != r->t.info.dtype || orig_bits % width_bits ||
	    !b->values || b->values > r->t.block_values ||
	    (r->t.info.count != GT_COUNT_UNKNOWN && b->values > r->t.info.count - r->seen) ||
	    nchunks != gtz_nchunks(&r->k, (size_t)b->values))
		return GT_ERR(CORRUPT);
	b->raw = b->codec != gt_codec_id(r->t.codec);
	if (b->raw && (b->codec != gt_codec_id(gt_codec_find("raw")) || meta_len))
		return GT_ERR(CORRUPT);
	b->nchunks = (size_t)nchunks;
	b->meta_len = (size_t)meta_len;
	if (grow(&b->meta, &b->meta_cap, b->meta_len + 1) < 0)
		return GT_ERR(NOMEM);
	if (b->nchunks > b->chunks_cap) {
		struct chunk_in *p = realloc(b->chunks, b->nchunks * sizeof(*p));

		if (!p)
			return GT_ERR(NOMEM);
		b->chunks = p;
		b->chunks_cap = b->nchunks;
	}
	if (b->meta_len)
		memcpy(b->meta, meta, b->meta_len);
	return parse_chunks(r, &c, b);
}

/*
 * Read the payload, growing the buffer only as bytes arrive, so a header
 * that claims a huge block in a small file fails on the short read before
 * anything large is allocated.
 */
static int read_payload(struct gt_gtz_reader *r, struct rblock *b)
{
	const size_t step = 1u << 20;
	size_t done = 0;

	while (done < b->payload_len) {
		const size_t take = b->payload_len - done < step ? b->payload_len - done : step;

		GT_TRY(grow(&b->payload, &b->payload_cap, done + take));
		GT_TRY(read_exact(r->f, b->payload + done, take));
		done += take;
	}
	return 0;
}

#define BLOCK_ERR(rc, ...) gt_diag_set(d, (rc), "%s: block %llu: " __VA_ARGS__)

int gtz_read_block(struct gt_gtz_reader *r, size_t len, struct rblock *b,
		   struct gt_diag *d)
{
	const char *name = r->t.info.name;
	const unsigned long long bno = (unsigned long long)r->blocks;
	int rc = parse_block(r, len, b);

	if (rc < 0)
		return BLOCK_ERR(rc == GT_ERR(NOMEM) ? rc : GT_ERR(CORRUPT), "bad block header",
				 name, bno);
	b->rec_off = r->rec_off;
	b->bytes = r->off - r->rec_off + b->payload_len;
	if (r->scan)
		rc = fseeko(r->f, (off_t)b->payload_len, SEEK_CUR) ? GT_ERR(IO) : 0;
	else
		rc = read_payload(r, b);
	if (rc < 0)
		return BLOCK_ERR(rc, "%s", name, bno, rc == GT_ERR(TRUNCATED) ? "truncated"
				 : gt_strerror(rc));
	r->off += b->payload_len;
	r->seen += b->values;
	r->blocks++;
	return 0;
}

static void decode_chunk(struct gt_gtz_reader *r, struct rblock *b, size_t i,
			 unsigned worker)
{
	struct chunk_in *ch = &b->chunks[i];
	struct gt_codec_ctx *ctx = b->raw ? r->k.raw[worker] : r->k.ctx[worker];

	unsigned char *out = b->out + i * (size_t)r->k.chunk_values * r->k.width;

	ch->rc = gt_codec_decode(ctx, b->payload + ch->off, (size_t)((ch->bits + 7) / 8),
				 out, (size_t)ch->values);
	/* each worker checksums what it decoded; check_block combines them */
	ch->crc = ch->rc < 0 ? 0 : gt_crc32(0, out, (size_t)ch->values * r->k.width);
}

struct chunk_job {
	struct gt_gtz_reader *r;
	struct rblock *b;
};

static void chunk_task(void *arg, size_t i, unsigned worker)
{
	const struct chunk_job *j = arg;

	decode_chunk(j->r, j->b, i, worker);
}

/* A decoded block's verdict: the first failing chunk, else its CRC. */
static int check_block(struct gt_gtz_reader *r, struct rblock *b, uint64_t bno,
		       struct gt_diag *d)
{
	const char *name = r->t.info.name;
	uint32_t crc;

	if (b->rc < 0)
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: block %llu: bad codec table",
				   name, (unsigned long long)bno);
	for (size_t i = 0; i < b->nchunks; i++)
		if (b->chunks[i].rc < 0)
			return gt_diag_set(d, GT_ERR(CORRUPT), "%s: block %llu: chunk %zu: %s",
					   name, (unsigned long long)bno, i,
					   gt_strerror(b->chunks[i].rc));
	crc = b->chunks[0].crc;
	for (size_t i = 1; i < b->nchunks; i++)
		crc = (uint32_t)crc32_combine(crc, b->chunks[i].crc,
					      (z_off_t)(b->chunks[i].values * r->k.width));
	if (crc != b->crc)
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: block %llu: CRC mismatch",
				   name, (unsigned long long)bno);
	return 0;
}

static int prepare_out(struct gt_gtz_reader *r, struct rblock *b)
{
	return grow(&b->out, &b->out_cap, (size_t)b->values * r->k.width);
}

int gtz_decode_block(struct gt_gtz_reader *r, struct rblock *b, struct gt_diag *d)
{
	struct chunk_job j = { r, b };

	b->rc = prepare_out(r, b);
	if (b->rc == GT_ERR(NOMEM))
		return gt_diag_set(d, b->rc, "out of memory");
	for (unsigned i = 0; i < r->k.nctx && !b->raw && b->rc >= 0; i++)
		b->rc = gt_codec_block_load(r->k.ctx[i], b->meta, b->meta_len);
	if (b->rc >= 0)
		gt_pool_run(r->pool, b->nchunks, chunk_task, &j);
	return check_block(r, b, r->blocks - 1, d);
}

static int add_offset(struct gt_gtz_reader *r, uint64_t off)
{
	if (r->noffsets == r->offsets_cap) {
		const size_t cap = r->offsets_cap ? 2 * r->offsets_cap : 64;
		uint64_t *p = realloc(r->offsets, cap * sizeof(*p));

		if (!p)
			return GT_ERR(NOMEM);
		r->offsets = p;
		r->offsets_cap = cap;
	}
	r->offsets[r->noffsets++] = off;
	return 0;
}

/* A block record just read: its payload, decoded with every worker on its
 * chunks (or skipped, when listing). */
static int read_one_block(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct rblock *b = &r->slot[0];

	if (add_offset(r, r->rec_off) < 0)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	GT_TRY(gtz_read_block(r, len, b, d));
	return r->scan ? 0 : gtz_decode_block(r, b, d);
}

static int parse_end(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	const uint64_t tensor = gt_cur_uv(&c), count = gt_cur_uv(&c);
	const uint64_t blocks = gt_cur_uv(&c);
	struct gt_tensor_info *t = &r->t.info;

	if (c.err || c.p != c.end || tensor != r->tensors - 1 || blocks != r->blocks)
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: bad end record", t->name);
	if (count != r->seen || (t->count != GT_COUNT_UNKNOWN && count != t->count))
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: %llu values where %llu were expected",
				   t->name, (unsigned long long)r->seen,
				   (unsigned long long)(t->count == GT_COUNT_UNKNOWN ? count
							: t->count));
	if (t->count == GT_COUNT_UNKNOWN) {
		t->count = count;
		t->dims[0] = count;
	}
	r->open = 0;
	return 0;
}

/* The index must list exactly the blocks read; the trailer points at it. */
static int parse_index(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	const uint64_t idx_off = r->rec_off;
	const uint64_t n = gt_cur_uv(&c);
	unsigned tag;

	r->index_off = idx_off;
	if (c.err || n != r->noffsets)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad index");
	for (uint64_t i = 0; i < n; i++) {
		(void)gt_cur_uv(&c);
		(void)gt_cur_uv(&c);
		(void)gt_cur_uv(&c);
		if (gt_cur_uv(&c) != r->offsets[i] || c.err)
			return gt_diag_set(d, GT_ERR(CORRUPT), "index entry %llu is wrong",
					   (unsigned long long)i);
	}
	if (c.p != c.end)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad index");
	GT_TRY(gtz_read_record(r, &tag, &len, d));
	c.p = r->body;
	c.end = r->body + len;
	if (tag != TAG_EOF || gt_cur_uv(&c) != idx_off || gt_cur_uv(&c) != r->tensors ||
	    c.err || c.p != c.end)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad trailer");
	if (fgetc(r->f) != EOF)
		return gt_diag_set(d, GT_ERR(CORRUPT), "data after the trailer");
	return 0;
}

/* ---- format 1.1: links and whole datasets ------------------------------ */

static int parse_link(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	struct gt_object *o = &r->obj;
	unsigned kind;

	gt_object_release(o);
	o->name = gt_cur_str(&c);
	kind = gt_cur_u8(&c);
	o->target = gt_cur_str(&c);
	o->file = gt_cur_str(&c);
	if (c.err || c.p != c.end || kind < GT_OBJ_HARD || kind > GT_OBJ_EXTERNAL ||
	    !*o->name || !*o->target || (kind == GT_OBJ_EXTERNAL) != !!*o->file)
		return gt_diag_set(d, GT_ERR(CORRUPT), "offset %llu: bad link record",
				   (unsigned long long)r->rec_off);
	o->kind = (enum gt_obj_kind)kind;
	return 0;
}

/* The payload of a D record: read in pieces (a claimed length is not
 * trusted with an allocation), then one zstd frame of exactly @raw bytes. */
static int read_dataset_payload(struct gt_gtz_reader *r, uint64_t zlen, uint64_t raw,
				uint32_t crc)
{
	struct gt_blob *b = &r->obj.blob;
	unsigned char *z = NULL;
	size_t have = 0, cap = 0, got;
	int rc = 0;

	/* zstd expands a byte to at most a few tens of thousands */
	if (raw / 65536 > zlen + 64 || raw >= SIZE_MAX / 2)
		return GT_ERR(CORRUPT);
	while (rc >= 0 && have < zlen) {
		const size_t step = zlen - have < (1u << 20) ? (size_t)(zlen - have) : 1u << 20;

		rc = grow(&z, &cap, have + step);
		if (rc >= 0)
			rc = read_exact(r->f, z + have, step);
		have += step;
	}
	b->data = rc >= 0 ? malloc(raw ? (size_t)raw : 1) : NULL;
	if (rc >= 0 && !b->data)
		rc = GT_ERR(NOMEM);
	if (rc >= 0) {
		got = ZSTD_decompress(b->data, (size_t)raw, z, (size_t)zlen);
		if (ZSTD_isError(got) || got != raw || gt_crc32(0, b->data, got) != crc)
			rc = GT_ERR(CORRUPT);
		b->data_len = (size_t)raw;
	}
	free(z);
	r->off += have;
	return rc;
}

int gtz_parse_dataset(struct gt_gtz_reader *r, size_t len, struct gt_diag *d)
{
	struct gt_cur c = { r->body, r->body + len, 0 };
	struct gt_object *o = &r->obj;
	uint64_t raw, zlen;
	uint32_t crc;
	int rc;

	gt_object_release(o);
	o->kind = GT_OBJ_DATASET;
	o->name = gt_cur_str(&c);
	o->target = gt_cur_str(&c); /* the type description, kept here */
	o->type_desc = o->target;
	rc = c.err ? c.err : gtz_get_blob(&c, &o->blob, 0);
	if (rc >= 0)
		rc = gtz_get_attrs(&c, &o->attrs);
	raw = gt_cur_uv(&c);
	crc = gt_cur_u32(&c);
	zlen = gt_cur_uv(&c);
	if (rc < 0 || c.err || c.p != c.end || !*o->name)
		return gt_diag_set(d, GT_ERR(CORRUPT), "offset %llu: bad dataset record",
				   (unsigned long long)r->rec_off);
	r->obj_payload = zlen;
	if (r->scan) {
		if (fseeko(r->f, (off_t)zlen, SEEK_CUR))
			return gt_diag_set(d, GT_ERR(IO), "cannot seek");
		r->off += zlen;
		return 0;
	}
	rc = read_dataset_payload(r, zlen, raw, crc);
	if (rc < 0)
		return gt_diag_set(d, rc == GT_ERR(NOMEM) || rc == GT_ERR(IO) ? rc : GT_ERR(CORRUPT),
				   "%s: %s", o->name, rc == GT_ERR(TRUNCATED) ? "truncated"
				   : rc == GT_ERR(NOMEM) ? "out of memory" : "bad data");
	return 0;
}

static int dispatch(struct gt_gtz_reader *r, unsigned tag, size_t len,
		    enum gt_gtz_event *ev, struct gt_diag *d)
{
	if (tag == TAG_BLOCK && r->open) {
		*ev = GT_GTZ_DATA;
		return read_one_block(r, len, d);
	}
	if (tag == TAG_END && r->open) {
		*ev = GT_GTZ_TENSOR_END;
		return parse_end(r, len, d);
	}
	if (r->open)
		return gt_diag_set(d, GT_ERR(CORRUPT), "%s: block %llu: missing",
				   r->t.info.name, (unsigned long long)r->blocks);
	if (tag == TAG_GROUP) {
		*ev = GT_GTZ_GROUP;
		return parse_group(r, len, d);
	}
	if (tag == TAG_TENSOR) {
		*ev = GT_GTZ_TENSOR;
		gtz_reader_close_tensor(r);
		return gtz_parse_tensor(r, len, d);
	}
	if (tag == TAG_INDEX) {
		*ev = GT_GTZ_EOF;
		r->done = 1;
		return parse_index(r, len, d);
	}
	*ev = GT_GTZ_OBJECT;
	if (tag == TAG_LINK)
		return parse_link(r, len, d);
	if (tag == TAG_DATASET)
		return gtz_parse_dataset(r, len, d);
	if (tag >= 'A' && tag <= 'Z')
		return gt_diag_set(d, GT_ERR(UNSUPPORTED), "offset %llu: unknown record "
				   "'%c': the file needs a newer gtool (this one reads "
				   "format %d.%d)", (unsigned long long)r->rec_off, tag,
				   GT_GTZ_VERSION_MAJOR, GT_GTZ_VERSION_MINOR);
	return gt_diag_set(d, GT_ERR(CORRUPT), "offset %llu: unexpected record",
			   (unsigned long long)r->rec_off);
}

int gt_gtz_next(struct gt_gtz_reader *r, enum gt_gtz_event *ev_ret,
		struct gt_diag *d)
{
	unsigned tag;
	size_t len;

	*ev_ret = GT_GTZ_EOF;
	if (r->done)
		return 0;
	GT_TRY(gtz_read_record(r, &tag, &len, d));
	return dispatch(r, tag, len, ev_ret, d);
}

const struct gt_group_info *gt_gtz_group(const struct gt_gtz_reader *r)
{
	return &r->group;
}

const struct gt_gtz_tensor *gt_gtz_tensor(const struct gt_gtz_reader *r)
{
	return &r->t;
}

const struct gt_object *gt_gtz_object(const struct gt_gtz_reader *r)
{
	return &r->obj;
}

void gt_gtz_data(const struct gt_gtz_reader *r, const void **data_ret,
		 size_t *n_ret)
{
	const struct rblock *b = &r->slot[0];

	*data_ret = b->out;
	*n_ret = (size_t)b->values;
}

void gt_gtz_reader_skip_payloads(struct gt_gtz_reader *r, int skip)
{
	r->scan = skip;
}

void gt_gtz_last_record(const struct gt_gtz_reader *r, struct gt_gtz_record *rec)
{
	const struct rblock *b = &r->slot[0];

	memset(rec, 0, sizeof(*rec));
	rec->offset = r->rec_off;
	rec->bytes = r->off - r->rec_off;
	rec->tag = (char)r->last_tag;
	rec->index_offset = r->index_off;
	if (r->last_tag == TAG_DATASET) {
		rec->bytes -= r->obj_payload;
		rec->payload_offset = rec->offset + rec->bytes;
		rec->payload_bytes = r->obj_payload;
	}
	if (r->last_tag == TAG_BLOCK) {
		rec->offset = b->rec_off;
		rec->bytes = b->bytes - b->payload_len;
		rec->payload_offset = b->rec_off + rec->bytes;
		rec->payload_bytes = b->payload_len;
	}
}

/* ---- the whole stream: a reading thread, the coding threads, a writing thread
 *
 * One thread reads the records in order, a block into the next free slot
 * of the ring; the coding threads (-T) decode the blocks read; one more
 * thread checks the decoded blocks and hands them to the caller in order.
 * The reading and the writing thread do no coding: with one coding thread
 * too, reading, decoding and writing overlap, and the slots are the only
 * buffers (no byte is copied to go from one thread to the next).
 */

struct pull {
	struct gt_gtz_reader *r;
	const struct gt_gtz_callbacks *cb;
	void *arg;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t ring;
	uint64_t next_seq;    /* blocks read */
	uint64_t next_dec;    /* blocks a coding thread took */
	uint64_t next_out;    /* blocks handed to the caller */
	uint64_t *bno;        /* per slot: its block number */
	unsigned char *done;  /* per slot: decoded */
	int end;              /* nothing more is read: the end, or an error */
	int rc;
	struct gt_diag d;     /* the first error's */
	struct gt_diag rd, wd; /* the reading and the writing thread's */
};

/* The first error stops every thread; the lock is held. */
static void fail(struct pull *p, int rc, const struct gt_diag *d)
{
	if (p->rc >= 0) {
		p->rc = rc < 0 ? rc : GT_ERR(CORRUPT);
		p->d = *d;
	}
	p->end = 1;
	pthread_cond_broadcast(&p->cv);
}

/* Any record but a block: after every block before it is out (so the
 * coders are idle when a tensor header sets them up anew); lock held. */
static int other_record(struct pull *p, unsigned tag, size_t len)
{
	struct gt_gtz_reader *r = p->r;
	enum gt_gtz_event ev = GT_GTZ_DATA;

	while (p->next_out != p->next_seq && p->rc >= 0)
		pthread_cond_wait(&p->cv, &p->mu);
	if (p->rc < 0)
		return p->rc;
	GT_TRY(dispatch(r, tag, len, &ev, &p->rd));
	switch (ev) {
	case GT_GTZ_GROUP: return p->cb->group(p->arg, &r->group, &p->rd);
	case GT_GTZ_TENSOR: return p->cb->tensor(p->arg, &r->t, &p->rd);
	case GT_GTZ_TENSOR_END: return p->cb->end(p->arg, &r->t, &p->rd);
	case GT_GTZ_EOF:
		p->end = 1;
		pthread_cond_broadcast(&p->cv);
		return p->cb->eof(p->arg, &p->rd);
	case GT_GTZ_OBJECT:
		return p->cb->object ? p->cb->object(p->arg, &r->obj, &p->rd) : 0;
	case GT_GTZ_DATA: break;
	}
	return 0;
}

/* The reading thread's step: the next record, a block into the next free
 * slot (read without the lock: the slot is no other thread's). */
static int read_next(struct pull *p)
{
	struct gt_gtz_reader *r = p->r;
	const size_t slot = (size_t)(p->next_seq % p->ring);
	uint64_t bno;
	unsigned tag;
	size_t len;
	int rc;

	while (p->next_seq - p->next_out == p->ring && p->rc >= 0)
		pthread_cond_wait(&p->cv, &p->mu);
	if (p->rc < 0)
		return p->rc;
	pthread_mutex_unlock(&p->mu);
	rc = gtz_read_record(r, &tag, &len, &p->rd);
	if (rc < 0 || tag != TAG_BLOCK || !r->open) {
		pthread_mutex_lock(&p->mu);
		return rc < 0 ? rc : other_record(p, tag, len);
	}
	bno = r->blocks;
	rc = add_offset(r, r->rec_off);
	if (rc < 0)
		rc = gt_diag_set(&p->rd, rc, "out of memory");
	else
		rc = gtz_read_block(r, len, &r->slot[slot], &p->rd);
	pthread_mutex_lock(&p->mu);
	if (rc >= 0) {
		p->bno[slot] = bno;
		p->next_seq++;
		pthread_cond_broadcast(&p->cv);
	}
	return rc;
}

static void *reader_main(void *arg)
{
	struct pull *p = arg;

	pthread_mutex_lock(&p->mu);
	while (!p->end) {
		const int rc = read_next(p);

		if (rc < 0)
			fail(p, rc, &p->rd);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* A coding thread: decode the blocks read, any order; the writing thread
 * puts them back in order. */
static void decode_task(void *arg, size_t t, unsigned worker)
{
	struct pull *p = arg;
	struct gt_gtz_reader *r = p->r;

	(void)t;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct rblock *b;
		size_t slot;

		while (p->next_dec == p->next_seq && !p->end && p->rc >= 0)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->rc < 0 || p->next_dec == p->next_seq)
			break;
		slot = (size_t)(p->next_dec++ % p->ring);
		b = &r->slot[slot];
		pthread_mutex_unlock(&p->mu);
		b->rc = prepare_out(r, b);
		if (b->rc >= 0 && !b->raw)
			b->rc = gt_codec_block_load(r->k.ctx[worker], b->meta, b->meta_len);
		for (size_t i = 0; i < b->nchunks && b->rc >= 0; i++)
			decode_chunk(r, b, i, worker);
		pthread_mutex_lock(&p->mu);
		p->done[slot] = 1;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
}

/* The writing thread: each decoded block in order, checked, to the caller
 * (without the lock: the caller's write may wait on a pipe). */
static void *writer_main(void *arg)
{
	struct pull *p = arg;
	struct gt_gtz_reader *r = p->r;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		const size_t slot = (size_t)(p->next_out % p->ring);
		const struct rblock *b = &r->slot[slot];
		int rc;

		while (p->rc >= 0 && !(p->next_out < p->next_seq && p->done[slot]) &&
		       !(p->end && p->next_out == p->next_seq))
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->rc < 0 || p->next_out == p->next_seq)
			break;
		pthread_mutex_unlock(&p->mu);
		rc = check_block(r, &r->slot[slot], p->bno[slot], &p->wd);
		if (rc >= 0)
			rc = p->cb->data(p->arg, b->out, (size_t)b->values, &p->wd);
		pthread_mutex_lock(&p->mu);
		if (rc < 0)
			fail(p, rc, &p->wd);
		p->done[slot] = 0;
		p->next_out++;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Start the reading and the writing thread, decode on the pool's threads
 * (the caller's among them), join. */
static int run_pull(struct pull *p)
{
	pthread_t rt, wt;
	const int have_r = !pthread_create(&rt, NULL, reader_main, p);
	const int have_w = have_r && !pthread_create(&wt, NULL, writer_main, p);

	if (!have_w) {
		struct gt_diag d;

		gt_diag_set(&d, GT_ERR(NOMEM), "cannot start a thread");
		pthread_mutex_lock(&p->mu);
		fail(p, GT_ERR(NOMEM), &d);
		pthread_mutex_unlock(&p->mu);
	}
	gt_pool_run(p->r->pool, p->r->threads, decode_task, p);
	if (have_r)
		pthread_join(rt, NULL);
	if (have_w)
		pthread_join(wt, NULL);
	return p->rc;
}

int gt_gtz_read_all(struct gt_gtz_reader *r, const struct gt_gtz_callbacks *cb,
		    void *arg, struct gt_diag *d)
{
	struct pull p;

	if (r->off != 16 || r->scan)
		return gt_diag_set(d, GT_ERR(INVAL), "the reader has started already");
	memset(&p, 0, sizeof(p));
	p.r = r;
	p.cb = cb;
	p.arg = arg;
	p.ring = gtz_reader_slots(r);
	p.bno = calloc(p.ring, sizeof(*p.bno));
	p.done = calloc(p.ring, 1);
	if (!p.bno || !p.done) {
		p.rc = gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	} else {
		pthread_mutex_init(&p.mu, NULL);
		pthread_cond_init(&p.cv, NULL);
		run_pull(&p);
		pthread_mutex_destroy(&p.mu);
		pthread_cond_destroy(&p.cv);
		if (p.rc < 0)
			*d = p.d;
	}
	free(p.bno);
	free(p.done);
	return p.rc;
}

/* ---- reading through callbacks, from a descriptor or from memory -------- */

struct rcookie {
	struct gt_gtz_io io;
	int fd;
	const unsigned char *p;
	size_t len, pos;
};

static ssize_t cookie_read(void *arg, char *dst, size_t n)
{
	struct rcookie *c = arg;
	size_t got = 0;
	ssize_t k;

	if (c->io.read) {
		if (c->io.read(c->io.arg, dst, n, &got) < 0 || got > n) {
			errno = EIO;
			return -1;
		}
		return (ssize_t)got;
	}
	if (c->p || c->fd < 0) {
		got = c->len - c->pos < n ? c->len - c->pos : n;
		if (got)
			memcpy(dst, c->p + c->pos, got);
		c->pos += got;
		return (ssize_t)got;
	}
	do
		k = read(c->fd, dst, n);
	while (k < 0 && errno == EINTR);
	return k;
}

static int rcookie_close(void *arg)
{
	free(arg);
	return 0;
}

static int reader_open_cookie(const struct rcookie *src, unsigned threads,
			      struct gt_gtz_reader **r_ret, struct gt_diag *d)
{
	const cookie_io_functions_t fns = { .read = cookie_read, .close = rcookie_close };
	struct rcookie *c = malloc(sizeof(*c));
	FILE *f;
	int rc;

	*r_ret = NULL;
	if (!c)
		return GT_ERR(NOMEM);
	*c = *src;
	f = fopencookie(c, "rb", fns);
	if (!f) {
		free(c);
		return GT_ERR(NOMEM);
	}
	rc = gt_gtz_reader_open(f, threads, r_ret, d);
	if (rc < 0) {
		fclose(f);
		return rc;
	}
	(*r_ret)->owned = f;
	return 0;
}

int gt_gtz_reader_open_io(const struct gt_gtz_io *io, unsigned threads,
			  struct gt_gtz_reader **r_ret, struct gt_diag *d)
{
	struct rcookie c = { .fd = -1 };

	*r_ret = NULL;
	if (!io || !io->read)
		return gt_diag_set(d, GT_ERR(INVAL), "no read function");
	c.io = *io;
	return reader_open_cookie(&c, threads, r_ret, d);
}

int gt_gtz_reader_open_fd(int fd, unsigned threads, struct gt_gtz_reader **r_ret,
			  struct gt_diag *d)
{
	const struct rcookie c = { .fd = fd };

	*r_ret = NULL;
	if (fd < 0)
		return gt_diag_set(d, GT_ERR(INVAL), "bad file descriptor %d", fd);
	return reader_open_cookie(&c, threads, r_ret, d);
}

int gt_gtz_reader_open_mem(const void *p, size_t len, unsigned threads,
			   struct gt_gtz_reader **r_ret, struct gt_diag *d)
{
	const struct rcookie c = { .fd = -1, .p = p, .len = len };

	*r_ret = NULL;
	if (!p && len)
		return gt_diag_set(d, GT_ERR(INVAL), "no buffer");
	return reader_open_cookie(&c, threads, r_ret, d);
}
