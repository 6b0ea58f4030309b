/*
 * tests/unit/test_executor.c - mediascan/executor.c: scan_run over a real temporary file
 * (opened without O_DIRECT) with a scan_source yielding a few ranges. Failures are
 * injected at chosen 512-byte blocks by wrapping kio_pread (the sync engine's reads and
 * every isolation read) and, for the io_uring engine, by steering the submitted reads
 * that cover a bad block past the end of the file (a short read, which the executor takes
 * as -EIO) through a wrapped io_uring_submit. Drive-side commands (scsi-verify) run through
 * the same loop on the pool engine against a fake disk behind a wrapped kio_dev_cmd_submit,
 * which counts the commands in flight at once and answers MEDIUM ERROR sense for bad blocks.
 * The fake disk and the source are in fake_disk.c.
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
#include "fake_disk.h"

static struct scan_range R[3];
static char tmp_path[4096];

static int setup(void **state)
{
	int wfd;

	(void)state;
	memset(fk.err, 0, sizeof(fk.err));
	fk.preads = 0;
	fk.steered = 0;
	fk.nr_pending = 0;
	fk.cmds = fk.cmd_now = fk.cmd_max = 0;
	fk.name_lba = 0;
	fk.refuse_after = 0;
	fk.lie = 0;
	fk.slow_block = -1;
	fk.max_small = 0;
	fk.shared_buf = 0;
	fk.nr_inflight = 0;
	fk.ring = NULL;
	/* Write through one fd, then open the file read-only as a device would be. */
	snprintf(tmp_path, sizeof(tmp_path), "%s/mediascan-test-executor.XXXXXX",
		 getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	wfd = mkstemp(tmp_path);
	assert_true(wfd >= 0);
	{
		char *buf = malloc(FILE_BYTES);

		assert_non_null(buf);
		for (size_t i = 0; i < FILE_BYTES; i++)
			buf[i] = (char)(i * 7 + 3);
		assert_int_equal(pwrite(wfd, buf, FILE_BYTES, 0), FILE_BYTES);
		free(buf);
	}
	fk.fd = open(tmp_path, O_RDONLY | O_CLOEXEC);
	assert_true(fk.fd >= 0);
	close(wfd);
	unlink(tmp_path);

	/* Three ranges: a plain 1M, a 1M with a bridged 128K gap, a 100K tail. */
	memset(R, 0, sizeof(R));
	R[0].offset = 0;
	R[0].length = 1 * MiB;
	R[1].offset = 1 * MiB + 512 * KiB;
	R[1].length = 1 * MiB;
	R[1].nr_gaps = 1;
	R[1].gaps[0] = (struct scan_gap){ 2 * MiB, 128 * KiB };
	R[2].offset = 3 * MiB;
	R[2].length = 100 * KiB;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (fk.fd >= 0)
		close(fk.fd);
	fk.fd = -1;
	return 0;
}

static int cmp_err(const void *a, const void *b)
{
	const struct scan_error *x = a, *y = b;

	if (x->dev_idx != y->dev_idx)
		return x->dev_idx < y->dev_idx ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void error_is(const struct scan_error *e, uint64_t off, uint64_t len, int err,
		     enum scan_err_class cls, int in_gap)
{
	assert_int_equal(e->dev_idx, 0);
	assert_int_equal(e->offset, off);
	assert_int_equal(e->length, len);
	assert_int_equal(e->err, err);
	assert_int_equal(e->cls, cls);
	assert_int_equal(e->in_gap, in_gap);
	assert_int_equal(e->reproducible, 1);
}

static void opts_init(struct scan_opts *o, const char *engine)
{
	memset(o, 0, sizeof(*o));
	o->io_size = 128 * KiB;
	o->depth = 4;
	o->engine = engine;
	o->isolate_step_bytes = 4096;
}

#define PLANNED (1 * MiB + (1 * MiB - 128 * KiB) + 100 * KiB)

/* Bad blocks: one in R0, a run of 4 in R1, one in R1's gap, the last block of R2. */
static void inject_four(void)
{
	fk.err[(100 * KiB) / LBS] = -EIO;
	for (unsigned i = 0; i < 4; i++)
		fk.err[(1 * MiB + 600 * KiB) / LBS + i] = -ENODATA;
	fk.err[(2 * MiB + 64 * KiB) / LBS] = -EIO;
	fk.err[(3 * MiB + 100 * KiB) / LBS - 1] = -EILSEQ;
}

static void check_four(struct scan_result *r)
{
	assert_int_equal(r->fatal, 0);
	assert_int_equal(r->complete, 1);
	assert_int_equal(r->planned_bytes, PLANNED);
	assert_int_equal(r->scanned_bytes, r->planned_bytes);
	assert_int_equal(r->nr_errors, 4);
	qsort(r->errors, r->nr_errors, sizeof(*r->errors), cmp_err);
	error_is(&r->errors[0], 100 * KiB, LBS, -EIO, SCAN_ERR_MEDIA, 0);
	error_is(&r->errors[1], 1 * MiB + 600 * KiB, 4 * LBS, -ENODATA, SCAN_ERR_MEDIA, 0);
	error_is(&r->errors[2], 2 * MiB + 64 * KiB, LBS, -EIO, SCAN_ERR_MEDIA, 1);
	error_is(&r->errors[3], 3 * MiB + 100 * KiB - LBS, LBS, -EILSEQ, SCAN_ERR_PI, 0);
	/* A 128K read narrowed in two levels (4K pieces, then blocks): read 1 + 1 + 1 times. */
	assert_int_equal(r->errors[0].reads, 3);
	assert_int_equal(r->errors[1].reads, 3);
	assert_int_equal(r->errors[2].reads, 3);
	assert_int_equal(r->errors[3].reads, 3);
	/* 17 reads of which 4 failed: 13 whole 128K reads came back. */
	assert_int_equal(r->read_bytes, 13 * 128 * KiB);
}

static void test_sync_clean(void **state)
{
	struct scan_device dev = { 0 };
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, "sync");
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_string_equal(r.engine, "sync");
	assert_int_equal(r.fatal, 0);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.planned_bytes, PLANNED);
	assert_int_equal(r.scanned_bytes, PLANNED);
	/* Everything read, gap included: 1M + 1M + 100K, in 8 + 8 + 1 reads. */
	assert_int_equal(r.read_bytes, 2 * MiB + 100 * KiB);
	assert_int_equal(fk.preads, 17);
	assert_int_equal(r.nr_errors, 0);
	assert_int_equal(r.isolation_reads, 0);
	assert_int_equal(s.pos, 3);
	scan_result_free(&r);
}

static void test_sync_errors(void **state)
{
	struct scan_device dev = { 0 };
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	inject_four();
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, "sync");
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_string_equal(r.engine, "sync");
	check_four(&r);
	/* Every kio_pread beyond the 17 scan reads was an isolation read. */
	assert_int_equal(r.isolation_reads, fk.preads - 17);
	/* Three 128K reads, 32 pieces + the 8 blocks of the bad one; the 100K tail 25 + 8. */
	assert_int_equal(r.isolation_reads, 3 * (32 + 8) + 25 + 8);
	scan_result_free(&r);
}

static void test_sync_operational(void **state)
{
	struct scan_device dev = { 0 };
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 1, .per_call = 1 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	/* A read that fails with an errno that is not media damage is not isolated. */
	fk.err[(300 * KiB) / LBS] = -EINVAL;
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, "sync");
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_int_equal(r.nr_errors, 1);
	error_is(&r.errors[0], 256 * KiB, 128 * KiB, -EINVAL, SCAN_ERR_OPERATIONAL, 0);
	assert_int_equal(r.errors[0].reads, 1);
	assert_int_equal(r.isolation_reads, 0);
	assert_int_equal(fk.preads, 8);
	scan_result_free(&r);
}

static void test_source_error(void **state)
{
	struct scan_device dev = { 0 };
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 1, .fail_at = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	/* The plan fails after the first range: the scan stops, says why, is incomplete. */
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, "sync");
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_int_equal(r.fatal, -EIO);
	assert_true(r.fatal_msg[0] != '\0');
	assert_int_equal(r.complete, 0);
	assert_int_equal(r.planned_bytes, 1 * MiB);
	assert_int_equal(r.scanned_bytes, 1 * MiB);
	scan_result_free(&r);
}

static void test_bad_args(void **state)
{
	struct scan_device dev = { .fd = fk.fd, .logical_block_size = LBS };
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 1 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	memset(&r, 0, sizeof(r));
	opts_init(&o, "sync");
	assert_int_equal(scan_run(&dev, 0, &src, &o, &r), -EINVAL);
	o.depth = 0;
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), -EINVAL);
	opts_init(&o, "sync");
	o.io_size = 0;
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), -EINVAL);
	opts_init(&o, "no-such-engine");
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), -EOPNOTSUPP);
	assert_true(strstr(r.fatal_msg, "no-such-engine") != NULL);
	assert_int_equal(fk.preads, 0);
	scan_result_free(&r);
}

static void test_uring_errors(void **state)
{
	struct scan_device dev = { 0 };
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 2 };
	struct scan_source src = { .next = src_next, .arg = &s };
	char why[256] = "", refused[256];

	(void)state;
	if (!scan_engine_pick("uring", why, sizeof(why), refused, sizeof(refused))) {
		print_message("skipped: %s\n", why);
		skip();
	}
	inject_four();
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, "uring");
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_string_equal(r.engine, "uring");
	check_four(&r);
	/* Every read, isolation's too, went through the ring: none through kio_pread. */
	assert_int_equal(fk.preads, 0);
	assert_true(fk.steered > 4);
	assert_int_equal(fk.nr_pending, 0);
	/* Isolation's pieces and blocks went out together, a queue depth (4) at a time. */
	assert_true(fk.max_small >= 4);
	/* ... each into bytes of its own: the kernel checks PI in the buffer after a read. */
	assert_int_equal(fk.shared_buf, 0);
	scan_result_free(&r);

	/* And a clean pass reads everything through the ring. */
	memset(fk.err, 0, sizeof(fk.err));
	fk.shared_buf = 0;
	fk.preads = 0;
	fk.steered = 0;
	s.pos = 0;
	s.calls = 0;
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_int_equal(r.complete, 1);
	assert_int_equal(r.nr_errors, 0);
	assert_int_equal(r.scanned_bytes, PLANNED);
	assert_int_equal(r.read_bytes, 2 * MiB + 100 * KiB);
	assert_int_equal(fk.preads, 0);
	/* The loop's reads went out together, each into bytes of its own (PI checks). */
	assert_true(r.max_inflight > 1);
	assert_int_equal(fk.shared_buf, 0);
	scan_result_free(&r);
}

/* Every checkpoint the scan handed out, with copies of its new errors. */
#define MAX_CKPT 256
static struct {
	unsigned nr;
	uint64_t cursor[MAX_CKPT];
	uint64_t scanned[MAX_CKPT];
	uint64_t ranges_done[MAX_CKPT];
	int final[MAX_CKPT];
	struct scan_error errors[64];
	size_t nr_errors;
} ck;

static int on_checkpoint(const struct scan_checkpoint *c, void *arg)
{
	(void)arg;
	assert_true(ck.nr < MAX_CKPT);
	assert_int_equal(c->nr_devs, 1);
	ck.cursor[ck.nr] = c->cursor[0];
	ck.scanned[ck.nr] = c->scanned_bytes;
	ck.ranges_done[ck.nr] = c->ranges_done;
	ck.final[ck.nr] = c->final;
	ck.nr++;
	for (size_t i = 0; i < c->nr_new_errors; i++) {
		assert_true(ck.nr_errors < 64);
		ck.errors[ck.nr_errors++] = c->new_errors[i];
	}
	return 0;
}

static void test_checkpoints(void **state)
{
	struct scan_device dev = { 0 };
	struct scan_opts o;
	struct scan_result r;
	struct src s = { .ranges = R, .nr = 3, .per_call = 1 };
	struct scan_source src = { .next = src_next, .arg = &s };

	(void)state;
	memset(&ck, 0, sizeof(ck));
	inject_four();
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, "sync");
	o.depth = 1;
	o.checkpoint = on_checkpoint;
	o.checkpoint_interval_ns = 1;		/* after every completion */
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	assert_int_equal(r.complete, 1);
	assert_true(ck.nr >= 2);
	/* The cursor only moves forward, and the last checkpoint says the device is done. */
	for (unsigned i = 1; i < ck.nr; i++) {
		assert_true(ck.cursor[i] >= ck.cursor[i - 1]);
		assert_true(ck.scanned[i] >= ck.scanned[i - 1]);
		assert_int_equal(ck.final[i - 1], 0);
	}
	assert_int_equal(ck.final[ck.nr - 1], 1);
	assert_int_equal(ck.cursor[ck.nr - 1], UINT64_MAX);
	assert_int_equal(ck.scanned[ck.nr - 1], PLANNED);
	/* Each error was handed to a checkpoint exactly once, as the result has it. */
	assert_int_equal(ck.nr_errors, r.nr_errors);
	for (size_t i = 0; i < r.nr_errors; i++) {
		assert_int_equal(ck.errors[i].offset, r.errors[i].offset);
		assert_int_equal(ck.errors[i].length, r.errors[i].length);
	}
	scan_result_free(&r);
}

static volatile sig_atomic_t stop_flag;
static unsigned stop_after;

static int stop_on_checkpoint(const struct scan_checkpoint *c, void *arg)
{
	int ret = on_checkpoint(c, arg);

	if (ck.nr == stop_after)
		stop_flag = 1;			/* as SIGINT's handler would */
	return ret;
}

/* Scan ranges[0..3) at depth 1, a checkpoint after every read, stopped at checkpoint stop_at
 * (0: never); ck has the checkpoints. */
static void scan_stopping(const struct scan_range *ranges, unsigned stop_at, struct scan_result *r)
{
	struct scan_device dev = { 0 };
	struct scan_opts o;
	struct src s = { .ranges = ranges, .nr = 3, .per_call = 3 };
	struct scan_source src = { .next = src_next, .arg = &s };

	memset(&ck, 0, sizeof(ck));
	stop_flag = 0;
	stop_after = stop_at;
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, "sync");
	o.depth = 1;
	o.checkpoint = stop_on_checkpoint;
	o.checkpoint_interval_ns = 1;
	o.stop = &stop_flag;
	memset(r, 0, sizeof(*r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, r), 0);
}

static void test_stop_and_cursor(void **state)
{
	struct scan_result r;

	(void)state;
	scan_stopping(R, 5, &r);
	/* Five 128K reads, then the stop: incomplete, and the cursor is exactly at 640K. */
	assert_int_equal(r.complete, 0);
	assert_int_equal(r.stopped, 1);
	assert_int_equal(r.fatal, 0);
	assert_int_equal(r.scanned_bytes, 640 * KiB);
	assert_int_equal(fk.preads, 5);
	assert_int_equal(ck.nr, 6);			/* five periodic, one final */
	assert_int_equal(ck.final[5], 1);
	assert_int_equal(ck.cursor[5], 640 * KiB);
	assert_int_equal(ck.scanned[5], 640 * KiB);
	scan_result_free(&r);
}

/*
 * A source whose ranges are not in offset order (a stacked filesystem read on its members):
 * the checkpoints count the ranges read in full in the source's order, never one that is
 * only partly read, and a complete run counts them all.
 */
static void test_ranges_done(void **state)
{
	struct scan_result r;
	struct scan_range rev[3];

	(void)state;
	rev[0] = R[2];				/* 100K at 3M: one read */
	rev[1] = R[0];				/* 1M at 0: eight 128K reads */
	rev[2] = R[1];
	scan_stopping(rev, 5, &r);
	assert_int_equal(r.stopped, 1);
	assert_int_equal(ck.nr, 6);
	/* after the first read the 100K range is done; the 1M one is read 4/8 at the stop */
	for (unsigned i = 0; i < ck.nr; i++)
		assert_int_equal(ck.ranges_done[i], 1);
	scan_result_free(&r);

	/* the whole run: every range done at the end, and the count never goes back */
	scan_stopping(rev, 0, &r);
	assert_int_equal(r.complete, 1);
	for (unsigned i = 1; i < ck.nr; i++)
		assert_true(ck.ranges_done[i] >= ck.ranges_done[i - 1]);
	assert_int_equal(ck.ranges_done[ck.nr - 1], 3);
	scan_result_free(&r);
}

/*
 * Regression (was a bug): mediascan/executor.c exec_checkpoint() hands out
 * r->errors[errors_checkpointed..nr_errors) only, but scan_result_add()
 * (mediascan/isolate.c) may coalesce a later bad block into the last error that was
 * already checkpointed. The growth never reaches the checkpoint (the state store keeps the
 * old, shorter error: its rows are keyed by offset and length), so a resumed pass and the
 * error history miss bad blocks. Here: the last block of one read and the first of the
 * next are bad; the result has one 1024-byte error, the checkpoints only 512 bytes of it.
 */
static void test_checkpoint_sees_coalesced_error(void **state)
{
	struct scan_device dev = { 0 };
	struct scan_opts o;
	struct scan_result r;
	struct scan_range one;
	struct src s = { .ranges = &one, .nr = 1, .per_call = 1 };
	struct scan_source src = { .next = src_next, .arg = &s };
	uint64_t covered = 0;

	(void)state;
	memset(&ck, 0, sizeof(ck));
	memset(&one, 0, sizeof(one));
	one.offset = 0;
	one.length = 64 * KiB;
	fk.err[7] = -EIO;			/* last block of the read [0, 4K) */
	fk.err[8] = -EIO;			/* first block of the read [4K, 8K) */
	dev.fd = fk.fd;
	dev.logical_block_size = LBS;
	opts_init(&o, "sync");
	o.depth = 1;
	o.io_size = 4096;
	o.checkpoint = on_checkpoint;
	o.checkpoint_interval_ns = 1;
	memset(&r, 0, sizeof(r));
	assert_int_equal(scan_run(&dev, 1, &src, &o, &r), 0);
	/*
	 * The result holds both blocks; the second is not merged into the first, already
	 * checkpointed one (the report coalesces them for display).
	 */
	assert_int_equal(r.nr_errors, 2);
	error_is(&r.errors[0], 7 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 0);
	error_is(&r.errors[1], 8 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 0);
	scan_result_free(&r);
	/* Every bad byte must have reached a checkpoint. */
	for (size_t i = 0; i < ck.nr_errors; i++) {
		uint64_t s0 = ck.errors[i].offset, e0 = s0 + ck.errors[i].length;

		if (s0 < 7 * LBS)
			s0 = 7 * LBS;
		if (e0 > 9 * LBS)
			e0 = 9 * LBS;
		if (e0 > s0)
			covered += e0 - s0;
	}
	assert_int_equal(covered, 2 * LBS);
}

/* The I/O-size policy (scan_io_size): 1 MiB within every device's limit, whole blocks. */
static void test_io_size(void **state)
{
	struct scan_device d[2] = {
		{ .logical_block_size = 512, .max_io_bytes = 0 },
		{ .logical_block_size = 4096, .max_io_bytes = 512 * KiB },
	};

	(void)state;
	assert_int_equal(scan_io_size(d, 1, 0), 1 * MiB);		/* no limit known */
	assert_int_equal(scan_io_size(d, 2, 0), 512 * KiB);		/* the smaller limit */
	assert_int_equal(scan_io_size(d, 2, 10000), 8192);		/* asked: whole 4K blocks */
	assert_int_equal(scan_io_size(d, 2, 4 * MiB), 4 * MiB);	/* asked beats the limit */
	assert_int_equal(scan_io_size(d, 2, 100), 4096);		/* at least one block */
	d[1].max_io_bytes = 128 * KiB;
	assert_int_equal(scan_io_size(d, 2, 0), 128 * KiB);
}

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
		cmocka_unit_test_setup_teardown(test_sync_clean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_operational, setup, teardown),
		cmocka_unit_test_setup_teardown(test_source_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_args, setup, teardown),
		cmocka_unit_test_setup_teardown(test_uring_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoints, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_and_cursor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_sees_coalesced_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ranges_done, setup, teardown),
		cmocka_unit_test(test_io_size),
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
