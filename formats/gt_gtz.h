/* gt_gtz.h - the .gtz container: streaming writer and reader (GTZ.md) */
#ifndef GT_GTZ_H
#define GT_GTZ_H

#include <stdio.h>

#include "../lib/gt_chunk.h"
#include "../lib/gt_codec.h"
#include "gt_source.h"

#define GT_GTZ_VERSION_MAJOR 1
#define GT_GTZ_VERSION_MINOR 5
#define GT_GTZ_BLOCK_DEFAULT GT_BLOCK_DEFAULT /* values per block (lib/gt_chunk.h) */
#define GT_GTZ_CHUNK_DEFAULT GT_CHUNK_DEFAULT /* values per chunk */
#define GT_GTZ_BLOCK_MAX (1u << 24) /* 128 MiB of f64: the most a reader allocates */
#define GT_GTZ_CHUNK_MIN GT_CHUNK_MIN

/* What the writer needs to know about one tensor's coding. */
struct gt_gtz_coding {
	const struct gt_codec *codec;
	struct gt_codec_params params; /* dtype, options, static table */
	uint32_t block_values;         /* 0: GT_GTZ_BLOCK_DEFAULT */
	uint32_t chunk_values;         /* 0: GT_GTZ_CHUNK_DEFAULT (or the block, if smaller) */
};

struct gt_gtz_writer;

/*
 * gt_gtz_writer_open - start a .gtz file at @path ("-": stdout).  Like
 * gt_sink, it writes a temporary file renamed into place on commit, and
 * refuses an existing @path unless @force.  @threads workers code the
 * chunks of each block; the bytes written do not depend on it.
 * @return 0, GT_ERR(EXISTS), GT_ERR(IO), GT_ERR(NOMEM).
 */
int gt_gtz_writer_open(const char *path, int force, unsigned threads,
		       struct gt_gtz_writer **w_ret, struct gt_diag *d);
/*
 * Byte I/O for a .gtz stream that is not a named file (libgtool's
 * callbacks, memory, a descriptor).  @write takes all @n bytes or returns
 * < 0; @read gives up to @n bytes in *@got_ret (0: the end) or returns < 0.
 * Only the one the direction needs is called.
 */
struct gt_gtz_io {
	int (*write)(void *arg, const void *p, size_t n);
	int (*read)(void *arg, void *p, size_t n, size_t *got_ret);
	void *arg;
};

/*
 * gt_gtz_writer_open_io, gt_gtz_writer_open_fd - the same as
 * gt_gtz_writer_open, written through @io->write or to @fd (written in
 * place, never closed) instead of a named file; commit flushes.
 * @return 0, GT_ERR(INVAL) (no write function, a negative @fd), GT_ERR(IO),
 *	GT_ERR(NOMEM).
 */
int gt_gtz_writer_open_io(const struct gt_gtz_io *io, unsigned threads,
			  struct gt_gtz_writer **w_ret, struct gt_diag *d);
int gt_gtz_writer_open_fd(int fd, unsigned threads, struct gt_gtz_writer **w_ret,
			  struct gt_diag *d);
/* Record an HDF5 group and its attributes (decompress recreates it). */
int gt_gtz_write_group(struct gt_gtz_writer *w, const struct gt_group_info *g,
		       struct gt_diag *d);
/*
 * gt_gtz_write_object - record a link (an `L` record) or a whole non-float
 * dataset (a `D` record: its type, shape and attributes, and its bytes
 * compressed with zstd after the record).  Not while a tensor is open; a
 * hard link after the object it names.
 * @return 0, GT_ERR(INVAL), GT_ERR(IO), GT_ERR(NOMEM), GT_ERR(OVERFLOW).
 */
int gt_gtz_write_object(struct gt_gtz_writer *w, const struct gt_object *o,
			struct gt_diag *d);
/*
 * gt_gtz_write_objects - the objects of @s (gt_source_object) for which
 * @keep says yes (NULL: all): the non-float datasets, with their bytes,
 * then the links.  Call it after the tensors, so that a hard link comes
 * after what it names.  @return 0, or the error of the read or write.
 */
int gt_gtz_write_objects(struct gt_gtz_writer *w, struct gt_source *s,
			 int (*keep)(void *arg, const struct gt_object *o), void *arg,
			 struct gt_diag *d);
/* Begin a tensor; its count may be GT_COUNT_UNKNOWN (a pipe). */
int gt_gtz_begin(struct gt_gtz_writer *w, const struct gt_tensor_info *t,
		 const struct gt_gtz_coding *c, struct gt_diag *d);
/* Append @n values; full blocks are coded and written as they fill. */
int gt_gtz_write(struct gt_gtz_writer *w, const void *src, size_t n,
		 struct gt_diag *d);
/*
 * gt_gtz_write_aux - the same, with the optimizer context of the @n values
 * (gt_codec_aux arrays indexed like @src), for codecs that use it (gcomp):
 * when gt_gtz_needs_aux() says so, @aux and its param are required.
 */
int gt_gtz_write_aux(struct gt_gtz_writer *w, const void *src,
		     const struct gt_codec_aux *aux, size_t n, struct gt_diag *d);
/*
 * gt_gtz_write_space, gt_gtz_write_done - the same without a copy: read
 * up to *@n_ret values straight into the returned space, then say how many
 * came.  *@n_ret is 0 when the tensor is complete, or when its codec needs
 * the optimizer context (use gt_gtz_write_aux then).
 */
void *gt_gtz_write_space(struct gt_gtz_writer *w, size_t *n_ret);
int gt_gtz_write_done(struct gt_gtz_writer *w, size_t n, struct gt_diag *d);
/*
 * gt_gtz_write_from - all of the open tensor's values (or all that @fill
 * gives, for an unknown count), pulled through @fill(arg, dst, cap,
 * &got): it must fill up to @cap values (fewer only at the end; 0: the
 * end) or return < 0 having reported why.  A thread of its own calls
 * @fill (one call at a time, in order) into a ring of 2 * threads + 1
 * blocks, the writer's threads code the blocks read, and one more thread
 * writes them out in order: reading, coding and writing overlap, with one
 * coding thread too, and the output does not depend on the thread count.
 * Not for codecs that need the optimizer context.  Call it right after
 * gt_gtz_begin.
 * @return 0, GT_ERR(IO) when @fill failed, or the writer's errors.
 */
#define GT_GTZ_THREADS_MAX 1024
int gt_gtz_write_from(struct gt_gtz_writer *w,
		      int (*fill)(void *arg, void *dst, size_t cap, size_t *got_ret),
		      void *arg, struct gt_diag *d);
/* 1 when the open tensor's codec, as configured, uses the optimizer context. */
int gt_gtz_needs_aux(const struct gt_gtz_writer *w);
/* Flush the last block and close the tensor (its count must match when known). */
int gt_gtz_end(struct gt_gtz_writer *w, struct gt_diag *d);
/* Write the index and trailer, flush, rename into place. */
int gt_gtz_writer_commit(struct gt_gtz_writer *w, struct gt_diag *d);
/* Free; without a commit the temporary file is removed. */
void gt_gtz_writer_free(struct gt_gtz_writer *w);
/*
 * gt_gtz_writer_tmp_path - the temporary file being written (NULL for
 * stdout, a device or after the commit), for a front end that removes it
 * on SIGINT; the string is @w's.
 */
const char *gt_gtz_writer_tmp_path(const struct gt_gtz_writer *w);
/* Bytes written so far (the whole file after commit). */
uint64_t gt_gtz_writer_bytes(const struct gt_gtz_writer *w);
/* Blocks of the current tensor stored raw because coding would grow them. */
uint64_t gt_gtz_writer_raw_blocks(const struct gt_gtz_writer *w);

/* ---- reading ------------------------------------------------------------ */

enum gt_gtz_event {
	GT_GTZ_EOF = 0,    /* the index and trailer were read and checked */
	GT_GTZ_GROUP,      /* gt_gtz_group() is valid */
	GT_GTZ_TENSOR,     /* gt_gtz_tensor() is valid */
	GT_GTZ_DATA,       /* gt_gtz_data() holds one decoded block */
	GT_GTZ_TENSOR_END, /* the tensor's values are complete */
	GT_GTZ_OBJECT,     /* gt_gtz_object() is valid (format 1.1) */
};

struct gt_gtz_tensor {
	struct gt_tensor_info info;
	const struct gt_codec *codec;
	char *opts;          /* canonical codec options */
	void *table;         /* static Huffman table bytes, or NULL */
	size_t table_len;
	uint32_t block_values, chunk_values;
};

struct gt_gtz_reader;

/*
 * gt_gtz_reader_open - read a .gtz stream from @f, in order (a pipe is
 * fine).  @name is used in messages.  The reader does not close @f.
 * Every length and count is checked before use; a block's CRC-32 is
 * checked after decoding.  @d names the block: "block 3: CRC mismatch".
 * @return 0, GT_ERR(CORRUPT) (not a .gtz file), GT_ERR(UNSUPPORTED)
 *	(a future major version), GT_ERR(TRUNCATED).
 */
int gt_gtz_reader_open(FILE *f, unsigned threads, struct gt_gtz_reader **r_ret,
		       struct gt_diag *d);
/*
 * gt_gtz_reader_open_io, _fd, _mem - the same over @io->read, over @fd
 * (read from where it stands, never closed) or over the @len bytes at @p
 * (which must stay valid while the reader lives).
 */
int gt_gtz_reader_open_io(const struct gt_gtz_io *io, unsigned threads,
			  struct gt_gtz_reader **r_ret, struct gt_diag *d);
int gt_gtz_reader_open_fd(int fd, unsigned threads, struct gt_gtz_reader **r_ret,
			  struct gt_diag *d);
int gt_gtz_reader_open_mem(const void *p, size_t len, unsigned threads,
			   struct gt_gtz_reader **r_ret, struct gt_diag *d);
void gt_gtz_reader_free(struct gt_gtz_reader *r);
/* The next event; on error, @d says where. */
int gt_gtz_next(struct gt_gtz_reader *r, enum gt_gtz_event *ev_ret,
		struct gt_diag *d);
const struct gt_group_info *gt_gtz_group(const struct gt_gtz_reader *r);
const struct gt_gtz_tensor *gt_gtz_tensor(const struct gt_gtz_reader *r);
/* A link, or a non-float dataset with its bytes (none when listing). */
const struct gt_object *gt_gtz_object(const struct gt_gtz_reader *r);
/*
 * gt_gtz_read_all - the whole stream through callbacks, in file order,
 * instead of gt_gtz_next: a thread of its own reads the records (a block
 * into a ring of 2 * threads + 1), the reader's threads decode the blocks
 * read, and one more thread checks each block and hands it to @data in
 * order: reading, decoding and @data overlap, with one decoding thread
 * too.  The callbacks run one at a time (from any of these threads), and
 * none runs for a block before the blocks ahead of it are handed over.  A
 * callback's error (< 0, @d set) stops the reading.
 * @return 0 once @eof returned, or the first error.
 */
struct gt_gtz_callbacks {
	int (*group)(void *arg, const struct gt_group_info *g, struct gt_diag *d);
	int (*tensor)(void *arg, const struct gt_gtz_tensor *t, struct gt_diag *d);
	int (*data)(void *arg, const void *values, size_t n, struct gt_diag *d);
	int (*end)(void *arg, const struct gt_gtz_tensor *t, struct gt_diag *d);
	int (*eof)(void *arg, struct gt_diag *d);
	/* a link or a non-float dataset; NULL: skip them */
	int (*object)(void *arg, const struct gt_object *o, struct gt_diag *d);
};
int gt_gtz_read_all(struct gt_gtz_reader *r, const struct gt_gtz_callbacks *cb,
		    void *arg, struct gt_diag *d);

/* The record behind the last event, for `gtool ls --records`. */
struct gt_gtz_record {
	uint64_t offset, bytes;       /* where it starts; tag to CRC */
	uint64_t payload_offset, payload_bytes; /* a block's payload; 0 otherwise */
	uint64_t index_offset;        /* with tag 'Z': where the index record starts */
	char tag;                     /* 'G' group, 'T' tensor, 'B' block, 'E' end,
				       * 'D' dataset, 'L' link,
				       * 'Z' trailer (after the index, at GT_GTZ_EOF) */
};
/* Skip payloads instead of decoding them (a listing; seekable input only). */
void gt_gtz_reader_skip_payloads(struct gt_gtz_reader *r, int skip);
void gt_gtz_last_record(const struct gt_gtz_reader *r, struct gt_gtz_record *rec);

/* The decoded values of the last GT_GTZ_DATA event (owned by the reader). */
void gt_gtz_data(const struct gt_gtz_reader *r, const void **data_ret,
		 size_t *n_ret);

/* For `gtool ls`: what a .gtz source (gt_source_open) knows per tensor. */
struct gt_gtz_meta {
	const char *codec;
	const char *opts;
	uint64_t stored_bytes; /* block records of the tensor, headers included */
	uint64_t blocks, raw_blocks;
	int static_table;
};
/* @return 0, GT_ERR(INVAL) when @s is not a .gtz source. */
int gt_gtz_source_meta(const struct gt_source *s, size_t i,
		       struct gt_gtz_meta *m_ret);

/*
 * gt_gtz_source_stats - add the codec's per-chunk counters (see
 * gt_codec_stat_names) over every block of tensor @i to @counts.  Reads
 * the payloads without decoding them; raw-stored blocks count nothing.
 * @return 0, GT_ERR(INVAL), GT_ERR(CORRUPT).
 */
int gt_gtz_source_stats(struct gt_source *s, size_t i, uint64_t *counts,
			struct gt_diag *d);

#endif
