/* hdf5.c - HDF5 files: list groups and datasets, read float datasets, write them */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "gt_h5filter.h"
#include "sink_impl.h"
#include "source_impl.h"
#include "../lib/banned.h"

#define MAX_ATTR_ELEMS (1u << 20) /* larger attributes are skipped */

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

static int supported_attr(hid_t type, hid_t space, H5T_class_t *cls, size_t *n)
{
	const hssize_t np = H5Sget_simple_extent_npoints(space);
	hid_t super;
	int ok;

	*cls = H5Tget_class(type);
	if (np < 0 || (uint64_t)np > MAX_ATTR_ELEMS || H5Sget_simple_extent_ndims(space) > 1)
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

static herr_t attr_cb(hid_t loc, const char *name, const H5A_info_t *ainfo, void *op)
{
	struct gt_attrs *a = op;
	const hid_t aid = H5Aopen(loc, name, H5P_DEFAULT);
	hid_t type = -1, space = -1;
	H5T_class_t cls;
	struct gt_attr *at;
	size_t n = 0;
	int rc = 0;

	(void)ainfo;
	if (aid < 0)
		return 0;
	type = H5Aget_type(aid);
	space = H5Aget_space(aid);
	if (type < 0 || space < 0 || !supported_attr(type, space, &cls, &n))
		goto out;
	rc = attrs_push(a, name, &at);
	if (rc < 0)
		goto out;
	at->n = n;
	rc = cls == H5T_STRING ? read_string(aid, type, at)
			       : read_numbers(aid, type, cls, n, at);
	if (rc == GT_ERR(TYPE)) { /* unreadable: drop it */
		a->n--;
		free(at->name);
		free(at->i);
		free(at->f);
		free(at->s);
		rc = 0;
	}
out:
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	H5Aclose(aid);
	return rc < 0 ? -1 : 0;
}

static int read_attrs(hid_t obj, struct gt_attrs *a, struct gt_diag *d)
{
	if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, attr_cb, a) < 0)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory reading attributes");
	return 0;
}

/* ---- dataset types ---------------------------------------------------- */

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

static enum gt_dtype float_dtype(hid_t type)
{
	size_t spos, epos, esize, mpos, msize;
	const size_t size = H5Tget_size(type);

	if (H5Tget_fields(type, &spos, &epos, &esize, &mpos, &msize) < 0)
		return GT_DT_NONE;
	if (size == 4 && esize == 8 && msize == 23)
		return GT_DT_F32;
	if (size == 8 && esize == 11 && msize == 52)
		return GT_DT_F64;
	if (size == 2 && esize == 5 && msize == 10)
		return GT_DT_F16;
	if (size == 2 && esize == 8 && msize == 7)
		return GT_DT_BF16;
	return GT_DT_NONE;
}

static int is_bf16_tag(hid_t type)
{
	char *tag = H5Tget_tag(type);
	const int yes = tag && !strcmp(tag, "bfloat16");

	if (tag)
		H5free_memory(tag);
	return yes;
}

static enum gt_dtype classify(hid_t type, const struct gt_attrs *attrs, const char **desc)
{
	const H5T_class_t cls = H5Tget_class(type);
	const struct gt_attr *dt = gt_attrs_find(attrs, "dtype");

	*desc = NULL;
	if (cls == H5T_FLOAT) {
		*desc = "float";
		return float_dtype(type);
	}
	if (cls == H5T_INTEGER) {
		*desc = int_desc(type);
		if (H5Tget_size(type) == 2 && dt && dt->type == GT_ATTR_STR &&
		    !strcmp(dt->s, "bfloat16"))
			return GT_DT_BF16;
		return GT_DT_NONE;
	}
	if (cls == H5T_OPAQUE) {
		*desc = "opaque";
		return H5Tget_size(type) == 2 && is_bf16_tag(type) ? GT_DT_BF16 : GT_DT_NONE;
	}
	*desc = cls == H5T_STRING ? "string" : cls == H5T_COMPOUND ? "compound"
	      : cls == H5T_ENUM ? "enum" : cls == H5T_ARRAY ? "array"
	      : cls == H5T_VLEN ? "vlen" : cls == H5T_REFERENCE ? "reference"
	      : cls == H5T_BITFIELD ? "bitfield" : cls == H5T_TIME ? "time" : "unknown";
	return GT_DT_NONE;
}

/* The type to read @ftype into: the same layout, little-endian. */
static hid_t mem_type(hid_t ftype)
{
	const hid_t m = H5Tcopy(ftype);

	if (m >= 0 && H5Tget_class(ftype) != H5T_OPAQUE)
		H5Tset_order(m, H5T_ORDER_LE);
	return m;
}

static int shape_of(hid_t space, struct gt_tensor_info *t, struct gt_diag *d)
{
	const H5S_class_t cls = H5Sget_simple_extent_type(space);
	hsize_t dims[H5S_MAX_RANK];
	int rank;

	t->rank = 0;
	t->count = cls == H5S_SCALAR ? 1 : 0;
	if (cls != H5S_SIMPLE)
		return 0;
	rank = H5Sget_simple_extent_dims(space, dims, NULL);
	if (rank < 0 || rank > GT_MAX_RANK)
		return gt_diag_set(d, GT_ERR(CORRUPT), "dataset %s: bad dataspace", t->name);
	t->rank = (unsigned)rank;
	t->count = 1;
	for (int k = 0; k < rank; k++) {
		t->dims[k] = dims[k];
		if (dims[k] && t->count > (UINT64_MAX / 16) / dims[k])
			return gt_diag_set(d, GT_ERR(OVERFLOW), "dataset %s is too large", t->name);
		t->count *= dims[k];
	}
	return 0;
}

static int dataset_info(hid_t ds, struct gt_tensor_info *t, struct gt_diag *d)
{
	const hid_t type = H5Dget_type(ds);
	const hid_t space = H5Dget_space(ds);
	int rc = 0;

	if (type < 0 || space < 0) {
		rc = gt_diag_set(d, GT_ERR(CORRUPT), "dataset %s: cannot read its type", t->name);
		goto out;
	}
	rc = read_attrs(ds, &t->attrs, d);
	if (rc < 0)
		goto out;
	t->dtype = classify(type, &t->attrs, &t->type_desc);
	rc = shape_of(space, t, d);
out:
	if (type >= 0)
		H5Tclose(type);
	if (space >= 0)
		H5Sclose(space);
	return rc;
}

/* ---- listing ---------------------------------------------------------- */

/*
 * Datasets are read in runs of whole rows (ranges of the first dimension)
 * through hyperslabs, at most SLOT_BYTES at a time, so memory stays
 * bounded whatever the dataset's size.  A few slots, one per dataset,
 * let a caller read a gradient and its parameter and state in lockstep
 * without re-reading.
 */
#define NSLOTS 4
#define SLOT_BYTES ((size_t)16 << 20)

struct slot {
	size_t ds;          /* dataset index + 1; 0: empty */
	uint64_t r0, r1;    /* the rows held */
	unsigned char *buf;
	size_t cap;
	unsigned long used; /* for least-recently-used replacement */
};

struct h5_src {
	hid_t file;
	struct slot slot[NSLOTS];
	unsigned long clock;
};

struct visit {
	struct gt_source *s;
	size_t cap_t, cap_g;
	struct gt_diag *d;
	int rc;
};

static char *abs_name(const char *name)
{
	const size_t len = strlen(name);
	char *p;

	if (!strcmp(name, "."))
		return strdup("/");
	p = malloc(len + 2);
	if (p) {
		p[0] = '/';
		memcpy(p + 1, name, len + 1);
	}
	return p;
}

static int grow(void **v, size_t *cap, size_t n, size_t elem)
{
	void *nv;

	if (n < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 16;
	nv = realloc(*v, *cap * elem);
	if (!nv)
		return GT_ERR(NOMEM);
	memset((char *)nv + n * elem, 0, (*cap - n) * elem);
	*v = nv;
	return 0;
}

static int add_group(struct visit *vi, hid_t obj, const char *name)
{
	struct gt_source *s = vi->s;
	struct gt_group_info *g;
	hid_t gid;
	int rc;

	GT_TRY(grow((void **)&s->groups, &vi->cap_g, s->ngroups, sizeof(*g)));
	g = &s->groups[s->ngroups++];
	g->name = abs_name(name);
	if (!g->name)
		return GT_ERR(NOMEM);
	gid = H5Gopen2(obj, name, H5P_DEFAULT);
	if (gid < 0)
		return gt_diag_set(vi->d, GT_ERR(CORRUPT), "cannot open group %s", g->name);
	rc = read_attrs(gid, &g->attrs, vi->d);
	H5Gclose(gid);
	return rc;
}

static int add_dataset(struct visit *vi, hid_t obj, const char *name)
{
	struct gt_source *s = vi->s;
	struct gt_tensor_info *t;
	hid_t ds;
	int rc;

	GT_TRY(grow((void **)&s->tensors, &vi->cap_t, s->ntensors, sizeof(*t)));
	t = &s->tensors[s->ntensors++];
	t->name = abs_name(name);
	if (!t->name)
		return GT_ERR(NOMEM);
	ds = H5Dopen2(obj, name, H5P_DEFAULT);
	if (ds < 0)
		return gt_diag_set(vi->d, GT_ERR(CORRUPT), "cannot open dataset %s", t->name);
	rc = dataset_info(ds, t, vi->d);
	H5Dclose(ds);
	return rc;
}

static herr_t visit_cb(hid_t obj, const char *name, const H5O_info_t *info, void *op)
{
	struct visit *vi = op;

	if (info->type == H5O_TYPE_GROUP)
		vi->rc = add_group(vi, obj, name);
	else if (info->type == H5O_TYPE_DATASET)
		vi->rc = add_dataset(vi, obj, name);
	if (vi->rc == GT_ERR(NOMEM))
		gt_diag_set(vi->d, vi->rc, "out of memory");
	return vi->rc < 0 ? -1 : 0;
}

/*
 * HDF5 prints its error stack unless told not to, and in a thread-safe
 * build that setting is per thread: every entry point that may run on a
 * worker thread (gtool decompress writes from its workers) says it again.
 */
static void quiet(void)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* ---- source ----------------------------------------------------------- */

/* Values per row: the product of every dimension but the first. */
static uint64_t row_len(const struct gt_tensor_info *t)
{
	uint64_t r = 1;

	for (unsigned k = 1; k < t->rank; k++)
		r *= t->dims[k];
	return r ? r : 1;
}

/* Read rows [r0, r1) of dataset @i into @sl. */
static int load_rows(struct h5_src *h, const struct gt_tensor_info *t, size_t i,
		     struct slot *sl, uint64_t r0, uint64_t r1, struct gt_diag *d)
{
	const size_t size = gt_dtype_size(t->dtype);
	const uint64_t n = t->rank ? (r1 - r0) * row_len(t) : 1;
	hsize_t start[GT_MAX_RANK] = { 0 }, count[GT_MAX_RANK], mdim = n;
	hid_t ds, fspace = -1, mspace = -1, ftype = -1, mtype = -1;
	int rc = 0;

	sl->ds = 0;
	if (n > SIZE_MAX / size)
		return gt_diag_set(d, GT_ERR(OVERFLOW), "dataset %s is too large", t->name);
	if (n * size > sl->cap) {
		unsigned char *p = realloc(sl->buf, n * size);

		if (!p)
			return gt_diag_set(d, GT_ERR(NOMEM), "dataset %s: out of memory", t->name);
		sl->buf = p;
		sl->cap = n * size;
	}
	for (unsigned k = 0; k < t->rank; k++)
		count[k] = t->dims[k];
	start[0] = r0;
	count[0] = r1 - r0;
	ds = H5Dopen2(h->file, t->name, H5P_DEFAULT);
	if (ds >= 0)
		ftype = H5Dget_type(ds);
	if (ftype >= 0)
		mtype = mem_type(ftype);
	if (ds >= 0)
		fspace = H5Dget_space(ds);
	if (fspace >= 0 && t->rank &&
	    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL) < 0)
		rc = -1;
	mspace = H5Screate_simple(1, &mdim, NULL);
	if (rc < 0 || mtype < 0 || fspace < 0 || mspace < 0 ||
	    H5Dread(ds, mtype, t->rank ? mspace : H5S_ALL, t->rank ? fspace : H5S_ALL,
		    H5P_DEFAULT, sl->buf) < 0)
		rc = gt_diag_set(d, GT_ERR(IO), "dataset %s: read failed", t->name);
	if (mspace >= 0)
		H5Sclose(mspace);
	if (fspace >= 0)
		H5Sclose(fspace);
	if (mtype >= 0)
		H5Tclose(mtype);
	if (ftype >= 0)
		H5Tclose(ftype);
	if (ds >= 0)
		H5Dclose(ds);
	if (rc >= 0) {
		sl->ds = i + 1;
		sl->r0 = r0;
		sl->r1 = r1;
	}
	return rc;
}

/* The slot holding value @at of dataset @i, loading it when needed. */
static int slot_for(struct gt_source *s, size_t i, uint64_t at, struct slot **ret,
		    struct gt_diag *d)
{
	struct h5_src *h = s->priv;
	const struct gt_tensor_info *t = &s->tensors[i];
	const uint64_t row = row_len(t), rows = t->rank ? t->dims[0] : 1;
	const uint64_t want = SLOT_BYTES / gt_dtype_size(t->dtype) / row;
	const uint64_t r = at / row;
	struct slot *victim = &h->slot[0];

	for (int k = 0; k < NSLOTS; k++) {
		struct slot *sl = &h->slot[k];

		if (sl->ds == i + 1 && r >= sl->r0 && r < sl->r1) {
			sl->used = ++h->clock;
			*ret = sl;
			return 0;
		}
		if (sl->used < victim->used)
			victim = sl;
	}
	victim->used = ++h->clock;
	*ret = victim;
	return load_rows(h, t, i, victim, r, r + (want ? want : 1) < rows
			 ? r + (want ? want : 1) : rows, d);
}

static int h5_read(struct gt_source *s, size_t i, uint64_t first, size_t n,
		   void *dst, size_t *n_ret, struct gt_diag *d)
{
	const struct gt_tensor_info *t = &s->tensors[i];
	const size_t size = gt_dtype_size(t->dtype);
	const uint64_t row = row_len(t);
	size_t done = 0;

	quiet();
	*n_ret = 0;
	if (first >= t->count)
		return 0;
	if (n > t->count - first)
		n = (size_t)(t->count - first);
	while (done < n) {
		const uint64_t at = first + done;
		struct slot *sl;
		uint64_t off, avail;

		GT_TRY(slot_for(s, i, at, &sl, d));
		off = at - sl->r0 * row;
		avail = (t->rank ? (sl->r1 - sl->r0) * row : 1) - off;
		if (avail > n - done)
			avail = n - done;
		memcpy((unsigned char *)dst + done * size, sl->buf + off * size, avail * size);
		done += avail;
	}
	*n_ret = n;
	return 0;
}

static void h5_close(struct gt_source *s)
{
	struct h5_src *h = s->priv;

	if (!h)
		return;
	if (h->file >= 0)
		H5Fclose(h->file);
	for (int k = 0; k < NSLOTS; k++)
		free(h->slot[k].buf);
	free(h);
	s->priv = NULL;
}

static const struct gt_source_ops h5_ops = { h5_read, h5_close };

int gt_hdf5_source_open(struct gt_source *s, struct gt_diag *d)
{
	struct h5_src *h = calloc(1, sizeof(*h));
	struct visit vi = { .s = s, .d = d };

	if (!h)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	s->priv = h;
	s->ops = &h5_ops;
	(void)gt_h5filter_register(); /* reads filter-400 datasets without the plugin path */
	h->file = H5Fopen(s->path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (h->file < 0)
		return gt_diag_set(d, GT_ERR(CORRUPT), "not an HDF5 file");
	if (H5Ovisit2(h->file, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &vi,
		      H5O_INFO_BASIC) < 0) {
		if (vi.rc < 0)
			return vi.rc;
		return gt_diag_set(d, GT_ERR(CORRUPT), "cannot list the file's objects");
	}
	return 0;
}

/* ---- attributes: writing ---------------------------------------------- */

static hid_t str_type(void)
{
	const hid_t t = H5Tcopy(H5T_C_S1);

	if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
		H5Tclose(t);
		return -1;
	}
	return t;
}

static int write_attr(hid_t obj, const struct gt_attr *a)
{
	const hsize_t n = a->n;
	const hid_t space = a->type == GT_ATTR_STR || n == 1 ? H5Screate(H5S_SCALAR)
			  : n == 0 ? H5Screate(H5S_NULL) : H5Screate_simple(1, &n, NULL);
	const hid_t ftype = a->type == GT_ATTR_INT ? H5Tcopy(H5T_STD_I64LE)
			  : a->type == GT_ATTR_FLOAT ? H5Tcopy(H5T_IEEE_F64LE) : str_type();
	hid_t aid = -1;
	herr_t e = -1;

	if (H5Aexists(obj, a->name) > 0)
		H5Adelete(obj, a->name);
	if (space >= 0 && ftype >= 0)
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

static int write_attrs(hid_t obj, const struct gt_attrs *attrs, const char *where,
		       struct gt_diag *d)
{
	for (size_t i = 0; i < attrs->n; i++)
		if (write_attr(obj, &attrs->v[i]) < 0)
			return gt_diag_set(d, GT_ERR(IO), "%s: cannot write attribute %s",
					   where, attrs->v[i].name);
	return 0;
}

/* ---- sink ------------------------------------------------------------- */

struct h5_sink {
	hid_t file;
	unsigned char *buf; /* the current tensor, written whole at its end */
	size_t cap;         /* bytes of buf: grown as values come, never to
			     * the count a header claims before they do */
};

static int h5_sink_open(struct gt_sink *s, struct gt_diag *d)
{
	struct h5_sink *h = calloc(1, sizeof(*h));
	hid_t fapl = H5P_DEFAULT;

	if (!h)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	s->priv = h;
	if (s->to_stdout) {
		/* in memory; the image goes to stdout on commit */
		fapl = H5Pcreate(H5P_FILE_ACCESS);
		if (fapl < 0 || H5Pset_fapl_core(fapl, 1 << 20, 0) < 0)
			return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	h->file = H5Fcreate(s->to_stdout ? "stdout.h5" : s->tmp, H5F_ACC_TRUNC,
			    H5P_DEFAULT, fapl);
	if (fapl != H5P_DEFAULT)
		H5Pclose(fapl);
	if (h->file < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot create an HDF5 file");
	return 0;
}

static hid_t intermediate_lcpl(void)
{
	const hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);

	if (lcpl >= 0)
		H5Pset_create_intermediate_group(lcpl, 1);
	return lcpl;
}

static int h5_sink_group(struct gt_sink *s, const struct gt_group_info *g,
			 struct gt_diag *d)
{
	const struct h5_sink *h = s->priv;
	hid_t gid, lcpl;
	int rc;

	quiet();
	gid = H5Gopen2(h->file, g->name, H5P_DEFAULT);
	if (gid < 0) {
		lcpl = intermediate_lcpl();
		gid = H5Gcreate2(h->file, g->name, lcpl, H5P_DEFAULT, H5P_DEFAULT);
		H5Pclose(lcpl);
	}
	if (gid < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot create group %s", g->name);
	rc = write_attrs(gid, &g->attrs, g->name, d);
	H5Gclose(gid);
	return rc;
}

static int h5_sink_begin(struct gt_sink *s, struct gt_diag *d)
{
	struct h5_sink *h = s->priv;
	const struct gt_tensor_info *t = &s->info;
	const size_t size = gt_dtype_size(t->dtype);
	uint64_t count = 1;

	quiet();
	if (t->count == GT_COUNT_UNKNOWN)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: HDF5 needs the count up front", t->name);
	for (unsigned k = 0; k < t->rank; k++)
		count = t->dims[k] && count > UINT64_MAX / t->dims[k] ? 0 : count * t->dims[k];
	if (count != t->count)
		return gt_diag_set(d, GT_ERR(INVAL), "tensor %s: shape and count disagree", t->name);
	if (t->count > SIZE_MAX / size)
		return gt_diag_set(d, GT_ERR(OVERFLOW), "tensor %s is too large", t->name);
	(void)h;
	return 0;
}

static int h5_sink_write(struct gt_sink *s, const void *src, size_t n,
			 struct gt_diag *d)
{
	struct h5_sink *h = s->priv;
	const size_t size = gt_dtype_size(s->info.dtype);
	const size_t need = (size_t)(s->written + n) * size;

	if (need > h->cap) {
		size_t cap = h->cap > SIZE_MAX / 2 ? need : 2 * h->cap;
		unsigned char *p;

		if (cap < need)
			cap = need;
		if (cap > s->info.count * size)
			cap = need > s->info.count * size ? need : (size_t)(s->info.count * size);
		p = realloc(h->buf, cap);
		if (!p)
			return gt_diag_set(d, GT_ERR(NOMEM), "tensor %s: out of memory",
					   s->info.name);
		h->buf = p;
		h->cap = cap;
	}
	memcpy(h->buf + s->written * size, src, n * size);
	return 0;
}

/* The file type of @dt: h5py's float16 layout for f16, uint16 for bf16. */
static hid_t file_type(enum gt_dtype dt)
{
	hid_t t = -1;

	switch (dt) {
	case GT_DT_F32: return H5Tcopy(H5T_IEEE_F32LE);
	case GT_DT_F64: return H5Tcopy(H5T_IEEE_F64LE);
	case GT_DT_BF16: return H5Tcopy(H5T_STD_U16LE);
	case GT_DT_F16:
		t = H5Tcopy(H5T_IEEE_F32LE);
		if (t >= 0 && (H5Tset_fields(t, 15, 10, 5, 0, 10) < 0 ||
			       H5Tset_size(t, 2) < 0 || H5Tset_ebias(t, 15) < 0)) {
			H5Tclose(t);
			t = -1;
		}
		return t;
	case GT_DT_NONE: break;
	}
	return -1;
}

static hid_t tensor_space(const struct gt_tensor_info *t)
{
	hsize_t dims[GT_MAX_RANK];

	if (!t->rank)
		return H5Screate(t->count ? H5S_SCALAR : H5S_NULL);
	for (unsigned k = 0; k < t->rank; k++)
		dims[k] = t->dims[k];
	return H5Screate_simple((int)t->rank, dims, NULL);
}

static int write_dataset(struct gt_sink *s, hid_t ds, hid_t ftype, struct gt_diag *d)
{
	char name[] = "dtype", value[] = "bfloat16";
	const struct gt_attr bf16_attr = { .name = name, .type = GT_ATTR_STR,
					   .n = 8, .s = value };
	const struct h5_sink *h = s->priv;
	const struct gt_tensor_info *t = &s->info;

	if (t->count && H5Dwrite(ds, ftype, H5S_ALL, H5S_ALL, H5P_DEFAULT, h->buf) < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot write dataset %s", t->name);
	GT_TRY(write_attrs(ds, &t->attrs, t->name, d));
	if (t->dtype == GT_DT_BF16 && write_attr(ds, &bf16_attr) < 0)
		return gt_diag_set(d, GT_ERR(IO), "%s: cannot write attribute dtype", t->name);
	return 0;
}

static int h5_sink_end(struct gt_sink *s, struct gt_diag *d)
{
	struct h5_sink *h = s->priv;
	const hid_t ftype = file_type(s->info.dtype);
	const hid_t space = tensor_space(&s->info);
	const hid_t lcpl = intermediate_lcpl();
	hid_t ds = -1;
	int rc;

	quiet();
	if (ftype >= 0 && space >= 0 && lcpl >= 0)
		ds = H5Dcreate2(h->file, s->info.name, ftype, space, lcpl, H5P_DEFAULT,
				H5P_DEFAULT);
	rc = ds < 0 ? gt_diag_set(d, GT_ERR(IO), "cannot create dataset %s", s->info.name)
		    : write_dataset(s, ds, ftype, d);
	if (ds >= 0)
		H5Dclose(ds);
	if (lcpl >= 0)
		H5Pclose(lcpl);
	if (space >= 0)
		H5Sclose(space);
	if (ftype >= 0)
		H5Tclose(ftype);
	free(h->buf);
	h->buf = NULL;
	h->cap = 0;
	return rc;
}

/* The in-memory file's image, to stdout. */
static int image_to_stdout(hid_t file, struct gt_diag *d)
{
	ssize_t len;
	void *img;
	int rc = 0;

	if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot flush the HDF5 file");
	len = H5Fget_file_image(file, NULL, 0);
	if (len < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot get the HDF5 file image");
	img = malloc(len ? (size_t)len : 1);
	if (!img)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	if (H5Fget_file_image(file, img, (size_t)len) != len)
		rc = gt_diag_set(d, GT_ERR(IO), "cannot get the HDF5 file image");
	else if (fwrite(img, 1, (size_t)len, stdout) != (size_t)len || fflush(stdout))
		rc = gt_diag_set(d, GT_ERR(IO), "write error on standard output");
	free(img);
	return rc;
}

static int h5_sink_commit(struct gt_sink *s, struct gt_diag *d)
{
	struct h5_sink *h = s->priv;
	const hid_t file = h->file;

	quiet();
	if (s->to_stdout)
		GT_TRY(image_to_stdout(file, d));
	h->file = -1;
	if (H5Fclose(file) < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot close the HDF5 file");
	return 0;
}

static void h5_sink_close(struct gt_sink *s)
{
	struct h5_sink *h = s->priv;

	quiet();
	if (!h)
		return;
	if (h->file >= 0)
		H5Fclose(h->file);
	free(h->buf);
	free(h);
	s->priv = NULL;
}

const struct gt_sink_ops gt_hdf5_sink_ops = {
	.open = h5_sink_open,
	.group = h5_sink_group,
	.begin = h5_sink_begin,
	.write = h5_sink_write,
	.end = h5_sink_end,
	.commit = h5_sink_commit,
	.close = h5_sink_close,
};
