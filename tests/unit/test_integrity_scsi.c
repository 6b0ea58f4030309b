/*
 * tests/unit/test_integrity_scsi.c - SCSI and ATA verification, mocked: kernel/kio_scsi.c and
 * integrity/ with ioctl() and io_uring_submit() wrapped (-Wl,--wrap): exact CDB bytes for
 * VERIFY(16) and READ(16), the probe of a disk behind a USB bridge, ATA READ VERIFY through
 * libata, host status, sense parsing (fixed, descriptor, no valid information), which disks
 * say they are emulated and what the proof's timing makes of a method, scsi-verify's and
 * scsi-read's prep and complete, and the whitelist: any other CDB is refused before an ioctl
 * is made. The mocked kernel (the wraps) and the fake sysfs tree are in fake_ioctl.c.
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

/* ---------------------------------------------------------------- SCSI */

/* A SCSI disk behind a USB bridge gets no VPD B0, READ CAPACITY(16) or VERIFY(16): the kernel
 * avoids them there (usb-storage quirks), so the probe follows sysfs and says why. */
static void test_scsi_probe_usb(void **state)
{
	static const uint8_t b0[64] = { 0x00, 0xb0, 0x00, 0x3c, 0, 0, 0, 0, 0, 0, 0x10, 0x00,
					0, 0, 0x01, 0x00 };
	char root[] = "/tmp/mediascan-test-sysfs-XXXXXX", why[256] = "", cmd[300];
	struct kio_scsi_hints h;
	struct vfy_dev d;

	(void)state;
	assert_non_null(mkdtemp(root));
	fake_sysfs(root, "sdu", "pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/"
		   "6:0:0:0", 0, NULL, 0);
	fake_sysfs(root, "sds", "pci0000:00/0000:00:17.0/ata3/host2/target2:0:0/2:0:0:0", 1, b0,
		   sizeof(b0));
	fake_sysfs(root, "sdo", "pci0000:00/0000:00:17.0/ata4/host3/target3:0:0/3:0:0:0", -1,
		   NULL, 0);

	assert_int_equal(kio_scsi_hints(root, "sdu", &h), 0);
	assert_int_equal(h.usb, 1);
	assert_int_equal(h.protection_type, 0);
	assert_int_equal(h.have_vpd_b0, 0);
	memset(&d, 0, sizeof(d));
	d.fd = FAKE_FD;
	d.kind = VFY_DEV_SCSI;
	d.lbs = 512;
	d.verify16 = -1;
	vfy_probe_scsi(&d, &h);
	assert_int_equal(k.calls, 0);			/* nothing sent */
	assert_int_equal(d.verify16, 0);
	assert_int_equal(vfy_scsi_verify.probe(&d, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "USB bridge"));
	assert_int_equal(vfy_scsi_read.probe(&d, why, sizeof(why)), -EOPNOTSUPP);
	assert_non_null(strstr(why, "USB bridge"));

	/* SATA disk: protection type and Block Limits from sysfs, only VERIFY(16) sent */
	assert_int_equal(kio_scsi_hints(root, "sds", &h), 0);
	assert_int_equal(h.usb, 0);
	assert_int_equal(h.protection_type, 1);
	assert_int_equal(h.have_vpd_b0, 1);
	memset(&d, 0, sizeof(d));
	d.fd = FAKE_FD;
	d.kind = VFY_DEV_SCSI;
	d.lbs = 512;
	d.verify16 = -1;
	vfy_probe_scsi(&d, &h);
	assert_int_equal(k.calls, 1);
	assert_int_equal(k.cdb[0], 0x8f);
	assert_int_equal(k.cdb[1], 0x20);		/* VRPROTECT 001b: PI type 1 */
	assert_int_equal(d.prot_en, 1);
	assert_int_equal(d.p_type, 1);
	assert_int_equal(d.max_xfer_blocks, 0x1000);
	assert_int_equal(d.opt_xfer_blocks, 0x100);
	assert_int_equal(d.verify16, 1);
	assert_int_equal(vfy_scsi_read.probe(&d, why, sizeof(why)), 0);

	/* nothing in sysfs (older kernel): READ CAPACITY(16), INQUIRY B0, VERIFY(16) as before */
	assert_int_equal(kio_scsi_hints(root, "sdo", &h), 0);
	assert_int_equal(h.protection_type, -1);
	k.calls = 0;
	memset(&d, 0, sizeof(d));
	d.fd = FAKE_FD;
	d.kind = VFY_DEV_SCSI;
	d.lbs = 512;
	d.verify16 = -1;
	vfy_probe_scsi(&d, &h);
	assert_int_equal(k.calls, 3);
	assert_int_equal(k.cdb[0], 0x8f);

	assert_int_equal(kio_scsi_hints(root, "../sdu", &h), -EINVAL);
	assert_int_equal(kio_scsi_hints(root, "sdzz", &h), -ENOENT);
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_scsi_cdbs(void **state)
{
	static const uint8_t verify16[16] = {
		0x8f, 0x20, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x0a, 0x0b, 0x0c, 0x0d, 0x00, 0x00,
	};
	static const uint8_t read16[16] = {
		0x88, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34,
		0x00, 0x00, 0x08, 0x00, 0x00, 0x00,
	};
	static const uint8_t readcap16[16] = {
		0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x20, 0, 0,
	};
	static const uint8_t inq_b0[6] = { 0x12, 0x01, 0xb0, 0x00, 0xfc, 0x00 };
	uint8_t cdb[16];

	(void)state;
	assert_int_equal(kio_scsi_build_verify16(cdb, 0x0102030405060708ull, 0x0a0b0c0d, 1), 16);
	assert_memory_equal(cdb, verify16, 16);		/* VRPROTECT 001b, BYTCHK 00 */
	assert_int_equal(kio_scsi_build_read16(cdb, 0x1234, 2048, 0), 16);
	assert_memory_equal(cdb, read16, 16);
	assert_int_equal(kio_scsi_build_readcap16(cdb, 32), 16);
	assert_memory_equal(cdb, readcap16, 16);
	assert_int_equal(kio_scsi_build_inquiry(cdb, 1, 0xb0, 252), 6);
	assert_memory_equal(cdb, inq_b0, 6);
	assert_int_equal(kio_scsi_build_verify16(cdb, 0, 1, 8), -EINVAL);
	assert_int_equal(kio_scsi_build_verify16(cdb, 0, 0, 0), -EINVAL);
	assert_int_equal(kio_scsi_build_read16(cdb, 0, 0, 0), -EINVAL);
}

/*
 * ATA PASS-THROUGH(16) READ DMA EXT, byte for byte (SAT: protocol DMA, EXTEND, from the
 * device, BYT_BLOK, length in COUNT), allowed by the whitelist only in that shape; and the
 * failing LBA out of libata's sense for an UNC error, fixed and descriptor format.
 */
static void test_ata_read(void **state)
{
	/* fixed format (SAT): INFORMATION = ERROR 40h (UNC), STATUS, DEVICE, COUNT; then
	 * the flags (EXTEND) and LBA 7:0, 15:8, 23:16 in the command-specific bytes 8..11 */
	static const uint8_t fixed[18] = {
		0x70, 0, 0x03, 0x40, 0x51, 0xe0, 0x00, 10, 0x80, 0xa9, 0x40, 0x00, 0x11, 0x04, 0, 0,
		0, 0,
	};
	/* descriptor format: the ATA Status Return descriptor, 48-bit (EXTEND) */
	static const uint8_t desc[22] = {
		0x72, 0x03, 0x11, 0x04, 0, 0, 0, 14,
		0x09, 0x0c, 0x01, 0x40, 0x00, 0x00, 0x01, 0xa9, 0x00, 0x40, 0x00, 0x00, 0x40, 0x51,
	};
	uint8_t cdb[16], abrt[18];
	uint64_t bad = 0;

	(void)state;
	assert_int_equal(kio_scsi_build_ata_read(cdb, 0x040302010506ull, 256), 16);
	/* LBA 0x040302010506: 7:0 06, 15:8 05, 23:16 01, 31:24 02, 39:32 03, 47:40 04 */
	static const uint8_t want[16] = {
		0x85, 0x0d, 0x0e, 0x00, 0x00, 0x01, 0x00, 0x02, 0x06, 0x03, 0x05, 0x04, 0x01,
		0x40, 0x25, 0x00,
	};
	assert_memory_equal(cdb, want, 16);
	assert_true(kio_scsi_allowed(cdb, 16));
	assert_int_equal(kio_scsi_build_ata_read(cdb, 0, 65536), 16);
	assert_int_equal(cdb[5], 0);			/* 65536 is a count of 0 */
	assert_int_equal(cdb[6], 0);
	assert_int_equal(kio_scsi_build_ata_read(cdb, 0, 65537), -EINVAL);
	assert_int_equal(kio_scsi_build_ata_read(cdb, 1ull << 48, 1), -EINVAL);
	cdb[14] = 0x35;					/* WRITE DMA EXT: never */
	assert_false(kio_scsi_allowed(cdb, 16));
	/* the failing block, high bits from the command: [0x10040a0, +16) holds 0x10040a9 */
	assert_int_equal(kio_scsi_ata_sense_lba(fixed, sizeof(fixed), 0x10040a0, 16, &bad), 1);
	assert_int_equal(bad, 0x10040a9);
	assert_int_equal(kio_scsi_ata_sense_lba(desc, sizeof(desc), 0x10040a0, 16, &bad), 1);
	assert_int_equal(bad, 0x10040a9);
	/* outside the command: not believed */
	assert_int_equal(kio_scsi_ata_sense_lba(desc, sizeof(desc), 0x10040b0, 16, &bad), 0);
	/* ABRT (QEMU's IDE disk): no block named */
	memcpy(abrt, fixed, sizeof(abrt));
	abrt[2] = 0x0b;
	abrt[3] = 0x04;
	assert_int_equal(kio_scsi_ata_sense_lba(abrt, sizeof(abrt), 0x10040a0, 16, &bad), 0);
}

/*
 * A SCSI command that failed without sense data failed on the path or in the device, as the
 * block layer says of the same host byte: never a medium error unless the host byte says so.
 */
static void test_scsi_host_status(void **state)
{
	struct kio_dev_cmd c;
	struct vfy_dev d;
	struct vfy_result res;

	(void)state;
	assert_int_equal(vfy_scsi_host_errno(0x03), -ETIMEDOUT);	/* DID_TIME_OUT */
	assert_int_equal(vfy_scsi_host_errno(0x0f), -ENOLINK);		/* TRANSPORT_FAILFAST */
	assert_int_equal(vfy_scsi_host_errno(0x14), -ENOLINK);		/* TRANSPORT_MARGINAL */
	assert_int_equal(vfy_scsi_host_errno(0x10), -EREMOTEIO);	/* TARGET_FAILURE */
	assert_int_equal(vfy_scsi_host_errno(0x01), -ENODEV);		/* NO_CONNECT */
	assert_int_equal(vfy_scsi_host_errno(0x07), -EIO);		/* DID_ERROR */
	memset(&d, 0, sizeof(d));
	d.kind = VFY_DEV_SCSI;
	d.lbs = 512;
	memset(&c, 0, sizeof(c));
	c.kind = KIO_CMD_SCSI;
	c.scsi_st.host_status = 0x0f;
	assert_int_equal(vfy_scsi_verify.complete(&d, 0, 8, &c, NULL, &res), -ENOLINK);
	c.scsi_st.host_status = 0x13;				/* DID_MEDIUM_ERROR */
	assert_int_equal(vfy_scsi_verify.complete(&d, 0, 8, &c, NULL, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_MEDIUM);
	/* QEMU's scsi-hd over a failing image: ABORTED COMMAND 00/06, as the block layer's EIO */
	memset(&c.scsi_st, 0, sizeof(c.scsi_st));
	c.scsi_st.scsi_status = 2;
	c.scsi_st.sense_len = 18;
	c.scsi_st.sense_key = 0x0b;
	c.scsi_st.ascq = 0x06;
	assert_int_equal(vfy_scsi_verify.complete(&d, 0, 8, &c, NULL, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_DEVICE);
	assert_int_equal(vfy_fail_errno(&res), -EIO);
}

/* Which disks say they are emulated, and what the proof's timing makes of a method. */
static void test_trust(void **state)
{
	struct vfy_timing t;
	char why[320];

	(void)state;
	assert_string_equal(vfy_emulated("QEMU", "QEMU HARDDISK", "virtio_scsi"), "QEMU");
	assert_string_equal(vfy_emulated("ATA", "QEMU HARDDISK", "ata_piix"), "QEMU");
	assert_string_equal(vfy_emulated("VMware", "Virtual disk", "vmw_pvscsi"), "VMware");
	assert_string_equal(vfy_emulated("Msft", "Virtual Disk", "storvsc"), "Hyper-V");
	assert_string_equal(vfy_emulated("Google", "PersistentDisk", "virtio_scsi"),
			    "Google Persistent Disk");
	assert_string_equal(vfy_emulated("", "Amazon Elastic Block Store", "nvme"),
			    "Amazon EBS");
	assert_string_equal(vfy_emulated("Linux", "scsi_debug", "scsi_debug"),
			    "Linux scsi_debug (RAM)");
	assert_null(vfy_emulated("ATA", "Samsung SSD 870", "ahci"));
	assert_null(vfy_emulated("SEAGATE", "ST4000NM0023", "mpt3sas"));
	assert_null(vfy_emulated("", "INTEL SSDPE2KX040T8", "nvme"));

	/* measured in the VM: QEMU's scsi-hd VERIFY 9 MiB in 4.8 ms, reads 94 ms */
	memset(&t, 0, sizeof(t));
	t.bytes = 64ull << 20;
	t.verify_ns = 4800000;
	t.read_ns = 94000000;
	assert_int_equal(vfy_trust_judge(&t, "QEMU", why, sizeof(why)), VFY_TRUST_FAILED);
	assert_non_null(strstr(why, "does not read"));
	/* a verify at about the read rate reads */
	t.verify_ns = 80000000;
	assert_int_equal(vfy_trust_judge(&t, "QEMU", why, sizeof(why)), VFY_TRUST_PROVEN);
	t.verify_ns = t.read_ns / VFY_PROOF_RATIO + 1000;
	assert_int_equal(vfy_trust_judge(&t, NULL, why, sizeof(why)), VFY_TRUST_PROVEN);
	t.verify_ns = t.read_ns / VFY_PROOF_RATIO - 1000;
	assert_int_equal(vfy_trust_judge(&t, NULL, why, sizeof(why)), VFY_TRUST_FAILED);
	/* faster than any medium, however slow the reads */
	t.verify_ns = 1000000;				/* 64 MiB in 1 ms: 64 GiB/s */
	t.read_ns = 2000000;
	assert_int_equal(vfy_trust_judge(&t, NULL, why, sizeof(why)), VFY_TRUST_FAILED);
	assert_non_null(strstr(why, "faster than any medium"));
	/* a read failed where the verify said clean: proof on its own */
	t.verify_ns = 80000000;
	t.read_ns = 80000000;
	t.read_failed = 1;
	t.read_fail_lba = 16384;
	assert_int_equal(vfy_trust_judge(&t, NULL, why, sizeof(why)), VFY_TRUST_FAILED);
	/* ... unless the verify failed there too */
	t.verify_failed = 1;
	assert_int_equal(vfy_trust_judge(&t, NULL, why, sizeof(why)), VFY_TRUST_PROVEN);
	/* too little written data to time */
	memset(&t, 0, sizeof(t));
	t.bytes = 1 << 20;
	t.verify_ns = 1;
	t.read_ns = 1000000;
	assert_int_equal(vfy_trust_judge(&t, "QEMU", why, sizeof(why)), VFY_TRUST_UNPROVEN);
}

static void test_sense_fixed(void **state)
{
	/* Fixed format, VALID set, MEDIUM ERROR, information 0x00001234, ASC 11h. */
	static const uint8_t s[18] = {
		0xf0, 0, 0x03, 0x00, 0x00, 0x12, 0x34, 10, 0, 0, 0, 0, 0x11, 0x00, 0, 0, 0, 0,
	};
	struct kio_scsi_status st;
	uint8_t nv[18];

	(void)state;
	memset(&st, 0, sizeof(st));
	assert_int_equal(kio_scsi_parse_sense(s, sizeof(s), &st), 0);
	assert_int_equal(st.sense_key, 3);
	assert_int_equal(st.asc, 0x11);
	assert_int_equal(st.ascq, 0);
	assert_true(st.info_valid);
	assert_int_equal(st.info, 0x1234);
	/* Same without the VALID bit: the information field means nothing. */
	memcpy(nv, s, sizeof(nv));
	nv[0] = 0x70;
	memset(&st, 0, sizeof(st));
	assert_int_equal(kio_scsi_parse_sense(nv, sizeof(nv), &st), 0);
	assert_int_equal(st.sense_key, 3);
	assert_false(st.info_valid);
	assert_int_equal(st.info, 0);
	/* Not sense data at all. */
	memset(nv, 0, sizeof(nv));
	assert_int_equal(kio_scsi_parse_sense(nv, sizeof(nv), &st), -EINVAL);
}

static void test_sense_descriptor(void **state)
{
	/* Descriptor format: MEDIUM ERROR 11h/00h, an Information descriptor (type 0, VALID)
	 * with the 64-bit LBA 0x123456789. */
	static const uint8_t s[20] = {
		0x72, 0x03, 0x11, 0x00, 0, 0, 0, 12,
		0x00, 0x0a, 0x80, 0x00, 0x00, 0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89,
	};
	/* Descriptor format with a PI error (10h/01h guard) and no Information descriptor. */
	static const uint8_t pi[8] = { 0x72, 0x0b, 0x10, 0x01, 0, 0, 0, 0 };
	struct kio_scsi_status st;

	(void)state;
	memset(&st, 0, sizeof(st));
	assert_int_equal(kio_scsi_parse_sense(s, sizeof(s), &st), 0);
	assert_int_equal(st.sense_key, 3);
	assert_int_equal(st.asc, 0x11);
	assert_true(st.info_valid);
	assert_true(st.info == 0x123456789ull);
	memset(&st, 0, sizeof(st));
	assert_int_equal(kio_scsi_parse_sense(pi, sizeof(pi), &st), 0);
	assert_int_equal(st.sense_key, 0x0b);
	assert_int_equal(st.asc, 0x10);
	assert_int_equal(st.ascq, 0x01);
	assert_false(st.info_valid);
}

static struct vfy_dev scsi_dev(void)
{
	struct vfy_dev d;

	memset(&d, 0, sizeof(d));
	d.fd = FAKE_FD;
	d.cfd = d.xfs_fd = -1;
	d.kind = VFY_DEV_SCSI;
	d.lbs = 512;
	d.prot_en = 1;
	d.verify16 = 1;
	return d;
}

/* scsi-verify through the mocked SG_IO: the CDB sent and how sense becomes a result. */
static void test_scsi_verify_method(void **state)
{
	static const uint8_t medium[18] = {
		0xf0, 0, 0x03, 0x00, 0x00, 0x10, 0x07, 10, 0, 0, 0, 0, 0x11, 0x00, 0, 0, 0, 0,
	};
	static const uint8_t illegal[18] = {
		0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x20, 0x00, 0, 0, 0, 0,
	};
	static const uint8_t nolba[8] = { 0x72, 0x03, 0x11, 0x00, 0, 0, 0, 0 };
	static const uint8_t want[16] = {
		0x8f, 0x20, 0, 0, 0, 0, 0, 0, 0x10, 0x00, 0, 0, 0x01, 0x00, 0, 0,
	};
	struct vfy_dev d = scsi_dev();
	struct vfy_result res;

	(void)state;
	assert_int_equal(vfy_scsi_verify.verify(&d, 0x1000, 256, &res), 0);
	assert_int_equal(k.calls, 1);
	assert_int_equal(k.cdb_len, 16);
	assert_memory_equal(k.cdb, want, 16);
	assert_int_equal(k.sg_dir, SG_DXFER_NONE);
	/* CHECK CONDITION, MEDIUM ERROR naming LBA 0x1007. */
	k.sg_status = 2;
	memcpy(k.sense, medium, sizeof(medium));
	k.sense_len = sizeof(medium);
	assert_int_equal(vfy_scsi_verify.verify(&d, 0x1000, 256, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_MEDIUM);
	assert_true(res.have_lba);
	assert_int_equal(res.lba, 0x1007);
	assert_int_equal(res.status, 0x031100);
	/* MEDIUM ERROR without an information field: failed, block unknown (bisect). */
	memcpy(k.sense, nolba, sizeof(nolba));
	k.sense_len = sizeof(nolba);
	assert_int_equal(vfy_scsi_verify.verify(&d, 0x1000, 256, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_MEDIUM);
	assert_false(res.have_lba);
	/* ILLEGAL REQUEST: the disk does not do VERIFY; the caller reads instead. */
	memcpy(k.sense, illegal, sizeof(illegal));
	k.sense_len = sizeof(illegal);
	assert_int_equal(vfy_scsi_verify.verify(&d, 0x1000, 256, &res), -EOPNOTSUPP);
	/* CHECK CONDITION without sense: a transport failure, not the media. */
	k.sense_len = 0;
	assert_int_equal(vfy_scsi_verify.verify(&d, 0x1000, 256, &res), -EIO);
}

/* scsi-verify and scsi-read: the CDB prep builds, and complete() reading the sense. */
static void test_scsi_prep_complete(void **state)
{
	static const uint8_t want_verify[16] = {
		0x8f, 0x20, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0, 0, 0, 0x40, 0, 0,
	};
	static const uint8_t want_read[16] = {
		0x88, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x00, 0, 0, 0, 0x08, 0, 0,
	};
	static uint8_t buf[2048 * 512] __attribute__((aligned(4096)));
	struct vfy_dev d = scsi_dev();
	struct kio_dev_cmd c;
	struct vfy_result res;

	(void)state;
	assert_true(vfy_scsi_verify.caps & VFY_CAP_CMD_SCSI);
	assert_int_equal(vfy_scsi_verify.prep(&d, 0x123456789aull, 64, &c, NULL), 0);
	assert_int_equal(c.kind, KIO_CMD_SCSI);
	assert_int_equal(c.cdb_len, 16);
	assert_memory_equal(c.cdb, want_verify, 16);	/* VRPROTECT 001b: PI disk */
	assert_null(c.data);
	assert_int_equal(c.data_bytes, 0);
	assert_true(kio_scsi_allowed(c.cdb, c.cdb_len));
	/* GOOD; MEDIUM ERROR naming 0x1234567 (the engine parsed the sense into scsi_st). */
	memset(&c.scsi_st, 0, sizeof(c.scsi_st));
	assert_int_equal(vfy_scsi_verify.complete(&d, 0x1000, 64, &c, NULL, &res), 0);
	c.scsi_st.scsi_status = 2;
	c.scsi_st.sense_len = 18;
	c.scsi_st.sense_key = 0x3;
	c.scsi_st.asc = 0x11;
	c.scsi_st.info_valid = 1;
	c.scsi_st.info = 0x1234567;
	assert_int_equal(vfy_scsi_verify.complete(&d, 0x1234560, 64, &c, NULL, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_MEDIUM);
	assert_int_equal(res.status, 0x031100);
	assert_true(res.have_lba && res.lba == 0x1234567);
	/* PI reference tag check failed (10h/03h); ILLEGAL REQUEST: refused. */
	c.scsi_st.sense_key = 0xb;
	c.scsi_st.asc = 0x10;
	c.scsi_st.ascq = 0x03;
	assert_int_equal(vfy_scsi_verify.complete(&d, 0x1234560, 64, &c, NULL, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_PI_REF);
	c.scsi_st.sense_key = 0x5;
	c.scsi_st.asc = 0x20;
	c.scsi_st.ascq = 0;
	assert_int_equal(vfy_scsi_verify.complete(&d, 0, 64, &c, NULL, &res), -EOPNOTSUPP);
	/* scsi-read: READ(16) into the command's own buffer. */
	assert_int_equal(vfy_scsi_read.buf_bytes(&d), sizeof(buf));
	assert_int_equal(vfy_scsi_read.prep(&d, 0x1000, 8, &c, buf), 0);
	assert_memory_equal(c.cdb, want_read, 16);
	assert_true(c.data == buf);
	assert_int_equal(c.data_bytes, 8 * 512);
	assert_int_equal(vfy_scsi_read.prep(&d, 0x1000, 8, &c, NULL), -EINVAL);
	assert_int_equal(vfy_scsi_read.prep(&d, 0x1000, 4096, &c, buf), -EINVAL);
	assert_int_equal(k.calls, 0);
	/* The blocking send of a queued command goes through the same whitelist. */
	vfy_scsi_verify.prep(&d, 0x1000, 64, &c, NULL);
	assert_int_equal(kio_dev_cmd_submit(FAKE_FD, &c), 0);
	assert_int_equal(k.calls, 1);
	assert_int_equal(k.sg_dir, SG_DXFER_NONE);
	c.cdb[1] |= 0x02;				/* BYTCHK 01: data-out */
	assert_int_equal(kio_dev_cmd_submit(FAKE_FD, &c), -EPERM);
	assert_int_equal(k.calls, 1);
	/* The read method has no command: it says so, by its caps and its verify(). */
	assert_true(vfy_read.caps & VFY_CAP_ENGINE_READ);
	assert_null(vfy_read.prep);
	assert_int_equal(vfy_read.verify(&d, 0, 1, &res), -EOPNOTSUPP);
	assert_true(vfy_xfs_verify.caps & VFY_CAP_SYNC);
}

/* Return 1 when the whitelist must accept cdb (mirrors the list). */
static int scsi_ok(const uint8_t *cdb, unsigned len)
{
	switch (cdb[0]) {
	case 0x12:	/* INQUIRY */
		return len == 6;
	case 0x25:	/* READ CAPACITY(10) */
	case 0x28:	/* READ(10) */
		return len == 10;
	case 0x88:	/* READ(16) */
		return len == 16;
	case 0x2f:	/* VERIFY(10), BYTCHK 00 */
		return len == 10 && !(cdb[1] & 0x06);
	case 0x8f:	/* VERIFY(16), BYTCHK 00 */
		return len == 16 && !(cdb[1] & 0x06);
	case 0x9e:	/* SERVICE ACTION IN(16): READ CAPACITY(16) only */
		return len == 16 && (cdb[1] & 0x1f) == 0x10;
	case 0x4d:	/* LOG SENSE without SP */
		return len == 10 && !(cdb[1] & 0x01);
	case 0xa0:	/* REPORT LUNS */
		return len == 12;
	}
	return 0;
}

static void test_scsi_refused(void **state)
{
	static const unsigned lens[] = { 6, 10, 12, 16 };
	static const uint8_t byte1[] = { 0x00, 0x01, 0x02, 0x04, 0x06, 0x10, 0x11, 0xe0 };
	struct kio_scsi_status st;
	uint8_t cdb[16], buf[512];
	unsigned sent = 0, refused = 0;

	(void)state;
	for (unsigned op = 0; op < 256; op++) {
		for (unsigned l = 0; l < 4; l++) {
			for (unsigned b = 0; b < sizeof(byte1); b++) {
				int ok, ret;

				memset(cdb, 0, sizeof(cdb));
				cdb[0] = (uint8_t)op;
				cdb[1] = byte1[b];
				ok = scsi_ok(cdb, lens[l]);
				assert_int_equal(kio_scsi_allowed(cdb, lens[l]), ok);
				ret = kio_scsi_submit(FAKE_FD, cdb, lens[l], buf, sizeof(buf), 0,
						      &st);
				if (ok) {
					assert_int_equal(ret, 0);
					assert_int_equal(k.calls, ++sent);
				} else {
					assert_int_equal(ret, -EPERM);
					assert_int_equal(k.calls, sent);
					refused++;
				}
			}
		}
	}
	/* Spot checks of what must never be sent: WRITE(10/16), WRITE SAME(16), UNMAP,
	 * FORMAT UNIT, SYNCHRONIZE CACHE, MODE SELECT, VERIFY with BYTCHK 01 (data-out). */
	{
		static const uint8_t bad[][2] = {
			{ 0x2a, 10 }, { 0x8a, 16 }, { 0x93, 16 }, { 0x42, 10 }, { 0x04, 6 },
			{ 0x35, 10 }, { 0x15, 6 }, { 0x55, 10 },
		};

		for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			memset(cdb, 0, sizeof(cdb));
			cdb[0] = bad[i][0];
			assert_int_equal(kio_scsi_submit(FAKE_FD, cdb, bad[i][1], NULL, 0, 0, &st),
					 -EPERM);
		}
		kio_scsi_build_verify16(cdb, 0, 1, 0);
		cdb[1] |= 0x02;
		assert_int_equal(kio_scsi_submit(FAKE_FD, cdb, 16, NULL, 0, 0, &st), -EPERM);
		assert_int_equal(kio_scsi_submit(FAKE_FD, NULL, 16, NULL, 0, 0, &st), -EPERM);
		assert_int_equal(kio_scsi_submit(FAKE_FD, cdb, 32, NULL, 0, 0, &st), -EPERM);
	}
	assert_int_equal(k.calls, sent);
	assert_true(refused > 8000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_scsi_probe_usb, fake_ioctl_reset),
		cmocka_unit_test_setup(test_ata_read, fake_ioctl_reset),
		cmocka_unit_test_setup(test_trust, fake_ioctl_reset),
		cmocka_unit_test_setup(test_scsi_host_status, fake_ioctl_reset),
		cmocka_unit_test_setup(test_scsi_cdbs, fake_ioctl_reset),
		cmocka_unit_test_setup(test_sense_fixed, fake_ioctl_reset),
		cmocka_unit_test_setup(test_sense_descriptor, fake_ioctl_reset),
		cmocka_unit_test_setup(test_scsi_verify_method, fake_ioctl_reset),
		cmocka_unit_test_setup(test_scsi_prep_complete, fake_ioctl_reset),
		cmocka_unit_test_setup(test_scsi_refused, fake_ioctl_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
