/* test_gcomp_dtype.c - gcomp's mode exact and δ on float64, bfloat16 and float16 traces */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "../../formats/gt_source.h"
#include "../../formats/gt_trace.h"
#include "../../lib/gt_codec.h"
#include "../../lib/gt_optim.h"

/* A tensor's values: the raw bytes, as float (every dtype) and as double. */
struct vals {
	unsigned char *raw;
	float *f;
	double *d;
	size_t n;
	enum gt_dtype dt;
};

static void vals_free(struct vals *v)
{
	free(v->raw);
	free(v->f);
	free(v->d);
	memset(v, 0, sizeof(*v));
}

static int vals_read(struct gt_source *s, size_t idx, struct vals *v)
{
	const struct gt_tensor_info *t = gt_source_info(s, idx);
	struct gt_diag d = { "" };
	size_t got = 0;

	v->dt = t->dtype;
	v->n = (size_t)t->count;
	v->raw = malloc(v->n * 8 + 8);
	v->f = malloc(v->n * sizeof(float) + 4);
	v->d = malloc(v->n * sizeof(double) + 8);
	if (!v->raw || !v->f || !v->d)
		return -1;
	CHECK_RC(gt_source_read(s, idx, 0, v->n, v->raw, &got, &d), 0);
	CHECK(got == v->n);
	for (size_t i = 0; i < v->n; i++) {
		v->d[i] = gt_fp_get(v->raw, v->dt, i);
		v->f[i] = (float)v->d[i];
	}
	return 0;
}

/* The step's arrays of @v in its dtype: double for f64, float otherwise. */
static const void *arr(const struct vals *v)
{
	if (!v->raw)
		return NULL;
	return v->dt == GT_DT_F64 ? (const void *)v->d : (const void *)v->f;
}

/* Code @g with gcomp @opts (one block, one chunk) and decode it into @back. */
static size_t code(const struct gt_optim *o, const char *opts, const struct vals *g,
		   const struct gt_codec_aux *aux, struct vals *back)
{
	const struct gt_codec_params p = { g->dt, opts, NULL, 0, o, 0 };
	struct gt_codec_ctx *enc = NULL, *dec = NULL;
	unsigned char meta[GT_CODEC_META_MAX], *buf;
	struct gt_diag d = { "" };
	size_t ml = 0, len = 0, bound;

	CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &p, &enc, &d), 0);
	CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &(struct gt_codec_params){ g->dt, opts,
					NULL, 0, NULL, 0 }, &dec, &d), 0);
	bound = gt_codec_bound(enc, g->n);
	buf = malloc(bound);
	CHECK_RC(gt_codec_block_begin(enc, g->raw, g->n, meta, sizeof(meta), &ml), 0);
	CHECK_RC(gt_codec_block_load(enc, meta, ml), 0);
	CHECK_RC(gt_codec_block_load(dec, meta, ml), 0);
	CHECK_RC(gt_codec_encode_aux(enc, g->raw, g->n, aux, buf, bound, &len), 0);
	CHECK_RC(gt_codec_decode(dec, buf, len, back->raw, g->n), 0);
	for (size_t i = 0; i < g->n; i++) {
		back->d[i] = gt_fp_get(back->raw, g->dt, i);
		back->f[i] = (float)back->d[i];
	}
	free(buf);
	gt_codec_free(enc);
	gt_codec_free(dec);
	return len;
}

struct tally {
	uint64_t values, same, changed, bytes;
};

/* θ_t of g and of ĝ bit-identical, on the loop(s) @vec_end says */
static void same_step(const struct gt_optim *o, const struct vals *g, const struct vals *gh,
		      const struct vals *p, const struct vals *s, size_t vec_end,
		      struct tally *t)
{
	void *a = malloc(g->n * 8 + 8), *b = malloc(g->n * 8 + 8);
	uint64_t same = 0;

	CHECK_RC(gt_optim_step_dt(o, g->dt, g->n, vec_end, arr(g), arr(p), arr(&s[0]),
				  arr(&s[1]), a, NULL, NULL), 0);
	CHECK_RC(gt_optim_step_dt(o, g->dt, g->n, vec_end, arr(gh), arr(p), arr(&s[0]),
				  arr(&s[1]), b, NULL, NULL), 0);
	CHECK_RC(gt_optim_compare_dt(g->dt, g->n, a, b, &same, NULL, NULL), 0);
	CHECK(same == g->n);
	t->values += g->n;
	t->same += same;
	free(a);
	free(b);
}

/* One gradient of step @k: mode exact keeps θ_t on PyTorch's loops. */
static void exact_tensor(struct gt_source *src, const struct gt_trace *tr, size_t k,
			 size_t gidx, struct tally *t)
{
	const struct gt_trace_step *st = gt_trace_step(tr, k);
	const char *name = gt_trace_param_name(gt_source_info(src, gidx)->name);
	struct vals g = { 0 }, gh = { 0 }, p = { 0 }, s[2] = { { 0 }, { 0 } };
	struct gt_codec_aux aux = { .param = NULL };
	struct gt_diag d = { "" };
	size_t idx;

	CHECK_RC(vals_read(src, gidx, &g), 0);
	CHECK_RC(gt_trace_find(tr, k, GT_ROLE_PARAM, NULL, name, &idx, &d), 0);
	CHECK_RC(vals_read(src, idx, &p), 0);
	for (int i = 0; i < gt_optim_nstates(st->optim.kind); i++)
		if (!gt_trace_find(tr, k, GT_ROLE_STATE, gt_optim_state_name(st->optim.kind, i),
				   name, &idx, NULL))
			CHECK_RC(vals_read(src, idx, &s[i]), 0);
	aux.param = p.f;
	aux.state[0] = s[0].f;
	aux.state[1] = s[1].f;
	if (g.dt == GT_DT_F64) {
		aux.param64 = p.d;
		aux.state64[0] = s[0].d;
		aux.state64[1] = s[1].d;
	}
	gh = g;
	gh.raw = malloc(g.n * 8 + 8);
	gh.f = malloc(g.n * sizeof(float) + 4);
	gh.d = malloc(g.n * sizeof(double) + 8);
	t->bytes += code(&st->optim, "mode=exact", &g, &aux, &gh);
	for (size_t i = 0; i < g.n; i++)
		t->changed += gt_fp_load(g.raw, g.dt, i) != gt_fp_load(gh.raw, g.dt, i);
	same_step(&st->optim, &g, &gh, &p, s, gt_optim_vec_end(g.dt, 0, g.n, g.n), t);
	if (g.dt == GT_DT_BF16) { /* wherever the values sit in a tensor */
		same_step(&st->optim, &g, &gh, &p, s, 0, t);
		same_step(&st->optim, &g, &gh, &p, s, g.n, t);
	}
	vals_free(&g);
	vals_free(&gh);
	vals_free(&p);
	vals_free(&s[0]);
	vals_free(&s[1]);
}

static const char *trace_path;

static void test_exact_trace(void)
{
	struct gt_source *s = NULL;
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	struct tally t = { 0, 0, 0, 0 };

	CHECK_RC(gt_source_open(trace_path, NULL, &s, &d), 0);
	if (s)
		CHECK_RC(gt_trace_open(s, &tr, &d), 0);
	for (size_t k = 0; tr && k < gt_trace_nsteps(tr); k++)
		for (size_t j = 0; j < gt_trace_step(tr, k)->n_grads; j++)
			exact_tensor(s, tr, k, gt_trace_step(tr, k)->grads[j], &t);
	printf("%s: mode=exact %" PRIu64 " bytes, %" PRIu64 "/%" PRIu64 " θ_t identical, "
	       "%" PRIu64 " gradient values truncated\n", trace_path, t.bytes, t.same,
	       t.values, t.changed);
	CHECK(t.values > 0 && t.same == t.values && t.changed > 0);
	gt_trace_free(tr);
	gt_source_free(s);
}

static void run_traces(void)
{
	static const char *const traces[] = {
		"samples/f64_momentum.h5", "samples/f64_adagrad.h5", "samples/f64_rmsprop.h5",
		"samples/f64_adam.h5", "samples/f64_adamw.h5", "samples/bf16_momentum.h5",
		"samples/bf16_adagrad.h5", "samples/bf16_rmsprop.h5", "samples/bf16_adam.h5",
		"samples/bf16_adamw.h5", "samples/f16_momentum.h5", "samples/f16_nesterov.h5",
	};

	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		trace_path = traces[i];
		check_run(traces[i], test_exact_trace);
	}
}

/* f16 with an optimizer PyTorch cannot step in Half: refused at ctx_new. */
static void test_f16_refused(void)
{
	const struct gt_optim o = { .kind = GT_OPT_ADAMW, .lr = 1e-3, .beta1 = 0.9,
				    .beta2 = 0.999, .eps = 1e-8, .t = 1,
				    .have = GT_HP_LR | GT_HP_BETA1 | GT_HP_BETA2 | GT_HP_EPS };
	const struct gt_codec_params p = { GT_DT_F16, "mode=exact", NULL, 0, &o, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };

	CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d), GT_ERR(UNSUPPORTED));
	CHECK(!strcmp(d.msg, "codec gcomp: adamw cannot step f16 values (PyTorch 1.13 has no "
			     "float16 addcmul on the CPU)"));
	CHECK(ctx == NULL);
}

/* f64 mode exact without the 64-bit θ: refused rather than guessed */
static void test_f64_needs_param64(void)
{
	const struct gt_optim o = { .kind = GT_OPT_SGD, .lr = 0.1, .t = 1, .have = GT_HP_LR };
	const struct gt_codec_params p = { GT_DT_F64, "mode=exact", NULL, 0, &o, 0 };
	const double g[2] = { 1e-3, -2e-3 };
	const float th[2] = { 1, 1 };
	const struct gt_codec_aux aux = { .param = th };
	unsigned char meta[GT_CODEC_META_MAX], buf[256];
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };
	size_t ml = 0, len = 0;

	CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d), 0);
	CHECK_RC(gt_codec_block_begin(ctx, g, 2, meta, sizeof(meta), &ml), 0);
	CHECK_RC(gt_codec_block_load(ctx, meta, ml), 0);
	CHECK_RC(gt_codec_encode_aux(ctx, g, 2, &aux, buf, sizeof(buf), &len), GT_ERR(INVAL));
	gt_codec_free(ctx);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	run_traces();
	RUN(test_f16_refused);
	RUN(test_f64_needs_param64);
	return check_done("test_gcomp_dtype");
}
