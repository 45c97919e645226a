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

#include "gcomp_impl.h"
#include "gcomp_simd.h"
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
 * θ_t (gt_optim_step_dt) bit-identical to the one of g; one step on
 * the chunk for g, then one per candidate level 3, 2, 1 (and one for
 * "pruned" when the chunk holds subnormals), each on the whole chunk.
 * Inf and NaN (exponent all ones) are always level 0.  The steps are in
 * the values' dtype (gt_optim_step_dt: f64 in double from aux's 64-bit
 * arrays, which mode exact requires; bf16 on both of PyTorch's loops);
 * δ is in double from the values (f64: the 64-bit arrays when given).
 *
 * Stats: level0..level3 count carriers, pruned counts the values coded
 * by their exponent token alone: ±0.0 and flushed subnormals (n - mc).
 *
 * Speed (f32): with isa=avx512 (the default where the CPU has it) the
 * kernels of gcomp_x86.c (isa=avx2: gcomp_avx2.c) do the per-value work: levels by δ with the
 * carrier count fused (approximate filters, sixteen lanes in float32 for
 * the optimizers with a root, then eight in double; the exact double
 * test for the values near a threshold), exact mode's steps (one pass, candidates
 * only while undecided), the carrier count of the other modes, and the
 * tokens, levels and words sixteen values at a time, RUNs included.  They
 * give the bytes of the scalar code here (isa=scalar), which stays the
 * reference and the path of every other dtype and CPU.
 */

/* ---- tables ----------------------------------------------------------- */

/* The encode table, made by the first encode after a table is installed
 * (block_load() is on the decoder's path too, which never needs it). */
static void prepare_enc(struct gc_ctx *c)
{
	const unsigned ns = c->table.nsyms < 512 ? c->table.nsyms : 512;

	gt_huff_enc_words(&c->table, c->enc);
	memset(c->badmap, 0, sizeof(c->badmap));
	for (unsigned w = 0; w < ns / 32; w++) {
		uint32_t b = 0;

		for (unsigned k = 0; k < 32; k++)
			b |= (uint32_t)(c->enc[32 * w + k] >> 41 & 1) << k;
		c->badmap[w] = b;
	}
	for (unsigned s = ns & ~31u; s < ns; s++)
		c->badmap[s / 32] |= (uint32_t)(c->enc[s] >> 41 & 1) << (s % 32);
	gc_code_table(c->enc, c->ctab, c->wtab, &c->wbase);
	c->enc_ready = 1;
}

/* Install c->table (built or loaded): its dtype checked; the encode and
 * decode tables made again on their first use. */
int gc_prepare(struct gc_ctx *c)
{
	if (c->table.dtype != c->dt)
		return GT_ERR(CORRUPT);
	c->runs = gt_huff_runs_used(&c->table);
	c->enc_ready = 0;
	c->dec_ready = 0;
	c->ready = 1;
	return 0;
}

/* Release the encode scratch (scratch() makes it). */
void gc_scratch_free(struct gc_ctx *c)
{
	free(c->tv);
	free(c->lv);
	free(c->gf);
	free(c->cand);
	free(c->ref);
	free(c->out);
	free(c->delta);
	free(c->lbuf);
	free(c->mbuf);
	free(c->cbuf);
	c->lbuf = c->mbuf = c->cbuf = NULL;
	c->tv = NULL;
	c->lv = NULL;
	c->gf = c->cand = c->ref = c->out = NULL;
	c->delta = NULL;
	c->cap = 0;
}

/* Bytes past the end of the level and mantissa streams in c->lbuf and
 * c->mbuf: the vector encoder runs to their ends (it writes 8 bytes at
 * a time, and stops 128 bytes short of a buffer's end). */
#define GC_SLACK 160

/* Scratch for @n values (once per larger chunk, never in a loop). */
static int scratch(struct gc_ctx *c, size_t n)
{
	if (n <= c->cap)
		return 0;
	if (n > SIZE_MAX / sizeof(double))
		return GT_ERR(OVERFLOW);
	gc_scratch_free(c);
	c->tv = malloc(n * c->width);
	c->lv = malloc(n);
	/* exact mode steps in doubles for f64, twice (two loops) for bf16 */
	c->gf = malloc(n * (c->dt == GT_DT_F64 ? sizeof(double) : sizeof(float)));
	c->cand = malloc(n * (c->dt == GT_DT_F64 ? sizeof(double) : sizeof(float)));
	c->ref = malloc(n * (c->dt == GT_DT_F32 ? sizeof(float) : sizeof(double)));
	c->out = malloc(n * (c->dt == GT_DT_F32 ? sizeof(float) : sizeof(double)));
	c->delta = malloc(n * sizeof(double));
	c->lbuf = malloc(n / 4 + 1 + GC_SLACK);
	c->mbuf = malloc(n * 4 + GC_SLACK);
	c->cbuf_cap = (n * (GT_HUFF_MAXLEN_MAX + c->eb) + 7) / 8 + GC_SLACK;
	c->cbuf = malloc(c->cbuf_cap);
	if (!c->tv || !c->lv || !c->gf || !c->cand || !c->ref || !c->out || !c->delta ||
	    !c->lbuf || !c->mbuf || !c->cbuf) {
		gc_scratch_free(c);
		return GT_ERR(NOMEM);
	}
	c->cap = n;
	return 0;
}

/*
 * Worst case: four varints, a level for every value, every value a
 * carrier of the widest word (1 + M bits) and escaped with the longest
 * code (GT_HUFF_MAXLEN_MAX + E bits; a RUN costs at most 2 bits a value),
 * each stream padded to a byte.
 */
size_t gc_own_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const struct gc_ctx *c = gcc(ctx);

	if (n > SIZE_MAX / 128)
		return 0;
	/* a split chunk: the code stream sizes and three more padded bytes */
	return 4 * GT_VARINT_MAX + (2 * n + 7) / 8 + (n * (1 + c->mb) + 7) / 8 +
	       (n * (GT_HUFF_MAXLEN_MAX + c->eb) + 7) / 8 +
	       (c->dt == GT_DT_F32 && n >= GC_SPLIT_MIN ? GC_SPLIT_TAB + 3 : 0);
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

/* Whether any of @n f32 values at @src is subnormal (one OR of the
 * flags: the loop vectorizes). */
static int has_sub_f32(const unsigned char *src, size_t n)
{
	uint32_t any = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t u;

		memcpy(&u, src + 4 * i, 4);
		any |= (uint32_t)!(u & 0x7f800000u) & (uint32_t)!!(u & 0x7fffffu);
	}
	return any != 0;
}

/*
 * A block that block_begin() found without subnormals: the address range
 * of its values.  A chunk inside it needs no scan for them.  The codec
 * interface encodes a block's chunks from the values block_begin() saw;
 * a chunk elsewhere (a copy) is scanned as before.
 */
static void clean_block(struct gc_ctx *c, const void *src, size_t n)
{
	c->clean_lo = (uintptr_t)src;
	c->clean_hi = (uintptr_t)src + n * c->width;
}

/* Whether @n values at @src lie in [@lo, @hi). */
static int in_range(const struct gc_ctx *c, const void *src, size_t n, uintptr_t lo,
		    uintptr_t hi)
{
	const uintptr_t p = (uintptr_t)src;

	return p >= lo && p < hi && n * c->width <= hi - p;
}

static int in_clean(const struct gc_ctx *c, const void *src, size_t n)
{
	return in_range(c, src, n, c->clean_lo, c->clean_hi);
}

/* @n values of @src with every subnormal flushed: @src itself when none
 * is (f32), else their copy in c->tv. */
static const unsigned char *flush_all(struct gc_ctx *c, const void *src, size_t n)
{
	if (c->dt == GT_DT_F32) {
		/* locals: stores through char pointers would reload c's fields */
		const unsigned char *s = src;
		unsigned char *const tv = c->tv;

		if (in_clean(c, s, n) || (c->isa != GC_ISA_SCALAR ?
					  !gc_vec_has_sub(c->isa, (const void *)s, n) :
					  !has_sub_f32(s, n)))
			return s;
		for (size_t i = 0; i < n; i++) {
			uint32_t u;

			memcpy(&u, s + 4 * i, 4);
			u = (u & 0x7f800000u) ? u : u & 0x80000000u;
			memcpy(tv + 4 * i, &u, 4);
		}
		return tv;
	}
	for (size_t i = 0; i < n; i++)
		gt_fp_store(c->tv, c->dt, i,
			    flush_sub(gt_fp_load(src, c->dt, i), c->eb, c->mb));
	return c->tv;
}

/* @h += @a (the same dtype). */
static void hist_add(struct gt_huff_hist *h, const struct gt_huff_hist *a)
{
	const unsigned ns = gt_huff_nsyms(h->dtype);

	for (unsigned s = 0; s < ns; s++)
		h->count[s] += a->count[s];
	h->n += a->n;
	h->run_zeros += a->run_zeros;
	h->run_bits += a->run_bits;
}

/*
 * The table of the flushed values, a slice at a time (a run is counted
 * split where a slice ends: weights only).  A slice's histogram is made
 * from the values as they are; symbol 0 (exponent 0, magnitude not 0)
 * counts its subnormals, so it is the flushed values' histogram when that
 * count is 0, else the slice is flushed and counted again.  Returns
 * whether the block had no subnormal (the chunk encodes skip their scan).
 */
static int hist_flushed(struct gc_ctx *c, const void *src, size_t n)
{
	struct gt_huff_hist part;
	int clean = 1;

	if (n <= GC_SLICE) {
		/* one slice (small tensors: no second histogram to clear) */
		gc_hist(c, &c->hist, src, n);
		if (!c->hist.count[0])
			return 1;
		gt_huff_hist_init(&c->hist, c->dt);
		gc_hist(c, &c->hist, flush_all(c, src, n), n);
		return 0;
	}
	for (size_t i = 0; i < n; i += GC_SLICE) {
		const size_t k = n - i < GC_SLICE ? n - i : GC_SLICE;
		const unsigned char *s = (const unsigned char *)src + i * c->width;

		gt_huff_hist_init(&part, c->dt);
		gc_hist(c, &part, s, k);
		if (part.count[0]) {
			clean = 0;
			gt_huff_hist_init(&part, c->dt);
			gc_hist(c, &part, flush_all(c, s, k), k);
		}
		hist_add(&c->hist, &part);
	}
	return clean;
}

static inline uint32_t sym32(uint32_t u, uint32_t zt);
static int zero_tokens(const struct gc_ctx *c);

/*
 * Note the block of @n values at @src when every symbol its values take
 * has a code in the table just built from them (c->hist): a symbol
 * counted, and the one of +0.0 when RUN is (a zero inside a run is
 * looked up as itself).  Makes the encode table.
 */
static void coded_block(struct gc_ctx *c, const void *src, size_t n)
{
	const unsigned run = GT_HUFF_RUN(c->eb);

	prepare_enc(c);
	for (unsigned s = 0; s < c->table.nsyms; s++)
		if (c->hist.count[s] && c->enc[s] >> 41)
			return;
	if (run < c->table.nsyms && c->hist.count[run] &&
	    c->enc[sym32(0, (uint32_t)zero_tokens(c))] >> 41)
		return;
	c->coded_lo = (uintptr_t)src;
	c->coded_hi = (uintptr_t)src + n * c->width;
}

int gc_own_begin(struct gt_codec_ctx *ctx, const void *src, size_t n, int split,
		 void *meta, size_t meta_cap, size_t *meta_len_ret)
{
	struct gc_ctx *c = gc(ctx);

	*meta_len_ret = 0;
	c->split = 0;
	c->clean_lo = c->clean_hi = 0;
	c->coded_lo = c->coded_hi = 0;
	c->hist_whole = 0;
	if (c->fixed)
		return 0;
	gt_huff_hist_init(&c->hist, c->dt);
	if (prunes_all(c)) {
		GT_TRY(scratch(c, n < GC_SLICE ? n : GC_SLICE));
		if (hist_flushed(c, src, n)) {
			clean_block(c, src, n);
			c->hist_whole = n > GC_SLICE ? 2 : 1;
		}
	} else if (c->mode == GC_EXACT) {
		gc_hist(c, &c->hist, src, n);
		c->hist_whole = 1;
		if (!c->hist.count[0])
			clean_block(c, src, n);
	} else {
		/* no pruning: ±0.0 is exponent 0 with a word, never a token */
		for (size_t i = 0; i < n; i++)
			c->hist.count[gt_fp_exp(gt_fp_load(src, c->dt, i), c->dt)]++;
		c->hist.n += n;
	}
	GT_TRY(gt_huff_build(&c->table, &c->hist, c->maxlen, c->method, 0));
	GT_TRY(gt_huff_save(&c->table, meta, meta_cap, meta_len_ret));
	/* split where a chunk of the block may be split: f32, and n large */
	c->split = split && c->dt == GT_DT_F32 && n >= GC_SPLIT_MIN;
	if (c->split)
		*(unsigned char *)meta = GC_META_SPLIT;
	GT_TRY(gc_prepare(c));
	coded_block(c, src, n);
	return 0;
}

/* Whether @meta (its first byte GC_META_TABLE) is the saved form of the
 * table in use (a table is its dtype, maxlen and code lengths, all in
 * the saved form). */
static int same_table(const struct gc_ctx *c, const void *meta, size_t meta_len)
{
	unsigned char buf[GT_HUFF_SAVE_MAX];
	size_t len = 0;

	return gt_huff_save(&c->table, buf, sizeof(buf), &len) == 0 && len == meta_len &&
	       !memcmp(buf, meta, len);
}

int gc_own_load(struct gt_codec_ctx *ctx, const void *meta, size_t meta_len)
{
	struct gc_ctx *c = gc(ctx);
	unsigned char buf[GT_HUFF_SAVE_MAX];
	int split;

	if (c->fixed)
		return meta_len ? GT_ERR(CORRUPT) : 0;
	/* GC_META_SPLIT: the table as GC_META_TABLE says it, f32 only */
	split = meta_len && *(const unsigned char *)meta == GC_META_SPLIT;
	if (split) {
		if (c->dt != GT_DT_F32 || meta_len > sizeof(buf))
			return GT_ERR(CORRUPT);
		memcpy(buf, meta, meta_len);
		buf[0] = GC_META_TABLE;
		meta = buf;
	}
	if (c->ready && c->split == split && same_table(c, meta, meta_len))
		return 0; /* the encoder loading what block_begin just built */
	c->ready = 0;
	c->split = 0;
	c->clean_lo = c->clean_hi = 0; /* another block's table */
	c->coded_lo = c->coded_hi = 0;
	GT_TRY(gt_huff_load(&c->table, meta, meta_len, 0));
	c->split = split;
	return gc_prepare(c);
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
	q->ibc2 = 1 / q->bc2;
	q->t1 = c->thr[1];
	q->t2 = c->thr[2];
	q->t3 = c->thr[3];
	q->first = ns < 1 || !aux->state[0];
	q->quot = o->kind != GT_OPT_ADAMW && o->kind != GT_OPT_NESTEROV &&
		  (lam > 0 || lam < 0);
	q->qz = !q->quot && o->kind != GT_OPT_ADAMW && o->kind != GT_OPT_NESTEROV;
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

typedef float gc_v2f __attribute__((vector_size(8)));

/* compare_levels() of a = |N + (θ − θ)| (@qz) or |N|, b = |K g|, fused:
 * the same operations on the same values, without storing a and b. */
static inline __attribute__((always_inline)) void
compare_kg(const double *num, const float *gv, const float *pv, size_t n, double K,
	   int qz, double t1, double t2, double t3, uint8_t *restrict lv)
{
	const gc_v2l abs = { INT64_MAX, INT64_MAX };
	size_t i = 0;

	for (; i + 2 <= n; i += 2) {
		gc_v2d va, vb;
		gc_v2f fg, ft;
		gc_v2l m;

		memcpy(&va, num + i, 16);
		memcpy(&fg, gv + i, 8);
		if (qz) {
			gc_v2d th;

			memcpy(&ft, pv + i, 8);
			th = __builtin_convertvector(ft, gc_v2d);
			va = va + (th - th);
		}
		va = (gc_v2d)((gc_v2l)va & abs);
		vb = (gc_v2d)((gc_v2l)(__builtin_convertvector(fg, gc_v2d) * K) & abs);
		m = (va > vb * t1) + (va > vb * t2) + (va > vb * t3);
		lv[i] = (uint8_t)-m[0];
		lv[i + 1] = (uint8_t)-m[1];
	}
	for (; i < n; i++) {
		const double th = pv[i];
		const double a = fabs(qz ? num[i] + (th - th) : num[i]);
		const double b = fabs(K * (double)gv[i]);

		lv[i] = (uint8_t)((a > b * t1) + (a > b * t2) + (a > b * t3));
	}
}

/* Levels by δ of @n <= GC_DSLICE values (level only: Inf/NaN/zero/
 * subnormal g are fixed by the caller). */
static void delta_levels(const struct gc_dplan *q, size_t n, const float *restrict gv,
			 const float *restrict pv, const float *restrict s0v,
			 const float *restrict s1v, uint8_t *restrict lv)
{
	double num[GC_DSLICE], den[GC_DSLICE];
	const double K = q->K, lam = q->lam, t1 = q->t1, t2 = q->t2, t3 = q->t3;
	const int qz = q->qz;

	delta_num(q, n, gv, pv, s0v, s1v, num);
	if (q->quot) {
		for (size_t i = 0; i < n; i++) {
			const double g = gv[i], th = pv[i];

			num[i] = fabs(num[i] / (K * g) - lam * th / g);
			den[i] = 1;
		}
		compare_levels(num, den, n, t1, t2, t3, lv);
	} else if (qz) {
		/* θ − θ: the NaN of λθ/g for an infinite θ, λ = 0 */
		compare_kg(num, gv, pv, n, K, 1, t1, t2, t3, lv);
	} else {
		compare_kg(num, gv, pv, n, K, 0, t1, t2, t3, lv);
	}
}

static uint64_t count_part(struct gc_ctx *c, size_t i0, size_t stop, uint64_t *cnt);
static inline uint32_t sym32(uint32_t u, uint32_t zt);

/* gc_vec_levels() on the chunk: the values it did (a multiple of 8),
 * their carriers added to @cnt; *@bad: a symbol without a code. */
static size_t levels_vec(const struct gc_ctx *c, const struct gc_dplan *q,
			 const float *g, size_t n, const struct gt_codec_aux *aux,
			 const float *s0, const float *s1, uint64_t *cnt, int *bad)
{
	const uint32_t zt = c->mode != GC_SINGLE && c->mode != GC_MULTI;
	struct gc_lparams lp;

	lp.cv = (const void *)c->cv;
	lp.zt = zt;
	lp.zl = c->mode == GC_PRUNE ? 0 : 3;
	lp.zc[0] = (uint32_t)(c->enc[sym32(0, zt)] >> 40 & 1);
	lp.zc[1] = (uint32_t)(c->enc[sym32(0x80000000u, zt)] >> 40 & 1);
	lp.badmap = in_range(c, g, n, c->coded_lo, c->coded_hi) ? NULL : c->badmap;
	return gc_vec_levels(c->isa, q, &lp, n, g, aux->param, s0, s1, c->lv, cnt, bad);
}

/* f32 full and multi-quant: c->lv by delta_levels() and the carriers per
 * level into @cnt (count_levels()), a slice at a time while it is in L1;
 * returns 1 (@cnt done). */
static int levels_f32(struct gc_ctx *c, const struct gc_dplan *q, const float *g,
		      size_t n, const struct gt_codec_aux *aux, uint64_t *cnt)
{
	static const float zeros[GC_DSLICE];
	const int ns = gt_optim_nstates(c->optim->kind);
	const float *const s0 = ns >= 1 ? aux->state[0] : NULL;
	const float *const s1 = ns >= 2 ? aux->state[1] : NULL;
	uint8_t *const lv = c->lv;
	uint64_t bad = 0;
	size_t i0 = 0;
	int vbad = 0;

	cnt[0] = cnt[1] = cnt[2] = cnt[3] = 0;
	if (c->isa != GC_ISA_SCALAR)
		i0 = levels_vec(c, q, g, n, aux, s0, s1, cnt, &vbad);
	if (vbad)
		return GT_ERR(INVAL);
	for (size_t i = i0; i < n; i += GC_DSLICE) {
		const size_t k = n - i < GC_DSLICE ? n - i : GC_DSLICE;

		delta_levels(q, k, g + i, aux->param + i, s0 ? s0 + i : zeros,
			     s1 ? s1 + i : zeros, lv + i);
		for (size_t j = i; j < i + k; j++) {
			const uint32_t x = ((gt_f32_bits(g[j]) >> 23) + 1) & 0xff;

			lv[j] = x <= 1 ? 0 : lv[j]; /* exponent 0 or 255 */
		}
		bad |= count_part(c, i, i + k, cnt);
	}
	return bad >> 41 ? GT_ERR(INVAL) : 1;
}

/* Full and multi-quant: levels by δ; Inf/NaN level 0.  1: @cnt done. */
static int levels_delta(struct gc_ctx *c, const void *src, size_t n,
			const struct gt_codec_aux *aux, uint64_t *cnt)
{
	const double t1 = c->thr[1], t2 = c->thr[2], t3 = c->thr[3];
	const uint64_t emax = (UINT64_C(1) << c->eb) - 1;
	const double *const delta = c->delta;
	uint8_t *const lv = c->lv;
	struct gc_dplan q;
	const float *g = NULL;

	if (c->dt == GT_DT_F32 && dplan_init(&q, c, aux) == 0)
		return levels_f32(c, &q, src, n, aux, cnt);
	if (c->dt == GT_DT_F64 && aux->param64) { /* δ of the unrounded values */
		double *const gd = (double *)(void *)c->gf;

		for (size_t i = 0; i < n; i++)
			gd[i] = gt_f64_from_bits(gt_fp_load(src, GT_DT_F64, i));
		GT_TRY(gt_optim_delta_dt(c->optim, GT_DT_F64, n, gd, aux->param64,
					 aux->state64[0], aux->state64[1], c->delta));
	} else {
		g = grads_f32(c, src, n);
		GT_TRY(gt_optim_delta(c->optim, n, g, aux->param, aux->state[0],
				      aux->state[1], c->delta));
	}
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

/*
 * Whether θ_t @a of a candidate counts as the reference's @b: the same
 * bits, or both NaN.  Which NaN an operation on two NaNs returns depends
 * on the order of its operands, which a compiler may swap in a sum (clang
 * does in step_*()): no NaN payload is the step's own, so none decides.
 */
static int same_theta(float a, float b)
{
	return !memcmp(&a, &b, sizeof(a)) || (isnan(a) && isnan(b));
}
static int same_theta64(double a, double b)
{
	return !memcmp(&a, &b, sizeof(a)) || (isnan(a) && isnan(b));
}

/*
 * The step of mode exact, in the values' dtype as PyTorch takes it
 * (gt_optim_step_dt): @g and @out are float, double for f64 (θ and the
 * state then from aux's 64-bit arrays).  bf16 steps twice, on PyTorch's
 * vectorized loop into @out and on its scalar loop into @out + n (floats):
 * where a value falls in its tensor is not known here, so a candidate
 * must keep θ_t on both.
 */
static int exact_step(const struct gc_ctx *c, size_t n, const void *g,
		      const struct gt_codec_aux *aux, void *out)
{
	const struct gt_optim *o = c->optim;

	switch (c->dt) {
	case GT_DT_F64:
		return gt_optim_step_dt(o, GT_DT_F64, n, n, g, aux->param64, aux->state64[0],
					aux->state64[1], out, NULL, NULL);
	case GT_DT_BF16:
		GT_TRY(gt_optim_step_dt(o, c->dt, n, 0, g, aux->param, aux->state[0],
					aux->state[1], (float *)out + n, NULL, NULL));
		break;
	case GT_DT_F16:
	case GT_DT_F32:
	case GT_DT_NONE:
		break;
	}
	return gt_optim_step_dt(o, c->dt, n, n, g, aux->param, aux->state[0], aux->state[1],
				out, NULL, NULL);
}

/* Whether candidate value @i kept θ_t (exact_step's arrays). */
static int exact_same(const struct gc_ctx *c, size_t n, size_t i)
{
	if (c->dt == GT_DT_F64)
		return same_theta64(((const double *)(const void *)c->out)[i],
				    ((const double *)(const void *)c->ref)[i]);
	if (c->dt == GT_DT_BF16 && !same_theta(c->out[n + i], c->ref[n + i]))
		return 0;
	return same_theta(c->out[i], c->ref[i]);
}

/* Set candidate @i to the value of bits @u (float, double for f64). */
static void set_cand(struct gc_ctx *c, size_t i, uint64_t u)
{
	if (c->dt == GT_DT_F64)
		((double *)(void *)c->cand)[i] = gt_f64_from_bits(u);
	else
		c->cand[i] = to_f32(u, c->dt);
}

/* Exact: one pass of candidates at level @l (-1: pruned) for the values
 * still undecided (lv == 0xff); those whose θ_t matches get it. */
static int exact_pass(struct gc_ctx *c, const void *src, size_t n,
		      const struct gt_codec_aux *aux, int l)
{
	const uint64_t smask = UINT64_C(1) << (c->eb + c->mb);
	const uint64_t emask = ((UINT64_C(1) << c->eb) - 1) << c->mb;
	/* pruning is for subnormals; f32 keeps its bytes (its passes, scalar
	 * and AVX-512, try every undecided value, normal ones too) */
	const int any = l >= 0 || c->dt == GT_DT_F32;

	for (size_t i = 0; i < n; i++) {
		const uint64_t u = gt_fp_load(src, c->dt, i);

		if (c->lv[i] != 0xff || (!any && (u & emask)))
			set_cand(c, i, u);
		else
			set_cand(c, i, l < 0 ? u & smask : trunc_bits(u, c->lev[l]));
	}
	GT_TRY(exact_step(c, n, c->cand, aux, c->out));
	for (size_t i = 0; i < n; i++) {
		if (c->lv[i] != 0xff || !exact_same(c, n, i) ||
		    (!any && (gt_fp_load(src, c->dt, i) & emask)))
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

/* The float32 constants of step_*() in gt_optim.c, computed as there. */
static void sparams_init(struct gc_sparams *sp, const struct gt_optim *o, const float *s0)
{
	const double t = (double)o->t;

	memset(sp, 0, sizeof(*sp));
	sp->kind = o->kind;
	sp->has_wd = o->weight_decay > 0 || o->weight_decay < 0 || isnan(o->weight_decay);
	sp->has_buf = s0 != NULL;
	sp->wd = (float)o->weight_decay;
	sp->mom = (float)o->momentum;
	sp->damp1 = (float)(1 - o->dampening);
	sp->neg_lr = (float)-o->lr;
	sp->eps = (float)o->eps;
	sp->alpha = (float)o->alpha;
	sp->one_alpha = (float)(1 - o->alpha);
	sp->decay = (float)(1 - o->lr * o->weight_decay);
	sp->b1 = (float)o->beta1;
	sp->one_b1 = (float)(1 - o->beta1);
	sp->b2 = (float)o->beta2;
	sp->one_b2 = (float)(1 - o->beta2);
	sp->bc2_sqrt = (float)sqrt(1 - pow(o->beta2, t));
	if (o->kind == GT_OPT_ADAGRAD)
		sp->neg_lr = (float)-(o->lr / (1 + (t - 1) * o->lr_decay));
	else if (o->kind == GT_OPT_ADAM || o->kind == GT_OPT_ADAMW)
		sp->neg_lr = (float)-(o->lr / (1 - pow(o->beta1, t)));
}

/* levels_exact() by gc_vec_exact(), f32. */
static void exact_vec(struct gc_ctx *c, const float *g, size_t n,
		      const struct gt_codec_aux *aux)
{
	const int ns = gt_optim_nstates(c->optim->kind);
	const float *const s0 = ns >= 1 ? aux->state[0] : NULL;
	const float *const s1 = ns >= 2 ? aux->state[1] : NULL;
	const int prune = !in_clean(c, g, n) && gc_vec_has_sub(c->isa, (const void *)g, n);
	struct gc_sparams sp;

	sparams_init(&sp, c->optim, s0);
	gc_vec_exact(c->isa, &sp, c->lev, prune, n, g, aux->param, s0, s1, c->lv, (void *)c->tv);
	c->cv = prune ? c->tv : (const void *)g;
}

/* Exact: the highest level (or pruning) that keeps θ_t bit-identical. */
static int levels_exact(struct gc_ctx *c, const void *src, size_t n,
			const struct gt_codec_aux *aux)
{
	const uint64_t emask = ((UINT64_C(1) << c->eb) - 1) << c->mb;
	const uint64_t mag = (UINT64_C(1) << (c->eb + c->mb)) - 1;
	size_t nsub = 0, undecided = 0;

	if (c->dt == GT_DT_F32 && c->isa != GC_ISA_SCALAR) {
		exact_vec(c, src, n, aux);
		return 0;
	}
	/* f64 θ rounded to float would give no guarantee: the 64-bit arrays */
	if (c->dt == GT_DT_F64 && !aux->param64)
		return GT_ERR(INVAL);
	for (size_t i = 0; i < n; i++)
		set_cand(c, i, gt_fp_load(src, c->dt, i));
	GT_TRY(exact_step(c, n, c->cand, aux, c->ref));
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
	if (nsub) {
		/* pruning rewrites values: code a copy */
		memcpy(c->tv, src, n * c->width);
		c->cv = c->tv;
		GT_TRY(exact_pass(c, src, n, aux, -1));
	}
	for (int l = 3; l >= 1 && undecided; l--)
		GT_TRY(exact_pass(c, src, n, aux, l));
	for (size_t i = 0; i < n; i++)
		if (c->lv[i] == 0xff)
			c->lv[i] = 0;
	return 0;
}

/* c->cv and c->lv for the chunk, as the mode wants; 1 when @cnt holds
 * the carriers per level too (count_levels() done). */
static int choose(struct gc_ctx *c, const void *src, size_t n,
		  const struct gt_codec_aux *aux, uint64_t *cnt)
{
	const uint64_t emask = ((UINT64_C(1) << c->eb) - 1) << c->mb;

	c->cv = prunes_all(c) ? flush_all(c, src, n) : src;
	switch (c->mode) {
	case GC_FULL:
	case GC_MULTI:
		return levels_delta(c, src, n, aux, cnt);
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

/* count_levels() for f32 values @i0..@stop-1 (at most 32768), added to
 * @cnt; returns the OR of their codes (bit 41: a symbol without one). */
static uint64_t count_part(struct gc_ctx *c, size_t i0, size_t stop, uint64_t *cnt)
{
	const uint8_t zl = c->mode == GC_PRUNE ? 0 : 3;
	const uint32_t zt = (uint32_t)zero_tokens(c);
	const unsigned char *const tv = c->cv;
	const uint64_t *const enc = c->enc;
	uint8_t *const lv = c->lv;
	uint64_t bad = 0;
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
	return bad;
}

/* count_levels() for f32. */
static int count_f32(struct gc_ctx *c, size_t n, uint64_t *cnt)
{
	uint64_t bad = 0;
	size_t i = 0;

	if (c->isa != GC_ISA_SCALAR) {
		const uint32_t zt = (uint32_t)zero_tokens(c);
		struct gc_lparams lp;
		int vbad = 0;

		lp.cv = (const void *)c->cv;
		lp.zt = zt;
		lp.zl = c->mode == GC_PRUNE ? 0 : 3;
		lp.zc[0] = (uint32_t)(c->enc[sym32(0, zt)] >> 40 & 1);
		lp.zc[1] = (uint32_t)(c->enc[sym32(0x80000000u, zt)] >> 40 & 1);
		lp.badmap = c->badmap;
		i = gc_vec_count(c->isa, &lp, n, c->lv, cnt, &vbad);
		if (vbad)
			return GT_ERR(INVAL);
	}
	for (size_t i0 = i; i0 < n; i0 += 32768)
		bad |= count_part(c, i0, n - i0 < 32768 ? n : i0 + 32768, cnt);
	return bad >> 41 ? GT_ERR(INVAL) : 0;
}

/* Carriers per level of the chunk in c->cv, c->lv; ±0.0 carriers (no
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
		const uint64_t u = gt_fp_load(c->cv, c->dt, i);
		const uint64_t e = c->enc[sym_of(u, c->eb, c->mb, zt)];

		if (e >> 41)
			return GT_ERR(INVAL); /* no code and no ESC */
		if (!(u & mag))
			c->lv[i] = zl;
		cnt[c->lv[i]] += e >> 40 & 1;
	}
	return 0;
}


struct gc_writers {
	struct gt_bitw lw, mw, cw;
};

/* The tokens of c->cv, c->lv that start before @stop, from value @i on
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
		const uint64_t u = gt_fp_load(c->cv, c->dt, i);
		uint64_t e;
		unsigned l;

		if (!u && runs) {
			const size_t len = gt_huff_zeros_from(c->cv, c->dt, i, n);

			if (len >= GT_HUFF_RUN_MIN) {
				gt_huff_put_run(&w->cw, c->enc[GT_HUFF_RUN(c->eb)], len);
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

/*
 * Four f32 values of c->cv at @tv with levels @lv, branch-free: the codes
 * in one put (two when over 56 bits), the levels of the carriers in one,
 * the words in two (a non-carrier's word has width 0).
 */
static inline __attribute__((always_inline)) void
enc_quad(const uint64_t *enc, const uint8_t *lv, const unsigned char *tv, uint32_t zt,
	 int lstream, const unsigned *sh, const unsigned *wd, struct gt_bitw_fast *cw,
	 struct gt_bitw_fast *mw, struct gt_bitw_fast *lw)
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
		gt_bitw_fast_put(cw, (e[0] & 0xffffffff) | (e[1] & 0xffffffff) << len[0] |
				   (e[2] & 0xffffffff) << (len[0] + len[1]) |
				   (e[3] & 0xffffffff) << (len[0] + len[1] + len[2]),
		       len[0] + len[1] + len[2] + len[3]);
	} else {
		gt_bitw_fast_put(cw, (e[0] & 0xffffffff) | (e[1] & 0xffffffff) << len[0], len[0] + len[1]);
		gt_bitw_fast_put(cw, (e[2] & 0xffffffff) | (e[3] & 0xffffffff) << len[2], len[2] + len[3]);
	}
	if (lstream)
		gt_bitw_fast_put(lw, lb, ln);
	gt_bitw_fast_put(mw, w[0] | w[1] << ww[0], ww[0] + ww[1]);
	gt_bitw_fast_put(mw, w[2] | w[3] << ww[2], ww[2] + ww[3]);
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
	const unsigned char *const tv = c->cv;
	const uint32_t zt = (uint32_t)zero_tokens(c);
	const int lstream = c->mode != GC_PRUNE, runs = c->runs && zt;
	unsigned sh[4], wd[4];
	struct gt_bitw_fast cw, mw, lw;

	for (int l = 0; l < 4; l++) {
		sh[l] = c->lev[l];
		wd[l] = 24 - c->lev[l];
	}
	cw = gt_bitw_fast_load(&w->cw);
	mw = gt_bitw_fast_load(&w->mw);
	lw = gt_bitw_fast_load(&w->lw);
	/* zero-prune has no level stream (a writer without room) */
	while (n - i >= 8 && w->cw.end - cw.ptr >= 16 && w->mw.end - mw.ptr >= 16 &&
	       (!lstream || w->lw.end - lw.ptr >= 16)) {
		uint64_t a, b;

		/* a run starting at i..i+3 covers i+4..i+7 */
		memcpy(&a, tv + 4 * i + 16, 8);
		memcpy(&b, tv + 4 * i + 24, 8);
		if (runs && !(a | b))
			break;
		enc_quad(enc, lv + i, tv + 4 * i, zt, lstream, sh, wd, &cw, &mw, &lw);
		i += 4;
	}
	gt_bitw_fast_store(&cw, &w->cw);
	gt_bitw_fast_store(&mw, &w->mw);
	gt_bitw_fast_store(&lw, &w->lw);
	return i;
}

/* gc_vec_encode() from value @i on; returns where it stopped. */
static size_t enc_vec(const struct gc_ctx *c, size_t i, size_t n, struct gc_writers *w)
{
	const uint32_t zt = (uint32_t)zero_tokens(c);
	struct gc_eparams ep;
	struct gt_bitw_fast cw, mw, lw;

	gc_eparams_codes(&ep, c->enc, c->ctab, c->wtab, c->wbase, sym32(0, zt),
			 sym32(UINT32_C(1) << 31, zt));
	ep.zt = zt;
	ep.runs = c->runs && zt;
	ep.lstream = c->mode != GC_PRUNE;
	for (int l = 0; l < 4; l++) {
		ep.sh[l] = c->lev[l];
		ep.wd[l] = 24 - c->lev[l];
	}
	ep.w24 = ep.wd[0] == 24;
	ep.rot = 0;
	ep.bad = NULL;
	cw = gt_bitw_fast_load(&w->cw);
	mw = gt_bitw_fast_load(&w->mw);
	lw = gt_bitw_fast_load(&w->lw);
	i = gc_vec_encode(c->isa, &ep, (const void *)c->cv, c->lv, i, n, &cw, w->cw.end, &mw,
			  w->mw.end, &lw, w->lw.end);
	gt_bitw_fast_store(&cw, &w->cw);
	gt_bitw_fast_store(&mw, &w->mw);
	gt_bitw_fast_store(&lw, &w->lw);
	return i;
}

/* The chunk header of carrier counts @cnt into @hdr; the level and
 * mantissa stream sizes.  Returns the header's length. */
static size_t chunk_header(const struct gc_ctx *c, const uint64_t *cnt, unsigned char *hdr,
			   size_t *lbytes, size_t *mbytes)
{
	const uint64_t mc = cnt[0] + cnt[1] + cnt[2] + cnt[3];
	uint64_t mbits = 0;
	size_t hlen = 0;

	for (int l = 0; l < 4; l++) {
		if (l == 0 || c->mode != GC_PRUNE)
			hlen += (size_t)gt_varint_put(hdr + hlen, cnt[l]);
		mbits += cnt[l] * (1 + c->mb - c->lev[l]);
	}
	*lbytes = c->mode == GC_PRUNE ? 0 : (size_t)(mc + 3) / 4;
	*mbytes = (size_t)((mbits + 7) / 8);
	return hlen;
}

/*
 * The writers of a chunk's streams at @lout (level), @mout (mantissa) and
 * @tab bytes after them (code, @crest bytes).  The vector encoder (@vec) runs to the
 * ends of the level and mantissa streams (it writes past a writer's
 * place): the level stream goes to scratch with slack; the mantissa
 * stream in place when the room after it takes the slack (@mdirect), the
 * code stream to scratch then (copied over the slack), else the other
 * way round.
 */
static void writers_init(struct gc_ctx *c, struct gc_writers *w, unsigned char *lout,
			 size_t lbytes, unsigned char *mout, size_t mbytes, size_t tab,
			 size_t crest, int vec, int mdirect)
{
	gt_bitw_init(&w->lw, vec ? c->lbuf : lout, lbytes + (vec ? GC_SLACK : 0));
	gt_bitw_init(&w->mw, mout, mbytes + (vec ? GC_SLACK : 0));
	if (mdirect)
		gt_bitw_init(&w->cw, c->cbuf, c->cbuf_cap);
	else
		gt_bitw_init(&w->cw, lout + lbytes + mbytes + tab, crest);
}

/* The tokens, levels and words of values [@i, @n) (a run ends at @n). */
static void enc_range(const struct gc_ctx *c, size_t i, size_t n, struct gc_writers *w)
{
	while (i < n) {
		if (c->dt == GT_DT_F32) {
			if (c->isa != GC_ISA_SCALAR)
				i = enc_vec(c, i, n, w);
			i = enc_f32(c, i, n, w);
			if (i < n)
				i = enc_values(c, i, i + 1, n, w);
		} else {
			i = enc_values(c, i, n, n, w);
		}
	}
}

/*
 * The code streams of a split chunk's four parts, one after the other
 * from w->cw's place (its room shared), their sizes but the last into
 * @tab (u32, little-endian).  Returns their bytes in all into *@len_ret.
 */
static int enc_parts(const struct gc_ctx *c, size_t n, struct gc_writers *w,
		     unsigned char *tab, size_t *len_ret)
{
	unsigned char *const base = w->cw.start;
	const size_t room = (size_t)(w->cw.end - base);
	size_t off = 0, len;

	for (unsigned j = 0; j < 4; j++) {
		gt_bitw_init(&w->cw, base + off, room - off);
		enc_range(c, j ? gc_part_end(n, j - 1) : 0, gc_part_end(n, j), w);
		GT_TRY(gt_bitw_close(&w->cw, &len));
		if (j < 3) {
			if (len > UINT32_MAX)
				return GT_ERR(INVAL); /* cannot happen: GC_SPLIT_MAX */
			gt_le32_put(tab + 4 * j, (uint32_t)len);
		}
		off += len;
	}
	*len_ret = off;
	return 0;
}

int gc_chunk_levels(struct gc_ctx *c, const void *src, size_t n,
		    const struct gt_codec_aux *aux, uint64_t *cnt)
{
	int rc;

	if (!c->ready)
		return GT_ERR(INVAL);
	if (!c->enc_ready)
		prepare_enc(c);
	GT_TRY(scratch(c, n ? n : 1));
	rc = choose(c, src, n, aux, cnt);
	if (rc < 0)
		return rc;
	return rc ? 0 : count_levels(c, n, cnt);
}

size_t gc_chunk_fixed(const struct gc_ctx *c, size_t n, const uint64_t *cnt)
{
	unsigned char hdr[4 * GT_VARINT_MAX];
	size_t lbytes, mbytes;
	const size_t hlen = chunk_header(c, cnt, hdr, &lbytes, &mbytes);

	return hlen + lbytes + mbytes + (GC_SPLIT_CHUNK(c->split, n) ? GC_SPLIT_TAB : 0);
}

int gc_chunk_write(struct gc_ctx *c, size_t n, const uint64_t *cnt, void *dst,
		   size_t dst_cap, size_t *dst_len_ret)
{
	unsigned char *const out = dst;
	unsigned char hdr[4 * GT_VARINT_MAX];
	const size_t tab = GC_SPLIT_CHUNK(c->split, n) ? GC_SPLIT_TAB : 0;
	unsigned char tabv[GC_SPLIT_TAB];
	size_t hlen, lbytes, mbytes, len, lm, clen;
	struct gc_writers w;
	unsigned char *mout;
	int vec, mdirect;

	hlen = chunk_header(c, cnt, hdr, &lbytes, &mbytes);
	lm = hlen + lbytes + mbytes;
	if (hlen > dst_cap || lbytes > dst_cap - hlen || mbytes > dst_cap - hlen - lbytes ||
	    tab > dst_cap - lm)
		return GT_ERR(DST_TOO_SMALL);
	memcpy(out, hdr, hlen);
	vec = c->dt == GT_DT_F32 && c->isa != GC_ISA_SCALAR;
	mdirect = vec && dst_cap - lm - tab >= GC_SLACK;
	mout = vec && !mdirect ? c->mbuf : out + hlen + lbytes;
	writers_init(c, &w, out + hlen, lbytes, mout, mbytes, tab, dst_cap - lm - tab, vec,
		     mdirect);
	if (tab)
		GT_TRY(enc_parts(c, n, &w, tabv, &clen));
	else
		enc_range(c, 0, n, &w);
	if (gt_bitw_close(&w.lw, &len) < 0 || len != lbytes ||
	    gt_bitw_close(&w.mw, &len) < 0 || len != mbytes)
		return GT_ERR(INVAL); /* cannot happen: counted above */
	if (vec)
		memcpy(out + hlen, c->lbuf, lbytes);
	if (mout != out + hlen + lbytes)
		memcpy(out + hlen + lbytes, mout, mbytes);
	if (!tab)
		GT_TRY(gt_bitw_close(&w.cw, &clen));
	if (mdirect) {
		if (clen > dst_cap - lm - tab)
			return GT_ERR(DST_TOO_SMALL);
		memcpy(out + lm + tab, c->cbuf, clen);
	}
	/* last: the vector encoder's mantissa stores run past its place */
	memcpy(out + lm, tabv, tab);
	*dst_len_ret = lm + tab + clen;
	return 0;
}

int gc_encode_chunk(struct gc_ctx *c, const void *src, size_t n,
		    const struct gt_codec_aux *aux, void *dst, size_t dst_cap,
		    size_t *dst_len_ret)
{
	uint64_t cnt[4];

	*dst_len_ret = 0;
	GT_TRY(gc_chunk_levels(c, src, n, aux, cnt));
	return gc_chunk_write(c, n, cnt, dst, dst_cap, dst_len_ret);
}
