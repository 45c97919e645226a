/* bench.c - codec throughput on tensors held in memory */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gt_bench.h"
#include "../lib/gt_chunk.h"
#include "../lib/gt_pool.h"
#include "../lib/banned.h"

/* One block of one input: a task of the pool. */
struct blk {
	size_t in;            /* which input */
	size_t first, n;      /* its values */
	size_t nch, cv;       /* chunks, values per chunk */
	unsigned char *out;   /* nch * bound[in] bytes */
	size_t *len;          /* coded bytes per chunk */
	unsigned char *meta;  /* GT_CODEC_META_MAX */
	size_t meta_len;
	int rc;
};

struct bench {
	const struct gt_bench_input *in;
	size_t n;
	struct gt_codec_ctx **ctx;   /* [worker * n + input] */
	size_t *bound;               /* chunk bound per input */
	size_t *cv;                  /* values per chunk per input */
	unsigned char **back;        /* decoded values per input */
	struct blk *blk;
	size_t nblk;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double gt_bench_mbps(uint64_t bytes, double secs)
{
	return secs > 0 ? (double)bytes / secs / 1e6 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void gt_bench_spread(double *v, size_t n, double *median, double *min, double *max)
{
	qsort(v, n, sizeof(*v), cmp_double);
	*min = v[0];
	*max = v[n - 1];
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* @a's arrays from value @o on. */
static void bench_aux_at(struct gt_codec_aux *a, size_t o)
{
	a->param += o;
	a->state[0] = a->state[0] ? a->state[0] + o : NULL;
	a->state[1] = a->state[1] ? a->state[1] + o : NULL;
	a->param64 = a->param64 ? a->param64 + o : NULL;
	a->state64[0] = a->state64[0] ? a->state64[0] + o : NULL;
	a->state64[1] = a->state64[1] ? a->state64[1] + o : NULL;
}

static void enc_task(void *arg, size_t t, unsigned worker)
{
	struct bench *b = arg;
	struct blk *k = &b->blk[t];
	const struct gt_bench_input *in = &b->in[k->in];
	struct gt_codec_ctx *ctx = b->ctx[worker * b->n + k->in];
	const size_t w = gt_dtype_size(in->dtype), bound = b->bound[k->in];
	const unsigned char *src = (const unsigned char *)in->data + k->first * w;
	struct gt_codec_aux ba, *bap = NULL;
	int rc;

	if (in->aux.param) {
		ba = in->aux;
		bench_aux_at(&ba, k->first);
		bap = &ba;
	}
	rc = gt_codec_block_begin_aux(ctx, src, k->n, bap, k->meta, GT_CODEC_META_MAX,
				      &k->meta_len);
	if (rc >= 0)
		rc = gt_codec_block_load(ctx, k->meta, k->meta_len);
	for (size_t c = 0; c < k->nch && rc >= 0; c++) {
		const size_t first = c * k->cv;
		const size_t nv = k->n - first < k->cv ? k->n - first : k->cv;
		struct gt_codec_aux a, *ap = NULL;

		if (in->aux.param) {
			a = in->aux;
			bench_aux_at(&a, k->first + first);
			ap = &a;
		}
		gt_codec_seek(ctx, k->in, k->first + first);
		rc = gt_codec_encode_aux(ctx, src + first * w, nv, ap, k->out + c * bound,
					 bound, &k->len[c]);
	}
	k->rc = rc;
}

static void dec_task(void *arg, size_t t, unsigned worker)
{
	struct bench *b = arg;
	struct blk *k = &b->blk[t];
	struct gt_codec_ctx *ctx = b->ctx[worker * b->n + k->in];
	const size_t w = gt_dtype_size(b->in[k->in].dtype), bound = b->bound[k->in];
	unsigned char *dst = b->back[k->in] + k->first * w;
	int rc = gt_codec_block_load(ctx, k->meta, k->meta_len);

	for (size_t c = 0; c < k->nch && rc >= 0; c++) {
		const size_t first = c * k->cv;
		const size_t nv = k->n - first < k->cv ? k->n - first : k->cv;

		gt_codec_seek(ctx, k->in, k->first + first);
		rc = gt_codec_decode(ctx, k->out + c * bound, k->len[c], dst + first * w, nv);
	}
	k->rc = rc;
}

/* Contexts, per worker and input, and each input's chunk bound. */
static int make_contexts(struct bench *b, unsigned threads, size_t bv, size_t chunk,
			 struct gt_diag *d)
{
	b->ctx = calloc((size_t)threads * b->n + 1, sizeof(*b->ctx));
	b->bound = calloc(b->n + 1, sizeof(*b->bound));
	b->cv = calloc(b->n + 1, sizeof(*b->cv));
	b->back = calloc(b->n + 1, sizeof(*b->back));
	if (!b->ctx || !b->bound || !b->cv || !b->back)
		return GT_ERR(NOMEM);
	for (size_t i = 0; i < b->n; i++) {
		const struct gt_bench_input *in = &b->in[i];
		const struct gt_codec_params p = { in->dtype, in->opts, NULL, 0, in->optim, 0 };
		const size_t w = gt_dtype_size(in->dtype);

		for (unsigned t = 0; t < threads; t++) {
			const int rc = gt_codec_new(in->codec, &p, &b->ctx[t * b->n + i], d);

			if (rc < 0)
				return rc;
		}
		b->cv[i] = gt_chunk_values(in->codec, bv, chunk);
		b->bound[i] = gt_codec_bound(b->ctx[i], b->cv[i]);
		if (!b->bound[i] || !w)
			return gt_diag_set(d, GT_ERR(INVAL), "chunk too large for codec %s",
					   gt_codec_name(in->codec));
		b->back[i] = malloc(in->n * w + 1);
		if (!b->back[i])
			return GT_ERR(NOMEM);
	}
	return 0;
}

/* The blocks of every input, with room for their coded chunks. */
static int make_blocks(struct bench *b, size_t bv)
{
	size_t nblk = 0;

	for (size_t i = 0; i < b->n; i++)
		nblk += (b->in[i].n + bv - 1) / bv;
	b->blk = calloc(nblk + 1, sizeof(*b->blk));
	if (!b->blk)
		return GT_ERR(NOMEM);
	for (size_t i = 0; i < b->n; i++) {
		const size_t cv = b->cv[i];

		for (size_t first = 0; first < b->in[i].n; first += bv) {
			struct blk *k = &b->blk[b->nblk++];

			k->in = i;
			k->first = first;
			k->n = b->in[i].n - first < bv ? b->in[i].n - first : bv;
			k->cv = cv;
			k->nch = (k->n + cv - 1) / cv;
			k->out = malloc(k->nch * b->bound[i]);
			k->len = calloc(k->nch, sizeof(*k->len));
			k->meta = malloc(GT_CODEC_META_MAX);
			if (!k->out || !k->len || !k->meta)
				return GT_ERR(NOMEM);
		}
	}
	return 0;
}

static void bench_release(struct bench *b, unsigned threads)
{
	for (size_t i = 0; b->ctx && i < (size_t)threads * b->n; i++)
		gt_codec_free(b->ctx[i]);
	for (size_t i = 0; b->back && i < b->n; i++)
		free(b->back[i]);
	for (size_t k = 0; k < b->nblk; k++) {
		free(b->blk[k].out);
		free(b->blk[k].len);
		free(b->blk[k].meta);
	}
	free(b->ctx);
	free(b->bound);
	free(b->cv);
	free(b->back);
	free(b->blk);
}

/* One pass over every block; the first error of a block, or 0. */
static int pass(struct bench *b, struct gt_pool *pool,
		void (*fn)(void *arg, size_t i, unsigned worker), double *secs)
{
	const double t0 = now();

	gt_pool_run(pool, b->nblk, fn, b);
	*secs = now() - t0;
	for (size_t k = 0; k < b->nblk; k++)
		if (b->blk[k].rc < 0)
			return b->blk[k].rc;
	return 0;
}

/* A lossless codec must give back its input, bit for bit. */
static int check_back(const struct bench *b, struct gt_diag *d)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct gt_bench_input *in = &b->in[i];

		if ((gt_codec_flags(in->codec) & GT_CODEC_LOSSLESS) &&
		    memcmp(in->data, b->back[i], in->n * gt_dtype_size(in->dtype)))
			return gt_diag_set(d, GT_ERR(CORRUPT), "codec %s: round trip differs",
					   gt_codec_name(in->codec));
	}
	return 0;
}

static int timed(struct bench *b, struct gt_pool *pool, const struct gt_bench_opts *o,
		 struct gt_bench_result *r, struct gt_diag *d)
{
	double s;
	int rc = 0;

	for (unsigned i = 0; i < o->warmup && rc >= 0; i++)
		rc = pass(b, pool, enc_task, &s);
	for (unsigned i = 0; i < o->repeat && rc >= 0; i++)
		rc = pass(b, pool, enc_task, &r->comp_s[i]);
	r->coded = 0;
	for (size_t k = 0; k < b->nblk; k++) {
		r->coded += b->blk[k].meta_len;
		for (size_t c = 0; c < b->blk[k].nch; c++)
			r->coded += b->blk[k].len[c];
	}
	if (rc >= 0)
		rc = pass(b, pool, dec_task, &s);
	if (rc >= 0)
		rc = check_back(b, d);
	for (unsigned i = 1; i < o->warmup && rc >= 0; i++)
		rc = pass(b, pool, dec_task, &s);
	for (unsigned i = 0; i < o->repeat && rc >= 0; i++)
		rc = pass(b, pool, dec_task, &r->decomp_s[i]);
	if (rc < 0 && d && !*d->msg)
		gt_diag_set(d, rc, "%s", gt_strerror(rc));
	return rc;
}

int gt_bench_run(const struct gt_bench_input *in, size_t n,
		 const struct gt_bench_opts *o, struct gt_bench_result *r,
		 struct gt_diag *d)
{
	const size_t bv = gt_chunk_block(o->block_values);
	struct bench b = { in, n, NULL, NULL, NULL, NULL, NULL, 0 };
	struct gt_pool *pool = NULL;
	int rc;

	if (!o->threads || !o->repeat)
		return gt_diag_set(d, GT_ERR(INVAL), "bad benchmark options");
	r->bytes = 0;
	for (size_t i = 0; i < n; i++)
		r->bytes += in[i].n * gt_dtype_size(in[i].dtype);
	rc = make_contexts(&b, o->threads, bv, o->chunk_values, d);
	if (rc >= 0)
		rc = make_blocks(&b, bv);
	if (rc >= 0)
		rc = gt_pool_new(o->threads, &pool);
	if (rc >= 0)
		rc = timed(&b, pool, o, r, d);
	if (rc == GT_ERR(NOMEM) && d && !*d->msg)
		gt_diag_set(d, rc, "out of memory");
	gt_pool_free(pool);
	bench_release(&b, o->threads);
	return rc;
}
