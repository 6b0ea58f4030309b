/*
 * history/state_int.h - what the files of history/ share and nothing outside it sees: the
 * store's struct, its prepared statements, and the helpers of store.c (SQLite codes to -errno,
 * statements stepped and released, transactions) and schema.c (checks and migrations).
 */
#ifndef MEDIASCAN_STATE_INT_H
#define MEDIASCAN_STATE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "state.h"

/* The statements prepared at open (schema.c: state_sql). */
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
	STMT_PASS_PACE,
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


struct scan_state {
	sqlite3 *db;
	sqlite3_stmt *stmt[STMT_NR];
	char errmsg[256];
	/* scan_state_set_devices: the kernel path of each device key, for device_path */
	char *dev_key[8], *dev_path[8];
	unsigned nr_dev;
};

/* What state_db_check() makes of a database file. */
enum db_verdict {
	DB_GOOD,
	DB_BAD,			/* corrupt or foreign: move it aside */
	DB_ERROR,		/* could not tell (busy, permissions, I/O): give up */
};

extern const char *const state_sql[STMT_NR];

/* schema.c */
/* Return whether db is ours (or fresh), one to move aside, or could not tell (*rc_out, msg). */
enum db_verdict state_db_check(sqlite3 *db, int *rc_out, char *msg, size_t len);
/* Return SQLITE_OK after bringing db's schema to SCAN_STATE_SCHEMA_VERSION, or a SQLite code. */
int state_db_migrate(sqlite3 *db, char *msg, size_t len);

/* store.c */
/* Return the kernel path of device key (scan_state_set_devices), or key itself. */
const char *state_dev_path(const struct scan_state *st, const char *key);
/* Return the pass result stored as s (failed for a name this build does not know). */
enum scan_pass_result state_result_parse(const char *s);
/* Return the class stored as s; a name this build does not know is operational. */
enum scan_err_class state_class_parse(const char *s);
/* Return the -errno of SQLite result code rc (0 for OK, ROW, DONE). */
int state_errno(sqlite3 *db, int rc);
/* Return the -errno of a failed call on st->db after recording its message in st->errmsg. */
int state_fail(struct scan_state *st, int rc);
/* Return statement idx ready for binding. */
sqlite3_stmt *state_stmt(struct scan_state *st, enum state_stmt idx);
/* Release statement s (its read lock, its bindings) after use. */
void state_release(sqlite3_stmt *s);
/* Return 0 after stepping s to the end ignoring rows, or -errno; s is released. */
int state_exec(struct scan_state *st, sqlite3_stmt *s);
/* Return 1 (a row, s not released), 0 (the end, released) or -errno after one step of s. */
int state_row(struct scan_state *st, sqlite3_stmt *s);
/* Return 0 after BEGIN IMMEDIATE, or -errno. */
int state_begin(struct scan_state *st);
/* Return 0 after COMMIT, or -errno. */
int state_commit(struct scan_state *st);
/* Undo an open transaction; the error that caused it is kept in st->errmsg. */
void state_rollback(struct scan_state *st);
/* Bind v (NULL: SQL NULL) to parameter i of s. */
void state_bind_text(sqlite3_stmt *s, int i, const char *v);
/* Format a message into buf (nothing when buf is NULL or len 0). */
void state_msg(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Return 0 and set *s to sql prepared on st for one call (finalize it), or -errno. */
int hist_prepare(struct scan_state *st, const char *sql, sqlite3_stmt **s);
/* Clear table's open rows the complete pass pass_id did not see again; count or -errno. */
int hist_settle_open(struct scan_state *st, int64_t pass_id, const char *table);
/* Copy text column col of s to buf ("" for NULL). */
void state_column_str(sqlite3_stmt *s, int col, char *buf, size_t len);

#endif
