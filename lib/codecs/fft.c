/* fft.c - FFT top-k sparsification, bitmap packing and rangeq (FFT paper §3.1-3.2) */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fftw3.h>

#include "../codec_impl.h"
#include "../gt_bitio.h"
#include "../gt_rangeq.h"
#include "../banned.h"

/*
 * A chunk of n values is one real signal: its n/2 + 1 complex
 * coefficients X_j come from FFTW's r2c (single precision).  The K
 * largest |X_j|, K = round((1 - drop) * (n/2 + 1)), are kept: a radix
 * select on the bit patterns of |X_j|^2 (three passes of 11, 11 and 10
 * bits: linear time, no sort) finds the K-th largest, and ties at that
 * value are kept in index order.  The chunk holds
 *
 *   varint  K
 *   bytes   the status bitmap of §3.2: bit j (LSB-first) set when X_j is
 *           kept, ceil((n/2 + 1) / 8) bytes, zero-padded
 *   bytes   the GT_RANGEQ_HDR bytes of the rangeq parameters
 *   bytes   the dense vector: Re, Im of each kept X_j in index order (the
 *           prefix sum of the bitmap is each one's place), 2K rangeq
 *           codes of bits=N bits, zero-padded
 *
 * Decoding puts the dequantized coefficients back at their places, zero
 * elsewhere, and takes the inverse (c2r, / n).  The chunk is the FFT: its
 * length (--chunk-size, 64K values by default) sets the frequency
 * resolution and what "largest share" is taken over (see the man page
 * for measured errors).  NaN and ±Inf inputs are set to 0 before the
 * transform (one of them would spread to every coefficient); -0 and
 * subnormals are ordinary values (the output is a sum of sines and has
 * no exact zeros or signs to keep).  f32 only.
 */

#define FFT_PLANS 4

struct fft_plan {
	size_t n;            /* 0: empty slot */
	float *re;           /* n reals */
	fftwf_complex *co;   /* n/2 + 1 coefficients */
	fftwf_plan fwd, inv;
	unsigned long used;
};

struct fft_ctx {
	struct gt_codec_base base;
	double drop;
	unsigned bits;
	struct fft_plan plan[FFT_PLANS]; /* per length, least recently used goes */
	unsigned long tick;
	uint32_t *key;       /* |X_j|^2 bit patterns */
	float *dense;        /* 2K kept values */
	size_t cap;          /* coefficients key and dense hold */
};

/*
 * FFTW's planner (and plan destruction) shares global state and is not
 * thread-safe; fftwf_execute is.  Contexts live one per thread, so the
 * planning they do is serialized here: this lock is lib/'s only global
 * state, and it guards nothing but FFTW's planner.  FFTW_ESTIMATE keeps
 * planning short and its plans independent of timing (reproducible).
 */
static pthread_mutex_t fft_planner_lock = PTHREAD_MUTEX_INITIALIZER;

static struct fft_ctx *fx(struct gt_codec_ctx *ctx)
{
	return (struct fft_ctx *)(void *)ctx;
}

static void plan_release(struct fft_plan *p)
{
	if (!p->n)
		return;
	pthread_mutex_lock(&fft_planner_lock);
	if (p->fwd)
		fftwf_destroy_plan(p->fwd);
	if (p->inv)
		fftwf_destroy_plan(p->inv);
	pthread_mutex_unlock(&fft_planner_lock);
	fftwf_free(p->re);
	fftwf_free(p->co);
	memset(p, 0, sizeof(*p));
}

/* The plans of length @n: cached, or made in the least recently used slot. */
static int plan_get(struct fft_ctx *c, size_t n, struct fft_plan **ret)
{
	struct fft_plan *p = &c->plan[0];

	for (int i = 0; i < FFT_PLANS; i++) {
		if (c->plan[i].n == n) {
			p = &c->plan[i];
			goto found;
		}
		if (c->plan[i].used < p->used)
			p = &c->plan[i];
	}
	if (n > 0x7fffffff)
		return GT_ERR(OVERFLOW);
	plan_release(p);
	p->re = fftwf_alloc_real(n);
	p->co = fftwf_alloc_complex(n / 2 + 1);
	if (p->re && p->co) {
		pthread_mutex_lock(&fft_planner_lock);
		p->fwd = fftwf_plan_dft_r2c_1d((int)n, p->re, p->co, FFTW_ESTIMATE);
		p->inv = fftwf_plan_dft_c2r_1d((int)n, p->co, p->re, FFTW_ESTIMATE);
		pthread_mutex_unlock(&fft_planner_lock);
	}
	p->n = n;
	if (!p->fwd || !p->inv) {
		plan_release(p);
		return GT_ERR(NOMEM);
	}
found:
	p->used = ++c->tick;
	*ret = p;
	return 0;
}

static int fft_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		   size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	double drop = 0.85;
	long bits = 10;
	struct fft_ctx *c;

	if (p->dtype != GT_DT_F32)
		return gt_diag_set(d, GT_ERR(TYPE), "codec fft: %s not supported (f32 only)",
				   gt_dtype_name(p->dtype));
	for (size_t i = 0; i < nkv; i++) {
		if (!strcmp(kv[i].key, "drop"))
			GT_TRY(gt_kv_double(&kv[i], "fft", 0, 1, &drop, d));
		else if (!strcmp(kv[i].key, "bits"))
			GT_TRY(gt_kv_int(&kv[i], "fft", GT_RANGEQ_BITS_MIN, GT_RANGEQ_BITS_MAX,
					 &bits, d));
		else
			return gt_kv_unknown(&kv[i], "fft", d);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->drop = drop;
	c->bits = (unsigned)bits;
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void fft_free(struct gt_codec_ctx *ctx)
{
	struct fft_ctx *c = fx(ctx);

	if (!c)
		return;
	for (int i = 0; i < FFT_PLANS; i++)
		plan_release(&c->plan[i]);
	free(c->key);
	free(c->dense);
	free(c);
}

static size_t fft_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct fft_ctx *c = (const struct fft_ctx *)(const void *)ctx;

	return (size_t)snprintf(buf, cap, "drop=%.17g,bits=%u", c->drop, c->bits);
}

/* varint + bitmap + rangeq header + every coefficient coded */
static size_t fft_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct fft_ctx *c = (const struct fft_ctx *)(const void *)ctx;
	const size_t nc = n / 2 + 1;

	return GT_VARINT_MAX + (nc + 7) / 8 + GT_RANGEQ_HDR + (2 * nc * c->bits + 7) / 8;
}

/* Scratch for @nc coefficients. */
static int reserve(struct fft_ctx *c, size_t nc)
{
	uint32_t *k;
	float *d;

	if (nc <= c->cap)
		return 0;
	k = realloc(c->key, nc * sizeof(*k));
	if (!k)
		return GT_ERR(NOMEM);
	c->key = k;
	d = realloc(c->dense, 2 * nc * sizeof(*d));
	if (!d)
		return GT_ERR(NOMEM);
	c->dense = d;
	c->cap = nc;
	return 0;
}

/*
 * The K-th largest of @key[0..nc) (1 <= K <= nc), by radix select, and
 * in *@ties_ret how many keys equal to it are among the K largest.
 */
static uint32_t select_kth(const uint32_t *key, size_t nc, size_t K, size_t *ties_ret)
{
	static const unsigned shift[3] = { 21, 10, 0 };
	uint32_t prefix = 0, pmask = 0;
	size_t need = K;

	for (int pass = 0; pass < 3; pass++) {
		const unsigned sh = shift[pass];
		const uint32_t bins = pass == 2 ? 1024 : 2048;
		size_t hist[2048] = { 0 };
		uint32_t b = bins;

		for (size_t i = 0; i < nc; i++)
			if ((key[i] & pmask) == prefix)
				hist[(key[i] >> sh) & (bins - 1)]++;
		/* from the top bin down until the K-th largest is inside */
		while (b-- > 0 && hist[b] < need)
			need -= hist[b];
		prefix |= b << sh;
		pmask |= (bins - 1) << sh;
	}
	*ties_ret = need;
	return prefix;
}


/* The status bitmap at @bm and the dense kept coefficients in c->dense;
 * returns K. */
static size_t sparsify(struct fft_ctx *c, const struct fft_plan *p, size_t K,
		       unsigned char *bm)
{
	const size_t nc = p->n / 2 + 1;
	size_t ties = 0, m = 0;
	uint32_t T = UINT32_MAX;

	memset(bm, 0, (nc + 7) / 8);
	for (size_t j = 0; j < nc; j++) {
		const float re = p->co[j][0], im = p->co[j][1];

		c->key[j] = gt_f32_bits(re * re + im * im);
	}
	if (K)
		T = select_kth(c->key, nc, K, &ties);
	for (size_t j = 0; j < nc && m < K; j++) {
		const int keep = c->key[j] > T || (c->key[j] == T && ties > 0);

		if (!keep)
			continue;
		ties -= c->key[j] == T;
		bm[j >> 3] |= (unsigned char)(1u << (j & 7));
		c->dense[2 * m] = p->co[j][0];
		c->dense[2 * m + 1] = p->co[j][1];
		m++;
	}
	return m;
}

static int fft_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		      void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	struct fft_ctx *c = fx(ctx);
	const float *x = src;
	const size_t nc = n / 2 + 1;
	unsigned char *out = dst;
	struct fft_plan *p;
	struct gt_rangeq q;
	uint32_t pos, neg;
	size_t K, at, len;

	if (!n)
		return 0;
	K = (size_t)((1.0 - c->drop) * (double)nc + 0.5);
	K = K > nc ? nc : K;
	if (GT_VARINT_MAX + (nc + 7) / 8 + GT_RANGEQ_HDR + (2 * K * c->bits + 7) / 8 > dst_cap)
		return GT_ERR(DST_TOO_SMALL);
	GT_TRY(reserve(c, nc));
	GT_TRY(plan_get(c, n, &p));
	for (size_t i = 0; i < n; i++)
		p->re[i] = (gt_f32_bits(x[i]) & 0x7fffffffu) < 0x7f800000u ? x[i] : 0.0f;
	fftwf_execute(p->fwd);
	at = (size_t)gt_varint_put(out, K);
	K = sparsify(c, p, K, out + at);
	at += (nc + 7) / 8;
	gt_rangeq_range_isa(c->dense, 2 * K, c->base.isa, &pos, &neg);
	GT_TRY(gt_rangeq_fit_auto_isa(&q, c->bits, pos, neg, c->dense, 2 * K, c->base.isa));
	gt_rangeq_save(&q, out + at);
	at += GT_RANGEQ_HDR;
	GT_TRY(gt_rangeq_pack(&q, c->dense, 2 * K, out + at, dst_cap - at, &len));
	*dst_len_ret = at + len;
	return 0;
}

/* Check the bitmap of @nc bits: padding zero, K bits set. */
static int check_bitmap(const unsigned char *bm, size_t nc, size_t K)
{
	size_t set = 0;

	for (size_t b = 0; b < (nc + 7) / 8; b++)
		set += (size_t)__builtin_popcount(bm[b]);
	if ((nc & 7) && bm[nc >> 3] >> (nc & 7))
		return GT_ERR(CORRUPT);
	return set == K ? 0 : GT_ERR(CORRUPT);
}

/* The coefficients: the dense values at the bitmap's places, 0 elsewhere. */
static void scatter(const struct fft_ctx *c, struct fft_plan *p, const unsigned char *bm)
{
	const size_t nc = p->n / 2 + 1;
	size_t m = 0;

	memset(p->co, 0, nc * sizeof(*p->co));
	for (size_t b = 0; b < (nc + 7) / 8; b++) {
		unsigned bits = bm[b];

		while (bits) {
			const size_t j = 8 * b + (size_t)__builtin_ctz(bits);

			p->co[j][0] = c->dense[2 * m];
			p->co[j][1] = c->dense[2 * m + 1];
			m++;
			bits &= bits - 1;
		}
	}
}

static int fft_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		      void *dst, size_t n)
{
	struct fft_ctx *c = fx(ctx);
	const unsigned char *in = src, *end = in + src_len, *bm;
	const size_t nc = n / 2 + 1;
	float *out = dst;
	struct fft_plan *p;
	struct gt_rangeq q;
	uint64_t K;
	float scale;

	if (!n)
		return src_len ? GT_ERR(CORRUPT) : 0;
	GT_TRY(gt_varint_get(&in, end, &K));
	if (K > nc)
		return GT_ERR(CORRUPT);
	if ((size_t)(end - in) < (nc + 7) / 8 + GT_RANGEQ_HDR)
		return GT_ERR(TRUNCATED);
	bm = in;
	GT_TRY(check_bitmap(bm, nc, (size_t)K));
	in += (nc + 7) / 8;
	GT_TRY(gt_rangeq_load(&q, c->bits, in));
	q.isa = c->base.isa;
	in += GT_RANGEQ_HDR;
	GT_TRY(reserve(c, nc));
	GT_TRY(gt_rangeq_unpack(&q, in, (size_t)(end - in), c->dense, 2 * (size_t)K));
	GT_TRY(plan_get(c, n, &p));
	scatter(c, p, bm);
	fftwf_execute(p->inv);
	scale = (float)(1.0 / (double)n);
	for (size_t i = 0; i < n; i++)
		out[i] = p->re[i] * scale;
	return 0;
}

const struct gt_codec gt_codec_fft = {
	.name = "fft",
	.id = 7,
	.flags = 0,
	.help = "drop=X     share of the chunk's FFT coefficients dropped, 0-1 (default 0.85)\n"
		"bits=N     rangeq bits of each kept coefficient's Re and Im, 2-16 (default 10)\n",
	.ctx_new = fft_new,
	.ctx_free = fft_free,
	.canon = fft_canon,
	.bound = fft_bound,
	.encode = fft_encode,
	.decode = fft_decode,
};
