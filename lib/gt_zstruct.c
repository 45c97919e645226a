/* gt_zstruct.c - the zero structure of a block: all-zero rows and columns */
#include <stdlib.h>
#include <string.h>

#include "gt_bitio.h"
#include "gt_zstruct.h"
#include "banned.h"

void gt_zs_init(struct gt_zstruct *z)
{
	memset(z, 0, sizeof(*z));
}

void gt_zs_release(struct gt_zstruct *z)
{
	free(z->rows);
	free(z->cols);
	free(z->copy);
	free(z->from);
	free(z->neg);
	free(z->crow);
	free(z->slot);
	gt_zs_init(z);
}

/* @p grown to @n elements of @size (*@cap kept in elements). */
static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	void *q;

	if (n <= *cap)
		return 0;
	q = realloc(*p, n * size);
	if (!q)
		return GT_ERR(NOMEM);
	*p = q;
	*cap = n;
	return 0;
}

/* Room for the two bitmaps of @nrows rows of @row_len, cleared. */
static int bitmaps(struct gt_zstruct *z, size_t row_len, size_t nrows)
{
	const size_t rb = (nrows + 7) / 8, cb = (row_len + 7) / 8;

	if (rb > z->rows_cap) {
		uint8_t *p = realloc(z->rows, rb);

		if (!p)
			return GT_ERR(NOMEM);
		z->rows = p;
		z->rows_cap = rb;
	}
	if (cb > z->cols_cap) {
		uint8_t *p = realloc(z->cols, cb);

		if (!p)
			return GT_ERR(NOMEM);
		z->cols = p;
		z->cols_cap = cb;
	}
	if (rb > z->crow_cap) {
		uint8_t *p = realloc(z->crow, rb);

		if (!p)
			return GT_ERR(NOMEM);
		z->crow = p;
		z->crow_cap = rb;
	}
	memset(z->rows, 0, rb);
	memset(z->cols, 0, cb);
	memset(z->crow, 0, rb);
	z->ncopy = 0;
	z->row_len = row_len;
	z->nrows = nrows;
	z->zero_rows = z->zero_cols = 0;
	z->flags = 0;
	return 0;
}

static int is_zero(const void *src, enum gt_dtype dt, size_t i)
{
	return gt_fp_load(src, dt, i) == 0;
}

/* 1 when the @len values of row @r are all +0.0 (stops at the first
 * that is not). */
static int zero_row(const void *src, enum gt_dtype dt, size_t r, size_t R,
		    size_t len)
{
	for (size_t c = 0; c < len; c++)
		if (!is_zero(src, dt, r * R + c))
			return 0;
	return 1;
}

/* Keep the candidate columns @cand (*@nc of them) that are +0.0 in row
 * @r, of @len values; a column past a short last row stays. */
static void filter_cols(const void *src, enum gt_dtype dt, size_t r, size_t R,
			size_t len, uint32_t *cand, size_t *nc)
{
	size_t k = 0;

	for (size_t j = 0; j < *nc; j++) {
		const uint32_t c = cand[j];

		if (c >= len || is_zero(src, dt, r * R + c))
			cand[k++] = c;
	}
	*nc = k;
}

int gt_zs_find(struct gt_zstruct *z, const void *src, size_t n,
	       enum gt_dtype dt, size_t row_len)
{
	const size_t R = row_len, nrows = R ? (n + R - 1) / R : 0;
	uint32_t *cand;
	size_t nc = 0;

	if (R < 2 || R > GT_ZS_MAX || nrows < 2 || nrows > GT_ZS_MAX)
		return GT_ERR(INVAL);
	GT_TRY(bitmaps(z, R, nrows));
	cand = malloc(R * sizeof(*cand));
	if (!cand)
		return GT_ERR(NOMEM);
	for (size_t c = 0; c < R; c++)
		if (is_zero(src, dt, c))
			cand[nc++] = (uint32_t)c;
	for (size_t r = 0; r < nrows; r++) {
		const size_t len = r + 1 < nrows ? R : n - r * R;

		if (zero_row(src, dt, r, R, len)) {
			z->rows[r / 8] |= (uint8_t)(1u << (r % 8));
			z->zero_rows++;
		} else if (nc && r) {
			filter_cols(src, dt, r, R, len, cand, &nc);
		}
	}
	/* a column zero in every row is only news when some row is not zero */
	for (size_t j = 0; j < nc && z->zero_rows < nrows; j++)
		z->cols[cand[j] / 8] |= (uint8_t)(1u << (cand[j] % 8));
	z->zero_cols = z->zero_rows < nrows ? nc : 0;
	free(cand);
	z->flags = (z->zero_rows ? GT_ZS_ROWS : 0) | (z->zero_cols ? GT_ZS_COLS : 0);
	return 0;
}

static int zero_bit(const struct gt_zstruct *z, size_t r)
{
	return (z->flags & GT_ZS_ROWS) && (z->rows[r / 8] >> (r % 8) & 1);
}

/* Row @r is not coded: a zero row or a copy. */
static int row_bit(const struct gt_zstruct *z, size_t r)
{
	return zero_bit(z, r) ||
	       ((z->flags & GT_ZS_COPIES) && (z->crow[r / 8] >> (r % 8) & 1));
}

static int col_bit(const struct gt_zstruct *z, size_t c)
{
	return z->cols[c / 8] >> (c % 8) & 1;
}

/*
 * The three loops below walk [@q, @q + @n) row piece by row piece: a
 * zero row is skipped whole, a row without column holes copied whole.
 */
size_t gt_zs_kept(const struct gt_zstruct *z, size_t q, size_t n)
{
	const size_t R = z->row_len;
	size_t m = 0;

	for (size_t i = 0; i < n;) {
		const size_t p = q + i, c0 = p % R;
		const size_t seg = R - c0 < n - i ? R - c0 : n - i;

		if (!row_bit(z, p / R)) {
			if (!(z->flags & GT_ZS_COLS))
				m += seg;
			for (size_t c = c0; c < c0 + seg && (z->flags & GT_ZS_COLS); c++)
				m += !col_bit(z, c);
		}
		i += seg;
	}
	return m;
}

size_t gt_zs_gather(const struct gt_zstruct *z, size_t q, const void *src,
		    size_t n, size_t width, void *dst)
{
	const unsigned char *s = src;
	unsigned char *d = dst;
	const size_t R = z->row_len;
	size_t m = 0;

	for (size_t i = 0; i < n;) {
		const size_t p = q + i, c0 = p % R;
		const size_t seg = R - c0 < n - i ? R - c0 : n - i;

		if (row_bit(z, p / R)) {
			/* skipped */
		} else if (!(z->flags & GT_ZS_COLS)) {
			memcpy(d + m * width, s + i * width, seg * width);
			m += seg;
		} else {
			for (size_t k = 0; k < seg; k++)
				if (!col_bit(z, c0 + k))
					memcpy(d + m++ * width, s + (i + k) * width, width);
		}
		i += seg;
	}
	return m;
}

void gt_zs_scatter(const struct gt_zstruct *z, size_t q, const void *src,
		   size_t n, size_t width, void *dst)
{
	const unsigned char *s = src;
	unsigned char *d = dst;
	const size_t R = z->row_len;
	size_t m = 0;

	for (size_t i = 0; i < n;) {
		const size_t p = q + i, c0 = p % R;
		const size_t seg = R - c0 < n - i ? R - c0 : n - i;

		if (row_bit(z, p / R)) {
			memset(d + i * width, 0, seg * width);
		} else if (!(z->flags & GT_ZS_COLS)) {
			memcpy(d + i * width, s + m * width, seg * width);
			m += seg;
		} else {
			for (size_t k = 0; k < seg; k++) {
				unsigned char *o = d + (i + k) * width;

				if (col_bit(z, c0 + k))
					memset(o, 0, width);
				else
					memcpy(o, s + m++ * width, width);
			}
		}
		i += seg;
	}
}

static size_t varint_len(uint64_t v)
{
	unsigned char b[GT_VARINT_MAX];

	return (size_t)gt_varint_put(b, v);
}

size_t gt_zs_size(const struct gt_zstruct *z)
{
	return 1 + varint_len(z->row_len) + varint_len(z->nrows) +
	       (z->flags & GT_ZS_ROWS ? (z->nrows + 7) / 8 : 0) +
	       (z->flags & GT_ZS_COLS ? (z->row_len + 7) / 8 : 0);
}

int gt_zs_save(const struct gt_zstruct *z, void *dst, size_t cap,
	       size_t *len_ret)
{
	unsigned char *p = dst;
	const size_t rb = (z->nrows + 7) / 8, cb = (z->row_len + 7) / 8;

	*len_ret = 0;
	if (!z->flags || (z->flags & ~GT_ZS_ALL))
		return GT_ERR(INVAL);
	if (gt_zs_size(z) > cap)
		return GT_ERR(DST_TOO_SMALL);
	*p++ = (unsigned char)z->flags;
	p += gt_varint_put(p, z->row_len);
	p += gt_varint_put(p, z->nrows);
	if (z->flags & GT_ZS_ROWS) {
		memcpy(p, z->rows, rb);
		p += rb;
	}
	if (z->flags & GT_ZS_COLS) {
		memcpy(p, z->cols, cb);
		p += cb;
	}
	*len_ret = (size_t)(p - (unsigned char *)dst);
	return 0;
}

/* Read a bitmap of @bits bits at *@p into @map (unused bits must be 0). */
static int load_map(const unsigned char **p, const unsigned char *end,
		    uint8_t *map, size_t bits)
{
	const size_t nb = (bits + 7) / 8;

	if (nb > (size_t)(end - *p))
		return GT_ERR(TRUNCATED);
	memcpy(map, *p, nb);
	if (bits % 8 && (map[nb - 1] >> (bits % 8)))
		return GT_ERR(CORRUPT);
	*p += nb;
	return 0;
}

static size_t popcount(const uint8_t *map, size_t bits)
{
	size_t k = 0;

	for (size_t i = 0; i < (bits + 7) / 8; i++)
		k += (size_t)__builtin_popcount(map[i]);
	return k;
}

int gt_zs_load(struct gt_zstruct *z, const void *src, size_t len,
	       size_t *used_ret)
{
	const unsigned char *p = src, *const end = p + len;
	uint64_t R, nrows;
	unsigned flags;

	*used_ret = 0;
	if (!len)
		return GT_ERR(TRUNCATED);
	flags = *p++;
	if (!flags || (flags & ~GT_ZS_ALL))
		return GT_ERR(CORRUPT);
	GT_TRY(gt_varint_get(&p, end, &R));
	GT_TRY(gt_varint_get(&p, end, &nrows));
	if (R < 2 || R > GT_ZS_MAX || !nrows || nrows > GT_ZS_MAX)
		return GT_ERR(CORRUPT);
	GT_TRY(bitmaps(z, (size_t)R, (size_t)nrows));
	if (flags & GT_ZS_ROWS)
		GT_TRY(load_map(&p, end, z->rows, z->nrows));
	if (flags & GT_ZS_COLS)
		GT_TRY(load_map(&p, end, z->cols, z->row_len));
	z->zero_rows = popcount(z->rows, z->nrows);
	z->zero_cols = popcount(z->cols, z->row_len);
	z->flags = flags;
	*used_ret = (size_t)(p - (const unsigned char *)src);
	return 0;
}

/* ---- row copies ----------------------------------------------------------- */

/* Whole rows of the chunk [@q, @q + @n): [*@r0_ret, *@r1_ret). */
static void whole_rows(const struct gt_zstruct *z, size_t q, size_t n,
		       size_t *r0_ret, size_t *r1_ret)
{
	const size_t R = z->row_len, r0 = (q + R - 1) / R, r1 = (q + n) / R;

	*r0_ret = r0;
	*r1_ret = r1 > r0 ? r1 : r0;
}

static int kept_col(const struct gt_zstruct *z, size_t c)
{
	return !(z->flags & GT_ZS_COLS) || !col_bit(z, c);
}

/* FNV-1a of the kept values of the row at @p, sign bits cleared. */
static uint64_t row_hash(const struct gt_zstruct *z, const unsigned char *p,
			 size_t w)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (size_t c = 0; c < z->row_len; c++) {
		if (!kept_col(z, c))
			continue;
		for (size_t b = 0; b < w; b++) {
			const unsigned v = p[c * w + b] & (b + 1 == w ? 0x7fu : 0xffu);

			h = (h ^ v) * UINT64_C(1099511628211);
		}
	}
	return h;
}

/* 1: the kept values of rows @a and @b are equal, 2: negated, 0: neither. */
static int row_match(const struct gt_zstruct *z, const unsigned char *a,
		     const unsigned char *b, size_t w)
{
	int same = 1, negd = 1;

	for (size_t c = 0; c < z->row_len && (same || negd); c++) {
		if (!kept_col(z, c))
			continue;
		same &= !memcmp(a + c * w, b + c * w, w);
		negd &= !memcmp(a + c * w, b + c * w, w - 1) &&
			(a[c * w + w - 1] ^ b[c * w + w - 1]) == 0x80;
	}
	return same ? 1 : negd ? 2 : 0;
}

static void clear_copies(struct gt_zstruct *z)
{
	for (size_t i = 0; i < z->ncopy; i++)
		z->crow[z->copy[i] / 8] &= (uint8_t)~(1u << (z->copy[i] % 8));
	z->ncopy = 0;
}

static void add_copy(struct gt_zstruct *z, size_t r, size_t from, int neg)
{
	z->copy[z->ncopy] = (uint32_t)r;
	z->from[z->ncopy] = (uint32_t)from;
	z->neg[z->ncopy++] = (uint8_t)neg;
	z->crow[r / 8] |= (uint8_t)(1u << (r % 8));
}

static int copy_room(struct gt_zstruct *z, size_t rows)
{
	size_t c1 = z->copy_cap, c2 = z->copy_cap, c3 = z->copy_cap;

	GT_TRY(grow((void **)&z->copy, &c1, rows, sizeof(*z->copy)));
	GT_TRY(grow((void **)&z->from, &c2, rows, sizeof(*z->from)));
	GT_TRY(grow((void **)&z->neg, &c3, rows, sizeof(*z->neg)));
	z->copy_cap = rows > z->copy_cap ? rows : z->copy_cap;
	return 0;
}

int gt_zs_find_copies(struct gt_zstruct *z, size_t q, const void *src,
		      size_t n, enum gt_dtype dt)
{
	const size_t w = gt_dtype_size(dt), R = z->row_len;
	const unsigned char *base = src;
	size_t r0, r1, mask = 1;

	clear_copies(z);
	whole_rows(z, q, n, &r0, &r1);
	if (r1 - r0 < 2)
		return 0;
	while (mask < 2 * (r1 - r0))
		mask <<= 1;
	GT_TRY(copy_room(z, r1 - r0));
	GT_TRY(grow((void **)&z->slot, &z->slot_cap, mask, sizeof(*z->slot)));
	memset(z->slot, 0, mask * sizeof(*z->slot));
	mask--;
	for (size_t r = r0; r < r1; r++) {
		const unsigned char *p = base + (r * R - q) * w;
		size_t h;
		int m = 0;

		if (zero_bit(z, r))
			continue;
		h = (size_t)row_hash(z, p, w) & mask;
		for (; z->slot[h]; h = (h + 1) & mask) {
			const size_t s = z->slot[h] - 1;

			m = row_match(z, base + (s * R - q) * w, p, w);
			if (m) {
				add_copy(z, r, s, m == 2);
				break;
			}
		}
		if (!m)
			z->slot[h] = (uint32_t)(r + 1);
	}
	return 0;
}

int gt_zs_copies_save(const struct gt_zstruct *z, size_t q, void *dst,
		      size_t cap, size_t *len_ret)
{
	unsigned char *p = dst;
	size_t r0, r1, next;

	*len_ret = 0;
	whole_rows(z, q, 0, &r0, &r1);
	if (cap < GT_VARINT_MAX * (1 + 2 * z->ncopy))
		return GT_ERR(DST_TOO_SMALL);
	p += gt_varint_put(p, z->ncopy);
	next = r0;
	for (size_t i = 0; i < z->ncopy; i++) {
		p += gt_varint_put(p, z->copy[i] - next);
		p += gt_varint_put(p, 2 * (uint64_t)(z->copy[i] - z->from[i] - 1) + z->neg[i]);
		next = z->copy[i] + 1;
	}
	*len_ret = (size_t)(p - (unsigned char *)dst);
	return 0;
}

int gt_zs_copies_load(struct gt_zstruct *z, size_t q, size_t n,
		      const void *src, size_t len, size_t *used_ret)
{
	const unsigned char *p = src, *const end = p + len;
	uint64_t k, d, ref;
	size_t r0, r1, next;

	*used_ret = 0;
	clear_copies(z);
	whole_rows(z, q, n, &r0, &r1);
	GT_TRY(gt_varint_get(&p, end, &k));
	if (k > r1 - r0)
		return GT_ERR(CORRUPT);
	GT_TRY(copy_room(z, (size_t)k));
	next = r0;
	for (uint64_t i = 0; i < k; i++) {
		GT_TRY(gt_varint_get(&p, end, &d));
		GT_TRY(gt_varint_get(&p, end, &ref));
		if (d >= r1 - next || (ref >> 1) >= next + d - r0 ||
		    zero_bit(z, next + (size_t)d)) {
			clear_copies(z);
			return GT_ERR(CORRUPT);
		}
		add_copy(z, next + (size_t)d, next + (size_t)d - 1 - (size_t)(ref >> 1),
			 (int)(ref & 1));
		next += (size_t)d + 1;
	}
	*used_ret = (size_t)(p - (const unsigned char *)src);
	return 0;
}

void gt_zs_apply_copies(const struct gt_zstruct *z, size_t q, void *dst,
			enum gt_dtype dt)
{
	const size_t w = gt_dtype_size(dt), R = z->row_len;
	unsigned char *base = dst;

	for (size_t i = 0; i < z->ncopy; i++) {
		unsigned char *to = base + ((size_t)z->copy[i] * R - q) * w;
		const unsigned char *fr = base + ((size_t)z->from[i] * R - q) * w;

		for (size_t c = 0; c < R; c++) {
			if (!kept_col(z, c))
				continue;
			memcpy(to + c * w, fr + c * w, w);
			to[c * w + w - 1] ^= (unsigned char)(z->neg[i] ? 0x80 : 0);
		}
	}
}
