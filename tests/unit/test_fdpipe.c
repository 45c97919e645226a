/* test_fdpipe.c - a pipe's buffer is widened, never shrunk; other files are left alone */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "../../formats/fdpipe.h"

static void test_widens_a_pipe(void)
{
	int p[2];
	size_t got;

	CHECK(pipe(p) == 0);
	got = gt_fdpipe_widen(p[1], 4 * 65536);
	/* what the kernel reports is what the call said */
	CHECK(got == (size_t)fcntl(p[1], F_GETPIPE_SZ));
	/* 256 KiB is under every default pipe-max-size (1 MiB) */
	CHECK(got == 4 * 65536);
	/* the read end is the same pipe */
	CHECK((size_t)fcntl(p[0], F_GETPIPE_SZ) == got);
	close(p[0]);
	close(p[1]);
}

static void test_never_shrinks(void)
{
	int p[2];

	CHECK(pipe(p) == 0);
	CHECK(fcntl(p[0], F_SETPIPE_SZ, 4 * 65536) == 4 * 65536);
	CHECK(gt_fdpipe_widen(p[0], 65536) == 4 * 65536);
	CHECK(fcntl(p[0], F_GETPIPE_SZ) == 4 * 65536);
	close(p[0]);
	close(p[1]);
}

static void test_not_a_pipe(void)
{
	FILE *f = tmpfile();

	CHECK(f != NULL);
	if (f) {
		CHECK(gt_fdpipe_widen(fileno(f), GT_PIPE_BYTES) == 0);
		fclose(f);
	}
	CHECK(gt_fdpipe_widen(-1, GT_PIPE_BYTES) == 0);
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_widens_a_pipe);
	RUN(test_never_shrinks);
	RUN(test_not_a_pipe);
	return check_done("test_fdpipe");
}
