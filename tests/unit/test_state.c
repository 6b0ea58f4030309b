/*
 * tests/unit/test_state.c - history/ (state.h): passes in the SQLite state store, in a fresh
 * mkdtemp directory per test: checkpoint and resume, a finished pass not resumed, resumable
 * passes by key, the pass's pace, passes listed, atomic checkpoints, and what 1000
 * checkpoints cost. Errors are tested in test_state_errors.c, the database file in
 * test_state_file.c; the fixture (a fresh store in its own directory, the helpers that build
 * passes and errors and read rows back) is in state_fixture.c.
 */
#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "state.h"
#include "state_fixture.h"

static void test_roundtrip_resume(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	struct scan_state_pass p;
	uint64_t cur[2] = {4096, 8192}, got[3] = {1, 1, 1};
	struct scan_error e = mk_err(1, 65536, 4096, -EIO);
	int64_t id = begin(st, KEY), rid = 0;

	assert_int_equal(scan_state_checkpoint(st, id, cur, 2, 12288, &e, 1, devs), 0);
	cur[0] = 1 << 20;
	cur[1] = 2 << 20;
	assert_int_equal(scan_state_checkpoint(st, id, cur, 2, 3 << 20, NULL, 0, devs), 0);
	/* The process dies here: no finish. */
	assert_int_equal(scan_state_close(st), 0);

	st = open_ok(f);
	assert_int_equal(scan_state_find_resumable(st, KEY, &rid, got, 3), 1);
	assert_int_equal(rid, id);
	assert_int_equal(got[0], 1 << 20);
	assert_int_equal(got[1], 2 << 20);
	assert_int_equal(got[2], 0);	/* a device without a cursor starts at 0 */
	assert_int_equal(scan_state_get_pass(st, id, &p), 0);
	assert_int_equal(p.result, SCAN_PASS_RUNNING);
	assert_int_equal(p.scanned_bytes, 3 << 20);
	assert_int_equal(p.planned_bytes, 1 << 30);
	assert_string_equal(p.method, "read");
	assert_string_equal(p.engine, "io_uring");
	assert_int_equal(p.ended, 0);

	/* Interrupted on request, then resumed. */
	assert_int_equal(scan_state_finish(st, id, SCAN_PASS_INTERRUPTED, 3 << 20, 1e8), 0);
	assert_int_equal(scan_state_checkpoint(st, id, cur, 2, 3 << 20, NULL, 0, devs), -ESTALE);
	rid = 0;
	assert_int_equal(scan_state_find_resumable(st, KEY, &rid, got, 2), 1);
	assert_int_equal(rid, id);
	assert_int_equal(got[1], 2 << 20);
	assert_int_equal(scan_state_resume(st, id), 0);
	assert_int_equal(scan_state_get_pass(st, id, &p), 0);
	assert_int_equal(p.result, SCAN_PASS_RUNNING);
	assert_int_equal(p.ended, 0);
	/* UINT64_MAX: the device is done; it survives the trip through SQLite's int64. */
	cur[0] = UINT64_MAX;
	assert_int_equal(scan_state_checkpoint(st, id, cur, 2, 4 << 20, NULL, 0, devs), 0);
	assert_int_equal(scan_state_find_resumable(st, KEY, &rid, got, 2), 1);
	assert_true(got[0] == UINT64_MAX);
	assert_int_equal(scan_state_finish(st, id, SCAN_PASS_COMPLETE, 1 << 30, 2e8), 0);
	assert_int_equal(scan_state_get_pass(st, id, &p), 0);
	assert_int_equal(p.result, SCAN_PASS_COMPLETE);
	assert_true(p.ended >= p.started && p.ended > 0);
	assert_true(p.bytes_per_s == 2e8);
	assert_int_equal(scan_state_close(st), 0);
}

static int latest_of(const struct scan_state_target *t, void *arg)
{
	*(struct scan_state_pass *)arg = t->latest;
	return 0;
}

/* A running pass's pace against its window: stored, read by status and metrics, kept. */
static void test_pass_pace(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	struct scan_state_pass p;
	uint64_t cur[2] = {4096, 8192};
	int64_t id = begin(st, KEY);

	assert_int_equal(scan_state_list_targets(st, latest_of, &p), 1);
	assert_int_equal(p.window_end, 0);
	assert_int_equal(p.projected_end, 0);
	assert_int_equal(p.window_late_since, 0);
	assert_int_equal(scan_state_pass_pace(st, id, 2000000100, 2000000900, 2000000007), 0);
	assert_int_equal(scan_state_checkpoint(st, id, cur, 2, 12288, NULL, 0, devs), 0);
	assert_int_equal(scan_state_list_targets(st, latest_of, &p), 1);
	assert_int_equal(p.window_end, 2000000100);
	assert_int_equal(p.projected_end, 2000000900);
	assert_int_equal(p.window_late_since, 2000000007);
	assert_int_equal(scan_state_pass_pace(st, id, 2000000100, 2000000050, 0), 0);
	assert_int_equal(scan_state_list_targets(st, latest_of, &p), 1);
	assert_int_equal(p.window_late_since, 0);	/* in time again */
	assert_int_equal(scan_state_pass_pace(st, id, -1, 0, 0), -EINVAL);
	assert_int_equal(scan_state_finish(st, id, SCAN_PASS_COMPLETE, 1 << 30, 2e8), 0);
	assert_int_equal(scan_state_pass_pace(st, id, 1, 2, 3), -ESTALE);
	assert_int_equal(scan_state_close(st), 0);
}

static void test_finished_not_resumable(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {1, 2};
	int64_t id = begin(st, KEY), rid = -7;

	assert_int_equal(scan_state_checkpoint(st, id, cur, 2, 3, NULL, 0, devs), 0);
	assert_int_equal(scan_state_finish(st, id, SCAN_PASS_COMPLETE, 3, 1.0), 0);
	assert_int_equal(scan_state_find_resumable(st, KEY, &rid, cur, 2), 0);
	assert_int_equal(rid, -7);
	assert_int_equal(scan_state_finish(st, id, SCAN_PASS_COMPLETE, 3, 1.0), -ESTALE);
	assert_int_equal(scan_state_checkpoint(st, id, cur, 2, 3, NULL, 0, devs), -ESTALE);
	assert_int_equal(scan_state_resume(st, id), -ESTALE);
	assert_int_equal(scan_state_finish(st, id, SCAN_PASS_RUNNING, 3, 1.0), -EINVAL);

	/* A failed pass is not resumable either. */
	id = begin(st, KEY);
	assert_int_equal(scan_state_finish(st, id, SCAN_PASS_FAILED, 0, 0), 0);
	assert_int_equal(scan_state_find_resumable(st, KEY, &rid, cur, 2), 0);
	assert_int_equal(scan_state_close(st), 0);
}

static void test_resumable_by_key(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {100, 200};
	int64_t a, b, rid = 0;

	a = begin(st, KEY);
	assert_int_equal(scan_state_checkpoint(st, a, cur, 2, 300, NULL, 0, devs), 0);
	assert_int_equal(scan_state_find_resumable(st, KEY2, &rid, cur, 2), 0);
	assert_int_equal(scan_state_find_resumable(st, "xfs:other", &rid, cur, 2), 0);
	assert_int_equal(scan_state_find_resumable(st, KEY, &rid, cur, 2), 1);
	assert_int_equal(rid, a);

	/* A new pass of the key supersedes the unfinished one. */
	b = begin(st, KEY);
	assert_int_equal(scan_state_find_resumable(st, KEY, &rid, cur, 2), 1);
	assert_int_equal(rid, b);
	assert_int_equal(cur[0], 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM passes WHERE result = 'running'"), 1);
	assert_int_equal(scan_state_checkpoint(st, a, cur, 2, 1, NULL, 0, devs), -ESTALE);
	assert_int_equal(query_int(f, "SELECT count(*) FROM targets"), 1);

	/* Another key has its own pass. */
	b = begin(st, KEY2);
	assert_int_equal(scan_state_find_resumable(st, KEY2, &rid, cur, 1), 1);
	assert_int_equal(rid, b);
	assert_int_equal(query_int(f, "SELECT count(*) FROM targets"), 2);
	assert_int_equal(scan_state_close(st), 0);
}

/* The pass timeline (scan_state_list_passes): each pass with what it found (damage, slow and
 * device-fault rows first seen in it, not transient ones) and what it cleared by reading. */
static int keep_pass(const struct scan_state_pass_row *p, void *arg)
{
	struct scan_state_pass_row *out = arg;
	size_t i = 0;

	while (out[i].pass.id)
		i++;
	assert_true(i < 3);
	out[i] = *p;
	return 0;
}

static int first_open_id(const struct scan_state_open_error *e, void *arg)
{
	if (!*(int64_t *)arg)
		*(int64_t *)arg = e->id;	/* by offset: the damage at 8192 */
	return 0;
}

static void test_passes_listed(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {0, 0};
	struct scan_error e[2] = {
		mk_err(0, 8192, 512, -EIO),
		mk_err(0, 1 << 20, 65536, -EIO),
	};
	struct scan_state_pass_row rows[4] = { 0 };
	struct scan_state_outcome out = { .how = SCAN_SETTLE_READ_CLEAN };
	int64_t p1 = begin(st, KEY), p2;

	e[1].reproducible = 0;			/* transient: not listed, not "found" */
	assert_int_equal(scan_state_checkpoint(st, p1, cur, 2, 0, e, 2, devs), 0);
	assert_int_equal(scan_state_finish(st, p1, SCAN_PASS_COMPLETE, 1 << 30, 1e6), 0);
	assert_int_equal(scan_state_open_errors(st, KEY, first_open_id, &out.id), 2);
	p2 = begin(st, KEY);
	assert_int_equal(scan_state_finish(st, p2, SCAN_PASS_COMPLETE, 1 << 30, 2e6), 0);
	assert_int_equal(scan_state_settle(st, KEY, p2, &out, 1), 1);
	assert_int_equal(scan_state_list_passes(st, 1, keep_pass, rows), 2);
	assert_int_equal(rows[0].pass.id, p1);
	assert_int_equal(rows[0].found, 1);
	assert_int_equal(rows[0].cleared, 0);
	assert_int_equal(rows[0].pass.result, SCAN_PASS_COMPLETE);
	assert_int_equal(rows[1].pass.id, p2);
	assert_int_equal(rows[1].found, 0);
	assert_int_equal(rows[1].cleared, 1);
	assert_true(rows[1].pass.bytes_per_s == 2e6);
	assert_int_equal(rows[2].pass.id, 0);
	assert_int_equal(scan_state_close(st), 0);
}

static void test_checkpoint_atomic(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	struct scan_state_pass p;
	uint64_t cur[2] = {1000, 2000}, got[2];
	struct scan_error e[2] = {mk_err(0, 4096, 512, -EIO), mk_err(0, 666 * 512, 512, -EIO)};
	int64_t id = begin(st, KEY), rid;
	int ret;

	assert_int_equal(scan_state_checkpoint(st, id, cur, 2, 3000, NULL, 0, devs), 0);
	/* Make the second error's insert fail inside the transaction. */
	exec_sql(f->db, "CREATE TRIGGER fail_666 BEFORE INSERT ON errors WHEN NEW.offset = 340992 "
			"BEGIN SELECT RAISE(ABORT, 'injected failure'); END;");
	cur[0] = 5000;
	cur[1] = 6000;
	ret = scan_state_checkpoint(st, id, cur, 2, 11000, e, 2, devs);
	assert_true(ret < 0);
	print_message("failed checkpoint: %d (%s): %s\n", ret, strerror(-ret),
		      scan_state_errmsg(st));
	assert_non_null(strstr(scan_state_errmsg(st), "injected failure"));

	/* Nothing of it is stored: cursors, progress and the first error are as before. */
	assert_int_equal(scan_state_find_resumable(st, KEY, &rid, got, 2), 1);
	assert_int_equal(got[0], 1000);
	assert_int_equal(got[1], 2000);
	assert_int_equal(scan_state_get_pass(st, id, &p), 0);
	assert_int_equal(p.scanned_bytes, 3000);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors"), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM error_passes"), 0);

	/* The store still works after the failed transaction. */
	exec_sql(f->db, "DROP TRIGGER fail_666;");
	assert_int_equal(scan_state_checkpoint(st, id, cur, 2, 11000, e, 2, devs), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors"), 2);
	assert_int_equal(query_int(f, "SELECT offset FROM cursors WHERE dev_idx = 1"), 6000);
	assert_int_equal(scan_state_close(st), 0);
}

static void test_checkpoint_cost(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {0, 0};
	struct timespec t0, t1;
	int64_t id = begin(st, KEY);
	double s;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned i = 0; i < 1000; i++) {
		struct scan_error e = mk_err(i & 1, (uint64_t)i << 20, 4096, -EIO);

		cur[0] += 1 << 20;
		cur[1] += 1 << 20;
		/* One new error every tenth checkpoint, as a damaged disk might give. */
		assert_int_equal(scan_state_checkpoint(st, id, cur, 2, cur[0] + cur[1], &e,
						       i % 10 == 0, devs),
				 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	print_message("1000 checkpoints (2 cursors, 100 errors): %.3f s, %.1f us each\n", s,
		      s * 1e3);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors"), 100);
	assert_int_equal(scan_state_finish(st, id, SCAN_PASS_COMPLETE, cur[0] + cur[1], 1), 0);
	assert_int_equal(scan_state_close(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pass_pace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finished_not_resumable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resumable_by_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_atomic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_cost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_passes_listed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
