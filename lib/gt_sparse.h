/* gt_sparse.h - selection and packing shared by the sparsifiers and quantizers */
#ifndef GT_SPARSE_H
#define GT_SPARSE_H

/*
 * What topk, randk, dgc and redsync (lib/codecs/) share: how many values
 * to keep (cf=, keep=, k=), the exact selection of the k largest
 * magnitudes, seeded sampling without replacement, and the chunk layout
 * of a sparse vector.  qsgd and terngrad share the magnitude order and
 * nothing else.
 *
 * Magnitude order: values are ranked by |x|, compared as the bit pattern
 * of x with its sign bit cleared.  For finite values that is the order
 * of |x| (subnormals below normals, -0 equal to +0); +-Inf ranks above
 * every finite value and NaN above Inf.  Ties are broken by position:
 * the earlier value is kept.
 *
 * Sparse chunk layout (every integer a LEB128 varint):
 *   u8 coding     0: bitmap, 1: delta-coded positions
 *   k             values kept, k <= n
 *   indices       bitmap: ceil(n/8) bytes, bit i of byte i/8 (LSB first)
 *                 is set when value i is kept, padding bits 0;
 *                 delta: k varints, the first position, then each
 *                 position minus the previous one minus 1
 *   values        k values in the input dtype, little-endian, in
 *                 position order (bit-exact copies of the input)
 * gt_sparse_pack() picks whichever index coding is smaller (the bitmap
 * on a tie).  Decoding writes zeros (+0) everywhere else.
 *
 * Positions are uint32_t: a chunk holds at most 2^32 - 1 values (a .gtz
 * block holds at most 2^24).  Functions are reentrant; a gt_sparse_work
 * is used by one thread at a time.
 */
#include <stddef.h>
#include <stdint.h>

#include "gt_error.h"
#include "gt_float.h"

struct gt_kv;

/* ---- how many values to keep -------------------------------------------- */

enum gt_sparse_mode {
	GT_SPARSE_CF = 0,   /* k = ceil(n / cf) */
	GT_SPARSE_KEEP = 1, /* k = ceil(n * share) */
	GT_SPARSE_K = 2,    /* k = min(count, n) */
};

/* What a sparsifier accepts, besides the share: */
enum gt_sparse_accept {
	GT_SPARSE_SEED = 1 << 0,   /* seed=N */
	GT_SPARSE_SAMPLE = 1 << 1, /* sample=S, dgc's sampled share */
};

struct gt_sparse_opts {
	enum gt_sparse_mode mode;
	double value;    /* cf (>= 1) or share (0 < share <= 1) */
	uint64_t count;  /* k= */
	uint64_t seed;   /* seed=, default 0 */
	double sample;   /* sample=, default 0.01 */
	unsigned accept; /* GT_SPARSE_SEED | GT_SPARSE_SAMPLE */
};

/*
 * gt_sparse_opts_parse - fill @o from the options of codec @codec: one
 * of cf=X (real >= 1), keep=S (0 < S <= 1) or k=N (N >= 1), default
 * cf=100, and the extras @accept allows.
 * @return 0, GT_ERR(INVAL) with @d saying why.
 */
int gt_sparse_opts_parse(const struct gt_kv *kv, size_t nkv, const char *codec,
			 unsigned accept, struct gt_sparse_opts *o,
			 struct gt_diag *d);

/* The options in canonical form ("cf=100,seed=0"); returns the length as
 * snprintf does. */
size_t gt_sparse_opts_canon(const struct gt_sparse_opts *o, char *buf, size_t cap);

/* k for a chunk of @n values: 0 when n is 0, else in [1, n]. */
size_t gt_sparse_k(const struct gt_sparse_opts *o, size_t n);

/* ---- selection ------------------------------------------------------------ */

/* Scratch memory of the selections, owned by the caller (zero-initialise;
 * gt_sparse_work_release() frees it). */
struct gt_sparse_work {
	uint32_t *idx;     /* the kept positions, ascending */
	size_t idx_cap;
	uint64_t *keys;    /* radix-select candidates */
	size_t keys_cap;
	uint64_t *bits;    /* randk's bitmap */
	size_t bits_cap;
	uint32_t *cand;    /* topk's candidate positions */
	size_t cand_cap;
};

void gt_sparse_work_release(struct gt_sparse_work *w);

/* w->keys with room for @m keys, or NULL (out of memory). */
uint64_t *gt_sparse_keys(struct gt_sparse_work *w, size_t m);

/* The magnitude key of value @i: its bits with the sign cleared. */
static inline uint64_t gt_sparse_key(const void *src, enum gt_dtype dt, size_t i)
{
	const unsigned top = 8 * gt_dtype_size(dt) - 1;

	return gt_fp_load(src, dt, i) & ~(UINT64_C(1) << top);
}

/* The key of the largest finite magnitude (+Inf's key minus 1). */
static inline uint64_t gt_sparse_key_max_finite(enum gt_dtype dt)
{
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);

	return (((UINT64_C(1) << eb) - 1) << mb) - 1;
}

/* The magnitude a key stands for (NaN keys give NaN). */
double gt_sparse_key_value(uint64_t key, enum gt_dtype dt);

/*
 * gt_sparse_thr_key - the smallest key whose magnitude is >= @thr (> @thr
 * when @strict), for @thr >= 0: "|x| >= thr" is then "key >= this",
 * exactly, in the dtype.  +Inf's key when no finite value qualifies.
 */
uint64_t gt_sparse_thr_key(double thr, enum gt_dtype dt, int strict);

/*
 * gt_sparse_topk - the @k largest magnitudes of @n values (magnitude
 * order above, ties to the earlier position), by radix selection on the
 * magnitude bits: no sort.  The positions land in w->idx, ascending.
 * @return 0, GT_ERR(NOMEM), GT_ERR(OVERFLOW) (n > UINT32_MAX).
 */
int gt_sparse_topk(struct gt_sparse_work *w, const void *src, enum gt_dtype dt,
		   size_t n, size_t k);

/*
 * gt_sparse_kth - the key of the @k-th largest (1 <= k <= n) magnitude
 * key among @keys[0..n) (which it reorders).  Radix selection.
 */
uint64_t gt_sparse_kth(uint64_t *keys, size_t n, size_t k, unsigned key_bits);

/*
 * gt_sparse_randk - @k of @n positions, uniform without replacement
 * (Floyd's algorithm), from gt_rng keyed on (@seed, @stream, @pos).
 * The positions land in w->idx, ascending.
 * @return 0, GT_ERR(NOMEM), GT_ERR(OVERFLOW).
 */
int gt_sparse_randk(struct gt_sparse_work *w, size_t n, size_t k, uint64_t seed,
		    uint64_t stream, uint64_t pos);

/* How many of @n values have a magnitude key >= @kmin. */
size_t gt_sparse_count(const void *src, enum gt_dtype dt, size_t n, uint64_t kmin);

/*
 * gt_sparse_above - the positions of the values with magnitude key >=
 * @kmin, ascending, at most @max of them (the first ones), in w->idx;
 * *@k_ret their number.
 * @return 0, GT_ERR(NOMEM), GT_ERR(OVERFLOW).
 */
int gt_sparse_above(struct gt_sparse_work *w, const void *src, enum gt_dtype dt,
		    size_t n, uint64_t kmin, size_t max, size_t *k_ret);

/* ---- the sparse chunk ----------------------------------------------------- */

enum gt_sparse_coding {
	GT_SPARSE_AUTO = -1,  /* the smaller of the two */
	GT_SPARSE_BITMAP = 0,
	GT_SPARSE_DELTA = 1,
};

/* Bytes of each index coding for @k ascending positions of @n. */
size_t gt_sparse_bitmap_bytes(size_t n);
size_t gt_sparse_delta_bytes(const uint32_t *idx, size_t k);

/*
 * gt_sparse_bound - the most bytes gt_sparse_pack(GT_SPARSE_AUTO) writes
 * for @n values of @dt: 1 + 10 + ceil(n/8) + n * width (every value kept,
 * bitmap; AUTO never takes a delta coding larger than the bitmap);
 * 0 when that overflows size_t.  A forced GT_SPARSE_DELTA may need up to
 * 11 + n * (10 + width).
 */
size_t gt_sparse_bound(enum gt_dtype dt, size_t n);

/*
 * gt_sparse_pack - the chunk for the values of @src at the @k ascending
 * positions @idx (< @n), with index coding @coding (GT_SPARSE_AUTO in
 * the codecs; the others for tests).
 * @return 0, GT_ERR(DST_TOO_SMALL).
 */
int gt_sparse_pack(const void *src, enum gt_dtype dt, size_t n,
		   const uint32_t *idx, size_t k, int coding, void *dst,
		   size_t dst_cap, size_t *dst_len_ret);

/*
 * gt_sparse_unpack - decode a chunk of exactly @n values into @dst.  The
 * input is hostile: every read is bounds-checked; positions must be
 * ascending and < n, a bitmap must hold exactly k bits and zero padding.
 * *@k_ret (may be NULL) gets k.
 * @return 0, GT_ERR(TRUNCATED), GT_ERR(CORRUPT) (bad coding byte, k > n,
 *	a bad position, bytes left over).
 */
int gt_sparse_unpack(const void *src, size_t src_len, enum gt_dtype dt,
		     void *dst, size_t n, size_t *k_ret);

/* ---- the quantizers' values ------------------------------------------------ */

/* The smallest f32 >= @v (v >= 0), at most FLT_MAX: a scale that every
 * magnitude it was computed from stays within. */
float gt_sparse_f32_up(double v);

/*
 * gt_sparse_put - store @v as value @i of a @dt array, rounded to nearest
 * even (f16 and bf16 through f32; f16 subnormals and overflow to Inf as
 * IEEE says).
 */
void gt_sparse_put(void *dst, enum gt_dtype dt, size_t i, double v);

#endif
