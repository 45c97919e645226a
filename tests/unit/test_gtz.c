/* test_gtz.c - the .gtz container: round trips, determinism, hostile files */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../../formats/gt_gtz.h"
#include "../../formats/gt_source.h"

static char dir[] = "/tmp/test_gtz.XXXXXX";

static char *path_of(const char *name)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

/* Gradient-like f32 values: random magnitudes, a third exact zeros in runs. */
static void fill_f32(float *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const uint64_t r = check_rand();

		if (r % 3 == 0 && i % 50 < 20)
			v[i] = 0.0f;
		else
			v[i] = (float)((double)(int64_t)r / 9.2e18) * 1e-3f;
	}
}

static void fill_bits(void *p, size_t bytes)
{
	unsigned char *c = p;

	for (size_t i = 0; i < bytes; i++)
		c[i] = (unsigned char)check_rand();
}

struct tensor {
	const char *name;
	enum gt_dtype dt;
	size_t n;
	void *data;
};

static void make_info(struct gt_tensor_info *ti, const struct tensor *t,
		      struct gt_attr *attr, int64_t *ival)
{
	memset(ti, 0, sizeof(*ti));
	ti->name = (char *)(uintptr_t)t->name;
	ti->dtype = t->dt;
	ti->rank = 2;
	ti->dims[0] = t->n / 4;
	ti->dims[1] = 4;
	ti->count = t->n;
	memset(attr, 0, sizeof(*attr));
	attr->name = (char *)(uintptr_t)"step";
	attr->type = GT_ATTR_INT;
	attr->n = 1;
	attr->i = ival;
	ti->attrs.v = attr;
	ti->attrs.n = 1;
}

/* Write @nt tensors with @codec into @path; returns the rc. */
static int write_file(const char *path, const struct tensor *ts, size_t nt,
		      const char *codec, const char *opts, unsigned threads,
		      uint32_t block, uint32_t chunk)
{
	struct gt_gtz_writer *w = NULL;
	struct gt_group_info g = { (char *)(uintptr_t)"/step_000001", { NULL, 0 } };
	struct gt_diag d;
	int rc = gt_gtz_writer_open(path, 1, threads, &w, &d);

	if (rc >= 0)
		rc = gt_gtz_write_group(w, &g, &d);
	for (size_t k = 0; k < nt && rc >= 0; k++) {
		struct gt_gtz_coding c = { gt_codec_find(codec),
					   { ts[k].dt, opts, NULL, 0, NULL, 0 }, block, chunk };
		struct gt_tensor_info ti;
		struct gt_attr attr;
		int64_t ival = (int64_t)k + 100;
		const size_t w8 = gt_dtype_size(ts[k].dt);
		size_t at = 0;

		make_info(&ti, &ts[k], &attr, &ival);
		rc = gt_gtz_begin(w, &ti, &c, &d);
		/* feed in uneven pieces: block cutting must not depend on them */
		while (rc >= 0 && at < ts[k].n) {
			const size_t take = at + 777 < ts[k].n ? 777 : ts[k].n - at;

			rc = gt_gtz_write(w, (const char *)ts[k].data + at * w8, take, &d);
			at += take;
		}
		if (rc >= 0)
			rc = gt_gtz_end(w, &d);
	}
	if (rc >= 0)
		rc = gt_gtz_writer_commit(w, &d);
	gt_gtz_writer_free(w);
	return rc;
}

/* Read @path back with the streaming reader and compare with @ts. */
static int read_back(const char *path, const struct tensor *ts, size_t nt,
		     struct gt_diag *d)
{
	FILE *f = fopen(path, "rb");
	struct gt_gtz_reader *r = NULL;
	enum gt_gtz_event ev = GT_GTZ_DATA;
	size_t k = 0, at = 0, groups = 0;
	int rc = f ? gt_gtz_reader_open(f, 2, &r, d) : -1;

	while (rc >= 0 && ev != GT_GTZ_EOF) {
		const void *data;
		size_t n;

		rc = gt_gtz_next(r, &ev, d);
		if (rc < 0)
			break;
		if (ev == GT_GTZ_GROUP)
			groups += !strcmp(gt_gtz_group(r)->name, "/step_000001");
		if (ev == GT_GTZ_TENSOR) {
			const struct gt_gtz_tensor *t = gt_gtz_tensor(r);

			CHECK(k < nt && !strcmp(t->info.name, ts[k].name));
			CHECK(t->info.count == ts[k].n && t->info.rank == 2);
			CHECK(t->info.attrs.n == 1 && t->info.attrs.v[0].i[0] == (int64_t)k + 100);
			at = 0;
		}
		if (ev == GT_GTZ_DATA) {
			const size_t w8 = gt_dtype_size(ts[k].dt);

			gt_gtz_data(r, &data, &n);
			CHECK(at + n <= ts[k].n);
			CHECK(!memcmp(data, (const char *)ts[k].data + at * w8, n * w8));
			at += n;
		}
		if (ev == GT_GTZ_TENSOR_END) {
			CHECK(at == ts[k].n);
			k++;
		}
	}
	if (rc >= 0) {
		CHECK(k == nt);
		CHECK(groups == 1);
	}
	gt_gtz_reader_free(r);
	if (f)
		fclose(f);
	return rc;
}

static struct tensor ts[3];

static void setup(void)
{
	static const enum gt_dtype dts[3] = { GT_DT_F32, GT_DT_F16, GT_DT_F64 };
	static const char *const names[3] = { "/a/grad", "/a/half", "/b/double" };
	static const size_t ns[3] = { 5000, 1236, 812 };

	for (int k = 0; k < 3; k++) {
		ts[k].name = names[k];
		ts[k].dt = dts[k];
		ts[k].n = ns[k];
		ts[k].data = malloc(ns[k] * gt_dtype_size(dts[k]));
		if (dts[k] == GT_DT_F32)
			fill_f32(ts[k].data, ns[k]);
		else
			fill_bits(ts[k].data, ns[k] * gt_dtype_size(dts[k]));
	}
}

static void test_round_trip_every_codec(void)
{
	static const char *const codecs[] = { "raw", "zlib", "zstd", "huffexp" };
	struct gt_diag d;

	for (size_t c = 0; c < 4; c++) {
		const char *p = path_of("rt.gtz");

		CHECK_RC(write_file(p, ts, 3, codecs[c], "", 2, 1024, 256), 0);
		CHECK_RC(read_back(p, ts, 3, &d), 0);
	}
}

/* ---- container round trips: every codec, dtype, kind of data and size ---- */

enum fill_kind { FILL_RANDOM, FILL_SPECIAL, FILL_EQUAL, FILL_KINDS };
static const char *const fill_names[FILL_KINDS] = { "random", "special", "equal" };

/* Value @i's bits for @dt: random bits; specials (±0, subnormals, ±Inf,
 * NaNs with payloads, normals); or one value repeated. */
static uint64_t value_bits(enum gt_dtype dt, enum fill_kind k, size_t i, uint64_t r)
{
	const unsigned bits = 8 * gt_dtype_size(dt);
	const unsigned mb = dt == GT_DT_F32 ? 23 : dt == GT_DT_F16 ? 10 : dt == GT_DT_BF16 ? 7 : 52;
	const uint64_t sign = UINT64_C(1) << (bits - 1);
	const uint64_t man = (UINT64_C(1) << mb) - 1;
	const uint64_t expo = (sign - 1) & ~man; /* exponent all ones */
	const uint64_t all = bits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;

	if (k == FILL_RANDOM)
		return r & all;
	if (k == FILL_EQUAL)
		return (UINT64_C(0x3fc5a5a5a5a5a5a5) >> (64 - bits)) & all;
	switch (i % 12) {
	case 0: return 0;                             /* +0 */
	case 1: return sign;                          /* -0 */
	case 2: return 1;                             /* smallest subnormal */
	case 3: return man | sign;                    /* largest subnormal, negative */
	case 4: return (r & man) | (r & sign);        /* a random subnormal */
	case 5: return expo;                          /* +Inf */
	case 6: return expo | sign;                   /* -Inf */
	case 7: return expo | (UINT64_C(1) << (mb - 1)) | (r & (man >> 1)) | 1; /* qNaN, payload */
	case 8: return sign | expo | ((r & (man >> 1)) | 1); /* sNaN, payload */
	case 9: return expo | man;                    /* NaN, all ones */
	default: return r & all & ~(sign >> 1);      /* a finite value */
	}
}

static void *make_values(enum gt_dtype dt, enum fill_kind k, size_t n)
{
	const unsigned w = gt_dtype_size(dt);
	unsigned char *p = malloc(n * w + 1);

	for (size_t i = 0; p && i < n; i++) {
		const uint64_t v = value_bits(dt, k, i, check_rand());

		memcpy(p + i * w, &v, w); /* little-endian host */
	}
	return p;
}

/* One rank-1 tensor of @n values: write, then read it all back into @out. */
static int write_one(const char *path, enum gt_dtype dt, const void *v, size_t n,
		     const char *codec, const char *opts, uint32_t block, uint32_t chunk)
{
	struct gt_gtz_writer *w = NULL;
	struct gt_gtz_coding c = { gt_codec_find(codec), { dt, opts, NULL, 0, NULL, 0 }, block, chunk };
	struct gt_tensor_info ti = { 0 };
	struct gt_diag d;
	int rc;

	ti.name = (char *)(uintptr_t)"/t";
	ti.dtype = dt;
	ti.rank = 1;
	ti.dims[0] = n;
	ti.count = n;
	rc = gt_gtz_writer_open(path, 1, 2, &w, &d);
	if (rc >= 0)
		rc = gt_gtz_begin(w, &ti, &c, &d);
	if (rc >= 0)
		rc = gt_gtz_write(w, v, n, &d);
	if (rc >= 0)
		rc = gt_gtz_end(w, &d);
	if (rc >= 0)
		rc = gt_gtz_writer_commit(w, &d);
	if (rc < 0)
		fprintf(stderr, "write %s %s n=%zu: %s\n", codec, opts, n, d.msg);
	gt_gtz_writer_free(w);
	return rc;
}

static int read_one(const char *path, enum gt_dtype dt, void *out, size_t cap, size_t *n_ret)
{
	FILE *f = fopen(path, "rb");
	struct gt_gtz_reader *r = NULL;
	enum gt_gtz_event ev = GT_GTZ_DATA;
	const unsigned w = gt_dtype_size(dt);
	struct gt_diag d;
	size_t at = 0;
	int rc = f ? gt_gtz_reader_open(f, 2, &r, &d) : -1;

	while (rc >= 0 && ev != GT_GTZ_EOF) {
		const void *data;
		size_t n;

		rc = gt_gtz_next(r, &ev, &d);
		if (rc >= 0 && ev == GT_GTZ_TENSOR)
			CHECK(gt_gtz_tensor(r)->info.dtype == dt);
		if (rc >= 0 && ev == GT_GTZ_DATA) {
			gt_gtz_data(r, &data, &n);
			if (at + n > cap) {
				rc = -1;
				break;
			}
			memcpy((char *)out + at * w, data, n * w);
			at += n;
		}
	}
	if (rc < 0)
		fprintf(stderr, "read %s: %s\n", path, rc == -1 ? "too many values" : d.msg);
	gt_gtz_reader_free(r);
	if (f)
		fclose(f);
	*n_ret = at;
	return rc;
}

/* gcomp's bound for mode single-quant (every carrier at level 3: the low
 * levels[3] mantissa bits dropped, zeros and subnormals included) and
 * zero-prune (level 0: exact, but a subnormal flushes to a zero of its
 * sign); Inf and NaN exact in both. */
static uint64_t gcomp_expect(enum gt_dtype dt, int single, uint64_t x)
{
	const unsigned bits = 8 * gt_dtype_size(dt);
	const unsigned mb = dt == GT_DT_F32 ? 23 : dt == GT_DT_F16 ? 10 : dt == GT_DT_BF16 ? 7 : 52;
	const unsigned l3 = dt == GT_DT_F32 ? 18 : dt == GT_DT_F16 ? 8 : dt == GT_DT_BF16 ? 6 : 47;
	const uint64_t sign = UINT64_C(1) << (bits - 1);
	const uint64_t man = (UINT64_C(1) << mb) - 1;
	const uint64_t expo = (sign - 1) & ~man;

	if ((x & expo) == expo)
		return x;
	if (single)
		return x & ~((UINT64_C(1) << l3) - 1);
	return (x & expo) ? x : x & sign;
}

/* The first value of @got outside gcomp's bound for @v, or @n.  A block
 * stored raw (coded, it would be larger) is exact; one value repeated
 * always codes smaller, so a block of @equal values of 2 or more is coded. */
static size_t lossy_mismatch(enum gt_dtype dt, int single, int equal, const unsigned char *v,
			     const unsigned char *got, size_t n, size_t b)
{
	const unsigned w = gt_dtype_size(dt);

	for (size_t i = 0; i < n; i++) {
		const int coded = equal && n - i / b * b > 1;
		uint64_t x = 0, y = 0, e;

		memcpy(&x, v + i * w, w);
		memcpy(&y, got + i * w, w);
		e = gcomp_expect(dt, single, x);
		if (y != e && (y != x || coded)) {
			fprintf(stderr, "value %zu: %#" PRIx64 " decoded as %#" PRIx64 ", not %#" PRIx64 "\n",
				i, x, y, e);
			return i;
		}
	}
	return n;
}

static const enum gt_dtype rt_dtypes[4] = { GT_DT_F32, GT_DT_F16, GT_DT_BF16, GT_DT_F64 };
static const char *const rt_dtype_names[4] = { "f32", "f16", "bf16", "f64" };

/* Every codec (gcomp: single-quant and zero-prune) x dtype x fill x size. */
static void round_trip_sizes(uint32_t block, uint32_t chunk)
{
	static const struct { const char *codec, *opts; int lossy; } cs[] = {
		{ "raw", "", 0 }, { "zlib", "", 0 }, { "zstd", "", 0 }, { "huffexp", "", 0 },
		{ "gcomp", "mode=single-quant", 1 }, { "gcomp", "mode=zero-prune", 2 },
	};
	const size_t b = block ? block : GT_GTZ_BLOCK_DEFAULT;
	const size_t sizes[5] = { 0, 1, b - 1, b, b + 1 };
	const char *p = path_of("rt1.gtz");

	for (size_t t = 0; t < 4; t++) {
		const enum gt_dtype dt = rt_dtypes[t];
		const unsigned w = gt_dtype_size(dt);
		unsigned char *got = malloc((b + 1) * w + 1);

		for (int k = 0; k < FILL_KINDS; k++) {
			unsigned char *v = make_values(dt, (enum fill_kind)k, b + 1);

			for (size_t c = 0; c < sizeof(cs) / sizeof(cs[0]); c++) {
				for (size_t z = 0; z < 5; z++) {
					const size_t n = sizes[z];
					size_t bad = n, m = 0;

					if (write_one(p, dt, v, n, cs[c].codec, cs[c].opts, block, chunk) < 0 ||
					    read_one(p, dt, got, b + 1, &m) < 0 || m != n) {
						bad = 0;
					} else if (!cs[c].lossy) {
						for (size_t i = 0; i < n && bad == n; i++)
							if (memcmp(got + i * w, v + i * w, w))
								bad = i;
					} else {
						bad = lossy_mismatch(dt, cs[c].lossy == 1, k == FILL_EQUAL,
								     v, got, n, b);
					}
					if (bad != n) {
						fprintf(stderr, "round trip %s %s %s %s n=%zu block=%zu: value %zu differs\n",
							cs[c].codec, cs[c].opts, rt_dtype_names[t], fill_names[k],
							n, b, bad);
						CHECK(bad == n);
					}
				}
			}
			free(v);
		}
		free(got);
	}
}

static void test_round_trip_default_block(void)
{
	round_trip_sizes(0, 0);
}

static void test_round_trip_small_block(void)
{
	round_trip_sizes(1000, 64);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = malloc(1 << 20);

	*len = f ? fread(p, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	return p;
}

static void test_threads_do_not_change_bytes(void)
{
	size_t l1, l3;
	unsigned char *a, *b;

	CHECK_RC(write_file(path_of("t1.gtz"), ts, 3, "huffexp", "", 1, 1024, 128), 0);
	CHECK_RC(write_file(path_of("t3.gtz"), ts, 3, "huffexp", "", 3, 1024, 128), 0);
	a = slurp(path_of("t1.gtz"), &l1);
	b = slurp(path_of("t3.gtz"), &l3);
	CHECK(l1 == l3 && l1 > 0 && !memcmp(a, b, l1));
	free(a);
	free(b);
}

/* gt_gtz_write_from: a fill function in place of gt_gtz_write. */
struct feed {
	const struct tensor *t;
	size_t at, calls, fail_at; /* fail_at: the call that fails (0: none) */
};

static int feed_fill(void *arg, void *dst, size_t cap, size_t *got_ret)
{
	struct feed *f = arg;
	const size_t w8 = gt_dtype_size(f->t->dt);
	const size_t n = f->t->n - f->at < cap ? f->t->n - f->at : cap;

	if (++f->calls == f->fail_at)
		return -1;
	memcpy(dst, (const char *)f->t->data + f->at * w8, n * w8);
	f->at += n;
	*got_ret = n;
	return 0;
}

/* ts[0..2] through gt_gtz_write_from into @path; the rc. */
static int stream_file(const char *path, unsigned threads, size_t fail_at)
{
	struct gt_gtz_writer *w = NULL;
	struct gt_group_info g = { (char *)(uintptr_t)"/step_000001", { NULL, 0 } };
	struct gt_diag d;
	int rc = gt_gtz_writer_open(path, 1, threads, &w, &d);

	if (rc >= 0)
		rc = gt_gtz_write_group(w, &g, &d);
	for (size_t k = 0; k < 3 && rc >= 0; k++) {
		struct gt_gtz_coding c = { gt_codec_find("huffexp"),
					   { ts[k].dt, "", NULL, 0, NULL, 0 }, 1024, 128 };
		struct feed f = { &ts[k], 0, 0, k == 0 ? fail_at : 0 };
		struct gt_tensor_info ti;
		struct gt_attr attr;
		int64_t ival = (int64_t)k + 100;

		make_info(&ti, &ts[k], &attr, &ival);
		rc = gt_gtz_begin(w, &ti, &c, &d);
		if (rc >= 0)
			rc = gt_gtz_write_from(w, feed_fill, &f, &d);
		if (rc >= 0)
			rc = gt_gtz_end(w, &d);
	}
	if (rc >= 0)
		rc = gt_gtz_writer_commit(w, &d);
	gt_gtz_writer_free(w);
	return rc;
}

/* The reading, coding and writing threads give gt_gtz_write's bytes for
 * every thread count; a failing fill stops it with GT_ERR(IO) and leaves
 * no file. */
static void test_write_from(void)
{
	static const unsigned threads[] = { 1, 2, 3, 5 };
	size_t l1, ln;
	unsigned char *a, *b;

	CHECK_RC(write_file(path_of("wf.gtz"), ts, 3, "huffexp", "", 1, 1024, 128), 0);
	a = slurp(path_of("wf.gtz"), &l1);
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		CHECK_RC(stream_file(path_of("wf_s.gtz"), threads[t], 0), 0);
		b = slurp(path_of("wf_s.gtz"), &ln);
		CHECK(a && b && l1 == ln && !memcmp(a, b, l1));
		free(b);
		unlink(path_of("wf_s.gtz"));
		CHECK_RC(stream_file(path_of("wf_s.gtz"), threads[t], 3), GT_ERR(IO));
		CHECK(access(path_of("wf_s.gtz"), F_OK) != 0);
	}
	free(a);
}

static void test_source_random_access(void)
{
	const char *p = path_of("src.gtz");
	struct gt_source *s = NULL;
	struct gt_diag d;
	struct gt_gtz_meta m;
	float out[3000];
	size_t idx = 99, got = 0;

	CHECK_RC(write_file(p, ts, 3, "huffexp", "", 1, 1024, 256), 0);
	CHECK_RC(gt_source_open(p, &(struct gt_source_opts){ 0 }, &s, &d), 0);
	if (!s)
		return;
	CHECK(gt_source_kind(s) == GT_KIND_GTZ);
	CHECK(gt_source_count(s) == 3);
	CHECK_RC(gt_source_find(s, "/a/grad", &idx), 0);
	CHECK(idx == 0);
	/* a range across three blocks, read twice out of order */
	CHECK_RC(gt_source_read(s, 0, 3000, 2000, out, &got, &d), 0);
	CHECK(got == 2000 && !memcmp(out, (float *)ts[0].data + 3000, 2000 * 4));
	CHECK_RC(gt_source_read(s, 0, 700, 3000, out, &got, &d), 0);
	CHECK(got == 3000 && !memcmp(out, (float *)ts[0].data + 700, 3000 * 4));
	CHECK_RC(gt_source_read(s, 0, 4990, 100, out, &got, &d), 0);
	CHECK(got == 10);
	CHECK_RC(gt_gtz_source_meta(s, 0, &m), 0);
	CHECK(m.blocks == 5 && !strcmp(m.codec, "huffexp"));
	CHECK(m.stored_bytes > 0 && m.stored_bytes < 5000 * 4);
	CHECK(gt_source_group(s, 0) && !strcmp(gt_source_group(s, 0)->name, "/step_000001"));
	gt_source_free(s);
}

/* Random bits do not compress: every block is stored raw, never larger. */
static void test_incompressible_blocks_stored_raw(void)
{
	struct tensor t = { "/noise", GT_DT_F32, 4096, NULL };
	struct gt_source *s = NULL;
	struct gt_gtz_meta m = { 0 };
	struct gt_diag d;

	t.data = malloc(4096 * 4);
	fill_bits(t.data, 4096 * 4);
	CHECK_RC(write_file(path_of("noise.gtz"), &t, 1, "huffexp", "", 1, 1024, 256), 0);
	CHECK_RC(read_back(path_of("noise.gtz"), &t, 1, &d), 0);
	CHECK_RC(gt_source_open(path_of("noise.gtz"), &(struct gt_source_opts){ 0 }, &s, &d), 0);
	if (s && gt_gtz_source_meta(s, 0, &m) >= 0) {
		CHECK(m.raw_blocks == m.blocks && m.blocks == 4);
		/* raw bytes plus at most 200 bytes of headers per block */
		CHECK(m.stored_bytes <= 4096 * 4 + 4 * 200);
	}
	gt_source_free(s);
	free(t.data);
}

/*
 * Every truncation and every single-byte change of a small file must be
 * reported as an error (CRC or check), never crash, never pass.
 */
/* gt_gtz_read_all, the callback reader: the values arrive in order. */
struct expect {
	const struct tensor *ts;
	size_t nt, k, at, groups;
	int eof, bad;
};

static int cb_group(void *arg, const struct gt_group_info *g, struct gt_diag *d)
{
	struct expect *e = arg;

	(void)d;
	e->groups += !strcmp(g->name, "/step_000001");
	return 0;
}

static int cb_tensor(void *arg, const struct gt_gtz_tensor *t, struct gt_diag *d)
{
	struct expect *e = arg;

	(void)d;
	e->bad += e->k >= e->nt || strcmp(t->info.name, e->ts[e->k].name) ||
		  t->info.count != e->ts[e->k].n;
	e->at = 0;
	return 0;
}

static int cb_data(void *arg, const void *v, size_t n, struct gt_diag *d)
{
	struct expect *e = arg;
	const struct tensor *t = &e->ts[e->k < e->nt ? e->k : 0];
	const size_t w = gt_dtype_size(t->dt);

	(void)d;
	e->bad += e->at + n > t->n || memcmp(v, (const char *)t->data + e->at * w, n * w);
	e->at += n;
	return 0;
}

static int cb_end(void *arg, const struct gt_gtz_tensor *t, struct gt_diag *d)
{
	struct expect *e = arg;

	(void)t;
	(void)d;
	e->bad += e->at != e->ts[e->k].n;
	e->k++;
	return 0;
}

static int cb_eof(void *arg, struct gt_diag *d)
{
	struct expect *e = arg;

	(void)d;
	e->eof = 1;
	return 0;
}

static const struct gt_gtz_callbacks expect_cb = { cb_group, cb_tensor, cb_data,
						   cb_end, cb_eof, NULL };

static int read_all(const char *path, const struct tensor *t, size_t nt,
		    unsigned threads, struct expect *e)
{
	FILE *f = fopen(path, "rb");
	struct gt_gtz_reader *r = NULL;
	struct gt_diag d;
	int rc = f ? gt_gtz_reader_open(f, threads, &r, &d) : -1;

	memset(e, 0, sizeof(*e));
	e->ts = t;
	e->nt = nt;
	if (rc >= 0)
		rc = gt_gtz_read_all(r, &expect_cb, e, &d);
	gt_gtz_reader_free(r);
	if (f)
		fclose(f);
	return rc;
}

static void test_read_all(void)
{
	static const unsigned threads[] = { 1, 2, 3, 5 };
	const char *p = path_of("all.gtz"), *q = path_of("all_bad.gtz");
	struct expect e;
	unsigned char *good;
	size_t len, passed = 0;

	CHECK_RC(write_file(p, ts, 3, "huffexp", "", 2, 256, 64), 0);
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		CHECK_RC(read_all(p, ts, 3, threads[t], &e), 0);
		CHECK(e.eof && !e.bad && e.k == 3 && e.groups == 1);
	}
	/* damaged copies: an error every time, from any number of threads */
	good = slurp(p, &len);
	for (size_t at = 16; at < len; at += 1 + at / 30) {
		FILE *f = fopen(q, "wb");

		good[at] ^= 0x21;
		fwrite(good, 1, len - (at % 3 == 0 ? at / 2 : 0), f);
		fclose(f);
		good[at] ^= 0x21;
		passed += read_all(q, ts, 3, 1 + (unsigned)(at % 4), &e) >= 0;
	}
	CHECK(passed == 0);
	free(good);
}

/* A data callback that fails on its third call. */
static int cb_data_fail(void *arg, const void *v, size_t n, struct gt_diag *d)
{
	struct expect *e = arg;

	(void)v;
	(void)n;
	if (++e->at == 3)
		return gt_diag_set(d, GT_ERR(IO), "write error: stop here");
	e->bad += e->at > 3;
	return 0;
}

/* An error of the caller's stops gt_gtz_read_all: its code and message
 * come back, and nothing more is handed over after it. */
static void test_read_all_stops(void)
{
	static const unsigned threads[] = { 1, 2, 3 };
	static const struct gt_gtz_callbacks cb = { cb_group, cb_tensor, cb_data_fail,
						    cb_end, cb_eof, NULL };
	const char *p = path_of("stop.gtz");

	CHECK_RC(write_file(p, ts, 1, "huffexp", "", 1, 256, 64), 0);
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		FILE *f = fopen(p, "rb");
		struct gt_gtz_reader *r = NULL;
		struct gt_diag d = { "" };
		struct expect e;

		memset(&e, 0, sizeof(e));
		e.ts = ts;
		e.nt = 1;
		CHECK_RC(gt_gtz_reader_open(f, threads[t], &r, &d), 0);
		CHECK_RC(gt_gtz_read_all(r, &cb, &e, &d), GT_ERR(IO));
		CHECK(!strcmp(d.msg, "write error: stop here"));
		CHECK(e.at == 3 && !e.bad && !e.eof);
		gt_gtz_reader_free(r);
		fclose(f);
	}
}

static void test_hostile_bytes(void)
{
	const char *p = path_of("small.gtz"), *q = path_of("bad.gtz");
	unsigned char *good;
	size_t len, passed = 0;
	struct gt_diag d;

	CHECK_RC(write_file(p, ts, 2, "huffexp", "", 1, 512, 128), 0);
	good = slurp(p, &len);
	for (size_t cut = 0; cut < len; cut += 1 + cut / 64) {
		FILE *f = fopen(q, "wb");

		fwrite(good, 1, cut, f);
		fclose(f);
		passed += read_back(q, ts, 2, &d) >= 0;
	}
	for (size_t at = 0; at < len; at += 1 + at / 40) {
		FILE *f = fopen(q, "wb");

		good[at] ^= 0x5a;
		fwrite(good, 1, len, f);
		fclose(f);
		good[at] ^= 0x5a;
		passed += read_back(q, ts, 2, &d) >= 0;
	}
	CHECK(passed == 0);
	free(good);
}

static void test_unknown_count_and_refusals(void)
{
	struct gt_gtz_writer *w = NULL;
	struct gt_gtz_coding c = { gt_codec_find("zstd"), { GT_DT_F32, "level=1", NULL, 0, NULL, 0 }, 0, 0 };
	struct gt_tensor_info ti = { 0 };
	struct gt_diag d;
	float v[100] = { 1.5f };

	ti.name = (char *)(uintptr_t)"-";
	ti.dtype = GT_DT_F32;
	ti.rank = 1;
	ti.dims[0] = GT_COUNT_UNKNOWN;
	ti.count = GT_COUNT_UNKNOWN;
	CHECK_RC(gt_gtz_writer_open(path_of("u.gtz"), 1, 1, &w, &d), 0);
	CHECK_RC(gt_gtz_begin(w, &ti, &c, &d), 0);
	CHECK_RC(gt_gtz_write(w, v, 100, &d), 0);
	CHECK_RC(gt_gtz_end(w, &d), 0);
	CHECK_RC(gt_gtz_writer_commit(w, &d), 0);
	gt_gtz_writer_free(w);
	w = NULL;
	/* an existing file is refused without force and left alone */
	CHECK_RC(gt_gtz_writer_open(path_of("u.gtz"), 0, 1, &w, &d), GT_ERR(EXISTS));
	CHECK(strstr(d.msg, "exists; use -f to overwrite") != NULL);
	/* an unknown codec option is an error naming it */
	c.params.opts = "frob=1";
	CHECK_RC(gt_gtz_writer_open(path_of("v.gtz"), 1, 1, &w, &d), 0);
	CHECK(gt_gtz_begin(w, &ti, &c, &d) < 0);
	CHECK(strstr(d.msg, "frob") != NULL);
	gt_gtz_writer_free(w);
	/* without a commit nothing is left */
	CHECK(access(path_of("v.gtz"), F_OK) != 0);
}

/*
 * Format 1.1: a whole dataset (D, its bytes compressed) and a link (L)
 * read back as they were written, by the stream reader and as a source;
 * a flipped payload byte is caught.
 */
static void test_objects(void)
{
	static unsigned char type[3] = { 1, 2, 3 }, data[1000];
	struct gt_object ds = { GT_OBJ_DATASET, (char *)(uintptr_t)"/labels", NULL, NULL,
				"int64", { type, 3, GT_SPACE_SIMPLE, 2, { 25, 5 }, 0,
					   data, sizeof(data) }, { NULL, 0 } };
	struct gt_object ln = { GT_OBJ_SOFT, (char *)(uintptr_t)"/s",
				(char *)(uintptr_t)"/labels", NULL, NULL, { 0 }, { NULL, 0 } };
	struct gt_gtz_writer *w = NULL;
	struct gt_gtz_reader *r = NULL;
	enum gt_gtz_event ev = GT_GTZ_DATA;
	struct gt_source *s = NULL;
	struct gt_diag d = { "" };
	struct gt_blob b;
	const char *p = path_of("obj.gtz");
	struct gt_gtz_record rec = { 0 };
	int seen = 0, rc = 0;
	FILE *f;

	fill_bits(data, sizeof(data));
	CHECK_RC(gt_gtz_writer_open(p, 1, 1, &w, &d), 0);
	CHECK_RC(gt_gtz_write_object(w, &ds, &d), 0);
	CHECK_RC(gt_gtz_write_object(w, &ln, &d), 0);
	CHECK_RC(gt_gtz_writer_commit(w, &d), 0);
	gt_gtz_writer_free(w);
	f = fopen(p, "rb");
	CHECK_RC(gt_gtz_reader_open(f, 1, &r, &d), 0);
	while (r && ev != GT_GTZ_EOF && gt_gtz_next(r, &ev, &d) == 0) {
		const struct gt_object *o = gt_gtz_object(r);

		if (ev != GT_GTZ_OBJECT)
			continue;
		if (!seen)
			gt_gtz_last_record(r, &rec);
		if (seen++ == 0)
			CHECK(o->kind == GT_OBJ_DATASET && !strcmp(o->name, "/labels") &&
			      o->blob.rank == 2 && o->blob.dims[1] == 5 && o->blob.type_len == 3 &&
			      o->blob.data_len == sizeof(data) && !memcmp(o->blob.data, data, sizeof(data)));
		else
			CHECK(o->kind == GT_OBJ_SOFT && !strcmp(o->target, "/labels"));
	}
	CHECK(ev == GT_GTZ_EOF && seen == 2);
	gt_gtz_reader_free(r);
	fclose(f);
	CHECK_RC(gt_source_open(p, &(struct gt_source_opts){ 0 }, &s, &d), 0);
	CHECK(s && gt_source_count(s) == 1 && gt_source_nobjects(s) == 2);
	CHECK(s && gt_source_info(s, 0)->dtype == GT_DT_NONE && gt_source_info(s, 0)->count == 125);
	CHECK_RC(s ? gt_source_read_object(s, 0, &b, &d) : -1, 0);
	CHECK(s && b.data_len == sizeof(data) && !memcmp(b.data, data, sizeof(data)));
	if (s)
		gt_blob_release(&b);
	gt_source_free(s);
	/* a byte of the payload flipped: the frame or its CRC-32 fails */
	CHECK(rec.tag == 'D' && rec.payload_bytes > 100);
	f = fopen(p, "r+b");
	CHECK(f && fseek(f, (long)(rec.payload_offset + rec.payload_bytes / 2), SEEK_SET) == 0);
	if (f) {
		const int c = fgetc(f);

		fseek(f, -1, SEEK_CUR);
		fputc(c ^ 0x10, f);
		fclose(f);
	}
	f = fopen(p, "rb");
	ev = GT_GTZ_DATA;
	CHECK_RC(gt_gtz_reader_open(f, 1, &r, &d), 0);
	while (r && ev != GT_GTZ_EOF && rc == 0)
		rc = gt_gtz_next(r, &ev, &d);
	CHECK(rc == GT_ERR(CORRUPT) && !strcmp(d.msg, "/labels: bad data"));
	gt_gtz_reader_free(r);
	fclose(f);
}

int main(int argc, char **argv)
{
	char cmd[300];
	int rc;

	check_init(argc, argv);
	if (!mkdtemp(dir))
		return 1;
	setup();
	RUN(test_round_trip_every_codec);
	RUN(test_round_trip_default_block);
	RUN(test_round_trip_small_block);
	RUN(test_threads_do_not_change_bytes);
	RUN(test_source_random_access);
	RUN(test_incompressible_blocks_stored_raw);
	RUN(test_hostile_bytes);
	RUN(test_read_all);
	RUN(test_read_all_stops);
	RUN(test_write_from);
	RUN(test_unknown_count_and_refusals);
	RUN(test_objects);
	for (int k = 0; k < 3; k++)
		free(ts[k].data);
	rc = check_done("test_gtz");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return 1;
	return rc;
}
