/*
 * tests/unit/test_meta_crc_ext4.c - integrity/meta_crc.c on real ext4 images: mkfs.ext4 writes
 * sparse files (no mount): 4 KiB blocks with metadata_csum (256 MiB: two groups, a backup
 * superblock at group 1's first block; 64-byte descriptors), the same without metadata_csum,
 * 1 KiB blocks with metadata_csum and without 64bit (32-byte descriptors; the primary
 * superblock and its group descriptors in the first 4 KiB), and
 * 4 KiB blocks with metadata_csum_seed whose UUID tune2fs then changes (the descriptors'
 * seed is s_checksum_seed, no longer the UUID's CRC). The superblock and the descriptors must
 * check good where mke2fs put them and bad with a byte flipped; without metadata_csum nothing
 * is recognised. Then cmp_row_crc: of two differing mirror copies of a superblock's block,
 * the one whose CRC is good decides. Skipped without mkfs.ext4.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "compare.h"

static char dir[64];
static int have;		/* the images were made */

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int setup(void **s)
{
	char cmd[1024];

	(void)s;
	if (system("command -v mkfs.ext4 >/dev/null 2>&1") != 0) {
		fprintf(stderr, "test_meta_crc_ext4: skipped: no mkfs.ext4 (e2fsprogs)\n");
		return 0;
	}
	snprintf(dir, sizeof(dir), "/tmp/mediascan-e4crc-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cd %s && { mkfs.ext4 -q -F -O metadata_csum -b 4096 csum 256M"
		 " && mkfs.ext4 -q -F -O ^metadata_csum -b 4096 plain 256M"
		 " && mkfs.ext4 -q -F -O metadata_csum,^64bit -b 1024 k1 32M"
		 " && mkfs.ext4 -q -F -O metadata_csum,metadata_csum_seed -b 4096 seed 256M"
		 " && tune2fs -U random seed; } >/dev/null 2>&1", dir);
	if (system(cmd) != 0)
		fail_msg("mkfs.ext4 or tune2fs failed: %s", cmd);
	have = 1;
	return 0;
}

static int teardown(void **s)
{
	char cmd[128];

	(void)s;
	if (!dir[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* len bytes of image name at byte off into buf */
static void rd(const char *name, uint64_t off, uint8_t *buf, size_t len)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, buf, len, (off_t)off), (ssize_t)len);
	close(fd);
}

/* the block of group 1's backup superblock, from the primary's geometry */
static uint64_t backup_off(const uint8_t *sb)
{
	uint64_t bs = 1024u << le32(sb + 0x18);

	return ((uint64_t)le32(sb + 0x20) + le32(sb + 0x14)) * bs;
}

static void test_superblocks(void **s)
{
	static uint8_t b[4096];
	uint64_t bk;

	(void)s;
	if (!have)
		skip();
	/* the primary's block: boot area, then the superblock at 1024 */
	rd("csum", 0, b, sizeof(b));
	assert_int_equal(b[1024 + 0x38], 0x53);
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 1);
	assert_int_equal(cmp_meta_crc_walk(b, sizeof(b)), 1);
	assert_int_equal(cmp_meta_crc(b, 2047), -1);		/* cut short */
	assert_int_equal(cmp_meta_crc(b + 1024, 1024), 1);	/* a buffer at byte 1024 */
	b[1024 + 0x40] ^= 0x01;					/* s_wtime */
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 0);
	assert_int_equal(cmp_meta_crc_walk(b, sizeof(b)), 0);
	b[1024 + 0x40] ^= 0x01;
	b[1024 + 0x3fd] ^= 0x80;				/* s_checksum itself */
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 0);
	b[1024 + 0x3fd] ^= 0x80;
	/* group 1's backup: a superblock at the start of its block, group number 1 */
	bk = backup_off(b + 1024);
	assert_int_equal(bk, 32768ull * 4096);
	rd("csum", bk, b, sizeof(b));
	assert_int_equal(b[0x38], 0x53);
	assert_int_equal(b[0x5a], 1);
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 1);
	assert_int_equal(cmp_meta_crc_walk(b, sizeof(b)), 1);
	b[0x200] ^= 0x10;
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 0);
	assert_int_equal(cmp_meta_crc_walk(b, sizeof(b)), 0);
	/* without metadata_csum there is no CRC to judge by */
	rd("plain", 0, b, sizeof(b));
	assert_int_equal(b[1024 + 0x38], 0x53);
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), -1);
	assert_int_equal(cmp_meta_crc_walk(b, sizeof(b)), -1);
	rd("plain", backup_off(b + 1024), b, sizeof(b));
	assert_int_equal(b[0x38], 0x53);
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), -1);
}

/* the group descriptors after a superblock in the same buffer: groups 0 and 1 (64 bytes) */
static void gdt_4k(const char *name)
{
	static uint8_t b[8192];

	rd(name, 0, b, sizeof(b));
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 1);
	b[4096 + 64 + 4] ^= 0x01;		/* group 1's inode bitmap block */
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 0);
	b[4096 + 64 + 4] ^= 0x01;
	b[4096 + 2 * 64 + 4] ^= 0x01;		/* past the last group: not a descriptor */
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 1);
	/* a descriptor block alone cannot be judged */
	assert_int_equal(cmp_meta_crc(b + 4096, 4096), -1);
	/* and group 1's backup table, after its superblock */
	rd(name, 32768ull * 4096, b, sizeof(b));
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 1);
	b[4096 + 0x1e] ^= 0x01;			/* group 0's bg_checksum */
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 0);
}

static void test_descriptors(void **s)
{
	static uint8_t b[4096];

	(void)s;
	if (!have)
		skip();
	gdt_4k("csum");
	gdt_4k("seed");
	/* 1 KiB blocks: superblock at 1024 (block 1), descriptors at 2048 (block 2), 32 bytes
	 * each (no 64bit), 4 groups of 8 MiB; all in one 4 KiB compare block */
	rd("k1", 0, b, sizeof(b));
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 1);
	assert_int_equal(cmp_meta_crc_walk(b, sizeof(b)), 1);
	b[2048 + 3 * 32 + 12] ^= 0x02;		/* group 3's free blocks count */
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 0);
	assert_int_equal(cmp_meta_crc_walk(b, sizeof(b)), 0);
	/* group 1's backup at block 8193: byte 1024 of a 4 KiB compare block */
	rd("k1", 8192ull * 1024, b, sizeof(b));
	assert_int_equal(b[1024 + 0x5a], 1);
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 1);
	b[2048 + 2 * 32 + 4] ^= 0x40;
	assert_int_equal(cmp_meta_crc(b, sizeof(b)), 0);
}

/* two copies of a superblock's block differ: the one with the good CRC decides */
static void test_row_crc(void **s)
{
	struct cmp_row_desc row = { .kind = CMP_MIRROR, .nr_legs = 2 };
	static uint8_t a[8192], b[8192];
	const void *bufs[2] = { a, b };
	struct cmp_run out[4];

	(void)s;
	if (!have)
		skip();
	rd("csum", 0, a, sizeof(a));
	memcpy(b, a, sizeof(b));
	b[1024 + 0x2c] ^= 0x04;			/* copy 1's primary superblock (s_mtime) */
	assert_int_equal(cmp_row(&row, bufs, sizeof(a), 4096, out, 4), 1);
	assert_int_equal(out[0].wrong, -1);
	assert_int_equal(out[0].how, CMP_WHO_UNKNOWN);
	assert_int_equal(cmp_row_crc(&row, bufs, sizeof(a), 4096, out, 4), 1);
	assert_int_equal(out[0].offset, 0);
	assert_int_equal(out[0].length, 4096);
	assert_int_equal(out[0].wrong, 1);
	assert_int_equal(out[0].how, CMP_WHO_CRC);
	/* a backup's block, copy 0 wrong */
	rd("csum", 32768ull * 4096, a, sizeof(a));
	memcpy(b, a, sizeof(b));
	a[0x100] ^= 0x01;
	assert_int_equal(cmp_row_crc(&row, bufs, sizeof(a), 4096, out, 4), 1);
	assert_int_equal(out[0].wrong, 0);
	assert_int_equal(out[0].how, CMP_WHO_CRC);
	/* both copies' superblocks bad: nothing decides */
	b[0x101] ^= 0x01;
	assert_int_equal(cmp_row_crc(&row, bufs, sizeof(a), 4096, out, 4), 1);
	assert_int_equal(out[0].wrong, -1);
	assert_int_equal(out[0].how, CMP_WHO_UNKNOWN);
	/* without metadata_csum: unknown */
	rd("plain", 0, a, sizeof(a));
	memcpy(b, a, sizeof(b));
	b[1024 + 0x2c] ^= 0x04;
	assert_int_equal(cmp_row_crc(&row, bufs, sizeof(a), 4096, out, 4), 1);
	assert_int_equal(out[0].wrong, -1);
	assert_int_equal(out[0].how, CMP_WHO_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_superblocks),
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_row_crc),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
