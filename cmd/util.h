/* util.h - argp helpers, progress and printing wrappers shared by the subcommands */
#ifndef GT_UTIL_H
#define GT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../engine/gt_parse.h"
#include "../engine/gt_table.h"
#include "../engine/gt_tensor.h"
#include "../lib/gt_float.h"

/* Number of online cores (the default for -T). */
int gt_ncores(void);

/* A progress line on stderr, only when stderr is a terminal and not -q. */
struct gt_progress {
	int on;
	const char *what;
	uint64_t total, done;
	double last;
};
void gt_progress_init(struct gt_progress *p, const char *what, uint64_t total);
void gt_progress_add(struct gt_progress *p, uint64_t n);
void gt_progress_end(struct gt_progress *p);

/* Wall-clock seconds from a monotonic clock. */
double gt_now(void);

/*
 * The engine's tensor selection and reading (engine/gt_tensor.h) with
 * their errors printed, for the commands that stop at the first one.
 *
 * gt_select_tensors - which tensors of @src the -d patterns select:
 * @sel[i] = 1 (@sel has gt_source_count() bytes).  No patterns: every
 * float tensor.  A pattern that matches nothing, or names a non-float
 * dataset without a glob, is an error (printed; returns -1).  Non-float
 * datasets passed over are reported as @report says.
 */
int gt_select_tensors(const struct gt_source *src, char *const *patterns,
		      size_t n, enum gt_skip_report report, unsigned char *sel);

/*
 * gt_read_tensor - stream tensor @i of @src through @fn in pieces of at
 * most @buf_values values read into @buf (8 * @buf_values bytes).  Read
 * errors are printed; @fn prints its own.  Returns 0 or -1.
 */
#define GT_READ_VALUES GT_TENSOR_READ_VALUES
int gt_read_tensor(struct gt_source *src, size_t i, void *buf, size_t buf_values,
		   int (*fn)(void *arg, const void *data, size_t n), void *arg);

/*
 * gt_read_f32 - values [@first, @first + @n) of tensor @i of @src as f32
 * into @dst, other dtypes converted.  @scratch (8 * @n bytes) holds the
 * raw values of a dtype other than f32; NULL: allocated for the call.
 * A short read is an error.  Errors are printed; returns 0 or -1.
 */
int gt_read_f32(struct gt_source *src, size_t i, uint64_t first, size_t n,
		float *dst, void *scratch);

/*
 * Option values every command parses the same way; a bad one is an argp
 * usage error (exit 2) with one message for all commands.  @markdown:
 * whether this command's output knows the markdown format.
 */
struct argp_state;
enum gt_dtype gt_argp_dtype(struct argp_state *state, const char *arg);
/* Append a -d PATTERN to the list @v of *@n. */
void gt_argp_dataset(char ***v, size_t *n, char *arg);
/* The one input FILE of a command: a second one is a usage error. */
void gt_argp_input(struct argp_state *state, const char **input, const char *arg);
/* --block-size and --chunk-size, as the .gtz container takes them. */
uint64_t gt_argp_block_size(struct argp_state *state, const char *arg);
uint64_t gt_argp_chunk_size(struct argp_state *state, const char *arg);
enum gt_fmt gt_argp_fmt(struct argp_state *state, const char *arg, int markdown);
/* --in-format/--out-format=KIND: hdf5 (h5), npy or raw; @what names the
 * side in the message ("input", "output"). */
enum gt_kind gt_argp_kind(struct argp_state *state, const char *arg, const char *what);
/*
 * --format where a command also reads or writes files (compress,
 * decompress): table, csv, tsv, json or markdown set *@fmt, the printed
 * output's format, as everywhere; the file kinds hdf5, h5, npy and raw,
 * which --format meant there before, still set *@kind (the values do not
 * overlap).
 */
void gt_argp_fmt_or_kind(struct argp_state *state, const char *arg, const char *what,
			 enum gt_fmt *fmt, enum gt_kind *kind);

#endif
