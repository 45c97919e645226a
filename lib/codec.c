/* codec.c - the codec registry, option parsing and checked wrappers */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_impl.h"
#include "gt_huff.h"
#include "banned.h"

/* Registry order is the order of --list-codecs and `gtool compare`. */
static const struct gt_codec *const registry[] = {
	&gt_codec_raw,
	&gt_codec_zlib,
	&gt_codec_zstd,
	&gt_codec_huffexp,
	&gt_codec_gcomp,
	&gt_codec_tfp,
	&gt_codec_rangeq,
	&gt_codec_fft,
	&gt_codec_topk,
	&gt_codec_randk,
	&gt_codec_dgc,
	&gt_codec_redsync,
	&gt_codec_qsgd,
	&gt_codec_terngrad,
};
#define NCODECS (sizeof(registry) / sizeof(registry[0]))
#define GT_MAX_KV 16

const struct gt_codec *gt_codec_find(const char *name)
{
	for (size_t i = 0; i < NCODECS; i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

const struct gt_codec *gt_codec_by_id(unsigned id)
{
	for (size_t i = 0; i < NCODECS; i++)
		if (registry[i]->id == id)
			return registry[i];
	return NULL;
}

const struct gt_codec *gt_codec_at(size_t i)
{
	return i < NCODECS ? registry[i] : NULL;
}

size_t gt_codec_count(void) { return NCODECS; }
const char *gt_codec_name(const struct gt_codec *c) { return c->name; }
unsigned gt_codec_id(const struct gt_codec *c) { return c->id; }
unsigned gt_codec_flags(const struct gt_codec *c) { return c->flags; }
const char *gt_codec_help(const struct gt_codec *c) { return c->help; }

static const struct gt_codec_base *base_of(const struct gt_codec_ctx *ctx)
{
	return (const struct gt_codec_base *)(const void *)ctx;
}

const struct gt_codec *gt_codec_of(const struct gt_codec_ctx *ctx)
{
	return base_of(ctx)->codec;
}

/* Split "k=v,k=v" into @kv; "" gives no options. */
static int parse_kv(const char *codec, const char *opts, struct gt_kv *kv,
		    size_t *nkv_ret, struct gt_diag *d)
{
	size_t n = 0;
	const char *p = opts ? opts : "";

	while (*p) {
		const char *end = strchr(p, ',');
		const char *eq;
		size_t klen, vlen;

		if (!end)
			end = p + strlen(p);
		eq = memchr(p, '=', (size_t)(end - p));
		if (!eq && n > 0 && end > p) {
			/* a bare value continues the previous key's list:
			 * "levels=0,6,12,18" is levels = "0,6,12,18" */
			const size_t have = strlen(kv[n - 1].val);

			vlen = (size_t)(end - p);
			if (have + 1 + vlen >= sizeof(kv->val))
				return gt_diag_set(d, GT_ERR(INVAL),
						   "codec %s: too many or too long options", codec);
			kv[n - 1].val[have] = ',';
			memcpy(kv[n - 1].val + have + 1, p, vlen);
			kv[n - 1].val[have + 1 + vlen] = 0;
			p = *end ? end + 1 : end;
			continue;
		}
		if (!eq || eq == p)
			return gt_diag_set(d, GT_ERR(INVAL),
					   "codec %s: option '%.*s' is not key=value",
					   codec, (int)(end - p), p);
		klen = (size_t)(eq - p);
		vlen = (size_t)(end - eq - 1);
		if (n == GT_MAX_KV || klen >= sizeof(kv->key) || vlen >= sizeof(kv->val))
			return gt_diag_set(d, GT_ERR(INVAL),
					   "codec %s: too many or too long options", codec);
		memcpy(kv[n].key, p, klen);
		kv[n].key[klen] = 0;
		memcpy(kv[n].val, eq + 1, vlen);
		kv[n].val[vlen] = 0;
		n++;
		p = *end ? end + 1 : end;
	}
	*nkv_ret = n;
	return 0;
}

int gt_codec_new(const struct gt_codec *c, const struct gt_codec_params *p,
		 struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	struct gt_kv kv[GT_MAX_KV];
	struct gt_codec_base *base;
	size_t nkv = 0;
	int rc;

	*ctx_ret = NULL;
	if (!gt_dtype_size(p->dtype))
		return gt_diag_set(d, GT_ERR(TYPE), "codec %s: no dtype", c->name);
	rc = parse_kv(c->name, p->opts, kv, &nkv, d);
	if (rc < 0)
		return rc;
	if (p->table && !(c->flags & GT_CODEC_TABLE))
		return gt_diag_set(d, GT_ERR(INVAL),
				   "codec %s does not use a Huffman table", c->name);
	rc = c->ctx_new(p, kv, nkv, ctx_ret, d);
	if (rc < 0)
		return rc;
	base = (struct gt_codec_base *)(void *)*ctx_ret;
	base->codec = c;
	base->dtype = p->dtype;
	base->isa = gt_isa_best();
	return 0;
}

void gt_codec_set_isa(struct gt_codec_ctx *ctx, enum gt_isa isa)
{
	((struct gt_codec_base *)(void *)ctx)->isa = gt_isa_usable(isa) ? isa : GT_ISA_PORTABLE;
}

void gt_codec_free(struct gt_codec_ctx *ctx)
{
	if (ctx)
		base_of(ctx)->codec->ctx_free(ctx);
}

size_t gt_codec_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	return base_of(ctx)->codec->canon(ctx, buf, cap);
}

size_t gt_codec_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	if (n > SIZE_MAX / 16)
		return 0;
	return base_of(ctx)->codec->bound(ctx, n);
}

int gt_codec_block_begin(struct gt_codec_ctx *ctx, const void *src, size_t n,
			 void *meta, size_t meta_cap, size_t *meta_len_ret)
{
	const struct gt_codec *c = base_of(ctx)->codec;

	*meta_len_ret = 0;
	if (!c->block_begin)
		return 0;
	return c->block_begin(ctx, src, n, meta, meta_cap, meta_len_ret);
}

int gt_codec_block_begin_aux(struct gt_codec_ctx *ctx, const void *src, size_t n,
			     const struct gt_codec_aux *aux, void *meta, size_t meta_cap,
			     size_t *meta_len_ret)
{
	const struct gt_codec *c = base_of(ctx)->codec;

	*meta_len_ret = 0;
	if (!c->block_begin_aux)
		return gt_codec_block_begin(ctx, src, n, meta, meta_cap, meta_len_ret);
	return c->block_begin_aux(ctx, src, n, aux, meta, meta_cap, meta_len_ret);
}

int gt_codec_block_load(struct gt_codec_ctx *ctx, const void *meta,
			size_t meta_len)
{
	const struct gt_codec *c = base_of(ctx)->codec;

	if (!c->block_load)
		return meta_len ? GT_ERR(CORRUPT) : 0;
	return c->block_load(ctx, meta, meta_len);
}

int gt_codec_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		    void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	*dst_len_ret = 0;
	if (n && (!src || !dst))
		return GT_ERR(INVAL);
	return base_of(ctx)->codec->encode(ctx, src, n, dst, dst_cap, dst_len_ret);
}

int gt_codec_encode_aux(struct gt_codec_ctx *ctx, const void *src, size_t n,
			const struct gt_codec_aux *aux, void *dst, size_t dst_cap,
			size_t *dst_len_ret)
{
	const struct gt_codec *c = base_of(ctx)->codec;

	if (!c->encode_aux)
		return gt_codec_encode(ctx, src, n, dst, dst_cap, dst_len_ret);
	*dst_len_ret = 0;
	if (n && (!src || !dst))
		return GT_ERR(INVAL);
	return c->encode_aux(ctx, src, n, aux, dst, dst_cap, dst_len_ret);
}

void gt_codec_seek(struct gt_codec_ctx *ctx, uint64_t stream, uint64_t pos)
{
	const struct gt_codec *c = base_of(ctx)->codec;

	if (c->seek)
		c->seek(ctx, stream, pos);
}

int gt_codec_needs_aux(const struct gt_codec_ctx *ctx)
{
	const struct gt_codec *c = base_of(ctx)->codec;

	return c->needs_aux ? c->needs_aux(ctx) : 0;
}

const char *const *gt_codec_stat_names(const struct gt_codec *c, size_t *n_ret)
{
	size_t n = 0;

	while (c->stat_names && c->stat_names[n] && n < GT_CODEC_STATS_MAX)
		n++;
	*n_ret = n;
	return c->stat_names;
}

int gt_codec_chunk_stats(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
			 size_t n, uint64_t *counts)
{
	const struct gt_codec *c = base_of(ctx)->codec;

	if (!c->chunk_stats)
		return 0;
	if (src_len && !src)
		return GT_ERR(INVAL);
	return c->chunk_stats(ctx, src, src_len, n, counts);
}

int gt_codec_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		    void *dst, size_t n)
{
	if ((n && !dst) || (src_len && !src))
		return GT_ERR(INVAL);
	return base_of(ctx)->codec->decode(ctx, src, src_len, dst, n);
}

int gt_codec_spec_parse(const char *spec, const struct gt_codec **c_ret,
			const char **opts_ret, struct gt_diag *d)
{
	const char *colon = strchr(spec, ':');
	const size_t len = colon ? (size_t)(colon - spec) : strlen(spec);

	for (size_t i = 0; i < NCODECS; i++) {
		if (strlen(registry[i]->name) == len &&
		    !memcmp(registry[i]->name, spec, len)) {
			*c_ret = registry[i];
			*opts_ret = colon ? colon + 1 : "";
			return 0;
		}
	}
	return gt_diag_set(d, GT_ERR(NOTFOUND), "unknown codec '%.*s'", (int)len, spec);
}

int gt_kv_int(const struct gt_kv *kv, const char *codec, long min, long max,
	      long *ret, struct gt_diag *d)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(kv->val, &end, 10);
	if (errno || end == kv->val || *end || v < min || v > max)
		return gt_diag_set(d, GT_ERR(INVAL),
				   "codec %s: invalid %s '%s': expected %ld-%ld",
				   codec, kv->key, kv->val, min, max);
	*ret = v;
	return 0;
}

int gt_kv_double(const struct gt_kv *kv, const char *codec, double min,
		 double max, double *ret, struct gt_diag *d)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(kv->val, &end);
	if (errno || end == kv->val || *end || !(v >= min && v <= max))
		return gt_diag_set(d, GT_ERR(INVAL),
				   "codec %s: invalid %s '%s': expected %g-%g",
				   codec, kv->key, kv->val, min, max);
	*ret = v;
	return 0;
}

int gt_kv_unknown(const struct gt_kv *kv, const char *codec, struct gt_diag *d)
{
	return gt_diag_set(d, GT_ERR(INVAL), "unknown option '%s' for codec %s",
			   kv->key, codec);
}

int gt_kv_huff(const struct gt_kv *kv, const char *codec, unsigned *maxlen,
	       int *method, struct gt_diag *d)
{
	long v;

	if (!strcmp(kv->key, "maxlen")) {
		GT_TRY(gt_kv_int(kv, codec, GT_HUFF_MAXLEN_MIN, GT_HUFF_MAXLEN_MAX, &v, d));
		*maxlen = (unsigned)v;
		return 1;
	}
	if (strcmp(kv->key, "method"))
		return 0;
	*method = gt_huff_method_parse(kv->val);
	if (*method < 0)
		return gt_diag_set(d, GT_ERR(INVAL),
				   "codec %s: invalid method '%s': expected best, gcomp or pm",
				   codec, kv->val);
	return 1;
}
