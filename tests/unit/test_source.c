/* test_source.c - kinds, detection by magic and extension, attribute lists */
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "../../formats/gt_source.h"

static void test_kind_names(void)
{
	static const struct {
		const char *path;
		enum gt_kind k;
	} cases[] = {
		{ "a.h5", GT_KIND_HDF5 }, { "dir.x/a.HDF5", GT_KIND_HDF5 },
		{ "a.npy", GT_KIND_NPY }, { "a.gtz", GT_KIND_GTZ },
		{ "a.f32", GT_KIND_RAW }, { "a.bf16", GT_KIND_RAW },
		{ "a.bin", GT_KIND_RAW }, { "a.raw", GT_KIND_RAW },
		{ "dir.h5/a", GT_KIND_AUTO }, { "a.txt", GT_KIND_AUTO }, { "-", GT_KIND_AUTO },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(gt_kind_from_name(cases[i].path) == cases[i].k);
	CHECK(gt_kind_parse("h5") == GT_KIND_HDF5 && gt_kind_parse("hdf5") == GT_KIND_HDF5);
	CHECK(gt_kind_parse("npy") == GT_KIND_NPY && gt_kind_parse("raw") == GT_KIND_RAW);
	CHECK(gt_kind_parse("gtz") == GT_KIND_GTZ && gt_kind_parse("zip") == GT_KIND_AUTO);
	CHECK(!strcmp(gt_kind_name(GT_KIND_HDF5), "hdf5") && gt_kind_name(GT_KIND_AUTO) == NULL);
}

static void test_attrs(void)
{
	int64_t iv[2] = { 1, -5 };
	double fv[1] = { 0.5 };
	struct gt_attr v[] = {
		{ (char *)(uintptr_t)"i", GT_ATTR_INT, 2, iv, NULL, NULL, NULL },
		{ (char *)(uintptr_t)"f", GT_ATTR_FLOAT, 1, NULL, fv, NULL, NULL },
		{ (char *)(uintptr_t)"s", GT_ATTR_STR, 3, NULL, NULL, (char *)(uintptr_t)"abc", NULL },
	};
	const struct gt_attrs src = { v, 3 };
	struct gt_attrs dst = { NULL, 0 };
	const struct gt_attr *a;

	CHECK_RC(gt_attrs_copy(&dst, &src), 0);
	CHECK_RC(gt_attrs_copy(&dst, &src), 0);
	CHECK(dst.n == 6);
	a = gt_attrs_find(&dst, "i");
	CHECK(a && a->i != iv && a->n == 2 && a->i[1] == -5);
	a = gt_attrs_find(&dst, "s");
	CHECK(a && a->s != v[2].s && !strcmp(a->s, "abc"));
	CHECK(gt_attrs_find(&dst, "nope") == NULL);
	gt_attrs_release(&dst);
	CHECK(dst.n == 0 && dst.v == NULL);
}

/* --dtype on a file with its own dtype: agreeing is fine, disagreeing is
 * an error naming both, and dtype_if_raw leaves such a file alone. */
static void test_dtype_disagrees(void)
{
	static const struct {
		const char *path;
		enum gt_dtype dt;
		int if_raw, rc;
		const char *msg;
	} cases[] = {
		{ "samples/grads.npy", GT_DT_F32, 0, 0, "" },
		{ "samples/grads.npy", GT_DT_F16, 0, GT_ERR(INVAL),
		  "--dtype f16 disagrees with the file's dtype f32" },
		{ "samples/grads.npy", GT_DT_F16, 1, 0, "" },
		{ "samples/f16_momentum.h5", GT_DT_F16, 0, 0, "" },
		{ "samples/f16_momentum.h5", GT_DT_BF16, 0, GT_ERR(INVAL),
		  "--dtype bf16 disagrees with the dtype f16 of /" },
		{ "samples/grads.f32", GT_DT_F16, 0, 0, "" }, /* raw: --dtype decides */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct gt_source_opts o = { GT_KIND_AUTO, cases[i].dt, cases[i].if_raw };
		struct gt_source *s = NULL;
		struct gt_diag d = { "" };

		CHECK_RC(gt_source_open(cases[i].path, &o, &s, &d), cases[i].rc);
		CHECK(!strncmp(d.msg, cases[i].msg, strlen(cases[i].msg)));
		CHECK((s != NULL) == !cases[i].rc);
		gt_source_free(s);
	}
}

/* The magic bytes win over the extension; unknown bytes fall back to it. */
static void test_detect(void)
{
	static const struct {
		const char *bytes;
		size_t len;
		const char *name;
		enum gt_kind kind;
		int ok;
	} cases[] = {
		{ "\x93NUMPY\x01\x00\x36\x00{'descr':'<f4','fortran_order':False,'shape':(0,)}   \n",
		  64, "n.f32", GT_KIND_NPY, 1 },
		{ "\x89HDF\r\n\x1a\n", 8, "h.npy", GT_KIND_HDF5, 0 },
		{ "\x89GTZ", 4, "g.f32", GT_KIND_GTZ, 0 },
		{ "\0\0\0\0", 4, "r.f32", GT_KIND_RAW, 1 },
		{ "\0\0\0\0", 4, "r.npy", GT_KIND_NPY, 0 },
	};
	char dir[256], path[512];
	const char *t = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/test_source.XXXXXX", t && *t ? t : "/tmp");
	CHECK(mkdtemp(dir) != NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gt_source *s = NULL;
		struct gt_diag d = { "" };
		FILE *f;
		int rc;

		snprintf(path, sizeof(path), "%s/%s", dir, cases[i].name);
		f = fopen(path, "wb");
		CHECK(f && fwrite(cases[i].bytes, 1, cases[i].len, f) == cases[i].len);
		if (f)
			fclose(f);
		rc = gt_source_open(path, NULL, &s, &d);
		CHECK((rc == 0) == cases[i].ok);
		if (s)
			CHECK(gt_source_kind(s) == cases[i].kind);
		if (rc < 0)
			CHECK(d.msg[0] != '\0');
		gt_source_free(s);
		unlink(path);
	}
	{
		struct gt_source *s = NULL;
		struct gt_diag d = { "" };

		CHECK_RC(gt_source_open(dir, NULL, &s, &d), GT_ERR(IO));
	}
	CHECK(rmdir(dir) == 0);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_kind_names);
	RUN(test_attrs);
	RUN(test_detect);
	RUN(test_dtype_disagrees);
	return check_done("test_source");
}
