/* h5obj.c - HDF5 attributes and non-float datasets, kept byte for byte */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gt_bytes.h"
#include "h5obj_impl.h"
#include "../lib/banned.h"

#define VIEW_MAX (1u << 20)        /* elements of an attribute's simple view */
#define ATTR_BYTES_MAX (8u << 20)  /* an attribute's bytes: half a .gtz record */

/* ---- what can be kept ------------------------------------------------- */

const char *gt_h5_unkeepable(hid_t type)
{
	const H5T_class_t cls = H5Tget_class(type);
	const char *why = NULL;
	hid_t sub;
	int n;

	switch (cls) {
	case H5T_REFERENCE: return "a reference";
	case H5T_VLEN: return "a variable-length sequence";
	case H5T_COMPOUND:
		n = H5Tget_nmembers(type);
		for (int k = 0; k < n && !why; k++) {
			sub = H5Tget_member_type(type, (unsigned)k);
			why = sub < 0 ? "an unreadable compound" : gt_h5_unkeepable(sub);
			if (!why && H5Tis_variable_str(sub) > 0)
				why = "a compound holding a variable-length string";
			if (sub >= 0)
				H5Tclose(sub);
		}
		return why;
	case H5T_ARRAY:
		sub = H5Tget_super(type);
		why = sub < 0 ? "an unreadable array" : gt_h5_unkeepable(sub);
		if (!why && H5Tis_variable_str(sub) > 0)
			why = "an array of variable-length strings";
		if (sub >= 0)
			H5Tclose(sub);
		return why;
	case H5T_INTEGER: case H5T_FLOAT: case H5T_STRING: case H5T_BITFIELD:
	case H5T_OPAQUE: case H5T_ENUM:
		return NULL;
	case H5T_TIME: case H5T_NO_CLASS: case H5T_NCLASSES: break;
	}
	return "of an HDF5 type class gtool does not know";
}

static const char *int_desc(hid_t type)
{
	static const char *const sgn[] = { "int8", "int16", "int32", "int64" };
	static const char *const uns[] = { "uint8", "uint16", "uint32", "uint64" };
	const size_t size = H5Tget_size(type);
	const int k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;

	if (k < 0)
		return "integer";
	return H5Tget_sign(type) == H5T_SGN_NONE ? uns[k] : sgn[k];
}

/* h5py's bool: an enum of int8 with FALSE = 0 and TRUE = 1. */
static int is_bool(hid_t type)
{
	char name[8];
	signed char v = 1;

	return H5Tget_nmembers(type) == 2 && H5Tget_size(type) == 1 &&
	       H5Tenum_nameof(type, &v, name, sizeof(name)) >= 0 && !strcmp(name, "TRUE");
}

const char *gt_h5_type_desc(hid_t type)
{
	switch (H5Tget_class(type)) {
	case H5T_INTEGER: return int_desc(type);
	case H5T_FLOAT: return "float";
	case H5T_STRING: return "string";
	case H5T_COMPOUND: return "compound";
	case H5T_ENUM: return is_bool(type) ? "bool" : "enum";
	case H5T_ARRAY: return "array";
	case H5T_VLEN: return "vlen";
	case H5T_REFERENCE: return "reference";
	case H5T_BITFIELD: return "bitfield";
	case H5T_OPAQUE: return "opaque";
	case H5T_TIME: return "time";
	case H5T_NO_CLASS: case H5T_NCLASSES: break;
	}
	return "unknown";
}

/* ---- blobs: reading --------------------------------------------------- */

static int encode_type(hid_t type, struct gt_blob *b)
{
	size_t n = 0;

	if (H5Tencode(type, NULL, &n) < 0 || !n || n > (1u << 16))
		return GT_ERR(TYPE);
	b->type = malloc(n);
	if (!b->type)
		return GT_ERR(NOMEM);
	if (H5Tencode(type, b->type, &n) < 0)
		return GT_ERR(TYPE);
	b->type_len = n;
	return 0;
}

static int blob_space(hid_t space, struct gt_blob *b, size_t *np)
{
	const H5S_class_t cls = H5Sget_simple_extent_type(space);
	hsize_t dims[H5S_MAX_RANK];
	hssize_t n;
	int rank;

	*np = cls == H5S_SCALAR;
	b->space = cls == H5S_NULL ? GT_SPACE_NULL : GT_SPACE_SCALAR;
	if (cls == H5S_NULL || cls == H5S_SCALAR)
		return 0;
	rank = H5Sget_simple_extent_dims(space, dims, NULL);
	n = H5Sget_simple_extent_npoints(space);
	if (cls != H5S_SIMPLE || rank < 1 || rank > GT_MAX_RANK || n < 0)
		return GT_ERR(TYPE);
	b->space = GT_SPACE_SIMPLE;
	b->rank = (unsigned)rank;
	for (int k = 0; k < rank; k++)
		b->dims[k] = dims[k];
	*np = (size_t)n;
	return 0;
}

/* Variable-length strings: varint (length + 1, 0 for none), then bytes. */
static int pack_strings(char *const *v, size_t np, struct gt_blob *b)
{
	struct gt_buf o = { 0 };

	for (size_t k = 0; k < np; k++) {
		const size_t len = v[k] ? strlen(v[k]) : 0;

		gt_buf_uv(&o, v[k] ? len + 1 : 0);
		gt_buf_put(&o, v[k], len);
	}
	if (o.err) {
		gt_buf_release(&o);
		return GT_ERR(NOMEM);
	}
	b->data = o.p ? o.p : malloc(1);
	b->data_len = o.len;
	return b->data ? 0 : GT_ERR(NOMEM);
}

static herr_t read_any(hid_t obj, int is_ds, hid_t mtype, void *buf)
{
	if (is_ds)
		return H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
	return H5Aread(obj, mtype, buf);
}

/*
 * The bytes of attribute or dataset @obj, read with its own file type as
 * the memory type (no conversion: the bytes as the file holds them).
 */
static int blob_read(hid_t obj, int is_ds, hid_t type, hid_t space,
		     size_t max, struct gt_blob *b)
{
	size_t np, size;
	void *buf;
	int rc;

	GT_TRY(encode_type(type, b));
	GT_TRY(blob_space(space, b, &np));
	b->vlen_str = H5Tis_variable_str(type) > 0;
	size = b->vlen_str ? sizeof(char *) : H5Tget_size(type);
	if (!size || np > max / size)
		return GT_ERR(OVERFLOW);
	buf = calloc(np ? np : 1, size);
	if (!buf)
		return GT_ERR(NOMEM);
	rc = np && read_any(obj, is_ds, type, buf) < 0 ? GT_ERR(IO) : 0;
	if (rc >= 0 && b->vlen_str) {
		rc = pack_strings(buf, np, b);
		H5Dvlen_reclaim(type, space, H5P_DEFAULT, buf);
		free(buf);
	} else if (rc >= 0) {
		b->data = buf;
		b->data_len = np * size;
	} else {
		free(buf);
	}
	return rc;
}

int gt_h5_read_error(hid_t ds, const char *name, struct gt_diag *d)
{
	static const struct { int id; const char *name; } known[] = {
		{ 307, "bzip2" }, { 32000, "lzf" }, { 32001, "blosc" },
		{ 32004, "lz4" }, { 32008, "bitshuffle" }, { 32015, "zstd" },
		{ 32017, "sz" }, { 32026, "blosc2" },
	};
	const hid_t dcpl = H5Dget_create_plist(ds);
	const int n = dcpl < 0 ? 0 : H5Pget_nfilters(dcpl);
	int rc = GT_ERR(IO), found = 0;

	for (int k = 0; k < n && !found; k++) {
		char fname[64] = "";
		unsigned flags = 0;
		size_t nelm = 0;
		const H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)k, &flags, &nelm,
						       NULL, sizeof(fname), fname, NULL);
		const char *label = *fname ? fname : "unknown";

		if (id < 0 || H5Zfilter_avail(id) > 0)
			continue;
		for (size_t j = 0; j < sizeof(known) / sizeof(known[0]); j++)
			if (known[j].id == id)
				label = known[j].name;
		found = 1;
		gt_diag_set(d, rc, "dataset %s uses HDF5 filter %d (%s), which is not "
			    "available: set HDF5_PLUGIN_PATH", name, (int)id, label);
	}
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return found ? rc : gt_diag_set(d, rc, "dataset %s: read failed", name);
}

int gt_h5_read_dataset_blob(hid_t ds, const char *name, struct gt_blob *b,
			    struct gt_diag *d)
{
	const hid_t type = H5Dget_type(ds);
	const hid_t space = H5Dget_space(ds);
	int rc = type < 0 || space < 0 ? GT_ERR(IO)
		: blob_read(ds, 1, type, space, SIZE_MAX / 2, b);

	if (rc == GT_ERR(IO))
		rc = gt_h5_read_error(ds, name, d);
	else if (rc == GT_ERR(NOMEM) || rc == GT_ERR(OVERFLOW))
		rc = gt_diag_set(d, rc, "dataset %s: out of memory", name);
	else if (rc < 0)
		rc = gt_diag_set(d, rc, "dataset %s: cannot encode its type", name);
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	return rc;
}

/* ---- attributes: reading ---------------------------------------------- */

static int attrs_push(struct gt_attrs *a, const char *name, struct gt_attr **ret)
{
	struct gt_attr *v = realloc(a->v, (a->n + 1) * sizeof(*v));

	if (!v)
		return GT_ERR(NOMEM);
	a->v = v;
	memset(&v[a->n], 0, sizeof(v[a->n]));
	v[a->n].name = strdup(name);
	if (!v[a->n].name)
		return GT_ERR(NOMEM);
	*ret = &v[a->n++];
	return 0;
}

/* Integers, floats and h5py booleans (an enum over int8): n values. */
static int read_numbers(hid_t aid, hid_t type, H5T_class_t cls, size_t n,
			struct gt_attr *at)
{
	if (cls == H5T_FLOAT) {
		at->type = GT_ATTR_FLOAT;
		at->f = calloc(n ? n : 1, sizeof(*at->f));
		if (!at->f)
			return GT_ERR(NOMEM);
		return H5Aread(aid, H5T_NATIVE_DOUBLE, at->f) < 0 ? GT_ERR(TYPE) : 0;
	}
	at->type = GT_ATTR_INT;
	at->i = calloc(n ? n : 1, sizeof(*at->i));
	if (!at->i)
		return GT_ERR(NOMEM);
	if (cls == H5T_INTEGER)
		return H5Aread(aid, H5T_NATIVE_INT64, at->i) < 0 ? GT_ERR(TYPE) : 0;
	if (H5Tget_size(type) != 1)
		return GT_ERR(TYPE);
	/* an enum of int8: read the bytes as they are, then widen */
	if (H5Aread(aid, type, at->i) < 0)
		return GT_ERR(TYPE);
	for (size_t k = n; k-- > 0;)
		at->i[k] = ((const signed char *)at->i)[k];
	return 0;
}

static int read_string(hid_t aid, hid_t type, struct gt_attr *at)
{
	const size_t size = H5Tget_size(type);
	char *vs = NULL;

	at->type = GT_ATTR_STR;
	if (H5Tis_variable_str(type) > 0) {
		if (H5Aread(aid, type, &vs) < 0 || !vs)
			return GT_ERR(TYPE);
		at->s = strdup(vs);
		H5free_memory(vs);
	} else {
		at->s = calloc(size + 1, 1);
		if (at->s && H5Aread(aid, type, at->s) < 0)
			return GT_ERR(TYPE);
	}
	if (!at->s)
		return GT_ERR(NOMEM);
	at->n = strlen(at->s);
	if (H5Tget_strpad(type) == H5T_STR_SPACEPAD)
		while (at->n && at->s[at->n - 1] == ' ')
			at->s[--at->n] = '\0';
	return 0;
}

/* Whether the attribute has a simple view: numbers, or one string. */
static int has_view(hid_t type, hid_t space, H5T_class_t *cls, size_t *n)
{
	const hssize_t np = H5Sget_simple_extent_npoints(space);
	hid_t super;
	int ok;

	*cls = H5Tget_class(type);
	if (np < 0 || (uint64_t)np > VIEW_MAX || H5Sget_simple_extent_ndims(space) > 1 ||
	    H5Sget_simple_extent_type(space) == H5S_NULL)
		return 0;
	*n = (size_t)np;
	if (*cls == H5T_INTEGER || *cls == H5T_FLOAT)
		return 1;
	if (*cls == H5T_STRING)
		return np == 1;
	if (*cls != H5T_ENUM)
		return 0;
	super = H5Tget_super(type);
	ok = super >= 0 && H5Tget_class(super) == H5T_INTEGER && H5Tget_size(super) == 1;
	if (super >= 0)
		H5Tclose(super);
	return ok;
}

/* The simple view of @at; an attribute without one is GT_ATTR_NONE. */
static int read_view(hid_t aid, hid_t type, hid_t space, struct gt_attr *at)
{
	H5T_class_t cls;
	size_t n = 0;
	int rc;

	at->type = GT_ATTR_NONE;
	if (!has_view(type, space, &cls, &n))
		return 0;
	at->n = n;
	rc = cls == H5T_STRING ? read_string(aid, type, at)
			       : read_numbers(aid, type, cls, n, at);
	if (rc == GT_ERR(TYPE)) { /* no view: the blob keeps it */
		free(at->i);
		free(at->f);
		free(at->s);
		at->i = NULL;
		at->f = NULL;
		at->s = NULL;
		at->n = 0;
		at->type = GT_ATTR_NONE;
		rc = 0;
	}
	return rc;
}

static int read_one_attr(hid_t aid, const char *name, struct h5_attr_ctx *x)
{
	const hid_t type = H5Aget_type(aid);
	const hid_t space = H5Aget_space(aid);
	const char *why = type < 0 ? "unreadable" : gt_h5_unkeepable(type);
	struct gt_attr *at;
	int rc = space < 0 ? GT_ERR(TYPE) : 0;

	if (why || rc < 0) {
		rc = gt_source_add_lost(x->s, "attribute %s of %s is %s, which gtool "
					"cannot keep", name, x->where, why ? why : "unreadable");
		goto out;
	}
	rc = attrs_push(x->a, name, &at);
	if (rc >= 0)
		rc = read_view(aid, type, space, at);
	if (rc >= 0)
		at->raw = calloc(1, sizeof(*at->raw));
	rc = rc < 0 ? rc : at->raw ? blob_read(aid, 0, type, space, ATTR_BYTES_MAX, at->raw)
				   : GT_ERR(NOMEM);
	if (rc < 0 && rc != GT_ERR(NOMEM)) {
		gt_attr_release(at);
		x->a->n--;
		rc = gt_source_add_lost(x->s, "attribute %s of %s cannot be read (%s)",
					name, x->where, gt_strerror(rc));
	}
out:
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	return rc;
}

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *ainfo, void *op)
{
	struct h5_attr_ctx *x = op;
	const hid_t aid = H5Aopen(loc, name, H5P_DEFAULT);

	(void)ainfo;
	if (aid < 0) {
		x->rc = gt_source_add_lost(x->s, "attribute %s of %s cannot be opened",
					   name, x->where);
		return x->rc < 0 ? -1 : 0;
	}
	x->rc = read_one_attr(aid, name, x);
	H5Aclose(aid);
	return x->rc < 0 ? -1 : 0;
}

int gt_h5_read_attrs(hid_t obj, struct h5_attr_ctx *x, struct gt_diag *d)
{
	x->rc = 0;
	if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, x) < 0 || x->rc < 0)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory reading attributes");
	return 0;
}

/* ---- blobs: writing --------------------------------------------------- */

static hid_t blob_space_id(const struct gt_blob *b)
{
	hsize_t dims[GT_MAX_RANK];

	if (b->space == GT_SPACE_NULL)
		return H5Screate(H5S_NULL);
	if (b->space == GT_SPACE_SCALAR)
		return H5Screate(H5S_SCALAR);
	for (unsigned k = 0; k < b->rank; k++)
		dims[k] = b->dims[k];
	return H5Screate_simple((int)b->rank, dims, NULL);
}

/* The blob's strings as NUL-terminated copies: @ptrs (np pointers) into @store. */
static int unpack_strings(const struct gt_blob *b, size_t np, char ***ptrs, char **store)
{
	struct gt_cur c = { b->data, b->data + b->data_len, 0 };
	char *s = malloc(b->data_len + np + 1);
	char **v = calloc(np ? np : 1, sizeof(*v));
	size_t at = 0;

	*ptrs = v;
	*store = s;
	if (!s || !v)
		return GT_ERR(NOMEM);
	for (size_t k = 0; k < np; k++) {
		const uint64_t l = gt_cur_uv(&c);
		const unsigned char *p = l ? gt_cur_bytes(&c, (size_t)(l - 1)) : NULL;

		if (c.err || (l && !p) || l > b->data_len + 1)
			return GT_ERR(CORRUPT);
		if (!l)
			continue;
		v[k] = s + at;
		memcpy(s + at, p, (size_t)(l - 1));
		at += (size_t)(l - 1);
		s[at++] = 0;
	}
	return c.p == c.end ? 0 : GT_ERR(CORRUPT);
}

static uint64_t blob_points(const struct gt_blob *b)
{
	uint64_t n = b->space == GT_SPACE_SCALAR;

	if (b->space != GT_SPACE_SIMPLE)
		return n;
	n = 1;
	for (unsigned k = 0; k < b->rank; k++)
		n = b->dims[k] && n > UINT64_MAX / b->dims[k] ? UINT64_MAX : n * b->dims[k];
	return n;
}

/* The buffer to write for @b: its data, or pointers to its strings. */
static int blob_buffer(const struct gt_blob *b, hid_t type, const void **buf,
		       char ***ptrs, char **store)
{
	const uint64_t np = blob_points(b);

	*ptrs = NULL;
	*store = NULL;
	*buf = b->data;
	/* a type whose elements hold pointers (a vlen sequence) or addresses
	 * is never written from bytes: a hostile file could name any memory */
	if ((H5Tis_variable_str(type) > 0) != !!b->vlen_str || gt_h5_unkeepable(type))
		return GT_ERR(CORRUPT);
	if (b->vlen_str) {
		if (np > b->data_len)
			return GT_ERR(CORRUPT);
		GT_TRY(unpack_strings(b, (size_t)np, ptrs, store));
		*buf = *ptrs;
		return 0;
	}
	if (!H5Tget_size(type) || np > SIZE_MAX / H5Tget_size(type) ||
	    np * H5Tget_size(type) != b->data_len)
		return GT_ERR(CORRUPT);
	return 0;
}

static int write_blob_attr(hid_t obj, const char *name, const struct gt_blob *b)
{
	const hid_t type = H5Tdecode(b->type);
	const hid_t space = blob_space_id(b);
	char **ptrs = NULL, *store = NULL;
	const void *buf = NULL;
	hid_t aid = -1;
	int rc = type < 0 || space < 0 ? GT_ERR(CORRUPT) : 0;

	if (rc >= 0)
		rc = blob_buffer(b, type, &buf, &ptrs, &store);
	if (rc >= 0) {
		if (H5Aexists(obj, name) > 0)
			H5Adelete(obj, name);
		aid = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
	}
	if (rc >= 0 && (aid < 0 || (blob_points(b) && H5Awrite(aid, type, buf) < 0)))
		rc = GT_ERR(IO);
	if (aid >= 0)
		H5Aclose(aid);
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	free(ptrs);
	free(store);
	return rc;
}

static hid_t str_type(void)
{
	const hid_t t = H5Tcopy(H5T_C_S1);

	if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

/* An attribute from its simple view (a .gtz of format 1.0 has no blobs). */
static int write_view_attr(hid_t obj, const struct gt_attr *a)
{
	const hsize_t n = a->n;
	const hid_t space = a->type == GT_ATTR_STR || n == 1 ? H5Screate(H5S_SCALAR)
			  : n == 0 ? H5Screate(H5S_NULL) : H5Screate_simple(1, &n, NULL);
	const hid_t ftype = a->type == GT_ATTR_INT ? H5Tcopy(H5T_STD_I64LE)
			  : a->type == GT_ATTR_FLOAT ? H5Tcopy(H5T_IEEE_F64LE) : str_type();
	hid_t aid = -1;
	herr_t e = -1;

	if (a->type == GT_ATTR_NONE)
		e = 0;
	else if (H5Aexists(obj, a->name) > 0)
		H5Adelete(obj, a->name);
	if (a->type != GT_ATTR_NONE && space >= 0 && ftype >= 0)
		aid = H5Acreate2(obj, a->name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
	if (aid >= 0 && n == 0 && a->type != GT_ATTR_STR)
		e = 0;
	else if (aid >= 0)
		e = a->type == GT_ATTR_INT ? H5Awrite(aid, H5T_NATIVE_INT64, a->i)
		  : a->type == GT_ATTR_FLOAT ? H5Awrite(aid, H5T_NATIVE_DOUBLE, a->f)
		  : H5Awrite(aid, ftype, &a->s);
	if (aid >= 0)
		H5Aclose(aid);
	if (ftype >= 0)
		H5Tclose(ftype);
	if (space >= 0)
		H5Sclose(space);
	return e < 0 ? GT_ERR(IO) : 0;
}

int gt_h5_write_attr(hid_t obj, const struct gt_attr *a)
{
	return a->raw ? write_blob_attr(obj, a->name, a->raw) : write_view_attr(obj, a);
}

int gt_h5_write_object(hid_t file, const struct gt_object *o, hid_t dcpl, hid_t lcpl,
		       struct gt_diag *d)
{
	const struct gt_blob *b = &o->blob;
	const hid_t type = H5Tdecode(b->type);
	const hid_t space = blob_space_id(b);
	char **ptrs = NULL, *store = NULL;
	const void *buf = NULL;
	hid_t ds = -1;
	int rc = type < 0 || space < 0 ? GT_ERR(CORRUPT) : 0;

	if (rc >= 0)
		rc = blob_buffer(b, type, &buf, &ptrs, &store);
	if (rc < 0)
		rc = gt_diag_set(d, rc, "dataset %s: its stored type or bytes are bad", o->name);
	if (rc >= 0)
		ds = H5Dcreate2(file, o->name, type, space, lcpl, dcpl, H5P_DEFAULT);
	if (rc >= 0 && (ds < 0 || (blob_points(b) &&
	    H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)))
		rc = gt_diag_set(d, GT_ERR(IO), "cannot write dataset %s", o->name);
	for (size_t i = 0; rc >= 0 && i < o->attrs.n; i++)
		if (gt_h5_write_attr(ds, &o->attrs.v[i]) < 0)
			rc = gt_diag_set(d, GT_ERR(IO), "%s: cannot write attribute %s",
					 o->name, o->attrs.v[i].name);
	if (ds >= 0)
		H5Dclose(ds);
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	free(ptrs);
	free(store);
	return rc;
}
