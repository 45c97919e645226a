/* gcomp.c - GComp: Huffman-coded exponents, multi-level truncated mantissas */

/* δ must round as gt_optim_delta() rounds: no contraction (as there);
 * no errno from sqrt, so that its loops vectorize (the value is the same) */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off", "no-math-errno", "vect-cost-model=dynamic")
#endif

#include <math.h>
#include <stdio.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "../codec_impl.h"
#include "../gt_bitio.h"
#include "../gt_huff.h"
#include "../banned.h"

/*
 * The GComp paper's value coding (§4, §5, §6.1).  A value of E exponent
 * bits and M mantissa bits is coded as its exponent token (gt_huff.h, the
 * same tables, tokens, runs and escapes as huffexp), then, when the token
 * carries a mantissa, a 2-bit quantization level l and the mantissa word
 * (sign << M | man) >> levels[l] of W_l = 1 + M - levels[l] bits: the low
 * levels[l] mantissa bits are dropped and decode as zeros.
 *
 * A chunk of n values:
 *
 *   varint x4  c0..c3: carriers (values with a level and mantissa word)
 *              per level (LEB128, <= 10 B each); mc = c0 + c1 + c2 + c3;
 *              mode zero-prune writes c0 alone (c1..c3 are 0), so that
 *              its chunks are the size of huffexp's (less flushed subnormals)
 *   bytes      level stream, ceil(2 mc / 8) bytes: the level of each
 *              carrier, 2 bits, LSB-first (gt_bitio.h); absent in mode
 *              zero-prune, where every carrier is level 0 (c1..c3 = 0)
 *   bytes      mantissa stream, ceil(sum c_l W_l / 8) bytes: the words,
 *              in value order, LSB-first
 *   bytes      code stream, to the end of the chunk: the tokens as in
 *              huffexp (code; raw E bits after ESC; Elias gamma after RUN)
 *
 * Each stream is zero-padded to a byte.  Every exponent symbol (field 0
 * included) and ESC carries a level and word; ZERO, NZERO and RUN carry
 * nothing, so the decoder needs no mode but zero-prune's.
 *
 * Zero pruning (§5.2): in modes full, zero-prune and exact, ±0.0 is its
 * ZERO/NZERO token alone (or a share of a RUN), as in huffexp; modes full
 * and zero-prune also flush every subnormal to a zero of its sign before
 * tokenizing, and block_begin() builds the table from the flushed values;
 * mode exact flushes one only when the step stays bit-identical.  Without
 * pruning (single-quant, multi-quant: the paper's ablation) ±0.0 is coded
 * as exponent 0 with a level (3: δ = Inf) and its truncated word, and a
 * subnormal is kept (multi-quant: level 0, exact; single-quant: level 3).
 * ±0.0 without a ZERO/NZERO code (a static table) goes the same way.
 *
 * Levels: full, multi-quant: the highest l with |δ| > 2^(levels[l] +
 * margin), δ from gt_optim_delta(), else 0 (NaN δ: 0).  single-quant:
 * 3.  zero-prune: 0.  exact: the highest l whose truncated g gives a
 * float32 θ_t (gt_optim_step) bit-identical to the one of g; one step on
 * the chunk for g, then one per candidate level 3, 2, 1 (and one for
 * "pruned" when the chunk holds subnormals), each on the whole chunk.
 * Inf and NaN (exponent all ones) are always level 0.  bf16, f16, f64:
 * δ and the steps take the values converted to float32 (exact but for
 * f64).
 *
 * Stats: level0..level3 count carriers, pruned counts the values coded
 * by their exponent token alone: ±0.0 and flushed subnormals (n - mc).
 */

#define GC_VARINT_MAX 10
#define GC_SLICE 65536 /* values per scratch slice in block_begin */

enum gc_mode { GC_FULL, GC_SINGLE, GC_MULTI, GC_PRUNE, GC_EXACT };

static const char *const mode_names[] = { "full", "single-quant", "multi-quant",
					  "zero-prune", "exact" };
static const char *const method_names[] = { "gcomp", "pm", "best" };

struct gc_ctx {
	struct gt_codec_base base;
	enum gt_dtype dt;
	unsigned eb, mb, width;
	unsigned maxlen;
	enum gt_huff_method method;
	enum gc_mode mode;
	unsigned lev[4];
	long margin;
	double thr[4]; /* 2^(lev[l] + margin) */
	const struct gt_optim *optim; /* NULL: encode in an aux mode fails */
	struct gt_optim optim_copy;
	int fixed, ready, runs, dec_ready;
	struct gt_huff_table table;
	struct gt_huff_hist hist;
	/* per symbol: code bits | nbits << 32 | mant << 40 | no code << 41 */
	uint64_t enc[GT_HUFF_NSYM_MAX];
	uint16_t lut[GT_HUFF_LUT_MAX];
	/* f32 decode (prepare_f32) */
	unsigned mbits, wsh[4];
	uint64_t wmask[4], mlut[1u << 12] /* GC_MBITS */, dsym[GT_HUFF_NZERO(8) + 1], ltab[256];
	/* encode scratch for cap values, grown outside the loops */
	size_t cap;
	unsigned char *tv; /* the values as coded (subnormals flushed) */
	uint8_t *lv;       /* their levels */
	float *gf, *cand, *ref, *out;
	double *delta;
};

static struct gc_ctx *gc(struct gt_codec_ctx *ctx)
{
	return (struct gc_ctx *)(void *)ctx;
}

static const struct gc_ctx *gcc(const struct gt_codec_ctx *ctx)
{
	return (const struct gc_ctx *)(const void *)ctx;
}

/* ---- options ---------------------------------------------------------- */

static void default_levels(enum gt_dtype dt, unsigned *lev)
{
	static const unsigned f32[4] = { 0, 6, 12, 18 }, bf16[4] = { 0, 2, 4, 6 };
	static const unsigned f16[4] = { 0, 3, 5, 8 }, f64[4] = { 0, 16, 32, 47 };
	const unsigned *s = f32;

	switch (dt) {
	case GT_DT_BF16: s = bf16; break;
	case GT_DT_F16: s = f16; break;
	case GT_DT_F64: s = f64; break;
	case GT_DT_F32:
	case GT_DT_NONE: break;
	}
	memcpy(lev, s, 4 * sizeof(*lev));
}

/* "a,b,c,d": four increasing counts <= M. */
static int parse_levels(const char *val, unsigned mb, unsigned *lev,
			struct gt_diag *d)
{
	const char *p = val;

	for (int i = 0; i < 4; i++) {
		char *end;
		long v;

		if (*p < '0' || *p > '9')
			goto bad;
		v = strtol(p, &end, 10);
		if (v < 0 || v > (long)mb || (i && (unsigned)v <= lev[i - 1]))
			goto bad;
		lev[i] = (unsigned)v;
		if (*end != (i < 3 ? ',' : '\0'))
			goto bad;
		p = end + 1;
	}
	return 0;
bad:
	return gt_diag_set(d, GT_ERR(INVAL),
			   "codec gcomp: invalid levels '%s': expected four increasing bit counts 0-%u",
			   val, mb);
}

static int parse_name(const struct gt_kv *kv, const char *const *names, int n,
		      const char *expect, int *ret, struct gt_diag *d)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(kv->val, names[i])) {
			*ret = i;
			return 0;
		}
	}
	return gt_diag_set(d, GT_ERR(INVAL), "codec gcomp: invalid %s '%s': expected %s",
			   kv->key, kv->val, expect);
}

static int parse_opts(struct gc_ctx *c, const struct gt_kv *kv, size_t nkv,
		      struct gt_diag *d)
{
	long maxlen = GT_HUFF_MAXLEN_DEFAULT, margin = 0;
	int method = GT_HUFF_BEST, mode = GC_FULL;

	for (size_t i = 0; i < nkv; i++) {
		if (!strcmp(kv[i].key, "maxlen"))
			GT_TRY(gt_kv_int(&kv[i], "gcomp", GT_HUFF_MAXLEN_MIN,
					 GT_HUFF_MAXLEN_MAX, &maxlen, d));
		else if (!strcmp(kv[i].key, "method"))
			GT_TRY(parse_name(&kv[i], method_names, 3, "best, gcomp or pm",
					  &method, d));
		else if (!strcmp(kv[i].key, "mode"))
			GT_TRY(parse_name(&kv[i], mode_names, 5,
					  "full, single-quant, multi-quant, zero-prune or exact",
					  &mode, d));
		else if (!strcmp(kv[i].key, "margin"))
			GT_TRY(gt_kv_int(&kv[i], "gcomp", -64, 64, &margin, d));
		else if (!strcmp(kv[i].key, "levels"))
			GT_TRY(parse_levels(kv[i].val, c->mb, c->lev, d));
		else
			return gt_kv_unknown(&kv[i], "gcomp", d);
	}
	c->maxlen = (unsigned)maxlen;
	c->method = (enum gt_huff_method)method;
	c->mode = (enum gc_mode)mode;
	c->margin = margin;
	for (int l = 0; l < 4; l++)
		c->thr[l] = ldexp(1.0, (int)c->lev[l] + (int)margin);
	return 0;
}

/* ---- tables ----------------------------------------------------------- */

static int prepare(struct gc_ctx *c)
{
	struct gt_huff_sym r;

	if (c->table.dtype != c->dt)
		return GT_ERR(CORRUPT);
	for (unsigned s = 0; s < c->table.nsyms; s++) {
		c->enc[s] = UINT64_C(1) << 41;
		if (s != GT_HUFF_ESC(c->eb) && !gt_huff_resolve(&c->table, s, &r))
			c->enc[s] = r.bits | (uint64_t)r.nbits << 32 |
				    (uint64_t)r.mant << 40;
	}
	c->runs = gt_huff_runs_used(&c->table);
	c->dec_ready = 0;
	c->ready = 1;
	return 0;
}

static int gc_new(const struct gt_codec_params *p, const struct gt_kv *kv,
		  size_t nkv, struct gt_codec_ctx **ctx_ret, struct gt_diag *d)
{
	struct gc_ctx *c;
	int rc;

	c = calloc(1, sizeof(*c));
	if (!c)
		return GT_ERR(NOMEM);
	c->dt = p->dtype;
	c->eb = gt_dtype_exp_bits(p->dtype);
	c->mb = gt_dtype_man_bits(p->dtype);
	c->width = gt_dtype_size(p->dtype);
	default_levels(p->dtype, c->lev);
	rc = parse_opts(c, kv, nkv, d);
	if (rc == 0 && p->optim) {
		rc = gt_optim_check(p->optim, "codec gcomp", d);
		c->optim_copy = *p->optim;
		c->optim = &c->optim_copy;
	}
	if (rc == 0 && p->table) {
		c->fixed = 1;
		rc = gt_huff_load(&c->table, p->table, p->table_len, GT_HUFF_STATIC);
		if (rc == 0)
			rc = prepare(c);
		if (rc < 0)
			gt_diag_set(d, rc, "codec gcomp: bad static table for %s",
				    gt_dtype_name(p->dtype));
	}
	if (rc < 0) {
		free(c);
		return rc;
	}
	*ctx_ret = (struct gt_codec_ctx *)(void *)c;
	return 0;
}

static void scratch_free(struct gc_ctx *c)
{
	free(c->tv);
	free(c->lv);
	free(c->gf);
	free(c->cand);
	free(c->ref);
	free(c->out);
	free(c->delta);
	c->tv = NULL;
	c->lv = NULL;
	c->gf = c->cand = c->ref = c->out = NULL;
	c->delta = NULL;
	c->cap = 0;
}

static void gc_free(struct gt_codec_ctx *ctx)
{
	if (ctx)
		scratch_free(gc(ctx));
	free(ctx);
}

/* Scratch for @n values (once per larger chunk, never in a loop). */
static int scratch(struct gc_ctx *c, size_t n)
{
	if (n <= c->cap)
		return 0;
	if (n > SIZE_MAX / sizeof(double))
		return GT_ERR(OVERFLOW);
	scratch_free(c);
	c->tv = malloc(n * c->width);
	c->lv = malloc(n);
	c->gf = malloc(n * sizeof(float));
	c->cand = malloc(n * sizeof(float));
	c->ref = malloc(n * sizeof(float));
	c->out = malloc(n * sizeof(float));
	c->delta = malloc(n * sizeof(double));
	if (!c->tv || !c->lv || !c->gf || !c->cand || !c->ref || !c->out || !c->delta) {
		scratch_free(c);
		return GT_ERR(NOMEM);
	}
	c->cap = n;
	return 0;
}

static size_t gc_canon(const struct gt_codec_ctx *ctx, char *buf, size_t cap)
{
	const struct gc_ctx *c = gcc(ctx);

	return (size_t)snprintf(buf, cap, "levels=%u,%u,%u,%u,margin=%ld,mode=%s,maxlen=%u,method=%s",
				c->lev[0], c->lev[1], c->lev[2], c->lev[3], c->margin,
				mode_names[c->mode], c->maxlen, method_names[c->method]);
}

/*
 * Worst case: four varints, a level for every value, every value a
 * carrier of the widest word (1 + M bits) and escaped with the longest
 * code (GT_HUFF_MAXLEN_MAX + E bits; a RUN costs at most 2 bits a value),
 * each stream padded to a byte.
 */
static size_t gc_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct gc_ctx *c = gcc(ctx);

	if (n > SIZE_MAX / 128)
		return 0;
	return 4 * GC_VARINT_MAX + (2 * n + 7) / 8 + (n * (1 + c->mb) + 7) / 8 +
	       (n * (GT_HUFF_MAXLEN_MAX + c->eb) + 7) / 8;
}

/* Pruning in this mode flushes every subnormal (no context needed). */
static int prunes_all(const struct gc_ctx *c)
{
	return c->mode == GC_FULL || c->mode == GC_PRUNE;
}

/* @u with a zero exponent field and a non-zero mantissa flushed to ±0. */
static inline uint64_t flush_sub(uint64_t u, unsigned eb, unsigned mb)
{
	const uint64_t emask = ((UINT64_C(1) << eb) - 1) << mb;

	return (u & emask) ? u : u & ~((UINT64_C(1) << (eb + mb)) - 1);
}

/* @n values of @src into c->tv with every subnormal flushed. */
static void flush_all(struct gc_ctx *c, const void *src, size_t n)
{
	if (c->dt == GT_DT_F32) {
		/* locals: stores through char pointers would reload c's fields */
		const unsigned char *s = src;
		unsigned char *const tv = c->tv;

		for (size_t i = 0; i < n; i++) {
			uint32_t u;

			memcpy(&u, s + 4 * i, 4);
			u = (u & 0x7f800000u) ? u : u & 0x80000000u;
			memcpy(tv + 4 * i, &u, 4);
		}
		return;
	}
	for (size_t i = 0; i < n; i++)
		gt_fp_store(c->tv, c->dt, i,
			    flush_sub(gt_fp_load(src, c->dt, i), c->eb, c->mb));
}

static int gc_block_begin(struct gt_codec_ctx *ctx, const void *src, size_t n,
			  void *meta, size_t meta_cap, size_t *meta_len_ret)
{
	struct gc_ctx *c = gc(ctx);

	*meta_len_ret = 0;
	if (c->fixed)
		return 0;
	gt_huff_hist_init(&c->hist, c->dt);
	if (prunes_all(c)) {
		/* the table of the flushed values, a slice at a time (a run
		 * is counted split where a slice ends: weights only) */
		GT_TRY(scratch(c, n < GC_SLICE ? n : GC_SLICE));
		for (size_t i = 0; i < n; i += GC_SLICE) {
			const size_t k = n - i < GC_SLICE ? n - i : GC_SLICE;

			flush_all(c, (const unsigned char *)src + i * c->width, k);
			gt_huff_hist(&c->hist, c->tv, k);
		}
	} else if (c->mode == GC_EXACT) {
		gt_huff_hist(&c->hist, src, n);
	} else {
		/* no pruning: ±0.0 is exponent 0 with a word, never a token */
		for (size_t i = 0; i < n; i++)
			c->hist.count[gt_fp_exp(gt_fp_load(src, c->dt, i), c->dt)]++;
		c->hist.n += n;
	}
	GT_TRY(gt_huff_build(&c->table, &c->hist, c->maxlen, c->method, 0));
	GT_TRY(gt_huff_save(&c->table, meta, meta_cap, meta_len_ret));
	return prepare(c);
}

static int gc_block_load(struct gt_codec_ctx *ctx, const void *meta,
			 size_t meta_len)
{
	struct gc_ctx *c = gc(ctx);

	if (c->fixed)
		return meta_len ? GT_ERR(CORRUPT) : 0;
	c->ready = 0;
	GT_TRY(gt_huff_load(&c->table, meta, meta_len, 0));
	return prepare(c);
}

/* ---- levels ----------------------------------------------------------- */

/* Value @u as float32 (exact except for f64). */
static inline float to_f32(uint64_t u, enum gt_dtype dt)
{
	switch (dt) {
	case GT_DT_F16: return gt_f16_to_f32((uint16_t)u);
	case GT_DT_BF16: return gt_bf16_to_f32((uint16_t)u);
	case GT_DT_F64: return (float)gt_f64_from_bits(u);
	case GT_DT_F32:
	case GT_DT_NONE: break;
	}
	return gt_f32_from_bits((uint32_t)u);
}

/* The chunk's gradients as float32: @src itself for f32. */
static const float *grads_f32(struct gc_ctx *c, const void *src, size_t n)
{
	if (c->dt == GT_DT_F32)
		return src;
	for (size_t i = 0; i < n; i++)
		c->gf[i] = to_f32(gt_fp_load(src, c->dt, i), c->dt);
	return c->gf;
}

/*
 * Levels by δ without gt_optim_delta() (f32 full and multi-quant), the
 * same levels for every value.  δ = N/D − Q, with N, D and Q = λθ/g
 * computed by the same operations in the same order as delta_one() in
 * gt_optim.c (constants hoisted: that changes no rounding), in double,
 * branch-free, a slice at a time.  NaN needs no test: every input feeds N
 * through arithmetic, so a NaN makes N (hence δ) NaN and every comparison
 * false (level 0, as gt_optim_delta's NaN δ gives).
 *
 * Without a Q term (AdamW, Nesterov, or λ = 0) no division is needed:
 * for a power of two T and doubles N, D (D finite, non-zero, |D| T
 * neither overflowing nor underflowing), fl(|N/D|) > T ⇔ |N/D| > T (1 +
 * 2^-53) (T is the rounding boundary's lower end, with an even
 * significand, so the tie rounds down) ⇔ |N| > |D| T (1 + 2^-53) ⇔
 * |N| > |D| T (a double above |D| T is at least its successor, |D| T +
 * ulp > |D| T (1 + 2^-53)).  |D| T is exact.  With λ = 0 the Q term is
 * ±0 for a finite θ (δ keeps its magnitude) and NaN for an infinite one:
 * N + (θ − θ) gives that NaN.  D = K g: K must lie in [2^-600, 2^600]
 * (g, a normal float, is within 2^±128; T within 2^±128), else the slow
 * path.  g = 0, subnormal, Inf or NaN: the level is fixed elsewhere.
 */
#define GC_DSLICE 512

struct gc_dplan {
	enum gt_optim_kind kind;
	int first, quot; /* momentum without buffer; Q term with λ != 0 */
	double K, lam, a1, a2, a3, a4, eps, bc1, bc2, t1, t2, t3;
};

static int dplan_init(struct gc_dplan *q, const struct gc_ctx *c,
		      const struct gt_codec_aux *aux)
{
	const struct gt_optim *o = c->optim;
	const double t = (double)o->t, eta = o->lr, lam = o->weight_decay;
	const double mu = o->momentum, b1 = o->beta1, b2 = o->beta2;
	const int ns = gt_optim_nstates(o->kind);
	double aK;

	memset(q, 0, sizeof(*q));
	q->kind = o->kind;
	q->lam = lam;
	q->eps = o->eps;
	q->bc1 = 1 - pow(b1, t);
	q->bc2 = 1 - pow(b2, t);
	q->t1 = c->thr[1];
	q->t2 = c->thr[2];
	q->t3 = c->thr[3];
	q->first = ns < 1 || !aux->state[0];
	q->quot = o->kind != GT_OPT_ADAMW && o->kind != GT_OPT_NESTEROV &&
		  (lam > 0 || lam < 0);
	switch (o->kind) {
	case GT_OPT_MOMENTUM:
		q->K = q->first ? eta : eta * (1 - o->dampening);
		q->a1 = eta * mu;
		break;
	case GT_OPT_NESTEROV:
		q->K = eta * (1 + mu);
		q->a1 = 1 - eta * lam * (1 + mu);
		q->a2 = eta * mu * mu;
		break;
	case GT_OPT_ADAGRAD:
		q->K = eta / (1 + (t - 1) * o->lr_decay); /* η̃, as dctx_init */
		break;
	case GT_OPT_RMSPROP:
		q->K = eta;
		q->a1 = o->alpha;
		q->a2 = 1 - o->alpha;
		break;
	case GT_OPT_ADAM:
	case GT_OPT_ADAMW:
		q->K = eta * (1 - b1);
		q->a1 = b2;
		q->a2 = 1 - b2;
		q->a3 = eta * b1;
		q->a4 = 1 - eta * lam;
		break;
	case GT_OPT_SGD:
		q->K = eta;
		break;
	case GT_OPT_NONE:
		return -1;
	}
	aK = fabs(q->K);
	return aK >= 0x1p-600 && aK <= 0x1p600 ? 0 : -1;
}

/* N of value i (see above); s0, s1 read as 0 when absent; @r: the
 * square root of what a first loop put into num[i] (vectorized apart:
 * sqrt() is a call the vectorizer cannot take). */
#define GC_N_LOOP(expr)                                                       \
	for (size_t i = 0; i < n; i++) {                                      \
		const double g = gv[i], th = pv[i], s0 = s0v[i], s1 = s1v[i]; \
		const double r = num[i];                                      \
		(void)g;                                                      \
		(void)th;                                                     \
		(void)s0;                                                     \
		(void)s1;                                                     \
		(void)r;                                                      \
		num[i] = (expr);                                              \
	}

/* num[i] = sqrt(num[i]), as sqrt() rounds (IEEE: correctly rounded). */
static void sqrt_all(double *restrict num, size_t n)
{
	size_t i = 0;

#if defined(__SSE2__)
	for (; i + 2 <= n; i += 2)
		_mm_storeu_pd(num + i, _mm_sqrt_pd(_mm_loadu_pd(num + i)));
#endif
	for (; i < n; i++)
		num[i] = sqrt(num[i]);
}

/* N for @n values into @num. */
static void delta_num(const struct gc_dplan *q, size_t n, const float *restrict gv,
		      const float *restrict pv, const float *restrict s0v,
		      const float *restrict s1v, double *restrict num)
{
	const double lam = q->lam, a1 = q->a1, a2 = q->a2, a3 = q->a3, a4 = q->a4;
	const double eps = q->eps, bc1 = q->bc1, bc2 = q->bc2;

	switch (q->kind) {
	case GT_OPT_MOMENTUM:
		if (q->first)
			GC_N_LOOP(th)
		else
			GC_N_LOOP(th - a1 * s0)
		return;
	case GT_OPT_NESTEROV:
		GC_N_LOOP(a1 * th - a2 * s0)
		return;
	case GT_OPT_ADAGRAD:
		GC_N_LOOP(s0 + (g + lam * th) * (g + lam * th))
		break;
	case GT_OPT_RMSPROP:
		GC_N_LOOP(a1 * s0 + a2 * (g + lam * th) * (g + lam * th))
		break;
	case GT_OPT_ADAM:
		GC_N_LOOP((a1 * s1 + a2 * (g + lam * th) * (g + lam * th)) / bc2)
		sqrt_all(num, n);
		GC_N_LOOP(th * (r + eps) * bc1 - a3 * s0)
		return;
	case GT_OPT_ADAMW:
		GC_N_LOOP((a1 * s1 + a2 * g * g) / bc2)
		sqrt_all(num, n);
		GC_N_LOOP(th * a4 * (r + eps) * bc1 - a3 * s0)
		return;
	case GT_OPT_SGD:
	case GT_OPT_NONE:
		GC_N_LOOP(th)
		return;
	}
	sqrt_all(num, n); /* AdaGrad, RMSProp */
	GC_N_LOOP(th * (r + eps))
}

typedef double gc_v2d __attribute__((vector_size(16)));
typedef int64_t gc_v2l __attribute__((vector_size(16)));

/* lv[i] = (a > b t1) + (a > b t2) + (a > b t3), two at a time (GCC and
 * clang vector extension: SSE2, NEON; the vectorizer does not take the
 * narrowing to bytes). */
static void compare_levels(const double *a, const double *b, size_t n, double t1,
			   double t2, double t3, uint8_t *restrict lv)
{
	size_t i = 0;

	for (; i + 2 <= n; i += 2) {
		gc_v2d va, vb;
		gc_v2l m;

		memcpy(&va, a + i, 16);
		memcpy(&vb, b + i, 16);
		m = (va > vb * t1) + (va > vb * t2) + (va > vb * t3);
		lv[i] = (uint8_t)-m[0];
		lv[i + 1] = (uint8_t)-m[1];
	}
	for (; i < n; i++)
		lv[i] = (uint8_t)((a[i] > b[i] * t1) + (a[i] > b[i] * t2) + (a[i] > b[i] * t3));
}

/* Levels by δ of @n <= GC_DSLICE values (level only: Inf/NaN/zero/
 * subnormal g are fixed by the caller). */
static void delta_levels(const struct gc_dplan *q, size_t n, const float *restrict gv,
			 const float *restrict pv, const float *restrict s0v,
			 const float *restrict s1v, uint8_t *restrict lv)
{
	double num[GC_DSLICE], den[GC_DSLICE];
	const double K = q->K, lam = q->lam, t1 = q->t1, t2 = q->t2, t3 = q->t3;
	const int qz = !q->quot && q->kind != GT_OPT_ADAMW && q->kind != GT_OPT_NESTEROV;

	delta_num(q, n, gv, pv, s0v, s1v, num);
	if (q->quot) {
		for (size_t i = 0; i < n; i++) {
			const double g = gv[i], th = pv[i];

			num[i] = fabs(num[i] / (K * g) - lam * th / g);
			den[i] = 1;
		}
	} else if (qz) {
		for (size_t i = 0; i < n; i++) {
			const double th = pv[i];

			/* θ − θ: the NaN of λθ/g for an infinite θ, λ = 0 */
			num[i] = fabs(num[i] + (th - th));
			den[i] = fabs(K * (double)gv[i]);
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			num[i] = fabs(num[i]);
			den[i] = fabs(K * (double)gv[i]);
		}
	}
	compare_levels(num, den, n, t1, t2, t3, lv);
}

/* f32 full and multi-quant: c->lv by delta_levels(), a slice at a time;
 * -1 when the optimizer's constants need the slow path. */
static int levels_f32(struct gc_ctx *c, const float *g, size_t n,
		      const struct gt_codec_aux *aux)
{
	static const float zeros[GC_DSLICE];
	const int ns = gt_optim_nstates(c->optim->kind);
	const float *const s0 = ns >= 1 ? aux->state[0] : NULL;
	const float *const s1 = ns >= 2 ? aux->state[1] : NULL;
	uint8_t *const lv = c->lv;
	struct gc_dplan q;

	if (dplan_init(&q, c, aux) < 0)
		return -1;
	for (size_t i = 0; i < n; i += GC_DSLICE) {
		const size_t k = n - i < GC_DSLICE ? n - i : GC_DSLICE;

		delta_levels(&q, k, g + i, aux->param + i, s0 ? s0 + i : zeros,
			     s1 ? s1 + i : zeros, lv + i);
		for (size_t j = i; j < i + k; j++) {
			const uint32_t x = ((gt_f32_bits(g[j]) >> 23) + 1) & 0xff;

			lv[j] = x <= 1 ? 0 : lv[j]; /* exponent 0 or 255 */
		}
	}
	return 0;
}

/* Full and multi-quant: levels by δ; Inf/NaN level 0. */
static int levels_delta(struct gc_ctx *c, const void *src, size_t n,
			const struct gt_codec_aux *aux)
{
	const float *g = grads_f32(c, src, n);
	const double t1 = c->thr[1], t2 = c->thr[2], t3 = c->thr[3];
	const uint64_t emax = (UINT64_C(1) << c->eb) - 1;
	const double *const delta = c->delta;
	uint8_t *const lv = c->lv;

	if (c->dt == GT_DT_F32 && levels_f32(c, src, n, aux) == 0)
		return 0;
	GT_TRY(gt_optim_delta(c->optim, n, g, aux->param, aux->state[0],
			      aux->state[1], c->delta));
	if (c->dt == GT_DT_F32) {
		for (size_t i = 0; i < n; i++) {
			const double a = fabs(delta[i]);
			const uint32_t x = gt_f32_bits(g[i]) >> 23 & 0xff;

			lv[i] = x == 0xff || x == 0 ? 0 :
				(uint8_t)((a > t1) + (a > t2) + (a > t3));
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const double a = fabs(delta[i]);
		const uint64_t x = gt_fp_load(src, c->dt, i) >> c->mb & emax;

		lv[i] = (uint8_t)((a > t1) + (a > t2) + (a > t3));
		if (x == emax || x == 0)
			lv[i] = 0; /* Inf/NaN; a subnormal kept exactly */
	}
	return 0;
}

/* @u with its low @k mantissa bits cleared. */
static inline uint64_t trunc_bits(uint64_t u, unsigned k)
{
	return u & ~((UINT64_C(1) << k) - 1);
}

/* Exact: one pass of candidates at level @l (-1: pruned) for the values
 * still undecided (lv == 0xff); those whose θ_t matches get it. */
static int exact_pass(struct gc_ctx *c, const void *src, size_t n, const float *g,
		      const struct gt_codec_aux *aux, int l)
{
	const uint64_t smask = UINT64_C(1) << (c->eb + c->mb);

	for (size_t i = 0; i < n; i++) {
		const uint64_t u = gt_fp_load(src, c->dt, i);

		c->cand[i] = g[i];
		if (c->lv[i] == 0xff)
			c->cand[i] = to_f32(l < 0 ? u & smask : trunc_bits(u, c->lev[l]), c->dt);
	}
	GT_TRY(gt_optim_step(c->optim, n, c->cand, aux->param, aux->state[0],
			     aux->state[1], c->out, NULL, NULL));
	for (size_t i = 0; i < n; i++) {
		if (c->lv[i] != 0xff || memcmp(&c->out[i], &c->ref[i], sizeof(float)))
			continue;
		if (l < 0) {
			/* pruned: a zero of the value's sign, coded without a word */
			gt_fp_store(c->tv, c->dt, i, gt_fp_load(src, c->dt, i) & smask);
			c->lv[i] = 3;
		} else {
			c->lv[i] = (uint8_t)l;
		}
	}
	return 0;
}

/* Exact: the highest level (or pruning) that keeps θ_t bit-identical. */
static int levels_exact(struct gc_ctx *c, const void *src, size_t n,
			const struct gt_codec_aux *aux)
{
	const float *g = grads_f32(c, src, n);
	const uint64_t emask = ((UINT64_C(1) << c->eb) - 1) << c->mb;
	const uint64_t mag = (UINT64_C(1) << (c->eb + c->mb)) - 1;
	size_t nsub = 0, undecided = 0;

	GT_TRY(gt_optim_step(c->optim, n, g, aux->param, aux->state[0],
			     aux->state[1], c->ref, NULL, NULL));
	for (size_t i = 0; i < n; i++) {
		const uint64_t u = gt_fp_load(src, c->dt, i);
		const uint64_t e = u & emask;

		c->lv[i] = 0xff;
		if (e == emask)
			c->lv[i] = 0;          /* Inf, NaN */
		else if (!(u & mag))
			c->lv[i] = 3;          /* ±0.0: nothing to truncate */
		nsub += !e && (u & mag);
		undecided += c->lv[i] == 0xff;
	}
	if (nsub)
		GT_TRY(exact_pass(c, src, n, g, aux, -1));
	for (int l = 3; l >= 1 && undecided; l--)
		GT_TRY(exact_pass(c, src, n, g, aux, l));
	for (size_t i = 0; i < n; i++)
		if (c->lv[i] == 0xff)
			c->lv[i] = 0;
	return 0;
}

/* c->tv and c->lv for the chunk, as the mode wants. */
static int choose(struct gc_ctx *c, const void *src, size_t n,
		  const struct gt_codec_aux *aux)
{
	const uint64_t emask = ((UINT64_C(1) << c->eb) - 1) << c->mb;

	if (prunes_all(c))
		flush_all(c, src, n);
	else
		memcpy(c->tv, src, n * c->width);
	switch (c->mode) {
	case GC_FULL:
	case GC_MULTI:
		return levels_delta(c, src, n, aux);
	case GC_EXACT:
		return levels_exact(c, src, n, aux);
	case GC_SINGLE: {
		uint8_t *const lv = c->lv;

		for (size_t i = 0; i < n; i++)
			lv[i] = (gt_fp_load(src, c->dt, i) & emask) == emask ? 0 : 3;
		return 0;
	}
	case GC_PRUNE:
		memset(c->lv, 0, n);
		return 0;
	}
	return GT_ERR(INVAL);
}

/* ---- encoding ----------------------------------------------------------- */

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

/* The token symbol of coded value @u (not a RUN); @zt: ±0.0 has its
 * ZERO/NZERO token (a pruning mode), else it is exponent 0. */
static inline unsigned sym_of(uint64_t u, unsigned eb, unsigned mb, int zt)
{
	const uint64_t mag = (UINT64_C(1) << (eb + mb)) - 1;

	return (u & mag) || !zt ? (unsigned)(u >> mb) & ((1u << eb) - 1)
				: (1u << eb) + (unsigned)(u >> (eb + mb) & 1);
}

/* Whether ±0.0 is pruned to its exponent token (all modes but the two
 * quantization-only ones of the paper's ablation). */
static int zero_tokens(const struct gc_ctx *c)
{
	return c->mode != GC_SINGLE && c->mode != GC_MULTI;
}

/* The f32 symbol of @u, branch-free (zeros are random in gradients):
 * ZERO/NZERO for ±0.0 when @zt, else the exponent field. */
static inline uint32_t sym32(uint32_t u, uint32_t zt)
{
	const uint32_t z = zt & (uint32_t)!(u << 1);

	return (u >> 23 & 0xff) | z << 8 | (z & u >> 31);
}

/* count_levels() for f32. */
static int count_f32(struct gc_ctx *c, size_t n, uint64_t *cnt)
{
	const uint8_t zl = c->mode == GC_PRUNE ? 0 : 3;
	const uint32_t zt = (uint32_t)zero_tokens(c);
	const unsigned char *const tv = c->tv;
	const uint64_t *const enc = c->enc;
	uint8_t *const lv = c->lv;
	uint64_t bad = 0;

	cnt[0] = cnt[1] = cnt[2] = cnt[3] = 0;
	for (size_t i0 = 0; i0 < n; i0 += 32768) {
		const size_t stop = n - i0 < 32768 ? n : i0 + 32768;
		/* 16-bit counts per level in one register: a count in memory
		 * would chain each value's add to the last one's store */
		uint64_t k = 0;

		for (size_t i = i0; i < stop; i++) {
			uint32_t u, lz;
			uint64_t e;
			unsigned l;

			memcpy(&u, tv + 4 * i, 4);
			lz = 0u - (uint32_t)!(u << 1);
			e = enc[sym32(u, zt)];
			bad |= e;
			l = (lv[i] & ~lz) | (zl & lz);
			lv[i] = (uint8_t)l;
			k += (e >> 40 & 1) << (16 * l);
		}
		for (int l = 0; l < 4; l++)
			cnt[l] += k >> (16 * l) & 0xffff;
	}
	return bad >> 41 ? GT_ERR(INVAL) : 0;
}

/* Carriers per level of the chunk in c->tv, c->lv; ±0.0 carriers (no
 * ZERO/NZERO code) take level 3, or 0 in zero-prune. */
static int count_levels(struct gc_ctx *c, size_t n, uint64_t *cnt)
{
	const uint64_t mag = (UINT64_C(1) << (c->eb + c->mb)) - 1;
	const uint8_t zl = c->mode == GC_PRUNE ? 0 : 3;
	const int zt = zero_tokens(c);

	cnt[0] = cnt[1] = cnt[2] = cnt[3] = 0;
	if (c->dt == GT_DT_F32)
		return count_f32(c, n, cnt);
	for (size_t i = 0; i < n; i++) {
		const uint64_t u = gt_fp_load(c->tv, c->dt, i);
		const uint64_t e = c->enc[sym_of(u, c->eb, c->mb, zt)];

		if (e >> 41)
			return GT_ERR(INVAL); /* no code and no ESC */
		if (!(u & mag))
			c->lv[i] = zl;
		cnt[c->lv[i]] += e >> 40 & 1;
	}
	return 0;
}

/* Number of +0.0 values of c->tv from @i on. */
static size_t zeros_from(const struct gc_ctx *c, size_t i, size_t n)
{
	size_t j = i;

	while (j < n && !gt_fp_load(c->tv, c->dt, j))
		j++;
	return j - i;
}

/* The RUN token of a run of @len values: its code and the gamma code. */
static void put_run(const struct gc_ctx *c, struct gt_bitw *w, uint64_t len)
{
	const uint64_t e = c->enc[GT_HUFF_RUN(c->eb)];
	const uint64_t v = len - GT_HUFF_RUN_MIN + 1;
	const unsigned k = 63 - (unsigned)__builtin_clzll(v);
	const uint64_t low = v & ((UINT64_C(1) << k) - 1);
	unsigned z = k;

	gt_bitw_put(w, (uint32_t)e, (unsigned)(e >> 32) & 0xff);
	gt_bitw_flush(w);
	while (z > 32) {
		gt_bitw_put(w, 0, 32);
		gt_bitw_flush(w);
		z -= 32;
	}
	gt_bitw_put(w, UINT64_C(1) << z, z + 1);
	gt_bitw_flush(w);
	gt_bitw_put(w, low & 0xffffffffu, k < 32 ? k : 32);
	gt_bitw_flush(w);
	if (k > 32) {
		gt_bitw_put(w, low >> 32, k - 32);
		gt_bitw_flush(w);
	}
}

struct gc_writers {
	struct gt_bitw lw, mw, cw;
};

/* The tokens of c->tv, c->lv that start before @stop, from value @i on
 * (any dtype: the reference loop, and the f32 path's runs and tail);
 * returns where the next token starts. */
static size_t enc_values(const struct gc_ctx *c, size_t i, size_t stop, size_t n,
			 struct gc_writers *w)
{
	const unsigned eb = c->eb, mb = c->mb;
	const uint64_t mmask = (UINT64_C(1) << mb) - 1;
	const int lstream = c->mode != GC_PRUNE, zt = zero_tokens(c);
	const int runs = c->runs && zt;

	while (i < stop) {
		const uint64_t u = gt_fp_load(c->tv, c->dt, i);
		uint64_t e;
		unsigned l;

		if (!u && runs) {
			const size_t len = zeros_from(c, i, n);

			if (len >= GT_HUFF_RUN_MIN) {
				put_run(c, &w->cw, len);
				i += len;
				continue;
			}
		}
		e = c->enc[sym_of(u, eb, mb, zt)];
		gt_bitw_put(&w->cw, (uint32_t)e, (unsigned)(e >> 32) & 0xff);
		gt_bitw_flush(&w->cw);
		if (e >> 40 & 1) {
			l = c->lv[i];
			if (lstream) {
				gt_bitw_put(&w->lw, l, 2);
				gt_bitw_flush(&w->lw);
			}
			gt_bitw_put(&w->mw, ((u >> (eb + mb)) << mb | (u & mmask)) >> c->lev[l],
				    1 + mb - c->lev[l]);
			gt_bitw_flush(&w->mw);
		}
		i++;
	}
	return i;
}

/* A writer in registers: put @len <= 56 bits and flush; 8 bytes of room. */
struct gc_fw {
	uint64_t acc;
	unsigned nb;
	unsigned char *ptr;
};

static inline void fw_put(struct gc_fw *w, uint64_t v, unsigned len)
{
	const unsigned nb = w->nb + len;
	const uint64_t acc = w->acc | v << w->nb;

	memcpy(w->ptr, &acc, 8);
	w->ptr += nb >> 3;
	w->acc = acc >> (nb & ~7u); /* nb <= 63 */
	w->nb = nb & 7;
}

static void fw_load(struct gc_fw *f, const struct gt_bitw *w)
{
	f->acc = w->acc;
	f->nb = w->nb;
	f->ptr = w->ptr;
}

static void fw_store(const struct gc_fw *f, struct gt_bitw *w)
{
	w->acc = f->acc;
	w->nb = f->nb;
	w->ptr = f->ptr;
}

/*
 * Four f32 values of c->tv at @tv with levels @lv, branch-free: the codes
 * in one put (two when over 56 bits), the levels of the carriers in one,
 * the words in two (a non-carrier's word has width 0).
 */
static inline __attribute__((always_inline)) void
enc_quad(const uint64_t *enc, const uint8_t *lv, const unsigned char *tv, uint32_t zt,
	 int lstream, const unsigned *sh, const unsigned *wd, struct gc_fw *cw,
	 struct gc_fw *mw, struct gc_fw *lw)
{
	uint64_t e[4], w[4], lb = 0;
	unsigned len[4], ww[4], ln = 0;

#if defined(__GNUC__)
#pragma GCC unroll 4
#endif
	for (unsigned k = 0; k < 4; k++) {
		uint32_t u;
		unsigned l, m;

		memcpy(&u, tv + 4 * k, 4);
		e[k] = enc[sym32(u, zt)];
		len[k] = (unsigned)(e[k] >> 32) & 0xff;
		m = (unsigned)(e[k] >> 40) & 1;
		l = lv[k];
		lb |= (uint64_t)(l * m) << ln;
		ln += 2 * m;
		ww[k] = wd[l] * m;
		w[k] = (((u >> 31) << 23 | (u & 0x7fffffu)) >> sh[l]) & (0u - m);
	}
	if (len[0] + len[1] + len[2] + len[3] <= 56) {
		fw_put(cw, (e[0] & 0xffffffff) | (e[1] & 0xffffffff) << len[0] |
				   (e[2] & 0xffffffff) << (len[0] + len[1]) |
				   (e[3] & 0xffffffff) << (len[0] + len[1] + len[2]),
		       len[0] + len[1] + len[2] + len[3]);
	} else {
		fw_put(cw, (e[0] & 0xffffffff) | (e[1] & 0xffffffff) << len[0], len[0] + len[1]);
		fw_put(cw, (e[2] & 0xffffffff) | (e[3] & 0xffffffff) << len[2], len[2] + len[3]);
	}
	if (lstream)
		fw_put(lw, lb, ln);
	fw_put(mw, w[0] | w[1] << ww[0], ww[0] + ww[1]);
	fw_put(mw, w[2] | w[3] << ww[2], ww[2] + ww[3]);
}

/*
 * The f32 hot loop, while every stream has 16 bytes of room and no run
 * may start within the next 8 values: codes, levels and words straight
 * from tables.  Returns where it stopped; the generic loop goes on.
 */
static size_t enc_f32(const struct gc_ctx *c, size_t i, size_t n,
		      struct gc_writers *w)
{
	const uint64_t *const enc = c->enc;
	const uint8_t *const lv = c->lv;
	const unsigned char *const tv = c->tv;
	const uint32_t zt = (uint32_t)zero_tokens(c);
	const int lstream = c->mode != GC_PRUNE, runs = c->runs && zt;
	unsigned sh[4], wd[4];
	struct gc_fw cw, mw, lw;

	for (int l = 0; l < 4; l++) {
		sh[l] = c->lev[l];
		wd[l] = 24 - c->lev[l];
	}
	fw_load(&cw, &w->cw);
	fw_load(&mw, &w->mw);
	fw_load(&lw, &w->lw);
	while (n - i >= 8 && w->cw.end - cw.ptr >= 16 && w->mw.end - mw.ptr >= 16 &&
	       w->lw.end - lw.ptr >= 16) {
		uint64_t a, b;

		/* a run starting at i..i+3 covers i+4..i+7 */
		memcpy(&a, tv + 4 * i + 16, 8);
		memcpy(&b, tv + 4 * i + 24, 8);
		if (runs && !(a | b))
			break;
		enc_quad(enc, lv + i, tv + 4 * i, zt, lstream, sh, wd, &cw, &mw, &lw);
		i += 4;
	}
	fw_store(&cw, &w->cw);
	fw_store(&mw, &w->mw);
	fw_store(&lw, &w->lw);
	return i;
}

static int encode_chunk(struct gc_ctx *c, const void *src, size_t n,
			const struct gt_codec_aux *aux, void *dst, size_t dst_cap,
			size_t *dst_len_ret)
{
	unsigned char *const out = dst;
	unsigned char hdr[4 * GC_VARINT_MAX];
	uint64_t cnt[4], mc, mbits = 0;
	size_t hlen = 0, lbytes, mbytes, len;
	struct gc_writers w;

	if (!c->ready)
		return GT_ERR(INVAL);
	GT_TRY(scratch(c, n ? n : 1));
	GT_TRY(choose(c, src, n, aux));
	GT_TRY(count_levels(c, n, cnt));
	mc = cnt[0] + cnt[1] + cnt[2] + cnt[3];
	for (int l = 0; l < 4; l++) {
		if (l == 0 || c->mode != GC_PRUNE)
			hlen += (size_t)put_varint(hdr + hlen, cnt[l]);
		mbits += cnt[l] * (1 + c->mb - c->lev[l]);
	}
	lbytes = c->mode == GC_PRUNE ? 0 : (size_t)(mc + 3) / 4;
	mbytes = (size_t)((mbits + 7) / 8);
	if (hlen > dst_cap || lbytes > dst_cap - hlen || mbytes > dst_cap - hlen - lbytes)
		return GT_ERR(DST_TOO_SMALL);
	memcpy(out, hdr, hlen);
	gt_bitw_init(&w.lw, out + hlen, lbytes);
	gt_bitw_init(&w.mw, out + hlen + lbytes, mbytes);
	gt_bitw_init(&w.cw, out + hlen + lbytes + mbytes, dst_cap - hlen - lbytes - mbytes);
	for (size_t i = 0; i < n;) {
		if (c->dt == GT_DT_F32) {
			i = enc_f32(c, i, n, &w);
			if (i < n)
				i = enc_values(c, i, i + 1, n, &w);
		} else {
			i = enc_values(c, i, n, n, &w);
		}
	}
	if (gt_bitw_close(&w.lw, &len) < 0 || len != lbytes ||
	    gt_bitw_close(&w.mw, &len) < 0 || len != mbytes)
		return GT_ERR(INVAL); /* cannot happen: counted above */
	GT_TRY(gt_bitw_close(&w.cw, &len));
	*dst_len_ret = hlen + lbytes + mbytes + len;
	return 0;
}

static int gc_needs_aux(const struct gt_codec_ctx *ctx)
{
	const enum gc_mode m = gcc(ctx)->mode;

	return m == GC_FULL || m == GC_MULTI || m == GC_EXACT;
}

static int gc_encode_aux(struct gt_codec_ctx *ctx, const void *src, size_t n,
			 const struct gt_codec_aux *aux, void *dst, size_t dst_cap,
			 size_t *dst_len_ret)
{
	struct gc_ctx *c = gc(ctx);

	*dst_len_ret = 0;
	if (gc_needs_aux(ctx) && (!aux || !c->optim || (n && !aux->param)))
		return GT_ERR(INVAL);
	return encode_chunk(c, src, n, aux, dst, dst_cap, dst_len_ret);
}

static int gc_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		     void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	return gc_encode_aux(ctx, src, n, NULL, dst, dst_cap, dst_len_ret);
}

/* ---- decoding ----------------------------------------------------------- */

static int get_varint(const unsigned char **p, const unsigned char *end,
		      uint64_t *v_ret)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < GC_VARINT_MAX; k++) {
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

/* The chunk header: counts per level, checked against @n. */
static int get_header(const struct gc_ctx *c, const unsigned char **p,
		      const unsigned char *end, size_t n, uint64_t *cnt)
{
	uint64_t mc = 0;

	cnt[1] = cnt[2] = cnt[3] = 0;
	for (int l = 0; l < (c->mode == GC_PRUNE ? 1 : 4); l++) {
		GT_TRY(get_varint(p, end, &cnt[l]));
		if (cnt[l] > n || mc + cnt[l] > n)
			return GT_ERR(CORRUPT);
		mc += cnt[l];
	}
	return 0;
}

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

struct gc_readers {
	struct gt_bitr lr, mr, cr;
	uint64_t left[4]; /* carriers still to come per level */
};

/* A carrier with exponent field @x: its level and word. */
static inline int dec_carrier(const struct gc_ctx *c, struct gc_readers *r,
			      int lstream, unsigned x, uint64_t *v_ret)
{
	const unsigned eb = c->eb, mb = c->mb;
	const unsigned l = lstream ? (unsigned)gt_bitr_get(&r->lr, 2) : 0;
	uint64_t w;

	if (!r->left[l]--)
		return GT_ERR(CORRUPT);
	w = gt_bitr_get(&r->mr, 1 + mb - c->lev[l]) << c->lev[l];
	*v_ret = (w >> mb) << (eb + mb) | (uint64_t)x << mb |
		 (w & ((UINT64_C(1) << mb) - 1));
	return 0;
}

/* The tokens that start before @stop, from value *@i_ret on (any dtype:
 * the reference loop, and the f32 path's runs, escapes and tail). */
static int dec_values(const struct gc_ctx *c, struct gc_readers *r,
		      unsigned char *dst, size_t stop, size_t n, size_t *i_ret)
{
	const unsigned eb = c->eb, mb = c->mb;
	const int lstream = c->mode != GC_PRUNE;
	size_t i = *i_ret;

	while (i < stop) {
		unsigned e, s;
		uint64_t v = 0;

		gt_bitr_refill(&r->cr);
		e = c->lut[gt_bitr_peek(&r->cr, c->table.maxlen)];
		if (!GT_HUFF_LUT_LEN(e))
			return GT_ERR(CORRUPT);
		gt_bitr_consume(&r->cr, GT_HUFF_LUT_LEN(e));
		s = GT_HUFF_LUT_SYM(e);
		if (s < (1u << eb)) {
			GT_TRY(dec_carrier(c, r, lstream, s, &v));
		} else if (s == GT_HUFF_ESC(eb)) {
			GT_TRY(dec_carrier(c, r, lstream,
					   (unsigned)gt_bitr_get(&r->cr, eb), &v));
		} else if (s == GT_HUFF_RUN(eb)) {
			const uint64_t len = get_run(&r->cr);

			if (!len || len > n - i)
				return GT_ERR(CORRUPT);
			memset(dst + i * c->width, 0, (size_t)len * c->width);
			i += (size_t)len;
			continue;
		} else {
			v = (uint64_t)(s == GT_HUFF_NZERO(eb)) << (eb + mb);
		}
		gt_fp_store(dst, c->dt, i++, v);
	}
	*i_ret = i;
	return 0;
}

/*
 * The f32 fast path (GComp §4.5 with several tokens per lookup, as in
 * huffexp): a lookup of the next B code bits gives up to three exponent,
 * ZERO or NZERO tokens and the index of each one's carrier among them;
 * one 6-bit peek of the level stream and a lookup in ltab give the
 * carriers' word offsets, the bits they take and their counts per level;
 * the words are read from bit positions in the mantissa stream.  All
 * three slots are stored (junk that later values overwrite).
 */
#define GC_MBITS 12 /* table index bits; 9 for blocks of < 16384 values */

static uint64_t mlut_entry(const struct gc_ctx *c, unsigned x, unsigned B)
{
	unsigned pos = 0, k = 0, nc = 0;
	uint64_t ent = 0;

	while (k < 3) {
		/* bits of x above B are unknown: only codes within B count */
		const unsigned e = c->lut[x >> pos], l = GT_HUFF_LUT_LEN(e);
		const unsigned s = GT_HUFF_LUT_SYM(e);

		if (!l || l > B - pos || s > GT_HUFF_NZERO(8))
			break;
		ent |= (uint64_t)(s | nc << 9) << (8 + 16 * k);
		nc += s < 256;
		pos += l;
		k++;
	}
	return k ? ent | pos | k << 4 | nc << 6 : 0;
}

/* ltab[nc << 6 | levels]: word offsets 0, off1, off2 in bits 0-23, the
 * nc words' bits in 24-31, the nc carriers per level (bytes) above. */
static void prepare_f32(struct gc_ctx *c, size_t n)
{
	const unsigned want = n < 16384 ? 9 : GC_MBITS;
	const unsigned B = c->table.maxlen < want ? c->table.maxlen : want;

	c->mbits = B;
	for (unsigned x = 0; x < (1u << B); x++)
		c->mlut[x] = mlut_entry(c, x, B);
	for (unsigned s = 0; s < 256; s++)
		c->dsym[s] = (uint64_t)s << 23 | UINT64_C(0xffffffff) << 32;
	c->dsym[GT_HUFF_ZERO(8)] = 0;
	c->dsym[GT_HUFF_NZERO(8)] = UINT64_C(1) << 31;
	for (unsigned x = 0; x < 256; x++) {
		const unsigned nc = x >> 6;
		uint64_t off = 0, t = 0;

		for (unsigned k = 0; k < 3; k++) {
			const unsigned l = x >> (2 * k) & 3;

			t |= off << (8 * k);
			if (k < nc)
				t += UINT64_C(1) << (32 + 8 * l);
			off += 24 - c->lev[l];
			if (k + 1 == nc)
				t |= off << 24;
		}
		c->ltab[x] = t;
	}
	for (int l = 0; l < 4; l++) {
		c->wsh[l] = c->lev[l];
		c->wmask[l] = (UINT64_C(1) << (24 - c->lev[l])) - 1;
	}
}

/* Bits consumed by reader @r (pad 0), and the reader moved to bit @pos. */
static uint64_t bitr_pos(const struct gt_bitr *r)
{
	return (uint64_t)(r->ptr - r->start) * 8 - r->nb;
}

static void bitr_seek(struct gt_bitr *r, uint64_t pos)
{
	r->ptr = r->start + pos / 8;
	r->acc = 0;
	r->nb = 0;
	if (pos & 7)
		(void)gt_bitr_get(r, (unsigned)(pos & 7));
}

struct gc_fr {
	struct gt_bitr cr;
	const unsigned char *mp, *lp;
	uint64_t mpos, lpos, cnt;
	size_t i;
};

static inline __attribute__((always_inline)) int
step_f32(const struct gc_ctx *c, struct gc_fr *f, unsigned char *dst,
	 uint64_t bmask, const int lstream)
{
	const uint64_t e = c->mlut[f->cr.acc & bmask];
	uint64_t lb = 0, t, x;

	if (__builtin_expect(!(e & 15), 0))
		return 0;
	gt_bitr_consume(&f->cr, (unsigned)(e & 15));
	if (lstream) {
		memcpy(&x, f->lp + (f->lpos >> 3), 8);
		lb = x >> (f->lpos & 7) & 63;
	}
	t = c->ltab[(e >> 6 & 3) << 6 | lb];
	for (unsigned k = 0; k < 3; k++) {
		const unsigned sl = (unsigned)(e >> (8 + 16 * k)), ci = sl >> 9 & 3;
		const uint64_t p = f->mpos + (t >> (8 * ci) & 0xff), d = c->dsym[sl & 0x1ff];
		const unsigned l = (unsigned)(lb >> (2 * ci)) & 3;
		uint32_t w, v;

		memcpy(&x, f->mp + (p >> 3), 8);
		w = (uint32_t)((x >> (p & 7)) & c->wmask[l]) << c->wsh[l];
		v = (uint32_t)d | (((w & 0x7fffffu) | (w >> 23) << 31) & (uint32_t)(d >> 32));
		memcpy(dst + 4 * (f->i + k), &v, 4);
	}
	f->i += e >> 4 & 3;
	f->mpos += t >> 24 & 0xff;
	f->lpos += lstream ? 2 * (e >> 6 & 3) : 0;
	f->cnt += t >> 32;
	return 1;
}

/* Counts per level (bytes of @cnt) into @k. */
static inline void cnt_flush(uint64_t cnt, size_t *k)
{
	for (int l = 0; l < 4; l++)
		k[l] += cnt >> (8 * l) & 0xff;
}

/*
 * Groups of four lookups after one refill (4 x 12 <= 56 bits) while 12
 * values, 8 code bytes, 48 mantissa and 16 level bytes are left, so that
 * nothing inside a group needs a check (a group takes <= 36 and 3).  It
 * stops at any other token for dec_values().  Carriers per level are
 * counted (flushed every 16 groups: <= 192 a byte) and checked once.
 */
static inline __attribute__((always_inline)) int
dec_f32_at(const struct gc_ctx *c, struct gc_readers *r, unsigned char *dst,
	   size_t n, size_t *i_ret, const int lstream)
{
	const size_t mlen = (size_t)(r->mr.end - r->mr.start);
	const size_t llen = (size_t)(r->lr.end - r->lr.start);
	const uint64_t bmask = (UINT64_C(1) << c->mbits) - 1;
	struct gc_fr f = { r->cr, r->mr.start, r->lr.start, 0, 0, 0, *i_ret };
	size_t k[4] = { 0, 0, 0, 0 };
	unsigned g = 0;

	if (r->mr.pad || r->lr.pad)
		return 0;
	f.mpos = bitr_pos(&r->mr);
	f.lpos = bitr_pos(&r->lr);
	while (n - f.i >= 12 && f.cr.end - f.cr.ptr >= 8 && mlen - f.mpos / 8 >= 48 &&
	       (!lstream || llen - f.lpos / 8 >= 16)) {
		int ok;

		gt_bitr_refill(&f.cr);
		ok = step_f32(c, &f, dst, bmask, lstream) &&
		     step_f32(c, &f, dst, bmask, lstream) &&
		     step_f32(c, &f, dst, bmask, lstream) &&
		     step_f32(c, &f, dst, bmask, lstream);
		if (!ok)
			break;
		if (++g == 16) {
			cnt_flush(f.cnt, k);
			f.cnt = 0;
			g = 0;
		}
	}
	cnt_flush(f.cnt, k);
	r->cr = f.cr;
	bitr_seek(&r->mr, f.mpos);
	bitr_seek(&r->lr, f.lpos);
	*i_ret = f.i;
	for (int q = 0; q < 4; q++) {
		if (k[q] > r->left[q])
			return GT_ERR(CORRUPT);
		r->left[q] -= k[q];
	}
	return 0;
}

static int dec_f32(const struct gc_ctx *c, struct gc_readers *r,
		   unsigned char *dst, size_t n, size_t *i_ret)
{
	if (c->mode == GC_PRUNE)
		return dec_f32_at(c, r, dst, n, i_ret, 0);
	return dec_f32_at(c, r, dst, n, i_ret, 1);
}

/* The three streams of a chunk after its header. */
static int open_streams(const struct gc_ctx *c, const unsigned char *p,
			const unsigned char *end, const uint64_t *cnt,
			struct gc_readers *r)
{
	const uint64_t mc = cnt[0] + cnt[1] + cnt[2] + cnt[3];
	uint64_t lbytes, mbits = 0, mbytes;

	for (int l = 0; l < 4; l++) {
		mbits += cnt[l] * (1 + c->mb - c->lev[l]);
		r->left[l] = cnt[l];
	}
	lbytes = c->mode == GC_PRUNE ? 0 : (mc + 3) / 4;
	mbytes = (mbits + 7) / 8;
	if (lbytes > (uint64_t)(end - p) || mbytes > (uint64_t)(end - p) - lbytes)
		return GT_ERR(TRUNCATED);
	gt_bitr_init(&r->lr, p, (size_t)lbytes);
	gt_bitr_init(&r->mr, p + lbytes, (size_t)mbytes);
	gt_bitr_init(&r->cr, p + lbytes + mbytes, (size_t)(end - p - lbytes - mbytes));
	return 0;
}

static int gc_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
		     void *dst, size_t n)
{
	struct gc_ctx *c = gc(ctx);
	const unsigned char *p = src, *const end = p + src_len;
	struct gc_readers r;
	uint64_t cnt[4];
	int rc = 0, rc2, rc3;

	if (!c->ready)
		return GT_ERR(INVAL);
	if (!c->dec_ready) {
		GT_TRY(gt_huff_lut(&c->table, c->lut, GT_HUFF_LUT_MAX));
		if (c->dt == GT_DT_F32)
			prepare_f32(c, n);
		c->dec_ready = 1;
	}
	GT_TRY(get_header(c, &p, end, n, cnt));
	GT_TRY(open_streams(c, p, end, cnt, &r));
	for (size_t i = 0; rc == 0 && i < n;) {
		if (c->dt == GT_DT_F32) {
			rc = dec_f32(c, &r, dst, n, &i);
			if (rc == 0 && i < n)
				rc = dec_values(c, &r, dst, i + 1, n, &i);
		} else {
			rc = dec_values(c, &r, dst, n, n, &i);
		}
	}
	if (rc < 0)
		return gt_bitr_left(&r.cr) < 0 || gt_bitr_left(&r.mr) < 0 ||
		       gt_bitr_left(&r.lr) < 0 ? GT_ERR(TRUNCATED) : rc;
	rc = gt_bitr_finish(&r.cr);
	rc2 = gt_bitr_finish(&r.mr);
	rc3 = gt_bitr_finish(&r.lr);
	if (rc < 0)
		return rc;
	if (rc2 < 0 || rc3 < 0 || r.left[0] || r.left[1] || r.left[2] || r.left[3])
		return GT_ERR(CORRUPT);
	return 0;
}

static int gc_chunk_stats(struct gt_codec_ctx *ctx, const void *src,
			  size_t src_len, size_t n, uint64_t *counts)
{
	const struct gc_ctx *c = gc(ctx);
	const unsigned char *p = src;
	uint64_t cnt[4];

	GT_TRY(get_header(c, &p, p + src_len, n, cnt));
	for (int l = 0; l < 4; l++)
		counts[l] += cnt[l];
	counts[4] += n - (cnt[0] + cnt[1] + cnt[2] + cnt[3]);
	return 0;
}

static const char *const gc_stat_names[] = { "level0", "level1", "level2", "level3",
					     "pruned", NULL };

const struct gt_codec gt_codec_gcomp = {
	.name = "gcomp",
	.id = 4,
	.flags = GT_CODEC_NEEDS_OPTIM | GT_CODEC_TABLE,
	.help = "levels=A,B,C,D  mantissa bits dropped at levels 0-3, increasing\n"
		"                (default f32 0,6,12,18; bf16 0,2,4,6; f16 0,3,5,8; f64 0,16,32,47)\n"
		"margin=N    level l needs |delta| > 2^(levels[l] + N), -64-64 (default 0)\n"
		"mode=M      full, single-quant, multi-quant, zero-prune or exact (default full)\n"
		"maxlen=N    longest Huffman code n_theta, 1-15 (default 12)\n"
		"method=M    table builder: best, gcomp or pm (default best)\n",
	.ctx_new = gc_new,
	.ctx_free = gc_free,
	.canon = gc_canon,
	.bound = gc_bound,
	.block_begin = gc_block_begin,
	.block_load = gc_block_load,
	.encode = gc_encode,
	.decode = gc_decode,
	.encode_aux = gc_encode_aux,
	.needs_aux = gc_needs_aux,
	.stat_names = gc_stat_names,
	.chunk_stats = gc_chunk_stats,
};
