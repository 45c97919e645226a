/* test_palette.c - palettes and tokens (lib/gt_palette.h) */
#include "check.h"
#include "../../lib/gt_palette.h"

static const enum gt_dtype dts[] = { GT_DT_F32, GT_DT_F16, GT_DT_BF16, GT_DT_F64 };

/* @n values of @dt drawn from @distinct random bit patterns (all of them
 * when @distinct is 0). */
static void fill(void *buf, enum gt_dtype dt, size_t n, size_t distinct)
{
	const unsigned bits = 8 * gt_dtype_size(dt);
	const uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;

	for (size_t i = 0; i < n; i++) {
		uint64_t v = distinct ? check_rand() % distinct : i;

		v = (v * UINT64_C(0x9e3779b97f4a7c15) + 12345) & mask;
		gt_fp_store(buf, dt, i, v);
	}
}

/* Encode the @n values at @v (rows of @rk) with @param, decode from an
 * exact-size copy, compare; the stream's bytes are returned. */
static size_t rt(const void *v, enum gt_dtype dt, size_t n, size_t rk,
		 unsigned param)
{
	const size_t w = gt_dtype_size(dt);
	struct gt_pal p, q;
	unsigned char *out = malloc(4 * n + 16), *pal, *back = malloc(n * w + 1);
	unsigned char *exact;
	size_t len = 0;

	gt_pal_init(&p);
	gt_pal_init(&q);
	CHECK_RC(gt_pal_build(&p, v, n, dt), 0);
	pal = malloc(p.d * w + 1);
	gt_pal_values(&p, dt, pal);
	CHECK_RC(gt_pal_encode(&p, rk, param, out, 4 * n + 16, &len), 0);
	exact = malloc(len ? len : 1);
	memcpy(exact, out, len);
	CHECK_RC(gt_pal_decode(&q, rk, param, exact, len, pal, p.d, dt, back, n), 0);
	CHECK(!memcmp(back, v, n * w));
	/* one byte short: refused */
	if (len)
		CHECK(gt_pal_decode(&q, rk, param, exact, len - 1, pal, p.d, dt, back, n) < 0);
	free(exact);
	free(pal);
	free(out);
	free(back);
	gt_pal_release(&p);
	gt_pal_release(&q);
	return len;
}

/* Every dtype, length, repeat rate, row length and param round trips;
 * gt_pal_choose's bits are those its param writes, and no param fewer. */
static void test_roundtrips(void)
{
	const size_t ns[] = { 0, 1, 2, 7, 64, 370, 1000, 4099 };
	const size_t ds[] = { 0, 1, 2, 3, 45, 300 }, rks[] = { 0, 1, 2, 5, 185 };

	for (unsigned t = 0; t < 4; t++)
		for (unsigned a = 0; a < 8; a++)
			for (unsigned b = 0; b < 6; b++)
				for (unsigned c = 0; c < 5; c++) {
					const size_t n = ns[a], w = gt_dtype_size(dts[t]);
					unsigned char *v = malloc(n * w + 1);
					struct gt_pal p;
					uint64_t bits;
					size_t best = SIZE_MAX, got;
					int param;

					fill(v, dts[t], n, ds[b]);
					gt_pal_init(&p);
					CHECK_RC(gt_pal_build(&p, v, n, dts[t]), 0);
					param = gt_pal_choose(&p, rks[c], &bits);
					CHECK(gt_pal_param_ok((unsigned)param));
					gt_pal_release(&p);
					for (unsigned pm = 0; pm < 8; pm++) {
						if (!gt_pal_param_ok(pm))
							continue;
						got = rt(v, dts[t], n, rks[c], pm);
						best = got < best ? got : best;
						if (pm == (unsigned)param)
							CHECK(got == (bits + 7) / 8);
					}
					CHECK((bits + 7) / 8 == best);
					free(v);
				}
}

/* Tokens written by hand from the layout in gt_palette.h. */
static void test_layout(void)
{
	/* a b a c, no context: NEW; 0 NEW; 1 REF j = 0 of 2 (1 bit 0); 0 NEW */
	const float abac[] = { 1.5f, 2.5f, 1.5f, 3.5f };
	/* rows of 3: x y x / p q p: p and q have no prediction (NEW, 0),
	 * the last p is predicted by the first x's below: HIT */
	const float rows[] = { 1.0f, 2.0f, 1.0f, 7.0f, 8.0f, 7.0f };
	struct gt_pal p;
	unsigned char out[8];
	uint64_t bits;
	size_t len;

	gt_pal_init(&p);
	CHECK_RC(gt_pal_build(&p, abac, 4, GT_DT_F32), 0);
	CHECK(p.d == 3 && p.idx[2] == 0 && p.idx[3] == 2);
	CHECK_RC(gt_pal_encode(&p, 0, 0, out, sizeof(out), &len), 0);
	CHECK(len == 1 && out[0] == 0x02);
	CHECK_RC(gt_pal_build(&p, rows, 6, GT_DT_F32), 0);
	/* s = 2 (HIT 1 bit): 0; 1 0; 0; 0; 0 -> 0b000010 */
	CHECK_RC(gt_pal_encode(&p, 3, GT_PAL_CTX | 2 << 1, out, sizeof(out), &len), 0);
	CHECK(len == 1 && out[0] == 0x02);
	/* s = 0 (NEW 1 bit): HIT is 1 1 (the second of REF, HIT) */
	CHECK_RC(gt_pal_encode(&p, 3, GT_PAL_CTX, out, sizeof(out), &len), 0);
	CHECK(len == 1 && out[0] == 0x62);
	/* no context: the last p is REF j = 2 of 4: 1, then 2 in 2 bits (0 1) */
	CHECK_RC(gt_pal_encode(&p, 3, 0, out, sizeof(out), &len), 0);
	CHECK(len == 1 && out[0] == 0xa2);
	CHECK_RC(gt_pal_choose(&p, 3, &bits), (int)(GT_PAL_CTX | 2 << 1));
	CHECK(bits == 6);
	CHECK_RC(gt_pal_encode(&p, 3, 3 << 1, out, sizeof(out), &len), GT_ERR(INVAL));
	CHECK_RC(gt_pal_encode(&p, 3, 7, out, sizeof(out), &len), GT_ERR(INVAL));
	CHECK_RC(gt_pal_encode(&p, 3, 0, out, 0, &len), GT_ERR(DST_TOO_SMALL));
	gt_pal_release(&p);
}

/* Streams that are not an encoder's: errors, never a crash (ASan). */
static void test_hostile(void)
{
	const float pal[] = { 1.5f, 2.5f, 3.5f };
	const unsigned char good[] = { 0x02 }, extra[] = { 0x02, 0 };
	const unsigned char pad[] = { 0x12 }, allnew[] = { 0x00 };
	struct gt_pal p;
	float back[64];
	unsigned char junk[16];

	gt_pal_init(&p);
	CHECK_RC(gt_pal_decode(&p, 0, 0, good, 1, pal, 3, GT_DT_F32, back, 4), 0);
	CHECK(!memcmp(&back[2], &pal[0], 4) && !memcmp(&back[3], &pal[2], 4));
	CHECK_RC(gt_pal_decode(&p, 0, 0, extra, 2, pal, 3, GT_DT_F32, back, 4), GT_ERR(CORRUPT));
	CHECK_RC(gt_pal_decode(&p, 0, 0, pad, 1, pal, 3, GT_DT_F32, back, 4), GT_ERR(CORRUPT));
	CHECK_RC(gt_pal_decode(&p, 0, 0, good, 0, pal, 3, GT_DT_F32, back, 4), GT_ERR(TRUNCATED));
	/* four NEWs and a palette of three; a palette value left unused */
	CHECK_RC(gt_pal_decode(&p, 0, 0, allnew, 1, pal, 3, GT_DT_F32, back, 4), GT_ERR(CORRUPT));
	CHECK_RC(gt_pal_decode(&p, 0, 0, allnew, 1, pal, 3, GT_DT_F32, back, 2), GT_ERR(CORRUPT));
	/* a palette larger than the values, a bad param */
	CHECK_RC(gt_pal_decode(&p, 0, 0, good, 1, pal, 3, GT_DT_F32, back, 2), GT_ERR(CORRUPT));
	CHECK_RC(gt_pal_decode(&p, 0, 6, good, 1, pal, 3, GT_DT_F32, back, 4), GT_ERR(CORRUPT));
	CHECK_RC(gt_pal_decode(&p, 0, 1 | 3 << 1, good, 1, pal, 3, GT_DT_F32, back, 4),
		 GT_ERR(CORRUPT));
	/* random streams with every param and palette size: no crash */
	for (unsigned k = 0; k < 2000; k++) {
		const size_t len = check_rand() % sizeof(junk), n = 1 + check_rand() % 64;

		for (size_t i = 0; i < len; i++)
			junk[i] = (unsigned char)check_rand();
		(void)gt_pal_decode(&p, check_rand() % 5, check_rand() % 8, junk, len, pal,
				    1 + check_rand() % 3, GT_DT_F32, back, n);
	}
	gt_pal_release(&p);
}

/* The cheap test: repeats of values that are not ±0.0 in one in eight. */
static void test_worth(void)
{
	float *v = malloc(100000 * sizeof(float));

	for (size_t i = 0; i < 100000; i++)
		v[i] = (float)i * 0.001f + 1.0f;
	CHECK(!gt_pal_worth(v, 100000, GT_DT_F32));
	CHECK(!gt_pal_worth(v, 0, GT_DT_F32));
	for (size_t i = 0; i < 100000; i++)
		v[i] = (float)(i % 50) - 25.0f;
	CHECK(gt_pal_worth(v, 100000, GT_DT_F32));
	CHECK(gt_pal_worth(v, 400, GT_DT_F32));
	/* ±0.0 only: not worth it */
	for (size_t i = 0; i < 100000; i++)
		v[i] = i % 2 ? -0.0f : 0.0f;
	CHECK(!gt_pal_worth(v, 100000, GT_DT_F32));
	/* 1 in 16 repeats: below the bar */
	for (size_t i = 0; i < 100000; i++)
		v[i] = i % 16 ? (float)i + 0.5f : 3.0f;
	CHECK(!gt_pal_worth(v, 1024, GT_DT_F32));
	for (size_t i = 0; i < 100000; i++)
		v[i] = i % 4 ? (float)i + 0.5f : 3.0f;
	CHECK(gt_pal_worth(v, 1024, GT_DT_F32));
	free(v);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_roundtrips);
	RUN(test_layout);
	RUN(test_hostile);
	RUN(test_worth);
	return check_done("test_palette");
}
