/* gt_bitio.h - bounded LSB-first bit writer and reader on memory buffers */
#ifndef GT_BITIO_H
#define GT_BITIO_H

/*
 * Bit order: LSB-first, as in deflate and zstd's forward streams.  The
 * first bit written is bit 0 of byte 0; a value of n bits is written
 * least significant bit first, so that bytes hold a little-endian bit
 * string.  A stream of 24-bit values is thus a plain array of 3-byte
 * little-endian integers.  A Huffman code (defined MSB-first, as codes
 * are drawn in a tree) is written bit-reversed: gt_huff does that.
 *
 * Both sides keep a 64-bit buffer and start/ptr/end pointers.  The
 * writer never stores past @end: when the buffer is full it drops the
 * bits and remembers the overflow, which gt_bitw_close() reports as
 * GT_ERR(DST_TOO_SMALL).  The reader never loads past @end: past the end
 * it reads zero bits and counts them, and gt_bitr_left() then tells
 * "bits remain" (> 0), "exactly consumed" (0) and "read more bits than
 * there were" (< 0) apart, so a decoder checks once at the end.
 *
 * The hot functions are static inline.  Structs are owned by the caller
 * (usually on the stack); one thread per struct.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gt_error.h"
#include "gt_isa.h"

/* Most bits one gt_bitw_put() may add after a flush (7 may be pending). */
#define GT_BITW_MAX 57
/* Most bits gt_bitr_peek()/consume may use after one gt_bitr_refill(). */
#define GT_BITR_MAX 56

struct gt_bitw {
	uint64_t acc;        /* pending bits, first bit in bit 0 */
	unsigned nb;         /* number of pending bits (<= 64) */
	int overflow;        /* bits were dropped: buffer too small */
	unsigned char *start, *ptr, *end;
};

struct gt_bitr {
	uint64_t acc;        /* next bits, first in bit 0; bits above nb are 0
				or the true following bits */
	unsigned nb;         /* valid bits in acc */
	uint64_t pad;        /* zero bits supplied past the end */
	const unsigned char *start, *ptr, *end;
};

/* ---- writer ---------------------------------------------------------- */

/* gt_bitw_init - a writer on [dst, dst + cap). */
static inline void gt_bitw_init(struct gt_bitw *w, void *dst, size_t cap)
{
	w->acc = 0;
	w->nb = 0;
	w->overflow = 0;
	w->start = (unsigned char *)dst;
	w->ptr = w->start;
	w->end = w->start + cap;
}

/*
 * gt_bitw_put - append the low @n bits of @v (bits above n must be 0).
 * The pending count plus @n must stay <= 64, and once it reaches 64 the
 * next call must be a flush: after gt_bitw_flush() up to GT_BITW_MAX bits
 * may be put, e.g. two 26-bit puts between flushes.  @n may be 0.
 */
static inline void gt_bitw_put(struct gt_bitw *w, uint64_t v, unsigned n)
{
	w->acc |= v << w->nb;
	w->nb += n;
}

/* Slow path of gt_bitw_flush(): byte by byte near the end. */
void gt_bitw_flush_slow(struct gt_bitw *w);

/* gt_bitw_flush - store the whole bytes pending; leaves <= 7 bits. */
static inline void gt_bitw_flush(struct gt_bitw *w)
{
	if (__builtin_expect(w->end - w->ptr >= 8, 1)) {
		const unsigned bytes = w->nb >> 3;

		memcpy(w->ptr, &w->acc, 8);
		w->ptr += bytes;
		/* two shifts: a 64-bit shift of a 64-bit value is undefined */
		w->acc >>= (bytes * 8) >> 1;
		w->acc >>= (bytes * 8) >> 1;
		w->nb &= 7;
	} else {
		gt_bitw_flush_slow(w);
	}
}

/*
 * gt_bitw_close - store the last partial byte (zero-padded) and give the
 * stream length in bytes.  @return 0, GT_ERR(DST_TOO_SMALL) when any bit
 * did not fit (the bytes at [start, end) are then unspecified).
 */
int gt_bitw_close(struct gt_bitw *w, size_t *len_ret);

/* Bits written so far, pending ones included. */
static inline uint64_t gt_bitw_bits(const struct gt_bitw *w)
{
	return (uint64_t)(w->ptr - w->start) * 8 + w->nb;
}

/* ---- reader ---------------------------------------------------------- */

/* gt_bitr_init - a reader on [src, src + len). */
static inline void gt_bitr_init(struct gt_bitr *r, const void *src, size_t len)
{
	r->acc = 0;
	r->nb = 0;
	r->pad = 0;
	r->start = (const unsigned char *)src;
	r->ptr = r->start;
	r->end = r->start + len;
}

/* Slow path of gt_bitr_refill(): byte by byte, then zeros past the end. */
void gt_bitr_refill_slow(struct gt_bitr *r);

/* gt_bitr_refill() where the caller knows 8 or more bytes are left (a
 * loop that counted its refills ahead): no bounds check. */
static inline void gt_bitr_refill_fast(struct gt_bitr *r)
{
	uint64_t v;

	memcpy(&v, r->ptr, 8);
	r->acc |= v << r->nb;
	r->ptr += (63 - r->nb) >> 3;
	r->nb |= 56;
}

/* gt_bitr_refill - make at least GT_BITR_MAX bits available. */
static inline void gt_bitr_refill(struct gt_bitr *r)
{
	if (__builtin_expect(r->end - r->ptr >= 8, 1))
		gt_bitr_refill_fast(r);
	else
		gt_bitr_refill_slow(r);
}

/* The next @n (1..GT_BITR_MAX) bits, not consumed.  Needs a refill. */
static inline uint64_t gt_bitr_peek(const struct gt_bitr *r, unsigned n)
{
	return r->acc & ((UINT64_C(1) << n) - 1);
}

/* Drop @n bits (n <= the bits available since the last refill). */
static inline void gt_bitr_consume(struct gt_bitr *r, unsigned n)
{
	r->acc >>= n;
	r->nb -= n;
}

/* Read @n (0..GT_BITR_MAX) bits; refills first. */
static inline uint64_t gt_bitr_get(struct gt_bitr *r, unsigned n)
{
	uint64_t v;

	gt_bitr_refill(r);
	v = n ? gt_bitr_peek(r, n) : 0;
	gt_bitr_consume(r, n);
	return v;
}

/*
 * gt_bitr_left - bits not yet consumed: > 0 bits remain, 0 the stream
 * was consumed exactly, < 0 the reader went past the end by that many
 * bits (overflow: the stream was truncated or corrupt).
 */
static inline int64_t gt_bitr_left(const struct gt_bitr *r)
{
	return (int64_t)((uint64_t)(r->end - r->ptr) * 8 + r->nb) -
	       (int64_t)r->pad;
}

/*
 * gt_bitr_finish - check a stream that a writer zero-padded to a byte:
 * @return 0 when fewer than 8 bits remain and they are all zero,
 *	GT_ERR(TRUNCATED) when the reader overflowed, GT_ERR(CORRUPT) when
 *	whole bytes or non-zero padding bits are left.
 */
int gt_bitr_finish(struct gt_bitr *r);

/* ---- a writer in registers, for hot loops -------------------------------- */

/*
 * A copy of a gt_bitw's state that a hot loop keeps in locals (no call
 * takes its address, so the compiler holds it in registers): put up to 56
 * bits at a time with one unconditional 8-byte store.  The caller checks
 * beforehand that 8 bytes of room are left at ptr for every put.
 */
struct gt_bitw_fast {
	uint64_t acc;
	unsigned nb;
	unsigned char *ptr;
};

static inline struct gt_bitw_fast gt_bitw_fast_load(const struct gt_bitw *w)
{
	const struct gt_bitw_fast f = { w->acc, w->nb, w->ptr };

	return f;
}

static inline void gt_bitw_fast_store(const struct gt_bitw_fast *f, struct gt_bitw *w)
{
	w->acc = f->acc;
	w->nb = f->nb;
	w->ptr = f->ptr;
}

static inline void gt_bitw_fast_put(struct gt_bitw_fast *f, uint64_t v, unsigned len)
{
	const unsigned nb = f->nb + len;
	const uint64_t acc = f->acc | v << f->nb;

	memcpy(f->ptr, &acc, 8);
	f->ptr += nb >> 3;
	f->acc = acc >> (nb & ~7u); /* nb <= 63 */
	f->nb = nb & 7;
}

/* ---- whole arrays of fixed-width codes ----------------------------------- */

/*
 * Eight k-bit codes are exactly k bytes, so an array of codes is packed
 * eight at a time with no bit writer carried from group to group: each
 * group's k bytes are built in registers (shifts known at compile time,
 * one specialization per k) and stored.  The bytes are those of
 * gt_bitw_put() of every code in turn, then gt_bitw_close().
 */

/* Most bits a code of gt_bitpack()/gt_bitunpack() may have. */
#define GT_BITPACK_MAX 32

/*
 * gt_bitpack - @n codes of @k (1..GT_BITPACK_MAX) bits each (bits above
 * k must be 0) at @dst, LSB-first: exactly (n * k + 7) / 8 bytes, the
 * last zero-padded; nothing is written past them.
 */
void gt_bitpack(const uint32_t *codes, size_t n, unsigned k, void *dst);

/*
 * gt_bitunpack - @n codes of @k (1..GT_BITPACK_MAX) bits from exactly
 * (n * k + 7) / 8 bytes at @src (nothing past them is read).
 * @return 0, GT_ERR(CORRUPT) when the padding bits of the last byte are
 *	not zero (the codes are written all the same).
 */
int gt_bitunpack(const void *src, size_t n, unsigned k, uint32_t *codes);

/* The same with the loops of @isa (gt_isa.h), which must be usable:
 * the bytes and codes are the same for every isa. */
void gt_bitpack_isa(const uint32_t *codes, size_t n, unsigned k, void *dst,
		    enum gt_isa isa);
int gt_bitunpack_isa(const void *src, size_t n, unsigned k, uint32_t *codes,
		     enum gt_isa isa);

/* ---- LEB128 varints in byte streams -------------------------------------- */

#define GT_VARINT_MAX 10

/* Write @v at @p (at most GT_VARINT_MAX bytes); returns the bytes written. */
static inline int gt_varint_put(unsigned char *p, uint64_t v)
{
	int k = 0;

	while (v >= 0x80) {
		p[k++] = (unsigned char)(0x80 | (v & 0x7f));
		v >>= 7;
	}
	p[k++] = (unsigned char)v;
	return k;
}

/* Read a varint at *@p, before @end; advances *@p.
 * @return 0, GT_ERR(TRUNCATED), GT_ERR(CORRUPT) (longer than 10 bytes). */
static inline int gt_varint_get(const unsigned char **p, const unsigned char *end,
				uint64_t *v_ret)
{
	uint64_t v = 0;

	for (unsigned k = 0; k < GT_VARINT_MAX; k++) {
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

/* ---- little-endian u32 in byte streams ----------------------------------- */

static inline void gt_le32_put(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t gt_le32_get(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#endif
