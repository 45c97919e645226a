/* test_chunk.c - the block and chunk rule of lib/gt_chunk.h */
#include "check.h"
#include "../../lib/gt_chunk.h"

static void test_block_default(void)
{
	CHECK(gt_chunk_block(0) == GT_BLOCK_DEFAULT);
	CHECK(gt_chunk_block(1000) == 1000);
	CHECK(GT_BLOCK_DEFAULT == 1u << 20 && GT_CHUNK_DEFAULT == 1u << 16);
}

/* Default, clamp to the block, minimum; table-driven. */
static void test_chunk_rule(void)
{
	static const struct { size_t block, chunk, want; } cases[] = {
		{ 1u << 20, 0, 1u << 16 },      /* default */
		{ 1u << 20, 4096, 4096 },       /* as given */
		{ 1000, 0, 1000 },              /* default clamped to a small block */
		{ 1000, 5000, 1000 },           /* clamped to the block */
		{ 1u << 20, 1, GT_CHUNK_MIN },  /* raised to the minimum */
		{ 1u << 20, 63, GT_CHUNK_MIN },
		{ 1u << 20, 64, 64 },
		{ 100, 100, 100 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const size_t got = gt_chunk_values(gt_codec_find("zstd"), cases[i].block,
						   cases[i].chunk);

		if (got != cases[i].want)
			fprintf(stderr, "case %zu: block %zu chunk %zu: %zu, expected %zu\n", i,
				cases[i].block, cases[i].chunk, got, cases[i].want);
		CHECK(got == cases[i].want);
		CHECK(gt_chunk_values(NULL, cases[i].block, cases[i].chunk) == cases[i].want);
	}
}

/* A codec that codes a block as one chunk gets the whole block. */
static void test_whole_block(void)
{
	const struct gt_codec *topk = gt_codec_find("topk");

	CHECK(topk && (gt_codec_flags(topk) & GT_CODEC_WHOLE_BLOCK));
	CHECK(gt_chunk_values(topk, 1u << 20, 4096) == 1u << 20);
	CHECK(gt_chunk_values(topk, 1000, 0) == 1000);
	CHECK(!(gt_codec_flags(gt_codec_find("huffexp")) & GT_CODEC_WHOLE_BLOCK));
	CHECK(gt_chunk_values(gt_codec_find("huffexp"), 1u << 20, 4096) == 4096);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_block_default);
	RUN(test_chunk_rule);
	RUN(test_whole_block);
	return check_done("test_chunk");
}
