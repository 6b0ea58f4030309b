/*
 * stack/stack_thin_dev.c - the product's reader of a thin pool's metadata device: O_DIRECT
 * through kernel/, so each read sees what the kernel last wrote to the device (dm-bufio
 * writes it directly), never a stale page-cache copy; a node's children read together
 * (kernel/'s batch reader) so that a walk ends well within the pool's commit period.
 */
#include <errno.h>

#include "kio.h"
#include "stack_thin.h"

int thin_meta_open(const char *path, struct thin_meta_dev *d)
{
	int fd = kio_open_direct(path);

	d->fd = fd;
	d->batch = NULL;
	if (fd < 0)
		return fd;
	d->batch = kio_batch_open();
	if (!d->batch) {
		kio_close(fd);
		d->fd = -1;
		return -ENOMEM;
	}
	return 0;
}

int thin_meta_read(void *arg, uint64_t block, void *buf)
{
	struct thin_meta_dev *d = arg;
	ssize_t n = kio_pread(d->fd, buf, THIN_META_BLOCK, block * THIN_META_BLOCK);

	if (n < 0)
		return (int)n;
	return n == THIN_META_BLOCK ? 0 : -EIO;
}

int thin_meta_read_many(void *arg, const uint64_t *blocks, unsigned n, uint8_t *bufs)
{
	struct thin_meta_dev *d = arg;
	uint64_t offs[256];

	if (n > 256)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		offs[i] = blocks[i] * THIN_META_BLOCK;
	return kio_batch_read(d->batch, d->fd, offs, n, THIN_META_BLOCK, bufs);
}

void thin_meta_close(struct thin_meta_dev *d)
{
	kio_batch_close(d->batch);
	kio_close(d->fd);
	d->batch = NULL;
	d->fd = -1;
}
