/* h5z_gtool.c - gtool's codecs as a dynamically loaded HDF5 filter (id 400) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <H5PLextern.h>
#include <hdf5.h>
#include <zlib.h>

#include "../formats/gt_bytes.h"
#include "../lib/gt_codec.h"
#include "../lib/gt_crc.h"
#include "h5z_gtool.h"
#include "../lib/banned.h"

/*
 * The codecs the filter offers and how their options sit in cd_values
 * after GT_H5Z_CD_OPTS: a number (printed as is), a signed number (two's
 * complement in the unsigned), or an index into names starting at 1.
 * 0 leaves the option at the codec's default.  gcomp's modes that need
 * the optimizer's context are refused at set_local: a filter sees the
 * gradient only, never the parameters and optimizer state.
 */
enum opt_kind { OPT_NUM, OPT_SIGNED, OPT_NAME };

struct cd_opt {
	const char *key;
	enum opt_kind kind;
	const char *const *names; /* OPT_NAME: value k is names[k - 1] */
	unsigned nnames;
};

struct cd_codec {
	const char *name;
	struct cd_opt opt[GT_H5Z_OPTS_MAX];
};

static const char *const huff_methods[] = { "best", "gcomp", "pm" };
static const char *const gcomp_modes[] = { "full", "single-quant", "multi-quant",
					   "zero-prune", "exact" };

static const struct cd_codec cd_codecs[] = {
	{ "huffexp", { { "maxlen", OPT_NUM, NULL, 0 }, { "method", OPT_NAME, huff_methods, 3 } } },
	{ "zstd", { { "level", OPT_SIGNED, NULL, 0 } } },
	{ "zlib", { { "level", OPT_NUM, NULL, 0 } } },
	{ "tfp", { { "bits", OPT_NUM, NULL, 0 } } },
	{ "rangeq", { { "bits", OPT_NUM, NULL, 0 }, { "m", OPT_NUM, NULL, 0 } } },
	{ "gcomp", { { "mode", OPT_NAME, gcomp_modes, 5 }, { "margin", OPT_SIGNED, NULL, 0 },
		     { "maxlen", OPT_NUM, NULL, 0 } } },
};

/* What cd_values say, checked. */
struct setup {
	const struct gt_codec *codec;
	enum gt_dtype dtype;      /* GT_DT_NONE: not yet known (before set_local) */
	unsigned chunk;           /* values per HDF5 chunk; 0: not known */
	char opts[160];           /* "key=value,..." for gt_codec_new */
};

static void push(const char *func, int line, const char *msg)
{
	H5Epush2(H5E_DEFAULT, __FILE__, func, (unsigned)line, H5E_ERR_CLS, H5E_PLINE,
		 H5E_CANTFILTER, "gtool filter: %s", msg);
}

#define PUSH(msg) push(__func__, __LINE__, (msg))

static const struct cd_codec *cd_codec_of(const struct gt_codec *c)
{
	for (size_t i = 0; i < sizeof(cd_codecs) / sizeof(cd_codecs[0]); i++)
		if (c && !strcmp(cd_codecs[i].name, gt_codec_name(c)))
			return &cd_codecs[i];
	return NULL;
}

/* Option @o's value @v appended to @s->opts as "key=value". */
static int put_opt(struct setup *s, const struct cd_opt *o, unsigned v, struct gt_diag *d)
{
	const size_t len = strlen(s->opts);
	char val[32];

	if (o->kind == OPT_NAME && v > o->nnames)
		return gt_diag_set(d, GT_ERR(INVAL), "codec %s: %s %u: expected 1-%u",
				   gt_codec_name(s->codec), o->key, v, o->nnames);
	if (o->kind == OPT_NAME)
		snprintf(val, sizeof(val), "%s", o->names[v - 1]);
	else if (o->kind == OPT_SIGNED)
		snprintf(val, sizeof(val), "%d", (int)(int32_t)v);
	else
		snprintf(val, sizeof(val), "%u", v);
	snprintf(s->opts + len, sizeof(s->opts) - len, "%s%s=%s", len ? "," : "", o->key, val);
	return 0;
}

/*
 * parse_cd - cd_values into @s.  No values: huffexp, defaults.  Values a
 * newer filter wrote (layout version, codec id, more options) are refused.
 */
static int parse_cd(size_t n, const unsigned *cd, struct setup *s, struct gt_diag *d)
{
	const struct cd_codec *cc;
	unsigned id = 3;

	memset(s, 0, sizeof(*s));
	if (n > GT_H5Z_CD_VERSION &&
	    (cd[GT_H5Z_CD_VERSION] < 1 || cd[GT_H5Z_CD_VERSION] > GT_H5Z_LAYOUT))
		return gt_diag_set(d, GT_ERR(UNSUPPORTED),
				   "cd_values layout %u is not one this filter reads (1 to %u)",
				   cd[GT_H5Z_CD_VERSION], GT_H5Z_LAYOUT);
	if (n > GT_H5Z_CD_CODEC)
		id = cd[GT_H5Z_CD_CODEC];
	s->codec = gt_codec_by_id(id);
	cc = cd_codec_of(s->codec);
	if (!cc)
		return gt_diag_set(d, GT_ERR(UNSUPPORTED), "codec id %u is not one this filter has%s",
				   id, s->codec ? "" : " (from a newer gtool?)");
	if (n > GT_H5Z_CD_DTYPE) {
		s->dtype = (enum gt_dtype)cd[GT_H5Z_CD_DTYPE];
		if (cd[GT_H5Z_CD_DTYPE] > GT_DT_MAX)
			return gt_diag_set(d, GT_ERR(UNSUPPORTED), "dtype %u is unknown",
					   cd[GT_H5Z_CD_DTYPE]);
	}
	if (n > GT_H5Z_CD_CHUNK)
		s->chunk = cd[GT_H5Z_CD_CHUNK];
	for (size_t i = GT_H5Z_CD_OPTS; i < n; i++) {
		const size_t k = i - GT_H5Z_CD_OPTS;

		if (k >= GT_H5Z_OPTS_MAX || !cc->opt[k].key)
			return gt_diag_set(d, GT_ERR(INVAL), "codec %s takes %zu cd_values, not %zu",
					   cc->name, GT_H5Z_CD_OPTS + k, n);
		if (cd[i])
			GT_TRY(put_opt(s, &cc->opt[k], cd[i], d));
	}
	return 0;
}

/* A codec context for @s, refusing modes that need the optimizer. */
static int make_ctx(const struct setup *s, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	const struct gt_codec_params p = { .dtype = s->dtype, .opts = s->opts };
	int rc = gt_codec_new(s->codec, &p, ctx_ret, d);

	if (rc == GT_ERR(TYPE))
		return gt_diag_set(d, rc, "codec %s cannot code %s values", gt_codec_name(s->codec),
				   gt_dtype_name(s->dtype));
	if (rc < 0)
		return rc;
	if (gt_codec_needs_aux(*ctx_ret)) {
		gt_codec_free(*ctx_ret);
		*ctx_ret = NULL;
		return gt_diag_set(d, GT_ERR(INVAL),
				   "codec %s:%s needs the optimizer's parameters and state, which a "
				   "filter never sees: use mode single-quant or zero-prune",
				   gt_codec_name(s->codec), s->opts[0] ? s->opts : "mode=full");
	}
	return 0;
}

/* ---- the coded chunk ---------------------------------------------------- */

/*
 * An HDF5 chunk is stored as one block of formats/GTZ.md: a varint body
 * length L, the B record's body (tensor 0, block 0, first value 0, ...,
 * the CRC-32 of the decoded bytes, the codec's block metadata, one header
 * per gtool chunk of GT_H5Z_CHUNK_VALUES values), then the payload.
 */
struct block {
	size_t values, nch, meta_len, payload_len;
	uint64_t bits;
	unsigned dtype, codec;
	uint32_t crc;
	const unsigned char *meta, *payload;
	size_t *len;      /* bytes of each gtool chunk */
};

static size_t nchunks(size_t n)
{
	return n / GT_H5Z_CHUNK_VALUES + (n % GT_H5Z_CHUNK_VALUES != 0);
}

static size_t chunk_n(size_t n, size_t i)
{
	const size_t first = i * GT_H5Z_CHUNK_VALUES;

	return n - first < GT_H5Z_CHUNK_VALUES ? n - first : GT_H5Z_CHUNK_VALUES;
}

static void put_header(struct gt_buf *h, const struct block *b, unsigned width)
{
	size_t off = 0;

	gt_buf_uv(h, 0);
	gt_buf_uv(h, 0);
	gt_buf_uv(h, 0);
	gt_buf_uv(h, b->bits);
	gt_buf_uv(h, (uint64_t)b->values * width * 8);
	gt_buf_u8(h, b->dtype);
	gt_buf_u8(h, b->codec);
	gt_buf_uv(h, b->nch);
	gt_buf_u32(h, b->crc);
	gt_buf_uv(h, b->meta_len);
	gt_buf_put(h, b->meta, b->meta_len);
	for (size_t i = 0; i < b->nch; i++) {
		gt_buf_uv(h, off);
		gt_buf_uv(h, (uint64_t)b->len[i] * 8);
		gt_buf_uv(h, chunk_n(b->values, i));
		off += b->len[i];
	}
}

/*
 * Scratch of one encode.  The payload is coded straight into the buffer
 * HDF5 gets back, after room for the header (at most header_room()); the
 * header then goes in front of it: one large allocation a chunk, not
 * three.  The room left is the header's length had every gtool chunk
 * shrunk by a byte (guess_header()): its varints have the lengths of the
 * header to come unless a chunk codes to under 2 KiB, so the payload
 * stays where it was coded, and only otherwise moves.
 */
struct enc {
	struct gt_codec_ctx *ctx;
	unsigned char *out, *payload, *back, meta[GT_CODEC_META_MAX];
	size_t bound, room;
	int lossless;
};

static size_t header_len(const struct block *b, unsigned width);

/* Where the payload goes in e->out: after the header of @b had each
 * gtool chunk coded to a byte less than its values (see struct enc). */
static size_t guess_header(struct block *b, unsigned width)
{
	size_t total = 0;

	for (size_t i = 0; i < b->nch; i++) {
		b->len[i] = chunk_n(b->values, i) * width - 1;
		total += b->len[i];
	}
	b->payload_len = total;
	b->bits = (uint64_t)total * 8;
	return header_len(b, width);
}

/* Code every gtool chunk of @src into e->payload; the CRC of what decodes. */
static int code_chunks(struct enc *e, const unsigned char *src, struct block *b,
		       unsigned width)
{
	size_t off = 0, at;

	GT_TRY(gt_codec_block_begin(e->ctx, src, b->values, e->meta, sizeof(e->meta),
				    &b->meta_len));
	GT_TRY(gt_codec_block_load(e->ctx, e->meta, b->meta_len));
	b->meta = e->meta;
	b->crc = 0;
	at = guess_header(b, width);
	if (at && at <= e->room)
		e->payload = e->out + at;
	for (size_t i = 0; i < b->nch; i++) {
		const size_t n = chunk_n(b->values, i);
		const unsigned char *in = src + i * (size_t)GT_H5Z_CHUNK_VALUES * width;

		gt_codec_seek(e->ctx, 0, i * (uint64_t)GT_H5Z_CHUNK_VALUES);
		GT_TRY(gt_codec_encode(e->ctx, in, n, e->payload + off, e->bound, &b->len[i]));
		/* the CRC is of what a reader will decode: for a lossy codec, decode it */
		if (!e->lossless) {
			GT_TRY(gt_codec_decode(e->ctx, e->payload + off, b->len[i], e->back, n));
			in = e->back;
		}
		b->crc = gt_crc32(b->crc, in, n * width);
		off += b->len[i];
	}
	b->payload_len = off;
	b->bits = (uint64_t)off * 8;
	return 0;
}

/* The header's worst case: fixed fields, the metadata, 3 varints a chunk. */
static size_t header_room(size_t nch)
{
	return 10 + 5 * 10 + 2 + 4 + 10 + GT_CODEC_META_MAX + nch * 30;
}

static int enc_alloc(struct enc *e, const struct block *b, unsigned width)
{
	e->bound = gt_codec_bound(e->ctx, GT_H5Z_CHUNK_VALUES);
	if (e->bound < (size_t)GT_H5Z_CHUNK_VALUES * width)
		e->bound = (size_t)GT_H5Z_CHUNK_VALUES * width;
	e->room = header_room(b->nch);
	if (b->nch > (SIZE_MAX - e->room) / e->bound)
		return GT_ERR(OVERFLOW);
	e->out = H5allocate_memory(e->room + e->bound * b->nch, 0);
	e->payload = e->out ? e->out + e->room : NULL;
	if (!e->lossless)
		e->back = malloc((size_t)GT_H5Z_CHUNK_VALUES * width);
	return e->out && (e->lossless || e->back) ? 0 : GT_ERR(NOMEM);
}

/* The bytes of @b's varint body length and header; 0 when out of memory. */
static size_t header_len(const struct block *b, unsigned width)
{
	struct gt_buf h = { 0 }, l = { 0 };
	size_t len;

	put_header(&h, b, width);
	gt_buf_uv(&l, h.len);
	len = h.err || l.err ? 0 : l.len + h.len;
	gt_buf_release(&h);
	gt_buf_release(&l);
	return len;
}

/* The header in front of the payload at e->payload (or of @raw). */
static int assemble(struct enc *e, const struct block *b, const void *raw, unsigned width,
		    size_t *len_ret)
{
	struct gt_buf h = { 0 }, l = { 0 };
	int rc;

	put_header(&h, b, width);
	gt_buf_uv(&l, h.len);
	rc = h.err ? h.err : l.err;
	if (!rc && l.len + h.len > e->room)
		rc = GT_ERR(OVERFLOW); /* header_room() is wrong: never happens */
	if (!rc) {
		memcpy(e->out, l.p, l.len);
		memcpy(e->out + l.len, h.p, h.len);
		if (raw)
			memcpy(e->out + l.len + h.len, raw, b->payload_len);
		else if (e->out + l.len + h.len != e->payload)
			memmove(e->out + l.len + h.len, e->payload, b->payload_len);
		*len_ret = l.len + h.len + b->payload_len;
	}
	gt_buf_release(&h);
	gt_buf_release(&l);
	return rc;
}

/* A block that would grow is stored raw (codec 0), as in a .gtz file. */
static void store_raw(struct block *b, const unsigned char *src, size_t nbytes,
		      unsigned width)
{
	b->codec = 0;
	b->meta_len = 0;
	b->payload_len = nbytes;
	b->bits = (uint64_t)nbytes * 8;
	b->crc = gt_crc32(0, src, nbytes);
	for (size_t i = 0; i < b->nch; i++)
		b->len[i] = chunk_n(b->values, i) * width;
}

static int encode(const struct setup *s, const unsigned char *src, size_t nbytes,
		  unsigned char **out_ret, size_t *len_ret, struct gt_diag *d)
{
	const unsigned width = gt_dtype_size(s->dtype);
	struct enc e = { 0 };
	struct block b = { 0 };
	int rc;

	if (!width)
		return gt_diag_set(d, GT_ERR(INVAL), "no dtype in cd_values (set_local did not run)");
	if (!nbytes || nbytes % width)
		return gt_diag_set(d, GT_ERR(INVAL), "a chunk of %zu bytes is not a whole number "
				   "of %u-byte values", nbytes, width);
	b.values = nbytes / width;
	b.nch = nchunks(b.values);
	b.dtype = s->dtype;
	b.codec = gt_codec_id(s->codec);
	e.lossless = (gt_codec_flags(s->codec) & GT_CODEC_LOSSLESS) != 0;
	b.len = calloc(b.nch + 1, sizeof(*b.len));
	rc = b.len ? make_ctx(s, &e.ctx, d) : GT_ERR(NOMEM);
	if (rc >= 0)
		rc = enc_alloc(&e, &b, width);
	if (rc >= 0)
		rc = code_chunks(&e, src, &b, width);
	if (rc >= 0 && b.payload_len + b.meta_len >= nbytes)
		store_raw(&b, src, nbytes, width);
	if (rc >= 0)
		rc = assemble(&e, &b, b.codec ? NULL : src, width, len_ret);
	if (rc < 0 && !d->msg[0])
		gt_diag_set(d, rc, "encoding: %s", gt_strerror(rc));
	if (rc >= 0)
		*out_ret = e.out;
	else if (e.out)
		H5free_memory(e.out);
	gt_codec_free(e.ctx);
	free(e.back);
	free(b.len);
	return rc;
}

/* ---- decoding ----------------------------------------------------------- */

static int parse_chunks(struct gt_cur *c, struct block *b, uint64_t max_bits)
{
	uint64_t off = 0, bits = 0;

	for (size_t i = 0; i < b->nch; i++) {
		const uint64_t o = gt_cur_uv(c), nb = gt_cur_uv(c), nv = gt_cur_uv(c);

		if (c->err)
			return c->err;
		if (o != off || nv != chunk_n(b->values, i) || nb > max_bits)
			return GT_ERR(CORRUPT);
		b->len[i] = (size_t)((nb + 7) / 8);
		off += b->len[i];
		bits += nb;
	}
	if (bits != b->bits || c->p != c->end)
		return GT_ERR(CORRUPT);
	b->payload_len = (size_t)off;
	return 0;
}

/* The block's header fields, each checked against cd_values and itself. */
static int parse_fields(struct gt_cur *c, const struct setup *s, struct block *b)
{
	const uint64_t t = gt_cur_uv(c), blk = gt_cur_uv(c), first = gt_cur_uv(c);
	unsigned width;
	uint64_t orig, nch, meta_len;

	b->bits = gt_cur_uv(c);
	orig = gt_cur_uv(c);
	b->dtype = gt_cur_u8(c);
	b->codec = gt_cur_u8(c);
	nch = gt_cur_uv(c);
	b->crc = gt_cur_u32(c);
	meta_len = gt_cur_uv(c);
	b->meta = gt_cur_bytes(c, meta_len > GT_CODEC_META_MAX ? (size_t)-1 : (size_t)meta_len);
	if (c->err)
		return c->err;
	width = gt_dtype_size((enum gt_dtype)(b->dtype <= GT_DT_MAX ? b->dtype : 0));
	if (t || blk || first || !width || orig % (8ull * width) || !orig ||
	    (s->dtype && b->dtype != s->dtype) ||
	    (b->codec != gt_codec_id(s->codec) && (b->codec || meta_len)))
		return GT_ERR(CORRUPT);
	b->values = (size_t)(orig / (8ull * width));
	if (orig / (8ull * width) > SIZE_MAX / 8 || nch != nchunks(b->values) ||
	    nch > (size_t)(c->end - c->p) / 3)
		return GT_ERR(CORRUPT);
	b->nch = (size_t)nch;
	b->meta_len = (size_t)meta_len;
	return 0;
}

static int parse_block(const unsigned char *src, size_t len, const struct setup *s,
		       struct block *b, struct gt_diag *d)
{
	struct gt_cur c = { src, src + len, 0 };
	const uint64_t body_len = gt_cur_uv(&c);
	const unsigned char *body = gt_cur_bytes(&c, body_len > len ? (size_t)-1 : (size_t)body_len);
	struct gt_cur h = { body, body, 0 };
	int rc;

	if (!body)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad block header: %s", gt_strerror(c.err));
	h.end = body + body_len;
	rc = parse_fields(&h, s, b);
	if (rc >= 0 && s->chunk && b->values != s->chunk)
		return gt_diag_set(d, GT_ERR(CORRUPT),
				   "the chunk decodes to %zu values, the dataset's chunks hold %u",
				   b->values, s->chunk);
	if (rc >= 0) {
		b->len = calloc(b->nch + 1, sizeof(*b->len));
		rc = b->len ? parse_chunks(&h, b, (uint64_t)len * 8) : GT_ERR(NOMEM);
	}
	if (rc >= 0 && b->payload_len != (size_t)(c.end - c.p))
		rc = GT_ERR(CORRUPT);
	if (rc < 0)
		return gt_diag_set(d, rc, "bad block header: %s", gt_strerror(rc));
	b->payload = c.p;
	return 0;
}

/* Decode the chunks into @out; *@crc_ret the CRC-32 of what they hold,
 * each chunk checksummed as it is decoded, while it is in cache. */
static int decode_chunks(const struct setup *s, const struct block *b, unsigned char *out,
			 uint32_t *crc_ret, struct gt_diag *d)
{
	const unsigned width = gt_dtype_size((enum gt_dtype)b->dtype);
	struct setup bs = *s;
	struct gt_codec_ctx *ctx = NULL;
	size_t off = 0;
	int rc;

	if (!b->codec) {
		if (b->payload_len != b->values * width)
			return gt_diag_set(d, GT_ERR(CORRUPT), "raw block of the wrong length");
		memcpy(out, b->payload, b->payload_len);
		*crc_ret = gt_crc32(0, out, b->payload_len);
		return 0;
	}
	bs.dtype = (enum gt_dtype)b->dtype;
	rc = make_ctx(&bs, &ctx, d);
	if (rc >= 0)
		rc = gt_codec_block_load(ctx, b->meta, b->meta_len);
	*crc_ret = 0;
	for (size_t i = 0; i < b->nch && rc >= 0; i++) {
		unsigned char *o = out + i * (size_t)GT_H5Z_CHUNK_VALUES * width;
		const size_t n = chunk_n(b->values, i);

		rc = gt_codec_decode(ctx, b->payload + off, b->len[i], o, n);
		*crc_ret = gt_crc32(*crc_ret, o, n * width);
		off += b->len[i];
	}
	gt_codec_free(ctx);
	if (rc < 0 && !d->msg[0])
		gt_diag_set(d, rc, "%s", gt_strerror(rc));
	return rc;
}

static int decode(const struct setup *s, const unsigned char *src, size_t nbytes,
		  unsigned char **out_ret, size_t *len_ret, struct gt_diag *d)
{
	struct block b = { 0 };
	unsigned char *out = NULL;
	int rc = parse_block(src, nbytes, s, &b, d);
	size_t out_len = 0;
	uint32_t crc = 0;

	if (rc >= 0) {
		out_len = b.values * gt_dtype_size((enum gt_dtype)b.dtype);
		out = H5allocate_memory(out_len ? out_len : 1, 0);
		rc = out ? decode_chunks(s, &b, out, &crc, d)
			 : gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	if (rc >= 0 && crc != b.crc)
		rc = gt_diag_set(d, GT_ERR(CORRUPT), "CRC mismatch: the chunk is damaged");
	free(b.len);
	if (rc < 0) {
		if (out)
			H5free_memory(out);
		return rc;
	}
	*out_ret = out;
	*len_ret = out_len;
	return 0;
}

size_t gt_h5z_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
		     size_t nbytes, size_t *buf_size, void **buf)
{
	struct gt_diag d = { { 0 } };
	struct setup s;
	unsigned char *out = NULL;
	size_t len = 0;
	int rc = parse_cd(cd_nelmts, cd_values, &s, &d);

	if (rc >= 0 && (flags & H5Z_FLAG_REVERSE))
		rc = decode(&s, *buf, nbytes, &out, &len, &d);
	else if (rc >= 0)
		rc = encode(&s, *buf, nbytes, &out, &len, &d);
	if (rc < 0) {
		PUSH(d.msg[0] ? d.msg : gt_strerror(rc));
		return 0;
	}
	H5free_memory(*buf);
	*buf = out;
	*buf_size = len ? len : 1;
	return len;
}

/* ---- set_local, can_apply and the plugin entry points ------------------- */

/* A float type's layout as a gtool dtype; GT_DT_NONE when none fits. */
static enum gt_dtype float_dtype(hid_t type, size_t size)
{
	static const struct { enum gt_dtype dt; size_t size, ebits, mbits; } f[] = {
		{ GT_DT_F16, 2, 5, 10 }, { GT_DT_BF16, 2, 8, 7 },
		{ GT_DT_F32, 4, 8, 23 }, { GT_DT_F64, 8, 11, 52 },
	};
	size_t spos, epos, esize, mpos, msize;

	if (H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0)
		return GT_DT_NONE;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (size == f[i].size && esize == f[i].ebits && msize == f[i].mbits &&
		    spos == 8 * size - 1 && mpos == 0 && epos == msize)
			return f[i].dt;
	return GT_DT_NONE;
}

/* An opaque type tagged "bfloat16" (formats/TRACE.md) is bf16. */
static int is_bf16_opaque(hid_t type)
{
	char *tag = H5Tget_tag(type);
	const int yes = tag && !strcmp(tag, "bfloat16");

	if (tag)
		H5free_memory(tag);
	return yes;
}

/*
 * The dtype of the dataset's values: a float type by its layout, an
 * opaque 2-byte type tagged "bfloat16", or a 16-bit integer when @given
 * (cd_values[2]) says bf16 or f16; the dtype="bfloat16" attribute of
 * formats/TRACE.md is written after the dataset exists, so set_local,
 * which sees the creation properties, type and space only, cannot see it.
 */
static int type_dtype(hid_t type, unsigned given, enum gt_dtype *dt_ret, struct gt_diag *d)
{
	const H5T_class_t cls = H5Tget_class(type);
	const size_t size = H5Tget_size(type);
	enum gt_dtype dt = GT_DT_NONE;

	if (cls == H5T_FLOAT)
		dt = float_dtype(type, size);
	else if (cls == H5T_OPAQUE && size == 2 && is_bf16_opaque(type))
		dt = GT_DT_BF16;
	else if (cls == H5T_INTEGER && size == 2 && (given == GT_DT_BF16 || given == GT_DT_F16))
		dt = (enum gt_dtype)given;
	else if (cls == H5T_INTEGER && size == 2)
		return gt_diag_set(d, GT_ERR(TYPE), "16-bit integers: set cd_values[2] to 3 "
				   "(bf16) or 2 (f16) to code them as floats");
	if (dt == GT_DT_NONE)
		return gt_diag_set(d, GT_ERR(TYPE), "the dataset's type is not f16, bf16, f32 or "
				   "f64, the types gtool codes");
	if (size > 1 && H5Tget_order(type) != H5T_ORDER_LE)
		return gt_diag_set(d, GT_ERR(TYPE), "big-endian values: gtool codes little-endian ones");
	if (given && given != (unsigned)dt)
		return gt_diag_set(d, GT_ERR(TYPE), "cd_values[2] says dtype %u, the dataset "
				   "holds %s", given, gt_dtype_name(dt));
	*dt_ret = dt;
	return 0;
}

/* Values in one chunk of the dataset, which must fit cd_values' 32 bits. */
static int chunk_values(hid_t dcpl, unsigned *n_ret, struct gt_diag *d)
{
	hsize_t dims[H5S_MAX_RANK];
	const int rank = H5Pget_chunk(dcpl, H5S_MAX_RANK, dims);
	uint64_t n = 1;

	if (rank < 0)
		return gt_diag_set(d, GT_ERR(INVAL), "the dataset is not chunked");
	for (int i = 0; i < rank; i++) {
		if (dims[i] && n > UINT32_MAX / dims[i])
			return gt_diag_set(d, GT_ERR(OVERFLOW), "a chunk of 2^32 values or more");
		n *= dims[i];
	}
	*n_ret = (unsigned)n;
	return 0;
}

/*
 * set_local: fill in the dtype and the chunk's value count, and try the
 * codec on that dtype, so a dataset it cannot code fails at creation,
 * before any data is written.
 */
static herr_t gt_h5z_set_local(hid_t dcpl, hid_t type, hid_t space)
{
	unsigned cd[GT_H5Z_CD_MAX] = { 0 }, flags = 0;
	size_t n = GT_H5Z_CD_MAX;
	struct gt_diag d = { { 0 } };
	struct gt_codec_ctx *ctx = NULL;
	struct setup s;
	enum gt_dtype dt = GT_DT_NONE;
	int rc;

	(void)space;
	if (H5Pget_filter_by_id2(dcpl, GT_H5Z_ID, &flags, &n, cd, 0, NULL, NULL) < 0)
		return -1;
	rc = n > GT_H5Z_CD_MAX ? gt_diag_set(&d, GT_ERR(INVAL), "%zu cd_values, at most %d", n,
					      GT_H5Z_CD_MAX)
			       : parse_cd(n, cd, &s, &d);
	if (rc >= 0)
		rc = type_dtype(type, n > GT_H5Z_CD_DTYPE ? cd[GT_H5Z_CD_DTYPE] : 0, &dt, &d);
	if (rc >= 0)
		rc = chunk_values(dcpl, &cd[GT_H5Z_CD_CHUNK], &d);
	s.dtype = dt;
	if (rc >= 0)
		rc = make_ctx(&s, &ctx, &d);
	gt_codec_free(ctx);
	if (rc < 0) {
		PUSH(d.msg[0] ? d.msg : gt_strerror(rc));
		return -1;
	}
	cd[GT_H5Z_CD_VERSION] = GT_H5Z_LAYOUT;
	cd[GT_H5Z_CD_CODEC] = gt_codec_id(s.codec);
	cd[GT_H5Z_CD_DTYPE] = (unsigned)dt;
	n = n > GT_H5Z_CD_OPTS ? n : GT_H5Z_CD_OPTS;
	return H5Pmodify_filter(dcpl, GT_H5Z_ID, flags, n, cd) < 0 ? -1 : 0;
}

/* can_apply: a negative answer fails the dataset even for an optional
 * filter; set_local says exactly why. */
static htri_t gt_h5z_can_apply(hid_t dcpl, hid_t type, hid_t space)
{
	const H5T_class_t cls = H5Tget_class(type);

	(void)dcpl;
	(void)space;
	if (cls == H5T_FLOAT || cls == H5T_INTEGER || cls == H5T_OPAQUE)
		return 1;
	PUSH("the dataset's type is not f16, bf16, f32 or f64, the types gtool codes");
	return -1;
}

static const H5Z_class2_t gt_h5z_class = {
	H5Z_CLASS_T_VERS, (H5Z_filter_t)GT_H5Z_ID, 1, 1, GT_H5Z_NAME,
	gt_h5z_can_apply, gt_h5z_set_local, gt_h5z_filter,
};

#ifndef GT_H5Z_BUILTIN
H5PL_type_t H5PLget_plugin_type(void)
{
	return H5PL_TYPE_FILTER;
}

const void *H5PLget_plugin_info(void)
{
	return &gt_h5z_class;
}
#endif
