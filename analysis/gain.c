/* gain.c - compression gain, error feedback and multi-level compression */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gt_gain.h"
#include "../lib/gt_chunk.h"
#include "../lib/banned.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int gt_gain_coder_init(struct gt_gain_coder *gc, const struct gt_codec *c,
		       const char *opts, size_t block, size_t chunk,
		       struct gt_diag *d)
{
	struct gt_codec_params p = { GT_DT_F32, opts, NULL, 0, NULL, 0 };
	int rc;

	memset(gc, 0, sizeof(*gc));
	if (!block || !chunk || chunk > block)
		return gt_diag_set(d, GT_ERR(INVAL), "bad block or chunk size");
	rc = gt_codec_new(c, &p, &gc->ctx, d);
	if (rc < 0)
		return rc;
	gc->block = block;
	gc->chunk = gt_chunk_values(c, block, chunk);
	gc->cap = gt_codec_bound(gc->ctx, gc->chunk);
	gc->buf = gc->cap ? malloc(gc->cap) : NULL;
	if (!gc->buf) {
		gt_gain_coder_release(gc);
		return gt_diag_set(d, GT_ERR(NOMEM), "out of memory");
	}
	return 0;
}

void gt_gain_coder_release(struct gt_gain_coder *gc)
{
	gt_codec_free(gc->ctx);
	free(gc->buf);
	memset(gc, 0, sizeof(*gc));
}

/* One block, chunk by chunk; a block that would grow is kept as it is. */
static int code_block(struct gt_gain_coder *gc, const float *src, size_t n,
		      uint64_t stream, uint64_t first, float *dst,
		      struct gt_gain_cost *cost)
{
	unsigned char meta[GT_CODEC_META_MAX];
	uint64_t bytes;
	size_t meta_len = 0;
	double t0 = now(), enc = 0, dec = 0;
	int rc;

	rc = gt_codec_block_begin(gc->ctx, src, n, meta, sizeof(meta), &meta_len);
	if (rc >= 0)
		rc = gt_codec_block_load(gc->ctx, meta, meta_len);
	enc += now() - t0;
	bytes = meta_len;
	for (size_t at = 0; rc >= 0 && at < n; at += gc->chunk) {
		const size_t m = n - at < gc->chunk ? n - at : gc->chunk;
		size_t len = 0;

		gt_codec_seek(gc->ctx, stream, first + at);
		t0 = now();
		rc = gt_codec_encode(gc->ctx, src + at, m, gc->buf, gc->cap, &len);
		enc += now() - t0;
		if (rc < 0)
			break;
		if (dst) {
			t0 = now();
			rc = gt_codec_decode(gc->ctx, gc->buf, len, dst + at, m);
			dec += now() - t0;
		}
		bytes += len;
	}
	if (rc < 0)
		return rc;
	if (bytes >= n * sizeof(float)) {
		if (dst)
			memcpy(dst, src, n * sizeof(float));
		bytes = n * sizeof(float);
	}
	cost->bytes += bytes;
	cost->encode_s += enc;
	cost->decode_s += dec;
	return 0;
}

int gt_gain_code(struct gt_gain_coder *gc, const float *src, size_t n,
		 uint64_t stream, float *dst, struct gt_gain_cost *cost)
{
	for (size_t at = 0; at < n; at += gc->block) {
		const size_t m = n - at < gc->block ? n - at : gc->block;

		GT_TRY(code_block(gc, src + at, m, stream, at, dst ? dst + at : NULL, cost));
	}
	return 0;
}

/* Sums of squares in double, in runs of 1024 added with compensation. */
static double sum_sq(const float *x, size_t n)
{
	double s = 0, c = 0;

	for (size_t at = 0; at < n; at += 1024) {
		const size_t end = n - at < 1024 ? n : at + 1024;
		double part = 0, t;

		for (size_t i = at; i < end; i++)
			part += (double)x[i] * x[i];
		t = s + part;
		c += fabs(s) >= fabs(part) ? (s - t) + part : (part - t) + s;
		s = t;
	}
	return s + c;
}

void gt_gain_add(struct gt_gain_sums *s, const float *g, const float *ef,
		 const float *hat, size_t n)
{
	const double h2 = sum_sq(hat, n);

	s->ef2 += sum_sq(ef, n);
	s->hat2 += h2;
	s->norm_g += sqrt(g == ef ? sum_sq(ef, n) : sum_sq(g, n));
	s->norm_hat += sqrt(h2);
}

void gt_gain_merge(struct gt_gain_sums *a, const struct gt_gain_sums *b)
{
	a->ef2 += b->ef2;
	a->hat2 += b->hat2;
	a->norm_g += b->norm_g;
	a->norm_hat += b->norm_hat;
}

double gt_gain_sq(const struct gt_gain_sums *s)
{
	return s->ef2 > 0 ? s->hat2 / s->ef2 : NAN;
}

double gt_gain_norm(const struct gt_gain_sums *s)
{
	return s->norm_g > 0 ? s->norm_hat / s->norm_g : NAN;
}

void gt_ewma_init(struct gt_ewma *e, double alpha)
{
	e->alpha = alpha;
	e->num = e->den = 0;
}

double gt_ewma_add(struct gt_ewma *e, double x)
{
	e->num = e->num * (1 - e->alpha) + x;
	e->den = e->den * (1 - e->alpha) + 1;
	return e->num / e->den;
}

size_t gt_gain_compact(const float *hat, size_t n, float *vals, size_t *idx)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t bits;

		memcpy(&bits, &hat[i], sizeof(bits));
		if (bits << 1) { /* not +-0 */
			vals[m] = hat[i];
			idx[m++] = i;
		}
	}
	return m;
}

void gt_gain_scatter(const float *vals, const size_t *idx, size_t m, float *dst,
		     size_t n)
{
	memset(dst, 0, n * sizeof(float));
	for (size_t i = 0; i < m; i++)
		dst[idx[i]] = vals[i];
}

/*
 * The bytes of @m kept values at their places in a block of @nb, packed as
 * the sparsifiers pack a block (they share one chunk layout, lib/gt_sparse):
 * topk keeping exactly those values.
 */
static int sent_bytes(const float *dst, size_t nb, size_t m, size_t block,
		      uint64_t *bytes, struct gt_diag *d)
{
	struct gt_gain_cost c = { 0 };
	struct gt_gain_coder gc;
	char opts[64];
	int rc;

	if (!m)
		return 0;
	snprintf(opts, sizeof(opts), "k=%zu", m);
	rc = gt_gain_coder_init(&gc, gt_codec_find("topk"), opts, block, block, d);
	if (rc < 0)
		return rc;
	rc = gt_gain_code(&gc, dst, nb, 0, NULL, &c);
	gt_gain_coder_release(&gc);
	if (rc < 0)
		return gt_diag_set(d, rc, "%s", gt_strerror(rc));
	*bytes += c.bytes;
	return 0;
}

int gt_gain_relevel(const struct gt_codec *c, const char *base,
		    const float *hat_min, size_t n, double cf, size_t block,
		    size_t chunk, uint64_t stream, float *dst,
		    struct gt_gain_scratch *s, struct gt_gain_cost *cost,
		    struct gt_diag *d)
{
	for (size_t at = 0; at < n; at += block) {
		const size_t nb = n - at < block ? n - at : block;
		const size_t m = gt_gain_compact(hat_min + at, nb, s->vals, s->idx);
		size_t keep = (size_t)ceil((double)nb / cf);
		struct gt_gain_cost c2 = { 0 };
		struct gt_gain_coder gc;
		char opts[256];
		int rc;

		keep = keep > m ? m : keep;
		memset(s->tmp, 0, m * sizeof(float));
		if (keep) {
			snprintf(opts, sizeof(opts), "%s%sk=%zu", base, *base ? "," : "", keep);
			rc = gt_gain_coder_init(&gc, c, opts, block, gt_chunk_values(NULL, block, chunk), d);
			if (rc < 0)
				return rc;
			rc = gt_gain_code(&gc, s->vals, m, stream, s->tmp, &c2);
			gt_gain_coder_release(&gc);
			if (rc < 0)
				return gt_diag_set(d, rc, "%s", gt_strerror(rc));
		}
		gt_gain_scatter(s->tmp, s->idx, m, dst + at, nb);
		cost->encode_s += c2.encode_s;
		cost->decode_s += c2.decode_s;
		GT_TRY(sent_bytes(dst + at, nb, gt_gain_compact(dst + at, nb, s->vals, s->idx),
				  block, &cost->bytes, d));
	}
	return 0;
}
