/*
 * integrity/probe.c - what a device can do for verification: NVMe identify (controller,
 * namespace, NVM command set structures; decoded with libnvme's types), SCSI protection and
 * Block Limits (from what sd left in sysfs, else READ CAPACITY(16) and VPD B0; nothing beyond
 * INQUIRY to USB bridges), the kernel integrity profile, the generic char device and
 * io_uring passthrough. A partition is probed through its whole disk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <endian.h>
#include <nvme/types.h>

#include "kio.h"
#include "kio_dev.h"
#include "verify.h"

#define NVME_MPSMIN_BYTES 4096		/* assumed: CAP.MPSMIN is not visible through identify */

static void *page_alloc(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, 4096))
		return NULL;
	memset(p, 0, 4096);
	return p;
}

/* Return 0 after an admin Identify into buf, or -errno / -EIO on a device status. */
static int nvme_identify(int fd, uint32_t nsid, uint8_t cns, uint8_t csi, void *buf)
{
	struct nvme_passthru_cmd64 c;
	struct kio_nvme_status st;
	int ret;

	kio_nvme_build_identify(&c, nsid, cns, csi, buf);
	ret = kio_nvme_submit(fd, 1, &c, &st);
	if (ret < 0)
		return ret;
	return st.status ? -EIO : 0;
}

/* The kernel maps a passthrough buffer page by page (blk_rq_map_user): each page not
 * physically next to the one before is a segment, and a command with more than the queue's
 * max_segments fails with EINVAL. Only a fragmented machine shows it, so size for the worst. */
static uint32_t passthru_limit(const struct kio_bdev_info *bi)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), n = 0;

	if (bi->max_hw_sectors_kb)
		n = (uint64_t)bi->max_hw_sectors_kb * 1024;
	if (bi->max_segments && (!n || bi->max_segments * page < n))
		n = bi->max_segments * page;
	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* Bytes of an MDTS or VSL field (a power of two in minimum pages), 0 for no limit: 0, or a
 * limit of 4 GiB or more (the field is a byte: a device may say 255). */
static uint32_t limit_bytes(uint8_t exp)
{
	if (!exp || exp >= 20)			/* 4096 << 20 is 4 GiB */
		return 0;
	return (uint32_t)NVME_MPSMIN_BYTES << exp;
}

void vfy_nvme_decode_identify(struct vfy_dev *d, const void *id_ctrl, const void *id_ns,
			      const void *nvm_id_ns, const void *id_ctrl_nvm)
{
	const struct nvme_id_ctrl *ctrl = id_ctrl;
	const struct nvme_id_ns *ns = id_ns;
	const struct nvme_nvm_id_ns *nvmns = nvm_id_ns;
	const struct nvme_id_ctrl_nvm *nvm = id_ctrl_nvm;
	unsigned lbaf;

	if (ctrl) {
		d->oncs_verify = !!(le16toh(ctrl->oncs) & NVME_CTRL_ONCS_VERIFY);
		d->mdts_bytes = limit_bytes(ctrl->mdts);
		if (!d->model[0]) {
			snprintf(d->model, sizeof(d->model), "%.40s", ctrl->mn);
			for (size_t n = strlen(d->model); n && d->model[n - 1] == ' '; n--)
				d->model[n - 1] = '\0';
		}
	}
	if (ns) {
		lbaf = (ns->flbas & 0xf) | ((ns->flbas >> 1) & 0x30);
		d->ms = le16toh(ns->lbaf[lbaf].ms);
		d->pi_type = ns->dps & NVME_NS_DPS_PI_MASK;
		d->pi_first = !!(ns->dps & NVME_NS_DPS_PI_FIRST);
		d->guard = VFY_GUARD_CRC16;
		if (d->pi_type && nvmns) {
			unsigned pif = (le32toh(nvmns->elbaf[lbaf]) & NVME_NVM_ELBAF_PIF_MASK) >> 7;

			d->guard = pif == 2 ? VFY_GUARD_CRC64 : pif == 1 ? VFY_GUARD_CRC32C :
				   VFY_GUARD_CRC16;
		}
	}
	if (nvm)
		d->vsl_bytes = limit_bytes(nvm->vsl);
}

static void probe_nvme(struct vfy_dev *d, const char *disk_name)
{
	struct nvme_id_ctrl *ctrl = page_alloc();
	struct nvme_id_ns *ns = page_alloc();
	struct nvme_id_ctrl_nvm *nvm = page_alloc();
	struct nvme_nvm_id_ns *nvmns = page_alloc();
	struct nvme_passthru_cmd64 c;
	struct kio_nvme_status st;
	int ret, have_ctrl, have_ns, have_nvmns, have_nvm;

	if (!ctrl || !ns || !nvm || !nvmns)
		goto out_free;
	ret = kio_nvme_nsid(d->fd);
	if (ret <= 0)
		goto out_free;
	d->nsid = (uint32_t)ret;
	have_ctrl = nvme_identify(d->fd, 0, NVME_IDENTIFY_CNS_CTRL, 0, ctrl) == 0;
	have_ns = nvme_identify(d->fd, d->nsid, NVME_IDENTIFY_CNS_NS, 0, ns) == 0;
	have_nvmns = have_ns && (ns->dps & NVME_NS_DPS_PI_MASK) &&
		     nvme_identify(d->fd, d->nsid, NVME_IDENTIFY_CNS_CSI_NS, 0, nvmns) == 0;
	have_nvm = nvme_identify(d->fd, 0, NVME_IDENTIFY_CNS_CSI_CTRL, 0, nvm) == 0;
	vfy_nvme_decode_identify(d, have_ctrl ? ctrl : NULL, have_ns ? ns : NULL,
				 have_nvmns ? nvmns : NULL, have_nvm ? nvm : NULL);
	/* The generic char device: nvme0n1 -> ng0n1 (non-multipath naming). */
	if (strncmp(disk_name, "nvme", 4) == 0) {
		snprintf(d->cdev, sizeof(d->cdev), "/dev/ng%.32s", disk_name + 4);
		ret = kio_open_ro(d->cdev);
		if (ret >= 0)
			d->cfd = ret;
		else
			d->cdev[0] = '\0';
	}
	if (d->cfd >= 0 && !d->no_dataless) {
		struct kio_nvme_ring r;

		if (kio_nvme_ring_init(&r, d->cfd, 1) == 0) {
			kio_nvme_build_verify(&c, d->nsid, 0, 1, 0, 0);
			ret = kio_nvme_ring_submit(&r, &c, &st);
			d->uring_cmd = ret == 0;
			if (ret == 0)
				d->verify_works = st.status == 0;
			kio_nvme_ring_exit(&r);
		}
	}
	if (d->verify_works < 0 && !d->no_dataless) {
		/* QEMU executes Verify without advertising it: try one block. */
		kio_nvme_build_verify(&c, d->nsid, 0, 1, 0, 0);
		if (kio_nvme_submit(d->fd, 0, &c, &st) == 0)
			d->verify_works = st.status == 0;
	}
out_free:
	free(ctrl);
	free(ns);
	free(nvm);
	free(nvmns);
}

/* Block Limits VPD page: MAXIMUM and OPTIMAL TRANSFER LENGTH in blocks. */
static void scsi_block_limits(struct vfy_dev *d, const uint8_t *b0)
{
	d->max_xfer_blocks = (uint32_t)b0[8] << 24 | (uint32_t)b0[9] << 16 |
			     (uint32_t)b0[10] << 8 | b0[11];
	d->opt_xfer_blocks = (uint32_t)b0[12] << 24 | (uint32_t)b0[13] << 16 |
			     (uint32_t)b0[14] << 8 | b0[15];
}

void vfy_probe_scsi(struct vfy_dev *d, const struct kio_scsi_hints *h)
{
	uint8_t cdb[16], *buf = page_alloc();
	struct kio_scsi_status st;
	int n;

	if (!buf)
		return;
	d->usb_bridge = h->usb;
	if (h->protection_type >= 0) {
		/* sd read it with READ CAPACITY(16) when the disk allowed it */
		d->p_type = h->protection_type;
		d->prot_en = d->p_type > 0;
	} else if (!h->usb) {
		n = kio_scsi_build_readcap16(cdb, 32);
		if (kio_scsi_submit(d->fd, cdb, (unsigned)n, buf, 32, 0, &st) == 0 &&
		    !st.scsi_status) {
			d->prot_en = buf[12] & 1;
			d->p_type = d->prot_en ? ((buf[12] >> 1) & 7) + 1 : 0;
		}
	}
	if (h->have_vpd_b0) {
		scsi_block_limits(d, h->vpd_b0);
	} else if (!h->usb) {
		memset(buf, 0, 64);
		n = kio_scsi_build_inquiry(cdb, 1, 0xb0, 64);
		if (kio_scsi_submit(d->fd, cdb, (unsigned)n, buf, 64, 0, &st) == 0 &&
		    !st.scsi_status && buf[1] == 0xb0)
			scsi_block_limits(d, buf);
	}
	if (h->usb) {
		/* USB bridges hang or reset on commands their firmware does not know; the
		 * kernel sends them READ CAPACITY(10), READ(10) and no VPD pages: so do we */
		d->verify16 = 0;
		snprintf(d->scsi_why, sizeof(d->scsi_why), "behind a USB bridge: SCSI VERIFY(16) "
			 "and READ(16) passthrough not sent (the kernel avoids them there too)");
	} else if (d->no_dataless) {
		d->verify16 = 0;
		snprintf(d->scsi_why, sizeof(d->scsi_why), "%s", d->dataless_why);
	} else {
		n = kio_scsi_build_verify16(cdb, 0, 1, d->prot_en ? 1 : 0);
		if (kio_scsi_submit(d->fd, cdb, (unsigned)n, NULL, 0, 0, &st) == 0)
			d->verify16 = !(st.scsi_status && st.sense_key == 0x5);	/* ILLEGAL REQ. */
		if (d->verify16 == 0)
			snprintf(d->scsi_why, sizeof(d->scsi_why), "the device refused VERIFY(16) "
				 "(ILLEGAL REQUEST)");
	}
	free(buf);
}

int vfy_dev_open(int fd, int xfs_fd, uint32_t xfs_dev, struct vfy_dev *d)
{
	struct kio_bdev_info bi, disk;
	struct kio_disk_hw hw;
	char p[256], level[16];
	const char *emu;
	int ret;

	memset(d, 0, sizeof(*d));
	d->fd = d->cfd = -1;
	d->xfs_fd = xfs_fd;
	d->xfs_dev = xfs_dev;
	d->verify_works = -1;
	d->verify16 = -1;
	ret = kio_bdev_info(fd, &bi);
	if (ret < 0)
		return ret;
	snprintf(d->path, sizeof(d->path), "/dev/%.63s", bi.disk_name);
	d->part_start_bytes = bi.is_partition ? bi.part_start_bytes : 0;
	d->lbs = bi.logical_block_size;
	d->passthru_max_bytes = passthru_limit(&bi);
	snprintf(d->model, sizeof(d->model), "%s", bi.model);
	ret = kio_open_ro(d->path);
	if (ret < 0)
		return ret;
	d->fd = ret;
	d->size_bytes = kio_bdev_info(d->fd, &disk) == 0 ? disk.size_bytes : bi.size_bytes;
	snprintf(p, sizeof(p), "/sys/block/%s/integrity/format", bi.disk_name);
	if (kio_sysfs_read(p, d->integrity_format, sizeof(d->integrity_format)) < 0)
		snprintf(d->integrity_format, sizeof(d->integrity_format), "none");
	/*
	 * A passthrough command without data (NVMe Verify, SCSI VERIFY) is a request with no
	 * bio; bfq's cgroup code takes the request's cgroup from its bio: Debian 12's 6.1
	 * kernel oopses there (NULL pointer in bfq_bio_bfqg, then RCU stalls) once the io
	 * controller is on, as the patrol unit's IOWeight turns it on (tests/bench/
	 * vm-ioweight.sh, METHOD=auto). Under bfq such commands are never sent, not even
	 * to probe: the scan reads instead and says why.
	 */
	if (kio_disk_sched_bfq(bi.disk_name) == 1) {
		d->no_dataless = 1;
		snprintf(d->dataless_why, sizeof(d->dataless_why), "the disk's I/O scheduler "
			 "is bfq: a dataless passthrough command can crash bfq's cgroup code "
			 "(Linux 6.1); not sent (choose another scheduler to verify on the drive)");
	}
	/* what the disk says it is: the method's proof needs it (integrity/trust.c) */
	if (kio_disk_hw(NULL, bi.disk_name, &hw) == 0) {
		snprintf(d->vendor, sizeof(d->vendor), "%s", hw.vendor);
		snprintf(d->driver, sizeof(d->driver), "%s", hw.driver);
		d->libata = hw.ata_port >= 0;
	}
	if (kio_bdev_ident(bi.disk_name, d->ident, sizeof(d->ident)) < 0)
		d->ident[0] = '\0';
	snprintf(p, sizeof(p), "/sys/block/%s/device/scsi_level", bi.disk_name);
	if (strncmp(bi.disk_name, "nvme", 4) == 0) {
		d->kind = VFY_DEV_NVME;
		probe_nvme(d, bi.disk_name);
	} else if (kio_sysfs_read(p, level, sizeof(level)) >= 0) {
		struct kio_scsi_hints h;

		d->kind = VFY_DEV_SCSI;
		if (kio_scsi_hints(NULL, bi.disk_name, &h) < 0) {
			memset(&h, 0, sizeof(h));
			h.protection_type = -1;
		}
		vfy_probe_scsi(d, &h);
	}
	emu = vfy_emulated(d->vendor, d->model, d->driver);
	snprintf(d->emulated, sizeof(d->emulated), "%s", emu ? emu : "");
	return 0;
}

void vfy_dev_close(struct vfy_dev *d)
{
	kio_close(d->fd);
	kio_close(d->cfd);
	d->fd = d->cfd = -1;
}
