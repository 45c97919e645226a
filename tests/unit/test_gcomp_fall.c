/* test_gcomp_fall.c - gcomp's fallback to huffexp's coding of a block */
#include <math.h>

#include "check.h"
#include "../../lib/gt_codec.h"
#include "../../lib/gt_float.h"
#include "../../lib/codecs/gcomp_impl.h"
#include "../../lib/banned.h"

#define ROWS 512
#define ROW 16
#define N (ROWS * ROW)
#define DEFAULT_CHUNK 65536

/* A block as coded: its meta, its chunks back to back, their lengths. */
struct blk {
	unsigned char meta[GT_CODEC_META_MAX];
	size_t mlen, total, nch, len[64];
	unsigned char *data;
};

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

static struct gt_codec_ctx *make(const char *codec, const char *opts,
				 const struct gt_optim *o, size_t row_len)
{
	struct gt_codec_params p = { GT_DT_F32, opts, NULL, 0, o, row_len };
	struct gt_codec_ctx *ctx = NULL;
	struct gt_diag d = { "" };

	CHECK_RC(gt_codec_new(gt_codec_find(codec), &p, &ctx, &d), 0);
	return ctx;
}

/* Code the @n values at @src with @ctx (block aux @param, may be NULL)
 * in chunks of @chunk into @b; @with_aux: block_begin gets the aux. */
static int interleave; /* code(): decode each chunk after it, same context */

static void code(struct gt_codec_ctx *ctx, const float *src, size_t n, const float *param,
		 size_t chunk, int with_aux, struct blk *b)
{
	const struct gt_codec_aux ba = { .param = param };
	size_t off = 0;

	b->data = malloc(2 * gt_codec_bound(ctx, n) + 64 * 64);
	CHECK_RC(gt_codec_block_begin_aux(ctx, src, n, with_aux && param ? &ba : NULL, b->meta,
					  sizeof(b->meta), &b->mlen), 0);
	CHECK_RC(gt_codec_block_load(ctx, b->meta, b->mlen), 0);
	b->nch = 0;
	for (size_t i = 0; i < n; i += chunk) {
		const size_t k = n - i < chunk ? n - i : chunk;
		const struct gt_codec_aux a = { .param = param ? param + i : NULL };

		CHECK_RC(gt_codec_encode_aux(ctx, src + i, k, param ? &a : NULL, b->data + off,
					     gt_codec_bound(ctx, k), &b->len[b->nch]), 0);
		if (interleave) {
			/* the .gtz writer decodes each chunk with the encoder's
			 * context (the CRC of a lossy codec's values) */
			float *tmp = malloc(k * 4 + 1);

			CHECK_RC(gt_codec_decode(ctx, b->data + off, b->len[b->nch], tmp, k), 0);
			free(tmp);
		}
		off += b->len[b->nch++];
	}
	b->total = b->mlen + off;
}

/* Decode @b (chunks of @chunk) with a fresh gcomp context into @out;
 * the stats of its chunks into @st. */
static void decode(const struct blk *b, size_t n, size_t chunk, float *out, uint64_t *st)
{
	struct gt_codec_ctx *dec = make("gcomp", NULL, NULL, 0);
	size_t off = 0;

	memset(st, 0, GT_CODEC_STATS_MAX * sizeof(*st));
	CHECK_RC(gt_codec_block_load(dec, b->meta, b->mlen), 0);
	for (size_t c = 0, i = 0; i < n; i += chunk, c++) {
		const size_t k = n - i < chunk ? n - i : chunk;
		unsigned char *exact = malloc(b->len[c] ? b->len[c] : 1);

		memcpy(exact, b->data + off, b->len[c]);
		CHECK_RC(gt_codec_decode(dec, exact, b->len[c], out + i, k), 0);
		CHECK_RC(gt_codec_chunk_stats(dec, exact, b->len[c], k, st), 0);
		off += b->len[c];
		free(exact);
	}
	gt_codec_free(dec);
}

static int same(const struct blk *a, const struct blk *b)
{
	return a->mlen == b->mlen && a->total == b->total && !memcmp(a->meta, b->meta, a->mlen) &&
	       !memcmp(a->data, b->data, a->total - a->mlen);
}

/* The three blocks: dense with a large parameter (gcomp truncates, wins),
 * dense with a tiny one (level 0 everywhere: its level bits lose),
 * sparse rows (huffexp codes the zero rows as a bitmap). */
enum { DENSE_WIN, DENSE_LOSE, SPARSE, NDATA };

static void data(int kind, float *g, float *param)
{
	for (size_t i = 0; i < N; i++) {
		const uint64_t r = check_rand();

		g[i] = gt_f32_from_bits((uint32_t)(r >> 63) << 31 | (uint32_t)(110 + r % 12) << 23 |
					(uint32_t)(r >> 8 & 0x7fffff));
		param[i] = kind == DENSE_WIN ? (float)(1 + (double)(r >> 40 & 0xff) / 256) : 1e-30f;
		if (kind == SPARSE && (i / ROW) % 10)
			g[i] = 0;
	}
}

/* Fallback chosen where huffexp is smaller, bytes then huffexp's (first
 * byte XOR 0x3f); not chosen where gcomp wins (a block of 8192 values:
 * meta 2, split chunks, where block_begin without aux writes 1); never
 * larger; lossless. */
static void test_choice(void)
{
	const struct gt_optim o = sgd(1e-3);
	float *g = malloc(N * 4), *param = malloc(N * 4), *back = malloc(N * 4);
	uint64_t st[GT_CODEC_STATS_MAX];

	for (int kind = 0; kind < NDATA; kind++) {
		struct gt_codec_ctx *gc = make("gcomp", NULL, &o, ROW);
		struct gt_codec_ctx *hx = make("huffexp", NULL, NULL, ROW);
		struct blk bg, bh;
		size_t zeros = 0;

		data(kind, g, param);
		code(gc, g, N, param, DEFAULT_CHUNK, 1, &bg);
		code(hx, g, N, NULL, DEFAULT_CHUNK, 0, &bh);
		CHECK(bg.total <= bh.total);
		CHECK((bg.meta[0] == 2) == (kind == DENSE_WIN));
		decode(&bg, N, DEFAULT_CHUNK, back, st);
		if (kind == DENSE_WIN) {
			unsigned char m1[GT_CODEC_META_MAX];
			size_t l1 = 0;

			CHECK_RC(gt_codec_block_begin(gc, g, N, m1, sizeof(m1), &l1), 0);
			CHECK(l1 == bg.mlen && m1[0] == 1 && !memcmp(m1 + 1, bg.meta + 1, l1 - 1));
			CHECK(bg.total < bh.total * 9 / 10);
			CHECK(st[3] > N / 2); /* truncated at the top level */
		} else {
			bh.meta[0] ^= 0x3f;
			CHECK(same(&bg, &bh));
			CHECK(!memcmp(back, g, N * 4));
			for (size_t i = 0; i < N; i++)
				zeros += !(gt_f32_bits(g[i]) << 1);
			CHECK(st[0] == N - zeros && st[4] == zeros && !st[1] && !st[2] && !st[3]);
		}
		free(bg.data);
		free(bh.data);
		gt_codec_free(gc);
		gt_codec_free(hx);
	}
	free(g);
	free(param);
	free(back);
}

/* Blocks of several of gcomp's histogram slices (65536 values), with and
 * without a run of zeros across a slice's end: the fallback's bytes are
 * huffexp's own (its table the same, whether counted by gcomp or itself). */
static void test_big_block(void)
{
	const size_t n = 3 * 65536 + 77;
	const struct gt_optim o = sgd(1e-3);
	float *g = malloc(n * 4), *param = malloc(n * 4), *back = malloc(n * 4);
	uint64_t st[GT_CODEC_STATS_MAX];

	/* zero runs [lo, hi): none; across one slice end, pieces >= and < 8
	 * (GT_HUFF_RUN_MIN); one over a whole slice and two ends */
	static const size_t runs[4][2] = { { 0, 0 }, { 65536 - 40, 65536 + 40 },
		{ 65536 - 3, 65536 + 6 }, { 65536 - 3, 2 * 65536 + 2 } };

	for (int run = 0; run < 4; run++) {
		struct gt_codec_ctx *gc = make("gcomp", NULL, &o, 0);
		struct gt_codec_ctx *hx = make("huffexp", NULL, NULL, 0);
		struct blk bg, bh;

		for (size_t i = 0; i < n; i++) {
			const uint64_t r = check_rand();

			g[i] = gt_f32_from_bits((uint32_t)(r >> 63) << 31 |
						(uint32_t)(110 + r % 12) << 23 |
						(uint32_t)(r >> 8 & 0x7fffff));
			param[i] = 1e-30f;
			if (r % 5 == 0 || (i >= runs[run][0] && i < runs[run][1]))
				g[i] = 0;
			if (run && (i == runs[run][0] - 1 || i == runs[run][1]))
				g[i] = 1.5f; /* the run is exactly [lo, hi) */
		}
		code(gc, g, n, param, DEFAULT_CHUNK, 1, &bg);
		code(hx, g, n, NULL, DEFAULT_CHUNK, 0, &bh);
		bh.meta[0] ^= 0x3f;
		CHECK(same(&bg, &bh));
		decode(&bg, n, DEFAULT_CHUNK, back, st);
		CHECK(!memcmp(back, g, n * 4));
		free(bg.data);
		free(bh.data);
		gt_codec_free(gc);
		gt_codec_free(hx);
	}
	free(g);
	free(param);
	free(back);
}

/* Every mode and isa: each isa gives the bytes of the scalar code on all
 * three blocks; the sparse block falls back in every mode, to the same
 * bytes (huffexp's). */
static void test_modes_isas(void)
{
	static const char *const modes[] = { "full", "single-quant", "multi-quant",
		"zero-prune", "exact" };
	static const char *const isas[] = { "scalar", "avx2", "avx512" };
	const struct gt_optim o = sgd(1e-3);
	float *g = malloc(N * 4), *param = malloc(N * 4);
	struct blk first = { .data = NULL };
	char opts[64];

	for (int kind = 0; kind < NDATA; kind++) {
		data(kind, g, param);
		for (size_t m = 0; m < 5; m++) {
			struct blk ref, b;

			for (size_t k = 0; k < 3; k++) {
				struct gt_codec_params p = { GT_DT_F32, opts, NULL, 0, &o, ROW };
				struct gt_codec_ctx *ctx = NULL;
				struct gt_diag d = { "" };

				snprintf(opts, sizeof(opts), "mode=%s,isa=%s", modes[m], isas[k]);
				if (gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d) < 0) {
					CHECK(k > 0); /* an isa this CPU lacks */
					continue;
				}
				code(ctx, g, N, param, DEFAULT_CHUNK, 1, k ? &b : &ref);
				if (k) {
					CHECK(same(&ref, &b));
					free(b.data);
				}
				gt_codec_free(ctx);
			}
			if (kind == SPARSE) {
				CHECK(ref.meta[0] != 1);
				if (m)
					CHECK(same(&first, &ref));
			}
			if (kind == SPARSE && !m)
				first = ref;
			else
				free(ref.data);
		}
	}
	free(first.data);
	free(g);
	free(param);
}

/* Chunks decode in any chunking, also decoded by the encoder's context
 * between them, and the chunks block_begin kept give the bytes of a
 * context that codes them afresh. */
static void test_chunkings(void)
{
	static const size_t chunks[] = { 1000, 4096, N, DEFAULT_CHUNK };
	const struct gt_optim o = sgd(1e-3);
	float *g = malloc(N * 4), *param = malloc(N * 4), *back = malloc(N * 4);
	uint64_t st[GT_CODEC_STATS_MAX];

	for (int kind = 0; kind < NDATA; kind++) {
		data(kind, g, param);
		for (size_t c = 0; c < 4; c++) {
			struct gt_codec_ctx *a = make("gcomp", NULL, &o, ROW);
			struct gt_codec_ctx *f = make("gcomp", NULL, &o, ROW);
			struct blk ba, bf;

			struct blk bi;

			code(a, g, N, param, chunks[c], 1, &ba);
			decode(&ba, N, chunks[c], back, st);
			interleave = 1;
			code(a, g, N, param, chunks[c], 1, &bi);
			interleave = 0;
			CHECK(same(&ba, &bi));
			free(bi.data);
			if (kind != DENSE_WIN)
				CHECK(!memcmp(back, g, N * 4));
			/* no aux at block_begin: gcomp's own block, coded afresh */
			code(f, g, N, param, chunks[c], 0, &bf);
			if (kind == DENSE_WIN)
				CHECK(same(&ba, &bf));
			free(ba.data);
			free(bf.data);
			gt_codec_free(a);
			gt_codec_free(f);
		}
	}
	free(g);
	free(param);
	free(back);
}

/* Random blocks, sparse and dense, of random sizes: never larger than
 * huffexp's at the default chunk size. */
static void test_never_larger(void)
{
	const struct gt_optim o = sgd(1e-2);
	float *g = malloc(N * 4), *param = malloc(N * 4);

	for (int t = 0; t < 40; t++) {
		const size_t n = 1 + check_rand() % N, zevery = 1 + check_rand() % 4;
		struct gt_codec_ctx *gc = make("gcomp", NULL, &o, ROW);
		struct gt_codec_ctx *hx = make("huffexp", NULL, NULL, ROW);
		struct blk bg, bh;

		for (size_t i = 0; i < n; i++) {
			const uint64_t r = check_rand();

			g[i] = (float)ldexp((double)(r >> 40) / 16777216.0 - 0.5, -(int)(r % 20));
			param[i] = (float)ldexp(1.0, (int)(r >> 8 & 31) - 24);
			if ((i / ROW) % zevery)
				g[i] = 0;
		}
		code(gc, g, n, param, DEFAULT_CHUNK, 1, &bg);
		code(hx, g, n, NULL, DEFAULT_CHUNK, 0, &bh);
		CHECK(bg.total <= bh.total);
		free(bg.data);
		free(bh.data);
		gt_codec_free(gc);
		gt_codec_free(hx);
	}
	free(g);
	free(param);
}

/* A value of dtype @dt from @r: zero (runs and single ones), subnormal,
 * Inf, or normal in a band of exponents. */
static uint64_t any_value(enum gt_dtype dt, uint64_t r, size_t i, size_t zrun)
{
	const unsigned eb = gt_dtype_exp_bits(dt), mb = gt_dtype_man_bits(dt);
	const uint64_t man = (r >> 8) & ((UINT64_C(1) << mb) - 1);
	const uint64_t sign = (r >> 63) << (eb + mb);
	const uint64_t emax = (UINT64_C(1) << eb) - 1;

	if ((zrun && (i / zrun) % 3 == 1) || r % 11 == 0)
		return r % 13 == 0 ? sign : 0;
	if (r % 97 == 0)
		return sign | (man ? man : 1); /* subnormal */
	if (r % 499 == 0)
		return sign | emax << mb; /* Inf */
	return sign | (emax / 2 - 6 + (r >> 20) % 10) << mb | man;
}

/* gc_own_bounds() holds the bytes of a block's one chunk as written, in
 * every dtype and mode, with runs, subnormals and Inf, split or not;
 * the upper bound is known unless exact mode may prune a subnormal. */
static void test_bounds(void)
{
	static const enum gt_dtype dts[] = { GT_DT_F32, GT_DT_BF16, GT_DT_F16, GT_DT_F64 };
	static const char *const modes[] = { "full", "single-quant", "multi-quant",
		"zero-prune", "exact" };
	const struct gt_optim o = sgd(1e-3);
	const size_t nmax = 20000;
	unsigned char *v = malloc(nmax * 8), meta[GT_CODEC_META_MAX];
	float *param = malloc(nmax * 4);
	double *param64 = malloc(nmax * 8);

	for (int t = 0; t < 60; t++) {
		const enum gt_dtype dt = dts[t % 4];
		const size_t n = t % 3 ? 1 + check_rand() % 3000 : 8192 + check_rand() % 11000;
		const size_t zrun = check_rand() % 4 ? 0 : 1 + check_rand() % 40;
		const struct gt_codec_aux aux = { .param = param,
						  .param64 = dt == GT_DT_F64 ? param64 : NULL };
		char opts[64];
		int subs = 0;

		for (size_t i = 0; i < n; i++) {
			const uint64_t r = check_rand(), u = any_value(dt, r, i, zrun);
			const unsigned mb = gt_dtype_man_bits(dt);
			const uint64_t emask = ((UINT64_C(1) << gt_dtype_exp_bits(dt)) - 1) << mb;
			const uint64_t mag = (UINT64_C(1) << (gt_dtype_exp_bits(dt) + mb)) - 1;

			gt_fp_store(v, dt, i, u);
			subs |= !(u & emask) && (u & mag);
			param[i] = (float)ldexp(1.0, (int)(r >> 30 & 31) - 20);
			param64[i] = param[i];
		}
		for (size_t m = 0; m < 5; m++) {
			struct gt_codec_params p = { dt, opts, NULL, 0, &o, 0 };
			struct gt_codec_ctx *ctx = NULL;
			struct gt_diag d = { "" };
			struct gc_ctx *c;
			unsigned char *out;
			uint64_t cnt[4], lo, hi;
			size_t mlen, len = 0, cap;

			snprintf(opts, sizeof(opts), "mode=%s", modes[m]);
			CHECK_RC(gt_codec_new(gt_codec_find("gcomp"), &p, &ctx, &d), 0);
			c = gc(ctx);
			cap = gc_own_bound(ctx, n);
			out = malloc(cap);
			CHECK_RC(gc_own_begin(ctx, v, n, 1, meta, sizeof(meta), &mlen), 0);
			CHECK_RC(gc_chunk_levels(c, v, n, &aux, cnt), 0);
			gc_own_bounds(c, n, cnt, &lo, &hi);
			CHECK_RC(gc_chunk_write(c, n, cnt, out, cap, &len), 0);
			CHECK(lo <= len && len <= hi);
			CHECK(hi < UINT64_MAX || (m == 4 && subs));
			/* tight: the code stream's padding and the cut runs */
			CHECK(hi == UINT64_MAX || hi - len <= 64);
			free(out);
			gt_codec_free(ctx);
		}
	}
	free(v);
	free(param);
	free(param64);
}

/* A block of one chunk whose bytes block_begin left to the encode: a
 * chunk coded in between (a copy of the values elsewhere, or the chunk
 * itself twice) does not change what the block's chunk gets. */
static void test_deferred(void)
{
	const struct gt_optim o = sgd(1e-3);
	float *g = malloc(N * 4), *param = malloc(N * 4), *copy = malloc(N * 4);
	float *tiny = malloc(N * 4);
	const struct gt_codec_aux a = { .param = param }, t = { .param = tiny };
	unsigned char meta[GT_CODEC_META_MAX];
	size_t mlen, cap, len[4];
	unsigned char *out[4];
	struct gt_codec_ctx *ctx = make("gcomp", NULL, &o, ROW);
	struct gt_codec_ctx *fresh = make("gcomp", NULL, &o, ROW);
	struct blk ref;

	data(DENSE_WIN, g, param);
	code(fresh, g, N, param, DEFAULT_CHUNK, 0, &ref);
	gt_codec_free(fresh);
	cap = gt_codec_bound(ctx, N);
	for (int k = 0; k < 4; k++)
		out[k] = malloc(cap);
	/* a copy elsewhere, with a tiny parameter: other levels (all 0) */
	memcpy(copy, g, N * 4);
	for (size_t i = 0; i < N; i++)
		tiny[i] = 1e-30f;
	CHECK_RC(gt_codec_block_begin_aux(ctx, g, N, &a, meta, sizeof(meta), &mlen), 0);
	CHECK(mlen == ref.mlen && !memcmp(meta, ref.meta, mlen));
	CHECK_RC(gt_codec_block_load(ctx, meta, mlen), 0);
	CHECK_RC(gt_codec_encode_aux(ctx, copy, N, &t, out[0], cap, &len[0]), 0);
	CHECK_RC(gt_codec_encode_aux(ctx, g, N, &a, out[1], cap, &len[1]), 0);
	CHECK_RC(gt_codec_encode_aux(ctx, g, N, &a, out[2], cap, &len[2]), 0);
	CHECK(len[1] == ref.total - ref.mlen && !memcmp(out[1], ref.data, len[1]));
	CHECK(len[2] == len[1] && !memcmp(out[2], out[1], len[1]));
	CHECK(len[0] > len[1]); /* no level dropped a bit */
	/* and straight after block_begin, as the .gtz writer does */
	CHECK_RC(gt_codec_block_begin_aux(ctx, g, N, &a, meta, sizeof(meta), &mlen), 0);
	CHECK_RC(gt_codec_block_load(ctx, meta, mlen), 0);
	CHECK_RC(gt_codec_encode_aux(ctx, g, N, &a, out[3], cap, &len[3]), 0);
	CHECK(len[3] == len[1] && !memcmp(out[3], out[1], len[1]));
	for (int k = 0; k < 4; k++)
		free(out[k]);
	free(ref.data);
	gt_codec_free(ctx);
	free(g);
	free(param);
	free(copy);
	free(tiny);
}

/* Fallback metas that are not huffexp's: refused, not a crash; a
 * huffexp block's meta with its first byte flipped: loaded. */
static void test_metas(void)
{
	struct gt_codec_ctx *dec = make("gcomp", NULL, NULL, 0);
	struct gt_codec_ctx *hx = make("huffexp", NULL, NULL, 0);
	static const unsigned char zs_short[1] = { 0xff ^ 0x3f }, short_table[3] = { 2, 1, 2 };
	unsigned char meta[GT_CODEC_META_MAX];
	float v[64];
	size_t len;

	CHECK_RC(gt_codec_block_load(dec, zs_short, 1), GT_ERR(CORRUPT));
	CHECK_RC(gt_codec_block_load(dec, short_table, 3), GT_ERR(TRUNCATED));
	for (int i = 0; i < 64; i++)
		v[i] = (float)i / 7;
	CHECK_RC(gt_codec_block_begin(hx, v, 64, meta, sizeof(meta), &len), 0);
	/* k = 52 at most: its flipped byte is never 1 or 2, a gcomp table's */
	CHECK(len > 1 && (meta[0] ^ 0x3f) != 1 && (meta[0] ^ 0x3f) != 2);
	meta[0] ^= 0x3f;
	CHECK_RC(gt_codec_block_load(dec, meta, len), 0);
	meta[len] = 0;
	CHECK_RC(gt_codec_block_load(dec, meta, len + 1), GT_ERR(CORRUPT));
	gt_codec_free(dec);
	gt_codec_free(hx);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_choice);
	RUN(test_big_block);
	RUN(test_modes_isas);
	RUN(test_chunkings);
	RUN(test_never_larger);
	RUN(test_metas);
	RUN(test_bounds);
	RUN(test_deferred);
	return check_done("test_gcomp_fall");
}
