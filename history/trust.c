/*
 * history/trust.c - whether a drive-side verify reads a device's medium, kept under the
 * device's identity and the method: the last proof's verdict and timing, or the sampled read
 * that voided it. One row per device and method; the scan reads it back to skip a proof it
 * made lately, the metrics list the distrusted ones.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "state_int.h"

#define TRUST_COLS "ident, method, state, reason, device_path, bytes, verify_s, read_s, at"

/* Fill t from a row of TRUST_COLS. */
static void trust_row(sqlite3_stmt *s, struct scan_state_trust *t)
{
	memset(t, 0, sizeof(*t));
	state_column_str(s, 0, t->ident, sizeof(t->ident));
	state_column_str(s, 1, t->method, sizeof(t->method));
	state_column_str(s, 2, t->state, sizeof(t->state));
	state_column_str(s, 3, t->reason, sizeof(t->reason));
	state_column_str(s, 4, t->device_path, sizeof(t->device_path));
	t->bytes = (uint64_t)sqlite3_column_int64(s, 5);
	t->verify_s = sqlite3_column_double(s, 6);
	t->read_s = sqlite3_column_double(s, 7);
	t->at = sqlite3_column_int64(s, 8);
}

int scan_state_trust_put(struct scan_state *st, const struct scan_state_trust *t)
{
	sqlite3_stmt *s = NULL;
	int ret;

	if (!st || !t || !t->ident[0] || !t->method[0] || !t->state[0])
		return -EINVAL;
	ret = hist_prepare(st, "INSERT OR REPLACE INTO method_trust (" TRUST_COLS ") VALUES "
			   "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", &s);
	if (ret < 0)
		return ret;
	state_bind_text(s, 1, t->ident);
	state_bind_text(s, 2, t->method);
	state_bind_text(s, 3, t->state);
	state_bind_text(s, 4, t->reason);
	state_bind_text(s, 5, t->device_path);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)t->bytes);
	sqlite3_bind_double(s, 7, t->verify_s);
	sqlite3_bind_double(s, 8, t->read_s);
	sqlite3_bind_int64(s, 9, t->at ? t->at : (int64_t)time(NULL));
	ret = sqlite3_step(s);
	ret = ret == SQLITE_DONE ? 0 : state_fail(st, ret);
	sqlite3_finalize(s);
	return ret;
}

int scan_state_trust_get(struct scan_state *st, const char *ident, const char *method,
			 struct scan_state_trust *t)
{
	sqlite3_stmt *s = NULL;
	int ret;

	if (!st || !ident || !method || !t)
		return -EINVAL;
	ret = hist_prepare(st, "SELECT " TRUST_COLS " FROM method_trust WHERE ident = ?1 AND "
			   "method = ?2", &s);
	if (ret < 0)
		return ret;
	state_bind_text(s, 1, ident);
	state_bind_text(s, 2, method);
	ret = sqlite3_step(s);
	if (ret == SQLITE_ROW) {
		trust_row(s, t);
		ret = 1;
	} else {
		ret = ret == SQLITE_DONE ? 0 : state_fail(st, ret);
	}
	sqlite3_finalize(s);
	return ret;
}

int scan_state_trust_list(struct scan_state *st, struct scan_state_trust *out, unsigned max)
{
	sqlite3_stmt *s = NULL;
	unsigned n = 0;
	int ret;

	if (!st || (max && !out))
		return -EINVAL;
	ret = hist_prepare(st, "SELECT " TRUST_COLS " FROM method_trust ORDER BY ident, method",
			   &s);
	if (ret < 0)
		return ret;
	while ((ret = sqlite3_step(s)) == SQLITE_ROW && n < max)
		trust_row(s, &out[n++]);
	ret = ret == SQLITE_ROW || ret == SQLITE_DONE ? (int)n : state_fail(st, ret);
	sqlite3_finalize(s);
	return ret;
}
