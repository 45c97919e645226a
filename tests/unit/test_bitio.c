/* test_bitio.c - bit writer/reader: round trips, bounds, overflow status */
#include "check.h"
#include "../../lib/gt_bitio.h"
#include "../../lib/banned.h"

#define NV 5000

static void test_roundtrip(void)
{
	static uint64_t val[NV];
	static unsigned wid[NV];
	uint64_t total = 0;
	unsigned char *buf;
	struct gt_bitw w;
	struct gt_bitr r;
	size_t len, cap;

	for (int i = 0; i < NV; i++) {
		wid[i] = 1 + (unsigned)(check_rand() % 57);
		val[i] = check_rand() & (wid[i] == 64 ? ~0ull : (1ull << wid[i]) - 1);
		total += wid[i];
	}
	cap = (size_t)(total + 7) / 8;
	buf = malloc(cap); /* exact size: ASan sees any overrun */
	gt_bitw_init(&w, buf, cap);
	for (int i = 0; i < NV; i++) {
		gt_bitw_put(&w, val[i], wid[i]);
		gt_bitw_flush(&w);
	}
	CHECK(gt_bitw_bits(&w) == total);
	CHECK_RC(gt_bitw_close(&w, &len), 0);
	CHECK(len == cap);
	gt_bitr_init(&r, buf, len);
	for (int i = 0; i < NV; i++) {
		uint64_t v = gt_bitr_get(&r, wid[i] > 56 ? 56 : wid[i]);

		if (wid[i] > 56)
			v |= gt_bitr_get(&r, wid[i] - 56) << 56;
		CHECK(v == val[i]);
	}
	CHECK_RC(gt_bitr_finish(&r), 0);
	free(buf);
}

/* Widths up to 56 read back one by one, then the end status. */
static void test_reader_status(void)
{
	unsigned char *buf = malloc(3);
	struct gt_bitr r;

	buf[0] = 0xa5;
	buf[1] = 0x0f;
	buf[2] = 0x01;
	gt_bitr_init(&r, buf, 3);
	CHECK(gt_bitr_get(&r, 4) == 0x5);
	CHECK(gt_bitr_get(&r, 12) == 0x0fa);
	CHECK(gt_bitr_left(&r) == 8);
	CHECK_RC(gt_bitr_finish(&r), GT_ERR(CORRUPT)); /* a whole byte left */
	gt_bitr_init(&r, buf, 3);
	CHECK(gt_bitr_get(&r, 17) == 0x10fa5);
	CHECK(gt_bitr_left(&r) == 7);
	CHECK_RC(gt_bitr_finish(&r), 0);
	gt_bitr_init(&r, buf, 3);
	CHECK(gt_bitr_get(&r, 16) == 0x0fa5);
	CHECK_RC(gt_bitr_finish(&r), GT_ERR(CORRUPT)); /* non-zero padding */
	gt_bitr_init(&r, buf, 3);
	CHECK(gt_bitr_get(&r, 24) == 0x010fa5);
	CHECK(gt_bitr_left(&r) == 0);
	CHECK(gt_bitr_get(&r, 30) == 0); /* past the end: zeros */
	CHECK(gt_bitr_left(&r) == -30);
	CHECK_RC(gt_bitr_finish(&r), GT_ERR(TRUNCATED));
	gt_bitr_init(&r, buf, 0);
	CHECK(gt_bitr_left(&r) == 0);
	CHECK(gt_bitr_get(&r, 1) == 0);
	CHECK(gt_bitr_left(&r) == -1);
	free(buf);
}

static void test_writer_overflow(void)
{
	for (size_t cap = 0; cap < 20; cap++) {
		unsigned char *buf = malloc(cap ? cap : 1);
		struct gt_bitw w;
		size_t len;

		gt_bitw_init(&w, buf, cap);
		for (int i = 0; i < 10; i++) { /* 10 * 13 bits = 17 bytes */
			gt_bitw_put(&w, 0x1abc & 0x1fff, 13);
			gt_bitw_flush(&w);
		}
		CHECK_RC(gt_bitw_close(&w, &len), cap >= 17 ? 0 : GT_ERR(DST_TOO_SMALL));
		CHECK(len <= cap);
		free(buf);
	}
}

/* 57-bit puts (the documented maximum) after flushes with 7 pending. */
static void test_wide(void)
{
	unsigned char buf[64];
	struct gt_bitw w;
	struct gt_bitr r;
	size_t len;
	const uint64_t v = (1ull << 57) - 3;

	gt_bitw_init(&w, buf, sizeof(buf));
	gt_bitw_put(&w, 0x55, 7);
	gt_bitw_put(&w, v, 57);
	gt_bitw_flush(&w);
	gt_bitw_put(&w, v, 57);
	gt_bitw_flush(&w);
	CHECK_RC(gt_bitw_close(&w, &len), 0);
	CHECK(len == (7 + 114 + 7) / 8);
	gt_bitr_init(&r, buf, len);
	CHECK(gt_bitr_get(&r, 7) == 0x55);
	CHECK(gt_bitr_get(&r, 50) == (v & ((1ull << 50) - 1)));
	CHECK(gt_bitr_get(&r, 7) == v >> 50);
	CHECK(gt_bitr_get(&r, 57 - 1) == (v & ((1ull << 56) - 1)));
	CHECK(gt_bitr_get(&r, 1) == 1);
	CHECK_RC(gt_bitr_finish(&r), 0);
}

/* The same codes through gt_bitw_put one by one: the reference bytes. */
static size_t put_each(const uint32_t *c, size_t n, unsigned k, unsigned char *dst,
		       size_t cap)
{
	struct gt_bitw w;
	size_t len = 0;

	gt_bitw_init(&w, dst, cap);
	for (size_t i = 0; i < n; i++) {
		gt_bitw_put(&w, c[i], k);
		gt_bitw_flush(&w);
	}
	CHECK_RC(gt_bitw_close(&w, &len), 0);
	return len;
}

/* gt_bitpack gives gt_bitw's bytes, gt_bitunpack reads them back, for
 * every k, every length mod 8 and each instruction set this CPU runs;
 * exact-size buffers, so ASan sees a byte read or written past the end. */
static void bitpack_isa(enum gt_isa isa)
{
	static const size_t lens[] = { 0, 1, 5, 7, 8, 9, 15, 16, 17, 31, 40, 41, 47, 64,
				       71, 72, 1000, 1003 };
	static uint32_t c[1003], back[1003];
	static unsigned char ref[1003 * 4 + 8];

	for (unsigned k = 1; k <= GT_BITPACK_MAX; k++) {
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			const size_t n = lens[l], len = (n * k + 7) / 8;
			unsigned char *p = malloc(len ? len : 1);

			for (size_t i = 0; i < n; i++)
				c[i] = (uint32_t)(check_rand() >> (64 - k));
			CHECK(put_each(c, n, k, ref, sizeof(ref)) == len);
			gt_bitpack_isa(c, n, k, p, isa);
			CHECK(!memcmp(p, ref, len));
			memset(back, 0xff, sizeof(back));
			CHECK_RC(gt_bitunpack_isa(p, n, k, back, isa), 0);
			CHECK(!memcmp(back, c, n * sizeof(*c)));
			if (n * k % 8) {
				/* a set padding bit: CORRUPT */
				p[len - 1] |= (unsigned char)(0x80u);
				CHECK_RC(gt_bitunpack_isa(p, n, k, back, isa), GT_ERR(CORRUPT));
			}
			free(p);
		}
	}
	CHECK_RC(gt_bitunpack_isa(ref, 8, 33, back, isa), GT_ERR(INVAL));
	CHECK_RC(gt_bitunpack_isa(ref, 8, 0, back, isa), GT_ERR(INVAL));
}

static void test_bitpack(void)
{
	for (int isa = GT_ISA_PORTABLE; isa <= GT_ISA_LAST; isa++) {
		if (!gt_isa_usable((enum gt_isa)isa)) {
			printf("  gt_bitpack: %s not run (not on this CPU)\n",
			       gt_isa_name((enum gt_isa)isa));
			continue;
		}
		bitpack_isa((enum gt_isa)isa);
	}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_roundtrip);
	RUN(test_reader_status);
	RUN(test_writer_overflow);
	RUN(test_wide);
	RUN(test_bitpack);
	return check_done("test_bitio");
}
