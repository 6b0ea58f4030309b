/*
 * tests/unit/exec_fixture.c - the fixture of the test_executor* tests: each test gets a real
 * temporary file of FILE_BYTES (written, then opened read-only as a device would be, and
 * unlinked) as the fake disk's fd, three ranges R to scan, and the fake disk's state reset;
 * helpers set the options, inject the four bad blocks most tests use and check an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "exec_fixture.h"
#include "fake_disk.h"

struct scan_range R[3];

static char tmp_path[4096];

int setup(void **state)
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

int teardown(void **state)
{
	(void)state;
	if (fk.fd >= 0)
		close(fk.fd);
	fk.fd = -1;
	return 0;
}

void error_is(const struct scan_error *e, uint64_t off, uint64_t len, int err,
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

void opts_init(struct scan_opts *o, const char *engine)
{
	memset(o, 0, sizeof(*o));
	o->io_size = 128 * KiB;
	o->depth = 4;
	o->engine = engine;
	o->isolate_step_bytes = 4096;
}

/* Bad blocks: one in R0, a run of 4 in R1, one in R1's gap, the last block of R2. */
void inject_four(void)
{
	fk.err[(100 * KiB) / LBS] = -EIO;
	for (unsigned i = 0; i < 4; i++)
		fk.err[(1 * MiB + 600 * KiB) / LBS + i] = -ENODATA;
	fk.err[(2 * MiB + 64 * KiB) / LBS] = -EIO;
	fk.err[(3 * MiB + 100 * KiB) / LBS - 1] = -EILSEQ;
}
