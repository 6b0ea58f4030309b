/*
 * history/passes.c - the state store in SQLite: checkpoint cursors and errors of scan passes,
 * committed in one transaction every few seconds, read back to resume an interrupted pass and
 * kept as history. Statements are prepared once at open. A corrupt or foreign database file is
 * renamed aside (never deleted) and a fresh one created.
 *
 * Over 600 lines for now: the schema, its migrations and every statement on it stay together
 * so a change of the schema is seen whole; the history queries could move to a file of their
 * own.
 */
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "config.h"
#include "state.h"

#define STATE_BUSY_TIMEOUT_MS 5000

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
};

_Static_assert(sizeof(state_migrations) / sizeof(state_migrations[0]) == SCAN_STATE_SCHEMA_VERSION,
	       "one migration step per schema version");

enum state_stmt {
	STMT_BEGIN,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_PASS_PROGRESS,
	STMT_CURSOR_SET,
	STMT_ERROR_UPSERT,
	STMT_ERROR_PASS,
	STMT_TARGET_UPSERT,
	STMT_PASSES_ORPHAN,
	STMT_PASS_INSERT,
	STMT_LATEST_PASS,
	STMT_CURSORS_GET,
	STMT_PASS_RESUME,
	STMT_PASS_FINISH,
	STMT_PASS_GET,
	STMT_PASS_TARGET,
	STMT_ERRORS_OF_PASS,
	STMT_ERROR_OVERLAP,
	STMT_ERROR_PASSES_MOVE,
	STMT_ERROR_PASSES_DEL,
	STMT_ERROR_DEL,
	STMT_ERROR_MERGE,
	STMT_ERROR_SETTLE,
	STMT_NR,
};

static const char *const state_sql[STMT_NR] = {
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

struct scan_state {
	sqlite3 *db;
	sqlite3_stmt *stmt[STMT_NR];
	char errmsg[256];
	/* scan_state_set_devices: the kernel path of each device key, for device_path */
	char *dev_key[8], *dev_path[8];
	unsigned nr_dev;
};

static int hist_prepare(struct scan_state *st, const char *sql, sqlite3_stmt **s);

/* The kernel path of device key (scan_state_set_devices), or key itself. */
static const char *state_dev_path(const struct scan_state *st, const char *key)
{
	for (unsigned i = 0; i < st->nr_dev; i++)
		if (strcmp(st->dev_key[i], key) == 0)
			return st->dev_path[i];
	return key;
}

int scan_state_set_devices(struct scan_state *st, const char *const *keys,
			   const char *const *paths, unsigned n)
{
	if (!st || n > sizeof(st->dev_key) / sizeof(st->dev_key[0]))
		return -EINVAL;
	for (unsigned i = 0; i < st->nr_dev; i++) {
		free(st->dev_key[i]);
		free(st->dev_path[i]);
	}
	st->nr_dev = 0;
	for (unsigned i = 0; i < n; i++) {
		st->dev_key[i] = strdup(keys[i]);
		st->dev_path[i] = strdup(paths[i]);
		if (!st->dev_key[i] || !st->dev_path[i]) {
			free(st->dev_key[i]);
			free(st->dev_path[i]);
			return -ENOMEM;
		}
		st->nr_dev++;
	}
	return 0;
}

static const char *const pass_result_names[] = {
	[SCAN_PASS_RUNNING] = "running",
	[SCAN_PASS_COMPLETE] = "complete",
	[SCAN_PASS_INTERRUPTED] = "interrupted",
	[SCAN_PASS_FAILED] = "failed",
};

const char *scan_pass_result_name(enum scan_pass_result r)
{
	if ((unsigned)r >= sizeof(pass_result_names) / sizeof(pass_result_names[0]))
		return "unknown";
	return pass_result_names[r];
}

static enum scan_pass_result pass_result_parse(const char *s)
{
	for (unsigned i = 0; i < sizeof(pass_result_names) / sizeof(pass_result_names[0]); i++)
		if (s && !strcmp(s, pass_result_names[i]))
			return i;
	return SCAN_PASS_FAILED;
}

/* A stored class name back to the class; a name this build does not know is operational. */
static enum scan_err_class err_class_parse(const char *s)
{
	enum scan_err_class c;

	return scan_class_parse(s, &c) == 0 ? c : SCAN_ERR_OPERATIONAL;
}

/* Map a SQLite result code to -errno (0 for OK, ROW, DONE). */
static int state_errno(sqlite3 *db, int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_ROW:
	case SQLITE_DONE:
		return 0;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return -EUCLEAN;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH:
	case SQLITE_RANGE:
	case SQLITE_MISUSE:
		return -EINVAL;
	case SQLITE_TOOBIG:
		return -E2BIG;
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
		if (db && sqlite3_system_errno(db) > 0)
			return -sqlite3_system_errno(db);
		return -EIO;
	default:
		return -EIO;
	}
}

/* Record the message of a failed call on st->db and return its -errno. */
static int state_fail(struct scan_state *st, int rc)
{
	snprintf(st->errmsg, sizeof(st->errmsg), "%s", sqlite3_errmsg(st->db));
	return state_errno(st->db, rc);
}

/* Return statement idx ready for binding. */
static sqlite3_stmt *state_stmt(struct scan_state *st, enum state_stmt idx)
{
	return st->stmt[idx];
}

/* Release statement s (its read lock, its bindings) after use. */
static void state_release(sqlite3_stmt *s)
{
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

/* Step s to the end ignoring rows; return 0 or -errno. s is released. */
static int state_exec(struct scan_state *st, sqlite3_stmt *s)
{
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE) {
		rc = state_fail(st, rc);
		state_release(s);
		return rc;
	}
	state_release(s);
	return 0;
}

/* Step s once expecting a row or the end; return 1 (row, s not released), 0 (released), -errno. */
static int state_row(struct scan_state *st, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE) {
		state_release(s);
		return 0;
	}
	rc = state_fail(st, rc);
	state_release(s);
	return rc;
}

static int state_begin(struct scan_state *st)
{
	return state_exec(st, state_stmt(st, STMT_BEGIN));
}

static int state_commit(struct scan_state *st)
{
	return state_exec(st, state_stmt(st, STMT_COMMIT));
}

/* Undo an open transaction; the error that caused it is kept in st->errmsg. */
static void state_rollback(struct scan_state *st)
{
	sqlite3_stmt *s = state_stmt(st, STMT_ROLLBACK);

	if (sqlite3_get_autocommit(st->db))
		return;
	sqlite3_step(s);
	state_release(s);
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

static void set_msg(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* mkdir -p with mode 0700 for every directory created; return 0 or -errno. */
static int state_mkdir_p(const char *dir)
{
	char p[PATH_MAX];
	struct stat sb;
	size_t len = strlen(dir);
	int created = 0;

	if (!len)
		return -EINVAL;
	if (len >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, len + 1);
	while (len > 1 && p[len - 1] == '/')
		p[--len] = '\0';
	for (char *c = p + 1;; c++) {
		if (*c != '/' && *c != '\0')
			continue;
		char save = *c;

		*c = '\0';
		if (mkdir(p, 0700) == 0)
			created = 1;
		else if (errno != EEXIST)
			return -errno;
		else
			created = 0;
		*c = save;
		if (!save)
			break;
		while (c[1] == '/')
			c++;
	}
	if (stat(p, &sb) < 0)
		return -errno;
	if (!S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	/* The umask may have taken bits we need; never loosen an existing directory. */
	if (created && chmod(p, 0700) < 0)
		return -errno;
	return 0;
}

/* Return 1 if path exists (or cannot be checked), 0 if it does not. */
static int path_exists(const char *path)
{
	struct stat sb;

	return lstat(path, &sb) == 0 || errno != ENOENT;
}

/*
 * Rename db (and its -wal, -shm, -journal files, so a fresh database cannot pick up a stale
 * log) to db.bad-YYYYmmdd-HHMMSS[.N]; return 0 and write the new name to aside, or -errno.
 */
static int state_move_aside(const char *db, char *aside, size_t len)
{
	static const char *const sidecars[] = {"-wal", "-shm", "-journal"};
	char stamp[32], from[PATH_MAX + 16], to[PATH_MAX + 16];
	time_t now = time(NULL);
	struct tm tm;
	int n;

	if (!localtime_r(&now, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm))
		snprintf(stamp, sizeof(stamp), "%lld", (long long)now);
	for (unsigned i = 0;; i++) {
		if (i)
			n = snprintf(aside, len, "%s.bad-%s.%u", db, stamp, i);
		else
			n = snprintf(aside, len, "%s.bad-%s", db, stamp);
		if (n < 0 || (size_t)n >= len || (size_t)n + 16 > sizeof(to))
			return -ENAMETOOLONG;
		if (!path_exists(aside))
			break;
		if (i >= 1000)
			return -EEXIST;
	}
	if (rename(db, aside) < 0)
		return -errno;
	for (unsigned i = 0; i < sizeof(sidecars) / sizeof(sidecars[0]); i++) {
		snprintf(from, sizeof(from), "%s%s", db, sidecars[i]);
		snprintf(to, sizeof(to), "%s%s", aside, sidecars[i]);
		if (rename(from, to) < 0 && errno != ENOENT)
			return -errno;
	}
	return 0;
}

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

enum db_verdict {
	DB_GOOD,
	DB_BAD,			/* corrupt or foreign: move it aside */
	DB_ERROR,		/* could not tell (busy, permissions, I/O): give up */
};

/* Decide whether db is ours, fresh, or one to move aside; the reason goes to msg. */
static enum db_verdict db_check(sqlite3 *db, int *rc_out, char *msg, size_t len)
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
				set_msg(msg, len, "is corrupt: quick_check says '%s'",
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
		set_msg(msg, len, "is corrupt or not a database (%s)", sqlite3_errstr(rc));
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
		set_msg(msg, len, "belongs to another application (application_id %#llx)",
			(unsigned long long)(uint32_t)app_id);
		return DB_BAD;
	}
	rc = db_schema_version(db, &version);
	if (rc != SQLITE_OK)
		goto fail;
	if (version <= 0 || version > SCAN_STATE_SCHEMA_VERSION) {
		set_msg(msg, len, "has schema version %lld, this mediascan knows 1..%d",
			(long long)version, SCAN_STATE_SCHEMA_VERSION);
		return DB_BAD;
	}
	return DB_GOOD;
fail:
	if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT) {
		set_msg(msg, len, "is corrupt (%s)", sqlite3_errmsg(db));
		return DB_BAD;
	}
	*rc_out = rc;
	set_msg(msg, len, "cannot be checked: %s", sqlite3_errmsg(db));
	return DB_ERROR;
}

/* Bring the schema of db up to SCAN_STATE_SCHEMA_VERSION in one transaction; a SQLite code. */
static int db_migrate(sqlite3 *db, char *msg, size_t len)
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
	set_msg(msg, len, "schema update failed: %s", sqlite3_errmsg(db));
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
fail:
	set_msg(msg, len, "schema update failed: %s", sqlite3_errmsg(db));
	return rc;
}

/*
 * Open path as our database: 0 and *out on success, 1 if the file must be moved aside (why in
 * msg), -errno otherwise (message in msg).
 */
static int db_open(const char *path, sqlite3 **out, char *msg, size_t len)
{
	sqlite3 *db = NULL;
	char mode[16] = "";
	sqlite3_stmt *s;
	int rc, ret;

	*out = NULL;
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		set_msg(msg, len, "cannot open: %s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
		ret = state_errno(db, rc);
		goto out_close;
	}
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, STATE_BUSY_TIMEOUT_MS);
	/*
	 * Until the file is known to be ours, closing must not checkpoint a -wal file into it
	 * and delete the log: a file we move aside is kept as it was found.
	 */
	sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	/*
	 * The file is input like any other (tampered, or left by another version): no writes to
	 * the schema or shadow tables through SQL (DEFENSIVE), and no SQL functions with side
	 * effects run from its schema, views or triggers (TRUSTED_SCHEMA off).
	 */
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);

	switch (db_check(db, &rc, msg, len)) {
	case DB_GOOD:
		sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
		break;
	case DB_BAD:
		ret = 1;
		goto out_close;
	case DB_ERROR:
		ret = state_errno(db, rc);
		goto out_close;
	}

	/* WAL: readers do not block the scan's checkpoints; NORMAL: no fsync per commit. */
	rc = sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW && sqlite3_column_text(s, 0))
			snprintf(mode, sizeof(mode), "%s", (const char *)sqlite3_column_text(s, 0));
		sqlite3_finalize(s);
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;",
				  NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		set_msg(msg, len, "cannot set up: %s", sqlite3_errmsg(db));
		ret = state_errno(db, rc);
		goto out_close;
	}
	rc = db_migrate(db, msg, len);
	if (rc != SQLITE_OK) {
		ret = state_errno(db, rc);
		goto out_close;
	}
	*out = db;
	return 0;
out_close:
	sqlite3_close_v2(db);
	return ret;
}

int scan_state_open(const char *state_dir, struct scan_state **out, char *warn, size_t warnlen)
{
	char path[PATH_MAX], aside[PATH_MAX], why[512];
	struct scan_state *st;
	sqlite3 *db;
	int ret, n;

	set_msg(warn, warnlen, "%s", "");
	*out = NULL;
	if (!state_dir)
		return -EINVAL;
	ret = state_mkdir_p(state_dir);
	if (ret < 0) {
		set_msg(warn, warnlen, "state directory %s: %s", state_dir, strerror(-ret));
		return ret;
	}
	n = snprintf(path, sizeof(path), "%s/%s", state_dir, SCAN_STATE_DB_NAME);
	if (n < 0 || (size_t)n >= sizeof(path) - 32) {
		set_msg(warn, warnlen, "state directory %s: path too long", state_dir);
		return -ENAMETOOLONG;
	}

	ret = db_open(path, &db, why, sizeof(why));
	if (ret == 1) {
		int r = state_move_aside(path, aside, sizeof(aside));

		if (r < 0) {
			set_msg(warn, warnlen, "state database %s %s and cannot be moved aside: %s",
				path, why, strerror(-r));
			return r;
		}
		set_msg(warn, warnlen, "state database %s %s; moved to %s, starting a new one",
			path, why, aside);
		ret = db_open(path, &db, why, sizeof(why));
		if (ret == 1)
			ret = -EUCLEAN;
	}
	if (ret < 0) {
		set_msg(warn, warnlen, "state database %s: %s", path, why);
		return ret;
	}

	st = calloc(1, sizeof(*st));
	if (!st) {
		sqlite3_close_v2(db);
		return -ENOMEM;
	}
	st->db = db;
	for (unsigned i = 0; i < STMT_NR; i++) {
		int rc = sqlite3_prepare_v3(db, state_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
					    &st->stmt[i], NULL);

		if (rc != SQLITE_OK) {
			ret = state_fail(st, rc);
			set_msg(warn, warnlen, "state database %s: %s", path, st->errmsg);
			goto out_close;
		}
	}
	*out = st;
	return 0;
out_close:
	scan_state_close(st);
	return ret;
}

int scan_state_close(struct scan_state *st)
{
	if (!st)
		return 0;
	for (unsigned i = 0; i < STMT_NR; i++)
		sqlite3_finalize(st->stmt[i]);
	for (unsigned i = 0; i < st->nr_dev; i++) {
		free(st->dev_key[i]);
		free(st->dev_path[i]);
	}
	sqlite3_exec(st->db, "PRAGMA optimize", NULL, NULL, NULL);
	sqlite3_close_v2(st->db);
	free(st);
	return 0;
}

const char *scan_state_errmsg(const struct scan_state *st)
{
	return st ? st->errmsg : "";
}

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
	bind_text(s, 1, key);
	bind_text(s, 2, legacy_key);
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
	bind_text(s, 1, key);
	bind_text(s, 2, path);
	bind_text(s, 3, fs_type);
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
	bind_text(s, 4, method);
	bind_text(s, 5, engine);
	bind_text(s, 6, recheck ? "recheck" : "full");
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
	bind_text(s, 1, key);
	ret = state_row(st, s);
	if (ret <= 0)
		return ret;
	id = sqlite3_column_int64(s, 0);
	result = pass_result_parse((const char *)sqlite3_column_text(s, 1));
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
	bind_text(s, at, scan_error_name(e));
	sqlite3_bind_int(s, at + 1, e->err);
	bind_text(s, at + 2, scan_class_name(e->cls));
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
	bind_text(s, 20, damage ? scan_verdict_name(SCAN_V_DAMAGE) :
		  scan_verdict_name(scan_error_verdict(e)));
	sqlite3_bind_int64(s, 21, (sqlite3_int64)e->latency_ns);
	bind_text(s, 22, device);
	bind_text(s, 23, state_dev_path(st, device));
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
	bind_text(s, 2, device);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)e->offset);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)e->length);
	bind_text(s, 5, state_dev_path(st, device));	/* rows of older versions */
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
		bind_text(s, 3, device);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)e->offset);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)e->length);
		bind_error_fields(s, 6, e);
		sqlite3_bind_int64(s, 12, now);
		sqlite3_bind_int(s, 13, (int)e->vfy_fail);
		sqlite3_bind_int64(s, 14, e->dev_status);
		sqlite3_bind_int64(s, 15, (sqlite3_int64)e->pi_expected);	/* bits kept as is */
		sqlite3_bind_int64(s, 16, (sqlite3_int64)e->pi_found);
		bind_text(s, 17, scan_verdict_name(scan_error_verdict(e)));
		sqlite3_bind_int64(s, 18, (sqlite3_int64)e->latency_ns);
		bind_text(s, 19, state_dev_path(st, device));
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
	ret = state_exec(st, s);
	if (ret < 0)
		goto out_rollback;
	if (!sqlite3_changes(st->db)) {
		snprintf(st->errmsg, sizeof(st->errmsg), "pass %lld is not running",
			 (long long)pass_id);
		ret = -ESTALE;
		goto out_rollback;
	}

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

int scan_state_finish(struct scan_state *st, int64_t pass_id, enum scan_pass_result result,
		      uint64_t scanned_bytes, double bytes_per_s)
{
	sqlite3_stmt *s;
	int ret;

	if (!st || result == SCAN_PASS_RUNNING || (unsigned)result > SCAN_PASS_FAILED)
		return -EINVAL;
	s = state_stmt(st, STMT_PASS_FINISH);
	sqlite3_bind_int64(s, 1, pass_id);
	bind_text(s, 2, scan_pass_result_name(result));
	sqlite3_bind_int64(s, 3, time(NULL));
	sqlite3_bind_int64(s, 4, (sqlite3_int64)scanned_bytes);
	sqlite3_bind_double(s, 5, bytes_per_s);
	ret = state_exec(st, s);
	if (ret < 0)
		return ret;
	if (!sqlite3_changes(st->db)) {
		snprintf(st->errmsg, sizeof(st->errmsg), "pass %lld is not running",
			 (long long)pass_id);
		return -ESTALE;
	}
	return 0;
}

static void column_str(sqlite3_stmt *s, int col, char *buf, size_t len)
{
	const char *v = (const char *)sqlite3_column_text(s, col);

	snprintf(buf, len, "%s", v ? v : "");
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
	p->result = pass_result_parse((const char *)sqlite3_column_text(s, 7));
	column_str(s, 8, p->method, sizeof(p->method));
	column_str(s, 9, p->engine, sizeof(p->engine));
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
			.cls = err_class_parse((const char *)sqlite3_column_text(s, 5)),
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
	bind_text(s, 1, key);
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
	result = pass_result_parse((const char *)sqlite3_column_text(s, 0));
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
		bind_text(s, 4, v[i].how == SCAN_SETTLE_READ_CLEAN ? "read" : "unallocated");
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

/*
 * History queries for status, report and metrics. They run rarely, so their statements are
 * prepared per call rather than at open.
 */

static int hist_prepare(struct scan_state *st, const char *sql, sqlite3_stmt **s)
{
	int rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);

	if (rc != SQLITE_OK)
		return state_fail(st, rc);
	return 0;
}

/* Fill p from columns col.. of s in the order of STMT_PASS_GET. */
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
	p->result = pass_result_parse((const char *)sqlite3_column_text(s, col + 7));
	column_str(s, col + 8, p->method, sizeof(p->method));
	column_str(s, col + 9, p->engine, sizeof(p->engine));
	p->number = sqlite3_column_int64(s, col + 10);
}

/* ... and the pass's number among its target's passes of its kind (1 = the first). */
#define HIST_PASS_COLS "id, target_id, started, ended, planned_bytes, scanned_bytes, " \
	"bytes_per_s, result, method, engine, (SELECT count(*) FROM passes q WHERE " \
	"q.target_id = passes.target_id AND q.kind = passes.kind AND q.id <= passes.id)"

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
	bind_text(s, 1, key);
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
	bind_text(s, 2, device);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)offset);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)length);
	if (sqlite3_bind_parameter_count(s) >= 5)
		bind_text(s, 5, text);
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
			       "kind = 'full' AND result = 'complete'), 0)), 0) "
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
	bind_text(s, 2, device);
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
		p.recheck = sqlite3_column_int(s, 11);
		p.found = (unsigned)sqlite3_column_int64(s, 12);
		p.cleared = (unsigned)sqlite3_column_int64(s, 13);
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

/* Return the first column of one-row query sql with ?1 bound to name, or -errno. */
static int64_t forget_count(struct scan_state *st, const char *sql, const char *name)
{
	sqlite3_stmt *s;
	int64_t n;
	int ret = hist_prepare(st, sql, &s);

	if (ret < 0)
		return ret;
	bind_text(s, 1, name);
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
		bind_text(s, 1, name);
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
