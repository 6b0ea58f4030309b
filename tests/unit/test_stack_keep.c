/*
 * tests/unit/test_stack_keep.c - stack/stack_keep.c on a fake sysfs (dm tables faked): a walk
 * kept for the ranges after it gives, for every range, what a walk of its own gives, field by
 * field. Disk sdk under three LVs of one PV: dm-20 linear over [2048, 3048), dm-21 of two
 * rows (its [0, 500) on [10000, 10500), its [500, 1000) on [3048, 3548), so a range moving
 * up the disk meets another row, another LV and unused space), dm-22 over dm-20 (a second
 * hop), and a partitioned disk sdm (its partitions' bounds and the gap between them). Ranges
 * of 512 bytes and 4 KiB, some across a boundary; the kept walk answers without reading a
 * table inside what its layers promise, and walks again past it.
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
#include "stack.h"

static char root[64];
static unsigned tables_read;

static void put(const char *dev, const char *attr, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/class/block/%s/%s", root, dev, attr);
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(root) + 1; (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

int __wrap_kio_dm_table(dev_t devt, struct kio_dm_target *out, unsigned max)
{
	struct kio_dm_target t[2] = { { 0 } };
	int n = 1;

	(void)max;
	tables_read++;
	snprintf(t[0].type, sizeof(t[0].type), "linear");
	snprintf(t[1].type, sizeof(t[1].type), "linear");
	switch (minor(devt)) {
	case 20:
		t[0].length = 1000;
		snprintf(t[0].params, sizeof(t[0].params), "8:160 2048");
		break;
	case 21:
		t[0].length = 500;
		snprintf(t[0].params, sizeof(t[0].params), "8:160 10000");
		t[1].start = 500;
		t[1].length = 500;
		snprintf(t[1].params, sizeof(t[1].params), "8:160 3048");
		n = 2;
		break;
	default:			/* dm-22 over dm-20 from its sector 100 */
		t[0].length = 900;
		snprintf(t[0].params, sizeof(t[0].params), "253:20 100");
		break;
	}
	memcpy(out, t, sizeof(t[0]) * (size_t)n);
	return n;
}

int __wrap_kio_devpath_from_devt(dev_t devt, char *out, size_t len)
{
	snprintf(out, len, major(devt) == 253 ? "/dev/dm-%u" : "/dev/sd%c",
		 major(devt) == 253 ? minor(devt) : (unsigned)('a' + minor(devt) / 16));
	return 0;
}

static int setup(void **s)
{
	(void)s;
	snprintf(root, sizeof(root), "/tmp/mediascan-keep-XXXXXX");
	assert_non_null(mkdtemp(root));
	put("sdk", "dev", "8:160\n");
	put("sdk", "size", "20000\n");
	put("sdk", "holders/dm-20", "");
	put("sdk", "holders/dm-21", "");
	put("dm-20", "dev", "253:20\n");
	put("dm-20", "holders/dm-22", "");
	put("dm-21", "dev", "253:21\n");
	put("dm-22", "dev", "253:22\n");
	/* sdm: partitions [2048, 4096) and [8192, 12288), a gap between; the second under dm */
	put("sdm", "dev", "8:192\n");
	put("sdm", "sdm1/partition", "1\n");
	put("sdm", "sdm1/start", "2048\n");
	put("sdm", "sdm1/size", "2048\n");
	put("sdm", "sdm2/partition", "2\n");
	put("sdm", "sdm2/start", "8192\n");
	put("sdm", "sdm2/size", "4096\n");
	put("sdm1", "partition", "1\n");
	put("sdm1", "start", "2048\n");
	put("sdm1", "size", "2048\n");
	put("sdm2", "partition", "2\n");
	put("sdm2", "start", "8192\n");
	put("sdm2", "size", "4096\n");
	put("sdm2", "dev", "8:194\n");
	return 0;
}

static int teardown(void **s)
{
	char cmd[128];

	(void)s;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

/* a and b the same answer, field by field (same aside: a promise, not the answer) */
static void same_answer(const struct map_stack_up *a, const struct map_stack_up *b)
{
	assert_int_equal(a->nr_hops, b->nr_hops);
	for (unsigned i = 0; i < a->nr_hops; i++) {
		assert_string_equal(a->hop[i].name, b->hop[i].name);
		assert_string_equal(a->hop[i].kind, b->hop[i].kind);
		assert_int_equal(a->hop[i].offset, b->hop[i].offset);
		assert_int_equal(a->hop[i].parity, b->hop[i].parity);
		assert_int_equal(a->hop[i].degraded, b->hop[i].degraded);
	}
	assert_int_equal(a->nr_copies, b->nr_copies);
	assert_int_equal(a->length, b->length);
	assert_int_equal(a->parity, b->parity);
	assert_int_equal(a->unused, b->unused);
	assert_int_equal(a->unmappable, b->unmappable);
	assert_int_equal(a->thin_meta, b->thin_meta);
	assert_int_equal(a->nr_also, b->nr_also);
	for (unsigned i = 0; i < a->nr_also; i++) {
		assert_string_equal(a->also[i].name, b->also[i].name);
		assert_int_equal(a->also[i].offset, b->also[i].offset);
	}
	assert_int_equal(a->also_more, b->also_more);
	assert_string_equal(a->bad_name, b->bad_name);
	assert_string_equal(a->bad_kind, b->bad_kind);
	assert_string_equal(a->bad_reason, b->bad_reason);
}

/* Every range [x, x + len) of dev from byte from to to, step bytes apart, kept and walked:
 * the same answers; return how many were answered without a table read. */
static unsigned sweep(const char *dev, uint64_t from, uint64_t to, uint64_t step, uint64_t len)
{
	struct map_stack_keep k;
	struct map_stack_up kept, walked;
	unsigned skipped = 0;

	memset(&k, 0, sizeof(k));
	for (uint64_t x = from; x < to; x += step) {
		unsigned before = tables_read;

		assert_int_equal(map_stack_up_kept(&k, root, dev, x, len, &kept), 0);
		skipped += tables_read == before;
		assert_int_equal(map_stack_up(root, dev, x, len, &walked), 0);
		print_message("%s %llu+%llu: %u hops, length %llu, same %llu\n", dev,
			      (unsigned long long)x, (unsigned long long)len, walked.nr_hops,
			      (unsigned long long)walked.length, (unsigned long long)walked.same);
		same_answer(&kept, &walked);
		map_stack_up_release(&kept);
		map_stack_up_release(&walked);
	}
	map_stack_keep_release(&k);
	return skipped;
}

static void test_rows(void **s)
{
	struct map_stack_keep k;
	struct map_stack_up u;
	unsigned n;

	(void)s;
	/* sectors 1500..11000 of sdk, 64 sectors apart: dm-20 (then dm-22 above it), dm-21's
	 * second row, the unused gap, dm-21's first row, past every row */
	n = sweep("sdk", 1500 * 512, 11000 * 512, 64 * 512, 512);
	assert_true(n > 0);
	/* ranges that end past a row, and ones that start inside a sector */
	sweep("sdk", 1500 * 512 + 100, 11000 * 512, 37 * 512 + 3, 4096);
	/* in dm-20, under dm-22: two hops kept, both moved */
	memset(&k, 0, sizeof(k));
	tables_read = 0;
	assert_int_equal(map_stack_up_kept(&k, root, "sdk", 2300 * 512, 512, &u), 0);
	assert_int_equal(u.nr_hops, 3);
	assert_string_equal(u.hop[2].name, "dm-22");
	assert_int_equal(u.hop[2].offset, (2300 - 2048 - 100) * 512);
	assert_true(tables_read > 0);
	map_stack_up_release(&u);
	tables_read = 0;
	assert_int_equal(map_stack_up_kept(&k, root, "sdk", 2900 * 512, 4096, &u), 0);
	assert_int_equal(tables_read, 0);	/* inside what the walk promised */
	assert_int_equal(u.hop[1].offset, (2900 - 2048) * 512);
	assert_int_equal(u.hop[2].offset, (2900 - 2048 - 100) * 512);
	assert_int_equal(u.length, 4096);
	map_stack_up_release(&u);
	/* the last 4 KiB of dm-22 (it ends at dm-20's sector 1000, sdk's 3048) still kept; one
	 * sector more crosses into dm-21: walked */
	assert_int_equal(map_stack_up_kept(&k, root, "sdk", (3048 - 8) * 512, 4096, &u), 0);
	assert_int_equal(tables_read, 0);
	map_stack_up_release(&u);
	assert_int_equal(map_stack_up_kept(&k, root, "sdk", (3048 - 8) * 512, 4608, &u), 0);
	assert_true(tables_read > 0);
	map_stack_up_release(&u);
	/* before the kept range, or another device: walked */
	tables_read = 0;
	assert_int_equal(map_stack_up_kept(&k, root, "sdk", 2000 * 512, 512, &u), 0);
	assert_true(tables_read > 0);
	map_stack_up_release(&u);
	map_stack_keep_release(&k);
}

static void test_partitions(void **s)
{
	(void)s;
	/* sdm: the first partition (a plain one: the caller maps it), the gap, the second under
	 * no holder, past the end */
	sweep("sdm", 1024 * 512, 13000 * 512, 100 * 512, 512);
	sweep("sdm", 1024 * 512, 13000 * 512, 333 * 512, 8192);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_partitions),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
