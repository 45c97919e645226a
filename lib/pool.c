/* pool.c - a fixed set of worker threads taking indexes from a shared counter */
#include <pthread.h>
#include <stdlib.h>

#include "gt_error.h"
#include "gt_pool.h"
#include "banned.h"

struct worker {
	struct gt_pool *pool;
	unsigned id;
	pthread_t thread;
};

struct gt_pool {
	unsigned nthreads;
	struct worker *workers;
	pthread_mutex_t lock;
	pthread_cond_t start, done;
	/* the job in progress, under lock */
	void (*fn)(void *arg, size_t i, unsigned worker);
	void *arg;
	size_t n, next, finished;
	unsigned long generation;
	unsigned busy;
	int stop;
};

/* Take indexes until none are left; returns with the lock held. */
static void drain(struct gt_pool *p, unsigned id)
{
	while (p->next < p->n) {
		const size_t i = p->next++;

		pthread_mutex_unlock(&p->lock);
		p->fn(p->arg, i, id);
		pthread_mutex_lock(&p->lock);
		p->finished++;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct gt_pool *p = w->pool;
	unsigned long seen = 0;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && p->generation == seen)
			pthread_cond_wait(&p->start, &p->lock);
		if (p->stop)
			break;
		seen = p->generation;
		p->busy++;
		drain(p, w->id);
		if (--p->busy == 0 && p->finished == p->n)
			pthread_cond_broadcast(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int gt_pool_new(unsigned nthreads, struct gt_pool **pool_ret)
{
	struct gt_pool *p = calloc(1, sizeof(*p));

	*pool_ret = NULL;
	if (!p)
		return GT_ERR(NOMEM);
	p->nthreads = nthreads ? nthreads : 1;
	p->workers = calloc(p->nthreads, sizeof(*p->workers));
	if (!p->workers) {
		free(p);
		return GT_ERR(NOMEM);
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->start, NULL);
	pthread_cond_init(&p->done, NULL);
	for (unsigned i = 1; i < p->nthreads; i++) {
		p->workers[i].pool = p;
		p->workers[i].id = i;
		if (pthread_create(&p->workers[i].thread, NULL, worker_main,
				   &p->workers[i])) {
			p->nthreads = i;
			gt_pool_free(p);
			return GT_ERR(IO);
		}
	}
	*pool_ret = p;
	return 0;
}

void gt_pool_free(struct gt_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->start);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 1; i < p->nthreads; i++)
		pthread_join(p->workers[i].thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->start);
	pthread_cond_destroy(&p->done);
	free(p->workers);
	free(p);
}

unsigned gt_pool_size(const struct gt_pool *p)
{
	return p->nthreads;
}

/* Publish a job to the workers; the lock is held on return. */
static void publish(struct gt_pool *p, size_t n,
		    void (*fn)(void *arg, size_t i, unsigned worker), void *arg)
{
	pthread_mutex_lock(&p->lock);
	p->fn = fn;
	p->arg = arg;
	p->n = n;
	p->next = 0;
	p->finished = 0;
	p->generation++;
	pthread_cond_broadcast(&p->start);
}

static void wait_locked(struct gt_pool *p)
{
	while (p->finished < p->n || p->busy)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void gt_pool_run(struct gt_pool *p, size_t n,
		 void (*fn)(void *arg, size_t i, unsigned worker), void *arg)
{
	if (p->nthreads == 1 || n <= 1) {
		for (size_t i = 0; i < n; i++)
			fn(arg, i, 0);
		return;
	}
	publish(p, n, fn, arg);
	p->busy++;
	drain(p, 0);
	p->busy--;
	wait_locked(p);
}

void gt_pool_start(struct gt_pool *p, size_t n,
		   void (*fn)(void *arg, size_t i, unsigned worker), void *arg)
{
	if (p->nthreads == 1) {
		for (size_t i = 0; i < n; i++)
			fn(arg, i, 0);
		return;
	}
	publish(p, n, fn, arg);
	pthread_mutex_unlock(&p->lock);
}

void gt_pool_wait(struct gt_pool *p)
{
	if (p->nthreads == 1)
		return;
	pthread_mutex_lock(&p->lock);
	p->busy++;
	drain(p, 0);
	p->busy--;
	wait_locked(p);
}
