/* h5filter-bench.c - what the gtool HDF5 filter costs over its codec: a raw
 * f32 file coded in 1 MiB chunks by the codec alone, by the filter function,
 * and written and read through the HDF5 C API (on a file and in memory, with
 * HDF5's filter pipeline and with H5Dwrite_chunk/H5Dread_chunk), one thread,
 * medians */
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

/* Seconds inside the filter function while HDF5 runs it: the filter is
 * registered through timed_filter(), which adds up the time of each call,
 * so that a pass through HDF5 tells the filter's own cost (which the
 * codec's time is compared with) from HDF5's (chunk cache, copies, I/O). */
static double in_filter;

static size_t timed_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
			   size_t nbytes, size_t *buf_size, void **buf)
{
	const double t0 = now();
	const size_t r = gt_h5z_filter(flags, cd_nelmts, cd_values, nbytes, buf_size, buf);

	in_filter += now() - t0;
	return r;
}

/* How a pass stores the dataset: its filter (0: none, 1: gtool huffexp,
 * 2: gzip 6 + shuffle), the file driver (sec2: a file on disk, through the
 * page cache; core: in memory, no backing store, so the disk is left out),
 * and direct: each chunk coded by the caller with the filter function and
 * handed to H5Dwrite_chunk / taken from H5Dread_chunk, which skips HDF5's
 * filter pipeline and chunk cache. */
struct how {
	int filter, core, direct;
};

/* A core file grows by its increment, each growth a realloc and copy of
 * the image: one increment of the whole dataset, so that the image is
 * allocated once and the driver costs a memcpy, no more. */
static hid_t make_file(const char *path, const struct how *h, size_t bytes)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f;

	if (h->core)
		H5Pset_fapl_core(fapl, bytes + ((size_t)1 << 20), 0);
	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	return f;
}

static hid_t make_dataset(hid_t f, const struct data *d, const struct how *h)
{
	const hsize_t dims = d->n, chunk = CHUNK_VALUES < d->n ? CHUNK_VALUES : d->n;
	hid_t s = H5Screate_simple(1, &dims, NULL), p = H5Pcreate(H5P_DATASET_CREATE), ds = -1;

	H5Pset_chunk(p, 1, &chunk);
	if (h->filter == 1)
		H5Pset_filter(p, GT_H5Z_ID, H5Z_FLAG_MANDATORY, 0, NULL);
	if (h->filter != 2 || (H5Pset_shuffle(p) >= 0 && H5Pset_deflate(p, 6) >= 0))
		ds = H5Dcreate2(f, "x", H5T_IEEE_F32LE, s, H5P_DEFAULT, p, H5P_DEFAULT);
	H5Pclose(p);
	H5Sclose(s);
	return ds;
}

/* The filter's cd_values as set_local left them in the dataset. */
static int filter_cd(hid_t ds, unsigned cd[8], size_t *ncd)
{
	hid_t p = H5Dget_create_plist(ds);
	unsigned flags;
	herr_t rc;

	*ncd = 8;
	rc = H5Pget_filter_by_id2(p, GT_H5Z_ID, &flags, ncd, cd, 0, NULL, NULL);
	H5Pclose(p);
	return rc < 0 ? -1 : 0;
}

/* Chunk by chunk: what H5Dwrite does for a filtered dataset, less HDF5's
 * chunk cache and pipeline (the copy into a buffer the filter may free is
 * the filter interface's, and is kept). */
static int write_direct(hid_t ds, const struct data *d)
{
	unsigned cd[8];
	size_t ncd;

	if (filter_cd(ds, cd, &ncd) < 0)
		return -1;
	for (size_t c = 0; c < d->nchunks; c++) {
		const hsize_t off = (hsize_t)c * CHUNK_VALUES;
		const size_t n = d->n - off < CHUNK_VALUES ? d->n - off : CHUNK_VALUES;
		size_t cap = (size_t)CHUNK_VALUES * 4, len;
		unsigned char *buf = H5allocate_memory(cap, 0);

		if (!buf)
			return -1;
		/* an edge chunk is stored whole, as HDF5 stores it: zeros after */
		memcpy(buf, d->v + off * 4, n * 4);
		memset(buf + n * 4, 0, cap - n * 4);
		len = gt_h5z_filter(0, ncd, cd, cap, &cap, (void **)&buf);
		if (!len || H5Dwrite_chunk(ds, H5P_DEFAULT, 0, &off, len, buf) < 0)
			return H5free_memory(buf), -1;
		H5free_memory(buf);
	}
	return 0;
}

static int read_direct(hid_t ds, const struct data *d, unsigned char *back)
{
	unsigned cd[8];
	size_t ncd;

	if (filter_cd(ds, cd, &ncd) < 0)
		return -1;
	for (size_t c = 0; c < d->nchunks; c++) {
		const hsize_t off = (hsize_t)c * CHUNK_VALUES;
		const size_t n = d->n - off < CHUNK_VALUES ? d->n - off : CHUNK_VALUES;
		hsize_t stored = 0;
		uint32_t mask = 0;
		size_t cap;
		void *buf;

		if (H5Dget_chunk_storage_size(ds, &off, &stored) < 0 || !stored)
			return -1;
		cap = (size_t)stored;
		buf = H5allocate_memory(cap, 0);
		if (!buf || H5Dread_chunk(ds, H5P_DEFAULT, &off, &mask, buf) < 0 ||
		    gt_h5z_filter(H5Z_FLAG_REVERSE, ncd, cd, cap, &cap, &buf) != CHUNK_VALUES * 4)
			return H5free_memory(buf), -1;
		memcpy(back + off * 4, buf, n * 4);
		H5free_memory(buf);
	}
	return 0;
}

/* Write then read the whole dataset through HDF5 (memory type = file type:
 * no conversion) into @back, a buffer used before, as the codec's rows
 * decode into one (a fresh one would add the first touch of its pages);
 * a sec2 file is closed and opened again between, a core file (which a
 * close would discard) only the dataset. */
static int hdf5_pass(const struct data *d, const char *path, const struct how *h,
		     unsigned char *back, double *tw, double *tr, double fw_fr[2],
		     hsize_t *stored)
{
	double t0;
	hid_t f, ds;
	int rc;

	memset(back, 0xff, d->n * 4); /* pages touched before, values not those read */
	/* the file is made before the clock starts: a core file's image is
	 * allocated and zeroed there, which is no part of writing the data */
	f = make_file(path, h, d->n * 4);
	in_filter = 0;
	t0 = now();
	ds = f < 0 ? -1 : make_dataset(f, d, h);
	rc = ds < 0 ? -1 : 0;

	if (rc >= 0)
		rc = h->direct ? write_direct(ds, d)
			       : H5Dwrite(ds, H5T_IEEE_F32LE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d->v);
	H5Dclose(ds);
	if (!h->core)
		H5Fclose(f);
	*tw = now() - t0;
	fw_fr[0] = in_filter;
	in_filter = 0;
	t0 = now();
	if (!h->core)
		f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	ds = rc < 0 || f < 0 ? -1 : H5Dopen2(f, "x", H5P_DEFAULT);
	if (ds < 0 || (h->direct ? read_direct(ds, d, back)
				 : H5Dread(ds, H5T_IEEE_F32LE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back)) < 0)
		rc = -1;
	*stored = ds < 0 ? 0 : H5Dget_storage_size(ds);
	H5Dclose(ds);
	H5Fclose(f);
	*tr = now() - t0;
	fw_fr[1] = in_filter;
	if (rc >= 0 && memcmp(back, d->v, d->n * 4))
		rc = -1;
	return rc;
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
#define NPASS 7

static const struct how passes[NPASS] = {
	{ 1, 0, 0 }, { 1, 1, 0 }, { 1, 1, 1 }, { 1, 0, 1 }, { 0, 0, 0 }, { 0, 1, 0 }, { 2, 0, 0 },
};
static const char *const pass_name[NPASS] = {
	"HDF5 C API, filter 400, sec2 (file)",
	"HDF5 C API, filter 400, core (memory)",
	"H5Dwrite_chunk/H5Dread_chunk + filter function, core",
	"H5Dwrite_chunk/H5Dread_chunk + filter function, sec2",
	"HDF5 C API, no filter, sec2 (file)",
	"HDF5 C API, no filter, core (memory)",
	"HDF5 C API, gzip 6 + shuffle, sec2",
};

static void report(const struct data *d, int reps, int npass, double t[2 + NPASS][2][REPS_MAX],
		   double ft[NPASS][2][REPS_MAX], const hsize_t *stored)
{
	double m[2 + NPASS][2], fm[NPASS][2];

	for (int i = 0; i < 2 + npass; i++)
		for (int k = 0; k < 2; k++)
			m[i][k] = (double)d->n * 4 / median(t[i][k], reps) / 1e6;
	for (int i = 0; i < npass; i++)
		for (int k = 0; k < 2; k++)
			fm[i][k] = median(ft[i][k], reps);
	printf("%zu bytes of f32 in 1 MiB chunks, huffexp, ratio %.3f (gzip 6 + shuffle %.3f), "
	       "%d runs, medians, MB/s\n", d->n * 4, (double)d->n * 4 / (double)stored[0],
	       npass == NPASS ? (double)d->n * 4 / (double)stored[6] : 0.0, reps);
	printf("| path | write | read | write cost over codec | read cost over codec "
	       "| time in the filter over codec, write | read |\n");
	printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	printf("| codec alone (in memory) | %.0f | %.0f | | | | |\n", m[0][0], m[0][1]);
	for (int i = 1; i < 2 + npass; i++) {
		const int nocodec = i >= 2 + 4, pipeline = i == 2 || i == 3;
		const double cw = (double)d->n * 4 / m[0][0] / 1e6, cr = (double)d->n * 4 / m[0][1] / 1e6;

		printf("| %s | %.0f | %.0f |", i == 1 ? "filter function (in memory)"
			: pass_name[i - 2], m[i][0], m[i][1]);
		if (nocodec)
			printf(" | | | |\n");
		else if (!pipeline)
			printf(" %+.0f %% | %+.0f %% | | |\n", 100 * (m[0][0] / m[i][0] - 1),
			       100 * (m[0][1] / m[i][1] - 1));
		else
			printf(" %+.0f %% | %+.0f %% | %+.0f %% | %+.0f %% |\n",
			       100 * (m[0][0] / m[i][0] - 1), 100 * (m[0][1] / m[i][1] - 1),
			       100 * (fm[i - 2][0] / cw - 1), 100 * (fm[i - 2][1] / cr - 1));
	}
}

int main(int argc, char **argv)
{
	struct data d = { 0 };
	const int reps = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 5;
	const int npass = argc > 4 && strcmp(argv[4], "--no-gzip") == 0 ? NPASS - 1 : NPASS;
	static double t[2 + NPASS][2][REPS_MAX], ft[NPASS][2][REPS_MAX];
	H5Z_class2_t timed = gt_h5z_class;
	hsize_t stored[NPASS] = { 0 };
	unsigned char *scratch, *out, *back;

	if (argc < 3 || reps < 1 || reps > REPS_MAX || load(argv[1], &d) < 0) {
		fprintf(stderr, "usage: h5filter-bench FILE.f32 WORK.h5 [REPEAT [--no-gzip]]\n");
		return 2;
	}
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	timed.filter = timed_filter;
	if (H5Zregister(&timed) < 0)
		return 1;
	scratch = malloc(2 * (size_t)CHUNK_VALUES * 4 + (1u << 20));
	out = malloc((size_t)CHUNK_VALUES * 4);
	back = malloc(d.n * 4);
	if (!scratch || !out || !back)
		return 1;
	for (int r = 0; r < reps; r++) {
		double tm[4];

		if (memory_pass(&d, scratch, out, tm) < 0)
			return 1;
		for (int i = 0; i < 4; i++)
			t[i / 2][i % 2][r] = tm[i];
		for (int i = 0; i < npass; i++) {
			double f2[2];

			if (hdf5_pass(&d, argv[2], &passes[i], back, &t[2 + i][0][r],
				      &t[2 + i][1][r], f2, &stored[i]) < 0) {
				fprintf(stderr, "h5filter-bench: HDF5 write or read failed (%s)\n",
					pass_name[i]);
				return 1;
			}
			ft[i][0][r] = f2[0];
			ft[i][1][r] = f2[1];
		}
	}
	report(&d, reps, npass, t, ft, stored);
	free(scratch);
	free(out);
	free(back);
	free(d.v);
	return 0;
}
