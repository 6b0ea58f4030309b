/*
 * history/redundancy.c - redundancy lost in the history: member ranges of an array that failed
 * while another copy read fine, kept under the member disk's identity and the array's UUID
 * (never under the filesystem's device), told once, cleared when a later complete member-level
 * pass reads every copy again without seeing them fail.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "state_int.h"

/* Seen again: the same row; times_seen counts passes; a cleared row opens again. */
#define RL_UPSERT \
	"INSERT INTO redundancy_lost (target_id, pass_id, last_pass_id, member, member_path, " \
	"array_uuid, array_path, offset, length, err, no_copy, parity, fs_offset, copies_json, " \
	"owners_json, repair, first_seen, last_seen) " \
	"VALUES ((SELECT target_id FROM passes WHERE id = ?1), ?1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, " \
	"?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?15) " \
	"ON CONFLICT (target_id, member, array_uuid, offset, length) DO UPDATE SET " \
	"times_seen = times_seen + (last_pass_id != excluded.last_pass_id), " \
	"last_pass_id = excluded.last_pass_id, last_seen = excluded.last_seen, " \
	"member_path = excluded.member_path, array_path = excluded.array_path, " \
	"err = excluded.err, no_copy = excluded.no_copy, parity = excluded.parity, " \
	"fs_offset = excluded.fs_offset, copies_json = excluded.copies_json, " \
	"owners_json = coalesce(excluded.owners_json, owners_json), " \
	"repair = excluded.repair, " \
	/* cleared, then failing again: a new event, told again */ \
	"notified = CASE WHEN state = 'cleared' THEN 0 ELSE notified END, " \
	"state = 'open', cleared = NULL, cleared_pass_id = NULL " \
	"RETURNING id, notified"


/* End the transaction begun: committed unless ret is an error, rolled back when it is or
 * when the commit fails. Return ret's error, the commit's, or 0. */
static int tx_end(struct scan_state *st, int ret)
{
	if (ret >= 0)
		ret = state_commit(st);
	if (ret < 0)
		state_rollback(st);
	return ret;
}

int scan_state_record_rl(struct scan_state *st, int64_t pass_id, const struct scan_state_rl *v,
			 size_t n, int *fresh)
{
	sqlite3_stmt *up = NULL;
	int64_t now = time(NULL);
	int ret, nr_fresh = 0;

	if (!st || (n && !v))
		return -EINVAL;
	if (!n)
		return 0;
	ret = hist_prepare(st, RL_UPSERT, &up);
	if (ret < 0)
		goto out;
	ret = state_begin(st);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct scan_state_rl *e = &v[i];
		int was_told;

		if (!e->member || !e->member[0]) {
			ret = -EINVAL;
			break;
		}
		sqlite3_reset(up);
		sqlite3_clear_bindings(up);
		sqlite3_bind_int64(up, 1, pass_id);
		state_bind_text(up, 2, e->member);
		state_bind_text(up, 3, e->member_path);
		state_bind_text(up, 4, e->array_uuid ? e->array_uuid : "");
		state_bind_text(up, 5, e->array_path);
		sqlite3_bind_int64(up, 6, (sqlite3_int64)e->offset);
		sqlite3_bind_int64(up, 7, (sqlite3_int64)e->length);
		sqlite3_bind_int(up, 8, e->err);
		sqlite3_bind_int(up, 9, !!e->no_copy);
		sqlite3_bind_int(up, 10, !!e->parity);
		if (e->has_fs)
			sqlite3_bind_int64(up, 11, (sqlite3_int64)e->fs_offset);
		else
			sqlite3_bind_null(up, 11);
		state_bind_text(up, 12, e->copies_json);
		state_bind_text(up, 13, e->owners_json);
		state_bind_text(up, 14, e->repair);
		sqlite3_bind_int64(up, 15, now);
		ret = sqlite3_step(up);
		if (ret != SQLITE_ROW) {
			ret = state_fail(st, ret);
			break;
		}
		was_told = sqlite3_column_int(up, 1);
		ret = sqlite3_step(up);		/* RETURNING: run the statement to its end */
		if (ret != SQLITE_DONE) {
			ret = state_fail(st, ret);
			break;
		}
		ret = 0;
		if (fresh)
			fresh[i] = !was_told;
		nr_fresh += !was_told;
	}
	ret = tx_end(st, ret);
out:
	sqlite3_finalize(up);
	return ret < 0 ? ret : nr_fresh;
}

int scan_state_told_rl(struct scan_state *st, int64_t pass_id, const struct scan_state_rl *v,
		       const size_t *idx, size_t n)
{
	sqlite3_stmt *s = NULL;
	int ret, nr = 0;

	if (!st || (n && (!v || !idx)))
		return -EINVAL;
	if (!n)
		return 0;
	ret = hist_prepare(st, "UPDATE redundancy_lost SET notified = 1 WHERE target_id = "
			   "(SELECT target_id FROM passes WHERE id = ?1) AND member = ?2 AND "
			   "array_uuid = ?3 AND offset = ?4 AND length = ?5 AND notified = 0", &s);
	if (ret < 0)
		return ret;
	ret = state_begin(st);
	if (ret < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct scan_state_rl *e = &v[idx[i]];

		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		sqlite3_bind_int64(s, 1, pass_id);
		state_bind_text(s, 2, e->member);
		state_bind_text(s, 3, e->array_uuid ? e->array_uuid : "");
		sqlite3_bind_int64(s, 4, (sqlite3_int64)e->offset);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)e->length);
		ret = sqlite3_step(s);
		if (ret != SQLITE_DONE) {
			ret = state_fail(st, ret);
			break;
		}
		ret = 0;
		nr += sqlite3_changes(st->db);
	}
	ret = tx_end(st, ret);
out:
	sqlite3_finalize(s);
	return ret < 0 ? ret : nr;
}

int scan_state_settle_rl(struct scan_state *st, int64_t pass_id)
{
	return hist_settle_open(st, pass_id, "redundancy_lost");
}

static const char *col_text(sqlite3_stmt *s, int col)
{
	return (const char *)sqlite3_column_text(s, col);
}

int scan_state_list_rl(struct scan_state *st, int64_t target_id, int64_t since, int all,
		       scan_state_rl_fn fn, void *arg)
{
	sqlite3_stmt *s;
	int ret, rc, count = 0;

	if (!st || !fn)
		return -EINVAL;
	ret = hist_prepare(st, "SELECT id, pass_id, last_pass_id, cleared_pass_id, member, "
			   "coalesce(member_path, member), array_uuid, coalesce(array_path, ''), "
			   "offset, length, err, no_copy, parity, fs_offset, copies_json, "
			   "owners_json, repair, first_seen, last_seen, cleared, times_seen, state "
			   "FROM redundancy_lost WHERE target_id = ?1 AND last_seen >= ?2 AND "
			   "(?3 OR state = 'open') ORDER BY first_seen DESC, member, offset", &s);
	if (ret < 0)
		return ret;
	sqlite3_bind_int64(s, 1, target_id);
	sqlite3_bind_int64(s, 2, since);
	sqlite3_bind_int(s, 3, !!all);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *state = col_text(s, 21);
		struct scan_state_rl_row e = {
			.id = sqlite3_column_int64(s, 0),
			.first_pass_id = sqlite3_column_int64(s, 1),
			.last_pass_id = sqlite3_column_int64(s, 2),
			.cleared_pass_id = sqlite3_column_int64(s, 3),
			.rl = {
				.member = col_text(s, 4),
				.member_path = col_text(s, 5),
				.array_uuid = col_text(s, 6),
				.array_path = col_text(s, 7),
				.offset = (uint64_t)sqlite3_column_int64(s, 8),
				.length = (uint64_t)sqlite3_column_int64(s, 9),
				.err = sqlite3_column_int(s, 10),
				.no_copy = sqlite3_column_int(s, 11),
				.parity = sqlite3_column_int(s, 12),
				.has_fs = sqlite3_column_type(s, 13) != SQLITE_NULL,
				.fs_offset = (uint64_t)sqlite3_column_int64(s, 13),
				.copies_json = col_text(s, 14),
				.owners_json = col_text(s, 15),
				.repair = col_text(s, 16),
			},
			.first_seen = sqlite3_column_int64(s, 17),
			.last_seen = sqlite3_column_int64(s, 18),
			.cleared_at = sqlite3_column_int64(s, 19),
			.times_seen = (unsigned)sqlite3_column_int64(s, 20),
			.cleared = state && strcmp(state, "cleared") == 0,
		};

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
