/*
 * compress_array.c - compress a float array with huffexp (lossless) and
 * with gcomp (near-lossless, given the optimizer's parameter and state),
 * decompress both and compare with the original.
 *
 * Build by hand against an installed libgtool:
 *	cc compress_array.c -o compress_array $(pkg-config --cflags --libs gtool)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gtool.h>

#define N 100000

static int fail(const char *what, int rc, const char *msg)
{
	fprintf(stderr, "compress_array: %s: %s (%s)\n", what, msg, gtool_strerror(rc));
	return 1;
}

/* A made-up AdamW step: gradient, parameter and the two moments. */
static void fill(float *g, float *param, float *m, float *v)
{
	unsigned s = 12345;

	for (size_t i = 0; i < N; i++) {
		s = s * 1103515245u + 12345u;
		g[i] = ((float)(s >> 8) / 16777216.0f - 0.5f) * 1e-3f;
		param[i] = 0.05f * (float)((int)(i % 201) - 100) / 100.0f;
		m[i] = 0.9f * g[i];
		v[i] = 1e-7f + g[i] * g[i];
	}
}

static int lossless(const float *g)
{
	const uint64_t dims[1] = { N };
	struct gtool_errbuf err;
	void *blob = NULL, *back = NULL;
	size_t blob_len = 0, back_len = 0;
	int rc;

	rc = gtool_compress_alloc("huffexp", GTOOL_F32, dims, 1, g, sizeof(float) * N, NULL,
				  &blob, &blob_len, &err);
	if (rc < 0)
		return fail("huffexp", rc, err.msg);
	rc = gtool_decompress_alloc(blob, blob_len, &back, &back_len, NULL, &err);
	if (rc < 0) {
		gtool_free(blob);
		return fail("decompress", rc, err.msg);
	}
	printf("huffexp: %zu -> %zu bytes, %s\n", sizeof(float) * N, blob_len,
	       back_len == sizeof(float) * N && !memcmp(back, g, back_len) ?
	       "bit-identical" : "DIFFERENT");
	rc = back_len == sizeof(float) * N && !memcmp(back, g, back_len) ? 0 : 1;
	gtool_free(blob);
	gtool_free(back);
	return rc;
}

static int near_lossless(const float *g, const float *param, const float *m, const float *v)
{
	const uint64_t dims[1] = { N };
	struct gtool_optctx *opt = NULL;
	struct gtool_errbuf err;
	struct gtool_fidelity fid;
	unsigned char *blob = malloc(gtool_compress_bound(GTOOL_F32, N));
	float *back = malloc(sizeof(float) * N);
	size_t blob_len = 0, back_len = 0;
	int rc;

	rc = gtool_optctx_new("adamw", &opt, &err);
	if (rc >= 0) {
		gtool_optctx_set(opt, "lr", 1e-3);
		gtool_optctx_set(opt, "beta1", 0.9);
		gtool_optctx_set(opt, "beta2", 0.999);
		gtool_optctx_set(opt, "eps", 1e-8);
		gtool_optctx_set(opt, "weight_decay", 0.01);
		gtool_optctx_set(opt, "step", 10);
		gtool_optctx_set_param(opt, param, N);
		gtool_optctx_set_state(opt, "exp_avg", m, N);
		rc = gtool_optctx_set_state(opt, "exp_avg_sq", v, N);
	}
	if (rc >= 0)
		rc = gtool_compress("gcomp", GTOOL_F32, dims, 1, g, sizeof(float) * N, opt, blob,
				    gtool_compress_bound(GTOOL_F32, N), &blob_len, &err);
	if (rc >= 0)
		rc = gtool_decompress(blob, blob_len, back, sizeof(float) * N, &back_len, NULL, &err);
	if (rc >= 0)
		rc = gtool_update_fidelity(opt, g, back, NULL, N, &fid, &err);
	if (rc >= 0)
		printf("gcomp: %zu -> %zu bytes, parameters after the step bit-identical: %.2f%%, "
		       "max relative difference %.3g\n", sizeof(float) * N, blob_len,
		       fid.identical_pct, fid.max_rel);
	else
		fail("gcomp", rc, err.msg);
	gtool_optctx_free(opt);
	free(blob);
	free(back);
	return rc < 0;
}

int main(void)
{
	float *g = malloc(sizeof(float) * N), *param = malloc(sizeof(float) * N);
	float *m = malloc(sizeof(float) * N), *v = malloc(sizeof(float) * N);
	int bad;

	if (!g || !param || !m || !v)
		return 1;
	printf("libgtool %s\n", gtool_version());
	fill(g, param, m, v);
	bad = lossless(g);
	bad |= near_lossless(g, param, m, v);
	free(g);
	free(param);
	free(m);
	free(v);
	return bad;
}
