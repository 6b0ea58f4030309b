/*
 * tests/unit/test_stack_geom.c - stack/stack_geom.c on a fake sysfs: the geometry text of an
 * md RAID5 of three names its level, raid_disks, chunk, layout and each member's slot, data
 * offset and size; each change a grow or reshape makes (chunk, layout, raid_disks, a member's
 * data offset, a member added) changes the text, and the diff names the array.
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
#include <cmocka.h>

#include "stack.h"

static char root[64];

static void put_file(const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/class/block/%s", root, rel);
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

static int setup(void **s)
{
	(void)s;
	snprintf(root, sizeof(root), "/tmp/mediascan-geom-XXXXXX");
	assert_non_null(mkdtemp(root));
	put_file("md0/size", "819200\n");
	put_file("md0/md/level", "raid5\n");
	put_file("md0/md/raid_disks", "3\n");
	put_file("md0/md/chunk_size", "65536\n");
	put_file("md0/md/layout", "2\n");
	put_file("md0/md/reshape_position", "none\n");
	put_file("md0/md/sync_action", "idle\n");
	for (int i = 0; i < 3; i++) {
		char rel[128], v[32];

		snprintf(rel, sizeof(rel), "md0/slaves/vd%c", 'a' + i);
		put_file(rel, "");
		snprintf(rel, sizeof(rel), "md0/md/dev-vd%c/slot", 'a' + i);
		snprintf(v, sizeof(v), "%d\n", i);
		put_file(rel, v);
		snprintf(rel, sizeof(rel), "md0/md/dev-vd%c/offset", 'a' + i);
		put_file(rel, "2048\n");
		snprintf(rel, sizeof(rel), "md0/md/dev-vd%c/size", 'a' + i);
		put_file(rel, "409600\n");
		snprintf(rel, sizeof(rel), "vd%c/size", 'a' + i);
		put_file(rel, "411648\n");
	}
	return 0;
}

static int teardown(void **s)
{
	char cmd[128];

	(void)s;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void geom(char *out, size_t len)
{
	assert_int_equal(map_stack_geometry(root, "md0", out, len), 0);
}

static void test_md_geometry(void **s)
{
	char a[4096], b[4096], d[1024];

	(void)s;
	geom(a, sizeof(a));
	assert_non_null(strstr(a, "md0 md-raid5 size=419430400 raid_disks=3 chunk=65536 "
			       "layout=2 reshape=none"));
	assert_non_null(strstr(a, "vda@slot0+2048:409600"));
	assert_non_null(strstr(a, "vdc@slot2+2048:409600"));
	assert_non_null(strstr(a, "\nvdb disk size="));
	/* read twice, unchanged: the same text */
	geom(b, sizeof(b));
	assert_string_equal(a, b);
	map_stack_geometry_diff(a, b, d, sizeof(d));
	assert_string_equal(d, "unchanged");

	/* each change of a grow or reshape is seen */
	static const char *const changes[][3] = {
		{ "md0/md/chunk_size", "131072\n", "65536\n" },
		{ "md0/md/layout", "0\n", "2\n" },
		{ "md0/md/raid_disks", "4\n", "3\n" },
		{ "md0/md/reshape_position", "1024\n", "none\n" },
		{ "md0/md/dev-vdb/offset", "4096\n", "2048\n" },
		{ "md0/size", "1228800\n", "819200\n" },
	};
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		put_file(changes[i][0], changes[i][1]);
		geom(b, sizeof(b));
		assert_string_not_equal(a, b);
		map_stack_geometry_diff(a, b, d, sizeof(d));
		assert_non_null(strstr(d, "was \"md0 md-raid5"));
		put_file(changes[i][0], changes[i][2]);
		geom(b, sizeof(b));
		assert_string_equal(a, b);
	}
	/* a member added (mdadm --add, then --grow) */
	put_file("md0/slaves/vdd", "");
	put_file("md0/md/dev-vdd/slot", "3\n");
	put_file("vdd/size", "411648\n");
	geom(b, sizeof(b));
	assert_string_not_equal(a, b);
	map_stack_geometry_diff(a, b, d, sizeof(d));
	assert_non_null(strstr(d, "vdd@slot3"));
	/* too small a buffer is said, never a text cut short that could compare equal */
	assert_int_equal(map_stack_geometry(root, "md0", b, 40), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_md_geometry, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
