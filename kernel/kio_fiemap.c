/*
 * kernel/kio_fiemap.c - FS_IOC_FIEMAP: the extents of one file. Returns 0 or -errno.
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <linux/fiemap.h>

#include "kio.h"

int kio_fiemap(int fd, struct fiemap *fm)
{
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0)
		return errno == ENOTTY ? -EOPNOTSUPP : -errno;
	return 0;
}
