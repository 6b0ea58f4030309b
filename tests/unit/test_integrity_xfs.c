/*
 * tests/unit/test_integrity_xfs.c - xfs-verify and data-moving passthrough, mocked:
 * kernel/kio_xfs_verify.c and integrity/ with ioctl() wrapped (-Wl,--wrap): the chunks of a
 * passthrough that moves data fit the queue's segments, XFS_IOC_VERIFY_MEDIA's fields, its
 * resume after a partial call, and its errors. The mocked kernel is in fake_ioctl.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/nvme_ioctl.h>
#include <liburing.h>
#include <scsi/sg.h>
#include <sys/ioctl.h>

#include "config.h"
#include "kio_dev.h"
#include "verify.h"
#include "fake_ioctl.h"

/* ---------------------------------------------------------------- xfs-verify */

static struct vfy_dev xfs_dev(void)
{
	struct vfy_dev d;

	memset(&d, 0, sizeof(d));
	d.fd = d.cfd = -1;
	d.xfs_fd = FAKE_FD;
	d.xfs_dev = KIO_XFS_DEV_DATA;
	d.lbs = 4096;
	d.part_start_bytes = 1 << 20;		/* the filesystem starts 1 MiB into the disk */
	return d;
}

/* Data-moving passthrough chunks fit max_segments pages (a scattered user buffer takes one
 * segment per page; more fails with EINVAL), MDTS and the Block Limits VPD. */
static void test_passthru_chunk_bounds(void **state)
{
	struct vfy_dev d = { .kind = VFY_DEV_NVME, .lbs = 512, .ms = 8, .pi_type = 1,
			     .mdts_bytes = 512 * 1024 };

	(void)state;
	assert_int_equal(vfy_pi_read.max_blocks(&d), 1024);
	d.passthru_max_bytes = 127 * 4096;
	assert_int_equal(vfy_pi_read.max_blocks(&d), 127 * 8);
	d.lbs = 4096;
	assert_int_equal(vfy_pi_read.max_blocks(&d), 127);
	d.passthru_max_bytes = 1024;	/* below one block: still one */
	assert_int_equal(vfy_pi_read.max_blocks(&d), 1);

	memset(&d, 0, sizeof(d));
	d.kind = VFY_DEV_SCSI;
	d.lbs = 512;
	assert_int_equal(vfy_scsi_read.max_blocks(&d), 2048);
	d.passthru_max_bytes = 64 * 4096;
	assert_int_equal(vfy_scsi_read.max_blocks(&d), 512);
	d.max_xfer_blocks = 100;
	assert_int_equal(vfy_scsi_read.max_blocks(&d), 100);
}

static void test_xfs_verify_fields_and_resume(void **state)
{
	struct vfy_dev d = xfs_dev();
	struct vfy_result res;

	(void)state;
	/* Whole-disk LBA 512 (2 MiB) is daddr 2048 of the filesystem; 64 blocks = 512 daddrs.
	 * The first call stops after 100 sectors, the second after 150 more, the third ends. */
	k.xfs_advance[0] = 100;
	k.xfs_advance[1] = 150;
	k.xfs_advance[2] = UINT64_MAX;
	assert_int_equal(vfy_xfs_verify.verify(&d, 512, 64, &res), 0);
	assert_int_equal(k.xfs_calls, 3);
	assert_int_equal(k.last_req, KIO_XFS_IOC_VERIFY_MEDIA);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(k.xfs_in[i].me_dev, KIO_XFS_DEV_DATA);
		assert_int_equal(k.xfs_in[i].me_flags, 0);
		assert_int_equal(k.xfs_in[i].me_end_daddr, 2048 + 512);
		assert_int_equal(k.xfs_in[i].me_ioerror, 0);
		assert_int_equal(k.xfs_in[i].me_pad, 0);
	}
	assert_int_equal(k.xfs_in[0].me_start_daddr, 2048);
	assert_int_equal(k.xfs_in[1].me_start_daddr, 2048 + 100);	/* resumed there */
	assert_int_equal(k.xfs_in[2].me_start_daddr, 2048 + 250);
}

static void test_xfs_verify_errors(void **state)
{
	struct vfy_dev d = xfs_dev();
	struct vfy_result res;

	(void)state;
	/* The second call reports ENODATA: a medium failure the caller narrows. */
	k.xfs_advance[0] = 8;
	k.xfs_ioerror[1] = ENODATA;
	assert_int_equal(vfy_xfs_verify.verify(&d, 256, 8, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_MEDIUM);
	assert_int_equal(vfy_fail_errno(&res), -ENODATA);
	assert_int_equal(k.xfs_in[1].me_start_daddr, 0 + 8);		/* LBA 256 = daddr 0 */
	/* EILSEQ from the kernel is a PI failure. */
	memset(&k, 0, sizeof(k));
	k.xfs_ioerror[0] = EILSEQ;
	assert_int_equal(vfy_xfs_verify.verify(&d, 256, 8, &res), 1);
	assert_int_equal(vfy_fail_errno(&res), -EILSEQ);
	/* A range before the filesystem's start cannot be asked for. */
	assert_int_equal(vfy_xfs_verify.verify(&d, 0, 8, &res), -EINVAL);
	/* A kernel without the ioctl: the probe says so and nothing else is tried. */
	memset(&k, 0, sizeof(k));
	k.xfs_errno = ENOTTY;
	{
		char why[128] = "";

		assert_int_equal(vfy_xfs_verify.probe(&d, why, sizeof(why)), -EOPNOTSUPP);
		assert_non_null(strstr(why, "XFS_IOC_VERIFY_MEDIA"));
		assert_int_equal(k.xfs_calls, 1);
		assert_int_equal(k.xfs_in[0].me_start_daddr, k.xfs_in[0].me_end_daddr);
	}
	/* Any other errno stops the verification as an operational error. */
	k.xfs_errno = EIO;
	assert_int_equal(vfy_xfs_verify.verify(&d, 256, 8, &res), -EIO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_passthru_chunk_bounds, fake_ioctl_reset),
		cmocka_unit_test_setup(test_xfs_verify_fields_and_resume, fake_ioctl_reset),
		cmocka_unit_test_setup(test_xfs_verify_errors, fake_ioctl_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
