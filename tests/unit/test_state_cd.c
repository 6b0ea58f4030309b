/*
 * tests/unit/test_state_cd.c - copies that differ in the history (history/differ.c): stored
 * under the array's UUID and the first leg's member identity, fresh only when first seen,
 * cleared by a later complete pass that did not see them, listed, counted per target,
 * forgotten with the target, and added to a store of schema 7 when it is opened.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "state.h"
#include "state_fixture.h"

static int keep_cd(const struct scan_state_cd_row *e, void *arg)
{
	struct scan_state_cd_row *rows = arg;
	unsigned i = 0;

	while (rows[i].id)
		i++;
	rows[i] = *e;
	rows[i].cd.how = NULL;		/* strings live only during the callback */
	rows[i].cd.wrong = e->cd.wrong ? "set" : NULL;
	return 0;
}

static int keep_target(const struct scan_state_target *t, void *arg)
{
	*(struct scan_state_target *)arg = *t;
	return 0;
}

static void test_copies_differ(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	struct scan_state_cd cd[2] = {
		{ .array_uuid = "0f1e2d3c:4b5a6978:8796a5b4:c3d2e1f0", .array_path = "/dev/md1",
		  .level = "raid1", .member = "wwid:eui.0001", .offset = 1 << 20, .length = 4096,
		  .how = "unknown", .legs_json = "[]", .owners_json = "[{\"inode\":131}]" },
		{ .array_uuid = "0f1e2d3c:4b5a6978:8796a5b4:c3d2e1f0", .array_path = "/dev/md1",
		  .level = "raid1", .member = "wwid:eui.0001", .offset = 2 << 20, .length = 4096,
		  .wrong = "/dev/nvme0n2", .how = "metadata-crc" },
	};
	struct scan_state_cd_row rows[4];
	struct scan_state_target t;
	struct scan_state_forget fg;
	int fresh[2] = { -1, -1 };
	int64_t p1, p2;

	/* A schema-7 store (before copies_differ) gains the table. */
	assert_int_equal(scan_state_close(st), 0);
	exec_sql(f->db, "DROP TABLE copies_differ;"
			"UPDATE meta SET value = '7' WHERE key = 'schema_version';");
	st = open_ok(f);
	assert_int_equal(query_int(f, "SELECT value FROM meta WHERE key = 'schema_version'"),
			 SCAN_STATE_SCHEMA_VERSION);

	p1 = begin(st, KEY);
	assert_int_equal(scan_state_record_cd(st, p1, cd, 2, fresh), 2);
	assert_int_equal(fresh[0], 1);
	assert_int_equal(fresh[1], 1);
	/* the same runs in the same pass, and in the next: not fresh, one row each */
	assert_int_equal(scan_state_record_cd(st, p1, cd, 2, fresh), 0);
	assert_int_equal(fresh[0], 0);
	assert_int_equal(scan_state_finish(st, p1, SCAN_PASS_COMPLETE, 1 << 30, 1e6), 0);
	p2 = begin(st, KEY);
	assert_int_equal(scan_state_record_cd(st, p2, cd, 1, fresh), 0);
	assert_int_equal(fresh[0], 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM copies_differ"), 2);
	assert_int_equal(query_int(f, "SELECT times_seen FROM copies_differ WHERE offset = "
				      "1048576"), 2);
	/* refused: no member, no how */
	cd[0].member = NULL;
	assert_int_equal(scan_state_record_cd(st, p2, cd, 1, NULL), -EINVAL);
	cd[0].member = "wwid:eui.0001";

	/* a running pass clears nothing; complete, it clears what it did not see */
	assert_int_equal(scan_state_settle_cd(st, p2), 0);
	assert_int_equal(scan_state_finish(st, p2, SCAN_PASS_COMPLETE, 1 << 30, 1e6), 0);
	assert_int_equal(scan_state_settle_cd(st, p2), 1);
	assert_int_equal(query_int(f, "SELECT state = 'cleared' AND cleared_pass_id = 2 FROM "
				      "copies_differ WHERE offset = 2097152"), 1);

	memset(rows, 0, sizeof(rows));
	assert_int_equal(scan_state_list_cd(st, 1, 0, keep_cd, rows), 1);
	assert_int_equal(rows[0].cd.offset, 1 << 20);
	assert_int_equal(rows[0].times_seen, 2);
	assert_null(rows[0].cd.wrong);
	memset(rows, 0, sizeof(rows));
	assert_int_equal(scan_state_list_cd(st, 1, 1, keep_cd, rows), 2);
	memset(&t, 0, sizeof(t));
	assert_int_equal(scan_state_list_targets(st, keep_target, &t), 1);
	assert_int_equal(t.open_copies_differ, 1);

	/* seen again after it was cleared: open again and fresh */
	assert_int_equal(scan_state_record_cd(st, begin(st, KEY), cd + 1, 1, fresh), 1);
	assert_int_equal(fresh[0], 1);
	assert_int_equal(query_int(f, "SELECT state = 'open' FROM copies_differ WHERE offset = "
				      "2097152"), 1);

	assert_int_equal(scan_state_forget(st, KEY, 0, &fg), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM copies_differ"), 0);
	assert_int_equal(scan_state_close(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copies_differ, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
