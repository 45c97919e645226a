/* gt_source.h - read tensors from HDF5, raw, .npy and .gtz files */
#ifndef GT_SOURCE_H
#define GT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/gt_error.h"
#include "../lib/gt_float.h"

#define GT_MAX_RANK 32
/* count of a raw stream read from a pipe: known only at its end */
#define GT_COUNT_UNKNOWN UINT64_MAX

enum gt_kind {
	GT_KIND_AUTO = 0, /* from the magic bytes, then the extension */
	GT_KIND_HDF5,
	GT_KIND_RAW,
	GT_KIND_NPY,
	GT_KIND_GTZ,
};

/* Kind from a file name's extension (.h5 .hdf5 .npy .gtz .f32 .f16 .bf16
 * .f64 .raw .bin), GT_KIND_AUTO when the extension says nothing. */
enum gt_kind gt_kind_from_name(const char *path);
/* "hdf5", "raw", "npy", "gtz"; NULL for AUTO. */
const char *gt_kind_name(enum gt_kind k);
/* Parse a --format value for files: "h5"/"hdf5", "raw", "npy", "gtz". */
enum gt_kind gt_kind_parse(const char *s);

/*
 * An HDF5 value kept whole: its datatype as H5Tencode writes it, its
 * dataspace, and its bytes in the file type's layout.  Variable-length
 * strings (vlen_str) are kept as, per element, a varint (length + 1, or
 * 0 for a null string) followed by the string's bytes; their character
 * set is in the encoded type.  Only formats/hdf5.c reads the type bytes.
 */
enum gt_space { GT_SPACE_SCALAR, GT_SPACE_SIMPLE, GT_SPACE_NULL };

struct gt_blob {
	unsigned char *type;  /* H5Tencode bytes */
	size_t type_len;
	enum gt_space space;
	unsigned rank;        /* SIMPLE: 1..GT_MAX_RANK */
	uint64_t dims[GT_MAX_RANK];
	int vlen_str;
	unsigned char *data;  /* malloc'd */
	size_t data_len;
};

/* Free a blob's buffers (not the struct). */
void gt_blob_release(struct gt_blob *b);
/* Deep copy; @return 0, GT_ERR(NOMEM). */
int gt_blob_copy(struct gt_blob *dst, const struct gt_blob *src);

/*
 * Attributes, as HDF5 holds them on groups and datasets.  type is the
 * simple view that analysis reads (numbers and a single string); an
 * attribute with no such view (a string array, a compound, ...) is
 * GT_ATTR_NONE.  raw, when set, is the attribute itself, byte for byte:
 * what a writer of HDF5 writes back.
 */
enum gt_attr_type { GT_ATTR_INT, GT_ATTR_FLOAT, GT_ATTR_STR, GT_ATTR_NONE };

struct gt_attr {
	char *name;
	enum gt_attr_type type;
	size_t n;  /* elements (INT, FLOAT) or string length without NUL (STR); 0 NONE */
	int64_t *i; /* n values, when type is INT */
	double *f;  /* n values, when type is FLOAT */
	char *s;    /* NUL-terminated, when type is STR */
	struct gt_blob *raw; /* or NULL */
};

struct gt_attrs {
	struct gt_attr *v;
	size_t n;
};

/* Lookup by name; NULL when absent. */
const struct gt_attr *gt_attrs_find(const struct gt_attrs *a, const char *name);
/* Deep copy of @src appended into @dst. */
int gt_attrs_copy(struct gt_attrs *dst, const struct gt_attrs *src);
void gt_attrs_release(struct gt_attrs *a);

struct gt_tensor_info {
	char *name;            /* HDF5: absolute path "/step_000100/grad/fc.weight";
				* raw, .npy: the file name without folder and extension,
				* "-" for stdin */
	enum gt_dtype dtype;   /* GT_DT_NONE: a dataset gtool cannot read as floats */
	const char *type_desc; /* with GT_DT_NONE: "int32", "compound", "string", ... */
	unsigned rank;
	uint64_t dims[GT_MAX_RANK];
	uint64_t count;        /* product of dims; GT_COUNT_UNKNOWN for a pipe */
	struct gt_attrs attrs; /* dataset attributes (HDF5, .gtz) */
	size_t same_as;        /* 0, or 1 + the index of the tensor this name is
				* a hard link to (the same data, stored once) */
};

/*
 * What an HDF5 file holds besides float datasets and groups: a dataset of
 * any other type (kept whole), and every link but the first name of an
 * object: a second name (hard link), a soft link, an external link.
 */
enum gt_obj_kind { GT_OBJ_DATASET, GT_OBJ_HARD, GT_OBJ_SOFT, GT_OBJ_EXTERNAL };

struct gt_object {
	enum gt_obj_kind kind;
	char *name;     /* absolute path of the dataset or the link */
	char *target;   /* HARD: the object's first path; SOFT: the link's value;
			 * EXTERNAL: the object's path in the other file */
	char *file;     /* EXTERNAL: the other file's name */
	const char *type_desc; /* DATASET: "i64", "bool", "str", "compound", ... */
	struct gt_blob blob;   /* DATASET: type, shape, bytes */
	struct gt_attrs attrs; /* DATASET: its attributes */
};

void gt_object_release(struct gt_object *o);

/* An HDF5 group: its absolute path ("/" for the root) and attributes.
 * Every group of the file is listed, parents before children. */
struct gt_group_info {
	char *name;
	struct gt_attrs attrs;
};

struct gt_source_opts {
	enum gt_kind kind;     /* GT_KIND_AUTO unless --in-format says */
	enum gt_dtype dtype;   /* raw input: from --dtype; NONE: from the extension.
				* A file that carries its own dtype (.npy,
				* HDF5, .gtz) must agree with it (GT_ERR(INVAL)) */
	int dtype_if_raw;      /* 1: @dtype is only for raw input; another
				* kind keeps its own without a check */
};

struct gt_source;

/*
 * gt_source_open - open @path ("-" is stdin: raw or .npy, read once in order).
 * Lists the tensors without reading their data.  A .npy may be big-endian
 * or in Fortran order: values are read in C order, little-endian (Fortran
 * order: the array is loaded whole at the first read).  An .npz archive
 * (a file, not stdin) lists each member KEY.npy as tensor KEY.
 * @return 0, or GT_ERR(IO) (cannot open/read), GT_ERR(CORRUPT) (not a file
 *	of that kind), GT_ERR(TYPE) (unknown dtype), GT_ERR(INVAL) (raw size not
 *	a multiple of the dtype), GT_ERR(UNSUPPORTED) (a future .npy version,
 *	future .gtz version); @d says which and where.
 */
int gt_source_open(const char *path, const struct gt_source_opts *o,
		   struct gt_source **src_ret, struct gt_diag *d);
void gt_source_free(struct gt_source *s); /* NULL-safe */

enum gt_kind gt_source_kind(const struct gt_source *s);
const char *gt_source_path(const struct gt_source *s);
size_t gt_source_count(const struct gt_source *s);
const struct gt_tensor_info *gt_source_info(const struct gt_source *s, size_t i);
size_t gt_source_ngroups(const struct gt_source *s);
const struct gt_group_info *gt_source_group(const struct gt_source *s, size_t i);
/*
 * The links and non-float datasets of an HDF5 (or .gtz) source, in file
 * order, hard links after the objects they name.  A non-float dataset is
 * also a tensor (dtype GT_DT_NONE); its blob is filled by
 * gt_source_read_object.
 */
size_t gt_source_nobjects(const struct gt_source *s);
const struct gt_object *gt_source_object(const struct gt_source *s, size_t i);
/*
 * gt_source_filters - for an HDF5 source, the filter pipeline of tensor
 * @i: the filters' names joined by '+' into @name ("shuffle+gzip",
 * "gtool", "lzf"; "" when none) and their options into @opts ("level=4",
 * for filter 400 the -c spec it codes with: "tfp:bits=12"; "; " between
 * filters).  Both truncated to their lengths; other kinds: both "".
 * @return 1 when tensor @i has a filter, 0 when not, GT_ERR(IO).
 */
int gt_source_filters(const struct gt_source *s, size_t i, char *name, size_t name_len,
		      char *opts, size_t opts_len);

/*
 * gt_source_read_object - the type, shape and bytes of non-float dataset
 * object @i into @b (caller releases).  @return 0, GT_ERR(INVAL) (not a
 * dataset), GT_ERR(IO) (@d says why: a missing filter, ...), GT_ERR(NOMEM).
 */
int gt_source_read_object(struct gt_source *s, size_t i, struct gt_blob *b,
			  struct gt_diag *d);
/*
 * What the source could not keep exactly (an attribute of a type gtool
 * cannot store, ...): one phrase each, "attribute /g:x is a vlen of
 * compound, which gtool cannot keep".  A writer that promises the file
 * back refuses or warns.
 */
size_t gt_source_nlost(const struct gt_source *s);
const char *gt_source_lost(const struct gt_source *s, size_t i);

/* Index of the tensor named @name (with or without the leading '/'). */
int gt_source_find(const struct gt_source *s, const char *name, size_t *idx_ret);

/*
 * gt_source_read - read values [@first, @first + @n) of tensor @i into @dst,
 * as little-endian values of the tensor's dtype (n * size bytes).
 * *@n_ret is @n except at the end of the data, where it is smaller (and 0
 * past the end).  A stdin source must be read in order: @first must be
 * where the previous read ended.
 * @return 0, GT_ERR(TYPE) for a GT_DT_NONE tensor, GT_ERR(IO),
 *	GT_ERR(INVAL) (a stdin raw stream whose length is not a multiple of
 *	the dtype, an out-of-order read of stdin), GT_ERR(CORRUPT).
 */
int gt_source_read(struct gt_source *s, size_t i, uint64_t first, size_t n,
		   void *dst, size_t *n_ret, struct gt_diag *d);

#endif
