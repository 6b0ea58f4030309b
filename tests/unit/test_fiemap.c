/*
 * tests/unit/test_fiemap.c - mapping/index/index.c's FIEMAP walk takes the kernel's answer as input:
 * a count above the buffer it gave is not read past, and an answer that does not move forward
 * ends the walk instead of asking the same thing forever (a fake kio_fiemap, --wrap).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/fiemap.h>

#include "fs.h"

#define FAKE_FD 77

int __wrap_kio_fiemap(int fd, struct fiemap *fm);

static enum { OVERCOUNT, STUCK } mode;
static unsigned calls;

int __wrap_kio_fiemap(int fd, struct fiemap *fm)
{
	assert_int_equal(fd, FAKE_FD);
	if (++calls > 1000)
		fail_msg("the walk does not end");
	if (fm->fm_flags & FIEMAP_FLAG_XATTR)
		return -EOPNOTSUPP;
	/* A full batch of extents, none the last. */
	for (unsigned i = 0; i < fm->fm_extent_count; i++) {
		memset(&fm->fm_extents[i], 0, sizeof(fm->fm_extents[i]));
		fm->fm_extents[i].fe_logical = mode == STUCK ? 0 : fm->fm_start + i * 4096ull;
		fm->fm_extents[i].fe_physical = 1048576 + i * 4096ull;
		fm->fm_extents[i].fe_length = mode == STUCK ? 0 : 4096;
	}
	/* OVERCOUNT: claims more extents than the buffer holds (it must not be read past). */
	fm->fm_mapped_extents = mode == OVERCOUNT ? fm->fm_extent_count * 50 :
						    fm->fm_extent_count;
	if (mode == OVERCOUNT && fm->fm_start >= 64 * 4096 * 4)
		fm->fm_mapped_extents = 0;	/* the end, after a few batches */
	return 0;
}

static void walk(void)
{
	struct map_ix_query q = { .start = 0, .end = UINT64_MAX };
	struct map_owner tmpl;
	struct map_ix_hits h = { 0 };

	memset(&tmpl, 0, sizeof(tmpl));
	calls = 0;
	assert_int_equal(map_ix_match_fd(FAKE_FD, &q, 1, &tmpl, &h), 0);
	free(h.v);
}

static void test_overcount(void **state)
{
	(void)state;
	mode = OVERCOUNT;
	walk();			/* under ASan a read past the batch fails the test */
	assert_true(calls <= 10);
}

static void test_stuck(void **state)
{
	(void)state;
	mode = STUCK;
	walk();			/* it asked the same offset forever before */
	assert_true(calls <= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overcount),
		cmocka_unit_test(test_stuck),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
