/* npy.c - NumPy .npy files v1.0-v3.0: header parsing, streaming reads, writing */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sink_impl.h"
#include "source_impl.h"
#include "stream_impl.h"
#include "npy_impl.h"
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

/* The length of the preamble (10 or 12 bytes) and of the header text from
 * the first 10 bytes at @pre; @more: 2 more bytes needed (v2, v3). */
static int preamble(const unsigned char *pre, size_t *pre_len, int *more,
		    struct gt_diag *d)
{
	if (memcmp(pre, "\x93NUMPY", 6))
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: no magic");
	if (pre[6] < 1 || pre[6] > 3)
		return gt_diag_set(d, GT_ERR(UNSUPPORTED), ".npy version %u.%u is not supported",
				   pre[6], pre[7]);
	*more = pre[6] > 1;
	*pre_len = *more ? 12 : 10;
	return 0;
}

static size_t header_len(const unsigned char *pre, int more)
{
	size_t len = (size_t)pre[8] | (size_t)pre[9] << 8;

	if (more)
		len |= (size_t)pre[10] << 16 | (size_t)pre[11] << 24;
	return len;
}

/* Read the preamble and the header text into one malloc'd buffer of
 * *@len_ret bytes (the data offset). */
static int read_header(FILE *f, unsigned char **buf_ret, size_t *len_ret,
		       struct gt_diag *d)
{
	unsigned char pre[12], *buf;
	size_t pre_len, len;
	int more;

	if (fread(pre, 1, 10, f) != 10)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: no magic");
	GT_TRY(preamble(pre, &pre_len, &more, d));
	if (more && fread(pre + 10, 1, 2, f) != 2)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: truncated");
	len = header_len(pre, more);
	if (len > NPY_MAX_HEADER)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: %zu bytes long", len);
	buf = malloc(pre_len + len);
	if (!buf)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	memcpy(buf, pre, pre_len);
	if (fread(buf + pre_len, 1, len, f) != len) {
		free(buf);
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: truncated");
	}
	*buf_ret = buf;
	*len_ret = pre_len + len;
	return 0;
}

/* What a descr that is no float gtool reads is, for messages and listings. */
static const char *descr_kind(const char *c)
{
	switch (c[0] ? c[1] : 0) {
	case 'i': return "integer";
	case 'u': return "unsigned integer";
	case 'b': case '?': return "bool";
	case 'c': return "complex";
	case 'S': case 'U': case 'a': return "string";
	case 'O': return "object";
	case 'f': return "long double (float128)";
	default: return "not floating point";
	}
}

/* The dtype of @h's descr and whether its bytes are swapped; long double
 * ('<f16', '<f12') and big-endian types are named. */
static int check_descr(const struct npy_header *h, enum gt_dtype *dt, int *swap,
		       struct gt_diag *d)
{
	static const struct {
		const char *d;
		enum gt_dtype dt;
	} ok[] = { { "f4", GT_DT_F32 }, { "f8", GT_DT_F64 }, { "f2", GT_DT_F16 } };
	const char *c = h->descr;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		if (c[0] && !strcmp(c + 1, ok[i].d) && strchr("<>=|", c[0])) {
			*dt = ok[i].dt;
			*swap = c[0] == '>'; /* gtool runs on little-endian hosts */
			return 0;
		}
	}
	if (c[0] && (!strcmp(c + 1, "f16") || !strcmp(c + 1, "f12")))
		return gt_diag_set(d, GT_ERR(TYPE), "dtype '%s': long double (float128) "
				   "is not supported", c);
	return gt_diag_set(d, GT_ERR(TYPE), "dtype '%s' is not floating point", c);
}

/* Fill @t's shape and count from the header. */
static int fill_shape(struct gt_tensor_info *t, const struct npy_header *h,
		      struct gt_diag *d)
{
	uint64_t count = 1;

	t->rank = h->rank;
	for (unsigned k = 0; k < h->rank; k++) {
		t->dims[k] = h->dims[k];
		if (h->dims[k] && count > (UINT64_MAX / 16) / h->dims[k])
			return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: shape too large");
		count *= h->dims[k];
	}
	t->count = count;
	return 0;
}

/* Check @t's count against the file size. */
static int fill_info(const struct gt_tensor_info *t, const struct gt_stream *st,
		     struct gt_diag *d)
{
	const unsigned size = gt_dtype_size(t->dtype);
	const uint64_t count = t->count;
	struct stat sb;

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

/* Reverse the bytes of @n values of @size bytes in place. */
static void swap_bytes(unsigned char *p, size_t n, unsigned size)
{
	for (size_t i = 0; i < n; i++, p += size)
		for (unsigned a = 0, b = size - 1; a < b; a++, b--) {
			const unsigned char t = p[a];

			p[a] = p[b];
			p[b] = t;
		}
}

void gt_npy_to_c_order(const struct gt_tensor_info *t, int fortran, int swap,
		       const void *src, void *dst)
{
	const unsigned size = gt_dtype_size(t->dtype);
	const unsigned char *in = src;
	unsigned char *out = dst;
	uint64_t idx[GT_MAX_RANK] = { 0 }, cstride[GT_MAX_RANK], c = 0;

	if (!fortran || t->rank < 2) {
		if (dst != src)
			memcpy(dst, src, (size_t)t->count * size);
		if (swap)
			swap_bytes(dst, (size_t)t->count, size);
		return;
	}
	for (unsigned k = t->rank; k-- > 0;)
		cstride[k] = k + 1 < t->rank ? cstride[k + 1] * t->dims[k + 1] : 1;
	/* the file runs through the first index fastest: an odometer over it
	 * keeps the C offset c of each value */
	for (uint64_t f = 0; f < t->count; f++) {
		memcpy(out + c * size, in + f * size, size);
		for (unsigned k = 0; k < t->rank; k++) {
			c += cstride[k];
			if (++idx[k] < t->dims[k])
				break;
			c -= cstride[k] * t->dims[k];
			idx[k] = 0;
		}
	}
	if (swap)
		swap_bytes(dst, (size_t)t->count, size);
}

int gt_npy_parse(const void *buf, size_t len, struct gt_tensor_info *t,
		 struct gt_npy_layout *l, struct gt_diag *d)
{
	const unsigned char *b = buf;
	struct npy_header h;
	const char *why;
	size_t pre_len, hl;
	int more, type_rc;

	if (len < 10)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: no magic");
	GT_TRY(preamble(b, &pre_len, &more, d));
	if (len < pre_len)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: truncated");
	hl = header_len(b, more);
	if (hl > len - pre_len)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: truncated");
	why = parse_dict((const char *)b + pre_len, hl, &h);
	if (why && !h.have_descr)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: %s", why);
	l->kind = descr_kind(h.descr);
	type_rc = h.have_descr ? check_descr(&h, &t->dtype, &l->swap, d) : 0;
	if (why && type_rc < 0)
		return type_rc;
	if (why)
		return gt_diag_set(d, GT_ERR(CORRUPT), "bad .npy header: %s", why);
	l->fortran = h.fortran;
	l->off = pre_len + hl;
	/* a shape for an array of another type too (an .npz lists it) */
	GT_TRY(fill_shape(t, &h, d));
	return type_rc;
}

/* The source: values read through the stream, swapped in place; a
 * Fortran-order array is read whole at the first read and kept in C
 * order (its values are scattered through the file otherwise). */
struct npy_src {
	struct gt_stream st;
	struct gt_npy_layout l;
	unsigned char *whole;
};

static int load_whole(struct npy_src *p, struct gt_tensor_info *t, struct gt_diag *d)
{
	const size_t size = gt_dtype_size(t->dtype);
	unsigned char *raw;
	size_t got = 0, n;
	int rc = 0;

	if (t->count > SIZE_MAX / size)
		return gt_diag_set(d, GT_ERR(OVERFLOW), "array too large for memory");
	raw = malloc((size_t)t->count * size + 1);
	p->whole = malloc((size_t)t->count * size + 1);
	if (!raw || !p->whole) {
		free(raw);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	while (rc >= 0 && got < t->count) {
		rc = gt_stream_read(&p->st, t, got, (size_t)t->count - got, raw + got * size, &n, d);
		if (rc >= 0 && !n)
			rc = gt_diag_set(d, GT_ERR(TRUNCATED), "data ends at value %zu", got);
		got += n;
	}
	if (rc >= 0)
		gt_npy_to_c_order(t, 1, p->l.swap, raw, p->whole);
	free(raw);
	return rc;
}

static int npy_read(struct gt_source *s, size_t i, uint64_t first, size_t n,
		    void *dst, size_t *n_ret, struct gt_diag *d)
{
	struct npy_src *p = s->priv;
	struct gt_tensor_info *t = &s->tensors[i];
	const unsigned size = gt_dtype_size(t->dtype);

	if (p->l.fortran && t->rank > 1) {
		if (!p->whole) {
			const int rc = load_whole(p, t, d);

			if (rc < 0) {
				free(p->whole);
				p->whole = NULL;
				return rc;
			}
		}
		*n_ret = first >= t->count ? 0 : (size_t)(t->count - first < n ? t->count - first : n);
		memcpy(dst, p->whole + first * size, *n_ret * size);
		return 0;
	}
	GT_TRY(gt_stream_read(&p->st, t, first, n, dst, n_ret, d));
	if (p->l.swap)
		swap_bytes(dst, *n_ret, size);
	return 0;
}

static void npy_close(struct gt_source *s)
{
	struct npy_src *p = s->priv;

	if (p) {
		gt_stream_close(&p->st);
		free(p->whole);
	}
	free(p);
	s->priv = NULL;
}

static const struct gt_source_ops npy_ops = { npy_read, npy_close };

static int parse_into(struct gt_source *s, struct npy_src *p, struct gt_diag *d)
{
	struct gt_tensor_info *t = &s->tensors[0];
	struct gt_stream *st = &p->st;
	unsigned char *hdr = NULL;
	size_t len = 0;
	int rc;

	rc = read_header(st->f, &hdr, &len, d);
	if (rc < 0)
		return rc;
	rc = gt_npy_parse(hdr, len, t, &p->l, d);
	free(hdr);
	if (rc < 0)
		return rc;
	st->off = p->l.off;
	st->size = gt_dtype_size(t->dtype);
	return fill_info(t, st, d);
}

int gt_npy_source_open(struct gt_source *s, FILE *f, struct gt_diag *d)
{
	struct npy_src *p = calloc(1, sizeof(*p));

	s->tensors = calloc(1, sizeof(*s->tensors));
	if (!p || !s->tensors) {
		free(p);
		fclose(f);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	gt_stream_init(&p->st, f, 1);
	s->priv = p;
	s->ops = &npy_ops;
	s->ntensors = 1;
	s->tensors[0].name = strcmp(s->path, "-") ? gt_stream_base_name(s->path)
						   : strdup("-");
	if (!s->tensors[0].name)
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	return parse_into(s, p, d);
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
