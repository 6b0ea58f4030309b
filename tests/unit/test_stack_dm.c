/*
 * tests/unit/test_stack_dm.c - stack/stack_dm.c's device-mapper rows read upward (linear
 * as LVM writes it, striped over three PVs, crypt with its key already replaced, multipath,
 * dm-raid raid1 and raid5_ls, refused targets with a reason), klog_md.c's md log lines and
 * stack_lvm.c's LVM label (pe_start and the metadata areas, malformed labels refused).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "klog.h"
#include "stack.h"

static int up(const char *type, uint64_t start, uint64_t len, const char *params,
	      const char *below, uint64_t x, uint64_t *top, uint64_t *run)
{
	struct map_dm_leg legs[8];
	unsigned n;

	return map_dm_row_up(type, start, len, params, below, x, top, run, legs, 8, &n);
}

static void test_linear_crypt_multipath(void **s)
{
	uint64_t top, run;

	(void)s;
	/* LVM: segment at LV sector 8192, 4096 sectors long, on 9:0 from PV sector 2048 */
	assert_int_equal(up("linear", 8192, 4096, "9:0 2048", "9:0", 2048 + 100, &top, &run), 1);
	assert_int_equal(top, 8192 + 100);
	assert_int_equal(run, 4096 - 100);
	/* not used: up to where the row starts, or never (another device, past its end) */
	assert_int_equal(up("linear", 8192, 4096, "9:0 2048", "9:0", 2000, &top, &run), 0);
	assert_int_equal(run, 48);
	assert_int_equal(up("linear", 8192, 4096, "9:0 2048", "8:16", 3000, &top, &run), 0);
	assert_int_equal(run, UINT64_MAX);
	assert_int_equal(up("linear", 8192, 4096, "9:0 2048", "9:0", 2048 + 4096, &top, &run), 0);
	assert_int_equal(run, UINT64_MAX);
	/* LUKS2: data at 32768 sectors (16 MiB) of 259:1; the key field is "-" here */
	assert_int_equal(up("crypt", 0, 100000, "aes-xts-plain64 - 0 259:1 32768", "259:1",
			    32768 + 5, &top, &run), 1);
	assert_int_equal(top, 5);
	assert_int_equal(up("multipath", 0, 1000, "0 0 1 1 service-time 0 2 1 8:16 1 8:32 1",
			    "8:32", 777, &top, &run), 1);
	assert_int_equal(top, 777);
	assert_int_equal(up("multipath", 0, 1000, "0 0 1 1 service-time 0 2 1 8:16 1 8:32 1",
			    "8:48", 777, &top, &run), 0);
	assert_int_equal(run, UINT64_MAX);
	assert_int_equal(up("thin", 0, 1000, "", "8:16", 1, &top, &run), -EOPNOTSUPP);
}

static void test_striped(void **s)
{
	uint64_t top, run;

	(void)s;
	/* 3 stripes of 128 sectors, each PV from sector 2048; LV of 3 * 4096 sectors */
	const char *p = "3 128 8:16 2048 8:32 2048 8:48 2048";

	/* second stripe, row 2, offset 5: chunk 2 * 3 + 1 = 7 */
	assert_int_equal(up("striped", 0, 3 * 4096, p, "8:32", 2048 + 256 + 5, &top, &run), 1);
	assert_int_equal(top, 7 * 128 + 5);
	assert_int_equal(run, 123);
	assert_int_equal(up("striped", 0, 3 * 4096, p, "8:32", 2048 + 4096, &top, &run), 0);
	assert_int_equal(run, 0);		/* how far it stays unused: not said */
}

static void test_dm_raid(void **s)
{
	struct map_dm_leg legs[8];
	uint64_t top, run;
	unsigned n;

	(void)s;
	/* LVM raid1: rmeta/rimage pairs */
	assert_int_equal(map_dm_row_up("raid", 0, 8192, "raid1 3 0 region_size 1024 2 253:1 "
				       "253:2 253:3 253:4", "253:4", 100, &top, &run, legs, 8,
				       &n), 1);
	assert_int_equal(top, 100);
	assert_int_equal(n, 1);
	assert_string_equal(legs[0].devt, "253:2");
	assert_int_equal(legs[0].sector, 100);
	/* raid5_ls of 3, chunk 128, LV 2 * 4096: image 253:6 (slot 1) sector 130 is parity of
	 * stripe 1 (D3 P D2) */
	assert_int_equal(map_dm_row_up("raid", 0, 8192, "raid5_ls 3 128 region_size 1024 3 "
				       "253:1 253:2 253:5 253:6 253:7 253:8", "253:6", 130, &top,
				       &run, legs, 8, &n), 2);
	assert_int_equal(top, 2 * 128 + 2);
	/* slot 2 (253:8) at 130 holds data D2 of that stripe: its copies are the whole row, the
	 * other data chunk D3 (253:2, slot 0) and the parity (253:6), as for an md array */
	assert_int_equal(map_dm_row_up("raid", 0, 8192, "raid5_ls 3 128 region_size 1024 3 "
				       "253:1 253:2 253:5 253:6 253:7 253:8", "253:8", 130, &top,
				       &run, legs, 8, &n), 1);
	assert_int_equal(n, 2);
	assert_true((legs[0].role == MAP_MD_DATA && !strcmp(legs[0].devt, "253:2") &&
		     legs[1].role == MAP_MD_PARITY && !strcmp(legs[1].devt, "253:6")) ||
		    (legs[1].role == MAP_MD_DATA && !strcmp(legs[1].devt, "253:2") &&
		     legs[0].role == MAP_MD_PARITY && !strcmp(legs[0].devt, "253:6")));
	assert_int_equal(legs[0].sector, 130);
	assert_int_equal(legs[1].sector, 130);
	/* the same row's geometry for mapping down (scan at member level): md's raid5
	 * left-symmetric of 3, each image holding half the LV, data legs in slot order */
	struct map_md_geo g;
	struct map_md_loc locs[8];
	char data[8][16];
	uint64_t doff, done;

	assert_int_equal(map_dm_raid_geo("raid5_ls 3 128 region_size 1024 3 253:1 253:2 253:5 "
					 "253:6 253:7 253:8", 8192, &g, &doff, data, 8), 3);
	assert_int_equal(g.level, 5);
	assert_int_equal(g.layout, MAP_R5_LEFT_SYMMETRIC);
	assert_int_equal(g.chunk_sectors, 128);
	assert_int_equal(g.dev_sectors, 4096);
	assert_int_equal(doff, 0);
	assert_string_equal(data[1], "253:6");
	/* array sector 258 (stripe 1, its second data chunk) lies on slot 2 at 130; its
	 * parity on slot 1 at 130: what up-mapping said of 253:6 sector 130 above */
	int k = map_md_down(&g, 258, 1, locs, 8, &done);
	int have_data = 0, have_parity = 0;

	for (int i = 0; i < k; i++) {
		have_data |= locs[i].role == MAP_MD_DATA && locs[i].slot == 2 && locs[i].sector == 130;
		have_parity |= locs[i].role == MAP_MD_PARITY && locs[i].slot == 1 &&
			       locs[i].sector == 130;
	}
	assert_true(have_data);
	assert_true(have_parity);
	/* too few legs for raid6, and an unknown raid type */
	assert_int_equal(map_dm_raid_geo("raid6_zr 1 128 2 253:1 253:2 253:3 253:4", 8192, &g, &doff,
					 data, 8), -EINVAL);
	assert_int_equal(map_dm_raid_geo("raid7 1 128 2 253:1 253:2 253:3 253:4", 8192, &g, &doff,
					 data, 8), -EOPNOTSUPP);
	const char *why;

	/* thin volumes and pools are mapped through the pool's metadata (issue 31) */
	assert_int_equal(map_dm_supported("thin", &why), 1);
	assert_int_equal(map_dm_supported("thin-pool", &why), 1);
	assert_int_equal(map_dm_supported("cache", &why), 0);
	assert_non_null(strstr(why, "cache"));
	assert_string_equal(map_dm_kind("writecache"), "dm-writecache");
	assert_int_equal(map_dm_supported("striped", &why), 1);
}

static void test_klog_md(void **s)
{
	struct map_klog_rec r;

	(void)s;
	assert_int_equal(map_klog_md_parse("md/raid1:md0: read error corrected (8 sectors at "
					   "16280 on nvme0n1)", &r), 1);
	assert_string_equal(r.dev, "nvme0n1");
	assert_int_equal(r.value, 16280);
	assert_int_equal(r.count, 8);
	assert_string_equal(r.format, "md");
	assert_int_equal(map_klog_md_parse("md/raid:md1: read error not correctable (sector "
					   "10584 on sdc).", &r), 1);
	assert_string_equal(r.dev, "sdc");
	assert_int_equal(r.value, 10584);
	assert_int_equal(map_klog_md_parse("md/raid10:md2: sdb1: unrecoverable I/O read error "
					   "for block 4096", &r), 1);
	assert_string_equal(r.dev, "md2");
	assert_int_equal(r.value, 4096);
	assert_int_equal(map_klog_md_parse("md/raid1:md0: Disk failure on sdb, disabling "
					   "device.", &r), 0);
	assert_int_equal(map_klog_md_parse("md/raid1:md0: read error corrected (x sectors",
					   &r), -EINVAL);
	/* through the line parser, with a dmesg stamp */
	assert_int_equal(map_klog_parse("[   12.345678] md/raid:md1: read error corrected "
					"(8 sectors at 10584 on nvme0n3)", &r), 1);
	assert_string_equal(r.dev, "nvme0n3");
}

/* put little-endian v at p */
static void le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/*
 * An LVM2 label as pvcreate writes it (lvm2 lib/label/label.h, format_text/layout.h): sector
 * 1 "LABELONE", its own sector number, crc, offset 32 to the pv_header, "LVM2 001"; the
 * pv_header: uuid (32), device size, data areas {pe_start, 0} {0, 0}, metadata areas
 * {4096, pe_start - 4096} (and a second copy at the end) {0, 0}.
 */
static void test_lvm_label(void **s)
{
	unsigned char buf[2048] = { 0 }, *l = buf + 512, *p;
	struct map_lvm_area mda[4];
	uint64_t pe = 0;

	(void)s;
	memcpy(l, "LABELONE", 8);
	le(l + 8, 1, 8);
	le(l + 20, 32, 4);
	memcpy(l + 24, "LVM2 001", 8);
	memcpy(l + 32, "0123456789abcdef0123456789abcdef", 32);
	le(l + 64, 400ull << 20, 8);
	p = l + 72;
	le(p, 1 << 20, 8);			/* data area: pe_start 1 MiB */
	p += 32;				/* and its zero entry */
	le(p, 4096, 8);
	le(p + 8, (1 << 20) - 4096, 8);
	le(p + 16, (400ull << 20) - (1 << 20), 8);	/* a second metadata area at the end */
	le(p + 24, 1 << 20, 8);
	assert_int_equal(map_lvm_label_parse(buf, sizeof(buf), &pe, mda, 4), 2);
	assert_int_equal(pe, 1 << 20);
	assert_int_equal(mda[0].offset, 4096);
	assert_int_equal(mda[0].length, (1 << 20) - 4096);
	assert_int_equal(mda[1].offset, (400ull << 20) - (1 << 20));
	/* not a PV; a label claiming another sector; a type that is not LVM2 */
	assert_int_equal(map_lvm_label_parse(buf + 1024, 1024, &pe, mda, 4), -ENOENT);
	le(l + 8, 2, 8);
	assert_int_equal(map_lvm_label_parse(buf, sizeof(buf), &pe, mda, 4), -ENOENT);
	le(l + 8, 1, 8);
	/* a pv_header offset past the sector, and lists that never end, are refused */
	le(l + 20, 500, 4);
	assert_int_equal(map_lvm_label_parse(buf, sizeof(buf), &pe, mda, 4), -EINVAL);
	le(l + 20, 32, 4);
	memset(l + 72, 0xff, 512 - 72);
	assert_int_equal(map_lvm_label_parse(buf, sizeof(buf), &pe, mda, 4), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linear_crypt_multipath),
		cmocka_unit_test(test_striped),
		cmocka_unit_test(test_dm_raid),
		cmocka_unit_test(test_klog_md),
		cmocka_unit_test(test_lvm_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
