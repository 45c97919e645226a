/* gtz_common.c - attributes and codec contexts, shared by the .gtz writer and reader */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gtz_impl.h"
#include "source_impl.h"
#include "../lib/banned.h"

void gtz_prefault(void *p, size_t len)
{
	const uintptr_t page = 4096;
	const uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
	const uintptr_t e = ((uintptr_t)p + len) & ~(page - 1);
	const uintptr_t ha = ((uintptr_t)p + GTZ_HUGE - 1) & ~(GTZ_HUGE - 1);
	const uintptr_t he = ((uintptr_t)p + len) & ~(GTZ_HUGE - 1);

#ifdef MADV_HUGEPAGE
	if (he > ha)
		(void)madvise((void *)ha, he - ha, MADV_HUGEPAGE);
#endif
	if (len >= (1u << 20) && e > a)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}

void *gtz_alloc_big(size_t *n)
{
	void *p;

	if (*n < GTZ_HUGE || *n > SIZE_MAX - GTZ_HUGE)
		return malloc(*n ? *n : 1);
	*n = (*n + GTZ_HUGE - 1) & ~(GTZ_HUGE - 1);
	p = aligned_alloc(GTZ_HUGE, *n);
	if (p)
		gtz_prefault(p, *n);
	return p;
}

const unsigned char gt_gtz_magic[4] = { 0x89, 'G', 'T', 'Z' };

/*
 * blob: varint type length (at most BLOB_TYPE_MAX) | the H5Tencode bytes |
 * u8 space (0 scalar, 1 simple, 2 null) | u8 rank | rank varint dims |
 * u8 vlen_str | then, @with_data, varint data length | data
 */
void gtz_put_blob(struct gt_buf *b, const struct gt_blob *x, int with_data)
{
	gt_buf_uv(b, x->type_len);
	gt_buf_put(b, x->type, x->type_len);
	gt_buf_u8(b, x->space);
	gt_buf_u8(b, x->space == GT_SPACE_SIMPLE ? x->rank : 0);
	for (unsigned k = 0; x->space == GT_SPACE_SIMPLE && k < x->rank; k++)
		gt_buf_uv(b, x->dims[k]);
	gt_buf_u8(b, !!x->vlen_str);
	if (!with_data)
		return;
	gt_buf_uv(b, x->data_len);
	gt_buf_put(b, x->data, x->data_len);
}

static int take_bytes(struct gt_cur *c, uint64_t n, unsigned char **ret)
{
	const unsigned char *p = gt_cur_bytes(c, n > REC_MAX ? (size_t)-1 : (size_t)n);

	if (!p)
		return c->err ? c->err : GT_ERR(TRUNCATED);
	*ret = malloc(n ? (size_t)n : 1);
	if (!*ret)
		return GT_ERR(NOMEM);
	memcpy(*ret, p, (size_t)n);
	return 0;
}

int gtz_get_blob(struct gt_cur *c, struct gt_blob *x, int with_data)
{
	const uint64_t tl = gt_cur_uv(c);
	uint64_t dl;

	memset(x, 0, sizeof(*x));
	if (c->err || tl > BLOB_TYPE_MAX || !tl)
		return GT_ERR(CORRUPT);
	GT_TRY(take_bytes(c, tl, &x->type));
	x->type_len = (size_t)tl;
	x->space = (enum gt_space)gt_cur_u8(c);
	x->rank = gt_cur_u8(c);
	if (c->err || x->space > GT_SPACE_NULL || x->rank > GT_MAX_RANK ||
	    (x->space == GT_SPACE_SIMPLE) != (x->rank > 0))
		return GT_ERR(CORRUPT);
	for (unsigned k = 0; k < x->rank; k++)
		x->dims[k] = gt_cur_uv(c);
	x->vlen_str = gt_cur_u8(c);
	if (c->err || x->vlen_str > 1)
		return GT_ERR(CORRUPT);
	if (!with_data)
		return 0;
	dl = gt_cur_uv(c);
	if (c->err)
		return c->err;
	GT_TRY(take_bytes(c, dl, &x->data));
	x->data_len = (size_t)dl;
	return 0;
}

/* A view's n values (integers zigzag varints, floats 8-byte IEEE
 * patterns, strings bytes) */
static void put_view(struct gt_buf *b, const struct gt_attr *at)
{
	gt_buf_u8(b, at->type);
	gt_buf_uv(b, at->type == GT_ATTR_NONE ? 0 : at->n);
	for (size_t k = 0; at->type != GT_ATTR_NONE && k < at->n; k++) {
		uint64_t u;

		switch (at->type) {
		case GT_ATTR_INT:
			u = (uint64_t)at->i[k];
			gt_buf_uv(b, (u << 1) ^ (at->i[k] < 0 ? UINT64_MAX : 0));
			break;
		case GT_ATTR_FLOAT:
			memcpy(&u, &at->f[k], 8);
			gt_buf_u64(b, u);
			break;
		case GT_ATTR_STR: gt_buf_u8(b, (unsigned char)at->s[k]); break;
		case GT_ATTR_NONE: break;
		}
	}
}

/* attrs: varint count; each: str name | u8 type | varint n | values; type
 * 3 (typed, format 1.1) is followed by the view (u8 type, varint n,
 * values) and the blob with its data */
void gtz_put_attrs(struct gt_buf *b, const struct gt_attrs *a)
{
	gt_buf_uv(b, a->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct gt_attr *at = &a->v[i];

		gt_buf_str(b, at->name);
		if (at->raw)
			gt_buf_u8(b, ATTR_TYPED);
		put_view(b, at);
		if (at->raw)
			gtz_put_blob(b, at->raw, 1);
	}
}

static int get_values(struct gt_cur *c, struct gt_attr *at)
{
	if (at->type == GT_ATTR_NONE)
		return at->n ? GT_ERR(CORRUPT) : 0;
	if (at->type == GT_ATTR_STR) {
		const unsigned char *p = gt_cur_bytes(c, at->n);

		if (!p)
			return c->err;
		if (memchr(p, 0, at->n))
			return GT_ERR(CORRUPT);
		at->s = malloc(at->n + 1);
		if (!at->s)
			return GT_ERR(NOMEM);
		memcpy(at->s, p, at->n);
		at->s[at->n] = 0;
		return 0;
	}
	/* at least one byte a value: a count the body cannot hold is corrupt */
	if (at->n > (size_t)(c->end - c->p))
		return GT_ERR(CORRUPT);
	if (at->type == GT_ATTR_INT)
		at->i = malloc(at->n * 8 + 1);
	else
		at->f = malloc(at->n * 8 + 1);
	if (!at->i && !at->f)
		return GT_ERR(NOMEM);
	for (size_t k = 0; k < at->n; k++) {
		if (at->type == GT_ATTR_INT) {
			const uint64_t z = gt_cur_uv(c);

			at->i[k] = (int64_t)((z >> 1) ^ (0 - (z & 1)));
		} else {
			const uint64_t u = gt_cur_u64(c);

			memcpy(&at->f[k], &u, 8);
		}
	}
	return c->err;
}

static int get_attr(struct gt_cur *c, struct gt_attr *at)
{
	unsigned type;
	int typed;
	uint64_t n;

	at->name = gt_cur_str(c);
	type = gt_cur_u8(c);
	typed = type == ATTR_TYPED;
	if (typed)
		type = gt_cur_u8(c);
	n = gt_cur_uv(c);
	if (c->err)
		return c->err;
	if (type > (typed ? GT_ATTR_NONE : GT_ATTR_STR) || n > ATTR_VALUES_MAX)
		return GT_ERR(CORRUPT);
	at->type = (enum gt_attr_type)type;
	at->n = (size_t)n;
	GT_TRY(get_values(c, at));
	if (!typed)
		return 0;
	at->raw = calloc(1, sizeof(*at->raw));
	if (!at->raw)
		return GT_ERR(NOMEM);
	return gtz_get_blob(c, at->raw, 1);
}

int gtz_get_attrs(struct gt_cur *c, struct gt_attrs *a)
{
	const uint64_t n = gt_cur_uv(c);

	if (c->err)
		return c->err;
	/* an attribute takes at least 3 bytes */
	if (n > ATTRS_MAX || n > (size_t)(c->end - c->p) / 3)
		return GT_ERR(CORRUPT);
	a->v = calloc(n ? (size_t)n : 1, sizeof(*a->v));
	if (!a->v)
		return GT_ERR(NOMEM);
	for (size_t i = 0; i < n; i++) {
		const int rc = get_attr(c, &a->v[i]);

		a->n = i + 1;
		if (rc < 0)
			return rc;
	}
	return 0;
}

int gtz_check_name(const char *what, const char *name, struct gt_diag *d)
{
	const size_t n = strlen(name);

	if (n <= 0xffff)
		return 0;
	return gt_diag_set(d, GT_ERR(OVERFLOW), "%s %.48s... is %zu bytes long, over the "
			   "65535 a .gtz name may have", what, name, n);
}

void gtz_coder_release(struct coder *k)
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

int gtz_coder_init(struct coder *k, const struct gt_codec *codec,
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
	k->aux = gt_codec_needs_aux(k->ctx[0]);
	k->chunk_bound = gt_codec_bound(k->ctx[0], chunk_values);
	if (!k->chunk_bound || k->chunk_bound < (size_t)chunk_values * k->width)
		k->chunk_bound = (size_t)chunk_values * k->width;
	return 0;
}
