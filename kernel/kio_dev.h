/*
 * kernel/kio_dev.h - device command passthrough: NVMe (ioctl and io_uring uring_cmd on the
 * generic char device), SCSI (SG_IO), and XFS_IOC_VERIFY_MEDIA. Read-only by construction:
 * the builders make only whitelisted commands, and every submit path checks the whitelist
 * again before any ioctl or uring_cmd is issued (-EPERM otherwise). Device status (NVMe
 * status, SCSI sense) is returned in a result struct, never mixed into errno.
 */
#ifndef MEDIASCAN_KIO_DEV_H
#define MEDIASCAN_KIO_DEV_H

#include <stddef.h>
#include <stdint.h>
#include <linux/nvme_ioctl.h>

/* ---------------------------------------------------------------- NVMe */

#define KIO_NVME_ADMIN_GET_LOG_PAGE 0x02
#define KIO_NVME_LOG_RAE (1u << 15)	/* Get Log Page CDW10: retain asynchronous event */
#define KIO_NVME_ADMIN_IDENTIFY 0x06
#define KIO_NVME_CMD_READ 0x02
#define KIO_NVME_CMD_VERIFY 0x0c

/* PRINFO bits of cdw12 (Read, Verify): PRCHK guard / application tag / reference tag. */
#define KIO_NVME_PRCHK_GUARD (1u << 28)
#define KIO_NVME_PRCHK_APP (1u << 27)
#define KIO_NVME_PRCHK_REF (1u << 26)

/* Status as the controller returned it: (SCT << 8) | SC, DNR and More bits dropped. */
#define KIO_NVME_SC_INTERNAL 0x006
#define KIO_NVME_SC_WRITE_FAULT 0x280
#define KIO_NVME_SC_UNRECOVERED_READ 0x281
#define KIO_NVME_SC_GUARD_CHECK 0x282
#define KIO_NVME_SC_APPTAG_CHECK 0x283
#define KIO_NVME_SC_REFTAG_CHECK 0x284
#define KIO_NVME_SC_INVALID_OPCODE 0x001

/* One NVMe command's outcome. */
struct kio_nvme_status {
	uint16_t status;		/* (SCT << 8) | SC; 0 success */
	int dnr;			/* Do Not Retry */
	uint32_t result;		/* completion dword 0 */
};

/* Return 0 after building Verify (0x0C) of nlb blocks at slba with PRINFO prchk, or -EINVAL. */
int kio_nvme_build_verify(struct nvme_passthru_cmd64 *c, uint32_t nsid, uint64_t slba,
			  uint32_t nlb, uint32_t prchk, uint32_t reftag);
/*
 * Return 0 after building Read (0x02) of nlb blocks at slba into data (and metadata when
 * mdata is not NULL), with PRINFO prchk, or -EINVAL.
 */
int kio_nvme_build_read(struct nvme_passthru_cmd64 *c, uint32_t nsid, uint64_t slba,
			uint32_t nlb, void *data, uint32_t data_bytes, void *mdata,
			uint32_t mdata_bytes, uint32_t prchk, uint32_t reftag);
/* Return 0 after building Identify (CNS cns, CSI csi) into a 4096-byte buf, or -EINVAL. */
int kio_nvme_build_identify(struct nvme_passthru_cmd64 *c, uint32_t nsid, uint8_t cns,
			    uint8_t csi, void *buf);
/* Return 0 after building Get Log Page lid of len bytes (a multiple of 4, RAE set: the
 * asynchronous event stays for other monitors), or -EINVAL. */
int kio_nvme_build_get_log(struct nvme_passthru_cmd64 *c, uint32_t nsid, uint8_t lid,
			   void *buf, uint32_t len);
/* Return 1 when the command may be sent (admin: Identify, Get Log Page; I/O: Read, Verify). */
int kio_nvme_allowed(int admin, const struct nvme_passthru_cmd64 *c);
/*
 * Return 0 after the controller completed c (its status in st, 0 or not), -EPERM for a
 * command off the whitelist (nothing sent), or -errno when the kernel refused it.
 */
int kio_nvme_submit(int fd, int admin, struct nvme_passthru_cmd64 *c,
		    struct kio_nvme_status *st);
/* Return the namespace id of an NVMe block or generic char device fd, or -errno. */
int kio_nvme_nsid(int fd);

/* io_uring passthrough (IORING_OP_URING_CMD, NVME_URING_CMD_IO, SQE128 + CQE32). */
struct kio_nvme_ring {
	void *ring;			/* struct io_uring *, opaque here */
	int fd;				/* the generic char device /dev/ngXnY */
};

/* Return 0 after setting up a ring for uring_cmd on fd, -EOPNOTSUPP when unavailable. */
int kio_nvme_ring_init(struct kio_nvme_ring *r, int fd, unsigned depth);
/* Return 0 after c completed (status in st), -EPERM off the whitelist, or -errno. */
int kio_nvme_ring_submit(struct kio_nvme_ring *r, struct nvme_passthru_cmd64 *c,
			 struct kio_nvme_status *st);
/* Free the ring. */
void kio_nvme_ring_exit(struct kio_nvme_ring *r);

/* ---------------------------------------------------------------- SCSI */

#define KIO_SCSI_CDB_MAX 16
#define KIO_SCSI_SENSE_MAX 64

/* One SCSI command's outcome. */
struct kio_scsi_status {
	uint8_t scsi_status;		/* SAM status: 0 GOOD, 2 CHECK CONDITION */
	uint16_t host_status, driver_status;
	uint8_t sense_key, asc, ascq;
	int info_valid;			/* the sense data carries an information field */
	uint64_t info;			/* the information field: for media errors the LBA */
	uint8_t sense[KIO_SCSI_SENSE_MAX];
	uint8_t sense_len;
	uint32_t resid;			/* bytes not transferred */
};

/*
 * What the kernel's sd driver learned about a SCSI disk, from sysfs, so a probe can follow it
 * instead of sending its own commands: a disk behind a USB bridge (usb-storage, uas) gets
 * only the commands the kernel's USB quirks allow (no VPD pages, READ CAPACITY(10) first, no
 * VERIFY), and sd has already read the protection type and the Block Limits page.
 */
struct kio_scsi_hints {
	int usb;			/* the disk's sysfs device path runs through a USB bus */
	int protection_type;		/* scsi_disk/.../protection_type: 0 none, 1-3; -1 unknown */
	int have_vpd_b0;		/* device/vpd_pgb0 exists: the kernel read Block Limits */
	uint8_t vpd_b0[64];		/* its first bytes */
};

/* Return 0 after filling h for disk (sda) from sysfs (NULL: "/sys"), or -errno. */
int kio_scsi_hints(const char *sysfs, const char *disk, struct kio_scsi_hints *h);

/* Return the CDB length after building VERIFY(16) BYTCHK=0 (vrprotect 0..7), or -EINVAL. */
int kio_scsi_build_verify16(uint8_t *cdb, uint64_t lba, uint32_t nblocks, uint8_t vrprotect);
/* Return the CDB length after building READ(16) (rdprotect 0..7), or -EINVAL. */
int kio_scsi_build_read16(uint8_t *cdb, uint64_t lba, uint32_t nblocks, uint8_t rdprotect);
/*
 * Return the CDB length after building ATA PASS-THROUGH(16) READ DMA EXT of nblocks (1..65536)
 * at lba (48-bit), or -EINVAL. libata sends it as it is: its error handler neither retries a
 * failed one nor counts it toward lowering the link's speed, as it does translated READs.
 */
int kio_scsi_build_ata_read(uint8_t *cdb, uint64_t lba, uint32_t nblocks);
/*
 * Return 1 and the failing block in *bad when the sense of a failed ATA PASS-THROUGH command
 * for [lba, lba + nblocks) carries an uncorrectable-data error (UNC) and its LBA (the ATA
 * Status Return descriptor, or libata's fixed format with LBA 23:0); 0 otherwise (an ABRT
 * names no block).
 */
int kio_scsi_ata_sense_lba(const uint8_t *sense, unsigned len, uint64_t lba, uint32_t nblocks,
			   uint64_t *bad);
/* Return the CDB length after building READ CAPACITY(16) for alloc_len bytes. */
int kio_scsi_build_readcap16(uint8_t *cdb, uint32_t alloc_len);
/* Return the CDB length after building INQUIRY (evpd page when evpd) for alloc_len bytes. */
int kio_scsi_build_inquiry(uint8_t *cdb, int evpd, uint8_t page, uint16_t alloc_len);
/* Return 1 when the CDB may be sent (INQUIRY, READ CAPACITY, READ, VERIFY BYTCHK=0, ...). */
int kio_scsi_allowed(const uint8_t *cdb, unsigned cdb_len);
/*
 * Return 0 after the device answered (status, sense parsed into st), -EPERM for a CDB off
 * the whitelist (nothing sent), or -errno when SG_IO itself failed. data may be NULL.
 */
int kio_scsi_submit(int fd, const uint8_t *cdb, unsigned cdb_len, void *data,
		    uint32_t data_bytes, uint32_t timeout_ms, struct kio_scsi_status *st);
/* Return 0 after parsing sense bytes (fixed or descriptor format) into st, -EINVAL if none. */
int kio_scsi_parse_sense(const uint8_t *sense, unsigned len, struct kio_scsi_status *st);

/* ---------------------------------------------------------------- one queued command */

enum kio_cmd_kind {
	KIO_CMD_NONE,
	KIO_CMD_NVME,			/* an NVMe I/O command (Read, Verify) */
	KIO_CMD_SCSI,			/* a SCSI CDB through SG_IO */
};

/*
 * One device command as a scan engine carries it: built by integrity/'s prep with the
 * builders above, sent by kio_dev_cmd_submit (blocking: ioctl or SG_IO) or, for NVMe,
 * prepared into an io_uring SQE by kio_nvme_uring_prep; the answer lands in nvme_st/scsi_st.
 */
struct kio_dev_cmd {
	enum kio_cmd_kind kind;
	struct nvme_passthru_cmd64 nvme;
	uint8_t cdb[KIO_SCSI_CDB_MAX];
	unsigned cdb_len;
	void *data;			/* SCSI data-in buffer, NULL none */
	uint32_t data_bytes;
	uint32_t timeout_ms;		/* SCSI; 0 the default */
	struct kio_nvme_status nvme_st;	/* out */
	struct kio_scsi_status scsi_st;	/* out */
};

/*
 * Return 0 after c was sent on fd and answered (status in c), -EPERM when it is off the
 * whitelist (nothing sent), or -errno when the kernel refused it. Blocks until the answer.
 */
int kio_dev_cmd_submit(int fd, struct kio_dev_cmd *c);
struct io_uring_sqe;
/*
 * Return 0 after filling sqe (of a ring set up with SQE128 and CQE32) with c as
 * IORING_OP_URING_CMD / NVME_URING_CMD_IO on fd (a registered file index when fixed), or
 * -EPERM off the whitelist, -EINVAL when c is not an NVMe command, -EOPNOTSUPP without
 * uring_cmd support in this build.
 */
int kio_nvme_uring_prep(struct io_uring_sqe *sqe, int fd, int fixed, const struct kio_dev_cmd *c);
/* Return 0 after storing a uring_cmd completion (res, big CQE dword 0) in c, or res < 0. */
int kio_nvme_uring_done(struct kio_dev_cmd *c, int res, uint64_t result);

/* ---------------------------------------------------------------- XFS */

/* XFS_IOC_VERIFY_MEDIA (Linux 7.0+), defined here because no installed header has it. */
struct kio_xfs_verify_media {
	uint32_t me_dev;		/* KIO_XFS_DEV_{DATA,LOG,RT} */
	uint32_t me_flags;		/* XFS_VERIFY_MEDIA_* */
	uint64_t me_start_daddr;	/* in/out: 512B sectors; advanced as verification succeeds */
	uint64_t me_end_daddr;		/* exclusive, 512B sectors */
	uint32_t me_ioerror;		/* out: positive errno of the failing I/O */
	uint32_t me_max_io_size;	/* bytes, advice; 0 default */
	uint32_t me_rest_us;		/* pause between I/Os */
	uint32_t me_pad;		/* zero */
};

#define KIO_XFS_DEV_DATA 1
#define KIO_XFS_DEV_LOG 2
#define KIO_XFS_DEV_RT 3
#define KIO_XFS_IOC_VERIFY_MEDIA _IOWR('X', 70, struct kio_xfs_verify_media)

/* Return 0 after one XFS_IOC_VERIFY_MEDIA call on me (see me_start_daddr, me_ioerror). */
int kio_xfs_verify_media(int fd, struct kio_xfs_verify_media *me);

#endif
