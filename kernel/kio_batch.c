/*
 * kernel/kio_batch.c - many positioned reads of one fd in flight at once (io_uring), for
 * callers that walk on-disk structures node by node (a thin pool's metadata B-trees): one
 * submission for a node's children instead of one synchronous read after another. Where
 * io_uring is unavailable (kernel too old, disabled by sysctl or seccomp) the reads are made
 * one by one with pread: slower, same result.
 */
#include <errno.h>
#include <stdlib.h>
#include <liburing.h>

#include "kio.h"

#define KIO_BATCH_DEPTH 64

struct kio_batch {
	struct io_uring ring;
	int have_ring;
};

struct kio_batch *kio_batch_open(void)
{
	struct kio_batch *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->have_ring = io_uring_queue_init(KIO_BATCH_DEPTH, &b->ring, 0) == 0;
	return b;
}

void kio_batch_close(struct kio_batch *b)
{
	if (!b)
		return;
	if (b->have_ring)
		io_uring_queue_exit(&b->ring);
	free(b);
}

/* The reads one at a time: return 0, -errno, -EIO for a short read. */
static int one_by_one(int fd, const uint64_t *offs, unsigned n, size_t len, char *bufs)
{
	for (unsigned i = 0; i < n; i++) {
		ssize_t r = kio_pread(fd, bufs + (size_t)i * len, len, offs[i]);

		if (r < 0)
			return (int)r;
		if ((size_t)r != len)
			return -EIO;
	}
	return 0;
}

int kio_batch_read(struct kio_batch *b, int fd, const uint64_t *offs, unsigned n, size_t len,
		   void *bufs)
{
	unsigned done = 0;
	int err = 0;

	if (!b->have_ring)
		return one_by_one(fd, offs, n, len, bufs);
	while (done < n) {
		unsigned k = n - done < KIO_BATCH_DEPTH ? n - done : KIO_BATCH_DEPTH;
		struct io_uring_cqe *cqe;
		int r;

		for (unsigned i = 0; i < k; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&b->ring);

			if (!sqe)
				return -EBUSY;	/* cannot happen: the ring is empty here */
			io_uring_prep_read(sqe, fd, (char *)bufs + (size_t)(done + i) * len,
					   (unsigned)len, offs[done + i]);
		}
		/* Every read submitted is reaped before returning: its buffer is the caller's. */
		for (unsigned sub = 0; sub < k;) {
			r = io_uring_submit(&b->ring);
			if (r == -EINTR)
				continue;
			if (r <= 0) {
				err = r < 0 ? r : -EBUSY;
				k = sub;
				break;
			}
			sub += (unsigned)r;
		}
		for (unsigned i = 0; i < k; i++) {
			do
				r = io_uring_wait_cqe(&b->ring, &cqe);
			while (r == -EINTR);
			if (r < 0)
				return r;
			/* A short read (the device's end) is an error: the caller asked for
			 * blocks the device should hold. */
			if (!err && cqe->res != (int)len)
				err = cqe->res < 0 ? cqe->res : -EIO;
			io_uring_cqe_seen(&b->ring, cqe);
		}
		if (err)
			return err;
		done += k;
	}
	return err;
}
