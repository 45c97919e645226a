/* gt_pool.h - a small pthread pool that runs the chunks of a block in parallel */
#ifndef GT_POOL_H
#define GT_POOL_H

#include <stddef.h>

struct gt_pool;

/*
 * gt_pool_new - a pool of @nthreads workers (the calling thread counts as
 * one, so @nthreads - 1 threads are started; 0 means 1).
 * @return 0, GT_ERR(NOMEM), GT_ERR(IO) when a thread cannot be started.
 */
int gt_pool_new(unsigned nthreads, struct gt_pool **pool_ret);
void gt_pool_free(struct gt_pool *pool); /* NULL-safe; joins the workers */
unsigned gt_pool_size(const struct gt_pool *pool);

/*
 * gt_pool_run - call fn(arg, i, worker) for every i in [0, @n), spread over
 * the workers (worker is in [0, gt_pool_size())), and return when all are
 * done.  Which worker runs which i is not fixed, so @fn must give the same
 * result whichever runs it: per-worker scratch is indexed by @worker.
 * One gt_pool_run at a time per pool.
 */
void gt_pool_run(struct gt_pool *pool, size_t n,
		 void (*fn)(void *arg, size_t i, unsigned worker), void *arg);

/*
 * gt_pool_start - the same, returning at once: the pool's other workers
 * (gt_pool_size() - 1 of them, numbered from 1) take indexes while the
 * caller goes on, say with I/O; gt_pool_wait() then takes what is left
 * on the calling thread (as worker 0) and returns when all are done.  A
 * pool of one thread runs the job here and now.
 */
void gt_pool_start(struct gt_pool *pool, size_t n,
		   void (*fn)(void *arg, size_t i, unsigned worker), void *arg);
void gt_pool_wait(struct gt_pool *pool);

#endif
