/* npz.c - NumPy .npz archives (np.savez, np.savez_compressed) through libzip */
#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "gt_npz.h"
#include "npy_impl.h"
#include "../lib/banned.h"

/*
 * An .npz is a zip of "KEY.npy" members, stored or deflated.  Each member's
 * header is read at open; a tensor's values are inflated whole at its first
 * read and kept (one tensor at a time), in little-endian C order.
 */
#define NPZ_HEAD 4096 /* enough for any header numpy writes (it caps them at 10000) */

struct npz_member {
	zip_uint64_t index;
	struct gt_npy_layout l;
};

struct npz_src {
	zip_t *z;
	struct npz_member *m;
	size_t cached;        /* tensor + 1 whose values are in @buf; 0: none */
	unsigned char *buf;
};

/* The first @cap bytes (or fewer) of member @idx into @buf. */
static int read_member(zip_t *z, zip_uint64_t idx, void *buf, zip_uint64_t cap,
		       zip_uint64_t *got, struct gt_diag *d)
{
	zip_file_t *zf = zip_fopen_index(z, idx, 0);
	zip_int64_t n = 0;

	*got = 0;
	if (!zf)
		return gt_diag_set(d, GT_ERR(CORRUPT), "member %s: %s",
				   zip_get_name(z, idx, 0), zip_strerror(z));
	while (*got < cap && (n = zip_fread(zf, (char *)buf + *got, cap - *got)) > 0)
		*got += (zip_uint64_t)n;
	if (n < 0)
		gt_diag_set(d, GT_ERR(CORRUPT), "member %s: %s", zip_get_name(z, idx, 0),
			    zip_file_strerror(zf));
	zip_fclose(zf);
	return n < 0 ? GT_ERR(CORRUPT) : 0;
}

/* Member @idx as tensor @t: its name without ".npy", its header parsed;
 * a member that is no float array is listed with dtype NONE. */
static int add_member(struct gt_source *s, struct npz_src *p, zip_uint64_t idx,
		      const char *name, struct gt_diag *d)
{
	struct gt_tensor_info *t = &s->tensors[s->ntensors];
	struct npz_member *m = &p->m[s->ntensors];
	unsigned char head[NPZ_HEAD];
	struct gt_diag why = { "" };
	zip_uint64_t got;
	zip_stat_t st;
	int rc;

	t->name = strndup(name, strlen(name) - 4);
	if (!t->name)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	s->ntensors++;
	m->index = idx;
	GT_TRY(read_member(p->z, idx, head, sizeof(head), &got, d));
	rc = gt_npy_parse(head, (size_t)got, t, &m->l, &why);
	if (rc == GT_ERR(TYPE)) {
		t->dtype = GT_DT_NONE;
		t->type_desc = m->l.kind;
		return 0;
	}
	if (rc < 0)
		return gt_diag_set(d, rc, "member %s: %s", name, why.msg);
	if (zip_stat_index(p->z, idx, 0, &st) < 0 || !(st.valid & ZIP_STAT_SIZE) ||
	    st.size < m->l.off || (st.size - m->l.off) / gt_dtype_size(t->dtype) < t->count)
		return gt_diag_set(d, GT_ERR(TRUNCATED), "member %s: the data is shorter "
				   "than the shape needs", name);
	return 0;
}

/*
 * The first @need bytes of member @idx into *@raw_ret (malloc'd), grown
 * as the data comes: the sizes in a zip's directory are claims, so
 * memory follows what inflates rather than what the header says.
 */
static int read_grow(zip_t *z, zip_uint64_t idx, size_t need, unsigned char **raw_ret,
		     struct gt_diag *d)
{
	zip_file_t *zf = zip_fopen_index(z, idx, 0);
	size_t cap = need < ((size_t)1 << 20) ? need : (size_t)1 << 20, got = 0;
	unsigned char *raw = malloc(cap + 1), *grown;
	zip_int64_t n = 1;

	if (!zf || !raw) {
		free(raw);
		if (zf)
			zip_fclose(zf);
		return zf ? gt_diag_set(d, GT_ERR(NOMEM), "out of memory")
			  : gt_diag_set(d, GT_ERR(CORRUPT), "%s", zip_strerror(z));
	}
	while (got < need && n > 0) {
		if (got == cap) {
			cap = need - cap < cap ? need : 2 * cap;
			grown = realloc(raw, cap + 1);
			if (!grown)
				break;
			raw = grown;
		}
		n = zip_fread(zf, raw + got, cap - got);
		got += n > 0 ? (size_t)n : 0;
	}
	zip_fclose(zf);
	*raw_ret = raw;
	if (got < need)
		return gt_diag_set(d, n < 0 ? GT_ERR(CORRUPT) : got == cap ? GT_ERR(NOMEM)
				   : GT_ERR(TRUNCATED), "the data ends early");
	return 0;
}

/* Inflate tensor @i whole into p->buf, in C order. */
static int load(struct gt_source *s, struct npz_src *p, size_t i, struct gt_diag *d)
{
	const struct gt_tensor_info *t = &s->tensors[i];
	const struct npz_member *m = &p->m[i];
	const size_t size = gt_dtype_size(t->dtype);
	unsigned char *raw = NULL;
	int rc;

	p->cached = 0;
	free(p->buf);
	p->buf = NULL;
	if (t->count > (SIZE_MAX - m->l.off) / size / 2)
		return gt_diag_set(d, GT_ERR(OVERFLOW), "%s: too large for memory", t->name);
	rc = read_grow(p->z, m->index, (size_t)m->l.off + (size_t)t->count * size, &raw, d);
	if (rc >= 0) {
		p->buf = malloc((size_t)t->count * size + 1);
		if (!p->buf)
			rc = gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	if (rc >= 0) {
		gt_npy_to_c_order(t, m->l.fortran, m->l.swap, raw + m->l.off, p->buf);
		p->cached = i + 1;
	}
	free(raw);
	return rc;
}

static int npz_read(struct gt_source *s, size_t i, uint64_t first, size_t n,
		    void *dst, size_t *n_ret, struct gt_diag *d)
{
	struct npz_src *p = s->priv;
	const struct gt_tensor_info *t = &s->tensors[i];
	const size_t size = gt_dtype_size(t->dtype);

	*n_ret = 0;
	if (t->dtype == GT_DT_NONE)
		return gt_diag_set(d, GT_ERR(TYPE), "%s is %s", t->name, t->type_desc);
	if (first >= t->count)
		return 0;
	if (p->cached != i + 1)
		GT_TRY(load(s, p, i, d));
	*n_ret = t->count - first < n ? (size_t)(t->count - first) : n;
	memcpy(dst, p->buf + first * size, *n_ret * size);
	return 0;
}

static void npz_close(struct gt_source *s)
{
	struct npz_src *p = s->priv;

	if (p) {
		if (p->z)
			zip_discard(p->z);
		free(p->m);
		free(p->buf);
	}
	free(p);
	s->priv = NULL;
}

static const struct gt_source_ops npz_ops = { npz_read, npz_close };

static int list_members(struct gt_source *s, struct npz_src *p, struct gt_diag *d)
{
	const zip_int64_t n = zip_get_num_entries(p->z, 0);

	if (n < 0)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npz archive");
	s->tensors = calloc((size_t)n + 1, sizeof(*s->tensors));
	p->m = calloc((size_t)n + 1, sizeof(*p->m));
	if (!s->tensors || !p->m)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	for (zip_int64_t i = 0; i < n; i++) {
		const char *name = zip_get_name(p->z, (zip_uint64_t)i, 0);
		const size_t len = name ? strlen(name) : 0;

		/* numpy names every member KEY.npy; anything else is not an array */
		if (len > 4 && !strcmp(name + len - 4, ".npy"))
			GT_TRY(add_member(s, p, (zip_uint64_t)i, name, d));
	}
	return 0;
}

int gt_npz_source_open(struct gt_source *s, FILE *f, struct gt_diag *d)
{
	struct npz_src *p = calloc(1, sizeof(*p));
	int err = 0;

	fclose(f); /* libzip opens the archive by name: it needs to seek */
	if (!p)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	s->priv = p;
	s->ops = &npz_ops;
	if (!strcmp(s->path, "-"))
		return gt_diag_set(d, GT_ERR(INVAL), "a .npz archive cannot be read from a pipe");
	p->z = zip_open(s->path, ZIP_RDONLY, &err);
	if (!p->z) {
		zip_error_t ze;

		zip_error_init_with_code(&ze, err);
		gt_diag_set(d, GT_ERR(CORRUPT), "bad .npz archive: %s", zip_error_strerror(&ze));
		zip_error_fini(&ze);
		return GT_ERR(CORRUPT);
	}
	return list_members(s, p, d);
}

/* The one symbol the gtool binary's .npz module exports (gt_npz.h). */
__attribute__((visibility("default"))) const struct gt_npz_api gt_npz_module = {
	.source_open = gt_npz_source_open,
};
