/* source.c - open a tensor file of any kind: detection, dispatch, accessors */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdpipe.h"
#include "gt_hdf5.h"
#include "gt_npz.h"
#include "source_impl.h"
#include "../lib/banned.h"

static const char hdf5_magic[8] = { '\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n' };
static const char npy_magic[6] = { '\x93', 'N', 'U', 'M', 'P', 'Y' };
static const char gtz_magic[4] = { '\x89', 'G', 'T', 'Z' };
/* a zip's local file header, or the end record of an empty one: .npz */
static const char zip_magic[4] = { 'P', 'K', '\x03', '\x04' };
static const char zip_empty[4] = { 'P', 'K', '\x05', '\x06' };

#define PEEK_LEN 8

static const struct {
	const char *ext;
	enum gt_kind kind;
} exts[] = {
	{ ".h5", GT_KIND_HDF5 }, { ".hdf5", GT_KIND_HDF5 },
	{ ".npy", GT_KIND_NPY }, { ".npz", GT_KIND_NPY }, { ".gtz", GT_KIND_GTZ },
	{ ".f32", GT_KIND_RAW }, { ".f16", GT_KIND_RAW },
	{ ".bf16", GT_KIND_RAW }, { ".f64", GT_KIND_RAW },
	{ ".raw", GT_KIND_RAW }, { ".bin", GT_KIND_RAW },
};

enum gt_kind gt_kind_from_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash : path, '.');

	if (!dot)
		return GT_KIND_AUTO;
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (!strcasecmp(dot, exts[i].ext))
			return exts[i].kind;
	return GT_KIND_AUTO;
}

const char *gt_kind_name(enum gt_kind k)
{
	switch (k) {
	case GT_KIND_HDF5: return "hdf5";
	case GT_KIND_RAW: return "raw";
	case GT_KIND_NPY: return "npy";
	case GT_KIND_GTZ: return "gtz";
	case GT_KIND_AUTO: break;
	}
	return NULL;
}

enum gt_kind gt_kind_parse(const char *s)
{
	if (!strcasecmp(s, "h5") || !strcasecmp(s, "hdf5"))
		return GT_KIND_HDF5;
	if (!strcasecmp(s, "raw"))
		return GT_KIND_RAW;
	if (!strcasecmp(s, "npy"))
		return GT_KIND_NPY;
	if (!strcasecmp(s, "gtz"))
		return GT_KIND_GTZ;
	return GT_KIND_AUTO;
}

/* ---- a FILE that replays the peeked bytes, for inputs that cannot seek -- */

struct peek_cookie {
	FILE *under;
	int own;  /* fclose @under at the end (not for stdin) */
	unsigned char buf[PEEK_LEN];
	size_t n, pos;
};

static ssize_t peek_read(void *c, char *buf, size_t size)
{
	struct peek_cookie *pc = c;
	size_t got = 0;

	if (pc->pos < pc->n) {
		got = pc->n - pc->pos < size ? pc->n - pc->pos : size;
		memcpy(buf, pc->buf + pc->pos, got);
		pc->pos += got;
		return (ssize_t)got;
	}
	got = fread(buf, 1, size, pc->under);
	if (!got && ferror(pc->under))
		return -1;
	return (ssize_t)got;
}

static int peek_close(void *c)
{
	struct peek_cookie *pc = c;
	int rc = 0;

	if (pc->own)
		rc = fclose(pc->under);
	free(pc);
	return rc;
}

/* Read the first bytes of @f into @buf and return a FILE that starts over. */
static FILE *peek_stream(FILE *f, int own, unsigned char *buf, size_t *n_ret)
{
	static const cookie_io_functions_t io = { .read = peek_read,
						  .close = peek_close };
	struct peek_cookie *pc = calloc(1, sizeof(*pc));
	FILE *nf;

	if (!pc)
		return NULL;
	pc->under = f;
	pc->own = own;
	pc->n = fread(pc->buf, 1, PEEK_LEN, f);
	memcpy(buf, pc->buf, pc->n);
	*n_ret = pc->n;
	nf = fopencookie(pc, "rb", io);
	if (!nf)
		free(pc);
	return nf;
}

/* ---- opening ---------------------------------------------------------- */

static enum gt_kind kind_from_magic(const unsigned char *b, size_t n)
{
	if (n >= sizeof(hdf5_magic) && !memcmp(b, hdf5_magic, sizeof(hdf5_magic)))
		return GT_KIND_HDF5;
	if (n >= sizeof(npy_magic) && !memcmp(b, npy_magic, sizeof(npy_magic)))
		return GT_KIND_NPY;
	if (n >= sizeof(gtz_magic) && !memcmp(b, gtz_magic, sizeof(gtz_magic)))
		return GT_KIND_GTZ;
	if (n >= 4 && (!memcmp(b, zip_magic, 4) || !memcmp(b, zip_empty, 4)))
		return GT_KIND_NPY;
	return GT_KIND_AUTO;
}

/*
 * Open @s->path and peek its first bytes.  A regular file is peeked with
 * pread(); anything else is wrapped so that the kind reads from byte 0.
 */
static int open_input(struct gt_source *s, FILE **f_ret, unsigned char *peek,
		      size_t *npeek, struct gt_diag *d)
{
	const int is_stdin = !strcmp(s->path, "-");
	FILE *f = is_stdin ? stdin : fopen(s->path, "rb");
	struct stat st;
	int regular = 0;
	ssize_t got;

	if (!f)
		return gt_diag_set(d, GT_ERR(IO), "%s", strerror(errno));
	gt_fdpipe_widen(fileno(f), GT_PIPE_BYTES); /* a pipe: fewer waits */
	if (!is_stdin && fstat(fileno(f), &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			fclose(f);
			return gt_diag_set(d, GT_ERR(IO), "%s", strerror(EISDIR));
		}
		regular = S_ISREG(st.st_mode);
	}
	if (regular) {
		got = pread(fileno(f), peek, PEEK_LEN, 0);
		if (got < 0) {
			fclose(f);
			return gt_diag_set(d, GT_ERR(IO), "%s", strerror(errno));
		}
		*npeek = (size_t)got;
		*f_ret = f;
		return 0;
	}
	*f_ret = peek_stream(f, !is_stdin, peek, npeek);
	if (!*f_ret) {
		if (!is_stdin)
			fclose(f);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	if (!*npeek) {
		fclose(*f_ret);
		return gt_diag_set(d, GT_ERR(INVAL), "empty input");
	}
	return 0;
}

static enum gt_kind detect(const struct gt_source *s, const unsigned char *peek,
			   size_t npeek)
{
	enum gt_kind k = s->opts.kind;

	if (k == GT_KIND_AUTO)
		k = kind_from_magic(peek, npeek);
	/* "PK\3\4" is 1.5e-36 as an f32: a raw file's name outweighs it */
	if (k == GT_KIND_NPY && npeek >= 4 && !memcmp(peek, "PK", 2) && s->opts.kind == GT_KIND_AUTO &&
	    strcmp(s->path, "-") && gt_kind_from_name(s->path) == GT_KIND_RAW)
		k = GT_KIND_RAW;
	if (k == GT_KIND_AUTO && strcmp(s->path, "-"))
		k = gt_kind_from_name(s->path);
	return k == GT_KIND_AUTO ? GT_KIND_RAW : k;
}

static int open_hdf5(struct gt_source *s, struct gt_diag *d)
{
	const struct gt_hdf5_api *h = gt_hdf5(d);

	return h ? h->source_open(s, d) : GT_ERR(IO);
}

/* An .npz archive: the kind's open function through gt_npz(); @f is
 * closed whatever happens, as the open function would. */
static int open_npz(struct gt_source *s, FILE *f, struct gt_diag *d)
{
	const struct gt_npz_api *z = gt_npz(d);

	if (!z) {
		fclose(f);
		return GT_ERR(IO);
	}
	return z->source_open(s, f, d);
}

int gt_source_filters(const struct gt_source *s, size_t i, char *name, size_t name_len,
		      char *opts, size_t opts_len)
{
	const struct gt_hdf5_api *h;

	*name = *opts = '\0';
	if (s->kind != GT_KIND_HDF5 || i >= s->ntensors)
		return 0;
	h = gt_hdf5(NULL); /* loaded already: the source is open */
	return h ? h->source_filters(s, i, name, name_len, opts, opts_len) : GT_ERR(IO);
}

static int open_kind(struct gt_source *s, FILE *f, const unsigned char *peek,
		     size_t npeek, struct gt_diag *d)
{
	const int zip = npeek >= 4 && (!memcmp(peek, zip_magic, 4) || !memcmp(peek, zip_empty, 4));

	switch (s->kind) {
	case GT_KIND_HDF5:
		fclose(f);
		if (!strcmp(s->path, "-"))
			return gt_diag_set(d, GT_ERR(INVAL),
					   "HDF5 files cannot be read from a pipe");
		return open_hdf5(s, d);
	case GT_KIND_NPY: return zip ? open_npz(s, f, d) : gt_npy_source_open(s, f, d);
	case GT_KIND_GTZ: return gt_gtz_source_open(s, f, d);
	case GT_KIND_RAW:
	case GT_KIND_AUTO: break;
	}
	return gt_raw_source_open(s, f, d);
}

/* A dtype asked for (--dtype) that a file with its own dtype contradicts
 * is an error, not a silent choice of one of them. */
static int check_dtype(const struct gt_source *s, struct gt_diag *d)
{
	const enum gt_dtype want = s->opts.dtype;

	if (want == GT_DT_NONE || s->kind == GT_KIND_RAW || s->opts.dtype_if_raw)
		return 0;
	for (size_t i = 0; i < s->ntensors; i++) {
		const struct gt_tensor_info *t = &s->tensors[i];

		if (t->dtype == GT_DT_NONE || t->dtype == want)
			continue;
		if (s->ntensors == 1)
			return gt_diag_set(d, GT_ERR(INVAL), "--dtype %s disagrees with the "
					   "file's dtype %s", gt_dtype_name(want),
					   gt_dtype_name(t->dtype));
		return gt_diag_set(d, GT_ERR(INVAL), "--dtype %s disagrees with the dtype "
				   "%s of %s", gt_dtype_name(want), gt_dtype_name(t->dtype),
				   t->name);
	}
	return 0;
}

int gt_source_open(const char *path, const struct gt_source_opts *o,
		   struct gt_source **src_ret, struct gt_diag *d)
{
	unsigned char peek[PEEK_LEN];
	size_t npeek = 0;
	struct gt_source *s = calloc(1, sizeof(*s));
	FILE *f = NULL;
	int rc;

	*src_ret = NULL;
	if (!s)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	if (o)
		s->opts = *o;
	s->path = strdup(path);
	if (!s->path) {
		free(s);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	rc = open_input(s, &f, peek, &npeek, d);
	if (rc < 0) {
		gt_source_free(s);
		return rc;
	}
	s->kind = detect(s, peek, npeek);
	rc = open_kind(s, f, peek, npeek, d);
	if (rc >= 0)
		rc = check_dtype(s, d);
	if (rc < 0) {
		gt_source_free(s);
		return rc;
	}
	*src_ret = s;
	return 0;
}

void gt_source_free(struct gt_source *s)
{
	if (!s)
		return;
	if (s->ops && s->ops->close)
		s->ops->close(s);
	for (size_t i = 0; i < s->ntensors; i++)
		gt_tensor_info_release(&s->tensors[i]);
	free(s->tensors);
	for (size_t i = 0; i < s->ngroups; i++) {
		free(s->groups[i].name);
		gt_attrs_release(&s->groups[i].attrs);
	}
	free(s->groups);
	for (size_t i = 0; i < s->nobjects; i++)
		gt_object_release(&s->objects[i]);
	free(s->objects);
	for (size_t i = 0; i < s->nlost; i++)
		free(s->lost[i]);
	free(s->lost);
	free(s->path);
	free(s);
}

/* ---- objects: links and non-float datasets ----------------------------- */

size_t gt_source_nobjects(const struct gt_source *s)
{
	return s->nobjects;
}

const struct gt_object *gt_source_object(const struct gt_source *s, size_t i)
{
	return i < s->nobjects ? &s->objects[i] : NULL;
}

int gt_source_read_object(struct gt_source *s, size_t i, struct gt_blob *b,
			  struct gt_diag *d)
{
	memset(b, 0, sizeof(*b));
	if (i >= s->nobjects || s->objects[i].kind != GT_OBJ_DATASET || !s->read_object)
		return gt_diag_set(d, GT_ERR(INVAL), "object %zu is not a dataset", i);
	return s->read_object(s, i, b, d);
}

size_t gt_source_nlost(const struct gt_source *s)
{
	return s->nlost;
}

const char *gt_source_lost(const struct gt_source *s, size_t i)
{
	return i < s->nlost ? s->lost[i] : NULL;
}

int gt_source_add_lost(struct gt_source *s, const char *fmt, ...)
{
	char **v = realloc(s->lost, (s->nlost + 1) * sizeof(*v));
	va_list ap;
	int n;

	if (!v)
		return GT_ERR(NOMEM);
	s->lost = v;
	va_start(ap, fmt);
	n = vasprintf(&v[s->nlost], fmt, ap);
	va_end(ap);
	if (n < 0)
		return GT_ERR(NOMEM);
	s->nlost++;
	return 0;
}

void gt_object_release(struct gt_object *o)
{
	free(o->name);
	free(o->target);
	free(o->file);
	gt_blob_release(&o->blob);
	gt_attrs_release(&o->attrs);
	memset(o, 0, sizeof(*o));
}

/* ---- accessors -------------------------------------------------------- */

enum gt_kind gt_source_kind(const struct gt_source *s)
{
	return s->kind;
}

const char *gt_source_path(const struct gt_source *s)
{
	return s->path;
}

size_t gt_source_count(const struct gt_source *s)
{
	return s->ntensors;
}

const struct gt_tensor_info *gt_source_info(const struct gt_source *s, size_t i)
{
	return i < s->ntensors ? &s->tensors[i] : NULL;
}

size_t gt_source_ngroups(const struct gt_source *s)
{
	return s->ngroups;
}

const struct gt_group_info *gt_source_group(const struct gt_source *s, size_t i)
{
	return i < s->ngroups ? &s->groups[i] : NULL;
}

static const char *skip_slash(const char *name)
{
	while (*name == '/')
		name++;
	return name;
}

int gt_source_find(const struct gt_source *s, const char *name, size_t *idx_ret)
{
	const char *want = skip_slash(name);

	for (size_t i = 0; i < s->ntensors; i++) {
		if (!strcmp(skip_slash(s->tensors[i].name), want)) {
			*idx_ret = i;
			return 0;
		}
	}
	return GT_ERR(NOTFOUND);
}

int gt_source_read(struct gt_source *s, size_t i, uint64_t first, size_t n,
		   void *dst, size_t *n_ret, struct gt_diag *d)
{
	*n_ret = 0;
	if (i >= s->ntensors)
		return gt_diag_set(d, GT_ERR(INVAL), "no tensor %zu", i);
	if (s->tensors[i].dtype == GT_DT_NONE)
		return gt_diag_set(d, GT_ERR(TYPE), "%s%s has type %s, not floating point",
				   s->kind == GT_KIND_HDF5 ? "dataset " : "", s->tensors[i].name,
				   s->tensors[i].type_desc ? s->tensors[i].type_desc : "unknown");
	if (!n)
		return 0;
	return s->ops->read(s, i, first, n, dst, n_ret, d);
}

/* ---- attributes ------------------------------------------------------- */

const struct gt_attr *gt_attrs_find(const struct gt_attrs *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i].name, name))
			return &a->v[i];
	return NULL;
}

static void *dup_mem(const void *p, size_t len)
{
	void *q = malloc(len ? len : 1);

	if (q && len)
		memcpy(q, p, len);
	return q;
}

void gt_blob_release(struct gt_blob *b)
{
	free(b->type);
	free(b->data);
	b->type = b->data = NULL;
	b->type_len = b->data_len = 0;
}

int gt_blob_copy(struct gt_blob *dst, const struct gt_blob *src)
{
	*dst = *src;
	dst->type = dup_mem(src->type, src->type_len);
	dst->data = dup_mem(src->data, src->data_len);
	if (dst->type && dst->data)
		return 0;
	gt_blob_release(dst);
	return GT_ERR(NOMEM);
}

static int attr_copy(struct gt_attr *dst, const struct gt_attr *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->type = src->type;
	dst->n = src->n;
	dst->name = strdup(src->name);
	if (!dst->name)
		return GT_ERR(NOMEM);
	if (src->raw) {
		dst->raw = malloc(sizeof(*dst->raw));
		if (!dst->raw || gt_blob_copy(dst->raw, src->raw) < 0) {
			free(dst->raw);
			dst->raw = NULL;
			return GT_ERR(NOMEM);
		}
	}
	switch (src->type) {
	case GT_ATTR_INT:
		dst->i = dup_mem(src->i, src->n * sizeof(*src->i));
		return dst->i ? 0 : GT_ERR(NOMEM);
	case GT_ATTR_FLOAT:
		dst->f = dup_mem(src->f, src->n * sizeof(*src->f));
		return dst->f ? 0 : GT_ERR(NOMEM);
	case GT_ATTR_STR:
		dst->s = dup_mem(src->s, src->n + 1);
		return dst->s ? 0 : GT_ERR(NOMEM);
	case GT_ATTR_NONE: return 0;
	}
	return GT_ERR(INVAL);
}

void gt_attr_release(struct gt_attr *a)
{
	free(a->name);
	free(a->i);
	free(a->f);
	free(a->s);
	if (a->raw)
		gt_blob_release(a->raw);
	free(a->raw);
	memset(a, 0, sizeof(*a));
}

int gt_attrs_copy(struct gt_attrs *dst, const struct gt_attrs *src)
{
	struct gt_attr *v;

	if (!src->n)
		return 0;
	if (src->n > SIZE_MAX / sizeof(*v) - dst->n)
		return GT_ERR(NOMEM);
	v = realloc(dst->v, (dst->n + src->n) * sizeof(*v));
	if (!v)
		return GT_ERR(NOMEM);
	dst->v = v;
	for (size_t i = 0; i < src->n; i++) {
		const int rc = attr_copy(&dst->v[dst->n], &src->v[i]);

		if (rc < 0) {
			gt_attr_release(&dst->v[dst->n]);
			return rc;
		}
		dst->n++;
	}
	return 0;
}

void gt_attrs_release(struct gt_attrs *a)
{
	for (size_t i = 0; i < a->n; i++)
		gt_attr_release(&a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

void gt_tensor_info_release(struct gt_tensor_info *t)
{
	free(t->name);
	t->name = NULL;
	gt_attrs_release(&t->attrs);
}
