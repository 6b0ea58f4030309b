/*
 * mapping/klog.h - kernel log lines that name a failed device range, parsed into the device
 * and the unit the kernel counts in (no device lookups here: pure parsing, unit-tested).
 */
#ifndef MEDIASCAN_KLOG_H
#define MEDIASCAN_KLOG_H

#include <stdint.h>

enum map_klog_unit {
	MAP_KLOG_SECTOR,		/* 512-byte sector of the named (whole) disk */
	MAP_KLOG_BLOCK,			/* logical block of the named block device's page cache */
	MAP_KLOG_DADDR,			/* XFS daddr: 512-byte unit on the filesystem's device */
};

struct map_klog_rec {
	char dev[64];			/* kernel name: sdb, nvme0n1, sdb1, loop3 */
	enum map_klog_unit unit;
	uint64_t value;			/* sector, block or daddr */
	uint64_t count;			/* units in the failed range (XFS len), 1 if not said */
	const char *format;		/* static: "block-layer", "buffer-io", "xfs-metadata" */
};

/*
 * Return 1 and fill rec when line (one kernel log line, with or without a /dev/kmsg,
 * dmesg or journal prefix) reports a failed range, 0 when it does not, -EINVAL when it looks
 * like one but is malformed. Recognised:
 *   "critical medium error, dev sdb, sector 123456 op 0x0:(READ) ..." (any "... error, dev")
 *   "blk_update_request: I/O error, dev sda, sector 2048"
 *   "Buffer I/O error on dev sdb1, logical block 12, async page read"
 *   "XFS (sdb1): metadata I/O error in "xfs_trans_read_buf_map" at daddr 0x10 len 8 error 5"
 */
int map_klog_parse(const char *line, struct map_klog_rec *rec);

#endif
