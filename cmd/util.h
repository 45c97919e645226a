/* util.h - option parsing and output helpers shared by the subcommands */
#ifndef GT_UTIL_H
#define GT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../lib/gt_float.h"

/* Checked number parsing: whole string, range inclusive; -1 on error. */
int gt_parse_int(const char *s, long min, long max, long *ret);
int gt_parse_double(const char *s, double min, double max, double *ret);
/* A count with an optional binary suffix: "1M" = 2^20, "64K", "4G". */
int gt_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/*
 * A link speed in bits per second: "10G" (10^10), "2.5G", "100M", "56k",
 * "1e9", with an optional "bps", "bit/s" or "b/s"; powers of ten, as
 * networks count (M is mega: there is no milli-bit).  -1 when not a
 * number in (0, 1e15].
 */
int gt_parse_rate(const char *s, double *ret);

/* Output formats for data.  TABLE is for people (aligned, rounded);
 * the others carry full precision. */
enum gt_fmt { GT_FMT_TABLE, GT_FMT_CSV, GT_FMT_TSV, GT_FMT_JSON, GT_FMT_MARKDOWN };
/* Parse "table", "csv", "tsv", "json", "markdown"/"md"; -1 when unknown. */
int gt_fmt_parse(const char *s, enum gt_fmt *ret);

/*
 * A table of rows under named columns, printed at the end in one of the
 * formats.  Cells are strings or numbers; numbers are right-aligned for
 * people and written with 17 significant digits (JSON: null for NaN/Inf)
 * for machines.
 */
struct gt_table;
struct gt_table *gt_table_new(enum gt_fmt fmt);
/* Declare the columns before the first row. */
void gt_table_col(struct gt_table *t, const char *name);
/* Cells are added left to right; a row ends when all columns are filled. */
void gt_table_str(struct gt_table *t, const char *s);
void gt_table_int(struct gt_table *t, long long v);
void gt_table_uint(struct gt_table *t, unsigned long long v);
/* @prec: significant digits shown to people (machines get full precision). */
void gt_table_num(struct gt_table *t, double v, int prec);
/* Percent shown to people with 2 decimals; machines get the fraction x100. */
void gt_table_pct(struct gt_table *t, double pct);
void gt_table_print(const struct gt_table *t, FILE *out);
void gt_table_free(struct gt_table *t);

/* 1 when @path matches one of the @n patterns (fnmatch, with or without a
 * leading '/'), or when @n is 0. */
int gt_select_match(const char *path, char *const *patterns, size_t n);

/* Number of online cores (the default for -T). */
int gt_ncores(void);

/* Human-readable byte count: "1.5 MB" (powers of 10); buf >= 16 bytes. */
const char *gt_human_bytes(double bytes, char *buf, size_t len);



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

/* Parse -T: "N" (1-1024); 0 from the caller means all cores. */
int gt_parse_threads(const char *s, unsigned *ret);

struct gt_source;

/* How gt_select_tensors reports float-less datasets it passes over. */
enum gt_skip_report { GT_SKIP_SILENT, GT_SKIP_NOTE, GT_SKIP_WARN };

/*
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
#define GT_READ_VALUES ((size_t)1 << 20)
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
/*
 * gt_spec_split - append the codec specs of the -c list @list to @v (*@n
 * of them): comma-separated, where a piece with '=' and no ':' continues
 * the options of the spec before it ("a:k=v,w=1,b" is "a:k=v,w=1", "b").
 */
void gt_spec_split(char ***v, size_t *n, const char *list);
/* Append a -d PATTERN to the list @v of *@n. */
void gt_argp_dataset(char ***v, size_t *n, char *arg);
/* The one input FILE of a command: a second one is a usage error. */
void gt_argp_input(struct argp_state *state, const char **input, const char *arg);
/* --block-size and --chunk-size, as the .gtz container takes them. */
uint64_t gt_argp_block_size(struct argp_state *state, const char *arg);
uint64_t gt_argp_chunk_size(struct argp_state *state, const char *arg);
enum gt_fmt gt_argp_fmt(struct argp_state *state, const char *arg, int markdown);

#endif
