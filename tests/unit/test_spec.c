/* test_spec.c - engine/gt_spec.h: -c specs parsed once, their errors, lists */
#include "check.h"
#include "../../engine/gt_spec.h"

/* What a valid spec says about its codec. */
static void test_valid(void)
{
	static const struct {
		const char *text;
		long level;
		const char *codec, *opts;
		int lossless, needs_optim, whole_block;
	} cases[] = {
		{ "zstd:level=3", 0, "zstd", "level=3", 1, 0, 0 },
		{ "zstd", 19, "zstd", "level=19", 1, 0, 0 },
		{ "zlib:level=1", 9, "zlib", "level=1,level=9", 1, 0, 0 },
		{ "huffexp", 0, "huffexp", "", 1, 0, 0 },
		{ "gcomp", 0, "gcomp", "", 0, 1, 0 },
		{ "gcomp:mode=exact", 0, "gcomp", "mode=exact", 0, 1, 0 },
		{ "gcomp:mode=single-quant", 0, "gcomp", "mode=single-quant", 0, 0, 0 },
		{ "gcomp:mode=zero-prune", 0, "gcomp", "mode=zero-prune", 0, 0, 0 },
		{ "topk:cf=10", 0, "topk", "cf=10", 0, 0, 1 },
		{ "fft:drop=0.85,bits=10", 0, "fft", "drop=0.85,bits=10", 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gt_spec s;
		struct gt_diag d = { "" };

		CHECK_RC(gt_spec_init(&s, cases[i].text, cases[i].level, &d), 0);
		if (!s.codec) {
			fprintf(stderr, "%s: %s\n", cases[i].text, d.msg);
			continue;
		}
		CHECK(!strcmp(gt_codec_name(s.codec), cases[i].codec));
		CHECK(!strcmp(s.text, cases[i].text));
		CHECK(!strcmp(s.opts, cases[i].opts));
		CHECK(s.lossless == cases[i].lossless);
		CHECK(s.needs_optim == cases[i].needs_optim);
		CHECK(s.whole_block == cases[i].whole_block);
		CHECK(s.flags == gt_codec_flags(s.codec));
		gt_spec_release(&s);
		CHECK(!s.codec && !s.opts && !s.text);
		gt_spec_release(&s); /* twice is fine */
	}
}

/* The dtypes a codec codes at all: rangeq and fft only f32. */
static void test_dtypes(void)
{
	static const struct { const char *text; int f16, bf16, f64; } cases[] = {
		{ "huffexp", 1, 1, 1 }, { "zstd", 1, 1, 1 }, { "gcomp", 1, 1, 1 },
		{ "rangeq", 0, 0, 0 }, { "fft", 0, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gt_spec s;
		struct gt_diag d = { "" };

		CHECK_RC(gt_spec_init(&s, cases[i].text, 0, &d), 0);
		CHECK(gt_spec_codes(&s, GT_DT_F32));
		CHECK(gt_spec_codes(&s, GT_DT_F16) == cases[i].f16);
		CHECK(gt_spec_codes(&s, GT_DT_BF16) == cases[i].bf16);
		CHECK(gt_spec_codes(&s, GT_DT_F64) == cases[i].f64);
		gt_spec_release(&s);
	}
}

/* The canonical options carry every option with its value. */
static void test_canon(void)
{
	struct gt_spec s;
	struct gt_diag d = { "" };

	CHECK_RC(gt_spec_init(&s, "zstd:level=7", 0, &d), 0);
	CHECK(strstr(s.canon, "level=7") != NULL);
	gt_spec_release(&s);
	CHECK_RC(gt_spec_init(&s, "gcomp", 0, &d), 0);
	CHECK(strstr(s.canon, "levels=") != NULL && strstr(s.canon, "mode=full") != NULL);
	gt_spec_release(&s);
}

/* A bad spec names the bad part, as the codec's option parser says it. */
static void test_errors(void)
{
	static const struct {
		const char *text;
		long level;
		int rc;
		const char *msg;
	} cases[] = {
		{ "nope", 0, GT_ERR(NOTFOUND), "unknown codec 'nope'" },
		{ "nope:level=3", 0, GT_ERR(NOTFOUND), "unknown codec 'nope'" },
		{ "zstd:nope=1", 0, GT_ERR(INVAL), "unknown option 'nope' for codec zstd" },
		{ "zstd:level=99", 0, GT_ERR(INVAL), "codec zstd: invalid level '99': expected 1-22" },
		{ "gcomp:levels=1,2", 0, GT_ERR(INVAL),
		  "codec gcomp: invalid levels '1,2': expected four increasing bit counts 0-23" },
		{ "huffexp", 3, GT_ERR(INVAL), "codec huffexp has no level" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gt_spec s;
		struct gt_diag d = { "" };

		CHECK_RC(gt_spec_init(&s, cases[i].text, cases[i].level, &d), cases[i].rc);
		if (strcmp(d.msg, cases[i].msg))
			fprintf(stderr, "%s: '%s', expected '%s'\n", cases[i].text, d.msg,
				cases[i].msg);
		CHECK(!strcmp(d.msg, cases[i].msg));
		CHECK(!s.codec && !s.opts && !s.text);
	}
}

/* Commas split specs; a piece with '=' and no ':' continues the one before. */
static void test_speclist(void)
{
	static const char *const want[] = {
		"gcomp", "zstd:level=3", "fft:drop=0.85,bits=10", "huffexp", "topk:cf=10,seed=2",
	};
	struct gt_speclist l = { NULL, 0 };

	CHECK_RC(gt_speclist_add(&l, "gcomp,zstd:level=3,fft:drop=0.85,bits=10"), 0);
	CHECK_RC(gt_speclist_add(&l, "huffexp,topk:cf=10,seed=2"), 0);
	CHECK(l.n == 5);
	for (size_t i = 0; i < l.n && i < 5; i++)
		CHECK(!strcmp(l.v[i], want[i]));
	gt_speclist_remove(&l, 1);
	CHECK(l.n == 4 && !strcmp(l.v[1], "fft:drop=0.85,bits=10") &&
	      !strcmp(l.v[3], "topk:cf=10,seed=2"));
	gt_speclist_release(&l);
	CHECK(!l.v && !l.n);
	CHECK_RC(gt_speclist_defaults(&l), 0);
	CHECK(l.n > 10 && !strcmp(l.v[0], "huffexp"));
	for (size_t i = 0; i < l.n; i++) {
		struct gt_spec s;
		struct gt_diag d = { "" };

		CHECK_RC(gt_spec_init(&s, l.v[i], 0, &d), 0);
		gt_spec_release(&s);
	}
	gt_speclist_release(&l);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_valid);
	RUN(test_canon);
	RUN(test_dtypes);
	RUN(test_errors);
	RUN(test_speclist);
	return check_done("test_spec");
}
