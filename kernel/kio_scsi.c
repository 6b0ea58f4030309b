/*
 * kernel/kio_scsi.c - SCSI passthrough through SG_IO on the block device: CDB builders for
 * the whitelisted read-only commands (INQUIRY, READ CAPACITY, READ, VERIFY with BYTCHK=0,
 * LOG SENSE without SP, REPORT LUNS), the whitelist, and sense decoding with libsgutils2
 * (fixed and descriptor formats, the information field); the sysfs hints sd leaves (USB
 * transport, protection type, the Block Limits page it read); kio_dev_cmd_submit sends one
 * queued command of either kind (NVMe by ioctl, SCSI by SG_IO), blocking.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <scsi/sg.h>
#include <scsi/sg_lib.h>
#include <scsi/sg_unaligned.h>

#include "kio_dev.h"

#define SCSI_INQUIRY 0x12
#define SCSI_READ_CAPACITY10 0x25
#define SCSI_READ10 0x28
#define SCSI_VERIFY10 0x2f
#define SCSI_LOG_SENSE 0x4d
#define SCSI_READ16 0x88
#define SCSI_VERIFY16 0x8f
#define SCSI_SERVICE_ACTION_IN16 0x9e
#define SCSI_SAI_READ_CAPACITY16 0x10
#define SCSI_REPORT_LUNS 0xa0
#define SCSI_ATA_PASS_THROUGH16 0x85
#define ATA_READ_DMA_EXT 0x25
#define ATA_PROTO_DMA 6
#define ATA_ERR_UNC 0x40		/* uncorrectable data: the LBA registers name the block */

int kio_scsi_build_verify16(uint8_t *cdb, uint64_t lba, uint32_t nblocks, uint8_t vrprotect)
{
	if (vrprotect > 7 || nblocks == 0)
		return -EINVAL;
	memset(cdb, 0, 16);
	cdb[0] = SCSI_VERIFY16;
	cdb[1] = (uint8_t)(vrprotect << 5);	/* DPO 0, BYTCHK 00: the medium only */
	sg_put_unaligned_be64(lba, cdb + 2);
	sg_put_unaligned_be32(nblocks, cdb + 10);
	return 16;
}

int kio_scsi_build_read16(uint8_t *cdb, uint64_t lba, uint32_t nblocks, uint8_t rdprotect)
{
	if (rdprotect > 7 || nblocks == 0)
		return -EINVAL;
	memset(cdb, 0, 16);
	cdb[0] = SCSI_READ16;
	cdb[1] = (uint8_t)(rdprotect << 5);
	sg_put_unaligned_be64(lba, cdb + 2);
	sg_put_unaligned_be32(nblocks, cdb + 10);
	return 16;
}

int kio_scsi_build_ata_read(uint8_t *cdb, uint64_t lba, uint32_t nblocks)
{
	if (nblocks == 0 || nblocks > 65536 || lba >> 48)
		return -EINVAL;
	if (nblocks == 65536)
		nblocks = 0;			/* a count of 0 is 65536 in a 48-bit command */
	memset(cdb, 0, 16);
	cdb[0] = SCSI_ATA_PASS_THROUGH16;
	cdb[1] = ATA_PROTO_DMA << 1 | 1;	/* EXTEND: 48-bit registers */
	cdb[2] = 0x0e;				/* T_DIR from the device, BYT_BLOK, T_LENGTH: COUNT */
	cdb[5] = (uint8_t)(nblocks >> 8);	/* COUNT 15:8 */
	cdb[6] = (uint8_t)nblocks;		/* COUNT 7:0 */
	cdb[7] = (uint8_t)(lba >> 24);		/* LBA 31:24 */
	cdb[8] = (uint8_t)lba;			/* LBA 7:0 */
	cdb[9] = (uint8_t)(lba >> 32);		/* LBA 39:32 */
	cdb[10] = (uint8_t)(lba >> 8);		/* LBA 15:8 */
	cdb[11] = (uint8_t)(lba >> 40);		/* LBA 47:40 */
	cdb[12] = (uint8_t)(lba >> 16);		/* LBA 23:16 */
	cdb[13] = 0x40;				/* DEVICE: LBA mode */
	cdb[14] = ATA_READ_DMA_EXT;
	return 16;
}

int kio_scsi_ata_sense_lba(const uint8_t *sense, unsigned len, uint64_t lba, uint32_t nblocks,
			   uint64_t *bad)
{
	const unsigned char *d;
	uint64_t v, cand;

	if (len < 8)
		return 0;
	if ((sense[0] & 0x7f) >= 0x72) {
		/* descriptor format: the ATA Status Return descriptor (SAT, code 09h) */
		d = sg_scsi_sense_desc_find(sense, (int)len, 9);
		/* the descriptor whole inside the sense bytes (untrusted: a device's) */
		if (!d || (size_t)(d - sense) + 14 > len || d[1] < 12 || !(d[3] & ATA_ERR_UNC))
			return 0;
		v = (uint64_t)d[7] | (uint64_t)d[9] << 8 | (uint64_t)d[11] << 16;
		if (d[2] & 1)
			v |= (uint64_t)d[6] << 24 | (uint64_t)d[8] << 32 | (uint64_t)d[10] << 40;
		else
			v |= (uint64_t)(d[12] & 0x0f) << 24;
	} else {
		/* fixed format (libata without D_SENSE): ERROR in the information field's first
		 * byte, LBA 23:0 in the command-specific bytes 9..11; the bits above come from
		 * the command, whose range holds the failing block */
		if (len < 12 || !(sense[3] & ATA_ERR_UNC))
			return 0;
		v = (uint64_t)sense[9] | (uint64_t)sense[10] << 8 | (uint64_t)sense[11] << 16;
		cand = (lba & ~0xffffffull) | v;
		if (cand < lba)
			cand += 1ull << 24;
		v = cand;
	}
	if (v < lba || v >= lba + nblocks)
		return 0;
	*bad = v;
	return 1;
}

int kio_scsi_build_readcap16(uint8_t *cdb, uint32_t alloc_len)
{
	memset(cdb, 0, 16);
	cdb[0] = SCSI_SERVICE_ACTION_IN16;
	cdb[1] = SCSI_SAI_READ_CAPACITY16;
	sg_put_unaligned_be32(alloc_len, cdb + 10);
	return 16;
}

int kio_scsi_build_inquiry(uint8_t *cdb, int evpd, uint8_t page, uint16_t alloc_len)
{
	memset(cdb, 0, 6);
	cdb[0] = SCSI_INQUIRY;
	cdb[1] = evpd ? 1 : 0;
	cdb[2] = evpd ? page : 0;
	sg_put_unaligned_be16(alloc_len, cdb + 3);
	return 6;
}

int kio_scsi_allowed(const uint8_t *cdb, unsigned len)
{
	if (!cdb || len < 6 || len > KIO_SCSI_CDB_MAX)
		return 0;
	switch (cdb[0]) {
	case SCSI_INQUIRY:
		return len == 6;
	case SCSI_READ_CAPACITY10:
	case SCSI_READ10:
		return len == 10;
	case SCSI_READ16:
		return len == 16;
	case SCSI_VERIFY10:
		return len == 10 && (cdb[1] & 0x06) == 0;	/* BYTCHK 00: no data-out */
	case SCSI_VERIFY16:
		return len == 16 && (cdb[1] & 0x06) == 0;
	case SCSI_SERVICE_ACTION_IN16:
		return len == 16 && (cdb[1] & 0x1f) == SCSI_SAI_READ_CAPACITY16;
	case SCSI_LOG_SENSE:
		return len == 10 && (cdb[1] & 0x01) == 0;	/* SP would save parameters */
	case SCSI_REPORT_LUNS:
		return len == 12;
	case SCSI_ATA_PASS_THROUGH16:
		/* READ DMA EXT only, data from the device, 48-bit */
		return len == 16 && cdb[14] == ATA_READ_DMA_EXT && cdb[1] == (ATA_PROTO_DMA << 1 | 1) &&
		       cdb[2] == 0x0e;
	}
	return 0;
}

int kio_scsi_parse_sense(const uint8_t *sense, unsigned len, struct kio_scsi_status *st)
{
	struct sg_scsi_sense_hdr h;
	uint64_t info = 0;

	if (!sg_scsi_normalize_sense(sense, (int)len, &h))
		return -EINVAL;
	st->sense_key = h.sense_key;
	st->asc = h.asc;
	st->ascq = h.ascq;
	st->info_valid = sg_get_sense_info_fld(sense, (int)len, &info);
	st->info = st->info_valid ? info : 0;
	return 0;
}

int kio_scsi_submit(int fd, const uint8_t *cdb, unsigned cdb_len, void *data,
		    uint32_t data_bytes, uint32_t timeout_ms, struct kio_scsi_status *st)
{
	struct sg_io_hdr io;
	uint8_t cmd[KIO_SCSI_CDB_MAX];

	memset(st, 0, sizeof(*st));
	if (!kio_scsi_allowed(cdb, cdb_len))
		return -EPERM;
	memcpy(cmd, cdb, cdb_len);
	memset(&io, 0, sizeof(io));
	io.interface_id = 'S';
	io.cmdp = cmd;
	io.cmd_len = (unsigned char)cdb_len;
	io.dxfer_direction = data && data_bytes ? SG_DXFER_FROM_DEV : SG_DXFER_NONE;
	io.dxferp = data;
	io.dxfer_len = data ? data_bytes : 0;
	io.sbp = st->sense;
	io.mx_sb_len = sizeof(st->sense);
	io.timeout = timeout_ms ? timeout_ms : 60000;
	if (ioctl(fd, SG_IO, &io) < 0)
		return -errno;
	st->scsi_status = io.status;
	st->host_status = io.host_status;
	st->driver_status = io.driver_status;
	st->sense_len = io.sb_len_wr;
	st->resid = io.resid > 0 ? (uint32_t)io.resid : 0;
	if (st->sense_len)
		kio_scsi_parse_sense(st->sense, st->sense_len, st);
	return 0;
}

int kio_dev_cmd_submit(int fd, struct kio_dev_cmd *c)
{
	switch (c->kind) {
	case KIO_CMD_NVME:
		return kio_nvme_submit(fd, 0, &c->nvme, &c->nvme_st);
	case KIO_CMD_SCSI:
		return kio_scsi_submit(fd, c->cdb, c->cdb_len, c->data, c->data_bytes,
				       c->timeout_ms, &c->scsi_st);
	default:
		return -EINVAL;
	}
}

/* Return bytes read from path into buf (up to len), or -errno. */
static int read_small(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return (int)n;
}

int kio_scsi_hints(const char *sysfs, const char *disk, struct kio_scsi_hints *h)
{
	char path[PATH_MAX], real[PATH_MAX], buf[16];
	struct dirent *de;
	DIR *dir;
	int n;

	memset(h, 0, sizeof(*h));
	h->protection_type = -1;
	if (!sysfs)
		sysfs = "/sys";
	if (!disk[0] || strchr(disk, '/') || strstr(disk, ".."))
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/block/%s/device", sysfs, disk) >= sizeof(path))
		return -ENAMETOOLONG;
	if (!realpath(path, real))
		return -errno;
	/* .../usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0 for usb-storage and uas alike */
	h->usb = strstr(real, "/usb") != NULL;
	if ((size_t)snprintf(path, sizeof(path), "%s/vpd_pgb0", real) >= sizeof(path))
		return -ENAMETOOLONG;
	n = read_small(path, h->vpd_b0, sizeof(h->vpd_b0));
	h->have_vpd_b0 = n >= 16 && h->vpd_b0[1] == 0xb0;
	if ((size_t)snprintf(path, sizeof(path), "%s/scsi_disk", real) >= sizeof(path))
		return -ENAMETOOLONG;
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/scsi_disk/%.64s/protection_type", real,
				     de->d_name) >= sizeof(path))
			break;
		n = read_small(path, buf, sizeof(buf) - 1);
		if (n > 0) {
			buf[n] = '\0';
			if (buf[0] >= '0' && buf[0] <= '3' && (buf[1] == '\n' || !buf[1]))
				h->protection_type = buf[0] - '0';
		}
		break;
	}
	if (dir)
		closedir(dir);
	return 0;
}
