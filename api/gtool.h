/* gtool.h - the public C API of libgtool: codecs, .gtz files, traces, metrics */
#ifndef GTOOL_H
#define GTOOL_H

/*
 * libgtool is the library under the gtool command: the gradient codecs
 * (huffexp, gcomp, zstd, ...), the .gtz container (formats/GTZ.md, man
 * gtool-format(5)), the trace layout of HDF5 gradient dumps (man
 * gtool-format(5), TRACE.md) and the error metrics of `gtool error`.
 *
 * Build against the installed copy with pkg-config:
 *	cc prog.c $(pkg-config --cflags --libs gtool)
 *	cc -static prog.c $(pkg-config --static --cflags --libs gtool)
 *
 * This header includes only standard C headers and compiles as C (C99 and
 * later) and as C++.  Every symbol starts with gtool_ or GTOOL_.
 *
 * Conventions, for every function below:
 *  - Functions return int: 0 (or a count) on success, a negative
 *    GTOOL_E_* code on failure; gtool_strerror() names the code.  The one
 *    exception is gtool_compress_bound(), which returns a size (0: too
 *    large or invalid).
 *  - Every pointer argument is checked: NULL where an object is required
 *    is GTOOL_E_INVAL, never a crash.  Buffers come as (pointer, length in
 *    bytes) pairs; a length that does not match the dtype and shape is
 *    GTOOL_E_INVAL.  An unknown codec is GTOOL_E_NOTFOUND, a bad codec
 *    option GTOOL_E_INVAL.
 *  - Details: a call that creates nothing takes an optional
 *    `struct gtool_errbuf *` (NULL: no details) and fills its msg with a
 *    phrase such as "unknown option 'x' for codec zstd" on failure.  A
 *    context (writer, reader, trace, optimizer context) keeps the message
 *    of its own last failure: gtool_*_errmsg().  Messages carry no program
 *    name and no newline.
 *  - Ownership: memory the library returns through a `void **` is freed
 *    with gtool_free(); every context has a _free() function that accepts
 *    NULL.  Pointers into a context (names, attributes, decoded data) stay
 *    valid until the next call on that context, or as each says.
 *  - The library never prints, never exits or aborts on bad input, never
 *    reads the environment and holds no mutable global state.  (libhdf5,
 *    which gtool_trace_open() uses for HDF5 files, reads its own HDF5_*
 *    variables.)  Writing to a descriptor whose reader has gone raises
 *    SIGPIPE, as write(2) does, unless the program ignores it.
 *
 * Thread safety:
 *  - Functions without a context (gtool_compress, gtool_decompress,
 *    gtool_error_metrics, ...) may run in any number of threads at once.
 *  - A context may be used by one thread at a time; different contexts may
 *    be used from different threads concurrently.  A writer or reader
 *    opened with threads > 1 runs its own worker threads inside its calls;
 *    its callbacks are called from the thread that made the call.
 *  - HDF5: gtool_trace_* (and nothing else) calls libhdf5, which Debian
 *    builds without its thread-safe option: open and read HDF5 traces from
 *    one thread at a time (or serialize gtool_trace_* calls yourself).
 *    .gtz traces have no such limit.
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version -------------------------------------------------------------- */

#define GTOOL_VERSION_MAJOR 0
#define GTOOL_VERSION_MINOR 1
#define GTOOL_VERSION_PATCH 0
#define GTOOL_VERSION_NUMBER \
	(GTOOL_VERSION_MAJOR * 10000 + GTOOL_VERSION_MINOR * 100 + GTOOL_VERSION_PATCH)
#define GTOOL_STR_(x) #x
#define GTOOL_STR(x) GTOOL_STR_(x)
#define GTOOL_VERSION_STRING \
	GTOOL_STR(GTOOL_VERSION_MAJOR) "." GTOOL_STR(GTOOL_VERSION_MINOR) "." \
	GTOOL_STR(GTOOL_VERSION_PATCH)

/* The version of the library linked in ("0.1.0"); compare with the
 * GTOOL_VERSION_* macros of the header compiled against.  Static string. */
const char *gtool_version(void);
/* The same as MAJOR * 10000 + MINOR * 100 + PATCH. */
unsigned gtool_version_number(void);

/* ---- errors ----------------------------------------------------------------- */

enum gtool_error {
	GTOOL_OK = 0,
	GTOOL_E_NOMEM = -1,         /* out of memory */
	GTOOL_E_INVAL = -2,         /* invalid argument, option or length */
	GTOOL_E_IO = -3,            /* input/output error (a callback failed) */
	GTOOL_E_TRUNCATED = -4,     /* the data ends early */
	GTOOL_E_CORRUPT = -5,       /* not what the format says */
	GTOOL_E_DST_TOO_SMALL = -6, /* the output buffer is too small: grow, retry */
	GTOOL_E_UNSUPPORTED = -7,   /* a newer format version, an unsupported mode */
	GTOOL_E_NOTFOUND = -8,      /* unknown codec, tensor, attribute, ... */
	GTOOL_E_OVERFLOW = -9,      /* a size does not fit */
	GTOOL_E_TYPE = -10,         /* a dtype the codec or call cannot take */
	GTOOL_E_EXISTS = -11,       /* the output file exists (no GTOOL_FORCE) */
};

/* The message of an error code: a static string, never NULL ("unknown
 * error" for a code not listed above). */
const char *gtool_strerror(int rc);

/* Details of a failed call without a context; msg is "" after success. */
struct gtool_errbuf {
	char msg[256];
};

/* Free memory the library allocated for the caller (NULL-safe). */
void gtool_free(void *p);

/* ---- data types and shapes -------------------------------------------------- */

/* Element types; values are little-endian in memory as on x86-64 / arm64. */
enum gtool_dtype {
	GTOOL_F32 = 1,  /* IEEE binary32 */
	GTOOL_F16 = 2,  /* IEEE binary16 */
	GTOOL_BF16 = 3, /* bfloat16 */
	GTOOL_F64 = 4,  /* IEEE binary64 */
};

/* Bytes per value of @dtype (4, 2, 2, 8); 0 for an unknown dtype. */
size_t gtool_dtype_size(int dtype);
/* "f32", "f16", "bf16", "f64"; NULL for an unknown dtype. */
const char *gtool_dtype_name(int dtype);

#define GTOOL_MAX_RANK 32

/* A tensor's element type and shape (C order). count is the product of
 * the dims (1 for rank 0). */
struct gtool_info {
	int dtype;
	unsigned rank;
	uint64_t dims[GTOOL_MAX_RANK];
	uint64_t count;
};

/* ---- codecs ----------------------------------------------------------------- */

/*
 * A codec spec is "NAME" or "NAME:key=value,key=value": "huffexp",
 * "gcomp:margin=1", "zstd:level=3".  gtool --list-codecs and
 * gtool-compress(1) list the codecs and their options.
 */

/* Number of codecs; gtool_codec_name(i) for i below it names each. */
size_t gtool_codec_count(void);
const char *gtool_codec_name(size_t i); /* static; NULL when i is too big */
/*
 * gtool_codec_check - whether @spec names a known codec with valid
 * options for @dtype, without coding anything.
 * @return 0, GTOOL_E_INVAL (NULL, bad option), GTOOL_E_NOTFOUND (unknown
 *	codec), GTOOL_E_TYPE (a dtype the codec cannot code).
 */
int gtool_codec_check(const char *spec, int dtype, struct gtool_errbuf *err);

/* ---- optimizer context (gcomp, update fidelity) ---------------------------- */

/*
 * gcomp codes each gradient value as finely as one optimizer step still
 * needs it, so it must know the optimizer, its hyper-parameters, the step
 * number, the parameter before the step and the optimizer state before the
 * step.  A struct gtool_optctx collects them.  The arrays are borrowed:
 * they stay the caller's and must stay valid and unchanged until the last
 * call that uses the context returns.
 *
 * Optimizers (case-insensitive): "sgd", "momentum", "nesterov", "adagrad",
 * "rmsprop", "adam", "adamw".
 * Hyper-parameters, named as the trace attributes are: "lr", "momentum",
 * "dampening", "weight_decay", "beta1", "beta2", "eps", "alpha",
 * "lr_decay"; "step" is the step number t (1-based, PyTorch's state
 * "step" after the update); "nesterov" is 0 or 1.
 * State buffers, named as PyTorch and the trace name them:
 * "momentum_buffer" (momentum, nesterov), "sum" (adagrad), "square_avg"
 * (rmsprop), "exp_avg" and "exp_avg_sq" (adam, adamw).  A buffer left out
 * is absent (before the first step), as PyTorch starts it.
 */
struct gtool_optctx;

/* @return 0, GTOOL_E_NOTFOUND (unknown optimizer), GTOOL_E_INVAL, GTOOL_E_NOMEM.
 * The caller frees *@ctx_ret with gtool_optctx_free(). */
int gtool_optctx_new(const char *optimizer, struct gtool_optctx **ctx_ret,
		     struct gtool_errbuf *err);
void gtool_optctx_free(struct gtool_optctx *ctx);
/* Set hyper-parameter @name to @value.  @return 0, GTOOL_E_NOTFOUND
 * (unknown name), GTOOL_E_INVAL (step < 1, NaN). */
int gtool_optctx_set(struct gtool_optctx *ctx, const char *name, double value);
/* The parameter before the step: @n f32 values (borrowed). */
int gtool_optctx_set_param(struct gtool_optctx *ctx, const float *param, size_t n);
/* State buffer @name before the step: @n f32 values (borrowed).  At step 1
 * a buffer left out is PyTorch's initial state (zeros); after it, every
 * buffer the optimizer keeps must be given (gtool_optctx_check).
 * @return 0, GTOOL_E_NOTFOUND (a buffer this optimizer does not keep). */
int gtool_optctx_set_state(struct gtool_optctx *ctx, const char *name,
			   const float *state, size_t n);
/*
 * gtool_optctx_check - whether the hyper-parameters are complete and valid
 * for the optimizer, and, past step 1, every state buffer it keeps is set
 * (gcomp and gtool_update_fidelity check this too).
 * @return 0, GTOOL_E_NOTFOUND ("attribute lr missing"), GTOOL_E_INVAL
 *	("optimizer adam at step 10 needs its state 'exp_avg_sq' ..."),
 *	GTOOL_E_UNSUPPORTED; the message in gtool_optctx_errmsg().
 */
int gtool_optctx_check(struct gtool_optctx *ctx);
const char *gtool_optctx_errmsg(const struct gtool_optctx *ctx);

/* ---- one tensor in memory --------------------------------------------------- */

/*
 * The blob is a complete .gtz stream holding one tensor named "tensor"
 * with its dtype and shape: `gtool decompress` and gtool_reader_* read it
 * too.  The bytes do not depend on the machine or on threads.
 */

/*
 * gtool_compress_bound - the most bytes gtool_compress() writes for
 * @count values of @dtype, whatever the codec (a block that coding would
 * grow is stored raw): count * size + 2 KiB + 8.5 KiB per 2^20 values
 * + 32 bytes per 64 values; 0 when @dtype is unknown or it overflows.
 */
size_t gtool_compress_bound(int dtype, uint64_t count);

/*
 * gtool_compress - code the @src_len bytes at @src, a tensor of dtype
 * @dtype and shape @dims[@rank] (@dims may be NULL for rank 0), with
 * codec @spec into @dst.  @opt (NULL: none) is the optimizer context of
 * the values, required by gcomp in its default mode (its param and state
 * arrays hold as many values as the tensor).  Single-threaded.
 * @return 0 with the blob's length in *@dst_len_ret; GTOOL_E_INVAL
 *	(@src_len is not count * dtype size, NULL, rank over 32, bad
 *	option, missing optimizer context), GTOOL_E_NOTFOUND (unknown
 *	codec), GTOOL_E_TYPE, GTOOL_E_DST_TOO_SMALL (@dst_cap below what
 *	the data needs; always enough at gtool_compress_bound()).
 */
int gtool_compress(const char *spec, int dtype, const uint64_t *dims, unsigned rank,
		   const void *src, size_t src_len, const struct gtool_optctx *opt,
		   void *dst, size_t dst_cap, size_t *dst_len_ret,
		   struct gtool_errbuf *err);

/* gtool_compress_alloc - the same into a buffer the library allocates:
 * *@dst_ret (freed with gtool_free()), *@dst_len_ret bytes. */
int gtool_compress_alloc(const char *spec, int dtype, const uint64_t *dims,
			 unsigned rank, const void *src, size_t src_len,
			 const struct gtool_optctx *opt, void **dst_ret,
			 size_t *dst_len_ret, struct gtool_errbuf *err);

/*
 * gtool_decompress_info - the dtype and shape of the tensor in a blob, so
 * the caller can size the output: count * gtool_dtype_size(dtype) bytes.
 * Reads the headers only.
 * @return 0, GTOOL_E_CORRUPT, GTOOL_E_TRUNCATED, GTOOL_E_UNSUPPORTED.
 */
int gtool_decompress_info(const void *src, size_t src_len, struct gtool_info *info,
			  struct gtool_errbuf *err);

/*
 * gtool_decompress - decode the one tensor of a blob into @dst, checking
 * every CRC; @info (may be NULL) receives its dtype and shape.
 * @return 0 with the bytes in *@dst_len_ret; GTOOL_E_DST_TOO_SMALL,
 *	GTOOL_E_CORRUPT (also a stream with other than one tensor),
 *	GTOOL_E_TRUNCATED, GTOOL_E_UNSUPPORTED, GTOOL_E_INVAL.
 */
int gtool_decompress(const void *src, size_t src_len, void *dst, size_t dst_cap,
		     size_t *dst_len_ret, struct gtool_info *info,
		     struct gtool_errbuf *err);

/* gtool_decompress_alloc - the same into a buffer the library allocates
 * (*@dst_ret, freed with gtool_free(); NULL for an empty tensor). */
int gtool_decompress_alloc(const void *src, size_t src_len, void **dst_ret,
			   size_t *dst_len_ret, struct gtool_info *info,
			   struct gtool_errbuf *err);

/* ---- attributes ------------------------------------------------------------- */

enum gtool_attr_type { GTOOL_ATTR_INT = 0, GTOOL_ATTR_FLOAT = 1, GTOOL_ATTR_STR = 2 };

/* An attribute of a group or tensor, as HDF5 holds them.  n is the number
 * of values (INT, FLOAT) or the string's length without its NUL (STR). */
struct gtool_attr {
	const char *name;
	int type;
	size_t n;
	const int64_t *i;
	const double *f;
	const char *s;
};

/* ---- streaming .gtz writer -------------------------------------------------- */

/*
 * A .gtz file holds groups (HDF5 groups, with attributes) and tensors
 * (name, dtype, shape, attributes, values coded block by block), in the
 * order written.  `gtool decompress` turns it back into HDF5 or raw.
 *	open -> [attr*] group | [attr*] begin -> write* -> end ... -> commit -> free
 * A call that fails for a reason of the data or of the call order
 * (GTOOL_E_INVAL, _NOTFOUND, _TYPE) leaves the writer as it was; once
 * writing the stream failed (GTOOL_E_IO, a coding error), every later
 * call returns that error and the message stays.
 */
struct gtool_writer;

/* Callback output: take all @len bytes, return 0, or < 0 to fail the write. */
typedef int (*gtool_write_fn)(void *arg, const void *p, size_t len);
/* Callback input: give up to @cap bytes in *@len_ret (0: the end), return
 * 0, or < 0 to fail the read. */
typedef int (*gtool_read_fn)(void *arg, void *p, size_t cap, size_t *len_ret);

#define GTOOL_FORCE 1 /* gtool_writer_open_path: replace an existing file */

/*
 * gtool_writer_open_path, _fd, _cb - a writer to the file @path (written
 * under a temporary name, renamed into place by commit; an existing file
 * is GTOOL_E_EXISTS without GTOOL_FORCE in @flags), to the open
 * descriptor @fd (never closed) or through @fn(@arg, ...).  @threads (0
 * means 1) workers code each block's chunks; the bytes do not depend on it.
 * The caller frees *@w_ret with gtool_writer_free().
 * @return 0, GTOOL_E_INVAL, GTOOL_E_EXISTS, GTOOL_E_IO, GTOOL_E_NOMEM.
 */
int gtool_writer_open_path(const char *path, int flags, unsigned threads,
			   struct gtool_writer **w_ret, struct gtool_errbuf *err);
int gtool_writer_open_fd(int fd, unsigned threads, struct gtool_writer **w_ret,
			 struct gtool_errbuf *err);
int gtool_writer_open_cb(gtool_write_fn fn, void *arg, unsigned threads,
			 struct gtool_writer **w_ret, struct gtool_errbuf *err);

/*
 * gtool_writer_attr_int, _float, _str - add an attribute (@n values, or a
 * NUL-terminated string) to the next group or tensor written; the values
 * are copied.  @return 0, GTOOL_E_INVAL, GTOOL_E_NOMEM.
 */
int gtool_writer_attr_int(struct gtool_writer *w, const char *name,
			  const int64_t *v, size_t n);
int gtool_writer_attr_float(struct gtool_writer *w, const char *name,
			    const double *v, size_t n);
int gtool_writer_attr_str(struct gtool_writer *w, const char *name, const char *s);

/*
 * gtool_writer_blocks - the block and chunk sizes, in values, of the
 * tensors begun after it (0: the defaults, 2^20 and 2^16).  A block is
 * what a reader decodes at once (one GTOOL_EV_DATA); its chunks are coded
 * in parallel.  Blocks hold 64 to 2^24 values; a chunk is cut to its block.
 * @return 0, GTOOL_E_INVAL (out of range).
 */
int gtool_writer_blocks(struct gtool_writer *w, uint32_t block_values,
			uint32_t chunk_values);

/*
 * gtool_writer_table - code the tensors begun after it with the static
 * exponent table of the .ght file @ght_path (`gtool huffman build`), as
 * `gtool compress --table` does; NULL goes back to a table per block.
 * Only codecs that take a table (huffexp, gcomp) may then begin.
 * @return 0, GTOOL_E_IO, GTOOL_E_CORRUPT (not a .ght file, an impossible
 *	code), GTOOL_E_UNSUPPORTED, GTOOL_E_NOMEM.
 */
int gtool_writer_table(struct gtool_writer *w, const char *ght_path);

/* gtool_writer_group - record HDF5 group @name ("/step_000100", "/" for
 * the root) with the pending attributes; not while a tensor is open. */
int gtool_writer_group(struct gtool_writer *w, const char *name);

/*
 * gtool_writer_begin - start tensor @name with the pending attributes,
 * coded by @spec.  @opt as for gtool_compress (its arrays cover the whole
 * tensor, in order); it must stay valid until gtool_writer_end().
 * @return 0, GTOOL_E_INVAL (a tensor is open, bad shape or option),
 *	GTOOL_E_NOTFOUND (unknown codec), GTOOL_E_TYPE, GTOOL_E_IO.
 */
int gtool_writer_begin(struct gtool_writer *w, const char *name, const char *spec,
		       int dtype, const uint64_t *dims, unsigned rank,
		       const struct gtool_optctx *opt);
/* Append @src_len bytes of values (a multiple of the dtype size, at most
 * what is left of the tensor); full blocks are coded and written. */
int gtool_writer_write(struct gtool_writer *w, const void *src, size_t src_len);
/* Close the tensor: every value must have been written. */
int gtool_writer_end(struct gtool_writer *w);
/* Write the index and trailer and flush (rename into place for a path).
 * Nothing may be written after it. */
int gtool_writer_commit(struct gtool_writer *w);
/* Bytes written so far (the whole file after commit). */
uint64_t gtool_writer_bytes(const struct gtool_writer *w);
/* Free; a path writer not committed removes its temporary file. */
void gtool_writer_free(struct gtool_writer *w);
const char *gtool_writer_errmsg(const struct gtool_writer *w);

/* ---- streaming .gtz reader -------------------------------------------------- */

struct gtool_reader;

enum gtool_event {
	GTOOL_EV_EOF = 0,        /* the end: index and trailer checked */
	GTOOL_EV_GROUP = 1,      /* a group: name and attributes */
	GTOOL_EV_TENSOR = 2,     /* a tensor begins: name, info, codec, attributes */
	GTOOL_EV_DATA = 3,       /* one decoded block of the tensor: gtool_reader_data */
	GTOOL_EV_TENSOR_END = 4, /* the tensor's values are complete */
	GTOOL_EV_OBJECT = 5,     /* a link or a non-float dataset: gtool_reader_object */
};

/* What `gtool compress` keeps besides floats (format 1.1): a dataset of
 * another type (integers, strings, compounds, ...) whole, and links. */
enum gtool_obj_kind {
	GTOOL_OBJ_DATASET = 0,  /* a non-float dataset */
	GTOOL_OBJ_HARD = 1,     /* a second name of an object stored under target */
	GTOOL_OBJ_SOFT = 2,     /* a soft link whose value is target */
	GTOOL_OBJ_EXTERNAL = 3, /* target in the file named file */
};

struct gtool_object {
	int kind;              /* enum gtool_obj_kind */
	const char *name;      /* absolute path of the dataset or link */
	const char *target;    /* links (see kind); NULL for a dataset */
	const char *file;      /* EXTERNAL: the other file's name; else NULL */
	const char *type_desc; /* DATASET: "int64", "bool", "string", "compound", ... */
	unsigned rank;         /* DATASET: its shape (rank 0: a scalar or empty) */
	uint64_t dims[GTOOL_MAX_RANK];
	const void *data;      /* DATASET: its bytes in the memory layout of its
				* HDF5 type (see gtool-format(5)); NULL if none */
	size_t data_len;
};

/*
 * gtool_reader_open_path, _fd, _mem, _cb - a reader of the .gtz file
 * @path, the descriptor @fd (read from where it stands, never closed), the
 * @len bytes at @p (which must outlive the reader) or @fn(@arg, ...).
 * It reads in order, once; a pipe is fine.  The caller frees *@r_ret with
 * gtool_reader_free().
 * @return 0, GTOOL_E_INVAL, GTOOL_E_IO, GTOOL_E_CORRUPT (not a .gtz
 *	stream), GTOOL_E_UNSUPPORTED (a newer major version), GTOOL_E_TRUNCATED.
 */
int gtool_reader_open_path(const char *path, unsigned threads,
			   struct gtool_reader **r_ret, struct gtool_errbuf *err);
int gtool_reader_open_fd(int fd, unsigned threads, struct gtool_reader **r_ret,
			 struct gtool_errbuf *err);
int gtool_reader_open_mem(const void *p, size_t len, unsigned threads,
			  struct gtool_reader **r_ret, struct gtool_errbuf *err);
int gtool_reader_open_cb(gtool_read_fn fn, void *arg, unsigned threads,
			 struct gtool_reader **r_ret, struct gtool_errbuf *err);
void gtool_reader_free(struct gtool_reader *r);

/*
 * gtool_reader_next - the next event into *@ev_ret (an enum gtool_event).
 * After GTOOL_EV_EOF it keeps returning GTOOL_EV_EOF; after an error it
 * keeps returning that error (a stream cannot be resynchronized), and the
 * accessors below answer as before the first event.
 * @return 0, GTOOL_E_CORRUPT (a CRC, a length), GTOOL_E_TRUNCATED, GTOOL_E_IO.
 */
int gtool_reader_next(struct gtool_reader *r, int *ev_ret);
/* The name of the current group or tensor ("/step_000100/grad/fc.weight"),
 * or NULL before the first. */
const char *gtool_reader_name(const struct gtool_reader *r);
/* The current tensor's dtype and shape.  @return 0, GTOOL_E_INVAL (no tensor). */
int gtool_reader_info(const struct gtool_reader *r, struct gtool_info *info);
/* The current tensor's codec spec as stored ("gcomp:margin=1,..."); into
 * @buf (truncated, NUL-terminated); @return its full length or < 0. */
int gtool_reader_codec(const struct gtool_reader *r, char *buf, size_t cap);
/* After GTOOL_EV_OBJECT: the link or dataset (pointers owned by the
 * reader, valid until the next call).  @return 0, GTOOL_E_INVAL. */
int gtool_reader_object(const struct gtool_reader *r, struct gtool_object *o);
/* The attributes of the current group, tensor or dataset object: how many,
 * and number @i. */
size_t gtool_reader_nattrs(const struct gtool_reader *r);
int gtool_reader_attr(const struct gtool_reader *r, size_t i, struct gtool_attr *a);
/*
 * gtool_reader_data - after GTOOL_EV_DATA: the decoded block (owned by the
 * reader, valid until the next call), its length in bytes and the index
 * of its first value in the tensor.
 */
int gtool_reader_data(const struct gtool_reader *r, const void **p_ret,
		      size_t *len_ret, uint64_t *first_ret);
/*
 * gtool_reader_read_tensor - after GTOOL_EV_TENSOR: read the rest of the
 * tensor into @dst (count * dtype size bytes) through GTOOL_EV_TENSOR_END.
 * @return 0, GTOOL_E_DST_TOO_SMALL, the errors of gtool_reader_next.
 */
int gtool_reader_read_tensor(struct gtool_reader *r, void *dst, size_t dst_cap,
			     size_t *len_ret);
const char *gtool_reader_errmsg(const struct gtool_reader *r);

/* ---- traces ----------------------------------------------------------------- */

/*
 * A trace is an HDF5 file or a .gtz file (formats: gtool-format(5)).
 * Every float dataset is a tensor.  Files that follow the trace layout
 * also have steps (/step_000100) with an optimizer and its
 * hyper-parameters, and per gradient its param, state buffers and
 * param_next.
 */
struct gtool_trace;

/* @return 0, GTOOL_E_IO, GTOOL_E_CORRUPT, GTOOL_E_UNSUPPORTED, GTOOL_E_NOMEM;
 * the caller frees *@tr_ret with gtool_trace_free(). */
int gtool_trace_open(const char *path, struct gtool_trace **tr_ret,
		     struct gtool_errbuf *err);
void gtool_trace_free(struct gtool_trace *tr);
const char *gtool_trace_errmsg(const struct gtool_trace *tr);

/* Tensors: how many, the name of number @i (NULL when out of range), its
 * dtype and shape (a dataset that is not a float type: GTOOL_E_TYPE). */
size_t gtool_trace_ntensors(const struct gtool_trace *tr);
const char *gtool_trace_tensor_name(const struct gtool_trace *tr, size_t i);
int gtool_trace_tensor_info(const struct gtool_trace *tr, size_t i,
			    struct gtool_info *info);
/* Index of the tensor named @name.  @return 0, GTOOL_E_NOTFOUND. */
int gtool_trace_find(const struct gtool_trace *tr, const char *name, size_t *idx_ret);
/*
 * gtool_trace_read - values [@first, @first + @dst_cap / size) of tensor
 * @i into @dst, in its dtype; *@len_ret bytes came (fewer at its end).
 * @dst_cap must be a multiple of the dtype size.
 */
int gtool_trace_read(struct gtool_trace *tr, size_t i, uint64_t first, void *dst,
		     size_t dst_cap, size_t *len_ret);

/* Steps, in file order; 0 for a file without the layout. */
size_t gtool_trace_nsteps(const struct gtool_trace *tr);

/* One step's optimizer context. */
struct gtool_step {
	long step;             /* the step attribute, else the number in the name */
	const char *group;     /* "/step_000100" */
	const char *optimizer; /* "adamw", ...; NULL when the trace names none */
	size_t ngrads;         /* gradients of the step */
};
int gtool_trace_step(const struct gtool_trace *tr, size_t s, struct gtool_step *st);
/* Hyper-parameter @name of step @s (names as for gtool_optctx_set; "step"
 * too).  @return 0, GTOOL_E_NOTFOUND when the trace does not set it. */
int gtool_trace_step_hparam(const struct gtool_trace *tr, size_t s, const char *name,
			    double *v_ret);

#define GTOOL_NONE ((size_t)-1) /* a tensor the trace does not have */

/* Gradient @j of step @s and the tensors of its optimizer context (tensor
 * indexes; GTOOL_NONE where absent).  state_name[k] names state[k]. */
struct gtool_grad {
	const char *param_name; /* "fc.weight" */
	size_t grad, param, param_next;
	size_t state[2];
	const char *state_name[2];
	unsigned nstates;       /* buffers the optimizer keeps: 0, 1 or 2 */
};
int gtool_trace_grad(const struct gtool_trace *tr, size_t s, size_t j,
		     struct gtool_grad *g);

/*
 * gtool_trace_optctx - an optimizer context for step @s with its
 * hyper-parameters (no arrays yet: add them with gtool_optctx_set_param
 * and _set_state).  The caller frees it.
 */
int gtool_trace_optctx(const struct gtool_trace *tr, size_t s,
		       struct gtool_optctx **ctx_ret);

/* ---- metrics ---------------------------------------------------------------- */

/*
 * The metrics of `gtool error` between an original A and a copy B.  Pairs
 * with a NaN count in nan, with an infinity in inf, and are left out of
 * the rest; n finite pairs give the others.  NaN where a quantity is
 * undefined (no finite pair, zero denominators).
 */
struct gtool_metrics {
	uint64_t values, identical, nan, inf, n;
	double max_abs;  /* max |a - b| */
	double max_rel;  /* max |a - b| / |a| over a != 0 */
	double range;    /* max a - min a */
	double rmse;     /* sqrt(sum (a - b)^2 / n) */
	double nrmse;    /* rmse / range; 0 when rmse is 0 */
	double psnr;     /* 20 log10(range / rmse) dB */
	double snr;      /* 10 log10(sum a^2 / sum (a - b)^2) dB */
	double cosine;   /* sum ab / sqrt(sum a^2 sum b^2) */
	double pearson;  /* Pearson correlation of a and b */
	double gain;     /* sum b^2 / sum a^2: GraVAC's compression gain */
};

/*
 * gtool_error_metrics - the metrics between @n values @a of dtype @dta and
 * @n values @b of dtype @dtb (any alignment).  Identical means equal bit
 * patterns.
 * @return 0, GTOOL_E_INVAL (NULL with n > 0, unknown dtype).
 */
int gtool_error_metrics(const void *a, int dta, const void *b, int dtb, size_t n,
			struct gtool_metrics *m, struct gtool_errbuf *err);

/* Update fidelity, as `gtool error --update` reports it. */
struct gtool_fidelity {
	uint64_t values;       /* parameters stepped */
	uint64_t identical;    /* bit-identical new parameters */
	uint64_t max_ulp;      /* UINT64_MAX when a pair differs by a NaN */
	double max_rel;        /* max |p_g - p_ghat| / |p_g| (new parameters) */
	double identical_pct;  /* 100 * identical / values */
	uint64_t py_values;    /* with @next: parameters compared with PyTorch's */
	uint64_t py_identical; /* ... and bit-identical to it */
};

/*
 * gtool_update_fidelity - step @n parameters once with the original
 * gradient @g and once with its reconstruction @ghat (f32, as PyTorch does
 * on the CPU), from the parameter and state in @opt, and compare the two
 * new parameters.  @next (NULL: none) is PyTorch's new parameter, to check gtool's
 * step with @g against it.  @opt must hold a param of @n values.
 * @return 0, GTOOL_E_INVAL, GTOOL_E_NOTFOUND (hyper-parameter missing),
 *	GTOOL_E_UNSUPPORTED, GTOOL_E_NOMEM.
 */
int gtool_update_fidelity(const struct gtool_optctx *opt, const float *g,
			  const float *ghat, const float *next, size_t n,
			  struct gtool_fidelity *f, struct gtool_errbuf *err);

#ifdef __cplusplus
}
#endif

#endif
