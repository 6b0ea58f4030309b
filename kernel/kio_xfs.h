/*
 * kernel/kio_xfs.h - XFS ioctl wrappers (geometry, bulkstat). Return 0/count or -errno.
 */
#ifndef MEDIASCAN_KIO_XFS_H
#define MEDIASCAN_KIO_XFS_H

#include <stdint.h>

/* The parts of XFS geometry that mapping needs. */
struct kio_xfs_geom {
	uint32_t blocksize;		/* bytes */
	uint32_t agblocks;		/* fs blocks per AG */
	uint32_t agcount;
	uint64_t datablocks;
	uint32_t logblocks;
	uint64_t logstart;		/* 0: the log is on an external device */
	uint64_t rtblocks;
	uint32_t sectsize;		/* bytes */
	int has_rmapbt;
	int has_reflink;
	int has_parent;			/* parent pointers */
	unsigned char uuid[16];
};

/* Return 0 and fill g from XFS_IOC_FSGEOMETRY on any fd of the filesystem, or -errno. */
int kio_xfs_geometry(int fd, struct kio_xfs_geom *g);

#endif
