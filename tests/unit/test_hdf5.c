/* test_hdf5.c - HDF5 sink and source round trips, foreign types, and the trace layout */
#include <stdint.h>
#include <unistd.h>

#include <hdf5.h>

#include "check.h"
#include "../../formats/gt_h5filter.h"
#include "../../lib/gt_codec.h"
#include "../../formats/gt_sink.h"
#include "../../formats/gt_source.h"
#include "../../formats/gt_trace.h"

static char dir[256];

static const char *tmp_path(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

static const float vals[12] = { 1.5f, -2.0f, 0.0f, -0.0f, 3.25f, 1e-40f,
				 7.0f, 8.0f, 9.0f, 10.0f, 11.0f, 12.0f };

#define S(x) ((char *)(uintptr_t)(x))

static int64_t ints[3] = { 7, -1, 1 };
static double dbls[2] = { 0.9, 0.999 };

static const struct {
	const char *name;
	enum gt_dtype dt;
	unsigned rank;
	uint64_t dims[3];
	uint64_t count;
} tensors[] = {
	{ "/step_000100/grad/fc.weight", GT_DT_F32, 2, { 3, 4 }, 12 },
	{ "/step_000100/grad/fc.bias", GT_DT_F64, 1, { 6 }, 6 },
	{ "/half", GT_DT_F16, 1, { 5 }, 5 },
	{ "/brain", GT_DT_BF16, 2, { 2, 3 }, 6 },
	{ "/empty", GT_DT_F32, 2, { 0, 4 }, 0 },
	{ "/scalar", GT_DT_F64, 0, { 0 }, 1 },
};

static void write_h5(const char *path, struct gt_diag *d)
{
	struct gt_attr ga[] = {
		{ S("optimizer"), GT_ATTR_STR, 5, NULL, NULL, S("AdamW"), NULL },
		{ S("ints"), GT_ATTR_INT, 3, ints, NULL, NULL, NULL },
		{ S("betas"), GT_ATTR_FLOAT, 2, NULL, dbls, NULL, NULL },
		{ S("lr"), GT_ATTR_FLOAT, 1, NULL, dbls, NULL, NULL },
	};
	const struct gt_group_info groups[] = {
		{ S("/"), { ga, 3 } },
		{ S("/step_000100/grad"), { ga + 3, 1 } },
	};
	struct gt_sink *k = NULL;

	CHECK_RC(gt_sink_open(path, NULL, &k, d), 0);
	if (!k)
		return;
	for (size_t i = 0; i < 2; i++)
		CHECK_RC(gt_sink_group(k, &groups[i], d), 0);
	for (size_t i = 0; i < sizeof(tensors) / sizeof(tensors[0]); i++) {
		struct gt_tensor_info t = { .name = S(tensors[i].name), .dtype = tensors[i].dt,
					    .rank = tensors[i].rank, .count = tensors[i].count,
					    .attrs = { ga + 1, i == 0 ? 1 : 0 } };

		memcpy(t.dims, tensors[i].dims, sizeof(tensors[i].dims));
		CHECK_RC(gt_sink_begin(k, &t, d), 0);
		CHECK_RC(gt_sink_write(k, vals, (size_t)t.count, d), 0);
		CHECK_RC(gt_sink_end(k, d), 0);
	}
	CHECK_RC(gt_sink_commit(k, d), 0);
	gt_sink_free(k);
}

static void test_round_trip(void)
{
	struct gt_source *s = NULL;
	struct gt_diag d = { "" };
	const struct gt_attr *a;
	unsigned char back[128];
	size_t idx, n;

	write_h5(tmp_path("rt.h5"), &d);
	CHECK_RC(gt_source_open(tmp_path("rt.h5"), NULL, &s, &d), 0);
	if (!s) {
		fprintf(stderr, "%s\n", d.msg);
		return;
	}
	CHECK(gt_source_kind(s) == GT_KIND_HDF5);
	CHECK(gt_source_count(s) == 6);
	CHECK(gt_source_ngroups(s) == 3);
	CHECK(!strcmp(gt_source_group(s, 0)->name, "/"));
	CHECK(!strcmp(gt_source_group(s, 1)->name, "/step_000100"));
	CHECK(!strcmp(gt_source_group(s, 2)->name, "/step_000100/grad"));
	a = gt_attrs_find(&gt_source_group(s, 0)->attrs, "optimizer");
	CHECK(a && a->type == GT_ATTR_STR && !strcmp(a->s, "AdamW") && a->n == 5);
	a = gt_attrs_find(&gt_source_group(s, 0)->attrs, "ints");
	CHECK(a && a->type == GT_ATTR_INT && a->n == 3 && !memcmp(a->i, ints, sizeof(ints)));
	a = gt_attrs_find(&gt_source_group(s, 0)->attrs, "betas");
	CHECK(a && a->type == GT_ATTR_FLOAT && a->n == 2 && !memcmp(a->f, dbls, sizeof(dbls)));
	a = gt_attrs_find(&gt_source_group(s, 2)->attrs, "lr");
	CHECK(a && a->type == GT_ATTR_FLOAT && a->n == 1);
	for (size_t i = 0; i < sizeof(tensors) / sizeof(tensors[0]); i++) {
		const struct gt_tensor_info *t;

		CHECK_RC(gt_source_find(s, tensors[i].name + 1, &idx), 0);
		t = gt_source_info(s, idx);
		CHECK(t->dtype == tensors[i].dt && t->rank == tensors[i].rank);
		CHECK(t->count == tensors[i].count);
		CHECK(!memcmp(t->dims, tensors[i].dims, t->rank * sizeof(uint64_t)));
		CHECK_RC(gt_source_read(s, idx, 0, 100, back, &n, &d), 0);
		CHECK(n == t->count);
		CHECK(!memcmp(back, vals, n * gt_dtype_size(t->dtype)));
		if (t->count > 2) { /* a range from the cache, after another dataset */
			CHECK_RC(gt_source_read(s, 0, 0, 1, back, &n, &d), 0);
			CHECK_RC(gt_source_read(s, idx, 2, 1, back, &n, &d), 0);
			CHECK(n == 1 && !memcmp(back, (const char *)vals + 2 * gt_dtype_size(t->dtype),
						gt_dtype_size(t->dtype)));
		}
	}
	CHECK_RC(gt_source_find(s, "/step_000100/grad/fc.weight", &idx), 0);
	a = gt_attrs_find(&gt_source_info(s, idx)->attrs, "ints");
	CHECK(a && a->n == 3);
	gt_source_free(s);
}

static hid_t dataset(hid_t f, const char *name, hid_t type, hsize_t n, const void *buf)
{
	const hid_t sp = H5Screate_simple(1, &n, NULL);
	const hid_t ds = H5Dcreate2(f, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);

	CHECK(ds >= 0);
	if (buf)
		CHECK(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
	H5Sclose(sp);
	return ds;
}

/* Files written with the plain HDF5 API, as h5py and other tools do. */
static void write_foreign(const char *path)
{
	const hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	const int64_t iv[2] = { 1, 2 };
	const unsigned char be[8] = { 0x3f, 0xc0, 0, 0, 0xc0, 0, 0, 0 }; /* 1.5, -2 */
	const uint16_t bf[2] = { 0x3fc0, 0xc000 };
	const hid_t cmp = H5Tcreate(H5T_COMPOUND, 8);
	const hid_t opq = H5Tcreate(H5T_OPAQUE, 2);
	const hid_t bft = H5Tcopy(H5T_IEEE_F32LE);
	const hid_t en = H5Tenum_create(H5T_NATIVE_SCHAR);
	const signed char yes = 1, no = 0;
	const hid_t sc = H5Screate(H5S_SCALAR);
	hid_t ds, at;

	H5Tinsert(cmp, "a", 0, H5T_NATIVE_INT64);
	H5Tset_tag(opq, "bfloat16");
	H5Tset_fields(bft, 15, 7, 8, 0, 7);
	H5Tset_size(bft, 2);
	H5Tenum_insert(en, "FALSE", &no);
	H5Tenum_insert(en, "TRUE", &yes);
	H5Dclose(dataset(f, "ints", H5T_STD_I64LE, 2, iv));
	H5Dclose(dataset(f, "comp", cmp, 1, iv));
	H5Dclose(dataset(f, "be", H5T_IEEE_F32BE, 2, be));
	H5Dclose(dataset(f, "opq", opq, 2, bf));
	H5Dclose(dataset(f, "bfloat", bft, 2, bf));
	H5Dclose(dataset(f, "zero", H5T_IEEE_F32LE, 0, NULL));
	ds = dataset(f, "flagged", H5T_IEEE_F32LE, 1, vals);
	at = H5Acreate2(ds, "nesterov", en, sc, H5P_DEFAULT, H5P_DEFAULT);
	H5Awrite(at, en, &yes);
	H5Aclose(at);
	at = H5Acreate2(ds, "ignored", cmp, sc, H5P_DEFAULT, H5P_DEFAULT);
	H5Awrite(at, cmp, iv);
	H5Aclose(at);
	H5Dclose(ds);
	H5Sclose(sc);
	H5Tclose(en);
	H5Tclose(bft);
	H5Tclose(opq);
	H5Tclose(cmp);
	H5Fclose(f);
}

static void test_foreign(void)
{
	static const struct {
		const char *name;
		enum gt_dtype dt;
		const char *desc;
		uint64_t count;
	} cases[] = {
		{ "/be", GT_DT_F32, NULL, 2 },
		{ "/bfloat", GT_DT_BF16, NULL, 2 },
		{ "/comp", GT_DT_NONE, "compound", 1 },
		{ "/flagged", GT_DT_F32, NULL, 1 },
		{ "/ints", GT_DT_NONE, "int64", 2 },
		{ "/opq", GT_DT_BF16, NULL, 2 },
		{ "/zero", GT_DT_F32, NULL, 0 },
	};
	const uint16_t bf[2] = { 0x3fc0, 0xc000 };
	struct gt_source *s = NULL;
	struct gt_diag d = { "" };
	const struct gt_attr *a;
	unsigned char back[16];
	size_t n;

	write_foreign(tmp_path("foreign.dat"));
	CHECK_RC(gt_source_open(tmp_path("foreign.dat"), NULL, &s, &d), 0);
	if (!s)
		return;
	CHECK(gt_source_count(s) == 7);
	for (size_t i = 0; i < 7 && i < gt_source_count(s); i++) {
		const struct gt_tensor_info *t = gt_source_info(s, i);

		CHECK(!strcmp(t->name, cases[i].name));
		CHECK(t->dtype == cases[i].dt && t->count == cases[i].count);
		if (cases[i].desc)
			CHECK(t->type_desc && !strcmp(t->type_desc, cases[i].desc));
	}
	CHECK_RC(gt_source_read(s, 0, 0, 4, back, &n, &d), 0);
	CHECK(n == 2 && !memcmp(back, vals, 8));
	CHECK_RC(gt_source_read(s, 1, 0, 4, back, &n, &d), 0);
	CHECK(n == 2 && !memcmp(back, bf, 4));
	CHECK_RC(gt_source_read(s, 5, 0, 4, back, &n, &d), 0);
	CHECK(n == 2 && !memcmp(back, bf, 4));
	CHECK_RC(gt_source_read(s, 6, 0, 4, back, &n, &d), 0);
	CHECK(n == 0);
	CHECK_RC(gt_source_read(s, 4, 0, 4, back, &n, &d), GT_ERR(TYPE));
	CHECK(!strcmp(d.msg, "dataset /ints has type int64, not floating point"));
	CHECK_RC(gt_source_read(s, 2, 0, 4, back, &n, &d), GT_ERR(TYPE));
	CHECK(strstr(d.msg, "compound") != NULL);
	a = gt_attrs_find(&gt_source_info(s, 3)->attrs, "nesterov");
	CHECK(a && a->type == GT_ATTR_INT && a->n == 1 && a->i[0] == 1);
	/* a compound attribute has no simple view, but is kept byte for byte */
	a = gt_attrs_find(&gt_source_info(s, 3)->attrs, "ignored");
	CHECK(a && a->type == GT_ATTR_NONE && a->raw && a->raw->space == GT_SPACE_SCALAR);
	CHECK(gt_source_nobjects(s) == 2 && gt_source_nlost(s) == 0);
	gt_source_free(s);
}

static void test_sink_refuses(void)
{
	struct gt_sink *k = NULL;
	struct gt_diag d = { "" };
	FILE *f;

	f = fopen(tmp_path("keep.h5"), "wb");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK_RC(gt_sink_open(tmp_path("keep.h5"), NULL, &k, &d), GT_ERR(EXISTS));
	/* a failed write leaves nothing behind */
	CHECK_RC(gt_sink_open(tmp_path("gone.h5"), NULL, &k, &d), 0);
	gt_sink_free(k);
	CHECK(access(tmp_path("gone.h5"), F_OK) != 0);
	unlink(tmp_path("keep.h5"));
}

/* ---- filter 400 on written datasets ------------------------------------ */

/* A -c spec as cd_values, each number checked, and back to the spec. */
static void test_filter_cd(void)
{
	static const struct {
		const char *codec, *opts;
		int rc;
		size_t n;
		unsigned cd[GT_H5FILTER_CD_MAX];
		const char *back;
	} tab[] = {
		{ "huffexp", "", 0, 6, { 2, 3, 0, 0, 0, 0 }, "huffexp" },
		{ "huffexp", "maxlen=10,method=pm", 0, 6, { 2, 3, 0, 0, 10, 3 },
		  "huffexp:maxlen=10,method=pm" },
		{ "zstd", "level=19", 0, 5, { 2, 2, 0, 0, 19 }, "zstd:level=19" },
		{ "zstd", "level=-5", GT_ERR(INVAL), 0, { 0 }, NULL },  /* the codec's range */
		{ "zlib", "level=9", 0, 5, { 2, 1, 0, 0, 9 }, "zlib:level=9" },
		{ "tfp", "bits=12", 0, 5, { 2, 5, 0, 0, 12 }, "tfp:bits=12" },
		{ "rangeq", "bits=8,m=3", 0, 6, { 2, 6, 0, 0, 8, 3 }, "rangeq:bits=8,m=3" },
		{ "gcomp", "mode=zero-prune,margin=-2", 0, 7, { 2, 4, 0, 0, 4, 0xfffffffeu, 0 },
		  "gcomp:mode=zero-prune,margin=-2" },
		{ "gcomp", "", GT_ERR(INVAL), 0, { 0 }, NULL },          /* mode full */
		{ "gcomp", "mode=exact", GT_ERR(INVAL), 0, { 0 }, NULL },
		{ "tfp", "round=stochastic", GT_ERR(INVAL), 0, { 0 }, NULL },
		{ "zlib", "level=x", GT_ERR(INVAL), 0, { 0 }, NULL },
		{ "fft", "", GT_ERR(UNSUPPORTED), 0, { 0 }, NULL },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		unsigned cd[GT_H5FILTER_CD_MAX];
		struct gt_diag d = { "" };
		char back[128];
		size_t n = 0;

		CHECK_RC(gt_h5filter_cd(gt_codec_find(tab[i].codec), tab[i].opts, cd, &n, &d),
			 tab[i].rc);
		if (tab[i].rc < 0) {
			CHECK(*d.msg);
			continue;
		}
		CHECK(n == tab[i].n && !memcmp(cd, tab[i].cd, n * sizeof(*cd)));
		CHECK_RC(gt_h5filter_spec(cd, n, back, sizeof(back)), 0);
		CHECK(!strcmp(back, tab[i].back));
	}
}

/* A filtered sink: chunks of whole rows, a row longer than the budget cut,
 * a scalar left contiguous; the values come back and ls's words name it. */
static void test_filtered_sink(void)
{
	static const struct {
		unsigned rank;
		uint64_t dims[3];
		int chunked;
		hsize_t chunk[3];
	} tab[] = {
		{ 2, { 3000, 700 }, 1, { 1497, 700 } },
		{ 2, { 2, (1u << 20) + 1 }, 1, { 1, 1u << 20 } },
		{ 1, { 10 }, 1, { 10 } },
		{ 0, { 0 }, 0, { 0 } },
	};
	const struct gt_sink_opts so = { GT_KIND_HDF5, 1 };
	unsigned cd[GT_H5FILTER_CD_MAX];
	struct gt_sink *k = NULL;
	struct gt_source *src = NULL;
	struct gt_diag d = { "" };
	size_t ncd = 0;
	const size_t nv = 3000 * 700; /* the largest tensor of tab */
	float *v = malloc(nv * sizeof(float)), *back = NULL;
	char name[32], opts[32];

	CHECK(v != NULL);
	if (!v)
		return;
	for (size_t j = 0; j < nv; j++)
		v[j] = (float)(j % 1000) * 0.25f - 60.0f;
	CHECK_RC(gt_h5filter_cd(gt_codec_find("zstd"), "level=1", cd, &ncd, &d), 0);
	CHECK_RC(gt_sink_open(tmp_path("filt.h5"), &so, &k, &d), 0);
	CHECK_RC(gt_sink_set_filter(k, cd, ncd), 0);
	for (size_t i = 0; k && i < sizeof(tab) / sizeof(tab[0]); i++) {
		struct gt_tensor_info t = { 0 };
		char tn[16];

		snprintf(tn, sizeof(tn), "/t%zu", i);
		t.name = tn;
		t.dtype = GT_DT_F32;
		t.rank = tab[i].rank;
		t.count = 1;
		for (unsigned a = 0; a < t.rank; a++)
			t.count *= (t.dims[a] = tab[i].dims[a]);
		CHECK_RC(gt_sink_begin(k, &t, &d), 0);
		CHECK_RC(gt_sink_write(k, v, t.count, &d), 0);
		CHECK_RC(gt_sink_end(k, &d), 0);
	}
	CHECK_RC(gt_sink_commit(k, &d), 0);
	gt_sink_free(k);
	CHECK_RC(gt_source_open(tmp_path("filt.h5"), NULL, &src, &d), 0);
	for (size_t i = 0; src && i < gt_source_count(src); i++) {
		const struct gt_tensor_info *t = gt_source_info(src, i);
		const hid_t f = H5Fopen(tmp_path("filt.h5"), H5F_ACC_RDONLY, H5P_DEFAULT);
		const hid_t ds = H5Dopen2(f, t->name, H5P_DEFAULT), p = H5Dget_create_plist(ds);
		hsize_t c[3] = { 0 };
		size_t n = 0;

		CHECK(H5Pget_chunk(p, 3, c) == (tab[i].chunked ? (int)tab[i].rank : -1));
		CHECK(!memcmp(c, tab[i].chunk, tab[i].rank * sizeof(*c)));
		CHECK(gt_source_filters(src, i, name, sizeof(name), opts, sizeof(opts)) ==
		      tab[i].chunked);
		CHECK(!strcmp(name, tab[i].chunked ? "gtool" : "") &&
		      !strcmp(opts, tab[i].chunked ? "zstd:level=1" : ""));
		back = realloc(back, t->count * sizeof(float));
		CHECK_RC(gt_source_read(src, i, 0, t->count, back, &n, &d), 0);
		CHECK(n == t->count && !memcmp(back, v, n * sizeof(float)));
		H5Pclose(p);
		H5Dclose(ds);
		H5Fclose(f);
	}
	gt_source_free(src);
	unlink(tmp_path("filt.h5"));
	free(back);
	free(v);
}

/* ---- trace ------------------------------------------------------------ */

static void write_trace(const char *path, struct gt_diag *d)
{
	static double lr = 1e-3, lr2 = 5e-4, eps = 1e-8, mom = 0.9;
	static int64_t one = 1, step = 100;
	struct gt_attr root[] = {
		{ S("optimizer"), GT_ATTR_STR, 5, NULL, NULL, S("AdamW"), NULL },
		{ S("lr"), GT_ATTR_FLOAT, 1, NULL, &lr, NULL, NULL },
		{ S("betas"), GT_ATTR_FLOAT, 2, NULL, dbls, NULL, NULL },
		{ S("eps"), GT_ATTR_FLOAT, 1, NULL, &eps, NULL, NULL },
	};
	struct gt_attr s100[] = { { S("step"), GT_ATTR_INT, 1, &step, NULL, NULL, NULL } };
	struct gt_attr s200[] = { { S("lr"), GT_ATTR_FLOAT, 1, NULL, &lr2, NULL, NULL } };
	struct gt_attr s50[] = {
		{ S("optimizer"), GT_ATTR_STR, 3, NULL, NULL, S("SGD"), NULL },
		{ S("momentum"), GT_ATTR_FLOAT, 1, NULL, &mom, NULL, NULL },
		{ S("nesterov"), GT_ATTR_INT, 1, &one, NULL, NULL, NULL },
	};
	struct gt_attr s7[] = { { S("lr"), GT_ATTR_STR, 4, NULL, NULL, S("fast"), NULL } };
	const struct gt_group_info groups[] = {
		{ S("/"), { root, 4 } }, { S("/step_000200"), { s200, 1 } },
		{ S("/step_x"), { s100, 1 } }, { S("/step_000050"), { s50, 3 } },
		{ S("/step_7"), { s7, 1 } }, { S("/step_000100"), { s100, 1 } },
	};
	static const char *const names[] = {
		"/step_000100/grad/b", "/step_000100/grad/a", "/step_000100/param/a",
		"/step_000100/state/exp_avg/a", "/step_000100/param_next/a",
		"/step_000200/grad/a", "/other",
	};
	struct gt_sink *k = NULL;

	CHECK_RC(gt_sink_open(path, &(struct gt_sink_opts){ GT_KIND_HDF5, 0 }, &k, d), 0);
	if (!k)
		return;
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		CHECK_RC(gt_sink_group(k, &groups[i], d), 0);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct gt_tensor_info t = { .name = S(names[i]), .dtype = GT_DT_F32,
						  .rank = 1, .dims = { 2 }, .count = 2 };

		CHECK_RC(gt_sink_begin(k, &t, d), 0);
		CHECK_RC(gt_sink_write(k, vals, 2, d), 0);
		CHECK_RC(gt_sink_end(k, d), 0);
	}
	CHECK_RC(gt_sink_commit(k, d), 0);
	gt_sink_free(k);
}

static void check_steps(const struct gt_trace *tr, const struct gt_source *s)
{
	const struct gt_trace_step *st;
	struct gt_diag d = { "" };

	CHECK(gt_trace_nsteps(tr) == 4);
	st = gt_trace_step(tr, 0); /* step_7 sorts first by number */
	CHECK(st->step == 7 && !strcmp(st->group, "/step_7"));
	CHECK(st->optim.kind == GT_OPT_ADAMW && !(st->optim.have & GT_HP_LR));
	st = gt_trace_step(tr, 1);
	CHECK(st->step == 50 && st->optim.kind == GT_OPT_NESTEROV);
	CHECK(st->optim.momentum > 0.89 && st->optim.momentum < 0.91);
	CHECK_RC(gt_optim_check(&st->optim, "step /step_000050", &d), 0);
	st = gt_trace_step(tr, 2);
	CHECK(st->step == 100 && st->optim.kind == GT_OPT_ADAMW);
	CHECK(st->optim.beta1 > 0.89 && st->optim.beta1 < 0.91);
	CHECK(st->optim.beta2 > 0.998 && st->optim.beta2 < 1.0);
	CHECK((st->optim.have & (GT_HP_BETA1 | GT_HP_BETA2 | GT_HP_EPS | GT_HP_LR)) ==
	      (GT_HP_BETA1 | GT_HP_BETA2 | GT_HP_EPS | GT_HP_LR));
	CHECK(!(st->optim.have & GT_HP_WEIGHT_DECAY));
	CHECK_RC(gt_optim_check(&st->optim, "step /step_000100", &d), 0);
	CHECK(st->n_grads == 2);
	if (st->n_grads == 2) {
		CHECK(!strcmp(gt_source_info(s, st->grads[0])->name, "/step_000100/grad/a"));
		CHECK(!strcmp(gt_source_info(s, st->grads[1])->name, "/step_000100/grad/b"));
		CHECK(gt_trace_step_of(tr, st->grads[1]) == 2);
	}
	st = gt_trace_step(tr, 3);
	CHECK(st->step == 200 && st->optim.lr > 4.9e-4 && st->optim.lr < 5.1e-4);
}

static void test_trace(void)
{
	struct gt_source *s = NULL;
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	struct gt_optim o = { .kind = GT_OPT_RMSPROP, .have = GT_HP_LR | GT_HP_EPS };
	size_t idx, other;

	write_trace(tmp_path("trace.hdf5"), &d);
	CHECK_RC(gt_source_open(tmp_path("trace.hdf5"), NULL, &s, &d), 0);
	if (!s)
		return;
	CHECK_RC(gt_trace_open(s, &tr, &d), 0);
	if (tr) {
		check_steps(tr, s);
		CHECK_RC(gt_trace_find(tr, 2, GT_ROLE_STATE, "exp_avg", "a", &idx, &d), 0);
		CHECK(!strcmp(gt_source_info(s, idx)->name, "/step_000100/state/exp_avg/a"));
		CHECK_RC(gt_trace_find(tr, 2, GT_ROLE_PARAM_NEXT, NULL, "a", &idx, &d), 0);
		CHECK_RC(gt_trace_find(tr, 2, GT_ROLE_PARAM, NULL, "b", &idx, &d), GT_ERR(NOTFOUND));
		CHECK(!strcmp(d.msg, "dataset /step_000100/param/b not found"));
		CHECK_RC(gt_source_find(s, "other", &other), 0);
		CHECK(gt_trace_step_of(tr, other) == -1);
		gt_trace_free(tr);
	}
	CHECK_RC(gt_optim_check(&o, "step /step_000100", &d), GT_ERR(NOTFOUND));
	CHECK(!strcmp(d.msg, "step /step_000100: attribute alpha missing"));
	o.kind = GT_OPT_SGD;
	o.have = 0;
	CHECK_RC(gt_optim_check(&o, "step /s", &d), GT_ERR(NOTFOUND));
	CHECK(!strcmp(d.msg, "step /s: attribute lr missing"));
	gt_source_free(s);
}

static void test_trace_names(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/step_000100/grad/fc.weight", "fc.weight" },
		{ "/step_1/param/layer1.0.conv1.weight", "layer1.0.conv1.weight" },
		{ "/step_1/param_next/x", "x" },
		{ "/step_1/state/exp_avg/x.y", "x.y" },
		{ "/loose", "/loose" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(!strcmp(gt_trace_param_name(cases[i].in), cases[i].out));
	CHECK(gt_optim_parse("AdamW") == GT_OPT_ADAMW);
	CHECK(gt_optim_parse("RMSprop") == GT_OPT_RMSPROP);
	CHECK(gt_optim_parse("lion") == GT_OPT_NONE);
	CHECK(!strcmp(gt_optim_name(GT_OPT_NESTEROV), "nesterov"));
}

/*
 * Datasets larger than the reader's 16 MiB row buffers, read in lockstep
 * in odd pieces: every value must come back from the right place.
 */
static void test_large_lockstep(void)
{
	const hsize_t dims[3] = { 2100, 50, 41 }; /* 4.3 M values, 17 MiB of f32 */
	const size_t n = 2100 * 50 * 41;
	float *a = malloc(n * 4), *b = malloc(n * 4), *got = malloc(100003 * 4);
	const char *path = tmp_path("large.h5");
	struct gt_source *s = NULL;
	struct gt_diag d;
	size_t ia = 0, ib = 0, m = 0;
	hid_t f, sp, ds;
	int ok = 1;

	for (size_t i = 0; i < n; i++) {
		a[i] = (float)i;
		b[i] = -(float)i;
	}
	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	sp = H5Screate_simple(3, dims, NULL);
	ds = H5Dcreate2(f, "/a", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, a);
	H5Dclose(ds);
	ds = H5Dcreate2(f, "/b", H5T_IEEE_F32BE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, b);
	H5Dclose(ds);
	H5Sclose(sp);
	H5Fclose(f);
	CHECK_RC(gt_source_open(path, NULL, &s, &d), 0);
	if (!s)
		goto out;
	CHECK_RC(gt_source_find(s, "/a", &ia), 0);
	CHECK_RC(gt_source_find(s, "/b", &ib), 0);
	for (uint64_t at = 0; at < n && ok; at += m) {
		CHECK_RC(gt_source_read(s, ia, at, 100003, got, &m, &d), 0);
		ok &= m == (n - at < 100003 ? n - at : 100003) &&
		      !memcmp(got, a + at, m * 4);
		CHECK_RC(gt_source_read(s, ib, at, m, got, &m, &d), 0);
		ok &= !memcmp(got, b + at, m * 4);
	}
	CHECK(ok);
	/* backwards, across a buffer boundary */
	CHECK_RC(gt_source_read(s, ia, 4000000, 9, got, &m, &d), 0);
	CHECK(m == 9 && !memcmp(got, a + 4000000, 36));
	CHECK_RC(gt_source_read(s, ia, 5, 3, got, &m, &d), 0);
	CHECK(m == 3 && !memcmp(got, a + 5, 12));
	gt_source_free(s);
out:
	free(a);
	free(b);
	free(got);
	unlink(path);
}

int main(int argc, char **argv)
{
	const char *t = getenv("TMPDIR");
	static const char *const files[] = { "rt.h5", "foreign.dat", "trace.hdf5" };

	check_init(argc, argv);
	snprintf(dir, sizeof(dir), "%s/test_hdf5.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		return 1;
	}
	RUN(test_round_trip);
	RUN(test_foreign);
	RUN(test_sink_refuses);
	RUN(test_filter_cd);
	RUN(test_filtered_sink);
	RUN(test_trace);
	RUN(test_trace_names);
	RUN(test_large_lockstep);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		unlink(tmp_path(files[i]));
	CHECK(rmdir(dir) == 0);
	return check_done("test_hdf5");
}
