/*
 * mediascan/engine_sync.c - the sync engine: one pread at a time. The fallback when
 * neither io_uring nor libaio can be used, and the reference the others are tested against.
 */
#include <errno.h>
#include <stdlib.h>

#include "engine.h"
#include "kio.h"

struct sync_priv {
	struct scan_io *queued, *queued_tail;
	struct scan_io *done, *done_tail;
};

static int sync_probe(char *why, size_t len)
{
	(void)why;
	(void)len;
	return 0;
}

static int sync_init(struct scan_engine *e)
{
	e->priv = calloc(1, sizeof(struct sync_priv));
	return e->priv ? 0 : -ENOMEM;
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

static int sync_queue(struct scan_engine *e, struct scan_io *io)
{
	struct sync_priv *s = e->priv;

	list_append(&s->queued, &s->queued_tail, io);
	return 0;
}

static int sync_commit(struct scan_engine *e)
{
	struct sync_priv *s = e->priv;
	int n = 0;

	while (s->queued) {
		struct scan_io *io = s->queued;

		s->queued = io->next;
		if (!s->queued)
			s->queued_tail = NULL;
		io->res = (int)kio_pread(e->fds[io->dev_idx], io->buf, io->length, io->offset);
		list_append(&s->done, &s->done_tail, io);
		n++;
	}
	return n;
}

static int sync_getevents(struct scan_engine *e, unsigned min, struct scan_io **done,
			  unsigned max, uint64_t timeout_ns)
{
	struct sync_priv *s = e->priv;
	unsigned n = 0;

	(void)min;			/* reads completed in commit: nothing to wait for */
	(void)timeout_ns;
	while (s->done && n < max) {
		done[n++] = s->done;
		s->done = s->done->next;
	}
	if (!s->done)
		s->done_tail = NULL;
	return (int)n;
}

static void sync_cleanup(struct scan_engine *e)
{
	free(e->priv);
	e->priv = NULL;
}

const struct scan_engine_ops scan_engine_sync = {
	.name = "sync",
	.caps = SCAN_ENG_READ,
	.probe = sync_probe,
	.init = sync_init,
	.queue = sync_queue,
	.commit = sync_commit,
	.getevents = sync_getevents,
	.cleanup = sync_cleanup,
};
