/*
 * tests/unit/fake_ioctl.c - the mocked kernel of the test_integrity_* tests: __wrap_ioctl
 * answers NVMe passthrough, SG_IO and XFS_IOC_VERIFY_MEDIA from struct fake_ioctl k and records
 * what was sent (any other ioctl fails the test); __wrap_io_uring_submit counts and refuses; a
 * fake sysfs tree of a SCSI disk; the reset each test starts from.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/nvme_ioctl.h>
#include <scsi/sg.h>
#include <sys/ioctl.h>

#include "config.h"
#include "kio_dev.h"
#include "fake_ioctl.h"

struct fake_ioctl k;

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	assert_int_equal(fd, FAKE_FD);
	k.calls++;
	k.last_req = req;
	if (req == NVME_IOCTL_IO64_CMD || req == NVME_IOCTL_ADMIN64_CMD) {
		k.nvme = *(struct nvme_passthru_cmd64 *)arg;
		if (k.nvme_ret < 0) {
			errno = k.nvme_errno;
			return -1;
		}
		return k.nvme_ret;
	}
	if (req == SG_IO) {
		struct sg_io_hdr *io = arg;

		assert_int_equal(io->interface_id, 'S');
		k.cdb_len = io->cmd_len;
		memcpy(k.cdb, io->cmdp, io->cmd_len);
		k.sg_dir = io->dxfer_direction;
		io->status = k.sg_status;
		io->host_status = 0;
		io->driver_status = k.sense_len ? 0x08 : 0;	/* DRIVER_SENSE */
		io->sb_len_wr = (unsigned char)(k.sense_len < io->mx_sb_len ? k.sense_len :
						io->mx_sb_len);
		memcpy(io->sbp, k.sense, io->sb_len_wr);
		io->resid = 0;
		return 0;
	}
	if (req == KIO_XFS_IOC_VERIFY_MEDIA) {
		struct kio_xfs_verify_media *me = arg;
		unsigned i = k.xfs_calls++;

		assert_true(i < 8);
		k.xfs_in[i] = *me;
		if (k.xfs_errno) {
			errno = k.xfs_errno;
			return -1;
		}
		if (k.xfs_advance[i] == UINT64_MAX ||
		    me->me_start_daddr + k.xfs_advance[i] > me->me_end_daddr)
			me->me_start_daddr = me->me_end_daddr;
		else
			me->me_start_daddr += k.xfs_advance[i];
		me->me_ioerror = k.xfs_ioerror[i];
		return 0;
	}
	fail_msg("unexpected ioctl 0x%lx", req);
	return -1;
}

int __wrap_io_uring_submit(struct io_uring *ring)
{
	(void)ring;
	k.uring_submits++;
	return -EIO;
}

/* A fake sysfs tree: block/NAME/device -> devices/<devpath> with what sd leaves there. */
void fake_sysfs(const char *root, const char *name, const char *devpath, int prot,
		       const uint8_t *b0, size_t b0_len)
{
	char cmd[1024], p[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/devices/%s/scsi_disk/6:0:0:0' '%s/block/%s' && "
		 "ln -sfn '%s/devices/%s' '%s/block/%s/device'", root, devpath, root, name, root,
		 devpath, root, name);
	assert_int_equal(system(cmd), 0);
	if (prot >= 0) {
		snprintf(p, sizeof(p), "%s/devices/%s/scsi_disk/6:0:0:0/protection_type", root,
			 devpath);
		f = fopen(p, "w");
		assert_non_null(f);
		fprintf(f, "%d\n", prot);
		fclose(f);
	}
	if (b0) {
		snprintf(p, sizeof(p), "%s/devices/%s/vpd_pgb0", root, devpath);
		f = fopen(p, "w");
		assert_non_null(f);
		assert_int_equal(fwrite(b0, 1, b0_len, f), b0_len);
		fclose(f);
	}
}

int fake_ioctl_reset(void **state)
{
	(void)state;
	memset(&k, 0, sizeof(k));
	return 0;
}
