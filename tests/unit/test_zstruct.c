/* test_zstruct.c - zero rows and columns, row copies: found, kept, saved */
#include "check.h"
#include "../../lib/gt_zstruct.h"
#include "../../lib/banned.h"

static const enum gt_dtype dts[] = { GT_DT_F32, GT_DT_F16, GT_DT_BF16, GT_DT_F64 };

/* @rows x @R values of @dt: random, with rows and columns of +0.0 where
 * zr / zc say (1 in @every of them), and -0.0 sprinkled in. */
static void fill(void *buf, enum gt_dtype dt, size_t rows, size_t R, size_t n,
		 unsigned char *zr, unsigned char *zc, unsigned every)
{
	for (size_t r = 0; r < rows; r++)
		zr[r] = check_rand() % every == 0;
	for (size_t c = 0; c < R; c++)
		zc[c] = check_rand() % every == 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = check_rand() | 1; /* never +0.0 */

		if (dt != GT_DT_F64)
			v &= (1ull << (8 * gt_dtype_size(dt))) - 1;
		if (check_rand() % 16 == 0)
			v = gt_fp_make(1, 0, 0, dt); /* -0.0 is no hole */
		if (zr[i / R] || zc[i % R])
			v = 0;
		gt_fp_store(buf, dt, i, v);
	}
}

static int bit(const uint8_t *m, size_t i)
{
	return m[i / 8] >> (i % 8) & 1;
}

/* The bitmaps against an independent count over every value. */
static void check_found(const struct gt_zstruct *z, const void *buf,
			enum gt_dtype dt, size_t R, size_t n)
{
	const size_t rows = (n + R - 1) / R;
	size_t zrows = 0;

	CHECK(z->nrows == rows && z->row_len == R);
	for (size_t r = 0; r < rows; r++) {
		int zero = 1;

		for (size_t i = r * R; i < n && i < (r + 1) * R; i++)
			zero &= gt_fp_load(buf, dt, i) == 0;
		CHECK(bit(z->rows, r) == zero);
		zrows += (size_t)zero;
	}
	for (size_t c = 0; c < R; c++) {
		int zero = 1;

		for (size_t i = c; i < n; i += R)
			zero &= gt_fp_load(buf, dt, i) == 0;
		/* a column is only counted when some row is not zero */
		CHECK(bit(z->cols, c) == (zero && zrows < rows));
	}
	CHECK(z->zero_rows == zrows);
}

/* Gather then scatter in pieces of @step values: the same bytes. */
static void check_pieces(const struct gt_zstruct *z, const void *buf,
			 enum gt_dtype dt, size_t n, size_t step)
{
	const size_t w = gt_dtype_size(dt);
	unsigned char *kept = malloc(n * w + 1), *back = malloc(n * w + 1);

	memset(back, 0xa5, n * w + 1);
	for (size_t q = 0; q < n; q += step) {
		const size_t m = n - q < step ? n - q : step;
		const size_t k = gt_zs_gather(z, q, (const unsigned char *)buf + q * w, m, w, kept);
		size_t holes = 0;

		CHECK(k == gt_zs_kept(z, q, m));
		for (size_t i = q; i < q + m; i++) {
			const size_t r = i / z->row_len, c = i % z->row_len;

			holes += (size_t)(((z->flags & GT_ZS_ROWS) && bit(z->rows, r)) ||
					  ((z->flags & GT_ZS_COLS) && bit(z->cols, c)));
		}
		CHECK(k == m - holes);
		gt_zs_scatter(z, q, kept, m, w, back + q * w);
	}
	CHECK(!memcmp(back, buf, n * w));
	CHECK(back[n * w] == 0xa5);
	free(kept);
	free(back);
}

/* Save and load: the same structure back, and the exact size. */
static void check_saved(const struct gt_zstruct *z)
{
	unsigned char buf[4096];
	struct gt_zstruct y;
	size_t len = 0, used = 0;

	gt_zs_init(&y);
	CHECK_RC(gt_zs_save(z, buf, sizeof(buf), &len), 0);
	CHECK(len == gt_zs_size(z));
	CHECK_RC(gt_zs_save(z, buf, len - 1, &used), GT_ERR(DST_TOO_SMALL));
	CHECK_RC(gt_zs_load(&y, buf, len, &used), 0);
	CHECK(used == len && y.flags == z->flags && y.row_len == z->row_len &&
	      y.nrows == z->nrows);
	if (z->flags & GT_ZS_ROWS)
		CHECK(!memcmp(y.rows, z->rows, (z->nrows + 7) / 8));
	if (z->flags & GT_ZS_COLS)
		CHECK(!memcmp(y.cols, z->cols, (z->row_len + 7) / 8));
	for (size_t cut = 0; cut < len; cut++)
		CHECK(gt_zs_load(&y, buf, cut, &used) < 0);
	gt_zs_release(&y);
}

static void test_masks(void)
{
	const size_t Rs[] = { 2, 3, 7, 8, 16, 33, 100 };
	const size_t rows[] = { 2, 3, 9, 40 };
	const unsigned every[] = { 2, 3, 1000 };
	struct gt_zstruct z;

	gt_zs_init(&z);
	for (unsigned d = 0; d < 4; d++)
		for (unsigned a = 0; a < 7; a++)
			for (unsigned b = 0; b < 4; b++)
				for (unsigned e = 0; e < 3; e++) {
					const size_t R = Rs[a], n = rows[b] * R - (b & 1) * (R / 2);
					unsigned char zr[40], zc[100];
					void *buf = malloc(rows[b] * R * 8);

					fill(buf, dts[d], rows[b], R, n, zr, zc, every[e]);
					CHECK_RC(gt_zs_find(&z, buf, n, dts[d], R), 0);
					check_found(&z, buf, dts[d], R, n);
					for (unsigned f = 1; f < 4; f++) {
						if ((z.flags & f) != f)
							continue;
						z.flags = f;
						check_pieces(&z, buf, dts[d], n, n);
						check_pieces(&z, buf, dts[d], n, 1 + R / 3);
						check_pieces(&z, buf, dts[d], n, 2 * R + 1);
						check_saved(&z);
					}
					free(buf);
				}
	gt_zs_release(&z);
}

/* Rows of one block: copies and negated copies found, listed, applied. */
static void test_copies(void)
{
	const size_t R = 12, rows = 30, n = R * rows;
	float v[30 * 12], back[30 * 12], kept[30 * 12];
	unsigned char list[1024];
	struct gt_zstruct z, y;
	size_t len, used, k;

	gt_zs_init(&z);
	gt_zs_init(&y);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)(check_rand() % 1000) - 500.5f;
	for (size_t c = 0; c < R; c++) {
		v[2 * R + c] = 0;             /* a zero row */
		v[7 * R + c] = v[3 * R + c];  /* a copy */
		v[9 * R + c] = -v[3 * R + c]; /* a negated copy */
		v[20 * R + c] = v[7 * R + c]; /* a copy of a copy: of row 3 */
		v[c * R + 5] = 0;             /* column 5 zero (rows 0-11 here) */
	}
	for (size_t r = 0; r < rows; r++)
		v[r * R + 5] = 0;
	CHECK_RC(gt_zs_find(&z, v, n, GT_DT_F32, R), 0);
	CHECK(z.flags == (GT_ZS_ROWS | GT_ZS_COLS) && z.zero_rows == 1 && z.zero_cols == 1);
	z.flags |= GT_ZS_COPIES;
	CHECK_RC(gt_zs_find_copies(&z, 0, v, n, GT_DT_F32), 0);
	CHECK(z.ncopy == 3);
	CHECK(z.copy[0] == 7 && z.from[0] == 3 && !z.neg[0]);
	CHECK(z.copy[1] == 9 && z.from[1] == 3 && z.neg[1]);
	CHECK(z.copy[2] == 20 && z.from[2] == 3 && !z.neg[2]);
	CHECK_RC(gt_zs_copies_save(&z, 0, list, sizeof(list), &len), 0);
	k = gt_zs_gather(&z, 0, v, n, 4, kept);
	CHECK(k == (rows - 1 - 3) * (R - 1));
	/* the decoder's side */
	CHECK_RC(gt_zs_find(&y, v, n, GT_DT_F32, R), 0);
	y.flags |= GT_ZS_COPIES;
	CHECK_RC(gt_zs_copies_load(&y, 0, n, list, len, &used), 0);
	CHECK(used == len && y.ncopy == 3);
	CHECK(gt_zs_kept(&y, 0, n) == k);
	gt_zs_scatter(&y, 0, kept, n, 4, back);
	gt_zs_apply_copies(&y, 0, back, GT_DT_F32);
	CHECK(!memcmp(back, v, sizeof(v)));
	/* a chunk that starts mid-row: whole rows only, sources inside it */
	CHECK_RC(gt_zs_find_copies(&z, 5 * R + 3, v + 5 * R + 3, 6 * R, GT_DT_F32), 0);
	/* rows 6-10: row 7's source, row 3, is outside; row 9 negates 7 */
	CHECK(z.ncopy == 1 && z.copy[0] == 9 && z.from[0] == 7 && z.neg[0]);
	CHECK_RC(gt_zs_find_copies(&z, 3 * R, v + 3 * R, 5 * R, GT_DT_F32), 0);
	CHECK(z.ncopy == 1 && z.copy[0] == 7);
	/* hostile lists */
	{
		const unsigned char past[] = { 1, 40, 0 }, early[] = { 1, 0, 0 };
		const unsigned char zero[] = { 1, 2, 0 }, many[] = { 31 };

		CHECK_RC(gt_zs_copies_load(&y, 0, n, past, 3, &used), GT_ERR(CORRUPT));
		CHECK_RC(gt_zs_copies_load(&y, 0, n, early, 3, &used), GT_ERR(CORRUPT));
		CHECK_RC(gt_zs_copies_load(&y, 0, n, zero, 3, &used), GT_ERR(CORRUPT));
		CHECK_RC(gt_zs_copies_load(&y, 0, n, many, 1, &used), GT_ERR(CORRUPT));
		CHECK_RC(gt_zs_copies_load(&y, 0, n, zero, 2, &used), GT_ERR(TRUNCATED));
	}
	gt_zs_release(&z);
	gt_zs_release(&y);
}

static void test_hostile(void)
{
	const unsigned char noflag[] = { 0, 4, 2 }, badflag[] = { 17, 4, 2, 0 };
	const unsigned char pal[] = { 8, 4, 2 }, palrow[] = { 9, 4, 2, 0x02 };
	const unsigned char r1[] = { 1, 1, 2, 0 }, rows0[] = { 1, 4, 0 };
	const unsigned char spare[] = { 1, 4, 3, 0x08 }, ok[] = { 3, 4, 3, 0x05, 0x02 };
	struct gt_zstruct z;
	float zeros[8] = { 0 };
	size_t used;

	gt_zs_init(&z);
	CHECK_RC(gt_zs_load(&z, noflag, sizeof(noflag), &used), GT_ERR(CORRUPT));
	CHECK_RC(gt_zs_load(&z, badflag, sizeof(badflag), &used), GT_ERR(CORRUPT));
	CHECK_RC(gt_zs_load(&z, r1, sizeof(r1), &used), GT_ERR(CORRUPT));
	CHECK_RC(gt_zs_load(&z, rows0, sizeof(rows0), &used), GT_ERR(CORRUPT));
	CHECK_RC(gt_zs_load(&z, spare, sizeof(spare), &used), GT_ERR(CORRUPT));
	CHECK_RC(gt_zs_load(&z, ok, sizeof(ok), &used), 0);
	CHECK(used == 5 && z.zero_rows == 2 && z.zero_cols == 1);
	/* the palette flag (format 1.4): kept, alone or with a bitmap */
	CHECK_RC(gt_zs_load(&z, pal, sizeof(pal), &used), 0);
	CHECK(used == 3 && z.flags == GT_ZS_PALETTE && gt_zs_kept(&z, 0, 8) == 8);
	CHECK_RC(gt_zs_load(&z, palrow, sizeof(palrow), &used), 0);
	CHECK(used == 4 && z.flags == (GT_ZS_PALETTE | GT_ZS_ROWS) && gt_zs_kept(&z, 0, 8) == 4);
	/* too few rows or a row of one value: no structure to find */
	CHECK_RC(gt_zs_find(&z, zeros, 8, GT_DT_F32, 8), GT_ERR(INVAL));
	CHECK_RC(gt_zs_find(&z, zeros, 8, GT_DT_F32, 1), GT_ERR(INVAL));
	CHECK_RC(gt_zs_find(&z, zeros, 8, GT_DT_F32, 0), GT_ERR(INVAL));
	gt_zs_release(&z);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_masks);
	RUN(test_copies);
	RUN(test_hostile);
	return check_done("test_zstruct");
}
