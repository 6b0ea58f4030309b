/*
 * tests/unit/test_integrity_nvme.c - NVMe verification and protection information, mocked:
 * kernel/kio_nvme.c and integrity/ with ioctl() and io_uring_submit() wrapped (-Wl,--wrap):
 * the guard CRCs against their published vectors, PI tag checks, exact NVMe command dwords
 * for Verify, Read and Get Log Page, Identify decoding with bytes out of range, NVMe status
 * decoding, nvme-verify's prep and complete and its uring_cmd SQE, and the whitelist: any
 * other opcode is refused before an ioctl is made. The mocked kernel is in fake_ioctl.c.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_crc_vectors, fake_ioctl_reset),
		cmocka_unit_test_setup(test_pi_check, fake_ioctl_reset),
		cmocka_unit_test_setup(test_nvme_verify_dwords, fake_ioctl_reset),
		cmocka_unit_test_setup(test_nvme_read_dwords, fake_ioctl_reset),
		cmocka_unit_test_setup(test_nvme_get_log_dwords, fake_ioctl_reset),
		cmocka_unit_test_setup(test_nvme_identify_bounds, fake_ioctl_reset),
		cmocka_unit_test_setup(test_nvme_verify_method, fake_ioctl_reset),
		cmocka_unit_test_setup(test_nvme_status_decoding, fake_ioctl_reset),
		cmocka_unit_test_setup(test_nvme_prep_complete, fake_ioctl_reset),
		cmocka_unit_test_setup(test_nvme_uring_sqe, fake_ioctl_reset),
		cmocka_unit_test_setup(test_nvme_refused, fake_ioctl_reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
