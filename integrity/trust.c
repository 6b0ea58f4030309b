/*
 * integrity/trust.c - whether a dataless method (NVMe Verify, SCSI VERIFY) reads the medium of
 * a device. The device's GOOD proves nothing by itself: QEMU's scsi-hd answers VERIFY with
 * BYTCHK=0 and its IDE disk READ VERIFY SECTORS at once, over sectors no read gets through.
 * Three witnesses, weakest first:
 *   identity  the disk says what emulates it (vendor, model, the adapter's driver);
 *   timing    a span of written data is verified, then read: a verify that answers far
 *             faster than the reads (VFY_PROOF_RATIO) or than any medium could deliver
 *             (VFY_PROOF_MAX_BPS) does not read; a read that fails where the verify said
 *             clean is proof on its own; a span under VFY_PROOF_MIN_BYTES is too short to time;
 *   sampling  the executor reads a share of what the method verified during the scan and
 *             voids the method on a device where such a read fails (mediascan/exec_cmd.c).
 * The verify goes first: a disk that really read the span may then serve the reads from its
 * cache, which can only make the verify look slower, never a no-op look like a read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "kio.h"
#include "verify.h"

#define PROOF_READ_CHUNK (1u << 20)

/* Vendor, model or adapter driver strings that name an emulated or virtual disk. */
static const struct {
	const char *needle;		/* case-insensitive substring */
	const char *what;
} emulators[] = {
	{ "QEMU", "QEMU" },				/* scsi-hd, ide-hd, NVMe: "QEMU NVMe Ctrl" */
	{ "VMware", "VMware" },				/* "VMware Virtual disk" */
	{ "vmw_pvscsi", "VMware PVSCSI" },
	{ "VBOX", "VirtualBox" },			/* "VBOX HARDDISK" */
	{ "Virtual Disk", "Hyper-V" },			/* "Msft Virtual Disk" */
	{ "storvsc", "Hyper-V" },
	{ "PersistentDisk", "Google Persistent Disk" },
	{ "nvme_card", "Google Persistent Disk" },	/* GCE's NVMe disks */
	{ "Elastic Block Store", "Amazon EBS" },
	{ "Xen", "Xen" },
	{ "xen", "Xen" },
	{ "virtio", "virtio" },				/* virtio_scsi, virtio_blk */
	{ "scsi_debug", "Linux scsi_debug (RAM)" },
	{ "Red Hat", "virtio" },
	{ "BHYVE", "bhyve" },
	{ "Parallels", "Parallels" },
};

const char *vfy_emulated(const char *vendor, const char *model, const char *driver)
{
	const char *fields[3] = { vendor, model, driver };

	for (size_t i = 0; i < sizeof(emulators) / sizeof(emulators[0]); i++)
		for (unsigned f = 0; f < 3; f++)
			if (fields[f] && strcasestr(fields[f], emulators[i].needle))
				return emulators[i].what;
	return NULL;
}

const char *vfy_trust_name(enum vfy_trust_state s)
{
	switch (s) {
	case VFY_TRUST_NONE:
		return "not-needed";
	case VFY_TRUST_PROVEN:
		return "proven";
	case VFY_TRUST_UNPROVEN:
		return "unproven";
	case VFY_TRUST_FAILED:
		return "failed";
	case VFY_TRUST_VOIDED:
		return "voided";
	case VFY_TRUST_ASSERTED:
		return "asserted";
	}
	return "unknown";
}

enum vfy_trust_state vfy_trust_judge(const struct vfy_timing *t, const char *emulated,
				     char *why, size_t len)
{
	double mib = (double)t->bytes / (1 << 20);
	double vms = (double)t->verify_ns / 1e6, rms = (double)t->read_ns / 1e6;
	const char *disk = emulated && emulated[0] ? emulated : NULL;

	if (t->read_failed && t->verify_failed) {
		snprintf(why, len, "the verify and a read both failed in the span: the verify "
			 "reads the medium");
		return VFY_TRUST_PROVEN;
	}
	if (t->read_failed) {
		snprintf(why, len, "a read failed at block %llu where the verify had said clean: "
			 "the verify does not read the medium", (unsigned long long)t->read_fail_lba);
		return VFY_TRUST_FAILED;
	}
	if (t->bytes < VFY_PROOF_MIN_BYTES) {
		snprintf(why, len, "only %.1f MiB of written data to time (%llu MiB needed)%s%s",
			 mib, VFY_PROOF_MIN_BYTES >> 20, disk ? "; the disk is emulated by " : "",
			 disk ? disk : "");
		return VFY_TRUST_UNPROVEN;
	}
	if (t->verify_ns * VFY_PROOF_RATIO < t->read_ns) {
		snprintf(why, len, "verify of %.0f MiB took %.1f ms, reading it %.1f ms (%.0fx "
			 "faster, over %dx): the verify does not read the medium%s%s", mib, vms, rms,
			 vms > 0 ? rms / vms : 0.0, VFY_PROOF_RATIO, disk ? "; emulated by " : "",
			 disk ? disk : "");
		return VFY_TRUST_FAILED;
	}
	if ((double)t->bytes * 1e9 > (double)VFY_PROOF_MAX_BPS * (double)t->verify_ns) {
		snprintf(why, len, "verify of %.0f MiB took %.2f ms: faster than any medium "
			 "delivers (%llu GiB/s)", mib, vms, VFY_PROOF_MAX_BPS >> 30);
		return VFY_TRUST_FAILED;
	}
	snprintf(why, len, "verify of %.0f MiB took %.1f ms, reading it %.1f ms: it reads the "
		 "medium%s%s", mib, vms, rms, disk ? " (emulated by " : "", disk ? disk : "");
	if (disk)
		strncat(why, ")", len - strlen(why) - 1);
	return VFY_TRUST_PROVEN;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Return 0 after verifying the spans (res's failure noted in t), or the method's -errno. */
static int prove_verify(const struct vfy_ops *ops, struct vfy_dev *d, const struct vfy_span *sp,
			unsigned n, struct vfy_timing *t)
{
	uint32_t max = ops->max_blocks(d);
	uint64_t start = now_ns();
	struct vfy_result res;
	int ret;

	for (unsigned i = 0; i < n; i++) {
		for (uint64_t done = 0; done < sp[i].nlb;) {
			uint32_t nlb = sp[i].nlb - done > max ? max : (uint32_t)(sp[i].nlb - done);

			memset(&res, 0, sizeof(res));
			ret = ops->verify(d, sp[i].lba + done, nlb, &res);
			if (ret < 0)
				return ret;
			if (ret == 1)
				t->verify_failed = 1;
			done += nlb;
		}
	}
	t->verify_ns = now_ns() - start;
	return 0;
}

/* Return 0 after reading the spans (a failure noted in t), or -errno (-ENOMEM). */
static int prove_read(struct vfy_dev *d, int read_fd, const struct vfy_ops *reader,
		      const struct vfy_span *sp, unsigned n, struct vfy_timing *t)
{
	uint32_t max = reader ? reader->max_blocks(d) : PROOF_READ_CHUNK / d->lbs;
	void *buf = NULL;
	uint64_t start;
	int ret;

	if (!reader && posix_memalign(&buf, 4096, PROOF_READ_CHUNK))
		return -ENOMEM;
	start = now_ns();
	for (unsigned i = 0; i < n && !t->read_failed; i++) {
		for (uint64_t done = 0; done < sp[i].nlb && !t->read_failed;) {
			uint32_t nlb = sp[i].nlb - done > max ? max : (uint32_t)(sp[i].nlb - done);
			uint64_t lba = sp[i].lba + done;
			struct vfy_result res;

			if (reader) {
				memset(&res, 0, sizeof(res));
				ret = reader->verify(d, lba, nlb, &res);
				ret = ret == 0 ? 0 : -EIO;
			} else {
				ssize_t got = kio_pread(read_fd, buf, (size_t)nlb * d->lbs,
							lba * d->lbs - d->part_start_bytes);

				ret = got == (ssize_t)nlb * d->lbs ? 0 : -EIO;
			}
			if (ret < 0) {
				t->read_failed = 1;
				t->read_fail_lba = lba;
			}
			done += nlb;
		}
	}
	t->read_ns = now_ns() - start;
	free(buf);
	return 0;
}

int vfy_trust_prove(const struct vfy_ops *ops, struct vfy_dev *d, int read_fd,
		    const struct vfy_ops *reader, const struct vfy_span *sp, unsigned n)
{
	struct vfy_timing *t = &d->trust.t;
	int ret, reader_ready = 0;

	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < n; i++)
		t->bytes += sp[i].nlb * d->lbs;
	if (t->bytes < VFY_PROOF_MIN_BYTES) {
		d->trust.state = vfy_trust_judge(t, d->emulated, d->trust.why,
						 sizeof(d->trust.why));
		return 0;
	}
	if (ops->init) {
		ret = ops->init(d);
		if (ret < 0)
			return ret;
	}
	ret = prove_verify(ops, d, sp, n, t);
	if (ops->cleanup)
		ops->cleanup(d);
	if (ret < 0)
		return ret;
	if (reader && reader->init) {
		reader_ready = reader->init(d) == 0;
		if (!reader_ready)
			reader = NULL;
	}
	ret = prove_read(d, read_fd, reader, sp, n, t);
	if (reader_ready && reader->cleanup)
		reader->cleanup(d);
	if (ret < 0)
		return ret;
	d->trust.state = vfy_trust_judge(t, d->emulated, d->trust.why, sizeof(d->trust.why));
	return 0;
}
