/*
 * tests/unit/test_plan.c - mapping/plan/plan.c's streaming plan over a mocked GETFSMAP
 * (kio_getfsmap wrapped): which records become ranges, batches stitched across ioctl
 * calls and across map_plan_next calls, resume offsets, counting, whole devices.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <cmocka.h>
#include <xfs/xfs.h>

#include "fake_fsmap.h"
#include "kio.h"
#include "plan.h"
#include "fs.h"
#include "target.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

static uint32_t DEV0, DEV1;

static struct map_target T;

static void target_one(enum map_role role, uint64_t size)
{
	memset(&T, 0, sizeof(T));
	snprintf(T.fs_type, sizeof(T.fs_type), "xfs");
	T.ops = &map_fs_xfs;
	T.xfs.has_rmapbt = 1;		/* every allocated byte has a record: no gap filling */
	T.mount_fd = MOCK_FD;
	T.nr_devices = 1;
	T.devices[0].role = role;
	T.devices[0].fd = -1;
	T.devices[0].info.devt = makedev(7, 3);
	T.devices[0].info.logical_block_size = 512;
	T.devices[0].info.physical_block_size = 4096;
	T.devices[0].info.size_bytes = size;
	T.devices[0].info.rotational = 0;
}

static void opts_init(struct map_plan_opts *o, uint64_t gap)
{
	memset(o, 0, sizeof(*o));
	o->merge_gap = gap;
}

/* Pull the whole plan, max ranges per map_plan_next call. */
static unsigned plan_all(const struct map_plan_opts *o, unsigned max, struct map_range *out,
			 unsigned cap)
{
	struct map_plan *p = NULL;
	struct map_range *batch = calloc(max, sizeof(*batch));
	unsigned n = 0;
	int ret;

	assert_non_null(batch);
	assert_int_equal(map_plan_open(&T, o, &p), 0);
	while ((ret = map_plan_next(p, batch, max)) > 0) {
		assert_true((unsigned)ret <= max);
		for (int i = 0; i < ret; i++) {
			assert_true(n < cap);
			out[n++] = batch[i];
		}
	}
	assert_int_equal(ret, 0);
	/* At the end it stays at the end. */
	assert_int_equal(map_plan_next(p, batch, max), 0);
	map_plan_close(p);
	free(batch);
	return n;
}

static void range_is(const struct map_range *r, uint32_t dev, uint64_t off, uint64_t len,
		     uint32_t tags, uint32_t nr_gaps)
{
	assert_int_equal(r->dev_idx, dev);
	assert_int_equal(r->offset, off);
	assert_int_equal(r->length, len);
	assert_int_equal(r->tags, tags);
	assert_int_equal(r->nr_gaps, nr_gaps);
}

/*
 * A small XFS data device: headers, btrees, inodes, free space, a file, a preallocated
 * extent, another file, the log, a bmbt block, CoW staging, an attribute fork block.
 */
static void fs_small(void)
{
	mock_special(DEV0, 0, 4 * KiB, XFS_FMR_OWN_FS);
	mock_special(DEV0, 4 * KiB, 8 * KiB, XFS_FMR_OWN_AG);
	mock_special(DEV0, 12 * KiB, 64 * KiB, XFS_FMR_OWN_INODES);
	mock_special(DEV0, 76 * KiB, 1 * MiB - 76 * KiB, XFS_FMR_OWN_FREE);
	mock_add(DEV0, 1 * MiB, 64 * KiB, 131, 0, 0);
	mock_add(DEV0, 1 * MiB + 64 * KiB, 64 * KiB, 132, 0, FMR_OF_PREALLOC);
	mock_add(DEV0, 1 * MiB + 128 * KiB, 64 * KiB, 133, 1 * MiB, 0);
	mock_special(DEV0, 1 * MiB + 192 * KiB, 832 * KiB, XFS_FMR_OWN_FREE);
	mock_special(DEV0, 2 * MiB, 256 * KiB, XFS_FMR_OWN_LOG);
	mock_add(DEV0, 4 * MiB, 4 * KiB, 134, 0, FMR_OF_EXTENT_MAP);
	mock_special(DEV0, 5 * MiB, 64 * KiB, XFS_FMR_OWN_COW);
	mock_add(DEV0, 6 * MiB, 4 * KiB, 135, 0, FMR_OF_ATTR_FORK);
	mock_special(DEV0, 6 * MiB + 4 * KiB, 1024 * MiB - 6 * MiB - 4 * KiB, XFS_FMR_OWN_FREE);
}

/* The plan of fs_small with merge_gap 0. */
static void check_small_gap0(const struct map_range *r, unsigned n)
{
	assert_int_equal(n, 6);
	range_is(&r[0], 0, 0, 76 * KiB, MAP_TAG_METADATA, 0);
	range_is(&r[1], 0, 1 * MiB, 64 * KiB, MAP_TAG_DATA, 0);
	range_is(&r[2], 0, 1 * MiB + 128 * KiB, 64 * KiB, MAP_TAG_DATA, 0);
	range_is(&r[3], 0, 2 * MiB, 256 * KiB, MAP_TAG_LOG, 0);
	range_is(&r[4], 0, 4 * MiB, 4 * KiB, MAP_TAG_METADATA, 0);
	range_is(&r[5], 0, 6 * MiB, 4 * KiB, MAP_TAG_DATA, 0);
}

static int setup(void **state)
{
	(void)state;
	DEV0 = (uint32_t)makedev(7, 3);
	DEV1 = (uint32_t)makedev(7, 4);
	mock_reset();
	target_one(MAP_ROLE_DATA, 1024 * MiB);
	return 0;
}

static void test_free_prealloc_skipped(void **state)
{
	struct map_plan_opts o;
	struct map_range r[16];
	unsigned n;

	(void)state;
	fs_small();
	opts_init(&o, 0);
	n = plan_all(&o, 64, r, 16);
	check_small_gap0(r, n);
	/* One batch of 1024 records answers everything; FMR_OF_LAST ends the query. */
	assert_int_equal(mk.calls, 1);
	assert_int_equal(mk.first_keys[0].fmr_device, DEV0);
	assert_int_equal(mk.first_keys[0].fmr_physical, 0);
	assert_int_equal(mk.first_keys[1].fmr_device, DEV0);
	assert_int_equal(mk.first_keys[1].fmr_physical, UINT64_MAX);
	assert_int_equal(mk.first_keys[1].fmr_owner, UINT64_MAX);
	assert_int_equal(mk.first_keys[1].fmr_offset, UINT64_MAX);
}

static void test_gap_bridges_prealloc(void **state)
{
	struct map_plan_opts o;
	struct map_range r[16];
	unsigned n;

	(void)state;
	fs_small();
	opts_init(&o, 64 * KiB);
	n = plan_all(&o, 64, r, 16);
	assert_int_equal(n, 5);
	range_is(&r[0], 0, 0, 76 * KiB, MAP_TAG_METADATA, 0);
	/* The unwritten extent between two files is read to bridge, but not planned. */
	range_is(&r[1], 0, 1 * MiB, 192 * KiB, MAP_TAG_DATA, 1);
	assert_int_equal(r[1].gaps[0].offset, 1 * MiB + 64 * KiB);
	assert_int_equal(r[1].gaps[0].length, 64 * KiB);
	assert_int_equal(map_range_planned_bytes(&r[1]), 128 * KiB);
	range_is(&r[2], 0, 2 * MiB, 256 * KiB, MAP_TAG_LOG, 0);
	range_is(&r[3], 0, 4 * MiB, 4 * KiB, MAP_TAG_METADATA, 0);
	range_is(&r[4], 0, 6 * MiB, 4 * KiB, MAP_TAG_DATA, 0);
}

static void test_batches_stitched(void **state)
{
	struct map_plan_opts o;
	struct map_range r[16];
	unsigned n;

	(void)state;
	fs_small();
	opts_init(&o, 0);
	/* Two records per ioctl: the three metadata records merge across a call boundary. */
	mk.per_call = 2;
	n = plan_all(&o, 64, r, 16);
	check_small_gap0(r, n);
	assert_int_equal(mk.calls, 7);		/* 13 records, 2 at a time, LAST on the 7th */

	/* One range per map_plan_next call: the state carries across calls. */
	mock_reset();
	fs_small();
	mk.per_call = 2;
	n = plan_all(&o, 1, r, 16);
	check_small_gap0(r, n);
	assert_int_equal(mk.calls, 7);

	/* One record per ioctl, one range per call. */
	mock_reset();
	fs_small();
	mk.per_call = 1;
	n = plan_all(&o, 1, r, 16);
	check_small_gap0(r, n);
	assert_int_equal(mk.calls, 13);
}

static void test_end_without_last_flag(void **state)
{
	struct map_plan_opts o;
	struct map_range r[16];
	unsigned n;

	(void)state;
	fs_small();
	opts_init(&o, 0);
	mk.per_call = 5;
	mk.never_last = 1;		/* the query ends with an empty answer instead */
	n = plan_all(&o, 64, r, 16);
	check_small_gap0(r, n);
	assert_int_equal(mk.calls, 4);		/* 5 + 5 + 3 + empty */
}

static void test_many_records_fmh_count(void **state)
{
	struct map_plan_opts o;
	static struct map_range r[400];
	unsigned n, want_calls;

	(void)state;
	/* 3000 records of 4K: nine data records, then one free, again and again. */
	for (unsigned i = 0; i < 3000; i++) {
		if (i % 10 == 9)
			mock_special(DEV0, i * 4 * KiB, 4 * KiB, XFS_FMR_OWN_FREE);
		else
			mock_add(DEV0, i * 4 * KiB, 4 * KiB, 1000 + i / 10, (i % 10) * 4 * KiB, 0);
	}
	opts_init(&o, 0);
	n = plan_all(&o, 7, r, 400);
	assert_int_equal(n, 300);
	for (unsigned i = 0; i < n; i++)
		range_is(&r[i], 0, i * 40 * KiB, 36 * KiB, MAP_TAG_DATA, 0);
	/* Every call answered a full fmh_count until the last. */
	assert_true(mk.max_count > 0);
	want_calls = (3000 + mk.max_count - 1) / mk.max_count;
	assert_int_equal(mk.calls, want_calls);
}

static void test_resume_skips_and_trims(void **state)
{
	struct map_plan_opts o;
	struct map_range r[16];
	uint64_t bytes = 0, count = 0;
	unsigned n;

	(void)state;
	for (int sloppy = 0; sloppy <= 1; sloppy++) {
		mock_reset();
		fs_small();
		mk.per_call = 3;
		mk.sloppy_low = sloppy;		/* also when records before the key come back */
		opts_init(&o, 0);
		o.start_offset[0] = 1 * MiB + 32 * KiB;		/* inside file 131's extent */
		n = plan_all(&o, 64, r, 16);
		assert_int_equal(mk.first_keys[0].fmr_physical, 1 * MiB + 32 * KiB);
		assert_int_equal(n, 5);
		range_is(&r[0], 0, 1 * MiB + 32 * KiB, 32 * KiB, MAP_TAG_DATA, 0);
		range_is(&r[1], 0, 1 * MiB + 128 * KiB, 64 * KiB, MAP_TAG_DATA, 0);
		range_is(&r[2], 0, 2 * MiB, 256 * KiB, MAP_TAG_LOG, 0);
		range_is(&r[3], 0, 4 * MiB, 4 * KiB, MAP_TAG_METADATA, 0);
		range_is(&r[4], 0, 6 * MiB, 4 * KiB, MAP_TAG_DATA, 0);
		assert_int_equal(map_plan_count(&T, &o, &bytes, &count), 0);
		assert_int_equal(bytes, 32 * KiB + 64 * KiB + 256 * KiB + 4 * KiB + 4 * KiB);
		assert_int_equal(count, 5);
	}

	/* A resume offset that is not block aligned rounds down to the block. */
	mock_reset();
	fs_small();
	opts_init(&o, 0);
	o.start_offset[0] = 2 * MiB + 100 * KiB + 100;
	n = plan_all(&o, 64, r, 16);
	assert_int_equal(n, 3);
	range_is(&r[0], 0, 2 * MiB + 100 * KiB, 156 * KiB, MAP_TAG_LOG, 0);
	range_is(&r[1], 0, 4 * MiB, 4 * KiB, MAP_TAG_METADATA, 0);
	range_is(&r[2], 0, 6 * MiB, 4 * KiB, MAP_TAG_DATA, 0);

	/* Past the last written byte: nothing left. */
	mock_reset();
	fs_small();
	opts_init(&o, 0);
	o.start_offset[0] = 7 * MiB;
	n = plan_all(&o, 64, r, 16);
	assert_int_equal(n, 0);
}

static void test_count(void **state)
{
	struct map_plan_opts o;
	uint64_t bytes = 1, count = 1;

	(void)state;
	fs_small();
	mk.per_call = 4;
	opts_init(&o, 0);
	assert_int_equal(map_plan_count(&T, &o, &bytes, &count), 0);
	assert_int_equal(bytes, 76 * KiB + 64 * KiB + 64 * KiB + 256 * KiB + 4 * KiB + 4 * KiB);
	assert_int_equal(count, 6);
	assert_int_equal(mk.calls, 4);

	/* Bridged gaps are read but not counted. */
	opts_init(&o, 64 * KiB);
	assert_int_equal(map_plan_count(&T, &o, &bytes, &count), 0);
	assert_int_equal(bytes, 76 * KiB + 128 * KiB + 256 * KiB + 4 * KiB + 4 * KiB);
	assert_int_equal(count, 5);
	/* nr_ranges may be NULL. */
	assert_int_equal(map_plan_count(&T, &o, &bytes, NULL), 0);
	assert_int_equal(bytes, 76 * KiB + 128 * KiB + 256 * KiB + 4 * KiB + 4 * KiB);
}

static void test_getfsmap_error(void **state)
{
	struct map_plan_opts o;
	struct map_plan *p = NULL;
	struct map_range r[4];
	uint64_t bytes = 12345, count = 678;

	(void)state;
	fs_small();
	mk.fail = -EOPNOTSUPP;
	opts_init(&o, 0);
	assert_int_equal(map_plan_open(&T, &o, &p), 0);
	assert_int_equal(map_plan_next(p, r, 4), -EOPNOTSUPP);
	map_plan_close(p);
	assert_int_equal(map_plan_count(&T, &o, &bytes, &count), -EOPNOTSUPP);
	assert_int_equal(bytes, 12345);			/* untouched on failure */
	assert_int_equal(count, 678);
}

/*
 * A corrupted filesystem: the space map of one AG cannot be read (GETFSMAP fails with EUCLEAN as soon as a
 * call reaches it): the plan lists the AGs one by one from there, reads the failing one whole
 * from the geometry, records a note, and plans the others from their records.
 */
static void test_corrupt_group_read_whole(void **state)
{
	struct map_plan_opts o;
	struct map_range r[16];
	uint64_t bytes = 0, count = 0;
	unsigned n;

	(void)state;
	T.fs_group_bytes = 1 * MiB;
	T.fs_size_bytes = 4 * MiB;
	for (int ag = 0; ag < 4; ag++) {
		mock_special(DEV0, ag * MiB, 64 * KiB, XFS_FMR_OWN_AG);
		mock_add(DEV0, ag * MiB + 128 * KiB, 64 * KiB, 131 + ag, 0, 0);
		mock_special(DEV0, ag * MiB + 192 * KiB, 832 * KiB, XFS_FMR_OWN_FREE);
	}
	mk.bad_start = 1 * MiB;
	mk.bad_end = 2 * MiB;
	mk.bad_err = -EUCLEAN;
	mk.per_call = 2;			/* the error comes after some records were read */
	opts_init(&o, 0);
	n = plan_all(&o, 3, r, 16);
	assert_int_equal(n, 6);
	assert_int_equal(r[0].offset, 0);
	assert_int_equal(r[0].length, 64 * KiB);
	assert_int_equal(r[1].offset, 128 * KiB);
	/* AG 1 whole, touching AG 2's headers: one range */
	assert_int_equal(r[2].offset, 1 * MiB);
	assert_int_equal(r[2].length, 1 * MiB + 64 * KiB);
	assert_true(r[2].tags & MAP_TAG_WHOLE);
	assert_int_equal(r[3].offset, 2 * MiB + 128 * KiB);
	assert_int_equal(r[5].offset, 3 * MiB + 128 * KiB);
	assert_int_equal(r[5].length, 64 * KiB);
	assert_int_equal(T.nr_plan_notes, 1);
	assert_int_equal(T.plan_notes[0].group, 1);
	assert_int_equal(T.plan_notes[0].offset, 1 * MiB);
	assert_int_equal(T.plan_notes[0].length, 1 * MiB);
	assert_int_equal(T.plan_notes[0].err, -EUCLEAN);
	assert_string_equal(T.plan_notes[0].object, "AG 1");
	/* The counting pass agrees and does not repeat the note. */
	assert_int_equal(map_plan_count(&T, &o, &bytes, &count), 0);
	assert_int_equal(bytes, 1 * MiB + 6 * 64 * KiB);
	assert_int_equal(count, 6);
	assert_int_equal(T.nr_plan_notes, 1);
	free(T.plan_notes);
	T.plan_notes = NULL;
	T.nr_plan_notes = 0;
}

/* Other errors still stop the plan. */
static void test_corrupt_group_other_error(void **state)
{
	struct map_plan_opts o;
	uint64_t bytes = 0;

	(void)state;
	T.fs_group_bytes = 1 * MiB;
	T.fs_size_bytes = 4 * MiB;
	mock_add(DEV0, 1 * MiB + 128 * KiB, 64 * KiB, 131, 0, 0);
	mk.bad_start = 1 * MiB;
	mk.bad_end = 2 * MiB;
	mk.bad_err = -EPERM;
	opts_init(&o, 0);
	assert_int_equal(map_plan_count(&T, &o, &bytes, NULL), -EPERM);
	assert_int_equal(T.nr_plan_notes, 0);
}

static void test_default_gap(void **state)
{
	struct map_plan_opts o;
	struct map_range r[16];
	unsigned n;

	(void)state;
	fs_small();
	opts_init(&o, (uint64_t)-1);
	/* Solid state: default gap 0, same plan as merge_gap 0. */
	T.devices[0].info.rotational = 0;
	n = plan_all(&o, 64, r, 16);
	check_small_gap0(r, n);
	/* Spinning disk: a non-zero default bridges the 64K unwritten extent. */
	T.devices[0].info.rotational = 1;
	n = plan_all(&o, 64, r, 16);
	assert_int_equal(n, 5);
	range_is(&r[1], 0, 1 * MiB, 192 * KiB, MAP_TAG_DATA, 1);
}

/* Data device 7:3 plus an external log on 7:4 (DEV1), otherwise alike. */
static void add_log_device(void)
{
	T.nr_devices = 2;
	T.devices[1] = T.devices[0];
	T.devices[1].role = MAP_ROLE_LOG;
	T.devices[1].info.devt = makedev(7, 4);
}

static void test_two_devices(void **state)
{
	struct map_plan_opts o;
	struct map_range r[16];
	unsigned n;

	(void)state;
	add_log_device();
	T.devices[1].info.logical_block_size = 4096;
	mock_add(DEV0, 1 * MiB, 64 * KiB, 131, 0, 0);
	mock_special(DEV0, 1 * MiB + 64 * KiB, 1 * MiB, XFS_FMR_OWN_FREE);
	mock_special(DEV1, 0, 1000, XFS_FMR_OWN_LOG);	/* aligned up to 4K */
	mock_special(DEV1, 8 * KiB, 8 * KiB, XFS_FMR_OWN_LOG);
	opts_init(&o, 0);
	o.start_offset[1] = 0;
	n = plan_all(&o, 64, r, 16);
	assert_int_equal(n, 3);
	range_is(&r[0], 0, 1 * MiB, 64 * KiB, MAP_TAG_DATA, 0);
	range_is(&r[1], 1, 0, 4 * KiB, MAP_TAG_LOG, 0);
	range_is(&r[2], 1, 8 * KiB, 8 * KiB, MAP_TAG_LOG, 0);
	assert_int_equal(mk.calls, 2);			/* one query per device */
	assert_int_equal(mk.first_keys[0].fmr_device, DEV1);
}

/* A record reaching past the end of its device (ext4's external journal on a journal_dev is
 * reported one block too long) is planned only up to the end. */
static void test_clipped_at_device_end(void **state)
{
	struct map_plan_opts o;
	struct map_range r[16];
	unsigned n;

	(void)state;
	add_log_device();
	T.devices[1].info.size_bytes = 100 * MiB;
	mock_add(DEV0, 1 * MiB, 64 * KiB, 131, 0, 0);
	mock_special(DEV1, 4 * KiB, 100 * MiB, XFS_FMR_OWN_LOG);
	opts_init(&o, 0);
	n = plan_all(&o, 64, r, 16);
	assert_int_equal(n, 2);
	range_is(&r[1], 1, 4 * KiB, 100 * MiB - 4 * KiB, MAP_TAG_LOG, 0);
}

static void test_whole_device(void **state)
{
	struct map_plan_opts o;
	struct map_range r[4];
	uint64_t bytes = 0, count = 0;
	unsigned n;

	(void)state;
	target_one(MAP_ROLE_WHOLE, 10 * MiB);
	opts_init(&o, 0);
	n = plan_all(&o, 4, r, 4);
	assert_int_equal(n, 1);
	range_is(&r[0], 0, 0, 10 * MiB, MAP_TAG_WHOLE, 0);
	assert_int_equal(mk.calls, 0);			/* no GETFSMAP for a bare device */
	assert_int_equal(map_plan_count(&T, &o, &bytes, &count), 0);
	assert_int_equal(bytes, 10 * MiB);
	assert_int_equal(count, 1);

	/* A size that is not a whole number of blocks: the partial block is left out. */
	T.devices[0].info.size_bytes = 10 * MiB + 100;
	n = plan_all(&o, 4, r, 4);
	assert_int_equal(n, 1);
	range_is(&r[0], 0, 0, 10 * MiB, MAP_TAG_WHOLE, 0);

	/* Resume in the middle (unaligned: rounded down to the block). */
	T.devices[0].info.size_bytes = 10 * MiB;
	o.start_offset[0] = 1 * MiB + 100;
	n = plan_all(&o, 4, r, 4);
	assert_int_equal(n, 1);
	range_is(&r[0], 0, 1 * MiB, 9 * MiB, MAP_TAG_WHOLE, 0);

	/* Resume at the end: nothing. */
	o.start_offset[0] = 10 * MiB;
	n = plan_all(&o, 4, r, 4);
	assert_int_equal(n, 0);
	assert_int_equal(mk.calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_free_prealloc_skipped, setup),
		cmocka_unit_test_setup(test_gap_bridges_prealloc, setup),
		cmocka_unit_test_setup(test_batches_stitched, setup),
		cmocka_unit_test_setup(test_end_without_last_flag, setup),
		cmocka_unit_test_setup(test_many_records_fmh_count, setup),
		cmocka_unit_test_setup(test_resume_skips_and_trims, setup),
		cmocka_unit_test_setup(test_count, setup),
		cmocka_unit_test_setup(test_getfsmap_error, setup),
		cmocka_unit_test_setup(test_default_gap, setup),
		cmocka_unit_test_setup(test_two_devices, setup),
		cmocka_unit_test_setup(test_clipped_at_device_end, setup),
		cmocka_unit_test_setup(test_whole_device, setup),
		cmocka_unit_test_setup(test_corrupt_group_read_whole, setup),
		cmocka_unit_test_setup(test_corrupt_group_other_error, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
