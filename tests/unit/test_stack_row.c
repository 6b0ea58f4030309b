/*
 * tests/unit/test_stack_row.c - stack/stack_row.c on a fake sysfs: the redundancy row under a
 * range, worked by hand from drivers/md's layouts: RAID1 of 2 and 3 copies, RAID10 near2,
 * far2 and offset2, RAID5 left-symmetric and left-asymmetric (the whole stripe row, every data
 * chunk with its byte on the top device), RAID6 with Q's syndrome order (md's and DDF's), a
 * partition of a RAID5 (top offsets shifted, a chunk before the partition has none), RAID
 * over partitions, dm-crypt over RAID1, LVM raid1 and dm-mirror (dm tables and devt names faked), a
 * plain disk and RAID0 (nothing to compare), RAID1 over RAID1 (refused).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "kio.h"
#include "stack_row.h"

static char root[64];

static void mkdirs(const char *path)
{
	char dir[512], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(root) + 1; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
}

/* put text at sysfs path rel (from the root) */
static void put_abs(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdirs(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void put(const char *dev, const char *attr, const char *fmt, ...)
{
	char rel[256], text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(rel, sizeof(rel), "class/block/%s/%s", dev, attr);
	put_abs(rel, text);
}

/* An md array: level, layout, chunk (sectors), members by slot, data offset 2048 sectors,
 * component size comp sectors. */
static void md(const char *name, const char *level, unsigned layout, unsigned chunk,
	       uint64_t comp, const char *const *members, unsigned n)
{
	put(name, "md/level", "%s\n", level);
	put(name, "md/raid_disks", "%u\n", n);
	put(name, "md/chunk_size", "%u\n", chunk * 512);
	put(name, "md/layout", "%u\n", layout);
	put(name, "md/component_size", "%llu\n", (unsigned long long)comp / 2);
	put(name, "md/reshape_position", "none\n");
	put(name, "md/sync_action", "idle\n");
	for (unsigned i = 0; i < n; i++) {
		char a[128];

		if (!members[i])
			continue;
		snprintf(a, sizeof(a), "slaves/%s", members[i]);
		put(name, a, "");
		snprintf(a, sizeof(a), "md/dev-%s/slot", members[i]);
		put(name, a, "%u\n", i);
		snprintf(a, sizeof(a), "md/dev-%s/offset", members[i]);
		put(name, a, "2048\n");
		snprintf(a, sizeof(a), "md/dev-%s/size", members[i]);
		put(name, a, "%llu\n", (unsigned long long)comp / 2);
	}
}

static int setup(void **s)
{
	(void)s;
	snprintf(root, sizeof(root), "/tmp/mediascan-row-XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **s)
{
	char cmd[128];

	(void)s;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

/* the leg on leaf name; fails the test when none */
static const struct map_row_leg *leg_on(const struct map_row *r, const char *name)
{
	for (unsigned i = 0; i < r->nr_legs; i++)
		if (!strcmp(r->leg[i].name, name))
			return &r->leg[i];
	fail_msg("no leg on %s", name);
	return NULL;
}

/* leg on name: role, byte offset (sectors + 2048 data offset), index, top byte */
static void check_leg(const struct map_row *r, const char *name, enum map_md_role role,
		      uint64_t msector, int index, uint64_t top)
{
	const struct map_row_leg *l = leg_on(r, name);

	assert_int_equal(l->role, role);
	assert_int_equal(l->offset, (msector + 2048) * 512);
	assert_int_equal(l->length, r->length);
	if (role == MAP_MD_DATA || role == MAP_MD_MIRROR)
		assert_int_equal(l->index, index);
	assert_int_equal(l->top_offset, top);
}

static const char *const disks4[] = { "sda", "sdb", "sdc", "sdd", "sde" };

static void test_raid1(void **s)
{
	struct map_row r;
	uint64_t done;

	(void)s;
	md("md0", "raid1", 0, 0, 1 << 20, disks4, 2);
	assert_int_equal(map_stack_row(root, "md0", 1000 * 512 + 100, 4096, &r, &done), 1);
	assert_int_equal(r.kind, MAP_ROW_MIRROR);
	assert_string_equal(r.array, "md0");
	assert_string_equal(r.level, "raid1");
	assert_int_equal(r.nr_legs, 2);
	assert_int_equal(r.length, 9 * 512);
	assert_int_equal(done, 4096);
	check_leg(&r, "sda", MAP_MD_MIRROR, 1000, 0, 1000 * 512);
	check_leg(&r, "sdb", MAP_MD_MIRROR, 1000, 1, 1000 * 512);
	assert_int_equal(r.leg[1].slot, 1);

	md("md1", "raid1", 0, 0, 1 << 20, disks4 + 2, 3);
	assert_int_equal(map_stack_row(root, "md1", 0, 1 << 20, &r, &done), 1);
	assert_int_equal(r.nr_legs, 3);
	assert_int_equal(done, 1 << 20);
	check_leg(&r, "sdc", MAP_MD_MIRROR, 0, 0, 0);
	check_leg(&r, "sde", MAP_MD_MIRROR, 0, 2, 0);
	/* past the array's end */
	assert_true(map_stack_row(root, "md1", 1ull << 40, 512, &r, &done) < 0);
}

static void test_raid10(void **s)
{
	struct map_row r;
	uint64_t done;

	(void)s;
	/* near2 of 4, chunk 128: two chunks a stripe, chunk 5 on slots 2 and 3 of stripe 2 */
	md("md0", "raid10", 0x102, 128, 131072, disks4, 4);
	assert_int_equal(map_stack_row(root, "md0", (5 * 128 + 7) * 512, 1 << 20, &r, &done), 1);
	assert_int_equal(r.kind, MAP_ROW_MIRROR);
	assert_int_equal(r.nr_legs, 2);
	assert_int_equal(done, (128 - 7) * 512);
	check_leg(&r, "sdc", MAP_MD_MIRROR, 256 + 7, 0, (5 * 128 + 7) * 512);
	check_leg(&r, "sdd", MAP_MD_MIRROR, 256 + 7, 1, (5 * 128 + 7) * 512);
	/* far2 of 4: stride 512 chunks; chunk 5 on slot 1 at 128, its far copy on slot 2 at
	 * 128 + 65536 */
	md("md1", "raid10", 0x201, 128, 131072, disks4, 4);
	assert_int_equal(map_stack_row(root, "md1", 5 * 128 * 512, 4096, &r, &done), 1);
	assert_int_equal(r.nr_legs, 2);
	check_leg(&r, "sdb", MAP_MD_MIRROR, 128, 0, 5 * 128 * 512);
	check_leg(&r, "sdc", MAP_MD_MIRROR, 128 + 65536, 1, 5 * 128 * 512);
	/* offset2 of 4: chunk 5 in stripe 1, rows doubled: slot 1 at 256, copy slot 2 at 384 */
	md("md2", "raid10", 0x10201, 128, 131072, disks4, 4);
	assert_int_equal(map_stack_row(root, "md2", 5 * 128 * 512, 4096, &r, &done), 1);
	check_leg(&r, "sdb", MAP_MD_MIRROR, 256, 0, 5 * 128 * 512);
	check_leg(&r, "sdc", MAP_MD_MIRROR, 384, 1, 5 * 128 * 512);
}

static void test_raid5(void **s)
{
	struct map_row r;
	uint64_t done, a = 4 * 128 + 10;	/* chunk 4: stripe 1, its second data chunk */

	(void)s;
	/* left-symmetric of 4: stripe 1 has P on slot 2, data d0 d1 d2 on slots 3, 0, 1 */
	md("md0", "raid5", 2, 128, 131072, disks4, 4);
	assert_int_equal(map_stack_row(root, "md0", a * 512, 4096, &r, &done), 1);
	assert_int_equal(r.kind, MAP_ROW_XOR);
	assert_int_equal(r.nr_legs, 4);
	assert_int_equal(r.length, 4096);
	check_leg(&r, "sdd", MAP_MD_DATA, 138, 0, (3 * 128 + 10) * 512);
	check_leg(&r, "sda", MAP_MD_DATA, 138, 1, a * 512);
	check_leg(&r, "sdb", MAP_MD_DATA, 138, 2, (5 * 128 + 10) * 512);
	check_leg(&r, "sdc", MAP_MD_PARITY, 138, 0, UINT64_MAX);
	/* the row is clipped at the chunk's end */
	assert_int_equal(map_stack_row(root, "md0", a * 512, 1 << 20, &r, &done), 1);
	assert_int_equal(done, (128 - 10) * 512);
	/* left-asymmetric: P on slot 2, data on 0, 1, 3 in order */
	md("md1", "raid5", 0, 128, 131072, disks4, 4);
	assert_int_equal(map_stack_row(root, "md1", a * 512, 4096, &r, &done), 1);
	check_leg(&r, "sda", MAP_MD_DATA, 138, 0, (3 * 128 + 10) * 512);
	check_leg(&r, "sdb", MAP_MD_DATA, 138, 1, a * 512);
	check_leg(&r, "sdd", MAP_MD_DATA, 138, 2, (5 * 128 + 10) * 512);
	check_leg(&r, "sdc", MAP_MD_PARITY, 138, 0, UINT64_MAX);
	/* degraded: a parity row with a member missing cannot be checked */
	const char *three[] = { "sda", NULL, "sdc", "sdd" };

	md("md2", "raid5", 2, 128, 131072, three, 4);
	put("md2", "md/degraded", "1\n");
	assert_int_equal(map_stack_row(root, "md2", a * 512, 4096, &r, &done), 0);
	assert_int_equal(done, 4096);
}

static void test_raid6(void **s)
{
	struct map_row r;
	uint64_t done, a = 6 * 128;	/* chunk 6: stripe 2, its first data chunk */

	(void)s;
	/*
	 * left-asymmetric of 5 (md's layout 0): stripe 2 has P on slot 2, Q on 3, data
	 * d0 d1 d2 on slots 0, 1, 4. Q's sources run from the disk after Q counting data
	 * disks only: slot 4 is syndrome slot 0, slot 0 is 1, slot 1 is 2.
	 */
	md("md0", "raid6", 0, 128, 131072, disks4, 5);
	assert_int_equal(map_stack_row(root, "md0", a * 512, 4096, &r, &done), 1);
	assert_int_equal(r.kind, MAP_ROW_PQ);
	assert_int_equal(r.nr_legs, 5);
	check_leg(&r, "sda", MAP_MD_DATA, 256, 1, 6 * 128 * 512);
	check_leg(&r, "sdb", MAP_MD_DATA, 256, 2, 7 * 128 * 512);
	check_leg(&r, "sde", MAP_MD_DATA, 256, 0, 8 * 128 * 512);
	check_leg(&r, "sdc", MAP_MD_PARITY, 256, 0, UINT64_MAX);
	check_leg(&r, "sdd", MAP_MD_SYNDROME, 256, 0, UINT64_MAX);
	/* left-symmetric of 5, stripe 2: P 2, Q 3, data on 4, 0, 1: Q's order is data order */
	md("md1", "raid6", 2, 128, 131072, disks4, 5);
	assert_int_equal(map_stack_row(root, "md1", a * 512, 4096, &r, &done), 1);
	check_leg(&r, "sde", MAP_MD_DATA, 256, 0, 6 * 128 * 512);
	check_leg(&r, "sda", MAP_MD_DATA, 256, 1, 7 * 128 * 512);
	check_leg(&r, "sdb", MAP_MD_DATA, 256, 2, 8 * 128 * 512);
	/* DDF's rotating-zero-restart: stripe 2 P 2, Q 3, data 0 1 4; syndrome slot = disk */
	md("md2", "raid6", 8, 128, 131072, disks4, 5);
	assert_int_equal(map_stack_row(root, "md2", a * 512, 4096, &r, &done), 1);
	check_leg(&r, "sda", MAP_MD_DATA, 256, 0, 6 * 128 * 512);
	check_leg(&r, "sdb", MAP_MD_DATA, 256, 1, 7 * 128 * 512);
	check_leg(&r, "sde", MAP_MD_DATA, 256, 4, 8 * 128 * 512);
}

/* class/block/NAME as a symlink to devices/PATH (a partition's parent is its directory) */
static void link_dev(const char *name, const char *path)
{
	char target[512], l[512];

	snprintf(target, sizeof(target), "%s/devices/%s", root, path);
	mkdir(target, 0755);
	snprintf(l, sizeof(l), "%s/class/block/%s", root, name);
	mkdirs(l);
	assert_int_equal(symlink(target, l), 0);
}

static void test_partitions(void **s)
{
	const char *parts[] = { "sda1", "sdb1", "sdc1", "sdd1" };
	struct map_row r;
	uint64_t done, a = 4 * 128 + 10;

	(void)s;
	/* RAID5 over partitions, and a partition md0p1 of it starting at array sector 2 * 128 */
	mkdir(root, 0755);
	put_abs("devices/x", "");
	link_dev("md0", "md0");
	link_dev("md0p1", "md0/md0p1");
	for (int i = 0; i < 4; i++) {
		put(parts[i], "partition", "1\n");
		put(parts[i], "start", "2048\n");
	}
	md("md0", "raid5", 2, 128, 131072, parts, 4);
	put("md0p1", "partition", "1\n");
	put("md0p1", "start", "256\n");
	/* md0p1's byte (a - 256) * 512 is array sector a: the row of test_raid5 */
	assert_int_equal(map_stack_row(root, "md0p1", (a - 256) * 512, 4096, &r, &done), 1);
	assert_int_equal(r.nr_legs, 4);
	check_leg(&r, "sda1", MAP_MD_DATA, 138, 1, (a - 256) * 512);
	check_leg(&r, "sdb1", MAP_MD_DATA, 138, 2, (5 * 128 + 10 - 256) * 512);
	check_leg(&r, "sdd1", MAP_MD_DATA, 138, 0, (3 * 128 + 10 - 256) * 512);
	/* stripe 0's first chunk lies before the partition: not on the top device */
	assert_int_equal(map_stack_row(root, "md0p1", 10 * 512, 512, &r, &done), 1);
	for (unsigned i = 0; i < r.nr_legs; i++)
		if (r.leg[i].role == MAP_MD_DATA && r.leg[i].index == 0)
			assert_int_equal(r.leg[i].top_offset, UINT64_MAX);
}

/* dm tables and devt names, faked: dm-0 crypt over md0 (9:0); dm-1 LVM raid1 of rimage
 * LVs dm-2 and dm-3 (253:2, 253:3; rmeta 253:4, 253:5), each linear over sdX from 2048;
 * dm-4 a dm-mirror of sda from 2048 and sdb from 4096. */
int __wrap_kio_dm_table(dev_t devt, struct kio_dm_target *out, unsigned max)
{
	struct kio_dm_target t = { 0 };

	(void)max;
	t.start = 0;
	t.length = 1 << 20;
	switch (minor(devt)) {
	case 0:
		snprintf(t.type, sizeof(t.type), "crypt");
		snprintf(t.params, sizeof(t.params), "aes-xts-plain64 - 0 9:0 32768");
		break;
	case 4:
		snprintf(t.type, sizeof(t.type), "mirror");
		snprintf(t.params, sizeof(t.params), "core 2 1024 nosync 2 8:0 2048 8:16 4096 1 "
			 "handle_errors");
		break;
	case 1:
		snprintf(t.type, sizeof(t.type), "raid");
		snprintf(t.params, sizeof(t.params),
			 "raid1 3 0 region_size 1024 2 253:4 253:2 253:5 253:3");
		break;
	default:
		snprintf(t.type, sizeof(t.type), "linear");
		snprintf(t.params, sizeof(t.params), "8:%u 2048", 16 * minor(devt));
		break;
	}
	out[0] = t;
	return 1;
}

int __wrap_kio_devpath_from_devt(dev_t devt, char *out, size_t len)
{
	if (major(devt) == 9)
		snprintf(out, len, "/dev/md%u", minor(devt));
	else if (major(devt) == 253)
		snprintf(out, len, "/dev/dm-%u", minor(devt));
	else
		snprintf(out, len, "/dev/sd%c", 'a' + minor(devt) / 16);
	return 0;
}

static void test_dm(void **s)
{
	struct map_row r;
	uint64_t done;

	(void)s;
	md("md0", "raid1", 0, 0, 1 << 20, disks4, 2);
	for (int i = 0; i < 5; i++) {
		char n[8];

		snprintf(n, sizeof(n), "dm-%d", i);
		put(n, "dev", "253:%d\n", i);
	}
	/* crypt: dm-0's byte x is md0's x + 32768 sectors */
	assert_int_equal(map_stack_row(root, "dm-0", 4096, 4096, &r, &done), 1);
	assert_string_equal(r.array, "md0");
	assert_int_equal(r.nr_legs, 2);
	check_leg(&r, "sda", MAP_MD_MIRROR, 32768 + 8, 0, 4096);
	check_leg(&r, "sdb", MAP_MD_MIRROR, 32768 + 8, 1, 4096);
	/* LVM raid1: rimage dm-2 on sdc (8:32), dm-3 on sdd (8:48), both from 2048 */
	assert_int_equal(map_stack_row(root, "dm-1", 8192, 4096, &r, &done), 1);
	assert_string_equal(r.array, "dm-1");
	assert_string_equal(r.level, "dm-raid1");
	assert_int_equal(r.kind, MAP_ROW_MIRROR);
	check_leg(&r, "sdc", MAP_MD_MIRROR, 16, 0, 8192);
	check_leg(&r, "sdd", MAP_MD_MIRROR, 16, 1, 8192);
	/* dm-mirror: each leg at its own offset */
	assert_int_equal(map_stack_row(root, "dm-4", 8192, 4096, &r, &done), 1);
	assert_string_equal(r.level, "dm-mirror");
	check_leg(&r, "sda", MAP_MD_MIRROR, 16, 0, 8192);
	check_leg(&r, "sdb", MAP_MD_MIRROR, 2048 + 16, 1, 8192);
}

static void test_none(void **s)
{
	const char *const md0[] = { "md0", "sdc" };
	struct map_row r;
	uint64_t done;

	(void)s;
	/* a plain disk: nothing to compare, the whole range done */
	put("sdx", "size", "1000000\n");
	assert_int_equal(map_stack_row(root, "sdx", 512, 1 << 20, &r, &done), 0);
	assert_int_equal(done, 1 << 20);
	/* raid0: one copy, clipped at the chunk */
	md("md3", "raid0", 0, 128, 131072, disks4, 2);
	assert_int_equal(map_stack_row(root, "md3", 0, 1 << 20, &r, &done), 0);
	assert_int_equal(done, 128 * 512);
	/* RAID1 over RAID1: two levels of redundancy are not mapped */
	md("md0", "raid1", 0, 0, 1 << 20, disks4, 2);
	md("md1", "raid1", 0, 0, 1 << 20, md0, 2);
	assert_int_equal(map_stack_row(root, "md1", 0, 4096, &r, &done), -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_raid1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raid10, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raid5, setup, teardown),
		cmocka_unit_test_setup_teardown(test_raid6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_partitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_none, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
