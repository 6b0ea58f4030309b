/*
 * kernel/kio_xfs_verify.c - XFS_IOC_VERIFY_MEDIA (Linux 7.0+): the filesystem reads a range
 * of one of its devices and says where it failed. Returns 0 or -errno.
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "kio_dev.h"

int kio_xfs_verify_media(int fd, struct kio_xfs_verify_media *me)
{
	return ioctl(fd, KIO_XFS_IOC_VERIFY_MEDIA, me) < 0 ? -errno : 0;
}
