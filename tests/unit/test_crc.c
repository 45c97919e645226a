/* test_crc.c - gt_crc32 against zlib's crc32_z: lengths, alignments, chaining */
#include <zlib.h>

#include "check.h"
#include "../../lib/gt_crc.h"
#include "../../lib/banned.h"

#define NB 70000

/* Every length up to 600 and some long ones, at every alignment 0-63,
 * from a seed: ISA-L's folding loops, their tails and their heads. */
static void test_matches_zlib(void)
{
	unsigned char *b = malloc(NB + 64);
	const size_t longs[] = { 1023, 1024, 4096, 65535, 65536, NB };

	for (size_t i = 0; i < NB + 64; i++)
		b[i] = (unsigned char)check_rand();
	for (size_t a = 0; a < 64; a++)
		for (size_t n = 0; n <= 600; n++)
			if (gt_crc32(0, b + a, n) != (uint32_t)crc32_z(0, b + a, n)) {
				fprintf(stderr, "align %zu length %zu\n", a, n);
				CHECK(0);
				a = 64;
				break;
			}
	for (size_t k = 0; k < sizeof(longs) / sizeof(longs[0]); k++)
		for (size_t a = 0; a < 64; a += 7)
			CHECK(gt_crc32(0, b + a, longs[k]) == (uint32_t)crc32_z(0, b + a, longs[k]));
	free(b);
}

/* A CRC carried on from one piece to the next is the CRC of the whole,
 * and crc32_combine() of the pieces' CRCs gives it too: the container
 * joins its chunks' CRCs so. */
static void test_chaining(void)
{
	unsigned char *b = malloc(NB);
	uint32_t whole, run = 0, joined = 0;

	for (size_t i = 0; i < NB; i++)
		b[i] = (unsigned char)check_rand();
	whole = (uint32_t)crc32_z(0, b, NB);
	for (size_t at = 0; at < NB;) {
		const size_t want = 1 + check_rand() % 9000;
		const size_t n = NB - at < want ? NB - at : want;

		run = gt_crc32(run, b + at, n);
		joined = (uint32_t)crc32_combine(joined, gt_crc32(0, b + at, n), (z_off_t)n);
		at += n;
	}
	CHECK(run == whole);
	CHECK(joined == whole);
	CHECK(gt_crc32(whole, b, 0) == whole);
	CHECK(gt_crc32(0, NULL, 0) == 0);
	free(b);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_matches_zlib);
	RUN(test_chaining);
	return check_done("test_crc");
}
