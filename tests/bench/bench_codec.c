/* bench_codec.c - single-thread codec throughput on f32 data, against zstd -3 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <zstd.h>

#include "gtool.h"

/*
 * usage: bench_codec [--repeat N] [--codec NAME[:opts]]... FILE.f32|--synthetic
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

struct chunk {
	size_t first, n;     /* values */
	size_t block;        /* index of its block */
	unsigned char *buf;  /* compressed bytes (capacity cap) */
	size_t cap, len;
};

struct data {
	const float *v;
	size_t n;
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

/*
 * randn * 1e-3 with about 42 % exact zeros: about half of them in runs
 * (length 1..64, as dead units or pruned rows give), the others isolated.
 */
static float *synthetic(size_t n)
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
		} else if (u < 0.0075 + 0.28) {
			v[i++] = 0.0f;
		} else {
			const double r = sqrt(-2.0 * log(1.0 - unif()));

			v[i++] = (float)(1e-3 * r * cos(2.0 * M_PI * unif()));
		}
	}
	return v;
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

static int setup(struct data *d)
{
	size_t k = 0;

	d->nblocks = (d->n + BLOCK_VALS - 1) / BLOCK_VALS;
	d->nchunks = 0;
	for (size_t b = 0; b < d->nblocks; b++) {
		const size_t bn = d->n - b * BLOCK_VALS < BLOCK_VALS ?
					  d->n - b * BLOCK_VALS : BLOCK_VALS;

		d->nchunks += (bn + CHUNK_VALS - 1) / CHUNK_VALS;
	}
	d->ch = calloc(d->nchunks, sizeof(*d->ch));
	d->back = malloc(d->n * sizeof(float) + 1);
	if (!d->ch || !d->back)
		return -1;
	for (size_t b = 0; b < d->nblocks; b++) {
		const size_t b0 = b * BLOCK_VALS;
		const size_t bn = d->n - b0 < BLOCK_VALS ? d->n - b0 : BLOCK_VALS;

		for (size_t c = 0; c < bn; c += CHUNK_VALS, k++) {
			d->ch[k].first = b0 + c;
			d->ch[k].n = bn - c < CHUNK_VALS ? bn - c : CHUNK_VALS;
			d->ch[k].block = b;
		}
	}
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
	struct gt_codec_ctx *enc, *dec;
	unsigned char (*meta)[GT_CODEC_META_MAX];
	size_t *mlen;
};

static size_t gt_cap(const void *arg, size_t n)
{
	return gt_codec_bound(((const struct gctx *)arg)->enc, n);
}

static int compress_all(struct data *d, struct gctx *g)
{
	for (size_t k = 0; k < d->nchunks; k++) {
		struct chunk *c = &d->ch[k];

		if (k == 0 || c->block != d->ch[k - 1].block) {
			const size_t b = c->block, b0 = b * BLOCK_VALS;
			const size_t bn = d->n - b0 < BLOCK_VALS ? d->n - b0 : BLOCK_VALS;

			if (gt_codec_block_begin(g->enc, d->v + b0, bn, g->meta[b],
						 GT_CODEC_META_MAX, &g->mlen[b]) < 0 ||
			    gt_codec_block_load(g->enc, g->meta[b], g->mlen[b]) < 0)
				return -1;
		}
		if (gt_codec_encode(g->enc, d->v + c->first, c->n, c->buf, c->cap,
				    &c->len) < 0)
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

static int bench_gt(struct data *d, const char *spec, int reps, struct result *r)
{
	const struct gt_codec *codec;
	struct gt_codec_params p = { GT_DT_F32, "", NULL, 0, NULL };
	struct gctx g = { NULL, NULL, NULL, NULL };
	double tc[MAX_REPEAT], td[MAX_REPEAT];
	struct gt_diag dg = { "" };
	int rc = -1;

	if (gt_codec_spec_parse(spec, &codec, &p.opts, &dg) < 0 ||
	    gt_codec_new(codec, &p, &g.enc, &dg) < 0 ||
	    gt_codec_new(codec, &p, &g.dec, &dg) < 0) {
		fprintf(stderr, "bench_codec: %s: %s\n", spec, dg.msg);
		goto out;
	}
	g.meta = malloc(d->nblocks * sizeof(*g.meta));
	g.mlen = calloc(d->nblocks, sizeof(*g.mlen));
	if (!g.meta || !g.mlen || alloc_bufs(d, gt_cap, &g) < 0)
		goto out;
	for (int rep = 0; rep < reps; rep++) {
		double t0 = now();

		if (compress_all(d, &g) < 0)
			goto out;
		tc[rep] = now() - t0;
		memset(d->back, 0xa5, d->n * sizeof(float));
		t0 = now();
		if (decompress_all(d, &g) < 0)
			goto out;
		td[rep] = now() - t0;
		if (memcmp(d->back, d->v, d->n * sizeof(float))) {
			fprintf(stderr, "bench_codec: %s: round trip differs\n", spec);
			goto out;
		}
	}
	r->name = spec;
	r->ratio = (double)(d->n * sizeof(float)) / (double)total_len(d);
	summarize(tc, reps, d->n * sizeof(float), &r->c_med, &r->c_min, &r->c_max);
	summarize(td, reps, d->n * sizeof(float), &r->d_med, &r->d_min, &r->d_max);
	rc = 0;
out:
	free(g.meta);
	free(g.mlen);
	gt_codec_free(g.enc);
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
	fprintf(stderr, "usage: bench_codec [--repeat N] [--codec NAME[:opts]]... "
			"FILE.f32|--synthetic\n");
	return 2;
}

/* Options into @codecs, @reps and @input_ret; -1 on a usage error. */
static int parse_args(int argc, char **argv, const char **codecs, int *ncodec,
		      int *reps, const char **input_ret)
{
	const char *input = NULL;

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--repeat") && a + 1 < argc) {
			char *end;
			const long v = strtol(argv[++a], &end, 10);

			if (*end || v < 1 || v > MAX_REPEAT)
				return -1;
			*reps = (int)v;
		} else if (!strcmp(argv[a], "--codec") && a + 1 < argc) {
			if (*ncodec == MAX_CODECS)
				return -1;
			codecs[(*ncodec)++] = argv[++a];
		} else if ((argv[a][0] == '-' && strcmp(argv[a], "--synthetic")) || input) {
			return -1;
		} else {
			input = argv[a];
		}
	}
	if (!input)
		return -1;
	if (!*ncodec)
		codecs[(*ncodec)++] = "huffexp";
	*input_ret = input;
	return 0;
}

int main(int argc, char **argv)
{
	const char *codecs[MAX_CODECS], *input = NULL;
	struct result res[MAX_CODECS], zr;
	struct data d = { 0 };
	int ncodec = 0, reps = 11, rc = 0;
	float *own = NULL;

	if (parse_args(argc, argv, codecs, &ncodec, &reps, &input) < 0)
		return usage();
	if (!strcmp(input, "--synthetic")) {
		d.n = (size_t)1 << 20;
		own = synthetic(d.n);
	} else {
		own = load_file(input, &d.n);
	}
	if (!own) {
		fprintf(stderr, "bench_codec: %s: cannot load (raw f32 expected)\n", input);
		return 1;
	}
	d.v = own;
	if (setup(&d) < 0 || bench_zstd(&d, reps, &zr) < 0) {
		fprintf(stderr, "bench_codec: zstd failed\n");
		return 1;
	}
	printf("%s: ", input);
	print_bound(&d);
	printf("median of %d, one thread; MB/s = 10^6 original bytes/s; "
	       "x = median / zstd-3 median\n", reps);
	printf("%-28s %6s  %-32s  %-32s\n", "codec", "ratio", "compress MB/s (min-max)",
	       "decompress MB/s (min-max)");
	print_result(&zr, &zr);
	for (int k = 0; k < ncodec; k++) {
		if (bench_gt(&d, codecs[k], reps, &res[k]) < 0) {
			rc = 1;
			continue;
		}
		print_result(&res[k], &zr);
	}
	for (size_t k = 0; k < d.nchunks; k++)
		free(d.ch[k].buf);
	free(d.ch);
	free(d.back);
	free(own);
	return rc;
}
