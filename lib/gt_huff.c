/* gt_huff.c - exponent histograms, length-limited Huffman codes, tables */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gt_bitio.h"
#include "gt_huff.h"
#include "gt_huff_simd.h"
#include "banned.h"

unsigned gt_huff_nsyms(enum gt_dtype dt)
{
	const unsigned e = gt_dtype_exp_bits(dt);

	return e ? (1u << e) + 4 : 0;
}

/* Only the counts of @dt's alphabet are cleared: 260 for f32, not the
 * 2052 of f64 (16 KiB a block, most of a small block's histogram time). */
void gt_huff_hist_init(struct gt_huff_hist *h, enum gt_dtype dt)
{
	h->dtype = dt;
	h->n = h->run_zeros = h->run_bits = 0;
	memset(h->count, 0, gt_huff_nsyms(dt) * sizeof(h->count[0]));
}

unsigned gt_huff_run_bits(uint64_t len)
{
	const uint64_t v = len - GT_HUFF_RUN_MIN + 1;

	return 2 * (unsigned)(63 - __builtin_clzll(v)) + 1;
}

static const char *const method_names[] = { "gcomp", "pm", "best" };

const char *gt_huff_method_name(enum gt_huff_method m)
{
	return (unsigned)m < 3 ? method_names[m] : "?";
}

int gt_huff_method_parse(const char *s)
{
	for (int m = 0; m < 3; m++)
		if (!strcmp(s, method_names[m]))
			return m;
	return -1;
}

void gt_huff_put_run(struct gt_bitw *w, uint64_t run_code, uint64_t len)
{
	const uint64_t v = len - GT_HUFF_RUN_MIN + 1;
	const unsigned k = 63 - (unsigned)__builtin_clzll(v);
	const uint64_t low = v & ((UINT64_C(1) << k) - 1);
	unsigned z = k;

	gt_bitw_put(w, (uint32_t)run_code, (unsigned)(run_code >> 32) & 0xff);
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

uint64_t gt_huff_get_run(struct gt_bitr *r)
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

size_t gt_huff_zeros_from(const void *src, enum gt_dtype dt, size_t i, size_t n)
{
	size_t j = i;

	while (j < n && !gt_fp_load(src, dt, j))
		j++;
	return j - i;
}

/* ---- histogram ---------------------------------------------------------- */

/* Symbol of a value that is not the start of a run. */
static inline __attribute__((always_inline)) unsigned
sym_of(uint64_t u, enum gt_dtype dt)
{
	const unsigned eb = gt_dtype_exp_bits(dt);
	const unsigned mb = gt_dtype_man_bits(dt);
	const uint64_t mag = u & ((UINT64_C(1) << (eb + mb)) - 1);
	const unsigned e = (unsigned)(u >> mb) & ((1u << eb) - 1);

	return mag ? e : (1u << eb) + (unsigned)(u >> (eb + mb));
}

/* Number of +0.0 values from @i on (at most n - i). */
static inline __attribute__((always_inline)) size_t
zero_len(const void *src, size_t i, size_t n, enum gt_dtype dt)
{
	size_t j = i;

	while (j < n && !gt_fp_load(src, dt, j))
		j++;
	return j - i;
}

/* Bit k: value i + k is +0.0, for k < 64 (needs i + 64 <= n). */
static inline __attribute__((always_inline)) uint64_t
zero_mask(const void *src, size_t i, enum gt_dtype dt)
{
	uint64_t m = 0;

	for (unsigned k = 0; k < 64; k++)
		m |= (uint64_t)(gt_fp_load(src, dt, i + k) == 0) << k;
	/* bit k: values k .. k+RUN_MIN-1 are all +0.0 (valid for k <= 56) */
	m &= m >> 1;
	m &= m >> 2;
	m &= m >> 4;
	return m;
}

/*
 * The histogram loop for one dtype (inlined with a constant @dt).  Groups
 * of 56 values share one run mask, so the loop has no branch on the data
 * except at run starts; four sub-histograms break the store-to-load
 * chains of repeated symbols.
 */
static inline __attribute__((always_inline)) void
hist_impl(struct gt_huff_hist *h, const void *src, size_t n,
	  enum gt_dtype dt, uint64_t (*sub)[260], unsigned nsub)
{
	const unsigned eb = gt_dtype_exp_bits(dt);
	size_t i = 0;

	while (i < n) {
		const size_t g = i;
		const int full = n - g >= 64;
		const size_t lim = full ? g + 56 : n;
		const uint64_t runs = full ? zero_mask(src, g, dt) : 0;

		for (; i < lim; i++) {
			const uint64_t u = gt_fp_load(src, dt, i);
			const int try_run = full ? (int)(runs >> (i - g) & 1) : !u;

			if (__builtin_expect(try_run, 0)) {
				const size_t len = zero_len(src, i, n, dt);

				if (len >= GT_HUFF_RUN_MIN) {
					h->count[GT_HUFF_RUN(eb)]++;
					h->run_zeros += len;
					h->run_bits += gt_huff_run_bits(len);
					i += len;
					break;
				}
			}
			if (nsub)
				sub[i & (nsub - 1)][sym_of(u, dt)]++;
			else
				h->count[sym_of(u, dt)]++;
		}
	}
}

/* Sub-histogram stride: not a multiple of 4 KiB, or the counters of one
 * symbol in the sub-histograms alias in the store buffer. */
#define HIST_STRIDE (1024 + 16)
#define HIST_NSUB 4
#define HIST_SMALL 64                  /* values: fewer go through hist_impl() */
#define HIST_SEG ((size_t)1 << 30)     /* values per fold: uint32 counters */

_Static_assert(GT_HUFF_RUN_MIN == 8, "run_starts() looks 7 values ahead");
_Static_assert(GT_HUFF_CHUNK % 64 == 0 && GT_HUFF_IDX_MAX >= GT_HUFF_CHUNK + 7,
	       "a chunk's run starts need 7 values of look-ahead");

/*
 * The f32 sub-histograms, indexed as gt_huff_simd.h says, and the
 * exponent fields cleared in them: lo..hi of both signs, and the two
 * ±0.0 counters.  A block's exponents span a few dozen fields, so only
 * those are cleared and folded, not all 1040 counters of each.
 */
struct hist_sub {
	uint32_t c[HIST_NSUB][HIST_STRIDE];
	unsigned lo, hi; /* lo > hi: none */
};

static void sub_clear(struct hist_sub *s, unsigned a, unsigned b)
{
	for (unsigned k = 0; k < HIST_NSUB; k++)
		for (unsigned e = a; e <= b; e++)
			s->c[k][e] = s->c[k][256 + e] = 0;
}

static void sub_init(struct hist_sub *s)
{
	s->lo = 1;
	s->hi = 0;
	for (unsigned k = 0; k < HIST_NSUB; k++)
		s->c[k][512] = s->c[k][768] = 0;
}

/* Clear what fields lo..hi (lo > hi: none) add to the cleared range. */
static void sub_grow(struct hist_sub *s, unsigned lo, unsigned hi)
{
	if (lo > hi)
		return;
	if (s->lo > s->hi) {
		sub_clear(s, lo, hi);
		s->lo = lo;
		s->hi = hi;
		return;
	}
	if (lo < s->lo) {
		sub_clear(s, lo, s->lo - 1);
		s->lo = lo;
	}
	if (hi > s->hi) {
		sub_clear(s, s->hi + 1, hi);
		s->hi = hi;
	}
}

static void sub_fold(struct gt_huff_hist *h, const struct hist_sub *s)
{
	for (unsigned k = 0; k < HIST_NSUB; k++) {
		for (unsigned e = s->lo; e <= s->hi; e++)
			h->count[e] += (uint64_t)s->c[k][e] + s->c[k][256 + e];
		h->count[GT_HUFF_ZERO(8)] += s->c[k][512];
		h->count[GT_HUFF_NZERO(8)] += s->c[k][768];
	}
}

/* Four lanes (GCC/clang vector extension: SSE2, NEON, or plain C). */
typedef uint32_t hist_v4 __attribute__((vector_size(16)));

/*
 * The first pass in portable C (gt_huff_simd.h), four values at a time.
 * The range: a ±0.0 has index 512 or 768, so its index & 0x2ff (512)
 * never lowers the least field and its index & 0xff (0) never raises
 * the greatest.
 */
static void idx_portable(const unsigned char *src, size_t m, uint32_t *idx,
			 uint64_t *zero, unsigned *lo_ret, unsigned *hi_ret)
{
	const hist_v4 bit = { 1, 2, 4, 8 };
	hist_v4 mn = bit * 0 + 512, mx = bit * 0;
	unsigned lo = 512, hi = 0;
	size_t k = 0;

	memset(zero, 0, GT_HUFF_ZWORDS * sizeof(*zero));
	for (; m - k >= 32; k += 32) {
		hist_v4 acc = bit * 0;

		__builtin_prefetch(src + 4 * k + GT_PREFETCH_DIST);
		__builtin_prefetch(src + 4 * k + 64 + GT_PREFETCH_DIST);
		for (unsigned q = 0; q < 32; q += 4) {
			hist_v4 v, x, a, b, lt, gt;

			memcpy(&v, src + 4 * (k + q), 16);
			x = v >> 23 | ((hist_v4)(v << 1 == 0) & 512);
			acc |= ((hist_v4)(v == 0) & bit) << q;
			a = x & 0x2ff;
			b = x & 0xff;
			lt = (hist_v4)(a < mn);
			gt = (hist_v4)(b > mx);
			memcpy(idx + k + q, &x, 16);
			mn = (a & lt) | (mn & ~lt);
			mx = (b & gt) | (mx & ~gt);
		}
		zero[k / 64] |= (uint64_t)(acc[0] | acc[1] | acc[2] | acc[3]) << (k % 64);
	}
	for (unsigned j = 0; j < 4; j++) {
		lo = mn[j] < lo ? mn[j] : lo;
		hi = mx[j] > hi ? mx[j] : hi;
	}
	gt_huff_idx_tail(src, k, m, idx, zero, &lo, &hi);
	*lo_ret = lo;
	*hi_ret = hi;
}

static void idx_isa(enum gt_isa isa, const unsigned char *src, size_t m,
		    uint32_t *idx, uint64_t *zero, unsigned *lo, unsigned *hi)
{
#if GT_ISA_X86
	if (isa == GT_ISA_AVX512) {
		gt_huff_idx_avx512(src, m, idx, zero, lo, hi);
		return;
	}
	if (isa == GT_ISA_AVX2) {
		gt_huff_idx_avx2(src, m, idx, zero, lo, hi);
		return;
	}
#endif
	(void)isa;
	idx_portable(src, m, idx, zero, lo, hi);
}

/* Bit k of @rs (k < @c): values k..k+7 of the zero map @z are all +0.0.
 * Three shift-ands, each word taking the bits it needs from the next. */
static void run_starts(const uint64_t *z, size_t c, uint64_t *rs)
{
	for (size_t w = 0; w * 64 < c; w++) {
		const uint64_t a = z[w], b = z[w + 1];
		const uint64_t a1 = a & (a >> 1 | b << 63), b1 = b & b >> 1;
		const uint64_t a2 = a1 & (a1 >> 2 | b1 << 62), b2 = b1 & b1 >> 2;

		rs[w] = a2 & (a2 >> 4 | b2 << 60);
	}
}

/* The first set bit of @rs from @j on, or @c when none is below @c. */
static size_t next_start(const uint64_t *rs, size_t j, size_t c)
{
	while (j < c) {
		const uint64_t w = rs[j / 64] >> (j % 64);

		if (w) {
			j += (size_t)__builtin_ctzll(w);
			return j < c ? j : c;
		}
		j = (j / 64 + 1) * 64;
	}
	return c;
}

/* The length of the stretch of +0.0 from value @s of the chunk at @src:
 * from its zero map @z (values [0, @m)), then from @src up to @n. */
static size_t run_len(const uint64_t *z, size_t s, size_t m,
		      const unsigned char *src, size_t n)
{
	size_t j = s;

	while (j < m) {
		const uint64_t other = ~z[j / 64] >> (j % 64);

		if (other) {
			j += (size_t)__builtin_ctzll(other);
			break;
		}
		j = (j / 64 + 1) * 64;
	}
	if (j < m)
		return j - s;
	/* the map ends in the run (its bits from m on are 0) */
	return m - s + zero_len(src, m, n, GT_DT_F32);
}

/* Plain tokens [j, e) of a chunk; sub-histogram k counts position k
 * (mod 4), which keeps repeated symbols from chaining stores. */
static void count_plain(const uint32_t *idx, size_t j, size_t e,
			uint32_t (*c)[HIST_STRIDE])
{
	for (; e - j >= 4; j += 4) {
		c[0][idx[j]]++;
		c[1][idx[j + 1]]++;
		c[2][idx[j + 2]]++;
		c[3][idx[j + 3]]++;
	}
	for (; j < e; j++)
		c[0][idx[j]]++;
}

/*
 * The second pass over the @c values of a chunk at @src (first pass
 * over @m >= c values, @n values left in the call): plain tokens up to
 * the next place where a run can start, which is where one does (the
 * value before it is not +0.0, or the bit before it would be set).
 * Returns the values consumed: c, or more when a run goes on past c.
 */
static size_t count_chunk(struct gt_huff_hist *h, const unsigned char *src,
			  size_t c, size_t m, size_t n, const uint32_t *idx,
			  const uint64_t *zero, uint32_t (*sub)[HIST_STRIDE])
{
	uint64_t rs[GT_HUFF_CHUNK / 64];
	size_t j = 0;

	run_starts(zero, c, rs);
	while (j < c) {
		const size_t s = next_start(rs, j, c);
		size_t len;

		count_plain(idx, j, s, sub);
		if (s == c)
			return c;
		len = run_len(zero, s, m, src, n);
		h->count[GT_HUFF_RUN(8)]++;
		h->run_zeros += len;
		h->run_bits += gt_huff_run_bits(len);
		j = s + len;
	}
	return j;
}

/*
 * f32: a chunk of GT_HUFF_CHUNK values at a time, in two passes (the
 * first vectorized where the CPU can, gt_huff_simd.h), into uint32
 * sub-histograms cleared and folded over the exponent fields seen only.
 */
static void hist_f32_all(struct gt_huff_hist *h, const unsigned char *src,
			 size_t n, enum gt_isa isa)
{
	struct hist_sub s;
	uint32_t idx[GT_HUFF_IDX_MAX];
	uint64_t zero[GT_HUFF_ZWORDS];
	size_t i = 0;

	if (n < HIST_SMALL) {
		hist_impl(h, src, n, GT_DT_F32, NULL, 0);
		return;
	}
	while (i < n) {
		const size_t end = n - i > HIST_SEG ? i + HIST_SEG : n;

		sub_init(&s);
		while (i < end) {
			const size_t c = end - i < GT_HUFF_CHUNK ? end - i : GT_HUFF_CHUNK;
			const size_t m = n - i < GT_HUFF_IDX_MAX ? n - i : GT_HUFF_IDX_MAX;
			unsigned lo, hi;

			idx_isa(isa, src + 4 * i, m, idx, zero, &lo, &hi);
			sub_grow(&s, lo, hi);
			i += count_chunk(h, src + 4 * i, c, m, n - i, idx, zero, s.c);
		}
		sub_fold(h, &s);
	}
}

void gt_huff_hist(struct gt_huff_hist *h, const void *src, size_t n)
{
	gt_huff_hist_isa(h, src, n, gt_isa_best());
}

void gt_huff_hist_isa(struct gt_huff_hist *h, const void *src, size_t n,
		      enum gt_isa isa)
{
	uint64_t sub[4][260];
	unsigned nsub = 0;

	if (!gt_isa_usable(isa))
		isa = GT_ISA_PORTABLE;
	switch (h->dtype) {
	case GT_DT_F32:
		hist_f32_all(h, src, n, isa);
		break;
	case GT_DT_BF16:
		memset(sub, 0, sizeof(sub));
		hist_impl(h, src, n, GT_DT_BF16, sub, nsub = 4);
		break;
	case GT_DT_F16:
		memset(sub, 0, sizeof(sub));
		hist_impl(h, src, n, GT_DT_F16, sub, nsub = 4);
		break;
	case GT_DT_F64:
		hist_impl(h, src, n, GT_DT_F64, sub, 0);
		break;
	case GT_DT_NONE:
		return;
	}
	for (unsigned k = 0; k < nsub; k++)
		for (unsigned s = 0; s < 260 && s < gt_huff_nsyms(h->dtype); s++)
			h->count[s] += sub[k][s];
	h->n += n;
}

/* ---- building codes ------------------------------------------------------ */

struct item {
	uint64_t w;
	unsigned sym;
};

/*
 * Scratch of one gt_huff_build() call, carved by work_layout() for @cap
 * items (the present symbols and ESC): a block has a few dozen, so it
 * usually fits on the stack (gt_huff_build); sizing it for f64's 2052
 * symbols and 15 levels made a 210 KB malloc per table.
 */
struct work {
	struct item *sorted; /* gather()'s, for both builders */
	uint16_t *order;     /* gather()'s symbols in increasing order, then ESC */
	struct item *it;     /* the items of one builder */
	uint64_t *lw;        /* package_merge: leaf weights, a sentinel after */
	uint64_t *wa, *wb;   /* 2 * cap + 2 each */
	uint32_t *parent;    /* 2 * cap */
	uint16_t *lead;      /* package_merge: maxlen rows of 2 * cap */
	uint8_t *ilen;       /* lengths of it[] */
	uint8_t *nlen;       /* native Huffman lengths of it[] */
	unsigned cap;
	unsigned nat_m;      /* build_pm: it[0..nat_m) are build_gcomp's items, */
	unsigned nat_d;      /* nlen[] their native lengths, nat_d the longest */
};

/* @n bytes at *@off from @base (NULL: none), *@off moved past them. */
static void *take(unsigned char *base, size_t *off, size_t n)
{
	void *p = base ? base + *off : NULL;

	*off += n;
	return p;
}

/* Lays the arrays of @wk out from @base (8-byte aligned; NULL: none) and
 * returns the bytes they take.  In this order every array is aligned:
 * the sizes are multiples of 8, then 4, then 2. */
static size_t work_layout(struct work *wk, unsigned char *base, unsigned cap,
			  unsigned maxlen)
{
	const size_t n2 = 2 * (size_t)cap + 2;
	size_t off = 0;

	wk->it = take(base, &off, cap * sizeof(struct item));
	wk->lw = take(base, &off, (cap + 1) * sizeof(uint64_t));
	wk->wa = take(base, &off, n2 * sizeof(uint64_t));
	wk->wb = take(base, &off, n2 * sizeof(uint64_t));
	wk->parent = take(base, &off, 2 * (size_t)cap * sizeof(uint32_t));
	wk->lead = take(base, &off, maxlen * 2 * (size_t)cap * sizeof(uint16_t));
	wk->ilen = take(base, &off, cap);
	wk->nlen = take(base, &off, cap);
	wk->cap = cap;
	wk->nat_m = wk->nat_d = 0;
	return off;
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->w != y->w)
		return x->w < y->w ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/*
 * Sort @m items by (weight, symbol): a total order, so any sort gives the
 * same result.  The exponents of a block are a few dozen symbols, for
 * which an insertion sort beats qsort's call per comparison.
 */
static void sort_items(struct item *it, unsigned m)
{
	if (m > 64) {
		qsort(it, m, sizeof(it[0]), item_cmp);
		return;
	}
	for (unsigned i = 1; i < m; i++) {
		const struct item x = it[i];
		unsigned j = i;

		while (j > 0 && item_cmp(&x, &it[j - 1]) < 0) {
			it[j] = it[j - 1];
			j--;
		}
		it[j] = x;
	}
}

/* Symbol @s of weight @w as item @k, kept (the count returned grows)
 * when @w is not 0: no branch on the weight. */
static inline unsigned add_item(struct item *it, uint16_t *order, unsigned k,
				unsigned s, uint64_t w, uint64_t *total)
{
	it[k].w = w;
	it[k].sym = s;
	order[k] = (uint16_t)s;
	*total += w > (UINT64_C(1) << 52) ? (UINT64_C(1) << 52) : w;
	return k + (w != 0);
}

/* The present symbols (ESC excluded) and their weights, in @it (room for
 * the alphabet); their symbols, then ESC, in @order (for assign_codes). */
static unsigned gather(const struct gt_huff_hist *h, struct item *it, uint16_t *order)
{
	const unsigned eb = gt_dtype_exp_bits(h->dtype), ne = 1u << eb;
	const uint64_t *c = h->count;
	uint64_t total = 0;
	unsigned k = 0;

	/* exponents four at a time: a block has a few dozen of the 2^E */
	for (unsigned s = 0; s < ne; s += 4) {
		if (!(c[s] | c[s + 1] | c[s + 2] | c[s + 3]))
			continue;
		for (unsigned j = s; j < s + 4; j++)
			k = add_item(it, order, k, j, c[j], &total);
	}
	/* runs are only used with a ZERO code */
	k = add_item(it, order, k, GT_HUFF_ZERO(eb),
		     c[GT_HUFF_ZERO(eb)] ? c[GT_HUFF_ZERO(eb)] : !!c[GT_HUFF_RUN(eb)], &total);
	k = add_item(it, order, k, GT_HUFF_NZERO(eb), c[GT_HUFF_NZERO(eb)], &total);
	k = add_item(it, order, k, GT_HUFF_RUN(eb), c[GT_HUFF_RUN(eb)], &total);
	/* keep package weights (<= maxlen * total) far from overflow */
	while (total > (UINT64_C(1) << 48)) {
		total = 0;
		for (unsigned j = 0; j < k; j++) {
			it[j].w = (it[j].w >> 1) | 1;
			total += it[j].w;
		}
	}
	order[k] = (uint16_t)GT_HUFF_ESC(eb);
	return k;
}

/* Native Huffman code lengths of @m >= 2 sorted items wk->it, into @len;
 * returns the longest (which may exceed 255: clamped to 255). */
static unsigned native_lengths(struct work *wk, unsigned m, uint8_t *len)
{
	uint64_t *w = wk->wa;
	uint32_t *depth = (uint32_t *)wk->wb;
	unsigned li = 0, qi = m, qn = m, maxd = 0;

	for (unsigned j = 0; j < m; j++)
		w[j] = wk->it[j].w;
	/* two queues: sorted leaves and internal nodes made in order */
	for (unsigned k = 0; k + 1 < m; k++) {
		unsigned pick[2];

		for (unsigned p = 0; p < 2; p++) {
			if (li < m && (qi == qn || w[li] <= w[qi]))
				pick[p] = li++;
			else
				pick[p] = qi++;
		}
		w[qn] = w[pick[0]] + w[pick[1]];
		wk->parent[pick[0]] = wk->parent[pick[1]] = qn++;
	}
	depth[qn - 1] = 0;
	for (unsigned j = qn - 1; j-- > 0;)
		depth[j] = depth[wk->parent[j]] + 1;
	for (unsigned j = 0; j < m; j++) {
		len[j] = (uint8_t)(depth[j] > 255 ? 255 : depth[j]);
		maxd = depth[j] > maxd ? depth[j] : maxd;
	}
	return maxd;
}

/*
 * One level of package-merge: the leaves lw[0..m) merged with the
 * packages (pairs) of the @pn items of @prev, a leaf first on a tie, into
 * @cur; lead[k] = the leaves among the first k items.  Returns the items.
 * Sentinels end the loop's two inputs (lw[m] = UINT64_MAX, and a package
 * past the last that outweighs every leaf), so it needs no bounds test.
 */
static unsigned merge_level(const uint64_t *lw, unsigned m, uint64_t *prev,
			    unsigned pn, uint64_t *cur, uint16_t *lead)
{
	const unsigned np = pn / 2, n = m + np;
	unsigned a = 0, b = 0;

	prev[2 * np] = prev[2 * np + 1] = UINT64_MAX / 2;
	lead[0] = 0;
	for (unsigned k = 0; k < n; k++) {
		const uint64_t x = lw[a], y = prev[2 * b] + prev[2 * b + 1];

		if (x <= y) {
			cur[k] = x;
			a++;
		} else {
			cur[k] = y;
			b++;
		}
		lead[k + 1] = (uint16_t)a;
	}
	return n;
}

/*
 * Optimal lengths <= @L of @m sorted items (2 <= m <= 2^L) by
 * package-merge, into wk->ilen.  The leaves selected at each level are a
 * prefix of the sorted items, so a length is a count of levels: leaf j
 * is selected at the levels whose count c of leaves exceeds j.
 */
static void package_merge(struct work *wk, unsigned m, unsigned L)
{
	const size_t stride = 2 * (size_t)wk->cap;
	uint64_t *prev = wk->wa, *cur = wk->wb;
	unsigned pn = m, t = 2 * m - 2;

	for (unsigned j = 0; j < m; j++)
		wk->lw[j] = prev[j] = wk->it[j].w;
	wk->lw[m] = UINT64_MAX;
	for (unsigned lev = L - 1; lev >= 1; lev--) {
		uint64_t *tmp = prev;

		pn = merge_level(wk->lw, m, prev, pn, cur, wk->lead + lev * stride);
		prev = cur;
		cur = tmp;
	}
	/* ilen[c - 1]: the levels with c leaves selected, then suffix sums */
	memset(wk->ilen, 0, m);
	for (unsigned lev = 1; lev <= L && t; lev++) {
		const unsigned c = lev < L ? wk->lead[lev * stride + t] : t;

		if (c)
			wk->ilen[c - 1]++;
		t = 2 * (t - c);
	}
	for (unsigned j = m - 1; j-- > 0;)
		wk->ilen[j] += wk->ilen[j + 1];
}

/*
 * Native Huffman lengths are package-merge's when none exceeds L, so
 * build_pm takes them and skips package_merge.  Proof sketch: let H be
 * the items of native_lengths() in the order it takes them (leaves and
 * nodes by weight, a leaf first on a tie; node q is H[2q] + H[2q+1]).
 * Then H = merge(leaves, pairs(H)): H is a fixed point of merge_level.
 * Let X_r be the list r levels above the leaves (X_0 = leaves) and g_r
 * the index in H of the first item of height > r.  By induction X_r >= H
 * item by item (fewer, heavier packages) and X_r starts with H[0..g_r):
 * the first q = g_r / 2 packages of X_r are H's nodes 0..q-1, the next
 * is no lighter than node q, so X_{r+1} follows H up to node q, and
 * node q (H[g_r]'s parent, of height > r + 1, after only leaves and
 * nodes of height <= r + 1) is H[g_{r+1}].  Top-down, level k selects
 * the first t_k items; where the list is H those are the items of depth
 * >= k, whose nodes' children are the first items of level k + 1.  An
 * item of height > L - k has depth < k (depth + height <= D <= L), so it
 * lies past t_k: the list of level k (X_{L-k}) is H over all it
 * selects, and a leaf is selected at the levels 1 to its depth.
 * test_huff checks it against a reference package-merge.
 */

/* The low @n <= 16 bits of @c in reverse order (a few shifts: no loop). */
static unsigned reverse_bits(unsigned c, unsigned n)
{
	uint32_t x = c;

	x = (x & 0x5555u) << 1 | (x >> 1 & 0x5555u);
	x = (x & 0x3333u) << 2 | (x >> 2 & 0x3333u);
	x = (x & 0x0f0fu) << 4 | (x >> 4 & 0x0f0fu);
	x = (x & 0x00ffu) << 8 | (x >> 8 & 0x00ffu);
	return x >> (16 - n);
}

/*
 * The first symbol from @s on with a code, or t->nsyms: eight lengths at
 * a time (most of an alphabet has no code; counting all of them would
 * increment the same counter back to back, a store-forwarding chain).
 * Little-endian hosts only (gt_float.c): the first byte is the lowest.
 */
static unsigned next_coded(const struct gt_huff_table *t, unsigned s)
{
	for (; s + 8 <= t->nsyms; s += 8) {
		uint64_t w;

		memcpy(&w, t->len + s, 8);
		if (w)
			return s + (unsigned)__builtin_ctzll(w) / 8;
	}
	while (s < t->nsyms && !t->len[s])
		s++;
	return s;
}

/* Canonical codes (deflate's rule) of the @k symbols @coded (increasing)
 * with @cnt[l] of length l (cnt[0] = 0); the lengths satisfy Kraft. */
static void codes_of(struct gt_huff_table *t, const uint16_t *coded, unsigned k,
		     const unsigned *cnt)
{
	unsigned next[GT_HUFF_MAXLEN_MAX + 1];
	unsigned code = 0;

	for (unsigned l = 1; l <= GT_HUFF_MAXLEN_MAX; l++) {
		code = (code + cnt[l - 1]) << 1;
		next[l] = code;
	}
	for (unsigned j = 0; j < k; j++) {
		const unsigned s = coded[j], l = t->len[s];

		t->code[s] = (uint16_t)reverse_bits(next[l]++, l);
	}
}

/* The codes of t->len[] when only the @k symbols @order (increasing)
 * can have one: gather()'s, a few dozen, not the whole alphabet.
 * t->code[] is 0 (table_reset) where there is no code. */
static void assign_codes(struct gt_huff_table *t, const uint16_t *order, unsigned k)
{
	unsigned cnt[GT_HUFF_MAXLEN_MAX + 1] = { 0 };
	uint16_t coded[GT_HUFF_NSYM_MAX + 1];
	unsigned n = 0;

	for (unsigned j = 0; j < k; j++) {
		const unsigned s = order[j];

		coded[n] = (uint16_t)s; /* kept when it has a code */
		n += t->len[s] != 0;
		cnt[t->len[s]]++;
	}
	cnt[0] = 0;
	codes_of(t, coded, n, cnt);
}

static void table_reset(struct gt_huff_table *t, enum gt_dtype dt,
			unsigned maxlen)
{
	memset(t, 0, sizeof(*t));
	t->dtype = dt;
	t->maxlen = maxlen;
	t->nsyms = gt_huff_nsyms(dt);
}

/* Lengths @len of the @m sorted items of wk->it into @t. */
static void set_lengths(struct gt_huff_table *t, const struct work *wk, unsigned m,
			const uint8_t *len)
{
	for (unsigned j = 0; j < m; j++)
		t->len[wk->it[j].sym] = m == 1 ? 1 : len[j];
}

/* The items of build_gcomp: the present symbols, and ESC (weight 1) for
 * a static table, in wk->it; returns their number. */
static unsigned gcomp_items(unsigned m, unsigned flags, unsigned esc, struct work *wk)
{
	memcpy(wk->it, wk->sorted, m * sizeof(wk->it[0]));
	if (flags & GT_HUFF_STATIC) {
		wk->it[m].w = 1;
		wk->it[m++].sym = esc;
		sort_items(wk->it, m);
	}
	return m;
}

/* The builders take the @m present symbols, sorted, from wk->sorted;
 * build_gcomp reuses build_pm's native lengths when it left them. */
static void build_gcomp(struct gt_huff_table *t, unsigned m, unsigned flags,
			struct work *wk)
{
	const unsigned esc = GT_HUFF_ESC(gt_dtype_exp_bits(t->dtype));
	unsigned maxd = wk->nat_d;
	int over = 0;

	if (wk->nat_m) {
		m = wk->nat_m;
	} else {
		m = gcomp_items(m, flags, esc, wk);
		maxd = m >= 2 ? native_lengths(wk, m, wk->nlen) : 0;
	}
	if (!m)
		return;
	if (maxd > t->maxlen) {
		/* §4.3: every code longer than n_θ is replaced by one escape
		 * code, the first over-long code truncated to n_θ bits.  In a
		 * canonical code the over-long codes fill the end of the code
		 * space from a multiple of 2^-n_θ on, so that prefix is free. */
		for (unsigned j = 0; j < m; j++) {
			if (wk->nlen[j] > t->maxlen) {
				over = 1;
				wk->nlen[j] = 0;
			}
		}
	}
	set_lengths(t, wk, m, wk->nlen);
	if (over && !t->len[esc])
		t->len[esc] = (uint8_t)t->maxlen;
}

/*
 * Returns 1 when the lengths are native Huffman lengths (none over
 * maxlen) of build_gcomp's items: then GCOMP builds the same table.
 * Otherwise native lengths of build_gcomp's items are left in wk->nlen
 * (wk->nat_m) when the items are the same (no symbol skipped).
 */
static int build_pm(struct gt_huff_table *t, unsigned m, unsigned flags,
		    struct work *wk)
{
	const unsigned esc = GT_HUFF_ESC(gt_dtype_exp_bits(t->dtype));
	const unsigned cap = 1u << t->maxlen;
	const int need_esc = (flags & GT_HUFF_STATIC) || m > cap;
	unsigned skip = 0;
	uint64_t esc_w = 0;

	if (need_esc && m > cap - 1) {
		skip = m - (cap - 1); /* the rarest are escaped */
		for (unsigned j = 0; j < skip; j++)
			esc_w += wk->sorted[j].w;
	}
	memcpy(wk->it, wk->sorted + skip, (m - skip) * sizeof(wk->it[0]));
	m -= skip;
	if (need_esc) {
		wk->it[m].w = esc_w ? esc_w : 1;
		wk->it[m++].sym = esc;
		sort_items(wk->it, m);
	}
	if (m < 2) {
		set_lengths(t, wk, m, wk->ilen);
		return 0;
	}
	wk->nat_d = native_lengths(wk, m, wk->nlen);
	wk->nat_m = skip ? 0 : m;
	if (wk->nat_d <= t->maxlen) {
		set_lengths(t, wk, m, wk->nlen); /* see the proof above */
		return !skip;
	}
	package_merge(wk, m, t->maxlen);
	set_lengths(t, wk, m, wk->ilen);
	return 0;
}

/* An empty table whose lengths and codes are cleared for its alphabet
 * only (a scratch table: nothing reads past nsyms). */
static void table_reset_syms(struct gt_huff_table *t, enum gt_dtype dt,
			     unsigned maxlen)
{
	t->dtype = dt;
	t->maxlen = maxlen;
	t->nsyms = gt_huff_nsyms(dt);
	memset(t->len, 0, t->nsyms * sizeof(t->len[0]));
	memset(t->code, 0, t->nsyms * sizeof(t->code[0]));
}

/*
 * GT_HUFF_BEST: @t holds the PM table; the GCOMP one replaces it when it
 * costs less.  Equal lengths are equal costs (a tie keeps PM), which
 * spares the costs when no code was too long for native Huffman.
 */
static void best_of(struct gt_huff_table *t, const struct gt_huff_hist *h,
		    unsigned m, unsigned flags, struct work *wk)
{
	struct gt_huff_table alt;
	uint64_t cp, cg, e;

	table_reset_syms(&alt, t->dtype, t->maxlen);
	build_gcomp(&alt, m, flags, wk);
	if (!memcmp(alt.len, t->len, t->nsyms))
		return;
	assign_codes(&alt, wk->order, m + 1);
	if (gt_huff_cost(t, h, &cp, &e) < 0 ||
	    (gt_huff_cost(&alt, h, &cg, &e) == 0 && cg < cp)) {
		memcpy(t->len, alt.len, t->nsyms * sizeof(t->len[0]));
		memcpy(t->code, alt.code, t->nsyms * sizeof(t->code[0]));
	}
}

/* gt_huff_build() of the @m symbols in wk->sorted. */
static void build_with(struct gt_huff_table *t, const struct gt_huff_hist *h,
		       unsigned m, enum gt_huff_method method, unsigned flags,
		       struct work *wk)
{
	int same = 0;

	if (method == GT_HUFF_GCOMP)
		build_gcomp(t, m, flags, wk);
	else
		same = build_pm(t, m, flags, wk);
	assign_codes(t, wk->order, m + 1);
	/* same: GCOMP's table is this one, a tie that keeps PM */
	if (method == GT_HUFF_BEST && !same)
		best_of(t, h, m, flags, wk);
}

/* gather()'s arrays on the stack up to f32's alphabet, the work area up
 * to about 100 present symbols: no allocation for most blocks. */
#define SORTED_STACK 260
#define WORK_STACK 12288

int gt_huff_build(struct gt_huff_table *t, const struct gt_huff_hist *h,
		  unsigned maxlen, enum gt_huff_method method, unsigned flags)
{
	const unsigned ns = gt_huff_nsyms(h->dtype);
	struct item sorted[SORTED_STACK];
	uint16_t order[SORTED_STACK + 1];
	uint64_t area[WORK_STACK / sizeof(uint64_t)];
	unsigned char *wheap = NULL, *base = (unsigned char *)area;
	struct item *hsorted = NULL;
	uint16_t *horder = NULL;
	struct work wk;
	size_t need;
	unsigned m;
	int rc = GT_ERR(NOMEM);

	if (!ns || maxlen < GT_HUFF_MAXLEN_MIN || maxlen > GT_HUFF_MAXLEN_MAX ||
	    (unsigned)method > GT_HUFF_BEST)
		return GT_ERR(INVAL);
	wk.sorted = sorted;
	wk.order = order;
	if (ns > SORTED_STACK) {
		/* f64: gather()'s arrays for its whole alphabet */
		hsorted = malloc(ns * sizeof(hsorted[0]));
		horder = malloc((ns + 1) * sizeof(horder[0]));
		if (!hsorted || !horder) {
			free(hsorted);
			free(horder);
			return GT_ERR(NOMEM);
		}
		wk.sorted = hsorted;
		wk.order = horder;
	}
	m = gather(h, wk.sorted, wk.order);
	sort_items(wk.sorted, m);
	need = work_layout(&wk, NULL, m + 1, maxlen);
	if (need > sizeof(area)) {
		wheap = malloc(need);
		base = wheap;
	}
	if (base) {
		work_layout(&wk, base, m + 1, maxlen);
		table_reset(t, h->dtype, maxlen);
		build_with(t, h, m, method, flags, &wk);
		rc = 0;
	}
	free(wheap);
	free(hsorted);
	free(horder);
	return rc;
}

/* ---- using codes --------------------------------------------------------- */

/* gt_huff_resolve() of @sym < nsyms, not ESC, with @eb exponent bits. */
static inline __attribute__((always_inline)) int
resolve(const struct gt_huff_table *t, unsigned eb, unsigned sym,
	struct gt_huff_sym *ret)
{
	const unsigned esc = GT_HUFF_ESC(eb);

	ret->escaped = 0;
	ret->mant = sym < (1u << eb);
	if (t->len[sym]) {
		ret->bits = t->code[sym];
		ret->nbits = t->len[sym];
		return 0;
	}
	if (sym == GT_HUFF_RUN(eb))
		return GT_ERR(INVAL);
	/* ±0.0 without a code: exponent field 0, zero mantissa */
	ret->mant = 1;
	if (sym >= (1u << eb) && t->len[0]) {
		ret->bits = t->code[0];
		ret->nbits = t->len[0];
		return 0;
	}
	if (!t->len[esc])
		return GT_ERR(INVAL);
	ret->bits = t->code[esc] |
		    (uint32_t)(sym < (1u << eb) ? sym : 0) << t->len[esc];
	ret->nbits = t->len[esc] + eb;
	ret->escaped = 1;
	return 0;
}

/* The exponent bits of @t's alphabet (nsyms = 2^E + 4 > 4), 0 for none. */
static inline unsigned table_eb(const struct gt_huff_table *t)
{
	return t->nsyms > 4 ? 31 - (unsigned)__builtin_clz(t->nsyms - 4) : 0;
}

int gt_huff_resolve(const struct gt_huff_table *t, unsigned sym,
		    struct gt_huff_sym *ret)
{
	const unsigned eb = table_eb(t);

	if (sym >= t->nsyms || !eb || sym == GT_HUFF_ESC(eb))
		return GT_ERR(INVAL);
	return resolve(t, eb, sym, ret);
}

/*
 * The exponents without a code all resolve the same way (ESC and the raw
 * field, or not at all): one loop without a branch, then the few with a
 * code and the four extra symbols.
 */
void gt_huff_enc_words(const struct gt_huff_table *t, uint64_t *enc)
{
	const unsigned eb = table_eb(t);
	const unsigned esc = GT_HUFF_ESC(eb), el = t->len[esc];
	uint64_t base = UINT64_C(1) << 41;
	unsigned sh = 0;

	if (!eb)
		return;
	if (el) {
		base = t->code[esc] | (uint64_t)(el + eb) << 32 | UINT64_C(1) << 40;
		sh = el;
	}
	for (unsigned s = 0; s < (1u << eb); s++)
		enc[s] = base | (el ? (uint64_t)s << sh : 0);
	for (unsigned s = next_coded(t, 0); s < (1u << eb); s = next_coded(t, s + 1))
		enc[s] = t->code[s] | (uint64_t)t->len[s] << 32 | UINT64_C(1) << 40;
	for (unsigned s = 1u << eb; s < t->nsyms; s++) {
		struct gt_huff_sym r;

		enc[s] = UINT64_C(1) << 41;
		if (s != esc && !resolve(t, eb, s, &r))
			enc[s] = r.bits | (uint64_t)r.nbits << 32 | (uint64_t)r.mant << 40;
	}
}

int gt_huff_runs_used(const struct gt_huff_table *t)
{
	const unsigned eb = gt_dtype_exp_bits(t->dtype);

	return t->nsyms && t->len[GT_HUFF_RUN(eb)] && t->len[GT_HUFF_ZERO(eb)];
}

/* The bits and escapes of @c tokens of @sym (not ESC). */
static inline int cost_of(const struct gt_huff_table *t, unsigned eb,
			  unsigned sym, uint64_t c, uint64_t *bits, uint64_t *esc)
{
	const unsigned mbits = 1 + gt_dtype_man_bits(t->dtype);
	struct gt_huff_sym r;

	GT_TRY(resolve(t, eb, sym, &r));
	*bits += c * (r.nbits + (r.mant ? mbits : 0));
	*esc += r.escaped ? c : 0;
	return 0;
}

/* Exponent symbols four counts at a time (a block has a few dozen of
 * 2^E), then the four extra symbols. */
int gt_huff_cost(const struct gt_huff_table *t, const struct gt_huff_hist *h,
		 uint64_t *bits_ret, uint64_t *escaped_ret)
{
	const unsigned eb = gt_dtype_exp_bits(t->dtype);
	const int runs = gt_huff_runs_used(t);
	const uint64_t *n = h->count;
	uint64_t bits = 0, esc = 0, zeros;

	*bits_ret = *escaped_ret = 0;
	if (t->dtype != h->dtype || !t->nsyms || t->nsyms != gt_huff_nsyms(t->dtype))
		return GT_ERR(INVAL);
	for (unsigned s = 0; s < (1u << eb); s += 4) {
		if (!(n[s] | n[s + 1] | n[s + 2] | n[s + 3]))
			continue;
		for (unsigned j = s; j < s + 4; j++)
			if (n[j])
				GT_TRY(cost_of(t, eb, j, n[j], &bits, &esc));
	}
	zeros = n[GT_HUFF_ZERO(eb)] + (runs ? 0 : h->run_zeros);
	if (zeros)
		GT_TRY(cost_of(t, eb, GT_HUFF_ZERO(eb), zeros, &bits, &esc));
	if (n[GT_HUFF_NZERO(eb)])
		GT_TRY(cost_of(t, eb, GT_HUFF_NZERO(eb), n[GT_HUFF_NZERO(eb)], &bits, &esc));
	if (runs && n[GT_HUFF_RUN(eb)]) {
		GT_TRY(cost_of(t, eb, GT_HUFF_RUN(eb), n[GT_HUFF_RUN(eb)], &bits, &esc));
		bits += h->run_bits;
	}
	*bits_ret = bits;
	*escaped_ret = esc;
	return 0;
}

double gt_huff_entropy(const struct gt_huff_hist *h)
{
	const unsigned ns = gt_huff_nsyms(h->dtype);
	double tot = 0, bits = 0;

	for (unsigned s = 0; s < ns; s++)
		tot += (double)h->count[s];
	for (unsigned s = 0; s < ns; s++)
		if (h->count[s])
			bits += (double)h->count[s] * log2(tot / (double)h->count[s]);
	return bits;
}

/* ---- tables as bytes ------------------------------------------------------ */

int gt_huff_save(const struct gt_huff_table *t, void *dst, size_t cap,
		 size_t *len_ret)
{
	unsigned char buf[GT_HUFF_SAVE_MAX];
	unsigned k = 0, from = 0;
	size_t p = 5;

	for (unsigned s = next_coded(t, 0); s < t->nsyms; s = next_coded(t, s + 1)) {
		const unsigned gap = s - from;

		from = s + 1;
		buf[p++] = (unsigned char)(t->len[s] | (gap < 15 ? gap : 15) << 4);
		if (gap >= 15) {
			const unsigned v = gap - 15;

			if (v >= 128) {
				buf[p++] = (unsigned char)(0x80 | (v & 0x7f));
				buf[p++] = (unsigned char)(v >> 7);
			} else {
				buf[p++] = (unsigned char)v;
			}
		}
		k++;
	}
	buf[0] = 1;
	buf[1] = (unsigned char)t->dtype;
	buf[2] = (unsigned char)t->maxlen;
	buf[3] = (unsigned char)(k & 0xff);
	buf[4] = (unsigned char)(k >> 8);
	*len_ret = 0;
	if (p > cap)
		return GT_ERR(DST_TOO_SMALL);
	memcpy(dst, buf, p);
	*len_ret = p;
	return 0;
}

/* The lengths of gt_huff_load(), the symbols with a code in increasing
 * order (@coded, k of them), the count of each length (@cnt) and their
 * Kraft sum in units of 2^-maxlen (*@kraft_ret); Kraft and ESC are
 * checked by the caller. */
static int load_entries(struct gt_huff_table *t, const unsigned char *p,
			const unsigned char *end, unsigned k, uint16_t *coded,
			unsigned *cnt, uint64_t *kraft_ret)
{
	uint64_t kraft = 0;
	unsigned sym = 0;

	for (unsigned j = 0; j < k; j++) {
		unsigned len, gap;

		if (p == end)
			return GT_ERR(TRUNCATED);
		len = *p & 15;
		gap = *p++ >> 4;
		if (gap == 15) {
			if (p == end)
				return GT_ERR(TRUNCATED);
			gap += *p & 0x7f;
			if (*p++ & 0x80) {
				if (p == end)
					return GT_ERR(TRUNCATED);
				if (*p & 0x80)
					return GT_ERR(CORRUPT);
				gap += (unsigned)*p++ << 7;
			}
		}
		sym += gap;
		if (sym >= t->nsyms || !len || len > t->maxlen)
			return GT_ERR(CORRUPT);
		coded[j] = (uint16_t)sym;
		cnt[len]++;
		t->len[sym++] = (uint8_t)len;
		kraft += UINT64_C(1) << (t->maxlen - len);
	}
	*kraft_ret = kraft;
	return p == end ? 0 : GT_ERR(CORRUPT);
}

int gt_huff_load(struct gt_huff_table *t, const void *src, size_t len,
		 unsigned flags)
{
	const unsigned char *p = src;
	unsigned cnt[GT_HUFF_MAXLEN_MAX + 1] = { 0 };
	uint16_t coded[GT_HUFF_NSYM_MAX];
	uint64_t kraft = 0;
	unsigned k;

	if (len < 5)
		return GT_ERR(TRUNCATED);
	if (p[0] != 1 || p[1] < 1 || p[1] > GT_DT_MAX ||
	    p[2] < GT_HUFF_MAXLEN_MIN || p[2] > GT_HUFF_MAXLEN_MAX)
		return GT_ERR(CORRUPT);
	table_reset(t, (enum gt_dtype)p[1], p[2]);
	k = p[3] | (unsigned)p[4] << 8;
	if (k > t->nsyms)
		return GT_ERR(CORRUPT);
	GT_TRY(load_entries(t, p + 5, p + len, k, coded, cnt, &kraft));
	if (kraft > (UINT64_C(1) << t->maxlen))
		return GT_ERR(CORRUPT);
	if ((flags & GT_HUFF_STATIC) &&
	    !t->len[GT_HUFF_ESC(gt_dtype_exp_bits(t->dtype))])
		return GT_ERR(CORRUPT);
	codes_of(t, coded, k, cnt);
	return 0;
}

/*
 * The LUT of the 2^*@bits_ret entries, *@bits_ret the longest code length
 * (0: no code, one entry), or @bits when it is larger.  libdeflate's
 * way: the table for l bits is two copies of the one for l - 1 bits (an
 * index's low l - 1 bits decode the same) plus the codes of length l, so
 * filling it costs about 2^bits two-byte copies, not one store per entry
 * and code and a memset.
 */
static int lut_fill(const struct gt_huff_table *t, unsigned bits, uint16_t *lut,
		    size_t lut_len, unsigned *bits_ret)
{
	uint16_t coded[GT_HUFF_NSYM_MAX], sorted[GT_HUFF_NSYM_MAX];
	unsigned cnt[GT_HUFF_MAXLEN_MAX + 2] = { 0 }, longest = 0, k = 0;
	size_t size = 1;

	*bits_ret = 0;
	if (t->maxlen > GT_HUFF_MAXLEN_MAX || bits > GT_HUFF_MAXLEN_MAX ||
	    t->nsyms > GT_HUFF_NSYM_MAX)
		return GT_ERR(INVAL);
	for (unsigned s = next_coded(t, 0); s < t->nsyms; s = next_coded(t, s + 1)) {
		cnt[t->len[s] + 1]++;
		coded[k++] = (uint16_t)s;
	}
	for (unsigned l = 1; l <= GT_HUFF_MAXLEN_MAX; l++) {
		longest = cnt[l + 1] ? l : longest;
		cnt[l + 1] += cnt[l]; /* cnt[l]: first index of length l */
	}
	if (bits < longest)
		bits = longest;
	if (lut_len < ((size_t)1 << bits) || longest > t->maxlen)
		return GT_ERR(INVAL);
	for (unsigned j = 0; j < k; j++)
		sorted[cnt[t->len[coded[j]]]++] = coded[j];
	lut[0] = 0;
	for (unsigned l = 1, j = 0; l <= bits; l++) {
		memcpy(lut + size, lut, size * sizeof(*lut));
		size *= 2;
		/* after the loop above cnt[l] is the end of length l */
		for (; l <= longest && j < cnt[l]; j++)
			lut[t->code[sorted[j]]] = (uint16_t)(sorted[j] | l << 12);
	}
	*bits_ret = bits;
	return 0;
}

unsigned gt_huff_mcodes(const struct gt_huff_table *t, unsigned maxsym, unsigned bits,
			struct gt_huff_mcode *mc)
{
	unsigned at[GT_HUFF_MAXLEN_MAX + 2] = { 0 }, m = 0;
	uint16_t coded[GT_HUFF_NSYM_MAX];

	if (bits > GT_HUFF_MAXLEN_MAX)
		bits = GT_HUFF_MAXLEN_MAX;
	/* by length, in symbol order within one: a counting sort */
	for (unsigned s = next_coded(t, 0); s <= maxsym && s < t->nsyms;
	     s = next_coded(t, s + 1))
		if (t->len[s] <= bits) {
			at[t->len[s] + 1]++;
			coded[m++] = (uint16_t)s;
		}
	for (unsigned l = 1; l <= bits; l++)
		at[l + 1] += at[l];
	for (unsigned j = 0; j < m; j++) {
		const unsigned s = coded[j], l = t->len[s];

		mc[at[l]].pat = t->code[s];
		mc[at[l]].sym = (uint16_t)s;
		mc[at[l]++].len = l;
	}
	return m;
}

int gt_huff_lut(const struct gt_huff_table *t, uint16_t *lut, size_t lut_len)
{
	unsigned bits;

	if (t->maxlen > GT_HUFF_MAXLEN_MAX || lut_len < ((size_t)1 << t->maxlen))
		return GT_ERR(INVAL);
	return lut_fill(t, t->maxlen, lut, lut_len, &bits);
}

int gt_huff_lut_fit(const struct gt_huff_table *t, uint16_t *lut,
		    size_t lut_len, unsigned *bits_ret)
{
	return lut_fill(t, 0, lut, lut_len, bits_ret);
}
