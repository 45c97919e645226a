/* test_slurp.c - gt_slurp (formats/slurp.c): whole small files, sizes at
 * every edge of its buffer's growth, the "larger than max" length, errors */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "../../formats/gt_bytes.h"
#include "../../lib/banned.h"

/* A temporary file of @n bytes of check_rand(), its bytes in *@want. */
static FILE *file_of(size_t n, unsigned char **want)
{
	FILE *f = tmpfile();
	unsigned char *b = malloc(n ? n : 1);

	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)check_rand();
	CHECK(f != NULL);
	CHECK(fwrite(b, 1, n, f) == n);
	rewind(f);
	*want = b;
	return f;
}

static void test_sizes(void)
{
	/* around the first buffer (4096), its doublings, and max */
	static const size_t sizes[] = { 0, 1, 4095, 4096, 4097, 8192, 8193, 65536,
					99999, 100000, 100001, 100002, 300000 };
	const size_t max = 100000;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		const size_t n = sizes[k];
		unsigned char *want, *got = NULL;
		FILE *f = file_of(n, &want);
		size_t len = 7;

		CHECK_RC(gt_slurp(f, max, &got, &len), 0);
		/* all of it, or max + 1 bytes: "larger than max" */
		CHECK(len == (n <= max ? n : max + 1));
		CHECK(got != NULL);
		CHECK(!memcmp(got, want, len));
		free(got);
		free(want);
		fclose(f);
	}
}

/* A max below the first buffer's size: the buffer is max + 1 bytes. */
static void test_small_max(void)
{
	unsigned char *want, *got = NULL;
	FILE *f = file_of(50, &want);
	size_t len;

	CHECK_RC(gt_slurp(f, 16, &got, &len), 0);
	CHECK(len == 17 && !memcmp(got, want, 17));
	free(got);
	rewind(f);
	CHECK_RC(gt_slurp(f, 50, &got, &len), 0);
	CHECK(len == 50 && !memcmp(got, want, 50));
	free(got);
	free(want);
	fclose(f);
}

/* A read error (a folder opened for reading: EISDIR): GT_ERR(IO), no buffer. */
static void test_error(void)
{
	FILE *f = fopen(".", "rb");
	unsigned char *got = (unsigned char *)&got;
	size_t len = 7;

	if (!f) {
		printf("test_error: cannot open . for reading, skipped\n");
		return;
	}
	CHECK_RC(gt_slurp(f, 1000, &got, &len), GT_ERR(IO));
	CHECK(got == NULL && len == 0);
	fclose(f);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_sizes);
	RUN(test_small_max);
	RUN(test_error);
	return check_done("test_slurp");
}
