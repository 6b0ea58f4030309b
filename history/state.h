/*
 * history/state.h - the state store: one SQLite database (state_dir/mediascan.db) holding
 * scan targets, passes, per-device checkpoint cursors and every media error ever seen, so an
 * interrupted scan resumes where it stopped and later passes can report what is new or cleared.
 *
 * A pass goes running -> complete | interrupted | failed. scan_state_finish() ends it; an
 * interrupted (or crashed, still "running") pass is the latest pass of its target and is found
 * again by scan_state_find_resumable(), then reopened by scan_state_resume(). Errors belong to
 * the target (unique by device, offset, length); error_passes records which passes saw them.
 * One struct scan_state is used by one thread at a time.
 */
#ifndef MEDIASCAN_STATE_H
#define MEDIASCAN_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "scan.h"

#define SCAN_STATE_DB_NAME "mediascan.db"
#define SCAN_STATE_SCHEMA_VERSION 4
#define SCAN_STATE_APPLICATION_ID 0x4d534331	/* "MSC1" in PRAGMA application_id */

struct scan_state;

enum scan_pass_result {
	SCAN_PASS_RUNNING,		/* in progress, or its process died */
	SCAN_PASS_COMPLETE,		/* every planned range was read */
	SCAN_PASS_INTERRUPTED,		/* stopped on request (signal, window end): resumable */
	SCAN_PASS_FAILED,		/* stopped on an operational error */
};

/* One row of passes, as scan_state_get_pass() returns it. */
struct scan_state_pass {
	int64_t id;			/* the database row: not for people */
	int64_t target_id;
	int64_t number;			/* this pass's number among its target's passes (1..) */
	int64_t started;		/* unix seconds */
	int64_t ended;			/* unix seconds, 0 while running */
	uint64_t planned_bytes;
	uint64_t scanned_bytes;
	double bytes_per_s;
	enum scan_pass_result result;
	char method[32];
	char engine[16];
};

/* Called by scan_state_load_errors() for each error; a negative return stops the walk. */
typedef int (*scan_state_error_fn)(const struct scan_error *e, const char *device, void *arg);

/*
 * Return 0 and set *out to the store in state_dir (created 0700 if missing), or -errno with
 * the reason in warn. A corrupt or foreign mediascan.db is renamed to mediascan.db.bad-DATE,
 * a fresh one created and warn says so; warn is "" when there is nothing to say.
 */
int scan_state_open(const char *state_dir, struct scan_state **out, char *warn, size_t warnlen);
/* Return 0 after finalizing statements and closing the database (st may be NULL). */
int scan_state_close(struct scan_state *st);
/* Return the message of the last SQLite failure on st ("" if none): for warnings and logs. */
const char *scan_state_errmsg(const struct scan_state *st);
/* Return the name stored for a pass result: "running", "complete", "interrupted", "failed". */
const char *scan_pass_result_name(enum scan_pass_result r);

/*
 * Return 0 after telling st the kernel path (paths[i], for people) of each device key
 * (keys[i]: what error rows name devices by), or -errno.
 */
int scan_state_set_devices(struct scan_state *st, const char *const *keys,
			   const char *const *paths, unsigned n);
/*
 * Return 1 after renaming the target known by legacy_key (the key of an older version, made
 * of kernel names) to key, 0 when there was none or key is known already, or -errno.
 */
int scan_state_adopt_key(struct scan_state *st, const char *key, const char *legacy_key);
/*
 * Return 0 and set *pass_id to a new running pass of target key (created or updated with path
 * and fs_type), or -errno. Earlier unfinished passes of the target stop being resumable. A
 * recheck pass (re-reads only the open errors) is never the target's latest or last complete
 * pass, and is never resumed.
 */
int scan_state_begin_pass(struct scan_state *st, const char *key, const char *path,
			  const char *fs_type, uint64_t planned_bytes, const char *method,
			  const char *engine, int recheck, int64_t *pass_id);
/*
 * Return 1 and set *pass_id and cursor[0..nr_devs) (device offsets in bytes, 0 for a device
 * without a cursor) when the latest pass of key is running or interrupted, 0 if none, -errno.
 */
int scan_state_find_resumable(struct scan_state *st, const char *key, int64_t *pass_id,
			      uint64_t *cursor, unsigned nr_devs);
/* Return 0 after marking an interrupted (or crashed running) pass running again, or -errno. */
int scan_state_resume(struct scan_state *st, int64_t pass_id);
/*
 * Return 0 after one transaction storing cursor[0..nr_devs) (bytes: everything below was read),
 * scanned_bytes and new_errors[0..n) (upserted; device name from device_paths[e->dev_idx]),
 * or -errno with nothing stored (-ESTALE if the pass is not running).
 */
int scan_state_checkpoint(struct scan_state *st, int64_t pass_id, const uint64_t *cursor,
			  unsigned nr_devs, uint64_t scanned_bytes,
			  const struct scan_error *new_errors, size_t n,
			  const char *const *device_paths);
/* Return 0 after ending a running pass with result, or -errno (-ESTALE if not running). */
int scan_state_finish(struct scan_state *st, int64_t pass_id, enum scan_pass_result result,
		      uint64_t scanned_bytes, double bytes_per_s);
/* Return 0 and fill p for pass_id, -ENOENT if there is no such pass, or -errno. */
int scan_state_get_pass(struct scan_state *st, int64_t pass_id, struct scan_state_pass *p);
/*
 * Return the number of errors seen in pass_id handed to fn (ordered by dev_idx, offset), a
 * negative value fn returned, or -errno.
 */
int scan_state_load_errors(struct scan_state *st, int64_t pass_id, scan_state_error_fn fn,
			   void *arg);
/* An open error of a target's history (strings valid during the callback). */
struct scan_state_open_error {
	int64_t id;
	const char *device;		/* the device's key (a path in rows of older versions) */
	const char *device_path;	/* its kernel path when last written */
	uint64_t offset, length;	/* bytes */
};
typedef int (*scan_state_open_fn)(const struct scan_state_open_error *e, void *arg);
/* Return the number of open errors of target key handed to fn (by device, offset), or -errno. */
int scan_state_open_errors(struct scan_state *st, const char *key, scan_state_open_fn fn,
			   void *arg);

/* What a complete pass found of an open error it did not see fail. */
enum scan_state_settle_how {
	SCAN_SETTLE_KEEP,		/* not read (whole) this pass: stays open */
	SCAN_SETTLE_READ_CLEAN,		/* every byte read cleanly: cleared */
	SCAN_SETTLE_UNALLOCATED,	/* not in this pass's plan: no longer allocated */
};
struct scan_state_outcome {
	int64_t id;
	enum scan_state_settle_how how;
};
/*
 * Return the number of open errors settled (cleared as read cleanly, or marked no longer
 * allocated) by complete pass pass_id of target key, or -errno (-EINVAL when the pass is not
 * complete or of another target). An error the pass saw fail is never settled.
 */
int scan_state_settle(struct scan_state *st, const char *key, int64_t pass_id,
		      const struct scan_state_outcome *v, size_t n);


/* History, for status, report and metrics. */

/* One target with its latest pass, last two complete passes and damage counts. */
struct scan_state_target {
	int64_t id;
	const char *key, *path, *fs_type;	/* valid during the callback */
	int has_latest, has_complete, has_prev_complete;
	struct scan_state_pass latest;
	struct scan_state_pass last_complete;
	struct scan_state_pass prev_complete;	/* the complete pass before last_complete */
	unsigned open_errors;		/* damage (verdict "damage") still open */
	unsigned cleared_errors;
	unsigned open_slow;		/* slow ranges still open */
	unsigned open_device_faults;	/* device-fault ranges still open */
	unsigned transient_latest;	/* transient errors of the last complete pass and later */
};

/* One error row of the history (strings valid during the callback). */
struct scan_state_error_row {
	int64_t id;
	int64_t first_pass_id, last_pass_id, cleared_pass_id;
	const char *device, *error, *cls;
	const char *verdict;		/* damage, slow or device-fault (result.c's names) */
	uint64_t latency_ns;		/* slow: the slowest answer seen */
	const char *owners_json;	/* NULL when never mapped */
	uint64_t offset, length;	/* bytes */
	int64_t first_seen, last_seen, cleared_at;	/* unix seconds */
	unsigned times_seen;
	int cleared;			/* state 'cleared' (else 'open') */
	int unallocated;		/* cleared because no longer allocated, not read */
};

/* Called for each target or error row; a negative return stops the walk. */
typedef int (*scan_state_target_fn)(const struct scan_state_target *t, void *arg);
typedef int (*scan_state_row_fn)(const struct scan_state_error_row *e, void *arg);

/* Return 1 and fill p with the latest pass of target key, 0 if it has none, or -errno. */
int scan_state_latest_pass(struct scan_state *st, const char *key, struct scan_state_pass *p);
/*
 * Return the number of errors of pass_id's target on device within [offset, offset+length)
 * whose owners_json was set (a coalesced report error may span several stored rows), or -errno.
 */
int scan_state_set_owners_range(struct scan_state *st, int64_t pass_id, const char *device,
				uint64_t offset, uint64_t length, const char *owners_json);
/* Return the number of targets handed to fn (by path), a negative value of fn, or -errno. */
int scan_state_list_targets(struct scan_state *st, scan_state_target_fn fn, void *arg);
/*
 * Return the number of damage rows of target_id last seen at or after since (unix seconds)
 * handed to fn, newest first; open ones only unless all; a negative value of fn, or -errno.
 */
int scan_state_list_errors(struct scan_state *st, int64_t target_id, int64_t since, int all,
			   scan_state_row_fn fn, void *arg);
/*
 * Return the number of stored errors of pass_id's target on device overlapping
 * [offset, offset+length) not yet notified (0: already told; 1 when no row overlaps it: a
 * row the store failed to keep is new, never told), or -errno. Nothing is marked:
 * scan_state_take_unnotified does that once the damage was told.
 */
int scan_state_count_unnotified(struct scan_state *st, int64_t pass_id, const char *device,
				uint64_t offset, uint64_t length);
/*
 * Return the number of stored errors of pass_id's target on device overlapping
 * [offset, offset+length) not yet notified, now marked notified (0: already told), or -errno.
 */
int scan_state_take_unnotified(struct scan_state *st, int64_t pass_id, const char *device,
			       uint64_t offset, uint64_t length);

/* One pass of a target's history with what it found and cleared (scan_state_list_passes). */
struct scan_state_pass_row {
	struct scan_state_pass pass;
	int recheck;			/* re-read only the open errors */
	unsigned found;			/* damage, slow and device-fault rows first seen in it */
	unsigned cleared;		/* rows it read cleanly */
};
typedef int (*scan_state_pass_fn)(const struct scan_state_pass_row *p, void *arg);
/* Return the number of passes of target_id handed to fn (oldest first), a negative value of
 * fn, or -errno. */
int scan_state_list_passes(struct scan_state *st, int64_t target_id, scan_state_pass_fn fn,
			   void *arg);

/* What scan_state_forget found (and dropped) of the targets named. */
struct scan_state_forget {
	unsigned targets;		/* targets whose path or key matched */
	unsigned passes;		/* their passes (a recheck counts) */
	unsigned running;		/* of them recorded as running (a scan now, or one that died) */
	unsigned open_ranges;		/* open error rows (damage, slow, device faults) */
	unsigned rows;			/* every error row, open or cleared */
};
/*
 * Return the number of targets whose path or key is name, with what they hold in *f; unless
 * dry_run, drop them with their passes, cursors and errors in one transaction. -errno.
 */
int scan_state_forget(struct scan_state *st, const char *name, int dry_run,
		      struct scan_state_forget *f);

#endif
