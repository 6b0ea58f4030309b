/*
 * klog/klog_md.c - md RAID's own kernel log lines that name a failed range (pure parsing):
 *   "md/raid1:md0: read error corrected (8 sectors at 2056 on sdb1)"
 *   "md/raid10:md0: read error corrected (8 sectors at 2056 on sdb1)"
 *   "md/raid:md0: read error corrected (8 sectors at 2056 on sdc)"
 *   "md/raid:md0: read error not correctable (sector 2056 on sdc)."
 *   "md/raid:md0: read error NOT corrected!! (sector 2056 on sdc)."
 *   "md/raid10:md0: unable to read back corrected sectors (8 sectors at 2056 on sdb1)"
 *   "md/raid1:md0: sdb1: unrecoverable I/O read error for block 4096"   (a sector of md0)
 *   "md/raid10:md0: sdb1: unrecoverable I/O read error for block 4096"
 * The member sectors include the member's data offset (md prints rdev sector + data_offset),
 * so they are sectors of the named member device. md's read-error "corrected" lines mean md
 * rewrote the sector from another copy: the range is still worth mapping (the disk is
 * failing there).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "klog.h"

#define MD_STRIPE_SECTORS 8		/* raid5's STRIPE_SECTORS: the unit of its messages */

static int name_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s == '/' || *s == ' ')
			return 0;
	return 1;
}

/* Return 1 and fill rec for an md line, 0 for another, -EINVAL for a malformed md line. */
int map_klog_md_parse(const char *msg, struct map_klog_rec *rec)
{
	char pers[16], md[64], dev[64], tail[32];
	uint64_t n, s;
	int used = 0;

	if (strncmp(msg, "md/raid", 7))
		return 0;
	if (sscanf(msg, "md/%15[a-z0-9]:%63[^:]: %n", pers, md, &used) != 2 || !used)
		return 0;
	msg += used;
	memset(rec, 0, sizeof(*rec));
	if (sscanf(msg, "read error corrected (%" SCNu64 " sectors at %" SCNu64 " on %63[^)])",
		   &n, &s, dev) == 3 ||
	    sscanf(msg, "unable to read back corrected sectors (%" SCNu64 " sectors at %" SCNu64
		   " on %63[^)])", &n, &s, dev) == 3) {
		rec->count = n ? n : 1;
	} else if (sscanf(msg, "read error not correctable (sector %" SCNu64 " on %63[^)])", &s,
			  dev) == 2 ||
		   sscanf(msg, "read error NOT corrected!! (sector %" SCNu64 " on %63[^)])", &s,
			  dev) == 2) {
		rec->count = MD_STRIPE_SECTORS;
	} else if (sscanf(msg, "%63[^:]: unrecoverable I/O read error for block %" SCNu64 "%31s",
			  dev, &s, tail) >= 2) {
		snprintf(dev, sizeof(dev), "%s", md);	/* the block is the array's sector */
		rec->count = 1;
	} else if (strstr(msg, "read error") || strstr(msg, "unrecoverable")) {
		return -EINVAL;
	} else {
		return 0;
	}
	if (!name_ok(dev) || !name_ok(md))
		return -EINVAL;
	snprintf(rec->dev, sizeof(rec->dev), "%s", dev);
	rec->unit = MAP_KLOG_SECTOR;
	rec->value = s;
	rec->format = "md";
	return 1;
}
