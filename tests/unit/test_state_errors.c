/*
 * tests/unit/test_state_errors.c - history/ (state.h): errors in the SQLite state store, in a
 * fresh mkdtemp directory per test: error upserts, a transient that is not damage, device
 * details kept, overlapping errors merged, the verdicts' migration, redundancy lost, and the
 * methods' trust kept per device. The fixture is in state_fixture.c.
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

struct collected {
	struct scan_error e[8];
	char dev[8][32];
	int n;
};

static int collect(const struct scan_error *e, const char *device, void *arg)
{
	struct collected *c = arg;

	if (c->n >= 8)
		return -E2BIG;
	c->e[c->n] = *e;
	snprintf(c->dev[c->n], sizeof(c->dev[0]), "%s", device);
	c->n++;
	return 0;
}

static int stop_at_first(const struct scan_error *e, const char *device, void *arg)
{
	(void)e;
	(void)device;
	(void)arg;
	return -ECANCELED;
}

static void test_errors_upserted(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {0, 0};
	struct scan_error e[3] = {
		mk_err(0, 8192, 512, -EIO),
		mk_err(1, 4096, 4096, -ENODATA),
		mk_err(1, 1 << 20, 512, -EILSEQ),
	};
	struct collected c = {0};
	int64_t p1 = begin(st, KEY), p2;

	e[2].in_gap = 1;
	e[2].reproducible = 0;
	assert_int_equal(scan_state_checkpoint(st, p1, cur, 2, 0, e, 2, devs), 0);
	cur[0] = 16384;
	/* e[1] is reported again in the same pass (re-read after resume), e[2] is new. */
	assert_int_equal(scan_state_checkpoint(st, p1, cur, 2, 1, &e[1], 2, devs), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors"), 3);
	assert_int_equal(query_int(f, "SELECT max(times_seen) FROM errors"), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM error_passes"), 3);

	assert_int_equal(scan_state_load_errors(st, p1, collect, &c), 3);
	assert_int_equal(c.e[0].dev_idx, 0);
	assert_int_equal(c.e[0].offset, 8192);
	assert_int_equal(c.e[0].length, 512);
	assert_int_equal(c.e[0].err, -EIO);
	assert_int_equal(c.e[0].cls, SCAN_ERR_MEDIA);
	assert_int_equal(c.e[0].reads, 3);
	assert_string_equal(c.dev[0], "/dev/loop3");
	assert_int_equal(c.e[1].err, -ENODATA);
	assert_string_equal(c.dev[1], "/dev/loop4");
	assert_int_equal(c.e[2].err, -EILSEQ);
	assert_int_equal(c.e[2].cls, SCAN_ERR_PI);
	assert_int_equal(c.e[2].in_gap, 1);
	assert_int_equal(c.e[2].reproducible, 0);
	assert_int_equal(scan_state_load_errors(st, p1, stop_at_first, NULL), -ECANCELED);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE error = 'ENODATA'"), 1);

	/* Owners go to the rows a range overlaps: e[1] only; a range beside it touches none. */
	assert_int_equal(scan_state_set_owners_range(st, p1, "/dev/loop4", 4096, 4096,
						     "[{\"inode\":131,\"paths\":[\"/srv/a\"]}]"),
			 1);
	assert_int_equal(scan_state_set_owners_range(st, p1, "/dev/loop4", 8192, 512, "[]"), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE owners_json IS NOT NULL"),
			 1);
	assert_int_equal(scan_state_finish(st, p1, SCAN_PASS_COMPLETE, 2, 1), 0);

	/* Pass 2 sees e[1] again only: same row, times_seen 2; the others are cleared. */
	p2 = begin(st, KEY);
	assert_int_equal(scan_state_checkpoint(st, p2, cur, 2, 1, &e[1], 1, devs), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors"), 3);
	assert_int_equal(query_int(f, "SELECT times_seen FROM errors WHERE offset = 4096"), 2);
	assert_int_equal(query_int(f, "SELECT pass_id FROM errors WHERE offset = 4096"), p1);
	c.n = 0;
	assert_int_equal(scan_state_load_errors(st, p2, collect, &c), 1);
	assert_int_equal(c.e[0].offset, 4096);
	/*
	 * Settling: only what the pass read cleanly is cleared, what it did not read at all is
	 * "no longer allocated", what it saw fail (e[1]) is never settled, KEEP stays open.
	 */
	struct scan_state_outcome v[3] = {
		{ query_int(f, "SELECT id FROM errors WHERE offset = 8192"), SCAN_SETTLE_READ_CLEAN },
		{ query_int(f, "SELECT id FROM errors WHERE offset = 4096"), SCAN_SETTLE_READ_CLEAN },
		{ query_int(f, "SELECT id FROM errors WHERE offset = 1048576"),
		  SCAN_SETTLE_UNALLOCATED },
	};
	assert_int_equal(scan_state_settle(st, KEY, p2, v, 3), -EINVAL);	/* not complete */
	assert_int_equal(scan_state_finish(st, p2, SCAN_PASS_COMPLETE, 2, 1), 0);
	assert_int_equal(scan_state_settle(st, KEY2, p2, v, 3), -EINVAL);	/* other key */
	v[2].how = SCAN_SETTLE_KEEP;
	assert_int_equal(scan_state_settle(st, KEY, p2, v, 3), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE state = 'open'"), 2);
	v[2].how = SCAN_SETTLE_UNALLOCATED;
	assert_int_equal(scan_state_settle(st, KEY, p2, v, 3), 1);
	assert_int_equal(scan_state_settle(st, KEY, p2, v, 3), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE state = 'open'"), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE state = 'cleared' AND "
				      "cleared_pass_id = (SELECT max(id) FROM passes)"),
			 2);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE cleared_why = "
				      "'unallocated' AND offset = 1048576"), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE cleared_why = 'read' "
				      "AND offset = 8192"), 1);

	/* A cleared error seen again is open again. */
	p2 = begin(st, KEY);
	assert_int_equal(scan_state_checkpoint(st, p2, cur, 2, 1, &e[0], 1, devs), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE state = 'open'"), 2);
	assert_int_equal(query_int(f, "SELECT times_seen FROM errors WHERE offset = 8192"), 2);

	/* Bad arguments store nothing. */
	e[0].dev_idx = 2;
	assert_int_equal(scan_state_checkpoint(st, p2, cur, 2, 1, &e[0], 1, devs), -EINVAL);
	assert_int_equal(scan_state_close(st), 0);
}

static int count_open(const struct scan_state_target *t, void *arg)
{
	*(unsigned *)arg += t->open_errors;
	return 0;
}

static int count_rows(const struct scan_state_error_row *e, void *arg)
{
	(void)e;
	++*(unsigned *)arg;
	return 0;
}

/* A transient error (failed once, every block then read fine) is not damage in the history;
 * a range proven bad stays damage when a later pass only sees it fail transiently. */
static void test_transient_not_damage(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {0, 0};
	struct scan_error e[2] = {
		mk_err(0, 8192, 512, -EIO),
		mk_err(0, 1 << 20, 65536, -EIO),
	};
	unsigned open = 0, rows = 0;
	int64_t p1 = begin(st, KEY), p2;

	e[1].reproducible = 0;
	assert_int_equal(scan_state_checkpoint(st, p1, cur, 2, 0, e, 2, devs), 0);
	assert_int_equal(scan_state_list_targets(st, count_open, &open), 1);
	assert_int_equal(open, 1);
	assert_int_equal(scan_state_list_errors(st, 1, 0, 1, count_rows, &rows), 1);
	assert_int_equal(scan_state_finish(st, p1, SCAN_PASS_COMPLETE, 2, 1), 0);

	p2 = begin(st, KEY);
	e[0].reproducible = 0;
	assert_int_equal(scan_state_checkpoint(st, p2, cur, 2, 0, e, 1, devs), 0);
	assert_int_equal(query_int(f, "SELECT reproducible FROM errors WHERE offset = 8192"), 1);
	open = 0;
	assert_int_equal(scan_state_list_targets(st, count_open, &open), 1);
	assert_int_equal(open, 1);
	assert_int_equal(scan_state_close(st), 0);
}

/* What a drive-side method said survives a checkpoint (a resumed pi-read still names the
 * tag and its values; NVMe status and the failure kind stay). */
static void test_device_details_kept(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {0, 0};
	struct scan_error e = mk_err(0, 5120, 512, -EILSEQ);
	struct collected c = {0};
	int64_t p1 = begin(st, KEY);

	e.vfy_fail = VFY_FAIL_PI_REF;
	e.dev_status = 0x284;
	e.pi_expected = 20;
	e.pi_found = 0xffffffffffff3039ull;	/* the top bit set: stored as is */
	assert_int_equal(scan_state_checkpoint(st, p1, cur, 2, 0, &e, 1, devs), 0);
	assert_int_equal(scan_state_close(st), 0);
	st = open_ok(f);
	assert_int_equal(scan_state_load_errors(st, p1, collect, &c), 1);
	assert_int_equal(c.e[0].vfy_fail, VFY_FAIL_PI_REF);
	assert_int_equal(c.e[0].dev_status, 0x284);
	assert_int_equal(c.e[0].pi_expected, 20);
	assert_true(c.e[0].pi_found == 0xffffffffffff3039ull);
	assert_int_equal(scan_state_close(st), 0);

	/* A store of schema 2 (before these columns) is migrated and keeps its errors. */
	exec_sql(f->db, "DROP TABLE copies_differ;"	/* schema 8 */
			"DROP TABLE method_trust;"	/* schema 7 */
			"DROP TABLE redundancy_lost;"	/* schema 5 */
			"DROP INDEX errors_target_verdict;"
			"DROP INDEX errors_target_device;"
			"ALTER TABLE errors DROP COLUMN cleared_why;"
			"ALTER TABLE errors DROP COLUMN device_path;"
			"ALTER TABLE passes DROP COLUMN kind;"
			"ALTER TABLE passes DROP COLUMN window_end;"
			"ALTER TABLE passes DROP COLUMN projected_end;"
			"ALTER TABLE passes DROP COLUMN window_late_since;"
			"ALTER TABLE errors DROP COLUMN verdict;"
			"ALTER TABLE errors DROP COLUMN latency_ns;"
			"ALTER TABLE errors DROP COLUMN vfy_fail;"
			"ALTER TABLE errors DROP COLUMN dev_status;"
			"ALTER TABLE errors DROP COLUMN pi_expected;"
			"ALTER TABLE errors DROP COLUMN pi_found;"
			"UPDATE meta SET value = '2' WHERE key = 'schema_version';");
	st = open_ok(f);
	assert_int_equal(query_int(f, "SELECT value FROM meta WHERE key = 'schema_version'"),
			 SCAN_STATE_SCHEMA_VERSION);
	c.n = 0;
	assert_int_equal(scan_state_load_errors(st, p1, collect, &c), 1);
	assert_int_equal(c.e[0].offset, 5120);
	assert_int_equal(c.e[0].vfy_fail, VFY_FAIL_NONE);
	assert_int_equal(scan_state_close(st), 0);
}

/*
 * Rows are block ranges: the same bad run stored with other boundaries (checkpoints,
 * completion order) in a later pass is the same row, never a new one; a slow read of a range
 * that is damage leaves it damage.
 */
static void test_overlap_merges(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {0, 0};
	struct scan_error one = mk_err(0, 4096, 1024, -EIO);
	struct scan_error halves[2] = { mk_err(0, 4096, 512, -EIO), mk_err(0, 4608, 512, -EIO) };
	struct scan_error slow = mk_err(0, 4096, 512, 0);
	int64_t p1 = begin(st, KEY), p2, p3;

	assert_int_equal(scan_state_checkpoint(st, p1, cur, 2, 0, &one, 1, devs), 0);
	assert_int_equal(scan_state_finish(st, p1, SCAN_PASS_COMPLETE, 2, 1), 0);
	p2 = begin(st, KEY);
	/* Pass 2 stores the run as two rows sealed by a checkpoint in between. */
	assert_int_equal(scan_state_checkpoint(st, p2, cur, 2, 0, &halves[0], 1, devs), 0);
	assert_int_equal(scan_state_checkpoint(st, p2, cur, 2, 0, &halves[1], 1, devs), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors"), 1);
	assert_int_equal(query_int(f, "SELECT pass_id FROM errors"), p1);	/* not NEW */
	assert_int_equal(query_int(f, "SELECT times_seen FROM errors"), 2);
	assert_int_equal(query_int(f, "SELECT length FROM errors"), 1024);
	assert_int_equal(query_int(f, "SELECT count(*) FROM error_passes"), 2);
	assert_int_equal(scan_state_finish(st, p2, SCAN_PASS_COMPLETE, 2, 1), 0);
	/* Two old rows that one new error spans become one (the oldest). */
	exec_sql(f->db, "INSERT INTO errors (target_id, pass_id, last_pass_id, dev_idx, device, "
			"offset, length, error, err, cls, first_seen, last_seen) SELECT target_id, "
			"pass_id, last_pass_id, dev_idx, device, 8192, 512, error, err, cls, "
			"first_seen, last_seen FROM errors");
	p3 = begin(st, KEY);
	one.offset = 4096;
	one.length = 8192;
	assert_int_equal(scan_state_checkpoint(st, p3, cur, 2, 0, &one, 1, devs), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors"), 1);
	assert_int_equal(query_int(f, "SELECT length FROM errors"), 8192);
	assert_int_equal(query_int(f, "SELECT pass_id FROM errors"), p1);
	/* A slow answer on damage does not turn it into "slow". */
	slow.cls = SCAN_ERR_SLOW;
	slow.latency_ns = 3000000000ull;
	assert_int_equal(scan_state_checkpoint(st, p3, cur, 2, 0, &slow, 1, devs), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE verdict = 'damage'"), 1);
	assert_int_equal(scan_state_close(st), 0);
}

/* Schema 3 -> 4: rows get the verdict their columns meant; a timeout is a device fault. */
static void test_verdict_migration(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {0, 0};
	struct scan_error e[4] = {
		mk_err(0, 4096, 512, -EIO), mk_err(0, 8192, 512, -ETIME),
		mk_err(0, 16384, 512, -EIO), mk_err(0, 32768, 4096, -ENODATA),
	};
	int64_t p1 = begin(st, KEY);

	e[2].reproducible = 0;			/* transient */
	e[3].in_gap = 1;			/* bridged gap */
	assert_int_equal(scan_state_checkpoint(st, p1, cur, 2, 0, e, 4, devs), 0);
	assert_int_equal(scan_state_close(st), 0);
	/* What the rows say now, computed by result.c when they were written. */
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE offset = 8192 AND "
				      "verdict = 'device-fault'"), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE offset = 16384 AND "
				      "verdict = 'transient'"), 1);
	/* A schema-3 store has no verdict: the migration computes the same ones. */
	exec_sql(f->db, "DROP TABLE copies_differ;"	/* schema 8 */
			"DROP TABLE method_trust;"	/* schema 7 */
			"DROP TABLE redundancy_lost;"	/* schema 5 */
			"DROP INDEX errors_target_verdict;"
			"DROP INDEX errors_target_device;"
			"ALTER TABLE errors DROP COLUMN cleared_why;"
			"ALTER TABLE errors DROP COLUMN device_path;"
			"ALTER TABLE passes DROP COLUMN kind;"
			"ALTER TABLE passes DROP COLUMN window_end;"
			"ALTER TABLE passes DROP COLUMN projected_end;"
			"ALTER TABLE passes DROP COLUMN window_late_since;"
			"ALTER TABLE errors DROP COLUMN verdict;"
			"ALTER TABLE errors DROP COLUMN latency_ns;"
			"UPDATE meta SET value = '3' WHERE key = 'schema_version';");
	st = open_ok(f);
	assert_int_equal(query_int(f, "SELECT value FROM meta WHERE key = 'schema_version'"),
			 SCAN_STATE_SCHEMA_VERSION);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE offset = 4096 AND "
				      "verdict = 'damage'"), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE offset = 8192 AND "
				      "verdict = 'device-fault'"), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE offset = 16384 AND "
				      "verdict = 'transient'"), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE offset = 32768 AND "
				      "verdict = 'gap'"), 1);
	assert_int_equal(scan_state_close(st), 0);
}

/* Redundancy lost under the member's identity and the array's UUID: kept, told once, seen
 * again, cleared by a later complete pass; a schema-4 store gains the table and keeps all. */
static int keep_rl(const struct scan_state_rl_row *e, void *arg)
{
	struct scan_state_rl_row *rows = arg;
	unsigned i = 0;

	while (rows[i].id)
		i++;
	if (i >= 3)
		return -ENOSPC;
	rows[i] = *e;
	rows[i].rl.member = NULL;	/* strings live during the callback only */
	rows[i].rl.array_uuid = NULL;
	assert_string_equal(e->rl.member, "wwid:eui.0001");
	assert_string_equal(e->rl.array_uuid, "0f1e2d3c:4b5a6978:8796a5b4:c3d2e1f0");
	assert_string_equal(e->rl.member_path, "/dev/nvme0n2");
	assert_string_equal(e->rl.owners_json, "[{\"inode\":131}]");
	return 0;
}

static int keep_target(const struct scan_state_target *t, void *arg)
{
	*(struct scan_state_target *)arg = *t;
	return 0;
}

/*
 * A method's trust is kept under the device's identity and the method, replaced by the next
 * verdict, listed for the metrics; a store of schema 6 gains the table when opened.
 */
static void test_method_trust(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	struct scan_state_trust t, got, list[4];

	memset(&t, 0, sizeof(t));
	snprintf(t.ident, sizeof(t.ident), "serial:QM00003");
	snprintf(t.method, sizeof(t.method), "scsi-verify");
	snprintf(t.state, sizeof(t.state), "failed");
	snprintf(t.reason, sizeof(t.reason), "verify of 64 MiB took 4.8 ms, reading it 94 ms");
	snprintf(t.device_path, sizeof(t.device_path), "/dev/sda");
	t.bytes = 64 << 20;
	t.verify_s = 0.0048;
	t.read_s = 0.094;
	t.at = 1796000000;
	assert_int_equal(scan_state_trust_get(st, t.ident, t.method, &got), 0);
	assert_int_equal(scan_state_trust_put(st, &t), 0);
	assert_int_equal(scan_state_trust_get(st, t.ident, t.method, &got), 1);
	assert_string_equal(got.state, "failed");
	assert_string_equal(got.reason, t.reason);
	assert_string_equal(got.device_path, "/dev/sda");
	assert_int_equal(got.bytes, 64 << 20);
	assert_true(got.read_s > 0.09 && got.read_s < 0.1);
	assert_int_equal(got.at, 1796000000);
	/* the next verdict replaces it; another method is another row */
	snprintf(t.state, sizeof(t.state), "voided");
	assert_int_equal(scan_state_trust_put(st, &t), 0);
	snprintf(t.method, sizeof(t.method), "nvme-verify");
	snprintf(t.state, sizeof(t.state), "proven");
	assert_int_equal(scan_state_trust_put(st, &t), 0);
	assert_int_equal(scan_state_trust_list(st, list, 4), 2);
	assert_string_equal(list[0].method, "nvme-verify");
	assert_string_equal(list[1].method, "scsi-verify");
	assert_string_equal(list[1].state, "voided");
	assert_int_equal(scan_state_trust_get(st, t.ident, "scsi-verify", &got), 1);
	assert_string_equal(got.state, "voided");
	/* refused: no identity */
	t.ident[0] = '\0';
	assert_int_equal(scan_state_trust_put(st, &t), -EINVAL);
	assert_int_equal(scan_state_close(st), 0);
	/* a schema-6 store gains the table */
	exec_sql(f->db, "DROP TABLE copies_differ;"	/* schema 8 */
			"DROP TABLE method_trust;"
			"UPDATE meta SET value = '6' WHERE key = 'schema_version';");
	st = open_ok(f);
	assert_int_equal(query_int(f, "SELECT value FROM meta WHERE key = 'schema_version'"),
			 SCAN_STATE_SCHEMA_VERSION);
	assert_int_equal(scan_state_trust_list(st, list, 4), 0);
	assert_int_equal(scan_state_close(st), 0);
}

static void test_redundancy_lost(void **state)
{
	struct fixture *f = *state;
	struct scan_state *st = open_ok(f);
	uint64_t cur[2] = {0, 0};
	struct scan_error e[1] = { mk_err(0, 8192, 512, -EIO) };
	struct scan_state_rl rl[2] = {
		{ .member = "wwid:eui.0001", .member_path = "/dev/nvme0n2",
		  .array_uuid = "0f1e2d3c:4b5a6978:8796a5b4:c3d2e1f0", .array_path = "/dev/md0",
		  .offset = 1 << 20, .length = 512, .err = -ENODATA, .has_fs = 1,
		  .fs_offset = 4096, .copies_json = "[{\"device\":\"/dev/nvme0n3\"}]",
		  .owners_json = "[{\"inode\":131}]", .repair = "echo repair" },
		{ .member = "wwid:eui.0001", .member_path = "/dev/nvme0n2",
		  .array_uuid = "0f1e2d3c:4b5a6978:8796a5b4:c3d2e1f0", .array_path = "/dev/md0",
		  .offset = 2 << 20, .length = 4096, .err = -EIO, .parity = 1,
		  .owners_json = "[{\"inode\":131}]" },
	};
	struct scan_state_rl_row rows[4];
	struct scan_state_target t;
	int fresh[2] = { -1, -1 };
	int64_t p1, p2, p3;

	/* A schema-4 store (before redundancy_lost) with a pass and an error in it. */
	p1 = begin(st, KEY);
	assert_int_equal(scan_state_checkpoint(st, p1, cur, 2, 0, e, 1, devs), 0);
	assert_int_equal(scan_state_finish(st, p1, SCAN_PASS_COMPLETE, 1 << 30, 1e6), 0);
	assert_int_equal(scan_state_close(st), 0);
	exec_sql(f->db, "DROP TABLE copies_differ;"	/* schema 8 */
			"DROP TABLE method_trust;"	/* schema 7 */
			"DROP TABLE redundancy_lost;"
			"ALTER TABLE passes DROP COLUMN window_end;"	/* schema 6 */
			"ALTER TABLE passes DROP COLUMN projected_end;"
			"ALTER TABLE passes DROP COLUMN window_late_since;"
			"UPDATE meta SET value = '4' WHERE key = 'schema_version';");
	assert_int_equal(query_int(f, "SELECT count(*) FROM sqlite_master WHERE "
				      "name = 'redundancy_lost'"), 0);
	st = open_ok(f);
	assert_int_equal(query_int(f, "SELECT value FROM meta WHERE key = 'schema_version'"),
			 SCAN_STATE_SCHEMA_VERSION);
	assert_int_equal(query_int(f, "SELECT count(*) FROM errors WHERE offset = 8192 AND "
				      "verdict = 'damage' AND state = 'open'"), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM redundancy_lost"), 0);

	/* Found by pass 2: both new; the member and array named, not the fs device. Not told
	 * until on_damage took them: a hook that failed leaves them offered again. */
	p2 = begin(st, KEY);
	assert_int_equal(scan_state_record_rl(st, p2, rl, 2, fresh), 2);
	assert_int_equal(fresh[0], 1);
	assert_int_equal(fresh[1], 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM redundancy_lost WHERE notified = 0"),
			 2);
	assert_int_equal(scan_state_record_rl(st, p2, rl, 2, fresh), 2);	/* hook failed */
	assert_int_equal(fresh[0], 1);
	size_t both[2] = { 0, 1 };

	assert_int_equal(scan_state_told_rl(st, p2, rl, both, 2), 2);	/* hook took them */
	assert_int_equal(query_int(f, "SELECT count(*) FROM redundancy_lost WHERE member = "
				      "'wwid:eui.0001' AND array_uuid = "
				      "'0f1e2d3c:4b5a6978:8796a5b4:c3d2e1f0' AND notified = 1 AND "
				      "state = 'open'"), 2);
	assert_int_equal(query_int(f, "SELECT fs_offset FROM redundancy_lost WHERE offset = "
				      "1048576"), 4096);
	assert_int_equal(query_int(f, "SELECT fs_offset IS NULL AND parity FROM redundancy_lost "
				      "WHERE offset = 2097152"), 1);
	/* Seen again in the same pass: not told again, not counted twice. */
	assert_int_equal(scan_state_record_rl(st, p2, rl, 1, fresh), 0);
	assert_int_equal(fresh[0], 0);
	assert_int_equal(scan_state_finish(st, p2, SCAN_PASS_COMPLETE, 1 << 30, 1e6), 0);
	assert_int_equal(scan_state_settle_rl(st, p2), 0);	/* p2 saw both */

	/* Pass 3 sees only the first again: the second is cleared once p3 is complete. */
	p3 = begin(st, KEY);
	assert_int_equal(scan_state_record_rl(st, p3, rl, 1, fresh), 0);
	assert_int_equal(scan_state_settle_rl(st, p3), 0);	/* still running: nothing */
	assert_int_equal(scan_state_finish(st, p3, SCAN_PASS_COMPLETE, 1 << 30, 1e6), 0);
	assert_int_equal(scan_state_settle_rl(st, p3), 1);
	assert_int_equal(query_int(f, "SELECT times_seen FROM redundancy_lost WHERE offset = "
				      "1048576"), 2);
	assert_int_equal(query_int(f, "SELECT state = 'cleared' AND cleared_pass_id = 3 FROM "
				      "redundancy_lost WHERE offset = 2097152"), 1);

	memset(rows, 0, sizeof(rows));
	assert_int_equal(scan_state_list_rl(st, 1, 0, 0, keep_rl, rows), 1);
	assert_int_equal(rows[0].rl.offset, 1 << 20);
	assert_int_equal(rows[0].first_pass_id, p2);
	assert_int_equal(rows[0].times_seen, 2);
	assert_false(rows[0].cleared);
	memset(rows, 0, sizeof(rows));
	assert_int_equal(scan_state_list_rl(st, 1, 0, 1, keep_rl, rows), 2);
	memset(&t, 0, sizeof(t));
	assert_int_equal(scan_state_list_targets(st, keep_target, &t), 1);
	assert_int_equal(t.open_redundancy_lost, 1);

	/* Failing again after being cleared: open again, told again. */
	assert_int_equal(scan_state_record_rl(st, begin(st, KEY), rl + 1, 1, fresh), 1);
	assert_int_equal(fresh[0], 1);

	/* Forgetting the target drops its rows too. */
	struct scan_state_forget fg;

	assert_int_equal(scan_state_forget(st, KEY, 0, &fg), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM redundancy_lost"), 0);
	assert_int_equal(scan_state_close(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_errors_upserted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transient_not_damage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_details_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_migration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlap_merges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_redundancy_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_method_trust, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
