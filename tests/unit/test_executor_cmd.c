/*
 * tests/unit/test_executor_cmd.c - drive-side commands in mediascan/executor.c's loop:
 * scsi-verify runs on the pool engine against a fake disk behind a wrapped kio_dev_cmd_submit,
 * which counts the commands in flight at once and answers MEDIUM ERROR sense for bad blocks:
 * the LBA the sense names, commands at depth, sampled reads that void a lying VERIFY and their
 * share, a refused method whose rest is read, the I/O timeout, and the pool's cleanup with
 * commands in flight. The fake disk and the source are in fake_disk.c, the fixture in
 * exec_fixture.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <liburing.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "engine.h"
#include "kio.h"
#include "kio_dev.h"
#include "scan.h"
#include "exec_fixture.h"
#include "fake_disk.h"

/* ---------------------------------------------------------------- drive-side commands */

/* A SCSI disk for scsi-verify over the test file: 64-block (32 KiB) commands. */
static void scsi_vdev(struct vfy_dev *vd)
{
	memset(vd, 0, sizeof(*vd));
	snprintf(vd->path, sizeof(vd->path), "/dev/fake");
	vd->kind = VFY_DEV_SCSI;
	vd->fd = fk.fd;
	vd->cfd = vd->xfs_fd = -1;
	vd->lbs = LBS;
	vd->max_xfer_blocks = 64;
	vd->verify16 = 1;
}

/* A scsi-verify scan of the fake disk at depth 8 on the pool engine: dev, vd and o set. */
static void scsi_verify_opts(struct scan_device *dev, struct vfy_dev *vd, struct scan_opts *o)
{
	scsi_vdev(vd);
	memset(dev, 0, sizeof(*dev));
	dev->fd = fk.fd;
	dev->logical_block_size = LBS;
	opts_init(o, NULL);
	o->depth = 8;
	o->vfy = &vfy_scsi_verify;
	o->vfy_devs[0] = vd;
}

/* Return the failing blocks in r as a bitmap count, checking each against the injection. */
static unsigned bad_blocks(const struct scan_result *r)
{
	unsigned n = 0;

	for (size_t i = 0; i < r->nr_errors; i++) {
		const struct scan_error *e = &r->errors[i];

		for (uint64_t b = e->offset / LBS; b < (e->offset + e->length) / LBS; b++) {
			assert_int_not_equal(fk.err[b], 0);
			assert_int_equal(e->err, fk.err[b] == -EILSEQ ? -EILSEQ : -ENODATA);
			assert_int_equal(e->in_gap, b == (2 * MiB + 64 * KiB) / LBS);
			n++;
		}
	}
	return n;
}

/*
 * scsi-verify through the one loop: commands in flight together on the pool engine (depth
 * 8), every bad block exact. The device names the block: no isolation command, and each
 * bad block is covered by one command only.
 */
static void test_cmd_depth_named_lba(void **state)
{
	struct scan_device dev = { 0 };
	struct vfy_dev vd;
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	inject_four();
	fk.name_lba = 1;
	scsi_vdev(&vd);
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, NULL);
	o.depth = 8;
	o.vfy = &vfy_scsi_verify;
	o.vfy_devs[0] = &vd;
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_string_equal(r.engine, "pool");
	assert_int_equal(r.fatal, 0);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.scanned_bytes, PLANNED);
	assert_true(r.max_inflight > 1);
	assert_true(fk.cmd_max > 1);		/* the fake disk saw them together */
	assert_int_equal(bad_blocks(&r), 7);
	/*
	 * One command per bad block, but for the first block a device names at a command's
	 * start: read once more alone, to see that the device does not echo the start LBA.
	 */
	unsigned twice = 0;

	for (size_t i = 0; i < r.nr_errors; i++) {
		assert_true(r.errors[i].reads == 1 || r.errors[i].reads == 2);
		twice += r.errors[i].reads == 2;
	}
	assert_true(twice <= 1);
	assert_int_equal(r.isolation_reads, twice);
	assert_int_equal(fk.preads, 0);		/* nothing was read: VERIFY moves no data */
	scan_result_free(&r);
}

/*
 * A device whose sense names the command's first block whatever fails (scsi_debug's READ,
 * libata's result after an ABRT): once that block reads clean alone, its names are ignored
 * and the failures are narrowed block by block, every bad block still exact.
 */
static void test_cmd_named_lba_echoes_start(void **state)
{
	struct scan_device dev = { 0 };
	struct vfy_dev vd;
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	inject_four();
	fk.name_lba = 2;
	scsi_verify_opts(&dev, &vd, &o);
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_int_equal(r.complete, 1);
	assert_int_equal(bad_blocks(&r), 7);
	assert_int_equal(r.errors[0].offset, 100 * KiB);
	assert_int_equal(r.errors[0].length, LBS);
	scan_result_free(&r);
}

/* Without the block in the sense data, a failed command is narrowed by one command per block. */
static void test_cmd_blocks_at_depth(void **state)
{
	struct scan_device dev = { 0 };
	struct vfy_dev vd;
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	inject_four();
	scsi_vdev(&vd);
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, NULL);
	o.depth = 8;
	o.vfy = &vfy_scsi_verify;
	o.vfy_devs[0] = &vd;
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.scanned_bytes, PLANNED);
	assert_int_equal(bad_blocks(&r), 7);
	/*
	 * The device names no block: every block of a failed command gets a command of its
	 * own, sent together, so each bad block is covered by two commands (bisection: 7).
	 */
	assert_int_equal(r.errors[0].offset, 100 * KiB);
	for (size_t i = 0; i < r.nr_errors; i++)
		assert_int_equal(r.errors[i].reads, 2);
	/* Every command past the plan's 32 + 32 + 4 pieces narrowed a failure. */
	assert_int_equal(r.isolation_reads, fk.cmds - (32 + 32 + 4));
	/* One per block of each failed command: at most 7 failed commands of 64 blocks. */
	assert_true(r.isolation_reads >= 64 && r.isolation_reads <= 7 * 64);
	assert_int_equal(r.isolation_reads % 8, 0);
	scan_result_free(&r);
}

/*
 * A disk whose VERIFY answers GOOD without reading: every command passes over the bad blocks.
 * A sampled read of what it passed fails: the method is voided on the device, the scan stops
 * there (the caller reads the plan again), the failed read's place is kept.
 */
static void test_cmd_sample_voids_lying_verify(void **state)
{
	struct scan_device dev = { 0 };
	struct vfy_dev vd;
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	inject_four();
	fk.lie = 1;
	scsi_verify_opts(&dev, &vd, &o);
	o.sample_permille = 1000;		/* every command read as well */
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_int_equal(r.voided, 1);
	assert_int_equal(r.void_dev, 0);
	/* the first bad block, 100 KiB in, lies in the sample that failed */
	assert_true(r.void_offset <= 100 * KiB && 100 * KiB < r.void_offset + r.void_length);
	assert_int_equal(r.void_err, -EIO);
	assert_int_equal(r.complete, 0);
	assert_non_null(strstr(r.method_note, "voided"));
	assert_int_equal(r.nr_errors, 0);	/* the lying disk said nothing */
	scan_result_free(&r);

	/* Without sampling the lie goes unseen: what the proof and sampling are for. */
	memset(&s, 0, sizeof(s));
	s.ranges = R;
	s.nr = 3;
	s.per_call = 2;
	o.sample_permille = 0;
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_int_equal(r.voided, 0);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.nr_errors, 0);
	scan_result_free(&r);
}

/* On an honest disk a tenth of the verified bytes is read too, nothing voided. */
static void test_cmd_sample_share(void **state)
{
	struct scan_device dev = { 0 };
	struct vfy_dev vd;
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	scsi_verify_opts(&dev, &vd, &o);
	o.sample_permille = 100;
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.voided, 0);
	assert_true(r.nr_samples >= 1);
	/* a tenth of the planned bytes, less what is owed to the next sample */
	assert_true(r.sampled_bytes <= PLANNED / 10);
	assert_true(r.sampled_bytes + 64 * KiB >= PLANNED / 10);
	assert_int_equal(fk.preads, r.nr_samples);
	scan_result_free(&r);
}

/* The disk refuses VERIFY midway: nothing more is sent and the rest is read, exactly once. */
static void test_cmd_refused_reads_rest(void **state)
{
	struct scan_device dev = { 0 };
	struct vfy_dev vd;
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	fk.refuse_after = 20;
	scsi_vdev(&vd);
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, "sync");
	o.depth = 8;
	o.vfy = &vfy_scsi_verify;
	o.vfy_devs[0] = &vd;
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_string_equal(r.engine, "sync");
	assert_int_equal(r.fatal, 0);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.nr_errors, 0);
	assert_int_equal(r.scanned_bytes, PLANNED);
	assert_non_null(strstr(r.method_note, "refused"));
	assert_true(fk.cmds >= 20 && fk.cmds < 20 + 8);
	/* Read: what was refused and what was not sent, never what VERIFY already covered. */
	assert_int_equal(r.read_bytes + (uint64_t)(19 * 32 * KiB), 2 * MiB + 100 * KiB);
	scan_result_free(&r);
}

/*
 * The --io-timeout watchdog covers commands as it covers reads: a VERIFY that answers late
 * is set aside, the scan goes on, and the recheck sends commands alone to narrow it to the
 * slow block, reported slow with its latency (not damage).
 */
static void test_cmd_io_timeout(void **state)
{
	struct scan_device dev = { 0 };
	struct vfy_dev vd;
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };
	uint64_t slow = 1 * MiB + 600 * KiB;

	(void)state;
	fk.slow_block = (int64_t)(slow / LBS);
	fk.slow_us = 150000;
	scsi_vdev(&vd);
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, NULL);
	o.depth = 8;
	o.io_timeout_ns = 50000000ull;
	o.vfy = &vfy_scsi_verify;
	o.vfy_devs[0] = &vd;
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_int_equal(r.fatal, 0);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.scanned_bytes, PLANNED);
	assert_true(r.nr_timeouts >= 1);
	assert_int_equal(r.nr_errors, 1);
	assert_int_equal(r.errors[0].cls, SCAN_ERR_SLOW);
	assert_int_equal(r.errors[0].offset, slow);
	assert_int_equal(r.errors[0].length, LBS);
	assert_true(r.errors[0].latency_ns >= 150000000ull);
	assert_false(scan_is_damage(&r.errors[0]));
	scan_result_free(&r);
}

static void verify16(struct kio_dev_cmd *c, uint64_t lba, uint32_t n)
{
	memset(c, 0, sizeof(*c));
	c->kind = KIO_CMD_SCSI;
	c->cdb[0] = 0x8f;
	for (int i = 0; i < 8; i++)
		c->cdb[2 + i] = (uint8_t)(lba >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		c->cdb[10 + i] = (uint8_t)(n >> (24 - 8 * i));
	c->cdb_len = 16;
}

/*
 * The pool engine torn down while a command is stuck in the device: cleanup returns at once
 * (the executor no longer leaves the pool running behind it), and a command queued behind
 * the stuck one is never sent; the thread ends when its command answers (ASan: no leak).
 */
static void test_pool_cleanup_inflight(void **state)
{
	int fds[1] = { fk.fd };
	struct scan_engine e = {
		.ops = &scan_engine_pool, .fds = fds, .nr_fds = 1, .depth = 1,
	};
	struct kio_dev_cmd c[2];
	struct scan_io io[2];
	struct timespec a, b;
	double dt;

	(void)state;
	fk.slow_block = 0;
	fk.slow_us = 2000000;		/* the first command answers after 2 s */
	fk.cmds = 0;
	verify16(&c[0], 0, 8);
	verify16(&c[1], 8, 8);
	memset(io, 0, sizeof(io));
	io[0].cmd = &c[0];
	io[1].cmd = &c[1];
	assert_int_equal(e.ops->init(&e), 0);
	assert_int_equal(e.ops->queue(&e, &io[0]), 0);
	assert_int_equal(e.ops->queue(&e, &io[1]), 0);
	assert_true(e.ops->commit(&e) >= 0);
	for (int i = 0; i < 500 && !fk.cmd_now; i++)
		usleep(10000);		/* until the one thread is inside the first command */
	assert_int_equal(fk.cmd_now, 1);
	clock_gettime(CLOCK_MONOTONIC, &a);
	e.ops->cleanup(&e);
	clock_gettime(CLOCK_MONOTONIC, &b);
	dt = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	assert_true(dt < 1.0);		/* did not wait for the device (2 s) */
	for (int i = 0; i < 500 && fk.cmd_now; i++)
		usleep(10000);		/* the first answers; its thread ends and frees the pool */
	usleep(100000);
	assert_int_equal(fk.cmds, 1);	/* the queued one was never sent */
	fk.slow_block = -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cmd_depth_named_lba, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd_blocks_at_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd_named_lba_echoes_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd_refused_reads_rest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd_sample_voids_lying_verify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd_sample_share, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cmd_io_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_cleanup_inflight, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
