/* hdf5.c - HDF5 files: list groups and datasets, read float datasets, write them */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "gt_h5filter.h"
#include "gt_hdf5.h"
#include "../lib/gt_codec.h"
#include "../plugins/h5z_gtool.h"
#include "h5obj_impl.h"
#include "sink_impl.h"
#include "source_impl.h"
#include "../lib/banned.h"

/* ---- dataset types ---------------------------------------------------- */

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

	*desc = gt_h5_type_desc(type);
	if (cls == H5T_FLOAT)
		return float_dtype(type);
	if (cls == H5T_INTEGER && H5Tget_size(type) == 2 && dt &&
	    dt->type == GT_ATTR_STR && !strcmp(dt->s, "bfloat16"))
		return GT_DT_BF16;
	if (cls == H5T_OPAQUE && H5Tget_size(type) == 2 && is_bf16_tag(type))
		return GT_DT_BF16;
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

static int dataset_info(hid_t ds, struct gt_tensor_info *t, struct h5_attr_ctx *x,
			int *keep, struct gt_diag *d)
{
	const hid_t type = H5Dget_type(ds);
	const hid_t space = H5Dget_space(ds);
	int rc = 0;

	if (type < 0 || space < 0) {
		rc = gt_diag_set(d, GT_ERR(CORRUPT), "dataset %s: cannot read its type", t->name);
		goto out;
	}
	x->a = &t->attrs;
	x->where = t->name;
	rc = gt_h5_read_attrs(ds, x, d);
	if (rc < 0)
		goto out;
	t->dtype = classify(type, &t->attrs, &t->type_desc);
	*keep = t->dtype != GT_DT_NONE || !gt_h5_unkeepable(type);
	if (!*keep)
		rc = gt_source_add_lost(x->s, "dataset %s is %s, which gtool cannot keep",
					t->name, gt_h5_unkeepable(type));
	if (rc >= 0)
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

/* Objects seen so far, by address: a second link to one is a hard link. */
struct seen {
	haddr_t addr;
	int used, is_group;
	size_t idx;          /* into groups or tensors */
};

struct visit {
	struct gt_source *s;
	size_t cap_t, cap_g, cap_o;
	struct seen *tab;
	size_t tab_cap, tab_n;
	struct gt_diag *d;
	int rc;
};

static struct seen *seen_slot(struct seen *tab, size_t cap, haddr_t a)
{
	size_t k = (size_t)(((uint64_t)a * 0x9E3779B97F4A7C15ull) >> 17) & (cap - 1);

	while (tab[k].used && tab[k].addr != a)
		k = (k + 1) & (cap - 1);
	return &tab[k];
}

static int seen_add(struct visit *vi, haddr_t a, int is_group, size_t idx)
{
	if (2 * (vi->tab_n + 1) > vi->tab_cap) {
		const size_t cap = vi->tab_cap ? 2 * vi->tab_cap : 64;
		struct seen *t = calloc(cap, sizeof(*t));

		if (!t)
			return GT_ERR(NOMEM);
		for (size_t k = 0; k < vi->tab_cap; k++)
			if (vi->tab[k].used)
				*seen_slot(t, cap, vi->tab[k].addr) = vi->tab[k];
		free(vi->tab);
		vi->tab = t;
		vi->tab_cap = cap;
	}
	*seen_slot(vi->tab, vi->tab_cap, a) = (struct seen){ a, 1, is_group, idx };
	vi->tab_n++;
	return 0;
}

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

static int push_object(struct visit *vi, enum gt_obj_kind kind, const char *name,
		       struct gt_object **ret)
{
	struct gt_source *s = vi->s;
	struct gt_object *o;

	GT_TRY(grow((void **)&s->objects, &vi->cap_o, s->nobjects, sizeof(*o)));
	o = &s->objects[s->nobjects++];
	o->kind = kind;
	o->name = abs_name(name);
	*ret = o;
	return o->name ? 0 : GT_ERR(NOMEM);
}

static int add_group(struct visit *vi, hid_t obj, const char *name)
{
	struct gt_source *s = vi->s;
	struct h5_attr_ctx x = { NULL, s, NULL, 0 };
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
	x.a = &g->attrs;
	x.where = g->name;
	rc = gt_h5_read_attrs(gid, &x, vi->d);
	H5Gclose(gid);
	return rc;
}

/* A non-float dataset is an object too: compress keeps it whole. */
static int add_whole(struct visit *vi, const struct gt_tensor_info *t)
{
	struct gt_object *o;

	GT_TRY(push_object(vi, GT_OBJ_DATASET, t->name + 1, &o));
	o->type_desc = t->type_desc;
	return gt_attrs_copy(&o->attrs, &t->attrs);
}

static int add_dataset(struct visit *vi, hid_t obj, const char *name)
{
	struct gt_source *s = vi->s;
	struct h5_attr_ctx x = { NULL, s, NULL, 0 };
	struct gt_tensor_info *t;
	hid_t ds;
	int rc, keep = 1;

	GT_TRY(grow((void **)&s->tensors, &vi->cap_t, s->ntensors, sizeof(*t)));
	t = &s->tensors[s->ntensors++];
	t->name = abs_name(name);
	if (!t->name)
		return GT_ERR(NOMEM);
	ds = H5Dopen2(obj, name, H5P_DEFAULT);
	if (ds < 0)
		return gt_diag_set(vi->d, GT_ERR(CORRUPT), "cannot open dataset %s", t->name);
	rc = dataset_info(ds, t, &x, &keep, vi->d);
	H5Dclose(ds);
	if (rc >= 0 && t->dtype == GT_DT_NONE && keep)
		rc = add_whole(vi, t);
	return rc;
}

/* A second name of an object: a hard link, and for a dataset a tensor too. */
static int add_alias(struct visit *vi, const char *name, const struct seen *e)
{
	struct gt_source *s = vi->s;
	const char *first = e->is_group ? s->groups[e->idx].name : s->tensors[e->idx].name;
	struct gt_tensor_info *t;
	struct gt_object *o;
	int kept = e->is_group || s->tensors[e->idx].dtype != GT_DT_NONE;

	for (size_t k = 0; !kept && k < s->nobjects; k++)
		kept = s->objects[k].kind == GT_OBJ_DATASET && !strcmp(s->objects[k].name, first);
	if (!kept) /* a second name of what cannot be kept */
		return gt_source_add_lost(s, "link /%s names %s, which gtool cannot keep",
					  name, first);
	GT_TRY(push_object(vi, GT_OBJ_HARD, name, &o));
	o->target = strdup(first);
	if (!o->target)
		return GT_ERR(NOMEM);
	if (e->is_group)
		return 0;
	GT_TRY(grow((void **)&s->tensors, &vi->cap_t, s->ntensors, sizeof(*t)));
	t = &s->tensors[s->ntensors];
	*t = s->tensors[e->idx];
	t->attrs.v = NULL;
	t->attrs.n = 0;
	t->same_as = e->idx + 1;
	t->name = strdup(o->name);
	s->ntensors++;
	if (!t->name)
		return GT_ERR(NOMEM);
	return gt_attrs_copy(&t->attrs, &s->tensors[e->idx].attrs);
}

static int add_hard(struct visit *vi, hid_t root, const char *name, haddr_t addr)
{
	const struct seen *e = vi->tab_cap ? seen_slot(vi->tab, vi->tab_cap, addr) : NULL;
	H5O_info_t oi;
	int rc;

	if (e && e->used)
		return add_alias(vi, name, e);
	if (H5Oget_info_by_name2(root, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
		return gt_diag_set(vi->d, GT_ERR(CORRUPT), "cannot open object /%s", name);
	if (oi.type == H5O_TYPE_GROUP) {
		rc = add_group(vi, root, name);
		return rc < 0 ? rc : seen_add(vi, addr, 1, vi->s->ngroups - 1);
	}
	if (oi.type == H5O_TYPE_DATASET) {
		const size_t idx = vi->s->ntensors;

		rc = add_dataset(vi, root, name);
		return rc < 0 ? rc : seen_add(vi, addr, 0, idx);
	}
	return gt_source_add_lost(vi->s, "object /%s is a named datatype, which gtool "
				  "cannot keep", name);
}

static int add_link(struct visit *vi, hid_t root, const char *name, const H5L_info_t *li)
{
	const size_t len = li->u.val_size;
	char *buf = malloc(len ? len : 1);
	const char *file = NULL, *path = NULL;
	struct gt_object *o;
	unsigned flags;
	int rc = buf ? 0 : GT_ERR(NOMEM);

	if (rc >= 0 && H5Lget_val(root, name, buf, len, H5P_DEFAULT) < 0)
		rc = gt_diag_set(vi->d, GT_ERR(CORRUPT), "cannot read link /%s", name);
	if (rc >= 0 && li->type == H5L_TYPE_EXTERNAL &&
	    H5Lunpack_elink_val(buf, len, &flags, &file, &path) < 0)
		rc = gt_diag_set(vi->d, GT_ERR(CORRUPT), "cannot read link /%s", name);
	if (rc >= 0 && li->type == H5L_TYPE_SOFT) {
		path = buf;
		buf[len ? len - 1 : 0] = 0;
	}
	if (rc >= 0)
		rc = push_object(vi, li->type == H5L_TYPE_SOFT ? GT_OBJ_SOFT : GT_OBJ_EXTERNAL,
				 name, &o);
	if (rc >= 0) {
		o->target = strdup(path ? path : "");
		o->file = file ? strdup(file) : NULL;
		if (!o->target || (file && !o->file))
			rc = GT_ERR(NOMEM);
	}
	free(buf);
	return rc;
}

static herr_t link_cb(hid_t root, const char *name, const H5L_info_t *li, void *op)
{
	struct visit *vi = op;

	if (li->type == H5L_TYPE_HARD)
		vi->rc = add_hard(vi, root, name, li->u.address);
	else if (li->type == H5L_TYPE_SOFT || li->type == H5L_TYPE_EXTERNAL)
		vi->rc = add_link(vi, root, name, li);
	else
		vi->rc = gt_source_add_lost(vi->s, "link /%s is of a user-defined kind, "
					    "which gtool cannot keep", name);
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
		rc = ds < 0 ? gt_diag_set(d, GT_ERR(IO), "dataset %s: read failed", t->name)
			    : gt_h5_read_error(ds, t->name, d);
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

static int h5_read_object(struct gt_source *s, size_t i, struct gt_blob *b,
			  struct gt_diag *d)
{
	const struct h5_src *h = s->priv;
	const char *name = s->objects[i].name;
	hid_t ds;
	int rc;

	quiet();
	ds = H5Dopen2(h->file, name, H5P_DEFAULT);
	if (ds < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot open dataset %s", name);
	rc = gt_h5_read_dataset_blob(ds, name, b, d);
	H5Dclose(ds);
	return rc;
}

static herr_t find_lock(unsigned n, const H5E_error2_t *e, void *op)
{
	(void)n;
	/* not a bare "lock": "unable to read superblock" has one */
	if (e->min_num == H5E_CANTLOCKFILE ||
	    (e->desc && (strstr(e->desc, "lock the file") || strstr(e->desc, "lock file"))))
		*(int *)op = 1;
	return 0;
}

/* Why H5Fopen failed: a lock held by a writer, or not HDF5 at all. */
static int open_error(struct gt_diag *d)
{
	int locked = 0;

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, find_lock, &locked);
	if (locked)
		return gt_diag_set(d, GT_ERR(IO), "the file is locked: another program has "
				   "it open for writing; wait for it to close the file, or "
				   "set HDF5_USE_FILE_LOCKING=FALSE to read it anyway");
	return gt_diag_set(d, GT_ERR(CORRUPT), "not an HDF5 file");
}

/* Every link from the root down, objects before their second names. */
static int list_file(struct gt_source *s, hid_t file, struct gt_diag *d)
{
	struct visit vi = { .s = s, .d = d };
	H5O_info_t oi;
	int rc = H5Oget_info2(file, &oi, H5O_INFO_BASIC) < 0 ? GT_ERR(CORRUPT) : 0;

	if (rc >= 0)
		rc = add_group(&vi, file, ".");
	if (rc >= 0)
		rc = seen_add(&vi, oi.addr, 1, 0);
	if (rc >= 0 && H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, link_cb, &vi) < 0)
		rc = vi.rc < 0 ? vi.rc : GT_ERR(CORRUPT);
	free(vi.tab);
	if (rc == GT_ERR(CORRUPT) && vi.rc >= 0)
		return gt_diag_set(d, rc, "cannot list the file's objects");
	if (rc == GT_ERR(NOMEM))
		return gt_diag_set(d, rc, "out of memory");
	return rc;
}

int gt_hdf5_source_open(struct gt_source *s, struct gt_diag *d)
{
	struct h5_src *h = calloc(1, sizeof(*h));

	if (!h)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	s->priv = h;
	s->ops = &h5_ops;
	s->read_object = h5_read_object;
	(void)gt_h5filter_register(); /* reads filter-400 datasets without the plugin path */
	h->file = H5Fopen(s->path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (h->file < 0)
		return open_error(d);
	return list_file(s, h->file, d);
}

/* ---- filters, for ls ---------------------------------------------------- */

/* Append @what to @buf (@len bytes), after @sep when @buf is not empty. */
static void append(char *buf, size_t len, const char *sep, const char *what)
{
	const size_t at = strlen(buf);

	if (at + 1 < len)
		snprintf(buf + at, len - at, "%s%s", at ? sep : "", what);
}

/* Filter @id with its @n cd_values: short name and options. */
static void filter_words(H5Z_filter_t id, const unsigned *cd, size_t n, const char *hname,
			 char *name, size_t nlen, char *opts, size_t olen)
{
	char o[128] = "";

	switch (id) {
	case H5Z_FILTER_DEFLATE:
		append(name, nlen, "+", "gzip");
		if (n)
			snprintf(o, sizeof(o), "level=%u", cd[0]);
		break;
	case H5Z_FILTER_SHUFFLE: append(name, nlen, "+", "shuffle"); break;
	case H5Z_FILTER_FLETCHER32: append(name, nlen, "+", "fletcher32"); break;
	case H5Z_FILTER_SZIP: append(name, nlen, "+", "szip"); break;
	case H5Z_FILTER_NBIT: append(name, nlen, "+", "nbit"); break;
	case H5Z_FILTER_SCALEOFFSET: append(name, nlen, "+", "scaleoffset"); break;
	case 32000: append(name, nlen, "+", "lzf"); break;
	case GT_H5Z_ID:
		append(name, nlen, "+", GT_H5Z_NAME);
		if (gt_h5filter_spec(cd, n, o, sizeof(o)) < 0)
			snprintf(o, sizeof(o), "?");
		break;
	default:
		if (*hname) {
			append(name, nlen, "+", hname);
		} else {
			snprintf(o, sizeof(o), "filter %d", (int)id);
			append(name, nlen, "+", o);
			*o = '\0';
		}
	}
	if (*o)
		append(opts, olen, "; ", o);
}

static int h5_source_filters(const struct gt_source *s, size_t i, char *name,
			     size_t name_len, char *opts, size_t opts_len)
{
	const struct h5_src *h = s->priv;
	hid_t ds, dcpl;
	int nf;

	*name = *opts = '\0';
	if (s->kind != GT_KIND_HDF5 || i >= s->ntensors)
		return 0;
	quiet();
	ds = H5Dopen2(h->file, s->tensors[i].name, H5P_DEFAULT);
	dcpl = ds >= 0 ? H5Dget_create_plist(ds) : -1;
	nf = dcpl >= 0 ? H5Pget_nfilters(dcpl) : -1;
	for (int k = 0; k < nf; k++) {
		unsigned flags, cd[16], fcfg;
		size_t n = sizeof(cd) / sizeof(cd[0]);
		char hname[64] = "";
		const H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)k, &flags, &n, cd,
						       sizeof(hname), hname, &fcfg);

		if (id >= 0)
			filter_words(id, cd, n < 16 ? n : 16, hname, name, name_len, opts, opts_len);
	}
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (ds >= 0)
		H5Dclose(ds);
	return nf < 0 ? GT_ERR(IO) : nf > 0;
}

/* ---- attributes: writing ---------------------------------------------- */

static int write_attrs(hid_t obj, const struct gt_attrs *attrs, const char *where,
		       struct gt_diag *d)
{
	for (size_t i = 0; i < attrs->n; i++)
		if (gt_h5_write_attr(obj, &attrs->v[i]) < 0)
			return gt_diag_set(d, GT_ERR(IO), "%s: cannot write attribute %s",
					   where, attrs->v[i].name);
	return 0;
}

/* ---- sink ------------------------------------------------------------- */

struct h5_sink {
	hid_t file;
	hid_t gcpl, dcpl;   /* no object times: the same bytes on every run */
	unsigned char *buf; /* the current tensor, written whole at its end */
	size_t cap;         /* bytes of buf: grown as values come, never to
			     * the count a header claims before they do */
};

/* A creation property list that does not record object times (as h5py's
 * track_times=False), so that a file written twice is the same bytes. */
static hid_t untimed(hid_t cls)
{
	hid_t p = H5Pcreate(cls);

	if (p >= 0 && H5Pset_obj_track_times(p, 0) < 0) {
		H5Pclose(p);
		p = -1;
	}
	return p;
}

static int h5_sink_open(struct gt_sink *s, struct gt_diag *d)
{
	struct h5_sink *h = calloc(1, sizeof(*h));
	hid_t fapl = H5P_DEFAULT, fcpl = -1;

	if (!h)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	s->priv = h;
	h->file = h->gcpl = h->dcpl = -1;
	(void)gt_h5filter_register(); /* gt_sink_set_filter's filter 400 */
	if (s->to_stdout) {
		/* in memory; the image goes to stdout on commit */
		fapl = H5Pcreate(H5P_FILE_ACCESS);
		if (fapl < 0 || H5Pset_fapl_core(fapl, 1 << 20, 0) < 0)
			return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	if (s->v110_index) {
		/* chunk indexes of the 1.10 format: a filtered tensor of one chunk
		 * costs no B-tree (halves cnn_adam's file) */
		if (fapl == H5P_DEFAULT)
			fapl = H5Pcreate(H5P_FILE_ACCESS);
		if (fapl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_LATEST) < 0)
			return gt_diag_set(d, GT_ERR(IO), "cannot ask for the HDF5 1.10 format");
	}
	fcpl = untimed(H5P_FILE_CREATE);
	h->gcpl = untimed(H5P_GROUP_CREATE);
	h->dcpl = untimed(H5P_DATASET_CREATE);
	if (fcpl >= 0 && h->gcpl >= 0 && h->dcpl >= 0)
		h->file = H5Fcreate(s->to_stdout ? "stdout.h5" : s->tmp, H5F_ACC_TRUNC,
				    fcpl, fapl);
	if (fapl != H5P_DEFAULT)
		H5Pclose(fapl);
	if (fcpl >= 0)
		H5Pclose(fcpl);
	if (h->file < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot create an HDF5 file");
	return 0;
}

/* Create the groups above @path that do not exist yet. */
static int make_parents(const struct h5_sink *h, const char *path)
{
	char *p = strdup(path);
	int rc = p ? 0 : GT_ERR(NOMEM);

	for (char *q = p ? strchr(p + 1, '/') : NULL; q && rc >= 0; q = strchr(q + 1, '/')) {
		*q = 0;
		if (H5Lexists(h->file, p, H5P_DEFAULT) <= 0) {
			const hid_t g = H5Gcreate2(h->file, p, H5P_DEFAULT, h->gcpl, H5P_DEFAULT);

			if (g < 0)
				rc = GT_ERR(IO);
			else
				H5Gclose(g);
		}
		*q = '/';
	}
	free(p);
	return rc;
}

static int h5_sink_group(struct gt_sink *s, const struct gt_group_info *g,
			 struct gt_diag *d)
{
	const struct h5_sink *h = s->priv;
	hid_t gid;
	int rc;

	quiet();
	gid = H5Gopen2(h->file, g->name, H5P_DEFAULT);
	if (gid < 0 && make_parents(h, g->name) >= 0)
		gid = H5Gcreate2(h->file, g->name, H5P_DEFAULT, h->gcpl, H5P_DEFAULT);
	if (gid < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot create group %s", g->name);
	rc = write_attrs(gid, &g->attrs, g->name, d);
	H5Gclose(gid);
	return rc;
}

/* A link, or a non-float dataset kept whole. */
static int h5_sink_object(struct gt_sink *s, const struct gt_object *o,
			  struct gt_diag *d)
{
	const struct h5_sink *h = s->priv;
	herr_t e = -1;

	quiet();
	if (make_parents(h, o->name) < 0)
		return gt_diag_set(d, GT_ERR(IO), "cannot create the groups above %s", o->name);
	switch (o->kind) {
	case GT_OBJ_DATASET:
		return gt_h5_write_object(h->file, o, h->dcpl, H5P_DEFAULT, d);
	case GT_OBJ_HARD:
		e = H5Lcreate_hard(h->file, o->target, h->file, o->name, H5P_DEFAULT,
				   H5P_DEFAULT);
		break;
	case GT_OBJ_SOFT:
		e = H5Lcreate_soft(o->target, h->file, o->name, H5P_DEFAULT, H5P_DEFAULT);
		break;
	case GT_OBJ_EXTERNAL:
		e = H5Lcreate_external(o->file, o->target, h->file, o->name, H5P_DEFAULT,
				       H5P_DEFAULT);
		break;
	}
	return e < 0 ? gt_diag_set(d, GT_ERR(IO), "cannot create link %s", o->name) : 0;
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
	if (count != t->count && (t->rank || t->count)) /* rank 0, count 0: null */
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
	if (t->dtype == GT_DT_BF16 && !gt_attrs_find(&t->attrs, "dtype") &&
	    gt_h5_write_attr(ds, &bf16_attr) < 0)
		return gt_diag_set(d, GT_ERR(IO), "%s: cannot write attribute dtype", t->name);
	return 0;
}

/* Chunks of at most GT_SINK_CHUNK_VALUES values: whole trailing axes
 * while they fit, then part of the next, 1 along the axes before it. */
static void chunk_dims(const struct gt_tensor_info *t, hsize_t *c)
{
	uint64_t budget = GT_SINK_CHUNK_VALUES;

	for (unsigned k = t->rank; k-- > 0;) {
		const uint64_t dk = t->dims[k] ? t->dims[k] : 1;

		c[k] = dk <= budget ? dk : budget;
		budget = dk <= budget ? budget / dk : 1;
	}
}

/* The dataset creation list of the current tensor: with filter 400 when
 * gt_sink_set_filter asked for it (not for a scalar or an empty one, which
 * HDF5 cannot chunk), else the sink's own.  -1 on failure. */
static hid_t filtered_dcpl(const struct gt_sink *s)
{
	const struct h5_sink *h = s->priv;
	const struct gt_tensor_info *t = &s->info;
	unsigned cd[sizeof(s->filter_cd) / sizeof(s->filter_cd[0])];
	hsize_t c[GT_MAX_RANK];
	hid_t p;

	if (!s->filter_n || !t->rank || !t->count)
		return h->dcpl;
	memcpy(cd, s->filter_cd, sizeof(cd));
	cd[GT_H5Z_CD_DTYPE] = (unsigned)t->dtype; /* bf16 is stored as uint16 */
	cd[GT_H5Z_CD_CHUNK] = 0;                  /* set_local's */
	chunk_dims(t, c);
	p = H5Pcopy(h->dcpl);
	if (p >= 0 && (H5Pset_chunk(p, (int)t->rank, c) < 0 ||
		       H5Pset_filter(p, GT_H5Z_ID, H5Z_FLAG_MANDATORY, s->filter_n, cd) < 0)) {
		H5Pclose(p);
		p = -1;
	}
	return p;
}

/* Why H5Dcreate2 failed: the filter's own message when it refused. */
static herr_t filter_msg(unsigned n, const H5E_error2_t *e, void *op)
{
	(void)n;
	if (e->desc && !strncmp(e->desc, "gtool filter: ", 14) && !*(char *)op)
		snprintf(op, 160, "%s", e->desc + 14);
	return 0;
}

static int create_error(const struct gt_sink *s, struct gt_diag *d)
{
	char why[160] = "";

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, filter_msg, why);
	if (*why)
		return gt_diag_set(d, GT_ERR(INVAL), "cannot create dataset %s: %s",
				   s->info.name, why);
	return gt_diag_set(d, GT_ERR(IO), "cannot create dataset %s", s->info.name);
}

static int h5_sink_end(struct gt_sink *s, struct gt_diag *d)
{
	struct h5_sink *h = s->priv;
	const hid_t ftype = file_type(s->info.dtype);
	const hid_t space = tensor_space(&s->info);
	hid_t ds = -1;
	int rc;

	const hid_t dcpl = filtered_dcpl(s);

	quiet();
	if (ftype >= 0 && space >= 0 && dcpl >= 0 && make_parents(h, s->info.name) >= 0)
		ds = H5Dcreate2(h->file, s->info.name, ftype, space, H5P_DEFAULT, dcpl,
				H5P_DEFAULT);
	rc = ds < 0 ? create_error(s, d) : write_dataset(s, ds, ftype, d);
	if (ds >= 0)
		H5Dclose(ds);
	if (dcpl >= 0 && dcpl != h->dcpl)
		H5Pclose(dcpl);
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
	if (h->gcpl >= 0)
		H5Pclose(h->gcpl);
	if (h->dcpl >= 0)
		H5Pclose(h->dcpl);
	free(h->buf);
	free(h);
	s->priv = NULL;
}

const struct gt_sink_ops gt_hdf5_sink_ops = {
	.open = h5_sink_open,
	.group = h5_sink_group,
	.object = h5_sink_object,
	.begin = h5_sink_begin,
	.write = h5_sink_write,
	.end = h5_sink_end,
	.commit = h5_sink_commit,
	.close = h5_sink_close,
};

static int h5_filter_cd(const char *codec, const char *opts, unsigned *cd, size_t *n_ret,
			struct gt_diag *d)
{
	return gt_h5filter_cd(gt_codec_find(codec), opts, cd, n_ret, d);
}

/* The one symbol the gtool binary's HDF5 module exports (gt_hdf5.h). */
__attribute__((visibility("default"))) const struct gt_hdf5_api gt_hdf5_module = {
	.source_open = gt_hdf5_source_open,
	.source_filters = h5_source_filters,
	.sink_ops = &gt_hdf5_sink_ops,
	.filter_cd = h5_filter_cd,
};
