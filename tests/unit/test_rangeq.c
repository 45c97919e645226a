/* test_rangeq.c - the offset-based N-bit float: Figure 8, the eps search,
 * monotone codes for every N, clamping, error bound, packing, hostile headers */
#include <math.h>

#include "check.h"
#include "../../lib/gt_rangeq.h"
#include "../../lib/gt_bitio.h"

/* The signed rank of a code: 0, 1..P, -1..-(2^N - 1 - P). */
static long rank(const struct gt_rangeq *q, uint32_t code)
{
	return code <= q->npos ? (long)code : -(long)(code - q->npos);
}

static uint32_t fbits(float f) { return gt_f32_bits(f); }

/* Figure 8: m = 3, eps = 0.125 (pbase 0x3e0): 0.256 -> 00001001 -> 0.25. */
static void test_figure8(void)
{
	unsigned char hdr[GT_RANGEQ_HDR] = { 3, 0xe0, 0x03, 0, 0, 127, 0, 0, 0 };
	struct gt_rangeq q;

	CHECK_RC(gt_rangeq_load(&q, 8, hdr), 0);
	CHECK(q.pbase == 0x3e0);
	CHECK(fbits(gt_rangeq_eps(&q)) == fbits(0.125f));
	CHECK(gt_rangeq_code(&q, 0.256f) == 9);
	CHECK(fbits(gt_rangeq_value(&q, 9)) == fbits(0.25f));
	CHECK(fbits(gt_rangeq_value(&q, 1)) == fbits(0.125f));
}

/*
 * The search gives the smallest pbase at which the codes reach max and
 * min: (bp + bn + 2 - (2^N - 1)) / 2 rounded up, but at least bp or bn
 * - (2^N - 1) + 1 (one side alone must fit) and at least 1: computed here
 * in closed form.  The end codes decode to max and min truncated to m
 * bits, or min is below eps (a very lopsided range) and codes as 0.
 */
static void test_eps_search(void)
{
	static const float ranges[][2] = { { -1, 1 }, { -0.05f, 0.3f }, { -2, 2 },
					   { -1e-6f, 1e-3f }, { -3e5f, 7.5f }, { 0, 1 },
					   { -1, 0 } };

	for (unsigned N = 2; N <= 16; N++) {
		for (unsigned m = 1; m <= 23; m++) {
			for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
				const float lo = ranges[r][0], hi = ranges[r][1];
				const unsigned sh = 23 - m;
				const long bp = (long)(fbits(hi) >> sh), bn = (long)(fbits(fabsf(lo)) >> sh);
				const long codes = (1L << N) - 1;
				const int sp = hi > 0, sn = lo < 0;
				long want = ((sp ? bp + 1 : 0) + (sn ? bn + 1 : 0) - codes + sp + sn - 1) /
					    (sp + sn);
				struct gt_rangeq q;

				want = want < 1 ? 1 : want;
				want = sp && bp - codes + 1 > want ? bp - codes + 1 : want;
				want = sn && bn - codes + 1 > want ? bn - codes + 1 : want;
				CHECK_RC(gt_rangeq_fit(&q, N, m, fbits(hi), fbits(fabsf(lo))), 0);
				CHECK((long)q.pbase == want);
				CHECK((long)q.npos == (sp && bp >= want ? bp - want + 1 : 0));
				CHECK((long)q.nneg == (sn && bn >= want ? bn - want + 1 : 0));
				CHECK((long)(q.npos + q.nneg) <= codes);
				if (sp && bp >= want)
					CHECK(fbits(gt_rangeq_value(&q, q.npos)) == (uint32_t)bp << sh);
				if (sn && bn >= want) {
					CHECK(fbits(gt_rangeq_value(&q, q.npos + (uint32_t)(bn - want + 1))) ==
					      (1u << 31 | (uint32_t)bn << sh));
				}
				/* balanced: a symmetric range splits the codes evenly */
				if (fbits(-lo) == fbits(hi) && want > 1)
					CHECK(labs((long)q.npos - (long)q.nneg) <= 1);
			}
		}
	}
}

/* Codes are monotone in the value for every N; values beyond the range
 * clamp to the end codes; the error bound inside [eps, max]. */
static void test_monotone_clamp(void)
{
	for (unsigned N = 2, m = 1; N <= 16; m = m < N ? m + 1 : 1, N += m == 1) {
		struct gt_rangeq q;
		long prev = -(1L << 20);
		int mono = 1, bound = 1;

		CHECK_RC(gt_rangeq_fit(&q, N, m, fbits(0.5f), fbits(0.25f)), 0);
		for (int i = -4000; i <= 4000; i++) {
			/* log-spaced over 1e-12..1, both signs, and 0 */
			const float a = i ? (float)pow(10, -12.0 * (4000 - abs(i)) / 4000) : 0;
			const float x = i < 0 ? -a : a;
			const uint32_t c = gt_rangeq_code(&q, x);
			const float y = gt_rangeq_value(&q, c);
			const long rk = rank(&q, c);

			mono &= rk >= prev;
			prev = rk;
			if (fabsf(x) >= gt_rangeq_eps(&q) && x <= 0.5f && x >= -0.25f)
				bound &= fabsf(y) <= fabsf(x) && fabsf(x - y) <= ldexpf(fabsf(x), -(int)q.m);
		}
		CHECK(mono);
		CHECK(bound);
		CHECK(gt_rangeq_code(&q, 7.0f) == q.npos);
		CHECK(gt_rangeq_code(&q, INFINITY) == q.npos);
		/* min = -0.25 is exact at every m; or below eps when N is small */
		CHECK(q.nneg ? gt_f32_bits(gt_rangeq_value(&q, gt_rangeq_code(&q, -7.0f))) ==
				       gt_f32_bits(-0.25f)
			     : gt_rangeq_code(&q, -7.0f) == 0);
		CHECK(rank(&q, gt_rangeq_code(&q, -INFINITY)) == rank(&q, gt_rangeq_code(&q, -7.0f)));
		CHECK(gt_rangeq_code(&q, NAN) == 0);
		CHECK(gt_rangeq_code(&q, -0.0f) == 0);
		CHECK(gt_rangeq_code(&q, 1e-45f) == 0); /* a subnormal below eps */
	}
}

/* Pack and unpack: every N, odd lengths, exact byte counts. */
static void test_pack(void)
{
	static const size_t lens[] = { 0, 1, 7, 1001 };
	float x[1001], y[1001];
	unsigned char buf[2100];

	for (unsigned N = 2; N <= 16; N++) {
		for (size_t l = 0; l < 4; l++) {
			const size_t n = lens[l], need = (n * N + 7) / 8;
			struct gt_rangeq q;
			size_t len;
			int same = 1;

			for (size_t i = 0; i < n; i++)
				x[i] = (float)((double)(check_rand() >> 11) * 0x1p-53 - 0.5) *
				       (float)pow(10, -(double)(check_rand() % 6));
			CHECK_RC(gt_rangeq_fit_auto(&q, N, fbits(0.5f), fbits(0.5f), x, n), 0);
			CHECK_RC(gt_rangeq_pack(&q, x, n, buf, need ? need - 1 : 0, &len),
				 need ? GT_ERR(DST_TOO_SMALL) : 0);
			CHECK_RC(gt_rangeq_pack(&q, x, n, buf, need, &len), 0);
			CHECK(len == need);
			CHECK_RC(gt_rangeq_unpack(&q, buf, len, y, n), 0);
			for (size_t i = 0; i < n; i++)
				same &= gt_f32_bits(y[i]) ==
					gt_f32_bits(gt_rangeq_value(&q, gt_rangeq_code(&q, x[i])));
			CHECK(same);
			if (n) {
				CHECK_RC(gt_rangeq_unpack(&q, buf, len - 1, y, n), GT_ERR(TRUNCATED));
				buf[len] = 0;
				CHECK_RC(gt_rangeq_unpack(&q, buf, len + 1, y, n), GT_ERR(CORRUPT));
			}
			if ((n * N) & 7) {
				buf[len - 1] |= 0x80;
				CHECK_RC(gt_rangeq_unpack(&q, buf, len, y, n), GT_ERR(CORRUPT));
			}
		}
	}
}

/* Hostile headers: every accepted one decodes every code to a finite value. */
static void test_load(void)
{
	unsigned char h[GT_RANGEQ_HDR] = { 0 };
	struct gt_rangeq q;
	int finite = 1;

	CHECK_RC(gt_rangeq_load(&q, 8, h), GT_ERR(CORRUPT)); /* m = 0 */
	h[0] = 24;
	h[1] = 1;
	CHECK_RC(gt_rangeq_load(&q, 8, h), GT_ERR(CORRUPT)); /* m = 24 */
	h[0] = 1;
	h[1] = 0;
	CHECK_RC(gt_rangeq_load(&q, 8, h), GT_ERR(CORRUPT)); /* pbase = 0 */
	h[1] = 1;
	h[5] = 0;
	h[6] = 1; /* P = 256 > 255 */
	CHECK_RC(gt_rangeq_load(&q, 8, h), GT_ERR(CORRUPT));
	for (int i = 0; i < 20000; i++) {
		const unsigned N = 2 + (unsigned)(check_rand() % 15);

		for (int b = 0; b < GT_RANGEQ_HDR; b++)
			h[b] = (unsigned char)check_rand();
		h[0] %= 24;
		if (gt_rangeq_load(&q, N, h) < 0)
			continue;
		for (uint32_t c = 0; c < (1u << N); c += 1 + (c >> 4))
			finite &= isfinite(gt_rangeq_value(&q, c));
		finite &= isfinite(gt_rangeq_value(&q, (1u << N) - 1));
	}
	CHECK(finite);
}

/* A value with any bit pattern, or a gradient-like one, or a special. */
static float any_value(void)
{
	static const uint32_t edge[] = { 0x7fc00000u, 0xffa00001u, 0x7f800000u, 0xff800000u,
					 0, 0x80000000u, 1, 0x807fffffu, 0x7f7fffffu };
	const uint64_t z = check_rand();

	if (z % 8 == 0)
		return gt_f32_from_bits(edge[(z >> 8) % 9]);
	if (z % 8 < 5)
		return gt_f32_from_bits(((uint32_t)(z >> 32) & 0x80ffffffu) |
					(uint32_t)(100 + (z >> 24) % 30) << 23);
	return gt_f32_from_bits((uint32_t)(z >> 32));
}

/*
 * The vectorized loops of pack and unpack against the inline
 * gt_rangeq_code() and gt_rangeq_value(), code by code through gt_bitio:
 * fitted parameters (any range, any m) and accepted hostile headers, on
 * any values and on every code 0 .. 2^N - 1; and the range against a
 * loop here.  For each instruction set this CPU runs.
 */
static void pack_vs_inline_isa(enum gt_isa isa)
{
	enum { N_X = 2500 };
	static float x[N_X], y[1u << 16];
	static unsigned char buf[1u << 17];
	int same = 1;

	for (int t = 0; t < 300; t++) {
		const unsigned N = 2 + (unsigned)(check_rand() % 15);
		const unsigned m = 1 + (unsigned)(check_rand() % 23);
		const size_t n = (size_t)(check_rand() % N_X), ncodes = (size_t)1 << N;
		struct gt_rangeq q;
		struct gt_bitr r;
		struct gt_bitw w;
		size_t len;

		if (t % 2) {
			unsigned char h[GT_RANGEQ_HDR];

			for (int b = 0; b < GT_RANGEQ_HDR; b++)
				h[b] = (unsigned char)check_rand();
			h[0] = (unsigned char)m;
			h[3] = h[4] = 0; /* pbase < 2^16: most headers load */
			h[7] = h[8] = 0;
			if (gt_rangeq_load(&q, N, h) < 0)
				continue;
		} else {
			const uint32_t pos = gt_f32_bits(fabsf(any_value())) % 0x7f800000u;
			const uint32_t neg = t % 3 ? gt_f32_bits(fabsf(any_value())) % 0x7f800000u : 0;

			CHECK_RC(gt_rangeq_fit(&q, N, m, pos, neg), 0);
		}
		q.isa = isa;
		for (size_t i = 0; i < n; i++)
			x[i] = any_value();
		CHECK_RC(gt_rangeq_pack(&q, x, n, buf, sizeof(buf), &len), 0);
		gt_bitr_init(&r, buf, len);
		for (size_t i = 0; i < n; i++)
			same &= gt_bitr_get(&r, N) == gt_rangeq_code(&q, x[i]);
		gt_bitw_init(&w, buf, sizeof(buf));
		for (size_t i = 0; i < ncodes; i++) {
			gt_bitw_put(&w, i, N);
			gt_bitw_flush(&w);
		}
		CHECK_RC(gt_bitw_close(&w, &len), 0);
		CHECK_RC(gt_rangeq_unpack(&q, buf, len, y, ncodes), 0);
		for (size_t i = 0; i < ncodes; i++)
			same &= gt_f32_bits(y[i]) == gt_f32_bits(gt_rangeq_value(&q, (uint32_t)i));
	}
	CHECK(same);
}

/* The range: largest finite positive and negative magnitude, one by one. */
static void range_isa(enum gt_isa isa)
{
	static float x[3000];
	int same = 1;

	for (int t = 0; t < 200; t++) {
		const size_t n = (size_t)(check_rand() % 3000);
		uint32_t p = 0, q = 0, pr, qr;

		for (size_t i = 0; i < n; i++) {
			const uint32_t u = gt_f32_bits(x[i] = any_value()), a = u & 0x7fffffffu;

			if (a < 0x7f800000u && u >> 31)
				q = a > q ? a : q;
			else if (a < 0x7f800000u)
				p = a > p ? a : p;
		}
		gt_rangeq_range_isa(x, n, isa, &pr, &qr);
		same &= pr == p && qr == q;
	}
	CHECK(same);
}

static void test_pack_vs_inline(void)
{
	for (int isa = GT_ISA_PORTABLE; isa <= GT_ISA_LAST; isa++) {
		if (!gt_isa_usable((enum gt_isa)isa)) {
			printf("  rangeq loops: %s not run (not on this CPU)\n",
			       gt_isa_name((enum gt_isa)isa));
			continue;
		}
		pack_vs_inline_isa((enum gt_isa)isa);
		range_isa((enum gt_isa)isa);
	}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_figure8);
	RUN(test_eps_search);
	RUN(test_monotone_clamp);
	RUN(test_pack);
	RUN(test_load);
	RUN(test_pack_vs_inline);
	return check_done("test_rangeq");
}
