/* test_huffexp.c - the huffexp codec: round trips, bounds, hostile input */
#include "check.h"
#include "block_rt.h"
#include "../../lib/gt_bitio.h"
#include "../../lib/gt_codec.h"
#include "../../lib/gt_huff.h"
#include "../../lib/banned.h"

static const enum gt_dtype dts[] = { GT_DT_F32, GT_DT_F16, GT_DT_BF16, GT_DT_F64 };

/* Random bits of dtype @dt of a kind: 0 zeros, 1 ±0, 2 subnormals, 3 NaN
 * and Inf, 4 random bits, 5 sorted gradients, 6 all equal, 7 runs of
 * zeros broken by -0, 8 gradient-like with 40 % zeros. */
static void fill(void *buf, enum gt_dtype dt, size_t n, int kind)
{
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);
	const uint64_t one = gt_fp_make(0, (1u << (eb - 1)) - 1, 0, dt);

	for (size_t i = 0; i < n; i++) {
		const uint64_t r = check_rand();
		uint64_t v = 0;

		switch (kind) {
		case 0: v = 0; break;
		case 1: v = gt_fp_make(r & 1, 0, 0, dt); break;
		case 2: v = gt_fp_make(r & 1, 0, (r >> 1) & ((1ull << mb) - 1), dt); break;
		case 3: v = gt_fp_make(r & 1, (1u << eb) - 1, (r >> 8) % 3 ? (r >> 1) & ((1ull << mb) - 1) : 0, dt); break;
		case 4: v = r; break;
		case 5: v = gt_fp_make(0, (unsigned)((1u << eb) * i / (n + 1)), r & ((1ull << mb) - 1), dt); break;
		case 6: v = one; break;
		case 7: v = (r % 50 == 0) ? gt_fp_make(1, 0, 0, dt) : (r % 400 == 1 ? one : 0); break;
		default: {
			const unsigned e = (1u << (eb - 1)) - 10 + (unsigned)(__builtin_popcountll(r) / 4);
			v = (r % 10 < 4) ? 0 : gt_fp_make(r >> 63, e < (1u << eb) ? e : 1, (r >> 3) & ((1ull << mb) - 1), dt);
			if ((r >> 40) % 300 == 0)
				v = gt_fp_make(0, (unsigned)(r >> 50) % (1u << eb), 0, dt);
		}
		}
		if (dt != GT_DT_F64)
			v &= (1ull << (8 * gt_dtype_size(dt))) - 1;
		gt_fp_store(buf, dt, i, v);
	}
	if (kind == 8)
		for (size_t i = n / 3; i < n / 3 + n / 10 && i < n; i++)
			gt_fp_store(buf, dt, i, 0);
}

/* Encode (exact-size buffers), check the bound, decode, compare bits. */
static void roundtrip(struct gt_codec_ctx *enc, struct gt_codec_ctx *dec,
		      enum gt_dtype dt, const void *src, size_t n, int dynamic)
{
	const size_t bound = gt_codec_bound(enc, n);
	unsigned char meta[GT_CODEC_META_MAX];
	unsigned char *dst = malloc(bound ? bound : 1), *small, *back;
	size_t len = 0, mlen = 0, blen;
	blen = n * gt_dtype_size(dt);
	CHECK(bound > 0);
	CHECK_RC(gt_codec_block_begin(enc, src, n, meta, sizeof(meta), &mlen), 0);
	/* the mode byte, then the table (dynamic) */
	CHECK(dynamic ? mlen > 1 : mlen == 1);
	CHECK_RC(gt_codec_block_load(dec, meta, mlen), 0);
	CHECK_RC(gt_codec_encode(enc, src, n, dst, bound, &len), 0);
	CHECK(len <= bound);
	back = malloc(blen ? blen : 1);
	CHECK_RC(gt_codec_decode(dec, dst, len, back, n), 0);
	CHECK(!memcmp(back, src, blen));
	/* one byte short: DST_TOO_SMALL, and ASan watches the exact buffer */
	if (len) {
		small = malloc(len - 1 ? len - 1 : 1);
		CHECK_RC(gt_codec_encode(enc, src, n, small, len - 1, &mlen), GT_ERR(DST_TOO_SMALL));
		free(small);
		/* truncated input is an error, never a crash */
		for (size_t cut = 0; cut < len; cut += 1 + len / 7) {
			small = malloc(cut ? cut : 1);
			memcpy(small, dst, cut);
			CHECK(gt_codec_decode(dec, small, cut, back, n) < 0);
			free(small);
		}
		/* a byte too many is corrupt */
		small = malloc(len + 1);
		memcpy(small, dst, len);
		small[len] = 0;
		CHECK_RC(gt_codec_decode(dec, small, len + 1, back, n), GT_ERR(CORRUPT));
		free(small);
		/* flipped bits: any result but a crash */
		for (int k = 0; k < 8; k++) {
			const size_t at = check_rand() % len;

			dst[at] ^= (unsigned char)(1u << (check_rand() % 8));
			(void)gt_codec_decode(dec, dst, len, back, n);
		}
	}
	free(back);
	free(dst);
}

static struct gt_codec_ctx *mk(enum gt_dtype dt, const char *opts,
			       const void *table, size_t table_len)
{
	const struct gt_codec_params p = { dt, opts, table, table_len, NULL, 0 };
	struct gt_codec_ctx *c = NULL;
	struct gt_diag d;

	CHECK_RC(gt_codec_new(gt_codec_find("huffexp"), &p, &c, &d), 0);
	return c;
}

static void test_roundtrips(void)
{
	/* 1001: the f32 single-token loop; 5000: the 9-bit multi-symbol
	 * table; 65537: the 12-bit one */
	const size_t sizes[] = { 0, 1, 2, 7, 8, 9, 63, 64, 65, 129, 1001, 5000, 65537 };
	const char *opts[] = { "", "method=gcomp,maxlen=6", "method=pm,maxlen=3" };

	for (unsigned d = 0; d < 4; d++) {
		void *buf = malloc(65537 * 8);

		for (unsigned o = 0; o < 3; o++) {
			struct gt_codec_ctx *e = mk(dts[d], opts[o], NULL, 0);
			struct gt_codec_ctx *x = mk(dts[d], opts[o], NULL, 0);

			for (int kind = 0; kind < 9; kind++) {
				for (unsigned s = 0; s < 13; s++) {
					if (o && s >= 11 && kind % 3)
						continue; /* keep it quick */
					fill(buf, dts[d], sizes[s], kind);
					roundtrip(e, x, dts[d], buf, sizes[s], 1);
				}
			}
			gt_codec_free(e);
			gt_codec_free(x);
		}
		free(buf);
	}
}

/* check_block_rt() with the first meta byte in *@mode (0: none). */
static size_t block_rt(struct gt_codec_ctx *enc, struct gt_codec_ctx *dec,
		       enum gt_dtype dt, const void *src, size_t n, size_t cv,
		       unsigned *mode)
{
	unsigned char meta[GT_CODEC_META_MAX];
	size_t mlen = 0;
	const size_t total = check_block_rt(enc, dec, dt, src, n, cv, meta, &mlen);

	*mode = mlen ? meta[0] : 0;
	return total;
}

/* @rows x @R gradient-like values; rows zero with probability @pr %,
 * columns @pc %, and every @dup-th row a copy (or negation) of another. */
static void fill_rows(void *buf, enum gt_dtype dt, size_t rows, size_t R,
		      unsigned pr, unsigned pc, unsigned dup)
{
	const size_t w = gt_dtype_size(dt);
	unsigned char *b = buf, *zc = malloc(R);

	fill(buf, dt, rows * R, 8);
	for (size_t c = 0; c < R; c++)
		zc[c] = check_rand() % 100 < pc;
	for (size_t r = 0; r < rows; r++) {
		const int zr = check_rand() % 100 < pr;

		for (size_t c = 0; c < R; c++)
			if (zr || zc[c])
				gt_fp_store(buf, dt, r * R + c, 0);
		if (dup && r && r % dup == 0 && !zr) {
			const size_t s = check_rand() % r;

			memcpy(b + r * R * w, b + s * R * w, R * w);
			for (size_t c = 0; r % 2 && c < R; c++)
				if (!zc[c])
					b[(r * R + c) * w + w - 1] ^= 0x80;
		}
	}
	free(zc);
}

/* Sparse structured blocks: the structure is chosen and round trips in
 * any chunking; dense blocks: never chosen, the bytes of a context
 * without rows. */
static void test_zero_structure(void)
{
	const size_t Rs[] = { 2, 5, 16, 64, 300 }, rows[] = { 3, 17, 100 };

	for (unsigned d = 0; d < 4; d++)
		for (unsigned a = 0; a < 5; a++)
			for (unsigned b = 0; b < 3; b++) {
				const size_t R = Rs[a], n = rows[b] * R;
				void *buf = malloc(n * 8);
				struct gt_codec_ctx *e = mk_rows(dts[d], R), *x = mk(dts[d], "", NULL, 0);
				struct gt_codec_ctx *p = mk(dts[d], "", NULL, 0);
				size_t zs, plain;
				unsigned mode, pmode;

				fill_rows(buf, dts[d], rows[b], R, 70, 50, 3);
				zs = block_rt(e, x, dts[d], buf, n, n, &mode);
				plain = block_rt(p, x, dts[d], buf, n, n, &pmode);
				/* the cost leaves out each stream's byte padding */
				CHECK(zs <= plain + 2);
				if (R >= 16 && rows[b] == 100 && !(mode == 0xff && zs < plain)) {
					fprintf(stderr, "dt %u R %zu rows %zu: %zu >= %zu\n", d, R, rows[b], zs, plain);
					CHECK(mode == 0xff && zs < plain);
				}
				(void)block_rt(e, x, dts[d], buf, n, 64, &mode);
				(void)block_rt(e, x, dts[d], buf, n, 3 * R + 1, &mode);
				roundtrip(e, x, dts[d], buf, n, 1);
				/* dense: the plain bytes */
				fill_rows(buf, dts[d], rows[b], R, 0, 0, 0);
				fill(buf, dts[d], n, 4);
				zs = block_rt(e, x, dts[d], buf, n, 64, &mode);
				plain = block_rt(p, x, dts[d], buf, n, 64, &pmode);
				CHECK(mode != 0xff && mode == pmode && zs == plain);
				gt_codec_free(e);
				gt_codec_free(x);
				gt_codec_free(p);
				free(buf);
			}
}

/* A chunk not in the memory block_begin was given is refused. */
static void test_zero_structure_misuse(void)
{
	float v[64 * 16] = { 0 }, other[64];
	unsigned char meta[GT_CODEC_META_MAX], out[4096];
	struct gt_codec_ctx *e = mk_rows(GT_DT_F32, 64);
	size_t mlen, len;

	/* odd columns zero: coded as a column bitmap */
	for (size_t i = 0; i < 64 * 16; i++)
		v[i] = i % 2 ? 0.0f : (float)(i % 61) + 0.5f;
	memcpy(other, v, sizeof(other));
	CHECK_RC(gt_codec_block_begin(e, v, 64 * 16, meta, sizeof(meta), &mlen), 0);
	CHECK(meta[0] == 0xff);
	CHECK_RC(gt_codec_block_load(e, meta, mlen), 0);
	CHECK_RC(gt_codec_encode(e, other, 64, out, sizeof(out), &len), GT_ERR(INVAL));
	CHECK_RC(gt_codec_encode(e, v + 64, 64, out, sizeof(out), &len), 0);
	gt_codec_free(e);
}

/* A static table built from other data: values escape. */
static void test_static(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	unsigned char tb[GT_HUFF_SAVE_MAX];
	size_t tlen;

	for (unsigned d = 0; d < 4; d++) {
		void *buf = malloc(5000 * 8);
		struct gt_codec_ctx *e, *x;

		gt_huff_hist_init(&h, dts[d]);
		fill(buf, dts[d], 5000, 6); /* only one exponent */
		gt_huff_hist(&h, buf, 5000);
		CHECK_RC(gt_huff_build(&t, &h, 12, GT_HUFF_BEST, GT_HUFF_STATIC), 0);
		CHECK_RC(gt_huff_save(&t, tb, sizeof(tb), &tlen), 0);
		e = mk(dts[d], "", tb, tlen);
		x = mk(dts[d], "", tb, tlen);
		for (int kind = 0; kind < 9; kind++) {
			fill(buf, dts[d], 5000, kind);
			roundtrip(e, x, dts[d], buf, 5000, 0);
			roundtrip(e, x, dts[d], buf, 77, 0);
		}
		/* static: the meta is exactly the mode byte */
		CHECK_RC(gt_codec_block_load(x, tb, 2), GT_ERR(CORRUPT));
		CHECK_RC(gt_codec_block_load(x, tb, 0), GT_ERR(CORRUPT));
		gt_codec_free(e);
		gt_codec_free(x);
		free(buf);
	}
}

/* gt_huff_cost() predicts the encoded size to the bit. */
static void test_cost_exact(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	const size_t n = 30000;
	void *buf = malloc(n * 8);

	for (unsigned d = 0; d < 4; d++) {
		struct gt_codec_ctx *e = mk(dts[d], "", NULL, 0);
		const size_t cap = gt_codec_bound(e, n);
		unsigned char *dst = malloc(cap), meta[GT_CODEC_META_MAX];
		size_t len, mlen;
		uint64_t bits, esc;

		fill(buf, dts[d], n, 8);
		CHECK_RC(gt_codec_block_begin(e, buf, n, meta, sizeof(meta), &mlen), 0);
		CHECK_RC(gt_codec_encode(e, buf, n, dst, cap, &len), 0);
		/* k = 0, mixed signs; f32 blocks this long: the split layout */
		CHECK(mlen > 1 && meta[0] == (dts[d] == GT_DT_F32 ? 0xc0 : 0));
		CHECK_RC(gt_huff_load(&t, meta + 1, mlen - 1, 0), 0);
		gt_huff_hist_init(&h, dts[d]);
		gt_huff_hist(&h, buf, n);
		CHECK_RC(gt_huff_cost(&t, &h, &bits, &esc), 0);
		if (dts[d] == GT_DT_F32) {
			/* 4 varints of 2 bytes, 3 lengths of 4, 8 streams padded
			 * to bytes, and runs cut at the parts' ends cost more */
			CHECK(len * 8 >= bits + 8 * 20 && len * 8 < bits + 8 * 28);
		} else {
			/* header varint (2 or 3 bytes here) + two streams padded */
			CHECK(len * 8 >= bits + 16 && len * 8 < bits + 24 + 16);
		}
		free(dst);
		gt_codec_free(e);
	}
	free(buf);
}

/* Every truncation of a small chunk is an error, never a crash. */
static void all_cuts(struct gt_codec_ctx *enc, struct gt_codec_ctx *dec,
		     const void *src, size_t n)
{
	const size_t bound = gt_codec_bound(enc, n);
	unsigned char meta[GT_CODEC_META_MAX];
	unsigned char *dst = malloc(bound), *back = malloc(4 * n + 1);
	size_t len = 0, mlen = 0;

	CHECK_RC(gt_codec_block_begin(enc, src, n, meta, sizeof(meta), &mlen), 0);
	CHECK_RC(gt_codec_block_load(dec, meta, mlen), 0);
	CHECK_RC(gt_codec_encode(enc, src, n, dst, bound, &len), 0);
	for (size_t cut = 0; cut < len; cut++) {
		unsigned char *small = malloc(cut ? cut : 1);

		memcpy(small, dst, cut);
		CHECK(gt_codec_decode(dec, small, cut, back, n) < 0);
		free(small);
	}
	CHECK_RC(gt_codec_decode(dec, dst, len, back, n), 0);
	CHECK(!memcmp(back, src, 4 * n));
	free(dst);
	free(back);
}

/*
 * f32 fast paths: the encoder works in quads with a look-ahead of 8
 * values, the decoder in groups of 4 lookups that need 12 values and 40
 * mantissa bytes left.  Every length 0..70, with runs, escapes and
 * isolated zeros at the very end and at every alignment, tables of every
 * shape (codes longer than the 12-bit multi-symbol index too).
 */
static void test_f32_edges(void)
{
	const char *opts[] = { "", "method=gcomp,maxlen=6", "method=pm,maxlen=3",
			       "method=pm,maxlen=15", "maxlen=13" };
	uint32_t *v = malloc(4 * 200);

	for (unsigned o = 0; o < 5; o++) {
		struct gt_codec_ctx *e = mk(GT_DT_F32, opts[o], NULL, 0);
		struct gt_codec_ctx *x = mk(GT_DT_F32, opts[o], NULL, 0);

		for (size_t n = 0; n <= 70; n++) {
			for (int kind = 0; kind < 6; kind++) {
				fill(v, GT_DT_F32, n, kind == 5 ? 4 : 8);
				if (kind == 1) /* a run ending the chunk */
					for (size_t j = n > 9 ? n - 9 : 0; j < n; j++)
						v[j] = 0;
				if (kind == 2 && n) /* a rare exponent last */
					v[n - 1] = 0x7f7fffffu;
				if (kind == 3) /* runs of 7 and 8 at every offset */
					for (size_t j = n % 5; j + 8 < n; j += 17)
						memset(v + j, 0, 4 * (7 + (j & 1)));
				if (kind == 4 && n) /* -0.0 last */
					v[n - 1] = 0x80000000u;
				roundtrip(e, x, GT_DT_F32, v, n, 1);
				if (n < 40 || n % 16 == 0)
					all_cuts(e, x, v, n);
			}
		}
		gt_codec_free(e);
		gt_codec_free(x);
	}
	free(v);
}

/* f32 with a static table: escapes inside and at the end of fast groups. */
static void test_f32_static_edges(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	unsigned char tb[GT_HUFF_SAVE_MAX];
	uint32_t *v = malloc(4 * 5000);
	struct gt_codec_ctx *e, *x;
	size_t tlen;

	gt_huff_hist_init(&h, GT_DT_F32);
	fill(v, GT_DT_F32, 5000, 8);
	gt_huff_hist(&h, v, 5000);
	CHECK_RC(gt_huff_build(&t, &h, 12, GT_HUFF_PM, GT_HUFF_STATIC), 0);
	CHECK_RC(gt_huff_save(&t, tb, sizeof(tb), &tlen), 0);
	e = mk(GT_DT_F32, "", tb, tlen);
	x = mk(GT_DT_F32, "", tb, tlen);
	for (size_t n = 0; n <= 70; n++) {
		fill(v, GT_DT_F32, n, 8);
		for (size_t j = n % 3; j < n; j += 5)
			v[j] = 0x00000001u + (uint32_t)(j % 255) * 0x00800000u;
		if (n)
			v[n - 1] = 0xff800000u; /* -Inf, escaped */
		roundtrip(e, x, GT_DT_F32, v, n, 0);
		all_cuts(e, x, v, n);
	}
	gt_codec_free(e);
	gt_codec_free(x);
	free(v);
}

/* The mantissa word layout (man << 1 | sign) pinned by one chunk. */
static void test_f32_layout(void)
{
	const uint32_t v[3] = { 0x3f800001u, 0xbf800002u, 0 };
	struct gt_codec_ctx *e = mk(GT_DT_F32, "", NULL, 0);
	unsigned char meta[GT_CODEC_META_MAX], dst[64];
	size_t mlen, len;

	CHECK_RC(gt_codec_block_begin(e, v, 3, meta, sizeof(meta), &mlen), 0);
	CHECK_RC(gt_codec_encode(e, v, 3, dst, sizeof(dst), &len), 0);
	/* mcount 2, then (1 << 1 | 0) and (2 << 1 | 1), 3 bytes each */
	CHECK(len > 7 && dst[0] == 2);
	CHECK(dst[1] == 2 && dst[2] == 0 && dst[3] == 0);
	CHECK(dst[4] == 5 && dst[5] == 0 && dst[6] == 0);
	gt_codec_free(e);
}

/*
 * The values at @buf with the low @k mantissa bits cleared, then one value
 * (the last) with bit k set so that k is exact (k < M); @sgn: 0 as they
 * are, 1 all positive, 2 every value that is not +0.0 negative.
 */
static void set_k(void *buf, enum gt_dtype dt, size_t n, unsigned k,
		  unsigned sgn)
{
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);
	const uint64_t sbit = UINT64_C(1) << (eb + mb);

	for (size_t i = 0; i < n; i++) {
		uint64_t v = gt_fp_load(buf, dt, i) & ~((UINT64_C(1) << k) - 1);

		if (i == n - 1 && k < mb)
			v |= (UINT64_C(1) << k) | (UINT64_C(100) << mb);
		if (sgn == 1)
			v &= ~sbit;
		if (sgn == 2 && v)
			v |= sbit;
		gt_fp_store(buf, dt, i, v);
	}
}

/* set_k() on values of kind 8. */
static void fill_k(void *buf, enum gt_dtype dt, size_t n, unsigned k,
		   unsigned sgn)
{
	fill(buf, dt, n, 8);
	set_k(buf, dt, n, k, sgn);
}

/* Encode @n values, check the mode byte (-1: any), round trip; the
 * encoded length in *@len_ret. */
static void mode_rt(struct gt_codec_ctx *e, struct gt_codec_ctx *x,
		    enum gt_dtype dt, const void *src, size_t n, int want,
		    size_t *len_ret)
{
	const size_t bound = gt_codec_bound(e, n);
	unsigned char meta[GT_CODEC_META_MAX];
	unsigned char *dst = malloc(bound), *back = malloc(n * 8 + 1);
	size_t mlen = 0, len = 0;

	CHECK_RC(gt_codec_block_begin(e, src, n, meta, sizeof(meta), &mlen), 0);
	CHECK(mlen >= 1);
	if (want >= 0 && meta[0] != want)
		printf("mode byte %u, want %d (%s, n %zu)\n", meta[0], want,
		       gt_dtype_name(dt), n);
	CHECK(want < 0 || meta[0] == want);
	CHECK_RC(gt_codec_block_load(x, meta, mlen), 0);
	CHECK_RC(gt_codec_encode(e, src, n, dst, bound, &len), 0);
	CHECK(len <= bound);
	CHECK_RC(gt_codec_decode(x, dst, len, back, n), 0);
	CHECK(!memcmp(back, src, n * gt_dtype_size(dt)));
	*len_ret = len;
	free(dst);
	free(back);
}

/*
 * The sign mode the encoder picks: what the data says, except that f32
 * keeps the sign bit when k is 0 or 16, where its fast paths need it.
 */
static unsigned want_sign(enum gt_dtype dt, unsigned k, unsigned sgn)
{
	return dt == GT_DT_F32 && (k == 0 || k == 16) ? 0 : sgn;
}

/* The same for a block of @n values: 3 (mixed, split chunks) where f32
 * keeps the sign bit in blocks of HX_SPLIT_MIN (8192) values or more. */
static unsigned want_sign_n(enum gt_dtype dt, unsigned k, unsigned sgn, size_t n)
{
	const unsigned s = want_sign(dt, k, sgn);

	return dt == GT_DT_F32 && (k == 0 || k == 16) && n >= 8192 ? 3 : s;
}

/* Common trailing mantissa zeros and one-signed blocks: the mode byte is
 * what the data says, and it makes chunks smaller, on every dtype. */
static void test_mode(void)
{
	const size_t n = 3001;
	void *buf = malloc(n * 8), *base = malloc(n * 8);

	for (unsigned d = 0; d < 4; d++) {
		const enum gt_dtype dt = dts[d];
		const unsigned mb = gt_dtype_man_bits(dt);
		const unsigned ks[] = { 0, 1, 2, mb / 2, mb - 1, mb };
		struct gt_codec_ctx *e = mk(dt, "", NULL, 0);
		struct gt_codec_ctx *x = mk(dt, "", NULL, 0);
		size_t len, len0 = 0;

		fill(base, dt, n, 8);
		for (unsigned j = 0; j < 6; j++) {
			for (unsigned sgn = 0; sgn < 3; sgn++) {
				memcpy(buf, base, n * 8);
				set_k(buf, dt, n, ks[j], sgn);
				mode_rt(e, x, dt, buf, n,
					(int)(ks[j] | want_sign(dt, ks[j], sgn) << 6), &len);
				if (!j && !sgn)
					len0 = len;
				CHECK(j || want_sign(dt, ks[j], sgn) ? len < len0 : 1);
			}
		}
		/* k = M: powers of two, with zeros and -0.0 */
		for (size_t i = 0; i < n; i++)
			gt_fp_store(buf, dt, i, i % 7 == 3 ? 0 : i % 11 == 5 ?
				    gt_fp_make(1, 0, 0, dt) :
				    gt_fp_make(i & 1, 1 + (unsigned)(i % 13), 0, dt));
		mode_rt(e, x, dt, buf, n, (int)mb, &len);
		for (size_t i = 0; i < n; i++)
			gt_fp_store(buf, dt, i, gt_fp_make(0, 1 + (unsigned)(i % 13), 0, dt));
		mode_rt(e, x, dt, buf, n, (int)(mb | 1u << 6), &len);
		/* one value breaks the common zeros, first or last */
		fill_k(buf, dt, n, mb - 1, 0);
		gt_fp_store(buf, dt, 0, gt_fp_make(0, 3, 1, dt));
		mode_rt(e, x, dt, buf, n, 0, &len);
		fill_k(buf, dt, n, 3, 1);
		gt_fp_store(buf, dt, n - 1, gt_fp_make(1, 3, 1, dt));
		mode_rt(e, x, dt, buf, n, 0, &len);
		/* no values, only zeros: nothing carries a word */
		mode_rt(e, x, dt, buf, 0, -1, &len);
		memset(buf, 0, n * 8);
		mode_rt(e, x, dt, buf, n, -1, &len);
		/* random bits (NaN, Inf, subnormals) cleared to k = 9 */
		fill(buf, dt, n, 4);
		for (size_t i = 0; i < n; i++)
			gt_fp_store(buf, dt, i, gt_fp_load(buf, dt, i) >> 9 << 9);
		mode_rt(e, x, dt, buf, n, mb > 9 ? -1 : (int)mb, &len);
		gt_codec_free(e);
		gt_codec_free(x);
	}
	free(buf);
	free(base);
}

/* f64 holding f32 values (k = 29), f32 holding bf16 values (k = 16). */
static void test_mode_widened(void)
{
	const size_t n = 20000;
	float *f = malloc(n * 4);
	double *g = malloc(n * 8);
	uint32_t *u = malloc(n * 4);
	struct gt_codec_ctx *e = mk(GT_DT_F64, "", NULL, 0);
	struct gt_codec_ctx *x = mk(GT_DT_F64, "", NULL, 0);
	size_t len, len0;

	fill(f, GT_DT_F32, n, 8);
	for (size_t i = 0; i < n; i++)
		g[i] = f[i];
	g[7] = 1.0 + 0x1p-23; /* an odd f32 mantissa: k exactly 29 */
	mode_rt(e, x, GT_DT_F64, g, n, 29, &len);
	/* 1 + 52 - 29 = 24 bits a word, not 53 */
	CHECK(len < n * (2 + 24 + 4) / 8);
	gt_codec_free(e);
	gt_codec_free(x);
	e = mk(GT_DT_F32, "", NULL, 0);
	x = mk(GT_DT_F32, "", NULL, 0);
	fill(u, GT_DT_F32, n, 8);
	mode_rt(e, x, GT_DT_F32, u, n, (int)(want_sign_n(GT_DT_F32, 0, 0, n) << 6), &len0);
	for (size_t i = 0; i < n; i++)
		u[i] &= 0xffff0000u;
	u[5] = 0x3f810000u;
	mode_rt(e, x, GT_DT_F32, u, n, (int)(16 | want_sign_n(GT_DT_F32, 16, 0, n) << 6), &len);
	CHECK(len < len0 - n * 2);
	gt_codec_free(e);
	gt_codec_free(x);
	free(f);
	free(g);
	free(u);
}

/* The f32 fast paths at every length with k > 0 (k = 16 has its own) and
 * one-signed blocks, dynamic and static tables. */
static void test_mode_edges(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	const unsigned modes[][2] = { { 16, 0 }, { 16, 1 }, { 1, 0 }, { 0, 1 },
				      { 0, 2 }, { 23, 0 }, { 7, 2 } };
	unsigned char tb[GT_HUFF_SAVE_MAX];
	uint32_t *v = malloc(4 * 5000);
	size_t tlen;

	gt_huff_hist_init(&h, GT_DT_F32);
	fill(v, GT_DT_F32, 5000, 8);
	gt_huff_hist(&h, v, 5000);
	CHECK_RC(gt_huff_build(&t, &h, 12, GT_HUFF_PM, GT_HUFF_STATIC), 0);
	CHECK_RC(gt_huff_save(&t, tb, sizeof(tb), &tlen), 0);
	for (unsigned o = 0; o < 3; o++) {
		const char *opt = o == 1 ? "method=pm,maxlen=15" : "";
		struct gt_codec_ctx *e = mk(GT_DT_F32, opt, o == 2 ? tb : NULL, tlen);
		struct gt_codec_ctx *x = mk(GT_DT_F32, opt, o == 2 ? tb : NULL, tlen);

		for (unsigned m = 0; m < 7; m++) {
			for (size_t n = 0; n <= 70; n++) {
				fill_k(v, GT_DT_F32, n, modes[m][0], modes[m][1]);
				if (n > 3 && m % 2)
					v[n / 2] = 0x80000000u; /* -0.0 */
				roundtrip(e, x, GT_DT_F32, v, n, o != 2);
				if (n < 40 || n % 16 == 0)
					all_cuts(e, x, v, n);
			}
		}
		gt_codec_free(e);
		gt_codec_free(x);
	}
	free(v);
}

/* Mode bytes out of range are corrupt, for static and per-block tables. */
static void test_mode_corrupt(void)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	unsigned char tb[GT_HUFF_SAVE_MAX], back[8];
	size_t tlen;

	for (unsigned d = 0; d < 4; d++) {
		const enum gt_dtype dt = dts[d];
		const unsigned mb = gt_dtype_man_bits(dt);
		struct gt_codec_ctx *e = mk(dt, "", NULL, 0);
		struct gt_codec_ctx *x = mk(dt, "", NULL, 0);
		unsigned char meta[GT_CODEC_META_MAX], sm[1];
		const uint64_t one = gt_fp_make(0, 5, 1, dt);
		struct gt_codec_ctx *s;
		size_t mlen;

		gt_fp_store(meta + 64, dt, 0, one);
		CHECK_RC(gt_codec_block_begin(e, meta + 64, 1, meta, 64, &mlen), 0);
		CHECK(meta[0] == want_sign(dt, 0, 1) << 6); /* k = 0, all positive */
		CHECK_RC(gt_codec_block_load(x, meta, mlen), 0);
		meta[0] = (unsigned char)(mb + 1);
		CHECK_RC(gt_codec_block_load(x, meta, mlen), GT_ERR(CORRUPT));
		meta[0] = 63;
		CHECK_RC(gt_codec_block_load(x, meta, mlen), GT_ERR(CORRUPT));
		/* sign mode 3: the split layout, f32 with k = 0 or 16 only */
		meta[0] = 3u << 6;
		CHECK_RC(gt_codec_block_load(x, meta, mlen),
			 dt == GT_DT_F32 ? 0 : GT_ERR(CORRUPT));
		meta[0] = 16u | 3u << 6;
		CHECK_RC(gt_codec_block_load(x, meta, mlen),
			 dt == GT_DT_F32 ? 0 : GT_ERR(CORRUPT));
		meta[0] = 1u | 3u << 6;
		CHECK_RC(gt_codec_block_load(x, meta, mlen), GT_ERR(CORRUPT));
		meta[0] = (unsigned char)(mb | 2u << 6);
		CHECK_RC(gt_codec_block_load(x, meta, mlen), 0);
		CHECK_RC(gt_codec_block_load(x, meta, 0), GT_ERR(CORRUPT));
		CHECK_RC(gt_codec_block_begin(e, meta + 64, 1, meta, 0, &mlen),
			 GT_ERR(DST_TOO_SMALL));
		/* static tables: the same checks on the one byte */
		gt_huff_hist_init(&h, dt);
		gt_huff_hist(&h, meta + 64, 1);
		CHECK_RC(gt_huff_build(&t, &h, 12, GT_HUFF_BEST, GT_HUFF_STATIC), 0);
		CHECK_RC(gt_huff_save(&t, tb, sizeof(tb), &tlen), 0);
		s = mk(dt, "", tb, tlen);
		CHECK_RC(gt_codec_block_begin(s, meta + 64, 1, meta, 64, &mlen), 0);
		CHECK(mlen == 1 && meta[0] == want_sign(dt, 0, 1) << 6);
		sm[0] = (unsigned char)(mb + 1);
		CHECK_RC(gt_codec_block_load(s, sm, 1), GT_ERR(CORRUPT));
		/* a failed load leaves nothing to decode with */
		CHECK_RC(gt_codec_decode(s, tb, 1, back, 1), GT_ERR(INVAL));
		sm[0] = (unsigned char)mb;
		CHECK_RC(gt_codec_block_load(s, sm, 1), 0);
		gt_codec_free(s);
		gt_codec_free(e);
		gt_codec_free(x);
	}
}

/* A static table of the f32 values at @v (ESC coded). */
static size_t static_table(const void *v, size_t n, unsigned maxlen,
			   unsigned char *tb)
{
	static struct gt_huff_hist h;
	static struct gt_huff_table t;
	size_t tlen = 0;

	gt_huff_hist_init(&h, GT_DT_F32);
	gt_huff_hist(&h, v, n);
	CHECK_RC(gt_huff_build(&t, &h, maxlen, GT_HUFF_PM, GT_HUFF_STATIC), 0);
	CHECK_RC(gt_huff_save(&t, tb, GT_HUFF_SAVE_MAX, &tlen), 0);
	return tlen;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * The split layout, byte for byte: with a static table a chunk of n >=
 * 8192 values is the four varints of the parts' counts, three 4-byte code
 * lengths, the four mantissa streams, the four code streams, each part's
 * streams those of the part coded alone (n / 4 < 8192 values: one
 * stream each, a run ends at its end).  Zeros across the end of part 0,
 * escaped exponents, k = 0 and 16.
 */
static void check_split(struct gt_codec_ctx *e, struct gt_codec_ctx *x,
			const uint32_t *v, size_t n, unsigned stride)
{
	const size_t a[5] = { 0, n / 4, n / 4 * 2, n / 4 * 3, n };
	const size_t bound = gt_codec_bound(e, n);
	unsigned char *dst = malloc(bound), *part = malloc(bound);
	const unsigned char *p, *lens, *ms, *cs;
	uint32_t *back = malloc(4 * n);
	uint64_t mcv[4], mc = 0;
	size_t len, plen, cpos = 0;

	CHECK_RC(gt_codec_encode(e, v, n, dst, bound, &len), 0);
	CHECK_RC(gt_codec_decode(x, dst, len, back, n), 0);
	CHECK(!memcmp(back, v, 4 * n));
	p = dst;
	for (unsigned j = 0; j < 4; j++)
		CHECK_RC(gt_varint_get(&p, dst + len, &mcv[j]), 0);
	lens = p;
	ms = p + 12;
	cs = ms + (mcv[0] + mcv[1] + mcv[2] + mcv[3]) * stride;
	for (unsigned j = 0; j < 4; j++) {
		const unsigned char *q = part;
		size_t mb, cl;

		CHECK_RC(gt_codec_encode(e, v + a[j], a[j + 1] - a[j], part, bound, &plen), 0);
		CHECK_RC(gt_varint_get(&q, part + plen, &mc), 0);
		CHECK(mc == mcv[j]);
		mb = (size_t)mc * stride;
		cl = plen - (size_t)(q - part) - mb;
		CHECK(!memcmp(ms, q, mb));
		CHECK(!memcmp(cs + cpos, q + mb, cl));
		if (j < 3)
			CHECK(le32(lens + 4 * j) == cl);
		ms += mb;
		cpos += cl;
	}
	CHECK(cs + cpos == dst + len);
	free(dst);
	free(part);
	free(back);
}

static void test_split_layout(void)
{
	const size_t ns[] = { 8192, 8195, 32764 };
	uint32_t *v = malloc(4 * 32764);
	unsigned char *tb = malloc(GT_HUFF_SAVE_MAX), meta[8];

	for (unsigned k = 0; k < 2; k++) {
		size_t tlen, mlen;

		fill_k(v, GT_DT_F32, 2000, k ? 16 : 0, 0);
		tlen = static_table(v, 2000, 6, tb); /* maxlen 6: escapes */
		for (unsigned z = 0; z < 3; z++) {
			const size_t n = ns[z];
			struct gt_codec_ctx *e = mk(GT_DT_F32, "", tb, tlen);
			struct gt_codec_ctx *x = mk(GT_DT_F32, "", tb, tlen);

			fill_k(v, GT_DT_F32, n, k ? 16 : 0, 0);
			for (size_t i = n / 4 - 20; i < n / 4 + 30; i++)
				v[i] = 0;
			for (size_t i = 0; i < n; i += 97)
				v[i] = (v[i] & 0x807fffffu) | (uint32_t)(i % 255) << 23;
			CHECK_RC(gt_codec_block_begin(e, v, n, meta, sizeof(meta), &mlen), 0);
			CHECK(mlen == 1 && meta[0] == (k ? 16 : 0) + 0xc0);
			CHECK_RC(gt_codec_block_load(x, meta, mlen), 0);
			check_split(e, x, v, n, k ? 1 : 3);
			gt_codec_free(e);
			gt_codec_free(x);
		}
	}
	free(v);
	free(tb);
}

/*
 * Split chunks: every truncation fails, a bad header is refused
 * (a part's count over its values: corrupt; code lengths past the
 * end: truncated), a block under 8192 values keeps one stream.
 */
static void test_split_corrupt(void)
{
	const size_t n = 8192;
	uint32_t *v = malloc(4 * n);
	struct gt_codec_ctx *e = mk(GT_DT_F32, "", NULL, 0);
	struct gt_codec_ctx *x = mk(GT_DT_F32, "", NULL, 0);
	const size_t bound = gt_codec_bound(e, n);
	unsigned char *dst = malloc(bound), meta[GT_CODEC_META_MAX];
	uint32_t *back = malloc(4 * n);
	size_t len, mlen;
	unsigned h;

	fill(v, GT_DT_F32, n, 8);
	all_cuts(e, x, v, n);
	CHECK_RC(gt_codec_block_begin(e, v, n, meta, sizeof(meta), &mlen), 0);
	CHECK(meta[0] == 0xc0);
	CHECK_RC(gt_codec_block_load(x, meta, mlen), 0);
	CHECK_RC(gt_codec_encode(e, v, n, dst, bound, &len), 0);
	/* the first count (2 bytes) raised to 2049 > 2048 */
	CHECK(dst[1] < 0x80);
	h = dst[1];
	dst[0] = 0x81;
	dst[1] = 0x10;
	CHECK_RC(gt_codec_decode(x, dst, len, back, n), GT_ERR(CORRUPT));
	dst[0] = 0x80; /* 2048 is fine for the count, wrong for the data */
	CHECK(gt_codec_decode(x, dst, len, back, n) < 0);
	dst[1] = (unsigned char)h;
	CHECK_RC(gt_codec_encode(e, v, n, dst, bound, &len), 0);
	/* code length of part 0 past the end */
	{
		const unsigned char *p = dst;
		uint64_t mc;

		for (unsigned j = 0; j < 4; j++)
			CHECK_RC(gt_varint_get(&p, dst + len, &mc), 0);
		dst[p - dst + 3] = 0x7f;
		CHECK_RC(gt_codec_decode(x, dst, len, back, n), GT_ERR(TRUNCATED));
	}
	/* 8191 values: the layout of one stream */
	CHECK_RC(gt_codec_block_begin(e, v, n - 1, meta, sizeof(meta), &mlen), 0);
	CHECK(meta[0] == 0);
	gt_codec_free(e);
	gt_codec_free(x);
	free(v);
	free(dst);
	free(back);
}

/* The bytes of the block at @src (meta, then chunks of 2^16 values) at
 * @out, each chunk decoded by @dec and compared; the first meta byte in
 * *@mode.  Returns their number. */
static size_t block_bytes(struct gt_codec_ctx *enc, struct gt_codec_ctx *dec,
			  const uint32_t *src, size_t n, unsigned char *out,
			  unsigned *mode)
{
	const size_t cv = 65536, bound = gt_codec_bound(enc, cv);
	uint32_t *back = malloc(4 * cv);
	size_t mlen = 0, total, len;

	CHECK_RC(gt_codec_block_begin(enc, src, n, out, GT_CODEC_META_MAX, &mlen), 0);
	CHECK_RC(gt_codec_block_load(enc, out, mlen), 0);
	CHECK_RC(gt_codec_block_load(dec, out, mlen), 0);
	*mode = out[0];
	total = mlen;
	for (size_t q = 0; q < n; q += cv) {
		const size_t m = n - q < cv ? n - q : cv;

		CHECK_RC(gt_codec_encode(enc, src + q, m, out + total, bound, &len), 0);
		CHECK_RC(gt_codec_decode(dec, out + total, len, back, m), 0);
		CHECK(!memcmp(back, src + q, 4 * m));
		total += len;
	}
	free(back);
	return total;
}

/* Every isa (gt_isa.h) the CPU runs writes the bytes of the portable
 * loops, split chunks and zero-structure blocks included, and decodes
 * them. */
static void test_split_isa(void)
{
	const size_t n = 3 * 65536 + 7, R = 1000;
	uint32_t *v = malloc(4 * n);
	unsigned char *ref = NULL;
	size_t reflen = 0;

	for (unsigned z = 0; z < 2; z++) {
		fill(v, GT_DT_F32, n, 8);
		if (z)
			fill_rows(v, GT_DT_F32, n / R, R, 30, 20, 0);
		for (int isa = 0; isa <= GT_ISA_LAST; isa++) {
			struct gt_codec_ctx *e = mk_rows(GT_DT_F32, z ? R : 0);
			struct gt_codec_ctx *x = mk_rows(GT_DT_F32, z ? R : 0);
			unsigned char *out = malloc(2 * 4 * n + GT_CODEC_META_MAX);
			size_t len;
			unsigned mode;

			if (!gt_isa_usable((enum gt_isa)isa)) {
				gt_codec_free(e);
				gt_codec_free(x);
				free(out);
				continue;
			}
			gt_codec_set_isa(e, (enum gt_isa)isa);
			gt_codec_set_isa(x, (enum gt_isa)isa);
			len = block_bytes(e, x, v, z ? n / R * R : n, out, &mode);
			CHECK(z ? mode == 0xff : mode == 0xc0);
			CHECK_SAME_BYTES(ref, reflen, out, len);
			gt_codec_free(e);
			gt_codec_free(x);
		}
		free(ref);
		ref = NULL;
	}
	free(v);
}

/* The meta of the @bn f32 values at @bv and the chunk of the @n at @v,
 * with @isa, by a context made with @opts (and the static table @tb of
 * @tlen bytes if @tlen), into *@out (malloc'ed; its length returned);
 * the encode returns @want.  *@out is NULL where @isa cannot run here. */
static size_t isa_chunk(int isa, const char *opts, const unsigned char *tb, size_t tlen,
			const uint32_t *bv, size_t bn, const uint32_t *v, size_t n, int want,
			unsigned char **out)
{
	struct gt_codec_ctx *e;
	size_t mlen = 0, len = 0, cap;

	*out = NULL;
	if (!gt_isa_usable((enum gt_isa)isa))
		return 0;
	e = mk(GT_DT_F32, opts, tlen ? tb : NULL, tlen);
	gt_codec_set_isa(e, (enum gt_isa)isa);
	cap = GT_CODEC_META_MAX + gt_codec_bound(e, n);
	*out = malloc(cap);
	CHECK_RC(gt_codec_block_begin(e, bv, bn, *out, GT_CODEC_META_MAX, &mlen), 0);
	CHECK_RC(gt_codec_encode(e, v, n, *out + mlen, cap - mlen, &len), want);
	gt_codec_free(e);
	return mlen + len;
}

/*
 * Plain f32 chunks (fewer than 8192 values: from HX_VEC_MIN = 1024 on,
 * the vector kernel's own loop, then the scalar tail; under it the
 * scalar loop alone) have the bytes of the portable loops on every isa:
 * exponents out of the kernel's window, runs at every offset, -0.0 with
 * and without a word, a static table's escapes, codes of up to 15 bits.
 * A value without a code is refused on every isa.
 */
static void test_plain_isa(void)
{
	static const size_t ns[] = { 100, 1023, 1024, 1500, 4096, 8191 };
	static const int kinds[] = { 8, 4, 7, 2, 1, 8 };
	const char *opts[] = { "", "method=gcomp,maxlen=6", "method=pm,maxlen=15", "" };
	uint32_t *v = malloc(4 * 8191), *w = malloc(4 * 8191);
	unsigned char tb[GT_HUFF_SAVE_MAX], *out;
	size_t tlen;

	fill(w, GT_DT_F32, 2000, 8);
	tlen = static_table(w, 2000, 12, tb);
	for (unsigned t = 0; t < 4; t++) {
		for (size_t k = 0; k < sizeof(ns) / sizeof(ns[0]); k++) {
			for (unsigned kind = 0; kind < 6; kind++) {
				const size_t n = ns[k];
				unsigned char *ref = NULL;
				size_t reflen = 0, len;

				fill(v, GT_DT_F32, n, kinds[kind]);
				if (kind == 5) /* runs of 7 to 40 at every offset */
					for (size_t j = k; j + 40 < n; j += 61)
						memset(v + j, 0, 4 * (7 + j % 34));
				for (int isa = 0; isa <= GT_ISA_LAST; isa++) {
					len = isa_chunk(isa, opts[t], tb, t == 3 ? tlen : 0, v, n, v,
							n, 0, &out);
					if (out)
						CHECK_SAME_BYTES(ref, reflen, out, len);
				}
				free(ref);
			}
		}
	}
	/* a table of subnormals, and values it has no code for among the
	 * first (where the vector loop runs) */
	fill(w, GT_DT_F32, 4096, 2);
	memcpy(v, w, 4 * 4096);
	fill(v + 50, GT_DT_F32, 1, 6);
	for (int isa = 0; isa <= GT_ISA_LAST; isa++) {
		(void)isa_chunk(isa, "", NULL, 0, w, 4096, v, 4096, GT_ERR(INVAL), &out);
		free(out);
	}
	free(v);
	free(w);
}

/*
 * A chunk that is its whole block takes its carrier count from the
 * block's histogram.  Values changed after block_begin (which gt_codec.h
 * forbids) then give an error, one carrier more or one fewer, on every
 * isa, and never a write past the buffers (ASan watches).
 */
static void test_changed_values(void)
{
	const size_t n = 3000;
	uint32_t *v = malloc(4 * n);

	for (int isa = 0; isa <= GT_ISA_LAST; isa++) {
		for (int more = 0; more < 2; more++) {
			struct gt_codec_ctx *e;
			unsigned char *out;
			size_t mlen = 0, len = 0, cap, i = 0;

			if (!gt_isa_usable((enum gt_isa)isa))
				continue;
			e = mk(GT_DT_F32, "", NULL, 0);
			gt_codec_set_isa(e, (enum gt_isa)isa);
			cap = GT_CODEC_META_MAX + gt_codec_bound(e, n);
			out = malloc(cap);
			fill(v, GT_DT_F32, n, 8);
			CHECK_RC(gt_codec_block_begin(e, v, n, out, GT_CODEC_META_MAX, &mlen), 0);
			CHECK_RC(gt_codec_encode(e, v, n, out + mlen, cap - mlen, &len), 0);
			/* a +0.0 alone becomes a copy of a value with a word, or
			 * such a value becomes +0.0 */
			while (i + 2 < n && (v[i] || !v[i + 1] || v[i + 2] ||
					     (i && v[i - 1])))
				i++;
			CHECK(i + 2 < n);
			v[i] = more ? v[i + 1] : 0;
			if (!more)
				v[i + 1] = 0;
			CHECK_RC(gt_codec_encode(e, v, n, out + mlen, cap - mlen, &len),
				 GT_ERR(INVAL));
			free(out);
			gt_codec_free(e);
		}
	}
	free(v);
}

/* Decode @len bytes at @src (@n values) with @dec on every isa the CPU
 * runs: each gives the same verdict, and when it decodes, the same values
 * (into *@out, malloc'ed, NULL when none decodes).  Returns the verdict. */
static int decode_every_isa(struct gt_codec_ctx *dec, const unsigned char *src,
			    size_t len, size_t n, uint32_t **out)
{
	uint32_t *back = malloc(4 * n), *first = NULL;
	int verdict = 1, seen = 0;

	for (int isa = 0; isa <= GT_ISA_LAST; isa++) {
		int rc;

		if (!gt_isa_usable((enum gt_isa)isa))
			continue;
		gt_codec_set_isa(dec, (enum gt_isa)isa);
		rc = gt_codec_decode(dec, src, len, back, n) < 0 ? -1 : 0;
		if (seen)
			CHECK(rc == verdict);
		verdict = rc;
		seen = 1;
		if (rc == 0 && !first) {
			first = malloc(4 * n);
			memcpy(first, back, 4 * n);
		} else if (rc == 0) {
			CHECK(!memcmp(first, back, 4 * n));
		}
	}
	gt_codec_set_isa(dec, gt_isa_best());
	free(back);
	*out = first;
	return verdict;
}

/*
 * Split and plain f32 chunks decode to their values on every isa (AVX-512
 * walks the table and makes the values in two passes, the others in
 * one): tokens
 * the multi-symbol table does not hold (zero runs, codes longer than its
 * 9 bits, escapes) among the others, mantissa words of 3 bytes (k = 0)
 * and 1 byte (k = 16), chunks whose parts end inside and at the end of a
 * window.  From damaged chunks every isa gives the same verdict, and the
 * same values when it decodes.
 */
static void test_walk(void)
{
	/* 512 to 8191: one stream, walked alone (8- and 9-bit tables;
	 * 511, none: the single-token loop); every table width's lookups a
	 * refill: seven of 8 bits, six of 9, five of 10 (40000), four of 12
	 * (65536) */
	static const size_t sizes[] = { 511, 512, 1500, 2048, 3000, 4096, 5000, 8191, 8192,
					8192 + 4 * 2048, 20001, 40000, 65536 };
	const size_t nmax = 65536;
	uint32_t *v = malloc(4 * nmax), *got;

	for (unsigned k16 = 0; k16 < 2; k16++)
		for (unsigned z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			const size_t n = sizes[z];
			struct gt_codec_ctx *e = mk(GT_DT_F32, "", NULL, 0);
			struct gt_codec_ctx *x = mk(GT_DT_F32, "", NULL, 0);
			const size_t bound = gt_codec_bound(e, n);
			unsigned char *dst = malloc(bound), meta[GT_CODEC_META_MAX];
			size_t len, mlen;

			/* gradients with zero runs and rare exponents (long
			 * codes); a few exponents far off (escapes need a
			 * static table, runs and long codes do not) */
			fill(v, GT_DT_F32, n, 8);
			for (size_t i = 0; i < n; i++) {
				const uint64_t r = check_rand();

				if (r % 97 == 0)
					v[i] = (uint32_t)(r >> 32 & 0x807fffff) |
					       (uint32_t)(60 + r % 7 * 20) << 23;
				if (k16)
					v[i] &= 0xffff0000u;
			}
			CHECK_RC(gt_codec_block_begin(e, v, n, meta, sizeof(meta), &mlen), 0);
			CHECK(meta[0] == ((n >= 8192 ? 0xc0 : 0) | (k16 ? 16 : 0)));
			CHECK_RC(gt_codec_block_load(e, meta, mlen), 0);
			CHECK_RC(gt_codec_block_load(x, meta, mlen), 0);
			CHECK_RC(gt_codec_encode(e, v, n, dst, bound, &len), 0);
			CHECK(decode_every_isa(x, dst, len, n, &got) == 0);
			CHECK(got && !memcmp(got, v, 4 * n));
			free(got);
			for (int t = 0; t < 48; t++) {
				const size_t at = check_rand() % len;
				const unsigned char was = dst[at];

				dst[at] ^= (unsigned char)(1u << (check_rand() % 8));
				(void)decode_every_isa(x, dst, len, n, &got);
				free(got);
				dst[at] = was;
			}
			gt_codec_free(e);
			gt_codec_free(x);
			free(dst);
		}
	free(v);
}

static void test_options(void)
{
	const struct gt_codec_params p = { GT_DT_F32, "maxlen=16", NULL, 0, NULL, 0 };
	const struct gt_codec_params q = { GT_DT_F32, "method=x", NULL, 0, NULL, 0 };
	const unsigned char bad[] = { 1, 2, 12, 0, 0 };
	const struct gt_codec_params r = { GT_DT_F32, "", bad, sizeof(bad), NULL, 0 };
	struct gt_codec_ctx *c = NULL;
	struct gt_diag d;
	char buf[64];

	CHECK(gt_codec_new(gt_codec_find("huffexp"), &p, &c, &d) == GT_ERR(INVAL));
	CHECK(gt_codec_new(gt_codec_find("huffexp"), &q, &c, &d) == GT_ERR(INVAL));
	CHECK(gt_codec_new(gt_codec_find("huffexp"), &r, &c, &d) < 0);
	c = mk(GT_DT_F32, "method=pm", NULL, 0);
	gt_codec_canon(c, buf, sizeof(buf));
	CHECK(!strcmp(buf, "maxlen=12,method=pm"));
	gt_codec_free(c);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_roundtrips);
	RUN(test_static);
	RUN(test_cost_exact);
	RUN(test_f32_edges);
	RUN(test_f32_static_edges);
	RUN(test_f32_layout);
	RUN(test_mode);
	RUN(test_mode_widened);
	RUN(test_mode_edges);
	RUN(test_mode_corrupt);
	RUN(test_split_layout);
	RUN(test_split_corrupt);
	RUN(test_split_isa);
	RUN(test_plain_isa);
	RUN(test_changed_values);
	RUN(test_walk);
	RUN(test_options);
	RUN(test_zero_structure);
	RUN(test_zero_structure_misuse);
	return check_done("test_huffexp");
}
