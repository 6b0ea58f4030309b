/*
 * tests/unit/test_executor_ckpt.c - mediascan/executor.c's checkpoints and stops: scan_run over
 * the fake disk's temporary file hands cursors and errors to the checkpoint callback, stops at a
 * signal with a cursor a resume can trust, counts the ranges read in full, and a checkpoint
 * sees an error coalesced from two reads. The fake disk and the source are in fake_disk.c, the
 * fixture in exec_fixture.c.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_checkpoints, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_and_cursor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_sees_coalesced_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ranges_done, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
