/* npy.c - NumPy .npy files v1.0-v3.0: header parsing, streaming reads, writing */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sink_impl.h"
#include "source_impl.h"
#include "stream_impl.h"
#include "../lib/banned.h"

#define NPY_MAX_HEADER (1u << 20) /* numpy itself refuses more than 10000 bytes */

/* What the header dict says. */
struct npy_header {
	char descr[16];
	int have_descr, have_order, have_shape;
	int fortran;
	unsigned rank;
	uint64_t dims[GT_MAX_RANK];
};

/* A cursor over the header text, with the reason of the first failure. */
struct cursor {
	const char *p, *end;
};

static void skip_ws(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' ||
				 *c->p == '\r'))
		c->p++;
}

static int eat(struct cursor *c, char ch)
{
	skip_ws(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return 1;
	}
	return 0;
}

/* A quoted Python string into @buf (at most @cap - 1 chars). */
static int parse_str(struct cursor *c, char *buf, size_t cap)
{
	char q;
	size_t n = 0;

	skip_ws(c);
	if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
		return -1;
	q = *c->p++;
	while (c->p < c->end && *c->p != q) {
		if (*c->p == '\\' || n + 1 >= cap)
			return -1;
		buf[n++] = *c->p++;
	}
	if (c->p >= c->end)
		return -1;
	c->p++;
	buf[n] = '\0';
	return 0;
}

static int parse_word(struct cursor *c, const char *w)
{
	const size_t len = strlen(w);

	skip_ws(c);
	if ((size_t)(c->end - c->p) < len || memcmp(c->p, w, len))
		return 0;
	c->p += len;
	return 1;
}

static int parse_uint(struct cursor *c, uint64_t *v)
{
	uint64_t x = 0;
	const char *start;

	skip_ws(c);
	start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		const unsigned dgt = (unsigned)(*c->p - '0');

		if (x > (UINT64_MAX - dgt) / 10)
			return -1;
		x = x * 10 + dgt;
		c->p++;
	}
	if (c->p == start)
		return -1;
	if (c->p < c->end && *c->p == 'L') /* Python 2 longs */
		c->p++;
	*v = x;
	return 0;
}

/* "(3, 4)", "(5,)", "()". */
static const char *parse_shape(struct cursor *c, struct npy_header *h)
{
	if (!eat(c, '('))
		return "shape is not a tuple";
	h->rank = 0;
	while (!eat(c, ')')) {
		if (h->rank == GT_MAX_RANK)
			return "too many dimensions";
		if (parse_uint(c, &h->dims[h->rank]) < 0)
			return "bad dimension in shape";
		h->rank++;
		if (!eat(c, ',')) {
			if (!eat(c, ')'))
				return "bad shape tuple";
			break;
		}
	}
	h->have_shape = 1;
	return NULL;
}

static const char *parse_value(struct cursor *c, const char *key,
			       struct npy_header *h)
{
	if (!strcmp(key, "descr")) {
		skip_ws(c);
		if (c->p < c->end && *c->p == '[') {
			snprintf(h->descr, sizeof(h->descr), "[...]");
			h->have_descr = 1;
			return "structured dtypes are not supported";
		}
		if (parse_str(c, h->descr, sizeof(h->descr)) < 0)
			return "bad descr";
		h->have_descr = 1;
		return NULL;
	}
	if (!strcmp(key, "fortran_order")) {
		if (parse_word(c, "True"))
			h->fortran = 1;
		else if (!parse_word(c, "False"))
			return "bad fortran_order";
		h->have_order = 1;
		return NULL;
	}
	if (!strcmp(key, "shape"))
		return parse_shape(c, h);
	return "unknown key";
}

/* Parse the dict; NULL on success, else what is wrong. */
static const char *parse_dict(const char *text, size_t len, struct npy_header *h)
{
	struct cursor c = { text, text + len };
	char key[32];
	const char *why;

	memset(h, 0, sizeof(*h));
	if (!eat(&c, '{'))
		return "no dict";
	while (!eat(&c, '}')) {
		if (parse_str(&c, key, sizeof(key)) < 0)
			return "bad key";
		if (!eat(&c, ':'))
			return "missing ':'";
		why = parse_value(&c, key, h);
		if (why)
			return why;
		if (!eat(&c, ',')) {
			if (!eat(&c, '}'))
				return "missing ',' or '}'";
			break;
		}
	}
	if (!h->have_descr || !h->have_order || !h->have_shape)
		return "missing descr, fortran_order or shape";
	skip_ws(&c);
	return c.p == c.end ? NULL : "text after the dict";
}

/* Read the preamble and the header text; returns the data offset. */
static int read_header(FILE *f, char **text_ret, size_t *len_ret,
		       uint64_t *off_ret, struct gt_diag *d)
{
	unsigned char pre[12];
	size_t pre_len, len;
	char *text;

	if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6))
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: no magic");
	if (pre[6] < 1 || pre[6] > 3)
		return gt_diag_set(d, GT_ERR(UNSUPPORTED), ".npy version %u.%u is not supported",
				   pre[6], pre[7]);
	if (pre[6] == 1) {
		pre_len = 10;
		len = (size_t)pre[8] | (size_t)pre[9] << 8;
	} else {
		if (fread(pre + 10, 1, 2, f) != 2)
			return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: truncated");
		pre_len = 12;
		len = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
		      (size_t)pre[11] << 24;
	}
	if (len > NPY_MAX_HEADER)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: %zu bytes long", len);
	text = malloc(len + 1);
	if (!text)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	if (fread(text, 1, len, f) != len) {
		free(text);
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: truncated");
	}
	text[len] = '\0';
	*text_ret = text;
	*len_ret = len;
	*off_ret = pre_len + len;
	return 0;
}

static int check_descr(const struct npy_header *h, enum gt_dtype *dt, struct gt_diag *d)
{
	static const struct {
		const char *d;
		enum gt_dtype dt;
	} ok[] = { { "f4", GT_DT_F32 }, { "f8", GT_DT_F64 }, { "f2", GT_DT_F16 } };
	const char *c = h->descr;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (c[0] && !strcmp(c + 1, ok[i].d)) {
			if (c[0] == '<') {
				*dt = ok[i].dt;
				return 0;
			}
			if (c[0] == '>')
				return gt_diag_set(d, GT_ERR(UNSUPPORTED),
						   "big-endian .npy arrays are not supported");
		}
	}
	return gt_diag_set(d, GT_ERR(TYPE), "dtype '%s' is not floating point", c);
}

/* Fill @t from the header and check the count against the file size. */
static int fill_info(struct gt_tensor_info *t, const struct npy_header *h,
		     const struct gt_stream *st, struct gt_diag *d)
{
	const unsigned size = gt_dtype_size(t->dtype);
	uint64_t count = 1;
	struct stat sb;

	if (h->fortran)
		return gt_diag_set(d, GT_ERR(UNSUPPORTED),
				   "Fortran-order .npy arrays are not supported");
	t->rank = h->rank;
	for (unsigned k = 0; k < h->rank; k++) {
		t->dims[k] = h->dims[k];
		if (h->dims[k] && count > (UINT64_MAX / 16) / h->dims[k])
			return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: shape too large");
		count *= h->dims[k];
	}
	t->count = count;
	if (st->fd < 0 || fstat(st->fd, &sb) < 0)
		return 0;
	if ((uint64_t)sb.st_size < st->off ||
	    ((uint64_t)sb.st_size - st->off) / size < count)
		return gt_diag_set(d, GT_ERR(TRUNCATED),
				   "data holds %" PRIu64 " bytes, the shape needs %" PRIu64,
				   (uint64_t)sb.st_size > st->off ? (uint64_t)sb.st_size - st->off : 0,
				   count * size);
	return 0;
}

static int npy_read(struct gt_source *s, size_t i, uint64_t first, size_t n,
		    void *dst, size_t *n_ret, struct gt_diag *d)
{
	return gt_stream_read(s->priv, &s->tensors[i], first, n, dst, n_ret, d);
}

static void npy_close(struct gt_source *s)
{
	if (s->priv)
		gt_stream_close(s->priv);
	free(s->priv);
	s->priv = NULL;
}

static const struct gt_source_ops npy_ops = { npy_read, npy_close };

static int parse_into(struct gt_source *s, struct gt_stream *st, struct gt_diag *d)
{
	struct gt_tensor_info *t = &s->tensors[0];
	struct npy_header h;
	const char *why;
	char *text = NULL;
	size_t len = 0;
	int rc;

	rc = read_header(st->f, &text, &len, &st->off, d);
	if (rc < 0)
		return rc;
	why = parse_dict(text, len, &h);
	free(text);
	if (why && !h.have_descr)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: %s", why);
	if (h.have_descr)
		GT_TRY(check_descr(&h, &t->dtype, d));
	if (why)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: %s", why);
	st->size = gt_dtype_size(t->dtype);
	return fill_info(t, &h, st, d);
}

int gt_npy_source_open(struct gt_source *s, FILE *f, struct gt_diag *d)
{
	struct gt_stream *st = calloc(1, sizeof(*st));

	s->tensors = calloc(1, sizeof(*s->tensors));
	if (!st || !s->tensors) {
		free(st);
		fclose(f);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	gt_stream_init(st, f, 1);
	s->priv = st;
	s->ops = &npy_ops;
	s->ntensors = 1;
	s->tensors[0].name = strcmp(s->path, "-") ? gt_stream_base_name(s->path)
						   : strdup("-");
	if (!s->tensors[0].name)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	return parse_into(s, st, d);
}

/* ---- sink ------------------------------------------------------------- */

static uint64_t dims_product(const struct gt_tensor_info *t)
{
	uint64_t count = 1;

	for (unsigned k = 0; k < t->rank; k++) {
		if (t->dims[k] && count > UINT64_MAX / t->dims[k])
			return GT_COUNT_UNKNOWN;
		count *= t->dims[k];
	}
	return count;
}

/* The dict, padded with spaces and a newline so the data starts at a multiple of 64. */
static size_t npy_header_text(const struct gt_tensor_info *t, const char *descr,
			      unsigned char *hdr, size_t cap)
{
	char *const text = (char *)hdr + 10;
	const size_t tcap = cap - 10;
	int n = snprintf(text, tcap, "{'descr': '%s', 'fortran_order': False, 'shape': (",
			 descr);
	size_t total;

	for (unsigned k = 0; k < t->rank; k++)
		n += snprintf(text + n, tcap - (size_t)n, "%" PRIu64 "%s", t->dims[k],
			      k + 1 < t->rank ? ", " : t->rank == 1 ? "," : "");
	n += snprintf(text + n, tcap - (size_t)n, "), }");
	total = (10 + (size_t)n + 1 + 63) / 64 * 64;
	memset(text + n, ' ', total - 10 - (size_t)n - 1);
	hdr[total - 1] = '\n';
	memcpy(hdr, "\x93NUMPY\x01\x00", 8);
	hdr[8] = (unsigned char)((total - 10) & 0xff);
	hdr[9] = (unsigned char)((total - 10) >> 8);
	return total;
}

static int npy_sink_begin(struct gt_sink *s, struct gt_diag *d)
{
	const struct gt_tensor_info *t = &s->info;
	const char *descr = t->dtype == GT_DT_F32 ? "<f4" : t->dtype == GT_DT_F64 ? "<f8"
			  : t->dtype == GT_DT_F16 ? "<f2" : NULL;
	/* 32 dims of 20 digits fit: v1.0 (64 KiB headers) is always enough */
	unsigned char hdr[1024];

	if (!descr)
		return gt_diag_set(d, GT_ERR(TYPE), "%s cannot be stored in .npy; use .h5 or raw",
				   gt_dtype_name(t->dtype));
	if (t->count == GT_COUNT_UNKNOWN)
		return gt_diag_set(d, GT_ERR(INVAL), "%s: .npy needs the count up front", s->path);
	if (dims_product(t) != t->count)
		return gt_diag_set(d, GT_ERR(INVAL), "tensor %s: shape and count disagree",
				   t->name);
	return gt_sink_put(s, hdr, npy_header_text(t, descr, hdr, sizeof(hdr)), d);
}

static int npy_sink_write(struct gt_sink *s, const void *src, size_t n,
			  struct gt_diag *d)
{
	return gt_sink_put(s, src, n * gt_dtype_size(s->info.dtype), d);
}

static int npy_sink_end(struct gt_sink *s, struct gt_diag *d)
{
	(void)s;
	(void)d;
	return 0;
}

static int npy_sink_commit(struct gt_sink *s, struct gt_diag *d)
{
	return gt_sink_close_file(s, d);
}

const struct gt_sink_ops gt_npy_sink_ops = {
	.begin = npy_sink_begin,
	.write = npy_sink_write,
	.end = npy_sink_end,
	.commit = npy_sink_commit,
	.single = 1,
	.uses_file = 1,
};
