/*
 * tests/unit/test_isolate.c - mediascan/isolate.c: a failed read narrowed to its exact
 * failing logical blocks over a fake device (struct scan_isolate.read), how often each bad
 * block is re-read, gaps, transient failures, error classes and result coalescing.
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

#define KiB 1024ull
#define MiB (1024ull * 1024)
#define LBS 512u
#define DEV_BLOCKS 16384u		/* 8 MiB fake device */
#define FAKE_FD 42

/* The fake device: each 512-byte block answers 0 (good) or a -errno. */
static struct {
	int err[DEV_BLOCKS];
	unsigned reads;			/* every read issued */
	unsigned block_reads[DEV_BLOCKS];	/* reads that touched each block */
	size_t max_len;			/* longest read */
} dev;

static ssize_t fake_read(void *arg, uint32_t dev_idx, void *buf, size_t len, uint64_t offset)
{
	int ret = 0;

	assert_ptr_equal(arg, (void *)(uintptr_t)FAKE_FD);
	assert_int_equal(dev_idx, 1);
	assert_int_equal(offset % LBS, 0);
	assert_int_equal(len % LBS, 0);
	assert_true(len > 0);
	assert_true(offset + len <= (uint64_t)DEV_BLOCKS * LBS);
	dev.reads++;
	if (len > dev.max_len)
		dev.max_len = len;
	for (uint64_t b = offset / LBS; b < (offset + len) / LBS; b++) {
		dev.block_reads[b]++;
		if (dev.err[b] && !ret)
			ret = dev.err[b];
	}
	if (ret)
		return ret;
	memset(buf, 0x5a, len);		/* and the buffer is big enough */
	return (ssize_t)len;
}

/* A short read: the device returns half of what was asked for where a block is "short". */
static ssize_t short_read(void *arg, uint32_t dev_idx, void *buf, size_t len, uint64_t offset)
{
	ssize_t n = fake_read(arg, dev_idx, buf, len, offset);

	if (n == -EREMOTEIO)
		return (ssize_t)(len / 2);
	return n;
}

static struct scan_result res;
static struct scan_isolate si;
static void *isobuf;

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
	si.step_bytes = LBS;
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
	/* Read by: the failed read, 11 bisection levels (512K .. 512), the block step. */
	error_is(&res.errors[0], 777 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 1 + 11 + 1, 0, 1);
	/* Two halves per level, then one block read: 23 reads, not 2048. */
	assert_int_equal(si.reads, 2 * 11 + 1);
	assert_int_equal(dev.reads, si.reads);
	assert_true(si.reads < 2048 / 32);
	/* The bad block itself was read 12 times here (plus the original failed read). */
	assert_int_equal(dev.block_reads[777], 12);
	/* Halves never exceed half the failed read. */
	assert_int_equal(dev.max_len, 512 * KiB);
}

static void test_one_bad_block_offset(void **state)
{
	(void)state;
	/* The same at a device offset that is not 1 MiB aligned, and the last block. */
	bad(3000 + 2047, -EIO);
	assert_int_equal(scan_isolate_range(&si, 3000 * LBS, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], (3000 + 2047) * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 13, 0, 1);
	assert_int_equal(si.reads, 23);
}

static void test_step_bytes(void **state)
{
	(void)state;
	/* Bisect down to 4K (8 levels), then read its 8 blocks one by one. */
	si.step_bytes = 4096;
	bad(1234, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 1234 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 1 + 8 + 1, 0, 1);
	assert_int_equal(si.reads, 2 * 8 + 8);
}

static void test_two_bad_blocks(void **state)
{
	(void)state;
	bad(10, -EIO);
	bad(1500, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 2);
	error_is(&res.errors[0], 10 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 13, 0, 1);
	error_is(&res.errors[1], 1500 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 13, 0, 1);
	/* Top level 2 reads, then each half bisected alone: 2 + 2 * (2 * 10 + 1). */
	assert_int_equal(si.reads, 44);

	/* Two bad blocks in the same 4K: both found, not merged (one good block between). */
	result_clear();
	memset(&dev, 0, sizeof(dev));
	si.reads = 0;
	bad(100, -EIO);
	bad(102, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 2);
	error_is(&res.errors[0], 100 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 13, 0, 1);
	error_is(&res.errors[1], 102 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 13, 0, 1);
}

static void test_adjacent_run_coalesced(void **state)
{
	(void)state;
	/* Blocks 1022..1025 straddle the first halving point (1024): still one error. */
	for (unsigned b = 1022; b <= 1025; b++)
		bad(b, -EIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 1022 * LBS, 4 * LBS, -EIO, SCAN_ERR_MEDIA, 13, 0, 1);

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
}

static void test_different_errno_not_coalesced(void **state)
{
	(void)state;
	bad(200, -EIO);
	bad(201, -ENODATA);
	bad(202, -EILSEQ);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 3);
	error_is(&res.errors[0], 200 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 13, 0, 1);
	error_is(&res.errors[1], 201 * LBS, LBS, -ENODATA, SCAN_ERR_MEDIA, 13, 0, 1);
	error_is(&res.errors[2], 202 * LBS, LBS, -EILSEQ, SCAN_ERR_PI, 13, 0, 1);
}

static void test_error_classes(void **state)
{
	(void)state;
	bad(50, -ENODATA);
	bad(900, -EILSEQ);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -ENODATA), 0);
	assert_int_equal(res.nr_errors, 2);
	error_is(&res.errors[0], 50 * LBS, LBS, -ENODATA, SCAN_ERR_MEDIA, 13, 0, 1);
	error_is(&res.errors[1], 900 * LBS, LBS, -EILSEQ, SCAN_ERR_PI, 13, 0, 1);
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
	error_is(&res.errors[0], 100 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 13, 0, 1);
	error_is(&res.errors[1], 600 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 13, 1, 1);
	error_is(&res.errors[2], 638 * LBS, 2 * LBS, -EIO, SCAN_ERR_MEDIA, 13, 1, 1);
	error_is(&res.errors[3], 640 * LBS, 2 * LBS, -EIO, SCAN_ERR_MEDIA, 13, 0, 1);
}

static void test_not_reproducible(void **state)
{
	(void)state;
	/* The read failed once (the caller saw it); every re-read now succeeds. */
	assert_int_equal(scan_isolate_range(&si, 64 * KiB, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 64 * KiB, 1 * MiB, -EIO, SCAN_ERR_MEDIA, 1, 0, 0);
	assert_int_equal(si.reads, 2);		/* both halves read fine: stop there */

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
	/* A failed one-block read: the block is read once more and reported. */
	bad(5, -EIO);
	assert_int_equal(scan_isolate_range(&si, 5 * LBS, LBS, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 5 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 2, 0, 1);
	assert_int_equal(si.reads, 1);
}

static void test_odd_length(void **state)
{
	(void)state;
	/* 3 blocks: halves of 1 and 2 blocks; the bad one is the last. */
	bad(402, -EIO);
	assert_int_equal(scan_isolate_range(&si, 400 * LBS, 3 * LBS, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 402 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 4, 0, 1);
	/* [400], [401,402]; then [401], [402]; then [402] again. */
	assert_int_equal(si.reads, 5);
}

static void test_short_read_is_failure(void **state)
{
	(void)state;
	/* A read that comes back short counts as failed (-EIO) for the blocks it lost. */
	si.read = short_read;
	bad(300, -EREMOTEIO);
	assert_int_equal(scan_isolate_range(&si, 0, 1 * MiB, -EIO), 0);
	assert_int_equal(res.nr_errors, 1);
	error_is(&res.errors[0], 300 * LBS, LBS, -EIO, SCAN_ERR_MEDIA, 13, 0, 1);
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
		cmocka_unit_test_setup_teardown(test_result_add_coalesce, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_add_device_details, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
