/*
 * tests/unit/fake_ioctl.h - the mocked kernel of the test_integrity_* tests (fake_ioctl.c):
 * ioctl() and io_uring_submit() wrapped (-Wl,--wrap) to record the NVMe command, the SCSI CDB
 * and the XFS_IOC_VERIFY_MEDIA call sent, and to answer as told; a fake sysfs tree of a SCSI
 * disk.
 */
#ifndef MEDIASCAN_FAKE_IOCTL_H
#define MEDIASCAN_FAKE_IOCTL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/nvme_ioctl.h>

#include "kio_dev.h"

#define FAKE_FD 77

struct io_uring;

int __wrap_ioctl(int fd, unsigned long req, ...);
int __wrap_io_uring_submit(struct io_uring *ring);

/* What the mocked kernel saw and what it answers. */
struct fake_ioctl {
	unsigned calls;			/* every ioctl */
	unsigned uring_submits;
	unsigned long last_req;
	struct nvme_passthru_cmd64 nvme;	/* the last NVMe command */
	int nvme_ret;			/* NVMe ioctl return: status word, or -1 with nvme_errno */
	int nvme_errno;
	uint8_t cdb[16];		/* the last CDB */
	unsigned cdb_len;
	int sg_dir;
	uint8_t sg_status;		/* SAM status to answer */
	uint8_t sense[32];
	unsigned sense_len;
	/* XFS_IOC_VERIFY_MEDIA: each call's input, and how far each call gets */
	struct kio_xfs_verify_media xfs_in[8];
	unsigned xfs_calls;
	uint64_t xfs_advance[8];	/* sectors the call verifies (UINT64_MAX: to the end) */
	uint32_t xfs_ioerror[8];
	int xfs_errno;			/* nonzero: the ioctl fails with it */
};

extern struct fake_ioctl k;

/* Return 0 after forgetting what the mocked kernel saw and was told (a cmocka setup). */
int fake_ioctl_reset(void **state);

/* Make a fake sysfs tree under root: block/NAME/device -> devices/<devpath>, as sd leaves it
 * (protection_type prot unless < 0, VPD page B0 b0 unless NULL). */
void fake_sysfs(const char *root, const char *name, const char *devpath, int prot,
		const uint8_t *b0, size_t b0_len);

#endif
