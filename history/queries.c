/*
 * history/queries.c - the history queries status, report, metrics and the HTML use: targets
 * with their passes and counts, error rows, passes with what they found, owners recorded,
 * damage told once (notified).
 */
#include <errno.h>
#include <string.h>

#include <sqlite3.h>

#include "state_int.h"

/*
 * History queries for status, report and metrics. They run rarely, so their statements are
 * prepared per call rather than at open.
 */

/* Fill p from columns col.. of s in the order of HIST_PASS_COLS (14 columns). */
static void hist_pass(sqlite3_stmt *s, int col, struct scan_state_pass *p)
{
	memset(p, 0, sizeof(*p));
	p->id = sqlite3_column_int64(s, col);
	p->target_id = sqlite3_column_int64(s, col + 1);
	p->started = sqlite3_column_int64(s, col + 2);
	p->ended = sqlite3_column_int64(s, col + 3);
	p->planned_bytes = (uint64_t)sqlite3_column_int64(s, col + 4);
	p->scanned_bytes = (uint64_t)sqlite3_column_int64(s, col + 5);
	p->bytes_per_s = sqlite3_column_double(s, col + 6);
	p->result = state_result_parse((const char *)sqlite3_column_text(s, col + 7));
	state_column_str(s, col + 8, p->method, sizeof(p->method));
	state_column_str(s, col + 9, p->engine, sizeof(p->engine));
	p->number = sqlite3_column_int64(s, col + 10);
	p->window_end = sqlite3_column_int64(s, col + 11);
	p->projected_end = sqlite3_column_int64(s, col + 12);
	p->window_late_since = sqlite3_column_int64(s, col + 13);
}

/* ... and the pass's number among its target's passes of its kind (1 = the first). */
#define HIST_PASS_COLS "id, target_id, started, ended, planned_bytes, scanned_bytes, " \
	"bytes_per_s, result, method, engine, (SELECT count(*) FROM passes q WHERE " \
	"q.target_id = passes.target_id AND q.kind = passes.kind AND q.id <= passes.id), " \
	"window_end, projected_end, window_late_since"

/* Return 1 and fill p with the pass selected by sql (bound to id), 0 if none, or -errno. */
static int hist_one_pass(struct scan_state *st, const char *sql, int64_t id,
			 struct scan_state_pass *p)
{
	sqlite3_stmt *s;
	int ret = hist_prepare(st, sql, &s);

	if (ret < 0)
		return ret;
	sqlite3_bind_int64(s, 1, id);
	ret = sqlite3_step(s);
	if (ret == SQLITE_ROW) {
		hist_pass(s, 0, p);
		ret = 1;
	} else if (ret == SQLITE_DONE) {
		ret = 0;
	} else {
		ret = state_fail(st, ret);
	}
	sqlite3_finalize(s);
	return ret;
}

int scan_state_latest_pass(struct scan_state *st, const char *key, struct scan_state_pass *p)
{
	sqlite3_stmt *s;
	int64_t target_id;
	int ret;

	if (!st || !key || !p)
		return -EINVAL;
	ret = hist_prepare(st, "SELECT id FROM targets WHERE key = ?1", &s);
	if (ret < 0)
		return ret;
	state_bind_text(s, 1, key);
	ret = sqlite3_step(s);
	target_id = ret == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	ret = ret == SQLITE_ROW || ret == SQLITE_DONE ? 0 : state_fail(st, ret);
	sqlite3_finalize(s);
	if (ret < 0 || !target_id)
		return ret;
	return hist_one_pass(st, "SELECT " HIST_PASS_COLS " FROM passes WHERE target_id = ?1 "
			     "AND kind = 'full' ORDER BY id DESC LIMIT 1", target_id, p);
}

/*
 * Run one UPDATE of the errors of pass_id's target on device within or overlapping
 * [offset, offset+length) (?1 pass, ?2 device, ?3 offset, ?4 length, ?5 text; a statement
 * without ?5 ignores it);
 * return the rows changed or -errno.
 */
static int hist_update_range(struct scan_state *st, const char *sql, int64_t pass_id,
			     const char *device, uint64_t offset, uint64_t length,
			     const char *text)
{
	sqlite3_stmt *s;
	int ret;

	if (!st || !device)
		return -EINVAL;
	ret = hist_prepare(st, sql, &s);
	if (ret < 0)
		return ret;
	sqlite3_bind_int64(s, 1, pass_id);
	state_bind_text(s, 2, device);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)offset);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)length);
	if (sqlite3_bind_parameter_count(s) >= 5)
		state_bind_text(s, 5, text);
	ret = sqlite3_step(s);
	ret = ret == SQLITE_DONE ? sqlite3_changes(st->db) : state_fail(st, ret);
	sqlite3_finalize(s);
	return ret;
}

int scan_state_set_owners_range(struct scan_state *st, int64_t pass_id, const char *device,
				uint64_t offset, uint64_t length, const char *owners_json)
{
	return hist_update_range(st, "UPDATE errors SET owners_json = ?5 "
				 "WHERE target_id = (SELECT target_id FROM passes WHERE id = ?1) "
				 "AND device = ?2 AND offset < ?3 + ?4 AND offset + length > ?3",
				 pass_id, device, offset, length, owners_json);
}

/* What the history lists: damage, and slow and device-fault ranges (the disk's health). */
#define HIST_LISTED "verdict IN ('damage', 'slow', 'device-fault')"

/* Return 0 after counting the open and cleared damage, open slow and device-fault ranges, and
 * the transient errors seen by the last complete full pass or a later one, of target t (by
 * verdict), or -errno. */
static int hist_counts(struct scan_state *st, struct scan_state_target *t)
{
	sqlite3_stmt *s;
	int ret = hist_prepare(st, "SELECT "
			       "coalesce(sum(verdict = 'damage' AND state = 'open'), 0), "
			       "coalesce(sum(verdict = 'damage' AND state = 'cleared' AND "
			       "coalesce(cleared_why, 'read') = 'read'), 0), "
			       "coalesce(sum(verdict = 'slow' AND state = 'open'), 0), "
			       "coalesce(sum(verdict = 'device-fault' AND state = 'open'), 0), "
			       "coalesce(sum(verdict = 'transient' AND last_pass_id >= "
			       "coalesce((SELECT max(id) FROM passes WHERE target_id = ?1 AND "
			       "kind = 'full' AND result = 'complete'), 0)), 0), "
			       "(SELECT count(*) FROM redundancy_lost r WHERE r.target_id = ?1 AND "
			       "r.state = 'open'), "
			       "(SELECT count(*) FROM copies_differ c WHERE c.target_id = ?1 AND "
			       "c.state = 'open') "
			       "FROM errors WHERE target_id = ?1", &s);

	if (ret < 0)
		return ret;
	sqlite3_bind_int64(s, 1, t->id);
	ret = sqlite3_step(s);
	if (ret == SQLITE_ROW) {
		t->open_errors = (unsigned)sqlite3_column_int64(s, 0);
		t->cleared_errors = (unsigned)sqlite3_column_int64(s, 1);
		t->open_slow = (unsigned)sqlite3_column_int64(s, 2);
		t->open_device_faults = (unsigned)sqlite3_column_int64(s, 3);
		t->transient_latest = (unsigned)sqlite3_column_int64(s, 4);
		t->open_redundancy_lost = (unsigned)sqlite3_column_int64(s, 5);
		t->open_copies_differ = (unsigned)sqlite3_column_int64(s, 6);
		ret = 0;
	} else {
		ret = state_fail(st, ret);
	}
	sqlite3_finalize(s);
	return ret;
}

int scan_state_list_targets(struct scan_state *st, scan_state_target_fn fn, void *arg)
{
	sqlite3_stmt *s;
	int ret, rc, count = 0;

	if (!st || !fn)
		return -EINVAL;
	ret = hist_prepare(st, "SELECT id, key, path, fs_type FROM targets ORDER BY path, id", &s);
	if (ret < 0)
		return ret;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct scan_state_target t = {
			.id = sqlite3_column_int64(s, 0),
			.key = (const char *)sqlite3_column_text(s, 1),
			.path = (const char *)sqlite3_column_text(s, 2),
			.fs_type = (const char *)sqlite3_column_text(s, 3),
		};

		if (!t.path)
			t.path = "";
		if (!t.fs_type)
			t.fs_type = "";
		ret = hist_one_pass(st, "SELECT " HIST_PASS_COLS " FROM passes WHERE target_id = ?1 "
				    "AND kind = 'full' ORDER BY id DESC LIMIT 1", t.id, &t.latest);
		if (ret >= 0) {
			t.has_latest = ret;
			ret = hist_one_pass(st, "SELECT " HIST_PASS_COLS " FROM passes "
					    "WHERE target_id = ?1 AND result = 'complete' AND "
					    "kind = 'full' ORDER BY id DESC LIMIT 1", t.id,
					    &t.last_complete);
		}
		if (ret >= 0) {
			t.has_complete = ret;
			ret = hist_one_pass(st, "SELECT " HIST_PASS_COLS " FROM passes "
					    "WHERE target_id = ?1 AND result = 'complete' AND "
					    "kind = 'full' ORDER BY id DESC LIMIT 1 OFFSET 1", t.id,
					    &t.prev_complete);
		}
		if (ret >= 0) {
			t.has_prev_complete = ret;
			ret = hist_counts(st, &t);
		}
		if (ret >= 0)
			ret = fn(&t, arg);
		if (ret < 0) {
			sqlite3_finalize(s);
			return ret;
		}
		count++;
	}
	ret = rc == SQLITE_DONE ? count : state_fail(st, rc);
	sqlite3_finalize(s);
	return ret;
}

int scan_state_list_errors(struct scan_state *st, int64_t target_id, int64_t since, int all,
			   scan_state_row_fn fn, void *arg)
{
	sqlite3_stmt *s;
	int ret, rc, count = 0;

	if (!st || !fn)
		return -EINVAL;
	ret = hist_prepare(st, "SELECT id, pass_id, last_pass_id, device, offset, length, error, "
			   "cls, owners_json, first_seen, last_seen, times_seen, state, cleared, "
			   "cleared_pass_id, verdict, latency_ns, cleared_why, "
			   "coalesce(device_path, device) FROM errors "
			   "WHERE target_id = ?1 AND " HIST_LISTED
			   " AND last_seen >= ?2 AND (?3 OR state = 'open') "
			   "ORDER BY first_seen DESC, pass_id DESC, device, offset", &s);
	if (ret < 0)
		return ret;
	sqlite3_bind_int64(s, 1, target_id);
	sqlite3_bind_int64(s, 2, since);
	sqlite3_bind_int(s, 3, !!all);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(s, 12);
		struct scan_state_error_row e = {
			.id = sqlite3_column_int64(s, 0),
			.first_pass_id = sqlite3_column_int64(s, 1),
			.last_pass_id = sqlite3_column_int64(s, 2),
			.device = (const char *)sqlite3_column_text(s, 3),
			.offset = (uint64_t)sqlite3_column_int64(s, 4),
			.length = (uint64_t)sqlite3_column_int64(s, 5),
			.error = (const char *)sqlite3_column_text(s, 6),
			.cls = (const char *)sqlite3_column_text(s, 7),
			.owners_json = (const char *)sqlite3_column_text(s, 8),
			.first_seen = sqlite3_column_int64(s, 9),
			.last_seen = sqlite3_column_int64(s, 10),
			.times_seen = (unsigned)sqlite3_column_int64(s, 11),
			.cleared = state && strcmp(state, "cleared") == 0,
			.cleared_at = sqlite3_column_int64(s, 13),
			.cleared_pass_id = sqlite3_column_int64(s, 14),
			.verdict = (const char *)sqlite3_column_text(s, 15),
			.latency_ns = (uint64_t)sqlite3_column_int64(s, 16),
		};
		const char *why = (const char *)sqlite3_column_text(s, 17);

		e.device = (const char *)sqlite3_column_text(s, 18);	/* for people */
		e.unallocated = e.cleared && why && strcmp(why, "unallocated") == 0;

		ret = fn(&e, arg);
		if (ret < 0) {
			sqlite3_finalize(s);
			return ret;
		}
		count++;
	}
	ret = rc == SQLITE_DONE ? count : state_fail(st, rc);
	sqlite3_finalize(s);
	return ret;
}

int scan_state_count_unnotified(struct scan_state *st, int64_t pass_id, const char *device,
				uint64_t offset, uint64_t length)
{
	sqlite3_stmt *s;
	int ret;

	if (!st || !device)
		return -EINVAL;
	/* No row at all: the store failed to keep it; it is new, never "already told". */
	ret = hist_prepare(st, "SELECT CASE WHEN count(*) = 0 THEN 1 "
			   "ELSE total(notified = 0) END FROM errors "
			   "WHERE target_id = (SELECT target_id FROM passes WHERE id = ?1) "
			   "AND device = ?2 AND offset < ?3 + ?4 AND offset + length > ?3", &s);
	if (ret < 0)
		return ret;
	sqlite3_bind_int64(s, 1, pass_id);
	state_bind_text(s, 2, device);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)offset);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)length);
	ret = sqlite3_step(s);
	ret = ret == SQLITE_ROW ? sqlite3_column_int(s, 0) : state_fail(st, ret);
	sqlite3_finalize(s);
	return ret;
}

int scan_state_take_unnotified(struct scan_state *st, int64_t pass_id, const char *device,
			       uint64_t offset, uint64_t length)
{
	return hist_update_range(st, "UPDATE errors SET notified = 1 "
				 "WHERE target_id = (SELECT target_id FROM passes WHERE id = ?1) "
				 "AND device = ?2 AND offset < ?3 + ?4 AND offset + length > ?3 "
				 "AND notified = 0", pass_id, device, offset, length, NULL);
}

int scan_state_list_passes(struct scan_state *st, int64_t target_id, scan_state_pass_fn fn,
			   void *arg)
{
	sqlite3_stmt *s;
	int ret, rc, count = 0;

	if (!st || !fn)
		return -EINVAL;
	/* Found: listed rows first seen in the pass; cleared: rows it read cleanly. */
	ret = hist_prepare(st, "SELECT " HIST_PASS_COLS ", kind = 'recheck', "
			   "(SELECT count(*) FROM errors e WHERE e.pass_id = passes.id AND "
			   HIST_LISTED "), "
			   "(SELECT count(*) FROM errors e WHERE e.cleared_pass_id = passes.id AND "
			   "state = 'cleared' AND coalesce(cleared_why, 'read') = 'read') "
			   "FROM passes WHERE target_id = ?1 ORDER BY id", &s);
	if (ret < 0)
		return ret;
	sqlite3_bind_int64(s, 1, target_id);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct scan_state_pass_row p;

		hist_pass(s, 0, &p.pass);
		p.recheck = sqlite3_column_int(s, 14);
		p.found = (unsigned)sqlite3_column_int64(s, 15);
		p.cleared = (unsigned)sqlite3_column_int64(s, 16);
		ret = fn(&p, arg);
		if (ret < 0) {
			sqlite3_finalize(s);
			return ret;
		}
		count++;
	}
	ret = rc == SQLITE_DONE ? count : state_fail(st, rc);
	sqlite3_finalize(s);
	return ret;
}
