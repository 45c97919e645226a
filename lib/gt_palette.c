/* gt_palette.c - values coded as a palette of the distinct ones and a token each */
#include <stdlib.h>
#include <string.h>

#include "gt_bitio.h"
#include "gt_palette.h"
#include "banned.h"

#define NONE UINT32_MAX
/* kinds, in the order of the 2-bit codes */
enum { K_NEW = 0, K_REF = 1, K_HIT = 2 };

void gt_pal_init(struct gt_pal *p)
{
	memset(p, 0, sizeof(*p));
}

void gt_pal_release(struct gt_pal *p)
{
	free(p->val);
	free(p->idx);
	free(p->below);
	free(p->slot);
	gt_pal_init(p);
}

/* @p grown to @n elements of @size (*@cap kept in elements). */
static int grow(void *pp, size_t *cap, size_t n, size_t size)
{
	void **p = pp;
	void *q;

	if (n <= *cap)
		return 0;
	q = realloc(*p, (n ? n : 1) * size);
	if (!q)
		return GT_ERR(NOMEM);
	*p = q;
	*cap = n;
	return 0;
}

static inline size_t hash64(uint64_t v, size_t mask)
{
	v *= UINT64_C(0x9e3779b97f4a7c15);
	return (size_t)(v >> 29 ^ v >> 47) & mask;
}

int gt_pal_worth(const void *src, size_t n, enum gt_dtype dt)
{
	const unsigned mag = gt_dtype_size(dt) * 8 - 1;
	const size_t s = n < 1024 ? n : 1024;
	uint64_t key[2048];
	uint8_t used[2048] = { 0 };
	size_t rep = 0;

	for (size_t k = 0; k < s; k++) {
		const uint64_t v = gt_fp_load(src, dt, (size_t)((uint64_t)k * n / s));
		size_t h = hash64(v, 2047);

		if (!(v << (64 - mag) >> (64 - mag)))
			continue; /* ±0.0 */
		while (used[h] && key[h] != v)
			h = (h + 1) & 2047;
		rep += used[h];
		used[h] = 1;
		key[h] = v;
	}
	return s && 8 * rep >= s;
}

int gt_pal_build(struct gt_pal *p, const void *src, size_t n, enum gt_dtype dt)
{
	size_t mask = 1;

	p->n = p->d = 0;
	if (n > GT_PAL_MAX)
		return GT_ERR(INVAL);
	while (mask < 2 * n)
		mask <<= 1;
	GT_TRY(grow(&p->slot, &p->slot_cap, mask, sizeof(*p->slot)));
	GT_TRY(grow(&p->idx, &p->idx_cap, n, sizeof(*p->idx)));
	GT_TRY(grow(&p->val, &p->val_cap, n, sizeof(*p->val)));
	memset(p->slot, 0, mask * sizeof(*p->slot));
	mask--;
	for (size_t i = 0; i < n; i++) {
		const uint64_t v = gt_fp_load(src, dt, i);
		size_t h = hash64(v, mask);

		while (p->slot[h] && p->val[p->slot[h] - 1] != v)
			h = (h + 1) & mask;
		if (!p->slot[h]) {
			p->val[p->d] = v;
			p->slot[h] = (uint32_t)++p->d;
		}
		p->idx[i] = p->slot[h] - 1;
	}
	p->n = n;
	return 0;
}

void gt_pal_values(const struct gt_pal *p, enum gt_dtype dt, void *dst)
{
	for (size_t i = 0; i < p->d; i++)
		gt_fp_store(dst, dt, i, p->val[i]);
}

int gt_pal_param_ok(unsigned param)
{
	const unsigned s = param >> 1;

	return param < 8 && (param & GT_PAL_CTX ? s < 3 : s == 0);
}

/* Bits of the truncated binary code of @j < @seen (*@k_ret = k, *@u_ret = u). */
static inline unsigned tb_bits(size_t j, size_t seen, unsigned *k_ret,
			       size_t *u_ret)
{
	const unsigned k = (unsigned)(63 - __builtin_clzll((unsigned long long)seen));
	const size_t u = ((size_t)2 << k) - seen;

	*k_ret = k;
	*u_ret = u;
	return k + (j >= u);
}

/* The prediction for value @i (NONE: none), rows of @rk, with @ctx. */
static inline uint32_t predict(const struct gt_pal *p, const uint32_t *idx,
			       size_t i, size_t rk, int ctx)
{
	return ctx && rk && i >= rk ? p->below[idx[i - rk]] : NONE;
}

static int below_reset(struct gt_pal *p, size_t d)
{
	GT_TRY(grow(&p->below, &p->below_cap, d, sizeof(*p->below)));
	if (d)
		memset(p->below, 0xff, d * sizeof(*p->below));
	return 0;
}

/* Token counts of the built values with the context @ctx or not: the
 * kinds of values with a prediction (@kinds) and the bits of the others'
 * 1-bit kinds and of every REF's index (*@base_ret). */
static int count_tokens(struct gt_pal *p, size_t rk, int ctx, uint64_t kinds[3],
			uint64_t *base_ret)
{
	uint64_t base = 0;
	size_t seen = 0, u;
	unsigned k;

	GT_TRY(below_reset(p, p->d));
	kinds[0] = kinds[1] = kinds[2] = 0;
	for (size_t i = 0; i < p->n; i++) {
		const uint32_t x = p->idx[i], pr = predict(p, p->idx, i, rk, ctx);
		const int knd = pr == x ? K_HIT : x == seen ? K_NEW : K_REF;

		if (pr != NONE)
			kinds[knd]++;
		else
			base += seen != 0;
		if (knd == K_REF)
			base += tb_bits(x, seen, &k, &u);
		seen += knd == K_NEW;
		if (ctx && rk && i >= rk)
			p->below[p->idx[i - rk]] = x;
	}
	*base_ret = base;
	return 0;
}

int gt_pal_choose(struct gt_pal *p, size_t rk, uint64_t *bits_ret)
{
	uint64_t kinds[3], base, best;
	int param = 0;

	GT_TRY(count_tokens(p, rk, 0, kinds, &base));
	best = base;
	GT_TRY(count_tokens(p, rk, 1, kinds, &base));
	for (unsigned s = 0; s < 3; s++) {
		const uint64_t bits = base + 2 * (kinds[0] + kinds[1] + kinds[2]) - kinds[s];

		if (bits < best) {
			best = bits;
			param = (int)(GT_PAL_CTX | s << 1);
		}
	}
	*bits_ret = best;
	return param;
}

/* The code of kind @knd when kind @s has the 1-bit code: *@len_ret bits.
 * The other two: 1, then 0 for the first of them in kind order, 1 the
 * second. */
static inline unsigned kind_code(int knd, unsigned s, unsigned *len_ret)
{
	const unsigned k = (unsigned)knd;

	*len_ret = 1 + (k != s);
	return k == s ? 0 : 1u | (k - (k > s)) << 1;
}

int gt_pal_encode(struct gt_pal *p, size_t rk, unsigned param, void *dst,
		  size_t cap, size_t *len_ret)
{
	const int ctx = param & GT_PAL_CTX;
	const unsigned s = param >> 1;
	struct gt_bitw w;
	size_t seen = 0, u;
	unsigned k, len;

	*len_ret = 0;
	if (!gt_pal_param_ok(param))
		return GT_ERR(INVAL);
	GT_TRY(below_reset(p, p->d));
	gt_bitw_init(&w, dst, cap);
	for (size_t i = 0; i < p->n; i++) {
		const uint32_t x = p->idx[i], pr = predict(p, p->idx, i, rk, ctx);
		const int knd = pr == x ? K_HIT : x == seen ? K_NEW : K_REF;

		if (pr != NONE) {
			const unsigned c = kind_code(knd, s, &len);

			gt_bitw_put(&w, c, len);
		} else if (seen) {
			gt_bitw_put(&w, knd == K_REF, 1);
		}
		if (knd == K_REF) {
			const unsigned b = tb_bits(x, seen, &k, &u);

			if (b == k)
				gt_bitw_put(&w, x, k);
			else
				gt_bitw_put(&w, ((x + u) >> 1) | ((x + u) & 1) << k, k + 1);
		}
		gt_bitw_flush(&w);
		seen += knd == K_NEW;
		if (ctx && rk && i >= rk)
			p->below[p->idx[i - rk]] = x;
	}
	return gt_bitw_close(&w, len_ret);
}

/* The kind of the next token (*@knd_ret), reading from @r. */
static inline int get_kind(struct gt_bitr *r, size_t seen, uint32_t pr,
			   unsigned s)
{
	unsigned b;

	if (!seen)
		return K_NEW;
	if (pr == NONE)
		return gt_bitr_get(r, 1) ? K_REF : K_NEW;
	if (!gt_bitr_get(r, 1))
		return (int)s;
	b = (unsigned)gt_bitr_get(r, 1);
	return (int)(b + (b >= s));
}

/* The truncated binary code of an index below @seen (>= 1). */
static inline uint32_t get_ref(struct gt_bitr *r, size_t seen)
{
	unsigned k;
	size_t u;
	uint64_t v;

	(void)tb_bits(0, seen, &k, &u);
	v = gt_bitr_get(r, k);
	if (v < u)
		return (uint32_t)v;
	return (uint32_t)(2 * v + gt_bitr_get(r, 1) - u);
}

int gt_pal_decode(struct gt_pal *p, size_t rk, unsigned param, const void *src,
		  size_t len, const void *pal, size_t d, enum gt_dtype dt,
		  void *dst, size_t n)
{
	const int ctx = param & GT_PAL_CTX;
	const unsigned s = param >> 1;
	const size_t w = gt_dtype_size(dt);
	const unsigned char *const pv = pal;
	unsigned char *const out = dst;
	struct gt_bitr r;
	size_t seen = 0;

	if (!gt_pal_param_ok(param) || d > n || n > GT_PAL_MAX)
		return GT_ERR(CORRUPT);
	GT_TRY(grow(&p->idx, &p->idx_cap, n, sizeof(*p->idx)));
	GT_TRY(below_reset(p, d));
	gt_bitr_init(&r, src, len);
	for (size_t i = 0; i < n; i++) {
		const uint32_t pr = predict(p, p->idx, i, rk, ctx);
		const int knd = get_kind(&r, seen, pr, s);
		uint32_t x;

		if (knd == K_NEW) {
			if (seen >= d)
				return GT_ERR(CORRUPT);
			x = (uint32_t)seen++;
		} else {
			x = knd == K_HIT ? pr : get_ref(&r, seen);
		}
		if (gt_bitr_left(&r) < 0)
			return GT_ERR(TRUNCATED);
		p->idx[i] = x;
		memcpy(out + i * w, pv + (size_t)x * w, w);
		if (ctx && rk && i >= rk)
			p->below[p->idx[i - rk]] = x;
	}
	if (seen != d)
		return GT_ERR(CORRUPT);
	return gt_bitr_finish(&r);
}
