/* gt_bytes.h - little-endian field writers and bounds-checked readers (internal) */
#ifndef GT_BYTES_H
#define GT_BYTES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/gt_error.h"

/* A growable byte buffer for building headers.  A failed allocation
 * sticks in @err and is reported once, when the buffer is used. */
struct gt_buf {
	unsigned char *p;
	size_t len, cap;
	int err;
};

static inline void gt_buf_put(struct gt_buf *b, const void *src, size_t n)
{
	if (b->err)
		return;
	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 256;
		unsigned char *q;

		while (cap - b->len < n) {
			if (cap > SIZE_MAX / 2) {
				b->err = GT_ERR(OVERFLOW);
				return;
			}
			cap *= 2;
		}
		q = realloc(b->p, cap);
		if (!q) {
			b->err = GT_ERR(NOMEM);
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
}

static inline void gt_buf_u8(struct gt_buf *b, unsigned v)
{
	const unsigned char c = (unsigned char)v;

	gt_buf_put(b, &c, 1);
}

static inline void gt_buf_u16(struct gt_buf *b, unsigned v)
{
	const unsigned char c[2] = { (unsigned char)v, (unsigned char)(v >> 8) };

	gt_buf_put(b, c, 2);
}

static inline void gt_buf_u32(struct gt_buf *b, uint32_t v)
{
	unsigned char c[4];

	for (int i = 0; i < 4; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	gt_buf_put(b, c, 4);
}

static inline void gt_buf_u64(struct gt_buf *b, uint64_t v)
{
	unsigned char c[8];

	for (int i = 0; i < 8; i++)
		c[i] = (unsigned char)(v >> (8 * i));
	gt_buf_put(b, c, 8);
}

/* An unsigned LEB128 varint: 7 bits a byte, low first, at most 10 bytes. */
static inline void gt_buf_uv(struct gt_buf *b, uint64_t v)
{
	unsigned char c[10];
	size_t n = 0;

	do {
		c[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	gt_buf_put(b, c, n);
}

/* A string as a varint length (at most 65535) + bytes (no NUL). */
static inline void gt_buf_str(struct gt_buf *b, const char *s)
{
	const size_t n = strlen(s);

	if (n > 0xffff) {
		b->err = GT_ERR(OVERFLOW);
		return;
	}
	gt_buf_uv(b, n);
	gt_buf_put(b, s, n);
}

static inline void gt_buf_release(struct gt_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* A read cursor over untrusted bytes: every get checks what is left, and
 * a short read sets @err (TRUNCATED) and yields zeros. */
struct gt_cur {
	const unsigned char *p, *end;
	int err;
};

static inline int gt_cur_need(struct gt_cur *c, size_t n)
{
	if (c->err || n > (size_t)(c->end - c->p)) {
		c->err = GT_ERR(TRUNCATED);
		return 0;
	}
	return 1;
}

static inline uint64_t gt_cur_uint(struct gt_cur *c, unsigned bytes)
{
	uint64_t v = 0;

	if (!gt_cur_need(c, bytes))
		return 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += bytes;
	return v;
}

#define gt_cur_u8(c) ((unsigned)gt_cur_uint((c), 1))
#define gt_cur_u16(c) ((unsigned)gt_cur_uint((c), 2))
#define gt_cur_u32(c) ((uint32_t)gt_cur_uint((c), 4))
#define gt_cur_u64(c) (gt_cur_uint((c), 8))

/* A varint; a 10th byte above 1, or an unterminated one, is CORRUPT. */
static inline uint64_t gt_cur_uv(struct gt_cur *c)
{
	uint64_t v = 0;

	for (unsigned shift = 0; shift < 70; shift += 7) {
		unsigned b;

		if (!gt_cur_need(c, 1))
			return 0;
		b = *c->p++;
		if (shift == 63 && b > 1)
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->err = GT_ERR(CORRUPT);
	return 0;
}

static inline const unsigned char *gt_cur_bytes(struct gt_cur *c, size_t n)
{
	const unsigned char *p = c->p;

	if (!gt_cur_need(c, n))
		return NULL;
	c->p += n;
	return p;
}

/* A varint-length string, returned malloc'd and NUL-terminated; NULL on error
 * (err set) or when it holds a NUL byte (err CORRUPT). */
static inline char *gt_cur_str(struct gt_cur *c)
{
	const uint64_t len = gt_cur_uv(c);
	const size_t n = len > 0xffff ? (size_t)-1 : (size_t)len;
	const unsigned char *p = gt_cur_bytes(c, n);
	char *s;

	if (!p)
		return NULL;
	if (memchr(p, 0, n)) {
		c->err = GT_ERR(CORRUPT);
		return NULL;
	}
	s = malloc(n + 1);
	if (!s) {
		c->err = GT_ERR(NOMEM);
		return NULL;
	}
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

/*
 * gt_slurp - read @f to its end, or to @max + 1 bytes, into *@buf_ret
 * (malloc'd, grown as it fills: a small file costs a small buffer) and
 * *@len_ret: a length of @max + 1 tells the caller the file is larger than
 * @max.  Returns 0, GT_ERR(IO) on a read error, GT_ERR(NOMEM); *@buf_ret
 * is NULL on an error.  slurp.c.
 */
int gt_slurp(FILE *f, size_t max, unsigned char **buf_ret, size_t *len_ret);

#endif
