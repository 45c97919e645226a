/* api_gtz.c - libgtool's streaming .gtz writer and reader over formats/gtz */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_impl.h"
#include "../formats/gt_ght.h"
#include "../formats/gt_gtz.h"
#include "../lib/gt_huff.h"
#include "../lib/banned.h"

/* What gtz_impl.h's reader accepts per attribute, so a file we write reads back. */
#define ATTR_VALUES_MAX (1u << 20)

struct gtool_writer {
	struct gt_gtz_writer *w;
	struct gt_attrs pending;  /* for the next group or tensor */
	int open, done;
	enum gt_dtype dtype;
	uint64_t count, seen;
	struct gt_optim optim;    /* the open tensor's, at a stable address */
	const struct gtool_optctx *opt;
	int aux;                  /* the codec uses the optimizer context */
	uint32_t block_values, chunk_values; /* 0: the defaults */
	int err;                  /* a failed write: the stream is lost, or 0 */
	void *table;              /* gtool_writer_table's, gt_huff_save bytes */
	size_t table_len;
	char msg[256];
};

struct gtool_reader {
	struct gt_gtz_reader *r;
	FILE *f;                  /* gtool_reader_open_path's */
	int ev, in_tensor, have;  /* last event; 0 before the first */
	int err;                  /* the error that stopped the reading, or 0 */
	uint64_t seen;            /* values of the current tensor delivered */
	char msg[256];
};

/* ---- writer ----------------------------------------------------------------- */

static int w_fail(struct gtool_writer *w, int rc, const struct gt_diag *d)
{
	return api_msg(w->msg, rc, d);
}

/* A failure after bytes went out: every later call repeats it. */
static int w_lost(struct gtool_writer *w, int rc, const struct gt_diag *d)
{
	w->err = rc;
	w->done = 1;
	return w_fail(w, rc, d);
}

static int w_failf(struct gtool_writer *w, int rc, const char *what)
{
	snprintf(w->msg, sizeof(w->msg), "%s", what);
	return rc;
}

static int writer_wrap(struct gt_gtz_writer *gw, int rc, const struct gt_diag *d,
		       struct gtool_writer **w_ret, struct gtool_errbuf *err)
{
	struct gtool_writer *w;

	if (rc < 0)
		return api_err(err, rc, d);
	w = calloc(1, sizeof(*w));
	if (!w) {
		gt_gtz_writer_free(gw);
		return api_errf(err, GT_ERR(NOMEM), "out of memory");
	}
	w->w = gw;
	*w_ret = w;
	return 0;
}

GTOOL_API int gtool_writer_open_path(const char *path, int flags, unsigned threads,
				     struct gtool_writer **w_ret, struct gtool_errbuf *err)
{
	struct gt_gtz_writer *gw = NULL;
	struct gt_diag d = { "" };
	int rc;

	api_err_clear(err);
	if (!w_ret)
		return api_errf(err, GT_ERR(INVAL), "no place for the writer");
	*w_ret = NULL;
	if (!path || !*path || !strcmp(path, "-"))
		return api_errf(err, GT_ERR(INVAL), "bad path (standard output: gtool_writer_open_fd)");
	if (flags & ~GTOOL_FORCE || threads > GT_GTZ_THREADS_MAX)
		return api_errf(err, GT_ERR(INVAL), "bad flags or thread count");
	rc = gt_gtz_writer_open(path, flags & GTOOL_FORCE, threads, &gw, &d);
	return writer_wrap(gw, rc, &d, w_ret, err);
}

GTOOL_API int gtool_writer_open_fd(int fd, unsigned threads, struct gtool_writer **w_ret,
				   struct gtool_errbuf *err)
{
	struct gt_gtz_writer *gw = NULL;
	struct gt_diag d = { "" };
	int rc;

	api_err_clear(err);
	if (!w_ret)
		return api_errf(err, GT_ERR(INVAL), "no place for the writer");
	*w_ret = NULL;
	if (threads > GT_GTZ_THREADS_MAX)
		return api_errf(err, GT_ERR(INVAL), "bad thread count");
	rc = gt_gtz_writer_open_fd(fd, threads, &gw, &d);
	return writer_wrap(gw, rc, &d, w_ret, err);
}

GTOOL_API int gtool_writer_open_cb(gtool_write_fn fn, void *arg, unsigned threads,
				   struct gtool_writer **w_ret, struct gtool_errbuf *err)
{
	const struct gt_gtz_io io = { .write = fn, .arg = arg };
	struct gt_gtz_writer *gw = NULL;
	struct gt_diag d = { "" };
	int rc;

	api_err_clear(err);
	if (!w_ret)
		return api_errf(err, GT_ERR(INVAL), "no place for the writer");
	*w_ret = NULL;
	if (threads > GT_GTZ_THREADS_MAX)
		return api_errf(err, GT_ERR(INVAL), "bad thread count");
	rc = gt_gtz_writer_open_io(&io, threads, &gw, &d);
	return writer_wrap(gw, rc, &d, w_ret, err);
}

/* Append a copy of an attribute to w->pending. */
static int attr_add(struct gtool_writer *w, const char *name, enum gt_attr_type type,
		    const void *v, size_t n)
{
	const size_t size = type == GT_ATTR_INT ? sizeof(int64_t) :
			    type == GT_ATTR_FLOAT ? sizeof(double) : 1;
	struct gt_attr *a;

	if (!w)
		return GT_ERR(INVAL);
	if (w->done)
		return w_failf(w, GT_ERR(INVAL), "the writer was committed");
	if (!name || !*name || (!v && n))
		return w_failf(w, GT_ERR(INVAL), "attribute without a name or values");
	if (n > ATTR_VALUES_MAX)
		return w_failf(w, GT_ERR(INVAL), "attribute with more than 2^20 values");
	a = realloc(w->pending.v, (w->pending.n + 1) * sizeof(*a));
	if (!a)
		return w_failf(w, GT_ERR(NOMEM), "out of memory");
	w->pending.v = a;
	a += w->pending.n;
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->n = n;
	a->name = strdup(name);
	if (!a->name)
		return w_failf(w, GT_ERR(NOMEM), "out of memory");
	w->pending.n++; /* from here gt_attrs_release frees it */
	if (type == GT_ATTR_INT)
		a->i = malloc(n ? n * size : 1);
	else if (type == GT_ATTR_FLOAT)
		a->f = malloc(n ? n * size : 1);
	else
		a->s = malloc(n + 1);
	if (type == GT_ATTR_INT && a->i)
		memcpy(a->i, v, n * size);
	else if (type == GT_ATTR_FLOAT && a->f)
		memcpy(a->f, v, n * size);
	else if (type == GT_ATTR_STR && a->s) {
		memcpy(a->s, v, n);
		a->s[n] = '\0';
	} else {
		gt_attrs_release(&w->pending);
		return w_failf(w, GT_ERR(NOMEM), "out of memory");
	}
	return 0;
}

GTOOL_API int gtool_writer_attr_int(struct gtool_writer *w, const char *name,
				    const int64_t *v, size_t n)
{
	return attr_add(w, name, GT_ATTR_INT, v, n);
}

GTOOL_API int gtool_writer_attr_float(struct gtool_writer *w, const char *name,
				      const double *v, size_t n)
{
	return attr_add(w, name, GT_ATTR_FLOAT, v, n);
}

GTOOL_API int gtool_writer_attr_str(struct gtool_writer *w, const char *name, const char *s)
{
	if (w && !s)
		return w_failf(w, GT_ERR(INVAL), "NULL string attribute");
	return attr_add(w, name, GT_ATTR_STR, s, s ? strlen(s) : 0);
}

GTOOL_API int gtool_writer_blocks(struct gtool_writer *w, uint32_t block_values,
				  uint32_t chunk_values)
{
	if (!w)
		return GT_ERR(INVAL);
	if ((block_values && (block_values < GT_GTZ_CHUNK_MIN || block_values > GT_GTZ_BLOCK_MAX)) ||
	    (chunk_values && chunk_values < GT_GTZ_CHUNK_MIN))
		return w_failf(w, GT_ERR(INVAL), "block size out of [64, 2^24] or chunk size below 64");
	w->block_values = block_values;
	w->chunk_values = chunk_values;
	return 0;
}

GTOOL_API int gtool_writer_table(struct gtool_writer *w, const char *ght_path)
{
	struct gt_huff_table *probe;
	struct gt_ght g;
	struct gt_diag d = { "" };
	int rc;

	if (!w)
		return GT_ERR(INVAL);
	free(w->table);
	w->table = NULL;
	w->table_len = 0;
	if (!ght_path)
		return 0;
	rc = gt_ght_read(ght_path, &g, &d);
	if (rc < 0) {
		snprintf(w->msg, sizeof(w->msg), "%.120s: %.120s", ght_path,
			 d.msg[0] ? d.msg : gt_strerror(rc));
		return rc;
	}
	probe = malloc(sizeof(*probe));
	rc = probe ? gt_huff_load(probe, g.table, g.table_len, GT_HUFF_STATIC) : GT_ERR(NOMEM);
	free(probe);
	if (rc < 0) {
		gt_ght_release(&g);
		snprintf(w->msg, sizeof(w->msg), "%s: impossible code table", ght_path);
		return GT_ERR(CORRUPT);
	}
	w->table = g.table;
	w->table_len = g.table_len;
	g.table = NULL;
	gt_ght_release(&g);
	return 0;
}

/* Whether the writer can take a group or tensor now. */
static int writer_idle(struct gtool_writer *w)
{
	if (w->err)
		return w->err;
	if (w->done)
		return w_failf(w, GT_ERR(INVAL), "the writer was committed");
	if (w->open)
		return w_failf(w, GT_ERR(INVAL), "a tensor is open");
	return 0;
}

GTOOL_API int gtool_writer_group(struct gtool_writer *w, const char *name)
{
	struct gt_group_info g = { 0 };
	struct gt_diag d = { "" };
	int rc;

	if (!w)
		return GT_ERR(INVAL);
	GT_TRY(writer_idle(w));
	if (!name || name[0] != '/')
		return w_failf(w, GT_ERR(INVAL), "a group name is an absolute path (\"/\", \"/a/b\")");
	g.name = (char *)(uintptr_t)name; /* gt_group_info is not const; it is only read */
	g.attrs = w->pending;
	rc = gt_gtz_write_group(w->w, &g, &d);
	gt_attrs_release(&w->pending);
	return rc < 0 ? w_lost(w, rc, &d) : 0;
}

/* The optimizer context of the tensor about to start, checked. */
static int writer_aux(struct gtool_writer *w, const struct gtool_optctx *opt)
{
	struct gt_diag d = { "" };

	if (!w->aux)
		return 0;
	if (!opt || !opt->param)
		return w_failf(w, GT_ERR(INVAL),
			       "the codec needs the optimizer context: an optctx with param");
	if (opt->n_param != w->count || (opt->state[0] && opt->n_state[0] != w->count) ||
	    (opt->state[1] && opt->n_state[1] != w->count))
		return w_failf(w, GT_ERR(INVAL),
			       "optimizer context arrays differ in length from the tensor");
	if (gt_optim_check(&w->optim, "optimizer context", &d) < 0 ||
	    api_optctx_states(opt, &d) < 0)
		return w_fail(w, GT_ERR(INVAL), &d);
	return 0;
}

/* Whether the codec, as configured, uses the optimizer context: asked of a
 * probe context, so that a missing context is found before the header is out. */
static int probe_aux(struct gtool_writer *w, const struct gt_gtz_coding *c)
{
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };
	const int rc = gt_codec_new(c->codec, &c->params, &ctx, &d);

	if (rc < 0)
		return w_fail(w, rc, &d);
	w->aux = gt_codec_needs_aux(ctx);
	gt_codec_free(ctx);
	return 0;
}

static int begin_checked(struct gtool_writer *w, struct gt_tensor_info *t,
			 const char *spec, const struct gtool_optctx *opt)
{
	struct gt_gtz_coding c = { 0 };
	struct gt_diag d = { "" };
	int rc;

	rc = gt_codec_spec_parse(spec, &c.codec, &c.params.opts, &d);
	if (rc < 0)
		return w_fail(w, rc, &d);
	c.params.dtype = t->dtype;
	c.block_values = w->block_values;
	c.chunk_values = w->chunk_values;
	if (w->table && !(gt_codec_flags(c.codec) & GT_CODEC_TABLE)) {
		snprintf(w->msg, sizeof(w->msg), "codec %s does not use a Huffman table",
			 gt_codec_name(c.codec));
		return GT_ERR(INVAL);
	}
	c.params.table = w->table;
	c.params.table_len = w->table_len;
	if (opt)
		w->optim = opt->o;
	c.params.optim = opt ? &w->optim : NULL;
	w->count = t->count;
	GT_TRY(probe_aux(w, &c));
	GT_TRY(writer_aux(w, opt));
	rc = gt_gtz_begin(w->w, t, &c, &d);
	if (rc == GT_ERR(IO))
		return w_lost(w, rc, &d);
	if (rc < 0)
		return w_fail(w, rc, &d);
	w->open = 1;
	w->dtype = t->dtype;
	w->seen = 0;
	w->opt = w->aux ? opt : NULL;
	return 0;
}

GTOOL_API int gtool_writer_begin(struct gtool_writer *w, const char *name, const char *spec,
				 int dtype, const uint64_t *dims, unsigned rank,
				 const struct gtool_optctx *opt)
{
	struct gt_tensor_info t = { 0 };
	int rc;

	if (!w)
		return GT_ERR(INVAL);
	GT_TRY(writer_idle(w));
	if (!name || !*name || !spec)
		return w_failf(w, GT_ERR(INVAL), "no tensor name or codec spec");
	if (!gtool_dtype_size(dtype))
		return w_failf(w, GT_ERR(TYPE), "unknown dtype");
	if (api_count(dims, rank, &t.count) < 0)
		return w_failf(w, GT_ERR(INVAL), "bad shape");
	t.name = (char *)(uintptr_t)name; /* only read */
	t.dtype = (enum gt_dtype)dtype;
	t.rank = rank;
	for (unsigned i = 0; i < rank; i++)
		t.dims[i] = dims[i];
	t.attrs = w->pending;
	rc = begin_checked(w, &t, spec, opt);
	gt_attrs_release(&w->pending);
	return rc;
}

GTOOL_API int gtool_writer_write(struct gtool_writer *w, const void *src, size_t src_len)
{
	const struct gtool_optctx *o;
	struct gt_codec_aux a = { .param = NULL }; /* float32 context: no 64-bit arrays */
	struct gt_diag d = { "" };
	size_t n, size;
	int rc;

	if (!w)
		return GT_ERR(INVAL);
	if (w->err)
		return w->err;
	if (!w->open || w->done)
		return w_failf(w, GT_ERR(INVAL), "no tensor is open");
	if (!src && src_len)
		return w_failf(w, GT_ERR(INVAL), "NULL source");
	size = gt_dtype_size(w->dtype);
	n = src_len / size;
	if (src_len % size || n > w->count - w->seen)
		return w_failf(w, GT_ERR(INVAL), "length not a whole number of values, or past the tensor's end");
	if (!n)
		return 0;
	o = w->opt;
	if (o) {
		a.param = o->param + w->seen;
		a.state[0] = o->state[0] ? o->state[0] + w->seen : NULL;
		a.state[1] = o->state[1] ? o->state[1] + w->seen : NULL;
	}
	rc = gt_gtz_write_aux(w->w, src, o ? &a : NULL, n, &d);
	if (rc < 0)
		return w_lost(w, rc, &d);
	w->seen += n;
	return 0;
}

GTOOL_API int gtool_writer_end(struct gtool_writer *w)
{
	struct gt_diag d = { "" };
	int rc;

	if (!w)
		return GT_ERR(INVAL);
	if (w->err)
		return w->err;
	if (!w->open || w->done)
		return w_failf(w, GT_ERR(INVAL), "no tensor is open");
	if (w->seen != w->count)
		return w_failf(w, GT_ERR(INVAL), "the tensor is not complete");
	rc = gt_gtz_end(w->w, &d);
	w->open = 0;
	w->opt = NULL;
	return rc < 0 ? w_lost(w, rc, &d) : 0;
}

GTOOL_API int gtool_writer_commit(struct gtool_writer *w)
{
	struct gt_diag d = { "" };
	int rc;

	if (!w)
		return GT_ERR(INVAL);
	GT_TRY(writer_idle(w));
	w->done = 1;
	rc = gt_gtz_writer_commit(w->w, &d);
	return rc < 0 ? w_lost(w, rc, &d) : 0;
}

GTOOL_API uint64_t gtool_writer_bytes(const struct gtool_writer *w)
{
	return w ? gt_gtz_writer_bytes(w->w) : 0;
}

GTOOL_API void gtool_writer_free(struct gtool_writer *w)
{
	if (!w)
		return;
	gt_gtz_writer_free(w->w);
	gt_attrs_release(&w->pending);
	free(w->table);
	free(w);
}

GTOOL_API const char *gtool_writer_errmsg(const struct gtool_writer *w)
{
	return w ? w->msg : "no writer";
}

/* ---- reader ----------------------------------------------------------------- */

static int r_fail(struct gtool_reader *r, int rc, const struct gt_diag *d)
{
	return api_msg(r->msg, rc, d);
}

static int r_failf(struct gtool_reader *r, int rc, const char *what)
{
	snprintf(r->msg, sizeof(r->msg), "%s", what);
	return rc;
}

static int reader_wrap(struct gt_gtz_reader *gr, FILE *f, int rc, const struct gt_diag *d,
		       struct gtool_reader **r_ret, struct gtool_errbuf *err)
{
	struct gtool_reader *r;

	if (rc < 0) {
		if (f)
			fclose(f);
		return api_err(err, rc, d);
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		gt_gtz_reader_free(gr);
		if (f)
			fclose(f);
		return api_errf(err, GT_ERR(NOMEM), "out of memory");
	}
	r->r = gr;
	r->f = f;
	*r_ret = r;
	return 0;
}

/* The checks every open makes. */
static int reader_args(unsigned threads, struct gtool_reader **r_ret,
		       struct gtool_errbuf *err)
{
	api_err_clear(err);
	if (!r_ret)
		return api_errf(err, GT_ERR(INVAL), "no place for the reader");
	*r_ret = NULL;
	if (threads > GT_GTZ_THREADS_MAX)
		return api_errf(err, GT_ERR(INVAL), "bad thread count");
	return 0;
}

GTOOL_API int gtool_reader_open_path(const char *path, unsigned threads,
				     struct gtool_reader **r_ret, struct gtool_errbuf *err)
{
	struct gt_gtz_reader *gr = NULL;
	struct gt_diag d = { "" };
	FILE *f;
	int rc;

	GT_TRY(reader_args(threads, r_ret, err));
	if (!path)
		return api_errf(err, GT_ERR(INVAL), "no path");
	f = fopen(path, "rb");
	if (!f)
		return api_errf(err, GT_ERR(IO), "%s: %s", path, strerror(errno));
	rc = gt_gtz_reader_open(f, threads, &gr, &d);
	return reader_wrap(gr, f, rc, &d, r_ret, err);
}

GTOOL_API int gtool_reader_open_fd(int fd, unsigned threads, struct gtool_reader **r_ret,
				   struct gtool_errbuf *err)
{
	struct gt_gtz_reader *gr = NULL;
	struct gt_diag d = { "" };
	int rc;

	GT_TRY(reader_args(threads, r_ret, err));
	rc = gt_gtz_reader_open_fd(fd, threads, &gr, &d);
	return reader_wrap(gr, NULL, rc, &d, r_ret, err);
}

GTOOL_API int gtool_reader_open_mem(const void *p, size_t len, unsigned threads,
				    struct gtool_reader **r_ret, struct gtool_errbuf *err)
{
	struct gt_gtz_reader *gr = NULL;
	struct gt_diag d = { "" };
	int rc;

	GT_TRY(reader_args(threads, r_ret, err));
	rc = gt_gtz_reader_open_mem(p, len, threads, &gr, &d);
	return reader_wrap(gr, NULL, rc, &d, r_ret, err);
}

GTOOL_API int gtool_reader_open_cb(gtool_read_fn fn, void *arg, unsigned threads,
				   struct gtool_reader **r_ret, struct gtool_errbuf *err)
{
	const struct gt_gtz_io io = { .read = fn, .arg = arg };
	struct gt_gtz_reader *gr = NULL;
	struct gt_diag d = { "" };
	int rc;

	GT_TRY(reader_args(threads, r_ret, err));
	rc = gt_gtz_reader_open_io(&io, threads, &gr, &d);
	return reader_wrap(gr, NULL, rc, &d, r_ret, err);
}

GTOOL_API void gtool_reader_free(struct gtool_reader *r)
{
	if (!r)
		return;
	gt_gtz_reader_free(r->r);
	if (r->f)
		fclose(r->f);
	free(r);
}

GTOOL_API int gtool_reader_next(struct gtool_reader *r, int *ev_ret)
{
	enum gt_gtz_event ev;
	struct gt_diag d = { "" };
	int rc;

	if (!r)
		return GT_ERR(INVAL);
	if (!ev_ret)
		return r_failf(r, GT_ERR(INVAL), "no place for the event");
	if (r->err)
		return r->err; /* the stream cannot be resynchronized; msg kept */
	if (r->have && r->ev == GTOOL_EV_EOF) {
		*ev_ret = GTOOL_EV_EOF;
		return 0;
	}
	if (r->ev == GTOOL_EV_DATA) {
		size_t n;
		const void *p;

		gt_gtz_data(r->r, &p, &n);
		r->seen += n;
	}
	rc = gt_gtz_next(r->r, &ev, &d);
	if (rc < 0) {
		/* what the last event pointed to may be half torn down */
		r->err = rc;
		r->in_tensor = 0;
		r->ev = -1;
		return r_fail(r, rc, &d);
	}
	r->have = 1;
	r->ev = (int)ev;
	if (ev == GT_GTZ_TENSOR) {
		r->in_tensor = 1;
		r->seen = 0;
	} else if (ev == GT_GTZ_GROUP || ev == GT_GTZ_EOF || ev == GT_GTZ_OBJECT) {
		r->in_tensor = 0;
	}
	*ev_ret = r->ev;
	return 0;
}

GTOOL_API const char *gtool_reader_name(const struct gtool_reader *r)
{
	if (!r || !r->have || r->err || r->ev == GTOOL_EV_EOF)
		return NULL;
	if (r->ev == GTOOL_EV_OBJECT)
		return gt_gtz_object(r->r)->name;
	return r->in_tensor ? gt_gtz_tensor(r->r)->info.name : gt_gtz_group(r->r)->name;
}

GTOOL_API int gtool_reader_info(const struct gtool_reader *r, struct gtool_info *info)
{
	const struct gt_tensor_info *t;

	if (!r || !info || !r->in_tensor)
		return GT_ERR(INVAL);
	t = &gt_gtz_tensor(r->r)->info;
	memset(info, 0, sizeof(*info));
	info->dtype = (int)t->dtype;
	info->rank = t->rank;
	for (unsigned i = 0; i < t->rank && i < GTOOL_MAX_RANK; i++)
		info->dims[i] = t->dims[i];
	info->count = t->count;
	return 0;
}

GTOOL_API int gtool_reader_codec(const struct gtool_reader *r, char *buf, size_t cap)
{
	const struct gt_gtz_tensor *t;
	int n;

	if (!r || (!buf && cap) || !r->in_tensor)
		return GT_ERR(INVAL);
	t = gt_gtz_tensor(r->r);
	n = snprintf(buf, cap, "%s%s%s", gt_codec_name(t->codec),
		     t->opts && *t->opts ? ":" : "", t->opts ? t->opts : "");
	return n < 0 ? GT_ERR(INVAL) : n;
}

static const struct gt_attrs *cur_attrs(const struct gtool_reader *r)
{
	if (!r || !r->have || r->err || r->ev == GTOOL_EV_EOF)
		return NULL;
	if (r->ev == GTOOL_EV_OBJECT)
		return &gt_gtz_object(r->r)->attrs;
	return r->in_tensor ? &gt_gtz_tensor(r->r)->info.attrs : &gt_gtz_group(r->r)->attrs;
}

GTOOL_API size_t gtool_reader_nattrs(const struct gtool_reader *r)
{
	const struct gt_attrs *a = cur_attrs(r);

	return a ? a->n : 0;
}

GTOOL_API int gtool_reader_attr(const struct gtool_reader *r, size_t i, struct gtool_attr *a)
{
	const struct gt_attrs *as = cur_attrs(r);
	const struct gt_attr *v;

	if (!as || !a || i >= as->n)
		return GT_ERR(INVAL);
	v = &as->v[i];
	a->name = v->name;
	a->type = (int)v->type;
	a->n = v->n;
	a->i = v->type == GT_ATTR_INT ? v->i : NULL;
	a->f = v->type == GT_ATTR_FLOAT ? v->f : NULL;
	a->s = v->type == GT_ATTR_STR ? v->s : NULL;
	return 0;
}

GTOOL_API int gtool_reader_object(const struct gtool_reader *r, struct gtool_object *o)
{
	const struct gt_object *g;

	if (!r || !o || r->err || r->ev != GTOOL_EV_OBJECT)
		return GT_ERR(INVAL);
	g = gt_gtz_object(r->r);
	memset(o, 0, sizeof(*o));
	o->kind = (int)g->kind;
	o->name = g->name;
	o->target = g->kind == GT_OBJ_DATASET ? NULL : g->target;
	o->file = g->kind == GT_OBJ_EXTERNAL ? g->file : NULL;
	if (g->kind != GT_OBJ_DATASET)
		return 0;
	o->type_desc = g->type_desc;
	o->rank = g->blob.rank <= GTOOL_MAX_RANK ? g->blob.rank : 0;
	for (unsigned i = 0; i < o->rank; i++)
		o->dims[i] = g->blob.dims[i];
	o->data = g->blob.data;
	o->data_len = g->blob.data_len;
	return 0;
}

GTOOL_API int gtool_reader_data(const struct gtool_reader *r, const void **p_ret,
				size_t *len_ret, uint64_t *first_ret)
{
	size_t n;

	if (!r || !p_ret || !len_ret || r->ev != GTOOL_EV_DATA)
		return GT_ERR(INVAL);
	gt_gtz_data(r->r, p_ret, &n);
	*len_ret = n * gt_dtype_size(gt_gtz_tensor(r->r)->info.dtype);
	if (first_ret)
		*first_ret = r->seen;
	return 0;
}

GTOOL_API int gtool_reader_read_tensor(struct gtool_reader *r, void *dst, size_t dst_cap,
				       size_t *len_ret)
{
	size_t done = 0;
	int ev = GTOOL_EV_TENSOR;

	if (!r)
		return GT_ERR(INVAL);
	if (!len_ret || (!dst && dst_cap) || !r->in_tensor || r->ev != GTOOL_EV_TENSOR)
		return r_failf(r, GT_ERR(INVAL), "not at the start of a tensor");
	*len_ret = 0;
	while (ev != GTOOL_EV_TENSOR_END) {
		const void *p;
		size_t len;

		GT_TRY(gtool_reader_next(r, &ev));
		if (ev == GTOOL_EV_EOF)
			return r_failf(r, GT_ERR(CORRUPT), "the stream ends inside a tensor");
		if (ev != GTOOL_EV_DATA)
			continue;
		gtool_reader_data(r, &p, &len, NULL);
		if (len > dst_cap - done)
			return r_failf(r, GT_ERR(DST_TOO_SMALL), "the tensor does not fit the buffer");
		memcpy((unsigned char *)dst + done, p, len);
		done += len;
	}
	*len_ret = done;
	return 0;
}

GTOOL_API const char *gtool_reader_errmsg(const struct gtool_reader *r)
{
	return r ? r->msg : "no reader";
}
