/*
 * history/passes.c - pass records in the state store: a pass begun, resumed, checkpointed
 * (cursors and errors committed in one transaction every few seconds), finished and read back
 * to resume an interrupted pass; the errors it saw merged by range; open errors settled by a
 * complete pass.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "state_int.h"

int scan_state_adopt_key(struct scan_state *st, const char *key, const char *legacy_key)
{
	sqlite3_stmt *s;
	int ret;

	if (!st || !key || !legacy_key || !strcmp(key, legacy_key))
		return 0;
	/* Only when the target is not known by its new key yet: never merge two histories. */
	ret = hist_prepare(st, "UPDATE targets SET key = ?1 WHERE key = ?2 AND NOT EXISTS "
			   "(SELECT 1 FROM targets WHERE key = ?1)", &s);
	if (ret < 0)
		return ret;
	state_bind_text(s, 1, key);
	state_bind_text(s, 2, legacy_key);
	ret = sqlite3_step(s);
	ret = ret == SQLITE_DONE ? sqlite3_changes(st->db) : state_fail(st, ret);
	sqlite3_finalize(s);
	return ret;
}

int scan_state_begin_pass(struct scan_state *st, const char *key, const char *path,
			  const char *fs_type, uint64_t planned_bytes, const char *method,
			  const char *engine, int recheck, int64_t *pass_id)
{
	int64_t now = time(NULL), target_id;
	sqlite3_stmt *s;
	int ret;

	if (!st || !key || !pass_id)
		return -EINVAL;
	ret = state_begin(st);
	if (ret < 0)
		return ret;

	s = state_stmt(st, STMT_TARGET_UPSERT);
	state_bind_text(s, 1, key);
	state_bind_text(s, 2, path);
	state_bind_text(s, 3, fs_type);
	sqlite3_bind_int64(s, 4, now);
	ret = state_row(st, s);
	if (ret <= 0)
		goto out_rollback;
	target_id = sqlite3_column_int64(s, 0);
	ret = state_exec(st, s);	/* finish the RETURNING statement */
	if (ret < 0)
		goto out_rollback;

	s = state_stmt(st, STMT_PASSES_ORPHAN);
	sqlite3_bind_int64(s, 1, target_id);
	sqlite3_bind_int64(s, 2, now);
	ret = state_exec(st, s);
	if (ret < 0)
		goto out_rollback;

	s = state_stmt(st, STMT_PASS_INSERT);
	sqlite3_bind_int64(s, 1, target_id);
	sqlite3_bind_int64(s, 2, now);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)planned_bytes);
	state_bind_text(s, 4, method);
	state_bind_text(s, 5, engine);
	state_bind_text(s, 6, recheck ? "recheck" : "full");
	ret = state_exec(st, s);
	if (ret < 0)
		goto out_rollback;
	*pass_id = sqlite3_last_insert_rowid(st->db);

	ret = state_commit(st);
	if (ret < 0)
		goto out_rollback;
	return 0;
out_rollback:
	if (ret == 0)
		ret = -EIO;
	state_rollback(st);
	return ret;
}

int scan_state_find_resumable(struct scan_state *st, const char *key, int64_t *pass_id,
			      uint64_t *cursor, unsigned nr_devs)
{
	enum scan_pass_result result;
	sqlite3_stmt *s;
	int64_t id;
	int ret;

	if (!st || !key || !pass_id || (nr_devs && !cursor))
		return -EINVAL;
	s = state_stmt(st, STMT_LATEST_PASS);
	state_bind_text(s, 1, key);
	ret = state_row(st, s);
	if (ret <= 0)
		return ret;
	id = sqlite3_column_int64(s, 0);
	result = state_result_parse((const char *)sqlite3_column_text(s, 1));
	state_release(s);
	if (result != SCAN_PASS_RUNNING && result != SCAN_PASS_INTERRUPTED)
		return 0;

	for (unsigned i = 0; i < nr_devs; i++)
		cursor[i] = 0;
	s = state_stmt(st, STMT_CURSORS_GET);
	sqlite3_bind_int64(s, 1, id);
	while ((ret = state_row(st, s)) > 0) {
		int64_t dev = sqlite3_column_int64(s, 0);

		if (dev >= 0 && dev < nr_devs)
			cursor[dev] = (uint64_t)sqlite3_column_int64(s, 1);
	}
	if (ret < 0)
		return ret;
	*pass_id = id;
	return 1;
}

int scan_state_resume(struct scan_state *st, int64_t pass_id)
{
	sqlite3_stmt *s;
	int ret;

	if (!st)
		return -EINVAL;
	s = state_stmt(st, STMT_PASS_RESUME);
	sqlite3_bind_int64(s, 1, pass_id);
	ret = state_exec(st, s);
	if (ret < 0)
		return ret;
	return sqlite3_changes(st->db) ? 0 : -ESTALE;
}

/* Bind the columns an error row takes from e, from index at on (10 values). */
static void bind_error_fields(sqlite3_stmt *s, int at, const struct scan_error *e)
{
	state_bind_text(s, at, scan_error_name(e));
	sqlite3_bind_int(s, at + 1, e->err);
	state_bind_text(s, at + 2, scan_class_name(e->cls));
	sqlite3_bind_int64(s, at + 3, e->reads);
	sqlite3_bind_int(s, at + 4, !!e->in_gap);
	sqlite3_bind_int(s, at + 5, !!e->reproducible);
}

/* Rows of the history that the error being stored overlaps (the same damage). */
struct overlap {
	int64_t id, pass_id, first_seen, last_pass_id;
	uint64_t offset, length;
	unsigned times_seen;
	int damage;
};

/*
 * Merge error e into the overlapping rows ov[0..n) (oldest first): one row, the oldest, takes
 * the union of their ranges, their history (first seen, passes) and e's latest details; a
 * range once damage stays damage until a clean read settles it. Return its id, or -errno.
 */
static int64_t state_merge_error(struct scan_state *st, int64_t pass_id,
				 const struct scan_error *e, const char *device,
				 const struct overlap *ov, size_t n, int64_t now)
{
	uint64_t lo = e->offset, hi = e->offset + e->length;
	int64_t first_pass = ov[0].pass_id, first_seen = ov[0].first_seen;
	unsigned times = 0;
	int seen_now = 0, damage = scan_is_damage(e);
	sqlite3_stmt *s;
	int ret;

	for (size_t i = 0; i < n; i++) {
		lo = ov[i].offset < lo ? ov[i].offset : lo;
		hi = ov[i].offset + ov[i].length > hi ? ov[i].offset + ov[i].length : hi;
		first_pass = ov[i].pass_id < first_pass ? ov[i].pass_id : first_pass;
		first_seen = ov[i].first_seen < first_seen ? ov[i].first_seen : first_seen;
		times = ov[i].times_seen > times ? ov[i].times_seen : times;
		seen_now |= ov[i].last_pass_id == pass_id;
		damage |= ov[i].damage;
	}
	for (size_t i = 1; i < n; i++) {
		s = state_stmt(st, STMT_ERROR_PASSES_MOVE);
		sqlite3_bind_int64(s, 1, ov[0].id);
		sqlite3_bind_int64(s, 2, ov[i].id);
		ret = state_exec(st, s);
		if (ret == 0) {
			s = state_stmt(st, STMT_ERROR_PASSES_DEL);
			sqlite3_bind_int64(s, 1, ov[i].id);
			ret = state_exec(st, s);
		}
		if (ret == 0) {
			s = state_stmt(st, STMT_ERROR_DEL);
			sqlite3_bind_int64(s, 1, ov[i].id);
			ret = state_exec(st, s);
		}
		if (ret < 0)
			return ret;
	}
	s = state_stmt(st, STMT_ERROR_MERGE);
	sqlite3_bind_int64(s, 1, ov[0].id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)lo);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)(hi - lo));
	sqlite3_bind_int64(s, 4, first_pass);
	sqlite3_bind_int64(s, 5, first_seen);
	sqlite3_bind_int64(s, 6, times + !seen_now);
	sqlite3_bind_int64(s, 7, pass_id);
	sqlite3_bind_int64(s, 8, now);
	sqlite3_bind_int64(s, 9, e->dev_idx);
	bind_error_fields(s, 10, e);
	sqlite3_bind_int(s, 16, (int)e->vfy_fail);
	sqlite3_bind_int64(s, 17, e->dev_status);
	sqlite3_bind_int64(s, 18, (sqlite3_int64)e->pi_expected);
	sqlite3_bind_int64(s, 19, (sqlite3_int64)e->pi_found);
	state_bind_text(s, 20, damage ? scan_verdict_name(SCAN_V_DAMAGE) :
		  scan_verdict_name(scan_error_verdict(e)));
	sqlite3_bind_int64(s, 21, (sqlite3_int64)e->latency_ns);
	state_bind_text(s, 22, device);
	state_bind_text(s, 23, state_dev_path(st, device));
	ret = state_exec(st, s);
	return ret < 0 ? ret : ov[0].id;
}

/* Store one error of pass_id (merged with the rows it overlaps) and record that the pass saw
 * it; return 0 or -errno. */
static int state_put_error(struct scan_state *st, int64_t pass_id, const struct scan_error *e,
			   const char *device, int64_t now)
{
	struct overlap ov[16];
	sqlite3_stmt *s = state_stmt(st, STMT_ERROR_OVERLAP);
	int64_t error_id;
	size_t n = 0;
	int ret;

	sqlite3_bind_int64(s, 1, pass_id);
	state_bind_text(s, 2, device);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)e->offset);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)e->length);
	state_bind_text(s, 5, state_dev_path(st, device));	/* rows of older versions */
	while ((ret = state_row(st, s)) > 0) {
		const char *v = (const char *)sqlite3_column_text(s, 3);

		if (n == sizeof(ov) / sizeof(ov[0]))
			continue;		/* bounded: the rest merge next time */
		ov[n].id = sqlite3_column_int64(s, 0);
		ov[n].offset = (uint64_t)sqlite3_column_int64(s, 1);
		ov[n].length = (uint64_t)sqlite3_column_int64(s, 2);
		ov[n].damage = v && strcmp(v, scan_verdict_name(SCAN_V_DAMAGE)) == 0;
		ov[n].pass_id = sqlite3_column_int64(s, 4);
		ov[n].first_seen = sqlite3_column_int64(s, 5);
		ov[n].times_seen = (unsigned)sqlite3_column_int64(s, 6);
		ov[n].last_pass_id = sqlite3_column_int64(s, 7);
		n++;
	}
	state_release(s);
	if (ret < 0)
		return ret;
	if (n && !scan_is_damage(e)) {
		/*
		 * What is not damage (a transient, a slow span, an operational error) never grows
		 * damage it overlaps: a 512 B bad sector stays 512 B. The damage rows are seen
		 * by this pass (once more, and not settled by it); e itself is not kept.
		 */
		int dmg = 0;

		for (size_t i = 0; i < n; i++) {
			if (!ov[i].damage)
				continue;
			dmg = 1;
			ret = hist_prepare(st, "UPDATE errors SET times_seen = times_seen + "
					   "(last_pass_id != ?2), last_pass_id = ?2, last_seen = ?3 "
					   "WHERE id = ?1", &s);
			if (ret < 0)
				return ret;
			sqlite3_bind_int64(s, 1, ov[i].id);
			sqlite3_bind_int64(s, 2, pass_id);
			sqlite3_bind_int64(s, 3, now);
			ret = sqlite3_step(s);
			ret = ret == SQLITE_DONE ? 0 : state_fail(st, ret);
			sqlite3_finalize(s);
			if (ret == 0) {
				s = state_stmt(st, STMT_ERROR_PASS);
				sqlite3_bind_int64(s, 1, ov[i].id);
				sqlite3_bind_int64(s, 2, pass_id);
				ret = state_exec(st, s);
			}
			if (ret < 0)
				return ret;
		}
		if (dmg)
			return 0;
	}
	if (n) {
		error_id = state_merge_error(st, pass_id, e, device, ov, n, now);
		if (error_id < 0)
			return (int)error_id;
	} else {
		s = state_stmt(st, STMT_ERROR_UPSERT);
		sqlite3_bind_int64(s, 1, pass_id);
		sqlite3_bind_int64(s, 2, e->dev_idx);
		state_bind_text(s, 3, device);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)e->offset);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)e->length);
		bind_error_fields(s, 6, e);
		sqlite3_bind_int64(s, 12, now);
		sqlite3_bind_int(s, 13, (int)e->vfy_fail);
		sqlite3_bind_int64(s, 14, e->dev_status);
		sqlite3_bind_int64(s, 15, (sqlite3_int64)e->pi_expected);	/* bits kept as is */
		sqlite3_bind_int64(s, 16, (sqlite3_int64)e->pi_found);
		state_bind_text(s, 17, scan_verdict_name(scan_error_verdict(e)));
		sqlite3_bind_int64(s, 18, (sqlite3_int64)e->latency_ns);
		state_bind_text(s, 19, state_dev_path(st, device));
		ret = state_row(st, s);
		if (ret <= 0)
			return ret ? ret : -EIO;
		error_id = sqlite3_column_int64(s, 0);
		ret = state_exec(st, s);
		if (ret < 0)
			return ret;
	}

	s = state_stmt(st, STMT_ERROR_PASS);
	sqlite3_bind_int64(s, 1, error_id);
	sqlite3_bind_int64(s, 2, pass_id);
	return state_exec(st, s);
}


/* Run s, an update of pass pass_id's row: -ESTALE (said) when the pass is not running. */
static int exec_running(struct scan_state *st, sqlite3_stmt *s, int64_t pass_id)
{
	int ret = state_exec(st, s);

	if (ret < 0)
		return ret;
	if (!sqlite3_changes(st->db)) {
		snprintf(st->errmsg, sizeof(st->errmsg), "pass %lld is not running",
			 (long long)pass_id);
		return -ESTALE;
	}
	return 0;
}

int scan_state_checkpoint(struct scan_state *st, int64_t pass_id, const uint64_t *cursor,
			  unsigned nr_devs, uint64_t scanned_bytes,
			  const struct scan_error *new_errors, size_t n,
			  const char *const *device_paths)
{
	int64_t now = time(NULL);
	sqlite3_stmt *s;
	int ret;

	if (!st || (nr_devs && !cursor) || (n && (!new_errors || !device_paths)))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (new_errors[i].dev_idx >= nr_devs || !device_paths[new_errors[i].dev_idx])
			return -EINVAL;

	ret = state_begin(st);
	if (ret < 0)
		return ret;
	s = state_stmt(st, STMT_PASS_PROGRESS);
	sqlite3_bind_int64(s, 1, pass_id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)scanned_bytes);
	ret = exec_running(st, s, pass_id);
	if (ret < 0)
		goto out_rollback;

	s = state_stmt(st, STMT_CURSOR_SET);
	for (unsigned i = 0; i < nr_devs; i++) {
		sqlite3_bind_int64(s, 1, pass_id);
		sqlite3_bind_int64(s, 2, i);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)cursor[i]);
		ret = state_exec(st, s);
		if (ret < 0)
			goto out_rollback;
	}
	for (size_t i = 0; i < n; i++) {
		const struct scan_error *e = &new_errors[i];

		ret = state_put_error(st, pass_id, e, device_paths[e->dev_idx], now);
		if (ret < 0)
			goto out_rollback;
	}
	ret = state_commit(st);
	if (ret < 0)
		goto out_rollback;
	return 0;
out_rollback:
	state_rollback(st);
	return ret;
}

int scan_state_pass_pace(struct scan_state *st, int64_t pass_id, int64_t window_end,
			 int64_t projected_end, int64_t late_since)
{
	sqlite3_stmt *s;

	if (!st || window_end < 0 || projected_end < 0 || late_since < 0)
		return -EINVAL;
	s = state_stmt(st, STMT_PASS_PACE);
	sqlite3_bind_int64(s, 1, pass_id);
	sqlite3_bind_int64(s, 2, window_end);
	sqlite3_bind_int64(s, 3, projected_end);
	sqlite3_bind_int64(s, 4, late_since);
	return exec_running(st, s, pass_id);
}

int scan_state_finish(struct scan_state *st, int64_t pass_id, enum scan_pass_result result,
		      uint64_t scanned_bytes, double bytes_per_s)
{
	sqlite3_stmt *s;

	if (!st || result == SCAN_PASS_RUNNING || (unsigned)result > SCAN_PASS_FAILED)
		return -EINVAL;
	s = state_stmt(st, STMT_PASS_FINISH);
	sqlite3_bind_int64(s, 1, pass_id);
	state_bind_text(s, 2, scan_pass_result_name(result));
	sqlite3_bind_int64(s, 3, time(NULL));
	sqlite3_bind_int64(s, 4, (sqlite3_int64)scanned_bytes);
	sqlite3_bind_double(s, 5, bytes_per_s);
	return exec_running(st, s, pass_id);
}

int scan_state_get_pass(struct scan_state *st, int64_t pass_id, struct scan_state_pass *p)
{
	sqlite3_stmt *s;
	int ret;

	if (!st || !p)
		return -EINVAL;
	s = state_stmt(st, STMT_PASS_GET);
	sqlite3_bind_int64(s, 1, pass_id);
	ret = state_row(st, s);
	if (ret <= 0)
		return ret ? ret : -ENOENT;
	memset(p, 0, sizeof(*p));
	p->id = sqlite3_column_int64(s, 0);
	p->target_id = sqlite3_column_int64(s, 1);
	p->started = sqlite3_column_int64(s, 2);
	p->ended = sqlite3_column_int64(s, 3);
	p->planned_bytes = (uint64_t)sqlite3_column_int64(s, 4);
	p->scanned_bytes = (uint64_t)sqlite3_column_int64(s, 5);
	p->bytes_per_s = sqlite3_column_double(s, 6);
	p->result = state_result_parse((const char *)sqlite3_column_text(s, 7));
	state_column_str(s, 8, p->method, sizeof(p->method));
	state_column_str(s, 9, p->engine, sizeof(p->engine));
	state_release(s);
	return 0;
}

int scan_state_load_errors(struct scan_state *st, int64_t pass_id, scan_state_error_fn fn,
			   void *arg)
{
	sqlite3_stmt *s;
	int ret, count = 0;

	if (!st || !fn)
		return -EINVAL;
	s = state_stmt(st, STMT_ERRORS_OF_PASS);
	sqlite3_bind_int64(s, 1, pass_id);
	while ((ret = state_row(st, s)) > 0) {
		struct scan_error e = {
			.dev_idx = (uint32_t)sqlite3_column_int64(s, 0),
			.offset = (uint64_t)sqlite3_column_int64(s, 2),
			.length = (uint64_t)sqlite3_column_int64(s, 3),
			.err = sqlite3_column_int(s, 4),
			.cls = state_class_parse((const char *)sqlite3_column_text(s, 5)),
			.reads = (unsigned)sqlite3_column_int64(s, 6),
			.in_gap = sqlite3_column_int(s, 7),
			.reproducible = sqlite3_column_int(s, 8),
			.vfy_fail = (enum vfy_fail)sqlite3_column_int(s, 9),
			.dev_status = (uint32_t)sqlite3_column_int64(s, 10),
			.pi_expected = (uint64_t)sqlite3_column_int64(s, 11),
			.pi_found = (uint64_t)sqlite3_column_int64(s, 12),
			.latency_ns = (uint64_t)sqlite3_column_int64(s, 13),
		};
		const char *device = (const char *)sqlite3_column_text(s, 1);

		ret = fn(&e, device ? device : "", arg);
		if (ret < 0) {
			state_release(s);
			return ret;
		}
		count++;
	}
	return ret < 0 ? ret : count;
}

int scan_state_open_errors(struct scan_state *st, const char *key, scan_state_open_fn fn,
			   void *arg)
{
	sqlite3_stmt *s;
	int ret, rc, count = 0;

	if (!st || !key || !fn)
		return -EINVAL;
	ret = hist_prepare(st, "SELECT e.id, e.device, e.offset, e.length, e.device_path "
			   "FROM errors e "
			   "JOIN targets t ON t.id = e.target_id WHERE t.key = ?1 AND "
			   "e.state = 'open' ORDER BY e.device, e.offset", &s);
	if (ret < 0)
		return ret;
	state_bind_text(s, 1, key);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct scan_state_open_error e = {
			.id = sqlite3_column_int64(s, 0),
			.device = (const char *)sqlite3_column_text(s, 1),
			.offset = (uint64_t)sqlite3_column_int64(s, 2),
			.length = (uint64_t)sqlite3_column_int64(s, 3),
			.device_path = (const char *)sqlite3_column_text(s, 4),
		};

		if (!e.device)
			continue;
		if (!e.device_path)
			e.device_path = e.device;	/* a row of an older version */
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

int scan_state_settle(struct scan_state *st, const char *key, int64_t pass_id,
		      const struct scan_state_outcome *v, size_t n)
{
	enum scan_pass_result result;
	sqlite3_stmt *s;
	const char *tkey;
	int ret, same_key, settled = 0;

	if (!st || !key || (n && !v))
		return -EINVAL;
	s = state_stmt(st, STMT_PASS_TARGET);
	sqlite3_bind_int64(s, 1, pass_id);
	ret = state_row(st, s);
	if (ret <= 0)
		return ret ? ret : -ENOENT;
	result = state_result_parse((const char *)sqlite3_column_text(s, 0));
	tkey = (const char *)sqlite3_column_text(s, 2);
	same_key = tkey && !strcmp(tkey, key);
	state_release(s);
	if (result != SCAN_PASS_COMPLETE || !same_key)
		return -EINVAL;
	ret = state_begin(st);
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < n; i++) {
		if (v[i].how == SCAN_SETTLE_KEEP)
			continue;
		s = state_stmt(st, STMT_ERROR_SETTLE);
		sqlite3_bind_int64(s, 1, v[i].id);
		sqlite3_bind_int64(s, 2, pass_id);
		sqlite3_bind_int64(s, 3, time(NULL));
		state_bind_text(s, 4, v[i].how == SCAN_SETTLE_READ_CLEAN ? "read" : "unallocated");
		ret = state_exec(st, s);
		if (ret < 0)
			goto out_rollback;
		settled += sqlite3_changes(st->db);
	}
	ret = state_commit(st);
	if (ret < 0)
		goto out_rollback;
	return settled;
out_rollback:
	state_rollback(st);
	return ret;
}
