/*
 * tests/unit/test_parts.c - mapping/target/parts.c's partition table parser on images built in
 * memory and handed over by a reader: an MBR with an extended partition (logical partitions
 * numbered from 5, as libblkid and the kernel number them), a GPT (type and partition GUIDs
 * as text, UTF-16 names), its backup header when the primary is damaged, both damaged, and a
 * read error under the table (the caller then asks the kernel).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "parts.h"

#define DISK (64u << 20)
#define LBS 512u

static unsigned char *img;
static uint64_t bad_off = UINT64_MAX;	/* a read touching this byte fails */

static int img_read(void *arg, uint64_t off, void *buf, size_t len)
{
	(void)arg;
	if (off + len > DISK)
		return -EIO;
	if (bad_off >= off && bad_off < off + len)
		return -EIO;
	memcpy(buf, img + off, len);
	return 0;
}

/* The parser over the whole image in 512-byte blocks; type: 16 bytes. */
static int parse(struct map_part **p, unsigned *nr, char *type)
{
	return map_parts_parse(img_read, NULL, DISK, LBS, p, nr, type, 16);
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> 8 * i);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t crc32_ieee(const unsigned char *p, size_t len)
{
	uint32_t c = 0xffffffffu;

	while (len--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = c >> 1 ^ (0xedb88320u & -(c & 1));
	}
	return ~c;
}

static void mbr_entry(unsigned char *sector, int i, unsigned type, uint32_t start,
		      uint32_t size)
{
	unsigned char *e = sector + 446 + 16 * i;

	e[4] = (unsigned char)type;
	put32(e + 8, start);
	put32(e + 12, size);
	sector[510] = 0x55;
	sector[511] = 0xaa;
}

static int setup(void **state)
{
	(void)state;
	img = calloc(1, DISK);
	assert_non_null(img);
	bad_off = UINT64_MAX;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(img);
	return 0;
}

static void test_mbr_logical(void **state)
{
	struct map_part *p;
	unsigned nr;
	char type[16];

	(void)state;
	mbr_entry(img, 0, 0x83, 2048, 20480);
	mbr_entry(img, 1, 0x05, 40960, 61440);		/* extended */
	mbr_entry(img, 2, 0x07, 110592, 2048);
	/* EBR 1: a logical partition, then the next EBR (relative to the extended start) */
	mbr_entry(img + 40960ull * LBS, 0, 0x83, 2048, 10240);
	mbr_entry(img + 40960ull * LBS, 1, 0x05, 14336, 12288);
	mbr_entry(img + (40960ull + 14336) * LBS, 0, 0x82, 2048, 4096);
	assert_int_equal(parse(&p, &nr, type), 0);
	assert_string_equal(type, "dos");
	assert_int_equal(nr, 4);
	assert_int_equal(p[0].number, 1);
	assert_int_equal(p[0].start, 2048ull * LBS);
	assert_int_equal(p[0].size, 20480ull * LBS);
	assert_string_equal(p[0].type, "0x83");
	assert_int_equal(p[1].number, 3);
	assert_string_equal(p[1].type, "0x7");
	assert_int_equal(p[2].number, 5);
	assert_int_equal(p[2].start, (40960ull + 2048) * LBS);
	assert_int_equal(p[3].number, 6);
	assert_int_equal(p[3].start, (40960ull + 14336 + 2048) * LBS);
	assert_string_equal(p[3].type, "0x82");
	free(p);
}

/* A GPT header at block lba with its entries at block ent (128 entries of 128 bytes). */
static void gpt_header(uint64_t lba, uint64_t ent, uint64_t last_lba)
{
	unsigned char *h = img + lba * LBS, *e = img + ent * LBS;

	memset(h, 0, LBS);
	memcpy(h, "EFI PART", 8);
	put32(h + 8, 0x10000);
	put32(h + 12, 92);
	put64(h + 24, lba);
	put64(h + 32, lba == 1 ? last_lba : 1);
	put64(h + 40, 34);
	put64(h + 48, last_lba - 33);
	put64(h + 72, ent);
	put32(h + 80, 128);
	put32(h + 84, 128);
	put32(h + 88, crc32_ieee(e, 128 * 128));
	put32(h + 16, crc32_ieee(h, 92));
}

static void gpt_build(void)
{
	static const unsigned char linux_data[16] = {	/* 0fc63daf-8483-4772-8e79-3d69d8477de4 */
		0xaf, 0x3d, 0xc6, 0x0f, 0x83, 0x84, 0x72, 0x47,
		0x8e, 0x79, 0x3d, 0x69, 0xd8, 0x47, 0x7d, 0xe4 };
	uint64_t last = DISK / LBS - 1;
	unsigned char *e = img + 2 * LBS;

	mbr_entry(img, 0, 0xee, 1, (uint32_t)last);
	/* entry 1 empty; entry 2 "dätä" from block 2048, 1 MiB */
	memcpy(e + 128, linux_data, 16);
	memset(e + 128 + 16, 0x11, 16);
	put64(e + 128 + 32, 2048);
	put64(e + 128 + 40, 2048 + 2047);
	e[128 + 56] = 'd';
	e[128 + 58] = 0xe4;				/* U+00E4 */
	e[128 + 60] = 't';
	e[128 + 62] = 0xe4;
	memcpy(img + (last - 32) * LBS, e, 128 * 128);	/* the backup entries */
	gpt_header(1, 2, last);
	gpt_header(last, last - 32, last);
}

static void gpt_check(struct map_part *p, unsigned nr)
{
	assert_int_equal(nr, 1);
	assert_int_equal(p[0].number, 2);		/* the empty entry 1 keeps its number */
	assert_int_equal(p[0].start, 2048ull * LBS);
	assert_int_equal(p[0].size, 2048ull * LBS);
	assert_string_equal(p[0].type, "0fc63daf-8483-4772-8e79-3d69d8477de4");
	assert_string_equal(p[0].uuid, "11111111-1111-1111-1111-111111111111");
	assert_string_equal(p[0].name, "d\xc3\xa4t\xc3\xa4");
}

static void test_gpt(void **state)
{
	struct map_part *p;
	unsigned nr;
	char type[16];

	(void)state;
	gpt_build();
	assert_int_equal(parse(&p, &nr, type), 0);
	assert_string_equal(type, "gpt");
	gpt_check(p, nr);
	free(p);
	/* the primary header damaged: the backup at the last block */
	img[LBS + 20] ^= 0xff;
	assert_int_equal(parse(&p, &nr, type), 0);
	gpt_check(p, nr);
	free(p);
	/* both damaged: no table here (the kernel's list is asked) */
	img[DISK - LBS + 20] ^= 0xff;
	assert_int_equal(parse(&p, &nr, type), -EUCLEAN);
	assert_null(p);
	assert_int_equal(nr, 0);
}

static void test_unreadable_and_none(void **state)
{
	struct map_part *p;
	unsigned nr;
	char type[16];

	(void)state;
	/* nothing there */
	assert_int_equal(parse(&p, &nr, type), -ENOENT);
	/* a bad sector under the MBR */
	gpt_build();
	bad_off = 100;
	assert_int_equal(parse(&p, &nr, type), -EIO);
	assert_null(p);
	/* under the primary entries only: the backup answers */
	bad_off = 2 * LBS + 300;
	assert_int_equal(parse(&p, &nr, type), 0);
	gpt_check(p, nr);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mbr_logical, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gpt, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_and_none, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
