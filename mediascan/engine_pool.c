/*
 * mediascan/engine_pool.c - the pool engine: device commands that the kernel only runs
 * blocking (SG_IO; the NVMe ioctl where io_uring passthrough is unavailable) get their
 * queue depth from up to depth worker threads, each sending one command at a time through
 * kernel/ (kio_dev_cmd_submit). Reads (no io->cmd) are preads. queue, commit and getevents
 * keep the shape of the other engines, so the executor's loop is the same for all of them.
 * A thread stuck in a command that never answers keeps its I/O: cleanup then drops what no
 * thread has started, leaves the pool to its threads (the last one out frees it) and
 * returns at once; the pool keeps its own copy of the descriptors, so nothing it holds
 * points into the executor's memory.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "kio.h"
#include "kio_dev.h"

#define POOL_MAX_THREADS 64
#define POOL_MAX_FDS 16

struct pool_priv {
	pthread_mutex_t lock;
	pthread_cond_t work;		/* queued grew, or stop */
	pthread_cond_t done_cv;		/* done grew */
	struct scan_io *queued, *queued_tail;	/* committed, not yet taken by a thread */
	struct scan_io *staged, *staged_tail;	/* queued, not yet committed */
	struct scan_io *done, *done_tail;
	int fds[POOL_MAX_FDS];		/* a copy: the executor's array may be gone */
	unsigned nr_fds;
	pthread_t threads[POOL_MAX_THREADS];
	unsigned nr_threads;
	unsigned busy;			/* threads inside a read or command */
	unsigned live;			/* threads not yet ended, once abandoned */
	int stop, abandoned;
};

static void pool_free(struct pool_priv *p)
{
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->work);
	pthread_cond_destroy(&p->done_cv);
	free(p);
}

static void list_append(struct scan_io **head, struct scan_io **tail, struct scan_io *io)
{
	io->next = NULL;
	if (*tail)
		(*tail)->next = io;
	else
		*head = io;
	*tail = io;
}

static struct scan_io *list_pop(struct scan_io **head, struct scan_io **tail)
{
	struct scan_io *io = *head;

	if (io) {
		*head = io->next;
		if (!*head)
			*tail = NULL;
	}
	return io;
}

static void *pool_worker(void *arg)
{
	struct pool_priv *p = arg;
	struct scan_io *io;
	int last;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && !p->queued)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->stop)
			break;
		io = list_pop(&p->queued, &p->queued_tail);
		p->busy++;
		pthread_mutex_unlock(&p->lock);
		if (io->dev_idx >= p->nr_fds)
			io->res = -EBADF;
		else if (io->cmd)
			io->res = kio_dev_cmd_submit(p->fds[io->dev_idx], io->cmd);
		else
			io->res = (int)kio_pread(p->fds[io->dev_idx], io->buf, io->length,
						 io->offset);
		pthread_mutex_lock(&p->lock);
		p->busy--;
		if (!p->abandoned) {		/* abandoned: nobody collects it any more */
			list_append(&p->done, &p->done_tail, io);
			pthread_cond_signal(&p->done_cv);
		}
	}
	last = p->abandoned && --p->live == 0;
	pthread_mutex_unlock(&p->lock);
	if (last)
		pool_free(p);
	return NULL;
}

static int pool_probe(char *why, size_t len)
{
	(void)why;
	(void)len;
	return 0;
}

static void pool_cleanup(struct scan_engine *e);

static int pool_init(struct scan_engine *e)
{
	struct pool_priv *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;
	unsigned n = e->depth < POOL_MAX_THREADS ? e->depth : POOL_MAX_THREADS;
	int ret;

	if (!p)
		return -ENOMEM;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	if (e->nr_fds > POOL_MAX_FDS) {
		free(p);
		return -EINVAL;
	}
	p->nr_fds = e->nr_fds;
	memcpy(p->fds, e->fds, e->nr_fds * sizeof(*p->fds));
	e->priv = p;
	for (unsigned i = 0; i < (n ? n : 1); i++) {
		ret = pthread_create(&p->threads[i], NULL, pool_worker, p);
		if (ret) {
			pool_cleanup(e);
			return -ret;
		}
		p->nr_threads++;
	}
	return 0;
}

static int pool_queue(struct scan_engine *e, struct scan_io *io)
{
	struct pool_priv *p = e->priv;

	list_append(&p->staged, &p->staged_tail, io);
	return 0;
}

static int pool_commit(struct scan_engine *e)
{
	struct pool_priv *p = e->priv;
	struct scan_io *io;
	int n = 0;

	if (!p->staged)
		return 0;
	pthread_mutex_lock(&p->lock);
	while ((io = list_pop(&p->staged, &p->staged_tail))) {
		list_append(&p->queued, &p->queued_tail, io);
		n++;
	}
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	return n;
}

static int pool_getevents(struct scan_engine *e, unsigned min, struct scan_io **done,
			  unsigned max, uint64_t timeout_ns)
{
	struct pool_priv *p = e->priv;
	struct timespec until;
	unsigned n = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	if (timeout_ns != UINT64_MAX) {
		until.tv_sec += (time_t)(timeout_ns / 1000000000ull);
		until.tv_nsec += (long)(timeout_ns % 1000000000ull);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
	}
	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct scan_io *io;

		while (n < max && (io = list_pop(&p->done, &p->done_tail)))
			done[n++] = io;
		if (n >= min || n == max)
			break;
		if (timeout_ns == UINT64_MAX)
			pthread_cond_wait(&p->done_cv, &p->lock);
		else if (pthread_cond_timedwait(&p->done_cv, &p->lock, &until) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&p->lock);
	return (int)n;
}

static void pool_cleanup(struct scan_engine *e)
{
	struct pool_priv *p = e->priv;

	if (!p)
		return;
	e->priv = NULL;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	p->queued = p->queued_tail = NULL;	/* never started: no thread takes them now */
	pthread_cond_broadcast(&p->work);
	if (p->busy) {
		/*
		 * A thread is stuck in a read or command: do not wait for the device. The
		 * threads end as their calls return; the last one frees the pool.
		 */
		pthread_t t[POOL_MAX_THREADS];
		unsigned n = p->nr_threads;

		memcpy(t, p->threads, n * sizeof(*t));
		p->abandoned = 1;
		p->live = n;
		pthread_mutex_unlock(&p->lock);
		for (unsigned i = 0; i < n; i++)
			pthread_detach(t[i]);
		return;
	}
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nr_threads; i++)
		pthread_join(p->threads[i], NULL);
	pool_free(p);
}

const struct scan_engine_ops scan_engine_pool = {
	.name = "pool",
	.caps = SCAN_ENG_READ | SCAN_ENG_CMD_BLOCKING,	/* cleanup never waits for I/O */
	.probe = pool_probe,
	.init = pool_init,
	.queue = pool_queue,
	.commit = pool_commit,
	.getevents = pool_getevents,
	.cleanup = pool_cleanup,
};
