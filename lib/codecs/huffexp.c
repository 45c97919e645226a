/* huffexp.c - Huffman-coded exponents, sign and mantissa stored raw */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codec_impl.h"
#include "../gt_bitio.h"
#include "../gt_huff.h"
#include "../banned.h"

/*
 * A chunk of n values (E exponent bits, M mantissa bits, W = 1 + M):
 *
 *   varint   mcount: values that carry a sign and mantissa (LEB128, <= 10 B)
 *   bytes    mantissa stream, ceil(mcount * W / 8) bytes: (sign << M | man)
 *            of each such value, W bits, LSB-first (gt_bitio.h); for f32
 *            that is 3 little-endian bytes per value, bf16 1 byte
 *   bytes    code stream, to the end of the chunk: one token per value or
 *            run (gt_huff.h): its code; after ESC the raw E-bit exponent;
 *            after RUN the Elias-gamma code of len - GT_HUFF_RUN_MIN + 1
 *            (k zero bits, a one, then the k low bits of the number)
 *
 * Both streams are zero-padded to a byte.  The sign/mantissa of a value
 * goes to the mantissa stream when its token is an exponent or ESC (or a
 * ±0.0 coded as exponent 0 because ZERO/NZERO has no code).  Counting
 * mcount first (a cheap pass) lets the encoder place the code stream
 * without a scratch buffer or a memmove.
 *
 * Tables: by default block_begin() builds one per block (method best) and
 * returns its gt_huff_save() bytes as the block meta; with a static table
 * (params->table) every block uses it and the meta is empty.
 */

#define HX_VARINT_MAX 10
#define HX_MANT 1u  /* decode flags per symbol */
#define HX_RUN 2u
#define HX_ESC 4u
/* Fast-path groups: 56 values share one 64-value zero mask. */
#define HX_GROUP 56

struct hx_ctx {
	struct gt_codec_base base;
	enum gt_dtype dt;
	unsigned maxlen;
	enum gt_huff_method method;
	int fixed;  /* static table: block meta is empty */
	int ready;  /* a table is installed */
	int runs;   /* RUN tokens in use */
	struct gt_huff_table table;
	struct gt_huff_hist hist;
	/* encode, per symbol: code bits | nbits << 32 | mant << 40 | bad << 41 */
	uint64_t enc[GT_HUFF_NSYM_MAX];
	/* decode, per symbol: value bits without sign/mantissa, HX_* flags */
	uint64_t dbase[GT_HUFF_NSYM_MAX];
	uint8_t dflag[GT_HUFF_NSYM_MAX];
	uint16_t lut[GT_HUFF_LUT_MAX];
};

static const char *const method_names[] = { "gcomp", "pm", "best" };

static struct hx_ctx *hx(struct gt_codec_ctx *ctx)
{
	return (struct hx_ctx *)(void *)ctx;
}

/* Fill the encode and decode tables of the installed c->table. */
static int prepare(struct hx_ctx *c)
{
	const unsigned eb = gt_dtype_exp_bits(c->dt);
	const unsigned mb = gt_dtype_man_bits(c->dt);
	struct gt_huff_sym r;

	if (c->table.dtype != c->dt)
		return GT_ERR(CORRUPT);
	for (unsigned s = 0; s < c->table.nsyms; s++) {
		c->enc[s] = UINT64_C(1) << 41;
		if (s != GT_HUFF_ESC(eb) && !gt_huff_resolve(&c->table, s, &r))
			c->enc[s] = r.bits | (uint64_t)r.nbits << 32 |
				    (uint64_t)r.mant << 40;
		c->dbase[s] = s < (1u << eb) ? (uint64_t)s << mb : 0;
		c->dflag[s] = s < (1u << eb) ? HX_MANT : 0;
	}
	c->dbase[GT_HUFF_NZERO(eb)] = UINT64_C(1) << (eb + mb);
	c->dflag[GT_HUFF_RUN(eb)] = HX_RUN;
	c->dflag[GT_HUFF_ESC(eb)] = HX_ESC;
	c->runs = gt_huff_runs_used(&c->table);
	GT_TRY(gt_huff_lut(&c->table, c->lut, GT_HUFF_LUT_MAX));
	c->ready = 1;
	return 0;
}

static int hx_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		  size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	long maxlen = GT_HUFF_MAXLEN_DEFAULT;
	int method = GT_HUFF_BEST;
	struct hx_ctx *c;
	int rc;

	for (size_t i = 0; i < nkv; i++) {
		if (!strcmp(kv[i].key, "maxlen")) {
			GT_TRY(gt_kv_int(&kv[i], "huffexp", GT_HUFF_MAXLEN_MIN,
					 GT_HUFF_MAXLEN_MAX, &maxlen, d));
		} else if (!strcmp(kv[i].key, "method")) {
			method = -1;
			for (int m = 0; m < 3; m++)
				if (!strcmp(kv[i].val, method_names[m]))
					method = m;
			if (method < 0)
				return gt_diag_set(d, GT_ERR(INVAL),
						   "codec huffexp: invalid method '%s': expected best, gcomp or pm",
						   kv[i].val);
		} else {
			return gt_kv_unknown(&kv[i], "huffexp", d);
		}
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->dt = p->dtype;
	c->maxlen = (unsigned)maxlen;
	c->method = (enum gt_huff_method)method;
	if (p->table) {
		c->fixed = 1;
		rc = gt_huff_load(&c->table, p->table, p->table_len, GT_HUFF_STATIC);
		if (rc == 0)
			rc = prepare(c);
		if (rc < 0) {
			free(c);
			return gt_diag_set(d, rc, "codec huffexp: bad static table for %s",
					   gt_dtype_name(p->dtype));
		}
	}
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void hx_free(struct gt_codec_ctx *ctx)
{
	free(ctx);
}

static size_t hx_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct hx_ctx *c = (const struct hx_ctx *)(const void *)ctx;

	return (size_t)snprintf(buf, cap, "maxlen=%u,method=%s", c->maxlen,
				method_names[c->method]);
}

/*
 * Worst case: the varint, every value carrying a sign and mantissa, and
 * every value escaped with the longest code (GT_HUFF_MAXLEN_MAX + E bits;
 * a run costs at most 2 bits per value), each stream padded to a byte.
 */
static size_t hx_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct hx_ctx *c = (const struct hx_ctx *)(const void *)ctx;
	const size_t w = 1 + gt_dtype_man_bits(c->dt);
	const size_t cbits = GT_HUFF_MAXLEN_MAX + gt_dtype_exp_bits(c->dt);

	if (n > SIZE_MAX / 128)
		return 0;
	return HX_VARINT_MAX + (n * w + 7) / 8 + (n * cbits + 7) / 8;
}

static int hx_block_begin(struct gt_codec_ctx *ctx, const void *src, size_t n,
			  void *meta, size_t meta_cap, size_t *meta_len_ret)
{
	struct hx_ctx *c = hx(ctx);

	*meta_len_ret = 0;
	if (c->fixed)
		return 0;
	gt_huff_hist_init(&c->hist, c->dt);
	gt_huff_hist(&c->hist, src, n);
	GT_TRY(gt_huff_build(&c->table, &c->hist, c->maxlen, c->method, 0));
	GT_TRY(gt_huff_save(&c->table, meta, meta_cap, meta_len_ret));
	return prepare(c);
}

static int hx_block_load(struct gt_codec_ctx *ctx, const void *meta,
			 size_t meta_len)
{
	struct hx_ctx *c = hx(ctx);

	if (c->fixed)
		return meta_len ? GT_ERR(CORRUPT) : 0;
	c->ready = 0;
	GT_TRY(gt_huff_load(&c->table, meta, meta_len, 0));
	return prepare(c);
}

/* ---- encoding ------------------------------------------------------------- */

/* Values of @src carrying a sign and mantissa with the installed table. */
static size_t count_carriers(const struct hx_ctx *c, const void *src, size_t n)
{
	const unsigned eb = gt_dtype_exp_bits(c->dt);
	const uint64_t mag = (UINT64_C(1) << (eb + gt_dtype_man_bits(c->dt))) - 1;
	size_t nz = 0, pz = 0;

	if (c->dt == GT_DT_F32) {
		const unsigned char *p = src;

		for (size_t i = 0; i < n; i++) {
			uint32_t u;

			memcpy(&u, p + 4 * i, 4);
			nz += (u & 0x7fffffffu) != 0;
			pz += u == 0;
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			const uint64_t u = gt_fp_load(src, c->dt, i);

			nz += (u & mag) != 0;
			pz += u == 0;
		}
	}
	return nz + (c->enc[GT_HUFF_ZERO(eb)] >> 40 & 1) * pz +
	       (c->enc[GT_HUFF_NZERO(eb)] >> 40 & 1) * (n - nz - pz);
}

/* Number of +0.0 values from @i on. */
static size_t zeros_from(const void *src, enum gt_dtype dt, size_t i, size_t n)
{
	size_t j = i;

	while (j < n && !gt_fp_load(src, dt, j))
		j++;
	return j - i;
}

/* The RUN token of a run of @len values: its code and the gamma code. */
static void put_run(const struct hx_ctx *c, struct gt_bitw *w, uint64_t len)
{
	const uint64_t e = c->enc[GT_HUFF_RUN(gt_dtype_exp_bits(c->dt))];
	uint64_t v = len - GT_HUFF_RUN_MIN + 1;
	unsigned k = 63 - (unsigned)__builtin_clzll(v);

	gt_bitw_put(w, (uint32_t)e, (unsigned)(e >> 32) & 0xff);
	gt_bitw_flush(w);
	while (k > 32) {
		gt_bitw_put(w, 0, 32);
		gt_bitw_flush(w);
		k -= 32;
	}
	gt_bitw_put(w, UINT64_C(1) << k, k + 1);
	gt_bitw_flush(w);
	k = 63 - (unsigned)__builtin_clzll(v);
	v &= (UINT64_C(1) << k) - 1; /* the bits below the leading one */
	gt_bitw_put(w, v & 0xffffffffu, k < 32 ? k : 32);
	gt_bitw_flush(w);
	if (k > 32) {
		gt_bitw_put(w, v >> 32, k - 32);
		gt_bitw_flush(w);
	}
}

/* Any dtype, from value @i on: the reference loop and the f32 tail. */
static int enc_generic(const struct hx_ctx *c, const void *src, size_t i,
		       size_t n, struct gt_bitw *cw, struct gt_bitw *mw)
{
	const enum gt_dtype dt = c->dt;
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);
	const uint64_t mmask = (UINT64_C(1) << mb) - 1;

	while (i < n) {
		const uint64_t u = gt_fp_load(src, dt, i);
		uint64_t e;
		size_t len;

		if (!u && c->runs) {
			len = zeros_from(src, dt, i, n);
			if (len >= GT_HUFF_RUN_MIN) {
				put_run(c, cw, len);
				i += len;
				continue;
			}
		}
		e = c->enc[(u & (mmask | ((uint64_t)((1u << eb) - 1) << mb))) ?
				   (unsigned)(u >> mb) & ((1u << eb) - 1) :
				   (1u << eb) + (unsigned)(u >> (eb + mb))];
		if (e >> 41)
			return GT_ERR(INVAL); /* no code and no ESC */
		gt_bitw_put(cw, (uint32_t)e, (unsigned)(e >> 32) & 0xff);
		gt_bitw_flush(cw);
		if (e >> 40 & 1) {
			gt_bitw_put(mw, (u & mmask) | (u >> (eb + mb)) << mb, mb + 1);
			gt_bitw_flush(mw);
		}
		i++;
	}
	return 0;
}

/*
 * The f32 hot loop, in groups of HX_GROUP values while the input has 64
 * values left and the mantissa stream room for a whole group (so a 3-byte
 * store, made for every value and kept only for carriers, stays inside
 * it).  The only data-dependent branch is at run starts.  Returns the
 * index where it stopped; the mantissa writer stays byte-aligned.
 */
static size_t enc_f32(const struct hx_ctx *c, const unsigned char *src,
		      size_t n, struct gt_bitw *cw_out, struct gt_bitw *mw)
{
	const uint64_t *const enc = c->enc;
	unsigned char *mp = mw->ptr;
	/* a local copy: byte stores through mp would otherwise alias it */
	struct gt_bitw lw = *cw_out, *const cw = &lw;
	size_t i = 0;

	while (n - i >= 64 && mw->end - mp >= 3 * HX_GROUP) {
		const size_t g = i, lim = i + HX_GROUP;
		uint64_t runs = 0;

		if (c->runs) {
			for (unsigned k = 0; k < 64; k++) {
				uint32_t u;

				memcpy(&u, src + 4 * (g + k), 4);
				runs |= (uint64_t)(u == 0) << k;
			}
			runs &= runs >> 1;
			runs &= runs >> 2;
			runs &= runs >> 4;
		}
		for (; i < lim; i++) {
			uint32_t u, m;
			uint64_t e;

			if (__builtin_expect(runs >> (i - g) & 1, 0)) {
				const size_t len = zeros_from(src, GT_DT_F32, i, n);

				put_run(c, cw, len);
				i += len;
				break;
			}
			memcpy(&u, src + 4 * i, 4);
			e = enc[(u & 0x7fffffffu) ? (u >> 23) & 0xffu
						  : 256u + (u >> 31)];
			gt_bitw_put(cw, (uint32_t)e, (unsigned)(e >> 32) & 0xff);
			gt_bitw_flush(cw);
			m = (u & 0x7fffffu) | (u >> 31) << 23;
			memcpy(mp, &m, 3);
			mp += 3 * (unsigned)(e >> 40 & 1);
		}
	}
	mw->ptr = mp;
	*cw_out = lw;
	return i;
}

static int put_varint(unsigned char *p, uint64_t v)
{
	int k = 0;

	while (v >= 0x80) {
		p[k++] = (unsigned char)(0x80 | (v & 0x7f));
		v >>= 7;
	}
	p[k++] = (unsigned char)v;
	return k;
}

static int hx_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		     void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	const struct hx_ctx *c = hx(ctx);
	unsigned char hdr[HX_VARINT_MAX];
	unsigned char *const out = dst;
	struct gt_bitw cw, mw;
	size_t mcount, mbytes, hlen, i = 0, clen, mlen;
	int rc;

	*dst_len_ret = 0;
	if (!c->ready)
		return GT_ERR(INVAL);
	mcount = count_carriers(c, src, n);
	if (mcount > SIZE_MAX / 64)
		return GT_ERR(OVERFLOW);
	mbytes = (mcount * (1 + gt_dtype_man_bits(c->dt)) + 7) / 8;
	hlen = (size_t)put_varint(hdr, mcount);
	if (hlen > dst_cap || mbytes > dst_cap - hlen)
		return GT_ERR(DST_TOO_SMALL);
	memcpy(out, hdr, hlen);
	gt_bitw_init(&mw, out + hlen, mbytes);
	gt_bitw_init(&cw, out + hlen + mbytes, dst_cap - hlen - mbytes);
	if (c->dt == GT_DT_F32)
		i = enc_f32(c, src, n, &cw, &mw);
	rc = enc_generic(c, src, i, n, &cw, &mw);
	if (rc < 0)
		return rc;
	rc = gt_bitw_close(&mw, &mlen);
	if (rc < 0 || mlen != mbytes)
		return GT_ERR(INVAL); /* cannot happen: mcount was counted */
	GT_TRY(gt_bitw_close(&cw, &clen));
	*dst_len_ret = hlen + mbytes + clen;
	return 0;
}

/* ---- decoding ------------------------------------------------------------- */

/* The run length after a RUN code; 0 when it is corrupt. */
static uint64_t get_run(struct gt_bitr *r)
{
	unsigned k = 0, z;
	uint64_t v;

	for (;;) {
		gt_bitr_refill(r);
		z = r->acc ? (unsigned)__builtin_ctzll(r->acc) : 64;
		if (z < 32)
			break;
		gt_bitr_consume(r, 32);
		k += 32;
		if (k > 63 || gt_bitr_left(r) < 0)
			return 0;
	}
	k += z;
	if (k > 63)
		return 0;
	gt_bitr_consume(r, z + 1);
	v = gt_bitr_get(r, k < 32 ? k : 32);
	if (k > 32)
		v |= gt_bitr_get(r, k - 32) << 32;
	v |= UINT64_C(1) << k;
	if (v > UINT64_MAX - GT_HUFF_RUN_MIN)
		return 0;
	return v + GT_HUFF_RUN_MIN - 1;
}

/* Zero bytes for @len values at @dst + i, after checking they fit. */
static int put_zeros(unsigned char *dst, size_t width, size_t i, size_t n,
		     uint64_t len)
{
	if (!len || len > n - i)
		return GT_ERR(CORRUPT);
	memset(dst + i * width, 0, (size_t)len * width);
	return 0;
}

/* Any dtype, from value *@i_ret on; *@left_ret: mantissas still unread. */
static int dec_generic(const struct hx_ctx *c, struct gt_bitr *cr,
		       struct gt_bitr *mr, unsigned char *dst, size_t i,
		       size_t n, size_t *left_ret)
{
	const enum gt_dtype dt = c->dt;
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);
	const unsigned width = gt_dtype_size(dt);
	size_t left = *left_ret;

	while (i < n) {
		unsigned e, s, f;
		uint64_t v, sm;

		gt_bitr_refill(cr);
		e = c->lut[gt_bitr_peek(cr, c->table.maxlen)];
		if (!GT_HUFF_LUT_LEN(e))
			return GT_ERR(CORRUPT);
		gt_bitr_consume(cr, GT_HUFF_LUT_LEN(e));
		s = GT_HUFF_LUT_SYM(e);
		f = c->dflag[s];
		v = c->dbase[s];
		if (f & HX_RUN) {
			const uint64_t len = get_run(cr);

			GT_TRY(put_zeros(dst, width, i, n, len));
			i += len;
			continue;
		}
		if (f & HX_ESC) {
			v = gt_bitr_get(cr, eb) << mb;
			f = HX_MANT;
		}
		if (f & HX_MANT) {
			if (!left--)
				return GT_ERR(CORRUPT);
			sm = gt_bitr_get(mr, mb + 1);
			v |= (sm & ((UINT64_C(1) << mb) - 1)) | (sm >> mb) << (eb + mb);
		}
		gt_fp_store(dst, dt, i++, v);
	}
	*left_ret = left;
	return 0;
}

/*
 * The f32 hot loop: batches of values that cannot run out of mantissa
 * bytes (one value takes at most 3), so the 3-byte load made for every
 * value needs no check; a mask keeps it for carriers only.  Returns the
 * index where it stopped (or an error); *@mp_ret advances.
 */
static int dec_f32(const struct hx_ctx *c, struct gt_bitr *cr_io,
		   const unsigned char **mp_ret, const unsigned char *mend,
		   unsigned char *dst, size_t n, size_t *i_ret)
{
	/* a local copy: stores to dst would otherwise alias it */
	struct gt_bitr lr = *cr_io, *const cr = &lr;
	int rc = 0;
	const uint16_t *const lut = c->lut;
	const unsigned ml = c->table.maxlen;
	const unsigned char *mp = *mp_ret;
	size_t i = 0;

	while (i < n && mend - mp >= 3) {
		const size_t avail = (size_t)(mend - mp) / 3;
		const size_t lim = i + (n - i < avail ? n - i : avail);

		while (i < lim) {
			uint32_t m = 0, v, f, mask;
			unsigned e, s;

			gt_bitr_refill(cr);
			e = lut[gt_bitr_peek(cr, ml)];
			if (__builtin_expect(!GT_HUFF_LUT_LEN(e), 0)) {
				rc = GT_ERR(CORRUPT);
				goto out;
			}
			gt_bitr_consume(cr, GT_HUFF_LUT_LEN(e));
			s = GT_HUFF_LUT_SYM(e);
			f = c->dflag[s];
			v = (uint32_t)c->dbase[s];
			if (__builtin_expect(f & (HX_RUN | HX_ESC), 0)) {
				if (f & HX_RUN) {
					const uint64_t len = get_run(cr);

					rc = put_zeros(dst, 4, i, n, len);
					if (rc < 0)
						goto out;
					i += len;
					continue;
				}
				v = (uint32_t)gt_bitr_get(cr, 8) << 23;
				f = HX_MANT;
			}
			memcpy(&m, mp, 3);
			mask = 0u - (f & HX_MANT);
			v |= ((m & 0x7fffffu) | (m >> 23) << 31) & mask;
			mp += 3 & mask;
			memcpy(dst + 4 * i++, &v, 4);
		}
	}
out:
	*cr_io = lr;
	*mp_ret = mp;
	*i_ret = i;
	return rc;
}

/* mcount from the chunk header: *@p advances past it. */
static int get_varint(const unsigned char **p, const unsigned char *end,
		      uint64_t *v_ret)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < HX_VARINT_MAX; k++) {
		if (*p == end)
			return GT_ERR(TRUNCATED);
		v |= (uint64_t)(**p & 0x7f) << (7 * k);
		if (!(*(*p)++ & 0x80)) {
			*v_ret = v;
			return 0;
		}
	}
	return GT_ERR(CORRUPT);
}

static int hx_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		     void *dst, size_t n)
{
	const struct hx_ctx *c = hx(ctx);
	const unsigned char *p = src, *const end = p + src_len, *mp;
	const unsigned w = 1 + gt_dtype_man_bits(c->dt);
	struct gt_bitr cr, mr;
	uint64_t mcount, mbytes;
	size_t i = 0, left;
	int rc, rc2;

	if (!c->ready)
		return GT_ERR(INVAL);
	GT_TRY(get_varint(&p, end, &mcount));
	if (mcount > n)
		return GT_ERR(CORRUPT);
	mbytes = (mcount * w + 7) / 8;
	if (mbytes > (uint64_t)(end - p))
		return GT_ERR(TRUNCATED);
	gt_bitr_init(&mr, p, (size_t)mbytes);
	gt_bitr_init(&cr, p + mbytes, (size_t)(end - p - mbytes));
	left = (size_t)mcount;
	if (c->dt == GT_DT_F32) {
		mp = p;
		rc = dec_f32(c, &cr, &mp, p + mbytes, dst, n, &i);
		if (rc < 0)
			return gt_bitr_left(&cr) < 0 ? GT_ERR(TRUNCATED) : rc;
		left -= (size_t)(mp - p) / 3;
		mr.ptr = mp;
	}
	rc = dec_generic(c, &cr, &mr, dst, i, n, &left);
	if (rc < 0)
		return gt_bitr_left(&cr) < 0 ? GT_ERR(TRUNCATED) : rc;
	rc = gt_bitr_finish(&cr);
	rc2 = gt_bitr_finish(&mr);
	if (rc < 0)
		return rc;
	return left || rc2 < 0 ? GT_ERR(CORRUPT) : 0;
}

const struct gt_codec gt_codec_huffexp = {
	.name = "huffexp",
	.id = 3,
	.flags = GT_CODEC_LOSSLESS | GT_CODEC_TABLE,
	.help = "maxlen=N   longest Huffman code n_theta, 1-15 (default 12)\n"
		"method=M   table builder: best, gcomp or pm (default best)\n",
	.ctx_new = hx_new,
	.ctx_free = hx_free,
	.canon = hx_canon,
	.bound = hx_bound,
	.block_begin = hx_block_begin,
	.block_load = hx_block_load,
	.encode = hx_encode,
	.decode = hx_decode,
};
