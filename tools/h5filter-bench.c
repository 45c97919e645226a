/* h5filter-bench.c - what the gtool HDF5 filter costs over its codec: a raw
 * f32 file coded in 1 MiB chunks by the codec alone, by the filter function,
 * and written and read through the HDF5 C API, one thread, medians */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../plugins/h5z_gtool.c"

#define CHUNK_VALUES (1u << 18) /* 1 MiB of f32 */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *t, int n)
{
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	return t[n / 2];
}

struct data {
	unsigned char *v;
	size_t n;            /* values */
	size_t nchunks;
};

/* The codec alone on one 1 MiB chunk, as gtool's .gtz writer uses it:
 * block table, 64Ki-value chunks into a buffer made once; @t gets the
 * seconds of encoding and of decoding. */
static void codec_chunk(struct gt_codec_ctx *ctx, const unsigned char *src, size_t n,
			unsigned char *scratch, unsigned char *out, double *t)
{
	const size_t bound = gt_codec_bound(ctx, GT_H5Z_CHUNK_VALUES);
	unsigned char meta[GT_CODEC_META_MAX];
	size_t meta_len, len[64], off = 0;
	double t0 = now();

	gt_codec_block_begin(ctx, src, n, meta, sizeof(meta), &meta_len);
	gt_codec_block_load(ctx, meta, meta_len);
	for (size_t i = 0, j = 0; i < n; i += GT_H5Z_CHUNK_VALUES, j++) {
		const size_t k = n - i < GT_H5Z_CHUNK_VALUES ? n - i : GT_H5Z_CHUNK_VALUES;

		gt_codec_encode(ctx, src + i * 4, k, scratch + off, bound, &len[j]);
		off += len[j];
	}
	t[0] += now() - t0;
	t0 = now();
	gt_codec_block_load(ctx, meta, meta_len);
	off = 0;
	for (size_t i = 0, j = 0; i < n; i += GT_H5Z_CHUNK_VALUES, j++) {
		const size_t k = n - i < GT_H5Z_CHUNK_VALUES ? n - i : GT_H5Z_CHUNK_VALUES;

		gt_codec_decode(ctx, scratch + off, len[j], out + i * 4, k);
		off += len[j];
	}
	t[1] += now() - t0;
}

/* The filter function on one chunk, each way; HDF5's buffer copies and
 * allocations outside the filter are not timed. */
static void filter_chunk(const unsigned char *src, size_t n, double *t)
{
	const unsigned cd[4] = { 1, 3, GT_DT_F32, CHUNK_VALUES };
	/* a last chunk shorter than CHUNK_VALUES: leave cd[3] out */
	const size_t ncd = 4 - (n != CHUNK_VALUES);
	size_t cap = n * 4, len;
	void *buf = H5allocate_memory(cap, 0);
	double t0;

	memcpy(buf, src, n * 4);
	t0 = now();
	len = gt_h5z_filter(0, ncd, cd, n * 4, &cap, &buf);
	t[2] += now() - t0;
	t0 = now();
	if (!len || !gt_h5z_filter(H5Z_FLAG_REVERSE, ncd, cd, len, &cap, &buf))
		abort();
	t[3] += now() - t0;
	H5free_memory(buf);
}

/* Codec and filter on each chunk in turn, so that a change in the load
 * of a shared machine falls on both alike. */
static int memory_pass(const struct data *d, unsigned char *scratch, unsigned char *out,
		       double *t)
{
	const struct gt_codec_params p = { .dtype = GT_DT_F32 };
	struct gt_codec_ctx *ctx = NULL;

	if (gt_codec_new(gt_codec_find("huffexp"), &p, &ctx, NULL) < 0)
		return -1;
	t[0] = t[1] = t[2] = t[3] = 0;
	for (size_t c = 0; c < d->nchunks; c++) {
		const size_t first = c * CHUNK_VALUES;
		const size_t n = d->n - first < CHUNK_VALUES ? d->n - first : CHUNK_VALUES;

		codec_chunk(ctx, d->v + first * 4, n, scratch, out, t);
		filter_chunk(d->v + first * 4, n, t);
	}
	gt_codec_free(ctx);
	return 0;
}

/* Write then read the whole dataset through HDF5; @filter 0: none, 1: gtool
 * (huffexp), 2: gzip 6 + shuffle. */
static int hdf5_pass(const struct data *d, const char *path, int filter, double *tw,
		     double *tr, hsize_t *stored)
{
	const hsize_t dims = d->n, chunk = CHUNK_VALUES < d->n ? CHUNK_VALUES : d->n;
	hid_t f, s, p, ds;
	float *back = malloc(d->n * 4);
	double t0 = now();

	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	s = H5Screate_simple(1, &dims, NULL);
	p = H5Pcreate(H5P_DATASET_CREATE);
	H5Pset_chunk(p, 1, &chunk);
	if (filter == 1)
		H5Pset_filter(p, GT_H5Z_ID, H5Z_FLAG_MANDATORY, 0, NULL);
	if (filter == 2 && (H5Pset_shuffle(p) < 0 || H5Pset_deflate(p, 6) < 0))
		return -1;
	ds = H5Dcreate2(f, "x", H5T_IEEE_F32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
	if (ds < 0 || H5Dwrite(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, d->v) < 0)
		return -1;
	H5Dclose(ds);
	H5Pclose(p);
	H5Sclose(s);
	H5Fclose(f);
	*tw = now() - t0;
	t0 = now();
	f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ds = H5Dopen2(f, "x", H5P_DEFAULT);
	if (ds < 0 || H5Dread(ds, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back) < 0)
		return -1;
	*stored = H5Dget_storage_size(ds);
	H5Dclose(ds);
	H5Fclose(f);
	*tr = now() - t0;
	if (memcmp(back, d->v, d->n * 4))
		return -1;
	free(back);
	return 0;
}

static int load(const char *path, struct data *d)
{
	FILE *fp = fopen(path, "rb");
	long len;

	if (!fp || fseek(fp, 0, SEEK_END) || (len = ftell(fp)) < 4 || fseek(fp, 0, SEEK_SET))
		return -1;
	d->n = (size_t)len / 4;
	d->v = malloc(d->n * 4);
	if (!d->v || fread(d->v, 4, d->n, fp) != d->n)
		return -1;
	fclose(fp);
	d->nchunks = (d->n + CHUNK_VALUES - 1) / CHUNK_VALUES;
	return 0;
}

#define REPS_MAX 31

int main(int argc, char **argv)
{
	struct data d = { 0 };
	const int reps = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 5;
	double t[10][REPS_MAX], m[10];
	hsize_t stored = 0, plain = 0, gz = 0;
	unsigned char *scratch, *out;

	if (argc < 3 || reps < 1 || reps > REPS_MAX || load(argv[1], &d) < 0) {
		fprintf(stderr, "usage: h5filter-bench FILE.f32 WORK.h5 [REPEAT]\n");
		return 2;
	}
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (H5Zregister(&gt_h5z_class) < 0)
		return 1;
	scratch = malloc(2 * (size_t)CHUNK_VALUES * 4 + (1u << 20));
	out = malloc((size_t)CHUNK_VALUES * 4);
	for (int r = 0; r < reps; r++) {
		double tm[4];

		if (memory_pass(&d, scratch, out, tm) < 0)
			return 1;
		for (int i = 0; i < 4; i++)
			t[i][r] = tm[i];
		if (hdf5_pass(&d, argv[2], 1, &t[4][r], &t[5][r], &stored) < 0 ||
		    hdf5_pass(&d, argv[2], 0, &t[6][r], &t[7][r], &plain) < 0 ||
		    hdf5_pass(&d, argv[2], 2, &t[8][r], &t[9][r], &gz) < 0) {
			fprintf(stderr, "h5filter-bench: HDF5 write or read failed\n");
			return 1;
		}
	}
	for (int i = 0; i < 10; i++)
		m[i] = (double)d.n * 4 / median(t[i], reps) / 1e6;
	printf("%zu bytes of f32 in 1 MiB chunks, huffexp, ratio %.3f, %d runs, medians, MB/s\n",
	       d.n * 4, (double)d.n * 4 / (double)stored, reps);
	printf("| path | write | read | write cost over codec | read cost over codec |\n");
	printf("| --- | ---: | ---: | ---: | ---: |\n");
	printf("| codec alone (in memory) | %.0f | %.0f | | |\n", m[0], m[1]);
	printf("| filter function (in memory) | %.0f | %.0f | %+.0f %% | %+.0f %% |\n", m[2], m[3],
	       100 * (m[0] / m[2] - 1), 100 * (m[1] / m[3] - 1));
	printf("| HDF5 C API, filter 400 | %.0f | %.0f | %+.0f %% | %+.0f %% |\n", m[4], m[5],
	       100 * (m[0] / m[4] - 1), 100 * (m[1] / m[5] - 1));
	printf("| HDF5 C API, no filter | %.0f | %.0f | | |\n", m[6], m[7]);
	printf("| HDF5 C API, gzip 6 + shuffle (ratio %.3f) | %.0f | %.0f | | |\n",
	       (double)d.n * 4 / (double)gz, m[8], m[9]);
	return 0;
}
