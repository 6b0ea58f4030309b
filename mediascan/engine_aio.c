/*
 * mediascan/engine_aio.c - the libaio engine (Linux native AIO): for kernels or sandboxes
 * where io_uring is unavailable; O_DIRECT makes io_submit truly asynchronous.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <libaio.h>

#include "engine.h"

struct aio_priv {
	io_context_t ctx;
	struct iocb *iocbs;		/* depth control blocks, used round robin */
	struct iocb **pending;		/* queued, not yet submitted */
	struct io_event *events;
	unsigned nr_pending;
	unsigned next_iocb;
};

static int aio_probe(char *why, size_t len)
{
	io_context_t ctx = 0;
	int ret = io_setup(1, &ctx);

	if (ret < 0) {
		snprintf(why, len, "io_setup failed: %s", strerror(-ret));
		return ret;
	}
	io_destroy(ctx);
	return 0;
}

static void aio_free(struct aio_priv *a)
{
	free(a->iocbs);
	free(a->pending);
	free(a->events);
	free(a);
}

static int aio_init(struct scan_engine *e)
{
	struct aio_priv *a = calloc(1, sizeof(*a));
	int ret;

	if (!a)
		return -ENOMEM;
	a->iocbs = calloc(e->depth, sizeof(*a->iocbs));
	a->pending = calloc(e->depth, sizeof(*a->pending));
	a->events = calloc(e->depth, sizeof(*a->events));
	if (!a->iocbs || !a->pending || !a->events) {
		aio_free(a);
		return -ENOMEM;
	}
	ret = io_setup((int)e->depth, &a->ctx);
	if (ret < 0) {
		aio_free(a);
		return ret;
	}
	e->priv = a;
	return 0;
}

static int aio_queue(struct scan_engine *e, struct scan_io *io)
{
	struct aio_priv *a = e->priv;
	struct iocb *cb;

	if (a->nr_pending >= e->depth)
		return -EBUSY;
	/* The executor never has more than depth I/Os in flight, so slots are free. */
	cb = &a->iocbs[a->next_iocb];
	a->next_iocb = (a->next_iocb + 1) % e->depth;
	io_prep_pread(cb, e->fds[io->dev_idx], io->buf, io->length, (long long)io->offset);
	cb->data = io;
	a->pending[a->nr_pending++] = cb;
	return 0;
}

static int aio_commit(struct scan_engine *e)
{
	struct aio_priv *a = e->priv;
	unsigned done = 0;

	while (done < a->nr_pending) {
		int ret = io_submit(a->ctx, (long)(a->nr_pending - done), a->pending + done);

		if (ret == -EAGAIN || ret == -EINTR)
			continue;
		if (ret < 0)
			return ret;
		done += (unsigned)ret;
	}
	a->nr_pending = 0;
	return (int)done;
}

static int aio_getevents(struct scan_engine *e, unsigned min, struct scan_io **done,
			 unsigned max, uint64_t timeout_ns)
{
	struct aio_priv *a = e->priv;
	struct timespec ts = {
		.tv_sec = (time_t)(timeout_ns / 1000000000ull),
		.tv_nsec = (long)(timeout_ns % 1000000000ull),
	};
	int ret;

	if (max > e->depth)
		max = e->depth;
	ret = io_getevents(a->ctx, (long)min, (long)max, a->events,
			   timeout_ns == UINT64_MAX ? NULL : &ts);
	if (ret == -EINTR)
		return 0;
	if (ret < 0)
		return ret;
	for (int i = 0; i < ret; i++) {
		struct scan_io *io = a->events[i].data;
		long res = (long)a->events[i].res;

		io->res = (int)res;
		done[i] = io;
	}
	return ret;
}

static void aio_cleanup(struct scan_engine *e)
{
	struct aio_priv *a = e->priv;

	if (!a)
		return;
	io_destroy(a->ctx);
	aio_free(a);
	e->priv = NULL;
}

const struct scan_engine_ops scan_engine_aio = {
	.name = "aio",
	.caps = SCAN_ENG_READ,
	.probe = aio_probe,
	.init = aio_init,
	.queue = aio_queue,
	.commit = aio_commit,
	.getevents = aio_getevents,
	.cleanup = aio_cleanup,
};
