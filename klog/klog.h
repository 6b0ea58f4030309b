/*
 * klog/klog.h - kernel log lines that name a failed device range, parsed into the device
 * and the unit the kernel counts in (no device lookups here: pure parsing, unit-tested).
 */
#ifndef MEDIASCAN_KLOG_H
#define MEDIASCAN_KLOG_H

#include <stdint.h>

enum map_klog_unit {
	MAP_KLOG_SECTOR,		/* 512-byte sector of the named (whole) disk */
	MAP_KLOG_BLOCK,			/* logical block of the named block device's page cache */
	MAP_KLOG_DADDR,			/* XFS daddr: 512-byte unit on the filesystem's device */
	MAP_KLOG_LBA,			/* logical block of the named whole disk (a command's) */
};

enum map_klog_form {
	MAP_KLOG_UNKNOWN,		/* no log form known: not counted as a log line */
	MAP_KLOG_KERNEL,		/* the kernel's line (its prefix, or its own wording) */
	MAP_KLOG_OTHER,			/* another program's line (journal, syslog, kmsg) */
};

struct map_klog_rec {
	char dev[64];			/* kernel name: sdb, nvme0n1, sdb1, loop3 */
	enum map_klog_unit unit;
	uint64_t value;			/* sector, block or daddr */
	uint64_t count;			/* units in the failed range (XFS len), 1 if not said */
	const char *format;		/* static: "block-layer", "buffer-io", "xfs-metadata" */
	int not_kernel;			/* map_klog_parse returned 0: the text names a range,
					 * but nothing marks the line as the kernel's */
	int form;			/* enum map_klog_form (map_klog_parse) */
	int64_t usec;			/* the kernel's time of the line, us since boot
					 * (kmsg, dmesg seconds, journal JSON); -1 unknown */
};

/**
 * map_klog_parse_msg() - parse a kernel message without prefix that may report a failed range.
 * @msg: the message, as /dev/kmsg gives it after "PRI,SEQ,USEC,FLAGS;"
 * @rec: filled with the range
 *
 * The message must start with the kernel's wording: "critical medium error, dev sdb, sector 123456
 * op 0x0:(READ) ..." (any "... error, dev"); "blk_update_request: I/O error, dev sda, sector 2048";
 * "Buffer I/O error on dev sdb1, logical block 12, async page read"; "XFS (sdb1): metadata I/O
 * error in "xfs_trans_read_buf_map" at daddr 0x10 len 8 error 5".
 *
 * Return: 1 when msg reports a failed range, 0 when it does not, -EINVAL when it looks like one but
 * is malformed.
 */
int map_klog_parse_msg(const char *msg, struct map_klog_rec *rec);
/**
 * map_klog_parse() - map_klog_parse_msg() for one line of a log file, which counts only when it is
 * the kernel's.
 * @line: the line
 * @rec: filled with the range; rec->form says whose line it is (every return), rec->usec its kernel
 *       time where said
 *
 * The kernel's: a /dev/kmsg record of facility kernel ("6,123,456,-;"), a syslog priority of
 * facility kernel ("<3>", dmesg -r), dmesg -x "kern  :err   : ", a dmesg stamp ("[  12.3]", ctime,
 * reltime, delta, --time-format iso), a journal/syslog line whose identifier is "kernel"
 * (journalctl short, -precise, -iso, -full, -unix, -monotonic; rsyslog files), a journal JSON
 * record of _TRANSPORT "kernel" (journalctl -o json), or no prefix and the kernel's own wording
 * from the start (dmesg --notime: "I/O error, dev sda, sector 8"). journalctl's text cannot tell
 * `logger -t kernel` from the kernel: give `journalctl -k -o json` or /dev/kmsg.
 *
 * Return: 1 when the kernel's line reports a failed range, 0 when it does not (rec->not_kernel set
 * for a line that names a range in text some program logged), -EINVAL when malformed.
 */
int map_klog_parse(const char *line, struct map_klog_rec *rec);
/**
 * map_klog_md_parse() - parse md RAID's own lines naming a member or array range (klog_md.c).
 * @msg: the message, e.g. "md/raid1:md0: read error corrected (8 sectors at N on sdb1)"
 * @rec: filled with the range
 *
 * Return: 1 for such a line, 0 for other lines, -EINVAL for a malformed md line.
 */
int map_klog_md_parse(const char *msg, struct map_klog_rec *rec);
/**
 * map_klog_parse_cmd() - parse a driver's line naming the failed command's blocks (klog_cmd.c).
 * @msg: the message without prefix
 * @rec: filled with the range: unit MAP_KLOG_LBA, count the command's blocks (1 when the line
 *       names the failing block itself)
 *
 * sd: "sd 2:0:0:0: [sdb] tag#3 CDB: Read(10) 28 00 00 01 40 00 00 04 00 00" (the command's
 * LBA and length, the bad block somewhere inside), "[sdb] ... Info fld=0x14a3" (the failing
 * LBA, older kernels); libata: "ata1.00: cmd 25/00:08:a1:40:00/00:00:00:00:00/e0 tag 0 dma
 * 4096 in" (the command's taskfile; rec->dev is "ata1.00") and its result "res
 * 51/40:00:a9:40:00/00:00:00:00:00/e0 Emask 0x9 (media error)" (with UNC in the error
 * register the LBA registers hold the failing block); on its own line (dmesg prints the
 * record's second line so) the result has no device: rec->dev is "". NVMe: "nvme0n1: I/O
 * Cmd(0x2) @ LBA 16384, 8 blocks, ..." or "nvme0n1: Read(0x2) @ LBA 16384, 8 blocks, ...".
 * Reads and verifies only: a failed write names no data lost on the medium.
 *
 * Return: 1 for such a line, 0 for other lines, -EINVAL for a malformed one.
 */
int map_klog_parse_cmd(const char *msg, struct map_klog_rec *rec);

/* The state of a log read line by line: the device of the last libata command line. */
struct map_klog_ctx {
	char ata_dev[64];
	int64_t ata_usec;
};

/**
 * map_klog_parse_ctx() - map_klog_parse() for the lines of one log in order: a libata result
 * line without a device takes the device of the command line just before it.
 * @ctx: zeroed before the first line
 * @line: the line
 * @rec: as map_klog_parse()
 *
 * Return: as map_klog_parse(); a result line whose device is not known is -EINVAL.
 */
int map_klog_parse_ctx(struct map_klog_ctx *ctx, const char *line, struct map_klog_rec *rec);

/**
 * map_klog_unit_name() - the name of the unit a record's value counts in.
 * @format: the record's format
 *
 * Return: "sector", "block", "daddr" or "lba".
 */
const char *map_klog_unit_name(const char *format);

/**
 * map_klog_range() - the byte range on a device that a record names.
 * @rec: the record
 * @lbs: the device's logical block size
 * @block_bytes: bytes per "logical block" of a buffer I/O error
 * @dev_bytes: the device's size, bytes
 * @off: set to the first byte
 * @len: set to the length, bytes
 * @why: set to a static reason when the range is refused
 *
 * Return: 0, or -ERANGE with why when its bytes overflow 64 bits, it starts past the end, or it
 * runs past the end of the device (no kernel logs that: such a line would name every file up to the
 * end).
 */
int map_klog_range(const struct map_klog_rec *rec, uint32_t lbs, uint64_t block_bytes,
		   uint64_t dev_bytes, uint64_t *off, uint64_t *len, const char **why);

#endif
