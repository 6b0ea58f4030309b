/*
 * history/schema.c - the schema of the state store: its migrations, the checks that tell our
 * database from a corrupt or foreign file, and every statement prepared on it at open, kept
 * together so a change of the schema is seen whole.
 */
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "config.h"
#include "state_int.h"

/*
 * Schema migrations: state_migrations[v] takes a database from version v to v + 1. Add a step
 * for each change; never edit a released one. Tables carry history (passes, errors seen and
 * cleared, error_passes: which pass saw which error) so reports need only queries.
 */
static const char *const state_migrations[] = {
	/* 0 -> 1: first schema. Times are unix seconds, offsets and lengths bytes. */
	"CREATE TABLE meta (\n"
	"	key TEXT PRIMARY KEY,\n"
	"	value TEXT NOT NULL\n"
	") WITHOUT ROWID;\n"
	"CREATE TABLE targets (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	key TEXT NOT NULL UNIQUE,		-- fs type:UUID:device list\n"
	"	path TEXT,\n"
	"	fs_type TEXT,\n"
	"	created INTEGER NOT NULL\n"
	");\n"
	"CREATE TABLE passes (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	target_id INTEGER NOT NULL REFERENCES targets(id),\n"
	"	started INTEGER NOT NULL,\n"
	"	ended INTEGER,				-- NULL while running\n"
	"	planned_bytes INTEGER NOT NULL DEFAULT 0,\n"
	"	scanned_bytes INTEGER NOT NULL DEFAULT 0,\n"
	"	bytes_per_s REAL,\n"
	"	result TEXT NOT NULL DEFAULT 'running'\n"
	"		CHECK (result IN ('running', 'complete', 'interrupted', 'failed')),\n"
	"	method TEXT,\n"
	"	engine TEXT\n"
	");\n"
	"CREATE INDEX passes_target ON passes(target_id, id);\n"
	"CREATE TABLE cursors (\n"
	"	pass_id INTEGER NOT NULL REFERENCES passes(id),\n"
	"	dev_idx INTEGER NOT NULL,\n"
	"	offset INTEGER NOT NULL,		-- everything below was read\n"
	"	PRIMARY KEY (pass_id, dev_idx)\n"
	") WITHOUT ROWID;\n"
	"CREATE TABLE errors (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	target_id INTEGER NOT NULL REFERENCES targets(id),\n"
	"	pass_id INTEGER NOT NULL REFERENCES passes(id),	-- first seen\n"
	"	last_pass_id INTEGER NOT NULL REFERENCES passes(id),\n"
	"	dev_idx INTEGER NOT NULL,\n"
	"	device TEXT NOT NULL,\n"
	"	offset INTEGER NOT NULL,\n"
	"	length INTEGER NOT NULL,\n"
	"	error TEXT NOT NULL,			-- EIO, ENODATA, EILSEQ, timeout, ...\n"
	"	err INTEGER NOT NULL,			-- -errno as read\n"
	"	cls TEXT NOT NULL,			-- media, pi, timeout, operational\n"
	"	reads INTEGER NOT NULL DEFAULT 1,\n"
	"	in_gap INTEGER NOT NULL DEFAULT 0,\n"
	"	reproducible INTEGER NOT NULL DEFAULT 1,\n"
	"	owners_json TEXT,\n"
	"	first_seen INTEGER NOT NULL,\n"
	"	last_seen INTEGER NOT NULL,\n"
	"	times_seen INTEGER NOT NULL DEFAULT 1,	-- passes that saw it\n"
	"	state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'cleared')),\n"
	"	cleared INTEGER,\n"
	"	cleared_pass_id INTEGER REFERENCES passes(id),\n"
	"	UNIQUE (target_id, device, offset, length)\n"
	");\n"
	"CREATE INDEX errors_target_state ON errors(target_id, state);\n"
	"CREATE TABLE error_passes (\n"
	"	error_id INTEGER NOT NULL REFERENCES errors(id),\n"
	"	pass_id INTEGER NOT NULL REFERENCES passes(id),\n"
	"	PRIMARY KEY (error_id, pass_id)\n"
	") WITHOUT ROWID;\n"
	"CREATE INDEX error_passes_pass ON error_passes(pass_id, error_id);\n",
	/* 1 -> 2: errors handed to the journal and on_damage once (scan_state_take_unnotified). */
	"ALTER TABLE errors ADD COLUMN notified INTEGER NOT NULL DEFAULT 0;\n",
	/* 2 -> 3: what a drive-side method was told (kept across --resume). */
	"ALTER TABLE errors ADD COLUMN vfy_fail INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE errors ADD COLUMN dev_status INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE errors ADD COLUMN pi_expected INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE errors ADD COLUMN pi_found INTEGER NOT NULL DEFAULT 0;\n",
	/*
	 * 3 -> 4: the verdict that mediascan/result.c computed (damage, transient, slow,
	 * device-fault, gap, operational) is stored, so no query re-encodes the rule; rows of
	 * older passes get the verdict their columns meant (a timeout was a read that never
	 * answered in time: a device fault, not damage). Slow reads keep their latency.
	 */
	"ALTER TABLE errors ADD COLUMN verdict TEXT NOT NULL DEFAULT 'damage';\n"
	"ALTER TABLE errors ADD COLUMN latency_ns INTEGER NOT NULL DEFAULT 0;\n"
	"UPDATE errors SET verdict = CASE WHEN cls = 'operational' THEN 'operational' "
	"WHEN cls = 'timeout' THEN 'device-fault' WHEN in_gap THEN 'gap' "
	"WHEN reproducible = 0 THEN 'transient' ELSE 'damage' END;\n"
	"CREATE INDEX errors_target_verdict ON errors(target_id, verdict, state);\n"
	/* why a cleared row is cleared: 'read' (a later pass read it cleanly), 'unallocated' */
	"ALTER TABLE errors ADD COLUMN cleared_why TEXT;\n"
	/*
	 * device holds what the device is known by (its role in the filesystem, or the disk's
	 * WWN/serial: kernel names move at boot); device_path the kernel path, for people. Rows
	 * of older versions hold the path in device and are matched by it until rewritten.
	 */
	"ALTER TABLE errors ADD COLUMN device_path TEXT;\n"
	/* 'recheck': a pass that re-read only the open errors (not a pass over the target) */
	"ALTER TABLE passes ADD COLUMN kind TEXT NOT NULL DEFAULT 'full';\n"
	"CREATE INDEX errors_target_device ON errors(target_id, device, offset);\n",
	/*
	 * 4 -> 5: redundancy lost: a member range of an array failed while another
	 * copy read fine. Kept under the member disk's identity (WWN/serial, ":partN" for a
	 * partition; its path only when it has none) and the UUID of the array that holds the
	 * other copies (md's uuid, or the DM uuid of an LVM RAID LV), never under the
	 * filesystem's device: kernel names move at boot and the member is what gets replaced.
	 */
	"CREATE TABLE redundancy_lost (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	target_id INTEGER NOT NULL REFERENCES targets(id),\n"
	"	pass_id INTEGER NOT NULL REFERENCES passes(id),	-- first seen\n"
	"	last_pass_id INTEGER NOT NULL REFERENCES passes(id),\n"
	"	member TEXT NOT NULL,			-- member disk identity (WWN/serial)\n"
	"	member_path TEXT,			-- its kernel path when last seen\n"
	"	array_uuid TEXT NOT NULL DEFAULT '',	-- md uuid or DM uuid\n"
	"	array_path TEXT,			-- /dev/md0, when last seen\n"
	"	offset INTEGER NOT NULL,		-- bytes on the member\n"
	"	length INTEGER NOT NULL,\n"
	"	err INTEGER NOT NULL,			-- -errno as read\n"
	"	no_copy INTEGER NOT NULL DEFAULT 0,	-- no other copy read either\n"
	"	parity INTEGER NOT NULL DEFAULT 0,	-- a parity chunk: no owner\n"
	"	fs_offset INTEGER,			-- bytes on the filesystem's device\n"
	"	copies_json TEXT,			-- the copies that read fine\n"
	"	owners_json TEXT,\n"
	"	repair TEXT,				-- the command that repairs it\n"
	"	first_seen INTEGER NOT NULL,\n"
	"	last_seen INTEGER NOT NULL,\n"
	"	times_seen INTEGER NOT NULL DEFAULT 1,\n"
	"	notified INTEGER NOT NULL DEFAULT 0,\n"
	"	state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'cleared')),\n"
	"	cleared INTEGER,\n"
	"	cleared_pass_id INTEGER REFERENCES passes(id),\n"
	"	UNIQUE (target_id, member, array_uuid, offset, length)\n"
	");\n"
	"CREATE INDEX redundancy_lost_target ON redundancy_lost(target_id, state);\n",
	/*
	 * 5 -> 6: a running pass's pace against its window, in unix seconds (0: none or not
	 * known): when the window ends, when the pass is projected to end, since when it is
	 * said to miss the window. Status and the metrics read them while the pass runs.
	 */
	"ALTER TABLE passes ADD COLUMN window_end INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE passes ADD COLUMN projected_end INTEGER NOT NULL DEFAULT 0;\n"
	"ALTER TABLE passes ADD COLUMN window_late_since INTEGER NOT NULL DEFAULT 0;\n",
	/*
	 * 6 -> 7: whether a drive-side verify reads a device's medium, kept under
	 * the device's identity (WWN/serial: kernel names move at boot) and the method: the
	 * proof's timing, or a sampled read that voided it. A later scan reuses it (a fresh
	 * proof, or a distrust, saves timing again); the metrics show the distrusted ones.
	 */
	"CREATE TABLE method_trust (\n"
	"	ident TEXT NOT NULL,			-- wwid:..., serial:...\n"
	"	method TEXT NOT NULL,			-- nvme-verify, scsi-verify\n"
	"	state TEXT NOT NULL,			-- proven, unproven, failed, voided, asserted\n"
	"	reason TEXT NOT NULL,\n"
	"	device_path TEXT,			-- its kernel path when last seen\n"
	"	bytes INTEGER NOT NULL DEFAULT 0,	-- the span timed\n"
	"	verify_s REAL NOT NULL DEFAULT 0,\n"
	"	read_s REAL NOT NULL DEFAULT 0,\n"
	"	at INTEGER NOT NULL,			-- unix seconds\n"
	"	PRIMARY KEY (ident, method)\n"
	");\n",
	/*
	 * 7 -> 8: copies that differ: a run of an array's row whose copies (or data and
	 * parity) disagree the same way on three reads, with no read failing. Kept under the
	 * array's UUID and its first leg's member identity and offset; cleared when a later
	 * complete comparing pass finds the row agreeing.
	 */
	"CREATE TABLE copies_differ (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	target_id INTEGER NOT NULL REFERENCES targets(id),\n"
	"	pass_id INTEGER NOT NULL REFERENCES passes(id),	-- first seen\n"
	"	last_pass_id INTEGER NOT NULL REFERENCES passes(id),\n"
	"	array_uuid TEXT NOT NULL DEFAULT '',	-- md uuid or DM uuid\n"
	"	array_path TEXT,			-- /dev/md0, when last seen\n"
	"	level TEXT,				-- raid1, raid5, ...\n"
	"	member TEXT NOT NULL,			-- the first leg's member identity\n"
	"	offset INTEGER NOT NULL,		-- bytes on that member\n"
	"	length INTEGER NOT NULL,\n"
	"	wrong TEXT,				-- the wrong copy's path; NULL: unknown\n"
	"	how TEXT NOT NULL,			-- majority, syndrome, metadata-crc, unknown\n"
	"	legs_json TEXT,\n"
	"	owners_json TEXT,\n"
	"	first_seen INTEGER NOT NULL,\n"
	"	last_seen INTEGER NOT NULL,\n"
	"	times_seen INTEGER NOT NULL DEFAULT 1,\n"
	"	state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'cleared')),\n"
	"	cleared INTEGER,\n"
	"	cleared_pass_id INTEGER REFERENCES passes(id),\n"
	"	UNIQUE (target_id, array_uuid, member, offset, length)\n"
	");\n"
	"CREATE INDEX copies_differ_target ON copies_differ(target_id, state);\n",
};

_Static_assert(sizeof(state_migrations) / sizeof(state_migrations[0]) == SCAN_STATE_SCHEMA_VERSION,
	       "one migration step per schema version");

/* The statements prepared at open, by enum state_stmt. */
const char *const state_sql[STMT_NR] = {
	[STMT_BEGIN] = "BEGIN IMMEDIATE",
	[STMT_COMMIT] = "COMMIT",
	[STMT_ROLLBACK] = "ROLLBACK",
	[STMT_PASS_PROGRESS] =
		"UPDATE passes SET scanned_bytes = ?2 WHERE id = ?1 AND result = 'running'",
	[STMT_CURSOR_SET] =
		"INSERT INTO cursors (pass_id, dev_idx, offset) VALUES (?1, ?2, ?3) "
		"ON CONFLICT (pass_id, dev_idx) DO UPDATE SET offset = excluded.offset",
	/* Seen again: no new row; times_seen counts passes, a cleared error opens again. */
	[STMT_ERROR_UPSERT] =
		"INSERT INTO errors (target_id, pass_id, last_pass_id, dev_idx, device, offset, "
		"length, error, err, cls, reads, in_gap, reproducible, first_seen, last_seen, "
		"vfy_fail, dev_status, pi_expected, pi_found, verdict, latency_ns, device_path) "
		"VALUES ((SELECT target_id FROM passes WHERE id = ?1), ?1, ?1, ?2, ?3, ?4, ?5, ?6, "
		"?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19) "
		"ON CONFLICT (target_id, device, offset, length) DO UPDATE SET "
		"last_seen = excluded.last_seen, "
		"times_seen = times_seen + (last_pass_id != excluded.last_pass_id), "
		"last_pass_id = excluded.last_pass_id, dev_idx = excluded.dev_idx, "
		"error = excluded.error, err = excluded.err, cls = excluded.cls, "
		"reads = excluded.reads, in_gap = excluded.in_gap, "
		"vfy_fail = excluded.vfy_fail, dev_status = excluded.dev_status, "
		"pi_expected = excluded.pi_expected, pi_found = excluded.pi_found, "
		/* once proven damage, a later read that recovers does not hide it */
		"reproducible = max(reproducible, excluded.reproducible), "
		/* nor does a later read that failed otherwise: only a clean read clears damage */
		"verdict = CASE WHEN verdict = 'damage' THEN 'damage' ELSE excluded.verdict END, "
		"latency_ns = max(latency_ns, excluded.latency_ns), "
		"state = 'open', cleared = NULL, cleared_pass_id = NULL "
		"RETURNING id",
	[STMT_ERROR_PASS] =
		"INSERT OR IGNORE INTO error_passes (error_id, pass_id) VALUES (?1, ?2)",
	[STMT_TARGET_UPSERT] =
		"INSERT INTO targets (key, path, fs_type, created) VALUES (?1, ?2, ?3, ?4) "
		"ON CONFLICT (key) DO UPDATE SET path = excluded.path, fs_type = excluded.fs_type "
		"RETURNING id",
	/* A pass left running by a dead process is interrupted once a new pass starts. */
	[STMT_PASSES_ORPHAN] =
		"UPDATE passes SET result = 'interrupted', ended = ?2 "
		"WHERE target_id = ?1 AND result = 'running'",
	[STMT_PASS_INSERT] =
		"INSERT INTO passes (target_id, started, planned_bytes, method, engine, result, kind) "
		"VALUES (?1, ?2, ?3, ?4, ?5, 'running', ?6)",
	[STMT_LATEST_PASS] =
		"SELECT p.id, p.result FROM passes p JOIN targets t ON t.id = p.target_id "
		"WHERE t.key = ?1 AND p.kind = 'full' ORDER BY p.id DESC LIMIT 1",
	[STMT_CURSORS_GET] = "SELECT dev_idx, offset FROM cursors WHERE pass_id = ?1",
	[STMT_PASS_RESUME] =
		"UPDATE passes SET result = 'running', ended = NULL "
		"WHERE id = ?1 AND result IN ('running', 'interrupted')",
	[STMT_PASS_FINISH] =
		"UPDATE passes SET result = ?2, ended = ?3, scanned_bytes = ?4, bytes_per_s = ?5 "
		"WHERE id = ?1 AND result = 'running'",
	[STMT_PASS_PACE] =
		"UPDATE passes SET window_end = ?2, projected_end = ?3, window_late_since = ?4 "
		"WHERE id = ?1 AND result = 'running'",
	[STMT_PASS_GET] =
		"SELECT id, target_id, started, ended, planned_bytes, scanned_bytes, bytes_per_s, "
		"result, method, engine FROM passes WHERE id = ?1",
	[STMT_PASS_TARGET] =
		"SELECT p.result, p.target_id, t.key FROM passes p "
		"JOIN targets t ON t.id = p.target_id WHERE p.id = ?1",
	[STMT_ERRORS_OF_PASS] =
		"SELECT e.dev_idx, e.device, e.offset, e.length, e.err, e.cls, e.reads, e.in_gap, "
		"e.reproducible, e.vfy_fail, e.dev_status, e.pi_expected, e.pi_found, e.latency_ns "
		"FROM error_passes ep JOIN errors e ON e.id = ep.error_id "
		"WHERE ep.pass_id = ?1 ORDER BY e.dev_idx, e.offset, e.length",
	/*
	 * Rows are identified by block ranges: an error that overlaps rows of the same target
	 * and device is the same damage (runs are stored with other boundaries from pass to
	 * pass: completion order, checkpoints), merged into the oldest row.
	 */
	[STMT_ERROR_OVERLAP] =
		"SELECT id, offset, length, verdict, pass_id, first_seen, times_seen, last_pass_id "
		"FROM errors WHERE target_id = (SELECT target_id FROM passes WHERE id = ?1) "
		"AND (device = ?2 OR device = ?5) AND offset < ?3 + ?4 AND offset + length > ?3 "
		"ORDER BY id",
	[STMT_ERROR_PASSES_MOVE] =
		"INSERT OR IGNORE INTO error_passes (error_id, pass_id) "
		"SELECT ?1, pass_id FROM error_passes WHERE error_id = ?2",
	[STMT_ERROR_PASSES_DEL] = "DELETE FROM error_passes WHERE error_id = ?1",
	[STMT_ERROR_DEL] = "DELETE FROM errors WHERE id = ?1",
	[STMT_ERROR_MERGE] =
		"UPDATE errors SET offset = ?2, length = ?3, pass_id = ?4, first_seen = ?5, "
		"times_seen = ?6, last_pass_id = ?7, last_seen = ?8, dev_idx = ?9, error = ?10, "
		"err = ?11, cls = ?12, reads = ?13, in_gap = ?14, "
		"reproducible = max(reproducible, ?15), vfy_fail = ?16, dev_status = ?17, "
		"pi_expected = ?18, pi_found = ?19, verdict = ?20, "
		"latency_ns = max(latency_ns, ?21), state = 'open', cleared = NULL, "
		"cleared_pass_id = NULL, cleared_why = NULL, device = ?22, device_path = ?23 "
		"WHERE id = ?1",
	/* Settle an open error this complete pass did not see fail: read cleanly, or gone. */
	[STMT_ERROR_SETTLE] =
		"UPDATE errors SET state = 'cleared', cleared = ?3, cleared_pass_id = ?2, "
		"cleared_why = ?4 WHERE id = ?1 AND state = 'open' "
		"AND target_id = (SELECT target_id FROM passes WHERE id = ?2) AND NOT EXISTS "
		"(SELECT 1 FROM error_passes ep WHERE ep.error_id = errors.id AND ep.pass_id = ?2)",
};

/* Run one statement of sql on db and return its first column as integer in *val (0 if none). */
static int db_int(sqlite3 *db, const char *sql, int64_t *val)
{
	sqlite3_stmt *s;
	int rc;

	*val = 0;
	rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*val = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int db_has_table(sqlite3 *db, const char *name, int *has)
{
	sqlite3_stmt *s;
	int rc;

	*has = 0;
	rc = sqlite3_prepare_v2(db,
				"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
				-1, &s, NULL);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	*has = rc == SQLITE_ROW;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Return the schema version in meta (0 without a meta table) in *version; a SQLite code. */
static int db_schema_version(sqlite3 *db, int64_t *version)
{
	int has, rc;

	*version = 0;
	rc = db_has_table(db, "meta", &has);
	if (rc != SQLITE_OK || !has)
		return rc;
	return db_int(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'schema_version'",
		      version);
}

/* Decide whether db is ours, fresh, or one to move aside; the reason goes to msg. */
enum db_verdict state_db_check(sqlite3 *db, int *rc_out, char *msg, size_t len)
{
	sqlite3_stmt *s;
	int64_t app_id, objects, version;
	int rc;

	*rc_out = SQLITE_OK;
	rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			const char *r = (const char *)sqlite3_column_text(s, 0);

			if (!r || strcmp(r, "ok")) {
				state_msg(msg, len, "is corrupt: quick_check says '%s'",
					r ? r : "nothing");
				for (char *c = msg; c && *c; c++)
					if (*c == '\n' || *c == '\t')
						*c = ' ';
				sqlite3_finalize(s);
				return DB_BAD;
			}
			rc = SQLITE_OK;
		}
		sqlite3_finalize(s);
	}
	if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT) {
		state_msg(msg, len, "is corrupt or not a database (%s)", sqlite3_errstr(rc));
		return DB_BAD;
	}
	if (rc != SQLITE_OK && rc != SQLITE_DONE)
		goto fail;

	rc = db_int(db, "PRAGMA application_id", &app_id);
	if (rc != SQLITE_OK)
		goto fail;
	rc = db_int(db, "SELECT count(*) FROM sqlite_master", &objects);
	if (rc != SQLITE_OK)
		goto fail;
	if (app_id == 0 && objects == 0)
		return DB_GOOD;			/* empty: a fresh database */
	if (app_id != SCAN_STATE_APPLICATION_ID) {
		state_msg(msg, len, "belongs to another application (application_id %#llx)",
			(unsigned long long)(uint32_t)app_id);
		return DB_BAD;
	}
	rc = db_schema_version(db, &version);
	if (rc != SQLITE_OK)
		goto fail;
	if (version <= 0 || version > SCAN_STATE_SCHEMA_VERSION) {
		state_msg(msg, len, "has schema version %lld, this mediascan knows 1..%d",
			(long long)version, SCAN_STATE_SCHEMA_VERSION);
		return DB_BAD;
	}
	return DB_GOOD;
fail:
	if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT) {
		state_msg(msg, len, "is corrupt (%s)", sqlite3_errmsg(db));
		return DB_BAD;
	}
	*rc_out = rc;
	state_msg(msg, len, "cannot be checked: %s", sqlite3_errmsg(db));
	return DB_ERROR;
}

/* Bring the schema of db up to SCAN_STATE_SCHEMA_VERSION in one transaction; a SQLite code. */
int state_db_migrate(sqlite3 *db, char *msg, size_t len)
{
	char sql[128];
	int64_t version;
	int rc;

	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	/* Read again under the write lock: another process may have just migrated it. */
	rc = db_schema_version(db, &version);
	if (rc != SQLITE_OK)
		goto fail_rollback;
	if (version >= SCAN_STATE_SCHEMA_VERSION) {
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		return SQLITE_OK;
	}
	for (int64_t v = version; v < SCAN_STATE_SCHEMA_VERSION; v++) {
		rc = sqlite3_exec(db, state_migrations[v], NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			goto fail_rollback;
	}
	snprintf(sql, sizeof(sql),
		 "PRAGMA application_id = %d;"
		 "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', '%d');",
		 SCAN_STATE_APPLICATION_ID, SCAN_STATE_SCHEMA_VERSION);
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		goto fail_rollback;
	rc = sqlite3_exec(db,
			  "INSERT OR REPLACE INTO meta (key, value) VALUES "
			  "('written_by', 'mediascan " MEDIASCAN_VERSION "');"
			  "INSERT OR IGNORE INTO meta (key, value) VALUES "
			  "('created', CAST(strftime('%s', 'now') AS INTEGER));",
			  NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		goto fail_rollback;
	rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		goto fail_rollback;
	return SQLITE_OK;
fail_rollback:
	state_msg(msg, len, "schema update failed: %s", sqlite3_errmsg(db));
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
fail:
	state_msg(msg, len, "schema update failed: %s", sqlite3_errmsg(db));
	return rc;
}
