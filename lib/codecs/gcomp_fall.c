/* gcomp_fall.c - gcomp's fallback: a block that huffexp codes in fewer bytes is coded as huffexp */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gt_chunk.h"
#include "../gt_zstruct.h"
#include "gcomp_impl.h"
#include "../banned.h"

/*
 * Format 1.3 (formats/GTZ.md, "The gcomp codec"): a gcomp block is coded
 * either as gcomp (its meta is the gt_huff_save() table, whose first byte
 * is 1, or 2 from format 1.5 for split chunks, or empty with a static
 * table) or as huffexp: its meta is then huffexp's block meta with the
 * first byte XOR 0x3f, and its chunks are huffexp's chunks.  huffexp's
 * first meta byte is a mode byte, k | sign << 6 with k <= 52, or 0xff
 * (zero structure): XOR 0x3f makes its low six bits 63 - k >= 11, or
 * 0xc0, never 1 or 2, and the meta is never empty.  So the fallback costs
 * no byte over huffexp's block.
 *
 * block_begin_aux() chooses exactly, not by estimate: it codes the block
 * as gcomp chunks of the default size (GT_CHUNK_DEFAULT values) into
 * scratch, with the optimizer context the chunks will get, and compares
 * those bytes and its table with a lower bound on huffexp's (its meta and
 * gt_huffexp_block_bits()).  gcomp is kept when it is not larger than
 * that bound; else huffexp codes the block into scratch too, and the
 * smaller wins (a tie keeps gcomp).  So with that chunk size a gcomp
 * block is never larger than huffexp's.  The chunks coded are kept:
 * encoding the same chunk (same values, same parameter array) copies
 * them, so on a block where gcomp clearly wins the choice costs a
 * huffexp histogram and table, not a second encode.  A block of one
 * chunk (most tensors of a trace) is settled before gcomp writes a
 * byte where it can be: its levels give bounds on gcomp's bytes
 * (gc_own_bounds()), huffexp coding it in fewer than the lower one
 * makes it huffexp's, huffexp's floor at or above the upper one makes
 * it gcomp's, and the encode that follows writes the chunk from those
 * levels to its place, with no copy.  The choices are the same.
 * Without the optimizer context in a mode that needs it the block is
 * coded as gcomp, as before; so is every block of block_begin() (no
 * aux), which the HDF5 filter and the allreduce ring call: their data
 * keep the coding they had.
 */
#define GC_FALL_FLIP 0x3fu

int gc_fall_new(struct gc_ctx *c, const struct gt_codec_params *p, struct gt_diag *d)
{
	struct gt_codec_params hp = *p;
	char opts[64];

	snprintf(opts, sizeof(opts), "maxlen=%u,method=%s", c->maxlen,
		 gt_huff_method_name(c->method));
	hp.opts = opts;
	hp.optim = NULL;
	c->row_len = p->row_len;
	gt_zs_init(&c->zs);
	GT_TRY(gt_codec_new(&gt_codec_huffexp, &hp, &c->hx, d));
	/* the huffexp blocks run the loops gcomp's isa= asked for too, so
	 * that isa=avx2 measures what an AVX2-only CPU runs */
	gt_codec_set_isa(c->hx, gc_gt_isa(c));
	return 0;
}

void gc_fall_free(struct gc_ctx *c)
{
	gt_codec_free(c->hx);
	gt_zs_release(&c->zs);
	for (int k = 0; k < 2; k++) {
		free(c->kept[k].buf);
		free(c->kept[k].off);
	}
	memset(c->kept, 0, sizeof(c->kept));
	c->hx = NULL;
	c->knch = 0;
}

static void forget(struct gc_ctx *c)
{
	c->knch = 0;
	c->kfall = 0;
	c->ksrc = NULL;
	c->kparam = NULL;
	c->kfresh = 0;
	c->kdefer = 0;
}

static int gc_needs_aux(const struct gt_codec_ctx *ctx)
{
	const enum gc_mode m = gcc(ctx)->mode;

	return m == GC_FULL || m == GC_MULTI || m == GC_EXACT;
}

/* @aux advanced to value @i of its block (NULL stays NULL). */
static const struct gt_codec_aux *aux_at(const struct gt_codec_aux *aux, size_t i,
					 struct gt_codec_aux *a)
{
	if (!aux)
		return NULL;
	a->param = aux->param ? aux->param + i : NULL;
	a->param64 = aux->param64 ? aux->param64 + i : NULL;
	for (int k = 0; k < 2; k++) {
		a->state[k] = aux->state[k] ? aux->state[k] + i : NULL;
		a->state64[k] = aux->state64[k] ? aux->state64[k] + i : NULL;
	}
	return a;
}

static int grow(struct gc_kept *k, size_t need, size_t nch)
{
	if (need > k->cap) {
		unsigned char *p = realloc(k->buf, need);

		if (!p)
			return GT_ERR(NOMEM);
		k->buf = p;
		k->cap = need;
	}
	if (nch + 1 > k->off_cap) {
		size_t *o = realloc(k->off, (nch + 1) * sizeof(*o));

		if (!o)
			return GT_ERR(NOMEM);
		k->off = o;
		k->off_cap = nch + 1;
	}
	return 0;
}

/* The chunks kept (c->kept[c->kfall]) as those of the @n values at @src
 * with @aux. */
static void keep(struct gc_ctx *c, const unsigned char *src, size_t n,
		 const struct gt_codec_aux *aux)
{
	c->knch = (n + GT_CHUNK_DEFAULT - 1) / GT_CHUNK_DEFAULT;
	c->ksrc = src;
	c->kn = n;
	c->kparam = aux ? aux->param : NULL;
}

/* The block of @n values at @src as gcomp chunks of the default size in
 * c->kept[0] (for encode); *@bytes_ret: their bytes.  @cnt: the block is
 * one chunk whose levels gc_chunk_levels() gave, or NULL. */
static int own_chunks(struct gc_ctx *c, const unsigned char *src, size_t n,
		      const struct gt_codec_aux *aux, const uint64_t *cnt,
		      uint64_t *bytes_ret)
{
	const struct gt_codec_ctx *const ctx = (const struct gt_codec_ctx *)(void *)c;
	const size_t nch = (n + GT_CHUNK_DEFAULT - 1) / GT_CHUNK_DEFAULT;
	const size_t full = gc_own_bound(ctx, GT_CHUNK_DEFAULT);
	size_t off = 0;

	/* room for every chunk at its worst once: no realloc (and copy) per
	 * chunk; the pages not written are not touched */
	if (!full || nch > SIZE_MAX / full)
		return GT_ERR(OVERFLOW);
	GT_TRY(grow(&c->kept[0], nch * full, nch));
	c->kept[0].off[0] = 0;
	for (size_t i = 0; i < nch; i++) {
		const size_t first = i * GT_CHUNK_DEFAULT;
		const size_t k = n - first < GT_CHUNK_DEFAULT ? n - first : GT_CHUNK_DEFAULT;
		const size_t b = gc_own_bound(ctx, k);
		unsigned char *const out = c->kept[0].buf + off;
		struct gt_codec_aux a;
		size_t len;

		if (cnt)
			GT_TRY(gc_chunk_write(c, k, cnt, out, b, &len));
		else
			GT_TRY(gc_encode_chunk(c, src + first * c->width, k,
					       aux_at(aux, first, &a), out, b, &len));
		off += len;
		c->kept[0].off[i + 1] = off;
	}
	keep(c, src, n, aux);
	*bytes_ret = off;
	return 0;
}

/* @h with the @len +0.0 of a run (or, under GT_HUFF_RUN_MIN, single
 * ZERO tokens) added (@sign 1) or taken out (-1), as gt_huff_hist()
 * counts them. */
static void count_zeros(struct gt_huff_hist *h, unsigned eb, size_t len, int sign)
{
	const uint64_t d = sign > 0 ? 1 : UINT64_MAX; /* wraps: -1 */

	if (len >= GT_HUFF_RUN_MIN) {
		h->count[GT_HUFF_RUN(eb)] += d;
		h->run_zeros += d * len;
		h->run_bits += d * gt_huff_run_bits(len);
	} else {
		h->count[GT_HUFF_ZERO(eb)] += d * len;
	}
}

/*
 * gcomp's block_begin counts a run of +0.0 that crosses the end of one of
 * its slices (GC_SLICE values) as its pieces: recount each such run of
 * @h whole, which makes it gt_huff_hist() of the block.
 */
static void join_runs(const struct gc_ctx *c, struct gt_huff_hist *h, const void *src,
		      size_t n)
{
	size_t done = 0;

	for (size_t b = GC_SLICE; b < n; b += GC_SLICE) {
		size_t lo = b, hi = b;

		if (b < done || gt_fp_load(src, c->dt, b - 1) || gt_fp_load(src, c->dt, b))
			continue;
		while (lo > 0 && !gt_fp_load(src, c->dt, lo - 1))
			lo--;
		while (hi < n && !gt_fp_load(src, c->dt, hi))
			hi++;
		/* the pieces, split at every slice end inside [lo, hi) */
		for (size_t p = lo; p < hi;) {
			const size_t end = (p / GC_SLICE + 1) * GC_SLICE;
			const size_t q = end < hi ? end : hi;

			count_zeros(h, c->eb, q - p, -1);
			p = q;
		}
		count_zeros(h, c->eb, hi - lo, 1);
		done = hi;
	}
}

/* huffexp's histogram of the block from gcomp's (not counted again), or
 * NULL when gcomp's is not of the values as they are. */
static const struct gt_huff_hist *hx_hist(struct gc_ctx *c, const void *src, size_t n)
{
	if (c->hist_whole != 2)
		return c->hist_whole ? &c->hist : NULL;
	c->hxhist = c->hist;
	join_runs(c, &c->hxhist, src, n);
	return &c->hxhist;
}

/* Whether huffexp's mantissa words of the block are 1 + M bits (k = 0,
 * signs mixed, as its block_mode finds): an odd mantissa seen and, but
 * for f32 (which keeps the sign), both signs on values that are not 0. */
static int full_words(const struct gc_ctx *c, const void *src, size_t n)
{
	const uint64_t mag = (UINT64_C(1) << (c->eb + c->mb)) - 1;
	unsigned odd = 0, sg = c->dt == GT_DT_F32 ? 3 : 0;

	for (size_t i = 0; i < n && !(odd && sg == 3); i++) {
		const uint64_t u = gt_fp_load(src, c->dt, i);

		odd |= (unsigned)(u & 1);
		if (u & mag)
			sg |= 1u << (u >> (c->eb + c->mb) & 1);
	}
	return odd && sg == 3;
}

/*
 * A lower bound on huffexp's bytes for the block, without its table, or
 * 0.  The values with an exponent token: their codes take at least the
 * entropy of those tokens' counts (the codes of any subset of a prefix
 * code's symbols meet Kraft's inequality; ESC and its raw exponent make
 * code words as well), and each carries a word of 1 + M bits; zeros are
 * counted as free.  The meta takes at least a mode byte and a table
 * header (6 bytes), each chunk a byte of count.  Only for a block that
 * huffexp codes plain (no zero row or column: no zero structure) and
 * with full words.
 */
static uint64_t hx_floor(struct gc_ctx *c, const void *src, size_t n,
			 const struct gt_huff_hist *h)
{
	const size_t nch = (n + GT_CHUNK_DEFAULT - 1) / GT_CHUNK_DEFAULT;
	uint64_t carriers = 0;
	double bits;

	if (!h || !full_words(c, src, n))
		return 0;
	if (c->row_len && gt_zs_find(&c->zs, src, n, c->dt, c->row_len) != GT_ERR(INVAL) &&
	    c->zs.flags)
		return 0; /* a zero row or column (or an error): huffexp decides */
	for (unsigned s = 0; s < (1u << c->eb); s++)
		carriers += h->count[s];
	bits = 0;
	for (unsigned s = 0; s < (1u << c->eb); s++)
		if (h->count[s])
			bits += (double)h->count[s] * log2((double)carriers / (double)h->count[s]);
	bits += (double)carriers * (1 + c->mb);
	/* a bit less than the entropy, for its rounding */
	bits = bits > 2 ? bits * (1 - 1e-9) - 2 : 0;
	return 6 + nch + (uint64_t)bits / 8;
}

/* huffexp's block meta of the @n values at @src into @hm (*@hlen_ret
 * bytes) and a lower bound on its bytes in all (meta included), cheap:
 * one histogram; 0 when huffexp cannot code the block. */
static int hx_cost(struct gc_ctx *c, const void *src, size_t n,
		   const struct gt_huff_hist *hist, unsigned char *hm, size_t *hlen_ret,
		   uint64_t *bytes_ret)
{
	uint64_t bits;
	int rc;

	*bytes_ret = 0;
	if (hist)
		gt_huffexp_hint_hist(c->hx, hist);
	rc = gt_codec_block_begin(c->hx, src, n, hm, GT_CODEC_META_MAX, hlen_ret);
	if (rc >= 0)
		rc = gt_huffexp_block_bits(c->hx, src, n, &bits);
	if (rc == GT_ERR(NOMEM))
		return rc;
	if (rc >= 0 && *hlen_ret)
		*bytes_ret = *hlen_ret + bits / 8;
	return 0;
}

/* huffexp's exact bytes of the block begun in c->hx (chunks of the
 * default size, kept in c->kept[1], meta of @hlen bytes) into
 * *@bytes_ret; 0: none. */
static int hx_exact(struct gc_ctx *c, const unsigned char *src, size_t n, size_t hlen,
		    uint64_t *bytes_ret)
{
	const size_t nch = (n + GT_CHUNK_DEFAULT - 1) / GT_CHUNK_DEFAULT;
	const size_t full = gt_codec_bound(c->hx, GT_CHUNK_DEFAULT);
	struct gc_kept *const k = &c->kept[1];
	size_t off = 0;
	int rc = 0;

	*bytes_ret = 0;
	if (!full || nch > SIZE_MAX / full)
		return 0;
	GT_TRY(grow(k, nch * full, nch));
	k->off[0] = 0;
	for (size_t i = 0; i < nch && rc >= 0; i++) {
		const size_t first = i * GT_CHUNK_DEFAULT;
		const size_t m = n - first < GT_CHUNK_DEFAULT ? n - first : GT_CHUNK_DEFAULT;
		size_t len = 0;

		rc = gt_codec_encode(c->hx, src + first * c->width, m, k->buf + off, full, &len);
		off += len;
		k->off[i + 1] = off;
	}
	if (rc == GT_ERR(NOMEM))
		return rc;
	*bytes_ret = rc < 0 ? 0 : hlen + off;
	return 0;
}

/* What block_begin_aux() learned of huffexp's bytes for its block:
 * each step once, each needing the one before (0: none; 1: the
 * floor; 2: the cost, the meta in hm; 3: the bytes as coded). */
struct hx_view {
	const struct gt_huff_hist *hist;
	int step;
	uint64_t floor, cost, exact;
	size_t hlen;
	unsigned char hm[GT_CODEC_META_MAX];
};

/* *@below: whether huffexp codes the block in fewer than @bound bytes,
 * meta included (then its chunks are in c->kept[1], its meta in v->hm);
 * each step only where the one before leaves it open. */
static int hx_below(struct gc_ctx *c, const unsigned char *src, size_t n,
		    struct hx_view *v, uint64_t bound, size_t meta_cap, int *below)
{
	*below = 0;
	if (v->step < 1) {
		v->floor = hx_floor(c, src, n, v->hist);
		v->step = 1;
	}
	if (v->floor >= bound)
		return 0;
	if (v->step < 2) {
		GT_TRY(hx_cost(c, src, n, v->hist, v->hm, &v->hlen, &v->cost));
		v->step = 2;
	}
	if (!v->cost || v->cost >= bound || v->hlen > meta_cap)
		return 0;
	if (v->step < 3) {
		GT_TRY(hx_exact(c, src, n, v->hlen, &v->exact));
		v->step = 3;
	}
	*below = v->exact && v->exact < bound;
	return 0;
}

/*
 * Bounds on gcomp's bytes of a block that is one chunk of @n values.
 * All but the code stream is exact (gc_chunk_fixed()).  Its code stream
 * takes at least the codes of the carriers of exponents 1 and up (mode
 * exact may prune a subnormal), and at most the tokens c->hist counts:
 * the block's one slice, tokenized as the chunk is, when no value
 * changes (exact mode: no subnormal): huffexp's cost of them
 * (gt_huff_cost()) less its words of 1 + M bits, plus what cutting runs
 * at a split chunk's three part ends may add (both pieces coded whole)
 * and the padding of each code stream.
 */
void gc_own_bounds(const struct gc_ctx *c, size_t n, const uint64_t *cnt, uint64_t *lo,
		   uint64_t *hi)
{
	const struct gt_huff_hist *h = &c->hist;
	const unsigned z = GT_HUFF_ZERO(c->eb), run = GT_HUFF_RUN(c->eb);
	const uint64_t fixed = gc_chunk_fixed(c, n, cnt);
	uint64_t bits = 0, words = 0, cost, esc, cut;

	*hi = UINT64_MAX;
	*lo = fixed;
	if (c->fixed)
		return; /* c->hist is not of this block */
	for (unsigned s = 0; s < (1u << c->eb); s++) {
		words += h->count[s];
		bits += s ? h->count[s] * (c->enc[s] >> 32 & 0xff) : 0;
	}
	*lo = fixed + bits / 8;
	if ((c->mode == GC_EXACT && h->count[0]) || n > GC_SLICE ||
	    gt_huff_cost(&c->table, h, &cost, &esc) < 0)
		return;
	bits = cost - words * (1 + c->mb);
	cut = c->runs && c->mode != GC_SINGLE && c->mode != GC_MULTI ?
	      2 * ((GT_HUFF_RUN_MIN - 1) * (c->enc[z] >> 32 & 0xff) +
		   (c->enc[run] >> 32 & 0xff) + gt_huff_run_bits(n)) : 0;
	*hi = fixed + (GC_SPLIT_CHUNK(c->split, n) ? bits + 3 * cut + 4 * 7 : bits + 7) / 8;
}

/*
 * gcomp's bytes (*@own), kept, unless bounds on them settle the choice.
 * A block of one chunk gets its levels first and gc_own_bounds(), meta
 * included: when huffexp's bytes are below the lower bound, the block is
 * huffexp's (*@below) and gcomp writes nothing; when huffexp's floor is
 * at or above the upper one, gcomp's (*@own 0), and the chunk is written
 * by the encode that follows, straight to its place.  The same choice as
 * coding both.
 */
static int own_or_below(struct gc_ctx *c, const unsigned char *src, size_t n,
			const struct gt_codec_aux *aux, size_t mlen, size_t meta_cap,
			struct hx_view *v, uint64_t *own, int *below)
{
	uint64_t lo, hi;

	*below = 0;
	*own = 0;
	if (!n || n > GT_CHUNK_DEFAULT)
		return own_chunks(c, src, n, aux, NULL, own);
	GT_TRY(gc_chunk_levels(c, src, n, aux, c->kcnt));
	gc_own_bounds(c, n, c->kcnt, &lo, &hi);
	GT_TRY(hx_below(c, src, n, v, lo + mlen, meta_cap, below));
	if (*below || (hi < UINT64_MAX && v->floor >= hi + mlen)) {
		keep(c, src, n, aux);
		c->kdefer = !*below;
		return 0;
	}
	return own_chunks(c, src, n, aux, c->kcnt, own);
}

/* The meta block_begin_aux() returns, for the block_load() of it that
 * keeps the chunks (too long to keep: that load forgets them). */
static void keep_meta(struct gc_ctx *c, const unsigned char *m, size_t len)
{
	c->kfresh = len <= sizeof(c->kmeta);
	if (c->kfresh) {
		memcpy(c->kmeta, m, len);
		c->kmeta_len = len;
	}
}

static int gc_block_begin_aux(struct gt_codec_ctx *ctx, const void *src, size_t n,
			      const struct gt_codec_aux *aux, void *meta, size_t meta_cap,
			      size_t *meta_len_ret)
{
	struct gc_ctx *c = gc(ctx);
	unsigned char *const m = meta;
	struct hx_view v;
	uint64_t own = 0;
	int below;

	forget(c);
	c->fall = 0;
	GT_TRY(gc_own_begin(ctx, src, n, 1, meta, meta_cap, meta_len_ret));
	if (gc_needs_aux(ctx) && (!aux || !c->optim || (n && !aux->param)))
		return 0; /* cannot cost (or code) gcomp's levels */
	v.hist = hx_hist(c, src, n);
	v.step = 0;
	GT_TRY(own_or_below(c, src, n, aux, *meta_len_ret, meta_cap, &v, &own, &below));
	if (!below) {
		keep_meta(c, m, *meta_len_ret);
		/* near: huffexp's bytes as coded (ties keep gcomp) */
		if (!c->kdefer)
			GT_TRY(hx_below(c, src, n, &v, own + *meta_len_ret, meta_cap, &below));
		if (!below)
			return 0;
	}
	/* huffexp's context holds the block (a block_load of @meta keeps it),
	 * and c->kept[1] its chunks */
	c->kfall = 1;
	memcpy(m, v.hm, v.hlen);
	m[0] ^= GC_FALL_FLIP;
	*meta_len_ret = v.hlen;
	c->fall = 1;
	keep_meta(c, m, v.hlen);
	return 0;
}

/* gcomp's own block, always, its chunks never split (gt_codec_block_begin:
 * the HDF5 filter and the ring keep the bytes they had). */
static int gc_block_begin(struct gt_codec_ctx *ctx, const void *src, size_t n,
			  void *meta, size_t meta_cap, size_t *meta_len_ret)
{
	struct gc_ctx *c = gc(ctx);

	forget(c);
	c->fall = 0;
	return gc_own_begin(ctx, src, n, 0, meta, meta_cap, meta_len_ret);
}

/* Whether @meta is a fallback block's: not a saved table (first byte
 * GC_META_TABLE or GC_META_SPLIT), not empty where the table is static. */
static int is_fall(const struct gc_ctx *c, const unsigned char *m, size_t meta_len)
{
	return meta_len && (c->fixed || (m[0] != GC_META_TABLE && m[0] != GC_META_SPLIT));
}

static int gc_block_load(struct gt_codec_ctx *ctx, const void *meta, size_t meta_len)
{
	struct gc_ctx *c = gc(ctx);
	unsigned char buf[GT_CODEC_META_MAX];

	/* the chunks kept are for the meta block_begin just returned */
	if (!c->kfresh || meta_len != c->kmeta_len || memcmp(meta, c->kmeta, meta_len))
		forget(c);
	c->kfresh = 0;
	c->fall = 0;
	if (is_fall(c, meta, meta_len)) {
		if (meta_len > sizeof(buf)) {
			forget(c);
			return GT_ERR(CORRUPT);
		}
		memcpy(buf, meta, meta_len);
		buf[0] ^= GC_FALL_FLIP;
		GT_TRY(gt_codec_block_load(c->hx, buf, meta_len));
		c->fall = 1;
		return 0;
	}
	return gc_own_load(ctx, meta, meta_len);
}

/* The chunk block_begin_aux() coded for @n values at @src with @aux, or
 * -1. */
static long kept_chunk(const struct gc_ctx *c, const void *src, size_t n,
		       const struct gt_codec_aux *aux)
{
	const uintptr_t at = (uintptr_t)src, base = (uintptr_t)c->ksrc;
	const size_t step = (size_t)GT_CHUNK_DEFAULT * c->width;
	size_t i, first;

	if (!c->knch || at < base || (at - base) % step)
		return -1;
	i = (at - base) / step;
	first = i * GT_CHUNK_DEFAULT;
	if (i >= c->knch || n != (c->kn - first < GT_CHUNK_DEFAULT ? c->kn - first :
				  GT_CHUNK_DEFAULT))
		return -1;
	/* gcomp's levels: of the optimizer context that block_begin had */
	if (!c->kfall && (c->kparam ? !aux || aux->param != c->kparam + first :
			  aux && aux->param))
		return -1;
	return (long)i;
}

static int gc_encode_aux(struct gt_codec_ctx *ctx, const void *src, size_t n,
			 const struct gt_codec_aux *aux, void *dst, size_t dst_cap,
			 size_t *dst_len_ret)
{
	struct gc_ctx *c = gc(ctx);
	long i;

	*dst_len_ret = 0;
	if (!c->fall && gc_needs_aux(ctx) && (!aux || !c->optim || (n && !aux->param)))
		return GT_ERR(INVAL);
	i = c->fall == c->kfall ? kept_chunk(c, src, n, aux) : -1;
	if (c->fall && i < 0)
		return gt_codec_encode(c->hx, src, n, dst, dst_cap, dst_len_ret);
	if (i >= 0 && c->kdefer) {
		/* once: a decode may reuse the levels' scratch */
		forget(c);
		return gc_chunk_write(c, n, c->kcnt, dst, dst_cap, dst_len_ret);
	}
	if (i >= 0) {
		const struct gc_kept *k = &c->kept[c->kfall];
		const size_t len = k->off[i + 1] - k->off[i];

		if (len > dst_cap)
			return GT_ERR(DST_TOO_SMALL);
		memcpy(dst, k->buf + k->off[i], len);
		*dst_len_ret = len;
		return 0;
	}
	if (c->kdefer)
		forget(c); /* the levels kept are about to be overwritten */
	return gc_encode_chunk(c, src, n, aux, dst, dst_cap, dst_len_ret);
}

static int gc_encode(struct gt_codec_ctx *ctx, const void *src, size_t n,
		     void *dst, size_t dst_cap, size_t *dst_len_ret)
{
	return gc_encode_aux(ctx, src, n, NULL, dst, dst_cap, dst_len_ret);
}

static int gc_fall_decode(struct gt_codec_ctx *ctx, const void *src, size_t src_len,
			  void *dst, size_t n)
{
	struct gc_ctx *c = gc(ctx);

	if (c->fall)
		return gt_codec_decode(c->hx, src, src_len, dst, n);
	return gc_decode(ctx, src, src_len, dst, n);
}

/* Either codec's worst case: a block may be coded by either. */
static size_t gc_bound(const struct gt_codec_ctx *ctx, size_t n)
{
	const size_t a = gc_own_bound(ctx, n), b = gt_codec_bound(gcc(ctx)->hx, n);

	return !a || !b ? 0 : a > b ? a : b;
}

/*
 * The counters of a fallback chunk: every value kept exactly (with its
 * mantissa) counts as level0, every ±0.0 (coded by its token or the zero
 * structure) as pruned, as they would in a gcomp chunk.
 */
static int gc_stats(struct gt_codec_ctx *ctx, const void *src, size_t src_len, size_t n,
		    uint64_t *counts)
{
	struct gc_ctx *c = gc(ctx);
	const uint64_t mag = (UINT64_C(1) << (c->eb + c->mb)) - 1;
	unsigned char *v;
	uint64_t zeros = 0;
	int rc;

	if (!c->fall)
		return gc_chunk_stats(ctx, src, src_len, n, counts);
	if (n > SIZE_MAX / c->width)
		return GT_ERR(OVERFLOW);
	v = malloc(n ? n * c->width : 1);
	if (!v)
		return GT_ERR(NOMEM);
	rc = gt_codec_decode(c->hx, src, src_len, v, n);
	for (size_t i = 0; rc >= 0 && i < n; i++)
		zeros += !(gt_fp_load(v, c->dt, i) & mag);
	free(v);
	if (rc < 0)
		return rc;
	counts[0] += n - zeros;
	counts[4] += zeros;
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
		"method=M    table builder: best, gcomp or pm (default best)\n"
		"isa=I       instruction set: auto, scalar, avx2 or avx512; same output\n"
		"            (default auto)\n",
	.ctx_new = gc_new,
	.ctx_free = gc_free,
	.canon = gc_canon,
	.bound = gc_bound,
	.block_begin = gc_block_begin,
	.block_load = gc_block_load,
	.block_begin_aux = gc_block_begin_aux,
	.encode = gc_encode,
	.decode = gc_fall_decode,
	.encode_aux = gc_encode_aux,
	.needs_aux = gc_needs_aux,
	.stat_names = gc_stat_names,
	.chunk_stats = gc_stats,
};
