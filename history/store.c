/*
 * history/store.c - the state store in SQLite: open (state directory made 0700, a corrupt or
 * foreign database file renamed aside, never deleted, and a fresh one created), close, and the
 * helpers the other files of history/ share (SQLite codes to -errno, statements stepped and
 * released, transactions).
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
#include "state_int.h"

#define STATE_BUSY_TIMEOUT_MS 5000

/* The kernel path of device key (scan_state_set_devices), or key itself. */
const char *state_dev_path(const struct scan_state *st, const char *key)
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

/* The pass result stored as s; a name this build does not know is failed. */
enum scan_pass_result state_result_parse(const char *s)
{
	for (unsigned i = 0; i < sizeof(pass_result_names) / sizeof(pass_result_names[0]); i++)
		if (s && !strcmp(s, pass_result_names[i]))
			return i;
	return SCAN_PASS_FAILED;
}

/* A stored class name back to the class; a name this build does not know is operational. */
enum scan_err_class state_class_parse(const char *s)
{
	enum scan_err_class c;

	return scan_class_parse(s, &c) == 0 ? c : SCAN_ERR_OPERATIONAL;
}

/* Map a SQLite result code to -errno (0 for OK, ROW, DONE). */
int state_errno(sqlite3 *db, int rc)
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
int state_fail(struct scan_state *st, int rc)
{
	snprintf(st->errmsg, sizeof(st->errmsg), "%s", sqlite3_errmsg(st->db));
	return state_errno(st->db, rc);
}

/* Return statement idx ready for binding. */
sqlite3_stmt *state_stmt(struct scan_state *st, enum state_stmt idx)
{
	return st->stmt[idx];
}

/* Release statement s (its read lock, its bindings) after use. */
void state_release(sqlite3_stmt *s)
{
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
}

/* Step s to the end ignoring rows; return 0 or -errno. s is released. */
int state_exec(struct scan_state *st, sqlite3_stmt *s)
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
int state_row(struct scan_state *st, sqlite3_stmt *s)
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

/* Return 0 after BEGIN IMMEDIATE, or -errno. */
int state_begin(struct scan_state *st)
{
	return state_exec(st, state_stmt(st, STMT_BEGIN));
}

/* Return 0 after COMMIT, or -errno. */
int state_commit(struct scan_state *st)
{
	return state_exec(st, state_stmt(st, STMT_COMMIT));
}

/* Undo an open transaction; the error that caused it is kept in st->errmsg. */
void state_rollback(struct scan_state *st)
{
	sqlite3_stmt *s = state_stmt(st, STMT_ROLLBACK);

	if (sqlite3_get_autocommit(st->db))
		return;
	sqlite3_step(s);
	state_release(s);
}

/* Bind v (NULL: SQL NULL) to parameter i of s. */
void state_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, i);
}

/* Format a message into buf (nothing when buf is NULL or len 0). */
void state_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Prepare sql on st for one call (the history queries run rarely); return 0 or -errno. */
int hist_prepare(struct scan_state *st, const char *sql, sqlite3_stmt **s)
{
	int rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);

	if (rc != SQLITE_OK)
		return state_fail(st, rc);
	return 0;
}

/*
 * Clear the open rows of table (redundancy_lost, copies_differ: a constant, never input) that
 * complete pass pass_id did not see again: what a full pass read cleanly is gone. Return the
 * number cleared or -errno.
 */
int hist_settle_open(struct scan_state *st, int64_t pass_id, const char *table)
{
	char sql[400];
	sqlite3_stmt *s;
	int ret;

	if (!st)
		return -EINVAL;
	snprintf(sql, sizeof(sql), "UPDATE %s SET state = 'cleared', cleared = ?2, "
		 "cleared_pass_id = ?1 WHERE state = 'open' AND last_pass_id != ?1 AND "
		 "target_id = (SELECT target_id FROM passes WHERE id = ?1 AND "
		 "result = 'complete')", table);
	ret = hist_prepare(st, sql, &s);
	if (ret < 0)
		return ret;
	sqlite3_bind_int64(s, 1, pass_id);
	sqlite3_bind_int64(s, 2, time(NULL));
	ret = sqlite3_step(s);
	ret = ret == SQLITE_DONE ? sqlite3_changes(st->db) : state_fail(st, ret);
	sqlite3_finalize(s);
	return ret;
}

/* Copy text column col of s to buf ("" for NULL). */
void state_column_str(sqlite3_stmt *s, int col, char *buf, size_t len)
{
	const char *v = (const char *)sqlite3_column_text(s, col);

	snprintf(buf, len, "%s", v ? v : "");
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
		state_msg(msg, len, "cannot open: %s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
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

	switch (state_db_check(db, &rc, msg, len)) {
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
		state_msg(msg, len, "cannot set up: %s", sqlite3_errmsg(db));
		ret = state_errno(db, rc);
		goto out_close;
	}
	rc = state_db_migrate(db, msg, len);
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

	state_msg(warn, warnlen, "%s", "");
	*out = NULL;
	if (!state_dir)
		return -EINVAL;
	ret = state_mkdir_p(state_dir);
	if (ret < 0) {
		state_msg(warn, warnlen, "state directory %s: %s", state_dir, strerror(-ret));
		return ret;
	}
	n = snprintf(path, sizeof(path), "%s/%s", state_dir, SCAN_STATE_DB_NAME);
	if (n < 0 || (size_t)n >= sizeof(path) - 32) {
		state_msg(warn, warnlen, "state directory %s: path too long", state_dir);
		return -ENAMETOOLONG;
	}

	ret = db_open(path, &db, why, sizeof(why));
	if (ret == 1) {
		int r = state_move_aside(path, aside, sizeof(aside));

		if (r < 0) {
			state_msg(warn, warnlen, "state database %s %s and cannot be moved aside: %s",
				path, why, strerror(-r));
			return r;
		}
		state_msg(warn, warnlen, "state database %s %s; moved to %s, starting a new one",
			path, why, aside);
		ret = db_open(path, &db, why, sizeof(why));
		if (ret == 1)
			ret = -EUCLEAN;
	}
	if (ret < 0) {
		state_msg(warn, warnlen, "state database %s: %s", path, why);
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
			state_msg(warn, warnlen, "state database %s: %s", path, st->errmsg);
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
