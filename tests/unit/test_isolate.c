/*
 * tests/unit/test_isolate.c - mediascan/isolate.c: a failed read narrowed to its exact
 * failing logical blocks over a fake device (struct scan_isolate.read, or .read_many for
 * reads issued together), how often each bad block is re-read (at most twice after the
 * failed read: its piece and itself), the narrowing plan (piece size, windows of queue
 * depth, the work bounded on a wide bad region), stop, gaps, transient failures, error
 * classes and result coalescing. The fake device is in fake_isodev.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "scan.h"
#include "fake_isodev.h"

static struct scan_result res;
static struct scan_isolate si;

/* Drop the errors found so far (scan_result_free lives with the executor). */
static void result_clear(void)
{
	free(res.errors);
	res.errors = NULL;
	res.nr_errors = 0;
}

static int setup(void **state)
{
	(void)state;
	memset(&dev, 0, sizeof(dev));
	memset(&res, 0, sizeof(res));
	isobuf = aligned_alloc(4096, 1 * MiB);
	assert_non_null(isobuf);
	memset(&si, 0, sizeof(si));
	si.read_arg = (void *)(uintptr_t)FAKE_FD;
	si.dev_idx = 1;
	si.lbs = LBS;
	si.step_bytes = 64 * KiB;		/* as the scan sets it */
	si.buf = isobuf;
	si.read = fake_read;
	si.range = NULL;
	si.r = &res;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	result_clear();
	free(isobuf);
	return 0;
}

static void bad(unsigned block, int err)
{
	dev.err[block] = err;
}

static void error_is(const struct scan_error *e, uint64_t off, uint64_t len, int err,
		     enum scan_err_class cls, unsigned reads, int in_gap, int reproducible)
{
	assert_int_equal(e->dev_idx, 1);
	assert_int_equal(e->offset, off);
	assert_int_equal(e->length, len);
	assert_int_equal(e->err, err);
	assert_int_equal(e->cls, cls);
	assert_int_equal(e->reads, reads);
	assert_int_equal(e->in_gap, in_gap);
	assert_int_equal(e->reproducible, reproducible);
}

static void test_one_bad_block(void **state)
{
	(void)state;
	/* A 1 MiB read (2048 blocks) failed; block 777 is the bad one. */
	bad(777, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	/* Read by: the failed read, its 32K piece, itself (bisection: 1 + 11 + 1). */
	error_is(&res.errors[0], 777 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 1 + 1 + 1, 0, 1);
	/* 32 pieces of 64 blocks (sqrt of 2048, a power of two), then the bad piece's 64. */
	assert_int_equal(si.reads, 32 + 64);
	assert_int_equal(dev.reads, si.reads);
	/* The bad block itself was read twice here (plus the original failed read). */
	assert_int_equal(dev.block_reads[777], 2);
	assert_int_equal(dev.max_len, 32 * KiB);
}

static void test_one_bad_block_offset(void **state)
{
	(void)state;
	/* The same at a device offset that is not 1 MiB aligned, and the last block. */
	bad(3000 + 2047, -EIO);
	assert_int_equal(scan_isolate_range(&si, 3000 * LBS, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], (3000 + 2047) * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	assert_int_equal(si.reads, 32 + 64);
	assert_int_equal(dev.block_reads[3000 + 2047], 2);
}

static void test_step_bytes(void **state)
{
	(void)state;
	/* Pieces bounded at 4K: 256 of them, then the bad one's 8 blocks. */
	si.step_bytes = 4096;
	bad(1234, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 1234 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	assert_int_equal(si.reads, 256 + 8);
	assert_int_equal(dev.max_len, 4096);

	/* No bound: sqrt pieces (64 blocks) again; 4K blocks: 256 blocks, pieces of 16. */
	result_clear();
	memset(&dev, 0, sizeof(dev));
	si.reads = 0;
	si.step_bytes = 0;
	bad(1234, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(si.reads, 32 + 64);
	result_clear();
	memset(&dev, 0, sizeof(dev));
	si.reads = 0;
	si.lbs = 4096;
	bad(8 * 100, -EIO);			/* the 4K block at 400K */
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 400 * KiB, 4096, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	assert_int_equal(si.reads, 16 + 16);
	assert_int_equal(dev.max_len, 64 * KiB);
}

static void test_two_bad_blocks(void **state)
{
	(void)state;
	bad(10, -EIO);
	bad(1500, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 2);
	error_is(&res.errors[0], 10 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	error_is(&res.errors[1], 1500 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	/* 32 pieces, then the blocks of the two bad ones. */
	assert_int_equal(si.reads, 32 + 2 * 64);

	/* Two bad blocks in the same 4K: both found, not merged (one good block between). */
	result_clear();
	memset(&dev, 0, sizeof(dev));
	si.reads = 0;
	bad(100, -EIO);
	bad(102, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 2);
	error_is(&res.errors[0], 100 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	error_is(&res.errors[1], 102 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	assert_int_equal(si.reads, 32 + 64);
}

static void test_adjacent_run_coalesced(void **state)
{
	(void)state;
	/* Blocks 1022..1025 straddle a piece boundary (1024): still one error. */
	for (unsigned b = 1022; b <= 1025; b++)
		bad(b, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 1022 * LBS, 4 * LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	assert_int_equal(si.reads, 32 + 2 * 64);

	/* A run of 64 bad blocks: one error of 32K. */
	result_clear();
	memset(&dev, 0, sizeof(dev));
	for (unsigned b = 128; b < 192; b++)
		bad(b, -ENODATA);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -ENODATA), 0);
	assert_int_equal(res.nr_errors, 1);
	assert_int_equal(res.errors[0].offset, 128 * LBS);
	assert_int_equal(res.errors[0].length, 64 * LBS);
	assert_int_equal(res.errors[0].err, -ENODATA);
	assert_int_equal(res.errors[0].reproducible, 1);
	assert_int_equal(res.errors[0].reads, 3);
	for (unsigned b = 128; b < 192; b++)
		assert_int_equal(dev.block_reads[b], 2);
}

static void test_different_errno_not_coalesced(void **state)
{
	(void)state;
	bad(200, -EIO);
	bad(201, -ENODATA);
	bad(202, -EILSEQ);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 3);
	error_is(&res.errors[0], 200 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	error_is(&res.errors[1], 201 * LBS, LBS, -ENODATA, SCAN_ERR_MEDIA, 3, 0, 1);
	error_is(&res.errors[2], 202 * LBS, LBS, -EILSEQ, SCAN_ERR_PI, 3, 0, 1);
}

static void test_error_classes(void **state)
{
	(void)state;
	bad(50, -ENODATA);
	bad(900, -EILSEQ);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -ENODATA), 0);
	assert_int_equal(res.nr_errors, 2);
	error_is(&res.errors[0], 50 * LBS, LBS, -ENODATA, SCAN_ERR_MEDIA, 3, 0, 1);
	error_is(&res.errors[1], 900 * LBS, LBS, -EILSEQ, SCAN_ERR_PI, 3, 0, 1);
	assert_string_equal(scan_error_name(&res.errors[0]), "ENODATA");
	assert_string_equal(scan_error_name(&res.errors[1]), "EILSEQ");

	assert_int_equal(scan_classify(-EIO), SCAN_ERR_MEDIA);
	assert_int_equal(scan_classify(-ENODATA), SCAN_ERR_MEDIA);
	assert_int_equal(scan_classify(-EILSEQ), SCAN_ERR_PI);
	assert_int_equal(scan_classify(-ETIME), SCAN_ERR_TIMEOUT);
	assert_int_equal(scan_classify(-EINVAL), SCAN_ERR_OPERATIONAL);
	assert_int_equal(scan_classify(-EBADF), SCAN_ERR_OPERATIONAL);
	assert_int_equal(scan_classify(-ENOMEM), SCAN_ERR_OPERATIONAL);
	assert_int_equal(scan_classify(0), SCAN_ERR_OPERATIONAL);
}

static void test_error_names(void **state)
{
	struct scan_error e;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.err = -EIO;
	e.cls = SCAN_ERR_MEDIA;
	assert_string_equal(scan_error_name(&e), "EIO");
	e.err = -ETIME;
	e.cls = SCAN_ERR_TIMEOUT;
	assert_string_equal(scan_error_name(&e), "timeout");
	e.err = -EBADF;
	e.cls = SCAN_ERR_OPERATIONAL;
	assert_string_equal(scan_error_name(&e), "EBADF");
}

static void test_in_gap(void **state)
{
	struct scan_range rg;

	(void)state;
	/* The read [0, 1M) bridged a gap [256K, 320K) (free space between two extents). */
	memset(&rg, 0, sizeof(rg));
	rg.offset = 0;
	rg.length = 1 * MiB;
	rg.nr_gaps = 1;
	rg.gaps[0] = (struct scan_gap){ 256 * KiB, 64 * KiB };
	si.range = &rg;
	bad(100, -EIO);				/* planned */
	bad(600, -EIO);				/* 300K: in the gap */
	/* A run across the gap's end: 319K .. 321K, half gap, half planned. */
	bad(638, -EIO);
	bad(639, -EIO);
	bad(640, -EIO);
	bad(641, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 4);
	error_is(&res.errors[0], 100 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	error_is(&res.errors[1], 600 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 1, 1);
	error_is(&res.errors[2], 638 * LBS, 2 * LBS, -EIO, SCAN_ERR_MEDIA, 3, 1, 1);
	error_is(&res.errors[3], 640 * LBS, 2 * LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
}

static void test_not_reproducible(void **state)
{
	(void)state;
	/* The read failed once (the caller saw it); every re-read now succeeds. */
	assert_int_equal(scan_isolate_range(&si, 64 * KiB, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 64 * KiB, 1 * MiB, -EIO, SCAN_ERR_MEDIA, 1, 0, 0);
	assert_int_equal(si.reads, 32);		/* every piece read fine: stop there */

	/* The same with a gap inside: the report is split where planned and gap bytes meet. */
	{
		struct scan_range rg;

		result_clear();
		si.reads = 0;
		memset(&rg, 0, sizeof(rg));
		rg.offset = 0;
		rg.length = 1 * MiB;
		rg.nr_gaps = 1;
		rg.gaps[0] = (struct scan_gap){ 512 * KiB, 128 * KiB };
		si.range = &rg;
		assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -ENODATA), 0);
		assert_int_equal(res.nr_errors, 3);
		error_is(&res.errors[0], 0, 512 * KiB, -ENODATA, SCAN_ERR_MEDIA, 1, 0, 0);
		error_is(&res.errors[1], 512 * KiB, 128 * KiB, -ENODATA, SCAN_ERR_MEDIA, 1, 1, 0);
		error_is(&res.errors[2], 640 * KiB, 384 * KiB, -ENODATA, SCAN_ERR_MEDIA, 1, 0, 0);
	}
}

static void test_single_block_read(void **state)
{
	(void)state;
	/* A failed one-block read: the block is read once more and reported (2 reads). */
	bad(5, -EIO);
	assert_int_equal(scan_isolate_range(&si, 5 * LBS, LBS, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 5 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 2, 0, 1);
	assert_int_equal(si.reads, 1);
}

static void test_odd_length(void **state)
{
	(void)state;
	/* 3 blocks, a short span: each block read once more; the bad one is the last. */
	bad(402, -EIO);
	assert_int_equal(scan_isolate_range(&si, 400 * LBS, 3 * LBS, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 402 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 2, 0, 1);
	assert_int_equal(si.reads, 3);
	assert_int_equal(dev.block_reads[402], 1);
}

static void test_short_read_is_failure(void **state)
{
	(void)state;
	/* A read that comes back short counts as failed (-EIO) for the blocks it lost. */
	si.read = short_read;
	bad(300, -EREMOTEIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 300 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
}

static void test_direct(void **state)
{
	(void)state;
	/* No kernel retries to spare (passthrough): every block at once, 2 reads of a bad one. */
	si.direct = 1;
	si.read_many = fake_read_many;
	si.depth = 16;
	bad(777, -ENODATA);
	bad(1800, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 2);
	error_is(&res.errors[0], 777 * LBS, LBS, -ENODATA, SCAN_ERR_MEDIA, 2, 0, 1);
	error_is(&res.errors[1], 1800 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 2, 0, 1);
	assert_int_equal(si.reads, 2048);
	assert_int_equal(dev.block_reads[777], 1);
	assert_int_equal(dev.max_len, LBS);
	/* Read a queue depth at a time, even blocks then odd: 256 batches of 8. */
	assert_int_equal(dev.batches, 256);
	assert_int_equal(dev.batch_len[0], 8);
	assert_int_equal(dev.batch_first[1], LBS);
}

static void test_queue_depth_windows(void **state)
{
	static const unsigned want[] = { 4, 4, 32, 32, 4, 4, 4, 4, 4, 4, 32, 32 };

	(void)state;
	/*
	 * Pieces go out a queue depth (8) at a time, even ones then odd ones (neighbours never
	 * together), and a window's failing pieces are read block by block (32 even, 32 odd)
	 * before the next window's pieces: a failing disk stopped by --max-failed-reads has
	 * its first bad blocks named.
	 */
	si.read_many = fake_read_many;
	si.depth = 8;
	bad(10, -EIO);
	bad(2000, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 2);
	error_is(&res.errors[0], 10 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	error_is(&res.errors[1], 2000 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	assert_int_equal(dev.batches, 12);
	for (unsigned i = 0; i < 12; i++)
		assert_int_equal(dev.batch_len[i], want[i]);
	assert_int_equal(dev.batch_first[1], 32 * KiB);
	assert_int_equal(dev.batch_first[2], 0);
	assert_int_equal(dev.batch_first[3], LBS);
	assert_int_equal(dev.batch_first[4], 8 * 32 * KiB);
	assert_int_equal(dev.batch_first[10], 31 * 32 * KiB);
	assert_int_equal(dev.batch_first[11], 31 * 32 * KiB + LBS);
	assert_int_equal(si.reads, 32 + 2 * 64);
}

static void test_wide_bad_region(void **state)
{
	(void)state;
	/* Every block of the 1 MiB read is bad: 32 pieces, then 2048 blocks, no more. */
	si.read_many = fake_read_many;
	si.depth = 16;
	for (unsigned b = 0; b < 2048; b++)
		bad(4096 + b, -EIO);
	assert_int_equal(scan_isolate_range(&si, 4096 * LBS, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 4096 * LBS, 1 * MiB, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	assert_int_equal(si.reads, 32 + 2048);
	for (unsigned b = 0; b < 2048; b++)
		assert_int_equal(dev.block_reads[4096 + b], 2);
}

static void test_stop_while_narrowing(void **state)
{
	(void)state;
	/*
	 * The scan stops while the first bad piece's (even) blocks are read: what failed so
	 * far is kept, nothing is said of the rest, and -EINTR tells the caller.
	 */
	si.read_many = fake_read_many;
	si.depth = 8;
	bad(10, -EIO);
	bad(20, -EIO);
	bad(50, -EIO);
	bad(1000, -EIO);
	dev.stop_after = 8 + 20;		/* blocks 0, 2, .. 38 */
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), -EINTR);
	assert_int_equal(res.nr_errors, 2);
	error_is(&res.errors[0], 10 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	error_is(&res.errors[1], 20 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 3, 0, 1);
	assert_int_equal(dev.reads, 28);
	assert_int_equal(dev.batches, 3);

	/* Stopped during the pieces: nothing narrowed, nothing recorded. */
	result_clear();
	memset(&dev, 0, sizeof(dev));
	si.reads = 0;
	bad(10, -EIO);
	dev.stop_after = 5;
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), -EINTR);
	assert_int_equal(res.nr_errors, 0);
	assert_int_equal(si.reads, 5);
}

/* A small deterministic generator for the property test. */
static uint32_t rnd_state = 12345;

static uint32_t rnd(uint32_t n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

static void test_property_reads_per_bad_block(void **state)
{
	(void)state;
	/*
	 * Spans of every length up to 2048 blocks, bad blocks scattered and in runs, read one
	 * by one or together: exactly the bad blocks are reported, each read at most three
	 * times in all (two for spans of 16 blocks or fewer), and no error says more.
	 */
	for (unsigned trial = 0; trial < 400; trial++) {
		uint64_t first = rnd(4096), nb = 1 + rnd(2048);
		unsigned nbad = 1 + rnd(12), reported = 0, want = 0;

		result_clear();
		memset(&dev, 0, sizeof(dev));
		si.reads = 0;
		si.read_many = trial % 2 ? fake_read_many : NULL;
		si.depth = 1 + rnd(32);
		for (unsigned i = 0; i < nbad; i++) {
			uint64_t b = first + rnd((uint32_t)nb), run = trial % 3 ? 1 : 1 + rnd(70);

			for (uint64_t k = b; k < b + run && k < first + nb; k++)
				bad((unsigned)k, i % 2 ? -EIO : -ENODATA);
		}
		assert_int_equal(scan_isolate_range(&si, first * LBS, nb * LBS, -EIO), 0);
		for (uint64_t b = first; b < first + nb; b++) {
			want += dev.err[b] != 0;
			if (dev.err[b])
				assert_true(dev.block_reads[b] <= (nb <= 16 ? 1u : 2u));
		}
		for (size_t i = 0; i < res.nr_errors; i++) {
			const struct scan_error *e = &res.errors[i];

			assert_int_equal(e->reproducible, 1);
			assert_true(e->reads <= (nb <= 16 ? 2u : 3u));
			for (uint64_t b = e->offset / LBS; b < (e->offset + e->length) / LBS; b++) {
				assert_true(b >= first && b < first + nb);
				assert_int_equal(dev.err[b], e->err);
				reported++;
			}
		}
		assert_int_equal(reported, want);
		/* The work stays bounded: pieces, plus the blocks of at most 3 pieces per bad run. */
		assert_true(si.reads <= (nb <= 16 ? nb : nb / 16 + 1 + 64 * (uint64_t)nbad * 3));
	}
}

/* Errors from drive-side methods keep their own details: PI errors never merge, others only
 * with the same device failure and status. */
static void test_result_add_device_details(void **state)
{
	struct scan_error e;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.offset = 10 * LBS;
	e.length = LBS;
	e.err = -EILSEQ;
	e.cls = SCAN_ERR_PI;
	e.reads = 1;
	e.reproducible = 1;
	e.vfy_fail = VFY_FAIL_PI_GUARD;
	e.dev_status = 0x282;
	e.pi_expected = 0xa77c;
	e.pi_found = 0xa77d;
	assert_int_equal(scan_result_add(&res, &e), 0);
	e.offset = 11 * LBS;			/* adjacent, same tag: still its own values */
	e.pi_expected = 0x1111;
	e.pi_found = 0x2222;
	assert_int_equal(scan_result_add(&res, &e), 0);
	e.offset = 12 * LBS;			/* adjacent reference tag error */
	e.vfy_fail = VFY_FAIL_PI_REF;
	e.dev_status = 0x284;
	e.pi_expected = 12;
	e.pi_found = 12345;
	assert_int_equal(scan_result_add(&res, &e), 0);
	assert_int_equal(res.nr_errors, 3);
	assert_int_equal(res.errors[0].length, LBS);
	assert_int_equal(res.errors[0].pi_found, 0xa77d);
	assert_int_equal(res.errors[1].pi_expected, 0x1111);
	assert_int_equal(res.errors[1].pi_found, 0x2222);
	assert_int_equal(res.errors[2].vfy_fail, VFY_FAIL_PI_REF);
	assert_int_equal(res.errors[2].pi_found, 12345);
	/* Medium errors with the same status merge; a different status does not. */
	memset(&e, 0, sizeof(e));
	e.offset = 20 * LBS;
	e.length = LBS;
	e.err = -ENODATA;
	e.cls = SCAN_ERR_MEDIA;
	e.reads = 2;
	e.reproducible = 1;
	e.vfy_fail = VFY_FAIL_MEDIUM;
	e.dev_status = 0x031100;
	assert_int_equal(scan_result_add(&res, &e), 0);
	e.offset = 21 * LBS;
	assert_int_equal(scan_result_add(&res, &e), 0);
	assert_int_equal(res.nr_errors, 4);
	assert_int_equal(res.errors[3].length, 2 * LBS);
	e.offset = 22 * LBS;
	e.err = -EIO;
	e.vfy_fail = VFY_FAIL_DEVICE;
	e.dev_status = 0x006;
	assert_int_equal(scan_result_add(&res, &e), 0);
	e.offset = 23 * LBS;
	e.dev_status = 0x002;
	assert_int_equal(scan_result_add(&res, &e), 0);
	assert_int_equal(res.nr_errors, 6);
	assert_int_equal(res.errors[4].dev_status, 0x006);
	assert_int_equal(res.errors[5].dev_status, 0x002);
}

static void test_result_add_coalesce(void **state)
{
	struct scan_error e;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.dev_idx = 0;
	e.offset = 4096;
	e.length = 512;
	e.err = -EIO;
	e.cls = SCAN_ERR_MEDIA;
	e.reads = 3;
	e.reproducible = 1;
	assert_int_equal(scan_result_add(&res, &e), 0);
	e.offset = 4608;
	e.reads = 7;
	assert_int_equal(scan_result_add(&res, &e), 0);	/* adjacent: merged */
	assert_int_equal(res.nr_errors, 1);
	assert_int_equal(res.errors[0].length, 1024);
	assert_int_equal(res.errors[0].reads, 7);
	e.offset = 5120;
	e.dev_idx = 1;
	assert_int_equal(scan_result_add(&res, &e), 0);	/* other device */
	e.dev_idx = 1;
	e.offset = 6144;
	assert_int_equal(scan_result_add(&res, &e), 0);	/* not adjacent */
	e.offset = 6656;
	e.in_gap = 1;
	assert_int_equal(scan_result_add(&res, &e), 0);	/* gap status differs */
	e.offset = 7168;
	e.reproducible = 0;
	assert_int_equal(scan_result_add(&res, &e), 0);	/* reproducibility differs */
	assert_int_equal(res.nr_errors, 5);
	/* Many errors: the array grows and keeps them all. */
	for (unsigned i = 0; i < 100; i++) {
		e.offset = 1 * MiB + i * 2048;
		e.length = 512;
		assert_int_equal(scan_result_add(&res, &e), 0);
	}
	assert_int_equal(res.nr_errors, 105);
	assert_int_equal(res.errors[104].offset, 1 * MiB + 99 * 2048);
	assert_int_equal(res.errors[0].offset, 4096);
	assert_int_equal(res.errors[0].length, 1024);
}

/* mediascan/range.c: the planned bytes of a range, gaps left out (as mapping counts them). */
static void test_planned_bytes(void **state)
{
	struct scan_range r;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.offset = 0;
	r.length = 100 * KiB;
	r.nr_gaps = 2;
	r.gaps[0] = (struct scan_gap){ 10 * KiB, 2 * KiB };
	r.gaps[1] = (struct scan_gap){ 50 * KiB, 10 * KiB };
	assert_int_equal(scan_range_planned_bytes(&r, 0, 100 * KiB), 88 * KiB);
	assert_int_equal(scan_range_planned_bytes(&r, 0, 10 * KiB), 10 * KiB);
	assert_int_equal(scan_range_planned_bytes(&r, 10 * KiB, 2 * KiB), 0);	/* all gap */
	assert_int_equal(scan_range_planned_bytes(&r, 11 * KiB, 512), 0);
	assert_int_equal(scan_range_planned_bytes(&r, 9 * KiB, 4 * KiB), 2 * KiB);
	assert_int_equal(scan_range_planned_bytes(&r, 11 * KiB, 44 * KiB), 38 * KiB);
	assert_int_equal(scan_range_planned_bytes(&r, 55 * KiB, 10 * KiB), 5 * KiB);
	/* Clipped to the range. */
	assert_int_equal(scan_range_planned_bytes(&r, 90 * KiB, 100 * KiB), 10 * KiB);
	assert_int_equal(scan_range_planned_bytes(&r, 100 * KiB, 4 * KiB), 0);
	assert_int_equal(scan_range_planned_bytes(&r, 200 * KiB, 4 * KiB), 0);
	assert_int_equal(scan_range_planned_bytes(&r, 0, 0), 0);

	/* Gaps at both edges of the range (a hand-made range; mapping's merger never does this). */
	r.offset = 64 * KiB;
	r.length = 16 * KiB;
	r.nr_gaps = 2;
	r.gaps[0] = (struct scan_gap){ 64 * KiB, 1 * KiB };
	r.gaps[1] = (struct scan_gap){ 78 * KiB, 2 * KiB };
	assert_int_equal(scan_range_planned_bytes(&r, 0, 1 << 20), 13 * KiB);
	assert_int_equal(scan_range_planned_bytes(&r, 64 * KiB, 1 * KiB), 0);
	assert_int_equal(scan_range_planned_bytes(&r, 64 * KiB, 2 * KiB), 1 * KiB);
	assert_int_equal(scan_range_planned_bytes(&r, 60 * KiB, 6 * KiB), 1 * KiB);
	assert_int_equal(scan_range_planned_bytes(&r, 77 * KiB, 10 * KiB), 1 * KiB);
	assert_int_equal(scan_range_planned_bytes(&r, 78 * KiB, 2 * KiB), 0);

	/* No gaps. */
	r.nr_gaps = 0;
	assert_int_equal(scan_range_planned_bytes(&r, 0, 1 << 20), 16 * KiB);
	assert_int_equal(scan_range_planned_bytes(&r, 70 * KiB, 1 * KiB), 1 * KiB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_bad_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_bad_block_offset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_step_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_bad_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_adjacent_run_coalesced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_different_errno_not_coalesced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_classes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_gap, setup, teardown),
		cmocka_unit_test(test_planned_bytes),
		cmocka_unit_test_setup_teardown(test_not_reproducible, setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_block_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_odd_length, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_read_is_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_direct, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_depth_windows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wide_bad_region, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_while_narrowing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_property_reads_per_bad_block, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_add_coalesce, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_add_device_details, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
