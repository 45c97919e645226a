/* gtz_source.c - a seekable .gtz file as a gt_source: listed once, decoded per block */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gtz_read.h"
#include "source_impl.h"
#include "../lib/banned.h"

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
	uint64_t *obj_off;     /* per object: its record's offset */
	size_t loaded;         /* tensor whose header the reader holds (+1; 0: none) */
	size_t cached;         /* block of it in slot 0 (+1; 0: none) */
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
	free(g->obj_off);
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

/* One more tensor entry (and its meta) for an object: zeroed. */
static int push_entry(struct gt_source *s, struct gtz_src *g, struct gt_tensor_info **ti,
		      struct src_tensor **st)
{
	void *p = realloc(s->tensors, (s->ntensors + 1) * sizeof(*s->tensors));

	if (!p)
		return GT_ERR(NOMEM);
	s->tensors = p;
	p = realloc(g->t, (s->ntensors + 1) * sizeof(*g->t));
	if (!p)
		return GT_ERR(NOMEM);
	g->t = p;
	*ti = &s->tensors[s->ntensors];
	*st = &g->t[s->ntensors];
	memset(*ti, 0, sizeof(**ti));
	memset(*st, 0, sizeof(**st));
	s->ntensors++;
	return 0;
}

/* A whole dataset is a tensor of no float dtype; a hard link to a tensor
 * is another name for it. */
static int object_tensor(struct gt_source *s, struct gtz_src *g, const struct gt_object *o)
{
	struct gt_tensor_info *ti;
	struct src_tensor *st;
	size_t same;

	if (o->kind == GT_OBJ_HARD && gt_source_find(s, o->target, &same) < 0)
		return 0; /* a group's second name */
	if (o->kind != GT_OBJ_DATASET && o->kind != GT_OBJ_HARD)
		return 0;
	GT_TRY(push_entry(s, g, &ti, &st));
	if (o->kind == GT_OBJ_HARD) {
		*st = g->t[same];
		st->meta.opts = strdup(g->t[same].meta.opts);
		st->blk_off = st->blk_first = NULL;
		st->nblk = 0;
		*ti = s->tensors[same];
		ti->name = strdup(o->name);
		ti->same_as = same + 1;
		memset(&ti->attrs, 0, sizeof(ti->attrs));
		return ti->name && st->meta.opts ? gt_attrs_copy(&ti->attrs, &s->tensors[same].attrs)
						 : GT_ERR(NOMEM);
	}
	ti->name = strdup(o->name);
	ti->type_desc = s->objects[s->nobjects - 1].type_desc;
	ti->rank = o->blob.space == GT_SPACE_SIMPLE ? o->blob.rank : 0;
	ti->count = o->blob.space != GT_SPACE_NULL;
	for (unsigned k = 0; k < ti->rank; k++) {
		ti->dims[k] = o->blob.dims[k];
		ti->count = o->blob.dims[k] && ti->count > UINT64_MAX / o->blob.dims[k]
			  ? UINT64_MAX : ti->count * o->blob.dims[k];
	}
	st->meta.codec = "zstd";
	st->meta.opts = strdup("");
	st->meta.stored_bytes = g->r->off - g->r->rec_off;
	return ti->name && st->meta.opts ? gt_attrs_copy(&ti->attrs, &o->attrs) : GT_ERR(NOMEM);
}

static int add_object(struct gt_source *s, struct gtz_src *g)
{
	const struct gt_object *o = &g->r->obj;
	struct gt_object *c;
	void *p = realloc(s->objects, (s->nobjects + 1) * sizeof(*s->objects));

	if (!p)
		return GT_ERR(NOMEM);
	s->objects = p;
	p = realloc(g->obj_off, (s->nobjects + 1) * sizeof(*g->obj_off));
	if (!p)
		return GT_ERR(NOMEM);
	g->obj_off = p;
	g->obj_off[s->nobjects] = g->r->rec_off;
	c = &s->objects[s->nobjects++];
	memset(c, 0, sizeof(*c));
	c->kind = o->kind;
	c->name = strdup(o->name);
	c->target = o->target ? strdup(o->target) : NULL;
	c->file = o->file ? strdup(o->file) : NULL;
	c->type_desc = o->kind == GT_OBJ_DATASET ? c->target : NULL;
	c->blob = o->blob;
	c->blob.type = NULL;
	c->blob.data = NULL;
	c->blob.type_len = c->blob.data_len = 0;
	if (!c->name || (o->target && !c->target) || (o->file && !c->file) ||
	    gt_attrs_copy(&c->attrs, &o->attrs) < 0)
		return GT_ERR(NOMEM);
	return object_tensor(s, g, o);
}

static int scan_event(struct gt_source *s, struct gtz_src *g, enum gt_gtz_event ev)
{
	struct src_tensor *st = s->ntensors ? &g->t[s->ntensors - 1] : NULL;
	const struct rblock *b = &g->r->slot[0];

	switch (ev) {
	case GT_GTZ_GROUP: return add_group(s, &g->r->group);
	case GT_GTZ_TENSOR: return add_tensor(s, g);
	case GT_GTZ_DATA:
		st->meta.blocks++;
		st->meta.raw_blocks += (uint64_t)b->raw;
		st->meta.stored_bytes += b->bytes;
		return push_block(st, b->rec_off, b->first);
	case GT_GTZ_TENSOR_END:
		s->tensors[s->ntensors - 1].count = g->r->t.info.count;
		s->tensors[s->ntensors - 1].dims[0] = g->r->t.info.dims[0];
		return 0;
	case GT_GTZ_OBJECT: return add_object(s, g);
	case GT_GTZ_EOF: break;
	}
	return 0;
}

static const struct gt_source_ops gtz_ops;
static int gtz_read_object(struct gt_source *s, size_t i, struct gt_blob *b,
			   struct gt_diag *d);

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
	s->read_object = gtz_read_object;
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

/* Seek to @off and read the record there into the reader. */
static int record_at(struct gtz_src *g, uint64_t off, unsigned want, size_t *len,
		     struct gt_diag *d)
{
	unsigned tag;

	if (fseeko(g->f, (off_t)off, SEEK_SET))
		return gt_diag_set(d, GT_ERR(IO), "cannot seek");
	g->r->off = off;
	GT_TRY(gtz_read_record(g->r, &tag, len, d));
	if (tag != want)
		return gt_diag_set(d, GT_ERR(CORRUPT), "offset %llu: unexpected record",
				   (unsigned long long)off);
	return 0;
}

/* Make the reader hold tensor @i's header and block @b's record and payload. */
static int read_block_at(struct gt_source *s, size_t i, size_t b, struct gt_diag *d)
{
	struct gtz_src *g = s->priv;
	struct gt_gtz_reader *r = g->r;
	const struct src_tensor *st = &g->t[i];
	size_t len;

	if (g->loaded != i + 1) {
		g->loaded = g->cached = 0;
		GT_TRY(record_at(g, st->header_off, TAG_TENSOR, &len, d));
		gtz_reader_close_tensor(r);
		r->tensors = (uint32_t)i;
		GT_TRY(gtz_parse_tensor(r, len, d));
		g->loaded = i + 1;
	}
	g->cached = 0;
	GT_TRY(record_at(g, st->blk_off[b], TAG_BLOCK, &len, d));
	r->open = 1;
	r->blocks = b;
	r->seen = st->blk_first[b];
	return gtz_read_block(r, len, &r->slot[0], d);
}

static int load_block(struct gt_source *s, size_t i, size_t b, struct gt_diag *d)
{
	struct gtz_src *g = s->priv;

	if (g->loaded == i + 1 && g->cached == b + 1)
		return 0;
	GT_TRY(read_block_at(s, i, b, d));
	GT_TRY(gtz_decode_block(g->r, &g->r->slot[0], d));
	g->cached = b + 1;
	return 0;
}

static int gtz_read_object(struct gt_source *s, size_t i, struct gt_blob *b,
			   struct gt_diag *d)
{
	struct gtz_src *g = s->priv;
	struct gt_gtz_reader *r = g->r;
	size_t len;

	g->loaded = g->cached = 0;
	GT_TRY(record_at(g, g->obj_off[i], TAG_DATASET, &len, d));
	GT_TRY(gtz_parse_dataset(r, len, d));
	*b = r->obj.blob;
	memset(&r->obj.blob, 0, sizeof(r->obj.blob));
	return 0;
}

static int gtz_src_read(struct gt_source *s, size_t i, uint64_t first, size_t n,
			void *dst, size_t *n_ret, struct gt_diag *d)
{
	struct gtz_src *g = s->priv;
	const size_t at0 = s->tensors[i].same_as ? s->tensors[i].same_as - 1 : i;
	const struct src_tensor *st = &g->t[at0];
	const uint64_t count = s->tensors[i].count;
	const unsigned w = gt_dtype_size(s->tensors[i].dtype);
	unsigned char *out = dst;
	size_t done = 0, b = 0;

	*n_ret = 0;
	i = at0;
	if (first >= count)
		return 0;
	if (n > count - first)
		n = (size_t)(count - first);
	while (done < n) {
		const uint64_t at = first + done;
		const struct rblock *blk = &g->r->slot[0];
		size_t off, take;

		while (b + 1 < st->nblk && st->blk_first[b + 1] <= at)
			b++;
		GT_TRY(load_block(s, i, b, d));
		off = (size_t)(at - st->blk_first[b]);
		take = (size_t)blk->values - off < n - done ? (size_t)blk->values - off : n - done;
		memcpy(out + done * w, blk->out + off * w, take * w);
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

int gt_gtz_source_stats(struct gt_source *s, size_t i, uint64_t *counts,
			struct gt_diag *d)
{
	struct gtz_src *g;

	if (s->kind != GT_KIND_GTZ || i >= s->ntensors)
		return GT_ERR(INVAL);
	g = s->priv;
	for (size_t b = 0; b < g->t[i].nblk; b++) {
		struct rblock *blk = &g->r->slot[0];
		struct gt_codec_ctx *ctx;

		GT_TRY(read_block_at(s, i, b, d));
		if (blk->raw)
			continue;
		ctx = g->r->k.ctx[0];
		if (gt_codec_block_load(ctx, blk->meta, blk->meta_len) < 0)
			return gt_diag_set(d, GT_ERR(CORRUPT), "block %zu: bad codec table", b);
		for (size_t c = 0; c < blk->nchunks; c++)
			if (gt_codec_chunk_stats(ctx, blk->payload + blk->chunks[c].off,
						 (size_t)((blk->chunks[c].bits + 7) / 8),
						 (size_t)blk->chunks[c].values, counts) < 0)
				return gt_diag_set(d, GT_ERR(CORRUPT), "block %zu: chunk %zu: corrupt",
						   b, c);
	}
	return 0;
}
