/* test_gcomp.c - the gcomp codec: levels by δ, pruning, exact mode, traces */
#include <math.h>

#include "check.h"
#include "trace_read.h"
#include "../../lib/gt_bitio.h"
#include "../../lib/gt_codec.h"
#include "../../lib/gt_huff.h"
#include "../../formats/gt_source.h"
#include "../../formats/gt_trace.h"
#include "../../lib/banned.h"

#define CHUNK 4096
#define NMODES 5

static const char *const modes[NMODES] = { "full", "single-quant", "multi-quant",
					   "zero-prune", "exact" };
enum { M_FULL, M_SINGLE, M_MULTI, M_PRUNE, M_EXACT };
static const unsigned lev32[4] = { 0, 6, 12, 18 };

static struct gt_codec_ctx *make(enum gt_dtype dt, const char *opts,
				 const struct gt_optim *o)
{
	struct gt_codec_params p = { dt, opts, NULL, 0, o, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };

	CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d), 0);
	return ctx;
}

/* A coded tensor: chunks back to back, their lengths, the block meta. */
struct coded {
	unsigned char meta[GT_CODEC_META_MAX];
	size_t mlen, total;
	uint64_t stats[GT_CODEC_STATS_MAX];
};

/*
 * Code @n values of @src (aux @aux, may be NULL) with @enc in chunks of
 * CHUNK, decode each with @dec (no optimizer) from an exact-size copy into
 * an exact-size buffer, and put the values into @out.  Returns the rc of
 * the first failing encode.
 */
static int code_all(struct gt_codec_ctx *enc, struct gt_codec_ctx *dec,
		    enum gt_dtype dt, const void *src, size_t n,
		    const struct gt_codec_aux *aux, void *out, struct coded *cd)
{
	const size_t w = gt_dtype_size(dt);
	int rc = 0;

	memset(cd->stats, 0, sizeof(cd->stats));
	cd->total = 0;
	CHECK_RC(gt_codec_block_begin(enc, src, n, cd->meta, sizeof(cd->meta), &cd->mlen), 0);
	CHECK_RC(gt_codec_block_load(dec, cd->meta, cd->mlen), 0);
	cd->total = cd->mlen;
	for (size_t i = 0; i == 0 || i < n; i += CHUNK) {
		const size_t k = n - i < CHUNK ? n - i : CHUNK;
		const size_t bound = gt_codec_bound(enc, k);
		unsigned char *dst = malloc(bound), *exact, *back;
		struct gt_codec_aux a = { .param = NULL, .state = { NULL, NULL } };
		size_t len = 0;

		if (aux) {
			a.param = aux->param ? aux->param + i : NULL;
			a.state[0] = aux->state[0] ? aux->state[0] + i : NULL;
			a.state[1] = aux->state[1] ? aux->state[1] + i : NULL;
			a.param64 = aux->param64 ? aux->param64 + i : NULL;
			a.state64[0] = aux->state64[0] ? aux->state64[0] + i : NULL;
			a.state64[1] = aux->state64[1] ? aux->state64[1] + i : NULL;
		}
		rc = gt_codec_encode_aux(enc, (const unsigned char *)src + i * w, k,
					 aux ? &a : NULL, dst, bound, &len);
		if (rc < 0) {
			free(dst);
			return rc;
		}
		CHECK(len <= bound);
		exact = malloc(len ? len : 1);
		back = malloc(k ? k * w : 1);
		memcpy(exact, dst, len);
		CHECK_RC(gt_codec_decode(dec, exact, len, back, k), 0);
		memcpy((unsigned char *)out + i * w, back, k * w);
		CHECK_RC(gt_codec_chunk_stats(dec, exact, len, k, cd->stats), 0);
		cd->total += len;
		free(dst);
		free(exact);
		free(back);
		if (n == 0)
			break;
	}
	{
		size_t ns = 0;
		uint64_t sum = 0;

		gt_codec_stat_names(gt_codec_of(dec), &ns);
		for (size_t s = 0; s < ns; s++)
			sum += cd->stats[s];
		CHECK(ns == 0 || sum == n);
	}
	return 0;
}

static uint64_t trunc_bits(uint64_t u, unsigned k)
{
	return u & ~((UINT64_C(1) << k) - 1);
}

/* Decoded @v of @u: Inf/NaN and ±0 exact, subnormals pruned (@prune: 1
 * always, 2 allowed) or kept, others truncated at one of @lev.  Returns the
 * level, 4 for pruned, -1 when wrong. */
static int value_level(uint64_t u, uint64_t v, enum gt_dtype dt,
		       const unsigned *lev, int prune)
{
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);
	const uint64_t smask = UINT64_C(1) << (eb + mb);
	const unsigned e = gt_fp_exp(u, dt);

	if (e == (1u << eb) - 1)
		return u == v ? 0 : -1;
	if (!(u & (smask - 1)))
		return u == v ? 3 : -1;
	if (!e && prune && v == (u & smask))
		return 4;
	if (!e && prune == 1)
		return -1;
	for (int l = 3; l >= 0; l--)
		if (v == trunc_bits(u, lev[l]))
			return l;
	return -1;
}

/* ---- traces ------------------------------------------------------------- */

struct tally {
	uint64_t bytes[NMODES], hx, orig, values, same_full, same_multi;
	uint64_t stats[GT_CODEC_STATS_MAX];
};

/* Check (c) of full/multi-quant: the level δ allows, per value. */
static void check_levels(const struct gt_optim *o, const float *g, const float *dec,
			 const struct gt_codec_aux *aux, size_t n, int mode)
{
	double *delta = malloc((n ? n : 1) * sizeof(*delta));
	size_t bad = 0;

	CHECK_RC(gt_optim_delta(o, n, g, aux->param, aux->state[0], aux->state[1],
				delta), 0);
	for (size_t i = 0; i < n; i++) {
		const uint32_t u = gt_f32_bits(g[i]), v = gt_f32_bits(dec[i]);
		const unsigned e = u >> 23 & 0xff;
		const double a = fabs(delta[i]);
		int l = 0;
		uint32_t want;

		for (int k = 1; k < 4; k++)
			if (a > ldexp(1.0, (int)lev32[k]))
				l = k;
		if (e == 255 || isnan(delta[i]))
			l = 0;
		want = (uint32_t)trunc_bits(u, lev32[l]);
		if (!(u << 1))
			want = u;
		else if (!e)
			want = mode == M_FULL ? u & 0x80000000u : u;
		bad += v != want;
	}
	CHECK(bad == 0);
	free(delta);
}

/* One gradient: every mode, checks (a)-(c), sizes, fidelity. */
static void code_tensor(struct gt_source *s, const struct gt_trace *tr, size_t k,
			size_t gidx, struct tally *t)
{
	const struct gt_trace_step *st = gt_trace_step(tr, k);
	const char *name = gt_trace_param_name(gt_source_info(s, gidx)->name);
	const int ns = gt_optim_nstates(st->optim.kind);
	float *state[2] = { NULL, NULL }, *g, *p, *dec, *th, *th2;
	struct gt_codec_aux aux;
	size_t n = 0;

	g = read_all(s, gidx, &n);
	p = load(s, tr, k, GT_ROLE_PARAM, NULL, name, n);
	for (int i = 0; i < ns; i++)
		state[i] = load(s, tr, k, GT_ROLE_STATE,
				gt_optim_state_name(st->optim.kind, i), name, n);
	CHECK(g && p);
	if (!g || !p)
		goto out;
	aux.param = p;
	aux.state[0] = state[0];
	aux.state[1] = state[1];
	dec = malloc((n ? n : 1) * sizeof(float));
	th = malloc((n ? n : 1) * sizeof(float));
	th2 = malloc((n ? n : 1) * sizeof(float));
	CHECK_RC(gt_optim_step(&st->optim, n, g, p, state[0], state[1], th, NULL, NULL), 0);
	for (int m = 0; m < NMODES; m++) {
		char opts[64];
		struct gt_codec_ctx *enc, *dc;
		struct coded cd;
		size_t bad = 0;

		snprintf(opts, sizeof(opts), "mode=%s", modes[m]);
		enc = make(GT_DT_F32, opts, &st->optim);
		dc = make(GT_DT_F32, opts, NULL);
		CHECK_RC(code_all(enc, dc, GT_DT_F32, g, n, &aux, dec, &cd), 0);
		t->bytes[m] += cd.total;
		for (size_t i = 0; i < n; i++)
			bad += value_level(gt_f32_bits(g[i]), gt_f32_bits(dec[i]), GT_DT_F32,
					   m == M_PRUNE ? (const unsigned[4]){ 0, 0, 0, 0 } : lev32,
					   m == M_FULL || m == M_PRUNE ? 1 : m == M_EXACT ? 2 : 0) < 0;
		CHECK(bad == 0);
		if (m == M_SINGLE || m == M_PRUNE)
			for (size_t i = 0; i < n; i++)
				CHECK(gt_f32_bits(dec[i]) ==
				      (m == M_PRUNE ? (gt_f32_bits(g[i]) & 0x7f800000u ? gt_f32_bits(g[i])
							: gt_f32_bits(g[i]) & 0x80000000u)
						    : (gt_f32_bits(g[i]) >> 23 & 0xff) == 255 ? gt_f32_bits(g[i])
						    : (uint32_t)trunc_bits(gt_f32_bits(g[i]), 18)));
		if (m == M_FULL || m == M_MULTI || m == M_EXACT) {
			uint64_t same = 0;

			CHECK_RC(gt_optim_step(&st->optim, n, dec, p, state[0], state[1], th2,
					       NULL, NULL), 0);
			CHECK_RC(gt_optim_compare(n, th, th2, &same, NULL, NULL), 0);
			if (m == M_EXACT)
				CHECK(same == n && !memcmp(th, th2, n * sizeof(float)));
			else if (m == M_FULL)
				t->same_full += same;
			else
				t->same_multi += same;
		}
		if (m == M_FULL || m == M_MULTI)
			check_levels(&st->optim, g, dec, &aux, n, m);
		if (m == M_FULL)
			for (int i = 0; i < 5; i++)
				t->stats[i] += cd.stats[i];
		gt_codec_free(enc);
		gt_codec_free(dc);
	}
	{
		/* lossless huffexp on the same blocks and chunks */
		struct gt_codec_params hp = { GT_DT_F32, "", NULL, 0, NULL, 0 };
		struct gt_codec_ctx *h1 = NULL, *h2 = NULL;
		struct gt_diag d;
		struct coded cd;

		CHECK_RC(gt_codec_new(gt_codec_find("huffexp"), &hp, &h1, &d), 0);
		CHECK_RC(gt_codec_new(gt_codec_find("huffexp"), &hp, &h2, &d), 0);
		CHECK_RC(code_all(h1, h2, GT_DT_F32, g, n, NULL, dec, &cd), 0);
		CHECK(!memcmp(dec, g, n * sizeof(float)));
		t->hx += cd.total;
		gt_codec_free(h1);
		gt_codec_free(h2);
	}
	t->orig += n * sizeof(float);
	t->values += n;
	free(dec);
	free(th);
	free(th2);
out:
	free(g);
	free(p);
	free(state[0]);
	free(state[1]);
}

static void one_trace(const char *path)
{
	struct gt_source *s = NULL;
	struct gt_trace *tr = NULL;
	struct gt_diag d = { "" };
	struct tally t;
	double r[NMODES];

	memset(&t, 0, sizeof(t));
	CHECK_RC(gt_source_open(path, NULL, &s, &d), 0);
	if (s)
		CHECK_RC(gt_trace_open(s, &tr, &d), 0);
	for (size_t k = 0; tr && k < gt_trace_nsteps(tr); k++) {
		const struct gt_trace_step *st = gt_trace_step(tr, k);

		CHECK_RC(gt_optim_check(&st->optim, st->group, &d), 0);
		for (size_t j = 0; j < st->n_grads; j++)
			code_tensor(s, tr, k, st->grads[j], &t);
	}
	CHECK(t.values > 0);
	if (t.values) {
		for (int m = 0; m < NMODES; m++)
			r[m] = 100.0 * (double)t.bytes[m] / (double)t.orig;
		printf("%-26s %-8s full %5.1f%% single %5.1f%% multi %5.1f%% prune %5.1f%% exact %5.1f%% | huffexp %5.1f%% | fidelity full %.2f%% multi %.2f%% | L0-3 %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " pruned %" PRIu64 "\n",
		       path, gt_optim_name(gt_trace_step(tr, 0)->optim.kind), r[M_FULL],
		       r[M_SINGLE], r[M_MULTI], r[M_PRUNE], r[M_EXACT],
		       100.0 * (double)t.hx / (double)t.orig,
		       100.0 * (double)t.same_full / (double)t.values,
		       100.0 * (double)t.same_multi / (double)t.values,
		       t.stats[0], t.stats[1], t.stats[2], t.stats[3], t.stats[4]);
		CHECK(t.bytes[M_FULL] < t.bytes[M_MULTI]);
		CHECK(t.bytes[M_PRUNE] <= t.hx);
	}
	gt_trace_free(tr);
	gt_source_free(s);
}

static void test_traces(void)
{
	static const char *const paths[] = {
		"samples/mlp_sgd.h5", "samples/cnn_adam.h5", "samples/lstm_adamw.h5",
		"samples/mlp_nesterov.h5", "samples/mlp_adagrad.h5",
		"samples/mlp_rmsprop.h5", "samples/mlp_sgd_plain.h5",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		one_trace(paths[i]);
}

/* ---- hand cases ------------------------------------------------------------ */

static struct gt_optim sgd(double lr)
{
	struct gt_optim o;

	memset(&o, 0, sizeof(o));
	o.kind = GT_OPT_SGD;
	o.have = GT_HP_LR | GT_HP_MOMENTUM | GT_HP_DAMPENING | GT_HP_WEIGHT_DECAY;
	o.lr = lr;
	o.t = 1;
	return o;
}

/* SGD θ = 1, η = 0.1: the decoded bits of each g under @opts. */
static void hand_one(const char *opts, const uint32_t *g, const uint32_t *want, size_t n)
{
	const struct gt_optim o = sgd(0.1);
	struct gt_codec_ctx *enc = make(GT_DT_F32, opts, &o), *dec = make(GT_DT_F32, opts, NULL);
	float param[8], gf[8], out[8];
	struct gt_codec_aux aux = { .param = param, .state = { NULL, NULL } };
	struct coded cd;

	for (size_t i = 0; i < n; i++) {
		param[i] = 1.0f;
		gf[i] = gt_f32_from_bits(g[i]);
	}
	CHECK_RC(code_all(enc, dec, GT_DT_F32, gf, n, &aux, out, &cd), 0);
	for (size_t i = 0; i < n; i++) {
		if (gt_f32_bits(out[i]) != want[i])
			fprintf(stderr, "%s: value %zu: %08x -> %08x, want %08x\n", opts, i,
				g[i], gt_f32_bits(out[i]), want[i]);
		CHECK(gt_f32_bits(out[i]) == want[i]);
	}
	gt_codec_free(enc);
	gt_codec_free(dec);
}

static void test_hand(void)
{
	/* 2^-10 with a full mantissa: δ = 1/(0.1 g) ≈ 5120 -> 2^12 < δ < 2^18:
	 * level 2; 1.0: δ = 10 -> level 0; 2^-20: δ ≈ 1.05e7 > 2^18: level 3;
	 * a subnormal, -0, +Inf, a NaN with payload */
	static const uint32_t g[7] = { 0x3affffffu, 0x3f800001u, 0x35800fffu, 0x00000123u,
				       0x80000000u, 0x7f800000u, 0x7fc00123u };
	static const uint32_t full[7] = { 0x3afff000u, 0x3f800001u, 0x35800000u, 0,
					  0x80000000u, 0x7f800000u, 0x7fc00123u };
	/* margin 1: 5120 < 2^13 -> level 1 (6 bits) */
	static const uint32_t m1[7] = { 0x3affffc0u, 0x3f800001u, 0x35800000u, 0,
					0x80000000u, 0x7f800000u, 0x7fc00123u };
	/* margin 4: 5120 < 2^16 but > 2^10; 2^-20 now < 2^22: level 2 */
	static const uint32_t m4[7] = { 0x3affffc0u, 0x3f800001u, 0x35800000u, 0,
					0x80000000u, 0x7f800000u, 0x7fc00123u };
	static const uint32_t multi[7] = { 0x3afff000u, 0x3f800001u, 0x35800000u, 0x123u,
					   0x80000000u, 0x7f800000u, 0x7fc00123u };
	static const uint32_t single[7] = { 0x3afc0000u, 0x3f800000u, 0x35800000u, 0,
					    0x80000000u, 0x7f800000u, 0x7fc00123u };
	static const uint32_t prune[7] = { 0x3affffffu, 0x3f800001u, 0x35800fffu, 0,
					   0x80000000u, 0x7f800000u, 0x7fc00123u };
	static const uint32_t exact_neg[2] = { 0x80000123u, 0x80000000u };

	hand_one("", g, full, 7);
	hand_one("levels=0,6,12,18,margin=1", g, m1, 7);
	hand_one("margin=4", g, m4, 7);
	hand_one("mode=multi-quant", g, multi, 7);
	hand_one("mode=single-quant", g, single, 7);
	hand_one("mode=zero-prune", g, prune, 7);
	/* a negative subnormal keeps its sign: -0 */
	hand_one("", exact_neg, (const uint32_t[2]){ 0x80000000u, 0x80000000u }, 2);
	{
		/* δ = 10240 exactly at 2^-10: margin 1 (8192) level 2, margin 2 level 1 */
		static const uint32_t g1[1] = { 0x3a800000u | 0x7fu };

		hand_one("margin=1", g1, (const uint32_t[1]){ 0x3a800000u }, 1);
		hand_one("margin=2", g1, (const uint32_t[1]){ 0x3a800040u }, 1);
	}
}

/* Modes full and zero-prune flush subnormals to a zero of their sign:
 * the bytes (table and chunks) must equal those of the data with the
 * zeros written in (the encoder codes the source in place when a chunk
 * holds no subnormal, a flushed copy when it does). */
static size_t encode_bytes(const char *opts, const uint32_t *v, size_t n,
			   const float *param, unsigned char *buf, size_t cap)
{
	const struct gt_optim o = sgd(0.01);
	struct gt_codec_ctx *ctx = make(GT_DT_F32, opts, &o);
	size_t len = 0, total;

	CHECK_RC(gt_codec_block_begin(ctx, v, n, buf, cap, &len), 0);
	total = len;
	for (size_t i = 0; i < n; i += CHUNK) {
		const size_t k = n - i < CHUNK ? n - i : CHUNK;
		const struct gt_codec_aux a = { .param = param + i, .state = { NULL, NULL } };

		CHECK(gt_codec_bound(ctx, k) <= cap - total);
		CHECK_RC(gt_codec_encode_aux(ctx, v + i, k, &a, buf + total, cap - total, &len), 0);
		total += len;
	}
	gt_codec_free(ctx);
	return total;
}

static void test_flush_bytes(void)
{
	const size_t n = 3 * CHUNK + 5, cap = 16 * n + 65536;
	uint32_t *zero = malloc(n * 4), *sub = malloc(n * 4);
	float *param = malloc(n * sizeof(float));
	unsigned char *a = malloc(cap), *b = malloc(cap);

	for (size_t i = 0; i < n; i++) {
		const uint64_t r = check_rand();

		zero[i] = (uint32_t)(r >> 63) << 31 | (uint32_t)(100 + r % 30) << 23 |
			  (uint32_t)(r >> 8 & 0x7fffff);
		if (r % 7 == 0)
			zero[i] &= 0x80000000u;
		param[i] = (float)(0.5 + (double)(r >> 40 & 0xffff) / 65536.0);
	}
	memcpy(sub, zero, n * 4);
	/* subnormals in chunks 0 and 2 only (1 and 3 take the in-place path) */
	for (size_t i = 0; i < n; i++)
		if (!(zero[i] << 1) && (i / CHUNK) % 2 == 0 && i % 3)
			sub[i] = zero[i] | (uint32_t)(1 + i % 0x7fffff);
	for (int m = 0; m < 2; m++) {
		const char *opts = m ? "mode=zero-prune" : "mode=full";
		const size_t la = encode_bytes(opts, zero, n, param, a, cap);
		const size_t lb = encode_bytes(opts, sub, n, param, b, cap);

		CHECK(la == lb && !memcmp(a, b, la));
	}
	free(zero);
	free(sub);
	free(param);
	free(a);
	free(b);
}

/* A random float: normal, zero, subnormal, Inf or NaN (rarely). */
static float odd_float(uint64_t r, double scale)
{
	switch (r % 64) {
	case 0: return 0.0f;
	case 1: return -0.0f;
	case 2: return gt_f32_from_bits((uint32_t)(r >> 20) & 0x807fffffu);
	case 3: return (r >> 8) & 1 ? INFINITY : -INFINITY;
	case 4: return NAN;
	default: break;
	}
	return (float)(scale * ((double)(r >> 11 & 0xfffff) / 0x80000 - 1.0) *
		       ldexp(1.0, (int)(r >> 40 & 15) - 8));
}

/*
 * The codec's levels (its own δ evaluation) against gt_optim_delta() for
 * every optimizer, with and without weight decay and state, on values
 * with zeros, subnormals, Inf, NaN, negative states, and θ placed so that
 * δ lies on a threshold or one ulp either side.
 */

/* Code @g in modes full and multi-quant (options + @extra) and check the
 * level of every value against delta (check_levels). */
static void levels_full_multi(const struct gt_optim *o, const float *g, size_t n,
			      const struct gt_codec_aux *aux, float *dec, const char *extra)
{
	for (int m = M_FULL; m <= M_MULTI; m += M_MULTI - M_FULL) {
		struct gt_codec_ctx *enc, *dc;
		char opts[48];
		struct coded cd;

		snprintf(opts, sizeof(opts), "mode=%s%s", modes[m], extra);
		enc = make(GT_DT_F32, opts, o);
		dc = make(GT_DT_F32, opts, NULL);
		CHECK_RC(code_all(enc, dc, GT_DT_F32, g, n, aux, dec, &cd), 0);
		check_levels(o, g, dec, aux, n, m);
		gt_codec_free(enc);
		gt_codec_free(dc);
	}
}

static void test_delta_levels(void)
{
	static const enum gt_optim_kind kinds[] = {
		GT_OPT_SGD, GT_OPT_MOMENTUM, GT_OPT_NESTEROV, GT_OPT_ADAGRAD,
		GT_OPT_RMSPROP, GT_OPT_ADAM, GT_OPT_ADAMW,
	};
	const size_t n = 20000;
	float *g = malloc(n * 4), *p = malloc(n * 4), *s0 = malloc(n * 4);
	float *s1 = malloc(n * 4), *dec = malloc(n * 4);

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (int variant = 0; variant < 4; variant++) {
			const int wd = variant & 1, nostate = variant >> 1;
			struct gt_optim o = sgd(0.01);
			struct gt_codec_aux aux = { .param = p, .state = { s0, s1 } };

			o.kind = kinds[k];
			o.have = ~0u;
			o.momentum = kinds[k] == GT_OPT_MOMENTUM || kinds[k] == GT_OPT_NESTEROV ? 0.9 : 0;
			o.dampening = kinds[k] == GT_OPT_MOMENTUM ? 0.1 : 0;
			o.weight_decay = wd ? 1e-4 : 0;
			o.beta1 = 0.9;
			o.beta2 = 0.999;
			o.eps = 1e-8;
			o.alpha = 0.99;
			o.lr_decay = 0.01;
			o.t = 7;
			if (nostate)
				aux.state[0] = aux.state[1] = NULL;
			for (size_t i = 0; i < n; i++) {
				const uint64_t r = check_rand(), r2 = check_rand();

				g[i] = odd_float(r, 1e-3);
				p[i] = (r2 >> 3) % 97 == 0 ? odd_float(r2, 1) :
				       (float)(0.1 * ((double)(r2 >> 20 & 0xffff) / 32768.0 - 1));
				s0[i] = (r2 >> 1) % 89 == 0 ? odd_float(r2 >> 7, 1e-3) : g[i] * 0.5f;
				s1[i] = (r2 >> 2) % 83 == 0 ? odd_float(r2 >> 9, 1e-6) : g[i] * g[i];
				if (o.kind == GT_OPT_SGD && !wd && i % 2 == 0 && isnormal(g[i])) {
					/* θ = T η g: δ on threshold T (each of the three
					 * in turn), or one ulp off */
					const float th = (float)(ldexp(1.0, (int)lev32[1 + i / 2 % 3]) *
								 o.lr * g[i]);
					const uint32_t b = gt_f32_bits(th) + (uint32_t)(r2 % 3) - 1;

					p[i] = isnormal(th) ? gt_f32_from_bits(b) : th;
				}
			}
			levels_full_multi(&o, g, n, &aux, dec, "");
		}
	}
	free(g);
	free(p);
	free(s0);
	free(s1);
	free(dec);
}

/* The codec's parse of the options and canon. */
static void test_options(void)
{
	static const struct {
		const char *opts, *msg;
	} bad[] = {
		{ "levels=0,6,6,18", "levels" }, { "levels=0,6,12,24", "levels" },
		{ "levels=0,6,12", "levels" }, { "levels=0,6,12,18,20", "levels" },
		{ "levels=-1,6,12,18", "levels" }, { "mode=fast", "mode" },
		{ "margin=x", "margin" }, { "margin=100", "margin" },
		{ "maxlen=16", "maxlen" }, { "method=x", "method" }, { "speed=1", "speed" },
		{ "levels=0,1,2,a", "levels" },
	};
	struct gt_codec_params p = { GT_DT_F32, NULL, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };
	struct gt_optim o = sgd(0.1);
	char buf[160];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p.opts = bad[i].opts;
		d.msg[0] = 0;
		CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d), GT_ERR(INVAL));
		CHECK(strstr(d.msg, bad[i].msg) != NULL);
	}
	p.opts = "levels=1,5,9,23,margin=-2,mode=exact,maxlen=11,method=pm";
	CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d), 0);
	gt_codec_canon(ctx, buf, sizeof(buf));
	CHECK(!strcmp(buf, "levels=1,5,9,23,margin=-2,mode=exact,maxlen=11,method=pm"));
	CHECK(gt_codec_needs_aux(ctx) == 1);
	gt_codec_free(ctx);
	p.opts = NULL;
	CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d), 0);
	gt_codec_canon(ctx, buf, sizeof(buf));
	CHECK(!strcmp(buf, "levels=0,6,12,18,margin=0,mode=full,maxlen=12,method=best"));
	gt_codec_free(ctx);
	p.dtype = GT_DT_BF16;
	p.opts = "mode=zero-prune";
	CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d), 0);
	gt_codec_canon(ctx, buf, sizeof(buf));
	CHECK(!strcmp(buf, "levels=0,2,4,6,margin=0,mode=zero-prune,maxlen=12,method=best"));
	CHECK(gt_codec_needs_aux(ctx) == 0);
	gt_codec_free(ctx);
	/* an invalid optimizer fails ctx_new with gt_optim_check's phrase */
	o.lr = -1;
	p.optim = &o;
	p.opts = NULL;
	CHECK(gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d) < 0);
	CHECK(strstr(d.msg, "lr") != NULL);
	CHECK(gt_codec_flags(gt_codec_find("gcomp")) ==
	      (GT_CODEC_NEEDS_OPTIM | GT_CODEC_TABLE));
	CHECK(gt_codec_id(gt_codec_find("gcomp")) == 4);
}

/* Modes that need the context refuse to code without it. */
static void test_needs_aux(void)
{
	const struct gt_optim o = sgd(0.1);
	struct gt_codec_ctx *a = make(GT_DT_F32, "", &o), *b = make(GT_DT_F32, "", NULL);
	struct gt_codec_ctx *c = make(GT_DT_F32, "mode=single-quant", NULL);
	unsigned char meta[GT_CODEC_META_MAX], dst[256];
	const float v[4] = { 1, 2, 3, 4 };
	struct gt_codec_aux aux = { .param = v, .state = { NULL, NULL } };
	size_t ml, len;

	CHECK_RC(gt_codec_block_begin(a, v, 4, meta, sizeof(meta), &ml), 0);
	CHECK_RC(gt_codec_block_begin(b, v, 4, meta, sizeof(meta), &ml), 0);
	CHECK_RC(gt_codec_block_begin(c, v, 4, meta, sizeof(meta), &ml), 0);
	CHECK_RC(gt_codec_encode(a, v, 4, dst, sizeof(dst), &len), GT_ERR(INVAL));
	CHECK_RC(gt_codec_encode_aux(a, v, 4, NULL, dst, sizeof(dst), &len), GT_ERR(INVAL));
	CHECK_RC(gt_codec_encode_aux(a, v, 4, &aux, dst, sizeof(dst), &len), 0);
	CHECK_RC(gt_codec_encode_aux(b, v, 4, &aux, dst, sizeof(dst), &len), GT_ERR(INVAL));
	CHECK_RC(gt_codec_encode(c, v, 4, dst, sizeof(dst), &len), 0);
	CHECK(gt_codec_needs_aux(a) == 1 && gt_codec_needs_aux(c) == 0);
	gt_codec_free(a);
	gt_codec_free(b);
	gt_codec_free(c);
}

/* Random bits with zeros, subnormals, Inf/NaN; a param array near 1. */
static void fill(void *buf, enum gt_dtype dt, size_t n, float *param)
{
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);
	const unsigned bias = (1u << (eb - 1)) - 1;

	for (size_t i = 0; i < n; i++) {
		const uint64_t r = check_rand();
		const uint64_t man = (r >> 8) & ((UINT64_C(1) << mb) - 1);
		unsigned e = bias - 3 - (unsigned)(r % 10);
		uint64_t v;

		if (e >= (1u << eb) - 1 || e > bias)
			e = 1;
		v = gt_fp_make((unsigned)(r >> 63), e, man, dt);
		switch ((r >> 4) % 16) {
		case 0: v = 0; break;
		case 1: v = gt_fp_make((unsigned)(r >> 63), 0, 0, dt); break;
		case 2: v = gt_fp_make((unsigned)(r >> 63), 0, man | 1, dt); break;
		case 3: v = gt_fp_make((unsigned)(r >> 63), (1u << eb) - 1, (r >> 5) & 1 ? man : 0, dt); break;
		default: break;
		}
		gt_fp_store(buf, dt, i, v);
		param[i] = (float)(0.5 + (double)(r >> 40 & 0xffff) / 65536.0);
		if ((r >> 20) % 5 == 0)
			param[i] *= 1e-4f;
	}
	for (size_t i = n / 2; i < n / 2 + n / 16; i++)
		gt_fp_store(buf, dt, i, 0);
}

/* Every dtype and mode at lengths 0, 1, odd, 65537: values as the mode says
 * (f32 decode: 999 the single-token loop, 5000 and 65537 the 9- and 12-bit
 * multi-symbol tables). */
static void test_roundtrips(void)
{
	static const enum gt_dtype dts[] = { GT_DT_F32, GT_DT_F16, GT_DT_BF16, GT_DT_F64 };
	static const size_t lens[] = { 0, 1, 7, 999, 5000, 65537 };
	const struct gt_optim o = sgd(0.01);

	for (size_t di = 0; di < 4; di++) {
		const enum gt_dtype dt = dts[di];
		const size_t w = gt_dtype_size(dt);
		unsigned lev[4];

		for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
			const size_t n = lens[li];
			unsigned char *src = malloc(n * w + 1), *out = malloc(n * w + 1);
			float *param = malloc(n * sizeof(float) + 4);
			double *param64 = malloc(n * sizeof(double) + 8);
			struct gt_codec_aux aux = { .param = param, .state = { NULL, NULL } };

			fill(src, dt, n, param);
			for (size_t i = 0; i < n; i++)
				param64[i] = param[i];
			/* f64's mode exact needs θ in float64 */
			aux.param64 = dt == GT_DT_F64 ? param64 : NULL;
			for (int m = 0; m < NMODES; m++) {
				char opts[64], canon[128];
				struct gt_codec_ctx *enc, *dec;
				struct coded cd;
				size_t bad = 0;

				snprintf(opts, sizeof(opts), "mode=%s", modes[m]);
				enc = make(dt, opts, &o);
				dec = make(dt, opts, NULL);
				gt_codec_canon(enc, canon, sizeof(canon));
				CHECK(sscanf(canon, "levels=%u,%u,%u,%u", &lev[0], &lev[1],
					     &lev[2], &lev[3]) == 4);
				if (m == M_PRUNE)
					lev[1] = lev[2] = lev[3] = 0;
				CHECK_RC(code_all(enc, dec, dt, src, n, &aux, out, &cd), 0);
				for (size_t i = 0; i < n; i++)
					bad += value_level(gt_fp_load(src, dt, i), gt_fp_load(out, dt, i),
							   dt, lev, m == M_FULL || m == M_PRUNE ? 1 :
							   m == M_EXACT ? 2 : 0) < 0;
				if (bad)
					fprintf(stderr, "%s %s n=%zu: %zu wrong\n", gt_dtype_name(dt),
						modes[m], n, bad);
				CHECK(bad == 0);
				gt_codec_free(enc);
				gt_codec_free(dec);
			}
			free(src);
			free(out);
			free(param);
			free(param64);
		}
	}
}

/* f32 with short and long codes and other level sets: the multi-token
 * decode table of every index width (maxlen 1-15, 9 and 12 bits). */
static void test_f32_tables(void)
{
	static const char *const opts[] = { "maxlen=1", "maxlen=4", "maxlen=9", "maxlen=15",
					    "levels=0,5,9,23,maxlen=11" };
	const size_t n = 65537;
	const struct gt_optim o = sgd(0.01);
	float *src = malloc(n * 4), *out = malloc(n * 4), *param = malloc(n * 4);
	struct gt_codec_aux aux = { .param = param, .state = { NULL, NULL } };

	fill(src, GT_DT_F32, n, param);
	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		for (int m = 0; m < NMODES; m++) {
			char o2[96], canon[160];
			struct gt_codec_ctx *enc, *dec;
			struct coded cd;
			unsigned lev[4];
			size_t bad = 0;

			snprintf(o2, sizeof(o2), "%s,mode=%s", opts[k], modes[m]);
			enc = make(GT_DT_F32, o2, &o);
			dec = make(GT_DT_F32, o2, NULL);
			gt_codec_canon(enc, canon, sizeof(canon));
			CHECK(sscanf(canon, "levels=%u,%u,%u,%u", &lev[0], &lev[1], &lev[2],
				     &lev[3]) == 4);
			if (m == M_PRUNE)
				lev[1] = lev[2] = lev[3] = lev[0];
			CHECK_RC(code_all(enc, dec, GT_DT_F32, src, n, &aux, out, &cd), 0);
			for (size_t i = 0; i < n; i++)
				bad += value_level(gt_fp_load(src, GT_DT_F32, i),
						   gt_fp_load(out, GT_DT_F32, i), GT_DT_F32, lev,
						   m == M_FULL || m == M_PRUNE ? 1 :
						   m == M_EXACT ? 2 : 0) < 0;
			if (bad)
				fprintf(stderr, "%s: %zu wrong\n", o2, bad);
			CHECK(bad == 0);
			gt_codec_free(enc);
			gt_codec_free(dec);
		}
	}
	free(src);
	free(out);
	free(param);
}

/* A coded f32 chunk for the hostile tests. */
static size_t coded_chunk(const char *opts, struct gt_codec_ctx **dec_ret,
			  unsigned char *dst, size_t cap, size_t n)
{
	const struct gt_optim o = sgd(0.01);
	struct gt_codec_ctx *enc = make(GT_DT_F32, opts, &o);
	unsigned char meta[GT_CODEC_META_MAX];
	float *src = malloc(n * 4), *param = malloc(n * 4);
	struct gt_codec_aux aux = { .param = param, .state = { NULL, NULL } };
	size_t ml = 0, len = 0;

	fill(src, GT_DT_F32, n, param);
	*dec_ret = make(GT_DT_F32, opts, NULL);
	CHECK_RC(gt_codec_block_begin(enc, src, n, meta, sizeof(meta), &ml), 0);
	CHECK_RC(gt_codec_block_load(*dec_ret, meta, ml), 0);
	CHECK_RC(gt_codec_encode_aux(enc, src, n, &aux, dst, cap, &len), 0);
	/* every smaller capacity is DST_TOO_SMALL */
	for (size_t c = 0; c < len; c += 1 + c / 16) {
		size_t l2;

		CHECK_RC(gt_codec_encode_aux(enc, src, n, &aux, dst, c, &l2),
			 GT_ERR(DST_TOO_SMALL));
	}
	CHECK_RC(gt_codec_encode_aux(enc, src, n, &aux, dst, cap, &len), 0);
	gt_codec_free(enc);
	free(src);
	free(param);
	return len;
}

static void test_hostile(void)
{
	for (int m = 0; m < NMODES; m++) {
		char opts[64];
		const size_t n = 3000;
		unsigned char *dst = malloc(20000), *cut;
		float *out = malloc(n * 4);
		struct gt_codec_ctx *dec = NULL;
		size_t len;
		int rc;

		snprintf(opts, sizeof(opts), "mode=%s", modes[m]);
		len = coded_chunk(opts, &dec, dst, 20000, n);
		CHECK(len > 0);
		CHECK_RC(gt_codec_decode(dec, dst, len, out, n), 0);
		/* every truncation fails; exact-size copies */
		for (size_t l = 0; l < len; l++) {
			cut = malloc(l ? l : 1);
			memcpy(cut, dst, l);
			rc = gt_codec_decode(dec, cut, l, out, n);
			CHECK(rc == GT_ERR(TRUNCATED) || rc == GT_ERR(CORRUPT));
			free(cut);
		}
		/* the wrong count, bytes left over */
		CHECK(gt_codec_decode(dec, dst, len, out, n - 1) < 0);
		CHECK(gt_codec_decode(dec, dst, len, out, 2) < 0);
		/* flipped bytes: no crash, no write past n values */
		for (int k = 0; k < 300; k++) {
			const uint64_t r = check_rand();

			cut = malloc(len);
			memcpy(cut, dst, len);
			cut[r % len] ^= (unsigned char)(1u << (r >> 32) % 8);
			if ((r >> 40) % 3 == 0)
				cut[(r >> 8) % len] = (unsigned char)(r >> 48);
			rc = gt_codec_decode(dec, cut, len, out, n);
			CHECK(rc == 0 || rc == GT_ERR(TRUNCATED) || rc == GT_ERR(CORRUPT));
			free(cut);
		}
		gt_codec_free(dec);
		free(dst);
		free(out);
	}
}

/* bound() is a true worst case: all values escaped, widest words. */
static void test_bound(void)
{
	const size_t n = 5000;
	struct gt_codec_ctx *enc = make(GT_DT_F32, "mode=multi-quant,maxlen=15,method=gcomp", NULL);
	struct gt_codec_params sp = { GT_DT_F32, NULL, NULL, 0, NULL, 0 };
	float *src = malloc(n * 4), *param = malloc(n * 4);
	unsigned char meta[GT_CODEC_META_MAX], *dst;
	struct gt_codec_aux aux = { .param = param, .state = { NULL, NULL } };
	struct gt_optim o = sgd(1e30);
	struct gt_codec_ctx *e2 = NULL, *hx = NULL;
	struct gt_codec_params hp = { GT_DT_F32, NULL, NULL, 0, NULL, 0 };
	size_t own;
	struct gt_huff_hist h;
	struct gt_huff_table t;
	size_t ml, len = 0, bound;
	struct gt_diag d;

	gt_codec_free(enc);
	/* a static table with only ESC and exponent 0: every value escaped */
	gt_huff_hist_init(&h, GT_DT_F32);
	h.count[GT_HUFF_ZERO(8)] = 1;
	CHECK_RC(gt_huff_build(&t, &h, 15, GT_HUFF_PM, GT_HUFF_STATIC), 0);
	CHECK_RC(gt_huff_save(&t, meta, sizeof(meta), &ml), 0);
	sp.table = meta;
	sp.table_len = ml;
	sp.opts = "mode=multi-quant";
	sp.optim = &o;
	CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &sp, &e2, &d), 0);
	for (size_t i = 0; i < n; i++) {
		src[i] = gt_f32_from_bits(0x3f800000u | (uint32_t)(check_rand() & 0x807fffffu));
		param[i] = 1e-30f;
	}
	bound = gt_codec_bound(e2, n);
	dst = malloc(bound);
	CHECK_RC(gt_codec_block_begin(e2, src, n, meta, sizeof(meta), &ml), 0);
	CHECK(ml == 0);
	CHECK_RC(gt_codec_encode_aux(e2, src, n, &aux, dst, bound, &len), 0);
	/* gcomp's own worst case is tight; the bound is the larger of it and
	 * huffexp's (a block may fall back to huffexp's chunks) */
	own = 4 * GT_VARINT_MAX + (2 * n + 7) / 8 + (n * 24 + 7) / 8 + (n * (15 + 8) + 7) / 8;
	CHECK_RC(gt_codec_new(gt_codec_find("huffexp"), &hp, &hx, &d), 0);
	CHECK(bound == (own > gt_codec_bound(hx, n) ? own : gt_codec_bound(hx, n)));
	CHECK(len <= own && len > own / 2);
	gt_codec_free(hx);
	gt_codec_free(e2);
	free(dst);
	free(src);
	free(param);
}

/* ---- the vector encoders against the scalar one -------------------------- */

/* The kernels under test (main() runs the tests once with each): the
 * isa= option's value, and the option with a leading comma. */
static const char *vec_isa = "avx512";
static char vec_opt[16] = ",isa=avx512";

/* Whether this CPU runs gcomp's kernels of vec_isa (isa= accepted). */
static int have_vec(void)
{
	char opt[16];
	struct gt_codec_params p = { GT_DT_F32, opt, NULL, 0, NULL, 0 };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };
	int rc;

	snprintf(opt, sizeof(opt), "isa=%s", vec_isa);
	rc = gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d);
	gt_codec_free(ctx);
	CHECK(rc == 0 || rc == GT_ERR(UNSUPPORTED));
	return rc == 0;
}

/* The arrays of a test of the vector kernels: gradients, parameters, two
 * states and the decoded values, @n each, zeroed. */
struct isa_arrays {
	float *g, *p, *s0, *s1, *dec;
};

/* Allocates @a; 0 with a line saying so when this CPU does not run the
 * kernels (the test then only frees @a). */
static int isa_alloc(const char *test, size_t n, struct isa_arrays *a)
{
	a->g = calloc(n, 4);
	a->p = calloc(n, 4);
	a->s0 = calloc(n, 4);
	a->s1 = calloc(n, 4);
	a->dec = calloc(n, 4);
	CHECK(a->g && a->p && a->s0 && a->s1 && a->dec);
	if (!have_vec()) {
		printf("%s: isa=%s not available here, skipped\n", test, vec_isa);
		return 0;
	}
	return a->g && a->p && a->s0 && a->s1 && a->dec;
}

static void isa_free(struct isa_arrays *a)
{
	free(a->g);
	free(a->p);
	free(a->s0);
	free(a->s1);
	free(a->dec);
}

/* The block meta then every chunk of @chunk values, back to back, as
 * gcomp:@opts codes @g; a malloc'd buffer of *@len_ret bytes. */
static unsigned char *encode_isa(const char *opts, const struct gt_optim *o, const float *g,
				 size_t n, const struct gt_codec_aux *aux, size_t chunk,
				 size_t *len_ret)
{
	struct gt_codec_ctx *ctx = make(GT_DT_F32, opts, o);
	const size_t cap = GT_CODEC_META_MAX + (n / chunk + 1) * gt_codec_bound(ctx, chunk);
	unsigned char *buf = malloc(cap);
	size_t len = 0, total;

	CHECK_RC(gt_codec_block_begin(ctx, g, n, buf, cap, &len), 0);
	total = len;
	for (size_t i = 0; i < n; i += chunk) {
		const size_t k = n - i < chunk ? n - i : chunk;
		const struct gt_codec_aux a = {
			.param = aux->param + i,
			.state = { aux->state[0] ? aux->state[0] + i : NULL,
				   aux->state[1] ? aux->state[1] + i : NULL }
		};

		CHECK_RC(gt_codec_encode_aux(ctx, g + i, k, &a, buf + total, cap - total, &len), 0);
		total += len;
	}
	gt_codec_free(ctx);
	*len_ret = total;
	return buf;
}

/* Every mode's bytes with isa=scalar and vec_isa (levels per value
 * included), in chunks of 4096 and of 1000 (odd tails). */
static void same_bytes_opts(const struct gt_optim *o, const float *g, size_t n,
			    const struct gt_codec_aux *aux, const char *extra)
{
	static const size_t chunks[] = { CHUNK, 1000 };

	for (int m = 0; m < NMODES; m++) {
		for (size_t c = 0; c < 2; c++) {
			char o1[64], o2[64];
			size_t l1, l2;
			unsigned char *b1, *b2;

			snprintf(o1, sizeof(o1), "mode=%s,isa=scalar%s", modes[m], extra);
			snprintf(o2, sizeof(o2), "mode=%s%s%s", modes[m], vec_opt, extra);
			b1 = encode_isa(o1, o, g, n, aux, chunks[c], &l1);
			b2 = encode_isa(o2, o, g, n, aux, chunks[c], &l2);
			CHECK(l1 == l2 && !memcmp(b1, b2, l1));
			free(b1);
			free(b2);
		}
	}
}

static void same_bytes(const struct gt_optim *o, const float *g, size_t n,
		       const struct gt_codec_aux *aux)
{
	same_bytes_opts(o, g, n, aux, "");
}

/* θ for which δ of value @i is about ±2^lev32[1..3] (δ taken as affine
 * in θ through two gt_optim_delta() calls), moved by 0 to 2^16 ulps, so
 * that many values fall inside the kernel's filter band and many just
 * outside; @p[i] is kept when the solve fails. */
static void near_threshold(const struct gt_optim *o, const float *g, float *p,
			   const float *s0, const float *s1, size_t i, uint64_t r)
{
	const float th[2] = { 0.0f, 1.0f };
	double d[2], t, x;
	uint32_t b;

	for (int k = 0; k < 2; k++)
		CHECK_RC(gt_optim_delta(o, 1, g + i, th + k, s0 ? s0 + i : NULL,
					s1 ? s1 + i : NULL, d + k), 0);
	t = ldexp(r & 1 ? -1.0 : 1.0, (int)lev32[1 + (r >> 1) % 3]);
	x = (t - d[0]) / (d[1] - d[0]);
	if (!isfinite(x) || fabs(x) > 1e38 || fabs(x) < 1e-45)
		return;
	b = gt_f32_bits((float)x);
	switch (r >> 3 & 3) {
	case 0: b += (uint32_t)(r >> 5 & 7) - 3; break;
	case 1: b += (uint32_t)(r >> 5 & 0xff) - 128; break;
	default: b += (uint32_t)(r >> 5 & 0x1ffff) - 0x10000; break;
	}
	p[i] = gt_f32_from_bits(b);
}

/*
 * The kernels' levels (an approximate filter in front of the exact double
 * test) equal the scalar path's and gt_optim_delta()'s for every optimizer,
 * with and without weight decay and state, on values placed on, near and
 * off the thresholds, with zeros (alone and in stretches that RUN tokens
 * code), subnormals, Inf and NaN among them.
 */
static void test_isa_random(void)
{
	static const enum gt_optim_kind kinds[] = {
		GT_OPT_SGD, GT_OPT_MOMENTUM, GT_OPT_NESTEROV, GT_OPT_ADAGRAD,
		GT_OPT_RMSPROP, GT_OPT_ADAM, GT_OPT_ADAMW,
	};
	const size_t n = 3 * CHUNK + 11;
	struct isa_arrays a;

	if (!isa_alloc("test_isa_random", n, &a))
		goto out;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (int variant = 0; variant < 4; variant++) {
			struct gt_optim o = sgd(0.01);
			struct gt_codec_aux aux = { .param = a.p, .state = { a.s0, a.s1 } };
			size_t run = 0;
			int neg = 0;

			o.kind = kinds[k];
			o.have = ~0u;
			o.momentum = kinds[k] == GT_OPT_MOMENTUM || kinds[k] == GT_OPT_NESTEROV ? 0.9 : 0;
			o.dampening = kinds[k] == GT_OPT_MOMENTUM ? 0.1 : 0;
			o.weight_decay = variant & 1 ? 1e-2 : 0;
			o.beta1 = 0.9;
			o.beta2 = 0.999;
			o.eps = 1e-8;
			o.alpha = 0.99;
			o.lr_decay = 0.01;
			o.t = 3;
			if (variant >> 1)
				aux.state[0] = aux.state[1] = NULL;
			for (size_t i = 0; i < n; i++) {
				const uint64_t r = check_rand(), r2 = check_rand();

				a.g[i] = odd_float(r, 1e-3);
				a.p[i] = (float)(0.1 * ((double)(r2 >> 20 & 0xffff) / 32768.0 - 1));
				a.s0[i] = (r2 >> 1) % 89 == 0 ? odd_float(r2 >> 7, 1e-3) : a.g[i] * 0.5f;
				a.s1[i] = (r2 >> 2) % 83 == 0 ? odd_float(r2 >> 9, 1e-6) : a.g[i] * a.g[i];
				if (r2 % 8)
					near_threshold(&o, a.g, a.p, aux.state[0], aux.state[1], i,
						       check_rand());
				/* stretches of +0.0 (RUN tokens from 8 on), some of -0.0 */
				if (run == 0 && r % 61 == 0)
					run = (size_t)(r >> 32) % 40 + 1, neg = r >> 50 & 1 && r >> 51 & 1;
				if (run) {
					a.g[i] = neg ? -0.0f : 0.0f;
					run--;
				}
			}
			for (size_t i = n - 20; i < n; i++)
				a.g[i] = variant & 1 ? 0.0f : a.g[i]; /* a run at the end */
			same_bytes(&o, a.g, n, &aux);
			levels_full_multi(&o, a.g, n, &aux, a.dec, vec_opt);
		}
	}
out:
	isa_free(&a);
}

/* A float of magnitude 2^[lo, hi) with a random significand and sign. */
static float wide_float(uint64_t r, int lo, int hi)
{
	const double m = 1.0 + (double)(r >> 11 & 0xfffff) / 0x100000;

	return (float)ldexp(r >> 63 ? -m : m, lo + (int)((r >> 32) % (uint64_t)(hi - lo)));
}

/* θ for which δ of value @i is ±2^lev32[1..3] (1 ± 2^-8): outside the
 * filter's band where the float32 sums are accurate, inside the error
 * they have where a guard is needed (0.1 when the solve fails). */
static void off_threshold(const struct gt_optim *o, const float *g, float *p,
			  const float *s0, const float *s1, size_t i, uint64_t r)
{
	const float th[2] = { 0.0f, 1.0f };
	double d[2], t, x;

	for (int k = 0; k < 2; k++)
		CHECK_RC(gt_optim_delta(o, 1, g + i, th + k, s0 + i, s1 + i, d + k), 0);
	t = ldexp(r & 1 ? -1.0 : 1.0, (int)lev32[1 + (r >> 1) % 3]) *
	    (r >> 3 & 1 ? 1 + 0x1p-8 : 1 - 0x1p-8);
	x = (t - d[0]) / (d[1] - d[0]);
	p[i] = isfinite(x) && fabs(x) < 1e38 ? (float)x : 0.1f;
}

/*
 * Values at the edges of the float32 filter's guards (@which 0-2; others
 * left alone): 0, a sum under the root that underflows (tiny g, zero
 * states); 1, a state that nearly cancels g's term there; 2, states of
 * 2^100 and more and a g of 2^-30 to 2^-53, for which δ near a
 * threshold takes a θ of 2^-100 or so (the filter's R of 2^50 and more).  Returns whether it changed them.
 */
static int edge_case(const struct gt_optim *o, unsigned which, float *g, float *s0,
		     float *s1)
{
	const int adam = o->kind == GT_OPT_ADAM || o->kind == GT_OPT_ADAMW;
	const double a1 = adam ? o->beta2 : o->kind == GT_OPT_RMSPROP ? o->alpha : 1;
	float *const s = adam ? s1 : s0;

	switch (which) {
	case 0:
		/* a significand of g's own: the rounding of c_x1 g² varies */
		*g = (float)ldexp(1.0 + (double)(gt_f32_bits(*g) & 0x7fffff) / 0x800000,
				  -50 - (int)((gt_f32_bits(*g) >> 12) % 4)) * (*g < 0 ? -1 : 1);
		*s0 = *s1 = 0.0f;
		break;
	case 1:
		*g = (float)ldexp(*g < 0 ? -1.37 : 1.37, -(int)((gt_f32_bits(*g) >> 12) % 30));
		*s = (float)(-(1 - a1) / a1 * (double)*g * *g * (1 - 0x1p-22));
		if (o->kind == GT_OPT_ADAGRAD)
			*s = (float)(-(double)*g * *g * (1 - 0x1p-22));
		break;
	case 2:
		*s0 = *s1 = (float)ldexp(1.5, 100 + (int)((gt_f32_bits(*g) >> 12) % 24));
		*g = (float)ldexp(*g < 0 ? -1.37 : 1.37, -30 - (int)((gt_f32_bits(*g) >> 13) % 24));
		break;
	default:
		return 0;
	}
	return 1;
}

/*
 * The kernels' float32 filter (AdaGrad, RMSProp, Adam without weight
 * decay, AdamW) at the edges of its guards: gradients, parameters and
 * states from 2^-149 to 2^100, zero parameters, negative and zero states,
 * ε of 0, 1e-8 and 0.5, thresholds moved by a margin of -40 and +40,
 * values placed on the thresholds, and whole vectors of edge_case()
 * values placed 2^-8 off them (each guard, left out, fails this test):
 * the same bytes as isa=scalar.
 */
static void test_isa_extremes(void)
{
	static const enum gt_optim_kind kinds[] = {
		GT_OPT_ADAGRAD, GT_OPT_RMSPROP, GT_OPT_ADAM, GT_OPT_ADAMW,
	};
	static const double eps[] = { 0, 1e-8, 0.5 };
	static const char *const extra[] = { "", ",margin=-40", ",margin=40" };
	const size_t n = 2 * CHUNK + 5;
	struct isa_arrays a;

	if (!isa_alloc("test_isa_extremes", n, &a))
		goto out;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		for (size_t v = 0; v < 9; v++) {
			struct gt_optim o = sgd(v % 2 ? 1e-3 : 3e-7);
			struct gt_codec_aux aux = { .param = a.p, .state = { a.s0, a.s1 } };

			o.kind = kinds[k];
			o.have = ~0u;
			o.weight_decay = kinds[k] == GT_OPT_ADAMW && v % 2 ? 1e-2 : 0;
			o.beta1 = 0.9;
			/* v 6 (ε 0): a term c_x1 g² of 2^-40 g², which underflows */
			o.beta2 = v == 6 ? 1 - 0x1p-40 : 0.999;
			o.eps = eps[v % 3];
			o.alpha = v == 6 ? 1 - 0x1p-40 : 0.99;
			o.lr_decay = 0.01;
			o.t = 1 + (long)v;
			for (size_t i = 0; i < n; i++) {
				const uint64_t r = check_rand(), r2 = check_rand(), r3 = check_rand();
				const int w = (int)(r3 % 4);

				a.g[i] = wide_float(r, w ? -40 : -126, w ? 0 : 100);
				a.p[i] = r2 % 13 == 0 ? 0.0f : wide_float(r2, w ? -30 : -149, w ? 2 : 100);
				a.s0[i] = fabsf(wide_float(r3, w ? -60 : -149, w ? 0 : 100));
				a.s1[i] = fabsf(wide_float(r3 * 7, w ? -90 : -149, w ? -10 : 100));
				if (r3 % 29 == 0)
					a.s1[i] = a.s0[i] = r3 % 2 ? -a.s0[i] : 0.0f;
				/* whole vectors of one edge: one unsure lane
				 * sends its sixteen to the exact test */
				if (edge_case(&o, (unsigned)(i / 16 * 0x9e3779b9u >> 7) % 5, a.g + i,
					      a.s0 + i, a.s1 + i))
					off_threshold(&o, a.g, a.p, a.s0, a.s1, i, check_rand());
				else if (r2 % 4)
					near_threshold(&o, a.g, a.p, a.s0, a.s1, i, check_rand());
			}
			same_bytes_opts(&o, a.g, n, &aux, extra[v / 3]);
			if (v < 3)
				levels_full_multi(&o, a.g, n, &aux, a.dec, vec_opt);
		}
	}
out:
	isa_free(&a);
}

/*
 * The float32 filter's guard on the sum under the root: AdamW with β2 =
 * 1 - 2^-40 (c_x1 = 2^-40), ε = 0, zero states and g of 2^-53, whose
 * c_x1 g² underflows to a few ulps of 2^-149 (errors of several %), θ
 * placed 2^-8 off the thresholds; fails without the guard.
 */
static void test_isa_tiny_sum(void)
{
	const size_t n = 1024;
	struct isa_arrays a;
	struct gt_optim o = sgd(3e-7);

	o.kind = GT_OPT_ADAMW;
	o.have = ~0u;
	o.beta1 = 0.9;
	o.beta2 = 1 - 0x1p-40;
	o.eps = 0;
	o.t = 7;
	if (!isa_alloc("test_isa_tiny_sum", n, &a))
		goto out;
	for (size_t i = 0; i < n; i++) {
		a.g[i] = (float)ldexp(1.0 + (double)(check_rand() & 0x7fffff) / 0x800000, -53);
		off_threshold(&o, a.g, a.p, a.s0, a.s1, i, check_rand());
	}
	same_bytes(&o, a.g, n, &(const struct gt_codec_aux){ .param = a.p, .state = { a.s0, a.s1 } });
out:
	isa_free(&a);
}

/* The same on every gradient of the sample traces, with their optimizers. */
static void test_isa_traces(void)
{
	static const char *const paths[] = {
		"samples/mlp_sgd.h5", "samples/cnn_adam.h5", "samples/lstm_adamw.h5",
		"samples/mlp_nesterov.h5", "samples/mlp_adagrad.h5",
		"samples/mlp_rmsprop.h5", "samples/mlp_sgd_plain.h5",
	};

	if (!have_vec()) {
		printf("test_isa_traces: isa=%s not available here, skipped\n", vec_isa);
		return;
	}
	for (size_t f = 0; f < sizeof(paths) / sizeof(paths[0]); f++) {
		struct gt_source *s = NULL;
		struct gt_trace *tr = NULL;
		struct gt_diag d = { "" };

		CHECK_RC(gt_source_open(paths[f], NULL, &s, &d), 0);
		if (s)
			CHECK_RC(gt_trace_open(s, &tr, &d), 0);
		for (size_t k = 0; tr && k < gt_trace_nsteps(tr); k++) {
			const struct gt_trace_step *st = gt_trace_step(tr, k);
			const int ns = gt_optim_nstates(st->optim.kind);

			for (size_t j = 0; j < st->n_grads; j++) {
				const char *name = gt_trace_param_name(
					gt_source_info(s, st->grads[j])->name);
				float *state[2] = { NULL, NULL }, *g, *p;
				size_t n = 0;

				g = read_all(s, st->grads[j], &n);
				p = load(s, tr, k, GT_ROLE_PARAM, NULL, name, n);
				for (int i = 0; i < ns; i++)
					state[i] = load(s, tr, k, GT_ROLE_STATE,
							gt_optim_state_name(st->optim.kind, i),
							name, n);
				CHECK(g && p);
				if (g && p) {
					const struct gt_codec_aux aux = { .param = p, .state = { state[0], state[1] } };

					same_bytes(&st->optim, g, n, &aux);
				}
				free(g);
				free(p);
				free(state[0]);
				free(state[1]);
			}
		}
		gt_trace_free(tr);
		gt_source_free(s);
	}
}

/* ---- the vector decoders against the scalar one -------------------------- */

/* @n values for the decoder: exponents around 2^-10, about 20 % isolated
 * ±0.0, runs of 8-70 zeros, subnormals, Inf, NaN and rare exponents (which
 * maxlen=9 escapes). */
static void dec_values_fill(float *g, float *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const uint64_t r = check_rand();
		uint32_t b = (uint32_t)(r & 0x807fffff) | (uint32_t)(112 + (r >> 32) % 12) << 23;

		switch (r >> 40 & 63) {
		case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7:
		case 8: case 9: case 10: case 11: b &= 0x80000000u; break;
		case 12: b &= 0x807fffffu; break;            /* subnormal or ±0 */
		case 13: b |= 0x7f800000u; b &= 0xff800000u; break; /* ±Inf */
		case 14: b = (b & 0x807fffffu) | (uint32_t)(1 + (r >> 48) % 254) << 23; break;
		case 15:
			for (size_t k = (r >> 48) % 63 + 8; k-- && i < n; i++) {
				g[i] = 0.0f;
				p[i] = 1.0f;
			}
			if (i == n)
				return;
			break;
		default: break;
		}
		g[i] = gt_f32_from_bits(b);
		p[i] = gt_f32_from_bits(0x3f800000u | (uint32_t)(r >> 20 & 0x7fffff));
	}
}

/* Decoded bits @d of original @g in mode @m as gcomp.c codes it: Inf, NaN
 * and ±0.0 exact; subnormals pruned to their sign (full, zero-prune), kept
 * at level 0 (multi-quant) or 3 (single-quant), either (exact); others
 * truncated at a level the mode may give (zero-prune: 0; single-quant:
 * 3; exact may also prune any value whose θ_t stays bit-identical: the
 * caller checks the step). */
static int dec_value_ok(int m, uint32_t g, uint32_t d)
{
	const uint32_t e = g >> 23 & 0xff, sign = g & 0x80000000u;

	if (e == 255 || !(g << 1))
		return d == g;
	if (d == sign && ((!e && m != M_SINGLE && m != M_MULTI) || m == M_EXACT))
		return 1;
	if (!e && (m == M_FULL || m == M_PRUNE))
		return 0;
	for (int l = 0; l < 4; l++)
		if ((m != M_PRUNE || l == 0) && (m != M_SINGLE || l == 3) &&
		    d == (g & ~((UINT32_C(1) << lev32[l]) - 1)))
			return 1;
	return 0;
}

/* Exact mode: the step of @dec gives the θ_t of @g's, bit for bit. */
static int same_step(const struct gt_optim *o, const float *g, const float *dec,
		     const float *p, size_t n)
{
	float *t1 = malloc(n * 4), *t2 = malloc(n * 4);
	int same;

	CHECK_RC(gt_optim_step(o, n, g, p, NULL, NULL, t1, NULL, NULL), 0);
	CHECK_RC(gt_optim_step(o, n, dec, p, NULL, NULL, t2, NULL, NULL), 0);
	same = !memcmp(t1, t2, n * 4);
	free(t1);
	free(t2);
	return same;
}

/*
 * The reference f32 decoder: main's token-at-a-time loop before the
 * two-pass decoder (gcomp_dec.c: get_header, open_streams, dec_carrier,
 * dec_values, the end checks), kept here so that the fast decoder's bytes
 * and verdicts are compared with it.  @mode: M_*, @lev: the levels.
 */
struct ref_dec {
	struct gt_huff_table t;
	uint16_t lut[GT_HUFF_LUT_MAX];
	unsigned lbits, lev[4];
	int prune;
	struct gt_bitr lr, mr, cr, part[4]; /* part: a split chunk's */
	uint64_t left[4];
};

static int ref_carrier(struct ref_dec *r, unsigned x, uint32_t *v)
{
	const unsigned l = r->prune ? 0 : (unsigned)gt_bitr_get(&r->lr, 2);
	uint32_t w;

	if (!r->left[l]--)
		return GT_ERR(CORRUPT);
	w = (uint32_t)gt_bitr_get(&r->mr, 24 - r->lev[l]) << r->lev[l];
	*v = (w >> 23) << 31 | x << 23 | (w & 0x7fffffu);
	return 0;
}

static int ref_values(struct ref_dec *r, float *dst, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned e, s;
		uint32_t v = 0;

		gt_bitr_refill(&r->cr);
		e = r->lut[gt_bitr_peek(&r->cr, r->lbits)];
		if (!GT_HUFF_LUT_LEN(e))
			return GT_ERR(CORRUPT);
		gt_bitr_consume(&r->cr, GT_HUFF_LUT_LEN(e));
		s = GT_HUFF_LUT_SYM(e);
		if (s < 256) {
			GT_TRY(ref_carrier(r, s, &v));
		} else if (s == GT_HUFF_ESC(8)) {
			GT_TRY(ref_carrier(r, (unsigned)gt_bitr_get(&r->cr, 8), &v));
		} else if (s == GT_HUFF_RUN(8)) {
			const uint64_t len = gt_huff_get_run(&r->cr);

			if (!len || len > n - i)
				return GT_ERR(CORRUPT);
			memset(dst + i, 0, (size_t)len * 4);
			i += (size_t)len;
			continue;
		} else {
			v = (uint32_t)(s == GT_HUFF_NZERO(8)) << 31;
		}
		dst[i++] = gt_f32_from_bits(v);
	}
	return 0;
}

/* The header and the three streams' readers of chunk @p..@end. */
static int ref_open(struct ref_dec *r, const unsigned char *p,
		    const unsigned char *end, size_t n)
{
	uint64_t cnt[4] = { 0, 0, 0, 0 }, mc = 0, mbits = 0, lbytes, mbytes;

	for (int l = 0; l < (r->prune ? 1 : 4); l++) {
		GT_TRY(gt_varint_get(&p, end, &cnt[l]));
		if (cnt[l] > n || mc + cnt[l] > n)
			return GT_ERR(CORRUPT);
		mc += cnt[l];
	}
	for (int l = 0; l < 4; l++) {
		mbits += cnt[l] * (24 - r->lev[l]);
		r->left[l] = cnt[l];
	}
	lbytes = r->prune ? 0 : (mc + 3) / 4;
	mbytes = (mbits + 7) / 8;
	if (lbytes > (uint64_t)(end - p) || mbytes > (uint64_t)(end - p) - lbytes)
		return GT_ERR(TRUNCATED);
	gt_bitr_init(&r->lr, p, (size_t)lbytes);
	gt_bitr_init(&r->mr, p + lbytes, (size_t)mbytes);
	gt_bitr_init(&r->cr, p + lbytes + mbytes, (size_t)(end - p - lbytes - mbytes));
	return 0;
}

/* The little-endian u32 at @p. */
static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* A split chunk's code streams (r->cr: three u32 sizes, then the four
 * streams) into r->part. */
static int ref_parts(struct ref_dec *r)
{
	const unsigned char *p = r->cr.start, *end = r->cr.end;

	if (end - p < 12)
		return GT_ERR(TRUNCATED);
	p += 12;
	for (int j = 0; j < 4; j++) {
		uint64_t len = (uint64_t)(end - p);

		if (j < 3) {
			len = le32(r->cr.start + 4 * j);
			if (len > (uint64_t)(end - p))
				return GT_ERR(TRUNCATED);
		}
		gt_bitr_init(&r->part[j], p, (size_t)len);
		p += len;
	}
	return 0;
}

/* The values of a split chunk: part j, [j (n/4), (j+1) (n/4)) (the last
 * to @n), from code stream j; a run ends within its part. */
static int ref_split_values(struct ref_dec *r, float *dst, size_t n)
{
	GT_TRY(ref_parts(r));
	for (int j = 0; j < 4; j++) {
		const size_t a = (size_t)j * (n / 4), b = j == 3 ? n : a + n / 4;

		r->cr = r->part[j];
		GT_TRY(ref_values(r, dst + a, b - a));
		if (gt_bitr_left(&r->cr) < 0)
			return GT_ERR(TRUNCATED);
		if (j < 3)
			GT_TRY(gt_bitr_finish(&r->cr));
	}
	return 0;
}

static int ref_decode(int mode, const unsigned *lev, const unsigned char *meta,
		      size_t mlen, const unsigned char *src, size_t len, float *dst,
		      size_t n)
{
	struct ref_dec *r = calloc(1, sizeof(*r));
	unsigned char table[GT_CODEC_META_MAX];
	/* meta 2 (format 1.5): the table of meta 1, and split chunks */
	const int split = meta[0] == 2 && n >= 8192;
	int rc, rc2, rc3;

	CHECK(r != NULL);
	memcpy(r->lev, lev, sizeof(r->lev));
	r->prune = mode == M_PRUNE;
	memcpy(table, meta, mlen);
	table[0] = 1;
	CHECK_RC(gt_huff_load(&r->t, table, mlen, 0), 0);
	CHECK_RC(gt_huff_lut_fit(&r->t, r->lut, GT_HUFF_LUT_MAX, &r->lbits), 0);
	rc = ref_open(r, src, src + len, n);
	if (rc == 0)
		rc = split ? ref_split_values(r, dst, n) : ref_values(r, dst, n);
	if (rc < 0) {
		if (gt_bitr_left(&r->cr) < 0 || gt_bitr_left(&r->mr) < 0 ||
		    gt_bitr_left(&r->lr) < 0)
			rc = GT_ERR(TRUNCATED);
	} else {
		rc = gt_bitr_finish(&r->cr);
		rc2 = gt_bitr_finish(&r->mr);
		rc3 = gt_bitr_finish(&r->lr);
		if (rc == 0 && (rc2 < 0 || rc3 < 0 || r->left[0] || r->left[1] ||
				r->left[2] || r->left[3]))
			rc = GT_ERR(CORRUPT);
	}
	free(r);
	return rc;
}

/* Decode @buf (@len bytes, @n values, table @meta, mode @m) with
 * isa=scalar, vec_isa (where the CPU has it) and ref_decode(): the same
 * rc and, when 0, the same bytes; returns the rc. */
static int dec_both(int m, const unsigned char *meta, size_t mlen,
		    const unsigned char *buf, size_t len, size_t n, float *out)
{
	const int vec = have_vec();
	char os[64], ov[64];
	struct gt_codec_ctx *ds, *dv = NULL;
	float *o2 = malloc(n * 4), *o3 = malloc(n * 4);
	unsigned char *exact = malloc(len ? len : 1);
	int rc, rc2, rc3;

	snprintf(os, sizeof(os), "mode=%s,isa=scalar", modes[m]);
	snprintf(ov, sizeof(ov), "mode=%s%s", modes[m], vec_opt);
	ds = make(GT_DT_F32, os, NULL);
	memcpy(exact, buf, len);
	CHECK_RC(gt_codec_block_load(ds, meta, mlen), 0);
	rc = gt_codec_decode(ds, exact, len, out, n);
	if (vec) {
		dv = make(GT_DT_F32, ov, NULL);
		CHECK_RC(gt_codec_block_load(dv, meta, mlen), 0);
		rc2 = gt_codec_decode(dv, exact, len, o2, n);
		CHECK_RC(rc2, rc);
		CHECK(rc != 0 || !memcmp(out, o2, n * 4));
	}
	rc3 = ref_decode(m, m == M_PRUNE ? (const unsigned[4]){ 0, 0, 0, 0 } : lev32,
			 meta, mlen, exact, len, o3, n);
	/* corrupt chunks: both reject (the code, TRUNCATED or CORRUPT, may
	 * differ: the fast decoder checks the streams' ends once, at the end) */
	CHECK((rc == 0) == (rc3 == 0));
	CHECK(rc < 0 || rc3 < 0 || !memcmp(out, o3, n * 4));
	free(exact);
	free(o2);
	free(o3);
	gt_codec_free(ds);
	gt_codec_free(dv);
	return rc;
}

/*
 * The f32 decoder's pass-2 paths (isa=scalar, vec_isa) give the
 * same values, and the values of the encoder's levels, in every mode, for
 * blocks without a multi-symbol table and with each of its widths (one
 * chunk a block), with and without escapes, in chunks of one code stream
 * and, from 8192 values, split (format 1.5: the same values); on flipped
 * bytes both give the same rc and values.
 */
/* 20 single-bit flips of @buf, each decoded by dec_both(). */
static void flip_both(int m, const unsigned char *meta, size_t ml, unsigned char *buf,
		      size_t len, size_t n, float *out)
{
	for (int k = 0; k < 20; k++) {
		const uint64_t r = check_rand();
		const unsigned char keep = buf[r % len];

		buf[r % len] ^= (unsigned char)(1u << (r >> 32) % 8);
		(void)dec_both(m, meta, ml, buf, len, n, out);
		buf[r % len] = keep;
	}
}

/*
 * Split chunk @buf made hostile: each of its three code stream sizes
 * past the chunk's end, part 0's one byte longer, and the chunk cut
 * where each of parts 1 to 3 starts: every decoder refuses (dec_both()
 * checks that they agree).
 */
static void split_damage(int m, const unsigned char *meta, size_t ml, unsigned char *buf,
			 size_t len, size_t n, float *out)
{
	struct ref_dec *r = calloc(1, sizeof(*r));
	unsigned char keep[12];
	size_t t0, at;

	CHECK(r != NULL);
	memcpy(r->lev, m == M_PRUNE ? (const unsigned[4]){ 0, 0, 0, 0 } : lev32,
	       sizeof(r->lev));
	r->prune = m == M_PRUNE;
	CHECK_RC(ref_open(r, buf, buf + len, n), 0);
	t0 = (size_t)(r->cr.start - buf);
	free(r);
	memcpy(keep, buf + t0, 12);
	for (int j = 0; j < 3; j++) {
		const uint32_t big = (uint32_t)(len - t0 - 12 + 1);

		for (int b = 0; b < 4; b++)
			buf[t0 + 4 * j + b] = (unsigned char)(big >> 8 * b);
		CHECK(dec_both(m, meta, ml, buf, len, n, out) != 0);
		memcpy(buf + t0, keep, 12);
	}
	buf[t0] = (unsigned char)(buf[t0] + 1);
	(void)dec_both(m, meta, ml, buf, len, n, out);
	memcpy(buf + t0, keep, 12);
	at = t0 + 12;
	for (int j = 0; j < 3; j++) {
		at += le32(keep + 4 * j);
		CHECK(dec_both(m, meta, ml, buf, at, n, out) != 0);
	}
	CHECK(dec_both(m, meta, ml, buf, len - 1, n, out) != 0);
}

/*
 * @g coded again by @enc as a split chunk (meta @meta with first byte 2):
 * the same bytes with isa=vec_isa, the values @want (the unsplit chunk's) from
 * every decoder; then flipped bits, the stream sizes made too large and
 * every truncation at a part's end.
 */
static void split_decode(struct gt_codec_ctx *enc, const struct gt_optim *o, int m,
			 const unsigned char *meta, size_t ml, const float *g, size_t n,
			 const struct gt_codec_aux *aux, const float *want)
{
	const size_t cap = gt_codec_bound(enc, n);
	unsigned char sm[GT_CODEC_META_MAX], *buf = malloc(cap), *vbuf = malloc(cap);
	float *out = malloc(n * 4);
	size_t len = 0, vlen = 0;

	memcpy(sm, meta, ml);
	sm[0] = 2;
	CHECK_RC(gt_codec_block_load(enc, sm, ml), 0);
	CHECK_RC(gt_codec_encode_aux(enc, g, n, aux, buf, cap, &len), 0);
	CHECK_RC(dec_both(m, sm, ml, buf, len, n, out), 0);
	CHECK(!memcmp(out, want, n * 4));
	if (have_vec()) {
		char ov[64];
		struct gt_codec_ctx *v;

		snprintf(ov, sizeof(ov), "mode=%s%s", modes[m], vec_opt);
		v = make(GT_DT_F32, ov, o);
		CHECK_RC(gt_codec_block_load(v, sm, ml), 0);
		CHECK_RC(gt_codec_encode_aux(v, g, n, aux, vbuf, cap, &vlen), 0);
		CHECK(vlen == len && !memcmp(buf, vbuf, len));
		gt_codec_free(v);
	}
	flip_both(m, sm, ml, buf, len, n, out);
	split_damage(m, sm, ml, buf, len, n, out);
	free(buf);
	free(vbuf);
	free(out);
}

static void test_isa_decode(void)
{
	static const size_t sizes[] = { 1000, 3000, 5000, 8192, 20000, 40000, 65536 };
	static const char *const extra[] = { "", ",maxlen=9" };
	const size_t nmax = 65536;
	float *g = malloc(nmax * 4), *p = malloc(nmax * 4), *out = malloc(nmax * 4);

	if (!have_vec())
		printf("test_isa_decode: isa=%s not available here, scalar alone\n", vec_isa);
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		const size_t n = sizes[z];

		dec_values_fill(g, p, n);
		for (int m = 0; m < NMODES; m++) {
			for (int x = 0; x < 2; x++) {
				const struct gt_optim o = sgd(0.01);
				const struct gt_codec_aux aux = { .param = p, .state = { NULL, NULL } };
				unsigned char meta[GT_CODEC_META_MAX], *buf;
				struct gt_codec_ctx *enc;
				char opts[64];
				size_t ml = 0, len = 0, bad = 0;

				snprintf(opts, sizeof(opts), "mode=%s%s,isa=scalar", modes[m], extra[x]);
				enc = make(GT_DT_F32, opts, &o);
				buf = malloc(gt_codec_bound(enc, n));
				CHECK_RC(gt_codec_block_begin(enc, g, n, meta, sizeof(meta), &ml), 0);
				CHECK(meta[0] == 1);
				CHECK_RC(gt_codec_encode_aux(enc, g, n, &aux, buf,
							     gt_codec_bound(enc, n), &len), 0);
				CHECK_RC(dec_both(m, meta, ml, buf, len, n, out), 0);
				for (size_t i = 0; i < n; i++)
					bad += !dec_value_ok(m, gt_f32_bits(g[i]), gt_f32_bits(out[i]));
				CHECK(bad == 0);
				CHECK(m != M_EXACT || same_step(&o, g, out, p, n));
				if (n >= 8192)
					split_decode(enc, &o, m, meta, ml, g, n, &aux, out);
				flip_both(m, meta, ml, buf, len, n, out);
				free(buf);
				gt_codec_free(enc);
			}
		}
	}
	free(g);
	free(p);
	free(out);
}

/* Meta 2 (split chunks) is for f32 alone; with it a chunk under 8192
 * values keeps one code stream (the bytes of meta 1). */
static void test_split_meta(void)
{
	static const size_t n = 8191;
	const struct gt_optim o = sgd(0.01);
	double d[64];
	float *g = malloc(n * 4), *p = malloc(n * 4);
	const struct gt_codec_aux aux = { .param = p, .state = { NULL, NULL } };
	struct gt_codec_ctx *f64 = make(GT_DT_F64, "mode=zero-prune", NULL);
	struct gt_codec_ctx *enc = make(GT_DT_F32, NULL, &o);
	unsigned char meta[GT_CODEC_META_MAX], *a, *b;
	size_t ml = 0, la = 0, lb = 0;

	for (int i = 0; i < 64; i++)
		d[i] = i / 7.0;
	CHECK_RC(gt_codec_block_begin(f64, d, 64, meta, sizeof(meta), &ml), 0);
	CHECK(meta[0] == 1);
	meta[0] = 2;
	CHECK_RC(gt_codec_block_load(f64, meta, ml), GT_ERR(CORRUPT));
	dec_values_fill(g, p, n);
	a = malloc(gt_codec_bound(enc, n));
	b = malloc(gt_codec_bound(enc, n));
	CHECK_RC(gt_codec_block_begin(enc, g, n, meta, sizeof(meta), &ml), 0);
	CHECK_RC(gt_codec_encode_aux(enc, g, n, &aux, a, gt_codec_bound(enc, n), &la), 0);
	meta[0] = 2;
	CHECK_RC(gt_codec_block_load(enc, meta, ml), 0);
	CHECK_RC(gt_codec_encode_aux(enc, g, n, &aux, b, gt_codec_bound(enc, n), &lb), 0);
	CHECK(la == lb && !memcmp(a, b, la));
	free(a);
	free(b);
	free(g);
	free(p);
	gt_codec_free(f64);
	gt_codec_free(enc);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_options);
	RUN(test_hand);
	RUN(test_flush_bytes);
	RUN(test_delta_levels);
	RUN(test_needs_aux);
	RUN(test_roundtrips);
	RUN(test_f32_tables);
	RUN(test_hostile);
	RUN(test_bound);
	RUN(test_split_meta);
	RUN(test_traces);
	/* the kernels of each instruction set against the scalar path; the
	 * AVX2 ones run on a CPU with AVX-512 too */
	for (int v = 0; v < 2; v++) {
		vec_isa = v ? "avx2" : "avx512";
		snprintf(vec_opt, sizeof(vec_opt), ",isa=%s", vec_isa);
		printf("test_gcomp: the %s kernels\n", vec_isa);
		RUN(test_isa_random);
		RUN(test_isa_extremes);
		RUN(test_isa_tiny_sum);
		RUN(test_isa_traces);
		RUN(test_isa_decode);
	}
	return check_done("test_gcomp");
}
