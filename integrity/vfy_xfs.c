/*
 * integrity/vfy_xfs.c - xfs-verify: XFS_IOC_VERIFY_MEDIA (Linux 7.0+) asks the filesystem to
 * verify a range of one of its devices. The kernel advances me_start_daddr past what it
 * verified; a call that stops short without an error is resumed from there. The ioctl
 * reports the errno of the first failing I/O, not its block: the caller bisects.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kio_dev.h"
#include "verify.h"

#define XFS_SECTOR_BYTES 512
#define XFS_VERIFY_MAX_BYTES (16u << 20)
#define XFS_VERIFY_MAX_CALLS 1024	/* calls without progress or error before giving up */

static int xfs_verify_probe(struct vfy_dev *d, char *why, size_t len)
{
	struct kio_xfs_verify_media me;
	int ret;

	if (d->xfs_fd < 0) {
		snprintf(why, len, "not a mounted XFS filesystem");
		return -EOPNOTSUPP;
	}
	memset(&me, 0, sizeof(me));
	me.me_dev = d->xfs_dev;		/* empty range: asks only whether the ioctl exists */
	ret = kio_xfs_verify_media(d->xfs_fd, &me);
	if (ret == -ENOTTY || ret == -EINVAL || ret == -EOPNOTSUPP) {
		snprintf(why, len, "the kernel has no XFS_IOC_VERIFY_MEDIA (Linux 7.0+)");
		return -EOPNOTSUPP;
	}
	return ret;
}

static uint32_t xfs_verify_max_blocks(const struct vfy_dev *d)
{
	return XFS_VERIFY_MAX_BYTES / d->lbs;
}

static int xfs_verify(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct vfy_result *res)
{
	uint64_t start = lba * d->lbs, end = start + (uint64_t)nlb * d->lbs;
	struct kio_xfs_verify_media me;
	int ret, calls = 0;

	/* Whole-disk LBAs back to the filesystem device's 512-byte daddrs. */
	if (start < d->part_start_bytes)
		return -EINVAL;
	memset(&me, 0, sizeof(me));
	me.me_dev = d->xfs_dev;
	me.me_start_daddr = (start - d->part_start_bytes) / XFS_SECTOR_BYTES;
	me.me_end_daddr = (end - d->part_start_bytes) / XFS_SECTOR_BYTES;
	while (calls++ < XFS_VERIFY_MAX_CALLS) {
		uint64_t before = me.me_start_daddr;

		ret = kio_xfs_verify_media(d->xfs_fd, &me);
		if (ret == -EINTR)
			continue;
		if (ret < 0)
			return ret;
		if (me.me_ioerror) {
			memset(res, 0, sizeof(*res));
			/* EILSEQ: PI did not validate; the ioctl does not say which tag. */
			res->fail = me.me_ioerror == ENODATA ? VFY_FAIL_MEDIUM :
				    me.me_ioerror == EILSEQ ? VFY_FAIL_PI_GUARD : VFY_FAIL_DEVICE;
			res->status = me.me_ioerror;
			return 1;	/* the failing I/O starts here; the caller narrows it */
		}
		if (me.me_start_daddr >= me.me_end_daddr)
			return 0;
		if (me.me_start_daddr == before)
			calls += XFS_VERIFY_MAX_CALLS / 8;	/* no progress: do not spin */
	}
	return -EIO;
}

const struct vfy_ops vfy_xfs_verify = {
	.name = "xfs-verify",
	.summary = "XFS_IOC_VERIFY_MEDIA: the filesystem verifies its devices (Linux 7.0+)",
	.moves_data = 1,
	.caps = VFY_CAP_SYNC,
	.probe = xfs_verify_probe,
	.verify = xfs_verify,
	.max_blocks = xfs_verify_max_blocks,
};
