/* test_pool.c - the worker pool runs every index once, on a valid worker */
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "../../lib/gt_error.h"
#include "../../lib/gt_pool.h"

struct job {
	unsigned *hits;
	unsigned *worker;
	unsigned size;
};

static void work(void *arg, size_t i, unsigned worker)
{
	struct job *j = arg;

	/* distinct i per call: no race on hits[i] */
	j->hits[i]++;
	j->worker[i] = worker;
}

static void test_every_index_once(void)
{
	static const unsigned threads[] = { 0, 1, 2, 3, 8 };
	static const size_t sizes[] = { 0, 1, 2, 7, 1000 };

	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		struct gt_pool *p = NULL;

		CHECK_RC(gt_pool_new(threads[t], &p), 0);
		if (!p)
			continue;
		CHECK(gt_pool_size(p) == (threads[t] ? threads[t] : 1));
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			/* several runs on one pool: workers must start each job anew */
			for (int round = 0; round < 20; round++) {
				struct job j;
				int ok = 1;

				j.hits = calloc(sizes[s] + 1, sizeof(unsigned));
				j.worker = calloc(sizes[s] + 1, sizeof(unsigned));
				j.size = gt_pool_size(p);
				gt_pool_run(p, sizes[s], work, &j);
				for (size_t i = 0; i < sizes[s]; i++)
					ok &= j.hits[i] == 1 && j.worker[i] < j.size;
				CHECK(ok);
				free(j.hits);
				free(j.worker);
			}
		}
		gt_pool_free(p);
	}
	gt_pool_free(NULL);
}

/* The asynchronous form: the caller goes on, then helps and waits. */
static void test_start_wait(void)
{
	static const unsigned threads[] = { 1, 2, 4 };

	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++) {
		struct gt_pool *p = NULL;

		CHECK_RC(gt_pool_new(threads[t], &p), 0);
		for (int round = 0; p && round < 50; round++) {
			const size_t n = (size_t)round % 9;
			struct job j;
			int ok = 1;

			j.hits = calloc(n + 1, sizeof(unsigned));
			j.worker = calloc(n + 1, sizeof(unsigned));
			j.size = gt_pool_size(p);
			gt_pool_start(p, n, work, &j);
			gt_pool_wait(p);
			for (size_t i = 0; i < n; i++)
				ok &= j.hits[i] == 1 && j.worker[i] < j.size;
			CHECK(ok);
			free(j.hits);
			free(j.worker);
		}
		gt_pool_free(p);
	}
}

int main(int argc, char **argv)
{
	check_init(argc, argv);
	RUN(test_every_index_once);
	RUN(test_start_wait);
	return check_done("test_pool");
}
