/* bench_codec.c - single-thread codec throughput on f32 data, against zstd -3 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <zstd.h>

#include "gt_bitio.h"
#include "gt_codec.h"
#include "gt_huff.h"
#include "../../formats/gt_source.h"
#include "../../formats/gt_trace.h"

/*
 * usage: bench_codec [--repeat N] [--codec NAME[:opts]]... [--values N]
 *	[--zeros P] [--optim adam|momentum|...] [--wd X]
 *	[--isa portable|avx2|avx512] FILE.f32|--synthetic|--trace FILE.h5
 *
 * --isa runs the codecs' hot loops (tfp, rangeq, fft's rangeq, huffexp's
 * histogram) with that instruction set (gt_codec_set_isa) instead of the
 * best the CPU has; gcomp takes its own option, gcomp:isa=avx2.
 *
 * Codecs that need the optimizer context (gcomp) get it through
 * gt_codec_encode_aux(): --synthetic and FILE.f32 make a param and two
 * states (exp_avg, exp_avg_sq, or the momentum buffer) from a fixed seed
 * and use --optim (default adam, lr 1e-3, t = 10; --wd the weight decay,
 * default 0); --trace reads every f32 gradient of a sample trace with its
 * param, states and the step's optimizer (gt_trace.h), repeated (copies)
 * until --values values (default 2^24).  --synthetic makes --values values
 * (default 2^20) with about --zeros P (default 0.28) isolated zeros and
 * a further 0.0075-per-value chance of a run of 1-64 zeros.  Lossy codecs
 * are not checked for a bit-exact round trip.
 *
 * The data is split as the .gtz container does: blocks of 2^20 values
 * (one block_begin per block on encode, one block_load per block on
 * decode) and chunks of 2^16 values.  compress = block_begin + block_load
 * + encode of every chunk; decompress = block_load + decode of every
 * chunk.  zstd level 3 (ZSTD_compressCCtx / ZSTD_decompressDCtx on the
 * same chunks) runs in the same process as the peer.  Speeds are 10^6
 * bytes of original data per second, median (min-max) of N runs.
 */

#define BLOCK_VALS ((size_t)1 << 20)
#define CHUNK_VALS ((size_t)1 << 16)
#define MAX_CODECS 16
#define MAX_REPEAT 1001
#define HMIN(a, b) ((a) < (b) ? (a) : (b))

struct chunk {
	size_t first, n;     /* values */
	size_t block;        /* index of its block */
	size_t block0, bn;   /* its block's first value and length */
	int opt;             /* index of its optimizer */
	int s0, s1;          /* it has states 0, 1 */
	unsigned char *buf;  /* compressed bytes (capacity cap) */
	size_t cap, len;
};

#define MAX_OPTIMS 64
#define MAX_SEGS 4096

/* A tensor: values [first, first + n) of the arrays, one optimizer. */
struct seg {
	size_t first, n;
	int opt, has_state[2];
};

struct data {
	const float *v;
	size_t n;
	float *param, *state[2]; /* indexed like v; NULL: none */
	struct gt_optim optim[MAX_OPTIMS];
	int noptim;
	struct seg seg[MAX_SEGS];
	size_t nseg, per; /* the segments cover [0, per), repeated to n */
	size_t nblocks, nchunks;
	struct chunk *ch;
	float *back;
};

struct result {
	const char *name;
	double ratio;
	double c_med, c_min, c_max; /* MB/s */
	double d_med, d_min, d_max;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* MB/s of @n seconds samples over @bytes: median, min, max. */
static void summarize(double *t, int n, size_t bytes, double *med, double *lo,
		      double *hi)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	*med = (double)bytes / 1e6 / t[n / 2];
	*lo = (double)bytes / 1e6 / t[n - 1];
	*hi = (double)bytes / 1e6 / t[0];
}

/* xorshift128+ and Box-Muller: fixed seed, reproducible. */
static uint64_t rs[2] = { 0x9e3779b97f4a7c15u, 0xd1b54a32d192ed03u };

static uint64_t rnd(void)
{
	uint64_t a = rs[0];
	const uint64_t b = rs[1];

	rs[0] = b;
	a ^= a << 23;
	rs[1] = a ^ b ^ (a >> 17) ^ (b >> 26);
	return rs[1] + b;
}

static double unif(void)
{
	return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0);
}

static double randn(void)
{
	const double r = sqrt(-2.0 * log(1.0 - unif()));

	return r * cos(2.0 * M_PI * unif());
}

/*
 * randn * 1e-3 with about @zeros isolated exact zeros and runs (length
 * 1..64, as dead units or pruned rows give; 0.0075 a value).
 */
static float *synthetic(size_t n, double zeros)
{
	float *v = malloc(n * sizeof(*v));
	size_t i = 0;

	if (!v)
		return NULL;
	while (i < n) {
		const double u = unif();

		if (u < 0.0075) {
			size_t len = 1 + (size_t)(rnd() % 64);

			for (; len && i < n; len--)
				v[i++] = 0.0f;
		} else if (u < 0.0075 + zeros) {
			v[i++] = 0.0f;
		} else {
			v[i++] = (float)(1e-3 * randn());
		}
	}
	return v;
}

/* A param, and states as @o's kind keeps them after some steps on @g. */
static int synthetic_aux(struct data *d, const struct gt_optim *o)
{
	const int ns = gt_optim_nstates(o->kind);

	d->param = malloc(d->n * sizeof(float));
	for (int k = 0; k < ns; k++)
		d->state[k] = malloc(d->n * sizeof(float));
	if (!d->param || (ns > 0 && !d->state[0]) || (ns > 1 && !d->state[1]))
		return -1;
	for (size_t i = 0; i < d->n; i++) {
		const double g = d->v[i];

		d->param[i] = (float)(0.05 * randn());
		if (ns == 2) {
			d->state[0][i] = (float)(0.3 * g + 1e-4 * randn());
			d->state[1][i] = (float)(g * g * (0.5 + unif()) + 1e-9 * unif());
		} else if (ns == 1) {
			d->state[0][i] = (float)(o->kind == GT_OPT_MOMENTUM ||
							 o->kind == GT_OPT_NESTEROV ?
						 3 * g + 1e-3 * randn() :
						 g * g * (1 + 5 * unif()));
		}
	}
	d->optim[0] = *o;
	d->noptim = 1;
	d->seg[0].first = 0;
	d->seg[0].n = d->n;
	d->seg[0].opt = 0;
	d->seg[0].has_state[0] = ns > 0;
	d->seg[0].has_state[1] = ns > 1;
	d->nseg = 1;
	d->per = d->n;
	return 0;
}

/* One f32 tensor of a trace: grow the arrays at @at (capacity checked). */
static int read_tensor(struct gt_source *s, size_t idx, float *dst, size_t n)
{
	struct gt_diag dg = { "" };
	size_t got = 0;

	if (gt_source_read(s, idx, 0, n, dst, &got, &dg) < 0 || got != n) {
		fprintf(stderr, "bench_codec: %s\n", dg.msg);
		return -1;
	}
	return 0;
}

struct tlist {
	size_t idx[4]; /* grad, param, state 0, state 1 (SIZE_MAX: none) */
	size_t n;
	int opt;
};

/* The f32 gradients of @path with param, states and optimizer, repeated
 * until @want values. */
static int load_trace(struct data *d, const char *path, size_t want)
{
	struct gt_source *s = NULL;
	struct gt_trace *tr = NULL;
	struct gt_diag dg = { "" };
	static struct tlist tl[MAX_SEGS];
	size_t nt = 0, per = 0, at = 0;
	float *v = NULL;
	int rc = -1;

	if (gt_source_open(path, NULL, &s, &dg) < 0 || gt_trace_open(s, &tr, &dg) < 0)
		goto out;
	for (size_t k = 0; k < gt_trace_nsteps(tr) && (int)k < MAX_OPTIMS; k++) {
		const struct gt_trace_step *st = gt_trace_step(tr, k);
		const int ns = gt_optim_nstates(st->optim.kind);

		if (gt_optim_check(&st->optim, st->group, &dg) < 0)
			goto out;
		d->optim[d->noptim] = st->optim;
		for (size_t j = 0; j < st->n_grads && nt < MAX_SEGS; j++) {
			const struct gt_tensor_info *ti = gt_source_info(s, st->grads[j]);
			const char *name = gt_trace_param_name(ti->name);
			struct tlist *t = &tl[nt];

			if (ti->dtype != GT_DT_F32)
				continue;
			t->idx[0] = st->grads[j];
			t->n = (size_t)ti->count;
			t->opt = d->noptim;
			if (gt_trace_find(tr, k, GT_ROLE_PARAM, NULL, name, &t->idx[1], &dg) < 0)
				goto out;
			for (int q = 0; q < 2; q++) {
				t->idx[2 + q] = SIZE_MAX;
				if (q < ns && gt_trace_find(tr, k, GT_ROLE_STATE,
							    gt_optim_state_name(st->optim.kind, q),
							    name, &t->idx[2 + q], &dg) < 0)
					t->idx[2 + q] = SIZE_MAX; /* absent: first step */
			}
			per += t->n;
			nt++;
		}
		d->noptim++;
	}
	if (!per)
		goto out;
	d->n = (want + per - 1) / per * per;
	v = malloc(d->n * sizeof(float));
	d->param = malloc(d->n * sizeof(float));
	d->state[0] = calloc(d->n, sizeof(float));
	d->state[1] = calloc(d->n, sizeof(float));
	if (!v || !d->param || !d->state[0] || !d->state[1])
		goto out;
	for (size_t k = 0; k < nt; k++) {
		const struct tlist *t = &tl[k];
		float *const dst[4] = { v, d->param, d->state[0], d->state[1] };

		for (int q = 0; q < 4; q++)
			if (t->idx[q] != SIZE_MAX && read_tensor(s, t->idx[q], dst[q] + at, t->n) < 0)
				goto out;
		d->seg[d->nseg].first = at;
		d->seg[d->nseg].n = t->n;
		d->seg[d->nseg].opt = t->opt;
		d->seg[d->nseg].has_state[0] = t->idx[2] != SIZE_MAX;
		d->seg[d->nseg].has_state[1] = t->idx[3] != SIZE_MAX;
		d->nseg++;
		at += t->n;
	}
	for (size_t c = per; c < d->n; c += per) /* the copies: setup() repeats the segments */
		for (int q = 0; q < 4; q++) {
			float *const a = q == 0 ? v : q == 1 ? d->param : d->state[q - 2];

			memcpy(a + c, a, per * sizeof(float));
		}
	d->per = per;
	d->v = v;
	v = NULL;
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "bench_codec: %s: %s\n", path, dg.msg[0] ? dg.msg : "no f32 gradients");
	free(v);
	gt_trace_free(tr);
	gt_source_free(s);
	return rc;
}

static float *load_file(const char *path, size_t *n_ret)
{
	FILE *f = fopen(path, "rb");
	float *v = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && len % 4 == 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		v = malloc((size_t)len);
		if (v && fread(v, 1, (size_t)len, f) != (size_t)len) {
			free(v);
			v = NULL;
		}
		*n_ret = (size_t)len / 4;
	}
	fclose(f);
	return v;
}

/* Blocks of each segment (and of each copy), chunks of each block. */
static size_t plan(struct data *d, int fill)
{
	size_t k = 0, nb = 0;

	for (size_t c0 = 0; c0 < d->n; c0 += d->per) {
		for (size_t j = 0; j < d->nseg; j++) {
			const struct seg *sg = &d->seg[j];

			for (size_t b0 = 0; b0 < sg->n; b0 += BLOCK_VALS, nb++) {
				const size_t bn = HMIN(sg->n - b0, BLOCK_VALS);

				for (size_t c = 0; c < bn; c += CHUNK_VALS, k++) {
					struct chunk *ch = &d->ch[k];

					if (!fill)
						continue;
					ch->block0 = c0 + sg->first + b0;
					ch->bn = bn;
					ch->first = ch->block0 + c;
					ch->n = HMIN(bn - c, CHUNK_VALS);
					ch->block = nb;
					ch->opt = sg->opt;
					ch->s0 = sg->has_state[0];
					ch->s1 = sg->has_state[1];
				}
			}
		}
	}
	d->nblocks = nb;
	return k;
}

static int setup(struct data *d)
{
	d->nchunks = plan(d, 0);
	d->ch = calloc(d->nchunks, sizeof(*d->ch));
	d->back = malloc(d->n * sizeof(float) + 1);
	if (!d->ch || !d->back)
		return -1;
	plan(d, 1);
	return 0;
}

/* Give every chunk a buffer of @cap(n) bytes. */
static int alloc_bufs(struct data *d, size_t (*cap)(const void *, size_t),
		      const void *arg)
{
	for (size_t k = 0; k < d->nchunks; k++) {
		free(d->ch[k].buf);
		d->ch[k].cap = cap(arg, d->ch[k].n);
		d->ch[k].buf = malloc(d->ch[k].cap ? d->ch[k].cap : 1);
		if (!d->ch[k].cap || !d->ch[k].buf)
			return -1;
	}
	return 0;
}

static size_t total_len(const struct data *d)
{
	size_t s = 0;

	for (size_t k = 0; k < d->nchunks; k++)
		s += d->ch[k].len;
	return s;
}

/* ---- zstd -3 -------------------------------------------------------------- */

static size_t zstd_cap(const void *arg, size_t n)
{
	(void)arg;
	return ZSTD_compressBound(n * sizeof(float));
}

static int bench_zstd(struct data *d, int reps, struct result *r)
{
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	double tc[MAX_REPEAT], td[MAX_REPEAT];
	int rc = -1;

	if (!cc || !dc || alloc_bufs(d, zstd_cap, NULL) < 0)
		goto out;
	for (int rep = 0; rep < reps; rep++) {
		double t0 = now();

		for (size_t k = 0; k < d->nchunks; k++) {
			struct chunk *c = &d->ch[k];
			const size_t z = ZSTD_compressCCtx(cc, c->buf, c->cap, d->v + c->first,
							   c->n * sizeof(float), 3);

			if (ZSTD_isError(z))
				goto out;
			c->len = z;
		}
		tc[rep] = now() - t0;
		memset(d->back, 0xa5, d->n * sizeof(float));
		t0 = now();
		for (size_t k = 0; k < d->nchunks; k++) {
			const struct chunk *c = &d->ch[k];
			const size_t z = ZSTD_decompressDCtx(dc, d->back + c->first,
							     c->n * sizeof(float), c->buf, c->len);

			if (ZSTD_isError(z) || z != c->n * sizeof(float))
				goto out;
		}
		td[rep] = now() - t0;
		if (memcmp(d->back, d->v, d->n * sizeof(float)))
			goto out;
	}
	r->name = "zstd-3 (libzstd)";
	r->ratio = (double)(d->n * sizeof(float)) / (double)total_len(d);
	summarize(tc, reps, d->n * sizeof(float), &r->c_med, &r->c_min, &r->c_max);
	summarize(td, reps, d->n * sizeof(float), &r->d_med, &r->d_min, &r->d_max);
	rc = 0;
out:
	ZSTD_freeCCtx(cc);
	ZSTD_freeDCtx(dc);
	return rc;
}

/* ---- gtool codecs --------------------------------------------------------- */

struct gctx {
	struct gt_codec_ctx *enc[MAX_OPTIMS], *dec;
	unsigned char (*meta)[GT_CODEC_META_MAX];
	size_t *mlen;
};

static size_t gt_cap(const void *arg, size_t n)
{
	return gt_codec_bound(((const struct gctx *)arg)->enc[0], n);
}

static int compress_all(struct data *d, struct gctx *g)
{
	for (size_t k = 0; k < d->nchunks; k++) {
		struct chunk *c = &d->ch[k];
		struct gt_codec_ctx *const e = g->enc[c->opt];
		const struct gt_codec_aux aux = {
			.param = d->param ? d->param + c->first : NULL,
			.state = { c->s0 ? d->state[0] + c->first : NULL,
				   c->s1 ? d->state[1] + c->first : NULL }
		};

		if (k == 0 || c->block != d->ch[k - 1].block) {
			const size_t b = c->block;
			/* the block's optimizer context, as the .gtz writer gives it */
			const struct gt_codec_aux ba = {
				.param = d->param ? d->param + c->block0 : NULL,
				.state = { c->s0 ? d->state[0] + c->block0 : NULL,
					   c->s1 ? d->state[1] + c->block0 : NULL }
			};

			if (gt_codec_block_begin_aux(e, d->v + c->block0, c->bn,
						     d->param ? &ba : NULL, g->meta[b],
						     GT_CODEC_META_MAX, &g->mlen[b]) < 0 ||
			    gt_codec_block_load(e, g->meta[b], g->mlen[b]) < 0)
				return -1;
		}
		if (gt_codec_encode_aux(e, d->v + c->first, c->n, d->param ? &aux : NULL,
					c->buf, c->cap, &c->len) < 0)
			return -1;
	}
	return 0;
}

static int decompress_all(struct data *d, struct gctx *g)
{
	for (size_t k = 0; k < d->nchunks; k++) {
		const struct chunk *c = &d->ch[k];

		if ((k == 0 || c->block != d->ch[k - 1].block) &&
		    gt_codec_block_load(g->dec, g->meta[c->block], g->mlen[c->block]) < 0)
			return -1;
		if (gt_codec_decode(g->dec, c->buf, c->len, d->back + c->first, c->n) < 0)
			return -1;
	}
	return 0;
}

static enum gt_isa bench_isa; /* --isa, or gt_isa_best() */

static int bench_gt(struct data *d, const char *spec, int reps, struct result *r)
{
	const struct gt_codec *codec;
	struct gt_codec_params p = { GT_DT_F32, "", NULL, 0, NULL, 0 };
	struct gctx g;
	double tc[MAX_REPEAT], td[MAX_REPEAT];
	struct gt_diag dg = { "" };
	int rc = -1, lossless;

	memset(&g, 0, sizeof(g));
	if (gt_codec_spec_parse(spec, &codec, &p.opts, &dg) < 0 ||
	    gt_codec_new(codec, &p, &g.dec, &dg) < 0)
		goto bad;
	gt_codec_set_isa(g.dec, bench_isa);
	lossless = !!(gt_codec_flags(codec) & GT_CODEC_LOSSLESS);
	for (int o = 0; o < d->noptim; o++) {
		p.optim = gt_codec_flags(codec) & GT_CODEC_NEEDS_OPTIM ? &d->optim[o] : NULL;
		if (gt_codec_new(codec, &p, &g.enc[o], &dg) < 0)
			goto bad;
		gt_codec_set_isa(g.enc[o], bench_isa);
	}
	g.meta = malloc(d->nblocks * sizeof(*g.meta));
	g.mlen = calloc(d->nblocks, sizeof(*g.mlen));
	if (!g.meta || !g.mlen || alloc_bufs(d, gt_cap, &g) < 0)
		goto out;
	for (int rep = 0; rep < reps; rep++) {
		double t0 = now();

		if (compress_all(d, &g) < 0) {
			fprintf(stderr, "bench_codec: %s: encode failed\n", spec);
			goto out;
		}
		tc[rep] = now() - t0;
		memset(d->back, 0xa5, d->n * sizeof(float));
		t0 = now();
		if (decompress_all(d, &g) < 0) {
			fprintf(stderr, "bench_codec: %s: decode failed\n", spec);
			goto out;
		}
		td[rep] = now() - t0;
		if (lossless && memcmp(d->back, d->v, d->n * sizeof(float))) {
			fprintf(stderr, "bench_codec: %s: round trip differs\n", spec);
			goto out;
		}
	}
	r->name = spec;
	r->ratio = (double)(d->n * sizeof(float)) / (double)total_len(d);
	summarize(tc, reps, d->n * sizeof(float), &r->c_med, &r->c_min, &r->c_max);
	summarize(td, reps, d->n * sizeof(float), &r->d_med, &r->d_min, &r->d_max);
	rc = 0;
	goto out;
bad:
	fprintf(stderr, "bench_codec: %s: %s\n", spec, dg.msg);
out:
	free(g.meta);
	free(g.mlen);
	for (int o = 0; o < d->noptim; o++)
		gt_codec_free(g.enc[o]);
	gt_codec_free(g.dec);
	return rc;
}

/* Lower bound for an exponent coder: per block, token entropy + run-length
 * bits + 24 sign/mantissa bits per non-zero value. */
static void print_bound(const struct data *d)
{
	static struct gt_huff_hist h;
	double bits = 0, zeros = 0;

	for (size_t b0 = 0; b0 < d->n; b0 += BLOCK_VALS) {
		const size_t bn = d->n - b0 < BLOCK_VALS ? d->n - b0 : BLOCK_VALS;
		double nz = 0;

		gt_huff_hist_init(&h, GT_DT_F32);
		gt_huff_hist(&h, d->v + b0, bn);
		for (unsigned s = 0; s < 256; s++)
			nz += (double)h.count[s];
		bits += gt_huff_entropy(&h) + (double)h.run_bits + 24 * nz;
		zeros += (double)bn - nz;
	}
	printf("values %zu (%.1f MB), %.1f %% ±0.0; entropy bound: ratio %.3f\n",
	       d->n, (double)d->n * 4 / 1e6, 100 * zeros / (double)d->n,
	       (double)d->n * 32 / bits);
}

static void print_result(const struct result *r, const struct result *z)
{
	printf("%-28s %6.3f  %8.1f (%7.1f-%7.1f) %5.2fx  %8.1f (%7.1f-%7.1f) %5.2fx\n",
	       r->name, r->ratio, r->c_med, r->c_min, r->c_max, r->c_med / z->c_med,
	       r->d_med, r->d_min, r->d_max, r->d_med / z->d_med);
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_codec [--repeat N] [--codec NAME[:opts]]... [--values N] "
			"[--zeros P] [--optim NAME] [--wd X] [--isa portable|avx2|avx512] "
			"FILE.f32|--synthetic|--trace FILE.h5\n");
	return 2;
}

struct args {
	const char *codecs[MAX_CODECS], *input, *optim, *isa;
	int ncodec, reps, trace;
	size_t values;
	double zeros, wd;
};

static int num(const char *s, double lo, double hi, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return *end || end == s || !(*v >= lo && *v <= hi) ? -1 : 0;
}

/* Options into @a; -1 on a usage error. */
static int parse_args(int argc, char **argv, struct args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double x;

		if (!strcmp(o, "--repeat") && v) {
			if (num(argv[++i], 1, MAX_REPEAT, &x) < 0)
				return -1;
			a->reps = (int)x;
		} else if (!strcmp(o, "--codec") && v) {
			if (a->ncodec == MAX_CODECS)
				return -1;
			a->codecs[a->ncodec++] = argv[++i];
		} else if (!strcmp(o, "--values") && v) {
			if (num(argv[++i], 1, 1 << 28, &x) < 0)
				return -1;
			a->values = (size_t)x;
		} else if (!strcmp(o, "--zeros") && v) {
			if (num(argv[++i], 0, 0.99, &a->zeros) < 0)
				return -1;
		} else if (!strcmp(o, "--wd") && v) {
			if (num(argv[++i], 0, 1, &a->wd) < 0)
				return -1;
		} else if (!strcmp(o, "--optim") && v) {
			a->optim = argv[++i];
		} else if (!strcmp(o, "--isa") && v) {
			a->isa = argv[++i];
		} else if (!strcmp(o, "--trace") && v && !a->input) {
			a->input = argv[++i];
			a->trace = 1;
		} else if ((o[0] == '-' && strcmp(o, "--synthetic")) || a->input) {
			return -1;
		} else {
			a->input = o;
		}
	}
	if (!a->input)
		return -1;
	if (!a->ncodec)
		a->codecs[a->ncodec++] = "huffexp";
	return 0;
}

/* The --optim of a synthetic or raw input. */
static int make_optim(const struct args *a, struct gt_optim *o)
{
	memset(o, 0, sizeof(*o));
	o->kind = gt_optim_parse(a->optim);
	o->have = ~0u;
	o->lr = o->kind == GT_OPT_ADAM || o->kind == GT_OPT_ADAMW ? 1e-3 : 1e-2;
	o->momentum = o->kind == GT_OPT_MOMENTUM || o->kind == GT_OPT_NESTEROV ? 0.9 : 0;
	o->weight_decay = a->wd;
	o->beta1 = 0.9;
	o->beta2 = 0.999;
	o->eps = o->kind == GT_OPT_RMSPROP || o->kind == GT_OPT_ADAGRAD ? 1e-10 : 1e-8;
	o->alpha = 0.99;
	o->t = 10;
	return gt_optim_check(o, "bench_codec", NULL);
}

int main(int argc, char **argv)
{
	struct args a = { .optim = "adam", .reps = 11, .zeros = 0.28 };
	struct result res[MAX_CODECS], zr;
	static struct data d;
	struct gt_optim o;
	int rc = 0;
	float *own = NULL;

	if (parse_args(argc, argv, &a) < 0 || make_optim(&a, &o) < 0)
		return usage();
	bench_isa = gt_isa_best();
	if (a.isa) {
		int isa = GT_ISA_PORTABLE;

		while (isa <= GT_ISA_LAST && strcmp(gt_isa_name((enum gt_isa)isa), a.isa))
			isa++;
		if (isa > GT_ISA_LAST || !gt_isa_usable((enum gt_isa)isa)) {
			fprintf(stderr, "bench_codec: --isa %s: not one this CPU runs\n", a.isa);
			return 2;
		}
		bench_isa = (enum gt_isa)isa;
	}
	if (a.trace) {
		if (load_trace(&d, a.input, a.values ? a.values : (size_t)1 << 24) < 0)
			return 1;
		own = (float *)(uintptr_t)d.v;
	} else {
		if (!strcmp(a.input, "--synthetic")) {
			d.n = a.values ? a.values : (size_t)1 << 20;
			own = synthetic(d.n, a.zeros);
		} else {
			own = load_file(a.input, &d.n);
		}
		if (!own) {
			fprintf(stderr, "bench_codec: %s: cannot load (raw f32 expected)\n", a.input);
			return 1;
		}
		d.v = own;
		if (synthetic_aux(&d, &o) < 0)
			return 1;
	}
	if (setup(&d) < 0 || bench_zstd(&d, a.reps, &zr) < 0) {
		fprintf(stderr, "bench_codec: zstd failed\n");
		return 1;
	}
	printf("%s: ", a.input);
	print_bound(&d);
	printf("optimizer %s (%d steps), weight_decay %g; median of %d, one thread, %s loops; "
	       "MB/s = 10^6 original bytes/s; x = median / zstd-3 median\n",
	       gt_optim_name(d.optim[0].kind), d.noptim, d.optim[0].weight_decay, a.reps,
	       gt_isa_name(bench_isa));
	printf("%-28s %6s  %-32s  %-32s\n", "codec", "ratio", "compress MB/s (min-max)",
	       "decompress MB/s (min-max)");
	print_result(&zr, &zr);
	for (int k = 0; k < a.ncodec; k++) {
		if (bench_gt(&d, a.codecs[k], a.reps, &res[k]) < 0) {
			rc = 1;
			continue;
		}
		print_result(&res[k], &zr);
	}
	for (size_t k = 0; k < d.nchunks; k++)
		free(d.ch[k].buf);
	free(d.ch);
	free(d.back);
	free(d.param);
	free(d.state[0]);
	free(d.state[1]);
	free(own);
	return rc;
}
