/* gt_zstruct.h - the zero structure of a block: all-zero rows and columns */
#ifndef GT_ZSTRUCT_H
#define GT_ZSTRUCT_H

/*
 * A block of n values of a tensor whose rows hold R values (R = the
 * product of every dimension but the first) is seen as rows of R values
 * from the block's first value on: value p of the block is in row p / R
 * and column p % R (the last row may be short).  A row is zero when all
 * of its values are +0.0 (all bits 0), a column when all of its values
 * in the block are.  huffexp codes such a block as two bitmaps and the
 * other values ("kept"): the values of a zero row or column are not
 * coded at all.
 *
 * A row may also be a copy: every kept value of a whole row equal to
 * the one of an earlier whole row of the same chunk (the chunk is a run
 * of the block's values coded on its own), or to its negation (the sign
 * bit of each kept value flipped).  A chunk lists its copies
 * (gt_zs_copies_save) and codes only the kept values of the other rows;
 * an embedding's rows of the words of one window, or the two rows of a
 * two-class linear layer (one the negation of the other), are such.
 *
 * Serialized (gt_zs_save; every integer a LEB128 varint):
 *   u8       flags: bit 0 the row bitmap follows, bit 1 the column
 *            bitmap follows, bit 2 the chunks list row copies, bit 3
 *            the kept values are coded with a palette (at least one
 *            set; the others 0)
 *   varint   R, 2 to GT_ZS_MAX
 *   varint   rows, 1 to GT_ZS_MAX (ceil(n / R) for a block of n values)
 *   bytes    rows bits, ceil(rows / 8) bytes, bit i of byte i / 8 (LSB
 *            first) set when row i is zero, unused bits 0 (flag bit 0)
 *   bytes    R bits, the same for the columns (flag bit 1)
 *
 * A struct is owned by its caller (gt_zs_init, gt_zs_release); one thread
 * at a time.
 */
#include <stddef.h>
#include <stdint.h>

#include "gt_error.h"
#include "gt_float.h"

#define GT_ZS_ROWS 1u
#define GT_ZS_COLS 2u
#define GT_ZS_COPIES 4u
/* huffexp codes the kept values of each chunk with a palette
 * (gt_palette.h; format 1.4): a flag this module only keeps */
#define GT_ZS_PALETTE 8u
#define GT_ZS_ALL (GT_ZS_ROWS | GT_ZS_COLS | GT_ZS_COPIES | GT_ZS_PALETTE)
#define GT_ZS_MAX (1u << 24)

struct gt_zstruct {
	unsigned flags;    /* GT_ZS_ROWS | GT_ZS_COLS: which bitmaps are used */
	size_t row_len;    /* R */
	size_t nrows;
	size_t zero_rows;  /* set bits of rows (all of them, used or not) */
	size_t zero_cols;  /* set bits of cols */
	uint8_t *rows;     /* ceil(nrows / 8) bytes */
	uint8_t *cols;     /* ceil(R / 8) bytes */
	size_t rows_cap, cols_cap;
	/* the copies of the current chunk: row copy[i] from row from[i]
	 * (negated when neg[i]); crow marks them (ceil(nrows / 8) bytes) */
	uint32_t *copy, *from;
	uint8_t *neg, *crow;
	size_t ncopy, copy_cap, crow_cap;
	uint32_t *slot; /* hash table of the copy search */
	size_t slot_cap;
};

void gt_zs_init(struct gt_zstruct *z);
void gt_zs_release(struct gt_zstruct *z);

/*
 * gt_zs_find - the zero rows and columns of the @n values at @src
 * (dtype @dt) in rows of @row_len values; flags are set to every bitmap
 * that has a bit set.  Quick on dense data: a row is left at its first
 * value that is not +0.0, and only the columns still zero in every row
 * so far are looked at.  @return 0; GT_ERR(INVAL) when @row_len < 2 or
 * over GT_ZS_MAX or the block has fewer than 2 rows or more than
 * GT_ZS_MAX; GT_ERR(NOMEM).
 */
int gt_zs_find(struct gt_zstruct *z, const void *src, size_t n,
	       enum gt_dtype dt, size_t row_len);

/*
 * gt_zs_find_copies - the copies among the whole rows of the chunk of
 * @n values at @src (block values @q on): a row whose kept values equal
 * (or negate) those of an earlier whole row that is no copy itself, the
 * first such row in the chunk.  Clears the previous chunk's.
 * @return 0, GT_ERR(NOMEM).
 */
int gt_zs_find_copies(struct gt_zstruct *z, size_t q, const void *src,
		      size_t n, enum gt_dtype dt);
/*
 * gt_zs_copies_save - the copies: varint count, then per copy in row
 * order a varint of its row minus (the previous copy's row + 1, or the
 * chunk's first whole row), and a varint 2 (row - from - 1) + neg.
 * At most GT_VARINT_MAX * (1 + 2 copies) bytes.
 * gt_zs_copies_load - read them for the chunk [@q, @q + @n), at most
 * @len bytes (*@used_ret taken).  Hostile: rows whole, in the chunk,
 * increasing, not zero rows; sources earlier, whole, in the chunk.
 * @return 0, GT_ERR(CORRUPT), GT_ERR(TRUNCATED), GT_ERR(NOMEM).
 */
int gt_zs_copies_save(const struct gt_zstruct *z, size_t q, void *dst,
		      size_t cap, size_t *len_ret);
int gt_zs_copies_load(struct gt_zstruct *z, size_t q, size_t n,
		      const void *src, size_t len, size_t *used_ret);
/*
 * gt_zs_apply_copies - fill the copy rows of the chunk at @dst (block
 * values @q on) from their sources, after gt_zs_scatter.
 */
void gt_zs_apply_copies(const struct gt_zstruct *z, size_t q, void *dst,
			enum gt_dtype dt);

/* The values of block values [@q, @q + @n) that are kept (not holes). */
size_t gt_zs_kept(const struct gt_zstruct *z, size_t q, size_t n);

/*
 * gt_zs_gather - copy the kept values of the @n values at @src (block
 * values @q on, @width bytes each) to @dst, in order; the count is
 * returned.  With GT_ZS_COPIES, the rows of the current copies are
 * skipped too (and gt_zs_kept does not count them).  gt_zs_scatter - the reverse: @n values at @dst from the kept
 * values at @src (gt_zs_kept() of them), +0.0 in the holes.
 */
size_t gt_zs_gather(const struct gt_zstruct *z, size_t q, const void *src,
		    size_t n, size_t width, void *dst);
void gt_zs_scatter(const struct gt_zstruct *z, size_t q, const void *src,
		   size_t n, size_t width, void *dst);

/* Bytes gt_zs_save() writes for @z. */
size_t gt_zs_size(const struct gt_zstruct *z);

/*
 * gt_zs_save - @z as serialized above (its flags must not be 0).
 * @return 0, GT_ERR(DST_TOO_SMALL), GT_ERR(INVAL) (no flags).
 */
int gt_zs_save(const struct gt_zstruct *z, void *dst, size_t cap,
	       size_t *len_ret);

/*
 * gt_zs_load - read a gt_zs_save() at @src, at most @len bytes; *@used_ret
 * is how many it took.  Hostile input: checks the flags, R and rows
 * ranges, the lengths and that unused bits are 0.
 * @return 0, GT_ERR(CORRUPT), GT_ERR(TRUNCATED), GT_ERR(NOMEM).
 */
int gt_zs_load(struct gt_zstruct *z, const void *src, size_t len,
	       size_t *used_ret);

#endif
