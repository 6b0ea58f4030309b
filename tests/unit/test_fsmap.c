/*
 * tests/unit/test_fsmap.c - mapping/plan/fsmap.c: which GETFSMAP records are planned (and with
 * what tag), how special owners are named, and the query keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <xfs/xfs.h>

#include "fsmap.h"
#include "plan.h"

/* The ext4 special owners as fs/ext4/fsmap.h defines them. */
#define T_EXT4_OWN_GDT		FMR_OWNER('f', 1)
#define T_EXT4_OWN_RESV_GDT	FMR_OWNER('f', 2)
#define T_EXT4_OWN_BLKBM	FMR_OWNER('f', 3)
#define T_EXT4_OWN_INOBM	FMR_OWNER('f', 4)

static struct fsmap special(uint64_t owner)
{
	struct fsmap r;

	memset(&r, 0, sizeof(r));
	r.fmr_device = 0x703;
	r.fmr_physical = 1 << 20;
	r.fmr_length = 4096;
	r.fmr_owner = owner;
	r.fmr_flags = FMR_OF_SPECIAL_OWNER;
	return r;
}

static struct fsmap inode_rec(uint64_t ino, uint32_t flags)
{
	struct fsmap r;

	memset(&r, 0, sizeof(r));
	r.fmr_device = 0x703;
	r.fmr_physical = 1 << 20;
	r.fmr_length = 65536;
	r.fmr_owner = ino;
	r.fmr_offset = 8192;
	r.fmr_flags = flags;
	return r;
}

static void test_classify_special(void **state)
{
	struct fsmap r;

	(void)state;
	r = special(FMR_OWN_FREE);
	assert_int_equal(map_fsmap_classify(&r), 0);
	r = special(XFS_FMR_OWN_FREE);
	assert_int_equal(map_fsmap_classify(&r), 0);
	r = special(FMR_OWN_UNKNOWN);		/* allocated, no rmapbt: read it as data */
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_DATA);
	r = special(XFS_FMR_OWN_LOG);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_LOG);
	r = special(XFS_FMR_OWN_INODES);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_METADATA);
	r = special(XFS_FMR_OWN_FS);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_METADATA);
	r = special(XFS_FMR_OWN_AG);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_METADATA);
	r = special(XFS_FMR_OWN_INOBT);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_METADATA);
	r = special(XFS_FMR_OWN_REFC);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_METADATA);
	r = special(FMR_OWN_METADATA);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_METADATA);
	r = special(XFS_FMR_OWN_COW);		/* CoW staging: no committed data */
	assert_int_equal(map_fsmap_classify(&r), 0);
	r = special(XFS_FMR_OWN_DEFECTIVE);
	assert_int_equal(map_fsmap_classify(&r), 0);
	r = special(T_EXT4_OWN_GDT);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_METADATA);
	r = special(T_EXT4_OWN_BLKBM);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_METADATA);
}

static void test_classify_inode(void **state)
{
	struct fsmap r;

	(void)state;
	r = inode_rec(131, 0);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_DATA);
	r = inode_rec(131, FMR_OF_SHARED);		/* reflinked data is data */
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_DATA);
	r = inode_rec(131, FMR_OF_PREALLOC);		/* unwritten: nothing to read */
	assert_int_equal(map_fsmap_classify(&r), 0);
	r = inode_rec(131, FMR_OF_PREALLOC | FMR_OF_LAST);
	assert_int_equal(map_fsmap_classify(&r), 0);
	r = inode_rec(131, FMR_OF_ATTR_FORK);		/* attribute blocks hold data */
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_DATA);
	r = inode_rec(131, FMR_OF_EXTENT_MAP);		/* bmbt block */
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_METADATA);
	r = inode_rec(131, FMR_OF_EXTENT_MAP | FMR_OF_ATTR_FORK);	/* attr fork bmbt */
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_METADATA);
	r = inode_rec(131, FMR_OF_LAST);
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_DATA);
}

static void name_is(uint64_t owner, const char *want)
{
	struct fsmap r = special(owner);

	assert_string_equal(map_fsmap_special_name(&r), want);
}

static void test_special_name(void **state)
{
	struct fsmap r;

	(void)state;
	name_is(FMR_OWN_FREE, "free");
	name_is(FMR_OWN_UNKNOWN, "unknown");
	name_is(FMR_OWN_METADATA, "metadata");
	name_is(XFS_FMR_OWN_FS, "fs-headers");
	name_is(XFS_FMR_OWN_LOG, "log");
	name_is(XFS_FMR_OWN_AG, "ag-btrees");
	name_is(XFS_FMR_OWN_INOBT, "inobt");
	name_is(XFS_FMR_OWN_INODES, "inodes");
	name_is(XFS_FMR_OWN_REFC, "refcountbt");
	name_is(XFS_FMR_OWN_COW, "cow-staging");
	name_is(XFS_FMR_OWN_DEFECTIVE, "defective");
	name_is(T_EXT4_OWN_GDT, "group-descriptors");
	name_is(T_EXT4_OWN_RESV_GDT, "reserved-gdt");
	name_is(T_EXT4_OWN_BLKBM, "block-bitmap");
	name_is(T_EXT4_OWN_INOBM, "inode-bitmap");
	name_is(FMR_OWNER('X', 99), "metadata");	/* unknown code: still metadata */

	/* An inode owner has no special name, whatever its flags. */
	r = inode_rec(131, 0);
	assert_null(map_fsmap_special_name(&r));
	r = inode_rec(131, FMR_OF_EXTENT_MAP | FMR_OF_ATTR_FORK | FMR_OF_SHARED);
	assert_null(map_fsmap_special_name(&r));
	/* The owner number alone does not make a special owner: the flag does. */
	r = inode_rec(FMR_OWN_FREE, 0);
	assert_null(map_fsmap_special_name(&r));
	assert_int_equal(map_fsmap_classify(&r), MAP_TAG_DATA);
}

static void test_keys(void **state)
{
	struct fsmap_head head;

	(void)state;
	memset(&head, 0xa5, sizeof(head));
	assert_int_equal(map_fsmap_keys(&head, 0x703, 4096, 1048575), 0);
	assert_int_equal(head.fmh_iflags, 0);
	assert_int_equal(head.fmh_oflags, 0);
	assert_int_equal(head.fmh_entries, 0);
	assert_int_equal(head.fmh_keys[0].fmr_device, 0x703);
	assert_int_equal(head.fmh_keys[0].fmr_physical, 4096);
	assert_int_equal(head.fmh_keys[0].fmr_owner, 0);
	assert_int_equal(head.fmh_keys[0].fmr_offset, 0);
	assert_int_equal(head.fmh_keys[0].fmr_length, 0);
	assert_int_equal(head.fmh_keys[0].fmr_flags, 0);
	assert_int_equal(head.fmh_keys[1].fmr_device, 0x703);
	assert_int_equal(head.fmh_keys[1].fmr_physical, 1048575);
	assert_int_equal(head.fmh_keys[1].fmr_owner, UINT64_MAX);
	assert_int_equal(head.fmh_keys[1].fmr_offset, UINT64_MAX);
	assert_int_equal(head.fmh_keys[1].fmr_flags, UINT32_MAX);
	assert_int_equal(head.fmh_keys[1].fmr_length, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_special),
		cmocka_unit_test(test_classify_inode),
		cmocka_unit_test(test_special_name),
		cmocka_unit_test(test_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
