/* gt_sparse.c - selection and packing shared by the sparsifiers */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gt_sparse.h"
#include "codec_impl.h"
#include "gt_bitio.h"
#include "gt_rng.h"
#include "banned.h"

#define DIGIT 11 /* radix-select digit: a 2048-bucket histogram stays in L1 */
#define NBUCKET (1u << DIGIT)

/* ---- options ---------------------------------------------------------- */

static int share_opt(const struct gt_kv *kv, const char *codec,
		     struct gt_sparse_opts *o, struct gt_diag *d)
{
	long v;

	if (!strcmp(kv->key, "cf")) {
		o->mode = GT_SPARSE_CF;
		return gt_kv_double(kv, codec, 1, 1e12, &o->value, d);
	}
	if (!strcmp(kv->key, "keep")) {
		o->mode = GT_SPARSE_KEEP;
		GT_TRY(gt_kv_double(kv, codec, 0, 1, &o->value, d));
		if (o->value > 0)
			return 0;
		return gt_diag_set(d, GT_ERR(INVAL),
				   "codec %s: invalid keep '%s': expected 0 < keep <= 1",
				   codec, kv->val);
	}
	o->mode = GT_SPARSE_K;
	GT_TRY(gt_kv_int(kv, codec, 1, LONG_MAX, &v, d));
	o->count = (uint64_t)v;
	return 0;
}

int gt_sparse_opts_parse(const struct gt_kv *kv, size_t nkv, const char *codec,
			 unsigned accept, struct gt_sparse_opts *o,
			 struct gt_diag *d)
{
	unsigned shares = 0;
	long v;

	memset(o, 0, sizeof(*o));
	o->mode = GT_SPARSE_CF;
	o->value = 100;
	o->sample = 0.01;
	o->accept = accept;
	for (size_t i = 0; i < nkv; i++) {
		const char *key = kv[i].key;

		if (!strcmp(key, "cf") || !strcmp(key, "keep") || !strcmp(key, "k")) {
			GT_TRY(share_opt(&kv[i], codec, o, d));
			shares++;
		} else if (!strcmp(key, "seed") && (accept & GT_SPARSE_SEED)) {
			GT_TRY(gt_kv_int(&kv[i], codec, 0, LONG_MAX, &v, d));
			o->seed = (uint64_t)v;
		} else if (!strcmp(key, "sample") && (accept & GT_SPARSE_SAMPLE)) {
			GT_TRY(gt_kv_double(&kv[i], codec, 0.001, 1, &o->sample, d));
		} else {
			return gt_kv_unknown(&kv[i], codec, d);
		}
	}
	if (shares > 1)
		return gt_diag_set(d, GT_ERR(INVAL),
				   "codec %s: give only one of cf=, keep= and k=", codec);
	return 0;
}

/* The shortest "%g" that reads back as @v. */
static void fmt_double(char *buf, size_t cap, double v)
{
	for (int prec = 6; prec <= 17; prec++) {
		double back;

		snprintf(buf, cap, "%.*g", prec, v);
		back = strtod(buf, NULL);
		if (!(back < v || back > v))
			return;
	}
}

size_t gt_sparse_opts_canon(const struct gt_sparse_opts *o, char *buf, size_t cap)
{
	char v[40], s[40], extra[96] = "";
	int n;

	fmt_double(v, sizeof(v), o->value);
	if (o->mode == GT_SPARSE_K)
		snprintf(v, sizeof(v), "%llu", (unsigned long long)o->count);
	if (o->accept & GT_SPARSE_SEED)
		snprintf(extra, sizeof(extra), ",seed=%llu", (unsigned long long)o->seed);
	if (o->accept & GT_SPARSE_SAMPLE) {
		fmt_double(s, sizeof(s), o->sample);
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 ",sample=%s", s);
	}
	n = snprintf(buf, cap, "%s=%s%s",
		     o->mode == GT_SPARSE_CF ? "cf" : o->mode == GT_SPARSE_KEEP ? "keep" : "k",
		     v, extra);
	return n < 0 ? 0 : (size_t)n;
}

size_t gt_sparse_k(const struct gt_sparse_opts *o, size_t n)
{
	double k;

	if (!n)
		return 0;
	switch (o->mode) {
	case GT_SPARSE_CF: k = ceil((double)n / o->value); break;
	case GT_SPARSE_KEEP: k = ceil((double)n * o->value); break;
	case GT_SPARSE_K: k = (double)o->count; break;
	default: k = 1; break;
	}
	if (!(k >= 1))
		return 1;
	return k >= (double)n ? n : (size_t)k;
}

/* ---- keys ------------------------------------------------------------- */

void gt_sparse_work_release(struct gt_sparse_work *w)
{
	free(w->idx);
	free(w->keys);
	free(w->bits);
	free(w->cand);
	memset(w, 0, sizeof(*w));
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n <= *cap)
		return 0;
	if (n > SIZE_MAX / size)
		return GT_ERR(OVERFLOW);
	q = realloc(*p, n * size);
	if (!q)
		return GT_ERR(NOMEM);
	*p = q;
	*cap = n;
	return 0;
}

uint64_t *gt_sparse_keys(struct gt_sparse_work *w, size_t m)
{
	void *p = w->keys;
	const int rc = grow(&p, &w->keys_cap, m ? m : 1, sizeof(uint64_t));

	w->keys = p;
	return rc < 0 ? NULL : w->keys;
}

static int grow_idx(struct gt_sparse_work *w, size_t n)
{
	void *p = w->idx;
	const int rc = grow(&p, &w->idx_cap, n ? n : 1, sizeof(uint32_t));

	w->idx = p;
	return rc;
}

double gt_sparse_key_value(uint64_t key, enum gt_dtype dt)
{
	unsigned char b[8];

	gt_fp_store(b, dt, 0, key);
	return gt_fp_get(b, dt, 0);
}

uint64_t gt_sparse_thr_key(double thr, enum gt_dtype dt, int strict)
{
	uint64_t lo = 0, hi = gt_sparse_key_max_finite(dt) + 1; /* +Inf */

	/* magnitudes grow with their keys up to +Inf: bisect for the first
	 * key that qualifies (at most 64 steps, only per threshold) */
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo) / 2;
		const double v = gt_sparse_key_value(mid, dt);

		if (strict ? v > thr : v >= thr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The magnitude key of value i, the width a constant after inlining. */
static inline uint64_t ld(const unsigned char *p, unsigned w, size_t i)
{
	if (w == 2) {
		uint16_t u;
		memcpy(&u, p + 2 * i, 2);
		return u & 0x7fffu;
	}
	if (w == 4) {
		uint32_t u;
		memcpy(&u, p + 4 * i, 4);
		return u & 0x7fffffffu;
	}
	{
		uint64_t u;
		memcpy(&u, p + 8 * i, 8);
		return u & ~(UINT64_C(1) << 63);
	}
}

/* Expand @body once per width, with W a constant in it. */
#define BY_WIDTH(width, body)                                               \
	do {                                                                \
		switch (width) {                                            \
		case 2: { const unsigned W = 2; body; break; }              \
		case 4: { const unsigned W = 4; body; break; }              \
		default: { const unsigned W = 8; body; break; }             \
		}                                                           \
	} while (0)

size_t gt_sparse_count(const void *src, enum gt_dtype dt, size_t n, uint64_t kmin)
{
	const unsigned char *p = src;
	size_t c = 0;

	BY_WIDTH(gt_dtype_size(dt), for (size_t i = 0; i < n; i++) c += ld(p, W, i) >= kmin);
	return c;
}

int gt_sparse_above(struct gt_sparse_work *w, const void *src, enum gt_dtype dt,
		    size_t n, uint64_t kmin, size_t max, size_t *k_ret)
{
	const unsigned char *p = src;
	size_t c = 0;

	*k_ret = 0;
	if (n > UINT32_MAX)
		return GT_ERR(OVERFLOW);
	GT_TRY(grow_idx(w, max < n ? max : n));
	BY_WIDTH(gt_dtype_size(dt),
		 for (size_t i = 0; i < n && c < max; i++)
			 if (ld(p, W, i) >= kmin)
				 w->idx[c++] = (uint32_t)i);
	*k_ret = c;
	return 0;
}

/* ---- radix selection ------------------------------------------------------ */

/*
 * The selection state: the keys still in play are those whose bits above
 * @ps equal @pre; @k is the rank wanted among them (1 = largest).
 */
struct rsel {
	unsigned ps;
	uint64_t pre;
	size_t k;
	uint32_t hist[NBUCKET];
};

/* Next digit: the bits [sh, ps).  Picks the bucket holding rank k. */
static size_t rsel_pick(struct rsel *s, unsigned sh)
{
	const unsigned nb = 1u << (s->ps - sh);
	size_t above = 0, b = nb;

	while (b-- > 0) {
		if (above + s->hist[b] >= s->k)
			break;
		above += s->hist[b];
	}
	s->k -= above;
	s->pre = (s->pre << (s->ps - sh)) | b;
	s->ps = sh;
	return s->hist[b];
}

static unsigned next_shift(unsigned ps)
{
	return ps > DIGIT ? ps - DIGIT : 0;
}

/* Selection continued on an array of keys that all match the prefix. */
static void rsel_arr(struct rsel *s, uint64_t *keys, size_t m)
{
	while (s->ps > 0) {
		const unsigned sh = next_shift(s->ps);
		const uint64_t mask = (UINT64_C(1) << (s->ps - sh)) - 1;
		size_t j = 0;

		memset(s->hist, 0, sizeof(s->hist));
		for (size_t i = 0; i < m; i++)
			s->hist[(keys[i] >> sh) & mask]++;
		rsel_pick(s, sh);
		for (size_t i = 0; i < m; i++)
			if ((keys[i] >> s->ps) == s->pre)
				keys[j++] = keys[i];
		m = j;
	}
}

uint64_t gt_sparse_kth(uint64_t *keys, size_t n, size_t k, unsigned key_bits)
{
	struct rsel s;

	s.ps = key_bits;
	s.pre = 0;
	s.k = k;
	rsel_arr(&s, keys, n);
	return s.pre;
}

/*
 * The threshold key T of the k largest of @n values and how many keys
 * equal to T to take.  Digits are counted over the input itself until a
 * bucket is small enough to copy out (at most n/16 keys: bounded memory
 * even when every value is 0), then over the copy.
 */
static int rsel_src(struct gt_sparse_work *w, const unsigned char *p, unsigned width,
		    size_t n, size_t k, uint64_t *t_ret, size_t *take_ret)
{
	struct rsel s;
	const size_t cap = n / 16 > 4096 ? n / 16 : 4096;

	s.ps = 8 * width - 1;
	s.pre = 0;
	s.k = k;
	while (s.ps > 0) {
		const unsigned sh = next_shift(s.ps), ps = s.ps;
		const uint64_t mask = (UINT64_C(1) << (ps - sh)) - 1, pre = s.pre;
		size_t m, j = 0;

		memset(s.hist, 0, sizeof(s.hist));
		BY_WIDTH(width, for (size_t i = 0; i < n; i++) {
			const uint64_t key = ld(p, W, i);
			if ((key >> ps) == pre)
				s.hist[(key >> sh) & mask]++;
		});
		m = rsel_pick(&s, sh);
		if (s.ps == 0 || m > cap)
			continue;
		if (!gt_sparse_keys(w, m))
			return GT_ERR(NOMEM);
		BY_WIDTH(width, for (size_t i = 0; i < n; i++) {
			const uint64_t key = ld(p, W, i);
			if ((key >> s.ps) == s.pre)
				w->keys[j++] = key;
		});
		rsel_arr(&s, w->keys, m);
	}
	*t_ret = s.pre;
	*take_ret = s.k;
	return 0;
}

/* The slow path: digits over the input, then one pass to emit. */
static int topk_slow(struct gt_sparse_work *w, const unsigned char *p, unsigned width,
		     size_t n, size_t k)
{
	uint64_t t;
	size_t take, c = 0;

	GT_TRY(rsel_src(w, p, width, n, k, &t, &take));
	/* every key above T, and the first @take equal to it */
	BY_WIDTH(width, for (size_t i = 0; i < n; i++) {
		const uint64_t key = ld(p, W, i);
		if (key > t || (key == t && take && take--))
			w->idx[c++] = (uint32_t)i;
	});
	return c == k ? 0 : GT_ERR(CORRUPT); /* cannot happen */
}

/*
 * The fast path, two passes over the input: a histogram of the top digit
 * finds the bucket of the k-th largest key; the second pass puts the
 * positions above that bucket straight into w->idx and those inside it
 * into w->cand, where the selection finishes on a copy of their keys.
 * The winners are then merged into w->idx in position order.
 */
static int topk_fast(struct gt_sparse_work *w, const unsigned char *p, unsigned width,
		     size_t n, size_t m, struct rsel *s)
{
	const unsigned sh = s->ps;
	const uint64_t lo = s->pre << sh, hi = (s->pre + 1) << sh;
	size_t na = 0, nc = 0, nw = 0, take;
	void *cp = w->cand;
	int rc = grow(&cp, &w->cand_cap, m ? m : 1, sizeof(uint32_t));

	w->cand = cp;
	if (rc < 0 || !gt_sparse_keys(w, m))
		return rc < 0 ? rc : GT_ERR(NOMEM);
	BY_WIDTH(width, for (size_t i = 0; i < n; i++) {
		const uint64_t key = ld(p, W, i);
		if (key >= lo) {
			if (key >= hi)
				w->idx[na++] = (uint32_t)i;
			else
				w->cand[nc++] = (uint32_t)i;
		}
	});
	for (size_t j = 0; j < nc; j++)
		w->keys[j] = ld(p, width, w->cand[j]);
	rsel_arr(s, w->keys, nc);
	take = s->k;
	for (size_t j = 0; j < nc; j++) {
		const uint64_t key = ld(p, width, w->cand[j]);

		if (key > s->pre || (key == s->pre && take && take--))
			w->cand[nw++] = w->cand[j];
	}
	/* merge from the back: w->idx has room for na + nw = k */
	for (size_t o = na + nw; nw > 0; ) {
		if (na > 0 && w->idx[na - 1] > w->cand[nw - 1])
			w->idx[--o] = w->idx[--na];
		else
			w->idx[--o] = w->cand[--nw];
	}
	return 0;
}

int gt_sparse_topk(struct gt_sparse_work *w, const void *src, enum gt_dtype dt,
		   size_t n, size_t k)
{
	const unsigned width = gt_dtype_size(dt);
	const unsigned char *p = src;
	struct rsel s;
	size_t m;

	if (n > UINT32_MAX)
		return GT_ERR(OVERFLOW);
	if (k > n)
		k = n;
	GT_TRY(grow_idx(w, k));
	if (!k)
		return 0;
	/* the top digit, its shift a constant for each width */
	s.ps = 8 * width - 1;
	s.pre = 0;
	s.k = k;
	memset(s.hist, 0, sizeof(s.hist));
	BY_WIDTH(width, for (size_t i = 0; i < n; i++)
			s.hist[ld(p, W, i) >> (8 * W - 1 - DIGIT)]++);
	m = rsel_pick(&s, 8 * width - 1 - DIGIT);
	if (m > n / 16 && m > 4096)
		return topk_slow(w, p, width, n, k);
	return topk_fast(w, p, width, n, m, &s);
}

/* ---- random k ------------------------------------------------------------- */

int gt_sparse_randk(struct gt_sparse_work *w, size_t n, size_t k, uint64_t seed,
		    uint64_t stream, uint64_t pos)
{
	const size_t words = n / 64 + 1;
	struct gt_rng r;
	size_t c = 0;

	if (n > UINT32_MAX)
		return GT_ERR(OVERFLOW);
	if (k > n)
		k = n;
	GT_TRY(grow_idx(w, k));
	{
		void *bp = w->bits;
		const int rc = grow(&bp, &w->bits_cap, words, sizeof(uint64_t));

		w->bits = bp;
		if (rc < 0)
			return rc;
	}
	memset(w->bits, 0, words * sizeof(uint64_t));
	/* Floyd: for j = n-k .. n-1 take a uniform t in [0, j]; if it is
	 * taken already take j itself.  Every k-subset is equally likely. */
	gt_rng_init(&r, seed, stream, pos);
	for (size_t j = n - k; j < n; j++) {
		size_t t = (size_t)gt_rng_below(&r, (uint64_t)j + 1);

		if (w->bits[t / 64] >> (t % 64) & 1)
			t = j;
		w->bits[t / 64] |= UINT64_C(1) << (t % 64);
	}
	for (size_t i = 0; i < words; i++) {
		uint64_t b = w->bits[i];

		while (b) {
			w->idx[c++] = (uint32_t)(i * 64 + (size_t)__builtin_ctzll(b));
			b &= b - 1;
		}
	}
	return 0;
}

/* ---- packing ---------------------------------------------------------------- */

size_t gt_sparse_bitmap_bytes(size_t n)
{
	return n / 8 + (n % 8 != 0);
}

static size_t varint_len(uint64_t v)
{
	size_t l = 1;

	while (v >= 0x80) {
		v >>= 7;
		l++;
	}
	return l;
}

size_t gt_sparse_delta_bytes(const uint32_t *idx, size_t k)
{
	size_t bytes = 0;

	for (size_t j = 0; j < k; j++)
		bytes += varint_len(j ? (uint64_t)idx[j] - idx[j - 1] - 1 : idx[0]);
	return bytes;
}

size_t gt_sparse_bound(enum gt_dtype dt, size_t n)
{
	const size_t w = gt_dtype_size(dt);

	if (n > (SIZE_MAX - 64) / (w + 1))
		return 0;
	return 1 + GT_VARINT_MAX + gt_sparse_bitmap_bytes(n) + n * w;
}

int gt_sparse_pack(const void *src, enum gt_dtype dt, size_t n,
		   const uint32_t *idx, size_t k, int coding, void *dst,
		   size_t dst_cap, size_t *dst_len_ret)
{
	const size_t w = gt_dtype_size(dt), bm = gt_sparse_bitmap_bytes(n);
	const size_t dl = gt_sparse_delta_bytes(idx, k);
	const unsigned char *s = src;
	unsigned char *q = dst;
	unsigned char hdr[1 + GT_VARINT_MAX];
	size_t h;

	if (coding == GT_SPARSE_AUTO)
		coding = dl < bm ? GT_SPARSE_DELTA : GT_SPARSE_BITMAP;
	hdr[0] = (unsigned char)coding;
	h = 1 + (size_t)gt_varint_put(hdr + 1, k);
	*dst_len_ret = 0;
	if (dst_cap < h || dst_cap - h < (coding ? dl : bm) ||
	    dst_cap - h - (coding ? dl : bm) < k * w)
		return GT_ERR(DST_TOO_SMALL);
	memcpy(q, hdr, h);
	q += h;
	if (coding == GT_SPARSE_BITMAP) {
		memset(q, 0, bm);
		for (size_t j = 0; j < k; j++)
			q[idx[j] / 8] |= (unsigned char)(1u << (idx[j] % 8));
		q += bm;
	} else {
		for (size_t j = 0; j < k; j++)
			q += gt_varint_put(q, j ? (uint64_t)idx[j] - idx[j - 1] - 1 : idx[0]);
	}
	for (size_t j = 0; j < k; j++, q += w)
		memcpy(q, s + (size_t)idx[j] * w, w);
	*dst_len_ret = (size_t)(q - (unsigned char *)dst);
	return 0;
}

/* Scatter the bitmap's values; every set bit must be a value, k in all. */
static int unpack_bitmap(const unsigned char *bm, size_t n, size_t k,
			 const unsigned char *vals, size_t w, unsigned char *dst)
{
	size_t c = 0;

	for (size_t byte = 0; byte < gt_sparse_bitmap_bytes(n); byte++) {
		unsigned b = bm[byte];

		while (b) {
			const size_t i = byte * 8 + (size_t)__builtin_ctz(b);

			if (i >= n || c == k)
				return GT_ERR(CORRUPT);
			memcpy(dst + i * w, vals + c++ * w, w);
			b &= b - 1;
		}
	}
	return c == k ? 0 : GT_ERR(CORRUPT);
}

static int unpack_delta(const unsigned char *p, const unsigned char *end, size_t n,
			size_t k, const unsigned char *vals, size_t w,
			unsigned char *dst)
{
	uint64_t next = 0; /* the smallest position the next one may have */

	for (size_t j = 0; j < k; j++) {
		uint64_t gap;

		GT_TRY(gt_varint_get(&p, end, &gap));
		if (gap >= n - next) /* next <= n - 1 here: no overflow */
			return GT_ERR(CORRUPT);
		next += gap;
		memcpy(dst + next * w, vals + j * w, w);
		if (++next == n && j + 1 < k)
			return GT_ERR(CORRUPT);
	}
	return p == end ? 0 : GT_ERR(CORRUPT);
}

int gt_sparse_unpack(const void *src, size_t src_len, enum gt_dtype dt,
		     void *dst, size_t n, size_t *k_ret)
{
	const size_t w = gt_dtype_size(dt);
	const unsigned char *p = src, *end = p + src_len, *vals;
	unsigned coding;
	uint64_t k;

	if (k_ret)
		*k_ret = 0;
	if (!src_len)
		return GT_ERR(TRUNCATED);
	coding = *p++;
	if (coding > GT_SPARSE_DELTA)
		return GT_ERR(CORRUPT);
	GT_TRY(gt_varint_get(&p, end, &k));
	if (k > n)
		return GT_ERR(CORRUPT);
	if (k * w > (size_t)(end - p))
		return GT_ERR(TRUNCATED);
	vals = end - k * w;
	if (n)
		memset(dst, 0, n * w);
	if (coding == GT_SPARSE_BITMAP) {
		const size_t bm = gt_sparse_bitmap_bytes(n);

		if ((size_t)(vals - p) != bm)
			return (size_t)(vals - p) < bm ? GT_ERR(TRUNCATED) : GT_ERR(CORRUPT);
		GT_TRY(unpack_bitmap(p, n, (size_t)k, vals, w, dst));
	} else {
		GT_TRY(unpack_delta(p, vals, n, (size_t)k, vals, w, dst));
	}
	if (k_ret)
		*k_ret = (size_t)k;
	return 0;
}

/* ---- the quantizers' values ------------------------------------------------ */

float gt_sparse_f32_up(double v)
{
	float f;

	if (!(v < (double)FLT_MAX))
		return FLT_MAX;
	f = (float)v;
	if ((double)f < v)
		f = nextafterf(f, FLT_MAX);
	return f;
}

static uint16_t f32_to_f16(float f)
{
	uint32_t x = gt_f32_bits(f);
	const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);

	x &= 0x7fffffffu;
	if (x >= 0x7f800000u) /* Inf, NaN (quieted) */
		return (uint16_t)(sign | 0x7c00u | (x > 0x7f800000u ? 0x200u : 0));
	if (x >= 0x477ff000u) /* 65520 and above round to Inf */
		return (uint16_t)(sign | 0x7c00u);
	if (x < 0x38800000u) /* below 2^-14: a subnormal, in units of 2^-24 */
		return (uint16_t)(sign | (uint16_t)lrintf(gt_f32_from_bits(x) * 0x1p24f));
	x -= 112u << 23; /* rebias 127 -> 15 */
	x += 0xfffu + ((x >> 13) & 1u); /* round to nearest even */
	return (uint16_t)(sign | (x >> 13));
}

static uint16_t f32_to_bf16(float f)
{
	const uint32_t x = gt_f32_bits(f);

	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u);
	return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

void gt_sparse_put(void *dst, enum gt_dtype dt, size_t i, double v)
{
	switch (dt) {
	case GT_DT_F32: gt_fp_store(dst, dt, i, gt_f32_bits((float)v)); break;
	case GT_DT_F64: gt_fp_store(dst, dt, i, gt_f64_bits(v)); break;
	case GT_DT_F16: gt_fp_store(dst, dt, i, f32_to_f16((float)v)); break;
	case GT_DT_BF16: gt_fp_store(dst, dt, i, f32_to_bf16((float)v)); break;
	case GT_DT_NONE: break;
	}
}
