/*
 * integrity/verify.h - how a range is verified: an ops table per method (fio's ioengine_ops
 * shape), probed per device; an unavailable method answers -EOPNOTSUPP with a reason.
 *   read         the scan engine reads every block into host memory (the executor's path)
 *   nvme-verify  NVMe Verify (0x0C) through io_uring uring_cmd (ioctl fallback), PRCHK on PI
 *   scsi-verify  SCSI VERIFY(16) BYTCHK=0 through SG_IO
 *   pi-read      NVMe Read with metadata, guard/application/reference tags checked here
 *   xfs-verify   XFS_IOC_VERIFY_MEDIA (Linux 7.0+)
 * A method's verify() works in the device's logical blocks on the whole disk (namespace):
 * the caller adds the partition start. Device status travels in struct vfy_result.
 * Methods that send device commands (VFY_CAP_CMD_*) also split verify() in two, the way
 * fio's io_uring_cmd engine differs from plain io_uring only in prep and completion:
 * prep() builds one command (kernel/ builders), the scan engine queues it with many others,
 * complete() decodes the device's answer. verify() is prep, one blocking send, complete.
 */
#ifndef MEDIASCAN_VERIFY_H
#define MEDIASCAN_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "kio_dev.h"

enum vfy_dev_kind {
	VFY_DEV_OTHER,
	VFY_DEV_NVME,
	VFY_DEV_SCSI,
};

/* What a failed verify found. */
enum vfy_fail {
	VFY_FAIL_NONE,
	VFY_FAIL_MEDIUM,		/* unrecovered read / MEDIUM ERROR */
	VFY_FAIL_PI_GUARD,		/* guard tag mismatch */
	VFY_FAIL_PI_APP,		/* application tag mismatch */
	VFY_FAIL_PI_REF,		/* reference tag mismatch */
	VFY_FAIL_DEVICE,		/* any other device status (see status) */
};

struct vfy_result {
	enum vfy_fail fail;
	uint32_t status;		/* NVMe (SCT << 8 | SC), SCSI (key << 16 | asc << 8 | ascq) */
	int have_lba;			/* the device named the failing block */
	uint64_t lba;			/* that block, in logical blocks of the whole device */
	uint64_t expected, found;	/* PI tag values (pi-read) */
};

/* PI guard formats (NVMe PIF; SCSI is always CRC16). */
enum vfy_guard {
	VFY_GUARD_CRC16,		/* T10-DIF CRC16, 8-byte PI */
	VFY_GUARD_CRC32C,		/* 16-byte PI */
	VFY_GUARD_CRC64,		/* NVMe CRC64, 16-byte PI */
};

/* Which device of an XFS xfs-verify checks (XFS_IOC_VERIFY_MEDIA's me_dev). */
#define VFY_XFS_DEV_DATA KIO_XFS_DEV_DATA
#define VFY_XFS_DEV_LOG KIO_XFS_DEV_LOG
#define VFY_XFS_DEV_RT KIO_XFS_DEV_RT

/*
 * How far a dataless method (NVMe Verify, SCSI VERIFY: the device's word, no data) is trusted
 * on a device (integrity/trust.c). A drive or an emulator may answer GOOD without reading the
 * medium: QEMU's scsi-hd VERIFY and its IDE disk's READ VERIFY do.
 */
enum vfy_trust_state {
	VFY_TRUST_NONE,			/* not needed: the method moves the data */
	VFY_TRUST_PROVEN,		/* timed against reads of the same span: it reads */
	VFY_TRUST_UNPROVEN,		/* too little written data to time (or not timed) */
	VFY_TRUST_FAILED,		/* it does not read: answered far faster than reads, or
					 * said clean where a read failed */
	VFY_TRUST_VOIDED,		/* a sampled read failed where it said clean mid-scan */
	VFY_TRUST_ASSERTED,		/* not proven, used on the admin's word (--trust-verify) */
};

/* What a proof measured on one device. */
struct vfy_timing {
	uint64_t bytes;			/* the span verified and then read */
	uint64_t verify_ns, read_ns;
	int read_failed;		/* a read of the span failed where verify said clean */
	uint64_t read_fail_lba;		/* where (whole-device logical block) */
	int verify_failed;		/* verify itself reported a failure in the span */
};

struct vfy_trust {
	enum vfy_trust_state state;
	int kept;			/* taken from an earlier scan's verdict, not timed now */
	struct vfy_timing t;
	char why[320];			/* the reason, for probe, the report and the journal */
};

/* A span of the plan in whole-device logical blocks (for the proof). */
struct vfy_span {
	uint64_t lba;
	uint64_t nlb;
};

/* The proof's sizes and thresholds (docs/robustness.md has the measurements). */
#define VFY_PROOF_BYTES (64ull << 20)	/* verify then read this much of the plan */
#define VFY_PROOF_MIN_BYTES (4ull << 20) /* less is too little to time */
#define VFY_PROOF_RATIO 4		/* verify faster than reads by more: not reading */
#define VFY_PROOF_MAX_BPS (20ull << 30)	/* no medium delivers more per device */

/* One device as the methods see it: the whole disk or namespace under the scan target. */
struct vfy_dev {
	char path[128];			/* /dev/nvme0n1, /dev/sda (the whole disk) */
	char cdev[128];			/* NVMe generic char device /dev/ngXnY, "" if none */
	enum vfy_dev_kind kind;
	int fd;				/* the whole disk, O_RDONLY; -1 if not opened */
	int cfd;			/* the generic char device, O_RDONLY; -1 if none */
	int xfs_fd;			/* a file on the mounted XFS (xfs-verify), -1 if none */
	uint32_t xfs_dev;		/* VFY_XFS_DEV_DATA/LOG/RT for xfs-verify */
	uint32_t lbs;			/* logical block size, bytes */
	uint64_t part_start_bytes;	/* the scanned partition's start on the disk */
	uint64_t size_bytes;		/* whole disk */
	char integrity_format[64];	/* sysfs integrity/format, "none" */
	/* Most data one passthrough command can carry from a page-aligned user buffer whose
	 * pages are scattered in memory (one segment per page): max_hw_sectors_kb and
	 * max_segments pages; 0 unknown. */
	uint32_t passthru_max_bytes;
	/* NVMe */
	uint32_t nsid;
	uint32_t ms;			/* metadata bytes per block */
	int pi_type;			/* 0 none, 1..3 */
	int pi_first;			/* PI in the first bytes of the metadata */
	enum vfy_guard guard;
	int oncs_verify;		/* ONCS bit 7 advertised */
	int verify_works;		/* 1 a one-block Verify succeeded, 0 failed, -1 untried */
	uint32_t vsl_bytes;		/* Verify Size Limit, 0 unknown/unlimited */
	uint32_t mdts_bytes;		/* Maximum Data Transfer Size, 0 unlimited */
	int uring_cmd;			/* io_uring passthrough works on cdev */
	/* SCSI */
	int prot_en, p_type;		/* READ CAPACITY(16) */
	uint32_t max_xfer_blocks;	/* Block Limits VPD, 0 unknown */
	uint32_t opt_xfer_blocks;
	int verify16;			/* 1 accepted, 0 refused or not sent, -1 untried */
	int usb_bridge;			/* behind a USB bridge: no passthrough beyond INQUIRY */
	char scsi_why[200];		/* why VERIFY(16)/READ(16) are not used, "" if they are */
	int no_dataless;		/* dataless passthrough (NVMe Verify, SCSI VERIFY) unsafe */
	char dataless_why[200];		/* why, "" when safe */
	char model[128];
	/* What the disk says it is (kio_disk_hw) and what that makes it, for the method's trust */
	char vendor[64];
	char driver[64];		/* the adapter's driver: virtio_scsi, ata_piix, nvme */
	char ident[160];		/* stable identity (wwid:, serial:), "" unknown */
	char emulated[96];		/* what emulates it ("QEMU", "VMware"), "" a real disk */
	int libata;			/* behind libata (SATA, PATA): its error handler's rules */
	struct vfy_trust trust;		/* the dataless method's proof on this device */
	void *priv;			/* the method's state */
};

/* What a method is, for the executor (decided from these, never from the table's address). */
enum vfy_cap {
	VFY_CAP_ENGINE_READ = 1 << 0,	/* the scan engine reads the data itself (read) */
	VFY_CAP_CMD_NVME = 1 << 1,	/* prep/complete of NVMe I/O commands (uring_cmd or ioctl) */
	VFY_CAP_CMD_SCSI = 1 << 2,	/* prep/complete of SCSI CDBs (SG_IO) */
	VFY_CAP_SYNC = 1 << 3,		/* only verify(), one blocking call per range (xfs-verify) */
	VFY_CAP_NAMES_LBA = 1 << 4,	/* a failure may name its block (error log, sense) */
};

struct kio_dev_cmd;

struct vfy_ops {
	const char *name;		/* as given to --method and printed in reports */
	const char *summary;		/* one line for humans */
	int moves_data;			/* 1 when the data crosses the bus to host memory */
	unsigned caps;			/* enum vfy_cap bits */
	/* Return 0 when the method works on d, or -EOPNOTSUPP with a reason in why. */
	int (*probe)(struct vfy_dev *d, char *why, size_t len);
	/* Return 0 after setting up d->priv, or -errno. */
	int (*init)(struct vfy_dev *d);
	/*
	 * Return 0 when blocks [lba, lba + nlb) verified clean, 1 when the device reported a
	 * failure (in res; res->have_lba when it named the block), or -errno when the command
	 * could not be issued (operational).
	 */
	int (*verify)(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct vfy_result *res);
	/* Return the most blocks one verify() may cover on d. */
	uint32_t (*max_blocks)(const struct vfy_dev *d);
	void (*cleanup)(struct vfy_dev *d);
	/*
	 * VFY_CAP_CMD_*: return 0 after building the command for blocks [lba, lba + nlb) in c,
	 * using buf (buf_bytes(d) bytes, page aligned, this command's alone), or -errno.
	 */
	int (*prep)(struct vfy_dev *d, uint64_t lba, uint32_t nlb, struct kio_dev_cmd *c,
		    void *buf);
	/*
	 * Return 0 when the command prep built for [lba, lba + nlb) found the blocks clean, 1
	 * when the device reported a failure (in res), -EOPNOTSUPP when the device refused the
	 * command (ILLEGAL REQUEST), or -errno when it failed short of the media (operational).
	 */
	int (*complete)(struct vfy_dev *d, uint64_t lba, uint32_t nlb, const struct kio_dev_cmd *c,
			const void *buf, struct vfy_result *res);
	/* Return the bytes of buffer one command of prep needs on d (0: none). */
	size_t (*buf_bytes)(const struct vfy_dev *d);
};

extern const struct vfy_ops vfy_read;
extern const struct vfy_ops vfy_nvme_verify;
extern const struct vfy_ops vfy_scsi_verify;
extern const struct vfy_ops vfy_pi_read;
extern const struct vfy_ops vfy_xfs_verify;
extern const struct vfy_ops vfy_scsi_read;	/* SG_IO READ(16): sense-based isolation */
extern const struct vfy_ops vfy_ata_read;	/* ATA PASS-THROUGH READ: libata's disks */

/* Return the method named name ("auto" returns NULL and 0), or -EINVAL with a reason. */
int vfy_method_lookup(const char *name, const struct vfy_ops **ops, char *why, size_t len);
/*
 * Return the method to use on devs: the one asked for (-EOPNOTSUPP with the reason when it
 * cannot run there), or with asked NULL the best that works (nvme-verify, scsi-verify,
 * xfs-verify, read), with the reason in why either way.
 */
int vfy_method_select(const struct vfy_ops *asked, struct vfy_dev *devs, unsigned nr,
		      const struct vfy_ops **out, char *why, size_t len);
/* Return a short name of the methods built in, for usage text. */
const char *vfy_method_names(void);

/*
 * Return 0 after filling d for the block device open on fd (a partition maps to its whole
 * disk), probing NVMe identify / SCSI READ CAPACITY(16), VPD and sysfs; -errno on failure.
 * xfs_fd (or -1) is an fd on the mounted XFS when the device belongs to one.
 */
int vfy_dev_open(int fd, int xfs_fd, uint32_t xfs_dev, struct vfy_dev *d);
/*
 * Fill d's SCSI fields for the disk open on d->fd, following what the kernel's sd driver did
 * (h): the protection type and Block Limits it read are taken from sysfs; READ CAPACITY(16)
 * and INQUIRY page B0 are sent only where sysfs lacks them, and not at all, nor VERIFY(16),
 * to a disk behind a USB bridge (d->scsi_why says so). Exposed for the unit tier.
 */
void vfy_probe_scsi(struct vfy_dev *d, const struct kio_scsi_hints *h);
/*
 * Fill d's NVMe fields from Identify data (4096 bytes each, NULL when that Identify failed):
 * controller (CNS 01h), namespace (00h), NVM command set namespace (05h), NVM command set
 * controller (06h). Untrusted device bytes; exposed for the unit and fuzz tiers.
 */
void vfy_nvme_decode_identify(struct vfy_dev *d, const void *id_ctrl, const void *id_ns,
			      const void *nvm_id_ns, const void *id_ctrl_nvm);
/*
 * Return 1 and the LBA in *bad when the newest of the n Error Information log entries in log
 * (64 bytes each) is new (its error count differs from *last_count), for namespace nsid,
 * inside [lba, lba + nlb); else 0. *last_count becomes the newest count.
 */
int vfy_nvme_error_log_match(const void *log, unsigned n, uint32_t nsid, uint64_t lba,
			     uint32_t nlb, uint64_t *last_count, uint64_t *bad);
/*
 * Return what emulates a disk of this vendor, model and driver ("QEMU", "VMware", "virtio",
 * "Hyper-V", ...), or NULL for a disk that does not say it is emulated or virtual.
 */
const char *vfy_emulated(const char *vendor, const char *model, const char *driver);
/*
 * Return the trust state a proof's timing gives (why said), for a device emulated or not;
 * pure, for the unit tier.
 */
enum vfy_trust_state vfy_trust_judge(const struct vfy_timing *t, const char *emulated,
				     char *why, size_t len);
/*
 * Return 0 after timing ops (a dataless method) on d over spans sp[0..n) (at most
 * VFY_PROOF_BYTES in all): every span verified, then read, with reader (a passthrough read
 * method such as ata-read, which libata's error handler does not count) or else with
 * O_DIRECT reads on read_fd (the scanned device; part_start_bytes maps the spans to it);
 * d->trust is set from vfy_trust_judge(). -errno when the method could not run at all.
 */
int vfy_trust_prove(const struct vfy_ops *ops, struct vfy_dev *d, int read_fd,
		    const struct vfy_ops *reader, const struct vfy_span *sp, unsigned n);
/* Return a fixed name of a trust state ("proven", "failed", ...). */
const char *vfy_trust_name(enum vfy_trust_state s);

/* Close what vfy_dev_open opened. */
void vfy_dev_close(struct vfy_dev *d);
/* Return a fixed string naming a failure ("medium", "pi-guard", ...). */
const char *vfy_fail_name(enum vfy_fail f);
/* Return the errno a failure maps to: -ENODATA medium, -EILSEQ PI, -EIO other. */
int vfy_fail_errno(const struct vfy_result *res);
/*
 * Return the errno the block layer gives a SCSI command that failed with this host byte and
 * no sense data (-ETIMEDOUT, -ENOLINK, -EREMOTEIO, -ENODEV: the path or device; -ENODATA;
 * else -EIO).
 */
int vfy_scsi_host_errno(unsigned host_status);
/* Return the failure class of an NVMe status (SCT << 8 | SC). */
enum vfy_fail vfy_nvme_status_fail(uint32_t status);

/* CRCs (integrity/crc.c) */

/* Return the T10-DIF CRC16 of buf (ISA-L). */
uint16_t vfy_crc16_t10dif(const void *buf, size_t len);
/* Return the CRC32C (Castagnoli) of buf (ISA-L). */
uint32_t vfy_crc32c(const void *buf, size_t len);
/* Return the NVMe CRC64 (Rocksoft polynomial) of buf. */
uint64_t vfy_crc64_nvme(const void *buf, size_t len);

/* PI checks (integrity/pi.c) */

struct vfy_pi_fmt {
	uint32_t lbs;			/* data bytes per block */
	uint32_t ms;			/* metadata bytes per block */
	int pi_type;			/* 1, 2, 3 */
	int pi_first;
	enum vfy_guard guard;
};

/*
 * Return 0 when every block's PI matches (blocks starting at lba, data and separate
 * metadata buffers), or 1 with the first mismatch in res (block, tag, expected, found).
 */
int vfy_pi_check(const struct vfy_pi_fmt *f, const void *data, const void *mdata,
		 uint32_t nlb, uint64_t lba, struct vfy_result *res);

#endif
