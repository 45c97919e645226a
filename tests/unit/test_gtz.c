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
					   { ts[k].dt, opts, NULL, 0, NULL }, block, chunk };
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
	struct gt_gtz_coding c = { gt_codec_find("zstd"), { GT_DT_F32, "level=1", NULL, 0, NULL }, 0, 0 };
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

int main(int argc, char **argv)
{
	char cmd[300];
	int rc;

	check_init(argc, argv);
	if (!mkdtemp(dir))
		return 1;
	setup();
	RUN(test_round_trip_every_codec);
	RUN(test_threads_do_not_change_bytes);
	RUN(test_source_random_access);
	RUN(test_incompressible_blocks_stored_raw);
	RUN(test_hostile_bytes);
	RUN(test_unknown_count_and_refusals);
	for (int k = 0; k < 3; k++)
		free(ts[k].data);
	rc = check_done("test_gtz");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return 1;
	return rc;
}
