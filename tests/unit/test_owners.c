/*
 * tests/unit/test_owners.c - mapping/owners/owners.c and mapping/damage/damage.c over a mocked GETFSMAP
 * (kio_getfsmap wrapped): who owns a bad device range (files with their file offsets,
 * reflinked pairs, metadata, the log, free space), clipping, allocation groups; then the
 * grouping of owners into damaged files and damaged metadata (no directory walk). Only cases
 * here (the mocked GETFSMAP is fake_fsmap.c), kept in one file: they share its one fixture.
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

#include "damage.h"
#include "fake_fsmap.h"
#include "fs.h"
#include "kio.h"
#include "owners.h"
#include "parts.h"
#include "target.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

/* XFS geometry: 4K blocks, 1000 blocks per AG, so an AG is 4096000 bytes. */
#define BS 4096u
#define AGBLOCKS 1000u
#define AG_BYTES ((uint64_t)BS * AGBLOCKS)

/* Layout of the fake filesystem (bytes on the data device). */
#define INO_CHUNK	(1 * AG_BYTES)			/* AG 1: inode chunk, 64K */
#define F131		(2 * AG_BYTES)			/* AG 2: file 131, 256K at file 1M */
#define SHARED		(F131 + 256 * KiB)		/* 132 at 0 and 133 at 4M, 64K shared */
#define AGB_END		(3 * AG_BYTES)			/* inodes on both sides of AG 2 | AG 3 */
#define LOG_START	(3 * AG_BYTES + 1 * MiB)	/* internal log, 1M */
#define MISC		(4 * AG_BYTES)			/* bmbt 140, attr 141, prealloc 142 */
#define UNKNOWN		(5 * AG_BYTES)

static uint32_t DEV0, DEV1;

/* Health and scrub queries of damage resolve: this fake XFS answers none of them. */
int __wrap_kio_xfs_scrub_metadata(int fd, struct xfs_scrub_metadata *sm);
int __wrap_kio_xfs_bulkstat_one(int fd, uint64_t ino, struct kio_xfs_inode *out);
int __wrap_kio_xfs_stat_one(int fd, uint64_t ino, struct kio_xfs_inode *out);
int __wrap_kio_xfs_ag_geometry(int fd, uint32_t agno, struct xfs_ag_geometry *ag);
int __wrap_kio_xfs_geometry_ext(int fd, struct kio_xfs_geom_ext *g);

int __wrap_kio_xfs_scrub_metadata(int fd, struct xfs_scrub_metadata *sm)
{
	(void)fd;
	(void)sm;
	return -ENOTTY;
}

int __wrap_kio_xfs_bulkstat_one(int fd, uint64_t ino, struct kio_xfs_inode *out)
{
	(void)fd;
	(void)ino;
	(void)out;
	return -ENOTTY;
}

/* The cheaper single-inode stat answers as bulkstat does here. */
int __wrap_kio_xfs_stat_one(int fd, uint64_t ino, struct kio_xfs_inode *out)
{
	return __wrap_kio_xfs_bulkstat_one(fd, ino, out);
}

int __wrap_kio_xfs_ag_geometry(int fd, uint32_t agno, struct xfs_ag_geometry *ag)
{
	(void)fd;
	(void)agno;
	(void)ag;
	return -ENOTTY;
}

int __wrap_kio_xfs_geometry_ext(int fd, struct kio_xfs_geom_ext *g)
{
	(void)fd;
	(void)g;
	return -ENOTTY;
}

static struct map_target T;

static void fs_build(void)
{
	uint64_t f = 0;

	mock_reset();
	mock_special(DEV0, 0, 64 * KiB, XFS_FMR_OWN_FS);
	f = 64 * KiB;
	mock_special(DEV0, f, INO_CHUNK - f, XFS_FMR_OWN_FREE);
	mock_special(DEV0, INO_CHUNK, 64 * KiB, XFS_FMR_OWN_INODES);
	mock_special(DEV0, INO_CHUNK + 64 * KiB, 8 * KiB, XFS_FMR_OWN_AG);
	f = INO_CHUNK + 72 * KiB;
	mock_special(DEV0, f, F131 - f, XFS_FMR_OWN_FREE);
	mock_add(DEV0, F131, 256 * KiB, 131, 1 * MiB, 0);
	/* Reflink: two files share the same 64K; same physical, ordered by owner. */
	mock_add(DEV0, SHARED, 64 * KiB, 132, 0, FMR_OF_SHARED);
	mock_add(DEV0, SHARED, 64 * KiB, 133, 4 * MiB, FMR_OF_SHARED);
	f = SHARED + 64 * KiB;
	mock_special(DEV0, f, AGB_END - 8 * KiB - f, XFS_FMR_OWN_FREE);
	mock_special(DEV0, AGB_END - 8 * KiB, 8 * KiB, XFS_FMR_OWN_INODES);	/* AG 2 */
	mock_special(DEV0, AGB_END, 8 * KiB, XFS_FMR_OWN_INODES);		/* AG 3 */
	f = AGB_END + 8 * KiB;
	mock_special(DEV0, f, LOG_START - f, XFS_FMR_OWN_FREE);
	mock_special(DEV0, LOG_START, 1 * MiB, XFS_FMR_OWN_LOG);
	f = LOG_START + 1 * MiB;
	mock_special(DEV0, f, MISC - f, XFS_FMR_OWN_FREE);
	mock_add(DEV0, MISC, 4 * KiB, 140, 0, FMR_OF_EXTENT_MAP);
	mock_add(DEV0, MISC + 4 * KiB, 4 * KiB, 141, 0, FMR_OF_ATTR_FORK);
	mock_add(DEV0, MISC + 8 * KiB, 16 * KiB, 142, 64 * KiB, FMR_OF_PREALLOC);
	f = MISC + 24 * KiB;
	mock_special(DEV0, f, UNKNOWN - f, XFS_FMR_OWN_FREE);
	mock_special(DEV0, UNKNOWN, 4 * KiB, FMR_OWN_UNKNOWN);
	/* An external log device. */
	mock_special(DEV1, 0, 8 * MiB, XFS_FMR_OWN_LOG);
}

static int setup(void **state)
{
	(void)state;
	DEV0 = (uint32_t)makedev(7, 3);
	DEV1 = (uint32_t)makedev(7, 4);
	map_fsx_free(&T);			/* what the previous test's resolve kept */
	memset(&T, 0, sizeof(T));
	snprintf(T.fs_type, sizeof(T.fs_type), "xfs");
	T.ops = &map_fs_xfs;
	T.mount_fd = MOCK_FD;
	T.mount_point[0] = '\0';		/* no directory walk */
	T.xfs.blocksize = BS;
	T.xfs.agblocks = AGBLOCKS;
	T.xfs.agcount = 6;
	T.xfs.has_rmapbt = 1;
	T.xfs.has_reflink = 1;
	T.nr_devices = 2;
	T.devices[0].role = MAP_ROLE_DATA;
	T.devices[0].fd = -1;
	T.devices[0].info.devt = makedev(7, 3);
	T.devices[0].info.logical_block_size = 512;
	T.devices[0].info.size_bytes = 6 * AG_BYTES;
	T.devices[1].role = MAP_ROLE_LOG;
	T.devices[1].fd = -1;
	T.devices[1].info.devt = makedev(7, 4);
	T.devices[1].info.logical_block_size = 512;
	T.devices[1].info.size_bytes = 8 * MiB;
	fs_build();
	return 0;
}

struct owners {
	struct map_owner *o;
	size_t nr;
};

static int lookup(struct owners *w, uint32_t dev_idx, uint64_t off, uint64_t len)
{
	return map_owners_lookup(&T, dev_idx, off, len, &w->o, &w->nr);
}

static void owner_is(const struct map_owner *o, enum map_owner_kind kind, uint32_t flags,
		     uint64_t dev_off, uint64_t len, uint64_t inode, uint64_t file_off,
		     const char *meta, int64_t ag)
{
	assert_int_equal(o->kind, kind);
	assert_int_equal(o->flags, flags);
	assert_int_equal(o->dev_idx, 0);
	assert_int_equal(o->dev_offset, dev_off);
	assert_int_equal(o->length, len);
	assert_int_equal(o->inode, inode);
	assert_int_equal(o->file_offset, file_off);
	if (meta)
		assert_string_equal(o->meta_type, meta);
	else
		assert_null(o->meta_type);
	assert_int_equal(o->ag, ag);
}

static void test_file_and_shared(void **state)
{
	struct owners w = { 0 };

	(void)state;
	/* 200K from 100K into file 131: 156K of it, then 44K of the shared extent. */
	assert_int_equal(lookup(&w, 0, F131 + 100 * KiB, 200 * KiB), 3);
	assert_int_equal(w.nr, 3);
	owner_is(&w.o[0], MAP_OWN_FILE, 0, F131 + 100 * KiB, 156 * KiB, 131,
		 1 * MiB + 100 * KiB, NULL, 2);
	owner_is(&w.o[1], MAP_OWN_FILE, MAP_OWNF_SHARED, SHARED, 44 * KiB, 132, 0, NULL, 2);
	owner_is(&w.o[2], MAP_OWN_FILE, MAP_OWNF_SHARED, SHARED, 44 * KiB, 133, 4 * MiB, NULL, 2);
	/* The query asked exactly for [start, end - 1] of the data device. */
	assert_int_equal(mk.first_keys[0].fmr_device, DEV0);
	assert_int_equal(mk.first_keys[0].fmr_physical, F131 + 100 * KiB);
	assert_int_equal(mk.first_keys[1].fmr_device, DEV0);
	assert_int_equal(mk.first_keys[1].fmr_physical, F131 + 300 * KiB - 1);

	/* One block in the middle of the shared extent: both owners at their own offsets. */
	assert_int_equal(lookup(&w, 0, SHARED + 20 * KiB, 512), 2);
	assert_int_equal(w.nr, 5);
	owner_is(&w.o[3], MAP_OWN_FILE, MAP_OWNF_SHARED, SHARED + 20 * KiB, 512, 132,
		 20 * KiB, NULL, 2);
	owner_is(&w.o[4], MAP_OWN_FILE, MAP_OWNF_SHARED, SHARED + 20 * KiB, 512, 133,
		 4 * MiB + 20 * KiB, NULL, 2);
	free(w.o);
}

static void test_metadata_log(void **state)
{
	struct owners w = { 0 };

	(void)state;
	/* Inode chunk and the AG btree block after it. */
	assert_int_equal(lookup(&w, 0, INO_CHUNK + 60 * KiB, 8 * KiB), 2);
	owner_is(&w.o[0], MAP_OWN_METADATA, 0, INO_CHUNK + 60 * KiB, 4 * KiB, 0, 0, "inodes", 1);
	owner_is(&w.o[1], MAP_OWN_METADATA, 0, INO_CHUNK + 64 * KiB, 4 * KiB, 0, 0,
		 "ag-btrees", 1);
	/* The internal log, in AG 3. */
	assert_int_equal(lookup(&w, 0, LOG_START + 512 * KiB, 4 * KiB), 1);
	owner_is(&w.o[2], MAP_OWN_LOG, 0, LOG_START + 512 * KiB, 4 * KiB, 0, 0, "log", 3);
	/* The superblock area of AG 0. */
	assert_int_equal(lookup(&w, 0, 0, 512), 1);
	owner_is(&w.o[3], MAP_OWN_METADATA, 0, 0, 512, 0, 0, "fs-headers", 0);
	/* Unknown owner (no rmapbt for it) and free space. */
	assert_int_equal(lookup(&w, 0, UNKNOWN - 4 * KiB, 8 * KiB), 2);
	owner_is(&w.o[4], MAP_OWN_FREE, 0, UNKNOWN - 4 * KiB, 4 * KiB, 0, 0, "free", 4);
	owner_is(&w.o[5], MAP_OWN_UNKNOWN, 0, UNKNOWN, 4 * KiB, 0, 0, "unknown", 5);
	free(w.o);
}

static void test_bmbt_attr_prealloc(void **state)
{
	struct owners w = { 0 };

	(void)state;
	assert_int_equal(lookup(&w, 0, MISC, 28 * KiB), 4);
	owner_is(&w.o[0], MAP_OWN_METADATA, MAP_OWNF_BMBT, MISC, 4 * KiB, 140, 0, "bmbt", 4);
	owner_is(&w.o[1], MAP_OWN_FILE, MAP_OWNF_ATTR_FORK, MISC + 4 * KiB, 4 * KiB, 141, 0,
		 NULL, 4);
	owner_is(&w.o[2], MAP_OWN_FILE, MAP_OWNF_UNWRITTEN, MISC + 8 * KiB, 16 * KiB, 142,
		 64 * KiB, NULL, 4);
	owner_is(&w.o[3], MAP_OWN_FREE, 0, MISC + 24 * KiB, 4 * KiB, 0, 0, "free", 4);
	free(w.o);
}

static void test_ag_boundary(void **state)
{
	struct owners w = { 0 };

	(void)state;
	assert_int_equal(lookup(&w, 0, AGB_END - 4 * KiB, 8 * KiB), 2);
	owner_is(&w.o[0], MAP_OWN_METADATA, 0, AGB_END - 4 * KiB, 4 * KiB, 0, 0, "inodes", 2);
	owner_is(&w.o[1], MAP_OWN_METADATA, 0, AGB_END, 4 * KiB, 0, 0, "inodes", 3);
	free(w.o);
}

static void test_batches(void **state)
{
	struct owners w = { 0 };

	(void)state;
	/* One record per ioctl: the lookup keeps asking until FMR_OF_LAST. */
	mk.per_call = 1;
	assert_int_equal(lookup(&w, 0, F131 + 100 * KiB, 200 * KiB), 3);
	assert_int_equal(mk.calls, 3);
	owner_is(&w.o[0], MAP_OWN_FILE, 0, F131 + 100 * KiB, 156 * KiB, 131,
		 1 * MiB + 100 * KiB, NULL, 2);
	owner_is(&w.o[2], MAP_OWN_FILE, MAP_OWNF_SHARED, SHARED, 44 * KiB, 133, 4 * MiB, NULL, 2);
	/* Many owners appended to one array: it grows and keeps the earlier ones. */
	for (unsigned i = 0; i < 40; i++)
		assert_int_equal(lookup(&w, 0, F131 + i * 4 * KiB, 4 * KiB), 1);
	assert_int_equal(w.nr, 43);
	for (unsigned i = 0; i < 40; i++)
		owner_is(&w.o[3 + i], MAP_OWN_FILE, 0, F131 + i * 4 * KiB, 4 * KiB, 131,
			 1 * MiB + i * 4 * KiB, NULL, 2);
	owner_is(&w.o[1], MAP_OWN_FILE, MAP_OWNF_SHARED, SHARED, 44 * KiB, 132, 0, NULL, 2);
	free(w.o);
}

static void test_log_device_and_whole(void **state)
{
	struct owners w = { 0 };

	(void)state;
	/* External log: no AG. */
	assert_int_equal(lookup(&w, 1, 1 * MiB, 4 * KiB), 1);
	assert_int_equal(w.o[0].kind, MAP_OWN_LOG);
	assert_int_equal(w.o[0].dev_idx, 1);
	assert_int_equal(w.o[0].dev_offset, 1 * MiB);
	assert_int_equal(w.o[0].length, 4 * KiB);
	assert_string_equal(w.o[0].meta_type, "log");
	assert_int_equal(w.o[0].ag, -1);
	assert_int_equal(mk.first_keys[0].fmr_device, DEV1);

	/* A bare device: the owner is the device, no GETFSMAP. */
	mk.calls = 0;
	T.devices[1].role = MAP_ROLE_WHOLE;
	assert_int_equal(lookup(&w, 1, 2 * MiB, 1 * KiB), 1);
	assert_int_equal(mk.calls, 0);
	assert_int_equal(w.o[1].kind, MAP_OWN_DEVICE);
	assert_int_equal(w.o[1].dev_idx, 1);
	assert_int_equal(w.o[1].dev_offset, 2 * MiB);
	assert_int_equal(w.o[1].length, 1 * KiB);
	assert_string_equal(w.o[1].meta_type, "device");
	assert_int_equal(w.o[1].ag, -1);

	/* No mount fd: same. */
	T.mount_fd = -1;
	assert_int_equal(lookup(&w, 0, F131, 4 * KiB), 1);
	assert_int_equal(mk.calls, 0);
	assert_int_equal(w.o[2].kind, MAP_OWN_DEVICE);
	assert_int_equal(w.o[2].dev_idx, 0);
	assert_int_equal(w.nr, 3);

	/* A zero-length range has no owners. */
	T.mount_fd = MOCK_FD;
	assert_int_equal(lookup(&w, 0, F131, 0), 0);
	assert_int_equal(w.nr, 3);
	free(w.o);
}

static void test_lookup_error(void **state)
{
	struct owners w = { 0 };

	(void)state;
	mk.fail = -EOPNOTSUPP;
	assert_int_equal(lookup(&w, 0, F131, 4 * KiB), -EOPNOTSUPP);
	assert_int_equal(w.nr, 0);
	free(w.o);
}

static void test_no_owner(void **state)
{
	struct owners w = { 0 };

	(void)state;
	/* Past every record: nothing owns it, nothing is appended. */
	assert_int_equal(lookup(&w, 0, 6 * AG_BYTES + 4 * KiB, 4 * KiB), 0);
	assert_int_equal(w.nr, 0);
	free(w.o);
}

/* Add a bad range to d (the real entry point, one range) and check how many owners it got. */
static void dmg_add(struct map_damage *d, uint64_t off, uint64_t len, size_t want)
{
	size_t first = 999, count = 999, before = d->nr_owners;

	assert_int_equal(map_damage_add_many(d, &T, 0, &off, &len, 1), 0);
	assert_int_equal(map_damage_group(d, d->nr_groups - 1, &first, &count), 0);
	assert_int_equal(first, before);
	assert_int_equal(count, want);
}

static void file_range_is(const struct map_file_range *r, uint64_t off, uint64_t len, int attr,
			  int lost)
{
	assert_int_equal(r->offset, off);
	assert_int_equal(r->length, len);
	assert_int_equal(r->attr_fork, attr);
	assert_int_equal(r->lost, lost);
}

static void meta_is(const struct map_damage_meta *m, const char *type, uint64_t off,
		    uint64_t len, int64_t ag, uint64_t inode)
{
	assert_string_equal(m->type, type);
	assert_int_equal(m->dev_idx, 0);
	assert_int_equal(m->offset, off);
	assert_int_equal(m->length, len);
	assert_int_equal(m->ag, ag);
	assert_int_equal(m->inode, inode);
}

static void test_damage_grouping(void **state)
{
	struct map_damage d;
	const struct map_damage_file *f;

	(void)state;
	memset(&d, 0, sizeof(d));
	/* Bad ranges in the order a scan finds them, and some out of order. */
	dmg_add(&d, F131 + 200 * KiB, 4 * KiB, 1);		/* 131 @ 1M+200K */
	dmg_add(&d, F131 + 100 * KiB, 8 * KiB, 1);		/* 131 @ 1M+100K, 8K */
	dmg_add(&d, F131 + 108 * KiB, 4 * KiB, 1);		/* adjacent: merged to 12K */
	dmg_add(&d, F131 + 104 * KiB, 2 * KiB, 1);		/* inside: no change */
	dmg_add(&d, SHARED + 8 * KiB, 4 * KiB, 2);		/* 132 and 133 */
	dmg_add(&d, INO_CHUNK + 8 * KiB, 4 * KiB, 1);		/* inodes */
	dmg_add(&d, INO_CHUNK + 12 * KiB, 4 * KiB, 1);		/* inodes, adjacent: merged */
	dmg_add(&d, INO_CHUNK + 64 * KiB, 4 * KiB, 1);		/* ag-btrees right after */
	dmg_add(&d, AGB_END - 4 * KiB, 8 * KiB, 2);		/* inodes in AG 2 and AG 3 */
	dmg_add(&d, LOG_START + 512 * KiB, 4 * KiB, 1);		/* log */
	dmg_add(&d, MISC, 4 * KiB, 1);				/* bmbt of 140 */
	dmg_add(&d, MISC + 4 * KiB, 4 * KiB, 1);		/* attr fork of 141 */
	dmg_add(&d, MISC + 8 * KiB, 4 * KiB, 1);		/* unwritten 142 @ 64K */
	dmg_add(&d, MISC + 16 * KiB, 4 * KiB, 1);		/* unwritten 142 @ 72K */
	dmg_add(&d, UNKNOWN - 4 * KiB, 4 * KiB, 1);		/* free: neither file nor meta */
	assert_int_equal(d.nr_owners, 17);

	assert_int_equal(map_damage_resolve(&d, &T), 0);
	assert_int_equal(d.paths_err, 0);

	/* Every owning inode (files and the bmbt's inode), sorted, with no paths found. */
	assert_int_equal(d.nr_inodes, 6);
	assert_int_equal(d.inodes[0].inode, 131);
	assert_int_equal(d.inodes[1].inode, 132);
	assert_int_equal(d.inodes[2].inode, 133);
	assert_int_equal(d.inodes[3].inode, 140);
	assert_int_equal(d.inodes[4].inode, 141);
	assert_int_equal(d.inodes[5].inode, 142);
	for (size_t i = 0; i < d.nr_inodes; i++)
		assert_int_equal(d.inodes[i].nr_paths, 0);
	assert_ptr_equal(map_damage_paths(&d, 140), &d.inodes[3]);
	assert_null(map_damage_paths(&d, 139));

	/* 140's block map is lost: it is a damaged file too (no data range, what is lost). */
	assert_int_equal(d.nr_files, 6);
	f = &d.files[0];
	assert_int_equal(f->inode, 131);
	assert_ptr_equal(f->paths, &d.inodes[0]);
	assert_int_equal(f->nr_ranges, 2);
	file_range_is(&f->ranges[0], 1 * MiB + 100 * KiB, 12 * KiB, 0, 1);
	file_range_is(&f->ranges[1], 1 * MiB + 200 * KiB, 4 * KiB, 0, 1);
	assert_int_equal(f->lost, 1);
	assert_int_equal(f->shared, 0);
	f = &d.files[1];
	assert_int_equal(f->inode, 132);
	assert_int_equal(f->nr_ranges, 1);
	file_range_is(&f->ranges[0], 8 * KiB, 4 * KiB, 0, 1);
	assert_int_equal(f->shared, 1);
	f = &d.files[2];
	assert_int_equal(f->inode, 133);
	assert_int_equal(f->nr_ranges, 1);
	file_range_is(&f->ranges[0], 4 * MiB + 8 * KiB, 4 * KiB, 0, 1);
	assert_int_equal(f->shared, 1);
	f = &d.files[3];
	assert_int_equal(f->inode, 140);
	assert_int_equal(f->nr_ranges, 0);
	assert_int_equal(f->lost, 1);
	assert_non_null(f->what_lost);
	assert_string_equal(f->what_lost, "extent map lost: part of the file's contents unreachable");
	f = &d.files[4];
	assert_int_equal(f->inode, 141);
	assert_int_equal(f->nr_ranges, 1);
	file_range_is(&f->ranges[0], 0, 4 * KiB, 1, 1);
	assert_int_equal(f->lost, 1);
	f = &d.files[5];
	assert_int_equal(f->inode, 142);
	assert_int_equal(f->nr_ranges, 2);		/* 64K and 72K: not adjacent */
	file_range_is(&f->ranges[0], 64 * KiB, 4 * KiB, 0, 0);
	file_range_is(&f->ranges[1], 72 * KiB, 4 * KiB, 0, 0);
	assert_int_equal(f->lost, 0);			/* unwritten: nothing lost */

	/* Metadata sorted by type then offset; adjacent pieces of one type (and AG) merged. */
	assert_int_equal(d.nr_meta, 6);
	meta_is(&d.meta[0], "ag-btrees", INO_CHUNK + 64 * KiB, 4 * KiB, 1, 0);
	meta_is(&d.meta[1], "bmbt", MISC, 4 * KiB, 4, 140);
	meta_is(&d.meta[2], "inodes", INO_CHUNK + 8 * KiB, 8 * KiB, 1, 0);
	meta_is(&d.meta[3], "inodes", AGB_END - 4 * KiB, 4 * KiB, 2, 0);
	meta_is(&d.meta[4], "inodes", AGB_END, 4 * KiB, 3, 0);
	meta_is(&d.meta[5], "log", LOG_START + 512 * KiB, 4 * KiB, 3, 0);

	assert_int_equal(map_damage_free(&d), 0);
	assert_null(d.owners);
	assert_int_equal(d.nr_files, 0);
}

static void test_damage_file_forks(void **state)
{
	struct map_damage d;
	const struct map_damage_file *f;

	(void)state;
	/* One inode with data and attribute fork blocks at touching offsets: two ranges. */
	mock_reset();
	mock_add(DEV0, 1 * MiB, 4 * KiB, 200, 0, FMR_OF_ATTR_FORK);
	mock_add(DEV0, 1 * MiB + 4 * KiB, 8 * KiB, 200, 4 * KiB, 0);
	mock_add(DEV0, 1 * MiB + 12 * KiB, 4 * KiB, 200, 12 * KiB, FMR_OF_PREALLOC);
	memset(&d, 0, sizeof(d));
	dmg_add(&d, 1 * MiB, 16 * KiB, 3);
	assert_int_equal(map_damage_resolve(&d, &T), 0);
	assert_int_equal(d.nr_files, 1);
	f = &d.files[0];
	assert_int_equal(f->inode, 200);
	assert_int_equal(f->nr_ranges, 3);
	/* Data first (written, then unwritten: not merged), then the attribute fork. */
	file_range_is(&f->ranges[0], 4 * KiB, 8 * KiB, 0, 1);
	file_range_is(&f->ranges[1], 12 * KiB, 4 * KiB, 0, 0);
	file_range_is(&f->ranges[2], 0, 4 * KiB, 1, 1);
	assert_int_equal(f->lost, 1);
	assert_int_equal(d.nr_meta, 0);
	map_damage_free(&d);
}

static void test_damage_empty(void **state)
{
	struct map_damage d;

	(void)state;
	memset(&d, 0, sizeof(d));
	assert_int_equal(map_damage_resolve(&d, &T), 0);
	assert_int_equal(d.nr_files, 0);
	assert_int_equal(d.nr_meta, 0);
	assert_int_equal(d.nr_inodes, 0);
	map_damage_free(&d);
}

/* Many ranges at once: the same owners as one lookup each, in input order, few queries. */
static void test_lookup_many(void **state)
{
	const uint64_t off[] = { SHARED + 20 * KiB, INO_CHUNK + 8 * KiB, F131 + 100 * KiB,
				 MISC + 4 * KiB, F131 + 100 * KiB, LOG_START + 4 * KiB, UNKNOWN - 4 * KiB };
	const uint64_t len[] = { 512, 4 * KiB, 200 * KiB, 4 * KiB, 4 * KiB, 512, 4 * KiB };
	size_t n = sizeof(off) / sizeof(off[0]), first[8], count[8];
	struct owners one = { 0 }, many = { 0 };
	unsigned calls;

	(void)state;
	mk.calls = 0;
	assert_int_equal(map_owners_lookup_many(&T, 0, off, len, n, &many.o, &many.nr, first,
						count), 0);
	calls = mk.calls;
	assert_true(calls <= 2);	/* all within 256 MiB: one pass (and its end) */
	for (size_t i = 0; i < n; i++) {
		size_t before = one.nr;

		assert_true(lookup(&one, 0, off[i], len[i]) >= 0);
		assert_int_equal(count[i], one.nr - before);
		for (size_t k = 0; k < count[i]; k++) {
			const struct map_owner *a = &one.o[before + k], *b = &many.o[first[i] + k];

			assert_int_equal(a->kind, b->kind);
			assert_int_equal(a->flags, b->flags);
			assert_int_equal(a->dev_offset, b->dev_offset);
			assert_int_equal(a->length, b->length);
			assert_int_equal(a->inode, b->inode);
			assert_int_equal(a->file_offset, b->file_offset);
			assert_int_equal(a->ag, b->ag);
		}
	}
	assert_int_equal(many.nr, one.nr);
	free(one.o);
	free(many.o);
}

/* Without rmapbt (and on ext4) bytes no record covers are allocated: unknown, pending. */
static void test_gaps_pending(void **state)
{
	struct owners w = { 0 };

	(void)state;
	mock_reset();
	mock_special(DEV0, 0, 64 * KiB, XFS_FMR_OWN_FS);
	mock_special(DEV0, 64 * KiB, 64 * KiB, XFS_FMR_OWN_FREE);
	/* 128K..192K: no record at all (as ext4 leaves out a group's allocated tail) */
	mock_special(DEV0, 192 * KiB, 64 * KiB, XFS_FMR_OWN_UNKNOWN);
	T.xfs.has_rmapbt = 0;
	assert_int_equal(lookup(&w, 0, 96 * KiB, 128 * KiB), 3);
	assert_int_equal(w.o[0].kind, MAP_OWN_FREE);
	assert_int_equal(w.o[1].kind, MAP_OWN_UNKNOWN);
	assert_int_equal(w.o[1].flags, MAP_OWNF_PENDING);
	assert_int_equal(w.o[1].dev_offset, 128 * KiB);
	assert_int_equal(w.o[1].length, 64 * KiB);
	assert_int_equal(w.o[2].kind, MAP_OWN_UNKNOWN);
	assert_int_equal(w.o[2].flags, MAP_OWNF_PENDING);
	assert_int_equal(w.o[2].dev_offset, 192 * KiB);
	assert_int_equal(w.o[2].length, 32 * KiB);
	/* With rmapbt a missing record is not made up; the log device is never gap-filled. */
	T.xfs.has_rmapbt = 1;
	assert_int_equal(lookup(&w, 0, 128 * KiB, 64 * KiB), 0);
	free(w.o);
}

/* A partitioned disk: table, gaps and whole partitions, by segment, in one range. */
static void test_disk_segments(void **state)
{
	struct map_target d;
	struct owners w = { 0 };

	(void)state;
	memset(&d, 0, sizeof(d));
	d.mount_fd = -1;
	d.nr_devices = 1;
	d.devices[0].role = MAP_ROLE_DISK;
	d.devices[0].fd = -1;
	d.devices[0].info.size_bytes = 100 * MiB;
	d.devices[0].info.logical_block_size = 512;
	snprintf(d.pt_type, sizeof(d.pt_type), "gpt");
	d.parts = calloc(2, sizeof(*d.parts));
	assert_non_null(d.parts);
	d.nr_parts = 2;
	d.parts[0] = (struct map_part){ .number = 2, .start = 50 * MiB, .size = 10 * MiB };
	d.parts[1] = (struct map_part){ .number = 1, .start = 1 * MiB, .size = 20 * MiB };
	assert_int_equal(map_parts_segments(&d, 100 * MiB, 512), 0);
	/* table | gap | p1 | gap | p2 | gap | backup table */
	assert_int_equal(d.nr_segs, 7);
	assert_int_equal(d.segs[0].kind, MAP_SEG_TABLE);
	assert_int_equal(d.segs[0].length, 2 * 512 + 16384);
	assert_int_equal(d.segs[1].kind, MAP_SEG_GAP);
	assert_int_equal(d.segs[2].kind, MAP_SEG_PART);
	assert_int_equal(d.segs[2].start, 1 * MiB);
	assert_int_equal(d.parts[d.segs[2].part].number, 1);	/* sorted by start */
	assert_int_equal(d.segs[4].start, 50 * MiB);
	assert_int_equal(d.segs[6].kind, MAP_SEG_TABLE);
	assert_int_equal(d.segs[6].start + d.segs[6].length, 100 * MiB);
	assert_int_equal(d.segs[6].length, 512 + 16384);
	/* From the GPT entries to inside partition 1: three owners. */
	assert_int_equal(map_owners_lookup(&d, 0, 8 * KiB, 1 * MiB, &w.o, &w.nr), 3);
	assert_int_equal(w.o[0].kind, MAP_OWN_METADATA);
	assert_string_equal(w.o[0].meta_type, "partition-table");
	assert_int_equal(w.o[0].length, 2 * 512 + 16384 - 8 * KiB);
	assert_int_equal(w.o[1].kind, MAP_OWN_DEVICE);
	assert_string_equal(w.o[1].meta_type, "partition-gap");
	assert_int_equal(w.o[2].kind, MAP_OWN_DEVICE);
	assert_string_equal(w.o[2].meta_type, "partition");
	assert_int_equal(w.o[2].part, 1);
	assert_int_equal(w.o[2].dev_offset, 1 * MiB);
	assert_int_equal(w.o[2].length, 8 * KiB);
	assert_ptr_equal(map_target_seg(&d, 55 * MiB), &d.segs[4]);
	assert_null(map_target_seg(&d, 100 * MiB));
	free(w.o);
	map_target_close(&d);
}

/* The known-bad ranges stay sorted, disjoint and merged (touching ranges too), whatever the
 * order they arrive in: checked byte by byte against a plain bitmap over random inserts. */
static void test_bad_ranges_merge(void **state)
{
	enum { SPAN = 4096 };
	static unsigned char want[SPAN];
	struct map_target t = { 0 };

	(void)state;
	memset(want, 0, sizeof(want));
	srandom(7);
	for (int k = 0; k < 3000; k++) {
		uint64_t s = (uint64_t)random() % SPAN, e = s + (uint64_t)random() % 9;

		if (e > SPAN)
			e = SPAN;
		assert_int_equal(map_fsx_add_bad(&t, s, e), 0);
		memset(want + s, 1, e - s);
		if (k % 500 && k != 2999)
			continue;
		const struct map_fsx *x = t.x;
		size_t r = 0;

		for (uint64_t b = 0; b < SPAN; b++) {
			if (!want[b] || (b && want[b - 1]))
				continue;
			uint64_t end = b;

			while (end < SPAN && want[end])
				end++;
			assert_true(r < x->nr_bad);
			assert_int_equal(x->bad[r].start, b);
			assert_int_equal(x->bad[r].end, end);
			r++;
		}
		assert_int_equal(r, x->nr_bad);
		assert_true(map_fsx_is_bad(&t, x->bad[0].start, x->bad[0].start + 1));
	}
	map_fsx_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_file_and_shared, setup),
		cmocka_unit_test_setup(test_metadata_log, setup),
		cmocka_unit_test_setup(test_bmbt_attr_prealloc, setup),
		cmocka_unit_test_setup(test_ag_boundary, setup),
		cmocka_unit_test_setup(test_batches, setup),
		cmocka_unit_test_setup(test_log_device_and_whole, setup),
		cmocka_unit_test_setup(test_lookup_error, setup),
		cmocka_unit_test_setup(test_no_owner, setup),
		cmocka_unit_test_setup(test_damage_grouping, setup),
		cmocka_unit_test_setup(test_damage_file_forks, setup),
		cmocka_unit_test_setup(test_damage_empty, setup),
		cmocka_unit_test_setup(test_lookup_many, setup),
		cmocka_unit_test_setup(test_gaps_pending, setup),
		cmocka_unit_test_setup(test_disk_segments, setup),
		cmocka_unit_test(test_bad_ranges_merge),
	};

	int ret = cmocka_run_group_tests(tests, NULL, NULL);

	map_fsx_free(&T);
	return ret;
}
