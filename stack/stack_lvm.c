/*
 * stack/stack_lvm.c - an LVM physical volume's own areas, from its label (lvm2's
 * lib/label/label.h and lib/format_text/layout.h): the label header ("LABELONE", in one of
 * the first four sectors) points at the pv_header, which lists the data area (its offset is
 * pe_start, where the first extent begins) and the metadata areas (the text metadata's ring
 * buffers: one after the label, optionally one at the end of the PV). What a member-disk scan
 * must read of LVM is exactly these, not everything before an LV's first extent (another LV's
 * extents, or free ones, may lie there).
 *
 * Decoded here by hand: libblkid names an LVM2 member but not its areas, and lvm2 has no
 * library for it any more (liblvm2app is gone; lvm's own code needs its whole toolcontext).
 * The label is read on a bottom device (a disk or partition), never through md or dm: a read
 * through md would have md rewrite a bad sector from the good copy.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kio.h"
#include "stack.h"

#define LABEL_SCAN_SECTORS 4
#define SECTOR 512
#define LABEL_HEADER_LEN 32		/* id[8] sector u64 crc u32 offset u32 type[8] */
#define PV_UUID_LEN 32

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

int map_lvm_label_parse(const unsigned char *buf, size_t len, uint64_t *pe_start,
			struct map_lvm_area *mda, unsigned max)
{
	for (unsigned s = 0; s < LABEL_SCAN_SECTORS && (s + 1) * SECTOR <= len; s++) {
		const unsigned char *sec = buf + s * SECTOR, *p, *end = sec + SECTOR;
		uint32_t off;
		unsigned n = 0;
		int list = 0;			/* 0: data areas, 1: metadata areas */

		if (memcmp(sec, "LABELONE", 8) || get64(sec + 8) != s ||
		    memcmp(sec + 24, "LVM2 001", 8))
			continue;
		off = get32(sec + 20);
		if (off < LABEL_HEADER_LEN || off + PV_UUID_LEN + 8 + 16 > SECTOR)
			return -EINVAL;
		p = sec + off + PV_UUID_LEN + 8;	/* pv_uuid, device_size, then the lists */
		*pe_start = UINT64_MAX;
		for (; p + 16 <= end; p += 16) {
			uint64_t o = get64(p), sz = get64(p + 8);

			if (!o) {		/* a list ends with a zero entry */
				if (++list == 2)
					break;
				continue;
			}
			if (list == 0) {
				if (*pe_start == UINT64_MAX)
					*pe_start = o;
			} else if (n < max) {
				mda[n].offset = o;
				mda[n].length = sz;
				n++;
			}
		}
		if (list < 2 || *pe_start == UINT64_MAX)
			return -EINVAL;		/* a list runs past the sector */
		return (int)n;
	}
	return -ENOENT;
}

int map_lvm_pv_areas(const char *sysfs, const char *name, struct map_lvm_area *out,
		     unsigned max)
{
	struct map_stack_leaf lv[3 * MAP_MD_MAX_DISKS];
	struct map_lvm_area mda[4];
	unsigned char *buf;
	const char *bad = NULL;
	uint64_t done, pe_start = 0;
	int k, ret = -ENOENT;

	if (!max)
		return -E2BIG;
	if (sysfs)
		return -ENOENT;		/* a fake sysfs (tests) has no devices to read in /dev */
	buf = malloc(LABEL_SCAN_SECTORS * SECTOR);
	if (!buf)
		return -ENOMEM;
	k = map_stack_down(sysfs, name, 0, LABEL_SCAN_SECTORS * SECTOR, lv,
			   sizeof(lv) / sizeof(lv[0]), &done, &bad);
	if (k < 0 || done < LABEL_SCAN_SECTORS * SECTOR)
		k = 0;				/* not one piece below: no label read */
	/* the first copy that reads: its data, or a mirror's */
	for (int i = 0; i < k && ret == -ENOENT; i++) {
		char path[MAP_STACK_NAME + 8];
		int fd;

		if (lv[i].role != MAP_MD_DATA && lv[i].role != MAP_MD_MIRROR)
			continue;
		snprintf(path, sizeof(path), "/dev/%.63s", lv[i].name);
		fd = kio_open_ro(path);
		if (fd < 0)
			continue;
		if (kio_pread(fd, buf, LABEL_SCAN_SECTORS * SECTOR, lv[i].offset) ==
		    LABEL_SCAN_SECTORS * SECTOR)
			ret = map_lvm_label_parse(buf, LABEL_SCAN_SECTORS * SECTOR, &pe_start, mda,
						  4);
		kio_close(fd);
	}
	free(buf);
	if (ret < 0)
		return ret;
	/* the label and the first metadata area lie before pe_start: all of it */
	out[0].offset = 0;
	out[0].length = pe_start;
	k = 1;
	for (int i = 0; i < ret && (unsigned)k < max; i++)
		if (mda[i].offset >= pe_start)	/* a copy after the extents */
			out[k++] = mda[i];
	return k;
}
