/*
 * tests/unit/test_meta_crc.c - integrity/meta_crc.c on a real XFS v5 image: mkfs.xfs (with
 * rmapbt and reflink, and a prototype file that makes a 60-entry directory (one block), a
 * 400-entry one (leaf form) and a long symlink) writes a 320 MiB sparse file; the superblock,
 * AGF, AGI and AGFL at their sectors and the btree roots the AG headers name must check good,
 * and so must every structure found scanning the image sector by sector (every kind mkfs
 * makes must be found), each turning bad when one of its bytes is flipped. mkfs.xfs 6.1
 * writes a long symlink's block without its XSLM header, and makes no node-form directory or
 * remote attribute: those kinds are checked on blocks built here, their CRC by a bitwise
 * crc32c written from xfs_cksum.h, not ISA-L's. Then cmp_row_crc: of two differing mirror
 * copies of the AG headers, the one whose CRC is good decides. Skipped without mkfs.xfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "compare.h"

#define IMG_SIZE (320ull << 20)

static char dir[64];
static uint8_t *img;

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int setup(void **s)
{
	char cmd[1024];
	int fd;

	(void)s;
	if (system("command -v mkfs.xfs >/dev/null 2>&1") != 0)
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/mediascan-xfscrc-XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cd %s && { echo /dev/null; echo '0 0'; echo 'd--755 0 0';"
		 " echo 'small d--755 0 0'; for i in $(seq 1 60); do echo \"block_form_entry_$i ---644 0 0 "
		 "/dev/null\"; done; echo '$'; echo 'big d--755 0 0'; for i in $(seq 1 400); do "
		 "echo \"file_with_a_longish_name_$i ---644 0 0 /dev/null\"; done; echo '$';"
		 " echo \"lnk l--777 0 0 $(head -c 1000 /dev/zero | tr '\\0' x)\"; echo '$'; }"
		 " > proto && truncate -s %llu img && mkfs.xfs -q -f -m rmapbt=1,reflink=1"
		 " -p proto img >/dev/null 2>&1", dir, IMG_SIZE);
	if (system(cmd) != 0)
		return 0;
	snprintf(cmd, sizeof(cmd), "%s/img", dir);
	fd = open(cmd, O_RDONLY);
	assert_true(fd >= 0);
	img = mmap(NULL, IMG_SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	assert_true(img != MAP_FAILED);
	return 0;
}

static int teardown(void **s)
{
	char cmd[128];

	(void)s;
	if (img)
		munmap(img, IMG_SIZE);
	if (!dir[0])
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* the structure at byte off checks good, and bad with byte 40 flipped */
static void good_then_bad(uint64_t off, size_t len)
{
	static uint8_t copy[65536];

	if (len > sizeof(copy))
		len = sizeof(copy);
	if (cmp_meta_crc(img + off, len) != 1)
		fail_msg("structure %08x at %llu: CRC not good", be32(img + off),
			 (unsigned long long)off);
	memcpy(copy, img + off, len);
	copy[40] ^= 0x01;
	if (cmp_meta_crc(copy, len) != 0)
		fail_msg("structure %08x at %llu: a flipped byte not seen", be32(img + off),
			 (unsigned long long)off);
}

static void test_known_places(void **s)
{
	uint32_t bs;

	(void)s;
	if (!img)
		skip();
	bs = be32(img + 4);
	assert_int_equal(bs, 4096);
	/* superblock, AGF, AGI, AGFL: sectors 0 to 3 of the AG */
	assert_memory_equal(img, "XFSB", 4);
	assert_memory_equal(img + 512, "XAGF", 4);
	assert_memory_equal(img + 1024, "XAGI", 4);
	assert_memory_equal(img + 1536, "XAFL", 4);
	for (int i = 0; i < 4; i++)
		good_then_bad((uint64_t)i * 512, 512);
	/* the btree roots: AGF bno, cnt, rmap (16, 20, 24), refcount (88); AGI ino (20),
	 * fino (328) */
	static const struct {
		unsigned hdr, at;
		const char *magic;
	} roots[] = {
		{ 512, 16, "AB3B" }, { 512, 20, "AB3C" }, { 512, 24, "RMB3" },
		{ 512, 88, "R3FC" }, { 1024, 20, "IAB3" }, { 1024, 328, "FIB3" },
	};
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		uint64_t at = (uint64_t)be32(img + roots[i].hdr + roots[i].at) * bs;

		assert_memory_equal(img + at, roots[i].magic, 4);
		good_then_bad(at, bs);
	}
	/* a structure cut short of its buffer cannot be judged; zeros are nothing */
	assert_int_equal(cmp_meta_crc(img + 512, 100), -1);
	assert_int_equal(cmp_meta_crc(img + IMG_SIZE - 4096, 4096), -1);
}

/* the kind a structure is counted under: its magic, or the da3 magic at 8, or "IN" */
static void kind_of(const uint8_t *b, char *out)
{
	uint16_t da = (uint16_t)(b[8] << 8 | b[9]);

	if (b[0] == 'I' && b[1] == 'N')
		snprintf(out, 8, "IN");
	else if (da == 0x3ebe || da == 0x3df1 || da == 0x3dff || da == 0x3bee)
		snprintf(out, 8, "%04x", da);
	else
		snprintf(out, 8, "%.4s", (const char *)b);
}

static void test_scan_image(void **s)
{
	static const char *const want[] = {
		"XFSB", "XAGF", "XAGI", "XAFL", "AB3B", "AB3C", "IAB3", "FIB3", "RMB3", "R3FC",
		"IN", "XDB3", "XDD3", "3df1",
	};
	char seen[64][8], k[8];
	unsigned nseen = 0;

	(void)s;
	if (!img)
		skip();
	for (uint64_t off = 0; off < IMG_SIZE; off += 512) {
		size_t len = IMG_SIZE - off < 65536 ? (size_t)(IMG_SIZE - off) : 65536;
		unsigned i;

		if (cmp_meta_crc(img + off, len) < 0)
			continue;
		good_then_bad(off, len);
		kind_of(img + off, k);
		for (i = 0; i < nseen && strcmp(seen[i], k); i++)
			;
		if (i == nseen && nseen < 64)
			snprintf(seen[nseen++], 8, "%s", k);
	}
	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		unsigned i;

		for (i = 0; i < nseen && strcmp(seen[i], want[w]); i++)
			;
		if (i == nseen)
			fail_msg("no %s found in the image", want[w]);
	}
}

/* crc32c, bit by bit (reflected 0x82f63b78), no inversion: the kernel's crc32c() */
static uint32_t crc32c_ref(uint32_t crc, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78 : crc >> 1;
	}
	return crc;
}

/* xfs_update_cksum(): CRC field zeroed, crc32c from ~0, stored inverted little endian */
static void xfs_cksum(uint8_t *b, size_t n, size_t off)
{
	uint32_t crc;

	memset(b + off, 0, 4);
	crc = ~crc32c_ref(~0u, b, n);
	for (int i = 0; i < 4; i++)
		b[off + i] = (uint8_t)(crc >> (8 * i));
}

static void test_built_blocks(void **s)
{
	static const struct {
		const char *magic;
		unsigned at, crc_off;
	} kinds[] = {
		{ "XSLM", 0, 12 }, { "XARM", 0, 12 }, { "XDF3", 0, 4 },
		{ "\x3e\xbe", 8, 12 }, { "\x3d\xff", 8, 12 }, { "\x3b\xee", 8, 12 },
	};
	static uint8_t b[4096];

	(void)s;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		srand((unsigned)i);
		for (size_t j = 0; j < sizeof(b); j++)
			b[j] = (uint8_t)rand();
		memcpy(b + kinds[i].at, kinds[i].magic, strlen(kinds[i].magic));
		xfs_cksum(b, sizeof(b), kinds[i].crc_off);
		assert_int_equal(cmp_meta_crc(b, sizeof(b)), 1);
		b[2000] ^= 0x08;
		assert_int_equal(cmp_meta_crc(b, sizeof(b)), 0);
	}
}

static void test_row_crc(void **s)
{
	struct cmp_row_desc row = { .kind = CMP_MIRROR, .nr_legs = 2 };
	static uint8_t a[4096], b[4096];
	const void *bufs[2] = { a, b };
	struct cmp_run out[4];

	(void)s;
	if (!img)
		skip();
	memcpy(a, img, sizeof(a));
	memcpy(b, img, sizeof(b));
	b[512 + 60] ^= 0x04;			/* copy 1's AGF */
	a[1024 + 200] ^= 0x20;			/* copy 0's AGI */
	assert_int_equal(cmp_row(&row, bufs, sizeof(a), 512, out, 4), 1);
	assert_int_equal(out[0].length, 1024);
	assert_int_equal(out[0].wrong, -1);
	assert_int_equal(out[0].how, CMP_WHO_UNKNOWN);
	assert_int_equal(cmp_row_crc(&row, bufs, sizeof(a), 512, out, 4), 2);
	assert_int_equal(out[0].offset, 512);
	assert_int_equal(out[0].wrong, 1);
	assert_int_equal(out[0].how, CMP_WHO_CRC);
	assert_int_equal(out[1].offset, 1024);
	assert_int_equal(out[1].wrong, 0);
	assert_int_equal(out[1].how, CMP_WHO_CRC);
	/* both copies of the AGF bad: nothing decides */
	a[512 + 61] ^= 0x04;
	assert_int_equal(cmp_row_crc(&row, bufs, sizeof(a), 512, out, 4), 2);
	assert_int_equal(out[0].wrong, -1);
	assert_int_equal(out[0].how, CMP_WHO_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_places),
		cmocka_unit_test(test_scan_image),
		cmocka_unit_test(test_built_blocks),
		cmocka_unit_test(test_row_crc),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
