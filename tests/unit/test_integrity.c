/*
 * tests/unit/test_integrity.c - drive-side verification, mocked: kernel/kio_nvme.c,
 * kio_scsi.c, kio_xfs_verify.c and integrity/ with ioctl() and io_uring_submit() wrapped
 * (-Wl,--wrap): exact NVMe command dwords for Verify and Read, exact CDB bytes for
 * VERIFY(16) and READ(16), sense parsing (fixed, descriptor, no valid information), NVMe
 * status decoding, the guard CRCs against their published vectors, PI tag checks,
 * xfs-verify's XFS_IOC_VERIFY_MEDIA fields and resume, and the whitelist: any other opcode
 * or CDB is refused before an ioctl is made.
 * The mocked kernel (the wraps) and the fake sysfs tree are in fake_ioctl.c.
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

static int reset(void **state)
{
	(void)state;
	memset(&k, 0, sizeof(k));
	return 0;
}

/* ---------------------------------------------------------------- CRCs */

static void fill4k(uint8_t *b, int pattern)
{
	for (int i = 0; i < 4096; i++)
		b[i] = pattern == 0 ? 0x00 : pattern == 1 ? 0xff :
		       pattern == 2 ? (uint8_t)i : (uint8_t)(0xff - (i & 0xff));
}

static void test_crc_vectors(void **state)
{
	/* NVM Command Set specification, "64b CRC Test Cases" and "32b CRC Test Cases"
	 * (4 KiB block: all 00h, all FFh, incrementing, decrementing), and the check values
	 * of "123456789" (CRC-16/T10-DIF 0xD0DB, CRC-32C 0xE3069283, CRC-64/NVME). */
	static const uint64_t crc64[4] = {
		0x6482d367eb22b64eull, 0xc0ddba7302eca3acull,
		0x3e729f5f6750449cull, 0x9a2df64b8e9e517eull,
	};
	static const uint32_t crc32c[2] = { 0x98f94189u, 0x25c1fe13u };
	uint8_t b[4096];

	(void)state;
	assert_int_equal(vfy_crc16_t10dif("123456789", 9), 0xd0db);
	assert_int_equal(vfy_crc32c("123456789", 9), 0xe3069283u);
	assert_true(vfy_crc64_nvme("123456789", 9) == 0xae8b14860a799888ull);
	for (int p = 0; p < 4; p++) {
		fill4k(b, p);
		if (vfy_crc64_nvme(b, sizeof(b)) != crc64[p])
			fail_msg("CRC64 pattern %d: got %016llx want %016llx", p,
				 (unsigned long long)vfy_crc64_nvme(b, sizeof(b)),
				 (unsigned long long)crc64[p]);
		if (p < 2)
			assert_int_equal(vfy_crc32c(b, sizeof(b)), crc32c[p]);
	}
	assert_int_equal(vfy_crc16_t10dif("", 0), 0);
}

/* ---------------------------------------------------------------- PI */

static void put_be(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

static void test_pi_check(void **state)
{
	struct vfy_pi_fmt f = { .lbs = 512, .ms = 8, .pi_type = 1, .pi_first = 1,
				.guard = VFY_GUARD_CRC16 };
	uint8_t data[4 * 512], md[4 * 8];
	struct vfy_result res;

	(void)state;
	for (unsigned i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	for (unsigned b = 0; b < 4; b++) {
		put_be(md + b * 8, vfy_crc16_t10dif(data + b * 512, 512), 2);
		put_be(md + b * 8 + 2, 0, 2);
		put_be(md + b * 8 + 4, 1000 + b, 4);
	}
	assert_int_equal(vfy_pi_check(&f, data, md, 4, 1000, &res), 0);
	/* A wrong reference tag in block 2. */
	put_be(md + 2 * 8 + 4, 12345, 4);
	assert_int_equal(vfy_pi_check(&f, data, md, 4, 1000, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_PI_REF);
	assert_true(res.have_lba && res.lba == 1002);
	assert_int_equal(res.expected, 1002);
	assert_int_equal(res.found, 12345);
	/* The application tag escape 0xFFFF turns checking off for that block. */
	put_be(md + 2 * 8 + 2, 0xffff, 2);
	assert_int_equal(vfy_pi_check(&f, data, md, 4, 1000, &res), 0);
	/* A flipped data bit in block 1: the guard names it, expected and found. */
	data[512 + 3] ^= 1;
	assert_int_equal(vfy_pi_check(&f, data, md, 4, 1000, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_PI_GUARD);
	assert_int_equal(res.lba, 1001);
	assert_int_equal(res.expected, vfy_crc16_t10dif(data + 512, 512));
	assert_int_equal(res.found, (md[8] << 8) | md[9]);
}

/* ---------------------------------------------------------------- NVMe commands */

static void test_nvme_verify_dwords(void **state)
{
	struct nvme_passthru_cmd64 c;

	(void)state;
	assert_int_equal(kio_nvme_build_verify(&c, 3, 0x123456789aull, 8,
					       KIO_NVME_PRCHK_GUARD | KIO_NVME_PRCHK_REF,
					       0x3456789a), 0);
	assert_int_equal(c.opcode, 0x0c);
	assert_int_equal(c.nsid, 3);
	assert_int_equal(c.cdw10, 0x3456789a);		/* SLBA low */
	assert_int_equal(c.cdw11, 0x12);		/* SLBA high */
	assert_int_equal(c.cdw12, 0x14000007);		/* PRCHK guard|ref, NLB 0's based */
	assert_int_equal(c.cdw13, 0);
	assert_int_equal(c.cdw14, 0x3456789a);		/* ILBRT */
	assert_int_equal(c.cdw15, 0);			/* LBATM/LBAT: app tag unchecked */
	assert_int_equal(c.addr, 0);			/* Verify moves no data */
	assert_int_equal(c.data_len, 0);
	assert_int_equal(c.metadata_len, 0);
	/* No PI: no PRCHK and no reference tag; 65536 blocks is NLB 0xffff. */
	assert_int_equal(kio_nvme_build_verify(&c, 1, 5, 65536, 0, 5), 0);
	assert_int_equal(c.cdw12, 0xffff);
	assert_int_equal(c.cdw14, 0);
	assert_int_equal(kio_nvme_build_verify(&c, 1, 5, 0, 0, 0), -EINVAL);
	assert_int_equal(kio_nvme_build_verify(&c, 1, 5, 65537, 0, 0), -EINVAL);
}

static void test_nvme_read_dwords(void **state)
{
	static uint8_t data[8 * 512], md[8 * 8];
	struct nvme_passthru_cmd64 c;

	(void)state;
	assert_int_equal(kio_nvme_build_read(&c, 2, 0x100000020ull, 8, data, sizeof(data), md,
					     sizeof(md), KIO_NVME_PRCHK_GUARD, 0x20), 0);
	assert_int_equal(c.opcode, 0x02);
	assert_int_equal(c.nsid, 2);
	assert_int_equal(c.cdw10, 0x20);
	assert_int_equal(c.cdw11, 0x1);
	assert_int_equal(c.cdw12, 0x10000007);		/* PRCHK guard, NLB 7 */
	assert_int_equal(c.cdw13, 0);
	assert_int_equal(c.cdw14, 0);			/* no reference tag check asked */
	assert_int_equal(c.cdw15, 0);
	assert_true(c.addr == (uint64_t)(uintptr_t)data);
	assert_int_equal(c.data_len, sizeof(data));
	assert_true(c.metadata == (uint64_t)(uintptr_t)md);
	assert_int_equal(c.metadata_len, sizeof(md));
	assert_int_equal(kio_nvme_build_read(&c, 2, 0, 1, NULL, 512, NULL, 0, 0, 0), -EINVAL);
}

/* Get Log Page: RAE (CDW10 bit 15) set, so reading the Error Information log does not clear
 * the asynchronous event another monitor (smartd, nvme-cli, the kernel) waits for. */
static void test_nvme_get_log_dwords(void **state)
{
	static uint8_t buf[16 * 64];
	struct nvme_passthru_cmd64 c;

	(void)state;
	assert_int_equal(kio_nvme_build_get_log(&c, 0xffffffffu, 0x01, buf, sizeof(buf)), 0);
	assert_int_equal(c.opcode, 0x02);
	assert_int_equal(c.nsid, 0xffffffffu);
	assert_int_equal(c.cdw10, 0x01 | 1u << 15 | (255u << 16));	/* LID, RAE, NUMDL */
	assert_int_equal(c.cdw11, 0);					/* NUMDU */
	assert_int_equal(c.cdw12, 0);
	assert_int_equal(c.cdw13, 0);
	assert_int_equal(c.data_len, sizeof(buf));
	/* 1 MiB: NUMD 0x3ffff splits into NUMDL 0xffff and NUMDU 3 */
	assert_int_equal(kio_nvme_build_get_log(&c, 1, 0x02, buf, 1 << 20), 0);
	assert_int_equal(c.cdw10, 0x02 | 1u << 15 | (0xffffu << 16));
	assert_int_equal(c.cdw11, 3);
	assert_int_equal(kio_nvme_build_get_log(&c, 1, 0x02, buf, 6), -EINVAL);
}

/* Identify decoding with device bytes out of range (found by tests/fuzz fuzz_nvme: MDTS 255
 * shifted a 32-bit value by 255). MDTS or VSL past 4 GiB mean "no limit we could reach". */
static void test_nvme_identify_bounds(void **state)
{
	static uint8_t ctrl[4096], ns[4096], nvm[4096];
	struct vfy_dev d;

	(void)state;
	for (unsigned mdts = 0; mdts < 256; mdts++) {
		memset(&d, 0, sizeof(d));
		ctrl[77] = (uint8_t)mdts;		/* MDTS */
		nvm[0] = (uint8_t)mdts;			/* VSL */
		vfy_nvme_decode_identify(&d, ctrl, NULL, NULL, nvm);
		if (mdts && mdts < 20) {
			assert_int_equal(d.mdts_bytes, 4096u << mdts);
			assert_int_equal(d.vsl_bytes, 4096u << mdts);
		} else {
			assert_int_equal(d.mdts_bytes, 0);
			assert_int_equal(d.vsl_bytes, 0);
		}
	}
	/* FLBAS picking LBA format 63 of 64, DPS with every bit set */
	memset(ns, 0xff, sizeof(ns));
	memset(&d, 0, sizeof(d));
	vfy_nvme_decode_identify(&d, NULL, ns, ns, NULL);
	assert_true(d.pi_type <= 7);
}

/* nvme-verify end to end through the mocked ioctl: the command sent and its outcome. */
static void test_nvme_verify_method(void **state)
{
	struct vfy_dev d;
	struct vfy_result res;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.fd = FAKE_FD;
	d.cfd = -1;
	d.xfs_fd = -1;
	d.kind = VFY_DEV_NVME;
	d.nsid = 1;
	d.lbs = 512;
	d.ms = 8;
	d.pi_type = 1;
	assert_int_equal(vfy_nvme_verify.verify(&d, 0x1000, 16, &res), 0);
	assert_int_equal(k.calls, 1);
	assert_int_equal(k.last_req, NVME_IOCTL_IO64_CMD);
	assert_int_equal(k.nvme.opcode, 0x0c);
	assert_int_equal(k.nvme.cdw10, 0x1000);
	assert_int_equal(k.nvme.cdw12, 15 | KIO_NVME_PRCHK_GUARD | KIO_NVME_PRCHK_REF);
	assert_int_equal(k.nvme.cdw14, 0x1000);
	/* Guard check error with DNR: a PI failure (EILSEQ), status without DNR. */
	k.nvme_ret = 0x4000 | 0x282;
	assert_int_equal(vfy_nvme_verify.verify(&d, 0x1000, 1, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_PI_GUARD);
	assert_int_equal(res.status, 0x282);
	assert_int_equal(vfy_fail_errno(&res), -EILSEQ);
	/* The ioctl itself failing is operational, not a device status. */
	k.nvme_ret = -1;
	k.nvme_errno = ENOTTY;
	assert_int_equal(vfy_nvme_verify.verify(&d, 0, 1, &res), -ENOTTY);
}

static void test_nvme_status_decoding(void **state)
{
	struct nvme_passthru_cmd64 c;
	struct kio_nvme_status st;
	struct vfy_result r;

	(void)state;
	assert_int_equal(vfy_nvme_status_fail(0), VFY_FAIL_NONE);
	assert_int_equal(vfy_nvme_status_fail(0x281), VFY_FAIL_MEDIUM);
	assert_int_equal(vfy_nvme_status_fail(0x282), VFY_FAIL_PI_GUARD);
	assert_int_equal(vfy_nvme_status_fail(0x283), VFY_FAIL_PI_APP);
	assert_int_equal(vfy_nvme_status_fail(0x284), VFY_FAIL_PI_REF);
	assert_int_equal(vfy_nvme_status_fail(0x006), VFY_FAIL_DEVICE);	/* internal error */
	assert_int_equal(vfy_nvme_status_fail(0x280), VFY_FAIL_DEVICE);	/* write fault */
	assert_int_equal(vfy_nvme_status_fail(0x285), VFY_FAIL_DEVICE);	/* compare failure */
	/* The kernel's ioctl return carries SCT/SC plus More and DNR: kio splits them. */
	kio_nvme_build_verify(&c, 1, 0, 1, 0, 0);
	k.nvme_ret = 0x4000 | 0x2000 | 0x281;
	assert_int_equal(kio_nvme_submit(FAKE_FD, 0, &c, &st), 0);
	assert_int_equal(st.status, 0x281);
	assert_int_equal(st.dnr, 1);
	k.nvme_ret = 0x002;
	assert_int_equal(kio_nvme_submit(FAKE_FD, 0, &c, &st), 0);
	assert_int_equal(st.status, 0x002);
	assert_int_equal(st.dnr, 0);
	r.fail = VFY_FAIL_MEDIUM;
	assert_int_equal(vfy_fail_errno(&r), -ENODATA);
	r.fail = VFY_FAIL_PI_REF;
	assert_int_equal(vfy_fail_errno(&r), -EILSEQ);
	r.fail = VFY_FAIL_DEVICE;
	assert_int_equal(vfy_fail_errno(&r), -EIO);
}

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


/* ---------------------------------------------------------------- prep and complete */

/*
 * The executor's split of a method: prep() builds exactly the command verify() sends, no
 * device is touched, and complete() decodes the status the engine stored.
 */
static void test_nvme_prep_complete(void **state)
{
	static uint8_t buf[(1u << 20) + 4096 + 2048 * 8] __attribute__((aligned(4096)));
	struct vfy_dev d;
	struct kio_dev_cmd c;
	struct vfy_result res;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.fd = FAKE_FD;
	d.cfd = d.xfs_fd = -1;
	d.kind = VFY_DEV_NVME;
	d.nsid = 1;
	d.lbs = 512;
	d.ms = 8;
	d.pi_type = 1;
	d.guard = VFY_GUARD_CRC16;
	d.pi_first = 1;
	assert_true(vfy_nvme_verify.caps & VFY_CAP_CMD_NVME);
	assert_int_equal(vfy_nvme_verify.prep(&d, 0x123456789aull, 128, &c, NULL), 0);
	assert_int_equal(k.calls, 0);
	assert_int_equal(c.kind, KIO_CMD_NVME);
	assert_int_equal(c.nvme.opcode, 0x0c);
	assert_int_equal(c.nvme.nsid, 1);
	assert_int_equal(c.nvme.cdw10, 0x3456789a);
	assert_int_equal(c.nvme.cdw11, 0x12);
	assert_int_equal(c.nvme.cdw12, 127 | KIO_NVME_PRCHK_GUARD | KIO_NVME_PRCHK_REF);
	assert_int_equal(c.nvme.cdw13, 0);
	assert_int_equal(c.nvme.cdw14, 0x3456789a);
	assert_int_equal(c.nvme.cdw15, 0);
	assert_int_equal(c.nvme.addr, 0);
	assert_int_equal(c.nvme.data_len, 0);
	/* Success, then Unrecovered Read Error with DNR (the engine dropped DNR already). */
	assert_int_equal(kio_nvme_uring_done(&c, 0, 0), 0);
	assert_int_equal(vfy_nvme_verify.complete(&d, 0x1000, 128, &c, NULL, &res), 0);
	assert_int_equal(kio_nvme_uring_done(&c, 0x4000 | 0x281, 7), 0);
	assert_int_equal(c.nvme_st.status, 0x281);
	assert_int_equal(c.nvme_st.dnr, 1);
	assert_int_equal(c.nvme_st.result, 7);
	d.priv = NULL;			/* no error log without init(): the block is unknown */
	assert_int_equal(vfy_nvme_verify.complete(&d, 0x1000, 128, &c, NULL, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_MEDIUM);
	assert_int_equal(res.status, 0x281);
	assert_false(res.have_lba);
	assert_int_equal(vfy_fail_errno(&res), -ENODATA);
	/* A completion the kernel failed is not a device status. */
	assert_int_equal(kio_nvme_uring_done(&c, -EINVAL, 0), -EINVAL);

	/* pi-read: Read of 8 blocks into the command's own buffer, metadata after the data. */
	assert_true(vfy_pi_read.caps & VFY_CAP_CMD_NVME);
	assert_true(vfy_pi_read.buf_bytes(&d) <= sizeof(buf));
	assert_int_equal(vfy_pi_read.buf_bytes(&d), (1u << 20) + 2048 * 8);
	assert_int_equal(vfy_pi_read.prep(&d, 0x20, 8, &c, buf), 0);
	assert_int_equal(c.nvme.opcode, 0x02);
	assert_int_equal(c.nvme.cdw10, 0x20);
	assert_int_equal(c.nvme.cdw12, 7);		/* no PRCHK: the tags are checked here */
	assert_true(c.nvme.addr == (uint64_t)(uintptr_t)buf);
	assert_int_equal(c.nvme.data_len, 8 * 512);
	assert_true(c.nvme.metadata == (uint64_t)(uintptr_t)(buf + (1u << 20)));
	assert_int_equal(c.nvme.metadata_len, 8 * 8);
	assert_int_equal(vfy_pi_read.prep(&d, 0, 8, &c, NULL), -EINVAL);
	/* Blocks 0x20.. with valid PI, then a reference tag wrong in the third. */
	for (unsigned b = 0; b < 8; b++) {
		uint8_t *pi = buf + (1u << 20) + b * 8;
		uint16_t g;

		memset(buf + b * 512, (int)b, 512);
		g = vfy_crc16_t10dif(buf + b * 512, 512);
		pi[0] = (uint8_t)(g >> 8);
		pi[1] = (uint8_t)g;
		pi[2] = pi[3] = 0;
		pi[4] = pi[5] = pi[6] = 0;
		pi[7] = (uint8_t)(0x20 + b);
	}
	memset(&c.nvme_st, 0, sizeof(c.nvme_st));
	assert_int_equal(vfy_pi_read.complete(&d, 0x20, 8, &c, buf, &res), 0);
	buf[(1u << 20) + 2 * 8 + 7] = 0x99;
	assert_int_equal(vfy_pi_read.complete(&d, 0x20, 8, &c, buf, &res), 1);
	assert_int_equal(res.fail, VFY_FAIL_PI_REF);
	assert_true(res.have_lba && res.lba == 0x22);
	assert_int_equal(res.expected, 0x22);
	assert_int_equal(res.found, 0x99);
	assert_int_equal(k.calls, 0);			/* prep and complete sent nothing */
}

/* The uring_cmd SQE kernel/ fills for an engine: every field of the NVMe command. */
static void test_nvme_uring_sqe(void **state)
{
#if HAVE_IORING_OP_URING_CMD
	uint8_t big[128] __attribute__((aligned(64)));
	struct io_uring_sqe *sqe = (struct io_uring_sqe *)big;
	const struct nvme_uring_cmd *u = (const struct nvme_uring_cmd *)sqe->cmd;
	struct kio_dev_cmd c = { .kind = KIO_CMD_NVME };
	static uint8_t data[4096], md[64];

	(void)state;
	memset(big, 0xa5, sizeof(big));
	assert_int_equal(kio_nvme_build_read(&c.nvme, 3, 0x100000020ull, 8, data, sizeof(data),
					     md, sizeof(md), KIO_NVME_PRCHK_GUARD, 0), 0);
	assert_int_equal(kio_nvme_uring_prep(sqe, 5, 1, &c), 0);
	assert_int_equal(sqe->opcode, IORING_OP_URING_CMD);
	assert_int_equal(sqe->fd, 5);
	assert_int_equal(sqe->flags, IOSQE_FIXED_FILE);
	assert_int_equal(sqe->cmd_op, NVME_URING_CMD_IO);
	assert_int_equal(u->opcode, 0x02);
	assert_int_equal(u->nsid, 3);
	assert_int_equal(u->cdw10, 0x20);
	assert_int_equal(u->cdw11, 1);
	assert_int_equal(u->cdw12, 7 | KIO_NVME_PRCHK_GUARD);
	assert_int_equal(u->cdw13, 0);
	assert_int_equal(u->cdw14, 0);
	assert_int_equal(u->cdw15, 0);
	assert_true(u->addr == (uint64_t)(uintptr_t)data);
	assert_int_equal(u->data_len, sizeof(data));
	assert_true(u->metadata == (uint64_t)(uintptr_t)md);
	assert_int_equal(u->metadata_len, sizeof(md));
	assert_int_equal(sqe->user_data, 0);		/* the rest of the SQE zeroed */
	/* Not fixed: the fd itself. Off the whitelist: nothing is written. */
	assert_int_equal(kio_nvme_uring_prep(sqe, 9, 0, &c), 0);
	assert_int_equal(sqe->flags, 0);
	assert_int_equal(sqe->fd, 9);
	memset(big, 0xa5, sizeof(big));
	c.nvme.opcode = 0x01;				/* Write */
	assert_int_equal(kio_nvme_uring_prep(sqe, 5, 1, &c), -EPERM);
	assert_int_equal(big[0], 0xa5);
	kio_nvme_build_verify(&c.nvme, 1, 0, 1, 0, 0);
	c.nvme.cdw12 |= 1u << 29;			/* PRACT */
	assert_int_equal(kio_nvme_uring_prep(sqe, 5, 1, &c), -EPERM);
	c.kind = KIO_CMD_SCSI;
	assert_int_equal(kio_nvme_uring_prep(sqe, 5, 1, &c), -EINVAL);
	assert_int_equal(k.uring_submits, 0);
#else
	(void)state;
	skip();
#endif
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

/* ---------------------------------------------------------------- the whitelist */

static int nvme_io_ok(uint8_t op)
{
	return op == 0x02 || op == 0x0c;
}

static int nvme_admin_ok(uint8_t op)
{
	return op == 0x02 || op == 0x06;
}

static void test_nvme_refused(void **state)
{
	struct nvme_passthru_cmd64 c;
	struct kio_nvme_status st;
	struct kio_nvme_ring r = { .ring = NULL, .fd = FAKE_FD };
	unsigned sent = 0;

	(void)state;
	for (unsigned op = 0; op < 256; op++) {
		for (int admin = 0; admin <= 1; admin++) {
			int ok = admin ? nvme_admin_ok((uint8_t)op) : nvme_io_ok((uint8_t)op);
			int ret;

			memset(&c, 0, sizeof(c));
			c.opcode = (uint8_t)op;
			c.nsid = 1;
			assert_int_equal(kio_nvme_allowed(admin, &c), ok);
			ret = kio_nvme_submit(FAKE_FD, admin, &c, &st);
			if (!ok) {
				assert_int_equal(ret, -EPERM);
				assert_int_equal(k.calls, sent);
			} else {
				assert_int_equal(ret, 0);
				assert_int_equal(k.calls, ++sent);	/* the mock is reached */
			}
			if (!admin && !ok) {
				/* The io_uring path refuses before it touches the ring. */
				assert_int_equal(kio_nvme_ring_submit(&r, &c, &st), -EPERM);
				assert_int_equal(k.uring_submits, 0);
			}
		}
	}
	/* Write (01h), Write Zeroes (08h), DSM (09h), Format NVM (80h), Sanitize (84h) are
	 * among the refused; a Read or Verify that asks the controller to insert or strip PI
	 * (PRACT) is refused too. */
	kio_nvme_build_read(&c, 1, 0, 1, &c, 512, NULL, 0, 0, 0);
	c.cdw12 |= 1u << 29;
	assert_int_equal(kio_nvme_submit(FAKE_FD, 0, &c, &st), -EPERM);
	kio_nvme_build_verify(&c, 1, 0, 1, 0, 0);
	c.cdw12 |= 1u << 30;
	assert_int_equal(kio_nvme_submit(FAKE_FD, 0, &c, &st), -EPERM);
	assert_int_equal(kio_nvme_ring_submit(&r, &c, &st), -EPERM);
	assert_int_equal(k.calls, sent);
	assert_int_equal(k.uring_submits, 0);
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
		cmocka_unit_test_setup(test_crc_vectors, reset),
		cmocka_unit_test_setup(test_pi_check, reset),
		cmocka_unit_test_setup(test_nvme_verify_dwords, reset),
		cmocka_unit_test_setup(test_nvme_read_dwords, reset),
		cmocka_unit_test_setup(test_nvme_get_log_dwords, reset),
		cmocka_unit_test_setup(test_scsi_probe_usb, reset),
		cmocka_unit_test_setup(test_ata_read, reset),
		cmocka_unit_test_setup(test_trust, reset),
		cmocka_unit_test_setup(test_scsi_host_status, reset),
		cmocka_unit_test_setup(test_nvme_identify_bounds, reset),
		cmocka_unit_test_setup(test_nvme_verify_method, reset),
		cmocka_unit_test_setup(test_nvme_status_decoding, reset),
		cmocka_unit_test_setup(test_scsi_cdbs, reset),
		cmocka_unit_test_setup(test_sense_fixed, reset),
		cmocka_unit_test_setup(test_sense_descriptor, reset),
		cmocka_unit_test_setup(test_scsi_verify_method, reset),
		cmocka_unit_test_setup(test_nvme_prep_complete, reset),
		cmocka_unit_test_setup(test_nvme_uring_sqe, reset),
		cmocka_unit_test_setup(test_scsi_prep_complete, reset),
		cmocka_unit_test_setup(test_nvme_refused, reset),
		cmocka_unit_test_setup(test_scsi_refused, reset),
		cmocka_unit_test_setup(test_passthru_chunk_bounds, reset),
		cmocka_unit_test_setup(test_xfs_verify_fields_and_resume, reset),
		cmocka_unit_test_setup(test_xfs_verify_errors, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
