/*
 * stack/stack_thin_dev.c - the product's reader of a thin pool's metadata device: O_DIRECT
 * through kernel/, so each read sees what the kernel last wrote to the device (dm-bufio
 * writes it directly), never a stale page-cache copy.
 */
#include <errno.h>

#include "kio.h"
#include "stack_thin.h"

int thin_meta_open(const char *path, struct thin_meta_dev *d)
{
	int fd = kio_open_direct(path);

	d->fd = fd;
	return fd < 0 ? fd : 0;
}

int thin_meta_read(void *arg, uint64_t block, void *buf)
{
	struct thin_meta_dev *d = arg;
	ssize_t n = kio_pread(d->fd, buf, THIN_META_BLOCK, block * THIN_META_BLOCK);

	if (n < 0)
		return (int)n;
	return n == THIN_META_BLOCK ? 0 : -EIO;
}

void thin_meta_close(struct thin_meta_dev *d)
{
	kio_close(d->fd);
	d->fd = -1;
}
