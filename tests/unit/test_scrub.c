/*
 * tests/unit/test_scrub.c - XFS scrub queries and health (mapping/owners/health.c) over mocked ioctls
 * (kio_xfs_scrub_metadata, kio_xfs_bulkstat_one and kio_xfs_stat_one, kio_xfs_ag_geometry,
 * kio_xfs_geometry_ext wrapped): XFS_IOC_SCRUB_METADATA is probed once per filesystem; each owning object is asked
 * about with the exact struct xfs_scrub_metadata (sm_type, sm_agno for AG metadata, sm_ino and
 * sm_gen for inodes, sm_flags 0: check, never repair, reserved zero); each outcome flag and
 * errno becomes its verdict; without online scrub nothing is asked and the kernel's health
 * (AG sick/checked, bulkstat bs_sick/bs_checked) is still reported, and the probe's errno says
 * why scrub is unavailable (no scrub in the kernel, a norecovery mount, ...). Inode records
 * in a damaged inode chunk are asked about when the inode btree (kio_xfs_inumbers, wrapped)
 * says they are allocated, even when bulkstat cannot read them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <xfs/xfs.h>

#include "fs.h"
#include "owners.h"
#include "target.h"

#define MOCK_FD 3
#define MAX_CALLS 64

static struct {
	int probe_ret;			/* answer to XFS_SCRUB_TYPE_PROBE */
	unsigned probes;
	struct xfs_scrub_metadata calls[MAX_CALLS];	/* every non-probe query, as passed */
	unsigned nr_calls;
	unsigned ag_calls, bulk_calls;
} mk;

int __wrap_kio_xfs_scrub_metadata(int fd, struct xfs_scrub_metadata *sm);
int __wrap_kio_xfs_bulkstat_one(int fd, uint64_t ino, struct kio_xfs_inode *out);
int __wrap_kio_xfs_stat_one(int fd, uint64_t ino, struct kio_xfs_inode *out);
int __wrap_kio_xfs_ag_geometry(int fd, uint32_t agno, struct xfs_ag_geometry *ag);
int __wrap_kio_xfs_geometry_ext(int fd, struct kio_xfs_geom_ext *g);
int __wrap_kio_xfs_inumbers(int fd, uint64_t *next_ino, struct kio_xfs_ichunk *out, unsigned max);

/* What the fake kernel's scrub says about each object. */
static int scrub_answer(struct xfs_scrub_metadata *sm)
{
	switch (sm->sm_type) {
	case XFS_SCRUB_TYPE_SB:
		return 0;					/* clean */
	case XFS_SCRUB_TYPE_AGF:
		sm->sm_flags |= XFS_SCRUB_OFLAG_CORRUPT;
		return 0;
	case XFS_SCRUB_TYPE_AGFL:
		sm->sm_flags |= XFS_SCRUB_OFLAG_XFAIL;
		return 0;
	case XFS_SCRUB_TYPE_AGI:
		return -EUCLEAN;				/* EFSCORRUPTED */
	case XFS_SCRUB_TYPE_INOBT:
		sm->sm_flags |= XFS_SCRUB_OFLAG_XCORRUPT | XFS_SCRUB_OFLAG_PREEN;
		return 0;
	case XFS_SCRUB_TYPE_FINOBT:
		return -ENOENT;					/* no finobt */
	case XFS_SCRUB_TYPE_BMBTD:
		sm->sm_flags |= XFS_SCRUB_OFLAG_PREEN;
		return 0;
	case XFS_SCRUB_TYPE_BMBTA:
		return -EBADMSG;				/* EFSBADCRC */
	case XFS_SCRUB_TYPE_XATTR:
		sm->sm_flags |= XFS_SCRUB_OFLAG_INCOMPLETE;
		return 0;
	case XFS_SCRUB_TYPE_DIR:
		sm->sm_flags |= XFS_SCRUB_OFLAG_WARNING;
		return 0;
	case XFS_SCRUB_TYPE_PARENT:
		return -EBUSY;
	default:
		return 0;
	}
}

int __wrap_kio_xfs_scrub_metadata(int fd, struct xfs_scrub_metadata *sm)
{
	assert_int_equal(fd, MOCK_FD);
	/* Only ever a check: no input flag, the reserved words zero. */
	assert_int_equal(sm->sm_flags, 0);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(sm->sm_reserved[i], 0);
	if (sm->sm_type == XFS_SCRUB_TYPE_PROBE) {
		assert_int_equal(sm->sm_ino, 0);
		assert_int_equal(sm->sm_agno, 0);
		mk.probes++;
		return mk.probe_ret;
	}
	assert_true(mk.probe_ret == 0);			/* never asked without the probe */
	assert_true(mk.nr_calls < MAX_CALLS);
	mk.calls[mk.nr_calls++] = *sm;
	return scrub_answer(sm);
}

int __wrap_kio_xfs_bulkstat_one(int fd, uint64_t ino, struct kio_xfs_inode *out)
{
	assert_int_equal(fd, MOCK_FD);
	mk.bulk_calls++;
	memset(out, 0, sizeof(*out));
	out->ino = ino;
	out->gen = (uint32_t)(1000 + ino);
	out->nlink = 1;
	out->mode = ino == 128 ? S_IFDIR | 0755 : S_IFREG | 0644;
	if (ino == 131) {
		out->sick = XFS_BS_SICK_BMBTD;
		out->checked = XFS_BS_SICK_BMBTD | XFS_BS_SICK_INODE;
	}
	if (ino == 999)
		return -ENOENT;
	if (ino == 129)
		return -EUCLEAN;			/* its cluster fails the verifier */
	return 0;
}

/* The cheaper single-inode stat answers as bulkstat does here. */
int __wrap_kio_xfs_stat_one(int fd, uint64_t ino, struct kio_xfs_inode *out)
{
	return __wrap_kio_xfs_bulkstat_one(fd, ino, out);
}

/* The inode btree: one chunk from 128, inodes 128, 129 and 131 allocated, 130 free. */
int __wrap_kio_xfs_inumbers(int fd, uint64_t *next_ino, struct kio_xfs_ichunk *out, unsigned max)
{
	assert_int_equal(fd, MOCK_FD);
	assert_true(max >= 1);
	assert_int_equal(*next_ino, 128);		/* the chunk's first inode */
	out->startino = 128;
	out->allocmask = 0x0b;
	out->alloccount = 3;
	*next_ino = 192;
	return 1;
}

int __wrap_kio_xfs_ag_geometry(int fd, uint32_t agno, struct xfs_ag_geometry *ag)
{
	assert_int_equal(fd, MOCK_FD);
	mk.ag_calls++;
	memset(ag, 0, sizeof(*ag));
	ag->ag_number = agno;
	if (agno == 2) {
		ag->ag_sick = XFS_AG_GEOM_SICK_AGF;
		ag->ag_checked = XFS_AG_GEOM_SICK_AGF | XFS_AG_GEOM_SICK_SB;
	}
	return 0;
}

int __wrap_kio_xfs_geometry_ext(int fd, struct kio_xfs_geom_ext *g)
{
	assert_int_equal(fd, MOCK_FD);
	memset(g, 0, sizeof(*g));
	g->inodesize = 512;
	g->sick = XFS_FSOP_GEOM_SICK_COUNTERS;
	g->checked = XFS_FSOP_GEOM_SICK_COUNTERS;
	return 0;
}

static struct map_target T;

static int setup(void **state)
{
	(void)state;
	memset(&mk, 0, sizeof(mk));
	memset(&T, 0, sizeof(T));
	T.ops = &map_fs_xfs;
	T.mount_fd = MOCK_FD;
	T.xfs.blocksize = 4096;
	T.xfs.agblocks = 1000;
	T.xfs.agcount = 4;
	T.xfs.has_rmapbt = 1;
	T.xfs.has_parent = 1;
	T.nr_devices = 1;
	T.devices[0].role = MAP_ROLE_DATA;
	T.devices[0].fd = -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	T.mount_fd = -1;
	map_target_close(&T);
	return 0;
}

static struct map_owner meta(const char *type, int64_t ag)
{
	struct map_owner o;

	memset(&o, 0, sizeof(o));
	o.kind = MAP_OWN_METADATA;
	o.meta_type = type;
	o.ag = ag;
	o.length = 4096;
	return o;
}

static struct map_owner file(uint64_t ino, uint32_t flags)
{
	struct map_owner o;

	memset(&o, 0, sizeof(o));
	o.kind = MAP_OWN_FILE;
	o.inode = ino;
	o.flags = flags;
	o.ag = -1;
	o.length = 4096;
	return o;
}

/* The i-th query was exactly this struct. */
static void call_is(unsigned i, uint32_t type, uint32_t agno, uint64_t ino, uint32_t gen)
{
	assert_true(i < mk.nr_calls);
	assert_int_equal(mk.calls[i].sm_type, type);
	assert_int_equal(mk.calls[i].sm_agno, agno);
	assert_int_equal(mk.calls[i].sm_ino, ino);
	assert_int_equal(mk.calls[i].sm_gen, gen);
	assert_int_equal(mk.calls[i].sm_flags, 0);
}

static void verdict_is(const struct map_owner *o, unsigned i, uint32_t type, enum map_verdict v)
{
	assert_true(i < o->nr_scrub);
	assert_int_equal(o->scrub[i].type, type);
	assert_int_equal(o->scrub[i].verdict, v);
}

static void test_ag_metadata(void **state)
{
	struct map_owner o[2] = { meta("fs-headers", 2), meta("inobt", 1) };
	unsigned sick, checked;
	int scrub = 0;

	(void)state;
	assert_int_equal(map_health_annotate(&T, o, 2, &scrub, &sick, &checked), 0);
	assert_int_equal(scrub, 1);
	assert_int_equal(mk.probes, 1);
	/* The four AG headers of AG 2, by AG number; then the inode btrees of AG 1. */
	assert_int_equal(mk.nr_calls, 6);
	call_is(0, XFS_SCRUB_TYPE_SB, 2, 0, 0);
	call_is(1, XFS_SCRUB_TYPE_AGF, 2, 0, 0);
	call_is(2, XFS_SCRUB_TYPE_AGFL, 2, 0, 0);
	call_is(3, XFS_SCRUB_TYPE_AGI, 2, 0, 0);
	call_is(4, XFS_SCRUB_TYPE_INOBT, 1, 0, 0);
	call_is(5, XFS_SCRUB_TYPE_FINOBT, 1, 0, 0);
	assert_int_equal(o[0].nr_scrub, 4);
	verdict_is(&o[0], 0, XFS_SCRUB_TYPE_SB, MAP_VERDICT_CLEAN);
	verdict_is(&o[0], 1, XFS_SCRUB_TYPE_AGF, MAP_VERDICT_CORRUPT);
	assert_int_equal(o[0].scrub[1].oflags, XFS_SCRUB_OFLAG_CORRUPT);
	verdict_is(&o[0], 2, XFS_SCRUB_TYPE_AGFL, MAP_VERDICT_XFAIL);
	verdict_is(&o[0], 3, XFS_SCRUB_TYPE_AGI, MAP_VERDICT_CORRUPT);
	assert_int_equal(o[0].scrub[3].err, -EUCLEAN);
	/* XCORRUPT outranks PREEN; an absent finobt is not a verdict. */
	assert_int_equal(o[1].nr_scrub, 1);
	verdict_is(&o[1], 0, XFS_SCRUB_TYPE_INOBT, MAP_VERDICT_XCORRUPT);
	/* Health the kernel keeps per AG, and for the whole filesystem. */
	assert_int_equal(o[0].health, MAP_HEALTH_AG);
	assert_int_equal(o[0].sick, XFS_AG_GEOM_SICK_AGF);
	assert_int_equal(o[0].checked, XFS_AG_GEOM_SICK_AGF | XFS_AG_GEOM_SICK_SB);
	assert_int_equal(o[1].health, MAP_HEALTH_AG);
	assert_int_equal(o[1].sick, 0);
	assert_int_equal(sick, XFS_FSOP_GEOM_SICK_COUNTERS);
	assert_int_equal(checked, XFS_FSOP_GEOM_SICK_COUNTERS);
}

static void test_inode_objects(void **state)
{
	struct map_owner o[4] = {
		file(131, 0),				/* data fork of a regular file */
		file(140, MAP_OWNF_ATTR_FORK),		/* attribute fork */
		file(128, 0),				/* a directory */
		file(131, 0),				/* 131 again: answered from cache */
	};
	unsigned sick, checked;
	int scrub = 0;

	(void)state;
	assert_int_equal(map_health_annotate(&T, o, 4, &scrub, &sick, &checked), 0);
	assert_int_equal(mk.probes, 1);
	/* 131: inode, data fork, parent pointers, with its generation from bulkstat. */
	call_is(0, XFS_SCRUB_TYPE_INODE, 0, 131, 1131);
	call_is(1, XFS_SCRUB_TYPE_BMBTD, 0, 131, 1131);
	call_is(2, XFS_SCRUB_TYPE_PARENT, 0, 131, 1131);
	/* 140: inode, attr fork, xattrs, parent. */
	call_is(3, XFS_SCRUB_TYPE_INODE, 0, 140, 1140);
	call_is(4, XFS_SCRUB_TYPE_BMBTA, 0, 140, 1140);
	call_is(5, XFS_SCRUB_TYPE_XATTR, 0, 140, 1140);
	call_is(6, XFS_SCRUB_TYPE_PARENT, 0, 140, 1140);
	/* 128: inode, data fork, directory, parent. */
	call_is(7, XFS_SCRUB_TYPE_INODE, 0, 128, 1128);
	call_is(8, XFS_SCRUB_TYPE_BMBTD, 0, 128, 1128);
	call_is(9, XFS_SCRUB_TYPE_DIR, 0, 128, 1128);
	call_is(10, XFS_SCRUB_TYPE_PARENT, 0, 128, 1128);
	assert_int_equal(mk.nr_calls, 11);		/* the second 131 asked nothing */

	verdict_is(&o[0], 0, XFS_SCRUB_TYPE_INODE, MAP_VERDICT_CLEAN);
	verdict_is(&o[0], 1, XFS_SCRUB_TYPE_BMBTD, MAP_VERDICT_PREEN);
	verdict_is(&o[0], 2, XFS_SCRUB_TYPE_PARENT, MAP_VERDICT_ERROR);
	assert_int_equal(o[0].scrub[2].err, -EBUSY);
	verdict_is(&o[1], 1, XFS_SCRUB_TYPE_BMBTA, MAP_VERDICT_CORRUPT);
	verdict_is(&o[1], 2, XFS_SCRUB_TYPE_XATTR, MAP_VERDICT_INCOMPLETE);
	verdict_is(&o[2], 2, XFS_SCRUB_TYPE_DIR, MAP_VERDICT_WARNING);
	assert_int_equal(o[3].nr_scrub, 3);
	verdict_is(&o[3], 1, XFS_SCRUB_TYPE_BMBTD, MAP_VERDICT_PREEN);
	/* bulkstat health of the inode; generation recorded. */
	assert_int_equal(o[0].health, MAP_HEALTH_INODE);
	assert_int_equal(o[0].sick, XFS_BS_SICK_BMBTD);
	assert_int_equal(o[0].checked, XFS_BS_SICK_BMBTD | XFS_BS_SICK_INODE);
	assert_int_equal(o[0].gen, 1131);
	assert_int_equal(o[2].sick, 0);
}

static void test_probe_once_and_absent(void **state)
{
	struct map_owner o[3] = { meta("fs-headers", 0), file(131, 0), meta("log", 0) };
	unsigned sick, checked;
	int scrub = 0;

	(void)state;
	mk.probe_ret = -ENOTTY;				/* a kernel without online scrub */
	assert_int_equal(map_health_annotate(&T, o, 3, &scrub, &sick, &checked), 0);
	assert_int_equal(map_health_annotate(&T, o, 3, &scrub, &sick, &checked), 0);
	assert_int_equal(mk.probes, 1);			/* probed once per filesystem */
	assert_int_equal(mk.nr_calls, 0);
	assert_int_equal(scrub, -ENOTTY);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(o[i].nr_scrub, 0);
	/* Health is still read without scrub. */
	assert_int_equal(o[1].health, MAP_HEALTH_INODE);
	assert_int_equal(o[1].sick, XFS_BS_SICK_BMBTD);
	assert_int_equal(o[0].health, MAP_HEALTH_AG);
	assert_int_equal(mk.ag_calls, 1);		/* AG 0 health read once, then cached */
}

static void test_not_xfs_nothing_asked(void **state)
{
	struct map_owner o[2] = { meta("inode-table", -1), file(12, 0) };
	unsigned sick, checked;
	int scrub = 0;

	(void)state;
	T.ops = &map_fs_ext4;
	assert_int_equal(map_health_annotate(&T, o, 2, &scrub, &sick, &checked), 0);
	assert_int_equal(mk.probes + mk.nr_calls + mk.bulk_calls + mk.ag_calls, 0);
	assert_int_equal(scrub, 0);
	assert_int_equal(o[1].health, MAP_HEALTH_NONE);
}

static void test_inode_chunk_records(void **state)
{
	/* 2 KiB of the inode chunk at block 16 of AG 0: the records of inodes 128-131. */
	struct map_owner o = meta("inodes", 0);
	unsigned sick, checked;
	int scrub = 0;

	(void)state;
	o.fs_offset = 16 * 4096;
	o.length = 2048;
	assert_int_equal(map_health_annotate(&T, &o, 1, &scrub, &sick, &checked), 0);
	/* 130 is free: not asked; 129 is allocated but bulkstat fails: asked with gen 0. */
	assert_int_equal(mk.nr_calls, 3);
	call_is(0, XFS_SCRUB_TYPE_INODE, 0, 128, 1128);
	call_is(1, XFS_SCRUB_TYPE_INODE, 0, 129, 0);
	call_is(2, XFS_SCRUB_TYPE_INODE, 0, 131, 1131);
	assert_int_equal(o.nr_scrub, 3);
	assert_int_equal(o.scrub[1].ino, 129);
}

/* Why scrub is unavailable comes from the probe's errno, never from a message. */
static void test_unavailable_reason(void **state)
{
	struct map_owner o = meta("fs-headers", 0);
	unsigned sick, checked;
	int scrub = 0;

	(void)state;
	mk.probe_ret = -ENOTRECOVERABLE;		/* scrub-enabled XFS mounted norecovery */
	assert_int_equal(map_health_annotate(&T, &o, 1, &scrub, &sick, &checked), 0);
	assert_int_equal(mk.nr_calls, 0);
	assert_int_equal(scrub, -ENOTRECOVERABLE);
	assert_int_equal(map_scrub_why(scrub), MAP_SCRUB_NORECOVERY);
	assert_string_equal(map_scrub_why_name(map_scrub_why(scrub)),
			    "mounted norecovery: the kernel refuses scrub");

	assert_int_equal(map_scrub_why(1), MAP_SCRUB_AVAILABLE);
	assert_int_equal(map_scrub_why(0), MAP_SCRUB_NOT_ASKED);
	assert_int_equal(map_scrub_why(-ENOTTY), MAP_SCRUB_NO_KERNEL);	/* no scrub built in */
	assert_int_equal(map_scrub_why(-EOPNOTSUPP), MAP_SCRUB_NO_KERNEL);
	assert_int_equal(map_scrub_why(-EINVAL), MAP_SCRUB_NO_KERNEL);
	assert_int_equal(map_scrub_why(-ESHUTDOWN), MAP_SCRUB_SHUTDOWN);
	assert_int_equal(map_scrub_why(-EPERM), MAP_SCRUB_NOT_PERMITTED);
	assert_int_equal(map_scrub_why(-EACCES), MAP_SCRUB_NOT_PERMITTED);
	assert_int_equal(map_scrub_why(-EIO), MAP_SCRUB_PROBE_FAILED);
	assert_string_equal(map_scrub_why_name(MAP_SCRUB_NO_KERNEL), "kernel has no online scrub");
	assert_string_equal(map_scrub_why_name(MAP_SCRUB_SHUTDOWN),
			    "filesystem is shut down: the kernel refuses scrub");
	/* Every reason has its own sentence. */
	for (int a = MAP_SCRUB_NO_KERNEL; a <= MAP_SCRUB_PROBE_FAILED; a++)
		for (int b = a + 1; b <= MAP_SCRUB_PROBE_FAILED; b++)
			assert_string_not_equal(map_scrub_why_name(a), map_scrub_why_name(b));
}

static void test_verdict_flags(void **state)
{
	(void)state;
	assert_int_equal(map_scrub_verdict(0, 0), MAP_VERDICT_CLEAN);
	assert_int_equal(map_scrub_verdict(0, XFS_SCRUB_OFLAG_NO_REPAIR_NEEDED), MAP_VERDICT_CLEAN);
	assert_int_equal(map_scrub_verdict(0, XFS_SCRUB_OFLAG_PREEN), MAP_VERDICT_PREEN);
	assert_int_equal(map_scrub_verdict(0, XFS_SCRUB_OFLAG_WARNING | XFS_SCRUB_OFLAG_PREEN),
			 MAP_VERDICT_WARNING);
	assert_int_equal(map_scrub_verdict(0, XFS_SCRUB_OFLAG_INCOMPLETE |
					   XFS_SCRUB_OFLAG_WARNING), MAP_VERDICT_INCOMPLETE);
	assert_int_equal(map_scrub_verdict(0, XFS_SCRUB_OFLAG_XFAIL | XFS_SCRUB_OFLAG_INCOMPLETE),
			 MAP_VERDICT_XFAIL);
	assert_int_equal(map_scrub_verdict(0, XFS_SCRUB_OFLAG_XCORRUPT | XFS_SCRUB_OFLAG_XFAIL),
			 MAP_VERDICT_XCORRUPT);
	assert_int_equal(map_scrub_verdict(0, XFS_SCRUB_OFLAG_CORRUPT | XFS_SCRUB_OFLAG_XCORRUPT),
			 MAP_VERDICT_CORRUPT);
	assert_int_equal(map_scrub_verdict(-EUCLEAN, 0), MAP_VERDICT_CORRUPT);
	assert_int_equal(map_scrub_verdict(-EBADMSG, 0), MAP_VERDICT_CORRUPT);
	assert_int_equal(map_scrub_verdict(-ENOENT, 0), MAP_VERDICT_ABSENT);
	assert_int_equal(map_scrub_verdict(-EDEADLOCK, 0), MAP_VERDICT_ERROR);
	assert_string_equal(map_verdict_name(MAP_VERDICT_XFAIL), "cross-reference failed");
	assert_string_equal(map_verdict_name(MAP_VERDICT_CORRUPT), "corrupt");
	assert_string_equal(map_verdict_name(MAP_VERDICT_CLEAN), "clean");
	assert_string_equal(map_scrub_type_name(XFS_SCRUB_TYPE_BMBTA), "attr-fork");
	assert_string_equal(map_scrub_type_name(999), "unknown");
}

static void test_health_names(void **state)
{
	const char *n[8];

	(void)state;
	assert_int_equal(map_health_names(MAP_HEALTH_INODE, XFS_BS_SICK_DIR | XFS_BS_SICK_INODE,
					  n, 8), 2);
	assert_string_equal(n[0], "inode-core");
	assert_string_equal(n[1], "directory");
	assert_int_equal(map_health_names(MAP_HEALTH_AG, XFS_AG_GEOM_SICK_REFCNTBT, n, 8), 1);
	assert_string_equal(n[0], "refcountbt");
	assert_int_equal(map_health_names(MAP_HEALTH_FS, XFS_FSOP_GEOM_SICK_COUNTERS, n, 8), 1);
	assert_string_equal(n[0], "counters");
	assert_int_equal(map_health_names(MAP_HEALTH_NONE, 0xffff, n, 8), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ag_metadata, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inode_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_once_and_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_xfs_nothing_asked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inode_chunk_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unavailable_reason, setup, teardown),
		cmocka_unit_test(test_verdict_flags),
		cmocka_unit_test(test_health_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
