/* test_gtool_api.c - the public API of gtool.h: round trips, errors, traces, metrics */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../../api/gtool.h"

#define TRACE "samples/lstm_adamw.h5"

/* Random f32 values with the awkward ones mixed in: ±0, subnormals, NaN, Inf. */
static float *random_f32(size_t n, int specials)
{
	static const uint32_t odd[] = { 0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu,
					0x7fc00000u, 0x7f800000u, 0xff800000u, 0x7f7fffffu };
	float *v = malloc((n ? n : 1) * sizeof(*v));

	for (size_t i = 0; i < n; i++) {
		const double u = (double)(check_rand() >> 11) / 9007199254740992.0;

		v[i] = (float)((u - 0.5) * 1e-3 * exp2((double)(check_rand() % 8)));
		if (specials && i % 97 == 3)
			memcpy(&v[i], &odd[(i / 97) % 8], 4);
	}
	return v;
}

static void test_version(void)
{
	/* the header's version is the Makefile's VERSION (-DGT_VERSION) */
	CHECK(!strcmp(GTOOL_VERSION_STRING, GTOOL_STR(GT_VERSION)));
	CHECK(!strcmp(gtool_version(), GTOOL_VERSION_STRING));
	CHECK(gtool_version_number() == GTOOL_VERSION_MAJOR * 10000u +
	      GTOOL_VERSION_MINOR * 100u + GTOOL_VERSION_PATCH);
	CHECK(!strcmp(gtool_strerror(GTOOL_E_DST_TOO_SMALL), "output buffer too small"));
	CHECK(!strcmp(gtool_strerror(-9999), "unknown error"));
	CHECK(!strcmp(gtool_strerror(12345), "unknown error"));
	CHECK(gtool_dtype_size(GTOOL_BF16) == 2 && gtool_dtype_size(GTOOL_F64) == 8);
	CHECK(gtool_dtype_size(0) == 0 && gtool_dtype_size(99) == 0 && !gtool_dtype_name(5));
	CHECK(!strcmp(gtool_dtype_name(GTOOL_F16), "f16"));
	CHECK(gtool_codec_count() > 3 && gtool_codec_name(gtool_codec_count()) == NULL);
	gtool_free(NULL);
}

/* compress_alloc, then compress into exactly that size and one byte less,
 * then decompress: the same bytes back for a lossless codec. */
static void round_trip(const char *spec, int dtype, const uint64_t *dims, unsigned rank,
		       const void *src, size_t len)
{
	struct gtool_errbuf e;
	struct gtool_info info;
	void *blob = NULL, *back = NULL;
	unsigned char *exact;
	size_t blen = 0, n = 0, blen2 = 0;
	uint64_t count = 1;

	for (unsigned i = 0; i < rank; i++)
		count *= dims[i];
	CHECK_RC(gtool_compress_alloc(spec, dtype, dims, rank, src, len, NULL, &blob, &blen, &e), 0);
	CHECK(e.msg[0] == '\0');
	CHECK(blen > 0 && blen <= gtool_compress_bound(dtype, count));
	exact = malloc(blen);
	CHECK_RC(gtool_compress(spec, dtype, dims, rank, src, len, NULL, exact, blen, &blen2, &e), 0);
	CHECK(blen2 == blen && !memcmp(exact, blob, blen));
	CHECK_RC(gtool_compress(spec, dtype, dims, rank, src, len, NULL, exact, blen - 1, &blen2, &e),
		 GTOOL_E_DST_TOO_SMALL);
	CHECK(blen2 == 0 && !strcmp(e.msg, "output buffer too small"));
	CHECK_RC(gtool_decompress_alloc(blob, blen, &back, &n, &info, &e), 0);
	CHECK(n == len && (len == 0 || !memcmp(back, src, len)));
	CHECK(info.dtype == dtype && info.rank == rank && info.count == count);
	for (unsigned i = 0; i < rank; i++)
		CHECK(info.dims[i] == dims[i]);
	memset(&info, 0, sizeof(info));
	CHECK_RC(gtool_decompress_info(blob, blen, &info, &e), 0);
	CHECK(info.dtype == dtype && info.count == count);
	free(exact);
	gtool_free(back);
	gtool_free(blob);
}

static void test_round_trips(void)
{
	static const size_t lens[] = { 0, 1, 63, 65537, (1u << 20) + 3 };
	static const char *const specs[] = { "huffexp", "zstd:level=3", "raw", "zlib" };
	static const int dts[] = { GTOOL_F32, GTOOL_F16, GTOOL_BF16, GTOOL_F64 };

	for (size_t s = 0; s < sizeof(specs) / sizeof(*specs); s++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(*lens); l++)
			for (size_t d = 0; d < 4; d++) {
				const size_t size = gtool_dtype_size(dts[d]);
				const uint64_t dims[2] = { 1, lens[l] };
				float *v;

				if (lens[l] > 65537 && (d || s > 1))
					continue; /* the big one: f32 and two codecs */
				v = random_f32((lens[l] * size + 3) / 4, 1);
				round_trip(specs[s], dts[d], dims, 2, v, lens[l] * size);
				free(v);
			}
	{
		const float one = -0.0f;

		round_trip("huffexp", GTOOL_F32, NULL, 0, &one, 4); /* a scalar */
	}
}

/* Incompressible input stays within the bound (stored raw). */
static void test_bound(void)
{
	const size_t n = 200000;
	uint32_t *v = malloc(n * 4);
	size_t len = 0;
	const uint64_t dims[1] = { n };
	void *blob = NULL;

	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)check_rand();
	CHECK_RC(gtool_compress_alloc("huffexp", GTOOL_F32, dims, 1, v, n * 4, NULL, &blob, &len, NULL), 0);
	CHECK(len <= gtool_compress_bound(GTOOL_F32, n) && len > n * 4);
	CHECK(gtool_compress_bound(GTOOL_F32, UINT64_MAX / 2) == 0);
	CHECK(gtool_compress_bound(7, 10) == 0);
	gtool_free(blob);
	free(v);
}

static void test_compress_errors(void)
{
	const float v[4] = { 1, 2, 3, 4 };
	const uint64_t dims[1] = { 4 };
	uint64_t big[33];
	unsigned char out[4096];
	struct gtool_errbuf e;
	size_t len = 7;
	void *p = &len;

	for (int i = 0; i < 33; i++)
		big[i] = 1;
	CHECK_RC(gtool_compress(NULL, GTOOL_F32, dims, 1, v, 16, NULL, out, sizeof(out), &len, &e),
		 GTOOL_E_INVAL);
	CHECK(len == 0 && e.msg[0]);
	CHECK_RC(gtool_compress("nope", GTOOL_F32, dims, 1, v, 16, NULL, out, sizeof(out), &len, &e),
		 GTOOL_E_NOTFOUND);
	CHECK(strstr(e.msg, "nope") != NULL);
	CHECK_RC(gtool_compress("zstd:level=99", GTOOL_F32, dims, 1, v, 16, NULL, out, sizeof(out),
				&len, &e), GTOOL_E_INVAL);
	CHECK(strstr(e.msg, "level") != NULL);
	CHECK_RC(gtool_compress("zstd:bogus=1", GTOOL_F32, dims, 1, v, 16, NULL, out, sizeof(out),
				&len, &e), GTOOL_E_INVAL);
	CHECK(strstr(e.msg, "bogus") != NULL);
	CHECK_RC(gtool_compress("huffexp", GTOOL_F32, dims, 1, v, 15, NULL, out, sizeof(out), &len, &e),
		 GTOOL_E_INVAL);
	CHECK(!strcmp(e.msg, "15 bytes for 4 values of f32: expected 16"));
	CHECK_RC(gtool_compress("huffexp", 9, dims, 1, v, 16, NULL, out, sizeof(out), &len, &e),
		 GTOOL_E_TYPE);
	CHECK_RC(gtool_compress("huffexp", GTOOL_F32, big, 33, v, 4, NULL, out, sizeof(out), &len, &e),
		 GTOOL_E_INVAL);
	CHECK_RC(gtool_compress("huffexp", GTOOL_F32, NULL, 1, v, 16, NULL, out, sizeof(out), &len, &e),
		 GTOOL_E_INVAL);
	CHECK_RC(gtool_compress("huffexp", GTOOL_F32, dims, 1, NULL, 16, NULL, out, sizeof(out), &len, &e),
		 GTOOL_E_INVAL);
	CHECK_RC(gtool_compress("huffexp", GTOOL_F32, dims, 1, v, 16, NULL, NULL, 10, &len, &e),
		 GTOOL_E_INVAL);
	CHECK_RC(gtool_compress("huffexp", GTOOL_F32, dims, 1, v, 16, NULL, out, sizeof(out), NULL, &e),
		 GTOOL_E_INVAL);
	CHECK_RC(gtool_compress("huffexp", GTOOL_F32, dims, 1, v, 16, NULL, out, 0, &len, NULL),
		 GTOOL_E_DST_TOO_SMALL);
	CHECK_RC(gtool_compress_alloc("huffexp", GTOOL_F32, dims, 1, v, 16, NULL, NULL, &len, &e),
		 GTOOL_E_INVAL);
	CHECK_RC(gtool_compress_alloc("huffexp", GTOOL_F32, dims, 1, v, 16, NULL, &p, NULL, &e),
		 GTOOL_E_INVAL);
	/* gcomp in its default mode needs the optimizer context */
	CHECK_RC(gtool_compress("gcomp", GTOOL_F32, dims, 1, v, 16, NULL, out, sizeof(out), &len, &e),
		 GTOOL_E_INVAL);
	CHECK(strstr(e.msg, "optimizer context") != NULL);
	CHECK_RC(gtool_codec_check("zstd:level=3", GTOOL_F32, &e), 0);
	CHECK_RC(gtool_codec_check("nope", GTOOL_F32, &e), GTOOL_E_NOTFOUND);
	CHECK_RC(gtool_codec_check(NULL, GTOOL_F32, NULL), GTOOL_E_INVAL);
}

static void test_decompress_errors(void)
{
	const float v[300] = { 1, 2, 3 };
	const uint64_t dims[1] = { 300 };
	unsigned char junk[64], out[2000];
	struct gtool_errbuf e;
	struct gtool_info info;
	void *blob = NULL, *back = &info;
	size_t blen = 0, n = 5;

	memset(junk, 0x5a, sizeof(junk));
	CHECK_RC(gtool_decompress(junk, sizeof(junk), out, sizeof(out), &n, &info, &e),
		 GTOOL_E_CORRUPT);
	CHECK(n == 0 && !strcmp(e.msg, "not a .gtz file"));
	CHECK_RC(gtool_decompress(NULL, 10, out, sizeof(out), &n, &info, &e), GTOOL_E_INVAL);
	CHECK_RC(gtool_decompress(junk, 0, out, sizeof(out), &n, NULL, &e), GTOOL_E_CORRUPT);
	CHECK_RC(gtool_decompress_alloc(junk, 8, &back, &n, NULL, &e), GTOOL_E_CORRUPT);
	CHECK(back == NULL && n == 0);
	CHECK_RC(gtool_compress_alloc("huffexp", GTOOL_F32, dims, 1, v, sizeof(v), NULL, &blob, &blen, &e), 0);
	CHECK_RC(gtool_decompress(blob, blen, out, 1199, &n, &info, &e), GTOOL_E_DST_TOO_SMALL);
	CHECK_RC(gtool_decompress(blob, blen, out, sizeof(out), &n, &info, &e), 0);
	CHECK(n == sizeof(v) && !memcmp(out, v, n));
	/* every truncation fails cleanly, and so does a flipped byte */
	for (size_t cut = 0; cut < blen; cut++) {
		const int rc = gtool_decompress(blob, cut, out, sizeof(out), &n, NULL, &e);

		CHECK(rc == GTOOL_E_TRUNCATED || rc == GTOOL_E_CORRUPT);
		CHECK(e.msg[0] != '\0');
	}
	for (size_t at = 0; at < blen; at++) {
		unsigned char *b = blob;

		b[at] ^= 0x10;
		CHECK(gtool_decompress(blob, blen, out, sizeof(out), &n, NULL, NULL) < 0);
		b[at] ^= 0x10;
	}
	CHECK_RC(gtool_decompress_info(blob, blen, NULL, &e), GTOOL_E_INVAL);
	/* a reader that met an error stays in it, and its accessors say nothing */
	{
		struct gtool_reader *r = NULL;
		int ev = -1, rc = 0;

		((unsigned char *)blob)[blen - 30] ^= 1;
		CHECK_RC(gtool_reader_open_mem(blob, blen, 1, &r, &e), 0);
		while (rc == 0 && ev != GTOOL_EV_EOF)
			rc = gtool_reader_next(r, &ev);
		CHECK(rc == GTOOL_E_CORRUPT && gtool_reader_name(r) == NULL);
		CHECK(gtool_reader_nattrs(r) == 0 && gtool_reader_info(r, &info) == GTOOL_E_INVAL);
		CHECK_RC(gtool_reader_next(r, &ev), GTOOL_E_CORRUPT);
		CHECK(gtool_reader_errmsg(r)[0] != '\0');
		gtool_reader_free(r);
	}
	gtool_free(blob);
}

/* A stand-in Adam step's context: param, exp_avg, exp_avg_sq. */
struct adam {
	float *g, *param, *m, *v;
	struct gtool_optctx *ctx;
};

static void adam_init(struct adam *a, size_t n, const char *opt)
{
	a->g = random_f32(n, 0);
	a->param = random_f32(n, 0);
	a->m = random_f32(n, 0);
	a->v = random_f32(n, 0);
	for (size_t i = 0; i < n; i++) {
		a->param[i] *= 1000;
		a->v[i] = a->v[i] * a->v[i];
	}
	CHECK_RC(gtool_optctx_new(opt, &a->ctx, NULL), 0);
	CHECK_RC(gtool_optctx_set(a->ctx, "lr", 1e-3), 0);
	CHECK_RC(gtool_optctx_set(a->ctx, "beta1", 0.9), 0);
	CHECK_RC(gtool_optctx_set(a->ctx, "beta2", 0.999), 0);
	CHECK_RC(gtool_optctx_set(a->ctx, "eps", 1e-8), 0);
	CHECK_RC(gtool_optctx_set(a->ctx, "weight_decay", 0.01), 0);
	CHECK_RC(gtool_optctx_set(a->ctx, "step", 5), 0);
	CHECK_RC(gtool_optctx_set_param(a->ctx, a->param, n), 0);
	CHECK_RC(gtool_optctx_set_state(a->ctx, "exp_avg", a->m, n), 0);
	CHECK_RC(gtool_optctx_set_state(a->ctx, "exp_avg_sq", a->v, n), 0);
}

static void adam_release(struct adam *a)
{
	free(a->g);
	free(a->param);
	free(a->m);
	free(a->v);
	gtool_optctx_free(a->ctx);
}

static void test_gcomp(void)
{
	const size_t n = 100003;
	const uint64_t dims[1] = { n };
	struct adam a;
	struct gtool_fidelity f;
	struct gtool_errbuf e;
	void *b1 = NULL, *b2 = NULL, *back = NULL;
	size_t l1 = 0, l2 = 0, bl = 0;

	adam_init(&a, n, "AdamW");
	CHECK_RC(gtool_optctx_check(a.ctx), 0);
	CHECK_RC(gtool_compress_alloc("gcomp", GTOOL_F32, dims, 1, a.g, n * 4, a.ctx, &b1, &l1, &e), 0);
	CHECK_RC(gtool_compress_alloc("gcomp", GTOOL_F32, dims, 1, a.g, n * 4, a.ctx, &b2, &l2, &e), 0);
	CHECK(l1 == l2 && !memcmp(b1, b2, l1)); /* deterministic */
	CHECK(l1 < n * 4);
	CHECK_RC(gtool_decompress_alloc(b1, l1, &back, &bl, NULL, &e), 0);
	CHECK(bl == n * 4);
	/* GComp's claim: the step with ĝ gives the step with g, bit for bit */
	CHECK_RC(gtool_update_fidelity(a.ctx, a.g, back, NULL, n, &f, &e), 0);
	/* gcomp's default margin keeps most steps bit-identical (`gtool error
	 * --update` shows 91% on samples/lstm_adamw.h5), the rest close */
	CHECK(f.values == n && f.identical > n / 2 && f.identical < n && f.max_rel < 1e-3);
	CHECK(fabs(f.identical_pct - 100.0 * (double)f.identical / (double)n) < 1e-9);
	CHECK(memcmp(back, a.g, n * 4) != 0);
	gtool_free(b2);
	/* wrong-length context arrays */
	CHECK_RC(gtool_optctx_set_param(a.ctx, a.param, n - 1), 0);
	CHECK_RC(gtool_compress_alloc("gcomp", GTOOL_F32, dims, 1, a.g, n * 4, a.ctx, &b2, &l2, &e),
		 GTOOL_E_INVAL);
	CHECK(!strcmp(e.msg, "optimizer context arrays differ in length from the tensor"));
	CHECK_RC(gtool_update_fidelity(a.ctx, a.g, back, NULL, n, &f, &e), GTOOL_E_INVAL);
	/* a state buffer left out after the first step is refused, not zeros */
	CHECK_RC(gtool_optctx_set_param(a.ctx, a.param, n), 0);
	CHECK_RC(gtool_optctx_set_state(a.ctx, "exp_avg_sq", NULL, 0), 0);
	CHECK_RC(gtool_optctx_check(a.ctx), GTOOL_E_INVAL);
	CHECK(!strcmp(gtool_optctx_errmsg(a.ctx), "optimizer adamw at step 5 needs its state "
		      "'exp_avg_sq' (the buffer before the step)"));
	CHECK_RC(gtool_compress_alloc("gcomp", GTOOL_F32, dims, 1, a.g, n * 4, a.ctx, &b2, &l2, &e),
		 GTOOL_E_INVAL);
	CHECK(!strcmp(e.msg, gtool_optctx_errmsg(a.ctx)));
	CHECK_RC(gtool_update_fidelity(a.ctx, a.g, back, NULL, n, &f, &e), GTOOL_E_INVAL);
	CHECK(!strcmp(e.msg, gtool_optctx_errmsg(a.ctx)));
	/* at step 1 the state before the step is PyTorch's zeros */
	CHECK_RC(gtool_optctx_set(a.ctx, "step", 1), 0);
	CHECK_RC(gtool_optctx_check(a.ctx), 0);
	gtool_free(b1);
	gtool_free(b2);
	gtool_free(back);
	adam_release(&a);
}

static void test_optctx_errors(void)
{
	struct gtool_optctx *c = NULL;
	struct gtool_errbuf e;
	const float x[2] = { 0 };

	CHECK_RC(gtool_optctx_new("lion", &c, &e), GTOOL_E_NOTFOUND);
	CHECK(c == NULL && !strcmp(e.msg, "unknown optimizer 'lion'"));
	CHECK_RC(gtool_optctx_new(NULL, &c, &e), GTOOL_E_INVAL);
	CHECK_RC(gtool_optctx_new("sgd", NULL, &e), GTOOL_E_INVAL);
	CHECK_RC(gtool_optctx_new("sgd", &c, &e), 0);
	CHECK_RC(gtool_optctx_set(c, "learning_rate", 1), GTOOL_E_NOTFOUND);
	CHECK(!strcmp(gtool_optctx_errmsg(c), "unknown hyper-parameter 'learning_rate'"));
	CHECK_RC(gtool_optctx_set(c, "lr", NAN), GTOOL_E_INVAL);
	CHECK_RC(gtool_optctx_set(c, "step", 0), GTOOL_E_INVAL);
	CHECK_RC(gtool_optctx_set(c, "step", 1.5), GTOOL_E_INVAL);
	CHECK_RC(gtool_optctx_set(c, NULL, 1), GTOOL_E_INVAL);
	CHECK_RC(gtool_optctx_set_state(c, "exp_avg", x, 2), GTOOL_E_NOTFOUND);
	CHECK(!strcmp(gtool_optctx_errmsg(c), "optimizer sgd keeps no state buffer 'exp_avg'"));
	CHECK_RC(gtool_optctx_set_param(c, NULL, 2), GTOOL_E_INVAL);
	CHECK_RC(gtool_optctx_check(c), GTOOL_E_NOTFOUND); /* no lr, no step */
	CHECK(strstr(gtool_optctx_errmsg(c), "missing") != NULL);
	CHECK_RC(gtool_optctx_set(NULL, "lr", 1), GTOOL_E_INVAL);
	CHECK_RC(gtool_optctx_set_param(NULL, x, 2), GTOOL_E_INVAL);
	CHECK_RC(gtool_optctx_set_state(NULL, "sum", x, 2), GTOOL_E_INVAL);
	CHECK_RC(gtool_optctx_check(NULL), GTOOL_E_INVAL);
	gtool_optctx_free(c);
	gtool_optctx_free(NULL);
}

/* ---- streaming -------------------------------------------------------------- */

struct mem {
	unsigned char *p;
	size_t len, cap, pos;
	int fail_after;
};

static int mem_write(void *arg, const void *p, size_t n)
{
	struct mem *m = arg;

	if (m->fail_after && m->len + n > (size_t)m->fail_after)
		return -1;
	if (m->len + n > m->cap) {
		m->cap = (m->len + n) * 2;
		m->p = realloc(m->p, m->cap);
	}
	memcpy(m->p + m->len, p, n);
	m->len += n;
	return 0;
}

/* Reads in odd small pieces, to cross every record boundary. */
static int mem_read(void *arg, void *p, size_t cap, size_t *len_ret)
{
	struct mem *m = arg;
	size_t k = m->len - m->pos < 7 ? m->len - m->pos : 7;

	k = k < cap ? k : cap;
	memcpy(p, m->p + m->pos, k);
	m->pos += k;
	*len_ret = k;
	return 0;
}

static void write_file(struct gtool_writer *w, const float *a, size_t na, const double *d, size_t nd)
{
	const int64_t steps[2] = { 100, -7 };
	const double lr = 0.5;
	const uint64_t da[2] = { 3, na / 3 }, dd[1] = { nd };

	CHECK_RC(gtool_writer_attr_str(w, "optimizer", "adamw"), 0);
	CHECK_RC(gtool_writer_attr_float(w, "lr", &lr, 1), 0);
	CHECK_RC(gtool_writer_group(w, "/"), 0);
	CHECK_RC(gtool_writer_attr_int(w, "step", steps, 2), 0);
	CHECK_RC(gtool_writer_group(w, "/step_000100"), 0);
	CHECK_RC(gtool_writer_attr_str(w, "units", "none"), 0);
	CHECK_RC(gtool_writer_begin(w, "/step_000100/grad/a", "huffexp", GTOOL_F32, da, 2, NULL), 0);
	CHECK_RC(gtool_writer_group(w, "/x"), GTOOL_E_INVAL); /* a tensor is open */
	for (size_t at = 0; at < na; at += 1000)
		CHECK_RC(gtool_writer_write(w, a + at, (na - at < 1000 ? na - at : 1000) * 4), 0);
	CHECK_RC(gtool_writer_write(w, a, 4), GTOOL_E_INVAL); /* past the end */
	CHECK_RC(gtool_writer_end(w), 0);
	CHECK_RC(gtool_writer_begin(w, "/step_000100/grad/b", "zstd:level=1", GTOOL_F64, dd, 1, NULL), 0);
	CHECK_RC(gtool_writer_write(w, d, 3), GTOOL_E_INVAL); /* not whole values */
	CHECK_RC(gtool_writer_write(w, d, nd * 8), 0);
	CHECK_RC(gtool_writer_end(w), 0);
	CHECK_RC(gtool_writer_commit(w), 0);
	CHECK_RC(gtool_writer_commit(w), GTOOL_E_INVAL);
}

/* Read what write_file wrote and check every name, attribute and value. */
static void read_file(struct gtool_reader *r, const float *a, size_t na, const double *d, size_t nd)
{
	struct gtool_attr at;
	struct gtool_info info;
	char codec[64];
	unsigned char *buf = malloc(nd * 8 > na * 4 ? nd * 8 : na * 4);
	size_t len = 0;
	int ev = -1;

	CHECK_RC(gtool_reader_next(r, &ev), 0);
	CHECK(ev == GTOOL_EV_GROUP && !strcmp(gtool_reader_name(r), "/"));
	CHECK(gtool_reader_nattrs(r) == 2);
	CHECK_RC(gtool_reader_attr(r, 0, &at), 0);
	CHECK(!strcmp(at.name, "optimizer") && at.type == GTOOL_ATTR_STR && !strcmp(at.s, "adamw"));
	CHECK_RC(gtool_reader_attr(r, 1, &at), 0);
	CHECK(at.type == GTOOL_ATTR_FLOAT && at.n == 1 && fabs(at.f[0] - 0.5) < 1e-300);
	CHECK_RC(gtool_reader_attr(r, 2, &at), GTOOL_E_INVAL);
	CHECK_RC(gtool_reader_next(r, &ev), 0);
	CHECK(ev == GTOOL_EV_GROUP && !strcmp(gtool_reader_name(r), "/step_000100"));
	CHECK_RC(gtool_reader_attr(r, 0, &at), 0);
	CHECK(at.type == GTOOL_ATTR_INT && at.n == 2 && at.i[0] == 100 && at.i[1] == -7);
	CHECK_RC(gtool_reader_info(r, &info), GTOOL_E_INVAL); /* a group */
	CHECK_RC(gtool_reader_next(r, &ev), 0);
	CHECK(ev == GTOOL_EV_TENSOR && !strcmp(gtool_reader_name(r), "/step_000100/grad/a"));
	CHECK_RC(gtool_reader_info(r, &info), 0);
	CHECK(info.dtype == GTOOL_F32 && info.rank == 2 && info.dims[0] == 3 && info.count == na);
	CHECK(gtool_reader_codec(r, codec, sizeof(codec)) > 0 && !strncmp(codec, "huffexp", 7));
	CHECK_RC(gtool_reader_attr(r, 0, &at), 0);
	CHECK(!strcmp(at.name, "units") && !strcmp(at.s, "none"));
	CHECK_RC(gtool_reader_read_tensor(r, buf, na * 4, &len), 0);
	CHECK(len == na * 4 && !memcmp(buf, a, len));
	CHECK_RC(gtool_reader_next(r, &ev), 0);
	CHECK(ev == GTOOL_EV_TENSOR);
	CHECK_RC(gtool_reader_info(r, &info), 0);
	CHECK(info.dtype == GTOOL_F64 && info.rank == 1 && info.count == nd);
	CHECK_RC(gtool_reader_read_tensor(r, buf, nd * 8, &len), 0);
	CHECK(len == nd * 8 && !memcmp(buf, d, len));
	free(buf);
}

static void test_stream(void)
{
	const size_t na = 3 * 70001, nd = 5000;
	float *a = random_f32(na, 1);
	double *d = malloc(nd * sizeof(*d));
	struct mem m = { 0 };
	struct gtool_writer *w = NULL;
	struct gtool_reader *r = NULL;
	struct gtool_errbuf e;
	int ev = -1;

	for (size_t i = 0; i < nd; i++)
		d[i] = (double)i * 1e-7 - 3;
	CHECK_RC(gtool_writer_open_cb(mem_write, &m, 3, &w, &e), 0);
	CHECK_RC(gtool_writer_blocks(w, 63, 0), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_blocks(w, (1u << 24) + 1, 0), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_blocks(w, 0, 10), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_blocks(w, 50000, 4096), 0); /* several blocks per tensor */
	write_file(w, a, na, d, nd);
	CHECK(gtool_writer_bytes(w) == m.len);
	gtool_writer_free(w);
	/* from memory */
	CHECK_RC(gtool_reader_open_mem(m.p, m.len, 2, &r, &e), 0);
	read_file(r, a, na, d, nd);
	gtool_reader_free(r);
	/* block by block: 210003 values in blocks of 50000 */
	CHECK_RC(gtool_reader_open_mem(m.p, m.len, 1, &r, &e), 0);
	{
		uint64_t next = 0, first = 1;
		size_t blocks = 0, len = 0;
		const void *p;

		while (gtool_reader_next(r, &ev) == 0 && ev != GTOOL_EV_TENSOR_END)
			if (ev == GTOOL_EV_DATA) {
				CHECK_RC(gtool_reader_data(r, &p, &len, &first), 0);
				CHECK(first == next && !memcmp(p, a + first, len));
				next += len / 4;
				blocks++;
			}
		CHECK(blocks == 5 && next == na);
	}
	gtool_reader_free(r);
	ev = -1;
	/* through a callback, then to the end */
	CHECK_RC(gtool_reader_open_cb(mem_read, &m, 1, &r, &e), 0);
	read_file(r, a, na, d, nd);
	while (ev != GTOOL_EV_EOF && gtool_reader_next(r, &ev) == 0)
		;
	CHECK(ev == GTOOL_EV_EOF);
	CHECK_RC(gtool_reader_next(r, &ev), 0);
	CHECK(ev == GTOOL_EV_EOF && gtool_reader_name(r) == NULL);
	gtool_reader_free(r);
	/* a failing write callback is an I/O error, and said so (output is
	 * buffered: at the latest, commit flushes and finds it) */
	free(m.p);
	memset(&m, 0, sizeof(m));
	m.fail_after = 100;
	CHECK_RC(gtool_writer_open_cb(mem_write, &m, 1, &w, &e), 0);
	CHECK(gtool_writer_attr_str(w, "long", "0123456789012345678901234567890123456789"
				    "0123456789012345678901234567890123456789") == 0);
	CHECK_RC(gtool_writer_group(w, "/"), 0);
	CHECK_RC(gtool_writer_commit(w), GTOOL_E_IO);
	CHECK(!strcmp(gtool_writer_errmsg(w), "write error: Input/output error"));
	CHECK_RC(gtool_writer_group(w, "/a"), GTOOL_E_IO); /* the stream is lost */
	CHECK_RC(gtool_writer_write(w, a, 4), GTOOL_E_IO);
	CHECK(!strcmp(gtool_writer_errmsg(w), "write error: Input/output error"));
	gtool_writer_free(w);
	free(m.p);
	free(a);
	free(d);
}

/* The same file through a descriptor and a path; the path read as a trace. */
static void test_fd_and_path(void)
{
	const size_t na = 3 * 100, nd = 10;
	float *a = random_f32(na, 0);
	double d[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	char path[] = "/tmp/test_gtool_api_XXXXXX";
	const int fd = mkstemp(path);
	struct gtool_writer *w = NULL;
	struct gtool_reader *r = NULL;
	struct gtool_trace *t = NULL;
	struct gtool_info info;
	struct gtool_errbuf e;
	float back[300];
	size_t idx = 0, len = 0;

	CHECK(fd >= 0);
	CHECK_RC(gtool_writer_open_fd(fd, 1, &w, &e), 0);
	write_file(w, a, na, d, nd);
	gtool_writer_free(w);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	CHECK_RC(gtool_reader_open_fd(fd, 1, &r, &e), 0);
	read_file(r, a, na, d, nd);
	gtool_reader_free(r);
	close(fd);
	CHECK_RC(gtool_writer_open_path(path, 0, 1, &w, &e), GTOOL_E_EXISTS);
	CHECK(strstr(e.msg, path) != NULL);
	CHECK_RC(gtool_writer_open_path(path, GTOOL_FORCE, 2, &w, &e), 0);
	write_file(w, a, na, d, nd);
	gtool_writer_free(w);
	CHECK_RC(gtool_reader_open_path(path, 1, &r, &e), 0);
	read_file(r, a, na, d, nd);
	gtool_reader_free(r);
	CHECK_RC(gtool_trace_open(path, &t, &e), 0);
	CHECK(gtool_trace_ntensors(t) == 2);
	CHECK_RC(gtool_trace_find(t, "/step_000100/grad/a", &idx), 0);
	CHECK_RC(gtool_trace_tensor_info(t, idx, &info), 0);
	CHECK(info.dtype == GTOOL_F32 && info.count == na);
	CHECK_RC(gtool_trace_read(t, idx, 0, back, sizeof(back), &len), 0);
	CHECK(len == sizeof(back) && !memcmp(back, a, len));
	gtool_trace_free(t);
	unlink(path);
	CHECK_RC(gtool_reader_open_path(path, 1, &r, &e), GTOOL_E_IO);
	CHECK(strstr(e.msg, "No such file") != NULL);
	free(a);
}

/* A file `gtool compress -d /step_000001/grad/2.bias samples/mlp_sgd.h5`
 * wrote: every group with its attributes, and the tensor's values equal
 * to what the HDF5 reader gives for the dataset. */
static void test_cli_file(void)
{
	struct gtool_reader *r = NULL;
	struct gtool_trace *t = NULL;
	struct gtool_errbuf e;
	struct gtool_attr a;
	float v[64], h[64];
	size_t len = 0, idx = 0, groups = 0, tensors = 0;
	int ev = -1, root_sgd = 0;

	CHECK_RC(gtool_reader_open_path("tests/fixtures/mlp_sgd_bias.gtz", 1, &r, &e), 0);
	while (r && ev != GTOOL_EV_EOF && gtool_reader_next(r, &ev) == 0) {
		if (ev == GTOOL_EV_GROUP && !strcmp(gtool_reader_name(r), "/"))
			for (size_t i = 0; i < gtool_reader_nattrs(r); i++)
				root_sgd |= gtool_reader_attr(r, i, &a) == 0 &&
					    !strcmp(a.name, "optimizer") && !strcmp(a.s, "sgd");
		groups += ev == GTOOL_EV_GROUP;
		if (ev == GTOOL_EV_TENSOR) {
			tensors++;
			CHECK(!strcmp(gtool_reader_name(r), "/step_000001/grad/2.bias"));
			CHECK_RC(gtool_reader_read_tensor(r, v, sizeof(v), &len), 0);
		}
	}
	CHECK(ev == GTOOL_EV_EOF && groups == 29 && tensors == 1 && root_sgd && len == sizeof(v));
	gtool_reader_free(r);
	CHECK_RC(gtool_trace_open("samples/mlp_sgd.h5", &t, &e), 0);
	CHECK_RC(gtool_trace_find(t, "/step_000001/grad/2.bias", &idx), 0);
	CHECK_RC(gtool_trace_read(t, idx, 0, h, sizeof(h), &len), 0);
	CHECK(len == sizeof(h) && !memcmp(v, h, sizeof(v)));
	gtool_trace_free(t);
}

/* Format 1.1: a non-float dataset kept whole, and links (the file of the
 * gtz fuzz corpus, objects_v1_1). */
static void test_objects(void)
{
	static const char *const names[] = { "/lab", "/vs", "/e", "/s", "/w2" };
	static const int kinds[] = { GTOOL_OBJ_DATASET, GTOOL_OBJ_DATASET, GTOOL_OBJ_EXTERNAL,
				     GTOOL_OBJ_SOFT, GTOOL_OBJ_HARD };
	struct gtool_reader *r = NULL;
	struct gtool_object o;
	struct gtool_attr a;
	size_t n = 0;
	int ev = -1;

	CHECK_RC(gtool_reader_open_path("tests/fixtures/objects_v1_1.gtz", 1, &r, NULL), 0);
	while (r && ev != GTOOL_EV_EOF && gtool_reader_next(r, &ev) == 0) {
		if (ev != GTOOL_EV_OBJECT) {
			CHECK_RC(gtool_reader_object(r, &o), GTOOL_E_INVAL);
			continue;
		}
		CHECK_RC(gtool_reader_object(r, &o), 0);
		CHECK(n < 5 && o.kind == kinds[n] && !strcmp(o.name, names[n]));
		CHECK(!strcmp(gtool_reader_name(r), o.name));
		if (n == 0) {
			CHECK(!strcmp(o.type_desc, "int64") && o.rank == 1 && o.dims[0] == 5);
			CHECK(o.data_len == 40 && o.data != NULL && o.target == NULL);
			CHECK(gtool_reader_nattrs(r) == 1 && gtool_reader_attr(r, 0, &a) == 0);
		}
		if (n == 4)
			CHECK(!strcmp(o.target, "/w") && o.type_desc == NULL && o.data == NULL);
		n++;
	}
	CHECK(ev == GTOOL_EV_EOF && n == 5);
	gtool_reader_free(r);
}

/* The tensor of a one-tensor stream written with the table of @ght (or none). */
static void write_with_table(const char *ght, const float *v, size_t n, struct mem *m)
{
	struct gtool_writer *w = NULL;
	const uint64_t dims[1] = { n };

	CHECK_RC(gtool_writer_open_cb(mem_write, m, 1, &w, NULL), 0);
	CHECK_RC(gtool_writer_table(w, ght), 0);
	CHECK_RC(gtool_writer_begin(w, "t", "huffexp", GTOOL_F32, dims, 1, NULL), 0);
	CHECK_RC(gtool_writer_write(w, v, n * 4), 0);
	CHECK_RC(gtool_writer_end(w), 0);
	CHECK_RC(gtool_writer_commit(w), 0);
	gtool_writer_free(w);
}

/* A static table from `gtool huffman build samples/mlp_sgd.h5`. */
static void test_table(void)
{
	const size_t n = 5000;
	float *v = random_f32(n, 0), *back = malloc(n * 4);
	struct mem with = { 0 }, without = { 0 };
	struct gtool_writer *w = NULL;
	struct gtool_errbuf e;
	const uint64_t dims[1] = { n };
	size_t len = 0;

	write_with_table("tests/fixtures/mlp_sgd.ght", v, n, &with);
	write_with_table(NULL, v, n, &without);
	CHECK(with.len != without.len); /* no per-block table in the stream */
	CHECK_RC(gtool_decompress(with.p, with.len, back, n * 4, &len, NULL, &e), 0);
	CHECK(len == n * 4 && !memcmp(back, v, len));
	CHECK_RC(gtool_writer_open_cb(mem_write, &without, 1, &w, NULL), 0);
	CHECK_RC(gtool_writer_table(w, "tests/fixtures/nope.ght"), GTOOL_E_IO);
	CHECK(!strncmp(gtool_writer_errmsg(w), "tests/fixtures/nope.ght: ", 25));
	CHECK_RC(gtool_writer_table(w, "tests/fixtures/mlp_sgd_bias.gtz"), GTOOL_E_CORRUPT);
	CHECK_RC(gtool_writer_table(w, "tests/fixtures/mlp_sgd.ght"), 0);
	CHECK_RC(gtool_writer_begin(w, "t", "zstd", GTOOL_F32, dims, 1, NULL), GTOOL_E_INVAL);
	CHECK(!strcmp(gtool_writer_errmsg(w), "codec zstd does not use a Huffman table"));
	CHECK_RC(gtool_writer_table(w, NULL), 0);
	CHECK_RC(gtool_writer_begin(w, "t", "zstd", GTOOL_F32, dims, 1, NULL), 0);
	CHECK_RC(gtool_writer_table(NULL, NULL), GTOOL_E_INVAL);
	gtool_writer_free(w);
	free(with.p);
	free(without.p);
	free(v);
	free(back);
}

/* ---- traces ----------------------------------------------------------------- */

static void test_trace(void)
{
	struct gtool_trace *t = NULL;
	struct gtool_step st;
	struct gtool_grad g;
	struct gtool_info info;
	struct gtool_errbuf e;
	struct gtool_optctx *c = NULL;
	double lr = 0, step = 0;
	float *v, *p;
	size_t len = 0, idx = 0;

	CHECK_RC(gtool_trace_open(TRACE, &t, &e), 0);
	if (!t)
		return;
	CHECK(gtool_trace_nsteps(t) > 1 && gtool_trace_ntensors(t) > 10);
	CHECK_RC(gtool_trace_step(t, 0, &st), 0);
	CHECK(st.step == 1 && !strcmp(st.group, "/step_000001") && !strcmp(st.optimizer, "adamw"));
	CHECK(st.ngrads == 7);
	CHECK_RC(gtool_trace_step_hparam(t, 0, "lr", &lr), 0);
	CHECK(lr > 0 && lr < 1);
	CHECK_RC(gtool_trace_step_hparam(t, 0, "step", &step), 0);
	CHECK(fabs(step - 1) < 1e-12);
	CHECK_RC(gtool_trace_step_hparam(t, 0, "alpha", &lr), GTOOL_E_NOTFOUND);
	CHECK_RC(gtool_trace_grad(t, 0, 0, &g), 0);
	CHECK(g.nstates == 2 && !strcmp(g.state_name[0], "exp_avg"));
	CHECK(g.param != GTOOL_NONE && g.param_next != GTOOL_NONE);
	CHECK(!strcmp(gtool_trace_tensor_name(t, g.grad) + strlen("/step_000001/grad/"), g.param_name));
	CHECK_RC(gtool_trace_find(t, "/step_000001/param/embed.weight", &idx), 0);
	CHECK_RC(gtool_trace_find(t, "/nope", &idx), GTOOL_E_NOTFOUND);
	CHECK_RC(gtool_trace_tensor_info(t, g.grad, &info), 0);
	v = malloc(info.count * 4);
	p = malloc(info.count * 4);
	CHECK_RC(gtool_trace_read(t, g.grad, 0, v, info.count * 4, &len), 0);
	CHECK(len == info.count * 4);
	CHECK_RC(gtool_trace_read(t, g.grad, 1, p, info.count * 4, &len), 0);
	CHECK(len == info.count * 4 - 4 && !memcmp(p, v + 1, len));
	CHECK_RC(gtool_trace_read(t, g.grad, 0, p, 6, &len), GTOOL_E_INVAL);
	/* the trace's own context compresses its gradient with gcomp */
	CHECK_RC(gtool_trace_optctx(t, 0, &c), 0);
	CHECK_RC(gtool_trace_read(t, g.param, 0, p, info.count * 4, &len), 0);
	CHECK_RC(gtool_optctx_set_param(c, p, info.count), 0);
	{
		void *blob = NULL;
		size_t bl = 0;

		CHECK_RC(gtool_compress_alloc("gcomp", GTOOL_F32, info.dims, info.rank, v,
					      info.count * 4, c, &blob, &bl, &e), 0);
		gtool_free(blob);
	}
	gtool_optctx_free(c);
	free(v);
	free(p);
	CHECK_RC(gtool_trace_step(t, 99, &st), GTOOL_E_INVAL);
	CHECK_RC(gtool_trace_grad(t, 0, 99, &g), GTOOL_E_INVAL);
	gtool_trace_free(t);
	CHECK_RC(gtool_trace_open("/nonexistent.h5", &t, &e), GTOOL_E_IO);
	CHECK(t == NULL && e.msg[0]);
	CHECK_RC(gtool_trace_open(NULL, &t, &e), GTOOL_E_INVAL);
}

/* ---- metrics ---------------------------------------------------------------- */

/* The metrics by their textbook formulas, in long double, for comparison. */
static void test_metrics(void)
{
	const size_t n = 50000;
	float *a = random_f32(n, 0), *b = malloc(n * sizeof(*b));
	long double sd = 0, saa = 0, sbb = 0, sab = 0, sa = 0, sb = 0, mx = 0, lo = 1e30L, hi = -1e30L;
	long double rmse, cov, va, vb;
	struct gtool_metrics m;
	struct gtool_errbuf e;
	uint64_t same = 0;

	for (size_t i = 0; i < n; i++) {
		b[i] = i % 5 ? a[i] * (1.0f + 1e-3f * (float)(i % 7)) : a[i];
		same += !memcmp(&a[i], &b[i], 4);
	}
	for (size_t i = 0; i < n; i++) {
		const long double x = a[i], y = b[i], dd = x - y;

		sd += dd * dd;
		saa += x * x;
		sbb += y * y;
		sab += x * y;
		sa += x;
		sb += y;
		mx = fabsl(dd) > mx ? fabsl(dd) : mx;
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	rmse = sqrtl(sd / n);
	cov = sab - sa * sb / n;
	va = saa - sa * sa / n;
	vb = sbb - sb * sb / n;
	CHECK_RC(gtool_error_metrics(a, GTOOL_F32, b, GTOOL_F32, n, &m, &e), 0);
	CHECK(m.values == n && m.n == n && m.identical == same && m.nan == 0);
	CHECK(fabsl(m.rmse - rmse) <= 1e-9L * rmse);
	CHECK(fabsl(m.max_abs - mx) <= 1e-12L * mx);
	CHECK(fabsl(m.range - (hi - lo)) <= 1e-12L * (hi - lo));
	CHECK(fabsl(m.nrmse - rmse / (hi - lo)) <= 1e-9L * m.nrmse);
	CHECK(fabsl(m.psnr - 20 * log10l((hi - lo) / rmse)) <= 1e-9L * fabs(m.psnr));
	CHECK(fabsl(m.snr - 10 * log10l(saa / sd)) <= 1e-9L * fabs(m.snr));
	CHECK(fabsl(m.cosine - sab / sqrtl(saa * sbb)) <= 1e-9L);
	CHECK(fabsl(m.pearson - cov / sqrtl(va * vb)) <= 1e-9L);
	CHECK(fabsl(m.gain - sbb / saa) <= 1e-9L * m.gain);
	/* identical arrays: rmse 0, psnr +Inf; a NaN pair counts apart */
	b[0] = NAN;
	CHECK_RC(gtool_error_metrics(a, GTOOL_F32, a, GTOOL_F32, n, &m, &e), 0);
	CHECK(m.identical == n && m.rmse <= 0 && isinf(m.psnr));
	CHECK_RC(gtool_error_metrics(a, GTOOL_F32, b, GTOOL_F32, n, &m, &e), 0);
	CHECK(m.nan == 1 && m.n == n - 1);
	CHECK_RC(gtool_error_metrics(NULL, GTOOL_F32, b, GTOOL_F32, n, &m, &e), GTOOL_E_INVAL);
	CHECK_RC(gtool_error_metrics(a, 0, b, GTOOL_F32, n, &m, &e), GTOOL_E_INVAL);
	CHECK_RC(gtool_error_metrics(a, GTOOL_F32, b, GTOOL_F32, n, NULL, &e), GTOOL_E_INVAL);
	CHECK_RC(gtool_error_metrics(NULL, GTOOL_F32, NULL, GTOOL_F32, 0, &m, NULL), 0);
	CHECK(m.values == 0 && isnan(m.rmse));
	free(a);
	free(b);
}

/* Plain SGD, θ' = θ - lr g in float32: the identical count by hand. */
static void test_fidelity(void)
{
	const size_t n = 20000;
	float *g = random_f32(n, 0), *gh = malloc(n * 4), *th = random_f32(n, 0);
	struct gtool_optctx *c = NULL;
	struct gtool_fidelity f;
	struct gtool_errbuf e;
	const float lr = 0.1f;
	uint64_t same = 0;

	for (size_t i = 0; i < n; i++) {
		float x, y;

		gh[i] = i % 3 ? g[i] : g[i] * 1.01f;
		x = th[i] - lr * g[i];
		y = th[i] - lr * gh[i];
		same += !memcmp(&x, &y, 4);
	}
	CHECK_RC(gtool_optctx_new("sgd", &c, &e), 0);
	CHECK_RC(gtool_optctx_set(c, "lr", lr), 0);
	CHECK_RC(gtool_optctx_set(c, "step", 1), 0);
	CHECK_RC(gtool_update_fidelity(c, g, gh, NULL, n, &f, &e), GTOOL_E_INVAL); /* no param */
	CHECK_RC(gtool_optctx_set_param(c, th, n), 0);
	CHECK_RC(gtool_update_fidelity(c, g, gh, NULL, n, &f, &e), 0);
	CHECK(f.values == n && f.identical == same && same < n && same > n / 2);
	CHECK(f.max_ulp > 0 && f.py_values == 0);
	CHECK_RC(gtool_update_fidelity(c, g, NULL, NULL, n, &f, &e), GTOOL_E_INVAL);
	CHECK_RC(gtool_update_fidelity(NULL, g, gh, NULL, n, &f, &e), GTOOL_E_INVAL);
	CHECK_RC(gtool_update_fidelity(c, g, gh, NULL, n, NULL, &e), GTOOL_E_INVAL);
	gtool_optctx_free(c);
	free(g);
	free(gh);
	free(th);
}

/* Every context function given NULL: an error, no crash. */
static void test_null_contexts(void)
{
	struct gtool_info info;
	struct gtool_attr at;
	struct gtool_step st;
	struct gtool_grad g;
	const void *p;
	size_t len;
	int ev;
	double v;

	CHECK_RC(gtool_writer_open_path(NULL, 0, 1, NULL, NULL), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_open_cb(NULL, NULL, 1, NULL, NULL), GTOOL_E_INVAL);
	{
		struct gtool_writer *w = NULL;
		struct gtool_reader *r = NULL;

		CHECK_RC(gtool_writer_open_cb(NULL, NULL, 1, &w, NULL), GTOOL_E_INVAL);
		CHECK_RC(gtool_writer_open_fd(-1, 1, &w, NULL), GTOOL_E_INVAL);
		CHECK_RC(gtool_writer_open_path("-", 0, 1, &w, NULL), GTOOL_E_INVAL);
		CHECK_RC(gtool_reader_open_cb(NULL, NULL, 1, &r, NULL), GTOOL_E_INVAL);
		CHECK_RC(gtool_reader_open_fd(-1, 1, &r, NULL), GTOOL_E_INVAL);
		CHECK_RC(gtool_reader_open_mem(NULL, 5, 1, &r, NULL), GTOOL_E_INVAL);
		CHECK_RC(gtool_reader_open_path(NULL, 1, &r, NULL), GTOOL_E_INVAL);
		CHECK(w == NULL && r == NULL);
	}
	CHECK_RC(gtool_writer_attr_int(NULL, "x", NULL, 0), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_attr_float(NULL, "x", NULL, 0), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_attr_str(NULL, "x", "y"), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_group(NULL, "/"), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_begin(NULL, "x", "raw", GTOOL_F32, NULL, 0, NULL), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_write(NULL, NULL, 0), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_end(NULL), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_commit(NULL), GTOOL_E_INVAL);
	CHECK(gtool_writer_bytes(NULL) == 0 && gtool_writer_errmsg(NULL) != NULL);
	gtool_writer_free(NULL);
	CHECK_RC(gtool_reader_next(NULL, &ev), GTOOL_E_INVAL);
	CHECK(gtool_reader_name(NULL) == NULL && gtool_reader_nattrs(NULL) == 0);
	CHECK_RC(gtool_reader_info(NULL, &info), GTOOL_E_INVAL);
	CHECK_RC(gtool_reader_codec(NULL, NULL, 0), GTOOL_E_INVAL);
	CHECK_RC(gtool_reader_attr(NULL, 0, &at), GTOOL_E_INVAL);
	CHECK_RC(gtool_reader_data(NULL, &p, &len, NULL), GTOOL_E_INVAL);
	CHECK_RC(gtool_reader_read_tensor(NULL, NULL, 0, &len), GTOOL_E_INVAL);
	CHECK(gtool_reader_errmsg(NULL) != NULL);
	gtool_reader_free(NULL);
	CHECK_RC(gtool_trace_open(TRACE, NULL, NULL), GTOOL_E_INVAL);
	CHECK(gtool_trace_ntensors(NULL) == 0 && gtool_trace_nsteps(NULL) == 0);
	CHECK(gtool_trace_tensor_name(NULL, 0) == NULL && gtool_trace_errmsg(NULL) != NULL);
	CHECK_RC(gtool_trace_tensor_info(NULL, 0, &info), GTOOL_E_INVAL);
	CHECK_RC(gtool_trace_find(NULL, "x", &len), GTOOL_E_INVAL);
	CHECK_RC(gtool_trace_read(NULL, 0, 0, NULL, 0, &len), GTOOL_E_INVAL);
	CHECK_RC(gtool_trace_step(NULL, 0, &st), GTOOL_E_INVAL);
	CHECK_RC(gtool_trace_step_hparam(NULL, 0, "lr", &v), GTOOL_E_INVAL);
	CHECK_RC(gtool_trace_grad(NULL, 0, 0, &g), GTOOL_E_INVAL);
	CHECK_RC(gtool_trace_optctx(NULL, 0, NULL), GTOOL_E_INVAL);
	gtool_trace_free(NULL);
}

/* Misuse of a live writer and reader: out-of-order calls are errors. */
static void test_misuse(void)
{
	struct mem m = { 0 };
	struct gtool_writer *w = NULL;
	struct gtool_reader *r = NULL;
	const uint64_t dims[1] = { 4 };
	const float v[4] = { 1, 2, 3, 4 };
	const void *p;
	size_t len;
	int ev;

	CHECK_RC(gtool_writer_open_cb(mem_write, &m, 1, &w, NULL), 0);
	CHECK_RC(gtool_writer_write(w, v, 16), GTOOL_E_INVAL);
	CHECK(!strcmp(gtool_writer_errmsg(w), "no tensor is open"));
	CHECK_RC(gtool_writer_end(w), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_group(w, "relative"), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_begin(w, "t", "nope", GTOOL_F32, dims, 1, NULL), GTOOL_E_NOTFOUND);
	CHECK(!strcmp(gtool_writer_errmsg(w), "unknown codec 'nope'"));
	CHECK_RC(gtool_writer_begin(w, NULL, "raw", GTOOL_F32, dims, 1, NULL), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_begin(w, "t", "raw", 0, dims, 1, NULL), GTOOL_E_TYPE);
	CHECK_RC(gtool_writer_begin(w, "t", "raw", GTOOL_F32, dims, 1, NULL), 0);
	CHECK_RC(gtool_writer_begin(w, "u", "raw", GTOOL_F32, dims, 1, NULL), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_write(w, v, 8), 0);
	CHECK_RC(gtool_writer_end(w), GTOOL_E_INVAL); /* 2 of 4 values */
	CHECK(!strcmp(gtool_writer_errmsg(w), "the tensor is not complete"));
	CHECK_RC(gtool_writer_commit(w), GTOOL_E_INVAL);
	CHECK_RC(gtool_writer_write(w, v + 2, 8), 0);
	CHECK_RC(gtool_writer_end(w), 0);
	CHECK_RC(gtool_writer_commit(w), 0);
	CHECK_RC(gtool_writer_attr_str(w, "late", "x"), GTOOL_E_INVAL);
	gtool_writer_free(w);
	CHECK_RC(gtool_reader_open_mem(m.p, m.len, 1, &r, NULL), 0);
	CHECK_RC(gtool_reader_data(r, &p, &len, NULL), GTOOL_E_INVAL);
	CHECK_RC(gtool_reader_next(r, NULL), GTOOL_E_INVAL);
	CHECK_RC(gtool_reader_next(r, &ev), 0);
	CHECK(ev == GTOOL_EV_TENSOR);
	CHECK_RC(gtool_reader_next(r, &ev), 0);
	CHECK(ev == GTOOL_EV_DATA);
	CHECK_RC(gtool_reader_data(r, &p, &len, NULL), 0);
	CHECK(len == 16 && !memcmp(p, v, 16));
	CHECK_RC(gtool_reader_read_tensor(r, NULL, 0, &len), GTOOL_E_INVAL);
	gtool_reader_free(r);
	free(m.p);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_version);
	RUN(test_round_trips);
	RUN(test_bound);
	RUN(test_compress_errors);
	RUN(test_decompress_errors);
	RUN(test_gcomp);
	RUN(test_optctx_errors);
	RUN(test_stream);
	RUN(test_fd_and_path);
	RUN(test_cli_file);
	RUN(test_table);
	RUN(test_objects);
	RUN(test_trace);
	RUN(test_metrics);
	RUN(test_fidelity);
	RUN(test_null_contexts);
	RUN(test_misuse);
	return check_done("test_gtool_api");
}
