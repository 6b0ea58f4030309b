/*
 * tests/unit/test_executor.c - mediascan/executor.c: scan_run over a real temporary file
 * (opened without O_DIRECT) with a scan_source yielding a few ranges: clean and failing reads
 * on the sync and io_uring engines, operational errors, a failing source, bad arguments and
 * the I/O size. Failures are injected at chosen 512-byte blocks by wrapping kio_pread (the
 * sync engine's reads and every isolation read) and, for the io_uring engine, by steering the
 * submitted reads that cover a bad block past the end of the file (a short read, which the
 * executor takes as -EIO) through a wrapped io_uring_submit. Checkpoints and stops are
 * tested in test_executor_ckpt.c, drive-side commands in test_executor_cmd.c. The fake disk
 * and the source are in fake_disk.c, the fixture in exec_fixture.c.
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
#include "exec.h"
#include "exec_fixture.h"
#include "fake_disk.h"

static int cmp_err(const void *a, const void *b)
{
	const struct scan_error *x = a, *y = b;

	if (x->dev_idx != y->dev_idx)
		return x->dev_idx < y->dev_idx ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
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

/* A read the block layer splits counts as its pieces in the disk's counts (pacing subtracts
 * our requests from them: the rest would pass for another user's). */
static void test_own_split_reads(void **state)
{
	struct exec *x = calloc(1, sizeof(*x));
	struct scan_gov_own own = { 0 };

	(void)state;
	assert_non_null(x);
	x->own.split[0] = 508 * KiB;		/* NVMe's 127 segments of small pages */
	exec_own_read(x, 0, 512 * KiB, 1000);	/* two requests */
	exec_own_read(x, 0, 256 * KiB, 500);	/* one */
	exec_own_read(x, 1, 512 * KiB, 700);	/* no split known: one */
	exec_own_sum(x, 0, &own);
	assert_int_equal(own.ios, 3);
	assert_int_equal(own.ns, 2 * 1000 + 500);
	assert_int_equal(own.sectors, (768 * KiB) / 512);
	memset(&own, 0, sizeof(own));
	exec_own_sum(x, 1, &own);
	assert_int_equal(own.ios, 1);
	assert_int_equal(own.ns, 700);
	free(x);
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
		cmocka_unit_test(test_io_size),
		cmocka_unit_test(test_own_split_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
