/*
 * tests/unit/test_klog.c - klog/klog.c: kernel log lines that name a failed range, in
 * every prefix style (/dev/kmsg, dmesg, journal), old and new kernel wordings, and lines that
 * look like errors but cannot be used (malformed numbers, empty names, garbage).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "klog.h"

static void parses(const char *line, const char *dev, enum map_klog_unit unit, uint64_t value,
		   uint64_t count, const char *format)
{
	struct map_klog_rec r;

	/* a line with a kernel prefix, or a bare kernel message (as /dev/kmsg has it) */
	if (map_klog_parse(line, &r) != 1)
		assert_int_equal(map_klog_parse_msg(line, &r), 1);
	assert_string_equal(r.dev, dev);
	assert_int_equal(r.unit, unit);
	assert_int_equal(r.value, value);
	assert_int_equal(r.count, count);
	assert_string_equal(r.format, format);
}

static void test_block_layer(void **state)
{
	(void)state;
	parses("critical medium error, dev sdb, sector 123456 op 0x0:(READ) flags 0x0 "
	       "phys_seg 1 prio class 0", "sdb", MAP_KLOG_SECTOR, 123456, 1, "block-layer");
	parses("[ 1234.567890] I/O error, dev nvme0n1, sector 9876543210 op 0x0:(READ) flags "
	       "0x80700 phys_seg 1 prio class 2", "nvme0n1", MAP_KLOG_SECTOR, 9876543210ull, 1,
	       "block-layer");
	parses("6,1862,88316375,-;I/O error, dev loop3, sector 2048 op 0x0:(READ)", "loop3",
	       MAP_KLOG_SECTOR, 2048, 1, "block-layer");
	parses("Dec 03 10:00:00 host kernel: blk_update_request: I/O error, dev sda, sector 8",
	       "sda", MAP_KLOG_SECTOR, 8, 1, "block-layer");
	parses("print_req_error: critical medium error, dev sdc, sector 77", "sdc",
	       MAP_KLOG_SECTOR, 77, 1, "block-layer");
	parses("critical target error, dev dm-3, sector 5 op 0x1:(WRITE)", "dm-3",
	       MAP_KLOG_SECTOR, 5, 1, "block-layer");
	parses("I/O error, dev cciss!c0d0, sector 100", "cciss!c0d0", MAP_KLOG_SECTOR, 100, 1,
	       "block-layer");
}

/*
 * Drivers' lines of the failed command, as the VM's kernel 6.1 printed them over QEMU's disks
 * (tests/vm/disks): sd's CDB after an ABORTED COMMAND, libata's taskfiles after ABRT, and a
 * real drive's UNC result, whose LBA registers hold the failing block.
 */
static void test_driver_cmd_lines(void **state)
{
	struct map_klog_ctx ctx;
	struct map_klog_rec r;

	(void)state;
	parses("[   10.071369] sd 0:0:0:0: [sda] tag#242 CDB: Read(10) 28 00 00 00 40 00 00 07 "
	       "f0 00", "sda", MAP_KLOG_LBA, 0x4000, 0x7f0, "scsi-cdb");
	parses("sd 2:0:0:0: [sdb] CDB: Read(16) 88 00 00 00 00 01 00 00 00 10 00 00 00 08 00 00",
	       "sdb", MAP_KLOG_LBA, 0x100000010ull, 8, "scsi-cdb");
	parses("sd 2:0:0:0: [sdb] CDB: Read(6) 08 01 02 03 00 00", "sdb", MAP_KLOG_LBA, 0x10203,
	       256, "scsi-cdb");
	parses("sd 3:0:0:0: [sdc]  Info fld=0x14a3", "sdc", MAP_KLOG_LBA, 0x14a3, 1, "scsi-info");
	parses("[   12.590555] ata1.00: cmd 25/00:00:a1:40:00/00:04:00:00:00/e0 tag 0 dma 524288 in",
	       "ata1.00", MAP_KLOG_LBA, 0x40a1, 0x400, "libata-cmd");
	parses("ata3.00: cmd 60/08:00:a0:40:00/00:00:00:00:00/40 tag 5 ncq dma 4096 in", "ata3.00",
	       MAP_KLOG_LBA, 0x40a0, 8, "libata-cmd");
	parses("ata2.01: cmd c8/00:10:00:00:10/00:00:00:00:00/e3 tag 0 dma 8192 in", "ata2.01",
	       MAP_KLOG_LBA, 0x3100000, 16, "libata-cmd");
	/* /dev/kmsg keeps the result in the record: UNC names the block */
	parses("3,412,12590555,-;ata1.00: cmd 25/00:08:a0:40:00/00:00:00:00:00/e0 tag 0 dma 4096 "
	       "in\\x0a         res 51/40:00:a9:40:00/00:00:00:00:00/e0 Emask 0x9 (media error)",
	       "ata1.00", MAP_KLOG_LBA, 0x40a9, 1, "libata-res");
	parses("nvme0n1: I/O Cmd(0x2) @ LBA 16544, 32 blocks, I/O Error (sct 0x2 / sc 0x81) ",
	       "nvme0n1", MAP_KLOG_LBA, 16544, 32, "nvme-cmd");
	parses("nvme1n1: Read(0x2) @ LBA 7, 1 blocks, Unrecovered Read Error (sct 0x2 / sc 0x81) "
	       "DNR", "nvme1n1", MAP_KLOG_LBA, 7, 1, "nvme-cmd");
	/* writes name no data lost on the medium; an ABRT result names no block */
	assert_int_equal(map_klog_parse_msg("sd 0:0:0:0: [sda] tag#1 CDB: Write(10) 2a 00 00 00 "
					    "40 00 00 00 08 00", &r), 0);
	assert_int_equal(map_klog_parse_msg("nvme0n1: I/O Cmd(0x1) @ LBA 200, 1 blocks, I/O "
					    "Error (sct 0x2 / sc 0x80)", &r), 0);
	assert_int_equal(map_klog_parse_msg("         res 41/04:00:a1:40:00/00:04:00:00:00/e0 "
					    "Emask 0x1 (device error)", &r), 0);
	assert_int_equal(map_klog_parse_msg("ata1.00: cmd 25/00:00:zz:40:00/00:04:00:00:00/e0",
					    &r), -EINVAL);
	/* dmesg prints the result on a line of its own: the command line's device */
	memset(&ctx, 0, sizeof(ctx));
	assert_int_equal(map_klog_parse_ctx(&ctx, "[   12.5] ata4.00: cmd 25/00:08:a0:40:00/"
					    "00:00:00:00:00/e0 tag 0 dma 4096 in", &r), 1);
	assert_int_equal(map_klog_parse_ctx(&ctx, "[   12.5]          res 51/40:00:a9:40:00/"
					    "00:00:00:00:00/e0 Emask 0x9 (media error)", &r), 1);
	assert_string_equal(r.dev, "ata4.00");
	assert_int_equal(r.value, 0x40a9);
	assert_string_equal(r.format, "libata-res");
	assert_string_equal(map_klog_unit_name(r.format), "lba");
	/* a result line with no command before it names no device */
	memset(&ctx, 0, sizeof(ctx));
	assert_int_equal(map_klog_parse_ctx(&ctx, "[   12.5]          res 51/40:00:a9:40:00/"
					    "00:00:00:00:00/e0 Emask 0x9 (media error)", &r), -EINVAL);
}

static void test_buffer_io(void **state)
{
	(void)state;
	parses("Buffer I/O error on dev sdb1, logical block 12, async page read", "sdb1",
	       MAP_KLOG_BLOCK, 12, 1, "buffer-io");
	parses("[   9.1] Buffer I/O error on device sda2, logical block 4294967296", "sda2",
	       MAP_KLOG_BLOCK, 4294967296ull, 1, "buffer-io");
	parses("Buffer I/O error on dev md127, logical block 0, lost async page write", "md127",
	       MAP_KLOG_BLOCK, 0, 1, "buffer-io");
}

static void test_xfs(void **state)
{
	(void)state;
	parses("XFS (sdb1): metadata I/O error in \"xfs_trans_read_buf_map+0x1c/0x30 [xfs]\" at "
	       "daddr 0x78 len 8 error 5", "sdb1", MAP_KLOG_DADDR, 0x78, 8, "xfs-metadata");
	parses("XFS (dm-0): metadata I/O error in \"xlog_recover\" at daddr 0x1000 len 32 error "
	       "61", "dm-0", MAP_KLOG_DADDR, 0x1000, 32, "xfs-metadata");
	parses("XFS (loop0): metadata I/O error in \"x\" at daddr 17 len 0 error 5", "loop0",
	       MAP_KLOG_DADDR, 17, 1, "xfs-metadata");
}

static void not_an_error(const char *line)
{
	struct map_klog_rec r;

	assert_int_equal(map_klog_parse(line, &r), 0);
}

static void malformed(const char *line)
{
	struct map_klog_rec r;

	assert_int_equal(map_klog_parse_msg(line, &r), -EINVAL);
}

/* A line that names a range in text some program logged: not the kernel's. */
static void not_kernel(const char *line)
{
	struct map_klog_rec r;

	assert_int_equal(map_klog_parse(line, &r), 0);
	assert_int_equal(r.not_kernel, 1);
}

static void test_not_kernel(void **state)
{
	(void)state;
	/* logger 'I/O error, dev sda, sector 2048' in journalctl -o short / syslog */
	not_kernel("Dec 03 10:00:01 host root[4242]: I/O error, dev sda, sector 2048");
	not_kernel("Dec  3 10:00:01 host logger: [  1.000000] I/O error, dev sda, sector 2048");
	not_kernel("2026-12-03T10:00:03.000000+00:00 host alice[77]: Buffer I/O error on dev sda1, "
		   "logical block 1");
	not_kernel("[  108.000004] host alice[77]: XFS (sda1): metadata I/O error in \"x\" at "
		   "daddr 0x18 len 8 error 5");
	/* a program writing to /dev/kmsg gets facility user: PRI 14 */
	not_kernel("14,2002,108000005,-;I/O error, dev sda, sector 6144 op 0x0:(READ)");
	/* text around the kernel's wording: somebody's line quoting it */
	not_kernel("hello: see I/O error, dev sda, sector 2048");
	not_kernel("hello I/O error, dev sda, sector 2048");
	/* syslog PRI of facility user, dmesg -x facility user */
	not_kernel("<14>[  1.000000] I/O error, dev sda, sector 2048");
	not_kernel("user  :err   : [  1.000000] I/O error, dev sda, sector 2048");
	/* a journal JSON record some program logged (its _TRANSPORT is not "kernel") */
	not_kernel("{\"_TRANSPORT\":\"syslog\",\"SYSLOG_IDENTIFIER\":\"kernel\",\"MESSAGE\":"
		   "\"I/O error, dev sda, sector 2048\"}");
	/* the kernel's own, in every prefix */
	parses("Dec 03 10:00:01 host kernel: I/O error, dev sda, sector 2048", "sda",
	       MAP_KLOG_SECTOR, 2048, 1, "block-layer");
	parses("Dec  3 10:00:01.123456 host kernel: [ 12.5] I/O error, dev sda, sector 2", "sda",
	       MAP_KLOG_SECTOR, 2, 1, "block-layer");
	parses("2026-12-03T10:00:03+0000 host kernel: Buffer I/O error on dev sda1, logical "
	       "block 1", "sda1", MAP_KLOG_BLOCK, 1, 1, "buffer-io");
	parses("[  12.345678] host kernel: I/O error, dev sda, sector 9", "sda", MAP_KLOG_SECTOR, 9,
	       1, "block-layer");
	parses("[Thu Dec  3 10:00:00 2026] I/O error, dev sda, sector 9", "sda", MAP_KLOG_SECTOR,
	       9, 1, "block-layer");
	parses("3,2002,108000005,c;critical medium error, dev sda, sector 6144", "sda",
	       MAP_KLOG_SECTOR, 6144, 1, "block-layer");
	parses("3,339,5140900,-,caller=T1;I/O error, dev sda, sector 6", "sda", MAP_KLOG_SECTOR, 6,
	       1, "block-layer");
}

/* parses_at LINE USEC: a kernel line naming sda sector 2048, logged at USEC (-1: unknown). */
static void parses_at(const char *line, int64_t usec)
{
	struct map_klog_rec r;

	print_message("%s\n", line);
	assert_int_equal(map_klog_parse(line, &r), 1);
	assert_string_equal(r.dev, "sda");
	assert_int_equal(r.value, 2048);
	assert_int_equal(r.form, MAP_KLOG_KERNEL);
	assert_int_equal(r.usec, usec);
}

/* known KIND: a line of that form, the kernel's but naming no range */
static void kernel_line(const char *line)
{
	struct map_klog_rec r;

	assert_int_equal(map_klog_parse(line, &r), 0);
	assert_int_equal(r.form, MAP_KLOG_KERNEL);
	assert_int_equal(r.not_kernel, 0);
}

/*
 * Every form dmesg, journalctl, syslog files and /dev/kmsg give: docs/usage.md's bare form,
 * dmesg -x, -r (<3>), --time-format iso/ctime/reltime/delta, journalctl -o short-full,
 * short-unix, json; a line of no form known is neither kernel's nor another program's.
 */
static void test_forms(void **state)
{
	struct map_klog_rec r;

	(void)state;
	parses_at("I/O error, dev sda, sector 2048 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 2",
		  -1);
	parses_at("blk_update_request: I/O error, dev sda, sector 2048", -1);
	parses_at("critical medium error, dev sda, sector 2048 op 0x0:(READ)", -1);
	parses_at("kern  :err   : [  101.000002] I/O error, dev sda, sector 2048 op 0x0:(READ)",
		  101000002);
	parses_at("kern  :err   : I/O error, dev sda, sector 2048", -1);
	parses_at("<3>[  101.000002] I/O error, dev sda, sector 2048 op 0x0:(READ)", 101000002);
	parses_at("<3>I/O error, dev sda, sector 2048", -1);
	parses_at("<3>Dec  3 10:00:00 host kernel: I/O error, dev sda, sector 2048", -1);
	parses_at("[  12.000001] I/O error, dev sda, sector 2048", 12000001);
	parses_at("3,2002,108000005,-;I/O error, dev sda, sector 2048", 108000005);
	parses_at("2026-12-04T03:04:50,000000+00:00 I/O error, dev sda, sector 2048", -1);
	parses_at("[<    0.000123>] I/O error, dev sda, sector 2048", -1);
	parses_at("[Dec 4 03:04] I/O error, dev sda, sector 2048", -1);
	parses_at("Fri 2026-12-04 05:22:07 UTC vm kernel: I/O error, dev sda, sector 2048 op 0x0",
		  -1);
	parses_at("1796361728.646702 vm kernel: I/O error, dev sda, sector 2048", -1);
	parses_at("Dec 04 05:22:07.123456 vm kernel: I/O error, dev sda, sector 2048", -1);
	parses_at("{\"_TRANSPORT\":\"kernel\",\"PRIORITY\":\"3\",\"_SOURCE_MONOTONIC_TIMESTAMP\":"
		  "\"5140900\",\"MESSAGE\":\"I/O error, dev sda, sector 2048 op 0x0:(READ)\"}",
		  5140900);
	/* journald stores a message that is not UTF-8 as an array of bytes */
	parses_at("{\"_TRANSPORT\":\"kernel\",\"MESSAGE\":[73,47,79,32,101,114,114,111,114,44,32,"
		  "100,101,118,32,115,100,97,44,32,115,101,99,116,111,114,32,50,48,52,56]}", -1);
	kernel_line("[    0.000000] Linux version 6.1.0");
	kernel_line("kern  :info  : [    0.000000] Command line: quiet");
	kernel_line("<6>[    0.000000] Command line: quiet");
	kernel_line("6,1,0,-;Linux version 6.1.0");
	kernel_line(" SUBSYSTEM=block");		/* /dev/kmsg's dictionary lines */
	kernel_line("Dec 04 05:22:07 vm kernel: loop1: detected capacity change from 0 to 2048");
	kernel_line("{\"_TRANSPORT\":\"kernel\",\"MESSAGE\":\"loop1: p1\"}");
	/* forms of no log known: neither kernel's nor quoted */
	assert_int_equal(map_klog_parse("random words", &r), 0);
	assert_int_equal(r.form, MAP_KLOG_UNKNOWN);
	assert_int_equal(map_klog_parse("{\"not\": json", &r), 0);
	assert_int_equal(r.form, MAP_KLOG_UNKNOWN);
	/* another program's line: understood, not the kernel's */
	assert_int_equal(map_klog_parse("Dec 04 05:22:08 vm systemd-journald[11758]: Received", &r),
			 0);
	assert_int_equal(r.form, MAP_KLOG_OTHER);
}

/* XFS "len" out of 64 bits used to leave UINT64_MAX in count (strtoull stored first). */
static void test_numbers_bounded(void **state)
{
	struct map_klog_rec r;

	(void)state;
	assert_int_equal(map_klog_parse_msg("XFS (sdb1): metadata I/O error in \"x\" at daddr 0x10 "
					    "len 99999999999999999999 error 5", &r), -EINVAL);
	assert_int_equal(map_klog_parse_msg("XFS (sdb1): metadata I/O error in \"x\" at daddr 0x10 "
					    "len 4294967296 error 5", &r), -EINVAL);
	assert_int_not_equal(r.count, UINT64_MAX);
}

static void range_ok(const char *msg, uint32_t lbs, uint64_t bs, uint64_t dev, uint64_t off,
		     uint64_t len)
{
	struct map_klog_rec r;
	uint64_t o = 0, l = 0;
	const char *why = NULL;

	assert_int_equal(map_klog_parse_msg(msg, &r), 1);
	assert_int_equal(map_klog_range(&r, lbs, bs, dev, &o, &l, &why), 0);
	assert_int_equal(o, off);
	assert_int_equal(l, len);
}

static void range_bad(const char *msg, uint32_t lbs, uint64_t bs, uint64_t dev, const char *want)
{
	struct map_klog_rec r;
	uint64_t o = 0, l = 0;
	const char *why = NULL;

	assert_int_equal(map_klog_parse_msg(msg, &r), 1);
	assert_int_equal(map_klog_range(&r, lbs, bs, dev, &o, &l, &why), -ERANGE);
	assert_non_null(why);
	assert_non_null(strstr(why, want));
}

static void test_range(void **state)
{
	(void)state;
	range_ok("I/O error, dev sda, sector 9", 4096, 0, 1 << 30, 4096, 4096);
	range_ok("Buffer I/O error on dev sda1, logical block 3", 512, 4096, 1 << 30, 12288, 4096);
	range_ok("XFS (sda1): metadata I/O error in \"x\" at daddr 0x10 len 8 error 5", 512, 0,
		 1 << 30, 8192, 4096);
	/* 2^55 sectors are 2^64 bytes: not offset 0 */
	range_bad("I/O error, dev sda, sector 36028797018963968", 512, 0, 1 << 30, "out of range");
	range_bad("Buffer I/O error on dev sda1, logical block 4503599627370496", 512, 4096,
		  1 << 30, "out of range");
	range_bad("XFS (sda1): metadata I/O error in \"x\" at daddr 0xffffffffffffffff len 8 "
		  "error 5", 512, 0, 1 << 30, "out of range");
	/* len 0x3fffffff (512 GiB): longer than any XFS buffer, and past a 1 GiB device */
	range_bad("XFS (sda1): metadata I/O error in \"x\" at daddr 0x8 len 0x3fffffff error 5",
		  512, 0, 1ull << 50, "longer than");
	range_bad("XFS (sda1): metadata I/O error in \"x\" at daddr 0x8 len 4194304 error 5",
		  512, 0, 1 << 30, "past the end");
	range_bad("I/O error, dev sda, sector 2097152", 512, 0, 1 << 30, "past the end");
}

static void test_unusable(void **state)
{
	(void)state;
	not_an_error("");
	not_an_error("EXT4-fs (sdb1): mounted filesystem with ordered data mode");
	not_an_error("sd 2:0:0:0: [sdb] tag#3 Sense Key : Medium Error [current]");
	not_an_error("XFS (sdb1): Mounting V5 Filesystem");
	/* what mkfs makes a loop device log: no data lost */
	not_an_error("3,349,7807581931,-;operation not supported error, dev loop0, sector 0 op "
		     "0x3:(DISCARD) flags 0x800 phys_seg 1 prio class 2");
	not_an_error("[ 1.0] operation not supported error, dev loop0, sector 524344 op "
		     "0x9:(WRITE_ZEROES) flags 0x20000800 phys_seg 0 prio class 2");
	not_an_error("[ 1.0] I/O error, dev sda, sector 8 op 0x3:(DISCARD) flags 0x0");
	not_an_error("\001\377\376 binary \x80");
	not_an_error(NULL);
	malformed("I/O error, dev sdb, sector op 0x0:(READ)");
	malformed("I/O error, dev sdb, sector -5");
	malformed("I/O error, dev sdb, sector 12x4");
	malformed("I/O error, dev sdb, sector 99999999999999999999999999");
	malformed("I/O error, dev , sector 4");
	malformed("I/O error, dev sd b, sector 4");
	malformed("I/O error, dev sdb sector 4");
	malformed("Buffer I/O error on dev , logical block 12");
	malformed("Buffer I/O error on devsdb, logical block 12");
	malformed("Buffer I/O error on dev sdb, logical block");
	malformed("XFS (sdb1): metadata I/O error in \"x\" at daddr 0xZZ len 8 error 5");
	malformed("XFS (): metadata I/O error in \"x\" at daddr 0x10 len 8 error 5");
	/* A name too long for a kernel device name. */
	malformed("I/O error, dev aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaa, sector 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_layer),
		cmocka_unit_test(test_driver_cmd_lines),
		cmocka_unit_test(test_buffer_io),
		cmocka_unit_test(test_xfs),
		cmocka_unit_test(test_unusable),
		cmocka_unit_test(test_not_kernel),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_numbers_bounded),
		cmocka_unit_test(test_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
