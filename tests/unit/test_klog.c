/*
 * tests/unit/test_klog.c - mapping/klog.c: kernel log lines that name a failed range, in
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

	assert_int_equal(map_klog_parse(line, &r), 1);
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

	assert_int_equal(map_klog_parse(line, &r), -EINVAL);
}

static void test_unusable(void **state)
{
	(void)state;
	not_an_error("");
	not_an_error("EXT4-fs (sdb1): mounted filesystem with ordered data mode");
	not_an_error("sd 2:0:0:0: [sdb] tag#3 Sense Key : Medium Error [current]");
	not_an_error("XFS (sdb1): Mounting V5 Filesystem");
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
		cmocka_unit_test(test_buffer_io),
		cmocka_unit_test(test_xfs),
		cmocka_unit_test(test_unusable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
