/* test_npy.c - .npy and raw sources and sinks: headers, streams, stdin, errors */
#include <dirent.h>
#include <stdint.h>
#include <unistd.h>

#include <zip.h>

#include "check.h"
#include "../../formats/gt_sink.h"
#include "../../formats/gt_source.h"

static char dir[256];

static const char *tmp_path(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static void write_file(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fwrite(p, 1, len, f) == len);
	fclose(f);
}

/* A .npy file of @version with @dict padded to a multiple of 64, then @data. */
static size_t build_npy(unsigned char *out, int version, const char *dict,
			const void *data, size_t len)
{
	const size_t pre = version == 1 ? 10 : 12;
	const size_t dl = strlen(dict);
	const size_t total = (pre + dl + 1 + 63) / 64 * 64;
	const size_t hl = total - pre;

	memcpy(out, "\x93NUMPY", 6);
	out[6] = (unsigned char)version;
	out[7] = 0;
	out[8] = (unsigned char)hl;
	out[9] = (unsigned char)(hl >> 8);
	if (version > 1) {
		out[10] = 0;
		out[11] = 0;
	}
	memcpy(out + pre, dict, dl);
	memset(out + pre + dl, ' ', hl - dl - 1);
	out[total - 1] = '\n';
	memcpy(out + total, data, len);
	return total + len;
}

/* Read all of tensor 0 in blocks of 3 values. */
static int read_all(struct gt_source *s, void *dst, size_t cap, size_t *n_ret,
		    struct gt_diag *d)
{
	const size_t size = gt_dtype_size(gt_source_info(s, 0)->dtype);
	size_t total = 0, got;
	int rc;

	do {
		const size_t want = cap - total < 3 ? cap - total : 3;

		rc = gt_source_read(s, 0, total, want, (char *)dst + total * size, &got, d);
		if (rc < 0)
			return rc;
		total += got;
	} while (got && total < cap);
	*n_ret = total;
	return 0;
}

static const float vals[12] = { 1.5f, -2.0f, 0.0f, -0.0f, 3.25f, 1e-40f,
				 7.0f, 8.0f, 9.0f, 10.0f, 11.0f, 12.0f };

static void test_npy_valid(void)
{
	static const struct {
		int version;
		const char *dict;
		enum gt_dtype dt;
		unsigned rank;
		uint64_t count;
	} cases[] = {
		{ 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }",
		  GT_DT_F32, 2, 12 },
		{ 2, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,)}", GT_DT_F64, 1, 6 },
		{ 3, "{\"shape\": (), \"fortran_order\": False, \"descr\": \"<f2\"}",
		  GT_DT_F16, 0, 1 },
		{ 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 0), }",
		  GT_DT_F32, 2, 0 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		unsigned char file[512], back[64];
		const size_t bytes = cases[k].count * gt_dtype_size(cases[k].dt);
		const size_t len = build_npy(file, cases[k].version, cases[k].dict, vals, bytes);
		struct gt_source *s = NULL;
		struct gt_diag d = { "" };
		size_t n = 99;

		write_file(tmp_path("a.bin"), file, len);
		CHECK_RC(gt_source_open(tmp_path("a.bin"), NULL, &s, &d), 0);
		if (!s) {
			fprintf(stderr, "case %zu: %s\n", k, d.msg);
			continue;
		}
		CHECK(gt_source_kind(s) == GT_KIND_NPY);
		CHECK(!strcmp(gt_source_info(s, 0)->name, "a"));
		CHECK(gt_source_info(s, 0)->dtype == cases[k].dt);
		CHECK(gt_source_info(s, 0)->rank == cases[k].rank);
		CHECK(gt_source_info(s, 0)->count == cases[k].count);
		CHECK_RC(read_all(s, back, sizeof(back) / gt_dtype_size(cases[k].dt), &n, &d), 0);
		CHECK(n == cases[k].count);
		CHECK(!memcmp(back, vals, bytes));
		gt_source_free(s);
	}
}

static void test_npy_errors(void)
{
	static const struct {
		int version;
		const char *dict;
		size_t data;
		int rc;
		const char *msg;
	} cases[] = {
		{ 1, "{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", 16,
		  GT_ERR(TYPE), "dtype '<f16': long double (float128) is not supported" },
		{ 1, "{'descr': '>f12', 'fortran_order': False, 'shape': (1,), }", 12,
		  GT_ERR(TYPE), "dtype '>f12': long double (float128) is not supported" },
		{ 1, "{'descr': '>f4', 'fortran_order': True, 'shape': (3, 2), }", 16,
		  GT_ERR(TRUNCATED), "the shape needs 24" },
		{ 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 8,
		  GT_ERR(TYPE), "dtype '<i4' is not floating point" },
		{ 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8,
		  GT_ERR(TYPE), "is not floating point" },
		{ 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,", 8,
		  GT_ERR(CORRUPT), "bad .npy header: " },
		{ 1, "{'descr': '<f4', 'fortran_order': False, }", 8,
		  GT_ERR(CORRUPT), "bad .npy header: missing" },
		{ 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
		  8, GT_ERR(CORRUPT), "bad .npy header: " },
		{ 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
		  8, GT_ERR(CORRUPT), "shape too large" },
		{ 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 8,
		  GT_ERR(TRUNCATED), "the shape needs 12" },
		{ 4, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 8,
		  GT_ERR(UNSUPPORTED), "version 4" },
		{ 1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }", 8,
		  GT_ERR(CORRUPT), "bad fortran_order" },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		unsigned char file[512];
		const size_t len = build_npy(file, cases[k].version, cases[k].dict, vals,
					     cases[k].data);
		struct gt_source *s = NULL;
		struct gt_diag d = { "" };

		write_file(tmp_path("e.npy"), file, len);
		CHECK_RC(gt_source_open(tmp_path("e.npy"), NULL, &s, &d), cases[k].rc);
		CHECK(s == NULL);
		if (!strstr(d.msg, cases[k].msg)) {
			fprintf(stderr, "case %zu: message '%s'\n", k, d.msg);
			CHECK(0);
		}
		gt_source_free(s);
	}
	/* a header that claims more bytes than the file has */
	{
		struct gt_source *s = NULL;
		struct gt_diag d = { "" };
		struct gt_source_opts o = { GT_KIND_NPY, GT_DT_NONE, 0 };

		write_file(tmp_path("t.npy"), "\x93NUMPY\x01\x00\xff\x00{'de", 14);
		CHECK_RC(gt_source_open(tmp_path("t.npy"), NULL, &s, &d), GT_ERR(CORRUPT));
		write_file(tmp_path("t.npy"), "hello", 5);
		CHECK_RC(gt_source_open(tmp_path("t.npy"), &o, &s, &d), GT_ERR(CORRUPT));
		CHECK(strstr(d.msg, "bad .npy header") != NULL);
	}
}

struct sink_case {
	const char *file;
	enum gt_dtype dt;
	unsigned rank;
	uint64_t dims[3];
	uint64_t count;
};

static void write_tensor(const struct sink_case *c, const void *data, int want_rc,
			 struct gt_diag *d)
{
	struct gt_tensor_info t = { .name = (char *)(uintptr_t)"x", .dtype = c->dt,
				    .rank = c->rank, .count = c->count };
	struct gt_sink *k = NULL;
	int rc;

	memcpy(t.dims, c->dims, sizeof(c->dims));
	CHECK_RC(gt_sink_open(tmp_path(c->file), &(struct gt_sink_opts){ 0, 1 }, &k, d), 0);
	if (!k)
		return;
	rc = gt_sink_begin(k, &t, d);
	if (rc == 0)
		rc = gt_sink_write(k, data, (size_t)c->count, d);
	if (rc == 0)
		rc = gt_sink_end(k, d);
	if (rc == 0)
		rc = gt_sink_commit(k, d);
	CHECK_RC(rc, want_rc);
	gt_sink_free(k);
}

static void test_sink_round_trip(void)
{
	static const struct sink_case cases[] = {
		{ "s1.npy", GT_DT_F32, 2, { 3, 4 }, 12 },
		{ "s2.npy", GT_DT_F64, 1, { 5 }, 5 },
		{ "s3.npy", GT_DT_F16, 0, { 0 }, 1 },
		{ "s4.npy", GT_DT_F32, 3, { 1, 0, 2 }, 0 },
		{ "s5.f32", GT_DT_F32, 1, { 12 }, 12 },
		{ "s6.bf16", GT_DT_BF16, 1, { 7 }, 7 },
		{ "s7.f16", GT_DT_F16, 1, { 3 }, 3 },
		{ "s8.f64", GT_DT_F64, 2, { 2, 3 }, 6 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct sink_case *c = &cases[k];
		const size_t bytes = c->count * gt_dtype_size(c->dt);
		struct gt_source *s = NULL;
		struct gt_diag d = { "" };
		unsigned char back[128];
		size_t n = 0;

		write_tensor(c, vals, 0, &d);
		CHECK_RC(gt_source_open(tmp_path(c->file), NULL, &s, &d), 0);
		if (!s) {
			fprintf(stderr, "case %zu: %s\n", k, d.msg);
			continue;
		}
		CHECK(gt_source_info(s, 0)->dtype == c->dt);
		CHECK(gt_source_info(s, 0)->count == c->count);
		if (gt_source_kind(s) == GT_KIND_NPY) {
			CHECK(gt_source_info(s, 0)->rank == c->rank);
			CHECK(!memcmp(gt_source_info(s, 0)->dims, c->dims, c->rank * 8));
		}
		CHECK_RC(read_all(s, back, sizeof(back) / gt_dtype_size(c->dt), &n, &d), 0);
		CHECK(n == c->count);
		CHECK(!memcmp(back, vals, bytes));
		gt_source_free(s);
	}
}

static void test_npy_sink_layout(void)
{
	const struct sink_case c = { "l.npy", GT_DT_F32, 1, { 3 }, 3 };
	struct gt_diag d = { "" };
	unsigned char buf[256];
	FILE *f;
	size_t len;

	write_tensor(&c, vals, 0, &d);
	f = fopen(tmp_path("l.npy"), "rb");
	CHECK(f != NULL);
	if (!f)
		return;
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	CHECK(len == 128 + 12);
	CHECK(buf[6] == 1 && buf[8] + 256 * buf[9] + 10 == 128);
	CHECK(!memcmp(buf + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 57));
	CHECK(buf[127] == '\n');
	CHECK(!memcmp(buf + 128, vals, 12));
}

static void test_sink_errors(void)
{
	static const struct sink_case bf = { "b.npy", GT_DT_BF16, 1, { 2 }, 2 };
	static const struct sink_case mis = { "m.f16", GT_DT_F32, 1, { 2 }, 2 };
	struct gt_tensor_info t = { .name = (char *)(uintptr_t)"x", .dtype = GT_DT_F32,
				    .rank = 1, .dims = { 2 }, .count = 2 };
	struct gt_diag d = { "" };
	struct gt_sink *k = NULL;

	write_tensor(&bf, vals, GT_ERR(TYPE), &d);
	CHECK(strstr(d.msg, "bf16 cannot be stored in .npy; use .h5 or raw") != NULL);
	CHECK(access(tmp_path("b.npy"), F_OK) != 0);
	write_tensor(&mis, vals, GT_ERR(TYPE), &d);

	/* exists without force; GTZ; unknown extension */
	write_file(tmp_path("old.f32"), "abcd", 4);
	CHECK_RC(gt_sink_open(tmp_path("old.f32"), NULL, &k, &d), GT_ERR(EXISTS));
	CHECK(strstr(d.msg, "old.f32 exists; use -f to overwrite") != NULL);
	CHECK_RC(gt_sink_open(tmp_path("x.gtz"), NULL, &k, &d), GT_ERR(INVAL));
	CHECK_RC(gt_sink_open(tmp_path("x.txt"), NULL, &k, &d), GT_ERR(INVAL));
	CHECK(k == NULL);

	/* counts, a second tensor, and free without commit */
	CHECK_RC(gt_sink_open(tmp_path("c.f32"), NULL, &k, &d), 0);
	CHECK_RC(gt_sink_begin(k, &t, &d), 0);
	CHECK_RC(gt_sink_write(k, vals, 3, &d), GT_ERR(CORRUPT));
	CHECK_RC(gt_sink_write(k, vals, 1, &d), 0);
	CHECK_RC(gt_sink_end(k, &d), GT_ERR(CORRUPT));
	CHECK_RC(gt_sink_write(k, vals + 1, 1, &d), 0);
	CHECK_RC(gt_sink_end(k, &d), 0);
	CHECK_RC(gt_sink_begin(k, &t, &d), GT_ERR(INVAL));
	gt_sink_free(k);
	CHECK(access(tmp_path("c.f32"), F_OK) != 0);
}

static void test_raw_errors(void)
{
	static const struct {
		const char *file;
		size_t len;
		enum gt_dtype dt;
		int rc;
		const char *msg;
	} cases[] = {
		{ "x.bin", 8, GT_DT_NONE, GT_ERR(TYPE), "cannot tell the dtype of '" },
		{ "e.f32", 0, GT_DT_NONE, GT_ERR(INVAL), "empty file" },
		{ "t.f32", 10, GT_DT_NONE, GT_ERR(INVAL), "size 10 is not a multiple of 4 bytes (f32)" },
		{ "t.bin", 7, GT_DT_F16, GT_ERR(INVAL), "size 7 is not a multiple of 2 bytes (f16)" },
		{ "nonexistent.f32", 0, GT_DT_NONE, GT_ERR(IO), "No such file" },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct gt_source_opts o = { GT_KIND_AUTO, cases[k].dt, 0 };
		struct gt_source *s = NULL;
		struct gt_diag d = { "" };

		if (cases[k].rc != GT_ERR(IO))
			write_file(tmp_path(cases[k].file), vals, cases[k].len);
		CHECK_RC(gt_source_open(tmp_path(cases[k].file), &o, &s, &d), cases[k].rc);
		if (!strstr(d.msg, cases[k].msg)) {
			fprintf(stderr, "case %zu: message '%s'\n", k, d.msg);
			CHECK(0);
		}
		CHECK(s == NULL);
	}
}

static void test_raw_named(void)
{
	const struct gt_source_opts o = { GT_KIND_RAW, GT_DT_F32, 0 };
	struct gt_source *s = NULL;
	struct gt_diag d = { "" };
	size_t idx = 9, n;
	float back[12];

	write_file(tmp_path("grad.layer1.bin"), vals, 48);
	CHECK_RC(gt_source_open(tmp_path("grad.layer1.bin"), &o, &s, &d), 0);
	if (!s)
		return;
	CHECK(!strcmp(gt_source_info(s, 0)->name, "grad.layer1"));
	CHECK(gt_source_info(s, 0)->rank == 1 && gt_source_info(s, 0)->dims[0] == 12);
	CHECK_RC(gt_source_find(s, "/grad.layer1", &idx), 0);
	CHECK(idx == 0);
	CHECK_RC(gt_source_find(s, "nope", &idx), GT_ERR(NOTFOUND));
	/* random access on a regular file, and past the end */
	CHECK_RC(gt_source_read(s, 0, 10, 5, back, &n, &d), 0);
	CHECK(n == 2 && !memcmp(back, vals + 10, 8));
	CHECK_RC(gt_source_read(s, 0, 12, 5, back, &n, &d), 0);
	CHECK(n == 0);
	CHECK_RC(gt_source_read(s, 0, 0, 4, back, &n, &d), 0);
	CHECK(n == 4 && !memcmp(back, vals, 16));
	gt_source_free(s);
}

/* stdin: raw with an unknown count, .npy detected by its magic, errors */
static void test_stdin(void)
{
	const struct gt_source_opts o = { GT_KIND_AUTO, GT_DT_F32, 0 };
	unsigned char file[256];
	struct gt_source *s = NULL;
	struct gt_diag d = { "" };
	float back[16];
	size_t n = 0, len;

	write_file(tmp_path("in.f32"), vals, 48);
	CHECK(freopen(tmp_path("in.f32"), "rb", stdin) != NULL);
	CHECK_RC(gt_source_open("-", &o, &s, &d), 0);
	if (s) {
		CHECK(!strcmp(gt_source_info(s, 0)->name, "-"));
		CHECK(gt_source_info(s, 0)->count == GT_COUNT_UNKNOWN);
		CHECK_RC(gt_source_read(s, 0, 5, 1, back, &n, &d), GT_ERR(INVAL));
		CHECK_RC(read_all(s, back, 16, &n, &d), 0);
		CHECK(n == 12 && !memcmp(back, vals, 48));
		CHECK(gt_source_info(s, 0)->count == 12);
		gt_source_free(s);
	}
	write_file(tmp_path("in.f32"), vals, 10);
	CHECK(freopen(tmp_path("in.f32"), "rb", stdin) != NULL);
	CHECK_RC(gt_source_open("-", &o, &s, &d), 0);
	if (s) {
		CHECK_RC(read_all(s, back, 16, &n, &d), GT_ERR(INVAL));
		CHECK(strstr(d.msg, "size 10 is not a multiple of 4 bytes (f32)") != NULL);
		gt_source_free(s);
	}
	write_file(tmp_path("in.f32"), vals, 0);
	CHECK(freopen(tmp_path("in.f32"), "rb", stdin) != NULL);
	CHECK_RC(gt_source_open("-", &o, &s, &d), GT_ERR(INVAL));
	CHECK(strstr(d.msg, "empty input") != NULL);

	len = build_npy(file, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
			vals, 12);
	write_file(tmp_path("in.npy"), file, len);
	CHECK(freopen(tmp_path("in.npy"), "rb", stdin) != NULL);
	CHECK_RC(gt_source_open("-", NULL, &s, &d), 0);
	if (s) {
		CHECK(gt_source_kind(s) == GT_KIND_NPY && gt_source_info(s, 0)->count == 4);
		CHECK_RC(read_all(s, back, 16, &n, &d), GT_ERR(TRUNCATED));
		gt_source_free(s);
	}
}

static void remove_dir(void)
{
	DIR *dp = opendir(dir);
	struct dirent *e;
	int left = 0;

	if (!dp)
		return;
	while ((e = readdir(dp)) != NULL) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || e->d_name[1] == '.'))
			continue;
		if (e->d_name[0] == '.')
			left++; /* a temporary file left behind */
		unlink(tmp_path(e->d_name));
	}
	closedir(dp);
	CHECK(left == 0);
	rmdir(dir);
}

/* The big-endian bytes of @n values of @size bytes at @src. */
static void to_big(unsigned char *dst, const void *src, size_t n, unsigned size)
{
	const unsigned char *p = src;

	for (size_t i = 0; i < n; i++)
		for (unsigned b = 0; b < size; b++)
			dst[i * size + b] = p[i * size + size - 1 - b];
}

/* The bits of the integer @v (0-15) in @dt: 2^e (1 + m / 2^mb). */
static uint64_t small_int(unsigned v, enum gt_dtype dt)
{
	const unsigned mb = gt_dtype_man_bits(dt);
	unsigned e = 0;

	if (!v)
		return 0;
	while (v >> (e + 1))
		e++;
	return gt_fp_make(0, (unsigned)gt_dtype_bias(dt) + e,
			  ((uint64_t)v << mb >> e) & ((UINT64_C(1) << mb) - 1), dt);
}

/* Open @path, check tensor @t's shape (2, 3, 2) and the values 0..11 in
 * C order, read in pieces of 5 values. */
static void check_c_order(const char *path, enum gt_dtype dt, size_t t)
{
	struct gt_source *s = NULL;
	struct gt_diag d = { "" };
	unsigned char back[12 * 8];
	size_t n = 0, got = 1;

	CHECK_RC(gt_source_open(path, NULL, &s, &d), 0);
	if (!s) {
		fprintf(stderr, "%s: %s\n", path, d.msg);
		return;
	}
	CHECK(gt_source_info(s, t)->dtype == dt);
	CHECK(gt_source_info(s, t)->rank == 3 && gt_source_info(s, t)->dims[0] == 2 &&
	      gt_source_info(s, t)->dims[1] == 3 && gt_source_info(s, t)->dims[2] == 2);
	while (got && n < 12) {
		CHECK_RC(gt_source_read(s, t, n, 5, back + n * gt_dtype_size(dt), &got, &d), 0);
		n += got;
	}
	CHECK(n == 12);
	for (size_t i = 0; i < n; i++)
		CHECK(!(gt_fp_get(back, dt, i) < (double)i) && !(gt_fp_get(back, dt, i) > (double)i));
	gt_source_free(s);
}

/*
 * Fortran order and big-endian, alone and together, for f4, f8 and f2.
 * The C array x[i][j][k] = 6i + 2j + k of shape (2, 3, 2) lies in a
 * Fortran file with i fastest: file value f = i + 2j + 6k, worked out by
 * hand as the order 0 6 2 8 4 10 1 7 3 9 5 11.
 */
static void test_npy_fortran_big_endian(void)
{
	static const unsigned forder[12] = { 0, 6, 2, 8, 4, 10, 1, 7, 3, 9, 5, 11 };
	static const struct {
		const char *descr;
		enum gt_dtype dt;
	} types[] = { { "f4", GT_DT_F32 }, { "f8", GT_DT_F64 }, { "f2", GT_DT_F16 } };

	for (size_t t = 0; t < 3; t++) {
		const unsigned size = gt_dtype_size(types[t].dt);

		for (int variant = 0; variant < 4; variant++) {
			const int fortran = variant & 1, big = variant >> 1;
			unsigned char le[12 * 8], data[12 * 8], file[512];
			char dict[128];

			for (unsigned i = 0; i < 12; i++)
				gt_fp_store(le, types[t].dt, i,
					    small_int(fortran ? forder[i] : i, types[t].dt));
			if (big)
				to_big(data, le, 12, size);
			else
				memcpy(data, le, 12 * size);
			snprintf(dict, sizeof(dict),
				 "{'descr': '%c%s', 'fortran_order': %s, 'shape': (2, 3, 2), }",
				 big ? '>' : '<', types[t].descr, fortran ? "True" : "False");
			write_file(tmp_path("fb.npy"), file,
				   build_npy(file, 1, dict, data, 12 * size));
			check_c_order(tmp_path("fb.npy"), types[t].dt, 0);
		}
	}
}

/* Add @len bytes at @p as member @name of @z, deflated or stored. */
static void npz_add(zip_t *z, const char *name, const void *p, size_t len, int deflate)
{
	zip_source_t *src = zip_source_buffer(z, p, len, 0);
	zip_int64_t i;

	CHECK(src != NULL);
	i = zip_file_add(z, name, src, 0);
	CHECK(i >= 0);
	CHECK(zip_set_file_compression(z, (zip_uint64_t)i,
				       deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) == 0);
}

/* An .npz as np.savez / np.savez_compressed write it: KEY.npy members. */
static void test_npz(void)
{
	static unsigned char f4[512], f8be[512], i4[512];
	static const int32_t ints[3] = { 1, 2, 3 };
	double d8[12];
	unsigned char d8be[96];
	size_t l4, l8, li;

	for (int i = 0; i < 12; i++)
		d8[i] = i;
	to_big(d8be, d8, 12, 8);
	l4 = build_npy(f4, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }",
		       vals, sizeof(vals));
	l8 = build_npy(f8be, 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3, 2), }",
		       d8be, sizeof(d8be));
	li = build_npy(i4, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
		       ints, sizeof(ints));
	for (int deflate = 0; deflate < 2; deflate++) {
		struct gt_source *s = NULL;
		struct gt_diag d = { "" };
		float back[12];
		size_t n = 0;
		int err = 0;
		zip_t *z = zip_open(tmp_path("a.npz"), ZIP_CREATE | ZIP_TRUNCATE, &err);

		CHECK(z != NULL);
		if (!z)
			return;
		npz_add(z, "grad.npy", f4, l4, deflate);
		npz_add(z, "step/x.npy", f8be, l8, deflate);
		npz_add(z, "labels.npy", i4, li, deflate);
		npz_add(z, "README", "not an array", 12, deflate);
		CHECK(zip_close(z) == 0);
		CHECK_RC(gt_source_open(tmp_path("a.npz"), NULL, &s, &d), 0);
		if (!s) {
			fprintf(stderr, "npz: %s\n", d.msg);
			continue;
		}
		CHECK(gt_source_kind(s) == GT_KIND_NPY && gt_source_count(s) == 3);
		CHECK(!strcmp(gt_source_info(s, 0)->name, "grad"));
		CHECK(!strcmp(gt_source_info(s, 1)->name, "step/x"));
		CHECK(!strcmp(gt_source_info(s, 2)->name, "labels"));
		CHECK(gt_source_info(s, 2)->dtype == GT_DT_NONE && gt_source_info(s, 2)->count == 3);
		CHECK(!strcmp(gt_source_info(s, 2)->type_desc, "integer"));
		CHECK_RC(read_all(s, back, 12, &n, &d), 0);
		CHECK(n == 12 && !memcmp(back, vals, sizeof(vals)));
		gt_source_free(s);
		check_c_order(tmp_path("a.npz"), GT_DT_F64, 1);
	}
	/* a raw file that starts like a zip (1.5e-36f) stays raw by its name */
	{
		struct gt_source *s = NULL;
		struct gt_diag d = { "" };

		write_file(tmp_path("pk.f32"), "PK\3\4\0\0\200\77", 8);
		CHECK_RC(gt_source_open(tmp_path("pk.f32"), NULL, &s, &d), 0);
		CHECK(s && gt_source_kind(s) == GT_KIND_RAW && gt_source_info(s, 0)->count == 2);
		gt_source_free(s);
	}
}

static void test_no_temp_left(void)
{
	remove_dir();
}

int main(int argc, char **argv)
{
	const char *t = getenv("TMPDIR");

	check_init(argc, argv);
	snprintf(dir, sizeof(dir), "%s/test_npy.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	RUN(test_npy_valid);
	RUN(test_npy_errors);
	RUN(test_npy_fortran_big_endian);
	RUN(test_npz);
	RUN(test_sink_round_trip);
	RUN(test_npy_sink_layout);
	RUN(test_sink_errors);
	RUN(test_raw_errors);
	RUN(test_raw_named);
	RUN(test_stdin);
	RUN(test_no_temp_left);
	return check_done("test_npy");
}
