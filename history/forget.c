/*
 * history/forget.c - forget a target: what it holds counted, then (unless a dry run) it is
 * dropped with its passes, cursors and errors in one transaction.
 */
#include <errno.h>
#include <string.h>

#include <sqlite3.h>

#include "state_int.h"

/* Return the first column of one-row query sql with ?1 bound to name, or -errno. */
static int64_t forget_count(struct scan_state *st, const char *sql, const char *name)
{
	sqlite3_stmt *s;
	int64_t n;
	int ret = hist_prepare(st, sql, &s);

	if (ret < 0)
		return ret;
	state_bind_text(s, 1, name);
	ret = sqlite3_step(s);
	n = ret == SQLITE_ROW ? sqlite3_column_int64(s, 0) : state_fail(st, ret);
	sqlite3_finalize(s);
	return n;
}

int scan_state_forget(struct scan_state *st, const char *name, int dry_run,
		      struct scan_state_forget *f)
{
#define FORGET_TARGETS "(SELECT id FROM targets WHERE path = ?1 OR key = ?1)"
#define FORGET_PASSES "(SELECT id FROM passes WHERE target_id IN " FORGET_TARGETS ")"
	static const char *const counts[] = {
		"SELECT count(*) FROM targets WHERE id IN " FORGET_TARGETS,
		"SELECT count(*) FROM passes WHERE target_id IN " FORGET_TARGETS,
		"SELECT count(*) FROM passes WHERE target_id IN " FORGET_TARGETS
		" AND result = 'running'",
		"SELECT count(*) FROM errors WHERE target_id IN " FORGET_TARGETS
		" AND state = 'open' AND verdict IN ('damage', 'slow', 'device-fault')",
		"SELECT count(*) FROM errors WHERE target_id IN " FORGET_TARGETS,
	};
	/* Rows that name a pass or an error first, then what they name. */
	static const char *const drops[] = {
		"DELETE FROM error_passes WHERE error_id IN (SELECT id FROM errors WHERE "
		"target_id IN " FORGET_TARGETS ") OR pass_id IN " FORGET_PASSES,
		"DELETE FROM cursors WHERE pass_id IN " FORGET_PASSES,
		"DELETE FROM redundancy_lost WHERE target_id IN " FORGET_TARGETS,
		"DELETE FROM copies_differ WHERE target_id IN " FORGET_TARGETS,
		"DELETE FROM errors WHERE target_id IN " FORGET_TARGETS,
		"DELETE FROM passes WHERE target_id IN " FORGET_TARGETS,
		"DELETE FROM targets WHERE path = ?1 OR key = ?1",
	};
	unsigned *out[] = { &f->targets, &f->passes, &f->running, &f->open_ranges, &f->rows };
	int64_t n;
	int ret;

	if (!st || !name || !f)
		return -EINVAL;
	memset(f, 0, sizeof(*f));
	ret = dry_run ? 0 : state_begin(st);	/* the counts are what is dropped */
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		n = forget_count(st, counts[i], name);
		if (n < 0) {
			state_rollback(st);
			return (int)n;
		}
		*out[i] = (unsigned)n;
	}
	if (dry_run || !f->targets) {
		state_rollback(st);
		return (int)f->targets;
	}
	for (size_t i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
		sqlite3_stmt *s;

		ret = hist_prepare(st, drops[i], &s);
		if (ret < 0) {
			state_rollback(st);
			return ret;
		}
		state_bind_text(s, 1, name);
		ret = sqlite3_step(s);
		ret = ret == SQLITE_DONE ? 0 : state_fail(st, ret);
		sqlite3_finalize(s);
		if (ret < 0) {
			state_rollback(st);
			return ret;
		}
	}
	ret = state_commit(st);
	if (ret < 0) {
		state_rollback(st);
		return ret;
	}
	return (int)f->targets;
#undef FORGET_TARGETS
#undef FORGET_PASSES
}
