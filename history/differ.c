/*
 * history/differ.c - copies that differ in the history: runs of an array's row whose copies
 * (or data and parity) disagreed the same way on three reads, kept under the array's UUID and
 * the first leg's member identity (never under the filesystem's device), cleared when a later
 * complete comparing pass finds the row agreeing.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "state_int.h"

/* Seen again: the same row; times_seen counts passes; a cleared row opens again. */
#define CD_UPSERT \
	"INSERT INTO copies_differ (target_id, pass_id, last_pass_id, array_uuid, array_path, " \
	"level, member, offset, length, wrong, how, legs_json, owners_json, first_seen, " \
	"last_seen) VALUES ((SELECT target_id FROM passes WHERE id = ?1), ?1, ?1, ?2, ?3, ?4, " \
	"?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12) " \
	"ON CONFLICT (target_id, array_uuid, member, offset, length) DO UPDATE SET " \
	"times_seen = times_seen + (last_pass_id != excluded.last_pass_id), " \
	"last_pass_id = excluded.last_pass_id, last_seen = excluded.last_seen, " \
	"array_path = excluded.array_path, wrong = excluded.wrong, how = excluded.how, " \
	"legs_json = excluded.legs_json, " \
	"owners_json = coalesce(excluded.owners_json, owners_json), " \
	"state = 'open', cleared = NULL, cleared_pass_id = NULL"

/* Whether a run is open in the history already (then it is not news). */
#define CD_OPEN \
	"SELECT count(*) FROM copies_differ WHERE target_id = (SELECT target_id FROM passes " \
	"WHERE id = ?1) AND array_uuid = ?2 AND member = ?3 AND offset = ?4 AND length = ?5 " \
	"AND state = 'open'"

/* Return 1 when run e is open in the history of pass_id's target, 0 when not, or -errno. */
static int cd_is_open(struct scan_state *st, sqlite3_stmt *q, int64_t pass_id,
		      const struct scan_state_cd *e)
{
	int ret;

	sqlite3_reset(q);
	sqlite3_bind_int64(q, 1, pass_id);
	state_bind_text(q, 2, e->array_uuid ? e->array_uuid : "");
	state_bind_text(q, 3, e->member);
	sqlite3_bind_int64(q, 4, (sqlite3_int64)e->offset);
	sqlite3_bind_int64(q, 5, (sqlite3_int64)e->length);
	ret = sqlite3_step(q);
	return ret == SQLITE_ROW ? sqlite3_column_int(q, 0) > 0 : state_fail(st, ret);
}

int scan_state_record_cd(struct scan_state *st, int64_t pass_id, const struct scan_state_cd *v,
			 size_t n, int *fresh)
{
	sqlite3_stmt *up = NULL, *q = NULL;
	int64_t now = time(NULL);
	int ret, nr_new = 0;

	if (!st || (n && !v))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!v[i].member || !v[i].member[0] || !v[i].how)
			return -EINVAL;
	if (!n)
		return 0;
	ret = hist_prepare(st, CD_UPSERT, &up);
	if (ret == 0)
		ret = hist_prepare(st, CD_OPEN, &q);
	if (ret == 0)
		ret = state_begin(st);
	for (size_t i = 0; i < n && ret >= 0; i++) {
		const struct scan_state_cd *e = &v[i];
		int was_open = cd_is_open(st, q, pass_id, e);

		if (was_open < 0) {
			ret = was_open;
			break;
		}
		sqlite3_reset(up);
		sqlite3_clear_bindings(up);
		sqlite3_bind_int64(up, 1, pass_id);
		state_bind_text(up, 2, e->array_uuid ? e->array_uuid : "");
		state_bind_text(up, 3, e->array_path);
		state_bind_text(up, 4, e->level);
		state_bind_text(up, 5, e->member);
		sqlite3_bind_int64(up, 6, (sqlite3_int64)e->offset);
		sqlite3_bind_int64(up, 7, (sqlite3_int64)e->length);
		state_bind_text(up, 8, e->wrong);
		state_bind_text(up, 9, e->how);
		state_bind_text(up, 10, e->legs_json);
		state_bind_text(up, 11, e->owners_json);
		sqlite3_bind_int64(up, 12, now);
		ret = sqlite3_step(up);
		ret = ret == SQLITE_DONE ? 0 : state_fail(st, ret);
		nr_new += !was_open;
		if (fresh)
			fresh[i] = !was_open;
	}
	if (ret >= 0)
		ret = state_commit(st);
	else if (up && q)
		state_rollback(st);
	sqlite3_finalize(up);
	sqlite3_finalize(q);
	return ret < 0 ? ret : nr_new;
}

int scan_state_settle_cd(struct scan_state *st, int64_t pass_id)
{
	return hist_settle_open(st, pass_id, "copies_differ");
}

int scan_state_list_cd(struct scan_state *st, int64_t target_id, int all, scan_state_cd_fn fn,
		       void *arg)
{
	sqlite3_stmt *s;
	int ret, rc, count = 0;

	if (!st || !fn)
		return -EINVAL;
	ret = hist_prepare(st, "SELECT id, pass_id, last_pass_id, array_uuid, array_path, level, "
			   "member, offset, length, wrong, how, legs_json, owners_json, "
			   "first_seen, last_seen, times_seen, state = 'cleared' FROM copies_differ "
			   "WHERE target_id = ?1 AND (?2 OR state = 'open') "
			   "ORDER BY last_seen DESC, id", &s);
	if (ret < 0)
		return ret;
	sqlite3_bind_int64(s, 1, target_id);
	sqlite3_bind_int(s, 2, !!all);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct scan_state_cd_row e = {
			.id = sqlite3_column_int64(s, 0),
			.first_pass_id = sqlite3_column_int64(s, 1),
			.last_pass_id = sqlite3_column_int64(s, 2),
			.cd = {
				.array_uuid = (const char *)sqlite3_column_text(s, 3),
				.array_path = (const char *)sqlite3_column_text(s, 4),
				.level = (const char *)sqlite3_column_text(s, 5),
				.member = (const char *)sqlite3_column_text(s, 6),
				.offset = (uint64_t)sqlite3_column_int64(s, 7),
				.length = (uint64_t)sqlite3_column_int64(s, 8),
				.wrong = (const char *)sqlite3_column_text(s, 9),
				.how = (const char *)sqlite3_column_text(s, 10),
				.legs_json = (const char *)sqlite3_column_text(s, 11),
				.owners_json = (const char *)sqlite3_column_text(s, 12),
			},
			.first_seen = sqlite3_column_int64(s, 13),
			.last_seen = sqlite3_column_int64(s, 14),
			.times_seen = (unsigned)sqlite3_column_int(s, 15),
			.cleared = sqlite3_column_int(s, 16),
		};

		ret = fn(&e, arg);
		if (ret < 0)
			break;
		count++;
	}
	if (ret >= 0)
		ret = rc == SQLITE_DONE ? count : state_fail(st, rc);
	sqlite3_finalize(s);
	return ret;
}
