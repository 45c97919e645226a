/* gt_spec.h - a codec spec ("-c zstd:level=3"), parsed and checked once */
#ifndef GT_SPEC_H
#define GT_SPEC_H

#include <stddef.h>

#include "../lib/gt_codec.h"
#include "../lib/gt_error.h"

/*
 * A validated codec spec: every front end (compress, bench, compare, gain,
 * adapt, allreduce, the MPI ring) builds one from the text of -c with
 * gt_spec_init and then passes it around; nothing re-parses the text or
 * opens a throwaway context to check it.  The caller owns the struct
 * (gt_spec_init/gt_spec_release).
 */
#define GT_SPEC_CANON_MAX 256
struct gt_spec {
	char *text;                /* the spec as given ("zstd:level=3"), owned */
	const struct gt_codec *codec;
	char *opts;                /* the options to pass the codec ("" for none), owned */
	char canon[GT_SPEC_CANON_MAX]; /* every option with its value, for f32 */
	unsigned flags;            /* gt_codec_flags of the codec */
	int lossless;              /* GT_CODEC_LOSSLESS */
	int needs_optim;           /* as configured (its mode), codes with the
				    * optimizer context: gcomp full, exact, ... */
	int whole_block;           /* GT_CODEC_WHOLE_BLOCK: a block is one chunk */
	unsigned dtypes;           /* bit 1 << dt for each dtype the codec codes
				    * (rangeq and fft: f32 only); gt_spec_codes */
	void *table;               /* static Huffman table (gt_spec_load_table), owned */
	size_t table_len;
};

/*
 * gt_spec_init - parse "NAME[:k=v,...]" and check its options by opening
 * a context for f32 values.  @level > 0 adds "level=N" (compress -l),
 * which only zstd and zlib take.
 * @return 0, GT_ERR(NOTFOUND) (unknown codec), GT_ERR(INVAL) (a bad
 *	option or value; @d names it as the codec's parser says, e.g.
 *	"codec gcomp: invalid levels '1,2': expected four increasing bit
 *	counts 0-23"), GT_ERR(NOMEM).  On error @s holds nothing to release.
 */
int gt_spec_init(struct gt_spec *s, const char *text, long level, struct gt_diag *d);
/* 1 when the codec of @s codes values of @dt at all. */
int gt_spec_codes(const struct gt_spec *s, enum gt_dtype dt);

/* Free what @s owns; a zeroed or released spec may be released again. */
void gt_spec_release(struct gt_spec *s);

/*
 * gt_spec_load_table - read a static Huffman table file ('gtool huffman
 * build') for the codec of @s, which must take one (GT_CODEC_TABLE).
 * @return 0, GT_ERR(INVAL) (codec takes no table), the reader's errors,
 *	GT_ERR(CORRUPT) (not a valid code table); @d says which.
 */
int gt_spec_load_table(struct gt_spec *s, const char *path, struct gt_diag *d);

/*
 * A list of -c specs: "gcomp,zstd:level=3,fft:drop=0.85,bits=10" splits
 * at commas, and a piece with '=' but no ':' continues the options of the
 * spec before it ("fft:drop=0.85,bits=10" is one spec).  -c may be
 * repeated: each call appends.  Zero-initialize; gt_speclist_release.
 */
struct gt_speclist {
	char **v;
	size_t n;
};
/* @return 0, GT_ERR(NOMEM). */
int gt_speclist_add(struct gt_speclist *l, const char *list);
/* Remove entry @i (freed), keeping the order. */
void gt_speclist_remove(struct gt_speclist *l, size_t i);
void gt_speclist_release(struct gt_speclist *l);

/*
 * The default list of compare and bench: the settings the papers used,
 * and zstd and zlib at the GComp paper's levels.  gt_speclist_defaults
 * appends those whose codec is registered.  @return 0, GT_ERR(NOMEM).
 */
extern const char *const gt_spec_defaults[];
int gt_speclist_defaults(struct gt_speclist *l);

#endif
