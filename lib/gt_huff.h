/* gt_huff.h - length-limited Huffman codes for float exponents */
#ifndef GT_HUFF_H
#define GT_HUFF_H

/*
 * The alphabet for a dtype with an E-bit exponent field has
 * gt_huff_nsyms(dt) = 2^E + 4 symbols:
 *   0 .. 2^E-1   the exponent field of a value that is not ±0.0 (field 0
 *                with a non-zero mantissa is a subnormal; 2^E-1 is Inf/NaN)
 *   ZERO  = 2^E      +0.0 (no mantissa follows)
 *   NZERO = 2^E + 1  -0.0 (no mantissa follows)
 *   RUN   = 2^E + 2  a run of +0.0, its length follows (Elias gamma)
 *   ESC   = 2^E + 3  escape: the raw E-bit exponent field follows
 *
 * Tokenizing n values (what gt_huff_hist() counts and huffexp codes): a
 * maximal stretch of +0.0 values of length >= GT_HUFF_RUN_MIN is one RUN
 * token (with its length L coded as the Elias-gamma code of
 * L - GT_HUFF_RUN_MIN + 1); every other value is one token, ZERO, NZERO
 * or its exponent symbol.
 *
 * Coding a token with a table (gt_huff_resolve): a symbol with a code
 * costs its code (+ sign and mantissa, 1 + M bits, for exponents).  An
 * exponent without a code is ESC + the raw E-bit field + sign/mantissa.
 * ZERO or NZERO without a code is coded as the value it is: exponent
 * field 0 with a zero mantissa (through symbol 0's code when it has one,
 * else through ESC).  Runs are used only when both RUN and ZERO have
 * codes; otherwise the zeros of a run are coded one by one.
 *
 * Codes are canonical (by length, then symbol) and at most maxlen bits
 * (n_θ in the GComp paper).  The decoding LUT has 2^maxlen entries of 2
 * bytes: at the default maxlen 12 that is 8 KiB, which leaves most of a
 * 32 KiB L1 data cache to the data being decoded.  maxlen <= 15 keeps the
 * LUT <= 2^15 entries (64 KiB) and lets a LUT entry hold the 12-bit symbol
 * and the 4-bit length in 16 bits.
 *
 * Tables and histograms are plain structs owned by the caller; no
 * function keeps state.  Thread-safe on distinct objects.
 */
#include <stddef.h>
#include <stdint.h>

#include "gt_error.h"
#include "gt_float.h"
#include "gt_isa.h"

#define GT_HUFF_NSYM_MAX ((1u << 11) + 4) /* f64 */
#define GT_HUFF_MAXLEN_MIN 1
#define GT_HUFF_MAXLEN_MAX 15
#define GT_HUFF_MAXLEN_DEFAULT 12
#define GT_HUFF_LUT_MAX (1u << GT_HUFF_MAXLEN_MAX)
/* Shortest stretch of +0.0 coded as one RUN token. */
#define GT_HUFF_RUN_MIN 8
/* Most bytes gt_huff_save() writes. */
#define GT_HUFF_SAVE_MAX (5 + 3 * GT_HUFF_NSYM_MAX)

enum gt_huff_method {
	GT_HUFF_GCOMP = 0, /* native Huffman, long codes -> one escape (§4.3) */
	GT_HUFF_PM = 1,    /* optimal length-limited code, package-merge */
	GT_HUFF_BEST = 2,  /* both; the cheaper on the histogram (ties: PM) */
};

/* "gcomp", "pm", "best"; parse returns -1 for an unknown name. */
const char *gt_huff_method_name(enum gt_huff_method m);
int gt_huff_method_parse(const char *s);

enum gt_huff_flags {
	/* build: give ESC a code even when nothing needs it (weight >= 1),
	 * so that the table can code data it was not built from.
	 * load: require an ESC code. */
	GT_HUFF_STATIC = 1 << 0,
};

/* Symbol numbers of the four extra symbols for an E-bit exponent. */
#define GT_HUFF_ZERO(ebits) ((1u << (ebits)) + 0)
#define GT_HUFF_NZERO(ebits) ((1u << (ebits)) + 1)
#define GT_HUFF_RUN(ebits) ((1u << (ebits)) + 2)
#define GT_HUFF_ESC(ebits) ((1u << (ebits)) + 3)

/* Token counts of some values (see the tokenizing rule above). */
struct gt_huff_hist {
	enum gt_dtype dtype;
	uint64_t n;          /* values counted */
	uint64_t run_zeros;  /* +0.0 values inside RUN tokens */
	uint64_t run_bits;   /* Elias-gamma bits of all run lengths */
	uint64_t count[GT_HUFF_NSYM_MAX];
};

/* A code: lengths (0: no code) and the codes, bit-reversed for LSB-first
 * streams (gt_bitio.h), so a code is written with one gt_bitw_put(). */
struct gt_huff_table {
	enum gt_dtype dtype;
	unsigned maxlen;
	unsigned nsyms;
	uint8_t len[GT_HUFF_NSYM_MAX];
	uint16_t code[GT_HUFF_NSYM_MAX];
};

/* How the encoder codes one symbol with a table (gt_huff_resolve). */
struct gt_huff_sym {
	uint32_t bits;   /* code, then the raw exponent when escaped */
	unsigned nbits;  /* length of @bits */
	unsigned mant;   /* 1: sign and mantissa (1 + M bits) follow */
	unsigned escaped;
};

/* 2^E + 4, or 0 for GT_DT_NONE. */
unsigned gt_huff_nsyms(enum gt_dtype dt);

/* gt_huff_hist_init - an empty histogram for @dt (counts beyond its
 * alphabet, gt_huff_nsyms(@dt), are left as they are and never read). */
void gt_huff_hist_init(struct gt_huff_hist *h, enum gt_dtype dt);

/*
 * gt_huff_hist - add the tokens of @n values at @src (h->dtype,
 * little-endian) to @h.  A run is never joined across two calls.  One
 * pass, no allocation.
 */
void gt_huff_hist(struct gt_huff_hist *h, const void *src, size_t n);
/* The same with the loops of @isa (gt_isa.h; the portable ones when the
 * CPU cannot run it): the same counts. */
void gt_huff_hist_isa(struct gt_huff_hist *h, const void *src, size_t n,
		      enum gt_isa isa);

/* Bits of the Elias-gamma code of a run of @len >= GT_HUFF_RUN_MIN. */
unsigned gt_huff_run_bits(uint64_t len);

struct gt_bitw;
struct gt_bitr;
/*
 * gt_huff_put_run - a RUN token: @run_code (code bits | length << 32, as
 * the codecs keep it) and the Elias-gamma code of @len - GT_HUFF_RUN_MIN + 1.
 * gt_huff_get_run - the run length after a RUN code; 0 when it is corrupt.
 */
void gt_huff_put_run(struct gt_bitw *w, uint64_t run_code, uint64_t len);
uint64_t gt_huff_get_run(struct gt_bitr *r);

/* The +0.0 values at @src from value @i on, before @n. */
size_t gt_huff_zeros_from(const void *src, enum gt_dtype dt, size_t i, size_t n);

/*
 * gt_huff_build - a canonical code of at most @maxlen bits for @h.
 * Counts are used as weights; when RUN is counted and ZERO is not, ZERO
 * gets weight 1 (runs need a ZERO code).  GT_HUFF_STATIC: ESC gets a code.
 * GCOMP: native Huffman over the present symbols; every code longer than
 * maxlen is dropped and one ESC code of maxlen bits (the truncation of
 * the first over-long code) stands for them.  PM: package-merge over the
 * present symbols plus ESC; when they are more than 2^maxlen, the rarest
 * are escaped.  No symbol present: an empty table (0 codes).  One symbol:
 * a 1-bit code.  Allocates a work area only for f64 or over about 100
 * present symbols (the rest is on the stack, about 17 KiB).
 * @return 0, GT_ERR(INVAL) (bad dtype, maxlen or method), GT_ERR(NOMEM).
 */
int gt_huff_build(struct gt_huff_table *t, const struct gt_huff_hist *h,
		  unsigned maxlen, enum gt_huff_method method, unsigned flags);

/*
 * gt_huff_resolve - how symbol @sym (< nsyms, not ESC) is coded with @t.
 * @return 0, GT_ERR(INVAL) when it cannot be (no code and no ESC code).
 */
int gt_huff_resolve(const struct gt_huff_table *t, unsigned sym,
		    struct gt_huff_sym *ret);

/*
 * gt_huff_enc_words - how every symbol is coded with @t, as the encoders
 * keep it: enc[s] (s < t->nsyms) is the gt_huff_resolve() result as
 * bits | nbits << 32 | mant << 40, or 1 << 41 for ESC and for a symbol
 * that cannot be coded.  The same as a gt_huff_resolve() of each symbol,
 * at a fraction of the cost when few symbols have codes.
 */
void gt_huff_enc_words(const struct gt_huff_table *t, uint64_t *enc);

/* 1 when runs are coded as RUN tokens with @t (RUN and ZERO have codes). */
int gt_huff_runs_used(const struct gt_huff_table *t);

/*
 * gt_huff_cost - the exact bits that huffexp spends on the values of @h
 * with @t: codes, raw escaped exponents, run lengths and the sign and
 * mantissa bits (headers and byte padding excluded), and how many values
 * are escaped.  @return 0, GT_ERR(INVAL) (a value cannot be coded, or
 * the dtypes differ).
 */
int gt_huff_cost(const struct gt_huff_table *t, const struct gt_huff_hist *h,
		 uint64_t *bits_ret, uint64_t *escaped_ret);

/*
 * gt_huff_save - the lengths of @t, at most GT_HUFF_SAVE_MAX bytes:
 *   byte 0     format version, 1
 *   byte 1     dtype (enum gt_dtype)
 *   byte 2     maxlen (GT_HUFF_MAXLEN_MIN..MAX)
 *   bytes 3-4  k, the number of symbols with a code (little-endian)
 *   k entries in increasing symbol order, each: one byte, length (1 to
 *	maxlen) in bits 0-3 and g = min(gap, 15) in bits 4-7, where gap is
 *	the number of symbols without a code since the previous entry (or
 *	since symbol 0); g = 15 is followed by gap - 15 as a 1- or 2-byte
 *	LEB128 varint.
 * The codes are the canonical codes of the lengths.
 * @return 0, GT_ERR(DST_TOO_SMALL).
 */
int gt_huff_save(const struct gt_huff_table *t, void *dst, size_t cap,
		 size_t *len_ret);

/*
 * gt_huff_load - read a table written by gt_huff_save(): exactly @len
 * bytes.  Hostile input: checks the version, dtype, maxlen range, symbol
 * indexes, lengths <= maxlen, Kraft sum <= 1 and, with GT_HUFF_STATIC,
 * that ESC has a code.  @return 0, GT_ERR(CORRUPT), GT_ERR(TRUNCATED).
 */
int gt_huff_load(struct gt_huff_table *t, const void *src, size_t len,
		 unsigned flags);

/*
 * gt_huff_lut - fill the decoding table: entry i (0 <= i < 2^maxlen)
 * decodes the stream whose next maxlen bits, LSB-first, are i, as
 * GT_HUFF_LUT_SYM(e) and GT_HUFF_LUT_LEN(e) (length 0: no code starts
 * with these bits, the stream is corrupt).  @lut_len >= 2^t->maxlen.
 * @return 0, GT_ERR(INVAL) when @lut_len is too small.
 */
int gt_huff_lut(const struct gt_huff_table *t, uint16_t *lut, size_t lut_len);

/*
 * gt_huff_mlut_bits - the index bits of the multi-symbol decode table
 * (several codes a lookup) that a decoder builds per block, for a block
 * whose first chunk has @n values and whose longest code has @lbits bits:
 * 0 (no table) under 512 values, where building it costs more than it
 * saves; 8 under 4096, 9 under 32768, 10 under 65536, else @max; never more than
 * @lbits.  Its 2^bits entries are made for every block, so a small block
 * gets a small table.
 */
static inline unsigned gt_huff_mlut_bits(size_t n, unsigned lbits, unsigned max)
{
	const unsigned want = n < 512 ? 0 : n < 4096 ? 8 : n < 32768 ? 9 : n < 65536 ? 10 : max;

	return lbits < want ? lbits : want;
}

/* A code of gt_huff_mcodes(): its bits as the stream holds them
 * (LSB-first), their number, its symbol. */
struct gt_huff_mcode {
	uint16_t pat, sym;
	unsigned len;
};

/*
 * gt_huff_mcodes - the codes of @t for symbols up to @maxsym and of at
 * most @bits bits, shortest first, into @mc (@maxsym + 1 entries).
 * @return their count.
 */
unsigned gt_huff_mcodes(const struct gt_huff_table *t, unsigned maxsym, unsigned bits,
			struct gt_huff_mcode *mc);

/* Entries @lo | y << @pos (every y below 2^(@bits - @pos)) of @mlut := @v. */
static inline void gt_huff_mset(uint64_t *mlut, unsigned bits, unsigned pos, unsigned lo,
				uint64_t v)
{
	/* lo < 2^pos: lo | y << pos is lo + y 2^pos */
	for (unsigned x = lo; x < (1u << bits); x += 1u << pos)
		mlut[x] = v;
}

/* The bits a multi-symbol entry @e takes, and the codes it holds. */
#define GT_HUFF_MLEN(e) ((unsigned)(e) & 63)
#define GT_HUFF_MCOUNT(e) ((unsigned)((e) >> 6) & 3)

/* The word of the @k-th code (0-2) of a multi-symbol entry, symbol @s,
 * after @nc codes of symbols below 256. */
typedef uint64_t gt_huff_mword(const void *arg, unsigned s, unsigned k, unsigned nc);

/*
 * gt_huff_mlut_fill - the multi-symbol decode table of 2^@bits entries,
 * entry x for the next @bits code bits x (LSB-first): the codes of @mc
 * (gt_huff_mcodes(), @nmc) that x holds whole, up to three, the first on
 * (a code not in @mc ends them): the OR of @word for each, the bits they
 * take (GT_HUFF_MLEN: bits 0-5, so that x86's shifts, which read six
 * bits of their count, consume them by the entry itself), their count
 * << 6 (GT_HUFF_MCOUNT) and, when @nc_at (0, or 8 or more: bits 0-7 are
 * taken), the count of symbols below 256 among them << @nc_at; 0 when x
 * starts with no code of @mc.  Built per
 * prefix of codes, each entry set once for each code it holds and once
 * before them, not decoded entry by entry.
 */
static inline void gt_huff_mlut_fill(uint64_t *mlut, unsigned bits,
				     const struct gt_huff_mcode *mc, unsigned nmc,
				     gt_huff_mword *word, const void *arg, unsigned nc_at)
{
	gt_huff_mset(mlut, bits, 0, 0, 0);
	for (unsigned a = 0; a < nmc; a++) {
		const unsigned p1 = mc[a].len, n1 = mc[a].sym < 256;
		const uint64_t e1 = word(arg, mc[a].sym, 0, 0);

		gt_huff_mset(mlut, bits, p1, mc[a].pat,
			     e1 | p1 | 1u << 6 | (nc_at ? (uint64_t)n1 << nc_at : 0));
		for (unsigned b = 0; b < nmc && mc[b].len <= bits - p1; b++) {
			const unsigned p2 = p1 + mc[b].len, n2 = n1 + (mc[b].sym < 256);
			const unsigned lo2 = mc[a].pat | (unsigned)mc[b].pat << p1;
			const uint64_t e2 = e1 | word(arg, mc[b].sym, 1, n1);

			gt_huff_mset(mlut, bits, p2, lo2,
				     e2 | p2 | 2u << 6 | (nc_at ? (uint64_t)n2 << nc_at : 0));
			for (unsigned d = 0; d < nmc && mc[d].len <= bits - p2; d++) {
				const unsigned p3 = p2 + mc[d].len, n3 = n2 + (mc[d].sym < 256);

				gt_huff_mset(mlut, bits, p3, lo2 | (unsigned)mc[d].pat << p2,
					     e2 | word(arg, mc[d].sym, 2, n2) | p3 | 3u << 6 |
						     (nc_at ? (uint64_t)n3 << nc_at : 0));
			}
		}
	}
}

/*
 * gt_huff_mlut_make - the f32 multi-symbol decode table of @t for a block
 * whose first chunk has @n values (gt_huff_mlut_bits(@n, @lbits, @max)
 * index bits), codes up to NZERO, made by gt_huff_mlut_fill() with @word,
 * @arg and @nc_at.  @return its index bits, 0: no table.
 */
static inline unsigned gt_huff_mlut_make(const struct gt_huff_table *t, size_t n,
					 unsigned lbits, unsigned max, uint64_t *mlut,
					 gt_huff_mword *word, const void *arg, unsigned nc_at)
{
	const unsigned bits = gt_huff_mlut_bits(n, lbits, max);
	struct gt_huff_mcode mc[GT_HUFF_NZERO(8) + 1];

	if (bits)
		gt_huff_mlut_fill(mlut, bits, mc, gt_huff_mcodes(t, GT_HUFF_NZERO(8), bits, mc),
				  word, arg, nc_at);
	return bits;
}

/*
 * gt_huff_lut_fit - the same table with as many index bits as the longest
 * code of @t has (*@bits_ret, 0 when it has none: one entry, 0), which
 * is what a decoder of small blocks wants: index with the next *@bits_ret
 * bits.  The entries are those of gt_huff_lut() at that width.
 * @return 0, GT_ERR(INVAL) when @lut_len < 2^*@bits_ret.
 */
int gt_huff_lut_fit(const struct gt_huff_table *t, uint16_t *lut,
		    size_t lut_len, unsigned *bits_ret);
#define GT_HUFF_LUT_SYM(e) ((unsigned)(e) & 0xfffu)
#define GT_HUFF_LUT_LEN(e) ((unsigned)(e) >> 12)

/* Entropy of the token distribution of @h in bits (RUN counted as a
 * token, run lengths excluded), for reports. */
double gt_huff_entropy(const struct gt_huff_hist *h);

#endif
