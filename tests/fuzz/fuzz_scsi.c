/*
 * tests/fuzz/fuzz_scsi.c - SCSI device bytes: sense data (fixed and descriptor formats,
 * through libsgutils2), the failing LBA out of an ATA PASS-THROUGH command's sense (libata's
 * fixed format and the ATA Status Return descriptor), and the Block Limits VPD page as the
 * probe decodes it (the sysfs copy; a USB-bridge disk so nothing is sent).
 */
#include "fuzz.h"
#include "kio_dev.h"
#include "verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kio_scsi_status st;
	struct kio_scsi_hints h;
	struct vfy_dev d;
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		abort();
	memcpy(copy, data, size);
	memset(&st, 0, sizeof(st));
	kio_scsi_parse_sense(copy, (unsigned)size, &st);
	{
		uint64_t bad = 0, lba = size >= 8 ? (uint64_t)data[size - 1] << 40 | data[size / 2] : 0;

		/* the block named lies in the command's range, whatever the bytes say */
		if (kio_scsi_ata_sense_lba(copy, (unsigned)size, lba, 65536, &bad) &&
		    (bad < lba || bad >= lba + 65536))
			abort();
	}
	free(copy);
	memset(&h, 0, sizeof(h));
	h.usb = 1;
	h.protection_type = size ? data[0] % 5 - 1 : -1;
	h.have_vpd_b0 = size >= 16;
	memcpy(h.vpd_b0, data, size < sizeof(h.vpd_b0) ? size : sizeof(h.vpd_b0));
	memset(&d, 0, sizeof(d));
	d.fd = -1;
	d.kind = VFY_DEV_SCSI;
	d.lbs = 512;
	vfy_probe_scsi(&d, &h);
	return 0;
}
