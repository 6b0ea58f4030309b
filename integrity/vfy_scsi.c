/*
 * integrity/vfy_scsi.c - SCSI methods through SG_IO. scsi-verify: VERIFY(16) BYTCHK=0
 * (VRPROTECT 001b on PI disks) in chunks bounded by the Block Limits VPD; a MEDIUM ERROR
 * sense with a valid information field names the failing LBA at once; ILLEGAL REQUEST means
 * the device does not do VERIFY (-EOPNOTSUPP: the caller falls back to read). scsi-read:
 * READ(16) into a private buffer, used by the read method to isolate failures on SCSI disks,
 * because the sense data of a READ names the first bad LBA too. Each builds its CDB in
 * prep() and decodes the sense in complete(): the executor queues many through its engine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kio_dev.h"
#include "verify.h"

#define SCSI_MAX_BLOCKS_DEFAULT 65535u
#define SCSI_READ_MAX_BYTES (1u << 20)
#define SCSI_TIMEOUT_MS 60000

#define SK_RECOVERED 0x1
#define SK_MEDIUM_ERROR 0x3
#define SK_ILLEGAL_REQUEST 0x5
#define ASC_PI_CHECK 0x10		/* ASCQ 1 guard, 2 application tag, 3 reference tag */

/* SCSI host bytes (include/scsi/scsi_status.h) the block layer turns into a status of its own */
#define DID_NO_CONNECT 0x01
#define DID_TIME_OUT 0x03
#define DID_TRANSPORT_FAILFAST 0x0f
#define DID_TARGET_FAILURE 0x10
#define DID_MEDIUM_ERROR 0x13
#define DID_TRANSPORT_MARGINAL 0x14

/*
 * Return the errno a read through the block layer would have got for a command that failed
 * without sense data, from its host byte (scsi_result_to_blk_status): the path or the device
 * failing (a device fault), never the medium's fault; -EIO for the rest.
 */
int vfy_scsi_host_errno(unsigned host_status)
{
	switch (host_status) {
	case DID_NO_CONNECT:
		return -ENODEV;			/* gone */
	case DID_TIME_OUT:
		return -ETIMEDOUT;		/* BLK_STS_TIMEOUT */
	case DID_TRANSPORT_FAILFAST:
	case DID_TRANSPORT_MARGINAL:
		return -ENOLINK;		/* BLK_STS_TRANSPORT */
	case DID_TARGET_FAILURE:
		return -EREMOTEIO;		/* BLK_STS_TARGET */
	case DID_MEDIUM_ERROR:
		return -ENODATA;		/* BLK_STS_MEDIUM */
	}
	return -EIO;
}

/* Return 0 clean, 1 failed (res), -EOPNOTSUPP ILLEGAL REQUEST, or -errno without sense. */
static int scsi_outcome(const struct kio_scsi_status *st, struct vfy_result *res)
{
	if (st->scsi_status == 0 && !st->host_status && !(st->driver_status & 0x0f))
		return 0;
	memset(res, 0, sizeof(*res));
	if (!st->sense_len) {
		/* no sense: the path, the controller or the device failed, not the medium */
		if (st->host_status == DID_MEDIUM_ERROR) {
			res->fail = VFY_FAIL_MEDIUM;
			return 1;
		}
		return vfy_scsi_host_errno(st->host_status);
	}
	if (st->sense_key == SK_RECOVERED)
		return 0;
	if (st->sense_key == SK_ILLEGAL_REQUEST)
		return -EOPNOTSUPP;
	res->status = (uint32_t)st->sense_key << 16 | (uint32_t)st->asc << 8 | st->ascq;
	if (st->asc == ASC_PI_CHECK && st->ascq >= 1 && st->ascq <= 3)
		res->fail = st->ascq == 1 ? VFY_FAIL_PI_GUARD :
			    st->ascq == 2 ? VFY_FAIL_PI_APP : VFY_FAIL_PI_REF;
	else if (st->sense_key == SK_MEDIUM_ERROR)
		res->fail = VFY_FAIL_MEDIUM;
	else
		res->fail = VFY_FAIL_DEVICE;
	res->have_lba = st->info_valid;
	res->lba = st->info;
	return 1;
}

static int scsi_verify_probe(struct vfy_dev *d, char *why, size_t len)
{
	if (d->kind != VFY_DEV_SCSI) {
		snprintf(why, len, "not a SCSI disk");
		return -EOPNOTSUPP;
	}
	if (d->no_dataless || d->verify16 == 0) {
		snprintf(why, len, "%s", d->no_dataless ? d->dataless_why : d->scsi_why[0] ? d->scsi_why :
			 "the device refused VERIFY(16) (ILLEGAL REQUEST)");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* At most 65535 blocks a command: libata turns VERIFY into READ VERIFY SECTORS (EXT), which
 * covers 65536 sectors at most, and fails a larger VERIFY as "LBA out of range". */
static uint32_t scsi_verify_max_blocks(const struct vfy_dev *d)
{
	return d->max_xfer_blocks && d->max_xfer_blocks < SCSI_MAX_BLOCKS_DEFAULT ?
	       d->max_xfer_blocks : SCSI_MAX_BLOCKS_DEFAULT;
}

static int scsi_verify_prep(struct vfy_dev *d, uint64_t lba, uint32_t nlb,
			    struct kio_dev_cmd *c, void *buf)
{
	int n;

	(void)buf;
	memset(c, 0, sizeof(*c));
	c->kind = KIO_CMD_SCSI;
	n = kio_scsi_build_verify16(c->cdb, lba, nlb, d->prot_en ? 1 : 0);
	if (n < 0)
		return n;
	c->cdb_len = (unsigned)n;
	c->timeout_ms = SCSI_TIMEOUT_MS;
	return 0;
}

static int scsi_complete(struct vfy_dev *d, uint64_t lba, uint32_t nlb,
			 const struct kio_dev_cmd *c, const void *buf, struct vfy_result *res)
{
	(void)d;
	(void)lba;
	(void)nlb;
	(void)buf;
	return scsi_outcome(&c->scsi_st, res);
}

/* verify() of the command methods: prep, one blocking SG_IO, complete. */
static int scsi_sync(const struct vfy_ops *ops, struct vfy_dev *d, uint64_t lba, uint32_t nlb,
		     void *buf, struct vfy_result *res)
{
	struct kio_dev_cmd c;
	int ret;

	ret = ops->prep(d, lba, nlb, &c, buf);
	if (ret < 0)
		return ret;
	ret = kio_dev_cmd_submit(d->fd, &c);
	if (ret < 0)
		return ret;
	return ops->complete(d, lba, nlb, &c, buf, res);
}

static int scsi_verify(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct vfy_result *res)
{
	return scsi_sync(&vfy_scsi_verify, d, lba, nlb, NULL, res);
}

const struct vfy_ops vfy_scsi_verify = {
	.name = "scsi-verify",
	.summary = "SCSI VERIFY(16) BYTCHK=0: the disk reads and checks its media, no data moves",
	.moves_data = 0,
	.caps = VFY_CAP_CMD_SCSI | VFY_CAP_NAMES_LBA,
	.probe = scsi_verify_probe,
	.verify = scsi_verify,
	.max_blocks = scsi_verify_max_blocks,
	.prep = scsi_verify_prep,
	.complete = scsi_complete,
};

static int scsi_read_probe(struct vfy_dev *d, char *why, size_t len)
{
	if (d->kind != VFY_DEV_SCSI) {
		snprintf(why, len, "not a SCSI disk");
		return -EOPNOTSUPP;
	}
	if (d->usb_bridge) {
		snprintf(why, len, "%s", d->scsi_why);
		return -EOPNOTSUPP;
	}
	return 0;
}

static uint32_t scsi_read_max_blocks(const struct vfy_dev *d)
{
	uint32_t n = SCSI_READ_MAX_BYTES / d->lbs;

	if (d->max_xfer_blocks && d->max_xfer_blocks < n)
		n = d->max_xfer_blocks;
	if (d->passthru_max_bytes && d->passthru_max_bytes / d->lbs < n)
		n = d->passthru_max_bytes / d->lbs;
	return n ? n : 1;
}

static int scsi_read_init(struct vfy_dev *d)
{
	if (posix_memalign(&d->priv, 4096, (size_t)scsi_read_max_blocks(d) * d->lbs))
		return -ENOMEM;
	return 0;
}

static void scsi_read_cleanup(struct vfy_dev *d)
{
	free(d->priv);
	d->priv = NULL;
}

static size_t scsi_read_buf_bytes(const struct vfy_dev *d)
{
	return (size_t)scsi_read_max_blocks(d) * d->lbs;
}

/* Return 0 after making c a data-in command of nlb blocks into buf, whose CDB (n bytes, or
 * the builder's -errno) is in c->cdb; or that -errno. */
static int data_in_cmd(const struct vfy_dev *d, struct kio_dev_cmd *c, int n, uint32_t nlb,
		       void *buf)
{
	if (n < 0)
		return n;
	c->kind = KIO_CMD_SCSI;
	c->cdb_len = (unsigned)n;
	c->data = buf;
	c->data_bytes = nlb * d->lbs;
	c->timeout_ms = SCSI_TIMEOUT_MS;
	return 0;
}

static int scsi_read_prep(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct kio_dev_cmd *c,
			  void *buf)
{
	if (nlb > scsi_read_max_blocks(d) || !buf)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	return data_in_cmd(d, c, kio_scsi_build_read16(c->cdb, lba, nlb, 0), nlb, buf);
}

static int scsi_read(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct vfy_result *res)
{
	if (nlb > scsi_read_max_blocks(d))
		return -EINVAL;
	return scsi_sync(&vfy_scsi_read, d, lba, nlb, d->priv, res);
}

const struct vfy_ops vfy_scsi_read = {
	.name = "scsi-read",
	.summary = "SCSI READ(16) through SG_IO: the sense data names the failing block",
	.moves_data = 1,
	.caps = VFY_CAP_CMD_SCSI | VFY_CAP_NAMES_LBA,
	.probe = scsi_read_probe,
	.init = scsi_read_init,
	.verify = scsi_read,
	.max_blocks = scsi_read_max_blocks,
	.cleanup = scsi_read_cleanup,
	.prep = scsi_read_prep,
	.complete = scsi_complete,
	.buf_bytes = scsi_read_buf_bytes,
};

/*
 * ata-read: READ DMA EXT through ATA PASS-THROUGH(16), for disks behind libata. libata
 * translates a SCSI READ into an ATA read that its error handler retries and counts: more
 * than six plain device errors in ten minutes lower the link's transfer mode until reboot
 * (libata-eh.c, ata_eh_speed_down_verdict). A pass-through command is neither retried nor
 * counted, so isolation and the method's proof read through it on such disks.
 */
static int ata_read_probe(struct vfy_dev *d, char *why, size_t len)
{
	if (d->kind != VFY_DEV_SCSI || !d->libata) {
		snprintf(why, len, "not a disk behind libata");
		return -EOPNOTSUPP;
	}
	return 0;
}

static uint32_t ata_read_max_blocks(const struct vfy_dev *d)
{
	uint32_t n = scsi_read_max_blocks(d);

	return n > 65536 ? 65536 : n;
}

static int ata_read_prep(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct kio_dev_cmd *c,
			 void *buf)
{
	if (nlb > ata_read_max_blocks(d) || !buf)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	return data_in_cmd(d, c, kio_scsi_build_ata_read(c->cdb, lba, nlb), nlb, buf);
}

static int ata_read_complete(struct vfy_dev *d, uint64_t lba, uint32_t nlb,
			     const struct kio_dev_cmd *c, const void *buf, struct vfy_result *res)
{
	const struct kio_scsi_status *st = &c->scsi_st;
	uint64_t bad;
	int ret = scsi_complete(d, lba, nlb, c, buf, res);

	if (ret != 1)
		return ret;
	/* the sense's information field is not the LBA here: the ATA registers are */
	res->have_lba = kio_scsi_ata_sense_lba(st->sense, st->sense_len, lba, nlb, &bad);
	res->lba = res->have_lba ? bad : 0;
	if (res->have_lba && res->fail == VFY_FAIL_DEVICE)
		res->fail = VFY_FAIL_MEDIUM;	/* UNC: an unreadable sector */
	return 1;
}

static int ata_read(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct vfy_result *res)
{
	if (nlb > ata_read_max_blocks(d))
		return -EINVAL;
	return scsi_sync(&vfy_ata_read, d, lba, nlb, d->priv, res);
}

static size_t ata_read_buf_bytes(const struct vfy_dev *d)
{
	return (size_t)ata_read_max_blocks(d) * d->lbs;
}

static int ata_read_init(struct vfy_dev *d)
{
	if (posix_memalign(&d->priv, 4096, ata_read_buf_bytes(d)))
		return -ENOMEM;
	return 0;
}

const struct vfy_ops vfy_ata_read = {
	.name = "ata-read",
	.summary = "ATA READ DMA EXT through ATA PASS-THROUGH(16): not retried, and not counted by "
		   "libata's error handler",
	.moves_data = 1,
	.caps = VFY_CAP_CMD_SCSI | VFY_CAP_NAMES_LBA,
	.probe = ata_read_probe,
	.init = ata_read_init,
	.verify = ata_read,
	.max_blocks = ata_read_max_blocks,
	.cleanup = scsi_read_cleanup,
	.prep = ata_read_prep,
	.complete = ata_read_complete,
	.buf_bytes = ata_read_buf_bytes,
};
